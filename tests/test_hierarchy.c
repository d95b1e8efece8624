/*
 * The pure pieces of `kladder peak`'s memory hierarchy
 * (src/workloads/peak/curves.h), with no device: the levels found in
 * bandwidth and latency curves (clean steps, noise, transitions, one level,
 * few points), Sattolo's cycle (one cycle through every node, and a check
 * that tells other links apart) and where a chase ends after any number of
 * steps.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "workloads/peak/curves.h"

#define MAXP 32

/*
 * Finds the levels of y, measured at working sets growing by factor from
 * 4 KiB, and checks them against want (first, last, plateau per level;
 * nwant levels), and that they are ordered, disjoint and each plateau
 * inside its level.
 */
static void expect_levels(const char *what, const double *y, int n, double factor, int rising,
                          const int (*want)[3], int nwant)
{
    struct kl_level got[MAXP];
    double w[MAXP], tol = rising ? KL_LEVEL_LAT_TOL : KL_LEVEL_BW_TOL;
    for (int i = 0; i < n; i++)
        w[i] = i ? w[i - 1] * factor : 4096;
    int count = kl_levels_find(w, y, n, rising, tol, got);
    CHECK(count == nwant, "%s: %d levels, want %d", what, count, nwant);
    for (int k = 0; k < count; k++) {
        CHECK(got[k].first <= got[k].plateau && got[k].plateau <= got[k].last &&
                  (k == 0 || got[k].first > got[k - 1].last) && got[k].last < n,
              "%s: level %d is [%d, %d] with plateau %d", what, k, got[k].first, got[k].last,
              got[k].plateau);
        if (k < nwant)
            CHECK(got[k].first == want[k][0] && got[k].last == want[k][1] &&
                      got[k].plateau == want[k][2],
                  "%s: level %d is [%d, %d] plateau %d, want [%d, %d] plateau %d", what, k,
                  got[k].first, got[k].last, got[k].plateau, want[k][0], want[k][1], want[k][2]);
    }
}

