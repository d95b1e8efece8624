#include "fleet/fleet.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "core/shift.h"
#include "core/util.h"
#include "kladder.h"

/* ---- device lists ------------------------------------------------------------ */

int kl_fleet_is_list(const char *spec)
{
    if (!spec)
        return 0;
    size_t n = strlen(spec);
    return strchr(spec, ',') != NULL || strcmp(spec, "all") == 0 ||
           (n > 4 && strcmp(spec + n - 4, ":all") == 0);
}

/* A spec's backend prefix ("cuda", "opencl") into name, and what follows it. */
static const char *split_backend(const char *spec, char *name, size_t n)
{
    static const char *const names[] = {"opencl", "cuda"};
    name[0] = '\0';
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        size_t k = strlen(names[i]);
        if (strncmp(spec, names[i], k) == 0 && (spec[k] == '\0' || spec[k] == ':')) {
            snprintf(name, n, "%s", names[i]);
            return spec + k + (spec[k] == ':');
        }
    }
    return spec;
}

/* The spec kl_open takes for device (p, d) of ops. */
static void canonical(const struct kl_backend_ops *ops, int p, int d, char *out)
{
    if (ops->one_platform)
        snprintf(out, KL_FLEET_SPEC, "%s:%d", ops->name, d);
    else
        snprintf(out, KL_FLEET_SPEC, "%s:%d:%d", ops->name, p, d);
}

/* Every device `all` means on ops: its GPUs, or every device where it has none. */
static enum kl_status every_device(const struct kl_backend_ops *ops, char (*specs)[KL_FLEET_SPEC],
                                   int max, int *n, struct kl_err *e)
{
    for (int pass = 0; pass < 2 && *n == 0; pass++) /* pass 0: GPUs only */
        for (int p = 0; p < ops->platform_count(); p++)
            for (int d = 0; d < ops->device_count(p); d++) {
                struct kl_device_info info;
                if (ops->device_info(p, d, &info, NULL) != KL_OK || (pass == 0 && !info.is_gpu))
                    continue;
                if (*n == max)
                    return kl_fail(e, KL_ERR_ARG, "more than %d devices in one fleet", max);
                canonical(ops, p, d, specs[(*n)++]);
            }
    if (*n > 0)
        return KL_OK;
    char why[512] = "";
    if (ops->unavailable)
        ops->unavailable(why, sizeof why);
    return kl_fail(e, KL_ERR_NO_DEVICE, "no %s device%s%s", ops->name, why[0] ? ": " : "", why);
}

/* 1 when s is a whole decimal number (into *v). */
static int whole_number(const char *s, int *v)
{
    char *end;
    if (!*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 6)
        return 0;
    *v = (int)strtol(s, &end, 10);
    return 1;
}

/* One item of a list on ops: its canonical spec. */
static enum kl_status one_item(const struct kl_backend_ops *ops, const char *item, char *out,
                               struct kl_err *e)
{
    char all[KL_FLEET_MAX][KL_FLEET_SPEC], full[KL_FLEET_SPEC + 16];
    int k, n = 0;
    enum kl_status st;
    if (!ops->one_platform && whole_number(item, &k)) {
        if ((st = every_device(ops, all, KL_FLEET_MAX, &n, e)) != KL_OK)
            return st;
        if (k >= n)
            return kl_fail(e, KL_ERR_NO_DEVICE,
                           "no device %d in the list: `all` is %d device%s here (0 to %d)", k, n,
                           n == 1 ? "" : "s", n - 1);
        snprintf(out, KL_FLEET_SPEC, "%s", all[k]);
        return KL_OK;
    }
    const struct kl_backend_ops *got;
    int p, d;
    snprintf(full, sizeof full, "%s:%s", ops->name, item);
    if ((st = kl_device_select(full, &got, &p, &d, e)) != KL_OK)
        return st;
    canonical(got, p, d, out);
    return KL_OK;
}

