/* The kladder command: the command line of cli/main.c on this process's arguments. */
#include "cli/cli.h"

int main(int argc, char **argv)
{
    return kl_cli_main(argc, argv);
}
