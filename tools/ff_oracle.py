#!/usr/bin/env python3
"""Independent big-integer oracle for cuzk's fields, towers and curves.

Writes test vectors, one per line, for tests/unit/test_ff.c and test_ec.c.
Everything is computed with Python integers by the most direct method:
moduli derived from the curve parameter x, extension-field products by
schoolbook polynomial multiplication (Fp12 as Fp2[w]/(w^6 - xi), not as a
tower), extension-field inverses by solving a linear system over Fp, points
by affine chord-and-tangent.  Nothing here shares code with src/ or with
tools/gen_constants.py; published constants are typed in independently.

    python3 tools/ff_oracle.py --seed S --count N [--only ff|ec]

Output: deterministic for a seed.  All numbers are lowercase hex without
"0x", in normal (not Montgomery) form.  Lines ("#" starts a comment):

  MOD  field m
  ROOT field s w                      r - 1 = 2^s t, t odd; w = 5^t (order 2^s)
  F    field a b a+b a-b -a 2a a*b a^2 a^-1 e a^e a*R
  F2   curve a[2] b[2] a+b[2] a-b[2] -a[2] conj(a)[2] a*b[2] a^2[2] a^-1[2]
            a*xi[2] e a^e[2]
  F6   curve a[6] b[6] a+b[6] a-b[6] -a[6] a*b[6] a*v[6] a^-1[6]
  F12  curve a[12] b[12] a*b[12] a^2[12] a^-1[12] conj(a)[12] e a^e[12]
  CYC  curve f[12] e=p^6-1 f^e[12]
  GEN  group x y
  ORDER group r
  CURVEB group b                      y^2 = x^3 + b (G2: b' of the sextic twist)
  G    group k x y                    k*G (infinity: all coordinates 0)
  GAB  group a b c                    c = a*b mod r
  OFF  group x y                      not on the curve
  PT   group s x y                    on the curve; s = 1 iff r*P = infinity
  END  n                              n = number of lines before this one

Extension elements are flattened in the C struct order: Fp2 (c0, c1) with
u^2 = -1; Fp6 (c0, c1, c2) over Fp2 with v^3 = xi; Fp12 (c0, c1) over Fp6
with w^2 = v.  For G2 groups each coordinate is two numbers (c0, c1).
Inverse of zero is zero everywhere (the library's convention).
"""
import argparse
import random
import sys

# --- curves from their defining parameter -----------------------------------


def bn_curve(x):
    p = 36 * x**4 + 36 * x**3 + 24 * x**2 + 6 * x + 1
    r = 36 * x**4 + 36 * x**3 + 18 * x**2 + 6 * x + 1
    return p, r


def bls_curve(x):
    r = x**4 - x**2 + 1
    p = (x - 1) ** 2 * r // 3 + x
    return p, r


BN_P, BN_R = bn_curve(4965661367192848881)
BLS_X = -0xD201000000010000
BLS_P, BLS_R = bls_curve(BLS_X)

# Published values, checked against the derivation above.
assert BN_P == 21888242871839275222246405745257275088696311157297823662689037894645226208583
assert BN_R == 21888242871839275222246405745257275088548364400416034343698204186575808495617
assert BLS_P == int("1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f624"
                    "1eabfffeb153ffffb9feffffffffaaab", 16)
assert BLS_R == 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001

FIELDS = [("bn254_fp", BN_P), ("bn254_fr", BN_R), ("bls12_381_fp", BLS_P), ("bls12_381_fr", BLS_R)]

CURVES = {
    # xi defines Fp6 = Fp2[v]/(v^3 - xi); b the G1 curve y^2 = x^3 + b.
    "bn254": dict(p=BN_P, r=BN_R, xi=(9, 1), b=3),
    "bls12_381": dict(p=BLS_P, r=BLS_R, xi=(1, 1), b=4),
}

