/*
 * A GEMM device rung's launch: the row pitches it reads A and B with, the
 * copies that pad them first (pack_b, and Hopper's pad with A's residual),
 * its build and its arguments (Hopper's tensor maps among them), the
 * workspace of stream-K and split-K and split-K's sum after the product;
 * and one launch on buffers the caller owns, for products over several
 * devices.
 */
#include "workloads/gemm/parts.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/gemm/schedule.h" /* the kernels' own: the stream-K workspace's layout */

/*
 * n elements of the session's type rounded up to whole 16-byte pieces: the
 * row pitch of B for a b_pitch rung (n = N). Where that differs from N, B is
 * first copied (kernel pack_b of the rung's file) into rows of that pitch
 * with zeros after N, so that its rows stay 16-byte aligned for the rung's
 * 16-byte copies.
 */
static int pitch16(const struct gemm_session *s, int n)
{
    int per16 = (int)(16 / kl_type_size(s->type));
    return (n + per16 - 1) / per16 * per16;
}

/*
 * The row pitch of A (n = K) or B (n = N) for a Hopper rung: n where rows
 * of n floats start 16-byte aligned, as TMA needs; else n rounded up to
 * whole 128-byte lines, into which kernel pad of the rung's file copies the
 * matrix first (zeros after n), so that each of TMA's 128-byte box rows is
 * one line of L2.
 */
static int tma_pitch(const struct gemm_session *s, int n)
{
    int per16 = (int)(16 / kl_type_size(s->type)), per128 = 8 * per16;
    return n % per16 == 0 ? n : (n + per128 - 1) / per128 * per128;
}

/*
 * 1 where a Hopper rung pads (kernel pad) the rows TMA cannot read: always for
 * rung 20, which has no other way in; for 17 and 18 unless PAD=0, where their
 * producer reads such rows by cp.async as they are.
 */
static int pads(const struct kl_gemm_rung *r, const int *values)
{
    return r->hopper &&
           (kl_param_index(r->params, "PAD") < 0 || kl_param_value(r->params, values, "PAD"));
}

/*
 * 1 where Hopper's 3xTF32 rung reads A's residual (a - tf32(a), which kernel
 * pad writes first) so that TMA splits A as it copies it; not where K <= 8,
 * where the rung multiplies A exactly on the FMA units (its file says why),
 * nor with PAD=0, where it splits A in shared memory itself.
 */
static int reads_residual(const struct gemm_session *s, const struct kl_gemm_rung *r,
                          const int *values)
{
    return pads(r, values) && r->precision == KL_PREC_3XTF32 && s->K > 8;
}

/*
 * The row pitches rung r reads A and B with (tma_pitch for a Hopper rung
 * that pads, pitch16 for B of a b_pitch rung, else K and N); 1 where either
 * differs from the matrix's width or A's residual is read, so a copy (pad or
 * pack_b) runs before the product.
 */
int kl_gemm_pitches(const struct gemm_session *s, const struct kl_gemm_rung *r, const int *values,
                    int *lda, int *ldb)
{
    int bw = r->b_col_major ? s->K : s->N; /* the width of B's rows as the rung reads them */
    int pad = pads(r, values);
    *lda = pad ? tma_pitch(s, s->K) : s->K;
    *ldb = pad ? tma_pitch(s, bw) : r->b_pitch ? pitch16(s, s->N) : bw;
    return *lda != s->K || *ldb != bw || reads_residual(s, r, values);
}

/*
 * The build options of the copies before a product (pad, pack_b): the
 * element type's alone, so each is built once per type, whatever the rung's
 * parameters (the tuner's candidates share it).
 */
void kl_gemm_copy_options(enum kl_type type, char *out, size_t n)
{
    static const struct kl_param_def none[1] = {{0}};
    kl_params_options(none, NULL, type, out, n);
}

/*
 * The elements of dBp, B's padded copy: room for the wider of the two
 * pitches (pitch16 for a b_pitch rung, tma_pitch for a Hopper one), since
 * the rungs of one ladder share the buffer and the first to need it makes it.
 */
static size_t padded_b_elems(const struct gemm_session *s)
{
    size_t a = (size_t)s->K * pitch16(s, s->N), b = (size_t)s->K * tma_pitch(s, s->N);
    size_t t = (size_t)s->N * tma_pitch(s, s->K); /* Bᵀ's rows, for K-major Hopper rungs */
    return a > b ? (a > t ? a : t) : (b > t ? b : t);
}

