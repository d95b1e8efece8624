#include "report/run.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/fields.h"
#include "report/write.h"
#include "core/util.h"

struct check {
    const char *name;
    char *err;
    size_t n;
    int failed;
};

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void
bad(struct check *c, const struct kl_json *at, const char *fmt, ...)
{
    if (c->failed)
        return;
    c->failed = 1;
    int k = snprintf(c->err, c->n, "%s: ", c->name);
    if (k < 0 || (size_t)k >= c->n)
        return;
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(c->err + k, c->n - (size_t)k, fmt, ap);
    va_end(ap);
    if (at && m >= 0 && (size_t)(k + m) < c->n)
        snprintf(c->err + k + m, c->n - (size_t)(k + m), " (line %d, column %d)", at->line,
                 at->col);
}

/*
 * The member key of obj (named where in messages), of type t, or also null
 * when nullable; NULL (and a message) when it is missing or of another type.
 */
static const struct kl_json *member(struct check *c, const struct kl_json *obj, const char *where,
                                    const char *key, enum kl_json_type t, int nullable)
{
    const struct kl_json *v = kl_json_get(obj, key);
    if (!v) {
        bad(c, obj, "%s%shas no \"%s\"", where, *where ? " " : "", key);
        return NULL;
    }
    if (v->type == t || (nullable && v->type == KL_JSON_NULL))
        return v;
    bad(c, v, "%s%s\"%s\" should be %s%s, but is %s", where, *where ? " " : "", key,
        kl_json_type_name(t), nullable ? " or null" : "", kl_json_type_name(v->type));
    return NULL;
}

static const char *str(struct check *c, const struct kl_json *obj, const char *where,
                       const char *key)
{
    const struct kl_json *v = member(c, obj, where, key, KL_JSON_STRING, 0);
    return v ? v->string : "";
}

/* A number, or NaN for null (when nullable). */
static double num(struct check *c, const struct kl_json *obj, const char *where, const char *key,
                  int nullable)
{
    const struct kl_json *v = member(c, obj, where, key, KL_JSON_NUMBER, nullable);
    return v && v->type == KL_JSON_NUMBER ? v->number : NAN;
}

static int boolean(struct check *c, const struct kl_json *obj, const char *where, const char *key)
{
    const struct kl_json *v = member(c, obj, where, key, KL_JSON_BOOL, 0);
    return v ? v->boolean : 0;
}

/*
 * An optional member (files from before it existed lack it): NULL when
 * absent or null, else it must be of type t.
 */
static const struct kl_json *optional(struct check *c, const struct kl_json *obj, const char *where,
                                      const char *key, enum kl_json_type t)
{
    const struct kl_json *v = kl_json_get(obj, key);
    if (!v || v->type == KL_JSON_NULL)
        return NULL;
    return member(c, obj, where, key, t, 0);
}

/* The version check comes first: a newer file may differ in anything else. */
static int check_version(struct check *c, const struct kl_json *root)
{
    const struct kl_json *v = kl_json_get(root, "schema_version");
    if (root->type != KL_JSON_OBJECT) {
        bad(c, root, "not a kladder run report: the file holds %s, not an object",
            kl_json_type_name(root->type));
        return -1;
    }
    if (!v) {
        const struct kl_json *cached = kl_json_get(root, "cached");
        if (cached && cached->type == KL_JSON_BOOL && cached->boolean)
            bad(c, NULL,
                "this is the printout of cached device ceilings, not a run report; "
                "`kladder peak --refresh --json FILE` writes a run report");
        else if (kl_json_get(root, "fleet_version"))
            bad(c, NULL,
                "a fleet's file (several devices' runs): `kladder report` makes its page; to "
                "compare, save a run of one device (--device SPEC --json FILE)");
        else if (kl_json_get(root, "workload") && kl_json_get(root, "results"))
            bad(c, NULL,
                "no schema_version: a run report from a kladder older than this format "
                "(run it again to get one this kladder reads)");
        else
            bad(c, NULL, "not a kladder run report (it has no \"schema_version\")");
        return -1;
    }
    if (v->type != KL_JSON_NUMBER || v->number != floor(v->number) || v->number < 1) {
        bad(c, v, "schema_version should be a whole number from 1");
        return -1;
    }
    if (v->number > KL_REPORT_SCHEMA_VERSION || v->number < 1) { /* 1 and 2 read alike */
        if (v->number > KL_REPORT_SCHEMA_VERSION)
            bad(c, v,
                "schema_version %.0f is newer than this kladder reads (%d): a newer kladder "
                "wrote it",
                v->number, KL_REPORT_SCHEMA_VERSION);
        else
            bad(c, v, "schema_version %.0f is not one this kladder reads (%d)", v->number,
                KL_REPORT_SCHEMA_VERSION);
        return -1;
    }
    return 0;
}

