/*
 * The CUDA compile path without a GPU: every OpenCL kernel file built into
 * kladder (each .cl under kernels/opencl/) compiled as CUDA C++ through NVRTC,
 * behind kernels/cuda/prelude.cuh, for sm_90, with the build options the
 * workloads pass (each element type, pixel type and vector width they use;
 * rung parameters at their defaults; files no rung table names get their
 * directory's usual options). CUDA C++ files (.cu) are compiled as written,
 * their #include "NAME" lines inlined as kladder does (kl_kernel_inline).
 * Kernels that use images are skipped: images are not mapped to CUDA. Before
 * that, unit checks of the prelude (sizes and alignment of vector types,
 * operators, vload at odd addresses, sub-groups) and of the error path (a
 * vector literal written the OpenCL way, a compile error's log and line, an
 * unknown architecture). Each distinct (file, options) is compiled once, on as
 * many threads as there are processors. An argument limits the builds to the
 * files whose path contains it (test_nvrtc opencl/gemm/).
 *
 * The builds split in two for the test tiers (docs/ARCHITECTURE.md, "Test
 * tiers"): --first compiles the prelude's checks and each file's first set of
 * options (every kernel file once: the fast tier's representative), --rest K/N
 * the K-th of N shares of all the others (the rotating tier's parts); no option,
 * every build.
 *   test_nvrtc [--first | --rest K/N] [FILTER]
 *
 * With KLADDER_SAVE_CUBIN=DIR each build's CUBIN is kept in DIR, named by the
 * file and a hash of its options (kl_nvrtc_save_cubin): two trees' builds
 * compared byte for byte tell whether a change moved the code the GPU runs.
 *
 * Exit: 0 all compiled, 1 a failure (file, options and NVRTC's log printed),
 * 77 NVRTC cannot be loaded (CTest SKIP_RETURN_CODE).
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend/nvrtc.h"
#include "check.h"
#include "core/context.h"
#include "core/params.h"
#include "workloads/blur/blur.h"
#include "workloads/copy/copy.h"
#include "workloads/gemm/gemm.h"
#include "workloads/gemv/gemv.h"
#include "workloads/histogram/histogram.h"
#include "workloads/softmax/softmax.h"
#include "workloads/transpose/transpose.h"
#include "workloads/reduce/reduce.h"
#include "workloads/scan/scan.h"
#include "workloads/rowdot/rowdot.h"
#include "tune/cache.h"

#define CC_MAJOR 9
#define CC_MINOR 0
#define SKIP 77
#define BLUR_RADIUS 3

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static const char *embedded(const char *path)
{
    for (const struct kl_embedded_file *f = kl_embedded_kernels; f->path; f++)
        if (strcmp(f->path, path) == 0)
            return f->text;
    return NULL;
}

static const char *cuda_prelude, *opencl_prelude;

/* The CUDA source of a kernel body, assembled as src/core/context.c does. */
static char *cuda_source(const char *body)
{
    size_t n = strlen(cuda_prelude) + strlen(opencl_prelude) + strlen(body) + 32;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s\n%s\n#line 1\n%s", cuda_prelude, opencl_prelude, body);
    return s;
}

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && strcmp(s + n - m, tail) == 0;
}

/* An embedded kernel file, as a kl_kernel_loader. */
static enum kl_status load_embedded(void *ctx, const char *path, char **out, struct kl_err *e)
{
    const char *text = embedded(path);
    (void)ctx;
    if (!text)
        return kl_fail(e, KL_ERR_IO, "kernel file %s is not built into kladder", path);
    return (*out = strdup(text)) ? KL_OK : kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory");
}

/*
 * Compiles the file name's body, its headers inlined (a .cu file as it is,
 * a .cl file behind the preludes), for compute capability cc (e.g. 90).
 */
static enum kl_status compile_for(const char *body, const char *name, const char *options, int cc,
                                  struct kl_err *e)
{
    char *text = NULL, *src = NULL, *image = NULL;
    size_t size = 0;
    enum kl_status st = kl_kernel_inline(name, body, load_embedded, NULL, &text, e);
    if (st != KL_OK)
        return st;
    if (ends_with(name, ".cu"))
        src = text, text = NULL;
    else if (!(src = cuda_source(text)))
        st = kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory");
    free(text);
    if (st != KL_OK)
        return st;
    char *said = NULL;
    st = kl_nvrtc_compile(src, name, options, cc / 10, cc % 10, &image, &size, &said, e);
    if (st == KL_OK && (size < 4 || memcmp(image, "\177ELF", 4) != 0))
        st = kl_fail(e, KL_ERR_BACKEND, "the CUBIN of %s is not an ELF image", name);
    /* ptxas's advice C7511: a Hopper rung's wgmma serialized for want of registers, which
       costs it most of its speed and no compile error would show */
    if (st == KL_OK && said && strstr(said, "C7511"))
        st = kl_fail(e, KL_ERR_BUILD, "%s: ptxas serialized its wgmma: %s", name, said);
    free(said);
    if (st == KL_OK) {
        char flat[256]; /* the file's path as one name: cuda_gemm_20_wgmma.cu */
        snprintf(flat, sizeof flat, "%s", name);
        for (char *c = flat; *c; c++)
            *c = *c == '/' ? '_' : *c;
        kl_nvrtc_save_cubin(flat, options, image, size);
    }
    free(image);
    free(src);
    return st;
}

static enum kl_status compile(const char *body, const char *name, const char *options,
                              struct kl_err *e)
{
    return compile_for(body, name, options, CC_MAJOR * 10 + CC_MINOR, e);
}

/* ---- unit checks of the prelude ------------------------------------------- */

