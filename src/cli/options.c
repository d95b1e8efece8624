/*
 * The command line as data: the commands and one table of options (name,
 * value, the commands that take it, where the value goes, its help). The
 * tables drive the parser, `kladder help [COMMAND]` and `kladder COMMAND
 * --help` and the suggestions for a mistyped word (cli/parse.c), the shell
 * completions (`kladder completion bash|zsh`) and the man page (`kladder
 * help --man`, generated at build time; cli/shell_docs.c).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/args.h"
#include "cli/cli.h"
#include "cli/options.h"
#include "cli/report_cmd.h"
#include "workloads/registry.h"

/* ---- the commands ------------------------------------------------------------ */

/* What report and compare do, in their help after the summary. */
static const char report_detail[] =
    "Writes one self-contained HTML page (inline SVG charts and CSS; no script, nothing\n"
    "fetched) with, for every run: a ladder chart (each rung's rate and its % of the\n"
    "measured roof; failed rungs marked, peers apart), a roofline (rungs at their arithmetic\n"
    "intensity under the measured bandwidth slope and compute roof), a sweep's bandwidth\n"
    "curves, a blur's input and output pictures, the rung summaries, the device facts and\n"
    "the provenance. RUN.json files come from --json FILE or --format json. GEMM runs of\n"
    "several shapes (a shape sweep) lead the page with a chart of kladder's fastest rung of\n"
    "each precision against the library of that precision (--compare), shape by shape, and\n"
    "the shapes where it reaches 0.95x the library's rate. Blur runs at several --sigma (one\n"
    "--pixel and size) lead it with their time per picture against the radius: kladder's\n"
    "fastest verified rung, NPP (--compare npp; hollow where it fails verification) and the\n"
    "memory floor (the picture read and written once at the run's copy bandwidth).";
static const char compare_detail[] =
    "Compares two runs of the same ladder rung by rung: the ratio of median times (new/old)\n"
    "and its 95% bootstrap interval from both runs' launch times: same where the interval\n"
    "lies within 1% of 1, else slower or faster where it excludes 1, undecided otherwise;\n"
    "judged in cycles too where both runs give clocks. Runs without launch times (older\n"
    "files): beyond noise where the ranges from fastest to slowest launch do not overlap.\n"
    "With one run a side the interval is of the launches' noise within each run, not the\n"
    "machine's drift from run to run; give a side as a comma-separated list of repeated\n"
    "runs (a.json,b.json,c.json) and their launch times are pooled and the runs resampled\n"
    "too, so the interval holds that drift.";

static const char article_detail[] =
    "With a ladder (gemm, copy, rowdot, gemv, blur, ...) and its options, runs it and writes\n"
    "its article; with RUN.json (from --json FILE, any machine's), writes the article of that\n"
    "run. For each rung in ladder order: the Change paragraph of its kernel file, the diff of\n"
    "its source from the rung below (unified, line numbers, the whole source folded beneath)\n"
    "and of its build options, where each parameter value came from (default, --param,\n"
    "preset, tuning cache), and what it did: time, rate, % of roof, bound, registers,\n"
    "occupancy, the speed-ups, and a sentence whose faster or slower is kladder compare's\n"
    "verdict between the two rungs. The ladder chart and the roofline link each rung to its\n"
    "section. The diffs come from libgit2 (Debian: libgit2-dev), where kladder was built\n"
    "with it. A kernel file changed since the run (its hash differs) is refused unless\n"
    "--force, which marks it; a run older than schema version 3 records no hashes, and the\n"
    "page says its sources are today's.";

const struct command_def kl_cli_commands[] = {
    {"devices", "", CMD_DEVICES, "list every OpenCL platform and device with its facts",
     "kladder devices", .operand = OPD_NONE},
    {"peak", "[OPTIONS]", CMD_PEAK,
     "measure the device's ceilings: bandwidth, FLOP rate, launch latency,\ntransfers (cached; "
     "every other command reports against them)",
     "kladder peak --refresh", .operand = OPD_NONE},
    {"gemm", "[OPTIONS]", CMD_GEMM, "the GEMM ladder, C = A*B (seeds 004 and 002)",
     "kladder gemm --size 1024 --rung 10,14 --compare cublas", .operand = OPD_NONE},
    {"copy", "[OPTIONS]", CMD_COPY, "the copy ladder with instruction-level parallelism (seed 003)",
     "kladder copy --sweep --max-n 16777216", .operand = OPD_NONE},
    {"rowdot", "[OPTIONS]", CMD_ROWDOT, "the weighted row dot product r = f·Σ v·M1·M2 (seed 000)",
     "kladder rowdot --rows 8192 --d 1000", .operand = OPD_NONE},
    {"gemv", "[OPTIONS]", CMD_GEMV, "y = α·A·x + β·y for A row-major and column-major",
     "kladder gemv --size 4096 --compare cublas", .operand = OPD_NONE},
    {"blur", "[OPTIONS]", CMD_BLUR,
     "Gaussian blur of a picture (seed 001), naive to a fused single pass",
     "kladder blur --input photo.png --sigma 3 --output blurred.png", .operand = OPD_NONE},
    {"mgemm", "[OPTIONS]", CMD_MGEMM,
     "the multi-GPU GEMM ladder (CUDA, NCCL): A's rows split, SUMMA, SUMMA\nwith its broadcasts "
     "overlapped; scaling against one GPU",
     "kladder mgemm --device cuda:all --size 16384", .operand = OPD_NONE},
    {"soak", "[OPTIONS]", CMD_SOAK,
     "a device's health over time: a GEMM and a copy in turn, every result\nverified, the "
     "clocks and heat traced; exit 1 on a wrong result, 5 on an event",
     "kladder soak --device all --time 10m --rung 17", .operand = OPD_NONE},
    {"tune", "WORKLOAD [OPTIONS]", CMD_TUNE,
     "search GEMM rung parameters for this device and cache the best; with\n--kernel FILE, a "
     "user's kernel's parameters on any ladder; with --rung R,\none rung of another ladder",
     "kladder tune gemm --size 2048 --budget 60s", .operand = OPD_WORKLOAD},
    {"report", "RUN.json... [OPTIONS]", CMD_REPORT,
     "saved runs (--json) as HTML charts, or one SVG (kladder report --help)",
     "kladder report before.json after.json -o report.html", .detail = report_detail,
     .operand = OPD_FILES, .min_operands = 1, .max_operands = MAX_OPERANDS,
     .operands_wrong = "give at least one run's JSON file (from --json FILE)"},
    {"compare", "OLD.json[,...] NEW.json[,...] [OPTIONS]", CMD_COMPARE,
     "two saved runs rung by rung, for CI too (kladder compare --help)",
     "kladder compare main.json branch.json --fail-on-regression 10", .detail = compare_detail,
     .operand = OPD_FILES, .min_operands = 2, .max_operands = 2,
     .operands_wrong = "give two runs: OLD.json NEW.json"},
    {"article", "RUN.json | WORKLOAD [OPTIONS]", CMD_ARTICLE,
     "the ladder as an article: each rung's change (its Change paragraph,\nthe diff of its source "
     "and options) beside what it did here",
     "kladder article gemm --size 1024 -o gemm.html", .detail = article_detail,
     .operand = OPD_FILES, .min_operands = 0, .max_operands = 1,
     .operands_wrong = "give one run's JSON file (from --json FILE), or a ladder"},
    {"template", "WORKLOAD", CMD_TEMPLATE,
     "print a kernel of the workload's interface to start your own (--kernel)",
     "kladder template gemm > mine.cl", .operand = OPD_WORKLOAD, .min_operands = 1,
     .max_operands = 1, .operands_wrong = "template takes one workload",
     .help = kl_cli_template_usage},
    {"completion", "bash|zsh", CMD_COMPLETION, "print the shell completion script",
     "source <(kladder completion bash)", .operand = OPD_SHELL, .min_operands = 1,
     .max_operands = 1,
     .operands_wrong = "completion takes a shell: kladder completion bash (or zsh)"},
    {"help", "[COMMAND]", -1, "this text, or one command's options and an example",
     "kladder help gemm", .operand = OPD_NONE},
    {"version", "", -1, "the version (also --version, -V)", "kladder --version",
     .operand = OPD_NONE},
};
const int kl_cli_command_count = (int)(sizeof kl_cli_commands / sizeof *kl_cli_commands);

