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
    /* Device memory, read + written (GB/s), and the configuration that reached each. */
    double copy_gbps, read_gbps, write_gbps;
    char copy_cfg[128], read_cfg[128], write_cfg[128];
    /* The FMA units (0: not measured / no fp64). */
    double f32_gflops, f64_gflops, i32_giops;
    double f16_gflops; /* packed half2 FMAs (fma.rn.f16x2); 0: not measured here */
    /* The tensor cores, dense, the best of mma.sync and wgmma (0: none on this device). */
    double tf32_gflops;      /* TF32 inputs, FP32 accumulation */
    double f16_tc_gflops;    /* FP16 inputs, FP32 accumulation */
    double f16acc_tc_gflops; /* FP16 inputs, FP16 accumulation */
    double bf16_gflops;      /* BF16 inputs, FP32 accumulation */
    double fp8_gflops;       /* FP8 e4m3 inputs, FP32 accumulation */
    double fp8e5m2_gflops;   /* FP8 e5m2 inputs, FP32 accumulation */
    double i8_giops;         /* INT8 inputs, INT32 accumulation */
    double f64_tc_gflops;    /* FP64 (DMMA) */
    /* The memory hierarchy (0: not measured). */
    double shared_gbps, shared_cu_gbps; /* local (shared) memory, total and per compute unit */
    double l1_gbps, l1_bytes;           /* the first cache's plateau, and where it ends */
    double l2_gbps, l2_bytes;           /* the next level's plateau, and where it ends */
    double l1_ns, l2_ns, mem_ns;        /* dependent-load latency of each level */
    double l1_cycles, l2_cycles, mem_cycles;
    double atomic_one_gops;    /* global atomic adds to one address (G/s) */
    double atomic_spread_gops; /* global atomic adds to distinct addresses */
    double atomic_shared_gops; /* local (shared) memory atomic adds */
    /* Launches and host transfers. */
    double launch_us;      /* queued to start, from events (clpeak's definition) */
    double launch_host_us; /* enqueue to completion seen by the host */
    double empty_us;       /* an empty kernel's own duration */
    double h2d_pageable, d2h_pageable, h2d_pinned, d2h_pinned; /* GB/s */
    double map_gbps, unmap_gbps;
    /* The run-to-run spread of each kind of row: the largest, over the figures of that kind,
       of (fastest - slowest) / median of their final runs' rates (%; 0: not measured).
       kladder compare needs a change beyond it to call one run a side faster or slower. */
    double spread_memory_pct, spread_fma_pct, spread_tensor_pct;
    char date[32];
    /* What measured them: KL_CEILINGS_FULL ("kladder peak"), or KL_CEILINGS_BRIEF (the first
     * run's brief search, which leaves the figures the main job does not need at 0). */
    char source[48];
    char pci[32]; /* the device's PCI bus id where its backend tells ("" in older caches) */
};
#define KL_CEILINGS_FULL "kladder peak"
#define KL_CEILINGS_BRIEF "the first run's brief search"

/* c's source; KL_CEILINGS_FULL where none is recorded (caches older than the field). */
const char *kl_ceilings_source(const struct kl_ceilings *c);
/* 1 when c came from the brief search, so `kladder peak` has figures still to measure. */
int kl_ceilings_brief(const struct kl_ceilings *c);

/*
 * Every figure of struct kl_ceilings as data: its key (the field's name, in
 * the cache file and the JSON), where it lives, its unit, what kind of roof
 * it is, a label for tables and charts and how kladder peak measures and
 * verifies it. The cache, the JSON writer and reader, the printed table and
 * the roofline iterate this table, so a new figure is one field and one entry.
 */
enum kl_ceiling_kind {
    KL_CEIL_MEMORY,   /* device-memory bandwidth */
    KL_CEIL_FMA,      /* arithmetic on the FMA units */
    KL_CEIL_TENSOR,   /* arithmetic on the tensor cores */
    KL_CEIL_CACHE,    /* on-chip memory: shared, L1, L2 bandwidth and sizes */
    KL_CEIL_LATENCY,  /* dependent-load latency */
    KL_CEIL_ATOMIC,   /* atomic operations per second */
    KL_CEIL_LAUNCH,   /* launch latencies */
    KL_CEIL_TRANSFER, /* host <-> device */
    KL_CEIL_SPREAD,   /* how much whole runs of one configuration differ (no roof) */
};
struct kl_ceiling_def {
    const char *key;
    size_t offset; /* of the double in struct kl_ceilings */
    enum kl_ceiling_kind kind;
    const char *unit;   /* "GB/s", "GFLOP/s", "GIOP/s", "Gop/s", "ns", "cycles", "bytes", "us" */
    const char *label;  /* "TF32 tensor cores" */
    const char *method; /* how it is measured and what is verified */
    int per_clock;      /* for the specification: which per-SM rate (enum in ceilings.c) */
};
extern const struct kl_ceiling_def kl_ceiling_defs[];
extern const int kl_ceiling_count;

/* The value of figure d in c (0: not measured). */
double kl_ceiling_value(const struct kl_ceilings *c, const struct kl_ceiling_def *d);
void kl_ceiling_set(struct kl_ceilings *c, const struct kl_ceiling_def *d, double v);
/* The figure named key; NULL when there is none. */
const struct kl_ceiling_def *kl_ceiling_find(const char *key);

/*
 * The device's specification of figure d where kladder knows it: its SMs
 * times its highest clock times the per-SM rate of its compute capability
 * (NVIDIA's data-center GPUs of compute capability 8.0 and 9.0), in d's
 * unit; basis says how it was computed. 0 (and basis the reason) where the
 * device or the figure has none kladder knows.
 */
double kl_ceiling_spec(const struct kl_ceiling_def *d, const struct kl_device_info *dev,
                       char *basis, size_t n);

/*
 * One line of the roofs a report judges rows against: "copy 3004.1 GB/s,
 * FP32 65787.5 GFLOP/s, FP64 ..., INT32 ... GIOP/s, TF32 ..." then every
 * other tensor-core and packed-half roof measured, then cache and shared-
 * memory bandwidth where measured.
 */
void kl_ceilings_summary(const struct kl_ceilings *c, char *out, size_t n);

/* Where the cache of this device lives (no file is touched). */
void kl_ceilings_path(const struct kl_device_info *dev, const char *backend, char *out, size_t n);

/*
 * Reads the cache of this device. Returns 1 when found and valid, 0 when
 * there is none, -1 when a file exists but is corrupt, truncated or of
 * another version (warn then says so; the caller remeasures).
 */
int kl_ceilings_load(const struct kl_device_info *dev, const char *backend, struct kl_ceilings *c,
                     char *warn, size_t n);

/*
 * The device's best roofs whatever backend measured them: c (this
 * backend's, or zeros where it has none) raised, figure by figure of the
 * rates (device and on-chip memory, FMA units, tensor cores), to those a
 * cache of another backend holds for the same device (the same PCI bus id and name):
 * NVIDIA's OpenCL cannot reach wgmma, CUDA can, and a TF32 row through
 * OpenCL is judged against the device's TF32 roof. from gets "TF32, FP16
 * through cuda" for the figures taken ("" where none was); returns how many.
 */
int kl_ceilings_best(const struct kl_device_info *dev, const char *backend, struct kl_ceilings *c,
                     char *from, size_t n);

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
