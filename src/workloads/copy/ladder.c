/*
 * Copy workload: the rung table of seed 003's ILP ladder, the sweep over N,
 * and verification of every copy (all elements, plus guard elements past
 * the end that must stay untouched).
 */
#include "workloads/copy/copy.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ladder.h"
#include "core/launch.h"
#include "core/measure.h"
#include "core/progress.h"
#include "core/util.h"

#define P_BS(d)                                                                                    \
    {                                                                                              \
        "BS", d, 1, 1024, 1, 0, "block (work-group) size"                                          \
    }
#define P_ILP                                                                                      \
    {                                                                                              \
        "ILP", 4, 1, 16, 1, 1, "vectors copied per work-item"                                      \
    }

/* clang-format off */
static const struct kl_copy_rung rungs[] = {
    {"ilp1",
     "seed 003: one element per work-item, blocks of 512",
     "opencl/copy/ilp.cl",
     1,
     1,
     {P_BS(512)}, 0},
    {"ilp2",
     "two elements per work-item (tid + j·blocksize), blocks of 256: the same 512 "
     "elements per block",
     "opencl/copy/ilp.cl",
     1,
     2,
     {P_BS(256)}, 0},
    {"ilp4", "four elements per work-item, blocks of 128", "opencl/copy/ilp.cl", 1, 4, {P_BS(128)}, 0},
    {"ilp8", "eight elements per work-item, blocks of 64", "opencl/copy/ilp.cl", 1, 8, {P_BS(64)}, 0},
    {"ilp16",
     "sixteen elements per work-item, blocks of 32 (one warp)",
     "opencl/copy/ilp.cl",
     1,
     16,
     {P_BS(32)}, 0},
    {"seed_ilp1", "seed 003's CUDA kernel as written, ILP=1, blocks of 512 (CUDA only)",
     "cuda/copy/seed003.cu", 1, 1, {P_BS(512)}, 1},
    {"seed_ilp2", "seed 003's CUDA kernel as written, ILP=2, blocks of 256 (CUDA only)",
     "cuda/copy/seed003.cu", 1, 2, {P_BS(256)}, 1},
    {"seed_ilp4", "seed 003's CUDA kernel as written, ILP=4, blocks of 128 (CUDA only)",
     "cuda/copy/seed003.cu", 1, 4, {P_BS(128)}, 1},
    {"seed_ilp8", "seed 003's CUDA kernel as written, ILP=8, blocks of 64 (CUDA only)",
     "cuda/copy/seed003.cu", 1, 8, {P_BS(64)}, 1},
    {"seed_ilp16", "seed 003's CUDA kernel as written, ILP=16, blocks of 32 (CUDA only)",
     "cuda/copy/seed003.cu", 1, 16, {P_BS(32)}, 1},
    {"vec2",
     "uint2 loads and stores: half the memory instructions for the same bytes",
     "opencl/copy/vec2.cl",
     2,
     0,
     {P_BS(256), P_ILP}, 0},
    {"vec4",
     "uint4 (16-byte) loads and stores, the widest a GPU load unit serves in one "
     "instruction",
     "opencl/copy/vec4.cl",
     4,
     0,
     {P_BS(256), P_ILP}, 0},
};
/* clang-format on */
#define RUNG_COUNT ((int)(sizeof rungs / sizeof *rungs))

/*
 * The article's notes: the ILP rungs share one file, and so do the seed's,
 * so each says what its options change; vec2 is read against ilp4, the rung
 * of its own language and ILP before it.
 */
static const struct kl_rung_note notes[] = {
    {"ilp2", NULL,
     "twice ilp1's elements per work-item in blocks of half the size: each block still moves "
     "512 elements, and each work-item has two loads in flight before its first store"},
    {"ilp4", NULL, "four loads in flight per work-item, blocks of 128"},
    {"ilp8", NULL, "eight loads in flight per work-item, blocks of 64"},
    {"ilp16", NULL,
     "sixteen loads in flight per work-item, blocks of one warp: the fewest resident threads, "
     "each keeping the most bytes outstanding"},
    {"seed_ilp2", NULL, "the seed's kernel with ILP=2 as its argument, blocks of 256"},
    {"seed_ilp4", NULL, "ILP=4, blocks of 128"},
    {"seed_ilp8", NULL, "ILP=8, blocks of 64"},
    {"seed_ilp16", NULL, "ILP=16, blocks of 32"},
    {"vec2", "ilp4", NULL},
    {NULL, NULL, NULL},
};

