#define _POSIX_C_SOURCE 200809L
#include "core/ceilings.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"

#define HEADER                                                                                     \
    "kladder-ceilings 5" /* 2: tf32_gflops; 3: f16_gflops; 4: the hierarchy, every                 \
                             tensor-core precision; 5: the run-to-run spreads */

/* Per-SM rates of the specification, per clock (enum spec_rate below). */
enum spec_rate {
    SPEC_NONE,
    SPEC_FP32,
    SPEC_FP64,
    SPEC_INT32,
    SPEC_TF32,
    SPEC_F16,
    SPEC_FP8,
    SPEC_I8,
    SPEC_F64TC
};

#define FIG(f, kind, unit, label, spec, method)                                                    \
    {                                                                                              \
#f, offsetof(struct kl_ceilings, f), kind, unit, label, method, spec                       \
    }
const struct kl_ceiling_def kl_ceiling_defs[] = {
    FIG(copy_gbps, KL_CEIL_MEMORY, "GB/s", "memory copy", SPEC_NONE,
        "a copy kernel over every vector width, elements per work-item and work-group size; "
        "every word checked"),
    FIG(read_gbps, KL_CEIL_MEMORY, "GB/s", "memory read", SPEC_NONE,
        "a read kernel (one partial sum per work-item); the sum of all words checked"),
    FIG(write_gbps, KL_CEIL_MEMORY, "GB/s", "memory write", SPEC_NONE,
        "a fill kernel writing a hash of each index; every word checked"),
    FIG(f32_gflops, KL_CEIL_FMA, "GFLOP/s", "FP32 FMA", SPEC_FP32,
        "chains of fma over whole waves; sampled work-items reproduced bit for bit"),
    FIG(f64_gflops, KL_CEIL_FMA, "GFLOP/s", "FP64 FMA", SPEC_FP64,
        "chains of fma in double; sampled work-items reproduced bit for bit"),
    FIG(i32_giops, KL_CEIL_FMA, "GIOP/s", "INT32 mul-add", SPEC_INT32,
        "chains of integer multiply-adds; sampled work-items reproduced bit for bit"),
    FIG(f16_gflops, KL_CEIL_FMA, "GFLOP/s", "FP16x2 FMA", SPEC_NONE,
        "chains of fma.rn.f16x2; sampled work-items reproduced exactly"),
    FIG(tf32_gflops, KL_CEIL_TENSOR, "GFLOP/s", "TF32 tensor cores", SPEC_TF32,
        "mma.sync m16n8k8 and wgmma m64n256k8 chains with exact sums; sampled work-items "
        "reproduced exactly"),
    FIG(f16_tc_gflops, KL_CEIL_TENSOR, "GFLOP/s", "FP16 tensor cores", SPEC_F16,
        "mma.sync m16n8k16 and wgmma m64n256k16, FP32 accumulation, exact sums"),
    FIG(f16acc_tc_gflops, KL_CEIL_TENSOR, "GFLOP/s", "FP16 tensor cores, FP16 sums", SPEC_F16,
        "mma.sync m16n8k16 and wgmma m64n256k16, FP16 accumulation, exact sums"),
    FIG(bf16_gflops, KL_CEIL_TENSOR, "GFLOP/s", "BF16 tensor cores", SPEC_F16,
        "mma.sync m16n8k16 and wgmma m64n256k16, FP32 accumulation, exact sums"),
    FIG(fp8_gflops, KL_CEIL_TENSOR, "GFLOP/s", "FP8 e4m3 tensor cores", SPEC_FP8,
        "wgmma m64n256k32, FP32 accumulation, exact sums"),
    FIG(fp8e5m2_gflops, KL_CEIL_TENSOR, "GFLOP/s", "FP8 e5m2 tensor cores", SPEC_FP8,
        "wgmma m64n256k32, FP32 accumulation, exact sums"),
    FIG(i8_giops, KL_CEIL_TENSOR, "GIOP/s", "INT8 tensor cores", SPEC_I8,
        "mma.sync m16n8k32 and wgmma m64n256k32, INT32 accumulation, exact sums"),
    FIG(f64_tc_gflops, KL_CEIL_TENSOR, "GFLOP/s", "FP64 tensor cores", SPEC_F64TC,
        "mma.sync m8n8k4 (and m16n8k16 on compute capability 9.0) in double, exact sums"),
    FIG(shared_gbps, KL_CEIL_CACHE, "GB/s", "local (shared) memory", SPEC_NONE,
        "every work-item reads local memory in a loop; each sum reproduced on the host"),
    FIG(shared_cu_gbps, KL_CEIL_CACHE, "GB/s", "local memory per compute unit", SPEC_NONE,
        "the local-memory figure over the compute units"),
    FIG(l1_gbps, KL_CEIL_CACHE, "GB/s", "first cache level", SPEC_NONE,
        "the plateau of a read sweep over working sets that fit it; sums checked"),
    FIG(l1_bytes, KL_CEIL_CACHE, "bytes", "first cache level ends", SPEC_NONE,
        "the largest working set on the first plateau of the read sweep"),
    FIG(l2_gbps, KL_CEIL_CACHE, "GB/s", "second cache level", SPEC_NONE,
        "the plateau of the read sweep past the first level; sums checked"),
    FIG(l2_bytes, KL_CEIL_CACHE, "bytes", "second cache level ends", SPEC_NONE,
        "the largest working set on the second plateau of the read sweep"),
    FIG(l1_ns, KL_CEIL_LATENCY, "ns", "first cache level latency", SPEC_NONE,
        "a dependent pointer chase through a random cycle that fits the first level"),
    FIG(l2_ns, KL_CEIL_LATENCY, "ns", "second cache level latency", SPEC_NONE,
        "the pointer chase through a cycle that fits the second level only"),
    FIG(mem_ns, KL_CEIL_LATENCY, "ns", "device memory latency", SPEC_NONE,
        "the pointer chase through a cycle larger than every cache"),
    FIG(l1_cycles, KL_CEIL_LATENCY, "cycles", "first cache level latency", SPEC_NONE,
        "the latency times the clock measured meanwhile (else the highest clock)"),
    FIG(l2_cycles, KL_CEIL_LATENCY, "cycles", "second cache level latency", SPEC_NONE,
        "the latency times the clock measured meanwhile (else the highest clock)"),
    FIG(mem_cycles, KL_CEIL_LATENCY, "cycles", "device memory latency", SPEC_NONE,
        "the latency times the clock measured meanwhile (else the highest clock)"),
    FIG(atomic_one_gops, KL_CEIL_ATOMIC, "Gop/s", "atomic adds, one address", SPEC_NONE,
        "every work-item adds to one global counter; the total checked exactly"),
    FIG(atomic_spread_gops, KL_CEIL_ATOMIC, "Gop/s", "atomic adds, distinct addresses", SPEC_NONE,
        "every work-item adds to counters of its own; each checked exactly"),
    FIG(atomic_shared_gops, KL_CEIL_ATOMIC, "Gop/s", "atomic adds, local memory", SPEC_NONE,
        "every work-group adds to a local counter; each checked exactly"),
    FIG(launch_us, KL_CEIL_LAUNCH, "us", "launch latency", SPEC_NONE,
        "an empty kernel: queued to start from OpenCL's events (clpeak's figure, the mean); "
        "through CUDA, events recorded around one launch"),
    FIG(launch_host_us, KL_CEIL_LAUNCH, "us", "launch, host round trip", SPEC_NONE,
        "an empty kernel, enqueue to completion as the host sees it (median)"),
    FIG(empty_us, KL_CEIL_LAUNCH, "us", "empty kernel", SPEC_NONE,
        "an empty kernel's run time from events (median)"),
    FIG(h2d_pageable, KL_CEIL_TRANSFER, "GB/s", "write, pageable host memory", SPEC_NONE,
        "a blocking write from malloc'd memory; a round trip checked byte for byte first"),
    FIG(d2h_pageable, KL_CEIL_TRANSFER, "GB/s", "read, pageable host memory", SPEC_NONE,
        "a blocking read into malloc'd memory"),
    FIG(h2d_pinned, KL_CEIL_TRANSFER, "GB/s", "write, pinned host memory", SPEC_NONE,
        "a blocking write from the backend's pinned host memory"),
    FIG(d2h_pinned, KL_CEIL_TRANSFER, "GB/s", "read, pinned host memory", SPEC_NONE,
        "a blocking read into the backend's pinned host memory"),
    FIG(map_gbps, KL_CEIL_TRANSFER, "GB/s", "map for reading", SPEC_NONE,
        "a blocking map of a device buffer for reading"),
    FIG(unmap_gbps, KL_CEIL_TRANSFER, "GB/s", "unmap after writing", SPEC_NONE,
        "a blocking unmap of a device buffer mapped for writing"),
    FIG(spread_memory_pct, KL_CEIL_SPREAD, "%", "run to run, memory rows", SPEC_NONE,
        "the largest (fastest - slowest) / median of the three final runs of the memory "
        "bandwidth figures (the full search's; the brief one's finals are too short to tell)"),
    FIG(spread_fma_pct, KL_CEIL_SPREAD, "%", "run to run, FMA rows", SPEC_NONE,
        "the same over the FMA figures"),
    FIG(spread_tensor_pct, KL_CEIL_SPREAD, "%", "run to run, tensor-core rows", SPEC_NONE,
        "the same over the tensor-core figures"),
};
#define DEF_COUNT (sizeof kl_ceiling_defs / sizeof *kl_ceiling_defs)
const int kl_ceiling_count = (int)DEF_COUNT;

