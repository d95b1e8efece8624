/*
 * The tuner's pieces that need no timing: the parameter spaces of the real
 * GEMM rung tables and the tuning cache.
 *
 * Spaces: for every device rung, float and double, three sizes, on the
 * default device and on the same device described as a GPU with NVIDIA's
 * limits (1024 work-items, 48 KiB of local memory), and for the CUDA C++
 * rungs in every type they take on an H200 described without one, every enumerated
 * candidate is checked here again, independently of the enumerator: each
 * value in its range, a multiple of its multiple, a power of two where
 * required; the relations between parameters (BM of TM ...); the
 * work-group size and shape and the local memory against the device; a
 * CPU's private arrays; and kl_gemm_check, the check of `kladder gemm
 * --param`. Known-bad combinations must be rejected by kl_gemm_check and
 * absent from the space. Nothing is built or run.
 *
 * Cache: an entry written and read back field by field, replaced by key,
 * kept beside another; a flipped byte, a truncated file, another version,
 * another device and an empty file are each refused with a reason.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "described_cuda.h"
#include "core/ceilings.h"
#include "core/context.h"
#include "core/util.h"
#include "tune/cache.h"
#include "tune/gemm.h"

static int is_pow2(long v)
{
    return v > 0 && (v & (v - 1)) == 0;
}

/* Looks a value up by name among a candidate's values. */
static long val(const struct kl_gemm_rung *r, const int *v, const char *name)
{
    int i = kl_param_index(r->params, name);
    return i < 0 ? -1 : v[i];
}

/* Local memory in elements, as docs and gemm.h describe each kind. */
static long local_elems(const struct kl_gemm_rung *r, const int *v, enum kl_type t, int *known)
{
    *known = 1;
    switch (r->local) {
    case KL_LOCAL_NONE: return 0;
    case KL_LOCAL_KC: return val(r, v, "KC");
    case KL_LOCAL_2TS2: return 2 * val(r, v, "TS") * val(r, v, "TS");
    case KL_LOCAL_BLOCK: return val(r, v, "BK") * (val(r, v, "BM") + val(r, v, "BN"));
    case KL_LOCAL_BLOCK4:
        return val(r, v, "BK") * (val(r, v, "BM") + 4 * val(r, v, "PAD") + val(r, v, "BN"));
    case KL_LOCAL_BLOCK4X2:
        return 2 * val(r, v, "BK") * (val(r, v, "BM") + 4 * val(r, v, "PAD") + val(r, v, "BN"));
    case KL_LOCAL_STAGES:
        return val(r, v, "STAGES") * val(r, v, "BK") * (val(r, v, "BM") + 4 + val(r, v, "BN"));
    case KL_LOCAL_MMA: {
        long stages = kl_param_index(r->params, "STAGES") >= 0 ? val(r, v, "STAGES") : 2;
        long bn = val(r, v, "BN"), sb = bn;
        while (sb % 32 != 8) /* B's rows: 8 more than a multiple of 32 */
            sb++;
        return stages * (val(r, v, "BM") * (val(r, v, "BK") + 4) + val(r, v, "BK") * sb);
    }
    case KL_LOCAL_WGMMA_K: /* bytes, whatever the type; in floats here, as the tuner's space */
        return (val(r, v, "STAGES") * 128 * (val(r, v, "BM") + val(r, v, "BN")) + 1280) / 4;
    case KL_LOCAL_MMA_T: /* in elements of 1 or 2 bytes: 16 bytes of padding per row */
        return val(r, v, "STAGES") * (val(r, v, "BM") + val(r, v, "BN")) *
               (val(r, v, "BK") + 16 / (long)kl_type_size(t));
    case KL_LOCAL_DMMA: {
        long sa = val(r, v, "BK") > 16 ? val(r, v, "BK") : 16, sb = val(r, v, "BN");
        while (sb % 16 != 0) /* rows of whole 128-byte lines */
            sb++;
        return val(r, v, "STAGES") * (val(r, v, "BM") * sa + val(r, v, "BK") * sb);
    }
    case KL_LOCAL_WGMMA: {
        long small = r->precision == KL_PREC_3XTF32 ? val(r, v, "BM") : 0;
        return val(r, v, "STAGES") * 32 * (val(r, v, "BM") + val(r, v, "BN") + small) + 320;
    }
    }
    *known = 0;
    return 0;
}

/* Work-group shape from the geometry, as gemm.h describes it. */
static void shape(const struct kl_gemm_rung *r, const int *v, long *l0, long *l1)
{
    *l1 = 1;
    switch (r->geometry) {
    case KL_GEO_2D: *l0 = val(r, v, "WG0"), *l1 = val(r, v, "WG1"); break;
    case KL_GEO_ROWS: *l0 = val(r, v, "WG"); break;
    case KL_GEO_TILE: *l0 = *l1 = val(r, v, "TS"); break;
    case KL_GEO_BLOCK:
        *l0 = val(r, v, "BN") / val(r, v, "TN");
        *l1 = val(r, v, "BM") / val(r, v, "TM");
        break;
    case KL_GEO_WARPS:
        *l0 = 32 * (val(r, v, "BN") / val(r, v, "WN"));
        *l1 = val(r, v, "BM") / val(r, v, "WM");
        break;
    case KL_GEO_PERSISTENT: /* a consumer per 64 columns, or per 64 rows reading Bᵀ */
        *l0 = 128 * (val(r, v, r->b_col_major ? "BM" : "BN") / 64 + 1);
        break;
    default: *l0 = 0; break;
    }
}

