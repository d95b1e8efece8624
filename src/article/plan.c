/*
 * What the article says (article/article.h), apart from its format: each
 * rung's source today and the rung it is read against, the diffs, and the
 * verdict and sentence on what the change did.
 */
#include "article/article.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "article/sources.h"
#include "core/shift.h"
#include "core/util.h"
#include "workloads/registry.h"

/* ---- where each rung's text comes from -------------------------------------------- */

/* The rung table's index of rung name, or -1 (a user's kernel, or another kladder's rung). */
static int table_index(const struct kl_rung_table *t, const char *name)
{
    for (int i = 0; t && i < t->count; i++)
        if (strcmp(t->name(i), name) == 0)
            return i;
    return -1;
}

/* The table's note of rung name, or NULL. */
static const struct kl_rung_note *note_of(const struct kl_rung_table *t, const char *name)
{
    for (const struct kl_rung_note *n = t ? t->notes : NULL; n && n->rung; n++)
        if (strcmp(n->rung, name) == 0)
            return n;
    return NULL;
}

/* "rung-NAME", NAME's characters other than letters, digits, '_' and '-' as '-', unique. */
static void make_anchor(const struct kl_article *a, int i, char *out, size_t n)
{
    const char *name = a->rungs[i].row->rung;
    size_t k = (size_t)snprintf(out, n, "rung-");
    for (const char *p = name; *p && k + 1 < n; p++)
        out[k++] = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                           (*p >= '0' && *p <= '9') || *p == '_' || *p == '-'
                       ? *p
                       : '-';
    out[k] = '\0';
    for (int j = 0, dup = 1; j < i; j++)
        if (strcmp(a->rungs[j].anchor, out) == 0 && k + 4 < n)
            snprintf(out + k, n - k, "-%d", ++dup);
}

/*
 * Rung r's source today, checked against the hash the run recorded: a file
 * that changed is an error (err) unless force, which marks it.
 */
static int read_source(struct kl_article *a, struct kl_article_rung *r, const char *dir, int force,
                       char *err, size_t n)
{
    char why[512], hash[KL_TEXT_HASH];
    if (!r->file)
        return 0;
    if (!(r->text = kl_article_source(dir, r->file, why, sizeof why))) {
        snprintf(r->source_why, sizeof r->source_why, "%.255s", why); /* the section says so */
        return 0;
    }
    if (!r->row->source_hash || !r->row->source_hash[0])
        return 0;
    kl_text_hash(r->text, hash);
    if (strcmp(hash, r->row->source_hash) == 0)
        return 0;
    if (!force) {
        snprintf(err, n,
                 "kernel file %s has changed since the run (the run built %s, the file is now "
                 "%s): its article would show a source the run did not build; --force writes "
                 "it anyway, marked",
                 r->file, r->row->source_hash, hash);
        return -1;
    }
    r->changed = 1;
    a->nchanged++;
    return 0;
}

/* The file's language, by its extension: 1 CUDA C++ (.cu, .cuh), 0 OpenCL C. */
static int is_cuda(const char *file)
{
    const char *dot = strrchr(file, '.');
    return dot && (strcmp(dot, ".cu") == 0 || strcmp(dot, ".cuh") == 0);
}

/*
 * The rung rung i is read against: the note's base, else the rung before
 * with a kernel where it is in the same language; -1 (shown whole) for the
 * first of its language, a user's kernel, and a host rung.
 */
static int base_of(const struct kl_article *a, const struct kl_rung_table *t, int i)
{
    const struct kl_article_rung *r = &a->rungs[i];
    const struct kl_rung_note *note = note_of(t, r->row->rung);
    if (!r->text)
        return -1;
    if (note && note->base)
        for (int j = 0; j < a->nrungs; j++)
            if (j != i && strcmp(a->rungs[j].row->rung, note->base) == 0 && a->rungs[j].text)
                return j;
    if (table_index(t, r->row->rung) < 0)
        return -1;
    for (int j = i - 1; j >= 0; j--)
        if (a->rungs[j].text)
            return is_cuda(a->rungs[j].file) == is_cuda(r->file) ? j : -1;
    return -1;
}

