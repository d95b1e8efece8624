/*
 * The timing protocol every number obeys: warm-up launches, then timed
 * launches until both a minimum count and a minimum accumulated time are
 * reached (capped by a maximum count), then order statistics.
 */
#ifndef KL_MEASURE_H
#define KL_MEASURE_H

#include "core/error.h"
#include "core/machine.h"
#include "kladder.h"

struct kl_context;

struct kl_stats {
    int n;
    double median, min, max, mean;
    double noise;  /* the median's relative standard error (kl_median_noise); NaN under 2 */
    int noise_met; /* with a noise target: 1 reached, 0 the time ran out; -1 none asked */
    struct kl_machine machine; /* the kernels' resources, clocks, power and energy */
};

/* Order statistics of n samples (the array is sorted in place); no samples or machine. */
void kl_stats_compute(double *samples, int n, struct kl_stats *out);

/*
 * The relative standard error of the median of n times: 1.2533 (the median's efficiency for
 * normal noise) times 1.4826 MAD (the median absolute deviation, as a standard deviation
 * robust to outliers), over the median and sqrt(n). NaN under 2 samples or without memory.
 */
double kl_median_noise(const double *s, int n);

/* The time limit of a noise target when the protocol gives none: 10 s of kernel time. */
#define KL_NOISE_MAX_TIME 10.0
/* A noise target's time limit: the protocol's max_time, else KL_NOISE_MAX_TIME. */
double kl_noise_max_time(const struct kl_protocol *p);

/* One launch; returns its duration in *seconds. */
typedef enum kl_status (*kl_launch_fn)(void *arg, double *seconds, struct kl_err *e);

/* Checks that a protocol makes sense (counts >= 0, min <= max ...). */
enum kl_status kl_protocol_check(const struct kl_protocol *p, struct kl_err *e);

/* Limits of one run of a candidate (the tuner's); zero: none. */
struct kl_run_limits {
    double abandon_s; /* abandon when the first timed launch takes longer */
    double deadline;  /* kl_now() after which no launch starts */
    int abandoned;    /* out: 1 too slow, 2 out of time */
};

/* Launches re-taken for a low clock at most in one row, and the pause before each. */
#define KL_RETAKE_MAX 64
#define KL_RETAKE_PAUSE_S 0.05

/* Where the SM clock after each launch comes from: NVML in kl_measure; tests give their own. */
struct kl_clock_source {
    double (*now)(void *arg); /* MHz now; < 0 unknown */
    double max_mhz;           /* the highest the clock may be; <= 0 unknown */
    void *arg;
};

/*
 * Runs the protocol around fn and fills *out. kl is the context whose device
 * runs the launches, observed meanwhile (core/machine.h): the kernels of its
 * kl_launch_timed and NVML's readings; NULL for work timed on the host.
 */
enum kl_status kl_measure(struct kl_context *kl, const struct kl_protocol *p, kl_launch_fn fn,
                          void *arg, struct kl_stats *out, struct kl_err *e);
/*
 * kl_measure with the clock read after each launch from clock (NULL: NVML's,
 * where kl has it): out->machine's cycles, retaken and low_kept follow it.
 */
enum kl_status kl_measure_clocked(struct kl_context *kl, const struct kl_protocol *p,
                                  kl_launch_fn fn, void *arg, const struct kl_clock_source *clock,
                                  struct kl_stats *out, struct kl_err *e);

/*
 * The timed launches of the last kl_measure on this thread, in the order
 * they ran (*samples valid until the next kl_measure here), and what the
 * machine did meanwhile (machine may be NULL); 0 when none since
 * kl_measure_forget.
 */
int kl_measure_last(const double **samples, struct kl_machine *machine);
/* The SM clock read after each of those launches (MHz, < 0 unknown); NULL where none was. */
const double *kl_measure_last_clocks(void);
void kl_measure_forget(void);

#endif /* KL_MEASURE_H */
