#!/usr/bin/env python3
"""Writes src/gpu/glv_constants.cuh (the device's) and src/ec/glv_constants.c
(the CPU's): the GLV endomorphism of G1 and the GLS
one of G2 on BN254 and BLS12-381, derived from src/ff/constants.h (moduli,
the G2 generators and twists).

Both curves are y^2 = x^3 + b over Fp with p = 1 mod 3, so Fp has cube roots
of unity beta (beta^3 = 1, beta != 1) and phi(x, y) = (beta x, y) maps the
curve to itself. On the prime-order group G1, phi acts as multiplication by
a cube root of unity lambda in Fr (lambda^2 + lambda + 1 = 0 mod r). The
pairs with phi(G) = lambda G on the generator G are (beta, lambda) and
(beta^2, lambda^2); the one with the larger lambda is kept: for BLS12-381
that is lambda = -z^2, the beta of src/ec/bls12_381_endo.c (z the curve's
parameter). Tests check these facts.

G2 (the twist over Fp2 = Fp[u] / (u^2 + 1)): psi(x, y) = (conj(x) cx,
conj(y) cy), with cx, cy = xi^((p - 1) / 3), xi^((p - 1) / 2) or their
inverses (xi: 9 + u on BN254, 1 + u on BLS12-381; the pair that maps the
generator onto the curve and to (p mod r) G). On BN254 psi itself is used,
lambda = p mod r (6 x^2, 127 bits); on BLS12-381 psi^2 (x, y) = (x nx,
y ny), nx = cx conj(cx), ny = cy conj(cy) in Fp, lambda = (p mod r)^2 =
z^2 (128 bits; psi alone acts as z, 64 bits: too unbalanced for two
halves). Each group's map is written X ex, Y ey on (conjugated, where CONJ)
coordinates.

Decomposition (GLV, Babai rounding): a basis (a1, b1), (a2, b2) of the
lattice {(a, b) : a + b lambda = 0 mod r} of vectors about sqrt(r) long,
from the extended Euclidean algorithm on (r, lambda) stopped at sqrt(r);
det = a1 b2 - a2 b1 = +-r. For k < r:
    c1 = floor(k g1 / 2^256), g1 = floor(2^256 b2 / det)
    c2 = floor(k g2 / 2^256), g2 = floor(2^256 (-b1) / det)
    k1 = k - c1 a1 - c2 a2,  k2 = -c1 b1 - c2 b2
then k1 + k2 lambda = k mod r, and as c1, c2 are each below the exact
quotients by less than 2: |k1| < 2 (|a1| + |a2|), |k2| < 2 (|b1| + |b2|),
both < 2^129 (the vectors' signs chosen so that g1, g2 >= 0). The basis
words are two's complement modulo 2^160 (k1, k2 are found modulo 2^160
and read as signed numbers).

Usage: python3 tools/gen_glv_constants.py src/ff/constants.h src/gpu/glv_constants.cuh src/ec/glv_constants.c
"""
import math
import sys

from constants_h import values

# (name, 32-bit limbs of Fp, xi = xi0 + xi1 u of the twist)
CURVES = [("bn254", 8, (9, 1)), ("bls12_381", 12, (1, 1))]
WORDS = 5  # 160 bits: the basis, c1, c2, k1, k2 (the device's 32-bit words)
C_WORDS = 6  # 192 bits, the CPU's three 64-bit words


def value(text, name):
    return values(text, name)[0]


