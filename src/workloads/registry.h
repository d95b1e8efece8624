/*
 * The workloads, described once: what each is called, the heading and name
 * column of its --list-rungs, its rung table, its sizes and defaults, and
 * what may run it, and its ladder's entry. The command line's rung lists,
 * templates and commands, the API's dispatch (api/ladder.c) and its default
 * sizes read this table; a new workload is its own file plus one entry here
 * (or one kl_workload_register call: tests/tiny_workload.c is one).
 */
#ifndef KL_REGISTRY_H
#define KL_REGISTRY_H

#include <stdio.h>

#include "core/ladder.h"

#define KL_WORKLOAD_MAX_DIMS 3
#define KL_WORKLOAD_MAX_OPTIONS 4

/*
 * An option of a workload's own (an operation, a mode, a bin count): "NAME=VALUE" in a
 * request's options, --NAME VALUE on its command line.
 */
struct kl_workload_option {
    const char *name;    /* "op"; NULL ends a workload's list */
    const char *choices; /* "sum min max": one of these words; NULL: a number min to max */
    long min, max;
    const char *def; /* its value where the request gives none, as text */
    const char *help;
    int real; /* 1: a real number (1e-5), finite, from min to max; 0: an integer */
};

struct kl_ladder_request;
struct kl_report;
struct kl_user_rung;

/*
 * A ladder run as the API hands it to a workload's entry: the request, its
 * sizes with the defaults filled in and checked (1 to 2^31 - 1), the seed
 * and protocol resolved, and the user's kernels read.
 */
struct kl_workload_call {
    const struct kl_ladder_request *req;
    int size[KL_WORKLOAD_MAX_DIMS];
    unsigned long long seed;
    struct kl_protocol protocol;
    const struct kl_user_rung *users;
    int nusers;
    const char *option[KL_WORKLOAD_MAX_OPTIONS]; /* each of its options' values, in the
                                                    entry's order, defaults filled in */
    /* NULL; `kladder tune WORKLOAD --rung R` (or --kernel): the tuner of the chosen rung,
       for the entry to hand its ladder (struct kl_ladder_args) */
    const struct kl_ladder_tuner *tuner;
};

/* Sets the fields every workload's request has (seed, protocol, rungs, params, users) from c. */
#define KL_WORKLOAD_COMMON(r, c)                                                                   \
    ((r).seed = (c)->seed, (r).protocol = (c)->protocol, (r).rungs = (c)->req->rungs,              \
     (r).nrungs = (c)->req->nrungs, (r).params = (c)->req->params,                                 \
     (r).nparams = (c)->req->nparams, (r).users = (c)->users, (r).nusers = (c)->nusers)

struct kl_workload_def {
    const char *name;    /* the command and the API's workload: "gemm" */
    const char *heading; /* the first line of --list-rungs */
    const struct kl_rung_table *(*rungs)(void);
    int width; /* --list-rungs' name column */
    int dims;  /* sizes of a request: 1 to KL_WORKLOAD_MAX_DIMS (0: the request's own) */
    long gpu[KL_WORKLOAD_MAX_DIMS], cpu[KL_WORKLOAD_MAX_DIMS]; /* default sizes */
    int ladder; /* kl_ladder_run runs it and users' kernels join it (--kernel, template) */
    /* `kladder help`'s line for a registered workload's command (the built-ins' are the CLI's) */
    const char *summary;
    int peers; /* vendor libraries may join its ladder (the request's peers) */
    struct kl_workload_option options[KL_WORKLOAD_MAX_OPTIONS]; /* its own, if any */
    /* `kladder template NAME`'s kernel, for a workload that users' kernels join; NULL: the
       one built into kladder (kernels/templates/NAME.cl), where there is one */
    const char *template_text;
    /* The element types its command's --type takes, the first its default ("float double
       int"); NULL: it takes no --type. (The API hands the entry the request's type as given.) */
    const char *types;
    /* The ladder's entry: the call as the workload's own request, run into rep. */
    enum kl_status (*run)(struct kl_context *kl, const struct kl_workload_call *c,
                          struct kl_report *rep);
};

int kl_workload_count(void);
const struct kl_workload_def *kl_workload_at(int i);
/* The workload of that name, or NULL. */
const struct kl_workload_def *kl_workload_find(const char *name);
/*
 * Adds a workload after the built-in ones (as many as a program brings), for
 * programs that bring their own; before any other use of the table, from
 * one thread. 0, or -1 where the name is taken, dims is beyond
 * KL_WORKLOAD_MAX_DIMS, rungs (or, for a ladder, run) is missing, or host
 * memory is out.
 */
int kl_workload_register(const struct kl_workload_def *def);
/*
 * The names of the workloads keep takes, joined by ", " and by last before
 * the last one ("gemm, copy or blur" with last " or ").
 */
void kl_workload_names(int (*keep)(const struct kl_workload_def *w), const char *last, char *out,
                       size_t n);
/* The names of the workloads with ladder set, for messages: "gemm, copy, rowdot, …". */
void kl_workload_ladder_names(char *out, size_t n);
/*
 * Whether value is one that w's option name takes: KL_OK, or KL_ERR_ARG saying
 * why (no such option, naming w's; a word not among the choices; an integer
 * out of range).
 */
enum kl_status kl_workload_option_check(const struct kl_workload_def *w, const char *name,
                                        const char *value, struct kl_err *e);
/*
 * The n "NAME=VALUE" items of a request as values of w's options, in its
 * order, into out (defaults where an item does not name one); each checked,
 * and none named twice.
 */
enum kl_status kl_workload_options_resolve(const struct kl_workload_def *w,
                                           const char *const *items, int n, const char **out,
                                           struct kl_err *e);
/*
 * The element type of a run of w's command: t where given (--type) and one of the types w
 * declares, else the first of them (its default); KL_ERR_ARG saying which it takes otherwise,
 * and where a type is given to a w that declares none.
 */
enum kl_status kl_workload_type(const struct kl_workload_def *w, int given, enum kl_type t,
                                enum kl_type *out, struct kl_err *e);
/* Option name's value in a call to w (resolved by the API), or NULL where w has none. */
const char *kl_workload_option(const struct kl_workload_def *w, const struct kl_workload_call *c,
                               const char *name);

/* --list-rungs: the heading, then each rung's name, summary and parameters. */
void kl_workload_list_rungs(const struct kl_workload_def *w, FILE *out);

#endif /* KL_REGISTRY_H */
