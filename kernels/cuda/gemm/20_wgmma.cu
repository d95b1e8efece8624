/*
 * Rung 20 (CUDA, Hopper only): wgmma in the input's own narrow type, both
 * operands read by the tensor cores from shared memory, fed by TMA.
 *
 * Computes   C[r][c] = sum_k A[r][k] * B[k][c]   (A row-major M x K, B
 *            given transposed: Bt row-major N x K, Bt[c][k] = B[k][c]; C
 *            row-major M x N of float, int32 for int8).
 * Types:     -DKL_T_HALF, -DKL_T_BF16 (wgmma k16, products summed in fp32),
 *            -DKL_T_FP8 (e4m3), -DKL_T_FP8E5M2 (k32, fp32 sums) or
 *            -DKL_T_INT8 (k32, exact int32 sums).
 * Precision: the type's own: its inputs are exact, the tensor cores
 *            multiply them exactly and sum in fp32 (int32), aligning the
 *            addends to the largest and truncating. Hopper's FP8 sums keep
 *            only about 13 bits: with PROMOTE > 0 the FP8 types add them
 *            into fp32 registers every PROMOTE elements of K (checked
 *            against that bound, kl_fp8_tolerance); PROMOTE=0 leaves the
 *            whole of K in the tensor cores (the fast mode, checked against
 *            its own wider bound). half and bf16 against
 *            kl_narrow_tolerance; int8 exactly.
 * Why Bt:    wgmma reads an operand from shared memory either K-major (rows
 *            of K) or, for 16-bit types only, transposed; FP8 and INT8 take
 *            both operands K-major, as cuBLASLt's FP8 and INT8 GEMMs take
 *            them ("TN"). So every narrow type reads B as Bt, made once on
 *            the host for this rung and the libraries alike, and one layout
 *            serves all five: A's slice and Bt's slice are each rows of 128
 *            bytes of K, which is what the descriptors describe.
 * Geometry:  persistent: one block of NT = 128 (BM/64 + 1) threads per
 *            multiprocessor (at most one per tile), taking tiles u = its
 *            index, + the blocks, ... of BM x BN, in groups of GROUP
 *            tile-rows (so that running tiles share their panels in L2).
 *            Warpgroup 0 produces: one thread issues the TMA copies of each
 *            K-slice into a ring of STAGES stages; it keeps 40 registers
 *            (setmaxnreg) and gives the rest to the consumers, warpgroups
 *            1 .. BM/64, each owning 64 rows of the tile: per slice, four
 *            (128 / 32 bytes of K) wgmma.m64nBN with A's 64 rows and Bt's BN
 *            rows by descriptor, accumulating in BN/2 registers per thread.
 * Pipeline:  per stage two mbarriers: full (TMA's byte count has landed)
 *            and empty (every consumer thread has finished the wgmma that
 *            read it). A consumer issues a slice's products, then waits
 *            until only that group runs, so the previous slice's products
 *            are done and its stage freed: one group always in flight, while
 *            the producer is STAGES - 1 slices ahead (and already fetching
 *            the next tile's slices while the consumers store this one).
 * Layout:    stage s: A's slice (BM rows of 128 bytes, one TMA box), then
 *            Bt's (BN rows of 128 bytes), 128-byte swizzled by the copies
 *            (the 16-byte chunk j of row r at j ^ (r % 8)), as the
 *            descriptors say (hopper.cuh, sw128_desc; +2 moves 32 bytes
 *            along K, one wgmma's K).
 * Macros:    BM (128; 64 to 256 in steps of 64), BN (256; 64, 128, 192 or
 *            256; at most 128 with BM > 128, for registers), STAGES (4),
 *            GROUP (8); PROMOTE (FP8 only: elements of K per promotion, a
 *            multiple of 128; 0 for none; its second set of sums needs
 *            BN <= 192, and BN = 64 with BM > 128); RESIDUES (int8, for
 *            rung 22: C gets each sum's symmetric residue modulo a last
 *            argument, as bytes); SK (0; 1: stream-K, stream_k.cuh over
 *            the plan of schedule.h: a partial last wave's tiles shared by
 *            all blocks in slices of K, a shared tile's partial sums (FP8
 *            promoted: its fp32 totals) left in the workspace ws, the
 *            kernel's argument after tr, and added by the block holding its
 *            first slice in block order; ws holds kl_sk_flag_words(blocks *
 *            BM / 64) flags, zero before the first launch, then a BM x BN
 *            tile of sums per block; with RESIDUES the int32 sums, whose
 *            residues the finisher takes of the whole tile's); EPI (2: C
 *            through shared memory, store_tile_staged, by TMA where N is a
 *            multiple of 4 and elsewhere a row of 32 sums a warp; 1: the
 *            same where N is a multiple of 4, from the registers elsewhere;
 *            0: from the registers, as RESIDUES always); HINT (0: L2's own
 *            policy; bit 0: C's boxes stored by TMA marked evict-first, bit
 *            1: A's and B's copies evict-last; see L2 below). Dynamic shared
 *            memory STAGES * (BM + BN) * 128 bytes plus 1 KiB to align the
 *            ring to 1024 bytes (193 KiB at the defaults), and with EPI > 0
 *            two boxes of 8 KiB per consumer warpgroup after it (225 KiB).
 * L2:        C is written once and never read back, while every slice of A
 *            and B is read by a whole row or column of tiles. Where K is
 *            short, C's lines stream through L2 faster than the operands'
 *            are reused and push them out: at 16384 x 16384 x 256 (bf16, an
 *            H100) DRAM read 161 MB for 16 MiB of operands, beside the 1 GiB
 *            of C. HINT=3 marks C's stores evict-first and the operands'
 *            copies evict-last, so C leaves L2 first: 1.14x as fast there
 *            (1.23x in fp8 and int8); at 4096^3 and 8192^3 no faster, so
 *            kladder sets it by a rule where K <= 512, in fp8 and int8 768
 *            (docs/ARCHITECTURE.md, "The L2 rule").
 * Change:    rung 17 multiplied TF32, whose B operand wgmma reads only
 *            K-major, so it computed C's transpose with B's strips loaded
 *            into registers by the consumers. With both operands K-major in
 *            shared memory the consumers load nothing: the tensor cores
 *            read both tiles themselves, and 16-bit inputs multiply at
 *            twice TF32's rate (8-bit ones at four times).
 *            FP8 (PROMOTE > 0): the tensor cores keep only about 13 bits of
 *            a sum of FP8 products (at 8192^3, 60 times cuBLASLt's error),
 *            so after every PROMOTE elements of K a warpgroup waits for its
 *            products, adds the partial sums into a second set of fp32
 *            registers and starts the next span from zero: cuBLASLt's error
 *            exactly, at 0.98-1.00 of its speed at 8192^3 (H200). While one
 *            warpgroup adds, the other's products keep the tensor cores
 *            busy; the second set of sums leaves room for BN = 192.
 * Sizes:     any M, N, K >= 1. TMA needs rows that start 16-byte aligned:
 *            where K is not a multiple of 16 bytes of elements, kladder
 *            first copies A and Bt into rows padded to 128 bytes (kernel
 *            pad below, timed with the product); boxes past the matrices
 *            read zeros. Stores are guarded: TMA clips its boxes at C's
 *            edges, where C's rows start 16-byte aligned (N % 4 == 0);
 *            elsewhere with EPI=2 rows of 32 sums, guarded; from the
 *            registers two adjacent elements at a time where N is even.
 *
 * Backends:  CUDA only (NVRTC for sm_90a), compute capability 9.0 only;
 *            kladder passes A's and Bt's tensor maps (cuTensorMapEncodeTiled:
 *            boxes of BM rows and of BN rows by 128 bytes; FLOAT16, BFLOAT16,
 *            or UINT8 for the 8-bit types, whose bits TMA copies as bytes),
 *            and with EPI > 0 C's (boxes of 64 rows by 32 sums, FLOAT32, whose
 *            bits TMA copies for int32 sums as well; none where N % 4 != 0).
 */
