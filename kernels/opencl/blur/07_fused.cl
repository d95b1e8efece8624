/*
 * Rung 07: both passes fused in one kernel: each work-item slides a window
 * of row results down a strip of SY rows.
 *
 * Computes   dst(x, y) = sum_j w[j+RAD] * h(x, clamp(y+j, 0, H-1)),
 *            h(x, y')  = sum_i w[i+RAD] * src(clamp(x+i, 0, W-1), y')
 *            (i, j = -RAD..RAD): the separable blur of rung 03, with h
 *            kept in registers as F (never rounded); dst rounded once with
 *            PIX_OUT. w must be symmetric (w[k] = w[2RAD-k], as a Gaussian
 *            is): strips that run upwards apply it in reverse order.
 * Geometry:  2-D. A work-group is BX x 1 work-items (reqd_work_group_size)
 *            and covers SPAN = BX*NPX columns of one strip of SY rows;
 *            work-item (gx, gy) computes columns gx*NPX .. gx*NPX+NPX-1 of
 *            rows gy*SY .. gy*SY+SY-1. Global size ceil(W/NPX) rounded up
 *            to BX, by ceil(H/SY). NPX, the pixels per work-item, is PX
 *            floats (PX/4 uchar4 pixels, at least 1), halved while NW rows
 *            of NPX pixels would exceed 64 floats; the host applies the
 *            same rule to size the launch.
 * Macros:    RAD (>= 0, no default: set by the host);
 *            BX (default 64): work-group width;
 *            PX (1, 2, 4 or 8; default 2): floats per work-item along x;
 *            SY (default 64): rows per work-item;
 *            PF (default 1): input rows loaded ahead (LA below).
 *            Local memory: 2 * (SPAN + 2RA) * sizeof(F) bytes, RA = RAD
 *            rounded up to a multiple of 4; the host checks it.
 * Change:    rungs 03-06 write the whole intermediate image to global
 *            memory and read it back, twice the traffic of reading src
 *            once and writing dst once; the old fused rung (a 2-D tile
 *            with halo in local memory) read (1+2RAD/BX)(1+2RAD/BY) times
 *            the input and ran both passes through local memory. Here a
 *            work-item walks down its strip one input row per step, from
 *            RAD rows above it to RAD rows below (NS = SY + 2RAD steps):
 *            - the group stages the row (its SPAN columns and RA columns
 *              of halo on each side, clamped) in local memory, one of two
 *              buffers by the parity of the step, so one barrier a step
 *              suffices; each work-item loads its own NPX columns
 *              (float2/float4 elements for float pixels) LA rows ahead,
 *              into registers, so the loads of the next rows are in flight
 *              while this row is computed;
 *            - it computes the horizontal pass of its NPX columns from the
 *              staged row (VL-wide local reads, each added into every
 *              output it reaches) into ring[step % NW], registers that
 *              hold the last NW row results;
 *            - once NW rows are in, it computes one output row, the
 *              vertical pass over ring, and stores it (float2/float4).
 *            The loop over steps is unrolled in blocks of NL = NW*LA steps,
 *            so every ring slot and prefetch register is known at compile
 *            time: nothing is shifted between registers. Global traffic:
 *            the 2RAD rows around each boundary between two strips are
 *            read by both; odd strips run upwards, so both read them at
 *            about the same time and the second read hits L2: DRAM sees
 *            src about once and dst once. Arithmetic: 2RAD+1 multiply-adds per pixel and pass,
 *            plus the horizontal pass of the 2RAD halo rows (a factor
 *            1 + 2RAD/SY). The cost: NW*NPX floats of window in registers
 *            per work-item, which bound the work-items an SM holds, while
 *            a strip is a long dependent chain: SY trades the halo work
 *            against the number of work-items.
 *            Large radii (a window over 64 floats) keep the window in
 *            private memory and loop without unrolling (LA = 1);
 *            horizontal inputs beyond 64 floats are read from local
 *            memory tap by tap.
 * Sizes:     staged elements hold clamped coordinates (rows and columns),
 *            so borders and a RAD larger than the image need no special
 *            case and nothing outside src is read; float2/float4 global
 *            accesses are used only where W is a multiple of VL and all
 *            VL columns are inside the row, else elements are loaded and
 *            stored one by one (stores only for x < W and y < H). Every
 *            work-item, also one past the right or bottom edge, runs all
 *            steps and reaches every barrier (the barrier is outside all
 *            conditions; steps past the strip's NS rows only reach it).
 *
 * Backends:  OpenCL; CUDA from this same source through kernels/cuda/prelude.cuh.
 */
