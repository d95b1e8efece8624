/*
 * Where a GEMM rung's values come from: --param, the tuned cache, the
 * rung's preset for this device and size (its table in gemm/rungs.c), or
 * its defaults.
 */
#include "workloads/gemm/parts.h"

#include <stdio.h>
#include <string.h>

#include "cuda/gemm/schedule.h" /* the kernels' own: stream-K's plan, for its rule */
#include "tune/cache.h"

/* A rung's parameter values: defaults, the user's items, then the constraints between them. */
enum kl_status kl_gemm_resolve(const struct kl_gemm_rung *r, const char *const *items, int nitems,
                               int *values, unsigned *mask, struct kl_err *e)
{
    enum kl_status st = kl_params_resolve(r->name, r->params, items, nitems, values, mask, e);
    return st != KL_OK ? st
                       : kl_params_check_multiples(r->name, r->params, values, r->multiples, e);
}

enum kl_status kl_gemm_resolve_items(const struct kl_gemm_rung *r, const char *const *items,
                                     int nitems, int *values, struct kl_err *e)
{
    const struct kl_param_def *list = r->params;
    unsigned mask;
    enum kl_status st = kl_params_check_known(items, nitems, &list, 1, e);
    return st != KL_OK ? st : kl_gemm_resolve(r, items, nitems, values, &mask, e);
}

const struct kl_gemm_preset *kl_gemm_preset_find(const struct kl_gemm_rung *r,
                                                 const struct kl_device_info *dev, enum kl_type t,
                                                 int M, int N, int K)
{
    int cc = dev->cc_major * 10 + dev->cc_minor, cls = kl_tune_size_class(M, N, K);
    for (int i = 0; i < KL_MAX_PRESETS && r->presets[i].cc; i++)
        if (r->presets[i].cc == cc && r->presets[i].type == t && cls <= r->presets[i].max_class &&
            (!r->presets[i].max_m || M <= r->presets[i].max_m))
            return &r->presets[i];
    return NULL;
}

/*
 * Stream-K's rule for a rung whose SK the user left alone: SK=1 where
 * schedule.h's model has the stream's busiest block at least SK_PERCENT %
 * faster than data-parallel blocks, a partial tile left or added costing
 * SK_FIXUP slices; for a Hopper rung only where C is also a single row or
 * column of tiles (of the rung's units: rung 17's clusters); for rung 14
 * only on its reference blocks (128 x 256: the model's one block an SM).
 * Rung 14 (FFMA, slices of BK) reads 41 FLOP a byte of its blocks' slices,
 * which memory alone feeds at its 49 TFLOP/s, so the row of tiles does not
 * matter there. Measured on an H100 (docs/RESULTS.md, 2026-12-06), against
 * its data-parallel blocks: 1.11x at 4099 x 4111 x 4127 (561 blocks: 4.25
 * waves), 1.14x at 4095 x 4097 x 4093 (where the tiles' rule, applied
 * first, takes 128 x 128 blocks, 1.03x faster still), 1.08x at 6004 x 5002
 * x 3006, 1.29x at 3000^3 (split-K's four splits 1.16x), 3.7x at 128 x 8192
 * x 8192 (split-K's 3.5x), all chosen by the model; at the ten other shapes
 * of the sweep (whole waves, or 23.9 and 36.01 waves of 32 slices)
 * 0.955-1.007x, none chosen. Measured on an H200: where tiles of several
 * rows share columns of B (or of several columns rows of A), data-parallel
 * blocks run over the same slices at once and find them in L2, while
 * stream-K's run at different depths of K and read them again from memory:
 * at 4096^3 stream-K cost rung 17 22 % and rung 20 5 %, at 192 x 12288 x
 * 12288 (two rows of rung 20's tiles, 96 tiles on 132 SMs) 21 %, although
 * the model alone had it faster by 17 %. With one row of tiles (128 x 8192
 * x 8192: 32 to 64 tiles) it won 4 to 49 %.
 */
#define SK_FIXUP 8
#define SK_PERCENT 10