/*
 * The packing launch (built with copy_options). *build_s gets its build time.
 */
static enum kl_status prepare_pack(struct gemm_session *s, const struct kl_gemm_rung *r, int ldb,
                                   struct kl_launch *l, double *build_s)
{
    struct kl_context *kl = s->kl;
    enum kl_status st;
    char options[64];
    kl_gemm_copy_options(s->type, options, sizeof options);
    *l = (struct kl_launch){.kl = kl, .nargs = 5, .dims = 1, .local = {256, 1, 1}};
    l->global[0] = kl_round_up((size_t)s->K * (size_t)ldb, 256);
    l->global[1] = l->global[2] = 1;
    if ((st = kl_gemm_session_buffer(s, padded_b_elems(s), &s->dBp)) != KL_OK ||
        (st = kl_kernel_get(kl, r->file, "pack_b", options, &l->kernel, build_s)) != KL_OK ||
        (st = kl_launch_check(l, r->name, &kl->err)) != KL_OK)
        return st;
    l->args[0] = (struct kl_arg){KL_ARG_BUF, {.buf = s->dB}};
    l->args[1] = (struct kl_arg){KL_ARG_BUF, {.buf = s->dBp}};
    l->args[2] = (struct kl_arg){KL_ARG_INT, {.i = s->K}};
    l->args[3] = (struct kl_arg){KL_ARG_INT, {.i = s->N}};
    l->args[4] = (struct kl_arg){KL_ARG_INT, {.i = ldb}};
    return KL_OK;
}

/*
 * The padding launch of a Hopper rung (kernel pad of its file): A into rows
 * of lda, B (or Bᵀ, for a rung that reads it K-major) into rows of ldb
 * (tma_pitch), each only where that is not its width, and A's residual
 * where the rung reads it; a block of 256 threads per row of A, then of B.
 * Built once per type, as pack_b is.
 */
static enum kl_status prepare_pad(struct gemm_session *s, const struct kl_gemm_rung *r,
                                  const int *values, int lda, int ldb, struct kl_launch *l,
                                  double *build_s)
{
    struct kl_context *kl = s->kl;
    int bw = r->b_col_major ? s->K : s->N, brows = r->b_col_major ? s->N : s->K;
    int pad_a = lda != s->K, pad_b = ldb != bw, resid = reads_residual(s, r, values);
    size_t a_elems = (size_t)s->M * (size_t)lda;
    enum kl_status st;
    char options[64];
    kl_gemm_copy_options(s->type, options, sizeof options);
    *l = (struct kl_launch){.kl = kl, .nargs = 11, .dims = 1, .local = {256, 1, 1}};
    l->global[0] = ((size_t)s->M + (size_t)brows) * 256;
    l->global[1] = l->global[2] = 1;
    if ((pad_a && (st = kl_gemm_session_buffer(s, a_elems, &s->dAp)) != KL_OK) ||
        (resid && (st = kl_gemm_session_buffer(s, a_elems, &s->dAr)) != KL_OK) ||
        (pad_b && (st = kl_gemm_session_buffer(s, padded_b_elems(s), &s->dBp)) != KL_OK) ||
        (st = kl_kernel_get(kl, r->file, "pad", options, &l->kernel, build_s)) != KL_OK ||
        (st = kl_launch_check(l, r->name, &kl->err)) != KL_OK)
        return st;
    l->args[0] = (struct kl_arg){KL_ARG_BUF, {.buf = s->dA}};
    struct kl_buf *B = r->b_col_major ? s->dBt : s->dB;
    l->args[1] = (struct kl_arg){KL_ARG_BUF, {.buf = B}};
    l->args[2] = (struct kl_arg){KL_ARG_BUF, {.buf = pad_a ? s->dAp : s->dA}};
    l->args[3] = (struct kl_arg){KL_ARG_BUF, {.buf = pad_b ? s->dBp : B}};
    /* the residual's buffer, or any (unwritten) where resid is 0 */
    l->args[4] = (struct kl_arg){KL_ARG_BUF, {.buf = resid ? s->dAr : s->dA}};
    l->args[5] = (struct kl_arg){KL_ARG_INT, {.i = s->M}};
    l->args[6] = (struct kl_arg){KL_ARG_INT, {.i = s->N}};
    l->args[7] = (struct kl_arg){KL_ARG_INT, {.i = s->K}};
    l->args[8] = (struct kl_arg){KL_ARG_INT, {.i = lda}};
    l->args[9] = (struct kl_arg){KL_ARG_INT, {.i = ldb}};
    l->args[10] = (struct kl_arg){KL_ARG_INT, {.i = resid}};
    return KL_OK;
}

