/*
 * Fuzzes the parsers of command-line values: rung parameters (kl_param_split,
 * kl_params_resolve and the checks after it, core/params.c) against the
 * parameter lists of the real GEMM rungs, and the sizes, times and lists of
 * cli/args.c (kl_parse_long, kl_parse_seconds, kl_split_list). The first byte
 * picks the rung; the rest is split at newlines and NUL bytes into the items,
 * each as if given to --param and to the other options. Seeds:
 * corpus/fuzz_params/, one option value per line.
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "core/params.h"
#include "workloads/gemm/gemm.h"

#define MAX_ITEMS 16

/* What a gemm run does with its --param items for one rung. */
static void resolve(const struct kl_gemm_rung *r, const char *const *items, int n)
{
    const struct kl_param_def *lists[1] = {r->params};
    int values[KL_MAX_PARAMS];
    unsigned mask;
    char options[1024];
    struct kl_err e;
    kl_params_mention(items, n, r->params);
    kl_params_check_known(items, n, lists, 1, &e);
    if (kl_params_resolve(r->name, r->params, items, n, values, &mask, &e) == KL_OK &&
        kl_params_check_multiples(r->name, r->params, values, r->multiples, &e) == KL_OK)
        kl_params_options(r->params, values, KL_FLOAT, options, sizeof options);
}

/* One item as the value of a size, a time and a list option. */
static void values(const char *item)
{
    char err[256], copy[256], *list[8];
    long l;
    double s;
    kl_parse_long("--size", item, 1, INT_MAX, &l, err, sizeof err);
    kl_parse_long("--seed", item, LONG_MIN, LONG_MAX, &l, err, sizeof err);
    kl_parse_seconds("--min-time", item, 0, 3600, &s, err, sizeof err);
    snprintf(copy, sizeof copy, "%s", item);
    kl_split_list(copy, list, 8);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *items[MAX_ITEMS];
    char *text;
    int n = 0;
    if (size == 0 || !(text = malloc(size)))
        return 0;
    /* The items, each ended by a newline or NUL (the last by the end of the input). */
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    for (char *p = text; p < text + size - 1 && n < MAX_ITEMS;) {
        size_t len = strcspn(p, "\n");
        items[n++] = p;
        p[len] = '\0';
        p += len + 1;
    }
    const struct kl_gemm_rung *r = kl_gemm_rung_at(data[0] % kl_gemm_rung_count());
    resolve(r, items, n);
    for (int i = 0; i < n; i++)
        values(items[i]);
    free(text);
    return 0;
}
