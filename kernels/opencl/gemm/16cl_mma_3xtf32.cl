/*
 * Rung 16cl: rung 16 in OpenCL C. Rung 15cl with every value split into two
 * TF32 parts, three tensor-core products per step: float-accurate (3xTF32).
 *
 * Computes   C = A*B as rung 15cl (same geometry, macros, layout, sizes);
 *            its own defaults, the faster for 3xTF32 on an H100: BK = 16,
 *            WN = 32 (the small parts need registers).
 * Precision: 3xtf32: x = big + small, big = tf32(x), small = tf32(x - big);
 *            a*b is taken as small_a*big_b + big_a*small_b + big_a*big_b,
 *            the small products first, a slice's summed on the tensor cores
 *            and added to the result by the FMA units (rung 16's comment
 *            says why). It misses a*b by a few units of float's rounding u
 *            (at most 8u for one product; where K <= 8 the products of the
 *            dropped parts are added), so kladder checks it against the
 *            fp32 tolerance, as the FFMA rungs.
 * Change:    rung 15cl rounds each input to 10 mantissa bits (a relative
 *            error up to 2^-11 per value). Three products per step, and a
 *            subtraction and a second rounding per fragment value, buy back
 *            float accuracy at a third of the TF32 rate: still above the
 *            FMA units' rate on a GPU whose tensor cores are several times
 *            faster than them.
 *
 * Backends:  OpenCL on NVIDIA (compute capability 8.0+); CUDA through
 *            kernels/cuda/prelude.cuh.
 */
#define SPLIT 3
#ifndef BK
#define BK 16
#endif
#ifndef WN
#define WN 32
#endif
#include "15cl_mma_tf32.cl"
