/*
 * Rung 17 (CUDA, Hopper only): Hopper's own path to the tensor cores.
 * The tensor memory accelerator copies tiles into shared memory, wgmma
 * multiplies a warpgroup's 64 rows at once, and the warps of a block
 * specialise: one warpgroup copies, the others multiply.
 *
 * Computes   C[r][c] = sum_k A[r][k] * B[k][c]   (A row-major M x K,
 *            B row-major K x N, C row-major M x N; float only).
 * Precision: tf32. Every value of A and B is rounded to TF32 (10 of
 *            float's 23 mantissa bits) to nearest, ties to even, by the
 *            copy itself: A's and B's tensor maps are of type TFLOAT32,
 *            whose TMA copies convert each float as they write it (the
 *            tensor cores, reading floats, would drop the last 13 bits: up
 *            to 2^-10 of a value, which a single product at K = 1 shows
 *            beyond the TF32 tolerance). On the cp.async path (Sizes) the
 *            producer's three spare warps round A's slice in shared memory
 *            and B is rounded as it is read into registers (cvt.rn). Products
 *            are summed in fp32 by the tensor cores. Checked against the
 *            TF32 tolerance and labelled tf32.
 *            Built with -DSPLIT=3 this file is rung 18 (18_wgmma_3xtf32.cu).
 * Transposed: wgmma reads its B operand from shared memory only along K
 *            for TF32 (no transposition for 32-bit types), and B's rows run
 *            along N. So the kernel computes C's transpose, C^T = B^T A^T:
 *            wgmma's A operand (64 x 8, registers) is a 64-column strip of
 *            B, its B operand (8 x BM, shared memory, rows of K) is A's
 *            tile exactly as A lies in memory, and the accumulators hold
 *            C^T, stored back as C.
 * Geometry:  persistent: one block of NT = 128 (BN/64 + 1) threads per
 *            multiprocessor (kladder launches at most one per SM), each
 *            taking units u = its cluster's index, + the clusters, ... of C.
 *            A unit is CLUSTER tiles of BM rows by BN columns side by side,
 *            in groups of GROUP tile-rows (so that the tiles running at
 *            once share their panels of A and B in L2).
 *            With CLUSTER = 2 the blocks pair up (a cluster of two): the
 *            pair's two tiles share A's rows, and each block copies half of
 *            A's slice into both blocks' shared memory (TMA multicast), so
 *            that A crosses from L2 once per pair: a third less L2 traffic
 *            at BM = 256, BN = 128 (cuBLAS's TF32 kernel pairs its blocks
 *            so too). On an H100, once the consumers keep a wgmma group in
 *            flight, it gains 1 %, 8 % and 10 % over CLUSTER = 1 at 4096^3,
 *            8192^3 and 12288^3 (before that, no faster; docs/RESULTS.md).
 *            Warpgroup 0 produces: one thread issues the TMA copies of each
 *            K-slice into a ring of STAGES stages; its other three warps
 *            round A's slice to TF32 in place on the cp.async path (with
 *            -DSPLIT=3, split it into TF32 parts: rung 18, where A's
 *            residual is not given), and have nothing to do otherwise. It
 *            keeps 56 registers (setmaxnreg) and gives the rest to the
 *            consumers, warpgroups 1 .. BN/64, each owning 64 columns of
 *            the tile: for each slice, 4 wgmma.m64nBMk8 with its 64 x 8
 *            strips of B in registers, A's slice by descriptor.
 * Pipeline:  per stage three mbarriers: full (the copies have landed:
 *            TMA's byte count, or 32 cp.async arrivals), ready (A's slice is
 *            rounded, or split; the consumers wait for full instead where
 *            nothing is) and empty (every consumer thread has finished the
 *            wgmma that read it and its own fragment loads; with CLUSTER = 2
 *            every consumer warp of the peer too, whose producer writes into
 *            this stage as well). The producer waits for empty before it
 *            refills a stage; a consumer waits for ready, reads its
 *            fragments, issues the products, waits for them and frees the
 *            stage. With INFLIGHT = 1 (rung 17's default) it leaves each
 *            slice's products running while it reads the next slice's
 *            fragments into a second set of registers, and frees a stage
 *            once the products after it are issued (+2 to 3 % on an H100).
 *            While one consumer warpgroup reads fragments or stores its
 *            tile, the other's products keep the tensor cores busy, and the
 *            producer is already fetching the next tile's slices.
 * Layout:    stage s: A's slice (BM rows of BK = 32 floats, 128 bytes each,
 *            written by one TMA box), then B's (BN/32 boxes of 32 rows of K
 *            by 32 floats of N), then rung 18's small parts of A (copied
 *            from A's residual, or split from A's slice by warps 1-3); all
 *            128-byte swizzled (the 16-byte chunk j of row r at j ^ (r % 8)),
 *            which is what wgmma's descriptor reads without bank conflicts.
 *            Lane 4g + t of consumer warp w reads, for fragment rows g and
 *            g + 8, two adjacent columns of B with one 8-byte load: the
 *            64-column strip's row 16w + g + 8h is column 32 (w/2) + 4 q +
 *            2 (g % 2) + h, q = 2 (g/2) + w % 2 (its chunk), so that the four
 *            K-rows a load touches (t = 0..3, swizzled by t) fall on
 *            alternating halves of the banks: two wavefronts per load, the
 *            least 256 bytes take.
 * Macros:    BM (256; 128 or 256), BN (128; 64 to 256 in steps of 64, at
 *            most 128 with BM = 256, whose accumulators take 128 registers
 *            per thread), STAGES (4), GROUP (8): the tuner found nothing
 *            faster on an H100 at 4096^3 (docs/RESULTS.md); CLUSTER (1, or
 *            2); SPLIT (1, or 3 for 3xTF32); INFLIGHT (1, or 0; 3xTF32
 *            always waits: a second set of its partial sums would not fit);
 *            SK (0; 1: stream-K, stream_k.cuh over the plan of schedule.h,
 *            whose blocks are the clusters: a partial last wave's units
 *            shared by all clusters in slices of K, each block's partial
 *            sums of a shared tile left in the workspace ws, the kernel's
 *            argument after tr, and added by the same rank of the cluster
 *            holding the first slice, in cluster order; ws holds
 *            kl_sk_flag_words(blocks * BN / 64) flags, zero before the first
 *            launch, then a BM x BN tile of sums per block); EPI (2: C
 *            through shared memory, store_tile_staged, by TMA where N is a
 *            multiple of 4 and kladder passes C's map, tc, after tr, and
 *            elsewhere a row of 32 floats a warp; 1: the same where N is a
 *            multiple of 4, from the registers elsewhere; 0: from the
 *            registers, store_tile).
 *            Dynamic shared memory STAGES * (BM + BN (+ BM for SPLIT 3)) *
 *            128 bytes plus 1 KiB for the alignment the swizzle needs (193
 *            KiB at the defaults), and with EPI > 0 four boxes of 32 x 32
 *            sums per consumer warpgroup (16 KiB a warpgroup: 225 KiB at the
 *            defaults, of the 227 a block may have). On an H100 kladder's
 *            presets (gemm/rungs.c) change these by size: 128-row tiles for
 *            M <= 128, 128 x 64
 *            tiles up to ~1024^3, clusters of two above.
 * Change:    rung 15 issued mma.sync, Ampere's warp-wide instruction, whose
 *            operands every warp loads into registers itself, and copied
 *            with cp.async from every thread. On Hopper the tensor cores
 *            reach their full rate only through wgmma (a warpgroup's 64 x N
 *            x 8 product, B read from shared memory by the tensor cores
 *            themselves) fed by TMA (a whole tile per instruction, bounds
 *            and swizzle done by the copy engine), and the registers a
 *            64 x 256 accumulator needs per thread come from the producer's
 *            share (setmaxnreg).
 * Sizes:     any M, N, K >= 1. TMA needs rows that start 16-byte aligned:
 *            kladder's ladder copies A or B whose rows do not (K or N not a
 *            multiple of 4) into rows padded to 128 bytes first (pad below),
 *            and the slices are TMA boxes (zeros beyond the matrices). No
 *            tensor map reads such rows where they lie: a map of every
 *            fourth row has a pitch of whole 16-byte pieces, but each box
 *            must start on a 16-byte boundary too, which rows 1 and 3 of
 *            every four do not (nor row 2 where K or N is odd). Given such
 *            buffers as they are (tma = 0: kl_gemm_launch_on), the producer
 *            warp copies them element by element with cp.async
 *            (zero-filled), a far slower path. Stores are guarded: TMA clips
 *            its boxes at C's edges; N % 4 != 0: with EPI=2 rows of 32
 *            floats, guarded; from the registers two adjacent floats at a
 *            time where N is even.
 *
 * Backends:  CUDA only (NVRTC for sm_90a), compute capability 9.0 only;
 *            kladder passes A's and B's tensor maps (cuTensorMapEncodeTiled:
 *            A's box BM / CLUSTER rows by 32 floats, B's 32 by 32; TFLOAT32
 *            for rung 17; for rung 18 B's FLOAT32, since its split needs
 *            every bit, and A's TFLOAT32 beside the map of A's residual tr
 *            (tma = 2; made by kernel pad), or FLOAT32 without it (tma = 1:
 *            K <= 8, or buffers given as they are); with EPI > 0 C's (boxes
 *            of 32 rows by 32 floats, FLOAT32, 128-byte swizzled; none
 *            where N % 4 != 0).
 */
