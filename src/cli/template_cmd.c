/*
 * `kladder template WORKLOAD`: prints a minimal kernel of that workload's
 * interface, with its `kladder:` lines, ready for --kernel
 * (kernels/templates/, built into kladder; docs/KERNELS.md).
 */
#include <stdio.h>
#include <string.h>

#include "cli/exit.h"
#include "core/context.h"
#include "workloads/registry.h"

static void usage(FILE *out)
{
    fprintf(out, "usage: kladder template WORKLOAD > FILE.cl\n"
                 "Prints a minimal working kernel of WORKLOAD's interface, to edit and run with\n"
                 "`kladder WORKLOAD --kernel FILE.cl`. Workloads:");
    for (int i = 0; i < kl_workload_count(); i++)
        if (kl_workload_at(i)->ladder) /* the ladders users' kernels join */
            fprintf(out, " %s", kl_workload_at(i)->name);
    fprintf(out, "\n");
}

int kl_cli_template(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        usage(stdout);
        return 0;
    }
    if (argc != 2) {
        fprintf(stderr, "kladder: template takes one workload\n");
        usage(stderr);
        return EXIT_USAGE;
    }
    const struct kl_workload_def *w = kl_workload_find(argv[1]);
    if (w && w->ladder) {
        char path[64];
        snprintf(path, sizeof path, "templates/%s.cl", w->name);
        for (const struct kl_embedded_file *f = kl_embedded_kernels; f->path; f++)
            if (strcmp(f->path, path) == 0) {
                fputs(f->text, stdout);
                return fflush(stdout) != 0 || ferror(stdout) ? EXIT_RUNTIME : 0;
            }
    }
    fprintf(stderr, "kladder: no template for \"%s\"\n", argv[1]);
    usage(stderr);
    return EXIT_USAGE;
}
