/*
 * The command line's fleet runs (fleet/fleet.h): a command on every device
 * of a list at once (--device all, 0,2,3, cuda:all), and the members'
 * reports written as one. kladder-mpi (cli/mpi_main.c) writes its ranks'
 * reports through the same kl_cli_fleet_write.
 */
#ifndef KL_CLI_FLEET_CMD_H
#define KL_CLI_FLEET_CMD_H

#include "cli/cli.h"
#include "fleet/fleet.h"

/*
 * One member's arguments: argv as typed (before kl_cli_parse, which splits
 * some values in place) without the options the fleet sets per member
 * (--device, --backend, --format, --output, --json, --report, --quiet), and
 * with --refresh for peak (a fleet measures). NULL-terminated; the array is
 * malloc'd, its strings are argv's. NULL when out of memory.
 */
char **kl_cli_member_args(const struct cli *c, int argc, char **argv);

struct outputs;
/*
 * Runs the parsed command c on every device of spec, a list, at once (one
 * process each, fleet/spawn.h) and writes the fleet's report to o, opened
 * before (kl_cli_outputs_open), and closes it; argv is the command line as
 * typed. Returns the exit code.
 */
int kl_cli_fleet(const struct cli *c, struct outputs *o, const char *spec, int argc, char **argv);

/*
 * Writes the fleet of members m to the outputs o as c asks, then closes
 * them: --format (table, csv or json) on standard output or --output, the
 * fleet file to --json, the fleet page to --report (the main job's own
 * page too); each member's messages on standard error first, prefixed with
 * its name. Returns the exit code: the most serious member's, or 3 when a
 * write failed.
 */
int kl_cli_fleet_write(const struct cli *c, struct outputs *o, struct kl_fleet_member *m, int n);

#endif /* KL_CLI_FLEET_CMD_H */
