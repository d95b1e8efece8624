/*
 * What a measurement ran on the machine: its kernels' resources and
 * occupancy (from the backend and the device's per-unit limits) and NVML's
 * clocks, power and energy while its timed launches ran (a sampling thread
 * every SAMPLE_MS, the energy counter with it).
 *
 * The energy counter moves in steps (tens of milliseconds apart on Hopper),
 * so its difference across a window of about a second is off by up to a
 * step's worth (5-8 % on an H200). The joules are therefore the counter's
 * rate between its first and its last step inside the window, times the
 * window; and the power it is checked against is the mean of the samples
 * taken between those same two steps.
 */
#define _POSIX_C_SOURCE 200809L
#include "core/machine.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "core/context.h"
#include "core/launch.h"
#include "core/nvml.h"
#include "core/util.h"

#define SAMPLE_MS 5

/* A kernel the measurement launched: its work-group and the launch's own local memory. */
struct seen {
    struct kl_kernel *kernel;
    size_t threads, local_dynamic;
};

struct kl_machine_state {
    struct seen seen[KL_MACHINE_KERNELS];
    int nseen, overflow;
    int nvml_state; /* 0 not tried, 1 open, -1 unavailable (why) */
    struct kl_nvml *nvml;
    char why[160];
    double sm_max_mhz;      /* NVML's highest SM clock; 0 not read yet, < 0 unknown */
    double locked_mhz;      /* --lock-clocks: the clock held (unlocked at kl_machine_free) */
    double temperature_ref; /* the cool-down's goal: the first temperature read; 0 none */
    char lock_why[160];     /* why --lock-clocks failed */
};

struct kl_machine_window {
    struct kl_nvml *nvml;
    double sm_max_mhz, temperature_c;
    pthread_t thread;
    atomic_int stop; /* set before the join, read by the sampler between readings */
    double t0, e0;   /* wall clock and energy counter at the start */
    int n;
    double sm, sm_min, mem, watts, watts_max;
    unsigned long long reasons;
    /* The counter's steps: the value last read, and at the first and the last step seen its
     * value, the time, and the samples and their watts summed so far. */
    double e_seen;
    int steps;
    struct step {
        double e, t, watts;
        int n;
    } first, last;
};

static struct kl_machine_state *state_of(struct kl_context *kl)
{
    if (!kl->machine && (kl->machine = calloc(1, sizeof *kl->machine)))
        kl->machine->locked_mhz = -1;
    return kl->machine;
}

void kl_machine_begin(struct kl_context *kl)
{
    struct kl_machine_state *m = kl ? state_of(kl) : NULL;
    if (m)
        m->nseen = m->overflow = 0;
}

void kl_machine_saw(struct kl_context *kl, const struct kl_launch *l)
{
    struct kl_machine_state *m = state_of(kl);
    size_t dyn = 0, threads = l->local[0];
    if (!m)
        return;
    for (int d = 1; d < l->dims; d++)
        threads *= l->local[d];
    for (int i = 0; i < l->nargs; i++)
        if (l->args[i].kind == KL_ARG_LOCAL)
            dyn += l->args[i].v.local_bytes;
    for (int i = 0; i < m->nseen; i++)
        if (m->seen[i].kernel == l->kernel)
            return;
    if (m->nseen == KL_MACHINE_KERNELS)
        m->overflow = 1;
    else
        m->seen[m->nseen++] = (struct seen){l->kernel, threads, dyn};
}

/* NVML for kl's device, opened once; NULL (and why) where there is none. */
static struct kl_nvml *nvml_of(struct kl_context *kl, char *why, size_t n)
{
    struct kl_machine_state *m = state_of(kl);
    if (!m) {
        snprintf(why, n, "out of host memory");
        return NULL;
    }
    if (!m->nvml_state) {
        if (!kl_contains_nocase(kl->info.vendor, "nvidia")) {
            snprintf(m->why, sizeof m->why,
                     "no clocks or power: kladder reads them through NVIDIA's NVML, and this "
                     "device is %.60s's",
                     kl->info.vendor);
            m->nvml_state = -1;
        } else {
            m->nvml_state =
                kl_nvml_open(kl->info.pci_bus_id, &m->nvml, m->why, sizeof m->why) ? -1 : 1;
        }
    }
    snprintf(why, n, "%s", m->nvml_state > 0 ? "" : m->why);
    return m->nvml;
}

/* The highest SM clock of kl's GPU, read once; -1 unknown. */
static double sm_max_of(struct kl_context *kl)
{
    struct kl_machine_state *m = kl->machine;
    if (m && m->nvml && !m->sm_max_mhz) {
        struct kl_nvml_facts f;
        kl_nvml_facts(m->nvml, &f);
        m->sm_max_mhz = f.sm_max_mhz > 0 ? f.sm_max_mhz : -1;
    }
    return m && m->sm_max_mhz > 0 ? m->sm_max_mhz : -1;
}

