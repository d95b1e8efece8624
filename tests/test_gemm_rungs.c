/*
 * Every device rung of the GEMM ladder, at awkward shapes (1, primes,
 * non-multiples of every tile, vector width and chunk), for one element
 * type given on the command line, on the default device (PoCL in CI).
 * Each result must be verified against the reference, and the number of
 * rungs that really ran is counted against the number expected. A rung
 * that does not take the type must be skipped, saying which types it takes.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/context.h"
#include "core/verify.h"
#include "workloads/gemm/gemm.h"

static const int shapes[][3] = {
    {1, 1, 1},    {1, 37, 1},      {37, 1, 29},   {17, 33, 9},
    {64, 64, 64}, {129, 130, 131}, {257, 1, 255}, {517, 300, 263},
};

/*
 * Small chunks and tiles so chunk loops, vector tails and partial tiles all
 * run; for the register-blocked rungs (11-13) a 16 × 32 block of 8 × 4
 * work-items, with fewer A blocks than work-items.
 */
static const char *const small_params[] = {"KC=24", "WG=32", "TS=8", "WG0=4", "WG1=8",
                                           "BM=16", "BN=32", "BK=4", "TM=4",  "TN=4"};
#define NSMALL ((int)(sizeof small_params / sizeof *small_params))

/* The register-blocked rungs, and shapes where their unchecked paths run beside
 * the edges: whole blocks with aligned rows (K and N multiples of 4), and with
 * unaligned rows (odd K and N). */
static const char *const block_rungs[] = {"11_regblock", "12_vec_local", "13_double_buffer"};
static const int block_shapes[][3] = {
    {17, 13, 29}, {100, 37, 65}, {260, 132, 200}, {300, 264, 64}, {300, 265, 67}};
/* 3 × 2 work-items (no 8 × 4 warp layout), two rounds of A loads with a guard. */
static const char *const block_params[] = {"BM=8", "BN=12", "BK=16", "TM=4", "TN=4"};
/* Rung 11 takes any tile, not only multiples of 4. */
static const char *const odd_params[] = {"BM=6", "BN=10", "BK=3", "TM=3", "TN=5"};

/*
 * The CUDA-only warp-tiled rung (14) with small tiles: 2 warps of 32 × 32,
 * lanes of 4 × 8, a 32 × 64 block, two stages, so that slices, passes and
 * the pipeline's drain all run at small shapes.
 */
static const char *const warp_rung[] = {"14_warptile"};
static const char *const warp_params[] = {"BM=32", "BN=64", "BK=8", "WM=32",
                                          "WN=32", "TM=4",  "TN=8", "STAGES=2"};

/*
 * Split-K (rungs 13 and 14): three splits of the small blocks above (at K = 29
 * with BK = 16 one of them has no slice and sums zeros), and sixteen of the
 * default blocks, most of them empty at these K.
 */
static const char *const split_rungs[] = {"13_double_buffer", "14_warptile"};
static const char *const split13_params[] = {"BM=8", "BN=12", "BK=16", "TM=4", "TN=4", "SPLITK=3"};
static const char *const split14_params[] = {"BM=32", "BN=64", "BK=8",     "WM=32",   "WN=32",
                                             "TM=4",  "TN=8",  "STAGES=2", "SPLITK=3"};
static const char *const split_many[] = {"SPLITK=16"};

/*
 * The tensor-core rungs (TF32 mma.sync; float only) with small tiles: 2 warps
 * of 32 x 16, a 32 x 32 block, K-slices of 16, two stages, so that several
 * blocks, slices and the pipeline's drain run at small shapes.
 */
static const char *const tensor_rungs[] = {"15_mma_tf32", "16_mma_3xtf32", "15cl_mma_tf32",
                                           "16cl_mma_3xtf32"};
static const char *const tensor_params[] = {"BM=32", "BN=32", "BK=16",
                                            "WM=32", "WN=16", "STAGES=2"};
/*
 * The tensor-core rungs in the inputs' own types (19: half, bf16, fp8s, int8;
 * 21: double), each of which runs only in its types, with small tiles: 19's
 * as above with slices of 32 elements (whole mma steps for 8-bit types), and
 * with three n8 tiles per warp (an odd one by ldmatrix.x2); 21's as above
 * with m16n8k8 on 9.0.
 */
