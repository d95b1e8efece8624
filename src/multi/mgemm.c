/*
 * The multi-GPU GEMM ladder (multi/mgemm.h): the request, the devices and
 * NCCL, the choice of the local multiply, and one row per rung, each
 * verified before it is timed. The schedules themselves are multi/summa.c.
 */
#include "multi/mgemm.h"
#include "multi/p2p.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ladder.h"
#include "core/progress.h"
#include "core/stop.h"

static const struct kl_mgemm_rung rungs[] = {
    {"0_one_gpu",
     "the local multiply alone on device 0, whole problem: the baseline of scaling efficiency "
     "and the result every later row must match",
     {{0}}},
    {"1_rows",
     "A split by rows over the devices, B broadcast from device 0 (ncclBroadcast), each device "
     "multiplies its rows, C gathered to device 0 (ncclSend/ncclRecv)",
     {{0}}},
    {"2_summa",
     "SUMMA on a pr×pc grid: per K panel, A's panel broadcast along grid rows and B's along "
     "grid columns (grouped ncclSend/ncclRecv), then C_ij += A_panel·B_panel",
     {{0}}},
    {"3_summa_overlap",
     "rung 2 with panel k+1's broadcasts on a second stream while panel k is multiplied "
     "(double-buffered panels, events between the streams)",
     {{0}}},
};
KL_RUNG_TABLE(mgemm, struct kl_mgemm_rung, rungs);

const char *kl_mgemm_rung_name(int i)
{
    return kl_mgemm_rung_at(i) ? rung_name(i) : NULL;
}

const char *kl_mgemm_rung_summary(int i)
{
    return kl_mgemm_rung_at(i) ? rung_summary(i) : NULL;
}

const char kl_mgemm_peer_names[] = "cublas";

const struct kl_ranks *kl_ranks = NULL;

#ifdef KLADDER_HAVE_CUDA

#include "core/context.h"
#include "core/measure.h"
#include "core/util.h"
#include "core/verify.h"
#include "multi/mref.h"
#include "multi/summa.h"
#include "workloads/gemm/gemm.h"

/* The ladder's state: devices, NCCL, data, reference, and row 0's result. */
struct mgemm {
    const struct kl_mgemm_request *req;
    struct kl_menv env; /* env.nccl: NCCL loaded and communicators made; else why_no_nccl */
    char why_no_nccl[600];
    int kb;
    float *A, *B, *C, *C0; /* C: the current row's result; C0: row 0's, once verified */
    int have0;             /* C0 holds row 0's verified result */
    enum kl_precision prec0;
    double t0; /* row 0's median */
    struct kl_gemm_reference *ref;
    char ref_note[120]; /* why the reference is the host's though the problem is large */
    double link_gbps;   /* the link roof: the slowest NCCL send/receive pair; 0: none */
    const char *local;  /* the local rung's exact name */
    char chose[480];    /* how it was chosen */
};

/* ---- the request, the devices, NCCL ------------------------------------------- */

static enum kl_status check_request(const struct kl_mgemm_request *req, int *chosen, int *nchosen,
                                    struct kl_err *e)
{
    const struct kl_rung_set set = {&table, NULL, 0};
    enum kl_status st;
    if (req->M < 1 || req->N < 1 || req->K < 1)
        return kl_fail(e, KL_ERR_ARG, "sizes must be >= 1 (got M=%d N=%d K=%d)", req->M, req->N,
                       req->K);
    if (req->kb != 0 && (req->kb < 4 || req->kb % 4 != 0))
        return kl_fail(e, KL_ERR_ARG,
                       "the panel width kb=%d must be a positive multiple of 4, so that every "
                       "panel starts 16-byte aligned inside its owner's block",
                       req->kb);
    for (int j = 0; j < req->npeers; j++)
        if (strcmp(req->peers[j], "cublas") != 0)
            return kl_fail(e, KL_ERR_ARG, "unknown peer \"%s\" for mgemm (%s)", req->peers[j],
                           kl_mgemm_peer_names);
    if (req->local && !kl_gemm_rung_find(req->local))
        return kl_gemm_rung_not_found(req->local, "gemm rung for the local multiply", e);
    if ((st = kl_protocol_check(&req->protocol, e)) != KL_OK)
        return st;
    return kl_rungs_choose(&set, req->rungs, req->nrungs, NULL, 0, chosen, nchosen, e);
}

