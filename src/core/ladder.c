#include "core/ladder.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "core/launch.h"
#include "core/measure.h"
#include "core/progress.h"
#include "core/stop.h"
#include "core/util.h"

static const char *name_of(const struct kl_rung_set *s, int i)
{
    return i < s->t->count ? s->t->name(i) : s->users[i - s->t->count].name;
}

static const struct kl_param_def *params_of(const struct kl_rung_set *s, int i)
{
    return i < s->t->count ? s->t->params(i) : s->users[i - s->t->count].params;
}

int kl_rung_lookup(const struct kl_rung_set *s, const char *name)
{
    size_t n = strlen(name);
    int hit = -1, word = -1, words = 0, count = s->t->count + s->nusers;
    if (n == 0)
        return -1;
    for (int i = 0; i < count; i++) {
        const char *r = name_of(s, i);
        if (strcmp(r, name) == 0)
            return i;
        if (strncmp(r, name, n) == 0 && r[n] == '_')
            word = i, words++; /* "15" is 15_mma_tf32 even beside 15cl_mma_tf32 */
    }
    if (words == 1)
        return word;
    for (int i = 0; i < count; i++)
        if (strncmp(name_of(s, i), name, n) == 0) {
            if (hit >= 0)
                return -1; /* ambiguous prefix */
            hit = i;
        }
    return hit;
}

enum kl_status kl_rung_not_found(const struct kl_rung_set *s, const char *name, const char *what,
                                 struct kl_err *e)
{
    int count = s->t->count + s->nusers, matches = 0;
    size_t n = strlen(name);
    for (int i = 0; i < count; i++)
        matches += n > 0 && strncmp(name_of(s, i), name, n) == 0;
    if (matches > 1) {
        kl_fail(e, KL_ERR_ARG, "ambiguous %s \"%s\": %d begin with it:", what, name, matches);
        for (int i = 0; i < count; i++)
            if (strncmp(name_of(s, i), name, n) == 0)
                kl_err_append(e, " %s", name_of(s, i));
        kl_err_append(e, "; give more of the name");
        return KL_ERR_ARG;
    }
    kl_fail(e, KL_ERR_ARG, "unknown %s \"%s\"; they are:", what, name);
    for (int i = 0; i < count; i++)
        kl_err_append(e, " %s", name_of(s, i));
    return KL_ERR_ARG;
}

/* A user's rung whose name is a table rung's or another user rung's: an error. */
static enum kl_status names_unique(const struct kl_rung_set *s, struct kl_err *e)
{
    for (int j = 0; j < s->nusers; j++)
        for (int i = 0; i < s->t->count + j; i++)
            if (strcmp(name_of(s, i), s->users[j].name) == 0)
                return kl_fail(e, KL_ERR_ARG,
                               "%s: the rung name \"%s\" is taken; name it with a line "
                               "\"kladder: name NAME\" in the file",
                               s->users[j].path, s->users[j].name);
    return KL_OK;
}

enum kl_status kl_rungs_choose(const struct kl_rung_set *s, const char *const *names, int nnames,
                               const char *const *params, int nparams, int *chosen, int *nchosen,
                               struct kl_err *e)
{
    const struct kl_param_def *lists[KL_MAX_RUNGS];
    int want[KL_MAX_RUNGS] = {0}, count = s->t->count + s->nusers;
    enum kl_status st;
    *nchosen = 0;
    if (count > KL_MAX_RUNGS)
        return kl_fail(e, KL_ERR_ARG, "more than %d %s rungs", KL_MAX_RUNGS, s->t->workload);
    if ((st = names_unique(s, e)) != KL_OK)
        return st;
    for (int j = 0; j < nnames; j++) {
        int i = kl_rung_lookup(s, names[j]);
        if (i < 0) {
            char what[64];
            snprintf(what, sizeof what, "%s rung", s->t->workload);
            return kl_rung_not_found(s, names[j], what, e);
        }
        want[i] = 1;
    }
    for (int i = 0; i < count; i++)
        if (nnames == 0 || want[i]) {
            lists[*nchosen] = params_of(s, i);
            chosen[(*nchosen)++] = i;
        }
    return kl_params_check_known(params, nparams, lists, *nchosen, e);
}

static const struct kl_user_rung *user_of(const struct kl_workload *w,
                                          const struct kl_ladder_args *a, int i)
{
    return i >= w->table->count ? &a->users[i - w->table->count] : NULL;
}

