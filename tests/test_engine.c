/*
 * The engine on the null backend (null_backend.h), with no OpenCL device:
 * the copy ladder's rungs run as pretend kernels whose results and times the
 * test sets, so every path of a ladder run and every number it derives is
 * checked exactly.
 *
 *   test_engine protocol   warm-ups, repeats, minimum time; median, min, max and GB/s
 *   test_engine paths      verified, failed (wrong element, past the end), skipped rows
 *   test_engine build      a rung that does not compile stops the run with the log
 *   test_engine stop       kl_stop_request mid-ladder: the rows so far, the last skipped
 *   test_engine timeout    the watchdog calls its handler when a launch outlives its limit
 *   test_engine tune       the tuner's search: the best, rejected candidates, the default
 *   test_engine report     the JSON report read back: rows, statuses and times as run
 *   test_engine registry   a workload added in one file (tiny_workload.c) and one
 *                          registration: found, listed, its rungs printed, run by the API
 *
 * Each mode runs in its own process (a stop request and the watchdog stay set).
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep, mkstemp */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "ladder_rows.h"
#include "core/launch.h"
#include "core/measure.h"
#include "core/stop.h"
#include "core/util.h"
#include "null_backend.h"
#include "report/run.h"
#include "tiny_workload.h"
#include "tune/tune.h"
#include "workloads/peak/peak.h"
#include "workloads/registry.h"

#define N 1000 /* elements copied: the copy ladder's request */

/* The value of -DNAME=V in a build's options (0: absent). */
static int option(const char *options, const char *name)
{
    char key[32];
    snprintf(key, sizeof key, "-D%s=", name);
    const char *p = strstr(options, key);
    return p ? atoi(p + strlen(key)) : 0;
}

/* copy(src, dst, n): copies the n words, or (wrong = 1) all but the last, or (2) one past the end.
 */
static void copy_words(const struct kl_null_launch *l, int wrong)
{
    const uint32_t *src = kl_null_memory(l->args[0].v.buf);
    uint32_t *dst = kl_null_memory(l->args[1].v.buf);
    int n = l->args[l->nargs - 1].v.i;
    memcpy(dst, src, (size_t)(n - (wrong == 1)) * 4);
    if (wrong == 2)
        dst[n] = src[n];
}

/* ---- protocol: the launches' times are a list the test knows ---------------- */

/* Launch 1 verifies, 2 and 3 warm up (slow: they must not count), then the timed ones. */
static const double timed[] = {0.003, 0.001, 0.002, 0.005, 0.004, 0.009, 0.009};

static double protocol_run(const struct kl_null_launch *l)
{
    copy_words(l, 0);
    return l->count == 1 ? 0.5 : l->count <= 3 ? 0.7 : timed[(l->count - 4) % 7];
}

static int protocol(struct kl_context *kl)
{
    static const struct kl_null_kernel k[] = {{"copy", NULL, protocol_run}};
    /* At least 3 launches and 11.5 ms: the fifth reaches 15 ms (three would be 6 ms). */
    struct kl_protocol p = {.warmup = 2, .min_repeats = 3, .min_time = 0.0115, .max_repeats = 50};
    const char *rungs[] = {"ilp4"};
    struct kl_ladder_request req = {
        .workload = "copy", .size = {N}, .rungs = rungs, .nrungs = 1, .protocol = &p};
    struct kl_ladder *l;
    kl_null_kernels(k, 1);
    CHECK(kl_ladder_run(kl, &req, &l) == KL_OK, "copy ladder: %s", kl_last_error(kl));
    if (!l)
        return check_summary();
    const struct kl_row *r = kl_ladder_row(l, 0);
    CHECK(kl_ladder_count(l) == 1 && r && strcmp(r->rung, "ilp4") == 0, "one row, ilp4");
    CHECK(r->status == KL_ROW_VERIFIED, "verified: %s", r->note);
    CHECK(kl_null_launches("copy") == 8, "1 checked + 2 warm-up + 5 timed launches, not %ld",
          kl_null_launches("copy"));
    CHECK(r->repeats == 5, "5 timed launches (the minimum time, not the minimum count), not %d",
          r->repeats);
    CHECK(r->median_s == 0.003 && r->min_s == 0.001 && r->max_s == 0.005,
          "median 3 ms, min 1 ms, max 5 ms of the timed launches only: %g %g %g", r->median_s,
          r->min_s, r->max_s);
    CHECK(fabs(r->gbps - 2.0 * 4 * N / 0.003 / 1e9) < 1e-12, "2·4·N bytes per median: %.9g GB/s",
          r->gbps);
    kl_ladder_free(l);
    return check_summary();
}

