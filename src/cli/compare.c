/*
 * kladder compare OLD.json NEW.json: the same ladder measured twice (before
 * and after a change, on two drivers, ...), rung by rung. Either side may be
 * a comma-separated list of repeated runs: their launch times are pooled and
 * the interval resamples the runs too, so it holds how runs differ.
 *
 * For each rung: the ratio of the medians (new/old time) and its 95 %
 * bootstrap interval from both runs' launch times (core/shift.h), each run
 * of a row measured with --runs a run of its own: "same" where it lies
 * within ±1 %, else "slower" or "faster" where the interval excludes 1,
 * "undecided" where it holds 1 but reaches further. Where a side has one run,
 * slower or faster needs the interval beyond the device's run-to-run spread
 * for rows of that kind (the ceilings' figure, kl_shift_judge_runs), else it
 * is undecided, saying why. Where both rows say their clocks, the interval in
 * cycles is judged too, so a change the clock explains shows: from every
 * launch's time by the clock read after it where both kept those, else the
 * time interval scaled by the mean clocks; where the clocks moved by 2 % or
 * more and the time calls a row faster or slower that its cycles do not, the
 * verdict is the one in cycles. Rows are paired by rung, config and
 * occurrence; a rung with one row in each run is paired whatever the configs
 * (a preset or parameter changed between the runs), the table saying both.
 * Runs that kept no launch times (older files) fall back to the ranges:
 * beyond noise where the ranges from the fastest to the slowest launch do
 * not overlap. With --fail-on-regression PCT a rung regressed when its whole
 * interval lies more than PCT % above 1 (by the ranges: its fastest new
 * launch is more than PCT % slower than the slowest old one), or when it
 * verified before and fails now; the exit code is then 1. Runs of different
 * workloads, parameters or devices are refused unless --force is given,
 * which says what differs.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/exit.h"
#include "cli/report_cmd.h"
#include "core/shift.h"
#include "report/run.h"

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

/* The parameters but the seed (sizes, type, sweep, picture): a difference refuses the pair. */
static void param_differences(const struct kl_run *a, const struct kl_run *b, char *refuse,
                              size_t rn, char *notes, size_t nn)
{
    char t[600], x[128], y[128];
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
}

/* A fact of a run as text: runs that differ in it are refused, or merely noted. */
struct fact {
    size_t field; /* offsetof(struct kl_run, ...): a const char * */
    const char *format;
    int refuse;
};

#define FACT(f) offsetof(struct kl_run, f)
static const struct fact workload_fact = {FACT(workload), "workload %.60s vs %.60s", 1};
static const struct fact machine_facts[] = {
    {FACT(dev_name), "device \"%.120s\" vs \"%.120s\"", 1},
    {FACT(driver), "driver %.100s vs %.100s", 0},
    {FACT(backend), "backend %.60s vs %.60s", 0},
    {FACT(version), "kladder %.40s vs %.40s", 0},
};

static void fact_difference(const struct fact *f, const struct kl_run *a, const struct kl_run *b,
                            char *refuse, size_t rn, char *notes, size_t nn)
{
    const char *x = *(const char *const *)(const void *)((const char *)a + f->field);
    const char *y = *(const char *const *)(const void *)((const char *)b + f->field);
    char t[600];
    if (strcmp(x, y) == 0)
        return;
    snprintf(t, sizeof t, f->format, x, y);
    add(f->refuse ? refuse : notes, f->refuse ? rn : nn, t);
}

/* What makes two runs incomparable (into refuse), and what merely differs (into notes):
 * the workload, the parameters, then the machine. */
static void differences(const struct kl_run *a, const struct kl_run *b, char *refuse, size_t rn,
                        char *notes, size_t nn)
{
    fact_difference(&workload_fact, a, b, refuse, rn, notes, nn);
    param_differences(a, b, refuse, rn, notes, nn);
    for (size_t k = 0; k < sizeof machine_facts / sizeof *machine_facts; k++)
        fact_difference(&machine_facts[k], a, b, refuse, rn, notes, nn);
}