double kl_ceiling_value(const struct kl_ceilings *c, const struct kl_ceiling_def *d)
{
    double v;
    memcpy(&v, (const char *)c + d->offset, sizeof v);
    return v;
}

void kl_ceiling_set(struct kl_ceilings *c, const struct kl_ceiling_def *d, double v)
{
    memcpy((char *)c + d->offset, &v, sizeof v);
}

const struct kl_ceiling_def *kl_ceiling_find(const char *key)
{
    for (int i = 0; key && i < kl_ceiling_count; i++)
        if (strcmp(kl_ceiling_defs[i].key, key) == 0)
            return &kl_ceiling_defs[i];
    return NULL;
}

/*
 * Dense operations per SM per clock by compute capability, from NVIDIA's
 * architecture papers for the A100 (8.0) and H100 (9.0); their datasheets'
 * figures are these rates times the SMs and a boost clock.
 */
static double per_sm_rate(enum spec_rate r, int major, int minor)
{
    /*                         none  fp32 fp64 int32 tf32  f16   fp8   i8    f64tc */
    static const double a100[] = {0, 128, 64, 128, 1024, 2048, 0, 4096, 128};
    static const double h100[] = {0, 256, 128, 128, 2048, 4096, 8192, 8192, 256};
    if (major == 8 && minor == 0)
        return a100[r];
    if (major == 9 && minor == 0)
        return h100[r];
    return 0;
}

