//! A proof in blst's affine layout (supraseal-c2's groth16_proof: a, b, c;
//! Fp as 6 little-endian Montgomery words; Fp2 c0 then c1; infinity all
//! zero) as bytes and as bellperson writes it: 192 bytes, each point in
//! zcash's compressed encoding (x big-endian, G2's x as c1 then c0; flags
//! in byte 0: 0x80 compressed, 0x40 infinity, 0x20 y the larger root, by
//! c1 for Fp2 or by c0 when c1 is zero). And public inputs as the decimal
//! JSON array cuzk reads.

use super::circom::Fe;
use super::field::{fp, Field};

/// What the tests pass as supraseal-c2's PR: 48 words = 384 bytes.
pub type Proof = [u64; 48];

type FpW = [u64; 6];

pub fn proof_bytes(p: &Proof) -> Vec<u8> {
    p.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn words(p: &Proof, from: usize) -> FpW {
    let mut out = [0u64; 6];
    out.copy_from_slice(&p[from..from + 6]);
    out
}

fn put_be(out: &mut [u8], f: &Field<6>, x: &FpW) {
    let v = f.to_normal(x);
    for i in 0..6 {
        out[8 * i..8 * i + 8].copy_from_slice(&v[5 - i].to_be_bytes());
    }
}

/// out <- compressed x (1 or 2 coordinates, c1 first), flags from y's sign
/// coordinate; all-zero coordinates are the point at infinity
fn compress(out: &mut [u8], f: &Field<6>, x: &[FpW], y_sign: &FpW, all: &[FpW]) {
    if all.iter().all(|c| c.iter().all(|w| *w == 0)) {
        out.iter_mut().for_each(|b| *b = 0);
        out[0] = 0xc0;
        return;
    }
    for (k, c) in x.iter().enumerate() {
        put_be(&mut out[48 * k..48 * k + 48], f, c);
    }
    out[0] |= 0x80;
    if f.is_larger_half(&f.to_normal(y_sign)) {
        out[0] |= 0x20;
    }
}

fn g1(out: &mut [u8], f: &Field<6>, p: &Proof, at: usize) {
    let (x, y) = (words(p, at), words(p, at + 6));
    compress(out, f, &[x], &y, &[x, y]);
}

fn g2(out: &mut [u8], f: &Field<6>, p: &Proof, at: usize) {
    let (x0, x1, y0, y1) = (words(p, at), words(p, at + 6), words(p, at + 12), words(p, at + 18));
    let sign = if y1.iter().any(|w| *w != 0) { y1 } else { y0 };
    compress(out, f, &[x1, x0], &sign, &[x0, x1, y0, y1]);
}

/// bellperson's 192 bytes: a (48), b (96), c (48)
pub fn proof_compressed(p: &Proof) -> Vec<u8> {
    let f = fp();
    let mut out = vec![0u8; 192];
    g1(&mut out[0..48], &f, p, 0);
    g2(&mut out[48..144], &f, p, 12);
    g1(&mut out[144..192], &f, p, 36);
    out
}

/// v (normal form) in decimal
pub fn decimal(v: &Fe) -> String {
    let mut n = *v;
    let mut digits = Vec::new();
    loop {
        let mut rem = 0u128;
        for w in n.iter_mut().rev() {
            let cur = rem << 64 | *w as u128;
            *w = (cur / 10) as u64;
            rem = cur % 10;
        }
        digits.push(b'0' + rem as u8);
        if n.iter().all(|w| *w == 0) {
            break;
        }
    }
    digits.reverse();
    String::from_utf8(digits).unwrap_or_default()
}

/// ["v1","v2",...]: the public inputs (normal form) as cuzk reads them
pub fn public_json(values: &[Fe]) -> String {
    let quoted: Vec<String> = values.iter().map(|v| format!("\"{}\"", decimal(v))).collect();
    format!("[{}]", quoted.join(","))
}
