/*
 * The multi-GPU GEMM's schedules (multi/summa.h): blocks, scatter, one run,
 * gather. Every device's multiply is a GEMM rung launched on buffers this
 * file owns (kl_gemm_launch_on) or cublasSgemm; NCCL moves the matrices.
 *
 * Where things live. SUMMA (multi/dist.h): device (i, j) keeps C's block
 * (m×n), A's block (m rows, its K panels) and B's block (its K panels' rows,
 * n columns). A's block is stored panel by panel, each panel m×w row-major,
 * and B's block row-major, so every panel an owner broadcasts is one
 * contiguous piece: no packing in the timed run. Receivers take panels into
 * panel buffers (two of each to overlap). The rows schedule keeps A's rows on
 * each device, B whole on each (device 0's is the source), C whole on device
 * 0 and each other device's rows apart until they are gathered.
 *
 * Accumulation. The rungs compute C = A·B; panel 0 is multiplied straight
 * into C, each later panel into a scratch block T that the add kernel
 * (kernels/cuda/multi/add.cu) adds to C: 12 bytes of extra traffic per
 * element of C per panel after the first, beside the multiply's.
 */
#include "multi/summa.h"

#ifdef KLADDER_HAVE_CUDA

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/launch.h"
#include "core/params.h"
#include "core/stop.h"
#include "core/util.h"
#include "core/verify.h"
#include "peers/cublas.h"
#include "workloads/gemm/gemm.h"

/* One device's multiply of one panel (the rows schedule and row 0: one panel, all of K). */
struct step {
    struct kl_buf *a, *b, *out; /* m×w, w×n, m×n */
    int m, n, w;
    struct kl_launch gemm; /* unless cuBLAS multiplies */
};

/* What one device holds and does in a run. */
struct slot {
    struct kl_summa_block blk;
    int rows, row0; /* the rows schedule: this device's rows of A and C */
    struct kl_buf *A, *B, *C, *T;
    struct kl_buf *Ap[2], *Bp[2]; /* panels received from their owners */
    struct kl_buf **views;        /* pieces of the buffers above that launches name */
    int nviews;
    struct step *steps; /* one per panel */
    struct kl_launch add;
    void *cublas;
};

struct kl_mrun {
    const struct kl_menv *env;
    enum kl_sched sched;
    const char *local; /* NULL: cuBLAS */
    struct kl_summa plan;
    int G, nbuf;
    struct slot *slot;
    char config[128], options[512];
    double build_s;
};

#define F32 sizeof(float)

double kl_mrun_recv_bytes(const struct kl_mrun *r)
{
    double most = 0;
    if (r->sched == KL_SCHED_ONE || r->G < 2)
        return 0;
    for (int d = 0; d < r->G; d++) {
        const struct slot *s = &r->slot[d];
        double got = 0, N = r->env->N;
        if (r->sched == KL_SCHED_ROWS) {
            /* B from device 0; device 0 the other devices' rows of C. */
            got = d == 0 ? ((double)r->env->M - s->rows) * N : (double)r->env->K * N;
        } else {
            for (int p = 0; p < r->plan.panels; p++) {
                struct kl_summa_panel P;
                kl_summa_panel(&r->plan, p, &P);
                got += (s->blk.j != P.a_col) * (double)s->blk.m * P.width +
                       (s->blk.i != P.b_row) * (double)P.width * s->blk.n;
            }
        }
        most = got * F32 > most ? got * F32 : most;
    }
    return most;
}

const char *kl_mrun_config(const struct kl_mrun *r)
{
    return r->config;
}

const char *kl_mrun_options(const struct kl_mrun *r)
{
    return r->options;
}

double kl_mrun_build_s(const struct kl_mrun *r)
{
    return r->build_s;
}

static struct kl_context *ctx(const struct kl_mrun *r, int d)
{
    return r->env->dev[d].kl;
}

/* 1 when device d is this process's (every device in one process; with ranks, its own). */
static int here(const struct kl_mrun *r, int d)
{
    return kl_menv_here(r->env, d);
}

/* A device buffer of elems floats on device d. */
static enum kl_status alloc_f32(struct kl_mrun *r, int d, size_t elems, struct kl_buf **out,
                                struct kl_err *e)
{
    struct kl_context *kl = ctx(r, d);
    return kl->ops->alloc(kl->dev, elems * F32, out, e);
}

