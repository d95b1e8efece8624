/*
 * The opened device (struct kl_context) and what the library keeps on it:
 * the backend, the device facts, the last error, where kernel sources come
 * from, and every kernel compiled so far (each (file, options) pair is built
 * once per process).
 */
#ifndef KL_CONTEXT_H
#define KL_CONTEXT_H

#include "backend/backend.h"
#include "core/error.h"

struct kl_cached_kernel;
struct kl_machine_state;

/* --cold's flush (core/cold.c): a buffer of the context's own, made on first use and released
 * by kl_close, and the kernel that writes it (one of the cache's). */
struct kl_cold_flush {
    struct kl_buf *buf;
    struct kl_kernel *kernel;
    size_t words; /* uint4 elements */
    unsigned seed;
    unsigned long flushes; /* made so far: the report's cold_flushes */
};

struct kl_context {
    const struct kl_backend_ops *ops;
    int platform, device;
    struct kl_dev *dev;
    struct kl_device_info info;
    struct kl_err err;
    char *kernel_dir; /* NULL: the sources built into the binary */
    struct kl_cached_kernel *cache;
    struct kl_machine_state *machine; /* what timed launches ran, NVML (core/machine.c) */
    struct kl_cold_flush cold;        /* --cold's flush (core/cold.c) */
    struct kl_beside *beside;         /* work to do while kernels build (kl_kernel_beside) */
};

/* One embedded source file; the table ends with a NULL path. */
struct kl_embedded_file {
    const char *path;
    const char *text;
};
extern const struct kl_embedded_file kl_embedded_kernels[];

/* The backend called name ("opencl", "cuda"); says so if it was not built. */
enum kl_status kl_backend_find(const char *name, const struct kl_backend_ops **ops,
                               struct kl_err *e);
/*
 * The name of the first backend with a device that builds every rung (CUDA
 * C++ besides OpenCL C), which the main job runs on; NULL where none has.
 */
const char *kl_backend_widest(void);

/*
 * Resolves a device spec (see kl_open) to a backend and its platform and
 * device indices. Fails with a message that lists what exists when nothing
 * matches, or says why the backend has no device at all.
 */
enum kl_status kl_device_select(const char *spec, const struct kl_backend_ops **backend,
                                int *platform, int *device, struct kl_err *e);

/*
 * kl_open of device (platform, device) of a backend given by its table,
 * which no spec needs to name: the tests' null backend (tests/null_backend.h).
 */
enum kl_status kl_open_on(const struct kl_backend_ops *ops, int platform, int device,
                          struct kl_context **out, char *err, size_t errlen);

/*
 * If an NVIDIA GPU is visible but no NVIDIA OpenCL platform is registered,
 * writes how to register it into buf and returns 1; else returns 0 (the
 * OpenCL backend's device_hint, in backend/opencl.c).
 */
int kl_nvidia_hint(char *buf, size_t n);

/*
 * 1 when the device has tensor cores that multiply TF32 through PTX's
 * mma.sync (an NVIDIA GPU of compute capability 8.0 or more: CUDA knows it,
 * NVIDIA's OpenCL says it through cl_nv_device_attribute_query); else 0 and
 * the reason in why.
 */
int kl_tensor_tf32(const struct kl_device_info *d, char *why, size_t n);
/* The same for tensor cores of any precision (mma.sync's); precision names it in why ("" none). */
int kl_tensor_cores(const struct kl_device_info *d, const char *precision, char *why, size_t n);
/*
 * 1 if kladder issues packed-half arithmetic on d (PTX fma.rn.f16x2 and
 * cvt.rn.f16x2.f32: NVIDIA, compute capability 8.0 or more, on either
 * backend); else 0 and why says so.
 */
int kl_packed_half(const struct kl_device_info *d, char *why, size_t n);

/*
 * Refuses, before anything is allocated, a problem whose device buffers
 * (bytes in all; what names them for the message, e.g. "the matrices")
 * exceed the device memory free now (CUDA), or the device's global memory
 * where the API cannot tell what is free (OpenCL). KL_ERR_NO_MEMORY with
 * both sizes in the message.
 */
enum kl_status kl_device_fits(const struct kl_context *kl, double bytes, const char *what,
                              struct kl_err *e);

/*
 * Its twin for the host: refuses host buffers (bytes, what as above) that exceed nine tenths
 * of the kernel's MemAvailable (/proc/meminfo), or KLADDER_HOST_MEMORY bytes where the
 * environment sets it; KL_OK where neither says. malloc cannot tell: Linux grants more than
 * it has and ends the process (SIGKILL) when the pages are first touched.
 */
