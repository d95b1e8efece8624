/*
 * `kladder peak` on the tensor cores, in every precision, and the packed-half
 * FMA rate: kernels of inline PTX whose every output the host computes
 * exactly, so each rate is of products that were really made.
 *
 * mma.sync (kernels/opencl/peak/mma.cl, OpenCL C: NVIDIA's OpenCL and CUDA
 * alike) on compute capability 8.0 and later, one warp per product; wgmma
 * (kernels/cuda/peak/wgmma.cu, CUDA C++ for sm_90a) on 9.0, one warpgroup
 * per product. Each precision's ceiling is the better of the two.
 */
#include "workloads/peak/parts.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/launch.h"
#include "core/progress.h"
#include "core/util.h"

/* What the accumulators hold, and so what the kernel writes per work-item. */
enum tc_out { OUT_FLOAT, OUT_INT, OUT_DOUBLE };

/* One kernel build: a precision of mma.cl or wgmma.cu, or hfma2.cl. */
struct tc_kernel {
    const char *file, *entry, *define; /* define: the precision's -D option */
    const char *what;                  /* the precision in messages: "FP16" */
    const char *shape;                 /* "m16n8k16": for the row's configuration */
    enum { TC_MMA, TC_WGMMA, TC_HFMA2 } family;
    int m, n, k;     /* one product's shape (hfma2: none) */
    int k_data;      /* K of the data the expected values are made of (wgmma: four products) */
    enum tc_out out; /* FP16 sums are written as floats: the same elements, summed */
    int cc_major;    /* the least compute capability (8 or 9) */
    int max_iters;   /* the longest loop whose sums stay exact */
};

/* clang-format off */
#define MMA(def, what, shape, m, n, k, out, cc, iters)                                             \
    {"opencl/peak/mma.cl", "mma", "-DTC_" def, what, shape, TC_MMA, m, n, k, k, out, cc, iters}
#define WGMMA(def, what, shape, k, out, iters)                                                     \
    {"cuda/peak/wgmma.cu", "wgmma_peak", "-DTC_" def, what, shape, TC_WGMMA, 64, 256, k, 4 * k,    \
     out, 9, iters}
static const struct tc_kernel
    mma_tf32 = MMA("TF32", "TF32", "m16n8k8", 16, 8, 8, OUT_FLOAT, 8, 8192),
    mma_f16 = MMA("F16", "FP16", "m16n8k16", 16, 8, 16, OUT_FLOAT, 8, 8192),
    mma_f16acc = MMA("F16ACC", "FP16", "m16n8k16", 16, 8, 16, OUT_FLOAT, 8, 1024),
    mma_bf16 = MMA("BF16", "BF16", "m16n8k16", 16, 8, 16, OUT_FLOAT, 8, 8192),
    mma_i8 = MMA("I8", "INT8", "m16n8k32", 16, 8, 32, OUT_INT, 8, 8192),
    mma_f64 = MMA("F64", "FP64", "m8n8k4", 8, 8, 4, OUT_DOUBLE, 8, 8192),
    mma_f64k16 = MMA("F64K16", "FP64", "m16n8k16", 16, 8, 16, OUT_DOUBLE, 9, 8192),
    wg_tf32 = WGMMA("TF32", "TF32", "m64n256k8", 8, OUT_FLOAT, 16384),
    wg_f16 = WGMMA("F16", "FP16", "m64n256k16", 16, OUT_FLOAT, 16384),
    wg_f16acc = WGMMA("F16ACC", "FP16", "m64n256k16", 16, OUT_FLOAT, 4096),
    wg_bf16 = WGMMA("BF16", "BF16", "m64n256k16", 16, OUT_FLOAT, 16384),
    wg_e4m3 = WGMMA("E4M3", "FP8", "m64n256k32", 32, OUT_FLOAT, 16384),
    wg_e5m2 = WGMMA("E5M2", "FP8", "m64n256k32", 32, OUT_FLOAT, 16384),
    wg_i8 = WGMMA("I8", "INT8", "m64n256k32", 32, OUT_INT, 16384),
    hfma2 = {"opencl/peak/hfma2.cl", "hfma2", "", "FP16x2", "f16x2", TC_HFMA2, 0, 0, 0, 0,
             OUT_FLOAT, 8, 2032};
/* clang-format on */

/* The integers of the kernels' comments: A, B (unused here: A*E undoes it), D and C's start. */
static int a_val(int u, int m, int k)
{
    return (131 * u + 3 * m + 5 * k) % 7 - 3;
}
static int c_start(int v, int m, int n)
{
    return (v + 3 * m + n) % 64 - 32;
}

