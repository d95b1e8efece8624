/* Unit tests of the pieces every number depends on: statistics, the timing
 * protocol, tolerances and comparison, option parsing, rung lookup, the
 * workload registry. */
#define _POSIX_C_SOURCE 200809L /* open_memstream, mkdtemp, setenv */
#include <float.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/ladder.h"
#include "check.h"
#include "cli/args.h"
#include "core/ceilings.h"
#include "core/context.h"
#include "core/ladder.h"
#include "core/machine.h"
#include "core/measure.h"
#include "core/report.h"
#include "core/shift.h"
#include "core/util.h"
#include "core/verify.h"
#include "peers/peers.h"
#include "tune/cache.h"
#include "tune/tune.h"
#include "article/sources.h"
#include "workloads/blur/blur.h"
#include "workloads/blur/bound.h"
#include "workloads/gemm/gemm.h"
#include "workloads/gemm/parts.h"
#include "workloads/registry.h"

static void test_stats(void)
{
    double odd[] = {5, 1, 3};
    double even[] = {4, 1, 3, 2};
    struct kl_stats s;
    kl_stats_compute(odd, 3, &s);
    CHECK(s.n == 3 && s.median == 3 && s.min == 1 && s.max == 5 && s.mean == 3, "odd stats");
    kl_stats_compute(even, 4, &s);
    CHECK(s.median == 2.5 && s.min == 1 && s.max == 4 && s.mean == 2.5, "even median %g", s.median);
    kl_stats_compute(even, 0, &s);
    CHECK(s.n == 0 && s.median == 0, "empty stats");
}

struct fake {
    int calls;
    double each;
};

static enum kl_status fake_launch(void *arg, double *seconds, struct kl_err *e)
{
    struct fake *f = arg;
    (void)e;
    f->calls++;
    *seconds = f->each;
    return KL_OK;
}

/* Launch k (from 0) takes 1 + (k * 7) % 5 ms: out of order, so sorting would show. */
static enum kl_status varied_launch(void *arg, double *seconds, struct kl_err *e)
{
    struct fake *f = arg;
    (void)e;
    *seconds = 1e-3 * (1 + (f->calls++ * 7) % 5);
    return KL_OK;
}

/* Launch k takes 1 ms times a lognormal factor of spread f->each (a fixed generator). */
static enum kl_status noisy_launch(void *arg, double *seconds, struct kl_err *e)
{
    struct fake *f = arg;
    unsigned long long x = 0x9E3779B97F4A7C15ull * (unsigned long long)(++f->calls);
    double u[2];
    (void)e;
    for (int k = 0; k < 2; k++) {
        x = (x ^ (x >> 31)) * 0xBF58476D1CE4E5B9ull + 0x94D049BB133111EBull;
        u[k] = ((double)(x >> 11) + 0.5) / 9007199254740992.0;
    }
    *seconds = 1e-3 * exp(f->each * sqrt(-2 * log(u[0])) * cos(6.283185307179586 * u[1]));
    return KL_OK;
}

static enum kl_status failing_launch(void *arg, double *seconds, struct kl_err *e)
{
    (void)arg;
    *seconds = 0;
    return kl_fail(e, KL_ERR_BACKEND, "launch broke");
}

static void test_protocol(void)
{
    struct kl_protocol p;
    struct kl_stats s;
    struct kl_err e;
    struct fake f = {0, 0.01};

    kl_protocol_default(&p);
    CHECK(p.warmup >= 1 && p.min_repeats >= 1 && p.min_time > 0, "defaults");
    /* Count-bound: 5 repeats of 10 ms reach 0.05 s >= min_time 0. */
    p = (struct kl_protocol){.warmup = 2, .min_repeats = 5, .min_time = 0.0, .max_repeats = 100};
    CHECK(kl_measure(NULL, &p, fake_launch, &f, &s, &e) == KL_OK, "measure: %s", e.msg);
    CHECK(f.calls == 7 && s.n == 5 && s.median == 0.01, "count-bound: %d calls, %d samples",
          f.calls, s.n);
    /* Time-bound: 0.1 s needs 10 launches of 10 ms (with float rounding, 10 or 11). */
    f.calls = 0;
    p = (struct kl_protocol){.warmup = 0, .min_repeats = 3, .min_time = 0.1, .max_repeats = 1000};
    kl_measure(NULL, &p, fake_launch, &f, &s, &e);
    CHECK(s.n >= 10 && s.n <= 11, "time-bound: %d samples", s.n);
    /* Capped by max_repeats even if min_time is not reached. */
    f.calls = 0;
    p = (struct kl_protocol){.warmup = 0, .min_repeats = 3, .min_time = 100.0, .max_repeats = 40};
    kl_measure(NULL, &p, fake_launch, &f, &s, &e);
    CHECK(s.n == 40, "capped: %d samples", s.n);
    /* Invalid protocols and failing launches are errors, not numbers. */
    p = (struct kl_protocol){.warmup = -1, .min_repeats = 3, .min_time = 0.0, .max_repeats = 40};
    CHECK(kl_measure(NULL, &p, fake_launch, &f, &s, &e) == KL_ERR_ARG, "negative warm-up");
    p = (struct kl_protocol){.warmup = 0, .min_repeats = 0, .min_time = 0.0, .max_repeats = 40};
    CHECK(kl_protocol_check(&p, &e) == KL_ERR_ARG, "zero repeats");
    p = (struct kl_protocol){.warmup = 0, .min_repeats = 10, .min_time = 0.0, .max_repeats = 5};
    CHECK(kl_protocol_check(&p, &e) == KL_ERR_ARG, "max below min");
    p = (struct kl_protocol){.warmup = 0, .min_repeats = 1, .min_time = 0.0, .max_repeats = 1};
    CHECK(kl_measure(NULL, &p, failing_launch, NULL, &s, &e) == KL_ERR_BACKEND &&
              strstr(e.msg, "launch broke"),
          "failing launch propagates");
    /* Every timed launch's time is kept in launch order, the warm-ups left out. */
    f.calls = 0;
    p = (struct kl_protocol){.warmup = 2, .min_repeats = 9, .min_time = 0.0, .max_repeats = 9};
    const double *samples;
    CHECK(kl_measure(NULL, &p, varied_launch, &f, &s, &e) == KL_OK && s.n == 9 &&
              kl_measure_last(&samples, NULL) == 9,
          "samples kept");
    for (int k = 0; k < 9 && s.n == 9; k++)
        CHECK(samples[k] == 1e-3 * (1 + ((k + 2) * 7) % 5), "sample %d in launch order: %g", k,
              samples[k]);
    kl_measure_forget();
    CHECK(kl_measure_last(&samples, NULL) == 0, "forgotten");
    /* The median's noise: 1..5 has median 3 and MAD 1. */
    static const double five[] = {5, 1, 4, 2, 3};
    double want = 1.2533 * 1.4826 / (3 * sqrt(5.0));
    CHECK(fabs(kl_median_noise(five, 5) - want) < 1e-12 && isnan(kl_median_noise(five, 1)),
          "median noise of 1..5: %.6g, want %.6g", kl_median_noise(five, 5), want);
    /*
     * A noise target: with 10 % spread (1.4826 MAD about 0.1), 1 % needs about
     * (1.2533 * 0.1 / 0.01)^2 = 157 launches, so the protocol goes past its 5 and stops once
     * the noise is reached; 0.01 % is out of reach, and the time limit ends it, short of it.
     */
    f.calls = 0;
    f.each = 0.1;
    p = (struct kl_protocol){.warmup = 0, .min_repeats = 5, .max_repeats = 100000, .noise = 0.01};
    CHECK(kl_measure(NULL, &p, noisy_launch, &f, &s, &e) == KL_OK && s.noise_met == 1 &&
              s.noise <= 0.01 && s.n >= 80 && s.n <= 320,
          "noise target reached: %d launches, noise %.4g", s.n, s.noise);
    f.calls = 0;
    p = (struct kl_protocol){
        .warmup = 0, .min_repeats = 5, .max_repeats = 100000, .noise = 1e-4, .max_time = 0.05};
    CHECK(kl_measure(NULL, &p, noisy_launch, &f, &s, &e) == KL_OK && s.noise_met == 0 &&
              s.noise > 1e-4 && s.n >= 40 && s.n <= 70,
          "noise target out of reach, stopped by the time: %d launches, noise %.4g", s.n, s.noise);
    p = (struct kl_protocol){.warmup = 0, .min_repeats = 3, .max_repeats = 3};
    CHECK(kl_measure(NULL, &p, noisy_launch, &f, &s, &e) == KL_OK && s.noise_met == -1 &&
              s.n == 3 && s.noise > 0,
          "no target: the fixed protocol, the noise still measured");
    p.noise = -0.1;
    CHECK(kl_protocol_check(&p, &e) == KL_ERR_ARG, "a negative noise target");
    p.noise = 0.01;
    p.max_time = -1;
    CHECK(kl_protocol_check(&p, &e) == KL_ERR_ARG, "a negative time limit");
    /* Timed on the host: no kernels of kladder's, no NVML, and says so. */
    CHECK(s.machine.nkernels == 0 && s.machine.samples == 0 && s.machine.joules < 0 &&
              strstr(s.machine.res_why, "host") && strstr(s.machine.why, "host"),
          "host timing explained: \"%s\" / \"%s\"", s.machine.res_why, s.machine.why);
}

/* The SM clock after launch f->calls: 2000 MHz, but 1000 after launches 3 to 5 (low_from 3);
 * always 1000 with low_from 0. */
struct fake_clock {
    struct fake *launches;
    int low_from;
};

static double fake_mhz(void *arg)
{
    const struct fake_clock *c = arg;
    int k = c->launches->calls;
    return c->low_from && (k < c->low_from || k > c->low_from + 2) ? 2000 : 1000;
}

/* Launches that alternate 1 ms at 2000 MHz and 2 ms at 1000 MHz: the same cycles each. */
static enum kl_status halving_launch(void *arg, double *seconds, struct kl_err *e)
{
    struct fake *f = arg;
    (void)e;
    *seconds = ++f->calls % 2 ? 1e-3 : 2e-3;
    return KL_OK;
}

static double halving_mhz(void *arg)
{
    return ((const struct fake *)arg)->calls % 2 ? 2000 : 1000;
}

/*
 * The clock beside every launch (--min-clock): launches after which the clock is under the
 * threshold are taken again until KL_RETAKE_MAX have been, then kept and counted; the row's
 * cycles are each launch's time by its clock.
 */
static void test_clocks(void)
{
    struct fake f = {0, 1e-3};
    struct fake_clock fc = {&f, 3};
    struct kl_clock_source clock = {fake_mhz, 2000, &fc};
    struct kl_protocol p = {.warmup = 1, .min_repeats = 10, .max_repeats = 100, .min_clock = 0.75};
    struct kl_stats s;
    struct kl_err e;
    const double *samples, *clocks = NULL;
    CHECK(kl_measure_clocked(NULL, &p, fake_launch, &f, &clock, &s, &e) == KL_OK && s.n == 10 &&
              f.calls == 14 && s.machine.retaken == 3 && s.machine.low_kept == 0,
          "three low launches taken again: %d samples, %d calls, %d re-taken, %d kept", s.n,
          f.calls, s.machine.retaken, s.machine.low_kept);
    CHECK(fabs(s.machine.cycles - 1e-3 * 2000e6) < 1, "cycles %g, want 2e6", s.machine.cycles);
    CHECK(kl_measure_last(&samples, NULL) == 10 && (clocks = kl_measure_last_clocks()) &&
              clocks[0] == 2000 && clocks[9] == 2000,
          "the clocks beside the samples");
    /* Without --min-clock nothing is taken again: the low launches stay, their cycles too. */
    f.calls = 0;
    p.min_clock = 0;
    CHECK(kl_measure_clocked(NULL, &p, fake_launch, &f, &clock, &s, &e) == KL_OK && s.n == 10 &&
              f.calls == 11 && s.machine.retaken == 0,
          "no filter: %d samples, %d re-taken", s.n, s.machine.retaken);
    CHECK(kl_measure_last(&samples, NULL) == 10 && (clocks = kl_measure_last_clocks()) &&
              clocks[2] == 1000 && clocks[5] == 2000,
          "low clocks kept in their places: %g %g", clocks ? clocks[2] : -1,
          clocks ? clocks[5] : -1);
    /* A clock that never recovers: KL_RETAKE_MAX re-takes, then every launch kept and counted. */
    f.calls = 0;
    fc.low_from = 0;
    p.min_clock = 0.75;
    p.min_repeats = p.max_repeats = 4;
    CHECK(kl_measure_clocked(NULL, &p, fake_launch, &f, &clock, &s, &e) == KL_OK && s.n == 4 &&
              s.machine.retaken == KL_RETAKE_MAX && s.machine.low_kept == 4,
          "gave up: %d re-taken, %d kept low", s.machine.retaken, s.machine.low_kept);
    /* Launches without a clock: no cycles, nothing taken again, no clocks kept. */
    f.calls = 0;
    CHECK(kl_measure(NULL, &p, fake_launch, &f, &s, &e) == KL_OK && s.machine.cycles == 0 &&
              s.machine.retaken == 0 && !kl_measure_last_clocks(),
          "no clock: cycles %g", s.machine.cycles);
    /* Each launch counted at its own clock: twice the time at half the clock is the same work. */
    f.calls = 0;
    struct kl_clock_source halving = {halving_mhz, 2000, &f};
    p = (struct kl_protocol){.warmup = 0, .min_repeats = 10, .max_repeats = 10};
    CHECK(kl_measure_clocked(NULL, &p, halving_launch, &f, &halving, &s, &e) == KL_OK &&
              fabs(s.machine.cycles - 2e6) < 1,
          "cycles %g of launches alternating 1 ms at 2 GHz and 2 ms at 1 GHz, want 2e6",
          s.machine.cycles);
    p.min_clock = 1.5;
    CHECK(kl_protocol_check(&p, &e) == KL_ERR_ARG, "a minimum clock above 100 %%");
    p.min_clock = 0;
    p.cooldown = -1;
    CHECK(kl_protocol_check(&p, &e) == KL_ERR_ARG, "a negative cool-down");
}

static void test_tolerance(void)
{
    CHECK(kl_dot_tolerance(KL_INT, 1000) == 0.0, "int is exact");
    double f1 = kl_dot_tolerance(KL_FLOAT, 1), f100 = kl_dot_tolerance(KL_FLOAT, 100);
    CHECK(fabs(f100 / f1 - 10.0) < 1e-12, "float tolerance grows like sqrt(K)");
    CHECK(f1 >= FLT_EPSILON / 2 && f1 < 1e-5, "float tolerance is a few ulps: %g", f1);
    CHECK(kl_dot_tolerance(KL_DOUBLE, 100) < 1e-13, "double tolerance is tight");

    float got[4] = {1.0f, 2.0f, 3.0f, 4.0f};
    double ref[4] = {1.0, 2.0, 3.0, 4.0}, scale[4] = {1, 2, 3, 4};
    struct kl_check c;
    kl_check(KL_FLOAT, got, ref, scale, NULL, 4, f1, &c);
    CHECK(c.bad == 0 && c.checked == 4, "exact floats pass");
    got[2] = 3.0f + 1e-3f;
    kl_check(KL_FLOAT, got, ref, scale, NULL, 4, f1, &c);
    CHECK(c.bad == 1 && c.worst == 2, "an error of 1e-3 fails: bad=%zu", c.bad);
    got[2] = NAN;
    kl_check(KL_FLOAT, got, ref, scale, NULL, 4, f1, &c);
    CHECK(c.bad == 1 && c.worst == 2 && isinf(c.worst_ratio), "NaN (unwritten) fails");
    got[2] = 3.0f;
    size_t idx[2] = {3, 0};
    double sref[2] = {4.0, 1.5};
    kl_check(KL_FLOAT, got, sref, scale, idx, 2, f1, &c);
    CHECK(c.bad == 1 && c.worst == 0, "sampled check maps indices");

    int32_t ig[3] = {5, -7, 0};
    double ir[3] = {5, -7, 1};
    kl_check(KL_INT, ig, ir, NULL, NULL, 3, 0.0, &c);
    CHECK(c.bad == 1 && c.worst == 2, "int must match exactly");

    float poisoned[3];
    kl_poison(KL_FLOAT, poisoned, 3);
    CHECK(isnan(poisoned[0]) && isnan(poisoned[2]), "poison is NaN");
    int32_t ip[2];
    kl_poison(KL_INT, ip, 2);
    CHECK(ip[0] == INT32_MAX && ip[1] == INT32_MAX, "int poison");
}

static void test_args(void)
{
    char err[256];
    long v = -1;
    double d = -1;
    CHECK(kl_parse_long("--m", "17", 1, 100, &v, err, sizeof err) == 0 && v == 17, "17");
    CHECK(kl_parse_long("--m", "0", 1, 100, &v, err, sizeof err) != 0 && strstr(err, "range"),
          "0 out of range: %s", err);
    CHECK(kl_parse_long("--m", "-5", 1, 100, &v, err, sizeof err) != 0, "negative");
    CHECK(kl_parse_long("--m", "12x", 1, 100, &v, err, sizeof err) != 0 &&
              strstr(err, "not an integer"),
          "trailing junk: %s", err);
    CHECK(kl_parse_long("--m", "abc", 1, 100, &v, err, sizeof err) != 0, "non-numeric");
    CHECK(kl_parse_long("--m", "", 1, 100, &v, err, sizeof err) != 0, "empty");
    CHECK(kl_parse_long("--m", "99999999999999999999999", 1, 1000000, &v, err, sizeof err) != 0 &&
              strstr(err, "range"),
          "overflow: %s", err);
    CHECK(kl_parse_seconds("--min-time", "0.5", 0, 10, &d, err, sizeof err) == 0 && d == 0.5,
          "0.5");
    CHECK(kl_parse_seconds("--min-time", "200ms", 0, 10, &d, err, sizeof err) == 0 &&
              fabs(d - 0.2) < 1e-12,
          "200ms");
    CHECK(kl_parse_seconds("--min-time", "2s", 0, 10, &d, err, sizeof err) == 0 && d == 2.0, "2s");
    CHECK(kl_parse_seconds("--time", "10m", 0, 1e6, &d, err, sizeof err) == 0 && d == 600, "10m");
    CHECK(kl_parse_seconds("--time", "2h", 0, 1e6, &d, err, sizeof err) == 0 && d == 7200, "2h");
    CHECK(kl_parse_seconds("--time", "2d", 0, 1e6, &d, err, sizeof err) != 0 &&
              strstr(err, "is not a time"),
          "an unknown unit: %s", err);
    CHECK(kl_parse_seconds("--min-time", "nan", 0, 10, &d, err, sizeof err) != 0, "nan");
    CHECK(kl_parse_seconds("--min-time", "-1", 0, 10, &d, err, sizeof err) != 0, "negative");
    char list[] = "01,,10_tiled,host";
    char *items[8];
    int n = kl_split_list(list, items, 8);
    CHECK(n == 3 && strcmp(items[0], "01") == 0 && strcmp(items[2], "host") == 0, "split: %d items",
          n);
}

/* Rung r's parameters at their defaults into v: 1, or 0 where they do not resolve. */
static int rung_defaults(const struct kl_gemm_rung *r, int *v)
{
    unsigned mask;
    struct kl_err e;
    return kl_params_resolve(r->name, r->params, NULL, 0, v, &mask, &e) == KL_OK;
}

/*
 * The values of a preset's "NAME=V,..." for a rung's parameters, each name one of the rung's
 * own, checked as --param's would be (ranges, multiples): the number of items, or -1.
 */