static const char *const typed_rungs[] = {"19_mma", "21_dmma"};
static const char *const typed_params[][7] = {
    {"BM=32", "BN=32", "BK=32", "WM=32", "WN=16", "STAGES=2", "MK=8"},
    {"BM=96", "BN=48", "BK=64", "WM=32", "WN=24", "STAGES=2", "MK=4"},
};

/*
 * Hopper's wgmma rungs (compute capability 9.0 only) with their smallest tiles
 * (128 x 64, one consumer warpgroup), a two-stage ring and groups of two
 * tile-rows, at shapes of more tiles than an H100 has multiprocessors, so that
 * blocks take several tiles and the ring wraps across them; with K and N
 * multiples of 4 (TMA) and not (cp.async).
 */
static const char *const wgmma_rungs[] = {"17_wgmma_tf32", "18_wgmma_3xtf32"};
static const char *const wgmma_params[] = {"BM=128", "BN=64", "STAGES=2", "GROUP=2"};
static const int wgmma_shapes[][3] = {{1100, 1300, 200}, {1031, 1337, 97}};

/* Device rungs; *here (may be NULL) gets those that run on this device in type t. */
static int device_rungs(const struct kl_context *kl, enum kl_type t, const char **names, int *here)
{
    int n = 0;
    char why[256];
    if (here)
        *here = 0;
    for (int i = 0; i < kl_gemm_rung_count(); i++) {
        const struct kl_gemm_rung *r = kl_gemm_rung_at(i);
        if (!r->file)
            continue;
        names[n++] = r->name;
        if (here && kl_gemm_rung_available(kl, r, t, why, sizeof why))
            (*here)++;
    }
    return n;
}

/* 1 when word stands in text as a whole word ("int" not in "int8"). */
static int has_word(const char *text, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = strstr(text, word); p; p = strstr(p + 1, word)) {
        int before = p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_');
        int after = isalnum((unsigned char)p[n]) || p[n] == '_';
        if (!before && !after)
            return 1;
    }
    return 0;
}

/*
 * 1 when a skipped rung's reason names the input types it takes, where the
 * type is why (not the backend): float for the TF32 tensor cores, every
 * type of the mask for the others, and the type refused.
 */
static int names_its_types(const struct kl_gemm_rung *r, enum kl_type t, const char *note)
{
    unsigned mask = r->types ? r->types : KL_TYPES_WIDE;
    if ((mask & KL_TYPE_BIT(t)) || strstr(note, "--backend cuda"))
        return 1; /* skipped for another reason */
    if (r->precision == KL_PREC_TF32 || r->precision == KL_PREC_3XTF32)
        return has_word(note, "float");
    for (int u = 0; u < KL_TYPE_COUNT; u++)
        if ((mask & KL_TYPE_BIT(u)) && !has_word(note, kl_type_name((enum kl_type)u)))
            return 0;
    return has_word(note, kl_type_name(t));
}

/* Rungs in names that take the small_params tiles (warp-tiled rungs have their own). */
static int small_rungs(const char **names, int n)
{
    int kept = 0;
    for (int i = 0; i < n; i++) {
        const struct kl_gemm_rung *r = kl_gemm_rung_find(names[i]);
        if (strcmp(names[i], warp_rung[0]) != 0 && r->geometry != KL_GEO_WARPS &&
            r->geometry != KL_GEO_PERSISTENT)
            names[kept++] = names[i];
    }
    return kept;
}

