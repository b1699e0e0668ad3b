pragma circom 2.0.0;

// circom's field helpers on edge values (tests/interop/field_ops.sh): the
// inputs (short when they fit an i32, long otherwise: zero, one, i32's
// limits, 2^32, 2^64, values about (p - 1) / 2 and p), and from each a
// product (Montgomery, or a short that overflows into a long), a
// negation, a sum and a quotient by one (a long normal value), every
// pair of them through + - * < > <= >= == != and each through unary -,
// ?: and a shift, then each shifted right by amounts about 32, 64 and
// the prime's bits (and a negative one, a left shift), then every pair
// through % (by 7 for a zero divisor: last, as it leaves both operands
// long normal); the helpers change their operands' forms in place
// (normal, Montgomery, long), so later results see the forms earlier ones
// left.
template FieldOps(N) {
    signal input v[N];
    var M = 5 * N;
    var sh[13] = [0, 1, 31, 32, 63, 64, 65, 200, 253, 254, 255, 300, -3];
    signal output o[M * M * 10 + M * 3 + M * 13];
    var x[M];
    for (var i = 0; i < N; i++) {
        x[i] = v[i];
        x[N + i] = v[i] * v[(i + 1) % N];
        x[2 * N + i] = -v[i];
        x[3 * N + i] = v[i] + v[(i + 3) % N];
        x[4 * N + i] = v[i] \ 1;
    }
    var k = 0;
    for (var i = 0; i < M; i++) {
        for (var j = 0; j < M; j++) {
            o[k] <-- x[i] + x[j];
            o[k + 1] <-- x[i] - x[j];
            o[k + 2] <-- x[i] * x[j];
            o[k + 3] <-- x[i] < x[j];
            o[k + 4] <-- x[i] > x[j];
            o[k + 5] <-- x[i] <= x[j];
            o[k + 6] <-- x[i] >= x[j];
            o[k + 7] <-- x[i] == x[j];
            o[k + 8] <-- x[i] != x[j];
            k += 9;
        }
    }
    for (var i = 0; i < M; i++) {
        o[k] <-- -x[i];
        o[k + 1] <-- x[i] ? 1 : 2;
        o[k + 2] <-- x[i] >> 1;
        k += 3;
    }
    for (var i = 0; i < M; i++) {
        for (var t = 0; t < 13; t++) {
            o[k] <-- x[i] >> sh[t];
            k += 1;
        }
    }
    for (var i = 0; i < M; i++) {
        for (var j = 0; j < M; j++) {
            o[k] <-- x[i] % (x[j] ? x[j] : 7);
            k += 1;
        }
    }
}

component main = FieldOps(16);
