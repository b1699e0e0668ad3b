#define _GNU_SOURCE /* pipe2 */
#include "witness/wasm_build.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/err.h"
#include "util/file.h"
#include "util/timer.h"
#include "witness/wasm_build_dir.h"
#include "witness/wasm_cache_object.h"
#include "witness/wasm_copy_lists.h"
#include "witness/wasm_glue.h"
#include "witness/wasm_poll_points.h"
#include "witness/wasm_runtime.h"

/* Bounds-checked memory: the runtime's faster guard-page mode needs a
 * SIGSEGV handler of its own in the process, which a library must not take
 * over. Stack depth: circom's code keeps its own data in linear memory, so a
 * native frame is small and 20,000 of them fit in an 8 MiB stack; deeper
 * recursion traps ("call stack exhausted") instead of crashing. -pthread:
 * the glue's one-time start (pthread_once). */
#define BUILD_STR_(x) #x
#define BUILD_STR(x) BUILD_STR_(x)
static const char *const cc_flags[] = {"-O2", "-shared", "-fPIC", "-fvisibility=hidden", "-w", "-pthread",
                                       "-DWASM_RT_MEMCHECK_SIGNAL_HANDLER=0",
                                       "-DWASM_RT_MAX_CALL_STACK_DEPTH=20000",
                                       /* the glue's numbers (wasm_glue.h) */
                                       "-DWASM_GLUE_ABI=" BUILD_STR(WASM_GLUE_ABI),
                                       "-DWASM_GLUE_INFO_N=" BUILD_STR(WASM_GLUE_INFO_N),
                                       "-DWASM_GLUE_POLL_EVERY=" BUILD_STR(WASM_GLUE_POLL_EVERY),
                                       "-DWASM_GLUE_TRAP_STOPPED=" BUILD_STR(WASM_GLUE_TRAP_STOPPED)};
enum { N_CC_FLAGS = sizeof cc_flags / sizeof cc_flags[0] };

/* The translation and the glue compiled as one unit, so that each rerouted
 * helper's wrapper inlines the glue's entry (a call, and the result through
 * the stack, fewer on every helper call;
 * bench/results/2026-12-05-wtns-sha256-glue3.md). */
static const char unit_source[] = "#include \"circuit.c\"\n#include \"glue.c\"\n";

/* Sizes that keep every path made from the cache folder's name whole: the
 * folder, its build folder (".build-XXXXXX"), the files in either. */
#define FOLDER_CAP (WASM_BUILD_DIR_CAP - 16)
#define TMP_CAP WASM_BUILD_DIR_CAP
#define PATH_CAP (TMP_CAP + 120)
enum { WASM_HASH_HEX = 64, RECIPE_HEX = 16 };

static void hex_of(const uint8_t *b, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++) snprintf(out + 2 * i, 3, "%02x", b[i]);
}

/* mkdir -p, mode 0755 less the umask. */
static int make_folders(const char *path, cuzk_error *err)
{
    char buf[PATH_CAP];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return cuzk_fail(err, CUZK_ERR_IO, "the cache folder's name is too long");
    for (char *p = buf + 1;; p++) {
        if (*p && *p != '/') continue;
        char was = *p;
        *p = 0;
        if (mkdir(buf, 0755) && errno != EEXIST)
            return cuzk_fail(err, CUZK_ERR_IO, "cannot make the wasm cache folder %s: %s", buf, strerror(errno));
        if (!was) return CUZK_OK;
        *p = was;
    }
}

