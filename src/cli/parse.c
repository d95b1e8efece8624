/*
 * The parser and the help of the command line, driven by its tables
 * (cli/options.c): the command word, each option read into struct cli by its
 * kind, the operands of the commands that take them, the rules between
 * options once all are read, suggestions for a mistyped word, `kladder help
 * [COMMAND]` and `kladder COMMAND --help`.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli/args.h"
#include "cli/cli.h"
#include "cli/exit.h"
#include "cli/options.h"
#include "cli/report_cmd.h"
#include "core/machine.h"
#include "workloads/registry.h"

/* ---- reading a value ---------------------------------------------------------- */

/* "unknown format \"xml\" (table, csv or json)": the choices as a list. */
static void unknown_choice(const struct cli_option *o, const char *val, char *err, size_t n)
{
    snprintf(err, n, "unknown %s \"%s\" (", o->name + 2, val);
    for (const char *q = o->choices; *q; q++) {
        size_t used = strlen(err);
        if (*q == ' ')
            snprintf(err + used, n - used, "%s", strchr(q + 1, ' ') ? ", " : " or ");
        else if (used + 1 < n)
            err[used] = *q, err[used + 1] = '\0';
    }
    size_t used = strlen(err);
    snprintf(err + used, n - used, ")");
}

/* 1 when val is a whole word of the option's choices. */
static int is_choice(const struct cli_option *o, const char *val)
{
    size_t len = strlen(val);
    const char *p = strstr(o->choices, val);
    while (p && !((p == o->choices || p[-1] == ' ') && (p[len] == ' ' || p[len] == '\0')))
        p = strstr(p + 1, val);
    return len && p;
}

/* One reader per kind of value: val into the field at `at`; 0, or 1 with the reason in err. */
typedef int (*reader)(struct cli *c, const struct cli_option *o, const char *val, void *at,
                      char *err, size_t n);

static int read_flag(struct cli *c, const struct cli_option *o, const char *val, void *at,
                     char *err, size_t n)
{
    (void)c, (void)val, (void)err, (void)n;
    *(int *)at = (int)o->lo;
    return 0;
}

static int read_string(struct cli *c, const struct cli_option *o, const char *val, void *at,
                       char *err, size_t n)
{
    (void)c, (void)o, (void)err, (void)n;
    *(const char **)at = val;
    return 0;
}

static int read_choice(struct cli *c, const struct cli_option *o, const char *val, void *at,
                       char *err, size_t n)
{
    (void)c;
    if (!is_choice(o, val))
        return unknown_choice(o, val, err, n), 1;
    *(const char **)at = val;
    return 0;
}

static int read_integer(struct cli *c, const struct cli_option *o, const char *val, void *at,
                        char *err, size_t n)
{
    long v;
    (void)c;
    if (kl_parse_long(o->name, val, (long)o->lo, (long)o->hi, &v, err, n) != 0)
        return 1;
    if (o->kind == K_INT)
        *(int *)at = (int)v;
    else
        *(long *)at = v;
    return 0;
}

static int read_seconds(struct cli *c, const struct cli_option *o, const char *val, void *at,
                        char *err, size_t n)
{
    (void)c;
    return kl_parse_seconds(o->name, val, o->lo, o->hi, (double *)at, err, n) != 0;
}

static int read_custom(struct cli *c, const struct cli_option *o, const char *val, void *at,
                       char *err, size_t n)
{
    (void)at;
    return o->set(c, o, val, err, n) != 0;
}

static const reader readers[] = {
    [K_FLAG] = read_flag,     [K_STRING] = read_string, [K_CHOICE] = read_choice,
    [K_INT] = read_integer,   [K_LONG] = read_integer,  [K_SECONDS] = read_seconds,
    [K_CUSTOM] = read_custom,
};

/* Reads val into the option's field and marks what it counts as; 0, or 1 with the reason. */
static int apply(struct cli *c, const struct cli_option *o, const char *val, char *err, size_t n)
{
    if (readers[o->kind](c, o, val, (char *)c + o->field, err, n))
        return 1;
    c->protocol_set |= (o->marks & M_PROTOCOL) != 0;
    c->timing_set |= (o->marks & M_TIMING) != 0;
    c->peak_measure |= (o->marks & M_MEASURE) != 0;
    c->budget_set |= (o->marks & M_BUDGET) != 0;
    c->max_n_set |= (o->marks & M_MAX_N) != 0;
    return 0;
}

