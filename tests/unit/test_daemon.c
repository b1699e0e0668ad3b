/* The daemon's pieces without a process: the configuration table and its
 * example file, endpoints, the bearer token, every API route with good and
 * bad requests (handlers called directly, on a CPU engine proving a small
 * circuit), the metrics text, and the HTTP server and client over a unix
 * socket. The real daemon, started as a process, is tests/cli/daemon.sh. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "daemon/routes.h"
#include "daemon/config.h"
#include "daemon/endpoint.h"
#include "daemon/http_client.h"
#include "daemon/http_server.h"
#include "daemon/metrics.h"
#include "daemon/peer_address.h"
#include "daemon/token.h"
#include "support.h"

/* ---------- configuration ---------- */

static char *printed(const daemon_config *c)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    daemon_config_print(c, f);
    fclose(f);
    return text;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* config/cuzk.example.ini is what --print-config prints for the defaults,
 * and reading it changes nothing. */
static void test_config_example_is_the_defaults(void **state)
{
    (void)state;
    daemon_config d, e;
    cuzk_error err = {0};
    assert_int_equal(daemon_config_init(&d, &err), CUZK_OK);
    assert_int_equal(daemon_config_init(&e, &err), CUZK_OK);
    assert_int_equal(daemon_config_load(&e, "config/cuzk.example.ini", &err), CUZK_OK);
    char *want = printed(&d), *got = printed(&e);
    assert_string_equal(got, want);
    FILE *f = fopen("config/cuzk.example.ini", "r");
    assert_non_null(f);
    char file[32768];
    size_t n = fread(file, 1, sizeof file - 1, f);
    fclose(f);
    file[n] = 0;
    assert_string_equal(file, want); /* regenerate: build/cuzk daemon --print-config > config/cuzk.example.ini */
    assert_int_equal(d.listen.n, 1);
    assert_string_equal(d.listen.items[0], "unix:/run/cuzk/cuzk.sock");
    assert_int_equal(d.engine.budget_bytes, 16ULL << 30);
    assert_int_equal(d.engine.verify_proofs, 1);
    assert_string_equal(d.backend, "auto");
    free(want);
    free(got);
    daemon_config_free(&d);
    daemon_config_free(&e);
}

/* The configuration's defaults are the engine's: the engine keys write
 * into its cuzk_engine_config, which starts as cuzk_engine_config_default. */
static void test_config_defaults_are_the_engines(void **state)
{
    (void)state;
    daemon_config d;
    cuzk_error err = {0};
    assert_int_equal(daemon_config_init(&d, &err), CUZK_OK);
    cuzk_engine_config got, want;
    daemon_config_engine(&d, &got);
    cuzk_engine_config_default(&want);
    assert_int_equal(got.budget_bytes, want.budget_bytes);
    assert_int_equal(got.synthesis_workers, want.synthesis_workers);
    assert_int_equal(got.synthesis_threads, want.synthesis_threads);
    assert_int_equal(got.workers_per_device, want.workers_per_device);
    assert_int_equal(got.max_device_queue_depth, want.max_device_queue_depth);
    assert_int_equal(got.policy, want.policy);
    assert_true(got.poll_ms == want.poll_ms && got.pacer_kp == want.pacer_kp && got.pacer_ki == want.pacer_ki);
    assert_true(got.pacer_target_depth == want.pacer_target_depth);
    assert_true(got.pool_idle_timeout_s == want.pool_idle_timeout_s && got.results_ttl_s == want.results_ttl_s);
    assert_int_equal(got.prewarm_buffers, want.prewarm_buffers);
    assert_int_equal(got.verify_proofs, want.verify_proofs);
    assert_int_equal(got.finalizers, want.finalizers);
    assert_int_equal(got.results_max, want.results_max);
    assert_null(got.pce_cache_dir);
    assert_null(got.timeline_path);
    assert_true(got.sim_synth_ms == want.sim_synth_ms);
    daemon_config_free(&d);
}

/* [cluster]: off by default (single-machine mode), its keys read and
 * bounded like the others. */
static void test_config_cluster(void **state)
{
    (void)state;
    daemon_config c;
    cuzk_error err = {0};
    assert_int_equal(daemon_config_init(&c, &err), CUZK_OK);
    assert_string_equal(c.cluster.database, "");
    assert_string_equal(c.cluster.node, "");
    assert_true(c.cluster.lease_s == 30 && c.cluster.heartbeat_s == 5);
    assert_int_equal(c.cluster.max_attempts, 3);
    assert_int_equal(daemon_config_set_dotted(&c, "cluster.database=host=/tmp dbname=cuzk", &err), CUZK_OK);
    assert_string_equal(c.cluster.database, "host=/tmp dbname=cuzk");
    assert_int_equal(daemon_config_set_dotted(&c, "cluster.inline_witness_max_kib=64", &err), CUZK_OK);
    assert_int_equal(c.cluster.inline_witness_max_kib, 64);
    assert_int_equal(daemon_config_set_dotted(&c, "cluster.lease_s=0.1", &err), CUZK_ERR_ARG);
    assert_non_null(strstr(err.msg, "[cluster] lease_s"));
    assert_int_equal(daemon_config_set_dotted(&c, "cluster.max_attempts=0", &err), CUZK_ERR_ARG);
    daemon_config_free(&c);
}

