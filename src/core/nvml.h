/*
 * NVIDIA's management library (NVML), loaded with dlopen wherever the
 * NVIDIA driver is: the clocks, power, energy counter and clock-event
 * reasons of one GPU, found by its PCI bus id. Nothing here is needed to
 * build or run kladder: without NVML, a monitor cannot be opened and says why.
 */
#ifndef KL_NVML_H
#define KL_NVML_H

#include <stddef.h>

struct kl_nvml;

/* One reading of the GPU; a field NVML did not give is negative (reasons: 0). */
struct kl_nvml_reading {
    double sm_mhz, mem_mhz;     /* current clocks */
    double watts;               /* power draw: instantaneous where NVML gives it, else its
                                   1-s average */
    double energy_j;            /* the total-energy counter since the driver loaded */
    unsigned long long reasons; /* clock-event (throttle) reasons now, NVML's bit mask */
};

/* NVML's clock-event reasons that mean the clocks were held below what the load asked. */
#define KL_NVML_CAPPED 0xECull /* sw power cap, hw slowdown, sw/hw thermal, power brake */

/*
 * Opens the GPU at pci_bus_id ("0000:1b:00.0"); 0 on success, else -1 and
 * why (no NVML, no bus id, no such GPU).
 */
int kl_nvml_open(const char *pci_bus_id, struct kl_nvml **out, char *why, size_t n);
void kl_nvml_close(struct kl_nvml *m);
/* Reads what NVML tells now (thread-safe: NVML is). */
void kl_nvml_read(struct kl_nvml *m, struct kl_nvml_reading *r);
/* The SM clock now (one call, cheap enough to follow every launch); -1 where NVML does not tell. */
double kl_nvml_sm_mhz(struct kl_nvml *m);
/* The GPU's temperature now in degrees Celsius; -1 where NVML does not tell. */
double kl_nvml_temperature(struct kl_nvml *m);

/* The conditions a run is made in; a field NVML does not tell is -1. */
struct kl_nvml_facts {
    double sm_max_mhz;    /* the highest SM clock the GPU may run at */
    int ecc, persistence; /* 1 on, 0 off */
    double power_limit_w; /* the power limit the driver enforces */
    double temperature_c;
};
void kl_nvml_facts(struct kl_nvml *m, struct kl_nvml_facts *f);

/*
 * Locks the SM clock at mhz (nvmlDeviceSetGpuLockedClocks: root, or an administrator's
 * permission); 0 on success, else -1 and why. kl_nvml_unlock_clocks gives the clocks back
 * to the driver.
 */
int kl_nvml_lock_clocks(struct kl_nvml *m, unsigned mhz, char *why, size_t n);
void kl_nvml_unlock_clocks(struct kl_nvml *m);

/*
 * How NVML says GPUs a and b (of one host) are joined, into out: "NVLink" where they have
 * NVLink between them, else the PCIe path ("PCIe, through one switch", ... "PCIe and the
 * link between CPUs"); "" where NVML does not tell.
 */
void kl_nvml_link(struct kl_nvml *a, struct kl_nvml *b, char *out, size_t n);

/* The names of the reasons set in mask, comma-separated, into buf ("" for none). */
void kl_nvml_reason_names(unsigned long long mask, char *buf, size_t n);

#endif /* KL_NVML_H */
