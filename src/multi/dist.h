/*
 * Block distributions of a matrix product over G devices, pure arithmetic
 * (no device): the 1-D split of rows, the 2-D process grid, and SUMMA's
 * blocks and K panels. The multi-GPU GEMM (multi/mgemm.c) asks only these
 * questions, so the unit tests (tests/test_dist.c) check every answer it
 * relies on.
 *
 * Every split is the same rule: n items over p parts, the first n % p parts
 * one item larger, parts in order.
 */
#ifndef KL_DIST_H
#define KL_DIST_H

#include "core/error.h"

/* Part i (0 .. parts - 1) of n items over parts: its *count and first item *offset. */
void kl_dist_part(long n, int parts, int i, long *count, long *offset);
/* The part of n items over parts that holds item x (0 <= x < n). */
int kl_dist_owner(long n, int parts, long x);

/*
 * The 1-D row split of M rows over G devices: counts[d] and offsets[d]
 * (arrays of G). Refuses (KL_ERR_ARG, one sentence) M < G, which would leave
 * a device without rows, and G < 1.
 */
enum kl_status kl_dist_rows(int M, int G, int *counts, int *offsets, struct kl_err *e);

/*
 * The process grid for G devices: *pr rows by *pc columns, pr·pc = G,
 * pr <= pc and as square as possible (1 → 1×1, 2 → 1×2, 4 → 2×2, 6 → 2×3,
 * 8 → 2×4; a prime is 1×G). Device d sits at row d / pc, column d % pc.
 */
void kl_dist_grid(int G, int *pr, int *pc);

/*
 * SUMMA for C (M×N) = A (M×K) · B (K×N) on a pr×pc grid. C is in pr×pc
 * blocks: block row i holds rows split as kl_dist_part(M, pr, i), block
 * column j columns split as kl_dist_part(N, pc, j). K is cut into panels of
 * kb columns (the last one narrower where kb does not divide K); the panels
 * are split in order over the grid's columns for A and over its rows for B,
 * so A's block (i, j) holds C's block rows i and the K columns of the panels
 * of part j, B's block (i, j) the K rows of the panels of part i and C's
 * block columns j. A panel therefore always lies inside one owner's block.
 */
struct kl_summa {
    int M, N, K, kb;
    int pr, pc;
    int panels; /* ceil(K / kb) */
};

/*
 * Plans SUMMA for G devices on kl_dist_grid's grid. Refuses (KL_ERR_ARG)
 * sizes or kb below 1, and M < pr or N < pc (a device without C).
 */
enum kl_status kl_summa_plan(int M, int N, int K, int G, int kb, struct kl_summa *s,
                             struct kl_err *e);

/* What device d holds: its grid place and its blocks of C, A and B. */
struct kl_summa_block {
    int i, j;      /* grid row and column */
    int m, m0;     /* C's and A's rows: m of them from row m0 */
    int n, n0;     /* C's and B's columns: n of them from column n0 */
    int ka, ka0;   /* A's K columns: ka of them from column ka0 (0: no panel here) */
    int kbr, kbr0; /* B's K rows: kbr of them from row kbr0 (0: no panel here) */
};
void kl_summa_block(const struct kl_summa *s, int d, struct kl_summa_block *b);

/* The device at grid row i, column j. */
int kl_summa_device(const struct kl_summa *s, int i, int j);

/* Panel p (0 .. panels - 1) and where its two operands live. */
struct kl_summa_panel {
    int k0, width; /* K columns [k0, k0 + width) */
    int a_col;     /* grid column owning A's panel (every row of the grid has a piece) */
    int a_local;   /* the panel's first column inside the owner's A block (k0 - ka0) */
    int b_row;     /* grid row owning B's panel (every column of the grid has a piece) */
    int b_local;   /* the panel's first row inside the owner's B block (k0 - kbr0) */
};
void kl_summa_panel(const struct kl_summa *s, int p, struct kl_summa_panel *out);

#endif /* KL_DIST_H */
