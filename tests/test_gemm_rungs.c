/*
 * Every device rung of the GEMM ladder, at awkward shapes (1, primes,
 * non-multiples of every tile, vector width and chunk), for one element
 * type given on the command line, on the default device (PoCL in CI).
 * Each result must be verified against the reference, and the number of
 * rungs that really ran is counted against the number expected.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/context.h"
#include "workloads/gemm.h"

static const int shapes[][3] = {
    {1, 1, 1},    {1, 37, 1},      {37, 1, 29},   {17, 33, 9},
    {64, 64, 64}, {129, 130, 131}, {257, 1, 255}, {517, 300, 263},
};

/* Small chunks and tiles so chunk loops, vector tails and partial tiles all run. */
static const char *const small_params[] = {"KC=24", "WG=32", "TS=8", "WG0=4", "WG1=8"};

static int device_rungs(const char **names)
{
    int n = 0;
    for (int i = 0; i < kl_gemm_rung_count(); i++)
        if (kl_gemm_rung_at(i)->file)
            names[n++] = kl_gemm_rung_at(i)->name;
    return n;
}

static void run(struct kl_context *kl, enum kl_type t, const int *shape, const char *const *params,
                int nparams, const char **names, int nnames, int *ran)
{
    struct kl_gemm_request req;
    struct kl_report rep;
    memset(&req, 0, sizeof req);
    memset(&rep, 0, sizeof rep);
    req.M = shape[0], req.N = shape[1], req.K = shape[2];
    req.type = t;
    req.seed = 7;
    req.protocol = (struct kl_protocol){0, 1, 0.0, 1};
    req.rungs = names;
    req.nrungs = nnames;
    req.params = params;
    req.nparams = nparams;
    enum kl_status st = kl_gemm_ladder(kl, &req, &rep);
    CHECK(st == KL_OK, "%s %dx%dx%d: %s", kl_type_name(t), shape[0], shape[1], shape[2],
          kl_last_error(kl));
    CHECK(rep.count == nnames, "expected %d results, got %d", nnames, rep.count);
    for (int i = 0; i < rep.count; i++) {
        const struct kl_result *r = &rep.results[i];
        CHECK(r->status == KL_RESULT_VERIFIED && r->repeats >= 1 && r->median_s > 0,
              "%s %s %dx%dx%d%s: status %d: %s", r->rung, kl_type_name(t), shape[0], shape[1],
              shape[2], nparams ? " (small params)" : "", (int)r->status, r->note);
        if (r->status == KL_RESULT_VERIFIED && r->repeats >= 1)
            (*ran)++;
    }
    kl_report_free(&rep);
}

int main(int argc, char **argv)
{
    enum kl_type t = KL_FLOAT;
    struct kl_context *kl;
    char err[KL_ERR_MAX];
    const char *names[64];
    int ran = 0, expected = 0;

    if (argc > 1 && kl_type_parse(argv[1], &t) != KL_OK) {
        fprintf(stderr, "usage: %s [float|double|int]\n", argv[0]);
        return 2;
    }
    if (kl_open(NULL, &kl, err, sizeof err) != KL_OK) {
        fprintf(stderr, "cannot open a device: %s\n", err);
        return 1;
    }
    if (t == KL_DOUBLE && !kl->info.fp64) {
        printf("device has no fp64: double rungs not run\n");
        kl_close(kl);
        return 77; /* CTest SKIP_RETURN_CODE */
    }
    int n = device_rungs(names);
    CHECK(n == 10, "the ladder has %d device rungs, expected 10", n);
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        run(kl, t, shapes[s], NULL, 0, names, n, &ran);
        expected += n;
    }
    /* Chunked and tiled paths with small parameters at two awkward shapes. */
    static const int chunked[][3] = {{129, 130, 131}, {23, 19, 61}};
    for (size_t s = 0; s < sizeof chunked / sizeof *chunked; s++) {
        run(kl, t, chunked[s], small_params, 5, names, n, &ran);
        expected += n;
    }
    CHECK(ran == expected, "%d rung runs verified, expected %d", ran, expected);
    printf("%s: %d rung runs verified on %s\n", kl_type_name(t), ran, kl->info.name);
    kl_close(kl);
    return check_summary();
}
