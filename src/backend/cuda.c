/*
 * CUDA backend: the driver API with kernels compiled at run time by NVRTC
 * for the device's own architecture (sm_90 on an H100), so the rung tables
 * and -D parameters that drive OpenCL drive CUDA too. The kernel sources are
 * the OpenCL ones behind kernels/cuda/prelude.cuh, which maps OpenCL C's
 * built-ins to CUDA C++ (see kl_kernel_source).
 *
 * libcuda is loaded with dlopen (backend/cuda_driver.c), so kladder built
 * with CUDA support still runs where no NVIDIA driver is installed; asking
 * for CUDA there says why it is unavailable. Kernel time is a pair of CUDA
 * events around the launch on the same stream, never a host clock.
 */
#define _POSIX_C_SOURCE 200809L
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/cuda_driver.h"
#include "backend/nvrtc.h"
#include "core/util.h"

struct kl_dev {
    CUdevice device;
    CUcontext ctx;
    CUevent start, end;
    CUstream both[2]; /* copy_both's two directions; made on first use */
    int cc_major, cc_minor;
};

struct kl_buf {
    CUdeviceptr ptr;
    size_t bytes;
    void *host;    /* pinned host memory (alloc_pinned), else NULL */
    void *staging; /* pinned host copy for maps, kept until release */
    size_t staging_bytes;
    void *mapped; /* staging while mapped, else NULL */
    size_t mapped_bytes;
    int mapped_write;
    int view; /* part of another buffer (buf_view): owns no memory */
};

struct kl_kernel {
    CUmodule module;
    CUfunction fn;
    size_t max_wg;
    size_t shared_set; /* dynamic shared memory the kernel is allowed so far */
    char *log;         /* what NVRTC said of the build; NULL: nothing */
};

static void cuda_unavailable(char *why, size_t n)
{
    kl_cu_load();
    snprintf(why, n, "%s", kl_cu.state > 0 ? "" : kl_cu.why);
}

/* One platform, "CUDA", holding every device the driver sees. */
static int cuda_platform_count(void)
{
    return kl_cu_load() ? 1 : 0;
}

static int cuda_device_count(int p)
{
    return p == 0 && kl_cu_load() ? kl_cu.devices : 0;
}

static int attr(CUdevice d, CUdevice_attribute a)
{
    int v = 0;
    if (kl_cu.cuDeviceGetAttribute(&v, a, d) != CUDA_SUCCESS)
        return 0;
    return v;
}

