/*
 * The null backend: a device that runs pretend kernels, for testing the
 * engine (the ladders' verify, skip, fail, stop and timeout paths, the
 * measurement protocol, the tuner, the reports) without any OpenCL or CUDA.
 *
 * Its memory is the host's. A kernel is whatever the test registered under
 * the kernel's entry name (kl_null_kernels): its build may fail with a log
 * of the test's choosing, and its launch calls the test's function, which
 * does the kernel's work on the buffers (or the wrong work, or none) and
 * says how long the launch took. So every time the engine measures is set
 * by the test, and every rate it derives is known in advance.
 */
#ifndef KL_TEST_NULL_BACKEND_H
#define KL_TEST_NULL_BACKEND_H

#include "backend/backend.h"
#include "core/context.h"

/* One launch of a pretend kernel, as its run function sees it. */
struct kl_null_launch {
    const char *entry, *options; /* the kernel's entry name and build options */
    const struct kl_arg *args;
    int nargs, dims;
    const size_t *global, *local;
    long count; /* launches of kernels of this entry so far, this one included */
};

struct kl_null_kernel {
    const char *entry;
    /* The compiler log of a build with these options that fails; NULL: it builds. May be NULL. */
    const char *(*build)(const char *options);
    /* Does the launch's work on the host and returns its time in seconds (< 0: it fails). */
    double (*run)(const struct kl_null_launch *l);
};

/* The kernels the null device knows from now on (the table must outlive their use). */
void kl_null_kernels(const struct kl_null_kernel *table, int n);
/* The host memory behind a buffer of the null device. */
void *kl_null_memory(const struct kl_buf *b);
/* Launches of kernels of this entry since kl_null_kernels. */
long kl_null_launches(const char *entry);

/*
 * The null device's facts: a 4-unit "other" device with work-groups up to
 * 256 work-items, 32 KiB of local memory, 1 GiB of memory and profiling.
 */
extern const struct kl_backend_ops kl_backend_null;
/* Set before opening: the device says it is NVIDIA's, at a PCI bus id, so NVML is asked. */
extern int kl_null_nvidia;

#endif /* KL_TEST_NULL_BACKEND_H */
