#define _POSIX_C_SOURCE 200809L
#include "report/html.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifdef KLADDER_HAVE_PNG
#include <png.h>
#endif

#include "formats/image.h"
#include "core/report.h"
#include "core/util.h"
#include "kladder.h"
#include "report/fields.h"
#include "report/radii.h"
#include "report/shapes.h"
#include "report/svg.h"
#include "report/trace.h"
#include "fleet/fleet.h"

#define esc kl_xml_text

static const char css[] =
    "body{font-family:'DejaVu Sans',Verdana,Arial,sans-serif;color:#222;background:#fff;"
    "margin:0 auto;padding:16px 24px;max-width:1420px;font-size:14px;line-height:1.45}"
    "h1{font-size:22px;margin:4px 0}h2{font-size:18px;margin:28px 0 4px;border-top:2px solid "
    "#3465a4;padding-top:10px}h3{font-size:15px;margin:18px 0 6px}"
    ".meta,.note{color:#555}.note{font-style:italic}.verdict{font-weight:bold}"
    ".charts{display:flex;flex-wrap:wrap;gap:12px}"
    "figure{margin:0}figure.chart svg{display:block;border:1px solid #e3e6ea}"
    "figure.picture{display:inline-block;margin:0 16px 8px 0;vertical-align:top}"
    "figure.picture img{display:block;border:1px solid #ccc}"
    "img.enlarged{image-rendering:pixelated}"
    "figcaption{font-size:12px;color:#555;max-width:260px}.pictures h3{margin-top:0}"
    "table{border-collapse:collapse;font-size:13px}th,td{border-bottom:1px solid #e3e6ea;"
    "padding:3px 8px;text-align:left;vertical-align:top}th{background:#f2f4f7}"
    "td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}"
    "td.rung,code{font-family:'DejaVu Sans Mono',Menlo,Consolas,monospace;font-size:12px}"
    ".verified,.measured{color:#2e7d32}.failed{color:#c4161c;font-weight:bold}"
    ".skipped{color:#777}tr.peer td{background:#fdf3e8}"
    ".facts{display:flex;flex-wrap:wrap;gap:32px}dl{display:grid;grid-template-columns:"
    "max-content auto;gap:2px 14px;margin:0}dt{color:#555}dd{margin:0}"
    "nav ol{margin:4px 0}footer{margin-top:32px;color:#777;font-size:12px}";

/* ---- small writers --------------------------------------------------------------- */

static void num_cell(FILE *out, double v, const char *f, int show)
{
    if (show && isfinite(v)) {
        fputs("<td class=\"num\">", out);
        fprintf(out, f, v);
        fputs("</td>", out);
    } else {
        fputs("<td class=\"num\">–</td>", out);
    }
}

static void dt(FILE *out, const char *label)
{
    fputs("<dt>", out);
    esc(out, label);
    fputs("</dt>", out);
}

static void dd_text(FILE *out, const char *value)
{
    fputs("<dd>", out);
    esc(out, value && *value ? value : "–");
    fputs("</dd>\n", out);
}

/* ---- pictures ------------------------------------------------------------------ */

#ifdef KLADDER_HAVE_PNG
static void base64(FILE *out, const unsigned char *p, size_t n)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) |
                     (i + 2 < n ? p[i + 2] : 0);
        fputc(tab[v >> 18 & 63], out);
        fputc(tab[v >> 12 & 63], out);
        fputc(i + 1 < n ? tab[v >> 6 & 63] : '=', out);
        fputc(i + 2 < n ? tab[v & 63] : '=', out);
    }
}

/* Pictures are shown this many pixels on their longer side, beside the ladder chart. */
#define PICTURE_SIDE 260

/* A box-filtered copy no larger than max on a side (or the image itself). */
static int shrink(const struct kl_image *im, int max, struct kl_image *out)
{
    int f = 1;
    while ((im->width + f - 1) / f > max || (im->height + f - 1) / f > max)
        f++;
    out->width = (im->width + f - 1) / f;
    out->height = (im->height + f - 1) / f;
    out->channels = im->channels;
    out->px = malloc((size_t)out->width * out->height * out->channels);
    if (!out->px)
        return -1;
    for (int y = 0; y < out->height; y++)
        for (int x = 0; x < out->width; x++)
            for (int c = 0; c < im->channels; c++) {
                unsigned sum = 0, cnt = 0;
                for (int j = y * f; j < (y + 1) * f && j < im->height; j++)
                    for (int i = x * f; i < (x + 1) * f && i < im->width; i++, cnt++)
                        sum += im->px[((size_t)j * im->width + i) * im->channels + c];
                out->px[((size_t)y * out->width + x) * out->channels + c] =
                    (unsigned char)((sum + cnt / 2) / cnt);
            }
    return 0;
}

#endif

