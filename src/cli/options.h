/*
 * The command line as data (cli/options.c): the commands and one table of
 * options, each with the commands that take it, how its value is read,
 * where it goes in struct cli and its help. parse.c parses and prints help
 * from them; shell_docs.c makes the shell completions and the man page.
 */
#ifndef KL_CLI_OPTIONS_H
#define KL_CLI_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

#include "cli/cli.h"

struct kl_workload_def;

/* What the words of a command that are not options are (completion offers them). */
enum operand {
    OPD_NONE,
    OPD_FILES,    /* files: report's and compare's runs */
    OPD_WORKLOAD, /* a workload of the registry that runs a ladder (tune, template) */
    OPD_SHELL,    /* bash or zsh */
};

struct command_def {
    const char *name, *arg; /* arg: what follows the name in the synopsis */
    int cmd;                /* enum command, or -1: help and version, which the parser answers */
    const char *summary, *example;
    const char *detail; /* more of what it does, for its own help (NULL: none) */
    /* Its operands: what they are and how many (tune's workload, which chooses the
     * options that apply, is read right after the command word instead). */
    enum operand operand;
    int min_operands, max_operands;
    const char *operands_wrong; /* said when their count is not in range */
    void (*help)(FILE *out);    /* its own help text instead of the table's (template) */
};

/* The commands an option belongs to: ON(CMD_GEMM) | ...; every added command shares one bit. */
#define ON(c) (1u << ((c) < CMD_ADDED ? (c) : CMD_ADDED))
#define ON_ADDED ON(CMD_ADDED)
#define ON_LADDERS                                                                                 \
    (ON(CMD_MAIN) | ON(CMD_GEMM) | ON(CMD_COPY) | ON(CMD_ROWDOT) | ON(CMD_GEMV) | ON(CMD_BLUR) |   \
     ON_ADDED)
#define ON_RUNS (ON_LADDERS | ON(CMD_PEAK) | ON(CMD_SOAK))
#define ON_TUNE ON(CMD_TUNE)
#define ON_MGEMM ON(CMD_MGEMM)
#define ON_ALL (ON_RUNS | ON_TUNE | ON_MGEMM | ON(CMD_DEVICES))
#define ON_REPORT ON(CMD_REPORT)
#define ON_COMPARE ON(CMD_COMPARE)
#define ON_ARTICLE ON(CMD_ARTICLE)

/* Help sections, in the order `kladder help` prints them (titles: kl_cli_section_titles). */
enum section {
    S_DEVICE,
    S_PROTOCOL,
    S_GEMM,
    S_COPY,
    S_ROWDOT,
    S_GEMV,
    S_BLUR,
    S_PEAK,
    S_MGEMM,
    S_SOAK,
    S_TUNE, /* the last section `kladder help` prints: report and compare have their own help */
    S_REPORT,
    S_COMPARE,
    S_ARTICLE,
    S_ADDED, /* a registered workload's sizes */
    S_COUNT
};

/* How a value is read, and where it goes (field: offsetof(struct cli, ...)). */
enum kind {
    K_FLAG,    /* int field = lo */
    K_STRING,  /* const char *field = the value */
    K_CHOICE,  /* const char *field = the value, one of choices */
    K_INT,     /* int field, lo..hi */
    K_LONG,    /* long field, lo..hi */
    K_SECONDS, /* double field, lo..hi seconds ("200ms", "1.5s" and plain numbers) */
    K_CUSTOM   /* set(c, o, value) */
};

/* Other fields an option marks as given. */
enum mark {
    M_PROTOCOL = 1, /* a protocol option (seed included) */
    M_TIMING = 2,   /* --warmup, --repeats or --min-time */
    M_MEASURE = 4,  /* peak: only a new measurement honours it */
    M_BUDGET = 8,   /* tune --budget */
    M_MAX_N = 16,   /* copy --max-n */
};

struct cli_option;
typedef int (*setter)(struct cli *c, const struct cli_option *o, const char *val, char *err,
                      size_t n);

struct cli_option {
    const char *name, *alias; /* "--output", "-o" (alias: NULL when none) */
    const char *arg;          /* the value's name in help ("FILE"); NULL: a flag */
    unsigned on;              /* the commands that take it */
    enum section section;
    enum kind kind;
    size_t field;
    double lo, hi;
    const char *choices; /* K_CHOICE, and what completion offers: "table csv json" */
    unsigned marks;
    setter set; /* K_CUSTOM */
    const char *help;
};

extern const struct command_def kl_cli_commands[];
extern const int kl_cli_command_count;
/*
 * Every command: the table's, then one for each ladder of a workload
 * registered beyond those the table names (kl_workload_register before the
 * first call; CMD_ADDED on, as many as there are).
 */
int kl_cli_command_total(void);
/* One past the last command id: CMD_ADDED + the added commands' count. */
int kl_cli_command_end(void);
const struct command_def *kl_cli_command_at(int k);
/* The registry's workload of an added command (cmd CMD_ADDED on), else NULL. */
const struct kl_workload_def *kl_cli_added_workload(int cmd);
extern const struct cli_option kl_cli_options[];
extern const int kl_cli_option_count;
extern const char *const kl_cli_section_titles[];

/* The name of a parsed command: "gemm", or "the main job". */
const char *kl_cli_command_name(int cmd);

/* The entry of name (or alias) that command cmd takes, or NULL. */
const struct cli_option *kl_cli_find(const char *name, int cmd);
/* 1 when some command takes an option of this name (or alias). */
int kl_cli_known(const char *name);
/* The table's entry of a command (cmd >= 0), or NULL. */
const struct command_def *kl_cli_command(int cmd);

/* `kladder completion SHELL`: 0, or -1 for a shell other than bash and zsh. */
int kl_cli_completion(const char *shell, FILE *out);
/* `kladder help --man`: the man page, in roff. */
void kl_cli_man_page(FILE *out);

#endif /* KL_CLI_OPTIONS_H */
