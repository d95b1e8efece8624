/*
 * A blur kernel of your own: the Gaussian blur of a W x H picture in one pass,
 *   dst(x, y) = sum_{j,i = -RAD..RAD} w[j+RAD] * w[i+RAD]
 *               * src(clamp(x+i, 0, W-1), clamp(y+j, 0, H-1)).
 * Run it beside the ladder:  kladder blur --kernel blur.cl
 * The interface (docs/KERNELS.md): src and dst row-major (pixel (x, y) at
 * [y*W + x]); w holds the 2*RAD+1 normalised 1-D weights. kladder sets RAD
 * and the pixel type P (float, or uchar4 with --pixel uchar4); F is its
 * arithmetic type, PIX_IN(p) turns a pixel into F and PIX_OUT(f) back (for
 * uchar4: rounded and clamped once). Edges are clamped (replicated).
 *
 * kladder: workload blur
 * kladder: summary template: one pixel per work-item, all taps from global memory
 * kladder: global round_up(W, BX), round_up(H, BY)
 * kladder: local BX, BY
 * kladder: param BX 16 1..1024 -- work-group width
 * kladder: param BY 16 1..1024 -- work-group height
 */
__kernel void blur(const __global P *src, __global P *dst, const int W, const int H,
                   const __global float *w)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= W || y >= H) /* the global size is rounded up to whole work-groups */
        return;
    F acc = (F)0;
    for (int j = -RAD; j <= RAD; j++) {
        const __global P *row = src + (size_t)clamp(y + j, 0, H - 1) * W;
        F racc = (F)0;
        for (int i = -RAD; i <= RAD; i++)
            racc += w[i + RAD] * PIX_IN(row[clamp(x + i, 0, W - 1)]);
        acc += w[j + RAD] * racc;
    }
    dst[(size_t)y * W + x] = PIX_OUT(acc);
}
