/*
 * `kladder tune gemm`: for each chosen rung, its parameter space
 * (tune/tune.c), a search of it under the budget, the best verified
 * candidate printed and stored in the device's tuning cache
 * (tune/cache.c). `kladder tune --show` lists the cache, `--clear` removes
 * it; `kladder gemm` picks the cached parameters up (kl_cli_tuned_apply).
 * Progress and rejected candidates go to standard error, results to
 * standard output.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli/tune_cmd.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/ladder.h"
#include "cli/exit.h"
#include "core/ceilings.h"
#include "core/measure.h"
#include "core/progress.h"
#include "core/util.h"
#include "tune/gemm.h"

/* ---- --show and --clear ---------------------------------------------------- */

static void show_file(const struct kl_tuned_file *f, FILE *out)
{
    fprintf(out, "%s\n  identity: %s\n", f->path, f->identity);
    if (f->count == 0) {
        fprintf(out, "  (no entries)\n");
        return;
    }
    fprintf(out, "  %-18s %-6s %-5s %-16s %-36s %10s %9s %-20s %7s %11s %-10s %s\n", "rung", "type",
            "class", "tuned at", "parameters", "GFLOP/s", "x default", "date", "budget",
            "tried/space", "strategy", "kladder");
    for (int i = 0; i < f->count; i++) {
        const struct kl_tuned *x = &f->entries[i];
        char budget[32], ratio[32], ts[32];
        if (x->budget_s > 0)
            snprintf(budget, sizeof budget, "%.3g s", x->budget_s);
        else
            snprintf(budget, sizeof budget, "none");
        if (x->default_gflops > 0)
            snprintf(ratio, sizeof ratio, "%.2f", x->gflops / x->default_gflops);
        else
            snprintf(ratio, sizeof ratio, "-");
        snprintf(ts, sizeof ts, "%d/%d", x->tried, x->space);
        fprintf(out, "  %-18s %-6s 2^%-3d %-16s %-36s %10.2f %9s %-20s %7s %11s %-10s %s\n",
                x->rung, kl_type_name(x->type), x->size_class, x->size, x->params, x->gflops, ratio,
                x->date, budget, ts, x->strategy, x->version);
    }
}

/* --show: this device's tuned parameters, or that it has none. */
static void show_device(struct kl_context *kl, const char *dir, FILE *out)
{
    char warn[8192];
    struct kl_tuned_file f;
    int got = kl_tuned_load(&kl->info, kl->ops->name, &f, warn, sizeof warn);
    if (got < 0)
        fprintf(stderr, "kladder: warning: %s\n", warn);
    if (got == 1)
        show_file(&f, out);
    else
        fprintf(out,
                "no tuned parameters for %s (%s) in %s; `kladder tune gemm` finds them "
                "(--all lists every device's)\n",
                kl->info.name, kl->ops->name, dir);
    kl_tuned_free(&f);
}

/* --show --all: every device's file in the cache; 0, or the exit code of a failed listing. */
static int show_all(const char *dir, FILE *out)
{
    char warn[8192], **paths;
    struct kl_tuned_file f;
    struct kl_err e;
    int n, shown = 0;
    enum kl_status st = kl_tuned_list(&paths, &n, &e);
    if (st != KL_OK) {
        fprintf(stderr, "kladder: %s\n", e.msg);
        return kl_exit_for(st);
    }
    for (int i = 0; i < n; i++) {
        if (kl_tuned_read(paths[i], NULL, &f, warn, sizeof warn) < 0) {
            fprintf(stderr, "kladder: warning: %s\n", warn);
            continue;
        }
        if (shown++)
            fputc('\n', out);
        show_file(&f, out);
        kl_tuned_free(&f);
    }
    if (!shown)
        fprintf(out, "no tuned parameters in %s\n", dir);
    kl_tuned_list_free(paths, n);
    return 0;
}

