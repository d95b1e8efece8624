/*
 * Every entry of the result-field tables (report/fields.h) in every writer
 * and in the reader (the machine's figures: in the JSON and the reader): a report whose row holds a
 * distinctive value in each field is written as a table, CSV and JSON; each field's column header
 * (or key) is there with its value in its column, the JSON read back by the run reader gives the
 * same value, and the HTML page of the run read back shows it under its header. No device: the
 * report is made up.
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/report.h"
#include "report/fields.h"
#include "report/html.h"
#include "report/run.h"
#include "report/write.h"

#define RUNG "07_fields"

/* A distinctive value for result field i: seconds are small, every other one a few units. */
static double result_value(int i)
{
    const struct kl_result_field *f = &kl_result_fields[i];
    double v = (i + 11) * 1.25;
    if (f->result.type == KL_SLOT_INT)
        return i + 11;
    return strcmp(f->unit, "s") == 0 ? v / 1000 : v; /* read back as written */
}

/* The same for kernel field i: counts in bytes or threads, a fraction for occupancy. */
static double kernel_value(int i)
{
    return kl_kernel_fields[i].res.type == KL_SLOT_REAL ? 0.4375 : (i + 3) * 64;
}

/* A report of one timed row, items counted or not, every field holding its value. */
static void make_report(struct kl_report *r, int items)
{
    memset(r, 0, sizeof *r);
    r->workload = "gemm";
    snprintf(r->sizes, sizeof r->sizes, "M=8 N=8 K=8");
    snprintf(r->size_json, sizeof r->size_json, "\"M\": 8, \"N\": 8, \"K\": 8");
    r->type = KL_FLOAT;
    r->flops = 1024;
    r->bytes = 768;
    r->items = items ? 64 : 0;
    r->items_unit = "Mpix/s";
    r->backend = "opencl";
    snprintf(r->device.name, sizeof r->device.name, "Made-up device");
    r->start_sm_mhz = r->start_mem_mhz = -1;
    struct kl_result *x = kl_report_add(r, RUNG, "every field");
    if (!x)
        return;
    x->status = KL_RESULT_VERIFIED;
    x->note[0] = '\0';
    for (int i = 0; i < kl_result_field_count; i++)
        kl_slot_set(x, kl_result_fields[i].result, result_value(i), 0);
    x->has_machine = 1;
    x->machine.nkernels = 1;
    x->machine.joules = -1;
    for (int i = 0; i < kl_kernel_field_count; i++)
        kl_slot_set(&x->machine.res[0], kl_kernel_fields[i].res, kernel_value(i), 0);
    snprintf(x->machine.res[0].limiter, sizeof x->machine.res[0].limiter, "registers");
    x->machine.samples = 4; /* NVML sampled: every machine figure is there */
    for (int i = 0; i < kl_machine_field_count; i++)
        kl_slot_set(x, kl_machine_fields[i].result, (i + 2) * 2.5, 0);
}

/* What w wrote to a memory file, as a string (malloc'd). */
static char *written(const struct kl_report *r, void (*w)(const struct kl_report *, FILE *))
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    w(r, f);
    fclose(f);
    return text;
}

