/*
 * The command line's outputs (cli/outputs.c): the report files of a run,
 * opened before it and written whole after it (or when a stop or a runaway
 * launch cut it short), its page among them, and the exit code of how it
 * ended.
 */
#ifndef KL_CLI_OUTPUTS_H
#define KL_CLI_OUTPUTS_H

#include <stdio.h>

#include "cli/article_cmd.h"
#include "cli/cli.h"
#include "core/context.h"
#include "core/report.h"
#include "core/util.h"

/*
 * The report files, opened before the run so a bad path fails at once. Each
 * is written under a temporary name and renamed into place when the run has
 * written it (kl_out_file): a run killed half-way leaves an older file as it
 * was, never a truncated one.
 */
struct outputs {
    FILE *main, *json;       /* main: standard output or --output's file; json: NULL or --json's */
    FILE *report;            /* the HTML report (--report, or the main job's own) */
    const char *report_path; /* its path, NULL when none is written */
    struct kl_out_file files[3]; /* --output, --json, the HTML report */
    int announce;                /* say "wrote PATH" of each (not --quiet) */
    int announce_html;           /* ... the HTML report too (the main job ends with its path) */
    struct kl_cli_article article; /* --article: the ladder as an article (open: asked for) */
};

/* Opens --output, --json and --report (the main job's page) for c; 0 or an exit code. */
int kl_cli_outputs_open(const struct cli *c, struct outputs *o);
/*
 * Renames f into place (kl_out_commit) and, where announce, says so on
 * standard error ("kladder: wrote PATH") of a file that was renamed, not of
 * a terminal, a pipe or /dev/null written directly. 0, or -1 with errno.
 */
int kl_cli_commit(struct kl_out_file *f, int announce);
/* Forgets every file opened, leaving what was at their paths as it was. */
void kl_cli_outputs_abort(struct outputs *o);
/*
 * Closes them: each written one renamed into place (html: the page was
 * written whole) and announced on standard error ("kladder: wrote PATH"),
 * the others removed. EXIT_RUNTIME when a write was lost.
 */
int kl_cli_outputs_close(struct outputs *o, int written, int html);

/*
 * --report: writes the HTML report of a finished run into html (opened by
 * the caller before the run), reading back its own JSON so that a report of
 * a run and of its saved file are the same page; article: the path of the
 * run's article (--article), which the page links to, or NULL. 0, or 3 when
 * writing failed (with a message on stderr).
 */
int kl_cli_report_run(const struct kl_report *rep, FILE *html, const char *path,
                      const char *article);

/* Prints "report: PATH" with PATH made absolute, for a person to open. */
void kl_cli_report_announce(FILE *f, const char *path);

/*
 * Prints the report of a run (the rows so far when an error or a stop cut it
 * short; err: the error's sentence) to every output, closes them and frees
 * rep; returns the exit code. kl_cli_finish does the same for a run on kl,
 * with kl's last error, and closes kl.
 */
int kl_cli_report_end(const struct cli *c, enum kl_status st, const char *err,
                      struct kl_report *rep, struct outputs *o);
int kl_cli_finish(const struct cli *c, struct kl_context *kl, enum kl_status st,
                  struct kl_report *rep, struct outputs *o);

/* Arms the watchdog (--kernel-timeout) for a run writing rep to o. */
void kl_cli_watch_run(const struct cli *c, struct kl_report *rep, struct outputs *o);
/* The watchdog's handler: the row under way becomes a timeout, the rows so far are written,
 * exit 4. Without a run armed, it says so and exits 4. */
void kl_cli_on_runaway(double limit_s);

#endif /* KL_CLI_OUTPUTS_H */
