//! The crate in bellperson's shape, built through [patch.crates-io]:
//! its proof of the fixture is the C prover's (r = s = 0), a blinded one
//! verifies, and a missing parameter file is bellperson's io::Error.

#[path = "../../supraseal-c2/tests/support/mod.rs"]
mod support;

use std::io;

use cuzk_patch_check::{create_proof_batch, DensityTracker, Proof, ProvingAssignment, SuprasealParameters};
use support::circom::{read_wtns, Fe};
use support::cli::{c_deterministic_proof, fixture, keyed, scratch, verify};
use support::encode::proof_bytes;
use support::field::fr;
use support::synth::{synthesize, Density};

fn tracker(d: Density) -> DensityTracker {
    DensityTracker { words: d.words, bits: d.bits, total: d.popcount }
}

/// The proof as the 48 words of blst's layout.
fn words(p: &Proof) -> [u64; 48] {
    // SAFETY: Proof is repr(C), 48 u64 words without padding
    unsafe { std::mem::transmute(*p) }
}

#[test]
fn bellpersons_calls_prove_through_the_patch() {
    let dir = scratch("bellperson-shape");
    let k = keyed(&dir, "mul", &fixture("mul.r1cs"));
    let witness = read_wtns(&fixture("mul.wtns")).unwrap();
    let s = synthesize(&k.r1cs, &witness).unwrap();
    let prover = ProvingAssignment {
        a_aux_density: tracker(s.a_aux),
        b_input_density: tracker(s.b_inp),
        b_aux_density: tracker(s.b_aux),
        a: s.a,
        b: s.b,
        c: s.c,
        input_assignment: s.inputs,
        aux_assignment: s.aux,
    };
    let params = SuprasealParameters::new(k.params.clone()).unwrap();
    let proofs = create_proof_batch::<Fe>(std::slice::from_ref(&prover), &params, None).unwrap();
    assert_eq!(proof_bytes(&words(&proofs[0])), c_deterministic_proof(&dir, &k, &fixture("mul.wtns")));
    let f = fr();
    let blinding = Some((vec![f.to_mont(&[12, 0, 0, 0])], vec![f.to_mont(&[34, 0, 0, 0])]));
    let blinded = create_proof_batch(std::slice::from_ref(&prover), &params, blinding).unwrap();
    verify(&dir, &k, &witness[1..3], &words(&blinded[0])).unwrap();

    let missing = SuprasealParameters::new(dir.join("none.params")).err().expect("an error");
    assert_eq!(missing.kind(), io::ErrorKind::InvalidData);
    assert!(missing.to_string().contains("none.params"), "{}", missing);
}
