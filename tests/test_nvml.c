/*
 * kladder's NVML path (core/nvml.c, core/machine.c and kl_measure's clock
 * after every launch) on the null device dressed as NVIDIA's, against the
 * stand-in library tests/fake_nvml.c (LD_LIBRARY_PATH names its directory):
 * the conditions a run states, --lock-clocks refused and granted and given
 * back at close, launches under --min-clock taken again, the cycles, and
 * the cool-down waiting for the temperature.
 */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "core/machine.h"
#include "core/measure.h"
#include "core/util.h"
#include "core/report.h"
#include "multi/links.h"
#include "null_backend.h"
#include "report/write.h"

static struct {
    double *sm, *temperature;
    int *allow_lock, *resets, *inits;
    unsigned *locked;
} fake;

/* The stand-in's globals, from the library kladder will load; 0 where it is not the stand-in. */
static int find_fake(void)
{
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return 0;
    fake.sm = dlsym(lib, "fake_nvml_sm_mhz");
    fake.temperature = dlsym(lib, "fake_nvml_temperature");
    fake.allow_lock = dlsym(lib, "fake_nvml_allow_lock");
    fake.resets = dlsym(lib, "fake_nvml_resets");
    fake.inits = dlsym(lib, "fake_nvml_inits");
    fake.locked = dlsym(lib, "fake_nvml_locked");
    return fake.sm && fake.temperature && fake.allow_lock && fake.resets && fake.inits &&
           fake.locked;
}

/* A 1 ms launch after which the clock reads 900 MHz for launches 3 to 5, else 1980. */
static enum kl_status clocked_launch(void *arg, double *seconds, struct kl_err *e)
{
    int *calls = arg;
    (void)e;
    ++*calls;
    *fake.sm = *calls >= 3 && *calls <= 5 ? 900 : 1980;
    *seconds = 1e-3;
    return KL_OK;
}

/* A launch that takes 10 ms of the host's time (and says 1 ms of kernel time). */
static enum kl_status slow_launch(void *arg, double *seconds, struct kl_err *e)
{
    const struct timespec t = {0, 10 * 1000000L};
    (void)arg, (void)e;
    nanosleep(&t, NULL);
    *seconds = 1e-3;
    return KL_OK;
}

/* A window over 1 s gives joules per launch, and the counter agrees with power × time within
 * 2 % though it moves in steps of a quarter of that window (fake_nvml.c). */
static void energy(struct kl_context *kl)
{
    struct kl_protocol p = {.warmup = 0, .min_repeats = 110, .max_repeats = 110};
    struct kl_stats s;
    struct kl_err e;
    const struct kl_machine *m = &s.machine;
    CHECK(kl_measure(kl, &p, slow_launch, NULL, &s, &e) == KL_OK && m->window_s >= 1 &&
              fabs(m->joules - 350 * m->window_s / 110) < 0.02 * m->joules &&
              fabs(m->energy_ratio - 1) < 0.02 && m->watts == 350,
          "energy: %.4g J a launch over %.3g s at %g W, counter / (power × time) %.4f", m->joules,
          m->window_s, m->watts, m->energy_ratio);
}

static void *cool_later(void *arg)
{
    const struct timespec t = {0, 300 * 1000000L};
    (void)arg;
    nanosleep(&t, NULL);
    *fake.temperature = 40;
    return NULL;
}

