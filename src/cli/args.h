/* Strict parsing of command-line values: whole string, in range, or an error. */
#ifndef KL_ARGS_H
#define KL_ARGS_H

#include <stddef.h>

/* Parses a decimal integer in [min, max]; 0 on success, else -1 and a message in err. */
int kl_parse_long(const char *what, const char *s, long min, long max, long *out, char *err,
                  size_t n);

/* Parses a finite number in [min, max]; an optional "s" or "ms" suffix scales to seconds. */
int kl_parse_seconds(const char *what, const char *s, double min, double max, double *out,
                     char *err, size_t n);

/* Splits "a,b,c" in place into at most max items; returns the count. */
int kl_split_list(char *s, char **items, int max);

#endif /* KL_ARGS_H */