static int show(struct kl_context *kl, const struct kl_cli_tune *t, FILE *out)
{
    char dir[3072];
    int rc = 0;
    kl_cache_dir(dir, sizeof dir);
    if (t->all)
        rc = show_all(dir, out);
    else
        show_device(kl, dir, out);
    if (rc)
        return rc;
    return fflush(out) != 0 || ferror(out) ? EXIT_RUNTIME : 0;
}

static int clear(struct kl_context *kl, const struct kl_cli_tune *t, FILE *out)
{
    char path[4096];
    struct kl_err e;
    int rc = 0;
    if (!t->all) {
        kl_tuned_path(&kl->info, kl->ops->name, path, sizeof path);
        if (remove(path) == 0)
            fprintf(out, "removed %s (%s, %s)\n", path, kl->info.name, kl->ops->name);
        else if (errno == ENOENT)
            fprintf(out, "no tuned parameters for %s (%s): nothing to remove\n", kl->info.name,
                    kl->ops->name);
        else {
            fprintf(stderr, "kladder: cannot remove %s: %s\n", path, strerror(errno));
            rc = EXIT_USAGE;
        }
        return rc;
    }
    char **paths;
    int n;
    enum kl_status st = kl_tuned_list(&paths, &n, &e);
    if (st != KL_OK) {
        fprintf(stderr, "kladder: %s\n", e.msg);
        return kl_exit_for(st);
    }
    for (int i = 0; i < n; i++) {
        if (remove(paths[i]) == 0) {
            fprintf(out, "removed %s\n", paths[i]);
        } else {
            fprintf(stderr, "kladder: cannot remove %s: %s\n", paths[i], strerror(errno));
            rc = EXIT_USAGE;
        }
    }
    if (n == 0) {
        char dir[3072];
        kl_cache_dir(dir, sizeof dir);
        fprintf(out, "no tuned parameters in %s: nothing to remove\n", dir);
    }
    kl_tuned_list_free(paths, n);
    return rc;
}

/* ---- tuning ---------------------------------------------------------------- */

static void on_candidate(void *arg, const struct kl_tune_state *st, const char *config,
                         enum kl_tune_verdict v, const struct kl_result *res)
{
    struct kl_cli_tune_log *c = arg;
    if (v == KL_TUNE_REJECTED) {
        kl_progress_done();
        fprintf(stderr, "kladder tune: rejected %s %s: %s\n", c->rung, config, res->note);
    }
    if (c->quiet || st->confirming)
        return;
    if (v == KL_TUNE_ABANDONED || v == KL_TUNE_UNSUPPORTED) {
        kl_progress_done();
        fprintf(stderr, "kladder tune: %s %s %s: %s\n",
                v == KL_TUNE_ABANDONED ? "abandoned" : "unsupported", c->rung, config, res->note);
    }
    if (st->best_median > 0 && st->best_median != c->last_best) {
        c->last_best = st->best_median;
        kl_progress_done();
        fprintf(stderr,
                "kladder tune: %s best so far %s: %.4g %s (%.3f ms); tried %d of %d, "
                "rejected %d, abandoned %d, %ld pruned; %.1f s\n",
                c->rung, config, c->q->work / st->best_median * 1e-9, c->q->unit,
                st->best_median * 1e3, st->tried, c->space->count, st->rejected, st->abandoned,
                c->space->pruned + c->space->pruned_rules, st->elapsed_s);
    }
    kl_progress_step(st->tried > 0 ? st->tried - 1 : 0, c->space->count, "tune %s: best %.4g %s",
                     c->rung, st->best_median > 0 ? c->q->work / st->best_median * 1e-9 : 0.0,
                     c->q->unit);
}

/*
 * The roofline bound of this product on this device from `kladder peak`'s cache, for the
 * rung's own arithmetic (a tensor-core rung's roof is the TF32 one); 0: unknown.
 */
