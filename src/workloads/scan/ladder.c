/*
 * The prefix-scan ladder's driver: one rung's launches, built, run once,
 * verified and timed, then verified again; the host rung; the user's
 * kernels; the peers; the entry.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ladder.h"
#include "core/launch.h"
#include "core/measure.h"
#include "core/util.h"
#include "core/verify.h"
#include "peers/peers.h"
#include "tune/cache.h"
#include "workloads/scan/data.h"
#include "workloads/scan/scan.h"

#define GUARD 256  /* elements past the output that a correct kernel never writes */
#define INIT_WG 64 /* scan_init's work-group size */
#define LOOK_BACK_FILE "opencl/scan/05_look_back.cl" /* its scan_init clears a user's state */

/* The problem and its buffers: what the engine's callbacks share. */
struct scan {
    struct kl_context *kl;
    enum kl_type type;
    int exclusive, exact, checks;
    int n;
    void *x;          /* the input */
    void *got, *fill; /* n + GUARD elements: read back, and the poison written before a run */
    void *first;      /* a rung's first verified output, where checks > 1 (else NULL) */
    struct kl_buf *dx, *dy;
};

static const struct kl_scan_rung *rung(int i)
{
    return kl_scan_rung_at(i);
}

/* ---- the verdict ------------------------------------------------------------ */

/* Checks p->got against the reference into res: verified, or failed saying where. */
static void judge(const struct scan *p, struct kl_result *res)
{
    struct kl_scan_check c;
    kl_scan_check(p->type, p->exclusive, p->exact, p->x, p->got, (size_t)p->n, &c);
    if (c.bad) {
        res->status = KL_RESULT_FAILED;
        snprintf(res->note, sizeof res->note,
                 "%zu of %d results differ from the reference; first at %zu: got %.9g, want "
                 "%.9g",
                 c.bad, p->n, c.first, c.first_got, c.first_want);
        return;
    }
    res->status = KL_RESULT_VERIFIED;
    if (c.worst_ratio > 0)
        snprintf(res->note, sizeof res->note,
                 "%d results match the reference (worst %.2g of tolerance)", p->n, c.worst_ratio);
    else
        snprintf(res->note, sizeof res->note, "%d results match the reference exactly", p->n);
}

/* ---- the host rung ------------------------------------------------------------ */

static enum kl_status host_once(void *arg, double *seconds, struct kl_err *e)
{
    struct scan *p = arg;
    double t0 = kl_now();
    (void)e;
    if (p->type == KL_INT) {
        const uint32_t *x = p->x;
        uint32_t *y = p->got, s = 0;
        for (int i = 0; i < p->n; i++) {
            uint32_t v = x[i];
            y[i] = p->exclusive ? s : s + v;
            s += v;
        }
    } else {
        const float *x = p->x;
        float *y = p->got, s = 0;
        for (int i = 0; i < p->n; i++) {
            float v = x[i];
            y[i] = p->exclusive ? s : s + v;
            s += v;
        }
    }
    *seconds = kl_now() - t0;
    return KL_OK;
}

static enum kl_status run_host(struct scan *p, const struct kl_protocol *proto,
                               struct kl_result *res)
{
    struct kl_stats stats;
    double dummy;
    enum kl_status st = host_once(p, &dummy, &p->kl->err);
    judge(p, res);
    if (st != KL_OK || res->status != KL_RESULT_VERIFIED)
        return st;
    if ((st = kl_measure(NULL, proto, host_once, p, &stats, &p->kl->err)) != KL_OK)
        return st;
    kl_result_set_stats(res, &stats);
    return KL_OK;
}

/* ---- running launches, verified --------------------------------------------- */

/*
 * The launches once, on a poisoned output: res failed where the output is wrong or the
 * guard band after it touched, else verified. Where same is set and p->first holds an
 * output already verified, an output equal to it bit for bit is verified without a second
 * walk through the reference (2^30 elements take a second).
 */
