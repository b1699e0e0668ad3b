#!/usr/bin/env python3
"""Operation counts of the ceremony's GPU steps at 2^POWER (BN254), in Fp
products, before and after src/gpu/scalar_mul.cuh's windows and GLV split:
the arithmetic of bench/results/2026-12-07-ceremony-2-24-estimate.md.

Point formulas (ec.cuh): XYZZ doubling 9 products, mixed addition 10,
XYZZ + XYZZ 14; an Fp2 product counts FP2 Fp products. zkey new's terms:
the synthetic --shape mixed circuit measured at 2^13 (per constraint).
Usage: python3 bench/ceremony/estimate.py [POWER...] [--rate G_PER_S]
"""
import sys

FP2 = 2.7
DBL, MADD, ADD = 9, 10, 14
OLD = {"g1_aff": 254 * DBL + 127 * MADD, "g1_x": 254 * DBL + 127 * ADD}
OLD["g2_aff"], OLD["g2_x"] = OLD["g1_aff"], OLD["g1_x"]
NEW = {  # table of 15 entries, windows of 5 bits (26 per half), ~15/16 digits non-zero;
    # the endomorphism on ~24 entries: G1 beta X (1 product), G2 psi or psi^2 (2)
    "g1_aff": 15 * MADD + 130 * DBL + 49 * ADD + 24,
    "g1_x": 15 * ADD + 130 * DBL + 49 * ADD + 24,
    "g2_aff": 15 * MADD + 130 * DBL + 49 * ADD + 48,
    "g2_x": 15 * ADD + 130 * DBL + 49 * ADD + 48,
}
TERMS = (1.364, 1.368, 1.391)  # A, B, C terms per constraint
FULL = 0.27  # share of full-width coefficients; the rest < 2^32
SMALL = 50  # products of a small coefficient's multiple


def ifft_products(k):
    """twiddle products of a size-2^k transform plus its 2^k by 1/n"""
    n = 1 << k
    return 0 if k == 0 else (n // 2) * (k - 2) + 1 + n


def counts(power):
    n = 1 << power
    prep_g1 = sum(ifft_products(k) for k in range(power + 2)) + 2 * sum(ifft_products(k) for k in range(power + 1))
    prep_g2 = sum(ifft_products(k) for k in range(power + 1))
    m = n - 19  # the script's circuit: constraints + public < 2^POWER
    a, b, c = (t * m for t in TERMS)
    return {
        "powersoftau contribute": ((2 * n - 1 + 2 * n, "g1_aff"), (n, "g2_aff")),
        "prepare phase2": ((prep_g1, "g1_x"), (prep_g2, "g2_x")),
        "zkey new": ((a + b + (a + b + c), "g1_aff"), (b, "g2_aff")),
        "zkey contribute": ((m + n, "g1_aff"),),
    }


def products(parts, cost, coefficients):
    total = 0
    for count, kind in parts:
        per = FULL * cost[kind] + (1 - FULL) * SMALL if coefficients else cost[kind]
        total += count * per * (FP2 if kind.startswith("g2") else 1)
    return total


def main():
    args = sys.argv[1:]
    rate = None
    if "--rate" in args:
        i = args.index("--rate")
        rate = float(args[i + 1]) * 1e9
        del args[i : i + 2]
    for power in [int(p) for p in args] or [24]:
        print("2^%d" % power)
        for step, parts in counts(power).items():
            coef = step == "zkey new"
            old, new = products(parts, OLD, coef), products(parts, NEW, coef)
            line = "  %-24s %s  Fp products before %.3g after %.3g (%.2fx)" % (
                step, " ".join("%.3g %s" % (c, k[:2]) for c, k in parts), old, new, old / new)
            if rate:
                line += ", %.0f s at %.0f G/s" % (new / rate, rate / 1e9)
            print(line)


if __name__ == "__main__":
    main()