static void test_config_sources_and_errors(void **state)
{
    (void)state;
    char dir[] = "/tmp/cuzk-config-XXXXXX", path[64];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/c.ini", dir);
    daemon_config c;
    cuzk_error err = {0};
    assert_int_equal(daemon_config_init(&c, &err), CUZK_OK);
    write_text(path, "[daemon]\nlisten = unix:/a\nlisten = tcp:9000 ; a comment\n[memory]\nbudget_gib = 2.5\n"
                     "[scheduler]\npolicy = pacer\n[pipeline]\nverify_proofs = no\n");
    assert_int_equal(daemon_config_load(&c, path, &err), CUZK_OK);
    /* the file's listen lines replace the default */
    assert_int_equal(c.listen.n, 2);
    assert_string_equal(c.listen.items[1], "tcp:9000");
    assert_int_equal(c.engine.budget_bytes, (uint64_t)(2.5 * (1 << 30)));
    assert_int_equal(c.engine.verify_proofs, 0);
    /* the command line replaces the file's */
    assert_int_equal(daemon_config_set(&c, "daemon", "listen", "unix:/b", CONFIG_COMMAND_LINE, &err), CUZK_OK);
    assert_int_equal(c.listen.n, 1);
    assert_int_equal(daemon_config_set_dotted(&c, "synthesis.workers=3", &err), CUZK_OK);
    assert_int_equal(c.synthesis_workers, 3);
    cuzk_engine_config ec;
    daemon_config_engine(&c, &ec);
    assert_int_equal(ec.policy, CUZK_DISPATCH_PACER);
    assert_int_equal(ec.synthesis_workers, 3);
    assert_int_equal(ec.budget_bytes, (uint64_t)(2.5 * (1 << 30)));
    assert_null(ec.timeline_path);

    const struct {
        const char *text, *why;
    } bad[] = {
        {"[memory]\nbudget_gib = lots\n", "c.ini:2: [memory] budget_gib: 'lots' is not a number"},
        {"[memory]\nprewarm_buffers = 1.5\n", "not a whole number"},
        {"[gpus]\nbackend = quantum\n", "is not one of auto|cpu|sim|gpu"},
        {"[daemon]\nmax_body_mib = 0\n", "from 1 to 4096"},
        {"[daemon]\nno_such_key = 1\n", "c.ini:2: [daemon] no_such_key: no such key"},
        {"[nowhere]\nlisten = x\n", "[nowhere] listen: no such key"},
        {"just words\n", "c.ini:1: neither [section] nor key = value"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        write_text(path, bad[i].text);
        assert_int_not_equal(daemon_config_load(&c, path, &err), CUZK_OK);
        if (!strstr(err.msg, bad[i].why))
            fail_msg("'%s' gave '%s', expected '%s'", bad[i].text, err.msg, bad[i].why);
    }
    assert_int_equal(daemon_config_load(&c, "/nonexistent/c.ini", &err), CUZK_ERR_IO);
    /* a directory is not an empty configuration */
    assert_int_equal(daemon_config_load(&c, "/tmp", &err), CUZK_ERR_IO);
    assert_non_null(strstr(err.msg, "/tmp: not a regular file (a directory)"));
    assert_int_equal(daemon_config_set_dotted(&c, "budget_gib=3", &err), CUZK_ERR_ARG);
    assert_int_equal(daemon_config_set_dotted(&c, "memory.budget_gib", &err), CUZK_ERR_ARG);
    daemon_config_free(&c);
    remove(path);
    rmdir(dir);
}

static void test_endpoints(void **state)
{
    (void)state;
    endpoint ep;
    cuzk_error err = {0};
    assert_int_equal(endpoint_parse("unix:/run/x.sock", &ep, &err), CUZK_OK);
    assert_false(ep.is_tcp);
    assert_string_equal(ep.path, "/run/x.sock");
    assert_int_equal(endpoint_parse("tcp:9820", &ep, &err), CUZK_OK);
    assert_true(ep.is_tcp);
    assert_string_equal(ep.host, "127.0.0.1"); /* never every interface by default */
    assert_string_equal(ep.port, "9820");
    assert_int_equal(endpoint_parse("tcp:0.0.0.0:80", &ep, &err), CUZK_OK);
    assert_string_equal(ep.host, "0.0.0.0");
    assert_int_equal(endpoint_parse("tcp:[::1]:443", &ep, &err), CUZK_OK);
    assert_string_equal(ep.host, "::1");
    const char *bad[] = {"unix:", "tcp:", "tcp:0", "tcp:70000", "tcp:host:", "tcp:[::1]443", "http://x", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (endpoint_parse(bad[i], &ep, &err) != CUZK_ERR_ARG)
            fail_msg("'%s' was accepted", bad[i]);
}

/* peer_address of a textual IPv4 or IPv6 address. */
static peer_address peer_of(const char *text)
{
    struct sockaddr_storage ss = {0};
    struct sockaddr_in *v4 = (struct sockaddr_in *)&ss;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&ss;
    if (inet_pton(AF_INET, text, &v4->sin_addr) == 1)
        v4->sin_family = AF_INET;
    else {
        assert_int_equal(inet_pton(AF_INET6, text, &v6->sin6_addr), 1);
        v6->sin6_family = AF_INET6;
    }
    peer_address p;
    peer_address_of((struct sockaddr *)&ss, &p);
    return p;
}

static int same_peer(const char *a, const char *b)
{
    peer_address pa = peer_of(a), pb = peer_of(b);
    return peer_address_same(&pa, &pb);
}

static void test_peer_address(void **state)
{
    (void)state;
    assert_true(same_peer("127.0.0.1", "127.0.0.1"));
    assert_false(same_peer("127.0.0.1", "127.0.0.2"));
    assert_true(same_peer("192.0.2.7", "::ffff:192.0.2.7")); /* from a dual-stack listener */
    assert_false(same_peer("::ffff:192.0.2.7", "::ffff:192.0.2.8"));
    assert_true(same_peer("2001:db8:1:2::1", "2001:db8:1:2:ffff:ffff:ffff:ffff")); /* one /64 */
    assert_false(same_peer("2001:db8:1:2::1", "2001:db8:1:3::1"));
    assert_false(same_peer("::1", "127.0.0.1"));
    /* a unix socket has no address: not even the same as itself */
    struct sockaddr_un un = {.sun_family = AF_UNIX};
    peer_address u, none;
    peer_address_of((struct sockaddr *)&un, &u);
    peer_address_of(NULL, &none);
    assert_false(peer_address_same(&u, &u));
    assert_false(peer_address_same(&u, &none));
}

static void test_token(void **state)
{
    (void)state;
    assert_true(token_authorizes("s3cret", "Bearer s3cret"));
    assert_true(token_authorizes("s3cret", "bearer s3cret"));
    assert_false(token_authorizes("s3cret", "Bearer s3cre"));
    assert_false(token_authorizes("s3cret", "Bearer s3cret2"));
    assert_false(token_authorizes("s3cret", "Basic s3cret"));
    assert_false(token_authorizes("s3cret", NULL));
    assert_false(token_authorizes(NULL, "Bearer s3cret"));
    char dir[] = "/tmp/cuzk-token-XXXXXX", path[64];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/t", dir);
    char *t = NULL;
    cuzk_error err = {0};
    write_text(path, "  abc123\n");
    /* readable by the group or by others: refused, as ssh refuses such keys */
    assert_int_equal(chmod(path, 0640), 0);
    assert_int_equal(token_load(path, &t, &err), CUZK_ERR_ARG);
    assert_non_null(strstr(err.msg, "chmod 600"));
    assert_int_equal(chmod(path, 0604), 0);
    assert_int_equal(token_load(path, &t, &err), CUZK_ERR_ARG);
    assert_int_equal(chmod(path, 0600), 0);
    assert_int_equal(token_load(path, &t, &err), CUZK_OK);
    assert_string_equal(t, "abc123");
    free(t);
    write_text(path, " \n");
    assert_int_equal(chmod(path, 0600), 0);
    assert_int_equal(token_load(path, &t, &err), CUZK_ERR_FORMAT);
    remove(path);
    assert_int_equal(token_load(path, &t, &err), CUZK_ERR_IO);
    rmdir(dir);
}

/* ---------- the API, handlers called directly ---------- */

typedef struct {
    char dir[32], zkey[64], r1cs[64], witness[64], other_witness[64];
    cuzk_wtns w;
    cuzk_engine *engine;
    routes_context api;
} routes_fixture;

static int api_setup(void **state)
{
    routes_fixture *f = calloc(1, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "/tmp/cuzk-api-XXXXXX");
    if (!f || !mkdtemp(f->dir))
        return -1;
    snprintf(f->zkey, sizeof f->zkey, "%s/c.zkey", f->dir);
    snprintf(f->r1cs, sizeof f->r1cs, "%s/c.r1cs", f->dir);
    snprintf(f->witness, sizeof f->witness, "%s/w.wtns", f->dir);
    snprintf(f->other_witness, sizeof f->other_witness, "%s/other.wtns", f->dir);
    char other_zkey[64];
    snprintf(other_zkey, sizeof other_zkey, "%s/other.zkey", f->dir);
    cuzk_error err = {0};
    cuzk_wtns other;
    if (write_dev_key(f->zkey, f->r1cs, CUZK_CURVE_BN254, 200, 5, &f->w) || cuzk_wtns_write(&f->w, f->witness, &err) ||
        write_dev_key(other_zkey, NULL, CUZK_CURVE_BN254, 100, 5, &other) ||
        cuzk_wtns_write(&other, f->other_witness, &err))
        return -1;
    cuzk_wtns_free(&other);
    cuzk_engine_config cfg;
    cuzk_engine_config_default(&cfg);
    cfg.synthesis_workers = 2;
    cfg.budget_bytes = 256ULL << 20;
    if (!(f->engine = cuzk_engine_create(&cfg, backend_cpu_create(1), &err)))
        return -1;
    routes_init(&f->api, f->engine, "cpu", 5);
    *state = f;
    return 0;
}

static int api_teardown(void **state)
{
    routes_fixture *f = *state;
    cuzk_engine_destroy(f->engine);
    cuzk_wtns_free(&f->w);
    int rc = remove_tree(f->dir);
    free(f);
    return rc;
}

typedef struct {
    const char *key, *value;
} fake_query;

static const char *fake_lookup(const void *ctx, const char *key)
{
    const fake_query *q = ctx;
    return q && q->key && !strcmp(q->key, key) ? q->value : NULL;
}

/* Calls the API; checks the status and, for an error, that the body is
 * {"error": ...} containing error_has. Returns the body parsed (decref it). */
static json_t *call_api(routes_fixture *f, const char *method, const char *path, const char *body, const fake_query *q,
                        int status, const char *error_has)
{
    http_request rq = {method, path, body ? body : "", body ? strlen(body) : 0, fake_lookup, q};
    http_response rs = {0};
    routes_handle(&f->api, &rq, &rs);
    if (rs.status != status)
        fail_msg("%s %s: status %d, expected %d: %s", method, path, rs.status, status, rs.body ? rs.body : "");
    json_t *j = json_loads(rs.body, 0, NULL);
    if (status >= 400) {
        const char *msg = json_string_value(json_object_get(j, "error"));
        if (!msg || (error_has && !strstr(msg, error_has)))
            fail_msg("%s %s: error '%s' lacks '%s'", method, path, msg ? msg : rs.body, error_has);
    }
    http_response_free(&rs);
    return j;
}

static void expect_error(routes_fixture *f, const char *method, const char *path, const char *body, int status,
                         const char *error_has)
{
    json_decref(call_api(f, method, path, body, NULL, status, error_has));
}

static void register_c(routes_fixture *f)
{
    char body[256];
    snprintf(body, sizeof body, "{\"id\": \"c\", \"zkey\": \"%s\", \"r1cs\": \"%s\"}", f->zkey, f->r1cs);
    json_t *j = call_api(f, "POST", "/v1/circuits", body, NULL, 201, NULL);
    assert_string_equal(json_string_value(json_object_get(j, "id")), "c");
    assert_string_equal(json_string_value(json_object_get(json_object_get(j, "key"), "tier")), "hot");
    assert_true(json_is_true(json_object_get(j, "checks_r1cs")));
    json_decref(j);
}

static void test_api_routes_and_circuits(void **state)
{
    routes_fixture *f = *state;
    expect_error(f, "GET", "/v2/nothing", NULL, 404, "no such resource");
    expect_error(f, "PUT", "/v1/jobs", "{}", 405, "allowed: POST");
    expect_error(f, "POST", "/v1/jobs/7", NULL, 405, "GET, DELETE");
    expect_error(f, "GET", "/v1/jobs/", NULL, 404, NULL); /* an empty id is no route */
    expect_error(f, "POST", "/v1/circuits", "", 400, "body is empty");
    expect_error(f, "POST", "/v1/circuits", "{\"id\": \"c\",", 400, "not valid JSON");
    expect_error(f, "POST", "/v1/circuits", "[1, 2]", 400, "JSON object");
    expect_error(f, "POST", "/v1/circuits", "{\"id\": \"a/b\", \"zkey\": \"/x\"}", 400, "letters, digits");
    expect_error(f, "POST", "/v1/circuits", "{\"id\": \"c\", \"zkey\": \"rel.zkey\"}", 400, "absolute paths");
    expect_error(f, "POST", "/v1/circuits", "{\"id\": \"c\", \"zkey\": \"/x.zkey\", \"wasm\": \"c.wasm\"}", 400,
                 "absolute paths");
    expect_error(f, "POST", "/v1/circuits", "{\"id\": \"c\", \"zkey\": \"/nonexistent.zkey\"}", 400,
                 "/nonexistent.zkey");
    register_c(f);
    char body[256];
    snprintf(body, sizeof body, "{\"id\": \"c\", \"zkey\": \"%s\"}", f->zkey);
    expect_error(f, "POST", "/v1/circuits", body, 409, "already registered");
    /* keys: evict to warm, to cold, preload back to hot */
    fake_query drop = {"drop", "true"}, bad_drop = {"drop", "maybe"};
    json_t *j = call_api(f, "DELETE", "/v1/keys/c", NULL, NULL, 200, NULL);
    assert_string_equal(json_string_value(json_object_get(json_object_get(j, "key"), "tier")), "warm");
    json_decref(j);
    j = call_api(f, "DELETE", "/v1/keys/c", NULL, &drop, 200, NULL);
    assert_string_equal(json_string_value(json_object_get(json_object_get(j, "key"), "tier")), "cold");
    json_decref(j);
    json_decref(call_api(f, "DELETE", "/v1/keys/c", NULL, &bad_drop, 400, "true or false"));
    j = call_api(f, "POST", "/v1/keys/c/preload", NULL, NULL, 200, NULL);
    assert_string_equal(json_string_value(json_object_get(json_object_get(j, "key"), "tier")), "hot");
    json_decref(j);
    expect_error(f, "POST", "/v1/keys/nope/preload", NULL, 404, "unknown circuit 'nope'");
    expect_error(f, "DELETE", "/v1/keys/nope", NULL, 404, "unknown circuit");
    expect_error(f, "DELETE", "/v1/keys/\xff\x01", NULL, 404, "unknown circuit '?" "?'"); /* bytes kept ASCII */
}

static char *base64_of_file(const char *path)
{
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    unsigned char bytes[65536];
    size_t n = fread(bytes, 1, sizeof bytes, fp);
    fclose(fp);
    char *text = malloc((n + 2) / 3 * 4 + 1);
    EVP_EncodeBlock((unsigned char *)text, bytes, (int)n);
    return text;
}

static void test_api_bad_jobs(void **state)
{
    routes_fixture *f = *state;
    char body[1024];
    expect_error(f, "POST", "/v1/jobs", "{\"circuit\": \"c\", \"partitions\": [", 400, "not valid JSON");
    expect_error(f, "POST", "/v1/jobs", "{\"circuit\": 1, \"partitions\": []}", 400, "\"circuit\"");
    expect_error(f, "POST", "/v1/jobs", "{\"circuit\": \"c\", \"partitions\": []}", 400, "1 to 10000 partitions");
    expect_error(f, "POST", "/v1/jobs", "{\"circuit\": \"c\", \"priority\": \"urgent\", \"partitions\": [{}]}", 400,
                 "critical, high, normal, low");
    expect_error(f, "POST", "/v1/jobs", "{\"circuit\": \"c\", \"request_id\": \"\", \"partitions\": [{}]}", 400,
                 "request_id");
    expect_error(f, "POST", "/v1/jobs", "{\"circuit\": \"c\", \"partitions\": [{}]}", 400,
                 "one of \"witness\", \"witness_b64\" or \"input\"");
    expect_error(f, "POST", "/v1/jobs", "{\"circuit\": \"c\", \"partitions\": [{\"input\": 5}]}", 400,
                 "input must be an object");
    expect_error(f, "POST", "/v1/jobs", "{\"circuit\": \"c\", \"partitions\": [{\"input\": {\"a\": 1}}]}", 400,
                 "partition 0: circuit 'c' was registered without its wasm");
    expect_error(f, "POST", "/v1/jobs", "{\"circuit\": \"c\", \"partitions\": [{\"witness\": \"w.wtns\"}]}", 400,
                 "absolute path");
    expect_error(f, "POST", "/v1/jobs", "{\"circuit\": \"c\", \"partitions\": [{\"witness_b64\": \"@@@@\"}]}", 400,
                 "not base64");
    expect_error(f, "POST", "/v1/jobs", "{\"circuit\": \"c\", \"partitions\": [{\"witness_b64\": \"AAAA\"}]}", 400,
                 "witness_b64: 3 bytes is too short");
    snprintf(body, sizeof body, "{\"circuit\": \"nope\", \"partitions\": [{\"witness\": \"%s\"}]}", f->witness);
    expect_error(f, "POST", "/v1/jobs", body, 404, "unknown circuit 'nope'");
    /* the witness of another circuit: its length is wrong, by path or inline */
    snprintf(body, sizeof body, "{\"circuit\": \"c\", \"partitions\": [{\"witness\": \"%s\"}, {\"witness\": \"%s\"}]}",
             f->witness, f->other_witness);
    expect_error(f, "POST", "/v1/jobs", body, 400, "partition 1: the witness has");
    char *b64 = base64_of_file(f->other_witness);
    json_t *req = json_pack("{s:s, s:[{s:s}]}", "circuit", "c", "partitions", "witness_b64", b64);
    char *text = json_dumps(req, 0);
    expect_error(f, "POST", "/v1/jobs", text, 400, "partition 0: the witness has");
    free(text);
    json_decref(req);
    free(b64);
    snprintf(body, sizeof body, "{\"circuit\": \"c\", \"partitions\": [{\"witness\": \"%s/missing.wtns\"}]}",
             f->dir);
    expect_error(f, "POST", "/v1/jobs", body, 400, "missing.wtns");
    expect_error(f, "GET", "/v1/jobs/abc", NULL, 400, "positive whole number");
    expect_error(f, "GET", "/v1/jobs/-1", NULL, 400, "positive whole number");
    expect_error(f, "GET", "/v1/jobs/999999", NULL, 404, "unknown job 999999");
    expect_error(f, "DELETE", "/v1/jobs/999999", NULL, 404, "unknown job");
    fake_query bad_wait = {"wait_ms", "soon"};
    json_decref(call_api(f, "GET", "/v1/jobs/1", NULL, &bad_wait, 400, "wait_ms"));
}

static json_int_t submit_ok(routes_fixture *f, const char *body)
{
    json_t *j = call_api(f, "POST", "/v1/jobs", body, NULL, 202, NULL);
    json_int_t id = json_integer_value(json_object_get(j, "job_id"));
    assert_true(id > 0);
    assert_string_equal(json_string_value(json_object_get(j, "state")), "queued");
    json_decref(j);
    return id;
}

static json_t *await_done(routes_fixture *f, json_int_t id)
{
    char path[64];
    snprintf(path, sizeof path, "/v1/jobs/%lld", (long long)id);
    fake_query wait = {"wait_ms", "60000"}; /* capped at the context's 5 s, and again until done */
    for (;;) {
        json_t *j = call_api(f, "GET", path, NULL, &wait, 200, NULL);
        const char *state = json_string_value(json_object_get(j, "state"));
        if (strcmp(state, "queued") && strcmp(state, "running"))
            return j;
        json_decref(j);
    }
}

static void test_api_jobs(void **state)
{
    routes_fixture *f = *state;
    char body[1024];
    snprintf(body, sizeof body,
             "{\"circuit\": \"c\", \"priority\": \"high\", \"request_id\": \"r1\", \"partitions\": [{\"witness\": "
             "\"%s\"}, {\"witness\": \"%s\"}]}",
             f->witness, f->witness);
    json_int_t id = submit_ok(f, body);
    assert_int_equal(submit_ok(f, body), id); /* the same request id: the same job */
    char other[1024]; /* the same request id for another payload: a conflict */
    snprintf(other, sizeof other,
             "{\"circuit\": \"c\", \"request_id\": \"r1\", \"partitions\": [{\"witness\": \"%s\"}]}", f->witness);
    expect_error(f, "POST", "/v1/jobs", other, 409, "r1");
    char *b64 = base64_of_file(f->witness);
    json_t *req = json_pack("{s:s, s:[{s:s}]}", "circuit", "c", "partitions", "witness_b64", b64);
    char *text = json_dumps(req, 0);
    json_int_t inline_id = submit_ok(f, text);
    free(text);
    json_decref(req);
    free(b64);

    json_t *j = await_done(f, id);
    assert_string_equal(json_string_value(json_object_get(j, "state")), "done");
    assert_true(json_is_true(json_object_get(j, "verified")));
    assert_int_equal(json_integer_value(json_object_get(j, "partitions_done")), 2);
    json_t *proofs = json_object_get(j, "proofs"), *pub = json_object_get(j, "public_signals");
    assert_int_equal(json_array_size(proofs), 2);
    assert_int_equal(json_array_size(pub), 2);
    const json_t *p0 = json_array_get(proofs, 0);
    assert_string_equal(json_string_value(json_object_get(p0, "protocol")), "groth16");
    assert_string_equal(json_string_value(json_object_get(p0, "curve")), "bn128");
    assert_int_equal(json_array_size(json_object_get(p0, "pi_b")), 3);
    assert_int_equal(json_array_size(json_array_get(pub, 0)), 2); /* two public signals */
    assert_true(json_real_value(json_object_get(json_object_get(j, "timings"), "total_s")) > 0);
    json_decref(j);
    j = await_done(f, inline_id);
    assert_string_equal(json_string_value(json_object_get(j, "state")), "done");
    json_decref(j);

    /* cancelling a finished job changes nothing; its result stays */
    snprintf(body, sizeof body, "/v1/jobs/%lld", (long long)id);
    j = call_api(f, "DELETE", body, NULL, NULL, 200, NULL);
    assert_string_equal(json_string_value(json_object_get(j, "state")), "done");
    json_decref(j);
}

/* Every sample line belongs to a family declared by # TYPE before it. */
static void check_exposition(const char *text)
{
    char families[64][64];
    int n = 0;
    const char *line = text;
    while (*line) {
        const char *end = strchr(line, '\n');
        assert_non_null(end);
        char name[64], type[16];
        if (sscanf(line, "# TYPE %63s %15s", name, type) == 2) {
            assert_true(n < 64);
            snprintf(families[n++], sizeof families[0], "%s", name);
        } else if (line[0] != '#') {
            size_t len = strcspn(line, "{ ");
            int found = 0;
            for (int i = 0; i < n && !found; i++) {
                size_t fl = strlen(families[i]);
                found = !strncmp(line, families[i], fl) &&
                        (len == fl || !strncmp(line + fl, "_bucket", 7) || !strncmp(line + fl, "_sum", 4) ||
                         !strncmp(line + fl, "_count", 6));
            }
            if (!found || strncmp(line, "cuzk_", 5))
                fail_msg("sample without a family: %.*s", (int)(end - line), line);
            char *num_end;
            const char *value = memchr(line, ' ', (size_t)(end - line));
            assert_non_null(value);
            strtod(value + 1, &num_end);
            assert_ptr_equal(num_end, end);
        }
        line = end + 1;
    }
}

static void test_api_status_and_metrics(void **state)
{
    routes_fixture *f = *state;
    json_t *j = call_api(f, "GET", "/v1/status", NULL, NULL, 200, NULL);
    assert_string_equal(json_string_value(json_object_get(j, "backend")), "cpu");
    assert_true(json_is_true(json_object_get(j, "accepting_jobs")));
    assert_int_equal(json_array_size(json_object_get(j, "devices")), 1);
    assert_int_equal(json_array_size(json_object_get(j, "circuits")), 1);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "jobs"), "done")), 2);
    json_t *budget = json_object_get(j, "budget");
    assert_non_null(json_object_get(json_object_get(budget, "by_category"), "pinned"));
    assert_true(json_integer_value(json_object_get(budget, "limit_bytes")) == 256 << 20);
    assert_non_null(json_object_get(json_object_get(j, "pinned_pool"), "reuse_ratio"));
    json_decref(j);

    http_request rq = {"GET", "/metrics", "", 0, NULL, NULL};
    http_response rs = {0};
    routes_handle(&f->api, &rq, &rs);
    assert_int_equal(rs.status, 200);
    assert_non_null(strstr(rs.content_type, "text/plain; version=0.0.4"));
    check_exposition(rs.body);
    assert_non_null(strstr(rs.body, "cuzk_proofs_total{outcome=\"done\"} 2\n"));
    assert_non_null(strstr(rs.body, "cuzk_partitions_proved_total 3\n"));
    assert_non_null(strstr(rs.body, "cuzk_stage_duration_seconds_bucket{stage=\"total\",le=\"+Inf\"} 3\n"));
    assert_non_null(strstr(rs.body, "cuzk_stage_duration_seconds_count{stage=\"gpu\"} 3\n"));
    assert_non_null(strstr(rs.body, "cuzk_gpu_busy_seconds_total{device=\"0\"}"));
    assert_non_null(strstr(rs.body, "cuzk_gpu_device_seconds_total{device=\"0\"}"));
    assert_non_null(strstr(rs.body, "cuzk_device_memory_bytes{device=\"0\",kind=\"high_water\"} 0\n")); /* sim */
    assert_non_null(strstr(rs.body, "cuzk_device_memory_waits_total{device=\"0\"} 0\n"));
    assert_non_null(strstr(rs.body, "cuzk_budget_used_bytes{category=\"keys\"}"));
    assert_non_null(strstr(rs.body, "cuzk_keys{tier=\"hot\"} 1\n"));
    http_response_free(&rs);
}

