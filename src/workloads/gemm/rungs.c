/*
 * The GEMM rung table: the host loop orders and the device rungs with their
 * parameters, presets and the relations between values; which rungs a
 * device can run, the launch geometry and local memory of each, and the
 * limits a rung's values must fit before it is built.
 */
#include "workloads/gemm/parts.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/ladder.h"
#include "core/verify.h"

/* ---- host rungs: the six loop orders of seed 004 ------------------------ */

#define BOUND_i M
#define BOUND_j N
#define BOUND_k K
#define HOST_LOOP(T, o1, o2, o3)                                                                   \
    static void host_##o1##o2##o3##_##T(int M, int N, int K, const T *A, const T *B, T *C)         \
    {                                                                                              \
        memset(C, 0, sizeof(T) * (size_t)M * (size_t)N);                                           \
        for (long o1 = 0; o1 < BOUND_##o1; o1++)                                                   \
            for (long o2 = 0; o2 < BOUND_##o2; o2++)                                               \
                for (long o3 = 0; o3 < BOUND_##o3; o3++)                                           \
                    C[i * N + j] += A[i * K + k] * B[k * N + j];                                   \
    }
#define HOST_RUNG(o1, o2, o3)                                                                      \
    HOST_LOOP(float, o1, o2, o3)                                                                   \
    HOST_LOOP(double, o1, o2, o3)                                                                  \
    HOST_LOOP(int32_t, o1, o2, o3)                                                                 \
    static void host_##o1##o2##o3(enum kl_type t, int M, int N, int K, const void *A,              \
                                  const void *B, void *C)                                          \
    {                                                                                              \
        switch (t) {                                                                               \
        case KL_FLOAT: host_##o1##o2##o3##_float(M, N, K, A, B, C); break;                         \
        case KL_DOUBLE: host_##o1##o2##o3##_double(M, N, K, A, B, C); break;                       \
        case KL_INT: host_##o1##o2##o3##_int32_t(M, N, K, A, B, C); break;                         \
        default: break; /* narrow types: kl_gemm_rung_available skips host rungs */                \
        }                                                                                          \
    }
HOST_RUNG(i, j, k)
HOST_RUNG(i, k, j)
HOST_RUNG(j, i, k)
HOST_RUNG(j, k, i)
HOST_RUNG(k, i, j)
HOST_RUNG(k, j, i)

/* ---- the rung table ------------------------------------------------------ */

static enum kl_status warptile_relations(const struct kl_gemm_rung *r, const int *v, enum kl_type t,
                                         struct kl_err *e);
static enum kl_status mma_relations(const struct kl_gemm_rung *r, const int *v, enum kl_type t,
                                    struct kl_err *e);
static enum kl_status wgmma_relations(const struct kl_gemm_rung *r, const int *v, enum kl_type t,
                                      struct kl_err *e);
static enum kl_status wgmma_k_relations(const struct kl_gemm_rung *r, const int *v, enum kl_type t,
                                        struct kl_err *e);
static enum kl_status mma_t_relations(const struct kl_gemm_rung *r, const int *v, enum kl_type t,
                                      struct kl_err *e);
static enum kl_status dmma_relations(const struct kl_gemm_rung *r, const int *v, enum kl_type t,
                                     struct kl_err *e);

/* clang-format off */
#define P_WG2D {{"WG0", 16, 1, 1024, 1, 0, "work-group rows"}, \
                {"WG1", 16, 1, 1024, 1, 0, "work-group columns"}}
#define P_WG    {"WG", 64, 1, 1024, 1, 0, "work-group size (rows per group)"}
#define P_KC(m) {"KC", 256, m, 8192, m, 0, "K chunk held in private/local memory"}
#define P_TS    {"TS", 16, 1, 128, 1, 0, "tile edge; the work-group is TS×TS"}
/* Register-blocked rungs: a BM × BN block of C per work-group, TM × TN per work-item;
 * every size a multiple of m. */
#define P_BLOCK(m) \
    {"BM", 128, m, 512, m, 0, "rows of C per work-group (a multiple of TM)"}, \
    {"BN", 128, m, 512, m, 0, "columns of C per work-group (a multiple of TN)"}, \
    {"BK", 8, m, 64, m, 0, "depth of the K-slice held in local memory"}, \
    {"TM", 16, m, 16, m, 0, "rows of C per work-item"}, \
    {"TN", 8, m, 16, m, 0, "columns of C per work-item"}
/* Warp-tiled rungs: warps of WM × WN, lanes of TM × TN, a STAGES-deep pipeline. */
#define P_WARPTILE \
    {"BM", 128, 32, 512, 32, 0, "rows of C per block (a multiple of WM and of threads/8)"}, \
    {"BN", 256, 32, 512, 32, 0, "columns of C per block (a multiple of WN)"}, \
    {"BK", 16, 8, 64, 8, 0, "depth of a K-slice"}, \
    {"WM", 64, 4, 256, 4, 0, "rows of C per warp (a multiple of TM)"}, \
    {"WN", 64, 4, 256, 4, 0, "columns of C per warp (a multiple of TN)"}, \
    {"TM", 8, 4, 16, 4, 0, "rows of C per thread"}, \
    {"TN", 16, 4, 16, 4, 0, "columns of C per thread"}, \
    {"STAGES", 4, 2, 8, 1, 0, "K-slices in the shared-memory pipeline"}
#define M_WARPTILE {{"BM", "WM"}, {"BN", "WN"}, {"WM", "TM"}, {"WN", "TN"}}
/* Tensor-core rungs: warps of WM × WN made of 16 × 8 mma tiles, K-slices of BK; the
 * defaults (the fastest of a sweep on an H100 at 4096³, docs/RESULTS.md) per rung. */
#define P_MMA(bm, bn, bk, wm, wn) \
    {"BM", bm, 16, 256, 16, 0, "rows of C per block (a multiple of WM)"}, \
    {"BN", bn, 8, 256, 8, 0, "columns of C per block (a multiple of WN)"}, \
    {"BK", bk, 8, 64, 8, 0, "depth of a K-slice"}, \
    {"WM", wm, 16, 128, 16, 0, "rows of C per warp (16 per mma tile)"}, \
    {"WN", wn, 8, 128, 8, 0, "columns of C per warp (8 per mma tile)"}
#define P_STAGES(d) {"STAGES", d, 2, 8, 1, 0, "K-slices in the shared-memory pipeline"}

#define M_MMA {{"BM", "WM"}, {"BN", "WN"}}
/* Tensor-core rungs in the inputs' own type (19, 21): K-slices of BK elements, a power of
 * two (19: of whole 32-byte mma steps, 32 elements or more for 8-bit types). */
#define P_MMA_T(bm, bn, bk, wm, wn) \
    {"BM", bm, 16, 256, 16, 0, "rows of C per block (a multiple of WM)"}, \
    {"BN", bn, 8, 256, 8, 0, "columns of C per block (a multiple of WN)"}, \
    {"BK", bk, 8, 128, 8, 1, "elements of K per slice (19: a multiple of 32 bytes)"}, \
    {"WM", wm, 16, 128, 16, 0, "rows of C per warp (16 per mma tile)"}, \
    {"WN", wn, 8, 128, 8, 0, "columns of C per warp (8 per mma tile)"}
/* Stream-K in the Hopper rungs and rung 14 (kernels/cuda/gemm/stream_k.cuh). */
#define P_SK {"SK", 0, 0, 1, 1, 0, "1: stream-K, a partial last wave's tiles shared by every " \
              "SM in slices of K, their partial sums added in a fixed order"}
