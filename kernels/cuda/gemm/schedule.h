/*
 * The Hopper GEMM rungs' tile schedule: which output tiles, and which of
 * their K slices, each persistent block takes. One header for the kernels
 * (C++ under NVRTC) and for the host (C: the launch's workspace, and
 * tests/test_schedule.c, which checks every rule below on the host).
 *
 * Tiles. The output is tiles_m x tiles_n tiles, taken in groups of GROUP
 * tile-rows, column by column within a group, so that the blocks running at
 * once share rows of A and columns of B in L2 (kl_tile_of).
 *
 * Stream-K. A tile is k_iters slices of K. Persistent blocks that take whole
 * tiles in turn leave the last wave partly idle (272 tiles on 132 blocks:
 * three waves, the last 8 of 132 busy). Here the tiles are split in two:
 *  - the first dp_tiles whole, data-parallel: block b takes tiles b,
 *    b + blocks, ... (whole waves only);
 *  - the rest as one stream of (tiles - dp_tiles) * k_iters iterations laid
 *    end to end, tile after tile, split among the blocks in contiguous
 *    ranges as equal as integers allow (kl_sk_begin).
 * dp_tiles leaves the stream-K part between one and two waves of tiles (or
 * is every tile, where the waves are whole), so each block ends with at
 * most two tiles' worth of slices (kl_stream_k_plan).
 *
 * A tile of the stream-K part may be shared by consecutive blocks. The block
 * holding its first slice (k = 0) finishes it: that block reaches the tile
 * last in its range, while the others (their ranges start inside it) reach
 * it first and leave their partial sums in the workspace, one slot a block
 * (a block's range starts inside at most one tile, so it leaves at most one
 * partial). The finisher adds them to its own in the order of the blocks,
 * so a tile's sum is the same bits from run to run.
 */
#ifndef KL_SCHEDULE_H
#define KL_SCHEDULE_H

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define KL_SCHED static __host__ __device__ __forceinline__
#define KL_SCHED_MIN(a, b) min(a, b)
#else
#define KL_SCHED static inline
#define KL_SCHED_MIN(a, b) ((a) < (b) ? (a) : (b))
#endif

/* Tile u's row and column among tiles_m x tiles_n, in groups of `group` tile-rows. */
KL_SCHED void kl_tile_of(int u, int tiles_m, int tiles_n, int group, int *tm, int *tn)
{
    const int per_group = group * tiles_n, first = u / per_group * group;
    const int rows = KL_SCHED_MIN(tiles_m - first, group), r = u % per_group;
    *tm = first + r % rows;
    *tn = r / rows;
}

/* The plan of one launch: blocks persistent blocks over tiles of k_iters slices each. */
struct kl_stream_k {
    int tiles, k_iters, blocks;
    int dp_tiles;       /* taken whole, data-parallel, before the stream */
    long long sk_iters; /* the stream's iterations: (tiles - dp_tiles) * k_iters */
};

/*
 * Data-parallel where the waves are whole (tiles a multiple of blocks) or
 * where stream is 0; otherwise whole waves data-parallel and the last one to
 * two waves' tiles as the stream. Fewer blocks run (p.blocks: the launch's
 * grid) where there are fewer tiles than blocks, data-parallel, or fewer
 * iterations in a stream that is all there is: no block is idle, and every
 * block a finisher waits for leaves a partial.
 */
KL_SCHED struct kl_stream_k kl_stream_k_plan(int tiles, int k_iters, int blocks, int stream)
{
    struct kl_stream_k p;
    const int waves = tiles / blocks;
    p.tiles = tiles;
    p.k_iters = k_iters;
    p.blocks = blocks;
    p.dp_tiles = !stream || tiles % blocks == 0 ? tiles : waves > 1 ? (waves - 1) * blocks : 0;
    p.sk_iters = (long long)(tiles - p.dp_tiles) * k_iters;
    if (p.dp_tiles == 0 && p.sk_iters < blocks)
        p.blocks = (int)p.sk_iters;
    else if (p.dp_tiles == tiles && tiles < blocks)
        p.blocks = tiles;
    return p;
}

/* The first iteration of block b's range of the stream (b = blocks: its end). */
KL_SCHED long long kl_sk_begin(const struct kl_stream_k *p, int b)
{
    return p->sk_iters * b / p->blocks;
}