static int cache_folder(const char *given, char out[FOLDER_CAP], cuzk_error *err)
{
    const char *env = getenv("CUZK_WASM_CACHE"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n;
    if (given && *given) n = snprintf(out, FOLDER_CAP, "%s", given);
    else if (env && *env) n = snprintf(out, FOLDER_CAP, "%s", env);
    else if (xdg && *xdg == '/') n = snprintf(out, FOLDER_CAP, "%s/cuzk/wasm", xdg);
    else if (home && *home) n = snprintf(out, FOLDER_CAP, "%s/.cache/cuzk/wasm", home);
    else
        return cuzk_fail(err, CUZK_ERR_IO, "no folder for the wasm cache: set CUZK_WASM_CACHE (or HOME)");
    if (n >= FOLDER_CAP) return cuzk_fail(err, CUZK_ERR_IO, "the wasm cache folder's name is too long");
    int rc = make_folders(out, err);
    return rc ? rc : wasm_folder_check(out, err);
}

/* The revision of the rewriting (translation_rows, the helpers, the copy
 * lists): raise it with any change to what the rewriting writes, so that
 * objects built before are not loaded. */
static const char rewrite_revision[] = "5";

/* The recipe's hash: the glue, the unit, the flags, the runtime's files as
 * built and the rewriting's revision. */
static int recipe_hex(const wasm_runtime *rt, char out[RECIPE_HEX + 1], cuzk_error *err)
{
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int ok = ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) &&
             EVP_DigestUpdate(ctx, wasm_glue_source, strlen(wasm_glue_source) + 1) &&
             EVP_DigestUpdate(ctx, unit_source, sizeof unit_source);
    for (int i = 0; ok && i < N_CC_FLAGS; i++) ok = EVP_DigestUpdate(ctx, cc_flags[i], strlen(cc_flags[i]) + 1);
    for (int i = 0; ok && i < WASM_RUNTIME_FILES; i++) ok = EVP_DigestUpdate(ctx, rt->files[i].text, rt->files[i].len + 1);
    ok = ok && EVP_DigestUpdate(ctx, rewrite_revision, sizeof rewrite_revision);
    uint8_t md[32];
    unsigned int md_len = 0;
    ok = ok && EVP_DigestFinal_ex(ctx, md, &md_len);
    EVP_MD_CTX_free(ctx);
    if (!ok) return cuzk_fail(err, CUZK_ERR_NOMEM, "SHA-256 failed");
    hex_of(md, RECIPE_HEX / 2, out);
    return CUZK_OK;
}

static int write_file(const char *path, const void *data, size_t len, cuzk_error *err)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    size_t done = 0;
    while (fd >= 0 && done < len) {
        ssize_t n = write(fd, (const uint8_t *)data + done, len - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        done += (size_t)n;
    }
    int saved = errno;
    if (fd >= 0 && close(fd) && done == len) done = 0;
    if (fd < 0 || done < len)
        return cuzk_fail(err, CUZK_ERR_IO, "cannot write %s: %s", path, strerror(saved ? saved : EIO));
    return CUZK_OK;
}

/* The end of a tool's output, for the message when it fails. */
static void log_tail(const char *log_path, char *out, size_t cap)
{
    uint8_t *text;
    size_t len;
    out[0] = 0;
    if (cuzk_file_read_all(log_path, 1 << 26, &text, &len, NULL)) return;
    size_t keep = cap - 1 < len ? cap - 1 : len;
    snprintf(out, cap, "%s", (const char *)text + len - keep);
    for (char *p = out; *p; p++)
        if (*p == '\n') *p = ' ';
    free(text);
}

/* How often a wait for a tool looks at the cancel flag (the tool's end
 * wakes it at once). */
#define TOOL_CANCEL_POLL_MS 100

/* Waits for the tool pid: 0 with *status, or CUZK_ERR_CANCELLED once
 * *cancel is set (the tool killed and reaped). */
static int wait_tool(pid_t pid, int *status, const atomic_int *cancel)
{
    int fd = cancel ? (int)syscall(SYS_pidfd_open, pid, 0) : -1;
    for (;;) {
        if (cancel && atomic_load(cancel)) {
            kill(pid, SIGKILL);
            while (waitpid(pid, status, 0) < 0 && errno == EINTR)
                ;
            if (fd >= 0) close(fd);
            return CUZK_ERR_CANCELLED;
        }
        if (fd >= 0) {
            struct pollfd p = {fd, POLLIN, 0};
            if (poll(&p, 1, TOOL_CANCEL_POLL_MS) == 0) continue;
        }
        pid_t got = waitpid(pid, status, fd >= 0 || cancel ? WNOHANG : 0);
        if (got == pid) break;
        if (got < 0 && errno != EINTR) {
            if (fd >= 0) close(fd);
            return -1;
        }
        if (got == 0 && fd < 0) poll(NULL, 0, TOOL_CANCEL_POLL_MS); /* no pidfd: a kernel before 5.3 */
    }
    if (fd >= 0) close(fd);
    return 0;
}