/* Hopper's wgmma rungs: BM rows (wgmma's N: 128 or 256) by BN columns (64 per consumer
 * warpgroup) per tile, K-slices of 32, a STAGES-deep ring, tiles in groups of GROUP rows,
 * blocks in clusters of CLUSTER that share A's slices (TMA multicast). */
#define P_WGMMA(bm, bm_max, bn_max, stages, cluster) \
    {"BM", bm, 128, bm_max, 128, 0, "rows of C per tile (wgmma's N: 128 or 256)"}, \
    {"BN", 128, 64, bn_max, 64, 0, "columns of C per tile, 64 per consumer warpgroup"}, \
    {"STAGES", stages, 2, 8, 1, 0, "K-slices of 32 in the shared-memory ring"}, \
    {"GROUP", 8, 1, 32, 1, 0, "tile-rows per group of the persistent raster"}, \
    {"CLUSTER", cluster, 1, 2, 1, 0, "blocks per cluster, side by side along N, sharing " \
     "A's slices by TMA multicast"}, \
    P_SK, \
    {"PAD", 1, 0, 1, 1, 0, "1: rows of A or B that TMA cannot read (not 16-byte aligned) " \
     "copied first into padded rows, timed with the product; 0: read as they are by cp.async"}, \
    {"EPI", 2, 0, 2, 1, 0, "2: C through shared memory, boxes of 32 x 32 sums stored by TMA " \
     "while the next tile's products run where N is a multiple of 4 (rows of C 16-byte " \
     "aligned), elsewhere rows of 32 sums stored by each warp; 1: the boxes, and elsewhere " \
     "each thread stores its sums; 0: each thread stores its sums"}
/* Hopper's wgmma in a narrow type: BM rows (64 per consumer warpgroup) by BN columns (wgmma's
 * N) per tile, K-slices of 128 bytes, a STAGES-deep ring, tiles in groups of GROUP rows. */
#define P_WGMMA_K \
    {"BM", 128, 64, 256, 64, 0, "rows of C per tile, 64 per consumer warpgroup"}, \
    {"BN", 256, 64, 256, 64, 0, "columns of C per tile (wgmma's N)"}, \
    {"STAGES", 4, 2, 8, 1, 0, "K-slices of 128 bytes in the shared-memory ring"}, \
    {"GROUP", 8, 1, 32, 1, 0, "tile-rows per group of the persistent raster"}
/* Split-K in the FMA rungs 13 and 14 (kernels/opencl/gemm/split_k.cl). */
#define P_SPLITK {"SPLITK", 1, 1, 16, 1, 0, "splits of K, each multiplied by its own blocks " \
                  "into a workspace, then summed into C in order (1: none)"}
#define P_PAD {"PAD", 1, 0, 1, 1, 0, "T4s of padding per row of A's local tile (0: none, " \
               "stores of A's tile then conflict in local memory banks)"}
#define M_BLOCK {{"BM", "TM"}, {"BN", "TN"}}
#define HOST(order, loop, what) \
    {.name = "host_" order, .summary = "CPU, one thread, loop order " what, .host = loop, \
     .geometry = KL_GEO_HOST}
/* clang-format on */

