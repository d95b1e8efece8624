/*
 * `kladder article` from the command line (cli/article_cmd.h).
 */
#define _XOPEN_SOURCE 700 /* mkdtemp */
#include "cli/article_cmd.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "article/article.h"
#include "cli/args.h"
#include "cli/exit.h"
#include "report/html.h"
#include "report/svg.h"
#include "workloads/registry.h"

/* The files an article's folder holds: what a folder written before may be emptied of. */
static const char *const folder_files[] = {"article.md", "ladder.svg", "roofline.svg"};
#define NFOLDER ((int)(sizeof folder_files / sizeof *folder_files))

static int markdown_of(const struct cli *c)
{
    return c->article_format && strcmp(c->article_format, "md") == 0;
}

/* Removes an article's folder: its files, then the folder; 0 or -1. */
static int remove_folder(const char *dir)
{
    char path[4200];
    for (int k = 0; k < NFOLDER; k++) {
        snprintf(path, sizeof path, "%.4000s/%s", dir, folder_files[k]);
        if (unlink(path) != 0 && errno != ENOENT)
            return -1;
    }
    return rmdir(dir);
}

/* 1 where dir is a folder that may be replaced: empty, or one holding an article.md. */
static int replaceable(const char *dir)
{
    char path[4200];
    struct stat st;
    snprintf(path, sizeof path, "%.4000s/article.md", dir);
    if (stat(path, &st) == 0)
        return 1;
    return rmdir(dir) == 0 || errno == ENOENT; /* empty: removed now, made again at the end */
}

int kl_cli_article_open(const struct cli *c, struct kl_cli_article *a)
{
    char why[512];
    struct stat st;
    memset(a, 0, sizeof *a);
    a->markdown = markdown_of(c);
    a->path = c->article;
    a->kernel_dir = c->kernel_dir;
    a->force = c->force;
    if (!kl_diff_available(why, sizeof why)) {
        fprintf(stderr, "kladder: cannot write the article %s: %s\n", a->path, why);
        return EXIT_USAGE;
    }
    if (!a->markdown) {
        if (kl_out_open(&a->page, a->path) != 0) {
            fprintf(stderr, "kladder: cannot write the article %s: %s\n", a->path,
                    strerror(errno));
            return EXIT_USAGE;
        }
        a->open = 1;
        return 0;
    }
    if (stat(a->path, &st) == 0 && (!S_ISDIR(st.st_mode) || !replaceable(a->path))) {
        fprintf(stderr,
                "kladder: cannot write the article's folder %s: it exists and is %s (give "
                "another -o)\n",
                a->path, S_ISDIR(st.st_mode) ? "no article's folder" : "not a folder");
        return EXIT_USAGE;
    }
    snprintf(a->tmp, sizeof a->tmp, "%s.tmp-XXXXXX", a->path);
    if (!mkdtemp(a->tmp)) {
        fprintf(stderr, "kladder: cannot write the article's folder %s: %s\n", a->path,
                strerror(errno));
        return EXIT_USAGE;
    }
    mode_t mask = umask(0); /* mkdtemp's 0700 is for its name's sake: the folder as mkdir's */
    umask(mask);
    chmod(a->tmp, 0777 & ~mask);
    a->open = 1;
    return 0;
}

void kl_cli_article_abort(struct kl_cli_article *a)
{
    if (!a->open)
        return;
    if (a->markdown)
        remove_folder(a->tmp);
    else
        kl_out_abort(&a->page);
    a->open = 0;
}

/* Writes name in the folder being written: the article (art), else the run's chart, the
   ladder's bars in its first metric or the roofline; 0, or -1 with errno. */
static int folder_file(struct kl_cli_article *a, const char *name, struct kl_run *run,
                       const struct kl_article *art, enum kl_chart chart)
{
    char path[4200];
    enum kl_metric m[3];
    snprintf(path, sizeof path, "%.4000s/%s", a->tmp, name);
    FILE *f = fopen(path, "w");
    int bad = !f;
    if (f && art)
        kl_article_markdown(f, art, "ladder.svg",
                            kl_svg_has_roofline(run) ? "roofline.svg" : NULL);
    else if (f && chart == KL_CHART_ROOFLINE)
        kl_svg_roofline(f, run, 0, 1);
    else if (f)
        kl_svg_ladder(f, run, kl_svg_metrics(run, m) ? m[0] : KL_METRIC_TIME, 0, 1);
    if (f) {
        bad |= ferror(f) != 0;
        bad |= fclose(f) != 0;
    }
    return bad ? -1 : 0;
}

