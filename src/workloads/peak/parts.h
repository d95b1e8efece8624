/*
 * What the parts of `kladder peak` share; peak.h is its face to the rest of
 * kladder. Each part adds its rows to the report and its figures to the
 * ceilings; none prints. The files, each calling only those before it:
 *   curves.c     the pure pieces of the hierarchy (curves.h, unit-tested)
 *   search.c     the search and final measurement every part uses, the rows
 *                they add, counted launches, the grid, the data's hash
 *   fma.c        the FMA units (FP32, FP64, INT32)
 *   bandwidth.c  device-memory bandwidth
 *   launches.c   launches and transfers
 *   tensor.c     the tensor cores and the packed-half FMAs
 *   atomics.c    atomics
 *   memory.c     the memory hierarchy: local memory, the caches, latencies,
 *                then the atomics
 *   peak.c       the whole measurement, and the cached figures' printer
 * Their sections below are in the same order.
 */
#ifndef KL_PEAK_PARTS_H
#define KL_PEAK_PARTS_H

#include <stdint.h>

#include "core/ceilings.h"
#include "core/context.h"
#include "core/launch.h"
#include "core/measure.h"
#include "core/report.h"
#include "workloads/peak/peak.h"

/* ---- the search, rows, counted launches, the hash (search.c) ------------- */

/* The light protocol that ranks candidate configurations before the best is measured again. */
extern const struct kl_protocol kl_peak_search_protocol;

/* A row's rate: its operations per second where it counts any, else its bytes per second. */
double kl_peak_row_rate(const struct kl_result *r);

/* One configuration (cfg) of a rate kernel, checked, then timed by proto, into res. */
typedef enum kl_status (*kl_peak_rate_fn)(struct kl_context *kl, const void *cfg, int quick,
                                          const struct kl_protocol *proto, struct kl_result *res);

/*
 * The row NAME as a search's candidate trial that failed its check (the
 * search stops there: a wrong result is the row, not a slower right one).
 */
enum kl_status kl_peak_failed_row(struct kl_context *kl, struct kl_report *rep, const char *name,
                                  const struct kl_result *trial);

/*
 * The final measurement of a search's best configuration cfg into res, by
 * req's protocol, done KL_PEAK_FINALS times (once when quick): the fastest
 * run is kept, since a disturbance (another process, a clock dip) can slow
 * a run down but never speed one up. A run that fails its check is kept; a
 * verified row's note ends with every run's rate ("the fastest of 3 runs
 * (201.2, 199.8, 180.4 GFLOP/s)").
 */
#define KL_PEAK_FINALS 3
enum kl_status kl_peak_final(struct kl_context *kl, kl_peak_rate_fn measure, const void *cfg,
                             int quick, const struct kl_peak_request *req, struct kl_result *res);

/*
 * The n configurations at cfgs (size bytes apart) each timed by the search
 * protocol; the fastest measured again (kl_peak_final) as the report row
 * NAME, its rate in *gflops (0 unless verified). A configuration that fails
 * its check is the row instead; one that cannot run here (KL_ERR_UNSUPPORTED)
 * is passed over, and when none can, the row is skipped with the last reason.
 */
enum kl_status kl_peak_rate_search(struct kl_context *kl, const char *name, kl_peak_rate_fn measure,
                                   const void *cfgs, size_t size, int n, int quick,
                                   const struct kl_peak_request *req, struct kl_report *rep,
                                   double *gflops);

/* A skipped row NAME saying why (printf-style); KL_ERR_NO_MEMORY when the report cannot grow. */
enum kl_status kl_peak_skip(struct kl_context *kl, struct kl_report *rep, const char *name,
                            const char *why_fmt, ...);

/*
 * A launch whose loop count is argument `loop`, counting over every launch
 * (calibration, warm-ups and timed ones alike) the sum of the loop counts it
 * ran, for the kernels whose state carries over from launch to launch.
 */
struct kl_peak_counted {
    struct kl_launch l;
    int loop;
    uint64_t total;
};

/* A kl_launch_fn over a struct kl_peak_counted. */
enum kl_status kl_peak_counted_launch(void *arg, double *seconds, struct kl_err *e);

/*
 * Lengthens c's loop count by doubling until one launch takes about the
 * target time (at most max); one launch only when quick. *t: the last time.
 */