static const struct kl_gemm_rung rungs[] = {
    HOST("ijk", host_ijk, "i-j-k (seed's r-c-cr): k innermost walks B by column, a stride of N"),
    HOST("ikj", host_ikj, "i-k-j (seed's r-cr-c, its fastest): unit-stride rows of B and C"),
    HOST("jik", host_jik, "j-i-k (seed's c-r-cr, its OpenCL starting point)"),
    HOST("jki", host_jki, "j-k-i: the inner loop strides through A and C by rows"),
    HOST("kij", host_kij, "k-i-j: unit-stride inner loop, C re-read K times"),
    HOST("kji", host_kji, "k-j-i: strided inner loop over A and C"),
    {.name = "01_naive",
     .summary = "one work-item per element of C, accumulating straight into global memory",
     .types = KL_TYPES_WIDE | KL_TYPES_NARROW,
     .file = "opencl/gemm/01_naive.cl",
     .geometry = KL_GEO_2D,
     .params = P_WG2D},
    {.name = "02_coalesced",
     .summary = "B stored column-major, so each work-item reads A's row and B's column "
                "sequentially",
     .types = KL_TYPES_WIDE | KL_TYPES_NARROW,
     .file = "opencl/gemm/02_coalesced.cl",
     .b_col_major = 1,
     .geometry = KL_GEO_2D,
     .params = P_WG2D},
    {.name = "03_private_acc",
     .summary = "the sum lives in a private register; C is written once instead of K times",
     .types = KL_TYPES_WIDE | KL_TYPES_NARROW,
     .file = "opencl/gemm/03_private_acc.cl",
     .b_col_major = 1,
     .geometry = KL_GEO_2D,
     .params = P_WG2D},
    {.name = "04_row_per_item",
     .summary = "one work-item computes a whole row of C: fewer, longer work-items",
     .types = KL_TYPES_WIDE | KL_TYPES_NARROW,
     .file = "opencl/gemm/04_row_per_item.cl",
     .b_col_major = 1,
     .geometry = KL_GEO_ROWS,
     .params = {P_WG}},
    {.name = "05_row_private",
     .summary = "A's row (in chunks of KC) copied to private memory and reused for every "
                "column",
     .types = KL_TYPES_WIDE | KL_TYPES_NARROW,
     .file = "opencl/gemm/05_row_private.cl",
     .b_col_major = 1,
     .geometry = KL_GEO_ROWS,
     .private_kc = 1,
     .params = {P_WG, P_KC(1)}},
    {.name = "06_col_local",
     .summary = "B's column (chunk) loaded once per work-group into local memory, between "
                "barriers",
     .types = KL_TYPES_WIDE | KL_TYPES_NARROW,
     .file = "opencl/gemm/06_col_local.cl",
     .b_col_major = 1,
     .geometry = KL_GEO_ROWS,
     .local = KL_LOCAL_KC,
     .private_kc = 1,
     .params = {P_WG, P_KC(1)}},
    {.name = "07_vec4_dot",
     .summary = "the inner loop of 05 as float4 dot products built from scalars",
     .types = KL_TYPES_WIDE | KL_TYPES_NARROW,
     .file = "opencl/gemm/07_vec4_dot.cl",
     .b_col_major = 1,
     .geometry = KL_GEO_ROWS,
     .private_kc = 1,
     .params = {P_WG, P_KC(1)}},
    {.name = "08_vec4_row",
     .summary = "the private row buffer itself is float4 and B is read with vload4: vector "
                "loads, no per-iteration packing",
     .types = KL_TYPES_WIDE | KL_TYPES_NARROW,
     .file = "opencl/gemm/08_vec4_row.cl",
     .b_col_major = 1,
     .geometry = KL_GEO_ROWS,
     .private_kc = 1,
     .params = {P_WG, P_KC(4)}},
    {.name = "09_vec8",
     .summary = "as 08 with float8; pays only where the preferred vector width is 8",
     .types = KL_TYPES_WIDE | KL_TYPES_NARROW,
     .file = "opencl/gemm/09_vec8.cl",
     .b_col_major = 1,
     .geometry = KL_GEO_ROWS,
     .private_kc = 1,
     .params = {P_WG, P_KC(8)}},
    {.name = "10_tiled",
     .summary = "seed 002: TS×TS tiles of A and B in local memory, each element loaded once "
                "per tile and reused TS times",
     .types = KL_TYPES_WIDE | KL_TYPES_NARROW,
     .file = "opencl/gemm/10_tiled.cl",
     .geometry = KL_GEO_TILE,
     .local = KL_LOCAL_2TS2,
     .params = {P_TS}},
    {.name = "11_regblock",
     .summary = "2-D register blocking: a work-item computes a TM×TN block of C from BM×BK and "
                "BK×BN local tiles, (TM+TN)/(TM·TN) local loads per multiply-add instead of 2",
     .types = KL_TYPES_WIDE | KL_TYPES_NARROW,
     .file = "opencl/gemm/11_regblock.cl",
     .geometry = KL_GEO_BLOCK,
     .local = KL_LOCAL_BLOCK,
     .params = {P_BLOCK(1)},
     .multiples = M_BLOCK},
    {.name = "12_vec_local",
     .summary = "T4 global loads and stores; A's tile transposed and padded so every local read "
                "is a conflict-free T4; bounds checks once per tile, not per element",
     .types = KL_TYPES_WIDE | KL_TYPES_NARROW,
     .file = "opencl/gemm/12_vec_local.cl",
     .geometry = KL_GEO_BLOCK,
     .local = KL_LOCAL_BLOCK4,
     .params = {P_BLOCK(4), P_PAD},
     .multiples = M_BLOCK},
    {.name = "13_double_buffer",
     .summary = "double-buffered tiles: the next K-slice is loaded into registers while the "
                "current one is multiplied; one barrier per slice",
     .types = KL_TYPES_WIDE | KL_TYPES_NARROW,
     .file = "opencl/gemm/13_double_buffer.cl",
     .geometry = KL_GEO_BLOCK,
     .local = KL_LOCAL_BLOCK4X2,
     .params = {P_BLOCK(4), P_PAD, P_SPLITK},
     .multiples = M_BLOCK,
     /* Hopper (H100 through NVIDIA's OpenCL, floats, docs/RESULTS.md): at 1024³ blocks of 64 ×
        64 by 8 × 8 with BK = 16 (31.4 TFLOP/s against 16.8: 128 × 128 blocks make 64
        work-groups for 132 SMs); from 2048³ up BK = 16 (45.7 against 42.5 at 4096³ and
        8192³, 0.89× cuBLAS instead of 0.83×). Doubles keep BK = 8 (16 needs 66 KiB). */
     .presets = {{90, KL_FLOAT, 31, "BM=64,BN=64,TM=8,BK=16"}, {90, KL_FLOAT, 99, "BK=16"}}},
    {.name = "14_warptile",
     .summary = "CUDA: warp tiles over a STAGES-deep cp.async pipeline in shared memory "
                "beyond OpenCL's 48 KiB (up to 227 KiB); register use set by launch bounds",
     .file = "cuda/gemm/14_warptile.cu",
     .geometry = KL_GEO_BLOCK,
     .local = KL_LOCAL_STAGES,
     .params = {P_WARPTILE, P_SPLITK, P_SK},
     .multiples = M_WARPTILE,
     .relations = warptile_relations,
     .b_pitch = 1,
     /* Hopper (H100, docs/RESULTS.md): up to ~1600³ blocks of 128 × 64 fill the 132 SMs
        (1024³: 2.8× the defaults' 32 blocks); above, the defaults with 8 stages. */
     .presets = {{90, KL_FLOAT, 32, "BM=128,BN=64,BK=64,WM=128,WN=8,TM=8,TN=4,STAGES=4"},
                 {90, KL_FLOAT, 99, "STAGES=8"}}},
    {.name = "15_mma_tf32",
     .summary = "CUDA: the multiply-adds on the tensor cores (mma.sync m16n8k8, inputs rounded to "
                "TF32) over rung 14's cp.async pipeline; A's fragments by ldmatrix",
     .precision = KL_PREC_TF32,
     .file = "cuda/gemm/15_mma_tf32.cu",
     .geometry = KL_GEO_WARPS,
     .local = KL_LOCAL_MMA,
     .params = {P_MMA(128, 128, 16, 64, 64), P_STAGES(4)},
     .multiples = M_MMA,
     .relations = mma_relations},
    {.name = "16_mma_3xtf32",
     .summary = "CUDA: rung 15 with each input split into two TF32 parts and three products per "
                "step (3xTF32): float accuracy at a third of the TF32 rate",
     .precision = KL_PREC_3XTF32,
     .file = "cuda/gemm/16_mma_3xtf32.cu",
     .geometry = KL_GEO_WARPS,
     .local = KL_LOCAL_MMA,
     .params = {P_MMA(128, 128, 32, 64, 32), P_STAGES(3)},
     .multiples = M_MMA,
     .relations = mma_relations},
    {.name = "17_wgmma_tf32",
     .summary = "CUDA, Hopper: wgmma fed by TMA, which rounds to TF32 as it copies into "
                "128-byte-swizzled shared memory, a producer warpgroup and consumer warpgroups "
                "(setmaxnreg), persistent tiles, optional clusters sharing A by multicast",
     .precision = KL_PREC_TF32,
     .file = "cuda/gemm/17_wgmma_tf32.cu",
     .geometry = KL_GEO_PERSISTENT,
     .local = KL_LOCAL_WGMMA,
     .hopper = 1,
     .params = {P_WGMMA(256, 256, 256, 4, 1),
                {"INFLIGHT", 1, 0, 1, 1, 0,
                 "1: a consumer keeps one wgmma group running while it reads the next "
                 "slice's fragments (two sets of fragment registers); 0: waits for each"}},
     .relations = wgmma_relations,
     /* Hopper (H100, docs/RESULTS.md): M <= 128 wastes less of 128-row tiles, deeper; up to
        ~1024³, 128 × 64 tiles fill the 132 SMs (512³: 22.4 TFLOP/s against 14.5); above,
        clusters of two halve A's reads from L2 (8192³: +8 %). */
     .presets = {{90, KL_FLOAT, 99, "BM=128,BN=128,STAGES=6", 128},
                 {90, KL_FLOAT, 30, "BM=128,BN=64"},
                 {90, KL_FLOAT, 99, "CLUSTER=2"}}},
    {.name = "18_wgmma_3xtf32",
     .summary = "CUDA, Hopper: rung 17 with the 3xTF32 split (A split by TMA's rounding "
                "copies of A and of its residual), float-accurate",
     .precision = KL_PREC_3XTF32,
     .file = "cuda/gemm/18_wgmma_3xtf32.cu",
     .geometry = KL_GEO_PERSISTENT,
     .local = KL_LOCAL_WGMMA,
     .hopper = 1,
     .params = {P_WGMMA(128, 128, 128, 4, 1)},
     .relations = wgmma_relations,
     /* Hopper (H100, docs/RESULTS.md): 128 × 64 tiles where M <= 128 or up to ~1024³; above,
        three stages, not four (12288³: 124.7 TFLOP/s against 90.7; 4096³ alike). */
     .presets = {{90, KL_FLOAT, 99, "BN=64", 128},
                 {90, KL_FLOAT, 30, "BN=64"},
                 {90, KL_FLOAT, 99, "STAGES=3"}}},
    {.name = "19_mma",
     .summary = "CUDA: mma.sync in the inputs' own type (half, bf16: m16n8k16; fp8 e4m3, e5m2, "
                "int8: m16n8k32), summed in fp32 (int32), over rung 15's pipeline; B transposed "
                "so both operands' fragments come by ldmatrix",
     .types = KL_TYPES_NARROW,
     .tensor = 1,
     .file = "cuda/gemm/19_mma.cu",
     .b_col_major = 1,
     .geometry = KL_GEO_WARPS,
     .local = KL_LOCAL_MMA_T,
     .params = {P_MMA_T(128, 128, 32, 64, 64), P_STAGES(4)},
     .multiples = M_MMA,
     .relations = mma_t_relations},
    {.name = "20_wgmma",
     .summary = "CUDA, Hopper: wgmma in the input's own type (FP16, BF16, FP8, INT8), both "
                "operands read by the tensor cores from shared memory (A and Bᵀ, K-major, "
                "copied by TMA), persistent tiles; FP8's sums added into fp32 every PROMOTE "
                "elements of K",
     .types = KL_TYPES_NARROW,
     .tensor = 1,
     .file = "cuda/gemm/20_wgmma.cu",
     .b_col_major = 1,
     .geometry = KL_GEO_PERSISTENT,
     .local = KL_LOCAL_WGMMA_K,
     .hopper = 1,
     .params = {P_WGMMA_K,
                {"PROMOTE", 128, 0, 4096, 128, 0,
                 "FP8 only: elements of K summed in the tensor cores (to about 13 bits) between "
                 "additions into fp32 registers (0: none, the fast mode)"},
                P_SK,
                {"HINT", 0, 0, 3, 1, 0,
                 "L2 policies: 1 C's stores by TMA evict-first, 2 A's and B's copies "
                 "evict-last, 3 both (the L2 rule's, where K <= 512, in fp8 and int8 768); 0 "
                 "L2's own"},
                {"EPI", 2, 0, 2, 1, 0,
                 "2: C through shared memory, a box of 64 x 32 sums at a time, stored by TMA "
                 "while the next tile's products run where N is a multiple of 4 (rows of C "
                 "16-byte aligned), elsewhere rows of 32 sums stored by each warp; 1: the "
                 "boxes, and elsewhere each thread stores its sums; 0: each thread stores its "
                 "sums"}},
     .relations = wgmma_k_relations,
     /* H200 (docs/RESULTS.md): the promoted FP8 sums' second set of registers leaves room
        for 192 columns. */
     .presets = {{90, KL_FP8, 99, "BN=192"}, {90, KL_FP8E5M2, 99, "BN=192"}}},
    {.name = "21_dmma",
     .summary = "CUDA: double on the FP64 tensor cores (DMMA: mma.sync m16n8kMK on 9.0, pairs "
                "of m8n8k4 before) over rung 15's pipeline",
     .types = KL_TYPE_BIT(KL_DOUBLE),
     .tensor = 1,
     .file = "cuda/gemm/21_dmma.cu",
     .geometry = KL_GEO_WARPS,
     .local = KL_LOCAL_DMMA,
     .params = {P_MMA_T(64, 128, 16, 32, 32),
                P_STAGES(3),
                {"MK", 8, 4, 16, 4, 1,
                 "K of one mma instruction on compute capability 9.0 (4, 8 or 16; a divisor of "
                 "BK)"},
                {"PREFETCH", 1, 0, 2, 1, 0,
                 "1: the next step's fragments read while this step's products run (two sets of "
                 "registers); 0: one set, read just before its products, which leaves 128 x 128 "
                 "blocks of 32 x 64 warp tiles room in the registers; 2: A's in a ring of WM/16 + "
                 "1 sets, each m16 tile's read for the next step as its products issue, B's in "
                 "two (64 x 32 warp tiles in 255 registers)"}},
     .multiples = M_MMA,
     .relations = dmma_relations,
     /* On an H100 (docs/RESULTS.md): 128 x 128 blocks of 64 x 32 warp tiles in a ring
        (PREFETCH=2) from 2048^3 (class 33) up, 1.03-1.22x the defaults; at 1024^3 (class 30:
        64 such blocks on 132 SMs) 0.56x, so the defaults up to class 31 */
     .presets = {{90, KL_DOUBLE, 31, "PREFETCH=1"},
                 {90, KL_DOUBLE, 99, "BM=128,BN=128,WM=64,WN=32,PREFETCH=2"}}},
    {.name = "22_ozaki_int8",
     .summary = "CUDA, Hopper: float inputs at float accuracy from INT8 tensor-core products "
                "(Ozaki scheme II): residues modulo MODULI moduli, an INT8 product each by "
                "rung 20, recombined by the Chinese remainder theorem",
     .types = KL_TYPE_BIT(KL_FLOAT),
     .tensor = 1,
     .precision = KL_PREC_OZAKI8,
     .file = "cuda/gemm/22_ozaki_int8.cu",
     .b_col_major = 1,
     .geometry = KL_GEO_PERSISTENT,
     .local = KL_LOCAL_WGMMA_K,
     .hopper = 1,
     .ozaki = 1,
     .params = {P_WGMMA_K,
                {"MODULI", 7, 2, KL_OZAKI_MAX, 1, 0,
                 "moduli, an INT8 product each: more keep more bits of A and B (7: below cuBLAS "
                 "SGEMM's error on an H100, docs/RESULTS.md)"},
                P_SK},
     .relations = wgmma_k_relations},
    {.name = "15cl_mma_tf32",
     .summary = "rung 15 in OpenCL C: mma.sync TF32 through inline PTX (NVIDIA only), fed by "
                "rung 13's double buffer",
     .precision = KL_PREC_TF32,
     .file = "opencl/gemm/15cl_mma_tf32.cl",
     .geometry = KL_GEO_WARPS,
     .local = KL_LOCAL_MMA,
     .params = {P_MMA(128, 128, 8, 64, 64)},
     .multiples = M_MMA,
     .relations = mma_relations},
    {.name = "16cl_mma_3xtf32",
     .summary = "rung 16 in OpenCL C: 15cl with the 3xTF32 split, float-accurate",
     .precision = KL_PREC_3XTF32,
     .file = "opencl/gemm/16cl_mma_3xtf32.cl",
     .geometry = KL_GEO_WARPS,
     .local = KL_LOCAL_MMA,
     .params = {P_MMA(128, 128, 16, 64, 32)},
     .multiples = M_MMA,
     .relations = mma_relations},
};

