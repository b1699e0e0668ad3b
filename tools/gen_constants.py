#!/usr/bin/env python3
"""Derive every curve constant cuzk uses and write src/ff/constants.h.

Inputs are the published curve parameters (moduli, generators, twist
coefficients, the BLS/BN parameter x).  Everything else -- Montgomery
constants, roots of unity, Frobenius coefficients, loop counts, the final
exponent -- is computed here and checked (generators on the curve and of
order r) before anything is written.  Run: python3 tools/gen_constants.py
"""
import sys

# --- published parameters ---------------------------------------------------
CURVES = {
    "bn254": dict(
        p=21888242871839275222246405745257275088696311157297823662689037894645226208583,
        r=21888242871839275222246405745257275088548364400416034343698204186575808495617,
        x=4965661367192848881,          # BN parameter, p = 36x^4+36x^3+24x^2+6x+1
        b=3, xi=(9, 1),                 # twist: E': y^2 = x^3 + b/xi (D-type)
        twist="D",
        g1=(1, 2),
        g2=((10857046999023057135944570762232829481370756359578518086990519993285655852781,
             11559732032986387107991004021392285783925812861821192530917403151452391805634),
            (8495653923123431417604973247489272438418190587263600148770280649306958101930,
             4082367875863433681332203403145435568316851327593401208105741076214120093531)),
    ),
    "bls12_381": dict(
        p=0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab,
        r=0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001,
        x=-0xd201000000010000,          # BLS parameter, r = x^4 - x^2 + 1
        b=4, xi=(1, 1),                 # twist: E': y^2 = x^3 + b*xi (M-type)
        twist="M",
        g1=(0x17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb,
            0x08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1),
        g2=((0x024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8,
             0x13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e),
            (0x0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801,
             0x0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be)),
    ),
}
ROOT_BASE = 5   # snarkjs/rapidsnark derive roots of unity from 5 (docs/FORMATS.md s4)


def limbs_of(v, n):
    return [(v >> (64 * i)) & (2**64 - 1) for i in range(n)]


def nlimbs(m):
    return (m.bit_length() + 63) // 64


# --- tiny Fp2 over p (u^2 = -1) for twist checks and Frobenius constants ----
def f2_mul(a, b, p):
    return ((a[0] * b[0] - a[1] * b[1]) % p, (a[0] * b[1] + a[1] * b[0]) % p)


def f2_add(a, b, p):
    return ((a[0] + b[0]) % p, (a[1] + b[1]) % p)


def f2_pow(a, e, p):
    res = (1, 0)
    while e:
        if e & 1:
            res = f2_mul(res, a, p)
        a = f2_mul(a, a, p)
        e >>= 1
    return res


def f2_inv(a, p):
    n = (a[0] * a[0] + a[1] * a[1]) % p
    ni = pow(n, p - 2, p)
    return (a[0] * ni % p, (-a[1]) * ni % p)


def on_curve(pt, b, mul, add, p):
    x, y = pt
    return mul(y, y) == add(mul(mul(x, x), x), b)


def scalar_mul(pt, k, dbl_add):
    """Affine double-and-add; None is infinity."""
    res = None
    add_pts = dbl_add
    while k:
        if k & 1:
            res = add_pts(res, pt)
        pt = add_pts(pt, pt)
        k >>= 1
    return res


def make_affine_add(mul, add, sub, inv, zero, three, two):
    def addp(P, Q):
        if P is None:
            return Q
        if Q is None:
            return P
        if P[0] == Q[0]:
            if P[1] != Q[1] or P[1] == zero:
                return None
            lam = mul(mul(three, mul(P[0], P[0])), inv(mul(two, P[1])))
        else:
            lam = mul(sub(Q[1], P[1]), inv(sub(Q[0], P[0])))
        x3 = sub(sub(mul(lam, lam), P[0]), Q[0])
        y3 = sub(mul(lam, sub(P[0], x3)), P[1])
        return (x3, y3)
    return addp


