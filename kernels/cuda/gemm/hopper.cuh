/*
 * Hopper's instructions for the wgmma rungs (17, 18, 20; softmax's rung 05,
 * transpose's rung 06 and peak's wgmma.cu include them too), each a line or
 * two of PTX: mbarriers (in this block's shared memory or a cluster peer's),
 * the tensor memory accelerator's tiled copies (TMA, multicast to a cluster
 * included) and its stores, the proxy fence, a warpgroup's barrier, clusters
 * of blocks, register reallocation between warpgroups (setmaxnreg), and
 * wgmma.mma_async in TF32 with A from registers and B from shared memory;
 * then the copy of rows TMA cannot read into padded ones (pad_row). They
 * need sm_90a (kladder builds for it on compute capability 9.0); the PTX
 * ISA's sections on mbarrier, cp.async.bulk.tensor and wgmma say what each
 * does.
 */
#ifndef KL_HOPPER_CUH
#define KL_HOPPER_CUH

typedef unsigned long long u64;

/* A tensor map (CUtensorMap) as the driver encodes it: 128 opaque bytes. */
struct __align__(64) tensor_map {
    u64 opaque[16];
};

static __device__ __forceinline__ unsigned smem_addr(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

/* ---- mbarriers: a phase completes when count arrivals and the expected bytes are in ---- */

static __device__ __forceinline__ void bar_init(unsigned bar, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count));
}

/* Makes the initialised barriers visible to the asynchronous proxy (TMA's completions). */
static __device__ __forceinline__ void bar_init_fence()
{
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

/* Waits until the phase of parity `parity` has completed. */
static __device__ __forceinline__ void bar_wait(unsigned bar, unsigned parity)
{
    asm volatile("{\n.reg .pred done;\nWAIT:\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
                 "@!done bra WAIT;\n}\n" ::"r"(bar),
                 "r"(parity)
                 : "memory");
}

static __device__ __forceinline__ void bar_arrive(unsigned bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}

/*
 * Arrives on the barrier at the same offset in the shared memory of cluster
 * block `rank`. The default semantics (release at the block's scope) are
 * enough to say "my reads of a stage are done"; release at the cluster's
 * scope would fence every earlier access of the thread first.
 */
static __device__ __forceinline__ void bar_arrive_peer(unsigned bar, unsigned rank)
{
    asm volatile("{\n.reg .b32 remote;\n"
                 "mapa.shared::cluster.u32 remote, %0, %1;\n"
                 "mbarrier.arrive.shared::cluster.b64 _, [remote];\n}\n" ::"r"(bar),
                 "r"(rank)
                 : "memory");
}

/* Arrives and announces the bytes that TMA copies will deliver to this phase. */
static __device__ __forceinline__ void bar_arrive_tx(unsigned bar, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes)
                 : "memory");
}

/* Arrives once the thread's earlier cp.async copies have landed (counted at init). */
static __device__ __forceinline__ void bar_arrive_copies(unsigned bar)
{
    asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(bar) : "memory");
}

/* ---- copies ---------------------------------------------------------------------------- */

/* The box of map at (x, y) (x the contiguous coordinate) into shared memory at dst. */
static __device__ __forceinline__ void tma_load(unsigned dst, const tensor_map *map, int x, int y,
                                                unsigned bar)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3}], [%4];\n" ::"r"(dst),
                 "l"(map), "r"(x), "r"(y), "r"(bar)
                 : "memory");
}

/*
 * The box of map at (x, y) into shared memory at dst of every block of the
 * cluster in mask (bit i: block rank i), each block's barrier at offset bar
 * counting the bytes it receives.
 */
static __device__ __forceinline__ void tma_load_multicast(unsigned dst, const tensor_map *map,
                                                          int x, int y, unsigned bar,
                                                          unsigned short mask)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
                 ".multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;\n" ::"r"(dst),
                 "l"(map), "r"(x), "r"(y), "r"(bar), "h"(mask)
                 : "memory");
}

/* L2 policies for the copies below: a line kept after others, or let go first. */
static __device__ __forceinline__ u64 l2_evict_last()
{
    u64 p;
    asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;\n" : "=l"(p));
    return p;
}
static __device__ __forceinline__ u64 l2_evict_first()
{
    u64 p;
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;\n" : "=l"(p));
    return p;
}
/* tma_load with an L2 policy (pol) for the lines it reads. */
static __device__ __forceinline__ void tma_load_hint(unsigned dst, const tensor_map *map, int x,
                                                     int y, unsigned bar, u64 pol)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
                 ".L2::cache_hint [%0], [%1, {%2, %3}], [%4], %5;\n" ::"r"(dst),
                 "l"(map), "r"(x), "r"(y), "r"(bar), "l"(pol)
                 : "memory");
}

/*
 * The box of map at (x, y) from shared memory at src into global memory (its
 * parts outside the matrix are not written), as one bulk group of this
 * thread's (cp.async.bulk.commit_group closes it).
 */