/* One picture as a <figure> with a PNG data: URI; 0, or -1 with the reason. */
static int picture(FILE *out, const struct kl_image *im, const char *caption, char *why, size_t n)
{
#ifdef KLADDER_HAVE_PNG
    struct kl_image small;
    if (shrink(im, 2 * PICTURE_SIDE, &small) != 0) {
        snprintf(why, n, "out of memory");
        return -1;
    }
    png_image img;
    png_alloc_size_t size = 0;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    img.width = (png_uint_32)small.width;
    img.height = (png_uint_32)small.height;
    img.format = small.channels == 1   ? PNG_FORMAT_GRAY
                 : small.channels == 3 ? PNG_FORMAT_RGB
                                       : PNG_FORMAT_RGBA;
    unsigned char *buf = NULL;
    int ok = png_image_write_to_memory(&img, NULL, &size, 0, small.px, 0, NULL) &&
             (buf = malloc(size)) &&
             png_image_write_to_memory(&img, buf, &size, 0, small.px, 0, NULL);
    if (!ok) {
        snprintf(why, n, "%s", img.message[0] ? img.message : "out of memory");
        free(buf);
        png_image_free(&img);
        free(small.px);
        return -1;
    }
    /* Shown PICTURE_SIDE pixels on the longer side (sharp on high-density screens too). */
    int longer = small.width > small.height ? small.width : small.height;
    double scale = (double)PICTURE_SIDE / longer;
    fprintf(out, "<figure class=\"picture\"><img class=\"%s\" width=\"%d\" height=\"%d\" alt=\"",
            scale > 1 ? "enlarged" : "reduced",
            (int)(small.width * scale + 0.5) > 0 ? (int)(small.width * scale + 0.5) : 1,
            (int)(small.height * scale + 0.5) > 0 ? (int)(small.height * scale + 0.5) : 1);
    esc(out, caption);
    fputs("\" src=\"data:image/png;base64,", out);
    base64(out, buf, size);
    fputs("\"/><figcaption>", out);
    esc(out, caption);
    if (small.width != im->width)
        fprintf(out, " (embedded at %d×%d)", small.width, small.height);
    fputs("</figcaption></figure>\n", out);
    free(buf);
    free(small.px);
    return 0;
#else
    (void)out, (void)im, (void)caption;
    snprintf(why, n,
             "this kladder was built without libpng, which the report needs to embed "
             "pictures (install libpng-dev and rebuild)");
    return -1;
#endif
}

/* A path from the run: as given, else relative to the run file's directory. */
static void resolve(const struct kl_run *run, const char *path, char *out, size_t n)
{
    struct stat sb;
    snprintf(out, n, "%s", path);
    if (stat(out, &sb) == 0 || path[0] == '/' || strcmp(run->dir, ".") == 0)
        return;
    snprintf(out, n, "%s/%s", run->dir, path);
    if (stat(out, &sb) != 0)
        snprintf(out, n, "%s", path);
}

static double param_num(const struct kl_run *run, const char *key)
{
    const struct kl_json *v = kl_json_get(run->params, key);
    return v && v->type == KL_JSON_NUMBER ? v->number : NAN;
}

/* A note where a picture should be: what went wrong, in words. */
static void picture_note(FILE *out, const char *what, const char *why)
{
    fprintf(out, "<p class=\"note\">%s", what);
    esc(out, why);
    fputs("</p>\n", out);
}

/* The input: the file the run read, or the generated picture made again from its seed. */
static void input_picture(FILE *out, const struct kl_run *run)
{
    struct kl_image im;
    struct kl_err e;
    char path[4096], why[600], caption[4400];
    const struct kl_json *pixel = kl_json_get(run->params, "pixel");
    int uchar4 = pixel && pixel->type == KL_JSON_STRING && strcmp(pixel->string, "uchar4") == 0;
    enum kl_status st;
    memset(&im, 0, sizeof im);
    if (run->image_in) {
        resolve(run, run->image_in, path, sizeof path);
        st = kl_image_load(path, &im, &e);
        snprintf(caption, sizeof caption, "input: %s", run->image_in);
    } else {
        double w = param_num(run, "width"), h = param_num(run, "height"),
               seed = param_num(run, "seed");
        if (!(w >= 1 && h >= 1 && w * h <= (double)KL_IMAGE_MAX_PIXELS && seed >= 0))
            st = kl_fail(&e, KL_ERR_ARG, "the run's params give no picture size");
        else
            st = kl_image_synthetic((int)w, (int)h, uchar4 ? 4 : 1, (unsigned long long)seed, &im,
                                    &e);
        snprintf(caption, sizeof caption, "input: the generated test picture, %.0f×%.0f, seed %.0f",
                 w, h, seed);
    }
    if (st != KL_OK)
        picture_note(out, "The input picture could not be read: ", e.msg);
    else if (picture(out, &im, caption, why, sizeof why) != 0)
        picture_note(out, "The input picture is not shown: ", why);
    kl_image_free(&im);
}

