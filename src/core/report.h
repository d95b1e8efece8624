/*
 * Results of a ladder run: the rows, their status and precision, and the
 * metrics derived from them in one place, from each workload's FLOP and
 * byte counts and the measured roofs. report/write.h renders them.
 */
#ifndef KL_REPORT_H
#define KL_REPORT_H

#include <stdio.h>

#include "backend/backend.h"
#include "core/ceilings.h"
#include "core/machine.h"
#include "core/params.h"
#include "kladder.h"

/*
 * verified: the result was checked and the timing counts. measured: a
 * timing with no result to check (an empty kernel's latency, a transfer).
 */
enum kl_result_status {
    KL_RESULT_VERIFIED,
    KL_RESULT_FAILED,
    KL_RESULT_SKIPPED,
    KL_RESULT_MEASURED,
    KL_RESULT_TIMEOUT /* a launch ran past --kernel-timeout; the run stopped there */
};

/*
 * The arithmetic that produced a result (precision is a property of a rung):
 * the number format its products take, with the unit that runs them in
 * struct kl_result's tensor (FP16 and FP64 exist on both the FMA units and
 * the tensor cores; TF32, 3xTF32, BF16, FP8 and INT8 only on the tensor
 * cores here). fp32 on the FMA units, TF32 (10 mantissa bits), the
 * FP32-accurate split 3xTF32, fp64, int32, fp16 (packed half2 FMAs, or FP16
 * tensor-core inputs), bf16, fp8 (e4m3) and fp8e5m2, int8 (INT32 sums).
 * NONE: a row that declares none.
 */
enum kl_precision {
    KL_PREC_NONE,
    KL_PREC_FP32,
    KL_PREC_TF32,
    KL_PREC_3XTF32,
    KL_PREC_FP64,
    KL_PREC_INT32,
    KL_PREC_FP16,
    KL_PREC_BF16,
    KL_PREC_FP8,
    KL_PREC_FP8E5M2,
    KL_PREC_INT8,
    KL_PREC_OZAKI8, /* float-accurate from INT8 products (the Ozaki scheme II, rung 22) */
    KL_PREC_3XFP16  /* float-accurate from FP16 products of split values (blur rung 14) */
};
/* "fp32", "tf32", "3xtf32", "fp64", "int32", "fp16", "bf16", "fp8", "fp8e5m2", "int8",
 * "ozaki8", "3xfp16" (NULL for NONE). */
const char *kl_precision_name(enum kl_precision p);
/* The name back to its value; KL_PREC_NONE for NULL or an unknown name. */
enum kl_precision kl_precision_parse(const char *name);
/* 1 for the precisions that exist only on the tensor cores (tf32, 3xtf32, bf16, fp8, int8,
 * ozaki8, 3xfp16). */
int kl_precision_tensor_only(enum kl_precision p);
/*
 * The compute roof of precision p in measured ceilings, on the tensor cores
 * (tensor) or the FMA units: the FMA rate of its type; on the tensor cores
 * the rate of its inputs (fp16, bf16, fp8, fp8e5m2, int8, fp64), a third of
 * the TF32 rate for 3xtf32 (three products per product; 3xfp16 likewise of
 * the FP16 rate), the INT8 rate for
 * ozaki8 (the rate of its products, of which it makes one per modulus); the
 * packed-half FMA rate for fp16 off the tensor cores; 0 when unknown.
 */
double kl_precision_peak(const struct kl_ceilings *c, enum kl_precision p, int tensor);
/* The precision of arithmetic in type t: fp32, fp64, int32, or a narrow type's (fp16 ... int8). */
enum kl_precision kl_precision_of_type(enum kl_type t);
/*
 * Precisions whose results meet the same tolerance: fp32, 3xtf32, ozaki8 and
 * 3xfp16 (all float-accurate) form one class; every other precision is its own.
 */
int kl_precision_class(enum kl_precision p);
/*
 * How a peer's sums compare with a rung's of the same class, by their FP8 spans
 * (sum_span: elements of K summed in the tensor cores before fp32 takes the sums;
 * 0 elsewhere): 2 alike (the same span), 1 coarser (a longer one: cuBLASLt's fast
 * accumulation beside sums promoted every 128), 0 finer. A rung is held to the fastest
 * peer of its own sums, else of coarser ones (which can only understate it), never to
 * a finer one (which would flatter it).
 */
int kl_peer_likeness(int rung_span, int peer_span);

