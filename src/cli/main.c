/*
 * kladder command line: a thin layer over the library. It parses options,
 * opens the device, asks a workload to run its ladder and prints the report.
 *
 * Exit codes: 0 all verified; 1 a rung failed verification; 2 bad usage or
 * input; 3 a device, build or runtime error; 4 a launch ran past
 * --kernel-timeout; 130 interrupted (SIGINT, SIGTERM). The last two write
 * the rows measured before the stop, marked "interrupted" in the JSON.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/ladder.h"
#include "cli/args.h"
#include "cli/devices.h"
#include "cli/exit.h"
#include "cli/report_cmd.h"
#include "cli/tune_cmd.h"
#include "core/ceilings.h"
#include "core/context.h"
#include "core/measure.h"
#include "core/progress.h"
#include "core/report.h"
#include "core/stop.h"
#include "core/util.h"
#include "report/write.h"
#include "kladder.h"
#include "workloads/copy.h"
#include "workloads/gemm.h"
#include "workloads/peak.h"
#include "workloads/blur.h"
#include "workloads/gemv.h"
#include "workloads/rowdot.h"

#define MAX_ITEMS 64
#define MAX_KERNELS 8
#define MAX_DIM 1000000L

static const char usage[] =
    "usage: kladder [COMMAND] [OPTIONS]\n"
    "\n"
    "Commands:\n"
    "  (none)      show the chosen device and run the GEMM ladder at a quick size\n"
    "  devices     list every OpenCL platform and device with its facts\n"
    "  peak        measure the device's ceilings: bandwidth, FLOP rate, launch latency,\n"
    "              transfers (cached; every other command reports against them)\n"
    "  gemm        the GEMM ladder, C = A*B (seeds 004 and 002)\n"
    "  copy        the copy ladder with instruction-level parallelism (seed 003)\n"
    "  rowdot      the weighted row dot product r = f·Σ v·M1·M2 (seed 000)\n"
    "  gemv        y = α·A·x + β·y for A row-major and column-major\n"
    "  blur        Gaussian blur of a picture (seed 001), naive to a fused single pass\n"
    "  tune        search GEMM rung parameters for this device and cache the best (below)\n"
    "  report      saved runs (--json) as HTML charts, or one SVG (report --help)\n"
    "  compare     two saved runs rung by rung, for CI too (compare --help)\n"
    "  template W  print a kernel of workload W's interface to start your own (--kernel)\n"
    "  help        this text;  version: the version\n"
    "\n"
    "Device and output (every command):\n"
    "  --device SPEC      P:D index pair, gpu, cpu, or part of a device name\n"
    "                     (default: $KLADDER_DEVICE, else the first GPU, else the first device);\n"
    "                     cuda:N is CUDA device N\n"
    "  --backend B        opencl (default) or cuda: the API that runs the kernels; with cuda,\n"
    "                     --device is a CUDA device index or part of its name\n"
    "  --kernel-dir DIR   read kernels from DIR (the source tree's kernels/) instead of the\n"
    "                     copies built into kladder\n"
    "  --format FMT       table (default), csv or json\n"
    "  --output FILE      write the report to FILE instead of standard output\n"
    "  --json FILE        also write the JSON report to FILE (whatever --format is)\n"
    "  --report FILE      also write an HTML report (charts) to FILE\n"
    "  --quiet, -q        no progress line on a terminal\n"
    "\n"
    "Protocol (every ladder, and peak):\n"
    "  --seed N           random input seed (default 1)\n"
    "  --warmup N         untimed launches before timing (default 2)\n"
    "  --repeats N        at least N timed launches (default 5)\n"
    "  --min-time T       and at least T seconds of kernel time (default 0.1; 200ms works)\n"
    "  --energy           time every row for at least 1 s, so NVML's energy counter gives\n"
    "                     joules per launch and GFLOP/J (NVIDIA GPUs; clocks and power always)\n"
    "  --kernel-timeout T stop when one launch runs longer than T (default 600s; 0: never):\n"
    "                     its row says timeout, the rows before it are written, exit 4\n"
    "  --rung R[,R...]    run only these rungs (name or unique prefix, e.g. 10 or 02_row)\n"
    "  --param NAME=V     set a rung parameter (repeatable), e.g. --param TS=32\n"
    "  --list-rungs       print the ladder with each rung's summary and parameters\n"
    "  --kernel F[:E]     add your own kernel (entry E in file F) as a rung after the ladder's\n"
    "                     (repeatable, every ladder); docs/KERNELS.md says how;\n"
    "                     kladder template W prints one to start from\n";

/* The rest of the text (one string literal may hold only 4095 characters). */
static const char usage_more[] =
    "\n"
    "gemm:\n"
    "  --m M --n N --k K  sizes (any value >= 1); --size S sets all three\n"
    "  --type T           float (default), double (needs fp64) or int\n"
    "  --host-rungs       run the CPU loop-order rungs at any size (they are skipped when\n"
    "                     they would take seconds); --no-host-rungs never runs them\n"
    "  --compare L[,L]    add vendor GEMMs as peers: cublas, clblast, openblas (host)\n"
    "  --no-tuned         the rungs' defaults, not parameters cached by kladder tune\n"
    "                     nor the presets shipped for this GPU and size\n"
    "\n"
    "copy:\n"
    "  --n N (or --size)  elements of 4 bytes (default 2^24 on a GPU, 2^22 on a CPU)\n"
    "  --sweep            N = 512, 1024, ... up to --max-n (default 2^26) for every ILP rung\n"
    "\n"
    "rowdot:\n"
    "  --rows Y --d D     Y rows of length D (default 16384 × 16384 on a GPU, 4096 × 1000 on a\n"
    "                     CPU; the seed's D is 1000); --type float (default) or double\n"
    "\n"
    "gemv:\n"
    "  --m M --n N        A is M×N (default 4096 × 4096 on a GPU, 2048 × 2048 on a CPU);\n"
    "                     --size S sets both; --type float (default) or double\n"
    "  --compare L[,L]    add vendor libraries as peers in the same run: clblast, cublas\n"
    "\n"
    "blur:\n"
    "  --input FILE       PNG (grey, RGB, RGBA; 16-bit and palette converted) or binary PGM/PPM;\n"
    "                     default: a generated 4096 × 4096 test image (--width, --height)\n"
    "  --sigma S          Gaussian σ (default 2); --radius R (default ⌈3σ⌉)\n"
    "  --pixel P          float (one channel, default) or uchar4 (RGBA, 8 bits per channel)\n"
    "  --output FILE      write the blurred image as PNG (for blur, --output is the image;\n"
    "                     --json FILE saves the report), from --output-rung R or the fastest\n"
    "  --compare npp      add NVIDIA NPP's Gaussian filter with the same weights as a peer\n"
    "\n"
    "peak:\n"
    "  --refresh          measure again even when ceilings are cached for this device\n"
    "  --bytes B          buffer size for bandwidth and transfers (default: by device)\n"
    "  --vec W[,W...]     vector widths to try for bandwidth (1, 2, 4, 8, 16; default all)\n"
    "  --quick            a small search space (for tests; ceilings are then not cached)\n"
    "\n"
    "tune gemm (the size, --type, --rung, protocol and device options as for gemm):\n"
    "  --budget T         wall time for the search (default 60s), shared by the rungs tuned\n"
    "                     (default: every device rung with parameters)\n"
    "  --exhaustive       try every candidate of the space (no budget unless --budget)\n"
    "  --show, --clear    list or remove this device's tuned parameters; --all: every device\n"
    "tune WORKLOAD --kernel FILE[:ENTRY] (any ladder; its options as for the workload):\n"
    "                     searches the parameters the kernel declares, then reports its\n"
    "                     default and tuned rows; nothing is cached (docs/KERNELS.md)\n";

