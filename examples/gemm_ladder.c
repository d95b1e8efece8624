/*
 * gemm_ladder: the GEMM ladder through the installed library, as any program
 * uses it (kladder.h and libkladder only). Opens a device, runs every rung at
 * SIZE×SIZE×SIZE in float with one timed launch each, prints a row per rung
 * and exits 1 when a rung's result was wrong (or nothing was verified).
 *
 * usage: gemm_ladder [SIZE [DEVICE]]
 *   SIZE    M = N = K (default 64)
 *   DEVICE  as kl_open takes it: "0:0", "gpu", "cpu", part of a name, "cuda:0";
 *           default: KLADDER_DEVICE, else the first GPU, else the first device
 *
 * Build it against an installed kladder with CMake (CMakeLists.txt here) or
 * pkg-config (Makefile here).
 */
#include <stdio.h>
#include <stdlib.h>

#include <kladder.h>

static const char *row_status(enum kl_row_status s)
{
    switch (s) {
    case KL_ROW_VERIFIED: return "verified";
    case KL_ROW_FAILED: return "FAILED";
    case KL_ROW_SKIPPED: return "skipped";
    case KL_ROW_MEASURED: return "measured";
    }
    return "?";
}

int main(int argc, char **argv)
{
    long size = 64;
    char *end;
    if (argc > 3 || (argc > 1 && ((size = strtol(argv[1], &end, 10)) <= 0 || *end))) {
        fprintf(stderr, "usage: gemm_ladder [SIZE [DEVICE]]\n");
        return 2;
    }

    struct kl_context *kl;
    char err[1024];
    if (kl_open(argc > 2 ? argv[2] : NULL, &kl, err, sizeof err) != KL_OK) {
        fprintf(stderr, "gemm_ladder: %s\n", err);
        return 3;
    }

    /* No warm-up and one timed launch: a quick run, every rung still verified. */
    struct kl_protocol quick = {.warmup = 0, .min_repeats = 1, .min_time = 0, .max_repeats = 1};
    struct kl_ladder_request req = {
        .workload = "gemm", .type = KL_FLOAT, .size = {size, size, size}, .protocol = &quick};
    struct kl_ladder *lad;
    enum kl_status st = kl_ladder_run(kl, &req, &lad);
    if (st != KL_OK) {
        fprintf(stderr, "gemm_ladder: %s: %s\n", kl_status_str(st), kl_last_error(kl));
        kl_close(kl);
        return 3;
    }

    printf("kladder %s, %s, GEMM float %s\n", KLADDER_VERSION, kl_device_name(kl),
           kl_ladder_sizes(lad));
    int verified = 0, failed = 0;
    for (int i = 0; i < kl_ladder_count(lad); i++) {
        const struct kl_row *r = kl_ladder_row(lad, i);
        printf("%-22s %-8s %10.3f GFLOP/s  %s\n", r->rung, row_status(r->status), r->gflops,
               r->status == KL_ROW_VERIFIED || !r->note ? "" : r->note);
        verified += r->status == KL_ROW_VERIFIED;
        failed += r->status == KL_ROW_FAILED;
    }
    printf("%d rows: %d verified, %d failed\n", kl_ladder_count(lad), verified, failed);

    kl_ladder_free(lad);
    kl_close(kl);
    return failed || !verified;
}
