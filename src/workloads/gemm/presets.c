/*
 * Where a GEMM rung's values come from: --param, the tuned cache, the
 * rung's preset for this device and size (its table in gemm/rungs.c), or
 * its defaults.
 */
#include "workloads/gemm/parts.h"

#include <stdio.h>
#include <string.h>

#include "tune/cache.h"

/* A rung's parameter values: defaults, the user's items, then the constraints between them. */
enum kl_status kl_gemm_resolve(const struct kl_gemm_rung *r, const char *const *items, int nitems,
                               int *values, unsigned *mask, struct kl_err *e)
{
    enum kl_status st = kl_params_resolve(r->name, r->params, items, nitems, values, mask, e);
    return st != KL_OK ? st
                       : kl_params_check_multiples(r->name, r->params, values, r->multiples, e);
}

enum kl_status kl_gemm_resolve_items(const struct kl_gemm_rung *r, const char *const *items,
                                     int nitems, int *values, struct kl_err *e)
{
    const struct kl_param_def *list = r->params;
    unsigned mask;
    enum kl_status st = kl_params_check_known(items, nitems, &list, 1, e);
    return st != KL_OK ? st : kl_gemm_resolve(r, items, nitems, values, &mask, e);
}

const struct kl_gemm_preset *kl_gemm_preset_find(const struct kl_gemm_rung *r,
                                                 const struct kl_device_info *dev, enum kl_type t,
                                                 int M, int N, int K)
{
    int cc = dev->cc_major * 10 + dev->cc_minor, cls = kl_tune_size_class(M, N, K);
    for (int i = 0; i < KL_MAX_PRESETS && r->presets[i].cc; i++)
        if (r->presets[i].cc == cc && r->presets[i].type == t && cls <= r->presets[i].max_class &&
            (!r->presets[i].max_m || M <= r->presets[i].max_m))
            return &r->presets[i];
    return NULL;
}

/* "WHAT NAME=V NAME=V" into config (n bytes). */
static void describe(char *config, size_t n, const char *what, const char *const *items, int nitems)
{
    size_t used = (size_t)snprintf(config, n, "%s", what);
    for (int j = 0; j < nitems && used < n; j++)
        used += (size_t)snprintf(config + used, n - used, " %s", items[j]);
}

/*
 * A rung's values in a ladder: --param when it sets one of the rung's own;
 * else its tuned parameters (req->tuned); else its preset for this device
 * and size; else its defaults. Tuned and preset values, like defaults,
 * leave *mask empty (a misfit makes the rung skipped). config (n bytes)
 * gets where tuned or preset values came from and what they are, or "".
 */
enum kl_status kl_gemm_resolve_request(const struct kl_gemm_request *req,
                                       const struct kl_device_info *dev,
                                       const struct kl_gemm_rung *r, int *values, unsigned *mask,
                                       char *config, size_t n, struct kl_err *e)
{
    const struct kl_gemm_rung_params *tuned = NULL;
    const struct kl_gemm_preset *preset;
    const char *items[KL_MAX_PARAMS];
    char buf[512];
    int nitems;
    enum kl_status st;
    config[0] = '\0';
    if (kl_params_mention(req->params, req->nparams, r->params))
        return kl_gemm_resolve(r, req->params, req->nparams, values, mask, e);
    for (int i = 0; i < req->ntuned && !tuned; i++)
        if (strcmp(req->tuned[i].rung, r->name) == 0)
            tuned = &req->tuned[i];
    if (tuned) {
        st = kl_gemm_resolve(r, tuned->items, tuned->nitems, values, mask, e);
        describe(config, n, "tuned", tuned->items, tuned->nitems);
    } else if (!req->no_presets &&
               (preset = kl_gemm_preset_find(r, dev, req->type, req->M, req->N, req->K))) {
        if ((nitems = kl_tuned_items(preset->params, buf, sizeof buf, items, KL_MAX_PARAMS)) < 1)
            return kl_fail(e, KL_ERR_ARG, "rung %s: malformed preset \"%s\"", r->name,
                           preset->params);
        st = kl_gemm_resolve(r, items, nitems, values, mask, e);
        char what[32];
        snprintf(what, sizeof what, "preset sm_%d", preset->cc);
        describe(config, n, what, items, nitems);
    } else {
        return kl_gemm_resolve(r, req->params, req->nparams, values, mask, e);
    }
    *mask = 0;
    return st;
}