/*
 * The facts of table rung i's row known before it runs: on the host where the table names
 * no kernel file for it (a host rung, as struct kl_rung_table says), then the workload's own
 * (precision and the like).
 */
static void describe(const struct kl_workload *w, int i, struct kl_result *res)
{
    res->on_host = w->table->file && !w->table->file(i);
    if (w->describe)
        w->describe(w->self, i, res);
}

/* Rung i's values: its defaults, then the NAME=VALUE items; *mask: which the items set. */
static enum kl_status resolve(const struct kl_workload *w, const struct kl_ladder_args *a, int i,
                              const char *const *items, int n, int *values, unsigned *mask,
                              struct kl_err *e)
{
    struct kl_rung_set s = {w->table, a->users, a->nusers};
    return kl_params_resolve(name_of(&s, i), params_of(&s, i), items, n, values, mask, e);
}

/*
 * Rung i's values (the workload's choice, or defaults then the user's);
 * *users: the user set them, wholly or in part. config: see kl_workload.
 */
static enum kl_status values_of(const struct kl_workload *w, const struct kl_ladder_args *a, int i,
                                int *values, int *users, char *config, size_t n, struct kl_err *e)
{
    unsigned mask;
    enum kl_status st;
    config[0] = '\0';
    if (w->values && !user_of(w, a, i))
        return w->values(w->self, i, a, values, users, config, n, e);
    st = resolve(w, a, i, a->params, a->nparams, values, &mask, e);
    *users = mask != 0 || (w->named_is_users && a->nrungs > 0) || user_of(w, a, i);
    return st;
}

/* A user rung's geometry for the workload's sizes and these values, checked against the device. */
static enum kl_status user_shape(const struct kl_workload *w, const struct kl_user_rung *u,
                                 const int *values, struct kl_launch *l, struct kl_err *e)
{
    const struct kl_user_iface *f = w->user;
    long long sizes[4];
    for (int i = 0; i < f->nsizes; i++)
        sizes[i] = f->size(w->self, i);
    enum kl_status st = kl_user_rung_geometry(u, f->size_names, sizes, f->nsizes, values, &l->dims,
                                              l->global, l->local, e);
    return st != KL_OK ? st : kl_launch_check(l, u->name, e);
}

/*
 * Rung i's values against the device, building nothing: a user rung's
 * geometry (*wg, when not NULL: its work-group size), else the workload's check.
 */
static enum kl_status check_values(const struct kl_workload *w, const struct kl_user_rung *u, int i,
                                   const int *values, size_t *wg, struct kl_err *e)
{
    if (!u)
        return w->check ? w->check(w->self, i, values, e) : KL_OK;
    struct kl_launch l = {.kl = w->kl};
    enum kl_status st = user_shape(w, u, values, &l, e);
    if (st == KL_OK && wg) {
        *wg = 1;
        for (int d = 0; d < l.dims; d++)
            *wg *= l.local[d];
    }
    return st;
}

/* The user's kernels are for w, in a layout w takes. */
static enum kl_status users_fit(const struct kl_workload *w, const struct kl_ladder_args *a,
                                struct kl_err *e)
{
    if (a->nusers && !w->user)
        return kl_fail(e, KL_ERR_ARG, "%s takes no kernels of the user's (--kernel)",
                       w->table->workload);
    for (int j = 0; j < a->nusers; j++) {
        const struct kl_user_rung *u = &a->users[j];
        if (strcmp(u->workload, w->table->workload) != 0)
            return kl_fail(e, KL_ERR_ARG,
                           "%s is a kernel for %s (its line \"kladder: workload %s\"), not for %s",
                           u->path, u->workload, u->workload, w->table->workload);
        if (u->layout[0] && !w->user->takes_layout)
            return kl_fail(e, KL_ERR_ARG, "%s: %s has one layout (no \"kladder: layout\")", u->path,
                           w->table->workload);
    }
    return KL_OK;
}

/* The whole ladder (no rung named), less the rungs the workload leaves out of it. */
static void drop_unlisted(const struct kl_workload *w, int *chosen, int *nchosen)
{
    int n = 0;
    for (int k = 0; k < *nchosen; k++)
        if (chosen[k] >= w->table->count || w->listed(w->self, chosen[k]))
            chosen[n++] = chosen[k];
    *nchosen = n;
}

/*
 * Rung i's values, checked before anything runs: a rung the device cannot
 * run is a skipped row (unless named among the user's), one whose values
 * --param gave fails here.
 */