static int preset_values(const char *rung, const struct kl_param_def *params,
                         const struct kl_param_multiple *multiples, const char *text, int *values)
{
    const char *items[KL_MAX_PARAMS];
    char buf[512], name[32];
    unsigned mask;
    struct kl_err e;
    int n = kl_tuned_items(text, buf, sizeof buf, items, KL_MAX_PARAMS);
    for (int m = 0; m < n; m++) {
        snprintf(name, sizeof name, "%.*s", (int)strcspn(items[m], "="), items[m]);
        if (kl_param_index(params, name) < 0)
            return -1;
    }
    if (n < 0 || kl_params_resolve(rung, params, items, n, values, &mask, &e) != KL_OK ||
        kl_params_check_multiples(rung, params, values, multiples, &e) != KL_OK)
        return -1;
    return n;
}

/*
 * A --param naming one of a rung's values sets its preset (or tuned set) aside, and the row's
 * config says which: rung 20 in FP8 on Hopper, whose preset is BN=192.
 */
static void test_set_aside(const struct kl_device_info *hopper)
{
    const struct kl_gemm_rung *r = kl_gemm_rung_find("20_wgmma");
    const char *sk[] = {"SK=1"}, *tuned_items[] = {"BM=64", "BN=128"};
    const struct kl_gemm_rung_params tuned = {"20_wgmma", tuned_items, 2};
    struct kl_gemm_request q = {.M = 4096, .N = 4096, .K = 4096, .type = KL_FP8};
    int v[KL_MAX_PARAMS], bn = kl_param_index(r->params, "BN");
    unsigned mask;
    char config[256];
    struct kl_err e;
    CHECK(kl_gemm_resolve_request(&q, hopper, r, v, &mask, config, sizeof config, &e) == KL_OK &&
              strcmp(config, "preset sm_90 BN=192") == 0 && v[bn] == 192,
          "the preset alone: \"%s\", BN=%d", config, v[bn]);
    q.params = sk, q.nparams = 1;
    CHECK(kl_gemm_resolve_request(&q, hopper, r, v, &mask, config, sizeof config, &e) == KL_OK &&
              strcmp(config, "set aside by --param: preset sm_90 BN=192") == 0 && v[bn] == 256,
          "--param SK=1: \"%s\", BN=%d", config, v[bn]);
    q.tuned = &tuned, q.ntuned = 1;
    CHECK(kl_gemm_resolve_request(&q, hopper, r, v, &mask, config, sizeof config, &e) == KL_OK &&
              strcmp(config, "set aside by --param: tuned BM=64 BN=128") == 0 && v[bn] == 256,
          "--param SK=1 over a tuned set: \"%s\"", config);
    q.tuned = NULL, q.ntuned = 0, q.no_presets = 1;
    CHECK(kl_gemm_resolve_request(&q, hopper, r, v, &mask, config, sizeof config, &e) == KL_OK &&
              config[0] == '\0',
          "--no-tuned: nothing set aside, \"%s\"", config);
    CHECK(!kl_ladder_set_by_rule("set aside by --param: preset sm_90 BM=128,BN=128,STAGES=6",
                                 "STAGES"),
          "a preset set aside is no rule's");
}

/*
 * Rung 18's sm_90 presets by size: 128 x 64 tiles where M <= 128 and up to class 30, on four
 * stages; three stages above (four ran up to 30 % slower from 8192^3 up on an H100).
 */
static void test_3xtf32_stages(const struct kl_device_info *hopper)
{
    const struct kl_gemm_rung *r = kl_gemm_rung_find("18_wgmma_3xtf32");
    static const struct {
        int M, N, K, bn, stages;
        const char *config;
    } cases[] = {{2048, 2050, 2047, 128, 3, "preset sm_90 STAGES=3"},
                 {16384, 16384, 256, 128, 3, "preset sm_90 STAGES=3"},
                 {1024, 1024, 1024, 64, 4, "preset sm_90 BN=64"},
                 {128, 8192, 8192, 64, 4, "preset sm_90 BN=64"}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct kl_gemm_request q = {
            .M = cases[i].M, .N = cases[i].N, .K = cases[i].K, .type = KL_FLOAT};
        int v[KL_MAX_PARAMS];
        unsigned mask;
        char config[256];
        struct kl_err e;
        CHECK(kl_gemm_resolve_request(&q, hopper, r, v, &mask, config, sizeof config, &e) ==
                      KL_OK &&
                  strncmp(config, cases[i].config, strlen(cases[i].config)) == 0 &&
                  kl_param_value(r->params, v, "BN") == cases[i].bn &&
                  kl_param_value(r->params, v, "STAGES") == cases[i].stages,
              "rung 18 at %dx%dx%d: \"%s\", BN=%d, STAGES=%d", cases[i].M, cases[i].N, cases[i].K,
              config, kl_param_value(r->params, v, "BN"), kl_param_value(r->params, v, "STAGES"));
    }
}

/*
 * A GEMM rung's presets are valid sets of its parameters (preset_values, and its relations);
 * within an architecture and a bound on M their size classes rise, so each one can be chosen.
 */
static void test_presets(const struct kl_gemm_rung *r)
{
    for (int i = 0; i < KL_MAX_PRESETS && r->presets[i].cc; i++) {
        const struct kl_gemm_preset *p = &r->presets[i];
        int values[KL_MAX_PARAMS];
        int n = preset_values(r->name, r->params, r->multiples, p->params, values);
        struct kl_err e;
        CHECK(n >= 1 && (!r->relations || r->relations(r, values, p->type, &e) == KL_OK),
              "%s preset %d (%s) is a valid set", r->name, i, p->params);
        for (int j = 0; j < i; j++)
            CHECK(r->presets[j].cc != p->cc || r->presets[j].type != p->type ||
                      r->presets[j].max_m != p->max_m || r->presets[j].max_class < p->max_class,
                  "%s presets %d and %d in rising size classes", r->name, j, i);
    }
}

static void test_rungs(void)
{
    enum kl_type t;
    CHECK(kl_gemm_rung_find("10_tiled") && kl_gemm_rung_find("10") == kl_gemm_rung_find("10_tiled"),
          "prefix lookup");
    CHECK(kl_gemm_rung_find("host_") == NULL, "ambiguous prefix is refused");
    CHECK(kl_gemm_rung_find("nosuch") == NULL && kl_gemm_rung_find("") == NULL, "unknown");
    CHECK(kl_type_parse("double", &t) == KL_OK && t == KL_DOUBLE, "type double");
    CHECK(kl_type_parse("half", &t) == KL_OK && t == KL_HALF, "type half");
    CHECK(kl_type_parse("fp16", &t) == KL_ERR_ARG, "type fp16 refused (its name is half)");
    CHECK(kl_type_parse("fp9", &t) == KL_ERR_ARG, "type fp9 refused");
    /* CUDA C++ is told by the file's name: .cu, nothing else. */
    CHECK(kl_kernel_is_cuda("cuda/gemm/14_warptile.cu") && kl_kernel_is_cuda("a.cu"),
          ".cu files are CUDA C++");
    CHECK(!kl_kernel_is_cuda("opencl/gemm/13_double_buffer.cl") && !kl_kernel_is_cuda(".cu") &&
              !kl_kernel_is_cuda("cuda/prelude.cuh") && !kl_kernel_is_cuda(NULL),
          "other files are not");
    CHECK(kl_kernel_is_cuda(kl_gemm_rung_find("14_warptile")->file) &&
              kl_kernel_is_cuda(kl_gemm_rung_find("15_mma_tf32")->file) &&
              kl_kernel_is_cuda(kl_gemm_rung_find("16_mma_3xtf32")->file) &&
              !kl_kernel_is_cuda(kl_gemm_rung_find("15cl_mma_tf32")->file) &&
              !kl_kernel_is_cuda(kl_gemm_rung_find("13_double_buffer")->file),
          "14, 15 and 16 are CUDA C++; 15cl and 13 OpenCL C");
    /* A rung's number alone names it, though "15cl" begins with "15" too. */
    CHECK(kl_gemm_rung_find("15") == kl_gemm_rung_find("15_mma_tf32") &&
              kl_gemm_rung_find("15cl") == kl_gemm_rung_find("15cl_mma_tf32") &&
              kl_gemm_rung_find("16c") == kl_gemm_rung_find("16cl_mma_3xtf32") &&
              kl_gemm_rung_find("16_") == kl_gemm_rung_find("16_mma_3xtf32") &&
              kl_gemm_rung_find("1") == NULL && kl_gemm_rung_find("15_mma_tf32") != NULL,
          "numbered lookup");
    /* Precision is a property of the rung: its own (tensor cores) or the type's. */
    const struct kl_gemm_rung *r15 = kl_gemm_rung_find("15"), *r16 = kl_gemm_rung_find("16"),
                              *r14 = kl_gemm_rung_find("14");
    CHECK(kl_gemm_rung_precision(r15, KL_FLOAT) == KL_PREC_TF32 &&
              kl_gemm_rung_precision(r16, KL_FLOAT) == KL_PREC_3XTF32 &&
              kl_gemm_rung_precision(r14, KL_FLOAT) == KL_PREC_FP32 &&
              kl_gemm_rung_precision(r14, KL_DOUBLE) == KL_PREC_FP64 &&
              kl_gemm_rung_precision(r14, KL_INT) == KL_PREC_INT32,
          "rung precisions");
    CHECK(kl_gemm_tolerance(KL_PREC_TF32, KL_FLOAT, 100, 0) == kl_tf32_tolerance(100) &&
              kl_gemm_tolerance(KL_PREC_3XTF32, KL_FLOAT, 100, 0) ==
                  kl_dot_tolerance(KL_FLOAT, 100),
          "3xtf32 meets the fp32 tolerance, tf32 its own");
    /* Every rung is documented and every parameter default is within its range. */
    for (int i = 0; i < kl_gemm_rung_count(); i++) {
        const struct kl_gemm_rung *r = kl_gemm_rung_at(i);
        CHECK(r->name && r->summary && strlen(r->summary) > 20, "rung %d documented", i);
        CHECK((r->file != NULL) != (r->host != NULL), "%s: exactly one of kernel or host loop",
              r->name);
        for (int p = 0; p < KL_MAX_PARAMS && r->params[p].name; p++) {
            const struct kl_param_def *d = &r->params[p];
            CHECK(d->min <= d->def && d->def <= d->max && d->def % d->multiple == 0,
                  "%s %s default", r->name, d->name);
        }
        test_presets(r);
    }
    /* Rung 14 on Hopper: small sizes take the small blocks, large ones the deep pipeline. */
    struct kl_device_info h100 = {.cc_major = 9}, a100 = {.cc_major = 8};
    const struct kl_gemm_preset *small =
                                    kl_gemm_preset_find(r14, &h100, KL_FLOAT, 1024, 1024, 1024),
                                *large =
                                    kl_gemm_preset_find(r14, &h100, KL_FLOAT, 4096, 4096, 4096);
    CHECK(small && large && small != large && strstr(small->params, "BN=64") &&
              strstr(large->params, "STAGES=8"),
          "rung 14's Hopper presets by size");
    CHECK(!kl_gemm_preset_find(r14, &a100, KL_FLOAT, 1024, 1024, 1024) &&
              !kl_gemm_preset_find(r14, &h100, KL_DOUBLE, 1024, 1024, 1024),
          "no preset for another architecture or type");
    /* Rung 17 on Hopper: a skinny M by M, whatever the volume; small cubes by class; else none. */
    const struct kl_gemm_rung *r17 = kl_gemm_rung_find("17_wgmma_tf32");
    const struct kl_gemm_preset *skinny = kl_gemm_preset_find(r17, &h100, KL_FLOAT, 64, 8192, 8192),
                                *cube = kl_gemm_preset_find(r17, &h100, KL_FLOAT, 512, 512, 512),
                                *wide = kl_gemm_preset_find(r17, &h100, KL_FLOAT, 129, 8192, 8192),
                                *big = kl_gemm_preset_find(r17, &h100, KL_FLOAT, 1536, 1536, 1536);
    CHECK(skinny && strstr(skinny->params, "STAGES=6") && cube && cube != skinny &&
              strstr(cube->params, "BN=64") && wide && strstr(wide->params, "CLUSTER=2") &&
              big == wide && !kl_gemm_preset_find(r17, &a100, KL_FLOAT, 8192, 8192, 8192),
          "rung 17's Hopper presets by M and by size");
    /* Rung 21 on Hopper: the defaults up to class 31, the ring on 128 x 128 blocks above. */
    const struct kl_gemm_rung *r21 = kl_gemm_rung_find("21_dmma");
    const struct kl_gemm_preset *dsmall =
                                    kl_gemm_preset_find(r21, &h100, KL_DOUBLE, 1024, 1024, 1024),
                                *dlarge =
                                    kl_gemm_preset_find(r21, &h100, KL_DOUBLE, 2048, 2048, 2048);
    CHECK(dsmall && dlarge && strstr(dsmall->params, "PREFETCH=1") &&
              strstr(dlarge->params, "PREFETCH=2") && strstr(dlarge->params, "BN=128") &&
              !kl_gemm_preset_find(r21, &a100, KL_DOUBLE, 4096, 4096, 4096),
          "rung 21's Hopper presets by size");
    test_set_aside(&h100);
    test_3xtf32_stages(&h100);
}

/* x rounded to TF32 as cvt.rna.tf32.f32 rounds it: 10 mantissa bits, ties away from zero. */
static float tf32(float x)
{
    uint32_t u;
    memcpy(&u, &x, 4);
    u = (u + 0x1000u) & ~0x1fffu;
    memcpy(&x, &u, 4);
    return x;
}

/*
 * The fp32 tolerance cannot silently hide TF32: a product of TF32-rounded
 * inputs (summed exactly, so the rounding of the inputs is all that differs)
 * fails the fp32 check at every depth the tests use, and passes the TF32
 * tolerance; a 3xTF32 split (big + small parts, three products) passes the
 * fp32 check.
 */
static void test_tf32_tolerance(void)
{
    enum { MN = 1024 };
    static const long depths[] = {1, 9, 64, 1024, 4096};
    struct kl_rng rng;
    struct kl_check c;
    float *t = malloc(MN * sizeof *t), *x3 = malloc(MN * sizeof *x3);
    double *ref = malloc(MN * sizeof *ref), *scale = malloc(MN * sizeof *scale);
    CHECK(t && x3 && ref && scale, "out of memory");
    if (!t || !x3 || !ref || !scale)
        goto done;
    kl_rng_seed(&rng, 3);
    for (size_t d = 0; d < sizeof depths / sizeof *depths; d++) {
        long K = depths[d];
        for (int e = 0; e < MN; e++) {
            double exact = 0, mag = 0, rounded = 0, split = 0;
            for (long k = 0; k < K; k++) {
                float a = (float)kl_rng_uniform(&rng), b = (float)kl_rng_uniform(&rng);
                float ab = tf32(a), as = tf32(a - ab), bb = tf32(b), bs = tf32(b - bb);
                exact += (double)a * b;
                mag += fabs((double)a * b);
                rounded += (double)ab * bb;
                split += (double)as * bb + (double)ab * bs + (double)ab * bb;
            }
            ref[e] = exact, scale[e] = mag, t[e] = (float)rounded, x3[e] = (float)split;
        }
        kl_check(KL_FLOAT, t, ref, scale, NULL, MN, kl_dot_tolerance(KL_FLOAT, K), &c);
        CHECK(c.bad > 0 && c.max_error > kl_dot_tolerance(KL_FLOAT, K),
              "K=%ld: a TF32-rounded result passes the fp32 tolerance (error %g)", K, c.max_error);
        kl_check(KL_FLOAT, t, ref, scale, NULL, MN, kl_tf32_tolerance(K), &c);
        CHECK(c.bad == 0, "K=%ld: a TF32-rounded result fails the TF32 tolerance (%zu bad)", K,
              c.bad);
        if (K >= 9) { /* one product's split may miss by 8u > 4u: the rungs add the rest there */
            kl_check(KL_FLOAT, x3, ref, scale, NULL, MN, kl_dot_tolerance(KL_FLOAT, K), &c);
            CHECK(c.bad == 0 && c.max_error < 1e-6, "K=%ld: 3xTF32 misses the fp32 tolerance (%g)",
                  K, c.max_error);
        }
    }
done:
    free(t), free(x3), free(ref), free(scale);
}

/* ---- the narrow types: their codes, rounding and tolerances ------------------- */

static const enum kl_type narrow_types[] = {KL_HALF, KL_BF16, KL_FP8, KL_FP8E5M2, KL_INT8};

/* A narrow floating type's layout: mantissa bits, exponent bias, width, largest finite code. */
struct narrow_format {
    int mbits, bias, width;
    unsigned max_code;
    double max;
};

static struct narrow_format narrow_format(enum kl_type t)
{
    switch (t) {
    case KL_HALF: return (struct narrow_format){10, 15, 16, 0x7bff, 65504.0};
    case KL_BF16: return (struct narrow_format){7, 127, 16, 0x7f7f, ldexp(255.0, 120)};
    case KL_FP8: return (struct narrow_format){3, 7, 8, 0x7e, 448.0};
    default: return (struct narrow_format){2, 15, 8, 0x7b, 57344.0}; /* e5m2 */
    }
}

/*
 * Every code of each narrow type decodes to a value that rounds back to the
 * same code, but the NaNs (and half's, bf16's and e5m2's infinities, which
 * kl_narrow_value also gives as NaN): all-ones exponents, and e4m3's
 * S.1111.111 alone. Positive finite codes decode in increasing order.
 */
/* Type t's codes that do not round back to themselves; its NaN codes and misordered ones. */
static unsigned round_trips(enum kl_type t, unsigned *nan, unsigned *order)
{
    unsigned codes = kl_type_size(t) == 2 ? 1u << 16 : 1u << 8, bad = 0;
    double last = -1; /* the last positive finite code's value */
    *nan = *order = 0;
    for (unsigned c = 0; c < codes; c++) {
        double v = kl_narrow_value(t, c);
        if (isnan(v)) {
            (*nan)++;
            continue;
        }
        bad += kl_narrow_round(t, v) != c;
        if (t != KL_INT8 && c < codes / 2) /* the sign bit clear */
            *order += !(v > last), last = v;
    }
    return bad;
}

static void test_narrow_codes(void)
{
    static const unsigned nans[] = {2048, 256, 2, 8, 0}; /* per narrow_types[] */
    for (size_t i = 0; i < sizeof narrow_types / sizeof *narrow_types; i++) {
        enum kl_type t = narrow_types[i];
        unsigned nan, order, bad = round_trips(t, &nan, &order);
        CHECK(bad == 0 && order == 0 && nan == nans[i],
              "%s: %u codes do not round-trip, %u out of order, %u NaNs (expected %u)",
              kl_type_name(t), bad, order, nan, nans[i]);
    }
    CHECK(kl_narrow_value(KL_HALF, 0x3c00) == 1.0 && kl_narrow_value(KL_BF16, 0x3f80) == 1.0 &&
              kl_narrow_value(KL_FP8, 0x38) == 1.0 && kl_narrow_value(KL_FP8E5M2, 0x3c) == 1.0 &&
              kl_narrow_value(KL_FP8, 0xb8) == -1.0 && kl_narrow_value(KL_INT8, 0x80) == -128.0,
          "the codes of 1, -1 and -128");
    CHECK(isnan(kl_narrow_value(KL_FP8, 0x7f)) && !isnan(kl_narrow_value(KL_FP8, 0x78)) &&
              isnan(kl_narrow_value(KL_FP8E5M2, 0x7c)) && isnan(kl_narrow_value(KL_HALF, 0x7c00)),
          "e4m3's top exponent holds numbers but S.1111.111; e5m2's and half's are Inf/NaN");
}

