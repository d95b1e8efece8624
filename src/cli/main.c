/*
 * kladder command line: a thin layer over the library. It parses options,
 * opens the device, asks a workload to run its ladder and prints the report.
 *
 * Exit codes: 0 all verified; 1 a rung failed verification; 2 bad usage or
 * input; 3 a device, build or runtime error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "cli/devices.h"
#include "core/context.h"
#include "core/measure.h"
#include "core/report.h"
#include "kladder.h"
#include "workloads/gemm.h"

enum { EXIT_VERIFY = 1, EXIT_USAGE = 2, EXIT_RUNTIME = 3 };
#define MAX_ITEMS 64
#define MAX_DIM 1000000L

static const char usage[] =
    "usage: kladder [COMMAND] [OPTIONS]\n"
    "\n"
    "Commands:\n"
    "  (none)      show the chosen device and run the GEMM ladder at a quick size\n"
    "  devices     list every OpenCL platform and device with its facts\n"
    "  gemm        run the GEMM ladder, C = A*B, every rung verified\n"
    "  help        this text;  version: the version\n"
    "\n"
    "Device and output (every command):\n"
    "  --device SPEC      P:D index pair, gpu, cpu, or part of a device name\n"
    "                     (default: $KLADDER_DEVICE, else the first GPU, else the first device)\n"
    "  --kernel-dir DIR   read kernels from DIR (the source tree's kernels/) instead of the\n"
    "                     copies built into kladder\n"
    "  --format FMT       table (default), csv or json\n"
    "  --output FILE      write the report to FILE instead of standard output\n"
    "  --json FILE        also write the JSON report to FILE (whatever --format is)\n"
    "\n"
    "Protocol:\n"
    "  --seed N           random input seed (default 1)\n"
    "  --warmup N         untimed launches before timing (default 2)\n"
    "  --repeats N        at least N timed launches (default 5)\n"
    "  --min-time T       and at least T seconds of kernel time (default 0.1; 200ms works)\n"
    "\n"
    "gemm:\n"
    "  --m M --n N --k K  sizes (any value >= 1); --size S sets all three\n"
    "  --type T           float (default), double (needs fp64) or int\n"
    "  --rung R[,R...]    run only these rungs (name or unique prefix, e.g. 10 or host_ikj)\n"
    "  --param NAME=V     set a rung parameter (repeatable), e.g. --param TS=32\n"
    "  --host-rungs       run the CPU loop-order rungs at any size (they are skipped when\n"
    "                     they would take seconds); --no-host-rungs never runs them\n"
    "  --list-rungs       print the ladder with each rung's summary and parameters\n";

struct cli {
    const char *command;
    const char *device, *kernel_dir, *format, *output, *json;
    struct kl_gemm_request gemm;
    const char *rungs[MAX_ITEMS], *params[MAX_ITEMS];
    int list_rungs;
    int sizes_given;
};

static int fail_usage(const char *msg)
{
    fprintf(stderr, "kladder: %s\n(kladder help lists the options)\n", msg);
    return EXIT_USAGE;
}

/* Parses argv into c; returns 0 or an exit code. */
static int parse(int argc, char **argv, struct cli *c)
{
    char err[512];
    long v;
    int size_set = 0, mnk_set = 0;

    memset(c, 0, sizeof *c);
    c->format = "table";
    c->gemm.M = c->gemm.N = c->gemm.K = 0;
    c->gemm.type = KL_FLOAT;
    c->gemm.seed = 1;
    kl_protocol_default(&c->gemm.protocol);
    c->gemm.rungs = c->rungs;
    c->gemm.params = c->params;

    int i = 1;
    if (argc > 1 && argv[1][0] != '-')
        c->command = argv[i++];
    for (; i < argc; i++) {
        const char *opt = argv[i];
        const char *val = NULL;
        char name[64];
        const char *eq = strchr(opt, '=');
        /* --opt=value and --opt value both work. */
        if (strncmp(opt, "--", 2) == 0 && eq && (size_t)(eq - opt) < sizeof name) {
            memcpy(name, opt, (size_t)(eq - opt));
            name[eq - opt] = '\0';
            opt = name;
            val = eq + 1;
        }
#define FLAG(s) (strcmp(opt, s) == 0)
#define VALUE()                                                                                    \
    do {                                                                                           \
        if (!val) {                                                                                \
            if (i + 1 >= argc) {                                                                   \
                snprintf(err, sizeof err, "%s needs a value", opt);                                \
                return fail_usage(err);                                                            \
            }                                                                                      \
            val = argv[++i];                                                                       \
        }                                                                                          \
    } while (0)
#define NUMBER(what, lo, hi)                                                                       \
    do {                                                                                           \
        VALUE();                                                                                   \
        if (kl_parse_long(what, val, lo, hi, &v, err, sizeof err) != 0)                            \
            return fail_usage(err);                                                                \
    } while (0)

        if (FLAG("--help") || FLAG("-h")) {
            fputs(usage, stdout);
            exit(0);
        } else if (FLAG("--device")) {
            VALUE();
            c->device = val;
        } else if (FLAG("--kernel-dir")) {
            VALUE();
            c->kernel_dir = val;
        } else if (FLAG("--format")) {
            VALUE();
            if (strcmp(val, "table") && strcmp(val, "csv") && strcmp(val, "json")) {
                snprintf(err, sizeof err, "unknown format \"%s\" (table, csv or json)", val);
                return fail_usage(err);
            }
            c->format = val;
        } else if (FLAG("--output") || FLAG("-o")) {
            VALUE();
            c->output = val;
        } else if (FLAG("--json")) {
            VALUE();
            c->json = val;
        } else if (FLAG("--seed")) {
            NUMBER("--seed", 0, 2147483647L);
            c->gemm.seed = (unsigned long long)v;
        } else if (FLAG("--warmup")) {
            NUMBER("--warmup", 0, 1000000);
            c->gemm.protocol.warmup = (int)v;
        } else if (FLAG("--repeats")) {
            NUMBER("--repeats", 1, 1000000);
            c->gemm.protocol.min_repeats = (int)v;
            if (c->gemm.protocol.max_repeats < v)
                c->gemm.protocol.max_repeats = (int)v;
        } else if (FLAG("--min-time")) {
            VALUE();
            if (kl_parse_seconds("--min-time", val, 0, 3600, &c->gemm.protocol.min_time, err,
                                 sizeof err) != 0)
                return fail_usage(err);
        } else if (FLAG("--m") || FLAG("--n") || FLAG("--k") || FLAG("--size")) {
            NUMBER(opt, 1, MAX_DIM);
            if (FLAG("--size")) {
                c->gemm.M = c->gemm.N = c->gemm.K = (int)v;
                size_set = 1;
            } else {
                *(FLAG("--m") ? &c->gemm.M : FLAG("--n") ? &c->gemm.N : &c->gemm.K) = (int)v;
                mnk_set = 1;
            }
        } else if (FLAG("--type")) {
            VALUE();
            if (kl_type_parse(val, &c->gemm.type) != KL_OK) {
                snprintf(err, sizeof err, "unknown type \"%s\" (float, double or int)", val);
                return fail_usage(err);
            }
        } else if (FLAG("--rung")) {
            VALUE();
            /* argv strings are writable; split lists in place. */
            int n = kl_split_list((char *)val, (char **)c->rungs + c->gemm.nrungs,
                                  MAX_ITEMS - c->gemm.nrungs);
            if (n == 0)
                return fail_usage("--rung needs a rung name");
            c->gemm.nrungs += n;
        } else if (FLAG("--param")) {
            VALUE();
            if (c->gemm.nparams == MAX_ITEMS)
                return fail_usage("too many --param options");
            c->params[c->gemm.nparams++] = val;
        } else if (FLAG("--host-rungs")) {
            c->gemm.host_rungs = 1;
        } else if (FLAG("--no-host-rungs")) {
            c->gemm.host_rungs = -1;
        } else if (FLAG("--list-rungs")) {
            c->list_rungs = 1;
        } else {
            snprintf(err, sizeof err, "unknown option \"%s\"", argv[i]);
            return fail_usage(err);
        }
#undef FLAG
#undef VALUE
#undef NUMBER
    }
    c->sizes_given = size_set || mnk_set;
    if (c->sizes_given && (!c->gemm.M || !c->gemm.N || !c->gemm.K))
        return fail_usage("give all of --m, --n and --k, or --size");
    return 0;
}

