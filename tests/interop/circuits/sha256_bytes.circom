pragma circom 2.0.0;

// circomlib's SHA-256 of 3 bytes (one block, ~29k constraints: the witness
// tests' bit-heavy circuit). Compiled with -l tests/interop/node_modules.
include "circomlib/circuits/sha256/sha256.circom";

component main = Sha256(24);
