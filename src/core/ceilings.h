/*
 * Measured device ceilings (`kladder peak`), cached per device, driver and
 * backend in $XDG_CACHE_HOME/kladder (or ~/.cache/kladder, or
 * $KLADDER_CACHE_DIR), so every other command can say how close a rung is.
 *
 * The file is text, one "key value" per line, between a version header and
 * a checksum line; it is written to a temporary file and renamed into place,
 * so a reader sees the old file or the new one, never half of one.
 */
#ifndef KL_CEILINGS_H
#define KL_CEILINGS_H

#include <stddef.h>
#include <stdint.h>

#include "backend/backend.h"

struct kl_ceilings {
    double copy_gbps, read_gbps, write_gbps; /* global memory, read + written */
    char copy_cfg[128], read_cfg[128], write_cfg[128];
    double f32_gflops, f64_gflops, i32_giops; /* 0: not measured / no fp64 */
    double tf32_gflops;    /* TF32 on the tensor cores (mma.sync); 0: none on this device */
    double f16_gflops;     /* packed half2 FMAs (fma.rn.f16x2); 0: not measured here */
    double launch_us;      /* queued to start, from events (clpeak's definition) */
    double launch_host_us; /* enqueue to completion seen by the host */
    double empty_us;       /* an empty kernel's own duration */
    double h2d_pageable, d2h_pageable, h2d_pinned, d2h_pinned; /* GB/s */
    double map_gbps, unmap_gbps;
    char date[32];
};

/* Where the cache of this device lives (no file is touched). */
void kl_ceilings_path(const struct kl_device_info *dev, const char *backend, char *out, size_t n);

/*
 * Reads the cache of this device. Returns 1 when found and valid, 0 when
 * there is none, -1 when a file exists but is corrupt, truncated or of
 * another version (warn then says so; the caller remeasures).
 */
int kl_ceilings_load(const struct kl_device_info *dev, const char *backend, struct kl_ceilings *c,
                     char *warn, size_t n);

/* Writes the cache atomically (temporary file, then rename). */
enum kl_status kl_ceilings_save(const struct kl_device_info *dev, const char *backend,
                                const struct kl_ceilings *c, struct kl_err *e);

/*
 * What every per-device cache file (these ceilings, tuned parameters) shares:
 * the directory ($KLADDER_CACHE_DIR, else $XDG_CACHE_HOME/kladder, else
 * ~/.cache/kladder), the identity line (backend, platform, device, driver),
 * FNV-1a for file names and checksums, and the atomic write (the directory
 * made as needed, a temporary file renamed into place).
 */
void kl_cache_dir(char *out, size_t n);
void kl_cache_identity(const struct kl_device_info *dev, const char *backend, char *out, size_t n);
uint64_t kl_cache_hash(const char *s, size_t n);
/* The path of this device's cache file of one kind: DIR/KIND-<hash of the identity>.txt. */
void kl_cache_file(const struct kl_device_info *dev, const char *backend, const char *kind,
                   char *out, size_t n);
enum kl_status kl_cache_write(const char *path, const char *text, struct kl_err *e);

/*
 * An exclusive lock on the cache file at path (a POSIX record lock on
 * PATH.lock, made as needed), for a read-modify-write that must not lose
 * another process's update: *fd is the lock, released by kl_cache_unlock or
 * at exit. Waits up to 60 s for another holder, then fails saying so.
 */
enum kl_status kl_cache_lock(const char *path, int *fd, struct kl_err *e);
void kl_cache_unlock(int fd);

#endif /* KL_CEILINGS_H */