static void conditions_and_locks(struct kl_context *kl)
{
    struct kl_conditions c;
    char why[256];
    kl_machine_conditions(kl, &c);
    CHECK(c.known && c.sm_max_mhz == 1980 && c.ecc == 1 && c.persistence == 0 &&
              c.power_limit_w == 700 && c.temperature_c == 40 && c.locked_mhz < 0,
          "conditions: known %d, max %g MHz, ECC %d, persistence %d, %g W, %g C, locked %g",
          c.known, c.sm_max_mhz, c.ecc, c.persistence, c.power_limit_w, c.temperature_c,
          c.locked_mhz);
    CHECK(kl_machine_lock_clocks(kl, 1500, why, sizeof why) == KL_ERR_UNSUPPORTED &&
              strstr(why, "refused to lock the SM clock at 1500 MHz: Insufficient Permissions"),
          "a lock without the right: %s", why);
    kl_machine_conditions(kl, &c);
    CHECK(c.locked_mhz < 0 && strstr(c.lock_why, "Insufficient Permissions"),
          "the conditions say why the clocks are free: %s", c.lock_why);
    *fake.allow_lock = 1;
    CHECK(kl_machine_lock_clocks(kl, 2500, why, sizeof why) == KL_ERR_UNSUPPORTED &&
              strstr(why, "2500 MHz is not an SM clock of this GPU (1 to 1980 MHz)"),
          "a clock past the highest: %s", why);
    CHECK(kl_machine_lock_clocks(kl, 1500, why, sizeof why) == KL_OK && *fake.locked == 1500,
          "locked at 1500: %s, the GPU at %u", why, *fake.locked);
    kl_machine_conditions(kl, &c);
    CHECK(c.locked_mhz == 1500, "the conditions say locked at %g", c.locked_mhz);
}

static void clocks_per_launch(struct kl_context *kl)
{
    struct kl_protocol p = {.warmup = 0, .min_repeats = 10, .max_repeats = 100, .min_clock = 0.75};
    struct kl_stats s;
    struct kl_err e;
    const double *samples, *clocks;
    int calls = 0;
    CHECK(kl_measure(kl, &p, clocked_launch, &calls, &s, &e) == KL_OK && s.n == 10 &&
              calls == 13 && s.machine.retaken == 3 && s.machine.low_kept == 0,
          "three launches under 75 %% taken again: %d samples, %d calls, %d re-taken (%s)", s.n,
          calls, s.machine.retaken, e.msg);
    CHECK(fabs(s.machine.cycles - 1e-3 * 1980e6) < 1 && s.machine.samples > 0 &&
              s.machine.temperature_c == 40,
          "cycles %g (want 1.98e6), %d NVML samples, %g C", s.machine.cycles, s.machine.samples,
          s.machine.temperature_c);
    clocks = kl_measure_last_clocks();
    CHECK(kl_measure_last(&samples, NULL) == 10 && clocks && clocks[0] == 1980 &&
              clocks[9] == 1980,
          "the clock beside every sample");
    calls = 0;
    p.min_clock = 0;
    CHECK(kl_measure(kl, &p, clocked_launch, &calls, &s, &e) == KL_OK && s.machine.retaken == 0 &&
              (clocks = kl_measure_last_clocks()) && clocks[2] == 900 && clocks[3] == 900,
          "without --min-clock the low launches stay, with their clocks");
}

/* The report's header and JSON state the conditions: the clock locked, ECC, power, heat. */
static void report_conditions(struct kl_context *kl)
{
    struct kl_report r;
    char *text = NULL;
    size_t len = 0;
    memset(&r, 0, sizeof r);
    r.workload = "gemm";
    r.type = KL_FLOAT;
    r.device = kl->info;
    r.backend = "null";
    kl_protocol_default(&r.protocol);
    kl_report_provenance(&r, kl);
    kl_report_inputs(&r, "A and B", KL_FLOAT);
    *fake.temperature = 47;
    kl_report_conditions_end(&r, kl);
    FILE *out = open_memstream(&text, &len);
    kl_report_table(&r, out);
    kl_report_json(&r, out);
    fclose(out);
    CHECK(strstr(text, "machine:   SM clock locked at 1500 MHz (--lock-clocks)\n"
                       "           ECC on, persistence off, power limit 700 W, 40 °C at the "
                       "start, 47 °C at the end\n") &&
              strstr(text, "inputs:    A and B uniform in [-1, 1), seed 0 (the tensor cores' speed "
                           "and power depend on the values)"),
          "the header states the conditions:\n%.800s", text);
    CHECK(strstr(text, "\"conditions\": {\"locked_mhz\": 1500, \"sm_max_mhz\": 1980, \"ecc\": "
                       "true, \"persistence\": false, \"power_limit_w\": 700, "
                       "\"temperature_start_c\": 40, \"temperature_end_c\": 47, \"lock_note\": "
                       "\"\", \"inputs\": \"A and B uniform in [-1, 1), seed 0\"}"),
          "the JSON's conditions:\n%s", strstr(text, "\"conditions\"") ? strstr(text, "\"conditions\"") : text);
    free(text);
    *fake.temperature = 40;
}

