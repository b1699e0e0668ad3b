//! Proofs through the crate, as bellperson makes them: assignments
//! synthesized here in Rust from circom's r1cs and witnesses, proved by
//! libcuzk behind supraseal-c2's API against a key from `cuzk setup
//! --format params`. With r = s = 0 each proof is byte for byte the C
//! prover's (`cuzk params prove --deterministic --blst`; test_filecoin_
//! supraseal shows that one is the C ABI's); blinded, each verifies
//! (`cuzk params verify`, bellperson's compressed bytes) for its own
//! inputs and not for another's.

mod support;

use std::path::Path;
use std::sync::Arc;

use support::circom::{read_wtns, write_wtns, Fe};
use support::cli::{c_deterministic_proof, cuzk, fixture, keyed, scratch, verify, Keyed};
use support::encode::{proof_bytes, Proof};
use support::field::fr;
use support::synth::{synthesize, Synthesized};
use supraseal_c2::{generate_groth16_proof, generate_groth16_proofs, SRS};

const ZERO: Fe = [0; 4];
const NO_PROOF: Proof = [0; 48];

/// The fixture's witness for inputs a, b (mul.circom: t = a b, c = t a +
/// b; wires ONE, c, a, b, t).
fn mul_witness(a: u64, b: u64) -> Vec<Fe> {
    let t = a * b;
    [1, t * a + b, a, b, t].iter().map(|v| [*v, 0, 0, 0]).collect()
}

/// Its public inputs: c, a.
fn mul_public(w: &[Fe]) -> Vec<Fe> {
    w[1..3].to_vec()
}

/// Blinding factors as blstrs holds them: Montgomery form of k + 1000 i.
fn blinding(i: usize, k: u64) -> Fe {
    fr().to_mont(&[k + 1000 * i as u64, 0, 0, 0])
}

fn prove(srs: &SRS, circuits: &[&Synthesized], r_s: &[Fe], s_s: &[Fe]) -> Vec<Proof> {
    let provers: Vec<_> = circuits.iter().map(|c| c.assignment()).collect();
    let mut proofs = vec![NO_PROOF; circuits.len()];
    generate_groth16_proofs(&provers, r_s, s_s, &mut proofs, srs);
    proofs
}

fn mul_key(dir: &Path) -> (Keyed, SRS) {
    let k = keyed(dir, "mul", &fixture("mul.r1cs"));
    let srs = SRS::try_new(k.params.clone(), false).expect("the SRS");
    (k, srs)
}

#[test]
fn deterministic_proof_is_the_c_provers_on_the_fixture() {
    let dir = scratch("fixture");
    let (k, srs) = mul_key(&dir);
    let wtns = fixture("mul.wtns");
    let s = synthesize(&k.r1cs, &read_wtns(&wtns).unwrap()).unwrap();
    let proofs = prove(&srs, &[&s], &[ZERO], &[ZERO]);
    assert_eq!(proof_bytes(&proofs[0]), c_deterministic_proof(&dir, &k, &wtns));
    verify(&dir, &k, &mul_public(&read_wtns(&wtns).unwrap()), &proofs[0]).unwrap();
}

/// A synthetic circuit (half random gates, half SHA-256-like bit gates):
/// thousands of rows, sparse B columns, several inputs (the densities
/// matter).
#[test]
fn deterministic_proof_is_the_c_provers_on_a_synthetic_circuit() {
    let dir = scratch("synthetic");
    let (r1cs, wtns) = (dir.join("s.r1cs"), dir.join("s.wtns"));
    let args = "circuit synth --curve bls12381 --constraints 3000 --public 3 --shape mixed --seed 7";
    let mut argv: Vec<&std::ffi::OsStr> = args.split(' ').map(|a| a.as_ref()).collect();
    argv.extend([r1cs.as_os_str(), wtns.as_os_str()]);
    cuzk(&argv).expect("cuzk circuit synth");
    let k = keyed(&dir, "s", &r1cs);
    let srs = SRS::try_new(k.params.clone(), true).expect("the SRS");
    let witness = read_wtns(&wtns).unwrap();
    let s = synthesize(&k.r1cs, &witness).unwrap();
    assert!(s.b_aux.popcount < s.b_aux.bits && s.inputs.len() == 4, "a circuit with sparse B and 3 inputs");
    let proofs = prove(&srs, &[&s], &[ZERO], &[ZERO]);
    assert_eq!(proof_bytes(&proofs[0]), c_deterministic_proof(&dir, &k, &wtns));
    let blinded = prove(&srs, &[&s], &[blinding(0, 5)], &[blinding(0, 9)]);
    verify(&dir, &k, &witness[1..4], &blinded[0]).unwrap();
    srs.evict();
}

