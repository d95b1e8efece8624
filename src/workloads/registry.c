/*
 * The table of workloads (workloads/registry.h).
 */
#include "workloads/registry.h"

#include <stdlib.h>
#include <string.h>

#include "kladder.h"

#include "multi/mgemm.h"
#include "workloads/blur/blur.h"
#include "workloads/copy/copy.h"
#include "workloads/gemm/gemm.h"
#include "workloads/gemv/gemv.h"
#include "workloads/histogram/histogram.h"
#include "workloads/reduce/reduce.h"
#include "workloads/rowdot/rowdot.h"
#include "workloads/scan/scan.h"
#include "workloads/softmax/softmax.h"
#include "workloads/transpose/transpose.h"

/* ---- the ladders' entries: the API's call as each workload's request ---- */

static enum kl_status gemm_entry(struct kl_context *kl, const struct kl_workload_call *c,
                                 struct kl_report *rep)
{
    struct kl_gemm_request r = {.M = c->size[0],
                                .N = c->size[1],
                                .K = c->size[2],
                                .type = c->req->type,
                                .peers = c->req->peers,
                                .npeers = c->req->npeers};
    KL_WORKLOAD_COMMON(r, c);
    return kl_gemm_ladder(kl, &r, rep);
}

static enum kl_status gemv_entry(struct kl_context *kl, const struct kl_workload_call *c,
                                 struct kl_report *rep)
{
    struct kl_gemv_request r = {.M = c->size[0],
                                .N = c->size[1],
                                .type = c->req->type,
                                .peers = c->req->peers,
                                .npeers = c->req->npeers};
    KL_WORKLOAD_COMMON(r, c);
    return kl_gemv_ladder(kl, &r, rep);
}

static enum kl_status rowdot_entry(struct kl_context *kl, const struct kl_workload_call *c,
                                   struct kl_report *rep)
{
    struct kl_rowdot_request r = {.rows = c->size[0], .d = c->size[1], .type = c->req->type};
    KL_WORKLOAD_COMMON(r, c);
    return kl_rowdot_ladder(kl, &r, rep);
}

static enum kl_status copy_entry(struct kl_context *kl, const struct kl_workload_call *c,
                                 struct kl_report *rep)
{
    struct kl_copy_request r = {.n = c->size[0]};
    KL_WORKLOAD_COMMON(r, c);
    return kl_copy_ladder(kl, &r, rep);
}

static enum kl_status blur_entry(struct kl_context *kl, const struct kl_workload_call *c,
                                 struct kl_report *rep)
{
    struct kl_blur_request r = {.width = c->size[0],
                                .height = c->size[1],
                                .sigma = c->req->sigma > 0 ? c->req->sigma : 2.0,
                                .radius = -1,
                                .pixel = c->req->uchar4 ? KL_PIX_UCHAR4 : KL_PIX_FLOAT};
    KL_WORKLOAD_COMMON(r, c);
    return kl_blur_ladder(kl, &r, rep);
}

static enum kl_status reduce_entry(struct kl_context *kl, const struct kl_workload_call *c,
                                   struct kl_report *rep)
{
    const struct kl_workload_def *w = kl_workload_find("reduce");
    struct kl_reduce_request r = {
        .n = c->size[0],
        .type = c->req->type,
        .op = (enum kl_reduce_op)kl_reduce_op_parse(kl_workload_option(w, c, "op")),
        .data = strcmp(kl_workload_option(w, c, "data"), "skewed") == 0 ? KL_REDUCE_SKEWED
                                                                        : KL_REDUCE_RANDOM,
        .peers = c->req->peers,
        .npeers = c->req->npeers,
        .tuner = c->tuner};
    KL_WORKLOAD_COMMON(r, c);
    return kl_reduce_ladder(kl, &r, rep);
}

