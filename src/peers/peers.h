/*
 * Vendor libraries run beside a ladder as peers: the same data, the same
 * timing protocol, the same verification. Each is loaded with dlopen, so
 * kladder builds and runs without it; an absent library is one line
 * (KL_ERR_UNSUPPORTED with the reason), not an error.
 */
#ifndef KL_PEERS_H
#define KL_PEERS_H

#include "core/context.h"
#include "core/measure.h"
#include "core/report.h"

enum kl_layout { KL_ROW_MAJOR, KL_COL_MAJOR };

/* y = alpha·A·x + beta·y for an M×N matrix A in the given layout. */
struct kl_gemv_problem {
    enum kl_type type; /* KL_FLOAT or KL_DOUBLE */
    enum kl_layout layout;
    int M, N;
    const void *A, *x, *y0; /* y0: y before the call */
    double alpha, beta;
};

/*
 * Runs peer ("clblast" or "cublas") once into y (M elements, for the caller
 * to verify), then times it by proto into *stats. *what names the library
 * and call (e.g. "CLBlast 1.5 CLBlastSgemv, event time").
 */
enum kl_status kl_peer_gemv(struct kl_context *kl, const char *peer,
                            const struct kl_gemv_problem *p, const struct kl_protocol *proto,
                            void *y, struct kl_stats *stats, char *what, size_t n,
                            struct kl_err *e);

/*
 * C = A·B for row-major A (M×K) and B (K×N): alpha 1, beta 0. For a narrow
 * type (half, bf16, fp8, fp8e5m2, int8) C is of kl_type_output(type), and
 * Bt holds B transposed (N×K row-major: K-major, as FP8 and INT8 tensor
 * cores read both operands), made on the host once, untimed, for the rungs
 * and the libraries alike; NULL for the others.
 */
struct kl_gemm_problem {
    enum kl_type type;
    int M, N, K;
    const void *A, *B;
    int tf32; /* float inputs may be rounded to TF32 (cuBLAS's FAST_TF32 compute type) */
    const void *Bt;
    int fast; /* FP8: sums kept in the tensor cores over all of K (cuBLASLt's FAST_ACCUM) */
};

/*
 * Runs peer ("cublas", "cublas_tf32", "cublaslt", "clblast" or "openblas")
 * once into C (M×N, for the caller to verify), then times it by proto into
 * *stats. *what names the library, the call and the clock; *on_host is set
 * for a host library. cublas_tf32 is cuBLAS with
 * CUBLAS_COMPUTE_32F_FAST_TF32, float only; p->tf32 is ignored (the name
 * decides). cublaslt (cublasLtMatmul) takes the narrow types only, the
 * others float and double: any other pair is KL_ERR_UNSUPPORTED saying so.
 * cublaslt_fast is cuBLASLt with FP8's fast accumulation, FP8 only; p->fast
 * is ignored likewise.
 */
enum kl_status kl_peer_gemm(struct kl_context *kl, const char *peer,
                            const struct kl_gemm_problem *p, const struct kl_protocol *proto,
                            void *C, struct kl_stats *stats, char *what, size_t n, int *on_host,
                            struct kl_err *e);

/* The arithmetic of a peer's results in type t: TF32 for cublas_tf32, else the type's own. */
enum kl_precision kl_peer_gemm_precision(const char *name, enum kl_type t);
/*
 * FP8 (t e4m3 or e5m2): the elements of K a peer sums in the tensor cores
 * before fp32 takes the sums over (kl_gemm_sum_span): K for cublaslt_fast,
 * 128 for cublaslt (undocumented; on an H200 its errors equal rung 20's
 * promoted every 128, to three digits at every depth); 0 for other types
 * and peers.
 */
int kl_peer_gemm_sum_span(const char *name, enum kl_type t, int K);

/*
 * A Gaussian blur for a library: a W×H picture, rows packed, of float (one
 * channel) or RGBA8 pixels; the 2R+1 weights; borders replicate the edge.
 */