static int candidates_checked;

/* The space of GEMM rung r (its target lives until the next call: one space at a time). */
static enum kl_status space_build(struct kl_context *kl, const struct kl_gemm_rung *r,
                                  enum kl_type t, int M, int N, int K, struct kl_tune_space *s,
                                  struct kl_err *e)
{
    static struct kl_tune_gemm g;
    memset(s, 0, sizeof *s);
    enum kl_status st = kl_tune_gemm_target(kl, NULL, r, t, M, N, K, &g, e);
    return st != KL_OK ? st : kl_tune_space_build(kl, &g.target, s, e);
}

static void check_space(struct kl_context *kl, const struct kl_gemm_rung *r, enum kl_type t, int M,
                        int N, int K, const char *dev)
{
    struct kl_tune_space s;
    struct kl_err e;
    size_t es = kl_type_size(t);
    enum kl_status st = space_build(kl, r, t, M, N, K, &s, &e);
    int cuda = strcmp(kl->ops->name, "cuda") == 0;
    char why[256];
    if (kl_kernel_is_cuda(r->file) && !cuda) {
        CHECK(st == KL_ERR_UNSUPPORTED && strstr(e.msg, "--backend cuda"),
              "%s on %s: a space (%d) where the backend cannot run it", r->name, dev, (int)st);
        return;
    }
    if (!kl_gemm_rung_available(kl, r, t, why, sizeof why)) {
        CHECK(st == KL_ERR_UNSUPPORTED && strstr(e.msg, why),
              "%s %s on %s: a space (%d: %s) where the rung cannot run (%s)", r->name,
              kl_type_name(t), dev, (int)st, e.msg, why);
        return;
    }
    CHECK(st == KL_OK, "%s %s %s: %s", r->name, kl_type_name(t), dev, e.msg);
    if (st != KL_OK)
        return;
    CHECK(s.count > 0, "%s %s %dx%dx%d on %s: an empty space", r->name, kl_type_name(t), M, N, K,
          dev);
    CHECK(s.count + s.pruned + s.pruned_rules == s.combinations,
          "%s: %d candidates + %ld + %ld pruned != %ld combinations", r->name, s.count, s.pruned,
          s.pruned_rules, s.combinations);
    for (int p = 0; p < s.nparams; p++)
        for (int k = 1; k < s.nvalues[p]; k++)
            CHECK(s.values[p][k - 1] < s.values[p][k], "%s: values of %s not ascending", r->name,
                  r->params[p].name);
    for (int i = 0; i < s.count; i++) {
        char text[KL_MAX_PARAMS][32], joined[256];
        const char *items[KL_MAX_PARAMS];
        int v[KL_MAX_PARAMS];
        unsigned mask;
        int n = kl_tune_candidate(&s, i, text, items, joined, sizeof joined);
        CHECK(n == s.nparams, "%s: %d items", r->name, n);
        /* The items parse back to the values, through the --param path. */
        st = kl_params_resolve(r->name, r->params, items, n, v, &mask, &e);
        CHECK(st == KL_OK, "%s %s: %s", r->name, joined, e.msg);
        for (int p = 0; p < n; p++) {
            const struct kl_param_def *d = &r->params[p];
            CHECK(v[p] >= d->min && v[p] <= d->max, "%s %s: %s out of %d..%d", r->name, joined,
                  d->name, d->min, d->max);
            CHECK(v[p] % d->multiple == 0, "%s %s: %s not a multiple of %d", r->name, joined,
                  d->name, d->multiple);
            CHECK(!d->pow2 || is_pow2(v[p]), "%s %s: %s not a power of two", r->name, joined,
                  d->name);
        }
        for (int m = 0; m < KL_MAX_MULTIPLES && r->multiples[m].name; m++) {
            long a = val(r, v, r->multiples[m].name), b = val(r, v, r->multiples[m].of);
            CHECK(b > 0 && a % b == 0, "%s %s: %s not a multiple of %s", r->name, joined,
                  r->multiples[m].name, r->multiples[m].of);
        }
        long l0, l1;
        shape(r, v, &l0, &l1);
        CHECK(l0 >= 1 && l1 >= 1 && (size_t)(l0 * l1) <= kl->info.max_wg &&
                  (size_t)l0 <= kl->info.max_item[0] && (size_t)l1 <= kl->info.max_item[1],
              "%s %s on %s: work-group %ld x %ld beyond the device's %zu", r->name, joined, dev, l0,
              l1, kl->info.max_wg);
        int known;
        long local = local_elems(r, v, t, &known);
        CHECK(known, "%s: unknown local-memory kind %d (teach tests/test_tune.c)", r->name,
              (int)r->local);
        /* A CUDA C++ rung's local memory is dynamic shared memory, up to the opt-in. */
        uint64_t room = kl_kernel_is_cuda(r->file) && kl->info.local_mem_optin > kl->info.local_mem
                            ? kl->info.local_mem_optin
                            : kl->info.local_mem;
        CHECK((uint64_t)local * es <= room, "%s %s on %s: %ld B of local memory", r->name, joined,
              dev, local * (long)es);
        if (kl_param_index(r->params, "TM") >= 0 && kl_param_index(r->params, "WM") >= 0)
            /* warp tiles: 32 lanes of TM × TN */
            CHECK(val(r, v, "WM") / val(r, v, "TM") * (val(r, v, "WN") / val(r, v, "TN")) == 32,
                  "%s %s: a warp tile that is not 32 lanes", r->name, joined);
        if (!kl->info.is_gpu && r->private_kc)
            CHECK((size_t)val(r, v, "KC") * (size_t)(l0 * l1) * es <= (size_t)1 << 20,
                  "%s %s: private arrays beyond the CPU bound", r->name, joined);
        if (!kl->info.is_gpu && r->geometry == KL_GEO_BLOCK) {
            long tm = val(r, v, "TM"), tn = val(r, v, "TN");
            CHECK((size_t)(tm * tn + tm + tn) * (size_t)(l0 * l1) * es <= (size_t)1 << 20,
                  "%s %s: private blocks beyond the CPU bound", r->name, joined);
        }
        st = kl_gemm_check(kl, r, items, n, t, M, N, NULL, &e);
        CHECK(st == KL_OK, "%s %s on %s: kl_gemm_check says %s", r->name, joined, dev, e.msg);
        candidates_checked++;
    }
    kl_tune_space_free(&s);
}