#ifndef BM
#define BM 128
#endif
#ifndef BN
#define BN 256
#endif
#ifndef STAGES
#define STAGES 4
#endif
#ifndef HINT
#define HINT 0
#endif
#ifndef GROUP
#define GROUP 8
#endif
#ifndef PROMOTE
#define PROMOTE 0
#endif
#ifndef SK
#define SK 0
#endif
#ifndef EPI
#if defined(RESIDUES)
#define EPI 0
#else
#define EPI 2
#endif
#endif

#include "hopper.cuh"
#include "residue.cuh"
#include "stream_k.cuh"

/* The instruction, for each type: MMA_OP "N" MMA_KIND, then MMA_TAIL after the descriptors. */
#define MMA_OP "wgmma.mma_async.sync.aligned.m64n"
#if defined(KL_T_HALF)
#define MMA_KIND "k16.f32.f16.f16"
#define MMA_TAIL ", p, 1, 1, 0, 0;\n" /* scale-d, scale A and B by 1, neither transposed */
#define ESIZE 2
#elif defined(KL_T_BF16)
#define MMA_KIND "k16.f32.bf16.bf16"
#define MMA_TAIL ", p, 1, 1, 0, 0;\n"
#define ESIZE 2
#elif defined(KL_T_FP8)
#define MMA_KIND "k32.f32.e4m3.e4m3"
#define MMA_TAIL ", p, 1, 1;\n" /* 8-bit operands are K-major only: no transpose flags */
#define ESIZE 1
#elif defined(KL_T_FP8E5M2)
#define MMA_KIND "k32.f32.e5m2.e5m2"
#define MMA_TAIL ", p, 1, 1;\n"
#define ESIZE 1
#elif defined(KL_T_INT8)
#define MMA_KIND "k32.s32.s8.s8"
#define MMA_TAIL ", p;\n" /* integer products: no scales */
#define ESIZE 1
#else
#error "20_wgmma: narrow inputs only (-DKL_T_HALF, _BF16, _FP8, _FP8E5M2 or _INT8)"
#endif