KL_RUNG_TABLE_FILES(copy, struct kl_copy_rung, rungs, notes);

#define GUARD 64 /* elements past N that a correct kernel never writes */

struct copy_session {
    struct kl_context *kl;
    size_t cap; /* elements in the buffers, guard included */
    uint32_t *src, *poison, *out;
    struct kl_buf *dsrc, *ddst;
};

static void session_free(struct copy_session *s)
{
    if (s->kl) {
        s->kl->ops->release(s->dsrc);
        s->kl->ops->release(s->ddst);
    }
    free(s->src);
    free(s->poison);
    free(s->out);
}

static enum kl_status session_init(struct copy_session *s, struct kl_context *kl, long max_n,
                                   unsigned long long seed)
{
    struct kl_err *e = &kl->err;
    struct kl_rng rng;
    enum kl_status st;
    memset(s, 0, sizeof *s);
    s->kl = kl;
    s->cap = (size_t)max_n + GUARD;
    if (s->cap * 4 > kl->info.max_alloc)
        return kl_fail(e, KL_ERR_NO_MEMORY,
                       "N=%ld needs %.1f MiB per buffer, more than the device's largest "
                       "allocation (%.1f MiB); use a smaller N",
                       max_n, s->cap * 4 / 1048576.0, kl->info.max_alloc / 1048576.0);
    if ((st = kl_device_fits(kl, s->cap * 8.0, "the source and destination", e)) != KL_OK)
        return st;
    if ((st = kl_host_fits(s->cap * 12.0, "the source, its poison and read-back", e)) != KL_OK)
        return st;
    s->src = malloc(s->cap * 4);
    s->poison = malloc(s->cap * 4);
    s->out = malloc(s->cap * 4);
    if (!s->src || !s->poison || !s->out)
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory for N=%ld", max_n);
    /* Random words, so compressing memory systems cannot shortcut the copy; the
     * poison is their complement, so no unwritten element can pass. */
    kl_rng_seed(&rng, seed);
    for (size_t i = 0; i < s->cap; i++) {
        s->src[i] = (uint32_t)kl_rng_next(&rng);
        s->poison[i] = ~s->src[i];
    }
    if ((st = kl->ops->alloc(kl->dev, s->cap * 4, &s->dsrc, e)) != KL_OK ||
        (st = kl->ops->alloc(kl->dev, s->cap * 4, &s->ddst, e)) != KL_OK ||
        (st = kl->ops->write(kl->dev, s->dsrc, s->src, s->cap * 4, e)) != KL_OK)
        return st;
    return KL_OK;
}

/* The copy of N elements must equal the source; the guard must be untouched. */
static int verify(const struct copy_session *s, long n, char *note, size_t len)
{
    size_t end = (size_t)n + GUARD <= s->cap ? (size_t)n + GUARD : s->cap;
    for (size_t i = 0; i < end; i++) {
        uint32_t want = i < (size_t)n ? s->src[i] : s->poison[i];
        if (s->out[i] != want) {
            snprintf(note, len,
                     i < (size_t)n ? "element %zu of %ld: got 0x%08x, want 0x%08x"
                                   : "wrote past the end: element %zu (N=%ld) became 0x%08x, "
                                     "was 0x%08x",
                     i, n, s->out[i], want);
            return 0;
        }
    }
    snprintf(note, len, "all %ld elements copied exactly; %zu guard elements untouched", n,
             end - (size_t)n);
    return 1;
}

/* The interface's arguments: src, dst, N. */
static void copy_args(const struct copy_session *s, long n, struct kl_launch *l)
{
    l->nargs = 3;
    l->args[0] = (struct kl_arg){KL_ARG_BUF, {.buf = s->dsrc}};
    l->args[1] = (struct kl_arg){KL_ARG_BUF, {.buf = s->ddst}};
    l->args[2] = (struct kl_arg){KL_ARG_INT, {.i = (int)n}};
}