static double roof_gflops(struct kl_context *kl, const struct kl_gemm_rung *r, enum kl_type t,
                          int M, int N, int K)
{
    struct kl_ceilings c;
    char warn[1024];
    if (kl_ceilings_load(&kl->info, kl->ops->name, &c, warn, sizeof warn) != 1)
        return 0;
    double peak = kl_precision_peak(&c, kl_gemm_rung_precision(r, t), 0);
    double es = (double)kl_type_size(t), m = M, n = N, k = K;
    double ai = 2 * m * n * k / ((m * k + k * n + m * n) * es);
    double bw = ai * c.copy_gbps;
    if (peak <= 0 || bw <= 0)
        return 0;
    return peak < bw ? peak : bw;
}

static void print_result(FILE *out, const char *what, const char *params, const struct kl_result *r,
                         double flops, double roof)
{
    fprintf(out, "%-10s %-40s median %.4f ms  %10.2f GFLOP/s", what, params, r->median_s * 1e3,
            flops / r->median_s * 1e-9);
    if (roof > 0)
        fprintf(out, "  %.1f%% of roof", 100.0 * flops / r->median_s * 1e-9 / roof);
}

/* The space's size and what was pruned. */
static void print_space(FILE *out, const struct kl_tune_space *s)
{
    fprintf(out, "space:     %ld combinations of", s->combinations);
    for (int p = 0; p < s->nparams; p++)
        fprintf(out, "%s %s (%d)", p ? "," : "", s->target->params[p].name, s->nvalues[p]);
    fprintf(out,
            "; %ld pruned by constraints and device limits, %ld by the sensible-space rules; "
            "%d candidates\n",
            s->pruned, s->pruned_rules, s->count);
}

/* The search's strategy, why it stopped and what it tried. */
static void print_search(FILE *out, const struct kl_tune_outcome *o,
                         const struct kl_tune_request *q)
{
    double budget = q->budget_s;
    fprintf(out, "strategy:  %s",
            strcmp(o->strategy, "exhaustive") == 0
                ? "exhaustive (every candidate, the defaults first)"
                : "the defaults, a random sample, then best-first local "
                  "search (one parameter one step)");
    if (budget > 0)
        fprintf(out, ", budget %.3g s", budget);
    else
        fprintf(out, ", no budget");
    if (o->stopped_at_roof)
        fprintf(out, "; stopped at 95%% of the roofline (%.1f %s)", q->roof * 1e-9, q->unit);
    else if (o->exhaustive)
        fprintf(out, "; every candidate tried");
    else if (o->out_of_time)
        fprintf(out, "; stopped when the budget ran out");
    fprintf(out,
            "\ntried:     %d candidates in %.1f s: %d verified, %d rejected, %d abandoned, %d "
            "unsupported after their build\n",
            o->state.tried, o->state.elapsed_s, o->state.verified, o->state.rejected,
            o->state.abandoned, o->state.unsupported);
}

/* Candidates are timed briefly and the best few again by the full protocol (in rounds,
 * tune.c's confirm), unless the user set a protocol: then every one by it. */
static void search_settings(const struct kl_cli_tune *t, double budget, struct kl_tune_request *q)
{
    memset(q, 0, sizeof *q);
    q->seed = t->seed;
    q->budget_s = budget;
    q->exhaustive = t->exhaustive;
    if (t->protocol_set) {
        q->search = q->confirm = t->protocol;
    } else {
        q->search = (struct kl_protocol){
            .warmup = 1, .min_repeats = 3, .min_time = 0.02, .max_repeats = 100000};
        kl_protocol_default(&q->confirm);
        q->confirm_count = 3;
    }
    q->start = kl_now();
}

/* A search that kept no candidate: why, on out; the exit code. */
static int no_best(const struct kl_tune_outcome *o, FILE *out)
{
    if (o->state.rejected) {
        fprintf(out, "best:      none: no candidate was verified (the rejected ones are on "
                     "standard error)\n");
        return EXIT_VERIFY;
    }
    if (o->out_of_time || o->state.abandoned) {
        fprintf(out, "best:      none: the budget ran out before a candidate was timed; not "
                     "tuned\n");
        return 0;
    }
    fprintf(out, "best:      none: no candidate could run on this device\n");
    return o->state.unsupported ? EXIT_USAGE : EXIT_RUNTIME;
}

