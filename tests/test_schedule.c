/*
 * The Hopper GEMM rungs' tile schedule (kernels/cuda/gemm/schedule.h) on the
 * host, over every plan of a grid of shapes: tiles in groups cover the output
 * once; the pieces of all blocks cover every slice of every tile once; the
 * stream's ranges differ by at most a slice and none is empty; a shared tile's
 * pieces meet end to end in the order of their blocks, the finisher first,
 * and every other piece is named in exactly one finisher's peers; a block
 * leaves at most one partial, on its first piece of the stream, and finishes
 * on its last (so a block waits only on later blocks, which never wait
 * before they leave their partial: no cycle); whole waves and stream 0 are
 * data-parallel.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../kernels/cuda/gemm/schedule.h"

static int failures, plans;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            if (failures++ < 20) {                                                                 \
                printf("FAIL %s:%d: ", __FILE__, __LINE__);                                        \
                printf(__VA_ARGS__);                                                               \
                printf("\n");                                                                      \
            }                                                                                      \
            return;                                                                                \
        }                                                                                          \
    } while (0)

/* Every tile of tiles_m x tiles_n once, in groups of `group` rows. */
static void check_tiles(int tiles_m, int tiles_n, int group)
{
    int n = tiles_m * tiles_n;
    char *seen = calloc((size_t)n, 1);
    for (int u = 0; u < n; u++) {
        int tm, tn;
        kl_tile_of(u, tiles_m, tiles_n, group, &tm, &tn);
        CHECK(tm >= 0 && tm < tiles_m && tn >= 0 && tn < tiles_n,
              "tile %d of %dx%d group %d at "
              "(%d, %d)",
              u, tiles_m, tiles_n, group, tm, tn);
        CHECK(!seen[tm * tiles_n + tn]++, "tile (%d, %d) twice (%dx%d group %d)", tm, tn, tiles_m,
              tiles_n, group);
    }
    free(seen);
}

struct piece {
    int block, order, last; /* the block, its place among the block's pieces, whether last */
    struct kl_work w;
};

/* One plan: every rule of the header's comment. */
static void check_plan(int tiles, int k_iters, int blocks, int stream)
{
    const struct kl_stream_k p = kl_stream_k_plan(tiles, k_iters, blocks, stream);
    const int B = p.blocks, sk_tiles = tiles - p.dp_tiles;
    const int max_pieces = tiles + 2 * B + 4;
    struct piece *all = malloc(sizeof *all * (size_t)max_pieces);
    int *cover = calloc((size_t)tiles * (size_t)k_iters, sizeof *cover);
    int *partials = calloc((size_t)B, sizeof *partials), count = 0;
    int *named = calloc((size_t)max_pieces, sizeof *named);
    plans++;
    CHECK(B >= 1 && B <= blocks, "%d blocks of %d", B, blocks);
    CHECK(p.dp_tiles <= tiles && (sk_tiles == 0 || p.dp_tiles % B == 0),
          "dp_tiles %d of %d, "
          "blocks %d",
          p.dp_tiles, tiles, B);
    if (!stream || tiles % blocks == 0)
        CHECK(p.dp_tiles == tiles, "stream %d, %d tiles on %d blocks: dp_tiles %d", stream, tiles,
              blocks, p.dp_tiles);
    else if (tiles >= blocks)
        CHECK(sk_tiles >= blocks && sk_tiles < 2 * blocks, "%d stream tiles on %d blocks", sk_tiles,
              blocks);
    for (int b = 0; b < B && sk_tiles; b++) {
        long long len = kl_sk_begin(&p, b + 1) - kl_sk_begin(&p, b);
        CHECK(len >= p.sk_iters / B && len <= p.sk_iters / B + 1, "block %d: %lld of %lld", b, len,
              p.sk_iters);
    }
    for (int b = 0; b < B; b++) {
        struct kl_work w;
        CHECK(kl_work_at(&p, b, 0, &w),
              "block %d of %d has nothing to do (%d tiles, %d slices, "
              "stream %d)",
              b, B, tiles, k_iters, stream);
        for (int n = 0; kl_work_at(&p, b, n, &w); n++) {
            CHECK(count < max_pieces, "more than %d pieces", max_pieces);
            CHECK(w.tile >= 0 && w.tile < tiles && w.k0 >= 0 && w.k0 < w.k1 && w.k1 <= k_iters,
                  "block %d piece %d: tile %d slices %d..%d", b, n, w.tile, w.k0, w.k1);
            for (int k = w.k0; k < w.k1; k++)
                cover[(size_t)w.tile * k_iters + k]++;
            all[count++] = (struct piece){b, n, 0, w};
        }
        if (count && all[count - 1].block == b)
            all[count - 1].last = 1;
    }
    for (size_t i = 0; i < (size_t)tiles * k_iters; i++)
        CHECK(cover[i] == 1,
              "tile %zu slice %zu covered %d times (%d tiles, %d slices, %d "
              "blocks, stream %d)",
              i / k_iters, i % k_iters, cover[i], tiles, k_iters, blocks, stream);
    for (int i = 0; i < count; i++) {
        const struct piece *f = &all[i];
        if (f->w.k0 > 0) { /* a partial: its block's first piece of the stream */
            CHECK(++partials[f->block] == 1, "block %d leaves two partials", f->block);
            CHECK(f->order == kl_dp_count(&p, f->block), "block %d's partial is its piece %d",
                  f->block, f->order);
            continue;
        }
        if (f->w.k1 == k_iters) {
            CHECK(f->w.first_peer < 0, "a whole tile names peers");
            continue;
        }
        /* a finisher: its last piece; its peers' pieces follow it end to end */
        CHECK(f->last, "block %d finishes tile %d before its last piece", f->block, f->w.tile);
        CHECK(f->w.first_peer == f->block + 1 && f->w.last_peer >= f->w.first_peer &&
                  f->w.last_peer < B,
              "block %d: peers %d..%d", f->block, f->w.first_peer, f->w.last_peer);
        int k = f->w.k1;
        for (int c = f->w.first_peer; c <= f->w.last_peer; c++) {
            int found = -1;
            for (int j = 0; j < count; j++)
                if (all[j].block == c && all[j].w.tile == f->w.tile)
                    found = j;
            CHECK(found >= 0 && all[found].w.k0 == k,
                  "tile %d: peer %d's piece does not start "
                  "at slice %d",
                  f->w.tile, c, k);
            named[found]++;
            k = all[found].w.k1;
        }
        CHECK(k == k_iters, "tile %d: its pieces end at slice %d of %d", f->w.tile, k, k_iters);
    }
    for (int i = 0; i < count; i++)
        CHECK(all[i].w.k0 == 0 || named[i] == 1,
              "block %d's partial of tile %d is named %d "
              "times",
              all[i].block, all[i].w.tile, named[i]);
    free(all);
    free(cover);
    free(partials);
    free(named);
}

