/*
 * NCCL between ranks (multi/coll.h): one CUDA device per process, the
 * communicator from a unique id the caller shares (ncclCommInitRank), every
 * collective on one stream of the rank's context. Barrier and max are the
 * caller's (MPI's).
 */
#include "multi/coll.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "multi/nccl.h"

#ifdef KLADDER_HAVE_CUDA

struct rank_nccl {
    struct kl_context *kl;
    const struct kl_nccl *n;
    kl_nccl_comm comm;
    void *stream;
    int rank, nranks;
};

enum kl_status kl_coll_nccl_id(void *id, size_t size, struct kl_err *e)
{
    const struct kl_nccl *n = kl_nccl_load(e);
    kl_nccl_unique_id u;
    if (!n)
        return KL_ERR_UNSUPPORTED;
    if (size < sizeof u)
        return kl_fail(e, KL_ERR_ARG, "NCCL's unique id needs %zu bytes", sizeof u);
    enum kl_status st = kl_nccl_check(n, n->get_unique_id(&u), "ncclGetUniqueId", e);
    if (st == KL_OK)
        memcpy(id, &u, sizeof u);
    return st;
}

static enum kl_status alloc(void *self, size_t floats, void **buf, struct kl_err *e)
{
    struct rank_nccl *r = self;
    return r->kl->ops->alloc(r->kl->dev, floats * sizeof(float), (struct kl_buf **)buf, e);
}

static void release(void *self, void *buf)
{
    ((struct rank_nccl *)self)->kl->ops->release(buf);
}

static enum kl_status put(void *self, void *buf, const float *host, size_t floats, struct kl_err *e)
{
    struct rank_nccl *r = self;
    return r->kl->ops->write(r->kl->dev, buf, host, floats * sizeof(float), e);
}

static enum kl_status get(void *self, float *host, const void *buf, size_t floats, struct kl_err *e)
{
    struct rank_nccl *r = self;
    return r->kl->ops->read(r->kl->dev, (struct kl_buf *)buf, host, floats * sizeof(float), e);
}

static void *ptr(const struct rank_nccl *r, const void *buf, size_t float_offset)
{
    return (void *)(uintptr_t)(r->kl->ops->device_ptr(buf) + float_offset * sizeof(float));
}

/* Every rank sends count floats of block p to rank p and receives rank p's into block p. */
static int all_to_all(const struct rank_nccl *r, const void *send, void *recv, size_t count)
{
    const struct kl_nccl *n = r->n;
    int rc = n->group_start();
    for (int p = 0; p < r->nranks && rc == KL_NCCL_SUCCESS; p++)
        if ((rc = n->send(ptr(r, send, p * count), count, KL_NCCL_FLOAT32, p, r->comm,
                          r->stream)) == KL_NCCL_SUCCESS)
            rc = n->recv(ptr(r, recv, p * count), count, KL_NCCL_FLOAT32, p, r->comm, r->stream);
    int end = n->group_end();
    return rc != KL_NCCL_SUCCESS ? rc : end;
}

/* Sends to rank + 1 and receives from rank - 1, round the ring. */
static int send_recv(const struct rank_nccl *r, const void *send, void *recv, size_t count)
{
    int rank = r->rank, nranks = r->nranks;
    const struct kl_nccl *n = r->n;
    int rc = n->group_start();
    if (rc == KL_NCCL_SUCCESS)
        rc = n->send(ptr(r, send, 0), count, KL_NCCL_FLOAT32, (rank + 1) % nranks, r->comm,
                     r->stream);
    if (rc == KL_NCCL_SUCCESS)
        rc = n->recv(ptr(r, recv, 0), count, KL_NCCL_FLOAT32, (rank + nranks - 1) % nranks, r->comm,
                     r->stream);
    int end = n->group_end();
    return rc != KL_NCCL_SUCCESS ? rc : end;
}

static enum kl_status wait_here(void *self, struct kl_err *e)
{
    struct rank_nccl *r = self;
    return r->kl->ops->stream_sync(r->kl->dev, r->stream, e);
}

