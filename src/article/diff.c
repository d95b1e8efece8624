/*
 * Unified diffs through libgit2 (article/diff.h). The patch's hunks and lines
 * are copied out of libgit2's objects, so a caller holds nothing of libgit2's.
 */
#include "article/diff.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef KLADDER_HAVE_LIBGIT2
#include <git2.h>
#endif

void kl_diff_free(struct kl_diff *d)
{
    for (int h = 0; h < d->nhunks; h++) {
        for (int l = 0; l < d->hunks[h].nlines; l++)
            free(d->hunks[h].lines[l].text);
        free(d->hunks[h].lines);
    }
    free(d->hunks);
    free(d->unified);
    memset(d, 0, sizeof *d);
}

#ifndef KLADDER_HAVE_LIBGIT2

int kl_diff_available(char *why, size_t n)
{
    snprintf(why, n,
             "this kladder was built without libgit2, which makes the article's diffs "
             "(Debian: apt-get install libgit2-dev, then build again); a run's JSON "
             "(--json FILE) makes its article with `kladder article FILE` on a machine that "
             "has it");
    return 0;
}

int kl_diff_texts(const char *old_text, const char *old_name, const char *new_text,
                  const char *new_name, int context, struct kl_diff *d, char *why, size_t n)
{
    (void)old_text, (void)old_name, (void)new_text, (void)new_name, (void)context;
    memset(d, 0, sizeof *d);
    kl_diff_available(why, n);
    return -1;
}

#else

int kl_diff_available(char *why, size_t n)
{
    (void)why, (void)n;
    return 1;
}

/* libgit2's last error, or what failed. */
static int git_failed(const char *what, char *why, size_t n)
{
    const git_error *e = git_error_last();
    snprintf(why, n, "libgit2: %s: %s", what, e && e->message ? e->message : "failed");
    return -1;
}

/* Copies hunk h of patch p into out. */
static int copy_hunk(git_patch *p, size_t h, struct kl_diff_hunk *out, struct kl_diff *d,
                     char *why, size_t n)
{
    const git_diff_hunk *hunk;
    size_t lines;
    if (git_patch_get_hunk(&hunk, &lines, p, h) != 0)
        return git_failed("git_patch_get_hunk", why, n);
    *out = (struct kl_diff_hunk){hunk->old_start, hunk->old_lines, hunk->new_start,
                                 hunk->new_lines, calloc(lines ? lines : 1, sizeof *out->lines),
                                 0};
    if (!out->lines)
        return snprintf(why, n, "out of host memory"), -1;
    for (size_t l = 0; l < lines; l++) {
        const git_diff_line *line;
        if (git_patch_get_line_in_hunk(&line, p, h, l) != 0)
            return git_failed("git_patch_get_line_in_hunk", why, n);
        /* the markers of a text without a newline at its end are not lines of either */
        if (line->origin != GIT_DIFF_LINE_CONTEXT && line->origin != GIT_DIFF_LINE_ADDITION &&
            line->origin != GIT_DIFF_LINE_DELETION)
            continue;
        size_t len = line->content_len;
        while (len > 0 && (line->content[len - 1] == '\n' || line->content[len - 1] == '\r'))
            len--;
        struct kl_diff_line *x = &out->lines[out->nlines];
        if (!(x->text = malloc(len + 1)))
            return snprintf(why, n, "out of host memory"), -1;
        memcpy(x->text, line->content, len);
        x->text[len] = '\0';
        x->origin = line->origin;
        x->old_no = line->old_lineno > 0 ? line->old_lineno : 0;
        x->new_no = line->new_lineno > 0 ? line->new_lineno : 0;
        d->added += x->origin == '+';
        d->removed += x->origin == '-';
        out->nlines++;
    }
    return 0;
}

int kl_diff_texts(const char *old_text, const char *old_name, const char *new_text,
                  const char *new_name, int context, struct kl_diff *d, char *why, size_t n)
{
    git_diff_options opts;
    git_patch *p = NULL;
    git_buf buf = {0};
    int rc = -1;
    memset(d, 0, sizeof *d);
    if (git_libgit2_init() < 0)
        return git_failed("git_libgit2_init", why, n);
    git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
    opts.context_lines = (uint32_t)context;
    if (git_patch_from_buffers(&p, old_text, strlen(old_text), old_name, new_text,
                               strlen(new_text), new_name, &opts) != 0) {
        git_failed("git_patch_from_buffers", why, n);
        goto done;
    }
    size_t nh = git_patch_num_hunks(p);
    if (nh && !(d->hunks = calloc(nh, sizeof *d->hunks))) {
        snprintf(why, n, "out of host memory");
        goto done;
    }
    for (size_t h = 0; h < nh; h++, d->nhunks++)
        if (copy_hunk(p, h, &d->hunks[h], d, why, n) != 0) {
            d->nhunks++; /* so that kl_diff_free frees its lines */
            goto done;
        }
    if (git_patch_to_buf(&buf, p) != 0) {
        git_failed("git_patch_to_buf", why, n);
        goto done;
    }
    if (!(d->unified = malloc(buf.size + 1))) {
        snprintf(why, n, "out of host memory");
        goto done;
    }
    memcpy(d->unified, buf.ptr ? buf.ptr : "", buf.size);
    d->unified[buf.size] = '\0';
    rc = 0;
done:
    git_buf_dispose(&buf);
    git_patch_free(p);
    git_libgit2_shutdown();
    if (rc != 0)
        kl_diff_free(d);
    return rc;
}

#endif
