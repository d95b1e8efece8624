#include "core/params.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int kl_param_count(const struct kl_param_def *defs)
{
    int n = 0;
    while (defs && n < KL_MAX_PARAMS && defs[n].name)
        n++;
    return n;
}

int kl_param_index(const struct kl_param_def *defs, const char *name)
{
    for (int i = 0; i < kl_param_count(defs); i++)
        if (strcmp(defs[i].name, name) == 0)
            return i;
    return -1;
}

int kl_param_value(const struct kl_param_def *defs, const int *values, const char *name)
{
    int i = kl_param_index(defs, name);
    return i < 0 ? 0 : values[i];
}

enum kl_status kl_param_split(const char *item, char *name, size_t n, long *value, struct kl_err *e)
{
    const char *eq = strchr(item, '=');
    char *end;
    if (!eq || eq == item || (size_t)(eq - item) >= n)
        return kl_fail(e, KL_ERR_ARG, "parameter \"%s\" is not of the form NAME=VALUE", item);
    memcpy(name, item, (size_t)(eq - item));
    name[eq - item] = '\0';
    errno = 0;
    *value = strtol(eq + 1, &end, 10);
    if (end == eq + 1 || *end != '\0')
        return kl_fail(e, KL_ERR_ARG, "parameter %s: \"%s\" is not an integer", name, eq + 1);
    if (errno == ERANGE)
        return kl_fail(e, KL_ERR_ARG, "parameter %s: %s is out of range", name, eq + 1);
    return KL_OK;
}

int kl_params_mention(const char *const *items, int nitems, const struct kl_param_def *defs)
{
    for (int j = 0; j < nitems; j++) {
        char name[64];
        long v;
        struct kl_err ignored;
        if (kl_param_split(items[j], name, sizeof name, &v, &ignored) == KL_OK &&
            kl_param_index(defs, name) >= 0)
            return 1;
    }
    return 0;
}

static int is_pow2(long v)
{
    return v > 0 && (v & (v - 1)) == 0;
}

enum kl_status kl_params_resolve(const char *rung, const struct kl_param_def *defs,
                                 const char *const *items, int nitems, int *values,
                                 unsigned *explicit_mask, struct kl_err *e)
{
    *explicit_mask = 0;
    for (int i = 0; i < kl_param_count(defs); i++)
        values[i] = defs[i].def;
    for (int j = 0; j < nitems; j++) {
        char name[64];
        long v;
        enum kl_status st = kl_param_split(items[j], name, sizeof name, &v, e);
        if (st != KL_OK)
            return st;
        int i = kl_param_index(defs, name);
        if (i < 0)
            continue;
        const struct kl_param_def *d = &defs[i];
        if (v < d->min || v > d->max || v % d->multiple != 0 || (d->pow2 && !is_pow2(v))) {
            kl_fail(e, KL_ERR_ARG, "rung %s: %s=%ld is out of range (%d..%d", rung, name, v, d->min,
                    d->max);
            if (d->multiple > 1)
                kl_err_append(e, ", multiple of %d", d->multiple);
            if (d->pow2)
                kl_err_append(e, ", power of two");
            kl_err_append(e, "); %s is the %s", name, d->help);
            return KL_ERR_ARG;
        }
        values[i] = (int)v;
        *explicit_mask |= 1u << i;
    }
    return KL_OK;
}

enum kl_status kl_params_check_multiples(const char *rung, const struct kl_param_def *defs,
                                         const int *values, const struct kl_param_multiple *m,
                                         struct kl_err *e)
{
    for (int i = 0; m && i < KL_MAX_MULTIPLES && m[i].name; i++) {
        int a = kl_param_index(defs, m[i].name), b = kl_param_index(defs, m[i].of);
        if (a < 0 || b < 0 || values[b] < 1 || values[a] % values[b] != 0)
            return kl_fail(e, KL_ERR_ARG, "rung %s: %s=%d is not a multiple of %s=%d", rung,
                           m[i].name, a < 0 ? 0 : values[a], m[i].of, b < 0 ? 0 : values[b]);
    }
    return KL_OK;
}

void kl_params_options(const struct kl_param_def *defs, const int *values, enum kl_type t,
                       char *out, size_t n)
{
    static const char *const type_macro[KL_TYPE_COUNT] = {
        [KL_FLOAT] = "-DKL_T_FLOAT",     [KL_DOUBLE] = "-DKL_T_DOUBLE",
        [KL_INT] = "-DKL_T_INT",         [KL_HALF] = "-DKL_T_HALF",
        [KL_BF16] = "-DKL_T_BF16",       [KL_FP8] = "-DKL_T_FP8",
        [KL_FP8E5M2] = "-DKL_T_FP8E5M2", [KL_INT8] = "-DKL_T_INT8",
        [KL_UCHAR] = "-DKL_T_UCHAR"};
    size_t used = (size_t)snprintf(out, n, "%s", type_macro[t]);
    for (int i = 0; i < kl_param_count(defs) && used < n; i++)
        used += (size_t)snprintf(out + used, n - used, " -D%s=%d", defs[i].name, values[i]);
}

enum kl_status kl_params_check_known(const char *const *items, int nitems,
                                     const struct kl_param_def *const *lists, int nlists,
                                     struct kl_err *e)
{
    for (int j = 0; j < nitems; j++) {
        char name[64];
        long v;
        int known = 0;
        enum kl_status st = kl_param_split(items[j], name, sizeof name, &v, e);
        if (st != KL_OK)
            return st;
        for (int i = 0; i < nlists && !known; i++)
            known = kl_param_index(lists[i], name) >= 0;
        if (!known)
            return kl_fail(e, KL_ERR_ARG,
                           "unknown parameter %s for the chosen rungs (see --list-rungs)", name);
    }
    return KL_OK;
}

void kl_params_print(const struct kl_param_def *defs, int indent, FILE *out)
{
    for (int p = 0; p < kl_param_count(defs); p++) {
        const struct kl_param_def *d = &defs[p];
        fprintf(out, "  %-*s   --param %s=%d  (%d..%d", indent, "", d->name, d->def, d->min,
                d->max);
        if (d->multiple > 1)
            fprintf(out, ", multiple of %d", d->multiple);
        if (d->pow2)
            fprintf(out, ", power of two");
        fprintf(out, "): %s\n", d->help);
    }
}
