/*
 * Fuzzes the `kladder:` comment block of users' kernel files:
 * kl_user_rung_parse (core/user_rung.c) over the input as the file's text, then,
 * for a rung that parses, its launch geometry (kl_user_rung_geometry, which
 * evaluates every global and local expression with kl_expr_eval) for a few sets
 * of sizes, every parameter at its default, its minimum and its maximum. The
 * sizes are named as all the workloads name theirs. Seeds:
 * corpus/fuzz_user_rung/ (expressions and the crashers found), and, added by
 * run.sh, the kernel templates (kernels/templates/) and the test suite's
 * users' kernels (tests/user_kernels/).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/user_rung.h"

static const char *const size_names[] = {"M", "N", "K", "Y", "D", "W", "H", "R"};
#define NSIZES ((int)(sizeof size_names / sizeof *size_names))
static const long long size_sets[][NSIZES] = {
    {1, 1, 1, 1, 1, 1, 1, 1},
    {4096, 4096, 4096, 4096, 4096, 4096, 4096, 16},
    {1000003, 7, 65537, 3, 1, 12345, 999, 0},
    {1LL << 31, 1LL << 31, 1LL << 31, 1LL << 31, 1LL << 31, 65536, 65536, 64},
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct kl_user_rung *u = calloc(1, sizeof *u);
    char *text = malloc(size + 1);
    struct kl_err e;
    if (!u || !text)
        goto done;
    memcpy(text, data, size);
    text[size] = '\0';
    if (kl_user_rung_parse("fuzz/kernel.cl", text, u, &e) != KL_OK)
        goto done;
    int np = kl_param_count(u->params), values[3][KL_MAX_PARAMS];
    for (int i = 0; i < np; i++) {
        values[0][i] = u->params[i].def;
        values[1][i] = u->params[i].min;
        values[2][i] = u->params[i].max;
    }
    for (size_t s = 0; s < sizeof size_sets / sizeof *size_sets; s++)
        for (int v = 0; v < 3; v++) {
            size_t global[3], local[3];
            int dims;
            kl_user_rung_geometry(u, size_names, size_sets[s], NSIZES, values[v], &dims, global,
                                  local, &e);
        }
done:
    if (u)
        kl_user_rung_free(u);
    free(u);
    free(text);
    return 0;
}