/* ---- paths: what each rung's pretend kernel does, by its ILP ---------------- */

static double paths_time(int ilp)
{
    return 0.001 * (1.0 + 16.0 / ilp);
}

static double paths_run(const struct kl_null_launch *l)
{
    int ilp = option(l->options, "ILP");
    copy_words(l, ilp == 4 ? 1 : ilp == 8 ? 2 : 0);
    return paths_time(ilp);
}

static struct kl_ladder *whole_copy_ladder(struct kl_context *kl, const struct kl_protocol *p)
{
    struct kl_ladder_request req = {.workload = "copy", .size = {N}, .protocol = p};
    struct kl_ladder *l = NULL;
    enum kl_status st = kl_ladder_run(kl, &req, &l);
    CHECK(st == KL_OK && l, "copy ladder: %s", kl_last_error(kl));
    return st == KL_OK ? l : NULL;
}

static int paths(struct kl_context *kl)
{
    static const struct kl_null_kernel k[] = {{"copy", NULL, paths_run}};
    struct kl_protocol p = {.warmup = 0, .min_repeats = 3, .min_time = 0.0, .max_repeats = 3};
    kl_null_kernels(k, 1);
    struct kl_ladder *l = whole_copy_ladder(kl, &p);
    if (!l)
        return check_summary();
    /* The CUDA-only rungs are not listed on a backend that does not build CUDA C++. */
    CHECK(kl_ladder_count(l) == 7, "ilp1..16, vec2, vec4: %d rows", kl_ladder_count(l));
    CHECK(!row_named(l, "seed_ilp1"), "seed_ilp1 is CUDA's only");
    const struct kl_row *ilp1 = row_named(l, "ilp1"), *ilp2 = row_named(l, "ilp2"),
                        *ilp4 = row_named(l, "ilp4"), *ilp8 = row_named(l, "ilp8"),
                        *ilp16 = row_named(l, "ilp16");
    CHECK(ilp1 && ilp1->status == KL_ROW_SKIPPED &&
              strstr(ilp1->note, "exceeds the device's maximum of 256"),
          "ilp1's 512 work-items do not fit the device: skipped, said why (%s)",
          ilp1 ? ilp1->note : "no row");
    CHECK(ilp2 && ilp2->status == KL_ROW_VERIFIED && ilp2->median_s == paths_time(2),
          "ilp2 verified at its set 9 ms");
    CHECK(ilp4 && ilp4->status == KL_ROW_FAILED && strstr(ilp4->note, "element 999 of 1000") &&
              ilp4->gbps == 0 && ilp4->repeats == 0,
          "ilp4 missed the last element: failed, no speed (%s, %g GB/s)",
          ilp4 ? ilp4->note : "no row", ilp4 ? ilp4->gbps : -1);
    CHECK(ilp8 && ilp8->status == KL_ROW_FAILED && strstr(ilp8->note, "wrote past the end"),
          "ilp8 wrote a guard element: failed (%s)", ilp8 ? ilp8->note : "no row");
    CHECK(ilp16 && ilp16->status == KL_ROW_VERIFIED && ilp16->median_s == paths_time(16),
          "ilp16 verified at its set 2 ms");
    CHECK(ilp2 && ilp16 && fabs(ilp16->speedup_first - 4.5) < 1e-12,
          "ilp16 4.5x the first timed rung (ilp2): %g", ilp16 ? ilp16->speedup_first : 0);
    kl_ladder_free(l);
    return check_summary();
}

/* The copy ladder over three rungs, once, on the null kernel k; *l its rows (NULL: none). */
static enum kl_status copy_ladder(struct kl_context *kl, const struct kl_null_kernel *k,
                                  const char *rung0, const char *rung1, const char *rung2,
                                  struct kl_ladder **l)
{
    struct kl_protocol p = {.warmup = 0, .min_repeats = 1, .min_time = 0.0, .max_repeats = 1};
    const char *rungs[] = {rung0, rung1, rung2};
    struct kl_ladder_request req = {
        .workload = "copy", .size = {N}, .rungs = rungs, .nrungs = 3, .protocol = &p};
    *l = NULL;
    kl_null_kernels(k, 1);
    return kl_ladder_run(kl, &req, l);
}

