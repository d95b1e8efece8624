/*
 * Copy workload: the rung table of seed 003's ILP ladder, the sweep over N,
 * and verification of every copy (all elements, plus guard elements past
 * the end that must stay untouched).
 */
#include "workloads/copy.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
#define RUNG_COUNT ((int)(sizeof rungs / sizeof *rungs))

int kl_copy_rung_count(void)
{
    return RUNG_COUNT;
}

const struct kl_copy_rung *kl_copy_rung_at(int i)
{
    return i >= 0 && i < RUNG_COUNT ? &rungs[i] : NULL;
}

const struct kl_copy_rung *kl_copy_rung_find(const char *name)
{
    for (int i = 0; i < RUNG_COUNT; i++)
        if (strcmp(rungs[i].name, name) == 0)
            return &rungs[i];
    return NULL;
}

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

/*
 * Runs rung r at N elements into res. Returns an error only for broken
 * devices or requests; a wrong copy is a FAILED result.
 */
static enum kl_status run_one(struct copy_session *s, const struct kl_copy_rung *r,
                              const int *values, int bs_explicit, long n,
                              const struct kl_protocol *proto, struct kl_result *res)
{
    struct kl_context *kl = s->kl;
    struct kl_launch l = {.kl = kl, .nargs = 3, .dims = 1};
    struct kl_stats stats;
    enum kl_status st;
    double dummy;
    size_t bs = (size_t)kl_param_value(r->params, values, "BS");
    size_t ilp = (size_t)(r->ilp ? r->ilp : kl_param_value(r->params, values, "ILP"));
    size_t items = (size_t)n / (size_t)r->vec;
    size_t groups = ((items ? items : 1) + bs * ilp - 1) / (bs * ilp);

    if (r->seed_cuda) {
        /* The article's grid: iDivUp(N / ILP, BLOCKSIZE) blocks. */
        if (strcmp(kl->ops->name, "cuda") != 0) {
            res->status = KL_RESULT_SKIPPED;
            snprintf(res->note, sizeof res->note,
                     "the article's CUDA kernel as written: runs with --backend cuda");
            return KL_OK;
        }
        if (n % (long)(bs * ilp) != 0) {
            res->status = KL_RESULT_SKIPPED;
            snprintf(res->note, sizeof res->note,
                     "the article's kernel reads and writes past the end unless N is a "
                     "multiple of BS·ILP = %zu; ilp%zu is the fixed rung",
                     bs * ilp, ilp);
            return KL_OK;
        }
        groups = ((size_t)n / ilp + bs - 1) / bs;
    }
    l.local[0] = bs;
    l.global[0] = groups * bs;
    l.local[1] = l.local[2] = l.global[1] = l.global[2] = 1;
    kl_params_options(r->params, values, KL_INT, res->options, sizeof res->options);
    if (r->ilp && !r->seed_cuda) {
        size_t used = strlen(res->options);
        snprintf(res->options + used, sizeof res->options - used, " -DILP=%d", r->ilp);
    }
    snprintf(res->config, sizeof res->config, "N=%ld BS=%zu ILP=%zu", n, bs, ilp);
    res->x = (double)n;
    res->bytes = 2.0 * 4.0 * (double)n; /* the seed's 2·4·N */
    if ((st = kl_launch_check(&l, r->name, &kl->err)) != KL_OK ||
        (st = kl_kernel_get(kl, r->file, r->seed_cuda ? "ILPKernel" : "copy", res->options,
                            &l.kernel, &res->build_s)) != KL_OK)
        return st;
    /* The seed's block (512/ILP) may exceed what the compiled kernel can run with (NVIDIA's
     * OpenCL allows 256 for some): then the largest power of two it can, said in the row. */
    size_t limit = kl->ops->kernel_max_wg(l.kernel);
    if (!bs_explicit && bs > limit) {
        size_t fit = 1;
        while (fit * 2 <= limit)
            fit *= 2;
        snprintf(res->config, sizeof res->config, "N=%ld BS=%zu ILP=%zu (BS %zu > kernel limit)", n,
                 fit, ilp, bs);
        bs = fit;
        groups = ((items ? items : 1) + bs * ilp - 1) / (bs * ilp);
        l.local[0] = bs;
        l.global[0] = groups * bs;
    }
    if ((st = kl_launch_check(&l, r->name, &kl->err)) != KL_OK)
        return st;
    l.args[0] = (struct kl_arg){KL_ARG_BUF, {.buf = s->dsrc}};
    l.args[1] = (struct kl_arg){KL_ARG_BUF, {.buf = s->ddst}};
    l.args[2] = (struct kl_arg){KL_ARG_INT, {.i = (int)n}};
    if (r->seed_cuda) {
        l.nargs = 4;
        l.args[2] = (struct kl_arg){KL_ARG_INT, {.i = (int)ilp}};
        l.args[3] = (struct kl_arg){KL_ARG_INT, {.i = (int)n}};
    }

    size_t bytes = ((size_t)n + GUARD <= s->cap ? (size_t)n + GUARD : s->cap) * 4;
    if ((st = kl->ops->write(kl->dev, s->ddst, s->poison, s->cap * 4, &kl->err)) != KL_OK ||
        (st = kl_launch_timed(&l, &dummy, &kl->err)) != KL_OK ||
        (st = kl->ops->read(kl->dev, s->ddst, s->out, bytes, &kl->err)) != KL_OK)
        return st;
    if (!verify(s, n, res->note, sizeof res->note)) {
        res->status = KL_RESULT_FAILED;
        return KL_OK;
    }
    if ((st = kl_measure(proto, kl_launch_timed, &l, &stats, &kl->err)) != KL_OK)
        return st;
    res->status = KL_RESULT_VERIFIED;
    kl_result_set_stats(res, &stats);
    return KL_OK;
}

