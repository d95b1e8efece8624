/*
 * GEMM workload: the rung table, the data, the reference and the driver
 * that runs the ladder. Device work goes through the backend table only.
 */
#include "workloads/gemm.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/blas.h"
#include "core/ladder.h"
#include "core/launch.h"
#include "core/measure.h"
#include "core/progress.h"
#include "core/util.h"
#include "core/verify.h"
#include "peers/peers.h"
#include "tune/cache.h"

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
        }                                                                                          \
    }
HOST_RUNG(i, j, k)
HOST_RUNG(i, k, j)
HOST_RUNG(j, i, k)
HOST_RUNG(j, k, i)
HOST_RUNG(k, i, j)
HOST_RUNG(k, j, i)

/* ---- the ladder ---------------------------------------------------------- */

static enum kl_status warptile_relations(const struct kl_gemm_rung *r, const int *v, enum kl_type t,
                                         struct kl_err *e);
static enum kl_status mma_relations(const struct kl_gemm_rung *r, const int *v, enum kl_type t,
                                    struct kl_err *e);
static enum kl_status wgmma_relations(const struct kl_gemm_rung *r, const int *v, enum kl_type t,
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
/* Hopper's wgmma rungs: BM rows (wgmma's N: 128 or 256) by BN columns (64 per consumer
 * warpgroup) per tile, K-slices of 32, a STAGES-deep ring, tiles in groups of GROUP rows,
 * blocks in clusters of CLUSTER that share A's slices (TMA multicast). */
#define P_WGMMA(bm, bm_max, bn_max, stages, cluster) \
    {"BM", bm, 128, bm_max, 128, 0, "rows of C per tile (wgmma's N: 128 or 256)"}, \
    {"BN", 128, 64, bn_max, 64, 0, "columns of C per tile, 64 per consumer warpgroup"}, \
    {"STAGES", stages, 2, 8, 1, 0, "K-slices of 32 in the shared-memory ring"}, \
    {"GROUP", 8, 1, 32, 1, 0, "tile-rows per group of the persistent raster"}, \
    {"CLUSTER", cluster, 1, 2, 1, 0, "blocks per cluster, side by side along N, sharing " \
     "A's slices by TMA multicast"}
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
     .file = "opencl/gemm/01_naive.cl",
     .geometry = KL_GEO_2D,
     .params = P_WG2D},
    {.name = "02_coalesced",
     .summary = "B stored column-major, so each work-item reads A's row and B's column "
                "sequentially",
     .file = "opencl/gemm/02_coalesced.cl",
     .b_col_major = 1,
     .geometry = KL_GEO_2D,
     .params = P_WG2D},
    {.name = "03_private_acc",
     .summary = "the sum lives in a private register; C is written once instead of K times",
     .file = "opencl/gemm/03_private_acc.cl",
     .b_col_major = 1,
     .geometry = KL_GEO_2D,
     .params = P_WG2D},
    {.name = "04_row_per_item",
     .summary = "one work-item computes a whole row of C: fewer, longer work-items",
     .file = "opencl/gemm/04_row_per_item.cl",
     .b_col_major = 1,
     .geometry = KL_GEO_ROWS,
     .params = {P_WG}},
    {.name = "05_row_private",
     .summary = "A's row (in chunks of KC) copied to private memory and reused for every "
                "column",
     .file = "opencl/gemm/05_row_private.cl",
     .b_col_major = 1,
     .geometry = KL_GEO_ROWS,
     .private_kc = 1,
     .params = {P_WG, P_KC(1)}},
    {.name = "06_col_local",
     .summary = "B's column (chunk) loaded once per work-group into local memory, between "
                "barriers",
     .file = "opencl/gemm/06_col_local.cl",
     .b_col_major = 1,
     .geometry = KL_GEO_ROWS,
     .local = KL_LOCAL_KC,
     .private_kc = 1,
     .params = {P_WG, P_KC(1)}},
    {.name = "07_vec4_dot",
     .summary = "the inner loop of 05 as float4 dot products built from scalars",
     .file = "opencl/gemm/07_vec4_dot.cl",
     .b_col_major = 1,
     .geometry = KL_GEO_ROWS,
     .private_kc = 1,
     .params = {P_WG, P_KC(1)}},
    {.name = "08_vec4_row",
     .summary = "the private row buffer itself is float4 and B is read with vload4: vector "
                "loads, no per-iteration packing",
     .file = "opencl/gemm/08_vec4_row.cl",
     .b_col_major = 1,
     .geometry = KL_GEO_ROWS,
     .private_kc = 1,
     .params = {P_WG, P_KC(4)}},
    {.name = "09_vec8",
     .summary = "as 08 with float8; pays only where the preferred vector width is 8",
     .file = "opencl/gemm/09_vec8.cl",
     .b_col_major = 1,
     .geometry = KL_GEO_ROWS,
     .private_kc = 1,
     .params = {P_WG, P_KC(8)}},
    {.name = "10_tiled",
     .summary = "seed 002: TS×TS tiles of A and B in local memory, each element loaded once "
                "per tile and reused TS times",
     .file = "opencl/gemm/10_tiled.cl",
     .geometry = KL_GEO_TILE,
     .local = KL_LOCAL_2TS2,
     .params = {P_TS}},
    {.name = "11_regblock",
     .summary = "2-D register blocking: a work-item computes a TM×TN block of C from BM×BK and "
                "BK×BN local tiles, (TM+TN)/(TM·TN) local loads per multiply-add instead of 2",
     .file = "opencl/gemm/11_regblock.cl",
     .geometry = KL_GEO_BLOCK,
     .local = KL_LOCAL_BLOCK,
     .params = {P_BLOCK(1)},
     .multiples = M_BLOCK},
    {.name = "12_vec_local",
     .summary = "T4 global loads and stores; A's tile transposed and padded so every local read "
                "is a conflict-free T4; bounds checks once per tile, not per element",
     .file = "opencl/gemm/12_vec_local.cl",
     .geometry = KL_GEO_BLOCK,
     .local = KL_LOCAL_BLOCK4,
     .params = {P_BLOCK(4), P_PAD},
     .multiples = M_BLOCK},
    {.name = "13_double_buffer",
     .summary = "double-buffered tiles: the next K-slice is loaded into registers while the "
                "current one is multiplied; one barrier per slice",
     .file = "opencl/gemm/13_double_buffer.cl",
     .geometry = KL_GEO_BLOCK,
     .local = KL_LOCAL_BLOCK4X2,
     .params = {P_BLOCK(4), P_PAD},
     .multiples = M_BLOCK},
    {.name = "14_warptile",
     .summary = "CUDA: warp tiles over a STAGES-deep cp.async pipeline in shared memory "
                "beyond OpenCL's 48 KiB (up to 227 KiB); register use set by launch bounds",
     .file = "cuda/gemm/14_warptile.cu",
     .geometry = KL_GEO_BLOCK,
     .local = KL_LOCAL_STAGES,
     .params = {P_WARPTILE},
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
     /* Hopper (H100, docs/RESULTS.md): 128 × 64 tiles where M <= 128 or up to ~1024³. */
     .presets = {{90, KL_FLOAT, 99, "BN=64", 128}, {90, KL_FLOAT, 30, "BN=64"}}},
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

KL_RUNG_TABLE(gemm, struct kl_gemm_rung, rungs);

const struct kl_gemm_rung *kl_gemm_rung_find(const char *name)
{
    const struct kl_rung_set set = {&table, NULL, 0};
    int i = kl_rung_lookup(&set, name);
    return i >= 0 ? &rungs[i] : NULL;
}

enum kl_status kl_gemm_rung_not_found(const char *name, const char *what, struct kl_err *e)
{
    const struct kl_rung_set set = {&table, NULL, 0};
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

int kl_gemm_rung_available(const struct kl_context *kl, const struct kl_gemm_rung *r,
                           enum kl_type t, char *why, size_t n)
{
    if (kl_kernel_elsewhere(kl, r->file)) {
        snprintf(why, n, "CUDA C++: runs with --backend cuda");
        return 0;
    }
    if (on_tensor_cores(r) && t != KL_FLOAT) {
        snprintf(why, n, "the TF32 tensor cores multiply float inputs (--type float)");
        return 0;
    }
    if (r->hopper && !(kl->info.cc_major == 9 && kl->info.cc_minor == 0)) {
        snprintf(why, n, "wgmma and TMA are Hopper's: compute capability 9.0 only (this is %d.%d)",
                 kl->info.cc_major, kl->info.cc_minor);
        return 0;
    }
    return !on_tensor_cores(r) || kl_tensor_tf32(&kl->info, why, n);
}

double kl_gemm_tolerance(enum kl_precision p, enum kl_type t, int K)
{
    return p == KL_PREC_TF32 ? kl_tf32_tolerance(K) : kl_dot_tolerance(t, K);
}

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
    return KL_OK;
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

/* The launch geometry of a rung, from M, N and its parameters. */
static void shape_of(const struct kl_gemm_rung *r, const int *v, int M, int N, struct kl_launch *s)
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
        size_t sms = s->kl && s->kl->info.compute_units ? s->kl->info.compute_units : 1;
        size_t clusters = sms / cluster ? sms / cluster : 1;
        s->dims = 1;
        s->local[0] = 128 * (PARAM("BN") / 64 + 1);
        s->global[0] = (units < clusters ? units : clusters) * cluster * s->local[0];
        s->local[1] = s->global[1] = 1;
        break;
    }
    case KL_GEO_HOST: s->dims = 0; break;
    }
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
    case KL_LOCAL_WGMMA: {
        size_t split = r->precision == KL_PREC_3XTF32 ? PARAM("BM") : 0;
        return (PARAM("STAGES") * 32 * (PARAM("BM") + PARAM("BN") + split) + 320) * elem;
    }
    case KL_LOCAL_NONE: return 0;
    }
    return 0;
}