/* ---- build: ILP=16 does not compile ----------------------------------------- */

static const char *no_ilp16(const char *options)
{
    return option(options, "ILP") == 16 ? "copy.cl:3: error: ILP 16 is not supported here" : NULL;
}

static int build(struct kl_context *kl)
{
    static const struct kl_null_kernel k[] = {{"copy", no_ilp16, paths_run}};
    struct kl_ladder *l;
    CHECK(copy_ladder(kl, k, "ilp2", "ilp16", "vec2", &l) == KL_ERR_BUILD && !l,
          "a rung that does not build fails the run");
    CHECK(strstr(kl_last_error(kl), "ILP 16 is not supported here"), "with the compiler's log: %s",
          kl_last_error(kl));
    CHECK(kl_null_launches("copy") == 2, "ilp2's check and timed launch, vec2 none: %ld launches",
          kl_null_launches("copy"));
    return check_summary();
}

/*
 * ---- build_stopped: a stop request during ilp16's build, which then fails ------------
 * A compiler's own handler of the signal may remove its temporary files and fail the build
 * under way (LLVM's does, inside PoCL): the run is stopped, not failed by a build error.
 */
static const char *stop_in_ilp16(const char *options)
{
    if (option(options, "ILP") != 16)
        return NULL;
    kl_stop_request(2);
    return "error: unable to rename temporary 'k.preproc.cl.tmp': No such file or directory";
}

static int build_stopped(struct kl_context *kl)
{
    static const struct kl_null_kernel k[] = {{"copy", stop_in_ilp16, paths_run}};
    struct kl_ladder *l;
    CHECK(copy_ladder(kl, k, "ilp2", "ilp16", "vec2", &l) == KL_ERR_INTERRUPTED && l,
          "a build failed by the stop stops the run: %s", kl_last_error(kl));
    CHECK(strstr(kl_last_error(kl), "interrupted"), "and says so: %s", kl_last_error(kl));
    CHECK(l && kl_ladder_count(l) == 2 && kl_ladder_row(l, 0)->status == KL_ROW_VERIFIED,
          "ilp2, measured before it, stands; vec2 not run");
    CHECK(l && kl_ladder_count(l) == 2 && kl_ladder_row(l, 1)->status == KL_ROW_SKIPPED &&
              strstr(kl_ladder_row(l, 1)->note, "interrupted"),
          "ilp16, cut short in its build, is skipped and says why, not failed by the build");
    kl_ladder_free(l);
    return check_summary();
}

/* ---- stop: a stop request during ilp4's first launch, its check ------------- */

static double stop_run(const struct kl_null_launch *l)
{
    copy_words(l, 0);
    if (option(l->options, "ILP") == 4 && l->count == 3) /* ilp2 took 2 launches */
        kl_stop_request(0);
    return 0.001;
}

/* The copy ladder over ilp2, ilp4 and ilp8, a stop requested during ilp4 (stop_run). */
static enum kl_status stop_ladder(struct kl_context *kl, struct kl_ladder **l)
{
    static const struct kl_null_kernel k[] = {{"copy", NULL, stop_run}};
    return copy_ladder(kl, k, "ilp2", "ilp4", "ilp8", l);
}

static int stop(struct kl_context *kl)
{
    struct kl_ladder *l;
    CHECK(stop_ladder(kl, &l) == KL_ERR_INTERRUPTED && l, "stopped: %s", kl_last_error(kl));
    if (!l)
        return check_summary();
    CHECK(kl_ladder_count(l) == 2, "ilp2 and ilp4, not ilp8: %d rows", kl_ladder_count(l));
    CHECK(kl_ladder_row(l, 0)->status == KL_ROW_VERIFIED, "ilp2 stands");
    CHECK(kl_ladder_count(l) == 2 && kl_ladder_row(l, 1)->status == KL_ROW_SKIPPED &&
              strstr(kl_ladder_row(l, 1)->note, "interrupted"),
          "ilp4, cut short, is skipped and says why");
    CHECK(kl_null_launches("copy") == 3, "no launch after the stop: %ld", kl_null_launches("copy"));
    kl_ladder_free(l);
    return check_summary();
}

/*
 * ---- stop_held: the same request while stops are held (kladder-mpi mgemm's ranks) --
 * The ladder runs to its end; the request is kept until the hold ends, then takes effect.
 */
