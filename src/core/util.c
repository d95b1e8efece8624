#define _POSIX_C_SOURCE 200809L
#include "core/util.h"

#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

double kl_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void kl_rng_seed(struct kl_rng *r, uint64_t seed)
{
    r->state = seed;
}

/* SplitMix64: the state moves by a constant a draw, so any draw can be reached at once. */
#define RNG_STEP 0x9e3779b97f4a7c15ULL

uint64_t kl_rng_next(struct kl_rng *r)
{
    uint64_t z = (r->state += RNG_STEP);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void kl_rng_skip(struct kl_rng *r, uint64_t n)
{
    r->state += n * RNG_STEP;
}

double kl_rng_uniform(struct kl_rng *r)
{
    /* 53 random bits scaled to [0, 2), shifted to [-1, 1). */
    return (double)(kl_rng_next(r) >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

int kl_rng_int(struct kl_rng *r, int lo, int hi)
{
    uint64_t span = (uint64_t)((int64_t)hi - lo + 1);
    return lo + (int)(kl_rng_next(r) % span);
}

enum kl_status kl_read_file(const char *path, char **out, size_t *len, struct kl_err *e)
{
    enum kl_status st = KL_OK;
    char *buf = NULL;
    long size;
    FILE *f;
    struct stat sb;
    *out = NULL;
    /* Directories and FIFOs open fine but are no files to read whole. */
    if (stat(path, &sb) != 0)
        return kl_fail(e, KL_ERR_IO, "cannot open %s: %s", path, strerror(errno));
    if (!S_ISREG(sb.st_mode))
        return kl_fail(e, KL_ERR_IO, "cannot read %s: not a regular file", path);
    if (!(f = fopen(path, "rb")))
        return kl_fail(e, KL_ERR_IO, "cannot open %s: %s", path, strerror(errno));
    if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        st = kl_fail(e, KL_ERR_IO, "cannot read %s: %s", path, strerror(errno));
        goto close_file;
    }
    buf = malloc((size_t)size + 1);
    if (!buf) {
        st = kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory reading %s", path);
        goto close_file;
    }
    if (fread(buf, 1, (size_t)size, f) != (size_t)size) {
        st = kl_fail(e, KL_ERR_IO, "cannot read %s", path);
        free(buf);
        goto close_file;
    }
    buf[size] = '\0';
    *out = buf;
    if (len)
        *len = (size_t)size;
close_file:
    fclose(f);
    return st;
}

void kl_bytes_text(double bytes, char *out, size_t n)
{
    static const char *const unit[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (u < 4 && bytes >= 1024) {
        bytes /= 1024;
        u++;
    }
    int decimals = u == 0 || bytes >= 100 ? 0 : bytes >= 10 ? 1 : 2;
    if (u > 0 && bytes == (double)(long long)bytes)
        decimals = 0; /* whole: "4 KiB", "256 MiB" */
    snprintf(out, n, "%.*f %s", decimals, bytes, unit[u]);
}

void kl_rate_text(double value, const char *unit, char *out, size_t n)
{
    int giga = unit[0] == 'G', tera = giga && value >= 1000; /* 1754 TFLOP/s: four digits */
    if (tera)
        value /= 1000;
    snprintf(out, n, "%.*f %s%s",
             value >= 100  ? 0
             : value >= 10 ? 1
                           : 2,
             value,
             tera   ? "T"
             : giga ? "G"
                    : "",
             giga ? unit + 1 : unit);
}

int kl_contains_nocase(const char *haystack, const char *needle)
{
    size_t n = strlen(needle);
    for (; *haystack; haystack++) {
        size_t i = 0;
        while (i < n && haystack[i] &&
               tolower((unsigned char)haystack[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n)
            return 1;
    }
    return n == 0;
}

/*
 * Appends the lines of text to out (used of cap bytes): the non-blank ones (warnings only,
 * with warnings_only) that neither seen nor out holds already.
 */
/* 1 when the len characters at line are blanks only. */
static int blank_line(const char *line, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (line[i] != ' ' && line[i] != '\t' && line[i] != '\r')
            return 0;
    return 1;
}

/* 1 when copy, a line of a compiler's text, is one to keep: asked for, and new. */
static int wanted_line(const char *copy, int warnings_only, const char *seen, const char *out)
{
    if (warnings_only && !kl_contains_nocase(copy, "warning"))
        return 0;
    return !(seen && strstr(seen, copy)) && !strstr(out, copy); /* once each */
}

static size_t keep_lines(const char *text, int warnings_only, const char *seen, char *out,
                         size_t used, size_t cap)
{
    for (const char *line = text; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char copy[512];
        snprintf(copy, sizeof copy, "%.*s", (int)(len < 511 ? len : 511), line);
        out[used] = '\0';
        int keep = !blank_line(line, len) && wanted_line(copy, warnings_only, seen, out);
        if (keep && used + len + 2 < cap) {
            memcpy(out + used, line, len);
            used += len;
            out[used++] = '\n';
        }
        line = end ? end + 1 : NULL;
    }
    return used;
}

char *kl_compiler_messages(const char *log, const char *more, int warnings_only)
{
    const size_t cap = 4096;
    char *out = malloc(cap);
    if (!out)
        return NULL;
    size_t used = keep_lines(log, warnings_only, NULL, out, 0, cap);
    used = keep_lines(more, warnings_only, log, out, used, cap);
    if (used > 0 && out[used - 1] == '\n')
        used--;
    out[used] = '\0';
    return out;
}

char *kl_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

void kl_text_hash(const char *text, char *out)
{
    unsigned long long h = 0xcbf29ce484222325ull;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++)
        h = (h ^ *p) * 0x100000001b3ull;
    snprintf(out, KL_TEXT_HASH, "fnv1a64:%016llx", h);
}

void kl_utc_now(char *out, size_t n)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void *kl_dlopen_having(const char *const *names, size_t n, int global, const char *symbol,
                       const char **which)
{
    for (size_t i = 0; i < n; i++) {
        void *lib = dlopen(names[i], RTLD_NOW | (global ? RTLD_GLOBAL : RTLD_LOCAL));
        if (!lib)
            continue;
        if (symbol && !dlsym(lib, symbol)) {
            dlclose(lib);
            continue;
        }
        if (which)
            *which = names[i];
        return lib;
    }
    return NULL;
}

void *kl_dlopen_first(const char *const *names, size_t n, int global, const char **which)
{
    return kl_dlopen_having(names, n, global, NULL, which);
}

int kl_out_open(struct kl_out_file *o, const char *path)
{
    struct stat sb;
    memset(o, 0, sizeof *o);
    if (strlen(path) >= sizeof o->path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    snprintf(o->path, sizeof o->path, "%s", path);
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode))
        return (o->f = fopen(path, "w")) ? 0 : -1;
    snprintf(o->tmp, sizeof o->tmp, "%s.tmp-%ld", path, (long)getpid());
    return (o->f = fopen(o->tmp, "w")) ? 0 : -1;
}

int kl_out_commit(struct kl_out_file *o)
{
    int bad = !o->f || fclose(o->f) != 0;
    int err = errno;
    o->f = NULL;
    if (!bad && o->tmp[0] && rename(o->tmp, o->path) != 0)
        bad = 1, err = errno;
    if (bad && o->tmp[0])
        remove(o->tmp);
    o->tmp[0] = '\0';
    errno = err;
    return bad ? -1 : 0;
}

void kl_out_abort(struct kl_out_file *o)
{
    if (o->f)
        fclose(o->f);
    o->f = NULL;
    if (o->tmp[0])
        remove(o->tmp);
    o->tmp[0] = '\0';
}

/*
 * The NVIDIA kernel module's version: the first a.b or a.b.c token of
 * /proc/driver/nvidia/version (util.h).
 */
void kl_nvidia_module_version(char *out, size_t n)
{
    FILE *f = fopen("/proc/driver/nvidia/version", "r");
    char line[512];
    out[0] = '\0';
    if (!f)
        return;
    if (fgets(line, sizeof line, f))
        for (char *tok = strtok(line, " \t\n"); tok; tok = strtok(NULL, " \t\n")) {
            int digits = 0, dots = 0;
            for (const char *c = tok; *c; c++)
                *c == '.' ? dots++ : (*c >= '0' && *c <= '9') ? digits++ : (digits = -1000);
            if (digits > 0 && dots >= 1 && dots <= 2) {
                snprintf(out, n, "%s", tok);
                break;
            }
        }
    fclose(f);
}

struct share {
    pthread_t thread;
    void (*fn)(void *, size_t, size_t, size_t);
    void *arg;
    size_t index, begin, end;
    int started;
};

static void *run_share(void *p)
{
    struct share *s = p;
    s->fn(s->arg, s->index, s->begin, s->end);
    return NULL;
}

size_t kl_parallel_shares(size_t n)
{
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    size_t k = online < 1 ? 1 : online > KL_PARALLEL_MAX ? KL_PARALLEL_MAX : (size_t)online;
    return k > n ? (n ? n : 1) : k;
}

void kl_parallel_for(size_t n, void (*fn)(void *arg, size_t share, size_t begin, size_t end),
                     void *arg)
{
    struct share shares[KL_PARALLEL_MAX];
    size_t k = kl_parallel_shares(n);
    for (size_t i = 0; i < k; i++) {
        shares[i] = (struct share){
            .fn = fn, .arg = arg, .index = i, .begin = n * i / k, .end = n * (i + 1) / k};
        if (i > 0)
            shares[i].started = pthread_create(&shares[i].thread, NULL, run_share, &shares[i]) == 0;
    }
    for (size_t i = 0; i < k; i++)
        if (i == 0 || !shares[i].started)
            run_share(&shares[i]);
    for (size_t i = 1; i < k; i++)
        if (shares[i].started)
            pthread_join(shares[i].thread, NULL);
}
