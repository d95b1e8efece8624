/*
 * The CUDA driver as the CUDA backend reaches it: libcuda loaded by dlopen on
 * first use (kladder built with CUDA support still runs where no NVIDIA driver
 * is installed, and says why CUDA is unavailable there), its entry points in
 * one table, and the checked call that turns a CUresult into kladder's error.
 * Private to src/backend (cuda.c).
 */
#ifndef KL_CUDA_DRIVER_H
#define KL_CUDA_DRIVER_H

#include <cuda.h>

#include "core/error.h"

/* The driver entry points used, each resolved by its versioned name (cuda_driver.c). */
#define CU_FUNCS(X)                                                                                \
    X(cuInit)                                                                                      \
    X(cuDriverGetVersion)                                                                          \
    X(cuDeviceGetCount)                                                                            \
    X(cuDeviceGet)                                                                                 \
    X(cuDeviceGetName)                                                                             \
    X(cuDeviceTotalMem)                                                                            \
    X(cuDeviceGetAttribute)                                                                        \
    X(cuDevicePrimaryCtxRetain)                                                                    \
    X(cuDevicePrimaryCtxRelease)                                                                   \
    X(cuCtxSetCurrent)                                                                             \
    X(cuCtxSynchronize)                                                                            \
    X(cuMemAlloc)                                                                                  \
    X(cuMemFree)                                                                                   \
    X(cuMemGetInfo)                                                                                \
    X(cuMemcpyHtoD)                                                                                \
    X(cuMemcpyDtoH)                                                                                \
    X(cuMemcpyHtoDAsync)                                                                           \
    X(cuMemHostGetDevicePointer)                                                                   \
    X(cuMemcpyDtoHAsync)                                                                           \
    X(cuMemHostAlloc)                                                                              \
    X(cuMemFreeHost)                                                                               \
    X(cuModuleLoadData)                                                                            \
    X(cuModuleUnload)                                                                              \
    X(cuModuleGetFunction)                                                                         \
    X(cuFuncGetAttribute)                                                                          \
    X(cuOccupancyMaxActiveBlocksPerMultiprocessor)                                                 \
    X(cuDeviceGetPCIBusId)                                                                         \
    X(cuFuncSetAttribute)                                                                          \
    X(cuLaunchKernel)                                                                              \
    X(cuEventCreate)                                                                               \
    X(cuEventRecord)                                                                               \
    X(cuEventSynchronize)                                                                          \
    X(cuEventDestroy)                                                                              \
    X(cuGetErrorName)                                                                              \
    X(cuStreamCreate)                                                                              \
    X(cuStreamDestroy)                                                                             \
    X(cuStreamSynchronize)                                                                         \
    X(cuStreamWaitEvent)                                                                           \
    X(cuMemcpyPeerAsync)                                                                           \
    X(cuMemcpyDtoDAsync)                                                                           \
    X(cuDeviceCanAccessPeer)                                                                       \
    X(cuCtxEnablePeerAccess)

struct kl_cu_driver {
    int state; /* 0 not tried, 1 loaded, -1 unavailable */
    char why[512];
#define FIELD(f) __typeof__(&f) f;
    CU_FUNCS(FIELD)
#undef FIELD
    CUresult (*elapsed)(float *, CUevent, CUevent);
    /* Optional (CUDA 12 drivers): tensor maps for the tensor memory accelerator. */
    __typeof__(&cuTensorMapEncodeTiled) encode_tiled;
    /* Optional (CUDA 12.4 drivers): a kernel's parameters, for users' kernels. */
    __typeof__(&cuFuncGetParamInfo) param_info;
    int devices;
};

extern struct kl_cu_driver kl_cu;

/* Loads the driver and NVRTC once; 1 where CUDA can run, else 0 with kl_cu.why said. */
int kl_cu_load(void);
/* The driver's name for rc ("CUDA_ERROR_OUT_OF_MEMORY"), or "unknown CUDA error". */
const char *kl_cu_err_name(CUresult rc);
/* kladder's status for rc: out of memory, or a backend error. */
enum kl_status kl_cu_status(CUresult rc);

/* Checked call: records the call text, the error name, file and line. */
#define CU_TRY(call)                                                                               \
    do {                                                                                           \
        CUresult rc_ = (call);                                                                     \
        if (rc_ != CUDA_SUCCESS) {                                                                 \
            st = kl_fail(e, kl_cu_status(rc_), "%s failed: %s (%d) at %s:%d", #call,               \
                         kl_cu_err_name(rc_), (int)rc_, __FILE__, __LINE__);                       \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)

#endif /* KL_CUDA_DRIVER_H */
