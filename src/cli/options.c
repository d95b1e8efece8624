/*
 * The command line as data: the commands and one table of options (name,
 * value, the commands that take it, where the value goes, its help). The
 * table drives the parser, `kladder help [COMMAND]` and `kladder COMMAND
 * --help`, the suggestions for a mistyped word, the shell completions
 * (`kladder completion bash|zsh`) and the man page (`kladder help --man`,
 * generated at build time).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/args.h"
#include "cli/cli.h"
#include "cli/options.h"
#include "cli/exit.h"
#include "core/machine.h"

/* ---- the commands ------------------------------------------------------------ */

const struct command_def kl_cli_commands[] = {
    {"devices", "", CMD_DEVICES, "list every OpenCL platform and device with its facts",
     "kladder devices"},
    {"peak", "[OPTIONS]", CMD_PEAK,
     "measure the device's ceilings: bandwidth, FLOP rate, launch latency,\ntransfers (cached; "
     "every other command reports against them)",
     "kladder peak --refresh"},
    {"gemm", "[OPTIONS]", CMD_GEMM, "the GEMM ladder, C = A*B (seeds 004 and 002)",
     "kladder gemm --size 1024 --rung 10,14 --compare cublas"},
    {"copy", "[OPTIONS]", CMD_COPY, "the copy ladder with instruction-level parallelism (seed 003)",
     "kladder copy --sweep --max-n 16777216"},
    {"rowdot", "[OPTIONS]", CMD_ROWDOT, "the weighted row dot product r = f·Σ v·M1·M2 (seed 000)",
     "kladder rowdot --rows 8192 --d 1000"},
    {"gemv", "[OPTIONS]", CMD_GEMV, "y = α·A·x + β·y for A row-major and column-major",
     "kladder gemv --size 4096 --compare cublas"},
    {"blur", "[OPTIONS]", CMD_BLUR,
     "Gaussian blur of a picture (seed 001), naive to a fused single pass",
     "kladder blur --input photo.png --sigma 3 --output blurred.png"},
    {"mgemm", "[OPTIONS]", CMD_MGEMM,
     "the multi-GPU GEMM ladder (CUDA, NCCL): A's rows split, SUMMA, SUMMA\nwith its broadcasts "
     "overlapped; scaling against one GPU",
     "kladder mgemm --device cuda:all --size 16384"},
    {"tune", "WORKLOAD [OPTIONS]", CMD_TUNE,
     "search GEMM rung parameters for this device and cache the best; with\n--kernel FILE, a "
     "user's kernel's parameters on any ladder",
     "kladder tune gemm --size 2048 --budget 60s"},
    {"report", "RUN.json... [OPTIONS]", -1,
     "saved runs (--json) as HTML charts, or one SVG (kladder report --help)",
     "kladder report before.json after.json -o report.html"},
    {"compare", "OLD.json NEW.json [OPTIONS]", -1,
     "two saved runs rung by rung, for CI too (kladder compare --help)",
     "kladder compare main.json branch.json --fail-on-regression"},
    {"template", "WORKLOAD", -1,
     "print a kernel of the workload's interface to start your own (--kernel)",
     "kladder template gemm > mine.cl"},
    {"completion", "bash|zsh", -1, "print the shell completion script",
     "source <(kladder completion bash)"},
    {"help", "[COMMAND]", -1, "this text, or one command's options and an example",
     "kladder help gemm"},
    {"version", "", -1, "the version (also --version, -V)", "kladder --version"},
};
const int kl_cli_command_count = (int)(sizeof kl_cli_commands / sizeof *kl_cli_commands);

const char *kl_cli_command_name(int cmd)
{
    for (int k = 0; k < kl_cli_command_count; k++)
        if (kl_cli_commands[k].cmd == cmd)
            return kl_cli_commands[k].name;
    return "the main job";
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
                                             "tune"};

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

