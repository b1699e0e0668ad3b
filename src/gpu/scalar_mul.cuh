/* One point times one scalar on the device (the ceremony's scale, combine
 * and point iFFT, ceremony.cu), variable time: the host's rule of constant
 * time is the CPU's; on the device the secret scalars' rule is the wipe.
 *
 * Signed fixed windows: k = sum d_i 2^(5i) with digits d_i in [-16, 16]
 * (recoded from the low end: a window's value w > 16 becomes w - 32 and
 * carries one into the next), so a thread's table holds j P for j = 1..16
 * (only up to the largest |d_i| of its scalar: small scalars build little)
 * and a 256-bit scalar costs 5 doublings and at most one addition per
 * window instead of one doubling and one addition in two per bit.
 *
 * Each group adds an endomorphism e acting as a scalar lambda of about
 * 128 bits (glv_constants.cuh, tools/gen_glv_constants.py): on G1 GLV's
 * phi(x, y) = (beta x, y), on G2 GLS's psi (BN254) or psi^2 (BLS12-381),
 * the Frobenius through the twist. k is split into k1 + k2 lambda with
 * |k1|, |k2| < 2^129 (glv_split, Babai rounding on a short lattice basis),
 * and k P = k1 P + k2 e(P) goes over both halves at once: 130 doublings
 * instead of 256. e of a table entry is one or two products: in XYZZ
 * coordinates (x = X / ZZ, y = Y / ZZZ) e is X ex, Y ey after conjugating
 * all four for psi (conjugation is a field automorphism, so ZZ^3 = ZZZ^2
 * holds). e acts as lambda on the prime-order groups only: BN254's G1 is
 * its whole curve (cofactor 1), but a point on a curve and off the
 * subgroup (G2's twists, BLS12-381's G1; a tampered file: the ceremony's
 * loads check the curve, not the subgroup) gets another product than the
 * CPU's k P; such a file fails verify on either backend.
 *
 * All of it runs on the host too (tests/unit/test_gpu_scalar_mul_host.cpp,
 * the PTX emulated, against src/ec's products). */
#ifndef CUZK_GPU_SCALAR_MUL_CUH
#define CUZK_GPU_SCALAR_MUL_CUH

#include "gpu/ec.cuh"
#include "gpu/glv_constants.cuh"