enum kl_status kl_fleet_expand(const char *spec, char (*specs)[KL_FLEET_SPEC], int max, int *n,
                               struct kl_err *e)
{
    char name[16], list[1024];
    const struct kl_backend_ops *ops;
    enum kl_status st;
    *n = 0;
    const char *rest = split_backend(spec, name, sizeof name);
    if (!name[0])
        ops = kl_backends[0];
    else if ((st = kl_backend_find(name, &ops, e)) != KL_OK)
        return st;
    if (strcmp(rest, "all") == 0)
        return every_device(ops, specs, max, n, e);
    if (strlen(rest) >= sizeof list)
        return kl_fail(e, KL_ERR_ARG, "the device list is too long");
    snprintf(list, sizeof list, "%s", rest);
    for (char *item = list, *next; item; item = next) {
        next = strchr(item, ',');
        if (next)
            *next++ = '\0';
        if (!*item)
            return kl_fail(e, KL_ERR_ARG, "an empty item in the device list \"%s\"", spec);
        if (*n == max)
            return kl_fail(e, KL_ERR_ARG, "more than %d devices in one fleet", max);
        if ((st = one_item(ops, item, specs[*n], e)) != KL_OK)
            return st;
        for (int j = 0; j < *n; j++)
            if (strcmp(specs[j], specs[*n]) == 0)
                return kl_fail(e, KL_ERR_ARG, "device %s is in the list \"%s\" twice", specs[*n],
                               spec);
        (*n)++;
    }
    return KL_OK;
}

/* ---- the summary ------------------------------------------------------------- */

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The row named rung in run, or NULL. */
static const struct kl_run_row *find_row(const struct kl_run *run, const char *rung)
{
    for (int i = 0; i < run->nrows; i++)
        if (strcmp(run->rows[i].rung, rung) == 0)
            return &run->rows[i];
    return NULL;
}

/* Min, median, max and stragglers of one row over the members' values. */
static void summarise(struct kl_fleet_row *r, int members)
{
    double sorted[KL_FLEET_MAX];
    r->n = 0;
    for (int i = 0; i < members; i++)
        if (isfinite(r->value[i]))
            sorted[r->n++] = r->value[i];
    r->min = r->median = r->max = NAN;
    if (r->n == 0)
        return;
    qsort(sorted, (size_t)r->n, sizeof *sorted, by_value);
    r->min = sorted[0], r->max = sorted[r->n - 1];
    r->median = r->n % 2 ? sorted[r->n / 2] : (sorted[r->n / 2 - 1] + sorted[r->n / 2]) / 2;
    /* Slower than the median by more than the margin: a lower rate, or a longer time. */
    for (int i = 0; i < members; i++)
        r->straggler[i] =
            isfinite(r->value[i]) &&
            (r->metric == KL_METRIC_TIME ? r->value[i] > r->median * (1 + KL_FLEET_STRAGGLER)
                                         : r->value[i] < r->median * (1 - KL_FLEET_STRAGGLER));
}

/* One row per rung any member ran, in the order the members ran them. */
/* Member m's row of rung, or NULL where it has none (or no report). */
static const struct kl_run_row *member_row(const struct kl_fleet *f, int m, const char *rung)
{
    return f->has_run[m] ? find_row(&f->run[m], rung) : NULL;
}

/* 1 when the fleet's summary has a row of rung already. */
static int has_row(const struct kl_fleet *f, const char *rung)
{
    for (int k = 0; k < f->nrows; k++)
        if (strcmp(f->rows[k].rung, rung) == 0)
            return 1;
    return 0;
}

/*
 * The member whose metric a row takes, from member i on: the first that
 * timed the rung, since a row skipped on one member carries no work (a
 * time, by kl_run_metric) where another timed it as a rate; i where none did.
 */
