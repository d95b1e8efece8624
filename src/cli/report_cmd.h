/*
 * `kladder report` (charts of saved runs as HTML or SVG) and `kladder compare`
 * (two runs, rung by rung).
 * Exit codes as main.c: 0 fine; 1 compare found a regression; 2 bad input
 * (a missing, malformed or mismatched file, an unwritable path); 3 a write
 * that failed part-way.
 */
#ifndef KL_CLI_REPORT_CMD_H
#define KL_CLI_REPORT_CMD_H

#include <stdio.h>

#include "cli/cli.h"
#include "core/report.h"

/* The commands of the parsed command line c (its operands: the files); return the exit code. */
int kl_cli_report(const struct cli *c);
/* 1 where report is to draw one chart as SVG (--format svg), not a page. */
int kl_cli_report_svg(const struct cli *c);
int kl_cli_compare(const struct cli *c);

/* `kladder template WORKLOAD` (cli/template_cmd.c), and its help (`template --help`). */
int kl_cli_template(const struct cli *c);
void kl_cli_template_usage(FILE *out);

#endif /* KL_CLI_REPORT_CMD_H */
