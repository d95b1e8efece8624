/*
 * NVML through dlopen: the few calls kladder needs, declared here as the
 * library's documentation gives them (nvml.h is not needed to build).
 */
#include "core/nvml.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int nvml_return; /* nvmlReturn_t: 0 is success */
typedef void *nvml_device;
enum { NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2 };

/* nvmlFieldValue_t, for the instantaneous power (NVML_FI_DEV_POWER_INSTANT, milliwatts). */
enum { FI_POWER_INSTANT = 186, VALUE_UINT = 1, VALUE_ULONG = 2, VALUE_ULL = 3 };
struct field_value {
    unsigned field, scope;
    long long timestamp, latency_us;
    int type;        /* nvmlValueType_t */
    nvml_return ret; /* this field's own status */
    union {
        double d;
        unsigned ui;
        unsigned long ul;
        unsigned long long ull;
    } v;
};

static struct {
    int state; /* 0 not tried, 1 loaded, -1 unavailable */
    char why[160];
    nvml_return (*init)(void);
    nvml_return (*shutdown)(void);
    const char *(*error_string)(nvml_return);
    nvml_return (*by_bus_id)(const char *, nvml_device *);
    nvml_return (*clock)(nvml_device, int, unsigned *);
    nvml_return (*power)(nvml_device, unsigned *);
    nvml_return (*energy)(nvml_device, unsigned long long *);
    nvml_return (*reasons)(nvml_device, unsigned long long *);
    nvml_return (*fields)(nvml_device, int, struct field_value *); /* optional */
    /* The run's conditions and --lock-clocks: optional, unknown (or refused) where absent. */
    nvml_return (*max_clock)(nvml_device, int, unsigned *);
    nvml_return (*ecc)(nvml_device, int *, int *);
    nvml_return (*persistence)(nvml_device, int *);
    nvml_return (*power_limit)(nvml_device, unsigned *);
    nvml_return (*temperature)(nvml_device, int, unsigned *);
    nvml_return (*lock)(nvml_device, unsigned, unsigned);
    nvml_return (*unlock)(nvml_device);
    /* How two GPUs are joined: optional, unknown where absent. */
    nvml_return (*p2p_status)(nvml_device, nvml_device, int, int *);
    nvml_return (*common_ancestor)(nvml_device, nvml_device, int *);
} nv;

struct kl_nvml {
    nvml_device dev;
};

static int load(void)
{
    void *lib;
    if (nv.state)
        return nv.state > 0;
    nv.state = -1;
    if (!(lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL))) {
        snprintf(nv.why, sizeof nv.why, "no NVML: libnvidia-ml.so.1 could not be loaded");
        return 0;
    }
    /* POSIX allows converting dlsym's object pointer to a function pointer. */
    *(void **)&nv.init = dlsym(lib, "nvmlInit_v2");
    *(void **)&nv.shutdown = dlsym(lib, "nvmlShutdown");
    *(void **)&nv.error_string = dlsym(lib, "nvmlErrorString");
    *(void **)&nv.by_bus_id = dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2");
    *(void **)&nv.clock = dlsym(lib, "nvmlDeviceGetClockInfo");
    *(void **)&nv.power = dlsym(lib, "nvmlDeviceGetPowerUsage");
    *(void **)&nv.energy = dlsym(lib, "nvmlDeviceGetTotalEnergyConsumption");
    /* The reasons' name changed in driver 535; older drivers have the throttle one. */
    *(void **)&nv.fields = dlsym(lib, "nvmlDeviceGetFieldValues");
    *(void **)&nv.max_clock = dlsym(lib, "nvmlDeviceGetMaxClockInfo");
    *(void **)&nv.ecc = dlsym(lib, "nvmlDeviceGetEccMode");
    *(void **)&nv.persistence = dlsym(lib, "nvmlDeviceGetPersistenceMode");
    *(void **)&nv.power_limit = dlsym(lib, "nvmlDeviceGetEnforcedPowerLimit");
    *(void **)&nv.temperature = dlsym(lib, "nvmlDeviceGetTemperature");
    *(void **)&nv.lock = dlsym(lib, "nvmlDeviceSetGpuLockedClocks");
    *(void **)&nv.unlock = dlsym(lib, "nvmlDeviceResetGpuLockedClocks");
    *(void **)&nv.p2p_status = dlsym(lib, "nvmlDeviceGetP2PStatus");
    *(void **)&nv.common_ancestor = dlsym(lib, "nvmlDeviceGetTopologyCommonAncestor");
    if (!(*(void **)&nv.reasons = dlsym(lib, "nvmlDeviceGetCurrentClocksEventReasons")))
        *(void **)&nv.reasons = dlsym(lib, "nvmlDeviceGetCurrentClocksThrottleReasons");
    if (!nv.init || !nv.shutdown || !nv.error_string || !nv.by_bus_id || !nv.clock || !nv.power ||
        !nv.energy || !nv.reasons) {
        snprintf(nv.why, sizeof nv.why, "NVML lacks a call kladder needs (a driver too old?)");
        return 0;
    }
    nv.state = 1;
    return 1;
}

int kl_nvml_open(const char *pci_bus_id, struct kl_nvml **out, char *why, size_t n)
{
    nvml_return rc;
    *out = NULL;
    if (!pci_bus_id || !pci_bus_id[0]) {
        snprintf(why, n, "the API did not tell the device's PCI bus id, which NVML needs");
        return -1;
    }
    if (!load()) {
        snprintf(why, n, "%s", nv.why);
        return -1;
    }
    if ((rc = nv.init()) != 0) {
        snprintf(why, n, "nvmlInit failed: %s", nv.error_string(rc));
        return -1;
    }
    struct kl_nvml *m = calloc(1, sizeof *m);
    if (!m || (rc = nv.by_bus_id(pci_bus_id, &m->dev)) != 0) {
        snprintf(why, n, m ? "NVML has no GPU at PCI bus id %s: %s" : "out of host memory%.0s%.0s",
                 pci_bus_id, m ? nv.error_string(rc) : "");
        free(m);
        nv.shutdown();
        return -1;
    }
    *out = m;
    return 0;
}

