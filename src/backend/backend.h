/*
 * The backend interface: one table of function pointers per compute API.
 * Workloads and core code reach a device only through this table, so a new
 * API is one new file implementing it. Backends move bytes, compile and
 * launch kernels and time them; they never compute metrics.
 */
#ifndef KL_BACKEND_H
#define KL_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "kladder.h"
#include "core/error.h"

/* Everything `kladder devices` prints and the rungs use to check limits. */
struct kl_device_info {
    char platform[128];
    char platform_version[128];
    char name[128];
    char vendor[128];
    char driver_version[128];
    char device_version[128]; /* "OpenCL 3.0 ..." */
    char c_version[128];      /* "OpenCL C 1.2 ..." */
    char type[16];            /* "GPU", "CPU", "accelerator", "other" */
    int is_gpu;
    unsigned compute_units;
    unsigned max_clock_mhz;
    uint64_t global_mem;
    uint64_t max_alloc;
    uint64_t global_cache;
    uint64_t global_cacheline;
    uint64_t local_mem;
    int local_mem_dedicated; /* 1 when local memory is on-chip (CL_LOCAL) */
    uint64_t constant_mem;
    size_t max_wg;
    size_t max_item[3];
    unsigned pref_vec_float, pref_vec_double, native_vec_float, native_vec_double;
    int fp64;
    int subgroups; /* cl_khr_subgroups: sub_group_reduce_add and friends */
    int atomics64; /* cl_khr_int64_base_atomics: atom_add, atom_xchg on 64-bit words */
    /* A work-group that has started keeps running while another waits on it (a scan's
       look-back): known of CUDA, NVIDIA's OpenCL, CPU devices and oclgrind; 0 elsewhere */
    int groups_progress;
    int images;    /* image objects and samplers (CL_DEVICE_IMAGE_SUPPORT) */
    size_t image2d_max[2];
    int profiling; /* queue profiling (event timing) is available */

    /* Facts only some backends know (0 where unknown); CUDA fills them. */
    int cc_major, cc_minor;    /* compute capability */
    unsigned warp;             /* threads per warp / sub-group width */
    uint64_t local_mem_optin;  /* largest shared memory per block on request */
    uint64_t local_mem_per_cu; /* shared memory per SM */
    unsigned regs_per_block, regs_per_cu;
    unsigned threads_per_cu;     /* resident threads per SM */
    unsigned blocks_per_cu;      /* resident blocks per SM */
    unsigned local_mem_reserved; /* shared memory the system keeps per block */
    unsigned mem_clock_mhz;      /* memory clock, peak */
    unsigned mem_bus_bits;       /* memory bus width */
    size_t max_grid[3];          /* most work-groups per dimension (0: no limit known) */
    char pci_bus_id[32];         /* "0000:1b:00.0" where the API tells, else "" */
};

/*
 * A kernel argument: a buffer, a scalar or a local-memory size. On CUDA a
 * local-memory size is not a parameter but the launch's dynamic shared
 * memory (extern __shared__), up to the device's opt-in maximum.
 *
 * A tensor map (CUDA only) describes a row-major matrix of floats in a
 * buffer for the tensor memory accelerator (TMA) of compute capability 9.0:
 * rows of cols floats, pitch bytes apart (a multiple of 16), copied in boxes
 * of box_rows x box_cols (box_cols * 4 <= 128) that land 128-byte swizzled
 * in shared memory, zeros outside the matrix. The CUDA backend encodes it
 * (cuTensorMapEncodeTiled) and passes the 128 bytes by value, for a
 * __grid_constant__ parameter. buf NULL passes zeros: a map the kernel will
 * not use (rows not 16-byte aligned). tf32: the copies round each float to
 * TF32 as they write it (to nearest, ties to even: the map's type is
 * TFLOAT32), for a kernel that feeds the tensor cores TF32.
 */
enum kl_arg_kind {
    KL_ARG_BUF,
    KL_ARG_INT,
    KL_ARG_FLOAT,
    KL_ARG_DOUBLE,
    KL_ARG_LOCAL,
    KL_ARG_TENSOR_MAP
};
struct kl_buf;
/*
 * What a tensor map's elements are: 4-byte floats as they are or rounded to
 * TF32 as TMA copies them, 2-byte halves or bf16, or bytes (FP8, INT8: TMA
 * copies their bits).
 */
enum kl_map_type { KL_MAP_F32, KL_MAP_TF32, KL_MAP_F16, KL_MAP_BF16, KL_MAP_U8 };
/* A 2-D tensor map: rows × cols elements in rows of pitch bytes, copied in boxes of
   box_rows × box_cols elements (box_cols of at most 128 bytes), 128-byte swizzled. */
