/*
 * The CUDA backend beyond struct kl_backend_ops: what work spread over
 * several devices needs (multi/mgemm.c, multi/p2p.c). The ops table makes a
 * device's context current when it is opened and waits for every launch; a
 * program driving several GPUs from one thread makes each device's context
 * current itself, queues work on streams and orders it with events.
 *
 * Streams and events are the driver's CUstream and CUevent, passed as
 * void * so that callers (and NCCL and cuBLAS, which take the same handles
 * as cudaStream_t) need no CUDA header. Every call acts on the context that
 * is current, except where a device is named. Defined in backend/cuda.c;
 * only where KLADDER_HAVE_CUDA is defined.
 */
#ifndef KL_CUDA_NATIVE_H
#define KL_CUDA_NATIVE_H

#include <stddef.h>

#include "backend/backend.h"

/* Makes dev's context (its device's primary context) current on this thread. */
enum kl_status kl_cuda_make_current(struct kl_dev *dev, struct kl_err *e);

/* A stream of dev that does not wait for the default stream; destroyed with its device open. */
enum kl_status kl_cuda_stream_create(struct kl_dev *dev, void **stream, struct kl_err *e);
void kl_cuda_stream_destroy(struct kl_dev *dev, void *stream);
/* Waits until everything queued on stream has finished; the error of the work says why not. */
enum kl_status kl_cuda_stream_sync(struct kl_dev *dev, void *stream, struct kl_err *e);

/* An event of dev that can time (cuEventElapsedTime) and order streams. */
enum kl_status kl_cuda_event_create(struct kl_dev *dev, void **event, struct kl_err *e);
void kl_cuda_event_destroy(struct kl_dev *dev, void *event);
/* Records event after what is queued on stream so far. */
enum kl_status kl_cuda_event_record(void *event, void *stream, struct kl_err *e);
/* Makes stream wait, on the device, for the last record of event (of any device). */
enum kl_status kl_cuda_stream_wait(void *stream, void *event, struct kl_err *e);
/* Seconds from start to end, both recorded on one device; waits for end. */
enum kl_status kl_cuda_event_elapsed(void *start, void *end, double *seconds, struct kl_err *e);

/*
 * Queues kernel k on stream of dev without waiting: the same arguments and
 * geometry as ops->launch (local-memory arguments become dynamic shared
 * memory, tensor maps are encoded), checked the same way.
 */
enum kl_status kl_cuda_launch_async(struct kl_dev *dev, void *stream, struct kl_kernel *k,
                                    const struct kl_arg *args, int nargs, int dims,
                                    const size_t *global, const size_t *local, struct kl_err *e);

/*
 * Queues a copy of bytes from src (at byte src_off; on device src_dev) to
 * dst (at dst_off; on dst_dev) on stream: cuMemcpyPeerAsync between two
 * devices (direct where peer access is enabled, else staged by the driver),
 * cuMemcpyDtoDAsync within one.
 */
enum kl_status kl_cuda_copy_async(struct kl_dev *dst_dev, struct kl_buf *dst, size_t dst_off,
                                  struct kl_dev *src_dev, struct kl_buf *src, size_t src_off,
                                  size_t bytes, void *stream, struct kl_err *e);

/*
 * Lets from's kernels and copies reach to's memory where the hardware can
 * (cuDeviceCanAccessPeer, then cuCtxEnablePeerAccess; already enabled
 * counts). *enabled: 1 when peer access is on, 0 when the pair has none.
 */
enum kl_status kl_cuda_enable_peer(struct kl_dev *from, struct kl_dev *to, int *enabled,
                                   struct kl_err *e);

/* The buffer's device address (a CUdeviceptr), for NCCL and cuBLAS. */
unsigned long long kl_cuda_ptr(const struct kl_buf *buf);

/*
 * A buffer that is bytes of buf from byte offset on: kernels and copies see
 * it as a buffer of its own. It owns no memory; ops->release frees the view
 * alone, before or after buf (which must outlive its use).
 */
enum kl_status kl_cuda_buf_view(struct kl_buf *buf, size_t offset, size_t bytes,
                                struct kl_buf **out, struct kl_err *e);

#endif /* KL_CUDA_NATIVE_H */