/* uchar: bytes, a type of its own: named, one byte, exact, never narrow (no GEMM takes it),
   filled over 0..255, read as 0..255, compiled as uint sums. */
static void test_uchar(void)
{
    enum kl_type t = KL_FLOAT;
    uint8_t x[4096], bytes[2] = {0, 255};
    int seen_low = 0, seen_high = 0;
    char opt[128];
    struct kl_rng rng;
    CHECK(kl_type_parse("uchar", &t) == KL_OK && t == KL_UCHAR &&
              strcmp(kl_type_name(KL_UCHAR), "uchar") == 0 && kl_type_size(KL_UCHAR) == 1,
          "uchar's name and size");
    CHECK(!kl_type_narrow(KL_UCHAR) && !kl_type_fp8(KL_UCHAR) &&
              kl_type_output(KL_UCHAR) == KL_UCHAR &&
              kl_precision_of_type(KL_UCHAR) == KL_PREC_INT32,
          "uchar is no narrow GEMM input, returns itself, counts in int32");
    CHECK(kl_get(KL_UCHAR, bytes, 0) == 0.0 && kl_get(KL_UCHAR, bytes, 1) == 255.0,
          "uchar reads 0 and 255 as themselves, not as signed bytes");
    kl_rng_seed(&rng, 3);
    kl_fill_uniform(KL_UCHAR, x, sizeof x, &rng);
    for (size_t i = 0; i < sizeof x; i++)
        seen_low |= x[i] == 0, seen_high |= x[i] == 255;
    CHECK(seen_low && seen_high, "uchar's random inputs cover 0 and 255");
    kl_params_options(NULL, NULL, KL_UCHAR, opt, sizeof opt);
    CHECK(strstr(opt, "-DKL_T_UCHAR") != NULL, "uchar builds with -DKL_T_UCHAR: %s", opt);
}

/* Ties to even between every pair of neighbouring finite codes; nearer values to the nearer. */
static void test_narrow_ties(void)
{
    for (size_t i = 0; i + 1 < sizeof narrow_types / sizeof *narrow_types; i++) {
        enum kl_type t = narrow_types[i];
        struct narrow_format f = narrow_format(t);
        unsigned bad = 0, sign = 1u << (f.width - 1);
        for (unsigned c = 0; c < f.max_code; c++) {
            double lo = kl_narrow_value(t, c), hi = kl_narrow_value(t, c + 1), mid = (lo + hi) / 2;
            unsigned even = c & 1 ? c + 1 : c;
            bad += kl_narrow_round(t, mid) != even || kl_narrow_round(t, -mid) != (sign | even);
            bad += kl_narrow_round(t, nextafter(mid, 0)) != c ||
                   kl_narrow_round(t, nextafter(mid, INFINITY)) != c + 1;
        }
        CHECK(bad == 0, "%s: %u midpoints or their neighbours round wrongly", kl_type_name(t), bad);
    }
    CHECK(kl_narrow_round(KL_INT8, 2.5) == 2 && kl_narrow_round(KL_INT8, 3.5) == 4 &&
              kl_narrow_round(KL_INT8, -2.5) == 0xfe && kl_narrow_round(KL_INT8, -0.5) == 0 &&
              kl_narrow_round(KL_INT8, 2.5000001) == 3,
          "int8 rounds to nearest, ties to even");
}

/* Beyond the largest finite value (infinity too): that value, of either sign; subnormals. */
static void test_narrow_range(void)
{
    for (size_t i = 0; i + 1 < sizeof narrow_types / sizeof *narrow_types; i++) {
        enum kl_type t = narrow_types[i];
        struct narrow_format f = narrow_format(t);
        unsigned sign = 1u << (f.width - 1), big = f.max_code, bad = 0;
        double ulp = ldexp(1.0, ilogb(f.max) - f.mbits), tiny = ldexp(1.0, 1 - f.bias - f.mbits);
        const double beyond[] = {
            nextafter(f.max, INFINITY), f.max + ulp / 2, f.max + ulp, 2 * f.max, 1e300, INFINITY};
        CHECK(kl_narrow_value(t, big) == f.max, "%s: largest finite %g, not %g", kl_type_name(t),
              kl_narrow_value(t, big), f.max);
        for (size_t k = 0; k < sizeof beyond / sizeof *beyond; k++)
            bad += kl_narrow_round(t, beyond[k]) != big ||
                   kl_narrow_round(t, -beyond[k]) != (sign | big);
        CHECK(bad == 0, "%s: %u values beyond ±%g do not saturate", kl_type_name(t), bad, f.max);
        /* The smallest subnormal is code 1; half of it ties to zero, 1.5 of it to code 2. */
        unsigned top_sub = (1u << f.mbits) - 1;
        CHECK(kl_narrow_value(t, 1) == tiny && kl_narrow_round(t, tiny) == 1 &&
                  kl_narrow_round(t, tiny / 2) == 0 && kl_narrow_round(t, -tiny / 2) == sign &&
                  kl_narrow_round(t, tiny * 0.51) == 1 && kl_narrow_round(t, tiny * 1.5) == 2 &&
                  kl_narrow_value(t, top_sub) == top_sub * tiny &&
                  kl_narrow_value(t, top_sub + 1) == ldexp(1.0, 1 - f.bias),
              "%s: subnormals from %g up to the smallest normal %g", kl_type_name(t), tiny,
              ldexp(1.0, 1 - f.bias));
    }
    CHECK(kl_narrow_round(KL_INT8, 127.6) == 127 && kl_narrow_round(KL_INT8, 1e9) == 127 &&
              kl_narrow_round(KL_INT8, -128.4) == 0x80 && kl_narrow_round(KL_INT8, -1e9) == 0x80,
          "int8 saturates at 127 and -128");
}

/* x rounded to type t and back. */
static double narrow_of(enum kl_type t, double x)
{
    return kl_narrow_value(t, kl_narrow_round(t, x));
}

/*
 * x in the next lower precision than t's: half's in bf16, bf16's in e4m3,
 * e4m3's in e5m2, e5m2's with one mantissa bit less (its ulp doubled; ties
 * to even, no exponent limit).
 */
static double coarser(enum kl_type t, double x)
{
    int e = 0;
    double f;
    switch (t) {
    case KL_HALF: return narrow_of(KL_BF16, x);
    case KL_BF16: return narrow_of(KL_FP8, x);
    case KL_FP8: return narrow_of(KL_FP8E5M2, x);
    default:
        f = frexp(x, &e); /* x = f·2^e, f in [0.5, 1): 2 significant bits */
        return ldexp(nearbyint(ldexp(f, 2)), e - 2);
    }
}

/*
 * The narrow floating types' tolerances (kl_narrow_tolerance) tell a right
 * result from one of the next lower precision, at realistic scales
 * (Σ|a·b|, as every GEMM check uses): the exact products of inputs drawn in
 * t, summed in fp32, pass at every depth; at K = 1 the product of the same
 * inputs rounded to the next lower precision fails for most elements.
 */
static void test_narrow_tolerance(void)
{
    enum { MN = 1024, KMAX = 1024 };
    static const long depths[] = {1, 64, KMAX};
    static float got[MN], lower[MN];
    static double ref[MN], scale[MN];
    static unsigned char raw[2 * KMAX * 2];
    struct kl_rng rng;
    struct kl_check c;
    kl_rng_seed(&rng, 38);
    for (size_t i = 0; i + 1 < sizeof narrow_types / sizeof *narrow_types; i++) {
        enum kl_type t = narrow_types[i];
        for (size_t d = 0; d < sizeof depths / sizeof *depths; d++) {
            long K = depths[d];
            double tol = kl_narrow_tolerance(t, K);
            for (int el = 0; el < MN; el++) {
                double exact = 0, mag = 0, rounded = 0;
                float sum = 0;
                kl_fill_uniform(t, raw, 2 * (size_t)K, &rng); /* a's K, then b's */
                for (long k = 0; k < K; k++) {
                    double a = kl_get(t, raw, (size_t)k), b = kl_get(t, raw, (size_t)(K + k));
                    exact += a * b;
                    mag += fabs(a * b);
                    sum += (float)(a * b); /* exact in fp32: two narrow significands */
                    rounded += coarser(t, a) * coarser(t, b);
                }
                ref[el] = exact, scale[el] = mag, got[el] = sum, lower[el] = (float)rounded;
            }
            kl_check(KL_FLOAT, got, ref, scale, NULL, MN, tol, &c);
            CHECK(c.bad == 0, "%s, K=%ld: a right result fails (%zu bad, error %g > %g)",
                  kl_type_name(t), K, c.bad, c.max_error, tol);
            if (K != 1)
                continue;
            kl_check(KL_FLOAT, lower, ref, scale, NULL, MN, tol, &c);
            CHECK(c.bad > MN / 2 && c.max_error > 2 * tol,
                  "%s: the next lower precision passes (%zu of %d bad, error %g, tolerance %g)",
                  kl_type_name(t), c.bad, (int)MN, c.max_error, tol);
        }
    }
}

/*
 * Hopper's FP8 sums, emulated: each k-block of 32 products added to the
 * running sum with every addend aligned to the largest among them and
 * truncated toward zero to 13 significant bits of that largest; every span
 * elements (span < K) the running sum goes into an fp32 total and starts
 * again from zero. On uniform e4m3 inputs this gives the H200's errors
 * (docs/RESULTS.md: 7.9e-5 promoted at K = 512 as measured, 4.9e-4 fast at
 * K = 8192 against the measured 4.9e-4).
 */
static double fp8_tensor_sum(const double *p, long K, long span)
{
    float total = 0;
    double run = 0;
    for (long k0 = 0; k0 < K; k0 += 32) {
        long n = K - k0 < 32 ? K - k0 : 32;
        double big = fabs(run), sum = 0;
        int e;
        for (long k = 0; k < n; k++)
            big = fmax(big, fabs(p[k0 + k]));
        frexp(big, &e);
        double ulp = ldexp(1.0, e - 13);
        sum = trunc(run / ulp) * ulp;
        for (long k = 0; k < n; k++)
            sum += trunc(p[k0 + k] / ulp) * ulp;
        run = sum;
        if (span < K && (k0 + n) % span == 0)
            total += (float)run, run = 0;
    }
    return span < K ? total + (float)run : run;
}

/* Every device GEMM rung's launch holds its arguments, with SK=1 where it has it, and rung 20's
   with room for the modulus rung 22's INT8 products add (13 once overwrote a launch's count
   and dimensions). */
static void test_gemm_launch_args(void)
{
    for (int i = 0; i < kl_gemm_rung_count(); i++) {
        const struct kl_gemm_rung *r = kl_gemm_rung_at(i);
        int v[KL_MAX_PARAMS], sk = kl_param_index(r->params, "SK");
        if (r->geometry == KL_GEO_HOST || !rung_defaults(r, v))
            continue;
        if (sk >= 0)
            v[sk] = 1;
        if (kl_param_index(r->params, "EPI") >= 0)
            v[kl_param_index(r->params, "EPI")] = 1;
        struct kl_launch l;
        memset(&l, 0, sizeof l);
        const struct rung_bufs m = {NULL, NULL, NULL, NULL, 64, 64, NULL};
        kl_gemm_rung_args(r, v, KL_FLOAT, 64, 64, 64, &m, &l);
        CHECK(l.nargs + (strcmp(r->name, "20_wgmma") == 0) <= KL_MAX_ARGS,
              "rung %s passes %d arguments%s, a launch holds %d", r->name, l.nargs,
              strcmp(r->name, "20_wgmma") == 0 ? " and rung 22's modulus" : "", KL_MAX_ARGS);
    }
}

/*
 * The Hopper rungs' pitches: rows TMA cannot read (K or N not a multiple of 4 floats) padded
 * to whole 128-byte lines first, unless PAD=0 (rungs 17 and 18: read as they are, by
 * cp.async); rung 18 reads A's residual from the pad's copy (K > 8) but not with PAD=0;
 * rung 20, which has no other way in, always pads.
 */
static void test_gemm_pitches(void)
{
    const struct kl_gemm_rung *r17 = kl_gemm_rung_find("17_wgmma_tf32"),
                              *r18 = kl_gemm_rung_find("18_wgmma_3xtf32"),
                              *r20 = kl_gemm_rung_find("20_wgmma");
    struct gemm_session s = {.type = KL_FLOAT, .M = 100, .N = 4097, .K = 4093};
    int v[KL_MAX_PARAMS], lda, ldb;
    unsigned mask;
    struct kl_err e;
    const char *pad0[] = {"PAD=0"};
    for (int n = 0; n <= 1; n++) {
        kl_params_resolve(r17->name, r17->params, pad0, n, v, &mask, &e);
        int copy = kl_gemm_pitches(&s, r17, v, &lda, &ldb);
        CHECK(n ? !copy && lda == 4093 && ldb == 4097 : copy && lda == 4096 && ldb == 4128,
              "rung 17, PAD=%d: copy %d, pitches %d and %d", !n, copy, lda, ldb);
    }
    s.N = 4096, s.K = 4096;
    for (int n = 0; n <= 1; n++) {
        kl_params_resolve(r18->name, r18->params, pad0, n, v, &mask, &e);
        int copy = kl_gemm_pitches(&s, r18, v, &lda, &ldb);
        CHECK(copy == !n && lda == 4096 && ldb == 4096,
              "rung 18, PAD=%d, aligned rows: copy %d (the residual), pitches %d and %d", !n, copy,
              lda, ldb);
    }
    s.type = KL_HALF, s.K = 4093;
    rung_defaults(r20, v);
    CHECK(kl_gemm_pitches(&s, r20, v, &lda, &ldb) && lda == 4096 && ldb == 4096,
          "rung 20 pads K = 4093 in half: pitches %d and %d", lda, ldb);
}

/*
 * Rungs 20 and 17 with EPI at their defaults (1 and 2): C's tensor map after the residual's and
 * before stream-K's workspace, in boxes of 64 rows (rung 20: a consumer warpgroup's) or 32 (rung
 * 17) by 32 four-byte sums, of C where N is a multiple of 4 (rows 16-byte aligned) and of nothing
 * elsewhere (where rung 20 stores from registers and rung 17 a row at a time); its shared
 * memory 16 KiB more per consumer warpgroup (rung 20: two boxes of 8 KiB; 17: four of 4 KiB).
 * With EPI=0, no map.
 */
static void test_gemm_c_map(void)
{
    static const struct {
        const char *rung;
        enum kl_type type;
        unsigned box_rows;
        const char *consumers; /* the parameter whose value / 64 counts the consumers */
    } cases[] = {{"20_wgmma", KL_INT8, 64, "BM"}, {"17_wgmma_tf32", KL_FLOAT, 32, "BN"}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const struct kl_gemm_rung *r = kl_gemm_rung_find(cases[i].rung);
        struct kl_buf *fake = (struct kl_buf *)&r; /* an address, never dereferenced */
        const struct rung_bufs m = {fake, fake, fake, NULL, 64, 64, fake};
        int v[KL_MAX_PARAMS];
        unsigned mask;
        struct kl_err e;
        /* n = 0: EPI=0; 1: the defaults (EPI=1, rung 17 EPI=2); 2: the defaults and SK=1 */
        const char *epi0[] = {"EPI=0"}, *sk1[] = {"SK=1"};
        const char **sets[] = {epi0, NULL, sk1};
        for (int n = 0; n <= 2; n++) {
            CHECK(kl_params_resolve(r->name, r->params, (const char *const *)sets[n], n != 1, v,
                                    &mask, &e) == KL_OK,
                  "%s", e.msg);
            for (int N = 4096; N <= 4098; N += 2) {
                struct kl_launch l;
                memset(&l, 0, sizeof l);
                kl_gemm_rung_args(r, v, cases[i].type, 1000, N, 64, &m, &l);
                const struct kl_arg *c = &l.args[10];
                const int maps = c->kind == KL_ARG_TENSOR_MAP;
                CHECK(maps == (n > 0) && l.nargs == 10 + (n > 0) + (n > 1) + 1,
                      "rung %s EPI%s SK=%d N=%d: %d arguments, C's map %s", r->name,
                      n > 0 ? " at its default" : "=0", n > 1, N, l.nargs,
                      maps ? "passed" : "not passed");
                if (maps)
                    CHECK(c->v.map.buf == (N % 4 == 0 ? fake : NULL) && c->v.map.rows == 1000 &&
                              c->v.map.cols == (uint64_t)N && c->v.map.pitch == (uint64_t)N * 4 &&
                              c->v.map.box_rows == cases[i].box_rows && c->v.map.box_cols == 32 &&
                              c->v.map.type == KL_MAP_F32,
                          "rung %s N=%d: C's map of %llu x %llu, pitch %llu, box %u x %u", r->name,
                          N, (unsigned long long)c->v.map.rows, (unsigned long long)c->v.map.cols,
                          (unsigned long long)c->v.map.pitch, c->v.map.box_rows, c->v.map.box_cols);
                if (n > 1)
                    CHECK(l.args[11].kind == KL_ARG_BUF && l.args[11].v.buf == fake,
                          "rung %s: stream-K's workspace after C's map", r->name);
            }
            size_t plain = kl_gemm_local_bytes(r, v, cases[i].type);
            size_t consumers = (size_t)kl_param_value(r->params, v, cases[i].consumers) / 64;
            v[kl_param_index(r->params, "EPI")] = 0;
            CHECK(plain - kl_gemm_local_bytes(r, v, cases[i].type) ==
                      (n > 0 ? consumers * 16384 : 0u),
                  "rung %s EPI=%d: %zu bytes of shared memory", r->name, n > 0, plain);
        }
    }
}

/*
 * The tiles' rule on an H200 (132 SMs, compute capability 9.0), at the shapes it was fitted to:
 * rung 14's 128 x 128 blocks where N = 4097 leaves a sliver of a 33rd column of 128 x 256 (and
 * no split then), its default at 4096^3 and 3000^3 (the same waves; split-K's rule then splits
 * 3000^3 in four, as before); rung 17 on its sm_90 preset (clusters of two) in single blocks
 * at 4095 x 4097 x 4093 (17 columns of pairs: 5 waves against 4), in pairs at 4096^3 and
 * 8192^3; rung 20 in half on 128 x 192 tiles at 3000^3 and 192 x 12288 x 12288, on 128 x 64
 * at 128 x 8192 x 8192 (and no stream-K: 128 tiles), its default at 4096^3, at 4096 x 6272 x
 * 4096 (128 x 192 tiles there gain 1.5 % by the model: within its margin) and in bf16 (not
 * measured); in fp8 on its preset's 128 x 192 tiles at 8192^3 and 10000 x 10000 x 512, 128 x
 * 128 at 256 x 16384 x 16384 and 16384 x 256 x 16384; nothing on compute capability 8.0 or
 * with no compute units known; over a preset of rung 14's stages, but not over one of its own
 * tile (rung 14's small sizes, rung 17's skinny M).
 */