/* Compile-time facts of the prelude, and a kernel that uses each mapping. */
static const char prelude_check[] =
    "template <class A, class B> struct same { static const bool value = false; };\n"
    "template <class A> struct same<A, A> { static const bool value = true; };\n"
    "static_assert(sizeof(uchar) == 1 && sizeof(ushort) == 2 && sizeof(uint) == 4, \"ints\");\n"
    "static_assert(sizeof(ulong) == 8 && sizeof(long) == 8, \"64-bit long\");\n"
    "static_assert(sizeof(float2) == 8 && alignof(float2) == 8, \"float2\");\n"
    "static_assert(sizeof(float4) == 16 && alignof(float4) == 16, \"float4\");\n"
    "static_assert(sizeof(float8) == 32 && alignof(float8) == 32, \"float8\");\n"
    "static_assert(sizeof(double2) == 16 && alignof(double2) == 16, \"double2\");\n"
    "static_assert(sizeof(double4) == 32 && alignof(double4) == 32, \"double4\");\n"
    "static_assert(sizeof(int4) == 16 && alignof(int4) == 16, \"int4\");\n"
    "static_assert(sizeof(uint16) == 64 && alignof(uint16) == 64, \"uint16\");\n"
    "static_assert(sizeof(uchar4) == 4 && alignof(uchar4) == 4, \"uchar4\");\n"
    "static_assert(same<decltype(float4() + 1.0f), float4>::value, \"float4 + float\");\n"
    "static_assert(same<decltype(2 * int8()), int8>::value, \"int * int8\");\n"
    "static_assert(same<decltype(float8().lo), float4>::value, \"float8.lo\");\n"
    "static_assert(same<decltype(uint16().hi), uint8>::value, \"uint16.hi\");\n"
    "static_assert(same<decltype(float2().hi), float>::value, \"float2.hi\");\n"
    "static_assert(same<decltype(vload4(0, (const float *)0)), float4>::value, \"vload4\");\n"
    "static_assert(same<decltype(convert_uchar4_sat_rte(float4())), uchar4>::value, \"sat\");\n"
    "static_assert(same<decltype(convert_float4(uchar4())), float4>::value, \"convert\");\n"
    "static_assert(same<decltype(as_int(1u)), int>::value, \"as_int\");\n"
    "static_assert(same<decltype(dot(double4(), double4())), double>::value, \"dot\");\n"
    "static_assert(same<decltype(fma(1.0f, 2.0f, 3.0f)), float>::value, \"fma stays float\");\n"
    "\n"
    "__kernel __attribute__((reqd_work_group_size(64, 1, 1))) void\n"
    "prelude_check(const __global float *restrict in, __global float *restrict out,\n"
    "              __global uchar4 *px, __constant float *w, const int n)\n"
    "{\n"
    "    const int i = get_global_id(0);\n"
    "    const int lid = get_local_id(0);\n"
    "    __local float part[64];\n"
    "    /* Vector accesses at addresses aligned to one element only. */\n"
    "    float4 a = vload4(0, in + 1);\n"
    "    const float8 b = vload8(1, in + 3);\n"
    "    const float2 c = vload2(i, in + 5);\n"
    "    a += VEC4(float4, 1.0f, 2, 3, 4) * 2.0f - b.lo / b.hi + c.x;\n"
    "    a = fma(a, (float4)(w[0]), b.hi) + mad(1.0f, 2.0f, c.y);\n"
    "    vstore4(a, 0, out + 1);\n"
    "    vstore8(b, 3, out + 7);\n"
    "    vstore2(c, 0, out + 3);\n"
    "    uint16 u = (uint16)(i);\n"
    "    u ^= u >> 3;\n"
    "    u = (u * 0x9E3779B1u) ^\n"
    "        VEC16(uint16, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);\n"
    "    const int4 k = clamp(VEC4(int4, -1, 5, 9, 300), 0, 255) % 7;\n"
    "    const double4 d = convert_double4(k) * 0.5;\n"
    "    part[lid] = u.s0 + u.sf + as_float(as_uint(a.w)) + k.w + (float)dot(d, d);\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    const float s = sub_group_reduce_add(part[lid ^ 1]) + sub_group_reduce_max(a.x);\n"
    "    const int g = sub_group_reduce_add((int)get_sub_group_local_id());\n"
    "    if (i < n) {\n"
    "        out[0] = s + g + get_sub_group_id() + get_num_sub_groups() + get_sub_group_size();\n"
    "        px[i] = convert_uchar4_sat_rte(a * 255.0f);\n"
    "        px[i + 1] = convert_uchar4_sat(clamp(a, 0.0f, 1.0f) * 255.0f);\n"
    "    }\n"
    "}\n";

static void test_prelude(void)
{
    static struct kl_err e;
    const char *types[] = {"-DKL_T_FLOAT", "-DKL_T_DOUBLE -DKL_PIX_UCHAR4", "-DKL_T_INT"};
    for (int t = 0; t < 3; t++) {
        enum kl_status st = compile(prelude_check, "prelude_check.cl", types[t], &e);
        CHECK(st == KL_OK, "the prelude check kernel (%s) does not compile:\n%s", types[t], e.msg);
    }

    /* An OpenCL vector literal is a comma expression in C++: refused, not a broadcast. */
    const char literal[] = "__kernel void k(__global float4 *x)\n"
                           "{\n"
                           "    x[0] = (float4)(1.0f, 2.0f, 3.0f, 4.0f);\n"
                           "}\n";
    enum kl_status st = compile(literal, "literal.cl", "-DKL_T_FLOAT", &e);
    CHECK(st == KL_ERR_BUILD && strstr(e.msg, "expression has no effect"),
          "(float4)(1, 2, 3, 4) should fail to compile: status %d, %s", (int)st, e.msg);

    /* A compile error: KL_ERR_BUILD, and the log names the file and the kernel's own line. */
    const char broken[] = "__kernel void k(__global float *x)\n"
                          "{\n"
                          "    x[0] = no_such_name;\n"
                          "}\n";
    st = compile(broken, "opencl/broken.cl", "-DKL_T_FLOAT  -DEXTRA=1 ", &e);
    CHECK(st == KL_ERR_BUILD, "a compile error gave status %d: %s", (int)st, e.msg);
    CHECK(strstr(e.msg, "opencl/broken.cl(3)") && strstr(e.msg, "no_such_name") &&
              strstr(e.msg, "-DKL_T_FLOAT  -DEXTRA=1"),
          "the build failure message lacks the file, line, log or options:\n%s", e.msg);

    /* An architecture that does not exist: refused with a clear message. */
    char *image = NULL;
    size_t size = 0;
    st = kl_nvrtc_compile("extern \"C\" __global__ void k() {}", "arch.cu", "", 1, 0, &image, &size,
                          NULL, &e);
    CHECK(st != KL_OK && image == NULL && strstr(e.msg, "sm_10"),
          "compiling for sm_10 gave status %d: %s", (int)st, e.msg);
}

/* ---- every kernel file, with the workloads' options ------------------------ */

struct job {
    const char *file;
    int cc; /* compute capability, e.g. 90 */
    char options[256];
    double seconds;
    int ran;
    enum kl_status status;
    char *message; /* the failure's message, malloc'd */
};

static struct job *jobs;
static int njobs, cap;
static const char *only; /* FILTER: compile only files whose path contains it */

/* --first and --rest K/N (rest_n 0: every build; see the file's comment). */
static int first_only, rest_k, rest_n;

static void add_job_cc(const char *file, const char *options, int cc)
{
    if (only && !strstr(file, only))
        return;
    for (int i = 0; i < njobs; i++)
        if (strcmp(jobs[i].file, file) == 0 && strcmp(jobs[i].options, options) == 0 &&
            jobs[i].cc == cc)
            return;
    if (njobs == cap) {
        cap = cap ? 2 * cap : 64;
        struct job *j = realloc(jobs, (size_t)cap * sizeof *jobs);
        if (!j) {
            fprintf(stderr, "out of host memory\n");
            exit(1);
        }
        jobs = j;
    }
    struct job *j = &jobs[njobs++];
    memset(j, 0, sizeof *j);
    j->file = file;
    j->cc = cc;
    snprintf(j->options, sizeof j->options, "%s", options);
}

