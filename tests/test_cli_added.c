/*
 * kladder's command line with one more workload registered (tests/tiny_workload.c,
 * "scale") before it starts: what a program that brings its own workload gets.
 * cli_added_* run it: the command is in the help, the completions and the man
 * page, lists its rungs, takes --size and the ladders' options, and refuses a
 * wrong number of sizes. With KL_TEST_COPIES=N it registers N more copies of
 * it, scale1 ... scaleN, each a command of its own: there is no cap.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "tiny_workload.h"

#define MAX_COPIES 64

int main(int argc, char **argv)
{
    static struct kl_workload_def copies[MAX_COPIES];
    static char names[MAX_COPIES][16];
    const char *env = getenv("KL_TEST_COPIES");
    int n = env ? atoi(env) : 0;
    if (kl_workload_register(&kl_tiny_workload) != 0) {
        fprintf(stderr, "test_cli_added: the tiny workload did not register\n");
        return 3;
    }
    for (int i = 0; i < n && i < MAX_COPIES; i++) {
        snprintf(names[i], sizeof names[i], "scale%d", i + 1);
        copies[i] = kl_tiny_workload;
        copies[i].name = names[i];
        if (kl_workload_register(&copies[i]) != 0) {
            fprintf(stderr, "test_cli_added: copy %s did not register\n", names[i]);
            return 3;
        }
    }
    return kl_cli_main(argc, argv);
}