static void list_rungs(FILE *out)
{
    fprintf(out, "GEMM ladder (C = A*B), in order:\n");
    for (int i = 0; i < kl_gemm_rung_count(); i++) {
        const struct kl_gemm_rung *r = kl_gemm_rung_at(i);
        fprintf(out, "  %-16s %s\n", r->name, r->summary);
        for (int p = 0; p < KL_MAX_PARAMS && r->params[p].name; p++) {
            const struct kl_param_def *d = &r->params[p];
            fprintf(out, "  %-16s   --param %s=%d  (%d..%d", "", d->name, d->def, d->min, d->max);
            if (d->multiple > 1)
                fprintf(out, ", multiple of %d", d->multiple);
            fprintf(out, "): %s\n", d->help);
        }
    }
}

static int open_device(const struct cli *c, struct kl_context **kl)
{
    char err[KL_ERR_MAX];
    enum kl_status st = kl_open(c->device, kl, err, sizeof err);
    if (st != KL_OK) {
        fprintf(stderr, "kladder: %s\n", err);
        return st == KL_ERR_NO_DEVICE ? EXIT_USAGE : EXIT_RUNTIME;
    }
    if (c->kernel_dir)
        kl_set_kernel_dir(*kl, c->kernel_dir);
    return 0;
}

