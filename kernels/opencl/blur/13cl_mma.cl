/*
 * Rung 13cl: rung 13 in OpenCL C. Both passes of the 8-bit blur on the
 * tensor cores through inline PTX (mma.sync f16 -> f32), every intermediate
 * in registers, as kernels/cuda/blur/13_mma.cu does.
 *
 * Computes   what rung 13 computes, to the bit: the same band, the same
 *            instructions in the same order, the same error bound
 *            (kl_blur_mma_bound, argued in 13_mma.cu's comment); see there
 *            for the band, the row pass, the column pass and the geometry.
 * Where:     only NVIDIA GPUs of compute capability 8.0 or more run PTX's
 *            mma.sync; kladder skips the rung, with the reason, on every
 *            other device, before anything is built. Through the CUDA
 *            backend the same source runs behind kernels/cuda/prelude.cuh.
 * Change:    OpenCL C has no lambda, no reference and no template: a step
 *            of the walk is an inline function over pointers to the ring
 *            and the row groups, called with its ring slot u a literal of
 *            an unrolled loop, so every index is known at compile time and
 *            the ring stays in registers. Loads are plain loads through
 *            const restrict pointers (no __ldg). OpenCL cannot ask for a
 *            number of blocks per multiprocessor (rung 13's MB), only for a
 *            work-group size (reqd_work_group_size). Sum w', which rung 13
 *            adds in double, is added here as an integer count of 2^-24
 *            (every half weight is one), so no device needs fp64; the
 *            rounding to float of -1152 sum w' is the same single one.
 * Macros:    RAD (set by the host, at most 64); WX (default 4), CW (4), SH
 *            (128), as rung 13; KL_PIX_UCHAR4 (required).
 * Sizes:     any W, H >= 1, as rung 13.
 *
 * Backends:  OpenCL on NVIDIA (compute capability 8.0+); CUDA from this same
 *            source through kernels/cuda/prelude.cuh.
 */
#ifndef RAD
#error "13cl_mma: RAD (blur radius) must be set by the host (-DRAD=r)"
#endif
#ifndef KL_PIX_UCHAR4
#error "13cl_mma computes 8-bit RGBA pixels: build it with -DKL_PIX_UCHAR4"
#endif
#ifndef WX
#define WX 4
#endif
#ifndef CW
#define CW 4
#endif
#ifndef SH
#define SH 128
#endif
#if RAD < 0 || RAD > 64
#error "13cl_mma: 0 <= RAD <= 64"
#endif
#if CW != 1 && CW != 2 && CW != 4
#error "13cl_mma: CW must be 1, 2 or 4"
#endif
#if WX < 1 || WX * (4 / CW) > 32 || SH < 1
#error "13cl_mma: 1 <= WX, WX * 4/CW warps <= 32, SH >= 1"
#endif

#define RA8 ((RAD + 7) / 8 * 8)         /* input columns (rows) before the first output */
#define OFF (RA8 - RAD)                 /* the band's shift */
#define NK ((16 + RA8 + RAD + 15) / 16) /* blocks of 16 inputs per 16 outputs */
#define NG (4 / CW)                     /* channel groups per strip */

typedef uint h2; /* two halves, the first in the low 16 bits */

/* d += a * b on the tensor cores: one 16 x 8 x 16 product of halves, FP32 sums. */
inline void mma(float *d, const uint *a, const h2 b0, const h2 b1)
{
    asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
        "{%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1), "f"(d[0]), "f"(d[1]),
          "f"(d[2]), "f"(d[3]));
}

/* (lo, hi) rounded to halves, lo in the low 16 bits. */
inline h2 to_h2(const float lo, const float hi)
{
    h2 d;
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(d) : "f"(hi), "f"(lo));
    return d;
}

/* f rounded to the nearest half, as cvt.rn.f16x2.f32 rounds the band. */
inline float to_half(const float f)
{
    float r;
    asm("{ .reg .f16 h; cvt.rn.f16.f32 h, %1; cvt.f32.f16 %0, h; }" : "=f"(r) : "f"(f));
    return r;
}

