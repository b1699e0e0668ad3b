pragma circom 2.0.0;

// circomlib's Poseidon of two inputs (the witness tests: a hash's field
// arithmetic). Compiled with -l tests/interop/node_modules.
include "circomlib/circuits/poseidon.circom";

component main {public [inputs]} = Poseidon(2);