enum kl_status kl_gemm_build_rung(struct kl_context *kl, const struct kl_gemm_rung *r,
                                  const int *values, enum kl_type type, const char *extra,
                                  struct kl_launch *l, struct kl_timing *t)
{
    enum kl_status st;
    kl_params_options(r->params, values, type, t->options, sizeof t->options);
    if (extra) {
        size_t used = strlen(t->options);
        snprintf(t->options + used, sizeof t->options - used, " %s", extra);
    }
    if ((st = kl_kernel_get(kl, r->file, "gemm", t->options, &l->kernel, &t->build_s)) != KL_OK)
        return st;
    return kl_launch_check(l, r->name, &kl->err);
}

/* The tensor map type of inputs of type t: TF32-rounded floats where tf32 is set. */
static enum kl_map_type map_type(enum kl_type t, int tf32)
{
    switch (t) {
    case KL_HALF: return KL_MAP_F16;
    case KL_BF16: return KL_MAP_BF16;
    case KL_FP8:
    case KL_FP8E5M2:
    case KL_INT8: return KL_MAP_U8;
    default: return tf32 ? KL_MAP_TF32 : KL_MAP_F32;
    }
}

/*
 * A tensor map of rows x cols elements of type t in rows of pitch elements
 * (NULL: none), copied in boxes of box_rows rows by 128 bytes, rounded to
 * TF32 if tf32.
 */
static struct kl_arg map_arg(struct kl_buf *buf, enum kl_type t, int rows, int cols, int pitch,
                             unsigned box_rows, int tf32)
{
    size_t es = kl_type_size(t);
    return (struct kl_arg){KL_ARG_TENSOR_MAP,
                           {.map = {buf, (uint64_t)rows, (uint64_t)cols, (uint64_t)pitch * es,
                                    box_rows, (unsigned)(128 / es), map_type(t, tf32)}}};
}

/*
 * EPI=1: C's map, of the sums' type, in boxes of 128 bytes by a consumer warpgroup's 64 rows
 * (rung 20) or 32 (rungs 17 and 18, whose pairs of warps each store 32 columns), where its rows
 * are 16-byte aligned; none elsewhere (the kernel then stores from registers).
 */
static struct kl_arg c_map_arg(const struct kl_gemm_rung *r, struct kl_buf *C, enum kl_type type,
                               int M, int N)
{
    enum kl_type out = kl_type_output(type);
    int aligned = N % (int)(16 / kl_type_size(out)) == 0;
    return map_arg(aligned ? C : NULL, out, M, N, N, r->local == KL_LOCAL_WGMMA ? 32 : 64, 0);
}

/*
 * A device rung's arguments into l (after l->nargs = 0): A, B in the layout
 * the rung reads (ldb its row pitch, for b_pitch rungs), C, M, N, K, then
 * for Hopper's rungs whether the copies are TMA's and A's, B's and A's
 * residual's tensor maps (lda, ldb their row pitches), with EPI=1 C's map
 * and, with SK=1, stream-K's workspace, then the dynamic shared memory of a
 * CUDA C++ rung.
 */