/* The rows of run named rung, and the last of them (NULL where none). */
static int rung_rows(const struct kl_run *run, const char *rung, const struct kl_run_row **last)
{
    int count = 0;
    for (int i = 0; i < run->nrows; i++)
        if (strcmp(run->rows[i].rung, rung) == 0)
            count++, *last = &run->rows[i];
    return count;
}

/*
 * The k-th row (from 0) of run with this rung and config; else, where sole (like is the only
 * row of its rung in its own run), the one row of that rung in run whatever its config (a
 * preset or parameter that changed between the runs); else NULL.
 */
static const struct kl_run_row *find(const struct kl_run *run, const struct kl_run_row *like, int k,
                                     int sole)
{
    const struct kl_run_row *only = NULL;
    for (int i = 0; i < run->nrows; i++) {
        const struct kl_run_row *r = &run->rows[i];
        if (strcmp(r->rung, like->rung) == 0 && strcmp(r->config, like->config) == 0 && k-- == 0)
            return r;
    }
    return sole && rung_rows(run, like->rung, &only) == 1 ? only : NULL;
}

/* 1 where row i of run is the only row of its rung there. */
static int sole_row(const struct kl_run *run, int i)
{
    const struct kl_run_row *last = NULL;
    return rung_rows(run, run->rows[i].rung, &last) == 1;
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
    int compared, faster, slower, same, undecided, regressions, lost, only, other, neither;
    char regressed[512];
};

/* Each side of a comparison: its runs, the first the one shown, the others adding their
 * launch times to the interval (OLD[,OLD...] NEW[,NEW...]). */
#define MAX_SIDE_RUNS 16
struct side {
    struct kl_run runs[MAX_SIDE_RUNS];
    int count;
};

/*
 * The interval of new/old for the row like (its k-th occurrence) from every run of both
 * sides (each file's, and each of a row's --runs), in time or in cycles; *runs gets each
 * side's count of runs. 0, or -1 where a run lacks the row, did not time it or kept too few
 * launch times (or clocks).
 */
#define MAX_SETS (MAX_SIDE_RUNS * KL_MAX_RUNS)
static int interval_of(const struct side sides[2], const struct kl_run_row *like, int k, int sole,
                       int cycles, struct kl_shift *s, int runs[2])
{
    static struct kl_sample_set sets[2][MAX_SETS];
    static double *x[2][MAX_SETS];
    int rc = 0;
    for (int j = 0; j < 2; j++) {
        runs[j] = 0;
        for (int r = 0; r < sides[j].count && rc == 0; r++) {
            const struct kl_run_row *row = find(&sides[j].runs[r], like, k, sole);
            int nr = row && row->timed ? kl_run_row_runs(row) : 0;
            rc |= nr ? 0 : -1;
            for (int q = 0; q < nr && runs[j] < MAX_SETS; q++, runs[j]++) {
                double *v = kl_run_row_run_samples(row, q, cycles, &sets[j][runs[j]].n);
                x[j][runs[j]] = v;
                sets[j][runs[j]].x = v;
                rc |= v ? 0 : -1;
            }
        }
    }
    if (rc == 0)
        rc = kl_shift_estimate_runs(sets[0], runs[0], sets[1], runs[1], s);
    for (int j = 0; j < 2; j++)
        for (int r = 0; r < runs[j]; r++)
            free(x[j][r]), x[j][r] = NULL;
    return rc;
}

/* The device's run-to-run spread for rows like r (%), from either side's ceilings; 0 unknown. */
static double spread_of(const struct side sides[2], const struct kl_run_row *r)
{
    double most = 0;
    for (int j = 0; j < 2; j++) {
        const struct kl_run *run = &sides[j].runs[0];
        double v = !run->have_ceil ? 0
                   : r->tensor     ? run->ceil.spread_tensor_pct
                   : r->flops > 0  ? run->ceil.spread_fma_pct
                                   : run->ceil.spread_memory_pct;
        most = v > most ? v : most;
    }
    return most;
}