/* A view of elems floats of buf from element first, kept until the run closes. */
static enum kl_status view(struct kl_mrun *r, int d, struct kl_buf *buf, size_t first, size_t elems,
                           struct kl_buf **out, struct kl_err *e)
{
    struct slot *s = &r->slot[d];
    struct kl_buf **more = realloc(s->views, (size_t)(s->nviews + 1) * sizeof *more);
    if (!more)
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory");
    s->views = more;
    enum kl_status st = r->env->ops->buf_view(buf, first * F32, elems * F32, out, e);
    if (st == KL_OK)
        s->views[s->nviews++] = *out;
    return st;
}

/* Device d's buffers: their sizes in floats, checked against its free memory, then made. */
static enum kl_status alloc_slot(struct kl_mrun *r, int d, struct kl_err *e)
{
    const struct kl_menv *env = r->env;
    struct slot *s = &r->slot[d];
    size_t M = (size_t)env->M, N = (size_t)env->N, K = (size_t)env->K, kb = (size_t)r->plan.kb;
    size_t m = (size_t)s->blk.m, n = (size_t)s->blk.n, a, b, c, t = 0, ap = 0, bp = 0;
    enum kl_status st;
    if (r->sched == KL_SCHED_ROWS) {
        a = (size_t)s->rows * K, b = K * N, c = (d == 0 ? M : (size_t)s->rows) * N;
    } else {
        a = m * (size_t)s->blk.ka, b = (size_t)s->blk.kbr * n, c = m * n;
        t = r->plan.panels > 1 ? m * n : 0;
        ap = r->plan.pc > 1 ? m * kb : 0;
        bp = r->plan.pr > 1 ? kb * n : 0;
    }
    double bytes = (double)(a + b + c + t + (size_t)r->nbuf * (ap + bp)) * F32;
    char what[96];
    snprintf(what, sizeof what, "device %d's blocks of A, B and C, scratch and panels", d);
    if ((st = kl_device_fits(ctx(r, d), bytes, what, e)) != KL_OK ||
        (st = alloc_f32(r, d, a, &s->A, e)) != KL_OK ||
        (st = alloc_f32(r, d, b, &s->B, e)) != KL_OK ||
        (st = alloc_f32(r, d, c, &s->C, e)) != KL_OK ||
        (t && (st = alloc_f32(r, d, t, &s->T, e)) != KL_OK))
        return st;
    for (int x = 0; x < r->nbuf; x++)
        if ((ap && (st = alloc_f32(r, d, ap, &s->Ap[x], e)) != KL_OK) ||
            (bp && (st = alloc_f32(r, d, bp, &s->Bp[x], e)) != KL_OK))
            return st;
    return KL_OK;
}

/*
 * The scatter (setup, not timed): device d's blocks from the host inputs,
 * A's block panel by panel and B's block row-major (see the top of the file).
 */
static enum kl_status scatter(struct kl_mrun *r, int d, struct kl_err *e)
{
    const struct kl_menv *env = r->env;
    struct kl_context *kl = ctx(r, d);
    struct slot *s = &r->slot[d];
    const struct kl_summa_block *x = &s->blk;
    size_t K = (size_t)env->K, N = (size_t)env->N, m = (size_t)x->m, n = (size_t)x->n;
    enum kl_status st;
    if (r->sched == KL_SCHED_ROWS) {
        if ((st = kl->ops->write(kl->dev, s->A, env->A + (size_t)s->row0 * K,
                                 (size_t)s->rows * K * F32, e)) != KL_OK)
            return st;
        return kl->ops->write(kl->dev, s->B, env->B, K * N * F32, e);
    }
    size_t na = m * (size_t)x->ka, nb = (size_t)x->kbr * n, done = 0;
    float *stage = malloc((na > nb ? na : nb) * F32 + 1);
    if (!stage)
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory staging device %d's blocks", d);
    for (int k0 = x->ka0; k0 < x->ka0 + x->ka; k0 += r->plan.kb) {
        size_t w = (size_t)(x->ka0 + x->ka - k0 < r->plan.kb ? x->ka0 + x->ka - k0 : r->plan.kb);
        for (size_t i = 0; i < m; i++)
            memcpy(stage + done + i * w, env->A + ((size_t)x->m0 + i) * K + (size_t)k0, w * F32);
        done += m * w;
    }
    st = kl->ops->write(kl->dev, s->A, stage, na * F32, e);
    for (size_t k = 0; st == KL_OK && k < (size_t)x->kbr; k++)
        memcpy(stage + k * n, env->B + ((size_t)x->kbr0 + k) * N + (size_t)x->n0, n * F32);
    if (st == KL_OK)
        st = kl->ops->write(kl->dev, s->B, stage, nb * F32, e);
    free(stage);
    return st;
}