#ifndef BM
#define BM 256
#endif
#ifndef BN
#define BN 128
#endif
#ifndef STAGES
#define STAGES 4
#endif
#ifndef GROUP
#define GROUP 8
#endif
#ifndef SPLIT
#define SPLIT 1
#endif
#ifndef CLUSTER
#define CLUSTER 1
#endif
#ifndef INFLIGHT
#define INFLIGHT 1
#endif
#ifndef SK
#define SK 0
#endif
#ifndef EPI
#define EPI 2
#endif

#include "hopper.cuh"
#include "stream_k.cuh"

#if defined(KL_T_DOUBLE) || defined(KL_T_INT)
#error "wgmma_tf32: the TF32 tensor cores multiply float inputs"
#endif

#define BK 32                              /* K per stage: one 128-byte swizzled row of floats */
#define CWG (BN / 64)                      /* consumer warpgroups, 64 columns of C each */
#define NT (128 * (CWG + 1))               /* threads: the producer warpgroup and the consumers */
#define ACC (BM / 2)                       /* accumulators per consumer thread: 64 x BM / 128 */
#define A_BYTES (BM * BK * 4)              /* A's slice */
#define B_BYTES (BK * BN * 4)              /* B's slice: BN/32 boxes of 4 KiB */
#define S_BYTES (SPLIT == 3 ? A_BYTES : 0) /* the small parts of A's slice (3xTF32) */
#define STAGE_BYTES (A_BYTES + B_BYTES + S_BYTES)
#define PREPARERS 96 /* warps 1-3 of the producer warpgroup round A's slice */
/* EPI > 0: a TMA store's box of C (32 rows of 32 floats, 128 bytes each), four per consumer. */
#define BOX_BYTES (32 * 128)
/*
 * Registers per thread once the warpgroups have traded (setmaxnreg, two or more consumers).
 * A block starts with LAUNCH_REGS per thread (what __launch_bounds__(NT, 1) allows, in
 * multiples of 8) and can only share that pool: the producer warpgroup's copies and
 * rounding keep PRODUCER_REGS, the consumers split the rest (a larger request would wait
 * for registers forever).
 */
#define LAUNCH_REGS (65536 / NT / 8 * 8 > 255 ? 256 : 65536 / NT / 8 * 8)
#define PRODUCER_REGS 56
#define CONSUMER_REGS ((LAUNCH_REGS * NT - 128 * PRODUCER_REGS) / (128 * CWG) / 8 * 8)

