/*
 * The fleet's own section of its page (kl_html_fleet in html.c writes the
 * rest): who ran, each rung across the members with min, median, max and
 * the stragglers, and a chart of the spread, every bar a member's rate as a
 * share of the fastest member's on that rung.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fleet/fleet.h"
#include "report/html.h"
#include "report/svg.h"

#define esc kl_xml_text

/* Member colours, in turn; a straggler's bar is red whatever its member's colour. */
static const char *const palette[] = {"#3465a4", "#4e9a06", "#75507b", "#c17d11",
                                      "#06989a", "#5c3566", "#8f5902", "#204a87"};
#define STRAGGLER "#c4161c"

static void num(FILE *out, double v, const char *cls)
{
    fprintf(out, "<td class=\"num%s%s\">", cls ? " " : "", cls ? cls : "");
    if (isfinite(v))
        fprintf(out, "%.4g", v);
    else
        fputs("–", out);
    fputs("</td>", out);
}

static void members_table(FILE *out, const struct kl_fleet *f)
{
    char name[KL_FLEET_SPEC + 160];
    fputs("<h2>Members</h2>\n<table class=\"members\">\n<tr><th>#</th><th>member</th>"
          "<th>host</th><th>device</th><th>PCI bus</th><th>driver</th><th>exit</th>"
          "<th>note</th></tr>\n",
          out);
    for (int i = 0; i < f->n; i++) {
        const struct kl_run *run = &f->run[i];
        const struct kl_json *bus = f->has_run[i] ? kl_json_get(run->device, "pci_bus_id") : NULL;
        kl_fleet_member_name(f, i, name, sizeof name);
        fprintf(out, "<tr data-member=\"%d\"><td>d%d</td><td class=\"rung\">", i, i);
        esc(out, name);
        fputs("</td><td>", out);
        esc(out, f->member[i].host);
        fputs("</td><td>", out);
        esc(out, f->has_run[i] ? run->dev_name : "–");
        fputs("</td><td>", out);
        esc(out, bus && bus->type == KL_JSON_STRING ? bus->string : "–");
        fputs("</td><td>", out);
        esc(out, f->has_run[i] ? run->driver : "–");
        fprintf(out, "</td><td class=\"num%s\">%d</td><td>",
                f->member[i].exit_code ? " failed" : "", f->member[i].exit_code);
        esc(out, f->has_run[i] ? "" : f->why[i]);
        fputs("</td></tr>\n", out);
    }
    fputs("</table>\n", out);
}

static void summary_table(FILE *out, const struct kl_fleet *f)
{
    fprintf(out,
            "<h2>Every rung across the fleet</h2>\n<p class=\"meta\">The median of each "
            "member's timed launches; a straggler (red) is slower than the rung's median over "
            "the members by more than %.0f%%; a member whose row failed verification has no "
            "value.</p>\n<table class=\"fleet\">\n<tr><th>rung</th>"
            "<th>unit</th>",
            KL_FLEET_STRAGGLER * 100);
    for (int i = 0; i < f->n; i++)
        fprintf(out, "<th>d%d</th>", i);
    fputs("<th>min</th><th>median</th><th>max</th><th>stragglers and failures</th></tr>\n", out);
    for (int k = 0; k < f->nrows; k++) {
        const struct kl_fleet_row *r = &f->rows[k];
        fputs("<tr><td class=\"rung\">", out);
        esc(out, r->rung);
        fputs("</td><td>", out);
        esc(out, r->unit);
        fputs("</td>", out);
        for (int i = 0; i < f->n; i++)
            if (r->failed[i])
                fprintf(out, "<td class=\"num failed\">%s</td>", r->status[i]);
            else
                num(out, r->value[i], r->straggler[i] ? "failed" : NULL);
        num(out, r->min, NULL);
        num(out, r->median, NULL);
        num(out, r->max, NULL);
        char why[96];
        fputs("<td>", out);
        esc(out, kl_fleet_row_verdict(f, r, why, sizeof why));
        fputs("</td></tr>\n", out);
    }
    fputs("</table>\n", out);
}

