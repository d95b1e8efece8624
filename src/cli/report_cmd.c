#define _XOPEN_SOURCE 700 /* realpath */
#include "cli/report_cmd.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/exit.h"
#include "cli/outputs.h"
#include "core/util.h"
#include "fleet/fleet.h"
#include "report/html.h"
#include "report/run.h"
#include "report/write.h"

/* A usage mistake found once the files are read: said as the parser says its own. */
static int usage_error(const char *cmd, const char *msg)
{
    fprintf(stderr, "kladder: %s\n(kladder help %s lists the options)\n", msg, cmd);
    return EXIT_USAGE;
}

/*
 * Closes the report (o->f: a file written under a temporary name, renamed
 * into place here; NULL: standard output); keep 0 drops it. EXIT_RUNTIME
 * when a write was lost (and the file at the path is left as it was).
 */
static int close_output(struct kl_out_file *o, int keep)
{
    FILE *f = o->f ? o->f : stdout;
    int bad = fflush(f) != 0 || ferror(f);
    int err = errno;
    if (o->f && (bad || !keep))
        kl_out_abort(o);
    else if (o->f && kl_cli_commit(o, 1) != 0)
        bad = 1, err = errno;
    if (!bad)
        return EXIT_OK;
    fprintf(stderr, "kladder: writing %s failed: %s\n", o->path[0] ? o->path : "the report",
            strerror(err ? err : EIO));
    return EXIT_RUNTIME;
}

/* 1 when path holds a fleet (its first bytes name the fleet's version). */
static int is_fleet_file(const char *path)
{
    char head[128];
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(head, 1, sizeof head, f) : 0;
    if (f)
        fclose(f);
    return kl_fleet_text_is_fleet(head, n);
}

/* `kladder report FLEET.json`: the fleet's page. */
static int fleet_page(const char *path, const char *output)
{
    struct kl_fleet *f = malloc(sizeof *f);
    struct kl_out_file file = {0};
    char err[1024];
    int rc = EXIT_OK;
    if (!f) {
        fprintf(stderr, "kladder: out of memory\n");
        return EXIT_RUNTIME;
    }
    if (kl_fleet_load(f, path, err, sizeof err) != 0) {
        fprintf(stderr, "kladder report: %s\n", err);
        free(f);
        return EXIT_USAGE;
    }
    if (output && kl_out_open(&file, output) != 0) {
        fprintf(stderr, "kladder report: cannot write %s: %s\n", output, strerror(errno));
        rc = EXIT_USAGE;
    } else {
        kl_html_fleet(file.f ? file.f : stdout, f);
        rc = close_output(&file, 1);
    }
    kl_fleet_free(f);
    free(f);
    return rc;
}

int kl_cli_report_svg(const struct cli *c)
{
    return c->page_format && strcmp(c->page_format, "svg") == 0;
}

/* The chart --format svg draws: --chart's, else a sweep's for a sweep run, else the ladder. */
static enum kl_chart chart_of(const char *name, const struct kl_run *first)
{
    if (!name)
        return first->sweep ? KL_CHART_SWEEP : KL_CHART_LADDER;
    return strcmp(name, "roofline") == 0 ? KL_CHART_ROOFLINE
           : strcmp(name, "sweep") == 0  ? KL_CHART_SWEEP
                                         : KL_CHART_LADDER;
}

/* Reads every file before anything is written; 0, or EXIT_USAGE having said why. */
static int load_runs(const struct cli *c, struct kl_run *runs, int *loaded)
{
    char err[1024];
    for (*loaded = 0; *loaded < c->noperands; ++*loaded)
        if (kl_run_load(&runs[*loaded], c->operands[*loaded], err, sizeof err) != 0) {
            fprintf(stderr, "kladder report: %s\n", err);
            kl_run_free(&runs[*loaded]);
            return EXIT_USAGE;
        }
    return EXIT_OK;
}

/* --format svg's chart: of all the runs (shapes, radii), else of the first. */
static int svg_chart(const struct cli *c, FILE *out, struct kl_run *runs, int n, char *err,
                     size_t nerr)
{
    if (c->chart && strcmp(c->chart, "shapes") == 0)
        return kl_html_shapes_svg(out, runs, n, err, nerr);
    if (c->chart && strcmp(c->chart, "radii") == 0)
        return kl_html_radii_svg(out, runs, n, err, nerr);
    return kl_html_chart_svg(out, &runs[0], chart_of(c->chart, &runs[0]), err, nerr);
}

/* The page of the runs, or --format svg's chart, to --output or standard output. */
static int write_report(const struct cli *c, struct kl_run *runs, int n)
{
    struct kl_out_file file = {0};
    char err[1024];
    int rc = EXIT_OK;
    if (c->output && kl_out_open(&file, c->output) != 0) {
        fprintf(stderr, "kladder report: cannot write %s: %s\n", c->output, strerror(errno));
        return EXIT_USAGE;
    }
    FILE *out = c->output ? file.f : stdout;
    if (!kl_cli_report_svg(c))
        kl_html_report(out, runs, n);
    else if (svg_chart(c, out, runs, n, err, sizeof err) != 0) {
        fprintf(stderr, "kladder report: %s\n", err);
        rc = EXIT_USAGE;
    }
    int io = close_output(&file, rc == EXIT_OK); /* a failed chart writes nothing */
    return rc ? rc : io;
}

int kl_cli_report(const struct cli *c)
{
    /* A fleet file (fleet/fleet.h) has a page of its own. */
    for (int i = 0; i < c->noperands; i++)
        if (is_fleet_file(c->operands[i]))
            return c->noperands > 1 || kl_cli_report_svg(c)
                       ? usage_error("report", "a fleet's file makes one HTML page: give it "
                                               "alone, without --format svg")
                       : fleet_page(c->operands[0], c->output);
    struct kl_run *runs = calloc((size_t)c->noperands, sizeof *runs);
    int loaded = 0;
    if (!runs) {
        fprintf(stderr, "kladder: out of memory\n");
        return EXIT_RUNTIME;
    }
    int rc = load_runs(c, runs, &loaded);
    if (rc == EXIT_OK)
        rc = write_report(c, runs, c->noperands);
    for (int i = 0; i < loaded; i++)
        kl_run_free(&runs[i]);
    free(runs);
    return rc;
}
