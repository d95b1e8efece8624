/*
 * The article as one HTML page (article/article.h): a section per rung with
 * its Change paragraph, its diffs (line numbers, the changed lines marked,
 * the whole source folded beneath) and what it did; the charts link each
 * rung's mark to its section. Self-contained and well-formed XML, as the
 * report's page is: inline CSS and SVG, no script, nothing fetched.
 */
#include "article/article.h"

#include <math.h>
#include <string.h>

#include "kladder.h"

#include "report/svg.h"

#define esc kl_xml_text

static const char css[] =
    "body{font-family:'DejaVu Sans',Verdana,Arial,sans-serif;color:#222;background:#fff;"
    "margin:0 auto;padding:16px 24px;max-width:1180px;font-size:14px;line-height:1.5}"
    "h1{font-size:24px;margin:4px 0}h2{font-size:19px;margin:36px 0 4px;border-top:2px solid "
    "#3465a4;padding-top:10px}h3{font-size:15px;margin:16px 0 6px}"
    ".meta,.note{color:#555}.note{font-style:italic}"
    "blockquote.change{margin:8px 0;padding:6px 14px;border-left:4px solid #3465a4;"
    "background:#f4f7fb}.summary{color:#444}.sentence{font-weight:bold}"
    ".changed{color:#a15c00;font-weight:bold}"
    ".charts{display:flex;flex-wrap:wrap;gap:12px}figure{margin:0}"
    "figure.chart svg{display:block;border:1px solid #e3e6ea}"
    "table{border-collapse:collapse;font-size:13px;margin:6px 0}th,td{border-bottom:1px solid "
    "#e3e6ea;padding:3px 8px;text-align:left;vertical-align:top}th{background:#f2f4f7}"
    "td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}"
    "code,pre{font-family:'DejaVu Sans Mono',Menlo,Consolas,monospace;font-size:12px}"
    "pre{margin:6px 0;padding:6px 0;background:#fafbfc;border:1px solid #e3e6ea;overflow-x:auto}"
    "pre span{display:block;white-space:pre;padding:0 8px}pre span.add{background:#e6ffec}"
    "pre span.del{background:#ffebe9}pre span.hunk{background:#eef2f8;color:#555}"
    "pre i{display:inline-block;width:3.2em;color:#888;font-style:normal;text-align:right;"
    "margin-right:6px}summary{cursor:pointer;color:#3465a4}"
    ".verified,.measured{color:#2e7d32}.failed,.timeout{color:#c4161c;font-weight:bold}"
    ".skipped{color:#777}nav ol{columns:3;margin:4px 0}footer{margin-top:32px;color:#777;"
    "font-size:12px}";

/* A number cell: the value printed by f, or a dash where unknown. */
static void num_cell(FILE *out, const char *f, double v)
{
    fputs("<td class=\"num\">", out);
    if (isfinite(v))
        fprintf(out, f, v);
    else
        fputs("–", out);
    fputs("</td>", out);
}

/* ---- the head ------------------------------------------------------------------------ */

static void head(FILE *out, const struct kl_article *a)
{
    const struct kl_run *run = a->run;
    char params[300];
    kl_run_params_text(run, params, sizeof params);
    fputs("<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n"
          "<meta charset=\"utf-8\"/>\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n<title>",
          out);
    fprintf(out, "The %s ladder on ", run->workload);
    esc(out, run->dev_name);
    fprintf(out, "</title>\n<style>%s</style>\n</head>\n<body>\n<header>\n<h1>The ", css);
    esc(out, run->workload);
    fputs(" ladder on ", out);
    esc(out, run->dev_name);
    fputs("</h1>\n<p class=\"meta\">", out);
    esc(out, params);
    fputs(" · ", out);
    esc(out, run->backend ? run->backend : "");
    fputs(", driver ", out);
    esc(out, run->driver ? run->driver : "?");
    fputs(" · measured ", out);
    esc(out, run->date ? run->date : "?");
    fputs(" by kladder ", out);
    esc(out, run->version ? run->version : "?");
    fputs(" · ", out);
    esc(out, run->name);
    fputs("</p>\n<p>Each rung below is one step of the ladder: the paragraph its kernel file "
          "gives for what changed and why it should help, the change itself against the rung "
          "below (its source and its build options), and what the change did on this device, "
          "every rung verified against the same reference. Faster and slower are kladder "
          "compare's verdicts on the two rungs' launch times, never a difference of noise.</p>\n",
          out);
    if (!a->hashed)
        fputs("<p class=\"note\">This run's file records no hash of the sources it built (it is "
              "older than schema version 3): the sources shown are today's.</p>\n",
              out);
    if (a->nchanged)
        fprintf(out,
                "<p class=\"changed\">%d source%s changed since the run and %s shown as %s now "
                "(--force), each marked: the figures are of what the run built.</p>\n",
                a->nchanged, a->nchanged == 1 ? "" : "s", a->nchanged == 1 ? "is" : "are",
                a->nchanged == 1 ? "it is" : "they are");
    fputs("</header>\n<nav><ol>\n", out);
    for (int i = 0; i < a->nrungs; i++) {
        const struct kl_article_rung *r = &a->rungs[i];
        fprintf(out, "<li><a href=\"#%s\">", r->anchor);
        esc(out, r->row->rung);
        fprintf(out, "</a> <span class=\"%s\">%s</span></li>\n", r->row->status, r->row->status);
    }
    if (a->npeers)
        fputs("<li><a href=\"#libraries\">the libraries</a></li>\n", out);
    fputs("</ol></nav>\n", out);
}