static void run(struct kl_context *kl, enum kl_type t, const int *shape, const char *const *params,
                int nparams, const char *const *names, int nnames, int *ran)
{
    struct kl_gemm_request req;
    struct kl_report rep;
    memset(&req, 0, sizeof req);
    memset(&rep, 0, sizeof rep);
    req.M = shape[0], req.N = shape[1], req.K = shape[2];
    req.type = t;
    req.seed = 7;
    req.protocol =
        (struct kl_protocol){.warmup = 0, .min_repeats = 1, .min_time = 0.0, .max_repeats = 1};
    req.rungs = names;
    req.nrungs = nnames;
    req.params = params;
    req.nparams = nparams;
    enum kl_status st = kl_gemm_ladder(kl, &req, &rep);
    CHECK(st == KL_OK, "%s %dx%dx%d: %s", kl_type_name(t), shape[0], shape[1], shape[2],
          kl_last_error(kl));
    CHECK(rep.count == nnames, "expected %d results, got %d", nnames, rep.count);
    for (int i = 0; i < rep.count; i++) {
        const struct kl_result *r = &rep.results[i];
        const struct kl_gemm_rung *rung = kl_gemm_rung_find(r->rung);
        char why[256];
        CHECK(rung && r->precision == kl_gemm_rung_precision(rung, t),
              "%s %s: precision %s, expected %s", r->rung, kl_type_name(t),
              kl_precision_name(r->precision),
              rung ? kl_precision_name(kl_gemm_rung_precision(rung, t)) : "?");
        if (rung && !kl_gemm_rung_available(kl, rung, t, why, sizeof why)) {
            /* CUDA C++ elsewhere, TF32 without tensor cores or for double and int: skipped,
             * with the reason, whatever the parameters. */
            CHECK(r->status == KL_RESULT_SKIPPED && strcmp(r->note, why) == 0,
                  "%s %s on %s: status %d (%s), expected skipped (%s)", r->rung, kl_type_name(t),
                  kl->ops->name, (int)r->status, r->note, why);
            CHECK(names_its_types(rung, t, r->note),
                  "%s %s: the reason \"%s\" names not the types it takes", r->rung, kl_type_name(t),
                  r->note);
            continue;
        }
        CHECK(r->status == KL_RESULT_VERIFIED && r->repeats >= 1 && r->median_s > 0,
              "%s %s %dx%dx%d%s: status %d: %s", r->rung, kl_type_name(t), shape[0], shape[1],
              shape[2], nparams ? " (small params)" : "", (int)r->status, r->note);
        /* A verified result measured its error, within its precision's tolerance. */
        CHECK(r->status != KL_RESULT_VERIFIED ||
                  (r->error >= 0 &&
                   r->error <=
                       kl_gemm_tolerance(r->precision, t, shape[2], r->sum_span) * (1 + 1e-9)),
              "%s %s %dx%dx%d: error %g beyond the tolerance factor %g", r->rung, kl_type_name(t),
              shape[0], shape[1], shape[2], r->error,
              kl_gemm_tolerance(r->precision, t, shape[2], r->sum_span));
        if (r->status == KL_RESULT_VERIFIED && r->repeats >= 1)
            (*ran)++;
    }
    kl_report_free(&rep);
}

/* A device rung of the wide types only refuses each narrow one, naming what it takes. */
static void check_type_reason(const struct kl_context *kl)
{
    const struct kl_gemm_rung wide = {.name = "wide_only",
                                      .file = "opencl/gemm/01_naive.cl",
                                      .geometry = KL_GEO_2D,
                                      .types = KL_TYPES_WIDE};
    char why[256];
    for (int t = KL_HALF; t <= KL_INT8; t++) { /* the narrow types; uchar is no GEMM type */
        int ok = kl_gemm_rung_available(kl, &wide, (enum kl_type)t, why, sizeof why);
        CHECK(!ok && names_its_types(&wide, (enum kl_type)t, why) && has_word(why, "wide_only"),
              "a float/double/int rung in %s: %s", kl_type_name((enum kl_type)t),
              ok ? "available" : why);
    }
    CHECK(kl_gemm_rung_available(kl, &wide, KL_INT, why, sizeof why), "int refused: %s", why);
}