/* Runs l once on a poisoned destination, verifies the copy of n words, then times l. */
static enum kl_status copy_launch(struct copy_session *s, struct kl_launch *l, long n,
                                  const struct kl_protocol *proto, struct kl_result *res)
{
    struct kl_context *kl = s->kl;
    size_t bytes = ((size_t)n + GUARD <= s->cap ? (size_t)n + GUARD : s->cap) * 4;
    struct kl_stats stats;
    enum kl_status st;
    double dummy;
    if ((st = kl->ops->write(kl->dev, s->ddst, s->poison, s->cap * 4, &kl->err)) != KL_OK ||
        (st = kl_launch_timed(l, &dummy, &kl->err)) != KL_OK ||
        (st = kl->ops->read(kl->dev, s->ddst, s->out, bytes, &kl->err)) != KL_OK)
        return st;
    if (!verify(s, n, res->note, sizeof res->note)) {
        res->status = KL_RESULT_FAILED;
        return KL_OK;
    }
    if ((st = kl_measure(kl, proto, kl_launch_timed, l, &stats, &kl->err)) != KL_OK)
        return st;
    res->status = KL_RESULT_VERIFIED;
    kl_result_set_stats(res, &stats);
    return KL_OK;
}

/*
 * The article's CUDA kernel where it cannot run as written: on another
 * backend, or where N is not a multiple of BS·ILP (it would read and write
 * past the end). 1, with res skipped and saying why; else 0.
 */
static int seed_skipped(struct kl_context *kl, const struct kl_copy_rung *r, long n, size_t bs,
                        size_t ilp, struct kl_result *res)
{
    if (kl_kernel_elsewhere(kl, r->file)) {
        res->status = KL_RESULT_SKIPPED;
        snprintf(res->note, sizeof res->note,
                 "the article's CUDA kernel as written: runs with --backend cuda");
        return 1;
    }
    if (n % (long)(bs * ilp) != 0) {
        res->status = KL_RESULT_SKIPPED;
        snprintf(res->note, sizeof res->note,
                 "the article's kernel reads and writes past the end unless N is a "
                 "multiple of BS·ILP = %zu; ilp%zu is the fixed rung",
                 bs * ilp, ilp);
        return 1;
    }
    return 0;
}

/* A 1-D grid of groups work-groups of bs. */
static void copy_grid(size_t groups, size_t bs, struct kl_launch *l)
{
    l->local[0] = bs;
    l->global[0] = groups * bs;
    l->local[1] = l->local[2] = l->global[1] = l->global[2] = 1;
}

/* Rung r's build options: its parameters, and its fixed ILP where the rung sets one. */
static void copy_options(const struct kl_copy_rung *r, const int *values, char *out, size_t n)
{
    kl_params_options(r->params, values, KL_INT, out, n);
    if (r->ilp && !r->seed_cuda) {
        size_t used = strlen(out);
        snprintf(out + used, n - used, " -DILP=%d", r->ilp);
    }
}

/*
 * The seed's block (512/ILP) may exceed what the compiled kernel can run
 * with (NVIDIA's OpenCL allows 256 for some): then the largest power of
 * two it can, said in the row; a block the user set is kept as it is.
 */
static void fit_kernel(struct kl_context *kl, int bs_explicit, long n, size_t items, size_t ilp,
                       size_t *bs, struct kl_launch *l, struct kl_result *res)
{
    size_t limit = kl->ops->kernel_max_wg(l->kernel), fit = 1;
    if (bs_explicit || *bs <= limit)
        return;
    while (fit * 2 <= limit)
        fit *= 2;
    snprintf(res->config, sizeof res->config, "N=%ld BS=%zu ILP=%zu (BS %zu > kernel limit)", n,
             fit, ilp, *bs);
    *bs = fit;
    copy_grid(((items ? items : 1) + fit * ilp - 1) / (fit * ilp), fit, l);
}

/*
 * Runs rung r at N elements into res. Returns an error only for broken
 * devices or requests; a wrong copy is a FAILED result.
 */
