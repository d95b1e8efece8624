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
 * are then timed again with the full protocol.
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

/* A parameter's values: see struct kl_tune_space. */
static int value_list(const struct kl_param_def *d, long extent, int *out)
{
    int n = 0, m = d->multiple > 0 ? d->multiple : 1;
    if (d->min <= 0 && !d->pow2)
        out[n++] = 0;
    for (long v = d->pow2 ? 1 : m; v <= d->max && n < KL_TUNE_MAX_VALUES - 1; v *= 2)
        if (v >= d->min && v % m == 0)
            out[n++] = (int)v;
    if (!contains(out, n, d->def) && d->def >= d->min && d->def <= d->max)
        insert_sorted(out, &n, d->def);
    /* Nothing beyond the (rounded-up) extent, but always one value. */
    if (extent > 0) {
        long cap = next_pow2(extent);
        int keep = 0;
        while (keep < n && (out[keep] <= cap || keep == 0))
            keep++;
        n = keep;
    }
    return n;
}

static size_t item_text(const struct kl_tune_space *s, const unsigned char *idx, char text[][32],
                        const char **items, char *joined, size_t n)
{
    size_t used = 0;
    if (joined && n)
        joined[0] = '\0';
    for (int p = 0; p < s->nparams; p++) {
        snprintf(text[p], 32, "%s=%d", s->target->params[p].name, s->values[p][idx[p]]);
        items[p] = text[p];
        if (joined && used < n)
            used += (size_t)snprintf(joined + used, n - used, "%s%s", p ? "," : "", text[p]);
    }
    return used;
}

int kl_tune_candidate(const struct kl_tune_space *s, int i, char text[][32], const char **items,
                      char *joined, size_t n)
{
    item_text(s, s->cand + (size_t)i * (size_t)s->nparams, text, items, joined, n);
    return s->nparams;
}