# Generators as published (EIP-196/197 for BN254; the BLS12-381 standard).
GENERATORS = {
    "bn254_g1": (1, 2),
    "bn254_g2": ((10857046999023057135944570762232829481370756359578518086990519993285655852781,
                  11559732032986387107991004021392285783925812861821192530917403151452391805634),
                 (8495653923123431417604973247489272438418190587263600148770280649306958101930,
                  4082367875863433681332203403145435568316851327593401208105741076214120093531)),
    "bls12_381_g1": (
        int("17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac58"
            "6c55e83ff97a1aeffb3af00adb22c6bb", 16),
        int("08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3ed"
            "d03cc744a2888ae40caa232946c5e7e1", 16)),
    "bls12_381_g2": (
        (int("024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d177"
             "0bac0326a805bbefd48056c8c121bdb8", 16),
         int("13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049"
             "334cf11213945d57e5ac7d055d042b7e", 16)),
        (int("0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c"
             "923ac9cc3baca289e193548608b82801", 16),
         int("0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab"
             "3f370d275cec1da1aaa9075ff05f79be", 16))),
}


def nlimbs(m):
    return (m.bit_length() + 63) // 64


def hx(v):
    return "%x" % v


# --- Fp2 = Fp[u]/(u^2 + 1) ---------------------------------------------------


class Fp2:
    def __init__(self, p):
        self.p = p
        self.zero, self.one = (0, 0), (1, 0)

    def add(self, a, b):
        return ((a[0] + b[0]) % self.p, (a[1] + b[1]) % self.p)

    def sub(self, a, b):
        return ((a[0] - b[0]) % self.p, (a[1] - b[1]) % self.p)

    def neg(self, a):
        return (-a[0] % self.p, -a[1] % self.p)

    def mul(self, a, b):
        return ((a[0] * b[0] - a[1] * b[1]) % self.p, (a[0] * b[1] + a[1] * b[0]) % self.p)

    def inv(self, a):
        n = (a[0] * a[0] + a[1] * a[1]) % self.p
        if n == 0:
            return (0, 0)
        ni = pow(n, -1, self.p)
        return (a[0] * ni % self.p, -a[1] * ni % self.p)

    def flat(self, a):
        return list(a)

    def unflat(self, v):
        return (v[0], v[1])


# --- Fp6 and Fp12 as polynomials over Fp2 -------------------------------------
# Fp6 = Fp2[v]/(v^3 - xi).  Fp12 = Fp6[w]/(w^2 - v) is the same field as
# Fp2[w]/(w^6 - xi): c0 + c1 w with ci = ci0 + ci1 v + ci2 v^2 is
# sum_k d_k w^k with d_{2j} = c0j, d_{2j+1} = c1j.  Products are schoolbook
# in that power basis; inverses solve the linear system a*x = 1 over Fp.


def poly_mulmod(f2, a, b, d, xi):
    """a, b: coefficient lists over Fp2 of length d; product mod X^d - xi."""
    prod = [f2.zero] * (2 * d - 1)
    for i in range(d):
        for j in range(d):
            prod[i + j] = f2.add(prod[i + j], f2.mul(a[i], b[j]))
    for k in range(2 * d - 2, d - 1, -1):
        prod[k - d] = f2.add(prod[k - d], f2.mul(xi, prod[k]))
    return prod[:d]


def solve_mod(mat, rhs, p):
    """Gaussian elimination over Fp; None when singular."""
    n = len(rhs)
    a = [row[:] + [rhs[i]] for i, row in enumerate(mat)]
    for col in range(n):
        piv = next((i for i in range(col, n) if a[i][col] % p), None)
        if piv is None:
            return None
        a[col], a[piv] = a[piv], a[col]
        iv = pow(a[col][col], -1, p)
        a[col] = [x * iv % p for x in a[col]]
        for i in range(n):
            if i != col and a[i][col]:
                f = a[i][col]
                a[i] = [(x - f * y) % p for x, y in zip(a[i], a[col])]
    return [a[i][n] for i in range(n)]


