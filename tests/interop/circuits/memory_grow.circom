pragma circom 2.0.0;
// A function whose frame (40,000 elements, 1.6 MB) is larger than the
// memory circom gives the circuit at the start: the wasm grows its memory
// while it runs (wtns_calculate.sh).
function frame_sum(n) {
    var a[40000];
    for (var i = 0; i < 40000; i++) a[i] = i * n;
    var s = 0;
    for (var i = 0; i < 40000; i++) s += a[i];
    return s;
}

template MemoryGrow() {
    signal input x;
    signal output y;
    y <-- frame_sum(x);
}

component main = MemoryGrow();
