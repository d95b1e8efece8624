/* Unit tests of the pieces every number depends on: statistics, the timing
 * protocol, tolerances and comparison, option parsing, rung lookup. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cli/args.h"
#include "core/context.h"
#include "core/measure.h"
#include "core/util.h"
#include "core/verify.h"
#include "workloads/gemm.h"

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
    p = (struct kl_protocol){2, 5, 0.0, 100};
    CHECK(kl_measure(&p, fake_launch, &f, &s, &e) == KL_OK, "measure: %s", e.msg);
    CHECK(f.calls == 7 && s.n == 5 && s.median == 0.01, "count-bound: %d calls, %d samples",
          f.calls, s.n);
    /* Time-bound: 0.1 s needs 10 launches of 10 ms (with float rounding, 10 or 11). */
    f.calls = 0;
    p = (struct kl_protocol){0, 3, 0.1, 1000};
    kl_measure(&p, fake_launch, &f, &s, &e);
    CHECK(s.n >= 10 && s.n <= 11, "time-bound: %d samples", s.n);
    /* Capped by max_repeats even if min_time is not reached. */
    f.calls = 0;
    p = (struct kl_protocol){0, 3, 100.0, 40};
    kl_measure(&p, fake_launch, &f, &s, &e);
    CHECK(s.n == 40, "capped: %d samples", s.n);
    /* Invalid protocols and failing launches are errors, not numbers. */
    p = (struct kl_protocol){-1, 3, 0.0, 40};
    CHECK(kl_measure(&p, fake_launch, &f, &s, &e) == KL_ERR_ARG, "negative warm-up");
    p = (struct kl_protocol){0, 0, 0.0, 40};
    CHECK(kl_protocol_check(&p, &e) == KL_ERR_ARG, "zero repeats");
    p = (struct kl_protocol){0, 10, 0.0, 5};
    CHECK(kl_protocol_check(&p, &e) == KL_ERR_ARG, "max below min");
    p = (struct kl_protocol){0, 1, 0.0, 1};
    CHECK(kl_measure(&p, failing_launch, NULL, &s, &e) == KL_ERR_BACKEND &&
              strstr(e.msg, "launch broke"),
          "failing launch propagates");
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
    CHECK(kl_parse_seconds("--min-time", "nan", 0, 10, &d, err, sizeof err) != 0, "nan");
    CHECK(kl_parse_seconds("--min-time", "-1", 0, 10, &d, err, sizeof err) != 0, "negative");
    char list[] = "01,,10_tiled,host";
    char *items[8];
    int n = kl_split_list(list, items, 8);
    CHECK(n == 3 && strcmp(items[0], "01") == 0 && strcmp(items[2], "host") == 0, "split: %d items",
          n);
}

static void test_rungs(void)
{
    enum kl_type t;
    CHECK(kl_gemm_rung_find("10_tiled") && kl_gemm_rung_find("10") == kl_gemm_rung_find("10_tiled"),
          "prefix lookup");
    CHECK(kl_gemm_rung_find("host_") == NULL, "ambiguous prefix is refused");
    CHECK(kl_gemm_rung_find("nosuch") == NULL && kl_gemm_rung_find("") == NULL, "unknown");
    CHECK(kl_type_parse("double", &t) == KL_OK && t == KL_DOUBLE, "type double");
    CHECK(kl_type_parse("half", &t) == KL_ERR_ARG, "type half refused");
    /* CUDA C++ is told by the file's name: .cu, nothing else. */
    CHECK(kl_kernel_is_cuda("cuda/gemm/14_warptile.cu") && kl_kernel_is_cuda("a.cu"),
          ".cu files are CUDA C++");
    CHECK(!kl_kernel_is_cuda("opencl/gemm/13_double_buffer.cl") && !kl_kernel_is_cuda(".cu") &&
              !kl_kernel_is_cuda("cuda/prelude.cuh") && !kl_kernel_is_cuda(NULL),
          "other files are not");
    CHECK(kl_kernel_is_cuda(kl_gemm_rung_find("14_warptile")->file) &&
              !kl_kernel_is_cuda(kl_gemm_rung_find("13_double_buffer")->file),
          "14_warptile alone of the GEMM rungs is CUDA only");
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
    }
}

/* A kernel tree of one header, cuda/x/h.cuh, as a kl_kernel_loader. */
static enum kl_status one_header(void *ctx, const char *path, char **out, struct kl_err *e)
{
    (void)ctx;
    if (strcmp(path, "cuda/x/h.cuh") != 0)
        return kl_fail(e, KL_ERR_IO, "kernel file %s is not built into kladder", path);
    *out = kl_strdup("H1\nH2");
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
    st = kl_kernel_inline("k.cu", "x\n", one_header, NULL, &out, &e);
    CHECK(st == KL_OK && out && strcmp(out, "x\n") == 0, "no includes: the text unchanged");
    free(out);
}

int main(void)
{
    test_stats();
    test_protocol();
    test_tolerance();
    test_args();
    test_rungs();
    test_inline();
    return check_summary();
}
