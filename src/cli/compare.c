/*
 * kladder compare OLD.json NEW.json: the same ladder measured twice (before
 * and after a change, on two drivers, ...), rung by rung.
 *
 * For each rung: the ratio of the medians (new/old time) and whether the
 * difference is beyond noise, i.e. beyond the spread of both runs: the
 * ranges from the fastest to the slowest timed launch do not overlap. With
 * --fail-on-regression PCT a rung regressed when even its fastest new launch
 * is more than PCT % slower than the slowest old one (slower beyond noise by
 * more than PCT), or when it verified before and fails now; the exit code is
 * then 1. Runs of different workloads, parameters or devices are refused
 * unless --force is given, which says what differs.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/exit.h"
#include "cli/report_cmd.h"
#include "report/run.h"

static const char compare_usage[] =
    "usage: kladder compare OLD.json NEW.json [--fail-on-regression PCT] [--force]\n"
    "\n"
    "Compares two runs of the same ladder rung by rung: the ratio of median times (new/old)\n"
    "and whether the difference is beyond the measured spread of both runs (their ranges\n"
    "from fastest to slowest timed launch do not overlap).\n"
    "\n"
    "  --fail-on-regression PCT  exit 1 when a rung slowed by more than PCT % beyond noise\n"
    "                            (its fastest new launch is more than PCT % slower than the\n"
    "                            slowest old one), or verified before and fails now\n"
    "  --force                   compare runs of different workloads, parameters or devices,\n"
    "                            saying what differs (they are refused otherwise)\n";

static int usage_error(const char *msg)
{
    fprintf(stderr, "kladder compare: %s\n(kladder compare --help lists the options)\n", msg);
    return EXIT_USAGE;
}

/* Appends "; text" to a list of differences. */
static void add(char *list, size_t n, const char *text)
{
    size_t used = strlen(list);
    if (used + 1 < n)
        snprintf(list + used, n - used, "%s%s", used ? "; " : "", text);
}

static void value_text(const struct kl_json *v, char *out, size_t n)
{
    if (!v)
        snprintf(out, n, "(none)");
    else if (v->type == KL_JSON_NUMBER)
        snprintf(out, n, "%.10g", v->number);
    else if (v->type == KL_JSON_STRING)
        snprintf(out, n, "%.100s", v->string);
    else if (v->type == KL_JSON_BOOL)
        snprintf(out, n, "%s", v->boolean ? "true" : "false");
    else
        snprintf(out, n, "%s", kl_json_type_name(v->type));
}

static int same_value(const struct kl_json *a, const struct kl_json *b)
{
    if (!a || !b || a->type != b->type)
        return 0;
    switch (a->type) {
    case KL_JSON_NUMBER: return a->number == b->number;
    case KL_JSON_STRING: return strcmp(a->string, b->string) == 0;
    case KL_JSON_BOOL: return a->boolean == b->boolean;
    case KL_JSON_NULL: return 1;
    default: return 0; /* params hold scalars */
    }
}

/* What makes two runs incomparable (into refuse), and what merely differs (into notes). */
static void differences(const struct kl_run *a, const struct kl_run *b, char *refuse, size_t rn,
                        char *notes, size_t nn)
{
    char t[600], x[128], y[128];
    if (strcmp(a->workload, b->workload) != 0) {
        snprintf(t, sizeof t, "workload %.60s vs %.60s", a->workload, b->workload);
        add(refuse, rn, t);
    }
    /* Every parameter but the seed: sizes, type, sweep, picture. */
    for (int pass = 0; pass < 2; pass++) {
        const struct kl_run *p = pass ? b : a, *q = pass ? a : b;
        for (int i = 0; i < p->params->count; i++) {
            const char *key = p->params->keys[i];
            const struct kl_json *u = p->params->items[i], *v = kl_json_get(q->params, key);
            if ((pass && v) || same_value(u, v))
                continue; /* (keys in both were compared in the first pass) */
            value_text(pass ? v : u, x, sizeof x);
            value_text(pass ? u : v, y, sizeof y);
            snprintf(t, sizeof t, "%s %s vs %s", key, x, y);
            add(strcmp(key, "seed") == 0 ? notes : refuse, strcmp(key, "seed") == 0 ? nn : rn, t);
        }
    }
    if (strcmp(a->dev_name, b->dev_name) != 0) {
        snprintf(t, sizeof t, "device \"%.120s\" vs \"%.120s\"", a->dev_name, b->dev_name);
        add(refuse, rn, t);
    }
    if (strcmp(a->driver, b->driver) != 0) {
        snprintf(t, sizeof t, "driver %.100s vs %.100s", a->driver, b->driver);
        add(notes, nn, t);
    }
    if (strcmp(a->backend, b->backend) != 0) {
        snprintf(t, sizeof t, "backend %.60s vs %.60s", a->backend, b->backend);
        add(notes, nn, t);
    }
    if (strcmp(a->version, b->version) != 0) {
        snprintf(t, sizeof t, "kladder %.40s vs %.40s", a->version, b->version);
        add(notes, nn, t);
    }
}

