/*
 * kladder-mpi: every host of a cluster. Started by mpirun or srun
 * (`mpirun -n 4 kladder-mpi gemm --size 4096 --json fleet.json`), each rank
 * runs the command, as `kladder` would, on its node's device of its local
 * rank (the rank within MPI's shared-memory split of the job), and rank 0
 * gathers every rank's report, with its host name and device, into one
 * fleet (fleet/fleet.h) written as the options ask: the table, CSV or the
 * fleet file, --json, --report. Ranks beyond a node's devices share them, in
 * turn, and say so. --device chooses the devices ranks take (a list such as
 * cuda:all or 0,1; the default is every GPU of the default backend, as
 * `--device all`).
 *
 * peak --collectives, peak --p2p and mgemm are the exceptions: the ranks
 * measure together, each on its device, through the transport of cli/mpi_coll.c or
 * the ranks of cli/mpi_ranks.c (NCCL between the ranks' GPUs, on one node or
 * many), and rank 0 writes the one run as `kladder` would.
 */
#define _GNU_SOURCE /* mkdtemp, setenv */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/exit.h"
#include "cli/fleet_cmd.h"
#include "cli/mpi_coll.h"
#include "cli/mpi_ranks.h"
#include "cli/outputs.h"
#include "core/util.h"
#include "cli/options.h"
#include "fleet/fleet.h"
#include "workloads/registry.h"

/* What each rank sends rank 0 before its report's text. */
struct rank_head {
    int exit_code, len; /* len: the report's bytes, 0 when it wrote none */
    int shared;         /* this rank shares its device with another rank of its node */
    char host[128], spec[KL_FLEET_SPEC];
};

/* Runs f with standard output (and, where quiet, standard error) sent to /dev/null. */
static int muted(int quiet, int (*f)(int, char **), int argc, char **argv)
{
    fflush(NULL);
    int null = open("/dev/null", O_WRONLY), out = dup(STDOUT_FILENO), err = dup(STDERR_FILENO);
    if (null >= 0) {
        dup2(null, STDOUT_FILENO);
        if (quiet)
            dup2(null, STDERR_FILENO);
    }
    int rc = f(argc, argv);
    fflush(NULL);
    if (out >= 0)
        dup2(out, STDOUT_FILENO), close(out);
    if (err >= 0)
        dup2(err, STDERR_FILENO), close(err);
    if (null >= 0)
        close(null);
    return rc;
}

static struct cli parsed;
static int parsed_done;

/* kl_cli_parse as a function of (argc, argv), for muted(). */
static int parse_only(int argc, char **argv)
{
    return kl_cli_parse(argc, argv, &parsed, &parsed_done);
}

/*
 * The device this rank takes: its local rank's among the node's list (*shared: more ranks
 * on the node than devices); 0 or an exit code.
 */
static int my_device(const struct cli *c, int local, int nlocal, int rank, char *spec, int *shared)
{
    char specs[KL_FLEET_MAX][KL_FLEET_SPEC], list[512];
    const char *dev = c->device ? c->device : getenv("KLADDER_DEVICE");
    struct kl_err e;
    int n = 0;
    const char *backend = c->backend;
    /* mgemm and peak --p2p take CUDA devices, as in one process: "all" and "0,1" are CUDA's */
    if (!backend && (c->command == CMD_MGEMM || (c->command == CMD_PEAK && c->p2p)) &&
        (!dev || (strncmp(dev, "opencl", 6) != 0 && strncmp(dev, "cuda", 4) != 0)))
        backend = "cuda";
    if (!dev || !*dev)
        dev = "all";
    snprintf(list, sizeof list, "%s%s%s", backend ? backend : "", backend ? ":" : "", dev);
    /* "cuda:all" with --backend cuda and --device all; a single device is a list of one. */
    enum kl_status st = kl_fleet_is_list(list) ? kl_fleet_expand(list, specs, KL_FLEET_MAX, &n, &e)
                                               : kl_fleet_expand(list, specs, 1, &n, &e);
    if (st != KL_OK) {
        fprintf(stderr, "kladder-mpi: rank %d: --device %s: %s\n", rank, list, e.msg);
        return kl_exit_for(st == KL_ERR_NO_DEVICE ? KL_ERR_ARG : st);
    }
    snprintf(spec, KL_FLEET_SPEC, "%s", specs[local % n]);
    *shared = nlocal > n;
    if (nlocal > n && local >= n)
        fprintf(stderr, "kladder-mpi: rank %d shares %s: %d ranks on this node, %d device%s\n",
                rank, spec, nlocal, n, n == 1 ? "" : "s");
    return 0;
}