/* Runs argv (found on PATH; no shell), its output to log_path. The tool
 * ends with the thread that started it (PR_SET_PDEATHSIG), which waits for
 * it: a process killed while compiling leaves no compiler running on; and
 * it is killed when *cancel is set. */
static int run_tool(char *const argv[], const char *log_path, const char *what, const atomic_int *cancel,
                    cuzk_error *err)
{
    int ready[2]; /* the child's exec (closed on it) or its errno */
    if (pipe2(ready, O_CLOEXEC)) return cuzk_fail(err, CUZK_ERR_IO, "cannot start %s: %s", what, strerror(errno));
    pid_t parent = getpid(), pid = fork();
    int fork_errno = errno;
    if (pid == 0) {
        /* async-signal-safe calls only, the parent having threads */
        int e = 0;
        sigset_t none;
        sigemptyset(&none); /* the daemon's threads block its stop signals */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent || sigprocmask(SIG_SETMASK, &none, NULL))
            _exit(127);
        int in = open("/dev/null", O_RDONLY), out = open(log_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
        if (in < 0 || out < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0) e = errno;
        if (in > 2) close(in);
        if (out > 2) close(out);
        if (!e) execvp(argv[0], argv);
        e = e ? e : errno;
        if (write(ready[1], &e, sizeof e) < 0) _exit(127);
        _exit(127);
    }
    close(ready[1]);
    int rc = 0;
    if (pid < 0) rc = fork_errno;
    else if (read(ready[0], &rc, sizeof rc) != sizeof rc) rc = 0;
    close(ready[0]);
    if (pid > 0 && rc) waitpid(pid, NULL, 0);
    if (rc == ENOENT)
        return cuzk_fail(err, CUZK_ERR_IO, "%s: %s not found: install Debian's %s (scripts/install-deps does)",
                         what, argv[0], !strcmp(argv[0], "wasm2c") ? "wabt" : "gcc");
    if (rc) return cuzk_fail(err, CUZK_ERR_IO, "%s: cannot run %s: %s", what, argv[0], strerror(rc));
    int status;
    int waited = wait_tool(pid, &status, cancel);
    if (waited == CUZK_ERR_CANCELLED) return cuzk_fail(err, waited, "%s: cancelled (%s stopped)", what, argv[0]);
    if (waited) return cuzk_fail(err, CUZK_ERR_IO, "%s: waiting for %s: %s", what, argv[0], strerror(errno));
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return CUZK_OK;
    char tail[300];
    log_tail(log_path, tail, sizeof tail);
    if (WIFSIGNALED(status))
        return cuzk_fail(err, CUZK_ERR_IO, "%s: %s was killed by signal %d: %s", what, argv[0], WTERMSIG(status),
                         tail);
    return cuzk_fail(err, CUZK_ERR_IO, "%s: %s failed (exit %d): %s", what, argv[0], WEXITSTATUS(status), tail);
}

