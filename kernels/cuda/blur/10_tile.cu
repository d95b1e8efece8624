/*
 * Rung 10 (CUDA only): the picture in tiles, each staged whole in shared
 * memory by cp.async before any arithmetic, as a copy issues its loads.
 *
 * Computes   dst(x, y) = sum_j w[j+RAD] * h(x, clamp(y+j, 0, H-1)),
 *            h(x, y')  = sum_i w[i+RAD] * src(clamp(x+i, 0, W-1), y')
 *            (i, j = -RAD..RAD), h kept in float, dst rounded once (uchar4:
 *            to nearest, saturated).
 * Geometry:  blocks of 32 x WY threads, one warp per row of threads. A block
 *            covers a tile of SPAN = 32*NPX columns and TH = WY*RY rows; grid
 *            ceil(W/SPAN) x ceil(H/TH). NPX follows rung 07's rule: PX floats
 *            (PX/4 uchar4 pixels, at least 1), halved while 2RAD+1 rows of
 *            them exceed 64 floats.
 * Phases:    1. Stage: the block issues the cp.async copies of all TH + 2RAD
 *               input rows of its tile (SPAN columns and a halo of RA on each
 *               side), one commit group, and waits once.
 *            2. Rows: warp ty computes the horizontal pass of staged rows ty,
 *               ty + WY, ...; each lane NPX results. Float results overwrite
 *               their own row (the warp reads all of it before any lane
 *               writes); uchar4 results, 16 bytes a pixel, go to a second
 *               array.
 *            3. Columns: thread (lane, ty) slides a window of 2RAD+1 row
 *               results in registers down rows ty*RY .. ty*RY + RY - 1 of the
 *               tile and stores them.
 * Macros:    RAD (set by the host); WY (default 4), RY (8), PX (4);
 *            KL_PIX_FLOAT (default) or KL_PIX_UCHAR4. Dynamic shared memory
 *            (TH + 2RAD) * (SPAN + 2RA) * 4 bytes, plus (TH + 2RAD) * SPAN * 16
 *            for uchar4, RA = RAD rounded up to a multiple of 4.
 * Change:    rung 09 streams a strip's rows through a ring, a barrier per
 *            row and ST - 1 rows in flight per block, in one wave of blocks
 *            that live as long as the kernel. Here a block has its whole tile
 *            in flight at once, then computes with no barrier per row; small
 *            blocks, seven per SM at the defaults, so some load while others
 *            compute, and a finished block is replaced as in a copy kernel.
 *            The price: the 2RAD halo rows are read by two tiles (1 + 2RAD/TH
 *            times the input from L2, while DRAM traffic stays near the
 *            minimum, since vertically neighbouring tiles run at the same
 *            time) and their horizontal pass is computed twice.
 * Sizes:     any W, H >= 1 and RAD >= 0 whose tile fits shared memory (the
 *            host checks). Staged rows and columns are clamped into the
 *            image, so nothing outside src is read: 16-byte copies where the
 *            tile's staged span lies inside its rows and rows are 16-byte
 *            aligned (W % 4 == 0), 4-byte copies otherwise. Stores only for
 *            x < W, y < H. Windows over 64 floats (large radii, uchar4 beyond
 *            radius 7) read their taps from shared memory instead of keeping
 *            them in registers: correct, and slower per tap.
 *
 * Backends:  CUDA only (NVRTC).
 */
#ifndef RAD
#error "10_tile: RAD (blur radius) must be set by the host (-DRAD=r)"
#endif
#ifndef WY
#define WY 4
#endif
#ifndef RY
#define RY 8
#endif
#ifndef PX
#define PX 4
#endif
static_assert(RAD >= 0 && WY >= 1 && WY <= 32 && RY >= 1, "10_tile: RAD >= 0, 1 <= WY <= 32, RY >= 1");
static_assert(PX == 1 || PX == 2 || PX == 4 || PX == 8, "10_tile: PX must be 1, 2, 4 or 8");

#include "pixels.cuh"

#define SPAN (32 * NPX)          /* columns of a tile */
#define ROW (SPAN + 2 * RA)      /* staged elements (4 bytes each) per row */
#define TH (WY * RY)             /* rows of a tile */
#define NS (TH + 2 * RAD)        /* input rows a tile reads */
/* Float inputs of the horizontal pass, and float row results, as 16-byte vectors. */
#define VEC4 (NCH == 1 && NPX % 4 == 0)