static int at_reference(const struct kl_gemm_rung *r, enum kl_type t, const int *values);

int kl_gemm_stream_k_rule(const struct kl_gemm_rung *r, const struct kl_device_info *dev,
                          enum kl_type t, int M, int N, int K, const int *values)
{
    const int sk = kl_param_index(r->params, "SK");
    if (sk < 0 || values[sk] || !dev->compute_units || (!r->hopper && !at_reference(r, t, values)))
        return 0;
    const int bm = kl_param_value(r->params, values, "BM");
    const int bn = kl_param_value(r->params, values, "BN");
    const int cluster = kl_param_index(r->params, "CLUSTER") >= 0
                            ? kl_param_value(r->params, values, "CLUSTER")
                            : 1;
    /* a slice: 32 elements (17, 18: TF32), 128 bytes of the inputs (20, and 22's int8), or
       BK elements (14) */
    const int slice = !r->hopper                   ? kl_param_value(r->params, values, "BK")
                      : r->local == KL_LOCAL_WGMMA ? 32
                      : r->ozaki                   ? 128
                                                   : 128 / (int)kl_type_size(t);
    const int rows = (M + bm - 1) / bm, cols = ((N + bn - 1) / bn + cluster - 1) / cluster;
    const int blocks = (int)dev->compute_units / cluster;
    return blocks > 0 && (!r->hopper || rows == 1 || cols == 1) &&
           kl_stream_k_pays(rows * cols, (K + slice - 1) / slice, blocks, SK_FIXUP, SK_PERCENT);
}

/*
 * Split-K's model: SPLITK = splits against 1 for rung r with values v (its
 * BM x BN blocks, slices of BK) on `units` compute units, a block on each at
 * once (rung 14's, at 249 registers a thread). Without splits, the blocks
 * of C take ceil(blocks / units) waves over all of K; with them,
 * ceil(splits * blocks / units) waves over a split's share. Against that
 * gain, each split's partial product of C is written and read once more:
 * 2 * splits * es bytes per element of C, where the product spent 2K FLOP,
 * at SPLIT_BALANCE FLOP per byte (an H200's FFMA rate over its memory's:
 * 48 TFLOP/s, 4.4 TB/s). Splits of fewer than four slices of K are no
 * gain (0). Measured on an H200 (docs/RESULTS.md): at 128 x 8192 x 8192
 * (32 blocks of 128 x 256) SPLITK=4 ran 3.7x as fast, the model's choice at
 * 3.9x; at 3000^3 (288 blocks: 2.2 waves) 1.22x, the model 1.26x; where
 * blocks fill whole waves (4096^3, 8191 x 8193 x 257) every split was
 * slower.
 */
#define SPLIT_BALANCE 11.0

double kl_gemm_split_gain(const struct kl_gemm_rung *r, const int *v, enum kl_type t, size_t units,
                          int M, int N, int K, int splits)
{
    const size_t bm = (size_t)kl_param_value(r->params, v, "BM");
    const size_t bn = (size_t)kl_param_value(r->params, v, "BN");
    const int bk = kl_param_value(r->params, v, "BK");
    const size_t blocks = ((size_t)M + bm - 1) / bm * (((size_t)N + bn - 1) / bn);
    const double es = (double)kl_type_size(kl_type_output(t));
    if (!units || !blocks || splits < 1 || K < 1)
        return 1.0;
    if ((K + bk - 1) / bk < 4 * splits)
        return 0.0;
    double whole = (double)((blocks + units - 1) / units);
    double split = (double)((splits * blocks + units - 1) / units) / splits;
    return whole / split / (1.0 + splits * es * SPLIT_BALANCE / K);
}

/*
 * Split-K's rule for rung 14 (CUDA; rung 13's OpenCL has no measurement to
 * fit) where stream-K's does not choose (off its reference tiles: its preset
 * for small products): the splits the model gains most with, at least 10 %,
 * among 2, 4, 8 and 16 (the tuner's values, and the measured ones); else 1.
 */
