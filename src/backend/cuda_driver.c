/*
 * The CUDA driver loaded on first use (backend/cuda_driver.h): each entry
 * point by its versioned name, the optional ones (tensor maps, parameter
 * info) where the driver has them, then cuInit and NVRTC.
 */
#define _POSIX_C_SOURCE 200809L
#include "backend/cuda_driver.h"

#include <dlfcn.h>
#include <stdio.h>

#include "backend/nvrtc.h"

struct kl_cu_driver kl_cu;

/* An entry point's versioned name: cuda.h maps e.g. cuMemAlloc to cuMemAlloc_v2, and NAME()
   expands that mapping before turning it into the string dlsym needs. */
#define NAME_(f) #f
#define NAME(f) NAME_(f)

int kl_cu_load(void)
{
    if (kl_cu.state)
        return kl_cu.state > 0;
    kl_cu.state = -1;
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(kl_cu.why, sizeof kl_cu.why,
                 "no NVIDIA driver: libcuda.so.1 could not be loaded (%s)", dlerror());
        return 0;
    }
    /* POSIX allows converting dlsym's object pointer to a function pointer. */
#define LOAD(f)                                                                                    \
    if (!(*(void **)&kl_cu.f = dlsym(lib, NAME(f)))) {                                             \
        snprintf(kl_cu.why, sizeof kl_cu.why, "the NVIDIA driver lacks %s (too old?)", NAME(f));   \
        return 0;                                                                                  \
    }
    CU_FUNCS(LOAD)
#undef LOAD
    /* cuEventElapsedTime_v2 arrived with CUDA 12.8 drivers; older ones have the first. */
    if (!(*(void **)&kl_cu.elapsed = dlsym(lib, NAME(cuEventElapsedTime))))
        *(void **)&kl_cu.elapsed = dlsym(lib, "cuEventElapsedTime");
    if (!kl_cu.elapsed) {
        snprintf(kl_cu.why, sizeof kl_cu.why, "the NVIDIA driver lacks cuEventElapsedTime");
        return 0;
    }
    *(void **)&kl_cu.encode_tiled = dlsym(lib, "cuTensorMapEncodeTiled");
    *(void **)&kl_cu.param_info = dlsym(lib, "cuFuncGetParamInfo");
    CUresult rc = kl_cu.cuInit(0);
    if (rc != CUDA_SUCCESS) {
        snprintf(kl_cu.why, sizeof kl_cu.why, "the NVIDIA driver is present but cuInit failed: %s",
                 kl_cu_err_name(rc));
        return 0;
    }
    if (kl_cu.cuDeviceGetCount(&kl_cu.devices) != CUDA_SUCCESS || kl_cu.devices <= 0) {
        snprintf(kl_cu.why, sizeof kl_cu.why, "the NVIDIA driver reports no CUDA device");
        return 0;
    }
    char nvrtc_why[256];
    if (!kl_nvrtc_available(nvrtc_why, sizeof nvrtc_why)) {
        snprintf(kl_cu.why, sizeof kl_cu.why, "%s", nvrtc_why);
        return 0;
    }
    kl_cu.state = 1;
    return 1;
}

const char *kl_cu_err_name(CUresult rc)
{
    const char *name = NULL;
    if (kl_cu.cuGetErrorName && kl_cu.cuGetErrorName(rc, &name) == CUDA_SUCCESS && name)
        return name;
    return "unknown CUDA error";
}

enum kl_status kl_cu_status(CUresult rc)
{
    return rc == CUDA_ERROR_OUT_OF_MEMORY ? KL_ERR_NO_MEMORY : KL_ERR_BACKEND;
}