static int first_timed(const struct kl_fleet *f, int i, const char *rung)
{
    for (int m = i; m < f->n; m++) {
        const struct kl_run_row *x = member_row(f, m, rung);
        if (x && x->timed)
            return m;
    }
    return i;
}

/* The members' run-to-run spread for rows like x (%, their ceilings' largest); 0 unknown. */
static double fleet_spread(const struct kl_fleet *f, const struct kl_run_row *x)
{
    double most = 0;
    for (int m = 0; m < f->n; m++) {
        const struct kl_run *run = &f->run[m];
        double v = !f->has_run[m] || !run->have_ceil ? 0
                   : x->tensor                       ? run->ceil.spread_tensor_pct
                   : x->flops > 0                    ? run->ceil.spread_fma_pct
                                                     : run->ceil.spread_memory_pct;
        most = v > most ? v : most;
    }
    return most;
}

/*
 * A straggler by the median's margin stays one only where its launch times say so beyond
 * noise, as `kladder compare` judges a change: the 95 % interval of its median time over
 * the other members' (each a run, resampled; core/shift.h) lies wholly above 1, and, where
 * the straggler measured one run, above the device's run-to-run spread for such rows
 * (kl_shift_judge_runs). Where its row or every other member's kept no launch times the
 * margin alone decides.
 */
static void beyond_noise(const struct kl_fleet *f, struct kl_fleet_row *r, const char *rung)
{
    struct kl_sample_set set[KL_FLEET_MAX], others[KL_FLEET_MAX];
    double *x[KL_FLEET_MAX];
    int runs[KL_FLEET_MAX];
    char why[256];
    for (int m = 0; m < f->n; m++) {
        const struct kl_run_row *row = member_row(f, m, rung);
        set[m].n = 0;
        set[m].x = x[m] = row && row->timed ? kl_run_row_samples(row, 0, &set[m].n) : NULL;
        runs[m] = row ? kl_run_row_runs(row) : 1;
    }
    for (int i = 0; i < f->n; i++) {
        struct kl_shift s;
        int k = 0;
        for (int m = 0; m < f->n && r->straggler[i] && x[i]; m++)
            if (m != i && x[m])
                others[k++] = set[m];
        if (k && kl_shift_estimate_runs(others, k, &set[i], 1, &s) == 0 &&
            kl_shift_judge_runs(&s, KL_SHIFT_SAME_MARGIN, k, runs[i],
                                fleet_spread(f, member_row(f, i, rung)), why,
                                sizeof why) != KL_SHIFT_SLOWER)
            r->straggler[i] = 0, r->within_noise[i] = 1;
    }
    for (int m = 0; m < f->n; m++)
        free(x[m]);
}

/* Row r of rung: its metric (member from's) and every member's value and status. */
static void fill_row(const struct kl_fleet *f, struct kl_fleet_row *r, const char *rung, int from)
{
    r->rung = rung;
    r->metric = kl_run_metric(&f->run[from], find_row(&f->run[from], rung));
    r->unit = kl_run_unit(&f->run[from], r->metric);
    for (int m = 0; m < f->n; m++) {
        const struct kl_run_row *x = member_row(f, m, rung);
        r->value[m] = x ? kl_run_value(&f->run[m], x, r->metric) : NAN;
        r->status[m] = x ? x->status : NULL;
        r->failed[m] = x && (strcmp(x->status, "failed") == 0 || strcmp(x->status, "timeout") == 0);
    }
    summarise(r, f->n);
    beyond_noise(f, r, rung);
}

static enum kl_status fleet_rows(struct kl_fleet *f, struct kl_err *e)
{
    int cap = 0;
    for (int i = 0; i < f->n; i++)
        cap += f->has_run[i] ? f->run[i].nrows : 0;
    if (cap && !(f->rows = calloc((size_t)cap, sizeof *f->rows)))
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of memory for the fleet's summary");
    for (int i = 0; i < f->n; i++)
        for (int j = 0; f->has_run[i] && j < f->run[i].nrows; j++) {
            const char *rung = f->run[i].rows[j].rung;
            if (!has_row(f, rung))
                fill_row(f, &f->rows[f->nrows++], rung, first_timed(f, i, rung));
        }
    return KL_OK;
}