double kl_ceiling_spec(const struct kl_ceiling_def *d, const struct kl_device_info *dev,
                       char *basis, size_t n)
{
    double rate = per_sm_rate((enum spec_rate)d->per_clock, dev->cc_major, dev->cc_minor);
    if (d->per_clock == SPEC_NONE) {
        snprintf(basis, n, "no specification for this figure");
        return 0;
    }
    if (!(rate > 0) || !dev->compute_units || !dev->max_clock_mhz) {
        snprintf(basis, n, "no per-SM rate known for %s (compute capability %d.%d)", dev->name,
                 dev->cc_major, dev->cc_minor);
        return 0;
    }
    snprintf(basis, n, "%u SMs x %u MHz x %.0f per SM per clock (compute capability %d.%d)",
             dev->compute_units, dev->max_clock_mhz, rate, dev->cc_major, dev->cc_minor);
    return dev->compute_units * (dev->max_clock_mhz * 1e6) * rate * 1e-9;
}

void kl_ceilings_summary(const struct kl_ceilings *c, char *out, size_t n)
{
    /* The roofs in the table's order, short names: the first five always ("-" where not
     * measured, TF32 "none" where the device has no tensor cores), the rest where measured. */
    static const struct {
        const char *key, *name;
    } roofs[] = {{"copy_gbps", "copy"},    {"f32_gflops", "FP32"},
                 {"f64_gflops", "FP64"},   {"i32_giops", "INT32"},
                 {"tf32_gflops", "TF32"},  {"f16_tc_gflops", "FP16"},
                 {"bf16_gflops", "BF16"},  {"fp8_gflops", "FP8"},
                 {"i8_giops", "INT8"},     {"f64_tc_gflops", "FP64 tensor"},
                 {"f16_gflops", "FP16x2"}, {"l2_gbps", "L2"},
                 {"shared_gbps", "shared"}};
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < sizeof roofs / sizeof *roofs && used < n; i++) {
        const struct kl_ceiling_def *d = kl_ceiling_find(roofs[i].key);
        double v = kl_ceiling_value(c, d);
        char rate[32];
        kl_rate_text(v, d->unit, rate, sizeof rate);
        if (v > 0 || i < 5)
            used +=
                (size_t)snprintf(out + used, n - used, "%s%s %s", used ? ", " : "", roofs[i].name,
                                 v > 0    ? rate
                                 : i == 4 ? "none (no tensor cores)"
                                          : "-");
    }
}