#if defined(KL_T_INT8) && defined(RESIDUES)
/* Rung 22's products: each int32 sum stored as its residue modulo the kernel's argument
   `modulus` (at most 256), symmetric, one byte, so that its planes are a quarter as large. */
typedef int acc_t;
typedef signed char out_t;
typedef char2 out2_t;
#define ACC_C "+r"
#elif defined(KL_T_INT8)
typedef int acc_t;
typedef int out_t;
typedef int2 out2_t;
#define ACC_C "+r"
#else
typedef float acc_t;
typedef float out_t;
typedef float2 out2_t;
#define ACC_C "+f"
#endif

/* FP8 only: slices of K (128 elements each) summed in the tensor cores before a promotion. */
#if (defined(KL_T_FP8) || defined(KL_T_FP8E5M2)) && PROMOTE > 0
#define SPAN (PROMOTE / 128)
#else
#define SPAN 0
#endif

#define CWG (BM / 64)            /* consumer warpgroups, 64 rows of C each */
#define NT (128 * (CWG + 1))     /* threads: the producer warpgroup and the consumers */
#define ACC (BN / 2)             /* accumulators per consumer thread: 64 x BN / 128 */
#define BKE (128 / ESIZE)        /* K per stage: one 128-byte swizzled row of elements */
#define A_BYTES (BM * 128)       /* A's slice */
#define B_BYTES (BN * 128)       /* Bt's slice */
#define STAGE_BYTES (A_BYTES + B_BYTES)
/* Registers per thread once the warpgroups have traded (as in rung 17). */
#define LAUNCH_REGS (65536 / NT / 8 * 8 > 255 ? 256 : 65536 / NT / 8 * 8)
#define PRODUCER_REGS 40
#define CONSUMER_REGS_ ((LAUNCH_REGS * NT - 128 * PRODUCER_REGS) / (128 * CWG) / 8 * 8)
#define CONSUMER_REGS (CONSUMER_REGS_ > 256 ? 256 : CONSUMER_REGS_)
/* EPI > 0: a box of C (64 rows of 32 sums, 128 bytes each), two per consumer. */
#define BOX_BYTES (64 * 128)

static_assert(BM % 64 == 0 && BM >= 64 && BM <= 256, "20_wgmma: BM is 64, 128, 192 or 256");
static_assert(BN == 64 || BN == 128 || BN == 192 || BN == 256,
              "20_wgmma: BN is 64, 128, 192 or 256 (wgmma's N)");
static_assert(BM <= 128 || BN <= 128, "20_wgmma: BM > 128 leaves registers for BN <= 128");
static_assert(STAGES >= 2, "20_wgmma: at least two stages");
static_assert(PROMOTE >= 0 && PROMOTE % 128 == 0, "20_wgmma: PROMOTE is a multiple of 128");
static_assert(SPAN == 0 || BN <= (BM > 128 ? 64 : 192),
              "20_wgmma: PROMOTE's second set of sums leaves registers for BN <= 192 "
              "(BN = 64 with BM > 128)");
