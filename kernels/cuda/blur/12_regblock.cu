/*
 * Rung 12 (CUDA only): register-blocked passes over strips streamed
 * through shared memory, so that nearly every instruction is a multiply-add.
 *
 * Computes   dst(x, y) = sum_j w[j+RAD] * h(x, clamp(y+j, 0, H-1)),
 *            h(x, y')  = sum_i w[i+RAD] * src(clamp(x+i, 0, W-1), y')
 *            (i, j = -RAD..RAD), per channel, in float; h kept in float,
 *            dst rounded once (uchar4: to nearest, saturated). The weights
 *            are symmetric (w[RAD+k] = w[RAD-k], as the host makes them).
 * Geometry:  1-D blocks of NT threads. A block owns a strip of TW columns
 *            and SH rows and one channel of it (uchar4: four blocks side by
 *            side per strip, channel = blockIdx.x % 4, so that the four read
 *            the same input from L2 at about the same time); grid
 *            ceil(W/TW) * channels x ceil(H/SH).
 * Steps:     the strip goes down in chunks of CH rows. Step k:
 *            1. the copies of input chunk k+1 are issued (cp.async, two
 *               buffers: one lands while the other is computed);
 *            2. input chunk k (rows y0 - RAD + k*CH .., TW columns and RA
 *               on each side), as floats of this block's channel (uchar4:
 *               one byte permute and one add a value), is row-passed into
 *               slot k of a ring of Q + 1 chunks of row results;
 *            3. output chunk k - Q, which needs row results of chunks
 *               k - Q .. k, is column-passed from the ring and stored.
 *            Two barriers a step (three for uchar4: the conversion). The
 *            first 2RAD rows of the ring are also written after its end, so
 *            a thread's column window never wraps. Each row result is
 *            computed once per strip: only the 2RAD rows above a strip are
 *            row-passed twice (1 + 2RAD/SH of the row pass).
 * Blocking:  a row-pass thread computes RX neighbouring results of one row
 *            from RX + 2RA floats read as float4, every one used for every
 *            result it reaches; a column-pass thread computes CY rows of
 *            four neighbouring columns from CY + 2RAD float4 reads. Per
 *            result that is about 1 + 2RAD/RX floats and 1/4 + RAD/(2 CY)
 *            float4 reads against 2 * (2RAD+1) FMAs, with the weights in
 *            registers and every index known at compile time. Threads of a
 *            warp take neighbouring rows in the row pass (rows are padded
 *            to 4 mod 32 floats, so eight lanes' float4 reads meet no bank
 *            twice) and neighbouring float4 in the column pass.
 * Change:    rung 10 keeps a window of 2RAD+1 rows of NPX pixels per thread
 *            and spends a load per multiply-add on the row pass; its tiles
 *            redo the row pass of 2RAD halo rows (1.4x at RAD 6 and 32-row
 *            tiles, 2.5x at RAD 24). Here the only loads are the blocked
 *            ones above and the halo rows are row-passed once per strip, so
 *            at large radii, where the multiply-adds outnumber the bytes,
 *            the FMA pipe sets the pace.
 * Macros:    RAD (set by the host); TW (default 128, a multiple of RX), RX
 *            (16, a multiple of 4), CH (16), CY (4, divides CH), SH (256, a
 *            multiple of CH), NT (128); KL_PIX_FLOAT (default) or
 *            KL_PIX_UCHAR4. Dynamic shared memory, in floats:
 *            2*CH*ROWP (staged chunks) + (NR + 2RAD)*TWP (the ring) +
 *            CH*ROWP for uchar4 (the channel as floats), where
 *            ROWP = pad(TW + 2RA), TWP = pad(TW), NR = CH*(Q + 1),
 *            Q = ceil(2RAD/CH), pad(n) = the least n' >= n with
 *            n' % 32 == 4, RA = RAD rounded up to a multiple of 4.
 * Sizes:     any W, H >= 1 and RAD >= 0 whose buffers fit shared memory (the
 *            host checks). Staged rows and columns are clamped into the
 *            image; stores only for x < W, y < H. Up to RAD = 32 the taps
 *            are unrolled with the weights in registers; above, each tap
 *            is a loop step with its weight from memory: correct, slower.
 *
 * Backends:  CUDA only (NVRTC).
 */
#ifndef RAD
#error "12_regblock: RAD (blur radius) must be set by the host (-DRAD=r)"
#endif
#ifndef TW
#define TW 128
#endif
#ifndef RX
#define RX 16
#endif
#ifndef CH
#define CH 16
#endif
#ifndef CY
#define CY 4
#endif
#ifndef SH
#define SH 256
#endif
#ifndef NT
#define NT 128
#endif
static_assert(RAD >= 0 && RX % 4 == 0 && RX >= 4 && TW % RX == 0,
              "12_regblock: RX a multiple of 4, TW a multiple of RX");
