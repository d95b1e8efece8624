#define _DEFAULT_SOURCE /* realpath */
#include "cli/args.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int kl_parse_long(const char *what, const char *s, long min, long max, long *out, char *err,
                  size_t n)
{
    char *end;
    long v;
    if (!s || !*s) {
        snprintf(err, n, "%s needs a value", what);
        return -1;
    }
    errno = 0;
    v = strtol(s, &end, 10);
    if (end == s || *end != '\0') {
        snprintf(err, n, "%s: \"%s\" is not an integer", what, s);
        return -1;
    }
    if (errno == ERANGE || v < min || v > max) {
        snprintf(err, n, "%s: %s is out of range (%ld..%ld)", what, s, min, max);
        return -1;
    }
    *out = v;
    return 0;
}

/* A time's unit after its number (ms, s, m, h, or none: seconds) into *scale; 0 where unknown. */
static int time_unit(const char *unit, double *scale)
{
    static const struct {
        const char *name;
        double scale;
    } units[] = {{"", 1}, {"ms", 1e-3}, {"s", 1}, {"m", 60}, {"h", 3600}};
    for (size_t k = 0; k < sizeof units / sizeof *units; k++)
        if (strcmp(unit, units[k].name) == 0)
            return *scale = units[k].scale, 1;
    return 0;
}

int kl_parse_seconds(const char *what, const char *s, double min, double max, double *out,
                     char *err, size_t n)
{
    char *end;
    double v, scale = 1.0;
    if (!s || !*s) {
        snprintf(err, n, "%s needs a value", what);
        return -1;
    }
    errno = 0;
    v = strtod(s, &end);
    if (end == s || !time_unit(end, &scale) || !isfinite(v)) {
        snprintf(err, n,
                 "%s: \"%s\" is not a time (a number of seconds, or one with ms, s, m or h: "
                 "500ms, 90s, 10m, 2h)",
                 what, s);
        return -1;
    }
    v *= scale;
    if (errno == ERANGE || v < min || v > max) {
        snprintf(err, n, "%s: %s is out of range (%g..%g s)", what, s, min, max);
        return -1;
    }
    *out = v;
    return 0;
}

int kl_parse_bytes(const char *what, const char *s, long min, long max, long *out, char *err,
                   size_t n)
{
    static const char *const units[][2] = {{"K", "KiB"}, {"M", "MiB"}, {"G", "GiB"}, {"T", "TiB"}};
    char *end;
    long v;
    if (!s || !*s)
        return snprintf(err, n, "%s needs a value", what), -1;
    errno = 0;
    v = strtol(s, &end, 10);
    double scale = 1;
    for (int u = 0; u < 4 && *end; u++)
        if (strcmp(end, units[u][0]) == 0 || strcmp(end, units[u][1]) == 0)
            scale = ldexp(1, 10 * (u + 1)), end += strlen(end);
    if (end == s || *end != '\0')
        return snprintf(err, n,
                        "%s: \"%s\" is not a size (bytes, or with K, M, G or T for KiB, MiB, "
                        "GiB, TiB: 65536, 64K, 256M)",
                        what, s),
               -1;
    double bytes = (double)v * scale;
    if (errno == ERANGE || bytes < (double)min || bytes > (double)max)
        return snprintf(err, n, "%s: %s is out of range (%ld..%ld bytes)", what, s, min, max), -1;
    *out = (long)bytes;
    return 0;
}

/* The path of file p with its folder resolved ("./x" and "d/../x" the same), into out. */
static int resolved(const char *p, char *out, size_t n)
{
    char dir[PATH_MAX], real[PATH_MAX];
    const char *slash = strrchr(p, '/');
    const char *base = slash ? slash + 1 : p;
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - p) + (slash == p) : 1, slash ? p : ".");
    if (!realpath(dir, real))
        return -1;
    snprintf(out, n, "%s/%s", real, base);
    return 0;
}

int kl_same_file(const char *a, const char *b)
{
    struct stat x, y;
    char ra[2 * PATH_MAX], rb[2 * PATH_MAX];
    if (!a || !b || !*a || !*b)
        return 0;
    if (stat(a, &x) == 0 && stat(b, &y) == 0)
        return x.st_dev == y.st_dev && x.st_ino == y.st_ino;
    return resolved(a, ra, sizeof ra) == 0 && resolved(b, rb, sizeof rb) == 0 &&
           strcmp(ra, rb) == 0;
}

int kl_split_list(char *s, char **items, int max)
{
    int n = 0;
    char *p = s;
    while (p && *p && n < max) {
        char *comma = strchr(p, ',');
        if (comma)
            *comma = '\0';
        if (*p)
            items[n++] = p;
        p = comma ? comma + 1 : NULL;
    }
    return n;
}