static_assert(SK == 0 || SK == 1, "20_wgmma: SK is 0 or 1");
static_assert(EPI >= 0 && EPI <= 2, "20_wgmma: EPI is 0, 1 or 2");
#if EPI && defined(RESIDUES)
#error "20_wgmma: EPI > 0 stages sums of 4 bytes; rung 22's residues of one take EPI=0"
#endif

/* ---- the instructions: D (64 x BN) (+)= A (64 x 32 bytes of K) * B, both by descriptor -- */

/* The accumulators as asm operands, read and written. */
#define D4(i) ACC_C(d[i]), ACC_C(d[i + 1]), ACC_C(d[i + 2]), ACC_C(d[i + 3])
#define D16(i) D4(i), D4(i + 4), D4(i + 8), D4(i + 12)
#define D32 D16(0), D16(16)
#define D64 D32, D16(32), D16(48)
#define D96 D64, D16(64), D16(80)
#define D128 D96, D16(96), D16(112)

/*
 * wgmma.m64nBN: d's element i of lane 4g + t of warp w of the warpgroup is
 * row 16w + g + 8 ((i / 2) % 2), column 8 (i / 4) + 2t + i % 2 of the
 * 64 x N product; accumulate = 0 overwrites d.
 */
#if BN == 64
static __device__ __forceinline__ void wgmma(acc_t (&d)[ACC], u64 a, u64 b, int accumulate)
{
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n" MMA_OP "64" MMA_KIND " {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
                 "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
                 "}, %32, %33" MMA_TAIL "}\n"
                 : D32
                 : "l"(a), "l"(b), "r"(accumulate));
}

#elif BN == 128
static __device__ __forceinline__ void wgmma(acc_t (&d)[ACC], u64 a, u64 b, int accumulate)
{
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n" MMA_OP "128" MMA_KIND " {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
                 "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
                 "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
                 "}, %64, %65" MMA_TAIL "}\n"
                 : D64
                 : "l"(a), "l"(b), "r"(accumulate));
}

#elif BN == 192
static __device__ __forceinline__ void wgmma(acc_t (&d)[ACC], u64 a, u64 b, int accumulate)
{
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %98, 0;\n" MMA_OP "192" MMA_KIND " {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
                 "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
                 "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
                 "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
                 "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95"
                 "}, %96, %97" MMA_TAIL "}\n"
                 : D96
                 : "l"(a), "l"(b), "r"(accumulate));
}

#elif BN == 256
static __device__ __forceinline__ void wgmma(acc_t (&d)[ACC], u64 a, u64 b, int accumulate)
{
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n" MMA_OP "256" MMA_KIND " {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
                 "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
                 "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
                 "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
                 "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
                 "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "
                 "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
                 "}, %128, %129" MMA_TAIL "}\n"
                 : D128
                 : "l"(a), "l"(b), "r"(accumulate));
}

#endif

#if defined(KL_T_INT8)
static __device__ __forceinline__ void hold(int &x)
{
    asm volatile("" : "+r"(x)::"memory");
}
#endif
template <int N> static __device__ __forceinline__ void hold_all(acc_t (&x)[N])
{
#pragma unroll
    for (int i = 0; i < N; i++)
        hold(x[i]);
}

/* ---- the tile scheduler and the ring ------------------------------------------------ */

struct tile {
    int m0, n0;
};

/* Tile u of tiles_m x tiles_n, taken in groups of GROUP tile-rows (schedule.h). */
static __device__ __forceinline__ tile tile_at(int u, int tiles_m, int tiles_n)
{
    int tm, tn;
    kl_tile_of(u, tiles_m, tiles_n, GROUP, &tm, &tn);
    return {tm * BM, tn * BN};
}

/* A role's place in the ring: its next stage and the parity of that stage's phase. */
struct ring {
    int st = 0;
    unsigned ph = 0;
    __device__ __forceinline__ void next()
    {
        if (++st == STAGES)
            st = 0, ph ^= 1;
    }
};

struct problem {
    out_t *C;
    int M, N, K, tiles_m, tiles_n, tiles, slices;
    int modulus; /* RESIDUES: C holds the sums modulo it */
#if EPI
    const tensor_map *tc; /* C's map (where N % 4 == 0) */
    unsigned staging;     /* the consumers' boxes, after the ring */
#endif
#if SK
    kl_sk<acc_t> sk; /* the stream-K plan, and the partial tiles of a block's warpgroups */
#endif
};