static enum kl_status run_one(struct copy_session *s, const struct kl_copy_rung *r,
                              const int *values, int bs_explicit, long n,
                              const struct kl_protocol *proto, struct kl_result *res)
{
    struct kl_context *kl = s->kl;
    struct kl_launch l = {.kl = kl, .dims = 1};
    enum kl_status st;
    size_t bs = (size_t)kl_param_value(r->params, values, "BS");
    size_t ilp = (size_t)(r->ilp ? r->ilp : kl_param_value(r->params, values, "ILP"));
    size_t items = (size_t)n / (size_t)r->vec;
    size_t groups = ((items ? items : 1) + bs * ilp - 1) / (bs * ilp);

    if (r->seed_cuda) {
        if (seed_skipped(kl, r, n, bs, ilp, res))
            return KL_OK;
        groups = ((size_t)n / ilp + bs - 1) / bs; /* the article's iDivUp(N / ILP, BLOCKSIZE) */
    }
    copy_grid(groups, bs, &l);
    copy_options(r, values, res->options, sizeof res->options);
    snprintf(res->config, sizeof res->config, "N=%ld BS=%zu ILP=%zu", n, bs, ilp);
    res->x = (double)n;
    res->bytes = 2.0 * 4.0 * (double)n; /* the seed's 2·4·N */
    if ((st = kl_launch_check(&l, r->name, &kl->err)) != KL_OK ||
        (st = kl_kernel_get(kl, r->file, r->seed_cuda ? "ILPKernel" : "copy", res->options,
                            &l.kernel, &res->build_s)) != KL_OK)
        return st;
    fit_kernel(kl, bs_explicit, n, items, ilp, &bs, &l, res);
    if ((st = kl_launch_check(&l, r->name, &kl->err)) != KL_OK)
        return st;
    copy_args(s, n, &l);
    if (r->seed_cuda) {
        l.nargs = 4;
        l.args[2] = (struct kl_arg){KL_ARG_INT, {.i = (int)ilp}};
        l.args[3] = (struct kl_arg){KL_ARG_INT, {.i = (int)n}};
    }
    return copy_launch(s, &l, n, proto, res);
}

/* A ladder's state: the session, the request and the N of the sweep's current step. */
struct copy_ladder {
    const struct kl_copy_request *req;
    struct copy_session s;
    long n;
};

/* The article's CUDA kernel joins the default ladder and the sweep on CUDA only. */
static int copy_listed(void *self, int i)
{
    const struct copy_ladder *L = self;
    return (!L->req->sweep || rungs[i].vec == 1) && !kl_kernel_elsewhere(L->s.kl, rungs[i].file);
}

static void copy_describe(void *self, int i, struct kl_result *res)
{
    const struct copy_ladder *L = self;
    (void)i;
    res->x = (double)L->n; /* skipped cells too: the sweep's matrix keeps them in their row */
}

static long ilp_of(const struct kl_copy_rung *r, const int *values)
{
    return r->ilp ? r->ilp : kl_param_value(r->params, values, "ILP");
}

/* ILP larger than N: an error where the user chose the rung or its ILP (a skip otherwise). */
static enum kl_status copy_check(void *self, int i, const int *values, struct kl_err *e)
{
    const struct copy_ladder *L = self;
    long ilp = ilp_of(&rungs[i], values);
    if (!L->req->sweep && ilp > L->req->n)
        return kl_fail(e, KL_ERR_ARG,
                       "rung %s copies ILP=%ld elements per work-item, more than N=%ld; use "
                       "a larger N or a smaller ILP",
                       rungs[i].name, ilp, L->req->n);
    return KL_OK;
}

static enum kl_status copy_run(void *self, int i, const int *values,
                               const struct kl_protocol *proto, struct kl_result *res)
{
    struct copy_ladder *L = self;
    const struct kl_copy_rung *r = &rungs[i];
    long ilp = ilp_of(r, values);
    int given[KL_MAX_PARAMS];
    unsigned mask = 0;
    if (ilp > L->n) {
        res->status = KL_RESULT_SKIPPED;
        snprintf(res->config, sizeof res->config, "N=%ld ILP=%ld", L->n, ilp);
        snprintf(res->note, sizeof res->note,
                 "copies ILP=%ld elements per work-item, more than N=%ld", ilp, L->n);
        return KL_OK;
    }
    /* BS (the first parameter) set by the user is kept even beyond the kernel's limit. */
    kl_params_resolve(r->name, r->params, L->req->params, L->req->nparams, given, &mask,
                      &L->s.kl->err);
    return run_one(&L->s, r, values, (mask & 1u) != 0, L->n, proto, res);
}

/* ---- the user's kernels: copy(src, dst, N) of 32-bit words ------------------ */

static long long copy_size(void *self, int i)
{
    const struct copy_ladder *L = self;
    (void)i;
    return L->n;
}

static void user_args(void *self, const struct kl_user_rung *u, struct kl_launch *l)
{
    const struct copy_ladder *L = self;
    (void)u;
    copy_args(&L->s, L->n, l);
}