static void progress(const wasm_build_options *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void progress(const wasm_build_options *o, const char *fmt, ...)
{
    if (!o || !o->progress) return;
    char line[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    o->progress(o->ctx, line);
}

/* Rewrites of wasm2c's translation, as wabt 1.0.32 writes it; one whose
 * text is not found once leaves the translation as it is (still correct,
 * slower):
 *   - circom's Montgomery product, the bulk of a witness's time, rerouted
 *     to the glue's native one (wasm_glue.c says why the bits are the
 *     same): the definition gets a new name and the old name a body that
 *     calls the glue;
 *   - the call depth counted in the instance (the first word of the glue's
 *     runtime instance, which every function reaches through its
 *     `instance`) rather than in the runtime's thread-local counter, whose
 *     every access from a loaded object is a call (__tls_get_addr): 1.8x
 *     the time of a SHA-256 witness; and each call counted towards the
 *     host's next poll (the second word, wasm_glue.h), with CUZK_POLL
 *     defined for the loops' back edges (wasm_poll_points.h). */
static const struct {
    const char *what, *how, *was, *now;
} translation_rows[] = {
    {"field products", "native",
     "static void w2c_Fr_F1m_mul(Z_circuit_instance_t* instance, u32 w2c_x, u32 w2c_y, u32 w2c_r) {",
     "void cuzk_glue_mont_mul(Z_circuit_instance_t*, u32, u32, u32);\n"
     "static void w2c_Fr_F1m_mul(Z_circuit_instance_t* instance, u32 w2c_x, u32 w2c_y, u32 w2c_r) {\n"
     "  cuzk_glue_mont_mul(instance, w2c_x, w2c_y, w2c_r);\n"
     "}\n"
     "static void w2c_Fr_F1m_mul_wasm(Z_circuit_instance_t* instance, u32 w2c_x, u32 w2c_y, u32 w2c_r) {"},
    {"call depth", "per instance",
     "#define FUNC_PROLOGUE                                            \\\n"
     "  if (++wasm_rt_call_stack_depth > WASM_RT_MAX_CALL_STACK_DEPTH) \\\n"
     "    TRAP(EXHAUSTION);\n"
     "\n"
     "#define FUNC_EPILOGUE --wasm_rt_call_stack_depth\n",
     "void cuzk_glue_poll(Z_circuit_instance_t*);\n"
     "#define CUZK_POLL() \\\n"
     "  do { if (__builtin_expect(--((u32*)instance->Z_runtime_instance)[1] == 0, 0)) cuzk_glue_poll(instance); } while (0)\n"
     "#define FUNC_PROLOGUE \\\n"
     "  if (++*(u32*)instance->Z_runtime_instance > WASM_RT_MAX_CALL_STACK_DEPTH) \\\n"
     "    TRAP(EXHAUSTION); \\\n"
     "  CUZK_POLL();\n"
     "\n"
     "#define FUNC_EPILOGUE --*(u32*)instance->Z_runtime_instance\n"},
};
enum { N_TRANSLATION_ROWS = sizeof translation_rows / sizeof translation_rows[0], ROW_PROLOGUE = 1 };

/* text (len bytes, NUL after) with `was`, when it is there once, replaced
 * by `now`: a new allocation, or text itself when nothing changed; NULL
 * when out of memory. */
static char *replace_once(char *text, size_t *len, const char *was, const char *now, int *done)
{
    char *at = strstr(text, was);
    *done = 0;
    if (!at || strstr(at + 1, was)) return text;
    size_t head = (size_t)(at - text), wl = strlen(was), nl = strlen(now);
    char *out = malloc(*len - wl + nl + 1);
    if (!out) return NULL;
    memcpy(out, text, head);
    memcpy(out + head, now, nl);
    memcpy(out + head + nl, at + wl, *len - head - wl + 1);
    *len = *len - wl + nl;
    free(text);
    *done = 1;
    return out;
}

/* circom 2.2.3's field helpers (its wasm runtime, the same in every circuit
 * of one prime) as wabt 1.0.32 translates them, each known by the SHA-256
 * of its definition (the first 16 hex digits; bn128's, then bls12381's
 * where the prime is in the text). Those marked native are rerouted to
 * the glue's (wasm_glue.c says why the bits are the same): the definition
 * gets the suffix _wasm and the old name a body that calls the glue, which
 * declines (0) calls it does not take and so leaves them to the wasm. The
 * others are what the native ones stand for. All or none: the rerouting
 * is done only when every definition is there once with its hash. */
static const struct {
    const char *name;
    int native;
    const char *sha[2];
} helper_rows[] = {
    {"Fr_copy", 1, {"c40b6152121fffc6"}},
    {"Fr_toNormal", 1, {"a426d63a446fad7d"}},
    {"Fr_toMontgomery", 1, {"3c4aedd98f884641"}},
    {"Fr_toLongNormal", 1, {"8d061d23086330c7"}},
    {"Fr_isNegative", 1, {"f713814d5a746d9b"}},
    {"Fr_neg", 1, {"46ecf3f84fdabc3f"}},
    {"Fr_getLsb32", 1, {"7e77fb685304bb8c"}},
    {"Fr_toInt", 1, {"7d31ac1e126ad025"}},
    {"Fr_isTrue", 1, {"06b1b170978d68c0"}},
    {"Fr_add", 1, {"a5c2d87f031a2c49"}},
    {"Fr_sub", 1, {"6afc21e4461501d7"}},
    {"Fr_mul", 1, {"589131ca7afeed6f"}},
    {"Fr_eqR", 1, {"22a70d1394546294"}},
    {"Fr_gtR", 1, {"ef57526b88e2c498"}},
    {"Fr_eq", 1, {"ff24ec76f4fe1bc9"}},
    {"Fr_neq", 1, {"283c39281fc1ec16"}},
    {"Fr_gt", 1, {"2de27d2a5b56f3a9"}},
    {"Fr_geq", 1, {"92fc1216004eba98"}},
    {"Fr_lt", 1, {"41c2c78e5a8fa360"}},
    {"Fr_leq", 1, {"5811b4ea06aad77b"}},
    {"Fr_mod", 1, {"de8404f9fd9bb781"}},
    {"Fr_shr", 1, {"6af8868c54ff7ddf"}},
    {"Fr_F1m_add", 0, {"d6c16068415e3b94"}},
    {"Fr_F1m_sub", 0, {"efd7772f09805ce1"}},
    {"Fr_F1m_neg", 0, {"360569d5cf7bdcd9"}},
    {"Fr_F1m_mul", 0, {"28bcd870f9c6ccde", "1296720e2aea3812"}},
    {"Fr_F1m_mReduct", 0, {"4b593b0f3f94112b", "033faf5fa56ba800"}},
    {"Fr_F1m_fromMontgomery", 0, {"c06a9f0993ac6d40"}},
    {"Fr_F1m_toMontgomery", 0, {"9263ae45cc519485"}},
    {"Fr_rawCopyS2L", 0, {"d0d8d14f83b193e1"}},
    {"Fr_int_add", 0, {"619d1c20efa7f613"}},
    {"Fr_int_sub", 0, {"1dc6a85350db6044"}},
    {"Fr_int_gte", 0, {"a6d51276ac126e82"}},
    {"Fr_int_gt", 0, {"b3e2e56526ceb17d"}},
    {"Fr_int_eq", 0, {"480783c3a3f9af8f"}},
    {"Fr_int_isZero", 0, {"d4e3bc794f485671"}},
    {"Fr_int_copy", 0, {"4c6bfccf7740b58f"}},
    {"Fr_int_zero", 0, {"e4dd8f15bf17aef5"}},
    {"Fr_int_div", 0, {"4f9d06f4fa57f0dd"}},
    {"Fr_int__mul1", 0, {"1ee3e711db2b1cbc"}},
    {"Fr_int__add1", 0, {"d784391b1cc79236"}},
    {"Fr_rawshr", 0, {"08e4686e5c74de11"}},
    {"Fr_rawshrl", 0, {"c22f09971b588155"}},
    {"Fr_rawgetchunk", 0, {"be46d33eb6c887aa"}},
    {"Fr_fixedShr", 0, {"72d34b31963eb74a"}},
    {"Fr_fixedShl", 0, {"15eefcdcf846b6e3"}},
};
enum { N_HELPER_ROWS = sizeof helper_rows / sizeof helper_rows[0] };

/* The header line of w2c_<name>'s definition in text (from "static" to
 * " {\n"), found once, and the definition's end; NULL if not so. */
static const char *find_definition(const char *text, const char *name, const char **end)
{
    char key[96];
    snprintf(key, sizeof key, " w2c_%s(Z_circuit_instance_t* instance, ", name);
    const char *found = NULL;
    for (const char *at = text; (at = strstr(at, key)); at++) {
        const char *line = at;
        while (line > text && line[-1] != '\n') line--;
        const char *eol = strchr(at, '\n');
        if (strncmp(line, "static ", 7) || !eol || eol - at < 3 || strncmp(eol - 2, " {", 2)) continue;
        if (found) return NULL;
        found = line;
    }
    const char *close = found ? strstr(found, "\n}\n") : NULL;
    if (!close) return NULL;
    *end = close + 3;
    return found;
}

/* That every helper row's definition is in text with its hash. */
static int helpers_known(const char *text)
{
    for (int i = 0; i < N_HELPER_ROWS; i++) {
        const char *end, *def = find_definition(text, helper_rows[i].name, &end);
        uint8_t md[32];
        char hex[WASM_HASH_HEX + 1];
        if (!def || !EVP_Digest(def, (size_t)(end - def), md, NULL, EVP_sha256(), NULL)) return 0;
        hex_of(md, 8, hex);
        int ok = 0;
        for (int k = 0; k < 2; k++) ok |= helper_rows[i].sha[k] && !strcmp(hex, helper_rows[i].sha[k]);
        if (!ok) return 0;
    }
    return 1;
}

/* The text that replaces a native helper's header `head` (its line without
 * the newline): the glue's prototype, a body under the old name calling
 * it (the wasm when it declines), and the header renamed. The wasm is kept
 * out of line (a tail call): inlined, its registers were saved on every
 * call, the glue's included (a sixth of Fr_toInt's and Fr_lt's
 * instructions, a quarter of Fr_mul's). NULL when out of memory. */
static char *helper_wrapper(const char *name, const char *head)
{
    const char *open = strstr(head, "(Z_circuit_instance_t* instance, ");
    const char *params = open + strlen("(Z_circuit_instance_t* instance, ");
    size_t ret_len = (size_t)(strstr(head, " w2c_") - head) - strlen("static ");
    const char *ret = head + strlen("static ");
    int is_void = ret_len == 4 && !strncmp(ret, "void", 4);
    char plist[200], args[200] = "";
    snprintf(plist, sizeof plist, "%.*s", (int)(strlen(params) - strlen(") {")), params);
    /* the arguments: the last word of each parameter */
    for (const char *p = plist; *p;) {
        const char *comma = strchr(p, ','), *stop = comma ? comma : p + strlen(p), *w = stop;
        while (w > p && w[-1] != ' ') w--;
        snprintf(args + strlen(args), sizeof args - strlen(args), ", %.*s", (int)(stop - w), w);
        p = comma ? comma + 2 : stop;
    }
    size_t cap = 4 * strlen(head) + 3 * strlen(args) + 400;
    char *out = malloc(cap);
    if (!out) return NULL;
    snprintf(out, cap,
             "static __attribute__((noinline)) %.*s w2c_%s_wasm(Z_circuit_instance_t* instance, %s);\n"
             "int cuzk_glue_%s(Z_circuit_instance_t*, u32*, %s);\n"
             "%s\n"
             "  u32 v;\n"
             "  if (cuzk_glue_%s(instance, &v%s)) return%s;\n"
             "  %sw2c_%s_wasm(instance%s);\n"
             "}\n"
             "static %.*s w2c_%s_wasm(Z_circuit_instance_t* instance, %s) {",
             (int)ret_len, ret, name, plist, name, plist, head, name, args, is_void ? "" : " v",
             is_void ? "" : "return ", name, args, (int)ret_len, ret, name, plist);
    return out;
}

/* The native helpers rerouted, when helpers_known: *done 1. */
static char *reroute_helpers(char *text, size_t *len, int *done)
{
    *done = 0;
    if (!helpers_known(text)) return text;
    for (int i = 0; text && i < N_HELPER_ROWS; i++) {
        if (!helper_rows[i].native) continue;
        const char *end, *def = find_definition(text, helper_rows[i].name, &end);
        char head[300];
        snprintf(head, sizeof head, "%.*s", (int)(strchr(def, '\n') - def), def);
        char *now = helper_wrapper(helper_rows[i].name, head);
        int one = 0;
        char *next = now ? replace_once(text, len, head, now, &one) : NULL;
        free(now);
        if (!next) free(text);
        text = next;
    }
    if (text) *done = 1;
    return text;
}

/* What rewrite_translation did: each translation row applied or not, the
 * helpers native or not, circom's copies of constants folded into lists
 * (only with the helpers native: Fr_copy is then known to copy 40 bytes). */
typedef struct {
    int rows[N_TRANSLATION_ROWS], helpers;
    size_t copy_lists, copy_sites, back_edges;
} rewrites_done;

/* Rewrites c_src: the field helpers (first, on wasm2c's text), the copy
 * lists, translation_rows, then the polls on the loops' back edges. */
static int rewrite_translation(const char *c_src, rewrites_done *done, cuzk_error *err)
{
    uint8_t *bytes;
    size_t len;
    int rc = cuzk_file_read_all(c_src, (size_t)1 << 34, &bytes, &len, err);
    if (rc) return rc;
    char *text = (char *)bytes;
    text = reroute_helpers(text, &len, &done->helpers);
    if (text && done->helpers) text = wasm_fold_copy_lists(text, &len, &done->copy_lists, &done->copy_sites);
    for (int i = 0; text && i < N_TRANSLATION_ROWS; i++)
        text = replace_once(text, &len, translation_rows[i].was, translation_rows[i].now, &done->rows[i]);
    /* without the prologue's rewrite there is no CUZK_POLL, nor a stop:
     * refused, as a calculation nobody could end is */
    if (text && !done->rows[ROW_PROLOGUE]) {
        free(text);
        return cuzk_fail(err, CUZK_ERR_IO,
                         "%s: wasm2c's function prologue is not the one of wabt 1.0.32: the circuit's code could "
                         "not be stopped",
                         c_src);
    }
    if (text) text = wasm_poll_back_edges(text, &len, &done->back_edges);
    if (!text) return cuzk_fail(err, CUZK_ERR_NOMEM, "no memory to rewrite %s", c_src);
    FILE *f = fopen(c_src, "wb");
    int ok = f && fwrite(text, 1, len, f) == len;
    if (f && fclose(f)) ok = 0;
    if (!ok) rc = cuzk_fail(err, CUZK_ERR_IO, "cannot rewrite %s: %s", c_src, strerror(errno));
    free(text);
    return rc;
}

static long long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) ? -1 : (long long)st.st_size;
}

