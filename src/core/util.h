/* Small helpers shared by the library: clocks, random numbers, files. */
#ifndef KL_UTIL_H
#define KL_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

/* Monotonic wall clock in seconds, for host-side timing only. */
double kl_now(void);

/* splitmix64: small, fast, and the same sequence on every platform. */
struct kl_rng {
    uint64_t state;
};
void kl_rng_seed(struct kl_rng *r, uint64_t seed);
uint64_t kl_rng_next(struct kl_rng *r);
/* Uniform in [-1, 1). */
double kl_rng_uniform(struct kl_rng *r);
/* Uniform integer in [lo, hi]. */
int kl_rng_int(struct kl_rng *r, int lo, int hi);

/* Reads a whole file into a NUL-terminated malloc'd buffer. */
enum kl_status kl_read_file(const char *path, char **out, size_t *len, struct kl_err *e);

/* Case-insensitive substring test. */
int kl_contains_nocase(const char *haystack, const char *needle);

/* strdup is POSIX, not C11. */
char *kl_strdup(const char *s);

/*
 * The first of n library names dlopen finds (RTLD_NOW, and RTLD_GLOBAL where
 * global, for a library another needs), or NULL; *which names it (may be NULL).
 */
void *kl_dlopen_first(const char *const *names, size_t n, int global, const char **which);

/* UTC date and time as "YYYY-MM-DDTHH:MM:SSZ". */
void kl_utc_now(char *out, size_t n);

#endif /* KL_UTIL_H */