/* (A*D)[m][n] of tile u: D has one value per column, at row (5n + u) % k_data. */
static int a_times_d(int u, int m, int n, int k_data)
{
    return a_val(u, m, (5 * n + u) % k_data) * ((n + u) % 3 - 1);
}

/*
 * The exact output of work-item gid (group: warpgroups per block for wgmma,
 * chains for mma.sync and hfma2) after iters steps; see each kernel's comment.
 */
static double expected(const struct tc_kernel *k, long gid, int group, int iters)
{
    double s = 0;
    if (k->family == TC_HFMA2) { /* both lanes of every chain, each grown by one per step */
        for (int c = 0; c < group; c++)
            s += (gid + 3 * c) % 13 + (gid + 3 * c + 1) % 13 + 2.0 * iters;
        return s;
    }
    int lane = (int)(gid % 32), g = lane / 4, t = lane % 4;
    if (k->family == TC_MMA) {
        int u = (int)(gid / 32), regs = k->m == 16 ? 4 : 2;
        for (int ch = 0; ch < group; ch++)
            for (int i = 0; i < regs; i++) {
                int m = g + 8 * (i / 2), n = 2 * t + i % 2;
                s +=
                    c_start(u + 5 * ch, m, n) + (double)(iters / 2) * a_times_d(u, m, n, k->k_data);
            }
        return s;
    }
    long threads = 128L * group;
    int u = (int)(gid / threads), wg = (int)(gid % threads / 128), w = (int)(gid % 128 / 32);
    int v = u * group + wg;
    for (int i = 0; i < 128; i++) {
        int m = 16 * w + g + 8 * ((i / 2) % 2), n = 8 * (i / 4) + 2 * t + i % 2;
        s += c_start(v, m, n) + (double)(iters / 8) * a_times_d(u, m, n, k->k_data);
    }
    return s;
}

/*
 * One configuration of a row: a kernel and its chains (mma.sync, hfma2), or
 * its warpgroups per block and A's place (wgmma).
 */
struct tc_config {
    const struct tc_kernel *k;
    int group;  /* chains, or warpgroups per block */
    int a_smem; /* wgmma: A from shared memory (else registers) */
};

#define WGMMA_SMEM (64 * 128 + 2 * 256 * 128 + 1024) /* wgmma.cu's WGMMA_SMEM */

/* Operations of one launch of l. */
static double launch_ops(const struct tc_config *cf, const struct kl_launch *l, int iters)
{
    const struct tc_kernel *k = cf->k;
    double items = (double)l->global[0];
    if (k->family == TC_HFMA2)
        return 2.0 * 2 * cf->group * (double)iters * items;
    double per_product = 2.0 * k->m * k->n * k->k;
    return k->family == TC_MMA ? items / 32 * cf->group * iters * per_product
                               : items / 128 * iters * per_product;
}

/* The build options of cf: chains are unrolled into the code, warpgroups only shape the launch. */
static void build_options(const struct tc_config *cf, char *opt, size_t n)
{
    if (cf->k->family == TC_WGMMA)
        snprintf(opt, n, "%s -DA_SMEM=%d", cf->k->define, cf->a_smem);
    else
        snprintf(opt, n, "%s%sCHAINS=%d", cf->k->define, cf->k->define[0] ? " -D" : "-D",
                 cf->group);
}

/* Why config cf cannot run on this device, or NULL. */
static const char *unavailable(struct kl_context *kl, const struct tc_config *cf, char *why,
                               size_t n)
{
    const struct kl_device_info *d = &kl->info;
    const struct tc_kernel *k = cf->k;
    if (k->family == TC_HFMA2)
        return kl_packed_half(d, why, n) ? NULL : why;
    if (!kl_tensor_cores(d, k->what, why, n))
        return why;
    if (k->family == TC_WGMMA && d->cc_major != 9) {
        snprintf(why, n, "wgmma needs compute capability 9.0 (sm_90a); this device is %d.%d",
                 d->cc_major, d->cc_minor);
        return why;
    }
    if (d->cc_major < k->cc_major) {
        snprintf(why, n,
                 "mma.sync %s in this precision needs compute capability %d.0; this "
                 "device is %d.%d",
                 k->shape, k->cc_major, d->cc_major, d->cc_minor);
        return why;
    }
    return NULL;
}

