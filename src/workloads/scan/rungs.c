/*
 * The prefix-scan ladder's rungs (kernels/opencl/scan/, each file's Change
 * block says what it adds), their tiles and their state.
 */
#include "core/ladder.h"
#include "workloads/scan/scan.h"

/* clang-format off */
#define P_WG  {"WG", 256, 1, 1024, 1, 1, "work-group size"}
#define P_PER {"PER", 8, 1, 32, 1, 0, "elements per work-item in a tile"}
/* clang-format on */

static const struct kl_scan_rung rungs[] = {
    {.name = "00_host", .summary = "a loop on the host, one thread", .geometry = KL_SCAN_HOST},
    {.name = "01_hillis_steele",
     .summary = "Hillis and Steele's scan in local memory, one work-group for the whole array",
     .file = "opencl/scan/01_hillis_steele.cl",
     .geometry = KL_SCAN_ONE_GROUP,
     .per = 1,
     .params = {P_WG}},
    {.name = "02_blelloch",
     .summary = "Blelloch's work-efficient up- and down-sweep, still one work-group",
     .file = "opencl/scan/02_blelloch.cl",
     .geometry = KL_SCAN_ONE_GROUP,
     .per = 2,
     .params = {P_WG}},
    {.name = "03_three_phase",
     .summary = "a work-group per tile in three launches: reduce, scan the sums, scan and add",
     .file = "opencl/scan/03_three_phase.cl",
     .geometry = KL_SCAN_PHASES,
     .params = {P_WG, P_PER}},
    {.name = "04_subgroup",
     .summary = "the work-groups' scans by sub-groups (cl_khr_subgroups; warp shuffles on CUDA)",
     .file = "opencl/scan/04_subgroup.cl",
     .geometry = KL_SCAN_PHASES,
     .needs_subgroups = 1,
     .params = {P_WG, P_PER}},
    {.name = "05_look_back",
     .summary = "one pass: decoupled look-back over tiles in the order taken, vector loads",
     .file = "opencl/scan/05_look_back.cl",
     .geometry = KL_SCAN_LOOK_BACK,
     /* V = 8: the tuner's best on an H200 (2^28 ints, 2026-12-04), 1.51x V = 2 */
     .params = {P_WG, {"V", 8, 1, 16, 1, 0, "vector loads (4 elements each) per work-item"}}},
};

KL_RUNG_TABLE_FILES(scan, struct kl_scan_rung, rungs, NULL);

long kl_scan_tile(const struct kl_scan_rung *r, const int *v)
{
    long wg = kl_param_value(r->params, v, "WG");
    switch (r->geometry) {
    case KL_SCAN_ONE_GROUP: return wg * r->per;
    case KL_SCAN_PHASES: return wg * kl_param_value(r->params, v, "PER");
    case KL_SCAN_LOOK_BACK: return wg * 4 * kl_param_value(r->params, v, "V");
    default: return 1;
    }
}

long kl_scan_groups(const struct kl_scan_rung *r, const int *v, long n)
{
    long tile = kl_scan_tile(r, v);
    return r->geometry == KL_SCAN_ONE_GROUP ? 1 : (n + tile - 1) / tile;
}

long kl_scan_state_words(const struct kl_scan_rung *r, const int *v, long n)
{
    long groups = kl_scan_groups(r, v, n);
    if (r->geometry == KL_SCAN_PHASES)
        return groups; /* each tile's sum */
    if (r->geometry == KL_SCAN_LOOK_BACK)
        return 2 + 2 * groups; /* the counter, a pad, each tile's 64-bit status */
    return 1;
}

long kl_scan_local_bytes(const struct kl_scan_rung *r, const int *v)
{
    long wg = kl_param_value(r->params, v, "WG"), values;
    if (r->geometry == KL_SCAN_ONE_GROUP)
        values = 2 * wg; /* 01's two buffers, 02's tree of 2·WG */
    else if (r->geometry == KL_SCAN_PHASES && r->needs_subgroups)
        values = wg + 1; /* 04: the sub-groups' totals */
    else if (r->geometry == KL_SCAN_PHASES)
        values = kl_scan_tile(r, v) + wg; /* 03: the tile and the work-items' totals */
    else if (r->geometry == KL_SCAN_LOOK_BACK)
        values = kl_param_value(r->params, v, "V") * (wg + 1) + 2 * 32 + 4; /* rounds, window */
    else
        return 0;
    return 4 * values;
}
