/*
 * How far rung 11_half2's packed-half arithmetic can be from the exact blur.
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

#endif /* KL_BLUR_BOUND_H */
