/*
 * The article as Markdown (article/article.h), CommonMark with the tables
 * that code-hosting sites render: the same sections as the page, each diff
 * as a fenced `diff` block holding the patch as git prints it (so a reader
 * can apply it), the whole source folded in a <details> block.
 */
#include "article/article.h"

#include <math.h>
#include <string.h>

#include "kladder.h"

/* Text with Markdown's punctuation escaped, so a name or a note reads as itself. */
static void md_text(FILE *out, const char *s)
{
    for (; s && *s; s++) {
        if (strchr("\\`*_[]<>|#", *s))
            fputc('\\', out);
        fputc(*s == '\n' ? ' ' : *s, out);
    }
}

/* A fence longer than any run of backticks in text (at least three). */
static void fence(FILE *out, const char *text, const char *info)
{
    int longest = 0, run = 0;
    for (const char *p = text; *p; p++) {
        run = *p == '`' ? run + 1 : 0;
        longest = run > longest ? run : longest;
    }
    for (int k = 0; k < (longest >= 3 ? longest + 1 : 3); k++)
        fputc('`', out);
    fputs(info, out);
}

/* text in a fenced block of language info, ending with a newline. */
static void code_block(FILE *out, const char *text, const char *info)
{
    size_t len = strlen(text);
    fence(out, text, info);
    fprintf(out, "\n%s%s", text, len && text[len - 1] == '\n' ? "" : "\n");
    fence(out, text, "");
    fputs("\n", out);
}

/* A cell: the value printed by f, or a dash. */
static void cell(FILE *out, const char *f, double v)
{
    fputs(" ", out);
    if (isfinite(v))
        fprintf(out, f, v);
    else
        fputs("–", out);
    fputs(" |", out);
}

static void head(FILE *out, const struct kl_article *a, const char *ladder_svg,
                 const char *roofline_svg)
{
    const struct kl_run *run = a->run;
    char params[300];
    kl_run_params_text(run, params, sizeof params);
    fputs("# The ", out);
    md_text(out, run->workload);
    fputs(" ladder on ", out);
    md_text(out, run->dev_name);
    fputs("\n\n", out);
    md_text(out, params);
    fputs(" · ", out);
    md_text(out, run->backend ? run->backend : "");
    fputs(", driver ", out);
    md_text(out, run->driver ? run->driver : "?");
    fputs(" · measured ", out);
    md_text(out, run->date ? run->date : "?");
    fputs(" by kladder ", out);
    md_text(out, run->version ? run->version : "?");
    fputs("\n\nEach rung below is one step of the ladder: the paragraph its kernel file gives "
          "for what changed and why it should help, the change itself against the rung below "
          "(its source and its build options), and what the change did on this device, every "
          "rung verified against the same reference. Faster and slower are kladder compare's "
          "verdicts on the two rungs' launch times, never a difference of noise.\n\n",
          out);
    if (!a->hashed)
        fputs("*This run's file records no hash of the sources it built (it is older than "
              "schema version 3): the sources shown are today's.*\n\n",
              out);
    if (a->nchanged)
        fprintf(out,
                "**%d source%s changed since the run, shown as now (--force), each marked: the "
                "figures are of what the run built.**\n\n",
                a->nchanged, a->nchanged == 1 ? "" : "s");
    if (ladder_svg)
        fprintf(out, "![The ladder chart](%s)\n\n", ladder_svg);
    if (roofline_svg)
        fprintf(out, "![The roofline](%s)\n\n", roofline_svg);
    for (int i = 0; i < a->nrungs; i++) {
        fprintf(out, "%d. [", i + 1);
        md_text(out, a->rungs[i].row->rung);
        fprintf(out, "](#%s) %s\n", a->rungs[i].anchor, a->rungs[i].row->status);
    }
    fputs("\n", out);
}