/* The line of text that starts with prefix, at or after from; NULL where none. */
static const char *line_from(const char *text, const char *from, const char *prefix)
{
    for (const char *p = from; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        if ((p == text || p[-1] == '\n') && strncmp(p, prefix, strlen(prefix)) == 0)
            return p;
    return NULL;
}

/*
 * 1 where the table's header line (starting with head) has a column header
 * whose cell in the row of RUNG below it reads want: the columns are right
 * aligned, so header and cell end at the same place.
 */
static int table_column(const char *text, const char *head, const char *header, const char *want)
{
    const char *h = line_from(text, text, head);
    const char *row = h ? line_from(text, h + 1, RUNG " ") : NULL;
    const char *at = h ? strstr(h, header) : NULL;
    if (!row || !at || at > strchr(h, '\n'))
        return 0;
    size_t end = (size_t)(at - h) + strlen(header), n = strlen(want);
    return end > n && end <= (size_t)(strchr(row, '\n') - row) &&
           strncmp(row + end - n, want, n) == 0 && row[end - n - 1] == ' ';
}

/* The CSV cell under key in the line after the header; "" where there is none. */
static void csv_cell(const char *text, const char *key, char *out, size_t size)
{
    const char *row = strchr(text, '\n'), *p = text;
    int col = 0;
    out[0] = '\0';
    for (size_t n = strlen(key); p < row; p = strchr(p, ',') + 1, col++) {
        if (strncmp(p, key, n) == 0 && (p[n] == ',' || p[n] == '\n'))
            break;
        if (!strchr(p, ',') || strchr(p, ',') > row)
            return;
    }
    for (p = row + 1; col > 0 && p; col--)
        p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL;
    if (p)
        snprintf(out, size, "%.*s", (int)strcspn(p, ",\n"), p);
}

static void check_table(const struct kl_report *r, int items)
{
    char *text = written(r, kl_report_table), want[64];
    for (int i = 0; text && i < kl_result_field_count; i++) {
        const struct kl_result_field *f = kl_field_table_column(&kl_result_fields[i], items);
        if (!f)
            continue;
        snprintf(want, sizeof want, "%.*f", f->prec,
                 kl_field_value(f, r, &r->results[0]) * f->scale);
        const char *header = f->flags & KL_FIELD_ITEMS ? r->items_unit : f->header;
        CHECK(table_column(text, "rung ", header, want), "table%s: %s (\"%s\") should read %s",
              items ? " with items" : "", f->key, header, want);
    }
    /* Where items are counted, their rate has a column under their unit, in GFLOP/s's place. */
    for (int i = 0; text && items && i < kl_result_field_count; i++) {
        const struct kl_result_field *f = &kl_result_fields[i];
        if (!(f->flags & KL_FIELD_ITEMS))
            continue;
        snprintf(want, sizeof want, "%.*f", f->prec, kl_field_value(f, r, &r->results[0]));
        CHECK(table_column(text, "rung ", r->items_unit, want) && !strstr(text, "GFLOP/s"),
              "table with items: %s (\"%s\") should read %s, and no GFLOP/s", f->key, r->items_unit,
              want);
    }
    for (int c = 1; text && kl_kernel_column(c); c++) {
        const struct kl_kernel_field *f = kl_kernel_column(c);
        if (!f->header)
            continue;
        snprintf(want, sizeof want, "%.0f", kl_kernel_res_column(f, &r->results[0].machine.res[0]));
        CHECK(table_column(text, "machine ", f->header, want),
              "table's machine block: %s (\"%s\") should read %s", f->key, f->header, want);
    }
    free(text);
}

static void check_csv(const struct kl_report *r)
{
    char *text = written(r, kl_report_csv), want[64], got[64];
    for (int i = 0; text && i < kl_result_field_count; i++) {
        const struct kl_result_field *f = &kl_result_fields[i];
        if (!(f->flags & KL_FIELD_CSV))
            continue;
        snprintf(want, sizeof want, f->csv, kl_field_value(f, r, &r->results[0]));
        csv_cell(text, f->key, got, sizeof got);
        CHECK(strcmp(got, want) == 0, "CSV: %s is \"%s\", should be %s", f->key, got, want);
    }
    free(text);
}

/* The JSON read back: each field's value in the run's row, and in the page made from it. */
static void check_json(const struct kl_report *r, int items)
{
    char *text = written(r, kl_report_json), err[512];
    struct kl_run run;
    if (!text || kl_run_parse(&run, text, strlen(text), "fields.json", err, sizeof err) != 0) {
        CHECK(0, "the JSON does not read back: %s", text ? err : "out of memory");
        free(text);
        return;
    }
    const struct kl_run_row *row = &run.rows[0];
    const struct kl_result *x = &r->results[0];
    for (int i = 0; i < kl_result_field_count; i++) {
        const struct kl_result_field *f = &kl_result_fields[i];
        char key[64];
        snprintf(key, sizeof key, "\"%s\": ", f->key);
        if ((f->flags & KL_FIELD_ITEMS) && !items) {
            CHECK(!strstr(text, key), "JSON: %s where nothing counts items", f->key);
            continue;
        }
        CHECK(strstr(text, key), "JSON: no %s", f->key);
        CHECK(kl_field_row_value(f, row) == kl_field_value(f, r, x),
              "read back: %s is %g, was written %g", f->key, kl_field_row_value(f, row),
              kl_field_value(f, r, x));
    }
    for (int i = 0; i < kl_kernel_field_count; i++) {
        const struct kl_kernel_field *f = &kl_kernel_fields[i];
        CHECK(kl_slot_get(row, f->row) == kernel_value(i), "read back: resources' %s is %g, not %g",
              f->key, kl_slot_get(row, f->row), kernel_value(i));
        CHECK(kl_kernel_row_column(f, row) == kl_kernel_res_column(f, &x->machine.res[0]),
              "read back: %s's column is %g, was %g", f->key, kl_kernel_row_column(f, row),
              kl_kernel_res_column(f, &x->machine.res[0]));
    }
    for (int i = 0; i < kl_machine_field_count; i++) {
        const struct kl_machine_field *f = &kl_machine_fields[i];
        char key[64];
        snprintf(key, sizeof key, "\"%s\": ", f->key);
        CHECK(strstr(text, key), "JSON: no %s", f->key);
        CHECK(kl_slot_get(row, f->row) == kl_slot_get(x, f->result),
              "read back: the machine's %s is %g, was written %g", f->key, kl_slot_get(row, f->row),
              kl_slot_get(x, f->result));
    }
    free(text);
    kl_run_free(&run);
}

/* The page's cell of result field f of row: how it shows the value under its header. */
static void page_cell(const struct kl_result_field *f, const struct kl_run_row *row, char *out,
                      size_t n)
{
    int k = snprintf(out, n, "<td class=\"num\">");
    if (f->flags & KL_FIELD_RATE)
        k += snprintf(out + k, n - k, f->html_fmt, row->gflops);
    else
        k += snprintf(out + k, n - k, f->html_fmt, kl_field_row_value(f, row) * f->scale);
    if (f->flags & KL_FIELD_RANGE) {
        k += snprintf(out + k, n - k, "–");
        k += snprintf(out + k, n - k, f->html_fmt, kl_field_row_value(f + 1, row) * f[1].scale);
    }
    snprintf(out + k, n - k, "%s</td>", f->flags & KL_FIELD_RATE ? " GFLOP/s" : "");
}

static void check_page(const struct kl_report *r)
{
    char *json = written(r, kl_report_json), *page = NULL, err[512], want[128];
    size_t len = 0;
    struct kl_run run;
    if (!json || kl_run_parse(&run, json, strlen(json), "fields.json", err, sizeof err) != 0) {
        free(json);
        return; /* check_json said why */
    }
    FILE *f = open_memstream(&page, &len);
    if (f) {
        kl_html_report(f, &run, 1);
        fclose(f);
    }
    for (int i = 0; page && i < kl_result_field_count; i++) {
        const struct kl_result_field *x = &kl_result_fields[i];
        if (!(x->flags & KL_FIELD_HTML))
            continue;
        snprintf(want, sizeof want, "<th>%s</th>", x->html);
        CHECK(strstr(page, want), "page: no column %s for %s", want, x->key);
        page_cell(x, &run.rows[0], want, sizeof want);
        CHECK(strstr(page, want), "page: %s should read %s", x->key, want);
    }
    for (int i = 0; page && i < kl_device_field_count; i++) {
        snprintf(want, sizeof want, "\"%s\": ", kl_device_fields[i].key);
        CHECK(strstr(json, want), "JSON: the device has no %s", kl_device_fields[i].key);
        snprintf(want, sizeof want, "<dt>%s</dt>", kl_device_fields[i].label);
        CHECK(strstr(page, want), "page: the device's %s is not labelled %s",
              kl_device_fields[i].key, want);
    }
    for (int c = 1; page && kl_kernel_column(c); c++) {
        const struct kl_kernel_field *k = kl_kernel_column(c);
        snprintf(want, sizeof want, "<th>%s</th>", k->html);
        CHECK(strstr(page, want), "page: no column %s for %s", want, k->key);
        int n = snprintf(want, sizeof want, "<td class=\"num\">");
        snprintf(want + n, sizeof want - n, k->html_fmt,
                 k->html_scale * kl_kernel_res_column(k, &r->results[0].machine.res[0]));
        strncat(want, "</td>", sizeof want - strlen(want) - 1);
        CHECK(strstr(page, want), "page's machine table: %s should read %s", k->key, want);
    }
    free(page);
    free(json);
    kl_run_free(&run);
}

/* The tables themselves: every field says what it is, keys are unique, columns numbered 1.. */
static void check_tables(void)
{
    for (int i = 0; i < kl_result_field_count; i++) {
        const struct kl_result_field *f = &kl_result_fields[i];
        CHECK(f->key && f->unit && f->hint && f->hint[0] && f->since >= 1 &&
                  f->since <= KL_REPORT_SCHEMA_VERSION && f->row.type != KL_SLOT_NONE &&
                  f->result.type != KL_SLOT_NONE,
              "result field %d (%s) is incomplete", i, f->key ? f->key : "?");
        CHECK(!(f->flags & KL_FIELD_RANGE) || i + 1 < kl_result_field_count,
              "%s's range has no second field", f->key);
        for (int j = 0; j < i; j++)
            CHECK(strcmp(f->key, kl_result_fields[j].key) != 0, "%s twice", f->key);
    }
    int columns = 0;
    for (int i = 0; i < kl_kernel_field_count; i++) {
        const struct kl_kernel_field *f = &kl_kernel_fields[i];
        CHECK(f->key && f->hint && f->hint[0] && f->since >= 1 && f->row.type != KL_SLOT_NONE &&
                  f->res.type != KL_SLOT_NONE && (!f->column || f->html),
              "kernel field %d (%s) is incomplete", i, f->key ? f->key : "?");
        columns += f->column > 0;
    }
    for (int c = 1; c <= columns; c++)
        CHECK(kl_kernel_column(c), "no kernel field has column %d of %d", c, columns);
}

/*
 * The show rules on a row that failed: a field shown on timed rows only is
 * null in the JSON (0 where it is a count, never null) and "-" in the
 * table, and reads back as unknown (NaN) or 0.
 */
static void check_untimed(void)
{
    struct kl_report r;
    struct kl_run run;
    char *json, *table, err[512], want[64];
    make_report(&r, 0);
    if (r.count != 1) {
        kl_report_free(&r);
        return;
    }
    r.results[0].status = KL_RESULT_FAILED;
    snprintf(r.results[0].note, sizeof r.results[0].note, "made up to fail");
    json = written(&r, kl_report_json);
    table = written(&r, kl_report_table);
    int read = json && kl_run_parse(&run, json, strlen(json), "untimed", err, sizeof err) == 0;
    CHECK(read, "the failed row's JSON reads back: %s", err);
    for (int i = 0; read && i < kl_result_field_count; i++) {
        const struct kl_result_field *f = &kl_result_fields[i];
        if ((f->show != KL_SHOW_TIMED && f->show != KL_SHOW_POSITIVE) ||
            (f->flags & KL_FIELD_ITEMS)) /* (not in a report that counts no items) */
            continue;
        int count = (f->flags & KL_FIELD_NEVER_NULL) != 0;
        snprintf(want, sizeof want, "\"%s\": %s", f->key, count ? "0" : "null");
        CHECK(strstr(json, want), "%s of a failed row: %s in the JSON", f->key, want);
        double v = kl_slot_get(&run.rows[0], f->row);
        CHECK(count ? v == 0 : isnan(v), "%s read back as %s: %g", f->key, count ? "0" : "NaN", v);
        if (f->header && (f->flags & KL_FIELD_TABLE))
            CHECK(table_column(table, "rung", f->header, "-"), "%s: \"-\" in the table:\n%s",
                  f->header, table);
    }
    if (read)
        kl_run_free(&run);
    free(json);
    free(table);
    kl_report_free(&r);
}

int main(void)
{
    setenv("KLADDER_CACHE_DIR", "/nonexistent/kladder-test-fields", 1);
    check_tables();
    for (int items = 0; items <= 1; items++) {
        struct kl_report r;
        make_report(&r, items);
        CHECK(r.count == 1, "the report has its row");
        if (r.count == 1) {
            check_table(&r, items);
            check_csv(&r);
            check_json(&r, items);
            if (!items)
                check_page(&r);
        }
        kl_report_free(&r);
    }
    check_untimed();
    return check_summary();
}
