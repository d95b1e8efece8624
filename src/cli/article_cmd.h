/*
 * `kladder article` (src/article/) from the command line: a saved run's
 * article (kladder article RUN.json), and the article a ladder writes beside
 * its run (--article FILE, kladder article WORKLOAD), whose output is opened
 * before the run so that a path that cannot be written, or a kladder without
 * libgit2, fails before anything is measured. The page is written under a
 * temporary name and renamed when whole; the Markdown folder is written
 * under a temporary name beside it and renamed when whole.
 */
#ifndef KL_CLI_ARTICLE_CMD_H
#define KL_CLI_ARTICLE_CMD_H

#include "cli/cli.h"
#include "core/util.h"
#include "report/run.h"

struct kl_cli_article {
    int open;           /* opened, not yet written or abandoned */
    int markdown;       /* a folder of article.md and its charts; else one HTML page */
    const char *path;   /* the page, or the folder */
    char tmp[4096];     /* the folder being written (Markdown) */
    struct kl_out_file page;
    const char *kernel_dir; /* NULL: the sources built in */
    int force;
};

/* Opens c's article output (c->article, in c->article_format); 0, or an exit code having said
   why. */
int kl_cli_article_open(const struct cli *c, struct kl_cli_article *a);
/* Writes the article of run and puts it in place (said on standard error unless quiet); 0, or
   an exit code having said why (nothing left at the path then). */
int kl_cli_article_write(struct kl_cli_article *a, struct kl_run *run, int quiet);
/* Leaves what was at the path as it was. */
void kl_cli_article_abort(struct kl_cli_article *a);

/* kladder article RUN.json: its article; the exit code. */
int kl_cli_article(const struct cli *c);

#endif /* KL_CLI_ARTICLE_CMD_H */
