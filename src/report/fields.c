/*
 * The tables of a result row's numbers and of its kernels' resources
 * (report/fields.h), and the few rules every writer applies to them alike.
 */
#include "report/fields.h"

#include <limits.h>
#include <math.h>
#include <string.h>

double kl_slot_get(const void *base, struct kl_slot s)
{
    const char *p = (const char *)base + s.at;
    int i;
    long l;
    double d;
    switch (s.type) {
    case KL_SLOT_INT: memcpy(&i, p, sizeof i); return i;
    case KL_SLOT_LONG: memcpy(&l, p, sizeof l); return (double)l;
    case KL_SLOT_REAL: memcpy(&d, p, sizeof d); return d;
    case KL_SLOT_NONE: break;
    }
    return NAN;
}

/*
 * A whole number read as a double, as an int or a long: unknown when it is NaN
 * or out of range (converting such a double is undefined behaviour). Longs are
 * byte counts, kept below 1e18 so that two of them add up safely.
 */
void kl_slot_set(void *base, struct kl_slot s, double v, long unknown)
{
    char *p = (char *)base + s.at;
    int i = v > (double)INT_MIN - 1 && v < (double)INT_MAX + 1 ? (int)v : (int)unknown;
    long l = v > -1e18 && v < 1e18 ? (long)v : unknown;
    switch (s.type) {
    case KL_SLOT_INT: memcpy(p, &i, sizeof i); break;
    case KL_SLOT_LONG: memcpy(p, &l, sizeof l); break;
    case KL_SLOT_REAL: memcpy(p, &v, sizeof v); break;
    case KL_SLOT_NONE: break;
    }
}

#define RESULT(m) KL_SLOT(struct kl_result, m)
#define ROW(m) KL_SLOT(struct kl_run_row, m)