/*
 * A whole number read as a double, as a long: unknown when it is NaN or out of
 * range (converting such a double is undefined behaviour). Longs are byte
 * counts, kept below 1e18 so that two of them add up safely.
 */
static long to_long(double v, long unknown)
{
    return v > -1e18 && v < 1e18 ? (long)v : unknown;
}

/* A number member that may be absent or null: NaN then. */
static double maybe(struct check *c, const struct kl_json *o, const char *where, const char *key)
{
    const struct kl_json *v = optional(c, o, where, key, KL_JSON_NUMBER);
    return v ? v->number : NAN;
}

/* A string member that may be absent or null: NULL then. */
static const char *maybe_str(struct check *c, const struct kl_json *o, const char *where,
                             const char *key)
{
    const struct kl_json *v = optional(c, o, where, key, KL_JSON_STRING);
    return v ? v->string : NULL;
}

/* A row's machine fields (version 2); a version 1 row has none, and reads as unknown. */
static void read_machine(struct check *c, const struct kl_json *o, const char *where,
                         struct kl_run_row *r)
{
    const struct kl_json *v, *res = optional(c, o, where, "resources", KL_JSON_ARRAY),
                             *clocks = optional(c, o, where, "clocks", KL_JSON_OBJECT);
    r->regs = r->threads = r->groups_per_cu = -1;
    r->private_bytes = r->local_bytes = r->local_static = r->local_dynamic = -1;
    r->max_threads = r->threads_multiple = -1;
    r->occupancy = r->sm_mhz = r->sm_mhz_min = NAN;
    r->bound = maybe_str(c, o, where, "bound");
    r->limiter = NULL;
    if (res && res->count > 0) {
        const struct kl_json *k = res->items[0];
        char at[64];
        snprintf(at, sizeof at, "%s.resources[0]", where);
        if (k->type != KL_JSON_OBJECT) {
            bad(c, k, "%s should be an object", at);
            return;
        }
        r->nkernels = (int)res->count;
        for (int i = 0; i < kl_kernel_field_count; i++)
            kl_slot_set(r, kl_kernel_fields[i].row, maybe(c, k, at, kl_kernel_fields[i].key), -1);
        r->local_bytes = r->local_static; /* static, plus dynamic where given */
        if (r->local_bytes >= 0)
            r->local_bytes += to_long(maybe(c, k, at, "local_dynamic"), 0);
        r->limiter = maybe_str(c, k, at, "limiter");
    }
    if (clocks) {
        r->sm_mhz = maybe(c, clocks, where, "sm_mhz");
        r->sm_mhz_min = maybe(c, clocks, where, "sm_mhz_min");
    }
    for (int i = 0; i < kl_machine_field_count; i++)
        kl_slot_set(r, kl_machine_fields[i].row, maybe(c, o, where, kl_machine_fields[i].key), -1);
    r->capped = (v = optional(c, o, where, "capped", KL_JSON_BOOL)) ? v->boolean : 0;
    r->machine_note = maybe_str(c, o, where, "machine_note");
    r->resources_note = maybe_str(c, o, where, "resources_note");
}

/*
 * A row's numbers (report/fields.h): those every version wrote are required
 * (null where not shown; a count never), the items' rate only where the run
 * counts items.
 */
