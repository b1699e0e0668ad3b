/* POST /v1/circuits {"id", "zkey", "r1cs"?, "wasm"?}, POST /v1/keys/{circuit}/preload,
 * DELETE /v1/keys/{circuit}[?drop=true]. */
#include <string.h>

#include "daemon/api.h"

int api_circuit_id_ok(const char *id)
{
    size_t n = strlen(id);
    return n && n <= API_MAX_CIRCUIT_ID &&
           strspn(id, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:-") == n;
}

static int absolute_path(const json_t *v)
{
    return json_is_string(v) && json_string_value(v)[0] == '/';
}

/* Responds 200 (or status) with the circuit's description. */
static void respond_circuit(api_context *a, const char *id, int status, http_response *rs)
{
    cuzk_circuit_info info;
    if (cuzk_engine_circuit_info(a->engine, id, &info))
        http_respond_error(rs, 404, "unknown circuit '%s'", id);
    else
        http_respond_json(rs, status, api_circuit_json(&info));
}

void api_register_circuit(api_context *a, const http_request *rq, const char *arg, http_response *rs)
{
    (void)arg;
    json_t *root = api_body_object(rq, rs);
    if (!root)
        return;
    const json_t *id = json_object_get(root, "id"), *zkey = json_object_get(root, "zkey"),
                 *r1cs = json_object_get(root, "r1cs"), *wasm = json_object_get(root, "wasm");
    cuzk_circuit_info info;
    cuzk_error err = {0};
    if (!json_is_string(id) || !api_circuit_id_ok(json_string_value(id)))
        http_respond_error(rs, 400, "\"id\" must be 1 to %d letters, digits or . _ : -", API_MAX_CIRCUIT_ID);
    else if (!absolute_path(zkey) || (r1cs && !absolute_path(r1cs)) || (wasm && !absolute_path(wasm)))
        http_respond_error(rs, 400, "\"zkey\" (and \"r1cs\" and \"wasm\", when given) must be absolute paths");
    else if (!cuzk_engine_circuit_info(a->engine, json_string_value(id), &info))
        http_respond_error(rs, 409, "circuit '%s' is already registered", json_string_value(id));
    else {
        int rc = cuzk_engine_register_circuit(a->engine, json_string_value(id), json_string_value(zkey),
                                              r1cs ? json_string_value(r1cs) : NULL,
                                              wasm ? json_string_value(wasm) : NULL, &err);
        if (rc)
            http_respond_error(rs, http_status_for(rc), "%s", err.msg);
        else
            respond_circuit(a, json_string_value(id), 201, rs);
    }
    json_decref(root);
}

void api_preload_key(api_context *a, const http_request *rq, const char *arg, http_response *rs)
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

void api_evict_key(api_context *a, const http_request *rq, const char *arg, http_response *rs)
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
