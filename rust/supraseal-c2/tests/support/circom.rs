//! circom's binary files, as far as the tests need them: an r1cs's header
//! and constraints, a witness read and written (iden3's container: magic,
//! version, sections of type u32 and size u64; values little-endian, in
//! normal form, 32 bytes for BLS12-381).

use std::fs;
use std::path::Path;

use super::field::R_MODULUS;

pub type Fe = [u64; 4];

/// One linear combination: (wire, coefficient in normal form).
pub type Lc = Vec<(u32, Fe)>;

pub struct R1cs {
    pub n_wires: u32,
    /// ONE and the public wires (outputs, then inputs): bellperson's inputs
    pub n_inputs: u32,
    /// per constraint: A, B, C
    pub constraints: Vec<[Lc; 3]>,
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        if self.bytes.len() - self.at < n {
            return Err(format!("truncated at byte {}", self.at));
        }
        self.at += n;
        Ok(&self.bytes[self.at - n..self.at])
    }
    fn u32(&mut self) -> Result<u32, String> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn u64(&mut self) -> Result<u64, String> {
        let lo = self.u32()? as u64;
        Ok(lo | (self.u32()? as u64) << 32)
    }
    fn fe(&mut self) -> Result<Fe, String> {
        let b = self.take(32)?;
        let mut out = [0u64; 4];
        for (i, w) in out.iter_mut().enumerate() {
            let mut word = [0u8; 8];
            word.copy_from_slice(&b[8 * i..8 * i + 8]);
            *w = u64::from_le_bytes(word);
        }
        Ok(out)
    }
}

/// The sections of an iden3 container with magic `magic`: (type, body).
fn sections<'a>(bytes: &'a [u8], magic: &[u8; 4]) -> Result<Vec<(u32, &'a [u8])>, String> {
    let mut r = Reader { bytes, at: 0 };
    if r.take(4)? != magic {
        return Err(format!("not a {} file", String::from_utf8_lossy(magic)));
    }
    r.u32()?; // version
    let n = r.u32()?;
    let mut out = Vec::new();
    for _ in 0..n {
        let kind = r.u32()?;
        let size = r.u64()? as usize;
        out.push((kind, r.take(size)?));
    }
    Ok(out)
}

fn section<'a>(all: &[(u32, &'a [u8])], kind: u32) -> Result<Reader<'a>, String> {
    all.iter().find(|s| s.0 == kind).map(|s| Reader { bytes: s.1, at: 0 }).ok_or_else(|| format!("no section {}", kind))
}

/// Header: n8, prime; the field must be BLS12-381's r.
fn check_prime(r: &mut Reader) -> Result<(), String> {
    if r.u32()? != 32 || r.fe()? != R_MODULUS {
        return Err("not a BLS12-381 file".to_string());
    }
    Ok(())
}

pub fn read_r1cs(path: &Path) -> Result<R1cs, String> {
    let bytes = fs::read(path).map_err(|e| format!("{}: {}", path.display(), e))?;
    let all = sections(&bytes, b"r1cs")?;
    let mut h = section(&all, 1)?;
    check_prime(&mut h)?;
    let n_wires = h.u32()?;
    let n_inputs = 1 + h.u32()? + h.u32()?; // ONE, outputs, public inputs
    h.u32()?; // private inputs
    h.u64()?; // labels
    let m = h.u32()?;
    let mut c = section(&all, 2)?;
    let mut constraints = Vec::with_capacity(m as usize);
    for _ in 0..m {
        let mut row: [Lc; 3] = Default::default();
        for lc in row.iter_mut() {
            for _ in 0..c.u32()? {
                let wire = c.u32()?;
                lc.push((wire, c.fe()?));
            }
        }
        constraints.push(row);
    }
    Ok(R1cs { n_wires, n_inputs, constraints })
}

pub fn read_wtns(path: &Path) -> Result<Vec<Fe>, String> {
    let bytes = fs::read(path).map_err(|e| format!("{}: {}", path.display(), e))?;
    let all = sections(&bytes, b"wtns")?;
    let mut h = section(&all, 1)?;
    check_prime(&mut h)?;
    let n = h.u32()?;
    let mut v = section(&all, 2)?;
    (0..n).map(|_| v.fe()).collect()
}

pub fn write_wtns(path: &Path, values: &[Fe]) -> Result<(), String> {
    let mut header = 32u32.to_le_bytes().to_vec();
    header.extend(R_MODULUS.iter().flat_map(|w| w.to_le_bytes()));
    header.extend((values.len() as u32).to_le_bytes());
    let body: Vec<u8> = values.iter().flatten().flat_map(|w| w.to_le_bytes()).collect();
    let mut out = b"wtns".to_vec();
    out.extend(2u32.to_le_bytes());
    out.extend(2u32.to_le_bytes());
    for (kind, s) in [(1u32, &header), (2u32, &body)] {
        out.extend(kind.to_le_bytes());
        out.extend((s.len() as u64).to_le_bytes());
        out.extend(s.iter());
    }
    fs::write(path, out).map_err(|e| format!("{}: {}", path.display(), e))
}