/* Once draining, submissions are refused; reads go on. */
static void test_api_draining(void **state)
{
    routes_fixture *f = *state;
    routes_stop_accepting(&f->api);
    char body[256];
    snprintf(body, sizeof body, "{\"circuit\": \"c\", \"partitions\": [{\"witness\": \"%s\"}]}", f->witness);
    expect_error(f, "POST", "/v1/jobs", body, 503, "shutting down");
    json_t *j = call_api(f, "GET", "/v1/status", NULL, NULL, 200, NULL);
    assert_true(json_is_false(json_object_get(j, "accepting_jobs")));
    json_decref(j);
}

/* ---------- the server and the client over a unix socket ---------- */

/* A small server's settings over the fixture's API, without a token. */
static http_server_config server_config(routes_fixture *f)
{
    return (http_server_config){.max_body_bytes = 1024,
                                .max_connections = 8,
                                .idle_timeout_s = 10,
                                .unauthenticated_per_address = 4,
                                .unauthenticated_timeout_s = 10,
                                .handle = routes_handle,
                                .handle_ctx = &f->api,
                                .counters = &f->api.counters};
}

static void test_server_and_client(void **state)
{
    routes_fixture *f = *state;
    char sock[64];
    snprintf(sock, sizeof sock, "unix:%s/api.sock", f->dir);
    endpoint ep;
    cuzk_error err = {0};
    assert_int_equal(endpoint_parse(sock, &ep, &err), CUZK_OK);
    http_server_config cfg = server_config(f);
    http_server *s = http_server_start(&cfg, &ep, 1, &err);
    assert_non_null(s);
    /* a second server on a live socket is refused */
    assert_null(http_server_start(&cfg, &ep, 1, &err));
    assert_non_null(strstr(err.msg, "another daemon"));

    http_reply r;
    assert_int_equal(http_call(&ep, NULL, "GET", "/v1/status", NULL, 0, 5, &r, &err), CUZK_OK);
    assert_int_equal(r.status, 200);
    assert_non_null(strstr(r.body, "\"backend\":\"cpu\""));
    http_reply_free(&r);
    char big[2048];
    memset(big, ' ', sizeof big);
    assert_int_equal(http_call(&ep, NULL, "POST", "/v1/jobs", big, sizeof big, 5, &r, &err), CUZK_OK);
    assert_int_equal(r.status, 413);
    assert_non_null(strstr(r.body, "over the limit of 1024 bytes"));
    http_reply_free(&r);
    /* garbage on the socket is answered (or dropped), and the server goes on */
    int fd;
    assert_int_equal(endpoint_connect(&ep, &fd, &err), CUZK_OK);
    const char junk[] = "\x16\x03\x01 not http at all\r\n\r\n";
    assert_true(send(fd, junk, sizeof junk - 1, MSG_NOSIGNAL) > 0);
    char sink[512];
    while (recv(fd, sink, sizeof sink, 0) > 0)
        ;
    close(fd);
    assert_int_equal(http_call(&ep, NULL, "GET", "/v2", NULL, 0, 5, &r, &err), CUZK_OK);
    assert_int_equal(r.status, 404);
    http_reply_free(&r);
    assert_true(atomic_load(&f->api.counters.by_class[4]) >= 2);
    http_server_stop(s);
    assert_int_equal(access(ep.path, F_OK), -1); /* the socket file is gone */
    assert_int_equal(http_call(&ep, NULL, "GET", "/v1/status", NULL, 0, 5, &r, &err), CUZK_ERR_IO);
}