/* The best candidate of rung r at sizes mnk into the device's cache, and where on out. */
static int save_best(struct kl_context *kl, const struct kl_gemm_rung *r,
                     const struct kl_cli_tune *t, const int mnk[3], double budget,
                     const struct kl_tune_space *s, const struct kl_tune_outcome *o, FILE *out)
{
    struct kl_tuned x;
    struct kl_err *e = &kl->err;
    char warn[8192] = "", path[4096];
    double flops = 2.0 * mnk[0] * (double)mnk[1] * mnk[2];
    memset(&x, 0, sizeof x);
    snprintf(x.workload, sizeof x.workload, "gemm");
    snprintf(x.rung, sizeof x.rung, "%s", r->name);
    x.type = t->type;
    x.size_class = kl_tune_size_class(mnk[0], mnk[1], mnk[2]);
    snprintf(x.params, sizeof x.params, "%s", o->best_params);
    snprintf(x.size, sizeof x.size, "%dx%dx%d", mnk[0], mnk[1], mnk[2]);
    x.median_s = o->best.median_s;
    x.gflops = flops / o->best.median_s * 1e-9;
    x.default_gflops = o->have_default ? flops / o->dflt.median_s * 1e-9 : 0;
    kl_utc_now(x.date, sizeof x.date);
    snprintf(x.version, sizeof x.version, "%s", KLADDER_VERSION);
    x.budget_s = round(budget * 10) / 10;
    x.tried = o->state.tried;
    x.space = s->count;
    snprintf(x.strategy, sizeof x.strategy, "%s", o->strategy);
    enum kl_status st = kl_tuned_store(&kl->info, kl->ops->name, &x, warn, sizeof warn, e);
    if (warn[0])
        fprintf(stderr, "kladder: warning: %s (it is replaced)\n", warn);
    if (st != KL_OK) {
        fprintf(stderr, "kladder: the tuned parameters were not saved: %s\n", e->msg);
        return kl_exit_for(st);
    }
    kl_tuned_path(&kl->info, kl->ops->name, path, sizeof path);
    fprintf(out, "saved:     %s\n", path);
    return 0;
}

/* The baseline's line: the defaults, the rung's preset (and any rule on it), or a rule's
   values alone. */
static const char *start_label(const struct kl_tune_gemm *g)
{
    if (!g->target.start)
        return "default:";
    return strncmp(g->start_config, "preset", 6) == 0 ? "preset:" : "untuned:";
}

