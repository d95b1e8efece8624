#include <string.h>

#include "peers/peers_impl.h"

enum kl_status kl_peer_gemv(struct kl_context *kl, const char *peer,
                            const struct kl_gemv_problem *p, const struct kl_protocol *proto,
                            void *y, struct kl_stats *stats, char *what, size_t n, struct kl_err *e)
{
    if (strcmp(peer, "clblast") == 0)
        return kl_clblast_gemv(kl, p, proto, y, stats, what, n, e);
    if (strcmp(peer, "cublas") == 0)
        return kl_cublas_gemv(kl, p, proto, y, stats, what, n, e);
    return kl_fail(e, KL_ERR_ARG, "unknown peer \"%s\" (clblast or cublas)", peer);
}
