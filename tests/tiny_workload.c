/*
 * A tiny workload, "scale" (y = 3·x of 32-bit integers), in one file and
 * one registry entry (kl_workload_register): what adding a workload takes.
 * Its two rungs run on the null device (null_backend.h), whose pretend
 * kernel "scale" the test provides; the file named is only a source for the
 * null device to ignore.
 *
 * A built-in workload is a folder, src/workloads/NAME/, whose files each use
 * only those before it, with NAME.h as its face (here tiny_workload.h). This
 * file holds the same parts in the same order, a section each, named for the
 * file that would hold it:
 *   rungs.c      the rung table
 *   session.c    the problem's data, on the host and on the device
 *   reference.c  the reference and the verdict on a result
 *   run.c        one rung: built, launched once and judged, then timed
 *   ladder.c     the ladder's entry, which the registry names
 * (a workload with vendor libraries adds peers.c before ladder.c).
 */
#include "tiny_workload.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/launch.h"
#include "core/measure.h"
#include "core/report.h"

/* ---- rungs.c: the rung table --------------------------------------------- */

struct tiny_rung {
    const char *name, *summary, *file;
    int vec;
    struct kl_param_def params[KL_MAX_PARAMS + 1];
};

static const struct tiny_rung rungs[] = {
    {"scalar",
     "one element per work-item",
     "opencl/copy/ilp.cl",
     1,
     {{"BS", 64, 1, 256, 1, 0, "work-group size"}}},
    {"vec4",
     "four elements per work-item",
     "opencl/copy/vec4.cl",
     4,
     {{"BS", 64, 1, 256, 1, 0, "work-group size"}}},
};

KL_RUNG_TABLE_FILES(scale, struct tiny_rung, rungs, NULL);

/* ---- session.c: the data ------------------------------------------------- */

struct tiny {
    struct kl_context *kl;
    int n, factor; /* its size, and its option: y = factor·x */
    int32_t *x, *y;
    struct kl_buf *dx, *dy;
};

static enum kl_status tiny_data(struct tiny *t)
{
    struct kl_context *kl = t->kl;
    enum kl_status st;
    t->x = malloc(4 * (size_t)t->n);
    t->y = malloc(4 * (size_t)t->n);
    if (!t->x || !t->y)
        return kl_fail(&kl->err, KL_ERR_NO_MEMORY, "out of host memory");
    for (int k = 0; k < t->n; k++)
        t->x[k] = k % 1000 - 500;
    if ((st = kl->ops->alloc(kl->dev, 4 * (size_t)t->n, &t->dx, &kl->err)) ||
        (st = kl->ops->alloc(kl->dev, 4 * (size_t)t->n, &t->dy, &kl->err)))
        return st;
    return kl->ops->write(kl->dev, t->dx, t->x, 4 * (size_t)t->n, &kl->err);
}

/* ---- reference.c: the reference and the verdict -------------------------- */

/* 1 where y = factor·x exactly; else 0, the row failed with the first wrong element. */
static int tiny_judge(const struct tiny *t, struct kl_result *res)
{
    for (int k = 0; k < t->n; k++)
        if (t->y[k] != t->factor * t->x[k]) {
            res->status = KL_RESULT_FAILED;
            snprintf(res->note, sizeof res->note, "y[%d] = %d, want %d", k, t->y[k],
                     t->factor * t->x[k]);
            return 0;
        }
    return 1;
}

/* ---- run.c: one rung ----------------------------------------------------- */

/* The interface's arguments, for every rung and the user's: x, y, n, factor. */
static void tiny_args(void *self, const struct kl_user_rung *u, struct kl_launch *l)
{
    struct tiny *t = self;
    (void)u;
    l->nargs = 4;
    l->args[0] = (struct kl_arg){KL_ARG_BUF, {.buf = t->dx}};
    l->args[1] = (struct kl_arg){KL_ARG_BUF, {.buf = t->dy}};
    l->args[2] = (struct kl_arg){KL_ARG_INT, {.i = t->n}};
    l->args[3] = (struct kl_arg){KL_ARG_INT, {.i = t->factor}};
}

/* A launch (built, shaped, its arguments set) run once and judged, then timed. */
static enum kl_status tiny_launch(void *self, struct kl_launch *l, const struct kl_protocol *proto,
                                  struct kl_result *res)
{
    struct tiny *t = self;
    struct kl_context *kl = t->kl;
    struct kl_stats stats;
    double once;
    enum kl_status st;
    res->bytes = 8.0 * t->n;
    if ((st = kl_launch_timed(l, &once, &kl->err)) ||
        (st = kl->ops->read(kl->dev, t->dy, t->y, 4 * (size_t)t->n, &kl->err)))
        return st;
    if (!tiny_judge(t, res))
        return KL_OK;
    if ((st = kl_measure(kl, proto, kl_launch_timed, l, &stats, &kl->err)))
        return st;
    res->status = KL_RESULT_VERIFIED;
    snprintf(res->note, sizeof res->note, "%d elements equal %d·x exactly", t->n, t->factor);
    kl_result_set_stats(res, &stats);
    return KL_OK;
}