enum kl_status kl_copy_ladder(struct kl_context *kl, const struct kl_copy_request *req,
                              struct kl_report *rep)
{
    const struct kl_copy_rung *chosen[sizeof rungs / sizeof *rungs];
    const struct kl_param_def *lists[sizeof rungs / sizeof *rungs];
    int nchosen = 0;
    struct kl_err *e = &kl->err;
    struct copy_session s;
    enum kl_status st;
    long max_n = req->sweep ? req->max_n : req->n;

    if ((st = kl_protocol_check(&req->protocol, e)) != KL_OK)
        return st;
    if (max_n < 1 || max_n > INT32_MAX - GUARD)
        return kl_fail(e, KL_ERR_ARG, "N must be between 1 and %d (got %ld)", INT32_MAX - GUARD,
                       max_n);
    if (req->sweep && max_n < 512)
        return kl_fail(e, KL_ERR_ARG, "the sweep starts at N=512; --max-n %ld is below it", max_n);
    for (int j = 0; j < req->nrungs; j++)
        if (!kl_copy_rung_find(req->rungs[j])) {
            kl_fail(e, KL_ERR_ARG, "unknown copy rung \"%s\"; rungs are:", req->rungs[j]);
            for (int i = 0; i < RUNG_COUNT; i++)
                kl_err_append(e, " %s", rungs[i].name);
            return KL_ERR_ARG;
        }
    for (int i = 0; i < RUNG_COUNT; i++) {
        /* The article's CUDA kernel joins the default ladder and sweep on CUDA only. */
        int want = req->nrungs == 0 && (!req->sweep || rungs[i].vec == 1) &&
                   (!rungs[i].seed_cuda || strcmp(kl->ops->name, "cuda") == 0);
        for (int j = 0; j < req->nrungs; j++)
            want |= strcmp(req->rungs[j], rungs[i].name) == 0;
        if (want) {
            lists[nchosen] = rungs[i].params;
            chosen[nchosen++] = &rungs[i];
        }
    }
    if ((st = kl_params_check_known(req->params, req->nparams, lists, nchosen, e)) != KL_OK)
        return st;
    /* ILP must fit N: an explicit rung that cannot is an error, a default one is skipped. */
    for (int i = 0; i < nchosen && !req->sweep; i++) {
        int values[KL_MAX_PARAMS];
        unsigned mask;
        const struct kl_copy_rung *r = chosen[i];
        if ((st = kl_params_resolve(r->name, r->params, req->params, req->nparams, values, &mask,
                                    e)) != KL_OK)
            return st;
        /* ILP larger than N is an error where the user asked for it (the rung by name, or
         * its ILP), and a skipped rung in the default ladder. */
        long ilp = r->ilp ? r->ilp : kl_param_value(r->params, values, "ILP");
        int ilp_set = kl_param_index(r->params, "ILP") >= 0 &&
                      (mask >> kl_param_index(r->params, "ILP") & 1u);
        if (ilp > req->n && (req->nrungs > 0 || ilp_set))
            return kl_fail(e, KL_ERR_ARG,
                           "rung %s copies ILP=%ld elements per work-item, more than N=%ld; use "
                           "a larger N or a smaller ILP",
                           r->name, ilp, req->n);
    }

