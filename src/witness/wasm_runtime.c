#include "witness/wasm_runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/err.h"
#include "util/file.h"

/* Where Debian's wabt puts the runtime's files, searched in this order. */
static const char *const runtime_dirs[] = {"/usr/share/wabt/wasm2c", "/usr/src/wasm2c", "/usr/include"};
static const char *const runtime_names[WASM_RUNTIME_FILES] = {"wasm-rt.h", "wasm-rt-impl.h", "wasm-rt-impl.c"};

/* The runtime's rewrites, as wabt 1.0.32 writes the text (wasm_runtime.h
 * says why): its per-call state made thread-local, and the glue told
 * before the memory grows. */
static const struct {
    int file; /* index into runtime_names */
    const char *was, *now;
} runtime_rows[] = {
    {0, "extern uint32_t wasm_rt_call_stack_depth;", "extern _Thread_local uint32_t wasm_rt_call_stack_depth;"},
    {1, "extern jmp_buf wasm_rt_jmp_buf;", "extern _Thread_local jmp_buf wasm_rt_jmp_buf;"},
    {1, "extern uint32_t wasm_rt_saved_call_stack_depth;",
     "extern _Thread_local uint32_t wasm_rt_saved_call_stack_depth;"},
    {2, "\nuint32_t wasm_rt_call_stack_depth;", "\n_Thread_local uint32_t wasm_rt_call_stack_depth;"},
    {2, "\nuint32_t wasm_rt_saved_call_stack_depth;", "\n_Thread_local uint32_t wasm_rt_saved_call_stack_depth;"},
    {2, "\njmp_buf wasm_rt_jmp_buf;", "\n_Thread_local jmp_buf wasm_rt_jmp_buf;"},
    {2, "\nstatic jmp_buf* g_unwind_target;", "\nstatic _Thread_local jmp_buf* g_unwind_target;"},
    {2, "\nuint32_t wasm_rt_grow_memory(wasm_rt_memory_t* memory, uint32_t delta) {\n",
     "\nvoid cuzk_glue_memory_moves(wasm_rt_memory_t* memory);\n"
     "uint32_t wasm_rt_grow_memory(wasm_rt_memory_t* memory, uint32_t delta) {\n"
     "  cuzk_glue_memory_moves(memory);\n"},
};

static int find_file(const char *name, char *path, size_t cap)
{
    for (size_t i = 0; i < sizeof runtime_dirs / sizeof runtime_dirs[0]; i++) {
        snprintf(path, cap, "%s/%s", runtime_dirs[i], name);
        if (!access(path, R_OK)) return 0;
    }
    return -1;
}

/* f's text with `was` (found exactly once) replaced by `now`. */
static int rewrite(wasm_runtime_file *f, const char *path, const char *was, const char *now, cuzk_error *err)
{
    char *at = strstr(f->text, was);
    if (!at || strstr(at + 1, was))
        return cuzk_fail(err, CUZK_ERR_IO,
                         "%s: wabt's runtime is not the one cuzk builds circuits with (1.0.32): '%s' is %s", path,
                         was + (was[0] == '\n'), at ? "there twice" : "missing");
    size_t head = (size_t)(at - f->text), wl = strlen(was), nl = strlen(now);
    char *text = malloc(f->len - wl + nl + 1);
    if (!text) return cuzk_fail(err, CUZK_ERR_NOMEM, "no memory for wabt's runtime");
    memcpy(text, f->text, head);
    memcpy(text + head, now, nl);
    memcpy(text + head + nl, at + wl, f->len - head - wl + 1);
    free(f->text);
    f->text = text;
    f->len = f->len - wl + nl;
    return CUZK_OK;
}

static int read_file(wasm_runtime_file *f, char *path, size_t cap, cuzk_error *err)
{
    if (find_file(f->name, path, cap))
        return cuzk_fail(err, CUZK_ERR_IO,
                         "wabt's wasm2c runtime (%s) is not installed: install Debian's wabt (scripts/install-deps "
                         "does)",
                         f->name);
    uint8_t *bytes;
    int rc = cuzk_file_read_all(path, 1 << 24, &bytes, &f->len, err);
    if (rc) return rc;
    /* NUL-terminated, for the searches */
    char *text = realloc(bytes, f->len + 1);
    if (!text) {
        free(bytes);
        return cuzk_fail(err, CUZK_ERR_NOMEM, "no memory for %s", path);
    }
    text[f->len] = 0;
    f->text = text;
    return CUZK_OK;
}

int wasm_runtime_load(wasm_runtime *rt, cuzk_error *err)
{
    memset(rt, 0, sizeof *rt);
    char paths[WASM_RUNTIME_FILES][256];
    int rc = CUZK_OK;
    for (int i = 0; !rc && i < WASM_RUNTIME_FILES; i++) {
        rt->files[i].name = runtime_names[i];
        rc = read_file(&rt->files[i], paths[i], sizeof paths[i], err);
    }
    for (size_t i = 0; !rc && i < sizeof runtime_rows / sizeof runtime_rows[0]; i++) {
        int f = runtime_rows[i].file;
        rc = rewrite(&rt->files[f], paths[f], runtime_rows[i].was, runtime_rows[i].now, err);
    }
    if (rc) wasm_runtime_free(rt);
    return rc;
}

void wasm_runtime_free(wasm_runtime *rt)
{
    for (int i = 0; i < WASM_RUNTIME_FILES; i++) free(rt->files[i].text);
    memset(rt, 0, sizeof *rt);
}