const char *kl_ceilings_source(const struct kl_ceilings *c)
{
    return c->source[0] ? c->source : KL_CEILINGS_FULL;
}

int kl_ceilings_brief(const struct kl_ceilings *c)
{
    return strcmp(kl_ceilings_source(c), KL_CEILINGS_BRIEF) == 0;
}

/*
 * The cache file: every figure of the table above, the three configurations, the date and
 * the source (the last optional: files written before it came from kladder peak).
 */
static const struct {
    const char *key;
    size_t offset, size;
} strings[] = {
#define STR(f)                                                                                     \
    {                                                                                              \
#f, offsetof(struct kl_ceilings, f), sizeof(((struct kl_ceilings *)0)->f)                  \
    }
    STR(copy_cfg), STR(read_cfg), STR(write_cfg), STR(date), STR(source), STR(pci),
#undef STR
};
#define STRING_COUNT (sizeof strings / sizeof *strings)
#define FIELD_COUNT (DEF_COUNT + STRING_COUNT)
#define OPTIONAL_COUNT 2 /* the last strings, source and pci, which older files lack */

uint64_t kl_cache_hash(const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
    return h;
}

void kl_cache_dir(char *out, size_t n)
{
    const char *dir = getenv("KLADDER_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"),
               *home = getenv("HOME");
    if (dir && *dir)
        snprintf(out, n, "%s", dir);
    else if (xdg && *xdg)
        snprintf(out, n, "%s/kladder", xdg);
    else
        snprintf(out, n, "%s/.cache/kladder", home && *home ? home : "/tmp");
}

/* The identity a cache belongs to; a driver update means new ceilings. */
void kl_cache_identity(const struct kl_device_info *dev, const char *backend, char *out, size_t n)
{
    snprintf(out, n, "%s|%s|%s|%s", backend, dev->platform, dev->name, dev->driver_version);
}

void kl_cache_file(const struct kl_device_info *dev, const char *backend, const char *kind,
                   char *out, size_t n)
{
    char dir[3072], id[1024];
    kl_cache_dir(dir, sizeof dir);
    kl_cache_identity(dev, backend, id, sizeof id);
    snprintf(out, n, "%s/%s-%016llx.txt", dir, kind,
             (unsigned long long)kl_cache_hash(id, strlen(id)));
}