/* ---- suggestions ------------------------------------------------------------- */

/*
 * Edits between two words (insertions, deletions, substitutions and swaps of
 * neighbours: "bulr" is one from "blur"), for words of up to 31 characters.
 */
static int distance(const char *a, const char *b)
{
    int la = (int)strlen(a), lb = (int)strlen(b), d[32][32];
    if (la > 31 || lb > 31)
        return 99;
    for (int i = 0; i <= la; i++)
        for (int j = 0; j <= lb; j++) {
            if (!i || !j) {
                d[i][j] = i + j;
                continue;
            }
            int best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[la][lb];
}

/* The closest of n words to w, when close enough to be a slip (NULL otherwise). */
static const char *closest(const char *w, const char *const *words, int n)
{
    const char *best = NULL;
    int bd = 99, limit = strlen(w) <= 4 ? 1 : 2;
    for (int i = 0; i < n; i++) {
        int d = distance(w, words[i]);
        if (d < bd)
            bd = d, best = words[i];
    }
    return bd <= limit ? best : NULL;
}

/* "; did you mean X?" for an unknown option of command cmd, or "". */
static void suggest_option(const char *w, int cmd, char *out, size_t n)
{
    const char *words[128];
    int k = 0;
    for (int i = 0; i < kl_cli_option_count && k < 128; i++)
        if (kl_cli_options[i].on & ON(cmd))
            words[k++] = kl_cli_options[i].name;
    const char *s = closest(w, words, k);
    snprintf(out, n, s ? "; did you mean %s?" : "", s);
}

/* The command nearest to w, when close enough to be a slip (NULL otherwise). */
static const char *closest_command(const char *w)
{
    const char *names[32];
    int k = 0;
    for (; k < kl_cli_command_total() && k < 32; k++)
        names[k] = kl_cli_command_at(k)->name;
    return closest(w, names, k);
}

/* Says msg and where the options are listed ("help gemm"); returns EXIT_USAGE. */
static int fail(const char *msg, const char *help)
{
    fprintf(stderr, "kladder: %s\n(kladder %s lists the options)\n", msg, help);
    return EXIT_USAGE;
}

/* ---- help ---------------------------------------------------------------- */

/* "  --name ARG" in a 19-column field, then the help, its lines indented to column 21. */
static void print_option(const struct cli_option *o, FILE *out)
{
    char head[64];
    snprintf(head, sizeof head, "%s%s%s%s%s", o->name, o->alias ? ", " : "",
             o->alias ? o->alias : "", o->arg ? " " : "", o->arg ? o->arg : "");
    if (strlen(head) > 18) /* a long head has a line of its own */
        fprintf(out, "  %s\n%21s", head, "");
    else
        fprintf(out, "  %-18s ", head);
    for (const char *p = o->help; *p; p++) {
        fputc(*p, out);
        if (*p == '\n')
            fprintf(out, "%21s", "");
    }
    fputc('\n', out);
}

/* Every option of section s that command cmd takes (cmd < 0: every option of s). */
static void print_section(enum section s, int cmd, FILE *out)
{
    int any = 0;
    for (int k = 0; k < kl_cli_option_count; k++) {
        const struct cli_option *o = &kl_cli_options[k];
        if (o->section != s || (cmd >= 0 && !(o->on & ON(cmd))))
            continue;
        if (!any++)
            fprintf(out, "\n%s:\n", kl_cli_section_titles[s]);
        print_option(o, out);
    }
}

static void print_indented(const char *text, int indent, FILE *out)
{
    for (const char *p = text; *p; p++) {
        fputc(*p, out);
        if (*p == '\n')
            fprintf(out, "%*s", indent, "");
    }
}

/* kladder help: every command, and the options of the commands that measure. */
static void usage(FILE *out)
{
    fprintf(out, "usage: kladder [COMMAND] [OPTIONS]\n\nCommands:\n  %-11s ", "(none)");
    fprintf(out, "show the chosen device and run the GEMM ladder at a quick size\n");
    for (int k = 0; k < kl_cli_command_total(); k++) {
        fprintf(out, "  %-11s ", kl_cli_command_at(k)->name);
        print_indented(kl_cli_command_at(k)->summary, 14, out);
        fputc('\n', out);
    }
    for (int s = S_DEVICE; s <= S_TUNE; s++)
        print_section((enum section)s, -1, out);
    fprintf(out, "\nkladder help COMMAND (or kladder COMMAND --help): one command's options and "
                 "an example.\n");
}

/* The command of that name in the table, or NULL. */
static const struct command_def *command_named(const char *name)
{
    for (int k = 0; k < kl_cli_command_total(); k++)
        if (strcmp(kl_cli_command_at(k)->name, name) == 0)
            return kl_cli_command_at(k);
    return NULL;
}

/* A registered workload's own options (none for NULL): --NAME, its values, its default. */
static void print_workload_options(const struct kl_workload_def *w, FILE *out)
{
    char left[64], values[96];
    for (int k = 0; w && k < KL_WORKLOAD_MAX_OPTIONS && w->options[k].name; k++) {
        const struct kl_workload_option *o = &w->options[k];
        if (k == 0)
            fprintf(out, "\n%s's own:\n", w->name);
        snprintf(left, sizeof left, "--%s %s", o->name, o->choices ? "WORD" : o->real ? "X" : "N");
        if (o->choices)
            snprintf(values, sizeof values, "%s", o->choices);
        else
            snprintf(values, sizeof values, "%ld to %ld", o->min, o->max);
        fprintf(out, "  %-18s %s (%s; default %s)\n", left, o->help, values, o->def);
    }
}

/* kladder help COMMAND: its synopsis, what it does, its options, an example; 0, or -1 for
 * no such command. */
static int command_help(const char *name, FILE *out)
{
    const struct command_def *d = command_named(name);
    if (!d)
        return -1;
    if (d->help)
        return d->help(out), 0;
    fprintf(out, "usage: kladder %s %s\n\n", d->name, d->arg);
    print_indented(d->summary, 0, out);
    fputc('\n', out);
    if (d->detail)
        fprintf(out, "\n%s\n", d->detail);
    if (d->cmd >= 0) {
        /* The command's own options first, then the ones every command shares. */
        print_workload_options(kl_cli_added_workload(d->cmd), out);
        for (int s = S_GEMM; s < S_COUNT; s++)
            print_section((enum section)s, d->cmd, out);
        print_section(S_PROTOCOL, d->cmd, out);
        print_section(S_DEVICE, d->cmd, out);
    }
    fprintf(out, "\nexample: %s\n", d->example);
    return 0;
}

/* ---- the command word ------------------------------------------------------------ */

/* kladder help [COMMAND | --man]. */
static int help_command(int argc, char **argv)
{
    char err[256];
    if (argc == 2)
        return usage(stdout), 0;
    if (argc == 3 && strcmp(argv[2], "--man") == 0)
        return kl_cli_man_page(stdout), 0;
    if (argc == 3 && command_help(argv[2], stdout) == 0)
        return 0;
    const char *s = argc == 3 ? closest_command(argv[2]) : NULL;
    snprintf(err, sizeof err, "help takes one command (got \"%s\"%s)%s%s%s", argv[2],
             argc > 3 ? " and more" : "", s ? "; did you mean " : "", s ? s : "", s ? "?" : "");
    return fail(err, "help");
}

static int version_command(int argc, char **argv)
{
    char err[512];
    if (argc > 2) {
        snprintf(err, sizeof err, "version takes no options (got \"%s\")", argv[2]);
        return fail(err, "help");
    }
    printf("kladder %s\n", KLADDER_VERSION);
    return 0;
}

/* A word that is no command: says so, with the nearest and every command. */
static int unknown_command(const char *cmd)
{
    char err[512], names[256] = "";
    for (int k = 0; k < kl_cli_command_total(); k++) {
        size_t used = strlen(names);
        snprintf(names + used, sizeof names - used, "%s%s", k ? ", " : "",
                 kl_cli_command_at(k)->name);
    }
    const char *s = closest_command(cmd);
    snprintf(err, sizeof err, "unknown command \"%s\"%s%s%s (%s)", cmd, s ? "; did you mean " : "",
             s ? s : "", s ? "?" : "", names);
    return fail(err, "help");
}

/* 1 for a workload whose ladder kladder tune takes: every ladder with a command. */
static int tunable(const struct kl_workload_def *w)
{
    const struct command_def *d = command_named(w->name);
    return w->ladder && d && d->cmd >= 0;
}

/* kladder tune WORKLOAD: a ladder of the registry; its options apply too (for --kernel). */
static int tune_workload(const char *word, struct cli *c)
{
    char err[512], names[128];
    const struct kl_workload_def *w = kl_workload_find(word);
    const struct command_def *d = command_named(word);
    c->workload = word;
    if (w && tunable(w)) {
        c->tuned = (enum command)d->cmd;
        return 0;
    }
    kl_workload_names(tunable, " or ", names, sizeof names); /* "gemm, copy, … or blur" */
    snprintf(err, sizeof err, "kladder tune takes a ladder: %s (got \"%s\")", names, word);
    return fail(err, "help tune");
}

/* kladder article WORKLOAD: 1 where word is a ladder (then its options apply too); else the
 * word is a run's file, an operand. */
static int article_ladder(const char *word, struct cli *c)
{
    const struct kl_workload_def *w = kl_workload_find(word);
    const struct command_def *d = command_named(word);
    if (!w || !tunable(w))
        return 0;
    c->workload = word;
    c->tuned = (enum command)d->cmd;
    return 1;
}

/* The command word at argv[1]; 0 with c->command set, else an exit code (*done set). */
static int parse_command(int argc, char **argv, int *i, struct cli *c, int *done)
{
    const char *cmd = argv[(*i)++];
    if (strcmp(cmd, "help") == 0)
        return *done = 1, help_command(argc, argv);
    if (strcmp(cmd, "version") == 0)
        return *done = 1, version_command(argc, argv);
    const struct command_def *d = command_named(cmd);
    if (!d || d->cmd < 0)
        return unknown_command(cmd);
    c->command = (enum command)d->cmd;
    if (c->command == CMD_TUNE && *i < argc && argv[*i][0] != '-')
        return tune_workload(argv[(*i)++], c);
    if (c->command == CMD_ARTICLE && *i < argc && argv[*i][0] != '-' && article_ladder(argv[*i], c))
        (*i)++;
    return 0;
}

/* ---- the rules between options ------------------------------------------------------ */

/*
 * A rule that the options given together must keep, checked once all are read:
 * on the commands in `on` (of the command itself when by_command, else of the
 * workload, which for `tune WORKLOAD` is the workload's), broken() says whether
 * they break it; msg says why (NULL: broken() wrote the message into err), and
 * help where the options are listed.
 */
struct rule {
    unsigned on;
    int by_command;
    int (*broken)(const struct cli *c, char *err, size_t n);
    const char *msg, *help;
};

#define ANY (~0u)

static int generated_with_input(const struct cli *c, char *err, size_t n)
{
    (void)err, (void)n;
    return (c->width || c->height) && c->input;
}

static int output_rung_alone(const struct cli *c, char *err, size_t n)
{
    (void)err, (void)n;
    return c->output_rung && !c->image_out;
}

/* blur's --output is the picture: a report's name there would get a PNG. */
static int picture_named_as_report(const struct cli *c, char *err, size_t n)
{
    static const char *const reports[] = {".json", ".csv", ".html", ".htm", ".txt", ".svg"};
    size_t len = c->image_out ? strlen(c->image_out) : 0;
    for (size_t k = 0; len && k < sizeof reports / sizeof *reports; k++) {
        size_t m = strlen(reports[k]);
        if (len >= m && strcasecmp(c->image_out + len - m, reports[k]) == 0)
            return snprintf(err, n,
                            "blur's --output is the blurred picture (a PNG), not the report: "
                            "\"%s\" names a report; --json FILE or --report FILE.html saves it",
                            c->image_out),
                   1;
    }
    return 0;
}

/* The files a command reads: its operands (runs, comma lists of them), --input, --kernel. */
static int inputs_of(const struct cli *c, char names[][16], char paths[][1024], int max)
{
    int k = 0;
    if (c->command == CMD_REPORT || c->command == CMD_COMPARE || c->command == CMD_ARTICLE)
        for (int i = 0; i < c->noperands; i++) {
            char list[1024], *items[16];
            snprintf(list, sizeof list, "%s", c->operands[i]);
            for (int j = 0, m = kl_split_list(list, items, 16); j < m && k < max; j++, k++)
                snprintf(names[k], 16, "input"), snprintf(paths[k], 1024, "%s", items[j]);
        }
    if (c->input && k < max)
        snprintf(names[k], 16, "--input"), snprintf(paths[k++], 1024, "%s", c->input);
    for (int i = 0; i < c->nkernels && k < max; i++, k++) { /* FILE[:ENTRY] */
        snprintf(names[k], 16, "--kernel");
        snprintf(paths[k], 1024, "%s", c->kernels[i]);
        if (access(paths[k], F_OK) != 0 && strrchr(paths[k], ':'))
            *strrchr(paths[k], ':') = '\0';
    }
    return k;
}

/* Two outputs, or an output and an input, that are one file: refused, naming both. */
static int same_files(const struct cli *c, char *err, size_t n)
{
    const struct {
        const char *name, *path;
    } out[] = {{"--output", c->output},
               {"--json", c->json},
               {"--report", c->report},
               {"--article", c->article},
               {"--output", c->image_out}};
    char names[24][16], paths[24][1024];
    int nin = inputs_of(c, names, paths, 24), nout = (int)(sizeof out / sizeof *out);
    for (int i = 0; i < nout; i++) {
        for (int j = i + 1; j < nout && out[i].path; j++)
            if (out[i].path != out[j].path && kl_same_file(out[i].path, out[j].path))
                return snprintf(err, n, "%s %s and %s %s are the same file: give each its own",
                                out[i].name, out[i].path, out[j].name, out[j].path),
                       1;
        for (int j = 0; j < nin && out[i].path; j++)
            if (kl_same_file(out[i].path, paths[j]))
                return snprintf(err, n,
                                "%s %s would overwrite the %s it reads (%s): write elsewhere",
                                out[i].name, out[i].path, names[j], paths[j]),
                       1;
    }
    return 0;
}

static int size_and_dims(const struct cli *c, char *err, size_t n)
{
    (void)err, (void)n;
    return c->size_set && c->mnk_set;
}

static int transfers_with_search(const struct cli *c, char *err, size_t n)
{
    if (!c->transfers || !(c->quick || c->vec_mask || c->brief || c->wide))
        return 0;
    snprintf(err, n,
             "peak --transfers measures host copies over sizes; %s shapes the ceilings' search "
             "and does not apply to it",
             c->quick      ? "--quick"
             : c->vec_mask ? "--vec"
             : c->brief    ? "--brief"
                           : "--wide");
    return 1;
}

static int soak_kernel_unnamed(const struct cli *c, char *err, size_t n)
{
    (void)err, (void)n;
    return c->nkernels && !c->nrungs;
}

static int max_n_without_sweep(const struct cli *c, char *err, size_t n)
{
    (void)err, (void)n;
    return c->max_n_set && !c->sweep;
}

static int sweep_warm_and_cold(const struct cli *c, char *err, size_t n)
{
    (void)err, (void)n;
    return c->sweep && c->protocol.cold == KL_COLD_BOTH;
}

static int m_or_n_missing(const struct cli *c, char *err, size_t n)
{
    (void)err, (void)n;
    return c->mnk_set && (!c->M || !c->N);
}

static int mnk_missing(const struct cli *c, char *err, size_t n)
{
    (void)err, (void)n;
    return c->mnk_set && (!c->M || !c->N || !c->K);
}

static int panel_not_multiple(const struct cli *c, char *err, size_t n)
{
    if (c->panel % 4 == 0)
        return 0;
    snprintf(err, n, "--panel %d: SUMMA's panel width must be a multiple of 4", c->panel);
    return 1;
}

/* peak's other measurements: at most one of --p2p, --transfers and --collectives. */
static int peak_kinds(const struct cli *c, char *err, size_t n)
{
    (void)err, (void)n;
    return c->p2p + c->transfers + c->collectives > 1;
}

static int show_and_clear(const struct cli *c, char *err, size_t n)
{
    (void)err, (void)n;
    return c->show && c->clear;
}

static int cache_with_search(const struct cli *c, char *err, size_t n)
{
    (void)err, (void)n;
    return (c->show || c->clear) && (c->size_set || c->mnk_set || c->nrungs || c->budget_set ||
                                     c->exhaustive || c->protocol_set);
}

static int all_alone(const struct cli *c, char *err, size_t n)
{
    (void)err, (void)n;
    return c->all && !c->show && !c->clear;
}

static int no_workload(const struct cli *c, char *err, size_t n)
{
    (void)err, (void)n;
    return !c->show && !c->clear && !c->workload;
}

static int kernels_many(const struct cli *c, char *err, size_t n)
{
    (void)err, (void)n;
    return c->nkernels > 1;
}

static int kernel_with_rungs(const struct cli *c, char *err, size_t n)
{
    (void)err, (void)n;
    return c->nkernels && (c->nrungs || c->nparams || c->show || c->clear);
}

/* A ladder's own rung tuned (tune W --rung R, W not gemm): its ladder's options apply. */
static int tunes_table_rung(const struct cli *c)
{
    return c->tuned && c->tuned != CMD_GEMM && !c->nkernels && c->nrungs;
}

static int ladder_without_kernel(const struct cli *c, char *err, size_t n)
{
    if (c->nkernels || !c->tuned || c->tuned == CMD_GEMM || c->nrungs == 1)
        return 0;
    if (c->nrungs)
        snprintf(err, n, "kladder tune %s searches one rung at a time (%d given)", c->workload,
                 c->nrungs);
    else
        snprintf(err, n,
                 "kladder tune %s tunes one of its rungs (--rung R) or the user's kernels "
                 "(--kernel FILE); only gemm tunes every rung at once",
                 c->workload);
    return 1;
}

static int workload_option_without_kernel(const struct cli *c, char *err, size_t n)
{
    if (c->nkernels || tunes_table_rung(c) || !c->workload_opt)
        return 0;
    snprintf(err, n, "option %s applies to tune only with --kernel FILE or --rung R",
             c->workload_opt);
    return 1;
}

static int rung_tune_with_param(const struct cli *c, char *err, size_t n)
{
    (void)err, (void)n;
    return tunes_table_rung(c) && c->nparams;
}

static int chart_of_page(const struct cli *c, char *err, size_t n)
{
    (void)err, (void)n;
    return c->chart && !kl_cli_report_svg(c);
}

static int svg_of_several(const struct cli *c, char *err, size_t n)
{
    (void)err, (void)n;
    return kl_cli_report_svg(c) && c->noperands > 1 &&
           !(c->chart && (strcmp(c->chart, "shapes") == 0 || strcmp(c->chart, "radii") == 0));
}

static int devices_csv(const struct cli *c, char *err, size_t n)
{
    (void)err, (void)n;
    return strcmp(c->format, "csv") == 0;
}

static int unknown_shell(const struct cli *c, char *err, size_t n)
{
    (void)err, (void)n;
    return strcmp(c->operands[0], "bash") != 0 && strcmp(c->operands[0], "zsh") != 0;
}

/* In the order they are checked: the first broken is said. */
static const struct rule rules[] = {
    {ON(CMD_BLUR), 0, generated_with_input,
     "--width and --height size the generated image; not with --input", "help"},
    {ANY, 0, output_rung_alone,
     "--output-rung chooses the rung for --output FILE; give --output too", "help"},
    {ON(CMD_BLUR), 0, picture_named_as_report, NULL, "help blur"},
    {ANY, 1, same_files, NULL, "help"},
    {ANY, 0, size_and_dims,
     "--size sets every dimension and --m, --n, --k one each: give one or the other", "help"},
    {ON(CMD_PEAK), 1, transfers_with_search, NULL, "help peak"},
    {ON(CMD_SOAK), 1, soak_kernel_unnamed,
     "soak runs one GEMM rung: with --kernel FILE, name your kernel's rung with --rung",
     "help soak"},
    {ANY, 0, max_n_without_sweep, "--max-n sets the end of a --sweep; give --sweep too", "help"},
    {ON(CMD_COPY), 0, sweep_warm_and_cold,
     "--warm-cold and --sweep: one at a time (a sweep's matrix holds one figure a size; --cold "
     "sweeps cold)",
     "help copy"},
    {ON(CMD_GEMV), 0, m_or_n_missing, "give both --m and --n, or --size", "help"},
    {ON(CMD_GEMM) | ON(CMD_MAIN) | ON_TUNE, 0, mnk_missing,
     "give all of --m, --n and --k, or --size", "help"},
    {ANY, 0, panel_not_multiple, NULL, "help mgemm"},
    {ON(CMD_PEAK), 1, peak_kinds, "--p2p, --transfers and --collectives: one at a time",
     "help peak"},
    {ON_TUNE, 1, show_and_clear, "--show and --clear: one at a time", "help tune"},
    {ON_TUNE, 1, cache_with_search, "--show and --clear take only --all, --device and --backend",
     "help tune"},
    {ON_TUNE, 1, all_alone, "--all goes with --show or --clear", "help tune"},
    {ON_TUNE, 1, no_workload, "tune needs a workload: kladder tune gemm (or --show, --clear)",
     "help tune"},
    {ON_TUNE, 1, kernels_many, "tune takes one --kernel at a time", "help tune"},
    {ON_TUNE, 1, kernel_with_rungs,
     "tune --kernel searches the user's kernels' parameters: no --rung, --param, --show or "
     "--clear with it",
     "help tune"},
    {ON_TUNE, 1, ladder_without_kernel, NULL, "help tune"},
    {ON_TUNE, 1, workload_option_without_kernel, NULL, "help tune"},
    {ON_TUNE, 1, rung_tune_with_param,
     "tune --rung searches the rung's parameters: no --param with it", "help tune"},
    {ON_REPORT, 1, chart_of_page,
     "--chart picks the chart of --format svg; the HTML report has them all", "help report"},
    {ON_REPORT, 1, svg_of_several,
     "--format svg writes one chart of one run (or --chart shapes or radii of several); give "
     "one file",
     "help report"},
    {ON(CMD_DEVICES), 1, devices_csv, "devices: --format is table or json, not csv",
     "help devices"},
    {ON(CMD_COMPLETION), 1, unknown_shell,
     "completion takes a shell: kladder completion bash (or zsh)", "help"},
};

/* The rules between options, once all are read; 0 or an exit code. */
static int check_rules(const struct cli *c)
{
    char err[512];
    /* `tune WORKLOAD` and `article WORKLOAD` take the workload's sizes. */
    enum command workload = c->tuned ? c->tuned : c->command;
    for (size_t k = 0; k < sizeof rules / sizeof *rules; k++) {
        const struct rule *r = &rules[k];
        if (!(r->on & ON(r->by_command ? c->command : workload)))
            continue;
        err[0] = '\0';
        if (r->broken(c, err, sizeof err))
            return fail(r->msg ? r->msg : err, r->help);
    }
    return 0;
}

/* ---- the options and operands ------------------------------------------------------ */

/* The entry for word opt: the command's, or for tune WORKLOAD the workload's own. */
static const struct cli_option *lookup(struct cli *c, const char *opt)
{
    const struct cli_option *o = kl_cli_find(opt, c->command);
    const struct cli_option *w = c->tuned ? kl_cli_find(opt, c->tuned) : NULL;
    if (!w || (o && (w == o || (w->on & ON_TUNE) || c->command == CMD_ARTICLE)))
        return o; /* article's own --output, --format and --force come before the ladder's */
    if (!(w->on & ON_TUNE))
        c->workload_opt = w->name;
    return w;
}

/* An option the command does not take: another command's, or a slip. */
static int unknown_option(const struct cli *c, const char *opt, const char *word, const char *help)
{
    char err[512], hint[96];
    if (kl_cli_known(opt)) {
        snprintf(err, sizeof err, "option %s does not apply to %s", opt,
                 kl_cli_command_name(c->command));
        return fail(err, help);
    }
    suggest_option(opt, c->tuned ? c->tuned : c->command, hint, sizeof hint);
    snprintf(err, sizeof err, "unknown option \"%s\"%s", word, hint);
    return fail(err, help);
}

_Static_assert(sizeof((struct cli *)0)->wopts / sizeof(char *) == KL_WORKLOAD_MAX_OPTIONS,
               "struct cli holds every option a workload may declare");

/* An added command's workload's own option (workloads/registry.h) named by word, or NULL. */
static const struct kl_workload_option *workload_option(const struct cli *c, const char *word)
{
    const struct kl_workload_def *w = kl_cli_added_workload(c->tuned ? c->tuned : c->command);
    for (int k = 0;
         w && strncmp(word, "--", 2) == 0 && k < KL_WORKLOAD_MAX_OPTIONS && w->options[k].name; k++)
        if (strcmp(word + 2, w->options[k].name) == 0)
            return &w->options[k];
    return NULL;
}

/* --NAME VALUE (val, else the next word) of the workload's own option o: checked, kept as
   "NAME=VALUE"; 0 or an exit code. */
static int read_workload_option(int argc, char **argv, int *i, struct cli *c,
                                const struct kl_workload_option *o, const char *val,
                                const char *help)
{
    char err[512];
    struct kl_err e;
    if (!val && *i + 1 >= argc) {
        snprintf(err, sizeof err, "--%s needs a value", o->name);
        return fail(err, help);
    }
    val = val ? val : argv[++*i];
    if (kl_workload_option_check(kl_cli_added_workload(c->tuned ? c->tuned : c->command), o->name,
                                 val, &e) != KL_OK)
        return fail(e.msg, help);
    for (int k = 0; k < c->nwopts; k++)
        if (strncmp(c->wopts[k], o->name, strlen(o->name)) == 0 &&
            c->wopts[k][strlen(o->name)] == '=') {
            snprintf(err, sizeof err, "--%s is given twice", o->name);
            return fail(err, help);
        }
    snprintf(c->wopt_text[c->nwopts], sizeof c->wopt_text[0], "%s=%s", o->name, val);
    c->wopts[c->nwopts] = c->wopt_text[c->nwopts];
    c->nwopts++;
    return 0;
}

/* The option at argv[*i] and its value (--opt=value or --opt value); 0 or an exit code. */
static int read_option(int argc, char **argv, int *i, struct cli *c, const char *help)
{
    char err[512], name[64];
    const char *opt = argv[*i], *val = NULL, *eq = strchr(opt, '=');
    if (strncmp(opt, "--", 2) == 0 && eq && (size_t)(eq - opt) < sizeof name) {
        memcpy(name, opt, (size_t)(eq - opt));
        name[eq - opt] = '\0';
        opt = name;
        val = eq + 1;
    }
    const struct kl_workload_option *wo = workload_option(c, opt);
    if (wo)
        return read_workload_option(argc, argv, i, c, wo, val, help);
    const struct cli_option *o = lookup(c, opt);
    if (!o)
        return unknown_option(c, opt, argv[*i], help);
    if (o->arg && !val && *i + 1 >= argc)
        snprintf(err, sizeof err, "%s needs a value", opt);
    else if (!o->arg && val)
        snprintf(err, sizeof err, "%s takes no value", opt);
    else if (!apply(c, o, o->arg && !val ? argv[++*i] : val, err, sizeof err))
        return 0;
    return fail(err, help);
}

/* 1 when word is an operand of the command ("-" is one: a file's name). */
static int is_operand(const struct cli *c, const char *word)
{
    const struct command_def *d = kl_cli_command(c->command);
    return d && d->max_operands > 0 && (word[0] != '-' || word[1] == '\0');
}

static int add_operand(struct cli *c, const char *word, const char *help)
{
    const struct command_def *d = kl_cli_command(c->command);
    char err[128];
    if (c->noperands < d->max_operands) {
        c->operands[c->noperands++] = word;
        return 0;
    }
    if (d->max_operands < MAX_OPERANDS)
        return fail(d->operands_wrong, help);
    snprintf(err, sizeof err, "at most %d files at once", MAX_OPERANDS);
    return fail(err, help);
}

static int check_operands(const struct cli *c, const char *help)
{
    const struct command_def *d = kl_cli_command(c->command);
    if (d && (c->noperands < d->min_operands || c->noperands > d->max_operands))
        return fail(d->operands_wrong, help);
    return 0;
}

/* --help or -h: the command's help (the main job's is the whole usage). */
static int print_help(enum command cmd)
{
    if (cmd == CMD_MAIN)
        return usage(stdout), 0;
    return command_help(kl_cli_command_name(cmd), stdout);
}

static void set_defaults(struct cli *c)
{
    memset(c, 0, sizeof *c);
    c->format = "table";
    c->type = KL_FLOAT;
    c->seed = 1;
    c->max_n = 1L << 26;
    c->radius = -1;
    c->sigma = 2.0;
    kl_protocol_default(&c->protocol);
    c->kernel_timeout = 600;
    c->fail_pct = -1;
}

int kl_cli_parse(int argc, char **argv, struct cli *c, int *done)
{
    char help[64];
    int i = 1, rc;
    set_defaults(c);
    *done = 0;
    if (argc > 1 && argv[1][0] != '-' &&
        ((rc = parse_command(argc, argv, &i, c, done)) != 0 || *done))
        return rc;
    snprintf(help, sizeof help, "%s%s", c->command == CMD_MAIN ? "help" : "help ",
             c->command == CMD_MAIN ? "" : kl_cli_command_name(c->command));
    for (; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return *done = 1, print_help(c->command);
        rc = is_operand(c, argv[i]) ? add_operand(c, argv[i], help)
                                    : read_option(argc, argv, &i, c, help);
        if (rc)
            return rc;
    }
    /* Energy needs a window the counter can resolve: the timed launches last that long. */
    if (c->energy && c->protocol.min_time < KL_ENERGY_STEADY_S)
        c->protocol.min_time = KL_ENERGY_STEADY_S;
    if ((rc = check_operands(c, help)) != 0)
        return rc;
    return check_rules(c);
}