static void test_tile_rule(const struct kl_gemm_rung *r14, const struct kl_gemm_rung *r17,
                           const struct kl_gemm_rung *r20, const int *v14, const int *v17,
                           const int *v20)
{
    const struct kl_gemm_rung *rungs[] = {r14, r17, r20};
    const int *defaults[] = {v14, v17, v20};
    static const struct {
        int rung, M, N, K;
        enum kl_type type;
        const char *preset; /* "NAME=V" the rows start from, as their preset sets it */
        int bm, bn, cluster, splits, sk;
    } cases[] = {{0, 4095, 4097, 4093, KL_FLOAT, "", 128, 128, 0, 1, 0},
                 {0, 4099, 4111, 4127, KL_FLOAT, "", 128, 256, 0, 1, 1},
                 {0, 4096, 4096, 4096, KL_FLOAT, "", 128, 256, 0, 1, 0},
                 {0, 3000, 3000, 3000, KL_FLOAT, "", 128, 256, 0, 1, 1},
                 {1, 4095, 4097, 4093, KL_FLOAT, "CLUSTER=2", 256, 128, 1, 0, 0},
                 {1, 4096, 4096, 4096, KL_FLOAT, "CLUSTER=2", 256, 128, 2, 0, 0},
                 {1, 8192, 8192, 8192, KL_FLOAT, "CLUSTER=2", 256, 128, 2, 0, 0},
                 {2, 3000, 3000, 3000, KL_HALF, "", 128, 192, 0, 0, 0},
                 {2, 192, 12288, 12288, KL_HALF, "", 128, 192, 0, 0, 0},
                 {2, 128, 8192, 8192, KL_HALF, "", 128, 64, 0, 0, 0},
                 {2, 4096, 4096, 4096, KL_HALF, "", 128, 256, 0, 0, 0},
                 {2, 4096, 6272, 4096, KL_HALF, "", 128, 256, 0, 0, 0},
                 {2, 3000, 3000, 3000, KL_BF16, "", 128, 256, 0, 0, 0},
                 {2, 8192, 8192, 8192, KL_FP8, "BN=192", 128, 192, 0, 0, 0},
                 {2, 10000, 10000, 512, KL_FP8, "BN=192", 128, 192, 0, 0, 0},
                 {2, 256, 16384, 16384, KL_FP8, "BN=192", 128, 128, 0, 0, 0},
                 {2, 16384, 256, 16384, KL_FP8, "BN=192", 128, 128, 0, 0, 0}};
    struct kl_device_info h200 = {.compute_units = 132, .cc_major = 9};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const struct kl_gemm_rung *r = rungs[cases[i].rung];
        struct kl_gemm_request q = {
            .M = cases[i].M, .N = cases[i].N, .K = cases[i].K, .type = cases[i].type};
        int v[KL_MAX_PARAMS], before[KL_MAX_PARAMS];
        char config[128] = "";
        memcpy(v, defaults[cases[i].rung], sizeof v);
        if (cases[i].preset[0]) {
            char name[16];
            int value;
            CHECK(sscanf(cases[i].preset, "%15[^=]=%d", name, &value) == 2, "case %zu", i);
            v[kl_param_index(r->params, name)] = value;
            snprintf(config, sizeof config, "preset sm_90 %s", cases[i].preset);
        }
        memcpy(before, v, sizeof v);
        kl_gemm_schedule_rules(r, &h200, &q, v, config, sizeof config);
        const int bm = kl_param_value(r->params, v, "BM"), bn = kl_param_value(r->params, v, "BN");
        const int cl =
            kl_param_index(r->params, "CLUSTER") >= 0 ? kl_param_value(r->params, v, "CLUSTER") : 0;
        const int sk = kl_param_index(r->params, "SK"), split = kl_param_index(r->params, "SPLITK");
        int said = 1; /* each value the rule changed is named as the rule's, and only those */
        for (const char *const *name = (const char *const[]){"BM", "BN", "CLUSTER", NULL}; *name;
             name++) {
            int at = kl_param_index(r->params, *name);
            if (at >= 0 && (v[at] != before[at]) != kl_ladder_set_by_rule(config, *name))
                said = 0;
        }
        CHECK(bm == cases[i].bm && bn == cases[i].bn && cl == cases[i].cluster &&
                  (sk < 0 || v[sk] == cases[i].sk) && (split < 0 || v[split] == cases[i].splits) &&
                  said,
              "rung %s %s at %dx%dx%d: BM=%d BN=%d CLUSTER=%d, \"%s\"", r->name,
              kl_type_name(cases[i].type), q.M, q.N, q.K, bm, bn, cl, config);
    }
    struct kl_device_info a100 = {.compute_units = 108, .cc_major = 8}, unknown = {.cc_major = 9};
    CHECK(!kl_gemm_tile_rule(r14, &a100, KL_FLOAT, 4095, 4097) &&
              !kl_gemm_tile_rule(r14, &unknown, KL_FLOAT, 4095, 4097),
          "the tiles' rule where it was not measured, or without compute units");
    /* over rung 14's sm_90 preset of 8 stages, which keeps its tile: 128 x 128 blocks at the 4
       stages they were measured with; a preset of its own tile keeps it, as does rung 17's for
       M <= 128 (128 x 128 tiles in single blocks) */
    struct kl_gemm_request q = {.M = 4095, .N = 4097, .K = 4093, .type = KL_FLOAT};
    int v[KL_MAX_PARAMS];
    char config[128] = "preset sm_90 STAGES=8";
    memcpy(v, v14, sizeof v);
    v[kl_param_index(r14->params, "STAGES")] = 8;
    kl_gemm_schedule_rules(r14, &h200, &q, v, config, sizeof config);
    CHECK(v[kl_param_index(r14->params, "BN")] == 128 &&
              v[kl_param_index(r14->params, "STAGES")] == 4 &&
              kl_ladder_set_by_rule(config, "STAGES") && kl_ladder_set_by_rule(config, "BN"),
          "over a preset of stages: BN=%d STAGES=%d, \"%s\"", v[kl_param_index(r14->params, "BN")],
          v[kl_param_index(r14->params, "STAGES")], config);
    snprintf(config, sizeof config, "preset sm_90 BM=128,BN=64,STAGES=4");
    memcpy(v, v14, sizeof v);
    v[kl_param_index(r14->params, "BN")] = 64;
    kl_gemm_schedule_rules(r14, &h200, &q, v, config, sizeof config);
    CHECK(v[kl_param_index(r14->params, "BN")] == 64, "a preset's tile stays");
    snprintf(config, sizeof config, "preset sm_90 BM=128,BN=128,STAGES=6");
    memcpy(v, v17, sizeof v);
    v[kl_param_index(r17->params, "BM")] = 128, v[kl_param_index(r17->params, "BN")] = 128;
    q.M = 128, q.N = 4097;
    kl_gemm_schedule_rules(r17, &h200, &q, v, config, sizeof config);
    CHECK(v[kl_param_index(r17->params, "BM")] == 128 && !strstr(config, "tiles"),
          "rung 17's preset for M <= 128 stays: \"%s\"", config);
}

/* The residual's rule: rung 18 splits A in shared memory (PAD=0) where N is small enough that
   kernel pad's pass over A would cost more (16384 x 256 x 16384), not at 256 x 16384 x 16384;
   not where N or K leaves rows TMA cannot read (PAD=0 would read them by cp.async), at K <= 8
   (no residual), where PAD is set already, for rung 17 (no residual), nor off compute
   capability 9.0. */
static void test_residual_rule(const struct kl_gemm_rung *r17)
{
    const struct kl_gemm_rung *r18 = kl_gemm_rung_find("18_wgmma_3xtf32");
    struct kl_device_info h200 = {.compute_units = 132, .cc_major = 9};
    int v18[KL_MAX_PARAMS], v[KL_MAX_PARAMS], v17[KL_MAX_PARAMS];
    CHECK(r18 && rung_defaults(r18, v18) && rung_defaults(r17, v17), "rungs 17 and 18");
    const int pad = kl_param_index(r18->params, "PAD");
    struct kl_gemm_request q = {.M = 16384, .N = 256, .K = 16384, .type = KL_FLOAT};
    char config[128] = "";
    memcpy(v, v18, sizeof v);
    kl_gemm_schedule_rules(r18, &h200, &q, v, config, sizeof config);
    CHECK(v[pad] == 0 && strcmp(config, "PAD=0 (the residual's rule)") == 0 &&
              kl_ladder_set_by_rule(config, "PAD"),
          "rung 18 at 16384 x 256 x 16384: PAD=%d, \"%s\"", v[pad], config);
    CHECK(!kl_gemm_residual_rule(r18, &h200, v18, 16384, 16384) &&
              !kl_gemm_residual_rule(r18, &h200, v18, 258, 16384) &&
              !kl_gemm_residual_rule(r18, &h200, v18, 256, 16382) &&
              !kl_gemm_residual_rule(r18, &h200, v18, 256, 8) &&
              kl_gemm_residual_rule(r18, &h200, v18, 256, 12) &&
              kl_gemm_residual_rule(r18, &h200, v18, 512, 4096) &&
              !kl_gemm_residual_rule(r18, &h200, v18, 1024, 4096),
          "the residual's rule at N = 16384, 258; K = 16382, 8 and 12; N = 512 and 1024");
    v[pad] = 0;
    struct kl_device_info a100 = {.compute_units = 108, .cc_major = 8};
    CHECK(!kl_gemm_residual_rule(r18, &h200, v, 256, 16384) &&
              !kl_gemm_residual_rule(r17, &h200, v17, 256, 16384) &&
              !kl_gemm_residual_rule(r18, &a100, v18, 256, 16384),
          "PAD=0 already, rung 17, or compute capability 8.0: no rule");
}

/* The L2 rule: rung 20 marks C's stores evict-first and the operands' copies evict-last
   (HINT=3) where K <= 512 in bf16 and half, K <= 768 in fp8 and int8, said in the row's config;
   not past those, where HINT is set already, for rung 17 (no HINT), nor off compute capability
   9.0. */
static void test_l2_rule(const struct kl_gemm_rung *r17)
{
    const struct kl_gemm_rung *r20 = kl_gemm_rung_find("20_wgmma");
    struct kl_device_info h200 = {.compute_units = 132, .cc_major = 9},
                          a100 = {.compute_units = 108, .cc_major = 8};
    int v20[KL_MAX_PARAMS], v[KL_MAX_PARAMS], v17[KL_MAX_PARAMS];
    CHECK(r20 && rung_defaults(r20, v20) && rung_defaults(r17, v17), "rungs 17 and 20");
    const int hint = kl_param_index(r20->params, "HINT");
    struct kl_gemm_request q = {.M = 16384, .N = 16384, .K = 256, .type = KL_BF16};
    char config[128] = "";
    memcpy(v, v20, sizeof v);
    kl_gemm_schedule_rules(r20, &h200, &q, v, config, sizeof config);
    CHECK(hint >= 0 && v[hint] == 3 && strcmp(config, "HINT=3 (the L2 rule)") == 0 &&
              kl_ladder_set_by_rule(config, "HINT"),
          "rung 20 at 16384 x 16384 x 256: HINT=%d, \"%s\"", hint >= 0 ? v[hint] : -1, config);
    if (hint < 0)
        return;
    CHECK(kl_gemm_l2_rule(r20, &h200, KL_BF16, v20, 1) &&
              kl_gemm_l2_rule(r20, &h200, KL_HALF, v20, 512) &&
              !kl_gemm_l2_rule(r20, &h200, KL_BF16, v20, 513) &&
              !kl_gemm_l2_rule(r20, &h200, KL_HALF, v20, 4096),
          "the L2 rule in bf16 and half at K = 1, 512, 513 and 4096");
    CHECK(kl_gemm_l2_rule(r20, &h200, KL_FP8, v20, 768) &&
              kl_gemm_l2_rule(r20, &h200, KL_INT8, v20, 640) &&
              !kl_gemm_l2_rule(r20, &h200, KL_FP8E5M2, v20, 769) &&
              !kl_gemm_l2_rule(r20, &h200, KL_INT8, v20, 1024),
          "the L2 rule in the 8-bit types at K = 640, 768, 769 and 1024");
    q.K = 640, q.type = KL_INT8, config[0] = 0;
    memcpy(v, v20, sizeof v);
    kl_gemm_schedule_rules(r20, &h200, &q, v, config, sizeof config);
    CHECK(v[hint] == 3 && strstr(config, "HINT=3 (the L2 rule)"), "rung 20 in int8 at K = 640: %s",
          config);
    v[hint] = 1;
    CHECK(!kl_gemm_l2_rule(r20, &h200, KL_BF16, v, 256) &&
              !kl_gemm_l2_rule(r17, &h200, KL_FLOAT, v17, 256) &&
              !kl_gemm_l2_rule(r20, &a100, KL_BF16, v20, 256),
          "HINT set already, rung 17, or compute capability 8.0: no rule");
}

/* The schedule's rules (gemm/presets.c) on an H200's 132 SMs. Stream-K's: SK=1 for a single
   row or column of tiles where the model gains 10 %, never for many rows of tiles or where SK
   is set already; rung 17's units are its clusters. Then split-K's, and both together. */
static void test_schedule_rules(void)
{
    const struct kl_gemm_rung *r17 = kl_gemm_rung_find("17_wgmma_tf32"),
                              *r20 = kl_gemm_rung_find("20_wgmma"),
                              *r14 = kl_gemm_rung_find("14_warptile");
    struct kl_device_info dev = {.compute_units = 132};
    int v17[KL_MAX_PARAMS], v20[KL_MAX_PARAMS], v14[KL_MAX_PARAMS];
    struct kl_err e;
    CHECK(r17 && r20 && r14 && rung_defaults(r17, v17) && rung_defaults(r20, v20) &&
              rung_defaults(r14, v14),
          "rungs 14, 17 and 20");
    /* rung 20 in half, 128 x 256 tiles, K in slices of 64 */
    CHECK(kl_gemm_stream_k_rule(r20, &dev, KL_HALF, 128, 8192, 8192, v20) &&
              kl_gemm_stream_k_rule(r20, &dev, KL_HALF, 8192, 256, 8192, v20),
          "one row (column) of 32 (64) tiles on 132 SMs: stream-K");
    CHECK(!kl_gemm_stream_k_rule(r20, &dev, KL_HALF, 192, 12288, 12288, v20) &&
              !kl_gemm_stream_k_rule(r20, &dev, KL_HALF, 4096, 4352, 4096, v20),
          "two rows of tiles, or 17 of them: data-parallel");
    CHECK(!kl_gemm_stream_k_rule(r20, &dev, KL_HALF, 128, 8192, 128, v20),
          "K of two slices: too short to gain");
    /* rung 17, 256 x 128 tiles: 192 rows are one row of them; in clusters of two, one unit */
    CHECK(kl_gemm_stream_k_rule(r17, &dev, KL_FLOAT, 192, 12288, 12288, v17),
          "rung 17: 192 rows in one row of tiles");
    v17[kl_param_index(r17->params, "CLUSTER")] = 2;
    CHECK(kl_gemm_stream_k_rule(r17, &dev, KL_FLOAT, 256, 512, 32768, v17) &&
              !kl_gemm_stream_k_rule(r17, &dev, KL_FLOAT, 256, 256, 8192, v17),
          "rung 17 in clusters: two of them on 66 for 1024 slices, but not one for 256 (its "
          "finisher would add 65 partials)");
    v17[kl_param_index(r17->params, "SK")] = 1;
    dev.compute_units = 0;
    CHECK(!kl_gemm_stream_k_rule(r17, &(struct kl_device_info){.compute_units = 132}, KL_FLOAT, 256,
                                 512, 32768, v17) &&
              !kl_gemm_stream_k_rule(r20, &dev, KL_HALF, 128, 8192, 8192, v20),
          "SK set already, or no compute units known: left alone");
    /* rung 14 (FFMA), 128 x 256 blocks in slices of 16: wherever the model gains, whatever the
       rows and columns of blocks (its products need no L2 to keep up) */
    dev.compute_units = 132;
    CHECK(kl_gemm_stream_k_rule(r14, &dev, KL_FLOAT, 4099, 4111, 4127, v14) &&
              kl_gemm_stream_k_rule(r14, &dev, KL_FLOAT, 3000, 3000, 3000, v14) &&
              kl_gemm_stream_k_rule(r14, &dev, KL_FLOAT, 128, 8192, 8192, v14),
          "rung 14: 561 blocks (4.25 waves), 288 (2.2), 32 (a quarter of one): stream-K");
    CHECK(!kl_gemm_stream_k_rule(r14, &dev, KL_FLOAT, 4096, 4096, 4096, v14) &&
              !kl_gemm_stream_k_rule(r14, &dev, KL_FLOAT, 12289, 12301, 509, v14) &&
              !kl_gemm_stream_k_rule(r14, &dev, KL_FLOAT, 10000, 10000, 512, v14),
          "rung 14: 512 blocks (3.9 waves), 4753 (36.01) or 3160 (23.9) of 32 slices: "
          "data-parallel");
    {
        static const char *const both[] = {"SK=1", "SPLITK=2"}, *const sk[] = {"SK=1"};
        int vb[KL_MAX_PARAMS];
        CHECK(kl_gemm_resolve_items(r14, both, 2, vb, &e) == KL_OK &&
                  r14->relations(r14, vb, KL_FLOAT, &e) == KL_ERR_ARG &&
                  strstr(e.msg, "SK=1 (stream-K) and SPLITK=2 (split-K)") &&
                  kl_gemm_resolve_items(r14, sk, 1, vb, &e) == KL_OK &&
                  r14->relations(r14, vb, KL_FLOAT, &e) == KL_OK,
              "rung 14 with SK=1 and SPLITK=2 refused, SK=1 alone taken: %s", e.msg);
    }
    dev.compute_units = 0;
    /* the rules' choices, and where they came from, in a row's config: rung 14's 32 blocks of
       128 x 256 at 128 x 8192 x 8192 by stream-K (132 blocks on a quarter of a tile each);
       none where its 512 blocks make 3.9 waves (4096^3), for rung 13 (OpenCL: not measured),
       or on tuned values */
    dev.compute_units = 132;
    int v[KL_MAX_PARAMS];
    char config[128] = "";
    struct kl_gemm_request q = {.M = 128, .N = 8192, .K = 8192, .type = KL_FLOAT};
    memcpy(v, v14, sizeof v);
    kl_gemm_schedule_rules(r14, &dev, &q, v, config, sizeof config);
    CHECK(v[kl_param_index(r14->params, "SK")] == 1 &&
              v[kl_param_index(r14->params, "SPLITK")] == 1 &&
              strcmp(config, "SK=1 (stream-K's rule)") == 0,
          "rung 14 at 128 x 8192 x 8192: SK=%d SPLITK=%d, \"%s\"",
          v[kl_param_index(r14->params, "SK")], v[kl_param_index(r14->params, "SPLITK")], config);
    q.M = q.N = q.K = 4096, config[0] = '\0';
    memcpy(v, v14, sizeof v);
    kl_gemm_schedule_rules(r14, &dev, &q, v, config, sizeof config);
    CHECK(v[kl_param_index(r14->params, "SPLITK")] == 1 && !config[0], "rung 14 at 4096^3");
    /* split-K where stream-K's rule does not look: off the reference tiles (rung 14's preset
       for small products, 128 x 64 blocks: 16 at 128 x 1024 x 8192) */
    q.M = 128, q.N = 1024, q.K = 8192;
    snprintf(config, sizeof config, "preset sm_90 BM=128,BN=64,BK=64");
    memcpy(v, v14, sizeof v);
    v[kl_param_index(r14->params, "BN")] = 64, v[kl_param_index(r14->params, "BK")] = 64;
    kl_gemm_schedule_rules(r14, &dev, &q, v, config, sizeof config);
    CHECK(v[kl_param_index(r14->params, "SK")] == 0 &&
              v[kl_param_index(r14->params, "SPLITK")] == 8 &&
              strstr(config, "SPLITK=8 (split-K's rule)"),
          "rung 14's 128 x 64 blocks at 128 x 1024 x 8192: \"%s\"", config);
    config[0] = '\0';
    CHECK(rung_defaults(r17, v17), "rung 17's defaults again");
    test_tile_rule(r14, r17, r20, v14, v17, v20);
    test_residual_rule(r17);
    test_l2_rule(r17);
    const struct kl_gemm_rung *r13 = kl_gemm_rung_find("13_double_buffer");
    q.M = 128, q.N = q.K = 8192;
    CHECK(r13 && rung_defaults(r13, v), "rung 13");
    kl_gemm_schedule_rules(r13, &dev, &q, v, config, sizeof config);
    CHECK(v[kl_param_index(r13->params, "SPLITK")] == 1 && !config[0], "rung 13: %s", config);
    memcpy(v, v14, sizeof v);
    snprintf(config, sizeof config, "tuned BM=128");
    kl_gemm_schedule_rules(r14, &dev, &q, v, config, sizeof config);
    CHECK(v[kl_param_index(r14->params, "SPLITK")] == 1 && strcmp(config, "tuned BM=128") == 0,
          "tuned values are left alone: %s", config);
    q.type = KL_HALF, config[0] = '\0';
    memcpy(v, v20, sizeof v);
    kl_gemm_schedule_rules(r20, &dev, &q, v, config, sizeof config);
    CHECK(v[kl_param_index(r20->params, "SK")] == 1 &&
              strcmp(config, "SK=1 (stream-K's rule)") == 0,
          "rung 20 at 128 x 8192 x 8192: \"%s\"", config);
    /* and the row's values name the rule as SK's source, not a preset's */
    CHECK(kl_ladder_set_by_rule(config, "SK") && !kl_ladder_set_by_rule(config, "K") &&
              !kl_ladder_set_by_rule("preset sm_90 BN=192 SK=1", "SK") &&
              kl_ladder_set_by_rule("preset sm_90 BN=192 SPLITK=4 (split-K's rule)", "SPLITK") &&
              !kl_ladder_set_by_rule("preset sm_90 BN=192 SPLITK=4 (split-K's rule)", "BN"),
          "a value the rules set is told from a preset's");
}