/* ---- the local multiply --------------------------------------------------------- */

/* Tried in this order when the request names none: FP32-accurate, fastest first. */
static const char *const first_choices[] = {"18_wgmma_3xtf32", "16_mma_3xtf32", "14_warptile"};

static int first_choice(const struct kl_gemm_rung *r)
{
    for (size_t x = 0; x < sizeof first_choices / sizeof *first_choices; x++)
        if (strcmp(r->name, first_choices[x]) == 0)
            return 1;
    return 0;
}

/* 1 when rung r is a candidate for the local multiply at width n: float-accurate, on buffers. */
static int candidate(const struct kl_context *kl, const struct kl_gemm_rung *r, int n, char *why,
                     size_t len)
{
    enum kl_precision p = kl_gemm_rung_precision(r, KL_FLOAT);
    if (p != KL_PREC_FP32 && p != KL_PREC_3XTF32) {
        snprintf(why, len, "not float-accurate (%s)", kl_precision_name(p));
        return 0;
    }
    return kl_gemm_rung_available(kl, r, KL_FLOAT, why, len) &&
           kl_gemm_rung_on_buffers(r, KL_FLOAT, n, why, len);
}

/* Buffers of one trial problem on device 0. */
struct trial {
    struct kl_context *kl;
    struct kl_buf *a, *b, *c;
    float *A, *B, *C, *poison;
    int m, n, k;
    struct kl_gemm_reference *ref;
};

static void trial_close(struct trial *t)
{
    if (t->kl) {
        t->kl->ops->release(t->a);
        t->kl->ops->release(t->b);
        t->kl->ops->release(t->c);
    }
    kl_gemm_reference_close(t->ref);
    free(t->A);
    free(t->B);
    free(t->C);
    free(t->poison);
}

static enum kl_status trial_open(struct trial *t, unsigned long long seed, struct kl_err *e)
{
    struct kl_context *kl = t->kl;
    size_t mk = (size_t)t->m * t->k, kn = (size_t)t->k * t->n, mn = (size_t)t->m * t->n;
    struct kl_rng rng;
    enum kl_status st;
    t->A = malloc(mk * sizeof *t->A), t->B = malloc(kn * sizeof *t->B);
    t->C = malloc(mn * sizeof *t->C), t->poison = malloc(mn * sizeof *t->poison);
    if (!t->A || !t->B || !t->C || !t->poison)
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory for the local multiply's trial");
    kl_rng_seed(&rng, seed ^ 0x10ca1ULL);
    kl_fill_uniform(KL_FLOAT, t->A, mk, &rng);
    kl_fill_uniform(KL_FLOAT, t->B, kn, &rng);
    kl_poison(KL_FLOAT, t->poison, mn);
    if ((st = kl_device_fits(kl, (double)(mk + kn + mn) * sizeof(float),
                             "the local multiply's trial", e)) != KL_OK ||
        (st = kl->ops->alloc(kl->dev, mk * sizeof(float), &t->a, e)) != KL_OK ||
        (st = kl->ops->alloc(kl->dev, kn * sizeof(float), &t->b, e)) != KL_OK ||
        (st = kl->ops->alloc(kl->dev, mn * sizeof(float), &t->c, e)) != KL_OK ||
        (st = kl->ops->write(kl->dev, t->a, t->A, mk * sizeof(float), e)) != KL_OK ||
        (st = kl->ops->write(kl->dev, t->b, t->B, kn * sizeof(float), e)) != KL_OK)
        return st;
    return kl_gemm_reference_open(KL_FLOAT, t->m, t->n, t->k, t->A, t->B, seed, &t->ref, e);
}

/*
 * One candidate: built, launched once on a poisoned C and verified, then
 * timed briefly (events, device 0). *seconds < 0 and why when it cannot run
 * or fails; an error return only for a device failure.
 */
