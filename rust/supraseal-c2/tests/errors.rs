//! Every bad input through the crate comes back as an Error with a code
//! and a message (never an abort): missing, truncated and garbage files, a
//! path with a NUL byte, no SRS, assignments that disagree with the SRS,
//! arrays of the wrong length, types of the wrong size, NULL pointers,
//! short density bitmaps, r not below the modulus. The panicking entry
//! points (supraseal-c2's) panic with the same message, which the caller
//! can catch: the process goes on.

mod support;

use std::fs;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

use support::circom::Fe;
use support::cli::{fixture, keyed, scratch};
use support::encode::Proof;
use support::synth::{synthesize, Synthesized};
use supraseal_c2::{
    generate_groth16_proof, generate_groth16_proofs, try_generate_groth16_proofs, Assignment, Error, SRS,
};

const EIO: i32 = 5;
const EINVAL: i32 = 22;
const ZERO: Fe = [0; 4];

fn expect_error<T>(got: Result<T, Error>, code: i32, words: &str) {
    match got {
        Ok(_) => panic!("expected error {} '{}', got success", code, words),
        Err(e) => {
            assert!(e.code == code && e.to_string().contains(words), "expected {} '{}', got {:?}", code, words, e);
            assert_eq!(String::from(&e), e.message());
        }
    }
}

fn fixture_key(name: &str) -> (PathBuf, SRS, Synthesized) {
    let dir = scratch(name);
    let k = keyed(&dir, "mul", &fixture("mul.r1cs"));
    let srs = SRS::try_new(k.params.clone(), false).unwrap();
    let w = support::circom::read_wtns(&fixture("mul.wtns")).unwrap();
    (k.params, srs, synthesize(&k.r1cs, &w).unwrap())
}

fn try_one<S, PR>(srs: &SRS, p: Assignment<S>, r: S, s: S, proof: PR) -> Result<(), Error> {
    try_generate_groth16_proofs(&[p], &[r], &[s], &mut [proof], srs)
}

#[test]
fn bad_files_and_paths() {
    let dir = scratch("files");
    expect_error(SRS::try_new(dir.join("missing.params"), false), EIO, "missing.params");
    let (params, _, _) = fixture_key("files-key");
    let cut = dir.join("cut.params");
    fs::write(&cut, &fs::read(&params).unwrap()[..1000]).unwrap();
    let e = SRS::try_new(cut, true).err().expect("an error");
    assert!(e.code != 0 && e.to_string().contains("truncated"), "{:?}", e);
    let garbage = dir.join("garbage.params");
    fs::write(&garbage, vec![0xa5u8; 4096]).unwrap();
    assert!(SRS::try_new(garbage, false).err().expect("an error").code != 0);
    expect_error(SRS::try_new(PathBuf::from("a\0b.params"), false), EINVAL, "NUL byte");
}

#[test]
fn assignments_that_disagree_with_the_srs() {
    let (_, srs, s) = fixture_key("disagree");
    let proof: Proof = [0; 48];
    let mut a = s.assignment();
    a.aux_assignment_size -= 1;
    expect_error(try_one(&srs, a, ZERO, ZERO, proof), EINVAL, "circuit 0");
    let mut a = s.assignment();
    a.a_aux_popcount += 1;
    expect_error(try_one(&srs, a, ZERO, ZERO, proof), EINVAL, "circuit 0");
    let mut a = s.assignment();
    a.abc_size = 1 << 20; // above the key's domain
    expect_error(try_one(&srs, a, ZERO, ZERO, proof), EINVAL, "circuit 0");
    // the second of a batch, named; nothing proved
    let mut bad = s.assignment();
    bad.inp_assignment_size += 1;
    let mut proofs = [[7u64; 48]; 2];
    let got = try_generate_groth16_proofs(&[s.assignment(), bad], &[ZERO; 2], &[ZERO; 2], &mut proofs, &srs);
    expect_error(got, EINVAL, "circuit 1");
    assert_eq!(proofs, [[7u64; 48]; 2], "no proof written before every circuit is checked");
    // r not below the modulus
    expect_error(try_one(&srs, s.assignment(), [u64::MAX; 4], ZERO, proof), EINVAL, "modulus");
}

