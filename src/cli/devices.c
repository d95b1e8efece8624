/*
 * `kladder devices`: every platform and device with the facts that explain
 * results. One table row per fact, each with its printer (as clinfo does).
 */
#include "cli/devices.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "core/context.h"
#include "formats/json.h"

enum row_kind { ROW_STR, ROW_UINT, ROW_BYTES, ROW_SIZE, ROW_BOOL };

struct row {
    const char *label;
    enum row_kind kind;
    size_t offset;
    const char *unit;
};

#define F(field) offsetof(struct kl_device_info, field)
/*
 * CUDA devices: the facts cuDeviceGetAttribute gives. Facts both backends
 * have keep OpenCL's labels, so scripts read either the same way.
 */
static const struct row cuda_rows[] = {
    {"Vendor", ROW_STR, F(vendor), ""},
    {"Type", ROW_STR, F(type), ""},
    {"Compute capability", ROW_STR, F(device_version), ""},
    {"Compiler", ROW_STR, F(c_version), ""},
    {"Driver version", ROW_STR, F(driver_version), ""},
    {"Compute units (SMs)", ROW_UINT, F(compute_units), ""},
    {"Max clock", ROW_UINT, F(max_clock_mhz), " MHz"},
    {"Memory clock (peak)", ROW_UINT, F(mem_clock_mhz), " MHz"},
    {"Memory bus", ROW_UINT, F(mem_bus_bits), " bits"},
    {"Global memory", ROW_BYTES, F(global_mem), ""},
    {"Max allocation", ROW_BYTES, F(max_alloc), ""},
    {"Global cache", ROW_BYTES, F(global_cache), ""},
    {"Constant buffer", ROW_BYTES, F(constant_mem), ""},
    {"Local memory", ROW_BYTES, F(local_mem), ""},
    {"Local memory on chip", ROW_BOOL, F(local_mem_dedicated), ""},
    {"Shared memory opt-in", ROW_BYTES, F(local_mem_optin), ""},
    {"Shared memory per SM", ROW_BYTES, F(local_mem_per_cu), ""},
    {"Registers per block", ROW_UINT, F(regs_per_block), ""},
    {"Registers per SM", ROW_UINT, F(regs_per_cu), ""},
    {"Max work-group size", ROW_SIZE, F(max_wg), ""},
    {"Max threads per SM", ROW_UINT, F(threads_per_cu), ""},
    {"Warp size", ROW_UINT, F(warp), ""},
    {"Double precision (fp64)", ROW_BOOL, F(fp64), ""},
    {"Sub-groups (warps)", ROW_BOOL, F(subgroups), ""},
    {"Image support", ROW_BOOL, F(images), ""},
    {"Event profiling", ROW_BOOL, F(profiling), ""},
};
static const struct row rows[] = {
    {"Vendor", ROW_STR, F(vendor), ""},
    {"Type", ROW_STR, F(type), ""},
    {"Device version", ROW_STR, F(device_version), ""},
    {"OpenCL C version", ROW_STR, F(c_version), ""},
    {"Driver version", ROW_STR, F(driver_version), ""},
    {"Compute units", ROW_UINT, F(compute_units), ""},
    {"Max clock", ROW_UINT, F(max_clock_mhz), " MHz"},
    {"Global memory", ROW_BYTES, F(global_mem), ""},
    {"Max allocation", ROW_BYTES, F(max_alloc), ""},
    {"Global cache", ROW_BYTES, F(global_cache), ""},
    {"Cache line", ROW_BYTES, F(global_cacheline), ""},
    {"Constant buffer", ROW_BYTES, F(constant_mem), ""},
    {"Local memory", ROW_BYTES, F(local_mem), ""},
    {"Local memory on chip", ROW_BOOL, F(local_mem_dedicated), ""},
    {"Max work-group size", ROW_SIZE, F(max_wg), ""},
    {"Preferred vector float", ROW_UINT, F(pref_vec_float), ""},
    {"Native vector float", ROW_UINT, F(native_vec_float), ""},
    {"Preferred vector double", ROW_UINT, F(pref_vec_double), ""},
    {"Native vector double", ROW_UINT, F(native_vec_double), ""},
    {"Double precision (fp64)", ROW_BOOL, F(fp64), ""},
    {"Sub-groups (cl_khr_subgroups)", ROW_BOOL, F(subgroups), ""},
    {"64-bit atomics (cl_khr_int64_base_atomics)", ROW_BOOL, F(atomics64), ""},
    {"Waiting work-groups progress", ROW_BOOL, F(groups_progress), ""},
    {"Image support", ROW_BOOL, F(images), ""},
    {"Event profiling", ROW_BOOL, F(profiling), ""},
};
#undef F

