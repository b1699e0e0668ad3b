//! Montgomery arithmetic modulo BLS12-381's r (Fr, 4 words) and p (Fp, 6
//! words), enough to synthesize assignments (witness values into blst's
//! Montgomery form, constraint rows evaluated) and to encode proofs (Fp
//! out of Montgomery form). Words little-endian; R = 2^(64 N).

/// r = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001
pub const R_MODULUS: [u64; 4] = [0xffffffff00000001, 0x53bda402fffe5bfe, 0x3339d80809a1d805, 0x73eda753299d7d48];

/// p = 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab
pub const P_MODULUS: [u64; 6] = [
    0xb9feffffffffaaab,
    0x1eabfffeb153ffff,
    0x6730d2a0f6b0f624,
    0x64774b84f38512bf,
    0x4b1ba7b6434bacd7,
    0x1a0111ea397fe69a,
];

pub struct Field<const N: usize> {
    pub modulus: [u64; N],
    /// -modulus^-1 mod 2^64
    inv: u64,
    /// R^2 mod modulus (to_mont(x) = x R^2 R^-1)
    r2: [u64; N],
}

/// a >= b as integers
fn geq<const N: usize>(a: &[u64; N], b: &[u64; N]) -> bool {
    for i in (0..N).rev() {
        if a[i] != b[i] {
            return a[i] > b[i];
        }
    }
    true
}

/// a - b and the borrow out
fn sub_words<const N: usize>(a: &[u64; N], b: &[u64; N]) -> ([u64; N], bool) {
    let mut out = [0u64; N];
    let mut borrow = false;
    for i in 0..N {
        let (d, b1) = a[i].overflowing_sub(b[i]);
        let (d, b2) = d.overflowing_sub(borrow as u64);
        out[i] = d;
        borrow = b1 || b2;
    }
    (out, borrow)
}

impl<const N: usize> Field<N> {
    pub fn new(modulus: [u64; N]) -> Self {
        // Newton's iteration doubles the correct low bits: 1 -> 64 in 6 steps
        let mut x: u64 = 1;
        for _ in 0..6 {
            x = x.wrapping_mul(2u64.wrapping_sub(modulus[0].wrapping_mul(x)));
        }
        let mut f = Field { modulus, inv: x.wrapping_neg(), r2: [0; N] };
        // 2^(128 N) mod m by doublings of 1 (m < 2^(64 N - 1): no overflow)
        let mut v = [0u64; N];
        v[0] = 1;
        for _ in 0..128 * N {
            v = f.add(&v, &v);
        }
        f.r2 = v;
        f
    }

    pub fn add(&self, a: &[u64; N], b: &[u64; N]) -> [u64; N] {
        let mut out = [0u64; N];
        let mut carry = 0u128;
        for i in 0..N {
            let s = a[i] as u128 + b[i] as u128 + carry;
            out[i] = s as u64;
            carry = s >> 64;
        }
        if carry != 0 || geq(&out, &self.modulus) {
            out = sub_words(&out, &self.modulus).0;
        }
        out
    }

    /// a b R^-1 mod m (CIOS): per word b_i of b, t <- (t + a b_i + q m) /
    /// 2^64 with q = t_0 (-m^-1) mod 2^64, which makes the low word zero;
    /// t < 2m throughout, one subtraction at the end
    pub fn mul(&self, a: &[u64; N], b: &[u64; N]) -> [u64; N] {
        let mut t = [0u64; 8]; // N + 2 words, N <= 6
        for &bi in b.iter() {
            let mut carry = 0u128;
            for j in 0..N {
                let s = t[j] as u128 + a[j] as u128 * bi as u128 + carry;
                t[j] = s as u64;
                carry = s >> 64;
            }
            let s = t[N] as u128 + carry;
            t[N] = s as u64;
            t[N + 1] = (s >> 64) as u64;
            let q = t[0].wrapping_mul(self.inv);
            let mut carry = (t[0] as u128 + q as u128 * self.modulus[0] as u128) >> 64;
            for j in 1..N {
                let s = t[j] as u128 + q as u128 * self.modulus[j] as u128 + carry;
                t[j - 1] = s as u64;
                carry = s >> 64;
            }
            let s = t[N] as u128 + carry;
            t[N - 1] = s as u64;
            t[N] = t[N + 1] + (s >> 64) as u64;
        }
        let mut out = [0u64; N];
        out.copy_from_slice(&t[..N]);
        if t[N] != 0 || geq(&out, &self.modulus) {
            out = sub_words(&out, &self.modulus).0;
        }
        out
    }

    pub fn to_mont(&self, a: &[u64; N]) -> [u64; N] {
        self.mul(a, &self.r2)
    }

    pub fn to_normal(&self, a: &[u64; N]) -> [u64; N] {
        let mut one = [0u64; N];
        one[0] = 1;
        self.mul(a, &one)
    }

    /// a < m: a canonical value
    pub fn is_canonical(&self, a: &[u64; N]) -> bool {
        !geq(a, &self.modulus)
    }

    /// a > m - a for a canonical a != 0 (zcash's sign: the larger root)
    pub fn is_larger_half(&self, a: &[u64; N]) -> bool {
        let neg = sub_words(&self.modulus, a).0;
        !geq(&neg, a)
    }
}

pub fn fr() -> Field<4> {
    Field::new(R_MODULUS)
}

pub fn fp() -> Field<6> {
    Field::new(P_MODULUS)
}
