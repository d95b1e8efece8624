/*
 * The table of workloads (workloads/registry.h).
 */
#include "workloads/registry.h"

#include <string.h>

#include "multi/mgemm.h"
#include "workloads/blur.h"
#include "workloads/copy.h"
#include "workloads/gemm.h"
#include "workloads/gemv.h"
#include "workloads/rowdot.h"

static const struct kl_workload_def workloads[] = {
    {.name = "gemm",
     .heading = "GEMM ladder (C = A*B), in order:",
     .rungs = kl_gemm_rungs,
     .width = 16,
     .dims = 3,
     .gpu = {2048, 2048, 2048},
     .cpu = {512, 512, 512},
     .ladder = 1},
    {.name = "copy",
     .heading = "Copy ladder (seed 003), in order:",
     .rungs = kl_copy_rungs,
     .width = 8,
     .dims = 1,
     .gpu = {1L << 24},
     .cpu = {1L << 22},
     .ladder = 1},
    {.name = "rowdot",
     .heading = "Weighted row dot ladder (seed 000), in order:",
     .rungs = kl_rowdot_rungs,
     .width = 18,
     .dims = 2,
     .gpu = {16384, 16384},
     .cpu = {4096, 1000},
     .ladder = 1},
    {.name = "gemv",
     .heading = "GEMV ladder (y = a*A*x + b*y), in order:",
     .rungs = kl_gemv_rungs,
     .width = 16,
     .dims = 2,
     .gpu = {4096, 4096},
     .cpu = {2048, 2048},
     .ladder = 1},
    {.name = "blur",
     .heading = "Gaussian blur ladder (seed 001), in order:",
     .rungs = kl_blur_rungs,
     .width = 13,
     .dims = 2,
     .gpu = {4096, 4096},
     .cpu = {4096, 4096},
     .ladder = 1},
    {.name = "mgemm",
     .heading = "Multi-GPU GEMM ladder (fp32, CUDA and NCCL), in order:",
     .rungs = kl_mgemm_rungs,
     .width = 16},
};

#define COUNT ((int)(sizeof workloads / sizeof *workloads))

int kl_workload_count(void)
{
    return COUNT;
}

const struct kl_workload_def *kl_workload_at(int i)
{
    return i >= 0 && i < COUNT ? &workloads[i] : NULL;
}

const struct kl_workload_def *kl_workload_find(const char *name)
{
    for (int i = 0; name && i < COUNT; i++)
        if (strcmp(workloads[i].name, name) == 0)
            return &workloads[i];
    return NULL;
}

void kl_workload_ladder_names(char *out, size_t n)
{
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < COUNT; i++)
        if (workloads[i].ladder && used < n)
            used +=
                (size_t)snprintf(out + used, n - used, "%s%s", used ? ", " : "", workloads[i].name);
}

void kl_workload_list_rungs(const struct kl_workload_def *w, FILE *out)
{
    const struct kl_rung_table *t = w->rungs();
    fprintf(out, "%s\n", w->heading);
    for (int i = 0; i < t->count; i++) {
        fprintf(out, "  %-*s %s\n", w->width, t->name(i), t->summary(i));
        kl_params_print(t->params(i), w->width, out);
    }
}
