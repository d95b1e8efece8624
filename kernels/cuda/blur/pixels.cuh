/*
 * What the CUDA blur rungs (09_async.cu to 12_regblock.cu) share, included
 * after they set RAD and PX: the pixel as stored (P: float, or uchar4 with KL_PIX_UCHAR4)
 * and as computed (F: float, float4), their conversions (rounded to nearest
 * and saturated for uchar4) and multiply-add; NW, the taps; NPX, rung 07's
 * pixels-per-thread rule, which the host's px_of repeats to size the launch;
 * RA, the halo columns staged on each side (RAD rounded up to a multiple of
 * 4); VREG, whether the window of NW rows of NPX pixels fits in registers;
 * cp.async copies of 4 and 16 bytes into shared memory; and stage_tile, the
 * copies of a whole tile of rows (rungs 10, 11 and 12).
 *
 * kladder puts this file's text in place of the #include line before NVRTC
 * compiles a rung (kl_kernel_inline); nvcc finds it beside the rung.
 */
#ifndef KL_BLUR_PIXELS_CUH
#define KL_BLUR_PIXELS_CUH

#define NW (2 * RAD + 1) /* taps, and rows in the vertical window */
#if defined(KL_PIX_UCHAR4)
#define NCH 4
struct __align__(4) P {
    unsigned char x, y, z, w;
};
typedef float4 F;
static __device__ __forceinline__ F to_f(P p) { return make_float4(p.x, p.y, p.z, p.w); }
static __device__ __forceinline__ unsigned char to_u8(float f)
{
    return (unsigned char)__float2uint_rn(fminf(fmaxf(f, 0.0f), 255.0f));
}
static __device__ __forceinline__ P to_p(F f) { return P{to_u8(f.x), to_u8(f.y), to_u8(f.z), to_u8(f.w)}; }
static __device__ __forceinline__ F zero() { return make_float4(0.0f, 0.0f, 0.0f, 0.0f); }
static __device__ __forceinline__ void madd(F &a, float w, F v)
{
    a.x = fmaf(w, v.x, a.x), a.y = fmaf(w, v.y, a.y), a.z = fmaf(w, v.z, a.z), a.w = fmaf(w, v.w, a.w);
}
#else
#define NCH 1
typedef float P;
typedef float F;
static __device__ __forceinline__ F to_f(P p) { return p; }
static __device__ __forceinline__ P to_p(F f) { return f; }
static __device__ __forceinline__ F zero() { return 0.0f; }
static __device__ __forceinline__ void madd(F &a, float w, F v) { a = fmaf(w, v, a); }
#endif

/* Pixels per thread: rung 07's rule (the host sizes the launch by it). */
#if PX >= 8 * NCH && NW * 8 * NCH <= 64
#define NPX 8
#elif PX >= 4 * NCH && NW * 4 * NCH <= 64
#define NPX 4
#elif PX >= 2 * NCH && NW * 2 * NCH <= 64
#define NPX 2
#else
#define NPX 1
#endif

#define RA (((RAD + 3) / 4) * 4)    /* halo columns staged on each side */
#define VREG (NW * NPX * NCH <= 64) /* the window (and weights) in registers */

static __device__ __forceinline__ void copy4(void *dst, const void *src)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(
                     (unsigned)__cvta_generic_to_shared(dst)),
                 "l"(src));
}
static __device__ __forceinline__ void copy16(void *dst, const void *src)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(
                     (unsigned)__cvta_generic_to_shared(dst)),
                 "l"(src));
}

/*
 * Issues the cp.async copies of a tile of rows x cols 4-byte pixels whose
 * top-left source pixel is (x0, y0), rows and columns clamped into the
 * image, into rows pitch pixels apart (pitch a multiple of 4), by nthreads
 * threads (this one is tid); the caller commits and waits. The tile's
 * pieces are numbered row after row and dealt to the threads in turn, so
 * each warp copies neighbouring pieces at once (a warp per row, 32 pieces
 * and then a tail, ran 10 % slower on an H100: docs/RESULTS.md). 16-byte copies where the tile lies inside its rows and
 * rows are 16-byte aligned, 4-byte copies otherwise.
 */
static __device__ __forceinline__ void stage_tile(void *tile, int pitch, const void *__restrict__ src,
                                                  int W, int H, int x0, int y0, int rows, int cols,
                                                  int tid, int nthreads)
{
    unsigned *const t = (unsigned *)tile;
    const unsigned *const s = (const unsigned *)src;
    if (W % 4 == 0 && x0 % 4 == 0 && cols % 4 == 0 && x0 >= 0 && x0 + cols <= W) {
        for (int c = tid; c < rows * (cols / 4); c += nthreads) {
            const int r = c / (cols / 4), q = c - r * (cols / 4);
            copy16(t + r * pitch + 4 * q, s + (size_t)min(max(y0 + r, 0), H - 1) * W + x0 + 4 * q);
        }
    } else {
        for (int e = tid; e < rows * cols; e += nthreads) {
            const int r = e / cols, q = e - r * cols;
            copy4(t + r * pitch + q,
                  s + (size_t)min(max(y0 + r, 0), H - 1) * W + min(max(x0 + q, 0), W - 1));
        }
    }
}

#endif /* KL_BLUR_PIXELS_CUH */
