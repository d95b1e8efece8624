/*
 * `kladder peak`'s FMA units: chains of fused multiply-adds in FP32, FP64
 * (where the device has it) and INT32 (kernels/opencl/peak/flops.cl),
 * searched over vector widths and chain counts, each result recomputed on
 * the host bit for bit.
 */
#include "workloads/peak/parts.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/launch.h"
#include "core/params.h"
#include "core/measure.h"

/* ---- arithmetic rate --------------------------------------------------------- */

#define FMA_WG 256
#define FMA_MAX_ITERS 8192

/*
 * Host replicas of flops.cl for one work-item, one per element type (see
 * the kernel's comment): each chain starts at x = init (a sixteenth of it
 * for floating point) and takes iters fused multiply-adds x = x·a + b;
 * component k sums its chains in chain order (v = x0; v += x1; ...), the
 * result its components left to right (s = v.s0; s += v.s1; ...).
 */
#define FMA_REPLICA(name, T, start, step)                                                          \
    static T name(int gid, int vec, int chains, int iters, T a, T b)                               \
    {                                                                                              \
        T s = 0;                                                                                   \
        for (int k = 0; k < vec; k++) {                                                            \
            T v = 0;                                                                               \
            for (int c = 0; c < chains; c++) {                                                     \
                int init = (gid + 3 * c + k) % 13;                                                 \
                T x = start;                                                                       \
                for (int i = 0; i < iters; i++)                                                    \
                    x = step;                                                                      \
                v = c ? v + x : x;                                                                 \
            }                                                                                      \
            s = k ? s + v : v;                                                                     \
        }                                                                                          \
        return s;                                                                                  \
    }
FMA_REPLICA(replica_f32, float, (float)init * 0.0625f, fmaf(x, a, b))
FMA_REPLICA(replica_f64, double, (double)init * 0.0625, fma(x, a, b))
FMA_REPLICA(replica_i32, uint32_t, (uint32_t)init, (x * a) + b)

/* What flops.cl leaves for work-item gid in type t, as a double. */
static double fma_expected(enum kl_type t, int gid, int vec, int chains, int iters, double a,
                           double b)
{
    switch (t) {
    case KL_FLOAT: return replica_f32(gid, vec, chains, iters, (float)a, (float)b);
    case KL_DOUBLE: return replica_f64(gid, vec, chains, iters, a, b);
    default:
        return (double)(int32_t)replica_i32(gid, vec, chains, iters, (uint32_t)(int32_t)a,
                                            (uint32_t)(int32_t)b);
    }
}

struct fma_run {
    enum kl_type type;
    int vec, chains;
};

/* flops.cl's build options for f. */
static void fma_options(const struct fma_run *f, char *out, size_t n)
{
    kl_params_options(NULL, NULL, f->type, out, n);
    size_t used = strlen(out);
    snprintf(out + used, n - used, " -DVEC=%d -DCHAINS=%d", f->vec, f->chains);
}

/*
 * Builds flops.cl for f and doubles its loop length (an argument: no
 * rebuild) until one launch of l takes ~20 ms (once only when quick), so
 * that ramp-up, tail and launch overhead vanish; *iters is the length chosen.
 */
static enum kl_status fma_calibrate(struct kl_context *kl, const struct fma_run *f, int quick,
                                    struct kl_launch *l, int *iters, struct kl_result *res)
{
    double t1 = 0;
    enum kl_status st;
    fma_options(f, res->options, sizeof res->options);
    if ((st = kl_kernel_get(kl, "opencl/peak/flops.cl", "flops", res->options, &l->kernel,
                            &res->build_s)) != KL_OK ||
        (st = kl_launch_check(l, "flops", &kl->err)) != KL_OK)
        return st;
    for (;;) {
        l->args[3] = (struct kl_arg){KL_ARG_INT, {.i = *iters}};
        if ((st = kl_launch_timed(l, &t1, &kl->err)) != KL_OK)
            return st;
        if (quick || t1 >= 0.01 || *iters >= FMA_MAX_ITERS)
            return KL_OK;
        while (*iters < FMA_MAX_ITERS && t1 < 0.02)
            *iters *= 2, t1 *= 2;
    }
}