static_assert(CH >= 1 && CY >= 1 && CH % CY == 0 && SH % CH == 0,
              "12_regblock: CY divides CH, CH divides SH");
static_assert(NT % 32 == 0 && NT <= 1024, "12_regblock: NT a multiple of 32, at most 1024");

#include "pixels.cuh"

#define PAD(n) (((n) + 27) / 32 * 32 + 4) /* the least n' >= n with n' % 32 == 4 */
#define ROWP PAD(TW + 2 * RA)             /* floats between staged rows */
#define TWP PAD(TW)                       /* floats between ring rows */
#define Q ((2 * RAD + CH - 1) / CH)       /* chunks of row results beyond an output chunk's own */
#define NR (CH * (Q + 1))                 /* rows of the ring */
#define WREG (RAD <= 32)                  /* taps unrolled, weights in registers */
#define AHEAD 8                           /* ring rows loaded ahead in the column pass */

/* Byte c of a word as a float: 2^23 + b from its bits, less 2^23 (exact). */
static __device__ __forceinline__ float byte_f(unsigned word, unsigned sel)
{
    return __uint_as_float(__byte_perm(word, 0x4B000000u, sel)) - 8388608.0f;
}

/*
 * The row pass of one staged row: results x0 .. x0 + RX - 1 (buffer columns
 * RA + x0 ..) from the floats at in[x0 - RA .. x0 + RX + RA), into out (and
 * into copy where the ring row is also kept past its end).
 */
static __device__ __forceinline__ void row_pass(const float *in, float *out, float *copy,
                                                const float *wr, const float *__restrict__ w)
{
    float a[RX];
#pragma unroll
    for (int i = 0; i < RX; i++)
        a[i] = 0.0f;
#if WREG
    /* Every float the results reach, loaded first (RX + 2RAD of them), then the taps. */
    float v[RX + 2 * RA];
#pragma unroll
    for (int k = (RA - RAD) / 4; k <= (RA + RAD + RX - 1) / 4; k++) {
        const float4 e = *(const float4 *)(in + 4 * k);
        v[4 * k] = e.x, v[4 * k + 1] = e.y, v[4 * k + 2] = e.z, v[4 * k + 3] = e.w;
    }
#pragma unroll
    for (int d = -RAD; d <= RAD; d++)
#pragma unroll
        for (int i = 0; i < RX; i++)
            a[i] = fmaf(wr[d < 0 ? -d : d], v[RA + i + d], a[i]);
#else
#pragma unroll 1
    for (int d = -RAD; d <= RAD; d++) {
        const float wd = __ldg(w + RAD + d);
#pragma unroll
        for (int i = 0; i < RX; i++)
            a[i] = fmaf(wd, in[RA + i + d], a[i]);
    }
#endif
#pragma unroll
    for (int q = 0; q < RX / 4; q++) {
        const float4 o = make_float4(a[4 * q], a[4 * q + 1], a[4 * q + 2], a[4 * q + 3]);
        ((float4 *)out)[q] = o;
        if (copy)
            ((float4 *)copy)[q] = o;
    }
}