struct kl_tensor_map {
    struct kl_buf *buf;
    uint64_t rows, cols, pitch;
    unsigned box_rows, box_cols;
    enum kl_map_type type;
};
struct kl_arg {
    enum kl_arg_kind kind;
    union {
        struct kl_buf *buf;
        int i;
        float f;
        double d;
        size_t local_bytes;
        struct kl_tensor_map map;
    } v;
};

struct kl_kernel;

/*
 * What a compiled kernel says of its parameters, as far as the API tells:
 * their count (-1: unknown); on CUDA each one's size in bytes; on OpenCL
 * (built with -cl-kernel-arg-info) each one's type name ("float*", "int")
 * and whether it points to global memory or to constant memory. 0 and "":
 * unknown.
 */
#define KL_MAX_SIG 16
struct kl_kernel_sig {
    int count;
    size_t size[KL_MAX_SIG];
    char type[KL_MAX_SIG][32];
    int global[KL_MAX_SIG];   /* a pointer to global memory */
    int constant[KL_MAX_SIG]; /* a pointer to constant memory (OpenCL's __constant) */
};

/*
 * What a compiled kernel uses, for one launch's work-group, as far as the API
 * tells: a field it cannot tell is -1 and why says so. The backend fills all
 * but occupancy and limiter, which core/machine.c derives from the device's
 * limits.
 */
struct kl_resources {
    int regs;              /* registers per work-item */
    long private_bytes;    /* private memory per work-item: spilled registers and stack */
    long local_static;     /* local (shared) memory the kernel declares, per work-group */
    long local_dynamic;    /* the launch's own: __local arguments, CUDA's dynamic shared memory */
    long threads;          /* work-items per work-group */
    long max_threads;      /* the most this kernel can run in a work-group (its registers and
                              limits; CL_KERNEL_WORK_GROUP_SIZE) */
    long threads_multiple; /* work-group sizes it prefers a multiple of (a warp) */
    int groups_per_cu;     /* work-groups a compute unit holds at once, by the API's reckoning */
    double occupancy;      /* resident warps over the most a compute unit holds, 0..1 */
    char limiter[16];      /* what holds groups_per_cu down: registers, shared, threads, blocks */
    char why[192];         /* what is unknown and why; "" when nothing is */
};

/* Times of one launch from the API's events, in seconds. */
struct kl_launch_time {
    double run;   /* start to end: the kernel's execution */
    double queue; /* queued to start: launch latency as clpeak measures it */
};

/* A device handle of one backend; opaque to everything but that backend. */
struct kl_dev;

struct kl_backend_ops {
    const char *name; /* "opencl", "cuda" */

    /*
     * What it builds and how its kernels take their arguments, which the rest
     * of kladder asks instead of checking which backend runs:
     * cuda_cpp: it builds CUDA C++ as written (.cu files), besides OpenCL C;
     * opencl_prelude: the file prepended before opencl/prelude.cl so that
     *   OpenCL C builds here ("cuda/prelude.cuh"), NULL where it builds as is;
     * local_is_param: a KL_ARG_LOCAL is one of the kernel's parameters
     *   (OpenCL's __local), not the launch's dynamic shared memory (CUDA);
     * arg_info_option: the build option after which a kernel tells its
     *   parameters' types (" -cl-kernel-arg-info"), NULL where none is needed.
     */
    int cuda_cpp;
    const char *opencl_prelude;
    int local_is_param;
    const char *arg_info_option;

    /*
     * How its devices are named and what runs beside them:
     * one_platform: its devices are one platform's, named by index alone
     *   ("cuda:1"); 0: by platform and device ("opencl:0:1"), gpu or cpu;
     * cuda_ordinals: its device indices are the CUDA runtime's (cudaSetDevice
     *   takes kl->device as is), for NVIDIA's libraries run beside it;
     * opencl_handles: native_queue and native_buffer give OpenCL's
     *   cl_command_queue and cl_mem (what CLBlast takes);
     * gemm_peer, gemm_peer_float, gemm_peer_narrow: the vendor's GEMM run
     *   beside the main job's ladder, as peer names (peers/peers.h): for the
     *   wide types (float, double, int), for float alone besides, and for the
     *   narrow types (half, bf16, fp8s, int8) instead; NULL: none.
     */
    int one_platform;
    int cuda_ordinals;
    int opencl_handles;
    const char *gemm_peer, *gemm_peer_float, *gemm_peer_narrow;

    /*
     * Where a device is present that this backend cannot reach, how to make
     * it reachable (an NVIDIA GPU whose OpenCL platform is not registered):
     * writes it into buf and returns 1; else 0. NULL: never.
     */
    int (*device_hint)(char *buf, size_t n);

