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

/* Every device of one backend; returns how many were shown. */
static int list_backend(FILE *out, FILE *err, const struct kl_backend_ops *ops,
                        const struct row *table, size_t nrows)
{
    int np = ops->platform_count(), shown = 0, cuda = table == cuda_rows;
    for (int p = 0; p < np; p++) {
        int nd = ops->device_count(p);
        for (int d = 0; d < nd; d++) {
            struct kl_device_info info;
            struct kl_err e = {{0}};
            if (ops->device_info(p, d, &info, &e) != KL_OK) {
                fprintf(err, "kladder: %s device %d:%d: %s\n", ops->name, p, d, e.msg);
                continue;
            }
            if (d == 0 && cuda)
                fprintf(out, "Platform cuda: %s (%s)\n", info.platform, info.platform_version);
            else if (d == 0)
                fprintf(out, "Platform %d: %s (%s)\n", p, info.platform, info.platform_version);
            if (cuda)
                fprintf(out, "  Device cuda:%d  %s\n", d, info.name);
            else
                fprintf(out, "  Device %d:%d  %s\n", p, d, info.name);
            for (size_t i = 0; i < nrows; i++)
                print_row(out, &table[i], &info);
            fprintf(out, "    %-30s %zu / %zu / %zu\n", cuda ? "Max block dims" : "Max work-item sizes",
                    info.max_item[0], info.max_item[1], info.max_item[2]);
            shown++;
        }
    }
    return shown;
}

int kl_cli_devices(FILE *out, FILE *err)
{
    char hint[512];
    int shown = list_backend(out, err, &kl_backend_opencl, rows, sizeof rows / sizeof *rows);
    if (kl_nvidia_hint(hint, sizeof hint))
        fprintf(err, "\nkladder: %s\n", hint);
#ifdef KLADDER_HAVE_CUDA
    if (kl_backend_cuda.platform_count() > 0) {
        fputc('\n', out);
        shown += list_backend(out, err, &kl_backend_cuda, cuda_rows,
                              sizeof cuda_rows / sizeof *cuda_rows);
    } else {
        kl_backend_cuda.unavailable(hint, sizeof hint);
        fprintf(out, "\nCUDA: %s\n", hint);
    }
#else
    fprintf(out, "\nCUDA: not built into this kladder (no CUDA toolkit when it was configured)\n");
#endif
    if (!shown) {
        fprintf(err, "kladder: no device found. On Debian/Ubuntu, "
                     "`apt-get install pocl-opencl-icd` provides an OpenCL one on the CPU.\n");
        return 3;
    }
    const struct kl_backend_ops *ops;
    int p, d;
    struct kl_err e = {{0}};
    if (kl_device_select(NULL, &ops, &p, &d, &e) != KL_OK) {
        if (getenv("KLADDER_DEVICE"))
            fprintf(err, "\nkladder: warning: KLADDER_DEVICE selects nothing: %s\n", e.msg);
        else
            fprintf(out, "\nNo default OpenCL device: use --backend cuda (or --device cuda:0)\n");
    }
    else if (ops == &kl_backend_opencl)
        fprintf(out, "\nDefault device: %d:%d (KLADDER_DEVICE or --device to choose another; "
                     "--backend cuda or --device cuda:N for CUDA)\n",
                p, d);
    else
        fprintf(out, "\nDefault device: cuda:%d (from KLADDER_DEVICE)\n", d);
    return 0;
}