/* 1 when the space of r holds the candidate whose values are items (NAME=V for every param). */
static int in_space(struct kl_context *kl, const struct kl_gemm_rung *r, enum kl_type t, int M,
                    int N, int K, const char *const *items, int n)
{
    struct kl_tune_space s;
    struct kl_err e;
    int found = 0;
    if (space_build(kl, r, t, M, N, K, &s, &e) != KL_OK)
        return 0;
    for (int i = 0; i < s.count && !found; i++) {
        char text[KL_MAX_PARAMS][32], joined[256];
        const char *cand[KL_MAX_PARAMS];
        kl_tune_candidate(&s, i, text, cand, joined, sizeof joined);
        int same = 1;
        for (int p = 0; p < n && same; p++) {
            int hit = 0;
            for (int q = 0; q < s.nparams; q++)
                hit |= strcmp(items[p], cand[q]) == 0;
            same = hit;
        }
        found = same;
    }
    kl_tune_space_free(&s);
    return found;
}

struct bad {
    const char *rung;
    int gpu; /* on the real device (0), a simulated GPU (1) or the real one taken for a CPU (2) */
    int M, N, K;
    const char *items[8];
    int n;
    enum kl_status want;
};

static void known_bad(struct kl_context *kl, const struct kl_device_info *real,
                      const struct kl_device_info *gpu)
{
    static const struct bad bad[] = {
        /* BM not a multiple of TM: the rung's relation. */
        {"12_vec_local",
         0,
         64,
         64,
         64,
         {"BM=8", "BN=16", "BK=4", "TM=16", "TN=4", "PAD=0"},
         6,
         KL_ERR_ARG},
        {"11_regblock",
         1,
         256,
         256,
         256,
         {"BM=32", "BN=24", "BK=8", "TM=4", "TN=16"},
         5,
         KL_ERR_ARG},
        /* A work-group of 64 × 64 beyond 1024 work-items. */
        {"10_tiled", 1, 256, 256, 256, {"TS=64"}, 1, KL_ERR_UNSUPPORTED},
        {"01_naive", 1, 256, 256, 256, {"WG0=64", "WG1=32"}, 2, KL_ERR_UNSUPPORTED},
        /* 2·64·(256 + 4 + 256) floats of local memory, beyond 48 KiB. */
        {"13_double_buffer",
         1,
         512,
         512,
         512,
         {"BM=256", "BN=256", "BK=64", "TM=16", "TN=16", "PAD=1"},
         6,
         KL_ERR_UNSUPPORTED},
        /* KC × WG private floats beyond a CPU work-group's stack (a CPU device: 2). */
        {"05_row_private", 2, 64, 64, 8192, {"WG=1024", "KC=8192"}, 2, KL_ERR_UNSUPPORTED},
        /* Out of range, not a multiple, not a power of two where the rung needs one. */
        {"08_vec4_row", 0, 64, 64, 64, {"WG=64", "KC=6"}, 2, KL_ERR_ARG},
        {"12_vec_local",
         0,
         64,
         64,
         64,
         {"BM=6", "BN=16", "BK=4", "TM=4", "TN=4", "PAD=0"},
         6,
         KL_ERR_ARG},
        {"12_vec_local",
         0,
         64,
         64,
         64,
         {"BM=16", "BN=16", "BK=4", "TM=4", "TN=4", "PAD=2"},
         6,
         KL_ERR_ARG},
        /* Warp tiles of 64 × 64 lanes of 8 × 8: 64 lanes, not a warp (on any backend). */
        {"14_warptile",
         0,
         256,
         256,
         256,
         {"BM=128", "BN=128", "BK=16", "WM=64", "WN=64", "TM=8", "TN=8", "STAGES=3"},
         8,
         KL_ERR_ARG},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        const struct bad *b = &bad[i];
        const struct kl_gemm_rung *r = kl_gemm_rung_find(b->rung);
        struct kl_err e;
        CHECK(r != NULL, "no rung %s", b->rung);
        if (!r)
            continue;
        kl->info = b->gpu == 1 ? *gpu : *real;
        if (b->gpu == 2) {
            kl->info.is_gpu = 0;
            snprintf(kl->info.type, sizeof kl->info.type, "CPU");
            kl->info.max_wg = kl->info.max_item[0] = 4096;
        }
        enum kl_status st = kl_gemm_check(kl, r, b->items, b->n, KL_FLOAT, b->M, b->N, NULL, &e);
        CHECK(st == b->want, "%s %s...: kl_gemm_check gave %d, want %d (%s)", b->rung, b->items[0],
              (int)st, (int)b->want, st == KL_OK ? "accepted" : e.msg);
        CHECK(!in_space(kl, r, KL_FLOAT, b->M, b->N, b->K, b->items, b->n),
              "%s %s...: a known-bad combination is in the space", b->rung, b->items[0]);
    }
    /* And good ones are there: the defaults of the tiled rung, a register block. */
    kl->info = *gpu;
    static const char *const ts16[] = {"TS=16"};
    static const char *const blk[] = {"BM=64", "BN=64", "BK=8", "TM=8", "TN=8", "PAD=1"};
    CHECK(in_space(kl, kl_gemm_rung_find("10_tiled"), KL_FLOAT, 2048, 2048, 2048, ts16, 1),
          "10_tiled TS=16 missing from the GPU space");
    CHECK(in_space(kl, kl_gemm_rung_find("12_vec_local"), KL_FLOAT, 2048, 2048, 2048, blk, 6),
          "12_vec_local BM=64 BN=64 ... missing from the GPU space");
    /* The sensible-space rules: no work-group below a warp on a GPU, no 8:1 block. */
    static const char *const small_wg[] = {"WG0=4", "WG1=4"};
    static const char *const skinny[] = {"BM=512", "BN=32", "BK=8", "TM=8", "TN=8", "PAD=1"};
    CHECK(!in_space(kl, kl_gemm_rung_find("01_naive"), KL_FLOAT, 2048, 2048, 2048, small_wg, 2),
          "01_naive 4x4 in the GPU space");
    CHECK(!in_space(kl, kl_gemm_rung_find("12_vec_local"), KL_FLOAT, 2048, 2048, 2048, skinny, 6),
          "12_vec_local 512x32 block in the space");
    /* Rung 13's PAD (its local tile's padding) is searched: PAD=0 fits 256 x 128 blocks of
       16 x 8 at BK = 16 in 48 KiB (46.0 TFLOP/s on an H100 against 45.4 for its preset); the
       tuner holds the Hopper rungs' PAD, another parameter of the same name, alone. */
    static const char *const wide_nopad[] = {"BM=256", "BN=128", "BK=16", "TM=16", "TN=8", "PAD=0"};
    CHECK(in_space(kl, kl_gemm_rung_find("13_double_buffer"), KL_FLOAT, 4096, 4096, 4096,
                   wide_nopad, 6),
          "13_double_buffer 256x128 at BK=16 with PAD=0 missing from the GPU space");
    /* Split-K where split-K's model gains: C's 64 blocks of 128 x 128 leave a 132-unit GPU
     * half idle (SPLITK=4 and 8: two waves of 256 or four of 512 shorter blocks, half the
     * time of one wave of the 64); at 3000^3 576 such blocks take 4.4 waves (SPLITK=2: 8.7
     * waves of blocks half as long); none at 2048^3 (256 blocks, 1.9 waves: split in two,
     * 3.9 waves of half blocks and the partial products' traffic) or at K = 24 (3 slices of
     * 8). */
    struct kl_device_info big = *gpu;
    big.compute_units = 132;
    kl->info = big;
    static const char *const split4[] = {"SPLITK=4"}, *const split8[] = {"SPLITK=8"},
                             *const split2[] = {"SPLITK=2"},
                             *const split2_128[] = {"BM=128", "BN=128", "SPLITK=2"};
    const struct kl_gemm_rung *r13 = kl_gemm_rung_find("13_double_buffer");
    CHECK(in_space(kl, r13, KL_FLOAT, 128, 8192, 8192, split4, 1) &&
              in_space(kl, r13, KL_FLOAT, 128, 8192, 8192, split8, 1),
          "13 SPLITK=4 or 8 missing from the space at 128x8192x8192");
    CHECK(in_space(kl, r13, KL_FLOAT, 3000, 3000, 3000, split2_128, 3),
          "13 SPLITK=2 missing from the space at 3000^3 (4.4 waves of blocks)");
    CHECK(!in_space(kl, r13, KL_FLOAT, 2048, 2048, 2048, split2_128, 3),
          "13 SPLITK=2 in the space at 2048^3 (its blocks fill whole waves)");
    CHECK(!in_space(kl, r13, KL_FLOAT, 128, 8192, 24, split2, 1),
          "13 SPLITK=2 in the space at K = 24 (splits of fewer than four slices)");
    /* Nothing beyond the matrix: at 64³ no TS above 64. */
    static const char *const ts128[] = {"TS=128"};
    kl->info = *real;
    CHECK(!in_space(kl, kl_gemm_rung_find("10_tiled"), KL_FLOAT, 64, 64, 64, ts128, 1),
          "10_tiled TS=128 in the space at 64^3");
}

