/*
 * The shell completions (`kladder completion bash|zsh`) and the man page
 * (`kladder help --man`), written from the command line's tables
 * (cli/options.c), so they never disagree with the parser. The build runs
 * the CLI to make them (cmake/cli_docs.cmake) and installs them.
 */
#include <stdio.h>
#include <string.h>

#include "cli/options.h"
#include "workloads/registry.h"

/* Writes w, after a space unless it is the first word. */
static void word(const char *w, int *first, FILE *out)
{
    fprintf(out, "%s%s", *first ? "" : " ", w);
    *first = 0;
}

/*
 * The words after a command, space-separated (after the words already
 * written, unless *first): what its operand may be (the registry's ladders,
 * or the shells), then its options.
 */
static void command_words(const struct command_def *d, int *first, FILE *out)
{
    if (d->operand == OPD_SHELL)
        word("bash zsh", first, out);
    for (int i = 0; d->operand == OPD_WORKLOAD && i < kl_workload_count(); i++)
        if (kl_workload_at(i)->ladder)
            word(kl_workload_at(i)->name, first, out);
    for (int k = 0; k < kl_cli_option_count; k++) {
        const struct cli_option *o = &kl_cli_options[k];
        if ((o->on & ON(d->cmd)) && kl_cli_find(o->name, d->cmd) == o)
            word(o->name, first, out);
    }
    const struct kl_workload_def *w = kl_cli_added_workload(d->cmd);
    for (int k = 0; w && k < KL_WORKLOAD_MAX_OPTIONS && w->options[k].name; k++) {
        char name[64];
        snprintf(name, sizeof name, "--%s", w->options[k].name);
        word(name, first, out);
    }
}

/* The first words of a command line: every command, then (options) the main job's options. */
static void first_words(int options, FILE *out)
{
    static const struct command_def main_job = {"", "", CMD_MAIN, "", "", .operand = OPD_NONE};
    int first = 1;
    for (int k = 0; k < kl_cli_command_total(); k++)
        word(kl_cli_command_at(k)->name, &first, out);
    if (options)
        command_words(&main_job, &first, out);
}

/* The shell case pattern of the options whose value is a file or directory. */
static const char file_options[] = "--output|-o|--json|--report|--input|--kernel|--kernel-dir";

/*
 * 1 where `kladder tune WORKLOAD` completes option o's values: tune takes the
 * workloads' own options, and has no entry of that name itself; o is the
 * first ladder's entry of the name (where ladders differ, the first one's
 * values are offered).
 */
static int tune_completes(const struct cli_option *o)
{
    if (kl_cli_find(o->name, CMD_TUNE))
        return 0;
    for (int k = CMD_MAIN; k < kl_cli_command_end(); k++)
        if ((ON(k) & ON_LADDERS) && kl_cli_find(o->name, k))
            return kl_cli_find(o->name, k) == o;
    return 0;
}

/*
 * The case pattern "COMMAND:--option|..." of the commands for which option o is
 * the entry of its name (the main job's command is ""), for the completion of
 * its values; 0 when no command takes it.
 */
static int value_pattern(const struct cli_option *o, char *out, size_t size)
{
    int n = 0;
    out[0] = '\0';
    for (int k = CMD_MAIN; o->choices && k < kl_cli_command_end(); k++)
        if ((o->on & ON(k)) && kl_cli_find(o->name, k) == o &&
            (k == CMD_MAIN || kl_cli_command(k))) { /* (an added id with no workload: none) */
            size_t used = strlen(out);
            snprintf(out + used, size - used, "%s%s:%s", n++ ? "|" : "",
                     k == CMD_MAIN ? "" : kl_cli_command_name(k), o->name);
        }
    if (n && tune_completes(o)) {
        size_t used = strlen(out);
        snprintf(out + used, size - used, "|tune:%s", o->name);
    }
    return n;
}

static void completion_bash(FILE *out)
{
    char pattern[512];
    fprintf(out,
            "# bash completion for kladder (kladder completion bash), made from its option "
            "table\n_kladder()\n{\n"
            "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd= "
            "i\n    for ((i = 1; i < COMP_CWORD; i++)); do\n"
            "        case ${COMP_WORDS[i]} in -*) ;; *) cmd=${COMP_WORDS[i]}; break ;; "
            "esac\n    done\n    case $prev in\n"
            "    %s) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n    esac\n"
            "    case $cmd:$prev in\n",
            file_options);
    for (int k = 0; k < kl_cli_option_count; k++) {
        const struct cli_option *o = &kl_cli_options[k];
        if (value_pattern(o, pattern, sizeof pattern))
            fprintf(out, "    %s) COMPREPLY=($(compgen -W \"%s\" -- \"$cur\")); return ;;\n",
                    pattern, o->choices);
    }
    fprintf(out, "    esac\n    local words\n    case $cmd in\n");
    for (int k = 0; k < kl_cli_command_total(); k++) {
        const struct command_def *d = kl_cli_command_at(k);
        int first = 1;
        if (d->cmd < 0)
            continue;
        fprintf(out, "    %s) ", d->name);
        if (d->operand == OPD_FILES)
            fputs("[[ $cur == -* ]] || { COMPREPLY=($(compgen -f -- \"$cur\")); return; }; ", out);
        fputs("words=\"", out);
        command_words(d, &first, out);
        fprintf(out, "\" ;;\n");
    }
    fprintf(out, "    help) words=\"");
    first_words(0, out);
    fprintf(out, "\" ;;\n    '') words=\"");
    first_words(1, out);
    fprintf(out, "\" ;;\n    *) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n    esac\n"
                 "    COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n}\n"
                 "complete -F _kladder kladder\n");
}

