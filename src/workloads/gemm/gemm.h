/*
 * GEMM, C = A·B for any M, N, K: the ladder of seed 004 (host loop orders,
 * then device rungs from naive to float8), seed 002's tiled rung, and the
 * rungs past them: register and warp tiles (11-14) and the tensor cores (15-18:
 * mma.sync, then Hopper's wgmma fed by TMA; TF32 and 3xTF32; 19: mma.sync in the
 * narrow types' own precision; 21: FP64 by DMMA).
 */
#ifndef KL_GEMM_H
#define KL_GEMM_H

#include "core/context.h"
#include "core/launch.h"
#include "core/measure.h"
#include "core/params.h"
#include "core/report.h"
#include "core/user_rung.h"
#include "kladder.h"

/* How the launch geometry follows from M, N, K and the parameters. */
enum kl_geometry {
    KL_GEO_HOST,       /* a CPU loop, no launch */
    KL_GEO_2D,         /* dim 0 over rows of C, dim 1 over columns; local WG0 × WG1 */
    KL_GEO_ROWS,       /* 1-D over rows of C; local WG */
    KL_GEO_TILE,       /* dim 0 over columns, dim 1 over rows; local TS × TS */
    KL_GEO_BLOCK,      /* a work-group per BM × BN block of C (dim 0 its column, dim 1 its row);
                          local (BN/TN) × (BM/TM), each work-item a TM × TN block */
    KL_GEO_WARPS,      /* a work-group per BM × BN block of C, made of warps of WM × WN;
                          local 32·(BN/WN) × (BM/WM) */
    KL_GEO_PERSISTENT, /* one block per multiprocessor (at most one per BM × BN tile), each
                          looping over tiles; 1-D, local 128·(BN/64 + 1): a producer
                          warpgroup and a consumer warpgroup per 64 columns */
};

/*
 * Defaults for one architecture and a range of sizes, shipped with a rung:
 * what `kladder tune` found there (docs/RESULTS.md). A ladder uses them in
 * place of the rung's defaults when neither --param nor the tuned cache sets
 * its parameters, and the row says so. Sizes are the tuned cache's classes
 * (kl_tune_size_class: log2 of M·N·K, rounded); a preset may also hold only
 * for few rows of C (max_m), where a product of one volume is skinny.
 */
struct kl_gemm_preset {
    int cc;             /* compute capability × 10 (90: Hopper); 0 ends the list */
    enum kl_type type;  /* the element type it was tuned for (shared memory scales with it) */
    int max_class;      /* sizes up to this class; a rung's first preset that covers one wins */
    const char *params; /* "NAME=VALUE,NAME=VALUE" */
    int max_m;          /* M up to this; 0: any M */
};
#define KL_MAX_PRESETS 4

/* Local memory a rung declares, in elements, as a function of its parameters: elements of
   the sums' type (kl_type_output) up to BLOCK4X2, whose tiles hold converted inputs; of the
   inputs' type for the pipelines of copies (STAGES, MMA, WGMMA). */
enum kl_local_use {
    KL_LOCAL_NONE,
    KL_LOCAL_KC,       /* KC */
    KL_LOCAL_2TS2,     /* 2·TS² */
    KL_LOCAL_BLOCK,    /* BK·(BM + BN): the two tiles of a K-slice */
    KL_LOCAL_BLOCK4,   /* BK·(BM + 4·PAD + BN): A's tile padded by PAD vectors per row */
    KL_LOCAL_BLOCK4X2, /* 2·BK·(BM + 4·PAD + BN): two buffers of the above */
    KL_LOCAL_STAGES,   /* STAGES·BK·(BM + 4 + BN): a pipeline of K-slices, A's padded */
    KL_LOCAL_MMA,      /* STAGES (2 without that parameter) × (BM·(BK + 4) + BK·SB):
                          tensor-core rungs' slices, A's rows padded by 4, B's rows of
                          SB = BN rounded up to 8 more than a multiple of 32 */
    KL_LOCAL_WGMMA,    /* STAGES × 32·(BM + BN, + BM for 3xTF32's small parts) + 320:
                          unpadded 128-byte-swizzled slices of 32 K, 1 KiB to align them
                          to 1024 bytes, and 256 bytes that the kernel's barriers take as
                          static shared memory */
    KL_LOCAL_WGMMA_K,  /* STAGES × 128 bytes × (BM + BN) + 1280 bytes, whatever the type:
                          rung 20's slices of A and Bᵀ, rows of 128 bytes of K */
    KL_LOCAL_MMA_T,    /* STAGES × (BM + BN)·(BK + 16/size): both slices K-major (B
                          transposed), rows of BK elements padded by 16 bytes */
    KL_LOCAL_DMMA      /* STAGES × (BM·SA + BK·SB): rows of whole 128-byte lines, SA = BK
                          (16 at least), SB = BN rounded up to a multiple of 16 */
};

