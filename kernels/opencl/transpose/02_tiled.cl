/*
 * Rung 02: a tile through local memory, so that both sides are coalesced.
 *
 * Computes   b = the transpose of a, as rung 01 (IN_PLACE=1: in place).
 * Geometry:  as rung 01: local size (TILE, ROWS), one work-group per
 *            TILE x TILE tile of a.
 * Change:    rung 01 writes columns of b. Here a work-group reads its
 *            tile of a row by row, coalesced, into local memory, waits at
 *            a barrier, and writes the tile's transpose to b row by row,
 *            coalesced too: work-item x writes element x of a row of b,
 *            which is element x of a column of the tile. Local memory
 *            pays for the column instead: the tile is TILE words wide, so
 *            the 32 elements a warp reads from one column all sit in one
 *            of local memory's 32 banks, which serves them one after
 *            another (a 32-way bank conflict). In place, a work-group
 *            takes a tile above the diagonal and its mirror below it: it
 *            reads the mirror into registers first, then writes each
 *            tile's transpose over the other (groups below the diagonal
 *            idle).
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
#error "02_tiled: TILE must be a multiple of ROWS"
#endif
#define K (TILE / ROWS) /* rows of a tile per work-item */

/* The tile's element at row r, column c. */
#define AT(r, c) tile[(r) * TILE + (c)]

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