/* In the order the JSON writes them; the table and the CSV keep the same order. */
const struct kl_result_field kl_result_fields[] = {
    {"median_s", "s", "the median time of the timed launches", 1,
     KL_FIELD_TABLE | KL_FIELD_CSV | KL_FIELD_HTML, KL_SHOW_TIMED, RESULT(median_s), ROW(median_s),
     NULL, NULL, "median ms", 10, 3, 1e3, "%.9g", "median ms", "%.4g"},
    {"min_s", "s", "the fastest timed launch", 1,
     KL_FIELD_TABLE | KL_FIELD_CSV | KL_FIELD_HTML | KL_FIELD_RANGE, KL_SHOW_TIMED, RESULT(min_s),
     ROW(min_s), NULL, NULL, "min ms", 10, 3, 1e3, "%.9g", "min–max ms", "%.4g"},
    {"max_s", "s", "the slowest timed launch", 1, KL_FIELD_TABLE | KL_FIELD_CSV, KL_SHOW_TIMED,
     RESULT(max_s), ROW(max_s), NULL, NULL, "max ms", 10, 3, 1e3, "%.9g", NULL, NULL},
    {"repeats", "launches", "how many launches were timed", 1,
     KL_FIELD_TABLE | KL_FIELD_CSV | KL_FIELD_HTML | KL_FIELD_NEVER_NULL, KL_SHOW_TIMED,
     RESULT(repeats), ROW(repeats), NULL, NULL, "reps", 5, 0, 1, "%.0f", "launches", "%.0f"},
    {"noise", "",
     "the median's relative standard error, from the launch times' median absolute deviation "
     "(1.2533 · 1.4826 · MAD / (median · sqrt(n)))",
     2, KL_FIELD_CSV, KL_SHOW_POSITIVE, RESULT(noise), ROW(noise), NULL, NULL, NULL, 0, 0, 1,
     "%.4g", NULL, NULL},
    {"gflops", "GFLOP/s", "FLOPs per launch over the median (GIOP/s for int)", 1,
     KL_FIELD_TABLE | KL_FIELD_CSV | KL_FIELD_HTML | KL_FIELD_NOT_ITEMS | KL_FIELD_RATE,
     KL_SHOW_TIMED, RESULT(gflops), ROW(gflops), NULL, kl_result_flops, "GFLOP/s", 9, 2, 1, "%.6g",
     "rate", "%.4g"},
    {"gbps", "GB/s", "minimal bytes per launch over the median", 1, KL_FIELD_TABLE | KL_FIELD_CSV,
     KL_SHOW_TIMED, RESULT(gbps), ROW(gbps), NULL, kl_result_bytes, "GB/s", 8, 2, 1, "%.6g", NULL,
     NULL},
    {"mitems_per_s", "M items/s", "items (blur's pixels) per second, in millions", 1,
     KL_FIELD_TABLE | KL_FIELD_ITEMS, KL_SHOW_TIMED, RESULT(mitems), ROW(mitems), NULL, NULL, NULL,
     9, 1, 1, NULL, NULL, NULL},
    {"pct_ceiling", "%", "of the measured roofline", 1,
     KL_FIELD_TABLE | KL_FIELD_CSV | KL_FIELD_HTML, KL_SHOW_POSITIVE, RESULT(pct_ceiling),
     ROW(pct_ceiling), NULL, NULL, "% roof", 6, 1, 1, "%.4g", "% roof", "%.1f"},
    {"flops", "FLOP", "the row's FLOPs per launch", 1, 0, KL_SHOW_ALWAYS, RESULT(flops), ROW(flops),
     kl_result_flops, NULL, NULL, 0, 0, 1, NULL, NULL, NULL},
    {"bytes", "B", "the row's minimal traffic per launch", 1, 0, KL_SHOW_ALWAYS, RESULT(bytes),
     ROW(bytes), kl_result_bytes, NULL, NULL, 0, 0, 1, NULL, NULL, NULL},
    {"x", "", "a sweep's variable (copy --sweep: N)", 1, 0, KL_SHOW_NONZERO, RESULT(x), ROW(x),
     NULL, NULL, NULL, 0, 0, 1, NULL, NULL, NULL},
    {"speedup_first", "×", "speed-up over the first device rung", 1,
     KL_FIELD_TABLE | KL_FIELD_CSV | KL_FIELD_HTML, KL_SHOW_POSITIVE, RESULT(speedup_first),
     ROW(speedup_first), NULL, NULL, "x first", 7, 2, 1, "%.6g", "× first", "%.2f"},
    {"speedup_host", "×", "speed-up over the fastest host rung", 1, KL_FIELD_TABLE | KL_FIELD_CSV,
     KL_SHOW_POSITIVE, RESULT(speedup_host), ROW(speedup_host), NULL, NULL, "x host", 7, 2, 1,
     "%.6g", NULL, NULL},
    {"total_s", "s", "end to end: upload, kernel and download", 1, KL_FIELD_TABLE | KL_FIELD_CSV,
     KL_SHOW_POSITIVE, RESULT(total_s), ROW(total_s), NULL, NULL, "e2e ms", 10, 3, 1e3, "%.9g",
     NULL, NULL},
    {"build_s", "s", "the kernel's build", 1, KL_FIELD_TABLE | KL_FIELD_CSV, KL_SHOW_POSITIVE,
     RESULT(build_s), ROW(build_s), NULL, NULL, "build ms", 8, 1, 1e3, "%.6g", NULL, NULL},
};
const int kl_result_field_count = sizeof kl_result_fields / sizeof *kl_result_fields;

double kl_field_value(const struct kl_result_field *f, const struct kl_report *r,
                      const struct kl_result *x)
{
    return f->derive ? f->derive(r, x) : kl_slot_get(x, f->result);
}

static int shown(enum kl_field_show show, int timed, double v)
{
    switch (show) {
    case KL_SHOW_TIMED: return timed;
    case KL_SHOW_POSITIVE: return timed && v > 0;
    case KL_SHOW_NONZERO: return v != 0;
    case KL_SHOW_ALWAYS: return 1;
    }
    return 0;
}

int kl_field_shown(const struct kl_result_field *f, const struct kl_report *r,
                   const struct kl_result *x)
{
    return shown(f->show, kl_result_timed(x), kl_field_value(f, r, x));
}

int kl_field_in_table(const struct kl_result_field *f, const struct kl_report *r,
                      const struct kl_result *x)
{
    return kl_field_shown(f, r, x) && (!f->work || f->work(r, x) > 0);
}

