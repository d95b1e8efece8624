#include "tune/gemm.h"

#include <string.h>

/*
 * What the tuner leaves at its default: PROMOTE (how often FP8 sums reach fp32 sets the
 * result's accuracy), SK (stream-K is its rule's choice or the user's: a wait that traps
 * would end the tuner's context, and the rule knows where it pays), and paths measured on a
 * GPU and settled, whose trying would cost the search its time (and a fault would end the
 * tuner's context too): EPI (the stores of C by TMA in rungs 17, 18 and 20, the default
 * since an H200 measured them faster and tests/gpu/cuda.sh step 6c verified them under the
 * sanitizers), PREFETCH=0 (rung 21's single set of fragments, 0.81x of the defaults on an
 * H200; step 6d; its ring, PREFETCH=2, is searched beside the default) and PAD=0 (rungs 17
 * and 18 reading unaligned rows by cp.async, 15x slower; step 6e; where rows are aligned,
 * the residual's rule chooses it for rung 18). HINT (rung 20's L2 policies) is searched at
 * 0 and at 3, the L2 rule's value; 1 and 2 are its halves.
 */
/* hopper: held on the Hopper rungs only (rungs 12 and 13's PAD, their local tile's padding,
   is another parameter of that name, and searched); also: a value searched beside the default
   (-1: none) */
static const struct {
    const char *name;
    int hopper, also;
} held_names[] = {{"PROMOTE", 0, -1}, {"SK", 0, -1},  {"EPI", 0, -1},
                  {"PREFETCH", 0, 2}, {"PAD", 1, -1}, {"HINT", 0, 3}};
#define HELD_COUNT (sizeof held_names / sizeof *held_names)

/* 1 where held_names[k] holds a parameter of g's rung. */
static int holds(const struct kl_tune_gemm *g, size_t k)
{
    return !held_names[k].hopper || g->rung->hopper;
}

static int held(const struct kl_tune_gemm *g, const int *v)
{
    for (size_t k = 0; k < HELD_COUNT; k++) {
        if (!holds(g, k))
            continue;
        int i = kl_param_index(g->rung->params, held_names[k].name);
        if (i >= 0 && v[i] != g->rung->params[i].def && v[i] != held_names[k].also)
            return 1;
    }
    return 0;
}

/* 1 where parameter NAME of g's rung is held at its default with nothing searched beside it:
   the space's axis is the default alone. */
static int held_alone(const struct kl_tune_gemm *g, const char *name)
{
    for (size_t k = 0; k < HELD_COUNT; k++)
        if (strcmp(held_names[k].name, name) == 0)
            return held_names[k].also < 0 && holds(g, k);
    return 0;
}

/* The extent of C or K that a parameter tiles (0: none); values beyond it only waste work. A
   parameter held at its default with no value searched beside it: -1. */
static long extent(void *self, const char *name)
{
    const struct kl_tune_gemm *g = self;
    if (held_alone(g, name))
        return -1;
    static const char *const rows[] = {"WG0", "WG", "BM", "TM"},
                             *const cols[] = {"WG1", "BN", "TN"}, *const deep[] = {"KC", "BK"};
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++)
        if (strcmp(name, rows[i]) == 0)
            return g->M;
    for (size_t i = 0; i < sizeof cols / sizeof *cols; i++)
        if (strcmp(name, cols[i]) == 0)
            return g->N;
    for (size_t i = 0; i < sizeof deep / sizeof *deep; i++)
        if (strcmp(name, deep[i]) == 0)
            return g->K;
    if (strcmp(name, "TS") == 0)
        return g->M > g->N ? g->M : g->N;
    return 0;
}

static enum kl_status check(void *self, const char *const *items, int n, size_t *wg,
                            struct kl_err *e)
{
    const struct kl_tune_gemm *g = self;
    return kl_gemm_check(g->kl, g->rung, items, n, g->type, g->M, g->N, wg, e);
}

/* Registers a GPU work-item may use for its block of C and operands before it spills. */
#define GPU_BLOCK_BYTES 640

/*
 * Split-K (SPLITK > 1) where it cannot help: where split-K's model
 * (kl_gemm_split_gain: the waves of blocks against the partial products'
 * traffic) has it no faster, as where C's blocks fill whole waves of the
 * compute units, or with splits of fewer than four slices of K.
 */
static int split_useless(const struct kl_tune_gemm *g, const int *v)
{
    if (g->splitk < 0 || v[g->splitk] <= 1 || g->bm < 0 || g->bn < 0 || g->bk < 0)
        return 0;
    size_t units = g->kl->info.compute_units ? g->kl->info.compute_units : 1;
    return kl_gemm_split_gain(g->rung, v, g->type, units, g->M, g->N, g->K, v[g->splitk]) <= 1.0;
}

