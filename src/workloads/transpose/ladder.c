/*
 * The transpose ladder's driver: the matrix and the check of its transpose;
 * one rung's launch, built, run once, verified and timed, then verified
 * again; the host rung; the user's kernels; the peers; the entry.
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
#include "workloads/transpose/transpose.h"

#define GUARD 256 /* elements past the output that a correct kernel never writes */
#define BLOCK 64  /* the host's tiles, for its cache */

/*
 * The problem and its buffers: what the engine's callbacks share. Out of
 * place, a is uploaded once and b (n × m, then the guard band) is poisoned
 * before each verified run; in place, b is the matrix, uploaded before each.
 */
struct transpose {
    struct kl_context *kl;
    int m, n, in_place;
    enum kl_type type;
    size_t es, count; /* bytes per element; m·n */
    void *a;          /* m × n, as generated */
    void *fill;       /* what b holds before a verified run: count + GUARD elements */
    void *got;        /* b read back, count + GUARD elements */
    struct kl_buf *da, *db;
};

static const struct kl_transpose_rung *rung(int i)
{
    return kl_transpose_rung_at(i);
}

/* ---- the matrix and the check of its transpose ------------------------------- */

/* b (n × m) = aᵀ, element by element in BLOCK × BLOCK tiles: the host rung. */
static void host_transpose(const char *a, char *b, int m, int n, size_t es)
{
    for (int i0 = 0; i0 < m; i0 += BLOCK)
        for (int j0 = 0; j0 < n; j0 += BLOCK)
            for (int i = i0; i < i0 + BLOCK && i < m; i++)
                for (int j = j0; j < j0 + BLOCK && j < n; j++)
                    memcpy(b + ((size_t)j * m + i) * es, a + ((size_t)i * n + j) * es, es);
}

/* The square matrix b transposed where it lies: the host rung in place. */
static void host_in_place(char *b, int n, size_t es)
{
    char t[8];
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            char *x = b + ((size_t)i * n + j) * es, *y = b + ((size_t)j * n + i) * es;
            memcpy(t, x, es);
            memcpy(x, y, es);
            memcpy(y, t, es);
        }
}

/*
 * Checks got (n × m) against aᵀ bit for bit, a transpose being a copy: res
 * FAILED with the first elements that differ and how many, else VERIFIED.
 */
static void judge(const struct transpose *p, const void *got, struct kl_result *res)
{
    const char *a = p->a, *g = got;
    size_t bad = 0, used = 0;
    for (int i = 0; i < p->m; i++)
        for (int j = 0; j < p->n; j++) {
            size_t at = (size_t)j * p->m + i;
            if (memcmp(g + at * p->es, a + ((size_t)i * p->n + j) * p->es, p->es) == 0)
                continue;
            if (bad++ == 0)
                used = (size_t)snprintf(res->note, sizeof res->note, "b[%d][%d]", j, i);
            else if (bad <= 3 && used < sizeof res->note)
                used += (size_t)snprintf(res->note + used, sizeof res->note - used, ", b[%d][%d]",
                                         j, i);
            if (bad <= 3 && used < sizeof res->note)
                used += (size_t)snprintf(res->note + used, sizeof res->note - used,
                                         " = %.9g, not a[%d][%d] = %.9g", kl_get(p->type, got, at),
                                         i, j, kl_get(p->type, p->a, (size_t)i * p->n + j));
        }
    if (bad) {
        char first[sizeof res->note];
        snprintf(first, sizeof first, "%s", res->note);
        res->status = KL_RESULT_FAILED;
        snprintf(res->note, sizeof res->note, "%zu of %zu elements are not a's transpose: %.400s",
                 bad, p->count, first);
        return;
    }
    res->status = KL_RESULT_VERIFIED;
    snprintf(res->note, sizeof res->note, "%zu elements are a's transpose bit for bit%s", p->count,
             p->in_place ? ", in place" : "");
}

/* ---- the host rung ------------------------------------------------------------ */

static enum kl_status host_once(void *arg, double *seconds, struct kl_err *e)
{
    struct transpose *p = arg;
    double t0 = kl_now();
    (void)e;
    if (p->in_place)
        host_in_place(p->got, p->n, p->es);
    else
        host_transpose(p->a, p->got, p->m, p->n, p->es);
    *seconds = kl_now() - t0;
    return KL_OK;
}

