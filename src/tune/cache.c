#define _POSIX_C_SOURCE 200809L
#include "tune/cache.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/ceilings.h"
#include "core/util.h"

int kl_tune_size_class(int M, int N, int K)
{
    double v = (double)M * (double)N * (double)K;
    return v < 1 ? 0 : (int)lround(log2(v));
}

void kl_tuned_path(const struct kl_device_info *dev, const char *backend, char *out, size_t n)
{
    kl_cache_file(dev, backend, "tuned", out, n);
}

/* One table drives writing and reading an entry line: key, kind, where the value lives. */
enum kind { K_STR, K_NUM, K_INT, K_TYPE };
struct key {
    const char *name;
    enum kind kind;
    size_t offset, size;
};
#define STR(f)                                                                                     \
    {                                                                                              \
#f, K_STR, offsetof(struct kl_tuned, f), sizeof(((struct kl_tuned *)0)->f)                 \
    }
#define NUM(f)                                                                                     \
    {                                                                                              \
#f, K_NUM, offsetof(struct kl_tuned, f), sizeof(double)                                    \
    }
#define INT(f)                                                                                     \
    {                                                                                              \
#f, K_INT, offsetof(struct kl_tuned, f), sizeof(int)                                       \
    }
static const struct key keys[] = {
    STR(workload),   STR(rung),    {"type", K_TYPE, offsetof(struct kl_tuned, type), 0},
    INT(size_class), STR(params),  STR(size),
    NUM(median_s),   NUM(gflops),  NUM(default_gflops),
    STR(date),       STR(version), NUM(budget_s),
    INT(tried),      INT(space),   STR(strategy),
};
#define KEY_COUNT ((int)(sizeof keys / sizeof *keys))

/* 1 where item is NAME=INTEGER, the integer within ±1e9. */
static int item_ok(const char *item)
{
    const char *q = item;
    char *end;
    while (isalnum((unsigned char)*q) || *q == '_')
        q++;
    if (q == item || *q != '=')
        return 0;
    errno = 0;
    long v = strtol(q + 1, &end, 10);
    return end != q + 1 && !*end && !errno && v >= -1000000000L && v <= 1000000000L;
}

int kl_tuned_items(const char *params, char *buf, size_t n, const char **items, int max)
{
    int count = 0;
    if (strlen(params) >= n)
        return -1;
    snprintf(buf, n, "%s", params);
    for (char *p = buf; *p;) {
        char *comma = strchr(p, ',');
        if (comma)
            *comma = '\0';
        if (count == max || !item_ok(p))
            return -1;
        items[count++] = p;
        if (!comma)
            break;
        p = comma + 1;
        if (!*p)
            return -1;
    }
    return count;
}

/* A count: an integer from 0 to 1e9; 0 when text is one. */
static int parse_count(const char *text, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (end == text || *end || errno || v < 0 || v > 1000000000L)
        return -1;
    *out = (int)v;
    return 0;
}