/*
 * Register blocks (BM × BN) no more than 4:1 from square, as they load more
 * per multiply-add; on a GPU no work-item block (TM·TN + TM + TN elements)
 * above 640 bytes, 160 32-bit registers; no warp tile whose accumulators
 * (WM·WN/32 per lane) pass 128 registers; what `held` holds at its default;
 * SPLITK only where it may help (split_useless).
 */
static int breaks(const struct kl_tune_gemm *g, const int *v)
{
    int ti = g->tm, ni = g->tn, bi = g->bm, ci = g->bn, wmi = g->wm, wni = g->wn;
    int block = g->rung->geometry == KL_GEO_BLOCK && ti >= 0 && ni >= 0 && bi >= 0 && ci >= 0;
    int warps = g->rung->geometry == KL_GEO_WARPS && wmi >= 0 && wni >= 0 && bi >= 0 && ci >= 0;
    size_t es = kl_type_size(g->type);
    int broken = held(g, v) | split_useless(g, v);
    if (block || warps)
        broken |= v[bi] > 4 * v[ci] || v[ci] > 4 * v[bi];
    if (block) {
        size_t tm = (size_t)v[ti], tn = (size_t)v[ni];
        broken |= g->kl->info.is_gpu && (tm * tn + tm + tn) * es > GPU_BLOCK_BYTES;
    }
    if (warps) /* the accumulators are of C's type (float for the narrow types) */
        broken |=
            (size_t)v[wmi] * (size_t)v[wni] / 32 * kl_type_size(kl_type_output(g->type)) > 512;
    return broken;
}

/* The sensible space's rules (breaks), which the start, what the rung runs untuned (its
   rules may set a held SK or PAD), never breaks. */
static int rules(void *self, const int *v)
{
    const struct kl_tune_gemm *g = self;
    int start = g->target.start &&
                memcmp(v, g->start, (size_t)kl_param_count(g->rung->params) * sizeof *v) == 0;
    return !start && breaks(g, v);
}

static enum kl_status run(void *self, const char *const *items, int n,
                          const struct kl_protocol *proto, struct kl_run_limits *lim,
                          struct kl_result *res)
{
    const struct kl_tune_gemm *g = self;
    return kl_gemm_bench_run(g->bench, g->rung, items, n, proto, lim, res);
}

/* What the rung runs untuned in a ladder as the search's start (its preset for the device,
   type and size, the schedule's rules on it), where that is not the defaults alone. */
static enum kl_status untuned_start(struct kl_tune_gemm *g, struct kl_err *e)
{
    enum kl_status st =
        kl_gemm_untuned_values(g->rung, &g->kl->info, g->type, g->M, g->N, g->K, g->start,
                               g->start_config, sizeof g->start_config, e);
    if (st == KL_OK && g->start_config[0])
        g->target.start = g->start;
    return st;
}

enum kl_status kl_tune_gemm_target(struct kl_context *kl, struct kl_gemm_bench *b,
                                   const struct kl_gemm_rung *r, enum kl_type t, int M, int N,
                                   int K, struct kl_tune_gemm *g, struct kl_err *e)
{
    char why[256];
    memset(g, 0, sizeof *g);
    if (!r->file)
        return kl_fail(e, KL_ERR_ARG, "rung %s runs on the host: it has no parameters to tune",
                       r->name);
    if (kl_kernel_elsewhere(kl, r->file))
        return kl_fail(e, KL_ERR_UNSUPPORTED, "rung %s is CUDA C++: tune it with --backend cuda",
                       r->name);
    if (!kl_gemm_rung_available(kl, r, t, why, sizeof why))
        return kl_fail(e, KL_ERR_UNSUPPORTED, "rung %s cannot run on this device: %s", r->name,
                       why);
    const struct kl_param_def *p = r->params;
    *g = (struct kl_tune_gemm){
        .kl = kl,
        .bench = b,
        .rung = r,
        .type = t,
        .M = M,
        .N = N,
        .K = K,
        .tm = kl_param_index(p, "TM"),
        .tn = kl_param_index(p, "TN"),
        .bm = kl_param_index(p, "BM"),
        .bn = kl_param_index(p, "BN"),
        .wm = kl_param_index(p, "WM"),
        .wn = kl_param_index(p, "WN"),
        .splitk = kl_param_index(p, "SPLITK"),
        .bk = kl_param_index(p, "BK"),
        .target = {r->name, r->params, NULL, g, extent, check, rules, run, &kl->err}};
    return untuned_start(g, e);
}
