/*
 * The report files of a run and how it ends (cli/outputs.h): each file is
 * opened before the run, so a bad path fails at once, written under a
 * temporary name and renamed into place when whole (kl_out_file); the
 * run's page (--report) is made from its own JSON read back.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include "cli/outputs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/article_cmd.h"
#include "cli/exit.h"
#include "fleet/spawn.h"
#include "report/html.h"
#include "report/run.h"
#include "core/progress.h"
#include "core/stop.h"
#include "report/write.h"

/* Writes one rendering of the report; 0, or EXIT_RUNTIME when the stream failed. */
static int write_report(FILE *out, const char *format, const struct kl_report *rep,
                        const char *matrix_x)
{
    if (strcmp(format, "json") == 0) {
        kl_report_json(rep, out);
    } else if (strcmp(format, "csv") == 0) {
        kl_report_csv(rep, out);
    } else {
        /* A sweep is one row per N and rung (collectives: per size and collective): the
         * matrix is its readable form. */
        if (matrix_x)
            kl_report_matrix(rep, matrix_x, out);
        else
            kl_report_table(rep, out);
    }
    return fflush(out) != 0 || ferror(out) ? EXIT_RUNTIME : 0;
}

enum { OUT_MAIN, OUT_JSON, OUT_HTML };

/* Opens file k at path into *f; 0, or -1 having said why. */
static int open_one(struct outputs *o, int k, const char *path, FILE **f, int quiet)
{
    if (kl_out_open(&o->files[k], path) != 0) {
        if (!quiet)
            fprintf(stderr, "kladder: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    *f = o->files[k].f;
    return 0;
}

int kl_cli_commit(struct kl_out_file *f, int announce)
{
    int renamed = f->tmp[0] != 0; /* (kl_out_commit clears it) */
    if (kl_out_commit(f) != 0)
        return -1;
    if (announce && renamed)
        fprintf(stderr, "kladder: wrote %s\n", f->path);
    return 0;
}

/*
 * The run's own JSON, read back into run (*text holds what run points into;
 * free both): one path from a run to its page and its article, so that they
 * are the same as those of its saved file. 0, or EXIT_RUNTIME having said why
 * (what: the file being written).
 */
static int read_back(const struct kl_report *rep, struct kl_run *run, char **text,
                     const char *what)
{
    FILE *tmp = tmpfile();
    char err[1024];
    long len = 0;
    *text = NULL;
    if (!tmp) {
        fprintf(stderr, "kladder: cannot write %s: no temporary file: %s\n", what,
                strerror(errno));
        return EXIT_RUNTIME;
    }
    kl_report_json(rep, tmp);
    if (fflush(tmp) != 0 || ferror(tmp) || (len = ftell(tmp)) < 0 || fseek(tmp, 0, SEEK_SET) != 0 ||
        !(*text = malloc((size_t)len + 1)) || fread(*text, 1, (size_t)len, tmp) != (size_t)len) {
        fprintf(stderr, "kladder: cannot write %s: the temporary file failed\n", what);
        fclose(tmp);
        free(*text);
        *text = NULL;
        return EXIT_RUNTIME;
    }
    fclose(tmp);
    if (kl_run_parse(run, *text, (size_t)len, "this run", err, sizeof err) != 0) {
        /* Our own JSON not read back is a bug; say so plainly. */
        fprintf(stderr, "kladder: internal error: the run's JSON does not read back: %s\n", err);
        kl_run_free(run);
        free(*text);
        *text = NULL;
        return EXIT_RUNTIME;
    }
    return 0;
}

int kl_cli_report_run(const struct kl_report *rep, FILE *html, const char *path,
                      const char *article)
{
    struct kl_run run;
    char *text;
    int rc = read_back(rep, &run, &text, path);
    if (rc)
        return rc;
    run.article = article;
    kl_html_report(html, &run, 1);
    if (fflush(html) != 0 || ferror(html)) {
        fprintf(stderr, "kladder: writing %s failed: %s\n", path, strerror(errno));
        rc = EXIT_RUNTIME;
    }
    kl_run_free(&run);
    free(text);
    return rc;
}

/*
 * The link from the page at report to the article at article: its name where
 * both are in one folder, else its absolute path.
 */
static void article_href(const char *report, const char *article, char *out, size_t n)
{
    const char *rs = strrchr(report, '/'), *as = strrchr(article, '/');
    size_t rl = rs ? (size_t)(rs - report) : 0, al = as ? (size_t)(as - article) : 0;
    char dir[4096], *abs;
    if (rl == al && strncmp(report, article, rl) == 0) {
        snprintf(out, n, "%s", as ? as + 1 : article);
        return;
    }
    snprintf(dir, sizeof dir, "%.*s", (int)al, as ? article : ".");
    abs = realpath(al || !as ? dir : "/", NULL);
    snprintf(out, n, "%s/%s", abs ? abs : dir, as ? as + 1 : article);
    free(abs);
}

/* The run's article, at the path its outputs opened; 0, or an exit code having said why. */
static int article_run(const struct kl_report *rep, struct outputs *o, int quiet)
{
    struct kl_run run;
    char *text;
    int rc = read_back(rep, &run, &text, o->article.path);
    if (rc) {
        kl_cli_article_abort(&o->article);
        return rc;
    }
    rc = kl_cli_article_write(&o->article, &run, quiet);
    kl_run_free(&run);
    free(text);
    return rc;
}

void kl_cli_report_announce(FILE *f, const char *path)
{
    char *abs = realpath(path, NULL);
    fprintf(f, "report: %s\n", abs ? abs : path);
    fflush(f);
    free(abs);
}

/* Forgets every file opened, leaving what was at their paths as it was. */
void kl_cli_outputs_abort(struct outputs *o)
{
    for (int k = 0; k < 3; k++)
        kl_out_abort(&o->files[k]);
    kl_cli_article_abort(&o->article);
    o->main = stdout;
    o->json = o->report = NULL;
}

int kl_cli_outputs_open(const struct cli *c, struct outputs *o)
{
    memset(o, 0, sizeof *o);
    o->main = stdout;
    o->announce = !c->quiet;
    o->announce_html = c->command != CMD_MAIN;
    if ((c->output && open_one(o, OUT_MAIN, c->output, &o->main, 0) != 0) ||
        (c->json && open_one(o, OUT_JSON, c->json, &o->json, 0) != 0)) {
        kl_cli_outputs_abort(o);
        return EXIT_USAGE;
    }
    /* The main job writes kladder-report.html unless told where; where it cannot, it says so
     * and runs on. A --report path that cannot be written is an error before the run. */
    o->report_path = c->report                                       ? c->report
                     : c->command == CMD_MAIN && !kl_fleet_is_member() ? "kladder-report.html"
                                                                     : NULL;
    if (o->report_path && open_one(o, OUT_HTML, o->report_path, &o->report, 1) != 0) {
        fprintf(stderr, "kladder: %scannot write %s: %s%s\n",
                c->report ? "" : "note: ", o->report_path, strerror(errno),
                c->report ? "" : " (--report FILE writes the report elsewhere)");
        o->report_path = NULL;
        if (c->report) {
            kl_cli_outputs_abort(o);
            return EXIT_USAGE;
        }
    }
    int rc;
    if (c->article && (rc = kl_cli_article_open(c, &o->article)) != 0) {
        kl_cli_outputs_abort(o);
        return rc;
    }
    return 0;
}

/*
 * Closes the report files: each written one renamed into place (html: the
 * HTML page was written whole), the others removed. EXIT_RUNTIME when a
 * write was lost.
 */
int kl_cli_outputs_close(struct outputs *o, int written, int html)
{
    int rc = 0;
    for (int k = 0; k < 3; k++) {
        struct kl_out_file *f = &o->files[k];
        if (!f->f)
            continue;
        if (!(k == OUT_HTML ? html : written)) {
            kl_out_abort(f);
        } else if (kl_cli_commit(f, o->announce && (k != OUT_HTML || o->announce_html)) != 0) {
            fprintf(stderr, "kladder: writing %s failed: %s\n", f->path, strerror(errno));
            rc = EXIT_RUNTIME;
        }
    }
    o->main = stdout;
    o->json = o->report = NULL;
    return rc;
}

/*
 * Writes the report of a run (the rows so far, when an error or a stop cut
 * it short) to every output and closes them; *html: the HTML page was
 * written. 0, or EXIT_RUNTIME when a write was lost.
 */
static int emit(const struct cli *c, enum kl_status st, const struct kl_report *rep,
                struct outputs *o, int *html)
{
    int io = 0, written = st == KL_OK || rep->count > 0;
    *html = 0;
    if (written) {
        io = write_report(o->main, c->format, rep,
                          c->sweep         ? "N"
                          : c->collectives ? "bytes"
                                           : NULL);
        if (o->json && write_report(o->json, "json", rep, NULL))
            io = EXIT_RUNTIME;
        if (io)
            fprintf(stderr, "kladder: writing the report failed: %s\n", strerror(errno));
        char href[8192];
        if (o->article.open)
            article_href(o->report_path ? o->report_path : ".", o->article.path, href,
                         sizeof href);
        const char *article = o->article.open ? href : NULL;
        if (o->report && kl_cli_report_run(rep, o->report, o->report_path, article) == 0)
            *html = 1;
        else if (o->report)
            io = EXIT_RUNTIME;
        if (o->article.open && article_run(rep, o, !o->announce) != 0)
            io = io ? io : EXIT_RUNTIME;
    } else {
        kl_cli_article_abort(&o->article);
    }
    if (kl_cli_outputs_close(o, written, *html))
        io = EXIT_RUNTIME, *html = 0;
    return io;
}

/* What a finished run's rows say: rungs and peers that failed verification, rows skipped. */
struct outcome {
    int rungs_failed, peers_failed, skipped;
    const char *peer, *skip; /* the first failed peer, the first skipped row's reason */
};

static struct outcome outcome_of(const struct kl_report *rep)
{
    struct outcome w = {0, 0, 0, NULL, NULL};
    for (int i = 0; i < rep->count; i++) {
        const struct kl_result *x = &rep->results[i];
        if (x->status == KL_RESULT_FAILED && x->peer && !w.peers_failed++)
            w.peer = x->rung;
        else if (x->status == KL_RESULT_FAILED && !x->peer)
            w.rungs_failed++;
        else if (x->status == KL_RESULT_SKIPPED && !w.skipped++)
            w.skip = x->note;
    }
    return w;
}

/*
 * A finished run's exit status from its rows (exit 1 for a rung that failed
 * verification; a peer's only with --strict-peers, else a note; exit 2 where
 * every row was skipped), saying why; 0 where they were fine.
 */
static int rows_status(const struct cli *c, const struct kl_report *rep)
{
    struct outcome w = outcome_of(rep);
    if (w.rungs_failed || (w.peers_failed && c->strict_peers)) {
        fprintf(stderr, "kladder: at least one %s FAILED verification\n",
                w.rungs_failed ? "rung" : "peer (--strict-peers)");
        return EXIT_VERIFY;
    }
    if (w.peers_failed)
        fprintf(stderr,
                "kladder: note: %s%s FAILED verification: the library's result, not a rung's "
                "(its row says by how much); the exit status is the rungs' (--strict-peers "
                "counts peers)\n",
                w.peer, w.peers_failed > 1 ? " and other peers" : "");
    if (rep->count > 0 && w.skipped == rep->count) {
        fprintf(stderr, "kladder: no row ran: all %d were skipped (the first: %s)\n", rep->count,
                w.skip);
        return EXIT_USAGE;
    }
    return 0;
}

/*
 * Prints the report of a run. When an error stopped it, the rungs that ran
 * are still printed, then the error. A failed verification (exit 1) comes
 * before a lost write (exit 3) in the exit code; an interrupted run exits
 * 130 with the rows measured before the signal.
 */
int kl_cli_report_end(const struct cli *c, enum kl_status st, const char *err,
                      struct kl_report *rep, struct outputs *o)
{
    int rc = 0, html = 0;
    const char *html_path = o->report_path;
    kl_progress_done();
    kl_watchdog_set(0, NULL);
    if (st == KL_ERR_INTERRUPTED)
        snprintf(rep->stopped, sizeof rep->stopped, "%s", kl_stop_name());
    if (st != KL_OK) /* the rows a stopped run measured get their rates (peak's too) */
        kl_report_finish(rep);
    int io = emit(c, st, rep, o, &html);
    if (st == KL_ERR_INTERRUPTED) {
        fprintf(stderr, "kladder: interrupted (%s): %d row%s written\n", rep->stopped, rep->count,
                rep->count == 1 ? "" : "s");
        rc = EXIT_INTERRUPTED;
    } else if (st != KL_OK) {
        fprintf(stderr, "kladder: %s\n", err);
        rc = kl_exit_for(st);
    } else if (!(rc = rows_status(c, rep)) && rep->health[0] && !io) {
        fprintf(stderr, "kladder: soak: %s\n", rep->health);
        rc = EXIT_HEALTH;
    } else if (!rc) {
        rc = io;
    }
    if (html && c->command == CMD_MAIN)
        kl_cli_report_announce(
            o->main == stdout && strcmp(c->format, "table") == 0 ? stdout : stderr, html_path);
    kl_report_free(rep);
    return rc;
}

/* report_end of a run on kl (err: kl's last error) with its builds' messages, then the
 * device closed. */
int kl_cli_finish(const struct cli *c, struct kl_context *kl, enum kl_status st,
                  struct kl_report *rep, struct outputs *o)
{
    kl_report_build_logs(rep, kl);
    kl_report_conditions_end(rep, kl);
    int rc = kl_cli_report_end(c, st, kl_last_error(kl), rep, o);
    kl_close(kl);
    return rc;
}

/*
 * A launch that outlived --kernel-timeout. This runs on the watchdog's thread
 * while the run's thread waits on the launch (and so touches nothing): the
 * row being measured becomes a timeout, the rows so far are written, and the
 * process ends; the device frees the launch with the process.
 */
static struct {
    const struct cli *c;
    struct kl_report *rep;
    struct outputs *o;
} live;

void kl_cli_on_runaway(double limit_s)
{
    char why[96];
    int html;
    snprintf(why, sizeof why, "--kernel-timeout %g s", limit_s);
    kl_progress_done();
    if (!live.rep) {
        fprintf(stderr, "kladder: a launch ran past %s; stopping\n", why);
        _exit(EXIT_TIMEOUT);
    }
    struct kl_result *x = live.rep->count ? &live.rep->results[live.rep->count - 1] : NULL;
    if (x) {
        x->status = KL_RESULT_TIMEOUT;
        snprintf(x->note, sizeof x->note,
                 "a launch ran past %s (an endless loop?); the run stopped here", why);
    }
    snprintf(live.rep->stopped, sizeof live.rep->stopped, "%s", why);
    emit(live.c, KL_OK, live.rep, live.o, &html);
    fprintf(stderr, "kladder: %s%sa launch ran past %s; the rows so far are written\n",
            x ? x->rung : "", x ? ": " : "", why);
    fflush(NULL);
    _exit(EXIT_TIMEOUT);
}

/* Arms the watchdog for a run writing rep to o. */
void kl_cli_watch_run(const struct cli *c, struct kl_report *rep, struct outputs *o)
{
    live.c = c, live.rep = rep, live.o = o;
    kl_watchdog_set(c->kernel_timeout, kl_cli_on_runaway);
}
