#ifndef KL_CLI_DEVICES_H
#define KL_CLI_DEVICES_H

#include <stdio.h>

/* Prints every device; returns the process exit code. */
int kl_cli_devices(FILE *out, FILE *err);

#endif