/* Device d's multiply of panel p: its operands (its own pieces or the panels received). */
static enum kl_status describe_step(struct kl_mrun *r, int d, int p, struct kl_err *e)
{
    struct slot *s = &r->slot[d];
    struct step *x = &s->steps[p];
    enum kl_status st;
    if (r->sched == KL_SCHED_ROWS) {
        x->m = s->rows, x->n = r->env->N, x->w = r->env->K, x->a = s->A, x->b = s->B;
        x->out = s->C; /* device 0 writes its rows, the first, straight into the whole C */
        return KL_OK;
    }
    struct kl_summa_panel P;
    kl_summa_panel(&r->plan, p, &P);
    x->m = s->blk.m, x->n = s->blk.n, x->w = P.width;
    x->out = p == 0 ? s->C : s->T;
    size_t m = (size_t)x->m, n = (size_t)x->n, w = (size_t)x->w;
    if (s->blk.j == P.a_col)
        st = view(r, d, s->A, m * (size_t)P.a_local, m * w, &x->a, e);
    else
        x->a = s->Ap[p % r->nbuf], st = KL_OK;
    if (st != KL_OK)
        return st;
    if (s->blk.i == P.b_row)
        return view(r, d, s->B, (size_t)P.b_local * n, w * n, &x->b, e);
    x->b = s->Bp[p % r->nbuf];
    return KL_OK;
}

/* An error the library left on device d's context, into e with the device named. */
static enum kl_status device_error(struct kl_err *e, enum kl_status st, int d,
                                   const struct kl_context *kl)
{
    if (e == &kl->err)
        return st;
    return kl_fail(e, st, "device %d: %s", d, kl->err.msg);
}

/* The launch of a step's multiply by the local rung; the first one names the row's options. */
static enum kl_status describe_gemm(struct kl_mrun *r, int d, struct step *x, struct kl_err *e)
{
    struct kl_timing t;
    char config[128];
    struct kl_context *kl = ctx(r, d);
    enum kl_status st = kl_gemm_launch_on(kl, r->local, KL_FLOAT, x->m, x->n, x->w, x->a, x->b,
                                          x->out, &x->gemm, &t, config, sizeof config);
    if (st != KL_OK)
        return device_error(e, st, d, kl);
    if (!r->options[0])
        snprintf(r->options, sizeof r->options, "%.380s%s%.120s", t.options, config[0] ? "; " : "",
                 config);
    r->build_s += t.build_s;
    return KL_OK;
}

/* The add kernel's launch over device d's C and T (panels after the first). */
static enum kl_status describe_add(struct kl_mrun *r, int d, struct kl_err *e)
{
    static const struct kl_param_def none[1] = {{0}};
    struct kl_context *kl = ctx(r, d);
    struct slot *s = &r->slot[d];
    struct kl_launch *l = &s->add;
    size_t n = (size_t)s->blk.m * (size_t)s->blk.n, units = kl->info.compute_units;
    size_t groups = (n / 4 + 255) / 256, most = 8 * (units ? units : 1);
    char options[64];
    double build_s = 0;
    enum kl_status st;
    kl_params_options(none, NULL, KL_FLOAT, options, sizeof options);
    *l = (struct kl_launch){.kl = kl, .nargs = 3, .dims = 1, .local = {256, 1, 1}};
    l->global[0] = 256 * (groups < 1 ? 1 : groups > most ? most : groups);
    l->global[1] = l->global[2] = 1;
    if ((st = kl_kernel_get(kl, "cuda/multi/add.cu", "add", options, &l->kernel, &build_s)) !=
        KL_OK)
        return device_error(e, st, d, kl);
    if ((st = kl_launch_check(l, "add", e)) != KL_OK)
        return st;
    r->build_s += build_s;
    l->args[0] = (struct kl_arg){KL_ARG_BUF, {.buf = s->C}};
    l->args[1] = (struct kl_arg){KL_ARG_BUF, {.buf = s->T}};
    l->args[2] = (struct kl_arg){KL_ARG_INT, {.i = (int)n}};
    return KL_OK;
}