static void print_usage(void)
{
    fputs(usage, stdout);
    fputs(usage_more, stdout);
}

enum command {
    CMD_MAIN,
    CMD_DEVICES,
    CMD_PEAK,
    CMD_GEMM,
    CMD_COPY,
    CMD_ROWDOT,
    CMD_GEMV,
    CMD_BLUR,
    CMD_TUNE
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
    const char *kernels[MAX_KERNELS]; /* --kernel FILE[:ENTRY] */
    int nkernels;
    /* gemm */
    int M, N, K, size_set, mnk_set, host_rungs;
    enum kl_type type;
    /* rowdot */
    int rows, d;
    /* gemv, gemm */
    const char *peers[MAX_ITEMS];
    int npeers;
    int no_tuned; /* gemm: the defaults, not tuned parameters */
    /* tune */
    const char *workload;
    enum command tuned;                  /* the workload of `tune WORKLOAD` */
    const char *workload_opt;            /* an option of the workload's, not of tune gemm's */
    const struct kl_ladder_tuner *tuner; /* tune WORKLOAD --kernel: the search */
    double budget;
    int budget_set, exhaustive, show, clear, all;
    int timing_set;        /* --warmup, --repeats or --min-time given */
    int energy;            /* --energy: time long enough for the energy counter */
    double kernel_timeout; /* --kernel-timeout: seconds a launch may take; 0: no limit */
    /* blur */
    const char *input, *output_rung, *image_out;
    int width, height, radius, pixel_uchar4;
    double sigma;
    /* copy */
    long n, max_n;
    int sweep, max_n_set;
    /* peak */
    int refresh, quick;
    int peak_measure; /* an option that only a new measurement can honour */
    int protocol_set;
    long bytes;
    unsigned vec_mask;
};

static int fail_usage(const char *msg)
{
    fprintf(stderr, "kladder: %s\n(kladder help lists the options)\n", msg);
    return EXIT_USAGE;
}

/* Which commands an option belongs to. */
#define ON_ALL 0x1ff
#define ON(c) (1u << (c))
#define ON_LADDERS                                                                                 \
    (ON(CMD_MAIN) | ON(CMD_GEMM) | ON(CMD_COPY) | ON(CMD_ROWDOT) | ON(CMD_GEMV) | ON(CMD_BLUR))
#define ON_RUNS (ON_LADDERS | ON(CMD_PEAK))
#define ON_TUNE ON(CMD_TUNE)

struct option {
    const char *name;
    int value; /* takes a value */
    unsigned on;
};

static const struct option options[] = {
    {"--device", 1, ON_ALL},
    {"--backend", 1, ON_RUNS | ON_TUNE},
    {"--kernel-dir", 1, ON_RUNS | ON_TUNE},
    {"--format", 1, ON_RUNS},
    {"--output", 1, ON_RUNS},
    {"-o", 1, ON_RUNS},
    {"--json", 1, ON_RUNS},
    {"--report", 1, ON_LADDERS},
    {"--quiet", 0, ON_ALL},
    {"-q", 0, ON_ALL},
    {"--seed", 1, ON_RUNS | ON_TUNE},
    {"--warmup", 1, ON_RUNS | ON_TUNE},
    {"--repeats", 1, ON_RUNS | ON_TUNE},
    {"--min-time", 1, ON_RUNS | ON_TUNE},
    {"--energy", 0, ON_RUNS | ON_TUNE},
    {"--kernel-timeout", 1, ON_RUNS | ON_TUNE},
    {"--rung", 1, ON_LADDERS | ON_TUNE},
    {"--param", 1, ON_LADDERS},
    {"--list-rungs", 0, ON_LADDERS},
    {"--kernel", 1, ON_LADDERS},
    {"--m", 1, ON(CMD_MAIN) | ON(CMD_GEMM) | ON(CMD_GEMV) | ON_TUNE},
    {"--k", 1, ON(CMD_MAIN) | ON(CMD_GEMM) | ON_TUNE},
    {"--n", 1, ON(CMD_MAIN) | ON(CMD_GEMM) | ON(CMD_COPY) | ON(CMD_GEMV) | ON_TUNE},
    {"--size", 1, ON(CMD_MAIN) | ON(CMD_GEMM) | ON(CMD_COPY) | ON(CMD_GEMV) | ON_TUNE},
    {"--type", 1, ON(CMD_MAIN) | ON(CMD_GEMM) | ON(CMD_ROWDOT) | ON(CMD_GEMV) | ON_TUNE},
    {"--compare", 1, ON(CMD_GEMV) | ON(CMD_GEMM) | ON(CMD_BLUR)},
    {"--no-tuned", 0, ON(CMD_MAIN) | ON(CMD_GEMM)},
    {"--budget", 1, ON_TUNE},
    {"--exhaustive", 0, ON_TUNE},
    {"--show", 0, ON_TUNE},
    {"--clear", 0, ON_TUNE},
    {"--all", 0, ON_TUNE},
    {"--input", 1, ON(CMD_BLUR)},
    {"--width", 1, ON(CMD_BLUR)},
    {"--height", 1, ON(CMD_BLUR)},
    {"--sigma", 1, ON(CMD_BLUR)},
    {"--radius", 1, ON(CMD_BLUR)},
    {"--pixel", 1, ON(CMD_BLUR)},
    {"--output-rung", 1, ON(CMD_BLUR)},
    {"--rows", 1, ON(CMD_ROWDOT)},
    {"--d", 1, ON(CMD_ROWDOT)},
    {"--host-rungs", 0, ON(CMD_MAIN) | ON(CMD_GEMM)},
    {"--no-host-rungs", 0, ON(CMD_MAIN) | ON(CMD_GEMM)},
    {"--sweep", 0, ON(CMD_COPY)},
    {"--max-n", 1, ON(CMD_COPY)},
    {"--refresh", 0, ON(CMD_PEAK)},
    {"--bytes", 1, ON(CMD_PEAK)},
    {"--vec", 1, ON(CMD_PEAK)},
    {"--quick", 0, ON(CMD_PEAK)},
};

static const char *const command_names[] = {"(none)", "devices", "peak", "gemm", "copy",
                                            "rowdot", "gemv",    "blur", "tune"};

