/* Test support: runs tools/ff_oracle.py and parses its lines (oracle_io.h). */
#define _GNU_SOURCE
#include "oracle_io.h"

#include <stdarg.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/random.h"

#define ORACLE_SCRIPT "tools/ff_oracle.py"
#define ORACLE_SHOWN_MAX 20 /* failures printed in full; the rest are counted */

static unsigned long oracle_nfail;

unsigned long oracle_failures(void) { return oracle_nfail; }

void oracle_fail(const oracle_line *ln, const char *what, const char *fmt, ...)
{
    if (++oracle_nfail > ORACLE_SHOWN_MAX)
        return;
    va_list ap;
    va_start(ap, fmt);
    if (ln)
        fprintf(stderr, "oracle line %d [%s %s]: %s: ", ln->lineno, ln->tok[0],
                ln->ntok > 1 ? ln->tok[1] : "", what);
    else
        fprintf(stderr, "%s: ", what);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    if (oracle_nfail == ORACLE_SHOWN_MAX)
        fprintf(stderr, "(further failures are counted, not shown)\n");
}

static uint64_t oracle_rng;

void oracle_rng_seed(uint64_t seed) { oracle_rng = seed; }

uint64_t oracle_rand64(void)
{
    return cuzk_splitmix64(&oracle_rng);
}

/* a < m over n words, written out here so that F_is_canonical is not its own judge */
static int oracle_lt(const uint64_t *a, const uint64_t *m, int n)
{
    for (int i = n - 1; i >= 0; i--)
        if (a[i] != m[i])
            return a[i] < m[i];
    return 0;
}

void oracle_rand_below(uint64_t *r, const uint64_t *m, int n)
{
    uint64_t mask = m[n - 1];
    for (int s = 1; s < 64; s <<= 1)
        mask |= mask >> s;
    int structured = (oracle_rand64() & 3) == 0;
    do {
        for (int i = 0; i < n; i++) {
            uint64_t k = oracle_rand64();
            r[i] = !structured ? k : (k & 3) == 0 ? 0 : (k & 3) == 1 ? ~0ULL : oracle_rand64();
        }
        r[n - 1] &= mask;
    } while (!oracle_lt(r, m, n));
}

int oracle_is(const oracle_line *ln, const char *tag, const char *name)
{
    if (strcmp(ln->tok[0], tag) != 0)
        return 0;
    return !name || (ln->ntok > 1 && strcmp(ln->tok[1], name) == 0);
}

size_t oracle_replay(const oracle_set *s, const char *tag, const char *name, int ntok,
                     void (*check)(const oracle_line *ln))
{
    size_t seen = 0;
    for (size_t i = 0; i < s->n; i++) {
        const oracle_line *ln = &s->line[i];
        if (!oracle_is(ln, tag, name))
            continue;
        seen++;
        if (ln->ntok != ntok)
            oracle_fail(ln, "format", "%d tokens, expected %d", ln->ntok, ntok);
        else
            check(ln);
    }
    return seen;
}

unsigned long oracle_env_seed(unsigned long dflt)
{
    const char *s = getenv("CUZK_ORACLE_SEED");
    return s && *s ? strtoul(s, NULL, 0) : dflt;
}

int oracle_hex(uint64_t *out, int n, const char *hex)
{
    size_t len = strlen(hex);
    memset(out, 0, (size_t)n * 8);
    if (len == 0)
        return -1;
    for (size_t i = 0; i < len; i++) {
        char c = hex[len - 1 - i];
        uint64_t d;
        if (c >= '0' && c <= '9')
            d = (uint64_t)(c - '0');
        else if (c >= 'a' && c <= 'f')
            d = (uint64_t)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            d = (uint64_t)(c - 'A' + 10);
        else
            return -1;
        if (d && i / 16 >= (size_t)n)
            return -1;
        if (d)
            out[i / 16] |= d << (4 * (i % 16));
    }
    for (int w = n - 1; w >= 0; w--)
        if (out[w])
            return 64 * w + 64 - __builtin_clzll(out[w]);
    return 0;
}

void oracle_hex_print(char *buf, const uint64_t *v, int n)
{
    int w = n - 1;
    while (w > 0 && !v[w])
        w--;
    int off = sprintf(buf, "%llx", (unsigned long long)v[w]);
    while (--w >= 0)
        off += sprintf(buf + off, "%016llx", (unsigned long long)v[w]);
}