/* Device d: blocks, scatter, launches (and a cuBLAS handle on its compute stream). */
static enum kl_status open_slot(struct kl_mrun *r, int d, struct kl_err *e)
{
    struct slot *s = &r->slot[d];
    struct kl_context *kl = ctx(r, d);
    int steps = r->sched == KL_SCHED_ROWS ? 1 : r->plan.panels;
    enum kl_status st;
    if (!(s->steps = calloc((size_t)steps, sizeof *s->steps)))
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory");
    if ((st = r->env->ops->make_current(kl->dev, e)) != KL_OK ||
        (st = alloc_slot(r, d, e)) != KL_OK || (st = scatter(r, d, e)) != KL_OK)
        return st;
    if (!r->local &&
        (st = kl_cublas_handle_open(kl->device, r->env->dev[d].comp, &s->cublas, e)) != KL_OK)
        return st;
    for (int p = 0; p < steps; p++)
        if ((st = describe_step(r, d, p, e)) != KL_OK ||
            (r->local && (st = describe_gemm(r, d, &s->steps[p], e)) != KL_OK))
            return st;
    return steps > 1 ? describe_add(r, d, e) : KL_OK;
}

/* KL_SCHED_ROWS: each device's share of C's rows. */
static enum kl_status split_rows(struct kl_mrun *r, struct kl_err *e)
{
    int counts[KL_MAX_DEVICES], offsets[KL_MAX_DEVICES];
    enum kl_status st = kl_dist_rows(r->env->M, r->G, counts, offsets, e);
    if (st != KL_OK)
        return st;
    for (int d = 0; d < r->G; d++)
        r->slot[d].rows = counts[d], r->slot[d].row0 = offsets[d];
    snprintf(r->config, sizeof r->config, "rows over %d", r->G);
    return KL_OK;
}

/* The SUMMA schedules: the process grid, each device's block, panels of depth kb (one panel
 * of all K on one device). */
static enum kl_status split_blocks(struct kl_mrun *r, int kb, struct kl_err *e)
{
    const struct kl_menv *env = r->env;
    int one = r->sched == KL_SCHED_ONE;
    enum kl_status st = kl_summa_plan(env->M, env->N, env->K, r->G, one ? env->K : kb, &r->plan, e);
    if (st != KL_OK)
        return st;
    for (int d = 0; d < r->G; d++)
        kl_summa_block(&r->plan, d, &r->slot[d].blk);
    if (one)
        snprintf(r->config, sizeof r->config, "one device");
    else
        snprintf(r->config, sizeof r->config, "grid %d×%d kb %d", r->plan.pr, r->plan.pc,
                 r->plan.kb);
    return KL_OK;
}

enum kl_status kl_mrun_open(const struct kl_menv *env, enum kl_sched sched, int kb,
                            const char *local, struct kl_mrun **out, struct kl_err *e)
{
    struct kl_mrun *r = calloc(1, sizeof *r);
    enum kl_status st;
    *out = NULL;
    if (!r)
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory");
    r->env = env, r->sched = sched, r->local = local;
    r->G = sched == KL_SCHED_ONE ? 1 : env->G;
    r->nbuf = sched == KL_SCHED_OVERLAP ? 2 : 1;
    if (!(r->slot = calloc((size_t)r->G, sizeof *r->slot))) {
        free(r);
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory");
    }
    st = sched == KL_SCHED_ROWS ? split_rows(r, e) : split_blocks(r, kb, e);
    for (int d = 0; d < r->G && st == KL_OK; d++)
        if (here(r, d))
            st = open_slot(r, d, e);
    /* with ranks, a device that cannot take it is every rank's: nothing is half set up */
    if (r->G > 1)
        st = kl_ranks_agreed(env->ranks, st, KL_ERR_UNSUPPORTED, e);
    if (st != KL_OK)
        goto fail;
    if (!local)
        snprintf(r->options, sizeof r->options, "cublasSgemm (default math, no TF32)");
    *out = r;
    return KL_OK;
fail:
    kl_mrun_close(r);
    return st;
}