static enum kl_status cuda_device_info(int p, int d, struct kl_device_info *info, struct kl_err *e)
{
    enum kl_status st = KL_OK;
    CUdevice dev;
    if (!kl_cu_load())
        return kl_fail(e, KL_ERR_NO_DEVICE, "CUDA is unavailable: %s", kl_cu.why);
    if (p != 0 || d < 0 || d >= kl_cu.devices)
        return kl_fail(e, KL_ERR_NO_DEVICE, "there is no CUDA device %d (%d found)", d,
                       kl_cu.devices);
    CU_TRY(kl_cu.cuDeviceGet(&dev, d));
    memset(info, 0, sizeof *info);
    int version = 0;
    kl_cu.cuDriverGetVersion(&version);
    snprintf(info->platform, sizeof info->platform, "CUDA");
    snprintf(info->platform_version, sizeof info->platform_version, "CUDA %d.%d driver API",
             version / 1000, version % 1000 / 10);
    CU_TRY(kl_cu.cuDeviceGetName(info->name, (int)sizeof info->name, dev));
    snprintf(info->vendor, sizeof info->vendor, "NVIDIA Corporation");
    char kmod[64];
    kl_nvidia_module_version(kmod, sizeof kmod);
    snprintf(info->driver_version, sizeof info->driver_version, "%s%sCUDA %d.%d", kmod,
             kmod[0] ? " " : "", version / 1000, version % 1000 / 10);
    info->cc_major = attr(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    info->cc_minor = attr(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    snprintf(info->device_version, sizeof info->device_version, "compute capability %d.%d",
             info->cc_major, info->cc_minor);
    snprintf(info->c_version, sizeof info->c_version, "CUDA C++ (NVRTC, sm_%d%d)", info->cc_major,
             info->cc_minor);
    snprintf(info->type, sizeof info->type, "GPU");
    info->is_gpu = 1;

    size_t total = 0;
    CU_TRY(kl_cu.cuDeviceTotalMem(&total, dev));
    info->compute_units = (unsigned)attr(dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    info->max_clock_mhz = (unsigned)attr(dev, CU_DEVICE_ATTRIBUTE_CLOCK_RATE) / 1000;
    info->global_mem = total;
    info->max_alloc = total;
    info->global_cache = (uint64_t)attr(dev, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
    info->global_cacheline = 128;
    info->local_mem = (uint64_t)attr(dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
    info->local_mem_dedicated = 1;
    info->constant_mem = (uint64_t)attr(dev, CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY);
    info->max_wg = (size_t)attr(dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    info->max_item[0] = (size_t)attr(dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X);
    info->max_item[1] = (size_t)attr(dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y);
    info->max_item[2] = (size_t)attr(dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z);
    info->max_grid[0] = (size_t)attr(dev, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X);
    info->max_grid[1] = (size_t)attr(dev, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y);
    info->max_grid[2] = (size_t)attr(dev, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z);
    info->pref_vec_float = info->native_vec_float = 1;
    info->pref_vec_double = info->native_vec_double = 1;
    info->fp64 = 1;
    info->subgroups = 1;       /* a sub-group is a warp: kernels/cuda/prelude.cuh */
    info->atomics64 = 1;       /* atom_add, atom_xchg on 64-bit words: kernels/cuda/prelude.cuh */
    info->groups_progress = 1; /* a started block runs to its end */
    info->images = 0;          /* OpenCL image objects have no mapping here */
    info->profiling = 1;

    info->warp = (unsigned)attr(dev, CU_DEVICE_ATTRIBUTE_WARP_SIZE);
    info->local_mem_optin =
        (uint64_t)attr(dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    info->local_mem_per_cu =
        (uint64_t)attr(dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
    info->regs_per_block = (unsigned)attr(dev, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
    info->regs_per_cu = (unsigned)attr(dev, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
    info->threads_per_cu = (unsigned)attr(dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
    info->blocks_per_cu = (unsigned)attr(dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
    info->local_mem_reserved =
        (unsigned)attr(dev, CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK);
    if (kl_cu.cuDeviceGetPCIBusId(info->pci_bus_id, (int)sizeof info->pci_bus_id, dev) !=
        CUDA_SUCCESS)
        info->pci_bus_id[0] = '\0';
    info->mem_clock_mhz = (unsigned)attr(dev, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE) / 1000;
    info->mem_bus_bits = (unsigned)attr(dev, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
fail:
    return st;
}

static void cuda_close(struct kl_dev *dev)
{
    if (!dev)
        return;
    if (dev->ctx) {
        kl_cu.cuCtxSetCurrent(dev->ctx);
        if (dev->start)
            kl_cu.cuEventDestroy(dev->start);
        if (dev->end)
            kl_cu.cuEventDestroy(dev->end);
        for (int k = 0; k < 2; k++)
            if (dev->both[k])
                kl_cu.cuStreamDestroy(dev->both[k]);
        kl_cu.cuDevicePrimaryCtxRelease(dev->device);
    }
    free(dev);
}

static enum kl_status cuda_open(int p, int d, struct kl_dev **out, struct kl_err *e)
{
    enum kl_status st;
    struct kl_device_info info;
    *out = NULL;
    if ((st = cuda_device_info(p, d, &info, e)) != KL_OK)
        return st;
    struct kl_dev *dev = calloc(1, sizeof *dev);
    if (!dev)
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory");
    dev->cc_major = info.cc_major;
    dev->cc_minor = info.cc_minor;
    CU_TRY(kl_cu.cuDeviceGet(&dev->device, d));
    CU_TRY(kl_cu.cuDevicePrimaryCtxRetain(&dev->ctx, dev->device));
    CU_TRY(kl_cu.cuCtxSetCurrent(dev->ctx));
    CU_TRY(kl_cu.cuEventCreate(&dev->start, CU_EVENT_DEFAULT));
    CU_TRY(kl_cu.cuEventCreate(&dev->end, CU_EVENT_DEFAULT));
    *out = dev;
    return KL_OK;
fail:
    cuda_close(dev);
    return st;
}

static enum kl_status cuda_alloc(struct kl_dev *dev, size_t bytes, struct kl_buf **out,
                                 struct kl_err *e)
{
    enum kl_status st = KL_OK;
    struct kl_buf *buf = calloc(1, sizeof *buf);
    *out = NULL;
    if (!buf)
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory");
    buf->bytes = bytes ? bytes : 1;
    kl_cu.cuCtxSetCurrent(dev->ctx); /* memory belongs to the current context */
    CUresult rc = kl_cu.cuMemAlloc(&buf->ptr, buf->bytes);
    if (rc != CUDA_SUCCESS) {
        st = kl_fail(e, kl_cu_status(rc), "cuMemAlloc(%zu bytes) failed: %s", buf->bytes,
                     kl_cu_err_name(rc));
        free(buf);
        return st;
    }
    *out = buf;
    return KL_OK;
}

static size_t cuda_mem_free(struct kl_dev *dev)
{
    size_t free_bytes = 0, total = 0;
    kl_cu.cuCtxSetCurrent(dev->ctx); /* cuMemGetInfo tells of the current context's device */
    return kl_cu.cuMemGetInfo(&free_bytes, &total) == CUDA_SUCCESS ? free_bytes : 0;
}

static void cuda_release(struct kl_buf *buf)
{
    if (!buf)
        return;
    if (buf->host)
        kl_cu.cuMemFreeHost(buf->host);
    else if (buf->ptr && !buf->view)
        kl_cu.cuMemFree(buf->ptr);
    if (buf->staging)
        kl_cu.cuMemFreeHost(buf->staging);
    free(buf);
}

/* Device addresses of a buffer; pinned buffers are mapped into the device. */
static enum kl_status check_device_buf(const struct kl_buf *buf, size_t bytes, struct kl_err *e)
{
    if (bytes > buf->bytes)
        return kl_fail(e, KL_ERR_ARG, "a copy of %zu bytes does not fit a buffer of %zu", bytes,
                       buf->bytes);
    return KL_OK;
}

static enum kl_status cuda_write(struct kl_dev *dev, struct kl_buf *buf, const void *src,
                                 size_t bytes, struct kl_err *e)
{
    enum kl_status st = check_device_buf(buf, bytes, e);
    (void)dev;
    if (st != KL_OK)
        return st;
    /* From pageable memory cuMemcpyHtoD may return once the bytes are staged, before they
     * land; work on a non-blocking stream (NCCL's, a multi-GPU run's) would not wait for
     * them. A write returns with its bytes on the device. */
    CU_TRY(kl_cu.cuMemcpyHtoD(buf->ptr, src, bytes));
    CU_TRY(kl_cu.cuStreamSynchronize(NULL));
fail:
    return st;
}

static enum kl_status cuda_read(struct kl_dev *dev, struct kl_buf *buf, void *dst, size_t bytes,
                                struct kl_err *e)
{
    enum kl_status st = check_device_buf(buf, bytes, e);
    (void)dev;
    if (st != KL_OK)
        return st;
    CU_TRY(kl_cu.cuMemcpyDtoH(dst, buf->ptr, bytes));
fail:
    return st;
}

/*
 * The two copies on two non-blocking streams of their own, both queued before either is
 * waited for, after what the default stream holds (a blocking copy from pageable memory
 * can return before its bytes land, and these streams would not wait for it). From pageable
 * memory the driver stages each copy through pinned buffers of its own, so they overlap
 * less, or not at all; that is what the rows then show.
 */
static enum kl_status cuda_copy_both(struct kl_dev *dev, struct kl_buf *in, const void *host_in,
                                     struct kl_buf *out, void *host_out, size_t bytes,
                                     struct kl_err *e)
{
    enum kl_status st = check_device_buf(in, bytes, e);
    if (st != KL_OK || (st = check_device_buf(out, bytes, e)) != KL_OK)
        return st;
    CU_TRY(kl_cu.cuCtxSetCurrent(dev->ctx));
    CU_TRY(kl_cu.cuStreamSynchronize(NULL));
    for (int k = 0; k < 2; k++)
        if (!dev->both[k])
            CU_TRY(kl_cu.cuStreamCreate(&dev->both[k], CU_STREAM_NON_BLOCKING));
    CU_TRY(kl_cu.cuMemcpyHtoDAsync(in->ptr, host_in, bytes, dev->both[0]));
    CU_TRY(kl_cu.cuMemcpyDtoHAsync(host_out, out->ptr, bytes, dev->both[1]));
fail:
    /* (also after a failure: nothing queued may outlive the host memory it reads or writes) */
    for (int k = 0; k < 2; k++) {
        CUresult rc = dev->both[k] ? kl_cu.cuStreamSynchronize(dev->both[k]) : CUDA_SUCCESS;
        if (st == KL_OK && rc != CUDA_SUCCESS)
            st = kl_fail(e, kl_cu_status(rc), "a copy of copy_both failed: %s (%d)",
                         kl_cu_err_name(rc), (int)rc);
    }
    return st;
}

/* Pinned memory as the device addresses it (mapped: with unified addressing, every
   cuMemHostAlloc allocation is); a view, so release frees nothing of it. */
static enum kl_status cuda_host_view(struct kl_dev *dev, struct kl_buf *pinned, struct kl_buf **out,
                                     struct kl_err *e)
{
    enum kl_status st = KL_OK;
    CUdeviceptr p = 0;
    *out = NULL;
    if (!pinned || !pinned->host)
        return kl_fail(e, KL_ERR_ARG, "host_view needs a buffer of alloc_pinned");
    CU_TRY(kl_cu.cuCtxSetCurrent(dev->ctx));
    CU_TRY(kl_cu.cuMemHostGetDevicePointer(&p, pinned->host, 0));
    if (!(*out = calloc(1, sizeof **out)))
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory");
    (*out)->ptr = p, (*out)->bytes = pinned->bytes, (*out)->view = 1;
fail:
    return st;
}

static void cuda_kernel_free(struct kl_kernel *k)
{
    if (!k)
        return;
    if (k->module)
        kl_cu.cuModuleUnload(k->module);
    free(k->log);
    free(k);
}

static const char *cuda_kernel_log(struct kl_kernel *k)
{
    return k->log ? k->log : "";
}

static enum kl_status cuda_build(struct kl_dev *dev, const char *source, const char *options,
                                 const char *entry, struct kl_kernel **out, struct kl_err *e)
{
    enum kl_status st;
    char *image = NULL;
    size_t size = 0;
    struct kl_kernel *k = calloc(1, sizeof *k);
    *out = NULL;
    if (!k)
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory");
    st = kl_nvrtc_compile(source, entry, options, dev->cc_major, dev->cc_minor, &image, &size,
                          &k->log, e);
    if (st != KL_OK)
        goto fail;
    kl_nvrtc_save_cubin(entry, options, image, size);
    CU_TRY(kl_cu.cuCtxSetCurrent(dev->ctx)); /* the module is loaded into the current context */
    CU_TRY(kl_cu.cuModuleLoadData(&k->module, image));
    CUresult rc = kl_cu.cuModuleGetFunction(&k->fn, k->module, entry);
    if (rc != CUDA_SUCCESS) {
        st = kl_fail(e, KL_ERR_BUILD, "the compiled source has no kernel \"%s\" (%s)", entry,
                     kl_cu_err_name(rc));
        goto fail;
    }
    int max_threads = 0;
    CU_TRY(kl_cu.cuFuncGetAttribute(&max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, k->fn));
    k->max_wg = (size_t)max_threads;
    free(image);
    *out = k;
    return KL_OK;
fail:
    free(image);
    cuda_kernel_free(k);
    return st;
}

/* NVRTC compiles programs on several threads at once. */
static int cuda_parallel_builds(struct kl_dev *dev)
{
    (void)dev;
    return 1;
}

static size_t cuda_kernel_max_wg(struct kl_kernel *k)
{
    return k->max_wg;
}

static void cuda_kernel_signature(struct kl_kernel *k, struct kl_kernel_sig *sig)
{
    size_t offset, size;
    memset(sig, 0, sizeof *sig);
    sig->count = -1;
    if (!kl_cu.param_info)
        return;
    int n = 0;
    /*
     * Parameters are numbered from 0; the first index past the last one fails
     * (the driver has no count). compute-sanitizer reports that failure as an
     * API error unless told --report-api-errors no.
     */
    while (n < 64 && kl_cu.param_info(k->fn, (size_t)n, &offset, &size) == CUDA_SUCCESS) {
        if (n < KL_MAX_SIG)
            sig->size[n] = size;
        n++;
    }
    sig->count = n;
}

/* The driver's attributes of k and its occupancy for this launch's block. */
static void cuda_kernel_resources(struct kl_dev *dev, struct kl_kernel *k, size_t threads,
                                  size_t local_dynamic, struct kl_resources *r)
{
    int regs = -1, priv = -1, shared = -1, blocks = -1;
    kl_cu.cuCtxSetCurrent(dev->ctx);
    memset(r, 0, sizeof *r);
    if (kl_cu.cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, k->fn) != CUDA_SUCCESS)
        regs = -1;
    if (kl_cu.cuFuncGetAttribute(&priv, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, k->fn) != CUDA_SUCCESS)
        priv = -1;
    if (kl_cu.cuFuncGetAttribute(&shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, k->fn) !=
        CUDA_SUCCESS)
        shared = -1;
    /* The launch has set the kernel's dynamic shared memory limit by now. */
    if (kl_cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, k->fn, (int)threads,
                                                          local_dynamic) != CUDA_SUCCESS)
        blocks = -1;
    r->regs = regs;
    r->private_bytes = priv;
    r->local_static = shared;
    r->local_dynamic = (long)local_dynamic;
    r->threads = (long)threads;
    r->max_threads = (long)k->max_wg;
    r->threads_multiple = 32; /* a warp */
    r->groups_per_cu = blocks;
    if (regs < 0 || priv < 0 || shared < 0 || blocks < 0)
        snprintf(r->why, sizeof r->why, "the CUDA driver did not tell every attribute");
}

#define KL_CUDA_MAX_ARGS 32
#define KL_CUDA_MAX_MAPS 4

/* A tensor map argument encoded for the driver (see struct kl_tensor_map). */
static enum kl_status encode_map(const struct kl_tensor_map *m, CUtensorMap *out, struct kl_err *e)
{
    static const CUtensorMapDataType dtype[] = {[KL_MAP_F32] = CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
                                                [KL_MAP_TF32] = CU_TENSOR_MAP_DATA_TYPE_TFLOAT32,
                                                [KL_MAP_F16] = CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
                                                [KL_MAP_BF16] = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
                                                [KL_MAP_U8] = CU_TENSOR_MAP_DATA_TYPE_UINT8};
    static const unsigned size[] = {4, 4, 2, 2, 1};
    memset(out, 0, sizeof *out);
    if (!m->buf)
        return KL_OK;
    if (!kl_cu.encode_tiled)
        return kl_fail(e, KL_ERR_UNSUPPORTED,
                       "the NVIDIA driver lacks cuTensorMapEncodeTiled (tensor maps need a "
                       "CUDA 12 driver or newer)");
    unsigned es = (unsigned)m->type <= KL_MAP_U8 ? size[m->type] : 0;
    if (!es || m->pitch % 16 != 0 || m->pitch < m->cols * es || m->box_cols * es > 128 ||
        m->box_rows > 256 || m->box_cols == 0 || m->box_rows == 0 ||
        m->rows * m->pitch > m->buf->bytes)
        return kl_fail(e, KL_ERR_ARG,
                       "a tensor map of %llu x %llu elements of %u bytes, pitch %llu bytes, box "
                       "%u x %u, does not fit TMA's rules or its buffer",
                       (unsigned long long)m->rows, (unsigned long long)m->cols, es,
                       (unsigned long long)m->pitch, m->box_rows, m->box_cols);
    const cuuint64_t dims[2] = {m->cols, m->rows}, strides[1] = {m->pitch};
    const cuuint32_t box[2] = {m->box_cols, m->box_rows}, unit[2] = {1, 1};
    CUresult rc =
        kl_cu.encode_tiled(out, dtype[m->type], 2, (void *)m->buf->ptr, dims, strides, box, unit,
                           CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                           CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (rc != CUDA_SUCCESS)
        return kl_fail(e, kl_cu_status(rc), "cuTensorMapEncodeTiled failed: %s",
                       kl_cu_err_name(rc));
    return KL_OK;
}

/*
 * A launch's parameters and shape for cuLaunchKernel, from kladder's
 * arguments and geometry: buffers become device addresses, tensor maps are
 * encoded, a local-memory argument is the launch's dynamic shared memory on
 * CUDA (extern __shared__ in a .cu kernel), not a parameter; beyond 48 KiB
 * the kernel is allowed up to the device's opt-in maximum first. params
 * point into the struct, so it lives until the launch is queued.
 */
struct launch_args {
    void *params[KL_CUDA_MAX_ARGS];
    CUdeviceptr ptrs[KL_CUDA_MAX_ARGS];
    CUtensorMap maps[KL_CUDA_MAX_MAPS];
    unsigned grid[3], block[3];
    size_t shared;
};

/* The kernel's parameters from args: pointers to each value, local sizes summed into shared. */
static enum kl_status pack_params(const struct kl_arg *args, int nargs, struct launch_args *a,
                                  struct kl_err *e)
{
    enum kl_status st;
    int nmaps = 0, np = 0;
    a->shared = 0;
    for (int i = 0; i < nargs; i++) {
        switch (args[i].kind) {
        case KL_ARG_BUF:
            a->ptrs[np] = args[i].v.buf->ptr;
            a->params[np] = &a->ptrs[np];
            np++;
            break;
        case KL_ARG_INT: a->params[np++] = (void *)&args[i].v.i; break;
        case KL_ARG_FLOAT: a->params[np++] = (void *)&args[i].v.f; break;
        case KL_ARG_DOUBLE: a->params[np++] = (void *)&args[i].v.d; break;
        case KL_ARG_LOCAL: a->shared += args[i].v.local_bytes; break;
        case KL_ARG_TENSOR_MAP:
            if (nmaps == KL_CUDA_MAX_MAPS)
                return kl_fail(e, KL_ERR_ARG, "more than %d tensor maps", KL_CUDA_MAX_MAPS);
            if ((st = encode_map(&args[i].v.map, &a->maps[nmaps], e)) != KL_OK)
                return st;
            a->params[np++] = &a->maps[nmaps++];
            break;
        }
    }
    return KL_OK;
}

/* Grid and block from OpenCL's global and local sizes, within CUDA's limits. */
static enum kl_status launch_shape(int dims, const size_t *global, const size_t *local,
                                   struct launch_args *a, struct kl_err *e)
{
    for (int d = 0; d < 3; d++)
        a->grid[d] = a->block[d] = 1;
    for (int d = 0; d < dims; d++) {
        if (local[d] == 0 || global[d] % local[d] != 0)
            return kl_fail(e, KL_ERR_ARG,
                           "global size %zu is not a multiple of the block size %zu (dim %d)",
                           global[d], local[d], d);
        size_t g = global[d] / local[d];
        if (g > 0x7fffffffu || (d > 0 && g > 65535))
            return kl_fail(e, KL_ERR_ARG, "%zu blocks in dimension %d exceed CUDA's grid limit", g,
                           d);
        a->grid[d] = (unsigned)g;
        a->block[d] = (unsigned)local[d];
    }
    if (a->grid[0] == 0 || a->grid[1] == 0 || a->grid[2] == 0)
        return kl_fail(e, KL_ERR_ARG, "an empty launch (no blocks) has nothing to time");
    return KL_OK;
}

static enum kl_status launch_args(struct kl_kernel *k, const struct kl_arg *args, int nargs,
                                  int dims, const size_t *global, const size_t *local,
                                  struct launch_args *a, struct kl_err *e)
{
    enum kl_status st = KL_OK;
    if (nargs > KL_CUDA_MAX_ARGS)
        return kl_fail(e, KL_ERR_ARG, "a kernel with %d arguments (at most %d)", nargs,
                       KL_CUDA_MAX_ARGS);
    if (!local || dims < 1 || dims > 3)
        return kl_fail(e, KL_ERR_ARG, "CUDA launches need 1 to 3 dimensions and a block shape");
    if ((st = pack_params(args, nargs, a, e)) != KL_OK)
        return st;
    if (a->shared > k->shared_set) {
        CU_TRY(kl_cu.cuFuncSetAttribute(k->fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                        (int)a->shared));
        k->shared_set = a->shared;
    }
    return launch_shape(dims, global, local, a, e);
fail:
    return st;
}

/* Queues the launch a describes on stream (NULL: the default stream). */
static CUresult launch_on(struct kl_kernel *k, struct launch_args *a, CUstream stream)
{
    return kl_cu.cuLaunchKernel(k->fn, a->grid[0], a->grid[1], a->grid[2], a->block[0], a->block[1],
                                a->block[2], (unsigned)a->shared, stream, a->params, NULL);
}

static enum kl_status cuda_launch(struct kl_dev *dev, struct kl_kernel *k,
                                  const struct kl_arg *args, int nargs, int dims,
                                  const size_t *global, const size_t *local,
                                  struct kl_launch_time *t, struct kl_err *e)
{
    struct launch_args a;
    enum kl_status st = launch_args(k, args, nargs, dims, global, local, &a, e);
    if (st != KL_OK)
        return st;
    CU_TRY(kl_cu.cuCtxSetCurrent(dev->ctx)); /* the default stream is the current context's */
    CU_TRY(kl_cu.cuEventRecord(dev->start, NULL));
    CU_TRY(launch_on(k, &a, NULL));
    CU_TRY(kl_cu.cuEventRecord(dev->end, NULL));
    CUresult rc = kl_cu.cuEventSynchronize(dev->end);
    if (rc != CUDA_SUCCESS) {
        st = kl_fail(e, kl_cu_status(rc), "kernel execution failed: %s (%d)", kl_cu_err_name(rc),
                     (int)rc);
        goto fail;
    }
    if (t) {
        float ms = 0.0f;
        CU_TRY(kl_cu.elapsed(&ms, dev->start, dev->end));
        t->run = (double)ms * 1e-3;
        t->queue = -1.0; /* CUDA events cannot see when a launch was queued */
    }
fail:
    return st;
}

/*
 * Pinned host memory from cuMemHostAlloc, which copies reach at full speed.
 * Transfers name it as the host side; a kernel reaches it through host_view.
 */
static enum kl_status cuda_alloc_pinned(struct kl_dev *dev, size_t bytes, struct kl_buf **out,
                                        void **host, struct kl_err *e)
{
    enum kl_status st = KL_OK;
    struct kl_buf *buf = calloc(1, sizeof *buf);
    (void)dev;
    *out = NULL;
    if (!buf)
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory");
    buf->bytes = bytes ? bytes : 1;
    CUresult rc = kl_cu.cuMemHostAlloc(&buf->host, buf->bytes, 0);
    if (rc != CUDA_SUCCESS) {
        st = kl_fail(e, kl_cu_status(rc), "cuMemHostAlloc(%zu bytes) failed: %s", buf->bytes,
                     kl_cu_err_name(rc));
        free(buf);
        return st;
    }
    *host = buf->host;
    *out = buf;
    return KL_OK;
}

/*
 * The driver API has no map of device memory into the host: a map is a copy
 * into pinned host memory (for reading) and an unmap a copy back (after
 * writing), which is what an OpenCL runtime does for a discrete GPU too.
 */
static enum kl_status cuda_map(struct kl_dev *dev, struct kl_buf *buf, size_t bytes, int for_write,
                               void **host, struct kl_err *e)
{
    enum kl_status st = check_device_buf(buf, bytes, e);
    if (st != KL_OK)
        return st;
    if (buf->mapped)
        return kl_fail(e, KL_ERR_ARG, "the buffer is mapped already");
    /* Pinned, as a runtime's staging memory is, allocated once per buffer: the copy runs at
     * full speed and a map's time is the copy's, not the pinning's. */
    if (buf->staging_bytes < (bytes ? bytes : 1)) {
        if (buf->staging)
            kl_cu.cuMemFreeHost(buf->staging);
        buf->staging_bytes = 0;
        CUresult rc = kl_cu.cuMemHostAlloc(&buf->staging, bytes ? bytes : 1, 0);
        if (rc != CUDA_SUCCESS) {
            buf->staging = NULL;
            return kl_fail(e, kl_cu_status(rc), "cuMemHostAlloc(%zu bytes) for a map failed: %s",
                           bytes, kl_cu_err_name(rc));
        }
        buf->staging_bytes = bytes ? bytes : 1;
    }
    buf->mapped_write = for_write;
    if (!for_write && (st = cuda_read(dev, buf, buf->staging, bytes, e)) != KL_OK)
        return st;
    buf->mapped = buf->staging;
    buf->mapped_bytes = bytes;
    *host = buf->mapped;
    return KL_OK;
}

static enum kl_status cuda_unmap(struct kl_dev *dev, struct kl_buf *buf, void *host,
                                 struct kl_err *e)
{
    enum kl_status st = KL_OK;
    if (!buf->mapped || host != buf->mapped)
        return kl_fail(e, KL_ERR_ARG, "unmap of a pointer that is not mapped");
    if (buf->mapped_write)
        st = cuda_write(dev, buf, buf->mapped, buf->mapped_bytes, e);
    buf->mapped = NULL;
    return st;
}

static enum kl_status cuda_alloc_image(struct kl_dev *dev, int w, int h, int rgba8,
                                       const void *host, struct kl_buf **out, struct kl_err *e)
{
    (void)dev, (void)w, (void)h, (void)rgba8, (void)host;
    *out = NULL;
    return kl_fail(e, KL_ERR_UNSUPPORTED, "image objects exist only on the OpenCL backend");
}

/* The default stream (NULL) and the CUdeviceptr, for vendor libraries. */
static void *cuda_native_queue(struct kl_dev *dev)
{
    (void)dev;
    return NULL;
}
static void *cuda_native_buffer(struct kl_buf *buf)
{
    return (void *)(uintptr_t)buf->ptr;
}

/* ---- several devices, streams and events (multi/) ---------------------------------- */

static enum kl_status cuda_make_current(struct kl_dev *dev, struct kl_err *e)
{
    enum kl_status st = KL_OK;
    CU_TRY(kl_cu.cuCtxSetCurrent(dev->ctx));
fail:
    return st;
}

static enum kl_status cuda_stream_create(struct kl_dev *dev, void **stream, struct kl_err *e)
{
    enum kl_status st = KL_OK;
    CUstream s = NULL;
    *stream = NULL;
    CU_TRY(kl_cu.cuCtxSetCurrent(dev->ctx));
    CU_TRY(kl_cu.cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    *stream = s;
fail:
    return st;
}

static void cuda_stream_destroy(struct kl_dev *dev, void *stream)
{
    if (!stream)
        return;
    kl_cu.cuCtxSetCurrent(dev->ctx);
    kl_cu.cuStreamDestroy((CUstream)stream);
}

static enum kl_status cuda_stream_sync(struct kl_dev *dev, void *stream, struct kl_err *e)
{
    kl_cu.cuCtxSetCurrent(dev->ctx);
    CUresult rc = kl_cu.cuStreamSynchronize((CUstream)stream);
    if (rc != CUDA_SUCCESS)
        return kl_fail(e, kl_cu_status(rc), "work queued on a stream failed: %s (%d)",
                       kl_cu_err_name(rc), (int)rc);
    return KL_OK;
}

static enum kl_status cuda_event_create(struct kl_dev *dev, void **event, struct kl_err *e)
{
    enum kl_status st = KL_OK;
    CUevent ev = NULL;
    *event = NULL;
    CU_TRY(kl_cu.cuCtxSetCurrent(dev->ctx));
    CU_TRY(kl_cu.cuEventCreate(&ev, CU_EVENT_DEFAULT));
    *event = ev;
fail:
    return st;
}

static void cuda_event_destroy(struct kl_dev *dev, void *event)
{
    if (!event)
        return;
    kl_cu.cuCtxSetCurrent(dev->ctx);
    kl_cu.cuEventDestroy((CUevent)event);
}

static enum kl_status cuda_event_record(void *event, void *stream, struct kl_err *e)
{
    enum kl_status st = KL_OK;
    CU_TRY(kl_cu.cuEventRecord((CUevent)event, (CUstream)stream));
fail:
    return st;
}

static enum kl_status cuda_stream_wait(void *stream, void *event, struct kl_err *e)
{
    enum kl_status st = KL_OK;
    CU_TRY(kl_cu.cuStreamWaitEvent((CUstream)stream, (CUevent)event, 0));
fail:
    return st;
}

static enum kl_status cuda_event_elapsed(void *start, void *end, double *seconds, struct kl_err *e)
{
    enum kl_status st = KL_OK;
    float ms = 0.0f;
    CUresult rc = kl_cu.cuEventSynchronize((CUevent)end);
    if (rc != CUDA_SUCCESS)
        return kl_fail(e, kl_cu_status(rc), "work before an event failed: %s (%d)",
                       kl_cu_err_name(rc), (int)rc);
    CU_TRY(kl_cu.elapsed(&ms, (CUevent)start, (CUevent)end));
    *seconds = (double)ms * 1e-3;
fail:
    return st;
}

static enum kl_status cuda_launch_async(struct kl_dev *dev, void *stream, struct kl_kernel *k,
                                        const struct kl_arg *args, int nargs, int dims,
                                        const size_t *global, const size_t *local, struct kl_err *e)
{
    struct launch_args a;
    enum kl_status st = launch_args(k, args, nargs, dims, global, local, &a, e);
    if (st != KL_OK)
        return st;
    CU_TRY(kl_cu.cuCtxSetCurrent(dev->ctx));
    CU_TRY(launch_on(k, &a, (CUstream)stream));
fail:
    return st;
}

static enum kl_status cuda_copy_async(struct kl_dev *dst_dev, struct kl_buf *dst, size_t dst_off,
                                      struct kl_dev *src_dev, struct kl_buf *src, size_t src_off,
                                      size_t bytes, void *stream, struct kl_err *e)
{
    enum kl_status st = KL_OK;
    if (dst_off + bytes > dst->bytes || src_off + bytes > src->bytes)
        return kl_fail(e, KL_ERR_ARG,
                       "a copy of %zu bytes (from byte %zu to byte %zu) does not fit its buffers "
                       "(%zu and %zu bytes)",
                       bytes, src_off, dst_off, src->bytes, dst->bytes);
    if (dst_dev == src_dev)
        CU_TRY(kl_cu.cuMemcpyDtoDAsync(dst->ptr + dst_off, src->ptr + src_off, bytes,
                                       (CUstream)stream));
    else
        CU_TRY(kl_cu.cuMemcpyPeerAsync(dst->ptr + dst_off, dst_dev->ctx, src->ptr + src_off,
                                       src_dev->ctx, bytes, (CUstream)stream));
fail:
    return st;
}

static enum kl_status cuda_enable_peer(struct kl_dev *from, struct kl_dev *to, int *enabled,
                                       struct kl_err *e)
{
    enum kl_status st = KL_OK;
    int can = 0;
    *enabled = 0;
    CU_TRY(kl_cu.cuDeviceCanAccessPeer(&can, from->device, to->device));
    if (!can || from == to)
        return KL_OK;
    CU_TRY(kl_cu.cuCtxSetCurrent(from->ctx));
    CUresult rc = kl_cu.cuCtxEnablePeerAccess(to->ctx, 0);
    if (rc != CUDA_SUCCESS && rc != CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED)
        return kl_fail(e, kl_cu_status(rc), "cuCtxEnablePeerAccess failed: %s (%d)",
                       kl_cu_err_name(rc), (int)rc);
    *enabled = 1;
fail:
    return st;
}

static unsigned long long cuda_device_ptr(const struct kl_buf *buf)
{
    return (unsigned long long)buf->ptr;
}

static enum kl_status cuda_buf_view(struct kl_buf *buf, size_t offset, size_t bytes,
                                    struct kl_buf **out, struct kl_err *e)
{
    struct kl_buf *v;
    *out = NULL;
    if (buf->host || offset + bytes > buf->bytes)
        return kl_fail(e, KL_ERR_ARG,
                       "a view of %zu bytes from byte %zu does not fit a device buffer of %zu",
                       bytes, offset, buf->bytes);
    if (!(v = calloc(1, sizeof *v)))
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory");
    v->ptr = buf->ptr + offset;
    v->bytes = bytes ? bytes : 1;
    v->view = 1;
    *out = v;
    return KL_OK;
}

const struct kl_backend_ops kl_backend_cuda = {
    .name = "cuda",
    .cuda_cpp = 1,
    .opencl_prelude = "cuda/prelude.cuh",
    .one_platform = 1,
    .cuda_ordinals = 1,
    .gemm_peer = "cublas",
    .gemm_peer_float = "cublas_tf32",
    .gemm_peer_narrow = "cublaslt",
    .unavailable = cuda_unavailable,
    .platform_count = cuda_platform_count,
    .device_count = cuda_device_count,
    .device_info = cuda_device_info,
    .open = cuda_open,
    .close = cuda_close,
    .alloc = cuda_alloc,
    .release = cuda_release,
    .write = cuda_write,
    .read = cuda_read,
    .build = cuda_build,
    .kernel_free = cuda_kernel_free,
    .parallel_builds = cuda_parallel_builds,
    .kernel_max_wg = cuda_kernel_max_wg,
    .kernel_log = cuda_kernel_log,
    .kernel_signature = cuda_kernel_signature,
    .kernel_resources = cuda_kernel_resources,
    .launch = cuda_launch,
    .mem_free = cuda_mem_free,
    .alloc_pinned = cuda_alloc_pinned,
    .copy_both = cuda_copy_both,
    .host_view = cuda_host_view,
    .pinned_what = "cuMemHostAlloc",
    .map = cuda_map,
    .unmap = cuda_unmap,
    .alloc_image = cuda_alloc_image,
    .native_queue = cuda_native_queue,
    .native_buffer = cuda_native_buffer,
    .make_current = cuda_make_current,
    .stream_create = cuda_stream_create,
    .stream_destroy = cuda_stream_destroy,
    .stream_sync = cuda_stream_sync,
    .event_create = cuda_event_create,
    .event_destroy = cuda_event_destroy,
    .event_record = cuda_event_record,
    .stream_wait = cuda_stream_wait,
    .event_elapsed = cuda_event_elapsed,
    .launch_async = cuda_launch_async,
    .copy_async = cuda_copy_async,
    .enable_peer = cuda_enable_peer,
    .device_ptr = cuda_device_ptr,
    .buf_view = cuda_buf_view,
};