/* The output the run wrote with --output, blurred by the rung the reference names. */
static void output_picture(FILE *out, const struct kl_run *run)
{
    struct kl_image im;
    struct kl_err e;
    char path[4096], why[600], caption[4400];
    const char *from = strstr(run->reference, " written from ");
    memset(&im, 0, sizeof im);
    resolve(run, run->image_out, path, sizeof path);
    snprintf(caption, sizeof caption, "output: %s%s%s", run->image_out, from ? ", blurred by " : "",
             from ? from + 14 : "");
    if (kl_image_load(path, &im, &e) != KL_OK)
        picture_note(out, "The output picture could not be read: ", e.msg);
    else if (picture(out, &im, caption, why, sizeof why) != 0)
        picture_note(out, "The output picture is not shown: ", why);
    kl_image_free(&im);
}

static void blur_pictures(FILE *out, const struct kl_run *run)
{
    fputs("<div class=\"pictures\">\n<h3>Pictures</h3>\n", out);
    input_picture(out, run);
    if (run->image_out)
        output_picture(out, run);
    else
        fputs(
            "<p class=\"note\">No output picture: the run was made without --output "
            "(<code>kladder blur --output blurred.png --report r.html</code> shows it here).</p>\n",
            out);
    fputs("</div>\n", out);
}

/* ---- one run ------------------------------------------------------------------- */

/*
 * For runs whose rows say their arithmetic: the fastest verified rung of
 * each precision, its error, and the fastest peer whose results meet the same
 * tolerance (fp32 and 3xtf32 alike), so a TF32 rate is never read as fp32's.
 */
static void fastest_by_precision(FILE *out, const struct kl_run *run)
{
    int lines = 0;
    for (const char *const *p = kl_run_precisions; *p; p++) {
        const struct kl_run_row *best, *peer;
        if (!kl_run_fastest(run, *p, &best, &peer))
            continue;
        fputs(lines++ ? "</li>\n<li>" : "<ul class=\"precisions\">\n<li>", out);
        fprintf(out, "<b>%s</b>: <code>", *p);
        esc(out, best->rung);
        fprintf(out, "</code>, %.*f %s", best->gflops < 100 ? 2 : 0, best->gflops,
                kl_run_unit(run, KL_METRIC_FLOPS));
        if (isfinite(best->pct_ceiling) && best->pct_ceiling > 0)
            fprintf(out, " (%.1f%% of the %s roof)", best->pct_ceiling, *p);
        if (isfinite(best->error))
            fprintf(out, ", error %.2g", best->error);
        if (peer) {
            fprintf(out, "; %.2f× <code>", best->gflops / peer->gflops);
            esc(out, peer->rung);
            fprintf(out, "</code> (%s, %.*f, error %.2g)", peer->precision,
                    peer->gflops < 100 ? 2 : 0, peer->gflops, peer->error);
        }
    }
    if (lines)
        fputs("</li>\n</ul>\n", out);
}

/* The fastest row of metric m (the shortest time), not a peer, outside sweeps; -1 none. */
static int fastest_row(const struct kl_run *run, enum kl_metric m, double *bestv)
{
    int best = -1;
    *bestv = 0;
    for (int i = 0; i < run->nrows && !run->sweep; i++) {
        const struct kl_run_row *r = &run->rows[i];
        double x = kl_run_value(run, r, m);
        if (!r->peer && kl_run_metric(run, r) == m && isfinite(x) &&
            (m == KL_METRIC_TIME ? best < 0 || x < *bestv : x > *bestv))
            best = i, *bestv = x;
    }
    return best;
}

/* The fastest row in words: its rate, % of roof and speed-up over the first rung. */
static void fastest_words(FILE *out, const struct kl_run *run, enum kl_metric m,
                          const struct kl_run_row *r, double v)
{
    fputs(" Fastest: <code>", out);
    esc(out, r->rung);
    fprintf(out, "</code>, %.4g %s", v, kl_run_unit(run, m));
    if (isfinite(r->pct_ceiling) && r->pct_ceiling > 0)
        fprintf(out, " (%.1f%% of the roof)", r->pct_ceiling);
    if (isfinite(r->speedup_first) && r->speedup_first > 0)
        fprintf(out, ", %.2f× the first device rung", r->speedup_first);
    fputc('.', out);
}

static void verdict(FILE *out, const struct kl_run *run, enum kl_metric m)
{
    int v = 0, f = 0, s = 0, precisions = 0;
    double bestv;
    int best = fastest_row(run, m, &bestv);
    for (int i = 0; i < run->nrows; i++) {
        const struct kl_run_row *r = &run->rows[i];
        v += r->timed, f += strcmp(r->status, "failed") == 0,
            s += strcmp(r->status, "skipped") == 0;
        precisions |= r->precision != NULL;
    }
    fprintf(out, "<p class=\"verdict\">%d row%s: %d timed and checked, %d failed, %d skipped.",
            run->nrows, run->nrows == 1 ? "" : "s", v, f, s);
    if (precisions) {
        fputs(" Fastest verified rung of each precision (the arithmetic that produced it):</p>\n",
              out);
        fastest_by_precision(out, run);
        return;
    }
    if (best >= 0)
        fastest_words(out, run, m, &run->rows[best], bestv);
    fputs("</p>\n", out);
}

