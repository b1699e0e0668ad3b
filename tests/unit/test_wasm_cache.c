/* The wasm cache's defences (src/witness/wasm_cache_object.c,
 * wasm_build_dir.c, wasm_build.c's tools), on the fixtures' mul circuit:
 *   - an object cut short, changed in place or without its seal is built
 *     again, never loaded (a truncated one used to kill the process with
 *     SIGBUS in dlopen)
 *   - a cache folder or object writable by others, or another user's, is
 *     refused with a message, never loaded
 *   - build folders left by killed builds are swept by the next build,
 *     while one a build holds stays
 *   - the compiler ends with the process that started it */
#define _GNU_SOURCE /* pidfd via syscall */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support.h"
#include "witness/circom.h"

static char work[] = "/tmp/cuzk-wasm-cache-XXXXXX";
static char cache[600];

/* Loads mul.wasm of curve with the cache: CUZK_OK with *compiled, or the
 * code with err. */
static int load(const char *curve, int *compiled, cuzk_error *err)
{
    cuzk_circom_options o = {.cache_dir = cache};
    cuzk_circom *c = NULL;
    int rc = cuzk_circom_load(&c, fixture_path(curve, "mul.wasm"), &o, err);
    if (rc)
        return rc;
    *compiled = cuzk_circom_compiled(c);
    cuzk_wtns w;
    rc = cuzk_circom_calculate_file(c, fixture_path(".", "input.json"), &w, err);
    if (!rc)
        cuzk_wtns_free(&w);
    cuzk_circom_free(c);
    return rc;
}