static __device__ __forceinline__ void tma_store(const tensor_map *map, int x, int y, unsigned src)
{
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];\n"
                 ::"l"(map), "r"(x), "r"(y), "r"(src)
                 : "memory");
}
/* tma_store with an L2 policy (pol) for the lines it writes. */
static __device__ __forceinline__ void tma_store_hint(const tensor_map *map, int x, int y,
                                                      unsigned src, u64 pol)
{
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group.L2::cache_hint"
                 " [%0, {%1, %2}], [%3], %4;\n" ::"l"(map),
                 "r"(x), "r"(y), "r"(src), "l"(pol)
                 : "memory");
}
static __device__ __forceinline__ void bulk_commit()
{
    asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
}
/* Waits until at most N of this thread's bulk groups may still read their shared memory. */
template <int N> static __device__ __forceinline__ void bulk_wait_read()
{
    asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
}
/* Waits until every bulk group of this thread has completed, its writes done. */
static __device__ __forceinline__ void bulk_wait_all()
{
    asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory");
}

/* 4 bytes by cp.async, of which src_bytes (4 or 0) are read and the rest zero. */
static __device__ __forceinline__ void copy4(unsigned dst, const float *src, int src_bytes)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(src),
                 "r"(src_bytes)
                 : "memory");
}

/* Orders this thread's ordinary shared-memory accesses before later async-proxy ones (wgmma). */
static __device__ __forceinline__ void fence_async_shared()
{
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

/* Consumer warpgroup cw's own barrier, its 128 threads (named barrier 1 + cw; 0 is
   __syncthreads). */
static __device__ __forceinline__ void warpgroup_sync(int cw)
{
    asm volatile("bar.sync %0, 128;" ::"r"(1 + cw) : "memory");
}

/* ---- clusters ------------------------------------------------------------------------ */

/* This block's rank in its cluster. */
static __device__ __forceinline__ unsigned cluster_rank()
{
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
    return r;
}

/*
 * Every thread of every block of the cluster: none goes on until all have
 * arrived (release / acquire: shared-memory writes before it are seen after).
 */
static __device__ __forceinline__ void cluster_sync()
{
    asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;\n" ::: "memory");
}

/*
 * The same barrier in halves: the arrival orders nothing (the release of
 * cluster_sync compiles to a GPU-wide fence), the wait acquires. Between
 * them a block may work; after the wait every peer has arrived, so what a
 * peer did before arriving and made visible (fence.mbarrier_init: its
 * barriers initialised) holds.
 */
static __device__ __forceinline__ void cluster_arrive_relaxed()
{
    asm volatile("barrier.cluster.arrive.relaxed;\n" ::: "memory");
}
static __device__ __forceinline__ void cluster_wait()
{
    asm volatile("barrier.cluster.wait.acquire;\n" ::: "memory");
}

/* ---- registers and warpgroups ------------------------------------------------------- */

/* The warpgroup's registers per thread lowered or raised to N (every warp of it runs this). */
template <int N> static __device__ __forceinline__ void regs_dec()
{
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(N));
}
template <int N> static __device__ __forceinline__ void regs_inc()
{
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(N));
}

/*
 * Keeps the compiler from moving accesses of x across the asynchronous
 * wgmma (which reads and writes registers the compiler thinks it has
 * finished with when the asm statement ends).
 */
static __device__ __forceinline__ void hold(float &x)
{
    asm volatile("" : "+f"(x)::"memory");
}
static __device__ __forceinline__ void hold(unsigned &x)
{
    asm volatile("" : "+r"(x)::"memory");
}

/* ---- wgmma ------------------------------------------------------------------------------ */

/* Registers written before it are visible to the wgmma that follow. */
static __device__ __forceinline__ void wgmma_fence()
{
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}
static __device__ __forceinline__ void wgmma_commit()
{
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
/* Waits until at most N committed groups of this warpgroup are still running. */
template <int N> static __device__ __forceinline__ void wgmma_wait()
{
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

/* Byte offset of 4-byte element c (< 32) of row r in rows of 128 bytes, 128-byte swizzled. */
static __device__ __forceinline__ unsigned sw128(int r, int c)
{
    return r * 128 + ((((c >> 2) ^ r) & 7) << 4) + (c & 3) * 4;
}

/*
 * A shared-memory matrix descriptor: rows of 128 bytes of K (32 floats),
 * 128-byte swizzled as TMA writes them (the 16-byte chunk j of row r at
 * j ^ (r % 8)), groups of 8 rows 1024 bytes apart; the tile 1024-byte
 * aligned. Adding 2 moves it 32 bytes (8 floats of K) along the rows.
 */
static __device__ __forceinline__ u64 sw128_desc(unsigned addr)
{
    return (u64)((addr & 0x3ffff) >> 4) | (u64)1 << 16 /* leading offset: unused */
           | (u64)(1024 >> 4) << 32                         /* 8-row groups 1024 B apart */
           | (u64)1 << 62;                                  /* 128-byte swizzle */
}

/*
 * The wgmma m64nNk8 TF32 instructions, A (64 x 8) from four registers per
 * thread (for lane 4g + t of warp w of the warpgroup: rows 16w + g and
 * 16w + g + 8, columns t and t + 4, as a[0] (g, t), a[1] (g + 8, t),
 * a[2] (g, t + 4), a[3] (g + 8, t + 4)) and B (8 x N) by descriptor, B's
 * rows of K in shared memory. d: N/2 floats per thread, d[i] in row
 * 16w + g + 8 ((i / 2) % 2), column 8 (i / 4) + 2t + i % 2. accumulate = 0
 * overwrites d.
 */
static __device__ __forceinline__ void wgmma_n128(float (&d)[64], const unsigned (&a)[4],
                                                  u64 b, int accumulate)
{
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
                 "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
                 "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
                 "{%64, %65, %66, %67}, %68, p, 1, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                   "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                   "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
                   "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                   "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]),
                   "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                   "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(accumulate));
}