enum kl_status kl_host_fits(double bytes, const char *what, struct kl_err *e);

/* 1 when a kernel file is CUDA C++ (a .cu file: built as written, for CUDA only). */
int kl_kernel_is_cuda(const char *file);
/* 1 when kl's backend cannot build that file (CUDA C++ on another backend). */
int kl_kernel_elsewhere(const struct kl_context *kl, const char *file);
/*
 * Local memory one work-group of that file's kernel may have: the device's
 * default, or for CUDA C++ (dynamic shared memory) the opt-in maximum.
 */
uint64_t kl_kernel_local_mem(const struct kl_context *kl, const char *file);

/* A kernel file's own text (from --kernel-dir, else built in), malloc'd. */
enum kl_status kl_kernel_file_text(struct kl_context *kl, const char *file, char **out);

/* Source text of a kernel file (prelude prepended; its includes inlined), malloc'd. */
enum kl_status kl_kernel_source(struct kl_context *kl, const char *file, char **out);

/* Reads the kernel file PATH (relative to kernels/) into *out, malloc'd. */
typedef enum kl_status (*kl_kernel_loader)(void *ctx, const char *path, char **out,
                                           struct kl_err *e);
/*
 * TEXT, the source of kernel file FILE, with each line `#include "NAME"` replaced by
 * the file NAME beside FILE, read by LOAD (a header's own includes likewise, up to
 * 4 levels deep), between #line directives so the compiler's log names the right file and
 * line. NVRTC and OpenCL compilers see no files; nvcc, given the same kernel, finds the
 * header on disk. *out is malloc'd.
 */
enum kl_status kl_kernel_inline(const char *file, const char *text, kl_kernel_loader load,
                                void *ctx, char **out, struct kl_err *e);

/* A kernel a search will ask for: kl_kernel_get's file, entry and options. */
struct kl_kernel_want {
    const char *file, *entry;
    char options[256];
};

/*
 * Builds the kernels of want that are not cached yet into the cache that
 * kl_kernel_get reads, several at once where the backend's compiler allows
 * (parallel_builds: a thread per processor, up to 16; else one after the
 * other on this thread): for searches that ask for many
 * variants, whose compiles would otherwise come one after the other. A build
 * that fails is left out, so kl_kernel_get builds it again and says why;
 * kl->err is unchanged.
 */
void kl_kernel_prefetch(struct kl_context *kl, const struct kl_kernel_want *want, int n);

/*
 * Work for this thread while the next kl_kernel_prefetch builds on others:
 * fn(arg) runs once, from that prefetch where it builds on threads, else
 * from kl_kernel_beside_done (the main job's first run measures the
 * device's ceilings on the GPU while the ladder's kernels compile on the
 * host's cores). Where fn measures the device, set it only where the
 * builds run beside the device (a GPU), not on it (PoCL's CPU).
 */
enum kl_status kl_kernel_beside(struct kl_context *kl, void (*fn)(void *arg), void *arg);
/* Runs the work kl_kernel_beside left that no prefetch ran; 1 where it ran, here or there. */
int kl_kernel_beside_done(struct kl_context *kl);

/*
 * Calls fn for each kernel kl has built whose compiler said something about
 * it (kl_backend_ops.kernel_log: warnings), with the kernel's file, entry,
 * build options and the messages.
 */
void kl_kernel_logs(const struct kl_context *kl,
                    void (*fn)(void *arg, const char *file, const char *entry, const char *options,
                               const char *log),
                    void *arg);

/*
 * A compiled kernel for (file, entry, options), built on first use and
 * cached on the context; *build_s is the time the first build took.
 */
enum kl_status kl_kernel_get(struct kl_context *kl, const char *file, const char *entry,
                             const char *options, struct kl_kernel **out, double *build_s);

/*
 * kl_kernel_get of a user's file: text is its source (file names it in
 * messages and the cache), and its #include lines read headers beside it
 * on disk.
 */
enum kl_status kl_kernel_get_text(struct kl_context *kl, const char *file, const char *text,
                                  const char *entry, const char *options, struct kl_kernel **out,
                                  double *build_s);

/*
 * A build log of src from a compiler that ignores #line (NVIDIA's OpenCL
 * says "<kernel>:84:5"): its positions in msg (size bytes) become the
 * file's own by src's #line directives ("mine.cl:9:5"), as other compilers
 * give them.
 */
void kl_build_log_remap(const char *src, char *msg, size_t size);

#endif /* KL_CONTEXT_H */