/* Handles one option with its value (NULL when it takes none); 0 or an exit code. */
static int apply(struct cli *c, const char *opt, const char *val)
{
    char err[512];
    long v;
#define IS(s) (strcmp(opt, s) == 0)
#define NUMBER(lo, hi)                                                                             \
    do {                                                                                           \
        if (kl_parse_long(opt, val, lo, hi, &v, err, sizeof err) != 0)                             \
            return fail_usage(err);                                                                \
    } while (0)
    if (IS("--device")) {
        c->device = val;
    } else if (IS("--backend")) {
        if (strcmp(val, "opencl") && strcmp(val, "cuda")) {
            snprintf(err, sizeof err, "unknown backend \"%s\" (opencl or cuda)", val);
            return fail_usage(err);
        }
        c->backend = val;
    } else if (IS("--kernel-dir")) {
        c->kernel_dir = val;
    } else if (IS("--format")) {
        if (strcmp(val, "table") && strcmp(val, "csv") && strcmp(val, "json")) {
            snprintf(err, sizeof err, "unknown format \"%s\" (table, csv or json)", val);
            return fail_usage(err);
        }
        c->format = val;
    } else if (IS("--output") || IS("-o")) {
        /* For blur, --output names the blurred image; the report goes to --json. */
        *(c->command == CMD_BLUR ? &c->image_out : &c->output) = val;
    } else if (IS("--json")) {
        c->json = val;
    } else if (IS("--report")) {
        c->report = val;
    } else if (IS("--quiet") || IS("-q")) {
        c->quiet = 1;
    } else if (IS("--seed") || IS("--warmup") || IS("--repeats") || IS("--min-time")) {
        c->protocol_set = 1;
        c->timing_set |= !IS("--seed");
        if (IS("--seed")) {
            NUMBER(0, 2147483647L);
            c->seed = (unsigned long long)v;
        } else if (IS("--warmup")) {
            NUMBER(0, 1000000);
            c->protocol.warmup = (int)v;
        } else if (IS("--repeats")) {
            NUMBER(1, 1000000);
            c->protocol.min_repeats = (int)v;
            if (c->protocol.max_repeats < v)
                c->protocol.max_repeats = (int)v;
        } else if (kl_parse_seconds(opt, val, 0, 3600, &c->protocol.min_time, err, sizeof err) !=
                   0) {
            return fail_usage(err);
        }
    } else if (IS("--energy")) {
        c->energy = 1;
    } else if (IS("--kernel-timeout")) {
        if (kl_parse_seconds(opt, val, 0, 86400, &c->kernel_timeout, err, sizeof err) != 0)
            return fail_usage(err);
    } else if (IS("--rung")) {
        /* argv strings are writable; lists are split in place. */
        if (c->nrungs == MAX_ITEMS)
            return fail_usage("too many --rung names");
        int n = kl_split_list((char *)val, (char **)c->rungs + c->nrungs, MAX_ITEMS - c->nrungs);
        if (n == 0)
            return fail_usage("--rung needs a rung name");
        c->nrungs += n;
    } else if (IS("--kernel")) {
        if (c->nkernels == MAX_KERNELS)
            return fail_usage("at most 8 --kernel options");
        c->kernels[c->nkernels++] = val;
    } else if (IS("--param")) {
        if (c->nparams == MAX_ITEMS)
            return fail_usage("too many --param options");
        const char *eq = strchr(val, '=');
        for (int k = 0; eq && k < c->nparams; k++)
            if (strncmp(c->params[k], val, (size_t)(eq - val) + 1) == 0) {
                snprintf(err, sizeof err, "--param %.*s is given twice", (int)(eq - val), val);
                return fail_usage(err);
            }
        c->params[c->nparams++] = val;
    } else if (IS("--list-rungs")) {
        c->list_rungs = 1;
    } else if (IS("--size") || IS("--m") || IS("--n") || IS("--k")) {
        /* copy counts elements; gemm sizes are matrix dimensions. */
        if (c->command == CMD_COPY) {
            NUMBER(1, 2147483583L);
            c->n = v;
            return 0;
        }
        NUMBER(1, MAX_DIM);
        if (IS("--size")) {
            c->M = c->N = c->K = (int)v;
            c->size_set = 1;
        } else {
            *(IS("--m") ? &c->M : IS("--n") ? &c->N : &c->K) = (int)v;
            c->mnk_set = 1;
        }
    } else if (IS("--input")) {
        c->input = val;
    } else if (IS("--width") || IS("--height")) {
        NUMBER(1, 65536);
        *(IS("--width") ? &c->width : &c->height) = (int)v;
    } else if (IS("--sigma")) {
        char *end;
        c->sigma = strtod(val, &end);
        if (end == val || *end || !(c->sigma > 0) || c->sigma > 1000) {
            snprintf(err, sizeof err, "--sigma: \"%s\" is not a number in (0, 1000]", val);
            return fail_usage(err);
        }
    } else if (IS("--radius")) {
        NUMBER(0, 512);
        c->radius = (int)v;
    } else if (IS("--pixel")) {
        if (strcmp(val, "float") && strcmp(val, "uchar4")) {
            snprintf(err, sizeof err, "unknown pixel type \"%s\" (float or uchar4)", val);
            return fail_usage(err);
        }
        c->pixel_uchar4 = strcmp(val, "uchar4") == 0;
    } else if (IS("--output-rung")) {
        c->output_rung = val;
    } else if (IS("--compare")) {
        int n = kl_split_list((char *)val, (char **)c->peers + c->npeers, MAX_ITEMS - c->npeers);
        if (n == 0)
            return fail_usage("--compare needs a library name (gemm: cublas, cublas_tf32, "
                              "clblast, openblas; gemv: clblast, cublas; blur: npp)");
        for (int a = c->npeers; a < c->npeers + n; a++)
            for (int b = 0; b < a; b++)
                if (strcmp(c->peers[a], c->peers[b]) == 0) {
                    snprintf(err, sizeof err, "--compare names %s twice", c->peers[a]);
                    return fail_usage(err);
                }
        c->npeers += n;
    } else if (IS("--rows") || IS("--d")) {
        NUMBER(1, 2147483647L);
        *(IS("--rows") ? &c->rows : &c->d) = (int)v;
    } else if (IS("--type")) {
        if (kl_type_parse(val, &c->type) != KL_OK) {
            snprintf(err, sizeof err, "unknown type \"%s\" (float, double or int)", val);
            return fail_usage(err);
        }
    } else if (IS("--no-tuned")) {
        c->no_tuned = 1;
    } else if (IS("--budget")) {
        if (kl_parse_seconds(opt, val, 0.001, 86400, &c->budget, err, sizeof err) != 0)
            return fail_usage(err);
        c->budget_set = 1;
    } else if (IS("--exhaustive")) {
        c->exhaustive = 1;
    } else if (IS("--show")) {
        c->show = 1;
    } else if (IS("--clear")) {
        c->clear = 1;
    } else if (IS("--all")) {
        c->all = 1;
    } else if (IS("--host-rungs")) {
        c->host_rungs = 1;
    } else if (IS("--no-host-rungs")) {
        c->host_rungs = -1;
    } else if (IS("--sweep")) {
        c->sweep = 1;
    } else if (IS("--max-n")) {
        NUMBER(1, 2147483583L);
        c->max_n = v;
        c->max_n_set = 1;
    } else if (IS("--refresh")) {
        c->refresh = 1;
    } else if (IS("--quick")) {
        c->quick = 1;
        c->peak_measure = 1;
    } else if (IS("--bytes")) {
        NUMBER(65536, 1L << 40);
        c->bytes = v;
        c->peak_measure = 1;
    } else if (IS("--vec")) {
        char *items[8];
        int n = kl_split_list((char *)val, items, 8);
        for (int i = 0; i < n; i++) {
            if (kl_parse_long("--vec", items[i], 1, 16, &v, err, sizeof err) != 0 ||
                (v & (v - 1)) != 0) {
                snprintf(err, sizeof err, "--vec: unknown vector width \"%s\" (1, 2, 4, 8 or 16)",
                         items[i]);
                return fail_usage(err);
            }
            c->vec_mask |= (unsigned)v;
        }
        c->peak_measure = 1;
        if (n == 0)
            return fail_usage("--vec needs a vector width");
    }
#undef IS
#undef NUMBER
    return 0;
}

