/*
 * A row kernel of your own: softmax, layer norm or RMS norm of each row of a
 * rows x cols matrix, row-major. Run it beside the ladder:
 *   kladder softmax --op layernorm --kernel softmax.cl
 * The interface (docs/KERNELS.md): TA is the element as stored (float, half
 * or bf16's ushort; --type): read one as a float with LD(p, i), store a
 * float as one with ST(v, i, p), rounded to nearest. One of OP_SOFTMAX,
 * OP_LAYERNORM and OP_RMSNORM is defined (--op); gamma, beta and eps are
 * --gamma, --beta and --eps (softmax leaves them; RMS norm leaves beta).
 *
 * kladder: workload softmax
 * kladder: summary template: a work-item per row, three passes
 * kladder: global round_up(ROWS, WG)
 * kladder: local WG
 * kladder: param WG 64 1..1024 -- work-items a work-group
 */
__kernel void softmax(const __global TA *x, __global TA *y, const int nrows, const int cols,
                   const float gamma, const float beta, const float eps)
{
    const int r = get_global_id(0);
    if (r >= nrows) /* the global size is rounded up to whole work-groups */
        return;
    const __global TA *xr = x + (size_t)r * cols;
    __global TA *yr = y + (size_t)r * cols;
#if defined(OP_SOFTMAX)
    float m = LD(xr, 0), s = 0.0f; /* the max first, so that no exp overflows */
    for (int i = 1; i < cols; i++)
        m = fmax(m, LD(xr, i));
    for (int i = 0; i < cols; i++)
        s += exp(LD(xr, i) - m);
    for (int i = 0; i < cols; i++)
        ST(exp(LD(xr, i) - m) / s, i, yr);
#else
    float mean = 0.0f, ss = 0.0f;
#if defined(OP_LAYERNORM)
    for (int i = 0; i < cols; i++)
        mean += LD(xr, i);
    mean /= cols;
#endif
    for (int i = 0; i < cols; i++) /* the spread about the mean: no E[x^2] - mean^2 */
        ss += (LD(xr, i) - mean) * (LD(xr, i) - mean);
    const float scale = gamma * rsqrt(ss / cols + eps);
#if defined(OP_LAYERNORM)
    const float shift = beta;
#else
    const float shift = 0.0f;
#endif
    for (int i = 0; i < cols; i++)
        ST((LD(xr, i) - mean) * scale + shift, i, yr);
#endif
}