static void read_numbers(struct check *c, const struct kl_json *o, const char *where,
                         struct kl_run_row *r)
{
    for (int i = 0; i < kl_result_field_count; i++) {
        const struct kl_result_field *f = &kl_result_fields[i];
        int never_null = (f->flags & KL_FIELD_NEVER_NULL) != 0;
        double v = f->since > 1 || (f->flags & KL_FIELD_ITEMS)
                       ? maybe(c, o, where, f->key)
                       : num(c, o, where, f->key, !never_null);
        kl_slot_set(r, f->row, v, never_null ? 0 : -1);
    }
}

/*
 * A row's fields: what it is and how it ended (its words and flags), its
 * numbers (the result-field table) and the arithmetic it declares.
 */
static void read_fields(struct check *c, const struct kl_json *o, const char *where,
                        struct kl_run_row *r)
{
    r->rung = str(c, o, where, "rung");
    r->config = str(c, o, where, "config");
    r->status = str(c, o, where, "status");
    r->summary = str(c, o, where, "summary");
    r->note = str(c, o, where, "note");
    r->options = str(c, o, where, "build_options");
    r->on_host = boolean(c, o, where, "on_host");
    r->peer = boolean(c, o, where, "peer");
    read_numbers(c, o, where, r);
    const struct kl_json *prec = optional(c, o, where, "precision", KL_JSON_STRING),
                         *error = optional(c, o, where, "error", KL_JSON_NUMBER);
    const struct kl_json *tensor = optional(c, o, where, "tensor", KL_JSON_BOOL);
    const struct kl_json *span = optional(c, o, where, "sum_span", KL_JSON_NUMBER);
    r->precision = prec ? prec->string : NULL;
    r->sum_span = span && span->number > 0 && span->number < 1e9 ? (int)span->number : 0;
    r->error = error ? error->number : NAN;
    r->tensor = tensor ? tensor->boolean : 0;
    r->samples = optional(c, o, where, "samples", KL_JSON_ARRAY);
    r->clocks = optional(c, o, where, "sample_clocks_mhz", KL_JSON_ARRAY);
}

/* The row's precision and status are ones kladder writes; a timed row has its times. */
static void check_row(struct check *c, const struct kl_json *o, const char *where,
                      struct kl_run_row *r)
{
    static const char *const statuses[] = {"verified", "failed", "skipped", "measured", "timeout"};
    int known = 0;
    if (r->precision && kl_precision_parse(r->precision) == KL_PREC_NONE) {
        bad(c, kl_json_get(o, "precision"),
            "%s has precision \"%.20s\" (fp32, tf32, 3xtf32, fp64, int32, fp16, bf16, fp8, "
            "fp8e5m2, int8, ozaki8 or 3xfp16)",
            where, r->precision);
        return;
    }
    for (size_t k = 0; k < sizeof statuses / sizeof *statuses; k++)
        known |= strcmp(r->status, statuses[k]) == 0;
    if (!known) {
        bad(c, kl_json_get(o, "status"),
            "%s has status \"%.40s\" (verified, failed, skipped, measured or timeout)", where,
            r->status);
        return;
    }
    r->timed = strcmp(r->status, "verified") == 0 || strcmp(r->status, "measured") == 0;
    if (r->timed && !(r->median_s > 0 && r->min_s > 0 && r->max_s >= r->min_s))
        bad(c, o, "%s (%s) is %s but has no positive median_s, min_s and max_s", where, r->rung,
            r->status);
}

/*
 * What the row built (version 3; absent before): its source file and hash,
 * each a string where given, and its values, an array of objects of a name,
 * a whole value and where it came from.
 */