KL_RUNG_TABLE_FILES(gemm, struct kl_gemm_rung, rungs, NULL);

const struct kl_gemm_rung *kl_gemm_rung_find(const char *name)
{
    const struct kl_rung_set set = {kl_gemm_rungs(), NULL, 0};
    int i = kl_rung_lookup(&set, name);
    return i >= 0 ? kl_gemm_rung_at(i) : NULL;
}

enum kl_status kl_gemm_rung_not_found(const char *name, const char *what, struct kl_err *e)
{
    const struct kl_rung_set set = {kl_gemm_rungs(), NULL, 0};
    return kl_rung_not_found(&set, name, what, e);
}

enum kl_precision kl_gemm_rung_precision(const struct kl_gemm_rung *r, enum kl_type t)
{
    return r->precision != KL_PREC_NONE ? r->precision : kl_precision_of_type(t);
}

static int on_tensor_cores(const struct kl_gemm_rung *r)
{
    return r->precision == KL_PREC_TF32 || r->precision == KL_PREC_3XTF32;
}

/* The input types rung r takes, for messages: "float, double, int". */
static void type_list(unsigned mask, char *out, size_t n)
{
    size_t used = 0;
    out[0] = 0;
    for (int t = 0; t < KL_TYPE_COUNT && used < n; t++)
        if (mask & KL_TYPE_BIT(t))
            used += (size_t)snprintf(out + used, n - used, "%s%s", used ? ", " : "",
                                     kl_type_name((enum kl_type)t));
}

