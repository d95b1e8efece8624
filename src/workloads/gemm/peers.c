/*
 * The vendor libraries' rows of a GEMM ladder (cuBLAS, CLBlast, OpenBLAS
 * through peers/peers.h), on the ladder's data and judged as its rungs are.
 */
#include "workloads/gemm/parts.h"

#include <stdio.h>
#include <string.h>

#include "peers/peers.h"

/*
 * A vendor library on the same data: a row of its own, verified against the
 * same reference with the tolerance of its precision.
 */
enum kl_status kl_gemm_run_peer(struct gemm_session *s, const struct gemm_ref *g, const char *peer,
                                const struct kl_protocol *proto, void *C, struct kl_report *rep)
{
    char name[64], what[256] = "";
    struct kl_stats stats;
    struct kl_err e;
    int on_host = 0;
    snprintf(name, sizeof name, "peer:%s", peer);
    struct kl_result *res = kl_report_add(rep, name, NULL);
    if (!res)
        return kl_fail(&s->kl->err, KL_ERR_NO_MEMORY, "out of host memory");
    res->peer = 1;
    res->on_host = strcmp(peer, "openblas") == 0;
    res->precision = kl_peer_gemm_precision(peer, s->type);
    res->sum_span = kl_peer_gemm_sum_span(peer, s->type, s->K);
    enum kl_status st = kl_type_narrow(s->type) ? kl_gemm_session_bt(s) : KL_OK;
    if (st != KL_OK)
        return st;
    struct kl_gemm_problem p = {s->type, s->M, s->N, s->K, s->A, s->B, 0, s->Bt, 0};
    kl_measure_forget();
    st = kl_peer_gemm(s->kl, peer, &p, proto, C, &stats, what, sizeof what, &on_host, &e);
    res->on_host |= on_host;
    if (!kl_peer_row(res, st, &e, what))
        return KL_OK;
    kl_gemm_judge(s, g, C, NULL, res);
    kl_peer_keep(res, &stats);
    return KL_OK;
}

/* 1 where the request names peer. */
static int names_peer(const struct kl_gemm_request *req, const char *peer)
{
    for (int j = 0; j < req->npeers; j++)
        if (strcmp(req->peers[j], peer) == 0)
            return 1;
    return 0;
}

/*
 * The peer rows a request asks for, in order: "cublas" is two rows for
 * float, SGEMM (fp32) and cublas_tf32 (TF32), unless cublas_tf32 is named
 * on its own; "cublaslt" is two for FP8, its sums promoted to fp32 and
 * cublaslt_fast, unless that is named. out has room for 2 · req->npeers
 * names; returns the count.
 */
int kl_gemm_peer_rows(const struct kl_gemm_request *req, const char **out)
{
    int n = 0, tf32_named = names_peer(req, "cublas_tf32"),
        fast_named = names_peer(req, "cublaslt_fast");
    int fp8 = kl_type_fp8(req->type);
    for (int j = 0; j < req->npeers; j++) {
        out[n++] = req->peers[j];
        if (strcmp(req->peers[j], "cublas") == 0 && req->type == KL_FLOAT && !tf32_named)
            out[n++] = "cublas_tf32";
        if (strcmp(req->peers[j], "cublaslt") == 0 && fp8 && !fast_named)
            out[n++] = "cublaslt_fast";
    }
    return n;
}
