/*
 * `kladder template WORKLOAD`: prints a minimal kernel of that workload's
 * interface, with its `kladder:` lines, ready for --kernel
 * (kernels/templates/, built into kladder; docs/KERNELS.md).
 */
#include <stdio.h>
#include <string.h>

#include "cli/exit.h"
#include "cli/report_cmd.h"
#include "core/context.h"
#include "workloads/registry.h"

/* The template's text: the registry entry's own, else the one built into kladder; NULL: none. */
static const char *template_text(const struct kl_workload_def *w)
{
    char path[64];
    if (!w->ladder) /* the ladders users' kernels join */
        return NULL;
    if (w->template_text)
        return w->template_text;
    snprintf(path, sizeof path, "templates/%s.cl", w->name);
    for (const struct kl_embedded_file *f = kl_embedded_kernels; f->path; f++)
        if (strcmp(f->path, path) == 0)
            return f->text;
    return NULL;
}

void kl_cli_template_usage(FILE *out)
{
    fprintf(out, "usage: kladder template WORKLOAD > FILE.cl\n"
                 "Prints a minimal working kernel of WORKLOAD's interface, to edit and run with\n"
                 "`kladder WORKLOAD --kernel FILE.cl`. Workloads:");
    for (int i = 0; i < kl_workload_count(); i++)
        if (template_text(kl_workload_at(i)))
            fprintf(out, " %s", kl_workload_at(i)->name);
    fprintf(out, "\n");
}

int kl_cli_template(const struct cli *c)
{
    const struct kl_workload_def *w = kl_workload_find(c->operands[0]);
    const char *text = w ? template_text(w) : NULL;
    if (text) {
        fputs(text, stdout);
        return fflush(stdout) != 0 || ferror(stdout) ? EXIT_RUNTIME : 0;
    }
    fprintf(stderr, "kladder: no template for \"%s\"\n", c->operands[0]);
    kl_cli_template_usage(stderr);
    return EXIT_USAGE;
}