static void add_job(const char *file, const char *options)
{
    add_job_cc(file, options, CC_MAJOR * 10 + CC_MINOR);
}

/*
 * "-DKL_T_<type> -DNAME=default ..." plus extra, for each type in types; the
 * parameter named set (if not NULL) takes the value set_value.
 */
static void add_rung_with(const char *file, const struct kl_param_def *params,
                          const enum kl_type *types, int ntypes, const char *extra, const char *set,
                          int set_value)
{
    int values[KL_MAX_PARAMS] = {0};
    char opt[256];
    if (!file)
        return; /* a host rung */
    for (int i = 0; i < kl_param_count(params); i++)
        values[i] = set && strcmp(params[i].name, set) == 0 ? set_value : params[i].def;
    for (int t = 0; t < ntypes; t++) {
        kl_params_options(params, values, types[t], opt, sizeof opt);
        size_t used = strlen(opt);
        snprintf(opt + used, sizeof opt - used, "%s", extra);
        add_job(file, opt);
    }
}

static void add_rung(const char *file, const struct kl_param_def *params, const enum kl_type *types,
                     int ntypes, const char *extra)
{
    add_rung_with(file, params, types, ntypes, extra, NULL, 0);
}

static const enum kl_type all_types[] = {KL_FLOAT, KL_DOUBLE, KL_INT};
static const enum kl_type narrow_types[] = {KL_HALF, KL_BF16, KL_FP8, KL_FP8E5M2, KL_INT8};
static const enum kl_type real_types[] = {KL_FLOAT, KL_DOUBLE};
static const enum kl_type int_type[] = {KL_INT};
static const enum kl_type float_type[] = {KL_FLOAT};

/*
 * A tensor-core GEMM rung (float only): its defaults and four tile sets
 * (smaller, larger, deeper, taller blocks; each where the rung accepts it),
 * for the oldest architecture with TF32 mma.sync (sm_80) and for the H100's
 * (sm_90).
 */
static void add_tensor_rung(const struct kl_gemm_rung *r)
{
    static const int ccs[] = {80, 90};
    static const char *const sets[][6] = {
        {NULL},
        {"BM=64", "BN=128", "BK=16", "WM=32", "WN=64", NULL},
        {"BM=128", "BN=256", "BK=32", "WM=64", "WN=64", NULL},
        {"BM=32", "BN=32", "BK=8", "WM=16", "WN=8", NULL},
        {"BM=256", "BN=64", "BK=64", "WM=64", "WN=32", NULL},
    };
    char opt[256];
    for (size_t c = 0; c < sizeof ccs / sizeof *ccs; c++)
        for (size_t k = 0; k < sizeof sets / sizeof *sets; k++) {
            int values[KL_MAX_PARAMS], n = 0;
            unsigned mask;
            struct kl_err e;
            while (sets[k][n])
                n++;
            if (kl_params_resolve(r->name, r->params, sets[k], n, values, &mask, &e) != KL_OK ||
                kl_params_check_multiples(r->name, r->params, values, r->multiples, &e) != KL_OK ||
                (r->relations && r->relations(r, values, KL_FLOAT, &e) != KL_OK) ||
                (!kl_kernel_is_cuda(r->file) && kl_gemm_local_bytes(r, values, KL_FLOAT) > 49152))
                continue; /* a set this rung refuses, or beyond static shared memory */
            kl_params_options(r->params, values, KL_FLOAT, opt, sizeof opt);
            add_job_cc(r->file, opt, ccs[c]);
        }
}

/*
 * A tensor-core GEMM rung in its inputs' own types (r->tensor: 19_mma in the
 * narrow types, 21_dmma in double): for each type it takes, its defaults and
 * the tile sets below that it accepts in that type (smaller, larger, deeper,
 * an odd number of n8 tiles per warp, other instruction depths, rung 21's
 * single set of fragments and its ring of A fragments), for the
 * oldest architecture with that type's mma.sync (sm_80; sm_89 for FP8) and
 * for the H100's (sm_90).
 */
static void add_typed_tensor_rung(const struct kl_gemm_rung *r)
{
    static const char *const sets[][8] = {
        {NULL},
        {"BM=64", "BN=128", "BK=64", "WM=32", "WN=64", NULL},
        {"BM=128", "BN=256", "BK=32", "WM=64", "WN=64", "STAGES=3", NULL},
        {"BM=32", "BN=32", "BK=32", "WM=32", "WN=16", "STAGES=2", NULL},
        {"BM=96", "BN=48", "BK=64", "WM=32", "WN=24", NULL},
        {"BM=256", "BN=64", "BK=128", "WM=64", "WN=32", "STAGES=2", NULL},
        {"BM=64", "BN=64", "BK=8", "WM=32", "WN=32", NULL},
        {"MK=8", NULL},
        {"MK=16", NULL},
        {"BM=64", "BN=64", "BK=32", "WM=32", "WN=32", "MK=16", NULL},
        /* rung 21's single set of fragments, at its defaults and on 128 x 128 blocks */
        {"PREFETCH=0", NULL},
        {"BM=128", "BN=128", "WM=32", "WN=64", "PREFETCH=0", NULL},
        {"BM=128", "BN=128", "WM=32", "WN=64", "MK=16", "PREFETCH=0", NULL},
        {"BM=128", "BN=128", "BK=8", "WM=64", "WN=32", "STAGES=4", "PREFETCH=0"},
        /* rung 21's ring of A fragments: at its defaults, on 64 x 32 warp tiles of 128 x 128
           and 128 x 64 blocks, and with one step a slice (an odd KSTEPS) */
        {"PREFETCH=2", NULL},
        {"BM=128", "BN=128", "WM=64", "WN=32", "PREFETCH=2", NULL},
        {"BM=128", "BN=64", "WM=64", "WN=32", "PREFETCH=2", NULL},
        {"BK=8", "PREFETCH=2", NULL},
    };
    char opt[256];
    for (int t = 0; t < KL_TYPE_COUNT; t++) {
        int fp8 = t == KL_FP8 || t == KL_FP8E5M2, ccs[2] = {fp8 ? 89 : 80, 90};
        if (!(r->types & KL_TYPE_BIT(t)))
            continue;
        for (size_t k = 0; k < sizeof sets / sizeof *sets; k++) {
            int values[KL_MAX_PARAMS], n = 0;
            unsigned mask;
            struct kl_err e;
            while (sets[k][n])
                n++;
            if (kl_params_resolve(r->name, r->params, sets[k], n, values, &mask, &e) != KL_OK ||
                kl_params_check_multiples(r->name, r->params, values, r->multiples, &e) != KL_OK ||
                (r->relations && r->relations(r, values, (enum kl_type)t, &e) != KL_OK))
                continue; /* a set this rung refuses in this type */
            kl_params_options(r->params, values, (enum kl_type)t, opt, sizeof opt);
            for (int c = 0; c < 2; c++)
                add_job_cc(r->file, opt, ccs[c]);
        }
    }
}