static enum kl_status run_host(struct transpose *p, const struct kl_protocol *proto,
                               struct kl_result *res)
{
    struct kl_stats stats;
    double dummy;
    memcpy(p->got, p->fill, p->count * p->es);
    enum kl_status st = host_once(p, &dummy, &p->kl->err);
    judge(p, p->got, res);
    if (st != KL_OK || res->status != KL_RESULT_VERIFIED)
        return st;
    if ((st = kl_measure(NULL, proto, host_once, p, &stats, &p->kl->err)) != KL_OK)
        return st;
    kl_result_set_stats(res, &stats);
    return KL_OK;
}

/* ---- the device rungs ------------------------------------------------------- */

/* " -DIN_PLACE=0|1": every kernel's, the user's too. */
static void place_option(void *self, char *out, size_t n)
{
    struct transpose *p = self;
    size_t used = strlen(out);
    snprintf(out + used, n - used, " -DIN_PLACE=%d", p->in_place);
}

/* The TMA rung's dynamic shared memory: TILES boxes of 128 / es rows of 128 bytes each way,
   and 1 KiB to align them. */
static size_t tma_shared(const struct kl_transpose_rung *r, const int *values, size_t es)
{
    return 2 * (size_t)kl_param_value(r->params, values, "TILES") * (128 / es) * 128 + 1024;
}

/* The interface's arguments, every rung's and the user's: a, b, m, n (a is b in place). */
static void set_args(const struct transpose *p, struct kl_launch *l)
{
    l->nargs = 4;
    l->args[0] = (struct kl_arg){KL_ARG_BUF, {.buf = p->in_place ? p->db : p->da}};
    l->args[1] = (struct kl_arg){KL_ARG_BUF, {.buf = p->db}};
    l->args[2] = (struct kl_arg){KL_ARG_INT, {.i = p->m}};
    l->args[3] = (struct kl_arg){KL_ARG_INT, {.i = p->n}};
}

/*
 * The TMA rung's arguments: a's and b's tensor maps (rows of bytes, boxes of 128 / es rows by
 * 128 bytes), m, n, and the dynamic shared memory of its TILES boxes in and out.
 */
static void tma_args(const struct transpose *p, const struct kl_transpose_rung *r,
                     const int *values, struct kl_launch *l)
{
    unsigned side = (unsigned)(128 / p->es);
    uint64_t arow = (uint64_t)p->n * p->es, brow = (uint64_t)p->m * p->es;
    l->nargs = 5;
    l->args[0] = (struct kl_arg){
        KL_ARG_TENSOR_MAP, {.map = {p->da, (uint64_t)p->m, arow, arow, side, 128, KL_MAP_U8}}};
    l->args[1] = (struct kl_arg){
        KL_ARG_TENSOR_MAP, {.map = {p->db, (uint64_t)p->n, brow, brow, side, 128, KL_MAP_U8}}};
    l->args[2] = (struct kl_arg){KL_ARG_INT, {.i = p->m}};
    l->args[3] = (struct kl_arg){KL_ARG_INT, {.i = p->n}};
    l->args[4] = (struct kl_arg){KL_ARG_LOCAL, {.local_bytes = tma_shared(r, values, p->es)}};
}

/* b set to fill, one launch, b read back and judged (the guard band first) into res. */
static enum kl_status run_checked(struct transpose *p, struct kl_launch *l, struct kl_result *res)
{
    struct kl_context *kl = p->kl;
    size_t total = (p->count + GUARD) * p->es;
    double dummy;
    enum kl_status st;
    if ((st = kl->ops->write(kl->dev, p->db, p->fill, total, &kl->err)) != KL_OK ||
        (st = kl_launch_timed(l, &dummy, &kl->err)) != KL_OK ||
        (st = kl->ops->read(kl->dev, p->db, p->got, total, &kl->err)) != KL_OK)
        return st;
    if (memcmp((char *)p->got + p->count * p->es, (char *)p->fill + p->count * p->es,
               GUARD * p->es) != 0) {
        res->status = KL_RESULT_FAILED;
        snprintf(res->note, sizeof res->note,
                 "the kernel wrote past the end of its %zu elements (into the guard band)",
                 p->count);
        return KL_OK;
    }
    judge(p, p->got, res);
    return KL_OK;
}

/*
 * Verified, timed by proto, then verified once more from the start: a kernel right only on
 * its first launch fails there (in place, the timed launches have transposed b back and forth).
 */