static void take(struct kl_machine_window *w)
{
    struct kl_nvml_reading r;
    kl_nvml_read(w->nvml, &r);
    if (r.sm_mhz < 0 || r.watts < 0)
        return;
    w->sm += r.sm_mhz;
    w->sm_min = w->n ? fmin(w->sm_min, r.sm_mhz) : r.sm_mhz;
    w->mem += r.mem_mhz;
    w->watts += r.watts;
    w->watts_max = w->n ? fmax(w->watts_max, r.watts) : r.watts;
    w->reasons |= r.reasons;
    w->n++;
    if (r.energy_j >= 0 && r.energy_j != w->e_seen) {
        struct step s = {r.energy_j, kl_now(), w->watts, w->n};
        if (!w->steps++)
            w->first = s;
        w->last = s;
        w->e_seen = r.energy_j;
    }
}

static void *sampler(void *arg)
{
    struct kl_machine_window *w = arg;
    const struct timespec period = {0, SAMPLE_MS * 1000000L};
    while (!atomic_load(&w->stop)) {
        take(w);
        nanosleep(&period, NULL);
    }
    return NULL;
}

struct kl_machine_window *kl_machine_open(struct kl_context *kl)
{
    char why[160];
    struct kl_nvml *nvml = kl ? nvml_of(kl, why, sizeof why) : NULL;
    struct kl_machine_window *w = nvml ? calloc(1, sizeof *w) : NULL;
    struct kl_nvml_reading r;
    if (!w)
        return NULL;
    w->nvml = nvml;
    w->sm_max_mhz = sm_max_of(kl);
    w->temperature_c = kl_nvml_temperature(nvml);
    atomic_init(&w->stop, 0);
    kl_nvml_read(nvml, &r);
    w->e0 = w->e_seen = r.energy_j;
    w->t0 = kl_now();
    if (pthread_create(&w->thread, NULL, sampler, w) != 0) {
        free(w);
        return NULL;
    }
    return w;
}

/* The resources of the kernels seen, each with its occupancy. */
static void resources(struct kl_context *kl, struct kl_machine *out)
{
    struct kl_machine_state *m = kl ? kl->machine : NULL;
    if (!m || !m->nseen) {
        snprintf(out->res_why, sizeof out->res_why, "%s",
                 kl ? "no kernel of kladder's: a library's or the host's work"
                    : "timed on the host");
        return;
    }
    out->nkernels = m->nseen;
    for (int i = 0; i < m->nseen; i++) {
        struct kl_resources *r = &out->res[i];
        kl->ops->kernel_resources(kl->dev, m->seen[i].kernel, m->seen[i].threads,
                                  m->seen[i].local_dynamic, r);
        kl_occupancy(&kl->info, r);
    }
    if (m->overflow)
        snprintf(out->res_why, sizeof out->res_why, "more than %d kernels: the first %d shown",
                 KL_MACHINE_KERNELS, KL_MACHINE_KERNELS);
}

/*
 * Joules per launch and the counter's agreement with the sampled power: between the
 * counter's first and last steps in the window where they span half of it with samples
 * between them, else from its two ends (e1: the counter at the end).
 */
static void energy(const struct kl_machine_window *w, double e1, int launches,
                   struct kl_machine *out)
{
    double span = w->last.t - w->first.t, joules = e1 - w->e0, watts = out->watts;
    if (w->steps >= 3 && span >= 0.5 * out->window_s && w->last.n > w->first.n) {
        joules = (w->last.e - w->first.e) / span * out->window_s;
        watts = (w->last.watts - w->first.watts) / (w->last.n - w->first.n);
    }
    out->joules = joules / launches;
    if (watts > 0)
        out->energy_ratio = joules / (watts * out->window_s);
}

