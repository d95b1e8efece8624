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
    if (end != s && strcmp(end, "ms") == 0)
        scale = 1e-3, end += 2;
    else if (end != s && strcmp(end, "s") == 0)
        end += 1;
    else if (end != s && (strcmp(end, "m") == 0 || strcmp(end, "h") == 0))
        scale = *end == 'm' ? 60 : 3600, end += 1;
    if (end == s || *end != '\0' || !isfinite(v)) {
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
