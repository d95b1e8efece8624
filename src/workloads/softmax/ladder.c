/*
 * The softmax ladder's driver: the rows and their reference with each
 * element's bound; one rung's launch, verified, timed and verified again;
 * the user's kernels; cuDNN beside them; the entry.
 */
#include <math.h>
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
#include "workloads/softmax/softmax.h"
#include "workloads/vecout.h"

#define U (1.0 / 16777216.0) /* float's unit roundoff, 2^-24: the kernels compute in float */
#define OVERFLOW 10000.0 /* the rows that overflow (or underflow) a naive exp lie about ±this */
#define SPREAD 4.0       /* the other rows' values spread over ±this */
#define TINY_MEAN 256.0  /* the tiny-variance rows: this, give or take TINY_NOISE or more */
#define TINY_NOISE 0.05

/*
 * The problem and its buffers: what the engine's callbacks share. x is uploaded once; the
 * output (kl_vecout) holds the reference and each element's bound.
 */
struct softmax {
    struct kl_context *kl;
    int rows, cols;
    enum kl_type type;
    enum kl_softmax_op op;
    float gamma, beta, eps;
    size_t count; /* rows · cols */
    void *x;      /* as generated, in the type */
    struct kl_buf *dx;
    struct kl_vecout out;
};

static const char *const op_names[] = {"softmax", "layernorm", "rmsnorm"};

const char *kl_softmax_op_name(enum kl_softmax_op op)
{
    return op_names[op];
}

int kl_softmax_op_parse(const char *name)
{
    for (int i = 0; i < 3; i++)
        if (strcmp(name, op_names[i]) == 0)
            return i;
    return -1;
}

static const struct kl_softmax_rung *rung(int i)
{
    return kl_softmax_rung_at(i);
}

/* ---- the rows, their reference, and each element's bound ------------------------- */

/* The type's unit roundoff where the output is rounded to it (0 for float: computed in it). */
static double output_roundoff(enum kl_type t)
{
    return t == KL_HALF ? 1.0 / 2048 : t == KL_BF16 ? 1.0 / 256 : 0.0;
}

/* A float's bits as a half's, rounded to nearest even (a half's infinity past its range). */
static uint16_t half_bits(float f)
{
    uint32_t b, sign, m, h, rest, tie;
    memcpy(&b, &f, sizeof b);
    sign = (b >> 16) & 0x8000, m = (b & 0x7fffff) | 0x800000;
    int e = (int)((b >> 23) & 255) - 112; /* the half's exponent field, where normal */
    if (e >= 31)
        return (uint16_t)(sign | 0x7c00);
    if (e < -10)
        return (uint16_t)sign;
    int shift = e > 0 ? 13 : 14 - e; /* the float's mantissa bits the half drops */
    h = (e > 0 ? (uint32_t)e << 10 : 0) + ((e > 0 ? m & 0x7fffff : m) >> shift);
    rest = m & ((1u << shift) - 1), tie = 1u << (shift - 1);
    return (uint16_t)(sign | (h + (rest > tie || (rest == tie && (h & 1)))));
}

