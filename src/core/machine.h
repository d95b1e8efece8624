/*
 * The machine behind each timed row: the resources of kladder's own kernels
 * that a measurement launched (registers, private and local memory, threads,
 * occupancy and what limits it) and, through NVML, the clocks, power, energy
 * and clock-event reasons while its timed launches ran. kl_measure observes
 * every measurement on a context through these calls; a row gets what its
 * measurement saw (kl_result_set_stats).
 */
#ifndef KL_MACHINE_H
#define KL_MACHINE_H

#include "backend/backend.h"

struct kl_context;
struct kl_launch;

/* The least window over which the energy counter is read: shorter loops give no joules. */
#define KL_ENERGY_WINDOW_S 1.0
/* The window --energy gives every row: on an H200 the counter agreed with the sampled power
 * within 0.5 % over 5 s windows, and missed by up to 7 % over 1 s ones (docs/RESULTS.md). */
#define KL_ENERGY_STEADY_S 5.0

#define KL_MACHINE_KERNELS 2 /* a timed launch runs one kernel, or a kernel and its pass */

struct kl_machine {
    int nkernels; /* kladder's kernels the timed launches ran (0: a library's, or the host) */
    struct kl_resources res[KL_MACHINE_KERNELS];
    char res_why[96];                   /* why there are none */
    int samples;                        /* NVML readings taken while timing (0: none, why says) */
    double sm_mhz, sm_mhz_min, mem_mhz; /* mean and lowest SM clock, mean memory clock */
    double watts, watts_max;            /* mean and highest power NVML reported */
    double window_s;                    /* wall time of the timed launches */
    double joules; /* energy per timed launch: the counter over the window / launches; < 0 none */
    double energy_ratio;        /* the counter's joules over the window against the mean sampled
                                   power times the window (1: they agree); 0 where either is missing */
    unsigned long long reasons; /* NVML's clock-event reasons seen while timing (OR) */
    int capped;                 /* power or heat held the clocks down (KL_NVML_CAPPED) */
    double temperature_c;       /* the GPU's temperature as the timed launches began; < 0 */
    double cycles; /* median SM cycles per launch: each launch's time by the clock read right
                      after it (kl_measure); 0 where a launch's clock is unknown */
    int retaken;   /* launches discarded and taken again for a clock under --min-clock */
    int low_kept;  /* launches kept under --min-clock after KL_RETAKE_MAX were re-taken */
    char why[192]; /* what is missing and why (no NVML, a window too short) */
};

/* A measurement's window of timed launches, between kl_machine_open and _close. */
struct kl_machine_window;

/* Forgets the kernels seen: kl_measure calls it before the first launch. */
void kl_machine_begin(struct kl_context *kl);
/* kl_launch_timed calls it for every launch: which kernel, how big a work-group. */
void kl_machine_saw(struct kl_context *kl, const struct kl_launch *l);
/*
 * Opens the window around the timed launches (kl may be NULL: the host's
 * clock, nothing to observe); NULL where there is nothing to sample.
 */
struct kl_machine_window *kl_machine_open(struct kl_context *kl);
/* Closes it after `launches` timed launches and fills *out (w may be NULL). */
void kl_machine_close(struct kl_context *kl, struct kl_machine_window *w, int launches,
                      struct kl_machine *out);
/* Frees what the context keeps (the NVML handle); kl_close calls it. */
void kl_machine_free(struct kl_context *kl);
/* This host's name, CPU model and operating system ("" where unknown). */
void kl_machine_host(char *host, size_t nh, char *cpu, size_t nc, char *os, size_t no);
/* The SM and memory clocks now, or -1 each where NVML does not tell. */
void kl_machine_clocks(struct kl_context *kl, double *sm_mhz, double *mem_mhz);
/* The SM clock now and the highest it may run at, in a window; -1 where unknown (w NULL). */
double kl_machine_sm_now(struct kl_machine_window *w);
double kl_machine_sm_max(struct kl_machine_window *w);

/* The conditions a run is made in (kl_machine_conditions); -1 where NVML does not tell. */
struct kl_conditions {
    int known;            /* NVML told them; else why says why not */
    double sm_max_mhz;    /* the highest SM clock */
    double locked_mhz;    /* the SM clock --lock-clocks holds; < 0: free to move */
    int ecc, persistence; /* 1 on, 0 off */
    double power_limit_w; /* the enforced power limit */
    double temperature_c; /* now */
    char why[160];        /* why NVML told nothing */
    char lock_why[160];   /* why --lock-clocks could not lock them; "" */
};
void kl_machine_conditions(struct kl_context *kl, struct kl_conditions *out);
/*
 * Locks kl's SM clock at mhz until kl closes (--lock-clocks); KL_OK, else
 * KL_ERR_UNSUPPORTED and why (no NVML, no right to, a clock the GPU lacks).
 */
enum kl_status kl_machine_lock_clocks(struct kl_context *kl, double mhz, char *why, size_t n);
/*
 * The cool-down before a row (--cooldown): waits until the GPU is no warmer than
 * when the run's conditions were first read (+1 degree) or limit_s pass; without
 * a temperature, limit_s. Returns the seconds waited.
 */
double kl_machine_cooldown(struct kl_context *kl, double limit_s);

/*
 * The occupancy of r's work-group on a compute unit of d and what limits it:
 * each of registers, shared (local) memory, threads and blocks bounds the
 * work-groups a unit holds; the least bound wins (in a tie, threads or blocks
 * are named). Where the API gave its own count (r->groups_per_cu >= 0) that
 * count stands and the limiter is the resource that reaches it. Unknown (occupancy -1, why says)
 * where d's per-unit limits are.
 */
void kl_occupancy(const struct kl_device_info *d, struct kl_resources *r);

#endif /* KL_MACHINE_H */
