# The libraries export only the API. build/libcuzk.a: every global symbol
# it defines is cuzk_*, rapidsnark's groth16_* or supraseal-c2's (the Makefile links the
# objects into one and keeps only those global, so the module names inside
# cannot clash with a program's), and a program using it links and runs.
# build/libcuzk.so: exactly the names of src/api/libcuzk.map, which are
# exactly the functions the public headers declare; SONAME libcuzk.so.0;
# no text relocations (every object, the assembly too, position-independent).
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
# the public names: the map's, and the headers' declarations
MAP=$ROOT/src/api/libcuzk.map
sed -n 's/^ *\([A-Za-z0-9_]*\);$/\1/p' "$MAP" | sort >"$WORK/map.txt"
{
    grep -ho '^CUZK_API [^(]*(' "$ROOT"/include/cuzk/*.h | sed 's/($//; s/.*[ *]//'
    grep -hoE '^(int|void) +groth16_[a-z0-9_]+\(' "$ROOT/include/cuzk/rapidsnark/prover.h" | sed 's/($//; s/.* //'
} | sort >"$WORK/declared.txt"
diff "$WORK/declared.txt" "$WORK/map.txt" ||
    { echo "FAIL: the public headers (<) and src/api/libcuzk.map (>) name different functions"; exit 1; }

if grep -v '^cuzk_' "$WORK/exported.txt" | grep -vxFf "$WORK/map.txt"; then
    echo "FAIL: libcuzk.a exports the symbols above, neither cuzk_* nor the API's"; exit 1
fi
missing=$(grep -vxFf "$WORK/exported.txt" "$WORK/map.txt" || true)
[ -z "$missing" ] || { echo "FAIL: libcuzk.a lacks $missing"; exit 1; }
echo "libcuzk.a exports $(wc -l <"$WORK/exported.txt") symbols: cuzk_* and rapidsnark's API"

SO=$ROOT/build/libcuzk.so
[ -e "$SO" ] || { echo "build/libcuzk.so is missing: run make"; exit 1; }
nm -D --defined-only "$SO" | awk 'NF == 3 && $2 != "u" && $3 != "CUZK_0" {sub(/@.*/, "", $3); print $3}' | sort >"$WORK/so.txt"
diff "$WORK/map.txt" "$WORK/so.txt" ||
    { echo "FAIL: libcuzk.so exports other names (>) than src/api/libcuzk.map (<)"; exit 1; }
readelf -d "$SO" | grep -q 'SONAME.*\[libcuzk\.so\.0\]' || { echo "FAIL: libcuzk.so has no SONAME libcuzk.so.0"; exit 1; }
if readelf -d "$SO" | grep -q TEXTREL; then echo "FAIL: libcuzk.so has text relocations"; exit 1; fi
echo "libcuzk.so exports the $(wc -l <"$WORK/so.txt") names of the map, SONAME libcuzk.so.0, no text relocations"

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
