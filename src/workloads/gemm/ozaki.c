/*
 * Rung 22, float GEMM from INT8 products by the Ozaki scheme II: its
 * launches (kernels/cuda/gemm/22_ozaki_int8.cu says the method). The rows'
 * exponents, the residues of A and Bᵀ modulo each of MODULI moduli, one
 * INT8 product per modulus by rung 20's kernel built for int8 (on views of
 * one plane each), stored as its residue, and the reconstruction into C:
 * MODULI + 3 launches timed as one.
 */
#include "workloads/gemm/parts.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The moduli of 22_ozaki_int8.cu, in its order. */
static const int moduli[KL_OZAKI_MAX] = {256, 255, 253, 251, 247, 241, 239, 233,
                                         229, 227, 223, 217, 211, 199, 197, 193};

/*
 * The bits each row keeps: the largest beta with 4 K 2^(2 beta) < P, the
 * product of the first n moduli, so that |A'B'| < P/4 and the
 * reconstruction's rounding of A'B'/P to the nearest integer cannot err
 * (and at most 62, so that A' fits int64); 0 when P is too small for K.
 */
static int bits_kept(int n, int K)
{
    double log2p = 0;
    for (int l = 0; l < n; l++)
        log2p += log2((double)moduli[l]);
    int beta = (int)floor((log2p - 2 - log2((double)K)) / 2);
    while (beta > 0 && 2 * beta + log2((double)K) + 2 >= log2p)
        beta--;
    return beta > 62 ? 62 : beta;
}

/* A 1-D launch of kernel name of rung r's file over n work-items in groups of 256. */
static enum kl_status step(struct gemm_session *s, const struct kl_gemm_rung *r, const char *name,
                           const char *options, size_t n, struct kl_launch *l, double *build_s)
{
    double b = 0;
    *l = (struct kl_launch){.kl = s->kl, .dims = 1, .local = {256, 1, 1}};
    l->global[0] = kl_round_up(n, 256);
    l->global[1] = l->global[2] = 1;
    enum kl_status st = kl_kernel_get(s->kl, r->file, name, options, &l->kernel, &b);
    *build_s += b;
    return st != KL_OK ? st : kl_launch_check(l, r->name, &s->kl->err);
}

static void arg_buf(struct kl_launch *l, struct kl_buf *b)
{
    l->args[l->nargs++] = (struct kl_arg){KL_ARG_BUF, {.buf = b}};
}

static void arg_int(struct kl_launch *l, int i)
{
    l->args[l->nargs++] = (struct kl_arg){KL_ARG_INT, {.i = i}};
}

/*
 * The reconstruction's constants for the first n moduli, as doubles: w_l = (P/p_l)·((P/p_l)^-1
 * mod p_l), so that Σ r_l·w_l ≡ A'B' (mod P) for residues r_l of it; then P in two parts
 * (P_hi = P rounded, P_lo = P - P_hi) and 1/P. Exact in 128-bit integers (P < 2^128).
 */
__extension__ typedef unsigned __int128 u128;
static void constants(int n, double *w)
{
    u128 P = 1;
    for (int l = 0; l < n; l++)
        P *= (u128)moduli[l];
    for (int l = 0; l < n; l++) {
        u128 q = P / (u128)moduli[l];
        int inv = 1, r = (int)(q % (u128)moduli[l]);
        while (r * inv % moduli[l] != 1) /* moduli are small: a search is quick */
            inv++;
        w[l] = (double)(q * (u128)inv); /* < P: q·inv < q·p_l */
    }
    double hi = (double)P;
    u128 h = (u128)hi;
    w[n] = hi;
    w[n + 1] = h > P ? -(double)(h - P) : (double)(P - h);
    w[n + 2] = 1.0 / hi;
}

/*
 * The exponents', the residues' and the products' residues' buffers (made again where a
 * former size is too small), the constants, and a view of each plane.
 */
