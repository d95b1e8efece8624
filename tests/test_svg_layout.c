/*
 * The charts' layouts (report/svg_layout.h) without SVG: the axes hold every
 * value, the ticks and bars sit where the scale says, peers come after the
 * ladder below their divider, the roofline's points and labels stay in the
 * plot and apart, each declared precision gets its roof, and a sweep's axes
 * span its sizes and rates; a shape sweep's ratio under the mark never prints
 * as the mark. The runs are made up and read back as a report reader sees
 * them; no device.
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/report.h"
#include "report/run.h"
#include "report/shapes.h"
#include "report/svg_layout.h"
#include "report/write.h"

/* A row of the made-up run: median ms, its spread, FLOPs and bytes, precision. */
static struct kl_result *add(struct kl_report *r, const char *rung, double ms, double flops,
                             double bytes, enum kl_precision p)
{
    struct kl_result *x = kl_report_add(r, rung, "made up");
    if (!x)
        return NULL;
    x->status = KL_RESULT_VERIFIED;
    x->median_s = ms * 1e-3, x->min_s = 0.8 * ms * 1e-3, x->max_s = 1.5 * ms * 1e-3;
    x->repeats = 5;
    x->flops = flops, x->bytes = bytes;
    x->precision = p;
    x->gflops = flops / x->median_s * 1e-9, x->gbps = bytes / x->median_s * 1e-9;
    return x;
}

/* The report as a run, read back (0), as `kladder report` reads a file. */
static int as_run(const struct kl_report *r, struct kl_run *run, char **text)
{
    size_t len = 0;
    char err[512];
    FILE *f = open_memstream(text, &len);
    if (!f)
        return -1;
    kl_report_json(r, f);
    fclose(f);
    int rc = kl_run_parse(run, *text, len, "layout.json", err, sizeof err);
    CHECK(rc == 0, "the made-up run reads back: %s", err);
    return rc;
}

static void base(struct kl_report *r, const char *workload)
{
    memset(r, 0, sizeof *r);
    r->workload = workload;
    r->type = KL_FLOAT;
    r->backend = "opencl";
    r->start_sm_mhz = r->start_mem_mhz = -1;
    snprintf(r->size_json, sizeof r->size_json, "\"N\": 64");
    snprintf(r->device.name, sizeof r->device.name, "Made-up device");
    r->have_ceilings = 1;
    r->ceilings.copy_gbps = 1000;
    r->ceilings.f32_gflops = 20000;
    r->ceilings.f64_gflops = 10000;
    r->ceilings.i32_giops = 10000;
    r->ceilings.tf32_gflops = 150000;
    r->ceilings.l2_gbps = 4000;
}

