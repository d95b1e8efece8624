/*
 * Split-K's sum, for the FMA rungs 13 and 14 with SPLITK > 1: each split of
 * K left its partial product of C in the workspace W (split z at W + z M N),
 * and this adds them into C in split order, so that C is the same bits from
 * run to run (an atomic addition into C would add in whatever order the
 * blocks finish).
 *
 * Computes   C[i] = W[0][i] + W[1][i] + ... + W[splits - 1][i], i < n = M N.
 * Types:     C's type T (float for the narrow floating types, int for int8;
 *            kernels/opencl/prelude.cl), as the rungs' partial products.
 * Geometry:  one work-item per element of C: the reads of each split and
 *            the write are coalesced, and the kernel moves (splits + 1) n
 *            elements, timed with the product.
 *
 * Backends:  OpenCL; CUDA from this same source through kernels/cuda/prelude.cuh.
 */
__kernel void reduce_splits(const __global T *restrict W, __global T *restrict C, const int n,
                            const int splits)
{
    const size_t i = get_global_id(0); /* the launch is rounded up past n */
    if (i >= (size_t)n)
        return;
    T sum = W[i];
    for (int z = 1; z < splits; z++)
        sum += W[(size_t)z * n + i];
    C[i] = sum;
}
