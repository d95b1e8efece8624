/*
 * A transpose kernel of your own: b[j][i] = a[i][j] for an m x n matrix a,
 * row-major (b is n x m). Run it beside the ladder:
 *   kladder transpose --kernel transpose.cl
 * The interface (docs/KERNELS.md): EL is an element's bits (float, double,
 * or ushort for half and bf16; --type), set by kladder. With --place in,
 * IN_PLACE is 1, the matrix is square, and a and b are one buffer: the
 * kernel transposes b where it lies.
 *
 * kladder: workload transpose
 * kladder: summary template: one element per work-item
 * kladder: global round_up(N, TX), round_up(M, TY)
 * kladder: local TX, TY
 * kladder: param TX 32 1..1024 -- work-group width (columns of a)
 * kladder: param TY 8 1..1024 -- work-group height (rows of a)
 */
__kernel void transpose(const __global EL *a, __global EL *b, const int m, const int n)
{
    const int j = get_global_id(0), i = get_global_id(1);
    if (i >= m || j >= n) /* the global size is rounded up to whole work-groups */
        return;
#if IN_PLACE
    if (j > i) { /* one work-item per pair above the diagonal swaps it */
        const EL upper = b[(size_t)i * n + j];
        b[(size_t)i * n + j] = b[(size_t)j * n + i];
        b[(size_t)j * n + i] = upper;
    }
#else
    b[(size_t)j * m + i] = a[(size_t)i * n + j];
#endif
}