/* Writes one rendering of the report to path (NULL: standard output). */
static int write_report(const char *path, const char *format, const struct kl_report *rep)
{
    FILE *out = stdout;
    if (path && !(out = fopen(path, "w"))) {
        perror(path);
        return EXIT_USAGE;
    }
    if (strcmp(format, "json") == 0)
        kl_report_json(rep, out);
    else if (strcmp(format, "csv") == 0)
        kl_report_csv(rep, out);
    else
        kl_report_table(rep, out);
    if (out != stdout && fclose(out) != 0) {
        perror(path);
        return EXIT_USAGE;
    }
    return 0;
}

static int emit(const struct cli *c, const struct kl_report *rep)
{
    int rc = write_report(c->output, c->format, rep);
    if (!rc && c->json)
        rc = write_report(c->json, "json", rep);
    return rc;
}

/* A request error is the user's (exit 2); a device or build error exit 3. */
static int status_exit(enum kl_status st)
{
    return st == KL_ERR_ARG || st == KL_ERR_UNSUPPORTED || st == KL_ERR_NO_MEMORY || st == KL_ERR_IO
               ? EXIT_USAGE
               : EXIT_RUNTIME;
}

static int run_gemm(struct cli *c, int main_job)
{
    struct kl_context *kl = NULL;
    struct kl_report rep;
    int rc = open_device(c, &kl);
    if (rc)
        return rc;
    if (!c->sizes_given) {
        /* A size that finishes in well under a minute: large on a GPU, small on a CPU. */
        int s = kl->info.is_gpu ? 2048 : 512;
        c->gemm.M = c->gemm.N = c->gemm.K = s;
    }
    if (main_job)
        fprintf(stdout, "kladder: device %d:%d %s (%s); GEMM ladder at %d×%d×%d\n\n", kl->platform,
                kl->device, kl->info.name, kl->info.platform, c->gemm.M, c->gemm.N, c->gemm.K);
    memset(&rep, 0, sizeof rep);
    enum kl_status st = kl_gemm_ladder(kl, &c->gemm, &rep);
    if (st != KL_OK) {
        fprintf(stderr, "kladder: %s\n", kl_last_error(kl));
        rc = status_exit(st);
    } else {
        rc = emit(c, &rep);
        if (!rc && kl_report_failed(&rep)) {
            fprintf(stderr, "kladder: at least one rung FAILED verification\n");
            rc = EXIT_VERIFY;
        }
    }
    kl_report_free(&rep);
    kl_close(kl);
    return rc;
}

int main(int argc, char **argv)
{
    struct cli c;
    int rc = parse(argc, argv, &c);
    if (rc)
        return rc;
    if (!c.command)
        return c.list_rungs ? (list_rungs(stdout), 0) : run_gemm(&c, 1);
    if (strcmp(c.command, "help") == 0) {
        fputs(usage, stdout);
        return 0;
    }
    if (strcmp(c.command, "version") == 0) {
        printf("kladder %s\n", KLADDER_VERSION);
        return 0;
    }
    if (strcmp(c.command, "devices") == 0)
        return kl_cli_devices(stdout, stderr);
    if (strcmp(c.command, "gemm") == 0) {
        if (c.list_rungs) {
            list_rungs(stdout);
            return 0;
        }
        return run_gemm(&c, 0);
    }
    char msg[256];
    snprintf(msg, sizeof msg, "unknown command \"%s\" (devices, gemm, help, version)", c.command);
    return fail_usage(msg);
}
