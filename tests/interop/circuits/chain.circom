pragma circom 2.0.0;

// A chain of multiplications with one public input and one public output:
// x[0] = a*b, x[i] = x[i-1]*a + k, out = x[n-1]*b.
template Chain(n) {
    signal input a;
    signal input b;
    signal input k;
    signal output out;
    signal x[n];
    x[0] <== a * b;
    for (var i = 1; i < n; i++) {
        x[i] <== x[i-1] * a + k;
    }
    out <== x[n-1] * b;
}

component main {public [k]} = Chain(40);