const struct kl_result_field *kl_field_table_column(const struct kl_result_field *f, int items)
{
    if (!(f->flags & KL_FIELD_TABLE) || (f->flags & KL_FIELD_ITEMS))
        return NULL;
    if (!items || !(f->flags & KL_FIELD_NOT_ITEMS))
        return f;
    for (int i = 0; i < kl_result_field_count; i++)
        if (kl_result_fields[i].flags & KL_FIELD_ITEMS)
            return &kl_result_fields[i];
    return NULL;
}

double kl_field_row_value(const struct kl_result_field *f, const struct kl_run_row *r)
{
    return kl_slot_get(r, f->row);
}

int kl_field_row_shown(const struct kl_result_field *f, const struct kl_run_row *r)
{
    return shown(f->show, r->timed, kl_field_row_value(f, r));
}

#define RES(m) KL_SLOT(struct kl_resources, m)

/* Shared memory per work-group: what the kernel declares and what its launch adds. */
static double res_shared(const struct kl_resources *q)
{
    return (double)(q->local_static + q->local_dynamic);
}

static double row_shared(const struct kl_run_row *r)
{
    return (double)r->local_bytes;
}

/* In the order the JSON writes them: the counts always known first. */
const struct kl_kernel_field kl_kernel_fields[] = {
    {"threads", "work-items", "work-items per work-group", 2, KL_FIELD_NEVER_NULL, RES(threads),
     ROW(threads), 4, "threads", 7, "threads", "%.0f", 1, NULL, NULL},
    {"local_dynamic", "B", "local memory the launch adds (arguments, dynamic shared)", 2,
     KL_FIELD_NEVER_NULL, RES(local_dynamic), ROW(local_dynamic), 0, NULL, 0, NULL, NULL, 1, NULL,
     NULL},
    {"regs", "registers", "registers per work-item", 2, 0, RES(regs), ROW(regs), 1, "regs", 5,
     "registers", "%.0f", 1, NULL, NULL},
    {"private_bytes", "B", "private memory per work-item: spills and stack", 2, 0,
     RES(private_bytes), ROW(private_bytes), 2, "priv B", 7, "private B", "%.0f", 1, NULL, NULL},
    {"local_static", "B", "local memory the kernel declares, per work-group", 2, 0,
     RES(local_static), ROW(local_static), 3, "shared B", 9, "shared B / group", "%.0f", 1,
     res_shared, row_shared},
    {"max_threads", "work-items", "the most work-items a work-group of this kernel may have", 2, 0,
     RES(max_threads), ROW(max_threads), 0, NULL, 0, NULL, NULL, 1, NULL, NULL},
    {"threads_multiple", "work-items", "work-group sizes it prefers a multiple of", 2, 0,
     RES(threads_multiple), ROW(threads_multiple), 0, NULL, 0, NULL, NULL, 1, NULL, NULL},
    {"groups_per_cu", "work-groups", "work-groups a compute unit holds at once", 2, 0,
     RES(groups_per_cu), ROW(groups_per_cu), 0, NULL, 0, NULL, NULL, 1, NULL, NULL},
    {"occupancy", "", "resident warps over the most a compute unit holds, 0..1", 2, 0,
     RES(occupancy), ROW(occupancy), 5, NULL, 0, "occupancy", "%.1f %%", 100, NULL, NULL},
};
const int kl_kernel_field_count = sizeof kl_kernel_fields / sizeof *kl_kernel_fields;

const struct kl_kernel_field *kl_kernel_column(int c)
{
    for (int i = 0; i < kl_kernel_field_count; i++)
        if (kl_kernel_fields[i].column == c)
            return &kl_kernel_fields[i];
    return NULL;
}

double kl_kernel_res_column(const struct kl_kernel_field *f, const struct kl_resources *q)
{
    return f->res_column ? f->res_column(q) : kl_slot_get(q, f->res);
}

int kl_kernel_res_known(const struct kl_kernel_field *f, const struct kl_resources *q)
{
    return (f->flags & KL_FIELD_NEVER_NULL) || kl_slot_get(q, f->res) >= 0;
}

double kl_kernel_row_column(const struct kl_kernel_field *f, const struct kl_run_row *r)
{
    return f->row_column ? f->row_column(r) : kl_slot_get(r, f->row);
}

