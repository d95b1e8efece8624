/*
 * Rung 01: one element per work-item, read where it lies, written where it goes.
 *
 * Computes   b = the transpose of a: b[j * m + i] = a[i * n + j] for an
 *            m x n matrix a, row-major (b is n x m). With IN_PLACE=1, a
 *            square matrix in b is transposed where it lies (a is b).
 * Geometry:  1-D over tiles: local size (TILE, ROWS), one work-group per
 *            TILE x TILE tile of a, div_up(m, TILE) * div_up(n, TILE)
 *            groups, the tiles of a row of tiles side by side.
 * Change:    the first rung. A work-item takes column j of the tile and
 *            rows ly, ly + ROWS, ... and copies each element straight to
 *            its place in b. Neighbouring work-items read neighbouring
 *            elements of a row of a: the reads are coalesced, a warp's
 *            32 floats in one 128-byte line. Their writes land in 32
 *            different rows of b, m elements apart: every write is a line
 *            of its own, of which the element uses 4 bytes, and the memory
 *            moves 8 to 32 times the bytes the transpose needs. In place,
 *            the work-item of (i, j) above the diagonal swaps the pair.
 * Sizes:     any m, n >= 1 (m == n in place).
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

__kernel void transpose(const __global EL *a, __global EL *b, const int m, const int n)
{
    const int tiles_n = (n + TILE - 1) / TILE, g = (int)get_group_id(0);
    const int r0 = g / tiles_n * TILE, j = g % tiles_n * TILE + (int)get_local_id(0);
    if (j >= n)
        return;
    for (int i = r0 + (int)get_local_id(1); i < r0 + TILE && i < m; i += ROWS) {
#if IN_PLACE
        if (j > i) { /* one work-item per pair above the diagonal swaps it */
            const EL upper = b[(size_t)i * n + j];
            b[(size_t)i * n + j] = b[(size_t)j * n + i];
            b[(size_t)j * n + i] = upper;
        }
#else
        b[(size_t)j * m + i] = a[(size_t)i * n + j];
#endif
    }
}
