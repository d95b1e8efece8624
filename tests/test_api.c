/*
 * The public API, used as another program would use it: only kladder.h.
 * Opens the default device, runs a host rung and a device rung on the same
 * arrays, checks both against a plain loop, and checks the errors.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kladder.h"

enum { M = 33, N = 17, K = 9 };

int main(void)
{
    static float A[M * K], B[K * N], C[M * N], want[M * N];
    struct kl_context *kl;
    struct kl_timing t;
    char err[4096];

    for (int i = 0; i < M * K; i++)
        A[i] = (float)((i * 7) % 11) - 5.0f;
    for (int i = 0; i < K * N; i++)
        B[i] = (float)((i * 5) % 13) - 6.0f;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double s = 0;
            for (int k = 0; k < K; k++)
                s += (double)A[i * K + k] * B[k * N + j];
            want[i * N + j] = (float)s; /* small integers: exact in float */
        }

    CHECK(kl_open("no-such-device-xyz", &kl, err, sizeof err) == KL_ERR_NO_DEVICE && !kl &&
              strstr(err, "no device matches"),
          "unknown device: %s", err);
    if (kl_open(NULL, &kl, err, sizeof err) != KL_OK) {
        fprintf(stderr, "cannot open a device: %s\n", err);
        return 1;
    }
    const char *rungs[] = {"host_ikj", "10_tiled", "08_vec4_row"};
    for (int r = 0; r < 3; r++) {
        memset(C, 0, sizeof C);
        enum kl_status st = kl_gemm(kl, rungs[r], KL_FLOAT, M, N, K, A, B, C, NULL, NULL, &t);
        CHECK(st == KL_OK, "%s: %s", rungs[r], kl_last_error(kl));
        CHECK(memcmp(C, want, sizeof C) == 0, "%s: wrong product", rungs[r]);
        CHECK(t.median_s > 0 && t.repeats >= 1 && t.min_s <= t.median_s && t.median_s <= t.max_s,
              "%s: timing", rungs[r]);
    }
    const char *p[] = {"TS=4"};
    struct kl_params params = {1, p};
    CHECK(kl_gemm(kl, "10_tiled", KL_FLOAT, M, N, K, A, B, C, &params, NULL, &t) == KL_OK &&
              strstr(t.options, "-DTS=4") && memcmp(C, want, sizeof C) == 0,
          "TS=4: options \"%s\"", t.options);

    CHECK(kl_gemm(kl, "99_nosuch", KL_FLOAT, M, N, K, A, B, C, NULL, NULL, &t) == KL_ERR_ARG &&
              strstr(kl_last_error(kl), "99_nosuch"),
          "unknown rung: %s", kl_last_error(kl));
    CHECK(kl_gemm(kl, "10_tiled", KL_FLOAT, 0, N, K, A, B, C, NULL, NULL, &t) == KL_ERR_ARG,
          "M = 0");
    const char *bad[] = {"TS=0"};
    struct kl_params badp = {1, bad};
    CHECK(kl_gemm(kl, "10_tiled", KL_FLOAT, M, N, K, A, B, C, &badp, NULL, &t) == KL_ERR_ARG &&
              strstr(kl_last_error(kl), "out of range"),
          "TS=0: %s", kl_last_error(kl));
    CHECK(strcmp(kl_status_str(KL_ERR_BUILD), "kernel build failed") == 0, "status text");
    kl_close(kl);
    return check_summary();
}