static void read_inputs(struct check *c, const struct kl_json *o, const char *where,
                        struct kl_run_row *r)
{
    const struct kl_json *src = optional(c, o, where, "source", KL_JSON_OBJECT);
    const struct kl_json *vals = optional(c, o, where, "values", KL_JSON_ARRAY);
    char at[96];
    snprintf(at, sizeof at, "%s.source", where);
    if (src) {
        r->source_file = str(c, src, at, "file");
        r->source_hash = str(c, src, at, "hash");
    }
    for (int k = 0; vals && k < vals->count && !c->failed; k++) {
        const struct kl_json *v = vals->items[k];
        snprintf(at, sizeof at, "%s.values[%d]", where, k);
        if (v->type != KL_JSON_OBJECT) {
            bad(c, v, "%s should be an object", at);
            return;
        }
        str(c, v, at, "name");
        str(c, v, at, "from");
        num(c, v, at, "value", 0);
    }
    r->values = vals;
    const struct kl_json *runs = optional(c, o, where, "runs", KL_JSON_ARRAY);
    long launches = 0;
    for (int k = 0; runs && k < runs->count && !c->failed; k++) {
        const struct kl_json *v = runs->items[k];
        snprintf(at, sizeof at, "%s.runs[%d]", where, k);
        if (v->type != KL_JSON_OBJECT) {
            bad(c, v, "%s should be an object", at);
            return;
        }
        double n_k = num(c, v, at, "launches", 0);
        num(c, v, at, "seq", 0);
        num(c, v, at, "median_s", 0);
        launches += n_k >= 1 && n_k < 1e9 ? (long)n_k : 0;
    }
    if (runs && !c->failed && (!r->samples || launches != r->samples->count)) {
        bad(c, runs, "%s.runs count %ld launches, its samples %d", where, launches,
            r->samples ? r->samples->count : 0);
        return;
    }
    r->runs = runs && runs->count > 1 ? runs : NULL;
    r->run_spread = maybe(c, o, where, "run_spread");
}

static void read_row(struct check *c, const struct kl_json *o, int i, struct kl_run_row *r)
{
    char where[48];
    snprintf(where, sizeof where, "results[%d]", i);
    if (o->type != KL_JSON_OBJECT) {
        bad(c, o, "%s should be an object, but is %s", where, kl_json_type_name(o->type));
        return;
    }
    read_fields(c, o, where, r);
    if (!c->failed)
        check_row(c, o, where, r);
    if (c->failed)
        return;
    if (!isfinite(r->flops) || r->flops < 0)
        r->flops = 0;
    if (!isfinite(r->bytes) || r->bytes < 0)
        r->bytes = 0;
    read_machine(c, o, where, r);
    read_inputs(c, o, where, r);
}

static void read_ceilings(struct check *c, struct kl_run *run, const struct kl_json *v)
{
    struct kl_ceilings *k = &run->ceil;
    const char *w = "ceiling_values";
    struct kl_ceilings got;
    memset(&got, 0, sizeof got);
    /* The first roofs every version wrote are required; later figures are optional. */
    for (int i = 0; i < kl_ceiling_count && !c->failed; i++) {
        const struct kl_ceiling_def *d = &kl_ceiling_defs[i];
        int required = strcmp(d->key, "copy_gbps") == 0 || strcmp(d->key, "f32_gflops") == 0 ||
                       strcmp(d->key, "f64_gflops") == 0 || strcmp(d->key, "i32_giops") == 0;
        const struct kl_json *x = required ? NULL : optional(c, v, w, d->key, KL_JSON_NUMBER);
        double value = required ? num(c, v, w, d->key, 1) : x ? x->number : NAN;
        kl_ceiling_set(&got, d, value > 0 && isfinite(value) ? value : 0);
    }
    const char *date = str(c, v, w, "date");
    const struct kl_json *source = optional(c, v, w, "source", KL_JSON_STRING);
    if (c->failed)
        return;
    *k = got;
    snprintf(k->date, sizeof k->date, "%s", date);
    snprintf(k->source, sizeof k->source, "%s", source ? source->string : "");
    run->have_ceil = k->copy_gbps > 0;
    snprintf(run->ceil_source, sizeof run->ceil_source, "measured by %s (%s), as the run used them",
             kl_ceilings_source(k), k->date);
}