static void test_spaces(struct kl_context *kl)
{
    struct kl_device_info real = kl->info, gpu = kl->info;
    gpu.is_gpu = 1;
    gpu.max_wg = 1024;
    gpu.max_item[0] = gpu.max_item[1] = 1024;
    gpu.max_item[2] = 64;
    gpu.local_mem = 48 * 1024;
    static const int sizes[][3] = {{64, 64, 64}, {17, 33, 9}, {2048, 2048, 2048}};
    for (int g = 0; g < 2; g++) {
        kl->info = g ? gpu : real;
        for (int i = 0; i < kl_gemm_rung_count(); i++) {
            const struct kl_gemm_rung *r = kl_gemm_rung_at(i);
            if (!r->file || kl_param_count(r->params) == 0)
                continue;
            for (int t = KL_FLOAT; t <= KL_DOUBLE; t++)
                for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++)
                    check_space(kl, r, (enum kl_type)t, sizes[z][0], sizes[z][1], sizes[z][2],
                                g ? "a 1024-item, 48 KiB GPU" : real.name);
        }
    }
    known_bad(kl, &real, &gpu);
    /* Host rungs have nothing to tune. */
    struct kl_tune_space s;
    struct kl_err e;
    CHECK(space_build(kl, kl_gemm_rung_find("host_ijk"), KL_FLOAT, 8, 8, 8, &s, &e) == KL_ERR_ARG,
          "host_ijk has a space");
    kl->info = real;
    printf("spaces: %d candidates checked\n", candidates_checked);
}

