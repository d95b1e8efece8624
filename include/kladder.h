/*
 * kladder — kernel ladder: from naive kernels to the hardware's limit, with
 * every step timed by a strict protocol and verified against a reference.
 *
 * The public C API. Every function returns an enum kl_status; the library
 * never prints and never exits. When a call fails, kl_last_error() on the
 * context (or the err buffer given to kl_open) holds a sentence saying what
 * went wrong, including a kernel's build log where there is one.
 *
 * A minimal program:
 *
 *     struct kl_context *kl;
 *     char err[512];
 *     if (kl_open("gpu", &kl, err, sizeof err) != KL_OK) { puts(err); return 1; }
 *     struct kl_timing t;
 *     if (kl_gemm(kl, "10_tiled", KL_FLOAT, M, N, K, A, B, C, NULL, &t) != KL_OK)
 *         puts(kl_last_error(kl));
 *     kl_close(kl);
 *
 * A whole ladder, your own kernel on it, results as data:
 *
 *     const char *mine[] = {"mine.cl"};
 *     struct kl_ladder_request req = {.workload = "rowdot", .kernels = mine, .nkernels = 1};
 *     struct kl_ladder *lad;
 *     if (kl_ladder_run(kl, &req, &lad) == KL_OK)
 *         for (int i = 0; i < kl_ladder_count(lad); i++)
 *             printf("%s %.1f GB/s\n", kl_ladder_row(lad, i)->rung, kl_ladder_row(lad, i)->gbps);
 *     kl_ladder_free(lad);
 */
#ifndef KLADDER_H
#define KLADDER_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KLADDER_VERSION "0.1.0"

enum kl_status {
    KL_OK = 0,
    KL_ERR_ARG,         /* an argument is invalid: size, name, parameter value */
    KL_ERR_NO_DEVICE,   /* no device matches, or no OpenCL platform at all */
    KL_ERR_BACKEND,     /* an API call of the backend failed */
    KL_ERR_BUILD,       /* a kernel failed to compile; the log is in the message */
    KL_ERR_NO_MEMORY,   /* host or device allocation failed, or exceeds a limit */
    KL_ERR_UNSUPPORTED, /* the device cannot do this (fp64, work-group size ...) */
    KL_ERR_VERIFY,      /* a result did not match the reference */
    KL_ERR_IO,          /* a file could not be read or written */
    KL_ERR_INTERRUPTED, /* stopped on request (a signal) before the end */
};

/* A fixed English phrase for a status, e.g. "kernel build failed". */
const char *kl_status_str(enum kl_status s);

/*
 * Element types of a workload. float, double and int (32-bit) are summed in
 * their own type. The narrow ones are GEMM's inputs only: half (IEEE
 * binary16), bf16, fp8 (OCP e4m3, finite to ±448), fp8e5m2 and int8, whose
 * products are summed and returned in kl_type_output (float; int for int8).
 * Host arrays hold their bits: uint16_t for half and bf16, uint8_t for fp8,
 * int8_t for int8 (kl_narrow_value and kl_narrow_round convert). uchar is
 * bytes (0 to 255, uint8_t) for the ladders that read them (counted or summed
 * in uint on the device); no GEMM takes it.
 */
enum kl_type {
    KL_FLOAT,
    KL_DOUBLE,
    KL_INT,
    KL_HALF,
    KL_BF16,
    KL_FP8,
    KL_FP8E5M2,
    KL_INT8,
    KL_UCHAR
};
#define KL_TYPE_COUNT 9

/* Name ("float", "double", "int", "half", "bf16", "fp8", "fp8e5m2", "int8", "uchar") and size
   in bytes. */
const char *kl_type_name(enum kl_type t);
size_t kl_type_size(enum kl_type t);
/* Parses a type name; returns KL_ERR_ARG for anything else. */
enum kl_status kl_type_parse(const char *name, enum kl_type *out);
/* 1 for the narrow input types (half, bf16, fp8, fp8e5m2, int8). */
int kl_type_narrow(enum kl_type t);
/* 1 for the two FP8 formats (fp8, that is e4m3, and fp8e5m2). */
int kl_type_fp8(enum kl_type t);
/* The type products of t are summed in and C is returned in: float, int for int8, else t. */
enum kl_type kl_type_output(enum kl_type t);
/* The value of narrow element bits in type t (NaN for a NaN or an infinity's bits). */
double kl_narrow_value(enum kl_type t, unsigned bits);
/* x rounded to type t, to nearest, ties to even, as its bits; beyond the range: the largest finite.
 */
