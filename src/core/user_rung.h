/*
 * A user's own kernel as a rung: `--kernel FILE[:ENTRY]`. The file declares
 * what kladder cannot guess in lines of its comments that start with
 * `kladder:` (docs/KERNELS.md gives the syntax):
 *
 *   // kladder: workload rowdot
 *   // kladder: global Y*WG
 *   // kladder: local WG
 *   // kladder: param WG 64 32..1024 multiple 32 -- work-group size
 *
 * The geometry is integer expressions over the workload's sizes and the
 * rung's parameters; parameters reach the kernel as -DNAME=VALUE like the
 * built-in rungs'. The engine (core/ladder.c) runs such a rung through the
 * workload's kernel interface (struct kl_user_iface).
 */
#ifndef KL_USER_RUNG_H
#define KL_USER_RUNG_H

#include "core/error.h"
#include "core/params.h"

#define KL_USER_EXPR 128

struct kl_user_rung {
    char path[4096];   /* the file as the user gave it (messages, build logs) */
    char *text;        /* its source, malloc'd */
    char entry[64];    /* the kernel's name */
    char name[64];     /* the rung's name in tables: the file's stem, or "stem:entry" */
    char summary[200];
    char workload[16];
    char layout[8]; /* "row" or "col" where the workload has both (gemv); "" otherwise */
    int dims;
    char global[3][KL_USER_EXPR], local[3][KL_USER_EXPR];
    struct kl_param_def params[KL_MAX_PARAMS + 1]; /* ends with a NULL name */
    char param_name[KL_MAX_PARAMS][32];
    char param_help[KL_MAX_PARAMS][96];
};

/*
 * Reads FILE[:ENTRY] (ENTRY: a C identifier after the last colon) and parses
 * its `kladder:` lines. The entry is ENTRY, else the file's `kladder: entry`,
 * else the workload's name. Free with kl_user_rung_free.
 */
enum kl_status kl_user_rung_load(const char *spec, struct kl_user_rung *u, struct kl_err *e);

/* Parses text (the source of file) into u, which owns neither; for tests and fuzzing too. */
enum kl_status kl_user_rung_parse(const char *file, const char *text, struct kl_user_rung *u,
                                  struct kl_err *e);

void kl_user_rung_free(struct kl_user_rung *u);

/* Names and values an expression may use: the workload's sizes, then the rung's parameters. */
struct kl_expr_vars {
    const char *const *names;
    const long long *values;
    int count;
};

/*
 * Evaluates an integer expression: decimal numbers, names of vars, + - * / %
 * (integer division, rounding down), parentheses, and the functions
 * div_up(a, b) = ceil(a / b) and round_up(a, b) = div_up(a, b) * b. Fails on
 * an unknown name, a division by zero, a result beyond 2^62 or a syntax
 * error, saying where.
 */
enum kl_status kl_expr_eval(const char *expr, const struct kl_expr_vars *vars, long long *out,
                            struct kl_err *e);

/*
 * u's launch geometry for these sizes (size_names[i] = sizes[i]) and
 * parameter values: dims, global[] and local[], every global size a
 * positive multiple of its local size.
 */
enum kl_status kl_user_rung_geometry(const struct kl_user_rung *u, const char *const *size_names,
                                     const long long *sizes, int nsizes, const int *values,
                                     int *dims, size_t *global, size_t *local, struct kl_err *e);

#endif /* KL_USER_RUNG_H */
