/*
 * The peers as one table: each library's --compare word, the ladder it
 * joins and its run; the dispatch, the checks of a request's peers and the
 * messages that list them all read it.
 */
#include <stdio.h>
#include <string.h>

#include "core/report.h"
#include "peers/peers_impl.h"

/* OpenBLAS runs on the host: no context. */
static enum kl_status openblas_gemm(struct kl_context *kl, const struct kl_gemm_problem *p,
                                    const struct kl_protocol *proto, void *C,
                                    struct kl_stats *stats, char *what, size_t n, struct kl_err *e)
{
    (void)kl;
    return kl_openblas_gemm(p, proto, C, stats, what, n, e);
}

/* Each workload's peers in the order its messages list them. */
static const struct kl_peer_def peers[] = {
    {"cublas", "gemm", .gemm = kl_cublas_gemm},
    {"cublas_tf32", "gemm", .tf32 = 1, .gemm = kl_cublas_gemm},
    {"cublaslt", "gemm", .narrow = 1, .gemm = kl_cublaslt_gemm},
    {"cublaslt_fast", "gemm", .narrow = 1, .fast = 1, .gemm = kl_cublaslt_gemm},
    {"clblast", "gemm", .gemm = kl_clblast_gemm},
    {"openblas", "gemm", .on_host = 1, .gemm = openblas_gemm},
    {"clblast", "gemv", .gemv = kl_clblast_gemv},
    {"cublas", "gemv", .gemv = kl_cublas_gemv},
    {"npp", "blur", .blur = kl_npp_blur},
    {"cub", "reduce", .reduce = kl_cub_reduce},
    {"clblast", "reduce", .reduce = kl_clblast_reduce},
    {"cub", "scan", .scan = kl_cub_scan},
    {"cub", "histogram", .histogram = kl_cub_histogram},
    {"cublas", "transpose", .transpose = kl_cublas_transpose},
    {"clblast", "transpose", .transpose = kl_clblast_transpose},
    {"cudnn", "softmax", .softmax = kl_cudnn_softmax},
};
#define COUNT ((int)(sizeof peers / sizeof *peers))

const struct kl_peer_def *kl_peer_find(const char *workload, const char *name)
{
    for (int i = 0; i < COUNT; i++)
        if (strcmp(peers[i].workload, workload) == 0 && strcmp(peers[i].name, name) == 0)
            return &peers[i];
    return NULL;
}

void kl_peer_names(const char *workload, char *out, size_t n)
{
    int total = 0, k = 0;
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < COUNT; i++)
        total += strcmp(peers[i].workload, workload) == 0;
    for (int i = 0; i < COUNT && used < n; i++)
        if (strcmp(peers[i].workload, workload) == 0) {
            const char *sep = k == 0 ? "" : k == total - 1 ? " or " : ", ";
            used += (size_t)snprintf(out + used, n - used, "%s%s", sep, peers[i].name);
            k++;
        }
}

enum kl_status kl_peers_check(const char *workload, const char *const *names, int n,
                              struct kl_err *e)
{
    for (int j = 0; j < n; j++)
        if (!kl_peer_find(workload, names[j])) {
            char known[128];
            kl_peer_names(workload, known, sizeof known);
            return kl_fail(e, KL_ERR_ARG, "unknown peer \"%s\" for %s (%s)", names[j], workload,
                           known);
        }
    return KL_OK;
}

/* The peer of that name for workload, or the failure that says which there are. */
static const struct kl_peer_def *peer_of(const char *workload, const char *name, struct kl_err *e)
{
    const struct kl_peer_def *d = kl_peer_find(workload, name);
    if (!d)
        kl_peers_check(workload, &name, 1, e);
    return d;
}

enum kl_status kl_peer_gemv(struct kl_context *kl, const char *peer,
                            const struct kl_gemv_problem *p, const struct kl_protocol *proto,
                            void *y, struct kl_stats *stats, char *what, size_t n, struct kl_err *e)
{
    const struct kl_peer_def *d = peer_of("gemv", peer, e);
    return d ? d->gemv(kl, p, proto, y, stats, what, n, e) : KL_ERR_ARG;
}

enum kl_status kl_peer_blur(struct kl_context *kl, const char *peer,
                            const struct kl_blur_problem *p, const struct kl_protocol *proto,
                            void *out, struct kl_stats *stats, char *what, size_t n,
                            struct kl_err *e)
{
    const struct kl_peer_def *d = peer_of("blur", peer, e);
    return d ? d->blur(kl, p, proto, out, stats, what, n, e) : KL_ERR_ARG;
}

enum kl_status kl_peer_reduce(struct kl_context *kl, const char *peer,
                              const struct kl_reduce_problem *p, const struct kl_protocol *proto,
                              void *out, struct kl_stats *stats, char *what, size_t n,
                              struct kl_err *e)
{
    const struct kl_peer_def *d = peer_of("reduce", peer, e);
    return d ? d->reduce(kl, p, proto, out, stats, what, n, e) : KL_ERR_ARG;
}