/*
 * What the clocks say: the verdict in cycles where it differs from the one in time. s[0] is
 * the interval in time, s[1] the one in cycles from every launch (ratio 0: none; then the
 * time's, scaled by the mean clocks).
 */
/* The interval in cycles into *c: s[1], else s[0] scaled by the mean clocks; 0 where neither. */
static int cycles_interval(const struct kl_run_row *o, const struct kl_run_row *n,
                           const struct kl_shift *s, struct kl_shift *c)
{
    if (!(o->sm_mhz > 0) || !(n->sm_mhz > 0))
        return 0;
    double f = n->sm_mhz / o->sm_mhz;
    *c = s[1].ratio > 0 ? s[1] : (struct kl_shift){s->ratio * f, s->lo * f, s->hi * f, 0, 0};
    return 1;
}

static void cycles_note(const struct kl_run_row *o, const struct kl_run_row *n,
                        const struct kl_shift *s, enum kl_shift_verdict v, char *out, size_t on)
{
    struct kl_shift c;
    out[0] = 0;
    if (!cycles_interval(o, n, s, &c))
        return;
    enum kl_shift_verdict cv = kl_shift_judge(&c, KL_SHIFT_SAME_MARGIN);
    if (cv != v)
        snprintf(out, on, "; in cycles %s (%.0f → %.0f MHz)", kl_shift_verdict_name(cv), o->sm_mhz,
                 n->sm_mhz);
}

/* What a judged row needs beside its interval: each side's runs and the device's spread. */
struct judged {
    int runs[2];
    double spread_pct;
};

/* " [power-capped: old at 1470 MHz, new not (1755 MHz)]" where either row was; "". */
static void capped_note(const struct kl_run_row *o, const struct kl_run_row *n, char *out,
                        size_t on)
{
    out[0] = '\0';
    if (o->capped || n->capped)
        snprintf(out, on, " [power-capped: old %s %.0f MHz, new %s %.0f MHz]",
                 o->capped ? "at" : "not, at", o->sm_mhz, n->capped ? "at" : "not, at", n->sm_mhz);
}

/*
 * The verdict from the interval of new/old (st[0] in time, st[1] in cycles, ratio 0: none),
 * counted in t; held back to undecided where a side of one run cannot tell the change from
 * the device's run-to-run spread. Where the clock moved between the runs and the time calls
 * a row faster or slower that its cycles do not, the clock explains the change: the verdict
 * is the one in cycles (slower against faster: undecided), and says so. The cycles only take
 * a verdict away: under a power cap the clock read after a launch is not the clock it ran
 * at, and an unchanged time at a clock read lower is no change.
 */
