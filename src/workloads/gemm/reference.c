/*
 * The GEMM reference (every element by a BLAS or a host loop, else a
 * sample) and the verdict on a result: against the reference, and in full
 * against the first verified device result.
 */
#include "workloads/gemm/parts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/blas.h"
#include "core/util.h"
#include "core/verify.h"

void kl_gemm_ref_free(struct gemm_ref *g)
{
    free(g->idx);
    free(g->ref);
    free(g->scale);
}

static void ref_element(const struct gemm_session *s, size_t i, size_t j, double *ref,
                        double *scale)
{
    double sum = 0.0, mag = 0.0;
    for (size_t k = 0; k < (size_t)s->K; k++) {
        double p = kl_get(s->type, s->A, i * s->K + k) * kl_get(s->type, s->B, k * s->N + j);
        sum += p;
        mag += fabs(p);
    }
    *ref = sum;
    *scale = mag;
}

#define FULL_HOST_LIMIT 1.1e9 /* multiply-adds a host reference loop may take */
#define SAMPLES 4096

/* Whether the full reference's operands and result in double fit the host's free memory. */
static enum kl_status reference_room(const struct gemm_session *s, struct kl_err *e)
{
    size_t M = (size_t)s->M, N = (size_t)s->N, K = (size_t)s->K;
    char what[96];
    snprintf(what, sizeof what, "the %d×%d×%d product's reference operands and result, in double,",
             s->M, s->N, s->K);
    return kl_host_fits(8.0 * ((double)M * K + (double)K * N + 2.0 * M * N), what, e);
}

/* C = A B and its scale |A| |B| in double by the host's own loop, where no BLAS is found. */
static void host_loop(const double *a, const double *b, size_t M, size_t N, size_t K,
                      struct gemm_ref *g)
{
    for (size_t i = 0; i < M; i++)
        for (size_t k = 0; k < K; k++) {
            double av = a[i * K + k], aa = fabs(av);
            for (size_t j = 0; j < N; j++) {
                g->ref[i * N + j] += av * b[k * N + j];
                g->scale[i * N + j] += aa * fabs(b[k * N + j]);
            }
        }
}

/* Every element of C and its scale: by the BLAS found (blas != NULL) or a host loop. */
static enum kl_status reference_full(const struct gemm_session *s, const char *blas,
                                     struct gemm_ref *g, struct kl_err *e)
{
    size_t M = (size_t)s->M, N = (size_t)s->N, K = (size_t)s->K;
    enum kl_status st = reference_room(s, e);
    if (st != KL_OK)
        return st;
    double *a = malloc(M * K * sizeof *a), *b = malloc(K * N * sizeof *b);
    g->n = M * N;
    g->ref = calloc(M * N, sizeof *g->ref);
    g->scale = calloc(M * N, sizeof *g->scale);
    if (!a || !b || !g->ref || !g->scale) {
        free(a);
        free(b);
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory for the reference");
    }
    for (size_t x = 0; x < M * K; x++)
        a[x] = kl_get(s->type, s->A, x);
    for (size_t x = 0; x < K * N; x++)
        b[x] = kl_get(s->type, s->B, x);
    if (blas) {
        kl_blas_dgemm(s->M, s->N, s->K, a, b, g->ref);
        for (size_t x = 0; x < M * K; x++)
            a[x] = fabs(a[x]);
        for (size_t x = 0; x < K * N; x++)
            b[x] = fabs(b[x]);
        kl_blas_dgemm(s->M, s->N, s->K, a, b, g->scale);
        snprintf(g->how, sizeof g->how, "all elements, %s %s dgemm",
                 kl_type_output(s->type) == KL_INT ? "exact integer sums by" : "double,", blas);
    } else {
        host_loop(a, b, M, N, K, g);
        snprintf(g->how, sizeof g->how, "all elements, %s on the host",
                 kl_type_output(s->type) == KL_INT ? "exact integer sums" : "double accumulation");
    }
    free(a);
    free(b);
    return KL_OK;
}

