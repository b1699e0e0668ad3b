#!/usr/bin/env bash
# The Rust crate rust/supraseal-c2 (supraseal-c2's API over libcuzk, for
# bellperson's cuda-supraseal): `cargo test` with Debian's cargo and rustc
# (1.63, what scripts/install-deps installs; /usr/bin first, ahead of a
# rustup toolchain in PATH), offline, its CARGO_HOME and target folder in
# build/, linking build/libcuzk.a: proofs synthesized in Rust, byte for
# byte the C prover's, blinded ones verified by `cuzk params verify`, and
# every bad input an error (tests/proofs.rs, tests/errors.rs); then
# rust/patch-check, a crate calling it in bellperson's shape through
# [patch.crates-io] as a Filecoin build does, also as a static library
# linked into a C program with rustc's native-static-libs alone (as Go
# links filecoin-ffi's). Skips (77) without cargo and rustc.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD

pick() { # the Debian tool when installed, else the first in PATH
    if [ -x "/usr/bin/$1" ]; then echo "/usr/bin/$1"; else command -v "$1" || true; fi
}
cargo=$(pick cargo) rustc=$(pick rustc) rustdoc=$(pick rustdoc)
if [ -z "$cargo" ] || [ -z "$rustc" ]; then
    echo "cargo/rustc not installed (scripts/install-deps installs Debian's): the Rust crate's tests skipped"
    exit 77
fi
for f in build/libcuzk.a build/libcuzk.libs build/cuzk; do
    [ -e "$f" ] || { echo "FAIL: $f is missing: run make"; exit 1; }
done
echo "--- $("$cargo" --version), $("$rustc" --version)"
export CARGO_HOME=$root/build/cargo-home CARGO_TARGET_DIR=$root/build/rust RUSTC=$rustc CUZK_BIN=$root/build/cuzk
[ -n "$rustdoc" ] && export RUSTDOC=$rustdoc
unset CUZK_LIB_DIR # build.rs finds the checkout's build/libcuzk.a, as a patched Filecoin build does
for crate in supraseal-c2 patch-check; do
    echo "--- cargo test: rust/$crate"
    "$cargo" test --offline --locked --manifest-path "rust/$crate/Cargo.toml" 2>&1
done
rm -rf "$CARGO_TARGET_DIR"/tmp/cuzk-* # the tests' scratch folders (kept when one fails)

echo "--- a CUZK_LIB_DIR without the library: a build error that says so"
empty=$(mktemp -d)
trap 'rm -rf "$empty"' EXIT
if CUZK_LIB_DIR=$empty "$cargo" build --offline --locked --manifest-path rust/supraseal-c2/Cargo.toml >"$empty/out.txt" 2>&1; then
    echo "FAIL: built without libcuzk"; exit 1
fi
grep -q "CUZK_LIB_DIR=$empty holds no libcuzk.a" "$empty/out.txt" || { cat "$empty/out.txt"; echo "FAIL: no clear message"; exit 1; }

echo "--- a Rust static library on top (as filecoin-ffi's libfilcrypto.a) links with native-static-libs alone"
CARGO_TARGET_DIR=$empty/target RUSTFLAGS="--print native-static-libs" "$cargo" build --offline --locked \
    --manifest-path rust/patch-check/Cargo.toml >"$empty/build.txt" 2>&1 || { cat "$empty/build.txt"; exit 1; }
libs=$(sed -n 's/.*native-static-libs: //p' "$empty/build.txt" | head -n 1)
cat >"$empty/use.c" <<'C'
#include <stdio.h>
int patch_check_read_params(const char *path);
int main(int argc, char **argv) { printf("%d\n", patch_check_read_params(argv[1])); return 0; }
C
# shellcheck disable=SC2086 # the libraries are words
cc "$empty/use.c" "$empty/target/debug/libcuzk_patch_check.a" $libs -o "$empty/use"
build/cuzk setup --format params tests/fixtures/bls12381/mul.r1cs "$empty/mul.params" 2>/dev/null
[ "$("$empty/use" "$empty/mul.params")" = 0 ] || { echo "FAIL: the linked program does not read the key"; exit 1; }
[ "$("$empty/use" "$empty/none.params")" = 5 ] || { echo "FAIL: a missing key is not EIO"; exit 1; }
echo "rust_crate: all passed"