void kl_gemm_rung_args(const struct kl_gemm_rung *r, const int *values, enum kl_type type, int M,
                       int N, int K, const struct rung_bufs *m, struct kl_launch *l)
{
    int lda = m->lda, ldb = m->ldb;
    l->nargs = 6;
    l->args[0] = (struct kl_arg){KL_ARG_BUF, {.buf = m->A}};
    l->args[1] = (struct kl_arg){KL_ARG_BUF, {.buf = m->B}};
    l->args[2] = (struct kl_arg){KL_ARG_BUF, {.buf = m->C}};
    l->args[3] = (struct kl_arg){KL_ARG_INT, {.i = M}};
    l->args[4] = (struct kl_arg){KL_ARG_INT, {.i = N}};
    l->args[5] = (struct kl_arg){KL_ARG_INT, {.i = K}};
    if (r->b_pitch)
        l->args[l->nargs++] = (struct kl_arg){KL_ARG_INT, {.i = ldb}};
    if (r->hopper) {
        /*
         * TMA reads rows that start 16-byte aligned; else the kernel copies by cp.async.
         * A's box is the block's share of a slice (a cluster's blocks multicast theirs).
         * TF32 rungs have the copies round to TF32; 3xTF32 has A's copies round A and
         * its residual into the split's two parts where the residual is given, and splits
         * A itself otherwise; it splits B in registers, from B's every bit.
         */
        int per16 = (int)(16 / kl_type_size(type));
        int tma = lda % per16 == 0 && ldb % per16 == 0, tf32 = r->precision == KL_PREC_TF32;
        int resid = tma && m->R, tf32_a = tf32 || resid;
        unsigned cluster = (unsigned)kl_param_value(r->params, values, "CLUSTER");
        unsigned box = (unsigned)kl_param_value(r->params, values, "BM") / (cluster ? cluster : 1);
        l->args[l->nargs++] = (struct kl_arg){KL_ARG_INT, {.i = tma ? 1 + resid : 0}};
        l->args[l->nargs++] = map_arg(tma ? m->A : NULL, type, M, K, lda, box, tf32_a);
        if (r->b_col_major) /* Bᵀ, K-major: boxes of BN rows of it (N), 128 bytes of K */
            l->args[l->nargs++] = map_arg(tma ? m->B : NULL, type, N, K, ldb,
                                          (unsigned)kl_param_value(r->params, values, "BN"), 0);
        else
            l->args[l->nargs++] = map_arg(tma ? m->B : NULL, type, K, N, ldb, 32, tf32);
        l->args[l->nargs++] = map_arg(resid ? m->R : NULL, type, M, K, lda, box, 1);
        if (kl_param_value(r->params, values, "EPI"))
            l->args[l->nargs++] = c_map_arg(r, m->C, type, M, N);
    }
    if (kl_param_value(r->params, values, "SK"))
        l->args[l->nargs++] = (struct kl_arg){KL_ARG_BUF, {.buf = m->ws}};
    if (kl_kernel_is_cuda(r->file) && r->local != KL_LOCAL_NONE)
        l->args[l->nargs++] =
            (struct kl_arg){KL_ARG_LOCAL, {.local_bytes = kl_gemm_local_bytes(r, values, type)}};
}

/*
 * The session's workspace, at least bytes long (what names its use, and
 * hint what to do, for a message that it does not fit): made once, larger
 * when a launch needs more; its contents are what its last user left.
 */
static enum kl_status session_workspace(struct gemm_session *s, size_t bytes, const char *what,
                                        const char *hint)
{
    struct kl_context *kl = s->kl;
    enum kl_status st;
    if (s->ws && s->ws_bytes >= bytes)
        return KL_OK;
    kl->ops->release(s->ws);
    s->ws = NULL, s->ws_bytes = 0;
    if (bytes > kl->info.max_alloc)
        return kl_fail(&kl->err, KL_ERR_NO_MEMORY,
                       "%s need %.1f MiB, more than the device's largest allocation (%.1f MiB); "
                       "%s",
                       what, bytes / 1048576.0, kl->info.max_alloc / 1048576.0, hint);
    if ((st = kl_device_fits(kl, (double)bytes, what, &kl->err)) == KL_OK &&
        (st = kl->ops->alloc(kl->dev, bytes, &s->ws, &kl->err)) == KL_OK)
        s->ws_bytes = bytes;
    return st;
}

/*
 * Stream-K's workspace for a rung with SK=1 launched as l
 * (kernels/cuda/gemm/stream_k.cuh): a flag per set of sums, in
 * kl_sk_flag_words' rows, set to zero here (the kernel leaves them so), then
 * a partial tile per block (BM x BN). A Hopper rung's sets are its blocks'
 * consumer warpgroups (every warpgroup but the producer), sharing the tile,
 * their sums 4 bytes (fp32 or int32); rung 14's are its blocks, in C's type.
 */
enum kl_status kl_gemm_stream_k_workspace(struct gemm_session *s, const struct kl_gemm_rung *r,
                                          const int *v, const struct kl_launch *l)
{
    struct kl_context *kl = s->kl;
    size_t bm = (size_t)kl_param_value(r->params, v, "BM");
    size_t bn = (size_t)kl_param_value(r->params, v, "BN");
    size_t blocks = l->global[0] / l->local[0];
    size_t sets = r->hopper ? blocks * (l->local[0] / 128 - 1) : blocks;
    size_t es = r->hopper ? 4 : kl_type_size(kl_type_output(s->type));
    size_t flags = (size_t)kl_sk_flag_words((long long)sets) * 4;
    enum kl_status st;
    void *zeros = calloc(1, flags);
    if (!zeros)
        return kl_fail(&kl->err, KL_ERR_NO_MEMORY, "out of host memory");
    if ((st = session_workspace(s, flags + blocks * bm * bn * es,
                                "stream-K's flags and partial tiles", "use SK=0")) == KL_OK)
        st = kl->ops->write(kl->dev, s->ws, zeros, flags, &kl->err);
    free(zeros);
    return st;
}