extern "C" __global__ void __launch_bounds__(NT)
blur_fused(const P *__restrict__ src, P *__restrict__ dst, const int W, const int H,
           const float *__restrict__ w)
{
    extern __shared__ __align__(16) unsigned char smem[];
    float *const staged = (float *)smem;     /* 2 x CH x ROWP pixels as stored (4 bytes) */
    float *const ring = staged + 2 * CH * ROWP; /* (NR + 2RAD) x TWP row results */
#if NCH == 4
    float *const chan = ring + (NR + 2 * RAD) * TWP; /* CH x ROWP: this block's channel */
    const unsigned sel = 0x7540u + (blockIdx.x & 3); /* byte c, then 0x00 0x00 0x4B */
    const int x0 = (blockIdx.x >> 2) * TW;
#else
    const int x0 = blockIdx.x * TW;
#endif
    const int tid = threadIdx.x, y0 = blockIdx.y * SH;
    const int chunks = (min(SH, H - y0) + CH - 1) / CH, steps = chunks + Q;

    float wr[RAD + 1]; /* w[RAD + k], k = 0..RAD */
#if WREG
#pragma unroll
    for (int k = 0; k <= RAD; k++)
        wr[k] = w[RAD + k];
#endif

    /* Chunk k: source rows y0 - RAD + k*CH .., columns x0 - RA .. x0 + TW + RA - 1. */
    stage_tile(staged, ROWP, src, W, H, x0 - RA, y0 - RAD, CH, TW + 2 * RA, tid, NT);
    asm volatile("cp.async.commit_group;\n" ::);
    for (int k = 0; k < steps; k++) {
        /* 1. The next chunk into the other buffer (read two barriers ago). */
        if (k + 1 < steps) {
            stage_tile(staged + ((k + 1) & 1) * CH * ROWP, ROWP, src, W, H, x0 - RA,
                       y0 - RAD + (k + 1) * CH, CH, TW + 2 * RA, tid, NT);
            asm volatile("cp.async.commit_group;\n" ::);
            asm volatile("cp.async.wait_group 1;\n" ::);
        } else {
            asm volatile("cp.async.wait_group 0;\n" ::);
        }
        __syncthreads(); /* chunk k has landed; step k - 1's column pass is done */
        const float *in = staged + (k & 1) * CH * ROWP;
#if NCH == 4
        for (int e = tid; e < CH * ROWP / 4; e += NT) {
            const uint4 p = ((const uint4 *)in)[e];
            ((float4 *)chan)[e] = make_float4(byte_f(p.x, sel), byte_f(p.y, sel),
                                              byte_f(p.z, sel), byte_f(p.w, sel));
        }
        __syncthreads();
        in = chan;
#endif

        /* 2. Row pass of chunk k into ring slot k % (Q + 1); a warp's lanes take rows. */
        const int slot = (k % (Q + 1)) * CH;
        for (int t = tid; t < CH * (TW / RX); t += NT) {
            const int r = t % CH, x = t / CH * RX;
            float *out = ring + (slot + r) * TWP + x;
            row_pass(in + r * ROWP + x, out, slot + r < 2 * RAD ? out + NR * TWP : nullptr, wr, w);
        }
        __syncthreads(); /* the ring holds chunks k - Q .. k */
        if (k < Q)
            continue;

        /* 3. Column pass of output chunk k - Q: rows y from ring rows s0 + y - yc ... */
        const int yc = y0 + (k - Q) * CH, s0 = ((k - Q) % (Q + 1)) * CH;
        for (int t = tid; t < (TW / 4) * (CH / CY); t += NT) {
            const int g = t / (TW / 4), q = t - g * (TW / 4);
            const float *col = ring + (s0 + g * CY) * TWP + 4 * q;
            float4 a[CY];
#pragma unroll
            for (int j = 0; j < CY; j++)
                a[j] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#if WREG
            /* Ring rows p = 0 .. CY + 2RAD - 1, each loaded AHEAD rows before its taps. */
            float4 ahead[AHEAD];
#pragma unroll
            for (int p = 0; p < AHEAD && p < CY + 2 * RAD; p++)
                ahead[p] = *(const float4 *)(col + p * TWP);
#pragma unroll
            for (int p = 0; p < CY + 2 * RAD; p++) {
                const float4 v = ahead[p % AHEAD];
                if (p + AHEAD < CY + 2 * RAD)
                    ahead[p % AHEAD] = *(const float4 *)(col + (p + AHEAD) * TWP);
#pragma unroll
                for (int j = 0; j < CY; j++) {
                    const int d = p - j - RAD;
                    if (d >= -RAD && d <= RAD) {
                        const float wd = wr[d < 0 ? -d : d];
                        a[j].x = fmaf(wd, v.x, a[j].x), a[j].y = fmaf(wd, v.y, a[j].y);
                        a[j].z = fmaf(wd, v.z, a[j].z), a[j].w = fmaf(wd, v.w, a[j].w);
                    }
                }
            }
#else
#pragma unroll 1
            for (int d = -RAD; d <= RAD; d++) {
                const float wd = __ldg(w + RAD + d);
#pragma unroll
                for (int j = 0; j < CY; j++) {
                    const float4 v = *(const float4 *)(col + (j + d + RAD) * TWP);
                    a[j].x = fmaf(wd, v.x, a[j].x), a[j].y = fmaf(wd, v.y, a[j].y);
                    a[j].z = fmaf(wd, v.z, a[j].z), a[j].w = fmaf(wd, v.w, a[j].w);
                }
            }
#endif
            const int x = x0 + 4 * q;
#pragma unroll
            for (int j = 0; j < CY; j++) {
                const int y = yc + g * CY + j;
                if (y >= H)
                    break;
                const float o[4] = {a[j].x, a[j].y, a[j].z, a[j].w};
#if NCH == 4
                unsigned char *d = (unsigned char *)(dst + (size_t)y * W) + (blockIdx.x & 3);
#pragma unroll
                for (int u = 0; u < 4; u++)
                    if (x + u < W)
                        d[4 * (x + u)] = to_u8(o[u]);
#else
                float *d = dst + (size_t)y * W + x;
                if (W % 4 == 0 && x + 4 <= W) {
                    *(float4 *)d = a[j];
                } else {
#pragma unroll
                    for (int u = 0; u < 4; u++)
                        if (x + u < W)
                            d[u] = o[u];
                }
#endif
            }
        }
    }
}