static void completion_zsh(FILE *out)
{
    char pattern[512];
    fprintf(out,
            "#compdef kladder\n# zsh completion for kladder (kladder completion zsh), made "
            "from its option table\n_kladder() {\n    local cmd= w\n"
            "    for w in ${words[2,CURRENT-1]}; do\n"
            "        [[ $w == -* ]] || { cmd=$w; break; }\n    done\n"
            "    case ${words[CURRENT-1]} in\n    %s) _files; return ;;\n    esac\n"
            "    case $cmd:${words[CURRENT-1]} in\n",
            file_options);
    for (int k = 0; k < kl_cli_option_count; k++) {
        const struct cli_option *o = &kl_cli_options[k];
        if (value_pattern(o, pattern, sizeof pattern))
            fprintf(out, "    %s) compadd %s; return ;;\n", pattern, o->choices);
    }
    fprintf(out, "    esac\n    case $cmd in\n");
    for (int k = 0; k < kl_cli_command_total(); k++) {
        const struct command_def *d = kl_cli_command_at(k);
        int first = 1;
        if (d->cmd < 0)
            continue;
        fprintf(out, "    %s) ", d->name);
        if (d->operand == OPD_FILES)
            fputs("[[ ${words[CURRENT]} == -* ]] || { _files; return; }; ", out);
        fputs("compadd -- ", out);
        command_words(d, &first, out);
        fprintf(out, " ;;\n");
    }
    fputs("    help) compadd -- ", out);
    first_words(0, out);
    fputs(" ;;\n    '') compadd -- ", out);
    first_words(1, out);
    fprintf(out, " ;;\n    *) _files ;;\n    esac\n}\n_kladder \"$@\"\n");
}

/* Text for roff: backslashes and hyphens escaped, a leading dot or quote guarded. */
static void roff(const char *s, FILE *out)
{
    if (*s == '.' || *s == '\'')
        fputs("\\&", out);
    for (; *s; s++) {
        if (*s == '\\')
            fputs("\\e", out);
        else if (*s == '-')
            fputs("\\-", out);
        else if (*s == '\n')
            fputc(' ', out);
        else
            fputc(*s, out);
    }
}

void kl_cli_man_page(FILE *out)
{
    fprintf(out,
            ".TH KLADDER 1 \"\" \"kladder %s\" \"User Commands\"\n.SH NAME\nkladder \\- "
            "the kernel ladder: compute kernels from naive to the hardware's limit, each "
            "step verified and timed\n.SH SYNOPSIS\n.B kladder\n[\\fICOMMAND\\fR] "
            "[\\fIOPTIONS\\fR]\n.SH DESCRIPTION\nkladder measures what a device can do "
            "(bandwidth, FLOP rate, launch latency, transfers), runs ladders of "
            "progressively optimized kernels (GEMM, GEMV, a weighted row dot, copy with "
            "ILP, Gaussian blur), checks every result against a reference, times every "
            "rung by one protocol, tunes their parameters and reports each rung against "
            "the measured ceilings and the vendor libraries in the same run. Without a "
            "command it shows the chosen device and runs the GEMM ladder at a quick size.\n"
            ".SH COMMANDS\n",
            KLADDER_VERSION);
    for (int k = 0; k < kl_cli_command_total(); k++) {
        fprintf(out, ".TP\n.B %s", kl_cli_command_at(k)->name);
        if (*kl_cli_command_at(k)->arg) {
            fputc(' ', out);
            roff(kl_cli_command_at(k)->arg, out);
        }
        fputc('\n', out);
        roff(kl_cli_command_at(k)->summary, out);
        fputs(".\n", out);
        if (kl_cli_command_at(k)->detail) {
            roff(kl_cli_command_at(k)->detail, out);
            fputc('\n', out);
        }
        fputs("Example: ", out);
        roff(kl_cli_command_at(k)->example, out);
        fputc('\n', out);
    }
    fputs(".SH OPTIONS\n", out);
    for (int s = S_DEVICE; s < S_COUNT; s++) {
        fputs(".SS ", out);
        roff(kl_cli_section_titles[s], out);
        fputc('\n', out);
        for (int k = 0; k < kl_cli_option_count; k++) {
            const struct cli_option *o = &kl_cli_options[k];
            if (o->section != (enum section)s)
                continue;
            fputs(".TP\n.B ", out);
            roff(o->name, out);
            if (o->alias) {
                fputs(", ", out);
                roff(o->alias, out);
            }
            if (o->arg) {
                fputs(" \\fI", out);
                roff(o->arg, out);
                fputs("\\fR", out);
            }
            fputc('\n', out);
            roff(o->help, out);
            fputc('\n', out);
        }
    }
    fputs(".SH EXIT STATUS\n0 every rung verified; 1 a rung failed verification; 2 bad input "
          "(sizes, names, parameters, device, memory); 3 a device, build or run\\-time error; 4 a "
          "launch ran past \\-\\-kernel\\-timeout; 130 interrupted (SIGINT, SIGTERM). The last "
          "two write the rows measured before the stop.\n"
          ".SH ENVIRONMENT\n.TP\n.B KLADDER_DEVICE\nthe default device (as \\-\\-device).\n"
          ".TP\n.B KLADDER_CACHE_DIR\nwhere measured ceilings and tuned parameters are cached "
          "(default $XDG_CACHE_HOME/kladder, else ~/.cache/kladder).\n"
          ".SH SEE ALSO\nclpeak(1), the README and docs/ of the source tree.\n",
          out);
}

int kl_cli_completion(const char *shell, FILE *out)
{
    if (strcmp(shell, "bash") == 0)
        completion_bash(out);
    else if (strcmp(shell, "zsh") == 0)
        completion_zsh(out);
    else
        return -1;
    return 0;
}