/*
 * Rung r with the n NAME=VALUE items set (its defaults for the rest) as a job
 * for sm_90a, unless the rung refuses them or they exceed the H100's shared
 * memory.
 */
static void add_wgmma_variant_in(const struct kl_gemm_rung *r, enum kl_type t, char (*items)[32],
                                 int n)
{
    const char *set[KL_MAX_PARAMS] = {0};
    int values[KL_MAX_PARAMS];
    unsigned mask;
    struct kl_err e;
    char opt[256];
    for (int i = 0; i < n; i++)
        set[i] = items[i];
    if (kl_params_resolve(r->name, r->params, set, n, values, &mask, &e) != KL_OK ||
        r->relations(r, values, t, &e) != KL_OK || kl_gemm_local_bytes(r, values, t) > 232448)
        return;
    kl_params_options(r->params, values, t, opt, sizeof opt);
    add_job_cc(r->file, opt, 90);
}

static void add_wgmma_variant(const struct kl_gemm_rung *r, char (*items)[32], int n)
{
    add_wgmma_variant_in(r, KL_FLOAT, items, n);
}

/* The Ozaki scheme's kernels (rung 22) with the fewest, the default and the most moduli, and
 * rung 20's int8 kernel as rung 22 builds it, and so with stream-K (SK=1). */
static void add_ozaki_rung(const struct kl_gemm_rung *r)
{
    const struct kl_param_def *m = &r->params[kl_param_index(r->params, "MODULI")];
    const int counts[] = {m->min, m->def, m->max};
    const struct kl_gemm_rung *r20 = kl_gemm_rung_find("20_wgmma");
    int values[KL_MAX_PARAMS];
    unsigned mask;
    struct kl_err e;
    char opt[256];
    for (int i = 0; i < 3; i++) {
        snprintf(opt, sizeof opt, "-DNMOD=%d", counts[i]);
        add_job_cc(r->file, opt, 90);
    }
    /* its products: rung 20 in int8 storing residues (from the registers: EPI=0, as
       gemm/ozaki.c hands them), and so with stream-K */
    static const char *const items[] = {"EPI=0", "SK=1"};
    for (int k = 1; k <= 2; k++)
        if (kl_params_resolve(r20->name, r20->params, items, k, values, &mask, &e) == KL_OK) {
            kl_params_options(r20->params, values, KL_INT8, opt, sizeof opt);
            strncat(opt, " -DRESIDUES", sizeof opt - strlen(opt) - 1);
            add_job_cc(r20->file, opt, 90);
        }
}

/*
 * Rung 20's FP8 sums: both formats at every PROMOTE the tuner can choose (0,
 * the fast mode, and 128 to its maximum, doubling) on the preset's tiles
 * (BN=192), and e4m3 promoted on every tile whose second set of sums fits.
 */
static void add_fp8_promotions(const struct kl_gemm_rung *r)
{
    const struct kl_param_def *bm = &r->params[kl_param_index(r->params, "BM")];
    const struct kl_param_def *bn = &r->params[kl_param_index(r->params, "BN")];
    const struct kl_param_def *pr = &r->params[kl_param_index(r->params, "PROMOTE")];
    char items[3][32];
    for (enum kl_type t = KL_FP8; t <= KL_FP8E5M2; t++)
        for (int p = 0; p <= pr->max; p = p ? 2 * p : pr->multiple) {
            snprintf(items[0], sizeof items[0], "PROMOTE=%d", p);
            snprintf(items[1], sizeof items[1], "BN=192");
            add_wgmma_variant_in(r, t, items, 2);
        }
    for (int m = bm->min; m <= bm->max; m += bm->multiple)
        for (int n = bn->min; n <= bn->max; n += bn->multiple) {
            snprintf(items[0], sizeof items[0], "BM=%d", m);
            snprintf(items[1], sizeof items[1], "BN=%d", n);
            snprintf(items[2], sizeof items[2], "PROMOTE=%d", pr->def);
            if (!(m == bm->def && n == 192)) /* built above */
                add_wgmma_variant_in(r, KL_FP8, items, 3);
        }
}

/*
 * Rung 20's stores of C from the registers (EPI=0; the default, EPI=2, stores
 * through shared memory): each type at its defaults (FP8 on its preset's
 * BN=192, promoted and not), so with stream-K; and for half every BM on
 * BN=128, from the registers in a ring of 4 and through shared memory (EPI=1
 * and 2) in a ring of 3 (with 4, BM = 256's boxes pass 227 KiB).
 */
static void add_register_stores(const struct kl_gemm_rung *r)
{
    const struct kl_param_def *bm = &r->params[kl_param_index(r->params, "BM")];
    char items[4][32];
    for (int sk = 0; sk <= 1; sk++)
        for (int t = 0; t < KL_TYPE_COUNT; t++) {
            if (!(r->types & KL_TYPE_BIT(t)))
                continue;
            snprintf(items[0], sizeof items[0], "EPI=0");
            snprintf(items[1], sizeof items[1], "SK=%d", sk);
            snprintf(items[2], sizeof items[2], "BN=%d", kl_type_fp8((enum kl_type)t) ? 192 : 256);
            add_wgmma_variant_in(r, (enum kl_type)t, items, 3);
            snprintf(items[3], sizeof items[3], "PROMOTE=0");
            if (kl_type_fp8((enum kl_type)t))
                add_wgmma_variant_in(r, (enum kl_type)t, items, 4);
        }
    snprintf(items[1], sizeof items[1], "BN=128");
    for (int epi = 0; epi <= 2; epi++) {
        snprintf(items[0], sizeof items[0], "EPI=%d", epi);
        snprintf(items[2], sizeof items[2], "STAGES=%d", epi ? 3 : 4);
        for (int m = bm->min; m <= bm->max; m += bm->multiple) {
            snprintf(items[3], sizeof items[3], "BM=%d", m);
            add_wgmma_variant_in(r, KL_HALF, items, 4);
        }
    }
}

/*
 * Rung 20's L2 policies (HINT): both in bf16, in fp8 (on the preset's
 * BN=192) and in int8 with stream-K; C's stores alone in half; the
 * operands' copies alone in half with C from the registers (EPI=0, no TMA
 * stores to mark).
 */
static void add_l2_hints(const struct kl_gemm_rung *r)
{
    static const struct {
        enum kl_type t;
        const char *set[2];
    } builds[] = {{KL_BF16, {"HINT=3", NULL}},
                  {KL_FP8, {"HINT=3", "BN=192"}},
                  {KL_INT8, {"HINT=3", "SK=1"}},
                  {KL_HALF, {"HINT=1", NULL}},
                  {KL_HALF, {"HINT=2", "EPI=0"}}};
    char items[2][32];
    for (size_t i = 0; i < sizeof builds / sizeof *builds; i++) {
        int n = 0;
        for (; n < 2 && builds[i].set[n]; n++)
            snprintf(items[n], sizeof items[n], "%s", builds[i].set[n]);
        add_wgmma_variant_in(r, builds[i].t, items, n);
    }
}

