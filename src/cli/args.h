/* Strict parsing of command-line values: whole string, in range, or an error. */
#ifndef KL_ARGS_H
#define KL_ARGS_H

#include <stddef.h>

/* Parses a decimal integer in [min, max]; 0 on success, else -1 and a message in err. */
int kl_parse_long(const char *what, const char *s, long min, long max, long *out, char *err,
                  size_t n);

/* Parses a finite number in [min, max]; a suffix ms, s, m or h scales it to seconds. */
int kl_parse_seconds(const char *what, const char *s, double min, double max, double *out,
                     char *err, size_t n);

/* Parses a size in bytes: an integer, or one with K, M, G or T (KiB ... TiB: binary). */
int kl_parse_bytes(const char *what, const char *s, long min, long max, long *out, char *err,
                   size_t n);

/*
 * 1 where paths a and b name the same file: the same device and inode where
 * both exist, else the same path once the folders are resolved (a file
 * about to be written); 0 otherwise.
 */
int kl_same_file(const char *a, const char *b);

/* Splits "a,b,c" in place into at most max items; returns the count. */
int kl_split_list(char *s, char **items, int max);

#endif /* KL_ARGS_H */
