/*
 * OpenBLAS (any CBLAS, through core/blas.c) as a host peer of the GEMM
 * ladder: the library's own threads on the host's cores, timed with the
 * host clock around the call, as kladder times its host rungs.
 */
#include <stdio.h>

#include "core/blas.h"
#include "core/util.h"
#include "peers/peers_impl.h"

struct host_gemm {
    const struct kl_gemm_problem *p;
    void *C;
};

static enum kl_status gemm_once(void *arg, double *seconds, struct kl_err *e)
{
    struct host_gemm *g = arg;
    const struct kl_gemm_problem *p = g->p;
    double t0 = kl_now();
    int ok = p->type == KL_FLOAT
                 ? kl_blas_sgemm(p->M, p->N, p->K, p->A, p->B, g->C)
                 : kl_blas_dgemm(p->M, p->N, p->K, p->A, p->B, g->C);
    *seconds = kl_now() - t0;
    return ok ? KL_OK : kl_fail(e, KL_ERR_UNSUPPORTED, "the BLAS library has no cblas_sgemm");
}

enum kl_status kl_openblas_gemm(const struct kl_gemm_problem *p, const struct kl_protocol *proto,
                                void *C, struct kl_stats *stats, char *what, size_t n,
                                struct kl_err *e)
{
    const char *name = NULL;
    struct host_gemm g = {p, C};
    double dummy;
    enum kl_status st;
    if (!kl_blas_available(&name))
        return kl_fail(e, KL_ERR_UNSUPPORTED,
                       "no CBLAS library found (libopenblas.so.0; Debian: libopenblas0)");
    /* In double it is the reference's own call: only the reference's spot check of sampled
     * elements against direct sums is independent of it, and the row says so. */
    snprintf(what, n, "%s %s on the host, host clock%s", name,
             p->type == KL_FLOAT ? "cblas_sgemm" : "cblas_dgemm",
             p->type == KL_FLOAT ? "" : " (the reference's own library)");
    if ((st = gemm_once(&g, &dummy, e)) != KL_OK)
        return st;
    return kl_measure(NULL, proto, gemm_once, &g, stats, e);
}