static enum kl_status run_checked(struct scan *p, struct kl_launch_pair *pair, int same,
                                  struct kl_result *res)
{
    struct kl_context *kl = p->kl;
    size_t es = kl_type_size(p->type), total = ((size_t)p->n + GUARD) * es;
    double seconds;
    enum kl_status st;
    if ((st = kl->ops->write(kl->dev, p->dy, p->fill, total, &kl->err)) != KL_OK ||
        (st = kl_launch_pair_timed(pair, &seconds, &kl->err)) != KL_OK ||
        (st = kl->ops->read(kl->dev, p->dy, p->got, total, &kl->err)) != KL_OK)
        return st;
    if (memcmp((char *)p->got + (size_t)p->n * es, (char *)p->fill + (size_t)p->n * es,
               GUARD * es) != 0) {
        res->status = KL_RESULT_FAILED;
        snprintf(res->note, sizeof res->note,
                 "the kernel wrote past the end of its %d results (into the guard band)", p->n);
        return KL_OK;
    }
    if (same && p->first && memcmp(p->got, p->first, (size_t)p->n * es) == 0) {
        res->status = KL_RESULT_VERIFIED;
        return KL_OK;
    }
    judge(p, res);
    return KL_OK;
}

/*
 * Runs the launches verified, times them, then verifies p->checks more runs, each on a
 * poisoned output: a kernel whose state from one launch spoils the next (a counter or a
 * flag left set), or whose look-back races only now and then, fails here.
 */
static enum kl_status run_verified(struct scan *p, struct kl_launch_pair *pair,
                                   const struct kl_protocol *proto, struct kl_result *res)
{
    struct kl_context *kl = p->kl;
    struct kl_stats stats;
    enum kl_status st = run_checked(p, pair, 0, res);
    if (st != KL_OK || res->status != KL_RESULT_VERIFIED)
        return st;
    if (p->first)
        memcpy(p->first, p->got, (size_t)p->n * kl_type_size(p->type));
    if ((st = kl_measure(kl, proto, kl_launch_pair_timed, pair, &stats, &kl->err)) != KL_OK) {
        res->status = KL_RESULT_FAILED;
        return st;
    }
    kl_result_set_stats(res, &stats);
    for (int k = 1; k <= p->checks; k++) {
        struct kl_result again;
        memset(&again, 0, sizeof again);
        if ((st = run_checked(p, pair, 1, &again)) != KL_OK)
            return st;
        if (again.status != KL_RESULT_VERIFIED) {
            res->status = KL_RESULT_FAILED;
            snprintf(res->note, sizeof res->note,
                     "verified once, but not run %d of %d after the timed launches: %.400s", k,
                     p->checks, again.note);
            return KL_OK;
        }
    }
    return KL_OK;
}

/* ---- the device rungs ------------------------------------------------------- */

/* " -DKL_OP_SUM" (R, its sums), the mode, and " -DKL_SUBGROUPS" where the device has them. */
static void scan_options(void *self, char *out, size_t n)
{
    struct scan *p = self;
    size_t used = strlen(out);
    snprintf(out + used, n - used, " -DKL_OP_SUM%s%s", p->exclusive ? " -DKL_EXCLUSIVE" : "",
             p->kl->info.subgroups ? " -DKL_SUBGROUPS" : "");
}

static void arg_buf(struct kl_launch *l, struct kl_buf *b)
{
    l->args[l->nargs++] = (struct kl_arg){KL_ARG_BUF, {.buf = b}};
}

static void arg_int(struct kl_launch *l, long v)
{
    l->args[l->nargs++] = (struct kl_arg){KL_ARG_INT, {.i = (int)v}};
}

/* The interface's launch, every rung's last and the user's: scan(x, y, state, n). */
static void scan_args(const struct scan *p, struct kl_launch *l, struct kl_buf *state)
{
    l->nargs = 0;
    arg_buf(l, p->dx);
    arg_buf(l, p->dy);
    arg_buf(l, state);
    arg_int(l, p->n);
}