/*
 * kl_fp8_tolerance against that model, on uniform e4m3 inputs: sums
 * promoted every 128 elements pass the promoted bound, sums kept over all of
 * K pass the fast bound, and from K = 8192 fast sums fail the promoted one
 * (the bound tells the modes apart); every product in fp32 (span 1) passes.
 */
static void test_fp8_tolerance(void)
{
    enum { MN = 256, KMAX = 16384 };
    static const long depths[] = {32, 512, 8192, KMAX};
    static double prod[KMAX], ref[MN], scale[MN];
    static float promoted[MN], fast[MN], exact[MN];
    static unsigned char raw[2 * KMAX];
    struct kl_rng rng;
    struct kl_check c;
    kl_rng_seed(&rng, 58);
    for (size_t d = 0; d < sizeof depths / sizeof *depths; d++) {
        long K = depths[d];
        for (int el = 0; el < MN; el++) {
            double sum = 0, mag = 0;
            float fp32 = 0;
            kl_fill_uniform(KL_FP8, raw, 2 * (size_t)K, &rng);
            for (long k = 0; k < K; k++) {
                prod[k] = kl_get(KL_FP8, raw, (size_t)k) * kl_get(KL_FP8, raw, (size_t)(K + k));
                sum += prod[k], mag += fabs(prod[k]), fp32 += (float)prod[k];
            }
            ref[el] = sum, scale[el] = mag, exact[el] = fp32;
            promoted[el] = (float)fp8_tensor_sum(prod, K, 128);
            fast[el] = (float)fp8_tensor_sum(prod, K, K);
        }
        double tol_promoted = kl_fp8_tolerance(K, 128), tol_fast = kl_fp8_tolerance(K, K);
        CHECK(tol_promoted <= tol_fast && kl_fp8_tolerance(K, 0) == tol_fast &&
                  kl_fp8_tolerance(K, 2 * K) == tol_fast,
              "K=%ld: the promoted bound %g, the fast %g; unknown and longer spans are fast", K,
              tol_promoted, tol_fast);
        kl_check(KL_FLOAT, promoted, ref, scale, NULL, MN, tol_promoted, &c);
        CHECK(c.bad == 0, "K=%ld: sums promoted every 128 fail their bound (error %g > %g)", K,
              c.max_error, tol_promoted);
        kl_check(KL_FLOAT, fast, ref, scale, NULL, MN, tol_fast, &c);
        CHECK(c.bad == 0, "K=%ld: fast sums fail the fast bound (error %g > %g)", K, c.max_error,
              tol_fast);
        kl_check(KL_FLOAT, exact, ref, scale, NULL, MN, kl_fp8_tolerance(K, 1), &c);
        CHECK(c.bad == 0, "K=%ld: fp32 sums fail the bound of span 1 (error %g)", K, c.max_error);
        kl_check(KL_FLOAT, fast, ref, scale, NULL, MN, tol_promoted, &c);
        CHECK(K < 8192 || c.max_error > tol_promoted,
              "K=%ld: fast sums pass the promoted bound (error %g <= %g)", K, c.max_error,
              tol_promoted);
    }
    /* what a row says it assumed, and the span each path declares */
    char buf[96];
    const struct kl_gemm_rung *r19 = kl_gemm_rung_find("19_mma"),
                              *r20 = kl_gemm_rung_find("20_wgmma");
    int v[KL_MAX_PARAMS];
    struct kl_err e;
    CHECK(r19 && r20 && rung_defaults(r20, v), "rungs 19 and 20");
    CHECK(kl_gemm_sum_span(r20, v, KL_FP8, 8192) == 128 &&
              kl_gemm_sum_span(r20, v, KL_FP8, 100) == 128 &&
              kl_gemm_sum_span(r20, v, KL_HALF, 8192) == 0 &&
              kl_gemm_sum_span(r19, v, KL_FP8E5M2, 8192) == 32 &&
              kl_gemm_sum_span(kl_gemm_rung_find("10_tiled"), v, KL_FP8, 8192) == 1,
          "the spans of rung 20 (PROMOTE), rung 19 (mma.sync) and an FMA rung");
    /* the second set of sums fits 192 columns; other types keep PROMOTE at its default */
    int promote = kl_param_index(r20->params, "PROMOTE"), bn = kl_param_index(r20->params, "BN");
    CHECK(r20->relations(r20, v, KL_FP8, &e) == KL_ERR_ARG && strstr(e.msg, "BN <= 192") &&
              strstr(e.msg, "sets aside the preset") &&
              r20->relations(r20, v, KL_HALF, &e) == KL_OK,
          "PROMOTE with 256 columns: %s", e.msg);
    v[bn] = 192;
    CHECK(r20->relations(r20, v, KL_FP8E5M2, &e) == KL_OK, "PROMOTE at BN=192: %s", e.msg);
    v[promote] = 256;
    CHECK(r20->relations(r20, v, KL_BF16, &e) == KL_ERR_ARG && strstr(e.msg, "FP8's"),
          "PROMOTE=256 for bf16 is refused");
    v[promote] = 0, v[bn] = 256;
    CHECK(r20->relations(r20, v, KL_FP8, &e) == KL_OK &&
              kl_gemm_sum_span(r20, v, KL_FP8, 8192) == 8192,
          "PROMOTE=0 keeps all of K, in any tile");
    /* stream-K: in any type, FP8 promoted or not; promoted still within its registers */
    int sk = kl_param_index(r20->params, "SK");
    v[sk] = 1, v[bn] = 192;
    CHECK(r20->relations(r20, v, KL_FP8, &e) == KL_OK, "SK=1 with PROMOTE=0: %s", e.msg);
    v[promote] = 128;
    CHECK(r20->relations(r20, v, KL_FP8, &e) == KL_OK, "SK=1 with PROMOTE=128: %s", e.msg);
    CHECK(r20->relations(r20, v, KL_HALF, &e) == KL_OK, "SK=1 in half (PROMOTE its default): %s",
          e.msg);
    v[bn] = 256;
    CHECK(r20->relations(r20, v, KL_FP8, &e) == KL_ERR_ARG && strstr(e.msg, "BN <= 192"),
          "SK=1 does not lift PROMOTE's bound on BN: %s", e.msg);
    v[bn] = 192;
    v[sk] = 0, v[promote] = 0, v[bn] = 256;
    CHECK(strstr(kl_gemm_sums_text(KL_FP8, 8192, 128, buf, sizeof buf), "every 128 of K") &&
              strstr(kl_gemm_sums_text(KL_FP8, 8192, 8192, buf, sizeof buf), "over all of K") &&
              strstr(kl_gemm_sums_text(KL_FP8, 100, 128, buf, sizeof buf), "(K is 100)") &&
              kl_gemm_sums_text(KL_BF16, 8192, 0, buf, sizeof buf)[0] == '\0',
          "the sums' words");
    CHECK(kl_peer_gemm_sum_span("cublaslt", KL_FP8, 8192) == 128 &&
              kl_peer_gemm_sum_span("cublaslt_fast", KL_FP8, 8192) == 8192 &&
              kl_peer_gemm_sum_span("cublaslt", KL_HALF, 8192) == 0,
          "the peers' spans");
}

/* int8's products are summed in int32 and checked exactly: an error of 1 fails. */
static void test_int8_exact(void)
{
    enum { MN = 256, K = 512 };
    static int32_t got[MN];
    static double ref[MN], scale[MN];
    static int8_t a[K], b[K];
    struct kl_rng rng;
    struct kl_check c;
    kl_rng_seed(&rng, 8);
    for (int el = 0; el < MN; el++) {
        int32_t sum = 0;
        double mag = 0;
        kl_fill_uniform(KL_INT8, a, K, &rng);
        kl_fill_uniform(KL_INT8, b, K, &rng);
        for (int k = 0; k < K; k++)
            sum += a[k] * b[k], mag += fabs((double)a[k] * b[k]);
        got[el] = sum, ref[el] = sum, scale[el] = mag;
    }
    double tol = kl_narrow_tolerance(KL_INT8, K);
    CHECK(tol == 0.0, "int8's tolerance is %g, not exact", tol);
    kl_check(KL_INT, got, ref, scale, NULL, MN, tol, &c);
    CHECK(c.bad == 0 && c.max_error == 0, "int8: exact sums fail (%zu bad)", c.bad);
    got[77] += 1;
    got[200] -= 1;
    kl_check(KL_INT, got, ref, scale, NULL, MN, tol, &c);
    CHECK(c.bad == 2 && c.first[0] == 77 && c.first[1] == 200 && c.max_error > 0,
          "int8: errors of 1 pass (%zu bad)", c.bad);
}

static void test_precision(void)
{
    for (int p = KL_PREC_FP32; p <= KL_PREC_INT8; p++)
        CHECK((int)kl_precision_parse(kl_precision_name((enum kl_precision)p)) == p, "precision %d",
              p);
    CHECK(kl_precision_name(KL_PREC_NONE) == NULL && kl_precision_parse("bf8") == KL_PREC_NONE &&
              kl_precision_parse(NULL) == KL_PREC_NONE,
          "no precision");
    CHECK(kl_precision_class(KL_PREC_3XTF32) == kl_precision_class(KL_PREC_FP32) &&
              kl_precision_class(KL_PREC_TF32) != kl_precision_class(KL_PREC_FP32),
          "3xtf32 is float-accurate, tf32 is not");
    CHECK(kl_peer_likeness(128, 128) == 2 && kl_peer_likeness(0, 0) == 2 &&
              kl_peer_likeness(128, 16384) == 1 && kl_peer_likeness(16384, 128) == 0,
          "FP8 peers: alike, coarser, finer");
    /* Tensor cores with TF32: NVIDIA, compute capability 8.0 or more; the reason otherwise. */
    struct kl_device_info d;
    char why[256];
    memset(&d, 0, sizeof d);
    snprintf(d.vendor, sizeof d.vendor, "NVIDIA Corporation");
    d.cc_major = 9;
    CHECK(kl_tensor_tf32(&d, why, sizeof why), "an H100 has them");
    d.cc_major = 7, d.cc_minor = 5;
    CHECK(!kl_tensor_tf32(&d, why, sizeof why) && strstr(why, "7.5"), "a T4 has not: %s", why);
    d.cc_major = 0;
    CHECK(!kl_tensor_tf32(&d, why, sizeof why) && strstr(why, "cl_nv_device_attribute_query"),
          "unknown compute capability: %s", why);
    snprintf(d.vendor, sizeof d.vendor, "AuthenticAMD");
    d.cc_major = 9;
    CHECK(!kl_tensor_tf32(&d, why, sizeof why) && strstr(why, "NVIDIA GPUs only"), "a CPU: %s",
          why);
    /* The measured error: the largest |got - ref| / scale. */
    float got[3] = {1.0f, 2.5f, -1.0f};
    double ref[3] = {1.0, 2.0, -1.5}, scale[3] = {2.0, 5.0, 1.0};
    struct kl_check c;
    kl_check(KL_FLOAT, got, ref, scale, NULL, 3, 1.0, &c);
    CHECK(fabs(c.max_error - 0.5) < 1e-12 && c.bad == 0, "max error %g", c.max_error);
    int32_t ig[2] = {3, 4};
    double ir[2] = {3, 4};
    kl_check(KL_INT, ig, ir, scale, NULL, 2, 0.0, &c);
    CHECK(c.bad == 0 && c.max_error == 0, "int: exact, error 0");
}

/* A row of precision p (on the tensor cores or not) doing 1 GFLOP in 1 ms: its % roof. */
static double pct_of(struct kl_report *r, enum kl_precision p, int tensor)
{
    kl_report_free(r);
    struct kl_result *x = kl_report_add(r, "row", NULL);
    x->status = KL_RESULT_VERIFIED;
    x->precision = p;
    x->tensor = tensor;
    x->median_s = x->min_s = x->max_s = 1e-3;
    x->repeats = 1;
    x->flops = 1e9;
    x->bytes = 1e3; /* far right of every ridge: the compute roof binds */
    kl_report_finish(r);
    return x->pct_ceiling;
}

/* Each row is judged against the roof of its own precision and unit; the registry is whole. */
static void test_roofs(void)
{
    struct kl_report r;
    memset(&r, 0, sizeof r);
    r.have_ceilings = 1;
    r.type = KL_FLOAT;
    struct kl_ceilings *c = &r.ceilings;
    c->copy_gbps = 1000, c->f32_gflops = 2000, c->f64_gflops = 1000, c->i32_giops = 1000;
    c->f16_gflops = 4000, c->tf32_gflops = 8000, c->f16_tc_gflops = 16000;
    c->bf16_gflops = 20000, c->fp8_gflops = 32000, c->fp8e5m2_gflops = 40000;
    c->i8_giops = 50000, c->f64_tc_gflops = 2500;
    struct {
        enum kl_precision p;
        int tensor;
        double roof;
    } cases[] = {
        {KL_PREC_FP32, 0, 2000},  {KL_PREC_TF32, 0, 8000},  {KL_PREC_3XTF32, 1, 8000.0 / 3},
        {KL_PREC_BF16, 1, 20000}, {KL_PREC_FP8, 1, 32000},  {KL_PREC_FP8E5M2, 1, 40000},
        {KL_PREC_INT8, 1, 50000}, {KL_PREC_FP16, 1, 16000}, {KL_PREC_FP16, 0, 4000},
        {KL_PREC_FP64, 1, 2500},  {KL_PREC_FP64, 0, 1000},  {KL_PREC_NONE, 0, 2000}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        double pct = pct_of(&r, cases[i].p, cases[i].tensor);
        CHECK(fabs(pct - 100.0 * 1000 / cases[i].roof) < 1e-9, "%s (tensor %d): %.4g%% of its roof",
              kl_precision_name(cases[i].p) ? kl_precision_name(cases[i].p) : "none",
              cases[i].tensor, pct);
    }
    /* An FMA rung given bf16 or int8 widens them for the FMA units: FP32's and INT32's roofs. */
    (void)pct_of(&r, KL_PREC_BF16, 0);
    r.results[0].fma = 1;
    kl_report_finish(&r);
    CHECK(fabs(r.results[0].pct_ceiling - 50.0) < 1e-9, "bf16 on the FMA units: %.4g%% of FP32's",
          r.results[0].pct_ceiling);
    (void)pct_of(&r, KL_PREC_INT8, 0);
    r.results[0].fma = 1;
    kl_report_finish(&r);
    CHECK(fabs(r.results[0].pct_ceiling - 100.0) < 1e-9, "int8 on the FMA units: %.4g%% of INT32's",
          r.results[0].pct_ceiling);
    /* Memory-bound: the same row with 1 GB of traffic meets the copy slope first. */
    (void)pct_of(&r, KL_PREC_BF16, 1);
    r.results[0].bytes = 1e9;
    kl_report_finish(&r);
    CHECK(fabs(r.results[0].pct_ceiling - 100.0) < 1e-9,
          "bf16 at 1 FLOP/B: against the copy slope, %.4g%%", r.results[0].pct_ceiling);
    kl_report_free(&r);
    /* The registry: unique keys, each a double of the struct, found by name. */
    for (int i = 0; i < kl_ceiling_count; i++) {
        const struct kl_ceiling_def *d = &kl_ceiling_defs[i];
        CHECK(kl_ceiling_find(d->key) == d && d->offset % sizeof(double) == 0 &&
                  d->offset + sizeof(double) <= offsetof(struct kl_ceilings, date) && d->unit[0] &&
                  d->label[0] && d->method[0],
              "figure %s", d->key);
    }
    CHECK(kl_ceiling_find("nothing") == NULL && kl_ceiling_find(NULL) == NULL, "no such figure");
    /* The specification: SMs x highest clock x the per-SM rate; none where unknown. */
    struct kl_device_info h100, a100, other;
    char basis[256];
    memset(&h100, 0, sizeof h100);
    h100.compute_units = 132, h100.max_clock_mhz = 1980, h100.cc_major = 9;
    a100 = h100;
    a100.compute_units = 108, a100.max_clock_mhz = 1410, a100.cc_major = 8;
    other = h100;
    other.cc_major = 8, other.cc_minor = 6;
    double f16 = kl_ceiling_spec(kl_ceiling_find("f16_tc_gflops"), &h100, basis, sizeof basis);
    CHECK(fabs(f16 - 132 * 1980e6 * 4096 * 1e-9) < 1e-3 && strstr(basis, "132 SMs"),
          "H100 FP16: %.1f (%s)", f16, basis);
    double tf32 = kl_ceiling_spec(kl_ceiling_find("tf32_gflops"), &a100, basis, sizeof basis);
    CHECK(fabs(tf32 - 155934.72) < 1e-3, "A100 TF32: %.2f, the datasheet's 156 TFLOP/s", tf32);
    CHECK(kl_ceiling_spec(kl_ceiling_find("fp8_gflops"), &a100, basis, sizeof basis) == 0,
          "an A100 has no FP8: %s", basis);
    CHECK(kl_ceiling_spec(kl_ceiling_find("bf16_gflops"), &other, basis, sizeof basis) == 0 &&
              strstr(basis, "8.6"),
          "unknown per-SM rates give none: %s", basis);
    CHECK(kl_ceiling_spec(kl_ceiling_find("copy_gbps"), &h100, basis, sizeof basis) == 0,
          "no specification for bandwidth: %s", basis);
}