/*
 * Hopper's wgmma rung in the narrow types (rung 20): each type at its
 * defaults; every tile (BM, BN) for half and int8, whose accumulators are of
 * the two kinds (fp32, int32); the ring's extreme depths for half; FP8's
 * promotions (add_fp8_promotions); stream-K (SK=1) in each type (FP8
 * promoted on the preset's BN=192, and not) and at each BM for half (on
 * BN=128, which every BM allows); the stores from the registers (add_register_stores);
 * the L2 policies (add_l2_hints).
 */
static void add_wgmma_narrow_rung(const struct kl_gemm_rung *r)
{
    const struct kl_param_def *bm = &r->params[kl_param_index(r->params, "BM")];
    const struct kl_param_def *bn = &r->params[kl_param_index(r->params, "BN")];
    const struct kl_param_def *st = &r->params[kl_param_index(r->params, "STAGES")];
    char items[3][32];
    add_fp8_promotions(r);
    for (int t = 0; t < KL_TYPE_COUNT; t++)
        if (r->types & KL_TYPE_BIT(t))
            add_wgmma_variant_in(r, (enum kl_type)t, items, 0);
    for (int t = KL_HALF; t <= KL_INT8; t += KL_INT8 - KL_HALF)
        for (int m = bm->min; m <= bm->max; m += bm->multiple)
            for (int n = bn->min; n <= bn->max; n += bn->multiple) {
                snprintf(items[0], sizeof items[0], "BM=%d", m);
                snprintf(items[1], sizeof items[1], "BN=%d", n);
                add_wgmma_variant_in(r, (enum kl_type)t, items, 2);
            }
    for (int d = st->min; d <= st->max; d += st->max - st->min) {
        snprintf(items[0], sizeof items[0], "STAGES=%d", d);
        add_wgmma_variant_in(r, KL_HALF, items, 1);
    }
    snprintf(items[0], sizeof items[0], "SK=1");
    for (int t = 0; t < KL_TYPE_COUNT; t++)
        if (!(r->types & KL_TYPE_BIT(t))) {
            continue;
        } else if (kl_type_fp8((enum kl_type)t)) {
            snprintf(items[1], sizeof items[1], "BN=192");
            add_wgmma_variant_in(r, (enum kl_type)t, items, 2);
            snprintf(items[1], sizeof items[1], "PROMOTE=0");
            add_wgmma_variant_in(r, (enum kl_type)t, items, 2);
        } else {
            add_wgmma_variant_in(r, (enum kl_type)t, items, 1);
        }
    snprintf(items[1], sizeof items[1], "BN=128");
    for (int m = bm->min; m <= bm->max; m += bm->multiple) {
        snprintf(items[2], sizeof items[2], "BM=%d", m);
        add_wgmma_variant_in(r, KL_HALF, items, 3);
    }
    add_register_stores(r);
    add_l2_hints(r);
}

/*
 * A Hopper wgmma rung with mode set (a parameter's value the loops of
 * add_wgmma_rung do not take): every tile at the default depth, in clusters
 * of the most blocks, with stream-K and (rung 17) with INFLIGHT the other way.
 */
static void add_wgmma_mode(const struct kl_gemm_rung *r, const char *mode)
{
    const struct kl_param_def *bm = &r->params[kl_param_index(r->params, "BM")];
    const struct kl_param_def *bn = &r->params[kl_param_index(r->params, "BN")];
    const struct kl_param_def *cl = &r->params[kl_param_index(r->params, "CLUSTER")];
    int in = kl_param_index(r->params, "INFLIGHT");
    char items[3][32];
    snprintf(items[0], sizeof items[0], "%s", mode);
    for (int m = bm->min; m <= bm->max; m += bm->multiple)
        for (int n = bn->min; n <= bn->max; n += bn->multiple) {
            snprintf(items[1], sizeof items[1], "BM=%d", m);
            snprintf(items[2], sizeof items[2], "BN=%d", n);
            add_wgmma_variant(r, items, 3);
        }
    snprintf(items[1], sizeof items[1], "CLUSTER=%d", cl->max);
    add_wgmma_variant(r, items, 2);
    snprintf(items[1], sizeof items[1], "SK=1");
    add_wgmma_variant(r, items, 2);
    if (in >= 0) {
        snprintf(items[1], sizeof items[1], "INFLIGHT=%d", !r->params[in].def);
        add_wgmma_variant(r, items, 2);
    }
}

/*
 * A Hopper wgmma rung (float, sm_90a only): every tile and pipeline depth the
 * tuner can choose (each BM and BN of its range, each STAGES that fits the
 * H100's 227 KiB of shared memory), the raster's extreme groups at the
 * defaults, every tile in clusters of each other size at the default depth,
 * (rung 17) every tile and cluster size with INFLIGHT the other way,
 * stream-K (SK=1) at the defaults, in clusters of each size and (rung 17)
 * with INFLIGHT the other way; all of them storing C by their default (by
 * TMA where its boxes fit, by rows elsewhere: EPI=2), and on every tile from
 * the registers (EPI=0) and from the registers where TMA's boxes do not fit
 * (EPI=1).
 */
static void add_wgmma_rung(const struct kl_gemm_rung *r)
{
    const struct kl_param_def *bm = &r->params[kl_param_index(r->params, "BM")];
    const struct kl_param_def *bn = &r->params[kl_param_index(r->params, "BN")];
    const struct kl_param_def *st = &r->params[kl_param_index(r->params, "STAGES")];
    const struct kl_param_def *gr = &r->params[kl_param_index(r->params, "GROUP")];
    const struct kl_param_def *cl = &r->params[kl_param_index(r->params, "CLUSTER")];
    int in = kl_param_index(r->params, "INFLIGHT");
    char items[5][32];
    for (int c = cl->min; c <= cl->max; c++)
        for (int m = bm->min; m <= bm->max; m += bm->multiple)
            for (int n = bn->min; n <= bn->max; n += bn->multiple) {
                snprintf(items[0], sizeof items[0], "BM=%d", m);
                snprintf(items[1], sizeof items[1], "BN=%d", n);
                for (int s = st->min; s <= st->max; s++)
                    for (int g = 0; g < 3; g++) {
                        int group = g == 0 ? gr->def : g == 1 ? gr->min : gr->max;
                        if (g > 0 && (m != bm->def || n != bn->def || s != st->def || c != cl->def))
                            continue;
                        if (c != cl->def && s != st->def)
                            continue;
                        snprintf(items[2], sizeof items[2], "STAGES=%d", s);
                        snprintf(items[3], sizeof items[3], "GROUP=%d", group);
                        snprintf(items[4], sizeof items[4], "CLUSTER=%d", c);
                        add_wgmma_variant(r, items, 5);
                    }
                if (in >= 0) {
                    snprintf(items[2], sizeof items[2], "CLUSTER=%d", c);
                    snprintf(items[3], sizeof items[3], "INFLIGHT=%d", !r->params[in].def);
                    add_wgmma_variant(r, items, 4);
                }
            }
    snprintf(items[0], sizeof items[0], "SK=1");
    for (int c = cl->min; c <= cl->max; c++) {
        snprintf(items[1], sizeof items[1], "CLUSTER=%d", c);
        add_wgmma_variant(r, items, 2);
    }
    if (in >= 0) {
        snprintf(items[1], sizeof items[1], "INFLIGHT=%d", !r->params[in].def);
        add_wgmma_variant(r, items, 2);
    }
    /* C's stores other than the default's (the loops above: by TMA where its boxes fit, by rows
       elsewhere, EPI=2): from the registers (EPI=0) and from the registers where TMA's boxes do
       not fit (EPI=1) */
    const struct kl_param_def *epi = &r->params[kl_param_index(r->params, "EPI")];
    for (int e = 0; e <= epi->max; e++)
        if (e != epi->def) {
            char mode[16];
            snprintf(mode, sizeof mode, "EPI=%d", e);
            add_wgmma_mode(r, mode);
        }
}