/* The ladder chart of each metric and the roofline, each rung's mark linked to its section. */
static void charts(FILE *out, const struct kl_article *a)
{
    enum kl_metric m[3];
    int nm = kl_svg_metrics(a->run, m), id = 0;
    fputs("<section class=\"charts\" id=\"charts\">\n", out);
    for (int k = 0; k < nm; k++) {
        fputs("<figure class=\"chart\">", out);
        kl_svg_ladder(out, a->run, m[k], id++, 0);
        fputs("</figure>\n", out);
    }
    if (kl_svg_has_roofline(a->run)) {
        fputs("<figure class=\"chart\">", out);
        kl_svg_roofline(out, a->run, id++, 0);
        fputs("</figure>\n", out);
    }
    fputs("</section>\n", out);
}

/* ---- one rung ------------------------------------------------------------------------- */

/* The row's figures: time, rate, roof, bound, the machine, the speed-ups, its precision. */
static void figures(FILE *out, const struct kl_article *a, const struct kl_article_rung *r)
{
    const struct kl_run_row *x = r->row;
    enum kl_metric m = kl_run_metric(a->run, x);
    char rate[48];
    snprintf(rate, sizeof rate, "%s", kl_run_unit(a->run, m));
    fprintf(out,
            "<table class=\"figures\"><tr><th>median</th><th>%s</th><th>%% of roof</th>"
            "<th>bound</th><th>registers</th><th>occupancy</th><th>× below</th>"
            "<th>× first</th><th>precision</th><th>error</th></tr>\n<tr>",
            rate);
    num_cell(out, "%.4g ms", x->timed ? x->median_s * 1e3 : NAN);
    num_cell(out, "%.4g", x->timed ? kl_run_value(a->run, x, m) : NAN);
    num_cell(out, "%.3g", x->timed && x->pct_ceiling > 0 ? x->pct_ceiling : NAN);
    fputs("<td>", out);
    esc(out, x->bound ? x->bound : "–");
    fputs("</td>", out);
    num_cell(out, "%.0f", x->regs >= 0 ? (double)x->regs : NAN);
    num_cell(out, "%.0f%%", isfinite(x->occupancy) ? 100 * x->occupancy : NAN);
    num_cell(out, "%.3g×", r->speedup);
    num_cell(out, "%.3g×", x->speedup_first);
    fputs("<td>", out);
    esc(out, x->precision ? x->precision : "–");
    fputs("</td>", out);
    num_cell(out, "%.2g", x->error);
    fputs("</tr></table>\n", out);
}

