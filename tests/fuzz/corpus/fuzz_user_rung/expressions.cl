/*
 * kladder: workload gemm
 * kladder: entry gemm_exprs
 * kladder: name exprs
 * kladder: global round_up(N, TS) , div_up(M, TS * 2) * TS % 7 + (K - -1) / 3, 1
 * kladder: local TS, (TS + 1) - 1, 1
 * kladder: param TS 16 1..64 pow2 multiple 2 -- tile edge
 * kladder: param WG 64 -128..1024
 */