static int split_rule(const struct kl_gemm_rung *r, const struct kl_device_info *dev,
                      enum kl_type t, int M, int N, int K, const int *values)
{
    const int i = kl_param_index(r->params, "SPLITK");
    if (i < 0 || values[i] != 1 || !dev->compute_units || !kl_kernel_is_cuda(r->file))
        return 1;
    int best = 1;
    double gain = 1.1;
    for (int s = 2; s <= r->params[i].max; s *= 2) {
        double g = kl_gemm_split_gain(r, values, t, dev->compute_units, M, N, K, s);
        if (g > gain)
            best = s, gain = g;
    }
    return best;
}

/*
 * Tiles by shape: a rung's tiles, the first its reference (the default's, or
 * the preset's that the rung's large sizes take), each with its rate where
 * it fills whole waves against the reference's, how many run on a
 * multiprocessor at once and in clusters of how many blocks (along N). A
 * shape of t tiles in clusters of c takes ceil(ceil-by-c(t) / ((SMs / c) *
 * per_sm)) waves, each as long as a tile's area times per_sm over its rate;
 * the rule takes the tile the model has fastest where it gains TILE_PERCENT %
 * on the reference. Measured on an H200 (docs/RESULTS.md, 2026-12-05):
 * - rung 14's 128 x 128 blocks (two an SM) run 0.96x of its 128 x 256 at
 *   4096^3 and 3000^3, where both make the same waves, and 1.16x at 4095 x
 *   4097 x 4093, where N leaves a 33rd column of 128 x 256 blocks one column
 *   wide (5 waves against 4; the model 1.20x). They were measured at 4
 *   stages, two to an SM (at its sm_90 preset's 8, one would fit): the rule
 *   sets STAGES=4 with them. On an H100 they ran 1.03x of stream-K on
 *   128 x 256 blocks there (0.91x cuBLAS SGEMM; the two models 1.20x and
 *   1.19x): this rule comes first, and stream-K's takes the shapes it leaves
 *   on the reference blocks.
 * - rung 17's clusters of two (its sm_90 preset above class 30) gain 1 % at
 *   4096^3, 8 % at 8192^3 and 10 % at 12288^3 over single blocks; at 4095 x
 *   4097 x 4093 its 33 columns of 128-wide tiles pair into 17, 272 units on
 *   66 clusters: 5 waves where single blocks make 4 (528 on 132). There the
 *   preset ran 256.5 and 264 TFLOP/s, single blocks 279.6 (another day);
 *   the model 1.19x.
 * - rung 20 in half (at 4096^3 with ragged or part waves: the rates are
 *   fitted): 128 x 192 tiles 1.07x at 3000^3 and 1.11x at 192 x 12288 x
 *   12288, 128 x 64 1.65x at 128 x 8192 x 8192 (one row of tiles,
 *   memory-bound: 128 tiles stream B on 128 SMs); the model chooses these
 *   and keeps 128 x 256 at the other shapes measured. Its 128 x 128 tiles
 *   are left out: they ran far slower than such a model says at 3000^3
 *   (0.88x, the model 1.12x) and 192 x 12288 x 12288 (0.72x against 0.94x).
 * - rung 20 in fp8 (promoted sums: 128 x 192 its preset, as 256 columns of
 *   sums would not fit the registers twice): 128 x 128 ran 0.91x of it at
 *   8192^3 and 1.00x at 4096^3. At 16384 x 256 x 16384 and 256 x 16384 x
 *   16384 the preset ran 0.61x and 0.78x cuBLASLt: N = 256 leaves a second
 *   column of tiles 64 wide, M = 256 172 tiles on 132 SMs (2 waves), where
 *   128 x 128 tiles make 256 (2 waves of smaller tiles); the model 1.37x.
 * bf16, the other types and other GPUs than compute capability 9.0 are not
 * measured: no rule.
 */
