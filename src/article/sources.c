/*
 * Kernel texts for the article (article/sources.h): read as kladder builds
 * them, and the `Change:` paragraph lifted from each file's first comment.
 */
#include "article/sources.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "core/util.h"

char *kl_article_source(const char *dir, const char *file, char *why, size_t n)
{
    struct kl_err e;
    char path[4096], *text = NULL;
    const char *where = file;
    if (dir) {
        snprintf(path, sizeof path, "%s/%s", dir, file);
        where = path;
    } else {
        for (const struct kl_embedded_file *f = kl_embedded_kernels; f->path; f++)
            if (strcmp(f->path, file) == 0) {
                if (!(text = kl_strdup(f->text)))
                    snprintf(why, n, "out of host memory");
                return text;
            }
    }
    if (kl_read_file(where, &text, NULL, &e) != KL_OK) {
        snprintf(why, n, "%s", e.msg);
        return NULL;
    }
    return text;
}

/* The end of the line at p: its newline, or the text's end. */
static const char *line_end(const char *p)
{
    const char *q = strchr(p, '\n');
    return q ? q : p + strlen(p);
}

/* 1 where the comment line [p, end) is at the comment's margin: " * X", X no blank. */
static int at_margin(const char *p, const char *end)
{
    return end - p >= 4 && strncmp(p, " * ", 3) == 0 && !isspace((unsigned char)p[3]);
}

/* 1 where [p, end) holds nothing but the comment's star and blanks. */
static int blank_line(const char *p, const char *end)
{
    for (; p < end; p++)
        if (*p != ' ' && *p != '\t' && *p != '*' && *p != '\r')
            return 0;
    return 1;
}

/* Appends [p, end) to out (used of n bytes), a space between pieces, runs of blanks as one. */
static void append_words(char *out, size_t n, size_t *used, const char *p, const char *end)
{
    while (p < end && isspace((unsigned char)*p))
        p++;
    while (end > p && isspace((unsigned char)end[-1]))
        end--;
    if (p == end)
        return;
    if (*used && *used + 1 < n)
        out[(*used)++] = ' ';
    for (; p < end && *used + 1 < n; p++) {
        if (isspace((unsigned char)*p) && *used && out[*used - 1] == ' ')
            continue;
        out[(*used)++] = isspace((unsigned char)*p) ? ' ' : *p;
    }
    out[*used] = '\0';
}

void kl_change_paragraph(const char *text, char *out, size_t n)
{
    const char *open = strstr(text, "/*"), *close = open ? strstr(open + 2, "*/") : NULL;
    size_t used = 0;
    int in = 0;
    out[0] = '\0';
    if (!close)
        return;
    for (const char *s = line_end(open); *s && s < close; s = line_end(s)) {
        s++; /* past the newline */
        const char *end = line_end(s) < close ? line_end(s) : close;
        if (!in) {
            in = at_margin(s, end) && strncmp(s + 3, "Change:", 7) == 0;
            if (in)
                append_words(out, n, &used, s + 10, end);
        } else if (blank_line(s, end) || at_margin(s, end)) {
            return;
        } else {
            append_words(out, n, &used, s + 2, end);
        }
        s = end;
        if (s >= close)
            return;
    }
}

int kl_source_includes(const char *text, char names[][128], int max)
{
    int count = 0;
    for (const char *p = text; p && *p && count < max; p = strchr(p, '\n'), p = p ? p + 1 : p) {
        const char *q = p;
        while (*q == ' ' || *q == '\t')
            q++;
        if (*q++ != '#')
            continue;
        while (*q == ' ' || *q == '\t')
            q++;
        if (strncmp(q, "include", 7) != 0)
            continue;
        q += 7;
        while (*q == ' ' || *q == '\t')
            q++;
        const char *close = *q == '"' ? strchr(q + 1, '"') : NULL;
        if (close && close - q - 1 < 128 && close - q - 1 > 0 && !memchr(q, '\n', close - q)) {
            snprintf(names[count], 128, "%.*s", (int)(close - q - 1), q + 1);
            count++;
        }
    }
    return count;
}

void kl_source_beside(const char *file, const char *name, char *out, size_t n)
{
    const char *slash = strrchr(file, '/');
    if (slash)
        snprintf(out, n, "%.*s/%s", (int)(slash - file), file, name);
    else
        snprintf(out, n, "%s", name);
}