static int stop_held(struct kl_context *kl)
{
    struct kl_ladder *l;
    kl_stop_hold(1);
    CHECK(stop_ladder(kl, &l) == KL_OK && l, "held: the ladder ends: %s", kl_last_error(kl));
    CHECK(l && kl_ladder_count(l) == 3 && kl_ladder_row(l, 2)->status == KL_ROW_VERIFIED,
          "every row verified");
    CHECK(kl_stop_held() == -1 && kl_stop_requested() == 0, "the request kept aside");
    kl_stop_hold(0);
    CHECK(kl_stop_held() == 0 && kl_stop_requested() == -1, "and in effect once the hold ends");
    kl_stop_hold(1);
    CHECK(kl_stop_held() == -1 && kl_stop_requested() == 0, "one asked before a hold is kept too");
    kl_stop_hold(0);
    CHECK(kl_stop_requested() == -1, "and in effect again after it");
    kl_ladder_free(l);
    return check_summary();
}

/*
 * ---- transfers: peak --transfers on the null device, which has copy_both and host_view:
 * every size's six copies and two SM-driven ones (the copy kernel the test's), then a kernel
 * that leaves the last byte out: its rows fail, untimed, the others stand.
 */
static int sm_wrong;

static double bw_copy_run(const struct kl_null_launch *l)
{
    const unsigned char *src = kl_null_memory(l->args[0].v.buf);
    unsigned char *dst = kl_null_memory(l->args[1].v.buf);
    memcpy(dst, src, (size_t)l->args[2].v.i * 16 - (sm_wrong ? 1 : 0));
    return 0.002;
}

static int transfers(struct kl_context *kl)
{
    static const struct kl_null_kernel k[] = {{"bw_copy", NULL, bw_copy_run}};
    static const char *const names[] = {"h2d_pageable",  "d2h_pageable",  "h2d_pinned",
                                        "d2h_pinned",    "both_pageable", "both_pinned",
                                        "sm_h2d_pinned", "sm_d2h_pinned"};
    struct kl_peak_request req = {.bytes = 65536, .transfers = 1, .seed = 7};
    struct kl_report rep;
    struct kl_ceilings c;
    req.protocol = (struct kl_protocol){.warmup = 1, .min_repeats = 3, .max_repeats = 3};
    kl_null_kernels(k, 1);
    for (sm_wrong = 0; sm_wrong < 2; sm_wrong++) {
        memset(&rep, 0, sizeof rep);
        CHECK(kl_peak_measure(kl, &req, &rep, &c) == KL_OK, "the sweep runs: %s",
              kl_last_error(kl));
        CHECK(rep.count == 24, "three sizes, eight copies each: %d rows", rep.count);
        for (int i = 0; i < rep.count && rep.count == 24; i++) {
            const struct kl_result *r = &rep.results[i];
            double size = 4096 << (2 * (i / 8));
            int sm = i % 8 >= 6, ways = i % 8 == 4 || i % 8 == 5 ? 2 : 1;
            CHECK(strcmp(r->rung, names[i % 8]) == 0 && r->x == size && r->bytes == ways * size,
                  "row %d: %s of %g bytes, %g moved", i, r->rung, r->x, r->bytes);
            if (sm && sm_wrong)
                CHECK(r->status == KL_RESULT_FAILED && strstr(r->note, "came out wrong") &&
                          r->repeats == 0,
                      "row %d, a wrong kernel's copy: failed, untimed: %s", i, r->note);
            else
                CHECK(r->status == KL_RESULT_MEASURED && (!sm || r->median_s == 0.002),
                      "row %d measured (an SM copy at its kernel's 2 ms): %s", i, r->note);
        }
        kl_report_free(&rep);
    }
    /* a check and 1 + 3 launches per SM row, then a check alone: 3 sizes × 2 rows each */
    CHECK(kl_null_launches("bw_copy") == 3 * 2 * 5 + 3 * 2, "%ld launches of the copy kernel",
          kl_null_launches("bw_copy"));
    return check_summary();
}

/* ---- timeout: the third launch takes 300 ms against a 50 ms limit ----------- */

static double runaway_limit;
static int runaways;

static void on_runaway(double limit_s)
{
    runaway_limit = limit_s;
    runaways++;
}

static double slow_run(const struct kl_null_launch *l)
{
    copy_words(l, 0);
    if (l->count == 3)
        nanosleep(&(struct timespec){0, 300 * 1000 * 1000}, NULL);
    return 0.001;
}