static enum kl_status run_verified(struct transpose *p, struct kl_launch *l,
                                   const struct kl_protocol *proto, struct kl_result *res)
{
    struct kl_stats stats;
    struct kl_result again;
    enum kl_status st = run_checked(p, l, res);
    if (st != KL_OK || res->status != KL_RESULT_VERIFIED)
        return st;
    if ((st = kl_measure(p->kl, proto, kl_launch_timed, l, &stats, &p->kl->err)) != KL_OK) {
        res->status = KL_RESULT_FAILED;
        return st;
    }
    kl_result_set_stats(res, &stats);
    memset(&again, 0, sizeof again);
    if ((st = run_checked(p, l, &again)) != KL_OK)
        return st;
    if (again.status != KL_RESULT_VERIFIED) {
        res->status = KL_RESULT_FAILED;
        snprintf(res->note, sizeof res->note, "verified once, but after the timed launches: %.400s",
                 again.note);
    }
    return KL_OK;
}

/* Rung r's launch (values v): 2-D work-groups, the groups side by side along the first axis. */
static void geometry(const struct transpose *p, const struct kl_transpose_rung *r, const int *v,
                     struct kl_launch *l, long *groups)
{
    size_t local[2];
    kl_transpose_geometry(r, v, p->m, p->n, p->es, local, groups);
    l->dims = 2;
    l->local[0] = local[0];
    l->local[1] = local[1];
    l->global[0] = (size_t)*groups * local[0];
    l->global[1] = local[1];
}

static enum kl_status run_device(struct transpose *p, const struct kl_transpose_rung *r,
                                 const int *values, const struct kl_protocol *proto,
                                 struct kl_result *res)
{
    struct kl_context *kl = p->kl;
    struct kl_launch l = {.kl = kl};
    long groups;
    kl_params_options(r->params, values, p->type, res->options, sizeof res->options);
    place_option(p, res->options, sizeof res->options);
    enum kl_status st =
        kl_kernel_get(kl, r->file, "transpose", res->options, &l.kernel, &res->build_s);
    if (st != KL_OK)
        return st;
    geometry(p, r, values, &l, &groups);
    if (r->tma)
        tma_args(p, r, values, &l);
    else
        set_args(p, &l);
    if ((st = kl_launch_check(&l, r->name, &kl->err)) != KL_OK)
        return st;
    st = run_verified(p, &l, proto, res);
    if (st == KL_OK && res->status == KL_RESULT_VERIFIED)
        snprintf(res->note + strlen(res->note), sizeof res->note - strlen(res->note),
                 "; %ld work-group%s of %zu x %zu", groups, groups == 1 ? "" : "s", l.local[0],
                 l.local[1]);
    return st;
}

static enum kl_status transpose_run(void *self, int i, const int *values,
                                    const struct kl_protocol *proto, struct kl_result *res)
{
    struct transpose *p = self;
    return rung(i)->file ? run_device(p, rung(i), values, proto, res) : run_host(p, proto, res);
}

static const struct kl_param_multiple multiples[] = {{"TILE", "ROWS"}, {NULL, NULL}};

static enum kl_status transpose_check(void *self, int i, const int *values, struct kl_err *e)
{
    struct transpose *p = self;
    const struct kl_transpose_rung *r = rung(i);
    struct kl_launch l = {.kl = p->kl};
    long groups;
    if (!r->file)
        return KL_OK;
    if (r->tma) {
        size_t need = tma_shared(r, values, p->es);
        geometry(p, r, values, &l, &groups);
        enum kl_status st = kl_launch_check(&l, r->name, e);
        if (st == KL_OK && need > kl_kernel_local_mem(p->kl, r->file))
            return kl_fail(e, KL_ERR_UNSUPPORTED,
                           "rung %s: %zu bytes of shared memory, the device has %llu", r->name,
                           need, (unsigned long long)kl_kernel_local_mem(p->kl, r->file));
        return st;
    }
    enum kl_status st = kl_params_check_multiples(r->name, r->params, values, multiples, e);
    if (st != KL_OK)
        return st;
    long tile = kl_param_value(r->params, values, "TILE");
    if (r->vector && tile * (long)p->es < 16)
        return kl_fail(e, KL_ERR_ARG, "rung %s: TILE=%ld is less than one 16-byte vector of %s",
                       r->name, tile, kl_type_name(p->type));
    geometry(p, r, values, &l, &groups);
    if ((st = kl_launch_check(&l, r->name, e)) != KL_OK)
        return st;
    unsigned long long local = (unsigned long long)(tile * (tile + 1)) * p->es;
    if (r->tiled && local > p->kl->info.local_mem)
        return kl_fail(e, KL_ERR_UNSUPPORTED,
                       "rung %s: a %ld x %ld tile needs up to %llu bytes of local memory, the "
                       "device has %llu",
                       r->name, tile, tile, local, (unsigned long long)p->kl->info.local_mem);
    return KL_OK;
}

