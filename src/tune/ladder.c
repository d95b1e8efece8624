#include "tune/ladder.h"

#include <stdio.h>
#include <string.h>

#include "core/user_rung.h"
#include "core/util.h"

static enum kl_status check(void *self, const char *const *items, int n, size_t *wg,
                            struct kl_err *e)
{
    const struct kl_tune_ladder *x = self;
    return kl_ladder_check(x->w, x->a, x->i, items, n, wg, e);
}

/* The engine's run has no abandon: a candidate runs its protocol out, if the deadline allows. */
static enum kl_status run(void *self, const char *const *items, int n,
                          const struct kl_protocol *proto, struct kl_run_limits *lim,
                          struct kl_result *res)
{
    const struct kl_tune_ladder *x = self;
    if (lim && lim->deadline > 0 && kl_now() > lim->deadline) {
        lim->abandoned = 2;
        res->status = KL_RESULT_SKIPPED;
        snprintf(res->note, sizeof res->note, "the budget ran out");
        return KL_OK;
    }
    return kl_ladder_try(x->w, x->a, x->i, items, n, proto, res, &x->w->kl->err);
}

/* A verified result r of the search as a row of rep, its values in the config column. */
static enum kl_status add_row(struct kl_report *rep, const char *name, const char *summary,
                              const char *what, const char *values, const struct kl_result *r,
                              struct kl_err *e)
{
    struct kl_result *row = kl_report_add(rep, name, summary);
    if (!row)
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory");
    *row = *r;
    snprintf(row->rung, sizeof row->rung, "%s", name);
    row->summary = summary;
    size_t n = strlen(what);
    snprintf(row->config, sizeof row->config, "%s", what);
    if (n + 1 < sizeof row->config)
        snprintf(row->config + n, sizeof row->config - n, " %s", values);
    rep->show_config = 1;
    return KL_OK;
}

/* Where the workload chooses rung i's values (softmax's rule), the search starts from them and
   measures the best against them: that is what the rung runs untuned. */
static enum kl_status set_start(struct kl_tune_ladder *t, const struct kl_workload *w,
                                const struct kl_ladder_args *a, int i, struct kl_err *e)
{
    t->start_config[0] = '\0';
    if (!w->values || i >= w->table->count) /* a user's kernel: its own defaults */
        return KL_OK;
    enum kl_status st =
        kl_ladder_values(w, a, i, t->start, t->start_config, sizeof t->start_config, e);
    if (st == KL_OK && t->start_config[0])
        t->target.start = t->start;
    return st;
}

static enum kl_status tune(void *arg, const struct kl_workload *w, const struct kl_ladder_args *a,
                           int i, struct kl_report *rep, struct kl_err *e)
{
    struct kl_tune_ladder *t = arg;
    /* The user's kernel, or a rung of the workload's own table (tune W --rung R). */
    const struct kl_user_rung *u = i >= w->table->count ? &a->users[i - w->table->count] : NULL;
    const char *name = u ? u->name : w->table->name(i),
               *summary = u ? u->summary : w->table->summary(i);
    const struct kl_param_def *params = u ? u->params : w->table->params(i);
    enum kl_status st;
    t->w = w, t->a = a, t->i = i;
    t->target = (struct kl_tune_target){name, params, NULL, t, NULL, check, NULL, run, &w->kl->err};
    if ((st = set_start(t, w, a, i, e)) != KL_OK)
        return st;
    struct kl_result none;
    snprintf(t->rung, sizeof t->rung, "%s", name);
    if ((st = kl_tune_space_build(w->kl, &t->target, &t->space, e)) != KL_OK)
        return st;
    memset(&none, 0, sizeof none);
    none.precision = kl_precision_of_type(w->type);
    t->req.roof = kl_report_roof(rep, &none, &t->req.work);
    t->req.unit = rep->flops > 0 ? "GFLOP/s" : "GB/s";
    t->req.start = kl_now(); /* the budget is the search's, the data made before it */
    st = kl_tune_search(&t->space, &t->req, &t->out);
    t->tuned = 1;
    t->w = NULL, t->a = NULL;
    int same = strcmp(t->out.default_params, t->out.best_params) == 0;
    if (st == KL_OK && t->out.have_default && !(same && t->out.have_best))
        st = add_row(rep, name, summary, "default", t->out.default_params, &t->out.dflt, e);
    if (st == KL_OK && t->out.have_best)
        st = add_row(rep, name, summary, same ? "tuned=default" : "tuned", t->out.best_params,
                     &t->out.best, e);
    return st;
}

void kl_tune_ladder_free(struct kl_tune_ladder *t)
{
    kl_tune_space_free(&t->space);
}

void kl_tune_ladder_init(struct kl_tune_ladder *t)
{
    memset(t, 0, sizeof *t);
    t->tuner.tune = tune;
    t->tuner.arg = t;
}