static enum kl_status tiny_run(void *self, int i, const int *values,
                               const struct kl_protocol *proto, struct kl_result *res)
{
    struct tiny *t = self;
    struct kl_launch l = {.kl = t->kl, .dims = 1};
    enum kl_status st;
    kl_params_options(rungs[i].params, values, KL_INT, res->options, sizeof res->options);
    if ((st = kl_kernel_get(t->kl, rungs[i].file, "scale", res->options, &l.kernel, &res->build_s)))
        return st;
    l.local[0] = (size_t)values[0];
    l.global[0] = kl_round_up((size_t)(t->n / rungs[i].vec), l.local[0]);
    tiny_args(t, NULL, &l);
    return tiny_launch(t, &l, proto, res);
}

static long long tiny_size(void *self, int i)
{
    (void)i;
    return ((struct tiny *)self)->n;
}

/* Users' kernels join the ladder through this interface (the registry's template is one). */
static const struct kl_user_iface user_iface = {
    .signature = "scale(global const int *x, global int *y, int n, int factor)",
    .nsizes = 1,
    .size_names = {"N"},
    .size = tiny_size,
    .args = tiny_args,
    .run = tiny_launch,
};

/* ---- ladder.c: the entry ------------------------------------------------- */

static enum kl_status tiny_entry(struct kl_context *kl, const struct kl_workload_call *c,
                                 struct kl_report *rep)
{
    struct tiny t = {.kl = kl,
                     .n = c->size[0],
                     .factor = atoi(kl_workload_option(&kl_tiny_workload, c, "factor"))};
    struct kl_workload w = {.table = &table,
                            .kl = kl,
                            .type = KL_INT,
                            .self = &t,
                            .run = tiny_run,
                            .user = &user_iface};
    struct kl_ladder_args a = {c->req->rungs, c->req->nrungs, c->req->params, c->req->nparams,
                               c->users,      c->nusers,      &c->protocol,   c->tuner};
    int chosen[KL_MAX_RUNGS], nchosen;
    enum kl_status st = kl_ladder_begin(&w, &a, chosen, &nchosen, &kl->err);
    if (st != KL_OK)
        return st;
    kl_ladder_report(rep, kl, "scale", KL_INT, c->seed, &c->protocol);
    snprintf(rep->sizes, sizeof rep->sizes, "N=%d", t.n);
    snprintf(rep->size_json, sizeof rep->size_json, "\"N\": %d", t.n);
    snprintf(rep->reference, sizeof rep->reference, "%d·x, exactly", t.factor);
    rep->bytes = 8.0 * t.n;
    if ((st = tiny_data(&t)) == KL_OK)
        st = kl_ladder_rungs(&w, &a, chosen, nchosen, 0, nchosen, rep, &kl->err);
    kl_report_finish(rep);
    kl->ops->release(t.dx);
    kl->ops->release(t.dy);
    free(t.x);
    free(t.y);
    return st;
}

const struct kl_workload_def kl_tiny_workload = {
    .name = "scale",
    .heading = "Scale ladder (y = 3·x), in order:",
    .rungs = kl_scale_rungs,
    .width = 8,
    .dims = 1,
    .gpu = {4096},
    .cpu = {1024},
    .ladder = 1,
    .summary = "y = 3·x of N integers: the registry's test workload",
    .run = tiny_entry,
    /* its own option (the registry's example of one): the factor */
    .options = {{"factor", NULL, 1, 1000, "3", "y = factor·x"}},
    /* `kladder template scale`: a kernel of its interface, which runs on a real device */
    .template_text = "/*\n"
                     " * A scale kernel of your own: y[i] = factor * x[i] for i < N.\n"
                     " *\n"
                     " * kladder: workload scale\n"
                     " * kladder: global round_up(N, WG)\n"
                     " * kladder: local WG\n"
                     " * kladder: param WG 64 1..256 -- work-group size\n"
                     " */\n"
                     "__kernel void scale(const __global int *x, __global int *y, const int n,\n"
                     "                    const int factor)\n"
                     "{\n"
                     "    const int i = get_global_id(0);\n"
                     "    if (i < n)\n"
                     "        y[i] = factor * x[i];\n"
                     "}\n",
};