class PolyExt:
    """Fp2[X]/(X^d - xi) with an ordering map to the C struct layout."""

    def __init__(self, p, xi, d, order):
        self.f2 = Fp2(p)
        self.p, self.xi, self.d = p, xi, d
        self.order = order  # order[k] = index of struct Fp2 slot holding X^k
        self.zero = [self.f2.zero] * d
        self.one = [self.f2.one] + [self.f2.zero] * (d - 1)

    def add(self, a, b):
        return [self.f2.add(x, y) for x, y in zip(a, b)]

    def sub(self, a, b):
        return [self.f2.sub(x, y) for x, y in zip(a, b)]

    def neg(self, a):
        return [self.f2.neg(x) for x in a]

    def mul(self, a, b):
        return poly_mulmod(self.f2, a, b, self.d, self.xi)

    def to_vec(self, a):
        return [c for x in a for c in x]

    def from_vec(self, v):
        return [(v[2 * k], v[2 * k + 1]) for k in range(self.d)]

    def inv(self, a):
        dim = 2 * self.d
        cols = []
        for j in range(dim):
            e = [0] * dim
            e[j] = 1
            cols.append(self.to_vec(self.mul(a, self.from_vec(e))))
        mat = [[cols[j][i] for j in range(dim)] for i in range(dim)]
        x = solve_mod(mat, self.to_vec(self.one), self.p)
        return self.zero if x is None else self.from_vec(x)

    def flat(self, a):
        slots = [None] * self.d
        for k in range(self.d):
            slots[self.order[k]] = a[k]
        return [c for s in slots for c in s]

    def unflat(self, v):
        slots = [(v[2 * s], v[2 * s + 1]) for s in range(self.d)]
        return [slots[self.order[k]] for k in range(self.d)]


def fp6_of(c):
    return PolyExt(c["p"], c["xi"], 3, [0, 1, 2])


def fp12_of(c):
    # struct slots: c0.c0 c0.c1 c0.c2 c1.c0 c1.c1 c1.c2 = w^0 w^2 w^4 w^1 w^3 w^5
    return PolyExt(c["p"], c["xi"], 6, [0, 3, 1, 4, 2, 5])


def ext_pow(F, a, e):
    res = F.one
    for bit in bin(e)[2:]:
        res = F.mul(res, res)
        if bit == "1":
            res = F.mul(res, a)
    return res


# --- random values -------------------------------------------------------------


def rand_below(rng, m):
    while True:
        v = rng.getrandbits(m.bit_length())
        if v < m:
            return v


def rand_structured(rng, m):
    """Limbs each 0, all ones or random; top limb kept below m's."""
    n = nlimbs(m)
    v = 0
    for i in range(n):
        kind = rng.getrandbits(2)
        limb = 0 if kind == 0 else (2**64 - 1 if kind == 1 else rng.getrandbits(64))
        v |= limb << (64 * i)
    if v >= m:
        top = m >> (64 * (n - 1))
        v = (v & (2 ** (64 * (n - 1)) - 1)) | (rand_below(rng, top) << (64 * (n - 1)))
    return v


def rand_elem(rng, m):
    return rand_structured(rng, m) if rng.getrandbits(2) == 0 else rand_below(rng, m)


def edge_values(m):
    n = nlimbs(m)
    low = 2 ** (64 * (n - 1)) - 1
    top = m >> (64 * (n - 1))
    R = 2 ** (64 * n)
    vals = [0, 1, 2, m - 1, m - 2, (m - 1) // 2, (m + 1) // 2, 2**64 - 1, 2**128 - 1,
            low, ((top - 1) << (64 * (n - 1))) | low, (top << (64 * (n - 1))) - 1,
            2 ** (m.bit_length() - 1), R % m, R * R % m, pow(R, -1, m), m - (R % m)]
    out = []
    for v in vals:
        assert 0 <= v < m
        if v not in out:
            out.append(v)
    return out