/* ---- what changed ------------------------------------------------------------------ */

/* 1 where the line includes a header ("#include \"NAME\""): its name into name. */
static int include_line(const char *line, char *name, size_t n)
{
    char names[1][128];
    if (kl_source_includes(line, names, 1) != 1)
        return 0;
    snprintf(name, n, "%s", names[0]);
    return 1;
}

/* The headers whose #include lines the diff adds or drops, with their text, into r. */
static void touched_includes(struct kl_article_rung *r, const struct kl_article_rung *base,
                             const char *dir)
{
    char name[128], why[256];
    for (int h = 0; h < r->diff.nhunks; h++)
        for (int l = 0; l < r->diff.hunks[h].nlines; l++) {
            const struct kl_diff_line *x = &r->diff.hunks[h].lines[l];
            if (x->origin == ' ' || !include_line(x->text, name, sizeof name) ||
                r->nincludes == KL_ARTICLE_INCLUDES)
                continue;
            char *path = r->include_file[r->nincludes];
            kl_source_beside(x->origin == '+' ? r->file : base->file, name, path, 256);
            int seen = 0;
            for (int k = 0; k < r->nincludes; k++)
                seen |= strcmp(r->include_file[k], path) == 0;
            if (!seen && (r->include_text[r->nincludes] = kl_article_source(dir, path, why,
                                                                             sizeof why)))
                r->nincludes++;
        }
}

/* The words of a that b lacks, joined by spaces, into out. */
static void words_missing(const char *a, const char *b, char *out, size_t n)
{
    size_t used = 0;
    out[0] = '\0';
    for (const char *p = a; *p;) {
        while (*p == ' ')
            p++;
        size_t len = strcspn(p, " ");
        if (!len)
            break;
        int found = 0;
        for (const char *q = b; *q && !found;) {
            while (*q == ' ')
                q++;
            size_t lq = strcspn(q, " ");
            found = lq == len && strncmp(p, q, len) == 0;
            q += lq;
        }
        if (!found && used + len + 2 < n)
            used += (size_t)snprintf(out + used, n - used, "%s%.*s", used ? " " : "", (int)len, p);
        p += len;
    }
}

/* The diffs of rung r against its base: source, included headers, build options. */
static int diff_rung(struct kl_article *a, struct kl_article_rung *r, const char *dir, char *err,
                     size_t n)
{
    const struct kl_article_rung *base = &a->rungs[r->base];
    char why[512];
    words_missing(base->row->options, r->row->options, r->opts_dropped, sizeof r->opts_dropped);
    words_missing(r->row->options, base->row->options, r->opts_added, sizeof r->opts_added);
    r->same_text = strcmp(base->text, r->text) == 0;
    if (r->same_text)
        return 0;
    if (kl_diff_texts(base->text, base->file, r->text, r->file, 3, &r->diff, why, sizeof why) !=
        0) {
        snprintf(err, n, "the diff of %s against %s: %s", r->file, base->file, why);
        return -1;
    }
    touched_includes(r, base, dir);
    (void)a;
    return 0;
}

/* ---- what it did ---------------------------------------------------------------------- */

/* The timed rung before rung i to judge it against: its base where timed, else the last timed. */
static int below_of(const struct kl_article *a, int i)
{
    const struct kl_article_rung *r = &a->rungs[i];
    if (r->base >= 0 && a->rungs[r->base].row->timed)
        return r->base;
    for (int j = i - 1; j >= 0; j--)
        if (a->rungs[j].row->timed && !a->rungs[j].row->on_host == !r->row->on_host)
            return j;
    return -1;
}

