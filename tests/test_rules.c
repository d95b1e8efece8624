/*
 * The rules that choose a rung's values from the problem's shape, at shapes
 * no sweep measured. They were fitted to a few shapes on one device; a user
 * runs any shape on any device.
 *
 * GEMM (gemm/presets.c: the presets by size, then the tiles', stream-K's,
 * split-K's and the residual's rules): for every device rung and type, on
 * four CUDA devices (compute capability 9.0, 8.9, 8.0 and 7.5), at a few
 * hundred shapes drawn from one seed (each side log-uniform from 1 to 40000)
 * and at the edges of the tiles (1, 127, 128, 129, 4093 ...), the values
 * the ladder would run a rung with (as gemm/ladder.c resolves them) must be
 * a set the rung takes wherever its defaults are: every value in its range
 * and a multiple of what it must be, the rung's relations, its local memory
 * within the device's and its work-group within the launch's limits
 * (kl_gemm_check, the tuner's own test of a candidate); the same set twice;
 * and a row's config naming every value a rule changed.
 *
 * Softmax (softmax/rungs.c, kl_softmax_rule): for the rungs that hold a
 * row, at row lengths from 1 to 2^31 - 257, in 4- and 2-byte elements: the
 * values in their ranges, and the row held whole (read once) wherever the
 * rung can hold it: NT * V vectors a work-group for rung 04, CL blocks of
 * NT * (V + VS) for rung 05, within 227 KiB of shared memory a block, and
 * in registers alone (VS = 0) wherever 8 blocks' registers hold the row.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "described_cuda.h"
#include "core/context.h"
#include "core/ladder.h"
#include "core/params.h"
#include "core/util.h"
#include "workloads/gemm/gemm.h"
#include "workloads/gemm/parts.h"
#include "workloads/softmax/softmax.h"

/* Sides at the tiles' edges, which the first shapes combine; the rest are drawn. */
static const int edges[] = {1,   2,   7,   8,   63,  64,   65,   127,  128,  129,
                            192, 255, 256, 257, 509, 4093, 4095, 4096, 4097, 8191};
#define NEDGES ((int)(sizeof edges / sizeof *edges))

/* Log-uniform from 1 to most (kl_rng_uniform is uniform in [-1, 1)). */
static int drawn(struct kl_rng *rng, double most)
{
    return (int)lround(exp((kl_rng_uniform(rng) + 1.0) / 2.0 * log(most)));
}

static int checked, skipped;

/* Values as "NAME=V" items, the form --param and the tuner's candidates take. */
static int as_items(const struct kl_param_def *params, const int *v, char text[][32],
                    const char **items)
{
    int n = kl_param_count(params);
    for (int p = 0; p < n; p++) {
        snprintf(text[p], 32, "%s=%d", params[p].name, v[p]);
        items[p] = text[p];
    }
    return n;
}

/* What the ladder runs rung r with at q on kl's device: values, and the row's config. */
static enum kl_status ladder_values(struct kl_context *kl, const struct kl_gemm_rung *r,
                                    const struct kl_gemm_request *q, int *v, int *before,
                                    char *config, size_t n, struct kl_err *e)
{
    unsigned mask;
    enum kl_status st = kl_gemm_resolve_request(q, &kl->info, r, v, &mask, config, n, e);
    memcpy(before, v, KL_MAX_PARAMS * sizeof *v);
    if (st == KL_OK)
        kl_gemm_schedule_rules(r, &kl->info, q, v, config, n);
    return st;
}

static void check_shape(struct kl_context *kl, const struct kl_gemm_rung *r, enum kl_type t, int M,
                        int N, int K)
{
    struct kl_gemm_request q = {.M = M, .N = N, .K = K, .type = t};
    int v[KL_MAX_PARAMS] = {0}, again[KL_MAX_PARAMS] = {0}, before[KL_MAX_PARAMS];
    char config[256], config2[256], text[KL_MAX_PARAMS][32];
    const char *items[KL_MAX_PARAMS];
    struct kl_err e;
    /* where the rung's own defaults do not run on this device at this shape, nothing to hold */
    if (kl_gemm_check(kl, r, NULL, 0, t, M, N, NULL, &e) != KL_OK) {
        skipped++;
        return;
    }
    enum kl_status st = ladder_values(kl, r, &q, v, before, config, sizeof config, &e);
    CHECK(st == KL_OK, "%s %s on %s at %dx%dx%d: %s", r->name, kl_type_name(t), kl->info.name, M, N,
          K, e.msg);
    if (st != KL_OK)
        return;
    int n = as_items(r->params, v, text, items);
    st = kl_gemm_check(kl, r, items, n, t, M, N, NULL, &e);
    CHECK(st == KL_OK, "%s %s on %s at %dx%dx%d: \"%s\" is refused: %s", r->name, kl_type_name(t),
          kl->info.name, M, N, K, config, e.msg);
    ladder_values(kl, r, &q, again, before, config2, sizeof config2, &e);
    CHECK(memcmp(v, again, sizeof v) == 0 && strcmp(config, config2) == 0,
          "%s %s at %dx%dx%d: \"%s\", then \"%s\"", r->name, kl_type_name(t), M, N, K, config,
          config2);
    for (int p = 0; p < n; p++)
        CHECK(v[p] == before[p] || kl_ladder_set_by_rule(config, r->params[p].name),
              "%s %s at %dx%dx%d: %s changed from %d to %d, and \"%s\" does not say by which "
              "rule",
              r->name, kl_type_name(t), M, N, K, r->params[p].name, before[p], v[p], config);
    checked++;
}