/* The run's name and its directory (for image paths relative to the file); 0 or -1. */
static int set_name(struct kl_run *run, const char *name, char *err, size_t n)
{
    memset(run, 0, sizeof *run);
    run->name = kl_strdup(name);
    run->dir = kl_strdup(".");
    if (!run->name || !run->dir) {
        snprintf(err, n, "%s: out of memory", name);
        return -1;
    }
    const char *slash = strrchr(name, '/');
    if (slash) {
        free(run->dir);
        run->dir = kl_strdup(name);
        if (!run->dir) {
            snprintf(err, n, "%s: out of memory", name);
            return -1;
        }
        run->dir[slash - name == 0 ? 1 : slash - name] = '\0';
    }
    return 0;
}

static int read_tree(struct kl_run *run, const char *name, char *err, size_t n);

int kl_run_parse(struct kl_run *run, const char *text, size_t len, const char *name, char *err,
                 size_t n)
{
    char jerr[512];
    if (set_name(run, name, err, n))
        return -1;
    if (!(run->root = kl_json_parse(text, len, jerr, sizeof jerr))) {
        snprintf(err, n, "%s: not valid JSON: %s", name, jerr);
        return -1;
    }
    return read_tree(run, name, err, n);
}

int kl_run_read(struct kl_run *run, const struct kl_json *root, const char *name, char *err,
                size_t n)
{
    if (set_name(run, name, err, n))
        return -1;
    run->root = (struct kl_json *)root;
    run->borrowed = 1;
    return read_tree(run, name, err, n);
}

/* The run's top-level members; the device's and provenance's words. */
static void read_top(struct check *c, struct kl_run *run, const struct kl_json *root,
                     const struct kl_json **cv, const struct kl_json **results)
{
    run->workload = str(c, root, "", "workload");
    run->device = member(c, root, "", "device", KL_JSON_OBJECT, 0);
    run->params = member(c, root, "", "params", KL_JSON_OBJECT, 0);
    run->protocol = member(c, root, "", "protocol", KL_JSON_OBJECT, 0);
    run->provenance = member(c, root, "", "provenance", KL_JSON_OBJECT, 0);
    run->flops = num(c, root, "", "flops_per_launch", 0);
    run->bytes = num(c, root, "", "bytes_per_launch", 0);
    const struct kl_json *roof = kl_json_get(root, "memory_roof"); /* absent before: copy */
    run->read_roof = roof && roof->type == KL_JSON_STRING && strcmp(roof->string, "read") == 0;
    run->reference = str(c, root, "", "reference");
    run->ceiling_note = str(c, root, "", "ceilings");
    *cv = member(c, root, "", "ceiling_values", KL_JSON_OBJECT, 1);
    *results = member(c, root, "", "results", KL_JSON_ARRAY, 0);
    if (c->failed)
        return;
    run->dev_name = str(c, run->device, "device", "name");
    run->dev_platform = str(c, run->device, "device", "platform");
    run->driver = str(c, run->device, "device", "driver");
    str(c, run->device, "device", "vendor");
    str(c, run->device, "device", "type");
    run->backend = str(c, run->provenance, "provenance", "backend");
    run->date = str(c, run->provenance, "provenance", "date");
    run->version = str(c, run->provenance, "provenance", "kladder_version");
    const struct kl_json *type = kl_json_get(run->params, "type");
    run->type = type && type->type == KL_JSON_STRING ? type->string : "float";
}

/* blur's pictures, where the run names them: the one read and the one written. */
static void read_images(struct check *c, struct kl_run *run, const struct kl_json *images)
{
    if (images->type != KL_JSON_OBJECT) {
        bad(c, images, "\"images\" should be an object, but is %s",
            kl_json_type_name(images->type));
        return;
    }
    const struct kl_json *in = member(c, images, "images", "input", KL_JSON_STRING, 1),
                         *out = member(c, images, "images", "output", KL_JSON_STRING, 1);
    run->image_in = in && in->type == KL_JSON_STRING ? in->string : NULL;
    run->image_out = out && out->type == KL_JSON_STRING ? out->string : NULL;
}

/*
 * Every row; then whether the run is a sweep (every row a point: copy
 * --sweep, or params say so) or has curves beside its ladder (some: peak's).
 */