static void test_ladder(void)
{
    struct kl_report r;
    struct kl_run run;
    char *text = NULL;
    base(&r, "gemm");
    add(&r, "01_naive", 4, 1e9, 1e7, KL_PREC_FP32);
    add(&r, "02_tiled", 1, 1e9, 1e7, KL_PREC_FP32);
    struct kl_result *x = add(&r, "03_broken", 1, 1e9, 1e7, KL_PREC_FP32);
    if (x)
        x->status = KL_RESULT_FAILED;
    x = add(&r, "vendor", 0.45, 1e9, 1e7, KL_PREC_FP32); /* the axis ends past its whisker */
    if (x)
        x->peer = 1;
    add(&r, "04_vec", 0.8, 1e9, 1e7, KL_PREC_FP32);
    if (as_run(&r, &run, &text) == 0) {
        struct kl_ladder_layout l;
        kl_ladder_layout(&run, KL_METRIC_FLOPS, &l);
        CHECK(l.nrows == 5 && l.npeers == 1 && l.rows, "five rows, one peer");
        CHECK(l.axis > l.vmax && l.vmax > 0, "the axis (%g) past the largest value (%g)", l.axis,
              l.vmax);
        CHECK(fabs(l.axis / l.step - round(l.axis / l.step)) < 1e-9,
              "axis %g a whole number of "
              "steps %g",
              l.axis, l.step);
        CHECK(l.nticks >= 2 && l.tick[0] == 0 && l.tick_x[0] == KL_LAD_X0 &&
                  fabs(l.tick_x[l.nticks - 1] - (KL_LAD_X0 + KL_LAD_PW)) < 1e-9,
              "ticks from the plot's left to its right edge");
        for (int k = 1; k < l.nticks; k++)
            CHECK(l.tick_x[k] > l.tick_x[k - 1], "ticks left to right");
        CHECK(l.height == l.plot_bottom + 48, "height");
        for (int i = 0; l.rows && i < l.nrows; i++) {
            const struct kl_ladder_row *b = &l.rows[i];
            const struct kl_run_row *row = &run.rows[b->row];
            CHECK(!row->peer || i == l.nrows - 1, "%s: the peer comes last", row->rung);
            CHECK(b->cy == b->y + KL_LAD_ROW / 2 && b->y >= KL_LAD_TOP &&
                      b->y + KL_LAD_ROW <= l.plot_bottom,
                  "%s: within the plot", row->rung);
            CHECK(b->bar == (strcmp(row->status, "failed") != 0), "%s: a bar unless it failed",
                  row->rung);
            if (!b->bar)
                continue;
            CHECK(fabs(b->width - b->value / l.axis * KL_LAD_PW) < 1e-9 && b->value <= l.axis,
                  "%s: the bar ends at its value on the axis", row->rung);
            CHECK(b->spread && b->lo_x < KL_LAD_X0 + b->width && b->hi_x > KL_LAD_X0 + b->width &&
                      b->hi_x <= KL_LAD_X0 + KL_LAD_PW + 1e-9 && b->label_x > b->hi_x,
                  "%s: the spread around the bar's end, within the axis; its words past it",
                  row->rung);
        }
        if (l.rows && l.nrows == 5)
            CHECK(l.divider_y == l.rows[3].y + KL_LAD_ROW && l.rows[4].y == l.divider_y + 30,
                  "the divider between the ladder and the peer");
        kl_ladder_layout_free(&l);
        kl_run_free(&run);
    }
    free(text);
    kl_report_free(&r);
}

static void test_roofline(void)
{
    struct kl_report r;
    struct kl_run run;
    char *text = NULL;
    base(&r, "gemm");
    /* Crowded points (their labels must spread), and rows of TF32, 3xTF32 and BF16. */
    r.ceilings.bf16_gflops = 160000;
    for (int i = 0; i < 6; i++) {
        char name[16];
        snprintf(name, sizeof name, "%02d", i);
        add(&r, name, 1 + 0.01 * i, 2e9, 1e7, KL_PREC_FP32);
    }
    struct kl_result *x = add(&r, "tf32", 0.1, 2e9, 1e7, KL_PREC_TF32);
    if (x)
        x->tensor = 1;
    x = add(&r, "3xtf32", 0.3, 2e9, 1e7, KL_PREC_3XTF32);
    if (x)
        x->tensor = 1;
    x = add(&r, "bf16", 0.1, 2e9, 1e7, KL_PREC_BF16); /* a roof beside TF32's: labels crowd */
    if (x)
        x->tensor = 1;
    if (as_run(&r, &run, &text) == 0) {
        struct kl_roofline_layout *l = malloc(sizeof *l);
        kl_run_find_ceilings(&run);
        if (l) {
            kl_roofline_layout(&run, l);
            CHECK(l->bw == 1000 && l->peak == 20000, "the roofs: copy and FP32");
            CHECK(l->npoints == 9 && l->points, "every row a point");
            for (int k = 0; l->points && k < l->npoints; k++) {
                const struct kl_roof_point *p = &l->points[k];
                CHECK(p->px >= KL_RF_X0 && p->px <= KL_RF_X1 && p->py >= KL_RF_Y0 &&
                          p->py <= KL_RF_Y1,
                      "point %d in the plot", k);
                CHECK(fabs(p->px - kl_logaxis_map(&l->ax, p->ai)) < 1e-9 &&
                          fabs(p->py - kl_logaxis_map(&l->ay, p->perf)) < 1e-9,
                      "point %d where the axes put it", k);
                CHECK(k == 0 || (p->py >= l->points[k - 1].py &&
                                 p->ly >= l->points[k - 1].ly + 13 - 1e-9),
                      "labels top to bottom, 13 px apart (%d)", k);
                CHECK(p->ly <= KL_RF_Y1, "label %d above the plot's bottom", k);
            }
            int tf32 = -1, third = -1;
            for (int k = 0; k < l->nothers; k++) {
                if (strncmp(l->others[k].name, "TF32 tensor cores", 17) == 0)
                    tf32 = k;
                if (strncmp(l->others[k].name, "3xTF32", 6) == 0)
                    third = k;
            }
            CHECK(tf32 >= 0 && third >= 0 && l->others[tf32].top == 150000 &&
                      fabs(l->others[third].top - 50000) < 1e-6,
                  "the TF32 roof and a third of it for 3xTF32");
            CHECK(l->ay.hi >= log10(150000), "the y axis holds the tensor roof");
            for (int j = 1; j < l->nlabels; j++) {
                double a =
                    l->order[j - 1] == l->nothers ? l->main_y : l->others[l->order[j - 1]].label_y;
                double b = l->order[j] == l->nothers ? l->main_y : l->others[l->order[j]].label_y;
                CHECK(b >= a + 12 - 1e-9, "roof labels 12 px apart (%d)", j);
            }
            CHECK(l->nroof == 3 && fabs(l->roof_y[1] - l->roof_y[2]) < 1e-9 &&
                      fabs(l->roof_x[1] - kl_logaxis_map(&l->ax, 20)) < 1e-9,
                  "the main roof: up the slope to the ridge (AI 20), then flat");
            CHECK(l->slopes[0].drawn && !l->slopes[1].drawn && l->slopes[0].x1 < l->roof_x[1],
                  "the L2 slope, meeting the roof before the ridge; no shared memory slope");
            kl_roofline_layout_free(l);
        }
        free(l);
        kl_run_free(&run);
    }
    free(text);
    kl_report_free(&r);
}