/* This rank's run: the command on its device, its report read into *json. */
static int run_rank(const struct cli *c, int argc, char **typed, const char *spec, char **json)
{
    char dir[4096], path[4200];
    const char *tmp = getenv("TMPDIR");
    *json = NULL;
    snprintf(dir, sizeof dir, "%s/kladder-rank-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    char **base = kl_cli_member_args(c, argc, typed);
    if (!base || !mkdtemp(dir)) {
        fprintf(stderr, "kladder-mpi: cannot prepare this rank's run\n");
        free(base);
        return EXIT_RUNTIME;
    }
    snprintf(path, sizeof path, "%s/run.json", dir);
    int n = 0;
    while (base[n])
        n++;
    char **args = calloc((size_t)n + 6, sizeof *args);
    if (!args) {
        free(base);
        return EXIT_RUNTIME;
    }
    memcpy(args, base, (size_t)n * sizeof *args);
    args[n++] = "--device", args[n++] = (char *)spec;
    args[n++] = "--json", args[n++] = path;
    args[n++] = "--quiet", args[n] = NULL;
    setenv("KLADDER_FLEET_MEMBER", "1", 1);
    int rc = muted(0, kl_cli_main, n, args);
    unsetenv("KLADDER_FLEET_MEMBER");
    struct kl_err e;
    size_t len;
    if (kl_read_file(path, json, &len, &e) != KL_OK)
        *json = NULL;
    remove(path);
    rmdir(dir);
    free(args);
    free(base);
    return rc;
}

/* Rank 0 receives every rank's head and report; the others send theirs. */
static void gather(int rank, int size, struct rank_head *mine, const char *json,
                   struct kl_fleet_member *m)
{
    struct rank_head *heads = rank == 0 ? calloc((size_t)size, sizeof *heads) : NULL;
    int *lens = rank == 0 ? calloc((size_t)size, sizeof *lens) : NULL;
    int *offs = rank == 0 ? calloc((size_t)size, sizeof *offs) : NULL;
    MPI_Gather(mine, (int)sizeof *mine, MPI_BYTE, heads, (int)sizeof *mine, MPI_BYTE, 0,
               MPI_COMM_WORLD);
    char *all = NULL;
    long total = 0;
    if (rank == 0) {
        for (int i = 0; i < size; i++)
            lens[i] = heads[i].len, offs[i] = (int)total, total += heads[i].len;
        all = malloc((size_t)total + 1);
    }
    MPI_Gatherv(json ? json : "", mine->len, MPI_BYTE, all, lens, offs, MPI_BYTE, 0,
                MPI_COMM_WORLD);
    for (int i = 0; rank == 0 && i < size; i++) {
        snprintf(m[i].spec, sizeof m[i].spec, "%s", heads[i].spec);
        snprintf(m[i].host, sizeof m[i].host, "%s", heads[i].host);
        m[i].rank = i;
        m[i].exit_code = heads[i].exit_code;
        if (all && lens[i] > 0 && (m[i].json = malloc((size_t)lens[i] + 1))) {
            memcpy(m[i].json, all + offs[i], (size_t)lens[i]);
            m[i].json[lens[i]] = '\0';
        }
    }
    free(all), free(heads), free(lens), free(offs);
}

/* The copies of the command line main makes. */
static void free_line(int argc, char **scratch, char **typed)
{
    for (int i = 0; i < argc; i++)
        free(scratch[i]);
    free(scratch);
    free(typed);
}

/*
 * 1 when kladder-mpi runs the command word w on every rank: the main job
 * (no command), peak, and the workloads of the registry that run a ladder;
 * it leaves help and version (which the parser answers), completion (which
 * rank 0 prints) and a word that is no command (the parser's message) to
 * parse_line.
 */
static int runs_on_ranks(const char *w)
{
    const struct kl_workload_def *def = kl_workload_find(w);
    if (w[0] == '-' || strcmp(w, "peak") == 0 || strcmp(w, "mgemm") == 0 ||
        strcmp(w, "completion") == 0)
        return 1;
    for (int k = 0; k < kl_cli_command_total(); k++)
        if (kl_cli_command_at(k)->cmd >= 0 && strcmp(kl_cli_command_at(k)->name, w) == 0)
            return def && def->ladder;
    return 1;
}

/* --version or -V anywhere, as kladder takes it: 1, rank 0 having printed the version. */
static int answer_version(int argc, char **argv, int rank)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--version") == 0 || strcmp(argv[i], "-V") == 0) {
            if (rank == 0)
                printf("kladder %s\n", KLADDER_VERSION);
            return 1;
        }
    return 0;
}