/* The k-th row (from 0) of run with this rung and config, or NULL. */
static const struct kl_run_row *find(const struct kl_run *run, const struct kl_run_row *like, int k)
{
    for (int i = 0; i < run->nrows; i++) {
        const struct kl_run_row *r = &run->rows[i];
        if (strcmp(r->rung, like->rung) == 0 && strcmp(r->config, like->config) == 0 && k-- == 0)
            return r;
    }
    return NULL;
}

static int occurrence(const struct kl_run *run, int index)
{
    int k = 0;
    const struct kl_run_row *like = &run->rows[index];
    for (int i = 0; i < index; i++)
        k += strcmp(run->rows[i].rung, like->rung) == 0 &&
             strcmp(run->rows[i].config, like->config) == 0;
    return k;
}

static void name_cell(const struct kl_run_row *r, char *out, size_t n)
{
    if (r->config[0])
        snprintf(out, n, "%s %s", r->rung, r->config);
    else
        snprintf(out, n, "%s", r->rung);
}

struct tally {
    int compared, faster, slower, same, regressions, only, other, neither;
    char regressed[512];
};

/* One line: old and new, or one of them missing. */
static void line(const struct kl_run_row *o, const struct kl_run_row *n, double pct,
                 struct tally *t)
{
    char name[200], verdict[160];
    const struct kl_run_row *any = o ? o : n;
    name_cell(any, name, sizeof name);
    printf("%-24s", name);
    if (!o || !n) {
        printf(" %10s %10s %8s %8s  %-23s %-23s  only in %s\n", "", "", "", "", "", "",
               o ? "old" : "new");
        t->only++;
        return;
    }
    if (o->timed && n->timed) {
        double ratio = n->median_s / o->median_s;
        char ro[48], rn[48];
        snprintf(ro, sizeof ro, "%.4g–%.4g", o->min_s * 1e3, o->max_s * 1e3);
        snprintf(rn, sizeof rn, "%.4g–%.4g", n->min_s * 1e3, n->max_s * 1e3);
        t->compared++;
        if (n->min_s > o->max_s) {
            double beyond = (n->min_s / o->max_s - 1) * 100;
            t->slower++;
            if (pct >= 0 && beyond > pct) {
                t->regressions++;
                add(t->regressed, sizeof t->regressed, name);
                snprintf(verdict, sizeof verdict, "REGRESSION: slower beyond noise by %.1f%%",
                         beyond);
            } else {
                snprintf(verdict, sizeof verdict, "slower beyond noise (by %.1f%%)", beyond);
            }
        } else if (n->max_s < o->min_s) {
            t->faster++;
            snprintf(verdict, sizeof verdict, "faster beyond noise (by %.1f%%)",
                     (1 - n->max_s / o->min_s) * 100);
        } else {
            t->same++;
            snprintf(verdict, sizeof verdict, "within noise");
        }
        printf(" %10.4g %10.4g %8.3f %+7.1f%%  %-23s %-23s  %s\n", o->median_s * 1e3,
               n->median_s * 1e3, ratio, (ratio - 1) * 100, ro, rn, verdict);
        return;
    }
    int lost = o->timed && strcmp(n->status, "failed") == 0;
    if (lost && pct >= 0) {
        t->regressions++;
        add(t->regressed, sizeof t->regressed, name);
    }
    if (o->timed || n->timed)
        t->other++;
    else
        t->neither++; /* skipped (or failed) in both: nothing to compare, and nothing lost */
    snprintf(verdict, sizeof verdict, "%s%s, was %s", lost && pct >= 0 ? "REGRESSION: " : "",
             n->status, o->status);
    char om[32] = "–", nm[32] = "–";
    if (o->timed)
        snprintf(om, sizeof om, "%.4g", o->median_s * 1e3);
    if (n->timed)
        snprintf(nm, sizeof nm, "%.4g", n->median_s * 1e3);
    /* (– is three bytes and one column: widths are in bytes) */
    printf(" %*s %*s %8s %8s  %-23s %-23s  %s\n", o->timed ? 10 : 12, om, n->timed ? 10 : 12, nm,
           "", "", "", "", verdict);
}