/* Parses argv into c; returns 0 or an exit code. */
static int parse(int argc, char **argv, struct cli *c)
{
    char err[512];
    int i = 1;

    memset(c, 0, sizeof *c);
    c->format = "table";
    c->seed = 1;
    c->type = KL_FLOAT;
    c->max_n = 1L << 26;
    c->radius = -1;
    c->sigma = 2.0;
    kl_protocol_default(&c->protocol);
    c->kernel_timeout = 600;

    if (argc > 1 && argv[1][0] != '-') {
        const char *cmd = argv[i++];
        if ((strcmp(cmd, "help") == 0 || strcmp(cmd, "version") == 0) && argc > 2) {
            snprintf(err, sizeof err, "%s takes no options (got \"%s\")", cmd, argv[2]);
            return fail_usage(err);
        }
        if (strcmp(cmd, "help") == 0) {
            print_usage();
            exit(0);
        }
        if (strcmp(cmd, "version") == 0) {
            printf("kladder %s\n", KLADDER_VERSION);
            exit(0);
        }
        int found = 0;
        for (int k = 1; k < (int)(sizeof command_names / sizeof *command_names); k++)
            if (strcmp(cmd, command_names[k]) == 0) {
                c->command = (enum command)k;
                found = 1;
            }
        if (!found) {
            snprintf(err, sizeof err,
                     "unknown command \"%s\" (devices, peak, gemm, copy, rowdot, gemv, blur, "
                     "tune, report, compare, help, version)",
                     cmd);
            return fail_usage(err);
        }
        /* kladder tune WORKLOAD: a ladder's; its options apply too (for --kernel). */
        if (c->command == CMD_TUNE && i < argc && argv[i][0] != '-') {
            c->workload = argv[i++];
            for (int k = CMD_GEMM; k <= CMD_BLUR; k++)
                if (strcmp(c->workload, command_names[k]) == 0)
                    c->tuned = (enum command)k;
            if (!c->tuned) {
                snprintf(err, sizeof err,
                         "kladder tune takes a ladder: gemm, copy, rowdot, gemv or blur (got "
                         "\"%s\")",
                         c->workload);
                return fail_usage(err);
            }
        }
    }
    for (; i < argc; i++) {
        char name[64];
        const char *opt = argv[i], *val = NULL, *eq = strchr(opt, '=');
        const struct option *o = NULL;
        if (strcmp(opt, "--help") == 0 || strcmp(opt, "-h") == 0) {
            print_usage();
            exit(0);
        }
        /* --opt=value and --opt value both work. */
        if (strncmp(opt, "--", 2) == 0 && eq && (size_t)(eq - opt) < sizeof name) {
            memcpy(name, opt, (size_t)(eq - opt));
            name[eq - opt] = '\0';
            opt = name;
            val = eq + 1;
        }
        for (size_t k = 0; k < sizeof options / sizeof *options && !o; k++)
            if (strcmp(options[k].name, opt) == 0)
                o = &options[k];
        if (!o) {
            snprintf(err, sizeof err, "unknown option \"%s\"", argv[i]);
            return fail_usage(err);
        }
        if (!(o->on & ON(c->command)) && c->tuned && (o->on & ON(c->tuned)))
            c->workload_opt = o->name;
        else if (!(o->on & ON(c->command))) {
            snprintf(err, sizeof err, "option %s does not apply to %s", opt,
                     c->command == CMD_MAIN ? "the main job" : command_names[c->command]);
            return fail_usage(err);
        }
        if (o->value && !val) {
            if (i + 1 >= argc) {
                snprintf(err, sizeof err, "%s needs a value", opt);
                return fail_usage(err);
            }
            val = argv[++i];
        } else if (!o->value && val) {
            snprintf(err, sizeof err, "%s takes no value", opt);
            return fail_usage(err);
        }
        int rc = apply(c, opt, val);
        if (rc)
            return rc;
    }
    /* Energy needs a window the counter can resolve: the timed launches last that long. */
    if (c->energy && c->protocol.min_time < KL_ENERGY_WINDOW_S)
        c->protocol.min_time = KL_ENERGY_WINDOW_S;
    /* `tune WORKLOAD` takes the workload's sizes. */
    enum command cmd = c->command == CMD_TUNE && c->tuned ? c->tuned : c->command;
    if (cmd == CMD_BLUR && (c->width || c->height) && c->input)
        return fail_usage("--width and --height size the generated image; not with --input");
    if (c->output_rung && !c->image_out)
        return fail_usage("--output-rung chooses the rung for --output FILE; give --output too");
    if (c->max_n_set && !c->sweep)
        return fail_usage("--max-n sets the end of a --sweep; give --sweep too");
    if (cmd == CMD_GEMV && c->mnk_set && (!c->M || !c->N))
        return fail_usage("give both --m and --n, or --size");
    if (c->mnk_set && (cmd == CMD_GEMM || cmd == CMD_MAIN || cmd == CMD_TUNE) &&
        (!c->M || !c->N || !c->K))
        return fail_usage("give all of --m, --n and --k, or --size");
    if (c->command == CMD_TUNE) {
        if (c->show && c->clear)
            return fail_usage("--show and --clear: one at a time");
        if ((c->show || c->clear) && (c->size_set || c->mnk_set || c->nrungs || c->budget_set ||
                                      c->exhaustive || c->protocol_set))
            return fail_usage("--show and --clear take only --all, --device and --backend");
        if (c->all && !c->show && !c->clear)
            return fail_usage("--all goes with --show or --clear");
        if (!c->show && !c->clear && !c->workload)
            return fail_usage("tune needs a workload: kladder tune gemm (or --show, --clear)");
        if (c->nkernels > 1)
            return fail_usage("tune takes one --kernel at a time");
        if (c->nkernels && (c->nrungs || c->nparams || c->show || c->clear))
            return fail_usage("tune --kernel searches the user's kernels' parameters: no --rung, "
                              "--param, --show or --clear with it");
        if (!c->nkernels && c->tuned && c->tuned != CMD_GEMM) {
            snprintf(err, sizeof err,
                     "kladder tune %s tunes the user's kernels: give --kernel FILE (the built-in "
                     "rungs tuned are gemm's)",
                     c->workload);
            return fail_usage(err);
        }
        if (!c->nkernels && c->workload_opt) {
            snprintf(err, sizeof err, "option %s applies to tune only with --kernel FILE",
                     c->workload_opt);
            return fail_usage(err);
        }
    }
    return 0;
}