static enum kl_status trial_run(struct trial *t, const struct kl_gemm_rung *r, double *seconds,
                                char *why, size_t len)
{
    static const struct kl_protocol brief = {
        .warmup = 1, .min_repeats = 3, .min_time = 0.0, .max_repeats = 3};
    struct kl_context *kl = t->kl;
    struct kl_launch l;
    struct kl_timing tm;
    struct kl_stats stats;
    struct kl_result res = {.precision = kl_gemm_rung_precision(r, KL_FLOAT)};
    char config[128];
    double first;
    size_t cbytes = (size_t)t->m * t->n * sizeof(float);
    enum kl_status st = kl_gemm_launch_on(kl, r->name, KL_FLOAT, t->m, t->n, t->k, t->a, t->b, t->c,
                                          &l, &tm, config, sizeof config);
    *seconds = -1;
    if (st == KL_ERR_ARG || st == KL_ERR_UNSUPPORTED || st == KL_ERR_BUILD) {
        snprintf(why, len, "%.200s", kl->err.msg);
        return KL_OK;
    }
    if (st != KL_OK || (st = kl->ops->write(kl->dev, t->c, t->poison, cbytes, &kl->err)) != KL_OK ||
        (st = kl_launch_timed(&l, &first, &kl->err)) != KL_OK ||
        (st = kl->ops->read(kl->dev, t->c, t->C, cbytes, &kl->err)) != KL_OK)
        return st;
    kl_gemm_reference_judge(t->ref, t->C, NULL, NULL, KL_PREC_NONE, &res);
    if (res.status != KL_RESULT_VERIFIED) {
        snprintf(why, len, "failed: %.200s", res.note);
        return KL_OK;
    }
    if ((st = kl_measure(kl, &brief, kl_launch_timed, &l, &stats, &kl->err)) != KL_OK)
        return st;
    *seconds = stats.median;
    return KL_OK;
}

/* Appends "NAME WHAT" to the list in L->chose (what was tried and how it went). */
static void tried(struct mgemm *L, const char *name, const char *what)
{
    size_t used = strlen(L->chose);
    if (used + 1 < sizeof L->chose)
        snprintf(L->chose + used, sizeof L->chose - used, "%s%s %s", used ? ", " : "", name, what);
}

/*
 * Tries every candidate in turn on t, the first choices (i < 0) before the
 * plain FMA rungs (only where no first choice verified); the fastest that
 * verifies becomes L->local, each one's time noted in L->chose.
 */
static enum kl_status try_rungs(struct mgemm *L, struct trial *t, struct kl_err *e)
{
    char why[256], line[64];
    double best = -1;
    int nfirst = (int)(sizeof first_choices / sizeof *first_choices);
    for (int i = -nfirst; i < kl_gemm_rung_count(); i++) {
        const struct kl_gemm_rung *r =
            i < 0 ? kl_gemm_rung_find(first_choices[i + nfirst]) : kl_gemm_rung_at(i);
        double s;
        enum kl_status st;
        if (i == 0 && L->local)
            break; /* a first choice verified: the plain FMA rungs are slower on any GPU */
        if (i >= 0 && (r->precision != KL_PREC_NONE || !r->file || first_choice(r)))
            continue; /* beyond the first choices, the plain FMA rungs */
        if (!candidate(t->kl, r, t->n, why, sizeof why))
            continue;
        if ((st = trial_run(t, r, &s, why, sizeof why)) != KL_OK)
            return kl_fail(e, st, "device 0, trying %s for the local multiply: %s", r->name,
                           t->kl->err.msg);
        snprintf(line, sizeof line, "%.3g ms", s * 1e3);
        tried(L, r->name, s < 0 ? "no" : line);
        if (s >= 0 && (best < 0 || s < best))
            best = s, L->local = r->name;
    }
    return KL_OK;
}

/* L->chose says which rung was chosen and why, before the times of those tried. */
static void say_choice(struct mgemm *L, const struct trial *t)
{
    char why[256];
    snprintf(why, sizeof why,
             "local multiply %s: the fastest verified at device 0's block %d×%d×%d (", L->local,
             t->m, t->n, t->k);
    size_t n = strlen(why), rest = strlen(L->chose);
    if (n + rest + 2 < sizeof L->chose) {
        memmove(L->chose + n, L->chose, rest + 1);
        memcpy(L->chose, why, n);
        strcat(L->chose, ")");
    } else {
        snprintf(L->chose, sizeof L->chose, "%s...)", why);
    }
}