/* SAMPLES elements (the four corners first: edges are where guards go wrong) in double. */
static enum kl_status reference_sampled(const struct gemm_session *s, unsigned long long seed,
                                        struct gemm_ref *g, struct kl_err *e)
{
    size_t M = (size_t)s->M, N = (size_t)s->N, MN = M * N, n = MN < SAMPLES ? MN : SAMPLES;
    struct kl_rng rng;
    kl_rng_seed(&rng, seed ^ 0x5eedULL);
    g->n = n;
    g->idx = malloc(n * sizeof *g->idx);
    g->ref = malloc(n * sizeof *g->ref);
    g->scale = malloc(n * sizeof *g->scale);
    if (!g->idx || !g->ref || !g->scale)
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory for the reference");
    for (size_t x = 0; x < n; x++) {
        size_t corner[4] = {0, N - 1, (M - 1) * N, MN - 1};
        g->idx[x] = x < 4 ? corner[x] : (size_t)(kl_rng_next(&rng) % MN);
        ref_element(s, g->idx[x] / N, g->idx[x] % N, &g->ref[x], &g->scale[x]);
    }
    snprintf(g->how, sizeof g->how,
             "%zu sampled elements in double on the host (no BLAS found for the full product)", n);
    return KL_OK;
}

/* The largest scale of the elements the reference holds, for checks against a baseline. */
static void find_max_scale(struct gemm_ref *g)
{
    for (size_t x = 0; x < g->n; x++)
        if (g->scale[x] > g->max_scale)
            g->max_scale = g->scale[x];
}

/*
 * The fast path guarded: n elements of a reference computed by a BLAS (or a device) against
 * direct double sums, the product's and its scale's.
 */
static enum kl_status blas_spot_check(const struct gemm_session *s, unsigned long long seed,
                                      const char *blas, const struct gemm_ref *g, int n,
                                      struct kl_err *e)
{
    size_t N = (size_t)s->N, MN = (size_t)s->M * N;
    struct kl_rng rng;
    kl_rng_seed(&rng, seed ^ 0xb1a5ULL);
    for (int x = 0; x < n; x++) {
        size_t at = (size_t)(kl_rng_next(&rng) % MN);
        double want, mag;
        ref_element(s, at / N, at % N, &want, &mag);
        if (!(fabs(want - g->ref[at]) <= 1e-12 * mag + 1e-300) ||
            !(fabs(mag - g->scale[at]) <= 1e-12 * mag + 1e-300))
            return kl_fail(e, KL_ERR_VERIFY,
                           "the reference by %s disagrees with a direct double sum at element "
                           "%zu: %.17g vs %.17g (scale %.17g vs %.17g)",
                           blas, at, g->ref[at], want, g->scale[at], mag);
    }
    return KL_OK;
}

/*
 * The reference of C: every element where a BLAS is found (integer inputs
 * are small, |x| <= 8 for int and <= 128 for int8 with K < 2^17, so double
 * sums of them are exact) or the product is
 * small enough for a host loop, else a sample of elements.
 */
enum kl_status kl_gemm_ref_compute(const struct gemm_session *s, unsigned long long seed,
                                   struct gemm_ref *g, struct kl_err *e)
{
    double work = (double)s->M * s->N * s->K;
    const char *blas = NULL;
    int use_blas = kl_blas_available(&blas);
    enum kl_status st;
    memset(g, 0, sizeof *g);
    if (use_blas || work <= FULL_HOST_LIMIT)
        st = reference_full(s, use_blas ? blas : NULL, g, e);
    else
        st = reference_sampled(s, seed, g, e);
    if (st != KL_OK)
        return st;
    find_max_scale(g);
    return use_blas ? blas_spot_check(s, seed, blas, g, 64, e) : KL_OK;
}

static void describe_failure(const struct kl_check *c, size_t N, const char *against, char *note,
                             size_t n)
{
    snprintf(note, n,
             "%zu of %zu elements differ from %s; worst at row %zu col %zu: got %.9g, want "
             "%.9g (%s)",
             c->bad, c->checked, against, c->worst / N, c->worst % N, c->worst_got, c->worst_want,
             isinf(c->worst_ratio) ? "not a finite match" : "beyond tolerance");
}

/*
 * Verifies C of one rung or peer (res->precision says its arithmetic)
 * against the reference with the tolerance of that precision, and in full
 * against the baseline with the two tolerances added (both carry rounding
 * error); records the result and its normwise error.
 */