/*
 * A row's cell of field f (report/fields.h): its value as the page shows it;
 * for a range, it and the next field as one; for the rate, the row's chart
 * value with its unit.
 */
static void field_cell(FILE *out, const struct kl_run *run, const struct kl_run_row *r,
                       const struct kl_result_field *f)
{
    enum kl_metric m = kl_run_metric(run, r);
    double v =
        f->flags & KL_FIELD_RATE ? kl_run_value(run, r, m) : kl_field_row_value(f, r) * f->scale;
    if (!(f->flags & (KL_FIELD_RANGE | KL_FIELD_RATE))) {
        num_cell(out, v, f->html_fmt, kl_field_row_shown(f, r));
        return;
    }
    if (!r->timed || !isfinite(v)) {
        fputs("<td class=\"num\">–</td>", out);
        return;
    }
    fputs("<td class=\"num\">", out);
    fprintf(out, f->html_fmt, v);
    if (f->flags & KL_FIELD_RANGE) {
        fputs("–", out);
        fprintf(out, f->html_fmt, kl_field_row_value(f + 1, r) * f[1].scale);
    } else {
        fputc(' ', out);
        esc(out, kl_run_unit(run, m));
    }
    fputs("</td>", out);
}

/* What a row changes (a peer: that it is one), why it failed or what was checked, its options. */
static void rung_words(FILE *out, const struct kl_run_row *r)
{
    fputs("<td>", out);
    if (r->peer)
        fputs("<em>peer (a vendor library, not a rung)</em>", out);
    else
        esc(out, r->summary);
    if (r->note[0]) {
        fputs("<br/><span class=\"meta\">", out);
        esc(out, r->note);
        fputs("</span>", out);
    }
    if (kl_run_row_runs(r) > 1)
        fprintf(out,
                "<br/><span class=\"meta\">%d runs, interleaved: the median of their medians; "
                "they spread by %.2g %%</span>",
                kl_run_row_runs(r), 100 * r->run_spread);
    if (r->capped)
        fprintf(out, "<br/><span class=\"meta\">power-capped while timed: the SM clock at %.0f "
                     "MHz (lowest %.0f)</span>",
                r->sm_mhz, r->sm_mhz_min);
    if (r->options[0]) {
        fputs("<br/><code>", out);
        esc(out, r->options);
        fputs("</code>", out);
    }
    fputs("</td></tr>\n", out);
}

/* One rung's row: name, config, status, precision and error, its numbers, its words. */
static void rung_row(FILE *out, const struct kl_run *run, const struct kl_run_row *r, int config,
                     int precision)
{
    fprintf(out, "<tr class=\"%s\"><td class=\"rung\">",
            r->peer      ? "peer"
            : r->on_host ? "host"
                         : "device");
    esc(out, r->rung);
    fputs("</td>", out);
    if (config) {
        fputs("<td>", out);
        esc(out, r->config);
        fputs("</td>", out);
    }
    fprintf(out, "<td class=\"%s\">%s</td>", r->status, r->status);
    if (precision) {
        fprintf(out, "<td>%s</td>", r->precision ? r->precision : "–");
        num_cell(out, r->error, "%.2g", strcmp(r->status, "verified") == 0 && isfinite(r->error));
    }
    for (int k = 0; k < kl_result_field_count; k++)
        if (kl_result_fields[k].flags & KL_FIELD_HTML)
            field_cell(out, run, r, &kl_result_fields[k]);
    rung_words(out, r);
}

static void rung_table(FILE *out, const struct kl_run *run)
{
    int config = 0, precision = 0;
    for (int i = 0; i < run->nrows; i++) {
        config |= run->rows[i].config[0] != '\0';
        precision |= run->rows[i].precision != NULL;
    }
    fputs("<h3>Rungs: what changed and why</h3>\n<table class=\"rungs\">\n<tr><th>rung</th>", out);
    if (config)
        fputs("<th>config</th>", out);
    fputs("<th>status</th>", out);
    if (precision)
        fputs("<th>precision</th><th>error</th>", out);
    for (int k = 0; k < kl_result_field_count; k++)
        if (kl_result_fields[k].flags & KL_FIELD_HTML)
            fprintf(out, "<th>%s</th>", kl_result_fields[k].html);
    fputs("<th>what it changes; what was checked</th></tr>\n", out);
    for (int i = 0; i < run->nrows; i++)
        rung_row(out, run, &run->rows[i], config, precision);
    fputs("</table>\n", out);
}

/* The machine table's header: the kernels' columns (report/fields.h), clocks, power, energy. */
static void machine_head(FILE *out, int energy, int flops)
{
    fputs("<h3>The machine: what bounds each rung</h3>\n<table class=\"machine\">\n"
          "<tr><th>rung</th><th>bound by</th>",
          out);
    for (int c = 1; kl_kernel_column(c); c++)
        fprintf(out, "<th>%s</th>", kl_kernel_column(c)->html);
    fputs("<th>limited by</th><th>SM MHz (lowest)</th><th>W</th>", out);
    if (energy)
        fprintf(out, "<th>mJ / launch</th><th>%s</th>", flops ? "GFLOP/J" : "GB/J");
    fputs("</tr>\n", out);
}