/* The rung's values, each with where it came from, and the base's where it differs. */
static void values(FILE *out, const struct kl_article *a, const struct kl_article_rung *r)
{
    const struct kl_json *v = r->row->values;
    const struct kl_json *bv = r->base >= 0 ? a->rungs[r->base].row->values : NULL;
    if (!v || v->count == 0)
        return;
    fputs("<table class=\"values\"><tr><th>parameter</th><th>value</th><th>from</th>", out);
    if (bv)
        fputs("<th>below</th>", out);
    fputs("</tr>\n", out);
    for (int k = 0; k < v->count; k++) {
        const struct kl_json *name = kl_json_get(v->items[k], "name");
        const struct kl_json *val = kl_json_get(v->items[k], "value");
        const struct kl_json *from = kl_json_get(v->items[k], "from");
        fputs("<tr><td><code>", out);
        esc(out, name->string);
        fprintf(out, "</code></td><td class=\"num\">%.0f</td><td>", val->number);
        esc(out, from->string);
        fputs("</td>", out);
        if (bv) {
            const char *was = "–";
            char buf[32];
            for (int j = 0; j < bv->count; j++)
                if (strcmp(kl_json_get(bv->items[j], "name")->string, name->string) == 0) {
                    double b = kl_json_get(bv->items[j], "value")->number;
                    snprintf(buf, sizeof buf, "%.0f", b);
                    was = b == val->number ? "the same" : buf;
                }
            fprintf(out, "<td>%s</td>", was);
        }
        fputs("</tr>\n", out);
    }
    fputs("</table>\n", out);
}

/* The build options the change dropped and added. */
static void options(FILE *out, const struct kl_article_rung *r, const struct kl_article_rung *b)
{
    fputs("<p>Build options: ", out);
    if (!r->opts_dropped[0] && !r->opts_added[0]) {
        fputs("the same as ", out);
        esc(out, b->row->rung);
        fputs("'s", out);
    } else {
        if (r->opts_dropped[0]) {
            fputs("dropped <code>", out);
            esc(out, r->opts_dropped);
            fputs("</code>", out);
        }
        if (r->opts_added[0]) {
            fputs(r->opts_dropped[0] ? "; added <code>" : "added <code>", out);
            esc(out, r->opts_added);
            fputs("</code>", out);
        }
    }
    fputs(".</p>\n", out);
}

/* The diff's hunks: each line with its numbers in the old and new text, marked by kind. */
static void diff_block(FILE *out, const struct kl_diff *d)
{
    fputs("<pre class=\"diff\">", out);
    for (int h = 0; h < d->nhunks; h++) {
        const struct kl_diff_hunk *k = &d->hunks[h];
        fprintf(out, "<span class=\"hunk\">@@ -%d,%d +%d,%d @@</span>", k->old_start,
                k->old_lines, k->new_start, k->new_lines);
        for (int l = 0; l < k->nlines; l++) {
            const struct kl_diff_line *x = &k->lines[l];
            fprintf(out, "<span class=\"%s\"><i>", x->origin == '+'   ? "add"
                                                   : x->origin == '-' ? "del"
                                                                      : "ctx");
            if (x->old_no)
                fprintf(out, "%d", x->old_no);
            fputs("</i><i>", out);
            if (x->new_no)
                fprintf(out, "%d", x->new_no);
            fprintf(out, "</i>%c", x->origin);
            esc(out, x->text);
            fputs("</span>", out);
        }
    }
    fputs("</pre>\n", out);
}

/* A text with its line numbers, folded under summary. */
static void folded(FILE *out, const char *summary, const char *text)
{
    int line = 1;
    fputs("<details><summary>", out);
    esc(out, summary);
    fputs("</summary><pre class=\"source\">", out);
    for (const char *p = text; *p;) {
        size_t len = strcspn(p, "\n");
        char buf[4096];
        snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf ? len : sizeof buf - 1), p);
        fprintf(out, "<span><i>%d</i>", line++);
        esc(out, buf);
        fputs("</span>", out);
        p += len + (p[len] == '\n');
    }
    fputs("</pre></details>\n", out);
}

static int count_lines(const char *text)
{
    int n = 0;
    for (const char *p = text; *p; p++)
        n += *p == '\n';
    return n + (text[0] && text[strlen(text) - 1] != '\n');
}