#[test]
fn a_batch_proves_each_circuit_with_its_own_blinding() {
    let dir = scratch("batch");
    let (k, srs) = mul_key(&dir);
    let inputs = [(3, 11), (5, 7), (2, 9)];
    let witnesses: Vec<Vec<Fe>> = inputs.iter().map(|&(a, b)| mul_witness(a, b)).collect();
    let circuits: Vec<Synthesized> = witnesses.iter().map(|w| synthesize(&k.r1cs, w).unwrap()).collect();
    let refs: Vec<&Synthesized> = circuits.iter().collect();
    let n = circuits.len();

    let zeros = vec![ZERO; n];
    let deterministic = prove(&srs, &refs, &zeros, &zeros);
    for (i, w) in witnesses.iter().enumerate() {
        let wtns = dir.join(format!("w{}.wtns", i));
        write_wtns(&wtns, w).unwrap();
        assert_eq!(proof_bytes(&deterministic[i]), c_deterministic_proof(&dir, &k, &wtns), "circuit {}", i);
    }

    let r_s: Vec<Fe> = (0..n).map(|i| blinding(i, 17)).collect();
    let s_s: Vec<Fe> = (0..n).map(|i| blinding(i, 23)).collect();
    let blinded = prove(&srs, &refs, &r_s, &s_s);
    for (i, w) in witnesses.iter().enumerate() {
        assert_ne!(blinded[i], deterministic[i], "r and s change proof {}", i);
        verify(&dir, &k, &mul_public(w), &blinded[i]).unwrap();
    }
    let other = verify(&dir, &k, &mul_public(&witnesses[1]), &blinded[0]);
    assert!(other.unwrap_err().contains("INVALID proof"), "a proof holds for its own inputs only");
}

/// supraseal-c2's older entry point (circuits of one shape, given field
/// by field) proves what the newer one does.
#[test]
fn the_field_by_field_entry_point_gives_the_same_proofs() {
    let dir = scratch("fields");
    let (k, srs) = mul_key(&dir);
    let circuits: Vec<Synthesized> =
        [(4, 6), (8, 1)].iter().map(|&(a, b)| synthesize(&k.r1cs, &mul_witness(a, b)).unwrap()).collect();
    let refs: Vec<&Synthesized> = circuits.iter().collect();
    let (r_s, s_s) = ([blinding(0, 3), blinding(1, 3)], [blinding(0, 4), blinding(1, 4)]);
    let want = prove(&srs, &refs, &r_s, &s_s);

    let ptrs = |f: fn(&Synthesized) -> &Vec<Fe>| -> Vec<*const Fe> { circuits.iter().map(|c| f(c).as_ptr()).collect() };
    let c0 = &circuits[0];
    let mut got = vec![NO_PROOF; 2];
    generate_groth16_proof(
        &ptrs(|c| &c.a),
        &ptrs(|c| &c.b),
        &ptrs(|c| &c.c),
        c0.a.len(),
        &ptrs(|c| &c.inputs),
        &ptrs(|c| &c.aux),
        c0.inputs.len(),
        c0.aux.len(),
        &c0.a_aux.words,
        &c0.b_inp.words,
        &c0.b_aux.words,
        c0.a_aux.popcount,
        c0.b_inp.popcount,
        c0.b_aux.popcount,
        2,
        &r_s,
        &s_s,
        &mut got,
        &srs,
    );
    assert_eq!(got, want);
}

/// Handles: the cache gives one SRS to two callers, clones outlive the
/// handle they came from and eviction, and handles prove from several
/// threads at once (Send, Sync).
#[test]
fn handles_clone_cache_evict_and_cross_threads() {
    let dir = scratch("handles");
    let k = keyed(&dir, "mul", &fixture("mul.r1cs"));
    let first = SRS::try_new(k.params.clone(), true).unwrap();
    let second = SRS::try_new(k.params.clone(), true).unwrap();
    let clone = first.clone();
    first.evict();
    drop(first);
    drop(second);
    let s = Arc::new(synthesize(&k.r1cs, &mul_witness(3, 11)).unwrap());
    let want = c_deterministic_proof(&dir, &k, &fixture("mul.wtns"));
    let shared = Arc::new(clone);
    let threads: Vec<_> = (0..3)
        .map(|_| {
            let (srs, s) = (Arc::clone(&shared), Arc::clone(&s));
            std::thread::spawn(move || prove(&srs, &[&s], &[ZERO], &[ZERO]))
        })
        .collect();
    for t in threads {
        assert_eq!(proof_bytes(&t.join().unwrap()[0]), want);
    }
    // an empty handle clones to an empty one and drops quietly
    let empty = SRS::default();
    drop(empty.clone());
}