/* A timed rung's machine: bound, its first kernel's resources (report/fields.h), clocks, power. */
static void machine_row(FILE *out, const struct kl_run_row *r, int energy, int flops)
{
    fputs("<tr><td class=\"rung\">", out);
    esc(out, r->rung);
    fprintf(out, "</td><td>%s</td>", r->bound ? r->bound : "–");
    for (int c = 1; kl_kernel_column(c); c++) {
        const struct kl_kernel_field *f = kl_kernel_column(c);
        double v = kl_kernel_row_column(f, r);
        num_cell(out, f->html_scale * v, f->html_fmt, v >= 0);
    }
    fprintf(out, "<td>%s</td>", r->limiter ? r->limiter : "–");
    if (isfinite(r->sm_mhz))
        fprintf(out, "<td class=\"num\">%.0f (%.0f)%s</td>", r->sm_mhz, r->sm_mhz_min,
                r->capped ? " capped" : "");
    else
        fputs("<td class=\"num\">–</td>", out);
    num_cell(out, r->watts, "%.0f", 1);
    if (energy) {
        num_cell(out, 1e3 * r->energy_j, "%.4g", 1);
        num_cell(out, flops ? r->gflops_per_j : r->gbps_per_j, "%.4g", 1);
    }
    fputs("</tr>\n", out);
}

/*
 * Why each rung runs as fast as it does, by the machine (schema version 2):
 * what bounds it, its kernel's resources and occupancy, the clocks and power
 * while it was timed, its energy per launch. Left out for runs without them.
 */
static void machine_table(FILE *out, const struct kl_run *run)
{
    int any = 0, energy = 0, flops = run->flops > 0;
    const char *note = NULL;
    for (int i = 0; i < run->nrows; i++) {
        const struct kl_run_row *r = &run->rows[i];
        any |= r->bound || r->nkernels || isfinite(r->sm_mhz);
        energy |= isfinite(r->energy_j);
        if (!note && r->timed && r->machine_note && r->machine_note[0])
            note = r->machine_note;
    }
    if (!any)
        return;
    machine_head(out, energy, flops);
    for (int i = 0; i < run->nrows; i++)
        if (run->rows[i].timed)
            machine_row(out, &run->rows[i], energy, flops);
    fputs("</table>\n", out);
    if (note) {
        fputs("<p class=\"meta\">", out);
        esc(out, note);
        fputs("</p>\n", out);
    }
}

/* A fact's value as the page shows it: its text, yes or no, a number (bytes in units), or
 * unknown where the driver did not say (null). */
static void fact_value(FILE *out, const char *key, const struct kl_json *v)
{
    char text[128];
    size_t kl = strlen(key);
    if (v->type == KL_JSON_STRING)
        snprintf(text, sizeof text, "%.127s", v->string);
    else if (v->type == KL_JSON_BOOL)
        snprintf(text, sizeof text, "%s", v->boolean ? "yes" : "no");
    else if (v->type == KL_JSON_NUMBER && kl > 6 && strcmp(key + kl - 6, "_bytes") == 0)
        kl_bytes_text(v->number, text, sizeof text);
    else if (v->type == KL_JSON_NUMBER)
        snprintf(text, sizeof text, "%.10g", v->number);
    else if (v->type == KL_JSON_NULL)
        snprintf(text, sizeof text, "unknown");
    else
        snprintf(text, sizeof text, "%s", kl_json_type_name(v->type));
    if (v->type == KL_JSON_STRING && strlen(v->string) >= sizeof text)
        dd_text(out, v->string); /* whole, however long */
    else
        dd_text(out, text);
}

static void device_facts(FILE *out, const struct kl_run *run)
{
    const struct kl_json *d = run->device;
    fputs("<section><h3>Device</h3>\n<dl>\n", out);
    for (int i = 0; i < d->count; i++) {
        dt(out, kl_device_label(d->keys[i])); /* the device facts' table (report/fields.h) */
        fact_value(out, d->keys[i], d->items[i]);
    }
    dt(out, "roofs used");
    fputs("<dd>", out);
    if (run->have_ceil) {
        char roofs[640];
        kl_ceilings_summary(&run->ceil, roofs, sizeof roofs);
        esc(out, roofs);
        fputs("; ", out);
    }
    esc(out, run->ceil_source);
    fputs("</dd>\n</dl></section>\n", out);
}

/* The run's conditions (the JSON's "conditions", absent from older files): the GPU's, and
 * how the inputs were drawn; empty notes left out. */
