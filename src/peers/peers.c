#include <stdio.h>
#include <string.h>

#include "core/report.h"
#include "peers/peers_impl.h"

enum kl_status kl_peer_gemv(struct kl_context *kl, const char *peer,
                            const struct kl_gemv_problem *p, const struct kl_protocol *proto,
                            void *y, struct kl_stats *stats, char *what, size_t n, struct kl_err *e)
{
    if (strcmp(peer, "clblast") == 0)
        return kl_clblast_gemv(kl, p, proto, y, stats, what, n, e);
    if (strcmp(peer, "cublas") == 0)
        return kl_cublas_gemv(kl, p, proto, y, stats, what, n, e);
    return kl_fail(e, KL_ERR_ARG, "unknown peer \"%s\" (clblast or cublas)", peer);
}

enum kl_status kl_peer_blur(struct kl_context *kl, const char *peer,
                            const struct kl_blur_problem *p, const struct kl_protocol *proto,
                            void *out, struct kl_stats *stats, char *what, size_t n,
                            struct kl_err *e)
{
    if (strcmp(peer, "npp") == 0)
        return kl_npp_blur(kl, p, proto, out, stats, what, n, e);
    return kl_fail(e, KL_ERR_ARG, "unknown peer \"%s\" for blur (npp)", peer);
}

const char kl_gemm_peer_names[] = "cublas, cublas_tf32, clblast or openblas";

int kl_peer_gemm_known(const char *name)
{
    return strcmp(name, "cublas") == 0 || strcmp(name, "cublas_tf32") == 0 ||
           strcmp(name, "clblast") == 0 || strcmp(name, "openblas") == 0;
}

enum kl_precision kl_peer_gemm_precision(const char *name, enum kl_type t)
{
    return strcmp(name, "cublas_tf32") == 0 ? KL_PREC_TF32 : kl_precision_of_type(t);
}

int kl_peer_row(struct kl_result *res, enum kl_status st, const struct kl_err *e, const char *what)
{
    if (st != KL_OK) {
        /* Absent or unable: skipped; failing: a failed row, not the end of the ladder. */
        res->status = st == KL_ERR_UNSUPPORTED ? KL_RESULT_SKIPPED : KL_RESULT_FAILED;
        snprintf(res->note, sizeof res->note, "%.500s", e->msg);
        return 0;
    }
    snprintf(res->options, sizeof res->options, "%s", what);
    res->status = KL_RESULT_VERIFIED; /* until the check says otherwise */
    return 1;
}

enum kl_status kl_peer_gemm(struct kl_context *kl, const char *peer,
                            const struct kl_gemm_problem *p, const struct kl_protocol *proto,
                            void *C, struct kl_stats *stats, char *what, size_t n, int *on_host,
                            struct kl_err *e)
{
    *on_host = 0;
    if (p->type != KL_FLOAT && p->type != KL_DOUBLE)
        return kl_fail(e, KL_ERR_UNSUPPORTED, "vendor GEMMs are float and double only");
    if (strcmp(peer, "clblast") == 0)
        return kl_clblast_gemm(kl, p, proto, C, stats, what, n, e);
    if (strcmp(peer, "cublas") == 0 || strcmp(peer, "cublas_tf32") == 0) {
        struct kl_gemm_problem q = *p;
        q.tf32 = strcmp(peer, "cublas_tf32") == 0;
        if (q.tf32 && p->type != KL_FLOAT)
            return kl_fail(e, KL_ERR_UNSUPPORTED, "TF32 multiplies float inputs (--type float)");
        return kl_cublas_gemm(kl, &q, proto, C, stats, what, n, e);
    }
    if (strcmp(peer, "openblas") == 0) {
        *on_host = 1;
        return kl_openblas_gemm(p, proto, C, stats, what, n, e);
    }
    return kl_fail(e, KL_ERR_ARG, "unknown peer \"%s\" (%s)", peer, kl_gemm_peer_names);
}
