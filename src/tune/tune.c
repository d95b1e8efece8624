/*
 * The tuner: the space of a rung's parameters and its search.
 *
 * The space comes from the rung's parameters (each one's range, multiple
 * and power-of-two rule) and from the target's check (for GEMM the
 * relations between parameters and the device's limits, the check
 * `kladder gemm --param` runs; for a ladder's rung the engine's);
 * candidates that break any of them are pruned before anything is built.
 * The compiled kernel's own work-group limit is checked after its build,
 * before it is launched.
 *
 * The search: the rung's defaults first; every candidate when the space is
 * small or --exhaustive asks; otherwise a random sample, then a best-first
 * local search (the best candidate not yet expanded has its neighbours, one
 * parameter one step up or down, tried) until the budget runs out, the
 * space is exhausted, or the best reaches 95 % of the measured roofline.
 * A candidate whose first timed launch is KL_TUNE_SLOW_FACTOR times slower
 * than the best so far is abandoned (where the target can). The best few
 * are then timed again with the full protocol, in rounds (confirm).
 */
#include "tune/tune.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

/* ---- the space ------------------------------------------------------------ */

static int contains(const int *v, int n, int x)
{
    for (int i = 0; i < n; i++)
        if (v[i] == x)
            return 1;
    return 0;
}

static void insert_sorted(int *v, int *n, int x)
{
    int i = *n;
    while (i > 0 && v[i - 1] > x) {
        v[i] = v[i - 1];
        i--;
    }
    v[i] = x;
    (*n)++;
}

static long next_pow2(long x)
{
    long p = 1;
    while (p < x)
        p *= 2;
    return p;
}

/* A parameter's range as values, ascending: see struct kl_tune_space. */
static int range_values(const struct kl_param_def *d, int *out)
{
    int n = 0, m = d->multiple > 0 ? d->multiple : 1;
    if (d->min <= 0 && !d->pow2)
        out[n++] = 0;
    for (long v = d->pow2 ? 1 : m; v <= d->max && n < KL_TUNE_MAX_VALUES - 1; v *= 2)
        if (v >= d->min && v % m == 0)
            out[n++] = (int)v;
    if (!contains(out, n, d->def) && d->def >= d->min && d->def <= d->max)
        insert_sorted(out, &n, d->def);
    return n;
}

/* How many of the n ascending values v to keep: none beyond the (rounded-up) extent, but one. */
static int within_extent(const int *v, int n, long extent)
{
    if (extent <= 0)
        return n;
    long cap = next_pow2(extent);
    int keep = 0;
    while (keep < n && (v[keep] <= cap || keep == 0))
        keep++;
    return keep;
}

/* A parameter's values: see struct kl_tune_space. */
static int value_list(const struct kl_param_def *d, long extent, int *out)
{
    return within_extent(out, range_values(d, out), extent);
}

/* Parameter p's value as the rung runs untuned: the target's start, else its default. */
static int start_value(const struct kl_tune_target *t, int p)
{
    return t->start ? t->start[p] : t->params[p].def;
}

/* Values v, one a parameter, as items "NAME=v" (held in text) and joined "A=1,B=2" (n bytes). */
static void values_text(const struct kl_tune_space *s, const int *v, char text[][32],
                        const char **items, char *joined, size_t n)
{
    size_t used = 0;
    if (joined && n)
        joined[0] = '\0';
    for (int p = 0; p < s->nparams; p++) {
        snprintf(text[p], 32, "%s=%d", s->target->params[p].name, v[p]);
        items[p] = text[p];
        if (joined && used < n)
            used += (size_t)snprintf(joined + used, n - used, "%s%s", p ? "," : "", text[p]);
    }
}

/* The values the rung runs with untuned (start_value), one a parameter. */
static void start_values(const struct kl_tune_space *s, int *v)
{
    for (int p = 0; p < s->nparams; p++)
        v[p] = start_value(s->target, p);
}

/* The values at indices idx of each parameter's list, one a parameter. */
static void index_values(const struct kl_tune_space *s, const unsigned char *idx, int *v)
{
    for (int p = 0; p < s->nparams; p++)
        v[p] = s->values[p][idx[p]];
}