def check_curve(name, c):
    p, r = c["p"], c["r"]
    # G1 over Fp
    m1 = lambda a, b: a * b % p
    a1 = lambda a, b: (a + b) % p
    s1 = lambda a, b: (a - b) % p
    i1 = lambda a: pow(a, p - 2, p)
    assert on_curve(c["g1"], c["b"], m1, a1, p), name + " G1 generator off curve"
    add1 = make_affine_add(m1, a1, s1, i1, 0, 3, 2)
    assert scalar_mul(c["g1"], r, add1) is None, name + " G1 generator order"
    # G2 over Fp2
    m2 = lambda a, b: f2_mul(a, b, p)
    a2 = lambda a, b: f2_add(a, b, p)
    s2 = lambda a, b: ((a[0] - b[0]) % p, (a[1] - b[1]) % p)
    i2 = lambda a: f2_inv(a, p)
    b2 = twist_b(c)
    assert on_curve(c["g2"], b2, m2, a2, p), name + " G2 generator off twist"
    add2 = make_affine_add(m2, a2, s2, i2, (0, 0), (3, 0), (2, 0))
    assert scalar_mul(c["g2"], r, add2) is None, name + " G2 generator order"


def twist_b(c):
    p = c["p"]
    if c["twist"] == "D":
        return f2_mul((c["b"], 0), f2_inv(c["xi"], p), p)
    return f2_mul((c["b"], 0), c["xi"], p)


def two_adicity(r):
    s = 0
    while (r - 1) % (2 ** (s + 1)) == 0:
        s += 1
    return s


# --- C emission ---------------------------------------------------------------
out = []


def emit(s=""):
    out.append(s)


def c_limbs(v, n):
    return "{" + ", ".join("0x%016xULL" % l for l in limbs_of(v, n)) + "}"


def emit_field(prefix, m):
    n = nlimbs(m)
    R = 2 ** (64 * n)
    emit("/* %s: modulus %d bits, %d limbs; R = 2^%d */" % (prefix, m.bit_length(), n, 64 * n))
    emit("#define %s_LIMBS %d" % (prefix.upper(), n))
    emit("#define %s_BITS %d" % (prefix.upper(), m.bit_length()))
    emit("static const uint64_t %s_MODULUS[%d] = %s;" % (prefix, n, c_limbs(m, n)))
    emit("static const uint64_t %s_R[%d] = %s;        /* R mod m (one) */" % (prefix, n, c_limbs(R % m, n)))
    emit("static const uint64_t %s_R2[%d] = %s;       /* R^2 mod m */" % (prefix, n, c_limbs(R * R % m, n)))
    emit("static const uint64_t %s_R3[%d] = %s;       /* R^3 mod m */" % (prefix, n, c_limbs(R**3 % m, n)))
    emit("static const uint64_t %s_MINUS_2[%d] = %s;  /* m - 2, Fermat inverse */" % (prefix, n, c_limbs(m - 2, n)))
    emit("#define %s_INV 0x%016xULL /* -m^-1 mod 2^64 */" % (prefix.upper(), (-pow(m, -1, 2**64)) % 2**64))
    emit()
    return n, R


def emit_field52(prefix, m):
    """A field for src/ff/mont52.h: m in 52-bit limbs, enough of them for
    R = 2^(64 n64), -m^-1 mod 2^52. mont52_mul needs 4m < R (the base
    fields); mont52_mul_wide serves every field."""
    n64 = nlimbs(m)
    n = (64 * n64 + 51) // 52
    limbs = ", ".join("0x%013xULL" % ((m >> (52 * j)) & (2**52 - 1)) for j in range(n))
    emit("/* %s in radix 2^52 (mont52.h): {m, -m^-1 mod 2^52, limbs, 64-bit limbs} */" % prefix)
    emit("#define %s_MONT52 {{%s}, 0x%013xULL, %d, %d}" % (prefix.upper(), limbs, (-pow(m, -1, 2**52)) % 2**52, n, n64))
    emit()


