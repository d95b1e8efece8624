#ifndef KL_CLI_DEVICES_H
#define KL_CLI_DEVICES_H

#include <stdio.h>

/*
 * Prints every device, as the table of facts or (json) as one JSON object:
 * {"devices": [{"id", "backend", "name", "platform", "platform_version",
 * "default", "facts": {label: the table's text}}], "default", "cuda"} (cuda:
 * why CUDA shows no device, or null). Returns the process exit code.
 */
int kl_cli_devices(FILE *out, FILE *err, int json);

#endif