/* A sum as C holds it: itself, or (RESIDUES) its symmetric residue modulo p.modulus. */
static __device__ __forceinline__ out_t out(const problem &p, acc_t x)
{
#if defined(RESIDUES)
    return (out_t)symmetric(x, p.modulus);
#else
    (void)p;
    return x;
#endif
}

/* ---- the producer ---------------------------------------------------------------------- */

/* Warp 0, lane 0: the TMA copies of every slice of every tile of this block. */
static __device__ __forceinline__ void produce(const problem &p, const tensor_map *ta,
                                               const tensor_map *tb, unsigned smem, unsigned full,
                                               unsigned empty)
{
    ring at;
#if HINT & 2
    const u64 keep = l2_evict_last(); /* A's and B's lines outlive C's in L2 */
#endif
    FOR_EACH_PIECE(w, p.sk.plan, blockIdx.x, p.tiles, gridDim.x, p.slices)
    {
        const tile c = tile_at(w.tile, p.tiles_m, p.tiles_n);
        for (int s = w.k0; s < w.k1; s++) {
            /* the phase before the one the consumers complete next: on the ring's first lap
               that is the phase before the first, which counts as complete */
            bar_wait(empty + 8 * at.st, at.ph ^ 1);
            const unsigned a = smem + at.st * STAGE_BYTES, bar = full + 8 * at.st;
            bar_arrive_tx(bar, STAGE_BYTES);
#if HINT & 2
            tma_load_hint(a, ta, s * BKE, c.m0, bar, keep);
            tma_load_hint(a + A_BYTES, tb, s * BKE, c.n0, bar, keep);
#else
            tma_load(a, ta, s * BKE, c.m0, bar);
            tma_load(a + A_BYTES, tb, s * BKE, c.n0, bar);
#endif
            at.next();
        }
    }
}

/* ---- the consumers --------------------------------------------------------------------- */

/*
 * acc into C: element i is row m0 + 16w + g + 8 ((i/2) % 2), columns n0 +
 * 8 (i/4) + 2t and the next; the pair goes out as one 8-byte store where N
 * is even, guarded at the edges.
 */
static __device__ __forceinline__ void store_tile(const problem &p, const acc_t (&acc)[ACC],
                                                  int m0, int n0, int t)
{
    const bool pairs = p.N % 2 == 0;
#pragma unroll
    for (int j = 0; j < ACC / 4; j++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
            const int m = m0 + 8 * h, n = n0 + 8 * j + 2 * t;
            const out_t x = out(p, acc[4 * j + 2 * h]), y = out(p, acc[4 * j + 2 * h + 1]);
            if (m >= p.M)
                continue;
            out_t *row = p.C + (size_t)m * p.N;
            if (pairs && n + 1 < p.N) {
                *reinterpret_cast<out2_t *>(row + n) = out2_t{x, y};
            } else {
                if (n < p.N)
                    row[n] = x;
                if (n + 1 < p.N)
                    row[n + 1] = y;
            }
        }
}

#if EPI
/* Two sums into shared memory at `at`: floats as "f" operands (moved through "r" ones, ptxas
   finds too few registers left for the wgmma pipeline and serializes it), or ints. */
static __device__ __forceinline__ void st_shared2(unsigned at, out_t x, out_t y)
{
#if defined(KL_T_INT8)
    asm volatile("st.shared.v2.s32 [%0], {%1, %2};\n" ::"r"(at), "r"(x), "r"(y) : "memory");
#else
    asm volatile("st.shared.v2.f32 [%0], {%1, %2};\n" ::"r"(at), "f"(x), "f"(y) : "memory");
#endif
}

/* A sum back out of shared memory at `at` (EPI=2's rows). */
static __device__ __forceinline__ out_t ld_shared1(unsigned at)
{
    out_t x;
#if defined(KL_T_INT8)
    asm volatile("ld.shared.s32 %0, [%1];\n" : "=r"(x) : "r"(at) : "memory");
#else
    asm volatile("ld.shared.f32 %0, [%1];\n" : "=f"(x) : "r"(at) : "memory");
#endif
    return x;
}

/*
 * EPI=2 where TMA cannot store C's rows (N % 4 != 0): warp w's 16 rows of a
 * box read back a row of 32 sums at a time (lane l sum l: one 128-byte row
 * of shared memory, no bank twice) and stored as 32 adjacent sums of C,
 * guarded at its edges, in place of each lane's sums scattered over 16
 * rows. The warp wrote those rows itself (row 16w + g + 8h).
 */