static enum kl_status check_chosen(const struct kl_workload *w, const struct kl_ladder_args *a,
                                   int i, struct kl_err *e)
{
    int values[KL_MAX_PARAMS], users;
    const struct kl_user_rung *u = user_of(w, a, i);
    char why[256];
    enum kl_status st;
    if (!u && w->available && !w->available(w->self, i, why, sizeof why) &&
        !(w->named_is_users && a->nrungs > 0))
        return KL_OK; /* a skipped row, whatever --param says */
    if ((st = values_of(w, a, i, values, &users, why, sizeof why, e)) != KL_OK || !users)
        return st;
    if (!u && w->available && !w->available(w->self, i, why, sizeof why))
        return strstr(why, w->table->name(i)) /* the reason names the rung already */
                   ? kl_fail(e, KL_ERR_UNSUPPORTED, "%s", why)
                   : kl_fail(e, KL_ERR_UNSUPPORTED, "rung %s: %s", w->table->name(i), why);
    return check_values(w, u, i, values, NULL, e);
}

enum kl_status kl_ladder_begin(const struct kl_workload *w, const struct kl_ladder_args *a,
                               int *chosen, int *nchosen, struct kl_err *e)
{
    struct kl_rung_set s = {w->table, a->users, a->nusers};
    enum kl_status st = users_fit(w, a, e);
    if (st != KL_OK)
        return st;
    st = kl_rungs_choose(&s, a->rungs, a->nrungs, a->params, a->nparams, chosen, nchosen, e);
    if (st == KL_OK && a->nrungs == 0 && w->listed)
        drop_unlisted(w, chosen, nchosen);
    for (int k = 0; k < *nchosen && st == KL_OK; k++)
        st = check_chosen(w, a, chosen[k], e);
    return st;
}

/* 1 for OpenCL C's scalar and vector type names (whose meaning a typedef cannot change). */
static int builtin_scalar(const char *t)
{
    static const char *const names[] = {"char",   "uchar", "short", "ushort", "int",
                                        "uint",   "long",  "ulong", "half",   "float",
                                        "double", "bool",  "size_t"};
    size_t n = strcspn(t, "0123456789"); /* float4 is float's vector */
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strlen(names[i]) == n && strncmp(t, names[i], n) == 0)
            return 1;
    return 0;
}

/* What a kernel parameter that takes an argument of kind is: its words, its size in bytes. */
static const char *arg_wanted(enum kl_arg_kind kind, size_t *size)
{
    *size = kind == KL_ARG_BUF || kind == KL_ARG_DOUBLE ? 8 : 4;
    return kind == KL_ARG_BUF     ? "a global pointer"
           : kind == KL_ARG_INT   ? "int"
           : kind == KL_ARG_FLOAT ? "float"
                                  : "double";
}

/*
 * 1 when parameter j of sig (its type name t, "" unknown) cannot take an
 * argument of kind: another size, a buffer where no global pointer is, or
 * another built-in type where a scalar goes.
 */
static int arg_mismatch(const struct kl_kernel_sig *sig, int j, const char *t,
                        enum kl_arg_kind kind)
{
    size_t size, tl = strlen(t);
    const char *want = arg_wanted(kind, &size);
    int bad = sig->size[j] && sig->size[j] != size;
    if (tl && kind == KL_ARG_BUF)
        bad |= !sig->global[j] || t[tl - 1] != '*';
    else if (tl && kind == KL_ARG_INT)
        bad |= builtin_scalar(t) && strcmp(t, "int") != 0 && strcmp(t, "uint") != 0;
    else if (tl)
        bad |= builtin_scalar(t) && strcmp(t, want) != 0;
    return bad;
}

/* The error for parameter j of u's kernel, which cannot take an argument of kind. */
static enum kl_status arg_refused(const struct kl_workload *w, const struct kl_user_rung *u,
                                  const struct kl_kernel_sig *sig, int j, const char *t,
                                  enum kl_arg_kind kind, struct kl_err *e)
{
    size_t size, tl = strlen(t);
    const char *want = arg_wanted(kind, &size);
    if (sig->constant[j]) /* a global buffer fits it only up to the device's limit */
        return kl_fail(e, KL_ERR_ARG,
                       "%s: argument %d of kernel %s is in constant memory; a %s kernel takes "
                       "a global pointer there (the buffer kladder passes may exceed the "
                       "device's %llu bytes of constant memory): %s",
                       u->path, j + 1, u->entry, w->table->workload,
                       (unsigned long long)w->kl->info.constant_mem, w->user->signature);
    return kl_fail(e, KL_ERR_ARG,
                   "%s: argument %d of kernel %s is %s%s; a %s kernel takes %s there: %s", u->path,
                   j + 1, u->entry, tl ? t : "of another size",
                   tl && kind == KL_ARG_BUF && !sig->global[j] ? " (not global)" : "",
                   w->table->workload, want, w->user->signature);
}