/* 1 when rung r takes inputs of type t; else 0 and why. */
static int takes_type(const struct kl_gemm_rung *r, enum kl_type t, char *why, size_t n)
{
    /* no mask: TF32's rungs take float, the others float, double and int */
    unsigned mask = r->types             ? r->types
                    : on_tensor_cores(r) ? KL_TYPE_BIT(KL_FLOAT)
                                         : KL_TYPES_WIDE;
    char list[96];
    if (mask & KL_TYPE_BIT(t))
        return 1;
    type_list(mask, list, sizeof list);
    if (r->geometry == KL_GEO_HOST)
        snprintf(why, n,
                 "the host loops multiply in C's own type (%s); %s runs on the device rungs", list,
                 kl_type_name(t));
    else if (on_tensor_cores(r))
        snprintf(why, n, "the TF32 tensor cores multiply float inputs (--type float)");
    else
        snprintf(why, n, "rung %s takes %s inputs, not %s", r->name, list, kl_type_name(t));
    return 0;
}

/*
 * 1 when rung r's tensor cores multiply type t here: mma.sync from compute
 * capability 8.0 (FP8 from 8.9), wgmma on 9.0 (r->hopper, checked apart).
 */
static int tensor_type(const struct kl_context *kl, const struct kl_gemm_rung *r, enum kl_type t,
                       char *why, size_t n)
{
    const struct kl_device_info *d = &kl->info;
    if (!kl_tensor_cores(d, kl_precision_name(kl_gemm_rung_precision(r, t)), why, n))
        return 0;
    if (kl_type_fp8(t) && d->cc_major * 10 + d->cc_minor < 89) {
        snprintf(why, n, "FP8 tensor cores need compute capability 8.9 or more (this is %d.%d)",
                 d->cc_major, d->cc_minor);
        return 0;
    }
    return 1;
}

int kl_gemm_rung_available(const struct kl_context *kl, const struct kl_gemm_rung *r,
                           enum kl_type t, char *why, size_t n)
{
    if (kl_kernel_elsewhere(kl, r->file)) {
        snprintf(why, n, "CUDA C++: runs with --backend cuda");
        return 0;
    }
    if (!takes_type(r, t, why, n))
        return 0;
    if (r->hopper && !(kl->info.cc_major == 9 && kl->info.cc_minor == 0)) {
        snprintf(why, n, "wgmma and TMA are Hopper's: compute capability 9.0 only (this is %d.%d)",
                 kl->info.cc_major, kl->info.cc_minor);
        return 0;
    }
    if (r->tensor)
        return tensor_type(kl, r, t, why, n);
    return !on_tensor_cores(r) || kl_tensor_tf32(&kl->info, why, n);
}

double kl_gemm_tolerance(enum kl_precision p, enum kl_type t, int K, int span)
{
    if (p == KL_PREC_TF32)
        return kl_tf32_tolerance(K);
    if (kl_type_fp8(t))
        return kl_fp8_tolerance(K, span);
    return kl_type_narrow(t) ? kl_narrow_tolerance(t, K) : kl_dot_tolerance(t, K);
}

int kl_gemm_sum_span(const struct kl_gemm_rung *r, const int *values, enum kl_type t, int K)
{
    int at = kl_param_index(r->params, "PROMOTE");
    if (!kl_type_fp8(t))
        return 0;
    if (!r->tensor)
        return 1;
    if (!r->hopper) /* mma.sync: an instruction's 32 products, then fp32 C (H200: fp32 errors) */
        return 32;
    return at >= 0 && values[at] > 0 ? values[at] : K;
}