/* In the order the JSON writes them, after the clocks. */
const struct kl_machine_field kl_machine_fields[] = {
    {"power_w", "W", "mean power while timed", 2, 1, RESULT(machine.watts), ROW(watts)},
    {"power_w_max", "W", "highest power while timed", 2, 1, RESULT(machine.watts_max),
     ROW(watts_max)},
    {"window_s", "s", "wall time of the timed launches", 2, 1, RESULT(machine.window_s),
     ROW(window_s)},
    {"energy_j", "J", "energy per timed launch", 2, 0, RESULT(machine.joules), ROW(energy_j)},
    {"gflops_per_j", "GFLOP/J", "work per joule", 2, 0, RESULT(gflops_per_j), ROW(gflops_per_j)},
    {"gbps_per_j", "GB/J", "minimal traffic per joule", 2, 0, RESULT(gbps_per_j), ROW(gbps_per_j)},
    {"energy_power_ratio", "", "the energy counter over the window against mean power × window", 2,
     0, RESULT(machine.energy_ratio), ROW(energy_ratio)},
    {"cycles", "cycles", "median SM cycles per launch (its time by the clock read after it)", 2, 0,
     RESULT(machine.cycles), ROW(cycles)},
    {"temperature_c", "°C", "GPU temperature as the timed launches began", 2, 0,
     RESULT(machine.temperature_c), ROW(temperature_c)},
    {"retaken", "launches", "launches taken again for a clock under --min-clock", 2, 1,
     RESULT(machine.retaken), ROW(retaken)},
    {"low_clock_kept", "launches", "launches kept under --min-clock once the re-takes ran out", 2,
     1, RESULT(machine.low_kept), ROW(low_kept)},
};
const int kl_machine_field_count = sizeof kl_machine_fields / sizeof *kl_machine_fields;

int kl_machine_shown(const struct kl_machine_field *f, const struct kl_result *x)
{
    if (!kl_result_timed(x) || !x->has_machine)
        return 0;
    return f->sampled ? x->machine.samples != 0 : kl_slot_get(x, f->result) > 0;
}

#define DEV(m) offsetof(struct kl_device_info, m)

/* In the order the JSON writes them. */
const struct kl_device_field kl_device_fields[] = {
    {"name", "device", KL_DEV_TEXT, DEV(name)},
    {"vendor", "vendor", KL_DEV_TEXT, DEV(vendor)},
    {"platform", "platform", KL_DEV_TEXT, DEV(platform)},
    {"version", "version", KL_DEV_TEXT, DEV(device_version)},
    {"driver", "driver", KL_DEV_TEXT, DEV(driver_version)},
    {"type", "type", KL_DEV_TEXT, DEV(type)},
    {"pci_bus_id", "pci_bus_id", KL_DEV_TEXT_OR_NULL, DEV(pci_bus_id)},
    {"compute_units", "compute units", KL_DEV_UINT, DEV(compute_units)},
    {"max_clock_mhz", "max clock (MHz)", KL_DEV_UINT, DEV(max_clock_mhz)},
    {"global_mem_bytes", "global memory", KL_DEV_U64, DEV(global_mem)},
    {"local_mem_bytes", "local memory per work-group", KL_DEV_U64, DEV(local_mem)},
    {"local_mem_dedicated", "local memory on chip", KL_DEV_FLAG, DEV(local_mem_dedicated)},
    {"max_alloc_bytes", "largest allocation", KL_DEV_U64, DEV(max_alloc)},
    {"global_cache_bytes", "global memory cache", KL_DEV_U64, DEV(global_cache)},
    {"cacheline_bytes", "cache line", KL_DEV_U64, DEV(global_cacheline)},
    {"constant_mem_bytes", "constant memory", KL_DEV_U64, DEV(constant_mem)},
    {"max_work_group_size", "max work-group size", KL_DEV_SIZE, DEV(max_wg)},
    {"fp64", "FP64", KL_DEV_FLAG, DEV(fp64)},
    {"subgroups", "sub-groups (cl_khr_subgroups)", KL_DEV_FLAG, DEV(subgroups)},
    {"images", "image objects", KL_DEV_FLAG, DEV(images)},
};
const int kl_device_field_count = sizeof kl_device_fields / sizeof *kl_device_fields;

const char *kl_device_label(const char *key)
{
    for (int i = 0; i < kl_device_field_count; i++)
        if (strcmp(kl_device_fields[i].key, key) == 0)
            return kl_device_fields[i].label;
    return key;
}