/* Whether rung i runs here: the TMA rung on CUDA at compute capability 9.0, out of place,
   with rows of whole 16-byte pieces; every other rung anywhere. */
static int transpose_available(void *self, int i, char *why, size_t n)
{
    const struct transpose *p = self;
    const struct kl_device_info *d = &p->kl->info;
    if (!rung(i)->tma)
        return 1;
    if (kl_kernel_elsewhere(p->kl, rung(i)->file))
        snprintf(why, n, "CUDA C++: runs with --backend cuda");
    else if (!(d->cc_major == 9 && d->cc_minor == 0))
        snprintf(why, n,
                 "TMA tiles with 128-byte swizzle, built for sm_90a: compute capability "
                 "9.0 only (this is %d.%d)",
                 d->cc_major, d->cc_minor);
    else if (p->in_place)
        snprintf(why, n, "out of place only");
    else if ((size_t)p->m * p->es % 16 != 0 || (size_t)p->n * p->es % 16 != 0)
        snprintf(why, n,
                 "TMA needs rows of whole 16-byte pieces: M and N times %zu bytes (here "
                 "%zu and %zu)",
                 p->es, (size_t)p->m * p->es, (size_t)p->n * p->es);
    else
        return 1;
    return 0;
}

/* ---- the user's kernels: the same launch and check as a rung's --------------- */

static long long transpose_size(void *self, int i)
{
    struct transpose *p = self;
    return i == 0 ? p->m : p->n;
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
    .signature = "transpose(global const EL *a, global EL *b, int m, int n)",
    .nsizes = 2,
    .size_names = {"M", "N"},
    .size = transpose_size,
    .options = place_option,
    .args = user_args,
    .run = user_run,
};

/* ---- the peers: the same matrix, the same check ------------------------------ */

static enum kl_status run_peer(void *self, const char *peer, const struct kl_protocol *proto,
                               struct kl_report *rep)
{
    struct transpose *p = self;
    struct kl_context *kl = p->kl;
    char what[256];
    struct kl_stats stats;
    struct kl_err e;
    struct kl_transpose_problem problem = {p->type, p->m, p->n, p->in_place, p->a};
    struct kl_result *res = kl_peer_result(rep, peer, &kl->err);
    if (!res)
        return KL_ERR_NO_MEMORY;
    enum kl_status st =
        kl_peer_transpose(kl, peer, &problem, proto, p->got, &stats, what, sizeof what, &e);
    if (!kl_peer_row(res, st, &e, what))
        return KL_OK;
    judge(p, p->got, res);
    kl_peer_keep(res, &stats);
    return KL_OK;
}

/* ---- the entry -------------------------------------------------------------- */

/* The matrix (uniform values of the type), b's fill and the device's buffers. */
static enum kl_status transpose_data(struct transpose *p, unsigned long long seed, struct kl_err *e)
{
    struct kl_context *kl = p->kl;
    size_t bytes = p->count * p->es, total = (p->count + GUARD) * p->es;
    struct kl_rng rng;
    enum kl_status st;
    if ((st = kl_host_fits((double)bytes + 2.0 * total, "the matrix, its read-back and poison",
                           e)) != KL_OK)
        return st;
    p->a = malloc(bytes);
    p->fill = malloc(total);
    p->got = malloc(total);
    if (!p->a || !p->fill || !p->got)
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory for 3 x %zu bytes", bytes);
    kl_rng_seed(&rng, seed);
    kl_fill_uniform(p->type, p->a, p->count, &rng);
    kl_poison(p->type, p->fill, p->count + GUARD);
    if (p->in_place)
        memcpy(p->fill, p->a, bytes);
    if ((st = kl->ops->alloc(kl->dev, total, &p->db, e)) != KL_OK || p->in_place)
        return st;
    if ((st = kl->ops->alloc(kl->dev, bytes, &p->da, e)) != KL_OK)
        return st;
    return kl->ops->write(kl->dev, p->da, p->a, bytes, e);
}

static void transpose_free(struct transpose *p)
{
    p->kl->ops->release(p->da);
    p->kl->ops->release(p->db);
    free(p->a);
    free(p->fill);
    free(p->got);
}

/* An element type of 2, 4 or 8 bytes that the device holds. */
static enum kl_status check_type(const struct kl_context *kl, enum kl_type t, struct kl_err *e)
{
    if (t != KL_FLOAT && t != KL_DOUBLE && t != KL_HALF && t != KL_BF16)
        return kl_fail(e, KL_ERR_ARG, "transpose takes float, double, half or bf16, not %s",
                       kl_type_name(t));
    if (t == KL_DOUBLE && !kl->info.fp64)
        return kl_fail(e, KL_ERR_UNSUPPORTED, "this device has no double precision (cl_khr_fp64)");
    return KL_OK;
}