/* Reads out and compares sampled work-items with their exact values; res failed at a miss. */
static enum kl_status check_out(struct kl_context *kl, const struct tc_config *cf,
                                struct kl_buf *out, size_t global, int iters, struct kl_result *res)
{
    size_t es = cf->k->out == OUT_DOUBLE ? 8 : 4;
    unsigned char *host = malloc(global * es);
    enum kl_status st;
    if (!host)
        return kl_fail(&kl->err, KL_ERR_NO_MEMORY, "out of host memory");
    if ((st = kl->ops->read(kl->dev, out, host, global * es, &kl->err)) != KL_OK) {
        free(host);
        return st;
    }
    res->status = KL_RESULT_VERIFIED;
    const int samples = 16;
    for (int i = 0; i < samples; i++) {
        long gid = (long)(i == samples - 1 ? global - 1 : global / (samples - 1) * (size_t)i);
        double want = expected(cf->k, gid, cf->group, iters), got;
        if (cf->k->out == OUT_DOUBLE)
            memcpy(&got, host + (size_t)gid * 8, 8);
        else if (cf->k->out == OUT_INT) {
            int32_t x;
            memcpy(&x, host + (size_t)gid * 4, 4);
            got = x;
        } else {
            float x;
            memcpy(&x, host + (size_t)gid * 4, 4);
            got = x;
        }
        if (got != want) {
            res->status = KL_RESULT_FAILED;
            snprintf(res->note, sizeof res->note, "work-item %ld: got %.17g, want %.17g", gid, got,
                     want);
            break;
        }
    }
    free(host);
    return KL_OK;
}

/* What res says of configuration cf: its precision, tensor cores or not, its description. */
static void tc_describe(const struct tc_config *cf, struct kl_result *res)
{
    const struct tc_kernel *k = cf->k;
    res->precision = k->family == TC_HFMA2 ? KL_PREC_FP16 : res->precision;
    res->tensor = k->family != TC_HFMA2;
    if (k->family == TC_WGMMA)
        snprintf(res->config, sizeof res->config, "wgmma %s WGS=%d A=%s", k->shape, cf->group,
                 cf->a_smem ? "shared" : "registers");
    else
        snprintf(res->config, sizeof res->config, "%s%s CHAINS=%d",
                 k->family == TC_MMA ? "mma.sync " : "fma.rn.", k->shape, cf->group);
}

/*
 * A grid of units work-groups of l->local[0] with a fresh output buffer
 * *out (the last one released) and the kernel's arguments, iters the loop.
 */
static enum kl_status tc_grid(struct kl_context *kl, const struct tc_kernel *k, size_t units,
                              int iters, struct kl_launch *l, struct kl_buf **out)
{
    enum kl_status st;
    l->global[0] = units * l->local[0];
    kl->ops->release(*out);
    *out = NULL;
    if ((st = kl->ops->alloc(kl->dev, l->global[0] * (k->out == OUT_DOUBLE ? 8 : 4), out,
                             &kl->err)) != KL_OK)
        return st;
    l->args[0] = (struct kl_arg){KL_ARG_BUF, {.buf = *out}};
    l->args[1] = (struct kl_arg){KL_ARG_INT, {.i = iters}};
    l->args[2] = (struct kl_arg){KL_ARG_LOCAL, {.local_bytes = WGMMA_SMEM}};
    l->nargs = k->family == TC_WGMMA ? 3 : 2;
    return kl_launch_check(l, k->entry, &kl->err);
}

/*
 * The loop (an argument: no rebuild) doubled until a launch takes ~10 ms
 * or the sums would stop being exact; once only when quick. *t: the last
 * launch's time.
 */
static enum kl_status tc_lengthen(struct kl_context *kl, const struct tc_kernel *k, int quick,
                                  struct kl_launch *l, int *iters, double *t)
{
    enum kl_status st;
    for (;;) {
        l->args[1].v.i = *iters;
        if ((st = kl_launch_timed(l, t, &kl->err)) != KL_OK)
            return st;
        if (quick || *t >= 0.01 || 2 * *iters > k->max_iters)
            return KL_OK;
        *iters *= 2;
    }
}

/*
 * The launch l sized: whole waves of work-items (mma.sync and hfma2: 4 x
 * 2048 work-items per unit, hfma2 16; wgmma: 12 blocks per unit, whole
 * waves for 1, 2, 3 or 4 resident; quick: one work-group), the loop
 * lengthened first, then the grid doubled (three times at most) until a
 * launch takes at least ~5 ms. *out: its output buffer; *iters its loop.
 */