const char *kl_gemm_sums_text(enum kl_type t, int K, int span, char *buf, size_t n)
{
    if (!kl_type_fp8(t))
        snprintf(buf, n, "%s", "");
    else if (span == 1)
        snprintf(buf, n, "FP8 products summed in fp32");
    else if (span > 0 && span < K)
        snprintf(buf, n, "FP8 sums promoted to fp32 every %d of K", span);
    else if (span > K) /* promoted, at an interval that K does not reach */
        snprintf(buf, n, "FP8 sums promoted to fp32 every %d of K (K is %d)", span, K);
    else /* the fast mode (or a promotion interval of exactly K) */
        snprintf(buf, n, "FP8 sums kept in the tensor cores over all of K");
    return buf;
}

/* ---- each rung's relations, launch geometry and limits ------------------- */

#define PARAM(name) ((size_t)kl_param_value(r->params, v, name))

/* What kernels/cuda/gemm/14_warptile.cu asserts, said before it is built. */
static enum kl_status warptile_relations(const struct kl_gemm_rung *r, const int *v, enum kl_type t,
                                         struct kl_err *e)
{
    size_t lanes = (PARAM("WM") / PARAM("TM")) * (PARAM("WN") / PARAM("TN"));
    size_t threads = (PARAM("BM") / PARAM("WM")) * (PARAM("BN") / PARAM("WN")) * 32;
    size_t per16 = 16 / kl_type_size(t); /* elements per 16-byte copy */
    if (lanes != 32)
        return kl_fail(e, KL_ERR_ARG,
                       "rung %s: a warp's lanes are (WM/TM)·(WN/TN) = %zu·%zu = %zu, not 32",
                       r->name, PARAM("WM") / PARAM("TM"), PARAM("WN") / PARAM("TN"), lanes);
    if (PARAM("BM") % (threads / 8) != 0)
        return kl_fail(e, KL_ERR_ARG,
                       "rung %s: BM=%zu must be a multiple of threads/8 = %zu (A's copies)",
                       r->name, PARAM("BM"), threads / 8);
    if (threads % (PARAM("BN") / per16) != 0 ||
        PARAM("BK") % (threads / (PARAM("BN") / per16)) != 0)
        return kl_fail(e, KL_ERR_ARG,
                       "rung %s: B's slice (BK=%zu rows of BN/%zu = %zu 16-byte pieces) must "
                       "divide evenly among %zu threads",
                       r->name, PARAM("BK"), per16, PARAM("BN") / per16, threads);
    if (PARAM("SK") && PARAM("SPLITK") > 1)
        return kl_fail(e, KL_ERR_ARG,
                       "rung %s: SK=1 (stream-K) and SPLITK=%zu (split-K) each split K their own "
                       "way; use one of them",
                       r->name, PARAM("SPLITK"));
    return KL_OK;
}

/* What the tensor-core kernels assert, said before they are built. */
static enum kl_status mma_relations(const struct kl_gemm_rung *r, const int *v, enum kl_type t,
                                    struct kl_err *e)
{
    size_t threads = (PARAM("BM") / PARAM("WM")) * (PARAM("BN") / PARAM("WN")) * 32;
    (void)t;
    if ((PARAM("BM") * PARAM("BK") / 4) % threads != 0 ||
        (PARAM("BK") * PARAM("BN") / 4) % threads != 0)
        return kl_fail(e, KL_ERR_ARG,
                       "rung %s: the 16-byte pieces of a slice (BM·BK/4 = %zu of A, BK·BN/4 = "
                       "%zu of B) must divide evenly among the %zu threads",
                       r->name, PARAM("BM") * PARAM("BK") / 4, PARAM("BK") * PARAM("BN") / 4,
                       threads);
    /* kernels/cuda/gemm/15_mma_tf32.cu (and 16): two fragment sets alternate by step, so a
       slice holds an even number of 8-deep steps; a thread's pieces of A's slice, whole rows */
    if (kl_kernel_is_cuda(r->file) && (PARAM("BK") % 16 != 0 || threads % (PARAM("BK") / 4) != 0))
        return kl_fail(e, KL_ERR_ARG,
                       "rung %s: BK=%zu must be a multiple of 16 (an even number of 8-deep steps, "
                       "for the two alternating fragment sets) whose 16-byte pieces per row of A "
                       "(%zu) divide the %zu threads",
                       r->name, PARAM("BK"), PARAM("BK") / 4, threads);
    return KL_OK;
}

/*
 * "the 16-byte pieces of a slice ..." unless pieces (a slice's per row) divide
 * the threads evenly and rows_a, rows_b rows of them divide among the threads.
 */
static enum kl_status pieces_relation(const struct kl_gemm_rung *r, size_t threads, size_t per_row,
                                      size_t rows_a, size_t per_row_b, size_t rows_b,
                                      struct kl_err *e)
{
    if (threads % per_row != 0 || threads % per_row_b != 0 || (rows_a * per_row) % threads != 0 ||
        (rows_b * per_row_b) % threads != 0)
        return kl_fail(e, KL_ERR_ARG,
                       "rung %s: the 16-byte pieces of a slice (%zu rows of %zu of A, %zu rows of "
                       "%zu of B) must divide evenly among the %zu threads, whole rows at a time",
                       r->name, rows_a, per_row, rows_b, per_row_b, threads);
    return KL_OK;
}

/* What kernels/cuda/gemm/19_mma.cu asserts, said before it is built. */
static enum kl_status mma_t_relations(const struct kl_gemm_rung *r, const int *v, enum kl_type t,
                                      struct kl_err *e)
{
    size_t threads = (PARAM("BM") / PARAM("WM")) * (PARAM("BN") / PARAM("WN")) * 32;
    size_t bytes = PARAM("BK") * kl_type_size(t); /* of K per row of a slice */
    if (bytes % 32 != 0)
        return kl_fail(e, KL_ERR_ARG,
                       "rung %s: BK=%zu %s elements are %zu bytes, not whole mma steps of 32 "
                       "bytes of K",
                       r->name, PARAM("BK"), kl_type_name(t), bytes);
    return pieces_relation(r, threads, bytes / 16, PARAM("BM"), bytes / 16, PARAM("BN"), e);
}

/* What kernels/cuda/gemm/21_dmma.cu asserts, said before it is built. */
static enum kl_status dmma_relations(const struct kl_gemm_rung *r, const int *v, enum kl_type t,
                                     struct kl_err *e)
{
    size_t threads = (PARAM("BM") / PARAM("WM")) * (PARAM("BN") / PARAM("WN")) * 32;
    (void)t;
    if (PARAM("BK") % PARAM("MK") != 0)
        return kl_fail(e, KL_ERR_ARG, "rung %s: BK=%zu must be a multiple of MK=%zu", r->name,
                       PARAM("BK"), PARAM("MK"));
    return pieces_relation(r, threads, PARAM("BK") / 2, PARAM("BM"), PARAM("BN") / 2, PARAM("BK"),
                           e);
}