void kl_mrun_close(struct kl_mrun *r)
{
    if (!r)
        return;
    for (int d = 0; d < r->G; d++) {
        struct slot *s = &r->slot[d];
        if (!here(r, d))
            continue;
        const struct kl_backend_ops *ops = ctx(r, d)->ops;
        for (int v = 0; v < s->nviews; v++)
            ops->release(s->views[v]);
        ops->release(s->A);
        ops->release(s->B);
        ops->release(s->C);
        ops->release(s->T);
        for (int x = 0; x < 2; x++) {
            ops->release(s->Ap[x]);
            ops->release(s->Bp[x]);
        }
        kl_cublas_handle_close(s->cublas);
        free(s->views);
        free(s->steps);
    }
    free(r->slot);
    free(r);
}

/* ---- one run ------------------------------------------------------------------ */

#define NCCL_TRY(call, what)                                                                       \
    do {                                                                                           \
        if ((st = kl_nccl_check(n, (call), what, e)) != KL_OK)                                     \
            return st;                                                                             \
    } while (0)

/* Queues device d's multiply of panel p on its compute stream. */
static enum kl_status multiply(struct kl_mrun *r, int d, int p, struct kl_err *e)
{
    struct kl_mdev *dev = &r->env->dev[d];
    struct step *x = &r->slot[d].steps[p];
    const struct kl_launch *l = &x->gemm;
    enum kl_status st;
    if (r->local)
        return r->env->ops->launch_async(dev->kl->dev, dev->comp, l->kernel, l->args, l->nargs,
                                         l->dims, l->global, l->local, e);
    if ((st = r->env->ops->make_current(dev->kl->dev, e)) != KL_OK)
        return st;
    return kl_cublas_sgemm_on(r->slot[d].cublas, x->m, x->n, x->w, r->env->ops->device_ptr(x->a),
                              r->env->ops->device_ptr(x->b), r->env->ops->device_ptr(x->out), e);
}

/* Queues C += T on device d (panels after the first). */
static enum kl_status accumulate(struct kl_mrun *r, int d, struct kl_err *e)
{
    struct kl_mdev *dev = &r->env->dev[d];
    const struct kl_launch *l = &r->slot[d].add;
    return r->env->ops->launch_async(dev->kl->dev, dev->comp, l->kernel, l->args, l->nargs, l->dims,
                                     l->global, l->local, e);
}

/*
 * Panel p's operand (A's, or B's where b) from device `from` to device `to`, one
 * ncclSend/ncclRecv pair inside a group: the send where `from` is here, the receive where
 * `to` is (both in one process; with ranks, each rank its half). count is floats.
 */
static enum kl_status pass(struct kl_mrun *r, int p, int b, int from, int to, size_t count,
                           int comm_stream, struct kl_err *e)
{
    const struct kl_nccl *n = r->env->nccl;
    struct kl_mdev *x = &r->env->dev[from], *y = &r->env->dev[to];
    enum kl_status st;
    if (here(r, from)) {
        const struct step *s = &r->slot[from].steps[p];
        NCCL_TRY(n->send((const void *)(uintptr_t)r->env->ops->device_ptr(b ? s->b : s->a), count,
                         KL_NCCL_FLOAT32, to, r->env->comms[from], comm_stream ? x->comm : x->comp),
                 "ncclSend");
    }
    if (here(r, to)) {
        const struct step *s = &r->slot[to].steps[p];
        NCCL_TRY(n->recv((void *)(uintptr_t)r->env->ops->device_ptr(b ? s->b : s->a), count,
                         KL_NCCL_FLOAT32, from, r->env->comms[to], comm_stream ? y->comm : y->comp),
                 "ncclRecv");
    }
    return KL_OK;
}

/*
 * Panel p's broadcasts, one NCCL group: in every grid row the owner column
 * sends A's panel to the row's other devices, in every grid column the owner
 * row sends B's panel down the column. A broadcast to part of the
 * communicator is a set of send/receive pairs; each device receives into the
 * operand its step names (its panel buffer).
 */
