#!/usr/bin/env python3
"""Prints the inputs of tests/unit/test_gpu.c's test_ntt_low_quotient.

The GPU multiplies by NTT twiddles with Shoup's method (src/gpu/ff.cuh):
next to the twiddle w it keeps W = floor(w R / r), R = 2^256, and for an
input a < r estimates q = floor(a W / R) from the terms of a W (32-bit
limbs) that land in limb 7 and above. About once in 2^28 products the
dropped terms would have carried into limb 8 and the estimate is one low;
a w - q r then exceeds r and the final subtraction brings it back.

For the twiddle w_4 (the first product of a 4-point forward NTT, (x1, x3)
of stage 1) this finds the smallest s such that a = s W^-1 mod R is below r
and takes that path: a W mod R = s is tiny, far below what the dropped terms
sum to. The 2^s-th root of unity comes from src/ff/constants.h, as the CPU
and GPU derive their twiddles from it.

Usage: python3 tools/gen_shoup_vectors.py [src/ff/constants.h]
"""
import re
import sys

R = 1 << 256
FIELDS = [("bn254_fr", "BN254_FR"), ("bls12_381_fr", "BLS12_381_FR")]


def words(text, name):
    m = re.search(r"static const uint64_t %s\[\d+\] = \{([^}]*)\}" % re.escape(name), text)
    if not m:
        sys.exit("constants.h has no table %s" % name)
    return [int(w.strip().rstrip("ULL"), 16) for w in m.group(1).split(",")]


def number(ws):
    return sum(w << (64 * i) for i, w in enumerate(ws))


def limbs32(x):
    return [(x >> (32 * i)) & 0xFFFFFFFF for i in range(8)]


def estimated_quotient(a, W):
    """floor(a W / R) from the terms in limbs >= 7 only, as the GPU does"""
    kept = 0
    for i, b in enumerate(limbs32(W)):
        for j, x in enumerate(limbs32(a)):
            p = x * b
            if i + j >= 7:
                kept += (p & 0xFFFFFFFF) << (32 * (i + j))
            if i + j + 1 >= 7:
                kept += (p >> 32) << (32 * (i + j + 1))
    return kept >> 256


def main():
    text = open(sys.argv[1] if len(sys.argv) > 1 else "src/ff/constants.h").read()
    for cpu, up in FIELDS:
        r = number(words(text, cpu + "_MODULUS"))
        adicity = int(re.search(r"#define %s_TWO_ADICITY (\d+)" % up, text).group(1))
        root = number(words(text, cpu + "_root_of_unity")) * pow(R, -1, r) % r  # out of Montgomery form
        w4 = pow(root, 1 << (adicity - 2), r)
        W = w4 * R // r
        W_inv = pow(W, -1, R)  # W is odd for both fields
        for s in range(1, 1 << 20):
            a = s * W_inv % R
            if a < r and estimated_quotient(a, W) == (a * W >> 256) - 1:
                break
        else:
            sys.exit("%s: no input found" % cpu)
        q = estimated_quotient(a, W)
        assert r <= a * w4 - q * r < 2 * r
        limbs = ", ".join("0x%016xULL" % ((a >> (64 * i)) & (2**64 - 1)) for i in range(4))
        print("%s (s = %d): {{%s}}" % (cpu, s, limbs))


if __name__ == "__main__":
    main()
