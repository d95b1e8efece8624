/*
 * Rung 18 (CUDA, Hopper only): rung 17 with every value split into two
 * TF32 parts, three tensor-core products per step: float-accurate TF32
 * (3xTF32) on Hopper's wgmma path.
 *
 * Computes   C = A*B as rung 17 (same geometry, layout, sizes); its own
 *            defaults: BM = 128 (two accumulators per thread, 2 x 64
 *            registers), BN = 128, STAGES = 4.
 * Precision: 3xtf32: x = big + small, big = tf32(x), small = tf32(x - big),
 *            both rounded to nearest; a*b is taken as small_a*big_b +
 *            big_a*small_b + big_a*big_b. B is split in registers as its
 *            fragments are read; A's slice is split in shared memory by
 *            the producer warpgroup's three idle warps (big in place, small
 *            in a third part of the stage), which then mark the stage
 *            ready. Each slice's products are summed on the tensor cores in
 *            part[] and added to the result by the FMA units, which round
 *            to nearest (the tensor cores' sums truncate). Where K <= 8
 *            the FMA units multiply instead (one split product may miss a*b
 *            by more than the fp32 tolerance allows at K = 1). Checked
 *            against the fp32 tolerance.
 * Change:    rung 16's split on Hopper's wgmma path: a third of rung 17's
 *            rate, far above the FMA units', at float accuracy.
 *
 * Backends:  CUDA only (NVRTC for sm_90a), compute capability 9.0 only.
 */
#define SPLIT 3
#ifndef BM
#define BM 128
#endif
#include "17_wgmma_tf32.cu"