/* A blur rung in both pixel types (uchar4 only for rgba8_only, float only for float_only), as
 * blur/run.c builds it; with PX, every width; with CW (rungs 13 and 13cl), every channel count;
 * with SA (rung 14), both; a CUDA C++ or tensor-core rung also at radius 0 and at 40, beyond
 * its unrolled taps. */
static void add_blur(const char *file, const struct kl_param_def *params, int px, int rgba8_only,
                     int float_only)
{
    const int tensor = kl_param_index(params, "WX") >= 0; /* rungs 13, 13cl and 14 unroll RAD */
    static const char *const pixels[] = {" -DKL_PIX_FLOAT", " -DKL_PIX_UCHAR4"};
    static const int radii[] = {BLUR_RADIUS, 0, 40};
    char extra[128];
    for (int p = rgba8_only; p < 2 - float_only; p++)
        for (int k = 0; k < (ends_with(file, ".cu") || tensor ? 3 : 1); k++) {
            snprintf(extra, sizeof extra, " -DRAD=%d%s", radii[k], pixels[p]);
            add_rung(file, params, float_type, 1, extra);
            for (int w = 1; px && k == 0 && w <= 8; w *= 2)
                add_rung_with(file, params, float_type, 1, extra,
                              kl_param_index(params, "PX") >= 0 ? "PX" : "RX", w);
            for (int c = 1; kl_param_index(params, "CW") >= 0 && k == 0 && c <= 2; c *= 2)
                add_rung_with(file, params, float_type, 1, extra, "CW", c);
            if (kl_param_index(params, "SA") >= 0) /* rung 14's one small accumulator */
                add_rung_with(file, params, float_type, 1, extra, "SA", 1);
        }
}

/* The options kladder peak (src/workloads/peak*.c) builds its kernels with. */
static void add_peak(const char *file)
{
    char opt[128];
    const char *base = strrchr(file, '/') + 1;
    if (strcmp(base, "empty.cl") == 0) {
        add_job(file, "");
    } else if (strcmp(base, "mma.cl") == 0) {
        /* Every precision, as peak/tensor.c builds it, for sm_80 and sm_90a (FP64 m16n8k16:
         * 9.0 only). */
        static const char *const tc[] = {"TF32", "F16", "F16ACC", "BF16", "I8", "F64", "F64K16"};
        for (size_t p = 0; p < sizeof tc / sizeof *tc; p++)
            for (int ch = 2; ch <= 8; ch *= 2) {
                snprintf(opt, sizeof opt, "-DTC_%s -DCHAINS=%d", tc[p], ch);
                if (strcmp(tc[p], "F64K16") != 0)
                    add_job_cc(file, opt, 80);
                add_job_cc(file, opt, 90);
            }
    } else if (strcmp(base, "hfma2.cl") == 0) {
        for (int ch = 1; ch <= 16; ch *= 2) {
            snprintf(opt, sizeof opt, "-DCHAINS=%d", ch);
            add_job_cc(file, opt, 80);
            add_job_cc(file, opt, 90);
        }
    } else if (strcmp(base, "flops.cl") == 0) {
        for (int t = 0; t < 3; t++)
            for (int v = 1; v <= 16; v *= 2) {
                kl_params_options(NULL, NULL, all_types[t], opt, sizeof opt);
                size_t used = strlen(opt);
                snprintf(opt + used, sizeof opt - used, " -DVEC=%d -DCHAINS=8", v);
                add_job(file, opt);
            }
    } else if (strcmp(base, "local_bw.cl") == 0) {
        /* The memory hierarchy (peak/memory.c): local_bw's widths; the others take none. */
        for (int v = 1; v <= 4; v *= 2) {
            snprintf(opt, sizeof opt, "-DVEC=%d -DLWORDS=4096", v);
            add_job(file, opt);
        }
    } else if (strcmp(base, "cache_bw.cl") == 0 || strcmp(base, "chase.cl") == 0 ||
               strcmp(base, "atomics.cl") == 0) {
        add_job(file, "");
    } else {
        for (int v = 1; v <= 16; v *= 2) {
            snprintf(opt, sizeof opt, "-DVEC=%d -DEPI=4", v);
            add_job(file, opt);
        }
    }
}

/* wgmma.cu in every precision peak/tensor.c builds, for sm_90a (its only target). */
static void add_cuda_peak(const char *file)
{
    static const char *const tc[] = {"TF32", "F16", "F16ACC", "BF16", "E4M3", "E5M2", "I8"};
    char opt[64];
    for (size_t p = 0; p < sizeof tc / sizeof *tc; p++) {
        snprintf(opt, sizeof opt, "-DTC_%s", tc[p]);
        add_job_cc(file, opt, 90);
    }
}

/*
 * A GEMM rung's presets, each as kladder builds it on the devices it is
 * for (test_units checks that each is a valid set of the rung's values).
 */
static void add_gemm_presets(const struct kl_gemm_rung *r)
{
    for (int i = 0; i < KL_MAX_PRESETS && r->presets[i].cc; i++) {
        const struct kl_gemm_preset *p = &r->presets[i];
        const char *items[KL_MAX_PARAMS];
        int values[KL_MAX_PARAMS];
        unsigned mask;
        struct kl_err e;
        char buf[256], opt[256];
        int n = kl_tuned_items(p->params, buf, sizeof buf, items, KL_MAX_PARAMS);
        if (n < 1 || kl_params_resolve(r->name, r->params, items, n, values, &mask, &e) != KL_OK)
            continue;
        kl_params_options(r->params, values, p->type, opt, sizeof opt);
        add_job_cc(r->file, opt, p->cc);
    }
}

