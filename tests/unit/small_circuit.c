#include "small_circuit.h"

#include "groth16/groth16.h"
#include "groth16/r1cs.h"
#include "groth16/synth.h"
#include "groth16/zkey.h"

int small_circuit_write(uint32_t constraints, const char *zkey_path, const char *r1cs_path, cuzk_wtns *w,
                        cuzk_error *err)
{
    cuzk_synth_params sp = {CUZK_CURVE_BN254, constraints, 2, 5, 0};
    cuzk_r1cs r1cs;
    cuzk_zkey z;
    int rc = cuzk_circuit_synth(&sp, &r1cs, w, err);
    if (rc)
        return rc;
    rc = cuzk_groth16_setup(&r1cs, 2, &z, err);
    if (!rc) {
        rc = cuzk_zkey_write(&z, zkey_path, err);
        cuzk_zkey_free(&z);
    }
    if (!rc && r1cs_path)
        rc = cuzk_r1cs_write(&r1cs, r1cs_path, err);
    cuzk_r1cs_free(&r1cs);
    if (rc)
        cuzk_wtns_free(w);
    return rc;
}