/* With ranks: rank 0's choice (or its failure) is every rank's. */
static enum kl_status share_choice(struct mgemm *L, enum kl_status st, struct kl_err *e)
{
    const struct kl_ranks *R = L->env.ranks;
    char name[64] = "";
    if ((st = kl_ranks_agreed(R, st, KL_ERR_UNSUPPORTED, e)) != KL_OK)
        return st;
    if (R->rank == 0)
        snprintf(name, sizeof name, "%s", L->local);
    R->bcast(name, sizeof name);
    R->bcast(L->chose, sizeof L->chose);
    L->local = kl_gemm_rung_find(name)->name;
    return KL_OK;
}

/* The trial on device 0 (only the root process has it). */
static enum kl_status choose_on_device0(struct mgemm *L, struct kl_err *e)
{
    struct kl_summa plan;
    struct kl_summa_block blk;
    struct trial t = {.kl = L->env.dev[0].kl};
    enum kl_status st;
    if ((st = kl_summa_plan(L->req->M, L->req->N, L->req->K, L->env.G, L->kb, &plan, e)) != KL_OK)
        return st;
    kl_summa_block(&plan, 0, &blk);
    t.m = blk.m, t.n = blk.n, t.k = L->kb < L->req->K ? L->kb : L->req->K;
    if ((st = t.kl->ops->make_current(t.kl->dev, e)) == KL_OK &&
        (st = trial_open(&t, L->req->seed, e)) == KL_OK && (st = try_rungs(L, &t, e)) == KL_OK) {
        if (L->local)
            say_choice(L, &t);
        else
            st = kl_fail(e, KL_ERR_UNSUPPORTED,
                         "no float-accurate GEMM rung verified on device 0 at %d×%d×%d (%s)", t.m,
                         t.n, t.k, L->chose);
    }
    trial_close(&t);
    return st;
}

/*
 * The local multiply: the request's rung, else the fastest verified of the
 * float-accurate rungs device 0 has (first_choices; only where none of them
 * verifies, the plain FMA rungs that take row-major buffers), tried at
 * device 0's SUMMA block (m×n, one panel of depth min(kb, K)) and timed
 * briefly. With ranks, rank 0 (device 0) tries them and every rank takes its
 * choice.
 */
static enum kl_status choose_local(struct mgemm *L, struct kl_err *e)
{
    if (L->req->local) {
        L->local = kl_gemm_rung_find(L->req->local)->name;
        snprintf(L->chose, sizeof L->chose, "local multiply %s, as asked", L->local);
        return KL_OK;
    }
    enum kl_status st = kl_menv_root(&L->env) ? choose_on_device0(L, e) : KL_OK;
    return L->env.ranks ? share_choice(L, st, e) : st;
}

/* ---- the rows --------------------------------------------------------------------- */