enum kl_status kl_fleet_build(struct kl_fleet *f, const char *command,
                              const struct kl_fleet_member *m, int n, struct kl_err *e)
{
    memset(f, 0, sizeof *f);
    if (n > KL_FLEET_MAX)
        return kl_fail(e, KL_ERR_ARG, "%d members: a fleet has at most %d", n, KL_FLEET_MAX);
    f->command = command;
    f->n = n;
    kl_utc_now(f->created, sizeof f->created);
    for (int i = 0; i < n; i++) {
        char name[KL_FLEET_SPEC + 32];
        f->member[i] = m[i];
        kl_fleet_member_name(f, i, name, sizeof name);
        if (!m[i].json)
            snprintf(f->why[i], sizeof f->why[i], "it wrote no report (exit %d)", m[i].exit_code);
        else if (kl_run_parse(&f->run[i], m[i].json, strlen(m[i].json), name, f->why[i],
                              sizeof f->why[i]) == 0)
            f->has_run[i] = 1, kl_run_find_ceilings(&f->run[i]); /* its run-to-run spreads */
        else
            kl_run_free(&f->run[i]);
    }
    return fleet_rows(f, e);
}

void kl_fleet_free(struct kl_fleet *f)
{
    for (int i = 0; i < f->n; i++)
        if (f->has_run[i])
            kl_run_free(&f->run[i]);
    free(f->rows);
    kl_json_free(f->root);
    memset(f, 0, sizeof *f);
}

int kl_fleet_exit(const struct kl_fleet *f)
{
    /* kladder's exit codes grow with how serious the end was. */
    int rc = 0;
    for (int i = 0; i < f->n; i++)
        if (f->member[i].exit_code > rc)
            rc = f->member[i].exit_code;
    return rc;
}

/* Member i's words in a row's verdict (failed, a straggler, within noise), at out; their length. */
static int member_verdict(const struct kl_fleet_row *r, int i, const char *sep, char *out, size_t n)
{
    double pct = (r->value[i] / r->median - 1) * 100;
    if (r->failed[i])
        return snprintf(out, n, "%sd%d %s", sep, i, r->status[i]);
    if (r->straggler[i])
        return snprintf(out, n, "%sd%d (%+.1f%%)", sep, i, pct);
    if (r->within_noise[i])
        return snprintf(out, n, "%sd%d (%+.1f%%, within noise)", sep, i, pct);
    return 0;
}

const char *kl_fleet_row_verdict(const struct kl_fleet *f, const struct kl_fleet_row *r, char *out,
                                 size_t n)
{
    size_t used = 0;
    int same = 1;
    out[0] = '\0';
    for (int i = 0; i < f->n && used + 1 < n; i++) {
        int k = member_verdict(r, i, used ? ", " : "", out + used, n - used);
        used += k > 0 ? (size_t)k : 0;
        same &= r->status[i] && r->status[0] && strcmp(r->status[i], r->status[0]) == 0;
    }
    if (used)
        return out;
    if (r->n)
        return "none";
    snprintf(out, n, same ? "%s on every member" : "no member timed it",
             r->status[0] ? r->status[0] : "");
    return out;
}

void kl_fleet_member_name(const struct kl_fleet *f, int i, char *out, size_t n)
{
    const struct kl_fleet_member *m = &f->member[i];
    if (m->rank >= 0)
        snprintf(out, n, "rank %d (%s %s)", m->rank, m->host, m->spec);
    else
        snprintf(out, n, "%s", m->spec);
}

/* ---- reading a fleet file ----------------------------------------------------- */

