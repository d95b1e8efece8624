/* NCCL through dlopen: the library found, its entry points, its error sentences. */
#define _POSIX_C_SOURCE 200809L
#include "multi/nccl.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

static struct kl_nccl nccl;
static int loaded; /* 0: not tried, 1: loaded, -1: failed (why says so) */
static char why[1024];

/* POSIX allows converting dlsym's object pointer to a function pointer. */
#define LOAD(field, name)                                                                          \
    do {                                                                                           \
        if (!(*(void **)&nccl.field = dlsym(lib, name))) {                                         \
            snprintf(why, sizeof why, "%s lacks %s (NCCL 2.7 or newer is needed)", nccl.path,      \
                     name);                                                                        \
            return -1;                                                                             \
        }                                                                                          \
    } while (0)

static int load(void)
{
    static const char *const names[] = {"libnccl.so.2", "libnccl.so"};
    const char *env = getenv("KLADDER_NCCL"), *which = NULL;
    void *lib;
    /*
     * Never NVLink SHARP (NVLS) multicast: it reserves multicast objects on the
     * NVSwitches, and on GPUs shared with other jobs an NVLS failure can take
     * the GPUs out of service until they are reset. NCCL reads the variable at
     * its first call; a value the user set is kept.
     */
    setenv("NCCL_NVLS_ENABLE", "0", 0);
    if (env && env[0]) {
        if (!(lib = dlopen(env, RTLD_NOW | RTLD_GLOBAL))) {
            snprintf(why, sizeof why, "NCCL could not be loaded from KLADDER_NCCL=%s (%s)", env,
                     dlerror());
            return -1;
        }
        which = env;
    } else if (!(lib = kl_dlopen_first(names, sizeof names / sizeof *names, 1, &which))) {
        snprintf(why, sizeof why,
                 "NCCL (libnccl.so.2) is not on the library path; set KLADDER_NCCL to its full "
                 "path (pip's nvidia-nccl-cu12, which PyTorch installs, puts it in "
                 "site-packages/nvidia/nccl/lib/libnccl.so.2)");
        return -1;
    }
    snprintf(nccl.path, sizeof nccl.path, "%s", which);
    LOAD(get_version, "ncclGetVersion");
    LOAD(error_string, "ncclGetErrorString");
    LOAD(comm_init_all, "ncclCommInitAll");
    LOAD(comm_destroy, "ncclCommDestroy");
    LOAD(group_start, "ncclGroupStart");
    LOAD(group_end, "ncclGroupEnd");
    LOAD(broadcast, "ncclBroadcast");
    LOAD(send, "ncclSend");
    LOAD(recv, "ncclRecv");
    LOAD(all_reduce, "ncclAllReduce");
    LOAD(get_unique_id, "ncclGetUniqueId");
    LOAD(comm_init_rank, "ncclCommInitRank");
    LOAD(all_gather, "ncclAllGather");
    LOAD(reduce_scatter, "ncclReduceScatter");
    LOAD(reduce, "ncclReduce");
    if (nccl.get_version(&nccl.version) != KL_NCCL_SUCCESS) {
        snprintf(why, sizeof why, "ncclGetVersion of %s failed", nccl.path);
        return -1;
    }
    return 1;
}

void kl_nccl_version_text(const struct kl_nccl *n, char *out, size_t size)
{
    int v = n->version; /* 22105 is 2.21.5; before 2.9, major·1000 + minor·100 + patch */
    if (v >= 10000)
        snprintf(out, size, "NCCL %d.%d.%d", v / 10000, v / 100 % 100, v % 100);
    else
        snprintf(out, size, "NCCL %d.%d.%d", v / 1000, v / 100 % 10, v % 100);
}

const struct kl_nccl *kl_nccl_load(struct kl_err *e)
{
    if (!loaded)
        loaded = load();
    if (loaded < 0) {
        kl_fail(e, KL_ERR_UNSUPPORTED, "%s", why);
        return NULL;
    }
    return &nccl;
}

enum kl_status kl_nccl_check(const struct kl_nccl *n, int result, const char *call,
                             struct kl_err *e)
{
    if (result == KL_NCCL_SUCCESS)
        return KL_OK;
    const char *text = n->error_string ? n->error_string(result) : NULL;
    return kl_fail(e, KL_ERR_BACKEND, "%s failed: %s (NCCL result %d)", call,
                   text ? text : "no description", result);
}

enum kl_status kl_nccl_comms(const struct kl_nccl *n, const int *devices, int ndev,
                             kl_nccl_comm *comms, struct kl_err *e)
{
    memset(comms, 0, (size_t)ndev * sizeof *comms);
    return kl_nccl_check(n, n->comm_init_all(comms, ndev, devices), "ncclCommInitAll", e);
}

void kl_nccl_comms_free(const struct kl_nccl *n, kl_nccl_comm *comms, int ndev)
{
    for (int d = 0; comms && d < ndev; d++)
        if (comms[d])
            n->comm_destroy(comms[d]);
}