enum kl_status kl_peak_calibrate(struct kl_peak_counted *c, int quick, int max, double *t);

/* The largest power of two at most want that the device and, once built, the kernel k take. */
size_t kl_peak_fit_wg(struct kl_context *kl, struct kl_kernel *k, size_t want);

/* Work-groups for a grid that fills the device: per_cu a compute unit (two a CPU core). */
size_t kl_peak_grid_groups(const struct kl_context *kl, int quick, size_t per_cu);

/* Appends row NAME: its index, or -1 (kl's error says why) when the report cannot grow. */
int kl_peak_add_row(struct kl_context *kl, struct kl_report *rep, const char *name);

/*
 * The hash the peak kernels fill their data with (bw_fill.cl's kl_hash,
 * local_bw.cl's lw_hash): a bijection of x for each seed, so distinct
 * indices get distinct words.
 */
uint32_t kl_peak_hash(uint32_t x, uint32_t seed);

/* ---- the FMA units (fma.c) ----------------------------------------------- */

/* The FMA rates of FP32, FP64 (where the device has it) and INT32: rows fma_f32, fma_f64 and
 * fma_i32, each the best of its search, their rates in c. */
enum kl_status kl_peak_fma(struct kl_context *kl, const struct kl_peak_request *req,
                           struct kl_report *rep, struct kl_ceilings *c);

/* ---- device memory (bandwidth.c) ----------------------------------------- */

/*
 * Device-memory bandwidth in buffers of bytes: copy, read and write, each
 * searched at every vector width of vec_mask (brief: one search over them
 * all) into rows; the best verified rate of each kind, and its
 * configuration, into c.
 */
enum kl_status kl_peak_bandwidth(struct kl_context *kl, const struct kl_peak_request *req,
                                 size_t bytes, unsigned vec_mask, struct kl_report *rep,
                                 struct kl_ceilings *c);

/* ---- launches and transfers (launches.c) --------------------------------- */

/*
 * Launches and transfers: an empty kernel's launch latency (rows
 * launch_latency, launch_host, empty_kernel) and host <-> device copies of
 * up to bytes (pageable, pinned, mapped), into rows and c.
 */
enum kl_status kl_peak_launches(struct kl_context *kl, const struct kl_peak_request *req,
                                size_t bytes, struct kl_report *rep, struct kl_ceilings *c);

/*
 * The transfer sweep (peak --transfers): at every size from 4 KiB by fours up
 * to top (and top), a round trip checked byte for byte, then host-to-device
 * and device-to-host copies from pageable and from pinned memory, a row each
 * with x its size.
 */
enum kl_status kl_peak_transfer_sweep(struct kl_context *kl, const struct kl_peak_request *req,
                                      size_t top, struct kl_report *rep);

/* ---- the tensor cores (tensor.c) ----------------------------------------- */

/* The tensor cores: every precision's mma.sync and wgmma rows (TF32's only when brief),
 * and their figures in c. */
enum kl_status kl_peak_tensor(struct kl_context *kl, const struct kl_peak_request *req,
                              struct kl_report *rep, struct kl_ceilings *c);

/* The packed-half FMA rate (row fma_f16x2, c->f16_gflops), or a skipped row saying why not. */
enum kl_status kl_peak_packed_half(struct kl_context *kl, const struct kl_peak_request *req,
                                   struct kl_report *rep, struct kl_ceilings *c);

/* ---- atomics (atomics.c) ------------------------------------------------- */

/* Atomics: rows atomic_one, atomic_spread and atomic_local, their rates in c. */
enum kl_status kl_peak_atomics(struct kl_context *kl, const struct kl_peak_request *req,
                               struct kl_report *rep, struct kl_ceilings *c);

/* ---- the memory hierarchy (memory.c) ------------------------------------- */

/*
 * The memory hierarchy: local-memory bandwidth, the read sweep over working
 * sets (its curve, each cache level's plateau and where it ends), the
 * latency of each level by a pointer chase, and atomics; rows in rep,
 * figures in c. A brief request measures local memory only.
 */
enum kl_status kl_peak_memory(struct kl_context *kl, const struct kl_peak_request *req,
                              struct kl_report *rep, struct kl_ceilings *c);

#endif /* KL_PEAK_PARTS_H */