#[test]
fn bad_arguments_on_the_rust_side() {
    let (_, srs, s) = fixture_key("arguments");
    let proof: Proof = [0; 48];
    expect_error(try_one(&SRS::default(), s.assignment(), ZERO, ZERO, proof), EINVAL, "no SRS");
    expect_error(try_one(&srs, s.assignment(), ZERO, ZERO, [0u64; 47]), EINVAL, "a proof is 376 bytes");
    // SAFETY: the same fields (pointers and sizes) whatever the scalar type
    let narrow: Assignment<[u64; 3]> = unsafe { std::mem::transmute(s.assignment()) };
    expect_error(try_one(&srs, narrow, [0; 3], [0; 3], proof), EINVAL, "a scalar is 24 bytes");
    let mut a = s.assignment();
    a.b = std::ptr::null();
    expect_error(try_one(&srs, a, ZERO, ZERO, proof), EINVAL, "b is NULL");
    let got = try_generate_groth16_proofs(&[s.assignment()], &[ZERO; 2], &[ZERO], &mut [proof], &srs);
    expect_error(got, EINVAL, "r_s has 2 elements for 1 circuits");
}

/// The panic's message, or "" when f returned.
fn panic_message<F: FnOnce()>(f: F) -> String {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(()) => String::new(),
        Err(payload) => payload.downcast_ref::<String>().cloned().unwrap_or_else(|| "(no message)".to_string()),
    }
}

/// The field-by-field entry point's panic message ("" on success) for s
/// given as n_a copies of its a (for one circuit) and these bitmaps
/// (a_aux, b_inp, b_aux).
fn field_by_field<D>(srs: &SRS, s: &Synthesized, n_a: usize, bitmaps: [&[D]; 3]) -> String {
    let a = vec![s.a.as_ptr(); n_a];
    let (b, c, i, x) = ([s.b.as_ptr()], [s.c.as_ptr()], [s.inputs.as_ptr()], [s.aux.as_ptr()]);
    let (sizes, counts) =
        ([s.a.len(), s.inputs.len(), s.aux.len()], [s.a_aux.popcount, s.b_inp.popcount, s.b_aux.popcount]);
    let mut proofs = [[0u64; 48]];
    panic_message(|| {
        generate_groth16_proof(
            &a,
            &b,
            &c,
            sizes[0],
            &i,
            &x,
            sizes[1],
            sizes[2],
            bitmaps[0],
            bitmaps[1],
            bitmaps[2],
            counts[0],
            counts[1],
            counts[2],
            1,
            &[ZERO],
            &[ZERO],
            &mut proofs,
            srs,
        )
    })
}

/// The field-by-field entry point (supraseal-c2's older one, panicking
/// as it does): its slices' lengths and bitmaps checked before libcuzk
/// reads them.
#[test]
fn bad_arguments_field_by_field() {
    let (_, srs, s) = fixture_key("fields");
    let words = [&s.a_aux.words[..], &s.b_inp.words, &s.b_aux.words];
    assert_eq!(field_by_field(&srs, &s, 1, words), "");
    assert!(field_by_field(&srs, &s, 2, words).contains("ntt_a_scalars has 2 elements for 1 circuits"));
    assert!(field_by_field(&srs, &s, 1, [&[], words[1], words[2]]).contains("a_aux_density_bv has 0 words"));
    let w32 = [u32::MAX; 4];
    assert!(field_by_field(&srs, &s, 1, [&w32[..]; 3]).contains("a density word is 4 bytes"));
}

/// supraseal-c2's own entry point panics with libcuzk's message: a panic
/// the caller catches, not an abort.
#[test]
fn the_panicking_entry_point_panics_with_the_message() {
    let (_, srs, s) = fixture_key("panics");
    let mut a = s.assignment();
    a.aux_assignment_size += 1;
    let text = panic_message(|| generate_groth16_proofs(&[a], &[ZERO], &[ZERO], &mut [[0u64; 48]], &srs));
    assert!(text.contains("circuit 0"), "panic message: {:?}", text);
    // the library goes on working after it
    let mut proofs = [[0u64; 48]];
    generate_groth16_proofs(&[s.assignment()], &[ZERO], &[ZERO], &mut proofs, &srs);
    assert_ne!(proofs[0], [0u64; 48]);
}
