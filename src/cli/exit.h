/* The command line's exit codes, one set for every command. */
#ifndef KL_CLI_EXIT_H
#define KL_CLI_EXIT_H

#include "kladder.h"

enum {
    EXIT_OK = 0,
    EXIT_VERIFY = 1,       /* a rung failed verification */
    EXIT_REGRESSION = 1,   /* compare --fail-on-regression: a rung slowed beyond noise */
    EXIT_USAGE = 2,        /* the request was wrong, or does not fit this device */
    EXIT_RUNTIME = 3,      /* the device, a build or a write failed */
    EXIT_TIMEOUT = 4,      /* a launch ran past --kernel-timeout; the rows before it are written */
    EXIT_HEALTH = 5,       /* soak: a clock or temperature event, or a device slower than the
                              fleet's others beyond noise */
    EXIT_INTERRUPTED = 130 /* SIGINT or SIGTERM; the rows measured before it are written */
};

/*
 * A wrong result exits 1; a request error is the user's (exit 2); a device or build error
 * exit 3; a stop asked for by a signal exit 130.
 */
static inline int kl_exit_for(enum kl_status st)
{
    return st == KL_ERR_VERIFY        ? EXIT_VERIFY
           : st == KL_ERR_INTERRUPTED ? EXIT_INTERRUPTED
           : st == KL_ERR_ARG || st == KL_ERR_UNSUPPORTED || st == KL_ERR_NO_MEMORY ||
                   st == KL_ERR_IO
               ? EXIT_USAGE
               : EXIT_RUNTIME;
}

#endif /* KL_CLI_EXIT_H */