#define KL_TYPE_BIT(t) (1u << (t))
#define KL_TYPES_WIDE (KL_TYPE_BIT(KL_FLOAT) | KL_TYPE_BIT(KL_DOUBLE) | KL_TYPE_BIT(KL_INT))
#define KL_TYPES_NARROW                                                                            \
    (KL_TYPE_BIT(KL_HALF) | KL_TYPE_BIT(KL_BF16) | KL_TYPE_BIT(KL_FP8) | KL_TYPE_BIT(KL_FP8E5M2) | \
     KL_TYPE_BIT(KL_INT8))

struct kl_gemm_rung {
    const char *name;
    const char *summary; /* what changed from the rung before, and why */
    /* The arithmetic: NONE for the element type's own (fp32, fp64, int32 on the FMA and
       integer units); TF32 or 3XTF32 on tensor cores, which take float only. */
    enum kl_precision precision;
    /* The input types it takes: a mask of KL_TYPE_BIT (0: float, double and int, which it
       sums in their own type; a narrow type's products are summed in kl_type_output's). */
    unsigned types;
    /* Its products run on the tensor cores in the input type's own precision (mma.sync,
       wgmma, DMMA): the device must have them for that type (kl_tensor_type). */
    int tensor;
    const char *file; /* kernel file under kernels/, NULL for host rungs; a .cu file is
                         CUDA only, and its local memory is dynamic shared memory */
    void (*host)(enum kl_type t, int M, int N, int K, const void *A, const void *B, void *C);
    int b_col_major; /* the kernel reads B transposed (column-major) */
    /* The kernel takes B's row pitch after K, and its file a kernel pack_b: where N is not a
       multiple of 16 bytes, B is first copied into rows padded to one (timed with the product)
       so that the rung's 16-byte copies of B stay aligned. */
    int b_pitch;
    enum kl_geometry geometry;
    enum kl_local_use local;
    /* Hopper's wgmma and TMA (sm_90a): compute capability 9.0 only; the kernel takes tensor
       maps of A and B after K (kernels/cuda/gemm/17_wgmma_tf32.cu says how). */
    int hopper;
    int private_kc; /* each work-item holds a KC-long private array */
    /* The Ozaki scheme II's launches (gemm/ozaki.c: exponents, residues, INT8 products by
       rung 20's kernel, reconstruction) rather than one kernel of its file. */
    int ozaki;
    struct kl_param_def params[KL_MAX_PARAMS];
    struct kl_param_multiple multiples[KL_MAX_MULTIPLES]; /* e.g. BM a multiple of TM */
    /* Relations between values beyond multiples (NULL: none); KL_ERR_ARG with the reason. */
    enum kl_status (*relations)(const struct kl_gemm_rung *r, const int *values, enum kl_type t,
                                struct kl_err *e);
    struct kl_gemm_preset presets[KL_MAX_PRESETS];
};

int kl_gemm_rung_count(void);
const struct kl_gemm_rung *kl_gemm_rung_at(int i);
const struct kl_rung_table *kl_gemm_rungs(void); /* the registry's view */
/*
 * Exact name; else the one rung whose name is the prefix followed by '_'
 * ("15" is 15_mma_tf32, not 15cl_mma_tf32); else a unique prefix such as
 * "10" or "host_i".
 */
const struct kl_gemm_rung *kl_gemm_rung_find(const char *name);
/* Why kl_gemm_rung_find found none: the rungs name begins, or every rung (kl_rung_not_found). */
enum kl_status kl_gemm_rung_not_found(const char *name, const char *what, struct kl_err *e);

/* Bytes of local (shared) memory one work-group of rung r takes with these values in type t. */
size_t kl_gemm_local_bytes(const struct kl_gemm_rung *r, const int *values, enum kl_type t);

/* The precision of rung r's results in type t: its own, or the type's (fp32, fp64, int32). */
enum kl_precision kl_gemm_rung_precision(const struct kl_gemm_rung *r, enum kl_type t);

/*
 * 1 when rung r can run on kl's device in type t whatever its parameters;
 * else 0 and why (CUDA C++ on another backend, TF32 without tensor cores or
 * for a type other than float): such a rung is a skipped row in a ladder.
 */
int kl_gemm_rung_available(const struct kl_context *kl, const struct kl_gemm_rung *r,
                           enum kl_type t, char *why, size_t n);

/* Rung r's preset for this device, type t and M·N·K, or NULL (kl_gemm_preset). */
const struct kl_gemm_preset *kl_gemm_preset_find(const struct kl_gemm_rung *r,
                                                 const struct kl_device_info *dev, enum kl_type t,
                                                 int M, int N, int K);

