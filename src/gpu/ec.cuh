/* Device points of y^2 = x^3 + b (a = 0) over a coordinate field F (fp or
 * fp2 of ff.cuh): G1 and G2 of both curves.
 *
 * affine<F>: (x, y) with the CPU layout of G_affine (src/ec/ec.inc); all-zero
 *   bytes are infinity, as in the zkey ((0, 0) is on neither curve, b != 0).
 * xyzz<F>: extended Jacobian (X, Y, ZZ, ZZZ) for (X/ZZ, Y/ZZZ), with
 *   ZZ^3 = ZZZ^2; ZZ = 0 is infinity, and all-zero bytes are infinity, so a
 *   memset bucket array starts empty. Formulas: hyperelliptic.org EFD,
 *   "g1p/auto/shortw/xyzz" (madd-2008-s, add-2008-s, dbl-2008-s-1,
 *   mdbl-2008-s-1), each beside the code.
 * jacobian<F>: (X, Y, Z) for (X/Z^2, Y/Z^3), for chains of doublings only
 *   ("g1p/auto/shortw/jacobian-0", dbl-2009-l).
 *
 * Code size is compile time here (a 381-bit multiplication is ~700
 * instructions, unrolled): only the MSM's hot loop inlines an addition
 * (xyzz_add_affine, accumulator in registers), and a table build its
 * doubling (jacobian_dbl); XYZZ doublings and the
 * XYZZ + XYZZ additions of the shorter passes are out-of-line functions on
 * operands in memory. A rare path of the hot loop calls out by value: a
 * pointer to the accumulator would pin it to local memory. */
#ifndef CUZK_GPU_EC_CUH
#define CUZK_GPU_EC_CUH

#include "gpu/ff.cuh"

