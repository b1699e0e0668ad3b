pragma circom 2.0.0;

// Two Poseidon Merkle inclusion proofs of depth 6 (tests/interop/circomlib.sh).
include "templates/merkle.circom";

component main = MerkleRoots(2, 6);
