/*
 * `kladder tune`: searches the parameters of GEMM rungs for the device and
 * caches the best (src/tune/); --show lists the cache, --clear empties it.
 * Also what `kladder gemm` needs to use the cached parameters.
 * Exit codes as main.c: 0 fine; 1 no candidate of a rung verified; 2 bad
 * input (a rung without parameters, int, nothing left to try, an
 * unwritable cache); 3 a device error.
 */
#ifndef KL_CLI_TUNE_CMD_H
#define KL_CLI_TUNE_CMD_H

#include <stdio.h>

#include "core/context.h"
#include "tune/cache.h"
#include "workloads/gemm.h"

struct kl_cli_tune {
    int show, clear, all; /* --show, --clear, --all (every device) */
    int exhaustive;
    double budget_s; /* 0: none */
    int budget_set;
    int M, N, K; /* 0: the default size */
    enum kl_type type;
    const char *const *rungs;
    int nrungs;
    unsigned long long seed;
    struct kl_protocol protocol; /* the user's, when protocol_set */
    int protocol_set;
    int quiet;
};

/* kl may be NULL for --show --all and --clear --all. Returns the exit code. */
int kl_cli_tune(struct kl_context *kl, const struct kl_cli_tune *t, FILE *out);

/* The cached parameters that a GEMM ladder request uses, and the memory they live in. */
#define KL_CLI_TUNED_MAX 32
struct kl_cli_tuned {
    struct kl_gemm_rung_params list[KL_CLI_TUNED_MAX];
    char buf[KL_CLI_TUNED_MAX][256];
    const char *items[KL_CLI_TUNED_MAX][KL_MAX_PARAMS];
    int count;
};

/*
 * Sets req->tuned to the cached parameters for req's device, type and size
 * class, for every chosen rung whose parameters --param leaves alone, and
 * says on msg which file they come from (and warns about a damaged cache
 * or an entry that no longer fits).
 */
void kl_cli_tuned_apply(struct kl_context *kl, struct kl_gemm_request *req,
                        struct kl_cli_tuned *hold, FILE *msg);

#endif /* KL_CLI_TUNE_CMD_H */