static void test_levels_bandwidth(void)
{
    /* Three plateaus, as an L1, an L2 and device memory give. */
    const double clean[] = {100, 100, 101, 100, 50, 51, 50, 10, 10, 10};
    const int clean_want[][3] = {{0, 3, 2}, {4, 6, 4}, {7, 9, 8}};
    expect_levels("clean 3 steps", clean, 10, 2, 0, clean_want, 3);

    /* Noise: a dip inside the first plateau (70 < 0.75 x 100) rejoins it; the first
     * point low (a tiny working set), the plateau then the largest value; a later
     * level's plateau is its median (of 62, 58, 55, 52: 55). */
    const double noisy[] = {90, 100, 70, 104, 95, 52, 55, 58, 62, 20, 22, 19};
    const int noisy_want[][3] = {{0, 4, 3}, {5, 8, 6}, {9, 11, 9}};
    expect_levels("noisy 3 steps", noisy, 12, 2, 0, noisy_want, 3);

    /* A dip that joins a later level which then rejoins the first (merged twice). */
    const double twice[] = {100, 70, 50, 95, 40};
    const int twice_want[][3] = {{0, 3, 0}, {4, 4, 4}};
    expect_levels("merged twice", twice, 5, 2, 0, twice_want, 2);

    /* Falling slowly, never below 0.75 x the best: one level. */
    const double slope[] = {100, 97, 94, 91, 88, 85, 82, 79, 76};
    const int one_want[][3] = {{0, 8, 0}};
    expect_levels("monotone, one level", slope, 9, 2, 0, one_want, 1);

    /* Flat: one level, its first point the plateau (ties keep the first). */
    const double flat[] = {5, 5, 5, 5};
    const int flat_want[][3] = {{0, 3, 0}};
    expect_levels("flat", flat, 4, 2, 0, flat_want, 1);

    /* A level spanning less than a factor of 4 between two others is a transition, not
     * a level: one point, or two a factor of 2 apart; at the end it is a level (the
     * sweep stopped there). By factors of 4, two points are a level. */
    const double trans[] = {100, 100, 60, 20, 20, 8};
    const int trans_want[][3] = {{0, 1, 0}, {5, 5, 5}},
              trans4_want[][3] = {{0, 1, 0}, {3, 4, 4}, {5, 5, 5}};
    expect_levels("transitions by factors of 2", trans, 6, 2, 0, trans_want, 2);
    expect_levels("transitions by factors of 4", trans, 6, 4, 0, trans4_want, 3);

    /* The H100's sweeps (GB/s, 4 KiB to 256 MiB), NVIDIA's OpenCL then CUDA: L1 to
     * 256 KiB; past it the loads still hit L1 in part (a transition of two points
     * through OpenCL, one through CUDA); L2 to 32 MiB, its plateau the median; a
     * transition; device memory. */
    const double ocl[] = {19430, 23170, 25421, 32081, 32437, 32343, 24766, 12338, 9711,
                          8754,  8222,  7839,  7790,  7705,  5750,  4082,  3500};
    const int ocl_want[][3] = {{0, 6, 4}, {9, 13, 11}, {15, 16, 16}};
    expect_levels("H100, OpenCL", ocl, 17, 2, 0, ocl_want, 3);
    const double cuda[] = {7737, 13982, 20571, 24395, 27041, 31617, 26129, 15412, 8922,
                           8221, 7848,  7733,  7595,  7472,  5697,  4063,  3499};
    const int cuda_want[][3] = {{0, 6, 5}, {8, 13, 11}, {15, 16, 16}};
    expect_levels("H100, CUDA", cuda, 17, 2, 0, cuda_want, 3);

    /* The H100's sweep when groups share a compute unit: past L1 the first points still
     * hit it in part (14 a transition, 9.7 and 8.2 high); L2's plateau is its median,
     * 7.6, not its best. */
    const double shared[] = {30, 32, 31, 14, 9.7, 8.2, 7.8, 7.6, 7.5, 7.4, 3.0};
    const int shared_want[][3] = {{0, 2, 1}, {4, 9, 7}, {10, 10, 10}};
    expect_levels("partial hits past L1", shared, 11, 2, 0, shared_want, 3);

    /* Few points. */
    const double two_apart[] = {100, 50}, two_close[] = {100, 90}, one[] = {7};
    const int apart_want[][3] = {{0, 0, 0}, {1, 1, 1}}, close_want[][3] = {{0, 1, 0}},
              one_want1[][3] = {{0, 0, 0}};
    expect_levels("two points apart", two_apart, 2, 2, 0, apart_want, 2);
    expect_levels("two points close", two_close, 2, 2, 0, close_want, 1);
    expect_levels("one point", one, 1, 2, 0, one_want1, 1);
    expect_levels("no point", one, 0, 2, 0, NULL, 0);
}

static void test_levels_latency(void)
{
    /* An H100-like chase by factors of 4: L1, a transition (part of it still hits L1),
     * L2 whose first point still hits L1 in part, a transition, device memory. L1's
     * plateau is its smallest value, L2's its median (123), not its smallest (102). */
    const double h100[] = {17, 17, 17, 42, 102, 123, 130, 233, 506};
    const int h100_want[][3] = {{0, 2, 0}, {4, 6, 5}, {8, 8, 8}};
    expect_levels("latency, 3 levels with transitions", h100, 9, 4, 1, h100_want, 3);

    /* A slow outlier inside L1 (40 > 1.4 x 17) rejoins it. */
    const double spike[] = {17, 17, 40, 17, 17, 130, 131};
    const int spike_want[][3] = {{0, 4, 0}, {5, 6, 6}};
    expect_levels("latency spike", spike, 7, 4, 1, spike_want, 2);

    /* Rising slowly within 1.4 x the smallest: one level, its smallest the plateau. */
    const double slope[] = {10, 11, 12, 13, 13.9};
    const int slope_want[][3] = {{0, 4, 0}};
    expect_levels("latency, monotone one level", slope, 5, 4, 1, slope_want, 1);

    const double flat[] = {3, 3, 3, 3};
    const int flat_want[][3] = {{0, 3, 0}};
    expect_levels("latency flat", flat, 4, 4, 1, flat_want, 1);

    /* Two later levels of an even count: the median is the worse of the middle two. */
    const double even[] = {5, 5, 20, 22, 26, 27, 100, 104};
    const int even_want[][3] = {{0, 1, 0}, {2, 5, 4}, {6, 7, 7}};
    expect_levels("latency, even counts", even, 8, 4, 1, even_want, 3);

    const double two[] = {2, 100};
    const int two_want[][3] = {{0, 0, 0}, {1, 1, 1}};
    expect_levels("latency, two points", two, 2, 4, 1, two_want, 2);
}