struct tile_choice {
    const char *rung;
    enum kl_type type;
    struct kl_gemm_tile tile;
    int per_sm;
    double rate;
};
/* a rung's tiles in a type adjacent, its reference first */
static const struct tile_choice tile_choices[] = {
    {"14_warptile", KL_FLOAT, {128, 256, 0, 0}, 1, 1.0},
    {"14_warptile", KL_FLOAT, {128, 128, 4, 0}, 2, 0.96},
    {"17_wgmma_tf32", KL_FLOAT, {256, 128, 0, 2}, 1, 1.0},
    {"17_wgmma_tf32", KL_FLOAT, {256, 128, 0, 1}, 1, 0.95},
    {"20_wgmma", KL_HALF, {128, 256, 0, 0}, 1, 1.0},
    {"20_wgmma", KL_HALF, {128, 192, 0, 0}, 1, 0.87},
    {"20_wgmma", KL_HALF, {128, 64, 0, 0}, 1, 0.66},
    {"20_wgmma", KL_FP8, {128, 192, 0, 0}, 1, 1.0},
    {"20_wgmma", KL_FP8, {128, 128, 0, 0}, 1, 0.91},
};
#define TILE_PERCENT 5

/* The model's time of tile c at M x N on sms multiprocessors, in a 128 x 256 tile's waves. */
static double tile_time(const struct tile_choice *c, int M, int N, size_t sms)
{
    size_t bm = (size_t)c->tile.bm, bn = (size_t)c->tile.bn;
    size_t cluster = c->tile.cluster ? (size_t)c->tile.cluster : 1;
    size_t units = ((size_t)M + bm - 1) / bm * (((size_t)N + bn * cluster - 1) / (bn * cluster));
    size_t slots = sms / cluster * (size_t)c->per_sm, waves = (units + slots - 1) / slots;
    return (double)waves * (double)(bm * bn) * c->per_sm / c->rate / (128.0 * 256.0);
}

/* The first of rung r's tiles in type t: its reference; NULL where it has none. */
static const struct tile_choice *reference_tile(const struct kl_gemm_rung *r, enum kl_type t)
{
    for (size_t i = 0; i < sizeof tile_choices / sizeof *tile_choices; i++)
        if (strcmp(tile_choices[i].rung, r->name) == 0 && tile_choices[i].type == t)
            return &tile_choices[i];
    return NULL;
}

const struct kl_gemm_tile *kl_gemm_tile_rule(const struct kl_gemm_rung *r,
                                             const struct kl_device_info *dev, enum kl_type t,
                                             int M, int N)
{
    const struct tile_choice *first = reference_tile(r, t), *best = first;
    if (!first || dev->cc_major != 9 || !dev->compute_units || M < 1 || N < 1)
        return NULL;
    double best_time = tile_time(first, M, N, dev->compute_units) * (1.0 - TILE_PERCENT / 100.0);
    const struct tile_choice *end = tile_choices + sizeof tile_choices / sizeof *tile_choices;
    for (const struct tile_choice *c = first + 1;
         c < end && c->type == t && strcmp(c->rung, r->name) == 0; c++) {
        double time = tile_time(c, M, N, dev->compute_units);
        if (time < best_time)
            best = c, best_time = time;
    }
    return best == first ? NULL : &best->tile;
}

/* 1 where values hold rung r's reference tile in type t (its BM, BN and CLUSTER). */
static int at_reference(const struct kl_gemm_rung *r, enum kl_type t, const int *values)
{
    const struct tile_choice *ref = reference_tile(r, t);
    return ref && kl_param_value(r->params, values, "BM") == ref->tile.bm &&
           kl_param_value(r->params, values, "BN") == ref->tile.bn &&
           (!ref->tile.cluster ||
            kl_param_value(r->params, values, "CLUSTER") == ref->tile.cluster);
}

/*
 * Value NAME of rung r set to v by a rule; where that changes it, "NAME=v (RULE)" added to
 * config (n bytes, the first used of them taken), as kl_ladder_set_by_rule reads it. Config's
 * length after.
 */
