//! Groth16 proofs of synthesized circuits against an SRS: supraseal-c2's
//! two entry points (bellperson calls `generate_groth16_proofs`), which
//! panic on an error as supraseal-c2's do, and
//! `try_generate_groth16_proofs`, which returns every bad input as an
//! `Error`.
//!
//! Generic types as bellperson passes them (blstrs's, mirrored here
//! without depending on them): S a BLS12-381 scalar, 32 bytes in
//! Montgomery form (blst_fr); D a 64-bit word of a density bitmap (bit b
//! of word k is variable 64 k + b); PR a proof in blst's affine layout,
//! 384 bytes (a: G1, b: G2, c: G1; Fp as 6 little-endian Montgomery
//! words, Fp2 c0 then c1).

use std::mem::size_of;
use std::os::raw::c_void;

use crate::error::{Error, RawError};
use crate::srs::SRS;

const SCALAR_BYTES: usize = 32;
const PROOF_BYTES: usize = 2 * 96 + 192;
const DENSITY_WORD_BITS: usize = 64;

/// One synthesized circuit, as bellperson builds it from its
/// ProvingAssignment: densities (bit lengths: aux for a_aux and b_aux,
/// inputs for b_inp), a, b, c (the constraints, then one row per input),
/// the input assignment (input 0 is ONE) and the aux assignment.
/// The pointers must be valid for their sizes during the call.
#[repr(C)]
pub struct Assignment<Scalar> {
    // Density of queries
    pub a_aux_density: *const usize,
    pub a_aux_bit_len: usize,
    pub a_aux_popcount: usize,

    pub b_inp_density: *const usize,
    pub b_inp_bit_len: usize,
    pub b_inp_popcount: usize,

    pub b_aux_density: *const usize,
    pub b_aux_bit_len: usize,
    pub b_aux_popcount: usize,

    // Evaluations of A, B, C polynomials
    pub a: *const Scalar,
    pub b: *const Scalar,
    pub c: *const Scalar,
    pub abc_size: usize,

    // Assignments of variables
    pub inp_assignment_data: *const Scalar,
    pub inp_assignment_size: usize,

    pub aux_assignment_data: *const Scalar,
    pub aux_assignment_size: usize,
}

extern "C" {
    fn generate_groth16_proofs_c(
        provers: *const c_void,
        num_circuits: usize,
        r_s: *const c_void,
        s_s: *const c_void,
        proofs: *mut c_void,
        srs: *const SRS,
    ) -> RawError;
}

/// Err unless `what` holds `want` elements.
fn check_len(what: &str, len: usize, want: usize) -> Result<(), Error> {
    if len == want {
        Ok(())
    } else {
        Err(Error::invalid(format!("{} has {} elements for {} circuits", what, len, want)))
    }
}

/// Err unless T is `want` bytes (the layout libcuzk reads and writes).
fn check_size<T>(what: &str, want: usize) -> Result<(), Error> {
    if size_of::<T>() == want {
        Ok(())
    } else {
        Err(Error::invalid(format!(
            "{} is {} bytes, not {} ({})",
            what,
            size_of::<T>(),
            want,
            std::any::type_name::<T>()
        )))
    }
}

/// Err when p is NULL but must point at n elements.
fn check_ptr<T>(what: &str, circuit: usize, p: *const T, n: usize) -> Result<(), Error> {
    if p.is_null() && n > 0 {
        Err(Error::invalid(format!("circuit {}: {} is NULL for {} elements", circuit, what, n)))
    } else {
        Ok(())
    }
}

fn check_assignment<S>(i: usize, p: &Assignment<S>) -> Result<(), Error> {
    check_ptr("a_aux_density", i, p.a_aux_density, p.a_aux_bit_len)?;
    check_ptr("b_inp_density", i, p.b_inp_density, p.b_inp_bit_len)?;
    check_ptr("b_aux_density", i, p.b_aux_density, p.b_aux_bit_len)?;
    check_ptr("a", i, p.a, p.abc_size)?;
    check_ptr("b", i, p.b, p.abc_size)?;
    check_ptr("c", i, p.c, p.abc_size)?;
    check_ptr("inp_assignment_data", i, p.inp_assignment_data, p.inp_assignment_size)?;
    check_ptr("aux_assignment_data", i, p.aux_assignment_data, p.aux_assignment_size)
}

/// proofs[i] <- the proof of provers[i] with blinding r_s[i], s_s[i]
/// (zero: the deterministic proof). Every assignment is checked against
/// the SRS before any proof is made; a bad one is an Error naming it.
pub fn try_generate_groth16_proofs<S, PR>(
    provers: &[Assignment<S>],
    r_s: &[S],
    s_s: &[S],
    proofs: &mut [PR],
    srs: &SRS,
) -> Result<(), Error> {
    let n = provers.len();
    check_size::<S>("a scalar", SCALAR_BYTES)?;
    check_size::<PR>("a proof", PROOF_BYTES)?;
    check_len("r_s", r_s.len(), n)?;
    check_len("s_s", s_s.len(), n)?;
    check_len("proofs", proofs.len(), n)?;
    if srs.is_empty() {
        return Err(Error::invalid("no SRS (an empty handle)".to_string()));
    }
    for (i, p) in provers.iter().enumerate() {
        check_assignment(i, p)?;
    }
    // SAFETY: the arrays hold n elements of the layouts libcuzk reads
    // (sizes checked above); libcuzk checks the sizes against the SRS
    unsafe {
        generate_groth16_proofs_c(
            provers.as_ptr() as *const c_void,
            n,
            r_s.as_ptr() as *const c_void,
            s_s.as_ptr() as *const c_void,
            proofs.as_mut_ptr() as *mut c_void,
            srs,
        )
    }
    .into_result()
}