static void test_cycle(void)
{
    uint32_t next[300], order[300], rank[300];
    for (uint32_t n = 1; n <= 300; n += n < 20 ? 1 : 37)
        for (uint64_t seed = 0; seed < 5; seed++) {
            kl_chase_cycle(next, n, seed * 7919 + n);
            int one = kl_chase_order(next, n, order, rank), fixed = 0, ok = 1;
            CHECK(one, "n=%u seed=%llu: not one cycle", n, (unsigned long long)seed);
            if (!one)
                continue; /* order and rank mean nothing */
            for (uint32_t i = 0; i < n; i++) {
                fixed += n > 1 && next[i] == i;
                ok &= order[rank[i]] == i && next[order[rank[i]]] == order[(rank[i] + 1) % n];
            }
            CHECK(!fixed && ok, "n=%u: %d fixed points, order and rank %s", n, fixed,
                  ok ? "agree" : "disagree");
        }
    /* Every one of the six cycles through 4 nodes comes up (the generator is not stuck). */
    int seen[64] = {0}, kinds = 0;
    for (uint64_t seed = 0; seed < 300; seed++) {
        kl_chase_cycle(next, 4, seed);
        int code = (int)(next[0] * 16 + next[1] * 4 + next[2]);
        kinds += !seen[code]++;
    }
    CHECK(kinds == 6, "%d different 4-cycles in 300 seeds, want all 6", kinds);

    /* Links that are not one cycle through every node are refused. */
    const uint32_t identity[] = {0, 1, 2}, two_cycles[] = {1, 0, 3, 2}, rho[] = {1, 2, 1},
                   outside[] = {1, 5, 0};
    CHECK(!kl_chase_order(identity, 3, order, rank), "identity taken for a cycle");
    CHECK(!kl_chase_order(two_cycles, 4, order, rank), "two cycles taken for one");
    CHECK(!kl_chase_order(rho, 3, order, rank), "a tail into a loop taken for a cycle");
    CHECK(!kl_chase_order(outside, 3, order, rank), "a link out of the buffer taken");
    CHECK(!kl_chase_order(next, 0, order, rank), "no nodes taken for a cycle");
}

/* Walks steps links from node from. */
static uint32_t walk(const uint32_t *next, uint32_t from, uint64_t steps)
{
    while (steps--)
        from = next[from];
    return from;
}

static void test_chase_end(void)
{
    uint32_t next[97], order[97], rank[97];
    for (uint32_t n = 1; n <= 97; n += 12) {
        kl_chase_cycle(next, n, 42 + n);
        int one = kl_chase_order(next, n, order, rank);
        CHECK(one, "n=%u: not one cycle", n);
        if (!one)
            continue;
        const uint64_t counts[] = {0, 1, n - 1, n, n + 1, 3 * (uint64_t)n + 7, 1000};
        for (uint32_t from = 0; from < n; from += 1 + n / 4)
            for (size_t s = 0; s < sizeof counts / sizeof *counts; s++) {
                uint32_t got = kl_chase_after(order, rank, n, from, counts[s]);
                uint32_t want = walk(next, from, counts[s]);
                CHECK(got == want, "n=%u from %u, %llu steps: node %u, walked to %u", n, from,
                      (unsigned long long)counts[s], got, want);
            }
        /* Step counts beyond 32 bits and up to the largest: only steps mod n matter. */
        const uint64_t huge[] = {((uint64_t)1 << 40) + 5, UINT64_MAX, UINT64_MAX - 3};
        for (size_t s = 0; s < sizeof huge / sizeof *huge; s++) {
            uint32_t from = n / 2, got = kl_chase_after(order, rank, n, from, huge[s]);
            uint32_t want = walk(next, from, huge[s] % n);
            CHECK(got == want, "n=%u, %llu steps: node %u, want %u", n, (unsigned long long)huge[s],
                  got, want);
        }
    }
}

int main(void)
{
    test_levels_bandwidth();
    test_levels_latency();
    test_cycle();
    test_chase_end();
    return check_summary();
}