struct kl_result {
    char rung[64];
    const char *summary;
    int on_host; /* a CPU rung timed with the host clock */
    int peer;    /* a vendor library run beside the ladder */
    enum kl_result_status status;
    char note[512]; /* why it failed or was skipped; what was checked */
    double build_s, median_s, min_s, max_s, total_s;
    int repeats;
    double noise; /* the median's relative standard error (kl_median_noise); NaN unknown */
    char options[512];
    char config[128];            /* what varies between rows, e.g. "N=4096 BS=512" */
    double flops, bytes;         /* work per launch, when it differs from the report's */
    double x;                    /* a sweep's variable (e.g. N), 0 outside sweeps */
    enum kl_precision precision; /* the arithmetic it declares (KL_PREC_NONE: none) */
    int tensor;                  /* its products run on the tensor cores (implied by tf32,
                                    3xtf32, bf16, fp8 and int8, unless fma) */
    int fma;                     /* narrow inputs (bf16, fp8, int8) widened for the FMA units
                                    (an FMA rung given them): judged against the FP32 or
                                    INT32 roof, not the tensor cores' */
    double error;                /* measured normwise error: max |got - ref| / sum|a·b| over the
                                    elements checked; NaN where none was measured */
    int sum_span;                /* FP8 GEMM: elements of K summed in the tensor cores before
                                    fp32 registers take the sums over (K or more: all of it;
                                    1: every product in fp32); 0: not FP8, or unknown */
    int has_machine;             /* machine holds what its timed launches saw */
    struct kl_machine machine;   /* resources, occupancy, clocks, power and energy */
    double *samples;             /* every timed launch's time, in order (keep_measured) */
    double *clocks;              /* the SM clock after each (MHz, < 0 unknown); NULL: none */
    int nsamples;
    /* filled by kl_report_finish */
    double gflops, gbps, speedup_first, speedup_host;
    double mitems;      /* millions of items per second, when the report counts items */
    double pct_ceiling; /* % of the measured roof (0: no ceiling known) */
    const char *bound;  /* "memory", "compute" or "latency" (neither roof within reach); NULL
                           where no roof is known */
    double gflops_per_j, gbps_per_j; /* per joule, where energy was measured (else 0) */
    /* What the row built, for the article (set by the ladder engine; "" / 0 elsewhere): its
       kernel file (under kernels/, or the user's path) and the hash of its text
       (kl_text_hash), and each parameter's value and where it came from. */
    char source_file[4096], source_hash[32];
    /* --runs: the row measured in several runs (kl_result_add_run): each run's launches, in
       samples (and clocks) one run after the other, their count, the run's median, and its
       place in the order of every row's runs (from 0) */
    int nruns;
    int run_n[KL_MAX_RUNS], run_seq[KL_MAX_RUNS];
    double run_median[KL_MAX_RUNS];
    double run_spread; /* (largest - smallest run median) / the median of them; 0: one run */
    struct kl_value_source {
        char name[32];
        int value;
        const char *from; /* "default", "--param", "preset" or "tuned" */
    } values[KL_MAX_PARAMS];
    int nvalues;
};

/*
 * --runs: adds the measurement in run (a verified or measured row of the same
 * rung, timed again) to row as one more run, seq its place in the run order;
 * the first call records row's own measurement as run 0 (at first_seq).
 * 0, or -1 out of host memory. kl_result_close_runs then makes the row's
 * median the median of the runs' medians, its minimum and maximum those of
 * every launch, its repeats their count, and its run_spread.
 */
int kl_result_add_run(struct kl_result *row, int first_seq, const struct kl_result *run, int seq);
void kl_result_close_runs(struct kl_result *row);

/* One iteration of a soak (workloads/soak/soak.h): when, how long each rung took, the machine. */
struct kl_trace_point {
    double t;                   /* seconds since the soak began */
    double gemm_s, copy_s;      /* the iteration's medians; NaN where its result was wrong */
    double sm_mhz;              /* the lower of the two rows' mean SM clocks; < 0 unknown */
    double temperature_c;       /* the higher of their starting temperatures; < 0 unknown */
    double watts;               /* the higher of their mean powers; < 0 unknown */
    unsigned long long reasons; /* NVML's clock-event reasons seen */
    int wrong;                  /* a result of the iteration was wrong */
};

/* What a compiler said about one successful build of the run (kl_report_build_logs). */
struct kl_build_log {
    char *kernel;  /* "FILE ENTRY" */
    char *options; /* its build options */
    char *log;     /* its messages, never empty */
};