/* kladder compare's verdict on r's launch times against those of the rung below. */
static void judge(struct kl_article_rung *r, const struct kl_article_rung *below)
{
    int na = 0, nb = 0;
    double *a = kl_run_row_samples(below->row, 0, &na), *b = kl_run_row_samples(r->row, 0, &nb);
    struct kl_shift s;
    if (a && b && kl_shift_estimate(a, na, b, nb, &s) == 0) {
        r->verdict = kl_shift_verdict_name(kl_shift_judge(&s, KL_SHIFT_SAME_MARGIN));
        r->lo = s.lo, r->hi = s.hi;
    }
    free(a);
    free(b);
}

/* "memory roof", "compute roof", or "latency" (neither roof within reach). */
static const char *bound_words(const char *bound)
{
    return strcmp(bound, "memory") == 0    ? "the memory roof"
           : strcmp(bound, "compute") == 0 ? "the compute roof"
                                           : "latency (neither roof within reach)";
}

/* The rate of row x as text: "123.4 GFLOP/s". */
static void rate_text(const struct kl_run *run, const struct kl_run_row *x, char *out, size_t n)
{
    enum kl_metric m = kl_run_metric(run, x);
    double v = kl_run_value(run, x, m);
    snprintf(out, n, "%.4g %s", v, kl_run_unit(run, m));
}

/* What the bound and the share of the roof did, appended to out: "; it moved from ... to ...". */
static void roof_words(const struct kl_run_row *x, const struct kl_run_row *b, char *out, size_t n)
{
    size_t used = strlen(out);
    if (x->bound && b->bound && strcmp(x->bound, b->bound) != 0)
        used += (size_t)snprintf(out + used, n - used, " It moved from %s to %s.",
                                 bound_words(b->bound), bound_words(x->bound));
    if (isfinite(x->pct_ceiling) && isfinite(b->pct_ceiling) && x->pct_ceiling > 0 &&
        b->pct_ceiling > 0 && used < n)
        snprintf(out + used, n - used, " It reaches %.3g%% of its roof, against %.3g%%.",
                 x->pct_ceiling, b->pct_ceiling);
}

/* The sentence on what rung r's change did, from its figures and the verdict. */
static void sentence(const struct kl_article *a, struct kl_article_rung *r)
{
    const struct kl_run_row *x = r->row;
    char rate[64];
    if (strcmp(x->status, "failed") == 0 || strcmp(x->status, "timeout") == 0) {
        snprintf(r->sentence, sizeof r->sentence,
                 "It %s, so no speed of it is shown: %s.",
                 x->status[0] == 'f' ? "failed verification" : "ran past the time limit", x->note);
        return;
    }
    if (!x->timed) {
        snprintf(r->sentence, sizeof r->sentence, "It was skipped here: %s.", x->note);
        return;
    }
    rate_text(a->run, x, rate, sizeof rate);
    if (r->below < 0) {
        snprintf(r->sentence, sizeof r->sentence, "The first rung timed %s: %s%s%s.",
                 x->on_host ? "on the host" : "on the device", rate,
                 x->bound ? ", bound by " : "", x->bound ? bound_words(x->bound) : "");
        return;
    }
    const struct kl_run_row *b = a->rungs[r->below].row;
    const char *v = r->verdict;
    if (!v)
        snprintf(r->sentence, sizeof r->sentence,
                 "%s, %.3g× the speed of %s; too few launch times to tell it from noise.", rate,
                 r->speedup, b->rung);
    else if (strcmp(v, "faster") == 0)
        snprintf(r->sentence, sizeof r->sentence,
                 "%.3g× faster than %s: %s (its time over %s's is %.3g to %.3g, 95%% interval).",
                 r->speedup, b->rung, rate, b->rung, r->lo, r->hi);
    else if (strcmp(v, "slower") == 0)
        snprintf(r->sentence, sizeof r->sentence,
                 "Slower on this device: %.3g× the speed of %s (its time over %s's is %.3g to "
                 "%.3g, 95%% interval); a change that should help cost time here, as seed 004's "
                 "article found for some of its steps.",
                 r->speedup, b->rung, b->rung, r->lo, r->hi);
    else if (strcmp(v, "same") == 0)
        snprintf(r->sentence, sizeof r->sentence,
                 "No faster and no slower than %s beyond noise: its time over %s's is %.3g to "
                 "%.3g, within 1%% of the same.",
                 b->rung, b->rung, r->lo, r->hi);
    else
        snprintf(r->sentence, sizeof r->sentence,
                 "%.3g× the speed of %s, but the launches' spread leaves it undecided (its time "
                 "over %s's is %.3g to %.3g, which holds no change).",
                 r->speedup, b->rung, b->rung, r->lo, r->hi);
    roof_words(x, b, r->sentence, sizeof r->sentence);
}

