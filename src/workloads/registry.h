/*
 * The workloads, described once: what each is called, the heading and name
 * column of its --list-rungs, its rung table, its sizes and defaults, and
 * what may run it. The command line's rung lists and templates, the API's
 * dispatch (api/ladder.c) and its default sizes read this table; a new
 * workload is its own file plus one entry here.
 */
#ifndef KL_REGISTRY_H
#define KL_REGISTRY_H

#include <stdio.h>

#include "core/ladder.h"

#define KL_WORKLOAD_MAX_DIMS 3

struct kl_workload_def {
    const char *name;    /* the command and the API's workload: "gemm" */
    const char *heading; /* the first line of --list-rungs */
    const struct kl_rung_table *(*rungs)(void);
    int width; /* --list-rungs' name column */
    int dims;  /* sizes of a request: 1 to KL_WORKLOAD_MAX_DIMS (0: the request's own) */
    long gpu[KL_WORKLOAD_MAX_DIMS], cpu[KL_WORKLOAD_MAX_DIMS]; /* default sizes */
    int ladder; /* kl_ladder_run runs it and users' kernels join it (--kernel, template) */
};

int kl_workload_count(void);
const struct kl_workload_def *kl_workload_at(int i);
/* The workload of that name, or NULL. */
const struct kl_workload_def *kl_workload_find(const char *name);
/* The names of the workloads with ladder set, for messages: "gemm, copy, rowdot, …". */
void kl_workload_ladder_names(char *out, size_t n);
/* --list-rungs: the heading, then each rung's name, summary and parameters. */
void kl_workload_list_rungs(const struct kl_workload_def *w, FILE *out);

#endif /* KL_REGISTRY_H */
