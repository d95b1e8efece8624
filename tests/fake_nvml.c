/*
 * A stand-in for NVIDIA's management library (built as libnvidia-ml.so.1
 * in its own directory, found through LD_LIBRARY_PATH by test_nvml): the
 * calls kladder makes, answering from the globals below, which the test
 * sets (it dlopens this same library). One GPU, at any PCI bus id; for the
 * links between GPUs, the bus id is all a GPU is (its handle).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

enum { OK = 0, NO_PERMISSION = 4, NOT_SUPPORTED = 3 };

/* What the fake GPU says; the test changes them as it goes. */
double fake_nvml_sm_mhz = 1980, fake_nvml_temperature = 40;
int fake_nvml_allow_lock;              /* 0: setting clocks needs root */
unsigned fake_nvml_locked;             /* the SM clock locked now; 0 free */
int fake_nvml_resets, fake_nvml_inits; /* calls of reset and of init, minus shutdowns */

int nvmlInit_v2(void)
{
    fake_nvml_inits++;
    return OK;
}

int nvmlShutdown(void)
{
    fake_nvml_inits--;
    return OK;
}

const char *nvmlErrorString(int rc)
{
    return rc == NO_PERMISSION ? "Insufficient Permissions" : "Not Supported";
}

int nvmlDeviceGetHandleByPciBusId_v2(const char *bus, void **dev)
{
    *dev = (void *)bus;
    return OK;
}

int nvmlDeviceGetClockInfo(void *dev, int type, unsigned *mhz)
{
    (void)dev;
    *mhz = type == 1 ? (unsigned)fake_nvml_sm_mhz : 2619;
    return OK;
}

int nvmlDeviceGetMaxClockInfo(void *dev, int type, unsigned *mhz)
{
    (void)dev;
    *mhz = type == 1 ? 1980 : 2619;
    return OK;
}

int nvmlDeviceGetPowerUsage(void *dev, unsigned *mw)
{
    (void)dev;
    *mw = 350000;
    return OK;
}

/* 350 W all the time: the millijoule counter is 350 times the seconds on the clock, moved
 * in steps of 250 ms as a GPU's moves in steps (a window of a second read at its two ends
 * would be off by up to a quarter). */
int nvmlDeviceGetTotalEnergyConsumption(void *dev, unsigned long long *mj)
{
    struct timespec t;
    (void)dev;
    clock_gettime(CLOCK_MONOTONIC, &t);
    *mj = (unsigned long long)(87.5e3 * floor(4 * ((double)t.tv_sec + 1e-9 * (double)t.tv_nsec)));
    return OK;
}

int nvmlDeviceGetCurrentClocksEventReasons(void *dev, unsigned long long *mask)
{
    (void)dev;
    *mask = fake_nvml_sm_mhz < 1980 ? 0x4 : 0; /* sw_power_cap */
    return OK;
}

int nvmlDeviceGetEccMode(void *dev, int *current, int *pending)
{
    (void)dev;
    *current = *pending = 1;
    return OK;
}

int nvmlDeviceGetPersistenceMode(void *dev, int *mode)
{
    (void)dev;
    *mode = 0;
    return OK;
}

int nvmlDeviceGetEnforcedPowerLimit(void *dev, unsigned *mw)
{
    (void)dev;
    *mw = 700000;
    return OK;
}

int nvmlDeviceGetTemperature(void *dev, int sensor, unsigned *c)
{
    (void)dev;
    if (sensor != 0)
        return NOT_SUPPORTED;
    *c = (unsigned)fake_nvml_temperature;
    return OK;
}

int nvmlDeviceSetGpuLockedClocks(void *dev, unsigned lo, unsigned hi)
{
    (void)dev;
    if (!fake_nvml_allow_lock)
        return NO_PERMISSION;
    fake_nvml_locked = lo == hi ? lo : 0;
    return OK;
}

/* NVLink between the GPUs at 0000:1b:00.0 and 0000:1c:00.0 alone. */
int nvmlDeviceGetP2PStatus(void *a, void *b, int index, int *status)
{
    const char *x = a, *y = b;
    int one = strcmp(x, "0000:1b:00.0") == 0 || strcmp(y, "0000:1b:00.0") == 0;
    int other = strcmp(x, "0000:1c:00.0") == 0 || strcmp(y, "0000:1c:00.0") == 0;
    *status = index == 2 && one && other ? 0 : 5; /* NVLink's index; OK, or not supported */
    return OK;
}

/* Any pair meets at one CPU's host bridges (NODE), but the GPU at 0000:ff:00.0 tells nothing. */
int nvmlDeviceGetTopologyCommonAncestor(void *a, void *b, int *level)
{
    if (strcmp(a, "0000:ff:00.0") == 0 || strcmp(b, "0000:ff:00.0") == 0)
        return NOT_SUPPORTED;
    *level = 40;
    return OK;
}

int nvmlDeviceResetGpuLockedClocks(void *dev)
{
    (void)dev;
    fake_nvml_locked = 0;
    fake_nvml_resets++;
    return OK;
}