/* Splits line (modified in place, owned by the result) into tokens. */
static int oracle_split(oracle_line *ln, char *line, int lineno)
{
    int cap = 16;
    ln->tok = malloc((size_t)cap * sizeof(char *));
    ln->ntok = 0;
    ln->lineno = lineno;
    if (!ln->tok)
        return -1;
    char *save = NULL;
    for (char *t = strtok_r(line, " \t\r\n", &save); t; t = strtok_r(NULL, " \t\r\n", &save)) {
        if (ln->ntok == cap) {
            cap *= 2;
            char **nt = realloc(ln->tok, (size_t)cap * sizeof(char *));
            if (!nt)
                return -1;
            ln->tok = nt;
        }
        ln->tok[ln->ntok++] = t;
    }
    return 0;
}

static void oracle_free_line(oracle_line *ln)
{
    if (ln->tok && ln->ntok > 0)
        free(ln->tok[0]); /* the line buffer: token 0 starts it */
    free(ln->tok);
}

void oracle_free(oracle_set *s)
{
    for (size_t i = 0; i < s->n; i++)
        oracle_free_line(&s->line[i]);
    free(s->line);
    s->line = NULL;
    s->n = 0;
}

/* Reads every line of f into s; sets *end to the END line's count, or -1. */
static int oracle_read(oracle_set *s, FILE *f, long *end, int *nread)
{
    char *buf = NULL;
    size_t cap = 0, slots = 0;
    int lineno = 0;
    *end = -1;
    while (getline(&buf, &cap, f) >= 0) {
        lineno++;
        if (buf[0] == '#' || buf[0] == '\n')
            continue;
        if (strncmp(buf, "END ", 4) == 0) {
            *end = strtol(buf + 4, NULL, 10);
            continue;
        }
        if (s->n == slots) {
            slots = slots ? 2 * slots : 1024;
            oracle_line *nl = realloc(s->line, slots * sizeof(*nl));
            if (!nl)
                goto oom;
            s->line = nl;
        }
        char *copy = strdup(buf);
        oracle_line *ln = &s->line[s->n];
        if (!copy)
            goto oom;
        /* the token array owns copy through tok[0], which points at its start */
        if (oracle_split(ln, copy, lineno) < 0 || ln->ntok == 0 || ln->tok[0] != copy) {
            free(ln->tok);
            free(copy);
            goto oom;
        }
        s->n++;
    }
    free(buf);
    *nread = lineno;
    return 0;
oom:
    free(buf);
    *nread = lineno;
    return -1;
}

int oracle_load(oracle_set *s, unsigned long seed, int count, const char *only, char *err,
                size_t errlen)
{
    char cmd[256];
    memset(s, 0, sizeof(*s));
    s->seed = seed;
    if (access(ORACLE_SCRIPT, R_OK) != 0) {
        snprintf(err, errlen, "%s not found: run the tests from the repository root",
                 ORACLE_SCRIPT);
        return -1;
    }
    if (system("command -v python3 >/dev/null 2>&1") != 0) {
        snprintf(err, errlen, "python3 not found on PATH: the oracle tests need it");
        return -1;
    }
    snprintf(cmd, sizeof(cmd), "python3 %s --seed %lu --count %d --only %s", ORACLE_SCRIPT, seed,
             count, only);
    fprintf(stderr, "oracle: %s\n", cmd);
    FILE *f = popen(cmd, "r");
    if (!f) {
        snprintf(err, errlen, "cannot start \"%s\"", cmd);
        return -1;
    }
    long end;
    int nread;
    int rc = oracle_read(s, f, &end, &nread);
    int st = pclose(f);
    if (rc < 0) {
        snprintf(err, errlen, "out of memory reading the oracle");
    } else if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        snprintf(err, errlen, "\"%s\" failed (status %d)", cmd, st);
        rc = -1;
    } else if (end < 0 || end != (long)nread - 1) {
        snprintf(err, errlen, "oracle output cut short (%d lines, END says %ld)", nread, end);
        rc = -1;
    } else if (s->n == 0) {
        snprintf(err, errlen, "oracle wrote no vectors");
        rc = -1;
    }
    if (rc < 0)
        oracle_free(s);
    return rc;
}