/* What kernels/cuda/gemm/17_wgmma_tf32.cu asserts, said before it is built. */
static enum kl_status wgmma_relations(const struct kl_gemm_rung *r, const int *v, enum kl_type t,
                                      struct kl_err *e)
{
    (void)t;
    if (PARAM("BM") == 256 && PARAM("BN") > 128)
        return kl_fail(e, KL_ERR_ARG,
                       "rung %s: BM=256 keeps 128 accumulators per thread, which leave registers "
                       "for at most two consumer warpgroups (BN <= 128, not %zu)",
                       r->name, PARAM("BN"));
    return KL_OK;
}

/* What kernels/cuda/gemm/20_wgmma.cu asserts, said before it is built. */
static enum kl_status wgmma_k_relations(const struct kl_gemm_rung *r, const int *v, enum kl_type t,
                                        struct kl_err *e)
{
    int promote = kl_param_index(r->params, "PROMOTE");
    size_t bn_max = PARAM("BM") > 128 ? 128 : 256;
    if (PARAM("BN") > bn_max)
        return kl_fail(e, KL_ERR_ARG,
                       "rung %s: BM=%zu makes %zu consumer warpgroups, whose share of registers "
                       "holds the accumulators of BN <= 128 columns, not %zu",
                       r->name, PARAM("BM"), PARAM("BM") / 64, PARAM("BN"));
    if (promote < 0)
        return KL_OK; /* rung 22 */
    if (!kl_type_fp8(t) && v[promote] != r->params[promote].def)
        return kl_fail(e, KL_ERR_ARG,
                       "rung %s: PROMOTE is FP8's (its sums keep about 13 bits in the tensor "
                       "cores); %s sums are %s already",
                       r->name, kl_type_name(t), t == KL_INT8 ? "exact" : "fp32");
    bn_max = PARAM("BM") > 128 ? 64 : 192;
    if (kl_type_fp8(t) && v[promote] > 0 && PARAM("BN") > bn_max)
        return kl_fail(e, KL_ERR_ARG,
                       "rung %s: PROMOTE=%d keeps a second set of sums, which leaves registers "
                       "for BN <= %zu at BM=%zu, not %zu. Name such a BN (any --param sets "
                       "aside the preset's BN=192) or PROMOTE=0, the fast mode",
                       r->name, v[promote], bn_max, PARAM("BM"), PARAM("BN"));
    return KL_OK;
}

/* Split-K (SPLITK > 1): the splits along a third dimension of l, the same blocks in each. */
static void split_dimension(const struct kl_gemm_rung *r, const int *v, struct kl_launch *l)
{
    int splits = kl_param_value(r->params, v, "SPLITK");
    if (splits > 1) {
        l->dims = 3;
        l->global[2] = (size_t)splits;
    }
}

/* The compute units of l's device (1 where it is not known). */
static size_t launch_sms(const struct kl_launch *l)
{
    return l->kl && l->kl->info.compute_units ? l->kl->info.compute_units : 1;
}

/* Stream-K (SK=1) in a grid of blocks (rung 14): a row of blocks, one per SM, whatever the
   blocks of C. */
static void stream_k_row(const struct kl_gemm_rung *r, const int *v, struct kl_launch *l)
{
    if (kl_param_value(r->params, v, "SK")) {
        l->global[0] = l->local[0] * launch_sms(l);
        l->global[1] = l->local[1];
    }
}

/* The launch geometry of a rung, from M, N and its parameters. */
void kl_gemm_shape(const struct kl_gemm_rung *r, const int *v, int M, int N, struct kl_launch *s)
{
    s->global[2] = s->local[2] = 1;
    switch (r->geometry) {
    case KL_GEO_2D:
        s->dims = 2;
        s->local[0] = PARAM("WG0");
        s->local[1] = PARAM("WG1");
        s->global[0] = kl_round_up((size_t)M, s->local[0]);
        s->global[1] = kl_round_up((size_t)N, s->local[1]);
        break;
    case KL_GEO_ROWS:
        s->dims = 1;
        s->local[0] = PARAM("WG");
        s->global[0] = kl_round_up((size_t)M, s->local[0]);
        s->local[1] = s->global[1] = 1;
        break;
    case KL_GEO_TILE:
        s->dims = 2;
        s->local[0] = s->local[1] = PARAM("TS");
        s->global[0] = kl_round_up((size_t)N, s->local[0]);
        s->global[1] = kl_round_up((size_t)M, s->local[1]);
        break;
    case KL_GEO_BLOCK:
        s->dims = 2;
        s->local[0] = PARAM("BN") / PARAM("TN");
        s->local[1] = PARAM("BM") / PARAM("TM");
        s->global[0] = kl_round_up((size_t)N, PARAM("BN")) / PARAM("TN");
        s->global[1] = kl_round_up((size_t)M, PARAM("BM")) / PARAM("TM");
        stream_k_row(r, v, s);
        break;
    case KL_GEO_WARPS:
        s->dims = 2;
        s->local[0] = 32 * (PARAM("BN") / PARAM("WN"));
        s->local[1] = PARAM("BM") / PARAM("WM");
        s->global[0] = kl_round_up((size_t)N, PARAM("BN")) / PARAM("BN") * s->local[0];
        s->global[1] = kl_round_up((size_t)M, PARAM("BM")) / PARAM("BM") * s->local[1];
        break;
    case KL_GEO_PERSISTENT: {
        /* Units of CLUSTER tiles side by side along N, a cluster each, at most a block per SM. */
        size_t cluster = PARAM("CLUSTER") ? PARAM("CLUSTER") : 1;
        size_t tiles_n = kl_round_up((size_t)N, PARAM("BN")) / PARAM("BN");
        size_t units = kl_round_up((size_t)M, PARAM("BM")) / PARAM("BM") *
                       (kl_round_up(tiles_n, cluster) / cluster);
        size_t sms = launch_sms(s);
        size_t clusters = sms / cluster ? sms / cluster : 1;
        s->dims = 1;
        /* a consumer warpgroup per 64 columns (17, 18: C's transpose), or reading Bᵀ per 64
           rows (20), and the producer's */
        s->local[0] = 128 * ((r->b_col_major ? PARAM("BM") : PARAM("BN")) / 64 + 1);
        /* stream-K (SK): a block per SM, whatever the tiles; the kernel's plan lets those it
           has no work for leave */
        if (PARAM("SK"))
            units = clusters;
        s->global[0] = (units < clusters ? units : clusters) * cluster * s->local[0];
        s->local[1] = s->global[1] = 1;
        break;
    }
    case KL_GEO_HOST: s->dims = 0; break;
    }
    split_dimension(r, v, s);
}

/*
 * Rungs 17 and 18: slices of 32 floats of A and B (and 3xTF32's small parts of A), 1 KiB to
 * align the ring and 256 bytes, and with EPI=1 or 2 four boxes of 32 x 32 floats per consumer
 * warpgroup of 64 columns.
 */