    /*
     * Why this backend has no device at all (driver or compiler missing), in
     * one sentence; NULL where the backend has nothing to add.
     */
    void (*unavailable)(char *why, size_t n);

    /* Number of platforms; devices of platform p; facts of device (p, d). */
    int (*platform_count)(void);
    int (*device_count)(int p);
    enum kl_status (*device_info)(int p, int d, struct kl_device_info *info, struct kl_err *e);

    /* Opens device (p, d) with a profiling queue; closes it. */
    enum kl_status (*open)(int p, int d, struct kl_dev **out, struct kl_err *e);
    void (*close)(struct kl_dev *dev);

    /* Device buffers: allocate bytes, free, and blocking copies. */
    enum kl_status (*alloc)(struct kl_dev *dev, size_t bytes, struct kl_buf **out,
                            struct kl_err *e);
    void (*release)(struct kl_buf *buf);
    enum kl_status (*write)(struct kl_dev *dev, struct kl_buf *buf, const void *src, size_t bytes,
                            struct kl_err *e);
    enum kl_status (*read)(struct kl_dev *dev, struct kl_buf *buf, void *dst, size_t bytes,
                           struct kl_err *e);

    /*
     * Compiles source with options and creates kernel `entry`. On a build
     * failure the message includes the compiler log.
     */
    enum kl_status (*build)(struct kl_dev *dev, const char *source, const char *options,
                            const char *entry, struct kl_kernel **out, struct kl_err *e);
    void (*kernel_free)(struct kl_kernel *k);
    /*
     * 1 where build may run on several threads at once for this device (its
     * compiler is thread-safe: NVRTC; NVIDIA's OpenCL); NULL or 0: one at a
     * time, on the thread that opened the device (oclgrind's LLVM crashes on
     * another).
     */
    int (*parallel_builds)(struct kl_dev *dev);
    /* The largest work-group this compiled kernel can run with. */
    size_t (*kernel_max_wg)(struct kl_kernel *k);
    /*
     * What the compiler said about this successful build (its warnings, as
     * its log and its standard error had them): "" where it said nothing.
     * Kept for the report's build logs, never printed. NULL: not told.
     */
    const char *(*kernel_log)(struct kl_kernel *k);
    /* Its parameters, as far as the API tells. */
    void (*kernel_signature)(struct kl_kernel *k, struct kl_kernel_sig *sig);
    /*
     * Its resources for a work-group of `threads` work-items with `local_dynamic`
     * bytes of the launch's own local memory (struct kl_resources: all but
     * occupancy and limiter), as far as the API tells.
     */
    void (*kernel_resources)(struct kl_dev *dev, struct kl_kernel *k, size_t threads,
                             size_t local_dynamic, struct kl_resources *r);

    /*
     * Launches k over dims dimensions (global sizes are multiples of local
     * sizes) and waits for it. If t is not NULL it receives the launch's
     * times from the API's events (queue < 0 where the API cannot tell when
     * a launch was queued).
     */
    enum kl_status (*launch)(struct kl_dev *dev, struct kl_kernel *k, const struct kl_arg *args,
                             int nargs, int dims, const size_t *global, const size_t *local,
                             struct kl_launch_time *t, struct kl_err *e);

    /*
     * Pinned host memory: a buffer the device can reach at full transfer
     * speed (CL_MEM_ALLOC_HOST_PTR), mapped for the host at *host until
     * release. Used as the host side of fast transfers.
     */
    enum kl_status (*alloc_pinned)(struct kl_dev *dev, size_t bytes, struct kl_buf **out,
                                   void **host, struct kl_err *e);
    /* How alloc_pinned gets its memory, for reports: "cuMemHostAlloc". */
    const char *pinned_what;
    /*
     * The device memory free now, in bytes; 0 where the API cannot tell (then
     * the device's global memory is the limit). May be NULL.
     */
    size_t (*mem_free)(struct kl_dev *dev);
    /*
     * Both directions of the host link at once: bytes from host_in into in and bytes of
     * out into host_out, queued together on two queues (streams) of their own, returning
     * when both are done. May be NULL (peak --transfers then has no "both" rows).
     */
    enum kl_status (*copy_both)(struct kl_dev *dev, struct kl_buf *in, const void *host_in,
                                struct kl_buf *out, void *host_out, size_t bytes, struct kl_err *e);
    /*
     * A buffer that kernels of dev take as an argument and whose memory is the host memory
     * of pinned (alloc_pinned's) itself, so that a kernel reading or writing it moves the
     * bytes across the link (zero-copy; an SM-driven copy). Owns no memory: released with
     * release, before pinned. May be NULL where kernels cannot address host memory.
     */
    enum kl_status (*host_view)(struct kl_dev *dev, struct kl_buf *pinned, struct kl_buf **out,
                                struct kl_err *e);
    /* Blocking map of a buffer's first bytes for reading or writing; unmap. */
    enum kl_status (*map)(struct kl_dev *dev, struct kl_buf *buf, size_t bytes, int for_write,
                          void **host, struct kl_err *e);
    enum kl_status (*unmap)(struct kl_dev *dev, struct kl_buf *buf, void *host, struct kl_err *e);