static void load_ok(const char *curve, int expect_compiled)
{
    cuzk_error err = {0};
    int compiled = -1;
    if (load(curve, &compiled, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(compiled, expect_compiled);
}

/* The cache's one object (path into out). */
static void the_object(char *out, size_t cap)
{
    DIR *d = opendir(cache);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *de; (de = readdir(d));) {
        size_t len = strlen(de->d_name);
        if (len > 3 && !strcmp(de->d_name + len - 3, ".so")) {
            snprintf(out, cap, "%s/%s", cache, de->d_name);
            n++;
        }
    }
    closedir(d);
    assert_int_equal(n, 1);
}

static void fresh_cache(const char *name)
{
    snprintf(cache, sizeof cache, "%s/%s", work, name);
    assert_int_equal(mkdir(cache, 0755), 0);
}

static void test_damaged_objects_built_again(void **state)
{
    (void)state;
    fresh_cache("damaged");
    load_ok("bn128", 1);
    load_ok("bn128", 0);
    char so[700];
    the_object(so, sizeof so);
    struct stat st;
    assert_int_equal(stat(so, &st), 0);

    /* cut short, as a partial copy leaves it */
    assert_int_equal(truncate(so, 8192), 0);
    load_ok("bn128", 1);
    /* one byte changed in the middle, the size kept */
    int fd = open(so, O_RDWR);
    assert_true(fd >= 0);
    char b;
    assert_int_equal(pread(fd, &b, 1, st.st_size / 2), 1);
    b ^= 0x5a;
    assert_int_equal(pwrite(fd, &b, 1, st.st_size / 2), 1);
    close(fd);
    load_ok("bn128", 1);
    /* no seal: an object of cuzk before seals */
    assert_int_equal(truncate(so, st.st_size - 48), 0);
    load_ok("bn128", 1);
    load_ok("bn128", 0);
}

static void expect_refused(const char *needle)
{
    cuzk_error err = {0};
    int compiled;
    assert_int_equal(load("bn128", &compiled, &err), CUZK_ERR_IO);
    if (!strstr(err.msg, needle))
        fail_msg("the message lacks '%s': %s", needle, err.msg);
}

static void test_foreign_objects_refused(void **state)
{
    (void)state;
    fresh_cache("foreign");
    load_ok("bn128", 1);
    char so[700];
    the_object(so, sizeof so);

    assert_int_equal(chmod(cache, 01777), 0); /* a shared folder, as /tmp */
    expect_refused("the wasm cache folder is writable by others (mode 1777)");
    assert_int_equal(chmod(cache, 0775), 0);
    expect_refused("writable by its group");
    assert_int_equal(chmod(cache, 0755), 0);

    assert_int_equal(chmod(so, 0666), 0);
    expect_refused("the cached object is writable by others");
    assert_int_equal(chmod(so, 0644), 0);
    if (geteuid() == 0) {
        assert_int_equal(chown(so, 65534, 65534), 0);
        expect_refused("the cached object is owned by uid 65534");
        assert_int_equal(chown(so, 0, 0), 0);
    }
    load_ok("bn128", 0);
}

/* a build folder as a killed build leaves it: its files, and a lock file
 * unless lockless */
static void make_build_folder(const char *name, int lockless, char *path, size_t cap)
{
    snprintf(path, cap, "%s/%s", cache, name);
    assert_int_equal(mkdir(path, 0700), 0);
    static const char *const files[] = {"circuit.c", "circuit.wasm", "lock"};
    for (int i = 0; i < 3 - lockless; i++) {
        char f[800];
        snprintf(f, sizeof f, "%s/%s", path, files[i]);
        FILE *fp = fopen(f, "w");
        assert_non_null(fp);
        fputs("left behind\n", fp);
        fclose(fp);
    }
}

static int exists(const char *path)
{
    struct stat st;
    return !stat(path, &st);
}

static void test_stale_build_folders_swept(void **state)
{
    (void)state;
    fresh_cache("stale");
    char stale[700], held[700], old[700], recent[700], lock[800];
    make_build_folder(".build-stale1", 0, stale, sizeof stale);
    make_build_folder(".build-held01", 0, held, sizeof held);
    make_build_folder(".build-old001", 1, old, sizeof old);
    make_build_folder(".build-recent", 1, recent, sizeof recent);
    /* a build under way holds its lock */
    snprintf(lock, sizeof lock, "%s/lock", held);
    int fd = open(lock, O_RDWR);
    assert_true(fd >= 0);
    assert_int_equal(flock(fd, LOCK_EX), 0);
    /* a lockless folder two hours old */
    struct timeval two_hours_ago[2];
    gettimeofday(&two_hours_ago[0], NULL);
    two_hours_ago[0].tv_sec -= 7200;
    two_hours_ago[1] = two_hours_ago[0];
    assert_int_equal(utimes(old, two_hours_ago), 0);

    load_ok("bn128", 1);
    assert_false(exists(stale));
    assert_false(exists(old));
    assert_true(exists(held));
    assert_true(exists(recent));
    close(fd);
}

/* A process killed while its compiler runs takes the compiler with it: a
 * cc on PATH that says its pid through a FIFO, then waits for good. */
static void test_compiler_ends_with_us(void **state)
{
    (void)state;
    fresh_cache("orphan");
    char bin[700], cc[800], fifo[800];
    snprintf(bin, sizeof bin, "%s/bin", work);
    assert_int_equal(mkdir(bin, 0755), 0);
    snprintf(cc, sizeof cc, "%s/cc", bin);
    snprintf(fifo, sizeof fifo, "%s/cc-pid", work);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    FILE *f = fopen(cc, "w");
    assert_non_null(f);
    fprintf(f, "#!/bin/sh\necho $$ >'%s'\nexec sleep 3600\n", fifo);
    fclose(f);
    assert_int_equal(chmod(cc, 0755), 0);

    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        char path[2000];
        snprintf(path, sizeof path, "%s:%s", bin, getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
        setenv("PATH", path, 1);
        int compiled;
        cuzk_error err = {0};
        load("bls12381", &compiled, &err);
        _exit(0);
    }
    /* the fake cc's pid: a blocking read, ended by its write */
    FILE *p = fopen(fifo, "r");
    assert_non_null(p);
    int cc_pid = 0;
    assert_int_equal(fscanf(p, "%d", &cc_pid), 1);
    fclose(p);
    int pidfd = (int)syscall(SYS_pidfd_open, cc_pid, 0);
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    /* the compiler's end makes its pidfd readable: within a minute, or it
     * was left running (without pidfds, as under valgrind: its pid asked
     * every 50 ms, the parent's reaping of it the event) */
    int ended = 0;
    if (pidfd >= 0) {
        struct pollfd pf = {pidfd, POLLIN, 0};
        ended = poll(&pf, 1, 60000) == 1;
        close(pidfd);
    } else {
        for (int i = 0; i < 1200 && !ended; i++)
            if (!(ended = kill(cc_pid, 0) != 0))
                usleep(50000);
    }
    if (!ended)
        kill(cc_pid, SIGKILL);
    assert_true(ended);
}

int main(void)
{
    if (wasm_tests_unavailable())
        return 77;
    if (!mkdtemp(work))
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_damaged_objects_built_again),
        cmocka_unit_test(test_foreign_objects_refused),
        cmocka_unit_test(test_stale_build_folders_swept),
        cmocka_unit_test(test_compiler_ends_with_us),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    remove_tree(work);
    return failed;
}
