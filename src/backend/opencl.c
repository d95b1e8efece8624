/*
 * OpenCL backend, OpenCL 1.2 API through the ICD loader, so it runs on any
 * vendor's platform (NVIDIA, AMD, Intel, PoCL). Kernel time comes from
 * profiling events (CL_PROFILING_COMMAND_START/END), never host clocks.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#define CL_TARGET_OPENCL_VERSION 120
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#ifdef __APPLE__
#include <OpenCL/opencl.h>
#else
#include <CL/cl.h>
#endif

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/backend.h"
#include "core/context.h"
#include "core/util.h"

struct kl_dev {
    cl_platform_id platform;
    cl_device_id device;
    cl_context context;
    cl_command_queue queue;
    cl_command_queue queue2; /* copy_both's second direction; made on first use */
    int nv_verbose; /* NVIDIA's compiler: -cl-nv-verbose puts ptxas's register count in the log */
};

struct kl_buf {
    cl_mem mem;
    size_t bytes;
    struct kl_dev *dev; /* set for pinned buffers, which stay mapped */
    void *mapped;
};

struct kl_kernel {
    cl_program program;
    cl_kernel kernel;
    size_t max_wg;
    int regs;  /* from NVIDIA's build log; -1 unknown */
    char *log; /* what the compiler said (kl_compiler_messages); NULL: nothing */
};

