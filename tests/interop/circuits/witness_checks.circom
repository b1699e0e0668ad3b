pragma circom 2.0.0;

// The witness tests' circuit (tests/interop/wtns_calculate.sh): an input
// array of two dimensions, an assert, a log line, and a recursion whose
// depth is an input, so that a deep one ends in a trap of the circuit's
// code (the call stack exhausted).
function depth(n) {
    if (n == 0) {
        return 0;
    }
    return depth(n - 1) + 1;
}

template Checks() {
    signal input a;
    signal input b[2][2];
    signal input d;
    signal output c;
    signal m;
    signal t;
    assert(a != 13);
    log("a is", a);
    t <-- depth(d);
    t === d;
    m <== a * b[0][0];
    c <== m + b[1][1] * b[0][1] + b[1][0];
}

component main {public [a]} = Checks();
