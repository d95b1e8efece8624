/*
 * The Gaussian blur's rung table: from the seed's direct 2-D filter to
 * separable, tiled, fused and register-blocked passes, each rung's kernel
 * file, its kind of launch, its local memory and its parameters.
 */
#include "workloads/blur/blur.h"

#include "core/ladder.h"
#include "workloads/blur/bound.h"

/* clang-format off */
#define P_BX {"BX", 16, 1, 1024, 1, 0, "work-group width (pixels)"}
#define P_BY {"BY", 16, 1, 1024, 1, 0, "work-group height (pixels)"}
/* The PX of the fused rungs: floats per ITEM, with rung 07's rule (px_of). */
#define P_PXF(DEF, ITEM) {"PX", DEF, 1, 8, 1, 1, "floats per " ITEM " along x (uchar4: PX/4 pixels, at least 1), halved while 2R+1 rows of them exceed 64 floats"}
/* Rungs 13, 13cl and 14: strips of 16 columns walked down by warps. */
#define P_MMA_WX {"WX", 4, 1, 32, 1, 0, "strips of 16 columns side by side per block"}
#define P_MMA_CW {"CW", 4, 1, 4, 1, 1, "channels per warp (1, 2 or 4): 4/CW warps per strip"}
#define P_MMA_SH {"SH", 128, 1, 65536, 1, 0, "rows per strip (a warp walks down them, 16 at a time)"}
#define P_MMA_MB {"MB", 1, 1, 16, 1, 0, "blocks per multiprocessor the compiler keeps registers for (__launch_bounds__)"}
/* clang-format on */