int main(int argc, char **argv)
{
    enum kl_type t = KL_FLOAT;
    struct kl_context *kl;
    char err[KL_ERR_MAX];
    const char *names[64];
    int ran = 0, expected = 0;

    if (argc > 1 && kl_type_parse(argv[1], &t) != KL_OK) {
        fprintf(stderr, "usage: %s [TYPE] (float, double, int, half, bf16, fp8, fp8e5m2, int8)\n",
                argv[0]);
        return 2;
    }
    if (kl_open(NULL, &kl, err, sizeof err) != KL_OK) {
        fprintf(stderr, "cannot open a device: %s\n", err);
        return 1;
    }
    if (t == KL_DOUBLE && !kl->info.fp64) {
        printf("device has no fp64: double rungs not run\n");
        kl_close(kl);
        return 77; /* CTest SKIP_RETURN_CODE */
    }
    check_type_reason(kl);
    int here, n = device_rungs(kl, t, names, &here);
    CHECK(n == 24, "the ladder has %d device rungs, expected 24", n);
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        run(kl, t, shapes[s], NULL, 0, names, n, &ran);
        expected += here;
    }
    /* Chunked and tiled paths with small parameters at two awkward shapes. */
    static const int chunked[][3] = {{129, 130, 131}, {23, 19, 61}};
    int nsmall = small_rungs(names, n), small_here = 0;
    char why[256];
    for (int i = 0; i < nsmall; i++)
        small_here += kl_gemm_rung_available(kl, kl_gemm_rung_find(names[i]), t, why, sizeof why);
    for (size_t s = 0; s < sizeof chunked / sizeof *chunked; s++) {
        run(kl, t, chunked[s], small_params, NSMALL, names, nsmall, &ran);
        expected += small_here;
    }
    int block_here = 0, tensor = 0;
    for (int i = 0; i < 3; i++)
        block_here +=
            kl_gemm_rung_available(kl, kl_gemm_rung_find(block_rungs[i]), t, why, sizeof why);
    int warp = kl_gemm_rung_available(kl, kl_gemm_rung_find(warp_rung[0]), t, why, sizeof why);
    int regblock =
        kl_gemm_rung_available(kl, kl_gemm_rung_find(block_rungs[0]), t, why, sizeof why);
    for (int i = 0; i < 4; i++)
        tensor +=
            kl_gemm_rung_available(kl, kl_gemm_rung_find(tensor_rungs[i]), t, why, sizeof why);
    /* The register-blocked rungs at more awkward shapes, with default and small blocks;
     * the warp-tiled ones with small tiles (their defaults ran at every shape above). */
    for (size_t s = 0; s < sizeof block_shapes / sizeof *block_shapes; s++) {
        run(kl, t, block_shapes[s], NULL, 0, block_rungs, 3, &ran);
        run(kl, t, block_shapes[s], block_params, 5, block_rungs, 3, &ran);
        run(kl, t, block_shapes[s], odd_params, 5, block_rungs, 1, &ran);
        run(kl, t, block_shapes[s], warp_params, 8, warp_rung, 1, &ran);
        run(kl, t, block_shapes[s], tensor_params, 6, tensor_rungs, 4, &ran);
        expected += 2 * block_here + regblock + warp + tensor;
    }
    int split13 = kl_gemm_rung_available(kl, kl_gemm_rung_find(split_rungs[0]), t, why, sizeof why);
    for (size_t s = 0; s < sizeof block_shapes / sizeof *block_shapes; s++) {
        run(kl, t, block_shapes[s], split13_params, 6, split_rungs, 1, &ran);
        run(kl, t, block_shapes[s], split14_params, 9, split_rungs + 1, 1, &ran);
        run(kl, t, block_shapes[s], split_many, 1, split_rungs, 2, &ran);
        expected += 2 * split13 + 2 * warp;
    }
    int typed = 0;
    for (int i = 0; i < 2; i++)
        typed += kl_gemm_rung_available(kl, kl_gemm_rung_find(typed_rungs[i]), t, why, sizeof why);
    for (size_t s = 0; s < sizeof block_shapes / sizeof *block_shapes; s++)
        for (int p = 0; p < 2; p++) {
            run(kl, t, block_shapes[s], typed_params[p], 7, typed_rungs, 2, &ran);
            expected += typed;
        }
    int wgmma = 0;
    for (int i = 0; i < 2; i++)
        wgmma += kl_gemm_rung_available(kl, kl_gemm_rung_find(wgmma_rungs[i]), t, why, sizeof why);
    for (size_t s = 0; s < sizeof wgmma_shapes / sizeof *wgmma_shapes; s++) {
        run(kl, t, wgmma_shapes[s], wgmma_params, 4, wgmma_rungs, 2, &ran);
        expected += wgmma;
    }
    CHECK(ran == expected, "%d rung runs verified, expected %d", ran, expected);
    printf("%s: %d rung runs verified on %s\n", kl_type_name(t), ran, kl->info.name);
    kl_close(kl);
    return check_summary();
}
