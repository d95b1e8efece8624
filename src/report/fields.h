/*
 * The numbers of a result row, each once: its key in the JSON and the CSV,
 * its column in the table and on the HTML page, its unit, when a writer
 * shows it, where struct kl_result keeps it and where the run reader
 * (struct kl_run_row) puts it back, and the schema version that first wrote
 * it. The table, CSV and JSON writers (report/write.c), the run reader
 * (report/run.c) and the page (report/html.c) walk these tables: a new
 * per-row number is one entry here, beside its member in the structs.
 *
 * Two tables: the row's own figures (times, rates, speed-ups) and the
 * resources of each kernel a timed row ran (registers, private and shared
 * memory, threads, occupancy), the JSON's "resources" array.
 */
#ifndef KL_REPORT_FIELDS_H
#define KL_REPORT_FIELDS_H

#include <stddef.h>

#include "core/report.h"
#include "report/run.h"

/* Where a struct keeps a field, and as what type (kl_slot_get and _set convert). */
enum kl_slot_type { KL_SLOT_NONE, KL_SLOT_INT, KL_SLOT_LONG, KL_SLOT_REAL };
struct kl_slot {
    size_t at;
    enum kl_slot_type type;
};
/* The slot of member m of struct s, its type told by the member's own. */
#define KL_SLOT(s, m)                                                                              \
    {                                                                                              \
        offsetof(s, m), _Generic(((s *)0)->m, int                                                  \
                                 : KL_SLOT_INT, long                                               \
                                 : KL_SLOT_LONG, double                                            \
                                 : KL_SLOT_REAL)                                                   \
    }
double kl_slot_get(const void *base, struct kl_slot s);
/* Stores v; a whole-number slot takes unknown where v is NaN or out of its range. */
void kl_slot_set(void *base, struct kl_slot s, double v, long unknown);

/* When a writer shows a row's field (else "-" in the table, null in the JSON). */
enum kl_field_show {
    KL_SHOW_TIMED,    /* on a timed row (verified, or measured) */
    KL_SHOW_POSITIVE, /* on a timed row, where above 0 */
    KL_SHOW_NONZERO,  /* on any row, where not 0 (a sweep's x) */
    KL_SHOW_ALWAYS    /* on every row */
};

/* Which writers carry a field, and how (the JSON carries every one). */
enum {
    KL_FIELD_TABLE = 1 << 0,      /* a column of the table */
    KL_FIELD_CSV = 1 << 1,        /* a column of the CSV */
    KL_FIELD_HTML = 1 << 2,       /* a column of the page's rung table */
    KL_FIELD_NEVER_NULL = 1 << 3, /* a count: 0 where not shown, never null */
    KL_FIELD_ITEMS = 1 << 4,      /* only in reports that count items (blur's pixels): the
                                     JSON names their unit before it, the table's header is it */
    KL_FIELD_NOT_ITEMS = 1 << 5,  /* its table column shows the items' rate where items are
                                     counted */
    KL_FIELD_RANGE = 1 << 6,      /* the page shows it and the next field as one "a–b" cell */
    KL_FIELD_RATE = 1 << 7        /* the page's cell in its place is the row's chart value (its
                                     metric: GFLOP/s, GB/s or µs) with its unit */
};

struct kl_result_field {
    const char *key;  /* JSON and CSV */
    const char *unit; /* of the value as the JSON holds it */
    const char *hint; /* what it is */
    int since;        /* the schema version that first wrote it */
    unsigned flags;   /* KL_FIELD_* */
    enum kl_field_show show;
    struct kl_slot result; /* in struct kl_result */
    struct kl_slot row;    /* in struct kl_run_row */
    /* The value written in place of the result's own (a row's work, else the report's). */
    double (*derive)(const struct kl_report *r, const struct kl_result *x);
    /* The table shows the field only where the row counts this work (> 0). */
    double (*work)(const struct kl_report *r, const struct kl_result *x);
    const char *header; /* the table's column */
    int width, prec;    /* its cell */
    double scale;       /* table and page show value × scale (seconds as ms) */
    const char *csv;    /* the CSV's format */
    const char *html;   /* the page's column */
    const char *html_fmt;
};

