/* Synthetic circuits on disk, for `circuit synth`, `bench prove` and
 * `bench pipeline`: one path from parameters to r1cs, witness and a
 * development key. */
#include <stdarg.h>
#include <stdio.h>

#include "cli/cli.h"
#include "backend/backend.h"
#include "groth16/groth16.h"
#include "util/timer.h"

static void progress(const char *who, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void progress(const char *who, const char *fmt, ...)
{
    if (!who)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", who);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

typedef struct {
    const char *who;
    double t0;
} setup_progress;

static void setup_stage(void *ctx, const char *stage)
{
    const setup_progress *p = ctx;
    progress(p->who, "%s (%.2f s into the setup)", stage, cuzk_now_s() - p->t0);
}

int cli_setup_key(const char *who, cuzk_backend *b, cuzk_r1cs *r, int threads, int no_host_points,
                  cuzk_zkey *z, cuzk_error *err)
{
    setup_progress p = {who, cuzk_now_s()};
    progress(who, "development setup on the %s backend (not for production)...", b->name);
    const cuzk_setup_options o = {.nthreads = threads, .no_host_points = no_host_points,
                                  .progress = who ? setup_stage : NULL, .progress_ctx = &p,
                                  .r1cs_read = cuzk_r1cs_free_ctx, .r1cs_read_ctx = r};
    int rc = backend_setup(b, r, &o, z, err);
    cuzk_r1cs_free(r); /* when the setup failed before reading it all */
    if (!rc)
        progress(who, "setup took %.2f s (domain 2^%d)", cuzk_now_s() - p.t0, __builtin_ctz(z->domain_size));
    return rc;
}

int cli_device_key_usable(const cuzk_backend *b)
{
    if (b->setup)
        return CLI_OK;
    fprintf(stderr, "cuzk: --device-key needs a backend with a device (gpu), not %s\n", b->name);
    return CLI_USAGE;
}

/* The key of r, made on the backend named setup_backend (NULL: the CPU),
 * written to path; r is freed. */
static int write_development_key(const char *who, cuzk_r1cs *r, int threads, const char *setup_backend,
                                 const char *path, cuzk_error *err)
{
    cuzk_backend *b =
        backend_create(setup_backend ? setup_backend : "cpu", &(backend_options){.cpu_threads = threads}, err);
    if (!b)
        return err->code ? err->code : CUZK_ERR_NOMEM;
    cuzk_zkey z;
    int rc = cli_setup_key(who, b, r, threads, 0, &z, err);
    b->destroy(b);
    if (rc)
        return rc;
    rc = cuzk_zkey_write(&z, path, err);
    cuzk_zkey_free(&z);
    return rc;
}

int cli_make_circuit_files(const char *who, const cuzk_synth_params *p, int threads, const char *setup_backend,
                           const cli_circuit_paths *to, cuzk_wtns *keep)
{
    cuzk_error err = {0};
    cuzk_r1cs r;
    cuzk_wtns w;
    progress(who, "synthesizing %u constraints...", p->n_constraints);
    if (cuzk_circuit_synth(p, &r, &w, &err))
        return cli_report("synthesizing the circuit", &err);
    int rc = (to->r1cs && cuzk_r1cs_write(&r, to->r1cs, &err)) || (to->wtns && cuzk_wtns_write(&w, to->wtns, &err));
    const char *what = "writing the circuit";
    if (!rc && to->zkey) {
        rc = write_development_key(who, &r, threads, setup_backend, to->zkey, &err);
        what = "making the development key";
    }
    cuzk_r1cs_free(&r);
    if (keep && !rc)
        *keep = w;
    else
        cuzk_wtns_free(&w);
    return rc ? cli_report(what, &err) : CLI_OK;
}
