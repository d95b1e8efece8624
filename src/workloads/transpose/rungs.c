/*
 * The transpose ladder's rungs (kernels/opencl/transpose/, each file's
 * Change block says what it adds) and the work-groups each launches.
 */
#include "core/ladder.h"
#include "workloads/transpose/transpose.h"

/* clang-format off */
#define P_TILES {"TILES", 4, 1, 16, 1, 0, "tiles of 128 bytes square per block, down a column"}
#define P_NT {"NT", 128, 32, 1024, 1, 1, "threads per block"}
#define P_TILE(d) {"TILE", d, 8, 128, 1, 1, "tile side, elements"}
#define P_ROWS(d) {"ROWS", d, 1, 64, 1, 1, "work-items down a tile (each takes TILE/ROWS rows)"}
/* clang-format on */

static const struct kl_transpose_rung rungs[] = {
    {.name = "00_host", .summary = "a loop on the host, one thread"},
    {.name = "01_naive",
     .summary = "an element per work-item: coalesced reads, writes a row apart",
     .file = "opencl/transpose/01_naive.cl",
     .params = {P_TILE(32), P_ROWS(8)}},
    {.name = "02_tiled",
     .summary = "a tile through local memory: both sides coalesced",
     .file = "opencl/transpose/02_tiled.cl",
     .tiled = 1,
     .params = {P_TILE(32), P_ROWS(8)}},
    {.name = "03_padded",
     .summary = "the tile a word wider: no bank conflicts down a column",
     .file = "opencl/transpose/03_padded.cl",
     .tiled = 1,
     .params = {P_TILE(32), P_ROWS(8)}},
    {.name = "04_swizzled",
     .summary = "the tile swizzled (column c^r): no conflicts, no padding",
     .file = "opencl/transpose/04_swizzled.cl",
     .tiled = 1,
     .params = {P_TILE(32), P_ROWS(8)}},
    {.name = "05_vector",
     .summary = "16-byte loads and stores, a 64 x 64 swizzled tile",
     .file = "opencl/transpose/05_vector.cl",
     .tiled = 1,
     .vector = 1,
     .params = {P_TILE(64), P_ROWS(16)}},
    {.name = "06_tma",
     .summary = "(CUDA, sm_90a) tiles copied in and out by TMA, transposed in shared memory",
     .file = "cuda/transpose/06_tma.cu",
     .tma = 1,
     .params = {P_TILES, P_NT}},
};

KL_RUNG_TABLE_FILES(transpose, struct kl_transpose_rung, rungs, NULL);

void kl_transpose_geometry(const struct kl_transpose_rung *r, const int *v, int m, int n, size_t es,
                           size_t local[2], long *groups)
{
    if (r->tma) {
        long tile = 128 / (long)es, tiles = kl_param_value(r->params, v, "TILES");
        local[0] = (size_t)kl_param_value(r->params, v, "NT");
        local[1] = 1;
        *groups = (((m + tile - 1) / tile + tiles - 1) / tiles) * ((n + tile - 1) / tile);
        return;
    }
    long tile = kl_param_value(r->params, v, "TILE");
    long across = r->vector ? tile / (long)(16 / es) : tile; /* work-items along a row */
    local[0] = (size_t)(across > 0 ? across : 1);
    local[1] = (size_t)kl_param_value(r->params, v, "ROWS");
    *groups = ((m + tile - 1) / tile) * ((n + tile - 1) / tile);
}