static const char *cl_err_name(cl_int code)
{
    switch (code) {
#define E(x)                                                                                       \
    case x: return #x;
        E(CL_SUCCESS)
        E(CL_DEVICE_NOT_FOUND)
        E(CL_DEVICE_NOT_AVAILABLE)
        E(CL_COMPILER_NOT_AVAILABLE)
        E(CL_MEM_OBJECT_ALLOCATION_FAILURE)
        E(CL_OUT_OF_RESOURCES)
        E(CL_OUT_OF_HOST_MEMORY)
        E(CL_PROFILING_INFO_NOT_AVAILABLE)
        E(CL_BUILD_PROGRAM_FAILURE)
        E(CL_INVALID_VALUE)
        E(CL_INVALID_DEVICE_TYPE)
        E(CL_INVALID_PLATFORM)
        E(CL_INVALID_DEVICE)
        E(CL_INVALID_CONTEXT)
        E(CL_INVALID_COMMAND_QUEUE)
        E(CL_INVALID_MEM_OBJECT) E(CL_INVALID_BUILD_OPTIONS) E(CL_INVALID_PROGRAM)
            E(CL_INVALID_PROGRAM_EXECUTABLE) E(CL_INVALID_KERNEL_NAME) E(CL_INVALID_KERNEL)
                E(CL_INVALID_ARG_INDEX) E(CL_INVALID_ARG_VALUE) E(CL_INVALID_ARG_SIZE)
                    E(CL_INVALID_KERNEL_ARGS) E(CL_INVALID_WORK_DIMENSION)
                        E(CL_INVALID_WORK_GROUP_SIZE) E(CL_INVALID_WORK_ITEM_SIZE)
                            E(CL_INVALID_GLOBAL_WORK_SIZE) E(CL_INVALID_EVENT)
                                E(CL_INVALID_OPERATION) E(CL_INVALID_BUFFER_SIZE)
                                    E(CL_MISALIGNED_SUB_BUFFER_OFFSET)
                                        E(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
#undef E
                                            case -1001 : return "CL_PLATFORM_NOT_FOUND_KHR";
    }
    return "unknown OpenCL error";
}

/* Memory exhaustion is the user's problem to fix (smaller sizes), not a bug. */
static enum kl_status status_of(cl_int code)
{
    switch (code) {
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
    case CL_OUT_OF_RESOURCES:
    case CL_OUT_OF_HOST_MEMORY:
    case CL_INVALID_BUFFER_SIZE: return KL_ERR_NO_MEMORY;
    default: return KL_ERR_BACKEND;
    }
}

/*
 * Checked call: on failure records the call text, the error name, file and
 * line in e and jumps to the function's `fail` label.
 */
#define CL_TRY(call)                                                                               \
    do {                                                                                           \
        cl_int rc_ = (call);                                                                       \
        if (rc_ != CL_SUCCESS) {                                                                   \
            st = kl_fail(e, status_of(rc_), "%s failed: %s (%d) at %s:%d", #call,                  \
                         cl_err_name(rc_), (int)rc_, __FILE__, __LINE__);                          \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)

/* For calls that return an object and report through their last argument. */
#define CL_TRY_RC(what)                                                                            \
    do {                                                                                           \
        if (rc != CL_SUCCESS) {                                                                    \
            st = kl_fail(e, status_of(rc), "%s failed: %s (%d) at %s:%d", what, cl_err_name(rc),   \
                         (int)rc, __FILE__, __LINE__);                                             \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)

static cl_uint platforms(cl_platform_id *ids, cl_uint max)
{
    cl_uint n = 0;
    /* Every OpenCL call starts here. NVIDIA's compute cache would hand back a program built
     * in an earlier run without its build log, and so without the register count its
     * -cl-nv-verbose log gives (ocl_kernel_resources); kladder builds each kernel once per
     * run anyway. A value the user set stands. Other vendors ignore the variable. */
    setenv("CUDA_CACHE_DISABLE", "1", 0);
    if (clGetPlatformIDs(max, ids, &n) != CL_SUCCESS)
        return 0;
    return n < max ? n : max;
}

#define KL_MAX_PLATFORMS 16
#define KL_MAX_DEVICES 64

static int ocl_platform_count(void)
{
    cl_platform_id ids[KL_MAX_PLATFORMS];
    return (int)platforms(ids, KL_MAX_PLATFORMS);
}

static enum kl_status lookup(int p, int d, cl_platform_id *pid, cl_device_id *did, struct kl_err *e)
{
    cl_platform_id pids[KL_MAX_PLATFORMS];
    cl_device_id dids[KL_MAX_DEVICES];
    cl_uint np = platforms(pids, KL_MAX_PLATFORMS), nd = 0;
    if (p < 0 || (cl_uint)p >= np)
        return kl_fail(e, KL_ERR_NO_DEVICE, "there is no OpenCL platform %d (%u found)", p,
                       (unsigned)np);
    if (clGetDeviceIDs(pids[p], CL_DEVICE_TYPE_ALL, KL_MAX_DEVICES, dids, &nd) != CL_SUCCESS)
        nd = 0;
    if (d < 0 || (cl_uint)d >= nd)
        return kl_fail(e, KL_ERR_NO_DEVICE, "platform %d has no device %d (%u found)", p, d,
                       (unsigned)nd);
    *pid = pids[p];
    *did = dids[d];
    return KL_OK;
}

static int ocl_device_count(int p)
{
    cl_platform_id pids[KL_MAX_PLATFORMS];
    cl_uint np = platforms(pids, KL_MAX_PLATFORMS), nd = 0;
    if (p < 0 || (cl_uint)p >= np)
        return 0;
    if (clGetDeviceIDs(pids[p], CL_DEVICE_TYPE_ALL, 0, NULL, &nd) != CL_SUCCESS)
        return 0;
    return (int)nd;
}

static void dev_str(cl_device_id d, cl_device_info what, char *out, size_t n)
{
    out[0] = '\0';
    if (clGetDeviceInfo(d, what, n, out, NULL) != CL_SUCCESS)
        snprintf(out, n, "?");
    out[n - 1] = '\0';
}

static uint64_t dev_u64(cl_device_id d, cl_device_info what)
{
    cl_ulong v = 0;
    clGetDeviceInfo(d, what, sizeof v, &v, NULL);
    return (uint64_t)v;
}

static unsigned dev_uint(cl_device_id d, cl_device_info what)
{
    cl_uint v = 0;
    clGetDeviceInfo(d, what, sizeof v, &v, NULL);
    return (unsigned)v;
}

/*
 * What a multiprocessor of an NVIDIA GPU holds, by compute capability (the
 * CUDA C++ Programming Guide's table of technical specifications), which
 * NVIDIA's OpenCL does not report: for the occupancy of a rung's kernel.
 */
static void nvidia_limits(struct kl_device_info *info)
{
    static const struct {
        int major, minor;
        unsigned threads, blocks, shared_kib, reserved;
    } cc[] = {{7, 0, 2048, 32, 96, 0},     {7, 2, 2048, 32, 96, 0},     {7, 5, 1024, 16, 64, 0},
              {8, 0, 2048, 32, 164, 1024}, {8, 6, 1536, 16, 100, 1024}, {8, 7, 1536, 16, 164, 1024},
              {8, 9, 1536, 24, 100, 1024}, {9, 0, 2048, 32, 228, 1024}};
    for (size_t i = 0; i < sizeof cc / sizeof *cc; i++)
        if (cc[i].major == info->cc_major && cc[i].minor == info->cc_minor) {
            info->warp = 32;
            info->regs_per_cu = 65536;
            info->threads_per_cu = cc[i].threads;
            info->blocks_per_cu = cc[i].blocks;
            info->local_mem_per_cu = (uint64_t)cc[i].shared_kib * 1024;
            info->local_mem_reserved = cc[i].reserved;
        }
}

/*
 * Whether a started work-group is known to keep running while another waits on it: NVIDIA's
 * GPUs (resident blocks run to their end), CPU devices (a work-group a thread, preempted
 * fairly) and oclgrind (one work-group after the other). OpenCL promises it nowhere.
 */
static int groups_progress(cl_device_type type, const char *vendor)
{
    return (type & CL_DEVICE_TYPE_CPU) || kl_contains_nocase(vendor, "nvidia") ||
           kl_contains_nocase(vendor, "oclgrind");
}

static enum kl_status ocl_device_info(int p, int d, struct kl_device_info *info, struct kl_err *e)
{
    cl_platform_id pid;
    cl_device_id did;
    enum kl_status st = lookup(p, d, &pid, &did, e);
    if (st != KL_OK)
        return st;
    memset(info, 0, sizeof *info);
    clGetPlatformInfo(pid, CL_PLATFORM_NAME, sizeof info->platform, info->platform, NULL);
    clGetPlatformInfo(pid, CL_PLATFORM_VERSION, sizeof info->platform_version,
                      info->platform_version, NULL);
    info->platform[sizeof info->platform - 1] = '\0';
    info->platform_version[sizeof info->platform_version - 1] = '\0';
    dev_str(did, CL_DEVICE_NAME, info->name, sizeof info->name);
    dev_str(did, CL_DEVICE_VENDOR, info->vendor, sizeof info->vendor);
    dev_str(did, CL_DRIVER_VERSION, info->driver_version, sizeof info->driver_version);
    dev_str(did, CL_DEVICE_VERSION, info->device_version, sizeof info->device_version);
    dev_str(did, CL_DEVICE_OPENCL_C_VERSION, info->c_version, sizeof info->c_version);

    cl_device_type type = 0;
    clGetDeviceInfo(did, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    info->is_gpu = (type & CL_DEVICE_TYPE_GPU) != 0;
    snprintf(info->type, sizeof info->type, "%s",
             info->is_gpu                          ? "GPU"
             : (type & CL_DEVICE_TYPE_CPU)         ? "CPU"
             : (type & CL_DEVICE_TYPE_ACCELERATOR) ? "accelerator"
                                                   : "other");
    info->groups_progress = groups_progress(type, info->vendor);

    info->compute_units = dev_uint(did, CL_DEVICE_MAX_COMPUTE_UNITS);
    info->max_clock_mhz = dev_uint(did, CL_DEVICE_MAX_CLOCK_FREQUENCY);
    info->global_mem = dev_u64(did, CL_DEVICE_GLOBAL_MEM_SIZE);
    info->max_alloc = dev_u64(did, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
    info->global_cache = dev_u64(did, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE);
    info->global_cacheline = dev_uint(did, CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE);
    info->local_mem = dev_u64(did, CL_DEVICE_LOCAL_MEM_SIZE);
    info->constant_mem = dev_u64(did, CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE);

    cl_device_local_mem_type lt = CL_GLOBAL;
    clGetDeviceInfo(did, CL_DEVICE_LOCAL_MEM_TYPE, sizeof lt, &lt, NULL);
    info->local_mem_dedicated = lt == CL_LOCAL;

    size_t wg = 0;
    clGetDeviceInfo(did, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof wg, &wg, NULL);
    info->max_wg = wg;
    cl_uint dims = 0;
    clGetDeviceInfo(did, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, sizeof dims, &dims, NULL);
    size_t items[8] = {0};
    if (dims > 8)
        dims = 8;
    clGetDeviceInfo(did, CL_DEVICE_MAX_WORK_ITEM_SIZES, dims * sizeof(size_t), items, NULL);
    for (int i = 0; i < 3; i++)
        info->max_item[i] = (cl_uint)i < dims ? items[i] : 1;

    info->pref_vec_float = dev_uint(did, CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT);
    info->pref_vec_double = dev_uint(did, CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE);
    info->native_vec_float = dev_uint(did, CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT);
    info->native_vec_double = dev_uint(did, CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE);

    cl_device_fp_config fp64 = 0;
    clGetDeviceInfo(did, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp64, &fp64, NULL);
    info->fp64 = fp64 != 0;

    size_t ext_len = 0;
    if (clGetDeviceInfo(did, CL_DEVICE_EXTENSIONS, 0, NULL, &ext_len) == CL_SUCCESS && ext_len) {
        char *ext = malloc(ext_len + 1);
        if (ext && clGetDeviceInfo(did, CL_DEVICE_EXTENSIONS, ext_len, ext, NULL) == CL_SUCCESS) {
            ext[ext_len] = '\0';
            info->subgroups = strstr(ext, "cl_khr_subgroups") != NULL;
            info->atomics64 = strstr(ext, "cl_khr_int64_base_atomics") != NULL;
            if (strstr(ext, "cl_nv_device_attribute_query")) {
                /* CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV / _MINOR_NV: which PTX it runs. */
                info->cc_major = (int)dev_uint(did, 0x4000);
                info->cc_minor = (int)dev_uint(did, 0x4001);
                /* CL_DEVICE_PCI_DOMAIN_ID_NV, _BUS_ID_NV and _SLOT_ID_NV (the device; a
                 * GPU is function 0), for NVML. */
                snprintf(info->pci_bus_id, sizeof info->pci_bus_id, "%04x:%02x:%02x.0",
                         dev_uint(did, 0x400A), dev_uint(did, 0x4008), dev_uint(did, 0x4009));
                nvidia_limits(info);
            } else if (strstr(ext, "cl_khr_pci_bus_info")) {
                cl_uint pci[4]; /* CL_DEVICE_PCI_BUS_INFO_KHR: domain, bus, device, function */
                if (clGetDeviceInfo(did, 0x410F, sizeof pci, pci, NULL) == CL_SUCCESS)
                    snprintf(info->pci_bus_id, sizeof info->pci_bus_id, "%04x:%02x:%02x.%x", pci[0],
                             pci[1], pci[2], pci[3]);
            }
        }
        free(ext);
    }

    cl_bool images = CL_FALSE;
    clGetDeviceInfo(did, CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images, NULL);
    info->images = images == CL_TRUE;
    clGetDeviceInfo(did, CL_DEVICE_IMAGE2D_MAX_WIDTH, sizeof(size_t), &info->image2d_max[0], NULL);
    clGetDeviceInfo(did, CL_DEVICE_IMAGE2D_MAX_HEIGHT, sizeof(size_t), &info->image2d_max[1], NULL);

    cl_command_queue_properties qp = 0;
    clGetDeviceInfo(did, CL_DEVICE_QUEUE_PROPERTIES, sizeof qp, &qp, NULL);
    info->profiling = (qp & CL_QUEUE_PROFILING_ENABLE) != 0;
    return KL_OK;
}

static void ocl_close(struct kl_dev *dev)
{
    if (!dev)
        return;
    if (dev->queue)
        clReleaseCommandQueue(dev->queue);
    if (dev->queue2)
        clReleaseCommandQueue(dev->queue2);
    if (dev->context)
        clReleaseContext(dev->context);
    free(dev);
}

static enum kl_status ocl_open(int p, int d, struct kl_dev **out, struct kl_err *e)
{
    enum kl_status st;
    cl_int rc;
    struct kl_dev *dev = calloc(1, sizeof *dev);
    *out = NULL;
    if (!dev)
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory");
    st = lookup(p, d, &dev->platform, &dev->device, e);
    if (st != KL_OK)
        goto fail;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)dev->platform, 0};
    dev->context = clCreateContext(props, 1, &dev->device, NULL, NULL, &rc);
    CL_TRY_RC("clCreateContext");
    dev->queue = clCreateCommandQueue(dev->context, dev->device, CL_QUEUE_PROFILING_ENABLE, &rc);
    CL_TRY_RC("clCreateCommandQueue(CL_QUEUE_PROFILING_ENABLE)");
    size_t n = 0;
    if (clGetDeviceInfo(dev->device, CL_DEVICE_EXTENSIONS, 0, NULL, &n) == CL_SUCCESS && n) {
        char *ext = malloc(n + 1);
        if (ext && clGetDeviceInfo(dev->device, CL_DEVICE_EXTENSIONS, n, ext, NULL) == CL_SUCCESS) {
            ext[n] = '\0';
            dev->nv_verbose = strstr(ext, "cl_nv_device_attribute_query") != NULL;
        }
        free(ext);
    }
    *out = dev;
    return KL_OK;
fail:
    ocl_close(dev);
    return st;
}

static enum kl_status ocl_alloc(struct kl_dev *dev, size_t bytes, struct kl_buf **out,
                                struct kl_err *e)
{
    enum kl_status st;
    cl_int rc;
    struct kl_buf *buf = calloc(1, sizeof *buf);
    *out = NULL;
    if (!buf)
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory");
    /* Zero-byte buffers are invalid in OpenCL; callers never need one. */
    buf->bytes = bytes ? bytes : 1;
    buf->mem = clCreateBuffer(dev->context, CL_MEM_READ_WRITE, buf->bytes, NULL, &rc);
    CL_TRY_RC("clCreateBuffer");
    *out = buf;
    return KL_OK;
fail:
    free(buf);
    return st;
}

static void ocl_release(struct kl_buf *buf)
{
    if (!buf)
        return;
    if (buf->mapped) {
        clEnqueueUnmapMemObject(buf->dev->queue, buf->mem, buf->mapped, 0, NULL, NULL);
        clFinish(buf->dev->queue);
    }
    if (buf->mem)
        clReleaseMemObject(buf->mem);
    free(buf);
}

static enum kl_status ocl_write(struct kl_dev *dev, struct kl_buf *buf, const void *src,
                                size_t bytes, struct kl_err *e)
{
    enum kl_status st = KL_OK;
    CL_TRY(clEnqueueWriteBuffer(dev->queue, buf->mem, CL_TRUE, 0, bytes, src, 0, NULL, NULL));
fail:
    return st;
}

static enum kl_status ocl_read(struct kl_dev *dev, struct kl_buf *buf, void *dst, size_t bytes,
                               struct kl_err *e)
{
    enum kl_status st = KL_OK;
    CL_TRY(clEnqueueReadBuffer(dev->queue, buf->mem, CL_TRUE, 0, bytes, dst, 0, NULL, NULL));
fail:
    return st;
}

/*
 * The write on the device's queue, the read on a second one, both queued (and flushed, so
 * that neither waits for the other to be submitted) before either is waited for, after all
 * the device's queue held: the second queue would not wait for it.
 */
static enum kl_status ocl_copy_both(struct kl_dev *dev, struct kl_buf *in, const void *host_in,
                                    struct kl_buf *out, void *host_out, size_t bytes,
                                    struct kl_err *e)
{
    enum kl_status st = KL_OK;
    cl_int rc = CL_SUCCESS, second;
    if (!dev->queue2) {
        dev->queue2 = clCreateCommandQueue(dev->context, dev->device, 0, &rc);
        CL_TRY_RC("clCreateCommandQueue (copy_both's second)");
    }
    CL_TRY(clFinish(dev->queue));
    CL_TRY(clEnqueueWriteBuffer(dev->queue, in->mem, CL_FALSE, 0, bytes, host_in, 0, NULL, NULL));
    CL_TRY(clEnqueueReadBuffer(dev->queue2, out->mem, CL_FALSE, 0, bytes, host_out, 0, NULL, NULL));
    CL_TRY(clFlush(dev->queue));
    CL_TRY(clFlush(dev->queue2));
fail:
    /* (also after a failure: nothing queued may outlive the host memory it reads or writes) */
    rc = clFinish(dev->queue);
    second = dev->queue2 ? clFinish(dev->queue2) : CL_SUCCESS;
    rc = rc != CL_SUCCESS ? rc : second;
    if (st == KL_OK && rc != CL_SUCCESS)
        st = kl_fail(e, status_of(rc), "clFinish after copy_both failed: %s (%d)", cl_err_name(rc),
                     (int)rc);
    return st;
}

static void ocl_kernel_free(struct kl_kernel *k)
{
    if (!k)
        return;
    if (k->kernel)
        clReleaseKernel(k->kernel);
    if (k->program)
        clReleaseProgram(k->program);
    free(k->log);
    free(k);
}

static const char *ocl_kernel_log(struct kl_kernel *k)
{
    return k->log ? k->log : "";
}

/*
 * The registers ptxas gave entry, from NVIDIA's -cl-nv-verbose build log
 * ("Compiling entry function 'ENTRY' ..." then "Used N registers"); -1 if absent.
 */
static int log_registers(const char *log, const char *entry)
{
    char head[160];
    snprintf(head, sizeof head, "entry function '%s'", entry);
    const char *at = strstr(log, head), *used;
    int regs;
    if (!at || !(used = strstr(at, "Used ")) || sscanf(used, "Used %d registers", &regs) != 1)
        return -1;
    return regs;
}

/* The program's build log, malloc'd ("" where there is none); NULL without memory. */
static char *build_log(struct kl_dev *dev, cl_program program)
{
    size_t n = 0;
    clGetProgramBuildInfo(program, dev->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &n);
    char *log = malloc(n + 1);
    if (log && (n == 0 || clGetProgramBuildInfo(program, dev->device, CL_PROGRAM_BUILD_LOG, n, log,
                                                NULL) != CL_SUCCESS))
        n = 0;
    if (log)
        log[n] = '\0';
    return log;
}

/*
 * What a compiler prints on standard error while it builds ("8 warnings
 * generated." from PoCL's clang) is caught in a temporary file, so that it
 * never breaks kladder's own output: hush_begin points standard error at it
 * (NULL where it cannot, and nothing is caught), hush_end points it back and
 * returns what was printed (malloc'd, at most 4 KiB; NULL if nothing).
 * Only where builds run one at a time (ocl_parallel_builds): standard error
 * is the process's.
 */
struct hush {
    FILE *file;
    int saved;
};

static struct hush hush_begin(void)
{
    struct hush h = {tmpfile(), -1};
    fflush(stderr);
    if (h.file && (h.saved = dup(STDERR_FILENO)) >= 0 && dup2(fileno(h.file), STDERR_FILENO) >= 0)
        return h;
    if (h.saved >= 0)
        close(h.saved);
    if (h.file)
        fclose(h.file);
    return (struct hush){NULL, -1};
}

static char *hush_end(struct hush h)
{
    char *text = NULL;
    if (!h.file)
        return NULL;
    fflush(stderr);
    dup2(h.saved, STDERR_FILENO);
    close(h.saved);
    long n = ftell(h.file);
    if (n > 4096)
        n = 4096;
    if (n > 0 && fseek(h.file, 0, SEEK_SET) == 0 && (text = malloc((size_t)n + 1))) {
        size_t got = fread(text, 1, (size_t)n, h.file);
        text[got] = '\0';
    }
    fclose(h.file);
    return text;
}

/* A failed build's error: the call's, then the build log and what the compiler printed. */
static enum kl_status build_failed(cl_int rc, const char *options, const char *log,
                                   const char *chatter, struct kl_err *e)
{
    enum kl_status st = kl_fail(e, rc == CL_BUILD_PROGRAM_FAILURE ? KL_ERR_BUILD : status_of(rc),
                                "clBuildProgram failed: %s (%d) with options \"%s\"; build log:\n",
                                cl_err_name(rc), (int)rc, options);
    if (log)
        kl_err_append(e, "%s", log);
    if (chatter && (!log || !strstr(log, chatter)))
        kl_err_append(e, "%s%s", log && *log ? "\n" : "", chatter);
    return st;
}

/* The program built with options and extra (more options, "" for none), and its kernel entry. */
static enum kl_status build_once(struct kl_dev *dev, const char *source, const char *options,
                                 const char *extra, const char *entry, struct kl_kernel **out,
                                 struct kl_err *e)
{
    enum kl_status st;
    cl_int rc;
    struct kl_kernel *k = calloc(1, sizeof *k);
    char *opts = NULL, *log = NULL;
    *out = NULL;
    if (!k || !(opts = malloc(strlen(options) + strlen(extra) + 32))) {
        free(k);
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory");
    }
    sprintf(opts, "%s%s%s", options, extra, dev->nv_verbose ? " -cl-nv-verbose" : "");
    k->regs = -1;
    k->program = clCreateProgramWithSource(dev->context, 1, &source, NULL, &rc);
    CL_TRY_RC("clCreateProgramWithSource");
    struct hush hush = dev->nv_verbose ? (struct hush){NULL, -1} : hush_begin();
    rc = clBuildProgram(k->program, 1, &dev->device, opts, NULL, NULL);
    char *chatter = hush_end(hush);
    log = build_log(dev, k->program);
    if (rc != CL_SUCCESS) {
        st = build_failed(rc, options, log, chatter, e);
        free(chatter);
        goto fail;
    }
    /* A successful build's warnings: kept for the report, never printed. */
    k->log = kl_compiler_messages(log, chatter, dev->nv_verbose);
    free(chatter);
    k->kernel = clCreateKernel(k->program, entry, &rc);
    if (rc == CL_INVALID_KERNEL_NAME) {
        st = kl_fail(e, KL_ERR_BUILD, "the compiled source has no kernel \"%s\"", entry);
        goto fail;
    }
    CL_TRY_RC("clCreateKernel");
    CL_TRY(clGetKernelWorkGroupInfo(k->kernel, dev->device, CL_KERNEL_WORK_GROUP_SIZE,
                                    sizeof k->max_wg, &k->max_wg, NULL));
    if (log && dev->nv_verbose)
        k->regs = log_registers(log, entry);
    free(log);
    free(opts);
    *out = k;
    return KL_OK;
fail:
    free(log);
    free(opts);
    ocl_kernel_free(k);
    return st;
}

/*
 * NVIDIA's compiler gives a kernel the registers it likes whatever its
 * reqd_work_group_size says: a kernel declared for 1024 work-items can come
 * back allowing 256. CUDA's compiler reads the same attribute (launch bounds
 * there) as a cap on the registers. So on NVIDIA's OpenCL, where the kernel
 * allows fewer work-items than it declares, it is built once more with
 * -cl-nv-maxrregcount at a block's 65536 registers shared among them (in
 * ptxas's steps of 8); should that build fail, the first stands and the
 * launch says why.
 */
static enum kl_status ocl_build(struct kl_dev *dev, const char *source, const char *options,
                                const char *entry, struct kl_kernel **out, struct kl_err *e)
{
    size_t want[3] = {0, 0, 0};
    struct kl_kernel *capped;
    enum kl_status st = build_once(dev, source, options, "", entry, out, e);
    if (st != KL_OK || !dev->nv_verbose ||
        clGetKernelWorkGroupInfo((*out)->kernel, dev->device, CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
                                 sizeof want, want, NULL) != CL_SUCCESS)
        return st;
    size_t items = want[0] * want[1] * want[2];
    if (items <= (*out)->max_wg || items > 1024)
        return st;
    char extra[48];
    size_t regs = 65536 / items / 8 * 8;
    snprintf(extra, sizeof extra, " -cl-nv-maxrregcount=%zu", regs > 255 ? (size_t)255 : regs);
    struct kl_err ignored = {0};
    if (build_once(dev, source, options, extra, entry, &capped, &ignored) == KL_OK) {
        ocl_kernel_free(*out);
        *out = capped;
    }
    return KL_OK;
}

/* NVIDIA's OpenCL compiles programs on several threads at once; other implementations' are
 * left to one (oclgrind's crashes off the main thread). */
static int ocl_parallel_builds(struct kl_dev *dev)
{
    return dev->nv_verbose;
}

static size_t ocl_kernel_max_wg(struct kl_kernel *k)
{
    return k->max_wg;
}

static void ocl_kernel_signature(struct kl_kernel *k, struct kl_kernel_sig *sig)
{
    cl_uint n;
    memset(sig, 0, sizeof *sig);
    sig->count = -1;
    if (clGetKernelInfo(k->kernel, CL_KERNEL_NUM_ARGS, sizeof n, &n, NULL) != CL_SUCCESS)
        return;
    sig->count = (int)n;
    for (cl_uint i = 0; i < n && i < KL_MAX_SIG; i++) {
        cl_kernel_arg_address_qualifier q;
        char type[64];
        /* Fails (CL_KERNEL_ARG_INFO_NOT_AVAILABLE) unless built with -cl-kernel-arg-info. */
        if (clGetKernelArgInfo(k->kernel, i, CL_KERNEL_ARG_TYPE_NAME, sizeof type, type, NULL) !=
                CL_SUCCESS ||
            clGetKernelArgInfo(k->kernel, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof q, &q, NULL) !=
                CL_SUCCESS)
            continue;
        type[sizeof type - 1] = '\0';
        snprintf(sig->type[i], sizeof sig->type[i], "%.31s", type);
        sig->global[i] = q == CL_KERNEL_ARG_ADDRESS_GLOBAL;
        sig->constant[i] = q == CL_KERNEL_ARG_ADDRESS_CONSTANT;
    }
}

/*
 * The API's view of k for a work-group of threads work-items: private and
 * local memory (CL_KERNEL_LOCAL_MEM_SIZE counts the __local arguments as last
 * set, which the launch has set), registers where NVIDIA's log gave them.
 * OpenCL does not say how many work-groups a compute unit holds.
 */
static void ocl_kernel_resources(struct kl_dev *dev, struct kl_kernel *k, size_t threads,
                                 size_t local_dynamic, struct kl_resources *r)
{
    cl_ulong priv = 0, local = 0;
    memset(r, 0, sizeof *r);
    r->regs = k->regs;
    r->private_bytes = clGetKernelWorkGroupInfo(k->kernel, dev->device, CL_KERNEL_PRIVATE_MEM_SIZE,
                                                sizeof priv, &priv, NULL) == CL_SUCCESS
                           ? (long)priv
                           : -1;
    r->local_static = clGetKernelWorkGroupInfo(k->kernel, dev->device, CL_KERNEL_LOCAL_MEM_SIZE,
                                               sizeof local, &local, NULL) == CL_SUCCESS &&
                              local >= local_dynamic
                          ? (long)(local - local_dynamic)
                          : -1;
    size_t multiple = 0;
    r->local_dynamic = (long)local_dynamic;
    r->threads = (long)threads;
    r->max_threads = (long)k->max_wg;
    r->threads_multiple = clGetKernelWorkGroupInfo(k->kernel, dev->device,
                                                   CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
                                                   sizeof multiple, &multiple, NULL) == CL_SUCCESS
                              ? (long)multiple
                              : -1;
    r->groups_per_cu = -1;
    snprintf(r->why, sizeof r->why, "%s",
             k->regs >= 0 ? ""
             : dev->nv_verbose
                 ? "NVIDIA's build log named no register count for this kernel (a program "
                   "from NVIDIA's compute cache has none: CUDA_CACHE_DISABLE=1)"
                 : "this OpenCL driver reports no register count (NVIDIA's does, with "
                   "-cl-nv-verbose)");
}

static enum kl_status set_arg(cl_kernel k, cl_uint i, const struct kl_arg *a, struct kl_err *e)
{
    enum kl_status st = KL_OK;
    switch (a->kind) {
    case KL_ARG_BUF: CL_TRY(clSetKernelArg(k, i, sizeof(cl_mem), &a->v.buf->mem)); break;
    case KL_ARG_INT: CL_TRY(clSetKernelArg(k, i, sizeof(cl_int), &a->v.i)); break;
    case KL_ARG_FLOAT: CL_TRY(clSetKernelArg(k, i, sizeof(cl_float), &a->v.f)); break;
    case KL_ARG_DOUBLE: CL_TRY(clSetKernelArg(k, i, sizeof(cl_double), &a->v.d)); break;
    case KL_ARG_LOCAL: CL_TRY(clSetKernelArg(k, i, a->v.local_bytes, NULL)); break;
    case KL_ARG_TENSOR_MAP:
        return kl_fail(e, KL_ERR_UNSUPPORTED, "tensor maps (TMA) exist only on the CUDA backend");
    }
fail:
    return st;
}

static enum kl_status ocl_launch(struct kl_dev *dev, struct kl_kernel *k, const struct kl_arg *args,
                                 int nargs, int dims, const size_t *global, const size_t *local,
                                 struct kl_launch_time *t, struct kl_err *e)
{
    enum kl_status st = KL_OK;
    cl_event ev = NULL;
    for (int i = 0; i < nargs; i++) {
        st = set_arg(k->kernel, (cl_uint)i, &args[i], e);
        if (st != KL_OK)
            return st;
    }
    CL_TRY(clEnqueueNDRangeKernel(dev->queue, k->kernel, (cl_uint)dims, NULL, global, local, 0,
                                  NULL, &ev));
    CL_TRY(clWaitForEvents(1, &ev));
    cl_int exec = CL_COMPLETE;
    CL_TRY(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof exec, &exec, NULL));
    if (exec < 0) {
        st = kl_fail(e, status_of(exec), "kernel execution failed: %s (%d)", cl_err_name(exec),
                     (int)exec);
        goto fail;
    }
    if (t) {
        cl_ulong tq = 0, t0 = 0, t1 = 0;
        CL_TRY(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_QUEUED, sizeof tq, &tq, NULL));
        CL_TRY(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL));
        CL_TRY(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL));
        t->run = (double)(t1 - t0) * 1e-9;
        t->queue = t0 > tq ? (double)(t0 - tq) * 1e-9 : 0.0;
    }
