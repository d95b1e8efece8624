/*
 * `kladder devices`: every platform and device with the facts that explain
 * results. One table row per fact, each with its printer (as clinfo does).
 */
#include "cli/devices.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "backend/backend.h"
#include "core/context.h"

enum row_kind { ROW_STR, ROW_UINT, ROW_BYTES, ROW_SIZE, ROW_BOOL };

struct row {
    const char *label;
    enum row_kind kind;
    size_t offset;
    const char *unit;
};

#define F(field) offsetof(struct kl_device_info, field)
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
    {"Image support", ROW_BOOL, F(images), ""},
    {"Event profiling", ROW_BOOL, F(profiling), ""},
};
#undef F

static void print_bytes(FILE *out, unsigned long long b)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)b;
    int u = 0;
    while (v >= 1024.0 && u < 4 && (b % 1024 == 0 || v >= 10 * 1024.0))
        v /= 1024.0, u++;
    fprintf(out, u ? "%.4g %s (%llu B)" : "%.0f %s", v, units[u], b);
}

static void print_row(FILE *out, const struct row *r, const struct kl_device_info *info)
{
    const char *base = (const char *)info + r->offset;
    fprintf(out, "    %-30s ", r->label);
    switch (r->kind) {
    case ROW_STR: fputs(base, out); break;
    case ROW_UINT: fprintf(out, "%u%s", *(const unsigned *)(const void *)base, r->unit); break;
    case ROW_SIZE: fprintf(out, "%zu", *(const size_t *)(const void *)base); break;
    case ROW_BOOL: fputs(*(const int *)(const void *)base ? "yes" : "no", out); break;
    case ROW_BYTES:
        print_bytes(out, (unsigned long long)*(const uint64_t *)(const void *)base);
        break;
    }
    fputc('\n', out);
}

int kl_cli_devices(FILE *out, FILE *err)
{
    const struct kl_backend_ops *ops = &kl_backend_opencl;
    int np = ops->platform_count(), shown = 0;
    char hint[512];
    for (int p = 0; p < np; p++) {
        int nd = ops->device_count(p);
        for (int d = 0; d < nd; d++) {
            struct kl_device_info info;
            struct kl_err e = {{0}};
            if (ops->device_info(p, d, &info, &e) != KL_OK) {
                fprintf(err, "kladder: device %d:%d: %s\n", p, d, e.msg);
                continue;
            }
            if (d == 0)
                fprintf(out, "Platform %d: %s (%s)\n", p, info.platform, info.platform_version);
            fprintf(out, "  Device %d:%d  %s\n", p, d, info.name);
            for (size_t i = 0; i < sizeof rows / sizeof *rows; i++)
                print_row(out, &rows[i], &info);
            fprintf(out, "    %-30s %zu / %zu / %zu\n", "Max work-item sizes", info.max_item[0],
                    info.max_item[1], info.max_item[2]);
            shown++;
        }
    }
    if (kl_nvidia_hint(hint, sizeof hint))
        fprintf(err, "\nkladder: %s\n", hint);
    if (!shown) {
        fprintf(err, "kladder: no OpenCL device found. On Debian/Ubuntu, "
                     "`apt-get install pocl-opencl-icd` provides one on the CPU.\n");
        return 3;
    }
    int p, d;
    struct kl_err e = {{0}};
    if (kl_device_select(NULL, &p, &d, &e) == KL_OK)
        fprintf(out, "\nDefault device: %d:%d (KLADDER_DEVICE or --device to choose another)\n", p,
                d);
    else
        fprintf(err, "\nkladder: warning: KLADDER_DEVICE selects nothing: %s\n", e.msg);
    return 0;
}