int kl_tune_candidate(const struct kl_tune_space *s, int i, char text[][32], const char **items,
                      char *joined, size_t n)
{
    int v[KL_MAX_PARAMS];
    index_values(s, s->cand + (size_t)i * (size_t)s->nparams, v);
    values_text(s, v, text, items, joined, n);
    return s->nparams;
}

void kl_tune_space_free(struct kl_tune_space *s)
{
    free(s->cand);
    s->cand = NULL;
    s->count = 0;
}

/* Each parameter's values (value_list; a parameter not searched its default alone), the
   start's added, and the number of their combinations. */
static void space_axes(struct kl_tune_space *s)
{
    const struct kl_tune_target *t = s->target;
    s->combinations = 1;
    for (int p = 0; p < s->nparams; p++) {
        const struct kl_param_def *d = &t->params[p];
        const long extent = t->extent ? t->extent(t->self, d->name) : 0;
        if (extent < 0)
            s->values[p][0] = d->def, s->nvalues[p] = 1;
        else
            s->nvalues[p] = value_list(d, extent, s->values[p]);
        if (t->start && !contains(s->values[p], s->nvalues[p], t->start[p]) &&
            s->nvalues[p] < KL_TUNE_MAX_VALUES)
            insert_sorted(s->values[p], &s->nvalues[p], t->start[p]);
        s->combinations *= s->nvalues[p];
    }
}

/* The next combination, the last parameter fastest: lexicographic order. */
static void next_combination(const struct kl_tune_space *s, unsigned char *idx)
{
    for (int p = s->nparams - 1; p >= 0; p--) {
        if (++idx[p] < s->nvalues[p])
            return;
        idx[p] = 0;
    }
}

/* What the enumeration notes of each candidate for the sensible-space rules. */
struct space_marks {
    size_t *wg;          /* its work-group size (0: known only after the build) */
    unsigned char *rule; /* 1: it breaks one of the target's rules */
    size_t largest;      /* the largest work-group of a candidate that breaks none */
};

/* Every combination that passes the target's check, into s->cand in order, and its marks. */
static void enumerate(struct kl_tune_space *s, struct space_marks *m)
{
    const struct kl_tune_target *t = s->target;
    unsigned char idx[KL_MAX_PARAMS] = {0};
    char text[KL_MAX_PARAMS][32];
    const char *items[KL_MAX_PARAMS];
    int values[KL_MAX_PARAMS];
    struct kl_err ignored;
    for (long c = 0; c < s->combinations; c++) {
        size_t w = 0;
        index_values(s, idx, values);
        values_text(s, values, text, items, NULL, 0);
        if (t->check(t->self, items, s->nparams, &w, &ignored) != KL_OK) {
            s->pruned++;
        } else {
            /* The sensible-space rules, applied by apply_rules unless they would leave nothing. */
            int broken = t->rules && t->rules(t->self, values);
            memcpy(s->cand + (size_t)s->count * (size_t)s->nparams, idx, (size_t)s->nparams);
            m->rule[s->count] = (unsigned char)broken;
            m->wg[s->count++] = w;
            if (!broken)
                m->largest = w > m->largest ? w : m->largest;
        }
        next_combination(s, idx);
    }
}

/*
 * 1 where candidate i breaks a sensible-space rule: the target's, or on a
 * GPU a work-group below floor (a warp, where larger ones exist: smaller
 * ones leave lanes idle); a size known only after the build (0) is not
 * judged.
 */
static int breaks_rules(const struct space_marks *m, int i, size_t floor)
{
    return m->rule[i] || (m->wg[i] && m->wg[i] < floor);
}

/* Drops the candidates that break a sensible-space rule, unless that would drop them all. */
static void apply_rules(const struct kl_context *kl, struct kl_tune_space *s,
                        const struct space_marks *m)
{
    size_t floor = kl->info.is_gpu ? (m->largest < 32 ? m->largest : 32) : 1;
    int kept = 0, keep_all = 1;
    for (int i = 0; i < s->count && keep_all; i++)
        keep_all = breaks_rules(m, i, floor);
    for (int i = 0; i < s->count; i++) {
        if (!keep_all && breaks_rules(m, i, floor)) {
            s->pruned_rules++;
            continue;
        }
        memmove(s->cand + (size_t)kept * (size_t)s->nparams,
                s->cand + (size_t)i * (size_t)s->nparams, (size_t)s->nparams);
        kept++;
    }
    s->count = kept;
}