static enum kl_status user_run(void *self, struct kl_launch *l, const struct kl_protocol *proto,
                               struct kl_result *res)
{
    struct copy_ladder *L = self;
    res->bytes = 2.0 * 4.0 * (double)L->n;
    res->x = (double)L->n;
    snprintf(res->config, sizeof res->config, "N=%ld", L->n);
    return copy_launch(&L->s, l, L->n, proto, res);
}

static const struct kl_user_iface user_iface = {
    .signature = "copy(global const uint *src, global uint *dst, int N)",
    .nsizes = 1,
    .size_names = {"N"},
    .size = copy_size,
    .args = user_args,
    .run = user_run,
};

/* A request the ladder can take: a valid protocol, N within 32-bit indexing, a sweep from 512. */
static enum kl_status check_request(const struct kl_copy_request *req, long max_n, struct kl_err *e)
{
    enum kl_status st;
    if ((st = kl_protocol_check(&req->protocol, e)) != KL_OK)
        return st;
    if (max_n < 1 || max_n > INT32_MAX - GUARD)
        return kl_fail(e, KL_ERR_ARG, "N must be between 1 and %d (got %ld)", INT32_MAX - GUARD,
                       max_n);
    if (req->sweep && max_n < 512)
        return kl_fail(e, KL_ERR_ARG, "the sweep starts at N=512; --max-n %ld is below it", max_n);
    return KL_OK;
}

/* The report's sizes, counts and reference. */
static void report_head(struct kl_report *rep, const struct kl_copy_request *req, long max_n)
{
    snprintf(rep->sizes, sizeof rep->sizes, req->sweep ? "N=512..%ld" : "N=%ld", max_n);
    snprintf(rep->size_json, sizeof rep->size_json, "\"N\": %ld, \"sweep\": %s", max_n,
             req->sweep ? "true" : "false");
    rep->flops = 0;
    rep->bytes = 8.0 * (double)max_n;
    snprintf(rep->reference, sizeof rep->reference,
             "the source words, exactly; %d guard words past N must stay untouched", GUARD);
    snprintf(rep->inputs, sizeof rep->inputs, "random 32-bit words, seed %llu", rep->seed);
    rep->show_config = 1;
    rep->ladder = !req->sweep;
}

/* The N of each step: the sweep's powers of two from 512 (the seed's list), then max_n itself. */
static int step_sizes(const struct kl_copy_request *req, long max_n, long *sizes)
{
    int nsizes = 0;
    for (long n = 512; req->sweep && n <= max_n && nsizes < 39; n *= 2)
        sizes[nsizes++] = n;
    if (nsizes == 0 || sizes[nsizes - 1] != max_n)
        sizes[nsizes++] = max_n;
    return nsizes;
}

enum kl_status kl_copy_ladder(struct kl_context *kl, const struct kl_copy_request *req,
                              struct kl_report *rep)
{
    struct copy_ladder L = {.req = req, .s = {.kl = kl}, .n = req->sweep ? req->max_n : req->n};
    struct kl_workload w = {.table = &table,
                            .kl = kl,
                            .type = KL_INT,
                            .self = &L,
                            .named_is_users = 1,
                            .listed = copy_listed,
                            .describe = copy_describe,
                            .check = copy_check,
                            .run = copy_run,
                            .user = &user_iface};
    struct kl_ladder_args a = KL_LADDER_ARGS(req);
    int chosen[KL_MAX_RUNGS], nchosen;
    struct kl_err *e = &kl->err;
    enum kl_status st;
    long max_n = L.n, sizes[40];

    if ((st = check_request(req, max_n, e)) != KL_OK ||
        (st = kl_ladder_begin(&w, &a, chosen, &nchosen, e)) != KL_OK)
        return st;
    kl_ladder_report(rep, kl, "copy", KL_INT, req->seed, &req->protocol);
    report_head(rep, req, max_n);
    int nsizes = step_sizes(req, max_n, sizes);
    if ((st = session_init(&L.s, kl, max_n, req->seed)) != KL_OK)
        goto done;
    for (int k = 0; k < nsizes && st == KL_OK; k++) {
        L.n = sizes[k];
        st = kl_ladder_rungs(&w, &a, chosen, nchosen, k * nchosen, nsizes * nchosen, rep, e);
    }
done:
    kl_report_finish(rep);
    session_free(&L.s);
    return st;
}