struct kl_blur_problem {
    int rgba8; /* 1: RGBA8 pixels, 0: float */
    int W, H, R;
    const void *src;
    const float *w;
};

/*
 * Runs peer ("npp") once into out (W·H pixels, for the caller to verify),
 * then times it by proto into *stats; *what names the library and call.
 */
enum kl_status kl_peer_blur(struct kl_context *kl, const char *peer,
                            const struct kl_blur_problem *p, const struct kl_protocol *proto,
                            void *out, struct kl_stats *stats, char *what, size_t n,
                            struct kl_err *e);

/*
 * The sum, minimum or maximum of n elements of type t (float, double or int;
 * int sums wrap modulo 2^32): op 0, 1 or 2 as enum kl_reduce_op.
 */
struct kl_reduce_problem {
    enum kl_type type;
    int op;
    int n;
    const void *x;
};
/*
 * Runs peer ("cub") once into out (one element, for the caller to verify),
 * then times it by proto into *stats; *what names the library and call.
 */
enum kl_status kl_peer_reduce(struct kl_context *kl, const char *peer,
                              const struct kl_reduce_problem *p, const struct kl_protocol *proto,
                              void *out, struct kl_stats *stats, char *what, size_t n,
                              struct kl_err *e);
/* The inclusive or exclusive prefix sums of n elements (float, or int wrapping modulo 2^32). */
struct kl_scan_problem {
    enum kl_type type;
    int exclusive;
    int n;
    const void *x;
};
/* Runs peer ("cub") once into out (n elements), then times it by proto into *stats. */
enum kl_status kl_peer_scan(struct kl_context *kl, const char *peer,
                            const struct kl_scan_problem *p, const struct kl_protocol *proto,
                            void *out, struct kl_stats *stats, char *what, size_t n,
                            struct kl_err *e);

/* A histogram of n bytes into bins (2..256) even bins over [0, 256): byte v counts in bin
   v·bins/256. */
struct kl_histogram_problem {
    int n;
    int bins;
    const unsigned char *x;
};
/* Runs peer ("cub") once into out (bins uint32 counts), then times it by proto into *stats. */
enum kl_status kl_peer_histogram(struct kl_context *kl, const char *peer,
                                 const struct kl_histogram_problem *p,
                                 const struct kl_protocol *proto, void *out,
                                 struct kl_stats *stats, char *what, size_t n, struct kl_err *e);

/*
 * The transpose of a row-major m×n matrix of type t (float, double, half or bf16: elements
 * moved, not computed) into n×m; in_place: a square matrix transposed where it lies.
 */
struct kl_transpose_problem {
    enum kl_type type;
    int m, n;
    int in_place;
    const void *a;
};
/* Runs peer ("cublas", "clblast") once into out (n·m elements), then times it by proto. */
enum kl_status kl_peer_transpose(struct kl_context *kl, const char *peer,
                                 const struct kl_transpose_problem *p,
                                 const struct kl_protocol *proto, void *out, struct kl_stats *stats,
                                 char *what, size_t n, struct kl_err *e);

/* Rows of rows·cols elements (float, half or bf16), op 0 softmax, 1 layer norm, 2 RMS norm
   (enum kl_softmax_op), each row normalised on its own; the norms' gamma, beta (layer norm)
   and eps. */
struct kl_softmax_problem {
    enum kl_type type;
    int op;
    int rows, cols;
    const void *x;
    float gamma, beta, eps;
};
/* Runs peer ("cudnn") once into out (rows·cols elements), then times it by proto. */
enum kl_status kl_peer_softmax(struct kl_context *kl, const char *peer,
                               const struct kl_softmax_problem *p, const struct kl_protocol *proto,
                               void *out, struct kl_stats *stats, char *what, size_t n,
                               struct kl_err *e);