/* Bytes of (a, b) picked by sel, as CUDA's __byte_perm. */
inline uint prmt(const uint a, const uint b, const uint sel)
{
    uint d;
    asm("prmt.b32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(sel));
    return d;
}

/* Channels 2p and 2p + 1 of two RGBA8 pixels: bytes (lo.2p, hi.2p, lo.2p+1, hi.2p+1). */
inline uint gather(const uint lo, const uint hi, const int p)
{
    return prmt(lo, hi, p ? 0x7362u : 0x5140u);
}
/* Channel c of gathered pixels (gather(lo, hi, c / 2)) as a half2, 1024 + b each: exact. */
inline h2 pair_of(const uint v, const int c)
{
    return prmt(v, 0x64646464u, c & 1 ? 0x4342u : 0x4140u);
}

/* A result rounded to the nearest level, in the low byte; no clamp (13_mma.cu's level). */
inline uint level(const float v)
{
    return as_uint(v + 12582912.0f); /* 1.5 * 2^23: a unit of 1 in the low bits */
}

/* Weight j of the band (0 off it). */
inline float band(__constant float *w, const int j)
{
    return j >= 0 && j <= 2 * RAD ? w[j] : 0.0f;
}

/* The 4 pixels of input row y a thread's B fragments take in each k-block (8 bytes twice). */
typedef struct {
    uint p[NK][4];
} group;

inline void load_group(group *gr, const __global uint *restrict src, const int W, const int H,
                       const int y, const int x0, const int inside)
{
    const __global uint *row = src + (size_t)min(max(y, 0), H - 1) * W;
#pragma unroll
    for (int i = 0; i < NK; i++) {
        const int x = x0 + 16 * i;
        if (inside) {
            const uint2 u = *(const __global uint2 *)(row + x);
            const uint2 v = *(const __global uint2 *)(row + x + 8);
            gr->p[i][0] = u.x, gr->p[i][1] = u.y, gr->p[i][2] = v.x, gr->p[i][3] = v.y;
        } else {
#pragma unroll
            for (int j = 0; j < 4; j++)
                gr->p[i][j] = row[min(max(x + (j & 1) + (j >> 1) * 8, 0), W - 1)];
        }
    }
}

/* The row pass of one group, channels ch0 .. ch0 + CW - 1, into a ring slot's half2 pairs. */
inline void row_pass(const group *gr, uint a[NK][4], const int ch0, const float c0, h2 out[CW][2])
{
    uint v[NK][2][(CW + 1) / 2];
#pragma unroll
    for (int i = 0; i < NK; i++)
#pragma unroll
        for (int p = 0; p < (CW + 1) / 2; p++) {
            v[i][0][p] = gather(gr->p[i][0], gr->p[i][1], ch0 / 2 + p);
            v[i][1][p] = gather(gr->p[i][2], gr->p[i][3], ch0 / 2 + p);
        }
#pragma unroll
    for (int c = 0; c < CW; c++) {
        float d[4] = {c0, c0, c0, c0};
#pragma unroll
        for (int i = 0; i < NK; i++)
            mma(d, a[i], pair_of(v[i][0][c / 2], ch0 + c), pair_of(v[i][1][c / 2], ch0 + c));
        out[c][0] = to_h2(d[0], d[1]); /* column g, rows 2t and 2t+1 */
        out[c][1] = to_h2(d[2], d[3]); /* column g + 8 */
    }
}

/* Output rows y and y + 8 of columns x, x + 1 (h = 0, 1) from the column pass's sums d. */
inline void store(__global uint *restrict dst, const int W, const int x, const int y,
                  const int yend, const int ch0, float d[CW][4])
{
#pragma unroll
    for (int h = 0; h < 2; h++) {
        if (y + 8 * h >= yend)
            continue;
        __global uint *out = dst + (size_t)(y + 8 * h) * W + x;
#if CW == 4
        uint px[2];
#pragma unroll
        for (int e = 0; e < 2; e++)
            px[e] = prmt(prmt(level(d[0][2 * h + e]), level(d[1][2 * h + e]), 0x0040u),
                         prmt(level(d[2][2 * h + e]), level(d[3][2 * h + e]), 0x0040u), 0x5410u);
        if (W % 2 == 0 && x + 1 < W) {
            *(__global uint2 *)out = VEC2(uint2, px[0], px[1]);
        } else {
            if (x < W)
                out[0] = px[0];
            if (x + 1 < W)
                out[1] = px[1];
        }
#else
#pragma unroll
        for (int e = 0; e < 2; e++) {
            if (x + e >= W)
                continue;
            __global uchar *o = (__global uchar *)(out + e) + ch0;
#pragma unroll
            for (int c = 0; c < CW; c++)
                o[c] = (uchar)level(d[c][2 * h + e]);
        }
#endif
    }
}

/* The state of a warp's walk down its strip (13_mma.cu's kernel locals). */
typedef struct {
    const __global uint *src;
    __global uint *dst;
    int W, H, x0, yq, inside, c0, ch0, y0, yend, g;
    float cr;
} walk;

/*
 * Step s of the walk, ring slot u = s mod NK (a literal where it is called): the next step's
 * two groups load, this step's two complete the window, and output rows y0 + 16s + g (+ 8),
 * columns c0 + 8n + 2t (+ 1), are stored.
 */
inline void step(const walk *k, uint a[NK][4], h2 ring[NK][2][CW][2], group *nxt, group *nx2,
                 const int u, const int s, const int t)
{
    const group cur = *nxt, cu2 = *nx2;
    load_group(nxt, k->src, k->W, k->H, k->yq + 8 * (2 * s + 2 * NK), k->x0, k->inside);
    load_group(nx2, k->src, k->W, k->H, k->yq + 8 * (2 * s + 2 * NK + 1), k->x0, k->inside);
    row_pass(&cur, a, k->ch0, k->cr, ring[(u + NK - 1) % NK][0]);
    row_pass(&cu2, a, k->ch0, k->cr, ring[(u + NK - 1) % NK][1]);
#pragma unroll
    for (int n = 0; n < 2; n++) {
        float d[CW][4];
#pragma unroll
        for (int c = 0; c < CW; c++) {
            d[c][0] = d[c][1] = d[c][2] = d[c][3] = 128.0f;
#pragma unroll
            for (int i = 0; i < NK; i++)
                mma(d[c], a[i], ring[(u + i) % NK][0][c][n], ring[(u + i) % NK][1][c][n]);
        }
        store(k->dst, k->W, k->c0 + 8 * n + 2 * t, k->y0 + 16 * s + k->g, k->yend, k->ch0, d);
    }
}

__kernel __attribute__((reqd_work_group_size(32 * WX * NG, 1, 1))) void
blur_fused(const __global uint *restrict src, __global uint *restrict dst, const int W, const int H,
           __constant float *w)
{
    const int lane = get_local_id(0) & 31, warp = get_local_id(0) >> 5;
    const int g = lane >> 2, t = lane & 3;
    const int c0 = ((int)get_group_id(0) * WX + warp % WX) * 16;
    if (c0 >= W)
        return; /* the whole warp: no barrier follows */

    /* The band's fragments: A[m][k] at (m, k) = (g + 8(r&1), 2t + 8(r>>1) + {0, 1}). */
    uint a[NK][4];
#pragma unroll
    for (int i = 0; i < NK; i++)
#pragma unroll
        for (int r = 0; r < 4; r++) {
            const int j = 16 * i + 2 * t + 8 * (r >> 1) - (g + 8 * (r & 1)) - OFF;
            a[i][r] = to_h2(band(w, j), band(w, j + 1));
        }
    long units = 0; /* sum w' in units of 2^-24, exact: halves of exponents -24 to 0 */
    for (int j = 0; j <= 2 * RAD; j++)
        units += (long)(to_half(w[j]) * 16777216.0f);

    walk k;
    k.src = src, k.dst = dst, k.W = W, k.H = H, k.c0 = c0, k.g = g;
    k.cr = (float)(-1152 * units) * 0x1p-24f; /* the row pass's first accumulator */
    k.ch0 = warp / WX * CW;
    k.y0 = (int)get_group_id(1) * SH;
    /* Group q: input rows y0 - RA8 + 8q ..; this thread's row g of it, columns from x0. */
    k.x0 = c0 - RA8 + 2 * t, k.yq = k.y0 - RA8 + g;
    k.inside = W % 2 == 0 && c0 - RA8 >= 0 && c0 - RA8 + 16 * NK <= W;
    k.yend = min(H, k.y0 + SH);
    const int steps = (k.yend - k.y0 + 15) / 16;

    /* The ring: slot p holds groups 2p' and 2p'+1 for the k-block p' = p mod NK. */
    h2 ring[NK][2][CW][2];
    group nxt, nx2;
#pragma unroll
    for (int q = 0; q < 2 * NK - 2; q++) {
        load_group(&nxt, src, W, H, k.yq + 8 * q, k.x0, k.inside);
        row_pass(&nxt, a, k.ch0, k.cr, ring[q / 2][q % 2]);
    }
    load_group(&nxt, src, W, H, k.yq + 8 * (2 * NK - 2), k.x0, k.inside);
    load_group(&nx2, src, W, H, k.yq + 8 * (2 * NK - 1), k.x0, k.inside);

    /* Whole rounds of NK steps with no branch between them, so their work can overlap. */
    int s = 0;
    for (; s + NK <= steps; s += NK)
#pragma unroll
        for (int u = 0; u < NK; u++)
            step(&k, a, ring, &nxt, &nx2, u, s + u, t);
#pragma unroll
    for (int u = 0; u < NK; u++)
        if (s + u < steps)
            step(&k, a, ring, &nxt, &nx2, u, s + u, t);
}