fail:
    if (ev)
        clReleaseEvent(ev);
    return st;
}

static enum kl_status ocl_map(struct kl_dev *dev, struct kl_buf *buf, size_t bytes, int for_write,
                              void **host, struct kl_err *e)
{
    enum kl_status st = KL_OK;
    cl_int rc;
    *host =
        clEnqueueMapBuffer(dev->queue, buf->mem, CL_TRUE, for_write ? CL_MAP_WRITE : CL_MAP_READ, 0,
                           bytes, 0, NULL, NULL, &rc);
    CL_TRY_RC("clEnqueueMapBuffer");
fail:
    return st;
}

static enum kl_status ocl_unmap(struct kl_dev *dev, struct kl_buf *buf, void *host,
                                struct kl_err *e)
{
    enum kl_status st = KL_OK;
    CL_TRY(clEnqueueUnmapMemObject(dev->queue, buf->mem, host, 0, NULL, NULL));
    CL_TRY(clFinish(dev->queue));
fail:
    return st;
}

static enum kl_status ocl_alloc_pinned(struct kl_dev *dev, size_t bytes, struct kl_buf **out,
                                       void **host, struct kl_err *e)
{
    enum kl_status st;
    cl_int rc;
    struct kl_buf *buf = calloc(1, sizeof *buf);
    *out = NULL;
    if (!buf)
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory");
    buf->bytes = bytes ? bytes : 1;
    buf->mem = clCreateBuffer(dev->context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, buf->bytes,
                              NULL, &rc);
    CL_TRY_RC("clCreateBuffer(CL_MEM_ALLOC_HOST_PTR)");
    if ((st = ocl_map(dev, buf, buf->bytes, 1, &buf->mapped, e)) != KL_OK)
        goto fail;
    buf->dev = dev;
    *host = buf->mapped;
    *out = buf;
    return KL_OK;
fail:
    ocl_release(buf);
    return st;
}