void kl_tune_space_free(struct kl_tune_space *s)
{
    free(s->cand);
    s->cand = NULL;
    s->count = 0;
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
    s->combinations = 1;
    for (int p = 0; p < s->nparams; p++) {
        const struct kl_param_def *d = &t->params[p];
        s->nvalues[p] = value_list(d, t->extent ? t->extent(t->self, d->name) : 0, s->values[p]);
        s->combinations *= s->nvalues[p];
    }
    if (s->combinations > 1000000)
        return kl_fail(e, KL_ERR_ARG, "rung %s: %ld combinations are too many to enumerate",
                       t->name, s->combinations);
    size_t *wg = malloc((size_t)s->combinations * sizeof *wg);
    unsigned char *rule = malloc((size_t)s->combinations);
    s->cand = malloc((size_t)s->combinations * (size_t)s->nparams);
    if (!wg || !rule || !s->cand) {
        free(wg);
        free(rule);
        kl_tune_space_free(s);
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory");
    }
    size_t largest = 0;
    unsigned char idx[KL_MAX_PARAMS] = {0};
    char text[KL_MAX_PARAMS][32];
    const char *items[KL_MAX_PARAMS];
    int values[KL_MAX_PARAMS];
    struct kl_err ignored;
    for (long c = 0; c < s->combinations; c++) {
        size_t w = 0;
        item_text(s, idx, text, items, NULL, 0);
        if (t->check(t->self, items, s->nparams, &w, &ignored) != KL_OK) {
            s->pruned++;
        } else {
            /* The sensible-space rules, applied below unless they would leave nothing. */
            for (int p = 0; p < s->nparams; p++)
                values[p] = s->values[p][idx[p]];
            int broken = t->rules && t->rules(t->self, values);
            memcpy(s->cand + (size_t)s->count * (size_t)s->nparams, idx, (size_t)s->nparams);
            rule[s->count] = (unsigned char)broken;
            wg[s->count++] = w;
            if (!broken)
                largest = w > largest ? w : largest;
        }
        /* The next combination, the last parameter fastest: lexicographic order. */
        for (int p = s->nparams - 1; p >= 0; p--) {
            if (++idx[p] < s->nvalues[p])
                break;
            idx[p] = 0;
        }
    }
    /*
     * On a GPU a work-group below a warp leaves lanes idle (where larger ones
     * exist); a size known only after the build (0) is not judged.
     */
    size_t floor = kl->info.is_gpu ? (largest < 32 ? largest : 32) : 1;
    int kept = 0, keep_all = 1;
    for (int i = 0; i < s->count && keep_all; i++)
        keep_all = rule[i] || (wg[i] && wg[i] < floor);
    for (int i = 0; i < s->count; i++) {
        if (!keep_all && (rule[i] || (wg[i] && wg[i] < floor))) {
            s->pruned_rules++;
            continue;
        }
        memmove(s->cand + (size_t)kept * (size_t)s->nparams,
                s->cand + (size_t)i * (size_t)s->nparams, (size_t)s->nparams);
        kept++;
    }
    s->count = kept;
    free(wg);
    free(rule);
    for (int i = 0; i < s->count && s->default_index < 0; i++) {
        const unsigned char *x = s->cand + (size_t)i * (size_t)s->nparams;
        int same = 1;
        for (int p = 0; p < s->nparams && same; p++)
            same = s->values[p][x[p]] == t->params[p].def;
        if (same)
            s->default_index = i;
    }
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

/*
 * Builds, verifies and times one candidate (index i, or -1 for the rung's
 * defaults outside the space) by proto; its score is the median, INFINITY
 * when it did not verify, fit or finish. A device error ends the search
 * after three in a row.
 */
static enum kl_status evaluate(struct search *x, int i, const struct kl_protocol *proto,
                               int confirming, struct kl_result *res, double *score)
{
    const struct kl_tune_space *s = x->s;
    struct kl_tune_state *st = &x->out->state;
    char text[KL_MAX_PARAMS][32], joined[256] = "";
    const char *items[KL_MAX_PARAMS];
    int n = 0;
    if (i >= 0) {
        n = kl_tune_candidate(s, i, text, items, joined, sizeof joined);
    } else {
        size_t used = 0;
        for (int p = 0; p < s->nparams && used < sizeof joined; p++)
            used += (size_t)snprintf(joined + used, sizeof joined - used, "%s%s=%d", p ? "," : "",
                                     s->target->params[p].name, s->target->params[p].def);
    }
    const struct kl_tune_target *t = s->target;
    struct kl_run_limits lim = {0, deadline(x, confirming), 0};
    if (st->best_median > 0 && !confirming)
        lim.abandon_s = KL_TUNE_SLOW_FACTOR * st->best_median;
    double t0 = kl_now();
    memset(res, 0, sizeof *res);
    enum kl_status rc = t->run(t->self, items, n, proto, &lim, res);
    enum kl_tune_verdict v;
    *score = INFINITY;
    if (rc == KL_OK && res->status == KL_RESULT_VERIFIED) {
        v = KL_TUNE_VERIFIED;
        *score = res->median_s;
    } else if (rc == KL_OK && res->status == KL_RESULT_SKIPPED) {
        v = KL_TUNE_ABANDONED;
    } else if (rc == KL_OK || rc == KL_ERR_BUILD || rc == KL_ERR_VERIFY) {
        v = KL_TUNE_REJECTED;
        if (rc != KL_OK)
            snprintf(res->note, sizeof res->note, "%.500s", t->err->msg);
    } else if (rc == KL_ERR_INTERRUPTED) {
        return rc; /* the search stops; nothing is cached */
    } else if (rc == KL_ERR_UNSUPPORTED || rc == KL_ERR_ARG) {
        v = KL_TUNE_UNSUPPORTED;
        snprintf(res->note, sizeof res->note, "%.500s", t->err->msg);
    } else {
        if (++x->errors >= 3)
            return rc;
        v = KL_TUNE_REJECTED;
        snprintf(res->note, sizeof res->note, "%.500s", t->err->msg);
    }
    if (rc == KL_OK || rc == KL_ERR_BUILD || rc == KL_ERR_UNSUPPORTED || rc == KL_ERR_ARG)
        x->errors = 0;
    if (!confirming) {
        x->cost += kl_now() - t0;
        st->tried++;
        st->verified += v == KL_TUNE_VERIFIED;
        st->rejected += v == KL_TUNE_REJECTED;
        st->abandoned += v == KL_TUNE_ABANDONED;
        st->unsupported += v == KL_TUNE_UNSUPPORTED;
        if (v == KL_TUNE_VERIFIED && (st->best_median <= 0 || *score < st->best_median)) {
            st->best_median = *score;
            st->best = i;
            x->best_res = *res;
            snprintf(x->out->best_params, sizeof x->out->best_params, "%s", joined);
        }
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

static enum kl_status search_space(struct search *x)
{
    const struct kl_tune_space *s = x->s;
    const struct kl_tune_request *q = x->req;
    enum kl_status rc = KL_OK;
    int stop = 0;

    /* The defaults first: a baseline, and the abandon threshold from the start. */
    if (s->default_index >= 0) {
        if ((rc = try_candidate(x, s->default_index, &stop)) != KL_OK || stop)
            return rc;
    } else {
        struct kl_result res;
        double score;
        struct kl_err ignored;
        if (s->target->check(s->target->self, NULL, 0, NULL, &ignored) == KL_OK) {
            if ((rc = evaluate(x, -1, &q->search, 0, &res, &score)) != KL_OK)
                return rc;
            if (res.status == KL_RESULT_VERIFIED) {
                x->out->have_default = 1;
                x->out->dflt = res;
            }
        }
    }
    if (q->exhaustive || s->count <= KL_TUNE_SMALL_SPACE) {
        snprintf(x->out->strategy, sizeof x->out->strategy, "exhaustive");
        for (int i = 0; i < s->count && !stop; i++)
            if (untried(x, i)) {
                if (!time_left(x))
                    return KL_OK;
                if ((rc = try_candidate(x, i, &stop)) != KL_OK)
                    return rc;
            }
        x->out->exhaustive = !stop;
        return KL_OK;
    }
    snprintf(x->out->strategy, sizeof x->out->strategy, "search");
    /* A random sample over the whole space ... */
    int sample = s->count / 8;
    sample = sample < 6 ? 6 : sample > 24 ? 24 : sample;
    for (int k = 0; k < sample && !stop; k++) {
        int i = random_untried(x);
        if (i < 0 || !time_left(x))
            return KL_OK;
        if ((rc = try_candidate(x, i, &stop)) != KL_OK)
            return rc;
    }
    /* ... then the neighbours of the best not yet expanded, one parameter one step. */
    while (!stop) {
        int c = best_unexpanded(x);
        if (c < 0) {
            /* Every good candidate's neighbourhood is known: sample elsewhere. */
            c = random_untried(x);
            if (c < 0) {
                x->out->exhaustive = 1;
                return KL_OK;
            }
            if (!time_left(x))
                return KL_OK;
            if ((rc = try_candidate(x, c, &stop)) != KL_OK)
                return rc;
            continue;
        }
        x->done[c] = 1;
        unsigned char idx[KL_MAX_PARAMS];
        for (int p = 0; p < s->nparams && !stop; p++)
            for (int step = -1; step <= 1 && !stop; step += 2) {
                memcpy(idx, s->cand + (size_t)c * (size_t)s->nparams, (size_t)s->nparams);
                int v = idx[p] + step;
                if (v < 0 || v >= s->nvalues[p])
                    continue;
                idx[p] = (unsigned char)v;
                int n = find_code(x, code_of(s, idx));
                if (n < 0 || !untried(x, n))
                    continue;
                if (!time_left(x))
                    return KL_OK;
                if ((rc = try_candidate(x, n, &stop)) != KL_OK)
                    return rc;
            }
    }
    return KL_OK;
}

/* The best few (and the defaults) again with the full protocol, as time allows. */
static enum kl_status confirm(struct search *x)
{
    const struct kl_tune_request *q = x->req;
    const struct kl_tune_space *s = x->s;
    int top[8], ntop = 0, want = q->confirm_count < 8 ? q->confirm_count : 8;
    for (int k = 0; k < want; k++) {
        int hit = -1;
        for (int i = 0; i < s->count; i++) {
            int taken = 0;
            for (int j = 0; j < ntop; j++)
                taken |= top[j] == i;
            if (!taken && isfinite(x->score[i]) && (hit < 0 || x->score[i] < x->score[hit]))
                hit = i;
        }
        if (hit >= 0)
            top[ntop++] = hit;
    }
    if (s->default_index >= 0 && x->out->have_default) {
        int seen = 0;
        for (int j = 0; j < ntop; j++)
            seen |= top[j] == s->default_index;
        if (!seen && ntop < 8)
            top[ntop++] = s->default_index;
    }
    double best = INFINITY;
    for (int j = 0; j < ntop; j++) {
        struct kl_result res;
        double score;
        double est = x->score[top[j]] * (q->confirm.warmup + q->confirm.min_repeats + 1) +
                     q->confirm.min_time;
        if (q->budget_s > 0 && kl_now() + est > deadline(x, 1))
            break;
        enum kl_status rc = evaluate(x, top[j], &q->confirm, 1, &res, &score);
        if (rc != KL_OK)
            return rc;
        if (res.status == KL_RESULT_FAILED) {
            /* Verified once, wrong now: not a result at all. */
            x->score[top[j]] = INFINITY;
            if (top[j] == s->default_index)
                x->out->have_default = 0;
            continue;
        }
        if (res.status != KL_RESULT_VERIFIED)
            continue;
        if (top[j] == s->default_index)
            x->out->dflt = res;
        if (score < best) {
            best = score;
            x->best_res = res;
            x->out->state.best = top[j];
            x->out->state.best_median = score;
        }
    }
    if (isfinite(best)) {
        char text[KL_MAX_PARAMS][32];
        const char *items[KL_MAX_PARAMS];
        kl_tune_candidate(s, x->out->state.best, text, items, x->out->best_params,
                          sizeof x->out->best_params);
    } else if (x->out->state.best >= 0 && !isfinite(x->score[x->out->state.best])) {
        /* The search's best failed its second verification: the next verified one. */
        int hit = -1;
        for (int i = 0; i < s->count; i++)
            if (isfinite(x->score[i]) && (hit < 0 || x->score[i] < x->score[hit]))
                hit = i;
        x->out->state.best = hit;
        x->out->state.best_median = hit >= 0 ? x->score[hit] : 0;
        if (hit >= 0) {
            /* Its search result stands: time it once more to have it as a result. */
            struct kl_result res;
            double score;
            enum kl_status rc = evaluate(x, hit, &q->search, 1, &res, &score);
            if (rc != KL_OK)
                return rc;
            if (res.status == KL_RESULT_VERIFIED) {
                x->best_res = res;
                char text[KL_MAX_PARAMS][32];
                const char *items[KL_MAX_PARAMS];
                kl_tune_candidate(s, hit, text, items, x->out->best_params,
                                  sizeof x->out->best_params);
            } else {
                x->out->state.best = -1;
            }
        }
    }
    return KL_OK;
}

enum kl_status kl_tune_search(const struct kl_tune_space *s, const struct kl_tune_request *req,
                              struct kl_tune_outcome *out)
{
    struct search x;
    enum kl_status rc;
    memset(out, 0, sizeof *out);
    memset(&x, 0, sizeof x);
    out->state.best = -1;
    x.s = s, x.req = req, x.out = out;
    kl_rng_seed(&x.rng, req->seed ^ 0x7u);
    x.score = malloc(((size_t)s->count + 1) * sizeof *x.score);
    x.done = calloc((size_t)s->count + 1, 1);
    x.code = malloc(((size_t)s->count + 1) * sizeof *x.code);
    if (!x.score || !x.done || !x.code) {
        free(x.score);
        free(x.done);
        free(x.code);
        return kl_fail(s->target->err, KL_ERR_NO_MEMORY, "out of host memory");
    }
    for (int i = 0; i < s->count; i++) {
        x.score[i] = NAN;
        x.code[i] = code_of(s, s->cand + (size_t)i * (size_t)s->nparams);
    }
    /* Time kept for the confirmation: a few full protocols, at most a tenth of the budget. */
    const struct kl_protocol *a = &req->confirm, *c = &req->search;
    int confirming =
        req->confirm_count > 0 && (a->warmup != c->warmup || a->min_repeats != c->min_repeats ||
                                   a->min_time != c->min_time || a->max_repeats != c->max_repeats);
    if (confirming && req->budget_s > 0) {
        x.reserve = (req->confirm_count + 1) * (req->confirm.min_time + 0.05);
        if (x.reserve > 0.1 * req->budget_s)
            x.reserve = 0.1 * req->budget_s;
    }
    rc = search_space(&x);
    out->have_best = out->state.best_median > 0;
    if (rc == KL_OK && out->have_best && confirming && out->state.best >= 0)
        rc = confirm(&x);
    out->have_best = rc == KL_OK && out->state.best_median > 0 && x.best_res.median_s > 0;
    if (out->have_best)
        out->best = x.best_res;
    if (out->have_default) {
        size_t used = 0;
        for (int p = 0; p < s->nparams && used < sizeof out->default_params; p++)
            used += (size_t)snprintf(out->default_params + used, sizeof out->default_params - used,
                                     "%s%s=%d", p ? "," : "", s->target->params[p].name,
                                     s->target->params[p].def);
    }
    out->state.elapsed_s = kl_now() - req->start;
    free(x.score);
    free(x.done);
    free(x.code);
    return rc;
}
