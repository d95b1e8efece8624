/* How the devices of a multi-GPU run are joined (multi/links.h). */
#include "multi/links.h"

#include <stdio.h>
#include <string.h>

#include "core/nvml.h"

#define MAX_LINKED 64

/* Appends "I–J words" to out, "; " after an earlier pair. */
static void add_pair(char *out, size_t size, int i, int j, const char *words)
{
    size_t used = strlen(out);
    if (used + 1 < size)
        snprintf(out + used, size - used, "%s%d–%d %s", used ? "; " : "", i, j, words);
}

void kl_links_text(int n, const char *const *hosts, const char *const *bus, int first, char *out,
                   size_t size)
{
    struct kl_nvml *gpu[MAX_LINKED] = {0};
    char why[256], words[96];
    out[0] = '\0';
    n = n < MAX_LINKED ? n : MAX_LINKED;
    for (int d = 0; d < n; d++) /* NVML's handle of each GPU of first's host (or of all) */
        if (bus[d][0] && (!hosts || first < 0 || strcmp(hosts[d], hosts[first]) == 0))
            kl_nvml_open(bus[d], &gpu[d], why, sizeof why);
    for (int i = first < 0 ? 0 : first; i < (first < 0 ? n : first + 1); i++)
        for (int j = i + 1; j < n; j++) {
            if (hosts && strcmp(hosts[i], hosts[j]) != 0) {
                add_pair(out, size, i, j, "the network");
                continue;
            }
            if (bus[i][0] && strcmp(bus[i], bus[j]) == 0) { /* ranks sharing a GPU */
                add_pair(out, size, i, j, "the same GPU");
                continue;
            }
            if (!gpu[i] || !gpu[j])
                continue;
            kl_nvml_link(gpu[i], gpu[j], words, sizeof words);
            if (words[0])
                add_pair(out, size, i, j, words);
        }
    for (int d = 0; d < n; d++)
        kl_nvml_close(gpu[d]);
}

void kl_links_ranks(const struct kl_ranks *R, const char *bus, char *out, size_t size)
{
    static char all[MAX_LINKED * 300]; /* every rank's "host\tbus", joined by "; " */
    char mine[300], pairs[1024], *hosts[MAX_LINKED], *buses[MAX_LINKED];
    int n = 0;
    snprintf(mine, sizeof mine, "%.160s\t%.64s", R->host, bus);
    R->texts(mine, all, sizeof all);
    R->bcast(all, sizeof all);
    for (char *p = all, *next; p && n < MAX_LINKED && n < R->size; p = next, n++) {
        if ((next = strstr(p, "; ")))
            *next = '\0', next += 2;
        char *tab = strchr(p, '\t');
        hosts[n] = p, buses[n] = tab ? tab + 1 : p + strlen(p);
        if (tab)
            *tab = '\0';
    }
    pairs[0] = '\0';
    if (n == R->size && R->rank < n)
        kl_links_text(n, (const char *const *)hosts, (const char *const *)buses, R->rank, pairs,
                      sizeof pairs);
    R->texts(pairs, out, size);
    if (R->rank != 0 && size)
        out[0] = '\0';
}

void kl_links_ranks_note(const struct kl_ranks *R, const char *device, const char *bus, char *line,
                         size_t n)
{
    char mine[256], all[1024] = "", links[1024] = "";
    snprintf(mine, sizeof mine, "rank %d on %.60s: %.160s", R->rank, R->host, device);
    R->texts(mine, all, sizeof all);
    kl_links_ranks(R, bus, links, sizeof links);
    size_t used = strlen(line);
    if (R->rank != 0 || used + 1 >= n)
        return;
    snprintf(line + used, n - used, "%s%d rank%s: %s%s%s", used ? "; " : "", R->size,
             R->size == 1 ? "" : "s", all, links[0] ? "; links: " : "", links);
}