/* Does the kernel's signature, as far as the API tells, take l's arguments? */
static enum kl_status signature_check(const struct kl_workload *w, const struct kl_user_rung *u,
                                      const struct kl_launch *l, struct kl_err *e)
{
    struct kl_kernel_sig sig;
    int n = 0, local_param = w->kl->ops->local_is_param;
    w->kl->ops->kernel_signature(l->kernel, &sig);
    for (int j = 0; j < l->nargs; j++) /* not a parameter where dynamic shared memory (CUDA) */
        n += local_param || l->args[j].kind != KL_ARG_LOCAL;
    if (sig.count >= 0 && sig.count != n)
        return kl_fail(e, KL_ERR_ARG, "%s: kernel %s takes %d arguments; a %s kernel takes %d: %s",
                       u->path, u->entry, sig.count, w->table->workload, n, w->user->signature);
    for (int j = 0; j < l->nargs && j < sig.count && j < KL_MAX_SIG; j++) {
        /* The prelude's T is the element type; other typedefs' names tell nothing. */
        const char *t = strcmp(sig.type[j], "T") == 0 ? kl_type_name(w->type) : sig.type[j];
        if (arg_mismatch(&sig, j, t, l->args[j].kind))
            return arg_refused(w, u, &sig, j, t, l->args[j].kind, e);
    }
    return KL_OK;
}

/*
 * A user's kernel with these values: its geometry, build (options into opts, n bytes; its
 * time into *build_s) and signature, l ready for the workload's run of it.
 */
static enum kl_status prepare_user(const struct kl_workload *w, const struct kl_user_rung *u,
                                   const int *values, char *opts, size_t n, struct kl_launch *l,
                                   double *build_s)
{
    struct kl_context *kl = w->kl;
    char options[sizeof((struct kl_result *)0)->options + 32];
    enum kl_status st;
    kl_params_options(u->params, values, w->type, opts, n);
    if (w->user->options) {
        size_t used = strlen(opts);
        w->user->options(w->self, opts + used, n - used);
    }
    /* OpenCL says its arguments' types only when asked at build time. */
    snprintf(options, sizeof options, "%s%s", opts,
             kl->ops->arg_info_option ? kl->ops->arg_info_option : "");
    if ((st = user_shape(w, u, values, l, &kl->err)) != KL_OK ||
        (st = kl_kernel_get_text(kl, u->path, u->text, u->entry, options, &l->kernel, build_s)) !=
            KL_OK ||
        (st = kl_launch_check(l, u->name, &kl->err)) != KL_OK)
        return st;
    w->user->args(w->self, u, l);
    return signature_check(w, u, l, &kl->err);
}

/* A user's kernel: prepared, then the workload's run of it. */
static enum kl_status run_user(const struct kl_workload *w, const struct kl_user_rung *u,
                               const int *values, const struct kl_protocol *proto,
                               struct kl_result *res)
{
    struct kl_launch l = {.kl = w->kl};
    enum kl_status st =
        prepare_user(w, u, values, res->options, sizeof res->options, &l, &res->build_s);
    return st != KL_OK ? st : w->user->run(w->self, &l, proto, res);
}

/*
 * Every chosen user rung (but those the tuner searches) built and checked
 * with its values before the first rung runs: a kernel that does not build,
 * or cannot take the workload's arguments, is refused with nothing measured.
 * What only a run can tell (a device limit, a wrong result) is left to it.
 */
static enum kl_status preflight(const struct kl_workload *w, const struct kl_ladder_args *a,
                                const int *chosen, int nchosen, struct kl_err *e)
{
    for (int k = 0; k < nchosen && !a->tuner; k++) {
        const struct kl_user_rung *u = user_of(w, a, chosen[k]);
        int values[KL_MAX_PARAMS], users;
        char config[sizeof((struct kl_result *)0)->config],
            opts[sizeof((struct kl_result *)0)->options];
        struct kl_launch l = {.kl = w->kl};
        double build_s;
        if (!u)
            continue;
        enum kl_status st = values_of(w, a, chosen[k], values, &users, config, sizeof config, e);
        if (st == KL_OK) {
            st = prepare_user(w, u, values, opts, sizeof opts, &l, &build_s);
            if (e != &w->kl->err)
                *e = w->kl->err;
        }
        if (st == KL_ERR_ARG || st == KL_ERR_BUILD)
            return st;
    }
    return KL_OK;
}