/* Appends to a row's note. */
static void note(struct kl_result *res, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void note(struct kl_result *res, const char *fmt, ...)
{
    size_t used = strlen(res->note);
    va_list ap;
    if (used + 1 >= sizeof res->note)
        return;
    va_start(ap, fmt);
    vsnprintf(res->note + used, sizeof res->note - used, fmt, ap);
    va_end(ap);
}

/*
 * The link roof (G > 1, NCCL loaded): kladder peak --p2p's NCCL send/receive
 * between every pair of the devices, at 64 MiB, briefly timed; the slowest
 * pair's GB/s. Said in the report's ceilings line; 0 (and said) where there
 * is none.
 */
static void link_roof(struct mgemm *L, struct kl_report *rep)
{
    struct kl_p2p_request q = {L->req->devices, L->env.G, (size_t)64 << 20, {0}, NULL};
    struct kl_report links;
    struct kl_err e;
    char said[400];
    size_t used = strlen(rep->ceiling_note);
    L->link_gbps = 0;
    memset(&links, 0, sizeof links);
    if (L->env.ranks) {
        snprintf(said, sizeof said,
                 "no link roof between ranks (kladder-mpi peak --p2p's nccl rows measure "
                 "each pair's link)");
    } else if (L->env.G < 2 || !L->env.nccl) {
        snprintf(said, sizeof said, "%s",
                 L->env.G < 2 ? "no link roof: one device, nothing moves between devices"
                              : "no link roof: NCCL is not loaded");
    } else {
        kl_protocol_default(&q.protocol);
        q.protocol.min_time = 0.02;
        if (kl_p2p_measure(&q, &links, &e) == KL_OK)
            for (int k = 0; k < links.count; k++) {
                const struct kl_result *x = &links.results[k];
                if (strncmp(x->rung, "nccl ", 5) == 0 && x->status == KL_RESULT_VERIFIED &&
                    (L->link_gbps == 0 || x->gbps < L->link_gbps))
                    L->link_gbps = x->gbps;
            }
        char version[32];
        kl_nccl_version_text(L->env.nccl, version, sizeof version);
        if (L->link_gbps > 0)
            snprintf(said, sizeof said,
                     "link roof %.1f GB/s: the slowest %s send/receive between two of the %d "
                     "devices (64 MiB, measured in this run; kladder peak --p2p has them all)",
                     L->link_gbps, version, L->env.G);
        else
            snprintf(said, sizeof said, "no link roof: the links could not be measured (%.300s)",
                     links.count ? "no NCCL pair verified" : e.msg);
        kl_report_free(&links);
    }
    snprintf(rep->ceiling_note + used, sizeof rep->ceiling_note - used, "%s%s", used ? "; " : "",
             said);
}

/* What a verified row's note says after its check: devices, schedule, efficiency. */
static void describe(const struct mgemm *L, enum kl_sched sched, struct kl_result *res,
                     const char *config, const char *local, double recv_bytes)
{
    if (sched == KL_SCHED_ONE) {
        note(res, "; device 0 alone, local %s", local);
    } else {
        note(res, "; %d device%s, %s, local %s, %s", L->env.G, L->env.G == 1 ? "" : "s", config,
             local,
             sched == KL_SCHED_ROWS ? "C gathered to device 0 (timed)" : "C left in its blocks");
        if (L->t0 > 0 && res->median_s > 0)
            note(res, "; efficiency %.3f (GFLOP/s over %d × row 0's)",
                 L->t0 / (L->env.G * res->median_s), L->env.G);
        if (recv_bytes > 0 && L->link_gbps > 0)
            note(res, "; the busiest device receives %.1f MB a run: >= %.3f ms at the link roof",
                 recv_bytes * 1e-6, recv_bytes / (L->link_gbps * 1e9) * 1e3);
    }
    note(res, "; inputs placed before timing (the scatter is setup, untimed)");
}

/*
 * Row i (a rung, or the cuBLAS peer with local NULL): set up, run once and
 * verify, then timed by the protocol. Rows that cannot run are skipped with
 * the reason; errors are device failures and interruptions.
 */
static enum kl_status run_row(struct mgemm *L, enum kl_sched sched, const char *local,
                              struct kl_result *res, struct kl_err *e)
{
    const struct kl_mgemm_request *req = L->req;
    const struct kl_ranks *R = sched == KL_SCHED_ONE ? NULL : L->env.ranks;
    struct kl_mrun *run = NULL;
    struct kl_stats stats;
    enum kl_status st;
    if (sched != KL_SCHED_ONE && !L->env.nccl) {
        kl_mrow_skip(res, L->why_no_nccl);
        return KL_OK;
    }
    if (sched == KL_SCHED_ONE && !kl_menv_root(&L->env))
        return KL_OK; /* rank 0's device alone */
    st = kl_mrun_open(&L->env, sched, L->kb, local, &run, e);
    if (st == KL_ERR_UNSUPPORTED || st == KL_ERR_NO_MEMORY || st == KL_ERR_ARG) {
        kl_mrow_skip(res, e->msg);
        return KL_OK;
    }
    if (st != KL_OK)
        return st;
    res->build_s = kl_mrun_build_s(run);
    snprintf(res->options, sizeof res->options, "%s", kl_mrun_options(run));
    snprintf(res->config, sizeof res->config, "%s", kl_mrun_config(run));
    if ((st = kl_mrun_verify(run, L->C, e)) != KL_OK)
        goto done;
    if (kl_menv_root(&L->env))
        kl_gemm_reference_judge(L->ref, L->C, L->have0 ? L->C0 : NULL, "row 0 (0_one_gpu)",
                                L->prec0, res);
    if (R) { /* rank 0's verdict: whether every rank times the row */
        int status = res->status;
        R->bcast(&status, sizeof status);
        res->status = (enum kl_result_status)status;
    }
    if (res->status != KL_RESULT_VERIFIED)
        goto done;
    kl_measure_forget();
    if ((st = kl_measure(NULL, &req->protocol, kl_mrun_once, run, &stats, e)) != KL_OK) {
        if (st == KL_ERR_INTERRUPTED)
            kl_mrow_skip(res, "not measured: the run was interrupted");
        goto done;
    }
    kl_result_set_stats(res, &stats);
    kl_result_keep_measured(res);
    if (sched == KL_SCHED_ONE) {
        float *swap = L->C0;
        L->C0 = L->C, L->C = swap, L->prec0 = res->precision, L->t0 = res->median_s;
        L->have0 = 1;
    }
    describe(L, sched, res, kl_mrun_config(run), local ? local : "cublasSgemm",
             kl_mrun_recv_bytes(run));
done:
    kl_mrun_close(run);
    return st;
}

/* The report's header: device 0's facts, the sizes with the device count, the work. */
static void header(struct mgemm *L, struct kl_report *rep)
{
    const struct kl_mgemm_request *req = L->req;
    double M = req->M, N = req->N, K = req->K;
    kl_ladder_report(rep, kl_menv_first(&L->env), "mgemm", KL_FLOAT, req->seed, &req->protocol);
    snprintf(rep->sizes, sizeof rep->sizes, "M=%d N=%d K=%d devices=%d", req->M, req->N, req->K,
             L->env.G);
    snprintf(rep->size_json, sizeof rep->size_json,
             "\"M\": %d, \"N\": %d, \"K\": %d, \"devices\": %d", req->M, req->N, req->K, L->env.G);
    rep->flops = 2.0 * M * N * K;
    rep->bytes = (M * K + K * N + M * N) * sizeof(float);
    rep->show_config = 1;
    snprintf(rep->timing, sizeof rep->timing, "%s",
             L->env.ranks ? "each rank's host clock from a barrier to its device done; a run's "
                            "time is the slowest rank's"
                          : "the host clock from a run's first call queued to its last device "
                            "done");
    snprintf(rep->reference, sizeof rep->reference, "%.130s%.120s; %.250s",
             L->ref ? kl_gemm_reference_how(L->ref) : "rank 0's", L->ref_note, L->chose);
}

/*
 * After kl_report_finish: a row on G identical devices has G times one
 * device's roof, so its % of the roof is divided by G; with devices that
 * differ there is no one roof to name, and none is shown.
 */
static void roofs_of_many(struct mgemm *L, struct kl_report *rep)
{
    int same = L->env.same_devices;
    for (int i = 0; i < rep->count; i++)
        if (strcmp(rep->results[i].rung, "0_one_gpu") != 0)
            rep->results[i].pct_ceiling = same ? rep->results[i].pct_ceiling / L->env.G : 0;
}

/*
 * The host inputs `kladder gemm` draws for the same seed (each rank draws them whole and
 * places its own blocks), and on the root process two results (the row being checked, and
 * row 0's once it verified: they swap) and the reference.
 */
static enum kl_status inputs_open(struct mgemm *L, struct kl_err *e)
{
    const struct kl_mgemm_request *req = L->req;
    size_t M = (size_t)req->M, N = (size_t)req->N, K = (size_t)req->K;
    struct kl_rng rng;
    int root = kl_menv_root(&L->env);
    L->A = malloc(M * K * sizeof *L->A), L->B = malloc(K * N * sizeof *L->B);
    if (root)
        L->C = malloc(M * N * sizeof *L->C), L->C0 = malloc(M * N * sizeof *L->C0);
    if (!L->A || !L->B || (root && (!L->C || !L->C0)))
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory for M=%zu N=%zu K=%zu", M, N, K);
    kl_rng_seed(&rng, req->seed);
    kl_fill_uniform(KL_FLOAT, L->A, M * K, &rng);
    kl_fill_uniform(KL_FLOAT, L->B, K * N, &rng);
    L->env.M = req->M, L->env.N = req->N, L->env.K = req->K, L->env.A = L->A, L->env.B = L->B;
    if (!root)
        return KL_OK;
    if ((double)M * N * K >= KL_MREF_WORK) { /* the device's first: seconds, not minutes */
        struct kl_err why;
        if (kl_mref_open(&L->env, req->devices[0], req->seed, &L->ref, &why) == KL_OK)
            return KL_OK;
        snprintf(L->ref_note, sizeof L->ref_note, " (the device's failed: %.90s)", why.msg);
    }
    return kl_gemm_reference_open(KL_FLOAT, req->M, req->N, req->K, L->A, L->B, req->seed, &L->ref,
                                  e);
}

/* The chosen schedules' rows (rungs 0 to 3, in enum kl_sched's order), then the peers'. */
static enum kl_status ladder_rows(struct mgemm *L, const int *chosen, int nchosen,
                                  struct kl_report *rep, struct kl_err *e)
{
    enum kl_status st = KL_OK;
    int total = nchosen + L->req->npeers;
    for (int x = 0; x < total && st == KL_OK; x++) {
        int i = x < nchosen ? chosen[x] : -1;
        char name[64];
        snprintf(name, sizeof name, "%s", i >= 0 ? rungs[i].name : "peer:cublas");
        kl_progress_step(x, total, "mgemm %s", name);
        struct kl_result *res = kl_report_add(rep, name, i >= 0 ? rungs[i].summary : NULL);
        if (!res)
            return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory");
        res->peer = i < 0;
        res->precision =
            i < 0 ? KL_PREC_FP32 : kl_gemm_rung_precision(kl_gemm_rung_find(L->local), KL_FLOAT);
        /* The peer runs rung 3's schedule. */
        st = run_row(L, i < 0 ? KL_SCHED_OVERLAP : (enum kl_sched)i, i < 0 ? NULL : L->local, res,
                     e);
        /* with ranks, a row's error ends every rank's ladder */
        st = kl_ranks_agreed(L->env.ranks, st, KL_ERR_BACKEND, e);
    }
    return st;
}

enum kl_status kl_mgemm_ladder(const struct kl_mgemm_request *req, struct kl_report *rep,
                               struct kl_err *e)
{
    struct mgemm *L = calloc(1, sizeof *L);
    int chosen[8], nchosen = 0;
    enum kl_status st;
    if (!L)
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory");
    L->req = req;
    L->kb = req->kb ? req->kb : KL_MGEMM_KB;
    if (req->ranks)
        kl_stop_hold(1); /* the ranks stop together, at a run they agree on (kl_mrun_once) */
    if ((st = check_request(req, chosen, &nchosen, e)) != KL_OK ||
        (st = kl_menv_open(&L->env, req->devices, req->ndevices, req->ranks, L->why_no_nccl,
                           sizeof L->why_no_nccl, e)) != KL_OK ||
        (st = kl_ranks_agreed(L->env.ranks, inputs_open(L, e), KL_ERR_BACKEND, e)) != KL_OK ||
        (st = choose_local(L, e)) != KL_OK)
        goto done;
    header(L, rep);
    link_roof(L, rep);
    kl_menv_note(&L->env, req->devices[0], rep->ceiling_note, sizeof rep->ceiling_note);
    st = ladder_rows(L, chosen, nchosen, rep, e);
    rep->ladder = L->t0 > 0; /* speed-ups over row 0 only where it ran */
    kl_report_finish(rep);
    roofs_of_many(L, rep);
done:
    if (req->ranks)
        kl_stop_hold(0);
    kl_gemm_reference_close(L->ref);
    kl_menv_close(&L->env);
    free(L->A);
    free(L->B);
    free(L->C);
    free(L->C0);
    free(L);
    return st;
}

#else /* no CUDA backend */

enum kl_status kl_mgemm_ladder(const struct kl_mgemm_request *req, struct kl_report *rep,
                               struct kl_err *e)
{
    (void)req, (void)rep;
    return kl_fail(e, KL_ERR_UNSUPPORTED,
                   "kladder mgemm runs on CUDA devices, and this kladder was built without the "
                   "CUDA backend (no CUDA toolkit found, or -DKLADDER_CUDA=OFF)");
}

#endif /* KLADDER_HAVE_CUDA */
