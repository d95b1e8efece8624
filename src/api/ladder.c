/*
 * kl_ladder_run: the public face of every workload's ladder. The request
 * becomes the workload's own (src/workloads/), the user's kernels are read
 * (core/user_rung.c), the ladder fills a report, and the report's rows are
 * handed out as struct kl_row, which point into it.
 */
#include "api/ladder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "core/report.h"
#include "report/write.h"
#include "core/user_rung.h"
#include "core/util.h"
#include "workloads/registry.h"

#define MAX_KERNELS 8

struct kl_ladder {
    struct kl_report rep;
    struct kl_row *rows;
    struct kl_user_rung users[MAX_KERNELS]; /* the rows' summaries point into them */
    int nusers;
};

long kl_default_size(const char *workload, int i, int is_gpu)
{
    const struct kl_workload_def *w = kl_workload_find(workload);
    if (!w || i < 0 || i >= w->dims)
        return 0;
    return is_gpu ? w->gpu[i] : w->cpu[i];
}

/* Size i of the request, else the default; refused where it does not fit an int. */
static enum kl_status size_of(struct kl_context *kl, const struct kl_ladder_request *req, int i,
                              int *out)
{
    long v = req->size[i] ? req->size[i] : kl_default_size(req->workload, i, kl->info.is_gpu);
    if (v < 1 || v > 2147483647L)
        return kl_fail(&kl->err, KL_ERR_ARG, "%s: size %d is %ld; sizes are 1 to 2^31 - 1",
                       req->workload, i + 1, v);
    *out = (int)v;
    return KL_OK;
}

static int has_peers(const struct kl_workload_def *w)
{
    return w->peers;
}

/* The request as its workload's registry entry (def) takes it, run into rep. */
static enum kl_status dispatch(struct kl_context *kl, const struct kl_workload_def *def,
                               const struct kl_ladder_request *req,
                               const struct kl_user_rung *users, int nusers, struct kl_report *rep)
{
    struct kl_workload_call c = {
        .req = req, .seed = req->seed ? req->seed : 1, .users = users, .nusers = nusers};
    enum kl_status st;
    if (req->protocol)
        c.protocol = *req->protocol;
    else
        kl_protocol_default(&c.protocol);
    for (int i = 0; i < def->dims; i++)
        if ((st = size_of(kl, req, i, &c.size[i])) != KL_OK)
            return st;
    if (req->noptions < 0 || (req->noptions > 0 && !req->options))
        return kl_fail(&kl->err, KL_ERR_ARG, "noptions is %d with %s options list", req->noptions,
                       req->options ? "an" : "no");
    if ((st = kl_workload_options_resolve(def, req->options, req->noptions, c.option, &kl->err)) !=
        KL_OK)
        return st;
    if (req->npeers && !def->peers) {
        char names[128];
        kl_workload_names(has_peers, " and ", names, sizeof names);
        return kl_fail(&kl->err, KL_ERR_ARG, "%s has no peers (%s have)", def->name, names);
    }
    return def->run(kl, &c, rep);
}

/* The report's rows as the API's. */
static enum kl_status rows_of(struct kl_ladder *l, struct kl_err *e)
{
    l->rows = calloc((size_t)l->rep.count + 1, sizeof *l->rows);
    if (!l->rows)
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory");
    for (int i = 0; i < l->rep.count; i++) {
        const struct kl_result *x = &l->rep.results[i];
        l->rows[i] = (struct kl_row){
            .rung = x->rung,
            .summary = x->summary ? x->summary : "",
            .status = (enum kl_row_status)x->status,
            .note = x->note,
            .config = x->config,
            .options = x->options,
            .precision = kl_precision_name(x->precision),
            .peer = x->peer,
            .on_host = x->on_host,
            .repeats = x->repeats,
            .build_s = x->build_s,
            .median_s = x->median_s,
            .min_s = x->min_s,
            .max_s = x->max_s,
            .gflops = x->gflops,
            .gbps = x->gbps,
            .pct_roof = x->pct_ceiling,
            .speedup_first = x->speedup_first,
            .error = x->error,
        };
    }
    return KL_OK;
}

/* The request's kernel files read into l's user rungs, in order. */
static enum kl_status load_users(struct kl_ladder *l, const struct kl_ladder_request *req,
                                 struct kl_err *e)
{
    enum kl_status st = KL_OK;
    while (l->nusers < req->nkernels && st == KL_OK)
        if ((st = kl_user_rung_load(req->kernels[l->nusers], &l->users[l->nusers], e)) == KL_OK)
            l->nusers++;
    return st;
}

enum kl_status kl_ladder_run(struct kl_context *kl, const struct kl_ladder_request *req,
                             struct kl_ladder **out)
{
    const struct kl_workload_def *w = kl_workload_find(req->workload);
    struct kl_err *e = &kl->err;
    enum kl_status st = KL_OK;
    *out = NULL;
    if (!w || !w->ladder || !w->run) {
        char names[128];
        kl_workload_ladder_names(names, sizeof names);
        return kl_fail(e, KL_ERR_ARG, "unknown workload \"%s\" (%s)",
                       req->workload ? req->workload : "(null)", names);
    }
    if (req->nkernels < 0 || req->nkernels > MAX_KERNELS)
        return kl_fail(e, KL_ERR_ARG, "%d kernels: 0 to %d", req->nkernels, MAX_KERNELS);
    struct kl_ladder *l = calloc(1, sizeof *l);
    if (!l)
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory");
    st = load_users(l, req, e);
    if (st == KL_OK)
        st = dispatch(kl, w, req, l->users, l->nusers, &l->rep);
    enum kl_status run = st;
    if (st == KL_OK || st == KL_ERR_INTERRUPTED)
        st = rows_of(l, e);
    if (st != KL_OK) {
        kl_ladder_free(l);
        return st;
    }
    *out = l;
    if (run == KL_ERR_INTERRUPTED) /* the rows measured before the stop are *out's */
        return kl_fail(e, run, "interrupted: %d rows before the stop", l->rep.count);
    return KL_OK;
}

int kl_ladder_count(const struct kl_ladder *l)
{
    return l ? l->rep.count : 0;
}

const struct kl_row *kl_ladder_row(const struct kl_ladder *l, int i)
{
    return l && i >= 0 && i < l->rep.count ? &l->rows[i] : NULL;
}

const char *kl_ladder_sizes(const struct kl_ladder *l)
{
    return l ? l->rep.sizes : "";
}

enum kl_status kl_ladder_write_json(const struct kl_ladder *l, const char *path)
{
    struct kl_out_file f; /* written whole, then renamed into place */
    if (kl_out_open(&f, path) != 0)
        return KL_ERR_IO;
    kl_report_json(&l->rep, f.f);
    if (fflush(f.f) != 0 || ferror(f.f)) {
        kl_out_abort(&f);
        return KL_ERR_IO;
    }
    return kl_out_commit(&f) == 0 ? KL_OK : KL_ERR_IO;
}

void kl_ladder_free(struct kl_ladder *l)
{
    if (!l)
        return;
    kl_report_free(&l->rep);
    for (int j = 0; j < l->nusers; j++)
        kl_user_rung_free(&l->users[j]);
    free(l->rows);
    free(l);
}
