/*
 * The ladder: choosing rungs from a workload's table (by exact name or
 * unique prefix, in ladder order, with every --param name checked against
 * the chosen rungs), and the engine that runs them, the same loop for every
 * workload. Workloads describe their table through two accessors and their
 * rungs' checks and runs through struct kl_workload.
 */
#ifndef KL_LADDER_H
#define KL_LADDER_H

#include "core/params.h"
#include "core/report.h"
#include "core/user_rung.h"

struct kl_launch;
struct kl_ladder_args;
struct kl_kernel_want;

/*
 * What the article (src/article/) needs of a rung beyond its kernel file's
 * own Change block: the rung it is read against where that is not the rung
 * before it (base), and its own paragraph where one file serves several rungs
 * (change). A list ends with a NULL rung.
 */
struct kl_rung_note {
    const char *rung, *base, *change;
};

struct kl_rung_table {
    const char *workload; /* for messages: "gemm" */
    int count;
    const char *(*name)(int i);
    const char *(*summary)(int i);
    const struct kl_param_def *(*params)(int i);
    /* The rung's kernel file under kernels/, NULL for a host rung (the accessor NULL: the
       table names no files) */
    const char *(*file)(int i);
    const struct kl_rung_note *notes; /* NULL: none */
};

/*
 * The accessors of a workload's rung array: kl_<workload>_rung_count(),
 * kl_<workload>_rung_at(i), a static struct kl_rung_table `table` and
 * kl_<workload>_rungs(), which hands it to the registry (workloads/registry.h).
 * KL_RUNG_TABLE_FILES does the same for rungs of a type with a member file
 * (each rung's kernel file, NULL for a host rung), with the article's notes
 * (a struct kl_rung_note list, or NULL).
 */
#define KL_RUNG_TABLE(workload, type, array)                                                       \
    KL_RUNG_ACCESSORS(workload, type, array)                                                       \
    KL_RUNG_TABLE_OF(workload, array, NULL, NULL)

#define KL_RUNG_TABLE_FILES(workload, type, array, notes_list)                                     \
    KL_RUNG_ACCESSORS(workload, type, array)                                                       \
    static const char *rung_file(int i)                                                            \
    {                                                                                              \
        return array[i].file;                                                                      \
    }                                                                                              \
    KL_RUNG_TABLE_OF(workload, array, rung_file, notes_list)

#define KL_RUNG_ACCESSORS(workload, type, array)                                                   \
    int kl_##workload##_rung_count(void)                                                           \
    {                                                                                              \
        return (int)(sizeof array / sizeof *array);                                                \
    }                                                                                              \
    const type *kl_##workload##_rung_at(int i)                                                     \
    {                                                                                              \
        return i >= 0 && i < kl_##workload##_rung_count() ? &array[i] : NULL;                      \
    }                                                                                              \
    static const char *rung_name(int i)                                                            \
    {                                                                                              \
        return array[i].name;                                                                      \
    }                                                                                              \
    static const char *rung_summary(int i)                                                         \
    {                                                                                              \
        return array[i].summary;                                                                   \
    }                                                                                              \
    static const struct kl_param_def *rung_params(int i)                                           \
    {                                                                                              \
        return array[i].params;                                                                    \
    }

#define KL_RUNG_TABLE_OF(workload, array, file_fn, notes_list)                                     \
    static const struct kl_rung_table table;                                                       \
    const struct kl_rung_table *kl_##workload##_rungs(void)                                        \
    {                                                                                              \
        return &table;                                                                             \
    }                                                                                              \
    static const struct kl_rung_table table = {                                                    \
        #workload, (int)(sizeof array / sizeof *array), rung_name, rung_summary, rung_params,      \
        file_fn,   notes_list}

/*
 * The rungs of a ladder: a workload's table, then the user's kernels
 * (--kernel), numbered on from t->count.
 */
struct kl_rung_set {
    const struct kl_rung_table *t;
    const struct kl_user_rung *users;
    int nusers;
};

/*
 * The rung whose name is name, else the one whose name is name and an
 * underscore on ("15" for 15_mma_tf32 beside 15cl_mma_tf32), else the one
 * whose name starts with name; -1 where none or several match.
 */
int kl_rung_lookup(const struct kl_rung_set *s, const char *name);

/*
 * Why kl_rung_lookup found no rung for name, into e (KL_ERR_ARG, returned):
 * the rungs it begins, where several do, else that it is unknown and every
 * rung's name. what: "gemm rung", "rung for the local multiply", ...
 */
enum kl_status kl_rung_not_found(const struct kl_rung_set *s, const char *name, const char *what,
                                 struct kl_err *e);

/*
 * Fills chosen[] (t->count + nusers entries at most) with the indices of
 * the named rungs in ladder order, or of every rung when nnames is 0, and
 * checks that each NAME=VALUE in params names a parameter of a chosen rung.
 */
