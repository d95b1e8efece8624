#include "cli/args.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
        snprintf(err, n, "%s: \"%s\" is not a number of seconds", what, s);
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