/*
 * The search of a rung with a preset for the device, type and size starts from the preset and
 * measures against it: rung 20's FP8 sums on sm_90 (BN=192) at 4096^3, as `kladder gemm` runs
 * it untuned; without a preset (half), the defaults.
 */
static void check_preset_start(struct kl_context *kl, const struct kl_gemm_rung *r20)
{
    static struct kl_tune_gemm g;
    struct kl_tune_space s;
    struct kl_err e;
    char text[KL_MAX_PARAMS][32], joined[256] = "";
    const char *items[KL_MAX_PARAMS];
    int bn = kl_param_index(r20->params, "BN");
    enum kl_status st = kl_tune_gemm_target(kl, NULL, r20, KL_FP8, 4096, 4096, 4096, &g, &e);
    if (st == KL_OK)
        st = kl_tune_space_build(kl, &g.target, &s, &e);
    CHECK(st == KL_OK && g.target.start && g.start[bn] == 192 &&
              strstr(g.start_config, "preset sm_90 BN=192") && s.default_index >= 0,
          "rung 20 in fp8 at 4096^3 on sm_90 starts from its preset (%s, candidate %d)",
          g.start_config, st == KL_OK ? s.default_index : -2);
    if (st == KL_OK && s.default_index >= 0) {
        kl_tune_candidate(&s, s.default_index, text, items, joined, sizeof joined);
        CHECK(strstr(joined, "BN=192") != NULL, "the start candidate is the preset's: %s", joined);
    }
    if (st == KL_OK)
        kl_tune_space_free(&s);
    st = kl_tune_gemm_target(kl, NULL, r20, KL_HALF, 4096, 4096, 4096, &g, &e);
    CHECK(st == KL_OK && !g.target.start && !g.start_config[0],
          "rung 20 in half has no preset: the defaults are its start");
    /* Where the schedule's rules change the preset, the start is what the ladder runs: fp8
       at 256 x 16384 x 16384 on the tiles' rule's BN=128 (the tuner once measured its best
       against BN=192, 1.23x, where the ladder saw 1.01-1.03x). */
    st = kl_tune_gemm_target(kl, NULL, r20, KL_FP8, 256, 16384, 16384, &g, &e);
    CHECK(st == KL_OK && g.target.start && g.start[bn] == 128 &&
              strstr(g.start_config, "BN=128 (the tiles' rule)"),
          "fp8 at 256 x 16384 x 16384 starts from the tiles' rule (%s)", g.start_config);
}

/*
 * A start that a rule puts on a value the tuner holds (stream-K's SK=1 for rung 17 at
 * 128 x 8192 x 8192) is in the space, the only candidate with that value.
 */
