pragma circom 2.0.0;

// A hash chain of circomlib's MiMC sponge (220 rounds of x^5 Feistel per
// permutation, two inputs, one output): h[0] = x, h[i + 1] =
// MiMCSponge(h[i], i; k). Include with -l tests/interop/node_modules.
include "circomlib/circuits/mimcsponge.circom";

template MiMCChain(n) {
    signal input x;
    signal input k;
    signal output out;
    signal h[n + 1];
    component sponge[n];
    h[0] <== x;
    for (var i = 0; i < n; i++) {
        sponge[i] = MiMCSponge(2, 220, 1);
        sponge[i].ins[0] <== h[i];
        sponge[i].ins[1] <== i;
        sponge[i].k <== k;
        h[i + 1] <== sponge[i].outs[0];
    }
    out <== h[n];
}
