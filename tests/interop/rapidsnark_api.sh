#!/usr/bin/env bash
# rapidsnark's C API as a program built for librapidsnark uses it: a C
# program that includes <prover.h> (-I include/cuzk/rapidsnark), links
# with -lcuzk (build/libcuzk.so) and proves the fixtures of both curves,
# once from a zkey buffer (groth16_prover) and once from the file
# (groth16_prover_zkey_file); snarkjs verifies every proof.
source "$(dirname "$0")/lib.sh"
need_peers
[ -e "$ROOT/build/libcuzk.so" ] || { echo "build/libcuzk.so is missing: run make"; exit 1; }

cat >"$WORK/prove.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <prover.h>

static void *slurp(const char *path, unsigned long long *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    *len = (unsigned long long)ftell(f);
    rewind(f);
    void *p = malloc(*len);
    if (p && fread(p, 1, *len, f) != *len) { free(p); p = NULL; }
    fclose(f);
    return p;
}

static int put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f) return 1;
    int bad = fputs(text, f) < 0;
    return fclose(f) != 0 || bad;
}

/* prove <zkey> <wtns> <proof.json> <public.json> buf|file */
int main(int argc, char **argv)
{
    unsigned long long zkey_len, wtns_len, proof_size, public_size;
    char msg[256];
    void *zkey = slurp(argv[1], &zkey_len), *wtns = slurp(argv[2], &wtns_len);
    if (argc != 6 || !zkey || !wtns) return 2;
    groth16_proof_size(&proof_size);
    if (groth16_public_size_for_zkey_buf(zkey, zkey_len, &public_size, msg, sizeof msg) != PROVER_OK) {
        fprintf(stderr, "public size: %s\n", msg);
        return 1;
    }
    char *proof = malloc(proof_size), *pub = malloc(public_size);
    int rc = argv[5][0] == 'b'
                 ? groth16_prover(zkey, zkey_len, wtns, wtns_len, proof, &proof_size, pub, &public_size, msg,
                                  sizeof msg)
                 : groth16_prover_zkey_file(argv[1], wtns, wtns_len, proof, &proof_size, pub, &public_size, msg,
                                            sizeof msg);
    if (rc != PROVER_OK) {
        fprintf(stderr, "prove: %d: %s\n", rc, msg);
        return 1;
    }
    return put(argv[3], proof) || put(argv[4], pub);
}
C
${CC:-cc} -std=gnu11 -Wall -Werror -I"$ROOT/include/cuzk/rapidsnark" "$WORK/prove.c" -L"$ROOT/build" -lcuzk \
    -Wl,-rpath,"$ROOT/build" -o "$WORK/prove"
for curve in bn128 bls12381; do
    fx=$ROOT/tests/fixtures/$curve
    for from in buf file; do
        step "$curve: rapidsnark API, zkey from a $from; snarkjs verifies"
        CUZK_BACKEND=cpu "$WORK/prove" "$fx/mul.zkey" "$fx/mul.wtns" "$WORK/proof.json" "$WORK/public.json" $from
        cmp "$WORK/public.json" "$fx/public.json"
        snarkjs_verify "$fx/verification_key.json" "$WORK/public.json" "$WORK/proof.json"
        tamper_proof "$WORK/proof.json" "$WORK/bad.json" negate
        snarkjs_rejects "$fx/verification_key.json" "$WORK/public.json" "$WORK/bad.json"
    done
done
echo "rapidsnark api: all checks passed"
