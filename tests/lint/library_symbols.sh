# build/libcuzk.a exports only the API: every global symbol it defines is
# cuzk_* (the Makefile links the objects into one and keeps only those
# global, so the module names inside cannot clash with a program's), and a
# program using the API links against it and runs.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LIB=$ROOT/build/libcuzk.a
[ -f "$LIB" ] || { echo "build/libcuzk.a is missing: run make"; exit 1; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/cuzk-test.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# GNU unique symbols (nm type u) are left out: in a CUDA build, CUB's and
# Thrust's template statics, one per process by definition, in versioned
# namespaces that no program's names can meet; objcopy keeps them global.
nm -g --defined-only "$LIB" | awk 'NF == 3 && $2 != "u" {print $3}' >"$WORK/exported.txt"
if grep -v '^cuzk_' "$WORK/exported.txt"; then
    echo "FAIL: the symbols above are exported without the cuzk_ prefix"; exit 1
fi
grep -qx cuzk_zkey_read "$WORK/exported.txt" || { echo "FAIL: the API is not exported"; exit 1; }
echo "exported: $(wc -l <"$WORK/exported.txt") symbols, all cuzk_*"

cat >"$WORK/use.c" <<'C'
#include <stdio.h>
#include "groth16/zkey.h"
int main(int argc, char **argv)
{
    cuzk_zkey z;
    cuzk_error err = {0};
    if (argc != 2 || cuzk_zkey_read(&z, argv[1], &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    printf("curve %d, %u public\n", (int)z.curve, z.n_public);
    cuzk_zkey_free(&z);
    return 0;
}
C
${CC:-cc} -std=gnu11 -I"$ROOT/include" -I"$ROOT/src" -pthread "$WORK/use.c" "$LIB" \
    $(cat "$ROOT/build/libcuzk.libs") \
    -o "$WORK/use" 2>"$WORK/link.txt" || { cat "$WORK/link.txt"; echo "FAIL: a program cannot link the API"; exit 1; }
"$WORK/use" "$ROOT/tests/fixtures/bn128/mul.zkey"
echo "library symbols: all checks passed"