static void test_sweep(void)
{
    struct kl_report r;
    struct kl_run run;
    char *text = NULL;
    base(&r, "copy");
    for (int n = 1024; n <= 65536; n *= 4)
        for (int k = 0; k < 2; k++) {
            struct kl_result *x =
                add(&r, k ? "ilp4" : "ilp1", 1e-3 * n / 1024, 0, 8.0 * n, KL_PREC_NONE);
            if (x)
                x->x = n;
        }
    if (as_run(&r, &run, &text) == 0) {
        struct kl_sweep_layout l;
        kl_sweep_layout(&run, &l);
        CHECK(l.nnames == 2 && strcmp(l.names[0], "ilp1") == 0 && strcmp(l.names[1], "ilp4") == 0,
              "one line per rung, in order");
        CHECK(l.l0 == 10 && l.l1 == 16, "N from 2^10 to 2^16: %g..%g", l.l0, l.l1);
        CHECK(l.axis >= l.ceil_bw && l.ceil_bw == 1000, "the y axis holds the copy roof");
        for (int i = 0; i < run.nrows; i++)
            CHECK(run.rows[i].gbps <= l.axis, "rate %g within the axis", run.rows[i].gbps);
        CHECK(fabs(kl_sweep_px(&l, 1024) - KL_SW_X0) < 1e-9 &&
                  fabs(kl_sweep_px(&l, 65536) - KL_SW_X1) < 1e-9,
              "N's ends at the plot's edges");
        CHECK(fabs(kl_sweep_py(&l, 0) - KL_SW_Y1) < 1e-9 &&
                  fabs(kl_sweep_py(&l, l.axis) - KL_SW_Y0) < 1e-9,
              "0 GB/s at the bottom, the axis's top at the top");
        CHECK(l.every == 1, "every size labelled (7 of them)");
        kl_run_free(&run);
    }
    free(text);
    kl_report_free(&r);
}

/* The shapes' pages print ratios with two decimals: one counted under KL_SHAPES_GOOD must
   not read as KL_SHAPES_GOOD (0.9494 was "below at ... 0.95x"). */
static void test_shapes_shown(void)
{
    CHECK(kl_shapes_shown(0.9494) == 0.94, "0.9494 shown as %g", kl_shapes_shown(0.9494));
    CHECK(kl_shapes_shown(0.29) == 0.29, "0.29 shown as %g", kl_shapes_shown(0.29));
    CHECK(kl_shapes_shown(0.9549) == 0.9549, "0.9549, at the mark, left to printf's rounding");
    CHECK(kl_shapes_shown(1.5) == 1.5, "1.5 unchanged");
}

int main(void)
{
    setenv("KLADDER_CACHE_DIR", "/nonexistent/kladder-test-svg-layout", 1);
    test_ladder();
    test_roofline();
    test_sweep();
    test_shapes_shown();
    return check_summary();
}