void kl_nvml_close(struct kl_nvml *m)
{
    if (!m)
        return;
    free(m);
    nv.shutdown();
}

/* nvmlGpuP2PCapsIndex_t's NVLink, nvmlGpuP2PStatus_t's OK, and nvmlGpuTopologyLevel_t. */
enum { P2P_CAPS_NVLINK = 2, P2P_STATUS_OK = 0 };
static const struct {
    int level;
    const char *words;
} levels[] = {
    {0, "PCIe, on one board"},
    {10, "PCIe, through one switch"},
    {20, "PCIe, through several switches"},
    {30, "PCIe, through one host bridge"},
    {40, "PCIe, through the host bridges of one CPU"},
    {50, "PCIe and the link between CPUs"},
};

void kl_nvml_link(struct kl_nvml *a, struct kl_nvml *b, char *out, size_t n)
{
    int status = -1, level = -1;
    snprintf(out, n, "%s", "");
    if (nv.p2p_status && nv.p2p_status(a->dev, b->dev, P2P_CAPS_NVLINK, &status) == 0 &&
        status == P2P_STATUS_OK) {
        snprintf(out, n, "NVLink");
        return;
    }
    if (!nv.common_ancestor || nv.common_ancestor(a->dev, b->dev, &level) != 0)
        return;
    for (size_t i = 0; i < sizeof levels / sizeof *levels; i++)
        if (level == levels[i].level)
            snprintf(out, n, "%s", levels[i].words);
}

void kl_nvml_read(struct kl_nvml *m, struct kl_nvml_reading *r)
{
    unsigned v;
    unsigned long long e;
    r->sm_mhz = nv.clock(m->dev, NVML_CLOCK_SM, &v) == 0 ? (double)v : -1.0;
    r->mem_mhz = nv.clock(m->dev, NVML_CLOCK_MEM, &v) == 0 ? (double)v : -1.0;
    /* Instantaneous power where the driver gives it; nvmlDeviceGetPowerUsage averages it
     * over the last second on Ampere and newer, which lags a window that starts a load. */
    struct field_value f = {.field = FI_POWER_INSTANT};
    if (nv.fields && nv.fields(m->dev, 1, &f) == 0 && f.ret == 0 &&
        (f.type == VALUE_UINT || f.type == VALUE_ULONG || f.type == VALUE_ULL))
        r->watts = (f.type == VALUE_UINT    ? f.v.ui
                    : f.type == VALUE_ULONG ? f.v.ul
                                            : f.v.ull) /
                   1000.0;
    else
        r->watts = nv.power(m->dev, &v) == 0 ? v / 1000.0 : -1; /* milliwatts */
    r->energy_j = nv.energy(m->dev, &e) == 0 ? e / 1000.0 : -1; /* millijoules */
    if (nv.reasons(m->dev, &e) != 0)
        e = 0;
    r->reasons = e;
}

double kl_nvml_sm_mhz(struct kl_nvml *m)
{
    unsigned v;
    return nv.clock(m->dev, NVML_CLOCK_SM, &v) == 0 ? (double)v : -1.0;
}

double kl_nvml_temperature(struct kl_nvml *m)
{
    unsigned v;
    return nv.temperature && nv.temperature(m->dev, 0 /* the GPU's sensor */, &v) == 0 ? (double)v
                                                                                       : -1.0;
}

void kl_nvml_facts(struct kl_nvml *m, struct kl_nvml_facts *f)
{
    unsigned v;
    int current, pending;
    f->sm_max_mhz = nv.max_clock && nv.max_clock(m->dev, NVML_CLOCK_SM, &v) == 0 ? v : -1.0;
    f->ecc = nv.ecc && nv.ecc(m->dev, &current, &pending) == 0 ? current != 0 : -1;
    f->persistence = nv.persistence && nv.persistence(m->dev, &current) == 0 ? current != 0 : -1;
    f->power_limit_w = nv.power_limit && nv.power_limit(m->dev, &v) == 0 ? v / 1000.0 : -1.0;
    f->temperature_c = kl_nvml_temperature(m);
}

int kl_nvml_lock_clocks(struct kl_nvml *m, unsigned mhz, char *why, size_t n)
{
    nvml_return rc;
    if (!nv.lock || !nv.unlock)
        return snprintf(why, n, "this NVML cannot lock clocks (a driver older than 450?)"), -1;
    if ((rc = nv.lock(m->dev, mhz, mhz)) != 0)
        return snprintf(why, n, "NVML refused to lock the SM clock at %u MHz: %s", mhz,
                        nv.error_string(rc)),
               -1;
    return 0;
}

void kl_nvml_unlock_clocks(struct kl_nvml *m)
{
    if (nv.unlock)
        nv.unlock(m->dev);
}

void kl_nvml_reason_names(unsigned long long mask, char *buf, size_t n)
{
    static const char *const names[] = {"gpu_idle",    "applications_clocks", "sw_power_cap",
                                        "hw_slowdown", "sync_boost",          "sw_thermal",
                                        "hw_thermal",  "hw_power_brake",      "display_clock"};
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (mask >> i & 1) {
            int w = snprintf(buf + used, n - used, "%s%s", used ? "," : "", names[i]);
            if (w < 0 || (size_t)w >= n - used)
                return;
            used += (size_t)w;
        }
}