static int timeout(struct kl_context *kl)
{
    static const struct kl_null_kernel k[] = {{"copy", NULL, slow_run}};
    struct kl_protocol p = {.warmup = 0, .min_repeats = 4, .min_time = 0.0, .max_repeats = 4};
    const char *rungs[] = {"ilp4"};
    struct kl_ladder_request req = {
        .workload = "copy", .size = {N}, .rungs = rungs, .nrungs = 1, .protocol = &p};
    struct kl_ladder *l = NULL;
    kl_null_kernels(k, 1);
    kl_watchdog_set(0.05, on_runaway);
    CHECK(kl_ladder_run(kl, &req, &l) == KL_OK && l, "ladder: %s", kl_last_error(kl));
    kl_watchdog_set(0, NULL);
    CHECK(runaways == 1 && runaway_limit == 0.05, "the handler saw one runaway at 0.05 s: %d, %g",
          runaways, runaway_limit);
    kl_ladder_free(l);
    return check_summary();
}

/* ---- tune: BS and ILP of a copy, the best at BS=64 ILP=4 ---------------------- */

static const struct kl_param_def tune_params[] = {
    {"BS", 128, 32, 256, 1, 1, "work-group size"},
    {"ILP", 4, 1, 16, 1, 1, "elements per work-item"},
    {NULL, 0, 0, 0, 0, 0, NULL},
};

static double tune_time(int bs, int ilp)
{
    return 1e-3 * (1.0 + fabs(log2(bs / 64.0)) + fabs(log2(ilp / 4.0)));
}

static double tune_run(const struct kl_null_launch *l)
{
    int bs = option(l->options, "BS"), ilp = option(l->options, "ILP");
    copy_words(l, bs == 256 && ilp == 16);
    return tune_time(bs, ilp);
}

static const char *tune_build(const char *options)
{
    return option(options, "BS") == 32 && option(options, "ILP") == 1 ? "error: no" : NULL;
}

/* The target: build copy with the candidate's values, check one launch, time it. */
struct tune_self {
    struct kl_context *kl;
    struct kl_buf *src, *dst;
};

static enum kl_status tune_check(void *self, const char *const *items, int n, size_t *wg,
                                 struct kl_err *e)
{
    int values[KL_MAX_PARAMS];
    unsigned mask;
    (void)self;
    *wg = 0;
    return kl_params_resolve("copy", tune_params, items, n, values, &mask, e);
}

static enum kl_status tune_target_run(void *self, const char *const *items, int n,
                                      const struct kl_protocol *proto, struct kl_run_limits *lim,
                                      struct kl_result *res)
{
    struct tune_self *t = self;
    int values[KL_MAX_PARAMS];
    unsigned mask;
    struct kl_stats stats;
    double once;
    enum kl_status st;
    struct kl_launch l = {.kl = t->kl, .dims = 1, .nargs = 3};
    (void)lim;
    if ((st = kl_params_resolve("copy", tune_params, items, n, values, &mask, &t->kl->err)) !=
        KL_OK)
        return st;
    kl_params_options(tune_params, values, KL_INT, res->options, sizeof res->options);
    if ((st = kl_kernel_get(t->kl, "opencl/copy/ilp.cl", "copy", res->options, &l.kernel,
                            &res->build_s)) != KL_OK)
        return st;
    l.local[0] = (size_t)values[0];
    l.global[0] = kl_round_up(N, l.local[0]);
    l.args[0] = (struct kl_arg){KL_ARG_BUF, {.buf = t->src}};
    l.args[1] = (struct kl_arg){KL_ARG_BUF, {.buf = t->dst}};
    l.args[2] = (struct kl_arg){KL_ARG_INT, {.i = N}};
    memset(kl_null_memory(t->dst), 0, 4 * N);
    if ((st = kl_launch_timed(&l, &once, &t->kl->err)) != KL_OK)
        return st;
    if (memcmp(kl_null_memory(t->dst), kl_null_memory(t->src), 4 * N) != 0) {
        res->status = KL_RESULT_FAILED;
        snprintf(res->note, sizeof res->note, "a wrong copy");
        return KL_OK;
    }
    if ((st = kl_measure(t->kl, proto, kl_launch_timed, &l, &stats, &t->kl->err)) != KL_OK)
        return st;
    res->status = KL_RESULT_VERIFIED;
    kl_result_set_stats(res, &stats);
    return KL_OK;
}