static void conditions(FILE *out, const struct kl_run *run)
{
    static const char *const labels[][2] = {
        {"locked_mhz", "SM clock locked at (MHz)"},
        {"sm_max_mhz", "highest SM clock (MHz)"},
        {"ecc", "ECC"},
        {"persistence", "persistence mode"},
        {"power_limit_w", "power limit (W)"},
        {"temperature_start_c", "temperature at the start (°C)"},
        {"temperature_end_c", "temperature at the end (°C)"},
        {"lock_note", "--lock-clocks"},
        {"note", "GPU conditions"},
        {"inputs", "inputs"}};
    const struct kl_json *c = kl_json_get(run->root, "conditions");
    for (size_t k = 0; c && c->type == KL_JSON_OBJECT && k < sizeof labels / sizeof *labels; k++) {
        const struct kl_json *v = kl_json_get(c, labels[k][0]);
        if (!v || (v->type == KL_JSON_STRING && !v->string[0]))
            continue;
        dt(out, labels[k][1]);
        fact_value(out, labels[k][0], v);
    }
}

static void provenance(FILE *out, const struct kl_run *run)
{
    char text[256];
    fputs("<section><h3>Provenance</h3>\n<dl>\n", out);
    dt(out, "file");
    dd_text(out, run->name);
    dt(out, "measured");
    dd_text(out, run->date);
    dt(out, "kladder");
    dd_text(out, run->version);
    dt(out, "backend");
    dd_text(out, run->backend);
    dt(out, "driver");
    dd_text(out, run->driver);
    kl_run_params_text(run, text, sizeof text);
    dt(out, "parameters");
    dd_text(out, text);
    const struct kl_json *w = kl_json_get(run->protocol, "warmup"),
                         *r = kl_json_get(run->protocol, "min_repeats"),
                         *t = kl_json_get(run->protocol, "min_time_s");
    if (w && r && t && w->type == KL_JSON_NUMBER && r->type == KL_JSON_NUMBER &&
        t->type == KL_JSON_NUMBER) {
        snprintf(text, sizeof text,
                 "%.0f warm-up launches, then at least %.0f timed launches and %.3g s of kernel "
                 "time",
                 w->number, r->number, t->number);
        dt(out, "protocol");
        dd_text(out, text);
    }
    if (run->flops > 0 || run->bytes > 0) {
        snprintf(text, sizeof text, "%.4g GFLOP and %.4g MB of minimal traffic per launch",
                 run->flops * 1e-9, run->bytes * 1e-6);
        dt(out, "work");
        dd_text(out, text);
    }
    dt(out, "reference");
    dd_text(out, run->reference);
    dt(out, "ceilings at run time");
    dd_text(out, run->ceiling_note);
    conditions(out, run);
    fputs("</dl></section>\n", out);
}

/* The string member key of v, or "" (a reader of older or foreign files tolerates gaps). */
static const char *text_of(const struct kl_json *v, const char *key)
{
    const struct kl_json *x = kl_json_get(v, key);
    return x && x->type == KL_JSON_STRING ? x->string : "";
}

/* What the compilers said about the run's builds (its build_logs), folded: one entry a build. */
static void build_logs(FILE *out, const struct kl_run *run)
{
    const struct kl_json *logs = kl_json_get(run->root, "build_logs");
    if (!logs || logs->type != KL_JSON_ARRAY || logs->count == 0)
        return;
    fprintf(out,
            "<details class=\"build-logs\"><summary>Compiler messages: %d build%s said "
            "something (warnings; the builds succeeded)</summary>\n",
            logs->count, logs->count == 1 ? "" : "s");
    for (int i = 0; i < logs->count; i++) {
        const struct kl_json *b = logs->items[i];
        fputs("<p><code>", out);
        esc(out, text_of(b, "kernel"));
        fputs("</code> <code>", out);
        esc(out, text_of(b, "options"));
        fputs("</code></p>\n<pre>", out);
        esc(out, text_of(b, "log"));
        fputs("</pre>\n", out);
    }
    fputs("</details>\n", out);
}

static void chart_figure_open(FILE *out)
{
    fputs("<figure class=\"chart\">\n", out);
}