static void cooldown(struct kl_context *kl)
{
    pthread_t t;
    double waited;
    *fake.temperature = 60; /* 20 degrees above the run's start */
    waited = kl_machine_cooldown(kl, 0.3);
    CHECK(waited >= 0.3 && waited < 1.5, "still warm: the whole 0.3 s waited (%.3f)", waited);
    CHECK(pthread_create(&t, NULL, cool_later, NULL) == 0, "a thread to cool the GPU");
    waited = kl_machine_cooldown(kl, 10);
    pthread_join(t, NULL);
    CHECK(waited >= 0.3 && waited < 2, "back to 40 C after 0.3 s: waited %.3f s", waited);
    CHECK(kl_machine_cooldown(kl, 10) < 0.05, "no wait when no warmer than at the start");
}

/* How GPUs are joined (multi/links.c): NVLink, the PCIe path, the network; unknowns left out. */
static void links(void)
{
    const char *bus[] = {"0000:1b:00.0", "0000:1c:00.0", "0000:3d:00.0", "0000:ff:00.0"};
    const char *hosts[] = {"a", "a", "b", "b"};
    const char *node = "PCIe, through the host bridges of one CPU";
    char out[512], want[512];
    int inits = *fake.inits; /* (the device's own machine holds NVML open) */
    kl_links_text(4, NULL, bus, -1, out, sizeof out);
    snprintf(want, sizeof want, "0–1 NVLink; 0–2 %s; 1–2 %s", node, node);
    CHECK(strcmp(out, want) == 0, "one host's pairs, 0000:ff:00.0's unknown and left out: %s", out);
    kl_links_text(4, hosts, bus, 0, out, sizeof out);
    CHECK(strcmp(out, "0–1 NVLink; 0–2 the network; 0–3 the network") == 0,
          "device 0's pairs over two hosts: %s", out);
    kl_links_text(4, hosts, bus, 2, out, sizeof out);
    CHECK(out[0] == '\0', "device 2's one pair, unknown: nothing said (%s)", out);
    const char *twice[] = {"0000:1b:00.0", "0000:1b:00.0"};
    kl_links_text(2, hosts, twice, 0, out, sizeof out);
    CHECK(strcmp(out, "0–1 the same GPU") == 0, "two ranks sharing a GPU: %s", out);
    const char *none[] = {"0000:1b:00.0", ""};
    kl_links_text(2, NULL, none, -1, out, sizeof out);
    CHECK(out[0] == '\0' && *fake.inits == inits,
          "a device with no bus id: nothing said, and NVML shut as often as opened (%d, %d)",
          *fake.inits, inits);
}

int main(void)
{
    struct kl_context *kl;
    char err[512];
    if (!find_fake()) {
        fprintf(stderr, "test_nvml: the stand-in libnvidia-ml.so.1 is not the one found; run it "
                        "with LD_LIBRARY_PATH naming tests/fake_nvml's build directory\n");
        return 1;
    }
    kl_null_nvidia = 1;
    if (kl_open_on(&kl_backend_null, 0, 0, &kl, err, sizeof err) != KL_OK) {
        fprintf(stderr, "the null device does not open: %s\n", err);
        return 1;
    }
    conditions_and_locks(kl);
    clocks_per_launch(kl);
    report_conditions(kl);
    energy(kl);
    cooldown(kl);
    links();
    kl_close(kl);
    CHECK(*fake.resets == 1 && *fake.locked == 0 && *fake.inits == 0,
          "closing gives the clocks back (%d resets, %u locked) and shuts NVML (%d)", *fake.resets,
          *fake.locked, *fake.inits);
    return check_summary();
}