/* What changed from the rung below, or the source whole. */
static void change_section(FILE *out, const struct kl_article *a, const struct kl_article_rung *r)
{
    char summary[512];
    if (!r->file) {
        fputs("<p class=\"note\">A host rung: its loop is kladder's own C, not a kernel; the "
              "rung table's line above says what it does.</p>\n",
              out);
        return;
    }
    if (!r->text) {
        fputs("<p class=\"note\">Its source is not here: ", out);
        esc(out, r->source_why);
        fputs("</p>\n", out);
        return;
    }
    if (r->changed) {
        fputs("<p class=\"changed\">", out);
        esc(out, r->file);
        fputs(" has changed since the run: the source below is today's, not the one the run "
              "built (--force).</p>\n",
              out);
    }
    if (r->base >= 0) {
        const struct kl_article_rung *b = &a->rungs[r->base];
        fputs("<h3>What changed from ", out);
        esc(out, b->row->rung);
        fputs("</h3>\n", out);
        options(out, r, b);
        values(out, a, r);
        if (r->same_text) {
            fputs("<p>The same source as ", out);
            esc(out, b->row->rung);
            fputs(" (<code>", out);
            esc(out, r->file);
            fputs("</code>): the change is in the options alone.</p>\n", out);
        } else {
            fprintf(out, "<p><code>");
            esc(out, b->file);
            fputs("</code> → <code>", out);
            esc(out, r->file);
            fprintf(out, "</code>: %d lines added, %d removed.</p>\n", r->diff.added,
                    r->diff.removed);
            diff_block(out, &r->diff);
            for (int k = 0; k < r->nincludes; k++) {
                snprintf(summary, sizeof summary, "%s, whose #include the change touches",
                         r->include_file[k]);
                folded(out, summary, r->include_text[k]);
            }
        }
    } else {
        fputs("<h3>Its source</h3>\n<p>", out);
        fputs(r->row == a->rungs[0].row ? "The ladder's first kernel" :
              "The first rung of its language (or a kernel of the user's)", out);
        fputs(": shown whole.</p>\n", out);
        values(out, a, r);
    }
    snprintf(summary, sizeof summary, "The whole source of %s (%d lines)", r->file,
             count_lines(r->text));
    folded(out, summary, r->text);
}

static void rung_section(FILE *out, const struct kl_article *a, const struct kl_article_rung *r)
{
    const struct kl_run_row *x = r->row;
    fprintf(out, "<section class=\"rung\" id=\"%s\">\n<h2>", r->anchor);
    esc(out, x->rung);
    fprintf(out, " <span class=\"%s\">%s</span></h2>\n<p class=\"summary\">", x->status,
            x->status);
    esc(out, x->summary);
    if (x->config && x->config[0]) {
        fputs(" <span class=\"note\">(", out);
        esc(out, x->config);
        fputs(")</span>", out);
    }
    fputs("</p>\n", out);
    if (r->change[0]) {
        fputs("<blockquote class=\"change\"><p>", out);
        esc(out, r->change);
        fputs("</p></blockquote>\n", out);
    }
    fputs("<p class=\"sentence\">", out);
    esc(out, r->sentence);
    fputs("</p>\n", out);
    figures(out, a, r);
    change_section(out, a, r);
    fputs("</section>\n", out);
}

/* The libraries in the same run, their figures beside the rungs'. */
static void libraries(FILE *out, const struct kl_article *a)
{
    if (!a->npeers)
        return;
    fputs("<section id=\"libraries\">\n<h2>The libraries in the same run</h2>\n<table><tr>"
          "<th>library</th><th>status</th><th>median</th><th>rate</th><th>% of roof</th>"
          "<th>precision</th><th>note</th></tr>\n",
          out);
    for (int i = 0; i < a->npeers; i++) {
        const struct kl_run_row *x = a->peers[i];
        enum kl_metric m = kl_run_metric(a->run, x);
        fputs("<tr><td><code>", out);
        esc(out, x->rung);
        fprintf(out, "</code></td><td class=\"%s\">%s</td>", x->status, x->status);
        num_cell(out, "%.4g ms", x->timed ? x->median_s * 1e3 : NAN);
        fputs("<td class=\"num\">", out);
        if (x->timed) {
            fprintf(out, "%.4g ", kl_run_value(a->run, x, m));
            esc(out, kl_run_unit(a->run, m));
        } else {
            fputs("–", out);
        }
        fputs("</td>", out);
        num_cell(out, "%.3g", x->timed && x->pct_ceiling > 0 ? x->pct_ceiling : NAN);
        fputs("<td>", out);
        esc(out, x->precision ? x->precision : "–");
        fputs("</td><td>", out);
        esc(out, x->note);
        fputs("</td></tr>\n", out);
    }
    fputs("</table>\n</section>\n", out);
}

void kl_article_html(FILE *out, const struct kl_article *a)
{
    head(out, a);
    charts(out, a);
    for (int i = 0; i < a->nrungs; i++)
        rung_section(out, a, &a->rungs[i]);
    libraries(out, a);
    fputs("<footer>kladder ", out);
    esc(out, KLADDER_VERSION);
    fputs(": the kernel ladder. This page is self-contained: it loads nothing.</footer>\n"
          "</body>\n</html>\n",
          out);
}