static void bytes_text(char *out, size_t n, unsigned long long b)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)b;
    int u = 0;
    while (v >= 1024.0 && u < 4 && (b % 1024 == 0 || v >= 10 * 1024.0))
        v /= 1024.0, u++;
    snprintf(out, n, u ? "%.4g %s (%llu B)" : "%.0f %s", v, units[u], b);
}

/* A fact's value as the table shows it. */
static void fact_text(char *out, size_t n, const struct row *r, const struct kl_device_info *info)
{
    const char *base = (const char *)info + r->offset;
    switch (r->kind) {
    case ROW_STR: snprintf(out, n, "%s", base); break;
    case ROW_UINT: snprintf(out, n, "%u%s", *(const unsigned *)(const void *)base, r->unit); break;
    case ROW_SIZE: snprintf(out, n, "%zu", *(const size_t *)(const void *)base); break;
    case ROW_BOOL: snprintf(out, n, "%s", *(const int *)(const void *)base ? "yes" : "no"); break;
    case ROW_BYTES:
        bytes_text(out, n, (unsigned long long)*(const uint64_t *)(const void *)base);
        break;
    }
}

/* Where the listing goes: the table, or the JSON object (first: no device written yet). */
struct listing {
    FILE *out, *err;
    int json, first;
};

/* One fact: a table line, or a member of the device's "facts". */
static void fact(struct listing *l, const char *label, const char *text, int first)
{
    if (!l->json) {
        fprintf(l->out, "    %-30s %s\n", label, text);
        return;
    }
    fputs(first ? "" : ", ", l->out);
    kl_json_write_string(l->out, label);
    fputs(": ", l->out);
    kl_json_write_string(l->out, text);
}

/* A device's heading: the platform line before its first device, then its own line. */
static void device_head(struct listing *l, const char *backend, const char *id,
                        const struct kl_device_info *info, int first_of_platform,
                        const char *platform_id, int is_default)
{
    if (!l->json) {
        if (first_of_platform)
            fprintf(l->out, "Platform %s: %s (%s)\n", platform_id, info->platform,
                    info->platform_version);
        fprintf(l->out, "  Device %s  %s\n", id, info->name);
        return;
    }
    fputs(l->first ? "\n  {" : ",\n  {", l->out);
    l->first = 0;
    fputs("\"id\": ", l->out);
    kl_json_write_string(l->out, id);
    fprintf(l->out, ", \"backend\": \"%s\", \"name\": ", backend);
    kl_json_write_string(l->out, info->name);
    fputs(", \"platform\": ", l->out);
    kl_json_write_string(l->out, info->platform);
    fputs(", \"platform_version\": ", l->out);
    kl_json_write_string(l->out, info->platform_version);
    fprintf(l->out, ", \"default\": %s,\n   \"facts\": {", is_default ? "true" : "false");
}

/*
 * A device's id as --device takes it: "P:D" through the default backend
 * (OpenCL), "NAME:D" through one whose devices are one platform's (cuda:D).
 */
static void device_id(char *out, size_t n, const struct kl_backend_ops *ops, int p, int d)
{
    if (!ops->one_platform)
        snprintf(out, n, "%d:%d", p, d);
    else
        snprintf(out, n, "%s:%d", ops->name, d);
}

/* Every device of one backend; returns how many were shown. def_*: the default device. */
static int list_backend(struct listing *l, const struct kl_backend_ops *ops, const struct row *table,
                        size_t nrows, const struct kl_backend_ops *def_ops, int def_p, int def_d)
{
    int np = ops->platform_count(), shown = 0, cuda = table == cuda_rows;
    for (int p = 0; p < np; p++) {
        int nd = ops->device_count(p);
        for (int d = 0; d < nd; d++) {
            struct kl_device_info info;
            struct kl_err e = {{0}};
            char id[32], pid[16], text[256];
            if (ops->device_info(p, d, &info, &e) != KL_OK) {
                fprintf(l->err, "kladder: %s device %d:%d: %s\n", ops->name, p, d, e.msg);
                continue;
            }
            device_id(id, sizeof id, ops, p, d);
            if (cuda)
                snprintf(pid, sizeof pid, "cuda");
            else
                snprintf(pid, sizeof pid, "%d", p);
            device_head(l, ops->name, id, &info, d == 0, pid,
                        ops == def_ops && p == def_p && d == def_d);
            for (size_t i = 0; i < nrows; i++) {
                fact_text(text, sizeof text, &table[i], &info);
                fact(l, table[i].label, text, i == 0);
            }
            snprintf(text, sizeof text, "%zu / %zu / %zu", info.max_item[0], info.max_item[1],
                     info.max_item[2]);
            fact(l, cuda ? "Max block dims" : "Max work-item sizes", text, 0);
            if (l->json)
                fputs("}}", l->out);
            shown++;
        }
    }
    return shown;
}

