/*
 * How the devices of a multi-GPU run are joined, pair by pair, in words for
 * its report: "0–1 NVLink; 0–2 PCIe, through one switch; 2–3 the network".
 * Devices of different hosts are joined by the network; of one host, NVML
 * says (core/nvml.h, by PCI bus id). Pairs NVML cannot tell are left out.
 */
#ifndef KL_LINKS_H
#define KL_LINKS_H

#include <stddef.h>

#include "multi/ranks.h"

/*
 * The pairs (i, j), i < j, of n devices (at most 64) into out: with first >= 0 only those
 * with i == first. hosts[d] names device d's host (hosts NULL: one host), bus[d] its PCI bus
 * id ("" unknown). "" where no pair is known.
 */
void kl_links_text(int n, const char *const *hosts, const char *const *bus, int first, char *out,
                   size_t size);

/*
 * With ranks (collective): every rank's host and bus (this rank's) shared, each rank's
 * pairs with the ranks after it described where it runs (NVML sees the GPUs of its own
 * host), and all of them joined into rank 0's out ("" on the others).
 */
void kl_links_ranks(const struct kl_ranks *R, const char *bus, char *out, size_t size);

/*
 * With ranks (collective): appends to rank 0's line (a report's ceilings line, n bytes) where
 * every rank ran and how they are joined: "2 ranks: rank 0 on HOST: DEVICE; rank 1 on ...;
 * links: 0–1 the network". device names this rank's device, bus is its PCI bus id.
 */
void kl_links_ranks_note(const struct kl_ranks *R, const char *device, const char *bus, char *line,
                         size_t n);

#endif /* KL_LINKS_H */