/*
 * Checks sampled work-items of out (first, last, and some spread between)
 * bit for bit against the host's replica; res FAILED with the first that
 * differs, else VERIFIED with what was checked.
 */
static enum kl_status fma_verify(struct kl_context *kl, const struct fma_run *f, struct kl_buf *out,
                                 size_t global, int iters, double a, double b,
                                 struct kl_result *res)
{
    const int samples = 16;
    size_t es = kl_type_size(f->type);
    void *host = malloc(global * es);
    enum kl_status st;
    if (!host)
        return kl_fail(&kl->err, KL_ERR_NO_MEMORY, "out of host memory");
    if ((st = kl->ops->read(kl->dev, out, host, global * es, &kl->err)) != KL_OK) {
        free(host);
        return st;
    }
    res->status = KL_RESULT_VERIFIED;
    snprintf(res->note, sizeof res->note,
             "verified: %d work-items' chains reproduced bit for bit; %zu work-items, %d "
             "iterations",
             samples, global, iters);
    for (int i = 0; i < samples; i++) {
        int gid = (int)(i == samples - 1 ? global - 1 : global / (samples - 1) * (size_t)i);
        double want = fma_expected(f->type, gid, f->vec, f->chains, iters, a, b);
        double got = f->type == KL_FLOAT    ? ((float *)host)[gid]
                     : f->type == KL_DOUBLE ? ((double *)host)[gid]
                                            : ((int32_t *)host)[gid];
        if (got != want) {
            res->status = KL_RESULT_FAILED;
            snprintf(res->note, sizeof res->note, "work-item %d: got %.17g, want %.17g", gid, got,
                     want);
            break;
        }
    }
    free(host);
    return KL_OK;
}

/*
 * One FMA configuration: a fixed grid of whole waves (a multiple of 2048
 * work-items per compute unit, the most a GPU multiprocessor holds), the
 * loop length calibrated, sampled work-items checked bit for bit against
 * the host, then the configuration timed by proto.
 */
static enum kl_status fma_measure(struct kl_context *kl, const void *cfg, int quick,
                                  const struct kl_protocol *proto, struct kl_result *res)
{
    const struct fma_run f = *(const struct fma_run *)cfg;
    struct kl_launch l = {.kl = kl, .dims = 1, .nargs = 4};
    struct kl_stats stats;
    struct kl_buf *out = NULL;
    enum kl_status st;
    size_t wg = quick ? 64 : FMA_WG;
    wg = wg < kl->info.max_wg ? wg : kl->info.max_wg;
    size_t global = quick             ? wg /* one work-group: small enough for a simulator */
                    : kl->info.is_gpu ? (size_t)kl->info.compute_units * 2048 * 4
                                      : (size_t)kl->info.compute_units * wg * 16;
    int iters = 256;
    /* a < 1 and b small keep every chain finite and normal (it converges to b/(1-a)). */
    double a = f.type == KL_INT ? 3.0 : 0.999, b = f.type == KL_INT ? 1.0 : 0.001;

    global = kl_round_up(global, wg);
    l.local[0] = wg;
    l.global[0] = global;
    l.local[1] = l.local[2] = l.global[1] = l.global[2] = 1;
    snprintf(res->config, sizeof res->config, "VEC=%d CHAINS=%d", f.vec, f.chains);
    if ((st = kl->ops->alloc(kl->dev, global * kl_type_size(f.type), &out, &kl->err)) != KL_OK)
        return st;
    l.args[0] = (struct kl_arg){KL_ARG_BUF, {.buf = out}};
    if (f.type == KL_INT) {
        l.args[1] = (struct kl_arg){KL_ARG_INT, {.i = (int)a}};
        l.args[2] = (struct kl_arg){KL_ARG_INT, {.i = (int)b}};
    } else {
        l.args[1] = kl_arg_scalar(f.type, a);
        l.args[2] = kl_arg_scalar(f.type, b);
    }
    if ((st = fma_calibrate(kl, &f, quick, &l, &iters, res)) == KL_OK &&
        (st = fma_verify(kl, &f, out, global, iters, a, b, res)) == KL_OK &&
        res->status == KL_RESULT_VERIFIED &&
        (st = kl_measure(kl, proto, kl_launch_timed, &l, &stats, &kl->err)) == KL_OK) {
        res->flops = 2.0 * f.vec * f.chains * iters * (double)global;
        kl_result_set_stats(res, &stats);
    }
    kl->ops->release(out);
    return st;
}