static size_t wgmma_bytes(const struct kl_gemm_rung *r, const int *v, size_t elem)
{
    size_t split = r->precision == KL_PREC_3XTF32 ? PARAM("BM") : 0;
    size_t staging = PARAM("EPI") ? PARAM("BN") / 64 * 4 * 32 * 128 : 0;
    return (PARAM("STAGES") * 32 * (PARAM("BM") + PARAM("BN") + split) + 320) * elem + staging;
}

/*
 * Rung 20's (and 22's products'): rows of 128 bytes whatever the type, 1 KiB to align the ring,
 * and with EPI=1 two boxes of 64 x 128 bytes per consumer warpgroup of 64 rows.
 */
static size_t wgmma_k_bytes(const struct kl_gemm_rung *r, const int *v)
{
    size_t staging = kl_param_value(r->params, v, "EPI") ? PARAM("BM") / 64 * 2 * 64 * 128 : 0;
    return PARAM("STAGES") * 128 * (PARAM("BM") + PARAM("BN")) + 1024 + 256 + staging;
}

static size_t local_bytes(const struct kl_gemm_rung *r, const int *v, size_t elem)
{
    switch (r->local) {
    case KL_LOCAL_KC: return PARAM("KC") * elem;
    case KL_LOCAL_2TS2: return 2 * PARAM("TS") * PARAM("TS") * elem;
    case KL_LOCAL_BLOCK: return PARAM("BK") * (PARAM("BM") + PARAM("BN")) * elem;
    case KL_LOCAL_BLOCK4:
        return PARAM("BK") * (PARAM("BM") + 4 * PARAM("PAD") + PARAM("BN")) * elem;
    case KL_LOCAL_BLOCK4X2:
        return 2 * PARAM("BK") * (PARAM("BM") + 4 * PARAM("PAD") + PARAM("BN")) * elem;
    case KL_LOCAL_STAGES:
        return PARAM("STAGES") * PARAM("BK") * (PARAM("BM") + 4 + PARAM("BN")) * elem;
    case KL_LOCAL_MMA: {
        size_t stages = kl_param_index(r->params, "STAGES") >= 0 ? PARAM("STAGES") : 2;
        size_t sb = PARAM("BN") + (40 - PARAM("BN") % 32) % 32;
        return stages * (PARAM("BM") * (PARAM("BK") + 4) + PARAM("BK") * sb) * elem;
    }
    case KL_LOCAL_WGMMA: return wgmma_bytes(r, v, elem);
    case KL_LOCAL_WGMMA_K: return wgmma_k_bytes(r, v);
    case KL_LOCAL_MMA_T: /* elem is 1 or 2: 16 bytes of padding are whole elements */
        return PARAM("STAGES") * (PARAM("BM") + PARAM("BN")) * (PARAM("BK") + 16 / elem) * elem;
    case KL_LOCAL_DMMA: {
        size_t sa = PARAM("BK") < 16 ? 16 : PARAM("BK"), sb = (PARAM("BN") + 15) / 16 * 16;
        return PARAM("STAGES") * (PARAM("BM") * sa + PARAM("BK") * sb) * elem;
    }
    case KL_LOCAL_NONE: return 0;
    }
    return 0;
}

/*
 * The size of an element of rung r's local memory in type t. The FMA rungs'
 * tiles and chunks (KC up to BLOCK4X2) hold the inputs converted to the
 * sums' type as they are loaded (float for half, bf16 and the fp8s, int for
 * int8); the pipelines of copies (STAGES, MMA, WGMMA) hold the inputs' bytes.
 */
static size_t local_elem(const struct kl_gemm_rung *r, enum kl_type t)
{
    int copies =
        r->local == KL_LOCAL_STAGES || r->local == KL_LOCAL_MMA || r->local == KL_LOCAL_WGMMA;
    return kl_type_size(copies ? t : kl_type_output(t));
}

size_t kl_gemm_local_bytes(const struct kl_gemm_rung *r, const int *values, enum kl_type t)
{
    return local_bytes(r, values, local_elem(r, t));
}

/* Private array elements per work-item: a KC-long row, or a TM × TN block of C and its operands. */
static size_t private_elems(const struct kl_gemm_rung *r, const int *v)
{
    if (r->private_kc)
        return PARAM("KC");
    if (r->geometry == KL_GEO_BLOCK)
        return PARAM("TM") * PARAM("TN") + PARAM("TM") + PARAM("TN");
    return 0;
}

/*
 * Limits a rung must fit before it is built: work-group size and item sizes
 * (kl_launch_check), local memory, and, on CPU devices, the private arrays:
 * PoCL keeps a whole work-group's private arrays on one thread's stack, so
 * their elements times the work-group size must stay well inside it.
 */
#define CPU_PRIVATE_LIMIT ((size_t)1 << 20)
enum kl_status kl_gemm_rung_check(const struct kl_context *kl, const struct kl_gemm_rung *r,
                                  const int *v, enum kl_type t, const struct kl_launch *l,
                                  struct kl_err *e)
{
    const struct kl_device_info *dev = &kl->info;
    size_t lb = local_bytes(r, v, local_elem(r, t));
    size_t es = kl_type_size(kl_type_output(t)); /* private arrays hold the sums' type */
    enum kl_status st;
    char why[256];
    if (r->relations && (st = r->relations(r, v, t, e)) != KL_OK)
        return st;
    if (!kl_gemm_rung_available(kl, r, t, why, sizeof why))
        return kl_fail(e, KL_ERR_UNSUPPORTED, "rung %s: %s", r->name, why);
    if ((st = kl_launch_check(l, r->name, e)) != KL_OK)
        return st;
    uint64_t room = kl_kernel_local_mem(kl, r->file);
    if (lb > room)
        return kl_fail(e, KL_ERR_UNSUPPORTED,
                       "rung %s: needs %zu bytes of local memory, the device has %llu%s", r->name,
                       lb, (unsigned long long)room,
                       kl_param_value(r->params, v, "EPI")
                           ? " (with EPI's staging for C: fewer STAGES, or EPI=0)"
                           : "");
    size_t wg = l->local[0] * (l->dims > 1 ? l->local[1] : 1);
    size_t priv = private_elems(r, v) * wg * es;
    if (!dev->is_gpu && priv > CPU_PRIVATE_LIMIT)
        return kl_fail(e, KL_ERR_UNSUPPORTED,
                       "rung %s: %zu bytes of private arrays per work-group (%s), more than "
                       "the %zu a CPU device's work-group stack safely holds; lower %s",
                       r->name, priv, r->private_kc ? "KC×WG" : "(TM·TN + TM + TN)·work-items",
                       CPU_PRIVATE_LIMIT, r->private_kc ? "KC or WG" : "TM or TN");
    return KL_OK;
}
#undef PARAM
