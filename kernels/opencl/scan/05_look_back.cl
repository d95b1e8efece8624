/*
 * Rung 05: one pass, with decoupled look-back and vector loads.
 *
 * Computes   y = the inclusive (or, -DKL_EXCLUSIVE, exclusive) prefix sums
 *            of x[0 .. n), as rung 01.
 * Geometry:  two launches: scan_init clears state[0 .. 2 + 2*G) (global
 *            size at least 2 + 2*G), then scan, 1-D, local size WG, one
 *            work-group per tile of TILE = WG*4*V elements, G of them.
 *            state holds 2 + 2*G words: the count of tiles taken, a word
 *            of padding, then a 64-bit status word per tile.
 * Change:    rung 04 reads the input twice (3n words). Here each element
 *            is read once and written once (2n), in one launch: a tile
 *            learns the sum of the tiles before it from those tiles, as
 *            soon as they have it. Each work-group first takes a tile
 *            number from a counter (atomic_add), so a tile only ever waits
 *            on tiles whose groups have started, never on one the device
 *            has not scheduled. It scans its tile, then publishes the
 *            tile's sum (the aggregate) and looks back over the tiles
 *            before it, a window at a time: where the nearest tile that
 *            has one publishes the sum through itself (the inclusive
 *            prefix), the tile adds the aggregates between and is done;
 *            where the whole window has only aggregates it adds them and
 *            looks further back; where a tile in it has published nothing
 *            yet, it reads the window again. Then it publishes its own
 *            inclusive prefix, for the tiles after it, and writes its
 *            output. A tile's status is one 64-bit word, its flag beside
 *            its value, written by one atomic exchange: a reader sees both
 *            or neither, with no fence between two words (which OpenCL 1.x
 *            orders within a work-group only). With sub-groups the first
 *            sub-group looks back alone, a window of its size read at once
 *            and decided by sub-group minimums and a sum, with no barrier;
 *            without, the first 32 work-items read a window into local
 *            memory and work-item 0 decides. The tile is V rounds of WG
 *            vectors of 4 elements: each work-item loads one vector a round
 *            (16 bytes; a round is one coalesced load of the whole group),
 *            all V before any is used, scans each in registers, and the V
 *            rounds' vector sums go through rung 04's sub-group scan side by
 *            side, between the same two barriers (local memory where there
 *            are no sub-groups).
 *            Waiting on another work-group needs that group to progress.
 *            CUDA runs every started block to its end; OpenCL promises
 *            nothing, so kladder runs this rung on OpenCL devices whose
 *            scheduler is known to (NVIDIA GPUs, CPU devices) and skips it
 *            elsewhere. It needs cl_khr_int64_base_atomics.
 * Sizes:     any n >= 1: a vector not wholly in the array is read and
 *            written an element at a time.
 *            x and y must be 16-byte aligned, as kladder's buffers are.
 *
 * Backends:  OpenCL on NVIDIA GPUs and CPU devices; CUDA from this same source
 *            through kernels/cuda/prelude.cuh.
 */
#ifndef __CUDACC__
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#ifdef KL_SUBGROUPS
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
#endif
#endif
#ifndef WG
#define WG 256
#endif
#if WG < 1 || WG > 1024 || (WG & (WG - 1)) != 0
#error "05_look_back: WG must be a power of two in 1..1024"
#endif
#ifndef V
#define V 8
#endif
#if V < 1 || V > 16
#error "05_look_back: V (vector loads per work-item) must be in 1..16"
#endif
#define PER (4 * V)          /* elements per work-item */
#define TILE (WG * PER)      /* elements per tile */
#define LB (WG < 32 ? WG : 32) /* without sub-groups: tiles looked at per step */

#define FLAG_AGGREGATE 1u /* the tile's own sum is published */
#define FLAG_PREFIX 2u    /* the sum of every element up to its end is published */

/* Clears the tile counter and the tiles' status words: the next scan starts from nothing. */
__kernel void scan_init(__global uint *state, const int words)
{
    const uint i = get_global_id(0);
    if (i < (uint)words)
        state[i] = 0;
}

/*
 * The work-group's exclusive scan of the tile's V rounds at once: v[k] becomes the sum of
 * the rounds before k and of round k's values of the work-items before this one; returns
 * the tile's sum. s holds V * (WG + 1) values. By sub-groups as rung 04, the V scans side by
 * side between the same two barriers; without them, rung 03's tree, round after round.
 */