static void read_rows(struct check *c, struct kl_run *run, const struct kl_json *results)
{
    int with_x = 0;
    run->nrows = results->count;
    for (int i = 0; i < results->count && !c->failed; i++) {
        read_row(c, results->items[i], i, &run->rows[i]);
        with_x += isfinite(run->rows[i].x);
    }
    run->sweep = with_x > 0 && with_x == run->nrows;
    run->curves = with_x > 0 && !run->sweep;
    const struct kl_json *sweep = kl_json_get(run->params, "sweep");
    if (sweep && sweep->type == KL_JSON_BOOL && sweep->boolean)
        run->sweep = 1, run->curves = 0;
}

/* Checks the tree at run->root field by field into run. */
static int read_tree(struct kl_run *run, const char *name, char *err, size_t n)
{
    struct check c = {name, err, n, 0};
    const struct kl_json *root = run->root, *cv = NULL, *results = NULL;
    if (check_version(&c, root))
        return -1;
    read_top(&c, run, root, &cv, &results);
    if (c.failed)
        return -1;
    if (kl_json_get(root, "images"))
        read_images(&c, run, kl_json_get(root, "images"));
    if (cv && cv->type == KL_JSON_OBJECT)
        read_ceilings(&c, run, cv);
    if (c.failed)
        return -1;
    if (results->count > 0 && !(run->rows = calloc((size_t)results->count, sizeof *run->rows))) {
        snprintf(err, n, "%s: out of memory", name);
        return -1;
    }
    read_rows(&c, run, results);
    return c.failed ? -1 : 0;
}

int kl_run_load(struct kl_run *run, const char *path, char *err, size_t n)
{
    struct kl_err e;
    char *text = NULL;
    size_t len = 0;
    memset(run, 0, sizeof *run);
    if (kl_read_file(path, &text, &len, &e) != KL_OK) {
        snprintf(err, n, "%s", e.msg);
        return -1;
    }
    int rc = kl_run_parse(run, text, len, path, err, n);
    free(text);
    return rc;
}

void kl_run_free(struct kl_run *run)
{
    if (!run->borrowed)
        kl_json_free(run->root);
    free(run->rows);
    free(run->name);
    free(run->dir);
    memset(run, 0, sizeof *run);
}

/*
 * A peak run measured the roofs itself: the best verified row of each kind
 * (files from before a peak run carried its ceilings in ceiling_values).
 */
static void own_rows(struct kl_run *run)
{
    struct kl_ceilings *k = &run->ceil;
    memset(k, 0, sizeof *k);
    for (int i = 0; i < run->nrows; i++) {
        const struct kl_run_row *r = &run->rows[i];
        double *slot = NULL, v = 0;
        if (strcmp(r->status, "verified") != 0)
            continue;
        if (strncmp(r->rung, "copy_", 5) == 0)
            slot = &k->copy_gbps, v = r->gbps;
        else if (strncmp(r->rung, "read_v", 6) == 0)
            slot = &k->read_gbps, v = r->gbps;
        else if (strncmp(r->rung, "write_v", 7) == 0)
            slot = &k->write_gbps, v = r->gbps;
        else if (strcmp(r->rung, "fma_f32") == 0)
            slot = &k->f32_gflops, v = r->gflops;
        else if (strcmp(r->rung, "fma_f64") == 0)
            slot = &k->f64_gflops, v = r->gflops;
        else if (strcmp(r->rung, "fma_i32") == 0)
            slot = &k->i32_giops, v = r->gflops;
        else if (strcmp(r->rung, "mma_tf32") == 0)
            slot = &k->tf32_gflops, v = r->gflops;
        else if (strcmp(r->rung, "fma_f16x2") == 0)
            slot = &k->f16_gflops, v = r->gflops;
        if (slot && isfinite(v) && v > *slot)
            *slot = v;
    }
    run->have_ceil = k->copy_gbps > 0;
    snprintf(k->date, sizeof k->date, "%s", run->date);
    snprintf(run->ceil_source, sizeof run->ceil_source, "%s",
             run->have_ceil ? "this run's best copy and FMA rows"
                            : "none: this peak run has no verified copy row");
}