static void check_held_start(struct kl_context *kl)
{
    static struct kl_tune_gemm g;
    struct kl_tune_space s;
    struct kl_err e;
    const struct kl_gemm_rung *r17 = kl_gemm_rung_find("17_wgmma_tf32");
    int sk = kl_param_index(r17->params, "SK"), with_sk = 0, start_sk = 0;
    enum kl_status st = kl_tune_gemm_target(kl, NULL, r17, KL_FLOAT, 128, 8192, 8192, &g, &e);
    if (st == KL_OK)
        st = kl_tune_space_build(kl, &g.target, &s, &e);
    CHECK(st == KL_OK && g.target.start && g.start[sk] == 1 && s.default_index >= 0,
          "rung 17 at 128 x 8192 x 8192 starts on stream-K (%s), a candidate of its space",
          g.start_config);
    if (st != KL_OK)
        return;
    for (int i = 0; i < s.count; i++) {
        int v = s.values[sk][s.cand[(size_t)i * (size_t)s.nparams + (size_t)sk]];
        with_sk += v == 1;
        start_sk += v == 1 && i == s.default_index;
    }
    CHECK(with_sk == 1 && start_sk == 1, "SK=1 only as the start (%d candidates with it)",
          with_sk);
    kl_tune_space_free(&s);
}

/*
 * The CUDA C++ rungs' spaces (14 to 22), which the default device (PoCL in CI) cannot build:
 * on a CUDA device described without one (an H200's compute capability, SMs and 227 KiB of
 * shared memory; the backend's name and its CUDA C++ are all the tuner's target reads of
 * it), every candidate of every type the rung takes, at a square shape and a skinny one
 * (where splits of K join the space), passes the same checks as above.
 */
static void test_cuda_spaces(void)
{
    struct kl_context *kl =
        described_cuda_context(described_cuda("H200 (described)", 9, 0, 132, 232448));
    static const int sizes[][3] = {{4096, 4096, 4096}, {128, 8192, 8192}};
    int before = candidates_checked;
    CHECK(kl != NULL, "no memory for a context");
    if (!kl)
        return;
    for (int i = 0; i < kl_gemm_rung_count(); i++) {
        const struct kl_gemm_rung *r = kl_gemm_rung_at(i);
        char why[256];
        if (!r->file || !kl_kernel_is_cuda(r->file) || kl_param_count(r->params) == 0)
            continue;
        for (int t = 0; t < KL_TYPE_COUNT; t++)
            if (kl_gemm_rung_available(kl, r, (enum kl_type)t, why, sizeof why))
                for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++)
                    check_space(kl, r, (enum kl_type)t, sizes[z][0], sizes[z][1], sizes[z][2],
                                kl->info.name);
    }
    printf("CUDA spaces: %d candidates checked\n", candidates_checked - before);
    CHECK(candidates_checked > before, "no CUDA rung's candidate checked");
    /* What the tuner holds at its default (src/tune/gemm.c, held) stays out; splits come in
       where C's blocks leave SMs idle. */
    static const char *const pad0[] = {"PAD=0"}, *const epi0[] = {"EPI=0"}, *const sk1[] = {"SK=1"},
                             *const fetch0[] = {"PREFETCH=0"}, *const fast[] = {"PROMOTE=0"},
                             *const split4[] = {"SPLITK=4"},
                             *const ring[] = {"BM=128", "BN=128", "WM=64", "WN=32", "PREFETCH=2"};
    const struct kl_gemm_rung *r17 = kl_gemm_rung_find("17_wgmma_tf32"),
                              *r20 = kl_gemm_rung_find("20_wgmma"),
                              *r21 = kl_gemm_rung_find("21_dmma");
    CHECK(!in_space(kl, r17, KL_FLOAT, 4095, 4097, 4093, pad0, 1) &&
              !in_space(kl, r17, KL_FLOAT, 4096, 4096, 4096, epi0, 1) &&
              !in_space(kl, r17, KL_FLOAT, 4096, 4096, 4096, sk1, 1) &&
              !in_space(kl, r21, KL_DOUBLE, 4096, 4096, 4096, fetch0, 1) &&
              !in_space(kl, r20, KL_FP8, 4096, 4096, 4096, fast, 1),
          "a held value (PAD=0, EPI=0, SK=1, PREFETCH=0, PROMOTE=0) in a CUDA rung's space");
    CHECK(in_space(kl, r21, KL_DOUBLE, 4096, 4096, 4096, ring, 5),
          "21_dmma's preset (PREFETCH=2 on 128 x 128 blocks) missing from its space at 4096^3");
    CHECK(in_space(kl, kl_gemm_rung_find("14_warptile"), KL_FLOAT, 128, 8192, 8192, split4, 1),
          "14_warptile SPLITK=4 missing at 128 x 8192 x 8192 on 132 SMs");
    check_preset_start(kl, r20);
    check_held_start(kl);
    free(kl);
}

/* ---- the cache --------------------------------------------------------------- */

static void write_text(const char *path, const char *text, size_t n)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL, "cannot write %s", path);
    if (f) {
        fwrite(text, 1, n, f);
        fclose(f);
    }
}