/* ---- the search ---------------------------------------------------------------- */

/*
 * The configurations the FMA search tries (VEC, CHAINS): n of them into runs
 * of type t; a wide search adds five more. The brief space holds what the
 * full one picks on the devices measured: 16x4 and 1x16 on the H100, 8x8,
 * 4x8 and 16x4 on a CPU.
 */
static int fma_space(enum kl_type t, const struct kl_peak_request *req, struct fma_run *runs)
{
    static const struct fma_shape {
        int vec, chains;
    } all[] = {{1, 8},  {1, 16}, {2, 8}, {4, 4},  {4, 8}, {4, 16}, {8, 8},
               {16, 4}, {16, 8}, {2, 4}, {2, 16}, {8, 4}, {8, 16}, {16, 16}},
      some[] = {{1, 8}, {4, 4}}, brief[] = {{1, 16}, {4, 8}, {8, 8}, {16, 4}};
    const struct fma_shape *space = req->quick ? some : req->brief ? brief : all;
    int n = req->quick ? 2 : req->brief ? 4 : req->wide ? 14 : 9;
    for (int i = 0; i < n; i++)
        runs[i] = (struct fma_run){t, space[i].vec, space[i].chains};
    return n;
}

/* 1 where the search measures type t: FP32 always, FP64 where the device has it, INT32; the
 * brief search FP32 and the main job's type only. */
static int fma_searches(const struct kl_context *kl, const struct kl_peak_request *req,
                        enum kl_type t)
{
    if (t == KL_DOUBLE && !kl->info.fp64)
        return 0;
    return t == KL_FLOAT || !req->brief || req->brief_type == t;
}

/* Builds every FMA kernel the searches of FP32, FP64 and INT32 try (those it measures). */
static void fma_prefetch(struct kl_context *kl, const struct kl_peak_request *req)
{
    struct kl_kernel_want want[3 * 14];
    struct fma_run runs[14];
    int n = 0;
    for (int t = 0; t < 3; t++) {
        enum kl_type type = t == 0 ? KL_FLOAT : t == 1 ? KL_DOUBLE : KL_INT;
        if (!fma_searches(kl, req, type))
            continue;
        for (int i = 0, m = fma_space(type, req, runs); i < m; i++, n++) {
            want[n] = (struct kl_kernel_want){"opencl/peak/flops.cl", "flops", ""};
            fma_options(&runs[i], want[n].options, sizeof want[n].options);
        }
    }
    kl_kernel_prefetch(kl, want, n);
}

/* Tries vector widths and chain counts for one type; the best is a report row. */
static enum kl_status fma_search(struct kl_context *kl, enum kl_type t, int quick,
                                 const struct kl_peak_request *req, struct kl_report *rep,
                                 double *gflops)
{
    struct fma_run runs[14];
    int n = fma_space(t, req, runs);
    char name[32];
    snprintf(name, sizeof name, "fma_%s", t == KL_FLOAT ? "f32" : t == KL_DOUBLE ? "f64" : "i32");
    return kl_peak_rate_search(kl, name, fma_measure, runs, sizeof *runs, n, quick, req, rep,
                               gflops);
}

enum kl_status kl_peak_fma(struct kl_context *kl, const struct kl_peak_request *req,
                           struct kl_report *rep, struct kl_ceilings *c)
{
    enum kl_status st;
    fma_prefetch(kl, req);
    if ((st = fma_search(kl, KL_FLOAT, req->quick, req, rep, &c->f32_gflops)) != KL_OK ||
        (fma_searches(kl, req, KL_DOUBLE) &&
         (st = fma_search(kl, KL_DOUBLE, req->quick, req, rep, &c->f64_gflops)) != KL_OK) ||
        !fma_searches(kl, req, KL_INT))
        return st;
    return fma_search(kl, KL_INT, req->quick, req, rep, &c->i32_giops);
}
