/*
 * kladder-mpi's transport for peak --collectives (multi/coll.h), set as
 * kl_coll_transport_open before a rank runs the command: NCCL between the
 * ranks' CUDA devices where every rank can, else MPI on host memory.
 */
#ifndef KL_MPI_COLL_H
#define KL_MPI_COLL_H

#include "multi/coll.h"

enum kl_status kl_mpi_coll_open(struct kl_context *kl, struct kl_coll_transport *t,
                                struct kl_err *e);

#endif /* KL_MPI_COLL_H */