R group_scan(R *v, KL_LOCAL_ARG R *s)
{
    R running = 0;
#ifdef KL_SUBGROUPS
    const uint sg = get_sub_group_id(), lane = get_sub_group_local_id();
    const uint nsg = get_num_sub_groups(), size = get_sub_group_size();
    R before[V];
#pragma unroll
    for (int k = 0; k < V; k++) {
        before[k] = sub_group_scan_exclusive_add(v[k]);
        if (lane == size - 1)
            s[k * (WG + 1) + sg] = before[k] + v[k];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (sg == 0)
        for (int k = 0; k < V; k++) {
            KL_LOCAL_ARG R *t = s + k * (WG + 1);
            R carry = 0;
            for (uint c = 0; c < nsg; c += size) {
                const R u = c + lane < nsg ? t[c + lane] : (R)0;
                const R u_before = sub_group_scan_exclusive_add(u);
                if (c + lane < nsg)
                    t[c + lane] = carry + u_before;
                carry += sub_group_reduce_add(u);
            }
            if (lane == 0)
                t[nsg] = carry;
        }
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (int k = 0; k < V; k++) {
        v[k] = running + s[k * (WG + 1) + sg] + before[k];
        running += s[k * (WG + 1) + nsg];
    }
#else
    const uint tid = get_local_id(0);
    for (int k = 0; k < V; k++) {
        uint span = 1;
        s[tid] = v[k];
        for (uint d = WG / 2; d > 0; d >>= 1, span <<= 1) {
            barrier(CLK_LOCAL_MEM_FENCE);
            if (tid < d)
                s[span * (2 * tid + 2) - 1] += s[span * (2 * tid + 1) - 1];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        const R total = s[WG - 1];
        barrier(CLK_LOCAL_MEM_FENCE);
        if (tid == 0)
            s[WG - 1] = 0;
        for (uint d = 1; d < WG; d <<= 1) {
            span >>= 1;
            barrier(CLK_LOCAL_MEM_FENCE);
            if (tid < d) {
                const uint left = span * (2 * tid + 1) - 1, right = span * (2 * tid + 2) - 1;
                const R t = s[left];
                s[left] = s[right];
                s[right] += t;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        v[k] = running + s[tid];
        running += total;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#endif
    barrier(CLK_LOCAL_MEM_FENCE); /* s is free again */
    return running;
}

/* A tile's status: its flag in the high word, its value's bits in the low one (0: none yet). */
#define STATUS(flag, v) (((ulong)(flag) << 32) | as_uint(v))
#define STATUS_FLAG(w) ((uint)((w) >> 32))
#define STATUS_VALUE(w) KL_AS_R((uint)(w))

/* Publishes tile's value v under flag, flag and value in one word. */
void publish(__global ulong *status, const uint tile, const uint flag, const R v)
{
    atom_xchg((volatile __global ulong *)status + tile, STATUS(flag, v));
}

#ifdef KL_SUBGROUPS
/*
 * The sum of the tiles before tile, in the first sub-group (the others get 0): a window of
 * its size read at once, from the nearest tile back, until a tile's inclusive prefix is
 * found (tile 0 finds the empty prefix below it at once).
 */
R look_back(__global ulong *status, const uint tile, KL_LOCAL_ARG uint *s_flag,
            KL_LOCAL_ARG R *s_val, KL_LOCAL_ARG int *s_step)
{
    const uint lane = get_sub_group_local_id(), size = get_sub_group_size();
    R prefix = 0;
    if (get_sub_group_id() != 0)
        return 0;
    for (int end = (int)tile;;) {
        const int k = end - 1 - (int)lane; /* below tile 0: an empty prefix */
        const ulong w = k >= 0 ? KL_WORD_LOAD(status + k) : STATUS(FLAG_PREFIX, (R)0);
        const uint flag = STATUS_FLAG(w);
        const uint first_prefix = sub_group_reduce_min(flag == FLAG_PREFIX ? lane : size);
        if (sub_group_reduce_min(flag == 0 ? lane : size) < first_prefix)
            continue; /* a tile before the nearest prefix has published nothing: read again */
        prefix += sub_group_reduce_add(lane <= first_prefix ? STATUS_VALUE(w) : (R)0);
        if (first_prefix < size)
            return prefix;
        end -= (int)size; /* only aggregates: look further back */
    }
}
#else
/*
 * The same without sub-groups, for work-item 0 (the others get 0): the first LB work-items
 * read a window into local memory, work-item 0 decides.
 */
R look_back(__global ulong *status, const uint tile, KL_LOCAL_ARG uint *s_flag,
            KL_LOCAL_ARG R *s_val, KL_LOCAL_ARG int *s_step)
{
    const uint tid = get_local_id(0);
    R prefix = 0;
    uint end = tile; /* the window: the LB tiles before end */
    int step;
    do {
        if (tid < LB) {
            const int k = (int)end - 1 - (int)tid; /* below tile 0: an empty prefix */
            const ulong w = k >= 0 ? KL_WORD_LOAD(status + k) : STATUS(FLAG_PREFIX, (R)0);
            s_flag[tid] = STATUS_FLAG(w);
            s_val[tid] = STATUS_VALUE(w);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (tid == 0) {
            uint j = 0;
            while (j < LB && s_flag[j] == FLAG_AGGREGATE)
                j++;
            if (j < LB && s_flag[j] == 0) {
                *s_step = 0; /* a tile in the window has published nothing yet: read again */
            } else {
                for (uint i = 0; i < j + (j < LB); i++)
                    prefix += s_val[i];
                *s_step = j < LB ? 2 : 1; /* found an inclusive prefix, or look further back */
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        step = *s_step;
        if (step == 1)
            end -= LB;
    } while (step != 2);
    return prefix;
}
#endif

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
scan(const __global R *restrict x, __global R *restrict y, __global uint *state, const int n)
{
    __local R s[V * (WG + 1)], s_val[LB];
    __local uint s_flag[LB], s_tile;
    __local int s_step;
    __local R s_prefix;
    const uint tid = get_local_id(0);
    __global ulong *status = (__global ulong *)state + 1; /* after the counter and a pad */
    if (tid == 0)
        s_tile = atomic_add((volatile __global uint *)state, 1u);
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint tile = s_tile;

    /* Round k of the tile: WG vectors in a row, this work-item's the tid-th (one coalesced
       load a round); in each, the 4 elements' results within the vector, and its sum. */
    R e[PER], sum[V];
#pragma unroll
    for (int k = 0; k < V; k++) {
        const uint first = 4 * (tile * (TILE / 4) + k * WG + tid);
        if (first + 4 <= (uint)n) {
            const R4 q = *(const __global R4 *)(x + first);
            e[4 * k] = q.x;
            e[4 * k + 1] = q.y;
            e[4 * k + 2] = q.z;
            e[4 * k + 3] = q.w;
        } else {
            for (int c = 0; c < 4; c++)
                e[4 * k + c] = first + c < (uint)n ? x[first + c] : (R)0;
        }
        R acc = 0;
#pragma unroll
        for (int c = 0; c < 4; c++) {
            const R v = e[4 * k + c];
            e[4 * k + c] = KL_SCAN_OUT(acc, v);
            acc += v;
        }
        sum[k] = acc;
    }
    const R aggregate = group_scan(sum, s); /* sum[k]: the tile's sum before this vector */

    if (tid == 0)
        publish(status, tile, tile == 0 ? FLAG_PREFIX : FLAG_AGGREGATE, aggregate);
    const R prefix = look_back(status, tile, s_flag, s_val, &s_step);
    if (tid == 0) {
        if (tile > 0)
            publish(status, tile, FLAG_PREFIX, prefix + aggregate);
        s_prefix = prefix;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

#pragma unroll
    for (int k = 0; k < V; k++) {
        const uint first = 4 * (tile * (TILE / 4) + k * WG + tid);
        const R offset = s_prefix + sum[k];
        if (first + 4 <= (uint)n) {
            /* the vector first, the offset added to it after: oclgrind's compiler turns a
               vector literal of four sums into undefined values */
            const R4 o = VEC4(R4, e[4 * k], e[4 * k + 1], e[4 * k + 2], e[4 * k + 3]);
            *(__global R4 *)(y + first) = offset + o;
        } else {
            for (int c = 0; c < 4; c++)
                if (first + c < (uint)n)
                    y[first + c] = offset + e[4 * k + c];
        }
    }
}