static void run_section(FILE *out, struct kl_run *run, int index, int *chart_id)
{
    char params[300];
    enum kl_metric ms[3];
    int nm = kl_svg_metrics(run, ms);
    kl_run_params_text(run, params, sizeof params);
    fprintf(out, "<section class=\"run\" id=\"run-%d\" data-workload=\"", index);
    esc(out, run->workload);
    fprintf(out, "\">\n<h2>%d. ", index);
    esc(out, run->workload);
    fputs(" — ", out);
    esc(out, params);
    fputs("</h2>\n<p class=\"meta\">", out);
    esc(out, run->dev_name);
    fputs(" · ", out);
    esc(out, run->backend);
    fputs(" · driver ", out);
    esc(out, run->driver);
    fputs(" · ", out);
    esc(out, run->date);
    fputs(" · from ", out);
    esc(out, run->name);
    fputs("</p>\n", out);
    if (run->article) {
        fputs("<p class=\"article\">The ladder as an article, each rung's change beside what it "
              "did: <a href=\"", out);
        esc(out, run->article);
        fputs("\">", out);
        esc(out, run->article);
        fputs("</a></p>\n", out);
    }
    verdict(out, run, nm ? ms[0] : KL_METRIC_FLOPS);
    fputs("<div class=\"charts\">\n", out);
    if (run->sweep) {
        chart_figure_open(out);
        kl_svg_sweep(out, run, (*chart_id)++, 0);
        fputs("</figure>\n", out);
    } else {
        for (int k = 0; k < nm; k++) {
            chart_figure_open(out);
            kl_svg_ladder(out, run, ms[k], (*chart_id)++, 0);
            fputs("</figure>\n", out);
        }
        if (run->curves) { /* peak's cache sweep beside its other rows */
            chart_figure_open(out);
            kl_svg_sweep(out, run, (*chart_id)++, 0);
            fputs("</figure>\n", out);
        }
    }
    if (strcmp(run->workload, "blur") == 0)
        blur_pictures(out, run); /* beside the ladder, where the page is wide enough */
    if (kl_svg_has_trace(run)) { /* a soak's iterations over time */
        chart_figure_open(out);
        kl_svg_trace(out, run, (*chart_id)++, 0);
        fputs("</figure>\n", out);
    }
    if (kl_svg_has_roofline(run) || (strcmp(run->workload, "peak") == 0 && run->have_ceil)) {
        chart_figure_open(out);
        kl_svg_roofline(out, run, (*chart_id)++, 0);
        fputs("</figure>\n", out);
    }
    fputs("</div>\n", out);
    if (run->nrows > 0 && !kl_svg_has_roofline(run) && strcmp(run->workload, "peak") != 0)
        fputs("<p class=\"note\">No roofline: these rows count bytes but no FLOPs, so each rung "
              "is measured against the copy bandwidth (its % of roof) in the chart above.</p>\n",
              out);
    rung_table(out, run);
    machine_table(out, run);
    build_logs(out, run);
    fputs("<div class=\"facts\">\n", out);
    device_facts(out, run);
    provenance(out, run);
    fputs("</div>\n</section>\n", out);
}

/* The page's head, up to its header's first line; title is escaped. */
static void page_begin(FILE *out, const char *title, const char *heading)
{
    fputs("<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n"
          "<meta charset=\"utf-8\"/>\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n<title>",
          out);
    esc(out, title);
    fprintf(out, "</title>\n<style>%s</style>\n</head>\n<body>\n<header>\n<h1>", css);
    esc(out, heading);
    fputs("</h1>\n", out);
}

static void page_end(FILE *out)
{
    fputs("<footer>kladder ", out);
    esc(out, KLADDER_VERSION);
    fputs(": the kernel ladder. This page is self-contained: it loads nothing.</footer>\n"
          "</body>\n</html>\n",
          out);
}

/*
 * Where the runs are a GEMM shape sweep: its chart, then per precision the
 * shapes where kladder's fastest rung is at the library's speed (0.95× or
 * more) and those where it is not.
 */
static void shapes_section(FILE *out, const struct kl_run *runs, int n, int *chart_id)
{
    struct kl_shapes *sh = malloc(sizeof *sh);
    char why[256];
    if (!sh || kl_shapes_collect(runs, n, sh, why, sizeof why) != 0) {
        free(sh);
        return;
    }
    fputs(
        "<section class=\"shapes\" id=\"shapes\">\n<h2>GEMM shapes</h2>\n<div class=\"charts\">\n",
        out);
    kl_svg_shapes(out, runs, sh, (*chart_id)++, 0);
    fputs("</div>\n<ul class=\"precisions\">\n", out);
    for (int s = 0; s < sh->nseries; s++) {
        const struct kl_shape_series *x = &sh->s[s];
        int below = 0;
        fprintf(out,
                "<li><b>%s</b>: at %g× the library or more at %d of %d shapes (%.2f× to %.2f×)",
                x->precision, KL_SHAPES_GOOD, x->good, x->n, kl_shapes_shown(x->lo),
                kl_shapes_shown(x->hi));
        for (int k = 0; k < x->n; k++) {
            char name[64];
            if (x->pt[k].ratio >= KL_SHAPES_GOOD)
                continue;
            kl_shape_name(&runs[x->pt[k].run], name, sizeof name);
            fprintf(out, "%s%s %.2f×", below++ ? ", " : "; below at ", name,
                    kl_shapes_shown(x->pt[k].ratio));
        }
        fputs("</li>\n", out);
    }
    fputs("</ul>\n</section>\n", out);
    free(sh);
}

