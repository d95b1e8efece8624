/*
 * The softmax ladder's rungs (kernels/opencl/softmax/, each file's Change
 * block says what it adds), the work-groups each launches, and the rule
 * that sizes the rungs that hold a row to the row.
 */
#include <stdio.h>

#include "core/ladder.h"
#include "workloads/softmax/softmax.h"

/* clang-format off */
#define P_WG(d) {"WG", d, 1, 1024, 1, 1, "work-items a work-group"}
#define P_NT(d) {"NT", d, 32, 1024, 32, 0, "work-items a work-group"}
#define P_V(d) {"V", d, 1, 16, 1, 0, "vectors of 4 elements each work-item holds"}
#define P_VS {"VS", 0, 0, 16, 1, 0, "vectors of 4 elements each thread holds in shared memory"}
#define P_CL {"CL", 8, 1, 8, 1, 0, "blocks a cluster (a row's)"}
/* clang-format on */

static const struct kl_softmax_rung rungs[] = {
    {.name = "01_three_pass",
     .summary = "a work-item per row: its center, the spread about it, the output",
     .file = "opencl/softmax/01_three_pass.cl",
     .shape = KL_ROW_PER_ITEM,
     .params = {P_WG(64)}},
    {.name = "02_online",
     .summary = "a work-item per row, the statistics online: two passes",
     .file = "opencl/softmax/02_online.cl",
     .shape = KL_ROW_PER_ITEM,
     .params = {P_WG(64)}},
    {.name = "03_group",
     .summary = "a work-group per row, along it: coalesced, merged statistics",
     .file = "opencl/softmax/03_group.cl",
     .shape = KL_ROW_PER_GROUP,
     .params = {P_WG(32)}},
    {.name = "04_registers",
     .summary = "the row held in a work-group's registers: read once, written once",
     .file = "opencl/softmax/04_registers.cl",
     .shape = KL_ROW_IN_GROUP,
     .params = {P_NT(256), P_V(4)}},
    {.name = "05_cluster",
     .summary = "(CUDA, sm_90a) a long row held by a cluster, merged over DSMEM",
     .file = "cuda/softmax/05_cluster.cu",
     .shape = KL_ROW_IN_CLUSTER,
     .params = {P_NT(512), P_V(8), P_VS, P_CL}},
};

KL_RUNG_TABLE_FILES(softmax, struct kl_softmax_rung, rungs, NULL);

void kl_softmax_geometry(const struct kl_softmax_rung *r, const int *v, int rows, size_t *wg,
                         long *groups)
{
    switch (r->shape) {
    case KL_ROW_PER_ITEM:
        *wg = (size_t)kl_param_value(r->params, v, "WG");
        *groups = (rows + (long)*wg - 1) / (long)*wg;
        break;
    case KL_ROW_PER_GROUP:
        *wg = (size_t)kl_param_value(r->params, v, "WG");
        *groups = rows;
        break;
    case KL_ROW_IN_GROUP:
        *wg = (size_t)kl_param_value(r->params, v, "NT");
        *groups = rows;
        break;
    case KL_ROW_IN_CLUSTER:
        *wg = (size_t)kl_param_value(r->params, v, "NT");
        *groups = (long)rows * kl_param_value(r->params, v, "CL");
        break;
    }
}

/* The work-items, in 32s from 32 to most, that hold vectors at v a work-item. */
static int holders(long vectors, int v, int most)
{
    long nt = ((vectors + v - 1) / v + 31) / 32 * 32;
    return nt < 32 ? 32 : nt > most ? most : (int)nt;
}

void kl_softmax_rule(const struct kl_softmax_rung *r, int cols, int bytes, int *v, char *config,
                     size_t n)
{
    int iv = kl_param_index(r->params, "V"), nt = kl_param_index(r->params, "NT");
    int icl = kl_param_index(r->params, "CL"), ivs = kl_param_index(r->params, "VS");
    long nvec = cols / 4;
    if (r->shape == KL_ROW_IN_GROUP) {
        /* 64 bytes a work-item (4 vectors of floats, 8 of 2-byte elements), so that a row
           of halfs has the work-items, and the reductions, of a row of floats of its bytes
           (on an H200, halfs' layer norm at 4096 columns: 2236 GB/s at NT=128 V=8, 1918 at
           NT=256 V=4; softmax 2344 and 2359); 8 vectors past 1024 work-items */
        v[iv] = nvec > 4L * 1024 || bytes < 4 ? 8 : 4;
        v[nt] = holders(nvec, v[iv], 1024);
        snprintf(config, n, "rule for %d columns: NT=%d V=%d", cols, v[nt], v[iv]);
    } else if (r->shape == KL_ROW_IN_CLUSTER) {
        /* 128 bytes a thread in registers as stored (8 vectors of floats, 16 of 2-byte
           elements): the fewest blocks of 512 threads that hold the row in registers alone,
           where 8 or fewer do; past that, 8 blocks holding the rest of their shares in shared
           memory (at most as many vectors again). Registers before shared memory: on an H100
           at 32k to 256k columns no row ran slower on twice the blocks without shared memory
           than on blocks holding half their share there, and 13 of 18 ran 1.5-6.7 % faster
           (docs/RESULTS.md, 2026-12-07) */
        const long vr = bytes < 4 ? 16 : 8;
        long cl = (nvec + vr * 512 - 1) / (vr * 512), share, vs = 0;
        cl = cl < 1 ? 1 : cl > 8 ? 8 : cl;
        share = (nvec + cl - 1) / cl;
        if (share > vr * 512)
            vs = (share + 511) / 512 - vr;
        v[iv] = (int)vr;
        v[ivs] = vs > vr ? (int)vr : (int)vs;
        v[icl] = (int)cl;
        v[nt] = holders(share, v[iv] + v[ivs], 512);
        snprintf(config, n, "rule for %d columns: NT=%d V=%d VS=%d CL=%d", cols, v[nt], v[iv],
                 v[ivs], v[icl]);
    }
}