static void list_rungs(enum command cmd, FILE *out)
{
    if (cmd == CMD_BLUR) {
        fprintf(out, "Gaussian blur ladder (seed 001), in order:\n");
        for (int i = 0; i < kl_blur_rung_count(); i++) {
            const struct kl_blur_rung *r = kl_blur_rung_at(i);
            fprintf(out, "  %-13s %s\n", r->name, r->summary);
            kl_params_print(r->params, 13, out);
        }
        return;
    }
    if (cmd == CMD_GEMV) {
        fprintf(out, "GEMV ladder (y = a*A*x + b*y), in order:\n");
        for (int i = 0; i < kl_gemv_rung_count(); i++) {
            const struct kl_gemv_rung *r = kl_gemv_rung_at(i);
            fprintf(out, "  %-16s %s\n", r->name, r->summary);
            kl_params_print(r->params, 16, out);
        }
        return;
    }
    if (cmd == CMD_ROWDOT) {
        fprintf(out, "Weighted row dot ladder (seed 000), in order:\n");
        for (int i = 0; i < kl_rowdot_rung_count(); i++) {
            const struct kl_rowdot_rung *r = kl_rowdot_rung_at(i);
            fprintf(out, "  %-18s %s\n", r->name, r->summary);
            kl_params_print(r->params, 18, out);
        }
        return;
    }
    if (cmd == CMD_COPY) {
        fprintf(out, "Copy ladder (seed 003), in order:\n");
        for (int i = 0; i < kl_copy_rung_count(); i++) {
            const struct kl_copy_rung *r = kl_copy_rung_at(i);
            fprintf(out, "  %-8s %s\n", r->name, r->summary);
            kl_params_print(r->params, 8, out);
        }
        return;
    }
    fprintf(out, "GEMM ladder (C = A*B), in order:\n");
    for (int i = 0; i < kl_gemm_rung_count(); i++) {
        const struct kl_gemm_rung *r = kl_gemm_rung_at(i);
        fprintf(out, "  %-16s %s\n", r->name, r->summary);
        kl_params_print(r->params, 16, out);
    }
}

/* The backend a spec names by its prefix ("cuda:0", "opencl"), or NULL. */
static const char *spec_backend(const char *spec)
{
    static const char *const names[] = {"opencl", "cuda"};
    for (size_t i = 0; spec && i < sizeof names / sizeof *names; i++) {
        size_t n = strlen(names[i]);
        if (strncmp(spec, names[i], n) == 0 && (spec[n] == '\0' || spec[n] == ':'))
            return names[i];
    }
    return NULL;
}

/*
 * --backend B and --device SPEC as one spec for kl_open ("cuda:0"). With
 * --backend and no --device, KLADDER_DEVICE counts only if it names no other
 * backend (an OpenCL "P:D" means nothing to CUDA).
 */
static int device_spec(const struct cli *c, char *spec, size_t n)
{
    const char *env = getenv("KLADDER_DEVICE");
    const char *dev = c->device ? c->device : env;
    if (!c->backend) {
        snprintf(spec, n, "%s", dev ? dev : "");
        return 0;
    }
    const char *named = spec_backend(dev);
    if (!c->device && dev &&
        (named ? strcmp(named, c->backend) != 0 : strcmp(c->backend, "opencl") != 0))
        dev = named = NULL; /* the backend's default device */
    else if (named && strcmp(named, c->backend) != 0) {
        fprintf(stderr, "kladder: --backend %s contradicts the device \"%s\"\n", c->backend, dev);
        return EXIT_USAGE;
    }
    if (named)
        snprintf(spec, n, "%s", dev);
    else
        snprintf(spec, n, "%s%s%s", c->backend, dev && *dev ? ":" : "", dev ? dev : "");
    return 0;
}

static int open_device(const struct cli *c, struct kl_context **kl)
{
    char err[KL_ERR_MAX], spec[512];
    int rc = device_spec(c, spec, sizeof spec);
    if (rc)
        return rc;
    enum kl_status st = kl_open(spec, kl, err, sizeof err);
    if (st != KL_OK) {
        fprintf(stderr, "kladder: %s\n", err);
        return st == KL_ERR_NO_DEVICE || st == KL_ERR_UNSUPPORTED || st == KL_ERR_ARG
                   ? EXIT_USAGE
                   : EXIT_RUNTIME;
    }
    if (c->kernel_dir && (st = kl_set_kernel_dir(*kl, c->kernel_dir)) != KL_OK) {
        fprintf(stderr, "kladder: %s\n", kl_last_error(*kl));
        kl_close(*kl);
        *kl = NULL;
        return EXIT_USAGE;
    }
    char hint[512];
    if ((*kl)->ops == &kl_backend_opencl && kl_nvidia_hint(hint, sizeof hint))
        fprintf(stderr, "kladder: note: %s\n", hint);
    return 0;
}

/* Writes one rendering of the report; 0, or EXIT_RUNTIME when the stream failed. */
static int write_report(FILE *out, const char *format, const struct kl_report *rep, int sweep)
{
    if (strcmp(format, "json") == 0) {
        kl_report_json(rep, out);
    } else if (strcmp(format, "csv") == 0) {
        kl_report_csv(rep, out);
    } else {
        /* A sweep is one row per N and rung: the matrix is its readable form. */
        if (sweep)
            kl_report_matrix(rep, "N", out);
        else
            kl_report_table(rep, out);
    }
    return fflush(out) != 0 || ferror(out) ? EXIT_RUNTIME : 0;
}

/*
 * The report files, opened before the run so a bad path fails at once. Each
 * is written under a temporary name and renamed into place when the run has
 * written it (kl_out_file): a run killed half-way leaves an older file as it
 * was, never a truncated one.
 */
struct outputs {
    FILE *main, *json;       /* main: standard output or --output's file; json: NULL or --json's */
    FILE *report;            /* the HTML report (--report, or the main job's own) */
    const char *report_path; /* its path, NULL when none is written */
    struct kl_out_file files[3]; /* --output, --json, the HTML report */
};

enum { OUT_MAIN, OUT_JSON, OUT_HTML };