/* The default device, chosen by kl_device_select (KLADDER_DEVICE, else the first GPU ...). */
struct chosen {
    int found; /* 0: none, e says why */
    const struct kl_backend_ops *ops;
    int p, d;
    struct kl_err e;
};

/* The CUDA devices after OpenCL's; else why there are none (into why). */
static int list_cuda(struct listing *l, const struct chosen *def, char *why, size_t n)
{
#ifdef KLADDER_HAVE_CUDA
    if (kl_backend_cuda.platform_count() > 0) {
        if (!l->json)
            fputc('\n', l->out);
        return list_backend(l, &kl_backend_cuda, cuda_rows, sizeof cuda_rows / sizeof *cuda_rows,
                            def->ops, def->p, def->d);
    }
    kl_backend_cuda.unavailable(why, n);
#else
    (void)l, (void)def;
    snprintf(why, n, "not built into this kladder (no CUDA toolkit when it was configured)");
#endif
    return 0;
}

/* The JSON's end: the default device's id (or null) and why CUDA is missing (or null). */
static void json_tail(FILE *out, const struct chosen *def, const char *cuda_why)
{
    char id[32];
    fputs("\n], \"default\": ", out);
    if (def->found) {
        device_id(id, sizeof id, def->ops, def->p, def->d);
        kl_json_write_string(out, id);
    } else {
        fputs("null", out);
    }
    fputs(", \"cuda\": ", out);
    if (cuda_why[0])
        kl_json_write_string(out, cuda_why);
    else
        fputs("null", out);
    fputs("}\n", out);
}

/* The table's last line: the default device and how to choose another, or why there is none. */
static void say_default(FILE *out, FILE *err, int json, const struct chosen *def)
{
    if (!def->found) {
        if (getenv("KLADDER_DEVICE"))
            fprintf(err, "\nkladder: warning: KLADDER_DEVICE selects nothing: %s\n", def->e.msg);
        else if (!json)
            fprintf(out, "\nNo default OpenCL device: use --backend cuda (or --device cuda:0)\n");
    } else if (json) {
    } else if (!def->ops->one_platform) {
        fprintf(out, "\nDefault device: %d:%d (KLADDER_DEVICE or --device to choose another; "
                     "--backend cuda or --device cuda:N for CUDA)\n",
                def->p, def->d);
    } else {
        fprintf(out, "\nDefault device: %s:%d (from KLADDER_DEVICE)\n", def->ops->name, def->d);
    }
}

int kl_cli_devices(FILE *out, FILE *err, int json)
{
    char hint[512], cuda_why[512] = "";
    struct listing l = {out, err, json, 1};
    struct chosen def = {0, NULL, -1, -1, {{0}}};
    def.found = kl_device_select(NULL, &def.ops, &def.p, &def.d, &def.e) == KL_OK;
    if (json)
        fputs("{\"devices\": [", out);
    int shown = list_backend(&l, &kl_backend_opencl, rows, sizeof rows / sizeof *rows, def.ops,
                             def.p, def.d);
    if (kl_nvidia_hint(hint, sizeof hint))
        fprintf(err, "\nkladder: %s\n", hint);
    shown += list_cuda(&l, &def, cuda_why, sizeof cuda_why);
    if (json)
        json_tail(out, &def, cuda_why);
    else if (cuda_why[0])
        fprintf(out, "\nCUDA: %s\n", cuda_why);
    if (!shown) {
        fprintf(err, "kladder: no device found. On Debian/Ubuntu, "
                     "`apt-get install pocl-opencl-icd` provides an OpenCL one on the CPU.\n");
        return 3;
    }
    say_default(out, err, json, &def);
    return 0;
}