int kl_fleet_text_is_fleet(const char *text, size_t len)
{
    /* The writer puts the version first; a run file never has the key. */
    const char *key = "\"fleet_version\"";
    size_t k = strlen(key);
    for (size_t i = 0; i + k <= len && i < 64; i++)
        if (memcmp(text + i, key, k) == 0)
            return 1;
    return 0;
}

/* A member's string field, or fallback when absent or not a string. */
static const char *text_of(const struct kl_json *o, const char *key, const char *fallback)
{
    const struct kl_json *v = kl_json_get(o, key);
    return v && v->type == KL_JSON_STRING ? v->string : fallback;
}

static int number_of(const struct kl_json *o, const char *key, int fallback)
{
    const struct kl_json *v = kl_json_get(o, key);
    return v && v->type == KL_JSON_NUMBER && fabs(v->number) < 1e9 ? (int)v->number : fallback;
}

/* The file's version and its members' array, checked; 0, or -1 with the reason in err. */
static int fleet_head(const struct kl_json *root, const char *name, char *err, size_t n)
{
    const struct kl_json *v = kl_json_get(root, "fleet_version");
    const struct kl_json *members = kl_json_get(root, "members");
    if (!v || v->type != KL_JSON_NUMBER || v->number != KL_FLEET_VERSION)
        return snprintf(err, n, "%s: a fleet file of version %s; this kladder reads version %d",
                        name, v && v->type == KL_JSON_NUMBER ? "other than 1" : "unknown",
                        KL_FLEET_VERSION),
               -1;
    if (!members || members->type != KL_JSON_ARRAY || members->count < 1 ||
        members->count > KL_FLEET_MAX)
        return snprintf(err, n, "%s: \"members\" should be an array of 1 to %d members", name,
                        KL_FLEET_MAX),
               -1;
    return 0;
}

/* Member i from its object o (of the file called name): its facts and its report. */
static void fleet_member(struct kl_fleet *f, int i, const struct kl_json *o, const char *name)
{
    struct kl_fleet_member *m = &f->member[i];
    char who[KL_FLEET_SPEC + 160];
    snprintf(m->spec, sizeof m->spec, "%s", text_of(o, "device", "?"));
    snprintf(m->host, sizeof m->host, "%s", text_of(o, "host", "?"));
    m->rank = number_of(o, "rank", -1);
    m->exit_code = number_of(o, "exit_code", 0);
    m->log = (char *)text_of(o, "log", NULL);
    const struct kl_json *run = kl_json_get(o, "run");
    snprintf(who, sizeof who, "%s, member d%d (%s)", name, i, m->spec);
    if (!run || run->type == KL_JSON_NULL)
        snprintf(f->why[i], sizeof f->why[i], "it wrote no report (exit %d)", m->exit_code);
    else if (kl_run_read(&f->run[i], run, who, f->why[i], sizeof f->why[i]) == 0)
        f->has_run[i] = 1, kl_run_find_ceilings(&f->run[i]); /* its run-to-run spreads */
    else
        kl_run_free(&f->run[i]);
}

int kl_fleet_parse(struct kl_fleet *f, const char *text, size_t len, const char *name, char *err,
                   size_t n)
{
    char jerr[512];
    struct kl_err e;
    memset(f, 0, sizeof *f);
    if (!(f->root = kl_json_parse(text, len, jerr, sizeof jerr)))
        return snprintf(err, n, "%s: not valid JSON: %s", name, jerr), -1;
    if (fleet_head(f->root, name, err, n) != 0)
        return kl_fleet_free(f), -1;
    const struct kl_json *members = kl_json_get(f->root, "members");
    f->command = text_of(f->root, "command", "?");
    snprintf(f->created, sizeof f->created, "%s", text_of(f->root, "created", ""));
    f->n = members->count;
    for (int i = 0; i < f->n; i++) {
        if (members->items[i]->type != KL_JSON_OBJECT) {
            snprintf(err, n, "%s: member %d should be an object", name, i);
            return kl_fleet_free(f), -1;
        }
        fleet_member(f, i, members->items[i], name);
    }
    if (fleet_rows(f, &e) != KL_OK) {
        snprintf(err, n, "%s: %s", name, e.msg);
        return kl_fleet_free(f), -1;
    }
    return 0;
}