static void figures(FILE *out, const struct kl_article *a, const struct kl_article_rung *r)
{
    const struct kl_run_row *x = r->row;
    enum kl_metric m = kl_run_metric(a->run, x);
    fprintf(out,
            "| median | %s | %% of roof | bound | registers | occupancy | × below | × first | "
            "precision | error |\n|---:|---:|---:|---|---:|---:|---:|---:|---|---:|\n|",
            kl_run_unit(a->run, m));
    cell(out, "%.4g ms", x->timed ? x->median_s * 1e3 : NAN);
    cell(out, "%.4g", x->timed ? kl_run_value(a->run, x, m) : NAN);
    cell(out, "%.3g", x->timed && x->pct_ceiling > 0 ? x->pct_ceiling : NAN);
    fprintf(out, " %s |", x->bound ? x->bound : "–");
    cell(out, "%.0f", x->regs >= 0 ? (double)x->regs : NAN);
    cell(out, "%.0f%%", isfinite(x->occupancy) ? 100 * x->occupancy : NAN);
    cell(out, "%.3g×", r->speedup);
    cell(out, "%.3g×", x->speedup_first);
    fprintf(out, " %s |", x->precision ? x->precision : "–");
    cell(out, "%.2g", x->error);
    fputs("\n\n", out);
}

static void values(FILE *out, const struct kl_article *a, const struct kl_article_rung *r)
{
    const struct kl_json *v = r->row->values;
    const struct kl_json *bv = r->base >= 0 ? a->rungs[r->base].row->values : NULL;
    if (!v || v->count == 0)
        return;
    fprintf(out, "| parameter | value | from |%s\n|---|---:|---|%s\n", bv ? " below |" : "",
            bv ? "---|" : "");
    for (int k = 0; k < v->count; k++) {
        const char *name = kl_json_get(v->items[k], "name")->string;
        double val = kl_json_get(v->items[k], "value")->number;
        fputs("| `", out);
        fputs(name, out);
        fprintf(out, "` | %.0f | %s |", val, kl_json_get(v->items[k], "from")->string);
        if (bv) {
            char was[32] = "–";
            for (int j = 0; j < bv->count; j++)
                if (strcmp(kl_json_get(bv->items[j], "name")->string, name) == 0) {
                    double b = kl_json_get(bv->items[j], "value")->number;
                    snprintf(was, sizeof was, b == val ? "the same" : "%.0f", b);
                }
            fprintf(out, " %s |", was);
        }
        fputs("\n", out);
    }
    fputs("\n", out);
}

/* A text folded in a <details> block under summary. */
static void folded(FILE *out, const char *summary, const char *text, const char *info)
{
    fputs("<details><summary>", out);
    for (const char *p = summary; *p; p++) /* HTML inside Markdown: escape as HTML */
        if (*p == '<')
            fputs("&lt;", out);
        else if (*p == '&')
            fputs("&amp;", out);
        else
            fputc(*p, out);
    fputs("</summary>\n\n", out);
    code_block(out, text, info);
    fputs("\n</details>\n\n", out);
}