void kl_ceilings_path(const struct kl_device_info *dev, const char *backend, char *out, size_t n)
{
    kl_cache_file(dev, backend, "ceilings", out, n);
}

/* 1 when text starts with this version's header and its checksum line matches it. */
static int checksum_ok(const char *text)
{
    /* The last line is "checksum <hex>" over everything before it. */
    const char *sum = strstr(text, "\nchecksum ");
    unsigned long long want = 0;
    int ok = strncmp(text, HEADER "\n", strlen(HEADER) + 1) == 0 && sum &&
             sscanf(sum + 10, "%llx", &want) == 1 &&
             want == (unsigned long long)kl_cache_hash(text, (size_t)(sum - text + 1));
    return ok;
}

/* The field called key takes value; seen[i] marks it. 0 where a figure is not one. */
static int read_field(struct kl_ceilings *c, const char *key, const char *value, int *seen)
{
    int ok = 1;
    /* Figures first (index i < DEF_COUNT), then the strings. */
    for (size_t i = 0; i < FIELD_COUNT; i++) {
        size_t si = i - DEF_COUNT;
        if (strcmp(key, i < DEF_COUNT ? kl_ceiling_defs[i].key : strings[si].key) != 0)
            continue;
        if (i >= DEF_COUNT) {
            snprintf((char *)c + strings[si].offset, strings[si].size, "%s", value);
        } else {
            char *end;
            double v = strtod(value, &end);
            ok = end != value && *end == '\0' && v >= 0;
            kl_ceiling_set(c, &kl_ceiling_defs[i], v);
        }
        seen[i] = 1;
    }
    return ok;
}

/*
 * The "key value" lines after the header, up to the checksum, into c; seen
 * marks each field read and id gets the identity line's value. 1 when every
 * line is one and there is an identity line.
 */
static int read_lines(char *text, char *id, size_t n, struct kl_ceilings *c, int *seen)
{
    int ok = 1, id_seen = 0;
    for (char *line = strtok(text, "\n"); ok && line; line = strtok(NULL, "\n")) {
        char *space = strchr(line, ' ');
        if (strncmp(line, "checksum ", 9) == 0)
            break;
        if (!space)
            return 0;
        *space = '\0';
        if (strcmp(line, "identity") == 0) {
            snprintf(id, n, "%s", space + 1);
            id_seen = 1;
            continue;
        }
        ok = read_field(c, line, space + 1, seen);
    }
    return ok && id_seen;
}

/*
 * The cache file text (freed here) into c and its identity into id: 1 when
 * it is of this version, whole and has every field but the optional ones;
 * else 0 with c zeroed (*other: 1 where it is of another version).
 */
static int parse(char *text, char *id, size_t n, struct kl_ceilings *c, int *other)
{
    int seen[FIELD_COUNT] = {0};
    memset(c, 0, sizeof *c);
    /* strtok only when the file passed the checks: strtok(NULL) would resume an old scan. */
    int ok = checksum_ok(text) && read_lines(text + strlen(HEADER) + 1, id, n, c, seen);
    for (size_t i = 0; i < FIELD_COUNT - OPTIONAL_COUNT && ok; i++)
        ok = seen[i];
    /* Another version of the format (an older kladder's) is named as such, not as damage. */
    *other = !ok && strncmp(text, "kladder-ceilings ", 17) == 0 &&
             strncmp(text, HEADER "\n", strlen(HEADER) + 1) != 0;
    free(text);
    if (!ok)
        memset(c, 0, sizeof *c);
    return ok;
}