static int expect_refused(const struct kl_device_info *dev, const char *what, const char *reason)
{
    struct kl_tuned_file f;
    char warn[8192] = "";
    int got = kl_tuned_load(dev, "opencl", &f, warn, sizeof warn);
    CHECK(got == -1 && f.count == 0 && strstr(warn, reason), "%s: got %d, warning \"%s\"", what,
          got, warn);
    kl_tuned_free(&f);
    return got;
}

/* A fresh cache directory (dir, a mkdtemp template) and a device that exists nowhere. */
static void cache_in(char *dir, struct kl_device_info *dev)
{
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    setenv("KLADDER_CACHE_DIR", dir, 1);
    memset(dev, 0, sizeof *dev);
    snprintf(dev->platform, sizeof dev->platform, "Test Platform");
    snprintf(dev->name, sizeof dev->name, "Test Device 1");
    snprintf(dev->driver_version, sizeof dev->driver_version, "1.2.3");
}

static void test_cache(void)
{
    char dir[] = "/tmp/kladder-test-tune-XXXXXX", path[4096], warn[8192];
    struct kl_device_info dev, other;
    struct kl_tuned x, y;
    struct kl_tuned_file f;
    struct kl_err e;
    cache_in(dir, &dev);
    other = dev;
    snprintf(other.driver_version, sizeof other.driver_version, "1.2.4");

    CHECK(kl_tune_size_class(64, 64, 64) == 18, "class of 64^3");
    CHECK(kl_tune_size_class(2000, 2000, 2000) == 33 && kl_tune_size_class(2048, 2048, 2048) == 33,
          "2000^3 and 2048^3 share a class");
    CHECK(kl_tune_size_class(1, 1, 1) == 0, "class of 1");

    CHECK(kl_tuned_load(&dev, "opencl", &f, warn, sizeof warn) == 0, "an absent cache");
    memset(&x, 0, sizeof x);
    snprintf(x.workload, sizeof x.workload, "gemm");
    snprintf(x.rung, sizeof x.rung, "12_vec_local");
    x.type = KL_DOUBLE;
    x.size_class = 33;
    snprintf(x.params, sizeof x.params, "BM=64,BN=128,BK=8,TM=8,TN=8,PAD=1");
    snprintf(x.size, sizeof x.size, "2048x2048x2048");
    x.median_s = 1.25e-3;
    x.gflops = 13743.9;
    x.default_gflops = 11000.5;
    snprintf(x.date, sizeof x.date, "2025-01-02T03:04:05Z");
    snprintf(x.version, sizeof x.version, "%s", KLADDER_VERSION);
    x.budget_s = 60;
    x.tried = 153;
    x.space = 808;
    snprintf(x.strategy, sizeof x.strategy, "search");
    CHECK(kl_tuned_store(&dev, "opencl", &x, warn, sizeof warn, &e) == KL_OK, "store: %s", e.msg);
    y = x;
    snprintf(y.rung, sizeof y.rung, "10_tiled");
    snprintf(y.params, sizeof y.params, "TS=16");
    y.type = KL_FLOAT;
    CHECK(kl_tuned_store(&dev, "opencl", &y, warn, sizeof warn, &e) == KL_OK, "store: %s", e.msg);
    x.gflops = 14000; /* the same key again: replaced, not added */
    CHECK(kl_tuned_store(&dev, "opencl", &x, warn, sizeof warn, &e) == KL_OK, "store: %s", e.msg);
    CHECK(kl_tuned_load(&dev, "opencl", &f, warn, sizeof warn) == 1, "load: %s", warn);
    CHECK(f.count == 2, "%d entries, want 2", f.count);
    const struct kl_tuned *a = kl_tuned_find(&f, "gemm", "12_vec_local", KL_DOUBLE, 33);
    CHECK(a && strcmp(a->params, x.params) == 0 && strcmp(a->size, x.size) == 0 &&
              a->median_s == x.median_s && a->gflops == x.gflops &&
              a->default_gflops == x.default_gflops && strcmp(a->date, x.date) == 0 &&
              strcmp(a->version, x.version) == 0 && a->budget_s == x.budget_s &&
              a->tried == x.tried && a->space == x.space && strcmp(a->strategy, x.strategy) == 0,
          "12_vec_local read back differs");
    CHECK(kl_tuned_find(&f, "gemm", "12_vec_local", KL_FLOAT, 33) == NULL, "found by type");
    CHECK(kl_tuned_find(&f, "gemm", "12_vec_local", KL_DOUBLE, 32) == NULL, "found by class");
    const struct kl_tuned *b = kl_tuned_find(&f, "gemm", "10_tiled", KL_FLOAT, 33);
    CHECK(b && strcmp(b->params, "TS=16") == 0, "10_tiled read back");
    kl_tuned_free(&f);
    char buf[256];
    const char *items[8];
    CHECK(kl_tuned_items("BM=64,BN=128", buf, sizeof buf, items, 8) == 2 &&
              strcmp(items[1], "BN=128") == 0,
          "items");
    CHECK(kl_tuned_items("BM=x", buf, sizeof buf, items, 8) < 0 &&
              kl_tuned_items("BM=1,", buf, sizeof buf, items, 8) < 0 &&
              kl_tuned_items("=1", buf, sizeof buf, items, 8) < 0,
          "malformed items accepted");

    /* Another device's (driver's) view: its own file, none. */
    CHECK(kl_tuned_load(&other, "opencl", &f, warn, sizeof warn) == 0, "other driver sees a file");
    CHECK(kl_tuned_load(&dev, "cuda", &f, warn, sizeof warn) == 0, "other backend sees a file");

    /* Damage: each refused with a reason, and a store then replaces the file. */
    char *good;
    size_t len;
    kl_tuned_path(&dev, "opencl", path, sizeof path);
    CHECK(kl_read_file(path, &good, &len, &e) == KL_OK, "read %s", path);
    char *bad = malloc(len + 1);
    memcpy(bad, good, len + 1);
    char *digit = strstr(bad, "gflops=") + 8;
    *digit = *digit == '9' ? '8' : '9';
    write_text(path, bad, len);
    expect_refused(&dev, "a changed digit", "checksum");
    write_text(path, good, len / 2);
    expect_refused(&dev, "a truncated file", "corrupt");
    write_text(path, "", 0);
    expect_refused(&dev, "an empty file", "not a kladder tuning cache");
    memcpy(bad, good, len + 1);
    bad[strlen("kladder-tuned ")] = '2';
    write_text(path, bad, len);
    expect_refused(&dev, "another version", "another version");
    /* A file renamed to another device's name: the identity line says whose it is. */
    char other_path[4096];
    kl_tuned_path(&other, "opencl", other_path, sizeof other_path);
    write_text(other_path, good, len);
    expect_refused(&other, "another device's file", "another device");
    remove(other_path);
    write_text(path, bad, len);
    CHECK(kl_tuned_store(&dev, "opencl", &y, warn, sizeof warn, &e) == KL_OK && warn[0],
          "a store over a damaged file should warn and replace it");
    CHECK(kl_tuned_load(&dev, "opencl", &f, warn, sizeof warn) == 1 && f.count == 1,
          "after the replacement: %d entries (%s)", f.count, warn);
    kl_tuned_free(&f);
    free(good);
    free(bad);
    remove(path);
    rmdir(dir);
}