static void interval_verdict(const struct kl_run_row *o, const struct kl_run_row *n,
                             const struct kl_shift *st, const struct judged *jd, double pct,
                             const char *name, struct tally *t, char *verdict, size_t vn)
{
    struct kl_shift in_cycles;
    const struct kl_shift *s = &st[0];
    char ci[64], cycles[96], why[256], cwhy[256], capped[128], basis[128] = "";
    enum kl_shift_verdict v = kl_shift_judge_runs(s, KL_SHIFT_SAME_MARGIN, jd->runs[0], jd->runs[1],
                                                  jd->spread_pct, why, sizeof why);
    if ((v == KL_SHIFT_SLOWER || v == KL_SHIFT_FASTER) &&
        kl_shift_in_cycles(o->sm_mhz, n->sm_mhz) && cycles_interval(o, n, st, &in_cycles)) {
        enum kl_shift_verdict vc = kl_shift_judge_runs(&in_cycles, KL_SHIFT_SAME_MARGIN,
                                                       jd->runs[0], jd->runs[1], jd->spread_pct,
                                                       cwhy, sizeof cwhy);
        if (vc != v) {
            v = vc == KL_SHIFT_SLOWER || vc == KL_SHIFT_FASTER ? KL_SHIFT_UNDECIDED : vc;
            s = &in_cycles;
            snprintf(why, sizeof why, "%s", cwhy);
            snprintf(basis, sizeof basis, " in cycles: the clock moved %.0f → %.0f MHz",
                     o->sm_mhz, n->sm_mhz);
        }
    }
    snprintf(ci, sizeof ci, "95%% CI %+.1f%% to %+.1f%%", (s->lo - 1) * 100, (s->hi - 1) * 100);
    if (basis[0])
        cycles[0] = '\0';
    else
        cycles_note(o, n, st, v, cycles, sizeof cycles);
    capped_note(o, n, capped, sizeof capped);
    int regressed = v == KL_SHIFT_SLOWER && pct >= 0 && s->lo > 1 + pct / 100;
    if (regressed) {
        char item[300];
        snprintf(item, sizeof item, "%s (%d run%s old, %d new%s)", name, jd->runs[0],
                 jd->runs[0] == 1 ? "" : "s", jd->runs[1],
                 o->capped || n->capped ? ", power-capped" : "");
        t->regressions++;
        add(t->regressed, sizeof t->regressed, item);
    }
    t->slower += v == KL_SHIFT_SLOWER;
    t->faster += v == KL_SHIFT_FASTER;
    t->same += v == KL_SHIFT_SAME;
    t->undecided += v == KL_SHIFT_UNDECIDED;
    snprintf(verdict, vn, "%s%s (%s%s)%s%s%s%s", regressed ? "REGRESSION: " : "",
             kl_shift_verdict_name(v), ci, basis, why[0] ? ": " : "", why, cycles, capped);
}

/* The verdict on a rung timed in both runs (s: its intervals, or NULL), counted in t. */
static void timed_verdict(const struct kl_run_row *o, const struct kl_run_row *n,
                          const struct kl_shift *s, const struct judged *jd, double pct,
                          const char *name, struct tally *t, char *verdict, size_t vn)
{
    t->compared++;
    if (s) {
        interval_verdict(o, n, s, jd, pct, name, t, verdict, vn);
    } else if (n->min_s > o->max_s) {
        double beyond = (n->min_s / o->max_s - 1) * 100;
        t->slower++;
        if (pct >= 0 && beyond > pct) {
            t->regressions++;
            add(t->regressed, sizeof t->regressed, name);
            snprintf(verdict, vn, "REGRESSION: slower beyond noise by %.1f%%", beyond);
        } else {
            snprintf(verdict, vn, "slower beyond noise (by %.1f%%)", beyond);
        }
    } else if (n->max_s < o->min_s) {
        t->faster++;
        snprintf(verdict, vn, "faster beyond noise (by %.1f%%)", (1 - n->max_s / o->min_s) * 100);
    } else {
        t->undecided++;
        snprintf(verdict, vn, "within noise");
    }
}

/*
 * A rung timed in both: the medians (of each side's runs pooled, where an interval was
 * drawn), their ratio, the shown runs' ranges and the verdict.
 */
static void timed_line(const struct kl_run_row *o, const struct kl_run_row *n,
                       const struct kl_shift *s, const struct judged *jd, double pct,
                       const char *name, struct tally *t)
{
    char verdict[768], ro[48], rn[48];
    double mo = s ? s->median_a : o->median_s, mn = s ? s->median_b : n->median_s;
    snprintf(ro, sizeof ro, "%.4g–%.4g", o->min_s * 1e3, o->max_s * 1e3);
    snprintf(rn, sizeof rn, "%.4g–%.4g", n->min_s * 1e3, n->max_s * 1e3);
    timed_verdict(o, n, s, jd, pct, name, t, verdict, sizeof verdict);
    printf(" %10.4g %10.4g %8.3f %+7.1f%%  %-23s %-23s  %s\n", mo * 1e3, mn * 1e3, mn / mo,
           (mn / mo - 1) * 100, ro, rn, verdict);
}

