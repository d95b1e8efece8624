/* Block distributions over devices: splits, the process grid, SUMMA's blocks and panels. */
#include "multi/dist.h"

void kl_dist_part(long n, int parts, int i, long *count, long *offset)
{
    long q = n / parts, r = n % parts;
    *count = q + (i < r);
    *offset = i * q + (i < r ? i : r);
}

int kl_dist_owner(long n, int parts, long x)
{
    long q = n / parts, r = n % parts, big = r * (q + 1); /* items in the larger parts */
    return x < big ? (int)(x / (q + 1)) : (int)(r + (x - big) / q);
}

enum kl_status kl_dist_rows(int M, int G, int *counts, int *offsets, struct kl_err *e)
{
    if (G < 1)
        return kl_fail(e, KL_ERR_ARG, "a split over %d devices: at least one is needed", G);
    if (M < G)
        return kl_fail(e, KL_ERR_ARG,
                       "M=%d rows cannot be split over %d devices: each needs at least one row", M,
                       G);
    for (int d = 0; d < G; d++) {
        long count, offset;
        kl_dist_part(M, G, d, &count, &offset);
        counts[d] = (int)count;
        offsets[d] = (int)offset;
    }
    return KL_OK;
}

void kl_dist_grid(int G, int *pr, int *pc)
{
    /* The largest divisor of G not above its square root: the squarest pr <= pc. */
    int r = 1;
    for (int x = 1; (long)x * x <= G; x++)
        if (G % x == 0)
            r = x;
    *pr = G >= 1 ? r : 0;
    *pc = G >= 1 ? G / r : 0;
}

enum kl_status kl_summa_plan(int M, int N, int K, int G, int kb, struct kl_summa *s,
                             struct kl_err *e)
{
    if (G < 1)
        return kl_fail(e, KL_ERR_ARG, "SUMMA over %d devices: at least one is needed", G);
    if (M < 1 || N < 1 || K < 1)
        return kl_fail(e, KL_ERR_ARG, "sizes must be >= 1 (got M=%d N=%d K=%d)", M, N, K);
    if (kb < 1)
        return kl_fail(e, KL_ERR_ARG, "the panel width kb must be >= 1 (got %d)", kb);
    s->M = M, s->N = N, s->K = K, s->kb = kb;
    kl_dist_grid(G, &s->pr, &s->pc);
    s->panels = (int)(((long)K + kb - 1) / kb);
    if (M < s->pr || N < s->pc)
        return kl_fail(e, KL_ERR_ARG,
                       "M=%d N=%d cannot be split into the %d×%d blocks of %d devices: every "
                       "device needs at least one row and one column of C",
                       M, N, s->pr, s->pc, G);
    return KL_OK;
}

int kl_summa_device(const struct kl_summa *s, int i, int j)
{
    return i * s->pc + j;
}

/* The K range of part `part` of the panels split over parts: *width columns from *first. */
static void panel_range(const struct kl_summa *s, int parts, int part, int *width, int *first)
{
    long count, offset;
    kl_dist_part(s->panels, parts, part, &count, &offset);
    long k0 = offset * s->kb, k1 = (offset + count) * s->kb;
    *first = count ? (int)k0 : 0;
    *width = count ? (int)((k1 < s->K ? k1 : s->K) - k0) : 0;
}

void kl_summa_block(const struct kl_summa *s, int d, struct kl_summa_block *b)
{
    long count, offset;
    b->i = d / s->pc;
    b->j = d % s->pc;
    kl_dist_part(s->M, s->pr, b->i, &count, &offset);
    b->m = (int)count, b->m0 = (int)offset;
    kl_dist_part(s->N, s->pc, b->j, &count, &offset);
    b->n = (int)count, b->n0 = (int)offset;
    panel_range(s, s->pc, b->j, &b->ka, &b->ka0);
    panel_range(s, s->pr, b->i, &b->kbr, &b->kbr0);
}

void kl_summa_panel(const struct kl_summa *s, int p, struct kl_summa_panel *out)
{
    int width, first;
    long end = ((long)p + 1) * s->kb;
    out->k0 = p * s->kb;
    out->width = (int)((end < s->K ? end : s->K) - out->k0);
    out->a_col = kl_dist_owner(s->panels, s->pc, p);
    panel_range(s, s->pc, out->a_col, &width, &first);
    out->a_local = out->k0 - first;
    out->b_row = kl_dist_owner(s->panels, s->pr, p);
    panel_range(s, s->pr, out->b_row, &width, &first);
    out->b_local = out->k0 - first;
}