static void change_section(FILE *out, const struct kl_article *a, const struct kl_article_rung *r)
{
    char summary[512];
    const char *lang = r->file && strstr(r->file, ".cu") ? "cuda" : "c";
    if (!r->file) {
        fputs("*A host rung: its loop is kladder's own C, not a kernel; the rung table's line "
              "above says what it does.*\n\n",
              out);
        return;
    }
    if (!r->text) {
        fputs("*Its source is not here: ", out);
        md_text(out, r->source_why);
        fputs("*\n\n", out);
        return;
    }
    if (r->changed)
        fprintf(out,
                "**%s has changed since the run: the source below is today's, not the one the "
                "run built (--force).**\n\n",
                r->file);
    if (r->base >= 0) {
        const struct kl_article_rung *b = &a->rungs[r->base];
        fputs("### What changed from ", out);
        md_text(out, b->row->rung);
        fputs("\n\nBuild options: ", out);
        if (!r->opts_dropped[0] && !r->opts_added[0])
            fputs("the same.", out);
        else
            fprintf(out, "%s%s%s%s%s%s%s.", r->opts_dropped[0] ? "dropped `" : "",
                    r->opts_dropped, r->opts_dropped[0] ? "`" : "",
                    r->opts_dropped[0] && r->opts_added[0] ? "; " : "",
                    r->opts_added[0] ? "added `" : "", r->opts_added,
                    r->opts_added[0] ? "`" : "");
        fputs("\n\n", out);
        values(out, a, r);
        if (r->same_text) {
            fprintf(out, "The same source as %s (`%s`): the change is in the options alone.\n\n",
                    b->row->rung, r->file);
        } else {
            fprintf(out, "`%s` → `%s`: %d lines added, %d removed.\n\n", b->file, r->file,
                    r->diff.added, r->diff.removed);
            code_block(out, r->diff.unified, "diff");
            fputs("\n", out);
            for (int k = 0; k < r->nincludes; k++) {
                snprintf(summary, sizeof summary, "%s, whose #include the change touches",
                         r->include_file[k]);
                folded(out, summary, r->include_text[k], lang);
            }
        }
    } else {
        fputs("### Its source\n\nShown whole: the ladder's first kernel, the first rung of its "
              "language, or a kernel of the user's.\n\n",
              out);
        values(out, a, r);
    }
    snprintf(summary, sizeof summary, "The whole source of %s", r->file);
    folded(out, summary, r->text, lang);
}

static void rung_section(FILE *out, const struct kl_article *a, const struct kl_article_rung *r)
{
    const struct kl_run_row *x = r->row;
    fprintf(out, "<a id=\"%s\"></a>\n\n## ", r->anchor);
    md_text(out, x->rung);
    fprintf(out, " (%s)\n\n", x->status);
    md_text(out, x->summary);
    if (x->config && x->config[0]) {
        fputs(" (", out);
        md_text(out, x->config);
        fputs(")", out);
    }
    fputs("\n\n", out);
    if (r->change[0]) {
        fputs("> ", out);
        md_text(out, r->change);
        fputs("\n\n", out);
    }
    fputs("**", out);
    md_text(out, r->sentence);
    fputs("**\n\n", out);
    figures(out, a, r);
    change_section(out, a, r);
}

static void libraries(FILE *out, const struct kl_article *a)
{
    if (!a->npeers)
        return;
    fputs("<a id=\"libraries\"></a>\n\n## The libraries in the same run\n\n"
          "| library | status | median | rate | % of roof | precision | note |\n"
          "|---|---|---:|---:|---:|---|---|\n",
          out);
    for (int i = 0; i < a->npeers; i++) {
        const struct kl_run_row *x = a->peers[i];
        enum kl_metric m = kl_run_metric(a->run, x);
        fprintf(out, "| `%s` | %s |", x->rung, x->status);
        cell(out, "%.4g ms", x->timed ? x->median_s * 1e3 : NAN);
        if (x->timed)
            fprintf(out, " %.4g %s |", kl_run_value(a->run, x, m), kl_run_unit(a->run, m));
        else
            fputs(" – |", out);
        cell(out, "%.3g", x->timed && x->pct_ceiling > 0 ? x->pct_ceiling : NAN);
        fprintf(out, " %s | ", x->precision ? x->precision : "–");
        md_text(out, x->note);
        fputs(" |\n", out);
    }
    fputs("\n", out);
}

void kl_article_markdown(FILE *out, const struct kl_article *a, const char *ladder_svg,
                         const char *roofline_svg)
{
    head(out, a, ladder_svg, roofline_svg);
    for (int i = 0; i < a->nrungs; i++)
        rung_section(out, a, &a->rungs[i]);
    libraries(out, a);
    fprintf(out, "---\n\nkladder %s: the kernel ladder.\n", KLADDER_VERSION);
}