int kl_ceilings_load(const struct kl_device_info *dev, const char *backend, struct kl_ceilings *c,
                     char *warn, size_t n)
{
    char path[4096], want[1024], id[1024] = "", *text = NULL;
    size_t len = 0;
    struct kl_err e;
    int other;
    kl_ceilings_path(dev, backend, path, sizeof path);
    memset(c, 0, sizeof *c);
    if (access(path, F_OK) != 0)
        return 0;
    if (kl_read_file(path, &text, &len, &e) != KL_OK) {
        snprintf(warn, n, "cannot read the ceiling cache %s (%s); remeasuring", path, e.msg);
        return -1;
    }
    kl_cache_identity(dev, backend, want, sizeof want);
    if (!parse(text, id, sizeof id, c, &other) || strcmp(id, want) != 0) {
        memset(c, 0, sizeof *c);
        snprintf(warn, n, "the ceiling cache %s is %s; ignoring it and remeasuring", path,
                 other ? "of another version of kladder" : "corrupt or incomplete");
        return -1;
    }
    return 1;
}

/* 1 where PCI bus ids a and b name the same function ("0000:1b:00.0", "00000000:1B:00.0"). */
static int same_pci(const char *a, const char *b)
{
    unsigned x[4], y[4];
    return sscanf(a, "%x:%x:%x.%x", &x[0], &x[1], &x[2], &x[3]) == 4 &&
           sscanf(b, "%x:%x:%x.%x", &y[0], &y[1], &y[2], &y[3]) == 4 && x[0] == y[0] &&
           x[1] == y[1] && x[2] == y[2] && x[3] == y[3];
}

/* 1 for a figure that is a rate a row may be judged against (not a size, latency or spread). */
static int roof_figure(const struct kl_ceiling_def *d)
{
    return (d->kind == KL_CEIL_MEMORY || d->kind == KL_CEIL_FMA || d->kind == KL_CEIL_TENSOR ||
            d->kind == KL_CEIL_CACHE) &&
           strcmp(d->unit, "bytes") != 0;
}

/* Raises c's roofs to o's (backend b's) where higher, naming each in from; how many. */
static int take_higher(struct kl_ceilings *c, const struct kl_ceilings *o, const char *b,
                       char *from, size_t n)
{
    int took = 0;
    for (int i = 0; i < kl_ceiling_count; i++) {
        const struct kl_ceiling_def *d = &kl_ceiling_defs[i];
        double v = kl_ceiling_value(o, d);
        if (!roof_figure(d) || !(v > kl_ceiling_value(c, d)))
            continue;
        kl_ceiling_set(c, d, v);
        size_t used = strlen(from);
        if (used + 1 < n)
            snprintf(from + used, n - used, "%s%s", took++ ? ", " : "", d->label);
    }
    if (took && !c->date[0])
        snprintf(c->date, sizeof c->date, "%s", o->date);
    if (took && strlen(from) + 1 < n)
        snprintf(from + strlen(from), n - strlen(from), " through %s", b);
    return took;
}

int kl_ceilings_best(const struct kl_device_info *dev, const char *backend, struct kl_ceilings *c,
                     char *from, size_t n)
{
    char dir[3072], path[4096], id[1024];
    int took = 0;
    from[0] = '\0';
    kl_cache_dir(dir, sizeof dir);
    DIR *d = dev->pci_bus_id[0] ? opendir(dir) : NULL;
    for (struct dirent *f; d && (f = readdir(d)) != NULL;) {
        struct kl_ceilings o;
        struct kl_err e;
        char *text = NULL, *bar;
        size_t len;
        int other;
        if (strncmp(f->d_name, "ceilings-", 9) != 0 || !strstr(f->d_name, ".txt"))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, f->d_name);
        if (kl_read_file(path, &text, &len, &e) != KL_OK ||
            !parse(text, id, sizeof id, &o, &other) || !same_pci(o.pci, dev->pci_bus_id) ||
            !(bar = strchr(id, '|')))
            continue;
        /* The identity is "backend|platform|device|driver": another backend, this device. */
        const char *name = strchr(bar + 1, '|');
        size_t len_name = name ? strcspn(name + 1, "|") : 0;
        *bar = '\0';
        if (strcmp(id, backend) != 0 && name && len_name == strlen(dev->name) &&
            strncmp(name + 1, dev->name, len_name) == 0 && !took)
            took = take_higher(c, &o, id, from, n);
    }
    if (d)
        closedir(d);
    return took;
}

