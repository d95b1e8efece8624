/*
 * The block distributions of the multi-GPU GEMM (src/multi/dist.c), with no
 * device: every element of C, A and B is owned by exactly one device, the K
 * panels cover K once and in order and each lies inside its owners' blocks,
 * the process grids are the squarest, and impossible splits are refused
 * with a sentence.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "multi/dist.h"

static void test_part(void)
{
    for (long n = 0; n <= 40; n++)
        for (int parts = 1; parts <= 9; parts++) {
            long next = 0, lo = n / parts, hi = lo + (n % parts != 0);
            for (int i = 0; i < parts; i++) {
                long count, offset;
                kl_dist_part(n, parts, i, &count, &offset);
                CHECK(offset == next && count >= lo && count <= hi,
                      "part %d of %ld over %d: %ld from %ld", i, n, parts, count, offset);
                /* The larger parts come first. */
                CHECK(count == lo + (i < n % parts), "part %d of %ld over %d: count %ld", i, n,
                      parts, count);
                for (long x = offset; x < offset + count; x++)
                    CHECK(kl_dist_owner(n, parts, x) == i, "item %ld of %ld over %d", x, n, parts);
                next += count;
            }
            CHECK(next == n, "parts of %ld over %d cover %ld", n, parts, next);
        }
}

static void test_rows(void)
{
    int counts[8], offsets[8];
    struct kl_err e;
    for (int G = 1; G <= 8; G++)
        for (int M = G; M <= 40; M++) {
            CHECK(kl_dist_rows(M, G, counts, offsets, &e) == KL_OK, "M=%d G=%d: %s", M, G, e.msg);
            int next = 0;
            for (int d = 0; d < G; d++) {
                CHECK(counts[d] >= 1 && offsets[d] == next, "M=%d G=%d part %d", M, G, d);
                next += counts[d];
            }
            CHECK(next == M, "M=%d G=%d rows cover %d", M, G, next);
        }
    CHECK(kl_dist_rows(3, 4, counts, offsets, &e) == KL_ERR_ARG &&
              strstr(e.msg, "M=3 rows cannot be split over 4 devices"),
          "M < G refused: %s", e.msg);
    CHECK(kl_dist_rows(3, 0, counts, offsets, &e) == KL_ERR_ARG, "G = 0 refused");
}

static void test_grid(void)
{
    static const int want[][3] = {{1, 1, 1}, {2, 1, 2}, {3, 1, 3}, {4, 2, 2},  {5, 1, 5},
                                  {6, 2, 3}, {7, 1, 7}, {8, 2, 4}, {9, 3, 3},  {12, 3, 4},
                                  {16, 4, 4}};
    for (size_t x = 0; x < sizeof want / sizeof *want; x++) {
        int pr, pc;
        kl_dist_grid(want[x][0], &pr, &pc);
        CHECK(pr == want[x][1] && pc == want[x][2], "G=%d: %d×%d, want %d×%d", want[x][0], pr,
              pc, want[x][1], want[x][2]);
    }
}

