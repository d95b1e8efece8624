/*
 * kladder soak: a device's health over time. For a given time, one GEMM
 * rung and one copy rung run in turn, each iteration a verified run of its
 * ladder (the GEMM against its double-precision reference, the copy word for
 * word), with the clocks, temperature and power after each. The report has a
 * row per rung whose samples are the iterations' medians, whose status is
 * failed if any iteration was wrong (the note says which and when), and a
 * trace of every iteration; a clock or temperature event (the GPU slowed by
 * heat or its hardware, not by its power limit) is named in the report's
 * health line. Several devices: a fleet, whose stragglers are the devices
 * slower than the others beyond noise.
 */
#ifndef KL_SOAK_H
#define KL_SOAK_H

#include "workloads/copy/copy.h"
#include "workloads/gemm/gemm.h"

/* NVML's clock-event reasons a soak counts as events: heat or the hardware slowed the GPU. */
#define KL_SOAK_EVENTS 0xE8ull /* hw_slowdown, sw_thermal, hw_thermal, hw_power_brake */

struct kl_soak_request {
    double seconds;              /* iterations start until this much time has passed (> 0) */
    struct kl_gemm_request gemm; /* one rung (gemm.rungs[0]); no peers */
    struct kl_copy_request copy; /* one rung (copy.rungs[0]) */
};

/* Runs the soak into report; a wrong result is a failed row, not an error. */
enum kl_status kl_soak(struct kl_context *kl, const struct kl_soak_request *req,
                       struct kl_report *report);

#endif /* KL_SOAK_H */
