/*
 * Rung 09 (CUDA only): rung 07's strips, with the input rows staged in
 * shared memory by cp.async, ST rows ahead.
 *
 * Computes   dst(x, y) = sum_j w[j+RAD] * h(x, clamp(y+j, 0, H-1)),
 *            h(x, y')  = sum_i w[i+RAD] * src(clamp(x+i, 0, W-1), y')
 *            (i, j = -RAD..RAD), h kept in registers in float, dst rounded
 *            once (uchar4: to nearest, saturated). w must be symmetric (a
 *            Gaussian is): strips that run upwards apply it in reverse.
 * Geometry:  as rung 07: blocks of BX x 1 threads, each covering SPAN =
 *            BX*NPX columns of a strip of SY rows; thread lx computes
 *            columns lx*NPX .. +NPX-1 of its block's span. Grid
 *            ceil(W/NPX)/BX (rounded up) x ceil(H/SY). NPX follows rung
 *            07's rule: PX floats (PX/4 uchar4 pixels, at least 1), halved
 *            while 2RAD+1 rows of them exceed 64 floats.
 * Macros:    RAD (set by the host); BX (default 128), PX (4), SY (64), ST
 *            (4, rows in flight); KL_PIX_FLOAT (default) or KL_PIX_UCHAR4.
 *            Dynamic shared memory ST * (SPAN + 2RA) * 4 bytes, RA = RAD
 *            rounded up to a multiple of 4, passed at launch.
 * Change:    rung 07 loads the next row into registers, PF rows ahead, and
 *            stores it to local memory itself, so a strip is a chain of
 *            dependent steps with about one row's loads in flight per
 *            block: latency, not traffic, bounds it (docs/RESULTS.md).
 *            Here each step issues the cp.async copies of the row ST - 1
 *            steps ahead straight into a ring of ST shared-memory rows and
 *            waits only for the oldest: ST - 1 rows per block in flight,
 *            no registers held for them and no store instructions. The
 *            horizontal pass reads its inputs as 16-byte vectors (float),
 *            the vertical pass slides a window of 2RAD+1 row results in
 *            registers, as in rung 07. Odd strips run upwards, so the rows
 *            two neighbouring strips share are read at about the same
 *            time and the second read hits L2.
 * Sizes:     any W, H >= 1 and RAD >= 0. Every staged element's row and
 *            column are clamped into the image, so nothing outside src is
 *            read; 16-byte copies where the staged span lies inside its row
 *            and rows are 16-byte aligned (W % 4 == 0), 4-byte copies
 *            otherwise. Stores only for x < W, y < H. Every thread reaches
 *            every barrier. Windows over 64 floats (large radii) stay in
 *            local memory: correct, and slow.
 *
 * Backends:  CUDA only (NVRTC).
 */
#ifndef RAD
#error "09_async: RAD (blur radius) must be set by the host (-DRAD=r)"
#endif
#ifndef BX
#define BX 128
#endif
#ifndef PX
#define PX 4
#endif
#ifndef SY
#define SY 64
#endif
#ifndef ST
#define ST 4
#endif
static_assert(RAD >= 0 && BX >= 1 && SY >= 1 && ST >= 2, "09_async: RAD >= 0, BX, SY >= 1, ST >= 2");
static_assert(PX == 1 || PX == 2 || PX == 4 || PX == 8, "09_async: PX must be 1, 2, 4 or 8");

#include "pixels.cuh"

#define SPAN (BX * NPX)          /* columns of a block */
#define ROW (SPAN + 2 * RA)      /* staged elements (4 bytes each) per row */
#define NS (SY + 2 * RAD)        /* input rows a strip reads */
/* Float inputs of the horizontal pass as 16-byte vectors. */
#define VEC4 (NCH == 1 && NPX % 4 == 0 && VREG)

static __device__ __forceinline__ void commit_group() { asm volatile("cp.async.commit_group;\n" ::); }
static __device__ __forceinline__ void wait_rows() { asm volatile("cp.async.wait_group %0;\n" ::"n"(ST - 2)); }

/* Issues the copies of source row yr (clamped) into one staged row. */
static __device__ __forceinline__ void stage_row(P *dst, const P *__restrict__ src, int yr, int W,
                                                 int H, int gx0, bool fast, int lx)
{
    const P *row = src + (size_t)min(max(yr, 0), H - 1) * W;
    if (SPAN % 4 == 0 && fast) {
        for (int c = lx; c < ROW / 4; c += BX)
            copy16(dst + 4 * c, row + gx0 - RA + 4 * c);
    } else {
        for (int e = lx; e < ROW; e += BX)
            copy4(dst + e, row + min(max(gx0 - RA + e, 0), W - 1));
    }
}