class F2:
    """Fp2 = Fp[u] / (u^2 + 1); Fp is its b = 0 part"""

    def __init__(self, a, b, p):
        self.a, self.b, self.p = a % p, b % p, p

    def __add__(self, o):
        return F2(self.a + o.a, self.b + o.b, self.p)

    def __sub__(self, o):
        return F2(self.a - o.a, self.b - o.b, self.p)

    def __mul__(self, o):
        if isinstance(o, int):
            return F2(self.a * o, self.b * o, self.p)
        return F2(self.a * o.a - self.b * o.b, self.a * o.b + self.b * o.a, self.p)

    def __eq__(self, o):
        return self.a == o.a and self.b == o.b

    def conj(self):
        return F2(self.a, -self.b, self.p)

    def inv(self):
        n = pow(self.a * self.a + self.b * self.b, -1, self.p)
        return F2(self.a * n, -self.b * n, self.p)

    def pow(self, e):
        r, b = F2(1, 0, self.p), self
        while e:
            if e & 1:
                r = r * b
            b, e = b * b, e >> 1
        return r

    def is_zero(self):
        return self.a == 0 and self.b == 0


def add(P, Q):
    if P is None:
        return Q
    if Q is None:
        return P
    if P[0] == Q[0]:
        if (P[1] + Q[1]).is_zero():
            return None
        s = P[0] * P[0] * 3 * (P[1] * 2).inv()
    else:
        s = (Q[1] - P[1]) * (Q[0] - P[0]).inv()
    x = s * s - P[0] - Q[0]
    return (x, s * (P[0] - x) - P[1])


def mul(k, P):
    R = None
    for bit in bin(k)[2:]:
        R = add(R, R)
        if bit == "1":
            R = add(R, P)
    return R