size_t kl_gemm_local_bytes(const struct kl_gemm_rung *r, const int *values, enum kl_type t)
{
    return local_bytes(r, values, kl_type_size(t));
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
static enum kl_status check_rung(const struct kl_context *kl, const struct kl_gemm_rung *r,
                                 const int *v, enum kl_type t, const struct kl_launch *l,
                                 struct kl_err *e)
{
    const struct kl_device_info *dev = &kl->info;
    size_t es = kl_type_size(t), lb = local_bytes(r, v, es);
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
                       "rung %s: needs %zu bytes of local memory, the device has %llu", r->name, lb,
                       (unsigned long long)room);
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

/* ---- data, device buffers and one rung's run ------------------------------- */

#define GUARD 1024 /* elements past C that a correct kernel never writes */

/*
 * The problem and what the device holds of it. Device buffers (and B
 * transposed, for column-major rungs) are made when the first rung that
 * needs them runs, so host rungs and row-major rungs cost no extra memory.
 */
struct gemm_session {
    struct kl_context *kl;
    enum kl_type type;
    int M, N, K;
    const void *A, *B;
    void *Bt;     /* B transposed, for column-major rungs */
    void *poison; /* M·N + GUARD elements of NaN (INT32_MAX for int) */
    void *out;    /* M·N + GUARD elements read back after the verified launch */
    struct kl_buf *dA, *dB, *dBt, *dC;
    struct kl_buf *dBp; /* B in padded rows, for b_pitch and Hopper rungs (see pitch16) */
    struct kl_buf *dAp; /* A so, for Hopper rungs (both made on the device when needed) */
    struct kl_buf *dAr; /* A's residual a - tf32(a), rows as dAp's, for 3xTF32's Hopper rung */
};

static void session_free(struct gemm_session *s)
{
    if (s->kl) {
        s->kl->ops->release(s->dA);
        s->kl->ops->release(s->dB);
        s->kl->ops->release(s->dBt);
        s->kl->ops->release(s->dC);
        s->kl->ops->release(s->dBp);
        s->kl->ops->release(s->dAp);
        s->kl->ops->release(s->dAr);
    }
    free(s->Bt);
    free(s->poison);
    free(s->out);
}

static void session_init(struct gemm_session *s, struct kl_context *kl, enum kl_type t, int M,
                         int N, int K, const void *A, const void *B)
{
    memset(s, 0, sizeof *s);
    s->kl = kl;
    s->type = t;
    s->M = M, s->N = N, s->K = K;
    s->A = A, s->B = B;
}

static enum kl_status device_buffer(struct gemm_session *s, size_t elems, struct kl_buf **out)
{
    struct kl_context *kl = s->kl;
    if (*out)
        return KL_OK;
    return kl->ops->alloc(kl->dev, elems * kl_type_size(s->type), out, &kl->err);
}

/* Makes what a device rung with this B layout needs, once. */
static enum kl_status session_device(struct gemm_session *s, int b_col)
{
    struct kl_context *kl = s->kl;
    size_t es = kl_type_size(s->type), M = (size_t)s->M, N = (size_t)s->N, K = (size_t)s->K;
    enum kl_status st;
    if (!s->poison) {
        s->poison = malloc((M * N + GUARD) * es);
        s->out = malloc((M * N + GUARD) * es);
        if (!s->poison || !s->out)
            return kl_fail(&kl->err, KL_ERR_NO_MEMORY, "out of host memory for %d×%d×%d", s->M,
                           s->N, s->K);
        kl_poison(s->type, s->poison, M * N + GUARD);
    }
    if (b_col && !s->Bt) {
        if (!(s->Bt = malloc(K * N * es)))
            return kl_fail(&kl->err, KL_ERR_NO_MEMORY, "out of host memory for Bᵀ");
        for (size_t k = 0; k < K; k++)
            for (size_t n = 0; n < N; n++)
                memcpy((char *)s->Bt + (n * K + k) * es, (const char *)s->B + (k * N + n) * es, es);
    }
    if ((st = device_buffer(s, M * K, &s->dA)) != KL_OK ||
        (st = device_buffer(s, K * N, b_col ? &s->dBt : &s->dB)) != KL_OK ||
        (st = device_buffer(s, M * N + GUARD, &s->dC)) != KL_OK)
        return st;
    return KL_OK;
}

/* Uploads A and the layout of B the rung reads. */
static enum kl_status upload_inputs(struct gemm_session *s, int b_col)
{
    struct kl_context *kl = s->kl;
    size_t es = kl_type_size(s->type);
    enum kl_status st = kl->ops->write(kl->dev, s->dA, s->A, (size_t)s->M * s->K * es, &kl->err);
    if (st != KL_OK)
        return st;
    return kl->ops->write(kl->dev, b_col ? s->dBt : s->dB, b_col ? s->Bt : s->B,
                          (size_t)s->K * s->N * es, &kl->err);
}

struct host_launch {
    const struct kl_gemm_rung *rung;
    struct gemm_session *s;
    void *C;
};

static enum kl_status host_once(void *arg, double *seconds, struct kl_err *e)
{
    struct host_launch *h = arg;
    (void)e;
    double t0 = kl_now();
    h->rung->host(h->s->type, h->s->M, h->s->N, h->s->K, h->s->A, h->s->B, h->C);
    *seconds = kl_now() - t0;
    return KL_OK;
}

/* Median of three end-to-end runs: upload A and B, launch, download C. */
static enum kl_status end_to_end(struct gemm_session *s, struct kl_launch_pair *l, int b_col,
                                 void *C, double *out)
{
    struct kl_context *kl = s->kl;
    double t[3];
    for (int i = 0; i < 3; i++) {
        enum kl_status st;
        double t0 = kl_now(), dummy;
        if ((st = upload_inputs(s, b_col)) != KL_OK ||
            (st = kl_launch_pair_timed(l, &dummy, &kl->err)) != KL_OK ||
            (st = kl->ops->read(kl->dev, s->dC, C, (size_t)s->M * s->N * kl_type_size(s->type),
                                &kl->err)) != KL_OK)
            return st;
        t[i] = kl_now() - t0;
    }
    struct kl_stats stats;
    kl_stats_compute(t, 3, &stats);
    *out = stats.median;
    return KL_OK;
}

/*
 * A device rung's launches, timed as one: B's packing where the rung needs
 * it, then the product (pair.a is the first of them, pair.b the second or
 * NULL). Lives where it was prepared: pair points into it.
 */
struct rung_launch {
    struct kl_launch pack, gemm;
    struct kl_launch_pair pair;
};

/*
 * n elements of the session's type rounded up to whole 16-byte pieces: the
 * row pitch of B for a b_pitch rung (n = N). Where that differs from N, B is
 * first copied (kernel pack_b of the rung's file) into rows of that pitch
 * with zeros after N, so that its rows stay 16-byte aligned for the rung's
 * 16-byte copies.
 */
static int pitch16(const struct gemm_session *s, int n)
{
    int per16 = (int)(16 / kl_type_size(s->type));
    return (n + per16 - 1) / per16 * per16;
}

/*
 * The row pitch of A (n = K) or B (n = N) for a Hopper rung: n where rows
 * of n floats start 16-byte aligned, as TMA needs; else n rounded up to
 * whole 128-byte lines, into which kernel pad of the rung's file copies the
 * matrix first (zeros after n), so that each of TMA's 128-byte box rows is
 * one line of L2.
 */
static int tma_pitch(const struct gemm_session *s, int n)
{
    int per16 = (int)(16 / kl_type_size(s->type)), per128 = 8 * per16;
    return n % per16 == 0 ? n : (n + per128 - 1) / per128 * per128;
}

/*
 * 1 where Hopper's 3xTF32 rung reads A's residual (a - tf32(a), which kernel
 * pad writes first) so that TMA splits A as it copies it; not where K <= 8,
 * where the rung multiplies A exactly on the FMA units (its file says why).
 */
static int reads_residual(const struct gemm_session *s, const struct kl_gemm_rung *r)
{
    return r->hopper && r->precision == KL_PREC_3XTF32 && s->K > 8;
}

/*
 * The row pitches rung r reads A and B with (tma_pitch for a Hopper rung,
 * pitch16 for B of a b_pitch rung, else K and N); 1 where either differs
 * from the matrix's width or A's residual is read, so a copy (pad or
 * pack_b) runs before the product.
 */
static int rung_pitches(const struct gemm_session *s, const struct kl_gemm_rung *r, int *lda,
                        int *ldb)
{
    *lda = r->hopper ? tma_pitch(s, s->K) : s->K;
    *ldb = r->hopper ? tma_pitch(s, s->N) : r->b_pitch ? pitch16(s, s->N) : s->N;
    return *lda != s->K || *ldb != s->N || reads_residual(s, r);
}

/*
 * The build options of the copies before a product (pad, pack_b): the
 * element type's alone, so each is built once per type, whatever the rung's
 * parameters (the tuner's candidates share it).
 */
static void copy_options(enum kl_type type, char *out, size_t n)
{
    static const struct kl_param_def none[1] = {{0}};
    kl_params_options(none, NULL, type, out, n);
}

/*
 * The elements of dBp, B's padded copy: room for the wider of the two
 * pitches (pitch16 for a b_pitch rung, tma_pitch for a Hopper one), since
 * the rungs of one ladder share the buffer and the first to need it makes it.
 */
static size_t padded_b_elems(const struct gemm_session *s)
{
    int a = pitch16(s, s->N), b = tma_pitch(s, s->N);
    return (size_t)s->K * (size_t)(a > b ? a : b);
}

/*
 * The packing launch (built with copy_options). *build_s gets its build time.
 */
static enum kl_status prepare_pack(struct gemm_session *s, const struct kl_gemm_rung *r, int ldb,
                                   struct kl_launch *l, double *build_s)
{
    struct kl_context *kl = s->kl;
    enum kl_status st;
    char options[64];
    copy_options(s->type, options, sizeof options);
    *l = (struct kl_launch){.kl = kl, .nargs = 5, .dims = 1, .local = {256, 1, 1}};
    l->global[0] = kl_round_up((size_t)s->K * (size_t)ldb, 256);
    l->global[1] = l->global[2] = 1;
    if ((st = device_buffer(s, padded_b_elems(s), &s->dBp)) != KL_OK ||
        (st = kl_kernel_get(kl, r->file, "pack_b", options, &l->kernel, build_s)) != KL_OK ||
        (st = kl_launch_check(l, r->name, &kl->err)) != KL_OK)
        return st;
    l->args[0] = (struct kl_arg){KL_ARG_BUF, {.buf = s->dB}};
    l->args[1] = (struct kl_arg){KL_ARG_BUF, {.buf = s->dBp}};
    l->args[2] = (struct kl_arg){KL_ARG_INT, {.i = s->K}};
    l->args[3] = (struct kl_arg){KL_ARG_INT, {.i = s->N}};
    l->args[4] = (struct kl_arg){KL_ARG_INT, {.i = ldb}};
    return KL_OK;
}

/*
 * The padding launch of a Hopper rung (kernel pad of its file): A into rows
 * of lda, B into rows of ldb (tma_pitch), each only where that is not its
 * width, and A's residual where the rung reads it; a block of 256 threads
 * per row of A, then of B. Built once per type, as pack_b is.
 */
static enum kl_status prepare_pad(struct gemm_session *s, const struct kl_gemm_rung *r, int lda,
                                  int ldb, struct kl_launch *l, double *build_s)
{
    struct kl_context *kl = s->kl;
    int pad_a = lda != s->K, pad_b = ldb != s->N, resid = reads_residual(s, r);
    size_t a_elems = (size_t)s->M * (size_t)lda;
    enum kl_status st;
    char options[64];
    copy_options(s->type, options, sizeof options);
    *l = (struct kl_launch){.kl = kl, .nargs = 11, .dims = 1, .local = {256, 1, 1}};
    l->global[0] = ((size_t)s->M + (size_t)s->K) * 256;
    l->global[1] = l->global[2] = 1;
    if ((pad_a && (st = device_buffer(s, a_elems, &s->dAp)) != KL_OK) ||
        (resid && (st = device_buffer(s, a_elems, &s->dAr)) != KL_OK) ||
        (pad_b && (st = device_buffer(s, padded_b_elems(s), &s->dBp)) != KL_OK) ||
        (st = kl_kernel_get(kl, r->file, "pad", options, &l->kernel, build_s)) != KL_OK ||
        (st = kl_launch_check(l, r->name, &kl->err)) != KL_OK)
        return st;
    l->args[0] = (struct kl_arg){KL_ARG_BUF, {.buf = s->dA}};
    l->args[1] = (struct kl_arg){KL_ARG_BUF, {.buf = s->dB}};
    l->args[2] = (struct kl_arg){KL_ARG_BUF, {.buf = pad_a ? s->dAp : s->dA}};
    l->args[3] = (struct kl_arg){KL_ARG_BUF, {.buf = pad_b ? s->dBp : s->dB}};
    /* the residual's buffer, or any (unwritten) where resid is 0 */
    l->args[4] = (struct kl_arg){KL_ARG_BUF, {.buf = resid ? s->dAr : s->dA}};
    l->args[5] = (struct kl_arg){KL_ARG_INT, {.i = s->M}};
    l->args[6] = (struct kl_arg){KL_ARG_INT, {.i = s->N}};
    l->args[7] = (struct kl_arg){KL_ARG_INT, {.i = s->K}};
    l->args[8] = (struct kl_arg){KL_ARG_INT, {.i = lda}};
    l->args[9] = (struct kl_arg){KL_ARG_INT, {.i = ldb}};
    l->args[10] = (struct kl_arg){KL_ARG_INT, {.i = resid}};
    return KL_OK;
}

/* Builds rung r with these values (cached on kl) into l; checks the compiled kernel's limits. */
static enum kl_status build_rung(struct kl_context *kl, const struct kl_gemm_rung *r,
                                 const int *values, enum kl_type type, struct kl_launch *l,
                                 struct kl_timing *t)
{
    enum kl_status st;
    kl_params_options(r->params, values, type, t->options, sizeof t->options);
    if ((st = kl_kernel_get(kl, r->file, "gemm", t->options, &l->kernel, &t->build_s)) != KL_OK)
        return st;
    return kl_launch_check(l, r->name, &kl->err);
}

/*
 * A tensor map of a rows x cols floats in rows of pitch floats (NULL: none),
 * copied in boxes of box_rows rows by 32 floats, rounded to TF32 if tf32.
 */
static struct kl_arg map_arg(struct kl_buf *buf, int rows, int cols, int pitch, unsigned box_rows,
                             int tf32)
{
    return (struct kl_arg){
        KL_ARG_TENSOR_MAP,
        {.map = {buf, (uint64_t)rows, (uint64_t)cols, (uint64_t)pitch * 4, box_rows, 32, tf32}}};
}

/* The matrices a device rung reads and writes, as its launch passes them. */
struct rung_bufs {
    struct kl_buf *A, *B, *C;
    struct kl_buf *R; /* A's residual for Hopper's 3xTF32 rung (NULL: it splits A itself) */
    int lda, ldb;     /* A's and B's row pitches */
};

/*
 * A device rung's arguments into l (after l->nargs = 0): A, B in the layout
 * the rung reads (ldb its row pitch, for b_pitch rungs), C, M, N, K, then
 * for Hopper's rungs whether the copies are TMA's and A's, B's and A's
 * residual's tensor maps (lda, ldb their row pitches), then the dynamic
 * shared memory of a CUDA C++ rung.
 */
static void rung_args(const struct kl_gemm_rung *r, const int *values, enum kl_type type, int M,
                      int N, int K, const struct rung_bufs *m, struct kl_launch *l)
{
    int lda = m->lda, ldb = m->ldb;
    l->nargs = 6;
    l->args[0] = (struct kl_arg){KL_ARG_BUF, {.buf = m->A}};
    l->args[1] = (struct kl_arg){KL_ARG_BUF, {.buf = m->B}};
    l->args[2] = (struct kl_arg){KL_ARG_BUF, {.buf = m->C}};
    l->args[3] = (struct kl_arg){KL_ARG_INT, {.i = M}};
    l->args[4] = (struct kl_arg){KL_ARG_INT, {.i = N}};
    l->args[5] = (struct kl_arg){KL_ARG_INT, {.i = K}};
    if (r->b_pitch)
        l->args[l->nargs++] = (struct kl_arg){KL_ARG_INT, {.i = ldb}};
    if (r->hopper) {
        /*
         * TMA reads rows that start 16-byte aligned; else the kernel copies by cp.async.
         * A's box is the block's share of a slice (a cluster's blocks multicast theirs).
         * TF32 rungs have the copies round to TF32; 3xTF32 has A's copies round A and
         * its residual into the split's two parts where the residual is given, and splits
         * A itself otherwise; it splits B in registers, from B's every bit.
         */
        int tma = lda % 4 == 0 && ldb % 4 == 0, tf32 = r->precision == KL_PREC_TF32;
        int resid = tma && m->R, tf32_a = tf32 || resid;
        unsigned cluster = (unsigned)kl_param_value(r->params, values, "CLUSTER");
        unsigned box = (unsigned)kl_param_value(r->params, values, "BM") / (cluster ? cluster : 1);
        l->args[l->nargs++] = (struct kl_arg){KL_ARG_INT, {.i = tma ? 1 + resid : 0}};
        l->args[l->nargs++] = map_arg(tma ? m->A : NULL, M, K, lda, box, tf32_a);
        l->args[l->nargs++] = map_arg(tma ? m->B : NULL, K, N, ldb, 32, tf32);
        l->args[l->nargs++] = map_arg(resid ? m->R : NULL, M, K, lda, box, 1);
    }
    if (kl_kernel_is_cuda(r->file) && r->local != KL_LOCAL_NONE)
        l->args[l->nargs++] = (struct kl_arg){
            KL_ARG_LOCAL, {.local_bytes = local_bytes(r, values, kl_type_size(type))}};
}

/* Checks a device rung's limits, makes its buffers, builds it (cached) and describes its launches.
 */
static enum kl_status prepare_launch(struct gemm_session *s, const struct kl_gemm_rung *r,
                                     const int *values, struct kl_timing *t, struct rung_launch *rl)
{
    struct kl_context *kl = s->kl;
    struct kl_launch *l = &rl->gemm;
    enum kl_status st;
    double pack_build_s = 0;
    int lda, ldb, packed = rung_pitches(s, r, &lda, &ldb);
    *l = (struct kl_launch){.kl = kl};
    rl->pair = (struct kl_launch_pair){packed ? &rl->pack : l, packed ? l : NULL};
    shape_of(r, values, s->M, s->N, l);
    if ((st = check_rung(kl, r, values, s->type, l, &kl->err)) != KL_OK ||
        (st = session_device(s, r->b_col_major)) != KL_OK ||
        (st = build_rung(kl, r, values, s->type, l, t)) != KL_OK)
        return st;
    if (packed && (st = r->hopper ? prepare_pad(s, r, lda, ldb, &rl->pack, &pack_build_s)
                                  : prepare_pack(s, r, ldb, &rl->pack, &pack_build_s)) != KL_OK)
        return st;
    t->build_s += pack_build_s;
    struct kl_buf *A = lda != s->K ? s->dAp : s->dA, *R = reads_residual(s, r) ? s->dAr : NULL;
    struct kl_buf *B = r->b_col_major ? s->dBt : ldb != s->N ? s->dBp : s->dB;
    const struct rung_bufs m = {A, B, s->dC, R, lda, ldb};
    rung_args(r, values, s->type, s->M, s->N, s->K, &m, l);
    return KL_OK;
}

/*
 * Uploads the inputs, launches once on a poisoned C (*first_s: its event
 * time), reads C back into C and checks that nothing was written past it.
 */
static enum kl_status verified_run(struct gemm_session *s, struct kl_launch_pair *l, int b_col,
                                   void *C, double *first_s)
{
    struct kl_context *kl = s->kl;
    size_t es = kl_type_size(s->type), cbytes = (size_t)s->M * s->N * es;
    enum kl_status st;
    if ((st = upload_inputs(s, b_col)) != KL_OK ||
        (st = kl->ops->write(kl->dev, s->dC, s->poison, cbytes + GUARD * es, &kl->err)) != KL_OK ||
        (st = kl_launch_pair_timed(l, first_s, &kl->err)) != KL_OK ||
        (st = kl->ops->read(kl->dev, s->dC, s->out, cbytes + GUARD * es, &kl->err)) != KL_OK)
        return st;
    /* Past the end of C the poison must still be there. */
    if (memcmp((char *)s->out + cbytes, (char *)s->poison + cbytes, GUARD * es) != 0)
        return kl_fail(&kl->err, KL_ERR_VERIFY,
                       "the kernel wrote past the end of C (into the %d guard elements "
                       "after its M×N)",
                       GUARD);
    memcpy(C, s->out, cbytes);
    return KL_OK;
}

/*
 * A prepared device launch: run once on a poisoned C, read into C and
 * checked for writes past it, then timed by the protocol and end to end
 * into t (its build time and options left as they are).
 */
static enum kl_status time_launch(struct gemm_session *s, struct kl_launch_pair *l, int b_col,
                                  const struct kl_protocol *proto, void *C, struct kl_timing *t)
{
    struct kl_stats stats;
    enum kl_status st;
    double dummy;
    if ((st = session_device(s, b_col)) != KL_OK ||
        (st = verified_run(s, l, b_col, C, &dummy)) != KL_OK ||
        /* The timed launches overwrite C with the same values; the verified copy is C. */
        (st = kl_measure(s->kl, proto, kl_launch_pair_timed, l, &stats, &s->kl->err)) != KL_OK ||
        (st = end_to_end(s, l, b_col, s->out, &t->total_s)) != KL_OK)
        return st;
    t->median_s = stats.median;
    t->min_s = stats.min;
    t->max_s = stats.max;
    t->repeats = stats.n;
    return KL_OK;
}

/*
 * Runs one rung: checks limits, builds (cached), runs once on a poisoned C
 * and reads the result into C, then times it by the protocol.
 */
static enum kl_status run_rung(struct gemm_session *s, const struct kl_gemm_rung *r,
                               const int *values, const struct kl_protocol *proto, void *C,
                               struct kl_timing *t)
{
    struct kl_context *kl = s->kl;
    struct kl_stats stats;
    enum kl_status st;
    memset(t, 0, sizeof *t);

    if (r->geometry == KL_GEO_HOST) {
        struct host_launch h = {r, s, C};
        double dummy;
        if ((st = host_once(&h, &dummy, &kl->err)) != KL_OK ||
            (st = kl_measure(NULL, proto, host_once, &h, &stats, &kl->err)) != KL_OK)
            return st;
        snprintf(t->options, sizeof t->options, "host, one thread");
        t->median_s = stats.median;
        t->min_s = stats.min;
        t->max_s = stats.max;
        t->repeats = stats.n;
        return KL_OK;
    }
    struct rung_launch rl;
    return (st = prepare_launch(s, r, values, t, &rl)) != KL_OK
               ? st
               : time_launch(s, &rl.pair, r->b_col_major, proto, C, t);
}

/*
 * A request every rung can take: a known type the device has, sizes >= 1,
 * within the kernels' 32-bit indexing and the device's allocation limits.
 * Checked before any host memory is touched, so an impossible request fails
 * at once with the reason.
 */
static enum kl_status check_request(const struct kl_context *kl, enum kl_type t, int M, int N,
                                    int K, struct kl_err *e)
{
    static const char *const names[] = {"A (M×K)", "B (K×N)", "C (M×N)"};
    if (t != KL_FLOAT && t != KL_DOUBLE && t != KL_INT)
        return kl_fail(e, KL_ERR_ARG, "unknown element type %d", (int)t);
    if (t == KL_DOUBLE && !kl->info.fp64)
        return kl_fail(e, KL_ERR_UNSUPPORTED,
                       "device %s has no double precision (cl_khr_fp64); use --type float",
                       kl->info.name);
    if (M < 1 || N < 1 || K < 1)
        return kl_fail(e, KL_ERR_ARG, "sizes must be >= 1 (got M=%d N=%d K=%d)", M, N, K);
    uint64_t elems[3] = {(uint64_t)M * K, (uint64_t)K * N, (uint64_t)M * N + GUARD};
    uint64_t total = 0, es = kl_type_size(t);
    for (int i = 0; i < 3; i++) {
        if (elems[i] > INT32_MAX) {
            /* C's own elements; the guard band after it (checked for stray writes) apart. */
            uint64_t own = i == 2 ? elems[i] - GUARD : elems[i];
            return kl_fail(e, KL_ERR_ARG,
                           "M=%d N=%d K=%d: %s would have %llu elements%s, beyond the kernels' "
                           "32-bit indexing (2^31-1)",
                           M, N, K, names[i], (unsigned long long)own,
                           own <= INT32_MAX ? " and the guard band after it" : "");
        }
        if (elems[i] * es > kl->info.max_alloc)
            return kl_fail(e, KL_ERR_NO_MEMORY,
                           "%s needs %.1f MiB, more than the device's largest allocation "
                           "(%.1f MiB, CL_DEVICE_MAX_MEM_ALLOC_SIZE); use smaller sizes",
                           names[i], elems[i] * es / 1048576.0, kl->info.max_alloc / 1048576.0);
        total += elems[i] * es;
    }
    total += elems[1] * es; /* B may be kept in both layouts */
    return kl_device_fits(kl, (double)total, "the matrices (A, B in both layouts, C)", e);
}

int kl_gemm_request_chooses(const struct kl_gemm_request *req, const struct kl_gemm_rung *r)
{
    if (req->nrungs == 0)
        return !(req->host_rungs < 0 && r->geometry == KL_GEO_HOST);
    for (int j = 0; j < req->nrungs; j++)
        if (kl_gemm_rung_find(req->rungs[j]) == r)
            return 1;
    return 0;
}

/* A rung's parameter values: defaults, the user's items, then the constraints between them. */
static enum kl_status resolve(const struct kl_gemm_rung *r, const char *const *items, int nitems,
                              int *values, unsigned *mask, struct kl_err *e)
{
    enum kl_status st = kl_params_resolve(r->name, r->params, items, nitems, values, mask, e);
    return st != KL_OK ? st
                       : kl_params_check_multiples(r->name, r->params, values, r->multiples, e);
}

const struct kl_gemm_preset *kl_gemm_preset_find(const struct kl_gemm_rung *r,
                                                 const struct kl_device_info *dev, enum kl_type t,
                                                 int M, int N, int K)
{
    int cc = dev->cc_major * 10 + dev->cc_minor, cls = kl_tune_size_class(M, N, K);
    for (int i = 0; i < KL_MAX_PRESETS && r->presets[i].cc; i++)
        if (r->presets[i].cc == cc && r->presets[i].type == t && cls <= r->presets[i].max_class &&
            (!r->presets[i].max_m || M <= r->presets[i].max_m))
            return &r->presets[i];
    return NULL;
}

/* "WHAT NAME=V NAME=V" into config (n bytes). */
static void describe(char *config, size_t n, const char *what, const char *const *items, int nitems)
{
    size_t used = (size_t)snprintf(config, n, "%s", what);
    for (int j = 0; j < nitems && used < n; j++)
        used += (size_t)snprintf(config + used, n - used, " %s", items[j]);
}

/*
 * A rung's values in a ladder: --param when it sets one of the rung's own;
 * else its tuned parameters (req->tuned); else its preset for this device
 * and size; else its defaults. Tuned and preset values, like defaults,
 * leave *mask empty (a misfit makes the rung skipped). config (n bytes)
 * gets where tuned or preset values came from and what they are, or "".
 */
static enum kl_status resolve_request(const struct kl_gemm_request *req,
                                      const struct kl_device_info *dev,
                                      const struct kl_gemm_rung *r, int *values, unsigned *mask,
                                      char *config, size_t n, struct kl_err *e)
{
    const struct kl_gemm_rung_params *tuned = NULL;
    const struct kl_gemm_preset *preset;
    const char *items[KL_MAX_PARAMS];
    char buf[512];
    int nitems;
    enum kl_status st;
    config[0] = '\0';
    if (kl_params_mention(req->params, req->nparams, r->params))
        return resolve(r, req->params, req->nparams, values, mask, e);
    for (int i = 0; i < req->ntuned && !tuned; i++)
        if (strcmp(req->tuned[i].rung, r->name) == 0)
            tuned = &req->tuned[i];
    if (tuned) {
        st = resolve(r, tuned->items, tuned->nitems, values, mask, e);
        describe(config, n, "tuned", tuned->items, tuned->nitems);
    } else if (!req->no_presets &&
               (preset = kl_gemm_preset_find(r, dev, req->type, req->M, req->N, req->K))) {
        if ((nitems = kl_tuned_items(preset->params, buf, sizeof buf, items, KL_MAX_PARAMS)) < 1)
            return kl_fail(e, KL_ERR_ARG, "rung %s: malformed preset \"%s\"", r->name,
                           preset->params);
        st = resolve(r, items, nitems, values, mask, e);
        char what[32];
        snprintf(what, sizeof what, "preset sm_%d", preset->cc);
        describe(config, n, what, items, nitems);
    } else {
        return resolve(r, req->params, req->nparams, values, mask, e);
    }
    *mask = 0;
    return st;
}

enum kl_status kl_gemm(struct kl_context *kl, const char *rung, enum kl_type type, int M, int N,
                       int K, const void *A, const void *B, void *C, const struct kl_params *params,
                       const struct kl_protocol *protocol, struct kl_timing *timing)
{
    struct kl_protocol proto;
    struct kl_timing local_timing;
    struct gemm_session s;
    int values[KL_MAX_PARAMS];
    unsigned mask;
    enum kl_status st;
    const struct kl_gemm_rung *r;

    if (!kl || !rung || !A || !B || !C || (params && params->count > 0 && !params->items))
        return kl ? kl_fail(&kl->err, KL_ERR_ARG, "kl_gemm: NULL argument") : KL_ERR_ARG;
    if ((st = check_request(kl, type, M, N, K, &kl->err)) != KL_OK)
        return st;
    if (!(r = kl_gemm_rung_find(rung)))
        return kl_gemm_rung_not_found(rung, "GEMM rung", &kl->err);
    const char *const *items = params ? params->items : NULL;
    int nitems = params ? params->count : 0;
    const struct kl_param_def *list = r->params;
    if ((st = kl_params_check_known(items, nitems, &list, 1, &kl->err)) != KL_OK ||
        (st = resolve(r, items, nitems, values, &mask, &kl->err)) != KL_OK)
        return st;
    if (protocol)
        proto = *protocol;
    else
        kl_protocol_default(&proto);
    session_init(&s, kl, type, M, N, K, A, B);
    st = run_rung(&s, r, values, &proto, C, timing ? timing : &local_timing);
    session_free(&s);
    return st;
}

/* ---- reference and the ladder driver --------------------------------------- */

/*
 * The reference: exact products summed in double, and for each checked
 * element the sum of |a·b| that scales its tolerance. Full when affordable
 * (OpenBLAS, or a host loop up to ~1e9 multiply-adds), else on a random
 * sample of elements; either way every device rung is also compared in
 * full with the first device rung.
 */
struct gemm_ref {
    size_t n;    /* elements checked */
    size_t *idx; /* their indices in C; NULL: all, in order */
    double *ref, *scale;
    double max_scale;
    char how[128];
};

static void ref_free(struct gemm_ref *g)
{
    free(g->idx);
    free(g->ref);
    free(g->scale);
}

static void ref_element(const struct gemm_session *s, size_t i, size_t j, double *ref,
                        double *scale)
{
    double sum = 0.0, mag = 0.0;
    for (size_t k = 0; k < (size_t)s->K; k++) {
        double p = kl_get(s->type, s->A, i * s->K + k) * kl_get(s->type, s->B, k * s->N + j);
        sum += p;
        mag += fabs(p);
    }
    *ref = sum;
    *scale = mag;
}

#define FULL_HOST_LIMIT 1.1e9 /* multiply-adds a host reference loop may take */
#define SAMPLES 4096

/* Every element of C and its scale: by the BLAS found (blas != NULL) or a host loop. */
static enum kl_status reference_full(const struct gemm_session *s, const char *blas,
                                     struct gemm_ref *g, struct kl_err *e)
{
    size_t M = (size_t)s->M, N = (size_t)s->N, K = (size_t)s->K;
    double *a = malloc(M * K * sizeof *a), *b = malloc(K * N * sizeof *b);
    g->n = M * N;
    g->ref = calloc(M * N, sizeof *g->ref);
    g->scale = calloc(M * N, sizeof *g->scale);
    if (!a || !b || !g->ref || !g->scale) {
        free(a);
        free(b);
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory for the reference");
    }
    for (size_t x = 0; x < M * K; x++)
        a[x] = kl_get(s->type, s->A, x);
    for (size_t x = 0; x < K * N; x++)
        b[x] = kl_get(s->type, s->B, x);
    if (blas) {
        kl_blas_dgemm(s->M, s->N, s->K, a, b, g->ref);
        for (size_t x = 0; x < M * K; x++)
            a[x] = fabs(a[x]);
        for (size_t x = 0; x < K * N; x++)
            b[x] = fabs(b[x]);
        kl_blas_dgemm(s->M, s->N, s->K, a, b, g->scale);
        snprintf(g->how, sizeof g->how, "all elements, %s %s dgemm",
                 s->type == KL_INT ? "exact integer sums by" : "double,", blas);
    } else {
        for (size_t i = 0; i < M; i++)
            for (size_t k = 0; k < K; k++) {
                double av = a[i * K + k], aa = fabs(av);
                for (size_t j = 0; j < N; j++) {
                    g->ref[i * N + j] += av * b[k * N + j];
                    g->scale[i * N + j] += aa * fabs(b[k * N + j]);
                }
            }
        snprintf(g->how, sizeof g->how, "all elements, %s on the host",
                 s->type == KL_INT ? "exact integer sums" : "double accumulation");
    }
    free(a);
    free(b);
    return KL_OK;
}

/* SAMPLES elements (the four corners first: edges are where guards go wrong) in double. */
static enum kl_status reference_sampled(const struct gemm_session *s, unsigned long long seed,
                                        struct gemm_ref *g, struct kl_err *e)
{
    size_t M = (size_t)s->M, N = (size_t)s->N, MN = M * N, n = MN < SAMPLES ? MN : SAMPLES;
    struct kl_rng rng;
    kl_rng_seed(&rng, seed ^ 0x5eedULL);
    g->n = n;
    g->idx = malloc(n * sizeof *g->idx);
    g->ref = malloc(n * sizeof *g->ref);
    g->scale = malloc(n * sizeof *g->scale);
    if (!g->idx || !g->ref || !g->scale)
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory for the reference");
    for (size_t x = 0; x < n; x++) {
        size_t corner[4] = {0, N - 1, (M - 1) * N, MN - 1};
        g->idx[x] = x < 4 ? corner[x] : (size_t)(kl_rng_next(&rng) % MN);
        ref_element(s, g->idx[x] / N, g->idx[x] % N, &g->ref[x], &g->scale[x]);
    }
    snprintf(g->how, sizeof g->how,
             "%zu sampled elements in double on the host (no BLAS found for the full product)", n);
    return KL_OK;
}

/* The fast path guarded: 64 elements of the BLAS reference against direct double sums. */
static enum kl_status blas_spot_check(const struct gemm_session *s, unsigned long long seed,
                                      const char *blas, const struct gemm_ref *g, struct kl_err *e)
{
    size_t N = (size_t)s->N, MN = (size_t)s->M * N;
    struct kl_rng rng;
    kl_rng_seed(&rng, seed ^ 0xb1a5ULL);
    for (int x = 0; x < 64; x++) {
        size_t at = (size_t)(kl_rng_next(&rng) % MN);
        double want, mag;
        ref_element(s, at / N, at % N, &want, &mag);
        if (!(fabs(want - g->ref[at]) <= 1e-12 * mag + 1e-300))
            return kl_fail(e, KL_ERR_VERIFY,
                           "the BLAS reference (%s) disagrees with a direct double sum at "
                           "element %zu: %.17g vs %.17g",
                           blas, at, g->ref[at], want);
    }
    return KL_OK;
}

/*
 * The reference of C: every element where a BLAS is found (integer inputs
 * are small, |x| <= 8, so double sums of them are exact) or the product is
 * small enough for a host loop, else a sample of elements.
 */
static enum kl_status reference(const struct gemm_session *s, unsigned long long seed,
                                struct gemm_ref *g, struct kl_err *e)
{
    double work = (double)s->M * s->N * s->K;
    const char *blas = NULL;
    int use_blas = kl_blas_available(&blas);
    enum kl_status st;
    memset(g, 0, sizeof *g);
    if (use_blas || work <= FULL_HOST_LIMIT)
        st = reference_full(s, use_blas ? blas : NULL, g, e);
    else
        st = reference_sampled(s, seed, g, e);
    if (st != KL_OK)
        return st;
    for (size_t x = 0; x < g->n; x++)
        if (g->scale[x] > g->max_scale)
            g->max_scale = g->scale[x];
    return use_blas ? blas_spot_check(s, seed, blas, g, e) : KL_OK;
}

static void describe_failure(const struct kl_check *c, size_t N, const char *against, char *note,
                             size_t n)
{
    snprintf(note, n,
             "%zu of %zu elements differ from %s; worst at row %zu col %zu: got %.9g, want "
             "%.9g (%s)",
             c->bad, c->checked, against, c->worst / N, c->worst % N, c->worst_got, c->worst_want,
             isinf(c->worst_ratio) ? "not a finite match" : "beyond tolerance");
}

/* Host rungs run only when one loop takes no more than a few seconds. */
#define HOST_AUTO_LIMIT 1.5e8 /* multiply-adds */

/* The first verified device result, which every later one must also match. */
struct gemm_baseline {
    const void *C;               /* NULL: none yet */
    const char *name;            /* for messages */
    enum kl_precision precision; /* whose tolerance it met */
};

/*
 * Verifies C of one rung or peer (res->precision says its arithmetic)
 * against the reference with the tolerance of that precision, and in full
 * against the baseline with the two tolerances added (both carry rounding
 * error); records the result and its normwise error.
 */
static void judge(const struct gemm_session *s, const struct gemm_ref *g, const void *C,
                  const struct gemm_baseline *baseline, struct kl_result *res)
{
    struct kl_check c;
    size_t MN = (size_t)s->M * s->N;
    double factor = kl_gemm_tolerance(res->precision, s->type, s->K);
    /* int compares exactly; its scales only measure the (zero) error. */
    kl_check(s->type, C, g->ref, g->scale, g->idx, g->n, factor, &c);
    res->error = c.max_error;
    if (c.bad) {
        res->status = KL_RESULT_FAILED;
        describe_failure(&c, (size_t)s->N, "the reference", res->note, sizeof res->note);
        return;
    }
    int len = snprintf(res->note, sizeof res->note,
                       "%zu elements match the reference (worst "
                       "%.2g of tolerance)",
                       c.checked, c.worst_ratio);
    if (!baseline || !baseline->C || len < 0)
        return;
    /* Every element against the first device rung. */
    double *base = malloc(MN * sizeof *base), *scale = malloc(MN * sizeof *scale);
    if (!base || !scale) {
        res->status = KL_RESULT_FAILED;
        snprintf(res->note, sizeof res->note, "out of host memory comparing with %s",
                 baseline->name);
    } else {
        for (size_t x = 0; x < MN; x++) {
            base[x] = kl_get(s->type, baseline->C, x);
            scale[x] = g->idx ? g->max_scale : g->scale[x];
        }
        kl_check(s->type, C, base, s->type == KL_INT ? NULL : scale, NULL, MN,
                 factor + kl_gemm_tolerance(baseline->precision, s->type, s->K), &c);
        if (c.bad) {
            res->status = KL_RESULT_FAILED;
            describe_failure(&c, (size_t)s->N, baseline->name, res->note, sizeof res->note);
        } else if ((size_t)len < sizeof res->note) {
            snprintf(res->note + len, sizeof res->note - (size_t)len, "; all %zu agree with %s", MN,
                     baseline->name);
        }
    }
    free(base);
    free(scale);
}

/*
 * A vendor library on the same data: a row of its own, verified against the
 * same reference with the tolerance of its precision.
 */
static enum kl_status run_peer(struct gemm_session *s, const struct gemm_ref *g, const char *peer,
                               const struct kl_protocol *proto, void *C, struct kl_report *rep)
{
    char name[64], what[256] = "";
    struct kl_stats stats;
    struct kl_err e;
    int on_host = 0;
    snprintf(name, sizeof name, "peer:%s", peer);
    struct kl_result *res = kl_report_add(rep, name, NULL);
    if (!res)
        return kl_fail(&s->kl->err, KL_ERR_NO_MEMORY, "out of host memory");
    res->peer = 1;
    res->on_host = strcmp(peer, "openblas") == 0;
    res->precision = kl_peer_gemm_precision(peer, s->type);
    struct kl_gemm_problem p = {s->type, s->M, s->N, s->K, s->A, s->B, 0};
    kl_measure_forget();
    enum kl_status st =
        kl_peer_gemm(s->kl, peer, &p, proto, C, &stats, what, sizeof what, &on_host, &e);
    res->on_host |= on_host;
    if (!kl_peer_row(res, st, &e, what))
        return KL_OK;
    judge(s, g, C, NULL, res);
    if (res->status == KL_RESULT_VERIFIED) {
        kl_result_set_stats(res, &stats);
        kl_result_keep_measured(res);
    }
    return KL_OK;
}

/*
 * The peer rows a request asks for, in order: "cublas" is two rows for
 * float, SGEMM (fp32) and cublas_tf32 (TF32), unless cublas_tf32 is named
 * on its own. out has room for 2 · req->npeers names; returns the count.
 */
static int peer_rows(const struct kl_gemm_request *req, const char **out)
{
    int n = 0, tf32_named = 0;
    for (int j = 0; j < req->npeers; j++)
        tf32_named |= strcmp(req->peers[j], "cublas_tf32") == 0;
    for (int j = 0; j < req->npeers; j++) {
        out[n++] = req->peers[j];
        if (strcmp(req->peers[j], "cublas") == 0 && req->type == KL_FLOAT && !tf32_named)
            out[n++] = "cublas_tf32";
    }
    return n;
}

/* A ladder's state: what the engine's callbacks share. */
struct gemm_ladder {
    const struct kl_gemm_request *req;
    struct gemm_session s;
    struct gemm_ref g;
    void *C; /* the current rung's result */
    struct gemm_baseline baseline;
};

static int gemm_listed(void *self, int i)
{
    const struct gemm_ladder *L = self;
    return kl_gemm_request_chooses(L->req, &rungs[i]);
}

static void gemm_describe(void *self, int i, struct kl_result *res)
{
    const struct gemm_ladder *L = self;
    res->on_host = rungs[i].geometry == KL_GEO_HOST;
    res->precision = kl_gemm_rung_precision(&rungs[i], L->req->type);
}

/* Rungs the device lacks; host rungs that would take seconds, unless asked for. */
static int gemm_available(void *self, int i, char *why, size_t n)
{
    const struct gemm_ladder *L = self;
    const struct kl_gemm_request *req = L->req;
    double macs = (double)req->M * req->N * req->K;
    if (!kl_gemm_rung_available(L->s.kl, &rungs[i], req->type, why, n))
        return 0;
    if (rungs[i].geometry == KL_GEO_HOST && req->host_rungs == 0 && req->nrungs == 0 &&
        macs > HOST_AUTO_LIMIT) {
        snprintf(why, n,
                 "%.3g multiply-adds would take seconds per loop order on one core; "
                 "--host-rungs runs them",
                 macs);
        return 0;
    }
    return 1;
}

static enum kl_status gemm_values(void *self, int i, const struct kl_ladder_args *a, int *values,
                                  int *users, char *config, size_t n, struct kl_err *e)
{
    const struct gemm_ladder *L = self;
    unsigned mask;
    (void)a;
    enum kl_status st =
        resolve_request(L->req, &L->s.kl->info, &rungs[i], values, &mask, config, n, e);
    *users = mask != 0;
    return st;
}

/* Rung i's product kernel with these values, and the copy before it where B or A needs one. */
static int gemm_kernels(void *self, int i, const int *values, struct kl_kernel_want *want, int max)
{
    const struct gemm_ladder *L = self;
    const struct kl_gemm_rung *r = &rungs[i];
    int lda, ldb, n = 0;
    if (r->geometry == KL_GEO_HOST || max < 2)
        return 0;
    want[n] = (struct kl_kernel_want){r->file, "gemm", ""};
    kl_params_options(r->params, values, L->s.type, want[n].options, sizeof want[n].options);
    n++;
    if (rung_pitches(&L->s, r, &lda, &ldb)) {
        want[n] = (struct kl_kernel_want){r->file, r->hopper ? "pad" : "pack_b", ""};
        copy_options(L->s.type, want[n].options, sizeof want[n].options);
        n++;
    }
    return n;
}

static enum kl_status gemm_check(void *self, int i, const int *values, struct kl_err *e)
{
    const struct gemm_ladder *L = self;
    struct kl_launch l = {.kl = L->s.kl};
    if (rungs[i].geometry == KL_GEO_HOST)
        return KL_OK;
    shape_of(&rungs[i], values, L->req->M, L->req->N, &l);
    return check_rung(L->s.kl, &rungs[i], values, L->req->type, &l, e);
}

/*
 * A run's times into res, then its verdict: against the reference, and
 * every device result against the first verified one, which becomes the
 * baseline (C is then kept and a new one made).
 */
static enum kl_status record(struct gemm_ladder *L, const char *name, const struct kl_timing *t,
                             struct kl_result *res)
{
    res->build_s = t->build_s;
    res->median_s = t->median_s;
    res->min_s = t->min_s;
    res->max_s = t->max_s;
    res->total_s = t->total_s;
    res->repeats = t->repeats;
    snprintf(res->options, sizeof res->options, "%s", t->options);
    res->status = KL_RESULT_VERIFIED;
    judge(&L->s, &L->g, L->C, res->on_host ? NULL : &L->baseline, res);
    if (!res->on_host && !L->baseline.C && res->status == KL_RESULT_VERIFIED) {
        L->baseline = (struct gemm_baseline){L->C, name, res->precision};
        L->C = malloc((size_t)L->s.M * L->s.N * kl_type_size(L->s.type));
        if (!L->C)
            return kl_fail(&L->s.kl->err, KL_ERR_NO_MEMORY, "out of host memory");
    }
    return KL_OK;
}

static enum kl_status gemm_run(void *self, int i, const int *values,
                               const struct kl_protocol *proto, struct kl_result *res)
{
    struct gemm_ladder *L = self;
    struct kl_timing t;
    enum kl_status st = run_rung(&L->s, &rungs[i], values, proto, L->C, &t);
    return st != KL_OK ? st : record(L, rungs[i].name, &t, res);
}

/* ---- the user's kernels: gemm(A, B, C, M, N, K), all row-major ------------ */

static long long gemm_size(void *self, int i)
{
    const struct gemm_ladder *L = self;
    return i == 0 ? L->s.M : i == 1 ? L->s.N : L->s.K;
}

static void user_args(void *self, const struct kl_user_rung *u, struct kl_launch *l)
{
    struct gemm_ladder *L = self;
    (void)u;
    l->nargs = 6;
    l->args[0] = (struct kl_arg){KL_ARG_BUF, {.buf = L->s.dA}};
    l->args[1] = (struct kl_arg){KL_ARG_BUF, {.buf = L->s.dB}};
    l->args[2] = (struct kl_arg){KL_ARG_BUF, {.buf = L->s.dC}};
    l->args[3] = (struct kl_arg){KL_ARG_INT, {.i = L->s.M}};
    l->args[4] = (struct kl_arg){KL_ARG_INT, {.i = L->s.N}};
    l->args[5] = (struct kl_arg){KL_ARG_INT, {.i = L->s.K}};
}

static enum kl_status user_run(void *self, struct kl_launch *l, const struct kl_protocol *proto,
                               struct kl_result *res)
{
    struct gemm_ladder *L = self;
    struct kl_launch_pair pair = {l, NULL};
    struct kl_timing t = {.build_s = res->build_s};
    res->precision = kl_precision_of_type(L->s.type); /* the type's own arithmetic */
    snprintf(t.options, sizeof t.options, "%s", res->options);
    enum kl_status st = time_launch(&L->s, &pair, 0, proto, L->C, &t);
    return st != KL_OK ? st : record(L, res->rung, &t, res);
}

static const struct kl_user_iface user_iface = {
    .signature = "gemm(global const T *A, global const T *B, global T *C, int M, int N, int K)",
    .nsizes = 3,
    .size_names = {"M", "N", "K"},
    .size = gemm_size,
    .args = user_args,
    .run = user_run,
};

enum kl_status kl_gemm_ladder(struct kl_context *kl, const struct kl_gemm_request *req,
                              struct kl_report *rep)
{
    struct gemm_ladder L = {.req = req};
    struct kl_workload w = {.table = &table,
                            .kl = kl,
                            .type = req->type,
                            .self = &L,
                            .available = gemm_available,
                            .listed = gemm_listed,
                            .describe = gemm_describe,
                            .values = gemm_values,
                            .check = gemm_check,
                            .kernels = gemm_kernels,
                            .run = gemm_run,
                            .user = &user_iface};
    struct kl_ladder_args a = KL_LADDER_ARGS(req);
    int chosen[KL_MAX_RUNGS], nchosen;
    enum kl_status st;
    struct kl_err *e = &kl->err;
    size_t es = kl_type_size(req->type);
    size_t M = (size_t)req->M, N = (size_t)req->N, K = (size_t)req->K;

    if ((st = check_request(kl, req->type, req->M, req->N, req->K, e)) != KL_OK ||
        (st = kl_protocol_check(&req->protocol, e)) != KL_OK)
        return st;
    if ((st = kl_peers_check("gemm", req->peers, req->npeers, e)) != KL_OK)
        return st;
    session_init(&L.s, kl, req->type, req->M, req->N, req->K, NULL, NULL);
    if ((st = kl_ladder_begin(&w, &a, chosen, &nchosen, e)) != KL_OK)
        return st;

    /* Same random inputs for every rung. */
    struct kl_rng rng;
    void *A = malloc(M * K * es), *B = malloc(K * N * es);
    const char **peers = malloc((2 * (size_t)req->npeers + 1) * sizeof *peers);
    L.C = malloc(M * N * es);
    L.s.A = A, L.s.B = B;
    if (!A || !B || !L.C || !peers) {
        st = kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory for M=%zu N=%zu K=%zu", M, N, K);
        goto free_data;
    }
    kl_rng_seed(&rng, req->seed);
    kl_fill_uniform(req->type, A, M * K, &rng);
    kl_fill_uniform(req->type, B, K * N, &rng);
    if ((st = reference(&L.s, req->seed, &L.g, e)) != KL_OK ||
        (req->nusers && (st = session_device(&L.s, 0)) != KL_OK)) /* the user's arguments */
        goto free_data;

    kl_ladder_report(rep, kl, "gemm", req->type, req->seed, &req->protocol);
    snprintf(rep->sizes, sizeof rep->sizes, "M=%d N=%d K=%d", req->M, req->N, req->K);
    snprintf(rep->size_json, sizeof rep->size_json, "\"M\": %d, \"N\": %d, \"K\": %d", req->M,
             req->N, req->K);
    rep->flops = 2.0 * M * N * K;
    rep->bytes = (double)(M * K + K * N + M * N) * es;
    snprintf(rep->reference, sizeof rep->reference, "%s", L.g.how);

    int npeers = peer_rows(req, peers);
    if ((st = kl_ladder_rungs(&w, &a, chosen, nchosen, 0, nchosen + npeers, rep, e)) != KL_OK)
        goto free_data;
    for (int j = 0; j < npeers; j++) {
        kl_progress_step(nchosen + j, nchosen + npeers, "gemm peer %s", peers[j]);
        if ((st = run_peer(&L.s, &L.g, peers[j], &req->protocol, L.C, rep)) != KL_OK)
            goto free_data;
    }
free_data:
    kl_report_finish(rep);
    ref_free(&L.g);
    session_free(&L.s);
    free(A);
    free(B);
    free(L.C);
    free((void *)L.baseline.C);
    free(peers);
    return st;
}

/* ---- one problem, many candidates: the tuner's bench -------------------------- */

enum kl_status kl_gemm_check(struct kl_context *kl, const struct kl_gemm_rung *r,
                             const char *const *items, int nitems, enum kl_type t, int M, int N,
                             size_t *wg, struct kl_err *e)
{
    int values[KL_MAX_PARAMS];
    unsigned mask;
    struct kl_launch l = {.kl = kl};
    const struct kl_param_def *list = r->params;
    enum kl_status st;
    if (wg)
        *wg = 0;
    if ((st = kl_params_check_known(items, nitems, &list, 1, e)) != KL_OK ||
        (st = resolve(r, items, nitems, values, &mask, e)) != KL_OK || r->geometry == KL_GEO_HOST)
        return st;
    shape_of(r, values, M, N, &l);
    if (wg)
        *wg = l.local[0] * (l.dims > 1 ? l.local[1] : 1);
    return check_rung(kl, r, values, t, &l, e);
}

struct kl_gemm_bench {
    struct kl_context *kl;
    struct gemm_session s;
    struct gemm_ref g;
    void *A, *B, *C;
    struct gemm_baseline baseline; /* the first verified candidate */
    char baseline_name[600];
};

void kl_gemm_bench_close(struct kl_gemm_bench *b)
{
    if (!b)
        return;
    ref_free(&b->g);
    session_free(&b->s);
    free(b->A);
    free(b->B);
    free(b->C);
    free((void *)b->baseline.C);
    free(b);
}

enum kl_status kl_gemm_bench_open(struct kl_context *kl, enum kl_type t, int M, int N, int K,
                                  unsigned long long seed, struct kl_gemm_bench **out)
{
    struct kl_err *e = &kl->err;
    struct kl_rng rng;
    enum kl_status st;
    size_t es = kl_type_size(t);
    *out = NULL;
    if ((st = check_request(kl, t, M, N, K, e)) != KL_OK)
        return st;
    struct kl_gemm_bench *b = calloc(1, sizeof *b);
    if (!b)
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory");
    b->kl = kl;
    b->A = malloc((size_t)M * K * es);
    b->B = malloc((size_t)K * N * es);
    b->C = malloc((size_t)M * N * es);
    session_init(&b->s, kl, t, M, N, K, b->A, b->B);
    if (!b->A || !b->B || !b->C) {
        kl_gemm_bench_close(b);
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory for M=%d N=%d K=%d", M, N, K);
    }
    kl_rng_seed(&rng, seed);
    kl_fill_uniform(t, b->A, (size_t)M * K, &rng);
    kl_fill_uniform(t, b->B, (size_t)K * N, &rng);
    if ((st = reference(&b->s, seed, &b->g, e)) != KL_OK) {
        kl_gemm_bench_close(b);
        return st;
    }
    *out = b;
    return KL_OK;
}

const char *kl_gemm_bench_reference(const struct kl_gemm_bench *b)
{
    return b->g.how;
}

/* The protocol's launches of a candidate, abandoned when out of time or far too slow. */
struct bench_launch {
    struct kl_launch_pair *l;
    struct kl_run_limits *lim;
    int calls, warmup;
};

static enum kl_status bench_launch_timed(void *arg, double *seconds, struct kl_err *e)
{
    struct bench_launch *x = arg;
    if (x->lim && x->lim->deadline > 0 && kl_now() > x->lim->deadline) {
        x->lim->abandoned = 2;
        return kl_fail(e, KL_ERR_UNSUPPORTED, "abandoned: the time budget ran out");
    }
    enum kl_status st = kl_launch_pair_timed(x->l, seconds, e);
    if (st == KL_OK && ++x->calls == x->warmup + 1 && x->lim && x->lim->abandon_s > 0 &&
        *seconds > x->lim->abandon_s) {
        x->lim->abandoned = 1;
        return kl_fail(e, KL_ERR_UNSUPPORTED,
                       "abandoned after its first timed launch: %.4g ms, more than %.4g ms",
                       *seconds * 1e3, x->lim->abandon_s * 1e3);
    }
    return st;
}

enum kl_status kl_gemm_bench_run(struct kl_gemm_bench *b, const struct kl_gemm_rung *r,
                                 const char *const *items, int nitems,
                                 const struct kl_protocol *proto, struct kl_run_limits *limits,
                                 struct kl_result *res)
{
    struct kl_context *kl = b->kl;
    struct kl_err *e = &kl->err;
    struct kl_timing t;
    struct rung_launch rl;
    struct kl_stats stats;
    int values[KL_MAX_PARAMS];
    unsigned mask;
    double first = 0;
    const struct kl_param_def *list = r->params;
    enum kl_status st;

    memset(&t, 0, sizeof t);
    res->status = KL_RESULT_FAILED;
    res->note[0] = '\0';
    if (limits)
        limits->abandoned = 0;
    if (!r->file)
        return kl_fail(e, KL_ERR_ARG, "rung %s runs on the host; the bench times device rungs",
                       r->name);
    if ((st = kl_protocol_check(proto, e)) != KL_OK ||
        (st = kl_params_check_known(items, nitems, &list, 1, e)) != KL_OK ||
        (st = resolve(r, items, nitems, values, &mask, e)) != KL_OK ||
        (st = prepare_launch(&b->s, r, values, &t, &rl)) != KL_OK)
        return st;
    snprintf(res->options, sizeof res->options, "%s", t.options);
    res->build_s = t.build_s;
    if (limits && limits->deadline > 0 && kl_now() > limits->deadline) {
        limits->abandoned = 2;
        res->status = KL_RESULT_SKIPPED;
        snprintf(res->note, sizeof res->note, "abandoned: the time budget ran out after its build");
        return KL_OK;
    }
    /* Verified before it is timed: a wrong candidate never gets a speed. */
    st = verified_run(&b->s, &rl.pair, r->b_col_major, b->C, &first);
    if (st == KL_ERR_VERIFY) {
        snprintf(res->note, sizeof res->note, "%.500s", e->msg);
        return KL_OK;
    }
    if (st != KL_OK)
        return st;
    res->status = KL_RESULT_VERIFIED;
    res->precision = kl_gemm_rung_precision(r, b->s.type);
    judge(&b->s, &b->g, b->C, &b->baseline, res);
    if (res->status != KL_RESULT_VERIFIED)
        return KL_OK;
    if (!b->baseline.C) {
        void *next = malloc((size_t)b->s.M * b->s.N * kl_type_size(b->s.type));
        if (!next)
            return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory");
        snprintf(b->baseline_name, sizeof b->baseline_name,
                 "the first verified candidate (%s %.500s)", r->name, t.options);
        b->baseline = (struct gemm_baseline){b->C, b->baseline_name, res->precision};
        b->C = next;
    }
    struct bench_launch x = {&rl.pair, limits, 0, proto->warmup};
    st = kl_measure(b->s.kl, proto, bench_launch_timed, &x, &stats, e);
    if (st != KL_OK && limits && limits->abandoned) {
        res->status = KL_RESULT_SKIPPED;
        snprintf(res->note, sizeof res->note, "%.500s", e->msg);
        return KL_OK;
    }
    if (st != KL_OK) {
        res->status = KL_RESULT_FAILED;
        return st;
    }
    kl_result_set_stats(res, &stats);
    return KL_OK;
}

/* ---- pieces for products spread over several devices (multi/mgemm.c) ------- */

int kl_gemm_rung_on_buffers(const struct kl_gemm_rung *r, enum kl_type t, int N, char *why,
                            size_t n)
{
    int per16 = (int)(16 / kl_type_size(t));
    if (r->geometry == KL_GEO_HOST)
        snprintf(why, n, "rung %s runs on the host", r->name);
    else if (r->b_col_major)
        snprintf(why, n, "rung %s reads B column-major", r->name);
    else if (r->b_pitch && N % per16 != 0)
        snprintf(why, n,
                 "rung %s would first copy B into rows padded to 16 bytes (N=%d is not a "
                 "multiple of %d)",
                 r->name, N, per16);
    else
        return 1;
    return 0;
}

enum kl_status kl_gemm_launch_on(struct kl_context *kl, const char *rung, enum kl_type type,
                                 int M, int N, int K, struct kl_buf *A, struct kl_buf *B,
                                 struct kl_buf *C, struct kl_launch *out, struct kl_timing *t,
                                 char *config, size_t n)
{
    const struct kl_gemm_request req = {.M = M, .N = N, .K = K, .type = type};
    const struct kl_gemm_rung *r = kl_gemm_rung_find(rung);
    struct kl_err *e = &kl->err;
    int values[KL_MAX_PARAMS];
    unsigned mask;
    enum kl_status st;
    char why[256];
    memset(t, 0, sizeof *t);
    if (!r)
        return kl_gemm_rung_not_found(rung, "GEMM rung", e);
    if (M < 1 || N < 1 || K < 1 || (int64_t)M * K > INT32_MAX || (int64_t)K * N > INT32_MAX ||
        (int64_t)M * N > INT32_MAX)
        return kl_fail(e, KL_ERR_ARG,
                       "rung %s: M=%d N=%d K=%d must be >= 1 and each matrix within the "
                       "kernels' 32-bit indexing",
                       r->name, M, N, K);
    if (!kl_gemm_rung_on_buffers(r, type, N, why, sizeof why))
        return kl_fail(e, KL_ERR_UNSUPPORTED, "%s: it cannot multiply given row-major buffers",
                       why);
    *out = (struct kl_launch){.kl = kl};
    if ((st = resolve_request(&req, &kl->info, r, values, &mask, config, n, e)) != KL_OK)
        return st;
    shape_of(r, values, M, N, out);
    if ((st = check_rung(kl, r, values, type, out, e)) != KL_OK ||
        (st = build_rung(kl, r, values, type, out, t)) != KL_OK)
        return st;
    const struct rung_bufs m = {A, B, C, NULL, K, N};
    rung_args(r, values, type, M, N, K, &m, out);
    return KL_OK;
}

/* The reference of one problem, apart from any device: see kl_gemm_reference_open. */
struct kl_gemm_reference {
    struct gemm_session s; /* the problem only: no context, no buffers */
    struct gemm_ref g;
};

enum kl_status kl_gemm_reference_open(enum kl_type type, int M, int N, int K, const void *A,
                                      const void *B, unsigned long long seed,
                                      struct kl_gemm_reference **out, struct kl_err *e)
{
    struct kl_gemm_reference *x = calloc(1, sizeof *x);
    enum kl_status st;
    *out = NULL;
    if (!x)
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory");
    session_init(&x->s, NULL, type, M, N, K, A, B);
    if ((st = reference(&x->s, seed, &x->g, e)) != KL_OK) {
        kl_gemm_reference_close(x);
        return st;
    }
    *out = x;
    return KL_OK;
}

const char *kl_gemm_reference_how(const struct kl_gemm_reference *x)
{
    return x->g.how;
}

void kl_gemm_reference_judge(const struct kl_gemm_reference *x, const void *C, const void *base,
                             const char *base_name, enum kl_precision base_precision,
                             struct kl_result *res)
{
    const struct gemm_baseline baseline = {base, base_name, base_precision};
    res->status = KL_RESULT_VERIFIED;
    judge(&x->s, &x->g, C, &baseline, res);
}

void kl_gemm_reference_close(struct kl_gemm_reference *x)
{
    if (!x)
        return;
    ref_free(&x->g);
    free(x);
}