extern "C" __global__ void __launch_bounds__(32 * WY)
blur_fused(const P *__restrict__ src, P *__restrict__ dst, const int W, const int H,
           const float *__restrict__ w)
{
    extern __shared__ __align__(16) unsigned char smem[];
    P *const staged = (P *)smem; /* NS x ROW */
#if NCH == 1
    /* Row results in place of their inputs, from column RA. */
#define HROW(r) ((F *)staged + (r) * ROW + RA)
#else
    F *const hres = (F *)(staged + NS * ROW); /* NS x SPAN */
#define HROW(r) (hres + (r) * SPAN)
#endif

    const int lane = threadIdx.x, ty = threadIdx.y;
    const int gx0 = blockIdx.x * SPAN, y0 = blockIdx.y * TH;

    /* 1. Stage the tile: row r holds source row y0 - RAD + r (clamped), from column gx0 - RA. */
    stage_tile(staged, ROW, src, W, H, gx0 - RA, y0 - RAD, NS, ROW, ty * 32 + lane, 32 * WY);
    asm volatile("cp.async.commit_group;\n" ::);

#if VREG
    float wr[NW];
#pragma unroll
    for (int i = 0; i < NW; i++)
        wr[i] = w[i];
#define WT(i) wr[i]
#else
#define WT(i) w[i]
#endif
    asm volatile("cp.async.wait_group 0;\n" ::);
    __syncthreads();

    /* 2. Rows: the horizontal pass of staged rows ty, ty + WY, ... */
    for (int r = ty; r < NS; r += WY) {
        F a[NPX];
#pragma unroll
        for (int p = 0; p < NPX; p++)
            a[p] = zero();
#if VEC4 && VREG
        /* The NPX + 2RA staged floats from lane*NPX, 16 bytes at a time. */
        float v[NPX + 2 * RA];
        const float4 *r4 = (const float4 *)(staged + r * ROW + lane * NPX);
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
        const P *in = staged + r * ROW + lane * NPX + RA - RAD;
#if VREG
#pragma unroll
#else
#pragma unroll 1
#endif
        for (int i = 0; i < NW; i++)
#pragma unroll
            for (int p = 0; p < NPX; p++)
                madd(a[p], WT(i), to_f(in[p + i]));
#endif
#if NCH == 1
        __syncwarp(); /* the whole row is read: its results may overwrite it */
#endif
        F *h = HROW(r) + lane * NPX;
#if VEC4
#pragma unroll
        for (int q = 0; q < NPX / 4; q++)
            ((float4 *)h)[q] = make_float4(a[4 * q], a[4 * q + 1], a[4 * q + 2], a[4 * q + 3]);
#else
#pragma unroll
        for (int p = 0; p < NPX; p++)
            h[p] = a[p];
#endif
    }
    __syncthreads();

    /* 3. Columns: output rows r0 .. r0 + RY - 1 of the tile from row results r0 .. r0 + RY + 2RAD - 1. */
    const int r0 = ty * RY, x0 = gx0 + lane * NPX;
#if VREG
    F win[NW][NPX]; /* row result s in slot s % NW */
#pragma unroll
#else
#pragma unroll 1
#endif
    for (int s = 0; s < RY + 2 * RAD; s++) {
        F o[NPX];
#pragma unroll
        for (int p = 0; p < NPX; p++)
            o[p] = zero();
#if VREG
        const F *h = HROW(r0 + s) + lane * NPX;
#if VEC4
#pragma unroll
        for (int q = 0; q < NPX / 4; q++) {
            const float4 e = ((const float4 *)h)[q];
            win[s % NW][4 * q] = e.x, win[s % NW][4 * q + 1] = e.y;
            win[s % NW][4 * q + 2] = e.z, win[s % NW][4 * q + 3] = e.w;
        }
#else
#pragma unroll
        for (int p = 0; p < NPX; p++)
            win[s % NW][p] = h[p];
#endif
        if (s < 2 * RAD)
            continue;
#pragma unroll
        for (int j = 0; j < NW; j++)
#pragma unroll
            for (int p = 0; p < NPX; p++)
                madd(o[p], WT(j), win[(s - 2 * RAD + j) % NW][p]);
#else
        if (s < 2 * RAD)
            continue;
#pragma unroll 1
        for (int j = 0; j < NW; j++) {
            const F *h = HROW(r0 + s - 2 * RAD + j) + lane * NPX;
#pragma unroll
            for (int p = 0; p < NPX; p++)
                madd(o[p], WT(j), h[p]);
        }
#endif
        const int y = y0 + r0 + s - 2 * RAD;
        if (y >= H)
            continue;
        P *out = dst + (size_t)y * W + x0;
#if NCH == 1 && NPX % 4 == 0
        if (W % 4 == 0 && x0 + NPX <= W) {
#pragma unroll
            for (int q = 0; q < NPX / 4; q++)
                ((float4 *)out)[q] = make_float4(o[4 * q], o[4 * q + 1], o[4 * q + 2], o[4 * q + 3]);
            continue;
        }
#endif
#pragma unroll
        for (int p = 0; p < NPX; p++)
            if (x0 + p < W)
                out[p] = to_p(o[p]);
    }
}