static_assert(BM == 128 || BM == 256, "wgmma_tf32: BM is 128 or 256 (wgmma's N)");
static_assert(BN % 64 == 0 && BN <= 256, "wgmma_tf32: BN is 64, 128, 192 or 256 (1-4 consumers)");
static_assert(BM == 128 || BN <= 128, "wgmma_tf32: BM = 256 leaves registers for two consumers");
static_assert(SPLIT == 1 || BN <= 128, "wgmma_tf32: 3xTF32's two accumulators leave room for two "
                                       "consumers");
static_assert(SPLIT == 1 || (SPLIT == 3 && BM == 128),
              "wgmma_tf32: 3xTF32 keeps two accumulators, which fit with BM = 128");
static_assert(STAGES >= 2, "wgmma_tf32: at least two stages");
static_assert(CLUSTER == 1 || CLUSTER == 2, "wgmma_tf32: clusters of 1 or 2 blocks");
static_assert(SK == 0 || SK == 1, "wgmma_tf32: SK is 0 or 1");
static_assert(EPI >= 0 && EPI <= 2, "wgmma_tf32: EPI is 0, 1 or 2");

/* ---- the tile scheduler and the swizzled layout ------------------------------------- */

struct tile {
    int m0, n0;
};

/*
 * The units of work: a unit is CLUSTER tiles side by side along N, one per
 * block of a cluster (a block whose tile lies past N computes zeros and
 * stores nothing).
 */
static __device__ __forceinline__ int units_n(int tiles_n)
{
    return (tiles_n + CLUSTER - 1) / CLUSTER;
}

/*
 * The tile of this block (rank `rank` of its cluster) in unit u, units
 * taken in groups of GROUP tile-rows, column by column within a group
 * (schedule.h).
 */
static __device__ __forceinline__ tile tile_at(int u, int tiles_m, int tiles_n, int rank)
{
    int tm, un;
    kl_tile_of(u, tiles_m, units_n(tiles_n), GROUP, &tm, &un);
    return {tm * BM, (un * CLUSTER + rank) * BN};
}

/* The units this block takes: its cluster's index, then every clusters()-th on. */
static __device__ __forceinline__ int first_unit()
{
    return blockIdx.x / CLUSTER;
}
static __device__ __forceinline__ int clusters()
{
    return gridDim.x / CLUSTER;
}

/*
 * A role's place in the ring of stages: the stage it works on next and the
 * parity of that stage's barrier phase, which flips each time the ring wraps.
 * Every role walks the same sequence (each slice of each of the block's
 * tiles), so their rings agree.
 */
struct ring {
    int st = 0;
    unsigned ph = 0;
    __device__ __forceinline__ void next()
    {
        if (++st == STAGES)
            st = 0, ph ^= 1;
    }
};

/* Byte offset of B(k, n) in a stage's B slice: box n / 32, its row k. */
static __device__ __forceinline__ unsigned b_offset(int k, int n)
{
    return (n >> 5) * 4096 + sw128(k, n & 31);
}

static __device__ __forceinline__ float lds1(unsigned addr)
{
    float v;
    asm volatile("ld.shared.f32 %0, [%1];\n" : "=f"(v) : "r"(addr));
    return v;
}

static __device__ __forceinline__ float2 lds2(unsigned addr)
{
    float2 v;
    asm volatile("ld.shared.v2.f32 {%0, %1}, [%2];\n" : "=f"(v.x), "=f"(v.y) : "r"(addr));
    return v;
}

#if EPI
/* Two floats into shared memory, as "f" operands (rung 20's st_shared2 says why). */
static __device__ __forceinline__ void sts2(unsigned addr, float x, float y)
{
    asm volatile("st.shared.v2.f32 [%0], {%1, %2};\n" ::"r"(addr), "f"(x), "f"(y) : "memory");
}
#endif

