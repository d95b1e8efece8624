/*
 * Cold launches (--cold): before each timed launch the device's last-level
 * cache is flushed by writing a buffer larger than it, untimed, so the
 * launch reads its inputs from memory, as the first touch of data does.
 */
#ifndef KL_COLD_H
#define KL_COLD_H

#include <stddef.h>

#include "core/error.h"

struct kl_context;

/* Bytes a flush writes: twice the last-level cache the device reports, at least 256 MiB
 * (a driver that reports a smaller cache than its L2 is still flushed). */
size_t kl_cold_bytes(const struct kl_context *kl);

/*
 * Writes kl_cold_bytes of a buffer of the context's own (allocated and its
 * kernel built on first use, freed by kl_close) and waits for it. Each
 * flush writes other values, so no write is skipped. Counted in
 * kl->cold.flushes, which the report's protocol states.
 */
enum kl_status kl_cold_flush(struct kl_context *kl, struct kl_err *e);

#endif /* KL_COLD_H */