def cube_roots_of_unity(m):
    """the two roots of x^2 + x + 1 modulo the prime m (m = 1 mod 3)"""
    g = 2
    while pow(g, (m - 1) // 3, m) == 1:
        g += 1
    w = pow(g, (m - 1) // 3, m)
    return [w, w * w % m]


def basis(r, lam):
    rows = [(r, 0), (lam, 1)]  # (remainder, t): remainder = t lambda mod r
    while rows[-1][0]:
        (r0, t0), (r1, t1) = rows[-2], rows[-1]
        q = r0 // r1
        rows.append((r0 - q * r1, t0 - q * t1))
    root = math.isqrt(r)
    last = max(i for i, (ri, _) in enumerate(rows) if ri >= root)
    v1 = (rows[last + 1][0], -rows[last + 1][1])
    v2 = min([(rows[last][0], -rows[last][1]), (rows[last + 2][0], -rows[last + 2][1])],
             key=lambda v: v[0] ** 2 + v[1] ** 2)
    (a1, b1), (a2, b2) = v1, v2
    det = a1 * b2 - a2 * b1
    if b2 * det < 0:  # c1 >= 0 for every k
        a1, b1, det = -a1, -b1, -det
    if -b1 * det < 0:  # c2 >= 0
        a2, b2, det = -a2, -b2, -det
    for a, b in ((a1, b1), (a2, b2)):
        assert (a + b * lam) % r == 0
    assert abs(det) == r
    return a1, b1, a2, b2, det


def limbs(v, n):
    v %= 1 << (32 * n)
    return [(v >> (32 * i)) & 0xFFFFFFFF for i in range(n)]


def table(name, vals, comment):
    return [
        "    /* %s */" % comment,
        "    __host__ __device__ static constexpr uint32_t %s(int i)" % name,
        "    {",
        "        constexpr uint32_t w[%d] = {%s};" % (len(vals), ", ".join("0x%08xu" % v for v in vals)),
        "        return w[i];",
        "    }",
    ]


def group_constants(name, what, lam, r, conj, ex, ey):
    """one group's constants: the map (conj, ex, ey as 32-bit words), lambda and the split's"""
    a1, b1, a2, b2, det = basis(r, lam)
    sign = 1 if det > 0 else -1
    g1 = (1 << 256) * b2 * sign // r
    g2 = (1 << 256) * -b1 * sign // r
    bound = 2 * max(abs(a1) + abs(a2), abs(b1) + abs(b2))  # c1, c2 each off by < 2
    assert bound < 1 << 129 and g1 < 1 << (32 * WORDS) and g2 < 1 << (32 * WORDS)
    return dict(name=name, what=what, lam=lam, conj=conj, ex=ex, ey=ey, det_sign="" if det > 0 else "-",
                basis=[("a1", a1), ("b1", b1), ("a2", a2), ("b2", b2)], g1=g1, g2=g2)


def group_struct(c):
    """the device's struct of one group's constants (32-bit words)"""
    out = ["/* %s: %s; lambda = %#x */" % (c["name"], c["what"], c["lam"]), "struct %s_glv_params {" % c["name"],
           "    static constexpr bool CONJ = %s;    /* the coordinates conjugated first */" % str(c["conj"]).lower(),
           "    static constexpr bool MUL_Y = %s;   /* Y times ey (else Y unchanged) */" % str(c["ey"] is not None).lower()]
    out += table("ex", c["ex"], "ex, the coordinate field's words, Montgomery form")
    if c["ey"] is not None:
        out += table("ey", c["ey"], "ey, likewise")
    out += table("lambda", limbs(c["lam"], 8), "lambda, normal form (Fr)")
    for label, v in c["basis"]:
        out += table(label, limbs(v, WORDS), "%s = %d" % (label, v))
    out += table("g1", limbs(c["g1"], WORDS), "g1 = floor(2^256 b2 / det), det = %sr" % c["det_sign"])
    out += table("g2", limbs(c["g2"], WORDS), "g2 = floor(2^256 (-b1) / det)")
    return out + ["};", ""]


def words64(w32):
    """32-bit words, low first, as 64-bit ones"""
    return [w32[i] | (w32[i + 1] << 32 if i + 1 < len(w32) else 0) for i in range(0, len(w32), 2)]


def c_words(vals):
    return "{%s}" % ", ".join("0x%016xULL" % v for v in vals)


def c_struct(c):
    """the CPU's constants of one group (src/ec/scalar_recode.h's cuzk_glv_params)"""
    out = ["/* %s: %s; lambda = %#x */" % (c["name"], c["what"], c["lam"]),
           "const cuzk_glv_params %s_glv = {" % c["name"],
           "    .conj = %d," % int(c["conj"]),
           "    .mul_y = %d," % int(c["ey"] is not None),
           "    .ex = %s," % c_words(words64(c["ex"]))]
    if c["ey"] is not None:
        out.append("    .ey = %s," % c_words(words64(c["ey"])))
    out.append("    .lambda = %s," % c_words(words64(limbs(c["lam"], 8))))
    for label, v in c["basis"]:
        out.append("    .%s = %s, /* %d */" % (label, c_words(words64(limbs(v, C_WORDS))), v))
    out.append("    .g1 = %s, /* floor(2^256 b2 / det), det = %sr */" % (c_words(words64(limbs(c["g1"], C_WORDS))),
                                                                        c["det_sign"]))
    out.append("    .g2 = %s, /* floor(2^256 (-b1) / det) */" % c_words(words64(limbs(c["g2"], C_WORDS))))
    return out + ["};", ""]


def main():
    text = open(sys.argv[1]).read()
    out = [
        "/* Generated by tools/gen_glv_constants.py from src/ff/constants.h -- do not edit.",
        " * The endomorphisms of G1 (GLV: phi(x, y) = (beta x, y)) and G2 (GLS: psi",
        " * or psi^2) acting as lambda, written X ex, Y ey on the coordinates",
        " * (conjugated where CONJ), and the lattice basis that splits a scalar k",
        " * into k1 + k2 lambda (the script says how;",
        " * tests/unit/test_gpu_scalar_mul_host.cpp checks the facts). */",
        "#ifndef CUZK_GPU_GLV_CONSTANTS_CUH",
        "#define CUZK_GPU_GLV_CONSTANTS_CUH",
        "",
        "#include <cstdint>",
        "",
        "namespace gpu {",
        "",
        "static constexpr int GLV_WORDS = %d; /* 32-bit words of the basis, c1, c2, k1, k2 */" % WORDS,
        "",
    ]
    groups = []
    for name, fp_limbs, xi in CURVES:
        p = value(text, name + "_fp_MODULUS")
        r = value(text, name + "_fr_MODULUS")
        R = 1 << (32 * fp_limbs)
        to_words = lambda x: limbs(x.a * R % p, fp_limbs) + limbs(x.b * R % p, fp_limbs)
        normal = lambda w: (w * pow(R, -1, p)) % p
        gx, gy = value(text, name + "_g1_gen_x"), value(text, name + "_g1_gen_y")
        G = (F2(normal(gx), 0, p), F2(normal(gy), 0, p))
        # G1: beta in Fp (a cube root of unity), the pair with the larger lambda
        assert p % 3 == 1 and r % 3 == 1
        pairs = [(be, lam) for be in cube_roots_of_unity(p) for lam in cube_roots_of_unity(r)
                 if mul(lam, G) == (G[0] * be, G[1])]
        assert len(pairs) == 2  # (beta, lambda) and (beta^2, lambda^2)
        beta, lam = max(pairs, key=lambda bl: bl[1])
        groups.append(group_constants(name + "_g1", "phi(x, y) = (beta x, y), ex = beta", lam, r, False,
                                      limbs(beta * R % p, fp_limbs), None))
        # G2: psi's constants, found on the generator
        hx, hy = values(text, name + "_g2_gen_x"), values(text, name + "_g2_gen_y")
        tb = values(text, name + "_fp2_twist_b")
        H = (F2(normal(hx[0]), normal(hx[1]), p), F2(normal(hy[0]), normal(hy[1]), p))
        b = F2(normal(tb[0]), normal(tb[1]), p)
        on_curve = lambda Q: Q[1] * Q[1] == Q[0] * Q[0] * Q[0] + b
        assert on_curve(H)
        x3, x2 = F2(xi[0], xi[1], p).pow((p - 1) // 3), F2(xi[0], xi[1], p).pow((p - 1) // 2)
        lam_psi = p % r
        psi = [(cx, cy) for cx in (x3, x3.inv()) for cy in (x2, x2.inv())
               if on_curve((H[0].conj() * cx, H[1].conj() * cy))
               and mul(lam_psi, H) == (H[0].conj() * cx, H[1].conj() * cy)]
        assert len(psi) == 1
        cx, cy = psi[0]
        if lam_psi.bit_length() <= 128:
            groups.append(group_constants(name + "_g2", "psi(x, y) = (conj(x) cx, conj(y) cy)", lam_psi, r, True,
                                          to_words(cx), to_words(cy)))
        else:
            nx, ny = cx * cx.conj(), cy * cy.conj()
            lam2 = lam_psi * lam_psi % r
            assert nx.b == 0 and ny.b == 0 and lam2.bit_length() <= 128
            assert mul(lam2, H) == (H[0] * nx, H[1] * ny)
            groups.append(group_constants(name + "_g2", "psi^2(x, y) = (x nx, y ny), nx, ny in Fp", lam2, r,
                                          False, to_words(nx), to_words(ny)))
    for c in groups:
        out += group_struct(c)
    out += ["} /* namespace gpu */", "", "#endif", ""]
    open(sys.argv[2], "w").write("\n".join(out))
    c_out = [
        "/* Generated by tools/gen_glv_constants.py from src/ff/constants.h -- do not edit.",
        " * The CPU's copy of src/gpu/glv_constants.cuh (the same numbers; words of",
        " * 64 bits, the basis modulo 2^192): see src/ec/scalar_recode.h. */",
        '#include "ec/scalar_recode.h"',
        "",
    ]
    for c in groups:
        c_out += c_struct(c)
    open(sys.argv[3], "w").write("\n".join(c_out))


if __name__ == "__main__":
    main()