enum kl_status kl_rungs_choose(const struct kl_rung_set *s, const char *const *names, int nnames,
                               const char *const *params, int nparams, int *chosen, int *nchosen,
                               struct kl_err *e);

/* ---- the engine: one loop over the rungs for every workload ---------------- */

/*
 * The kernel interface of a workload, for the user's kernels: the problem's
 * sizes (names an expression of the kernel's geometry may use), the
 * arguments every such kernel takes, and the run that verifies and times
 * one. The engine builds the kernel, sets its geometry and checks its
 * signature against the arguments before the run.
 */
struct kl_user_iface {
    const char *signature; /* for messages: "rowdot(global const T *v, ..., T f)" */
    int nsizes;
    const char *size_names[4];
    long long (*size)(void *self, int i);
    int takes_layout; /* 1: a kernel may say "kladder: layout row|col" */
    /* Build options beyond the parameters' (" -DRAD=3"), appended to out; may be NULL. */
    void (*options)(void *self, char *out, size_t n);
    /* Sets l->args and l->nargs: the interface's arguments for u, in order. */
    void (*args)(void *self, const struct kl_user_rung *u, struct kl_launch *l);
    /* Runs, verifies and times l (built, geometry and arguments set) by proto into res. */
    enum kl_status (*run)(void *self, struct kl_launch *l, const struct kl_protocol *proto,
                          struct kl_result *res);
};

/*
 * A workload as the engine runs it: its rung table and the two things only
 * it knows, how to check a rung's values against the device and how to run
 * one rung into a row. self is the workload's own state (its problem, data,
 * reference and buffers), made before kl_ladder_rungs and freed after.
 */
struct kl_workload {
    const struct kl_rung_table *table;
    struct kl_context *kl;
    enum kl_type type; /* the element type: -DKL_T_<TYPE> for the user's kernels */
    void *self;
    /*
     * 1: a rung named with --rung counts as chosen by the user, so a misfit
     * of its defaults is an error, like a misfit of values set by --param;
     * 0: only --param makes a rung's values the user's.
     */
    int named_is_users;
    /*
     * 0 where rung i cannot run on this device whatever its values (a
     * missing extension), why saying so in n bytes; NULL: every rung can.
     * Such a rung is a skipped row, or an error where the user chose it.
     */
    int (*available)(void *self, int i, char *why, size_t n);
    /* 0 where rung i stays out of a whole ladder (one no --rung names); NULL: none does. */
    int (*listed)(void *self, int i);
    /* Sets the facts of rung i's row known before it runs (precision, tensor cores) beyond
       on_host, which the engine sets from the table's file; may be NULL. */
    void (*describe)(void *self, int i, struct kl_result *res);
    /*
     * Rung i's values where they come from more than its defaults and
     * --param (a tuned cache, presets): *users 1 where the user set them;
     * config (n bytes) says where they came from, or "". NULL: defaults,
     * then --param.
     */
    enum kl_status (*values)(void *self, int i, const struct kl_ladder_args *a, int *values,
                             int *users, char *config, size_t n, struct kl_err *e);
    /* Checks rung i's values against the device, building nothing (NULL: nothing to check). */
    enum kl_status (*check)(void *self, int i, const int *values, struct kl_err *e);
    /*
     * The kernels rung i builds with these values, into want (max at most);
     * returns how many. The engine builds those of every chosen rung at
     * once before the first runs, where the backend builds in parallel
     * (kl_kernel_prefetch). NULL: each rung builds its own as it runs.
     */
    int (*kernels)(void *self, int i, const int *values, struct kl_kernel_want *want, int max);
    /*
     * Builds, runs once, verifies and times rung i with these values by
     * proto into res (whose status it sets: verified, or failed with the
     * reason in its note). KL_ERR_UNSUPPORTED: the rung does not fit the
     * device.
     */
    enum kl_status (*run)(void *self, int i, const int *values, const struct kl_protocol *proto,
                          struct kl_result *res);
    /* The user's kernels run through this interface (NULL: the workload takes none). */
    const struct kl_user_iface *user;
};

/*
 * The parts of a ladder's report every workload fills the same way: the
 * workload's name, type, seed and protocol, the device and backend of kl,
 * the date, the cached ceilings, and rows that are rungs of one ladder.
 */
struct kl_context;
void kl_ladder_report(struct kl_report *rep, struct kl_context *kl, const char *workload,
                      enum kl_type t, unsigned long long seed, const struct kl_protocol *proto);

/*
 * What the user asked of the rungs: names (none: all), NAME=VALUE
 * parameters, kernels of their own after the table's rungs, the protocol
 * that times them, and a tuner that searches the chosen rung's values (NULL: none).
 */
