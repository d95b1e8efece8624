/*
 * NVRTC, CUDA's run-time compiler, loaded with dlopen: CUDA C++ source (the
 * kernels under kernels/opencl/ behind kernels/cuda/prelude.cuh) to CUBIN for
 * one GPU. Without the library the CUDA backend says why and builds nothing.
 *
 * Loading happens on the first call of either function and is not
 * thread-safe; once kl_nvrtc_available() has returned 1, kl_nvrtc_compile may
 * run in several threads at once (NVRTC compiles separate programs
 * concurrently).
 */
#ifndef KL_NVRTC_H
#define KL_NVRTC_H

#include <stddef.h>

#include "core/error.h"
#include "kladder.h"

/* 1 if NVRTC can be loaded; else 0 and a reason in why (n bytes). */
int kl_nvrtc_available(char *why, size_t n);

/*
 * Compiles CUDA C++ source (name: the file, for messages) with kladder's
 * option string ("-DKL_T_FLOAT -DBS=256 ...", split on spaces) for compute
 * capability major.minor: C++17, the real architecture sm_XY, so the result
 * is CUBIN. On success *image is malloc'd CUBIN of *size bytes, and, where
 * messages is not NULL, *messages what NVRTC said (its warnings; "" where
 * nothing; NULL without memory); the caller frees both. A compile error
 * returns KL_ERR_BUILD with NVRTC's log in the message; a missing NVRTC
 * KL_ERR_BACKEND.
 */
enum kl_status kl_nvrtc_compile(const char *source, const char *name, const char *options,
                                int cc_major, int cc_minor, char **image, size_t *size,
                                char **messages, struct kl_err *e);

/*
 * KLADDER_SAVE_CUBIN=DIR keeps every compiled kernel as DIR/ENTRY-HASH.cubin
 * (HASH: FNV-1a of its options), for cuobjdump and Nsight to read the very
 * code that was timed. Best effort: a file that cannot be written is skipped.
 */
void kl_nvrtc_save_cubin(const char *entry, const char *options, const char *image, size_t size);

#endif /* KL_NVRTC_H */