static enum kl_status broadcast_panel(struct kl_mrun *r, int p, int comm_stream, struct kl_err *e)
{
    const struct kl_nccl *n = r->env->nccl;
    const struct kl_summa *s = &r->plan;
    struct kl_summa_panel P;
    enum kl_status st;
    kl_summa_panel(s, p, &P);
    NCCL_TRY(n->group_start(), "ncclGroupStart");
    for (int i = 0; i < s->pr; i++)
        for (int j = 0; j < s->pc; j++) {
            int d = kl_summa_device(s, i, j), oa = kl_summa_device(s, i, P.a_col),
                ob = kl_summa_device(s, P.b_row, j);
            /* (sizes from the plan: the other devices' steps are not this process's) */
            const struct kl_summa_block *x = &r->slot[d].blk;
            size_t m = (size_t)x->m, w = (size_t)P.width, nn = (size_t)x->n;
            if ((j != P.a_col && (st = pass(r, p, 0, oa, d, m * w, comm_stream, e)) != KL_OK) ||
                (i != P.b_row && (st = pass(r, p, 1, ob, d, w * nn, comm_stream, e)) != KL_OK)) {
                n->group_end();
                return st;
            }
        }
    NCCL_TRY(n->group_end(), "ncclGroupEnd");
    return KL_OK;
}

/* The rows schedule: B broadcast from device 0, the multiplies, C's rows sent to device 0. */
static enum kl_status run_rows(struct kl_mrun *r, struct kl_err *e)
{
    const struct kl_nccl *n = r->env->nccl;
    size_t N = (size_t)r->env->N, K = (size_t)r->env->K;
    enum kl_status st;
    NCCL_TRY(n->group_start(), "ncclGroupStart");
    for (int d = 0; d < r->G; d++) {
        if (!here(r, d))
            continue;
        void *b = (void *)(uintptr_t)r->env->ops->device_ptr(r->slot[d].B);
        if ((st = kl_nccl_check(n,
                                n->broadcast(b, b, K * N, KL_NCCL_FLOAT32, 0, r->env->comms[d],
                                             r->env->dev[d].comp),
                                "ncclBroadcast", e)) != KL_OK) {
            n->group_end();
            return st;
        }
    }
    NCCL_TRY(n->group_end(), "ncclGroupEnd");
    for (int d = 0; d < r->G; d++)
        if (here(r, d) && (st = multiply(r, d, 0, e)) != KL_OK)
            return st;
    if (r->G == 1)
        return KL_OK;
    NCCL_TRY(n->group_start(), "ncclGroupStart");
    for (int d = 1; d < r->G; d++) {
        const struct slot *s = &r->slot[d];
        size_t rows = (size_t)s->rows * N;
        if ((here(r, d) &&
             (st = kl_nccl_check(n,
                                 n->send((const void *)(uintptr_t)r->env->ops->device_ptr(s->C),
                                         rows, KL_NCCL_FLOAT32, 0, r->env->comms[d],
                                         r->env->dev[d].comp),
                                 "ncclSend", e)) != KL_OK) ||
            (here(r, 0) &&
             (st = kl_nccl_check(n,
                                 n->recv((void *)(uintptr_t)(r->env->ops->device_ptr(r->slot[0].C) +
                                                             (size_t)s->row0 * N * F32),
                                         rows, KL_NCCL_FLOAT32, d, r->env->comms[0],
                                         r->env->dev[0].comp),
                                 "ncclRecv", e)) != KL_OK)) {
            n->group_end();
            return st;
        }
    }
    NCCL_TRY(n->group_end(), "ncclGroupEnd");
    return KL_OK;
}

/* SUMMA on each device's compute stream: broadcasts of a panel, then its multiply. */
static enum kl_status run_summa(struct kl_mrun *r, struct kl_err *e)
{
    enum kl_status st;
    for (int p = 0; p < r->plan.panels; p++) {
        if (r->G > 1 && (st = broadcast_panel(r, p, 0, e)) != KL_OK)
            return st;
        for (int d = 0; d < r->G; d++)
            if (here(r, d) && ((st = multiply(r, d, p, e)) != KL_OK ||
                               (p > 0 && (st = accumulate(r, d, e)) != KL_OK)))
                return st;
    }
    return KL_OK;
}