static enum kl_status tc_size(struct kl_context *kl, const struct tc_config *cf, int quick,
                              struct kl_launch *l, struct kl_buf **out, int *iters)
{
    const struct tc_kernel *k = cf->k;
    size_t wg = k->family == TC_WGMMA ? 128 * (size_t)cf->group : quick ? 64 : 256;
    size_t per_unit = k->family == TC_WGMMA   ? 12 * wg
                      : k->family == TC_HFMA2 ? 2048 * 16
                                              : 2048 * 4;
    size_t units = quick ? 1 : (size_t)kl->info.compute_units * per_unit / wg;
    enum kl_status st;
    double t = 0;
    *iters = quick ? 8 : k->family == TC_WGMMA ? 64 : 256;
    l->local[0] = wg;
    l->local[1] = l->local[2] = l->global[1] = l->global[2] = 1;
    for (int widen = 0;; widen++, units *= 2) {
        if ((st = tc_grid(kl, k, units, *iters, l, out)) != KL_OK ||
            (st = tc_lengthen(kl, k, quick, l, iters, &t)) != KL_OK)
            return st;
        if (quick || t >= 0.005 || widen == 3)
            return KL_OK;
    }
}

/*
 * One configuration: whole waves of work-items, the loop (a kernel argument)
 * lengthened until a launch takes ~10 ms or the sums would stop being exact,
 * then the grid widened to at least ~5 ms; sampled work-items checked
 * exactly; then timed by proto.
 */
static enum kl_status tc_measure(struct kl_context *kl, const void *cfg, int quick,
                                 const struct kl_protocol *proto, struct kl_result *res)
{
    const struct tc_config *cf = cfg;
    const struct tc_kernel *k = cf->k;
    struct kl_launch l = {.kl = kl, .dims = 1};
    struct kl_stats stats;
    struct kl_buf *out = NULL;
    enum kl_status st;
    char why[256], opt[256];
    int iters;
    if (unavailable(kl, cf, why, sizeof why))
        return kl_fail(&kl->err, KL_ERR_UNSUPPORTED, "%s", why);
    tc_describe(cf, res);
    build_options(cf, opt, sizeof opt);
    snprintf(res->options, sizeof res->options, "%s", opt);
    if ((st = kl_kernel_get(kl, k->file, k->entry, opt, &l.kernel, &res->build_s)) != KL_OK)
        return st;
    if ((st = tc_size(kl, cf, quick, &l, &out, &iters)) != KL_OK ||
        (st = check_out(kl, cf, out, l.global[0], iters, res)) != KL_OK ||
        res->status != KL_RESULT_VERIFIED)
        goto done;
    snprintf(res->note, sizeof res->note,
             "verified: 16 work-items' sums reproduced exactly; %zu work-items, %d iterations",
             l.global[0], iters);
    if ((st = kl_measure(kl, proto, kl_launch_timed, &l, &stats, &kl->err)) != KL_OK)
        goto done;
    res->flops = launch_ops(cf, &l, iters);
    kl_result_set_stats(res, &stats);
done:
    kl->ops->release(out);
    return st;
}

/* A row of the table below: its name, its ceiling and its configurations' kernels. */
struct tc_row {
    const char *name, *figure;
    enum kl_precision precision;
    const struct tc_kernel *k[2]; /* a second kernel shape tried for the same row, or NULL */
};

static const struct tc_row rows[] = {
    {"mma_tf32", "tf32_gflops", KL_PREC_TF32, {&mma_tf32, NULL}},
    {"mma_f16", "f16_tc_gflops", KL_PREC_FP16, {&mma_f16, NULL}},
    {"mma_f16acc", "f16acc_tc_gflops", KL_PREC_FP16, {&mma_f16acc, NULL}},
    {"mma_bf16", "bf16_gflops", KL_PREC_BF16, {&mma_bf16, NULL}},
    {"mma_i8", "i8_giops", KL_PREC_INT8, {&mma_i8, NULL}},
    {"mma_f64", "f64_tc_gflops", KL_PREC_FP64, {&mma_f64, &mma_f64k16}},
    {"wgmma_tf32", "tf32_gflops", KL_PREC_TF32, {&wg_tf32, NULL}},
    {"wgmma_f16", "f16_tc_gflops", KL_PREC_FP16, {&wg_f16, NULL}},
    {"wgmma_f16acc", "f16acc_tc_gflops", KL_PREC_FP16, {&wg_f16acc, NULL}},
    {"wgmma_bf16", "bf16_gflops", KL_PREC_BF16, {&wg_bf16, NULL}},
    {"wgmma_e4m3", "fp8_gflops", KL_PREC_FP8, {&wg_e4m3, NULL}},
    {"wgmma_e5m2", "fp8e5m2_gflops", KL_PREC_FP8E5M2, {&wg_e5m2, NULL}},
    {"wgmma_i8", "i8_giops", KL_PREC_INT8, {&wg_i8, NULL}},
};

