/*
 * NCCL, loaded with dlopen on first use (kladder needs neither its library
 * nor its header to build): the few types and entry points the multi-GPU
 * GEMM and the link measurements use, declared here with NCCL's own values.
 * One process drives every device: ncclCommInitAll makes a communicator
 * per device, and calls for several devices go between ncclGroupStart and
 * ncclGroupEnd. Or one process per device (kladder-mpi's collectives):
 * ncclCommInitRank with a unique id that rank 0 made and MPI shared.
 */
#ifndef KL_NCCL_H
#define KL_NCCL_H

#include <stddef.h>

#include "core/error.h"

/* nccl.h's types, by value: a communicator handle, ncclResult_t, ncclDataType_t, ncclRedOp_t. */
typedef struct ncclComm *kl_nccl_comm;
typedef struct {
    char internal[128]; /* ncclUniqueId: what ncclCommInitRank shares between processes */
} kl_nccl_unique_id;
enum { KL_NCCL_SUCCESS = 0, KL_NCCL_FLOAT32 = 7, KL_NCCL_SUM = 0 };

/* The entry points (streams are cudaStream_t, i.e. CUstream, passed as void *). */
struct kl_nccl {
    int (*get_version)(int *version);
    const char *(*error_string)(int result);
    int (*comm_init_all)(kl_nccl_comm *comms, int ndev, const int *devlist);
    int (*comm_destroy)(kl_nccl_comm comm);
    int (*group_start)(void);
    int (*group_end)(void);
    int (*broadcast)(const void *sendbuff, void *recvbuff, size_t count, int datatype, int root,
                     kl_nccl_comm comm, void *stream);
    int (*send)(const void *sendbuff, size_t count, int datatype, int peer, kl_nccl_comm comm,
                void *stream);
    int (*recv)(void *recvbuff, size_t count, int datatype, int peer, kl_nccl_comm comm,
                void *stream);
    int (*all_reduce)(const void *sendbuff, void *recvbuff, size_t count, int datatype, int op,
                      kl_nccl_comm comm, void *stream);
    int (*get_unique_id)(kl_nccl_unique_id *id);
    int (*comm_init_rank)(kl_nccl_comm *comm, int nranks, kl_nccl_unique_id id, int rank);
    int (*all_gather)(const void *sendbuff, void *recvbuff, size_t sendcount, int datatype,
                      kl_nccl_comm comm, void *stream);
    int (*reduce_scatter)(const void *sendbuff, void *recvbuff, size_t recvcount, int datatype,
                          int op, kl_nccl_comm comm, void *stream);
    int (*reduce)(const void *sendbuff, void *recvbuff, size_t count, int datatype, int op,
                  int root, kl_nccl_comm comm, void *stream);
    int version;    /* e.g. 22105 for 2.21.5 */
    char path[512]; /* the library loaded */
};

/*
 * NCCL, loaded once: $KLADDER_NCCL (a full path) first, then libnccl.so.2
 * and libnccl.so on the loader's path. NULL with KL_ERR_UNSUPPORTED and a
 * sentence that says where to find it when it cannot be loaded.
 */
const struct kl_nccl *kl_nccl_load(struct kl_err *e);

/* KL_OK for ncclSuccess; else KL_ERR_BACKEND naming call and NCCL's own sentence. */
enum kl_status kl_nccl_check(const struct kl_nccl *n, int result, const char *call,
                             struct kl_err *e);

/*
 * One communicator per device (rank d is CUDA device devices[d]), by
 * ncclCommInitAll; comms has room for ndev. Destroyed by kl_nccl_comms_free.
 */
enum kl_status kl_nccl_comms(const struct kl_nccl *n, const int *devices, int ndev,
                             kl_nccl_comm *comms, struct kl_err *e);
void kl_nccl_comms_free(const struct kl_nccl *n, kl_nccl_comm *comms, int ndev);

/* "NCCL 2.21.5": the version of the NCCL loaded, for reports. */
void kl_nccl_version_text(const struct kl_nccl *n, char *out, size_t size);

#endif /* KL_NCCL_H */
