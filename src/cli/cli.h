/*
 * The command line's request: which command, and every option's value,
 * filled by the option table (cli/options.c) and read by the commands
 * (cli/main.c).
 */
#ifndef KL_CLI_H
#define KL_CLI_H

#include "core/ladder.h"
#include "core/measure.h"
#include "kladder.h"

#define MAX_ITEMS 64
#define MAX_KERNELS 8
#define MAX_DIM 1000000L
#define MAX_OPERANDS 1024 /* the words after a command that are not options: report's files */

enum command {
    CMD_MAIN,
    CMD_DEVICES,
    CMD_PEAK,
    CMD_GEMM,
    CMD_COPY,
    CMD_ROWDOT,
    CMD_GEMV,
    CMD_BLUR,
    CMD_TUNE,
    CMD_MGEMM,
    CMD_SOAK,       /* a device's health over time (workloads/soak/soak.h) */
    CMD_REPORT,     /* saved runs as a page or a chart (cli/report_cmd.c) */
    CMD_COMPARE,    /* two saved runs, rung by rung (cli/compare.c) */
    CMD_TEMPLATE,   /* a user kernel to start from (cli/template_cmd.c) */
    CMD_COMPLETION, /* the shell completion script (cli/shell_docs.c) */
    CMD_ARTICLE,    /* the ladder as an article (cli/article_cmd.c) */
    CMD_ADDED       /* and on, CMD_ADDED + i: the ladders of workloads registered beyond the
                       built-in ones, each a command of its name, as many as there are
                       (cli/options.c: kl_cli_command_end) */
};

struct cli {
    enum command command;
    const char *device, *backend, *kernel_dir, *format, *output, *json;
    const char *report; /* --report FILE.html */
    int quiet;          /* --quiet: no progress line */
    struct kl_protocol protocol;
    unsigned long long seed;
    const char *rungs[MAX_ITEMS], *params[MAX_ITEMS];
    int nrungs, nparams, list_rungs;
    const char *operands[MAX_OPERANDS]; /* report's and compare's files, template's workload */
    int noperands;
    const char *kernels[MAX_KERNELS]; /* --kernel FILE[:ENTRY] */
    int nkernels;
    /* gemm */
    int M, N, K, size_set, mnk_set, host_rungs;
    enum kl_type type;
    int type_set; /* --type was given */
    /* rowdot */
    int rows, d;
    /* a workload registered beyond the built-in ones: --size S[,S...] (none: its defaults) */
    long sizes[3];
    int nsizes;
    /* and its own options (workloads/registry.h), --NAME VALUE as "NAME=VALUE"; 4 is
       KL_WORKLOAD_MAX_OPTIONS (cli/parse.c asserts it) */
    const char *wopts[4];
    char wopt_text[4][96];
    int nwopts;
    /* gemv, gemm */
    const char *peers[MAX_ITEMS];
    int npeers;
    int no_tuned;     /* gemm: the defaults, not tuned parameters */
    int strict_peers; /* --strict-peers: a peer's failed verification fails the run */
    /* tune */
    const char *workload;
    enum command tuned; /* the workload of `tune WORKLOAD` and of `article WORKLOAD` */
    const char *workload_opt;            /* an option of the workload's, not of tune gemm's */
    const struct kl_ladder_tuner *tuner; /* tune WORKLOAD --kernel: the search */
    double budget;
    int budget_set, exhaustive, show, clear, all;
    int timing_set;        /* --warmup, --repeats or --min-time given */
    int energy;            /* --energy: time long enough for the energy counter */
    int lock_mhz;          /* --lock-clocks: the SM clock to hold (0: free) */
    double soak_time;      /* soak --time: seconds (0: 60) */
    long copy_n;           /* soak --copy-n: the copy's elements (0: by the device) */
    double kernel_timeout; /* --kernel-timeout: seconds a launch may take; 0: no limit */
    /* blur */
    const char *input, *output_rung, *image_out;
    int width, height, radius, pixel_uchar4;
    double sigma;
    /* copy */
    long n, max_n;
    int sweep, max_n_set;
    /* mgemm */
    const char *local; /* --local: the GEMM rung of each device's multiply */
    int panel;         /* --panel: SUMMA's panel width; 0: the default */
    /* peak */
    int p2p; /* --p2p: the links between the devices instead of one device's ceilings */
    int transfers; /* --transfers: host <-> device copies over sizes instead of the ceilings */
    int collectives; /* --collectives: collectives between kladder-mpi's ranks over sizes */
    int refresh, quick, wide, brief;
    int peak_measure; /* an option that only a new measurement can honour */
    int protocol_set;
    long bytes;
    unsigned vec_mask;
    /* report */
    const char *page_format; /* --format html|svg (NULL: html) */
    const char *chart;       /* --chart: the chart of --format svg */
    /* compare */
    double fail_pct; /* --fail-on-regression PCT; below 0: not given */
    int force;       /* --force: compare runs of different ladders; write an article whose
                        sources changed since its run */
    /* article */
    const char *article;        /* --article FILE, or article's --output: where it goes */
    const char *article_format; /* --format of article: html (NULL) or md */
};

/*
 * Parses argv into c (cli/options.c). Returns 0 with *done 0: run c; else
 * the exit code, with *done 1 where it is 0 (--help, --version, help,
 * completion printed what they were asked for). A mistake is said on stderr.
 */
int kl_cli_parse(int argc, char **argv, struct cli *c, int *done);

/*
 * The whole command line (cli/main.c): parses argv, runs the command and
 * returns its exit code. `kladder` is this; kladder-mpi calls it once per
 * rank with the rank's arguments.
 */
int kl_cli_main(int argc, char **argv);

#endif /* KL_CLI_H */