void kl_machine_close(struct kl_context *kl, struct kl_machine_window *w, int launches,
                      struct kl_machine *out)
{
    memset(out, 0, sizeof *out);
    out->joules = -1;
    out->temperature_c = -1;
    resources(kl, out);
    if (!w) {
        char why[160] = "timed on the host";
        if (kl)
            nvml_of(kl, why, sizeof why);
        snprintf(out->why, sizeof out->why, "%s", why[0] ? why : "NVML could not be sampled");
        return;
    }
    atomic_store(&w->stop, 1);
    pthread_join(w->thread, NULL);
    take(w); /* at least one reading, however short the window */
    struct kl_nvml_reading r;
    kl_nvml_read(w->nvml, &r);
    out->window_s = kl_now() - w->t0;
    out->samples = w->n;
    if (w->n) {
        out->sm_mhz = w->sm / w->n;
        out->sm_mhz_min = w->sm_min;
        out->mem_mhz = w->mem / w->n;
        out->watts = w->watts / w->n;
        out->watts_max = w->watts_max;
    }
    out->reasons = w->reasons;
    out->capped = (w->reasons & KL_NVML_CAPPED) != 0;
    out->temperature_c = w->temperature_c;
    if (w->e0 < 0 || r.energy_j < 0)
        snprintf(out->why, sizeof out->why, "NVML gave no energy counter for this GPU");
    else if (out->window_s < KL_ENERGY_WINDOW_S)
        snprintf(out->why, sizeof out->why,
                 "no energy: the timed launches took %.3g s, under the %.3g s the energy "
                 "counter needs (--energy times every row for %.3g s)",
                 out->window_s, KL_ENERGY_WINDOW_S, KL_ENERGY_STEADY_S);
    else if (launches > 0)
        energy(w, r.energy_j, launches, out);
    free(w);
}

void kl_machine_clocks(struct kl_context *kl, double *sm_mhz, double *mem_mhz)
{
    char why[160];
    struct kl_nvml *nvml = nvml_of(kl, why, sizeof why);
    struct kl_nvml_reading r = {-1, -1, -1, -1, 0};
    if (nvml)
        kl_nvml_read(nvml, &r);
    *sm_mhz = r.sm_mhz;
    *mem_mhz = r.mem_mhz;
}

double kl_machine_sm_now(struct kl_machine_window *w)
{
    return w ? kl_nvml_sm_mhz(w->nvml) : -1;
}

double kl_machine_sm_max(struct kl_machine_window *w)
{
    return w ? w->sm_max_mhz : -1;
}

void kl_machine_conditions(struct kl_context *kl, struct kl_conditions *out)
{
    struct kl_nvml *nvml = nvml_of(kl, out->why, sizeof out->why);
    struct kl_nvml_facts f = {-1, -1, -1, -1, -1};
    if (nvml)
        kl_nvml_facts(nvml, &f);
    out->known = nvml != NULL;
    out->sm_max_mhz = f.sm_max_mhz;
    out->locked_mhz = kl->machine ? kl->machine->locked_mhz : -1;
    out->ecc = f.ecc;
    out->persistence = f.persistence;
    out->power_limit_w = f.power_limit_w;
    out->temperature_c = f.temperature_c;
    snprintf(out->lock_why, sizeof out->lock_why, "%s", kl->machine ? kl->machine->lock_why : "");
    if (kl->machine && !kl->machine->temperature_ref && f.temperature_c > 0)
        kl->machine->temperature_ref = f.temperature_c;
}

/* kl_machine_lock_clocks, its failure's reason into why (n bytes). */
static int lock_clocks(struct kl_context *kl, double mhz, char *why, size_t n)
{
    struct kl_nvml *nvml = nvml_of(kl, why, n);
    if (!nvml)
        return -1;
    double max = sm_max_of(kl);
    if (!(mhz >= 1) || (max > 0 && mhz > max))
        return snprintf(why, n, "%.6g MHz is not an SM clock of this GPU (1 to %.0f MHz)", mhz,
                        max),
               -1;
    if (kl_nvml_lock_clocks(nvml, (unsigned)mhz, why, n) != 0)
        return -1;
    kl->machine->locked_mhz = (unsigned)mhz;
    kl->machine->lock_why[0] = '\0'; /* an earlier refusal no longer stands */
    return 0;
}

enum kl_status kl_machine_lock_clocks(struct kl_context *kl, double mhz, char *why, size_t n)
{
    if (!lock_clocks(kl, mhz, why, n))
        return KL_OK;
    if (kl->machine)
        snprintf(kl->machine->lock_why, sizeof kl->machine->lock_why, "%s", why);
    return KL_ERR_UNSUPPORTED;
}

double kl_machine_cooldown(struct kl_context *kl, double limit_s)
{
    char why[160];
    struct kl_machine_state *m = limit_s > 0 ? state_of(kl) : NULL;
    struct kl_nvml *nvml = m ? nvml_of(kl, why, sizeof why) : NULL;
    double t0 = kl_now(), temperature = nvml ? kl_nvml_temperature(nvml) : -1;
    const struct timespec step = {0, 100 * 1000000L};
    if (!m)
        return 0;
    if (temperature > 0 && !m->temperature_ref)
        m->temperature_ref = temperature; /* the first row's: nothing to wait for */
    while (kl_now() - t0 < limit_s && (temperature < 0 || temperature > m->temperature_ref + 1)) {
        nanosleep(&step, NULL);
        if (nvml)
            temperature = kl_nvml_temperature(nvml);
    }
    return kl_now() - t0;
}