/* Tunes one rung: the space, the search, the result on out and in the cache. */
static int tune_rung(struct kl_context *kl, struct kl_gemm_bench *b, const struct kl_gemm_rung *r,
                     const struct kl_cli_tune *t, int M, int N, int K, double budget, FILE *out)
{
    struct kl_tune_gemm g;
    struct kl_tune_space s;
    struct kl_tune_request q;
    struct kl_tune_outcome o;
    struct kl_err *e = &kl->err;
    double flops = 2.0 * M * (double)N * K;
    int cls = kl_tune_size_class(M, N, K);
    enum kl_status st = kl_tune_gemm_target(kl, b, r, t->type, M, N, K, &g, e);
    if (st == KL_OK)
        st = kl_tune_space_build(kl, &g.target, &s, e);
    if (st != KL_OK) {
        fprintf(stderr, "kladder: %s\n", e->msg);
        return kl_exit_for(st);
    }
    fprintf(out, "\nkladder tune gemm  %s  %s  M=%d N=%d K=%d (size class 2^%d)\n", r->name,
            kl_type_name(t->type), M, N, K, cls);
    print_space(out, &s);
    if (s.count == 0 && kl_gemm_check(kl, r, NULL, 0, t->type, M, N, NULL, e) != KL_OK) {
        fprintf(stderr, "kladder: rung %s: no candidate fits this device at %d×%d×%d (%s)\n",
                r->name, M, N, K, e->msg);
        kl_tune_space_free(&s);
        return EXIT_USAGE;
    }
    search_settings(t, budget, &q);
    double roof = roof_gflops(kl, r, t->type, M, N, K);
    q.work = flops;
    q.unit = "GFLOP/s";
    q.roof = roof * 1e9;
    struct kl_cli_tune_log lc = {r->name, &s, &q, 0, t->quiet};
    q.on_candidate = on_candidate;
    q.arg = &lc;
    st = kl_tune_search(&s, &q, &o);
    kl_progress_done();
    print_search(out, &o, &q);
    if (st != KL_OK) {
        kl_tune_space_free(&s);
        fflush(out);
        fprintf(stderr, "kladder: %s\n", e->msg);
        return kl_exit_for(st);
    }
    if (o.have_default) {
        print_result(out, start_label(&g), o.default_params, &o.dflt, flops, roof);
        fputc('\n', out);
    }
    if (!o.have_best) {
        kl_tune_space_free(&s);
        return no_best(&o, out);
    }
    print_result(out, "best:", o.best_params, &o.best, flops, roof);
    if (o.have_default)
        fprintf(out, "  %.2fx the %s", o.dflt.median_s / o.best.median_s,
                g.target.start ? g.start_config : "default");
    fprintf(out, "\n");

    int rc = save_best(kl, r, t, (int[3]){M, N, K}, budget, &s, &o, out);
    kl_tune_space_free(&s);
    return rc;
}

/*
 * The rung named name, when it can be tuned here; else NULL, having said why
 * (no such rung, no parameters, another backend's, or unavailable here).
 */
static const struct kl_gemm_rung *tunable_named(struct kl_context *kl, const struct kl_cli_tune *t,
                                                const char *name)
{
    const struct kl_gemm_rung *r = kl_gemm_rung_find(name);
    char why[256];
    if (!r) {
        struct kl_err not_found;
        kl_gemm_rung_not_found(name, "rung", &not_found);
        fprintf(stderr, "kladder: %s\n", not_found.msg);
    } else if (!r->file || kl_param_count(r->params) == 0) {
        fprintf(stderr, "kladder: rung %s has no parameters to tune (%s)\n", r->name,
                r->file ? "none declared" : "it is a host loop");
    } else if (kl_kernel_elsewhere(kl, r->file)) {
        fprintf(stderr, "kladder: rung %s is CUDA C++: tune it with --backend cuda\n", r->name);
    } else if (!kl_gemm_rung_available(kl, r, t->type, why, sizeof why)) {
        fprintf(stderr, "kladder: rung %s cannot run on this device: %s\n", r->name, why);
    } else {
        return r;
    }
    return NULL;
}

/*
 * The rungs to tune, each once (at most 64): those of --rung, else every
 * device rung with parameters that runs here. 0, or EXIT_USAGE having said
 * why a rung named cannot be tuned.
 */
static int choose_rungs(struct kl_context *kl, const struct kl_cli_tune *t,
                        const struct kl_gemm_rung **chosen, int *n)
{
    char why[256];
    for (int j = 0; j < t->nrungs; j++) {
        const struct kl_gemm_rung *r = tunable_named(kl, t, t->rungs[j]);
        int dup = 0;
        if (!r)
            return EXIT_USAGE;
        for (int i = 0; i < *n; i++)
            dup |= chosen[i] == r;
        if (!dup && *n < 64)
            chosen[(*n)++] = r;
    }
    for (int i = 0; t->nrungs == 0 && i < kl_gemm_rung_count() && *n < 64; i++) {
        const struct kl_gemm_rung *r = kl_gemm_rung_at(i);
        if (r->file && kl_param_count(r->params) > 0 &&
            kl_gemm_rung_available(kl, r, t->type, why, sizeof why))
            chosen[(*n)++] = r;
    }
    return 0;
}

