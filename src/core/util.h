/* Small helpers shared by the library: clocks, random numbers, files. */
#ifndef KL_UTIL_H
#define KL_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/error.h"

/* Monotonic wall clock in seconds, for host-side timing only. */
double kl_now(void);

/* splitmix64: small, fast, and the same sequence on every platform. */
struct kl_rng {
    uint64_t state;
};
void kl_rng_seed(struct kl_rng *r, uint64_t seed);
uint64_t kl_rng_next(struct kl_rng *r);
/* Moves r on by n draws at once (as n calls of kl_rng_next would): a share of a sequence
 * drawn in parallel starts where the serial draw would be. */
void kl_rng_skip(struct kl_rng *r, uint64_t n);
/* Uniform in [-1, 1). */
double kl_rng_uniform(struct kl_rng *r);
/* Uniform integer in [lo, hi]. */
int kl_rng_int(struct kl_rng *r, int lo, int hi);

/* Reads a whole file into a NUL-terminated malloc'd buffer. */
enum kl_status kl_read_file(const char *path, char **out, size_t *len, struct kl_err *e);

/* Case-insensitive substring test. */
int kl_contains_nocase(const char *haystack, const char *needle);

/* A size in bytes with three significant digits in binary units: "512 bytes", "97.7 KiB",
 * "1.50 GiB" (one text for a size everywhere it is shown). */
void kl_bytes_text(double bytes, char *out, size_t n);

/* A rate of value giga-units a second (unit "GB/s", "GFLOP/s", "GIOP/s") with three or four
 * significant digits: "595 GB/s", "4.24 TB/s", "65.7 TFLOP/s", "1754 TFLOP/s". */
void kl_rate_text(double value, const char *unit, char *out, size_t n);

/* strdup is POSIX, not C11. */
char *kl_strdup(const char *s);

/*
 * The hash kladder records of a kernel's source (the run's JSON, so an
 * article can tell a file changed since): "fnv1a64:" and 16 hex digits of
 * FNV-1a over the text's bytes, into out (at least KL_TEXT_HASH bytes).
 */
#define KL_TEXT_HASH 25
void kl_text_hash(const char *text, char *out);

/*
 * What a compiler said about a successful build: log, then the lines it
 * printed on standard error (more) that log does not hold, each line once,
 * without blank lines; with warnings_only, only the lines that mention a warning
 * (NVIDIA's verbose logs list every function's resources). At most 4 KiB.
 * malloc'd; "" when it said nothing; NULL without memory.
 */
char *kl_compiler_messages(const char *log, const char *more, int warnings_only);

/*
 * The first of n library names dlopen finds (RTLD_NOW, and RTLD_GLOBAL where
 * global, for a library another needs), or NULL; *which names it (may be NULL).
 * After a NULL, dlerror() tells the last name's failure.
 */
void *kl_dlopen_first(const char *const *names, size_t n, int global, const char **which);

/* kl_dlopen_first, passing over a library without symbol (closed again). */
void *kl_dlopen_having(const char *const *names, size_t n, int global, const char *symbol,
                       const char **which);

/*
 * An output file written whole or not at all: kl_out_open writes to
 * PATH.tmp-PID beside it, kl_out_commit closes and renames it into place,
 * kl_out_abort closes and removes it. A run killed half-way leaves an older
 * file as it was (and a stray .tmp-PID), never a truncated one in its place.
 * A path that exists and is not a regular file (/dev/stdout, a FIFO, a
 * terminal) is written directly. Both return 0, or -1 with errno set.
 */
struct kl_out_file {
    FILE *f;
    char path[4096], tmp[4200]; /* tmp[0] == 0: written directly */
};
int kl_out_open(struct kl_out_file *o, const char *path);
int kl_out_commit(struct kl_out_file *o);
void kl_out_abort(struct kl_out_file *o);

/* UTC date and time as "YYYY-MM-DDTHH:MM:SSZ". */
void kl_utc_now(char *out, size_t n);

/*
 * The NVIDIA kernel module's version ("580.159.04"), which the CUDA driver
 * API does not give; "" where /proc/driver/nvidia/version is absent.
 */
void kl_nvidia_module_version(char *out, size_t n);

/*
 * fn(arg, share, begin, end) over [0, n) in kl_parallel_shares(n) contiguous
 * shares in order (share 0 from 0), one a thread, on up to the processors
 * online (at most KL_PARALLEL_MAX): for host work that is the same whichever
 * thread does which share (a reference row by row). Where a thread cannot
 * start, its share runs on the caller's.
 */
#define KL_PARALLEL_MAX 16
size_t kl_parallel_shares(size_t n);
void kl_parallel_for(size_t n, void (*fn)(void *arg, size_t share, size_t begin, size_t end),
                     void *arg);

#endif /* KL_UTIL_H */