/* Files no rung table names: the directory's usual options. */
static void add_by_directory(const char *file)
{
    if (strncmp(file, "opencl/peak/", 12) == 0)
        add_peak(file);
    else if (strncmp(file, "cuda/peak/", 10) == 0)
        add_cuda_peak(file);
    else if (strncmp(file, "opencl/blur/", 12) == 0)
        add_blur(file, NULL, 0, 0, 0);
    else if (strncmp(file, "opencl/copy/", 12) == 0)
        add_rung(file, NULL, int_type, 1, "");
    else if (strncmp(file, "opencl/gemm/", 12) == 0)
        add_rung(file, NULL, all_types, 3, "");
    else if (strncmp(file, "opencl/rowdot/", 14) == 0 || strncmp(file, "opencl/gemv/", 12) == 0)
        add_rung(file, NULL, real_types, 2, "");
    else
        add_rung(file, NULL, float_type, 1, "");
}

static int uses_images(const char *text)
{
    return strstr(text, "image2d_t") || strstr(text, "image3d_t") || strstr(text, "image1d_t") ||
           strstr(text, "sampler_t");
}

/* OpenCL kernel files (not the prelude), and CUDA C++ kernel files. */
static int is_kernel_file(const char *path)
{
    return (strncmp(path, "opencl/", 7) == 0 && ends_with(path, ".cl") &&
            strcmp(path, "opencl/prelude.cl") != 0) ||
           ends_with(path, ".cu");
}

/* Every (file, options) to compile, from the rung tables and the embedded files. */
static int collect(void)
{
    int skipped = 0;
    for (int i = 0; i < kl_gemm_rung_count(); i++) {
        const struct kl_gemm_rung *r = kl_gemm_rung_at(i);
        if (r->ozaki)
            add_ozaki_rung(r);
        else if (r->hopper && r->types == KL_TYPES_NARROW)
            add_wgmma_narrow_rung(r);
        else if (r->hopper)
            add_wgmma_rung(r);
        else if (r->tensor)
            add_typed_tensor_rung(r);
        else if (r->precision == KL_PREC_NONE)
            add_rung(r->file, r->params, all_types, 3, "");
        else
            add_tensor_rung(r);
        for (int t = 0; t < 5 && !r->hopper && r->precision == KL_PREC_NONE; t++)
            if (r->types & KL_TYPE_BIT(narrow_types[t])) /* the narrow input types it takes */
                add_rung(r->file, r->params, &narrow_types[t], 1, "");
        if (!r->ozaki)
            add_gemm_presets(r);
        if (kl_param_index(r->params, "SPLITK") >= 0) { /* split-K: wide types, and half */
            add_rung_with(r->file, r->params, all_types, 3, "", "SPLITK", 4);
            if (r->types & KL_TYPE_BIT(KL_HALF))
                add_rung_with(r->file, r->params, narrow_types, 1, "", "SPLITK", 4);
        }
        if (!r->hopper && kl_param_index(r->params, "SK") >= 0) /* rung 14's stream-K */
            add_rung_with(r->file, r->params, all_types, 3, "", "SK", 1);
    }
    for (int i = 0; i < kl_rowdot_rung_count(); i++)
        add_rung(kl_rowdot_rung_at(i)->file, kl_rowdot_rung_at(i)->params, real_types, 2, "");
    for (int i = 0; i < kl_gemv_rung_count(); i++)
        add_rung(kl_gemv_rung_at(i)->file, kl_gemv_rung_at(i)->params, real_types, 2, "");
    /* the reductions: every type and operation, with sub-groups as the CUDA backend builds them */
    for (int i = 0; i < kl_reduce_rung_count(); i++)
        for (int op = 0; op < 3; op++) {
            static const char *const ops[] = {"SUM", "MIN", "MAX"};
            char extra[64];
            snprintf(extra, sizeof extra, " -DKL_OP_%s -DKL_SUBGROUPS", ops[op]);
            add_rung(kl_reduce_rung_at(i)->file, kl_reduce_rung_at(i)->params, all_types, 3, extra);
        }
    /* the scans: float and int, inclusive and exclusive, with sub-groups as CUDA builds them */
    for (int i = 0; i < kl_scan_rung_count(); i++)
        for (int exclusive = 0; exclusive < 2; exclusive++) {
            static const enum kl_type scan_types[] = {KL_FLOAT, KL_INT};
            const char *extra = exclusive ? " -DKL_OP_SUM -DKL_EXCLUSIVE -DKL_SUBGROUPS"
                                          : " -DKL_OP_SUM -DKL_SUBGROUPS";
            add_rung(kl_scan_rung_at(i)->file, kl_scan_rung_at(i)->params, scan_types, 2, extra);
        }
    /* the histograms: bytes, at 256 bins and at an odd count */
    for (int i = 0; i < kl_histogram_rung_count(); i++) {
        static const enum kl_type bytes[] = {KL_UCHAR};
        add_rung(kl_histogram_rung_at(i)->file, kl_histogram_rung_at(i)->params, bytes, 1,
                 " -DBINS=256");
        add_rung(kl_histogram_rung_at(i)->file, kl_histogram_rung_at(i)->params, bytes, 1,
                 " -DBINS=7");
    }
    /* the transposes: 4-, 8- and 2-byte elements, out of place and in place */
    for (int i = 0; i < kl_transpose_rung_count(); i++) {
        static const enum kl_type moved[] = {KL_FLOAT, KL_DOUBLE, KL_HALF};
        const struct kl_transpose_rung *r = kl_transpose_rung_at(i);
        add_rung(r->file, r->params, moved, 3, " -DIN_PLACE=0");
        add_rung(r->file, r->params, moved, 3, " -DIN_PLACE=1");
    }
    /* the row ops: float, half and bf16, each op, with sub-groups as the CUDA backend builds them
     */
    for (int i = 0; i < kl_softmax_rung_count(); i++) {
        static const enum kl_type rowed[] = {KL_FLOAT, KL_HALF, KL_BF16};
        static const char *const ops[] = {" -DOP_SOFTMAX -DKL_SUBGROUPS",
                                          " -DOP_LAYERNORM -DKL_SUBGROUPS",
                                          " -DOP_RMSNORM -DKL_SUBGROUPS"};
        for (int op = 0; op < 3; op++)
            add_rung(kl_softmax_rung_at(i)->file, kl_softmax_rung_at(i)->params, rowed, 3, ops[op]);
        /* and as the rule sizes it to the longest rows it holds (shared memory in use): rows
           of 1 MiB, 256k floats or 512k 2-byte elements */
        const struct kl_softmax_rung *r = kl_softmax_rung_at(i);
        for (int t = 0; r->shape == KL_ROW_IN_CLUSTER && t < 3; t++) {
            int values[KL_MAX_PARAMS] = {0};
            char config[128], opt[256];
            const int bytes = (int)kl_type_size(rowed[t]);
            kl_softmax_rule(r, (1 << 20) / bytes, bytes, values, config, sizeof config);
            kl_params_options(r->params, values, rowed[t], opt, sizeof opt);
            for (int op = 0; op < 3; op++) {
                char both[320];
                snprintf(both, sizeof both, "%s%s", opt, ops[op]);
                add_job(r->file, both);
            }
        }
    }
    for (int i = 0; i < kl_copy_rung_count(); i++) {
        const struct kl_copy_rung *r = kl_copy_rung_at(i);
        char extra[32] = "";
        if (r->ilp && !ends_with(r->file, ".cu")) /* the seed's kernel takes ILP as an argument */
            snprintf(extra, sizeof extra, " -DILP=%d", r->ilp);
        add_rung(r->file, r->params, int_type, 1, extra);
    }
    for (int i = 0; i < kl_blur_rung_count(); i++) {
        const struct kl_blur_rung *r = kl_blur_rung_at(i);
        if (r->kind != KL_BLUR_IMAGE)
            add_blur(r->file, r->params, r->px, r->rgba8_only, r->float_only);
    }
    /* A user's kernel may name its parameters with single letters: the CUDA prelude's own
     * template parameters (kl_S, kl_N, ...) must not meet them. A vector kernel with each. */
    add_job("opencl/copy/vec4.cl",
            "-DKL_T_INT -DA=1 -DB=2 -DC=3 -DD=4 -DK=8 -DN=5 -DS=6 -DV=9 -DX=7 -DBS=256 -DILP=2");
    /* The byte type's loads (LD, LD4, LD8 of uchar into uint) through the CUDA prelude, in
     * kernels that read their inputs with them (no ladder takes uchar yet). */
    add_job("opencl/gemm/01_naive.cl", "-DKL_T_UCHAR");
    add_job("opencl/gemm/09_vec8.cl", "-DKL_T_UCHAR");

    /* Every kernel file built into kladder: the tables' options, else the directory's. */
    for (const struct kl_embedded_file *f = kl_embedded_kernels; f->path; f++) {
        if (!is_kernel_file(f->path))
            continue;
        if (uses_images(f->text)) {
            printf("skip %-34s images are not mapped to CUDA (no image support there)\n", f->path);
            skipped++;
            continue;
        }
        int known = 0;
        for (int i = 0; i < njobs && !known; i++)
            known = strcmp(jobs[i].file, f->path) == 0;
        if (!known)
            add_by_directory(f->path);
    }
    /* A rung table that names a file not built into kladder is an error. */
    for (int i = 0; i < njobs; i++)
        if (!embedded(jobs[i].file)) {
            CHECK(0, "rung file %s is not built into kladder", jobs[i].file);
            jobs[i].status = KL_ERR_IO;
        }
    return skipped;
}

