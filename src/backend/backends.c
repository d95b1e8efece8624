/*
 * The backends built into this kladder, the default first: what
 * kl_backend_find looks names up in.
 */
#include <stddef.h>

#include "backend/backend.h"

const struct kl_backend_ops *const kl_backends[] = {
    &kl_backend_opencl,
#ifdef KLADDER_HAVE_CUDA
    &kl_backend_cuda,
#endif
    NULL,
};