/*
 * Four processes storing 25 entries each into one cache at once: the lock
 * (read, merge, rename under it) keeps all 100. Without it, one process's
 * rename would drop the entries another wrote since it read the file.
 */
static void test_cache_concurrent(void)
{
    enum { PROCS = 4, EACH = 25 };
    char dir[] = "/tmp/kladder-test-tune-XXXXXX", path[4096], lock[4200], warn[8192];
    struct kl_device_info dev;
    struct kl_tuned_file f;
    cache_in(dir, &dev);
    fflush(NULL);
    for (int p = 0; p < PROCS; p++) {
        pid_t pid = fork();
        CHECK(pid >= 0, "fork");
        if (pid != 0)
            continue;
        int bad = 0;
        for (int k = 0; k < EACH; k++) {
            struct kl_tuned x;
            struct kl_err e;
            memset(&x, 0, sizeof x);
            snprintf(x.workload, sizeof x.workload, "gemm");
            snprintf(x.rung, sizeof x.rung, "p%d_%d", p, k);
            x.type = KL_FLOAT;
            x.size_class = 18;
            snprintf(x.params, sizeof x.params, "TS=%d", k + 1);
            snprintf(x.size, sizeof x.size, "64x64x64");
            x.median_s = 1e-3;
            snprintf(x.date, sizeof x.date, "2026-01-01T00:00:00Z");
            snprintf(x.version, sizeof x.version, "%s", KLADDER_VERSION);
            snprintf(x.strategy, sizeof x.strategy, "search");
            bad |= kl_tuned_store(&dev, "opencl", &x, warn, sizeof warn, &e) != KL_OK;
        }
        _exit(bad);
    }
    int failed = 0, status;
    while (wait(&status) > 0)
        failed |= !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    CHECK(!failed, "a process's store failed");
    CHECK(kl_tuned_load(&dev, "opencl", &f, warn, sizeof warn) == 1, "load: %s", warn);
    CHECK(f.count == PROCS * EACH, "%d entries after concurrent stores, want %d", f.count,
          PROCS * EACH);
    kl_tuned_free(&f);
    kl_tuned_path(&dev, "opencl", path, sizeof path);
    snprintf(lock, sizeof lock, "%s.lock", path);
    remove(path);
    remove(lock);
    rmdir(dir);
}

int main(int argc, char **argv)
{
    struct kl_context *kl;
    char err[KL_ERR_MAX];
    (void)argv;
    test_cache();
    test_cache_concurrent();
    if (argc > 1)
        return check_summary(); /* the cache only */
    if (kl_open(NULL, &kl, err, sizeof err) != KL_OK) {
        fprintf(stderr, "cannot open a device: %s\n", err);
        return 1;
    }
    test_spaces(kl);
    kl_close(kl);
    test_cuda_spaces();
    return check_summary();
}
