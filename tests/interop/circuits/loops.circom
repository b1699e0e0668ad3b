pragma circom 2.0.0;

// The stopping tests' circuit (tests/unit/test_witness_threads.c,
// test_engine_wasm.c): a loop as long as its input, counting n down to 0,
// so that n = p - 1 never ends in practice. It logs "spinning" as the loop
// begins, the tests' sign that the calculation is under way.
function spin(n) {
    var x = n;
    var k = 0;
    while (x != 0) {
        x = x - 1;
        k = k + 1;
    }
    return k;
}

template Loops() {
    signal input n;
    signal output c;
    signal k;
    log("spinning");
    k <-- spin(n);
    c <== k * n;
}

component main = Loops();