static size_t rule_sets(const struct kl_gemm_rung *r, int *values, const char *name, int v,
                        const char *rule, char *config, size_t n, size_t used)
{
    int *at = &values[kl_param_index(r->params, name)];
    if (*at != v && used < n)
        used += (size_t)snprintf(config + used, n - used, "%s%s=%d (%s)", used ? " " : "", name, v,
                                 rule);
    *at = v;
    return used < n ? used : n - 1;
}

/*
 * The tiles' rule into values that are the defaults (config empty) or a preset's, where they
 * hold the rung's reference tile (a preset of its own tile keeps it: rung 17's for M <= 128);
 * config's length after.
 */
static size_t tile_rule(const struct kl_gemm_rung *r, const struct kl_device_info *dev,
                        const struct kl_gemm_request *q, int *values, char *config, size_t n)
{
    size_t used = strlen(config);
    const struct kl_gemm_tile *tile;
    if ((used && strncmp(config, "preset", 6) != 0) || !at_reference(r, q->type, values) ||
        !(tile = kl_gemm_tile_rule(r, dev, q->type, q->M, q->N)))
        return used;
    const char *names[] = {"BM", "BN", "STAGES", "CLUSTER"};
    const int sizes[] = {tile->bm, tile->bn, tile->stages, tile->cluster};
    for (int j = 0; j < 4; j++)
        if (sizes[j]) /* 0: as the values have it */
            used = rule_sets(r, values, names[j], sizes[j], "the tiles' rule", config, n, used);
    return used;
}

/*
 * The residual's rule for Hopper's 3xTF32 rung (18): PAD=0 where A's and B's
 * rows are whole 16-byte lines already (K and N multiples of 4, so that TMA
 * reads them as they are) and kernel pad's pass over A would cost more than
 * splitting A in shared memory does. The pass writes A's residual and the
 * product reads it again: 8 bytes an element of A, against the product's 2N
 * FLOP an element, so it adds 4 * RESID_BALANCE / N of the product's time
 * at RESID_BALANCE FLOP a byte (rung 18's 112 TFLOP/s over an H200's 4.3
 * TB/s); the split in shared memory cost 0-14 % where the pass replaced it
 * (an H100, docs/RESULTS.md, 2026-11-27), RESID_SPLIT_COST. So N below
 * about 690, on compute capability 9.0 (the only one rung 18 runs on).
 * Measured on an H200 (2026-12-05): at 16384 x 256 x 16384 the pass's 2
 * GiB (0.50 ms at the copy ceiling) is what rung 18 ran slower than at 256
 * x 16384 x 16384 (1.74 ms against 1.19: 1.55x SGEMM against 2.22x). With
 * PAD=0 by this rule, on an H100 (2026-12-05): 2.07x SGEMM there.
 */
#define RESID_BALANCE 26.0
#define RESID_SPLIT_COST 0.15

int kl_gemm_residual_rule(const struct kl_gemm_rung *r, const struct kl_device_info *dev,
                          const int *values, int N, int K)
{
    const int pad = kl_param_index(r->params, "PAD");
    return dev->cc_major == 9 && r->hopper && r->precision == KL_PREC_3XTF32 && pad >= 0 &&
           values[pad] == 1 && K > 8 && K % 4 == 0 && N % 4 == 0 &&
           4.0 * RESID_BALANCE / N > RESID_SPLIT_COST;
}