/* scan_init over the first words of state, from the look-back rung's file. */
static enum kl_status init_launch(struct scan *p, struct kl_launch *l, struct kl_buf *state,
                                  long words, const char *options, double *build_s)
{
    struct kl_context *kl = p->kl;
    double seconds = 0;
    enum kl_status st =
        kl_kernel_get(kl, LOOK_BACK_FILE, "scan_init", options, &l->kernel, &seconds);
    *build_s += seconds;
    kl_launch_1d(l, (size_t)((words + INIT_WG - 1) / INIT_WG), INIT_WG);
    l->nargs = 0;
    arg_buf(l, state);
    arg_int(l, words);
    return st;
}

/* A rung's launches, their kernels and the state buffer they share. */
struct launches {
    struct kl_launch launch[3], *order[3];
    int count;
    long groups;
    struct kl_buf *state;
};

/* The next launch of q: kernel entry of r's file, built with options. */
static enum kl_status add(struct scan *p, struct launches *q, const struct kl_scan_rung *r,
                          const char *entry, const char *options, double *build_s)
{
    struct kl_launch *l = &q->launch[q->count];
    double seconds = 0;
    *l = (struct kl_launch){.kl = p->kl};
    q->order[q->count++] = l;
    enum kl_status st = kl_kernel_get(p->kl, r->file, entry, options, &l->kernel, &seconds);
    *build_s += seconds;
    return st;
}

/* Rung r's launches over the input, in order, the last of them scan(x, y, state, n). */
static enum kl_status plan(struct scan *p, const struct kl_scan_rung *r, const int *values,
                           const char *options, struct launches *q, double *build_s)
{
    struct kl_context *kl = p->kl;
    size_t wg = (size_t)kl_param_value(r->params, values, "WG");
    long words = kl_scan_state_words(r, values, p->n);
    enum kl_status st;
    q->groups = kl_scan_groups(r, values, p->n);
    if ((st = kl->ops->alloc(kl->dev, (size_t)words * 4, &q->state, &kl->err)) != KL_OK)
        return st;
    if (r->geometry == KL_SCAN_PHASES) {
        if ((st = add(p, q, r, "tile_sums", options, build_s)) != KL_OK ||
            (st = add(p, q, r, "scan_sums", options, build_s)) != KL_OK)
            return st;
        kl_launch_1d(&q->launch[0], (size_t)q->groups, wg);
        arg_buf(&q->launch[0], p->dx);
        arg_buf(&q->launch[0], q->state);
        arg_int(&q->launch[0], p->n);
        kl_launch_1d(&q->launch[1], 1, wg);
        arg_buf(&q->launch[1], q->state);
        arg_int(&q->launch[1], q->groups);
    } else if (r->geometry == KL_SCAN_LOOK_BACK) {
        struct kl_launch *l = &q->launch[q->count];
        q->order[q->count++] = l;
        *l = (struct kl_launch){.kl = kl};
        if ((st = init_launch(p, l, q->state, words, options, build_s)) != KL_OK)
            return st;
    }
    if ((st = add(p, q, r, "scan", options, build_s)) != KL_OK)
        return st;
    struct kl_launch *last = q->order[q->count - 1];
    kl_launch_1d(last, (size_t)q->groups, wg);
    scan_args(p, last, q->state);
    for (int k = 0; k < q->count; k++)
        if ((st = kl_launch_check(q->order[k], r->name, &kl->err)) != KL_OK)
            return st;
    return KL_OK;
}

/* The row's note on its launches, after the verdict's. */
static void launches_note(const struct kl_scan_rung *r, const struct launches *q,
                          struct kl_result *res)
{
    size_t used = strlen(res->note);
    if (r->geometry == KL_SCAN_PHASES)
        snprintf(res->note + used, sizeof res->note - used,
                 "; 3 launches (%ld tiles' sums, their scan, the tiles' scans), their kernel "
                 "times added",
                 q->groups);
    else if (r->geometry == KL_SCAN_LOOK_BACK)
        snprintf(res->note + used, sizeof res->note - used,
                 "; 2 launches (the %ld tiles' status cleared, then the scan), their kernel "
                 "times added",
                 q->groups);
}

