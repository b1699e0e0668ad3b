//! A circuit's assignment as bellperson synthesizes it for supraseal-c2,
//! from a circom r1cs and a witness (wire 0 = ONE, then the public wires:
//! bellperson's inputs; the rest aux): a, b, c the rows' evaluations, then
//! bellperson's `input_i * 0 = 0` row per input; densities from the A and
//! B columns; every scalar in Montgomery form (blst_fr).

use supraseal_c2::Assignment;

use super::circom::{Fe, R1cs};
use super::field::{fr, Field};

/// A bitmap as bellperson's bitvec holds it: bit b of word k is variable
/// 64 k + b.
pub struct Density {
    pub words: Vec<usize>,
    pub bits: usize,
    pub popcount: usize,
}

impl Density {
    fn new(bits: usize) -> Self {
        Density { words: vec![0; (bits + 63) / 64], bits, popcount: 0 }
    }
    fn set(&mut self, i: usize) {
        let (w, b) = (i / 64, i % 64);
        if self.words[w] >> b & 1 == 0 {
            self.words[w] |= 1 << b;
            self.popcount += 1;
        }
    }
}

pub struct Synthesized {
    pub a: Vec<Fe>,
    pub b: Vec<Fe>,
    pub c: Vec<Fe>,
    pub inputs: Vec<Fe>,
    pub aux: Vec<Fe>,
    pub a_aux: Density,
    pub b_inp: Density,
    pub b_aux: Density,
}

fn eval(f: &Field<4>, lc: &[(u32, Fe)], w: &[Fe]) -> Fe {
    lc.iter().fold([0; 4], |acc, (wire, coeff)| f.add(&acc, &f.mul(&f.to_mont(coeff), &w[*wire as usize])))
}

pub fn synthesize(r: &R1cs, witness: &[Fe]) -> Result<Synthesized, String> {
    let f = fr();
    if witness.len() != r.n_wires as usize {
        return Err(format!("{} witness values for {} wires", witness.len(), r.n_wires));
    }
    if witness[0] != [1, 0, 0, 0] || !witness.iter().all(|v| f.is_canonical(v)) {
        return Err("the witness must start with 1 and hold values below r".to_string());
    }
    let w: Vec<Fe> = witness.iter().map(|v| f.to_mont(v)).collect();
    let n_in = r.n_inputs as usize;
    let n_aux = w.len() - n_in;
    let (mut a, mut b, mut c) = (Vec::new(), Vec::new(), Vec::new());
    let (mut a_aux, mut b_inp, mut b_aux) = (Density::new(n_aux), Density::new(n_in), Density::new(n_aux));
    for (row, [la, lb, lc]) in r.constraints.iter().enumerate() {
        let (va, vb, vc) = (eval(&f, la, &w), eval(&f, lb, &w), eval(&f, lc, &w));
        if f.mul(&va, &vb) != vc {
            return Err(format!("the witness does not satisfy constraint {}", row));
        }
        a.push(va);
        b.push(vb);
        c.push(vc);
        for &(wire, _) in la {
            if wire as usize >= n_in {
                a_aux.set(wire as usize - n_in);
            }
        }
        for &(wire, _) in lb {
            match (wire as usize).checked_sub(n_in) {
                Some(j) => b_aux.set(j),
                None => b_inp.set(wire as usize),
            }
        }
    }
    for input in &w[..n_in] {
        a.push(*input);
        b.push([0; 4]);
        c.push([0; 4]);
    }
    Ok(Synthesized { a, b, c, inputs: w[..n_in].to_vec(), aux: w[n_in..].to_vec(), a_aux, b_inp, b_aux })
}

impl Synthesized {
    /// What bellperson hands supraseal-c2 (pointers into self).
    pub fn assignment(&self) -> Assignment<Fe> {
        Assignment {
            a_aux_density: self.a_aux.words.as_ptr(),
            a_aux_bit_len: self.a_aux.bits,
            a_aux_popcount: self.a_aux.popcount,
            b_inp_density: self.b_inp.words.as_ptr(),
            b_inp_bit_len: self.b_inp.bits,
            b_inp_popcount: self.b_inp.popcount,
            b_aux_density: self.b_aux.words.as_ptr(),
            b_aux_bit_len: self.b_aux.bits,
            b_aux_popcount: self.b_aux.popcount,
            a: self.a.as_ptr(),
            b: self.b.as_ptr(),
            c: self.c.as_ptr(),
            abc_size: self.a.len(),
            inp_assignment_data: self.inputs.as_ptr(),
            inp_assignment_size: self.inputs.len(),
            aux_assignment_data: self.aux.as_ptr(),
            aux_assignment_size: self.aux.len(),
        }
    }
}