struct kl_report {
    const char *workload; /* "gemm" */
    char sizes[128];      /* "M=512 N=512 K=512" */
    char size_json[128];  /* "\"M\": 512, \"N\": 512, \"K\": 512" */
    enum kl_type type;
    const char *type_label; /* the table header's word for the data in place of type's name
                               (blur: "float" or "uchar4" pixels); NULL: type's name */
    unsigned long long seed;
    double flops;           /* per launch */
    double bytes;           /* minimal traffic per launch */
    double items;           /* things processed per launch (pixels), 0: none */
    int read_roof;          /* its bytes are only read (a reduction): the memory roof is the
                               read bandwidth, not the copy bandwidth */
    const char *items_unit; /* their rate's column header, e.g. "Mpix/s" */
    char reference[512];    /* how the reference was obtained */
    struct kl_protocol protocol;
    struct kl_device_info device;
    const char *backend;
    char date[32];
    struct kl_ceilings ceilings; /* measured roofs, valid when have_ceilings */
    int have_ceilings;
    char ceiling_note[2048]; /* where the roofs come from, or how to get them; a multi-GPU
                                run's ranks and links */
    char timing[160]; /* what timed the rows where no event did ("the host clock ..."); "" events */
    const char *image_in;   /* blur: the picture read (NULL: the generated one) */
    const char *image_out;  /* blur: the picture written (NULL: none) */
    int show_config;        /* print the config column */
    int ladder;             /* rows are rungs of one ladder: show speed-ups */
    char host[64], cpu[128], os[128]; /* where it ran (kl_report_provenance) */
    double start_sm_mhz, start_mem_mhz; /* the GPU's clocks as the run began; < 0 unknown */
    struct kl_conditions conditions;    /* as the run began (kl_report_provenance) */
    double end_temperature_c;           /* as it ended (kl_report_conditions_end); < 0 */
    unsigned long cold_flushes;         /* --cold's flushes made (kl_report_conditions_end) */
    char inputs[192];                   /* the inputs' distribution ("" unsaid) */
    char run_order[512];                /* --shuffle: the rows' names in the order they ran */
    struct kl_trace_point *trace;       /* a soak's iterations (malloc'd; kl_report_trace) */
    int ntrace, trace_cap;
    char health[256]; /* a soak's clock or temperature event ("": none); the CLI exits 5 */
    char stopped[96]; /* why the run ended early ("SIGINT", "--kernel-timeout 2 s"); "": it did not */
    struct kl_result *results;
    int count, capacity;
    struct kl_build_log *build_logs; /* malloc'd; freed by kl_report_free */
    int nbuild_logs;
};

struct kl_stats;
struct kl_context;
/* Where the run happens: host, CPU, OS and kl's clocks now (kl may be NULL). */
void kl_report_provenance(struct kl_report *r, struct kl_context *kl);
/* The GPU's temperature as the run ends, for the conditions, and --cold's flushes made
   (kl may be NULL). */
void kl_report_conditions_end(struct kl_report *r, struct kl_context *kl);
/*
 * Says in r->inputs how a workload drew its inputs of type t: what (e.g. "A and B")
 * uniform in [-1, 1) (integers in the type's range), from r's seed.
 */
void kl_report_inputs(struct kl_report *r, const char *what, enum kl_type t);
/* Copies a measurement's median, min, max, count and machine into a result. */
void kl_result_set_stats(struct kl_result *x, const struct kl_stats *s);
/*
 * Copies what the measurement that timed x saw (the last kl_measure on this
 * thread, when its count matches x's repeats): every launch's time, for the
 * JSON's samples, and the machine, for rows whose workload kept only the
 * statistics. Callers that keep rows call it right after measuring.
 */
void kl_result_keep_measured(struct kl_result *x);

/*
 * The messages of every build kl made that its compiler said something
 * about (warnings: kept for the JSON and the report, never printed), into
 * r->build_logs, replacing any there; as many as memory allows.
 */
void kl_report_build_logs(struct kl_report *r, const struct kl_context *kl);

/* Appends a soak's trace point (dropped when out of memory). */
void kl_report_trace(struct kl_report *r, const struct kl_trace_point *p);

/* Appends a zeroed result for rung name; NULL when out of memory. */
struct kl_result *kl_report_add(struct kl_report *r, const char *rung, const char *summary);
void kl_report_free(struct kl_report *r);

/*
 * Derives GFLOP/s, GB/s, speed-ups and % of ceiling for every verified
 * result. The ceiling is the roofline bound: min(compute peak, arithmetic
 * intensity × copy bandwidth); for rows that move bytes but count no FLOPs,
 * the copy bandwidth. The compute peak is that of the row's precision
 * (3xtf32: a third of the TF32 peak, three products per product), else of
 * the report's type.
 */
void kl_report_finish(struct kl_report *r);

/*
 * The roof of row x as kl_report_finish takes it, in work per second, and
 * *work the row's work per launch in the same unit (its FLOPs where it
 * counts any, else its bytes); 0 where no ceiling is known.
 */
double kl_report_roof(const struct kl_report *r, const struct kl_result *x, double *work);

/*
 * Loads the device's cached ceilings into the report (for "% roof") and
 * writes a note saying where they come from, or how to measure them.
 */
void kl_report_load_ceilings(struct kl_report *r);

/* 1 if any result failed verification. */
int kl_report_failed(const struct kl_report *r);

/* A row's FLOPs and bytes per launch: its own where it counts any, else the report's. */
double kl_result_flops(const struct kl_report *r, const struct kl_result *x);
double kl_result_bytes(const struct kl_report *r, const struct kl_result *x);
/* 1 for a row whose timing counts: verified, or measured where nothing can be checked. */
int kl_result_timed(const struct kl_result *x);
/* 1 for a row whose error is shown: measured on a verified result. */
int kl_result_has_error(const struct kl_result *x);
/* "verified", "failed", "skipped", "measured", "timeout". */
const char *kl_result_status_name(enum kl_result_status s);

#endif /* KL_REPORT_H */