/*
 * The L2 rule for rung 20 (HINT; kernels/cuda/gemm/20_wgmma.cu, "L2"): HINT=3, C's stores
 * marked evict-first and A's and B's copies evict-last, where K is short: K <= L2_SHORT_K for
 * 2-byte inputs, L2_SHORT_K_8BIT for fp8 and int8. A tile's products take time in proportion
 * to K and its stores of C do not, so with K short C's lines stream through L2 faster than the
 * operands' are reused, and push them out. The crossing, K about 4 x the tensor rate / (2 x
 * the write bandwidth), is near 430 for bf16 on an H100, and twice that for the 8-bit types,
 * whose products run twice as fast into sums of the same 4 bytes.
 * Measured on an H100 (2026-12-07), HINT=3 against 0: at 16384 x 16384 x 256 1.14-1.23x as
 * fast in bf16, half, int8 and fp8; at K = 384 1.00-1.05x (bf16) and 1.22-1.25x (fp8); at K =
 * 509 and 512 1.01-1.02x (bf16); at K = 640 0.98-1.02x in bf16 and half, 1.05-1.06x in fp8,
 * 1.11x in int8; at K = 768 0.99-1.03x in fp8, 1.02-1.04x in int8; at K = 896 and 1024 from
 * 3 % slower to 1 % faster in both. At 4096^3 and 8192^3 from 6 % slower to 3 % faster (bf16
 * at 4096^3 slower in three samples of four), so the rule leaves them.
 */
#define L2_SHORT_K 512
#define L2_SHORT_K_8BIT 768

int kl_gemm_l2_rule(const struct kl_gemm_rung *r, const struct kl_device_info *dev, enum kl_type t,
                    const int *values, int K)
{
    const int hint = kl_param_index(r->params, "HINT");
    const int bound = kl_type_size(t) == 1 ? L2_SHORT_K_8BIT : L2_SHORT_K;
    return dev->cc_major == 9 && hint >= 0 && values[hint] == 0 && K <= bound;
}

void kl_gemm_schedule_rules(const struct kl_gemm_rung *r, const struct kl_device_info *dev,
                            const struct kl_gemm_request *q, int *values, char *config, size_t n)
{
    size_t used;
    int splits;
    if (strncmp(config, "tuned", 5) == 0)
        return;
    used = tile_rule(r, dev, q, values, config, n);
    if (kl_gemm_residual_rule(r, dev, values, q->N, q->K))
        used = rule_sets(r, values, "PAD", 0, "the residual's rule", config, n, used);
    if (kl_gemm_l2_rule(r, dev, q->type, values, q->K))
        used = rule_sets(r, values, "HINT", 3, "the L2 rule", config, n, used);
    if (kl_gemm_stream_k_rule(r, dev, q->type, q->M, q->N, q->K, values))
        rule_sets(r, values, "SK", 1, "stream-K's rule", config, n, used);
    else if ((splits = split_rule(r, dev, q->type, q->M, q->N, q->K, values)) > 1)
        rule_sets(r, values, "SPLITK", splits, "split-K's rule", config, n, used);
}

/* "WHAT NAME=V NAME=V" into config (n bytes). */
static void describe(char *config, size_t n, const char *what, const char *const *items, int nitems)
{
    size_t used = (size_t)snprintf(config, n, "%s", what);
    for (int j = 0; j < nitems && used < n; j++)
        used += (size_t)snprintf(config + used, n - used, " %s", items[j]);
}

/* Rung r's preset for the device, type and size: its values (the defaults for the rest) and
   config "preset sm_CC A=1 B=2"; config "" and values untouched where no preset applies. */
static enum kl_status preset_values(const struct kl_gemm_rung *r, const struct kl_device_info *dev,
                                    enum kl_type t, int M, int N, int K, int *values, char *config,
                                    size_t n, struct kl_err *e)
{
    const struct kl_gemm_preset *preset = kl_gemm_preset_find(r, dev, t, M, N, K);
    const char *items[KL_MAX_PARAMS];
    char buf[512], what[32];
    unsigned mask;
    int nitems;
    config[0] = '\0';
    if (!preset)
        return KL_OK;
    if ((nitems = kl_tuned_items(preset->params, buf, sizeof buf, items, KL_MAX_PARAMS)) < 1)
        return kl_fail(e, KL_ERR_ARG, "rung %s: malformed preset \"%s\"", r->name,
                       preset->params);
    enum kl_status st = kl_gemm_resolve(r, items, nitems, values, &mask, e);
    snprintf(what, sizeof what, "preset sm_%d", preset->cc);
    describe(config, n, what, items, nitems);
    return st;
}