/* What rung r runs with untuned in a ladder of type t at M x N x K on dev (no --param, no
   tuned set): its preset's values or its defaults, then the schedule's rules (the tiles',
   the residual's, the L2 rule, stream-K's or split-K's); config "preset sm_CC A=1 ..."
   and what each rule set, "" for the defaults alone. */
enum kl_status kl_gemm_untuned_values(const struct kl_gemm_rung *r,
                                      const struct kl_device_info *dev, enum kl_type t, int M,
                                      int N, int K, int *values, char *config, size_t n,
                                      struct kl_err *e);

/*
 * The tolerance factor a result of precision p must meet at depth K
 * (kl_dot_tolerance, or kl_tf32_tolerance for tf32; for FP8,
 * kl_fp8_tolerance with span elements of K summed in the tensor cores
 * between promotions to fp32: see kl_gemm_sum_span).
 */
double kl_gemm_tolerance(enum kl_precision p, enum kl_type t, int K, int span);

/*
 * FP8 inputs (e4m3, e5m2): the elements of K that rung r with these values
 * sums in the tensor cores before fp32 registers take the sums over: 1 on
 * the FMA units (every product in fp32), 32 for mma.sync (one instruction's
 * K: it adds into fp32 C), PROMOTE where it has that value (rung 20), else K
 * (PROMOTE=0: the fast mode). A span of K or more is all of K
 * (kl_fp8_tolerance). 0 for other types.
 */
int kl_gemm_sum_span(const struct kl_gemm_rung *r, const int *values, enum kl_type t, int K);
/* The words a row's note gives for that: "FP8 sums promoted to fp32 every 128 of K", ... */
const char *kl_gemm_sums_text(enum kl_type t, int K, int span, char *buf, size_t n);

/*
 * Parameters of one rung that replace its defaults (tuned values from
 * `kladder tune`); not used for a rung when --param sets any of its own.
 */
struct kl_ladder_tuner;

struct kl_gemm_rung_params {
    const char *rung;         /* its exact name */
    const char *const *items; /* "NAME=VALUE" */
    int nitems;
};

/* What `kladder gemm` asks for. */
struct kl_gemm_request {
    int M, N, K;
    enum kl_type type;
    unsigned long long seed;
    struct kl_protocol protocol;
    const char *const *params; /* "NAME=VALUE" */
    int nparams;
    const char *const *rungs; /* names or prefixes; NULL: the whole ladder */
    int nrungs;
    const struct kl_user_rung *users; /* the user's kernels (--kernel), after the table's */
    int nusers;
    const struct kl_ladder_tuner
        *tuner;               /* NULL; else the chosen rung is tuned (tune/ladder.c) */
    int host_rungs;           /* 0: when small enough, 1: always, -1: never */
    const char *const *peers; /* "cublas", "clblast", "openblas": a row each after the rungs */
    int npeers;
    const struct kl_gemm_rung_params *tuned; /* per-rung defaults (kladder tune) */
    int ntuned;
    int no_presets; /* 1: the rungs' own defaults, not their presets (kl_gemm_preset) */
};

/* Split-K's model (gemm/presets.c): how many times faster SPLITK = splits runs than 1 in rung
   r with values v (BM, BN, BK) at M x N x K in type t on `units` compute units; 0 where a
   split would have fewer than four slices of K. */
double kl_gemm_split_gain(const struct kl_gemm_rung *r, const int *v, enum kl_type t, size_t units,
                          int M, int N, int K, int splits);

/* 1 when the request runs rung r: named by --rung, or the whole ladder (host rungs unless -1). */
int kl_gemm_request_chooses(const struct kl_gemm_request *req, const struct kl_gemm_rung *r);

/*
 * Runs the requested rungs on the same random data, verifies each against
 * the reference and fills report. Returns an error only for bad requests or
 * broken devices; a rung that fails verification is a FAILED result.
 */
enum kl_status kl_gemm_ladder(struct kl_context *kl, const struct kl_gemm_request *req,
                              struct kl_report *report);

/* ---- one problem, many candidates: what the tuner times ------------------- */

/*
 * Checks one set of a rung's parameter values (NAME=VALUE items, the rung's
 * defaults for the rest) as `kladder gemm --param` does, without building
 * anything: each value's range, multiple and power of two, the relations
 * between values (BM a multiple of TM), and the device's limits at M × N
 * (work-group size and shape, local memory, a CPU's private arrays).
 * KL_ERR_ARG or KL_ERR_UNSUPPORTED with the reason; *wg (may be NULL) gets
 * the work-group size.
 */
enum kl_status kl_gemm_check(struct kl_context *kl, const struct kl_gemm_rung *r,
                             const char *const *items, int nitems, enum kl_type t, int M, int N,
                             size_t *wg, struct kl_err *e);