/* Opens file k at path into *f; 0, or -1 having said why. */
static int open_one(struct outputs *o, int k, const char *path, FILE **f, int quiet)
{
    if (kl_out_open(&o->files[k], path) != 0) {
        if (!quiet)
            fprintf(stderr, "kladder: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    *f = o->files[k].f;
    return 0;
}

/* Forgets every file opened, leaving what was at their paths as it was. */
static void abort_outputs(struct outputs *o)
{
    for (int k = 0; k < 3; k++)
        kl_out_abort(&o->files[k]);
    o->main = stdout;
    o->json = o->report = NULL;
}

static int open_outputs(const struct cli *c, struct outputs *o)
{
    memset(o, 0, sizeof *o);
    o->main = stdout;
    if ((c->output && open_one(o, OUT_MAIN, c->output, &o->main, 0) != 0) ||
        (c->json && open_one(o, OUT_JSON, c->json, &o->json, 0) != 0)) {
        abort_outputs(o);
        return EXIT_USAGE;
    }
    /* The main job writes kladder-report.html unless told where; where it cannot, it says so
     * and runs on. A --report path that cannot be written is an error before the run. */
    o->report_path = c->report ? c->report : c->command == CMD_MAIN ? "kladder-report.html" : NULL;
    if (o->report_path && open_one(o, OUT_HTML, o->report_path, &o->report, 1) != 0) {
        fprintf(stderr, "kladder: %scannot write %s: %s%s\n",
                c->report ? "" : "note: ", o->report_path, strerror(errno),
                c->report ? "" : " (--report FILE writes the report elsewhere)");
        o->report_path = NULL;
        if (c->report) {
            abort_outputs(o);
            return EXIT_USAGE;
        }
    }
    return 0;
}

/*
 * Closes the report files: each written one renamed into place (html: the
 * HTML page was written whole), the others removed. EXIT_RUNTIME when a
 * write was lost.
 */
static int close_outputs(struct outputs *o, int written, int html)
{
    int rc = 0;
    for (int k = 0; k < 3; k++) {
        struct kl_out_file *f = &o->files[k];
        if (!f->f)
            continue;
        if (!(k == OUT_HTML ? html : written)) {
            kl_out_abort(f);
        } else if (kl_out_commit(f) != 0) {
            fprintf(stderr, "kladder: writing %s failed: %s\n", f->path, strerror(errno));
            rc = EXIT_RUNTIME;
        }
    }
    o->main = stdout;
    o->json = o->report = NULL;
    return rc;
}

/*
 * Writes the report of a run (the rows so far, when an error or a stop cut
 * it short) to every output and closes them; *html: the HTML page was
 * written. 0, or EXIT_RUNTIME when a write was lost.
 */
static int emit(const struct cli *c, enum kl_status st, const struct kl_report *rep,
                struct outputs *o, int *html)
{
    int io = 0, written = st == KL_OK || rep->count > 0;
    *html = 0;
    if (written) {
        io = write_report(o->main, c->format, rep, c->sweep);
        if (o->json && write_report(o->json, "json", rep, 0))
            io = EXIT_RUNTIME;
        if (io)
            fprintf(stderr, "kladder: writing the report failed: %s\n", strerror(errno));
        if (o->report && kl_cli_report_run(rep, o->report, o->report_path) == 0)
            *html = 1;
        else if (o->report)
            io = EXIT_RUNTIME;
    }
    if (close_outputs(o, written, *html))
        io = EXIT_RUNTIME, *html = 0;
    return io;
}

/*
 * Prints the report of a run. When an error stopped it, the rungs that ran
 * are still printed, then the error. A failed verification (exit 1) comes
 * before a lost write (exit 3) in the exit code; an interrupted run exits
 * 130 with the rows measured before the signal.
 */
static int finish(const struct cli *c, struct kl_context *kl, enum kl_status st,
                  struct kl_report *rep, struct outputs *o)
{
    int rc = 0, html = 0;
    const char *html_path = o->report_path;
    kl_progress_done();
    kl_watchdog_set(0, NULL);
    if (st == KL_ERR_INTERRUPTED)
        snprintf(rep->stopped, sizeof rep->stopped, "%s", kl_stop_name());
    int io = emit(c, st, rep, o, &html);
    if (st == KL_ERR_INTERRUPTED) {
        fprintf(stderr, "kladder: interrupted (%s): %d row%s written\n", rep->stopped, rep->count,
                rep->count == 1 ? "" : "s");
        rc = EXIT_INTERRUPTED;
    } else if (st != KL_OK) {
        fprintf(stderr, "kladder: %s\n", kl_last_error(kl));
        rc = kl_exit_for(st);
    } else if (kl_report_failed(rep)) {
        fprintf(stderr, "kladder: at least one rung FAILED verification\n");
        rc = EXIT_VERIFY;
    } else {
        rc = io;
    }
    if (html && c->command == CMD_MAIN)
        kl_cli_report_announce(
            o->main == stdout && strcmp(c->format, "table") == 0 ? stdout : stderr, html_path);
    kl_report_free(rep);
    kl_close(kl);
    return rc;
}

/*
 * A launch that outlived --kernel-timeout. This runs on the watchdog's thread
 * while the run's thread waits on the launch (and so touches nothing): the
 * row being measured becomes a timeout, the rows so far are written, and the
 * process ends; the device frees the launch with the process.
 */
static struct {
    const struct cli *c;
    struct kl_report *rep;
    struct outputs *o;
} live;

static void on_runaway(double limit_s)
{
    char why[96];
    int html;
    snprintf(why, sizeof why, "--kernel-timeout %g s", limit_s);
    kl_progress_done();
    if (!live.rep) {
        fprintf(stderr, "kladder: a launch ran past %s; stopping\n", why);
        _exit(EXIT_TIMEOUT);
    }
    struct kl_result *x = live.rep->count ? &live.rep->results[live.rep->count - 1] : NULL;
    if (x) {
        x->status = KL_RESULT_TIMEOUT;
        snprintf(x->note, sizeof x->note,
                 "a launch ran past %s (an endless loop?); the run stopped here", why);
    }
    snprintf(live.rep->stopped, sizeof live.rep->stopped, "%s", why);
    emit(live.c, KL_OK, live.rep, live.o, &html);
    fprintf(stderr, "kladder: %s%sa launch ran past %s; the rows so far are written\n",
            x ? x->rung : "", x ? ": " : "", why);
    fflush(NULL);
    _exit(EXIT_TIMEOUT);
}

/* Arms the watchdog for a run writing rep to o. */
static void watch_run(const struct cli *c, struct kl_report *rep, struct outputs *o)
{
    live.c = c, live.rep = rep, live.o = o;
    kl_watchdog_set(c->kernel_timeout, on_runaway);
}

/* The user's kernels of --kernel, read and parsed before the device opens. */
static struct kl_user_rung users[MAX_KERNELS];
static int nusers;

static void free_users(void)
{
    for (int i = 0; i < nusers; i++)
        kl_user_rung_free(&users[i]);
}

static int load_users(const struct cli *c)
{
    struct kl_err e;
    for (nusers = 0; nusers < c->nkernels; nusers++)
        if (kl_user_rung_load(c->kernels[nusers], &users[nusers], &e) != KL_OK) {
            fprintf(stderr, "kladder: %s\n", e.msg);
            free_users();
            return EXIT_USAGE;
        }
    atexit(free_users);
    return 0;
}

/* Each ladder command: its request from the options, then the library's ladder. */
typedef enum kl_status (*ladder_fn)(struct cli *c, struct kl_context *kl, struct outputs *o,
                                    struct kl_report *rep);

static enum kl_status gemm_ladder(struct cli *c, struct kl_context *kl, struct outputs *o,
                                  struct kl_report *rep)
{
    struct kl_gemm_request req;
    memset(&req, 0, sizeof req);
    if (!c->size_set && !c->mnk_set) {
        /* A size that finishes in well under a minute: larger on a GPU, small on a CPU. */
        c->M = c->N = c->K = (int)kl_default_size("gemm", 0, kl->info.is_gpu);
    }
    req.M = c->M, req.N = c->N, req.K = c->K;
    req.type = c->type;
    req.seed = c->seed;
    req.protocol = c->protocol;
    req.params = c->params, req.nparams = c->nparams;
    req.rungs = c->rungs, req.nrungs = c->nrungs;
    req.users = users, req.nusers = nusers, req.tuner = c->tuner;
    req.host_rungs = c->host_rungs;
    req.peers = c->peers, req.npeers = c->npeers;
    if (c->command == CMD_MAIN) {
        /* Part of the table on a terminal; kept out of CSV, JSON and files. */
        FILE *f = o->main == stdout && strcmp(c->format, "table") == 0 ? stdout : stderr;
        if (kl->ops == &kl_backend_opencl)
            fprintf(f, "kladder: device %d:%d %s (%s)", kl->platform, kl->device, kl->info.name,
                    kl->info.platform);
        else
            fprintf(f, "kladder: device %s:%d %s", kl->ops->name, kl->device, kl->info.name);
        fprintf(f, "; GEMM ladder at %d×%d×%d\n\n", c->M, c->N, c->K);
        fflush(f);
    }
    /* Parameters cached by `kladder tune` for this device, type and size class. */
    static struct kl_cli_tuned tuned;
    req.no_presets = c->no_tuned;
    if (!c->no_tuned)
        kl_cli_tuned_apply(kl, &req, &tuned, stderr);
    return kl_gemm_ladder(kl, &req, rep);
}

static enum kl_status copy_ladder(struct cli *c, struct kl_context *kl, struct outputs *o,
                                  struct kl_report *rep)
{
    struct kl_copy_request req;
    (void)o;
    memset(&req, 0, sizeof req);
    req.n = c->n ? c->n : kl_default_size("copy", 0, kl->info.is_gpu);
    req.seed = c->seed;
    req.protocol = c->protocol;
    req.params = c->params, req.nparams = c->nparams;
    req.rungs = c->rungs, req.nrungs = c->nrungs;
    req.users = users, req.nusers = nusers, req.tuner = c->tuner;
    req.sweep = c->sweep;
    req.max_n = c->max_n;
    return kl_copy_ladder(kl, &req, rep);
}

static enum kl_status rowdot_ladder(struct cli *c, struct kl_context *kl, struct outputs *o,
                                    struct kl_report *rep)
{
    struct kl_rowdot_request req;
    (void)o;
    memset(&req, 0, sizeof req);
    req.rows = c->rows ? c->rows : (int)kl_default_size("rowdot", 0, kl->info.is_gpu);
    req.d = c->d ? c->d : (int)kl_default_size("rowdot", 1, kl->info.is_gpu);
    req.type = c->type;
    req.seed = c->seed;
    req.protocol = c->protocol;
    req.params = c->params, req.nparams = c->nparams;
    req.rungs = c->rungs, req.nrungs = c->nrungs;
    req.users = users, req.nusers = nusers, req.tuner = c->tuner;
    return kl_rowdot_ladder(kl, &req, rep);
}

static enum kl_status gemv_ladder(struct cli *c, struct kl_context *kl, struct outputs *o,
                                  struct kl_report *rep)
{
    struct kl_gemv_request req;
    (void)o;
    memset(&req, 0, sizeof req);
    req.M = c->M ? c->M : (int)kl_default_size("gemv", 0, kl->info.is_gpu);
    req.N = c->N ? c->N : (int)kl_default_size("gemv", 1, kl->info.is_gpu);
    req.type = c->type;
    req.seed = c->seed;
    req.protocol = c->protocol;
    req.params = c->params, req.nparams = c->nparams;
    req.rungs = c->rungs, req.nrungs = c->nrungs;
    req.users = users, req.nusers = nusers, req.tuner = c->tuner;
    req.peers = c->peers, req.npeers = c->npeers;
    return kl_gemv_ladder(kl, &req, rep);
}

static enum kl_status blur_ladder(struct cli *c, struct kl_context *kl, struct outputs *o,
                                  struct kl_report *rep)
{
    struct kl_blur_request req;
    (void)o;
    memset(&req, 0, sizeof req);
    req.input = c->input;
    req.width = c->width ? c->width : (int)kl_default_size("blur", 0, kl->info.is_gpu);
    req.height = c->height ? c->height : (int)kl_default_size("blur", 1, kl->info.is_gpu);
    req.sigma = c->sigma;
    req.radius = c->radius;
    req.pixel = c->pixel_uchar4 ? KL_PIX_UCHAR4 : KL_PIX_FLOAT;
    req.output = c->image_out;
    req.output_rung = c->output_rung;
    req.seed = c->seed;
    req.protocol = c->protocol;
    req.params = c->params, req.nparams = c->nparams;
    req.rungs = c->rungs, req.nrungs = c->nrungs;
    req.users = users, req.nusers = nusers, req.tuner = c->tuner;
    req.peers = c->peers, req.npeers = c->npeers;
    rep->image_in = c->input; /* for the HTML report's pictures */
    enum kl_status st = kl_blur_ladder(kl, &req, rep);
    if (st == KL_OK)
        rep->image_out = c->image_out; /* written only by a run that finished */
    return st;
}

/* Opens the device, runs one ladder and prints its report. */
static int run_ladder(struct cli *c, struct outputs *o, ladder_fn fn)
{
    struct kl_context *kl = NULL;
    struct kl_report rep;
    int rc = open_device(c, &kl);
    if (rc) {
        abort_outputs(o); /* opened for a run that never started */
        return rc;
    }
    memset(&rep, 0, sizeof rep);
    watch_run(c, &rep, o);
    return finish(c, kl, fn(c, kl, o, &rep), &rep, o);
}

static int run_peak(struct cli *c, struct outputs *o)
{
    struct kl_context *kl = NULL;
    struct kl_report rep;
    struct kl_peak_request req;
    struct kl_ceilings ceil;
    char warn[1024], path[4096];
    int rc = open_device(c, &kl);
    if (rc) {
        abort_outputs(o);
        return rc;
    }
    kl_ceilings_path(&kl->info, kl->ops->name, path, sizeof path);
    /* Options that shape a measurement ask for one; a plain `kladder peak` prints the cache.
     * Either way a damaged cache is reported. */
    int got = kl_ceilings_load(&kl->info, kl->ops->name, &ceil, warn, sizeof warn);
    if (got < 0)
        fprintf(stderr, "kladder: warning: %s\n", warn);
    if (got == 1 && !c->refresh && !c->peak_measure && !c->protocol_set) {
        int fmt = strcmp(c->format, "json") == 0 ? 1 : strcmp(c->format, "csv") == 0 ? 2 : 0;
        kl_ceilings_print(&ceil, &kl->info, fmt, o->main);
        if (fmt == 0)
            fprintf(o->main, "\n(cached in %s; --refresh measures again)\n", path);
        if (o->json)
            kl_ceilings_print(&ceil, &kl->info, 1, o->json);
        rc = fflush(o->main) != 0 || ferror(o->main) ? EXIT_RUNTIME : 0;
        kl_close(kl);
        return close_outputs(o, 1, 0) ? EXIT_RUNTIME : rc;
    }
    memset(&req, 0, sizeof req);
    req.bytes = (size_t)c->bytes;
    req.quick = c->quick;
    req.vec_mask = c->vec_mask;
    req.protocol = c->protocol;
    req.seed = c->seed;
    memset(&rep, 0, sizeof rep);
    watch_run(c, &rep, o);
    enum kl_status st = kl_peak_measure(kl, &req, &rep, &ceil);
    if (st == KL_OK && !c->quick && !kl_report_failed(&rep)) {
        struct kl_err e;
        if (kl_ceilings_save(&kl->info, kl->ops->name, &ceil, &e) != KL_OK)
            fprintf(stderr, "kladder: warning: ceilings not cached: %s\n", e.msg);
        else if (strcmp(c->format, "table") == 0)
            snprintf(rep.ceiling_note, sizeof rep.ceiling_note, "cached in %.700s", path);
    }
    return finish(c, kl, st, &rep, o);
}

/* The settings of kladder tune from the options. */
static void tune_settings(const struct cli *c, struct kl_cli_tune *t)
{
    memset(t, 0, sizeof *t);
    t->show = c->show, t->clear = c->clear, t->all = c->all;
    t->exhaustive = c->exhaustive;
    /* --exhaustive tries the whole space unless a budget is given too. */
    t->budget_s = c->budget_set ? c->budget : c->exhaustive ? 0 : 60;
    t->budget_set = c->budget_set;
    t->M = c->M, t->N = c->N, t->K = c->K;
    t->type = c->type;
    t->rungs = c->rungs, t->nrungs = c->nrungs;
    t->seed = c->seed;
    t->protocol = c->protocol;
    t->protocol_set = c->timing_set;
    t->quiet = c->quiet;
}

/* kladder tune: the device (not needed to show or clear every device's cache), then the tuner. */
static int run_tune(const struct cli *c)
{
    struct kl_cli_tune t;
    struct kl_context *kl = NULL;
    tune_settings(c, &t);
    kl_watchdog_set(c->kernel_timeout, on_runaway); /* no report: says so, and exits */
    if (!((c->show || c->clear) && c->all)) {
        int rc = open_device(c, &kl);
        if (rc)
            return rc;
    }
    int rc = kl_cli_tune(kl, &t, stdout);
    kl_progress_done();
    if (kl)
        kl_close(kl);
    return rc;
}

static ladder_fn ladder_of(enum command cmd)
{
    switch (cmd) {
    case CMD_COPY: return copy_ladder;
    case CMD_ROWDOT: return rowdot_ladder;
    case CMD_GEMV: return gemv_ladder;
    case CMD_BLUR: return blur_ladder;
    default: return gemm_ladder;
    }
}

/* kladder tune WORKLOAD --kernel FILE: the workload's ladder of the user's kernels, tuned. */
static struct kl_cli_tune_user tune_user;

static enum kl_status tuned_ladder(struct cli *c, struct kl_context *kl, struct outputs *o,
                                   struct kl_report *rep)
{
    enum kl_status st = ladder_of(c->command)(c, kl, o, rep);
    FILE *f = o->main == stdout && strcmp(c->format, "table") == 0 ? stdout : stderr;
    enum kl_status sum = kl_cli_tune_user_summary(&tune_user, f, &kl->err);
    return st != KL_OK ? st : sum;
}

static int run_tune_users(struct cli *c, struct outputs *o)
{
    struct kl_cli_tune t;
    tune_settings(c, &t);
    kl_cli_tune_user_init(&t, &tune_user);
    c->tuner = &tune_user.tl.tuner;
    c->command = c->tuned; /* the workload's request, its defaults */
    for (c->nrungs = 0; c->nrungs < nusers; c->nrungs++)
        c->rungs[c->nrungs] = users[c->nrungs].name;
    if (!c->timing_set) /* the report's: the rows are timed again by it */
        c->protocol = tune_user.tl.req.confirm;
    int rc = run_ladder(c, o, tuned_ladder);
    kl_tune_ladder_free(&tune_user.tl);
    return rc;
}

/*
 * SIGINT and SIGTERM ask the run to stop at its next check (after the launch
 * on the device) and to write the rows so far; a second one ends it at once.
 */
static void on_signal(int sig)
{
    static const char msg[] = "\nkladder: stopping after the current launch (again: at once)\n";
    if (kl_stop_requested()) {
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    kl_stop_request(sig);
    if (write(STDERR_FILENO, msg, sizeof msg - 1) < 0) {
        /* nothing to do: the stop goes on without the message */
    }
}

static void catch_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART; /* a write or wait under way goes on */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

int main(int argc, char **argv)
{
    struct cli c;
    /* report and compare read files, not a device: their own options. */
    if (argc > 1 && strcmp(argv[1], "report") == 0)
        return kl_cli_report(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "compare") == 0)
        return kl_cli_compare(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "template") == 0)
        return kl_cli_template(argc - 1, argv + 1);
    int rc = parse(argc, argv, &c);
    if (rc)
        return rc;
    kl_progress_init(c.quiet);
    if (c.list_rungs) {
        list_rungs(c.command, stdout);
        return 0;
    }
    if (c.command == CMD_DEVICES)
        return kl_cli_devices(stdout, stderr);
    catch_signals();
    if (c.command == CMD_TUNE && !c.nkernels)
        return run_tune(&c);
    struct outputs o;
    if ((rc = load_users(&c)) != 0 || (rc = open_outputs(&c, &o)) != 0)
        return rc;
    if (c.command == CMD_TUNE)
        return run_tune_users(&c, &o);
    if (c.command == CMD_PEAK)
        return run_peak(&c, &o);
    return run_ladder(&c, &o, ladder_of(c.command));
}
