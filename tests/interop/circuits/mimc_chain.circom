pragma circom 2.0.0;

// A chain of two MiMC sponge hashes with a public key k (tests/interop/circomlib.sh).
include "templates/mimc_chain.circom";

component main {public [k]} = MiMCChain(2);