/* x rounded to TF32, to nearest (one F2FP instruction on 9.0). */
static __device__ __forceinline__ unsigned tf32(float x)
{
    unsigned r;
    asm("cvt.rn.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
    return r;
}

/* The consumers' product: d (+)= a * B with the slice of A at descriptor b. */
static __device__ __forceinline__ void wgmma(float (&d)[ACC], const unsigned (&a)[4], u64 b,
                                             int accumulate)
{
#if BM == 256
    wgmma_n256(d, a, b, accumulate);
#else
    wgmma_n128(d, a, b, accumulate);
#endif
}

/* ---- the producer warpgroup ---------------------------------------------------------- */

struct problem {
    const float *A, *B;
    float *C;
    int M, N, K, tiles_m, tiles_n, units, slices;
    int rank;   /* this block's rank in its cluster */
    bool tma;   /* TMA boxes (tensor maps given), else cp.async */
    bool resid; /* 3xTF32: A's small parts copied by TMA from its residual (tr), not split here */
    bool fma;   /* 3xTF32 with K <= 8: the FMA units multiply, A's slice stays as it is */
    bool ready; /* the consumers wait for the ready barrier (a pass over A's slice), else full */
#if SK
    kl_sk<float> sk; /* the stream-K plan over units, and the partial tiles of the warpgroups */
#endif
#if EPI
    const tensor_map *tc; /* C's map */
    unsigned staging;     /* the consumers' boxes, after the ring */
#endif
};

/*
 * A box of rows m0 .. m0 + BM - 1 of a K-slice starting at k into stage
 * memory dst: with CLUSTER = 2, this block's half into both blocks (whose
 * full barriers each count the whole slice, half from either).
 */
static __device__ __forceinline__ void load_rows(unsigned dst, const tensor_map *map, int k,
                                                 int m0, int rank, unsigned bar)
{
#if CLUSTER == 2
    const int half = rank * (BM / 2);
    tma_load_multicast(dst + half * 128, map, k, m0 + half, bar, 3);
#else
    (void)rank;
    tma_load(dst, map, k, m0, bar);
#endif
}

/*
 * Warp 0, lane 0: the TMA copies of every slice of every tile of this
 * block: A's (and with p.resid its small parts', from tr), then B's.
 */
static __device__ __forceinline__ void produce_tma(const problem &p, const tensor_map *ta,
                                                   const tensor_map *tb, const tensor_map *tr,
                                                   unsigned smem, unsigned full, unsigned empty)
{
    const unsigned bytes = A_BYTES + B_BYTES + (p.resid ? S_BYTES : 0);
    ring at;
    FOR_EACH_PIECE(w, p.sk.plan, first_unit(), p.units, clusters(), p.slices)
    {
        const tile c = tile_at(w.tile, p.tiles_m, p.tiles_n, p.rank);
        for (int s = w.k0; s < w.k1; s++) {
            const unsigned a = smem + at.st * STAGE_BYTES, b = a + A_BYTES;
            bar_wait(empty + 8 * at.st, at.ph ^ 1);
            bar_arrive_tx(full + 8 * at.st, bytes);
            load_rows(a, ta, s * BK, c.m0, p.rank, full + 8 * at.st);
            if (p.resid)
                load_rows(b + B_BYTES, tr, s * BK, c.m0, p.rank, full + 8 * at.st);
#pragma unroll
            for (int j = 0; j < BN / 32; j++)
                tma_load(b + 4096 * j, tb, c.n0 + 32 * j, s * BK, full + 8 * at.st);
            at.next();
        }
    }
}

/*
 * Warp 0 where rows are not 16-byte aligned: every float by a 4-byte
 * cp.async (lane l takes column l of each row), zeros beyond the matrices;
 * each lane's arrival counts once its copies have landed.
 */
static __device__ __forceinline__ void produce_copies(const problem &p, unsigned smem,
                                                      unsigned full, unsigned empty, int lane)
{
    ring at;
    FOR_EACH_PIECE(w, p.sk.plan, first_unit(), p.units, clusters(), p.slices)
    {
        const tile c = tile_at(w.tile, p.tiles_m, p.tiles_n, p.rank);
        for (int s = w.k0; s < w.k1; s++) {
            const unsigned a = smem + at.st * STAGE_BYTES, b = a + A_BYTES;
            const int k = s * BK + lane;
            bar_wait(empty + 8 * at.st, at.ph ^ 1);
            for (int m = 0; m < BM; m++) {
                const bool in = c.m0 + m < p.M && k < p.K;
                copy4(a + sw128(m, lane), in ? p.A + (c.m0 + m) * p.K + k : p.A, in ? 4 : 0);
            }
            for (int r = 0; r < BK; r++)
                for (int n = lane; n < BN; n += 32) {
                    const bool in = s * BK + r < p.K && c.n0 + n < p.N;
                    copy4(b + b_offset(r, n), in ? p.B + (s * BK + r) * p.N + c.n0 + n : p.B,
                          in ? 4 : 0);
                }
            bar_arrive_copies(full + 8 * at.st);
            at.next();
        }
    }
}

/*
 * Warps 1-3, where the copies were cp.async or 3xTF32's A came whole: A's
 * slice rounded in place to TF32 (to nearest; the tensor cores would drop
 * its last 13 bits), and for 3xTF32 split: big = tf32(a)
 * in place, small = tf32(a - big) in the stage's third part (a - big is
 * exact in float); then the stage is ready. Where 3xTF32 has K <= 8 the
 * consumers multiply on the FMA units and the slice stays as it is. Four
 * float4 at a time, so that their loads overlap.
 */
static __device__ __forceinline__ float4 round4(float4 x)
{
    return make_float4(__uint_as_float(tf32(x.x)), __uint_as_float(tf32(x.y)),
                       __uint_as_float(tf32(x.z)), __uint_as_float(tf32(x.w)));
}

static __device__ __forceinline__ void prepare_slices(const problem &p, unsigned char *smem,
                                                      unsigned full, unsigned ready, int id)
{
    if (!p.ready)
        return; /* TMA rounded (and fetched A's small parts): nothing to do */
    ring at;
    FOR_EACH_PIECE(w, p.sk.plan, first_unit(), p.units, clusters(), p.slices)
    {
        for (int s = w.k0; s < w.k1; s++) {
            bar_wait(full + 8 * at.st, at.ph);
            if (!p.fma) {
                float4 *a = reinterpret_cast<float4 *>(smem + at.st * STAGE_BYTES);
                float4 *small =
                    reinterpret_cast<float4 *>(smem + at.st * STAGE_BYTES + A_BYTES + B_BYTES);
                for (int i = id; i < A_BYTES / 16; i += 4 * PREPARERS) {
                    float4 x[4];
#pragma unroll
                    for (int u = 0; u < 4; u++)
                        if (i + u * PREPARERS < A_BYTES / 16)
                            x[u] = a[i + u * PREPARERS];
#pragma unroll
                    for (int u = 0; u < 4; u++)
                        if (i + u * PREPARERS < A_BYTES / 16) {
                            const float4 big = round4(x[u]);
                            a[i + u * PREPARERS] = big;
                            if (SPLIT == 3)
                                small[i + u * PREPARERS] =
                                    round4(make_float4(x[u].x - big.x, x[u].y - big.y,
                                                       x[u].z - big.z, x[u].w - big.w));
                        }
                }
                fence_async_shared(); /* the wgmma that read these are async-proxy reads */
            }
            bar_arrive(ready + 8 * at.st);
            at.next();
        }
    }
}

/* ---- the consumer warpgroups -------------------------------------------------------- */

/*
 * The lane's fragments of one slice (4 steps of 8 k) from B's slice at
 * address b: fragment rows g, g + 8 are two adjacent columns (Layout),
 * rows t and t + 4 of the step's K. col_off is the lane's first column's
 * byte offset in its box row apart from the swizzle; q its 16-byte chunk.
 */
static __device__ __forceinline__ void load_frags(unsigned (&f)[4][4], unsigned b, unsigned col_off,
                                                  int q, int t)
{
#pragma unroll
    for (int s = 0; s < 4; s++)
#pragma unroll
        for (int r = 0; r < 2; r++) {
            const int k = 8 * s + t + 4 * r; /* k % 8 = t + 4r: the swizzle of that row */
            const float2 v = lds2(b + col_off + k * 128 + ((q ^ (t + 4 * r)) << 4));
            f[s][2 * r] = __float_as_uint(v.x);
            f[s][2 * r + 1] = __float_as_uint(v.y);
        }
}

template <int N> static __device__ __forceinline__ void hold_all(float (&x)[N])
{
#pragma unroll
    for (int i = 0; i < N; i++)
        hold(x[i]);
}
static __device__ __forceinline__ void hold_all(unsigned (&x)[4][4])
{
#pragma unroll
    for (int s = 0; s < 4; s++)
#pragma unroll
        for (int i = 0; i < 4; i++)
            hold(x[s][i]);
}

/*
 * TF32: issues acc (+)= the slice's product (rounded fragments f, four
 * wgmma, one group) without waiting for it.
 */
static __device__ __forceinline__ void issue(float (&acc)[ACC], unsigned (&f)[4][4], unsigned a,
                                             unsigned b, unsigned col_off, int q, int t, bool first)
{
    load_frags(f, b, col_off, q, t);
#pragma unroll
    for (int s = 0; s < 4; s++)
#pragma unroll
        for (int i = 0; i < 4; i++)
            f[s][i] = tf32(__uint_as_float(f[s][i]));
    hold_all(f);
    hold_all(acc);
    wgmma_fence();
    const u64 da = sw128_desc(a);
#pragma unroll
    for (int s = 0; s < 4; s++)
        wgmma(acc, f[s], da + 2 * s, !(first && s == 0));
    wgmma_commit();
}

/* TF32: acc (+)= the slice's product, waited for. */
static __device__ __forceinline__ void multiply(float (&acc)[ACC], unsigned a, unsigned b,
                                                unsigned col_off, int q, int t, bool first)
{
    unsigned f[4][4];
    issue(acc, f, a, b, col_off, q, t, first);
    wgmma_wait<0>();
    hold_all(f); /* the registers stay untouched until the products have read them */
    hold_all(acc);
}

/*
 * 3xTF32: part = the slice's product from the parts, small ones first,
 * then acc += part on the FMA units (the tensor cores' own sums truncate;
 * rung 15's comment says what that costs).
 */
static __device__ __forceinline__ void multiply3(float (&acc)[ACC], float (&part)[ACC], unsigned a,
                                                 unsigned small, unsigned b, unsigned col_off,
                                                 int q, int t, bool first)
{
    unsigned f[4][4], big[4][4], lo[4][4];
    load_frags(f, b, col_off, q, t);
#pragma unroll
    for (int s = 0; s < 4; s++)
#pragma unroll
        for (int i = 0; i < 4; i++) {
            big[s][i] = tf32(__uint_as_float(f[s][i]));
            lo[s][i] = tf32(__uint_as_float(f[s][i]) - __uint_as_float(big[s][i]));
        }
    hold_all(big);
    hold_all(lo);
    hold_all(part);
    wgmma_fence();
    const u64 da = sw128_desc(a), ds = sw128_desc(small);
#pragma unroll
    for (int s = 0; s < 4; s++) {
        wgmma(part, lo[s], da + 2 * s, s > 0);
        wgmma(part, big[s], ds + 2 * s, 1);
        wgmma(part, big[s], da + 2 * s, 1);
    }
    wgmma_commit();
    wgmma_wait<0>();
    hold_all(big);
    hold_all(lo);
    hold_all(part);
#pragma unroll
    for (int i = 0; i < ACC; i++)
        acc[i] = first ? part[i] : acc[i] + part[i];
}

/*
 * 3xTF32 where K <= 8 (one slice, never split): the FMA units sum the
 * products exactly as the FFMA rungs do, since one TF32 split product may
 * miss a*b by more than the fp32 tolerance's 4u at K = 1. acc's element i
 * is C(m0 + col(i), n(h(i))) as in store_tile.
 */
static __device__ __forceinline__ void multiply_fma(float (&acc)[ACC], unsigned a, unsigned b,
                                                    int n, int t, int K)
{
#pragma unroll
    for (int i = 0; i < ACC; i++) {
        const int m = 8 * (i / 4) + 2 * t + i % 2, nn = n + (i / 2) % 2;
        float sum = 0.0f;
        for (int k = 0; k < K; k++)
            sum = fmaf(lds1(a + sw128(m, k)), lds1(b + b_offset(k, nn)), sum);
        acc[i] = sum;
    }
}

/*
 * acc into C: element i is C^T's row n + (i/2) % 2 (the lane's two adjacent
 * columns of C), column 8 (i/4) + 2t + i % 2 (a row of C). The two columns
 * go out as one 8-byte store where N is even, guarded at the edges.
 */
static __device__ __forceinline__ void store_tile(const problem &p, const float (&acc)[ACC], int m0,
                                                  int n, int t)
{
    const bool pairs = p.N % 2 == 0;
#pragma unroll
    for (int j = 0; j < ACC / 4; j++)
#pragma unroll
        for (int q = 0; q < 2; q++) {
            const int m = m0 + 8 * j + 2 * t + q;
            const float x = acc[4 * j + q], y = acc[4 * j + 2 + q];
            if (m >= p.M)
                continue;
            float *row = p.C + m * p.N;
            if (pairs && n + 1 < p.N) {
                *reinterpret_cast<float2 *>(row + n) = make_float2(x, y);
            } else {
                if (n < p.N)
                    row[n] = x;
                if (n + 1 < p.N)
                    row[n + 1] = y;
            }
        }
}

#if EPI
/*
 * EPI > 0: rows 32b .. 32b + 31 of the warpgroup's sums (its BM rows by 64
 * columns) into the pair of buffers at pair: warps 0 and 1 write the box of
 * the first 32 columns, warps 2 and 3 the second's (rows of 128 bytes,
 * 128-byte swizzled as C's map says: the 16-byte chunk j of row r at
 * j ^ (r % 8)).
 * A lane's sums for rows 2t and 2t + 1 of an 8-row group lie in the same
 * chunks, swizzled by (2t) and (2t + 1) % 8: written in that order, the
 * rows of a warp's store would land on four of the eight chunk positions
 * four deep. Lanes of odd t take their second row first (qq below), so
 * that each store fills all eight positions two deep: two wavefronts, the
 * least 256 bytes take. Element i of lane 4g + t: as store_tile.
 */
static __device__ __forceinline__ void stage_box_rows(const float (&acc)[ACC], unsigned pair,
                                                      int b, int warp, int lane)
{
    const int g = lane / 4, t = lane % 4, q = 2 * (g / 2) + warp % 2;
    const unsigned box = pair + warp / 2 * BOX_BYTES;
#pragma unroll
    for (int j = 0; j < 4; j++)
#pragma unroll
        for (int k = 0; k < 2; k++) {
            const int i = 4 * (4 * b + j), qq = (t & 1) ^ k, r = 8 * j + 2 * t + qq;
            sts2(box + r * 128 + ((q ^ (r % 8)) << 4) + (g % 2) * 8, qq ? acc[i + 1] : acc[i],
                 qq ? acc[i + 3] : acc[i + 2]);
        }
}

/*
 * A pair of boxes read back a row of 32 floats at a time (where TMA cannot
 * store C's rows): warp w takes rows w, w + 4, ... of the pair's 64, lane l
 * float l (one 128-byte row of shared memory, no bank twice), and stores them
 * as 32 adjacent floats of C, guarded at its edges: in place of each lane's
 * floats one by one, scattered over 16 rows.
 */
static __device__ __forceinline__ void store_pair_rows(const problem &p, unsigned pair, int m0,
                                                       int n0, int warp, int lane)
{
#pragma unroll 4
    for (int i = 0; i < 16; i++) {
        const int s = 4 * i + warp, r = s % 32, m = m0 + r, n = n0 + 32 * (s / 32) + lane;
        const float x = lds1(pair + s / 32 * BOX_BYTES + sw128(r, lane));
        if (m < p.M && n < p.N)
            p.C[(size_t)m * p.N + n] = x;
    }
}

/*
 * The tile's boxes, two at a time, out of shared memory: where N % 4 == 0
 * each pair, once written, fenced for the asynchronous proxy and stored by
 * the warpgroup's first thread by TMA, which clips the boxes at C's edges; a
 * pair of buffers is written again once its stores, two boxes of rows
 * before, have read it (wait_group.read 1), so the last boxes of a tile
 * leave while the next tile's products run. Elsewhere (EPI=2) each pair
 * read back by the warps (store_pair_rows), whose reads the next pair's sync
 * keeps before that pair's buffers are written again.
 */
static __device__ __forceinline__ void store_tile_staged(const problem &p,
                                                         const float (&acc)[ACC], int m0, int n0,
                                                         int cw, int warp, int lane)
{
    const unsigned staging = p.staging + cw * 4 * BOX_BYTES;
    /* EPI=1 comes here only where N % 4 == 0 (store_sums): said so, its builds leave out the
       rows' path and stay byte for byte as they were */
    const bool tma = EPI == 1 || p.N % 4 == 0, first = threadIdx.x % 128 == 0;
    /* Every box, also those wholly past C's rows (TMA writes nothing of them): a tile's count
       of boxes stays even, so that each tile's first pair is the one its last store but one
       read, as the wait below assumes. */
#pragma unroll
    for (int b = 0; b < BM / 32; b++) {
        const unsigned pair = staging + (b % 2) * 2 * BOX_BYTES;
        if (tma && first)
            bulk_wait_read<1>();
        warpgroup_sync(cw);
        stage_box_rows(acc, pair, b, warp, lane);
        if (tma)
            fence_async_shared();
        warpgroup_sync(cw);
        if (!tma) {
            store_pair_rows(p, pair, m0 + 32 * b, n0, warp, lane);
        } else if (first) {
            tma_store(p.tc, n0, m0 + 32 * b, pair);
            tma_store(p.tc, n0 + 32, m0 + 32 * b, pair + BOX_BYTES);
            bulk_commit();
        }
    }
}
#endif

/*
 * A tile's sums into C by consumer warpgroup cw: through shared memory by
 * TMA where EPI > 0 and C's rows are 16-byte aligned (N % 4 == 0), with
 * EPI=2 elsewhere a row at a time by each warp, else from the registers.
 * col and t: the lane's place.
 */
static __device__ __forceinline__ void store_sums(const problem &p, const float (&acc)[ACC],
                                                  const tile &c, int cw, int warp, int lane,
                                                  int col, int t)
{
#if EPI
    if (EPI == 2 || p.N % 4 == 0) {
        store_tile_staged(p, acc, c.m0, c.n0 + 64 * cw, cw, warp, lane);
        return;
    }
#else
    (void)cw, (void)warp, (void)lane;
#endif
    store_tile(p, acc, c.m0, c.n0 + col, t);
}

/*
 * A consumer thread has finished with a stage (its fragment loads, and the
 * wgmma that read it): it arrives on the stage's empty barrier, and with
 * CLUSTER = 2 its warp, once every lane has, on the peer's, whose producer
 * writes half of A's slice into this stage too. (Every thread arrives here,
 * not one per warp after __syncwarp: the same order, but racecheck follows
 * only this one between the cp.async refill and the fragment loads.)
 */
static __device__ __forceinline__ void release(unsigned bar, int lane)
{
    bar_arrive(bar);
#if CLUSTER == 2
    __syncwarp();
    if (lane == 0)
        bar_arrive_peer(bar, cluster_rank() ^ 1);
#else
    (void)lane;
#endif
}

/*
 * Where consumer lane 4g + t of warp w in warpgroup cw reads B (Layout): q,
 * its 16-byte chunk of a box row; col, its first column of the tile; col_off,
 * that column's byte offset in its box row apart from the swizzle.
 */
struct place {
    int t, q, col;
    unsigned col_off;
};
static __device__ __forceinline__ place place_of(int cw, int warp, int lane)
{
    const int g = lane / 4, q = 2 * (g / 2) + warp % 2;
    const int col = 64 * cw + 32 * (warp / 2) + 4 * q + 2 * (g % 2);
    return {lane % 4, q, col, (unsigned)((col >> 5) * 4096 + (g % 2) * 8)};
}

#if SPLIT == 1 && INFLIGHT
/*
 * One slice of consume_inflight: waits for the stage, issues its product
 * from fragments f, then waits until only that group runs, so the previous
 * slice's product (from fragments held) is done and its stage freed.
 */
static __device__ __forceinline__ void step(float (&acc)[ACC], unsigned (&f)[4][4],
                                            unsigned (&held)[4][4], ring &at, unsigned &prev,
                                            unsigned smem, unsigned ready, unsigned col_off, int q,
                                            int t, int lane, bool first, unsigned empty)
{
    const unsigned a = smem + at.st * STAGE_BYTES, b = a + A_BYTES;
    bar_wait(ready + 8 * at.st, at.ph);
    issue(acc, f, a, b, col_off, q, t, first);
    wgmma_wait<1>();
    hold_all(held); /* read by the group just waited for */
    if (!first)
        release(prev, lane);
    prev = empty + 8 * at.st;
    at.next();
}

/*
 * consume with INFLIGHT = 1 (rung 17): one wgmma group left running while
 * the next slice's fragments are read and rounded, on two sets of fragment
 * registers in turn, so a consumer's tensor-core work and its shared-memory
 * loads overlap; a stage is freed once the group after it was issued.
 */
static __device__ __forceinline__ void consume_inflight(const problem &p, unsigned smem,
                                                        unsigned ready, unsigned empty, int cw,
                                                        int warp, int lane)
{
    const place at_ = place_of(cw, warp, lane);
    const int t = at_.t, q = at_.q, col = at_.col;
    const unsigned col_off = at_.col_off;
    float acc[ACC];
    unsigned f0[4][4], f1[4][4], prev = 0;
    ring at;
    FOR_EACH_PIECE(w, p.sk.plan, first_unit(), p.units, clusters(), p.slices)
    {
        const tile c = tile_at(w.tile, p.tiles_m, p.tiles_n, p.rank);
        for (int s = w.k0; s < w.k1; s += 2) {
            step(acc, f0, f1, at, prev, smem, ready, col_off, q, t, lane, s == w.k0, empty);
            if (s + 1 < w.k1)
                step(acc, f1, f0, at, prev, smem, ready, col_off, q, t, lane, false, empty);
        }
        wgmma_wait<0>();
        hold_all(f0);
        hold_all(f1);
        hold_all(acc);
        release(prev, lane);
#if SK
        if (!sk_settle(p.sk, acc, w, first_unit(), CLUSTER * CWG, p.rank * CWG + cw, cw))
            continue; /* the tile's finisher adds this block's sums */
#endif
        store_sums(p, acc, c, cw, warp, lane, col, t);
    }
}
#endif

/*
 * Consumer warpgroup cw (0 .. CWG-1): its 64 columns of every tile of this
 * block. FMA (3xTF32 with K <= 8) is a copy of its own, so that the two
 * paths' registers never meet. ready: the barriers that say a stage may be
 * read (the ready ones, or the full ones where nothing prepares).
 */
template <bool FMA>
static __device__ __forceinline__ void consume(const problem &p, unsigned smem, unsigned ready,
                                               unsigned empty, int cw, int warp, int lane)
{
    const place at_ = place_of(cw, warp, lane);
    const int t = at_.t, q = at_.q, col = at_.col;
    const unsigned col_off = at_.col_off;
    float acc[ACC];
#if SPLIT == 3
    float part[ACC];
#endif
    ring at;
    FOR_EACH_PIECE(w, p.sk.plan, first_unit(), p.units, clusters(), p.slices)
    {
        const tile c = tile_at(w.tile, p.tiles_m, p.tiles_n, p.rank);
        for (int s = w.k0; s < w.k1; s++) {
            const unsigned a = smem + at.st * STAGE_BYTES, b = a + A_BYTES;
            bar_wait(ready + 8 * at.st, at.ph);
#if SPLIT == 3
            if (FMA)
                multiply_fma(acc, a, b, col, t, p.K);
            else
                multiply3(acc, part, a, b + B_BYTES, b, col_off, q, t, s == w.k0);
#else
            multiply(acc, a, b, col_off, q, t, s == w.k0);
#endif
            release(empty + 8 * at.st, lane);
            at.next();
        }
#if SK
        if (!sk_settle(p.sk, acc, w, first_unit(), CLUSTER * CWG, p.rank * CWG + cw, cw))
            continue;
#endif
        store_sums(p, acc, c, cw, warp, lane, col, t);
    }
}

/* ---- the kernel ---------------------------------------------------------------------- */

/*
 * tma: 1 where A's and B's tensor maps are given (rows 16-byte aligned),
 * 2 where A's residual's is too (3xTF32), 0 for the cp.async path. With
 * CLUSTER = 2 kladder launches an even number of blocks.
 */
#if CLUSTER == 2
#define CLUSTER_DIMS __cluster_dims__(2, 1, 1)
#else
#define CLUSTER_DIMS
#endif
#if SK
#define WORKSPACE_ARG , unsigned *__restrict__ ws
#else
#define WORKSPACE_ARG
#endif
#if EPI
#define C_MAP_ARG , const __grid_constant__ tensor_map tc
#else
#define C_MAP_ARG
#endif
extern "C" __global__ void __launch_bounds__(NT, 1) CLUSTER_DIMS
    gemm(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int M,
         int N, int K, int tma, const __grid_constant__ tensor_map ta,
         const __grid_constant__ tensor_map tb,
         const __grid_constant__ tensor_map tr C_MAP_ARG WORKSPACE_ARG)
{
    extern __shared__ unsigned char dynamic[];
    __shared__ __align__(8) u64 bars[3 * STAGES]; /* full, empty, ready: 8 bytes apart */
    const unsigned raw = smem_addr(dynamic), smem = (raw + 1023) & ~1023u;
    unsigned char *gsmem = dynamic + (smem - raw);
    const unsigned full = smem_addr(bars), empty = full + 8 * STAGES, ready = empty + 8 * STAGES;

    problem p;
    p.A = A, p.B = B, p.C = C, p.M = M, p.N = N, p.K = K;
    p.tiles_m = (M + BM - 1) / BM, p.tiles_n = (N + BN - 1) / BN;
    p.units = p.tiles_m * units_n(p.tiles_n);
    p.slices = (K + BK - 1) / BK;
    p.rank = CLUSTER == 2 ? (int)cluster_rank() : 0;
    p.tma = tma != 0;
    p.resid = SPLIT == 3 && tma == 2;
    p.fma = SPLIT == 3 && K <= 8;
    p.ready = !p.tma || (SPLIT == 3 && !p.resid);
#if EPI
    p.tc = &tc, p.staging = smem + STAGES * STAGE_BYTES;
#endif
#if SK
    /* the plan's blocks are the clusters; a slot per block and consumer warpgroup */
    p.sk = sk_begin<float>(p.units, p.slices, clusters(), gridDim.x * CWG, ws);
    if (first_unit() >= p.sk.plan.blocks)
        return; /* the plan runs fewer clusters than were launched: the whole cluster leaves */
#endif

    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; s++) {
            bar_init(full + 8 * s, p.tma ? 1 : 32);
            /* every consumer thread here, and every consumer warp of the peer */
            bar_init(empty + 8 * s, 128 * CWG + 4 * CWG * (CLUSTER - 1));
            bar_init(ready + 8 * s, PREPARERS);
        }
        bar_init_fence();
    }
