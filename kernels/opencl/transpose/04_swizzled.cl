/*
 * Rung 04: a swizzled tile: the same conflict-free columns, no padding.
 *
 * Computes   b = the transpose of a, as rung 01 (IN_PLACE=1: in place).
 * Geometry:  as rung 02: local size (TILE, ROWS), one work-group per
 *            TILE x TILE tile of a.
 * Change:    rung 03 pads each row of the tile by a word. Here the tile
 *            keeps its TILE x TILE words, and element (r, c) is stored at
 *            column c XOR r of row r: a row's elements are only permuted,
 *            so writing a row still reaches each bank once, and down a
 *            column the 32 elements land on 32 different columns, so on
 *            32 different banks (for 4-byte elements; TILE a power of
 *            two). Rows stay aligned, which rung 05's vectors need, and no
 *            word is wasted.
 * Sizes:     any m, n >= 1 (m == n in place); TILE a multiple of ROWS.
 *
 * Backends:  OpenCL; CUDA from this same source through kernels/cuda/prelude.cuh.
 */
#ifndef TILE
#define TILE 32
#endif
#ifndef ROWS
#define ROWS 8
#endif
#ifndef IN_PLACE
#define IN_PLACE 0
#endif
#if TILE % ROWS != 0
#error "04_swizzled: TILE must be a multiple of ROWS"
#endif
#if (TILE & (TILE - 1)) != 0
#error "04_swizzled: TILE must be a power of two"
#endif
#define K (TILE / ROWS) /* rows of a tile per work-item */

/* The tile's element at row r, column c. */
#define AT(r, c) tile[(r) * TILE + ((c) ^ (r))]

__kernel void transpose(const __global EL *a, __global EL *b, const int m, const int n)
{
    __local EL tile[TILE * TILE];
    const int tiles_n = (n + TILE - 1) / TILE, g = (int)get_group_id(0);
    const int tr = g / tiles_n * TILE, tc = g % tiles_n * TILE; /* the tile's corner in a */
    const int x = (int)get_local_id(0), y = (int)get_local_id(1);
#if IN_PLACE
    const int live = tc >= tr, mirror = live && tc != tr;
    const __global EL *src = b;
    EL q[K]; /* the mirror tile (corner tc, tr), read before anything is written over it */
    for (int k = 0; k < K; k++)
        if (mirror && tc + y + k * ROWS < m && tr + x < n)
            q[k] = b[(size_t)(tc + y + k * ROWS) * n + tr + x];
#else
    const int live = 1;
    const __global EL *src = a;
#endif
    for (int k = 0; k < K; k++)
        if (live && tr + y + k * ROWS < m && tc + x < n)
            AT(y + k * ROWS, x) = src[(size_t)(tr + y + k * ROWS) * n + tc + x];
    barrier(CLK_LOCAL_MEM_FENCE);
    /* row tc + r of b is column tc + r of a: element x of it is the tile's (x, r) */
    for (int k = 0; k < K; k++)
        if (live && tc + y + k * ROWS < n && tr + x < m)
            b[(size_t)(tc + y + k * ROWS) * m + tr + x] = AT(x, y + k * ROWS);
#if IN_PLACE
    barrier(CLK_LOCAL_MEM_FENCE); /* the tile's reads done: the mirror takes its place */
    for (int k = 0; k < K; k++)
        if (mirror && tc + y + k * ROWS < m && tr + x < n)
            AT(y + k * ROWS, x) = q[k];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < K; k++)
        if (mirror && tr + y + k * ROWS < n && tc + x < m)
            b[(size_t)(tr + y + k * ROWS) * m + tc + x] = AT(x, y + k * ROWS);
#endif
}
