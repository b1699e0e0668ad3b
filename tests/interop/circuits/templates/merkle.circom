pragma circom 2.0.0;

// Poseidon Merkle inclusion proofs (the shape of Tornado Cash's or
// Semaphore's): a leaf and its path of siblings hashed up to the root,
// each level's order chosen by a path bit. The root is an output: the
// verifier compares the public root with the one it trusts. Include with
// -l tests/interop/node_modules.
include "circomlib/circuits/poseidon.circom";

template MerkleRoot(depth) {
    signal input leaf;
    signal input pathElements[depth];
    signal input pathIndices[depth];
    signal output root;
    signal level[depth + 1];
    signal left[depth];
    component hash[depth];
    level[0] <== leaf;
    for (var i = 0; i < depth; i++) {
        pathIndices[i] * (1 - pathIndices[i]) === 0;
        // bit 0: (level, sibling); bit 1: (sibling, level)
        left[i] <== level[i] + pathIndices[i] * (pathElements[i] - level[i]);
        hash[i] = Poseidon(2);
        hash[i].inputs[0] <== left[i];
        hash[i].inputs[1] <== level[i] + pathElements[i] - left[i];
        level[i + 1] <== hash[i].out;
    }
    root <== level[depth];
}

// n independent proofs of one depth: the benchmark's mid-size instances.
template MerkleRoots(n, depth) {
    signal input leaf[n];
    signal input pathElements[n][depth];
    signal input pathIndices[n][depth];
    signal output root[n];
    component proof[n];
    for (var j = 0; j < n; j++) {
        proof[j] = MerkleRoot(depth);
        proof[j].leaf <== leaf[j];
        proof[j].pathElements <== pathElements[j];
        proof[j].pathIndices <== pathIndices[j];
        root[j] <== proof[j].root;
    }
}