/*
 * A vendor library as a peer of one workload's ladder: its --compare word,
 * the ladder, and its run (the one of gemm, gemv, blur, reduce, scan, histogram, transpose,
 * softmax that is not NULL).
 * cublas and cublas_tf32 are one library run two ways; cublaslt is cuBLAS's
 * matmul API, for the narrow types.
 */
struct kl_peer_def {
    const char *name;     /* "cublas_tf32" */
    const char *workload; /* "gemm", "gemv", "blur", "reduce", "scan", "histogram", ... */
    int tf32;             /* gemm: float inputs rounded to TF32 (its results' precision) */
    int on_host;          /* a host library */
    int narrow;           /* gemm: the narrow input types only (half, bf16, fp8s, int8) */
    int fast;             /* gemm: FP8 only, its sums kept in the tensor cores over all of K */
    enum kl_status (*gemm)(struct kl_context *kl, const struct kl_gemm_problem *p,
                           const struct kl_protocol *proto, void *C, struct kl_stats *stats,
                           char *what, size_t n, struct kl_err *e);
    enum kl_status (*gemv)(struct kl_context *kl, const struct kl_gemv_problem *p,
                           const struct kl_protocol *proto, void *y, struct kl_stats *stats,
                           char *what, size_t n, struct kl_err *e);
    enum kl_status (*blur)(struct kl_context *kl, const struct kl_blur_problem *p,
                           const struct kl_protocol *proto, void *out, struct kl_stats *stats,
                           char *what, size_t n, struct kl_err *e);
    enum kl_status (*reduce)(struct kl_context *kl, const struct kl_reduce_problem *p,
                             const struct kl_protocol *proto, void *out, struct kl_stats *stats,
                             char *what, size_t n, struct kl_err *e);
    enum kl_status (*scan)(struct kl_context *kl, const struct kl_scan_problem *p,
                           const struct kl_protocol *proto, void *out, struct kl_stats *stats,
                           char *what, size_t n, struct kl_err *e);
    enum kl_status (*histogram)(struct kl_context *kl, const struct kl_histogram_problem *p,
                                const struct kl_protocol *proto, void *out,
                                struct kl_stats *stats, char *what, size_t n, struct kl_err *e);
    enum kl_status (*transpose)(struct kl_context *kl, const struct kl_transpose_problem *p,
                                const struct kl_protocol *proto, void *out, struct kl_stats *stats,
                                char *what, size_t n, struct kl_err *e);
    enum kl_status (*softmax)(struct kl_context *kl, const struct kl_softmax_problem *p,
                              const struct kl_protocol *proto, void *out, struct kl_stats *stats,
                              char *what, size_t n, struct kl_err *e);
};

/* The peer of that name for workload, or NULL. */
const struct kl_peer_def *kl_peer_find(const char *workload, const char *name);
/* The workload's peers for messages, in the table's order: "clblast or cublas". */
void kl_peer_names(const char *workload, char *out, size_t n);
/* KL_OK when workload has every one of names as a peer, else which it has (KL_ERR_ARG). */
enum kl_status kl_peers_check(const char *workload, const char *const *names, int n,
                              struct kl_err *e);

struct kl_result;
/*
 * The row of a peer after its run returned st (e the reason): a library
 * that is absent or cannot take the problem (KL_ERR_UNSUPPORTED) is a
 * skipped row and any other error a failed one, each with the reason; on
 * success what ran goes into the row's options. Returns 1 when the row's
 * result is to be verified, as every rung's is.
 */
int kl_peer_row(struct kl_result *res, enum kl_status st, const struct kl_err *e, const char *what);
/* After the row's check: a verified peer's row keeps its times and launches; any other, none. */
void kl_peer_keep(struct kl_result *res, const struct kl_stats *stats);
/*
 * A new row of rep for peer, named "peer:NAME" and marked a peer's, before the peer runs (the
 * measurement's memory of kladder's last launch forgotten); NULL with e set when host memory
 * is out.
 */
struct kl_result *kl_peer_result(struct kl_report *rep, const char *peer, struct kl_err *e);

#endif /* KL_PEERS_H */
