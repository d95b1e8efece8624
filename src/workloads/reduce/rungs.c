/*
 * The reduction ladder's rungs (kernels/opencl/reduce/, each file's Change
 * block says what it adds) and how many work-groups each launches.
 */
#include <string.h>

#include "core/ladder.h"
#include "workloads/reduce/reduce.h"

/* clang-format off */
#define P_WG  {"WG", 256, 1, 1024, 1, 1, "work-group size"}
#define P_GPC {"GPC", 8, 1, 64, 1, 0, "work-groups per compute unit"}
/* clang-format on */

static const struct kl_reduce_rung rungs[] = {
    {.name = "00_host",
     .summary = "a loop on the host, one thread, eight accumulators",
     .geometry = KL_RED_HOST},
    {.name = "01_interleaved",
     .summary = "tree in local memory, interleaved addressing, divergent test; pass after pass",
     .file = "opencl/reduce/01_interleaved.cl",
     .geometry = KL_RED_PER_ITEM,
     .per = 1,
     .params = {P_WG}},
    {.name = "02_strided",
     .summary = "interleaved addressing without divergence (bank conflicts instead)",
     .file = "opencl/reduce/02_strided.cl",
     .geometry = KL_RED_PER_ITEM,
     .per = 1,
     .params = {P_WG}},
    {.name = "03_sequential",
     .summary = "sequential addressing: no bank conflicts, no divergence",
     .file = "opencl/reduce/03_sequential.cl",
     .geometry = KL_RED_PER_ITEM,
     .per = 1,
     .params = {P_WG}},
    {.name = "04_first_add",
     .summary = "two elements per work-item, combined as they are loaded",
     .file = "opencl/reduce/04_first_add.cl",
     .geometry = KL_RED_PER_ITEM,
     .per = 2,
     .params = {P_WG}},
    {.name = "05_subgroup",
     .summary = "the last steps by sub-group (cl_khr_subgroups; warp shuffles on CUDA)",
     .file = "opencl/reduce/05_subgroup.cl",
     .geometry = KL_RED_PER_ITEM,
     .per = 2,
     .needs_subgroups = 1,
     .params = {P_WG}},
    {.name = "06_unrolled",
     .summary = "the work-group size a constant of the build: every loop unrolled",
     .file = "opencl/reduce/06_unrolled.cl",
     .geometry = KL_RED_PER_ITEM,
     .per = 2,
     .params = {P_WG}},
    {.name = "07_grid_stride",
     .summary = "many elements per work-item: resident groups striding over the array",
     .file = "opencl/reduce/07_grid_stride.cl",
     .geometry = KL_RED_RESIDENT,
     .per = 1,
     .params = {P_WG, P_GPC}},
    {.name = "08_vector",
     .summary = "vector loads, four elements each, into four accumulators",
     .file = "opencl/reduce/08_vector.cl",
     .geometry = KL_RED_RESIDENT,
     .per = 4,
     .params = {P_WG, P_GPC}},
    {.name = "09_one_pass",
     .summary = "one launch: the last group to finish (an atomic count) reduces the others'",
     .file = "opencl/reduce/09_one_pass.cl",
     .geometry = KL_RED_RESIDENT,
     .per = 4,
     .one_pass = 1,
     .params = {P_WG, P_GPC}},
    {.name = "10_in_flight",
     .summary = "U vector loads in flight per work-item before any is used: the read ceiling",
     .file = "opencl/reduce/10_in_flight.cl",
     .geometry = KL_RED_RESIDENT,
     .per = 4,
     .one_pass = 1,
     .params = {P_WG, P_GPC, {"U", 4, 1, 16, 1, 0, "vector loads in flight per work-item"}},
     /* the tuner's best on an H200 (2^30 floats, 2026-12-04): 1.01x the defaults; 1.006 to
        1.008x CUB in the same run (docs/RESULTS.md) */
     .preset = {90, "WG=1024,GPC=32,U=2"}},
};

KL_RUNG_TABLE_FILES(reduce, struct kl_reduce_rung, rungs, NULL);

long kl_reduce_groups(const struct kl_reduce_rung *r, const int *v, long m, unsigned cus)
{
    long wg = kl_param_value(r->params, v, "WG"), per = r->per > 0 ? r->per : 1;
    long cover = (m + per * wg - 1) / (per * wg); /* groups that leave no work-item idle */
    if (r->geometry != KL_RED_RESIDENT)
        return cover;
    long resident = kl_param_value(r->params, v, "GPC") * (long)(cus ? cus : 1);
    return cover < resident ? cover : resident;
}

static const char *const op_names[] = {"sum", "min", "max"};

const char *kl_reduce_op_name(enum kl_reduce_op op)
{
    return op_names[op];
}

int kl_reduce_op_parse(const char *name)
{
    for (int i = 0; i < 3; i++)
        if (name && strcmp(name, op_names[i]) == 0)
            return i;
    return -1;
}