static enum kl_status planes(struct gemm_session *s, int n, size_t ld)
{
    struct kl_context *kl = s->kl;
    size_t M = (size_t)s->M, N = (size_t)s->N, per[3] = {M * ld, (size_t)N * ld, M * N};
    size_t bytes[6] = {M * 4, N * 4, n * per[0], n * per[1], n * per[2], (n + 3) * 8};
    double total = 0, w[KL_OZAKI_MAX + 3];
    enum kl_status st;
    for (int i = 0; i < 6; i++)
        total += (double)bytes[i];
    if ((st = kl_device_fits(kl, total, "the Ozaki scheme's residues and products", &kl->err)) !=
        KL_OK)
        return st;
    if (!kl->ops->buf_view)
        return kl_fail(&kl->err, KL_ERR_UNSUPPORTED, "this backend has no views of buffers");
    for (int i = 0; i < 6; i++) {
        if (s->oz[i] && s->oz_bytes[i] < bytes[i]) {
            kl->ops->release(s->oz[i]);
            s->oz[i] = NULL;
        }
        if (!s->oz[i] && (st = kl->ops->alloc(kl->dev, bytes[i], &s->oz[i], &kl->err)) != KL_OK)
            return st;
        s->oz_bytes[i] = s->oz_bytes[i] > bytes[i] ? s->oz_bytes[i] : bytes[i];
    }
    constants(n, w);
    if ((st = kl->ops->write(kl->dev, s->oz[5], w, bytes[5], &kl->err)) != KL_OK)
        return st;
    for (int p = 0; p < 3; p++)
        for (int l = 0; l < n; l++) {
            kl->ops->release(s->oz_view[p][l]);
            s->oz_view[p][l] = NULL;
            if ((st = kl->ops->buf_view(s->oz[2 + p], l * per[p], per[p], &s->oz_view[p][l],
                                        &kl->err)) != KL_OK)
                return st;
        }
    return KL_OK;
}

/*
 * The INT8 products, one per modulus l into steps[l]: rung 20's kernel built for int8 with
 * RESIDUES (once), which stores each sum modulo p_l, its last argument; the launches differ
 * only in their planes and modulus. With SK=1 they share stream-K's workspace (one after
 * another, each leaves its flags down for the next).
 */
static enum kl_status products(struct gemm_session *s, const struct kl_gemm_rung *r20,
                               const int *v20, int n, int ld, struct kl_launch *steps,
                               struct kl_timing *t)
{
    struct kl_context *kl = s->kl;
    struct kl_launch base = {.kl = kl};
    kl_gemm_shape(r20, v20, s->M, s->N, &base);
    enum kl_status st = kl_gemm_rung_check(kl, r20, v20, KL_INT8, &base, &kl->err);
    if (st != KL_OK ||
        (st = kl_gemm_build_rung(kl, r20, v20, KL_INT8, "-DRESIDUES", &base, t)) != KL_OK)
        return st;
    if (kl_param_value(r20->params, v20, "SK") &&
        (st = kl_gemm_stream_k_workspace(s, r20, v20, &base)) != KL_OK)
        return st;
    for (int l = 0; l < n; l++) {
        const struct rung_bufs m = {
            s->oz_view[0][l], s->oz_view[1][l], s->oz_view[2][l], NULL, ld, ld, s->ws};
        steps[l] = base;
        kl_gemm_rung_args(r20, v20, KL_INT8, s->M, s->N, s->K, &m, &steps[l]);
        if (steps[l].nargs >= KL_MAX_ARGS)
            return kl_fail(&kl->err, KL_ERR_ARG,
                           "rung 20's INT8 product passes %d arguments, "
                           "and its modulus one more than a launch holds (%d)",
                           steps[l].nargs, KL_MAX_ARGS);
        steps[l].args[steps[l].nargs++] = (struct kl_arg){KL_ARG_INT, {.i = moduli[l]}};
    }
    return KL_OK;
}

/* Rung 22's values handed to rung 20's kernel: its BM, BN, STAGES, GROUP and SK; EPI=0, as
   the residues are bytes, which the stores by TMA (sums of 4 bytes) do not write. */
static void tile_values(const struct kl_gemm_rung *r, const int *values,
                        const struct kl_gemm_rung *r20, int *v20)
{
    for (int i = 0; i < kl_param_count(r20->params); i++) {
        int j = kl_param_index(r->params, r20->params[i].name);
        v20[i] = j >= 0 ? values[j] : r20->params[i].def;
    }
    v20[kl_param_index(r20->params, "EPI")] = 0;
}