static enum kl_status scan_entry(struct kl_context *kl, const struct kl_workload_call *c,
                                 struct kl_report *rep)
{
    const struct kl_workload_def *w = kl_workload_find("scan");
    const char *data = kl_workload_option(w, c, "data");
    struct kl_scan_request r = {.n = c->size[0],
                                .type = c->req->type,
                                .exclusive =
                                    strcmp(kl_workload_option(w, c, "mode"), "exclusive") == 0,
                                .data = strcmp(data, "skewed") == 0     ? KL_SCAN_SKEWED
                                        : strcmp(data, "constant") == 0 ? KL_SCAN_CONSTANT
                                                                        : KL_SCAN_RANDOM,
                                .checks = atoi(kl_workload_option(w, c, "checks")),
                                .peers = c->req->peers,
                                .npeers = c->req->npeers,
                                .tuner = c->tuner};
    KL_WORKLOAD_COMMON(r, c);
    return kl_scan_ladder(kl, &r, rep);
}

static enum kl_status histogram_entry(struct kl_context *kl, const struct kl_workload_call *c,
                                      struct kl_report *rep)
{
    const struct kl_workload_def *w = kl_workload_find("histogram");
    const char *data = kl_workload_option(w, c, "data");
    struct kl_histogram_request r = {.n = c->size[0],
                                     .bins = atoi(kl_workload_option(w, c, "bins")),
                                     .data = strcmp(data, "skewed") == 0     ? KL_HIST_SKEWED
                                             : strcmp(data, "constant") == 0 ? KL_HIST_CONSTANT
                                                                             : KL_HIST_UNIFORM,
                                     .peers = c->req->peers,
                                     .npeers = c->req->npeers,
                                     .tuner = c->tuner};
    KL_WORKLOAD_COMMON(r, c);
    return kl_histogram_ladder(kl, &r, rep);
}

static enum kl_status transpose_entry(struct kl_context *kl, const struct kl_workload_call *c,
                                      struct kl_report *rep)
{
    const struct kl_workload_def *w = kl_workload_find("transpose");
    struct kl_transpose_request r = {.m = c->size[0],
                                     .n = c->size[1],
                                     .type = c->req->type,
                                     .in_place =
                                         strcmp(kl_workload_option(w, c, "place"), "in") == 0,
                                     .peers = c->req->peers,
                                     .npeers = c->req->npeers,
                                     .tuner = c->tuner};
    KL_WORKLOAD_COMMON(r, c);
    return kl_transpose_ladder(kl, &r, rep);
}

static enum kl_status softmax_entry(struct kl_context *kl, const struct kl_workload_call *c,
                                    struct kl_report *rep)
{
    const struct kl_workload_def *w = kl_workload_find("softmax");
    struct kl_softmax_request r = {
        .rows = c->size[0],
        .cols = c->size[1],
        .type = c->req->type,
        .op = (enum kl_softmax_op)kl_softmax_op_parse(kl_workload_option(w, c, "op")),
        .gamma = strtod(kl_workload_option(w, c, "gamma"), NULL),
        .beta = strtod(kl_workload_option(w, c, "beta"), NULL),
        .eps = strtod(kl_workload_option(w, c, "eps"), NULL),
        .peers = c->req->peers,
        .npeers = c->req->npeers,
        .tuner = c->tuner};
    KL_WORKLOAD_COMMON(r, c);
    return kl_softmax_ladder(kl, &r, rep);
}

/* ---- the table ------------------------------------------------------------ */

