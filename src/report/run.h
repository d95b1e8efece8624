/*
 * A run as the report and compare commands see it: a JSON report written by
 * kl_report_json (docs/kladder-run.schema.json), read back and checked field
 * by field, so a missing, truncated, malformed or foreign file gets one clear
 * sentence instead of a chart of nothing. Nothing here prints.
 */
#ifndef KL_REPORT_RUN_H
#define KL_REPORT_RUN_H

#include <stddef.h>

#include "core/ceilings.h"
#include "formats/json.h"

/* What a row's chart value measures. */
enum kl_metric {
    KL_METRIC_FLOPS, /* GFLOP/s (GIOP/s for int): the row counts FLOPs */
    KL_METRIC_BYTES, /* GB/s: the row counts bytes only */
    KL_METRIC_TIME   /* µs: the row counts neither (a latency) */
};

/* One result row; numbers that were null in the file are NaN. */
struct kl_run_row {
    const char *rung, *config, *status, *summary, *note, *options;
    int on_host, peer, repeats;
    int timed; /* verified or measured: the timing counts */
    double median_s, min_s, max_s, gflops, gbps, pct_ceiling, flops, bytes, x;
    double speedup_first, speedup_host, total_s, build_s;
    double mitems;         /* millions of items per second, where the run counts items */
    double noise;          /* the median's relative standard error; NaN unknown (version 1) */
    const char *precision; /* "fp32", "tf32", "3xtf32" ...; NULL where the row declares none */
    double error;          /* measured normwise error; NaN where none */
    const struct kl_json *samples; /* every timed launch's time, in order: an array; NULL none */
    int tensor;            /* its products ran on the tensor cores (absent before: 0) */
    int sum_span;          /* FP8 GEMM: K summed in the tensor cores between promotions; 0 */
    /* The machine (schema version 2; absent from version 1 files): NULL, -1 or NaN unknown. */
    const char *bound;                /* "memory", "compute", "latency" */
    int nkernels;                     /* entries of resources: kladder's kernels timed */
    int regs, threads, groups_per_cu; /* the first kernel's */
    long private_bytes, local_bytes;  /* per work-item; per work-group, static + dynamic */
    long local_static, local_dynamic, max_threads, threads_multiple;
    double occupancy;
    const char *limiter;
    double sm_mhz, sm_mhz_min, watts, energy_j, gflops_per_j, gbps_per_j;
    double watts_max, window_s; /* the highest power; the timed launches' wall time */
    int capped;                 /* 1: power or heat held the clocks down */
    double cycles;              /* median SM cycles per launch */
    double energy_ratio;        /* energy counter against mean power × window */
    double temperature_c;       /* as the row's timed launches began */
    int retaken, low_kept;      /* launches taken again for a low clock; kept under it */
    const struct kl_json *clocks; /* the SM clock after each timed launch (MHz): an array */
    const char *machine_note, *resources_note;
    /* What it built (version 3): its kernel file and the hash of its text (NULL: unknown),
       and its parameters' values, an array of {name, value, from} (NULL: unknown). */
    const char *source_file, *source_hash;
    const struct kl_json *values;
    const char *href; /* where the row's marks in a chart link to ("#rung-10_tiled"); NULL */
    /* --runs (version 3): the row's runs, an array of {seq, launches, median_s} whose launches
       are its samples in order (NULL: one run); run_spread, (largest - smallest run median)
       over their median (NaN: one run) */
    const struct kl_json *runs;
    double run_spread;
};