void kl_machine_host(char *host, size_t nh, char *cpu, size_t nc, char *os, size_t no)
{
    struct utsname u;
    char line[256];
    FILE *f = fopen("/proc/cpuinfo", "r");
    host[0] = cpu[0] = os[0] = '\0';
    if (gethostname(host, nh) != 0)
        host[0] = '\0';
    host[nh - 1] = '\0';
    if (uname(&u) == 0)
        snprintf(os, no, "%.40s %.60s %.20s", u.sysname, u.release, u.machine);
    while (f && fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) == 0 && colon) {
            colon += strspn(colon + 1, " \t") + 1;
            colon[strcspn(colon, "\n")] = '\0';
            snprintf(cpu, nc, "%s", colon);
            break;
        }
    }
    if (f)
        fclose(f);
}

void kl_machine_free(struct kl_context *kl)
{
    if (!kl->machine)
        return;
    if (kl->machine->locked_mhz > 0) /* --lock-clocks: the clocks back to the driver */
        kl_nvml_unlock_clocks(kl->machine->nvml);
    kl_nvml_close(kl->machine->nvml);
    free(kl->machine);
    kl->machine = NULL;
}

/* ---- occupancy ----------------------------------------------------------------- */

/* Adds a sentence to r->why, after a "; " where it holds one already. */
static void add_why(struct kl_resources *r, const char *what)
{
    size_t used = strlen(r->why);
    snprintf(r->why + used, sizeof r->why - used, "%s%s", used ? "; " : "", what);
}

/*
 * Each resource's bound on the work-groups a compute unit holds at once
 * (registers, shared memory, threads, blocks); -1: it sets none.
 */
static void group_bounds(const struct kl_device_info *d, const struct kl_resources *r,
                         unsigned warp, long warps, long bound[4])
{
    bound[0] = bound[1] = bound[3] = -1;
    if (r->regs > 0 && d->regs_per_cu) {
        /* Registers go to warps in units of 256, warps to the unit's four quarters. */
        long per_warp = ((long)r->regs * warp + 255) / 256 * 256;
        bound[0] = (long)(d->regs_per_cu / 4) / per_warp * 4 / warps;
    }
    long local = (r->local_static > 0 ? r->local_static : 0) + r->local_dynamic;
    if (local > 0 && d->local_mem_per_cu)
        bound[1] = (long)d->local_mem_per_cu / (local + (long)d->local_mem_reserved);
    bound[2] = (long)d->threads_per_cu / (warps * warp);
    if (d->blocks_per_cu)
        bound[3] = d->blocks_per_cu;
}

/* The least of the bounds that are set; -1 where none is. */
static long least_bound(const long bound[4])
{
    long groups = -1;
    for (int i = 0; i < 4; i++)
        if (bound[i] >= 0 && (groups < 0 || bound[i] < groups))
            groups = bound[i];
    return groups;
}

/*
 * The resource whose bound is groups, into r->limiter. In a tie the unit's own
 * slots (threads, then blocks) are named: at full occupancy registers or
 * shared memory that would just fit limit nothing.
 */
static void name_limiter(const long bound[4], long groups, struct kl_resources *r)
{
    static const char *const names[4] = {"registers", "shared", "threads", "blocks"};
    static const int order[4] = {2, 3, 0, 1};
    for (int k = 0; k < 4; k++)
        if (bound[order[k]] == groups) {
            snprintf(r->limiter, sizeof r->limiter, "%s", names[order[k]]);
            break;
        }
}

void kl_occupancy(const struct kl_device_info *d, struct kl_resources *r)
{
    const unsigned warp = d->warp ? d->warp : 32;
    long warps = (r->threads + warp - 1) / warp; /* per work-group */
    long bound[4];
    r->occupancy = -1;
    r->limiter[0] = '\0';
    if (!d->threads_per_cu || warps <= 0) {
        add_why(r, "no occupancy: the device does not tell what a compute unit holds");
        return;
    }
    group_bounds(d, r, warp, warps, bound);
    long groups = least_bound(bound);
    if (r->groups_per_cu >= 0) /* the API's own count stands */
        groups = r->groups_per_cu;
    else
        r->groups_per_cu = (int)groups;
    name_limiter(bound, groups, r);
    r->occupancy = (double)(groups * warps) / (double)(d->threads_per_cu / warp);
    if (r->regs < 0 && d->regs_per_cu) /* the count may be higher than registers allow */
        add_why(r, "registers unknown: not counted");
}