static const struct kl_workload_def workloads[] = {
    {.name = "gemm",
     .heading = "GEMM ladder (C = A*B), in order:",
     .rungs = kl_gemm_rungs,
     .width = 16,
     .dims = 3,
     .gpu = {2048, 2048, 2048},
     .cpu = {512, 512, 512},
     .ladder = 1,
     .peers = 1,
     .run = gemm_entry},
    {.name = "copy",
     .heading = "Copy ladder (seed 003), in order:",
     .rungs = kl_copy_rungs,
     .width = 8,
     .dims = 1,
     .gpu = {1L << 24},
     .cpu = {1L << 22},
     .ladder = 1,
     .run = copy_entry},
    {.name = "rowdot",
     .heading = "Weighted row dot ladder (seed 000), in order:",
     .rungs = kl_rowdot_rungs,
     .width = 18,
     .dims = 2,
     .gpu = {16384, 16384},
     .cpu = {4096, 1000},
     .ladder = 1,
     .run = rowdot_entry},
    {.name = "gemv",
     .heading = "GEMV ladder (y = a*A*x + b*y), in order:",
     .rungs = kl_gemv_rungs,
     .width = 16,
     .dims = 2,
     .gpu = {4096, 4096},
     .cpu = {2048, 2048},
     .ladder = 1,
     .peers = 1,
     .run = gemv_entry},
    {.name = "blur",
     .heading = "Gaussian blur ladder (seed 001), in order:",
     .rungs = kl_blur_rungs,
     .width = 13,
     .dims = 2,
     .gpu = {4096, 4096},
     .cpu = {4096, 4096},
     .ladder = 1,
     .run = blur_entry},
    {.name = "reduce",
     .heading = "Reduction ladder (the sum, min or max of N elements), in order:",
     .rungs = kl_reduce_rungs,
     .width = 15,
     .dims = 1,
     .gpu = {1L << 28},
     .cpu = {1L << 24},
     .ladder = 1,
     .summary = "the reduction ladder: the sum, min or max of N floats, doubles or ints,\n"
                "from the textbook's tree in local memory to one pass at the read ceiling",
     .peers = 1,
     .types = "float double int",
     .options = {{"op", "sum min max", 0, 0, "sum", "the operation: sum, min or max"},
                 {"data", "random skewed", 0, 0, "random",
                  "the input: random (uniform), or skewed (magnitudes over 2^±20, the extremes "
                  "last)"}},
     .run = reduce_entry},
    {.name = "scan",
     .heading = "Prefix-scan ladder (the prefix sums of N elements), in order:",
     .rungs = kl_scan_rungs,
     .width = 17,
     .dims = 1,
     .gpu = {1L << 28},
     .cpu = {1L << 24},
     .ladder = 1,
     .summary = "the prefix-scan ladder: inclusive or exclusive prefix sums of N floats or\n"
                "ints, from Hillis and Steele in one work-group to one pass with look-back",
     .peers = 1,
     .types = "float int",
     .options = {{"mode", "inclusive exclusive", 0, 0, "inclusive",
                  "inclusive (y[i] sums x[0..i]) or exclusive (x[0..i-1])"},
                 {"data", "random skewed constant", 0, 0, "random",
                  "the input: random (uniform), skewed (magnitudes over 2^±20), or constant "
                  "(ones; float: at most 2^24 elements)"},
                 {"checks", NULL, 1, 1000, "1",
                  "runs verified after the timed ones, each on a poisoned output (more find a "
                  "race that shows now and then)"}},
     .run = scan_entry},
    {.name = "histogram",
     .heading = "Histogram ladder (N bytes in even bins), in order:",
     .rungs = kl_histogram_rungs,
     .width = 18,
     .dims = 1,
     .gpu = {1L << 28},
     .cpu = {1L << 24},
     .ladder = 1,
     .summary = "the histogram ladder: N bytes counted in 2 to 256 even bins, from one\n"
                "global atomic per byte to privatized counts of runs",
     .peers = 1,
     .types = "uchar",
     .options = {{"bins", NULL, 2, 256, "256", "the bins: 2 to 256, even over the byte's values"},
                 {"data", "uniform skewed constant", 0, 0, "uniform",
                  "the bytes: uniform, skewed (90% one value) or constant"}},
     .run = histogram_entry},
    {.name = "transpose",
     .heading = "Transpose ladder (b = a transposed, M x N), in order:",
     .rungs = kl_transpose_rungs,
     .width = 12,
     .dims = 2,
     .gpu = {8192, 8192},
     .cpu = {1024, 1024},
     .ladder = 1,
     .summary = "the transpose ladder: an M x N matrix of floats, doubles or 2-byte elements,\n"
                "from one element per work-item to 16-byte vectors through a swizzled tile",
     .peers = 1,
     .types = "float double half bf16",
     .options = {{"place", "out in", 0, 0, "out",
                  "out (b = a transposed, a new matrix) or in (a square matrix, where it lies)"}},
     .run = transpose_entry},
    {.name = "softmax",
     .heading = "Softmax ladder (each row of ROWS x COLS: softmax, layer or RMS norm), in order:",
     .rungs = kl_softmax_rungs,
     .width = 14,
     .dims = 2,
     .gpu = {16384, 4096},
     .cpu = {256, 4096},
     .ladder = 1,
     .peers = 1,
     .summary = "the softmax ladder: softmax, layer norm or RMS norm over each row of floats,\n"
                "halfs or bf16s, from a work-item per row to a row held by a cluster",
     .types = "float half bf16",
     .options = {{"op", "softmax layernorm rmsnorm", 0, 0, "softmax",
                  "softmax, layernorm ((x - mean) / sqrt(var + eps) * gamma + beta) or rmsnorm "
                  "(x / sqrt(mean x^2 + eps) * gamma)"},
                 {"gamma", NULL, -1000000, 1000000, "1", "the norms' scale", 1},
                 {"beta", NULL, -1000000, 1000000, "0", "layer norm's shift", 1},
                 {"eps", NULL, 0, 1, "1e-5", "the norms' epsilon, above 0", 1}},
     .run = softmax_entry},
    {.name = "mgemm",
     .heading = "Multi-GPU GEMM ladder (fp32, CUDA and NCCL), in order:",
     .rungs = kl_mgemm_rungs,
     .width = 16},
};