struct kl_run {
    char *name; /* the file, as given ("this run" for one not read from a file) */
    char *dir;  /* its directory, for image paths relative to it ("." if none) */
    struct kl_json *root;
    int borrowed; /* root belongs to a larger document (a fleet's member): not freed here */
    const char *workload, *type, *reference, *ceiling_note;
    const struct kl_json *device, *params, *protocol, *provenance;
    const char *dev_name, *dev_platform, *driver, *backend, *date, *version;
    double flops, bytes; /* per launch, for the whole workload */
    int read_roof;       /* its memory roof is the read bandwidth ("memory_roof": "read") */
    int sweep;           /* rows vary x (copy --sweep): a curve per rung */
    int curves; /* some rows vary x (peak's cache and latency sweeps): their curves are drawn
                   beside the ladder of the others */
    const char *image_in, *image_out; /* images.input / images.output, or NULL */
    struct kl_ceilings ceil;          /* the roofs: valid when have_ceil */
    int have_ceil;
    char ceil_source[256]; /* where the roofs come from */
    struct kl_run_row *rows;
    int nrows;
    const char *article; /* the path of its article (--article), which its page links to; NULL */
};

/*
 * Parses and checks a run from text; name is used in messages and as the
 * run's name. 0 on success; else -1 with "NAME: what is wrong" in err.
 */
/*
 * A row's launch times, or with cycles each by the SM clock read after it (MHz: cycles over
 * a million); NULL where it kept none, or a time or clock is not a positive number. The
 * caller frees.
 */
double *kl_run_row_samples(const struct kl_run_row *r, int cycles, int *n);
/* The row's runs (1 where it recorded none), and run k's launch times as above (the caller
   frees; NULL where the samples do not hold the launches the runs count). */
int kl_run_row_runs(const struct kl_run_row *r);
double *kl_run_row_run_samples(const struct kl_run_row *r, int k, int cycles, int *n);

int kl_run_parse(struct kl_run *run, const char *text, size_t len, const char *name, char *err,
                 size_t n);

/*
 * The same for a run already parsed as part of a larger document (a member
 * of a fleet file): root stays the caller's and outlives run.
 */
int kl_run_read(struct kl_run *run, const struct kl_json *root, const char *name, char *err,
                size_t n);

/* Reads a file and parses it as above; a missing or unreadable file is an error too. */
int kl_run_load(struct kl_run *run, const char *path, char *err, size_t n);

void kl_run_free(struct kl_run *run);

/*
 * Fills the roofs: the run's own ceiling_values; else `kladder peak`'s cache
 * for the run's device, driver and backend; else, for a peak run, its own
 * best rows. Sets have_ceil and ceil_source.
 */
void kl_run_find_ceilings(struct kl_run *run);

/* The metric of a row, its chart value (NaN when not timed) and unit label. */
enum kl_metric kl_run_metric(const struct kl_run *run, const struct kl_run_row *r);
double kl_run_value(const struct kl_run *run, const struct kl_run_row *r, enum kl_metric m);
const char *kl_run_unit(const struct kl_run *run, enum kl_metric m);

/* 1 for a row drawn on a curve beside the ladder (a point of one of peak's sweeps), not as a bar.
 */
int kl_run_on_curve(const struct kl_run *run, const struct kl_run_row *r);

/* The compute roof for the run's type (FP32, FP64 or INT32), 0 when unknown. */
double kl_run_compute_peak(const struct kl_run *run);
/*
 * The compute roof of one precision ("tf32": the TF32 tensor-core roof;
 * "3xtf32": a third of it), 0 when unknown; the type's for NULL.
 */
double kl_run_precision_peak(const struct kl_run *run, const char *precision, int tensor);

/* The precisions a row may declare, in the order summaries list them; NULL-terminated. */
extern const char *const kl_run_precisions[];

/*
 * The fastest verified rung (not a peer) of one precision in *best, and the
 * fastest verified peer whose results meet the same tolerance (fp32 and
 * 3xtf32 are one class: both float-accurate; FP8's sums as the best's, else
 * coarser: kl_peer_likeness) in *peer, NULL where none; 1 when there is a
 * best.
 */
int kl_run_fastest(const struct kl_run *run, const char *precision, const struct kl_run_row **best,
                   const struct kl_run_row **peer);

/* "M=512 N=512 K=512 float seed 1": the params object in one line. */
void kl_run_params_text(const struct kl_run *run, char *out, size_t n);

#endif /* KL_REPORT_RUN_H */
