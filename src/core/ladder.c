#include "core/ladder.h"

#include <stdio.h>
#include <string.h>

#include "core/context.h"
#include "core/progress.h"
#include "core/util.h"

int kl_rung_lookup(const struct kl_rung_table *t, const char *name)
{
    size_t n = strlen(name);
    int hit = -1;
    if (n == 0)
        return -1;
    for (int i = 0; i < t->count; i++) {
        if (strcmp(t->name(i), name) == 0)
            return i;
        if (strncmp(t->name(i), name, n) == 0) {
            if (hit >= 0)
                return -1; /* ambiguous prefix */
            hit = i;
        }
    }
    return hit;
}

enum kl_status kl_rungs_choose(const struct kl_rung_table *t, const char *const *names, int nnames,
                               const char *const *params, int nparams, int *chosen, int *nchosen,
                               struct kl_err *e)
{
    const struct kl_param_def *lists[64];
    int want[64] = {0};
    *nchosen = 0;
    if (t->count > 64)
        return kl_fail(e, KL_ERR_ARG, "too many rungs in the %s table", t->workload);
    for (int j = 0; j < nnames; j++) {
        int i = kl_rung_lookup(t, names[j]);
        if (i < 0) {
            kl_fail(e, KL_ERR_ARG, "unknown or ambiguous %s rung \"%s\"; rungs are:", t->workload,
                    names[j]);
            for (int k = 0; k < t->count; k++)
                kl_err_append(e, " %s", t->name(k));
            return KL_ERR_ARG;
        }
        want[i] = 1;
    }
    for (int i = 0; i < t->count; i++)
        if (nnames == 0 || want[i]) {
            lists[*nchosen] = t->params(i);
            chosen[(*nchosen)++] = i;
        }
    return kl_params_check_known(params, nparams, lists, *nchosen, e);
}

/* Rung i's values (defaults, then the user's); *users: the user set them, wholly or in part. */
static enum kl_status values_of(const struct kl_workload *w, const struct kl_ladder_args *a, int i,
                                int *values, int *users, struct kl_err *e)
{
    unsigned mask;
    enum kl_status st = kl_params_resolve(w->table->name(i), w->table->params(i), a->params,
                                          a->nparams, values, &mask, e);
    *users = mask != 0 || (w->named_is_users && a->nrungs > 0);
    return st;
}

enum kl_status kl_ladder_begin(const struct kl_workload *w, const struct kl_ladder_args *a,
                               int *chosen, int *nchosen, struct kl_err *e)
{
    enum kl_status st = kl_rungs_choose(w->table, a->rungs, a->nrungs, a->params, a->nparams,
                                        chosen, nchosen, e);
    for (int k = 0; k < *nchosen && st == KL_OK; k++) {
        int i = chosen[k], values[KL_MAX_PARAMS], users;
        char why[256];
        if ((st = values_of(w, a, i, values, &users, e)) != KL_OK || !users)
            continue;
        if (w->available && !w->available(w->self, i, why, sizeof why))
            st = kl_fail(e, KL_ERR_UNSUPPORTED, "rung %s: %s", w->table->name(i), why);
        else if (w->check)
            st = w->check(w->self, i, values, e);
    }
    return st;
}

enum kl_status kl_ladder_rungs(const struct kl_workload *w, const struct kl_ladder_args *a,
                               const int *chosen, int nchosen, int first, int total,
                               struct kl_report *rep, struct kl_err *e)
{
    for (int k = 0; k < nchosen; k++) {
        int i = chosen[k], values[KL_MAX_PARAMS], users;
        const char *name = w->table->name(i);
        kl_progress_step(first + k, total, "%s %s: build, time, verify", w->table->workload, name);
        struct kl_result *res = kl_report_add(rep, name, w->table->summary(i));
        if (!res)
            return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory");
        if (w->available && !w->available(w->self, i, res->note, sizeof res->note)) {
            res->status = KL_RESULT_SKIPPED;
            continue;
        }
        enum kl_status st = values_of(w, a, i, values, &users, e);
        if (st == KL_OK)
            st = w->run(w->self, i, values, res);
        if (st == KL_OK)
            continue;
        snprintf(res->note, sizeof res->note, "%.*s", (int)sizeof res->note - 1, e->msg);
        if (st == KL_ERR_UNSUPPORTED && !users)
            res->status = KL_RESULT_SKIPPED; /* its defaults do not fit this device */
        else if (st != KL_ERR_VERIFY)
            return st; /* the row stays failed; the rows so far are kept */
    }
    return KL_OK;
}

void kl_ladder_report(struct kl_report *rep, const struct kl_context *kl, const char *workload,
                      enum kl_type t, unsigned long long seed, const struct kl_protocol *proto)
{
    rep->workload = workload;
    rep->type = t;
    rep->seed = seed;
    rep->protocol = *proto;
    rep->device = kl->info;
    rep->backend = kl->ops->name;
    rep->ladder = 1;
    kl_utc_now(rep->date, sizeof rep->date);
    kl_report_load_ceilings(rep);
}