/// supraseal-c2's entry point for a batch of assignments (what bellperson
/// calls): as `try_generate_groth16_proofs`, panicking with the error's
/// message as supraseal-c2 does (bellperson expects the proofs written
/// when it returns).
pub fn generate_groth16_proofs<S, PR>(provers: &[Assignment<S>], r_s: &[S], s_s: &[S], proofs: &mut [PR], srs: &SRS) {
    if let Err(e) = try_generate_groth16_proofs(provers, r_s, s_s, proofs, srs) {
        panic!("{}", e);
    }
}

/// The arrays of the older entry point as assignments, or Err where a
/// length disagrees with num_circuits or a bitmap is too short.
/// scalars: a, b, c, inputs, aux (one pointer a circuit each); bitmaps:
/// a_aux, b_inp, b_aux; sizes: abc, inputs, aux; popcounts: as bitmaps.
fn assignments_of<S, D>(
    scalars: [(&str, &[*const S]); 5],
    bitmaps: [(&str, &[D]); 3],
    sizes: [usize; 3],
    popcounts: [usize; 3],
    num_circuits: usize,
) -> Result<Vec<Assignment<S>>, Error> {
    for (what, v) in scalars {
        check_len(what, v.len(), num_circuits)?;
    }
    check_size::<D>("a density word", DENSITY_WORD_BITS / 8)?;
    let [abc, inputs, aux] = sizes;
    // libcuzk reads bit_len bits of each bitmap: the slices must hold them
    for ((what, words), bits) in bitmaps.iter().zip([aux, inputs, aux]) {
        if words.len() * DENSITY_WORD_BITS < bits {
            return Err(Error::invalid(format!("{} has {} words, too few for {} variables", what, words.len(), bits)));
        }
    }
    let bits = |k: usize| bitmaps[k].1.as_ptr() as *const usize;
    Ok((0..num_circuits)
        .map(|c| Assignment {
            a_aux_density: bits(0),
            a_aux_bit_len: aux,
            a_aux_popcount: popcounts[0],
            b_inp_density: bits(1),
            b_inp_bit_len: inputs,
            b_inp_popcount: popcounts[1],
            b_aux_density: bits(2),
            b_aux_bit_len: aux,
            b_aux_popcount: popcounts[2],
            a: scalars[0].1[c],
            b: scalars[1].1[c],
            c: scalars[2].1[c],
            abc_size: abc,
            inp_assignment_data: scalars[3].1[c],
            inp_assignment_size: inputs,
            aux_assignment_data: scalars[4].1[c],
            aux_assignment_size: aux,
        })
        .collect())
}

/// supraseal-c2's older entry point: num_circuits circuits of one shape
/// (one set of densities and sizes), given field by field. Panics on an
/// error as supraseal-c2 does (`try_generate_groth16_proofs` returns it:
/// build the `Assignment`s as this does).
#[allow(clippy::too_many_arguments)]
pub fn generate_groth16_proof<S, D, PR>(
    ntt_a_scalars: &[*const S],
    ntt_b_scalars: &[*const S],
    ntt_c_scalars: &[*const S],
    ntt_scalars_actual_size: usize,
    input_assignments: &[*const S],
    aux_assignments: &[*const S],
    input_assignments_size: usize,
    aux_assignments_size: usize,
    a_aux_density_bv: &[D],
    b_g1_input_density_bv: &[D],
    b_g1_aux_density_bv: &[D],
    a_aux_total_density: usize,
    b_g1_input_total_density: usize,
    b_g1_aux_total_density: usize,
    num_circuits: usize,
    r_s: &[S],
    s_s: &[S],
    proofs: &mut [PR],
    srs: &SRS,
) {
    let provers = assignments_of(
        [
            ("ntt_a_scalars", ntt_a_scalars),
            ("ntt_b_scalars", ntt_b_scalars),
            ("ntt_c_scalars", ntt_c_scalars),
            ("input_assignments", input_assignments),
            ("aux_assignments", aux_assignments),
        ],
        [
            ("a_aux_density_bv", a_aux_density_bv),
            ("b_g1_input_density_bv", b_g1_input_density_bv),
            ("b_g1_aux_density_bv", b_g1_aux_density_bv),
        ],
        [ntt_scalars_actual_size, input_assignments_size, aux_assignments_size],
        [a_aux_total_density, b_g1_input_total_density, b_g1_aux_total_density],
        num_circuits,
    );
    if let Err(e) = provers.and_then(|p| try_generate_groth16_proofs(&p, r_s, s_s, proofs, srs)) {
        panic!("{}", e);
    }
}

/// The layouts libcuzk reads (include/cuzk/supraseal.h): an Assignment
/// is 17 words (three bitmaps of pointer, bit length, popcount; a, b, c
/// and abc_size; inputs and aux with their sizes), an SRS one pointer, an
/// error an int and a pointer.
#[cfg(test)]
mod layout {
    use std::mem::size_of;

    #[test]
    fn sizes_are_the_c_abis() {
        assert_eq!(size_of::<super::Assignment<[u64; 4]>>(), 17 * 8);
        assert_eq!(size_of::<crate::SRS>(), 8);
        assert_eq!(size_of::<crate::error::RawError>(), 16);
    }
}
