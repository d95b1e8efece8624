/*
 * What the parts of the GEMM workload share; gemm.h is its face to the rest
 * of kladder. The files, each calling only those before it:
 *   rungs.c      the rung table, each rung's limits and launch geometry
 *   presets.c    where a rung's values come from (--param, tuned, presets)
 *   session.c    the problem, its host and device buffers, the request's checks
 *   reference.c  the reference and the verdict on a result
 *   launch.c     a rung's kernel: the copies that pad A and B first, its build,
 *                its arguments (Hopper's tensor maps); one launch on given buffers
 *   ozaki.c      rung 22's launches, made of rung 20's kernel and its own
 *   run.c        any rung run once verified, then timed; kl_gemm
 *   peers.c      the vendor libraries' rows
 *   bench.c      the tuner's bench: one problem, many candidates
 *   ladder.c     the ladder
 * Their sections below are in the same order.
 */
#ifndef KL_GEMM_PARTS_H
#define KL_GEMM_PARTS_H

#include "workloads/gemm/gemm.h"

#define KL_GEMM_GUARD 1024 /* elements past C that a correct kernel never writes */
#define KL_OZAKI_MAX 16    /* moduli of rung 22 at most */

/* ---- the rung table (rungs.c) -------------------------------------------- */

/* The launch geometry of rung r, from M, N and its values v. */
void kl_gemm_shape(const struct kl_gemm_rung *r, const int *v, int M, int N, struct kl_launch *s);

/*
 * Limits rung r with values v must fit in type t with launch l before it is
 * built: its relations, the device, work-group and local memory, a CPU's
 * private arrays. KL_ERR_ARG or KL_ERR_UNSUPPORTED with the reason.
 */
enum kl_status kl_gemm_rung_check(const struct kl_context *kl, const struct kl_gemm_rung *r,
                                  const int *v, enum kl_type t, const struct kl_launch *l,
                                  struct kl_err *e);

/* ---- a rung's values (presets.c) ----------------------------------------- */

/* A rung's values: defaults, the items, then the constraints between them. */
enum kl_status kl_gemm_resolve(const struct kl_gemm_rung *r, const char *const *items, int nitems,
                               int *values, unsigned *mask, struct kl_err *e);
/* kl_gemm_resolve of items given by a caller, which may name only rung r's parameters. */
enum kl_status kl_gemm_resolve_items(const struct kl_gemm_rung *r, const char *const *items,
                                     int nitems, int *values, struct kl_err *e);
/* A rung's values in a ladder: --param, else tuned, else its preset, else its defaults. */
enum kl_status kl_gemm_resolve_request(const struct kl_gemm_request *req,
                                       const struct kl_device_info *dev,
                                       const struct kl_gemm_rung *r, int *values, unsigned *mask,
                                       char *config, size_t n, struct kl_err *e);
/* The values a ladder runs rung r with: kl_gemm_resolve_request's, then the schedule's rules
   (kl_gemm_schedule_rules) where the user's --param leaves them and presets are on. */
enum kl_status kl_gemm_ladder_values(const struct kl_gemm_request *req,
                                     const struct kl_device_info *dev,
                                     const struct kl_gemm_rung *r, int *values, unsigned *mask,
                                     char *config, size_t n, struct kl_err *e);

/* 1 where stream-K's rule gives a Hopper rung SK=1 at M x N x K with these values (its SK 0). */
int kl_gemm_stream_k_rule(const struct kl_gemm_rung *r, const struct kl_device_info *dev,
                          enum kl_type t, int M, int N, int K, const int *values);
/* 1 where the residual's rule gives Hopper's 3xTF32 rung PAD=0 on dev at N columns and K
   (its PAD 1): A split in shared memory where kernel pad's pass over A would cost more (N
   small). */
int kl_gemm_residual_rule(const struct kl_gemm_rung *r, const struct kl_device_info *dev,
                          const int *values, int N, int K);
/* 1 where the L2 rule gives rung 20 HINT=3 on dev in type t at this K (its HINT 0): C's stores
   let go from L2 first and the operands' copies kept, where K is short. */
int kl_gemm_l2_rule(const struct kl_gemm_rung *r, const struct kl_device_info *dev, enum kl_type t,
                    const int *values, int K);
/* A tile of C: BM rows by BN columns, the STAGES it was measured with and the CLUSTER of
   blocks it runs in (each 0: as the values have it). */
struct kl_gemm_tile {
    int bm, bn, stages, cluster;
};
/* The tiles' rule (gemm/presets.c): the tile the waves it makes on dev favour for rung r in
   type t at M x N, or NULL where the rung's reference tile stays (or the rung and type have
   no measured tiles). */
const struct kl_gemm_tile *kl_gemm_tile_rule(const struct kl_gemm_rung *r,
                                             const struct kl_device_info *dev, enum kl_type t,
                                             int M, int N);
/* The schedule's rules on values the user left alone (not tuned ones: config says where they
   came from): the tiles' rule where the values hold the rung's reference tile (the defaults',
   or a preset's that keeps it), PAD=0 by the residual's, then SK=1 by stream-K's, else
   SPLITK by split-K's; what they set is added to config (n bytes). */