unsigned kl_narrow_round(enum kl_type t, double x);

/* An open device: context, queue and the state needed to run rungs. */
struct kl_context;

/*
 * Opens a device. spec selects it (NULL or "" means the environment variable
 * KLADDER_DEVICE, else the first GPU, else the first device):
 *   "P:D"       platform P, device D (indices as `kladder devices` prints)
 *   "gpu"/"cpu" the first device of that type
 *   other       the first device whose name contains spec (case-insensitive)
 * on OpenCL. A "cuda:" prefix selects the CUDA backend instead, where the
 * rest is a device index or part of a name ("cuda" alone: its first device);
 * "opencl:" may prefix an OpenCL spec.
 * On failure *out is NULL and err (if not NULL) holds the reason.
 */
enum kl_status kl_open(const char *spec, struct kl_context **out, char *err, size_t errlen);
void kl_close(struct kl_context *kl);

/* The last error message recorded on this context ("" if none). */
const char *kl_last_error(const struct kl_context *kl);

/* The name of the opened device and its platform. */
const char *kl_device_name(const struct kl_context *kl);

/*
 * Loads kernel files from dir (same layout as kernels/ in the source tree)
 * instead of the copies built into the library. NULL restores the built-in
 * ones.
 */
enum kl_status kl_set_kernel_dir(struct kl_context *kl, const char *dir);

/* Rung parameters: "NAME=VALUE" pairs such as "TS=32", each a -D option. */
struct kl_params {
    int count;
    const char *const *items;
};

/* Timing of one rung, every time in seconds. */
struct kl_timing {
    double build_s;  /* kernel compilation (0 for host rungs) */
    double median_s; /* kernel time by events (host clock for host rungs) */
    double min_s;
    double max_s;
    int repeats;       /* timed launches after warm-up */
    double total_s;    /* one end-to-end run: upload, launch, download */
    char options[512]; /* the build options the kernel was compiled with */
};

/* How many launches are made and timed; kl_protocol_default() fills it. */
struct kl_protocol {
    int warmup;      /* untimed launches before timing */
    int min_repeats; /* at least this many timed launches ... */
    double min_time; /* ... and at least this much kernel time, in seconds */
    int max_repeats; /* stop here even if min_time is not reached */
    double noise;    /* > 0: and then on until the median's relative standard error is at most
                        this (0.005: 0.5 %) ... */
    double max_time; /* ... or this much kernel time has passed (seconds; 0: 10) */
    int cold;        /* 1: the device's last-level cache flushed before each timed launch;
                        KL_COLD_BOTH: a ladder's rows timed warm and then cold, a row each
                        (copy, rowdot and gemv) */
    double min_clock; /* > 0: a launch after which the SM clock is under this fraction of the
                         GPU's highest (0.75: 75 %) is discarded and taken again after a pause
                         (NVML; KL_RETAKE_MAX at most a row) */
    double cooldown;  /* > 0: before each row, wait until the GPU is no warmer than when the
                         run began, or this many seconds */
    int shuffle;      /* 1: a ladder's rows run in a random order (the report keeps the
                         ladder's) */
    int runs;         /* > 1: each row measured in this many separate runs, interleaved across
                         the rows (row 1 run 1, row 2 run 1, ..., row 1 run 2, ...), so that a
                         drift of the machine falls on every row alike; its figure is the
                         median of the runs' medians (at most KL_MAX_RUNS; 0 or 1: one run) */
};
#define KL_COLD_BOTH 2
#define KL_MAX_RUNS 16
void kl_protocol_default(struct kl_protocol *p);

/*
 * Runs one GEMM rung, C = A·B, on host arrays in row-major order: A is M×K,
 * B is K×N, C is M×N, A and B of element type `type`. `rung` is a name from the
 * ladder (`kladder gemm --list-rungs`), e.g. "01_naive" or "10_tiled"; host
 * rungs ("host_ijk" ...) run on the CPU. For a narrow type C is of
 * kl_type_output(type) (float, or int32 for int8). params may be NULL (defaults);
 * protocol may be NULL (defaults). The result is written to C and timed into
 * *timing (may be NULL). C is not verified here: the caller owns the check.
 */
enum kl_status kl_gemm(struct kl_context *kl, const char *rung, enum kl_type type, int M, int N,
                       int K, const void *A, const void *B, void *C, const struct kl_params *params,
                       const struct kl_protocol *protocol, struct kl_timing *timing);

