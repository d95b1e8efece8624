/*
 * `kladder tune`: searches the parameters of GEMM rungs for the device and
 * caches the best (src/tune/); --show lists the cache, --clear empties it.
 * Also what `kladder gemm` needs to use the cached parameters, and the
 * search of a user's kernel's parameters on any ladder, or of one rung of
 * a ladder other than gemm (--rung R).
 * Exit codes as main.c: 0 fine; 1 no candidate of a rung verified; 2 bad
 * input (a rung without parameters, int, nothing left to try, an
 * unwritable cache); 3 a device error.
 */
#ifndef KL_CLI_TUNE_CMD_H
#define KL_CLI_TUNE_CMD_H

#include <stdio.h>

#include "core/context.h"
#include "tune/cache.h"
#include "tune/ladder.h"
#include "workloads/gemm/gemm.h"

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

/* Progress of a search on standard error: each new best, each rejected candidate. */
struct kl_cli_tune_log {
    const char *rung;
    const struct kl_tune_space *space;
    const struct kl_tune_request *q;
    double last_best;
    int quiet;
};

/*
 * `kladder tune WORKLOAD --kernel FILE`: the user's kernel tuned on its
 * workload's ladder (tune/ladder.h); the ladder's report then holds its
 * default and tuned rows. Nothing is cached: the file is the user's to
 * change.
 */
struct kl_cli_tune_user {
    struct kl_tune_ladder tl;
    struct kl_cli_tune_log log;
};

/* Sets u up from t (budget, protocols, seed); put &u->tl.tuner in the ladder's request. */
void kl_cli_tune_user_init(const struct kl_cli_tune *t, struct kl_cli_tune_user *u);

/*
 * What the search did, on out, with the --param options that run the best;
 * KL_ERR_VERIFY with the reason in e where no candidate was verified.
 */
enum kl_status kl_cli_tune_user_summary(const struct kl_cli_tune_user *u, FILE *out,
                                        struct kl_err *e);

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