/* ---- commands of workloads registered beyond the table's -------------------- */

/* An added command: its entry, its example's text, its workload. */
struct added_command {
    struct command_def def;
    char example[64];
    const struct kl_workload_def *w;
};
static struct added_command *added;
static int nadded = -1; /* -1: not looked up yet */

/* 1 where w is a ladder that no command of the table names. */
static int needs_command(const struct kl_workload_def *w)
{
    for (int k = 0; k < kl_cli_command_count; k++)
        if (strcmp(kl_cli_commands[k].name, w->name) == 0)
            return 0;
    return w->ladder && w->run;
}

/* The registry's ladders that no command of the table names, as commands (once; none where
   host memory is out). */
static void find_added(void)
{
    int want = 0;
    if (nadded >= 0)
        return;
    nadded = 0;
    for (int i = 0; i < kl_workload_count(); i++)
        want += needs_command(kl_workload_at(i));
    if (want == 0 || !(added = calloc((size_t)want, sizeof *added)))
        return;
    for (int i = 0; i < kl_workload_count(); i++) {
        const struct kl_workload_def *w = kl_workload_at(i);
        struct added_command *a = &added[nadded];
        if (!needs_command(w))
            continue;
        a->w = w;
        snprintf(a->example, sizeof a->example, "kladder %s --list-rungs", w->name);
        a->def = (struct command_def){w->name,
                                      "[OPTIONS]",
                                      CMD_ADDED + nadded,
                                      w->summary ? w->summary : w->heading,
                                      a->example,
                                      .operand = OPD_NONE};
        nadded++;
    }
}

/* Where the added commands go in the list: after the table's last ladder (blur). */
static int added_at(void)
{
    int at = 0;
    for (int k = 0; k < kl_cli_command_count; k++) {
        const struct kl_workload_def *w = kl_workload_find(kl_cli_commands[k].name);
        if (w && w->ladder)
            at = k + 1;
    }
    return at;
}

int kl_cli_command_total(void)
{
    find_added();
    return kl_cli_command_count + nadded;
}

int kl_cli_command_end(void)
{
    find_added();
    return CMD_ADDED + nadded;
}

const struct command_def *kl_cli_command_at(int k)
{
    int at = added_at();
    find_added();
    if (k < 0 || k >= kl_cli_command_total())
        return NULL;
    if (k < at)
        return &kl_cli_commands[k];
    return k < at + nadded ? &added[k - at].def : &kl_cli_commands[k - nadded];
}

const struct kl_workload_def *kl_cli_added_workload(int cmd)
{
    find_added();
    return cmd >= CMD_ADDED && cmd - CMD_ADDED < nadded ? added[cmd - CMD_ADDED].w : NULL;
}

const char *kl_cli_command_name(int cmd)
{
    const struct command_def *d = kl_cli_command(cmd);
    return d ? d->name : "the main job";
}

const struct command_def *kl_cli_command(int cmd)
{
    for (int k = 0; k < kl_cli_command_total(); k++)
        if (kl_cli_command_at(k)->cmd == cmd)
            return kl_cli_command_at(k);
    return NULL;
}

/* ---- the options ------------------------------------------------------------- */

const char *const kl_cli_section_titles[] = {"Device and output (every command)",
                                             "Protocol (every ladder, and peak)",
                                             "gemm",
                                             "copy",
                                             "rowdot",
                                             "gemv",
                                             "blur",
                                             "peak",
                                             "mgemm",
                                             "soak",
                                             "tune",
                                             "report",
                                             "compare",
                                             "article",
                                             "sizes"};