/* The Markdown folder written under its temporary name, then renamed into place. */
static int write_folder(struct kl_cli_article *a, struct kl_run *run, const struct kl_article *art)
{
    char old[4200];
    struct stat st;
    if (folder_file(a, "article.md", run, art, KL_CHART_LADDER) != 0 ||
        folder_file(a, "ladder.svg", run, NULL, KL_CHART_LADDER) != 0 ||
        (kl_svg_has_roofline(run) &&
         folder_file(a, "roofline.svg", run, NULL, KL_CHART_ROOFLINE) != 0))
        return -1;
    snprintf(old, sizeof old, "%.4000s.old-%ld", a->path, (long)getpid());
    int had = stat(a->path, &st) == 0;
    if ((had && rename(a->path, old) != 0) || rename(a->tmp, a->path) != 0)
        return -1;
    if (had)
        remove_folder(old);
    return 0;
}

int kl_cli_article_write(struct kl_cli_article *a, struct kl_run *run, int quiet)
{
    struct kl_article art;
    char err[1024];
    int rc = EXIT_OK;
    if (kl_article_plan(&art, run, a->kernel_dir, a->force, err, sizeof err) != 0) {
        fprintf(stderr, "kladder: cannot write the article %s: %s\n", a->path, err);
        kl_article_free(&art);
        kl_cli_article_abort(a);
        return EXIT_USAGE;
    }
    if (a->markdown) {
        if (write_folder(a, run, &art) != 0) {
            fprintf(stderr, "kladder: writing the article's folder %s failed: %s\n", a->path,
                    strerror(errno));
            kl_cli_article_abort(a);
            rc = EXIT_RUNTIME;
        }
    } else {
        kl_article_html(a->page.f, &art);
        if (fflush(a->page.f) != 0 || ferror(a->page.f) || kl_out_commit(&a->page) != 0) {
            fprintf(stderr, "kladder: writing the article %s failed: %s\n", a->path,
                    strerror(errno));
            kl_cli_article_abort(a);
            rc = EXIT_RUNTIME;
        }
    }
    a->open = 0;
    if (rc == EXIT_OK && !quiet)
        fprintf(stderr, "kladder: wrote %s%s\n", a->path, a->markdown ? "/article.md" : "");
    kl_article_free(&art);
    return rc;
}

/* 1 where paths a and b name one file (the same device and inode). */
int kl_cli_article(const struct cli *c)
{
    struct cli args = *c;
    struct kl_cli_article a;
    struct kl_run run;
    char err[1024];
    int rc;
    if (c->noperands != 1) {
        fprintf(stderr, "kladder: article takes one run's JSON file (from --json FILE), or a "
                        "ladder and its options\n(kladder help article lists the options)\n");
        return EXIT_USAGE;
    }
    if (!args.article)
        args.article = markdown_of(c) ? "kladder-article" : "kladder-article.html";
    if (!kl_diff_available(err, sizeof err)) {
        fprintf(stderr, "kladder: cannot write an article: %s\n", err);
        return EXIT_USAGE;
    }
    if (access(c->operands[0], F_OK) != 0) {
        char names[256];
        kl_workload_ladder_names(names, sizeof names);
        fprintf(stderr, "kladder: article: \"%s\" is neither a ladder (%s) nor a run's JSON file\n",
                c->operands[0], names);
        return EXIT_USAGE;
    }
    if (kl_same_file(c->operands[0], args.article)) { /* the default name, where no -o */
        fprintf(stderr, "kladder: the article would overwrite its run %s: give another -o\n",
                c->operands[0]);
        return EXIT_USAGE;
    }
    if (kl_run_load(&run, c->operands[0], err, sizeof err) != 0) {
        fprintf(stderr, "kladder: %s\n", err);
        kl_run_free(&run);
        return EXIT_USAGE;
    }
    if (run.nrows == 0 || strcmp(run.workload, "peak") == 0) {
        fprintf(stderr, "kladder: %s is a run of %s, which has no rungs: an article is of a "
                        "ladder's run (kladder WORKLOAD --json FILE)\n",
                c->operands[0], run.workload);
        kl_run_free(&run);
        return EXIT_USAGE;
    }
    if ((rc = kl_cli_article_open(&args, &a)) == 0)
        rc = kl_cli_article_write(&a, &run, c->quiet);
    kl_run_free(&run);
    return rc;
}