/* Rung i (u: the user's kernel, or NULL) with these values by proto into res. */
static enum kl_status run_values(const struct kl_workload *w, const struct kl_user_rung *u, int i,
                                 const int *values, const struct kl_protocol *proto,
                                 struct kl_result *res)
{
    return u ? run_user(w, u, values, proto, res) : w->run(w->self, i, values, proto, res);
}

enum kl_status kl_ladder_check(const struct kl_workload *w, const struct kl_ladder_args *a, int i,
                               const char *const *items, int n, size_t *wg, struct kl_err *e)
{
    int values[KL_MAX_PARAMS];
    unsigned mask;
    enum kl_status st = resolve(w, a, i, items, n, values, &mask, e);
    if (wg)
        *wg = 0;
    return st != KL_OK ? st : check_values(w, user_of(w, a, i), i, values, wg, e);
}

enum kl_status kl_ladder_values(const struct kl_workload *w, const struct kl_ladder_args *a, int i,
                                int *values, char *config, size_t n, struct kl_err *e)
{
    int users;
    return values_of(w, a, i, values, &users, config, n, e);
}

enum kl_status kl_ladder_try(const struct kl_workload *w, const struct kl_ladder_args *a, int i,
                             const char *const *items, int n, const struct kl_protocol *proto,
                             struct kl_result *res, struct kl_err *e)
{
    const struct kl_user_rung *u = user_of(w, a, i);
    int values[KL_MAX_PARAMS];
    unsigned mask;
    enum kl_status st = resolve(w, a, i, items, n, values, &mask, e);
    if (st != KL_OK)
        return st;
    if (!u)
        describe(w, i, res);
    return run_values(w, u, i, values, proto, res);
}

/*
 * Where the backend builds several kernels at once (NVRTC, NVIDIA's
 * OpenCL): the kernels of every chosen table rung that can run, built
 * together before the first rung runs (a first run through CUDA spent 18 of
 * its 51 s compiling one kernel after another). Each rung still asks for
 * its own as it runs, gets it from the cache with its build time, and
 * reports a build that failed here as it would have.
 */
static void prefetch(const struct kl_workload *w, const struct kl_ladder_args *a, const int *chosen,
                     int nchosen, int first, int total)
{
    struct kl_context *kl = w->kl;
    struct kl_kernel_want want[2 * KL_MAX_RUNGS];
    int n = 0;
    if (!w->kernels || !kl->ops->parallel_builds || !kl->ops->parallel_builds(kl->dev))
        return;
    for (int k = 0; k < nchosen; k++) {
        int i = chosen[k], values[KL_MAX_PARAMS], users;
        char why[256], config[sizeof((struct kl_result *)0)->config];
        struct kl_err e;
        if (user_of(w, a, i) || (w->available && !w->available(w->self, i, why, sizeof why)) ||
            values_of(w, a, i, values, &users, config, sizeof config, &e) != KL_OK ||
            (w->check && w->check(w->self, i, values, &e) != KL_OK))
            continue;
        n += w->kernels(w->self, i, values, want + n, (int)(sizeof want / sizeof *want) - n);
    }
    if (n > 1) {
        kl_progress_step(first, total, "%s: building %d kernels at once", w->table->workload, n);
        kl_kernel_prefetch(kl, want, n);
    }
}

/*
 * A row's error: its note; then the row stays failed and the ladder goes on
 * (a wrong result), the row is skipped (its defaults do not fit the device:
 * goes on; the run was interrupted: stops), or the ladder stops. KL_OK where
 * it goes on.
 */
static enum kl_status row_error(struct kl_result *res, enum kl_status st, int users,
                                const struct kl_err *e)
{
    snprintf(res->note, sizeof res->note, "%.*s", (int)sizeof res->note - 1, e->msg);
    if (st == KL_ERR_INTERRUPTED) {
        res->status = KL_RESULT_SKIPPED; /* not measured: the rows before it stand */
        snprintf(res->note, sizeof res->note, "not measured: the run was interrupted");
        return st;
    }
    if (st == KL_ERR_UNSUPPORTED && !users) {
        res->status = KL_RESULT_SKIPPED; /* its defaults do not fit this device */
        return KL_OK;
    }
    return st == KL_ERR_VERIFY ? KL_OK : st; /* the row stays failed; the rows so far are kept */
}