void kl_gemm_schedule_rules(const struct kl_gemm_rung *r, const struct kl_device_info *dev,
                            const struct kl_gemm_request *q, int *values, char *config, size_t n);

/* ---- the problem and its buffers (session.c) ----------------------------- */

/*
 * The problem and what the device holds of it. Device buffers (and B
 * transposed, for column-major rungs) are made when the first rung that
 * needs them runs, so host rungs and row-major rungs cost no extra memory.
 */
struct gemm_session {
    struct kl_context *kl;
    enum kl_type type;
    int M, N, K;
    const void *A, *B;
    void *Bt;     /* B transposed, for column-major rungs */
    void *poison; /* M·N + KL_GEMM_GUARD elements of C's type: NaN, or INT32_MAX for int(8) */
    void *out;    /* M·N + KL_GEMM_GUARD elements read back after the verified launch */
    struct kl_buf *dA, *dB, *dBt, *dC;
    struct kl_buf *dBp; /* B in padded rows, for b_pitch and Hopper rungs (see pitch16) */
    struct kl_buf *dAp; /* A so, for Hopper rungs (both made on the device when needed) */
    struct kl_buf *dAr; /* A's residual a - tf32(a), rows as dAp's, for 3xTF32's Hopper rung */
    /* rung 22: the rows' exponents (A's, B's), the INT8 residues of A and of Bᵀ and the
       products' residues, a plane per modulus, the reconstruction's constants, and a view of
       each plane */
    struct kl_buf *oz[6], *oz_view[3][KL_OZAKI_MAX];
    size_t oz_bytes[6]; /* their sizes */
    /* a rung's workspace: stream-K's flags and partial tiles (a Hopper rung with SK=1), or
       split-K's partial products of C (SPLITK > 1) */
    struct kl_buf *ws;
    size_t ws_bytes;
};

void kl_gemm_session_init(struct gemm_session *s, struct kl_context *kl, enum kl_type t, int M,
                          int N, int K, const void *A, const void *B);
void kl_gemm_session_free(struct gemm_session *s);
/* The bytes of C: M x N sums in the type C is returned in (kl_type_output), which is wider
   than the inputs' for the narrow types (float for half, int32 for int8). */
size_t kl_gemm_c_bytes(const struct gemm_session *s);
/*
 * A device buffer of elems elements into *out, unless it is made: of the
 * inputs' type, or for s->dC of the type C is returned in (kl_type_output).
 */
enum kl_status kl_gemm_session_buffer(struct gemm_session *s, size_t elems, struct kl_buf **out);
/* B transposed on the host (s->Bt, N×K), made once: column-major rungs' and libraries' B. */
enum kl_status kl_gemm_session_bt(struct gemm_session *s);
/* What a device rung with this B layout needs, made once. */
enum kl_status kl_gemm_session_device(struct gemm_session *s, int b_col);

/*
 * A request every rung can take (a known type the device has, sizes within
 * 32-bit indexing and the device's memory), checked before any host memory
 * is touched.
 */
enum kl_status kl_gemm_request_check(const struct kl_context *kl, enum kl_type t, int M, int N,
                                     int K, struct kl_err *e);

/* ---- the reference and the verdict (reference.c) ------------------------- */

/*
 * The reference: exact products summed in double, and for each checked
 * element the sum of |a·b| that scales its tolerance. Full when affordable
 * (OpenBLAS, or a host loop up to ~1e9 multiply-adds), else on a random
 * sample of elements; either way every device rung is also compared in
 * full with the first device rung.
 */
struct gemm_ref {
    size_t n;    /* elements checked */
    size_t *idx; /* their indices in C; NULL: all, in order */
    double *ref, *scale;
    double max_scale;
    char how[128];
};

/* The first verified device result, which every later one must also match. */
struct gemm_baseline {
    const void *C;               /* NULL: none yet */
    const char *name;            /* for messages */
    enum kl_precision precision; /* whose tolerance it met */
    int sum_span;                /* and its FP8 sums' span (kl_gemm_sum_span) */
};

/* The reference of the session's A and B into g (seed picks the sample where one is taken). */
enum kl_status kl_gemm_ref_compute(const struct gemm_session *s, unsigned long long seed,
                                   struct gemm_ref *g, struct kl_err *e);
void kl_gemm_ref_free(struct gemm_ref *g);
/* The verdict on C into res: against the reference, then in full against the baseline. */
void kl_gemm_judge(const struct gemm_session *s, const struct gemm_ref *g, const void *C,
                   const struct gemm_baseline *baseline, struct kl_result *res);

/* ---- a device rung's launch (launch.c) ----------------------------------- */

/*
 * A device rung's launches, timed as one: B's packing where the rung needs
 * it, then the product (pair.a is the first of them, pair.b the second or
 * NULL). Lives where it was prepared: pair points into it.
 */