int kl_cli_compare(int argc, char **argv)
{
    const char *files[2];
    int nfiles = 0, force = 0;
    double pct = -1;
    char msg[512];
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(compare_usage, stdout);
            return EXIT_OK;
        }
        if (strcmp(a, "--force") == 0) {
            force = 1;
        } else if (strncmp(a, "--fail-on-regression", 20) == 0 && (a[20] == '\0' || a[20] == '=')) {
            const char *v = a[20] == '=' ? a + 21 : i + 1 < argc ? argv[++i] : NULL;
            char *end;
            if (!v)
                return usage_error("--fail-on-regression needs a percentage, e.g. 10");
            pct = strtod(v, &end);
            if (end != v && *end == '%')
                end++;
            if (end == v || *end || !(pct >= 0) || pct > 1e6) {
                snprintf(msg, sizeof msg,
                         "--fail-on-regression: \"%.100s\" is not a percentage (a number >= 0, "
                         "e.g. 10)",
                         v);
                return usage_error(msg);
            }
        } else if (a[0] == '-' && a[1] != '\0') {
            snprintf(msg, sizeof msg, "unknown option \"%.100s\"", a);
            return usage_error(msg);
        } else if (nfiles == 2) {
            return usage_error("give two runs: OLD.json NEW.json");
        } else {
            files[nfiles++] = a;
        }
    }
    if (nfiles != 2)
        return usage_error("give two runs: OLD.json NEW.json");

    struct kl_run runs[2];
    char err[1024];
    memset(runs, 0, sizeof runs);
    for (int k = 0; k < 2; k++)
        if (kl_run_load(&runs[k], files[k], err, sizeof err) != 0) {
            fprintf(stderr, "kladder compare: %s\n", err);
            kl_run_free(&runs[0]);
            kl_run_free(&runs[1]);
            return EXIT_USAGE;
        }
    const struct kl_run *o = &runs[0], *n = &runs[1];
    char refuse[1024] = "", notes[1024] = "", params[300];
    differences(o, n, refuse, sizeof refuse, notes, sizeof notes);
    if (refuse[0] && !force) {
        fprintf(stderr,
                "kladder compare: %s and %s are not runs of the same ladder: %s.\n"
                "(--force compares them anyway)\n",
                files[0], files[1], refuse);
        kl_run_free(&runs[0]);
        kl_run_free(&runs[1]);
        return EXIT_USAGE;
    }
    kl_run_params_text(o, params, sizeof params);
    printf("kladder compare  %s  %s  on %s\n", o->workload, params, o->dev_name);
    printf("old: %s (%s, driver %s)\nnew: %s (%s, driver %s)\n", o->name, o->date, o->driver,
           n->name, n->date, n->driver);
    if (refuse[0])
        printf("forced: the runs differ: %s\n", refuse);
    if (notes[0])
        printf("note: %s\n", notes);
    printf("\n%-24s %10s %10s %8s %8s  %-23s %-23s  %s\n", "rung", "old ms", "new ms", "new/old",
           "change", "old min–max ms", "new min–max ms", "verdict");
    struct tally t;
    memset(&t, 0, sizeof t);
    for (int i = 0; i < o->nrows; i++)
        line(&o->rows[i], find(n, &o->rows[i], occurrence(o, i)), pct, &t);
    for (int i = 0; i < n->nrows; i++)
        if (!find(o, &n->rows[i], occurrence(n, i)))
            line(NULL, &n->rows[i], pct, &t);
    printf("\nnew/old: ratio of median times (below 1: faster). Beyond noise: the two runs' "
           "ranges of launch times do not overlap.\n");
    printf("%d rung%s timed in both: %d faster, %d slower, %d within noise", t.compared,
           t.compared == 1 ? "" : "s", t.faster, t.slower, t.same);
    if (t.only)
        printf("; %d in one run only", t.only);
    if (t.other)
        printf("; %d timed in one of them only", t.other);
    if (t.neither)
        printf("; %d timed in neither", t.neither);
    printf(".\n");
    int rc = EXIT_OK;
    if (pct >= 0) {
        if (t.regressions) {
            printf("FAIL: %d regression%s beyond noise by more than %g%%: %s\n", t.regressions,
                   t.regressions == 1 ? "" : "s", pct, t.regressed);
            rc = EXIT_REGRESSION;
        } else {
            printf("ok: no rung slowed beyond noise by more than %g%%\n", pct);
        }
    }
    if (fflush(stdout) != 0 || ferror(stdout))
        rc = 3;
    kl_run_free(&runs[0]);
    kl_run_free(&runs[1]);
    return rc;
}
