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

static const char report_usage[] =
    "usage: kladder report RUN.json [MORE.json ...] [-o FILE] [--format html|svg]\n"
    "                      [--chart ladder|roofline|sweep|shapes]\n"
    "\n"
    "Writes one self-contained HTML page (inline SVG charts and CSS; no script, nothing\n"
    "fetched) with, for every run: a ladder chart (each rung's rate and its % of the\n"
    "measured roof; failed rungs marked, peers apart), a roofline (rungs at their arithmetic\n"
    "intensity under the measured bandwidth slope and compute roof), a sweep's bandwidth\n"
    "curves, a blur's input and output pictures, the rung summaries, the device facts and\n"
    "the provenance. RUN.json files come from --json FILE or --format json. GEMM runs of\n"
    "several shapes (a shape sweep) lead the page with a chart of kladder's fastest rung of\n"
    "each precision against the library of that precision (--compare), shape by shape, and\n"
    "the shapes where it reaches 0.95x the library's rate.\n"
    "\n"
    "  -o, --output FILE  write to FILE (default: standard output)\n"
    "  --format svg       write one chart of one run as an SVG file instead\n"
    "  --chart NAME       the chart --format svg writes: ladder (default), roofline, or sweep\n"
    "                     (the default for a copy --sweep run); shapes: the shape sweep's\n"
    "                     chart, of all the files given\n";

static int usage_error(const char *cmd, const char *msg)
{
    fprintf(stderr, "kladder %s: %s\n(kladder %s --help lists the options)\n", cmd, msg, cmd);
    return EXIT_USAGE;
}

/* "--opt value" or "--opt=value"; NULL (after a message) when the value is missing. */
static const char *option_value(int argc, char **argv, int *i, const char *name)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n) == 0 && a[n] == '=')
        return a + n + 1;
    if (*i + 1 >= argc)
        return NULL;
    return argv[++*i];
}