#if CLUSTER == 2
    cluster_sync(); /* the peer's barriers are initialised before anything reaches them */
#else
    __syncthreads();
#endif

    const int wg = threadIdx.x / 128, warp = threadIdx.x / 32 % 4, lane = threadIdx.x % 32;
    if (wg == 0) {
#if CWG > 1
        regs_dec<PRODUCER_REGS>();
#endif
        if (warp == 0) {
            if (p.tma) {
                if (lane == 0)
                    produce_tma(p, &ta, &tb, &tr, smem, full, empty);
            } else {
                produce_copies(p, smem, full, empty, lane);
            }
        } else {
            prepare_slices(p, gsmem, full, ready, threadIdx.x - 32);
        }
    } else {
#if CWG > 1
        regs_inc<CONSUMER_REGS>();
#endif
        const unsigned wait = p.ready ? ready : full;
        if (p.fma)
            consume<true>(p, smem, wait, empty, wg - 1, warp, lane);
        else
#if SPLIT == 1 && INFLIGHT
            consume_inflight(p, smem, wait, empty, wg - 1, warp, lane);
#else
            consume<false>(p, smem, wait, empty, wg - 1, warp, lane);
#endif
#if EPI
        if (threadIdx.x % 128 == 0)
            bulk_wait_all(); /* the last stores done before the block's shared memory goes */
#endif
    }
