pragma circom 2.0.0;

// Eight public inputs and a public output, nine public signals: the
// Solidity verifiers' gas as signals grow (solidity_verifier.sh).
// out = k * (x[0] + ... + x[7]), k private.
template Sum(n) {
    signal input x[n];
    signal input k;
    signal output out;
    signal acc[n];
    acc[0] <== x[0] * k;
    for (var i = 1; i < n; i++) {
        acc[i] <== acc[i-1] + x[i] * k;
    }
    out <== acc[n-1];
}

component main {public [x]} = Sum(8);