/* A device rung: built, its launches planned, run and verified, timed, verified again. */
static enum kl_status run_device(struct scan *p, const struct kl_scan_rung *r, const int *values,
                                 const struct kl_protocol *proto, struct kl_result *res)
{
    struct kl_context *kl = p->kl;
    struct launches q;
    memset(&q, 0, sizeof q);
    kl_params_options(r->params, values, p->type, res->options, sizeof res->options);
    scan_options(p, res->options, sizeof res->options);
    enum kl_status st = plan(p, r, values, res->options, &q, &res->build_s);
    if (st == KL_OK) {
        struct kl_launch_pair pair = {.a = q.order[0], .more = q.order + 1, .nmore = q.count - 1};
        st = run_verified(p, &pair, proto, res);
    }
    if (st == KL_OK && res->status == KL_RESULT_VERIFIED)
        launches_note(r, &q, res);
    kl->ops->release(q.state);
    return st;
}

static enum kl_status scan_run(void *self, int i, const int *values,
                               const struct kl_protocol *proto, struct kl_result *res)
{
    struct scan *p = self;
    return rung(i)->file ? run_device(p, rung(i), values, proto, res) : run_host(p, proto, res);
}

static int scan_available(void *self, int i, char *why, size_t n)
{
    struct scan *p = self;
    if (rung(i)->needs_subgroups && !p->kl->info.subgroups) {
        snprintf(why, n, "the device has no sub-groups (cl_khr_subgroups)");
        return 0;
    }
    if (rung(i)->geometry == KL_SCAN_LOOK_BACK && !p->kl->info.atomics64) {
        snprintf(why, n, "the device has no 64-bit atomics (cl_khr_int64_base_atomics)");
        return 0;
    }
    if (rung(i)->geometry == KL_SCAN_LOOK_BACK && !p->kl->info.groups_progress) {
        snprintf(why, n,
                 "OpenCL does not promise that a started work-group progresses while another "
                 "waits on it; kladder runs the look-back on CUDA, NVIDIA's OpenCL and CPU "
                 "devices");
        return 0;
    }
    return 1;
}

static enum kl_status scan_check(void *self, int i, const int *values, struct kl_err *e)
{
    struct scan *p = self;
    const struct kl_scan_rung *r = rung(i);
    struct kl_launch l = {.kl = p->kl};
    if (!r->file)
        return KL_OK;
    kl_launch_1d(&l, 1, (size_t)kl_param_value(r->params, values, "WG"));
    enum kl_status st = kl_launch_check(&l, r->name, e);
    long local = kl_scan_local_bytes(r, values);
    if (st == KL_OK && (unsigned long long)local > p->kl->info.local_mem)
        return kl_fail(e, KL_ERR_UNSUPPORTED,
                       "rung %s: needs %ld bytes of local memory, the device has %llu", r->name,
                       local, (unsigned long long)p->kl->info.local_mem);
    return st;
}

/* ---- the user's kernels: one launch, its state cleared before it ----------- */

static long long scan_size(void *self, int i)
{
    (void)i;
    return ((struct scan *)self)->n;
}

static void user_args(void *self, const struct kl_user_rung *u, struct kl_launch *l)
{
    (void)u;
    scan_args(self, l, NULL); /* the state comes with the run, sized by the launch */
}

/* The user's launch after scan_init has cleared its state, 2 + 2·G words (G its groups). */
static enum kl_status user_run(void *self, struct kl_launch *l, const struct kl_protocol *proto,
                               struct kl_result *res)
{
    struct scan *p = self;
    struct kl_context *kl = p->kl;
    struct kl_launch init = {.kl = kl};
    struct kl_buf *state = NULL;
    char options[256] = "";
    long groups = 1;
    for (int d = 0; d < l->dims; d++)
        groups *= (long)(l->global[d] / l->local[d]);
    kl_params_options(NULL, NULL, p->type, options, sizeof options);
    scan_options(p, options, sizeof options);
    enum kl_status st = kl->ops->alloc(kl->dev, (size_t)(2 + 2 * groups) * 4, &state, &kl->err);
    if (st == KL_OK)
        st = init_launch(p, &init, state, 2 + 2 * groups, options, &res->build_s);
    if (st == KL_OK) {
        l->args[2] = (struct kl_arg){KL_ARG_BUF, {.buf = state}};
        struct kl_launch_pair pair = {.a = &init, .b = l};
        st = run_verified(p, &pair, proto, res);
    }
    kl->ops->release(state);
    return st;
}