/* The candidate of the rung's defaults, or -1 where the space lacks it. */
static int default_candidate(const struct kl_tune_space *s)
{
    for (int i = 0; i < s->count; i++) {
        const unsigned char *x = s->cand + (size_t)i * (size_t)s->nparams;
        int same = 1;
        for (int p = 0; p < s->nparams && same; p++)
            same = s->values[p][x[p]] == start_value(s->target, p);
        if (same)
            return i;
    }
    return -1;
}

enum kl_status kl_tune_space_build(struct kl_context *kl, const struct kl_tune_target *t,
                                   struct kl_tune_space *s, struct kl_err *e)
{
    memset(s, 0, sizeof *s);
    s->target = t;
    s->default_index = -1;
    s->nparams = kl_param_count(t->params);
    if (s->nparams == 0)
        return kl_fail(e, KL_ERR_ARG, "rung %s has no parameters to tune", t->name);
    space_axes(s);
    if (s->combinations > 1000000)
        return kl_fail(e, KL_ERR_ARG, "rung %s: %ld combinations are too many to enumerate",
                       t->name, s->combinations);
    struct space_marks m = {malloc((size_t)s->combinations * sizeof *m.wg),
                            malloc((size_t)s->combinations), 0};
    s->cand = malloc((size_t)s->combinations * (size_t)s->nparams);
    if (!m.wg || !m.rule || !s->cand) {
        free(m.wg);
        free(m.rule);
        kl_tune_space_free(s);
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory");
    }
    enumerate(s, &m);
    apply_rules(kl, s, &m);
    free(m.wg);
    free(m.rule);
    s->default_index = default_candidate(s);
    return KL_OK;
}

/* ---- the search ----------------------------------------------------------- */

struct search {
    const struct kl_tune_space *s;
    const struct kl_tune_request *req;
    struct kl_tune_outcome *out;
    double *score;       /* per candidate: median, INFINITY (rejected ...), NAN (untried) */
    unsigned char *done; /* expanded */
    long *code;          /* per candidate: its index tuple as one number */
    struct kl_rng rng;
    double cost;    /* seconds spent on candidates, for the estimate of the next */
    int errors;     /* device errors in a row */
    double reserve; /* seconds kept for the confirmation */
    struct kl_result best_res;
};

static long code_of(const struct kl_tune_space *s, const unsigned char *idx)
{
    long c = 0;
    for (int p = 0; p < s->nparams; p++)
        c = c * s->nvalues[p] + idx[p];
    return c;
}

