/* POST /v1/circuits {"id", "zkey", "r1cs"?, "wasm"?} or {"id", "r1cs", "setup":
 * "development", "device_only"?}, GET /v1/circuits/{circuit}/verification_key,
 * POST /v1/keys/{circuit}/preload, DELETE /v1/keys/{circuit}[?drop=true]. */
#include <string.h>

#include "daemon/routes.h"
#include "groth16/r1cs.h"

int routes_circuit_id_ok(const char *id)
{
    size_t n = strlen(id);
    return n && n <= ROUTES_MAX_CIRCUIT_ID &&
           strspn(id, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:-") == n;
}

static int absolute_path(const json_t *v)
{
    return json_is_string(v) && json_string_value(v)[0] == '/';
}

/* Responds 200 (or status) with the circuit's description. */
static void respond_circuit(routes_context *a, const char *id, int status, http_response *rs)
{
    cuzk_circuit_info info;
    if (cuzk_engine_circuit_info(a->engine, id, &info))
        http_respond_error(rs, 404, "unknown circuit '%s'", id);
    else
        http_respond_json(rs, status, routes_circuit_json(&info));
}

int routes_register_circuit(cuzk_engine *e, const store_circuit *c, cuzk_error *err)
{
    if (!c->development)
        return cuzk_engine_register_circuit(e, c->id, c->zkey, c->r1cs, c->wasm, err);
    /* a development key made in memory from the r1cs (NOT for production:
     * cuzk_engine_register_setup), on the device only when asked */
    cuzk_r1cs r;
    int rc = cuzk_r1cs_read(&r, c->r1cs, err);
    return rc ? rc : cuzk_engine_register_setup(e, c->id, &r, c->device_only, err);
}

/* Registers c, kept in the store first when there is one (so a store that
 * cannot be written refuses the registration rather than lose it). */
static int register_kept(routes_context *a, const store_circuit *c, cuzk_error *err)
{
    sqlite_store *store = a->store ? jobs_sqlite_store(a->store) : NULL;
    int rc = store ? store_add_circuit(store, c, err) : CUZK_OK;
    if (rc)
        return rc;
    rc = routes_register_circuit(a->engine, c, err);
    cuzk_error ignored = {0};
    if (rc && store)
        store_remove_circuit(store, c->id, &ignored);
    return rc;
}

void route_register_circuit(routes_context *a, const http_request *rq, const char *arg, http_response *rs)
{
    (void)arg;
    json_t *root = routes_body_object(rq, rs);
    if (!root)
        return;
    const json_t *id = json_object_get(root, "id"), *zkey = json_object_get(root, "zkey"),
                 *r1cs = json_object_get(root, "r1cs"), *setup = json_object_get(root, "setup"),
                 *device_only = json_object_get(root, "device_only"), *wasm = json_object_get(root, "wasm");
    cuzk_circuit_info info;
    cuzk_error err = {0};
    if (!json_is_string(id) || !routes_circuit_id_ok(json_string_value(id)))
        http_respond_error(rs, 400, "\"id\" must be 1 to %d letters, digits or . _ : -", ROUTES_MAX_CIRCUIT_ID);
    else if (setup && (!json_is_string(setup) || strcmp(json_string_value(setup), "development") != 0))
        http_respond_error(rs, 400, "\"setup\" can only be \"development\" (a key made here, not for production)");
    else if (setup && (zkey || wasm || !absolute_path(r1cs)))
        http_respond_error(rs, 400, "a development setup takes \"r1cs\" (an absolute path), no \"zkey\" and no \"wasm\"");
    else if (device_only && (!setup || !json_is_boolean(device_only)))
        http_respond_error(rs, 400, "\"device_only\" is true or false, and only with a development setup");
    else if (!setup && (!absolute_path(zkey) || (r1cs && !absolute_path(r1cs)) || (wasm && !absolute_path(wasm))))
        http_respond_error(rs, 400, "\"zkey\" (and \"r1cs\" and \"wasm\", when given) must be absolute paths");
    else if (!cuzk_engine_circuit_info(a->engine, json_string_value(id), &info))
        http_respond_error(rs, 409, "circuit '%s' is already registered", json_string_value(id));
    else {
        store_circuit c = {json_string_value(id), setup ? NULL : json_string_value(zkey),
                           r1cs ? json_string_value(r1cs) : NULL, wasm ? json_string_value(wasm) : NULL,
                           setup != NULL, json_is_true(device_only)};
        int rc = register_kept(a, &c, &err);
        if (rc)
            http_respond_error(rs, http_status_for(rc), "%s", err.msg);
        else
            respond_circuit(a, json_string_value(id), 201, rs);
    }
    json_decref(root);
}

void route_preload_key(routes_context *a, const http_request *rq, const char *arg, http_response *rs)
{
    (void)rq;
    cuzk_circuit_info info;
    cuzk_error err = {0};
    if (cuzk_engine_circuit_info(a->engine, arg, &info)) {
        http_respond_error(rs, 404, "unknown circuit '%s'", arg);
        return;
    }
    int rc = cuzk_engine_preload_key(a->engine, arg, &err);
    if (rc)
        http_respond_error(rs, http_status_for(rc), "%s", err.msg);
    else
        respond_circuit(a, arg, 200, rs);
}

void route_evict_key(routes_context *a, const http_request *rq, const char *arg, http_response *rs)
{
    const char *drop = http_query(rq, "drop");
    int to_cold = drop && (!strcmp(drop, "true") || !strcmp(drop, "1"));
    cuzk_circuit_info info;
    cuzk_error err = {0};
    if (drop && !to_cold && strcmp(drop, "false") && strcmp(drop, "0"))
        http_respond_error(rs, 400, "drop must be true or false, not '%s'", drop);
    else if (cuzk_engine_circuit_info(a->engine, arg, &info))
        http_respond_error(rs, 404, "unknown circuit '%s'", arg);
    else if (cuzk_engine_evict_key(a->engine, arg, to_cold, &err))
        http_respond_error(rs, 409, "%s", err.msg);
    else
        respond_circuit(a, arg, 200, rs);
}

/* GET /v1/circuits/{circuit}/verification_key: snarkjs's JSON */
void route_get_verification_key(routes_context *a, const http_request *rq, const char *arg, http_response *rs)
{
    (void)rq;
    cuzk_circuit_info info;
    cuzk_error err = {0};
    char *vk = NULL;
    if (cuzk_engine_circuit_info(a->engine, arg, &info))
        http_respond_error(rs, 404, "unknown circuit '%s'", arg);
    else if (!(vk = cuzk_engine_circuit_vk_json(a->engine, arg, &err)))
        http_respond_error(rs, err.code == CUZK_ERR_ARG ? 409 : http_status_for(err.code), "%s", err.msg);
    else
        http_respond_body(rs, 200, "application/json", vk);
}