/* Sizes and rates as every table prints them: three or four significant digits. */
static void test_texts(void)
{
    static const struct {
        double v;
        const char *unit, *want;
    } rates[] = {{595.08, "GB/s", "595 GB/s"},         {4239.7, "GB/s", "4.24 TB/s"},
                 {65734.7, "GFLOP/s", "65.7 TFLOP/s"}, {1754000, "GFLOP/s", "1754 TFLOP/s"},
                 {33.35, "GIOP/s", "33.4 GIOP/s"},     {2.5, "GB/s", "2.50 GB/s"}};
    static const struct {
        double v;
        const char *want;
    } sizes[] = {{100000, "97.7 KiB"},
                 {4096, "4 KiB"},
                 {1.5 * 1073741824.0, "1.50 GiB"},
                 {512, "512 bytes"},
                 {268435456, "256 MiB"}};
    char text[64], err[256];
    long b;
    for (size_t i = 0; i < sizeof rates / sizeof *rates; i++) {
        kl_rate_text(rates[i].v, rates[i].unit, text, sizeof text);
        CHECK(strcmp(text, rates[i].want) == 0, "%g %s: \"%s\", want \"%s\"", rates[i].v,
              rates[i].unit, text, rates[i].want);
    }
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        kl_bytes_text(sizes[i].v, text, sizeof text);
        CHECK(strcmp(text, sizes[i].want) == 0, "%g bytes: \"%s\", want \"%s\"", sizes[i].v, text,
              sizes[i].want);
    }
    CHECK(kl_parse_bytes("--bytes", "64K", 65536, 1L << 40, &b, err, sizeof err) == 0 && b == 65536,
          "64K: %ld", b);
    CHECK(kl_parse_bytes("--bytes", "1GiB", 65536, 1L << 40, &b, err, sizeof err) == 0 &&
              b == 1073741824,
          "1GiB: %ld", b);
    CHECK(kl_parse_bytes("--bytes", "64Q", 65536, 1L << 40, &b, err, sizeof err) != 0 &&
              strstr(err, "K, M, G or T"),
          "64Q: %s", err);
    CHECK(kl_parse_bytes("--bytes", "1K", 65536, 1L << 40, &b, err, sizeof err) != 0 &&
              strstr(err, "out of range"),
          "1K: %s", err);
}

/* A device's roofs through one backend raised to those another measured of it (its PCI id). */
static void test_roofs_across_backends(void)
{
    char dir[] = "/tmp/kladder-units-XXXXXX", from[256];
    struct kl_device_info cl, cu, other;
    struct kl_ceilings c;
    struct kl_err e;
    if (!mkdtemp(dir)) {
        CHECK(0, "mkdtemp");
        return;
    }
    setenv("KLADDER_CACHE_DIR", dir, 1);
    memset(&cl, 0, sizeof cl);
    snprintf(cl.name, sizeof cl.name, "GPU"), snprintf(cl.platform, sizeof cl.platform, "NVIDIA");
    snprintf(cl.pci_bus_id, sizeof cl.pci_bus_id, "0000:1b:00.0");
    cu = cl, other = cl;
    snprintf(cu.platform, sizeof cu.platform, "CUDA");
    snprintf(cu.pci_bus_id, sizeof cu.pci_bus_id, "00000000:1B:00.0"); /* CUDA's spelling */
    snprintf(other.pci_bus_id, sizeof other.pci_bus_id, "0000:3b:00.0");
    memset(&c, 0, sizeof c);
    c.copy_gbps = 4400, c.f32_gflops = 65000, c.tf32_gflops = 488000, c.launch_us = 2;
    CHECK(kl_ceilings_save(&cu, "cuda", &c, &e) == KL_OK, "save cuda's: %s", e.msg);
    c.copy_gbps = 4300, c.f32_gflops = 65700, c.tf32_gflops = 326000, c.launch_us = 9;
    CHECK(kl_ceilings_save(&cl, "opencl", &c, &e) == KL_OK, "save opencl's: %s", e.msg);
    CHECK(kl_ceilings_load(&cl, "opencl", &c, from, sizeof from) == 1, "load opencl's");
    int took = kl_ceilings_best(&cl, "opencl", &c, from, sizeof from);
    CHECK(took == 2 && c.tf32_gflops == 488000 && c.copy_gbps == 4400 && c.f32_gflops == 65700 &&
              c.launch_us == 9 && strstr(from, "TF32") && strstr(from, "through cuda"),
          "opencl's roofs raised to cuda's where higher: %d (%s), TF32 %g, FP32 %g, launch %g",
          took, from, c.tf32_gflops, c.f32_gflops, c.launch_us);
    memset(&c, 0, sizeof c);
    CHECK(kl_ceilings_best(&other, "opencl", &c, from, sizeof from) == 0 && c.tf32_gflops == 0,
          "another device's roofs are not taken: %s", from);
    snprintf(other.name, sizeof other.name, "Another GPU");
    snprintf(other.pci_bus_id, sizeof other.pci_bus_id, "%s", cl.pci_bus_id);
    CHECK(kl_ceilings_best(&other, "opencl", &c, from, sizeof from) == 0 && c.tf32_gflops == 0,
          "a cache of the same PCI id but another device's name is not taken: %s", from);
    for (const char *b = "cuda"; b; b = strcmp(b, "cuda") == 0 ? "opencl" : NULL) {
        char path[4096];
        kl_ceilings_path(strcmp(b, "cuda") == 0 ? &cu : &cl, b, path, sizeof path);
        remove(path);
    }
    rmdir(dir);
    unsetenv("KLADDER_CACHE_DIR");
}

/*
 * A kernel tree as a kl_kernel_loader: cuda/x/h.cuh, cuda/x/outer.cuh (which
 * includes h.cuh) and cuda/x/self.cuh (which includes itself).
 */
static enum kl_status one_header(void *ctx, const char *path, char **out, struct kl_err *e)
{
    (void)ctx;
    if (strcmp(path, "cuda/x/h.cuh") == 0)
        *out = kl_strdup("H1\nH2");
    else if (strcmp(path, "cuda/x/outer.cuh") == 0)
        *out = kl_strdup("O1\n#include \"h.cuh\"\nO2\n");
    else if (strcmp(path, "cuda/y/side.cuh") == 0)
        *out = kl_strdup("S");
    else if (strcmp(path, "cuda/x/self.cuh") == 0)
        *out = kl_strdup("#include \"self.cuh\"\n");
    else
        return kl_fail(e, KL_ERR_IO, "kernel file %s is not built into kladder", path);
    return *out ? KL_OK : KL_ERR_NO_MEMORY;
}

/* A .cu file's #include "NAME" lines, replaced by the header beside it for NVRTC. */
static void test_inline(void)
{
    struct kl_err e = {0};
    char *out = NULL;
    enum kl_status st =
        kl_kernel_inline("cuda/x/k.cu", "a\n #  include \"h.cuh\"\n#include <cuda.h>\nb",
                         one_header, NULL, &out, &e);
    CHECK(st == KL_OK && out &&
              strcmp(out, "a\n#line 1 \"cuda/x/h.cuh\"\nH1\nH2\n#line 3 \"cuda/x/k.cu\"\n"
                          "#include <cuda.h>\nb\n") == 0,
          "the header inlined between #line directives, <...> left alone: %s", out ? out : "-");
    free(out);
    out = NULL;
    st = kl_kernel_inline("cuda/x/k.cu", "#include \"gone.cuh\"\n", one_header, NULL, &out, &e);
    CHECK(st == KL_ERR_IO && !out && strstr(e.msg, "cuda/x/gone.cuh") &&
              strstr(e.msg, "(#include in cuda/x/k.cu)"),
          "a missing header is named with the file that includes it: %s", e.msg);
    out = NULL;
    st =
        kl_kernel_inline("cuda/x/k.cu", "#include \"../y/side.cuh\"\n", one_header, NULL, &out, &e);
    CHECK(st == KL_OK && out && strstr(out, "#line 1 \"cuda/y/side.cuh\"\nS\n"),
          "a header in a neighbouring folder: %s", out ? out : "-");
    free(out);
    out = NULL;
    st = kl_kernel_inline("k.cu", "x\n", one_header, NULL, &out, &e);
    CHECK(st == KL_OK && out && strcmp(out, "x\n") == 0, "no includes: the text unchanged");
    free(out);
    out = NULL;
    st = kl_kernel_inline("cuda/x/k.cu", "#include \"outer.cuh\"\nb", one_header, NULL, &out, &e);
    CHECK(st == KL_OK && out &&
              strcmp(out, "#line 1 \"cuda/x/outer.cuh\"\nO1\n#line 1 \"cuda/x/h.cuh\"\nH1\nH2\n"
                          "#line 3 \"cuda/x/outer.cuh\"\nO2\n#line 2 \"cuda/x/k.cu\"\nb\n") == 0,
          "a header's own include inlined too: %s", out ? out : "-");
    free(out);
    out = NULL;
    st = kl_kernel_inline("cuda/x/k.cu", "#include \"self.cuh\"\n", one_header, NULL, &out, &e);
    CHECK(st == KL_ERR_BUILD && !out && strstr(e.msg, "nested more than 4 deep"),
          "a header that includes itself is refused: %s", e.msg);
}

/* ---- the ladder engine, on a workload of its own ---------------------------- */

/* Rung "fits" runs; "big" needs X <= 4 on this pretend device (default 8); "wrong" fails
 * verification; "noext" needs an extension the pretend device lacks. */
struct fake_rung {
    const char *name, *summary;
    struct kl_param_def params[2];
};
static const struct fake_rung fake_rungs[] = {
    {"01_fits", "runs and verifies", {{"X", 1, 1, 16, 1, 0, "x"}}},
    {"02_big", "its default X=8 does not fit", {{"X", 8, 1, 16, 1, 0, "x"}}},
    {"03_wrong", "fails verification", {{"X", 1, 1, 16, 1, 0, "x"}}},
    {"04_noext", "needs what the device lacks", {{"X", 1, 1, 16, 1, 0, "x"}}},
};
KL_RUNG_TABLE(fake, struct fake_rung, fake_rungs);

struct fake_wl {
    int runs;
    struct kl_err *e;
};

static int fake_available(void *self, int i, char *why, size_t n)
{
    (void)self;
    snprintf(why, n, "no such extension");
    return i != 3;
}

static enum kl_status fake_check(void *self, int i, const int *v, struct kl_err *e)
{
    (void)self;
    return i == 1 && v[0] > 4 ? kl_fail(e, KL_ERR_UNSUPPORTED, "X=%d does not fit", v[0]) : KL_OK;
}

static enum kl_status fake_run(void *self, int i, const int *v, const struct kl_protocol *proto,
                               struct kl_result *res)
{
    struct fake_wl *f = self;
    (void)proto;
    enum kl_status st = fake_check(self, i, v, f->e);
    f->runs++;
    if (st != KL_OK)
        return st;
    if (i == 2)
        return kl_fail(f->e, KL_ERR_VERIFY, "3 of 9 elements differ");
    res->status = KL_RESULT_VERIFIED;
    res->median_s = 1e-3 * v[0];
    return KL_OK;
}

/* Runs the fake ladder; returns the engine's status, rep holds the rows. */
static enum kl_status fake_ladder(int named_is_users, const char *const *names, int nnames,
                                  const char *const *params, int nparams, struct kl_report *rep,
                                  int *runs)
{
    struct kl_err e;
    struct fake_wl f = {0, &e};
    struct kl_workload w = {.table = &table,
                            .self = &f,
                            .named_is_users = named_is_users,
                            .available = fake_available,
                            .check = fake_check,
                            .run = fake_run};
    struct kl_protocol proto;
    kl_protocol_default(&proto);
    struct kl_ladder_args a = {names, nnames, params, nparams, NULL, 0, &proto, NULL};
    int chosen[4], n;
    enum kl_status st;
    memset(rep, 0, sizeof *rep);
    if ((st = kl_ladder_begin(&w, &a, chosen, &n, &e)) == KL_OK)
        st = kl_ladder_rungs(&w, &a, chosen, n, 0, n, rep, &e);
    *runs = f.runs;
    return st;
}

static void test_engine(void)
{
    struct kl_report rep;
    int runs;
    /* The whole ladder: verified, skipped (defaults misfit), failed, skipped (unavailable). */
    CHECK(fake_ladder(1, NULL, 0, NULL, 0, &rep, &runs) == KL_OK && rep.count == 4 && runs == 3,
          "the whole fake ladder runs to its end");
    CHECK(rep.count == 4 && rep.results[0].status == KL_RESULT_VERIFIED &&
              rep.results[1].status == KL_RESULT_SKIPPED &&
              strstr(rep.results[1].note, "X=8 does not fit") &&
              rep.results[2].status == KL_RESULT_FAILED &&
              strstr(rep.results[2].note, "3 of 9 elements differ") &&
              rep.results[3].status == KL_RESULT_SKIPPED &&
              strstr(rep.results[3].note, "no such extension"),
          "rows: verified, skipped with the reason, failed with the reason, skipped");
    kl_report_free(&rep);
    /* What the user set is checked before anything runs. */
    const char *x8[] = {"X=8"}, *x2[] = {"X=2"}, *big[] = {"02"}, *noext[] = {"04_noext"},
               *nosuch[] = {"nosuch"}, *y[] = {"Y=1"};
    CHECK(fake_ladder(1, NULL, 0, x8, 1, &rep, &runs) == KL_ERR_UNSUPPORTED && runs == 0,
          "--param that does not fit: an error before any run");
    kl_report_free(&rep);
    CHECK(fake_ladder(1, big, 1, x2, 1, &rep, &runs) == KL_OK && rep.count == 1 &&
              rep.results[0].status == KL_RESULT_VERIFIED && rep.results[0].median_s == 2e-3,
          "--param reaches the run");
    kl_report_free(&rep);
    CHECK(fake_ladder(1, big, 1, NULL, 0, &rep, &runs) == KL_ERR_UNSUPPORTED && runs == 0,
          "a named rung is the user's where the workload says so");
    kl_report_free(&rep);
    CHECK(fake_ladder(0, big, 1, NULL, 0, &rep, &runs) == KL_OK && rep.count == 1 &&
              rep.results[0].status == KL_RESULT_SKIPPED,
          "and a skipped row where it does not");
    kl_report_free(&rep);
    CHECK(fake_ladder(1, noext, 1, NULL, 0, &rep, &runs) == KL_ERR_UNSUPPORTED,
          "an unavailable rung named by the user is an error");
    kl_report_free(&rep);
    CHECK(fake_ladder(1, nosuch, 1, NULL, 0, &rep, &runs) == KL_ERR_ARG &&
              fake_ladder(1, NULL, 0, y, 1, &rep, &runs) == KL_ERR_ARG,
          "unknown rung or parameter refused");
    kl_report_free(&rep);
}

/* ---- the tuner's search, on a target of its own --------------------------------- */

/*
 * A pretend kernel of parameters A (1..256) and B (1..MAXB), powers of two:
 * A·B above 512 does not fit the pretend device; A=2 computes the wrong
 * thing; the time is 1 ms more per power of two away from A=32, B=4.
 */
static const struct kl_param_def search_params[] = {
    {"A", 4, 1, 256, 1, 1, "a"}, {"B", 1, 1, 8, 1, 1, "b"}, {NULL, 0, 0, 0, 0, 0, NULL}};

static int item_value(const char *const *items, int n, const char *name, int def)
{
    for (int k = 0; k < n; k++)
        if (strncmp(items[k], name, 1) == 0 && items[k][1] == '=')
            return atoi(items[k] + 2);
    return def;
}

static enum kl_status search_check(void *self, const char *const *items, int n, size_t *wg,
                                   struct kl_err *e)
{
    int a = item_value(items, n, "A", 4), b = item_value(items, n, "B", 1);
    (void)self;
    if (wg)
        *wg = (size_t)a * (size_t)b;
    return a * b > 512 ? kl_fail(e, KL_ERR_UNSUPPORTED, "A*B=%d does not fit", a * b) : KL_OK;
}

static enum kl_status search_run(void *self, const char *const *items, int n,
                                 const struct kl_protocol *proto, struct kl_run_limits *lim,
                                 struct kl_result *res)
{
    int a = item_value(items, n, "A", 4), b = item_value(items, n, "B", 1), *runs = self;
    (void)proto, (void)lim;
    ++*runs;
    if (a == 2) {
        res->status = KL_RESULT_FAILED;
        snprintf(res->note, sizeof res->note, "wrong");
        return KL_OK;
    }
    res->status = KL_RESULT_VERIFIED;
    res->median_s = 1e-3 * (1 + fabs(log2(a) - 5) + fabs(log2(b) - 2));
    return KL_OK;
}

static void test_log_remap(void)
{
    const char *src = "prelude 1\nprelude 2\n#line 1 \"mine.cl\"\nk 1\n#line 1 \"h.h\"\nh 1\n"
                      "#line 3 \"mine.cl\"\nk 3\nk 4\n";
    char msg[256] = "<kernel>:9:5: error: x\n<kernel>:6:1: note\n<kernel>:2:1: p";
    kl_build_log_remap(src, msg, sizeof msg);
    CHECK(strcmp(msg, "mine.cl:4:5: error: x\nh.h:1:1: note\nkernel:2:1: p") == 0,
          "NVIDIA's <kernel>:N positions become the files' own: %s", msg);
    char small[24] = "<kernel>:9:5: e";
    kl_build_log_remap(src, small, sizeof small);
    CHECK(strcmp(small, "mine.cl:4:5: e") == 0, "within a small buffer: %s", small);
    char none[32] = "<kernel>:99: far";
    kl_build_log_remap(src, none, sizeof none);
    CHECK(strcmp(none, "<kernel>:99: far") == 0, "a line beyond the source is left alone");
}

static void test_search(void)
{
    struct kl_context kl;
    struct kl_err e;
    struct kl_tune_space s;
    struct kl_tune_request q;
    struct kl_tune_outcome o;
    int runs = 0;
    struct kl_tune_target t = {"pretend",    search_params, NULL,       &runs, NULL,
                               search_check, NULL,          search_run, &e};
    memset(&kl, 0, sizeof kl);
    CHECK(kl_tune_space_build(&kl, &t, &s, &e) == KL_OK && s.nparams == 2 && s.nvalues[0] == 9 &&
              s.nvalues[1] == 4 && s.combinations == 36 && s.pruned == 3 && s.count == 33 &&
              s.default_index >= 0,
          "the space: 9 x 4 powers of two, the 3 with A*B > 512 pruned (%ld, %d)", s.pruned,
          s.count);
    memset(&q, 0, sizeof q);
    q.seed = 5;
    q.search = q.confirm =
        (struct kl_protocol){.warmup = 0, .min_repeats = 1, .min_time = 0, .max_repeats = 1};
    q.exhaustive = 1;
    CHECK(kl_tune_search(&s, &q, &o) == KL_OK && o.exhaustive && o.state.tried == 33 &&
              o.state.rejected == 4 && o.state.verified == 29 && o.have_best && o.have_default &&
              strcmp(o.best_params, "A=32,B=4") == 0 && strcmp(o.default_params, "A=4,B=1") == 0,
          "exhaustive: every candidate, the 4 wrong ones rejected, the best A=32,B=4 (%s)",
          o.best_params);
    /* The search proper: a sample, then best-first steps (then, with no budget, the rest). */
    runs = 0;
    q.exhaustive = 0;
    CHECK(kl_tune_search(&s, &q, &o) == KL_OK && strcmp(o.strategy, "search") == 0 && o.have_best &&
              strcmp(o.best_params, "A=32,B=4") == 0 && runs == o.state.tried,
          "the local search finds A=32,B=4 after %d of %d candidates (%s)", o.state.tried, s.count,
          o.best_params);
    /* Stopped at the roof: 1 unit of work per launch, a roof the best reaches. */
    q.work = 1;
    q.roof = 1 / 1e-3;
    CHECK(kl_tune_search(&s, &q, &o) == KL_OK && o.stopped_at_roof && o.have_best,
          "the search stops at 95%% of the roof");
    kl_tune_space_free(&s);

    /* A rung that runs untuned at values other than its defaults (a workload's rule): the space
       holds them, A=24 included (not a power of two), and they are the baseline it reports. */
    const int start[2] = {24, 2};
    t.start = start;
    CHECK(kl_tune_space_build(&kl, &t, &s, &e) == KL_OK && s.nvalues[0] == 10 &&
              s.default_index >= 0,
          "the start's A=24 is a value of the space (%d values)", s.nvalues[0]);
    q.work = 0;
    q.roof = 0;
    q.exhaustive = 1;
    CHECK(kl_tune_search(&s, &q, &o) == KL_OK && o.have_default &&
              strcmp(o.default_params, "A=24,B=2") == 0 && strcmp(o.best_params, "A=32,B=4") == 0,
          "the baseline is the start, A=24,B=2 (%s)", o.default_params);
    kl_tune_space_free(&s);
}