#define BUILT_IN ((int)(sizeof workloads / sizeof *workloads))

static const struct kl_workload_def **added; /* as many as are registered */
static int nadded;

int kl_workload_count(void)
{
    return BUILT_IN + nadded;
}

const struct kl_workload_def *kl_workload_at(int i)
{
    if (i < 0 || i >= kl_workload_count())
        return NULL;
    return i < BUILT_IN ? &workloads[i] : added[i - BUILT_IN];
}

const struct kl_workload_def *kl_workload_find(const char *name)
{
    for (int i = 0; name && i < kl_workload_count(); i++)
        if (strcmp(kl_workload_at(i)->name, name) == 0)
            return kl_workload_at(i);
    return NULL;
}

int kl_workload_register(const struct kl_workload_def *def)
{
    if (!def || !def->name || kl_workload_find(def->name) || def->dims < 0 ||
        def->dims > KL_WORKLOAD_MAX_DIMS || !def->rungs || (def->ladder && !def->run))
        return -1;
    const struct kl_workload_def **more = realloc(added, (size_t)(nadded + 1) * sizeof *added);
    if (!more)
        return -1;
    added = more;
    added[nadded++] = def;
    return 0;
}

void kl_workload_names(int (*keep)(const struct kl_workload_def *w), const char *last, char *out,
                       size_t n)
{
    int count = 0, seen = 0;
    size_t used = 0;
    for (int i = 0; i < kl_workload_count(); i++)
        count += keep(kl_workload_at(i));
    out[0] = '\0';
    for (int i = 0; i < kl_workload_count() && used < n; i++)
        if (keep(kl_workload_at(i)))
            used += (size_t)snprintf(out + used, n - used, "%s%s",
                                     !seen++         ? ""
                                     : seen == count ? last
                                                     : ", ",
                                     kl_workload_at(i)->name);
}

static int runs_ladder(const struct kl_workload_def *w)
{
    return w->ladder;
}

void kl_workload_ladder_names(char *out, size_t n)
{
    kl_workload_names(runs_ladder, ", ", out, n);
}

/* w's option of that name (len bytes of it), or NULL. */
static const struct kl_workload_option *option_named(const struct kl_workload_def *w,
                                                     const char *name, size_t len)
{
    for (int i = 0; i < KL_WORKLOAD_MAX_OPTIONS && w->options[i].name; i++)
        if (strlen(w->options[i].name) == len && strncmp(w->options[i].name, name, len) == 0)
            return &w->options[i];
    return NULL;
}

/* 1 where word is one of the space-separated choices. */
static int among(const char *choices, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = choices; n && *p; p += strcspn(p, " "), p += *p == ' ')
        if (strcspn(p, " ") == n && strncmp(p, word, n) == 0)
            return 1;
    return 0;
}

/* Whether value is a real number within o's range: KL_OK, or KL_ERR_ARG saying so. */
static enum kl_status real_check(const struct kl_workload_option *o, const char *name,
                                 const char *value, struct kl_err *e)
{
    char *end;
    double x = strtod(value, &end);
    if (end == value || *end || !(x >= (double)o->min && x <= (double)o->max))
        return kl_fail(e, KL_ERR_ARG, "%s: \"%s\" is not a number from %ld to %ld", name, value,
                       o->min, o->max);
    return KL_OK;
}