/* A figure: a finite number >= 0; 0 when text is one. */
static int parse_figure(const char *text, double *out)
{
    char *end;
    double v = strtod(text, &end);
    if (end == text || *end || !(v >= 0) || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

/* Key k's value into t; 0 when it is valid. */
static int parse_value(const struct key *k, const char *value, struct kl_tuned *t)
{
    char *dst = (char *)t + k->offset;
    int iv;
    double dv;
    switch (k->kind) {
    case K_STR:
        if (!*value || strlen(value) >= k->size)
            return -1;
        snprintf(dst, k->size, "%s", value);
        return 0;
    case K_TYPE: return kl_type_parse(value, &t->type) == KL_OK ? 0 : -1;
    case K_INT:
        if (parse_count(value, &iv) != 0)
            return -1;
        memcpy(dst, &iv, sizeof iv);
        return 0;
    case K_NUM:
        if (parse_figure(value, &dv) != 0)
            return -1;
        memcpy(dst, &dv, sizeof dv);
        return 0;
    }
    return -1;
}

/* The index of the key called name, or -1 (a key this version does not know: ignored). */
static int key_index(const char *name)
{
    for (int i = 0; i < KEY_COUNT; i++)
        if (strcmp(name, keys[i].name) == 0)
            return i;
    return -1;
}

/* Parses one "entry k=v k=v ..." line (without "entry "); 0 when every key is there and valid. */
static int parse_entry(char *line, struct kl_tuned *t)
{
    int seen[KEY_COUNT] = {0};
    memset(t, 0, sizeof *t);
    for (char *tok = line; tok && *tok;) {
        char *space = strchr(tok, ' ');
        if (space)
            *space = '\0';
        char *eq = strchr(tok, '=');
        if (!eq)
            return -1;
        *eq = '\0';
        int i = key_index(tok);
        if (i >= 0 && (seen[i]++ || parse_value(&keys[i], eq + 1, t) != 0))
            return -1;
        tok = space ? space + 1 : NULL;
    }
    for (int i = 0; i < KEY_COUNT; i++)
        if (!seen[i])
            return -1;
    char buf[256];
    const char *items[64];
    return t->size_class > 200 || kl_tuned_items(t->params, buf, sizeof buf, items, 64) < 1 ? -1
                                                                                            : 0;
}

/*
 * Why text (len bytes as read) is not a tuning cache of this version, or
 * NULL; *sum: the newline before its checksum line.
 */
static const char *header_problem(char *text, size_t len, char **sum)
{
    unsigned long long want = 0;
    *sum = strstr(text, "\nchecksum ");
    if (strncmp(text, "kladder-tuned ", 14) != 0)
        return "not a kladder tuning cache";
    if (strncmp(text, KL_TUNED_HEADER "\n", strlen(KL_TUNED_HEADER) + 1) != 0)
        return "of another version (" KL_TUNED_HEADER " expected)";
    if (!*sum || sscanf(*sum + 10, "%llx", &want) != 1 ||
        want != (unsigned long long)kl_cache_hash(text, (size_t)(*sum - text + 1)) ||
        strlen(*sum + 1) != 26 || (*sum)[26] != '\n')
        return "corrupt (its checksum does not match)";
    if (len != strlen(text))
        return "corrupt (it holds NUL bytes)";
    return NULL;
}

/* An entry line's text (after "entry ") as one more of f's entries; why not, or NULL. */
static const char *read_entry(char *text, struct kl_tuned_file *f)
{
    struct kl_tuned t, *more = realloc(f->entries, (size_t)(f->count + 1) * sizeof t);
    if (!more)
        return "too large to read (out of memory)";
    f->entries = more;
    if (parse_entry(text, &t) != 0)
        return "corrupt (an entry is malformed)";
    f->entries[f->count++] = t;
    return NULL;
}

/*
 * One line into f: the identity (first, once; it must be identity's where
 * that is not NULL), then entries. Why the file is not read, or NULL.
 */
static const char *read_line(char *line, const char *identity, struct kl_tuned_file *f,
                             int *id_seen)
{
    if (strncmp(line, "identity ", 9) == 0 && !*id_seen) {
        *id_seen = 1;
        snprintf(f->identity, sizeof f->identity, "%s", line + 9);
        return identity && strcmp(line + 9, identity) != 0
                   ? "of another device or driver (its identity line differs)"
                   : NULL;
    }
    if (strncmp(line, "entry ", 6) == 0 && *id_seen)
        return read_entry(line + 6, f);
    return "corrupt (an unknown line)";
}

/* The lines between the header and the checksum (text ends there) into f; why not, or NULL. */
static const char *read_body(char *line, const char *identity, struct kl_tuned_file *f)
{
    const char *why = NULL;
    int id_seen = 0;
    while (*line && !why) {
        char *nl = strchr(line, '\n');
        if (!nl)
            return "corrupt (a line is cut short)";
        *nl = '\0';
        why = read_line(line, identity, f, &id_seen);
        line = nl + 1;
    }
    return why || id_seen ? why : "corrupt (no identity line)";
}

int kl_tuned_read(const char *path, const char *identity, struct kl_tuned_file *f, char *warn,
                  size_t n)
{
    char *text = NULL, *sum;
    size_t len = 0;
    struct kl_err e;
    memset(f, 0, sizeof *f);
    snprintf(f->path, sizeof f->path, "%s", path);
    if (access(path, F_OK) != 0)
        return 0;
    if (kl_read_file(path, &text, &len, &e) != KL_OK) {
        snprintf(warn, n, "cannot read the tuning cache %s (%s); ignoring it", path, e.msg);
        return -1;
    }
    const char *why = header_problem(text, len, &sum);
    if (!why) {
        sum[1] = '\0';
        why = read_body(text + strlen(KL_TUNED_HEADER) + 1, identity, f);
    }
    free(text);
    if (why) {
        free(f->entries);
        f->entries = NULL;
        f->count = 0;
        snprintf(warn, n, "the tuning cache %s is %s; ignoring it", path, why);
        return -1;
    }
    return 1;
}

int kl_tuned_load(const struct kl_device_info *dev, const char *backend, struct kl_tuned_file *f,
                  char *warn, size_t n)
{
    char path[4096], id[1024];
    kl_tuned_path(dev, backend, path, sizeof path);
    kl_cache_identity(dev, backend, id, sizeof id);
    return kl_tuned_read(path, id, f, warn, n);
}

const struct kl_tuned *kl_tuned_find(const struct kl_tuned_file *f, const char *workload,
                                     const char *rung, enum kl_type t, int size_class)
{
    for (int i = 0; i < f->count; i++) {
        const struct kl_tuned *x = &f->entries[i];
        if (strcmp(x->workload, workload) == 0 && strcmp(x->rung, rung) == 0 && x->type == t &&
            x->size_class == size_class)
            return x;
    }
    return NULL;
}

void kl_tuned_free(struct kl_tuned_file *f)
{
    free(f->entries);
    f->entries = NULL;
    f->count = 0;
}

/* A growing text buffer. */
struct text {
    char *s;
    size_t len, cap;
    int failed;
};

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void
put(struct text *t, const char *fmt, ...)
{
    va_list ap;
    for (int tries = 0; tries < 2 && !t->failed; tries++) {
        va_start(ap, fmt);
        int need = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
        va_end(ap);
        if (need < 0) {
            t->failed = 1;
            return;
        }
        if (t->s && t->len + (size_t)need < t->cap) {
            t->len += (size_t)need;
            return;
        }
        size_t cap = (t->cap + (size_t)need + 1) * 2;
        char *more = realloc(t->s, cap);
        if (!more) {
            t->failed = 1;
            return;
        }
        t->s = more;
        t->cap = cap;
    }
}

static void put_entry(struct text *t, const struct kl_tuned *x)
{
    put(t, "entry");
    for (int i = 0; i < KEY_COUNT; i++) {
        const char *src = (const char *)x + keys[i].offset;
        put(t, " %s=", keys[i].name);
        switch (keys[i].kind) {
        case K_STR: put(t, "%s", src); break;
        case K_TYPE: put(t, "%s", kl_type_name(x->type)); break;
        case K_INT: put(t, "%d", *(const int *)(const void *)src); break;
        case K_NUM: put(t, "%.17g", *(const double *)(const void *)src); break;
        }
    }
    put(t, "\n");
}

/* A value goes on a space-separated line: no spaces, nothing empty. */
static int clean(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (isspace((unsigned char)*s))
            return 0;
    return 1;
}

/*
 * For tests: KLADDER_STORE_PAUSE_MS widens the window between reading the
 * cache and renaming the new file into place, so that stores from several
 * processes overlap every time and a test shows what the lock prevents.
 */
static void store_pause(void)
{
    const char *v = getenv("KLADDER_STORE_PAUSE_MS");
    long ms = v ? strtol(v, NULL, 10) : 0;
    if (ms > 0 && ms <= 10000) {
        struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
    }
}

enum kl_status kl_tuned_store(const struct kl_device_info *dev, const char *backend,
                              const struct kl_tuned *entry, char *warn, size_t nwarn,
                              struct kl_err *e)
{
    struct kl_tuned_file f;
    char id[1024];
    struct text t = {0};
    const char *strs[] = {entry->workload, entry->rung,    entry->params,  entry->size,
                          entry->date,     entry->version, entry->strategy};
    for (size_t i = 0; i < sizeof strs / sizeof *strs; i++)
        if (!clean(strs[i]))
            return kl_fail(e, KL_ERR_ARG, "a tuned entry's field \"%s\" is empty or holds a space",
                           strs[i]);
    warn[0] = '\0';
    /* Locked from the read to the rename: a tune running beside this one keeps its entry. */
    char path[4096];
    int lock;
    enum kl_status st;
    kl_tuned_path(dev, backend, path, sizeof path);
    if ((st = kl_cache_lock(path, &lock, e)) != KL_OK)
        return st;
    kl_tuned_load(dev, backend, &f, warn, nwarn); /* a corrupt file is replaced */
    store_pause();
    kl_cache_identity(dev, backend, id, sizeof id);
    put(&t, KL_TUNED_HEADER "\nidentity %s\n", id);
    int replaced = 0;
    for (int i = 0; i < f.count; i++) {
        const struct kl_tuned *x = &f.entries[i];
        int same = strcmp(x->workload, entry->workload) == 0 && strcmp(x->rung, entry->rung) == 0 &&
                   x->type == entry->type && x->size_class == entry->size_class;
        put_entry(&t, same ? entry : x);
        replaced |= same;
    }
    if (!replaced)
        put_entry(&t, entry);
    if (!t.failed)
        put(&t, "checksum %016llx\n", (unsigned long long)kl_cache_hash(t.s, t.len));
    st = t.failed ? kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory")
                  : kl_cache_write(f.path, t.s, e);
    kl_cache_unlock(lock);
    free(t.s);
    kl_tuned_free(&f);
    return st;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

enum kl_status kl_tuned_list(char ***paths, int *count, struct kl_err *e)
{
    char dir[3072];
    *paths = NULL;
    *count = 0;
    kl_cache_dir(dir, sizeof dir);
    DIR *d = opendir(dir);
    if (!d)
        return errno == ENOENT ? KL_OK
                               : kl_fail(e, KL_ERR_IO, "cannot read the cache directory %s: %s",
                                         dir, strerror(errno));
    struct dirent *ent;
    while ((ent = readdir(d))) {
        size_t n = strlen(ent->d_name);
        if (strncmp(ent->d_name, "tuned-", 6) != 0 || n < 10 ||
            strcmp(ent->d_name + n - 4, ".txt") != 0)
            continue;
        char **more = realloc(*paths, (size_t)(*count + 1) * sizeof *more);
        char *p = malloc(strlen(dir) + n + 2);
        if (!more || !p) {
            free(p);
            if (more)
                *paths = more;
            closedir(d);
            kl_tuned_list_free(*paths, *count);
            *paths = NULL;
            *count = 0;
            return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory");
        }
        sprintf(p, "%s/%s", dir, ent->d_name);
        *paths = more;
        (*paths)[(*count)++] = p;
    }
    closedir(d);
    if (*count > 1)
        qsort(*paths, (size_t)*count, sizeof **paths, cmp_str);
    return KL_OK;
}

void kl_tuned_list_free(char **paths, int count)
{
    for (int i = 0; i < count; i++)
        free(paths[i]);
    free(paths);
}