/* Value NAME of softmax rung r in v. */
static int sv(const struct kl_softmax_rung *r, const int *v, const char *name)
{
    return kl_param_value(r->params, v, name);
}

/* Softmax's rule for a row of cols elements of `bytes` bytes, on rung r (one that holds a row). */
static void check_row_rule(const struct kl_softmax_rung *r, int cols, int bytes)
{
    int v[KL_MAX_PARAMS] = {0}, back[KL_MAX_PARAMS];
    char config[128], text[KL_MAX_PARAMS][32];
    const char *items[KL_MAX_PARAMS];
    unsigned mask;
    struct kl_err e;
    CHECK(kl_params_resolve(r->name, r->params, NULL, 0, v, &mask, &e) == KL_OK, "%s: defaults",
          r->name);
    kl_softmax_rule(r, cols, bytes, v, config, sizeof config);
    int n = as_items(r->params, v, text, items);
    CHECK(kl_params_resolve(r->name, r->params, items, n, back, &mask, &e) == KL_OK,
          "%s at %d columns of %d bytes: \"%s\" is refused: %s", r->name, cols, bytes, config,
          e.msg);
    const long vectors = cols / 4, nt = sv(r, v, "NT"), vr = sv(r, v, "V");
    if (r->shape == KL_ROW_IN_GROUP) {
        const long most = 1024L * 8; /* the rule's most: 1024 work-items of 8 vectors */
        CHECK(vectors > most || nt * vr >= vectors,
              "%s at %d columns: NT=%ld V=%ld hold %ld of %ld vectors", r->name, cols, nt, vr,
              nt * vr, vectors);
        return;
    }
    const long vs = sv(r, v, "VS"), cl = sv(r, v, "CL"), held = bytes < 4 ? 16 : 8;
    const long share = (vectors + cl - 1) / cl;
    CHECK(vectors > 8 * 512 * 2 * held || nt * (vr + vs) >= share,
          "%s at %d columns of %d bytes: %ld blocks of NT=%ld holding %ld + %ld vectors, a "
          "share of %ld",
          r->name, cols, bytes, cl, nt, vr, vs, share);
    CHECK(4L * bytes * vs * nt <= 227L * 1024, "%s at %d columns: %ld bytes of shared memory",
          r->name, cols, 4L * bytes * vs * nt);
    CHECK(vectors > 8 * 512 * held || vs == 0,
          "%s at %d columns of %d bytes: VS=%ld where 8 blocks' registers hold the row", r->name,
          cols, bytes, vs);
    checked++;
}

int main(void)
{
    const struct kl_device_info devices[] = {
        described_cuda("H200 (9.0)", 9, 0, 132, 232448),
        described_cuda("L40S (8.9)", 8, 9, 142, 101376),
        described_cuda("A100 (8.0)", 8, 0, 108, 166912),
        described_cuda("T4 (7.5)", 7, 5, 40, 65536),
    };
    struct kl_context *kl = described_cuda_context(devices[0]);
    struct kl_rng rng;
    if (!kl)
        return 1;
    kl_rng_seed(&rng, 20261205);
    enum { SHAPES = 240 };
    int shapes[SHAPES][3];
    for (int s = 0; s < SHAPES; s++)
        for (int d = 0; d < 3; d++) /* the edges in three orders, then drawn */
            shapes[s][d] =
                s < NEDGES ? edges[(s * (1 + 6 * d) + 3 * d) % NEDGES] : drawn(&rng, 40000);
    for (size_t d = 0; d < sizeof devices / sizeof *devices; d++) {
        kl->info = devices[d];
        for (int i = 0; i < kl_gemm_rung_count(); i++) {
            const struct kl_gemm_rung *r = kl_gemm_rung_at(i);
            char why[256];
            if (r->geometry == KL_GEO_HOST || !r->file)
                continue;
            for (int t = 0; t < KL_TYPE_COUNT; t++)
                if (kl_gemm_rung_available(kl, r, (enum kl_type)t, why, sizeof why))
                    for (int s = 0; s < SHAPES; s++)
                        check_shape(kl, r, (enum kl_type)t, shapes[s][0], shapes[s][1],
                                    shapes[s][2]);
        }
    }
    for (int i = 0; i < kl_softmax_rung_count(); i++) {
        const struct kl_softmax_rung *r = kl_softmax_rung_at(i);
        if (r->shape != KL_ROW_IN_GROUP && r->shape != KL_ROW_IN_CLUSTER)
            continue;
        for (int bytes = 2; bytes <= 4; bytes += 2) {
            for (int c = 1; c <= 1 << 20; c = c < 8 ? c + 1 : c + c / 8 + (c % 7)) /* ragged */
                check_row_rule(r, c, bytes);
            for (int s = 0; s < 200; s++)
                check_row_rule(r, drawn(&rng, 2147483391.0), bytes);
        }
    }
    printf("rules: %d choices checked (GEMM: %d sets of rung, type, device and shape whose "
           "defaults do not run there left out)\n",
           checked, skipped);
    CHECK(checked > 10000, "only %d sets checked", checked);
    free(kl);
    return check_summary();
}