/* The rung's tuned set in req, or NULL. */
static const struct kl_gemm_rung_params *tuned_of(const struct kl_gemm_request *req,
                                                  const struct kl_gemm_rung *r)
{
    for (int i = 0; i < req->ntuned; i++)
        if (strcmp(req->tuned[i].rung, r->name) == 0)
            return &req->tuned[i];
    return NULL;
}

/*
 * Where --param names one of the rung's values: what it sets aside, the
 * tuned set (tuned: the rung's, or NULL) or the preset the rung would have
 * run with, into config ("" where
 * neither), so that a row run with a single --param says why its other values
 * are the defaults.
 */
static void set_aside(const struct kl_gemm_request *req, const struct kl_device_info *dev,
                      const struct kl_gemm_rung *r, const struct kl_gemm_rung_params *tuned,
                      char *config, size_t n)
{
    const struct kl_gemm_preset *preset;
    if (tuned)
        describe(config, n, "set aside by --param: tuned", tuned->items, tuned->nitems);
    else if (!req->no_presets &&
             (preset = kl_gemm_preset_find(r, dev, req->type, req->M, req->N, req->K)))
        snprintf(config, n, "set aside by --param: preset sm_%d %s", preset->cc, preset->params);
}

/*
 * A rung's values in a ladder: --param when it sets one of the rung's own
 * (config then names the tuned set or preset it set aside); else its tuned
 * parameters (req->tuned); else its preset for this device and size; else its
 * defaults. Tuned and preset values, like defaults, leave *mask empty (a
 * misfit makes the rung skipped). config (n bytes) gets where tuned or preset
 * values came from and what they are, or "".
 */
enum kl_status kl_gemm_resolve_request(const struct kl_gemm_request *req,
                                       const struct kl_device_info *dev,
                                       const struct kl_gemm_rung *r, int *values, unsigned *mask,
                                       char *config, size_t n, struct kl_err *e)
{
    const struct kl_gemm_rung_params *tuned = tuned_of(req, r);
    enum kl_status st;
    config[0] = '\0';
    if (kl_params_mention(req->params, req->nparams, r->params)) {
        set_aside(req, dev, r, tuned, config, n);
        return kl_gemm_resolve(r, req->params, req->nparams, values, mask, e);
    }
    if (tuned) {
        st = kl_gemm_resolve(r, tuned->items, tuned->nitems, values, mask, e);
        describe(config, n, "tuned", tuned->items, tuned->nitems);
    } else {
        st = req->no_presets
                 ? KL_OK
                 : preset_values(r, dev, req->type, req->M, req->N, req->K, values, config, n, e);
        if (st == KL_OK && !config[0]) /* no preset: the defaults */
            return kl_gemm_resolve(r, req->params, req->nparams, values, mask, e);
    }
    *mask = 0;
    return st;
}

/* The values a ladder runs a rung with (parts.h). */
enum kl_status kl_gemm_ladder_values(const struct kl_gemm_request *req,
                                     const struct kl_device_info *dev,
                                     const struct kl_gemm_rung *r, int *values, unsigned *mask,
                                     char *config, size_t n, struct kl_err *e)
{
    enum kl_status st = kl_gemm_resolve_request(req, dev, r, values, mask, config, n, e);
    /* SK and SPLITK left to their rules where the user's values leave them, unless presets
       are off */
    if (st == KL_OK && !req->no_presets &&
        !kl_params_mention(req->params, req->nparams, r->params))
        kl_gemm_schedule_rules(r, dev, req, values, config, n);
    return st;
}

/* The values a ladder's rung takes untuned (gemm.h): a request without --param or tuned
   sets. */
enum kl_status kl_gemm_untuned_values(const struct kl_gemm_rung *r,
                                      const struct kl_device_info *dev, enum kl_type t, int M,
                                      int N, int K, int *values, char *config, size_t n,
                                      struct kl_err *e)
{
    const struct kl_gemm_request q = {.M = M, .N = N, .K = K, .type = t};
    unsigned mask;
    return kl_gemm_ladder_values(&q, dev, r, values, &mask, config, n, e);
}