static int tune(struct kl_context *kl)
{
    static const struct kl_null_kernel k[] = {{"copy", tune_build, tune_run}};
    struct tune_self self = {kl, NULL, NULL};
    struct kl_tune_target target = {.name = "copy",
                                    .params = tune_params,
                                    .self = &self,
                                    .check = tune_check,
                                    .run = tune_target_run,
                                    .err = &kl->err};
    struct kl_tune_request req = {.seed = 1,
                                  .search = {0, 1, 0.0, 1},
                                  .confirm = {0, 3, 0.0, 3},
                                  .confirm_count = 2,
                                  .work = 8.0 * N,
                                  .unit = "GB/s",
                                  .start = kl_now()};
    struct kl_tune_space space;
    struct kl_tune_outcome out;
    kl_null_kernels(k, 1);
    if (kl->ops->alloc(kl->dev, 4 * N, &self.src, &kl->err) != KL_OK ||
        kl->ops->alloc(kl->dev, 4 * N, &self.dst, &kl->err) != KL_OK) {
        CHECK(0, "buffers: %s", kl_last_error(kl));
        return check_summary();
    }
    for (int i = 0; i < N; i++)
        ((uint32_t *)kl_null_memory(self.src))[i] = 2654435761u * (uint32_t)i;
    CHECK(kl_tune_space_build(kl, &target, &space, &kl->err) == KL_OK, "space: %s",
          kl_last_error(kl));
    CHECK(space.count == 20 && space.default_index >= 0,
          "BS 32..256 × ILP 1..16: 20 candidates, the default among them (%d)", space.count);
    CHECK(kl_tune_search(&space, &req, &out) == KL_OK, "search: %s", kl_last_error(kl));
    CHECK(strcmp(out.strategy, "exhaustive") == 0 && out.exhaustive, "a small space is exhaustive");
    CHECK(out.have_best && strcmp(out.best_params, "BS=64,ILP=4") == 0 && out.best.median_s == 1e-3,
          "the best is BS=64 ILP=4 at 1 ms: %s, %g", out.best_params, out.best.median_s);
    CHECK(out.have_default && strcmp(out.default_params, "BS=128,ILP=4") == 0 &&
              out.dflt.median_s == 2e-3,
          "the default BS=128 ILP=4 at 2 ms: %s %g", out.default_params, out.dflt.median_s);
    CHECK(out.state.tried == 20 && out.state.rejected == 2 && out.state.verified == 18,
          "20 tried, 2 rejected (one wrong, one not built), 18 verified: %d %d %d", out.state.tried,
          out.state.rejected, out.state.verified);
    kl_tune_space_free(&space);
    kl->ops->release(self.src);
    kl->ops->release(self.dst);
    return check_summary();
}

/* ---- report: the JSON of the paths ladder, read back -------------------------- */

static int report(struct kl_context *kl)
{
    static const struct kl_null_kernel k[] = {{"copy", NULL, paths_run}};
    struct kl_protocol p = {.warmup = 0, .min_repeats = 3, .min_time = 0.0, .max_repeats = 3};
    char path[] = "/tmp/kl_engine_XXXXXX", err[512];
    struct kl_run run;
    kl_null_kernels(k, 1);
    struct kl_ladder *l = whole_copy_ladder(kl, &p);
    int fd = mkstemp(path);
    if (!l || fd < 0)
        return check_summary();
    close(fd);
    CHECK(kl_ladder_write_json(l, path) == KL_OK, "JSON written");
    CHECK(kl_run_load(&run, path, err, sizeof err) == 0, "read back: %s", err);
    CHECK(run.nrows == kl_ladder_count(l), "%d rows, as run", run.nrows);
    for (int i = 0; i < run.nrows && i < kl_ladder_count(l); i++) {
        const struct kl_run_row *got = &run.rows[i];
        const struct kl_row *want = kl_ladder_row(l, i);
        static const char *const status[] = {"verified", "failed", "skipped", "measured"};
        CHECK(strcmp(got->rung, want->rung) == 0 && strcmp(got->status, status[want->status]) == 0,
              "row %d: %s %s", i, got->rung, got->status);
        int timed = want->status == KL_ROW_VERIFIED;
        CHECK(got->timed == timed && got->repeats == want->repeats, "row %d: timed %d", i, timed);
        CHECK(!timed || (fabs(got->median_s / want->median_s - 1) < 1e-8 &&
                         fabs(got->gbps / want->gbps - 1) < 1e-8),
              "row %d (%s): the time and rate as measured, to the JSON's 9 digits: %.17g %.17g", i,
              got->rung, got->median_s, want->median_s);
        CHECK(strcmp(got->note, want->note) == 0, "row %d's note", i);
    }
    CHECK(strcmp(run.backend, "null") == 0 && strcmp(run.dev_name, "null device") == 0,
          "the device as run: %s %s", run.backend, run.dev_name);
    kl_run_free(&run);
    kl_ladder_free(l);
    unlink(path);
    return check_summary();
}