/*
 * Tunes the chosen rungs in turn, the budget left shared by the rungs left;
 * the exit code: the first runtime failure stops the rest, else the lowest
 * non-zero code of a rung.
 */
static int tune_all(struct kl_context *kl, struct kl_gemm_bench *b, const struct kl_cli_tune *t,
                    const struct kl_gemm_rung *const *chosen, int n, const int mnk[3], double start,
                    FILE *out)
{
    int rc = 0;
    for (int i = 0; i < n; i++) {
        double budget = 0;
        if (t->budget_s > 0) {
            budget = (t->budget_s - (kl_now() - start)) / (n - i);
            if (budget <= 0) {
                fprintf(out, "\n%s: not tuned, the budget ran out\n", chosen[i]->name);
                continue;
            }
        }
        int r = tune_rung(kl, b, chosen[i], t, mnk[0], mnk[1], mnk[2], budget, out);
        if (r == EXIT_RUNTIME)
            return r;
        if (r && (!rc || r < rc))
            rc = r;
    }
    return rc;
}

int kl_cli_tune(struct kl_context *kl, const struct kl_cli_tune *t, FILE *out)
{
    if (t->show)
        return show(kl, t, out);
    if (t->clear)
        return clear(kl, t, out);
    double start = kl_now();
    struct kl_err *e = &kl->err;
    const struct kl_gemm_rung *chosen[64];
    int n = 0, rc = choose_rungs(kl, t, chosen, &n);
    if (rc)
        return rc;
    int M = t->M ? t->M : (int)kl_default_size("gemm", 0, kl->info.is_gpu);
    int N = t->N ? t->N : M, K = t->K ? t->K : M;
    struct kl_gemm_bench *b;
    enum kl_status st = kl_gemm_bench_open(kl, t->type, M, N, K, t->seed, &b);
    if (st != KL_OK) {
        fprintf(stderr, "kladder: %s\n", e->msg);
        return kl_exit_for(st);
    }
    if (!kl->ops->one_platform)
        fprintf(out, "kladder tune  device %d:%d %s (%s; driver %s; opencl)\n", kl->platform,
                kl->device, kl->info.name, kl->info.platform, kl->info.driver_version);
    else
        fprintf(out, "kladder tune  device %s:%d %s (driver %s)\n", kl->ops->name, kl->device,
                kl->info.name, kl->info.driver_version);
    fprintf(out, "reference: %s\n", kl_gemm_bench_reference(b));
    if (t->protocol_set)
        fprintf(out, "protocol:  %d warm-up, then >= %d timed launches and >= %.3g s\n",
                t->protocol.warmup, t->protocol.min_repeats, t->protocol.min_time);
    else
        fprintf(out,
                "protocol:  candidates 1 warm-up, >= 3 launches, >= 0.02 s; the best 3 and "
                "the defaults again with 2 warm-up, >= 5 launches, >= 0.1 s, %d rounds "
                "taking turns (the median of each one's)\n",
                KL_TUNE_CONFIRM_ROUNDS);
    rc = tune_all(kl, b, t, chosen, n, (int[3]){M, N, K}, start, out);
    kl_gemm_bench_close(b);
    if (fflush(out) != 0 || ferror(out))
        rc = EXIT_RUNTIME;
    return rc;
}

/* ---- a user's kernel on its ladder -------------------------------------------- */

void kl_cli_tune_user_init(const struct kl_cli_tune *t, struct kl_cli_tune_user *u)
{
    kl_tune_ladder_init(&u->tl);
    search_settings(t, t->budget_s, &u->tl.req);
    u->log = (struct kl_cli_tune_log){u->tl.rung, &u->tl.space, &u->tl.req, 0, t->quiet};
    u->tl.req.on_candidate = on_candidate;
    u->tl.req.arg = &u->log;
}