namespace gpu {

template <class F> struct alignas(16) affine {
    F x, y;
    FF_INLINE bool is_inf() const { return x.is_zero() && y.is_zero(); }
};

template <class F> struct alignas(16) xyzz {
    F x, y, zz, zzz;
    static FF_INLINE xyzz inf() { return {F::zero(), F::zero(), F::zero(), F::zero()}; }
    FF_INLINE bool is_inf() const { return zz.is_zero(); }
};

/* mdbl-2008-s-1 (Z = 1): U = 2Y, V = U^2, W = U V, S = X V, M = 3 X^2,
 * X3 = M^2 - 2S, Y3 = M (S - X3) - W Y, ZZ3 = V, ZZZ3 = W.
 * Out of line, by value: the rare doubling inside the hot loop's addition. */
template <class F> __device__ __noinline__ xyzz<F> xyzz_dbl_affine(const affine<F> p)
{
    const F u = p.y.dbl(), v = u.sqr(), w = u * v, s = p.x * v;
    const F x2 = p.x.sqr(), m = x2.dbl() + x2;
    const F x3 = m.sqr() - s.dbl();
    return {x3, F::mul_sub(m, s - x3, w, p.y), v, w};
}

/* *p <- 2 *p (dbl-2008-s-1, a = 0): U = 2Y1, V = U^2, W = U V, S = X1 V,
 * M = 3 X1^2, X3 = M^2 - 2S, Y3 = M (S - X3) - W Y1, ZZ3 = V ZZ1,
 * ZZZ3 = W ZZZ1. Infinity (ZZ1 = 0) stays infinity; so does a point with
 * Y1 = 0. */
template <class F> __device__ __noinline__ void xyzz_dbl_to(xyzz<F> *p)
{
    const F u = p->y.dbl(), v = u.sqr(), w = u * v, s = p->x * v;
    const F x2 = p->x.sqr(), m = x2.dbl() + x2;
    const F x3 = m.sqr() - s.dbl();
    p->y = F::mul_sub(m, s - x3, w, p->y);
    p->x = x3;
    p->zz = v * p->zz;
    p->zzz = w * p->zzz;
}

/* Jacobian (X, Y, Z) for (X/Z^2, Y/Z^3); Z = 0 is infinity. Only chains
 * of doublings use it (window tables): a doubling there takes 2 products
 * and 5 squares where XYZZ's takes 6 and 3 (less work; XYZZ pays
 * off in additions, which Jacobian makes dearer). */
template <class F> struct jacobian {
    F x, y, z;
};

/* 2 p (dbl-2009-l, a = 0): A = X1^2, B = Y1^2, C = B^2,
 * D = 2((X1 + B)^2 - A - C), E = 3A, F = E^2, X3 = F - 2D,
 * Y3 = E (D - X3) - 8C, Z3 = 2 Y1 Z1. Infinity (Z1 = 0) stays infinity;
 * a point with Y1 = 0 (order 2) becomes it. Inlined, by value: it is the
 * whole of a table build's loop (out of line, through memory, the table
 * builds were slower). */
template <class F> FF_INLINE jacobian<F> jacobian_dbl(const jacobian<F> &p)
{
    const F a = p.x.sqr(), b = p.y.sqr(), c = b.sqr();
    const F d = ((p.x + b).sqr() - a - c).dbl();
    const F e = a.dbl() + a, x3 = e.sqr() - d.dbl();
    return {x3, e * (d - x3) - c.dbl().dbl().dbl(), (p.y * p.z).dbl()};
}

/* acc <- acc + q for q affine and not infinity (madd-2008-s), inlined in
 * the MSM's hot loop: U2 = X2 ZZ1, S2 = Y2 ZZZ1, P = U2 - X1, R = S2 - Y1,
 * PP = P^2, PPP = P PP, Q = X1 PP, X3 = R^2 - PPP - 2Q,
 * Y3 = R (Q - X3) - Y1 PPP, ZZ3 = ZZ1 PP, ZZZ3 = ZZZ1 PPP.
 * P = 0 means acc = +-q. */
template <class F> FF_INLINE void xyzz_add_affine(xyzz<F> &acc, const affine<F> &q)
{
    if (acc.is_inf()) {
        acc = {q.x, q.y, F::one(), F::one()};
        return;
    }
    const auto u2_s2 = F::mul2(q.x, acc.zz, q.y, acc.zzz);
    const F p = u2_s2.first - acc.x, r = u2_s2.second - acc.y;
    if (p.is_zero()) {
        if (r.is_zero())
            acc = xyzz_dbl_affine(q);
        else
            acc = xyzz<F>::inf();
        return;
    }
    const auto pp_rr = F::sqr2(p, r);
    const F pp = pp_rr.first;
    const auto ppp_q = F::mul2(p, pp, acc.x, pp);
    const F ppp = ppp_q.first, qq = ppp_q.second;
    const F x3 = pp_rr.second - ppp - qq.dbl();
    acc.y = F::mul_sub(r, qq - x3, acc.y, ppp);
    acc.x = x3;
    const auto zz_zzz = F::mul2(acc.zz, pp, acc.zzz, ppp);
    acc.zz = zz_zzz.first;
    acc.zzz = zz_zzz.second;
}

/* *acc <- *acc + *q (add-2008-s), out of line, operands in memory (acc
 * must not alias q): U1 = X1 ZZ2, U2 = X2 ZZ1, S1 = Y1 ZZZ2, S2 = Y2 ZZZ1,
 * P = U2 - U1, R = S2 - S1, PP = P^2, PPP = P PP, Q = U1 PP,
 * X3 = R^2 - PPP - 2Q, Y3 = R (Q - X3) - S1 PPP, ZZ3 = ZZ1 ZZ2 PP,
 * ZZZ3 = ZZZ1 ZZZ2 PPP. Either side may be infinity. */
template <class F> __device__ __noinline__ void xyzz_add_to(xyzz<F> *acc, const xyzz<F> *q)
{
    if (q->is_inf())
        return;
    if (acc->is_inf()) {
        *acc = *q;
        return;
    }
    const auto u1_s1 = F::mul2(acc->x, q->zz, acc->y, q->zzz);
    const auto u2_s2 = F::mul2(q->x, acc->zz, q->y, acc->zzz);
    const F u1 = u1_s1.first, s1 = u1_s1.second;
    const F p = u2_s2.first - u1, r = u2_s2.second - s1;
    if (p.is_zero()) {
        if (r.is_zero())
            xyzz_dbl_to(acc);
        else
            *acc = xyzz<F>::inf();
        return;
    }
    const auto pp_rr = F::sqr2(p, r);
    const F pp = pp_rr.first;
    const auto ppp_q = F::mul2(p, pp, u1, pp);
    const F ppp = ppp_q.first, qq = ppp_q.second;
    const F x3 = pp_rr.second - ppp - qq.dbl();
    acc->y = F::mul_sub(r, qq - x3, s1, ppp);
    acc->x = x3;
    const auto zz_zzz = F::mul2(acc->zz, q->zz, acc->zzz, q->zzz);
    const auto zz3_zzz3 = F::mul2(zz_zzz.first, pp, zz_zzz.second, ppp);
    acc->zz = zz3_zzz3.first;
    acc->zzz = zz3_zzz3.second;
}

/* *r <- k p by double-and-add from the top bit (k public: variable time) */
template <class F> FF_INLINE void xyzz_mul_small(xyzz<F> *r, const xyzz<F> *p, uint32_t k)
{
    *r = xyzz<F>::inf();
    for (int bit = 31; bit >= 0; bit--) {
        if (!r->is_inf())
            xyzz_dbl_to(r);
        if ((k >> bit) & 1)
            xyzz_add_to(r, p);
    }
}

/* XYZZ -> affine for a thread's m points with one inversion (Montgomery's
 * trick): y = Y / ZZZ and, as ZZ^3 = ZZZ^2, x = X (ZZ / ZZZ)^2. Going up,
 * xyzz_batch_record stores point k's X, Y where its affine point goes
 * (pts + pt(k)) and its ZZ, ZZZ and the running product of the ZZZ so far
 * in scratch at sc(k); going down, xyzz_batch_affine inverts that product
 * once and peels one ZZZ off per point. Infinity (ZZ = 0) counts as 1 in
 * the product and comes out all-zero. */
template <class F>
FF_INLINE void xyzz_batch_record(affine<F> *pt, F *zz, F *zzz, F *pre_slot, const xyzz<F> &acc, F &pre)
{
    store(pt, affine<F>{acc.x, acc.y});
    store(zz, acc.zz);
    store(zzz, acc.zzz);
    pre = pre * (acc.is_inf() ? F::one() : acc.zzz);
    store(pre_slot, pre);
}

template <class F, class PointAt, class ScratchAt>
FF_INLINE void xyzz_batch_affine(affine<F> *pts, PointAt pt, const F *zz_s, const F *zzz_s, const F *pre_s,
                                 ScratchAt sc, unsigned m, const F &pre)
{
    F inv = pre.inv(); /* 1 / (ZZZ_0 ... ZZZ_k) as k walks down */
    for (unsigned k = m; k-- > 0;) {
        const F zz = load(zz_s + sc(k)), zzz = load(zzz_s + sc(k));
        const F zzz_inv = k > 0 ? inv * load(pre_s + sc(k - 1)) : inv;
        if (!zz.is_zero())
            inv = inv * zzz;
        affine<F> q = load(pts + pt(k));
        if (zz.is_zero()) {
            q = {F::zero(), F::zero()};
        } else {
            q.x = q.x * (zz * zzz_inv).sqr();
            q.y = q.y * zzz_inv;
        }
        store(pts + pt(k), q);
    }
}

/* The four groups: coordinate fields. */
struct bn254_g1_dev {
    using F = bn254_fp_t;
};
struct bn254_g2_dev {
    using F = bn254_fp2_t;
};
struct bls12_381_g1_dev {
    using F = bls12_381_fp_t;
};
struct bls12_381_g2_dev {
    using F = bls12_381_fp2_t;
};

} /* namespace gpu */

#endif