void kl_gemm_judge(const struct gemm_session *s, const struct gemm_ref *g, const void *C,
                   const struct gemm_baseline *baseline, struct kl_result *res)
{
    struct kl_check c;
    size_t MN = (size_t)s->M * s->N;
    double factor = kl_gemm_tolerance(res->precision, s->type, s->K, res->sum_span);
    char sums[96];
    enum kl_type out = kl_type_output(s->type); /* C's: float, double or int */
    /* int compares exactly; its scales only measure the (zero) error. */
    kl_check(out, C, g->ref, g->scale, g->idx, g->n, factor, &c);
    res->error = c.max_error;
    if (c.bad) {
        res->status = KL_RESULT_FAILED;
        describe_failure(&c, (size_t)s->N, "the reference", res->note, sizeof res->note);
        return;
    }
    kl_gemm_sums_text(s->type, s->K, res->sum_span, sums, sizeof sums);
    int len = snprintf(res->note, sizeof res->note,
                       "%zu elements match the reference (%s%sworst %.2g of tolerance)", c.checked,
                       sums, sums[0] ? "; " : "", c.worst_ratio);
    if (!baseline || !baseline->C || len < 0)
        return;
    /* Every element against the first device rung. */
    double *base = malloc(MN * sizeof *base), *scale = malloc(MN * sizeof *scale);
    if (!base || !scale) {
        res->status = KL_RESULT_FAILED;
        snprintf(res->note, sizeof res->note, "out of host memory comparing with %s",
                 baseline->name);
    } else {
        for (size_t x = 0; x < MN; x++) {
            base[x] = kl_get(out, baseline->C, x);
            scale[x] = g->idx ? g->max_scale : g->scale[x];
        }
        kl_check(out, C, base, out == KL_INT ? NULL : scale, NULL, MN,
                 factor + kl_gemm_tolerance(baseline->precision, s->type, s->K, baseline->sum_span),
                 &c);
        if (c.bad) {
            res->status = KL_RESULT_FAILED;
            describe_failure(&c, (size_t)s->N, baseline->name, res->note, sizeof res->note);
        } else if ((size_t)len < sizeof res->note) {
            snprintf(res->note + len, sizeof res->note - (size_t)len, "; all %zu agree with %s", MN,
                     baseline->name);
        }
    }
    free(base);
    free(scale);
}

/* ---- the reference apart from any device (multi/mgemm.c) ----------------- */

/* The reference of one problem, apart from any device: see kl_gemm_reference_open. */
struct kl_gemm_reference {
    struct gemm_session s; /* the problem only: no context, no buffers */
    struct gemm_ref g;
};

enum kl_status kl_gemm_reference_open(enum kl_type type, int M, int N, int K, const void *A,
                                      const void *B, unsigned long long seed,
                                      struct kl_gemm_reference **out, struct kl_err *e)
{
    struct kl_gemm_reference *x = calloc(1, sizeof *x);
    enum kl_status st;
    *out = NULL;
    if (!x)
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory");
    kl_gemm_session_init(&x->s, NULL, type, M, N, K, A, B);
    if ((st = kl_gemm_ref_compute(&x->s, seed, &x->g, e)) != KL_OK) {
        kl_gemm_reference_close(x);
        return st;
    }
    *out = x;
    return KL_OK;
}

enum kl_status kl_gemm_reference_adopt(enum kl_type type, int M, int N, int K, const void *A,
                                       const void *B, unsigned long long seed, double *ref,
                                       double *scale, const char *how,
                                       struct kl_gemm_reference **out, struct kl_err *e)
{
    struct kl_gemm_reference *x = calloc(1, sizeof *x);
    enum kl_status st;
    *out = NULL;
    if (!x) {
        free(ref);
        free(scale);
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory");
    }
    kl_gemm_session_init(&x->s, NULL, type, M, N, K, A, B);
    x->g.n = (size_t)M * N, x->g.ref = ref, x->g.scale = scale;
    snprintf(x->g.how, sizeof x->g.how, "%s", how);
    find_max_scale(&x->g);
    if ((st = blas_spot_check(&x->s, seed, how, &x->g, KL_GEMM_SPOT_CHECKS, e)) != KL_OK) {
        kl_gemm_reference_close(x);
        return st;
    }
    *out = x;
    return KL_OK;
}

const char *kl_gemm_reference_how(const struct kl_gemm_reference *x)
{
    return x->g.how;
}

void kl_gemm_reference_judge(const struct kl_gemm_reference *x, const void *C, const void *base,
                             const char *base_name, enum kl_precision base_precision,
                             struct kl_result *res)
{
    const struct gemm_baseline baseline = {base, base_name, base_precision, 0};
    res->status = KL_RESULT_VERIFIED;
    kl_gemm_judge(&x->s, &x->g, C, &baseline, res);
}

void kl_gemm_reference_close(struct kl_gemm_reference *x)
{
    if (!x)
        return;
    kl_gemm_ref_free(&x->g);
    free(x);
}