static const struct kl_user_iface user_iface = {
    .signature = "scan(global const R *x, global R *y, global uint *state, int n)",
    .nsizes = 1,
    .size_names = {"N"},
    .size = scan_size,
    .options = scan_options,
    .args = user_args,
    .run = user_run,
};

/* ---- the peers: the same data, the same verdict ----------------------------- */

static enum kl_status run_peer(void *self, const char *peer, const struct kl_protocol *proto,
                               struct kl_report *rep)
{
    struct scan *p = self;
    struct kl_context *kl = p->kl;
    char what[256];
    struct kl_stats stats;
    struct kl_err e;
    struct kl_scan_problem problem = {p->type, p->exclusive, p->n, p->x};
    struct kl_result *res = kl_peer_result(rep, peer, &kl->err);
    if (!res)
        return KL_ERR_NO_MEMORY;
    enum kl_status st =
        kl_peer_scan(kl, peer, &problem, proto, p->got, &stats, what, sizeof what, &e);
    if (!kl_peer_row(res, st, &e, what))
        return KL_OK;
    judge(p, res);
    kl_peer_keep(res, &stats);
    return KL_OK;
}

/* ---- the entry -------------------------------------------------------------- */

/* The input, the host's output and poison, and the device's copies. */
static enum kl_status scan_data(struct scan *p, const struct kl_scan_request *req, struct kl_err *e)
{
    struct kl_context *kl = p->kl;
    size_t n = (size_t)p->n, es = kl_type_size(p->type);
    enum kl_status st;
    /* the input (and the first check's output), the read-back and the poison */
    double need = ((double)n * (req->checks > 1 ? 2 : 1) + 2.0 * (n + GUARD)) * es;
    if ((st = kl_host_fits(need, "the input, its read-back and poison", e)) != KL_OK)
        return st;
    p->x = malloc(n * es);
    p->got = malloc((n + GUARD) * es);
    p->fill = malloc((n + GUARD) * es);
    if (req->checks > 1)
        p->first = malloc(n * es);
    if (!p->x || !p->got || !p->fill || (req->checks > 1 && !p->first))
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory for %zu elements", n);
    kl_scan_fill(p->type, req->data, p->x, n, req->seed);
    kl_poison(p->type, p->fill, n + GUARD);
    if ((st = kl->ops->alloc(kl->dev, n * es, &p->dx, e)) != KL_OK ||
        (st = kl->ops->alloc(kl->dev, (n + GUARD) * es, &p->dy, e)) != KL_OK)
        return st;
    return kl->ops->write(kl->dev, p->dx, p->x, n * es, e);
}

static void scan_free(struct scan *p)
{
    struct kl_context *kl = p->kl;
    kl->ops->release(p->dx);
    kl->ops->release(p->dy);
    free(p->x);
    free(p->got);
    free(p->fill);
    free(p->first);
}