extern "C" __global__ void __launch_bounds__(BX)
blur_fused(const P *__restrict__ src, P *__restrict__ dst, const int W, const int H,
           const float *__restrict__ w)
{
    extern __shared__ __align__(16) unsigned char smem[];
    P *const ring_rows = (P *)smem; /* ST x ROW */

    const int lx = threadIdx.x;
    const int gx0 = blockIdx.x * SPAN, x0 = gx0 + lx * NPX;
    const int strip = blockIdx.y, y0 = strip * SY;
    /* Odd strips upwards: row of step s is ys + dy*s; output of step s >= 2RAD is ys + dy*(s-RAD). */
    const int up = strip & 1;
    const int ys = up ? y0 + SY - 1 + RAD : y0 - RAD, dy = up ? -1 : 1;
    const bool fast = W % 4 == 0 && gx0 - RA >= 0 && gx0 + SPAN + RA <= W;

#if VREG
    float wr[NW];
#pragma unroll
    for (int i = 0; i < NW; i++)
        wr[i] = w[i];
#define WT(i) wr[i]
#else
#define WT(i) w[i]
#endif

    /* The first ST - 1 rows in flight; one commit group per step, empty or not. */
#pragma unroll
    for (int k = 0; k < ST - 1; k++) {
        if (k < NS)
            stage_row(ring_rows + k * ROW, src, ys + dy * k, W, H, gx0, fast, lx);
        commit_group();
    }

    F win[NW][NPX]; /* horizontal results of the last NW rows: step s in slot s % NW */
    for (int b = 0; b * NW < NS; b++) {
#if VREG
#pragma unroll
#else
#pragma unroll 1
#endif
        for (int t = 0; t < NW; t++) {
            const int s = b * NW + t;
            /* Row s has arrived for every thread; row s - 1's slot is free to refill. */
            wait_rows();
            __syncthreads();
            if (s + ST - 1 < NS)
                stage_row(ring_rows + (s + ST - 1) % ST * ROW, src, ys + dy * (s + ST - 1), W,
                          H, gx0, fast, lx);
            commit_group();
            if (s >= NS)
                continue; /* past the strip: only the barrier */
            F a[NPX];
#pragma unroll
            for (int p = 0; p < NPX; p++)
                a[p] = zero();
#if VEC4
            /* The NPX + 2RA staged floats from lx*NPX, 16 bytes at a time. */
            float v[NPX + 2 * RA];
            const float4 *r4 = (const float4 *)(ring_rows + s % ST * ROW + lx * NPX);
#pragma unroll
            for (int q = 0; q < (NPX + 2 * RA) / 4; q++) {
                const float4 e = r4[q];
                v[4 * q] = e.x, v[4 * q + 1] = e.y, v[4 * q + 2] = e.z, v[4 * q + 3] = e.w;
            }
#pragma unroll
            for (int i = 0; i < NW; i++)
#pragma unroll
                for (int p = 0; p < NPX; p++)
                    madd(a[p], WT(i), v[RA - RAD + p + i]);
#else
            const P *row = ring_rows + s % ST * ROW + lx * NPX + RA - RAD;
#pragma unroll
            for (int i = 0; i < NW; i++)
#pragma unroll
                for (int p = 0; p < NPX; p++)
                    madd(a[p], WT(i), to_f(row[p + i]));
#endif
            const int slot = VREG ? t : s % NW; /* t == s % NW: b counts whole windows */
#pragma unroll
            for (int p = 0; p < NPX; p++)
                win[slot][p] = a[p];
            if (s < 2 * RAD)
                continue;
            /* The vertical pass: output row of step s from steps s - 2RAD .. s. */
            const int y = ys + dy * (s - RAD);
            F o[NPX];
#pragma unroll
            for (int p = 0; p < NPX; p++)
                o[p] = zero();
#pragma unroll
            for (int j = 0; j < NW; j++) {
                const int k = ((VREG ? t : s) - 2 * RAD + j + 2 * NW) % NW;
#pragma unroll
                for (int p = 0; p < NPX; p++)
                    madd(o[p], WT(j), win[k][p]);
            }
            if (y < H) {
                P *out = dst + (size_t)y * W + x0;
#if NCH == 1 && NPX % 4 == 0
                if (W % 4 == 0 && x0 + NPX <= W) {
#pragma unroll
                    for (int q = 0; q < NPX / 4; q++)
                        ((float4 *)out)[q] =
                            make_float4(o[4 * q], o[4 * q + 1], o[4 * q + 2], o[4 * q + 3]);
                    continue;
                }
#endif
#pragma unroll
                for (int p = 0; p < NPX; p++)
                    if (x0 + p < W)
                        out[p] = to_p(o[p]);
            }
        }
    }
    asm volatile("cp.async.wait_group 0;\n" ::);
}