/* wasm2c, then cc, in tmp; the object renamed to so_path. */
static int build_in(const char tmp[TMP_CAP], const uint8_t *bytes, size_t len, const wasm_runtime *rt,
                    const char *so_path, const wasm_build_options *o, cuzk_error *err)
{
    char wasm[PATH_CAP], c_src[PATH_CAP], glue[PATH_CAP], unit[PATH_CAP], so[PATH_CAP], log[PATH_CAP],
        inc_tmp[PATH_CAP], rt_c[PATH_CAP];
    snprintf(wasm, sizeof wasm, "%s/circuit.wasm", tmp);
    snprintf(c_src, sizeof c_src, "%s/circuit.c", tmp);
    snprintf(glue, sizeof glue, "%s/glue.c", tmp);
    snprintf(unit, sizeof unit, "%s/unit.c", tmp);
    snprintf(so, sizeof so, "%s/circuit.so", tmp);
    snprintf(log, sizeof log, "%s/log", tmp);
    snprintf(inc_tmp, sizeof inc_tmp, "-I%s", tmp);
    snprintf(rt_c, sizeof rt_c, "%s/wasm-rt-impl.c", tmp);
    /* the bytes that were hashed are the bytes translated, whatever
     * happens to the caller's file meanwhile */
    int rc = write_file(wasm, bytes, len, err);
    if (!rc) rc = write_file(glue, wasm_glue_source, strlen(wasm_glue_source), err);
    if (!rc) rc = write_file(unit, unit_source, strlen(unit_source), err);
    /* the runtime beside the translation, whose quoted includes find it
     * there before the system's copy */
    for (int i = 0; !rc && i < WASM_RUNTIME_FILES; i++) {
        char path[PATH_CAP];
        snprintf(path, sizeof path, "%s/%s", tmp, rt->files[i].name);
        rc = write_file(path, rt->files[i].text, rt->files[i].len, err);
    }
    double t0 = cuzk_now_s();
    char *wasm2c[] = {"wasm2c", wasm, "--module-name=circuit", "-o", c_src, NULL};
    if (!rc) rc = run_tool(wasm2c, log, "translating the wasm to C", o ? o->cancel : NULL, err);
    rewrites_done done = {0};
    if (!rc) rc = rewrite_translation(c_src, &done, err);
    if (rc) return rc;
    char rewrites[300] = "";
    for (int i = 0; i < N_TRANSLATION_ROWS; i++)
        snprintf(rewrites + strlen(rewrites), sizeof rewrites - strlen(rewrites), "%s%s %s", i ? ", " : "",
                 translation_rows[i].what, done.rows[i] ? translation_rows[i].how : "as wasm2c wrote it");
    snprintf(rewrites + strlen(rewrites), sizeof rewrites - strlen(rewrites),
             ", field helpers %s, %zu copies of constants in %zu lists, %zu loops' back edges polled",
             done.helpers ? "native" : "as wasm2c wrote them", done.copy_sites, done.copy_lists, done.back_edges);
    progress(o, "wasm2c: %.1f MiB of C in %.1f s (%s); compiling it with cc -O2",
             (double)file_size(c_src) / 1048576.0, cuzk_now_s() - t0, rewrites);
    char *cc[N_CC_FLAGS + 10];
    int n = 0;
    cc[n++] = "cc";
    for (int i = 0; i < N_CC_FLAGS; i++) cc[n++] = (char *)cc_flags[i];
    char out_flag[] = "-o";
    char *rest[] = {inc_tmp, unit, rt_c, out_flag, so, NULL};
    memcpy(cc + n, rest, sizeof rest);
    t0 = cuzk_now_s();
    if ((rc = run_tool(cc, log, "compiling the circuit's C", o ? o->cancel : NULL, err))) return rc;
    if ((rc = wasm_object_seal(so, so_path, err))) return rc;
    progress(o, "compiled in %.1f s; cached as %s", cuzk_now_s() - t0, so_path);
    return CUZK_OK;
}

