#include "core/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum kl_status kl_fail(struct kl_err *e, enum kl_status status, const char *fmt, ...)
{
    if (e) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e->msg, sizeof e->msg, fmt, ap);
        va_end(ap);
    }
    return status;
}

void kl_err_append(struct kl_err *e, const char *fmt, ...)
{
    if (!e)
        return;
    size_t used = strlen(e->msg);
    if (used + 1 >= sizeof e->msg)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg + used, sizeof e->msg - used, fmt, ap);
    va_end(ap);
}

const char *kl_status_str(enum kl_status s)
{
    switch (s) {
    case KL_OK: return "ok";
    case KL_ERR_ARG: return "invalid argument";
    case KL_ERR_NO_DEVICE: return "no such device";
    case KL_ERR_BACKEND: return "compute API call failed";
    case KL_ERR_BUILD: return "kernel build failed";
    case KL_ERR_NO_MEMORY: return "out of memory";
    case KL_ERR_UNSUPPORTED: return "not supported by the device";
    case KL_ERR_VERIFY: return "verification failed";
    case KL_ERR_IO: return "file error";
    case KL_ERR_INTERRUPTED: return "interrupted";
    }
    return "unknown status";
}
