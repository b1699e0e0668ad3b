# Sourced by the build-*.sh scripts of the GPU peers: their public sources
# exported from the fetch tool's snapshots into $OUT (git-ignored, never
# part of our tree), blst built by its own script, our release library.
# The caller sets OUT and may set REUSE=1 (build from the trees an earlier
# run exported: on a machine that has nvcc but not the mirrors).

# peer_export <git dir> <folder> [path]: the mirror's HEAD (or only its
# folder `path`: snapshots may lack the large files of other folders),
# fresh, into $OUT/<folder>; prints "<folder> <commit>"
peer_export() {
    git --git-dir="$1" rev-parse --verify -q HEAD >/dev/null ||
        { echo "$0: no git snapshot at $1 (the fetch tool brings it)" >&2; exit 1; }
    rm -rf "${OUT:?}/$2" && mkdir -p "$OUT/$2"
    git --git-dir="$1" archive HEAD ${3:-} | tar -x -C "$OUT/$2"
    echo "$2 $(git --git-dir="$1" rev-parse HEAD)"
}

# peer_trees <folder>=<git dir>[:path] ...: every tree exported and
# $OUT/SOURCES written, or with REUSE=1 the trees already there kept
peer_trees() {
    local spec missing=0
    for spec in "$@"; do [ -d "$OUT/${spec%%=*}" ] || missing=1; done
    if [ "${REUSE:-0}" = 1 ] && [ -f "$OUT/SOURCES" ] && [ $missing = 0 ]; then
        echo "$0: reusing the trees of $OUT/SOURCES"
    else
        for spec in "$@"; do
            local dir=${spec#*=} path=
            case $dir in *:*) path=${dir#*:} dir=${dir%%:*} ;; esac
            peer_export "$dir" "${spec%%=*}" $path
        done >"$OUT/SOURCES"
    fi
    cat "$OUT/SOURCES"
}

# peer_blst: $OUT/obj/blst/libblst.a by blst's own script; __BLST_PORTABLE__:
# both multiply paths, chosen by cpuid at run time, so that the binary runs
# on any x86-64 host
peer_blst() {
    local src
    src=$(cd "$OUT/blst" && pwd)
    rm -rf "$OUT/obj/blst" && mkdir -p "$OUT/obj/blst"
    (cd "$OUT/obj/blst" && CC="${CC:-cc}" sh "$src/build.sh" -D__BLST_PORTABLE__ >build.log 2>&1) ||
        { cat "$OUT/obj/blst/build.log" >&2; exit 1; }
}

# peer_our_lib: $OUT/obj/libcuzk-internal.a, the Makefile's release library
# without CUDA (the CPU objects a harness takes members from); kept for REUSE=1
peer_our_lib() {
    OUR_LIB=$OUT/obj/libcuzk-internal.a
    if [ "${REUSE:-0}" = 1 ] && [ -f "$OUR_LIB" ]; then
        echo "$0: reusing $OUR_LIB"
    else
        ${MAKE:-make} --no-print-directory CUDA=0 -j"$(nproc)" build/libcuzk-internal.a
        cp build/libcuzk-internal.a "$OUR_LIB"
    fi
}
