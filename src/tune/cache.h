/*
 * Tuned rung parameters (`kladder tune`), cached per device, driver and
 * backend beside `kladder peak`'s ceilings: tuned-<hash>.txt in the same
 * directory, with the same identity line, checksum and atomic write. One
 * entry per (workload, rung, element type, size class), each with its
 * provenance: when, by which kladder, with what budget and how many
 * candidates. A file that fails any check is ignored with a warning.
 */
#ifndef KL_TUNE_CACHE_H
#define KL_TUNE_CACHE_H

#include <stddef.h>

#include "backend/backend.h"
#include "kladder.h"

#define KL_TUNED_HEADER "kladder-tuned 1"

struct kl_tuned {
    char workload[16]; /* "gemm" */
    char rung[64];
    enum kl_type type;
    int size_class;   /* M·N·K rounded to the nearest power of two: its exponent */
    char params[256]; /* "BM=128,BN=128,BK=8" */
    /* provenance */
    char size[64]; /* the size it was tuned at: "2048x2048x2048" */
    double median_s, gflops;
    /* the rung untuned at that size (its preset, else its defaults); 0: not measured */
    double default_gflops;
    char date[32];
    char version[32];
    double budget_s; /* 0: none (exhaustive) */
    int tried;       /* candidates built, verified and timed */
    int space;       /* candidates in the space after pruning */
    char strategy[32];
};

struct kl_tuned_file {
    char path[4096];
    char identity[1024];
    struct kl_tuned *entries;
    int count;
};

/* The size class of an M×N×K product: round(log2(M·N·K)). */
int kl_tune_size_class(int M, int N, int K);

/* Where the tuned parameters of this device live (no file is touched). */
void kl_tuned_path(const struct kl_device_info *dev, const char *backend, char *out, size_t n);

/*
 * Reads the file at path: 1 read and valid, 0 absent, -1 unreadable,
 * corrupt, of another version or, when identity is not NULL, of another
 * device (warn says which; f is then empty). f->path is set either way.
 */
int kl_tuned_read(const char *path, const char *identity, struct kl_tuned_file *f, char *warn,
                  size_t n);

/* kl_tuned_read of this device's file. */
int kl_tuned_load(const struct kl_device_info *dev, const char *backend, struct kl_tuned_file *f,
                  char *warn, size_t n);

/* The entry for (workload, rung, type, size class), or NULL. */
const struct kl_tuned *kl_tuned_find(const struct kl_tuned_file *f, const char *workload,
                                     const char *rung, enum kl_type t, int size_class);

/*
 * Adds entry to this device's file, replacing one with the same key, and
 * writes the file atomically. A corrupt file is replaced (warn says so).
 */
enum kl_status kl_tuned_store(const struct kl_device_info *dev, const char *backend,
                              const struct kl_tuned *entry, char *warn, size_t nwarn,
                              struct kl_err *e);

void kl_tuned_free(struct kl_tuned_file *f);

/* The paths of every tuned-*.txt in the cache directory, sorted; *count of them (malloc'd). */
enum kl_status kl_tuned_list(char ***paths, int *count, struct kl_err *e);
void kl_tuned_list_free(char **paths, int count);

/* Splits "A=1,B=2" into items (pointers into buf, a copy); returns the count, -1 if malformed. */
int kl_tuned_items(const char *params, char *buf, size_t n, const char **items, int max);

#endif /* KL_TUNE_CACHE_H */