/* A TCP listener without a token is refused at start. */
static void test_tcp_needs_token(void **state)
{
    routes_fixture *f = *state;
    endpoint ep;
    cuzk_error err = {0};
    assert_int_equal(endpoint_parse("tcp:127.0.0.1:1", &ep, &err), CUZK_OK);
    http_server_config cfg = server_config(f);
    assert_null(http_server_start(&cfg, &ep, 1, &err));
    assert_non_null(strstr(err.msg, "needs a token"));
    cfg.token = "t";
    cfg.unauthenticated_per_address = 0;
    assert_null(http_server_start(&cfg, &ep, 1, &err));
    assert_non_null(strstr(err.msg, "per address: from 1 to 16, not 0"));
}

int main(void)
{
    const struct CMUnitTest config_tests[] = {
        cmocka_unit_test(test_config_example_is_the_defaults),
        cmocka_unit_test(test_config_defaults_are_the_engines),
        cmocka_unit_test(test_config_sources_and_errors),
        cmocka_unit_test(test_config_cluster),
        cmocka_unit_test(test_endpoints),
        cmocka_unit_test(test_peer_address),
        cmocka_unit_test(test_token),
    };
    /* in order: each builds on what the one before left in the engine */
    const struct CMUnitTest api_tests[] = {
        cmocka_unit_test(test_api_routes_and_circuits), cmocka_unit_test(test_api_bad_jobs),
        cmocka_unit_test(test_api_jobs),                cmocka_unit_test(test_api_status_and_metrics),
        cmocka_unit_test(test_server_and_client),       cmocka_unit_test(test_tcp_needs_token),
        cmocka_unit_test(test_api_draining),
    };
    int failed = cmocka_run_group_tests_name("config", config_tests, NULL, NULL);
    return failed + cmocka_run_group_tests_name("api", api_tests, api_setup, api_teardown);
}