/*
 * The confirmation in rounds, on a pretend GPU held at its power limit: each
 * launch of the full protocol runs 10 % slower than the one before (it
 * warms). The search timed A=16,B=4 at 0.9 ms, ahead of the true best,
 * A=32,B=4 (1 ms); A=16,B=4 runs 1.05 ms. Confirmed one after the other, the
 * first confirmed would win (1.05 ms against 1.1); taking turns, the median
 * of each one's three rounds is A=32,B=4's 1.4 ms against A=16,B=4's 1.785.
 */
struct warming {
    int runs; /* of the full protocol so far */
};

static enum kl_status warming_run(void *self, const char *const *items, int n,
                                  const struct kl_protocol *proto, struct kl_run_limits *lim,
                                  struct kl_result *res)
{
    struct warming *w = self;
    int a = item_value(items, n, "A", 4), b = item_value(items, n, "B", 1);
    const int full = proto->min_repeats > 1, mistimed = a == 16 && b == 4;
    (void)lim;
    res->status = KL_RESULT_VERIFIED;
    res->median_s = 1e-3 * (1 + fabs(log2(a) - 5) + fabs(log2(b) - 2));
    if (mistimed)
        res->median_s = full ? 1.05e-3 : 0.9e-3;
    if (full)
        res->median_s *= 1 + 0.1 * w->runs++;
    return KL_OK;
}

static void test_search_rounds(void)
{
    struct kl_context kl;
    struct kl_err e;
    struct kl_tune_space s;
    struct kl_tune_request q;
    struct kl_tune_outcome o;
    struct warming w = {0};
    struct kl_tune_target t = {"warming",    search_params, NULL,        &w, NULL,
                               search_check, NULL,          warming_run, &e};
    memset(&kl, 0, sizeof kl);
    CHECK(kl_tune_space_build(&kl, &t, &s, &e) == KL_OK, "the space");
    memset(&q, 0, sizeof q);
    q.search = (struct kl_protocol){.min_repeats = 1, .max_repeats = 1};
    q.confirm = (struct kl_protocol){.min_repeats = 5, .max_repeats = 5};
    q.confirm_count = 3;
    q.exhaustive = 1;
    CHECK(kl_tune_search(&s, &q, &o) == KL_OK && o.have_best && o.have_default,
          "the search ends with a best and the defaults");
    CHECK(w.runs == 4 * KL_TUNE_CONFIRM_ROUNDS,
          "the best 3 and the defaults each timed %d times again (%d)", KL_TUNE_CONFIRM_ROUNDS,
          w.runs);
    CHECK(strcmp(o.best_params, "A=32,B=4") == 0 && fabs(o.best.median_s - 1.4e-3) < 1e-9,
          "taking turns, the true best wins, by the median of its rounds (%s, %.4g ms)",
          o.best_params, o.best.median_s * 1e3);
    kl_tune_space_free(&s);
}

/*
 * Rung 11's error bound against the same argument computed apart (Python, binary16 rounding
 * by struct): the weights as the blur makes them, floats of exp(-i^2 / 2 sigma^2) / sum.
 */
static void weights_of(double sigma, int R, float *w)
{
    double d[2 * 65 + 1], sum = 0;
    for (int i = -R; i <= R; i++)
        sum += d[i + R] = exp(-(double)i * i / (2 * sigma * sigma));
    for (int i = 0; i <= 2 * R; i++)
        w[i] = (float)(d[i] / sum);
}

static double half2_bound_of(double sigma, int R)
{
    float w[2 * 24 + 1];
    weights_of(sigma, R, w);
    return kl_blur_half2_bound(w, R);
}

static void test_half2_bound(void)
{
    static const struct {
        double sigma;
        int R;
        double want;
    } cases[] = {{1, 3, 0.2846767568641515},
                 {2, 6, 0.33056134253713454},
                 {3.5, 11, 0.43776128621534055},
                 {4, 12, 0.5173176465845839},
                 {8, 24, 0.738581095979956}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        double got = half2_bound_of(cases[i].sigma, cases[i].R);
        CHECK(fabs(got - cases[i].want) < 1e-9, "half2 bound at sigma %g, R %d: %.17g, want %.17g",
              cases[i].sigma, cases[i].R, got, cases[i].want);
    }
}

/*
 * Every blur rung's presets are valid sets of its parameters (preset_values; "" is the
 * defaults), and within an architecture their radii rise, so each one can be chosen.
 */
static void test_blur_presets(void)
{
    for (int i = 0; i < kl_blur_rung_count(); i++) {
        const struct kl_blur_rung *r = kl_blur_rung_at(i);
        for (int k = 0; k < KL_BLUR_MAX_PRESETS && r->presets[k].cc; k++) {
            const struct kl_blur_preset *p = &r->presets[k];
            int values[KL_MAX_PARAMS];
            int n = preset_values(r->name, r->params, r->multiples, p->params, values);
            CHECK(n >= 0 && (n > 0) == (*p->params != 0), "%s preset %d (%s) is a valid set",
                  r->name, k, p->params);
            for (int j = 0; j < k; j++)
                CHECK(r->presets[j].cc != p->cc || r->presets[j].max_radius < p->max_radius,
                      "%s presets %d and %d in rising radii", r->name, j, k);
        }
    }
}

/*
 * Rung 13's error bound against the same argument computed apart (Python, binary16 rounding by
 * struct), from radius 0 to the rung's largest; past it there is no bound.
 */
static void test_mma_bound(void)
{
    static const struct {
        double sigma;
        int R;
        double want;
    } cases[] = {{0.5, 0, 0.06833877803910582}, {1, 3, 0.12492964552253207},
                 {2, 6, 0.11001271863306558},   {4, 12, 0.13294719248570602},
                 {8, 24, 0.1175261178008253},   {16, 48, 0.13839408850533746},
                 {21, 64, 0.14465380779139236}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        float w[2 * KL_BLUR_MMA_MAX_RADIUS + 1];
        weights_of(cases[i].sigma, cases[i].R, w);
        double got = kl_blur_mma_bound(w, cases[i].R);
        CHECK(fabs(got - cases[i].want) < 1e-9, "mma bound at sigma %g, R %d: %.17g, want %.17g",
              cases[i].sigma, cases[i].R, got, cases[i].want);
    }
    float w[2 * 65 + 1];
    weights_of(22, 65, w);
    CHECK(isinf(kl_blur_mma_bound(w, 65)), "no mma bound past radius %d", KL_BLUR_MMA_MAX_RADIUS);
}

/*
 * Rung 14's error bound against the same argument computed apart (check_blur.sh's
 * split_bound: Python, binary16 rounding by struct) for a picture in [0, 1], from radius 0 to
 * the rung's largest, and for values up to 0.5 and 4 (past the float tolerance); past the
 * largest radius, or for values no half holds, there is no bound.
 */
static void test_split_bound(void)
{
    static const struct {
        double sigma;
        int R;
        double m, want;
    } cases[] = {{0.5, 0, 1, 5.017745255927909e-06}, {1, 3, 1, 5.415735425803307e-06},
                 {2, 6, 1, 5.389482844525581e-06},   {4, 12, 1, 5.55568431478941e-06},
                 {8, 24, 1, 5.621126941492695e-06},  {16, 48, 1, 5.989398069019462e-06},
                 {21, 64, 1, 6.233872031634363e-06}, {2, 6, 0.5, 2.6947414222627906e-06},
                 {2, 6, 4, 2.1557931378102325e-05}};
    float w[2 * 65 + 1];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        weights_of(cases[i].sigma, cases[i].R, w);
        double got = kl_blur_split_bound(w, cases[i].R, cases[i].m);
        CHECK(fabs(got - cases[i].want) < 1e-12 * cases[i].want,
              "split bound at sigma %g, R %d, values up to %g: %.17g, want %.17g", cases[i].sigma,
              cases[i].R, cases[i].m, got, cases[i].want);
    }
    weights_of(22, 65, w);
    CHECK(isinf(kl_blur_split_bound(w, 65, 1)), "no split bound past radius %d",
          KL_BLUR_MMA_MAX_RADIUS);
    weights_of(2, 6, w);
    CHECK(isinf(kl_blur_split_bound(w, 6, 70000)) && isinf(kl_blur_split_bound(w, 6, NAN)),
          "no split bound for values past the largest half");
}

/* n launch times around m with lognormal noise of spread sigma (a fixed generator). */
static void noisy_times(double *x, int n, double m, double sigma, unsigned long long *state)
{
    for (int i = 0; i < n; i++) {
        double u[2];
        for (int k = 0; k < 2; k++) {
            *state = *state * 6364136223846793005ull + 1442695040888963407ull;
            u[k] = ((double)(*state >> 11) + 0.5) / 9007199254740992.0; /* (0, 1) */
        }
        x[i] = m * exp(sigma * sqrt(-2 * log(u[0])) * cos(6.283185307179586 * u[1]));
    }
}

/*
 * The verdict where whole runs move (a power cap, another process), as on the null
 * backend's set times: launches that agree within 0.5 % inside each run, runs that differ
 * by 8 %. With one run a side the interval holds only the launches' noise, so it excludes 1,
 * but kl_shift_judge_runs never calls it slower: undecided while the device's run-to-run
 * spread is unknown, and within it once known; with five runs a side the runs are resampled,
 * and the interval holds their drift. A real 5 % slowdown of runs that drift by 1 % is slower
 * with five runs a side; the same change with one run a side is slower only beyond a
 * measured spread, and names --runs where it is not. A clock 2 % lower with the same cycles
 * is judged in cycles, and the same there.
 */
static void test_shift_runs(void)
{
    enum { N = 60, RUNS = 5 };
    static double a[RUNS][N], b[RUNS][N];
    static const double drift[RUNS] = {-0.04, 0.04, -0.02, 0.02, 0},
                        later[RUNS] = {0.04, -0.04, 0.02, 0, -0.02};
    struct kl_sample_set sa[RUNS], sb[RUNS];
    unsigned long long state = 7;
    struct kl_shift s;
    char why[256];
    for (int r = 0; r < RUNS; r++) {
        noisy_times(a[r], N, 1e-3 * (1 + drift[r]), 0.002, &state);
        noisy_times(b[r], N, 1e-3 * (1 + later[r]), 0.002, &state);
        sa[r] = (struct kl_sample_set){a[r], N};
        sb[r] = (struct kl_sample_set){b[r], N};
    }
    /* one run a side, 8 % apart (run 0 at -4 %, run 1 at +4 %) */
    CHECK(kl_shift_estimate_runs(&sa[0], 1, &sb[0], 1, &s) == 0 && s.lo > 1.05,
          "one run a side 8 %% apart: an interval [%.3f, %.3f] that excludes 1", s.lo, s.hi);
    CHECK(kl_shift_judge(&s, 0.01) == KL_SHIFT_SLOWER, "the launches alone call it slower");
    CHECK(kl_shift_judge_runs(&s, 0.01, 1, 1, 0, why, sizeof why) == KL_SHIFT_UNDECIDED &&
              strstr(why, "not measured") && strstr(why, "--runs 5"),
          "one run a side, no spread measured: undecided (%s)", why);
    CHECK(kl_shift_judge_runs(&s, 0.01, 1, 1, 8.5, why, sizeof why) == KL_SHIFT_UNDECIDED &&
              strstr(why, "within the device's run-to-run spread of 8.5%"),
          "one run a side, within a spread of 8.5 %%: undecided (%s)", why);
    /* five runs a side, the same drifts in another order */
    CHECK(kl_shift_estimate_runs(sa, RUNS, sb, RUNS, &s) == 0, "five runs a side estimated");
    enum kl_shift_verdict v = kl_shift_judge_runs(&s, 0.01, RUNS, RUNS, 0, why, sizeof why);
    CHECK(v == KL_SHIFT_SAME || v == KL_SHIFT_UNDECIDED,
          "five runs a side that drift alike: %s ([%.3f, %.3f])", kl_shift_verdict_name(v), s.lo,
          s.hi);
    /* a real 5 % slowdown, runs drifting by 1 % */
    for (int r = 0; r < RUNS; r++) {
        noisy_times(a[r], N, 1e-3 * (1 + drift[r] / 4), 0.002, &state);
        noisy_times(b[r], N, 1.05e-3 * (1 + later[r] / 4), 0.002, &state);
    }
    CHECK(kl_shift_estimate_runs(sa, RUNS, sb, RUNS, &s) == 0 &&
              kl_shift_judge_runs(&s, 0.01, RUNS, RUNS, 0, why, sizeof why) == KL_SHIFT_SLOWER,
          "a 5 %% slowdown with five runs a side: slower ([%.3f, %.3f])", s.lo, s.hi);
    CHECK(kl_shift_estimate_runs(&sa[4], 1, &sb[4], 1, &s) == 0 &&
              kl_shift_judge_runs(&s, 0.01, 1, 1, 2, why, sizeof why) == KL_SHIFT_SLOWER &&
              kl_shift_judge_runs(&s, 0.01, 1, 1, 6, why, sizeof why) == KL_SHIFT_UNDECIDED,
          "a 5 %% slowdown with one run a side: slower beyond a 2 %% spread, not within 6 %%");
    /* the clock 2 % lower and the time 2 % longer: the same cycles */
    CHECK(kl_shift_in_cycles(1800, 1764) && !kl_shift_in_cycles(1800, 1790) &&
              !kl_shift_in_cycles(0, 1764),
          "a clock 2 %% lower is judged in cycles; 0.6 %% lower, or an unknown clock, is not");
    for (int i = 0; i < N; i++)
        b[0][i] = a[0][i] * 1800 / 1764;
    CHECK(kl_shift_estimate_runs(&sa[0], 1, &sb[0], 1, &s) == 0, "the slower clock estimated");
    struct kl_shift c = {s.ratio * 1764 / 1800, s.lo * 1764 / 1800, s.hi * 1764 / 1800, 0, 0};
    CHECK(kl_shift_judge(&s, 0.01) == KL_SHIFT_SLOWER &&
              kl_shift_judge_runs(&c, 0.01, 1, 1, 0, why, sizeof why) == KL_SHIFT_SAME,
          "2 %% slower in time at a 2 %% lower clock: the same in cycles ([%.4f, %.4f])", c.lo,
          c.hi);
}

/*
 * kl_shift_estimate and its verdicts on launch times of known shifts (5 % noise, 400 launches
 * a run): 20 A/A pairs never regress by 2 % and seldom differ at all; slowdowns of 2, 3 and
 * 5 % are called slower in every pair; the interval holds the true ratio; too few or bad
 * samples are refused; the same samples give the same interval.
 */
static void test_shift(void)
{
    enum { N = 400 };
    static double a[N], b[N];
    unsigned long long state = 42;
    int differ = 0, regress = 0;
    struct kl_shift s, again;
    for (int pair = 0; pair < 20; pair++) {
        noisy_times(a, N, 1e-3, 0.05, &state);
        noisy_times(b, N, 1e-3, 0.05, &state);
        CHECK(kl_shift_estimate(a, N, b, N, &s) == 0, "A/A pair %d estimated", pair);
        CHECK(s.lo <= s.ratio && s.ratio <= s.hi && s.hi - s.lo < 0.03,
              "A/A pair %d: ratio %.4f in a tight interval [%.4f, %.4f]", pair, s.ratio, s.lo,
              s.hi);
        differ += kl_shift_judge(&s, 0.01) == KL_SHIFT_SLOWER ||
                  kl_shift_judge(&s, 0.01) == KL_SHIFT_FASTER;
        regress += s.lo > 1.02;
    }
    CHECK(regress == 0 && differ <= 3, "20 A/A pairs: %d regressions by 2 %%, %d differ", regress,
          differ);
    static const double shifts[] = {1.02, 1.03, 1.05};
    for (size_t k = 0; k < sizeof shifts / sizeof *shifts; k++) {
        int slower = 0, covered = 0;
        for (int pair = 0; pair < 20; pair++) {
            noisy_times(a, N, 1e-3, 0.05, &state);
            noisy_times(b, N, 1e-3 * shifts[k], 0.05, &state);
            kl_shift_estimate(a, N, b, N, &s);
            slower += kl_shift_judge(&s, 0.01) == KL_SHIFT_SLOWER;
            covered += s.lo <= shifts[k] && shifts[k] <= s.hi;
        }
        CHECK(slower == 20 && covered >= 17, "a %.0f %% slowdown: slower in %d of 20, held in %d",
              (shifts[k] - 1) * 100, slower, covered);
    }
    for (int i = 0; i < N; i++)
        a[i] = b[i] = 2e-3;
    CHECK(kl_shift_estimate(a, N, b, N, &s) == 0 && s.ratio == 1 && s.lo == 1 && s.hi == 1 &&
              kl_shift_judge(&s, 0.01) == KL_SHIFT_SAME,
          "identical steady times: the same");
    b[0] = 0;
    CHECK(kl_shift_estimate(a, N, b, N, &s) != 0, "a time of 0 is refused");
    b[0] = NAN;
    CHECK(kl_shift_estimate(a, N, b, N, &s) != 0, "a NaN time is refused");
    CHECK(kl_shift_estimate(a, KL_SHIFT_MIN_SAMPLES - 1, a, N, &s) != 0, "too few samples refused");
    noisy_times(a, N, 1e-3, 0.05, &state);
    noisy_times(b, 7, 1.1e-3, 0.05, &state);
    CHECK(kl_shift_estimate(a, N, b, 7, &s) == 0 && kl_shift_estimate(a, N, b, 7, &again) == 0 &&
              s.lo == again.lo && s.hi == again.hi && s.hi - s.lo > 0.03,
          "the same samples, the same interval; seven launches, a wide one [%.4f, %.4f]", s.lo,
          s.hi);
    /*
     * Runs that drift: each run's times 1 ms times its own factor (4 % spread between runs)
     * and 2 % noise within. One run a side calls most A/A pairs slower or faster; five runs a
     * side, resampled as runs, hold the drift: no A/A pair regresses at 5 % and few differ,
     * and a 15 % slowdown is still found.
     */
    static double runs_a[5][200], runs_b[5][200];
    struct kl_sample_set sa[5], sb[5];
    int one_differ = 0, five_differ = 0, five_regress = 0, found = 0;
    for (int pair = 0; pair < 20; pair++)
        for (int slow = 0; slow < 2; slow++) {
            for (int r = 0; r < 5; r++) {
                double fa[1], fb[1];
                noisy_times(fa, 1, 1.0, 0.04, &state);
                noisy_times(fb, 1, slow ? 1.15 : 1.0, 0.04, &state);
                noisy_times(runs_a[r], 200, 1e-3 * fa[0], 0.02, &state);
                noisy_times(runs_b[r], 200, 1e-3 * fb[0], 0.02, &state);
                sa[r] = (struct kl_sample_set){runs_a[r], 200};
                sb[r] = (struct kl_sample_set){runs_b[r], 200};
            }
            CHECK(kl_shift_estimate_runs(sa, 5, sb, 5, &s) == 0, "five runs a side estimated");
            enum kl_shift_verdict v = kl_shift_judge(&s, 0.01);
            if (slow) {
                found += v == KL_SHIFT_SLOWER;
                continue;
            }
            five_differ += v == KL_SHIFT_SLOWER || v == KL_SHIFT_FASTER;
            five_regress += s.lo > 1.05;
            kl_shift_estimate_runs(sa, 1, sb, 1, &s);
            one_differ += kl_shift_judge(&s, 0.01) == KL_SHIFT_SLOWER ||
                          kl_shift_judge(&s, 0.01) == KL_SHIFT_FASTER;
        }
    CHECK(one_differ >= 10 && five_differ <= 3 && five_regress == 0 && found >= 15,
          "drifting runs: A/A differ in %d of 20 with one run a side, %d with five (%d regress at "
          "5 %%); a 15 %% slowdown found in %d of 20",
          one_differ, five_differ, five_regress, found);
    struct kl_shift mid = {.ratio = 1.0, .lo = 0.995, .hi = 1.012},
                    wide = {.ratio = 1.0, .lo = 0.97, .hi = 1.04},
                    small = {.ratio = 1.005, .lo = 1.002, .hi = 1.008},
                    past = {.ratio = 1.01, .lo = 1.006, .hi = 1.014};
    CHECK(kl_shift_judge(&mid, 0.01) == KL_SHIFT_UNDECIDED &&
              kl_shift_judge(&mid, 0.02) == KL_SHIFT_SAME &&
              kl_shift_judge(&wide, 0.01) == KL_SHIFT_UNDECIDED,
          "intervals that hold 1: same within the margin, undecided past it");
    CHECK(kl_shift_judge(&small, 0.01) == KL_SHIFT_SAME &&
              kl_shift_judge(&past, 0.01) == KL_SHIFT_SLOWER &&
              kl_shift_judge(&small, 0.001) == KL_SHIFT_SLOWER,
          "a sure difference under the margin: the same; one reaching past it: slower");
}