int kl_fleet_load(struct kl_fleet *f, const char *path, char *err, size_t n)
{
    struct kl_err e;
    char *text;
    size_t len;
    memset(f, 0, sizeof *f);
    if (kl_read_file(path, &text, &len, &e) != KL_OK)
        return snprintf(err, n, "%s", e.msg), -1;
    int rc = kl_fleet_parse(f, text, len, path, err, n);
    free(text);
    return rc;
}

/* ---- writers ----------------------------------------------------------------- */

/* The indices of the members flagged, as a JSON array. */
static void json_members(FILE *out, const unsigned char *flag, int n)
{
    fputc('[', out);
    for (int i = 0, first = 1; i < n; i++)
        if (flag[i])
            fprintf(out, first ? "%d" : ", %d", i), first = 0;
    fputc(']', out);
}

void kl_fleet_json(const struct kl_fleet *f, FILE *out)
{
    fprintf(out, "{\n  \"fleet_version\": %d,\n  \"command\": ", KL_FLEET_VERSION);
    kl_json_write_string(out, f->command);
    fputs(",\n  \"created\": ", out);
    kl_json_write_string(out, f->created);
    fputs(",\n  \"members\": [\n", out);
    for (int i = 0; i < f->n; i++) {
        const struct kl_fleet_member *m = &f->member[i];
        fputs("    {\"device\": ", out);
        kl_json_write_string(out, m->spec);
        fputs(", \"host\": ", out);
        kl_json_write_string(out, m->host);
        fprintf(out, ", \"rank\": %d, \"exit_code\": %d, \"log\": ", m->rank, m->exit_code);
        kl_json_write_string(out, m->log ? m->log : "");
        fputs(",\n     \"run\": ", out);
        /* The member's own report, whole: it is JSON already, and was read back above. */
        if (f->has_run[i]) {
            size_t len = strlen(m->json);
            while (len && (m->json[len - 1] == '\n' || m->json[len - 1] == ' '))
                len--;
            fwrite(m->json, 1, len, out);
        } else {
            fputs("null", out);
        }
        fputs(i + 1 < f->n ? "},\n" : "}\n", out);
    }
    fputs("  ],\n  \"summary\": [\n", out);
    for (int k = 0; k < f->nrows; k++) {
        const struct kl_fleet_row *r = &f->rows[k];
        fputs("    {\"rung\": ", out);
        kl_json_write_string(out, r->rung);
        fputs(", \"unit\": ", out);
        kl_json_write_string(out, r->unit);
        fprintf(out, ", \"members\": %d, \"min\": ", r->n);
        kl_json_write_number(out, r->min);
        fputs(", \"median\": ", out);
        kl_json_write_number(out, r->median);
        fputs(", \"max\": ", out);
        kl_json_write_number(out, r->max);
        fputs(", \"values\": [", out);
        for (int i = 0; i < f->n; i++) {
            fputs(i ? ", " : "", out);
            kl_json_write_number(out, r->value[i]);
        }
        fputs("], \"stragglers\": ", out);
        json_members(out, r->straggler, f->n);
        fputs(", \"within_noise\": ", out);
        json_members(out, r->within_noise, f->n);
        fputs(", \"failed\": ", out);
        json_members(out, r->failed, f->n);
        fputs(k + 1 < f->nrows ? "},\n" : "}\n", out);
    }
    fputs("  ]\n}\n", out);
}

/* A value as the table shows it: 4 significant digits, "–" for none. */
static void cell(FILE *out, int width, double v)
{
    if (isfinite(v))
        fprintf(out, " %*.*g", width, v >= 1e4 ? 6 : 4, v);
    else
        fprintf(out, " %*s", width, "-");
}