static int is_option(const char *a, const char *name)
{
    size_t n = strlen(name);
    return strncmp(a, name, n) == 0 && (a[n] == '\0' || (a[n] == '=' && name[1] == '-'));
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

int kl_cli_report(int argc, char **argv)
{
    const char *output = NULL, *format = "html", *chart_name = NULL;
    const char **files = calloc((size_t)argc + 1, sizeof *files);
    int nfiles = 0, rc = EXIT_OK;
    char msg[512];
    if (!files) {
        fprintf(stderr, "kladder: out of memory\n");
        return EXIT_RUNTIME;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(report_usage, stdout);
            free(files);
            return EXIT_OK;
        }
        int out = is_option(a, "--output") || strcmp(a, "-o") == 0, fmt = is_option(a, "--format"),
            ch = is_option(a, "--chart");
        if (out || fmt || ch) {
            const char *name = out   ? (a[1] == 'o' ? "-o" : "--output")
                               : fmt ? "--format"
                                     : "--chart";
            if (!(v = option_value(argc, argv, &i, name))) {
                snprintf(msg, sizeof msg, "%s needs a value", name);
                free(files);
                return usage_error("report", msg);
            }
            *(out ? &output : fmt ? &format : &chart_name) = v;
        } else if (a[0] == '-' && a[1] != '\0') {
            snprintf(msg, sizeof msg, "unknown option \"%s\"", a);
            free(files);
            return usage_error("report", msg);
        } else {
            files[nfiles++] = a;
        }
    }
    enum kl_chart chart = KL_CHART_LADDER;
    int shapes = chart_name && strcmp(chart_name, "shapes") == 0;
    if (strcmp(format, "html") != 0 && strcmp(format, "svg") != 0) {
        snprintf(msg, sizeof msg, "unknown format \"%s\" (html or svg)", format);
        rc = usage_error("report", msg);
    } else if (chart_name && strcmp(format, "svg") != 0) {
        rc = usage_error("report", "--chart picks the chart of --format svg; the HTML report has "
                                   "them all");
    } else if (chart_name && strcmp(chart_name, "ladder") && strcmp(chart_name, "roofline") &&
               strcmp(chart_name, "sweep") && strcmp(chart_name, "shapes")) {
        snprintf(msg, sizeof msg, "unknown chart \"%s\" (ladder, roofline, sweep or shapes)",
                 chart_name);
        rc = usage_error("report", msg);
    } else if (nfiles == 0) {
        rc = usage_error("report", "give at least one run's JSON file (from --json FILE)");
    } else if (strcmp(format, "svg") == 0 && nfiles > 1 && !shapes) {
        rc = usage_error("report", "--format svg writes one chart of one run (or --chart shapes "
                                   "of several); give one file");
    }
    if (rc) {
        free(files);
        return rc;
    }
    if (chart_name)
        chart = strcmp(chart_name, "roofline") == 0 ? KL_CHART_ROOFLINE
                : strcmp(chart_name, "sweep") == 0  ? KL_CHART_SWEEP
                                                    : KL_CHART_LADDER;

    /* A fleet file (fleet/fleet.h) has a page of its own. */
    for (int i = 0; i < nfiles; i++)
        if (is_fleet_file(files[i])) {
            if (nfiles > 1 || strcmp(format, "html") != 0) {
                rc = usage_error("report", "a fleet's file makes one HTML page: give it alone, "
                                           "without --format svg");
            } else {
                rc = fleet_page(files[0], output);
            }
            free(files);
            return rc;
        }
    /* Every file is read and checked before anything is written. */
    struct kl_run *runs = calloc((size_t)nfiles, sizeof *runs);
    int loaded = 0;
    char err[1024];
    if (!runs) {
        fprintf(stderr, "kladder: out of memory\n");
        free(files);
        return EXIT_RUNTIME;
    }
    for (; loaded < nfiles; loaded++)
        if (kl_run_load(&runs[loaded], files[loaded], err, sizeof err) != 0) {
            fprintf(stderr, "kladder report: %s\n", err);
            kl_run_free(&runs[loaded]);
            rc = EXIT_USAGE;
            break;
        }
    if (!rc && strcmp(format, "svg") == 0 && !chart_name && runs[0].sweep)
        chart = KL_CHART_SWEEP;
    FILE *out = stdout;
    struct kl_out_file file = {0};
    if (!rc && output) {
        if (kl_out_open(&file, output) != 0) {
            fprintf(stderr, "kladder report: cannot write %s: %s\n", output, strerror(errno));
            rc = EXIT_USAGE;
        }
        out = file.f;
    }
    if (!rc) {
        if (strcmp(format, "svg") == 0) {
            if ((shapes ? kl_html_shapes_svg(out, runs, nfiles, err, sizeof err)
                        : kl_html_chart_svg(out, &runs[0], chart, err, sizeof err)) != 0) {
                fprintf(stderr, "kladder report: %s\n", err);
                rc = EXIT_USAGE;
            }
        } else {
            kl_html_report(out, runs, nfiles);
        }
        int io = close_output(&file, rc == 0); /* a failed chart writes nothing */
        if (!rc)
            rc = io;
    }
    for (int i = 0; i < loaded; i++)
        kl_run_free(&runs[i]);
    free(runs);
    free(files);
    return rc;
}

int kl_cli_report_run(const struct kl_report *rep, FILE *html, const char *path)
{
    /* The run's own JSON, read back: one path from a run to its page. */
    FILE *tmp = tmpfile();
    char *text = NULL, err[1024];
    long len = 0;
    int rc = EXIT_OK;
    if (!tmp) {
        fprintf(stderr, "kladder: cannot write the report %s: no temporary file: %s\n", path,
                strerror(errno));
        return EXIT_RUNTIME;
    }
    kl_report_json(rep, tmp);
    if (fflush(tmp) != 0 || ferror(tmp) || (len = ftell(tmp)) < 0 || fseek(tmp, 0, SEEK_SET) != 0 ||
        !(text = malloc((size_t)len + 1)) || fread(text, 1, (size_t)len, tmp) != (size_t)len) {
        fprintf(stderr, "kladder: cannot write the report %s: the temporary file failed\n", path);
        fclose(tmp);
        free(text);
        return EXIT_RUNTIME;
    }
    fclose(tmp);
    struct kl_run run;
    if (kl_run_parse(&run, text, (size_t)len, "this run", err, sizeof err) != 0) {
        /* Our own JSON not read back is a bug; say so plainly. */
        fprintf(stderr, "kladder: internal error: the run's JSON does not read back: %s\n", err);
        rc = EXIT_RUNTIME;
    } else {
        kl_html_report(html, &run, 1);
        if (fflush(html) != 0 || ferror(html)) {
            fprintf(stderr, "kladder: writing %s failed: %s\n", path, strerror(errno));
            rc = EXIT_RUNTIME;
        }
    }
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
