/*
 * Error messages inside the library: a status code plus one sentence that
 * says what failed, written once where the failure is detected and passed
 * up unchanged. Nothing here prints.
 */
#ifndef KL_ERROR_H
#define KL_ERROR_H

#include <stddef.h>

#include "kladder.h"

/* Large enough for a kernel build log of a few hundred lines. */
#define KL_ERR_MAX 16384

struct kl_err {
    char msg[KL_ERR_MAX];
};

/* Formats the message into e (if not NULL) and returns status. */
enum kl_status kl_fail(struct kl_err *e, enum kl_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Appends text to the message already in e. */
void kl_err_append(struct kl_err *e, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#endif /* KL_ERROR_H */
