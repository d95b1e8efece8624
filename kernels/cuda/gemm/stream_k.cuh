/*
 * Stream-K in the GEMM kernels (the Hopper rungs 17, 18, 20 and 22, whose
 * INT8 products are rung 20's, and rung 14): the loop over a block's pieces
 * of work, and the partial tiles that blocks sharing a tile leave for the
 * one that finishes it. The plan itself, which slices of which tiles each
 * block takes, is schedule.h's; this is what a kernel does with it. The
 * including kernel defines SK (0 or 1), and either includes hopper.cuh
 * first (a consumer warpgroup's sums a set) or defines SK_BLOCK_THREADS
 * (the whole block's sums one set, a block of that many threads).
 *
 * Blocks of a cluster. The plan's "blocks" are the kernel's units of
 * scheduling: single blocks (rung 20), or clusters of CLUSTER blocks that
 * take side-by-side tiles of one unit together (rung 17). Each block keeps
 * its own partial tiles: a consumer warpgroup's slot is numbered
 * who * stride + offset, who being the plan's block (the cluster), stride
 * the consumer warpgroups of a cluster and offset this warpgroup's place
 * among them (rank * CWG + cw).
 *
 * The workspace (kernel argument ws, sized and zeroed by the host): a flag
 * per slot, in kl_sk_flag_words' rows, then a partial tile per slot, sum i
 * of the warpgroup's thread t at i * SK_THREADS + t (coalesced).
 */
#ifndef KL_STREAM_K_CUH
#define KL_STREAM_K_CUH

#include "schedule.h"

/*
 * FOR_EACH_PIECE(w, plan, who, units, step, slices) { ... }: the pieces of
 * work w of the plan's block `who` in turn. With SK, the plan's pieces
 * (schedule.h): slices w.k0 .. w.k1 - 1 of unit w.tile each. Without it,
 * whole units who, who + step, ... below units: an inner loop of one turn
 * declares the piece inside the plain loop over units, and the compiler
 * makes of it, byte for byte, the CUBIN it made of that loop alone (plan is
 * then never read).
 */
#if SK
static __device__ __forceinline__ kl_work sk_piece(const kl_stream_k &plan, int who, int n)
{
    kl_work w;
    if (!kl_work_at(&plan, who, n, &w))
        w.tile = -1;
    return w;
}
#define FOR_EACH_PIECE(w, plan, who, units, step, slices)                                          \
    for (kl_work w = sk_piece(plan, who, 0); w.tile >= 0; w = sk_piece(plan, who, w.n + 1))
#else
#define FOR_EACH_PIECE(w, plan, who, units, step, slices)                                          \
    for (int u_ = (who); u_ < (units); u_ += (step))                                               \
        for (const kl_work w = {u_, 0, (slices), -1, -1, 0}, *once_ = &w; once_; once_ = nullptr)
#endif

#if SK
/* The threads that hold one set of sums, a thread's place among them, and their barrier. */
#ifdef SK_BLOCK_THREADS
#define SK_THREADS SK_BLOCK_THREADS
static __device__ __forceinline__ int sk_thread() { return threadIdx.y * blockDim.x + threadIdx.x; }
static __device__ __forceinline__ void sk_sync(int) { __syncthreads(); }
#else
#define SK_THREADS 128
static __device__ __forceinline__ int sk_thread() { return threadIdx.x % 128; }
static __device__ __forceinline__ void sk_sync(int cw) { warpgroup_sync(cw); }
#endif

/* A launch's stream-K state: the plan, and the workspace's flags and partial tiles. */
template <typename T> struct kl_sk {
    kl_stream_k plan;
    unsigned *flags;
    T *partials;
};

/* The plan over `units` of `slices` slices for the launch's `whos`, and the workspace ws. */
template <typename T>
static __device__ __forceinline__ kl_sk<T> sk_begin(int units, int slices, int whos, int slots,
                                                    unsigned *ws)
{
    kl_sk<T> sk;
    sk.plan = kl_stream_k_plan(units, slices, whos, 1);
    sk.flags = ws;
    sk.partials = (T *)(ws + kl_sk_flag_words(slots));
    return sk;
}

/*
 * A warpgroup's sums of a tile whose first slice another block holds: into
 * its slot, then the slot's flag raised (a release, after every thread's
 * stores and fence). A block leaves at most one partial a launch.
 */
template <typename T, int N>
static __device__ __forceinline__ void sk_leave(const kl_sk<T> &sk, const T (&acc)[N], int slot,
                                                int cw)
{
    const int t = sk_thread();
    T *sums = sk.partials + (size_t)slot * N * SK_THREADS;
#pragma unroll
    for (int i = 0; i < N; i++)
        __stcg(sums + i * SK_THREADS + t, acc[i]);
    __threadfence();
    sk_sync(cw);
    if (t == 0)
        asm volatile("st.release.gpu.global.u32 [%0], 1;" ::"l"(sk.flags + slot) : "memory");
}

/* The GPU's global timer, in nanoseconds. */
static __device__ __forceinline__ unsigned long long sk_now()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/*
 * The finisher's: the partials of the plan's blocks first .. last added to
 * acc in that order (so the tile's sums are the same bits every run), each
 * once its flag is up (an acquire by one thread, then the warpgroup's
 * barrier); the flag is lowered for the next launch. A flag still down 20 s
 * after the wait began (by the global timer: a sleep's length is only
 * approximate; a peer under a sanitizer may take seconds) traps: an error,
 * not a hang, were a peer never to run (blocks waiting on all the SMs the
 * launch was given while their peers wait for one).
 */
template <typename T, int N>
static __device__ __forceinline__ void sk_add(const kl_sk<T> &sk, T (&acc)[N], int first, int last,
                                              int stride, int offset, int cw)
{
    const int t = sk_thread();
    for (int b = first; b <= last; b++) {
        const int slot = b * stride + offset;
        unsigned *flag = sk.flags + slot;
        if (t == 0)
            for (const unsigned long long start = sk_now();;) {
                unsigned up;
                asm volatile("ld.acquire.gpu.global.u32 %0, [%1];"
                             : "=r"(up)
                             : "l"(flag)
                             : "memory");
                if (up)
                    break;
                if (sk_now() - start > 20000000000ull)
                    __trap();
                __nanosleep(128);
            }
        __syncwarp(); /* thread 0's warp whole again before the barrier */
        sk_sync(cw);
        const T *sums = sk.partials + (size_t)slot * N * SK_THREADS;
#pragma unroll
        for (int i = 0; i < N; i++)
            acc[i] += __ldcg(sums + i * SK_THREADS + t);
        if (t == 0)
            *flag = 0; /* read by the next launch only, after this one ends */
    }
}

/*
 * After piece w of the plan's block `who`, its sums in acc: 1 where this
 * warpgroup stores the tile (whole, or finished with its peers' partials
 * added), 0 where it left its sums for the tile's finisher instead.
 */
template <typename T, int N>
static __device__ __forceinline__ int sk_settle(const kl_sk<T> &sk, T (&acc)[N], const kl_work &w,
                                                int who, int stride, int offset, int cw)
{
    if (w.k0 > 0) {
        sk_leave(sk, acc, who * stride + offset, cw);
        return 0;
    }
    if (w.k1 < sk.plan.k_iters)
        sk_add(sk, acc, w.first_peer, w.last_peer, stride, offset, cw);
    return 1;
}
#endif

#endif /* KL_STREAM_K_CUH */