enum kl_status kl_peer_scan(struct kl_context *kl, const char *peer,
                            const struct kl_scan_problem *p, const struct kl_protocol *proto,
                            void *out, struct kl_stats *stats, char *what, size_t n,
                            struct kl_err *e)
{
    const struct kl_peer_def *d = peer_of("scan", peer, e);
    return d ? d->scan(kl, p, proto, out, stats, what, n, e) : KL_ERR_ARG;
}

enum kl_status kl_peer_histogram(struct kl_context *kl, const char *peer,
                                 const struct kl_histogram_problem *p,
                                 const struct kl_protocol *proto, void *out,
                                 struct kl_stats *stats, char *what, size_t n, struct kl_err *e)
{
    const struct kl_peer_def *d = peer_of("histogram", peer, e);
    return d ? d->histogram(kl, p, proto, out, stats, what, n, e) : KL_ERR_ARG;
}

enum kl_status kl_peer_transpose(struct kl_context *kl, const char *peer,
                                 const struct kl_transpose_problem *p,
                                 const struct kl_protocol *proto, void *out, struct kl_stats *stats,
                                 char *what, size_t n, struct kl_err *e)
{
    const struct kl_peer_def *d = peer_of("transpose", peer, e);
    return d ? d->transpose(kl, p, proto, out, stats, what, n, e) : KL_ERR_ARG;
}

enum kl_status kl_peer_softmax(struct kl_context *kl, const char *peer,
                               const struct kl_softmax_problem *p, const struct kl_protocol *proto,
                               void *out, struct kl_stats *stats, char *what, size_t n,
                               struct kl_err *e)
{
    const struct kl_peer_def *d = peer_of("softmax", peer, e);
    return d ? d->softmax(kl, p, proto, out, stats, what, n, e) : KL_ERR_ARG;
}

enum kl_precision kl_peer_gemm_precision(const char *name, enum kl_type t)
{
    const struct kl_peer_def *d = kl_peer_find("gemm", name);
    return d && d->tf32 ? KL_PREC_TF32 : kl_precision_of_type(t);
}

int kl_peer_gemm_sum_span(const char *name, enum kl_type t, int K)
{
    const struct kl_peer_def *d = kl_peer_find("gemm", name);
    if (!kl_type_fp8(t) || !d || !d->narrow)
        return 0;
    return d->fast ? K : 128;
}

struct kl_result *kl_peer_result(struct kl_report *rep, const char *peer, struct kl_err *e)
{
    char name[64];
    snprintf(name, sizeof name, "peer:%s", peer);
    struct kl_result *res = kl_report_add(rep, name, NULL);
    if (!res) {
        kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory");
        return NULL;
    }
    res->peer = 1;
    kl_measure_forget();
    return res;
}

void kl_peer_keep(struct kl_result *res, const struct kl_stats *stats)
{
    if (res->status != KL_RESULT_VERIFIED)
        return;
    kl_result_set_stats(res, stats);
    kl_result_keep_measured(res);
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

/* KL_OK where peer d multiplies inputs of type t, else why not (KL_ERR_UNSUPPORTED). */
static enum kl_status gemm_takes(const struct kl_peer_def *d, enum kl_type t, struct kl_err *e)
{
    if (d->tf32 && t != KL_FLOAT)
        return kl_fail(e, KL_ERR_UNSUPPORTED, "TF32 multiplies float inputs (--type float)");
    if (d->fast && !kl_type_fp8(t))
        return kl_fail(e, KL_ERR_UNSUPPORTED,
                       "fast accumulation is FP8's (--type fp8 or fp8e5m2); %s sums are %s",
                       kl_type_name(t), t == KL_INT8 ? "exact" : "fp32 already");
    if (d->narrow && !kl_type_narrow(t))
        return kl_fail(e, KL_ERR_UNSUPPORTED,
                       "%s runs the narrow types (half, bf16, fp8, fp8e5m2, int8), not %s: for "
                       "float and double use cublas",
                       d->name, kl_type_name(t));
    if (!d->narrow && kl_type_narrow(t))
        return kl_fail(e, KL_ERR_UNSUPPORTED,
                       "%s multiplies float and double only; %s inputs: --compare cublaslt "
                       "(NVIDIA GPUs)",
                       d->name, kl_type_name(t));
    if (!d->narrow && t != KL_FLOAT && t != KL_DOUBLE)
        return kl_fail(e, KL_ERR_UNSUPPORTED, "vendor GEMMs are float and double only");
    return KL_OK;
}

enum kl_status kl_peer_gemm(struct kl_context *kl, const char *peer,
                            const struct kl_gemm_problem *p, const struct kl_protocol *proto,
                            void *C, struct kl_stats *stats, char *what, size_t n, int *on_host,
                            struct kl_err *e)
{
    const struct kl_peer_def *d = peer_of("gemm", peer, e);
    *on_host = 0;
    if (!d)
        return KL_ERR_ARG;
    enum kl_status st = gemm_takes(d, p->type, e);
    if (st != KL_OK)
        return st;
    struct kl_gemm_problem q = *p;
    q.tf32 = d->tf32;
    q.fast = d->fast;
    *on_host = d->on_host;
    return d->gemm(kl, &q, proto, C, stats, what, n, e);
}