/* mkdir -p for the cache directory. */
static int make_dirs(const char *path)
{
    char buf[3072];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0755) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return mkdir(buf, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

enum kl_status kl_ceilings_save(const struct kl_device_info *dev, const char *backend,
                                const struct kl_ceilings *c, struct kl_err *e)
{
    char path[4096], id[1024];
    char text[8192];
    size_t used;
    kl_ceilings_path(dev, backend, path, sizeof path);
    kl_cache_identity(dev, backend, id, sizeof id);
    struct kl_ceilings saved = *c;
    snprintf(saved.pci, sizeof saved.pci, "%s", dev->pci_bus_id); /* found by other backends */
    c = &saved;
    used = (size_t)snprintf(text, sizeof text, HEADER "\nidentity %s\n", id);
    for (int i = 0; i < kl_ceiling_count && used < sizeof text; i++)
        used += (size_t)snprintf(text + used, sizeof text - used, "%s %.17g\n",
                                 kl_ceiling_defs[i].key, kl_ceiling_value(c, &kl_ceiling_defs[i]));
    for (size_t i = 0; i < STRING_COUNT && used < sizeof text; i++)
        used += (size_t)snprintf(text + used, sizeof text - used, "%s %s\n", strings[i].key,
                                 (const char *)c + strings[i].offset);
    if (used >= sizeof text - 40)
        return kl_fail(e, KL_ERR_IO, "ceiling cache text too long");
    snprintf(text + used, sizeof text - used, "checksum %016llx\n",
             (unsigned long long)kl_cache_hash(text, used));
    return kl_cache_write(path, text, e);
}

enum kl_status kl_cache_write(const char *path, const char *text, struct kl_err *e)
{
    char dir[3072], tmp[4200];
    kl_cache_dir(dir, sizeof dir);
    if (make_dirs(dir) != 0)
        return kl_fail(e, KL_ERR_IO, "cannot create the cache directory %s: %s", dir,
                       strerror(errno));
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f)
        return kl_fail(e, KL_ERR_IO, "cannot write %s: %s", tmp, strerror(errno));
    int bad = fputs(text, f) == EOF;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0) {
        remove(tmp);
        return kl_fail(e, KL_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    }
    return KL_OK;
}

enum kl_status kl_cache_lock(const char *path, int *fd, struct kl_err *e)
{
    char dir[3072], lock[4200];
    struct flock l = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    kl_cache_dir(dir, sizeof dir);
    if (make_dirs(dir) != 0)
        return kl_fail(e, KL_ERR_IO, "cannot create the cache directory %s: %s", dir,
                       strerror(errno));
    snprintf(lock, sizeof lock, "%s.lock", path);
    if ((*fd = open(lock, O_RDWR | O_CREAT, 0644)) < 0)
        return kl_fail(e, KL_ERR_IO, "cannot open the lock %s: %s", lock, strerror(errno));
    /* Polled rather than F_SETLKW, so that a holder that never lets go is a message. */
    for (int tries = 0; fcntl(*fd, F_SETLK, &l) != 0; tries++) {
        if ((errno != EACCES && errno != EAGAIN) || tries == 6000) {
            int err = errno;
            close(*fd);
            *fd = -1;
            return kl_fail(e, KL_ERR_IO, "cannot lock %s: %s", lock,
                           err == EACCES || err == EAGAIN ? "another kladder has held it for 60 s"
                                                          : strerror(err));
        }
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    }
    return KL_OK;
}

void kl_cache_unlock(int fd)
{
    if (fd >= 0)
        close(fd); /* closing the descriptor releases its record lock */
}