def emit_field29(prefix, m):
    """A field for src/ff/mont29.h (AVX2, four lanes): 2m, 2^(29 n) - 2m and
    2^(29 n) - m in 29-bit limbs (n of them, for R = 2^(64 n64)); and for
    its product (mont29_x86_64.S) m's limbs, -m^-1 mod 2^29 and the masks as
    vectors. A product of a, b < 2m stays below 2m when 4m < R (the base
    fields); of a < 2m by a canonical b < m when 2m < R (the scalar fields,
    whose NTT multiplies by canonical twiddles only)."""
    n64 = nlimbs(m)
    n = (64 * n64 + 28) // 29
    assert 2 * m < 2 ** (64 * n64)

    def limbs29(v):
        return "{" + ", ".join("0x%08x" % ((v >> (29 * j)) & (2**29 - 1)) for j in range(n)) + "}"
    top = 2 ** (29 * n)
    emit("/* %s in radix 2^29 (mont29.h): {2m, 2^(29 n) - 2m, 2^(29 n) - m, limbs, 64-bit limbs, the product's vectors} */" % prefix)
    emit("#define %s_MONT29 {%s, %s, %s, %d, %d, %s_MONT29_VEC}" % (
        prefix.upper(), limbs29(2 * m), limbs29(top - 2 * m), limbs29(top - m), n, n64, prefix))
    last = 64 * n64 - 29 * (n - 1)
    rows = [(m >> (29 * j)) & (2**29 - 1) for j in range(n)] + [(-pow(m, -1, 2**29)) % 2**29, 2**29 - 1, 2**last - 1]
    emit("/* the same as vectors for mont29_x86_64.S: m's limbs, -m^-1 mod 2^29, 2^29 - 1, 2^%d - 1 */" % last)
    emit("static const uint64_t %s_MONT29_VEC[%d][4] __attribute__((aligned(32))) = {%s};" % (
        prefix, len(rows), ", ".join("{" + ", ".join(["0x%08xULL" % v] * 4) + "}" for v in rows)))
    emit()


def mont(v, m):
    return v * 2 ** (64 * nlimbs(m)) % m


def emit_mont(name, v, m, comment=""):
    n = nlimbs(m)
    emit("static const uint64_t %s[%d] = %s;%s" % (name, n, c_limbs(mont(v, m), n),
                                                  " /* " + comment + " */" if comment else ""))


def emit_mont2(name, v, m, comment=""):
    n = nlimbs(m)
    emit("static const uint64_t %s[2][%d] = {%s, %s};%s" % (
        name, n, c_limbs(mont(v[0], m), n), c_limbs(mont(v[1], m), n),
        " /* " + comment + " */" if comment else ""))


def emit_bits(name, v):
    """Big exponent as LE 64-bit words with its bit length."""
    n = nlimbs(v)
    emit("#define %s_BITLEN %d" % (name.upper(), v.bit_length()))
    emit("static const uint64_t %s[%d] = %s;" % (name, n, c_limbs(v, n)))


