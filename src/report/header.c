/*
 * The head of a run's table and matrix: what ran where, the reference, the
 * ceilings, the protocol with what it adds (cold launches, the clock filter,
 * cool-downs, the order), the GPU's conditions, a soak's health, how the
 * inputs were drawn, and the work per launch.
 */
#include <string.h>

#include "core/measure.h"
#include "report/write.h"

/* "on", "off" or "unknown" for a flag NVML gave as 1, 0 or -1. */
static const char *on_off(int flag)
{
    return flag > 0 ? "on" : flag == 0 ? "off" : "unknown";
}

/*
 * The conditions the GPU ran in (NVML): whether its clocks were held, ECC, persistence, the
 * power limit and the temperature at both ends; nothing where NVML told nothing.
 */
/* A figure NVML gave, with its unit ("700 W"), or "unknown" where it gave none (< 0). */
static const char *figure(double v, const char *unit, char *buf, size_t n)
{
    if (v < 0)
        return "unknown";
    snprintf(buf, n, "%.0f %s", v, unit);
    return buf;
}

static void conditions_line(const struct kl_report *r, FILE *out)
{
    const struct kl_conditions *c = &r->conditions;
    char clocks[256], end[32] = "", watts[32], start[32];
    if (!c->known)
        return;
    if (c->locked_mhz > 0)
        snprintf(clocks, sizeof clocks, "SM clock locked at %.0f MHz (--lock-clocks)",
                 c->locked_mhz);
    else
        snprintf(clocks, sizeof clocks, "clocks free to move (SM up to %s): %s",
                 figure(c->sm_max_mhz, "MHz", watts, sizeof watts),
                 c->lock_why[0] ? c->lock_why : "--lock-clocks MHZ holds them where allowed");
    if (r->end_temperature_c >= 0)
        snprintf(end, sizeof end, ", %.0f °C at the end", r->end_temperature_c);
    fprintf(out, "machine:   %s\n", clocks);
    fprintf(out, "           ECC %s, persistence %s, power limit %s, %s at the start%s\n",
            on_off(c->ecc), on_off(c->persistence),
            figure(c->power_limit_w, "W", watts, sizeof watts),
            figure(c->temperature_c, "°C", start, sizeof start), end);
}

/* What the protocol does beyond its counts: cold launches, the clock filter, cool-downs, order. */
static void protocol_extras(const struct kl_report *r, char *buf, size_t n)
{
    const struct kl_protocol *p = &r->protocol;
    size_t used = 0;
    buf[0] = '\0';
    if (p->cold == KL_COLD_BOTH)
        used += (size_t)snprintf(buf + used, n - used,
                                 "; warm and cold: each row timed twice, the second time with the "
                                 "last-level cache flushed before every timed launch");
    else if (p->cold)
        used += (size_t)snprintf(buf + used, n - used,
                                 "; cold: the last-level cache flushed before every timed launch "
                                 "(device rungs; %lu flushes)",
                                 r->cold_flushes);
    if (p->min_clock > 0 && used < n)
        used += (size_t)snprintf(
            buf + used, n - used, "; launches under %.3g %% of the highest SM clock taken again%s",
            p->min_clock * 100,
            r->conditions.known ? "" : " (this device reports no clock: none was)");
    if (p->cooldown > 0 && used < n)
        used += (size_t)snprintf(buf + used, n - used,
                                 "; before each row a cool-down of up to %.3g s", p->cooldown);
    if (p->shuffle && used < n)
        snprintf(buf + used, n - used, "; rows in a random order (%.400s)", r->run_order);
}

void kl_report_header(const struct kl_report *r, FILE *out)
{
    fprintf(out, "kladder %s  %s  %s  seed %llu\n", r->workload, r->sizes,
            r->type_label ? r->type_label : kl_type_name(r->type), r->seed);
    fprintf(out, "device:    %s (%s; %s; driver %s)\n", r->device.name, r->device.platform,
            r->device.device_version, r->device.driver_version);
    if (r->reference[0])
        fprintf(out, "reference: %s\n", r->reference);
    if (r->ceiling_note[0])
        fprintf(out, "ceilings:  %s\n", r->ceiling_note);
    int host = 0;
    for (int i = 0; i < r->count; i++)
        host |= r->results[i].on_host;
    char noise[128] = "";
    if (r->protocol.noise > 0)
        snprintf(noise, sizeof noise,
                 ", then on until the median's relative standard error is <= %.3g %% or %.3g s",
                 r->protocol.noise * 100, kl_noise_max_time(&r->protocol));
    char extras[768];
    protocol_extras(r, extras, sizeof extras);
    char clock[256];
    if (r->timing[0])
        snprintf(clock, sizeof clock, "timed by %s", r->timing);
    else
        snprintf(clock, sizeof clock, "kernel time from %s events%s", r->backend,
                 host ? ", host rungs by the host clock" : "");
    fprintf(out, "protocol:  %d warm-up, then >= %d timed launches and >= %.3g s%s; %s%s\n",
            r->protocol.warmup, r->protocol.min_repeats, r->protocol.min_time, noise, clock,
            extras);
    conditions_line(r, out);
    if (r->health[0])
        fprintf(out, "health:    %s\n", r->health);
    if (r->inputs[0])
        fprintf(out, "inputs:    %s%s\n", r->inputs,
                strcmp(r->workload, "gemm") == 0
                    ? " (the tensor cores' speed and power depend on the values)"
                    : "");
    if (r->flops > 0)
        fprintf(out,
                "work:      %.4g GFLOP and %.4g MB minimal traffic per launch (AI %.3g FLOP/B)\n",
                r->flops * 1e-9, r->bytes * 1e-6, r->bytes > 0 ? r->flops / r->bytes : 0.0);
    else if (r->bytes > 0)
        fprintf(out, "work:      %.4g MB minimal traffic per launch\n", r->bytes * 1e-6);
    fputc('\n', out);
}
