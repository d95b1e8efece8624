/*
 * The collectives' sizes, checks and rows (multi/coll.c) through transports
 * made here, on the null device: one rank that moves the data as a lone
 * rank's collectives do (every row verified, its GB/s the bus bandwidth,
 * 0 for a lone all-reduce); one whose all-gather is wrong in one float (its
 * rows failed and untimed, the others verified); one that fails at 1 KiB
 * (the run stops with its error); and the requests refused. The ranks of
 * MPI and NCCL are tests/check_collectives.sh's and tests/gpu/multi.sh's.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/report.h"
#include "multi/coll.h"
#include "null_backend.h"

/* How the lone rank misbehaves. */
static enum { RIGHT, WRONG_GATHER, FAIL_AT_1K } mode;
static long runs;

/* A lone rank: every collective leaves its own send buffer in its receive buffer. */
static enum kl_status run(void *self, enum kl_coll_op op, const void *send, void *recv,
                          size_t count, struct kl_err *e)
{
    (void)self;
    runs++;
    if (mode == FAIL_AT_1K && count * sizeof(float) >= 1024)
        return kl_fail(e, KL_ERR_BACKEND, "the link went down");
    memcpy(recv, send, count * sizeof(float));
    if (mode == WRONG_GATHER && op == KL_COLL_ALL_GATHER)
        ((float *)recv)[count / 2] += 1;
    return KL_OK;
}

static void barrier(void *self)
{
    (void)self;
}

static double max_of(void *self, double v)
{
    (void)self;
    return v;
}

static struct kl_coll_transport lone(void)
{
    struct kl_coll_transport t = {.rank = 0, .nranks = 1};
    snprintf(t.what, sizeof t.what, "a lone rank of the test");
    kl_coll_host_memory(&t); /* the same buffers as MPI's transport */
    t.run = run, t.barrier = barrier, t.max = max_of;
    return t;
}

static const struct kl_result *find(const struct kl_report *r, const char *op, double x)
{
    for (int i = 0; i < r->count; i++)
        if (strcmp(r->results[i].rung, op) == 0 && r->results[i].x == x)
            return &r->results[i];
    return NULL;
}

/* A lone rank in mode m over sizes 8 B to max, three loops each, into *rep (emptied first). */
static enum kl_status measure(struct kl_context *kl, int m, size_t max, struct kl_report *rep,
                              struct kl_err *e)
{
    struct kl_coll_transport t = lone();
    struct kl_coll_request req = {8, max, 3, 0};
    memset(rep, 0, sizeof *rep);
    mode = m;
    return kl_coll_measure(kl, &req, &t, rep, e);
}

static void factors(void)
{
    CHECK(kl_coll_bus_factor(KL_COLL_ALL_REDUCE, 4) == 1.5 &&
              kl_coll_bus_factor(KL_COLL_ALL_GATHER, 4) == 0.75 &&
              kl_coll_bus_factor(KL_COLL_REDUCE_SCATTER, 4) == 0.75 &&
              kl_coll_bus_factor(KL_COLL_ALL_TO_ALL, 4) == 0.75 &&
              kl_coll_bus_factor(KL_COLL_BROADCAST, 4) == 1 &&
              kl_coll_bus_factor(KL_COLL_REDUCE, 4) == 1 &&
              kl_coll_bus_factor(KL_COLL_SEND_RECV, 4) == 1 &&
              kl_coll_bus_factor(KL_COLL_ALL_REDUCE, 1) == 0,
          "nccl-tests' bus factors on 4 ranks, and a lone all-reduce's 0");
}

static void right(struct kl_context *kl)
{
    struct kl_report rep;
    struct kl_err e;
    CHECK(measure(kl, RIGHT, 4096, &rep, &e) == KL_OK, "a lone rank measures: %s", e.msg);
    int verified = 0;
    for (int i = 0; i < rep.count; i++)
        verified += rep.results[i].status == KL_RESULT_VERIFIED && rep.results[i].nsamples == 3;
    const struct kl_result *bc = find(&rep, "broadcast", 4096), *ar = find(&rep, "all_reduce", 64);
    CHECK(rep.count == 7 * 10 && verified == rep.count, "10 sizes by 7: %d rows, %d verified",
          rep.count, verified);
    CHECK(bc && fabs(bc->gbps - 4096 / bc->median_s * 1e-9) < 1e-9 * bc->gbps && ar &&
              ar->gbps == 0 && strstr(ar->note, "busbw = algbw x 0"),
          "broadcast's GB/s is size / time; a lone all-reduce's bus bandwidth 0 (%s)",
          ar ? ar->note : "no row");
    CHECK(strcmp(rep.workload, "collectives") == 0 && strstr(rep.ceiling_note, "a lone rank") &&
              strstr(rep.timing, "slowest rank"),
          "the header names the transport and the clock");
    kl_report_free(&rep);
}

static void wrong(struct kl_context *kl)
{
    struct kl_report rep;
    struct kl_err e;
    CHECK(measure(kl, WRONG_GATHER, 1024, &rep, &e) == KL_OK, "a wrong gather still runs");
    const struct kl_result *g = find(&rep, "all_gather", 1024), *r = find(&rep, "reduce", 1024);
    CHECK(g && g->status == KL_RESULT_FAILED && g->median_s == 0 &&
              strstr(g->note, "rank 0's float 128 is"),
          "the gather wrong in one float is failed, untimed: %s", g ? g->note : "no row");
    CHECK(r && r->status == KL_RESULT_VERIFIED && kl_report_failed(&rep),
          "the other collectives verify; the run has a failure");
    kl_report_free(&rep);
}

static void failing(struct kl_context *kl)
{
    struct kl_coll_transport t = lone();
    struct kl_report rep;
    struct kl_err e;
    CHECK(measure(kl, FAIL_AT_1K, 4096, &rep, &e) == KL_ERR_BACKEND &&
              strstr(e.msg, "the link went down") && !find(&rep, "all_reduce", 1024),
          "a transport failing at 1 KiB ends the run with its error: %s", e.msg);
    kl_report_free(&rep);
    struct kl_coll_request bad[] = {{4, 64, 3, 0}, {8, 6, 3, 0}, {10, 64, 3, 0}, {8, 64, 0, 0}};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        memset(&rep, 0, sizeof rep);
        runs = 0;
        CHECK(kl_coll_measure(kl, &bad[k], &t, &rep, &e) == KL_ERR_ARG && runs == 0,
              "request %zu refused before any collective: %s", k, e.msg);
        kl_report_free(&rep);
    }
}

int main(void)
{
    struct kl_context *kl;
    char err[512];
    if (kl_open_on(&kl_backend_null, 0, 0, &kl, err, sizeof err) != KL_OK) {
        fprintf(stderr, "the null device does not open: %s\n", err);
        return 1;
    }
    factors();
    right(kl);
    wrong(kl);
    failing(kl);
    kl_close(kl);
    return check_summary();
}
