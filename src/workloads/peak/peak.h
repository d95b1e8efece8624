/*
 * Device ceilings (seed 001: estimate the peak with simple memory and
 * compute kernels before optimizing): global memory bandwidth (copy, read,
 * write; every vector width, elements per work-item and work-group size
 * tried), FMA rate (FP32, FP64, INT32), launch latency, and host↔device
 * transfers. Every figure with a result is verified.
 */
#ifndef KL_PEAK_H
#define KL_PEAK_H

#include "core/ceilings.h"
#include "core/context.h"
#include "core/report.h"

struct kl_peak_request {
    size_t bytes;      /* buffer size for bandwidth and transfers; 0: chosen by device */
    int quick;         /* a small search space (tests) */
    int brief;         /* the first run's search: the configurations the full search picks on
                          common devices, and only the roofs the main job's rows are judged
                          by: copy, FP32 (and brief_type's FMA figure), TF32 */
    enum kl_type brief_type; /* brief: the main job's type (double: FP64 too; int: INT32) */
    int wide;          /* a wider search space than the default (checks that it finds the maxima) */
    unsigned vec_mask; /* bandwidth vector widths to try (bit w for width w); 0: all */
    int transfers;     /* only host <-> device copies, over sizes from 4 KiB to bytes (a sweep;
                          nothing cached) */
    struct kl_protocol protocol;
    unsigned long long seed;
};

/* Measures every ceiling into report (one row per figure) and *ceilings. */
enum kl_status kl_peak_measure(struct kl_context *kl, const struct kl_peak_request *req,
                               struct kl_report *report, struct kl_ceilings *ceilings);

/* Prints cached ceilings: format 0 a short table, 1 JSON, 2 CSV. */
void kl_ceilings_print(const struct kl_ceilings *c, const struct kl_device_info *dev, int format,
                       FILE *out);

#endif /* KL_PEAK_H */