/* x[i] = v rounded to float, then to the type (nearest even each time). */
static void put(enum kl_type t, void *x, size_t i, double v)
{
    float f = (float)v;
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    if (t == KL_FLOAT)
        ((float *)x)[i] = f;
    else if (t == KL_BF16)
        ((uint16_t *)x)[i] = (uint16_t)((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);
    else
        ((uint16_t *)x)[i] = half_bits(f);
}

/* What the threads drawing the rows share: the problem and the sequence's seed. */
struct rows_share {
    struct softmax *p;
    unsigned long long seed;
};

/*
 * Rows begin .. end - 1, element i from the sequence's draw i (the rows the same whichever
 * thread draws them). Row r's values, by r % 4: uniform over ±SPREAD; the same about
 * +OVERFLOW and about -OVERFLOW (a naive softmax's exp overflows or every term underflows);
 * and TINY_MEAN with a noise of TINY_NOISE or 4 steps of the type there, whichever is larger
 * (a variance so small beside the mean that E[x^2] - mean^2 cancels to nothing).
 */
static void draw_rows(void *arg, size_t share, size_t begin, size_t end)
{
    const struct rows_share *s = arg;
    struct softmax *p = s->p;
    struct kl_rng rng;
    double step = p->type == KL_HALF ? 0.25 : p->type == KL_BF16 ? 2.0 : 0.0; /* at 256 */
    double noise = TINY_NOISE > 4 * step ? TINY_NOISE : 4 * step;
    (void)share;
    kl_rng_seed(&rng, s->seed);
    kl_rng_skip(&rng, (uint64_t)begin * (uint64_t)p->cols);
    for (size_t r = begin; r < end; r++)
        for (int j = 0; j < p->cols; j++) {
            double u = kl_rng_uniform(&rng);
            double v = r % 4 == 3 ? TINY_MEAN + noise * u
                                  : SPREAD * u + (r % 4 == 1   ? OVERFLOW
                                                  : r % 4 == 2 ? -OVERFLOW
                                                               : 0.0);
            put(p->type, p->x, r * (size_t)p->cols + j, v);
        }
}

/* Every row, rows shared among the host's threads. */
static void make_rows(struct softmax *p, unsigned long long seed)
{
    struct rows_share s = {p, seed};
    kl_parallel_for((size_t)p->rows, draw_rows, &s);
}

/*
 * Softmax of one row in double: ref, and the bound of each element, relative to it: the
 * output's rounding, exp's and the scaling's few ulps, the sum's 4u·sqrt(n), and the rounding
 * of x - max, which exp turns into a relative error of u·|x - max|.
 */
static void softmax_row(const struct softmax *p, const double *x, double *ref, double *bound)
{
    double m = x[0], s = 0.0, n = p->cols, ut = output_roundoff(p->type);
    for (int j = 1; j < p->cols; j++)
        m = x[j] > m ? x[j] : m;
    for (int j = 0; j < p->cols; j++)
        s += exp(x[j] - m);
    for (int j = 0; j < p->cols; j++) {
        ref[j] = exp(x[j] - m) / s;
        bound[j] = ref[j] * (ut + U * (8.0 + 4.0 * sqrt(n) + 2.0 * fabs(x[j] - m)));
    }
}

/*
 * Layer norm (center 1) or RMS norm (center 0) of one row in double, two passes. The bound:
 * the float mean's error e (4u·sqrt(n) of the mean magnitude, the sums' bound), which each
 * x - mean carries with its own rounding; the deviation's relative error (e / sigma plus
 * the sum of squares' 2u·sqrt(n) and rsqrt's ulps), which scales each output; and the
 * output's rounding.
 */
static void norm_row(const struct softmax *p, const double *x, int center, double *ref,
                     double *bound)
{
    double n = p->cols, mean = 0.0, mag = 0.0, ss = 0.0, ut = output_roundoff(p->type);
    for (int j = 0; j < p->cols; j++)
        mean += x[j] / n, mag += fabs(x[j]) / n;
    mean = center ? mean : 0.0;
    for (int j = 0; j < p->cols; j++)
        ss += (x[j] - mean) * (x[j] - mean);
    double sigma = sqrt(ss / n + p->eps), beta = center ? p->beta : 0.0;
    double e = center ? (4.0 * sqrt(n) + 1.0) * U * mag : 0.0;
    double rel = e / sigma + U * (2.0 * sqrt(n) + 4.0);
    for (int j = 0; j < p->cols; j++) {
        double d = x[j] - mean;
        ref[j] = d / sigma * p->gamma + beta;
        bound[j] =
            fabs(p->gamma) * ((e + U * (fabs(x[j]) + fabs(d))) / sigma + fabs(d) / sigma * rel) +
            ut * fabs(ref[j]) + 2.0 * U * fabs(beta);
    }
}

/* What the reference's threads share: the problem, and whether one found no memory. */
struct reference_share {
    struct softmax *p;
    int failed;
};

/* The reference and bounds of rows begin .. end - 1: one thread's share. */
static void reference_rows(void *arg, size_t share, size_t begin, size_t end)
{
    struct reference_share *s = arg;
    struct softmax *p = s->p;
    double *x = malloc((size_t)p->cols * sizeof *x);
    double floor = p->type == KL_HALF ? ldexp(1.0, -25) : 0.0;
    (void)share;
    if (!x) {
        __atomic_store_n(&s->failed, 1, __ATOMIC_RELAXED);
        return;
    }
    for (size_t r = begin; r < end; r++) {
        size_t at = r * (size_t)p->cols;
        for (int j = 0; j < p->cols; j++)
            x[j] = kl_get(p->type, p->x, at + j);
        if (p->op == KL_SOFTMAX)
            softmax_row(p, x, p->out.ref + at, p->out.scale + at);
        else
            norm_row(p, x, p->op == KL_LAYERNORM, p->out.ref + at, p->out.scale + at);
        for (int j = 0; j < p->cols; j++)
            p->out.scale[at + j] += floor;
    }
    free(x);
}

/* The reference and bounds of every row, rows shared among the host's threads (each row's
   the same whichever computes it); the half's smallest step halved below each bound. */
static enum kl_status make_reference(struct softmax *p, struct kl_err *e)
{
    struct reference_share s = {p, 0};
    kl_parallel_for((size_t)p->rows, reference_rows, &s);
    return s.failed ? kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory for a row of %d", p->cols)
                    : KL_OK;
}

/* ---- the device rungs ---------------------------------------------------------- */

/* " -DOP_<OP>", and -DKL_SUBGROUPS where the device has them: every kernel's, the user's too. */
static void op_options(void *self, char *out, size_t n)
{
    struct softmax *p = self;
    size_t used = strlen(out);
    const char *op = p->op == KL_SOFTMAX     ? "SOFTMAX"
                     : p->op == KL_LAYERNORM ? "LAYERNORM"
                                             : "RMSNORM";
    snprintf(out + used, n - used, " -DOP_%s%s", op,
             p->kl->info.subgroups ? " -DKL_SUBGROUPS" : "");
}

/* The interface's arguments, every rung's and the user's: x, y, rows, cols, gamma, beta, eps. */
static void set_args(const struct softmax *p, struct kl_launch *l)
{
    l->nargs = 7;
    l->args[0] = (struct kl_arg){KL_ARG_BUF, {.buf = p->dx}};
    l->args[1] = (struct kl_arg){KL_ARG_BUF, {.buf = p->out.dev}};
    l->args[2] = (struct kl_arg){KL_ARG_INT, {.i = p->rows}};
    l->args[3] = (struct kl_arg){KL_ARG_INT, {.i = p->cols}};
    l->args[4] = kl_arg_scalar(KL_FLOAT, p->gamma);
    l->args[5] = kl_arg_scalar(KL_FLOAT, p->beta);
    l->args[6] = kl_arg_scalar(KL_FLOAT, p->eps);
}

/* The cluster rung's dynamic shared memory: VS vectors of 4 elements a thread, as stored. */
static size_t stash_bytes(const struct kl_softmax_rung *r, const int *values, enum kl_type t)
{
    return 4 * kl_type_size(t) * (size_t)kl_param_value(r->params, values, "VS") *
           (size_t)kl_param_value(r->params, values, "NT");
}

/* Verified, timed, and verified once more on a poisoned output (kl_vecout_run_twice). */
static enum kl_status run_verified(struct softmax *p, struct kl_launch *l,
                                   const struct kl_protocol *proto, struct kl_result *res)
{
    struct kl_launch_pair pair = {.a = l};
    return kl_vecout_run_twice(&p->out, &pair, proto, 1.0, res);
}

static enum kl_status run_device(struct softmax *p, const struct kl_softmax_rung *r,
                                 const int *values, const struct kl_protocol *proto,
                                 struct kl_result *res)
{
    struct kl_context *kl = p->kl;
    struct kl_launch l = {.kl = kl};
    size_t wg;
    long groups;
    kl_params_options(r->params, values, p->type, res->options, sizeof res->options);
    op_options(p, res->options, sizeof res->options);
    enum kl_status st =
        kl_kernel_get(kl, r->file, "softmax", res->options, &l.kernel, &res->build_s);
    if (st != KL_OK)
        return st;
    kl_softmax_geometry(r, values, p->rows, &wg, &groups);
    kl_launch_1d(&l, (size_t)groups, wg);
    set_args(p, &l);
    if (r->shape == KL_ROW_IN_CLUSTER) /* its vectors held in shared memory */
        l.args[l.nargs++] =
            (struct kl_arg){KL_ARG_LOCAL, {.local_bytes = stash_bytes(r, values, p->type)}};
    if ((st = kl_launch_check(&l, r->name, &kl->err)) != KL_OK)
        return st;
    st = run_verified(p, &l, proto, res);
    if (st == KL_OK && res->status == KL_RESULT_VERIFIED)
        snprintf(res->note + strlen(res->note), sizeof res->note - strlen(res->note),
                 "; %ld work-group%s of %zu", groups, groups == 1 ? "" : "s", wg);
    return st;
}

static enum kl_status softmax_run(void *self, int i, const int *values,
                                  const struct kl_protocol *proto, struct kl_result *res)
{
    return run_device(self, rung(i), values, proto, res);
}

/* Rung i's values: --param where it sets one of the rung's own, else the rule for the row. */
static enum kl_status softmax_values(void *self, int i, const struct kl_ladder_args *a, int *values,
                                     int *users, char *config, size_t n, struct kl_err *e)
{
    const struct softmax *p = self;
    unsigned mask = 0;
    enum kl_status st =
        kl_params_resolve(rung(i)->name, rung(i)->params, a->params, a->nparams, values, &mask, e);
    *users = mask != 0 || a->nrungs > 0;
    if (st == KL_OK && !kl_params_mention(a->params, a->nparams, rung(i)->params))
        kl_softmax_rule(rung(i), p->cols, (int)kl_type_size(p->type), values, config, n);
    return st;
}

static enum kl_status softmax_check(void *self, int i, const int *values, struct kl_err *e)
{
    struct softmax *p = self;
    const struct kl_softmax_rung *r = rung(i);
    struct kl_launch l = {.kl = p->kl};
    size_t wg;
    long groups;
    kl_softmax_geometry(r, values, p->rows, &wg, &groups);
    kl_launch_1d(&l, (size_t)groups, wg);
    enum kl_status st = kl_launch_check(&l, r->name, e);
    /* kl_row_group's partials: one per work-item and one more (three floats); the cluster
       rung's vectors, its blocks' statistics (four floats a block) and their barrier */
    unsigned long long local = 12ull * (wg + 1), most = p->kl->info.local_mem;
    if (r->shape == KL_ROW_IN_CLUSTER && !kl_kernel_elsewhere(p->kl, r->file)) {
        local += stash_bytes(r, values, p->type) +
                 16ull * (unsigned)kl_param_value(r->params, values, "CL") + 8;
        most = kl_kernel_local_mem(p->kl, r->file);
    }
    if (st == KL_OK && local > most)
        return kl_fail(e, KL_ERR_UNSUPPORTED,
                       "rung %s: %zu work-items need %llu bytes of local memory, the device has "
                       "%llu",
                       r->name, wg, local, most);
    return st;
}

/* Whether rung i runs here: the cluster rung on CUDA at compute capability 9.0; every other
   rung anywhere. */
static int softmax_available(void *self, int i, char *why, size_t n)
{
    const struct softmax *p = self;
    const struct kl_device_info *d = &p->kl->info;
    if (rung(i)->shape != KL_ROW_IN_CLUSTER)
        return 1;
    if (kl_kernel_elsewhere(p->kl, rung(i)->file))
        snprintf(why, n, "CUDA C++: runs with --backend cuda");
    else if (!(d->cc_major == 9 && d->cc_minor == 0))
        snprintf(why, n,
                 "thread-block clusters, built for sm_90a: compute capability 9.0 only (this "
                 "is %d.%d)",
                 d->cc_major, d->cc_minor);
    else
        return 1;
    return 0;
}

/* ---- the user's kernels: the same launch and check as a rung's --------------- */

static long long softmax_size(void *self, int i)
{
    struct softmax *p = self;
    return i == 0 ? p->rows : p->cols;
}

static void user_args(void *self, const struct kl_user_rung *u, struct kl_launch *l)
{
    (void)u;
    set_args(self, l);
}

static enum kl_status user_run(void *self, struct kl_launch *l, const struct kl_protocol *proto,
                               struct kl_result *res)
{
    return run_verified(self, l, proto, res);
}

static const struct kl_user_iface user_iface = {
    .signature = "softmax(global const TA *x, global TA *y, int rows, int cols, float gamma, "
                 "float beta, float eps)",
    .nsizes = 2,
    .size_names = {"ROWS", "COLS"},
    .size = softmax_size,
    .options = op_options,
    .args = user_args,
    .run = user_run,
};

/* ---- the peers: the same rows, the same bound ---------------------------------- */

static enum kl_status run_peer(void *self, const char *peer, const struct kl_protocol *proto,
                               struct kl_report *rep)
{
    struct softmax *p = self;
    char what[256];
    struct kl_stats stats;
    struct kl_err e;
    struct kl_softmax_problem problem = {.type = p->type,
                                         .op = (int)p->op,
                                         .rows = p->rows,
                                         .cols = p->cols,
                                         .x = p->x,
                                         .gamma = p->gamma,
                                         .beta = p->beta,
                                         .eps = p->eps};
    struct kl_result *res = kl_peer_result(rep, peer, &p->kl->err);
    if (!res)
        return KL_ERR_NO_MEMORY;
    enum kl_status st =
        kl_peer_softmax(p->kl, peer, &problem, proto, p->out.host, &stats, what, sizeof what, &e);
    kl_vecout_peer(&p->out, st, &e, what, &stats, 1.0, res);
    return KL_OK;
}

/* ---- the entry -------------------------------------------------------------- */

/* The rows, their reference and bounds, the output and the device's input. */
static enum kl_status softmax_data(struct softmax *p, unsigned long long seed, struct kl_err *e)
{
    struct kl_context *kl = p->kl;
    size_t bytes = p->count * kl_type_size(p->type);
    enum kl_status st;
    if ((st = kl_host_fits((double)bytes, "the rows", e)) != KL_OK)
        return st;
    p->x = malloc(bytes);
    if (!p->x)
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory for %zu bytes", bytes);
    make_rows(p, seed);
    if ((st = kl_vecout_alloc(&p->out, e)) != KL_OK || (st = make_reference(p, e)) != KL_OK ||
        (st = kl->ops->alloc(kl->dev, bytes, &p->dx, e)) != KL_OK)
        return st;
    return kl->ops->write(kl->dev, p->dx, p->x, bytes, e);
}

static void softmax_free(struct softmax *p)
{
    p->kl->ops->release(p->dx);
    kl_vecout_free(&p->out);
    free(p->x);
}

/* A request the kernels can take, refused at once with the reason otherwise. */
static enum kl_status check_request(struct kl_context *kl, const struct kl_softmax_request *req,
                                    struct kl_err *e)
{
    double bytes = (double)req->rows * req->cols * (double)kl_type_size(req->type);
    if (req->rows < 1 || req->cols < 1)
        return kl_fail(e, KL_ERR_ARG, "--size %d,%d: softmax takes ROWS x COLS of at least 1 x 1",
                       req->rows, req->cols);
    if ((double)req->rows * req->cols > 2147483647.0 - 256)
        return kl_fail(e, KL_ERR_ARG, "--size %d,%d: at most 2^31 - 257 elements", req->rows,
                       req->cols);
    if (req->type != KL_FLOAT && req->type != KL_HALF && req->type != KL_BF16)
        return kl_fail(e, KL_ERR_ARG, "softmax takes float, half or bf16, not %s",
                       kl_type_name(req->type));
    if (!(req->eps > 0.0) || !isfinite(req->gamma) || !isfinite(req->beta) || !isfinite(req->eps))
        return kl_fail(e, KL_ERR_ARG,
                       "--gamma %g --beta %g --eps %g: gamma and beta finite, eps above 0",
                       req->gamma, req->beta, req->eps);
    if (bytes + 256 * (double)kl_type_size(req->type) > (double)kl->info.max_alloc)
        return kl_fail(e, KL_ERR_NO_MEMORY,
                       "%.1f MiB are more than the device's largest allocation (%.1f MiB)",
                       bytes / 1048576.0, kl->info.max_alloc / 1048576.0);
    enum kl_status st = kl_device_fits(kl, bytes * 2, "the rows in and out", e);
    if (st != KL_OK || (st = kl_peers_check("softmax", req->peers, req->npeers, e)) != KL_OK)
        return st;
    return kl_protocol_check(&req->protocol, e);
}

/* The report's sizes, reference and counts: rows · cols elements read once and written once. */
static void softmax_report(struct kl_report *rep, struct kl_context *kl,
                           const struct kl_softmax_request *req)
{
    const char *op = kl_softmax_op_name(req->op);
    kl_ladder_report(rep, kl, "softmax", req->type, req->seed, &req->protocol);
    snprintf(rep->sizes, sizeof rep->sizes, "rows=%d cols=%d op=%s", req->rows, req->cols, op);
    snprintf(rep->size_json, sizeof rep->size_json,
             "\"rows\": %d, \"cols\": %d, \"op\": \"%s\", \"gamma\": %.9g, \"beta\": %.9g, "
             "\"eps\": %.9g",
             req->rows, req->cols, op, req->gamma, req->beta, req->eps);
    rep->flops = 0; /* the copy ceiling alone is its roof */
    rep->bytes = 2.0 * req->rows * req->cols * (double)kl_type_size(req->type);
    snprintf(rep->reference, sizeof rep->reference,
             "%s in double, two passes; each element within %s", op,
             req->op == KL_SOFTMAX
                 ? "(u_out + u(8 + 4 sqrt(n) + 2|x - max|)) of itself (u = 2^-24)"
                 : "|gamma|((e + u(|x| + |x - mean|)) / sigma + |x - mean| / sigma (e / sigma + "
                   "u(2 sqrt(n) + 4))) + u_out |y|, e = u(4 sqrt(n) + 1) mean|x| (0 for "
                   "rmsnorm)");
    snprintf(rep->inputs, sizeof rep->inputs,
             "rows by row %% 4: uniform in +-4; the same about +1e4; about -1e4; 256 +- 0.05 "
             "(at least 4 steps of the type); as %s, seed %llu",
             kl_type_name(req->type), req->seed);
}

enum kl_status kl_softmax_ladder(struct kl_context *kl, const struct kl_softmax_request *req,
                                 struct kl_report *rep)
{
    struct kl_err *e = &kl->err;
    struct softmax p = {.kl = kl,
                        .rows = req->rows,
                        .cols = req->cols,
                        .type = req->type,
                        .op = req->op,
                        .gamma = (float)req->gamma,
                        .beta = (float)req->beta,
                        .eps = (float)req->eps,
                        .count = (size_t)req->rows * (size_t)req->cols};
    struct kl_workload w = {.table = kl_softmax_rungs(),
                            .kl = kl,
                            .type = req->type,
                            .self = &p,
                            .named_is_users = 1,
                            .available = softmax_available,
                            .values = softmax_values,
                            .check = softmax_check,
                            .run = softmax_run,
                            .user = &user_iface};
    struct kl_ladder_args a = KL_LADDER_ARGS(req);
    int chosen[KL_MAX_RUNGS], nchosen;
    enum kl_status st;
    kl_vecout_init(&p.out, kl, req->type, p.count);
    if ((st = check_request(kl, req, e)) != KL_OK ||
        (st = kl_ladder_begin(&w, &a, chosen, &nchosen, e)) != KL_OK)
        return st;
    if ((st = softmax_data(&p, req->seed, e)) != KL_OK)
        goto done;
    softmax_report(rep, kl, req);
    if ((st = kl_ladder_rungs(&w, &a, chosen, nchosen, 0,
                              nchosen + req->npeers * kl_cache_passes(&req->protocol), rep, e)) !=
        KL_OK)
        goto done;
    st = kl_ladder_peers(&req->protocol, req->peers, req->npeers, run_peer, &p, rep);
done:
    kl_report_finish(rep);
    softmax_free(&p);
    return st;
}
