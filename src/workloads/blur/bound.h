/*
 * How far the blur rungs that compute in halves (11_half2's packed halves, 13_mma's and
 * 14_mma_split's tensor cores) can be from the exact blur.
 */
#ifndef KL_BLUR_BOUND_H
#define KL_BLUR_BOUND_H

/*
 * The bound 11_half2.cu's comment argues, in levels, before the final rounding, for weights
 * w (2R+1 floats, symmetric, R <= 512): the column pass on integers in [-128, 127], the row
 * pass on its results, and what rounding the weights to half moves. The host runs the rung
 * only where it is at most 0.5, so every output lands within one level.
 */
double kl_blur_half2_bound(const float *w, int R);

/* The largest radius rung 13_mma takes: its window of 16 + 2R rows lives in registers. */
#define KL_BLUR_MMA_MAX_RADIUS 64

/*
 * The bound 13_mma.cu's comment argues, in levels, before the final rounding, for weights w
 * (2R+1 floats, R <= KL_BLUR_MMA_MAX_RADIUS): half weights, products exact, each tensor-core
 * instruction's FP32 sum within 18 * 2^-23 of the largest magnitude it holds, the row pass's
 * results rounded to half. The host runs the rung only where it is at most 0.5.
 */
double kl_blur_mma_bound(const float *w, int R);

/*
 * The bound 14_mma_split.cu's comment argues, in the values' units, for weights w (2R+1
 * floats, R <= KL_BLUR_MMA_MAX_RADIUS) and inputs of magnitude up to m: what splitting values
 * and weights into two halves misses, each tensor-core instruction's FP32 sum within
 * 18 * 2^-23 of the largest magnitude it holds, the FP32 adds, both passes. The host runs the
 * rung only where it is within the float tolerance.
 */
double kl_blur_split_bound(const float *w, int R, double m);

#endif /* KL_BLUR_BOUND_H */