def rand_exponent(rng, m):
    kind = rng.getrandbits(3)
    if kind == 0:
        return rng.choice([0, 1, 2, 3, m - 1, m - 2, (m - 1) // 2])
    if kind == 1:
        return rng.getrandbits(64)
    return rng.getrandbits(rng.randint(1, m.bit_length()))


# --- prime-field vectors ---------------------------------------------------------


def field_lines(rng, count, emit):
    for name, m in FIELDS:
        emit("MOD", name, hx(m))
        if name.endswith("_fr"):  # NTT domain: 5 generates Fr* for both curves
            s = 0
            while (m - 1) % 2 ** (s + 1) == 0:
                s += 1
            w = pow(5, (m - 1) >> s, m)
            assert pow(w, 2 ** (s - 1), m) == m - 1
            emit("ROOT", name, str(s), hx(w))
        R = 2 ** (64 * nlimbs(m))
        edges = edge_values(m)
        pairs = [(a, b) for a in edges for b in edges]
        pairs += [(rand_elem(rng, m), rand_elem(rng, m)) for _ in range(count)]
        pairs += [(a, a) for a, _ in pairs[-max(1, count // 8):]]
        for a, b in pairs:
            e = rand_exponent(rng, m)
            inv = pow(a, -1, m) if a else 0
            emit("F", name, *map(hx, [a, b, (a + b) % m, (a - b) % m, -a % m, 2 * a % m, a * b % m,
                                      a * a % m, inv, e, pow(a, e, m), a * R % m]))


# --- tower vectors ---------------------------------------------------------------


def rand_fp_for_tower(rng, p, edges):
    return rng.choice(edges) if rng.getrandbits(2) == 0 else rand_elem(rng, p)


def rand_ext(rng, p, edges, ncoeff):
    kind = rng.getrandbits(3)
    if kind == 0:  # sparse: some Fp coefficients zero
        return [rand_elem(rng, p) if rng.getrandbits(1) else 0 for _ in range(ncoeff)]
    return [rand_fp_for_tower(rng, p, edges) for _ in range(ncoeff)]


def tower_lines(rng, count, emit):
    for cname, c in CURVES.items():
        p = c["p"]
        f2 = Fp2(p)
        f6 = fp6_of(c)
        f12 = fp12_of(c)
        edges = edge_values(p)
        # w^6 - xi is irreducible over Fp2 iff xi is neither a square nor a cube
        assert ext_pow(f2, c["xi"], (p * p - 1) // 2) != f2.one
        assert ext_pow(f2, c["xi"], (p * p - 1) // 3) != f2.one
        fixed2 = [[0, 0], [1, 0], [0, 1], [p - 1, 0], [0, p - 1], [p - 1, p - 1], list(c["xi"])]
        cases2 = [(a, b) for a in fixed2 for b in fixed2]
        cases2 += [(rand_ext(rng, p, edges, 2), rand_ext(rng, p, edges, 2)) for _ in range(count)]
        for av, bv in cases2:
            a, b = f2.unflat(av), f2.unflat(bv)
            e = rand_exponent(rng, p)
            # a^-1 solves [[a0, -a1], [a1, a0]] x = (1, 0); the norm formula cross-checks it
            ai = solve_mod([[a[0], -a[1] % p], [a[1], a[0]]], [1, 0], p)
            ai = f2.zero if ai is None else tuple(ai)
            assert ai == f2.inv(a)
            res = [f2.add(a, b), f2.sub(a, b), f2.neg(a), (a[0], -a[1] % p), f2.mul(a, b),
                   f2.mul(a, a), ai, f2.mul(a, c["xi"])]
            emit("F2", cname, *map(hx, av + bv + [x for r in res for x in r] + [e]
                                   + list(ext_pow(f2, a, e))))

        def ext_cases(n):
            zero, one = [0] * n, [1] + [0] * (n - 1)
            out = [(zero, one), (one, zero), (one, one)]
            out += [(rand_ext(rng, p, edges, n), rand_ext(rng, p, edges, n)) for _ in range(count)]
            return out

        for av, bv in ext_cases(6):
            a, b = f6.unflat(av), f6.unflat(bv)
            v = [f2.zero, f2.one, f2.zero]
            res = [f6.add(a, b), f6.sub(a, b), f6.neg(a), f6.mul(a, b), f6.mul(a, v), f6.inv(a)]
            assert not any(av) or f6.mul(a, res[5]) == f6.one
            emit("F6", cname, *map(hx, av + bv + [x for r in res for x in f6.flat(r)]))

        for av, bv in ext_cases(12)[: max(4, count // 2)]:
            a, b = f12.unflat(av), f12.unflat(bv)
            e = rng.getrandbits(rng.randint(1, 128))
            conj = f12.unflat(av[:6] + [-x % p for x in av[6:]])
            res = [f12.mul(a, b), f12.mul(a, a), f12.inv(a), conj, ext_pow(f12, a, e)]
            assert not any(av) or f12.mul(a, res[2]) == f12.one
            emit("F12", cname, *map(hx, av + bv + [x for r in res[:4] for x in f12.flat(r)] + [e]
                                    + f12.flat(res[4])))

        e = p**6 - 1
        for _ in range(2):
            fv = rand_ext(rng, p, edges, 12)
            if not any(fv):
                fv[0] = 1
            g = ext_pow(f12, f12.unflat(fv), e)
            emit("CYC", cname, *map(hx, fv + [e] + f12.flat(g)))


# --- curve vectors ---------------------------------------------------------------


class Fp1:
    def __init__(self, p):
        self.p = p
        self.zero, self.one = 0, 1

    def add(self, a, b):
        return (a + b) % self.p

    def sub(self, a, b):
        return (a - b) % self.p

    def neg(self, a):
        return -a % self.p

    def mul(self, a, b):
        return a * b % self.p

    def inv(self, a):
        return pow(a, -1, self.p) if a else 0

    def flat(self, a):
        return [a]


class Curve:
    """y^2 = x^3 + b over F, affine; None is the point at infinity."""

    def __init__(self, F, b, r):
        self.F, self.b, self.r = F, b, r

    def on_curve(self, P):
        F = self.F
        x, y = P
        return F.mul(y, y) == F.add(F.mul(F.mul(x, x), x), self.b)

    def add(self, P, Q):
        F = self.F
        if P is None:
            return Q
        if Q is None:
            return P
        if P[0] == Q[0]:
            if P[1] != Q[1] or P[1] == F.zero:
                return None
            x2 = F.mul(P[0], P[0])
            lam = F.mul(F.add(F.add(x2, x2), x2), F.inv(F.add(P[1], P[1])))
        else:
            lam = F.mul(F.sub(Q[1], P[1]), F.inv(F.sub(Q[0], P[0])))
        x3 = F.sub(F.sub(F.mul(lam, lam), P[0]), Q[0])
        return (x3, F.sub(F.mul(lam, F.sub(P[0], x3)), P[1]))

    def mul(self, P, k):
        acc = None
        while k:
            if k & 1:
                acc = self.add(acc, P)
            P = self.add(P, P)
            k >>= 1
        return acc

    def flat(self, P):
        if P is None:
            return [0] * (2 * len(self.F.flat(self.F.zero)))
        return self.F.flat(P[0]) + self.F.flat(P[1])


def sqrt_fp(a, p):
    """p = 3 mod 4: a^((p+1)/4), or None when a is not a square."""
    s = pow(a, (p + 1) // 4, p)
    return s if s * s % p == a % p else None


def sqrt_fp2(f2, a):
    """Square root in Fp2 (p = 3 mod 4) via the norm: None when none exists."""
    p = f2.p
    if a == f2.zero:
        return f2.zero
    n = (a[0] * a[0] + a[1] * a[1]) % p
    s = sqrt_fp(n, p)
    if s is None:
        return None
    for t in (s, -s % p):
        x0sq = (a[0] + t) * pow(2, -1, p) % p
        x0 = sqrt_fp(x0sq, p)
        if x0 is None or x0 == 0:
            continue
        x1 = a[1] * pow(2 * x0, -1, p) % p
        if f2.mul((x0, x1), (x0, x1)) == a:
            return (x0, x1)
    return None


def curve_groups():
    out = {}
    for cname, c in CURVES.items():
        p, r = c["p"], c["r"]
        f1, f2 = Fp1(p), Fp2(p)
        if cname == "bn254":  # D-type sextic twist: b' = b / xi
            b2 = f2.mul((c["b"], 0), f2.inv(c["xi"]))
            cof1 = 1
        else:  # M-type: b' = b * xi; G1 cofactor (x-1)^2/3
            b2 = f2.mul((c["b"], 0), c["xi"])
            cof1 = (BLS_X - 1) ** 2 // 3
        out[cname + "_g1"] = (Curve(f1, c["b"], r), cof1)
        out[cname + "_g2"] = (Curve(f2, b2, r), None)
    return out


def random_fe(rng, F):
    if isinstance(F, Fp2):
        return (rand_below(rng, F.p), rand_below(rng, F.p))
    return rand_below(rng, F.p)


def random_curve_point(rng, E):
    F = E.F
    while True:
        x = random_fe(rng, F)
        rhs = F.add(F.mul(F.mul(x, x), x), E.b)
        y = sqrt_fp2(F, rhs) if isinstance(F, Fp2) else sqrt_fp(rhs, F.p)
        if y is not None and y != F.zero:
            P = (x, y)
            assert E.on_curve(P)
            return P


def ec_lines(rng, count, emit):
    for gname, (E, cof1) in curve_groups().items():
        G = GENERATORS[gname]
        assert E.on_curve(G), gname + " published generator is off the curve"
        assert E.mul(G, E.r) is None, gname + " published generator order"
        emit("GEN", gname, *map(hx, E.flat(G)))
        emit("ORDER", gname, hx(E.r))
        emit("CURVEB", gname, *map(hx, E.F.flat(E.b)))
        r = E.r
        ks = [0, 1, 2, 3, 4, r - 1, r - 2, r, r + 1, 2**64 - 1, 2**64, 2 ** r.bit_length() - 1]
        ks += [rand_below(rng, r) for _ in range(count)]
        ks += [rng.getrandbits(rng.randint(1, 64)) for _ in range(max(1, count // 4))]
        for k in ks:
            emit("G", gname, hx(k), *map(hx, E.flat(E.mul(G, k))))
        for _ in range(max(2, count // 2)):
            a, b = rand_below(rng, r), rand_below(rng, r)
            emit("GAB", gname, hx(a), hx(b), hx(a * b % r))
        # off the curve: G with y + 1, G with x + 1, and a random pair
        F = E.F
        offs = [(G[0], F.add(G[1], F.one)), (F.add(G[0], F.one), G[1])]
        while len(offs) < 3:
            P = tuple(random_fe(rng, F) for _ in range(2))
            if not E.on_curve(P):
                offs.append(P)
        for P in offs:
            assert not E.on_curve(P)
            emit("OFF", gname, *map(hx, E.flat(P)))
        # on the curve, in or out of the r-torsion
        for _ in range(2):
            P = random_curve_point(rng, E)
            s = 1 if E.mul(P, r) is None else 0
            emit("PT", gname, str(s), *map(hx, E.flat(P)))
            if cof1 is not None and cof1 != 1:
                Q = E.mul(P, cof1)
                assert E.mul(Q, r) is None
                emit("PT", gname, "1", *map(hx, E.flat(Q)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=64)
    ap.add_argument("--only", choices=["all", "ff", "ec"], default="all")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    n = 0
    out = sys.stdout

    def emit(*tok):
        nonlocal n
        out.write(" ".join(tok) + "\n")
        n += 1

    emit("#", "ff_oracle", "seed", str(args.seed), "count", str(args.count))
    if args.only in ("all", "ff"):
        field_lines(random.Random(rng.getrandbits(64)), args.count, emit)
        tower_lines(random.Random(rng.getrandbits(64)), max(4, args.count // 4), emit)
    else:
        rng.getrandbits(64), rng.getrandbits(64)
    if args.only in ("all", "ec"):
        ec_lines(random.Random(rng.getrandbits(64)), max(4, args.count // 4), emit)
    out.write("END %d\n" % n)


if __name__ == "__main__":
    main()