/* Records event `ev` (recv or used, buffer b) on every device's comm or compute stream. */
static enum kl_status record_all(struct kl_mrun *r, int used, int b, struct kl_err *e)
{
    enum kl_status st = KL_OK;
    for (int d = 0; d < r->G && st == KL_OK; d++) {
        struct kl_mdev *x = &r->env->dev[d];
        if (here(r, d))
            st = r->env->ops->event_record(used ? x->used[b] : x->recv[b], used ? x->comp : x->comm,
                                           e);
    }
    return st;
}

/*
 * SUMMA overlapped: panel p + 1 is broadcast on the communication streams
 * into the other panel buffers while panel p is multiplied on the compute
 * streams. recv[b] says buffer b has arrived (the multiply waits for it),
 * used[b] that the multiply reading it is done (the next broadcast into it
 * waits for that).
 */
static enum kl_status run_overlap(struct kl_mrun *r, struct kl_err *e)
{
    enum kl_status st;
    int P = r->plan.panels;
    if ((r->G > 1 && (st = broadcast_panel(r, 0, 1, e)) != KL_OK) ||
        (st = record_all(r, 0, 0, e)) != KL_OK)
        return st;
    for (int p = 0; p < P; p++) {
        int b = p % 2, next = (p + 1) % 2;
        for (int d = 0; d < r->G; d++) {
            struct kl_mdev *x = &r->env->dev[d];
            if (!here(r, d))
                continue;
            if ((st = r->env->ops->stream_wait(x->comp, x->recv[b], e)) != KL_OK ||
                (st = multiply(r, d, p, e)) != KL_OK ||
                (st = r->env->ops->event_record(x->used[b], x->comp, e)) != KL_OK ||
                (p > 0 && (st = accumulate(r, d, e)) != KL_OK))
                return st;
        }
        if (p + 1 == P)
            break;
        for (int d = 0; d < r->G && p > 0; d++)
            if (here(r, d) && (st = r->env->ops->stream_wait(
                                   r->env->dev[d].comm, r->env->dev[d].used[next], e)) != KL_OK)
                return st;
        if ((r->G > 1 && (st = broadcast_panel(r, p + 1, 1, e)) != KL_OK) ||
            (st = record_all(r, 0, next, e)) != KL_OK)
            return st;
    }
    return KL_OK;
}

/* Waits for every device's streams. */
static enum kl_status sync_all(struct kl_mrun *r, struct kl_err *e)
{
    enum kl_status st = KL_OK;
    for (int d = 0; d < r->G && st == KL_OK; d++) {
        struct kl_mdev *x = &r->env->dev[d];
        if (!here(r, d))
            continue;
        st = r->env->ops->stream_sync(x->kl->dev, x->comp, e);
        if (st == KL_OK && r->sched == KL_SCHED_OVERLAP)
            st = r->env->ops->stream_sync(x->kl->dev, x->comm, e);
    }
    return st;
}

/* One run of this process's part of the schedule, host clock to every stream done. */
static enum kl_status run_here(void *run, double *seconds, struct kl_err *e)
{
    struct kl_mrun *r = run;
    double t0 = kl_now();
    enum kl_status st = r->sched == KL_SCHED_ROWS      ? run_rows(r, e)
                        : r->sched == KL_SCHED_OVERLAP ? run_overlap(r, e)
                                                       : run_summa(r, e);
    enum kl_status done = sync_all(r, e); /* also after a failure: nothing left queued */
    *seconds = kl_now() - t0;
    return st == KL_OK ? done : st;
}

/*
 * With ranks (and a schedule over them all), every rank runs together, timed as the ranks
 * time a run (kl_ranks_run: from a barrier, the slowest rank's seconds, any failure every
 * rank's). A run of this rank alone (row 0 on rank 0) stops at once where it was asked to,
 * and the row's agreement stops the others.
 */
enum kl_status kl_mrun_once(void *run, double *seconds, struct kl_err *e)
{
    struct kl_mrun *r = run;
    if (r->env->ranks && r->G == 1 && kl_ranks_stop(NULL))
        return kl_stop_fail(e);
    return kl_ranks_run(r->G > 1 ? r->env->ranks : NULL, run_here, run, seconds, e);
}

