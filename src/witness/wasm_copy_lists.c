#include "witness/wasm_copy_lists.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One copy site's seven lines, '#' a u32 literal (digits, then u), '$' a
 * local's name. */
static const char *const site_lines[] = {
    "w2c_i0 = #;", "w2c_i1 = 40u;", "w2c_i0 *= w2c_i1;", "w2c_i1 = $;",
    "w2c_i0 += w2c_i1;", "w2c_i1 = #;", "w2c_Fr_copy(instance, w2c_i0, w2c_i1);",
};
enum { SITE_LINES = sizeof site_lines / sizeof site_lines[0], ELEMENT_BYTES = 40 };

typedef struct {
    uint32_t k, constant;   /* dest = k * 40 + base; src = constant */
    const char *base;       /* the local holding the array's address */
    size_t base_len, indent;
    const char *next;       /* the line after the call */
} copy_site;

static const char *u32_literal(const char *p, uint32_t *v)
{
    uint64_t x = 0;
    const char *start = p;
    for (; *p >= '0' && *p <= '9'; p++)
        if ((x = x * 10 + (uint64_t)(*p - '0')) > UINT32_MAX) return NULL;
    *v = (uint32_t)x;
    return p > start && *p == 'u' ? p + 1 : NULL;
}

/* A local of wasm2c's: w2c_<letters, digits, _>, but not an operand
 * temporary w2c_i<digits> (w2c_i0 would be the one being computed). */
static const char *local_name(const char *p, const char **name, size_t *len)
{
    if (strncmp(p, "w2c_", 4)) return NULL;
    const char *q = p + 4;
    while (isalnum((unsigned char)*q) || *q == '_') q++;
    if (q == p + 4) return NULL;
    const char *d = p + 5;
    while (d < q && isdigit((unsigned char)*d)) d++;
    if (p[4] == 'i' && d == q && q > p + 5) return NULL;
    *name = p;
    *len = (size_t)(q - p);
    return q;
}

/* p's line: indent spaces, then template, then "\n"; the line after, or NULL. */
static const char *match_line(const char *p, size_t indent, const char *template, uint32_t *number,
                              copy_site *s)
{
    for (size_t i = 0; i < indent; i++)
        if (*p++ != ' ') return NULL;
    for (const char *t = template; *t && p; t++) {
        if (*t == '#') p = u32_literal(p, number);
        else if (*t == '$') p = local_name(p, &s->base, &s->base_len);
        else if (*p == *t) p++;
        else return NULL;
    }
    return p && *p == '\n' ? p + 1 : NULL;
}

static int match_site(const char *line, copy_site *s)
{
    size_t indent = 0;
    while (line[indent] == ' ') indent++;
    const char *p = line;
    for (int i = 0; p && i < SITE_LINES; i++)
        p = match_line(p, indent, site_lines[i], i == 0 ? &s->k : &s->constant, s);
    s->indent = indent;
    s->next = p;
    return p != NULL;
}

/* The run starting at line: its sites (at most cap) in run[]; the count. */
static size_t match_run(const char *line, copy_site *run, size_t cap)
{
    size_t n = 0;
    while (n < cap && match_site(n ? run[n - 1].next : line, &run[n])) {
        const copy_site *first = &run[0], *s = &run[n];
        if (n && (s->k != first->k + n || s->indent != first->indent || s->base_len != first->base_len ||
                  memcmp(s->base, first->base, s->base_len)))
            break;
        n++;
    }
    return n;
}

/* The run as a block: the constants' table (8 a line), one call. */
static void put_list(FILE *o, const copy_site *run, size_t n)
{
    int in = (int)run[0].indent;
    fprintf(o, "%*s{\n%*sstatic const u32 constants[%zu] = {", in, "", in + 2, "", n);
    for (size_t i = 0; i < n; i++) {
        if (i % 8 == 0) fprintf(o, "\n%*s", in + 4, "");
        else fputc(' ', o);
        fprintf(o, "%uu,", run[i].constant);
    }
    fprintf(o, "\n%*s};\n%*scuzk_Fr_copy_list(instance, %uu * %du + %.*s, constants, %zuu);\n%*s}\n", in + 2, "",
            in + 2, "", run[0].k, ELEMENT_BYTES, (int)run[0].base_len, run[0].base, n, in, "");
}

static const char include_line[] = "#include \"circuit.h\"\n";

/* The helper: the glue's copies when it takes the list, otherwise each
 * element through w2c_Fr_copy, in order, as the sites did. */
static const char helper_declaration[] =
    "static void cuzk_Fr_copy_list(Z_circuit_instance_t*, u32, const u32*, u32);\n";
static const char helper_definition[] =
    "\nint cuzk_glue_Fr_copy_list(Z_circuit_instance_t*, u32, const u32*, u32);\n"
    "static void cuzk_Fr_copy_list(Z_circuit_instance_t* instance, u32 dst, const u32* src, u32 n) {\n"
    "  if (cuzk_glue_Fr_copy_list(instance, dst, src, n)) return;\n"
    "  for (u32 k = 0; k < n; k++) w2c_Fr_copy(instance, dst + k * 40u, src[k]);\n"
    "}\n";

char *wasm_fold_copy_lists(char *text, size_t *len, size_t *lists, size_t *sites)
{
    *lists = *sites = 0;
    char *inc = strstr(text, include_line);
    if (!inc || strstr(inc + 1, include_line)) return text;
    enum { RUN_CAP = 1 << 16 };
    copy_site *run = malloc(RUN_CAP * sizeof *run);
    char *out = NULL;
    size_t out_len = 0;
    FILE *o = run ? open_memstream(&out, &out_len) : NULL;
    if (!o) {
        free(run);
        free(text);
        return NULL;
    }
    size_t head = (size_t)(inc - text) + strlen(include_line);
    const char *p = text + head, *end = text + *len;
    fwrite(text, 1, head, o);
    fputs(helper_declaration, o);
    while (p < end) {
        size_t n = match_run(p, run, RUN_CAP);
        if (n >= COPY_LIST_MIN) {
            put_list(o, run, n);
            (*lists)++;
            *sites += n;
            p = run[n - 1].next;
            continue;
        }
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        const char *next = eol ? eol + 1 : end;
        fwrite(p, 1, (size_t)(next - p), o);
        p = next;
    }
    fputs(helper_definition, o);
    free(run);
    int failed = ferror(o);
    if (fclose(o) || failed) {
        free(out);
        free(text);
        return NULL;
    }
    if (!*lists) {
        free(out);
        return text;
    }
    free(text);
    *len = out_len;
    return out;
}