static __device__ __forceinline__ void store_box_rows(const problem &p, unsigned box, int m0,
                                                      int n0, int warp, int lane)
{
    const int n = n0 + lane;
#pragma unroll 4
    for (int i = 0; i < 16; i++) {
        const int r = 16 * warp + i, m = m0 + r;
        const out_t x = ld_shared1(box + sw128(r, lane));
        if (m < p.M && n < p.N)
            p.C[(size_t)m * p.N + n] = x;
    }
}

/*
 * EPI > 0: acc into C through shared memory, the warpgroup's 64 rows of the
 * tile (from row m0) a box of 64 x 32 sums at a time. The warpgroup writes
 * a box into one of its two buffers at staging (rows of 128 bytes, 128-byte
 * swizzled as C's map says: the 16-byte chunk j of row r at j ^ (r % 8), so
 * that a warp's 8-byte writes fill two wavefronts). Where N % 4 == 0 it
 * fences the box for the asynchronous proxy, and its first thread stores
 * it by TMA, which clips the box at C's edges. Nobody waits for a store but
 * the warpgroup's write into the same buffer two boxes later
 * (wait_group.read 1: every older store has read its box), so the last
 * boxes of a tile leave while the next tile's products run. Elsewhere
 * (EPI=2) the warps read the box back by rows (store_box_rows), whose reads
 * the next box's sync keeps before that buffer is written again. Element i
 * of lane 4g + t of warp w: as store_tile.
 */
static __device__ __forceinline__ void store_tile_staged(const problem &p, const acc_t (&acc)[ACC],
                                                         unsigned staging, int m0, int n0, int cw,
                                                         int warp, int lane)
{
    const int g = lane / 4, t = lane % 4;
    /* EPI=1 comes here only where N % 4 == 0 (store_sums): said so, its builds leave out the
       rows' path */
    const bool tma = EPI == 1 || p.N % 4 == 0, first = threadIdx.x % 128 == 0;
#if HINT & 1
    const u64 drop = l2_evict_first(); /* C is written once, never read back */
#endif
#pragma unroll
    for (int j = 0; j < BN / 32; j++) {
        const unsigned box = staging + (j % 2) * BOX_BYTES;
        if (tma && first)
            bulk_wait_read<1>();
        warpgroup_sync(cw);
#pragma unroll
        for (int q = 0; q < 4; q++)
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const int i = 16 * j + 4 * q + 2 * h, r = 16 * warp + g + 8 * h;
                st_shared2(box + r * 128 + (((2 * q + t / 2) ^ g) << 4) + (t % 2) * 8,
                           out(p, acc[i]), out(p, acc[i + 1]));
            }
        if (tma)
            fence_async_shared();
        warpgroup_sync(cw);
        if (!tma) {
            store_box_rows(p, box, m0, n0 + 32 * j, warp, lane);
        } else if (first) {
#if HINT & 1
            tma_store_hint(p.tc, n0 + 32 * j, m0, box, drop);
#else
            tma_store(p.tc, n0 + 32 * j, m0, box);
#endif
            bulk_commit();
        }
    }
}
#endif

/* A tile's sums into C by consumer warpgroup cw: through shared memory where EPI > 0, by TMA
   where C's rows are 16-byte aligned (N % 4 == 0) and with EPI=2 elsewhere a row at a time by
   each warp; else from the registers. */
static __device__ __forceinline__ void store_sums(const problem &p, const acc_t (&acc)[ACC],
                                                  const tile &c, int cw, int warp, int lane)
{
#if EPI
    if (EPI == 2 || p.N % 4 == 0) {
        store_tile_staged(p, acc, p.staging + cw * 2 * BOX_BYTES, c.m0 + 64 * cw, c.n0, cw, warp,
                          lane);
        return;
    }
#endif
    store_tile(p, acc, c.m0 + 64 * cw + 16 * warp + lane / 4, c.n0, lane % 4);
}

/*
 * One slice's products, one group: four wgmma (128 / 32 bytes of K) of A's
 * 64 rows at a and Bt's BN rows at b; fresh: acc starts from zero.
 */
static __device__ __forceinline__ void issue_slice(acc_t (&acc)[ACC], unsigned a, unsigned b,
                                                   bool fresh)
{
    hold_all(acc);
    wgmma_fence();
    const u64 da = sw128_desc(a), db = sw128_desc(b);
#pragma unroll
    for (int k = 0; k < 4; k++)
        wgmma(acc, da + 2 * k, db + 2 * k, !fresh || k > 0);
    wgmma_commit();
}

