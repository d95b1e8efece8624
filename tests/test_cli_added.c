/*
 * kladder's command line with one more workload registered (tests/tiny_workload.c,
 * "scale") before it starts: what a program that brings its own workload gets.
 * cli_added_* run it: the command is in the help, the completions and the man
 * page, lists its rungs, takes --size and the ladders' options, and refuses a
 * wrong number of sizes.
 */
#include <stdio.h>

#include "cli/cli.h"
#include "tiny_workload.h"

int main(int argc, char **argv)
{
    if (kl_workload_register(&kl_tiny_workload) != 0) {
        fprintf(stderr, "test_cli_added: the tiny workload did not register\n");
        return 3;
    }
    return kl_cli_main(argc, argv);
}