extern const struct kl_result_field kl_result_fields[];
extern const int kl_result_field_count;

/* Field f of result x as the writers write it (derived where f says). */
double kl_field_value(const struct kl_result_field *f, const struct kl_report *r,
                      const struct kl_result *x);
/* 1 where f is shown for x (kl_field_show); the table also asks for the field's work. */
int kl_field_shown(const struct kl_result_field *f, const struct kl_report *r,
                   const struct kl_result *x);
int kl_field_in_table(const struct kl_result_field *f, const struct kl_report *r,
                      const struct kl_result *x);
/*
 * The field the table shows in f's column, in a report that counts items or
 * not: f; the items' rate in place of one that leaves them the column; NULL
 * where f has no column.
 */
const struct kl_result_field *kl_field_table_column(const struct kl_result_field *f, int items);

/* The same for a row read back: its value and whether the page shows it. */
double kl_field_row_value(const struct kl_result_field *f, const struct kl_run_row *r);
int kl_field_row_shown(const struct kl_result_field *f, const struct kl_run_row *r);

/*
 * A resource of one kernel of a timed row: the JSON's "resources" entries,
 * the machine block of the table and the page's machine table (their
 * columns in the order column says), read back into kl_run_row (the first
 * kernel's). Unknown is -1 (NaN for a fraction); the JSON writes null then.
 */
struct kl_kernel_field {
    const char *key, *unit, *hint;
    int since;
    unsigned flags;     /* KL_FIELD_NEVER_NULL: written as is, even when unknown */
    struct kl_slot res; /* in struct kl_resources */
    struct kl_slot row; /* in struct kl_run_row */
    int column;         /* its place among the table's and the page's columns; 0: none */
    const char *header; /* the table's column (NULL: the page's only) */
    int width;
    const char *html, *html_fmt;
    double html_scale;
    /* The column's value where it is not the field's own (shared: static + dynamic). */
    double (*res_column)(const struct kl_resources *q);
    double (*row_column)(const struct kl_run_row *r);
};

extern const struct kl_kernel_field kl_kernel_fields[];
extern const int kl_kernel_field_count;

/* The kernel field whose column is c (from 1), NULL past the last. */
const struct kl_kernel_field *kl_kernel_column(int c);
/* Its column's value for kernel q or row r, and whether it is known. */
double kl_kernel_res_column(const struct kl_kernel_field *f, const struct kl_resources *q);
int kl_kernel_res_known(const struct kl_kernel_field *f, const struct kl_resources *q);
double kl_kernel_row_column(const struct kl_kernel_field *f, const struct kl_run_row *r);

/*
 * A figure of the machine while a row's launches were timed (schema version
 * 2): power over the window and the energy per launch, where NVML measured
 * them. The JSON writes each (null where not measured) and the reader puts
 * it back into kl_run_row (NaN then).
 */
struct kl_machine_field {
    const char *key, *unit, *hint;
    int since;
    int sampled;           /* measured where NVML sampled while timing, else where above 0 */
    struct kl_slot result; /* in struct kl_result */
    struct kl_slot row;    /* in struct kl_run_row */
};

extern const struct kl_machine_field kl_machine_fields[];
extern const int kl_machine_field_count;

/* 1 where figure f of row x was measured (x timed, with its machine observed). */
int kl_machine_shown(const struct kl_machine_field *f, const struct kl_result *x);

/*
 * A fact of the device a run was made on: its key in the JSON's "device"
 * object, how the page labels it, and where struct kl_device_info keeps it
 * and as what (text; text or null where empty; a count; a flag).
 */
enum kl_device_type {
    KL_DEV_TEXT,
    KL_DEV_TEXT_OR_NULL,
    KL_DEV_UINT,
    KL_DEV_U64,
    KL_DEV_SIZE,
    KL_DEV_FLAG
};
struct kl_device_field {
    const char *key, *label;
    enum kl_device_type type;
    size_t at;
};

extern const struct kl_device_field kl_device_fields[];
extern const int kl_device_field_count;

/* The page's label of device fact key: the table's, or the key itself. */
const char *kl_device_label(const char *key);

#endif /* KL_REPORT_FIELDS_H */