static int find_code(const struct search *x, long c)
{
    int lo = 0, hi = x->s->count - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (x->code[mid] == c)
            return mid;
        if (x->code[mid] < c)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

static double deadline(const struct search *x, int confirming)
{
    const struct kl_tune_request *q = x->req;
    return q->budget_s > 0 ? q->start + q->budget_s - (confirming ? 0 : x->reserve) : 0;
}

/* Whether another candidate (of the average cost so far) fits in the budget. */
static int time_left(struct search *x)
{
    const struct kl_tune_request *q = x->req;
    if (q->budget_s <= 0)
        return 1;
    int n = x->out->state.tried;
    double est = n ? x->cost / n : 0;
    if (kl_now() + est <= deadline(x, 0))
        return 1;
    x->out->out_of_time = 1;
    return 0;
}

/* The rate of a candidate of this median time, in the roof's unit per second. */
static double rate_of(const struct kl_tune_request *q, double median)
{
    return median > 0 ? q->work / median : 0;
}

/* The rung's values untuned as "A=1,B=2" into out (n bytes). */
static void defaults_text(const struct kl_tune_space *s, char *out, size_t n)
{
    char text[KL_MAX_PARAMS][32];
    const char *items[KL_MAX_PARAMS];
    int v[KL_MAX_PARAMS];
    start_values(s, v);
    values_text(s, v, text, items, out, n);
}

/* Candidate i's items and "A=1,B=2"; for -1 (the defaults outside the space) the target's
   start as items, or none (its defaults). */
static int candidate_items(const struct kl_tune_space *s, int i, char text[][32],
                           const char **items, char *joined, size_t n)
{
    int v[KL_MAX_PARAMS];
    if (i >= 0)
        return kl_tune_candidate(s, i, text, items, joined, n);
    start_values(s, v);
    values_text(s, v, text, items, joined, n);
    return s->target->start ? s->nparams : 0;
}

/* What a candidate's run (rc, and res where it returned KL_OK) makes of it. */
static enum kl_tune_verdict verdict_of(enum kl_status rc, const struct kl_result *res)
{
    enum kl_tune_verdict v;
    if (rc == KL_OK && res->status == KL_RESULT_VERIFIED) {
        v = KL_TUNE_VERIFIED;
    } else if (rc == KL_OK && res->status == KL_RESULT_SKIPPED) {
        v = KL_TUNE_ABANDONED;
    } else if (rc == KL_ERR_UNSUPPORTED || rc == KL_ERR_ARG) {
        v = KL_TUNE_UNSUPPORTED;
    } else { /* a wrong result, no build, or a device error */
        v = KL_TUNE_REJECTED;
    }
    return v;
}

/*
 * Whether a run's status ends the search: an interruption at once (nothing
 * is cached), device errors after three in a row; the candidate's own
 * failures (a build, a wrong result, a misfit) and a run that ended clear
 * the count.
 */
static enum kl_status ends_search(struct search *x, enum kl_status rc)
{
    switch (rc) {
    case KL_OK:
    case KL_ERR_BUILD:
    case KL_ERR_UNSUPPORTED:
    case KL_ERR_ARG: x->errors = 0; return KL_OK;
    case KL_ERR_VERIFY: return KL_OK;
    case KL_ERR_INTERRUPTED: return rc;
    default: return ++x->errors >= 3 ? rc : KL_OK;
    }
}

/* A search candidate's verdict in the state; the best so far where it beats it. */
static void tally(struct search *x, int i, enum kl_tune_verdict v, double score,
                  const struct kl_result *res, const char *joined)
{
    struct kl_tune_state *st = &x->out->state;
    st->tried++;
    st->verified += v == KL_TUNE_VERIFIED;
    st->rejected += v == KL_TUNE_REJECTED;
    st->abandoned += v == KL_TUNE_ABANDONED;
    st->unsupported += v == KL_TUNE_UNSUPPORTED;
    if (v == KL_TUNE_VERIFIED && (st->best_median <= 0 || score < st->best_median)) {
        st->best_median = score;
        st->best = i;
        x->best_res = *res;
        snprintf(x->out->best_params, sizeof x->out->best_params, "%s", joined);
    }
}

/*
 * Builds, verifies and times one candidate (index i, or -1 for the rung's
 * defaults outside the space) by proto; its score is the median, INFINITY
 * when it did not verify, fit or finish. A device error ends the search
 * after three in a row.
 */
static enum kl_status evaluate(struct search *x, int i, const struct kl_protocol *proto,
                               int confirming, struct kl_result *res, double *score)
{
    const struct kl_tune_target *t = x->s->target;
    struct kl_tune_state *st = &x->out->state;
    char text[KL_MAX_PARAMS][32], joined[256] = "";
    const char *items[KL_MAX_PARAMS];
    int n = candidate_items(x->s, i, text, items, joined, sizeof joined);
    struct kl_run_limits lim = {0, deadline(x, confirming), 0};
    if (st->best_median > 0 && !confirming)
        lim.abandon_s = KL_TUNE_SLOW_FACTOR * st->best_median;
    double t0 = kl_now();
    memset(res, 0, sizeof *res);
    res->status = KL_RESULT_FAILED; /* until the run verifies it (a zeroed row reads verified) */
    enum kl_status rc = t->run(t->self, items, n, proto, &lim, res);
    enum kl_tune_verdict v = verdict_of(rc, res);
    enum kl_status stop = ends_search(x, rc);
    *score = INFINITY;
    if (stop != KL_OK)
        return stop;
    if (v == KL_TUNE_VERIFIED)
        *score = res->median_s;
    if (rc != KL_OK) { /* not built, or not run: no result, whatever the row held */
        snprintf(res->note, sizeof res->note, "%.500s", t->err->msg);
        res->status = KL_RESULT_FAILED;
    }
    if (!confirming) {
        x->cost += kl_now() - t0;
        tally(x, i, v, *score, res, joined);
    } else if (v == KL_TUNE_REJECTED) {
        st->rejected++;
    }
    st->elapsed_s = kl_now() - x->req->start;
    st->confirming = confirming;
    if (x->req->on_candidate)
        x->req->on_candidate(x->req->arg, st, joined, v, res);
    return KL_OK;
}

/* Evaluates candidate i of the space by the search protocol; 1 when the search should stop. */
static enum kl_status try_candidate(struct search *x, int i, int *stop)
{
    struct kl_result res;
    const struct kl_tune_request *q = x->req;
    enum kl_status rc = evaluate(x, i, &q->search, 0, &res, &x->score[i]);
    if (rc != KL_OK)
        return rc;
    if (i == x->s->default_index && res.status == KL_RESULT_VERIFIED) {
        x->out->have_default = 1;
        x->out->dflt = res;
    }
    double best = x->out->state.best_median;
    if (q->roof > 0 && best > 0 && rate_of(q, best) >= 0.95 * q->roof) {
        x->out->stopped_at_roof = 1;
        *stop = 1;
    }
    return KL_OK;
}

static int untried(const struct search *x, int i)
{
    return isnan(x->score[i]);
}

/* A random untried candidate, or -1 when every one was tried. */
static int random_untried(struct search *x)
{
    int left = 0;
    for (int i = 0; i < x->s->count; i++)
        left += untried(x, i);
    if (!left)
        return -1;
    int k = (int)(kl_rng_next(&x->rng) % (uint64_t)left);
    for (int i = 0; i < x->s->count; i++)
        if (untried(x, i) && k-- == 0)
            return i;
    return -1;
}

/* The best tried candidate whose neighbours have not been looked at, or -1. */
static int best_unexpanded(const struct search *x)
{
    int hit = -1;
    for (int i = 0; i < x->s->count; i++)
        if (!x->done[i] && isfinite(x->score[i]) && (hit < 0 || x->score[i] < x->score[hit]))
            hit = i;
    return hit;
}

/* Candidate i when another fits in the budget (try_candidate); else *stop. */
static enum kl_status try_in_time(struct search *x, int i, int *stop)
{
    if (!time_left(x)) {
        *stop = 1;
        return KL_OK;
    }
    return try_candidate(x, i, stop);
}

/* The rung's defaults first: a baseline, and the abandon threshold from the start. */
static enum kl_status try_defaults(struct search *x, int *stop)
{
    const struct kl_tune_space *s = x->s;
    struct kl_result res;
    double score;
    struct kl_err ignored;
    enum kl_status rc;
    char text[KL_MAX_PARAMS][32], joined[256];
    const char *items[KL_MAX_PARAMS];
    if (s->default_index >= 0)
        return try_candidate(x, s->default_index, stop);
    /* Defaults outside the space (a sensible-space rule dropped them): timed where they fit. */
    int n = candidate_items(s, -1, text, items, joined, sizeof joined);
    if (s->target->check(s->target->self, n ? items : NULL, n, NULL, &ignored) != KL_OK)
        return KL_OK;
    if ((rc = evaluate(x, -1, &x->req->search, 0, &res, &score)) != KL_OK)
        return rc;
    if (res.status == KL_RESULT_VERIFIED) {
        x->out->have_default = 1;
        x->out->dflt = res;
    }
    return KL_OK;
}

/* Every untried candidate in order, as time allows. */
static enum kl_status search_all(struct search *x, int *stop)
{
    enum kl_status rc;
    for (int i = 0; i < x->s->count && !*stop; i++) {
        if (!untried(x, i))
            continue;
        if (!time_left(x))
            return KL_OK;
        if ((rc = try_candidate(x, i, stop)) != KL_OK)
            return rc;
    }
    x->out->exhaustive = !*stop;
    return KL_OK;
}

/* A random sample over the whole space: an eighth of it, 6 to 24 candidates. */
static enum kl_status sample_space(struct search *x, int *stop)
{
    int sample = x->s->count / 8;
    enum kl_status rc;
    sample = sample < 6 ? 6 : sample > 24 ? 24 : sample;
    for (int k = 0; k < sample && !*stop; k++) {
        int i = random_untried(x);
        if (i < 0) {
            *stop = 1;
            return KL_OK;
        }
        if ((rc = try_in_time(x, i, stop)) != KL_OK)
            return rc;
    }
    return KL_OK;
}

/* Candidate c with parameter p one step (-1 or 1) along its values, or -1 where none is. */
static int neighbour(const struct search *x, int c, int p, int step)
{
    const struct kl_tune_space *s = x->s;
    unsigned char idx[KL_MAX_PARAMS];
    memcpy(idx, s->cand + (size_t)c * (size_t)s->nparams, (size_t)s->nparams);
    int v = idx[p] + step;
    if (v < 0 || v >= s->nvalues[p])
        return -1;
    idx[p] = (unsigned char)v;
    return find_code(x, code_of(s, idx));
}

/* Tries the untried neighbours of candidate c, one parameter one step, and marks it expanded. */
static enum kl_status expand(struct search *x, int c, int *stop)
{
    enum kl_status rc;
    x->done[c] = 1;
    for (int p = 0; p < x->s->nparams && !*stop; p++)
        for (int step = -1; step <= 1 && !*stop; step += 2) {
            int n = neighbour(x, c, p, step);
            if (n < 0 || !untried(x, n))
                continue;
            if ((rc = try_in_time(x, n, stop)) != KL_OK)
                return rc;
        }
    return KL_OK;
}

/*
 * The neighbours of the best candidate not yet expanded, over and over;
 * where every good candidate's neighbourhood is known, a random one
 * elsewhere; the space exhausted when none is left.
 */
static enum kl_status search_neighbours(struct search *x, int *stop)
{
    enum kl_status rc = KL_OK;
    while (!*stop && rc == KL_OK) {
        int c = best_unexpanded(x);
        if (c >= 0) {
            rc = expand(x, c, stop);
        } else if ((c = random_untried(x)) >= 0) {
            rc = try_in_time(x, c, stop);
        } else {
            x->out->exhaustive = 1;
            *stop = 1;
        }
    }
    return rc;
}

static enum kl_status search_space(struct search *x)
{
    enum kl_status rc;
    int stop = 0;
    if ((rc = try_defaults(x, &stop)) != KL_OK || stop)
        return rc;
    if (x->req->exhaustive || x->s->count <= KL_TUNE_SMALL_SPACE) {
        snprintf(x->out->strategy, sizeof x->out->strategy, "exhaustive");
        return search_all(x, &stop);
    }
    snprintf(x->out->strategy, sizeof x->out->strategy, "search");
    /* A random sample over the whole space, then the neighbours of the best. */
    if ((rc = sample_space(x, &stop)) != KL_OK)
        return rc;
    return search_neighbours(x, &stop);
}

/* The best few tried (at most 8, by score) and the defaults where verified, into top. */
static int pick_top(const struct search *x, int *top)
{
    const struct kl_tune_space *s = x->s;
    int ntop = 0, want = x->req->confirm_count < 8 ? x->req->confirm_count : 8;
    for (int k = 0; k < want; k++) {
        int hit = -1;
        for (int i = 0; i < s->count; i++) {
            int taken = contains(top, ntop, i);
            if (!taken && isfinite(x->score[i]) && (hit < 0 || x->score[i] < x->score[hit]))
                hit = i;
        }
        if (hit >= 0)
            top[ntop++] = hit;
    }
    if (s->default_index >= 0 && x->out->have_default && !contains(top, ntop, s->default_index) &&
        ntop < 8)
        top[ntop++] = s->default_index;
    return ntop;
}

/*
 * Candidate c timed again with the full protocol into *res, unless that
 * would end past the deadline (*late: res untouched). One that verified
 * in the search and fails now is not a result at all (its score INFINITY).
 */
static enum kl_status retime(struct search *x, int c, struct kl_result *res, int *late)
{
    const struct kl_tune_request *q = x->req;
    double score;
    double est =
        x->score[c] * (q->confirm.warmup + q->confirm.min_repeats + 1) + q->confirm.min_time;
    if (q->budget_s > 0 && kl_now() + est > deadline(x, 1)) {
        *late = 1;
        return KL_OK;
    }
    enum kl_status rc = evaluate(x, c, &q->confirm, 1, res, &score);
    if (rc != KL_OK)
        return rc;
    if (res->status == KL_RESULT_FAILED) {
        x->score[c] = INFINITY;
        if (c == x->s->default_index)
            x->out->have_default = 0;
    }
    return KL_OK;
}

/* The best candidate's values as "A=1,B=2" in the outcome. */
static void best_params(struct search *x, int best)
{
    char text[KL_MAX_PARAMS][32];
    const char *items[KL_MAX_PARAMS];
    kl_tune_candidate(x->s, best, text, items, x->out->best_params, sizeof x->out->best_params);
}

/*
 * The search's best failed its second verification: the next verified one
 * is the best, its search result standing, timed once more to have it as a
 * result; none where that fails too.
 */
static enum kl_status next_best(struct search *x)
{
    const struct kl_tune_space *s = x->s;
    struct kl_result res;
    double score;
    int hit = -1;
    for (int i = 0; i < s->count; i++)
        if (isfinite(x->score[i]) && (hit < 0 || x->score[i] < x->score[hit]))
            hit = i;
    x->out->state.best = hit;
    x->out->state.best_median = hit >= 0 ? x->score[hit] : 0;
    if (hit < 0)
        return KL_OK;
    enum kl_status rc = evaluate(x, hit, &x->req->search, 1, &res, &score);
    if (rc != KL_OK)
        return rc;
    if (res.status == KL_RESULT_VERIFIED) {
        x->best_res = res;
        best_params(x, hit);
    } else {
        x->out->state.best = -1;
    }
    return KL_OK;
}

/* The result among k of one finalist whose median is the median of their medians (the
   lower of the middle two where k is even), or NULL where one of them did not verify. */
static const struct kl_result *median_round(const struct kl_result *r, int k)
{
    const struct kl_result *sorted[KL_TUNE_CONFIRM_ROUNDS];
    for (int i = 0; i < k; i++) {
        if (r[i].status != KL_RESULT_VERIFIED)
            return NULL;
        int j = i;
        for (; j > 0 && sorted[j - 1]->median_s > r[i].median_s; j--)
            sorted[j] = sorted[j - 1];
        sorted[j] = &r[i];
    }
    return k > 0 ? sorted[(k - 1) / 2] : NULL;
}

/*
 * The ntop finalists top in KL_TUNE_CONFIRM_ROUNDS rounds, as time allows:
 * each once a round (finalist f's round r into res[f * ROUNDS + r]), round
 * r starting r places further along. *rounds: the rounds completed.
 */
static enum kl_status time_rounds(struct search *x, const int *top, int ntop,
                                  struct kl_result *res, int *rounds)
{
    enum kl_status rc = KL_OK;
    int late = 0;
    *rounds = 0;
    for (int r = 0; r < KL_TUNE_CONFIRM_ROUNDS && !late && rc == KL_OK; r++) {
        for (int j = 0; j < ntop && !late && rc == KL_OK; j++) {
            int f = (j + r) % ntop;
            if (isfinite(x->score[top[f]]))
                rc = retime(x, top[f], &res[f * KL_TUNE_CONFIRM_ROUNDS + r], &late);
        }
        *rounds += !late;
    }
    return rc;
}

/* The fastest finalist by the median of its rounds (the first one alone where none was
   completed) as the best, the defaults' median round as theirs; its time, or INFINITY. */
static double take_fastest(struct search *x, const int *top, int ntop,
                           const struct kl_result *res, int rounds)
{
    double fastest = INFINITY;
    for (int f = 0; f < ntop; f++) {
        const struct kl_result *m =
            median_round(res + f * KL_TUNE_CONFIRM_ROUNDS, rounds ? rounds : 1);
        if (!m || !isfinite(x->score[top[f]]))
            continue;
        if (top[f] == x->s->default_index)
            x->out->dflt = *m;
        if (m->median_s < fastest) {
            fastest = m->median_s;
            x->best_res = *m;
            x->out->state.best = top[f];
            x->out->state.best_median = fastest;
        }
    }
    return fastest;
}

/*
 * The best few (and the defaults) again with the full protocol, as time
 * allows, in rounds (time_rounds), each one's time the median of its
 * rounds. A GPU that warms (or cools) as it goes, as one held at its power
 * limit does, then slows every finalist alike instead of the ones timed
 * last. Only whole rounds count (the first even where it is cut short: the
 * finalists it reached).
 */
static enum kl_status confirm(struct search *x)
{
    int top[8], ntop = pick_top(x, top), rounds = 0;
    if (ntop == 0)
        return KL_OK;
    struct kl_result *res = calloc((size_t)ntop * KL_TUNE_CONFIRM_ROUNDS, sizeof *res);
    if (!res)
        return kl_fail(x->s->target->err, KL_ERR_NO_MEMORY, "out of host memory");
    for (int i = 0; i < ntop * KL_TUNE_CONFIRM_ROUNDS; i++)
        res[i].status = KL_RESULT_FAILED; /* not timed (a zeroed row reads verified) */
    enum kl_status rc = time_rounds(x, top, ntop, res, &rounds);
    double fastest = rc == KL_OK ? take_fastest(x, top, ntop, res, rounds) : INFINITY;
    free(res);
    if (rc != KL_OK)
        return rc;
    int best = x->out->state.best;
    if (isfinite(fastest))
        best_params(x, best);
    else if (best >= 0 && !isfinite(x->score[best]))
        return next_best(x);
    return KL_OK;
}

/*
 * Whether the best few are timed again: where the confirmation's protocol
 * differs from the search's.
 */
static int confirms(const struct kl_tune_request *req)
{
    const struct kl_protocol *a = &req->confirm, *c = &req->search;
    return req->confirm_count > 0 &&
           (a->warmup != c->warmup || a->min_repeats != c->min_repeats ||
            a->min_time != c->min_time || a->max_repeats != c->max_repeats ||
            a->noise != c->noise || a->max_time != c->max_time || a->cold != c->cold ||
            a->min_clock != c->min_clock);
}

/* Time kept for the confirmation: its rounds of full protocols, at most a tenth of the budget. */
static double confirm_reserve(const struct kl_tune_request *req)
{
    double reserve =
        KL_TUNE_CONFIRM_ROUNDS * (req->confirm_count + 1) * (req->confirm.min_time + 0.05);
    if (!confirms(req) || req->budget_s <= 0)
        return 0;
    return reserve > 0.1 * req->budget_s ? 0.1 * req->budget_s : reserve;
}

static void search_free(struct search *x)
{
    free(x->score);
    free(x->done);
    free(x->code);
}

/* The search's per-candidate arrays: every score untried, every code from its values. */
static enum kl_status search_init(struct search *x, const struct kl_tune_space *s,
                                  const struct kl_tune_request *req, struct kl_tune_outcome *out)
{
    memset(x, 0, sizeof *x);
    x->s = s, x->req = req, x->out = out;
    kl_rng_seed(&x->rng, req->seed ^ 0x7u);
    x->score = malloc(((size_t)s->count + 1) * sizeof *x->score);
    x->done = calloc((size_t)s->count + 1, 1);
    x->code = malloc(((size_t)s->count + 1) * sizeof *x->code);
    if (!x->score || !x->done || !x->code) {
        search_free(x);
        return kl_fail(s->target->err, KL_ERR_NO_MEMORY, "out of host memory");
    }
    for (int i = 0; i < s->count; i++) {
        x->score[i] = NAN;
        x->code[i] = code_of(s, s->cand + (size_t)i * (size_t)s->nparams);
    }
    x->reserve = confirm_reserve(req);
    return KL_OK;
}

enum kl_status kl_tune_search(const struct kl_tune_space *s, const struct kl_tune_request *req,
                              struct kl_tune_outcome *out)
{
    struct search x;
    enum kl_status rc;
    memset(out, 0, sizeof *out);
    out->state.best = -1;
    if ((rc = search_init(&x, s, req, out)) != KL_OK)
        return rc;
    rc = search_space(&x);
    out->have_best = out->state.best_median > 0;
    if (rc == KL_OK && out->have_best && confirms(req) && out->state.best >= 0)
        rc = confirm(&x);
    out->have_best = rc == KL_OK && out->state.best_median > 0 && x.best_res.median_s > 0;
    if (out->have_best)
        out->best = x.best_res;
    if (out->have_default)
        defaults_text(s, out->default_params, sizeof out->default_params);
    out->state.elapsed_s = kl_now() - req->start;
    search_free(&x);
    return rc;
}