/* The block whose range holds iteration i of the stream: the last b with begin(b) <= i. */
KL_SCHED int kl_sk_owner(const struct kl_stream_k *p, long long i)
{
    return (int)(((i + 1) * p->blocks - 1) / p->sk_iters);
}

/*
 * One piece of a block's work: slices k0 to k1 - 1 of tile `tile` (an index
 * for kl_tile_of). k0 == 0 and k1 == k_iters: the whole tile, stored at
 * once. k0 == 0, k1 < k_iters: the block finishes the tile, adding the
 * partials of blocks first_peer to last_peer in order. k0 > 0: the block
 * leaves its partial in its slot for the finisher.
 */
struct kl_work {
    int tile, k0, k1;
    int first_peer, last_peer; /* the blocks whose partials the finisher adds */
    int n;                     /* the piece's number among its block's */
};

/* Block b's data-parallel tiles: b, b + blocks, ... below dp_tiles. */
KL_SCHED int kl_dp_count(const struct kl_stream_k *p, int b)
{
    return b < p->dp_tiles ? (p->dp_tiles - b + p->blocks - 1) / p->blocks : 0;
}

/*
 * Block b's piece number n (0, 1, ...): 1 with the piece in *w, or 0 past
 * its last. Its data-parallel tiles come first, then its range of the stream.
 */
KL_SCHED int kl_work_at(const struct kl_stream_k *p, int b, int n, struct kl_work *w)
{
    const int dp = kl_dp_count(p, b);
    w->first_peer = w->last_peer = -1;
    w->n = n;
    if (n < dp) {
        w->tile = b + n * p->blocks;
        w->k0 = 0;
        w->k1 = p->k_iters;
        return 1;
    }
    long long i = kl_sk_begin(p, b);
    const long long end = kl_sk_begin(p, b + 1);
    for (int piece = dp; i < end; piece++) {
        const long long tile = i / p->k_iters, tile_end = (tile + 1) * p->k_iters;
        const long long stop = end < tile_end ? end : tile_end;
        if (piece == n) {
            w->tile = p->dp_tiles + (int)tile;
            w->k0 = (int)(i - tile * p->k_iters);
            w->k1 = (int)(stop - tile * p->k_iters);
            if (w->k0 == 0 && w->k1 < p->k_iters) {
                w->first_peer = b + 1;
                w->last_peer = kl_sk_owner(p, tile_end - 1);
            }
            return 1;
        }
        i = stop;
    }
    return 0;
}

/*
 * Stream-K's model, for the host's rule (gemm/presets.c): the time of the
 * busiest block, in slices of K. Data-parallel, a block takes up to
 * ceil(tiles / blocks) whole tiles. By the plan, block b's time is the
 * slices of its pieces plus `fixup` slices for each partial tile it leaves
 * or adds (a partial's stores or loads, and the wait).
 */
KL_SCHED long long kl_stream_k_slices(const struct kl_stream_k *p, int fixup)
{
    long long busiest = 0;
    for (int b = 0; b < p->blocks; b++) {
        struct kl_work w;
        long long t = 0;
        for (int n = 0; kl_work_at(p, b, n, &w); n++)
            t += w.k1 - w.k0 +
                 (w.k0 > 0 ? fixup
                  : w.first_peer >= 0 ? (long long)fixup * (w.last_peer - w.first_peer + 1)
                                      : 0);
        busiest = t > busiest ? t : busiest;
    }
    return busiest;
}

/* 1 where the plan has a stream and its busiest block is faster than data-parallel's by more
   than `percent` % by the model. */
KL_SCHED int kl_stream_k_pays(int tiles, int k_iters, int blocks, int fixup, int percent)
{
    const struct kl_stream_k p = kl_stream_k_plan(tiles, k_iters, blocks, 1);
    const long long dp = (long long)((tiles + blocks - 1) / blocks) * k_iters;
    return p.dp_tiles < tiles && kl_stream_k_slices(&p, fixup) * (100 + percent) < dp * 100;
}

/*
 * The 4-byte words of the flags at the head of a stream-K workspace: one per
 * consumer warpgroup of every block (warpgroups in all), in rows of 64, so
 * that the partial sums after them start 256-byte aligned. The kernel reads
 * them there, the host sizes and zeroes them.
 */
KL_SCHED long long kl_sk_flag_words(long long warpgroups)
{
    return (warpgroups + 63) / 64 * 64;
}

#endif /* KL_SCHEDULE_H */