/* Occupancy and its limiter against an H100's per-multiprocessor limits (Nsight Compute's). */
static void test_occupancy(void)
{
    struct kl_device_info d;
    memset(&d, 0, sizeof d);
    d.warp = 32, d.regs_per_cu = 65536, d.threads_per_cu = 2048, d.blocks_per_cu = 32;
    d.local_mem_per_cu = 233472, d.local_mem_reserved = 1024;
    static const struct {
        int regs;
        long threads, local;
        int api, groups;
        double occupancy;
        const char *limiter;
    } cases[] = {
        {48, 128, 86240, -1, 2, 0.125, "shared"}, /* blur 12 at R = 24: ncu says 2 and 12.5 % */
        {128, 256, 0, -1, 2, 0.25, "registers"},  /* 4096 registers a warp: 4 warps a quarter */
        {16, 32, 0, -1, 32, 0.5, "blocks"},       /* one warp each, 32 blocks at most */
        {24, 96, 0, -1, 21, 0.984375, "threads"}, /* 2048 / 96 */
        {48, 128, 86240, 2, 2, 0.125, "shared"},  /* the driver's own count stands */
        {28, 256, 0, -1, 8, 1.0, "threads"},      /* registers tie at 8: full, threads named */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct kl_resources r = {.regs = cases[i].regs,
                                 .private_bytes = 0,
                                 .local_static = 0,
                                 .local_dynamic = cases[i].local,
                                 .threads = cases[i].threads,
                                 .groups_per_cu = cases[i].api};
        kl_occupancy(&d, &r);
        CHECK(r.groups_per_cu == cases[i].groups && fabs(r.occupancy - cases[i].occupancy) < 1e-9 &&
                  strcmp(r.limiter, cases[i].limiter) == 0,
              "occupancy case %zu: %d groups, %g, %s", i, r.groups_per_cu, r.occupancy, r.limiter);
    }
    /* A device that does not tell its limits: unknown, with the reason. */
    struct kl_device_info none;
    memset(&none, 0, sizeof none);
    struct kl_resources r = {.regs = -1, .threads = 64, .groups_per_cu = -1};
    kl_occupancy(&none, &r);
    CHECK(r.occupancy < 0 && r.limiter[0] == 0 && strstr(r.why, "does not tell"),
          "unknown occupancy says why: %s", r.why);
}

/*
 * The workload registry: each entry found by its name, its rung table
 * non-empty with every rung named, its default sizes those the API hands
 * out, and its --list-rungs the heading and every rung in order.
 */
static void test_registry(void)
{
    char names[128], *text = NULL;
    size_t len = 0;
    CHECK(kl_workload_find("nonesuch") == NULL && kl_workload_find(NULL) == NULL,
          "unknown names are NULL");
    /* A command's element type: the declared default, a declared one given, others refused. */
    const struct kl_workload_def *reduce = kl_workload_find("reduce");
    enum kl_type ty = KL_HALF;
    struct kl_err te;
    CHECK(reduce && kl_workload_type(reduce, 0, KL_HALF, &ty, &te) == KL_OK && ty == KL_FLOAT &&
              kl_workload_type(reduce, 1, KL_INT, &ty, &te) == KL_OK && ty == KL_INT &&
              kl_workload_type(reduce, 1, KL_HALF, &ty, &te) == KL_ERR_ARG &&
              strstr(te.msg, "reduce takes --type float, double or int, not half"),
          "reduce's types: float by default, int given, half refused");
    CHECK(kl_workload_type(kl_workload_find("gemm"), 1, KL_INT, &ty, &te) == KL_ERR_ARG &&
              strstr(te.msg, "gemm takes no --type"),
          "a workload that declares no types refuses one given");
    kl_workload_ladder_names(names, sizeof names);
    CHECK(strcmp(names,
                 "gemm, copy, rowdot, gemv, blur, reduce, scan, histogram, transpose, softmax") ==
              0,
          "ladders: %s", names);
    /* The peer registry: each workload's peers, and a request's unknown one refused. */
    static const char *const known[] = {"cublas", "openblas"}, *const unknown[] = {"npp"};
    struct kl_err e = {0};
    kl_peer_names("gemm", names, sizeof names);
    CHECK(strcmp(names, "cublas, cublas_tf32, cublaslt, cublaslt_fast, clblast or openblas") == 0,
          "gemm: %s", names);
    kl_peer_names("gemv", names, sizeof names);
    CHECK(strcmp(names, "clblast or cublas") == 0, "gemv: %s", names);
    kl_peer_names("copy", names, sizeof names);
    CHECK(names[0] == '\0', "copy has no peers: %s", names);
    CHECK(kl_peer_find("gemm", "cublas_tf32")->tf32 && !kl_peer_find("gemm", "cublas")->tf32 &&
              kl_peer_find("gemm", "openblas")->on_host && !kl_peer_find("gemv", "openblas"),
          "peers found by workload and name");
    /* cuBLASLt takes the narrow types alone, the others the wide ones: refused before any run. */
    struct kl_gemm_problem gp = {KL_DOUBLE, 4, 4, 4, NULL, NULL, 0, NULL, 0};
    char what[8];
    int on_host;
    CHECK(kl_peer_find("gemm", "cublaslt")->narrow && !kl_peer_find("gemm", "cublas")->narrow &&
              kl_peer_gemm(NULL, "cublaslt", &gp, NULL, NULL, NULL, what, sizeof what, &on_host,
                           &e) == KL_ERR_UNSUPPORTED &&
              strstr(e.msg, "not double: for float and double use cublas"),
          "cublaslt and double: %s", e.msg);
    gp.type = KL_FP8;
    CHECK(kl_peer_gemm(NULL, "cublas", &gp, NULL, NULL, NULL, what, sizeof what, &on_host, &e) ==
                  KL_ERR_UNSUPPORTED &&
              strstr(e.msg, "cublas multiplies float and double only; fp8 inputs: --compare "
                            "cublaslt"),
          "cublas and fp8: %s", e.msg);
    CHECK(kl_peers_check("gemm", known, 2, &e) == KL_OK &&
              kl_peers_check("gemm", unknown, 1, &e) == KL_ERR_ARG &&
              strstr(e.msg, "unknown peer \"npp\" for gemm (cublas,") != NULL,
          "check: %s", e.msg);
    for (int i = 0; i < kl_workload_count(); i++) {
        const struct kl_workload_def *w = kl_workload_at(i);
        const struct kl_rung_table *t = w->rungs();
        CHECK(kl_workload_find(w->name) == w, "%s found by name", w->name);
        CHECK(t->count > 0 && strcmp(t->workload, w->name) == 0, "%s: %d rungs of %s", w->name,
              t->count, t->workload);
        CHECK(w->dims >= 0 && w->dims <= KL_WORKLOAD_MAX_DIMS && (w->dims > 0) == w->ladder,
              "%s: %d sizes", w->name, w->dims);
        for (int d = 0; d < KL_WORKLOAD_MAX_DIMS; d++)
            CHECK(kl_default_size(w->name, d, 1) == (d < w->dims ? w->gpu[d] : 0) &&
                      kl_default_size(w->name, d, 0) == (d < w->dims ? w->cpu[d] : 0) &&
                      (d >= w->dims || (w->gpu[d] > 0 && w->cpu[d] > 0)),
                  "%s: default size %d", w->name, d);
        FILE *f = open_memstream(&text, &len);
        kl_workload_list_rungs(w, f);
        fclose(f);
        CHECK(strncmp(text, w->heading, strlen(w->heading)) == 0, "%s: heading", w->name);
        const char *at = text;
        for (int r = 0; r < t->count && at; r++)
            if ((at = strstr(at, t->name(r))))
                at += strlen(t->name(r));
        CHECK(at != NULL, "%s: --list-rungs names every rung in order", w->name);
        free(text);
        text = NULL;
    }
}

/*
 * A reference computed elsewhere (mgemm's, by cuBLAS DGEMM on a device) is taken only where
 * KL_GEMM_SPOT_CHECKS elements of the product and of its scale |A|·|B| agree with direct
 * double sums: exact ones are adopted; one wrong product, or one wrong scale, everywhere is
 * refused.
 */
static void test_reference_adopt(void)
{
    enum { M = 24, N = 20, K = 16 };
    static float A[M * K], B[K * N];
    struct kl_gemm_reference *g;
    struct kl_err e;
    for (int x = 0; x < M * K; x++)
        A[x] = (float)((x * 7) % 11) - 5;
    for (int x = 0; x < K * N; x++)
        B[x] = (float)((x * 5) % 13) - 6;
    for (int flaw = 0; flaw < 3; flaw++) {
        double *ref = malloc(M * N * sizeof *ref), *scale = malloc(M * N * sizeof *scale);
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                double sum = 0, mag = 0;
                for (int k = 0; k < K; k++)
                    sum += (double)A[i * K + k] * B[k * N + j],
                        mag += fabs((double)A[i * K + k] * B[k * N + j]);
                /* flaw 1: every product one too large; flaw 2: every scale doubled */
                ref[i * N + j] = sum + (flaw == 1);
                scale[i * N + j] = mag * (flaw == 2 ? 2 : 1);
            }
        enum kl_status st =
            kl_gemm_reference_adopt(KL_FLOAT, M, N, K, A, B, 1, ref, scale, "the test", &g, &e);
        CHECK(flaw ? st == KL_ERR_VERIFY && !g && strstr(e.msg, "the reference by the test")
                   : st == KL_OK && g && strcmp(kl_gemm_reference_how(g), "the test") == 0,
              "an adopted reference with flaw %d: status %d (%s)", flaw, (int)st,
              st == KL_OK ? "taken" : e.msg);
        kl_gemm_reference_close(g);
    }
}

/*
 * The article's reading of kernel files (article/sources.c): a Change field
 * joined into one paragraph up to the next field, a blank comment line or the
 * comment's end, and none where a file has none; the includes; the hash.
 */
static void test_article_sources(void)
{
    static const char text[] = "/*\n"
                               " * Rung 2: a title line.\n"
                               " *\n"
                               " * Computes   C = A B.\n"
                               " * Change:    one element per work-item, the sum\n"
                               " *            kept in a register:   fewer stores.\n"
                               " *            CPU: no gain there.\n"
                               " * Sizes:     any.\n"
                               " */\n#include \"hopper.cuh\"\n  #  include \"pixels.cuh\"\n"
                               "#include <stdio.h>\nkernel void k(void) {}\n";
    char out[256], names[4][128], hash[KL_TEXT_HASH], again[KL_TEXT_HASH];
    kl_change_paragraph(text, out, sizeof out);
    CHECK(strcmp(out, "one element per work-item, the sum kept in a register: fewer stores. CPU: "
                      "no gain there.") == 0,
          "change: \"%s\"", out);
    kl_change_paragraph("/*\n * Change: last field\n *   and its end. */\nx", out, sizeof out);
    CHECK(strcmp(out, "last field and its end.") == 0, "change at the end: \"%s\"", out);
    kl_change_paragraph("/*\n * Change: then a blank\n *\n *   not this\n */", out, sizeof out);
    CHECK(strcmp(out, "then a blank") == 0, "change before a blank line: \"%s\"", out);
    kl_change_paragraph("/* no fields */ int x; /*\n * Change: later\n */", out, sizeof out);
    CHECK(out[0] == '\0', "only the first comment counts: \"%s\"", out);
    kl_change_paragraph("int x;", out, sizeof out);
    CHECK(out[0] == '\0', "no comment: \"%s\"", out);
    kl_change_paragraph(text, out, 12);
    CHECK(strcmp(out, "one element") == 0, "cut to the buffer: \"%s\"", out);
    int n = kl_source_includes(text, names, 4);
    CHECK(n == 2 && strcmp(names[0], "hopper.cuh") == 0 && strcmp(names[1], "pixels.cuh") == 0,
          "includes: %d", n);
    kl_source_beside("cuda/gemm/17_wgmma_tf32.cu", "hopper.cuh", out, sizeof out);
    CHECK(strcmp(out, "cuda/gemm/hopper.cuh") == 0, "beside: %s", out);
    kl_text_hash("", hash);
    CHECK(strcmp(hash, "fnv1a64:cbf29ce484222325") == 0, "FNV-1a of nothing: %s", hash);
    kl_text_hash("a", hash);
    CHECK(strcmp(hash, "fnv1a64:af63dc4c8601ec8c") == 0, "FNV-1a of \"a\": %s", hash);
    kl_text_hash("b", again);
    CHECK(strcmp(hash, again) != 0, "one byte changes the hash");
}

/* kl_parallel_for: each index of [0, n) once, in shares that meet end to end. */
static void mark(void *arg, size_t share, size_t begin, size_t end)
{
    unsigned char *seen = arg;
    (void)share;
    for (size_t i = begin; i < end; i++)
        seen[i]++;
}

static void test_parallel_for(void)
{
    static const size_t sizes[] = {0, 1, 2, 7, 16, 17, 1000};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        size_t n = sizes[k], once = 0;
        unsigned char *seen = calloc(n + 1, 1);
        kl_parallel_for(n, mark, seen);
        for (size_t i = 0; i < n; i++)
            once += seen[i] == 1;
        CHECK(once == n && seen[n] == 0, "kl_parallel_for over %zu: %zu once", n, once);
        free(seen);
    }
}

/* kl_rng_skip(n) lands where n draws land, so rows drawn in parallel are the serial draw's. */
static void test_rng_skip(void)
{
    static const uint64_t skips[] = {0, 1, 2, 1031, 262144};
    for (size_t k = 0; k < sizeof skips / sizeof *skips; k++) {
        struct kl_rng walked, jumped;
        kl_rng_seed(&walked, 7);
        kl_rng_seed(&jumped, 7);
        for (uint64_t i = 0; i < skips[k]; i++)
            kl_rng_next(&walked);
        kl_rng_skip(&jumped, skips[k]);
        CHECK(kl_rng_next(&walked) == kl_rng_next(&jumped), "kl_rng_skip(%llu) is %llu draws",
              (unsigned long long)skips[k], (unsigned long long)skips[k]);
    }
}

/*
 * kl_check past the size it shares among threads finds what one pass finds: every wrong
 * element counted, the first three in order, the worst the first of the largest error (two
 * ties here, in different shares), the normwise error; and nothing wrong where all is right.
 */
static void test_shared_check(void)
{
    size_t n = (size_t)5 << 20, bad[] = {100, n / 3, n / 2 + 7, n - 1};
    double errors[] = {5.0, 9.0, 9.0, 2.0};
    float *got = calloc(n, sizeof *got);
    double *ref = calloc(n, sizeof *ref), *scale = malloc(n * sizeof *scale);
    struct kl_check c;
    CHECK(got && ref && scale, "memory for %zu elements", n);
    if (!got || !ref || !scale)
        goto done;
    for (size_t i = 0; i < n; i++)
        scale[i] = 1.0;
    kl_check(KL_FLOAT, got, ref, scale, NULL, n, 1.0, &c);
    CHECK(c.checked == n && c.bad == 0 && c.nfirst == 0 && c.worst == 0 && c.max_error == 0.0,
          "a right result shared: %zu checked, %zu bad, worst at %zu", c.checked, c.bad, c.worst);
    for (int k = 0; k < 4; k++)
        got[bad[k]] = (float)errors[k];
    kl_check(KL_FLOAT, got, ref, scale, NULL, n, 1.0, &c);
    CHECK(c.checked == n && c.bad == 4 && c.nfirst == 3 && c.first[0] == bad[0] &&
              c.first[1] == bad[1] && c.first[2] == bad[2] && c.first_got[1] == 9.0 &&
              c.worst == bad[1] && c.worst_ratio > 8.9 && c.max_error == 9.0,
          "four wrong shared: %zu bad, first %zu %zu %zu, worst at %zu (%g)", c.bad, c.first[0],
          c.first[1], c.first[2], c.worst, c.worst_ratio);
done:
    free(got);
    free(ref);
    free(scale);
}

int main(void)
{
    test_article_sources();
    test_parallel_for();
    test_rng_skip();
    test_shared_check();
    test_stats();
    test_reference_adopt();
    test_protocol();
    test_clocks();
    test_tolerance();
    test_tf32_tolerance();
    test_narrow_codes();
    test_uchar();
    test_narrow_ties();
    test_narrow_range();
    test_narrow_tolerance();
    test_fp8_tolerance();
    test_schedule_rules();
    test_gemm_launch_args();
    test_gemm_c_map();
    test_gemm_pitches();
    test_int8_exact();
    test_precision();
    test_roofs();
    test_roofs_across_backends();
    test_texts();
    test_args();
    test_rungs();
    test_inline();
    test_engine();
    test_search();
    test_search_rounds();
    test_log_remap();
    test_half2_bound();
    test_mma_bound();
    test_split_bound();
    test_shift();
    test_shift_runs();
    test_blur_presets();
    test_occupancy();
    test_registry();
    return check_summary();
}