/* 1 where NAME=... is among items (n of them), or in text ("preset sm_90 BM=128,BN=64"). */
static int names_value(const char *const *items, int n, const char *text, const char *name)
{
    size_t len = strlen(name);
    for (int k = 0; k < n; k++)
        if (strncmp(items[k], name, len) == 0 && items[k][len] == '=')
            return 1;
    for (const char *p = text ? strstr(text, name) : NULL; p; p = strstr(p + 1, name))
        if ((p == text || p[-1] == ' ' || p[-1] == ',') && p[len] == '=')
            return 1;
    return 0;
}

int kl_ladder_set_by_rule(const char *config, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = strstr(config, name); p; p = strstr(p + 1, name)) {
        const char *v = p + len, *close;
        if ((p != config && p[-1] != ' ') || *v != '=')
            continue;
        v += strcspn(v, " ");
        if (strncmp(v, " (", 2) == 0 && (close = strchr(v, ')')) && close - v >= 6 &&
            strncmp(close - 4, "rule", 4) == 0)
            return 1;
    }
    return 0;
}

/*
 * What rung i builds and with what, for the article: each parameter's value
 * and where it came from (--param, the tuned cache or a preset, as the row's
 * config names them, a rule where the config says one set it, else the
 * default), and its kernel file with the hash of the text it was built from.
 */
static void record_inputs(const struct kl_workload *w, const struct kl_ladder_args *a, int i,
                          const struct kl_user_rung *u, const int *values, struct kl_result *res)
{
    struct kl_rung_set s = {w->table, a->users, a->nusers};
    const struct kl_param_def *p = params_of(&s, i);
    const char *origin = strncmp(res->config, "tuned", 5) == 0    ? "tuned"
                         : strncmp(res->config, "preset", 6) == 0 ? "preset"
                                                                  : NULL;
    const char *file = u ? u->path : w->table->file ? w->table->file(i) : NULL;
    char *text = NULL;
    res->nvalues = kl_param_count(p);
    for (int k = 0; k < res->nvalues; k++) {
        struct kl_value_source *v = &res->values[k];
        snprintf(v->name, sizeof v->name, "%s", p[k].name);
        v->value = values[k];
        v->from = names_value(a->params, a->nparams, NULL, p[k].name)      ? "--param"
                  : kl_ladder_set_by_rule(res->config, p[k].name)          ? "rule"
                  : origin && names_value(NULL, 0, res->config, p[k].name) ? origin
                                                                           : "default";
    }
    if (!file)
        return; /* a host rung */
    snprintf(res->source_file, sizeof res->source_file, "%s", file);
    if (u)
        kl_text_hash(u->text, res->source_hash);
    else if (kl_kernel_file_text(w->kl, file, &text) == KL_OK)
        kl_text_hash(text, res->source_hash);
    free(text);
}

/* Rung i's row (u: the user's kernel, or NULL): built, timed and verified, or skipped. */
static enum kl_status ladder_row(const struct kl_workload *w, const struct kl_ladder_args *a, int i,
                                 const struct kl_user_rung *u, const char *name,
                                 struct kl_report *rep, struct kl_err *e)
{
    int values[KL_MAX_PARAMS], users;
    struct kl_result *res = kl_report_add(rep, name, u ? u->summary : w->table->summary(i));
    if (!res)
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory");
    if (!u)
        describe(w, i, res);
    if (!u && w->available && !w->available(w->self, i, res->note, sizeof res->note)) {
        res->status = KL_RESULT_SKIPPED;
        return KL_OK;
    }
    enum kl_status st = values_of(w, a, i, values, &users, res->config, sizeof res->config, e);
    if (res->config[0]) /* values not the defaults: the table says which */
        rep->show_config = 1;
    kl_measure_forget();
    if (st == KL_OK) {
        record_inputs(w, a, i, u, values, res);
        st = run_values(w, u, i, values, a->protocol, res);
    }
    if (st == KL_OK) {
        kl_result_keep_measured(res); /* its timed launches, for the JSON */
        return KL_OK;
    }
    return row_error(res, st, users, e);
}

/*
 * --runs: rung i timed again, as run `run` of its row (its place in the run
 * order seq): built (cached), run once on a poisoned output and verified,
 * then timed, as its first run was. A run that fails verification fails the
 * row, saying which run; an error ends the ladder, as in its first run.
 */
