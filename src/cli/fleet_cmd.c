#define _POSIX_C_SOURCE 200809L
#include "cli/fleet_cmd.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/exit.h"
#include "cli/options.h"
#include "cli/outputs.h"
#include "core/util.h"
#include "fleet/spawn.h"
#include "report/html.h"

/*
 * Refuses (exit 2, having said why) a command that does not run on a
 * fleet (tune: its cache is one device's); 0 when c can.
 */
static int fleet_check(const struct cli *c)
{
    if (c->command == CMD_TUNE) {
        fprintf(stderr, "kladder: tune searches one device at a time: give --device SPEC for one "
                        "device (its cache is that device's)\n");
        return EXIT_USAGE;
    }
    return 0;
}

/* 1 for an option the fleet sets per member (its value, if any, goes with it). */
static int per_member(const struct cli *c, const struct cli_option *o)
{
    static const char *const names[] = {"--device", "--backend", "--format",
                                        "--json",   "--report",  "--quiet"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(o->name, names[i]) == 0)
            return 1;
    /* The report's --output; blur's --output is its picture, which each member writes. */
    return o->field == offsetof(struct cli, output) && o->kind == K_STRING &&
           c->command != CMD_BLUR;
}

/*
 * The option of word a ("--name", "--name=value" or an alias) for c's command,
 * or NULL; *next_value: its value is the next word. The parser accepted the
 * line, so an option's value is the next word unless given with "=".
 */
static const struct cli_option *option_of(const struct cli *c, const char *a, int *next_value)
{
    char name[64];
    const char *eq = strchr(a, '=');
    int joined = eq && a[1] == '-';
    snprintf(name, sizeof name, "%.*s", joined ? (int)(eq - a) : 63, a);
    const struct cli_option *o = kl_cli_find(name, c->command);
    *next_value = o && o->arg && !joined;
    return o;
}

char **kl_cli_member_args(const struct cli *c, int argc, char **argv)
{
    char **out = calloc((size_t)argc + 2, sizeof *out);
    int n = 0, i = 1;
    if (!out)
        return NULL;
    out[n++] = argv[0];
    if (argc > 1 && argv[1][0] != '-')
        out[n++] = argv[i++]; /* the command word */
    for (; i < argc; i++) {
        int takes;
        const struct cli_option *o = option_of(c, argv[i], &takes);
        if (o && per_member(c, o)) {
            i += takes;
            continue;
        }
        out[n++] = argv[i];
        if (takes && i + 1 < argc)
            out[n++] = argv[++i];
    }
    if (c->command == CMD_PEAK && !c->refresh)
        out[n++] = "--refresh";
    out[n] = NULL;
    return out;
}

/* Each member's messages on stderr, every line prefixed with its name. */
static void print_logs(const struct kl_fleet *f)
{
    char name[KL_FLEET_SPEC + 160];
    for (int i = 0; i < f->n; i++) {
        const char *p = f->member[i].log;
        kl_fleet_member_name(f, i, name, sizeof name);
        while (p && *p) {
            size_t k = strcspn(p, "\n");
            fprintf(stderr, "[%s] %.*s\n", name, (int)k, p);
            p += k + (p[k] == '\n');
        }
    }
}

/*
 * The fleet page: the fleet file written and read back, as for one run (one
 * path from a run to its page). 0, or EXIT_RUNTIME.
 */
static int write_page(const struct kl_fleet *f, FILE *html, const char *path)
{
    char *text = NULL, err[1024];
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    struct kl_fleet back;
    int rc = EXIT_OK;
    if (!mem) {
        fprintf(stderr, "kladder: cannot write %s: %s\n", path, strerror(errno));
        return EXIT_RUNTIME;
    }
    kl_fleet_json(f, mem);
    if (fclose(mem) != 0 || kl_fleet_parse(&back, text, len, "this fleet", err, sizeof err) != 0) {
        fprintf(stderr, "kladder: internal error: the fleet's JSON does not read back: %s\n", err);
        free(text);
        return EXIT_RUNTIME;
    }
    kl_html_fleet(html, &back);
    if (fflush(html) != 0 || ferror(html))
        rc = EXIT_RUNTIME;
    kl_fleet_free(&back);
    free(text);
    return rc;
}

/* The fleet in the report's --format: table, CSV or JSON; 0, or EXIT_RUNTIME. */
static int write_main(const struct cli *c, const struct kl_fleet *f, FILE *out)
{
    static const struct {
        const char *format;
        void (*write)(const struct kl_fleet *f, FILE *out);
    } writers[] = {{"json", kl_fleet_json}, {"csv", kl_fleet_csv}, {"table", kl_fleet_table}};
    size_t k = 0;
    while (k + 1 < sizeof writers / sizeof *writers && strcmp(c->format, writers[k].format) != 0)
        k++;
    writers[k].write(f, out);
    return fflush(out) != 0 || ferror(out) ? EXIT_RUNTIME : EXIT_OK;
}

/* soak on a fleet: each member slower than the others beyond noise, said; EXIT_HEALTH if any. */
static int soak_stragglers(const struct kl_fleet *f)
{
    int rc = 0;
    for (int k = 0; k < f->nrows; k++)
        for (int i = 0; i < f->n; i++)
            if (f->rows[k].straggler[i]) {
                char name[KL_FLEET_SPEC + 160];
                kl_fleet_member_name(f, i, name, sizeof name);
                fprintf(stderr,
                        "kladder: soak: %s is slower than the other devices beyond noise on %s "
                        "(%+.1f%% against the median)\n",
                        name, f->rows[k].rung, (f->rows[k].value[i] / f->rows[k].median - 1) * 100);
                rc = EXIT_HEALTH;
            }
    return rc;
}