/* ---- registry: the tiny workload, registered at run time ------------------ */

static double scale_run(const struct kl_null_launch *l)
{
    const int32_t *x = kl_null_memory(l->args[0].v.buf);
    int32_t *y = kl_null_memory(l->args[1].v.buf);
    for (int k = 0; k < l->args[2].v.i; k++)
        y[k] = l->args[3].v.i * x[k];
    return option(l->options, "BS") == 64 ? 0.004 : 0.001;
}

static int registry(struct kl_context *kl)
{
    static const struct kl_null_kernel k[] = {{"scale", NULL, scale_run}};
    struct kl_protocol p = {.warmup = 1, .min_repeats = 3, .min_time = 0.0, .max_repeats = 3};
    const char *params[] = {"BS=128"}, *rungs[] = {"vec4"};
    char names[256], *text = NULL;
    size_t len = 0;
    struct kl_ladder *l = NULL;
    kl_null_kernels(k, 1);
    int before = kl_workload_count();
    CHECK(kl_workload_register(&kl_tiny_workload) == 0, "registered");
    CHECK(kl_workload_register(&kl_tiny_workload) == -1, "a name is registered once");
    struct kl_workload_def wide = kl_tiny_workload, runless = kl_tiny_workload;
    wide.name = "wide", wide.dims = KL_WORKLOAD_MAX_DIMS + 1;
    runless.name = "runless", runless.run = NULL;
    CHECK(kl_workload_register(&wide) == -1 && kl_workload_register(&runless) == -1,
          "more sizes than a call holds, or a ladder without an entry, are refused");
    CHECK(kl_workload_count() == before + 1 && kl_workload_find("scale") == &kl_tiny_workload &&
              kl_workload_at(before) == &kl_tiny_workload,
          "found by name and by index");
    kl_workload_ladder_names(names, sizeof names);
    CHECK(strstr(names, ", scale"), "among the ladders' names: %s", names);
    FILE *out = open_memstream(&text, &len);
    kl_workload_list_rungs(&kl_tiny_workload, out);
    fclose(out);
    CHECK(strstr(text, "Scale ladder (y = 3·x), in order:\n  scalar   one element per work-item") &&
              strstr(text, "  vec4     four elements") && strstr(text, "--param BS=64"),
          "--list-rungs' listing:\n%s", text);
    free(text);

    struct kl_ladder_request req = {.workload = "scale", .size = {1000}, .protocol = &p};
    CHECK(kl_ladder_run(kl, &req, &l) == KL_OK && l, "the API runs it: %s", kl_last_error(kl));
    CHECK(l && kl_ladder_count(l) == 2 && strcmp(kl_ladder_sizes(l), "N=1000") == 0,
          "two rows at N=1000");
    for (int i = 0; l && i < kl_ladder_count(l); i++)
        CHECK(kl_ladder_row(l, i)->status == KL_ROW_VERIFIED &&
                  kl_ladder_row(l, i)->median_s == 0.004,
              "row %d verified at its 4 ms: %s", i, kl_ladder_row(l, i)->note);
    kl_ladder_free(l);
    req.params = params, req.nparams = 1, req.rungs = rungs, req.nrungs = 1;
    CHECK(kl_ladder_run(kl, &req, &l) == KL_OK && l && kl_ladder_count(l) == 1 &&
              kl_ladder_row(l, 0)->median_s == 0.001 &&
              fabs(kl_ladder_row(l, 0)->gbps - 8.0 * 1000 / 0.001 / 1e9) < 1e-12,
          "one rung with a parameter of the user's: %s", kl_last_error(kl));
    kl_ladder_free(l);
    req.peers = params, req.npeers = 1;
    CHECK(kl_ladder_run(kl, &req, &l) == KL_ERR_ARG &&
              strstr(kl_last_error(kl), "scale has no peers (gemm, gemv, reduce, scan, histogram, "
                                        "transpose and softmax have)"),
          "no peers: %s", kl_last_error(kl));
    req.peers = NULL, req.npeers = 0;
    /* its own option reaches the kernel and the reference: y = 5·x, verified */
    const char *five[] = {"factor=5"}, *zero[] = {"factor=0"}, *other[] = {"speed=2"},
               *twice[] = {"factor=2", "factor=4"};
    req.options = five, req.noptions = 1;
    CHECK(kl_ladder_run(kl, &req, &l) == KL_OK && l &&
              kl_ladder_row(l, 0)->status == KL_ROW_VERIFIED,
          "factor=5: %s", l ? kl_ladder_row(l, 0)->note : kl_last_error(kl));
    kl_ladder_free(l);
    req.options = zero;
    CHECK(kl_ladder_run(kl, &req, &l) == KL_ERR_ARG &&
              strstr(kl_last_error(kl), "factor: \"0\" is not an integer from 1 to 1000"),
          "factor=0: %s", kl_last_error(kl));
    req.options = other;
    CHECK(kl_ladder_run(kl, &req, &l) == KL_ERR_ARG &&
              strstr(kl_last_error(kl), "scale has no option \"speed\" (its options: factor)"),
          "speed=2: %s", kl_last_error(kl));
    /* an option of words: one of them, and nothing else, not even a prefix */
    struct kl_workload_def ops = kl_tiny_workload;
    struct kl_err e;
    ops.options[1] = (struct kl_workload_option){"op", "sum min max", 0, 0, "sum", "the op", 0};
    CHECK(kl_workload_option_check(&ops, "op", "min", &e) == KL_OK &&
              kl_workload_option_check(&ops, "op", "max", &e) == KL_OK &&
              kl_workload_option_check(&ops, "op", "mi", &e) == KL_ERR_ARG &&
              kl_workload_option_check(&ops, "op", "", &e) == KL_ERR_ARG &&
              kl_workload_option_check(&ops, "op", "avg", &e) == KL_ERR_ARG &&
              strstr(e.msg, "op: \"avg\" is not one of sum min max"),
          "choices: %s", e.msg);
    /* a real option: a number in its range, written any way strtod reads, and nothing else */
    ops.options[1] = (struct kl_workload_option){"eps", NULL, 0, 1, "1e-5", "the eps", 1};
    CHECK(kl_workload_option_check(&ops, "eps", "1e-5", &e) == KL_OK &&
              kl_workload_option_check(&ops, "eps", "0.5", &e) == KL_OK &&
              kl_workload_option_check(&ops, "eps", "1", &e) == KL_OK &&
              kl_workload_option_check(&ops, "eps", "1.5", &e) == KL_ERR_ARG &&
              kl_workload_option_check(&ops, "eps", "nan", &e) == KL_ERR_ARG &&
              kl_workload_option_check(&ops, "eps", "1e-5x", &e) == KL_ERR_ARG &&
              strstr(e.msg, "eps: \"1e-5x\" is not a number from 0 to 1"),
          "real: %s", e.msg);
    req.options = twice, req.noptions = 2;
    CHECK(kl_ladder_run(kl, &req, &l) == KL_ERR_ARG &&
              strstr(kl_last_error(kl), "option factor is given twice"),
          "factor twice: %s", kl_last_error(kl));
    return check_summary();
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        int (*fn)(struct kl_context *);
    } modes[] = {{"protocol", protocol},   {"paths", paths},
                 {"build", build},         {"build_stopped", build_stopped},
                 {"stop", stop},           {"stop_held", stop_held},
                 {"transfers", transfers}, {"timeout", timeout},
                 {"tune", tune},           {"report", report},
                 {"registry", registry}};
    struct kl_context *kl;
    char err[512];
    for (size_t m = 0; argc == 2 && m < sizeof modes / sizeof *modes; m++) {
        if (strcmp(argv[1], modes[m].name) != 0)
            continue;
        if (kl_open_on(&kl_backend_null, 0, 0, &kl, err, sizeof err) != KL_OK) {
            fprintf(stderr, "the null device does not open: %s\n", err);
            return 1;
        }
        int rc = modes[m].fn(kl);
        kl_close(kl);
        return rc;
    }
    fprintf(stderr, "usage: test_engine protocol|paths|build|stop|timeout|tune|report|registry\n");
    return 2;
}
