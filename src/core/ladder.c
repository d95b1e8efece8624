#include "core/ladder.h"

#include <string.h>

int kl_rung_lookup(const struct kl_rung_table *t, const char *name)
{
    size_t n = strlen(name);
    int hit = -1;
    if (n == 0)
        return -1;
    for (int i = 0; i < t->count; i++) {
        if (strcmp(t->name(i), name) == 0)
            return i;
        if (strncmp(t->name(i), name, n) == 0) {
            if (hit >= 0)
                return -1; /* ambiguous prefix */
            hit = i;
        }
    }
    return hit;
}

enum kl_status kl_rungs_choose(const struct kl_rung_table *t, const char *const *names, int nnames,
                               const char *const *params, int nparams, int *chosen, int *nchosen,
                               struct kl_err *e)
{
    const struct kl_param_def *lists[64];
    int want[64] = {0};
    *nchosen = 0;
    if (t->count > 64)
        return kl_fail(e, KL_ERR_ARG, "too many rungs in the %s table", t->workload);
    for (int j = 0; j < nnames; j++) {
        int i = kl_rung_lookup(t, names[j]);
        if (i < 0) {
            kl_fail(e, KL_ERR_ARG, "unknown or ambiguous %s rung \"%s\"; rungs are:", t->workload,
                    names[j]);
            for (int k = 0; k < t->count; k++)
                kl_err_append(e, " %s", t->name(k));
            return KL_ERR_ARG;
        }
        want[i] = 1;
    }
    for (int i = 0; i < t->count; i++)
        if (nnames == 0 || want[i]) {
            lists[*nchosen] = t->params(i);
            chosen[(*nchosen)++] = i;
        }
    return kl_params_check_known(params, nparams, lists, *nchosen, e);
}