/* Random A and B, their reference and device buffers, made once. */
struct kl_gemm_bench;
enum kl_status kl_gemm_bench_open(struct kl_context *kl, enum kl_type t, int M, int N, int K,
                                  unsigned long long seed, struct kl_gemm_bench **out);
/*
 * One candidate of a device rung: checked (kl_gemm_check), built, launched
 * once on a poisoned C and verified (the guard band, the reference, and in
 * full against the first verified candidate), and only then timed by
 * proto. res gets VERIFIED with the timing, FAILED with the reason, or
 * SKIPPED when limits abandoned it. Returns KL_ERR_ARG or
 * KL_ERR_UNSUPPORTED when it does not fit (also the compiled kernel's
 * work-group limit), KL_ERR_BUILD when it does not compile, and device
 * errors.
 */
enum kl_status kl_gemm_bench_run(struct kl_gemm_bench *b, const struct kl_gemm_rung *r,
                                 const char *const *items, int nitems,
                                 const struct kl_protocol *proto, struct kl_run_limits *limits,
                                 struct kl_result *res);
/* How the reference was computed, for reports. */
const char *kl_gemm_bench_reference(const struct kl_gemm_bench *b);
void kl_gemm_bench_close(struct kl_gemm_bench *b);

/* ---- pieces for products spread over several devices (multi/mgemm.c) ------- */

/*
 * 1 when device rung r can multiply buffers it is given, row-major A, B and
 * C at width N in type t; else 0 and why: a host rung, a rung that reads B
 * column-major, or one that would first copy B into padded rows (b_pitch
 * with N not a whole number of 16-byte pieces).
 */
int kl_gemm_rung_on_buffers(const struct kl_gemm_rung *r, enum kl_type t, int N, char *why,
                            size_t n);

/*
 * One launch of GEMM rung `rung` (a name or prefix, as --rung takes it)
 * computing C = A·B on kl's device for buffers the caller owns: A (M×K), B
 * (K×N) and C (M×N), row-major, from each buffer's first element. The
 * rung's values are resolved as a ladder resolves them for this device and
 * size without --param (its preset, else its defaults; config, n bytes, names
 * the preset or is ""), checked against the device as the ladder checks
 * them, and the kernel built (cached on kl); t gets the build options and
 * time. Hopper's rungs get tensor maps over A and B. The launch runs as
 * kl_launch_timed or the backend's launch_async run any. KL_ERR_UNSUPPORTED with
 * the reason for rungs kl_gemm_rung_on_buffers refuses and rungs the device
 * lacks; KL_ERR_ARG for an unknown rung or sizes beyond 32-bit indexing.
 */
enum kl_status kl_gemm_launch_on(struct kl_context *kl, const char *rung, enum kl_type type, int M,
                                 int N, int K, struct kl_buf *A, struct kl_buf *B, struct kl_buf *C,
                                 struct kl_launch *out, struct kl_timing *t, char *config,
                                 size_t n);

/*
 * The reference a GEMM ladder checks against, for host A (M×K) and B (K×N)
 * of type t, apart from any device: every element in double (a BLAS, or a
 * host loop while affordable), else a seeded sample of elements.
 */
struct kl_gemm_reference;
enum kl_status kl_gemm_reference_open(enum kl_type t, int M, int N, int K, const void *A,
                                      const void *B, unsigned long long seed,
                                      struct kl_gemm_reference **out, struct kl_err *e);
/*
 * The same from every element of the product and of its scale |A|·|B| in
 * double computed elsewhere (ref and scale, M×N each, malloc'ed: taken
 * over, freed here even on failure; how: by what): KL_GEMM_SPOT_CHECKS
 * elements of each are checked against direct double sums on the host
 * first, KL_ERR_VERIFY where one differs.
 */
#define KL_GEMM_SPOT_CHECKS 256
enum kl_status kl_gemm_reference_adopt(enum kl_type t, int M, int N, int K, const void *A,
                                       const void *B, unsigned long long seed, double *ref,
                                       double *scale, const char *how,
                                       struct kl_gemm_reference **out, struct kl_err *e);
/* How it was computed, for reports. */
const char *kl_gemm_reference_how(const struct kl_gemm_reference *g);
/*
 * The ladder's verdict on C (M×N) into res, whose precision says which
 * tolerance applies: against the reference, then, where base is not NULL,
 * every element against base (the result of base_name, of precision
 * base_precision) within both tolerances. Sets status (verified or failed),
 * note (the first mismatch, or what was checked) and error.
 */
void kl_gemm_reference_judge(const struct kl_gemm_reference *g, const void *C, const void *base,
                             const char *base_name, enum kl_precision base_precision,
                             struct kl_result *res);
void kl_gemm_reference_close(struct kl_gemm_reference *g);

#endif /* KL_GEMM_H */