static const struct kl_blur_rung rungs[] = {
    {.name = "01_naive",
     .summary = "2-D convolution, (2R+1)² taps per pixel, every tap and weight read from global "
                "memory",
     .file = "opencl/blur/01_naive.cl",
     .kind = KL_BLUR_2D,
     .params = {P_BX, P_BY}},
    {.name = "02_constant",
     .summary = "the weights in __constant memory, broadcast to every work-item",
     .file = "opencl/blur/02_constant.cl",
     .kind = KL_BLUR_2D,
     .weights_constant = 1,
     .params = {P_BX, P_BY}},
    {.name = "03_separable",
     .summary = "two 1-D passes (rows, then columns): 2·(2R+1) taps instead of (2R+1)²",
     .file = "opencl/blur/03_separable.cl",
     .kind = KL_BLUR_SEPARABLE,
     .params = {P_BX, P_BY}},
    {.name = "04_tiled2d",
     .summary = "2-D convolution from a tile with halo in local memory: each input read once "
                "per work-group",
     .file = "opencl/blur/04_tiled2d.cl",
     .kind = KL_BLUR_2D,
     .weights_constant = 1,
     .local = KL_BLUR_LOCAL_TILE,
     .params = {P_BX, P_BY},
     /* kladder tune on an H100 through NVIDIA's OpenCL, float pictures (docs/RESULTS.md):
        1.38x the defaults at σ 2 and 1.39x at σ 8. */
     .presets = {{90, 24, "BX=32,BY=8"}}},
    {.name = "05_tiled_sep",
     .summary = "separable passes from row and column segments in local memory",
     .file = "opencl/blur/05_tiled_sep.cl",
     .kind = KL_BLUR_SEPARABLE,
     .local = KL_BLUR_LOCAL_ROWCOL,
     .params = {P_BX, P_BY},
     /* The same search: 1.15x at σ 2, 1.17x at σ 8 with taller groups. */
     .presets = {{90, 6, "BX=32,BY=4"}, {90, 24, "BX=32,BY=8"}}},
    {.name = "06_vector",
     .summary = "PX pixels per work-item: a sliding window in registers, vector loads",
     .file = "opencl/blur/06_vector.cl",
     .kind = KL_BLUR_SEPARABLE,
     .px = 1,
     .params = {P_BX, P_BY, {"PX", 4, 1, 8, 1, 1, "pixels per work-item along x"}},
     /* The same search: 1.27x at σ 2 with two pixels a work-item; at σ 8 the defaults were
        within 2 % of its best. */
     .presets = {{90, 6, "BX=32,BY=8,PX=2"}}},
    {.name = "07_fused",
     .summary = "one pass: each work-item slides a window of 2R+1 row results down a strip of "
                "SY rows, rows staged in local memory; each input read about once",
     .file = "opencl/blur/07_fused.cl",
     .kind = KL_BLUR_FUSED,
     .local = KL_BLUR_LOCAL_ROWS2,
     .px = 2,
     .sy = 1,
     .params = {{"BX", 64, 1, 1024, 1, 0, "work-group width (work-items)"},
                P_PXF(2, "work-item"),
                {"SY", 64, 1, 4096, 1, 0, "rows per work-item (the strip's height)"},
                {"PF", 1, 1, 8, 1, 0,
                 "input rows loaded ahead per work-item (at most 64/(2R+1), 1 for large radii)"}}},
    {.name = "08_image",
     .summary = "the row pass reads an image object through a sampler that clamps at the "
                "edges (texture cache)",
     .file = "opencl/blur/08_image.cl",
     .kind = KL_BLUR_IMAGE,
     .params = {P_BX, P_BY}},
    {.name = "09_async",
     .summary = "CUDA: 07's strips with input rows copied into shared memory by cp.async, ST "
                "rows in flight per block instead of one loaded through registers",
     .file = "cuda/blur/09_async.cu",
     .kind = KL_BLUR_FUSED,
     .local = KL_BLUR_LOCAL_STAGED,
     .px = 2,
     .sy = 1,
     .params = {{"BX", 128, 1, 1024, 1, 0, "block width (threads)"},
                P_PXF(4, "thread"),
                {"SY", 64, 1, 4096, 1, 0, "rows per thread (the strip's height)"},
                {"ST", 4, 2, 16, 1, 0, "input rows staged in shared memory (ST - 1 in flight)"}}},
    {.name = "10_tile",
     .summary = "CUDA: tiles of WY·RY rows staged whole in shared memory by cp.async before any "
                "arithmetic, as a copy issues its loads; the row pass in place, then a register "
                "window down the columns",
     .file = "cuda/blur/10_tile.cu",
     .kind = KL_BLUR_FUSED,
     .local = KL_BLUR_LOCAL_TILE_ROWS,
     .px = 2,
     .sy = 1,
     .params = {{"WY", 4, 1, 32, 1, 0,
                 "warps per block, one above the other (each a row of 32 threads)"},
                P_PXF(4, "thread"),
                {"RY", 8, 1, 64, 1, 0, "output rows per thread; a tile has WY·RY rows"}},
     /* An H100's sweep of float pictures (docs/RESULTS.md): taller tiles from radius 7 on, where
        the halo's 2R rows weigh on a tile of 32 rows. */
     .presets = {{90, 6, ""}, {90, 12, "WY=8,RY=16"}}},
    {.name = "11_half2",
     .summary = "CUDA, 8-bit pixels: the column pass first on exact integers, both passes in "
                "packed half2 (two channels per FMA), taps paired by weight; run where the "
                "host's error bound keeps every output within one level",
     .file = "cuda/blur/11_half2.cu",
     .kind = KL_BLUR_FUSED,
     .local = KL_BLUR_LOCAL_TILE_COLS,
     .px = 1,
     .precision = KL_PREC_FP16,
     .rgba8_only = 1,
     .params = {{"WY", 4, 1, 32, 1, 0,
                 "warps per block, one above the other (each a row of 32 threads)"},
                {"RX", 4, 1, 8, 1, 1, "pixels per thread in the row pass"},
                {"RY", 8, 1, 64, 1, 0, "rows per warp; a tile has WY·RY rows"}},
     /* An H100's sweep (docs/RESULTS.md): shorter tiles, 8-9% faster at σ 1 and 2. */
     .presets = {{90, 6, "RY=4"}}},
    {.name = "12_regblock",
     .summary = "CUDA: register-blocked passes (RX row results and CY rows of four columns per "
                "thread, every tap index known at compile time) over strips streamed through "
                "shared memory in chunks, halo rows row-passed once per strip: nearly every "
                "instruction an FMA",
     .file = "cuda/blur/12_regblock.cu",
     .kind = KL_BLUR_FUSED,
     .local = KL_BLUR_LOCAL_STRIPS,
     .params = {{"TW", 128, 4, 1024, 4, 0, "strip width (pixels); one block per strip and channel"},
                {"RX", 16, 4, 64, 4, 0, "row-pass results per thread"},
                {"CH", 16, 1, 256, 1, 0, "rows per chunk (a step of the strip)"},
                {"CY", 4, 1, 64, 1, 0, "column-pass rows per thread (of four columns)"},
                {"SH", 256, 1, 65536, 1, 0, "strip height (rows); a multiple of CH"},
                {"NT", 128, 32, 1024, 32, 0, "threads per block"}},
     .multiples = {{"TW", "RX"}, {"CH", "CY"}, {"SH", "CH"}},
     /* An H100's sweep (docs/RESULTS.md): the defaults up to radius 24; at 48, where the 2R
        halo rows each strip row-passes weigh on 256 rows, strips of 1024 (13% faster for float
        pictures). Larger radii were not measured. */
     .presets = {{90, 24, ""}, {90, 48, "SH=1024"}}},
    {.name = "13_mma",
     .summary = "CUDA, 8-bit pixels: both passes on the tensor cores (mma.sync, half products, "
                "FP32 sums), tiles of pixels times a banded weight matrix held in registers; the "
                "row pass's results are the column pass's operands without leaving registers; "
                "run where the host's error bound keeps every output within one level",
     .file = "cuda/blur/13_mma.cu",
     .kind = KL_BLUR_FUSED,
     .precision = KL_PREC_FP16,
     .tensor = 1,
     .rgba8_only = 1,
     .params = {P_MMA_WX, P_MMA_CW, P_MMA_SH, P_MMA_MB},
     /* An H100's sweep (docs/RESULTS.md): longer strips as the halo of 16·NK - 16 rows grows;
        up to radius 8 (NK = 2), 128 registers, so four blocks fit a multiprocessor. */
     .presets = {{90, 8, "SH=512,MB=4"},
                 {90, 12, "SH=512"},
                 {90, KL_BLUR_MMA_MAX_RADIUS, "SH=1024"}}},
    {.name = "13cl_mma",
     .summary = "rung 13 in OpenCL C: mma.sync through inline PTX (NVIDIA only), the same "
                "products and bound",
     .file = "opencl/blur/13cl_mma.cl",
     .kind = KL_BLUR_FUSED,
     .precision = KL_PREC_FP16,
     .tensor = 1,
     .rgba8_only = 1,
     .params = {P_MMA_WX, P_MMA_CW, P_MMA_SH},
     /* An H100 through NVIDIA's OpenCL (docs/RESULTS.md), which gives it 148 registers where
        NVRTC gives it 120: the default strips up to radius 8, longer ones above. */
     .presets = {{90, 8, ""}, {90, KL_BLUR_MMA_MAX_RADIUS, "SH=1024"}}},
    {.name = "14_mma_split",
     .summary = "CUDA, float pixels: rung 13's passes on the tensor cores, every value and weight "
                "split into two halves and three products taken (FP32 sums, each block's own): "
                "float-accurate; run where the host's error bound keeps every output within the "
                "float tolerance",
     .file = "cuda/blur/14_mma_split.cu",
     .kind = KL_BLUR_FUSED,
     .precision = KL_PREC_3XFP16,
     .tensor = 1,
     .float_only = 1,
     .params = {P_MMA_WX,
                P_MMA_SH,
                P_MMA_MB,
                {"SA", 2, 1, 2, 1, 0,
                 "accumulators of the small products: 2 runs two chains of NK instructions, 1 one "
                 "of 2NK in fewer registers"}},
     /* An H100's sweep (docs/RESULTS.md): strips of 512 rows up to radius 6; at 12, strips of
        256 and 128 registers (four blocks a multiprocessor); strips of 1024 from radius 18,
        where the halo of 16·NK - 16 rows weighs most; at 48, where registers spill, one
        accumulator of the small products. */
     .presets = {{90, 6, "SH=512"},
                 {90, 12, "SH=256,MB=4"},
                 {90, 36, "SH=1024"},
                 {90, KL_BLUR_MMA_MAX_RADIUS, "SH=1024,SA=1"}}},
};

KL_RUNG_TABLE_FILES(blur, struct kl_blur_rung, rungs, NULL);