def main(path):
    emit("/* Generated by tools/gen_constants.py -- do not edit by hand. */")
    emit("#ifndef CUZK_FF_CONSTANTS_H")
    emit("#define CUZK_FF_CONSTANTS_H")
    emit("#include <stdint.h>")
    emit()
    for name, c in CURVES.items():
        check_curve(name, c)
        p, r = c["p"], c["r"]
        emit("/* ===== %s ===== */" % name)
        emit_field(name + "_fp", p)
        emit_field52(name + "_fp", p)
        emit_field29(name + "_fp", p)
        emit_field(name + "_fr", r)
        emit_field52(name + "_fr", r)
        emit_field29(name + "_fr", r)
        s = two_adicity(r)
        w = pow(ROOT_BASE, (r - 1) >> s, r)
        assert pow(w, 2 ** s, r) == 1 and pow(w, 2 ** (s - 1), r) != 1
        emit("#define %s_FR_TWO_ADICITY %d" % (name.upper(), s))
        emit_mont(name + "_fr_root_of_unity", w, r, "5^((r-1)/2^s), order 2^s")
        emit_mont(name + "_fp_b", c["b"], p, "G1: y^2 = x^3 + b")
        emit_mont2(name + "_fp2_twist_b", twist_b(c), p, "G2 twist: y^2 = x^3 + b'")
        emit_mont(name + "_g1_gen_x", c["g1"][0], p)
        emit_mont(name + "_g1_gen_y", c["g1"][1], p)
        emit_mont2(name + "_g2_gen_x", c["g2"][0], p)
        emit_mont2(name + "_g2_gen_y", c["g2"][1], p)
        emit_mont2(name + "_fp2_xi", c["xi"], p, "Fp6 = Fp2[v]/(v^3 - xi)")
        # Frobenius on the twist: pi(x', y') = (conj(x') * gx, conj(y') * gy),
        # gx = xi^((p-1)/3), gy = xi^((p-1)/2)  (D-type; used by BN's optimal ate).
        emit_mont2(name + "_twist_frob_x", f2_pow(c["xi"], (p - 1) // 3, p), p, "xi^((p-1)/3)")
        emit_mont2(name + "_twist_frob_y", f2_pow(c["xi"], (p - 1) // 2, p), p, "xi^((p-1)/2)")
        # Miller loop: BN uses 6x+2, BLS uses |x| (negative x: conjugate result)
        loop = 6 * c["x"] + 2 if name == "bn254" else abs(c["x"])
        emit("#define %s_ATE_LOOP 0x%016xULL" % (name.upper(), loop & (2**64 - 1)))
        emit("#define %s_ATE_LOOP_HI 0x%016xULL" % (name.upper(), loop >> 64))
        emit("#define %s_ATE_LOOP_NEGATIVE %d" % (name.upper(), 1 if c["x"] < 0 else 0))
        # Final exponentiation: f^((p^12-1)/r) = f^((p^6-1)(p^2+1) (p^4-p^2+1)/r),
        # the first two factors by conjugation and the p^2-power Frobenius:
        # (sum a_k w^k)^(p^2) = sum a_k g_k w^k (a_k in Fp2, fixed by it),
        # g_k = w^(k (p^2-1)) = xi^(k (p^2-1)/6) as w^6 = xi, for k = 1..5
        assert (p ** 4 - p ** 2 + 1) % r == 0 and (p ** 2 - 1) % 6 == 0
        emit_bits(name + "_final_exp_hard", (p ** 4 - p ** 2 + 1) // r)
        frob2 = [f2_pow(c["xi"], k * (p ** 2 - 1) // 6, p) for k in range(1, 6)]
        emit("static const uint64_t %s_fp12_frob2[5][2][%d] = {%s}; /* xi^(k (p^2-1)/6), k = 1..5 */" % (
            name, nlimbs(p), ", ".join("{%s, %s}" % (c_limbs(mont(g[0], p), nlimbs(p)), c_limbs(mont(g[1], p), nlimbs(p)))
                                       for g in frob2)))
        # snarkjs (ffjavascript) computes a fixed power of the reduced pairing
        # in its fast final exponentiations; vk_alphabeta_12 must match it.
        # BN: Fuentes-Castaneda et al., exponent 2x(6x^2+3x+1); BLS12: 3.
        k = 2 * c["x"] * (6 * c["x"] ** 2 + 3 * c["x"] + 1) if name == "bn254" else 3
        emit_bits(name + "_snarkjs_gt_exp", k % r)
        emit()
    emit("#endif")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "src/ff/constants.h")