/* A request the kernels can take, refused at once with the reason otherwise. */
static enum kl_status check_request(struct kl_context *kl, const struct kl_transpose_request *req,
                                    struct kl_err *e)
{
    size_t es = kl_type_size(req->type);
    double bytes = (double)req->m * req->n * (double)es;
    if (req->m < 1 || req->n < 1)
        return kl_fail(e, KL_ERR_ARG, "--size %d,%d: transpose takes M x N of at least 1 x 1",
                       req->m, req->n);
    if ((double)req->m * req->n > 2147483647.0 - GUARD)
        return kl_fail(e, KL_ERR_ARG, "--size %d,%d: at most 2^31 - 257 elements", req->m, req->n);
    if (req->in_place && req->m != req->n)
        return kl_fail(e, KL_ERR_ARG, "--place in: a %dx%d matrix is not square", req->m, req->n);
    enum kl_status st = check_type(kl, req->type, e);
    if (st != KL_OK)
        return st;
    if (bytes + GUARD * (double)es > (double)kl->info.max_alloc)
        return kl_fail(e, KL_ERR_NO_MEMORY,
                       "%.1f MiB are more than the device's largest allocation (%.1f MiB)",
                       bytes / 1048576.0, kl->info.max_alloc / 1048576.0);
    st = kl_device_fits(kl, bytes * (req->in_place ? 1 : 2), "the matrices", e);
    if (st != KL_OK || (st = kl_peers_check("transpose", req->peers, req->npeers, e)) != KL_OK)
        return st;
    return kl_protocol_check(&req->protocol, e);
}

/* The report's sizes and counts: m·n elements read once and written once. */
static void transpose_report(struct kl_report *rep, struct kl_context *kl,
                             const struct kl_transpose_request *req)
{
    const char *place = req->in_place ? "in" : "out";
    kl_ladder_report(rep, kl, "transpose", req->type, req->seed, &req->protocol);
    snprintf(rep->sizes, sizeof rep->sizes, "M=%d N=%d place=%s", req->m, req->n, place);
    snprintf(rep->size_json, sizeof rep->size_json, "\"M\": %d, \"N\": %d, \"place\": \"%s\"",
             req->m, req->n, place);
    rep->flops = 0; /* nothing computed: the copy ceiling alone is its roof */
    rep->bytes = 2.0 * req->m * req->n * (double)kl_type_size(req->type);
    snprintf(rep->reference, sizeof rep->reference,
             "a's elements at their transposed places, bit for bit");
    snprintf(rep->inputs, sizeof rep->inputs, "a uniform in [-1, 1) as %s, seed %llu",
             kl_type_name(req->type), req->seed);
}

enum kl_status kl_transpose_ladder(struct kl_context *kl, const struct kl_transpose_request *req,
                                   struct kl_report *rep)
{
    struct kl_err *e = &kl->err;
    struct transpose p = {.kl = kl,
                          .m = req->m,
                          .n = req->n,
                          .in_place = req->in_place,
                          .type = req->type,
                          .es = kl_type_size(req->type),
                          .count = (size_t)req->m * (size_t)req->n};
    /* A rung named with --rung is the user's: its misfit is an error, not a skipped row. */
    struct kl_workload w = {.table = kl_transpose_rungs(),
                            .kl = kl,
                            .type = req->type,
                            .self = &p,
                            .named_is_users = 1,
                            .available = transpose_available,
                            .check = transpose_check,
                            .run = transpose_run,
                            .user = &user_iface};
    struct kl_ladder_args a = KL_LADDER_ARGS(req);
    int chosen[KL_MAX_RUNGS], nchosen;
    enum kl_status st;
    if ((st = check_request(kl, req, e)) != KL_OK ||
        (st = kl_ladder_begin(&w, &a, chosen, &nchosen, e)) != KL_OK)
        return st;
    if ((st = transpose_data(&p, req->seed, e)) != KL_OK)
        goto done;
    transpose_report(rep, kl, req);
    if ((st = kl_ladder_rungs(&w, &a, chosen, nchosen, 0,
                              nchosen + req->npeers * kl_cache_passes(&req->protocol), rep, e)) !=
        KL_OK)
        goto done;
    st = kl_ladder_peers(&req->protocol, req->peers, req->npeers, run_peer, &p, rep);
done:
    kl_report_finish(rep);
    transpose_free(&p);
    return st;
}