static int build(const char folder[FOLDER_CAP], const uint8_t *bytes, size_t len, const char *name,
                 const wasm_runtime *rt, const char *so_path, const wasm_build_options *o, cuzk_error *err)
{
    int swept = wasm_build_dir_sweep(folder);
    if (swept) progress(o, "%s: removed %d build folder%s left by builds that were stopped", folder, swept,
                        swept == 1 ? "" : "s");
    wasm_build_dir dir;
    int rc = wasm_build_dir_make(&dir, folder, err);
    if (rc) return rc;
    progress(o, "%s: compiling the circuit to native code once (%zu KiB of wasm; cached for later runs)", name,
             len / 1024);
    rc = build_in(dir.path, bytes, len, rt, so_path, o, err);
    wasm_build_dir_remove(&dir);
    return rc;
}

/* The cached object for the bytes, built first when there is none. */
static int open_or_build(const uint8_t *bytes, size_t len, const char *name, const wasm_build_options *o,
                         const wasm_runtime *rt, void **handle, int *built, cuzk_error *err)
{
    char folder[FOLDER_CAP], recipe[RECIPE_HEX + 1], hex[WASM_HASH_HEX + 1], so_path[PATH_CAP];
    uint8_t md[32];
    int rc = cache_folder(o ? o->cache_dir : NULL, folder, err);
    if (!rc) rc = recipe_hex(rt, recipe, err);
    if (rc) return rc;
    if (!EVP_Digest(bytes, len, md, NULL, EVP_sha256(), NULL)) return cuzk_fail(err, CUZK_ERR_NOMEM, "SHA-256 failed");
    hex_of(md, sizeof md, hex);
    if (snprintf(so_path, sizeof so_path, "%s/%s-%s.so", folder, hex, recipe) >= (int)sizeof so_path)
        return cuzk_fail(err, CUZK_ERR_IO, "the wasm cache folder's name is too long");

    if (!access(so_path, F_OK)) {
        cuzk_error why = {0};
        rc = wasm_object_check(so_path, &why);
        if (rc == CUZK_ERR_IO) return cuzk_fail(err, rc, "%s", why.msg);
        if (!rc && (*handle = dlopen(so_path, RTLD_NOW | RTLD_LOCAL))) return CUZK_OK;
        /* built again and renamed over it: a process loading it meanwhile
         * sees the old file or the new one */
        progress(o, "%s: building it again", rc ? why.msg : dlerror());
    }
    if ((rc = build(folder, bytes, len, name, rt, so_path, o, err))) return rc;
    *built = 1;
    if (!(*handle = dlopen(so_path, RTLD_NOW | RTLD_LOCAL)))
        return cuzk_fail(err, CUZK_ERR_IO, "%s: the compiled circuit does not load: %s", so_path, dlerror());
    return CUZK_OK;
}

int wasm_build_open(const uint8_t *bytes, size_t len, const char *name, const wasm_build_options *o,
                    void **handle, int *built, cuzk_error *err)
{
    *handle = NULL;
    *built = 0;
    wasm_runtime rt;
    int rc = wasm_runtime_load(&rt, err);
    if (rc) return rc;
    rc = open_or_build(bytes, len, name, o, &rt, handle, built, err);
    wasm_runtime_free(&rt);
    return rc;
}