static enum kl_status rerun_row(const struct kl_workload *w, const struct kl_ladder_args *a, int i,
                                const struct kl_user_rung *u, struct kl_result *row, int run,
                                int first_seq, int seq, struct kl_err *e)
{
    int values[KL_MAX_PARAMS], users;
    struct kl_result x;
    char config[sizeof row->config];
    enum kl_status st;
    if (!kl_result_timed(row))
        return KL_OK; /* skipped or failed: nothing to time again */
    memset(&x, 0, sizeof x);
    x.status = KL_RESULT_FAILED;
    x.error = x.noise = NAN;
    if (!u) /* its precision, which its tolerance follows, as in its first run */
        describe(w, i, &x);
    if ((st = values_of(w, a, i, values, &users, config, sizeof config, e)) != KL_OK)
        return st;
    kl_measure_forget();
    st = run_values(w, u, i, values, a->protocol, &x);
    if (st == KL_OK && kl_result_timed(&x)) {
        kl_result_keep_measured(&x);
        if (kl_result_add_run(row, first_seq, &x, seq) != 0)
            st = kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory");
    } else if (st == KL_OK || st == KL_ERR_VERIFY) {
        row->status = KL_RESULT_FAILED;
        snprintf(row->note, sizeof row->note, "run %d of %d: %.480s", run + 1, a->protocol->runs,
                 st == KL_OK ? x.note : e->msg);
        st = KL_OK;
    }
    free(x.samples);
    free(x.clocks);
    return st;
}

/*
 * --runs: runs 2 ... N of every row of this ladder from `from`, the rows in
 * the order they first ran (order), one pass of them a run.
 */
static enum kl_status more_runs(const struct kl_workload *w, const struct kl_ladder_args *a,
                                const int *chosen, const int *order, int nchosen, int from,
                                struct kl_report *rep, struct kl_err *e)
{
    enum kl_status st = KL_OK;
    int rows = rep->count - from;
    for (int run = 1; run < a->protocol->runs && st == KL_OK; run++)
        for (int k = 0; k < nchosen && k < rows && st == KL_OK; k++) {
            int i = chosen[order[k]];
            const struct kl_user_rung *u = user_of(w, a, i);
            if (kl_stop_requested()) {
                st = kl_stop_fail(e);
                break;
            }
            kl_progress_step(k, nchosen, "%s %s: run %d of %d", w->table->workload,
                             u ? u->name : w->table->name(i), run + 1, a->protocol->runs);
            st = rerun_row(w, a, i, u, &rep->results[from + k], run, k, run * nchosen + k, e);
        }
    for (int k = from; k < rep->count; k++)
        kl_result_close_runs(&rep->results[k]);
    return st;
}

int kl_cache_passes(const struct kl_protocol *p)
{
    return p->cold == KL_COLD_BOTH ? 2 : 1;
}

void kl_cache_pass(const struct kl_protocol *p, int k, struct kl_protocol *out)
{
    *out = *p;
    if (p->cold == KL_COLD_BOTH)
        out->cold = k;
}

void kl_cache_label(const struct kl_protocol *p, int k, struct kl_report *rep,
                    struct kl_result *res)
{
    size_t used = strlen(res->config);
    if (p->cold != KL_COLD_BOTH || used + 1 >= sizeof res->config)
        return;
    snprintf(res->config + used, sizeof res->config - used, "%s%s", used ? " " : "",
             k ? "cold" : "warm");
    rep->show_config = 1;
}

enum kl_status kl_ladder_peers(const struct kl_protocol *proto, const char *const *peers, int n,
                               enum kl_status (*run)(void *self, const char *peer,
                                                     const struct kl_protocol *pass,
                                                     struct kl_report *rep),
                               void *self, struct kl_report *rep)
{
    for (int j = 0; j < n; j++)
        for (int k = 0; k < kl_cache_passes(proto); k++) {
            struct kl_protocol pass;
            kl_cache_pass(proto, k, &pass);
            enum kl_status st = run(self, peers[j], &pass, rep);
            if (st != KL_OK)
                return st;
            kl_cache_label(proto, k, rep, &rep->results[rep->count - 1]);
        }
    return KL_OK;
}

/* Rung i's rows: one, or under --warm-cold one warm and one cold. */
static enum kl_status rung_rows(const struct kl_workload *w, const struct kl_ladder_args *a, int i,
                                const struct kl_user_rung *u, const char *name,
                                struct kl_report *rep, struct kl_err *e)
{
    enum kl_status st = KL_OK;
    struct kl_protocol p;
    struct kl_ladder_args pass = *a;
    pass.protocol = &p;
    for (int k = 0; k < kl_cache_passes(a->protocol) && st == KL_OK; k++) {
        int before = rep->count;
        kl_cache_pass(a->protocol, k, &p);
        st = ladder_row(w, &pass, i, u, name, rep, e);
        if (rep->count > before)
            kl_cache_label(a->protocol, k, rep, &rep->results[rep->count - 1]);
    }
    return st;
}