/* A request the kernels can take, refused at once with the reason otherwise. */
static enum kl_status check_request(struct kl_context *kl, const struct kl_scan_request *req,
                                    struct kl_err *e)
{
    size_t n = (size_t)req->n;
    if (req->type != KL_FLOAT && req->type != KL_INT)
        return kl_fail(e, KL_ERR_ARG, "scan runs in float or int, not --type %s",
                       kl_type_name(req->type));
    if (req->n < 1)
        return kl_fail(e, KL_ERR_ARG, "--size %d: scan takes 1 to 2^31 - 1 elements", req->n);
    if (req->type == KL_FLOAT && req->data == KL_SCAN_CONSTANT && req->n > (1 << 24))
        return kl_fail(e, KL_ERR_ARG,
                       "--data constant in float takes at most 2^24 elements (%d given): past "
                       "that, sums of ones are no longer exact in float",
                       req->n);
    if (req->checks < 1)
        return kl_fail(e, KL_ERR_ARG,
                       "--checks %d: at least one run is verified after the "
                       "timed ones",
                       req->checks);
    if (n * 4 > kl->info.max_alloc)
        return kl_fail(e, KL_ERR_NO_MEMORY,
                       "%zu elements need %.1f MiB, more than the device's largest allocation "
                       "(%.1f MiB)",
                       n, n * 4 / 1048576.0, kl->info.max_alloc / 1048576.0);
    /* the input, the output, and the state (at most about one word per element) */
    enum kl_status st = kl_device_fits(kl, 3.0 * n * 4, "the input, the output and the state", e);
    if (st != KL_OK || (st = kl_peers_check("scan", req->peers, req->npeers, e)) != KL_OK)
        return st;
    return kl_protocol_check(&req->protocol, e);
}

static const char *const data_names[] = {"random", "skewed", "constant"};

/* The report's sizes, reference and counts: 2n words moved, one addition per element. */
static void scan_report(struct kl_report *rep, struct kl_context *kl,
                        const struct kl_scan_request *req, int exact)
{
    const char *mode = req->exclusive ? "exclusive" : "inclusive";
    char text[128];
    kl_ladder_report(rep, kl, "scan", req->type, req->seed, &req->protocol);
    snprintf(rep->sizes, sizeof rep->sizes, "N=%d mode=%s data=%s", req->n, mode,
             data_names[req->data]);
    snprintf(rep->size_json, sizeof rep->size_json, "\"N\": %d, \"mode\": \"%s\", \"data\": \"%s\"",
             req->n, mode, data_names[req->data]);
    rep->flops = (double)req->n;
    rep->bytes = 2.0 * req->n * kl_type_size(req->type); /* read once, written once */
    kl_scan_reference_text(req->type, exact, rep->reference, sizeof rep->reference);
    kl_scan_inputs_text(req->type, req->data, text, sizeof text);
    snprintf(rep->inputs, sizeof rep->inputs, "%s, seed %llu", text, req->seed);
}

enum kl_status kl_scan_ladder(struct kl_context *kl, const struct kl_scan_request *req,
                              struct kl_report *rep)
{
    struct kl_err *e = &kl->err;
    struct scan p = {.kl = kl,
                     .type = req->type,
                     .exclusive = req->exclusive,
                     .exact = req->type == KL_INT || req->data == KL_SCAN_CONSTANT,
                     .checks = req->checks,
                     .n = req->n};
    /* A rung named with --rung is the user's: its misfit is an error, not a skipped row. */
    struct kl_workload w = {.table = kl_scan_rungs(),
                            .kl = kl,
                            .type = req->type,
                            .self = &p,
                            .named_is_users = 1,
                            .available = scan_available,
                            .check = scan_check,
                            .run = scan_run,
                            .user = &user_iface};
    struct kl_ladder_args a = KL_LADDER_ARGS(req);
    int chosen[KL_MAX_RUNGS], nchosen;
    enum kl_status st;
    if ((st = check_request(kl, req, e)) != KL_OK ||
        (st = kl_ladder_begin(&w, &a, chosen, &nchosen, e)) != KL_OK)
        return st;
    if ((st = scan_data(&p, req, e)) != KL_OK)
        goto done;
    scan_report(rep, kl, req, p.exact);
    if ((st = kl_ladder_rungs(&w, &a, chosen, nchosen, 0,
                              nchosen + req->npeers * kl_cache_passes(&req->protocol), rep, e)) !=
        KL_OK)
        goto done;
    st = kl_ladder_peers(&req->protocol, req->peers, req->npeers, run_peer, &p, rep);
done:
    kl_report_finish(rep);
    scan_free(&p);
    return st;
}