void kl_html_report(FILE *out, struct kl_run *runs, int n)
{
    char now[32], title[256] = "kladder report";
    int chart_id = 0;
    kl_utc_now(now, sizeof now);
    for (int i = 0; i < n; i++)
        kl_run_find_ceilings(&runs[i]);
    for (int i = 0; i < n && i < 3; i++) {
        size_t used = strlen(title);
        snprintf(title + used, sizeof title - used, "%s%s", i ? ", " : ": ", runs[i].workload);
    }
    if (n > 3)
        snprintf(title + strlen(title), sizeof title - strlen(title), ", …");
    page_begin(out, title, "kladder report");
    fprintf(out,
            "<p class=\"meta\">%d run%s · written %s by kladder %s · every rate is of a "
            "rung whose result was checked against a reference; bars and points are the "
            "median of its timed launches, whiskers the fastest to the slowest.</p>\n",
            n, n == 1 ? "" : "s", now, KLADDER_VERSION);
    if (n > 1) {
        fputs("<nav><ol>\n", out);
        for (int i = 0; i < n; i++) {
            char params[300];
            kl_run_params_text(&runs[i], params, sizeof params);
            fprintf(out, "<li><a href=\"#run-%d\">", i + 1);
            esc(out, runs[i].workload);
            fputs(" ", out);
            esc(out, params);
            fputs("</a> on ", out);
            esc(out, runs[i].dev_name);
            fputs("</li>\n", out);
        }
        fputs("</ol></nav>\n", out);
    }
    fputs("</header>\n", out);
    shapes_section(out, runs, n, &chart_id);
    kl_radii_section(out, runs, n, &chart_id);
    for (int i = 0; i < n; i++)
        run_section(out, &runs[i], i + 1, &chart_id);
    page_end(out);
}

void kl_html_fleet(FILE *out, struct kl_fleet *f)
{
    char title[128], now[32];
    int chart_id = 0;
    kl_utc_now(now, sizeof now);
    snprintf(title, sizeof title, "kladder fleet: %s on %d device%s", f->command, f->n,
             f->n == 1 ? "" : "s");
    for (int i = 0; i < f->n; i++)
        if (f->has_run[i])
            kl_run_find_ceilings(&f->run[i]);
    page_begin(out, title, title);
    fprintf(out,
            "<p class=\"meta\">gathered %s · written %s by kladder %s · every rate is of a "
            "rung whose result was checked against a reference on its own device.</p>\n",
            f->created, now, KLADDER_VERSION);
    fputs("</header>\n", out);
    kl_fleet_section(out, f, chart_id++);
    for (int i = 0, k = 0; i < f->n; i++)
        if (f->has_run[i]) {
            fprintf(out, "<div id=\"member-%d\">\n", i);
            run_section(out, &f->run[i], ++k, &chart_id);
            fputs("</div>\n", out);
        }
    page_end(out);
}

int kl_html_shapes_svg(FILE *out, struct kl_run *runs, int nruns, char *why, size_t n)
{
    struct kl_shapes *sh = malloc(sizeof *sh);
    char reason[256];
    if (!sh) {
        snprintf(why, n, "out of memory");
        return -1;
    }
    if (kl_shapes_collect(runs, nruns, sh, reason, sizeof reason) != 0) {
        snprintf(why, n, "no shape chart: %s", reason);
        free(sh);
        return -1;
    }
    kl_svg_shapes(out, runs, sh, 0, 1);
    free(sh);
    return 0;
}

int kl_html_radii_svg(FILE *out, struct kl_run *runs, int nruns, char *why, size_t n)
{
    struct kl_radii *rd = malloc(sizeof *rd);
    char reason[256];
    if (!rd) {
        snprintf(why, n, "out of memory");
        return -1;
    }
    if (kl_radii_collect(runs, nruns, rd, reason, sizeof reason) != 0) {
        snprintf(why, n, "no radius chart: %s", reason);
        free(rd);
        return -1;
    }
    kl_svg_radii(out, runs, rd, -1, 0, 1);
    free(rd);
    return 0;
}

int kl_html_chart_svg(FILE *out, struct kl_run *run, enum kl_chart chart, char *why, size_t n)
{
    enum kl_metric ms[3];
    kl_run_find_ceilings(run);
    switch (chart) {
    case KL_CHART_LADDER:
        if (run->sweep) {
            snprintf(why, n, "%s is a sweep: its chart is --chart sweep", run->name);
            return -1;
        }
        if (kl_svg_metrics(run, ms) == 0) {
            snprintf(why, n, "%s has no rows to chart", run->name);
            return -1;
        }
        kl_svg_ladder(out, run, ms[0], 0, 1);
        return 0;
    case KL_CHART_ROOFLINE:
        if (!kl_svg_has_roofline(run) && !(strcmp(run->workload, "peak") == 0 && run->have_ceil)) {
            snprintf(why, n,
                     "%s has no roofline: its rows count bytes but no FLOPs (try --chart %s)",
                     run->name, run->sweep ? "sweep" : "ladder");
            return -1;
        }
        kl_svg_roofline(out, run, 0, 1);
        return 0;
    case KL_CHART_SWEEP:
        if (!run->sweep) {
            snprintf(why, n, "%s is not a sweep (kladder copy --sweep makes one)", run->name);
            return -1;
        }
        kl_svg_sweep(out, run, 0, 1);
        return 0;
    }
    return -1;
}
