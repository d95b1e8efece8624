/*
 * The vendor libraries' blur (NPP) of the same picture with the same
 * weights: a row each, verified as a rung is.
 */
#include "workloads/blur/parts.h"

#include <stdio.h>
#include <string.h>

#include "core/measure.h"
#include "peers/peers.h"

/* A library's blur of the same picture with the same weights: a row, verified like a rung. */
enum kl_status kl_blur_run_peer(struct blur_session *s, const char *peer,
                                const struct kl_protocol *proto, struct kl_report *rep)
{
    struct kl_blur_problem p = {s->pix == KL_PIX_UCHAR4, s->W, s->H, s->R, s->src, s->w};
    char name[64], what[256];
    struct kl_stats stats;
    struct kl_err e;
    snprintf(name, sizeof name, "peer:%s", peer);
    struct kl_result *res = kl_report_add(rep, name, NULL);
    if (!res)
        return kl_fail(&s->kl->err, KL_ERR_NO_MEMORY, "out of host memory");
    res->peer = 1;
    /* The guard band stays as filled: a library writes its own buffer, never past it. */
    memcpy(s->out, s->fill, (s->n + KL_BLUR_GUARD) * 4);
    kl_measure_forget();
    enum kl_status st = kl_peer_blur(s->kl, peer, &p, proto, s->out, &stats, what, sizeof what, &e);
    if (kl_peer_row(res, st, &e, what) && kl_blur_judge(s, res)) {
        kl_result_set_stats(res, &stats);
        kl_result_keep_measured(res);
    } else if (st == KL_OK) {
        /* Wrong results are no speed; the note keeps the time for whoever weighs the error. */
        size_t used = strlen(res->note);
        res->status = KL_RESULT_FAILED;
        snprintf(res->note + used, sizeof res->note - used,
                 " (its launches took %.4g ms, median of %d; not a result)", stats.median * 1e3,
                 stats.n);
    }
    return KL_OK;
}