static void close_rank(void *self)
{
    struct rank_nccl *r = self;
    if (r->comm)
        r->n->comm_destroy(r->comm);
    if (r->stream)
        r->kl->ops->stream_destroy(r->kl->dev, r->stream);
    free(r);
}

static enum kl_status run(void *self, enum kl_coll_op op, const void *send, void *recv,
                          size_t count, struct kl_err *e)
{
    struct rank_nccl *r = self;
    const struct kl_nccl *n = r->n;
    void *s = ptr(r, send, 0), *d = ptr(r, recv, 0);
    int rc;
    switch (op) {
    case KL_COLL_ALL_REDUCE:
        rc = n->all_reduce(s, d, count, KL_NCCL_FLOAT32, KL_NCCL_SUM, r->comm, r->stream);
        break;
    case KL_COLL_ALL_GATHER:
        rc = n->all_gather(s, d, count, KL_NCCL_FLOAT32, r->comm, r->stream);
        break;
    case KL_COLL_REDUCE_SCATTER:
        rc = n->reduce_scatter(s, d, count, KL_NCCL_FLOAT32, KL_NCCL_SUM, r->comm, r->stream);
        break;
    case KL_COLL_BROADCAST:
        rc = n->broadcast(s, d, count, KL_NCCL_FLOAT32, 0, r->comm, r->stream);
        break;
    case KL_COLL_REDUCE:
        rc = n->reduce(s, d, count, KL_NCCL_FLOAT32, KL_NCCL_SUM, 0, r->comm, r->stream);
        break;
    case KL_COLL_ALL_TO_ALL: rc = all_to_all(r, send, recv, count); break;
    case KL_COLL_SEND_RECV: rc = send_recv(r, send, recv, count); break;
    default: return kl_fail(e, KL_ERR_ARG, "no collective %d", (int)op);
    }
    return kl_nccl_check(n, rc, kl_coll_name(op), e);
}

enum kl_status kl_coll_nccl_open(struct kl_context *kl, int rank, int nranks, const void *id,
                                 struct kl_coll_transport *t, struct kl_err *e)
{
    const struct kl_nccl *n = kl_nccl_load(e);
    struct rank_nccl *r;
    kl_nccl_unique_id u;
    char version[32];
    if (!n)
        return KL_ERR_UNSUPPORTED;
    if (!kl->ops->device_ptr || !kl->ops->stream_create) /* CUDA's: addresses, streams */
        return kl_fail(e, KL_ERR_UNSUPPORTED,
                       "NCCL moves data between CUDA devices; this "
                       "rank's device is %s's",
                       kl->ops->name);
    if (!(r = calloc(1, sizeof *r)))
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory");
    r->kl = kl, r->n = n, r->rank = rank, r->nranks = nranks;
    memcpy(&u, id, sizeof u);
    enum kl_status st = kl->ops->stream_create(kl->dev, &r->stream, e);
    if (st == KL_OK)
        st = kl_nccl_check(n, n->comm_init_rank(&r->comm, nranks, u, rank), "ncclCommInitRank", e);
    if (st != KL_OK) {
        close_rank(r);
        return st;
    }
    kl_nccl_version_text(n, version, sizeof version);
    snprintf(t->what, sizeof t->what, "%s between the ranks' CUDA devices", version);
    t->rank = rank, t->nranks = nranks, t->self = r;
    t->alloc = alloc, t->release = release, t->put = put, t->get = get;
    t->run = run, t->wait = wait_here, t->close = close_rank;
    return KL_OK;
}

#else /* no CUDA backend */

enum kl_status kl_coll_nccl_id(void *id, size_t size, struct kl_err *e)
{
    (void)id, (void)size;
    return kl_fail(e, KL_ERR_UNSUPPORTED, "kladder was built without CUDA: no NCCL");
}

enum kl_status kl_coll_nccl_open(struct kl_context *kl, int rank, int nranks, const void *id,
                                 struct kl_coll_transport *t, struct kl_err *e)
{
    (void)kl, (void)rank, (void)nranks, (void)id, (void)t;
    return kl_fail(e, KL_ERR_UNSUPPORTED, "kladder was built without CUDA: no NCCL");
}

#endif /* KLADDER_HAVE_CUDA */