struct kl_ladder_args {
    const char *const *rungs;
    int nrungs;
    const char *const *params;
    int nparams;
    const struct kl_user_rung *users;
    int nusers;
    const struct kl_protocol *protocol;
    const struct kl_ladder_tuner *tuner;
};

/* A workload's request's fields of the same names as a struct kl_ladder_args. */
#define KL_LADDER_ARGS(req)                                                                        \
    {                                                                                              \
        (req)->rungs, (req)->nrungs, (req)->params, (req)->nparams, (req)->users, (req)->nusers,   \
            &(req)->protocol, (req)->tuner                                                         \
    }

/*
 * What runs in place of a rung's one row when its space is tuned (kladder
 * tune WORKLOAD --kernel FILE, or --rung R for the workload's own rung R):
 * called with the workload ready, its data made; adds the rows it measures
 * to rep. tune/ladder.c is one.
 */
struct kl_ladder_tuner {
    enum kl_status (*tune)(void *arg, const struct kl_workload *w, const struct kl_ladder_args *a,
                           int i, struct kl_report *rep, struct kl_err *e);
    void *arg;
};

/*
 * Rung i with NAME=VALUE items (its defaults for the rest), as a tuner's
 * candidate: kl_ladder_check checks it against the rung and the device,
 * building nothing (*wg: the work-group size where the geometry tells
 * before the build, else 0); kl_ladder_try builds, verifies and times it
 * by proto into res.
 */
enum kl_status kl_ladder_check(const struct kl_workload *w, const struct kl_ladder_args *a, int i,
                               const char *const *items, int n, size_t *wg, struct kl_err *e);
enum kl_status kl_ladder_try(const struct kl_workload *w, const struct kl_ladder_args *a, int i,
                             const char *const *items, int n, const struct kl_protocol *proto,
                             struct kl_result *res, struct kl_err *e);
/* Rung i's values as the ladder runs it without a tuner (the workload's choice, as softmax's
   rule for the row, else its defaults and a's --param); config names the choice ("" where
   the defaults stand). */
enum kl_status kl_ladder_values(const struct kl_workload *w, const struct kl_ladder_args *a, int i,
                                int *values, char *config, size_t n, struct kl_err *e);

/* The most rungs a ladder has, the user's included. */
#define KL_MAX_RUNGS 64

/*
 * Chooses the rungs (chosen[], KL_MAX_RUNGS entries at most) and, before
 * anything runs, resolves each one's values and checks those the user set
 * (wholly or by naming the rung, see named_is_users): a bad value or a
 * misfit there is an error with the reason, not a skipped row.
 */
enum kl_status kl_ladder_begin(const struct kl_workload *w, const struct kl_ladder_args *a,
                               int *chosen, int *nchosen, struct kl_err *e);

/*
 * --warm-cold (protocol cold = KL_COLD_BOTH): each row is timed twice, warm
 * and then cold. kl_cache_passes says how many passes p makes (2 or 1);
 * kl_cache_pass gives pass k's protocol in *out and labels res's config
 * "warm" or "cold" (under KL_COLD_BOTH only).
 */
int kl_cache_passes(const struct kl_protocol *p);
void kl_cache_pass(const struct kl_protocol *p, int k, struct kl_protocol *out);
void kl_cache_label(const struct kl_protocol *p, int k, struct kl_report *rep,
                    struct kl_result *res);

/*
 * Each of the n peers run by run(self, peer, pass, rep) once per pass of proto (two under
 * --warm-cold), the row it adds labelled with its pass; the first error stops them.
 */
enum kl_status kl_ladder_peers(const struct kl_protocol *proto, const char *const *peers, int n,
                               enum kl_status (*run)(void *self, const char *peer,
                                                     const struct kl_protocol *pass,
                                                     struct kl_report *rep),
                               void *self, struct kl_report *rep);

/*
 * Runs the chosen rungs in order, a row of rep each (two under --warm-cold) (progress steps first
 * to first + nchosen - 1 of total). A rung whose own defaults do not fit
 * the device is a skipped row with the reason; one that fails verification
 * a failed row. Any other error stops the ladder, the rows so far kept.
 * A user's kernel is always the user's choice: its misfits are errors.
 */
enum kl_status kl_ladder_rungs(const struct kl_workload *w, const struct kl_ladder_args *a,
                               const int *chosen, int nchosen, int first, int total,
                               struct kl_report *rep, struct kl_err *e);

/* 1 where a row's config names NAME=V followed by "(...rule)": a value a workload's rule set
   (gemm's stream-K and split-K rules: "SK=1 (stream-K's rule)"); its source in the row's
   values is then "rule". */
int kl_ladder_set_by_rule(const char *config, const char *name);

#endif /* KL_LADDER_H */