/* 1 where job i is the first collected of its file. */
static int first_of_file(int i)
{
    for (int k = 0; k < i; k++)
        if (strcmp(jobs[k].file, jobs[i].file) == 0)
            return 0;
    return 1;
}

/*
 * Keeps the jobs --first or --rest K/N chooses, in order; a job already
 * failed (a file not built into kladder) is kept whatever is chosen.
 */
static void choose(void)
{
    int kept = 0, rest = 0;
    for (int i = 0; i < njobs; i++) {
        int first = first_of_file(i), keep = 1;
        if (first_only)
            keep = first;
        else if (rest_n)
            keep = !first && rest++ % rest_n == rest_k;
        if (keep || jobs[i].status != KL_OK)
            jobs[kept++] = jobs[i];
    }
    njobs = kept;
}

static int next_job;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg)
{
    struct kl_err *e = malloc(sizeof *e); /* 16 KiB: not on the stack */
    (void)arg;
    for (;;) {
        pthread_mutex_lock(&lock);
        int i = next_job++;
        pthread_mutex_unlock(&lock);
        if (i >= njobs || !e) {
            free(e);
            return NULL;
        }
        struct job *j = &jobs[i];
        const char *body = embedded(j->file);
        if (!body)
            continue;
        double t0 = now();
        j->status = compile_for(body, j->file, j->options, j->cc, e);
        j->seconds = now() - t0;
        j->ran = 1;
        if (j->status != KL_OK)
            j->message = strdup(e->msg);
    }
}

static void compile_all(void)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int nthreads = ncpu < 1 ? 1 : ncpu > 16 ? 16 : (int)ncpu;
    pthread_t threads[16];
    int started = 0;
    for (int t = 0; t < nthreads; t++)
        if (pthread_create(&threads[t], NULL, worker, NULL) == 0)
            started++;
    if (!started)
        worker(NULL);
    for (int t = 0; t < started; t++)
        pthread_join(threads[t], NULL);

    for (int i = 0; i < njobs; i++) {
        struct job *j = &jobs[i];
        if (j->status == KL_OK)
            printf("ok   %-34s sm_%d %5.2f s  %s\n", j->file, j->cc, j->seconds, j->options);
    }
    for (int i = 0; i < njobs; i++) {
        struct job *j = &jobs[i];
        if (!j->ran && j->status == KL_OK) {
            j->status = KL_ERR_BACKEND;
            CHECK(0, "%s with options \"%s\" was not compiled", j->file, j->options);
        }
        if (j->status == KL_OK || !j->message)
            continue;
        printf("FAIL %-34s sm_%d %s\n", j->file, j->cc, j->options);
        CHECK(0, "%s with options \"%s\" does not compile as CUDA for sm_%d:\n%s", j->file,
              j->options, j->cc, j->message);
        free(j->message);
    }
}

int main(int argc, char **argv)
{
    char why[512];
    int a = 1;
    if (a < argc && strcmp(argv[a], "--first") == 0) {
        first_only = 1;
        a++;
    } else if (a + 1 < argc && strcmp(argv[a], "--rest") == 0) {
        if (sscanf(argv[a + 1], "%d/%d", &rest_k, &rest_n) != 2 || rest_n < 1 || rest_k < 0 ||
            rest_k >= rest_n) {
            fprintf(stderr, "test_nvrtc: --rest takes K/N with 0 <= K < N (got %s)\n",
                    argv[a + 1]);
            return 2;
        }
        a += 2;
    }
    only = a < argc ? argv[a] : NULL;
    if (!kl_nvrtc_available(why, sizeof why)) {
        printf("skipped: %s\n", why);
        return SKIP;
    }
    cuda_prelude = embedded("cuda/prelude.cuh");
    opencl_prelude = embedded("opencl/prelude.cl");
    if (!cuda_prelude || !opencl_prelude) {
        fprintf(stderr, "cuda/prelude.cuh or opencl/prelude.cl is not built into kladder\n");
        return 1;
    }
    double t0 = now();
    if (!rest_n)
        test_prelude();
    int skipped = collect();
    choose();
    compile_all();
    int failed = 0;
    for (int i = 0; i < njobs; i++)
        failed += jobs[i].status != KL_OK;
    printf("%d kernel builds for sm_%d%d: %d compiled, %d failed, %d files skipped; %.1f s\n",
           njobs, CC_MAJOR, CC_MINOR, njobs - failed, failed, skipped, now() - t0);
    free(jobs);
    return check_summary();
}