static enum kl_status ocl_alloc_image(struct kl_dev *dev, int w, int h, int rgba8, const void *host,
                                      struct kl_buf **out, struct kl_err *e)
{
    enum kl_status st;
    cl_int rc;
    struct kl_buf *buf = calloc(1, sizeof *buf);
    cl_image_format fmt = {rgba8 ? CL_RGBA : CL_R, rgba8 ? CL_UNORM_INT8 : CL_FLOAT};
    *out = NULL;
    if (!buf)
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory");
    buf->bytes = (size_t)w * (size_t)h * 4;
    /* clCreateImage2D is the OpenCL 1.1 call every 1.x and later runtime still offers. */
    buf->mem = clCreateImage2D(dev->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, &fmt,
                               (size_t)w, (size_t)h, 0, (void *)host, &rc);
    CL_TRY_RC("clCreateImage2D");
    *out = buf;
    return KL_OK;
fail:
    free(buf);
    return st;
}

/* The cl_command_queue and cl_mem behind the opaque handles, as void *. */
static void *ocl_native_queue(struct kl_dev *dev)
{
    return (void *)dev->queue;
}
static void *ocl_native_buffer(struct kl_buf *buf)
{
    return (void *)buf->mem;
}

/* ---- an NVIDIA GPU without its OpenCL platform --------------------------- */