/* A rung the gate (pct >= 0) counts as lost: timed in the old run, not in the new (o, n). */
static int lost(const struct kl_run_row *o, const struct kl_run_row *n, double pct,
                const char *name, struct tally *t)
{
    if (!(pct >= 0) || !o->timed || (n && n->timed))
        return 0;
    t->regressions++;
    t->lost++;
    add(t->regressed, sizeof t->regressed, name);
    return 1;
}

/* A rung timed in one run or neither: the statuses; timed before and failed or skipped now is
 * lost. */
static void status_line(const struct kl_run_row *o, const struct kl_run_row *n, double pct,
                        const char *name, struct tally *t)
{
    char verdict[160];
    int was_lost = lost(o, n, pct, name, t);
    if (o->timed || n->timed)
        t->other++;
    else
        t->neither++; /* skipped (or failed) in both: nothing to compare, and nothing lost */
    snprintf(verdict, sizeof verdict, "%s%s, was %s", was_lost ? "REGRESSION: " : "", n->status,
             o->status);
    char om[32] = "–", nm[32] = "–";
    if (o->timed)
        snprintf(om, sizeof om, "%.4g", o->median_s * 1e3);
    if (n->timed)
        snprintf(nm, sizeof nm, "%.4g", n->median_s * 1e3);
    /* (– is three bytes and one column: widths are in bytes) */
    printf(" %*s %*s %8s %8s  %-23s %-23s  %s\n", o->timed ? 10 : 12, om, n->timed ? 10 : 12, nm,
           "", "", "", "", verdict);
}

