#define _POSIX_C_SOURCE 200809L
#include "core/progress.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"

static struct {
    int enabled, shown, plain;
    double start, delay;
} progress;

void kl_progress_init(int quiet)
{
    const char *term = getenv("TERM"), *delay = getenv("KLADDER_PROGRESS_DELAY");
    char *end = NULL;
    progress.enabled = !quiet && isatty(STDERR_FILENO);
    progress.plain = !term || strcmp(term, "dumb") == 0; /* no escape sequences */
    progress.shown = 0;
    progress.start = kl_now();
    progress.delay = 2.0;
    if (delay && *delay) {
        double d = strtod(delay, &end);
        if (end && !*end && d >= 0 && d < 1e6)
            progress.delay = d;
    }
}

/* Rewrites the line: a carriage return, then erase to the end of the line. */
static void clear_line(void)
{
    if (progress.plain)
        fprintf(stderr, "\r%79s\r", "");
    else
        fputs("\r\033[K", stderr);
}

void kl_progress_step(int i, int n, const char *fmt, ...)
{
    char what[160];
    va_list ap;
    if (!progress.enabled)
        return;
    double t = kl_now() - progress.start;
    if (t < progress.delay)
        return;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    clear_line();
    /* Kept under 80 columns, so the line never wraps and can be rewritten. */
    fprintf(stderr, "kladder: [%d/%d] %.52s (%.0f s)", i + 1, n, what, t);
    fflush(stderr);
    progress.shown = 1;
}

void kl_progress_done(void)
{
    if (progress.shown) {
        clear_line();
        fflush(stderr);
    }
    progress.shown = 0;
}