/* Row r's configurations into cfgs (at most 8); their count. A wide search adds one chain. */
static int row_configs(const struct tc_row *r, int wide, struct tc_config *cfgs)
{
    static const int chains[] = {2, 4, 8, 1};
    int n = 0;
    for (int s = 0; s < 2 && r->k[s]; s++)
        for (int i = 0; i < (r->k[s]->family == TC_WGMMA ? 4 : wide ? 4 : 3); i++)
            /* wgmma: WGS x A's place; the others: chains */
            cfgs[n++] = r->k[s]->family == TC_WGMMA ? (struct tc_config){r->k[s], 1 + i % 2, i / 2}
                                                    : (struct tc_config){r->k[s], chains[i], 0};
    return n;
}

/* The precision rate_search's rows get: set on the row after the search (kept on skips too). */
static void label_row(struct kl_report *rep, int first, enum kl_precision p, const char *figure,
                      const struct kl_device_info *dev)
{
    for (int i = first; i < rep->count; i++) {
        struct kl_result *r = &rep->results[i];
        char basis[192];
        const struct kl_ceiling_def *d = kl_ceiling_find(figure);
        double spec = kl_ceiling_spec(d, dev, basis, sizeof basis);
        r->precision = p;
        r->tensor = 1;
        if (r->status == KL_RESULT_VERIFIED && spec > 0 && r->median_s > 0) {
            size_t used = strlen(r->note);
            snprintf(r->note + used, sizeof r->note - used,
                     "; specification %.1f %s (%s): %.0f%% of it", spec, d->unit, basis,
                     100.0 * r->flops / r->median_s * 1e-9 / spec);
        }
    }
}

enum kl_status kl_peak_tensor(struct kl_context *kl, const struct kl_peak_request *req,
                              struct kl_report *rep, struct kl_ceilings *c)
{
    enum { ROWS = sizeof rows / sizeof *rows, PER_ROW = 8 };
    struct tc_config cfgs[ROWS][PER_ROW];
    int count[ROWS];
    struct kl_kernel_want want[ROWS * PER_ROW];
    int nwant = 0;
    enum kl_status st;
    double rate;
    char why[256];
    for (size_t r = 0; r < ROWS; r++) {
        count[r] = row_configs(&rows[r], req->wide, cfgs[r]);
        if (req->quick) /* tests: the first configuration */
            count[r] = 1;
        if (req->brief && strcmp(rows[r].figure, "tf32_gflops") != 0)
            count[r] = 0; /* the main job's GEMM needs TF32's roof only */
        for (int i = 0; i < count[r]; i++)
            if (!unavailable(kl, &cfgs[r][i], why, sizeof why)) {
                want[nwant] = (struct kl_kernel_want){cfgs[r][i].k->file, cfgs[r][i].k->entry, ""};
                build_options(&cfgs[r][i], want[nwant].options, sizeof want[nwant].options);
                nwant++;
            }
    }
    if (nwant) /* none where the device has no tensor cores */
        kl_progress_step(15, 17, "peak: tensor cores, building %d kernels", nwant);
    kl_kernel_prefetch(kl, want, nwant);
    for (size_t r = 0; r < ROWS; r++) {
        int first = rep->count;
        if (!count[r])
            continue;
        kl_progress_step(15, 17, "peak: tensor cores, %s", rows[r].name);
        if ((st = kl_peak_rate_search(kl, rows[r].name, tc_measure, cfgs[r], sizeof *cfgs[r],
                                      count[r], req->quick, req, rep, &rate)) != KL_OK)
            return st;
        label_row(rep, first, rows[r].precision, rows[r].figure, &kl->info);
        const struct kl_ceiling_def *d = kl_ceiling_find(rows[r].figure);
        if (rate > kl_ceiling_value(c, d))
            kl_ceiling_set(c, d, rate);
    }
    return KL_OK;
}

enum kl_status kl_peak_packed_half(struct kl_context *kl, const struct kl_peak_request *req,
                                   struct kl_report *rep, struct kl_ceilings *c)
{
    const struct tc_config all[] = {
        {&hfma2, 4, 0}, {&hfma2, 8, 0}, {&hfma2, 16, 0}, {&hfma2, 2, 0}};
    int first = rep->count;
    enum kl_status st = kl_peak_rate_search(kl, "fma_f16x2", tc_measure, all, sizeof *all,
                                            req->quick  ? 1
                                            : req->wide ? 4
                                                        : 3,
                                            req->quick, req, rep, &c->f16_gflops);
    for (int i = first; i < rep->count; i++)
        rep->results[i].precision = KL_PREC_FP16;
    return st;
}
