/*
 * kladder command line: a thin layer over the library. Its options are parsed
 * by the tables in cli/options.c (cli/parse.c); here the device is opened and
 * a workload runs its ladder, whose report cli/outputs.c writes; a list of
 * devices goes to cli/fleet_cmd.c, and the commands that open no device to
 * their own files (report, compare, template, completion, devices).
 *
 * Exit codes: 0 all verified; 1 a rung failed verification; 2 bad usage or
 * input; 3 a device, build or runtime error; 4 a launch ran past
 * --kernel-timeout; 130 interrupted (SIGINT, SIGTERM). The last two write
 * the rows measured before the stop, marked "interrupted" in the JSON.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/ladder.h"
#include "cli/cli.h"
#include "cli/devices.h"
#include "cli/exit.h"
#include "cli/fleet_cmd.h"
#include "cli/options.h"
#include "cli/outputs.h"
#include "cli/report_cmd.h"
#include "cli/tune_cmd.h"
#include "core/ceilings.h"
#include "core/context.h"
#include "core/measure.h"
#include "core/progress.h"
#include "core/report.h"
#include "core/stop.h"
#include "core/util.h"
#include "fleet/fleet.h"
#include "fleet/spawn.h"
#include "kladder.h"
#include "multi/coll.h"
#include "multi/links.h"
#include "multi/mgemm.h"
#include "multi/p2p.h"
#include "workloads/copy/copy.h"
#include "workloads/gemm/gemm.h"
#include "workloads/peak/peak.h"
#include "workloads/blur/blur.h"
#include "workloads/gemv/gemv.h"
#include "workloads/registry.h"
#include "workloads/rowdot/rowdot.h"
#include "workloads/soak/soak.h"

/* --list-rungs: the command's ladder from the registry (the main job's is gemm's). */
static void list_rungs(enum command cmd, FILE *out)
{
    const struct kl_workload_def *w = kl_workload_find(kl_cli_command_name(cmd));
    kl_workload_list_rungs(w ? w : kl_workload_find("gemm"), out);
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

/* 1 when a device whose prefix names the backend named (NULL: no prefix, a device of the
 * default backend) belongs to a backend other than backend. */
static int names_other_backend(const char *backend, const char *named)
{
    return named ? strcmp(named, backend) != 0 : strcmp(backend, kl_backends[0]->name) != 0;
}

/* "backend:dev", or dev itself where its prefix names the backend (named). */
static void backend_spec(const char *backend, const char *dev, const char *named, char *spec,
                         size_t n)
{
    if (named)
        snprintf(spec, n, "%s", dev);
    else
        snprintf(spec, n, "%s%s%s", backend, dev && *dev ? ":" : "", dev ? dev : "");
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
        /* The main job shows the device's best: through CUDA where it works (every rung,
         * the Hopper ones included), else on OpenCL's default device. */
        if (!dev && c->command == CMD_MAIN)
            dev = kl_backend_widest();
        snprintf(spec, n, "%s", dev ? dev : "");
        return 0;
    }
    const char *named = spec_backend(dev);
    if (!c->device && dev && names_other_backend(c->backend, named))
        dev = named = NULL; /* the backend's default device */
    else if (named && strcmp(named, c->backend) != 0) {
        fprintf(stderr, "kladder: --backend %s contradicts the device \"%s\"\n", c->backend, dev);
        return EXIT_USAGE;
    }
    backend_spec(c->backend, dev, named, spec, n);
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
    if (c->lock_mhz > 0 && kl_machine_lock_clocks(*kl, c->lock_mhz, err, sizeof err) != KL_OK)
        fprintf(stderr, "kladder: warning: --lock-clocks: %s; the clocks stay free to move\n", err);
    char hint[512];
    if ((*kl)->ops->device_hint && (*kl)->ops->device_hint(hint, sizeof hint))
        fprintf(stderr, "kladder: note: %s\n", hint);
    return 0;
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

/*
 * The main job's GEMM size when none is given: the power of two (256 to 2048)
 * nearest to the size the device's FP32 rate multiplies in about 1 ms (2048
 * on a large GPU, 512 on a CPU), so the ladder's best rungs have work enough
 * to show the device's best while its slowest still finish in seconds. The
 * rate is the cached FP32 roof, else (a first run that measures the roofs
 * while the ladder's kernels build) the specification's. Sets c's sizes and
 * returns why, for the device line; with neither the defaults stay and "" is
 * returned.
 */
static const char *main_job_size(struct kl_context *kl, struct cli *c)
{
    struct kl_ceilings ceil;
    char warn[1024];
    double gflops =
        kl_ceilings_load(&kl->info, kl->ops->name, &ceil, warn, sizeof warn) == 1
            ? ceil.f32_gflops
            : kl_ceiling_spec(kl_ceiling_find("f32_gflops"), &kl->info, warn, sizeof warn);
    if (!(gflops > 0))
        return "";
    double side = cbrt(gflops * 1e9 * 1e-3 / 2); /* 2·N³ FLOP in 1 ms */
    int n = 256;
    while (n < 2048 && log2(side) > log2(n) + 0.5)
        n *= 2;
    c->M = c->N = c->K = n;
    return " (sized for the FP32 roof; --size N chooses)";
}

static enum kl_status gemm_ladder(struct cli *c, struct kl_context *kl, struct outputs *o,
                                  struct kl_report *rep)
{
    struct kl_gemm_request req;
    memset(&req, 0, sizeof req);
    const char *size_why = "";
    if (!c->size_set && !c->mnk_set) {
        /* A size that finishes in well under a minute: larger on a GPU, small on a CPU. */
        c->M = c->N = c->K = (int)kl_default_size("gemm", 0, kl->info.is_gpu);
        if (c->command == CMD_MAIN)
            size_why = main_job_size(kl, c);
    }
    req.M = c->M, req.N = c->N, req.K = c->K;
    req.type = c->type;
    req.seed = c->seed;
    req.protocol = c->protocol;
    req.params = c->params, req.nparams = c->nparams;
    req.rungs = c->rungs, req.nrungs = c->nrungs;
    req.users = users, req.nusers = nusers, req.tuner = c->tuner;
    req.host_rungs = c->host_rungs;
    const char *peer = kl_type_narrow(c->type) ? kl->ops->gemm_peer_narrow : kl->ops->gemm_peer;
    if (c->command == CMD_MAIN && !c->npeers && peer) {
        /* The library beside the ladder (a row says why where cuBLAS is missing). */
        c->peers[c->npeers++] = peer;
        if (c->type == KL_FLOAT && kl->ops->gemm_peer_float)
            c->peers[c->npeers++] = kl->ops->gemm_peer_float;
    }
    req.peers = c->peers, req.npeers = c->npeers;
    if (c->command == CMD_MAIN) {
        /* Part of the table on a terminal; kept out of CSV, JSON and files. */
        FILE *f = o->main == stdout && strcmp(c->format, "table") == 0 ? stdout : stderr;
        if (!kl->ops->one_platform)
            fprintf(f, "kladder: device %d:%d %s (%s)", kl->platform, kl->device, kl->info.name,
                    kl->info.platform);
        else
            fprintf(f, "kladder: device %s:%d %s", kl->ops->name, kl->device, kl->info.name);
        fprintf(f, "; GEMM ladder at %d×%d×%d%s\n\n", c->M, c->N, c->K, size_why);
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

/*
 * A ladder of a workload registered beyond the built-in ones: the request
 * the API would make of these options (its sizes from --size, else its
 * defaults), run through the workload's registry entry.
 */
static enum kl_status added_ladder(struct cli *c, struct kl_context *kl, struct outputs *o,
                                   struct kl_report *rep)
{
    const struct kl_workload_def *w = kl_cli_added_workload(c->command);
    struct kl_ladder_request req = {.workload = w->name,
                                    .type = c->type,
                                    .rungs = c->rungs,
                                    .nrungs = c->nrungs,
                                    .params = c->params,
                                    .nparams = c->nparams,
                                    .peers = c->peers,
                                    .npeers = c->npeers};
    struct kl_workload_call call = {.req = &req,
                                    .seed = c->seed,
                                    .protocol = c->protocol,
                                    .users = users,
                                    .nusers = nusers,
                                    .tuner = c->tuner};
    enum kl_status st;
    (void)o;
    req.options = c->wopts, req.noptions = c->nwopts;
    if (c->nsizes && c->nsizes != w->dims)
        return kl_fail(&kl->err, KL_ERR_ARG, "%s takes %d size%s with --size (got %d)", w->name,
                       w->dims, w->dims == 1 ? "" : "s", c->nsizes);
    if (c->npeers && !w->peers)
        return kl_fail(&kl->err, KL_ERR_ARG, "%s runs no vendor library beside it (--compare)",
                       w->name);
    if ((st = kl_workload_type(w, c->type_set, c->type, &req.type, &kl->err)) != KL_OK)
        return st;
    if ((st = kl_workload_options_resolve(w, c->wopts, c->nwopts, call.option, &kl->err)) != KL_OK)
        return st;
    for (int i = 0; i < w->dims; i++)
        call.size[i] =
            (int)(c->nsizes ? c->sizes[i] : kl_default_size(w->name, i, kl->info.is_gpu));
    return w->run(kl, &call, rep);
}

/*
 * The main job on a device with no ceilings cached (a first run): measures
 * them by the brief search (seconds: the figures its report uses, from the
 * configurations the full search usually picks, each the best of three runs)
 * and caches them, so the report's roofline and % roof are filled, and says
 * so (f: the table's stream): a line before, where no progress line shows,
 * and one after.
 */
struct first_run {
    struct kl_context *kl;
    enum kl_type type; /* the ladder's: FP64's or INT32's roof measured too where it needs it */
    FILE *f;
};

static void first_ceilings(void *arg)
{
    const struct first_run *r = arg;
    struct kl_context *kl = r->kl;
    struct kl_ceilings ceil;
    struct kl_peak_request req;
    struct kl_report rep;
    struct kl_err e;
    char path[4096];
    memset(&req, 0, sizeof req);
    memset(&rep, 0, sizeof rep);
    kl_protocol_default(&req.protocol);
    req.seed = 1;
    req.brief = 1;
    req.brief_type = r->type;
    if (!isatty(STDERR_FILENO)) { /* a terminal shows the progress line instead */
        fprintf(r->f, "kladder: first run on this device: measuring its ceilings by the brief "
                      "search (seconds)\n");
        fflush(r->f);
    }
    double t0 = kl_now();
    enum kl_status st = kl_peak_measure(kl, &req, &rep, &ceil);
    kl_progress_done();
    kl_ceilings_path(&kl->info, kl->ops->name, path, sizeof path);
    char copy[32], fp32[32];
    kl_rate_text(ceil.copy_gbps, "GB/s", copy, sizeof copy);
    kl_rate_text(ceil.f32_gflops, "GFLOP/s", fp32, sizeof fp32);
    if (st == KL_OK && !kl_report_failed(&rep) &&
        kl_ceilings_save(&kl->info, kl->ops->name, &ceil, &e) == KL_OK)
        fprintf(r->f,
                "kladder: first run on this device: measured its ceilings in %.0f s (copy %s, "
                "FP32 %s; `kladder peak` measures every figure) and cached them in %s\n",
                kl_now() - t0, copy, fp32, path);
    else if (st != KL_ERR_INTERRUPTED)
        fprintf(r->f,
                "kladder: note: the device's ceilings could not be measured (%s); `kladder "
                "peak` says why\n",
                st != KL_OK ? kl_last_error(kl) : "a row failed");
    fflush(r->f);
    kl_report_free(&rep);
}

/*
 * The main job's first run on a device (no ceilings cached): where the
 * backend builds kernels on the host's cores beside a GPU and the FP32
 * specification sizes the ladder, the brief search runs on the GPU while
 * the ladder's kernels build (kl_kernel_beside); else now, before the ladder,
 * which is then sized by what it measured.
 */
static void first_run(struct kl_context *kl, enum kl_type type, FILE *f)
{
    static struct first_run r;
    struct kl_ceilings ceil;
    char warn[1024];
    if (kl_ceilings_load(&kl->info, kl->ops->name, &ceil, warn, sizeof warn) == 1)
        return;
    r = (struct first_run){kl, type, f};
    if (kl->info.is_gpu && kl->ops->parallel_builds && kl->ops->parallel_builds(kl->dev) &&
        kl_ceiling_spec(kl_ceiling_find("f32_gflops"), &kl->info, warn, sizeof warn) > 0 &&
        kl_kernel_beside(kl, first_ceilings, &r) == KL_OK)
        return;
    first_ceilings(&r);
}

/* Opens the device, runs one ladder and prints its report. */
static int run_ladder(struct cli *c, struct outputs *o, ladder_fn fn)
{
    struct kl_context *kl = NULL;
    struct kl_report rep;
    int rc = open_device(c, &kl);
    if (rc) {
        kl_cli_outputs_abort(o); /* opened for a run that never started */
        return rc;
    }
    memset(&rep, 0, sizeof rep);
    kl_cli_watch_run(c, &rep, o);
    if (c->command == CMD_MAIN)
        first_run(kl, c->type,
                  o->main == stdout && strcmp(c->format, "table") == 0 ? stdout : stderr);
    return kl_cli_finish(c, kl, fn(c, kl, o, &rep), &rep, o);
}

/*
 * The CUDA devices of --device for the commands that drive several devices
 * from one process (mgemm, peak --p2p): a list, one device, or by default
 * every CUDA device. 0 with their indices (at most KL_FLEET_MAX), or an exit
 * code having said why and dropped the outputs o.
 */
static int cuda_devices(const struct cli *c, struct outputs *o, int *dev, int *n)
{
    char spec[512], list[600], specs[KL_FLEET_MAX][KL_FLEET_SPEC];
    struct kl_err e;
    int rc = device_spec(c, spec, sizeof spec);
    if (rc) {
        kl_cli_outputs_abort(o);
        return rc;
    }
    /* CUDA's devices only: "all", "cuda:all", "cuda:0", or indices such as "0,1". */
    int cuda = strncmp(spec, "cuda", 4) == 0 || !spec[0] || strcmp(spec, "all") == 0 ||
               strspn(spec, "0123456789,") == strlen(spec);
    if (!cuda) {
        fprintf(stderr,
                "kladder: %s runs on CUDA devices (--device cuda:all, or a list such as "
                "0,1), not %s\n",
                c->command == CMD_MGEMM ? "mgemm" : "peak --p2p", spec);
        kl_cli_outputs_abort(o);
        return EXIT_USAGE;
    }
    snprintf(list, sizeof list, "%s%s",
             strncmp(spec, "cuda", 4) == 0 ? "" : "cuda:", spec[0] ? spec : "all");
    enum kl_status st = kl_fleet_expand(list, specs, KL_FLEET_MAX, n, &e);
    if (st != KL_OK) {
        fprintf(stderr, "kladder: --device %s: %s\n", list, e.msg);
        kl_cli_outputs_abort(o);
        return kl_exit_for(st == KL_ERR_NO_DEVICE ? KL_ERR_ARG : st);
    }
    for (int i = 0; i < *n; i++)
        dev[i] = atoi(specs[i] + 5); /* "cuda:N" */
    return 0;
}

/* kladder peak --p2p: the links between the CUDA devices of --device. */
static int run_p2p(struct cli *c, struct outputs *o)
{
    struct kl_p2p_request req;
    struct kl_report rep;
    struct kl_err e;
    int dev[KL_FLEET_MAX], n = 0, rc = cuda_devices(c, o, dev, &n);
    if (rc)
        return rc;
    memset(&req, 0, sizeof req);
    req.devices = dev, req.ndevices = n;
    req.bytes = (size_t)c->bytes;
    req.protocol = c->protocol;
    req.ranks = kl_ranks; /* kladder-mpi's, where it runs this rank */
    memset(&rep, 0, sizeof rep);
    memset(&e, 0, sizeof e);
    kl_cli_watch_run(c, &rep, o);
    enum kl_status st = kl_p2p_measure(&req, &rep, &e);
    if (rep.count > 0 && strcmp(c->format, "table") == 0)
        kl_p2p_matrices(&rep, kl_ranks ? kl_ranks->size : n, o->main);
    return kl_cli_report_end(c, st, e.msg, &rep, o);
}

/* --brief, --quick and --wide are three searches: at most one. */
static int one_search(const struct cli *c, struct outputs *o)
{
    if (c->brief + c->quick + c->wide <= 1)
        return 0;
    fprintf(stderr, "kladder: peak: --brief, --quick and --wide are different searches: "
                    "choose one\n");
    kl_cli_outputs_abort(o);
    return EXIT_USAGE;
}

/*
 * The cached ceilings (path) when they answer `kladder peak`: 1 when a plain
 * `kladder peak` finds full ones (options that shape a measurement ask for
 * one); either way a damaged cache is reported.
 */
static int cache_answers(const struct cli *c, struct kl_context *kl, struct kl_ceilings *ceil)
{
    char warn[1024];
    int got = kl_ceilings_load(&kl->info, kl->ops->name, ceil, warn, sizeof warn);
    if (got < 0)
        fprintf(stderr, "kladder: warning: %s\n", warn);
    if (got == 1 && kl_ceilings_brief(ceil) && !c->peak_measure) {
        fprintf(stderr, "kladder: the cached ceilings (%s) come from %s; measuring every figure\n",
                ceil->date, KL_CEILINGS_BRIEF);
        return 0;
    }
    return got == 1 && !c->refresh && !c->peak_measure && !c->protocol_set;
}

/* The cached ceilings in the chosen format (and --json); closes kl and the outputs. */
static int print_cached(const struct cli *c, struct kl_context *kl, const struct kl_ceilings *ceil,
                        const char *path, struct outputs *o)
{
    int fmt = strcmp(c->format, "json") == 0 ? 1 : strcmp(c->format, "csv") == 0 ? 2 : 0;
    kl_ceilings_print(ceil, &kl->info, fmt, o->main);
    if (fmt == 0)
        fprintf(o->main, "\n(cached in %s; --refresh measures again)\n", path);
    if (o->json)
        kl_ceilings_print(ceil, &kl->info, 1, o->json);
    int rc = fflush(o->main) != 0 || ferror(o->main) ? EXIT_RUNTIME : 0;
    kl_close(kl);
    return kl_cli_outputs_close(o, 1, 0) ? EXIT_RUNTIME : rc;
}

/* A full search that verified is cached (path), and the table says where. */
static void cache_measured(const struct cli *c, struct kl_context *kl,
                           const struct kl_ceilings *ceil, const char *path, struct kl_report *rep)
{
    struct kl_err e;
    if (c->quick || kl_report_failed(rep))
        return;
    if (kl_ceilings_save(&kl->info, kl->ops->name, ceil, &e) != KL_OK)
        fprintf(stderr, "kladder: warning: ceilings not cached: %s\n", e.msg);
    else if (strcmp(c->format, "table") == 0)
        snprintf(rep->ceiling_note, sizeof rep->ceiling_note, "cached in %.700s", path);
}

static int run_peak(struct cli *c, struct outputs *o)
{
    struct kl_context *kl = NULL;
    struct kl_report rep;
    struct kl_peak_request req;
    struct kl_ceilings ceil;
    char path[4096];
    int rc = one_search(c, o);
    if (rc)
        return rc;
    if ((rc = open_device(c, &kl)) != 0) {
        kl_cli_outputs_abort(o);
        return rc;
    }
    kl_ceilings_path(&kl->info, kl->ops->name, path, sizeof path);
    if (!c->transfers && cache_answers(c, kl, &ceil))
        return print_cached(c, kl, &ceil, path, o);
    memset(&req, 0, sizeof req);
    req.bytes = (size_t)c->bytes;
    req.quick = c->quick;
    req.brief = c->brief;
    req.brief_type = c->type;
    req.wide = c->wide;
    req.vec_mask = c->vec_mask;
    req.transfers = c->transfers;
    req.protocol = c->protocol;
    req.seed = c->seed;
    memset(&rep, 0, sizeof rep);
    kl_cli_watch_run(c, &rep, o);
    enum kl_status st = kl_peak_measure(kl, &req, &rep, &ceil);
    if (st == KL_OK && !c->transfers)
        cache_measured(c, kl, &ceil, path, &rep);
    return kl_cli_finish(c, kl, st, &rep, o);
}

/*
 * peak --collectives: between ranks, so only under kladder-mpi, which supplies the transport
 * (multi/coll.h). Every rank runs this; the others' outputs are muted by kladder-mpi.
 */
static int run_collectives(struct cli *c, struct outputs *o)
{
    struct kl_context *kl = NULL;
    struct kl_coll_transport t;
    struct kl_report rep;
    struct kl_err e;
    if (!kl_coll_transport_open) {
        fprintf(stderr, "kladder: peak --collectives measures collectives between ranks, one a "
                        "GPU: run it as mpirun -n N kladder-mpi peak --collectives\n");
        kl_cli_outputs_abort(o);
        return EXIT_USAGE;
    }
    int rc = open_device(c, &kl); /* a rank without its device still tells the others */
    memset(&t, 0, sizeof t);
    memset(&rep, 0, sizeof rep);
    memset(&e, 0, sizeof e);
    enum kl_status st = kl_coll_transport_open(kl, &t, &e);
    if (rc) {
        kl_cli_outputs_abort(o);
        return rc;
    }
    if (st == KL_OK) {
        struct kl_coll_request req = {KL_COLL_MIN_BYTES, (size_t)c->bytes, 0, 0};
        char where[2048] = "", device[300];
        if (kl_ranks) { /* (every rank: the transport opened on all of them) */
            snprintf(device, sizeof device, "%.100s (%.160s)", c->device ? c->device : "",
                     kl->info.name);
            kl_links_ranks_note(kl_ranks, device, kl->info.pci_bus_id, where, sizeof where);
        }
        if (!c->bytes)
            req.max_bytes = t.host_memory ? KL_COLL_HOST_MAX_BYTES : KL_COLL_MAX_BYTES;
        req.repeats = c->protocol.min_repeats > 64 ? 64 : c->protocol.min_repeats;
        kl_cli_watch_run(c, &rep, o);
        st = kl_coll_measure(kl, &req, &t, &rep, &e);
        size_t used = strlen(rep.ceiling_note);
        if (where[0])
            snprintf(rep.ceiling_note + used, sizeof rep.ceiling_note - used, "%s%s",
                     used ? "; " : "", where);
        t.close(t.self);
    }
    rc = kl_cli_report_end(c, st, e.msg, &rep, o);
    kl_close(kl);
    return rc;
}

/* kladder mgemm: the multi-GPU GEMM ladder over the CUDA devices of --device. */
static int run_mgemm(struct cli *c, struct outputs *o)
{
    struct kl_mgemm_request req;
    struct kl_report rep;
    struct kl_err e;
    int dev[KL_FLEET_MAX], n = 0, rc = cuda_devices(c, o, dev, &n);
    if (rc)
        return rc;
    memset(&req, 0, sizeof req);
    req.devices = dev, req.ndevices = n;
    if (!c->size_set && !c->mnk_set)
        c->M = c->N = c->K = 8192;
    req.M = c->M, req.N = c->N, req.K = c->K;
    req.seed = c->seed;
    req.protocol = c->protocol;
    req.rungs = c->nrungs ? c->rungs : NULL, req.nrungs = c->nrungs;
    req.local = c->local;
    req.kb = c->panel;
    req.peers = c->peers, req.npeers = c->npeers;
    req.ranks = kl_ranks; /* kladder-mpi's, where it runs this rank */
    memset(&rep, 0, sizeof rep);
    memset(&e, 0, sizeof e);
    kl_cli_watch_run(c, &rep, o);
    enum kl_status st = kl_mgemm_ladder(&req, &rep, &e);
    return kl_cli_report_end(c, st, e.msg, &rep, o);
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
    kl_watchdog_set(c->kernel_timeout, kl_cli_on_runaway); /* no report: says so, and exits */
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

/* kladder soak: one GEMM rung and the copy's ilp4 in turn, for --time (workloads/soak/soak.h). */
static enum kl_status soak_ladder(struct cli *c, struct kl_context *kl, struct outputs *o,
                                  struct kl_report *rep)
{
    static const char *const copy_rung[] = {"ilp4"};
    const char *gemm_rung[] = {c->nrungs ? c->rungs[0] : "10_tiled"};
    struct kl_soak_request req;
    (void)o;
    if (c->nrungs > 1)
        return kl_fail(&kl->err, KL_ERR_ARG, "soak runs one GEMM rung (--rung R), not %d",
                       c->nrungs);
    memset(&req, 0, sizeof req);
    req.seconds = c->soak_time > 0 ? c->soak_time : 60;
    if (!c->size_set && !c->mnk_set)
        c->M = c->N = c->K = kl->info.is_gpu ? 2048 : 128;
    req.gemm.M = c->M, req.gemm.N = c->N, req.gemm.K = c->K;
    req.gemm.type = c->type;
    req.gemm.seed = req.copy.seed = c->seed;
    req.gemm.protocol = req.copy.protocol = c->protocol;
    req.gemm.params = c->params, req.gemm.nparams = c->nparams;
    req.gemm.rungs = gemm_rung, req.gemm.nrungs = 1;
    req.gemm.users = users, req.gemm.nusers = nusers;
    req.gemm.host_rungs = -1;
    req.copy.n = c->copy_n ? c->copy_n : kl->info.is_gpu ? 1L << 26 : 1L << 20;
    req.copy.rungs = copy_rung, req.copy.nrungs = 1;
    return kl_soak(kl, &req, rep);
}

static ladder_fn ladder_of(enum command cmd)
{
    switch (cmd) {
    case CMD_SOAK: return soak_ladder;
    case CMD_COPY: return copy_ladder;
    case CMD_ROWDOT: return rowdot_ladder;
    case CMD_GEMV: return gemv_ladder;
    case CMD_BLUR: return blur_ladder;
    default: return cmd >= CMD_ADDED ? added_ladder : gemm_ladder;
    }
}

/*
 * kladder tune WORKLOAD --kernel FILE, or --rung R for a ladder other than gemm: the workload's
 * ladder of the user's kernel, or of its rung R, with the tuner searching that rung's values.
 */
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
    /* The user's kernels as the rungs; else the one --rung, of the workload's table. */
    if (nusers) {
        for (int k = 0; k < nusers; k++)
            c->rungs[k] = users[k].name;
        c->nrungs = nusers;
    }
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
    if (kl_stop_requested() || kl_stop_held()) {
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

static void typed_free(char **typed)
{
    for (int i = 0; typed && typed[i]; i++)
        free(typed[i]);
    free(typed);
}

/* argv as typed: the parser splits some values in place, and a fleet's members get the rest. */
static char **typed_copy(int argc, char **argv)
{
    char **copy = calloc((size_t)argc + 1, sizeof *copy);
    for (int i = 0; copy && i < argc; i++)
        if (!(copy[i] = kl_strdup(argv[i]))) {
            typed_free(copy);
            return NULL;
        }
    return copy;
}

/* kladder devices: every platform's devices, as a table or JSON. */
static int run_devices(const struct cli *c)
{
    return kl_cli_devices(stdout, stderr, strcmp(c->format, "json") == 0);
}

/* kladder completion bash|zsh (the parser checked the shell). */
static int run_completion(const struct cli *c)
{
    return kl_cli_completion(c->operands[0], stdout) == 0 ? EXIT_OK : EXIT_USAGE;
}

/* The commands that open no device: they list devices, read saved runs or print text. */
static const struct {
    enum command cmd;
    int (*run)(const struct cli *c);
} deviceless[] = {
    {CMD_DEVICES, run_devices},       {CMD_REPORT, kl_cli_report},
    {CMD_COMPARE, kl_cli_compare},    {CMD_TEMPLATE, kl_cli_template},
    {CMD_COMPLETION, run_completion}, {CMD_ARTICLE, kl_cli_article},
};

/* A command on one device, its outputs o open: the tuner, mgemm, peak or a ladder. */
static int run_command(struct cli *c, struct outputs *o)
{
    switch (c->command) {
    case CMD_TUNE: return run_tune_users(c, o);
    case CMD_MGEMM: return run_mgemm(c, o);
    case CMD_PEAK:
        return c->p2p ? run_p2p(c, o) : c->collectives ? run_collectives(c, o) : run_peak(c, o);
    default: return run_ladder(c, o, ladder_of(c->command));
    }
}

/* A command that measures: on a list of devices a fleet, else on the device it names. */
static int run_measurement(struct cli *c, int argc, char **typed)
{
    struct outputs o;
    char spec[512];
    int rc;
    catch_signals();
    if ((rc = device_spec(c, spec, sizeof spec)) != 0)
        return rc;
    /* Several devices: each runs the command in a process of its own (cli/fleet_cmd.c);
     * mgemm and peak --p2p drive their devices from one process; peak --collectives is
     * kladder-mpi's, one rank a device. */
    int one_process =
        c->command == CMD_MGEMM || (c->command == CMD_PEAK && (c->p2p || c->collectives));
    if (c->article && kl_fleet_is_list(spec)) {
        fprintf(stderr, "kladder: an article is of one device's run: give one device, or write "
                        "each device's run with --json and its article with kladder article "
                        "RUN.json\n");
        return EXIT_USAGE;
    }
    if (kl_fleet_is_list(spec) && !kl_fleet_is_member() && !one_process)
        return (rc = kl_cli_outputs_open(c, &o)) != 0 ? rc : kl_cli_fleet(c, &o, spec, argc, typed);
    /* tune: gemm's own tuner (and --show, --clear), else the ladder's (--kernel, --rung) */
    if (c->command == CMD_TUNE && !c->nkernels && (c->tuned == CMD_GEMM || !c->nrungs))
        return run_tune(c);
    if ((rc = load_users(c)) != 0 || (rc = kl_cli_outputs_open(c, &o)) != 0)
        return rc;
    return run_command(c, &o);
}

/*
 * kladder article WORKLOAD [OPTIONS]: the ladder's run, its article written
 * where article's --output says (as the ladder's --article does). 0, or an
 * exit code; a run's file (article RUN.json) is left to kl_cli_article.
 */
static int article_of_ladder(struct cli *c)
{
    if (!c->tuned)
        return 0;
    if (c->noperands) {
        fprintf(stderr, "kladder: article %s runs the ladder: it takes no run's file (got %s)\n"
                        "(kladder help article lists the options)\n",
                c->workload, c->operands[0]);
        return EXIT_USAGE;
    }
    if (!c->article)
        c->article = c->article_format && strcmp(c->article_format, "md") == 0
                         ? "kladder-article"
                         : "kladder-article.html";
    c->command = c->tuned;
    c->tuned = 0;
    return 0;
}

/* --version or -V anywhere, whatever the command. */
static int asks_version(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--version") == 0 || strcmp(argv[i], "-V") == 0)
            return 1;
    return 0;
}

/* The command line, with typed: argv as typed (for a fleet's members). */
static int run_cli(int argc, char **argv, char **typed)
{
    struct cli c;
    int done;
    if (asks_version(argc, argv))
        return printf("kladder %s\n", KLADDER_VERSION) < 0 ? EXIT_RUNTIME : EXIT_OK;
    int rc = kl_cli_parse(argc, argv, &c, &done);
    if (rc || done)
        return rc;
    kl_progress_init(c.quiet);
    if (c.list_rungs) {
        list_rungs(c.command, stdout);
        return 0;
    }
    if (c.command == CMD_ARTICLE && (rc = article_of_ladder(&c)) != 0)
        return rc;
    for (size_t k = 0; k < sizeof deviceless / sizeof *deviceless; k++)
        if (deviceless[k].cmd == c.command)
            return deviceless[k].run(&c);
    return run_measurement(&c, argc, typed);
}

int kl_cli_main(int argc, char **argv)
{
    char **typed = typed_copy(argc, argv);
    if (!typed) {
        fprintf(stderr, "kladder: out of memory\n");
        return EXIT_RUNTIME;
    }
    int rc = run_cli(argc, argv, typed);
    typed_free(typed);
    return rc;
}