#if !SPAN
/*
 * Consumer warpgroup cw (0 .. CWG-1): rows 64 cw .. 64 cw + 63 of every tile
 * of this block. Per slice four wgmma (one group), then a wait that leaves
 * it running and frees the previous slice's stage.
 */
static __device__ __forceinline__ void consume(const problem &p, unsigned smem, unsigned full,
                                               unsigned empty, int cw, int warp, int lane)
{
    acc_t acc[ACC];
    ring at;
    unsigned prev = 0;
#pragma unroll
    for (int i = 0; i < ACC; i++)
        acc[i] = 0;
    FOR_EACH_PIECE(w, p.sk.plan, blockIdx.x, p.tiles, gridDim.x, p.slices)
    {
        const tile c = tile_at(w.tile, p.tiles_m, p.tiles_n);
        for (int s = w.k0; s < w.k1; s++) {
            const unsigned a = smem + at.st * STAGE_BYTES + cw * 64 * 128;
            const unsigned b = smem + at.st * STAGE_BYTES + A_BYTES;
            bar_wait(full + 8 * at.st, at.ph);
            issue_slice(acc, a, b, s == w.k0);
            wgmma_wait<1>();
            hold_all(acc);
            if (s > w.k0)
                bar_arrive(prev);
            prev = empty + 8 * at.st;
            at.next();
        }
        wgmma_wait<0>();
        hold_all(acc);
        bar_arrive(prev);
#if SK
        if (!sk_settle(p.sk, acc, w, blockIdx.x, CWG, cw, cw))
            continue; /* the tile's finisher adds this block's sums */
#endif
        store_sums(p, acc, c, cw, warp, lane);
    }
}

#else
/*
 * consume with FP8's promotion (SPAN > 0): each span's first slice starts
 * its sums from zero; its last waits for every group, frees both stages and
 * adds the sums into tot. Nothing of this warpgroup runs across the
 * addition: the other warpgroups' products keep the tensor cores busy.
 */
static __device__ __forceinline__ void consume_promoted(const problem &p, unsigned smem,
                                                        unsigned full, unsigned empty, int cw,
                                                        int warp, int lane)
{
    acc_t acc[ACC];
    float tot[ACC];
    ring at;
    unsigned prev = 0;
#pragma unroll
    for (int i = 0; i < ACC; i++)
        acc[i] = 0;
    FOR_EACH_PIECE(w, p.sk.plan, blockIdx.x, p.tiles, gridDim.x, p.slices)
    {
        const tile c = tile_at(w.tile, p.tiles_m, p.tiles_n);
#pragma unroll
        for (int i = 0; i < ACC; i++)
            tot[i] = 0;
        for (int s = w.k0; s < w.k1; s++) {
            const unsigned a = smem + at.st * STAGE_BYTES + cw * 64 * 128;
            const unsigned b = smem + at.st * STAGE_BYTES + A_BYTES;
            const int j = s - w.k0; /* spans counted from the piece's first slice */
            const bool fresh = j % SPAN == 0;
            bar_wait(full + 8 * at.st, at.ph);
            issue_slice(acc, a, b, fresh);
            if (j % SPAN == SPAN - 1 || s == w.k1 - 1) {
                wgmma_wait<0>();
                hold_all(acc);
                if (!fresh)
                    bar_arrive(prev);
                bar_arrive(empty + 8 * at.st);
#pragma unroll
                for (int i = 0; i < ACC; i++)
                    tot[i] += acc[i];
            } else {
                wgmma_wait<1>();
                hold_all(acc);
                if (!fresh)
                    bar_arrive(prev);
                prev = empty + 8 * at.st;
            }
            at.next();
        }
        wgmma_wait<0>(); /* the last promotion has waited already */
        hold_all(acc);
#if SK
        if (!sk_settle(p.sk, tot, w, blockIdx.x, CWG, cw, cw))
            continue; /* the tile's finisher adds this block's sums */
#endif
        store_sums(p, tot, c, cw, warp, lane);
    }
}
#endif

/* ---- the kernel ---------------------------------------------------------------------- */

/*
 * A (M x K) and Bt (N x K) reach the kernel only through their tensor maps
 * (tma = 1); kladder pads their rows first where K is not a multiple of 16
 * bytes (tma is then 1 too: the maps are of the padded copies). The
 * arguments A, Bt and tr mirror rung 17's so that one launch serves both.
 * Built with -DRESIDUES (int8 only, rung 22) it takes the modulus last.
 */
