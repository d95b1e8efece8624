/*
 * Rung 16 (CUDA only): rung 15 with every value split into two TF32 parts,
 * three tensor-core products per step: float-accurate TF32 (3xTF32).
 *
 * Computes   C = A*B as rung 15 (same geometry, macros, layout, sizes); its
 *            own defaults, the fastest of the sweep for 3xTF32 on an H100:
 *            BK = 32, WN = 32, STAGES = 3 (the small parts need registers
 *            that 64 x 64 warp tiles do not leave).
 * Precision: 3xtf32: x = big + small, big = tf32(x), small = tf32(x - big);
 *            a*b is taken as small_a*big_b + big_a*small_b + big_a*big_b,
 *            the small products first, a K-slice's summed on the tensor
 *            cores and added to the result by the FMA units (rung 15's
 *            comment says why). It misses a*b by a few units of float's
 *            rounding u (at most 8u for one product; the products of the
 *            dropped parts are added where K <= 8), so kladder checks it
 *            against the fp32 tolerance, as the FFMA rungs.
 * Change:    rung 15 rounds each input to 10 mantissa bits (a relative
 *            error up to 2^-11 per value). Three products per step, and a
 *            subtraction and a second rounding per fragment value, buy back
 *            float accuracy at a third of the TF32 rate: still well above
 *            the FMA units' rate, since an H100's tensor cores multiply
 *            TF32 several times faster than its FFMA units.
 *
 * Backends:  CUDA only (NVRTC), compute capability 8.0 or more.
 */
#define SPLIT 3
#ifndef BK
#define BK 32
#endif
#ifndef WN
#define WN 32
#endif
#ifndef STAGES
#define STAGES 3
#endif
#include "15_mma_tf32.cu"