static int set_param(struct cli *c, const struct cli_option *o, const char *val, char *err,
                     size_t n)
{
    (void)o;
    if (c->nparams == MAX_ITEMS)
        return snprintf(err, n, "too many --param options"), 1;
    const char *eq = strchr(val, '=');
    for (int k = 0; eq && k < c->nparams; k++)
        if (strncmp(c->params[k], val, (size_t)(eq - val) + 1) == 0)
            return snprintf(err, n, "--param %.*s is given twice", (int)(eq - val), val), 1;
    c->params[c->nparams++] = val;
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

static int set_type(struct cli *c, const struct cli_option *o, const char *val, char *err, size_t n)
{
    (void)o;
    if (kl_type_parse(val, &c->type) != KL_OK)
        return snprintf(err, n, "unknown type \"%s\" (float, double or int)", val), 1;
    return 0;
}

static int set_compare(struct cli *c, const struct cli_option *o, const char *val, char *err,
                       size_t n)
{
    (void)o;
    int k = kl_split_list((char *)val, (char **)c->peers + c->npeers, MAX_ITEMS - c->npeers);
    if (k == 0)
        return snprintf(err, n,
                        "--compare needs a library name (gemm: cublas, cublas_tf32, clblast, "
                        "openblas; gemv: clblast, cublas; blur: npp)"),
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

#define DIMS (ON(CMD_MAIN) | ON(CMD_GEMM) | ON_TUNE | ON_MGEMM)
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
    {"--report", NULL, "FILE", ON_LADDERS | ON_MGEMM, S_DEVICE, K_STRING, F(report), 0, 0, NULL, 0,
     NULL, "also write an HTML report (charts) to FILE"},
    {"--quiet", "-q", NULL, ON_ALL, S_DEVICE, K_FLAG, F(quiet), 1, 0, NULL, 0, NULL,
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
    {"--energy", NULL, NULL, ON_RUNS | ON_TUNE, S_PROTOCOL, K_FLAG, F(energy), 1, 0, NULL, 0, NULL,
     "time every row for at least 1 s, so NVML's energy counter gives\njoules per launch and "
     "GFLOP/J (NVIDIA GPUs; clocks and power always)"},
    {"--kernel-timeout", NULL, "T", ON_RUNS | ON_TUNE | ON_MGEMM, S_PROTOCOL, K_SECONDS,
     F(kernel_timeout), 0, 86400, NULL, 0, NULL,
     "stop when one launch runs longer than T (default 600s; 0: never):\nits row says timeout, "
     "the rows before it are written, exit 4"},
    {"--rung", NULL, "R[,R...]", ON_LADDERS | ON_TUNE | ON_MGEMM, S_PROTOCOL, K_CUSTOM, 0, 0, 0,
     NULL, 0, set_rungs, "run only these rungs (name or unique prefix, e.g. 10 or 02_row)"},
    {"--param", NULL, "NAME=V", ON_LADDERS, S_PROTOCOL, K_CUSTOM, 0, 0, 0, NULL, 0, set_param,
     "set a rung parameter (repeatable), e.g. --param TS=32"},
    {"--list-rungs", NULL, NULL, ON_LADDERS | ON_MGEMM, S_PROTOCOL, K_FLAG, F(list_rungs), 1, 0,
     NULL, 0, NULL, "print the ladder with each rung's summary and parameters"},
    {"--kernel", NULL, "F[:E]", ON_LADDERS, S_PROTOCOL, K_CUSTOM, 0, 0, 0, NULL, 0, set_kernel,
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
    {"--type", NULL, "T", DIMS & ~ON_MGEMM, S_GEMM, K_CUSTOM, 0, 0, 0, "float double int", 0,
     set_type, "float (default), double (needs fp64) or int"},
    {"--host-rungs", NULL, NULL, ON(CMD_MAIN) | ON(CMD_GEMM), S_GEMM, K_FLAG, F(host_rungs), 1, 0,
     NULL, 0, NULL,
     "run the CPU loop-order rungs at any size (they are skipped when\nthey would take seconds)"},
    {"--no-host-rungs", NULL, NULL, ON(CMD_MAIN) | ON(CMD_GEMM), S_GEMM, K_FLAG, F(host_rungs), -1,
     0, NULL, 0, NULL, "never run the CPU loop-order rungs"},
    {"--compare", NULL, "L[,L]", ON(CMD_GEMM), S_GEMM, K_CUSTOM, 0, 0, 0,
     "cublas cublas_tf32 clblast openblas", 0, set_compare,
     "add vendor GEMMs as peers: cublas, clblast, openblas (host)"},
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
    {"--refresh", NULL, NULL, ON(CMD_PEAK), S_PEAK, K_FLAG, F(refresh), 1, 0, NULL, 0, NULL,
     "measure again even when ceilings are cached for this device"},
    {"--bytes", NULL, "B", ON(CMD_PEAK), S_PEAK, K_LONG, F(bytes), 65536, 1L << 40, NULL, M_MEASURE,
     NULL,
     "buffer size for bandwidth and transfers, and the largest working set\nof the cache and "
     "latency sweeps (default: by device)"},
    {"--vec", NULL, "W[,W...]", ON(CMD_PEAK), S_PEAK, K_CUSTOM, 0, 0, 0, "1 2 4 8 16", M_MEASURE,
     set_vec, "vector widths to try for bandwidth (1, 2, 4, 8, 16; default all)"},
    {"--quick", NULL, NULL, ON(CMD_PEAK), S_PEAK, K_FLAG, F(quick), 1, 0, NULL, M_MEASURE, NULL,
     "a small search space (for tests; ceilings are then not cached)"},
    {"--brief", NULL, NULL, ON(CMD_PEAK), S_PEAK, K_FLAG, F(brief), 1, 0, NULL, M_MEASURE, NULL,
     "the first run's search (seconds): memory, FMA, TF32 and local memory\nfrom the "
     "configurations the full search usually picks; cached"},
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

/* 1 when some command takes an option of this name. */
static int known(const char *name)
{
    for (int k = 0; k < kl_cli_option_count; k++)
        if (strcmp(kl_cli_options[k].name, name) == 0 ||
            (kl_cli_options[k].alias && strcmp(kl_cli_options[k].alias, name) == 0))
            return 1;
    return 0;
}

/* Reads val into the option's field; 0, or 1 with the reason in err. */
static int apply(struct cli *c, const struct cli_option *o, const char *val, char *err, size_t n)
{
    char *at = (char *)c + o->field;
    long v;
    switch (o->kind) {
    case K_FLAG: *(int *)(void *)at = (int)o->lo; break;
    case K_STRING: *(const char **)(void *)at = val; break;
    case K_CHOICE: {
        size_t len = strlen(val);
        const char *p = strstr(o->choices, val);
        /* a whole word of the list */
        while (p && !((p == o->choices || p[-1] == ' ') && (p[len] == ' ' || p[len] == '\0')))
            p = strstr(p + 1, val);
        if (!len || !p) {
            snprintf(err, n, "unknown %s \"%s\" (", o->name + 2, val);
            for (const char *q = o->choices; *q; q++) {
                size_t used = strlen(err);
                if (*q == ' ')
                    snprintf(err + used, n - used, "%s", strchr(q + 1, ' ') ? ", " : " or ");
                else if (used + 1 < n)
                    err[used] = *q, err[used + 1] = '\0';
            }
            size_t used = strlen(err);
            snprintf(err + used, n - used, ")");
            return 1;
        }
        *(const char **)(void *)at = val;
        break;
    }
    case K_INT:
    case K_LONG:
        if (kl_parse_long(o->name, val, (long)o->lo, (long)o->hi, &v, err, n) != 0)
            return 1;
        if (o->kind == K_INT)
            *(int *)(void *)at = (int)v;
        else
            *(long *)(void *)at = v;
        break;
    case K_SECONDS:
        if (kl_parse_seconds(o->name, val, o->lo, o->hi, (double *)(void *)at, err, n) != 0)
            return 1;
        break;
    case K_CUSTOM:
        if (o->set(c, o, val, err, n))
            return 1;
        break;
    }
    c->protocol_set |= (o->marks & M_PROTOCOL) != 0;
    c->timing_set |= (o->marks & M_TIMING) != 0;
    c->peak_measure |= (o->marks & M_MEASURE) != 0;
    c->budget_set |= (o->marks & M_BUDGET) != 0;
    c->max_n_set |= (o->marks & M_MAX_N) != 0;
    return 0;
}

/* ---- suggestions ------------------------------------------------------------- */

/*
 * Edits between two words (insertions, deletions, substitutions and swaps of
 * neighbours: "bulr" is one from "blur"), for words of up to 31 characters.
 */
static int distance(const char *a, const char *b)
{
    int la = (int)strlen(a), lb = (int)strlen(b), d[32][32];
    if (la > 31 || lb > 31)
        return 99;
    for (int i = 0; i <= la; i++)
        for (int j = 0; j <= lb; j++) {
            if (!i || !j) {
                d[i][j] = i + j;
                continue;
            }
            int best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[la][lb];
}

/* The closest of n words to w, when close enough to be a slip (NULL otherwise). */
static const char *closest(const char *w, const char *const *words, int n)
{
    const char *best = NULL;
    int bd = 99, limit = strlen(w) <= 4 ? 1 : 2;
    for (int i = 0; i < n; i++) {
        int d = distance(w, words[i]);
        if (d < bd)
            bd = d, best = words[i];
    }
    return bd <= limit ? best : NULL;
}

/* "; did you mean X?" for an unknown option of command cmd, or "". */
static void suggest_option(const char *w, int cmd, char *out, size_t n)
{
    const char *words[128];
    int k = 0;
    for (int i = 0; i < kl_cli_option_count && k < 128; i++)
        if (kl_cli_options[i].on & ON(cmd))
            words[k++] = kl_cli_options[i].name;
    const char *s = closest(w, words, k);
    snprintf(out, n, s ? "; did you mean %s?" : "", s);
}

/* The command nearest to w, when close enough to be a slip (NULL otherwise). */
static const char *closest_command(const char *w)
{
    const char *names[32];
    int k = 0;
    for (; k < kl_cli_command_count && k < 32; k++)
        names[k] = kl_cli_commands[k].name;
    return closest(w, names, k);
}

static int fail(const char *msg, const char *help)
{
    fprintf(stderr, "kladder: %s\n(kladder %s lists the options)\n", msg, help);
    return EXIT_USAGE;
}

/* ---- help ---------------------------------------------------------------- */

/* "  --name ARG" in a 19-column field, then the help, its lines indented to column 21. */
static void print_option(const struct cli_option *o, FILE *out)
{
    char head[64];
    snprintf(head, sizeof head, "%s%s%s%s%s", o->name, o->alias ? ", " : "",
             o->alias ? o->alias : "", o->arg ? " " : "", o->arg ? o->arg : "");
    fprintf(out, "  %-18s ", head);
    if (strlen(head) > 18)
        fprintf(out, "\n%21s", "");
    for (const char *p = o->help; *p; p++) {
        fputc(*p, out);
        if (*p == '\n')
            fprintf(out, "%21s", "");
    }
    fputc('\n', out);
}

/* Every option of section s that command cmd takes (cmd < 0: every option of s). */
static void print_section(enum section s, int cmd, FILE *out)
{
    int any = 0;
    for (int k = 0; k < kl_cli_option_count; k++) {
        const struct cli_option *o = &kl_cli_options[k];
        if (o->section != s || (cmd >= 0 && !(o->on & ON(cmd))))
            continue;
        if (!any++)
            fprintf(out, "\n%s:\n", kl_cli_section_titles[s]);
        print_option(o, out);
    }
}

static void print_indented(const char *text, int indent, FILE *out)
{
    for (const char *p = text; *p; p++) {
        fputc(*p, out);
        if (*p == '\n')
            fprintf(out, "%*s", indent, "");
    }
}

static void print_usage(FILE *out)
{
    fprintf(out, "usage: kladder [COMMAND] [OPTIONS]\n\nCommands:\n  %-11s ", "(none)");
    fprintf(out, "show the chosen device and run the GEMM ladder at a quick size\n");
    for (int k = 0; k < kl_cli_command_count; k++) {
        fprintf(out, "  %-11s ", kl_cli_commands[k].name);
        print_indented(kl_cli_commands[k].summary, 14, out);
        fputc('\n', out);
    }
    for (int s = S_DEVICE; s <= S_TUNE; s++)
        print_section((enum section)s, -1, out);
    fprintf(out, "\nkladder help COMMAND (or kladder COMMAND --help): one command's options and "
                 "an example.\n");
}

/* kladder help COMMAND: its synopsis, what it does, its options, an example. */
static int print_command_help(const char *name, FILE *out)
{
    for (int k = 0; k < kl_cli_command_count; k++) {
        const struct command_def *d = &kl_cli_commands[k];
        if (strcmp(d->name, name) != 0)
            continue;
        fprintf(out, "usage: kladder %s %s\n\n", d->name, d->arg);
        print_indented(d->summary, 0, out);
        fputc('\n', out);
        if (d->cmd >= 0) {
            /* The command's own options first, then the ones every command shares. */
            for (int s = S_GEMM; s <= S_TUNE; s++)
                print_section((enum section)s, d->cmd, out);
            print_section(S_PROTOCOL, d->cmd, out);
            print_section(S_DEVICE, d->cmd, out);
        }
        fprintf(out, "\nexample: %s\n", d->example);
        return 0;
    }
    return -1;
}

/* ---- the parser ------------------------------------------------------------- */

static int print_version(void)
{
    printf("kladder %s\n", KLADDER_VERSION);
    return 0;
}

/* kladder help [COMMAND | --man] and kladder completion SHELL. */
static int info_command(const char *cmd, int argc, char **argv)
{
    char err[256];
    if (strcmp(cmd, "completion") == 0) {
        if (argc == 3 && kl_cli_completion(argv[2], stdout) == 0)
            return 0;
        return fail("completion takes a shell: kladder completion bash (or zsh)", "help");
    }
    if (argc == 2)
        return print_usage(stdout), 0;
    if (argc == 3 && strcmp(argv[2], "--man") == 0)
        return kl_cli_man_page(stdout), 0;
    if (argc == 3 && print_command_help(argv[2], stdout) == 0)
        return 0;
    const char *s = argc == 3 ? closest_command(argv[2]) : NULL;
    snprintf(err, sizeof err, "help takes one command (got \"%s\"%s)%s%s%s", argv[2],
             argc > 3 ? " and more" : "", s ? "; did you mean " : "", s ? s : "", s ? "?" : "");
    return fail(err, "help");
}

/* The command word at argv[1]; 0 with c->command set, else an exit code (*done set). */
static int parse_command(int argc, char **argv, int *i, struct cli *c, int *done)
{
    char err[512];
    const char *cmd = argv[(*i)++];
    if (strcmp(cmd, "help") == 0 || strcmp(cmd, "completion") == 0)
        return *done = 1, info_command(cmd, argc, argv);
    if (strcmp(cmd, "version") == 0) {
        *done = 1;
        if (argc > 2) {
            snprintf(err, sizeof err, "version takes no options (got \"%s\")", argv[2]);
            return fail(err, "help");
        }
        return print_version();
    }
    int found = 0;
    for (int k = 0; k < kl_cli_command_count && !found; k++)
        if (kl_cli_commands[k].cmd >= 0 && strcmp(cmd, kl_cli_commands[k].name) == 0)
            c->command = (enum command)kl_cli_commands[k].cmd, found = 1;
    if (!found) {
        const char *s = closest_command(cmd);
        snprintf(
            err, sizeof err,
            "unknown command \"%s\"%s%s%s (devices, peak, gemm, copy, rowdot, gemv, blur, mgemm, "
            "tune, report, compare, template, completion, help, version)",
            cmd, s ? "; did you mean " : "", s ? s : "", s ? "?" : "");
        return fail(err, "help");
    }
    /* kladder tune WORKLOAD: a ladder's; its options apply too (for --kernel). */
    if (c->command == CMD_TUNE && *i < argc && argv[*i][0] != '-') {
        c->workload = argv[(*i)++];
        for (int k = CMD_GEMM; k <= CMD_BLUR; k++)
            if (strcmp(c->workload, kl_cli_command_name(k)) == 0)
                c->tuned = (enum command)k;
        if (!c->tuned) {
            snprintf(err, sizeof err,
                     "kladder tune takes a ladder: gemm, copy, rowdot, gemv or blur (got \"%s\")",
                     c->workload);
            return fail(err, "help tune");
        }
    }
    return 0;
}

/* The checks between options, once all are read; 0 or an exit code. */
static int check_together(struct cli *c)
{
    char err[512];
    /* `tune WORKLOAD` takes the workload's sizes. */
    enum command cmd = c->command == CMD_TUNE && c->tuned ? c->tuned : c->command;
    if (cmd == CMD_BLUR && (c->width || c->height) && c->input)
        return fail("--width and --height size the generated image; not with --input", "help");
    if (c->output_rung && !c->image_out)
        return fail("--output-rung chooses the rung for --output FILE; give --output too", "help");
    if (cmd == CMD_BLUR && c->image_out) {
        /* blur's --output is the picture: a report's name there would get a PNG. */
        static const char *const reports[] = {".json", ".csv", ".html", ".htm", ".txt", ".svg"};
        size_t n = strlen(c->image_out);
        for (size_t k = 0; k < sizeof reports / sizeof *reports; k++) {
            size_t m = strlen(reports[k]);
            if (n >= m && strcasecmp(c->image_out + n - m, reports[k]) == 0) {
                snprintf(err, sizeof err,
                         "blur's --output is the blurred picture (a PNG), not the report: "
                         "\"%s\" names a report; --json FILE or --report FILE.html saves it",
                         c->image_out);
                return fail(err, "help blur");
            }
        }
    }
    if (c->max_n_set && !c->sweep)
        return fail("--max-n sets the end of a --sweep; give --sweep too", "help");
    if (cmd == CMD_GEMV && c->mnk_set && (!c->M || !c->N))
        return fail("give both --m and --n, or --size", "help");
    if (c->mnk_set && (cmd == CMD_GEMM || cmd == CMD_MAIN || cmd == CMD_TUNE) &&
        (!c->M || !c->N || !c->K))
        return fail("give all of --m, --n and --k, or --size", "help");
    if (c->panel % 4 != 0) {
        snprintf(err, sizeof err, "--panel %d: SUMMA's panel width must be a multiple of 4",
                 c->panel);
        return fail(err, "help mgemm");
    }
    if (c->command != CMD_TUNE)
        return 0;
    if (c->show && c->clear)
        return fail("--show and --clear: one at a time", "help tune");
    if ((c->show || c->clear) && (c->size_set || c->mnk_set || c->nrungs || c->budget_set ||
                                  c->exhaustive || c->protocol_set))
        return fail("--show and --clear take only --all, --device and --backend", "help tune");
    if (c->all && !c->show && !c->clear)
        return fail("--all goes with --show or --clear", "help tune");
    if (!c->show && !c->clear && !c->workload)
        return fail("tune needs a workload: kladder tune gemm (or --show, --clear)", "help tune");
    if (c->nkernels > 1)
        return fail("tune takes one --kernel at a time", "help tune");
    if (c->nkernels && (c->nrungs || c->nparams || c->show || c->clear))
        return fail("tune --kernel searches the user's kernels' parameters: no --rung, --param, "
                    "--show or --clear with it",
                    "help tune");
    if (!c->nkernels && c->tuned && c->tuned != CMD_GEMM) {
        snprintf(err, sizeof err,
                 "kladder tune %s tunes the user's kernels: give --kernel FILE (the built-in "
                 "rungs tuned are gemm's)",
                 c->workload);
        return fail(err, "help tune");
    }
    if (!c->nkernels && c->workload_opt) {
        snprintf(err, sizeof err, "option %s applies to tune only with --kernel FILE",
                 c->workload_opt);
        return fail(err, "help tune");
    }
    return 0;
}

int kl_cli_parse(int argc, char **argv, struct cli *c, int *done)
{
    char err[512], hint[96], help[64];
    int i = 1, rc;
    memset(c, 0, sizeof *c);
    *done = 0;
    c->format = "table";
    c->type = KL_FLOAT;
    c->seed = 1;
    c->max_n = 1L << 26;
    c->radius = -1;
    c->sigma = 2.0;
    kl_protocol_default(&c->protocol);
    c->kernel_timeout = 600;
    if (argc > 1 && argv[1][0] != '-' &&
        ((rc = parse_command(argc, argv, &i, c, done)) != 0 || *done))
        return rc;
    snprintf(help, sizeof help, "%s%s", c->command == CMD_MAIN ? "help" : "help ",
             c->command == CMD_MAIN ? "" : kl_cli_command_name(c->command));
    for (; i < argc; i++) {
        char name[64];
        const char *opt = argv[i], *val = NULL, *eq = strchr(opt, '=');
        if (strcmp(opt, "--help") == 0 || strcmp(opt, "-h") == 0) {
            *done = 1;
            return c->command == CMD_MAIN
                       ? (print_usage(stdout), 0)
                       : print_command_help(kl_cli_command_name(c->command), stdout);
        }
        /* --opt=value and --opt value both work. */
        if (strncmp(opt, "--", 2) == 0 && eq && (size_t)(eq - opt) < sizeof name) {
            memcpy(name, opt, (size_t)(eq - opt));
            name[eq - opt] = '\0';
            opt = name;
            val = eq + 1;
        }
        const struct cli_option *o = kl_cli_find(opt, c->command);
        /* tune WORKLOAD takes the workload's own options (with --kernel). */
        if (c->tuned) {
            const struct cli_option *w = kl_cli_find(opt, c->tuned);
            if (w && (!o || (w != o && !(w->on & ON_TUNE)))) {
                o = w;
                if (!(w->on & ON_TUNE))
                    c->workload_opt = w->name;
            }
        }
        if (!o && known(opt)) {
            snprintf(err, sizeof err, "option %s does not apply to %s", opt,
                     kl_cli_command_name(c->command));
            return fail(err, help);
        }
        if (!o) {
            suggest_option(opt, c->tuned ? c->tuned : c->command, hint, sizeof hint);
            snprintf(err, sizeof err, "unknown option \"%s\"%s", argv[i], hint);
            return fail(err, help);
        }
        if (o->arg && !val) {
            if (i + 1 >= argc) {
                snprintf(err, sizeof err, "%s needs a value", opt);
                return fail(err, help);
            }
            val = argv[++i];
        } else if (!o->arg && val) {
            snprintf(err, sizeof err, "%s takes no value", opt);
            return fail(err, help);
        }
        if (apply(c, o, val, err, sizeof err))
            return fail(err, help);
    }
    /* Energy needs a window the counter can resolve: the timed launches last that long. */
    if (c->energy && c->protocol.min_time < KL_ENERGY_WINDOW_S)
        c->protocol.min_time = KL_ENERGY_WINDOW_S;
    return check_together(c);
}