/*
 * Split-K's sum after the product of a rung with SPLITK > 1 (13, 14), into
 * rl (nothing for other rungs): the product leaves a partial product of C
 * per split in the session's workspace, and kernel reduce_splits
 * (opencl/gemm/split_k.cl, built once per type) adds them into C in split
 * order, a work-item per element, as the launch pair's second launch, or
 * its third after a copy and the product.
 */
static enum kl_status prepare_split_sum(struct gemm_session *s, const struct kl_gemm_rung *r,
                                        const int *values, struct rung_launch *rl,
                                        struct kl_timing *t)
{
    struct kl_context *kl = s->kl;
    struct kl_launch *l = &rl->sum;
    int splits = kl_param_value(r->params, values, "SPLITK");
    size_t n = (size_t)s->M * (size_t)s->N, es = kl_type_size(kl_type_output(s->type));
    double build_s = 0;
    enum kl_status st;
    char options[64], what[80];
    if (splits <= 1)
        return KL_OK;
    kl_gemm_copy_options(s->type, options, sizeof options);
    snprintf(what, sizeof what, "SPLITK=%d's partial products of C", splits);
    *l = (struct kl_launch){.kl = kl, .nargs = 4, .dims = 1, .local = {256, 1, 1}};
    l->global[0] = kl_round_up(n, 256);
    l->global[1] = l->global[2] = 1;
    if ((st = session_workspace(s, (size_t)splits * n * es, what, "use a lower SPLITK")) != KL_OK ||
        (st = kl_kernel_get(kl, "opencl/gemm/split_k.cl", "reduce_splits", options, &l->kernel,
                            &build_s)) != KL_OK ||
        (st = kl_launch_check(l, "split-K's sum", &kl->err)) != KL_OK)
        return st;
    t->build_s += build_s;
    l->args[0] = (struct kl_arg){KL_ARG_BUF, {.buf = s->ws}};
    l->args[1] = (struct kl_arg){KL_ARG_BUF, {.buf = s->dC}};
    l->args[2] = (struct kl_arg){KL_ARG_INT, {.i = (int)n}};
    l->args[3] = (struct kl_arg){KL_ARG_INT, {.i = splits}};
    rl->order[0] = l;
    if (rl->pair.b) /* a copy, then the product */
        rl->pair.more = rl->order, rl->pair.nmore = 1;
    else
        rl->pair.b = l;
    return KL_OK;
}

/* What a rung's workspace holds, if any: stream-K's flags and partial tiles, or split-K's
   partial products and their sum's launch. */
static enum kl_status prepare_workspace(struct gemm_session *s, const struct kl_gemm_rung *r,
                                        const int *values, struct rung_launch *rl,
                                        struct kl_timing *t)
{
    if (kl_param_value(r->params, values, "SK"))
        return kl_gemm_stream_k_workspace(s, r, values, &rl->gemm);
    return prepare_split_sum(s, r, values, rl, t);
}

/*
 * Checks a rung of one kernel, makes its buffers, builds it (cached) and
 * describes its launches: the copy before it where one runs, then the product.
 */
