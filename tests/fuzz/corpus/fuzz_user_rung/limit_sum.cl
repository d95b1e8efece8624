// An expression at the limit of 2^62: it must fail cleanly.
// kladder: workload copy
// kladder: global 4611686018427387904 + 4611686018427387904
// kladder: local 1