/* ---- the whole ------------------------------------------------------------------------ */

/* The rungs and peers of the run, each rung's file and Change paragraph. */
static int collect(struct kl_article *a, const struct kl_rung_table *t, const char *dir, int force,
                   char *err, size_t n)
{
    struct kl_run *run = a->run;
    if (!(a->rungs = calloc((size_t)run->nrows + 1, sizeof *a->rungs)) ||
        !(a->peers = calloc((size_t)run->nrows + 1, sizeof *a->peers))) {
        snprintf(err, n, "out of host memory");
        return -1;
    }
    for (int i = 0; i < run->nrows; i++) {
        const struct kl_run_row *x = &run->rows[i];
        if (x->peer) {
            a->peers[a->npeers++] = x;
            continue;
        }
        struct kl_article_rung *r = &a->rungs[a->nrungs];
        int k = table_index(t, x->rung);
        r->row = x;
        r->base = r->below = -1;
        r->speedup = NAN;
        r->file = x->source_file && x->source_file[0] ? x->source_file
                  : k >= 0 && t->file                  ? t->file(k)
                                                       : NULL;
        a->hashed |= x->source_hash != NULL;
        make_anchor(a, a->nrungs++, r->anchor, sizeof r->anchor);
        snprintf(r->href, sizeof r->href, "#%s", r->anchor);
        run->rows[i].href = r->href; /* the charts link each rung's mark to its section */
        if (read_source(a, r, dir, force, err, n) != 0)
            return -1;
        const struct kl_rung_note *note = note_of(t, x->rung);
        if (note && note->change)
            snprintf(r->change, sizeof r->change, "%s", note->change);
        else if (r->text)
            kl_change_paragraph(r->text, r->change, sizeof r->change);
    }
    return 0;
}

int kl_article_plan(struct kl_article *a, struct kl_run *run, const char *kernel_dir, int force,
                    char *err, size_t n)
{
    const struct kl_workload_def *w = kl_workload_find(run->workload);
    const struct kl_rung_table *t = w ? w->rungs() : NULL;
    memset(a, 0, sizeof *a);
    a->run = run;
    if (!kl_diff_available(err, n))
        return -1;
    kl_run_find_ceilings(run); /* the roofs its % and its roofline are of, as its page's */
    if (collect(a, t, kernel_dir, force, err, n) != 0)
        return -1;
    for (int i = 0; i < a->nrungs; i++) {
        struct kl_article_rung *r = &a->rungs[i];
        r->base = base_of(a, t, i);
        r->whole = r->text && r->base < 0;
        if (r->base >= 0 && diff_rung(a, r, kernel_dir, err, n) != 0)
            return -1;
        if ((r->below = r->row->timed ? below_of(a, i) : -1) >= 0) {
            r->speedup = a->rungs[r->below].row->median_s / r->row->median_s;
            judge(r, &a->rungs[r->below]);
        }
        sentence(a, r);
    }
    return 0;
}

void kl_article_free(struct kl_article *a)
{
    for (int i = 0; a->rungs && i < a->nrungs; i++) {
        free(a->rungs[i].text);
        kl_diff_free(&a->rungs[i].diff);
        for (int k = 0; k < a->rungs[i].nincludes; k++)
            free(a->rungs[i].include_text[k]);
    }
    free(a->rungs);
    free(a->peers);
    memset(a, 0, sizeof *a);
}