enum kl_status kl_gemm_prepare_kernel(struct gemm_session *s, const struct kl_gemm_rung *r,
                                      const int *values, struct kl_timing *t,
                                      struct rung_launch *rl)
{
    struct kl_context *kl = s->kl;
    struct kl_launch *l = &rl->gemm;
    enum kl_status st;
    double pack_build_s = 0;
    int lda, ldb, packed = kl_gemm_pitches(s, r, values, &lda, &ldb);
    *l = (struct kl_launch){.kl = kl};
    rl->pair = (struct kl_launch_pair){.a = packed ? &rl->pack : l, .b = packed ? l : NULL};
    kl_gemm_shape(r, values, s->M, s->N, l);
    if ((st = kl_gemm_rung_check(kl, r, values, s->type, l, &kl->err)) != KL_OK ||
        (st = kl_gemm_session_device(s, r->b_col_major)) != KL_OK ||
        (st = kl_gemm_build_rung(kl, r, values, s->type, NULL, l, t)) != KL_OK)
        return st;
    if (packed && (st = r->hopper ? prepare_pad(s, r, values, lda, ldb, &rl->pack, &pack_build_s)
                                  : prepare_pack(s, r, ldb, &rl->pack, &pack_build_s)) != KL_OK)
        return st;
    t->build_s += pack_build_s;
    struct kl_buf *A = lda != s->K ? s->dAp : s->dA;
    struct kl_buf *R = reads_residual(s, r, values) ? s->dAr : NULL;
    struct kl_buf *B = ldb != (r->b_col_major ? s->K : s->N) ? s->dBp
                       : r->b_col_major                      ? s->dBt
                                                             : s->dB;
    if ((st = prepare_workspace(s, r, values, rl, t)) != KL_OK)
        return st;
    /* split-K: the product into the workspace, whose sum goes into C */
    int split = kl_param_value(r->params, values, "SPLITK") > 1;
    const struct rung_bufs m = {A, B, split ? s->ws : s->dC, R, lda, ldb, s->ws};
    kl_gemm_rung_args(r, values, s->type, s->M, s->N, s->K, &m, l);
    return KL_OK;
}

/* ---- pieces for products spread over several devices (multi/mgemm.c) ------- */

int kl_gemm_rung_on_buffers(const struct kl_gemm_rung *r, enum kl_type t, int N, char *why,
                            size_t n)
{
    int per16 = (int)(16 / kl_type_size(t));
    if (r->geometry == KL_GEO_HOST)
        snprintf(why, n, "rung %s runs on the host", r->name);
    else if (r->b_col_major)
        snprintf(why, n, "rung %s reads B column-major", r->name);
    else if (r->b_pitch && N % per16 != 0)
        snprintf(why, n,
                 "rung %s would first copy B into rows padded to 16 bytes (N=%d is not a "
                 "multiple of %d)",
                 r->name, N, per16);
    else
        return 1;
    return 0;
}

enum kl_status kl_gemm_launch_on(struct kl_context *kl, const char *rung, enum kl_type type, int M,
                                 int N, int K, struct kl_buf *A, struct kl_buf *B, struct kl_buf *C,
                                 struct kl_launch *out, struct kl_timing *t, char *config, size_t n)
{
    const struct kl_gemm_request req = {.M = M, .N = N, .K = K, .type = type};
    const struct kl_gemm_rung *r = kl_gemm_rung_find(rung);
    struct kl_err *e = &kl->err;
    int values[KL_MAX_PARAMS];
    unsigned mask;
    enum kl_status st;
    char why[256];
    memset(t, 0, sizeof *t);
    if (!r)
        return kl_gemm_rung_not_found(rung, "GEMM rung", e);
    if (M < 1 || N < 1 || K < 1 || (int64_t)M * K > INT32_MAX || (int64_t)K * N > INT32_MAX ||
        (int64_t)M * N > INT32_MAX)
        return kl_fail(e, KL_ERR_ARG,
                       "rung %s: M=%d N=%d K=%d must be >= 1 and each matrix within the "
                       "kernels' 32-bit indexing",
                       r->name, M, N, K);
    if (!kl_gemm_rung_on_buffers(r, type, N, why, sizeof why))
        return kl_fail(e, KL_ERR_UNSUPPORTED, "%s: it cannot multiply given row-major buffers",
                       why);
    *out = (struct kl_launch){.kl = kl};
    if ((st = kl_gemm_resolve_request(&req, &kl->info, r, values, &mask, config, n, e)) != KL_OK)
        return st;
    if (kl_param_value(r->params, values, "SK") || kl_param_value(r->params, values, "SPLITK") > 1)
        return kl_fail(e, KL_ERR_UNSUPPORTED,
                       "rung %s: SK=1 and SPLITK > 1 need a workspace this product over several "
                       "devices does not make; leave SK at 0 and SPLITK at 1 here",
                       r->name);
    kl_gemm_shape(r, values, M, N, out);
    if ((st = kl_gemm_rung_check(kl, r, values, type, out, e)) != KL_OK ||
        (st = kl_gemm_build_rung(kl, r, values, type, NULL, out, t)) != KL_OK)
        return st;
    const struct rung_bufs m = {A, B, C, NULL, K, N, NULL};
    kl_gemm_rung_args(r, values, type, M, N, K, &m, out);
    return KL_OK;
}
