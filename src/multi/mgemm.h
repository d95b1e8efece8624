/*
 * The multi-GPU GEMM ladder, `kladder mgemm`: fp32 C = A·B spread over G
 * CUDA devices driven by one process (a struct kl_context each, opened as
 * "cuda:I"), moved between them by NCCL (loaded with dlopen: multi/nccl.h).
 * Rungs, in order:
 *
 *   0_one_gpu        the local multiply alone on device 0, whole problem:
 *                    the baseline of scaling efficiency and of the check
 *   1_rows           A in row blocks, B broadcast from device 0, C gathered
 *                    to device 0
 *   2_summa          SUMMA on kl_dist_grid's pr×pc grid, K in panels of kb
 *   3_summa_overlap  rung 2 with the next panel's broadcasts overlapping the
 *                    current panel's multiply
 *
 * and the peer "cublas": rung 3's schedule with cublasSgemm as the local
 * multiply. Every row is one struct kl_result of a struct kl_report
 * (workload "mgemm"), verified against the single-device result and the
 * reference, timed by the request's protocol with the host clock around a
 * run that ends with every device synchronized. Defined only with the CUDA
 * backend; without it kl_mgemm_ladder says CUDA support was not built.
 */
#ifndef KL_MGEMM_H
#define KL_MGEMM_H

#include "core/error.h"
#include "core/params.h"
#include "core/report.h"
#include "kladder.h"
#include "multi/ranks.h"

/* What `kladder mgemm` asks for. */
struct kl_mgemm_request {
    const int *devices;      /* CUDA device indices, rank order (the caller expands "cuda:all") */
    int ndevices;            /* G >= 1; device devices[0] is "device 0" of the rows */
    int M, N, K;             /* fp32 C (M×N) = A (M×K) · B (K×N) */
    unsigned long long seed; /* A and B as `kladder gemm --seed` draws them */
    struct kl_protocol protocol; /* warm-up, repeats, minimum time of every row */
    const char *const *rungs;    /* names or prefixes ("2", "3_summa"); NULL: every rung */
    int nrungs;
    const char *local;        /* the GEMM rung of each device's multiply (a name or prefix, as
                                 `kladder gemm --rung` takes it); NULL: chosen on device 0 */
    int kb;                   /* SUMMA's panel width, a multiple of 4; 0: KL_MGEMM_KB */
    const char *const *peers; /* "cublas": a row after the rungs */
    int npeers;
    /* NULL: this process drives every device of `devices`. Else one rank of a job with a
       process per device (kladder-mpi; multi/ranks.h): devices is this rank's one, device d
       of the rows is rank d's, every rank calls kl_mgemm_ladder and rank 0's report is the
       run's (the others' rows carry no verdicts). */
    const struct kl_ranks *ranks;
};

/* The default panel width: local multiplies long enough that the accumulation pass (12 bytes
   per element of C per panel) stays a few per cent of them. */
#define KL_MGEMM_KB 2048

/*
 * Runs the requested rungs into rep (workload "mgemm", device 0's facts,
 * sizes with "devices", FLOPs 2·M·N·K; rep is kl_report_finish'ed, and its
 * rows' speedup_first is over row 0, so a row's scaling efficiency is
 * speedup_first / G, which its note also gives). A row that cannot run is
 * skipped with the reason (no NCCL, no room on a device, the whole problem
 * beyond one device for row 0); a wrong result is a failed row. Returns an
 * error, with one sentence in e, for a bad request (KL_ERR_ARG), no CUDA
 * device or no CUDA support (KL_ERR_NO_DEVICE, KL_ERR_UNSUPPORTED), device
 * failures, and KL_ERR_INTERRUPTED (kl_stop_request) with the rows so far.
 */
enum kl_status kl_mgemm_ladder(const struct kl_mgemm_request *req, struct kl_report *rep,
                               struct kl_err *e);

/* A rung, as other ladders' tables have them (no parameters: kb and the local rung are the
   request's). */
struct kl_mgemm_rung {
    const char *name;
    const char *summary;
    struct kl_param_def params[1];
};
/* The rungs in order, for --list-rungs: their count, rung i, its name and its summary (NULL
   out of range). */
int kl_mgemm_rung_count(void);
const struct kl_mgemm_rung *kl_mgemm_rung_at(int i);
const struct kl_rung_table *kl_mgemm_rungs(void); /* the registry's view */
const char *kl_mgemm_rung_name(int i);
const char *kl_mgemm_rung_summary(int i);
/* The peers kl_mgemm_ladder knows, for messages: "cublas". */
extern const char kl_mgemm_peer_names[];

#endif /* KL_MGEMM_H */