/* ---- ladders: every workload, its built-in rungs and your own kernels ----- */

/*
 * A ladder run, as `kladder WORKLOAD` runs it. Zero fields take the command
 * line's defaults (its size for the device, seed 1, the default protocol).
 */
struct kl_ladder_request {
    const char *workload;     /* "gemm", "copy", "rowdot", "gemv" or "blur" */
    enum kl_type type;        /* gemm: any (narrow ones give C in kl_type_output); rowdot,
                                 gemv: float or double */
    long size[3];             /* gemm M N K; copy N; rowdot Y D; gemv M N; blur W H (0: default) */
    double sigma;             /* blur: the Gaussian's sigma (0: 2) */
    int uchar4;               /* blur: 8-bit RGBA pixels rather than float */
    const char *const *rungs; /* names or unique prefixes; none: the whole ladder */
    int nrungs;
    const char *const *params; /* "NAME=VALUE" for the rungs that have NAME */
    int nparams;
    const char *const *kernels; /* your kernels, "FILE[:ENTRY]" (docs/KERNELS.md), 8 at most */
    int nkernels;
    const char *const *peers; /* gemm, gemv, reduce: "cublas", "clblast", "cub"... rows after */
    int npeers;
    unsigned long long seed;
    const struct kl_protocol *protocol;
    /* "NAME=VALUE" for a workload's own options (a registered workload's, e.g. an operation
       or a bin count: each entry declares them); unknown names and values are KL_ERR_ARG */
    const char *const *options;
    int noptions;
};

enum kl_row_status {
    KL_ROW_VERIFIED, /* checked against the reference; the timing counts */
    KL_ROW_FAILED,   /* a wrong result: note says where; never a speed */
    KL_ROW_SKIPPED,  /* could not run on this device: note says why */
    KL_ROW_MEASURED  /* timed, with no result to check */
};

/* One row of a ladder: a built-in rung, one of your kernels, or a vendor library. */
struct kl_row {
    const char *rung, *summary;
    enum kl_row_status status;
    const char *note;      /* why it failed or was skipped; what was checked */
    const char *config;    /* its values where they are not its defaults ("" otherwise) */
    const char *options;   /* the build options it ran with */
    const char *precision; /* "fp32", "tf32", "3xtf32", "fp64", "int32"; NULL: not declared */
    int peer, on_host;
    int repeats;
    double build_s, median_s, min_s, max_s;
    double gflops, gbps;
    double pct_roof;      /* % of the measured roofline (0: no ceilings cached, kladder peak) */
    double speedup_first; /* over the first device rung */
    double error;         /* normwise error against the reference; NaN where none was measured */
};

/* The rows of one run; kl_ladder_free releases it. */
struct kl_ladder;

/*
 * Runs a ladder: every chosen rung, then your kernels, then the peers, each
 * verified and timed. A rung that fails verification is a KL_ROW_FAILED row,
 * not an error; errors are bad requests (an unknown rung or parameter, a
 * kernel file that is wrong, a size the device cannot hold) and device
 * failures. On failure *out is NULL and kl_last_error() says why, except
 * KL_ERR_INTERRUPTED (kl_stop_request): *out then holds the rows measured
 * before the stop, and the last of them, cut short, is skipped.
 */
enum kl_status kl_ladder_run(struct kl_context *kl, const struct kl_ladder_request *req,
                             struct kl_ladder **out);
int kl_ladder_count(const struct kl_ladder *l);
/*
 * Asks every run in progress to stop at its next check, after the launch on
 * the device, and return KL_ERR_INTERRUPTED; sig names the reason (a signal
 * number, or 0). Async-signal-safe: call it from a SIGINT handler.
 */
void kl_stop_request(int sig);
/* Row i (0 .. count - 1), valid until kl_ladder_free; NULL out of range. */
const struct kl_row *kl_ladder_row(const struct kl_ladder *l, int i);
/* The problem as the report names it, e.g. "M=512 N=512 K=512". */
const char *kl_ladder_sizes(const struct kl_ladder *l);
/* The JSON report `kladder --json` writes (docs/kladder-run.schema.json). */
enum kl_status kl_ladder_write_json(const struct kl_ladder *l, const char *path);
void kl_ladder_free(struct kl_ladder *l);

#ifdef __cplusplus
}
#endif

#endif /* KLADDER_H */