#if defined(RESIDUES)
#define MODULUS_ARG , int modulus
#else
#define MODULUS_ARG
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
extern "C" __global__ void __launch_bounds__(NT, 1)
    gemm(const void *__restrict__ A, const void *__restrict__ Bt, out_t *__restrict__ C, int M,
         int N, int K, int tma, const __grid_constant__ tensor_map ta,
         const __grid_constant__ tensor_map tb,
         const __grid_constant__ tensor_map tr C_MAP_ARG WORKSPACE_ARG MODULUS_ARG)
{
    (void)A, (void)Bt, (void)tma, (void)tr;
    extern __shared__ unsigned char dynamic[];
    __shared__ __align__(8) u64 bars[2 * STAGES]; /* full, empty: 8 bytes apart */
    const unsigned raw = smem_addr(dynamic), smem = (raw + 1023) & ~1023u;
    const unsigned full = smem_addr(bars), empty = full + 8 * STAGES;

    problem p;
    p.C = C, p.M = M, p.N = N, p.K = K;
#if defined(RESIDUES)
    p.modulus = modulus;
#else
    p.modulus = 0;
#endif
    p.tiles_m = (M + BM - 1) / BM, p.tiles_n = (N + BN - 1) / BN;
    p.tiles = p.tiles_m * p.tiles_n;
    p.slices = (K + BKE - 1) / BKE;
#if EPI
    p.tc = &tc, p.staging = smem + STAGES * STAGE_BYTES;
#endif
#if SK
    /* a slot per block and consumer warpgroup */
    p.sk = sk_begin<acc_t>(p.tiles, p.slices, gridDim.x, gridDim.x * CWG, ws);
    if ((int)blockIdx.x >= p.sk.plan.blocks)
        return; /* the plan runs fewer blocks than were launched: the whole block leaves */
#endif

    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; s++) {
            bar_init(full + 8 * s, 1);
            bar_init(empty + 8 * s, 128 * CWG);
        }
        bar_init_fence();
    }
    __syncthreads();

    const int wg = threadIdx.x / 128, warp = threadIdx.x / 32 % 4, lane = threadIdx.x % 32;
    if (wg == 0) {
        regs_dec<PRODUCER_REGS>();
        if (warp == 0 && lane == 0)
            produce(p, &ta, &tb, smem, full, empty);
    } else {
        regs_inc<CONSUMER_REGS>();
#if SPAN
        consume_promoted(p, smem, full, empty, wg - 1, warp, lane);
#else
        consume(p, smem, full, empty, wg - 1, warp, lane);
#endif
#if EPI
        if (threadIdx.x % 128 == 0)
            bulk_wait_all(); /* the last stores done before the block's shared memory goes */
#endif
    }
}

/* ---- padding ------------------------------------------------------------------------- */

/*
 * Rows of A (M x K) into Ap with rows of lda elements, where lda != K, and
 * rows of Bt (N x K) into Bp with rows of ldb, where ldb != K; zeros after
 * each row's end. One block per row: rows 0 .. M-1 are A's, M .. M+N-1 Bt's;
 * 16 bytes a thread at a time, cut from two aligned 16-byte loads (pad_row:
 * the source rows are only element-aligned where they need padding; lda and
 * ldb are whole 128-byte lines there). kladder launches it before gemm where
 * K is not a multiple of 16 bytes of elements. The arguments mirror rung
 * 17's pad (R, resid unused).
 */
extern "C" __global__ void pad(const unsigned char *__restrict__ A,
                               const unsigned char *__restrict__ Bt, unsigned char *Ap,
                               unsigned char *Bp, void *R, int M, int N, int K, int lda, int ldb,
                               int resid)
{
    (void)R, (void)resid;
    const bool in_a = (int)blockIdx.x < M;
    const int ld = in_a ? lda : ldb;
    if (ld == K)
        return;
    const size_t row = in_a ? blockIdx.x : blockIdx.x - M;
    const size_t total = (size_t)(in_a ? M : N) * K * ESIZE;
    uint4 *dst = reinterpret_cast<uint4 *>((in_a ? Ap : Bp) + row * ld * ESIZE);
    pad_row(in_a ? A : Bt, total, row, K * ESIZE, ld * ESIZE, [&](int i, uint4 v) { dst[i] = v; });
}