/* A command kladder-mpi does not run, said by rank 0: EXIT_USAGE; else 0. */
static int refuse(int argc, char **argv, int rank)
{
    char names[256];
    if (argc < 2 || runs_on_ranks(argv[1]))
        return 0;
    kl_workload_ladder_names(names, sizeof names);
    if (rank == 0)
        fprintf(stderr,
                "kladder-mpi runs measurements (peak, mgemm, %s or the main job) on every rank; "
                "use kladder %s on one machine\n",
                names, argv[1]);
    return EXIT_USAGE;
}

/* completion: text, not a run; rank 0 prints it. The exit code, the line done. */
static int answer_completion(int rank)
{
    parsed_done = 1;
    return rank == 0 && kl_cli_completion(parsed.operands[0], stdout) != 0 ? EXIT_USAGE : 0;
}

/*
 * The line as typed, then parsed (on a copy: the parser splits values in
 * place); rank 0 alone says what is wrong with it, or prints the help asked
 * for. 0 to run it; else the exit code (0 with *done: the help was printed).
 */
static int parse_line(int argc, char **argv, int rank, char ***typed, char ***scratch)
{
    *typed = calloc((size_t)argc + 1, sizeof **typed);
    *scratch = NULL;
    for (int i = 0; *typed && i < argc; i++)
        (*typed)[i] = argv[i];
    if (*typed && (*scratch = calloc((size_t)argc + 1, sizeof **scratch)))
        for (int i = 0; i < argc; i++)
            (*scratch)[i] = kl_strdup(argv[i]);
    if (!*typed || !*scratch) {
        fprintf(stderr, "kladder-mpi: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, EXIT_RUNTIME);
    }
    /* (rank 0's standard output stays: the help, the version or the completion asked for) */
    int rc = rank == 0 ? parse_only(argc, *scratch) : muted(1, parse_only, argc, *scratch);
    if (rc || parsed_done)
        return rc;
    if (parsed.command == CMD_COMPLETION)
        return answer_completion(rank);
    return 0;
}

/*
 * Rank 0 opens the outputs before any rank runs, as one run does: a path
 * that cannot be written ends the job at once. The exit code every rank
 * gets: 0 to run.
 */
static int open_outputs(int rank, int size, struct outputs *o)
{
    int rc = rank == 0 ? kl_cli_outputs_open(&parsed, o) : 0;
    if (size > KL_FLEET_MAX && rank == 0) {
        fprintf(stderr, "kladder-mpi: %d ranks: a fleet gathers at most %d\n", size, KL_FLEET_MAX);
        if (rc == 0)
            kl_cli_outputs_abort(o);
        rc = EXIT_USAGE;
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return rc;
}

/* This rank's host and device (mine->spec), or the exit code of why it has none. */
static void run_mine_device(struct rank_head *mine, MPI_Comm node, int rank)
{
    char host[MPI_MAX_PROCESSOR_NAME + 1];
    int hostlen = 0, local = 0, nlocal = 1;
    MPI_Comm_rank(node, &local);
    MPI_Comm_size(node, &nlocal);
    memset(mine, 0, sizeof *mine);
    MPI_Get_processor_name(host, &hostlen);
    host[hostlen] = '\0';
    snprintf(mine->host, sizeof mine->host, "%.127s", host);
    mine->exit_code = my_device(&parsed, local, nlocal, rank, mine->spec, &mine->shared);
}

/* This rank's run on its device, its head (host, device, exit code) and report (*json). */
static void run_mine(struct rank_head *mine, MPI_Comm node, int rank, int argc, char **typed,
                     char **json)
{
    *json = NULL;
    run_mine_device(mine, node, rank);
    if (mine->exit_code == 0)
        mine->exit_code = run_rank(&parsed, argc, typed, mine->spec, json);
    mine->len = *json ? (int)strlen(*json) : 0;
}

/*
 * mgemm and peak --p2p take CUDA devices, one a rank, NCCL between them: 0 where every rank
 * has a CUDA device, else EXIT_USAGE on every rank, rank 0 naming the first that has none.
 */
static int cuda_ranks(const struct rank_head *mine, int rank)
{
    const char *what =
        parsed.command == CMD_MGEMM ? "mgemm moves its panels" : "peak --p2p moves its copies";
    char why[512];
    if (mine->exit_code)
        snprintf(why, sizeof why, "it has no device (its message above)");
    else
        snprintf(why, sizeof why, "its device is %s", mine->spec);
    if (kl_ranks->agree(!mine->exit_code && strncmp(mine->spec, "cuda", 4) == 0, why, sizeof why))
        return 0;
    if (rank == 0)
        fprintf(stderr,
                "kladder-mpi: %s by NCCL between CUDA devices, one a rank; %s (peak "
                "--collectives runs on any device, through MPI where NCCL cannot)\n",
                what, why);
    return EXIT_USAGE;
}

/*
 * peak --collectives, peak --p2p and mgemm: every rank runs the command on its device, the
 * ranks in step through kladder-mpi's transport and ranks; rank 0 with the line as typed (its
 * outputs), the others quiet and without outputs. The exit code: the worst rank's.
 */
static int run_together(MPI_Comm node, int rank, int argc, char **typed)
{
    struct rank_head mine;
    struct outputs o;
    int rc = rank == 0 ? kl_cli_outputs_open(&parsed, &o) : 0, n = 0;
    if (rank == 0 && rc == 0)
        kl_cli_outputs_abort(&o); /* only checked here: the run opens them again */
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rc)
        return rc;
    run_mine_device(&mine, node, rank);
    kl_ranks = kl_mpi_ranks(mine.host, mine.shared);
    kl_coll_transport_open = kl_mpi_coll_open;
    if (!parsed.collectives && (rc = cuda_ranks(&mine, rank)) != 0) /* mgemm, peak --p2p */
        return rc;
    char **base = rank == 0 ? NULL : kl_cli_member_args(&parsed, argc, typed);
    char **src = rank == 0 ? typed : base, **args = NULL;
    while (src && src[n])
        n++;
    if (mine.exit_code == 0 && (args = calloc((size_t)n + 4, sizeof *args))) {
        memcpy(args, src, (size_t)n * sizeof *args);
        args[n++] = "--device", args[n++] = mine.spec;
        if (rank != 0)
            args[n++] = "--quiet";
        rc = rank == 0 ? kl_cli_main(n, args) : muted(0, kl_cli_main, n, args);
    } else { /* no device or no memory: the others hear of it at their first agreement */
        struct kl_coll_transport t;
        struct kl_err e;
        char why[] = "out of host memory";
        if (!parsed.collectives) /* mgemm, p2p: that of opening the devices, kl_menv_open */
            kl_ranks->agree(0, why, sizeof why);
        else
            kl_mpi_coll_open(NULL, &t, &e);
        rc = mine.exit_code ? mine.exit_code : EXIT_RUNTIME;
    }
    free(args), free(base);
    int worst = rc;
    MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return worst;
}

int main(int argc, char **argv)
{
    int rank = 0, size = 1, rc = 0;
    char **typed = NULL, **scratch = NULL;
    MPI_Comm node;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    if (answer_version(argc, argv, rank) || (rc = refuse(argc, argv, rank)) != 0) {
        MPI_Finalize();
        return rc;
    }
    struct outputs o;
    if ((rc = parse_line(argc, argv, rank, &typed, &scratch)) == 0 && !parsed_done &&
        ((parsed.command == CMD_PEAK && (parsed.collectives || parsed.p2p)) ||
         parsed.command == CMD_MGEMM)) {
        rc = run_together(node, rank, argc, typed);
        free_line(argc, scratch, typed);
        MPI_Comm_free(&node);
        MPI_Finalize();
        return rc;
    }
    if (rc != 0 || parsed_done || (rc = open_outputs(rank, size, &o)) != 0) {
        free_line(argc, scratch, typed);
        MPI_Finalize();
        return rc;
    }
    struct rank_head mine;
    struct kl_fleet_member m[KL_FLEET_MAX];
    char *json = NULL;
    run_mine(&mine, node, rank, argc, typed, &json);
    memset(m, 0, sizeof m);
    gather(rank, size, &mine, json, m);
    if (rank == 0)
        rc = kl_cli_fleet_write(&parsed, &o, m, size);
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    for (int i = 0; i < size; i++)
        free(m[i].json);
    free(json);
    free_line(argc, scratch, typed);
    MPI_Comm_free(&node);
    MPI_Finalize();
    return rc;
}