#define F(f) offsetof(struct cli, f)

/* --rung R[,R...] (repeatable): names or prefixes, in place (argv strings are writable). */
static int set_rungs(struct cli *c, const struct cli_option *o, const char *val, char *err,
                     size_t n)
{
    (void)o;
    if (c->nrungs == MAX_ITEMS)
        return snprintf(err, n, "too many --rung names"), 1;
    int k = kl_split_list((char *)val, (char **)c->rungs + c->nrungs, MAX_ITEMS - c->nrungs);
    if (k == 0)
        return snprintf(err, n, "--rung needs a rung name"), 1;
    c->nrungs += k;
    return 0;
}

static int set_kernel(struct cli *c, const struct cli_option *o, const char *val, char *err,
                      size_t n)
{
    (void)o;
    if (c->nkernels == MAX_KERNELS)
        return snprintf(err, n, "at most %d --kernel options", MAX_KERNELS), 1;
    c->kernels[c->nkernels++] = val;
    return 0;
}

/* --param NAME=V, or several as kladder tune prints them: NAME=V,NAME=V,... */
static int set_param(struct cli *c, const struct cli_option *o, const char *val, char *err,
                     size_t n)
{
    (void)o;
    char *items[MAX_ITEMS + 1];
    int k = kl_split_list((char *)val, items, MAX_ITEMS + 1);
    if (k == 0)
        return snprintf(err, n, "--param needs NAME=VALUE"), 1;
    if (c->nparams + k > MAX_ITEMS)
        return snprintf(err, n, "too many --param values (at most %d)", MAX_ITEMS), 1;
    for (int i = 0; i < k; i++) {
        const char *eq = strchr(items[i], '=');
        for (int j = 0; eq && j < c->nparams; j++)
            if (strncmp(c->params[j], items[i], (size_t)(eq - items[i]) + 1) == 0)
                return snprintf(err, n, "--param %.*s is given twice", (int)(eq - items[i]),
                                items[i]),
                       1;
        c->params[c->nparams++] = items[i];
    }
    return 0;
}

static int set_seed(struct cli *c, const struct cli_option *o, const char *val, char *err, size_t n)
{
    long v;
    if (kl_parse_long(o->name, val, 0, 2147483647L, &v, err, n) != 0)
        return 1;
    c->seed = (unsigned long long)v;
    return 0;
}

static int set_repeats(struct cli *c, const struct cli_option *o, const char *val, char *err,
                       size_t n)
{
    long v;
    if (kl_parse_long(o->name, val, 1, 1000000, &v, err, n) != 0)
        return 1;
    c->protocol.min_repeats = (int)v;
    if (c->protocol.max_repeats < v)
        c->protocol.max_repeats = (int)v;
    return 0;
}

/* gemm's and gemv's --size, --m, --n, --k: matrix dimensions. */
static int set_dim(struct cli *c, const struct cli_option *o, const char *val, char *err, size_t n)
{
    long v;
    if (kl_parse_long(o->name, val, 1, MAX_DIM, &v, err, n) != 0)
        return 1;
    if (strcmp(o->name, "--size") == 0) {
        c->M = c->N = c->K = (int)v;
        c->size_set = 1;
    } else {
        *(o->name[2] == 'm' ? &c->M : o->name[2] == 'n' ? &c->N : &c->K) = (int)v;
        c->mnk_set = 1;
    }
    return 0;
}

/* A registered workload's --size S[,S...]: one size per dimension, each 1 to 2^31 - 1. */
static int set_sizes(struct cli *c, const struct cli_option *o, const char *val, char *err,
                     size_t n)
{
    char list[256], *items[4];
    snprintf(list, sizeof list, "%s", val); /* split in place: val stays whole for messages */
    int k = kl_split_list(list, items, 4);
    if (k < 1 || k > 3)
        return snprintf(err, n, "%s takes one to three sizes, S[,S[,S]] (got \"%s\")", o->name,
                        val),
               1;
    for (int i = 0; i < k; i++)
        if (kl_parse_long(o->name, items[i], 1, 2147483647L, &c->sizes[i], err, n) != 0)
            return 1;
    c->nsizes = k;
    return 0;
}

static int set_type(struct cli *c, const struct cli_option *o, const char *val, char *err, size_t n)
{
    enum kl_type t;
    char list[128];
    /* a type that exists: the workload says whether it takes it (gemm takes them all) */
    if (kl_type_parse(val, &t) == KL_OK) {
        c->type = t;
        c->type_set = 1;
        return 0;
    }
    snprintf(list, sizeof list, "%s", o->choices);
    for (char *p = list; (p = strchr(p, ' ')) != NULL;)
        *p = '/';
    return snprintf(err, n, "unknown type \"%s\" (%s takes %s)", val, o->name, list), 1;
}

static int set_compare(struct cli *c, const struct cli_option *o, const char *val, char *err,
                       size_t n)
{
    (void)o;
    int k = kl_split_list((char *)val, (char **)c->peers + c->npeers, MAX_ITEMS - c->npeers);
    if (k == 0)
        return snprintf(
                   err, n,
                   "--compare needs a library name (gemm: cublas, cublas_tf32, cublaslt, "
                   "cublaslt_fast, clblast, openblas; gemv: clblast, cublas; blur: npp; reduce: "
                   "cub, clblast)"),
               1;
    for (int a = c->npeers; a < c->npeers + k; a++)
        for (int b = 0; b < a; b++)
            if (strcmp(c->peers[a], c->peers[b]) == 0)
                return snprintf(err, n, "--compare names %s twice", c->peers[a]), 1;
    c->npeers += k;
    return 0;
}

static int set_sigma(struct cli *c, const struct cli_option *o, const char *val, char *err,
                     size_t n)
{
    char *end;
    (void)o;
    c->sigma = strtod(val, &end);
    if (end == val || *end || !(c->sigma > 0) || c->sigma > 1000)
        return snprintf(err, n, "--sigma: \"%s\" is not a number in (0, 1000]", val), 1;
    return 0;
}