static __device__ __forceinline__ void wgmma_n256(float (&d)[128], const unsigned (&a)[4],
                                                  u64 b, int accumulate)
{
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %133, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
                 "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
                 "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
                 "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
                 "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
                 "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "
                 "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, "
                 "{%128, %129, %130, %131}, %132, p, 1, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                   "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                   "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
                   "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                   "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]),
                   "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                   "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]),
                   "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
                   "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]),
                   "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
                   "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]),
                   "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
                   "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]),
                   "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]),
                   "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]),
                   "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
                   "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]),
                   "+f"(d[126]), "+f"(d[127])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(accumulate));
}

/* ---- rows into padded rows: the copies before a product whose rows TMA cannot read ---- */

/*
 * Row `row` of matrix m (rows of w bytes, total bytes in all; m starts 16-byte
 * aligned, its rows need not) as 16-byte pieces of a row of ldw bytes (ldw a
 * multiple of 16), zeros after its w bytes: piece i, bytes 16i .. 16i+15,
 * goes to put(i, piece). The block's threads take a piece each, along the row.
 * A row starting o bytes past a 16-byte boundary has each of its pieces in
 * two aligned 16-byte words of m, the piece's own and the next: both are
 * loaded (a neighbour's load too, so from L1), and the piece cut out of them
 * word by word, s = o / 4 words in and a funnel shift by the rest, so that a
 * thread moves 16 bytes with two loads where element-wide copies took one
 * load per element. The matrix's last piece or two, whose next word lies past
 * the end of m, are read byte by byte.
 */
template <class Put>
static __device__ __forceinline__ void pad_row(const unsigned char *__restrict__ m, size_t total,
                                               size_t row, int w, int ldw, Put put)
{
    const size_t base = row * (size_t)w;
    const int o = (int)(base & 15), s = o >> 2, shift = 8 * (o & 3);
    const uint4 *words = reinterpret_cast<const uint4 *>(m + (base - o));
    for (int c = 16 * threadIdx.x; c < ldw; c += 16 * blockDim.x) {
        unsigned u[4];
        if (base - o + c + 32 <= total) {
            const uint4 lo = words[c / 16], hi = words[c / 16 + 1];
            /* the five words from word s on (s is the same in every thread of the block) */
            const unsigned x0 = s == 0 ? lo.x : s == 1 ? lo.y : s == 2 ? lo.z : lo.w;
            const unsigned x1 = s == 0 ? lo.y : s == 1 ? lo.z : s == 2 ? lo.w : hi.x;
            const unsigned x2 = s == 0 ? lo.z : s == 1 ? lo.w : s == 2 ? hi.x : hi.y;
            const unsigned x3 = s == 0 ? lo.w : s == 1 ? hi.x : s == 2 ? hi.y : hi.z;
            const unsigned x4 = s == 0 ? hi.x : s == 1 ? hi.y : s == 2 ? hi.z : hi.w;
            u[0] = __funnelshift_r(x0, x1, shift);
            u[1] = __funnelshift_r(x1, x2, shift);
            u[2] = __funnelshift_r(x2, x3, shift);
            u[3] = __funnelshift_r(x3, x4, shift);
        } else {
#pragma unroll
            for (int i = 0; i < 4; i++) {
                u[i] = 0;
#pragma unroll
                for (int j = 0; j < 4; j++)
                    if (c + 4 * i + j < w)
                        u[i] |= (unsigned)m[base + c + 4 * i + j] << (8 * j);
            }
        }
#pragma unroll
        for (int i = 0; i < 4; i++) { /* zeros past the row's end */
            const int left = w - (c + 4 * i);
            u[i] = left >= 4 ? u[i] : left <= 0 ? 0u : u[i] & ((1u << (8 * left)) - 1u);
        }
        put(c / 16, make_uint4(u[0], u[1], u[2], u[3]));
    }
}

#endif /* KL_HOPPER_CUH */