struct rung_launch {
    struct kl_launch pack, gemm;
    struct kl_launch sum; /* split-K's sum of the partial products after gemm (SPLITK > 1) */
    struct kl_launch_pair pair;
    /* further launches: split-K's sum after a copy and the product, or a composed rung's
       (rung 22: its INT8 products and reconstruction) */
    struct kl_launch steps[KL_OZAKI_MAX + 1];
    struct kl_launch *order[KL_OZAKI_MAX + 1];
};

/* The row pitches rung r reads A and B with; 1 where a copy (pad or pack_b) runs first. */
int kl_gemm_pitches(const struct gemm_session *s, const struct kl_gemm_rung *r, const int *values,
                    int *lda, int *ldb);
/* The build options of the copies before a product: the element type's alone. */
void kl_gemm_copy_options(enum kl_type type, char *out, size_t n);
/*
 * Builds rung r with these values in type t (cached on kl) into l, with the option extra
 * after its own (NULL: none); checks the kernel's limits.
 */
enum kl_status kl_gemm_build_rung(struct kl_context *kl, const struct kl_gemm_rung *r,
                                  const int *values, enum kl_type type, const char *extra,
                                  struct kl_launch *l, struct kl_timing *t);

/*
 * Stream-K's workspace in the session for rung r with values v launched as l
 * (SK=1): its flags zeroed, room for its partial tiles.
 */
enum kl_status kl_gemm_stream_k_workspace(struct gemm_session *s, const struct kl_gemm_rung *r,
                                          const int *v, const struct kl_launch *l);

/* The matrices a device rung reads and writes, as its launch passes them. */
struct rung_bufs {
    struct kl_buf *A, *B, *C;
    struct kl_buf *R; /* A's residual for Hopper's 3xTF32 rung (NULL: it splits A itself) */
    int lda, ldb;     /* A's and B's row pitches */
    struct kl_buf *ws; /* stream-K's workspace, read by a Hopper rung with SK=1 only */
};

/*
 * A device rung's arguments into l: A, B in the layout the rung reads, C, M,
 * N, K, then what its kind adds (B's pitch, Hopper's tensor maps, dynamic
 * shared memory).
 */
void kl_gemm_rung_args(const struct kl_gemm_rung *r, const int *values, enum kl_type type, int M,
                       int N, int K, const struct rung_bufs *m, struct kl_launch *l);

/*
 * A rung of one kernel (every device rung but 22): checks its limits, makes its buffers,
 * builds it and describes its launches (the copy before the product where one runs).
 */
enum kl_status kl_gemm_prepare_kernel(struct gemm_session *s, const struct kl_gemm_rung *r,
                                      const int *values, struct kl_timing *t,
                                      struct rung_launch *rl);

/* ---- the Ozaki scheme II (ozaki.c) --------------------------------------- */

/* Rung 22's kernels for kl_kernel_prefetch (at most max, 2 wanted): its own module and rung
 * 20's product built for int8 with RESIDUES, as kl_gemm_ozaki_prepare builds them. */
int kl_gemm_ozaki_kernels(const struct kl_gemm_rung *r, const int *values,
                          struct kl_kernel_want *want, int max);

/* Rung 22's launches into rl, as kl_gemm_prepare_kernel makes a rung's: exponents, residues, the
   INT8 products (rung 20's int8 kernel, tile from its values) and the reconstruction. */
enum kl_status kl_gemm_ozaki_prepare(struct gemm_session *s, const struct kl_gemm_rung *r,
                                     const int *values, struct kl_timing *t,
                                     struct rung_launch *rl);

/* ---- one rung's run (run.c) ---------------------------------------------- */

/* Any rung's launches into rl: rung 22's (kl_gemm_ozaki_prepare), else its kernel's. */
enum kl_status kl_gemm_prepare(struct gemm_session *s, const struct kl_gemm_rung *r,
                               const int *values, struct kl_timing *t, struct rung_launch *rl);
/* A prepared launch run once on a poisoned C, read into C and checked for writes past it. */
enum kl_status kl_gemm_verified_run(struct gemm_session *s, struct kl_launch_pair *l, int b_col,
                                    void *C, double *first_s);
/* kl_gemm_verified_run, then the launch timed by the protocol and end to end into t. */
enum kl_status kl_gemm_time_launch(struct gemm_session *s, struct kl_launch_pair *l, int b_col,
                                   const struct kl_protocol *proto, void *C, struct kl_timing *t);
/* One rung, host or device, run into C and timed into t. */
enum kl_status kl_gemm_run_rung(struct gemm_session *s, const struct kl_gemm_rung *r,
                                const int *values, const struct kl_protocol *proto, void *C,
                                struct kl_timing *t);

/* ---- the vendor libraries (peers.c) -------------------------------------- */

/* A peer's row in rep: the product by library peer on the session's data, judged. */
enum kl_status kl_gemm_run_peer(struct gemm_session *s, const struct gemm_ref *g, const char *peer,
                                const struct kl_protocol *proto, void *C, struct kl_report *rep);
/* The peer rows a request asks for, in order, into out (room for 2 · npeers); the count. */
int kl_gemm_peer_rows(const struct kl_gemm_request *req, const char **out);

#endif /* KL_GEMM_PARTS_H */
