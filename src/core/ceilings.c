#define _POSIX_C_SOURCE 200809L
#include "core/ceilings.h"

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

#define HEADER "kladder-ceilings 3" /* 2: tf32_gflops; 3: f16_gflops */

/* One table drives both writing and reading: name, and where the value lives. */
enum field_kind { F_NUM, F_STR };
struct field {
    const char *key;
    enum field_kind kind;
    size_t offset, size;
};
#define NUM(f)                                                                                     \
    {                                                                                              \
#f, F_NUM, offsetof(struct kl_ceilings, f), sizeof(double)                                 \
    }
#define STR(f)                                                                                     \
    {                                                                                              \
#f, F_STR, offsetof(struct kl_ceilings, f), sizeof(((struct kl_ceilings *)0)->f)           \
    }
static const struct field fields[] = {
    NUM(copy_gbps),      NUM(read_gbps),  NUM(write_gbps),   STR(copy_cfg),     STR(read_cfg),
    STR(write_cfg),      NUM(f32_gflops), NUM(f64_gflops),   NUM(i32_giops),    NUM(launch_us),
    NUM(launch_host_us), NUM(empty_us),   NUM(h2d_pageable), NUM(d2h_pageable), NUM(h2d_pinned),
    NUM(d2h_pinned),     NUM(map_gbps),   NUM(unmap_gbps),   STR(date),         NUM(tf32_gflops),
    NUM(f16_gflops),
};
#define FIELD_COUNT (sizeof fields / sizeof *fields)

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

int kl_ceilings_load(const struct kl_device_info *dev, const char *backend, struct kl_ceilings *c,
                     char *warn, size_t n)
{
    char path[4096], id[1024], *text = NULL;
    size_t len = 0;
    struct kl_err e;
    int seen[FIELD_COUNT] = {0}, id_seen = 0;
    kl_ceilings_path(dev, backend, path, sizeof path);
    memset(c, 0, sizeof *c);
    if (access(path, F_OK) != 0)
        return 0;
    if (kl_read_file(path, &text, &len, &e) != KL_OK) {
        snprintf(warn, n, "cannot read the ceiling cache %s (%s); remeasuring", path, e.msg);
        return -1;
    }
    kl_cache_identity(dev, backend, id, sizeof id);
    /* The last line is "checksum <hex>" over everything before it. */
    char *sum = strstr(text, "\nchecksum ");
    unsigned long long want = 0;
    int ok = strncmp(text, HEADER "\n", strlen(HEADER) + 1) == 0 && sum &&
             sscanf(sum + 10, "%llx", &want) == 1 &&
             want == (unsigned long long)kl_cache_hash(text, (size_t)(sum - text + 1));
    /* strtok only when the file passed the checks: strtok(NULL) would resume an old scan. */
    char *first = ok ? strtok(text + strlen(HEADER) + 1, "\n") : NULL;
    for (char *line = first; ok && line; line = strtok(NULL, "\n")) {
        char *space = strchr(line, ' ');
        if (strncmp(line, "checksum ", 9) == 0)
            break;
        if (!space) {
            ok = 0;
            break;
        }
        *space = '\0';
        const char *value = space + 1;
        if (strcmp(line, "identity") == 0) {
            ok = strcmp(value, id) == 0;
            id_seen = 1;
            continue;
        }
        for (size_t i = 0; i < FIELD_COUNT; i++) {
            if (strcmp(line, fields[i].key) != 0)
                continue;
            char *dst = (char *)c + fields[i].offset, *end;
            if (fields[i].kind == F_STR) {
                snprintf(dst, fields[i].size, "%s", value);
            } else {
                double v = strtod(value, &end);
                ok = end != value && *end == '\0' && v >= 0;
                memcpy(dst, &v, sizeof v);
            }
            seen[i] = 1;
        }
    }
    ok = ok && id_seen;
    for (size_t i = 0; i < FIELD_COUNT && ok; i++)
        ok = seen[i];
    /* Another version of the format (an older kladder's) is named as such, not as damage. */
    int other = !ok && strncmp(text, "kladder-ceilings ", 17) == 0 &&
                strncmp(text, HEADER "\n", strlen(HEADER) + 1) != 0;
    free(text);
    if (!ok) {
        memset(c, 0, sizeof *c);
        snprintf(warn, n, "the ceiling cache %s is %s; ignoring it and remeasuring", path,
                 other ? "of another version of kladder" : "corrupt or incomplete");
        return -1;
    }
    return 1;
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
    used = (size_t)snprintf(text, sizeof text, HEADER "\nidentity %s\n", id);
    for (size_t i = 0; i < FIELD_COUNT && used < sizeof text; i++) {
        const char *src = (const char *)c + fields[i].offset;
        if (fields[i].kind == F_STR)
            used +=
                (size_t)snprintf(text + used, sizeof text - used, "%s %s\n", fields[i].key, src);
        else
            used += (size_t)snprintf(text + used, sizeof text - used, "%s %.17g\n", fields[i].key,
                                     *(const double *)(const void *)src);
    }
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