/* The fleet's exit code: its worst member's, or a soak's stragglers'; a stop said. */
static int fleet_exit(const struct cli *c, const struct kl_fleet *f)
{
    int worst = kl_fleet_exit(f);
    if (c->command == CMD_SOAK && soak_stragglers(f) > worst)
        worst = EXIT_HEALTH;
    if (worst == EXIT_INTERRUPTED || (worst > EXIT_TIMEOUT && worst != EXIT_HEALTH))
        fprintf(stderr,
                "kladder: the fleet was stopped (a member exited %d); the rows measured "
                "are written\n",
                worst);
    return worst;
}

int kl_cli_fleet_write(const struct cli *c, struct outputs *o, struct kl_fleet_member *m, int n)
{
    struct kl_fleet f;
    struct kl_err e;
    const char *command = c->command == CMD_MAIN ? "gemm" : kl_cli_command_name(c->command);
    if (kl_fleet_build(&f, command, m, n, &e) != KL_OK) {
        fprintf(stderr, "kladder: %s\n", e.msg);
        kl_cli_outputs_abort(o);
        return EXIT_RUNTIME;
    }
    print_logs(&f);
    /* As for one run: the page announced beside the table on a terminal, else on stderr. */
    FILE *say = o->main == stdout && strcmp(c->format, "table") == 0 ? stdout : stderr;
    const char *page = o->report_path;
    int html = 0, rc = write_main(c, &f, o->main);
    if (o->json)
        kl_fleet_json(&f, o->json);
    if (o->report && !(html = write_page(&f, o->report, page) == 0))
        rc = EXIT_RUNTIME;
    if (kl_cli_outputs_close(o, 1, html))
        rc = EXIT_RUNTIME, html = 0;
    if (html && c->command == CMD_MAIN)
        kl_cli_report_announce(say, page);
    int worst = fleet_exit(c, &f);
    kl_fleet_free(&f);
    return worst > rc ? worst : rc;
}

/* The members, one per device of the list: its spec and this host's name. */
static void members_init(struct kl_fleet_member *m, char specs[][KL_FLEET_SPEC], int n)
{
    for (int i = 0; i < n; i++) {
        snprintf(m[i].spec, sizeof m[i].spec, "%.*s", KL_FLEET_SPEC - 1, specs[i]);
        m[i].rank = -1;
        if (gethostname(m[i].host, sizeof m[i].host) != 0)
            snprintf(m[i].host, sizeof m[i].host, "unknown");
    }
}

/* "kladder: gemm on 2 devices at once: cuda:0 cuda:1", unless --quiet. */
static void announce(const struct cli *c, char specs[][KL_FLEET_SPEC], int n)
{
    if (c->quiet)
        return;
    fprintf(stderr, "kladder: %s on %d device%s at once:",
            c->command == CMD_MAIN ? "the main job" : kl_cli_command_name(c->command), n,
            n == 1 ? "" : "s");
    for (int i = 0; i < n; i++)
        fprintf(stderr, " %s", specs[i]);
    fputc('\n', stderr);
}

/*
 * The devices of the list spec, expanded in the environment as the user gave
 * it (*env, taken before a driver is loaded to expand the list); 0, or an
 * exit code having said why.
 */
static int expand(const char *spec, char specs[][KL_FLEET_SPEC], int *n, char ***env)
{
    struct kl_err e;
    *env = kl_fleet_env();
    enum kl_status st = *env ? kl_fleet_expand(spec, specs, KL_FLEET_MAX, n, &e)
                             : kl_fail(&e, KL_ERR_NO_MEMORY, "out of memory");
    if (st == KL_OK)
        return 0;
    kl_fleet_env_free(*env);
    fprintf(stderr, "kladder: --device %s: %s\n", spec, e.msg);
    return kl_exit_for(st == KL_ERR_NO_DEVICE ? KL_ERR_ARG : st);
}

int kl_cli_fleet(const struct cli *c, struct outputs *o, const char *spec, int argc, char **argv)
{
    char specs[KL_FLEET_MAX][KL_FLEET_SPEC], self[4096], **env = NULL;
    struct kl_fleet_member m[KL_FLEET_MAX];
    struct kl_err e;
    int n = 0, rc;
    if ((rc = fleet_check(c)) != 0 || (rc = expand(spec, specs, &n, &env)) != 0) {
        kl_cli_outputs_abort(o);
        return rc;
    }
    char **args = kl_cli_member_args(c, argc, argv);
    if (!args || kl_fleet_self(self, sizeof self) != 0) {
        fprintf(stderr, "kladder: cannot start the fleet: %s\n",
                args ? "this program's path is unknown (/proc/self/exe)" : "out of memory");
        free(args);
        kl_fleet_env_free(env);
        kl_cli_outputs_abort(o);
        return EXIT_RUNTIME;
    }
    args[0] = self;
    memset(m, 0, sizeof m);
    members_init(m, specs, n);
    announce(c, specs, n);
    enum kl_status st = kl_fleet_spawn(args, env, m, n, &e);
    free(args);
    kl_fleet_env_free(env);
    if (st != KL_OK)
        fprintf(stderr, "kladder: %s\n", e.msg);
    rc = kl_cli_fleet_write(c, o, m, n);
    kl_fleet_spawn_free(m, n);
    return st != KL_OK && rc == 0 ? EXIT_RUNTIME : rc;
}