static int set_pixel(struct cli *c, const struct cli_option *o, const char *val, char *err,
                     size_t n)
{
    (void)o;
    if (strcmp(val, "float") && strcmp(val, "uchar4"))
        return snprintf(err, n, "unknown pixel type \"%s\" (float or uchar4)", val), 1;
    c->pixel_uchar4 = strcmp(val, "uchar4") == 0;
    return 0;
}

/* peak --bytes B: 64 KiB to 1 TiB, in bytes or with K, M, G or T. */
static int set_bytes(struct cli *c, const struct cli_option *o, const char *val, char *err,
                     size_t n)
{
    return kl_parse_bytes(o->name, val, 65536, 1L << 40, &c->bytes, err, n) != 0;
}

static int set_vec(struct cli *c, const struct cli_option *o, const char *val, char *err, size_t n)
{
    char *items[8];
    long v;
    (void)o;
    int k = kl_split_list((char *)val, items, 8);
    if (k == 0)
        return snprintf(err, n, "--vec needs a vector width"), 1;
    for (int i = 0; i < k; i++) {
        if (kl_parse_long("--vec", items[i], 1, 16, &v, err, n) != 0 || (v & (v - 1)) != 0)
            return snprintf(err, n, "--vec: unknown vector width \"%s\" (1, 2, 4, 8 or 16)",
                            items[i]),
                   1;
        c->vec_mask |= (unsigned)v;
    }
    return 0;
}

/*
 * --noise PCT and --min-clock PCT: a percentage above 0 and at most 100, "0.5" or "0.5%",
 * kept as a fraction.
 */
static int set_fraction(struct cli *c, const struct cli_option *o, const char *val, char *err,
                        size_t n)
{
    char *end;
    double v = strtod(val, &end);
    int noise = strcmp(o->name, "--noise") == 0;
    if (end != val && *end == '%')
        end++;
    if (end == val || *end || !(v > 0) || v > 100)
        return snprintf(err, n,
                        "%s: \"%.100s\" is not a percentage above 0 and at most 100 (e.g. %s)",
                        o->name, val, noise ? "0.5" : "75"),
               1;
    *(noise ? &c->protocol.noise : &c->protocol.min_clock) = v / 100;
    return 0;
}

/* compare --fail-on-regression PCT: a percentage, "10" or "10%". */
static int set_pct(struct cli *c, const struct cli_option *o, const char *val, char *err, size_t n)
{
    char *end;
    (void)o;
    c->fail_pct = strtod(val, &end);
    if (end != val && *end == '%')
        end++;
    if (end == val || *end || !(c->fail_pct >= 0))
        return snprintf(err, n,
                        "--fail-on-regression: \"%.100s\" is not a percentage (a number >= 0, "
                        "e.g. 10)",
                        val),
               1;
    if (c->fail_pct > 1e6)
        return snprintf(err, n,
                        "--fail-on-regression: %.100s %% is more than a slowdown can be; give at "
                        "most 1000000",
                        val),
               1;
    return 0;
}