#ifndef RAD
#error "07_fused: RAD (blur radius) must be set by the host (-DRAD=r)"
#endif
#if RAD < 0
#error "07_fused: RAD (blur radius) must be >= 0"
#endif
#ifndef BX
#define BX 64
#endif
#ifndef PX
#define PX 2
#endif
#ifndef SY
#define SY 64
#endif
#ifndef PF
#define PF 1
#endif
#if BX < 1 || SY < 1 || PF < 1
#error "07_fused: BX, SY and PF must be >= 1"
#endif
#if PX != 1 && PX != 2 && PX != 4 && PX != 8
#error "07_fused: PX must be 1, 2, 4 or 8"
#endif

#define NW (2 * RAD + 1) /* taps, and rows in the vertical window */

/* Channels computed per pixel; pixels per work-item: PX floats, halved
   while NW rows of them would exceed 64 floats (the host sizes the launch
   by the same rule). */
#if defined(KL_PIX_UCHAR4)
#define NCH 4
#else
#define NCH 1
#endif
#if PX >= 8 * NCH && NW * 8 * NCH <= 64
#define NPX 8
#elif PX >= 4 * NCH && NW * 4 * NCH <= 64
#define NPX 4
#elif PX >= 2 * NCH && NW * 2 * NCH <= 64
#define NPX 2
#else
#define NPX 1
#endif

#define RA (((RAD + 3) / 4) * 4) /* halo columns staged on each side */
#define SPAN (BX * NPX)          /* columns of a work-group */
#define NS (SY + 2 * RAD)        /* input rows a strip reads */

/* The horizontal inputs and the vertical window in registers (loops fully
   unrolled), or (large radii) loops over local and private memory. */
#if (NPX + 2 * RAD) * NCH <= 64
#define HREG 1
#else
#define HREG 0
#endif
#if NW * NPX * NCH <= 64
#define VREG 1
#else
#define VREG 0
#endif

/* Rows loaded ahead (LA): PF, 1 unless the window is in registers, and at
   most 64 / NW: the steps of the loop are unrolled in blocks of NL =
   NW * LA, so that a row's window slot (step % NW) and the registers it is
   loaded into (step % LA) are known at compile time, and no register is
   copied while its load is in flight. */
#if !VREG || NW * 2 > 64
#define LA 1
#elif PF * NW > 64
#define LA (64 / NW)
#else
#define LA PF
#endif
#define NL (NW * LA)            /* steps of an unrolled block */
#define NB ((NS + NL - 1) / NL) /* blocks */

/* Float pixels, two or more per work-item: loads, local elements, the
   registers of rows loaded ahead and stores are float2 or float4 (VL
   floats); otherwise one pixel each, converted to F as it is loaded. */
#if !defined(KL_PIX_UCHAR4) && NPX >= 2 && HREG
#if NPX >= 4
#define VL 4
typedef float4 LT;
#else
#define VL 2
typedef float2 LT;
#endif
#else
#define VL 1
typedef F LT;
#endif
#define ROWL ((SPAN + 2 * RA) / VL) /* local elements of one staged row */
#define NO (NPX / VL)               /* own elements per work-item and row */
#define NHALO (2 * RA / VL)         /* halo elements per staged row */
#define NH ((NHALO + BX - 1) / BX)  /* halo elements per work-item, at most */
#define NH1 (NH > 0 ? NH : 1)

