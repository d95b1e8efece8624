/*
 * Rung 18 (CUDA, Hopper only): rung 17 with every value split into two
 * TF32 parts, three tensor-core products per step: float-accurate TF32
 * (3xTF32) on Hopper's wgmma path.
 *
 * Computes   C = A*B as rung 17 (same geometry, layout, sizes); its own
 *            defaults: BM = 128 (two accumulators per thread, 2 x 64
 *            registers), BN = 128, STAGES = 4. kladder's sm_90 presets
 *            take three stages above ~1024^3: on an H100 four ran up to 30 %
 *            slower from 8192^3 up, at lower clocks on more power
 *            (docs/RESULTS.md).
 * Precision: 3xtf32: x = big + small, big = tf32(x), small = tf32(x - big),
 *            both rounded to nearest; a*b is taken as small_a*big_b +
 *            big_a*small_b + big_a*big_b. B is split in registers as its
 *            fragments are read. A is split by the copies: kernel pad
 *            writes A's residual a - tf32(a) once, before the product, and
 *            TMA rounds A into big and the residual into small as it copies
 *            each slice (both maps TFLOAT32), into a third part of the
 *            stage. (With PAD=0, the residual's rule where N is below about
 *            690, and given A as it is, on kl_gemm_launch_on's path, the
 *            producer warpgroup's three idle warps split A's slice in
 *            shared memory, then mark the stage ready.) Each slice's
 *            products are summed on the tensor cores in part[] and added to
 *            the result by the FMA units, which round to nearest (the
 *            tensor cores' sums truncate). Where K <= 8 the FMA units
 *            multiply instead (one split product may miss a*b by more than
 *            the fp32 tolerance allows at K = 1). Checked against the fp32
 *            tolerance.
 * Change:    rung 16's split on Hopper's wgmma path: a third of rung 17's
 *            rate, far above the FMA units', at float accuracy. Splitting
 *            A by the copies instead of in shared memory gained 4-6 % at
 *            4096^3 and 14 % at 8191 x 8193 x 257 on an H100; part[] keeps
 *            the tiles at 128 rows, which bounds the rest (docs/RESULTS.md).
 *
 * Backends:  CUDA only (NVRTC for sm_90a), compute capability 9.0 only.
 */
#define SPLIT 3
#ifndef BM
#define BM 128
#endif
#include "17_wgmma_tf32.cu"