namespace gpu {

/* WIN_BITS       bits of a window
 * WIN_TABLE      table entries: j P, j = 1 .. 2^(WIN_BITS - 1)
 * GLV_BITS       the halves' bound: |k1|, |k2| < 2^GLV_BITS */
static constexpr int WIN_BITS = 5;
static constexpr int WIN_TABLE = 1 << (WIN_BITS - 1);
static constexpr int GLV_BITS = 129;
static constexpr int DIGITS_256 = (256 + WIN_BITS - 1) / WIN_BITS; /* 52: a carry out of bit 255 fits */
static constexpr int DIGITS_GLV = (GLV_BITS + WIN_BITS - 1) / WIN_BITS; /* 26 */

/* ---- the GLV split (plain integers in 32-bit words) ---- */

/* a group's endomorphism constants, by its coordinate field */
template <class F> struct glv_of;
template <> struct glv_of<bn254_fp_t> {
    using C = bn254_g1_glv_params;
};
template <> struct glv_of<bn254_fp2_t> {
    using C = bn254_g2_glv_params;
};
template <> struct glv_of<bls12_381_fp_t> {
    using C = bls12_381_g1_glv_params;
};
template <> struct glv_of<bls12_381_fp2_t> {
    using C = bls12_381_g2_glv_params;
};

/* the element of F whose 32-bit words are w(0), w(1), ... (an fp2 is c0's
 * words, then c1's) */
template <class F, class W> FF_INLINE F field_from_words(W w)
{
    F r;
    uint32_t *d = reinterpret_cast<uint32_t *>(&r);
    for (int i = 0; i < (int)(sizeof(F) / 4); i++)
        d[i] = w(i);
    return r;
}

template <class P> FF_INLINE fp2<P> conj(const fp2<P> &a) { return {a.c0, a.c1.neg()}; }

/* the endomorphism e of the group with constants C on XYZZ points */
template <class F, class C> struct endo_map {
    F ex, ey;
    static FF_INLINE endo_map make()
    {
        endo_map m;
        m.ex = field_from_words<F>([](int i) { return C::ex(i); });
        if constexpr (C::MUL_Y)
            m.ey = field_from_words<F>([](int i) { return C::ey(i); });
        return m;
    }
    FF_INLINE void apply(xyzz<F> &q) const
    {
        if constexpr (C::CONJ)
            q = {conj(q.x), conj(q.y), conj(q.zz), conj(q.zzz)};
        q.x = q.x * ex;
        if constexpr (C::MUL_Y)
            q.y = q.y * ey;
    }
};

/* floor(k g / 2^256): k of 8 words, g of GLV_WORDS (k < 2^256, g < 2^160:
 * the quotient fits GLV_WORDS words) */
template <class G> FF_INLINE void glv_quotient(const uint32_t (&k)[8], G g, uint32_t (&c)[GLV_WORDS])
{
    uint32_t prod[8 + GLV_WORDS] = {};
    for (int j = 0; j < GLV_WORDS; j++) {
        uint64_t carry = 0;
        for (int i = 0; i < 8; i++) {
            const uint64_t t = (uint64_t)k[i] * g(j) + prod[i + j] + carry;
            prod[i + j] = (uint32_t)t;
            carry = t >> 32;
        }
        prod[8 + j] = (uint32_t)carry;
    }
    for (int j = 0; j < GLV_WORDS; j++)
        c[j] = prod[8 + j];
}

/* acc <- acc - c x mod 2^(32 GLV_WORDS) */
template <class X> FF_INLINE void glv_sub_product(uint32_t (&acc)[GLV_WORDS], const uint32_t (&c)[GLV_WORDS], X x)
{
    uint32_t prod[GLV_WORDS] = {};
    for (int i = 0; i < GLV_WORDS; i++) {
        uint64_t carry = 0;
        for (int j = 0; i + j < GLV_WORDS; j++) {
            const uint64_t t = (uint64_t)c[i] * x(j) + prod[i + j] + carry;
            prod[i + j] = (uint32_t)t;
            carry = t >> 32;
        }
    }
    uint64_t borrow = 0;
    for (int i = 0; i < GLV_WORDS; i++) {
        const uint64_t t = (uint64_t)acc[i] - prod[i] - borrow;
        acc[i] = (uint32_t)t;
        borrow = (t >> 32) & 1;
    }
}

/* v (two's complement, GLV_WORDS words) -> its magnitude; true if negative */
FF_INLINE bool glv_abs(uint32_t (&v)[GLV_WORDS])
{
    const bool neg = v[GLV_WORDS - 1] >> 31;
    if (neg) {
        uint64_t carry = 1;
        for (int i = 0; i < GLV_WORDS; i++) {
            const uint64_t t = (uint64_t)(uint32_t)~v[i] + carry;
            v[i] = (uint32_t)t;
            carry = t >> 32;
        }
    }
    return neg;
}

/* The split of k (normal form, < r) for the group with constants C:
 * k = s1 m1 + s2 m2 lambda mod r, s = -1 where neg is set, m1, m2 the
 * magnitudes (GLV_WORDS words each). False if a magnitude reaches
 * 2^GLV_BITS, which the basis rules out (the caller then multiplies by k
 * itself). c1 = floor(k g1 / 2^256), c2 = floor(k g2 / 2^256),
 * k1 = k - c1 a1 - c2 a2, k2 = -c1 b1 - c2 b2, all mod 2^160. */
template <class C>
FF_INLINE bool glv_split(const uint32_t (&k)[8], uint32_t (&m1)[GLV_WORDS], bool &neg1, uint32_t (&m2)[GLV_WORDS],
                         bool &neg2)
{
    uint32_t c1[GLV_WORDS], c2[GLV_WORDS];
    glv_quotient(k, [](int i) { return C::g1(i); }, c1);
    glv_quotient(k, [](int i) { return C::g2(i); }, c2);
    for (int i = 0; i < GLV_WORDS; i++) {
        m1[i] = k[i];
        m2[i] = 0;
    }
    glv_sub_product(m1, c1, [](int i) { return C::a1(i); });
    glv_sub_product(m1, c2, [](int i) { return C::a2(i); });
    glv_sub_product(m2, c1, [](int i) { return C::b1(i); });
    glv_sub_product(m2, c2, [](int i) { return C::b2(i); });
    neg1 = glv_abs(m1);
    neg2 = glv_abs(m2);
    const int top = GLV_BITS / 32, bit = GLV_BITS % 32; /* bits GLV_BITS and up must be clear */
    bool fits = (m1[top] >> bit) == 0 && (m2[top] >> bit) == 0;
    for (int i = top + 1; i < GLV_WORDS; i++)
        fits = fits && m1[i] == 0 && m2[i] == 0;
    return fits;
}

/* ---- signed windows ---- */

/* d[0..count) <- the signed digits of the `words`-word k (see the top);
 * returns the number of digits up to the top non-zero one (0 for k = 0)
 * and *most the largest |d_i|. count windows must hold k plus a carry. */
FF_INLINE int recode_signed(const uint32_t *k, int words, int8_t *d, int count, int *most)
{
    int carry = 0, used = 0;
    *most = 0;
    for (int i = 0; i < count; i++) {
        const int pos = i * WIN_BITS, w = pos / 32, s = pos % 32;
        uint32_t win = w < words ? k[w] >> s : 0;
        if (s > 32 - WIN_BITS && w + 1 < words)
            win |= k[w + 1] << (32 - s);
        int v = (int)(win & ((1u << WIN_BITS) - 1)) + carry;
        carry = v > WIN_TABLE;
        if (carry)
            v -= 1 << WIN_BITS;
        d[i] = (int8_t)v;
        if (v) {
            used = i + 1;
            const int a = v < 0 ? -v : v;
            *most = a > *most ? a : *most;
        }
    }
    return used;
}

/* the point forms a multiplication starts from: affine (mixed additions)
 * or XYZZ (the FFT's points) */
template <class F> FF_INLINE void add_point(xyzz<F> &acc, const affine<F> &p) { xyzz_add_affine(acc, p); }
template <class F> FF_INLINE void add_point(xyzz<F> &acc, const xyzz<F> &p) { xyzz_add_to(&acc, &p); }
template <class F> FF_INLINE xyzz<F> as_xyzz(const affine<F> &p) { return {p.x, p.y, F::one(), F::one()}; }
template <class F> FF_INLINE xyzz<F> as_xyzz(const xyzz<F> &p) { return p; }

/* t[j - 1] <- j p for j = 1 .. most (p not infinity; p in a group of
 * large prime order, so no j p is infinity) */
template <class F, class P> FF_INLINE void window_table(xyzz<F> (&t)[WIN_TABLE], const P &p, int most)
{
    t[0] = as_xyzz<F>(p);
#pragma unroll 1
    for (int j = 1; j < most; j++) {
        t[j] = t[j - 1];
        add_point(t[j], p);
    }
}

/* acc <- acc + d t[|d| - 1], negated where neg, the endomorphism applied
 * where e is given */
template <class F, class E>
FF_INLINE void add_digit(xyzz<F> &acc, const xyzz<F> (&t)[WIN_TABLE], int d, bool neg, const E *e)
{
    if (d == 0)
        return;
    xyzz<F> q = t[(d < 0 ? -d : d) - 1];
    if ((d < 0) != neg)
        q.y = q.y.neg();
    if (e)
        e->apply(q);
    xyzz_add_to(&acc, &q);
}

template <class F> FF_INLINE void dbl_window(xyzz<F> &acc)
{
    if (acc.is_inf())
        return;
#pragma unroll 1
    for (int b = 0; b < WIN_BITS; b++)
        xyzz_dbl_to(&acc);
}

/* k p by signed windows over k's 256 bits, in the caller's table t and
 * digits d (one frame's worth of local memory for both paths) */
template <class F, class P>
FF_INLINE xyzz<F> mul_windowed(xyzz<F> (&t)[WIN_TABLE], int8_t (&d)[DIGITS_256], const P &p, const uint32_t (&k)[8])
{
    int most;
    const int used = recode_signed(k, 8, d, DIGITS_256, &most);
    xyzz<F> acc = xyzz<F>::inf();
    if (!used)
        return acc;
    window_table<F>(t, p, most);
#pragma unroll 1
    for (int i = used - 1; i >= 0; i--) {
        dbl_window(acc);
        add_digit<F, endo_map<F, typename glv_of<F>::C>>(acc, t, d[i], false, nullptr);
    }
    return acc;
}

/* k p = s1 m1 p + s2 m2 e(p) by signed windows over both halves (k p by
 * windows over k itself should the split fail, which its bound rules out) */
template <class F, class P> FF_INLINE xyzz<F> mul_glv(const P &p, const uint32_t (&k)[8])
{
    using C = typename glv_of<F>::C;
    xyzz<F> t[WIN_TABLE];
    int8_t d[DIGITS_256];
    static_assert(2 * DIGITS_GLV <= DIGITS_256, "both halves' digits in d");
    uint32_t m1[GLV_WORDS], m2[GLV_WORDS];
    bool neg1, neg2;
    if (!glv_split<C>(k, m1, neg1, m2, neg2))
        return mul_windowed<F>(t, d, p, k);
    int8_t *d1 = d, *d2 = d + DIGITS_GLV;
    int most1, most2;
    const int used1 = recode_signed(m1, GLV_WORDS, d1, DIGITS_GLV, &most1);
    const int used2 = recode_signed(m2, GLV_WORDS, d2, DIGITS_GLV, &most2);
    const int used = used1 > used2 ? used1 : used2;
    xyzz<F> acc = xyzz<F>::inf();
    if (!used)
        return acc;
    window_table<F>(t, p, most1 > most2 ? most1 : most2);
    const endo_map<F, C> e = endo_map<F, C>::make();
#pragma unroll 1
    for (int i = used - 1; i >= 0; i--) {
        dbl_window(acc);
        add_digit<F>(acc, t, d1[i], neg1, (const endo_map<F, C> *)nullptr); /* digits above a half's top are 0 */
        add_digit<F>(acc, t, d2[i], neg2, &e);
    }
    return acc;
}

/* k p, k as 8 little-endian 32-bit words in normal form, k < r;
 * infinity p gives infinity */
template <class F, class P> FF_INLINE xyzz<F> mul_scalar(const P &p, const uint32_t (&k)[8])
{
    if (p.is_inf())
        return xyzz<F>::inf();
    return mul_glv<F>(p, k);
}

} /* namespace gpu */

#endif
