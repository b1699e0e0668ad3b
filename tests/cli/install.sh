#!/usr/bin/env bash
# make install puts the command, both libraries (the static one with its
# link list), cuzk.pc and the public headers under DESTDIR/PREFIX; the
# installed command runs, and programs compiled against the installed
# tree prove and verify: one with `pkg-config --cflags --libs cuzk`
# (<cuzk/groth16.h>), one written for rapidsnark (<prover.h>, -lrapidsnark).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
make -s install DESTDIR="$dest" PREFIX=/opt/cuzk >/dev/null
p=$dest/opt/cuzk
for f in bin/cuzk lib/libcuzk.a lib/libcuzk.libs lib/pkgconfig/cuzk.pc include/cuzk/cuzk.h include/cuzk/groth16.h \
    include/cuzk/rapidsnark/prover.h; do
    [ -f "$p/$f" ] || { echo "FAIL: make install left out $f"; exit 1; }
done
for f in lib/libcuzk.so lib/libcuzk.so.0 lib/librapidsnark.so; do
    [ -L "$p/$f" ] && [ -f "$p/$f" ] || { echo "FAIL: $f is not a link to the library"; exit 1; }
done
"$p/bin/cuzk" --version | grep -qx "cuzk [0-9][0-9.]*" || { echo "FAIL: the installed cuzk does not run"; exit 1; }

# cuzk.pc names PREFIX (not DESTDIR): pkg-config is pointed at the staged
# tree with its prefix redefined, as a packager's build would see it.
grep -qx 'prefix=/opt/cuzk' "$p/lib/pkgconfig/cuzk.pc" || { echo "FAIL: cuzk.pc has the wrong prefix"; exit 1; }
pc() { PKG_CONFIG_PATH=$p/lib/pkgconfig pkg-config --define-variable=prefix="$p" "$@" cuzk; }
cat >"$dest/use.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <cuzk/groth16.h>

/* use <zkey> <wtns>: proves on the CPU, verifies the proof, prints public.json */
int main(int argc, char **argv)
{
    cuzk_error err = {0};
    cuzk_key *key = NULL;
    cuzk_prover *prover = NULL;
    char *proof = NULL, *pub = NULL, *vk = NULL;
    int rc = argc != 3 ? CUZK_ERR_ARG : cuzk_key_load_file(&key, argv[1], &err);
    if (!rc) rc = cuzk_prover_create(&prover, "cpu", 0, &err);
    if (!rc) rc = cuzk_prove_wtns_file(prover, key, argv[2], 0, &proof, &pub, &err);
    if (!rc) rc = cuzk_key_vk_json(key, &vk, &err);
    if (!rc) rc = cuzk_verify_json(vk, pub, proof, &err);
    printf("%s\n", rc ? err.msg : pub);
    free(proof), free(pub), free(vk);
    cuzk_prover_destroy(prover);
    cuzk_key_free(key);
    return rc != 0;
}
C
cat >"$dest/rs.c" <<'C'
#include <stdio.h>
#include <prover.h>

/* rs <zkey>: the public size of its public.json */
int main(int argc, char **argv)
{
    unsigned long long size = 0;
    char msg[256];
    if (argc != 2 || groth16_public_size_for_zkey_file(argv[1], &size, msg, sizeof msg) != PROVER_OK) return 1;
    printf("%llu\n", size);
    return 0;
}
C
fx=$root/tests/fixtures/bn128
cc -std=gnu11 -Wall -Werror "$dest/use.c" $(pc --cflags --libs) -Wl,-rpath,"$p/lib" -o "$dest/use"
"$dest/use" "$fx/mul.zkey" "$fx/mul.wtns" | tr -d ' \n' | grep -qx '\["110","3"\]' ||
    { echo "FAIL: a program built with pkg-config cannot prove and verify"; exit 1; }
# ldd's whole list first: grep -q leaving at the match while the loader
# still writes lines would fail the pipe (SIGPIPE, under pipefail)
libs=$(ldd "$dest/use")
grep -qF "libcuzk.so.0 => $p/lib/libcuzk.so.0" <<<"$libs" || { echo "FAIL: not linked to the installed libcuzk.so.0"; exit 1; }
cc -std=gnu11 -Wall -Werror -I"$(pc --variable=rapidsnark_includedir)" "$dest/rs.c" -L"$p/lib" -lrapidsnark \
    -Wl,-rpath,"$p/lib" -o "$dest/rs"
"$dest/rs" "$fx/mul.zkey" | grep -qx '[0-9]*' || { echo "FAIL: a rapidsnark program does not run"; exit 1; }
# the static library with its link list (pkg-config --static lists the
# same and, recursively, their own dependencies, which need static
# libraries that Debian's -dev packages do not all bring)
cc -std=gnu11 "$dest/use.c" $(pc --cflags) "$p/lib/libcuzk.a" $(cat "$p/lib/libcuzk.libs") -o "$dest/use-static"
"$dest/use-static" "$fx/mul.zkey" "$fx/mul.wtns" >/dev/null ||
    { echo "FAIL: a program linked with libcuzk.a cannot prove and verify"; exit 1; }
echo "install: all in place; programs built against it prove and verify"