/*
 * Stream-K's rule: the busiest block's slices, without fixup costs, are its
 * whole tiles and the longest range of the stream (ranges differ by at most
 * one slice); partials add fixup slices each, and only in a stream; whole waves and data-parallel
 * plans never choose stream-K; the rule chooses it where the model says the
 * busiest block gains more than the margin, and not otherwise.
 */
static void check_rule(int tiles, int k_iters, int blocks)
{
    const struct kl_stream_k p = kl_stream_k_plan(tiles, k_iters, blocks, 1);
    const long long dp = (long long)((tiles + blocks - 1) / blocks) * k_iters;
    const long long bare = kl_stream_k_slices(&p, 0);
    const long long range = (p.sk_iters + p.blocks - 1) / p.blocks;
    CHECK(bare == (long long)kl_dp_count(&p, 0) * k_iters + range,
          "%d tiles of %d slices on %d blocks: busiest %lld", tiles, k_iters, blocks, bare);
    const long long fixups = kl_stream_k_slices(&p, 5) - bare;
    CHECK(fixups >= 0 && (p.dp_tiles < tiles || fixups == 0),
          "%d tiles of %d slices on %d blocks: %lld slices of fixups", tiles, k_iters, blocks,
          fixups);
    if (p.dp_tiles == tiles)
        CHECK(!kl_stream_k_pays(tiles, k_iters, blocks, 0, 0) && bare == dp,
              "%d tiles on %d blocks, data-parallel: chosen, or %lld slices for %lld", tiles,
              blocks, bare, dp);
    else
        CHECK(kl_stream_k_pays(tiles, k_iters, blocks, 3, 2) ==
                  (kl_stream_k_slices(&p, 3) * 102 < dp * 100),
              "%d tiles of %d slices on %d blocks: the rule against its model", tiles, k_iters,
              blocks);
}

int main(void)
{
    static const int tile_counts[] = {1, 2, 7, 64, 131, 132, 133, 200, 263, 264, 272, 397, 1024};
    static const int slices[] = {1, 2, 3, 8, 17, 64, 256};
    static const int block_counts[] = {1, 2, 3, 66, 132, 264};
    for (int tm = 1; tm <= 20; tm++)
        for (int tn = 1; tn <= 20; tn++)
            for (int g = 1; g <= 9; g += 2)
                check_tiles(tm, tn, g);
    for (size_t a = 0; a < sizeof tile_counts / sizeof *tile_counts; a++)
        for (size_t b = 0; b < sizeof slices / sizeof *slices; b++)
            for (size_t c = 0; c < sizeof block_counts / sizeof *block_counts; c++)
                for (int stream = 0; stream < 2; stream++)
                    check_plan(tile_counts[a], slices[b], block_counts[c], stream);
    for (size_t a = 0; a < sizeof tile_counts / sizeof *tile_counts; a++)
        for (size_t b = 0; b < sizeof slices / sizeof *slices; b++)
            for (size_t c = 0; c < sizeof block_counts / sizeof *block_counts; c++)
                check_rule(tile_counts[a], slices[b], block_counts[c]);
    /* On 132 blocks: 32 tiles of 128 slices (128 x 8192 x 8192 in 128 x 256 tiles, K in
       slices of 64) leave 100 blocks idle: stream-K; 544 of 64 (4096 x 4352 x 4096): a fifth
       wave of 16 tiles: stream-K; 512 of 64 (4096^3): 3.9 waves, too little to gain; 128 of
       128 (256 x 16384 x 8192): one wave, data-parallel. */
    if (!kl_stream_k_pays(32, 128, 132, 8, 10) || !kl_stream_k_pays(544, 64, 132, 8, 10) ||
        kl_stream_k_pays(512, 64, 132, 8, 10) || kl_stream_k_pays(128, 128, 132, 8, 10)) {
        printf("FAIL: the rule at the issue's shapes\n");
        failures++;
    }
    /* 272 tiles on 132 blocks: two whole waves and 8 tiles, data-parallel */
    struct kl_stream_k p = kl_stream_k_plan(272, 64, 132, 1);
    printf("272 tiles of 64 slices on 132 blocks: %d whole, the stream %lld slices, %lld or "
           "%lld a block\n",
           p.dp_tiles, p.sk_iters, p.sk_iters / p.blocks, (p.sk_iters + p.blocks - 1) / p.blocks);
    printf("%d plans, %d failures\n", plans, failures);
    return failures != 0;
}
