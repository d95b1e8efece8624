/*
 * The ladder as an article (`kladder article`): for each rung in ladder order,
 * its kernel file's Change paragraph, the diff of its source and of its build
 * options from the rung below, where each parameter value came from, and what
 * the change did on this device (its figures, and a sentence from them whose
 * "faster" and "slower" are kladder compare's verdicts between the two rows),
 * with the ladder chart and the roofline, each rung's mark linked to its
 * section. Made from a run as the report reads it (report/run.h), on any
 * machine: the kernels' text comes from the sources built in (or
 * --kernel-dir), checked against the hashes the run recorded.
 *
 * The files, each calling only those before it: diff.c (libgit2's patches),
 * sources.c (kernel texts, Change paragraphs, includes), plan.c (what the
 * article says, apart from its format), html.c and markdown.c (the page and
 * the Markdown).
 */
#ifndef KL_ARTICLE_H
#define KL_ARTICLE_H

#include <stdio.h>

#include "article/diff.h"
#include "article/sources.h"
#include "report/run.h"

/* One rung's section. */
struct kl_article_rung {
    const struct kl_run_row *row;
    char anchor[96];     /* the section's id: "rung-10_tiled" */
    char href[100];      /* "#" and the anchor: where the row's chart marks link */
    const char *file;    /* its kernel file (NULL: a host rung, or none known) */
    char *text;          /* that file's text today (NULL: none) */
    char source_why[256]; /* why a file named could not be read; "" */
    char change[4096];   /* its Change paragraph (the rung table's note, else the file's); "" */
    int changed;         /* the file's text differs from what the run built (--force) */
    int base;            /* the rung it is read against (an index of the article's rungs), -1 */
    int whole;           /* its source shown whole: no rung below in its language */
    int same_text;       /* the same source as the base's: the change is in the options alone */
    struct kl_diff diff; /* from the base's text to this one's */
    int nincludes;       /* headers the diff adds, drops or edits the include of */
    char include_file[KL_ARTICLE_INCLUDES][256];
    char *include_text[KL_ARTICLE_INCLUDES];
    char opts_dropped[512], opts_added[512]; /* build options, against the base's */
    int below;           /* the rung below whose times it is judged against, -1 */
    double speedup;      /* the rung below's median time over this one's; NaN */
    const char *verdict; /* kladder compare's "faster", "slower", "same", "undecided"; NULL */
    double lo, hi;       /* the interval of the time ratio (this over the one below) */
    char sentence[768];  /* what the change did, from the figures */
};

struct kl_article {
    struct kl_run *run;
    struct kl_article_rung *rungs;
    int nrungs;
    const struct kl_run_row **peers;
    int npeers;
    int hashed;   /* the run recorded its sources' hashes (schema version 3) */
    int nchanged; /* sources changed since the run, written anyway (--force) */
};

/*
 * What the article of run says: its rungs, their sources today (under
 * kernel_dir, NULL: built in), diffs and verdicts. A source that changed
 * since the run (its hash differs from the one the run recorded) is an error
 * unless force, which marks it. 0, or -1 with one sentence in err (no
 * libgit2, a changed source, out of memory).
 */
int kl_article_plan(struct kl_article *a, struct kl_run *run, const char *kernel_dir, int force,
                    char *err, size_t n);
void kl_article_free(struct kl_article *a);

/* The article as one self-contained HTML page (inline CSS and SVG, no script, well-formed XML). */
void kl_article_html(FILE *out, const struct kl_article *a);

/*
 * The article as Markdown that a code-hosting site renders: headings, fenced
 * diff blocks, tables; the charts as images of the files named (NULL: none).
 */
void kl_article_markdown(FILE *out, const struct kl_article *a, const char *ladder_svg,
                         const char *roofline_svg);

#endif /* KL_ARTICLE_H */