/* D = the element of row SROW whose first column is C, clamped. */
#if VL == 4
#define LOAD_EL(D, SROW, C)                                                       \
    do {                                                                          \
        if (aligned && (C) >= 0 && (C) + 4 <= W)                                  \
            D = *(const __global float4 *)((SROW) + (C));                         \
        else                                                                      \
            D = VEC4(float4, (SROW)[clamp((C), 0, W - 1)],                        \
                     (SROW)[clamp((C) + 1, 0, W - 1)],                            \
                     (SROW)[clamp((C) + 2, 0, W - 1)],                            \
                     (SROW)[clamp((C) + 3, 0, W - 1)]);                           \
    } while (0)
#elif VL == 2
#define LOAD_EL(D, SROW, C)                                                       \
    do {                                                                          \
        if (aligned && (C) >= 0 && (C) + 2 <= W)                                  \
            D = *(const __global float2 *)((SROW) + (C));                         \
        else                                                                      \
            D = VEC2(float2, (SROW)[clamp((C), 0, W - 1)],                        \
                     (SROW)[clamp((C) + 1, 0, W - 1)]);                           \
    } while (0)
#else
#define LOAD_EL(D, SROW, C) D = PIX_IN((SROW)[clamp((C), 0, W - 1)])
#endif

/* a[p] += w[I] * X where I is a tap (0 .. 2RAD); nothing otherwise. */
#define TAP(p, I, X)                                                              \
    if ((I) >= 0 && (I) < NW)                                                     \
        a[p] += w[I] * (X)