/* The table of members: each one's name, device, PCI bus and exit code (or why no report). */
static void table_members(const struct kl_fleet *f, FILE *out)
{
    char name[KL_FLEET_SPEC + 160];
    int w = 6; /* the member column: as wide as the longest name */
    for (int i = 0; i < f->n; i++) {
        kl_fleet_member_name(f, i, name, sizeof name);
        w = (int)strlen(name) > w ? (int)strlen(name) : w;
    }
    fprintf(out, "  %-4s %-*s  %-34s %-14s %s\n", "#", w, "member", "device", "pci bus", "exit");
    for (int i = 0; i < f->n; i++) {
        kl_fleet_member_name(f, i, name, sizeof name);
        const struct kl_run *run = &f->run[i];
        const struct kl_json *bus = f->has_run[i] ? kl_json_get(run->device, "pci_bus_id") : NULL;
        fprintf(out, "  d%-3d %-*s  %-34.34s %-14.14s %d%s%s\n", i, w, name,
                f->has_run[i] ? run->dev_name : "-",
                bus && bus->type == KL_JSON_STRING ? bus->string : "-", f->member[i].exit_code,
                f->has_run[i] ? "" : "  ", f->has_run[i] ? "" : f->why[i]);
    }
}

/* One rung's line: the first 8 members' values (or failures), min, median, max, verdict. */
static void table_row(const struct kl_fleet *f, const struct kl_fleet_row *r, FILE *out)
{
    char why[96];
    fprintf(out, "  %-18.18s %-8s", r->rung, r->unit);
    for (int i = 0; i < f->n && i < 8; i++)
        if (r->failed[i])
            fprintf(out, " %10s", r->status[i]);
        else
            cell(out, 10, r->value[i]);
    cell(out, 10, r->min);
    cell(out, 10, r->median);
    cell(out, 10, r->max);
    fputs(" ", out);
    fprintf(out, " %s\n", kl_fleet_row_verdict(f, r, why, sizeof why));
}

void kl_fleet_table(const struct kl_fleet *f, FILE *out)
{
    fprintf(out, "kladder fleet: %s on %d device%s\n\n", f->command, f->n, f->n == 1 ? "" : "s");
    table_members(f, out);
    fprintf(out, "\n  %-18s %-8s", "rung", "unit");
    for (int i = 0; i < f->n && i < 8; i++)
        fprintf(out, " %9s%d", "d", i);
    fprintf(out, " %10s %10s %10s  %s\n", "min", "median", "max", "stragglers and failures");
    for (int k = 0; k < f->nrows; k++)
        table_row(f, &f->rows[k], out);
    if (f->n > 8)
        fprintf(out, "\n(the columns show the first 8 members; min, median and max cover all %d)\n",
                f->n);
    fprintf(out,
            "\nA straggler is slower than the rung's median by more than %.0f%% (for times: "
            "longer) and,\nwhere the rows kept launch times, slower than the other members "
            "beyond noise\n(the 95%% interval of its median time over theirs above 1).\n",
            KL_FLEET_STRAGGLER * 100);
}

void kl_fleet_csv(const struct kl_fleet *f, FILE *out)
{
    fputs("member,device,host,rank,rung,unit,value,median,straggler\n", out);
    for (int k = 0; k < f->nrows; k++)
        for (int i = 0; i < f->n; i++) {
            const struct kl_fleet_row *r = &f->rows[k];
            fprintf(out, "%d,%s,%s,%d,%s,%s,", i, f->member[i].spec, f->member[i].host,
                    f->member[i].rank, r->rung, r->unit);
            if (isfinite(r->value[i]))
                fprintf(out, "%.9g", r->value[i]);
            fputc(',', out);
            if (isfinite(r->median))
                fprintf(out, "%.9g", r->median);
            fprintf(out, ",%d\n", r->straggler[i]);
        }
}