void kl_run_find_ceilings(struct kl_run *run)
{
    if (run->have_ceil)
        return;
    if (strcmp(run->workload, "peak") == 0) {
        own_rows(run); /* a peak run's roofs are its own, not an older cache's */
        return;
    }
    /* The cache is keyed by backend, platform, device and driver: all in the file. */
    struct kl_device_info dev;
    char warn[512];
    memset(&dev, 0, sizeof dev);
    snprintf(dev.platform, sizeof dev.platform, "%s", run->dev_platform);
    snprintf(dev.name, sizeof dev.name, "%s", run->dev_name);
    snprintf(dev.driver_version, sizeof dev.driver_version, "%s", run->driver);
    if (kl_ceilings_load(&dev, run->backend, &run->ceil, warn, sizeof warn) == 1 &&
        run->ceil.copy_gbps > 0) {
        run->have_ceil = 1;
        snprintf(run->ceil_source, sizeof run->ceil_source,
                 "measured by %s (%s), from its cache for this device and driver",
                 kl_ceilings_source(&run->ceil), run->ceil.date);
        return;
    }
    memset(&run->ceil, 0, sizeof run->ceil);
    snprintf(run->ceil_source, sizeof run->ceil_source,
             "none known for this device and driver: `kladder peak` measures them");
}

enum kl_metric kl_run_metric(const struct kl_run *run, const struct kl_run_row *r)
{
    (void)run;
    if (r->flops > 0)
        return KL_METRIC_FLOPS;
    if (r->bytes > 0)
        return KL_METRIC_BYTES;
    return KL_METRIC_TIME;
}

double kl_run_value(const struct kl_run *run, const struct kl_run_row *r, enum kl_metric m)
{
    (void)run;
    if (!r->timed)
        return NAN;
    /* The file's own figures where it has them (they are these quotients). */
    switch (m) {
    case KL_METRIC_FLOPS: return isfinite(r->gflops) ? r->gflops : r->flops / r->median_s * 1e-9;
    case KL_METRIC_BYTES: return isfinite(r->gbps) ? r->gbps : r->bytes / r->median_s * 1e-9;
    case KL_METRIC_TIME: return r->median_s * 1e6;
    }
    return NAN;
}

const char *kl_run_unit(const struct kl_run *run, enum kl_metric m)
{
    switch (m) {
    case KL_METRIC_FLOPS: return strcmp(run->type, "int") == 0 ? "GIOP/s" : "GFLOP/s";
    case KL_METRIC_BYTES: return "GB/s";
    case KL_METRIC_TIME: return "µs";
    }
    return "";
}

int kl_run_on_curve(const struct kl_run *run, const struct kl_run_row *r)
{
    return run->curves && isfinite(r->x);
}

double kl_run_compute_peak(const struct kl_run *run)
{
    if (!run->have_ceil)
        return 0;
    if (strcmp(run->type, "double") == 0)
        return run->ceil.f64_gflops;
    if (strcmp(run->type, "int") == 0)
        return run->ceil.i32_giops;
    return run->ceil.f32_gflops;
}

double kl_run_precision_peak(const struct kl_run *run, const char *precision, int tensor)
{
    enum kl_precision p = kl_precision_parse(precision);
    if (!run->have_ceil)
        return 0;
    return p == KL_PREC_NONE ? kl_run_compute_peak(run) : kl_precision_peak(&run->ceil, p, tensor);
}

const char *const kl_run_precisions[] = {"fp32",   "tf32",   "3xtf32", "fp64",    "int32",
                                         "fp16",   "bf16",   "fp8",    "fp8e5m2", "int8",
                                         "ozaki8", "3xfp16", NULL};

/* A verified row with a speed, of a declared precision. */
static int counted(const struct kl_run_row *r)
{
    return r->precision && strcmp(r->status, "verified") == 0 && r->gflops > 0;
}

/* The fastest counted peer of precision class cls whose sums are like best's
   (kl_peer_likeness: alike first, else coarser); NULL where none. */