__kernel __attribute__((reqd_work_group_size(BX, 1, 1))) void
blur_fused(const __global P *restrict src, __global P *restrict dst,
           const int W, const int H, __constant float *w)
{
    const int lx = get_local_id(0);
    const int gx0 = get_group_id(0) * SPAN;
    const int x0 = gx0 + lx * NPX;
    const int strip = get_group_id(1);
    const int y0 = strip * SY;
    /* Odd strips run upwards, so that two neighbouring strips read the rows
       they share at the same time (both at their start or both at their
       end), and the second read finds them in L2. Row of step s:
       ys + dy * s; output row of step s >= 2RAD: ys + dy * (s - RAD). */
    const int up = strip & 1;
    const int ys = up ? y0 + SY - 1 + RAD : y0 - RAD;
    const int dy = up ? -1 : 1;
    const int aligned = (W & (VL - 1)) == 0;
    __local LT buf[2][ROWL];

    /* Halo elements this work-item stages: local index and first column. */
    int hidx[NH1], hcol[NH1];
#pragma unroll
    for (int k = 0; k < NH1; k++) {
        const int e = lx + k * BX;
        hidx[k] = e + (e >= RA / VL ? SPAN / VL : 0);
        hcol[k] = gx0 - RA + e * VL + (e >= RA / VL ? SPAN : 0);
    }

    /* Rows of steps s .. s+LA-1, loaded ahead (own and halo elements):
       row s in po[s % LA], ph[s % LA]. */
    LT po[LA][NO], ph[LA][NH1];
#pragma unroll
    for (int k = 0; k < LA; k++)
        if (k < NS) {
            const __global P *srow = src + (size_t)clamp(ys + dy * k, 0, H - 1) * W;
#pragma unroll
            for (int q = 0; q < NO; q++)
                LOAD_EL(po[k][q], srow, x0 + q * VL);
#pragma unroll
            for (int j = 0; j < NH; j++)
                if (lx + j * BX < NHALO)
                    LOAD_EL(ph[k][j], srow, hcol[j]);
        }

    F ring[NW][NPX]; /* horizontal results of the last NW rows */

    for (int b = 0; b < NB; b++) {
#if VREG
#pragma unroll
#else
#pragma unroll 1
#endif
        for (int t = 0; t < NL; t++) {
            const int s = b * NL + t; /* step: input row ys + dy * s */
            const int par = s & 1;
            const int r = t % NW;     /* window slot of row s */
            const int f = t % LA;     /* registers of row s, then of s + LA */
            /* Stage row s, load row s + LA (steps past NS, in the last
               block, only reach the barrier: it stays unconditional). */
            if (s < NS) {
#pragma unroll
                for (int q = 0; q < NO; q++)
                    buf[par][RA / VL + lx * NO + q] = po[f][q];
#pragma unroll
                for (int j = 0; j < NH; j++)
                    if (lx + j * BX < NHALO)
                        buf[par][hidx[j]] = ph[f][j];
                if (s + LA < NS) {
                    const __global P *srow =
                        src + (size_t)clamp(ys + dy * (s + LA), 0, H - 1) * W;
#pragma unroll
                    for (int q = 0; q < NO; q++)
                        LOAD_EL(po[f][q], srow, x0 + q * VL);
#pragma unroll
                    for (int j = 0; j < NH; j++)
                        if (lx + j * BX < NHALO)
                            LOAD_EL(ph[f][j], srow, hcol[j]);
                }
            }
            barrier(CLK_LOCAL_MEM_FENCE);
            if (s < NS) {
                /* Horizontal pass of row s into ring[r]. */
#if VL > 1
                /* Each staged vector is added into the outputs it reaches
                   as it is read: VL inputs live, not NPX + 2RA. */
                float a[NPX];
#pragma unroll
                for (int p = 0; p < NPX; p++)
                    a[p] = 0.0f;
#pragma unroll
                for (int q = 0; q < (NPX + 2 * RA) / VL; q++) {
                    const LT e = buf[par][lx * NO + q];
#pragma unroll
                    for (int p = 0; p < NPX; p++) {
                        const int i = VL * q - (RA - RAD) - p; /* tap of e.x */
                        TAP(p, i, e.x);
                        TAP(p, i + 1, e.y);
#if VL == 4
                        TAP(p, i + 2, e.z);
                        TAP(p, i + 3, e.w);
#endif
                    }
                }
#pragma unroll
                for (int p = 0; p < NPX; p++)
                    ring[r][p] = a[p];
#elif HREG
                F v[NPX + 2 * RAD];
#pragma unroll
                for (int k = 0; k < NPX + 2 * RAD; k++)
                    v[k] = buf[par][lx * NPX + RA - RAD + k];
#pragma unroll
                for (int p = 0; p < NPX; p++) {
                    F a = w[0] * v[p];
#pragma unroll
                    for (int i = 1; i < NW; i++)
                        a += w[i] * v[p + i];
                    ring[r][p] = a;
                }
#else
#pragma unroll
                for (int p = 0; p < NPX; p++) {
                    const int c = lx * NPX + RA - RAD + p;
                    F a = w[0] * buf[par][c];
                    for (int i = 1; i < NW; i++)
                        a += w[i] * buf[par][c + i];
                    ring[r][p] = a;
                }
#endif

                /* Vertical pass: the output row of rows s-2RAD .. s. */
                if (s >= 2 * RAD) {
                    const int y = ys + dy * (s - RAD);
                    int k = r + 1 == NW ? 0 : r + 1; /* slot of row s - 2RAD */
                    F o[NPX];
#pragma unroll
                    for (int p = 0; p < NPX; p++)
                        o[p] = w[0] * ring[k][p];
#if VREG
#pragma unroll
#endif
                    for (int j = 1; j < NW; j++) {
                        k = k + 1 == NW ? 0 : k + 1;
#pragma unroll
                        for (int p = 0; p < NPX; p++)
                            o[p] += w[j] * ring[k][p];
                    }
                    if (y < H) {
                        __global P *drow = dst + (size_t)y * W;
#if VL == 4
                        if (aligned && x0 + NPX <= W) {
#pragma unroll
                            for (int q = 0; q < NO; q++)
                                *(__global float4 *)(drow + x0 + 4 * q) =
                                    VEC4(float4, o[4 * q], o[4 * q + 1], o[4 * q + 2],
                                         o[4 * q + 3]);
                        } else
#elif VL == 2
                        if (aligned && x0 + NPX <= W) {
                            *(__global float2 *)(drow + x0) = VEC2(float2, o[0], o[1]);
                        } else
#endif
                        {
#pragma unroll
                            for (int p = 0; p < NPX; p++)
                                if (x0 + p < W)
                                    drow[x0 + p] = PIX_OUT(o[p]);
                        }
                    }
                }
            }
        }
    }
}