/*
 * --shuffle: the order the rows run in, a permutation of 0..n-1 drawn from
 * the seed (Fisher-Yates); 0..n-1 itself without it or under the tuner,
 * whose rows are its own.
 */
static void run_order(const struct kl_ladder_args *a, unsigned long long seed, int n, int *order)
{
    struct kl_rng rng;
    for (int k = 0; k < n; k++)
        order[k] = k;
    if (!a->protocol->shuffle || a->tuner)
        return;
    kl_rng_seed(&rng, seed ^ 0x5eedull);
    for (int k = n - 1; k > 0; k--) {
        int j = (int)(kl_rng_next(&rng) % (unsigned long long)(k + 1)), t = order[k];
        order[k] = order[j];
        order[j] = t;
    }
}

/* Row name ran next: added to the report's run order. */
static void ran(struct kl_report *rep, const char *name)
{
    size_t used = strlen(rep->run_order);
    if (used + 1 < sizeof rep->run_order)
        snprintf(rep->run_order + used, sizeof rep->run_order - used, "%s%s", used ? ", " : "",
                 name);
}

/*
 * Puts the rows run in a shuffled order back in the ladder's: rows from
 * `from` on were run as order[0], order[1] ..., per rows each (fewer where
 * the run stopped).
 */
static void ladder_order(struct kl_report *rep, int from, int *order, int per)
{
    struct kl_result *x = rep->results + from;
    for (int k = 1; k < (rep->count - from) / per; k++) /* insertion sort by ladder position */
        for (int j = k; j > 0 && order[j - 1] > order[j]; j--) {
            int o = order[j];
            for (int r = 0; r < per; r++) { /* a rung's rows (warm and cold) move together */
                struct kl_result t = x[j * per + r];
                x[j * per + r] = x[(j - 1) * per + r];
                x[(j - 1) * per + r] = t;
            }
            order[j] = order[j - 1];
            order[j - 1] = o;
        }
}

enum kl_status kl_ladder_rungs(const struct kl_workload *w, const struct kl_ladder_args *a,
                               const int *chosen, int nchosen, int first, int total,
                               struct kl_report *rep, struct kl_err *e)
{
    enum kl_status st = preflight(w, a, chosen, nchosen, e);
    int order[KL_MAX_RUNGS], from = rep->count;
    if (st != KL_OK)
        return st;
    run_order(a, rep->seed, nchosen, order);
    prefetch(w, a, chosen, nchosen, first, total);
    if (kl_kernel_beside_done(w->kl)) /* the work beside the builds may have measured the roofs */
        kl_report_load_ceilings(rep);
    for (int k = 0; k < nchosen && st == KL_OK; k++) {
        int i = chosen[order[k]];
        const struct kl_user_rung *u = user_of(w, a, i);
        const char *name = u ? u->name : w->table->name(i);
        if (kl_stop_requested()) {
            st = kl_stop_fail(e);
        } else if (a->tuner) { /* its space searched, its rows the tuner's */
            st = a->tuner->tune(a->tuner->arg, w, a, i, rep, e);
        } else {
            kl_progress_step(first + k, total, "%s %s: build, time, verify", w->table->workload,
                             name);
            st = rung_rows(w, a, i, u, name, rep, e);
            if (a->protocol->shuffle) /* the order it ran in, for the report */
                ran(rep, name);
        }
    }
    if (st == KL_OK && a->protocol->runs > 1 && !a->tuner)
        st = more_runs(w, a, chosen, order, nchosen, from, rep, e);
    if (a->protocol->shuffle && !a->tuner)
        ladder_order(rep, from, order, kl_cache_passes(a->protocol));
    return st;
}

void kl_ladder_report(struct kl_report *rep, struct kl_context *kl, const char *workload,
                      enum kl_type t, unsigned long long seed, const struct kl_protocol *proto)
{
    rep->workload = workload;
    rep->type = t;
    rep->seed = seed;
    rep->protocol = *proto;
    rep->device = kl->info;
    rep->backend = kl->ops->name;
    rep->ladder = 1;
    kl_utc_now(rep->date, sizeof rep->date);
    kl_report_provenance(rep, kl);
    kl_report_load_ceilings(rep);
}
