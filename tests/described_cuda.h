/*
 * A CUDA device described to the library without one: the facts the rules, the checks and
 * the tuner's spaces read (compute capability, SMs, shared memory, work-group limits), and
 * a context whose backend says it builds CUDA C++. Nothing can be built or launched on it.
 */
#ifndef KL_TEST_DESCRIBED_CUDA_H
#define KL_TEST_DESCRIBED_CUDA_H

#include <stdio.h>
#include <stdlib.h>

#include "core/context.h"

static inline struct kl_device_info described_cuda(const char *name, int major, int minor,
                                                   unsigned sms, uint64_t optin)
{
    struct kl_device_info d = {.is_gpu = 1,
                               .compute_units = sms,
                               .local_mem = 48 * 1024,
                               .local_mem_optin = optin,
                               .max_wg = 1024,
                               .max_item = {1024, 1024, 64},
                               .fp64 = 1,
                               .cc_major = major,
                               .cc_minor = minor,
                               .warp = 32,
                               .max_grid = {2147483647, 65535, 65535}};
    snprintf(d.name, sizeof d.name, "%s", name);
    snprintf(d.vendor, sizeof d.vendor, "NVIDIA Corporation");
    snprintf(d.type, sizeof d.type, "GPU");
    return d;
}

/* A context of device d (free() it); NULL without memory. */
static inline struct kl_context *described_cuda_context(struct kl_device_info d)
{
    static const struct kl_backend_ops cuda = {.name = "cuda", .cuda_cpp = 1};
    struct kl_context *kl = calloc(1, sizeof *kl);
    if (kl) {
        kl->ops = &cuda;
        kl->info = d;
    }
    return kl;
}

#endif