#if CLUSTER == 2
    /* No block leaves while its peer may still arrive on its barriers. */
    __syncwarp();
    cluster_sync();
#endif
}

/* ---- padding, and 3xTF32's residual of A ---------------------------------------------- */

/*
 * Rows of A (M x K) into Ap with rows of lda floats, where lda != K, and
 * rows of B (K x N) into Bp with rows of ldb, where ldb != N; zeros after
 * each row's end. With resid (rung 18, K > 8) also A's residual into R,
 * rows of lda: r = a - tf32(a), exact in float, which a TFLOAT32 tensor map
 * rounds into the small part tf32(a - big) as it copies it, while A's own
 * map rounds a into big, so that no warp splits A in shared memory. One
 * block per row: rows 0 .. M-1 are A's, M .. M+K-1 B's; each thread takes
 * four floats at a time, cut from two aligned 16-byte loads where the row is
 * not 16-byte aligned (pad_row), and stores them as one (lda and ldb are
 * multiples of 4, and of 32 where padded: rows of whole 128-byte lines, as
 * TMA's boxes read them). kladder launches it before gemm where K or N is
 * not a multiple of 4, or for the residual, so that TMA copies every slice.
 */
extern "C" __global__ void pad(const float *__restrict__ A, const float *__restrict__ B, float *Ap,
                               float *Bp, float *R, int M, int N, int K, int lda, int ldb,
                               int resid)
{
    const bool in_a = (int)blockIdx.x < M;
    const int n = in_a ? K : N, ld = in_a ? lda : ldb;
    const bool copy = ld != n, split = in_a && resid;
    if (!copy && !split)
        return;
    const int row = in_a ? blockIdx.x : blockIdx.x - M;
    const size_t total = (size_t)(in_a ? M : K) * n * sizeof(float);
    float4 *dst = reinterpret_cast<float4 *>((in_a ? Ap : Bp) + (size_t)row * ld);
    float4 *res = reinterpret_cast<float4 *>(R + (size_t)row * ld);
    pad_row(reinterpret_cast<const unsigned char *>(in_a ? A : B), total, row, 4 * n, 4 * ld,
            [&](int i, uint4 u) {
                const float4 v = make_float4(__uint_as_float(u.x), __uint_as_float(u.y),
                                             __uint_as_float(u.z), __uint_as_float(u.w));
                if (copy)
                    dst[i] = v;
                if (split) {
                    const float4 big = round4(v);
                    res[i] = make_float4(v.x - big.x, v.y - big.y, v.z - big.z, v.w - big.w);
                }
            });
}
