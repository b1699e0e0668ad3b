#include "witness/wasm_file.h"

#include <string.h>

#include "util/err.h"

/* The exports circom 2.1+ writes that the glue calls, and its imports: all
 * functions of module "runtime" (wasm_glue.c implements each). */
static const char *const circom_exports[] = {
    "getVersion",         "getMinorVersion",     "getPatchVersion", "getFieldNumLen32", "getRawPrime",
    "readSharedRWMemory", "writeSharedRWMemory", "init",            "setInputSignal",   "getInputSignalSize",
    "getInputSize",       "getWitnessSize",      "getWitness",      "getMessageChar",
};
enum { N_EXPORTS = sizeof circom_exports / sizeof circom_exports[0] };
static const char *const circom_imports[] = {"exceptionHandler", "printErrorMessage", "writeBufferMessage",
                                             "showSharedRWMemory"};
enum { N_IMPORTS = sizeof circom_imports / sizeof circom_imports[0] };

enum { SEC_IMPORT = 2, SEC_EXPORT = 7, KIND_FUNC = 0 };

typedef struct {
    const uint8_t *p, *end;
    int bad; /* a read went past end */
} wasm_cursor;

static uint32_t wasm_u32(wasm_cursor *c)
{
    uint32_t v = 0;
    for (int shift = 0; shift < 35; shift += 7) {
        if (c->p >= c->end) break;
        uint8_t b = *c->p++;
        v |= (uint32_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) return v;
    }
    c->bad = 1;
    return 0;
}

static uint8_t wasm_byte(wasm_cursor *c)
{
    if (c->p >= c->end) {
        c->bad = 1;
        return 0;
    }
    return *c->p++;
}

/* A name: its bytes stay in the file; *len its length. */
static const uint8_t *wasm_name(wasm_cursor *c, uint32_t *len)
{
    *len = wasm_u32(c);
    if (c->bad || *len > (size_t)(c->end - c->p)) {
        c->bad = 1;
        return NULL;
    }
    const uint8_t *s = c->p;
    c->p += *len;
    return s;
}

static int name_is(const uint8_t *s, uint32_t len, const char *want)
{
    return s && strlen(want) == len && !memcmp(s, want, len);
}

/* Skips an import's description after its kind byte. */
static void wasm_skip_import_desc(wasm_cursor *c, uint8_t kind)
{
    if (kind == 0) { /* function: type index */
        wasm_u32(c);
        return;
    }
    if (kind == 1) wasm_byte(c); /* table: element type, then limits */
    if (kind == 3) {             /* global: value type, mutability */
        wasm_byte(c);
        wasm_byte(c);
        return;
    }
    if (kind > 3) {
        c->bad = 1;
        return;
    }
    uint8_t flags = wasm_byte(c); /* limits: min, and max when flagged */
    wasm_u32(c);
    if (flags & 1) wasm_u32(c);
}

static int check_imports(wasm_cursor c, const char *name, cuzk_error *err)
{
    uint32_t n = wasm_u32(&c);
    for (uint32_t i = 0; i < n && !c.bad; i++) {
        uint32_t mlen, flen;
        const uint8_t *mod = wasm_name(&c, &mlen), *field = wasm_name(&c, &flen);
        uint8_t kind = wasm_byte(&c);
        if (c.bad) break;
        int known = kind == KIND_FUNC && name_is(mod, mlen, "runtime");
        int j = 0;
        while (known && j < N_IMPORTS && !name_is(field, flen, circom_imports[j])) j++;
        if (!known || j == N_IMPORTS)
            return cuzk_fail(err, CUZK_ERR_FORMAT,
                             "%s: not circom 2's witness calculator: it imports %.*s.%.*s, which circom's "
                             "runtime does not provide (circom 1's wasm imports env.memory)",
                             name, (int)(mlen > 64 ? 64 : mlen), (const char *)mod, (int)(flen > 64 ? 64 : flen),
                             (const char *)field);
        wasm_skip_import_desc(&c, kind);
    }
    return c.bad ? cuzk_fail(err, CUZK_ERR_FORMAT, "%s: its import section is corrupt", name) : CUZK_OK;
}

/* Marks in found[] the protocol's exports that the section holds. */
static int scan_exports(wasm_cursor c, int *found, const char *name, cuzk_error *err)
{
    uint32_t n = wasm_u32(&c);
    for (uint32_t i = 0; i < n && !c.bad; i++) {
        uint32_t len;
        const uint8_t *s = wasm_name(&c, &len);
        uint8_t kind = wasm_byte(&c);
        wasm_u32(&c);
        for (int j = 0; !c.bad && kind == KIND_FUNC && j < N_EXPORTS; j++)
            if (name_is(s, len, circom_exports[j])) found[j] = 1;
    }
    return c.bad ? cuzk_fail(err, CUZK_ERR_FORMAT, "%s: its export section is corrupt", name) : CUZK_OK;
}

int wasm_check_circom(const uint8_t *bytes, size_t len, const char *name, cuzk_error *err)
{
    if (len < 8 || memcmp(bytes, "\0asm", 4))
        return cuzk_fail(err, CUZK_ERR_FORMAT, "%s: not a WebAssembly file (no \\0asm magic): give circom's "
                         "<circuit>_js/<circuit>.wasm", name);
    uint32_t version = bytes[4] | (uint32_t)bytes[5] << 8 | (uint32_t)bytes[6] << 16 | (uint32_t)bytes[7] << 24;
    if (version != 1)
        return cuzk_fail(err, CUZK_ERR_FORMAT, "%s: WebAssembly version %u is not supported (expected 1)", name,
                         version);
    int found[N_EXPORTS] = {0}, rc = CUZK_OK;
    wasm_cursor c = {bytes + 8, bytes + len, 0};
    while (!rc && c.p < c.end) {
        uint8_t id = wasm_byte(&c);
        uint32_t size = wasm_u32(&c);
        if (c.bad || size > (size_t)(c.end - c.p))
            return cuzk_fail(err, CUZK_ERR_FORMAT, "%s: truncated: section %u runs past the end of the file",
                             name, id);
        wasm_cursor sec = {c.p, c.p + size, 0};
        if (id == SEC_IMPORT) rc = check_imports(sec, name, err);
        if (id == SEC_EXPORT) rc = scan_exports(sec, found, name, err);
        c.p += size;
    }
    if (rc) return rc;
    if (!found[0])
        return cuzk_fail(err, CUZK_ERR_FORMAT,
                         "%s: not circom 2's witness calculator (it exports no getVersion; circom 1's wasm is "
                         "not supported)", name);
    for (int j = 1; j < N_EXPORTS; j++)
        if (!found[j])
            return cuzk_fail(err, CUZK_ERR_FORMAT,
                             "%s: not the witness calculator of circom 2.1 or later: it exports no %s", name,
                             circom_exports[j]);
    return CUZK_OK;
}