enum kl_status kl_cli_tune_user_summary(const struct kl_cli_tune_user *u, FILE *out,
                                        struct kl_err *e)
{
    const struct kl_tune_outcome *o = &u->tl.out;
    kl_progress_done();
    if (!u->tl.tuned)
        return KL_OK; /* the ladder stopped before the search */
    fprintf(out, "kladder tune  %s\n", u->tl.rung);
    print_space(out, &u->tl.space);
    print_search(out, o, &u->tl.req);
    if (!o->have_best)
        return o->state.rejected
                   ? kl_fail(e, KL_ERR_VERIFY,
                             "no candidate of %s was verified (the rejected ones are above)",
                             u->tl.rung)
               : o->out_of_time || o->state.abandoned
                   ? kl_fail(e, KL_ERR_ARG, "the budget ran out before a candidate of %s was timed",
                             u->tl.rung)
                   : kl_fail(e, KL_ERR_UNSUPPORTED, "no candidate of %s could run on this device",
                             u->tl.rung);
    fprintf(out, "best:      %s", o->best_params);
    if (o->have_default && u->tl.target.start) /* the workload's choice, as the rung runs */
        fprintf(out, ", %.2fx the rung untuned (%s)", o->dflt.median_s / o->best.median_s,
                u->tl.start_config);
    else if (o->have_default)
        fprintf(out, ", %.2fx the default (%s)", o->dflt.median_s / o->best.median_s,
                o->default_params);
    fprintf(out, "; run it with");
    for (const char *p = o->best_params; *p;) {
        size_t n = strcspn(p, ",");
        fprintf(out, " --param %.*s", (int)n, p);
        p += n + (p[n] == ',');
    }
    fprintf(out, "\n\n");
    return KL_OK;
}

/* ---- the cached parameters in `kladder gemm` --------------------------------- */

void kl_cli_tuned_apply(struct kl_context *kl, struct kl_gemm_request *req,
                        struct kl_cli_tuned *hold, FILE *msg)
{
    struct kl_tuned_file f;
    char warn[8192], line[2048];
    size_t used = 0;
    hold->count = 0;
    req->tuned = hold->list;
    req->ntuned = 0;
    int got = kl_tuned_load(&kl->info, kl->ops->name, &f, warn, sizeof warn);
    if (got < 0)
        fprintf(msg, "kladder: warning: %s\n", warn);
    if (got != 1)
        return;
    int cls = kl_tune_size_class(req->M, req->N, req->K);
    line[0] = '\0';
    for (int i = 0; i < kl_gemm_rung_count() && hold->count < KL_CLI_TUNED_MAX; i++) {
        const struct kl_gemm_rung *r = kl_gemm_rung_at(i);
        const struct kl_tuned *x = kl_tuned_find(&f, "gemm", r->name, req->type, cls);
        if (!x || !kl_gemm_request_chooses(req, r) ||
            kl_params_mention(req->params, req->nparams, r->params))
            continue;
        int k = hold->count;
        int n = kl_tuned_items(x->params, hold->buf[k], sizeof hold->buf[k], hold->items[k],
                               KL_MAX_PARAMS);
        struct kl_err e;
        if (n < 1 ||
            kl_gemm_check(kl, r, hold->items[k], n, req->type, req->M, req->N, NULL, &e) != KL_OK) {
            fprintf(msg, "kladder: warning: ignoring the tuned parameters of %s (%s) in %s: %s\n",
                    r->name, x->params, f.path, n < 1 ? "malformed" : e.msg);
            continue;
        }
        hold->list[k] = (struct kl_gemm_rung_params){r->name, hold->items[k], n};
        hold->count++;
        if (used < sizeof line)
            used += (size_t)snprintf(line + used, sizeof line - used, "%s%s %s", k ? "; " : "",
                                     r->name, x->params);
    }
    req->ntuned = hold->count;
    if (hold->count)
        fprintf(msg, "kladder: tuned parameters from %s (size class 2^%d): %s\n", f.path, cls,
                line);
    kl_tuned_free(&f);
}