static const struct kl_run_row *like_peer(const struct kl_run *run, int cls,
                                          const struct kl_run_row *best)
{
    const struct kl_run_row *peer = NULL;
    int peer_level = 0;
    for (int i = 0; i < run->nrows; i++) {
        const struct kl_run_row *r = &run->rows[i];
        if (!r->peer || !counted(r) || kl_precision_class(kl_precision_parse(r->precision)) != cls)
            continue;
        int level = kl_peer_likeness(best->sum_span, r->sum_span);
        if (level > peer_level || (level > 0 && level == peer_level && r->gflops > peer->gflops))
            peer = r, peer_level = level;
    }
    return peer;
}

int kl_run_fastest(const struct kl_run *run, const char *precision, const struct kl_run_row **best,
                   const struct kl_run_row **peer)
{
    *best = *peer = NULL;
    for (int i = 0; i < run->nrows; i++) {
        const struct kl_run_row *r = &run->rows[i];
        if (!r->peer && counted(r) && strcmp(r->precision, precision) == 0 &&
            (!*best || r->gflops > (*best)->gflops))
            *best = r;
    }
    if (*best)
        *peer = like_peer(run, kl_precision_class(kl_precision_parse(precision)), *best);
    return *best != NULL;
}

/* One param in words, after a space where sep: "seed 1", the type, "N=512", a flag's name. */
static int param_words(const char *key, const struct kl_json *v, int sep, char *out, size_t n)
{
    const char *space = sep ? " " : "";
    if (strcmp(key, "seed") == 0 && v->type == KL_JSON_NUMBER)
        return snprintf(out, n, "%sseed %.0f", space, v->number);
    if (strcmp(key, "type") == 0 && v->type == KL_JSON_STRING)
        return snprintf(out, n, "%s%s", space, v->string);
    if (v->type == KL_JSON_NUMBER)
        return snprintf(out, n, "%s%s=%.10g", space, key, v->number);
    if (v->type == KL_JSON_STRING)
        return snprintf(out, n, "%s%s=%s", space, key, v->string);
    if (v->type == KL_JSON_BOOL && v->boolean)
        return snprintf(out, n, "%s%s", space, key);
    return 0;
}

void kl_run_params_text(const struct kl_run *run, char *out, size_t n)
{
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; run->params && i < run->params->count && used + 1 < n; i++) {
        int k = param_words(run->params->keys[i], run->params->items[i], used > 0, out + used,
                            n - used);
        if (k > 0)
            used += (size_t)k < n - used ? (size_t)k : n - used - 1;
    }
}

int kl_run_row_runs(const struct kl_run_row *r)
{
    return r->runs ? r->runs->count : 1;
}

double *kl_run_row_run_samples(const struct kl_run_row *r, int k, int cycles, int *n)
{
    int first = 0, count;
    double *all, *x;
    if (!r->runs)
        return kl_run_row_samples(r, cycles, n);
    for (int j = 0; j < k; j++)
        first += (int)kl_json_get(r->runs->items[j], "launches")->number;
    count = (int)kl_json_get(r->runs->items[k], "launches")->number;
    if (!(all = kl_run_row_samples(r, cycles, n)) || first + count > *n ||
        !(x = malloc((size_t)count * sizeof *x))) {
        free(all);
        *n = 0;
        return NULL;
    }
    memcpy(x, all + first, (size_t)count * sizeof *x);
    free(all);
    *n = count;
    return x;
}

double *kl_run_row_samples(const struct kl_run_row *r, int cycles, int *n)
{
    const struct kl_json *s = r->samples, *c = r->clocks;
    double *x = s && s->count > 0 && (!cycles || (c && c->count == s->count))
                    ? malloc((size_t)s->count * sizeof *x)
                    : NULL;
    *n = 0;
    for (int i = 0; x && i < s->count; i++) {
        const struct kl_json *mhz = cycles ? c->items[i] : NULL;
        if (s->items[i]->type != KL_JSON_NUMBER ||
            (mhz && !(mhz->type == KL_JSON_NUMBER && mhz->number > 0))) {
            free(x);
            return NULL;
        }
        x[(*n)++] = s->items[i]->number * (mhz ? mhz->number : 1);
    }
    return x;
}
