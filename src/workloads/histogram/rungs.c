/*
 * The histogram ladder's rungs (kernels/opencl/histogram/, each file's
 * Change block says what it adds) and how many work-groups each launches.
 */
#include "core/ladder.h"
#include "workloads/histogram/histogram.h"

/* clang-format off */
#define P_WG  {"WG", 256, 1, 1024, 1, 1, "work-group size"}
#define P_GPC {"GPC", 8, 1, 64, 1, 0, "work-groups per compute unit"}
/* clang-format on */

static const struct kl_histogram_rung rungs[] = {
    {.name = "00_host", .summary = "a loop on the host, one thread", .geometry = KL_HIST_HOST},
    {.name = "01_global_atomics",
     .summary = "a work-item per byte, one atomic on its global counter",
     .file = "opencl/histogram/01_global_atomics.cl",
     .geometry = KL_HIST_PER_BYTE,
     .params = {P_WG}},
    {.name = "02_local",
     .summary = "a private histogram per work-group in local memory, merged once",
     .file = "opencl/histogram/02_local.cl",
     .geometry = KL_HIST_RESIDENT,
     .per = 1,
     .params = {P_WG, P_GPC}},
    {.name = "03_subgroup",
     .summary = "a histogram per 32 work-items (a sub-group), a bank apart",
     .file = "opencl/histogram/03_subgroup.cl",
     .geometry = KL_HIST_RESIDENT,
     .per = 1,
     .params = {P_WG, P_GPC}},
    {.name = "04_vector_runs",
     .summary = "16 bytes a load; runs of one bin counted with one atomic",
     .file = "opencl/histogram/04_vector_runs.cl",
     .geometry = KL_HIST_RESIDENT,
     .per = 16,
     .params = {P_WG, P_GPC}},
};

KL_RUNG_TABLE_FILES(histogram, struct kl_histogram_rung, rungs, NULL);

long kl_histogram_groups(const struct kl_histogram_rung *r, const int *v, long n, unsigned cus)
{
    long wg = kl_param_value(r->params, v, "WG"), per = r->per > 0 ? r->per : 1;
    long cover = (n / per + wg - 1) / wg; /* groups that leave no work-item idle */
    if (cover < 1)
        cover = 1; /* fewer than per bytes: one group counts them one at a time */
    if (r->geometry != KL_HIST_RESIDENT)
        return cover;
    long resident = kl_param_value(r->params, v, "GPC") * (long)(cus ? cus : 1);
    return cover < resident ? cover : resident;
}
