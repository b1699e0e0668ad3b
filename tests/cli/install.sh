#!/usr/bin/env bash
# make install puts the command, the library (with its link list) and the
# public headers under DESTDIR/PREFIX, and the installed command runs.
set -euo pipefail
cd "$(dirname "$0")/../.."
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
make -s install DESTDIR="$dest" PREFIX=/opt/cuzk >/dev/null
for f in bin/cuzk lib/libcuzk.a lib/libcuzk.libs include/cuzk/cuzk.h; do
    [ -f "$dest/opt/cuzk/$f" ] || { echo "FAIL: make install left out $f"; exit 1; }
done
"$dest/opt/cuzk/bin/cuzk" --version | grep -qx "cuzk [0-9][0-9.]*" || { echo "FAIL: the installed cuzk does not run"; exit 1; }
echo "install: all in place"