/* One line: old and new (s: the intervals of a rung timed in both, or NULL), or one missing. */
static void line(const struct kl_run_row *o, const struct kl_run_row *n, const struct kl_shift *s,
                 const struct judged *jd, double pct, struct tally *t)
{
    char name[200];
    name_cell(o ? o : n, name, sizeof name);
    printf("%-24s", name);
    if (!o || !n) {
        int was_lost = o && lost(o, NULL, pct, name, t);
        printf(" %10s %10s %8s %8s  %-23s %-23s  %sonly in %s\n", "", "", "", "", "", "",
               was_lost ? "REGRESSION: " : "", o ? "old" : "new");
        t->only++;
    } else if (o->timed && n->timed) {
        timed_line(o, n, s, jd, pct, name, t);
    } else {
        status_line(o, n, pct, name, t);
    }
    if (o && n && strcmp(o->config, n->config) != 0)
        printf("%-24s (the configs differ: old %s, new %s)\n", "",
               o->config[0] ? o->config : "the rung's defaults",
               n->config[0] ? n->config : "the rung's defaults");
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of n values (sorted in place). */
static double median_of(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * 1 where a ladder row's median is not the median of its launch times (of its runs' medians,
 * where it has runs): the file was changed after the run, and compare, which judges the
 * launch times, would judge something other than the figure it shows.
 */
static int median_contradicts(const struct kl_run_row *r)
{
    double meds[KL_MAX_RUNS];
    int runs = kl_run_row_runs(r), got = 0;
    for (int k = 0; r->timed && k < runs && k < KL_MAX_RUNS; k++) {
        int n;
        double *x = kl_run_row_run_samples(r, k, 0, &n);
        if (x && n >= 1)
            meds[got++] = median_of(x, n);
        free(x);
    }
    if (got < runs)
        return 0; /* no launch times kept to tell */
    double m = median_of(meds, got);
    return fabs(m - r->median_s) > 1e-4 * m;
}

static void free_sides(struct side sides[2])
{
    for (int j = 0; j < 2; j++)
        for (int r = 0; r < sides[j].count; r++)
            kl_run_free(&sides[j].runs[r]);
}

/*
 * The runs of the operands, each a file or a comma-separated list of them (runs of the same
 * ladder, repeated); 0, or EXIT_USAGE having said why.
 */
static int load_sides(const struct cli *c, struct side sides[2])
{
    char err[1024], path[4096];
    memset(sides, 0, 2 * sizeof *sides);
    for (int j = 0; j < 2; j++)
        for (const char *p = c->operands[j]; p;) {
            size_t len = strcspn(p, ",");
            if (len == 0 || len >= sizeof path || sides[j].count == MAX_SIDE_RUNS) {
                fprintf(stderr, "kladder compare: \"%.200s\": %s\n", c->operands[j],
                        len == 0             ? "an empty file name in the list"
                        : len >= sizeof path ? "a file name too long"
                                             : "more than 16 runs a side");
                free_sides(sides);
                return EXIT_USAGE;
            }
            memcpy(path, p, len);
            path[len] = 0;
            if (kl_run_load(&sides[j].runs[sides[j].count], path, err, sizeof err) != 0) {
                fprintf(stderr, "kladder compare: %s\n", err);
                free_sides(sides);
                return EXIT_USAGE;
            }
            const struct kl_run *run = &sides[j].runs[sides[j].count];
            for (int r = 0; strcmp(run->workload, "peak") != 0 && r < run->nrows; r++)
                if (median_contradicts(&run->rows[r])) {
                    fprintf(stderr,
                            "kladder compare: %s: row %s's median (%.4g ms) is not the median "
                            "of its launch times: the file was changed after the run\n",
                            path, run->rows[r].rung, run->rows[r].median_s * 1e3);
                    sides[j].count++;
                    free_sides(sides);
                    return EXIT_USAGE;
                }
            kl_run_find_ceilings(&sides[j].runs[sides[j].count]); /* its run-to-run spreads */
            sides[j].count++;
            p = p[len] == ',' ? p + len + 1 : NULL;
        }
    return EXIT_OK;
}

/* What makes the runs incomparable: old against new, and each repeat against its side's first. */
static void all_differences(const struct side sides[2], char *refuse, size_t rn, char *notes,
                            size_t nn)
{
    char ignored[1024];
    differences(&sides[0].runs[0], &sides[1].runs[0], refuse, rn, notes, nn);
    for (int j = 0; j < 2; j++)
        for (int r = 1; r < sides[j].count; r++)
            differences(&sides[j].runs[0], &sides[j].runs[r], refuse, rn, ignored, sizeof ignored);
}

static void print_side(const char *label, const struct side *s)
{
    const struct kl_run *r = &s->runs[0];
    int runs = 1;
    for (int i = 0; i < r->nrows; i++)
        runs = kl_run_row_runs(&r->rows[i]) > runs ? kl_run_row_runs(&r->rows[i]) : runs;
    printf("%s: %s (%s, driver %s; %d run%s a row)", label, r->name, r->date, r->driver, runs,
           runs == 1 ? "" : "s");
    if (s->count > 1)
        printf(" and %d more file%s, their runs pooled", s->count - 1, s->count == 2 ? "" : "s");
    printf("\n");
}

/* The heading: the ladder, both sides, what differs. */
static void print_head(const struct side sides[2], const char *refuse, const char *notes)
{
    char params[300];
    const struct kl_run *o = &sides[0].runs[0];
    kl_run_params_text(o, params, sizeof params);
    printf("kladder compare  %s  %s  on %s\n", o->workload, params, o->dev_name);
    print_side("old", &sides[0]);
    print_side("new", &sides[1]);
    if (refuse[0])
        printf("forced: the runs differ: %s\n", refuse);
    if (notes[0])
        printf("note: %s\n", notes);
    printf("\n%-24s %10s %10s %8s %8s  %-23s %-23s  %s\n", "rung", "old ms", "new ms", "new/old",
           "change", "old min–max ms", "new min–max ms", "verdict");
}

/*
 * Every rung of either side's first run, matched by name, configuration and occurrence (or
 * by name alone where it has one row a side: find); a rung timed in both judged by the
 * interval over every run of both sides where they all kept launch times.
 */
static void print_rows(const struct side sides[2], double pct, struct tally *t)
{
    const struct kl_run *o = &sides[0].runs[0], *n = &sides[1].runs[0];
    for (int i = 0; i < o->nrows; i++) {
        int k = occurrence(o, i), sole = sole_row(o, i);
        const struct kl_run_row *row = &o->rows[i], *other = find(n, row, k, sole);
        struct kl_shift s[2] = {{0}}; /* in time, and in cycles where the launches' clocks are */
        struct judged jd = {{0, 0}, spread_of(sides, row)};
        int cruns[2];
        int has = other && row->timed && other->timed &&
                  interval_of(sides, row, k, sole, 0, s, jd.runs) == 0;
        if (has && interval_of(sides, row, k, sole, 1, &s[1], cruns) != 0)
            s[1].ratio = 0;
        line(row, other, has ? s : NULL, &jd, pct, t);
    }
    for (int i = 0; i < n->nrows; i++)
        if (!find(o, &n->rows[i], occurrence(n, i), sole_row(n, i)))
            line(NULL, &n->rows[i], NULL, NULL, pct, t);
}

/* The counts, and with --fail-on-regression the verdict; the exit code. */
static int print_summary(const struct tally *t, double pct)
{
    printf("\nnew/old: ratio of median times (below 1: faster). Verdict: from the 95%% bootstrap "
           "interval of that ratio over both sides' launch times (and their runs, where a side "
           "has several), same where it lies within %g%% of 1, else slower or faster where it "
           "excludes 1, undecided otherwise; with one run a side, slower or faster only beyond "
           "the device's run-to-run spread for such rows (kladder peak measures it); in cycles "
           "too where both give clocks, and where the clock moved by %g%% or more a change in "
           "time that the cycles do not show is the clock's, not the rung's. Where a run kept no "
           "launch times, beyond noise: the ranges of launch times do not overlap.\n",
           KL_SHIFT_SAME_MARGIN * 100, KL_SHIFT_CLOCK_MOVED * 100);
    printf("%d rung%s timed in both: %d faster, %d slower, %d same, %d undecided", t->compared,
           t->compared == 1 ? "" : "s", t->faster, t->slower, t->same, t->undecided);
    if (t->only)
        printf("; %d in one run only", t->only);
    if (t->other)
        printf("; %d timed in one of them only", t->other);
    if (t->neither)
        printf("; %d timed in neither", t->neither);
    printf(".\n");
    if (pct < 0)
        return EXIT_OK;
    if (!t->regressions) {
        printf("ok: no rung slowed beyond noise by more than %g%%\n", pct);
        return EXIT_OK;
    }
    printf("FAIL: %d regression%s beyond noise by more than %g%%%s: %s\n", t->regressions,
           t->regressions == 1 ? "" : "s", pct,
           t->lost ? " or lost (failed, skipped or gone in the new run)" : "", t->regressed);
    return EXIT_REGRESSION;
}

int kl_cli_compare(const struct cli *c)
{
    static struct side sides[2];
    char refuse[1024] = "", notes[1024] = "";
    int rc = load_sides(c, sides);
    if (rc)
        return rc;
    all_differences(sides, refuse, sizeof refuse, notes, sizeof notes);
    if (refuse[0] && !c->force) {
        fprintf(stderr,
                "kladder compare: %s and %s are not runs of the same ladder: %s.\n"
                "(--force compares them anyway)\n",
                c->operands[0], c->operands[1], refuse);
        rc = EXIT_USAGE;
    } else {
        struct tally t;
        memset(&t, 0, sizeof t);
        print_head(sides, refuse, notes);
        print_rows(sides, c->fail_pct, &t);
        rc = print_summary(&t, c->fail_pct);
        if (fflush(stdout) != 0 || ferror(stdout))
            rc = EXIT_RUNTIME;
    }
    free_sides(sides);
    return rc;
}