int kl_gemm_ozaki_kernels(const struct kl_gemm_rung *r, const int *values,
                          struct kl_kernel_want *want, int max)
{
    const struct kl_gemm_rung *r20 = kl_gemm_rung_find("20_wgmma");
    int v20[KL_MAX_PARAMS];
    if (max < 2 || !r20)
        return 0;
    want[0] = (struct kl_kernel_want){r->file, "exponents", ""};
    snprintf(want[0].options, sizeof want[0].options, "-DNMOD=%d",
             kl_param_value(r->params, values, "MODULI"));
    tile_values(r, values, r20, v20);
    want[1] = (struct kl_kernel_want){r20->file, "gemm", ""};
    kl_params_options(r20->params, v20, KL_INT8, want[1].options, sizeof want[1].options);
    size_t used = strlen(want[1].options);
    snprintf(want[1].options + used, sizeof want[1].options - used, " -DRESIDUES");
    return 2;
}

enum kl_status kl_gemm_ozaki_prepare(struct gemm_session *s, const struct kl_gemm_rung *r,
                                     const int *values, struct kl_timing *t, struct rung_launch *rl)
{
    struct kl_context *kl = s->kl;
    const struct kl_gemm_rung *r20 = kl_gemm_rung_find("20_wgmma");
    int n = kl_param_value(r->params, values, "MODULI"), v20[KL_MAX_PARAMS];
    int beta = bits_kept(n, s->K), ld = (s->K + 15) / 16 * 16; /* rows 16-byte aligned */
    size_t M = (size_t)s->M, N = (size_t)s->N, MN = M * N;
    char options[32];
    enum kl_status st;
    if (!r20 || n < 2 || n > KL_OZAKI_MAX)
        return kl_fail(&kl->err, KL_ERR_ARG, "rung %s: MODULI=%d is not 2 to %d", r->name, n,
                       KL_OZAKI_MAX);
    if (beta < 1)
        return kl_fail(&kl->err, KL_ERR_ARG,
                       "rung %s: %d moduli leave no bits of A and B at K=%d (their product "
                       "must exceed 16K); use more",
                       r->name, n, s->K);
    tile_values(r, values, r20, v20);
    snprintf(options, sizeof options, "-DNMOD=%d", n);
    snprintf(t->options, sizeof t->options, "%s (BETA=%d bits a row), INT8 products:", options,
             beta);
    memset(rl, 0, sizeof *rl);
    if ((st = kl_gemm_session_device(s, 1)) != KL_OK || (st = planes(s, n, (size_t)ld)) != KL_OK ||
        (st = step(s, r, "exponents", options, (M + N) * 256, &rl->pack, &t->build_s)) != KL_OK ||
        (st = step(s, r, "split", options, (M + N) * ld, &rl->gemm, &t->build_s)) != KL_OK ||
        (st = step(s, r, "crt", options, MN, &rl->steps[n], &t->build_s)) != KL_OK)
        return st;
    /* exponents: a block of 256 per row of A, then of Bᵀ */
    struct kl_launch *e = &rl->pack, *sp = &rl->gemm, *c = &rl->steps[n];
    arg_buf(e, s->dA), arg_buf(e, s->dBt), arg_buf(e, s->oz[0]), arg_buf(e, s->oz[1]);
    arg_int(e, s->M), arg_int(e, s->N), arg_int(e, s->K), arg_int(e, beta);
    arg_buf(sp, s->dA), arg_buf(sp, s->dBt), arg_buf(sp, s->oz[0]), arg_buf(sp, s->oz[1]);
    arg_buf(sp, s->oz[2]), arg_buf(sp, s->oz[3]);
    arg_int(sp, s->M), arg_int(sp, s->N), arg_int(sp, s->K), arg_int(sp, ld);
    arg_buf(c, s->oz[4]), arg_buf(c, s->oz[0]), arg_buf(c, s->oz[1]), arg_buf(c, s->dC);
    arg_int(c, s->M), arg_int(c, s->N), arg_buf(c, s->oz[5]);
    struct kl_timing bt;
    memset(&bt, 0, sizeof bt);
    if ((st = products(s, r20, v20, n, ld, rl->steps, &bt)) != KL_OK)
        return st;
    size_t used = strlen(t->options);
    snprintf(t->options + used, sizeof t->options - used, " %s", bt.options);
    t->build_s += bt.build_s;
    for (int i = 0; i <= n; i++)
        rl->order[i] = &rl->steps[i];
    rl->pair =
        (struct kl_launch_pair){.a = &rl->pack, .b = &rl->gemm, .more = rl->order, .nmore = n + 1};
    return KL_OK;
}
