/*
 * kladder-mpi's ranks (multi/ranks.h) over MPI_COMM_WORLD: what a rank's
 * multi-GPU GEMM and collectives use to stay in step with the others.
 */
#ifndef KL_MPI_RANKS_H
#define KL_MPI_RANKS_H

#include "multi/ranks.h"

/* MPI's ranks, with this rank's host name and whether it shares its device. */
const struct kl_ranks *kl_mpi_ranks(const char *host, int shared);

/* 1 where every rank's ok is non-zero; the largest v over the ranks (collective). */
int kl_mpi_all(int ok);
double kl_mpi_max(double v);

#endif /* KL_MPI_RANKS_H */