static int has_nvidia_platform(void)
{
    int np = ocl_platform_count();
    for (int p = 0; p < np; p++) {
        for (int d = 0; d < ocl_device_count(p); d++) {
            struct kl_device_info info;
            if (ocl_device_info(p, d, &info, NULL) == KL_OK &&
                (kl_contains_nocase(info.vendor, "nvidia") ||
                 kl_contains_nocase(info.platform, "nvidia")))
                return 1;
        }
    }
    return 0;
}

/* device_hint; also core/context.h's, for `kladder devices`. */
int kl_nvidia_hint(char *buf, size_t n)
{
    int gpu = access("/dev/nvidia0", F_OK) == 0;
    if (!gpu) {
        void *lib = dlopen("libnvidia-opencl.so.1", RTLD_LAZY | RTLD_LOCAL);
        if (lib) {
            gpu = 1;
            dlclose(lib);
        }
    }
    if (!gpu || has_nvidia_platform())
        return 0;
    snprintf(buf, n,
             "An NVIDIA GPU is present but no NVIDIA OpenCL platform is registered.\n"
             "Register it with an ICD file naming NVIDIA's OpenCL library, e.g.:\n"
             "    mkdir -p /tmp/icd && echo libnvidia-opencl.so.1 > /tmp/icd/nvidia.icd\n"
             "    export OCL_ICD_VENDORS=/tmp/icd\n"
             "(or, as root: echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd)");
    return 1;
}