    rep->workload = "copy";
    snprintf(rep->sizes, sizeof rep->sizes, req->sweep ? "N=512..%ld" : "N=%ld", max_n);
    snprintf(rep->size_json, sizeof rep->size_json, "\"N\": %ld, \"sweep\": %s", max_n,
             req->sweep ? "true" : "false");
    rep->type = KL_INT;
    rep->seed = req->seed;
    rep->flops = 0;
    rep->bytes = 8.0 * (double)max_n;
    snprintf(rep->reference, sizeof rep->reference,
             "the source words, exactly; %d guard words past N must stay untouched", GUARD);
    rep->protocol = req->protocol;
    rep->device = kl->info;
    rep->backend = kl->ops->name;
    rep->show_config = 1;
    rep->ladder = !req->sweep;
    kl_utc_now(rep->date, sizeof rep->date);
    kl_report_load_ceilings(rep);

    /* The sweep: powers of two from 512 (the seed's list), then max_n itself. */
    long sizes[40];
    int nsizes = 0;
    for (long n = 512; req->sweep && n <= max_n && nsizes < 39; n *= 2)
        sizes[nsizes++] = n;
    if (nsizes == 0 || sizes[nsizes - 1] != max_n)
        sizes[nsizes++] = max_n;

    if ((st = session_init(&s, kl, max_n, req->seed)) != KL_OK)
        goto done;
    for (int k = 0; k < nsizes; k++) {
        long n = sizes[k];
        for (int i = 0; i < nchosen; i++) {
            const struct kl_copy_rung *r = chosen[i];
            int values[KL_MAX_PARAMS];
            unsigned mask;
            kl_progress_step(k * nchosen + i, nsizes * nchosen, "copy %s N=%ld", r->name, n);
            struct kl_result *res = kl_report_add(rep, r->name, r->summary);
            if (!res) {
                st = kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory");
                goto done;
            }
            res->x = (double)n; /* skipped cells too: the matrix keeps them in their row */
            kl_params_resolve(r->name, r->params, req->params, req->nparams, values, &mask, e);
            long ilp = r->ilp ? r->ilp : kl_param_value(r->params, values, "ILP");
            if (ilp > n) {
                res->status = KL_RESULT_SKIPPED;
                snprintf(res->config, sizeof res->config, "N=%ld ILP=%ld", n, ilp);
                snprintf(res->note, sizeof res->note,
                         "copies ILP=%ld elements per work-item, more than N=%ld", ilp, n);
                continue;
            }
            st = run_one(&s, r, values, (mask & 1u) != 0, n, &req->protocol, res);
            if (st != KL_OK)
                snprintf(res->note, sizeof res->note, "%s", e->msg);
            if (st == KL_ERR_UNSUPPORTED && !mask) {
                res->status = KL_RESULT_SKIPPED;
                continue;
            }
            if (st != KL_OK)
                goto done;
        }
    }
    st = KL_OK;
done:
    kl_report_finish(rep);
    session_free(&s);
    return st;
}
