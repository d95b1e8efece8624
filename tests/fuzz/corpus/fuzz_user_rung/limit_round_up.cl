// An expression at the limit of 2^62: it must fail cleanly.
// kladder: workload copy
// kladder: global round_up(3 * 1537228672809129302, 3 * 1537228672809129302)
// kladder: local 1