#define W 940
#define X0 170 /* bars start here; rung names to their left */
#define PW 560 /* the fastest member's bar */
#define BAR 7
#define TOP 40

/* The best value of a row: the highest rate, or the shortest time. */
static double best_of(const struct kl_fleet_row *r)
{
    return r->metric == KL_METRIC_TIME ? r->min : r->max;
}

static void spread_chart(FILE *out, const struct kl_fleet *f, int id)
{
    char bg[8];
    int band = f->n * BAR + 10, h = TOP + f->nrows * band + 20;
    kl_svg_background(id, bg);
    fprintf(out,
            "<figure class=\"chart\"><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
            "height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, Verdana, sans-serif\" "
            "font-size=\"11\" role=\"img\">\n<title>Each member's rate as a share of the fastest "
            "member's, rung by rung</title>\n",
            W, h, W, h);
    fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n", W, h);
    fprintf(out,
            "<g class=\"plot\" data-left=\"%d\" data-top=\"%d\" data-width=\"%d\" "
            "data-height=\"%d\">\n<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
            "fill=\"%s\"/>\n",
            X0, TOP - 4, PW, f->nrows * band, X0, TOP - 4, PW, f->nrows * band, bg);
    for (int pct = 0; pct <= 100; pct += 25)
        fprintf(out,
                "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#ccd\"/><text x=\"%d\" "
                "y=\"%d\" text-anchor=\"middle\">%d%%</text>\n",
                X0 + PW * pct / 100, TOP - 4, X0 + PW * pct / 100, TOP - 4 + f->nrows * band,
                X0 + PW * pct / 100, TOP - 10, pct);
    for (int i = 0; i < f->n; i++) /* the legend */
        fprintf(out,
                "<rect x=\"%d\" y=\"8\" width=\"10\" height=\"10\" fill=\"%s\"/><text x=\"%d\" "
                "y=\"17\">d%d</text>\n",
                X0 + PW + 20 + (i % 6) * 40, palette[i % 8], X0 + PW + 33 + (i % 6) * 40, i);
    for (int k = 0; k < f->nrows; k++) {
        const struct kl_fleet_row *r = &f->rows[k];
        double best = best_of(r);
        int y = TOP + k * band;
        fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", X0 - 6, y + band / 2 + 2);
        esc(out, r->rung);
        fputs("</text>\n", out);
        for (int i = 0; i < f->n; i++) {
            double v = r->value[i];
            if (!isfinite(v) || !(best > 0))
                continue;
            double share = r->metric == KL_METRIC_TIME ? best / v : v / best;
            fprintf(
                out,
                "<rect class=\"bar\" data-member=\"%d\" data-value=\"%.9g\" data-share=\"%.6f\" "
                "data-straggler=\"%d\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
                "fill=\"%s\"><title>d%d: %.4g %s</title></rect>\n",
                i, v, share, r->straggler[i], X0, y + 2 + i * BAR, share * PW, BAR - 1,
                r->straggler[i] ? STRAGGLER : palette[i % 8], i, v, r->unit);
        }
        fprintf(out, "<text x=\"%d\" y=\"%d\">median ", X0 + PW + 8, y + band / 2 + 2);
        if (isfinite(r->median))
            fprintf(out, "%.4g ", r->median);
        esc(out, isfinite(r->median) ? r->unit : "–");
        fputs("</text>\n", out);
    }
    fputs("</g>\n</svg><figcaption>Each bar is a member's median rate as a share of the "
          "fastest member's on that rung (for a time, the shortest over the member's); red: a "
          "straggler.</figcaption></figure>\n",
          out);
}

void kl_fleet_section(FILE *out, const struct kl_fleet *f, int chart_id)
{
    fprintf(out, "<section class=\"fleet\" id=\"fleet\" data-members=\"%d\">\n", f->n);
    members_table(out, f);
    summary_table(out, f);
    if (f->nrows > 0)
        spread_chart(out, f, chart_id);
    fputs("</section>\n", out);
}