/* Device d's C block into its place in the host's C (the rows schedule: device 0's whole C). */
static enum kl_status gather(struct kl_mrun *r, int d, float *C, float *stage, struct kl_err *e)
{
    struct kl_context *kl = ctx(r, d);
    const struct kl_summa_block *x = &r->slot[d].blk;
    size_t N = (size_t)r->env->N, m = (size_t)x->m, n = (size_t)x->n;
    if (r->sched == KL_SCHED_ROWS)
        return d == 0 ? kl->ops->read(kl->dev, r->slot[0].C, C, (size_t)r->env->M * N * F32, e)
                      : KL_OK;
    enum kl_status st = kl->ops->read(kl->dev, r->slot[d].C, stage, m * n * F32, e);
    for (size_t i = 0; st == KL_OK && i < m; i++)
        memcpy(C + ((size_t)x->m0 + i) * N + (size_t)x->n0, stage + i * n, n * F32);
    return st;
}

/* The size of device d's C buffer, in floats. */
static size_t c_elems(const struct kl_mrun *r, int d)
{
    const struct slot *s = &r->slot[d];
    if (r->sched == KL_SCHED_ROWS)
        return (d == 0 ? (size_t)r->env->M : (size_t)s->rows) * (size_t)r->env->N;
    return (size_t)s->blk.m * (size_t)s->blk.n;
}

/*
 * With ranks: rank 0 gathers its own block, then receives every other rank's (SUMMA's; the
 * rows schedule gathered C on device 0 in the run) into stage and places it; each other
 * rank sends its own. Every pair meets even after a failure, so no rank is left waiting.
 */
static enum kl_status gather_ranks(struct kl_mrun *r, float *C, float *stage, struct kl_err *e)
{
    const struct kl_ranks *R = r->env->ranks;
    enum kl_status st = here(r, 0) ? gather(r, 0, C, stage, e) : KL_OK;
    for (int d = 1; d < r->G && r->sched != KL_SCHED_ROWS; d++) {
        const struct kl_summa_block *x = &r->slot[d].blk;
        if (here(r, d) && st == KL_OK)
            st = ctx(r, d)->ops->read(ctx(r, d)->dev, r->slot[d].C, stage, c_elems(r, d) * F32, e);
        R->to_root(stage, c_elems(r, d) * F32, d);
        for (size_t i = 0; R->rank == 0 && st == KL_OK && i < (size_t)x->m; i++)
            memcpy(C + ((size_t)x->m0 + i) * (size_t)r->env->N + (size_t)x->n0,
                   stage + i * (size_t)x->n, (size_t)x->n * F32);
    }
    return kl_ranks_agreed(R, st, KL_ERR_BACKEND, e);
}

enum kl_status kl_mrun_verify(struct kl_mrun *r, float *C, struct kl_err *e)
{
    size_t most = 1;
    double dummy;
    enum kl_status st = KL_OK;
    int ranks = r->env->ranks && r->G > 1;
    /* room for this process's blocks, and on rank 0 for every block it receives */
    for (int d = 0; d < r->G; d++)
        if (here(r, d) || (ranks && r->env->ranks->rank == 0 && r->sched != KL_SCHED_ROWS))
            most = c_elems(r, d) > most ? c_elems(r, d) : most;
    float *stage = malloc(most * F32);
    if (!stage)
        st = kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory for C's blocks");
    else
        kl_poison(KL_FLOAT, stage, most); /* an element no device writes stays NaN and fails */
    for (int d = 0; d < r->G && st == KL_OK; d++) {
        struct kl_context *kl = ctx(r, d);
        if (here(r, d))
            st = kl->ops->write(kl->dev, r->slot[d].C, stage, c_elems(r, d) * F32, e);
    }
    if (ranks)
        st = kl_ranks_agreed(r->env->ranks, st, KL_ERR_BACKEND, e);
    if (st == KL_OK)
        st = kl_mrun_once(r, &dummy, e);
    if (ranks && st == KL_OK)
        st = gather_ranks(r, C, stage, e);
    for (int d = 0; d < r->G && st == KL_OK && !ranks; d++)
        if (here(r, d))
            st = gather(r, d, C, stage, e);
    free(stage);
    return st;
}

#endif /* KLADDER_HAVE_CUDA */
