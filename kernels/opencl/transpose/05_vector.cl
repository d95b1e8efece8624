/*
 * Rung 05: 16 bytes a load and a store, a larger tile.
 *
 * Computes   b = the transpose of a, as rung 01 (IN_PLACE=1: in place).
 * Geometry:  local size (TILE / ELV_N, ROWS), one work-group per TILE x
 *            TILE tile of a, the tiles of a column of tiles side by side;
 *            ELV_N elements make 16 bytes (4 floats, 2 doubles, 8 two-byte
 *            elements).
 * Change:    rung 04 moves one element per load and per store, 4 bytes
 *            (2 for half), and a tile of 32 x 32. Here a work-item moves
 *            ELV_N neighbouring elements of a row of a with one 16-byte
 *            load, and ELV_N neighbouring elements of a row of b with one
 *            16-byte store, gathered from ELV_N rows of the swizzled tile.
 *            Each instruction moves four times the bytes (eight for
 *            half), so fewer instructions keep the same bytes in flight,
 *            and the default tile grows to 64 x 64 with 256 work-items,
 *            each with four loads in flight before its first store to
 *            local memory. And the work-groups take the tiles down a column
 *            of tiles rather than along a row: neighbouring groups now
 *            write neighbouring pieces of the same rows of b, so the lines
 *            (and DRAM pages) of b fill while they are still in the L2.
 *            Where a row does not start on 16 bytes (a side not a multiple
 *            of ELV_N) or the matrix's edge cuts the tile, a work-item
 *            moves its elements one at a time, every XN-th column of the
 *            tile, so that neighbouring work-items still touch
 *            neighbouring elements.
 * Sizes:     any m, n >= 1 (m == n in place); TILE a power of two, a
 *            multiple of ROWS and of ELV_N.
 *
 * Backends:  OpenCL; CUDA from this same source through kernels/cuda/prelude.cuh.
 */
#ifndef TILE
#define TILE 64
#endif
#ifndef ROWS
#define ROWS 16
#endif
#ifndef IN_PLACE
#define IN_PLACE 0
#endif
#if TILE % ROWS != 0 || TILE % ELV_N != 0 || (TILE & (TILE - 1)) != 0
#error "05_vector: TILE must be a power of two and a multiple of ROWS and of ELV_N"
#endif
#define K (TILE / ROWS) /* rows of a tile per work-item */

/* The tile's element at row r, column c, swizzled as rung 04's. */
#define AT(r, c) tile[(r) * TILE + ((c) ^ (r))]

/*
 * The tile's column that element e of work-item x moves: ELV_N neighbours
 * where it moves them as one vector (vec), else every XN-th column, so that
 * neighbouring work-items move neighbouring elements one at a time and each
 * access stays coalesced.
 */
#define XN (TILE / ELV_N) /* work-items along a row of the tile */
#define COL(x, e, vec) ((vec) ? (x) * ELV_N + (e) : (x) + (e) * XN)

/*
 * Whether the rows x cols matrix p's tile at (r0, c0) moves in vectors: it
 * is whole, and cols is a multiple of ELV_N, so that every row starts on 16
 * bytes. A pointer cast then says so to the compiler (vloadN promises only
 * an element's alignment, which some compilers, NVIDIA's OpenCL among them,
 * split into scalar loads).
 */
inline int vectors(int rows, int cols, int r0, int c0)
{
    return r0 + TILE <= rows && c0 + TILE <= cols && cols % ELV_N == 0;
}

/*
 * This work-item's part of p's tile at (r0, c0) into v: rows y + k * ROWS,
 * columns COL(x, e, vec); 0 outside p (never written out, but defined).
 */
inline void take(const __global EL *p, int rows, int cols, int r0, int c0, int x, int y,
                 EL v[K][ELV_N], int vec)
{
    for (int k = 0; k < K; k++) {
        const int r = r0 + y + k * ROWS;
        if (vec) {
            const ELV w = *(const __global ELV *)(p + (size_t)r * cols + c0 + x * ELV_N);
            ELV_STORE(w, 0, v[k]);
        } else {
            for (int e = 0; e < ELV_N; e++) {
                const int c = c0 + COL(x, e, 0);
                v[k][e] = r < rows && c < cols ? p[(size_t)r * cols + c] : (EL)0;
            }
        }
    }
}

/* v (as take left it) into the tile. */
inline void put(KL_LOCAL_ARG EL *tile, int x, int y, EL v[K][ELV_N], int vec)
{
    for (int k = 0; k < K; k++)
        for (int e = 0; e < ELV_N; e++)
            AT(y + k * ROWS, COL(x, e, vec)) = v[k][e];
}

/*
 * The tile's transpose into the rows x cols matrix p at (r0, c0): row r of
 * it is column r of the tile, so this work-item's elements of row r are the
 * tile's (COL(x, e, vec), r).
 */
inline void give(KL_LOCAL_ARG const EL *tile, __global EL *p, int rows, int cols, int r0, int c0,
                 int x, int y)
{
    const int vec = vectors(rows, cols, r0, c0);
    for (int k = 0; k < K; k++) {
        const int r = y + k * ROWS;
        EL w[ELV_N];
        for (int e = 0; e < ELV_N; e++)
            w[e] = AT(COL(x, e, vec), r);
        if (vec) {
            *(__global ELV *)(p + (size_t)(r0 + r) * cols + c0 + x * ELV_N) = ELV_LOAD(0, w);
        } else {
            for (int e = 0; e < ELV_N; e++) {
                const int c = c0 + COL(x, e, 0);
                if (r0 + r < rows && c < cols)
                    p[(size_t)(r0 + r) * cols + c] = w[e];
            }
        }
    }
}

__kernel void transpose(const __global EL *a, __global EL *b, const int m, const int n)
{
    __local EL tile[TILE * TILE];
    const int tiles_m = (m + TILE - 1) / TILE, g = (int)get_group_id(0);
    const int tc = g / tiles_m * TILE, tr = g % tiles_m * TILE; /* the tile's corner in a */
    const int x = (int)get_local_id(0), y = (int)get_local_id(1);
    const int vec = vectors(m, n, tr, tc);
    EL v[K][ELV_N];
#if IN_PLACE
    const int live = tc >= tr, mirror = live && tc != tr, qvec = vectors(m, n, tc, tr);
    EL q[K][ELV_N]; /* the mirror tile (corner tc, tr), read before anything is written over it */
    if (mirror)
        take(b, m, n, tc, tr, x, y, q, qvec);
    if (live)
        take(b, m, n, tr, tc, x, y, v, vec);
#else
    const int live = 1;
    take(a, m, n, tr, tc, x, y, v, vec);
#endif
    if (live)
        put(tile, x, y, v, vec);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (live)
        give(tile, b, n, m, tc, tr, x, y);
#if IN_PLACE
    barrier(CLK_LOCAL_MEM_FENCE); /* the tile's reads done: the mirror takes its place */
    if (mirror)
        put(tile, x, y, q, qvec);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (mirror)
        give(tile, b, n, m, tr, tc, x, y);
#endif
}
