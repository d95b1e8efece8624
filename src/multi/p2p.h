/*
 * Links between GPUs, for `kladder peak --p2p`: over a list of CUDA devices,
 * the peer-copy bandwidth matrix (cuMemcpyPeerAsync; the diagonal is a copy
 * within the device), the small-copy latency matrix, NCCL's send/receive
 * bandwidth matrix and NCCL's all-reduce bus bandwidth as nccl-tests
 * defines it. Every row's data is checked after its first run; a row is
 * verified or failed, or skipped with the reason (no NCCL, one device).
 * Between ranks (kladder-mpi, one a GPU, on one node or many) device I is
 * rank I's: the copy and latency rows are each device's own (a peer copy
 * needs one process), the NCCL rows and the all-reduce join the ranks.
 */
#ifndef KL_P2P_H
#define KL_P2P_H

#include <stddef.h>
#include <stdio.h>

#include "core/error.h"
#include "core/report.h"
#include "kladder.h"
#include "multi/ranks.h"

struct kl_p2p_request {
    const int *devices; /* CUDA device indices (the caller expands "cuda:all") */
    int ndevices;       /* >= 1 */
    size_t bytes;       /* the large copies and the all-reduce; 0: KL_P2P_BYTES */
    struct kl_protocol protocol;
    /* kladder-mpi's ranks, one device each (ndevices 1: this rank's), or NULL: one process */
    const struct kl_ranks *ranks;
};

#define KL_P2P_BYTES ((size_t)256 << 20) /* 256 MiB: far beyond every cache on the path */
#define KL_P2P_SMALL 8                   /* bytes of a latency copy */

/*
 * Measures every link into rep (workload "p2p", device 0's facts, sizes
 * "bytes=... devices=G"; kl_report_finish'ed, no roofs). Rows, in order:
 *   "copy I>J"     GB/s of cuMemcpyPeerAsync from device I to J (I = J:
 *                  cuMemcpyDtoDAsync), CUDA events on I's stream
 *   "latency I>J"  the time of a KL_P2P_SMALL-byte copy (median_s)
 *   "nccl I>J"     GB/s of an ncclSend/ncclRecv pair, host clock (I != J)
 *   "allreduce"    ncclAllReduce of bytes of floats (sum) over all devices:
 *                  its GB/s is the bus bandwidth algbw·2(n−1)/n, the note
 *                  gives algbw, n and bytes; host clock
 * Errors: a bad request (KL_ERR_ARG), no CUDA device or no CUDA support,
 * device failures, KL_ERR_INTERRUPTED with the rows so far; e says why.
 */
enum kl_status kl_p2p_measure(const struct kl_p2p_request *req, struct kl_report *rep,
                              struct kl_err *e);

/*
 * The copy, latency and NCCL rows of a measured rep as three G×G matrices
 * (row: from, column: to), for the table; "-" where a link has no timed row.
 */
void kl_p2p_matrices(const struct kl_report *rep, int ndevices, FILE *out);

#endif /* KL_P2P_H */