    /*
     * A read-only w×h image filled from host: one float channel (rgba8 = 0) or
     * four 8-bit normalised channels (rgba8 = 1). Released with release.
     */
    enum kl_status (*alloc_image)(struct kl_dev *dev, int w, int h, int rgba8, const void *host,
                                  struct kl_buf **out, struct kl_err *e);

    /*
     * The API's own handles, for vendor libraries run beside the ladder on the
     * same device and data (CLBlast takes an OpenCL queue and cl_mem buffers).
     */
    void *(*native_queue)(struct kl_dev *dev);
    void *(*native_buffer)(struct kl_buf *buf);

    /*
     * Several devices driven from one thread (multi/): the entries above make
     * a device current when it is opened and wait for every launch; these
     * make a device current, queue work on streams and order it with events.
     * Streams and events are the API's own handles passed as void * (CUDA's
     * CUstream and CUevent, which NCCL and cuBLAS take as they are). Every
     * call acts on the device that is current, except where one is named.
     * All NULL where the backend has no streams (multi/ says so).
     */
    /* Makes dev current on this thread. */
    enum kl_status (*make_current)(struct kl_dev *dev, struct kl_err *e);
    /* A stream of dev that does not wait for the default one; destroyed with dev open. */
    enum kl_status (*stream_create)(struct kl_dev *dev, void **stream, struct kl_err *e);
    void (*stream_destroy)(struct kl_dev *dev, void *stream);
    /* Waits until everything queued on stream has finished; the work's error says why not. */
    enum kl_status (*stream_sync)(struct kl_dev *dev, void *stream, struct kl_err *e);
    /* An event of dev that can time and order streams. */
    enum kl_status (*event_create)(struct kl_dev *dev, void **event, struct kl_err *e);
    void (*event_destroy)(struct kl_dev *dev, void *event);
    /* Records event after what is queued on stream so far. */
    enum kl_status (*event_record)(void *event, void *stream, struct kl_err *e);
    /* Makes stream wait, on the device, for the last record of event (of any device). */
    enum kl_status (*stream_wait)(void *stream, void *event, struct kl_err *e);
    /* Seconds from start to end, both recorded on one device; waits for end. */
    enum kl_status (*event_elapsed)(void *start, void *end, double *seconds, struct kl_err *e);
    /*
     * Queues k on stream of dev without waiting: the arguments and geometry
     * of launch, checked the same way.
     */
    enum kl_status (*launch_async)(struct kl_dev *dev, void *stream, struct kl_kernel *k,
                                   const struct kl_arg *args, int nargs, int dims,
                                   const size_t *global, const size_t *local, struct kl_err *e);
    /*
     * Queues a copy of bytes from src (at byte src_off, on src_dev) to dst (at
     * dst_off, on dst_dev) on stream: between two devices directly where peer
     * access is on, else staged by the driver; within one device.
     */
    enum kl_status (*copy_async)(struct kl_dev *dst_dev, struct kl_buf *dst, size_t dst_off,
                                 struct kl_dev *src_dev, struct kl_buf *src, size_t src_off,
                                 size_t bytes, void *stream, struct kl_err *e);
    /*
     * Peer access: lets from's kernels and copies reach to's memory where the
     * hardware can (already enabled counts). *enabled: 1 when it is on, 0 when
     * the pair has none.
     */
    enum kl_status (*enable_peer)(struct kl_dev *from, struct kl_dev *to, int *enabled,
                                  struct kl_err *e);
    /* The buffer's device address (a CUdeviceptr), for NCCL and cuBLAS. */
    unsigned long long (*device_ptr)(const struct kl_buf *buf);
    /*
     * A buffer that is bytes of buf from byte offset on: kernels and copies
     * see it as a buffer of its own. It owns no memory; release frees the
     * view alone, before or after buf (which must outlive its use).
     */
    enum kl_status (*buf_view)(struct kl_buf *buf, size_t offset, size_t bytes, struct kl_buf **out,
                               struct kl_err *e);
};

/*
 * Every backend built in, the default first (a device spec without a
 * backend prefix names one of its devices); NULL ends the list.
 */
extern const struct kl_backend_ops *const kl_backends[];

extern const struct kl_backend_ops kl_backend_opencl;
#ifdef KLADDER_HAVE_CUDA
extern const struct kl_backend_ops kl_backend_cuda;
#endif

#endif /* KL_BACKEND_H */