#define DIMS (ON(CMD_MAIN) | ON(CMD_GEMM) | ON_TUNE | ON_MGEMM | ON(CMD_SOAK))
const struct cli_option kl_cli_options[] = {
    /* Device and output */
    {"--device", NULL, "SPEC", ON_ALL, S_DEVICE, K_STRING, F(device), 0, 0, NULL, 0, NULL,
     "P:D index pair, gpu, cpu, or part of a device name\n(default: $KLADDER_DEVICE, else the "
     "first GPU, else the first device);\ncuda:N is CUDA device N. Several at once (a fleet: "
     "one JSON,\na summary per rung, stragglers flagged): all, cuda:all, or a\nlist such as "
     "0,2,3 or cuda:0,1"},
    {"--backend", NULL, "B", ON_RUNS | ON_TUNE, S_DEVICE, K_CHOICE, F(backend), 0, 0, "opencl cuda",
     0, NULL,
     "opencl (default) or cuda: the API that runs the kernels; with cuda,\n--device is a CUDA "
     "device index or part of its name"},
    {"--kernel-dir", NULL, "DIR", ON_RUNS | ON_TUNE | ON_MGEMM, S_DEVICE, K_STRING, F(kernel_dir),
     0, 0, NULL, 0, NULL,
     "read kernels from DIR (the source tree's kernels/) instead of the\ncopies built into "
     "kladder"},
    {"--format", NULL, "FMT", ON_RUNS | ON_MGEMM | ON(CMD_DEVICES), S_DEVICE, K_CHOICE, F(format),
     0, 0, "table csv json", 0, NULL, "table (default), csv or json (devices: table or json)"},
    {"--output", "-o", "FILE", (ON_RUNS & ~ON(CMD_BLUR)) | ON_MGEMM, S_DEVICE, K_STRING, F(output),
     0, 0, NULL, 0, NULL, "write the report to FILE instead of standard output"},
    {"--json", NULL, "FILE", ON_RUNS | ON_MGEMM, S_DEVICE, K_STRING, F(json), 0, 0, NULL, 0, NULL,
     "also write the JSON report to FILE (whatever --format is)"},
    {"--article", NULL, "FILE", ON_LADDERS, S_DEVICE, K_STRING, F(article), 0, 0, NULL, 0, NULL,
     "also write the ladder as an article (kladder article --help): the\nHTML page FILE"},
    {"--strict-peers", NULL, NULL, ON_LADDERS | ON_MGEMM, S_DEVICE, K_FLAG, F(strict_peers), 1, 0,
     NULL, 0, NULL,
     "a vendor library's row that fails verification fails the run\n(exit 1); by default its "
     "row and a line say so and the exit\nstatus is the rungs'"},
    {"--report", NULL, "FILE", ON_LADDERS | ON_MGEMM | ON(CMD_SOAK), S_DEVICE, K_STRING, F(report),
     0, 0, NULL, 0, NULL, "also write an HTML report (charts) to FILE"},
    {"--quiet", "-q", NULL, ON_ALL | ON_ARTICLE, S_DEVICE, K_FLAG, F(quiet), 1, 0, NULL, 0, NULL,
     "no progress line on a terminal"},
    /* Protocol */
    {"--seed", NULL, "N", ON_RUNS | ON_TUNE | ON_MGEMM, S_PROTOCOL, K_CUSTOM, 0, 0, 0, NULL,
     M_PROTOCOL, set_seed, "random input seed (default 1)"},
    {"--warmup", NULL, "N", ON_RUNS | ON_TUNE | ON_MGEMM, S_PROTOCOL, K_INT, F(protocol.warmup), 0,
     1000000, NULL, M_PROTOCOL | M_TIMING, NULL, "untimed launches before timing (default 2)"},
    {"--repeats", NULL, "N", ON_RUNS | ON_TUNE | ON_MGEMM, S_PROTOCOL, K_CUSTOM, 0, 0, 0, NULL,
     M_PROTOCOL | M_TIMING, set_repeats, "at least N timed launches (default 5)"},
    {"--min-time", NULL, "T", ON_RUNS | ON_TUNE | ON_MGEMM, S_PROTOCOL, K_SECONDS,
     F(protocol.min_time), 0, 3600, NULL, M_PROTOCOL | M_TIMING, NULL,
     "and at least T seconds of kernel time (default 0.1; 200ms works)"},
    {"--noise", NULL, "PCT", ON_RUNS | ON_TUNE | ON_MGEMM, S_PROTOCOL, K_CUSTOM, 0, 0, 0, NULL,
     M_PROTOCOL | M_TIMING, set_fraction,
     "then on until the median's relative standard error is at most PCT %\n(0.5 suits a GPU), "
     "or --max-time passes; the table says which rows\nstopped short"},
    {"--max-time", NULL, "T", ON_RUNS | ON_TUNE | ON_MGEMM, S_PROTOCOL, K_SECONDS,
     F(protocol.max_time), 0.001, 3600, NULL, M_PROTOCOL | M_TIMING, NULL,
     "with --noise: stop a row after T seconds of kernel time (default 10s)"},
    {"--cold", NULL, NULL, ON_RUNS | ON_TUNE, S_PROTOCOL, K_FLAG, F(protocol.cold), 1, 0, NULL,
     M_PROTOCOL | M_TIMING, NULL,
     "flush the device's last-level cache before every timed launch (a\nwrite of twice its size, "
     "untimed): times from memory, not the cache"},
    {"--warm-cold", NULL, NULL, ON(CMD_COPY) | ON(CMD_ROWDOT) | ON(CMD_GEMV), S_PROTOCOL, K_FLAG,
     F(protocol.cold), KL_COLD_BOTH, 0, NULL, M_PROTOCOL | M_TIMING, NULL,
     "time every row twice, warm and then with --cold: a row each, its\nconfig saying which"},
    {"--min-clock", NULL, "PCT", ON_RUNS | ON_TUNE | ON_MGEMM, S_PROTOCOL, K_CUSTOM, 0, 0, 0, NULL,
     M_PROTOCOL | M_TIMING, set_fraction,
     "take a launch again, after a pause, when the SM clock after it is\nunder PCT % of the "
     "GPU's highest (NVML; e.g. 75); the row says how many"},
    {"--lock-clocks", NULL, "MHZ", ON_RUNS | ON_TUNE | ON_MGEMM, S_PROTOCOL, K_INT, F(lock_mhz), 1,
     100000, NULL, 0, NULL,
     "hold the SM clock at MHZ for the run (NVML; needs root or an\nadministrator's leave, else a "
     "warning); the header says which"},
    {"--cooldown", NULL, "T", ON_RUNS | ON_TUNE, S_PROTOCOL, K_SECONDS, F(protocol.cooldown), 0,
     3600, NULL, M_PROTOCOL, NULL,
     "before each row wait until the GPU is no warmer than when the run\nbegan, or T seconds "
     "(without a temperature: T)"},
    {"--runs", NULL, "N", ON_LADDERS, S_PROTOCOL, K_INT, F(protocol.runs), 1, KL_MAX_RUNS, NULL,
     M_PROTOCOL, NULL,
     "measure each row in N separate runs, interleaved across the rows\n(row 1 run 1, row 2 run 1, "
     "..., row 1 run 2, ...): a drift of the\nmachine falls on every row alike; the row's time is "
     "the median of\nthe runs' medians, and compare resamples the runs (default 1)"},
    {"--shuffle", NULL, NULL, ON_LADDERS, S_PROTOCOL, K_FLAG, F(protocol.shuffle), 1, 0, NULL,
     M_PROTOCOL, NULL,
     "run a ladder's rows in a random order (from --seed); the report\nkeeps "
     "the ladder's"},
    {"--energy", NULL, NULL, ON_RUNS | ON_TUNE, S_PROTOCOL, K_FLAG, F(energy), 1, 0, NULL, 0, NULL,
     "time every row for at least 5 s, so NVML's energy counter gives\njoules per launch and "
     "GFLOP/J (NVIDIA GPUs; clocks and power always)"},
    {"--kernel-timeout", NULL, "T", ON_RUNS | ON_TUNE | ON_MGEMM, S_PROTOCOL, K_SECONDS,
     F(kernel_timeout), 0, 86400, NULL, 0, NULL,
     "stop when one launch runs longer than T (default 600s; 0: never):\nits row says timeout, "
     "the rows before it are written, exit 4"},
    {"--rung", NULL, "R[,R...]", ON_LADDERS | ON_TUNE | ON_MGEMM | ON(CMD_SOAK), S_PROTOCOL,
     K_CUSTOM, 0, 0, 0, NULL, 0, set_rungs,
     "run only these rungs (name or unique prefix, e.g. 10 or 02_row)"},
    {"--param", NULL, "N=V[,...]", ON_LADDERS | ON(CMD_SOAK), S_PROTOCOL, K_CUSTOM, 0, 0, 0, NULL,
     0, set_param, "set rung parameters (repeatable), e.g. --param TS=32 or BM=64,BN=128"},
    {"--list-rungs", NULL, NULL, ON_LADDERS | ON_MGEMM, S_PROTOCOL, K_FLAG, F(list_rungs), 1, 0,
     NULL, 0, NULL, "print the ladder with each rung's summary and parameters"},
    {"--kernel", NULL, "F[:E]", ON_LADDERS | ON(CMD_SOAK), S_PROTOCOL, K_CUSTOM, 0, 0, 0, NULL, 0,
     set_kernel,
     "add your own kernel (entry E in file F) as a rung after the ladder's\n(repeatable, every "
     "ladder); docs/KERNELS.md says how;\nkladder template W prints one to start from"},
    /* gemm (and the main job, and tune gemm) */
    {"--size", NULL, "S", DIMS, S_GEMM, K_CUSTOM, 0, 0, 0, NULL, 0, set_dim,
     "M = N = K = S (1 to 1000000; M·N, M·K and K·N each below 2^31)"},
    {"--m", NULL, "M", DIMS, S_GEMM, K_CUSTOM, 0, 0, 0, NULL, 0, set_dim,
     "rows of A and C (give --m, --n and --k together)"},
    {"--n", NULL, "N", DIMS, S_GEMM, K_CUSTOM, 0, 0, 0, NULL, 0, set_dim, "columns of B and C"},
    {"--k", NULL, "K", DIMS, S_GEMM, K_CUSTOM, 0, 0, 0, NULL, 0, set_dim,
     "columns of A, rows of B"},
    {"--type", NULL, "T", DIMS & ~ON_MGEMM, S_GEMM, K_CUSTOM, 0, 0, 0,
     "float double int half bf16 fp8 fp8e5m2 int8", 0, set_type,
     "float (default), double (needs fp64) or int; or narrow inputs\n"
     "summed in float: half, bf16, fp8 (e4m3), fp8e5m2; int8, summed in int"},
    {"--host-rungs", NULL, NULL, ON(CMD_MAIN) | ON(CMD_GEMM), S_GEMM, K_FLAG, F(host_rungs), 1, 0,
     NULL, 0, NULL,
     "run the CPU loop-order rungs at any size (they are skipped when\nthey would take seconds)"},
    {"--no-host-rungs", NULL, NULL, ON(CMD_MAIN) | ON(CMD_GEMM), S_GEMM, K_FLAG, F(host_rungs), -1,
     0, NULL, 0, NULL, "never run the CPU loop-order rungs"},
    {"--compare", NULL, "L[,L]", ON(CMD_GEMM), S_GEMM, K_CUSTOM, 0, 0, 0,
     "cublas cublas_tf32 cublaslt cublaslt_fast clblast openblas", 0, set_compare,
     "add vendor GEMMs as peers: cublas, clblast, openblas (host);\n"
     "cublaslt for the narrow types (cublasLtMatmul; for FP8 also\n"
     "cublaslt_fast, its fast accumulation)"},
    {"--no-tuned", NULL, NULL, ON(CMD_MAIN) | ON(CMD_GEMM), S_GEMM, K_FLAG, F(no_tuned), 1, 0, NULL,
     0, NULL,
     "the rungs' defaults, not parameters cached by kladder tune\nnor the presets shipped for "
     "this GPU and size"},
    /* copy */
    {"--n", NULL, "N", ON(CMD_COPY), S_COPY, K_LONG, F(n), 1, 2147483583L, NULL, 0, NULL,
     "elements of 4 bytes (default 2^24 on a GPU, 2^22 on a CPU)"},
    {"--size", NULL, "N", ON(CMD_COPY), S_COPY, K_LONG, F(n), 1, 2147483583L, NULL, 0, NULL,
     "the same as --n"},
    {"--sweep", NULL, NULL, ON(CMD_COPY), S_COPY, K_FLAG, F(sweep), 1, 0, NULL, 0, NULL,
     "N = 512, 1024, ... up to --max-n for every ILP rung"},
    {"--max-n", NULL, "N", ON(CMD_COPY), S_COPY, K_LONG, F(max_n), 1, 2147483583L, NULL, M_MAX_N,
     NULL, "the end of --sweep (default 2^26)"},
    /* rowdot */
    {"--rows", NULL, "Y", ON(CMD_ROWDOT), S_ROWDOT, K_INT, F(rows), 1, 2147483647L, NULL, 0, NULL,
     "Y rows (default 16384 on a GPU, 4096 on a CPU)"},
    {"--d", NULL, "D", ON(CMD_ROWDOT), S_ROWDOT, K_INT, F(d), 1, 2147483647L, NULL, 0, NULL,
     "of length D (default 16384 on a GPU, 1000 on a CPU; the seed's D is 1000)"},
    {"--type", NULL, "T", ON(CMD_ROWDOT), S_ROWDOT, K_CUSTOM, 0, 0, 0, "float double", 0, set_type,
     "float (default) or double"},
    /* gemv */
    {"--m", NULL, "M", ON(CMD_GEMV), S_GEMV, K_CUSTOM, 0, 0, 0, NULL, 0, set_dim,
     "A is M×N (default 4096 × 4096 on a GPU, 2048 × 2048 on a CPU)"},
    {"--n", NULL, "N", ON(CMD_GEMV), S_GEMV, K_CUSTOM, 0, 0, 0, NULL, 0, set_dim,
     "columns of A (give --m and --n together)"},
    {"--size", NULL, "S", ON(CMD_GEMV), S_GEMV, K_CUSTOM, 0, 0, 0, NULL, 0, set_dim, "M = N = S"},
    {"--type", NULL, "T", ON(CMD_GEMV), S_GEMV, K_CUSTOM, 0, 0, 0, "float double", 0, set_type,
     "float (default) or double"},
    {"--compare", NULL, "L[,L]", ON(CMD_GEMV), S_GEMV, K_CUSTOM, 0, 0, 0, "clblast cublas", 0,
     set_compare, "add vendor libraries as peers in the same run: clblast, cublas"},
    /* blur */
    {"--input", NULL, "FILE", ON(CMD_BLUR), S_BLUR, K_STRING, F(input), 0, 0, NULL, 0, NULL,
     "PNG (grey, RGB, RGBA; 16-bit and palette converted) or binary PGM/PPM;\ndefault: a "
     "generated 4096 × 4096 test image (--width, --height)"},
    {"--width", NULL, "W", ON(CMD_BLUR), S_BLUR, K_INT, F(width), 1, 65536, NULL, 0, NULL,
     "the generated image's width"},
    {"--height", NULL, "H", ON(CMD_BLUR), S_BLUR, K_INT, F(height), 1, 65536, NULL, 0, NULL,
     "the generated image's height"},
    {"--sigma", NULL, "S", ON(CMD_BLUR), S_BLUR, K_CUSTOM, 0, 0, 0, NULL, 0, set_sigma,
     "Gaussian σ (default 2)"},
    {"--radius", NULL, "R", ON(CMD_BLUR), S_BLUR, K_INT, F(radius), 0, 512, NULL, 0, NULL,
     "taps each side (default ⌈3σ⌉)"},
    {"--pixel", NULL, "P", ON(CMD_BLUR), S_BLUR, K_CUSTOM, 0, 0, 0, "float uchar4", 0, set_pixel,
     "float (one channel, default) or uchar4 (RGBA, 8 bits per channel)"},
    {"--output", "-o", "FILE", ON(CMD_BLUR), S_BLUR, K_STRING, F(image_out), 0, 0, NULL, 0, NULL,
     "write the blurred image as PNG (for blur, --output is the image;\n--json FILE saves the "
     "report)"},
    {"--output-rung", NULL, "R", ON(CMD_BLUR), S_BLUR, K_STRING, F(output_rung), 0, 0, NULL, 0,
     NULL, "the rung whose picture --output writes (default: the fastest)"},
    {"--compare", NULL, "npp", ON(CMD_BLUR), S_BLUR, K_CUSTOM, 0, 0, 0, "npp", 0, set_compare,
     "add NVIDIA NPP's Gaussian filter with the same weights as a peer"},
    /* mgemm */
    {"--time", NULL, "T", ON(CMD_SOAK), S_SOAK, K_SECONDS, F(soak_time), 0.001, 7 * 86400.0, NULL,
     0, NULL,
     "iterations start until T has passed (default 60s; 10m, 2h work); each\nruns the GEMM "
     "rung (--rung R, --size S; default 10_tiled) and\nthe copy, verified"},
    {"--copy-n", NULL, "N", ON(CMD_SOAK), S_SOAK, K_LONG, F(copy_n), 1, 2147483583L, NULL, 0, NULL,
     "the copy's elements (default 2^26 on a GPU, 2^20 elsewhere)"},
    {"--local", NULL, "R", ON_MGEMM, S_MGEMM, K_STRING, F(local), 0, 0, NULL, 0, NULL,
     "the GEMM rung each device multiplies with (name or prefix, as gemm\n--rung takes it; "
     "default: the fastest verified of 18, 16 and 14 where\nthey run, else of the FMA rungs, "
     "tried on device 0)"},
    {"--panel", NULL, "KB", ON_MGEMM, S_MGEMM, K_INT, F(panel), 4, 1 << 20, NULL, 0, NULL,
     "SUMMA's panel width, a multiple of 4 (default 2048)"},
    {"--compare", NULL, "cublas", ON_MGEMM, S_MGEMM, K_CUSTOM, 0, 0, 0, "cublas", 0, set_compare,
     "add rung 3's schedule with cuBLAS SGEMM as the local multiply"},
    /* peak */
    {"--p2p", NULL, NULL, ON(CMD_PEAK), S_PEAK, K_FLAG, F(p2p), 1, 0, NULL, 0, NULL,
     "the links between the devices of --device (default cuda:all): peer\ncopies' bandwidth "
     "and latency, NCCL send/recv, all-reduce bus\nbandwidth (CUDA, NCCL)"},
    {"--transfers", NULL, NULL, ON(CMD_PEAK), S_PEAK, K_FLAG, F(transfers), 1, 0, NULL, 0, NULL,
     "host <-> device copies only, both ways, from pageable and pinned\nmemory, at sizes from "
     "4 KiB by fours up to --bytes (default 1 GiB\non a GPU): a curve each, nothing cached"},
    {"--collectives", NULL, NULL, ON(CMD_PEAK), S_PEAK, K_FLAG, F(collectives), 1, 0, NULL, 0, NULL,
     "under kladder-mpi, collectives between the ranks (NCCL between their\nCUDA devices, else "
     "MPI on host memory): all-reduce, all-gather,\nreduce-scatter, broadcast, reduce, "
     "all-to-all and send/recv from 8 B\nby twos up to --bytes (default 1 GiB; 64 MiB by MPI), "
     "each checked;\nalgbw and busbw as nccl-tests"},
    {"--refresh", NULL, NULL, ON(CMD_PEAK), S_PEAK, K_FLAG, F(refresh), 1, 0, NULL, 0, NULL,
     "measure again even when ceilings are cached for this device"},
    {"--bytes", NULL, "B", ON(CMD_PEAK), S_PEAK, K_CUSTOM, 0, 0, 0, NULL, M_MEASURE, set_bytes,
     "buffer size for bandwidth and transfers, and the largest working set\nof the cache and "
     "latency sweeps (default: by device)"},
    {"--vec", NULL, "W[,W...]", ON(CMD_PEAK), S_PEAK, K_CUSTOM, 0, 0, 0, "1 2 4 8 16", M_MEASURE,
     set_vec, "vector widths to try for bandwidth (1, 2, 4, 8, 16; default all)"},
    {"--quick", NULL, NULL, ON(CMD_PEAK), S_PEAK, K_FLAG, F(quick), 1, 0, NULL, M_MEASURE, NULL,
     "a small search space (for tests; ceilings are then not cached)"},
    {"--brief", NULL, NULL, ON(CMD_PEAK), S_PEAK, K_FLAG, F(brief), 1, 0, NULL, M_MEASURE, NULL,
     "the first run's search (seconds): the copy, FP32 and TF32, the roofs\nthe main job's "
     "rows are judged by, from the configurations the\nfull search usually picks; cached"},
    {"--wide", NULL, NULL, ON(CMD_PEAK), S_PEAK, K_FLAG, F(wide), 1, 0, NULL, M_MEASURE, NULL,
     "a wider search (more elements per work-item, chains and work-group\nsizes; several times "
     "longer), to check that the default finds the maxima"},
    /* tune */
    {"--budget", NULL, "T", ON_TUNE, S_TUNE, K_SECONDS, F(budget), 0.001, 86400, NULL, M_BUDGET,
     NULL,
     "wall time for the search (default 60s), shared by the rungs tuned\n(default: every device "
     "rung with parameters)"},
    {"--exhaustive", NULL, NULL, ON_TUNE, S_TUNE, K_FLAG, F(exhaustive), 1, 0, NULL, 0, NULL,
     "try every candidate of the space (no budget unless --budget)"},
    {"--show", NULL, NULL, ON_TUNE, S_TUNE, K_FLAG, F(show), 1, 0, NULL, 0, NULL,
     "list this device's tuned parameters"},
    {"--clear", NULL, NULL, ON_TUNE, S_TUNE, K_FLAG, F(clear), 1, 0, NULL, 0, NULL,
     "remove this device's tuned parameters"},
    {"--all", NULL, NULL, ON_TUNE, S_TUNE, K_FLAG, F(all), 1, 0, NULL, 0, NULL,
     "with --show or --clear: every device's"},
    /* report */
    {"--output", "-o", "FILE", ON_REPORT, S_REPORT, K_STRING, F(output), 0, 0, NULL, 0, NULL,
     "write to FILE (default: standard output)"},
    {"--format", NULL, "FMT", ON_REPORT, S_REPORT, K_CHOICE, F(page_format), 0, 0, "html svg", 0,
     NULL, "html (default), or svg: one chart of one run as an SVG file"},
    {"--chart", NULL, "NAME", ON_REPORT, S_REPORT, K_CHOICE, F(chart), 0, 0,
     "ladder roofline sweep shapes radii", 0, NULL,
     "the chart --format svg writes: ladder (default), roofline, or sweep\n(the default for a "
     "copy --sweep run); shapes: the shape sweep's\nchart, of all the files given; radii: the "
     "blur runs' time\nagainst the radius, of all the files given"},
    /* compare */
    {"--fail-on-regression", NULL, "PCT", ON_COMPARE, S_COMPARE, K_CUSTOM, 0, 0, 0, NULL, 0,
     set_pct,
     "exit 1 when a rung slowed by more than PCT % beyond noise (its\nwhole interval above "
     "1 + PCT %; without launch times, its fastest\nnew launch more than PCT % slower than the "
     "slowest old one), or\nverified before and fails now"},
    {"--force", NULL, NULL, ON_COMPARE, S_COMPARE, K_FLAG, F(force), 1, 0, NULL, 0, NULL,
     "compare runs of different workloads, parameters or devices, saying\nwhat differs (they are "
     "refused otherwise)"},
    /* article */
    {"--output", "-o", "PATH", ON_ARTICLE, S_ARTICLE, K_STRING, F(article), 0, 0, NULL, 0, NULL,
     "the page (default kladder-article.html), or with --format md the\nfolder of article.md and "
     "its charts (default kladder-article)"},
    {"--format", NULL, "FMT", ON_ARTICLE, S_ARTICLE, K_CHOICE, F(article_format), 0, 0, "html md",
     0, NULL, "html (default): one self-contained page; md: Markdown and its charts\nas SVG files"},
    {"--force", NULL, NULL, ON_ARTICLE, S_ARTICLE, K_FLAG, F(force), 1, 0, NULL, 0, NULL,
     "write it though a kernel file changed since the run (its hash\ndiffers), each such source "
     "marked"},
    {"--kernel-dir", NULL, "DIR", ON_ARTICLE, S_ARTICLE, K_STRING, F(kernel_dir), 0, 0, NULL, 0,
     NULL,
     "read the kernels' text from DIR (kernels/ of a source tree), not the\ncopies built "
     "into kladder"},
    {"--size", NULL, "S[,S]", ON_ADDED, S_ADDED, K_CUSTOM, 0, 0, 0, NULL, 0, set_sizes,
     "its sizes, one per dimension as its report names them (default:\nthe workload's own)"},
    {"--type", NULL, "T", ON_ADDED, S_ADDED, K_CUSTOM, 0, 0, 0, "float double int", 0, set_type,
     "element type, of those the workload takes (default: the first; kladder\nWORKLOAD --help)"},
    {"--compare", NULL, "L[,L]", ON_ADDED, S_ADDED, K_CUSTOM, 0, 0, 0, "cub clblast", 0,
     set_compare,
     "vendor libraries run beside the ladder, of the workload's (reduce:\ncub, clblast)"},
};
const int kl_cli_option_count = (int)(sizeof kl_cli_options / sizeof *kl_cli_options);

const struct cli_option *kl_cli_find(const char *name, int cmd)
{
    for (int k = 0; k < kl_cli_option_count; k++) {
        const struct cli_option *o = &kl_cli_options[k];
        if ((strcmp(o->name, name) == 0 || (o->alias && strcmp(o->alias, name) == 0)) &&
            (o->on & ON(cmd)))
            return o;
    }
    return NULL;
}

int kl_cli_known(const char *name)
{
    for (int k = 0; k < kl_cli_option_count; k++)
        if (strcmp(kl_cli_options[k].name, name) == 0 ||
            (kl_cli_options[k].alias && strcmp(kl_cli_options[k].alias, name) == 0))
            return 1;
    return 0;
}