enum kl_status kl_workload_option_check(const struct kl_workload_def *w, const char *name,
                                        const char *value, struct kl_err *e)
{
    const struct kl_workload_option *o = option_named(w, name, strlen(name));
    char *end;
    if (!o) {
        char names[128] = "";
        size_t used = 0;
        for (int i = 0; i < KL_WORKLOAD_MAX_OPTIONS && w->options[i].name && used < sizeof names;
             i++)
            used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "",
                                     w->options[i].name);
        return kl_fail(e, KL_ERR_ARG, "%s has no option \"%s\" (%s%s)", w->name, name,
                       names[0] ? "its options: " : "it has none", names);
    }
    if (o->choices)
        return among(o->choices, value)
                   ? KL_OK
                   : kl_fail(e, KL_ERR_ARG, "%s: \"%s\" is not one of %s", name, value, o->choices);
    if (o->real)
        return real_check(o, name, value, e);
    long v = strtol(value, &end, 10);
    if (end == value || *end || v < o->min || v > o->max)
        return kl_fail(e, KL_ERR_ARG, "%s: \"%s\" is not an integer from %ld to %ld", name, value,
                       o->min, o->max);
    return KL_OK;
}

enum kl_status kl_workload_type(const struct kl_workload_def *w, int given, enum kl_type t,
                                enum kl_type *out, struct kl_err *e)
{
    char first[16], names[128] = "";
    size_t used = 0, len;
    if (!w->types)
        return given ? kl_fail(e, KL_ERR_ARG, "%s takes no --type", w->name) : KL_OK;
    if (given && among(w->types, kl_type_name(t)))
        return *out = t, KL_OK;
    if (!given) {
        snprintf(first, sizeof first, "%.*s", (int)strcspn(w->types, " "), w->types);
        return kl_type_parse(first, out) == KL_OK
                   ? KL_OK
                   : kl_fail(e, KL_ERR_ARG, "%s declares an unknown type \"%s\"", w->name, first);
    }
    for (const char *p = w->types; *p && used < sizeof names; p += len, p += *p == ' ') {
        len = strcspn(p, " "); /* "float, double or int" */
        used += (size_t)snprintf(names + used, sizeof names - used, "%s%.*s",
                                 used == 0 ? ""
                                 : p[len]  ? ", "
                                           : " or ",
                                 (int)len, p);
    }
    return kl_fail(e, KL_ERR_ARG, "%s takes --type %s, not %s", w->name, names, kl_type_name(t));
}

enum kl_status kl_workload_options_resolve(const struct kl_workload_def *w,
                                           const char *const *items, int n, const char **out,
                                           struct kl_err *e)
{
    int named[KL_WORKLOAD_MAX_OPTIONS] = {0};
    enum kl_status st;
    for (int i = 0; i < KL_WORKLOAD_MAX_OPTIONS; i++)
        out[i] = w->options[i].name ? w->options[i].def : NULL;
    for (int k = 0; k < n; k++) {
        const char *eq = items[k] ? strchr(items[k], '=') : NULL;
        if (!eq)
            return kl_fail(e, KL_ERR_ARG, "%s: option \"%s\" is not NAME=VALUE", w->name,
                           items[k] ? items[k] : "(null)");
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(eq - items[k]), items[k]);
        if ((st = kl_workload_option_check(w, name, eq + 1, e)) != KL_OK)
            return st;
        int i = (int)(option_named(w, name, strlen(name)) - w->options);
        if (named[i]++)
            return kl_fail(e, KL_ERR_ARG, "%s: option %s is given twice", w->name, name);
        out[i] = eq + 1;
    }
    return KL_OK;
}

const char *kl_workload_option(const struct kl_workload_def *w, const struct kl_workload_call *c,
                               const char *name)
{
    const struct kl_workload_option *o = option_named(w, name, strlen(name));
    return o ? c->option[o - w->options] : NULL;
}

void kl_workload_list_rungs(const struct kl_workload_def *w, FILE *out)
{
    const struct kl_rung_table *t = w->rungs();
    fprintf(out, "%s\n", w->heading);
    for (int i = 0; i < t->count; i++) {
        fprintf(out, "  %-*s %s\n", w->width, t->name(i), t->summary(i));
        kl_params_print(t->params(i), w->width, out);
    }
}