/* Every element of C, A and B owned once; panels in order, inside their owners' blocks. */
static void check_summa(int M, int N, int K, int G, int kb)
{
    struct kl_summa s;
    struct kl_err e;
    if (kl_summa_plan(M, N, K, G, kb, &s, &e) != KL_OK) {
        CHECK(0, "M=%d N=%d K=%d G=%d kb=%d refused: %s", M, N, K, G, kb, e.msg);
        return;
    }
    unsigned char *c = calloc((size_t)M * N, 1), *a = calloc((size_t)M * K, 1),
                  *b = calloc((size_t)K * N, 1);
    struct kl_summa_block blk[8];
    CHECK(s.pr * s.pc == G && s.panels == (K + kb - 1) / kb, "grid and panel count");
    for (int d = 0; d < G && c && a && b; d++) {
        struct kl_summa_block *x = &blk[d];
        kl_summa_block(&s, d, x);
        CHECK(kl_summa_device(&s, x->i, x->j) == d && x->m >= 1 && x->n >= 1,
              "device %d at (%d, %d), %d×%d", d, x->i, x->j, x->m, x->n);
        for (int r = x->m0; r < x->m0 + x->m; r++)
            for (int q = x->n0; q < x->n0 + x->n; q++)
                c[(size_t)r * N + q]++;
        for (int r = x->m0; r < x->m0 + x->m; r++)
            for (int k = x->ka0; k < x->ka0 + x->ka; k++)
                a[(size_t)r * K + k]++;
        for (int k = x->kbr0; k < x->kbr0 + x->kbr; k++)
            for (int q = x->n0; q < x->n0 + x->n; q++)
                b[(size_t)k * N + q]++;
    }
    int once = 1;
    for (size_t x = 0; c && x < (size_t)M * N; x++)
        once &= c[x] == 1;
    for (size_t x = 0; a && x < (size_t)M * K; x++)
        once &= a[x] == 1;
    for (size_t x = 0; b && x < (size_t)K * N; x++)
        once &= b[x] == 1;
    CHECK(c && a && b && once, "M=%d N=%d K=%d G=%d kb=%d: an element not owned exactly once", M,
          N, K, G, kb);

    int next = 0;
    for (int p = 0; p < s.panels; p++) {
        struct kl_summa_panel P;
        kl_summa_panel(&s, p, &P);
        CHECK(P.k0 == next && P.width >= 1 && (P.width == kb || p == s.panels - 1),
              "M=%d N=%d K=%d G=%d kb=%d: panel %d is [%d, +%d)", M, N, K, G, kb, p, P.k0, P.width);
        next = P.k0 + P.width;
        /* In every grid row the owner column's A block holds the panel's columns where
           a_local says; in every grid column the owner row's B block holds its rows. */
        for (int i = 0; i < s.pr; i++) {
            const struct kl_summa_block *o = &blk[kl_summa_device(&s, i, P.a_col)];
            CHECK(o->ka0 + P.a_local == P.k0 && P.a_local >= 0 && P.a_local + P.width <= o->ka,
                  "K=%d G=%d kb=%d panel %d: A's owner (%d, %d) holds [%d, +%d)", K, G, kb, p, i,
                  P.a_col, o->ka0, o->ka);
        }
        for (int j = 0; j < s.pc; j++) {
            const struct kl_summa_block *o = &blk[kl_summa_device(&s, P.b_row, j)];
            CHECK(o->kbr0 + P.b_local == P.k0 && P.b_local >= 0 && P.b_local + P.width <= o->kbr,
                  "K=%d G=%d kb=%d panel %d: B's owner (%d, %d) holds [%d, +%d)", K, G, kb, p,
                  P.b_row, j, o->kbr0, o->kbr);
        }
    }
    CHECK(next == K, "M=%d N=%d K=%d G=%d kb=%d: panels end at %d", M, N, K, G, kb, next);
    free(c);
    free(a);
    free(b);
}

static void test_summa(void)
{
    static const int sizes[] = {1, 2, 3, 5, 7, 8, 13, 17, 31, 64, 100};
    static const int kbs[] = {1, 2, 3, 4, 7, 16, 1000};
    int n = (int)(sizeof sizes / sizeof *sizes), nk = (int)(sizeof kbs / sizeof *kbs);
    for (int G = 1; G <= 8; G++) {
        int pr, pc;
        kl_dist_grid(G, &pr, &pc);
        for (int x = 0; x < n; x++)
            for (int y = 0; y < n; y++)
                for (int z = 0; z < n; z += 2)
                    for (int k = 0; k < nk; k++)
                        if (sizes[x] >= pr && sizes[y] >= pc)
                            check_summa(sizes[x], sizes[y], sizes[z], G, kbs[k]);
    }
    struct kl_summa s;
    struct kl_err e;
    CHECK(kl_summa_plan(1, 8, 8, 4, 4, &s, &e) == KL_ERR_ARG &&
              strstr(e.msg, "cannot be split into the 2×2 blocks of 4 devices"),
          "M < pr refused: %s", e.msg);
    CHECK(kl_summa_plan(8, 1, 8, 2, 4, &s, &e) == KL_ERR_ARG, "N < pc refused");
    CHECK(kl_summa_plan(8, 8, 8, 2, 0, &s, &e) == KL_ERR_ARG && strstr(e.msg, "kb must be >= 1"),
          "kb = 0 refused: %s", e.msg);
    CHECK(kl_summa_plan(8, 8, 0, 2, 4, &s, &e) == KL_ERR_ARG && strstr(e.msg, "sizes must be"),
          "K = 0 refused: %s", e.msg);
    CHECK(kl_summa_plan(8, 8, 8, 0, 4, &s, &e) == KL_ERR_ARG, "G = 0 refused");
}

int main(void)
{
    test_part();
    test_rows();
    test_grid();
    test_summa();
    return check_summary();
}