const struct kl_backend_ops kl_backend_opencl = {
    .name = "opencl",
    .local_is_param = 1,
    .arg_info_option = " -cl-kernel-arg-info",
    .opencl_handles = 1,
    .device_hint = kl_nvidia_hint,
    .platform_count = ocl_platform_count,
    .device_count = ocl_device_count,
    .device_info = ocl_device_info,
    .open = ocl_open,
    .close = ocl_close,
    .alloc = ocl_alloc,
    .release = ocl_release,
    .write = ocl_write,
    .read = ocl_read,
    .build = ocl_build,
    .kernel_free = ocl_kernel_free,
    .parallel_builds = ocl_parallel_builds,
    .kernel_max_wg = ocl_kernel_max_wg,
    .kernel_log = ocl_kernel_log,
    .kernel_signature = ocl_kernel_signature,
    .kernel_resources = ocl_kernel_resources,
    .launch = ocl_launch,
    .alloc_pinned = ocl_alloc_pinned,
    .copy_both = ocl_copy_both,
    .pinned_what = "CL_MEM_ALLOC_HOST_PTR, mapped",
    .map = ocl_map,
    .unmap = ocl_unmap,
    .alloc_image = ocl_alloc_image,
    .native_queue = ocl_native_queue,
    .native_buffer = ocl_native_buffer,
};
