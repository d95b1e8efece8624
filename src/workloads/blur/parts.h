/*
 * What the parts of the blur workload share; blur.h is its face to the rest
 * of kladder. The files, each calling only those before it:
 *   rungs.c    the rung table
 *   bound.c    the error bounds of the rungs that compute in halves (bound.h)
 *   session.c  the picture, the weights, the buffers on the host and the
 *              device, the reference and the verdict on an output
 *   run.c      one rung: its geometry and limits, its launches, its run
 *              verified, then timed
 *   peers.c    the vendor libraries' rows (NPP)
 *   ladder.c   the ladder: the picture in, the rungs through the engine, the
 *              user's kernels, --output's picture out
 * Their sections below are in the same order.
 */
#ifndef KL_BLUR_PARTS_H
#define KL_BLUR_PARTS_H

#include <stddef.h>

#include "core/launch.h"
#include "formats/image.h"
#include "workloads/blur/blur.h"

#define KL_BLUR_GUARD 256            /* pixels past the output that a correct kernel never writes */
#define KL_BLUR_FLOAT_TOLERANCE 1e-5 /* a float output's largest difference from the reference */

/* ---- the problem (session.c) --------------------------------------------- */

struct blur_session {
    struct kl_context *kl;
    enum kl_pixel pix;
    int W, H, R, ch;        /* ch: channels per pixel as computed (1 float, 4 uchar4) */
    double peak;            /* the largest |value| in src (what rung 14's bound needs) */
    size_t n;               /* pixels */
    float *w, *w2;          /* 1-D and 2-D weights */
    void *src, *fill, *out; /* n, n + KL_BLUR_GUARD, n + KL_BLUR_GUARD pixels of 4 bytes */
    void *best;             /* n pixels: the output chosen for --output */
    double *ref;            /* n·ch expected values */
    struct kl_buf *dsrc, *ddst, *dtmp, *dw, *dw2, *dimg;
};

/* Bytes of one pixel of the intermediate pass: a float, or four for uchar4's channels. */
static inline size_t kl_blur_f_size(const struct blur_session *s)
{
    return s->pix == KL_PIX_FLOAT ? 4 : 16;
}

/*
 * The picture's buffers, weights and reference on the host and the device,
 * for im blurred at radius R as req asks (s->kl set); the picture's channel 0.
 */
enum kl_status kl_blur_session_make(struct blur_session *s, const struct kl_blur_request *req,
                                    const struct kl_image *im, int R, struct kl_err *e);
void kl_blur_session_free(struct blur_session *s);
/*
 * The picture as the kernels take it, into s->src: channel c as float in
 * [0,1], or RGBA8; for float, s->peak, the largest value.
 */
void kl_blur_to_pixels(struct blur_session *s, const struct kl_image *im, int c);
/* The separable reference in double of s->src, clamped edges, into s->ref. */
enum kl_status kl_blur_reference(struct blur_session *s, struct kl_err *e);
/*
 * The verdict on s->out: 1 when it matches the reference and wrote nothing
 * into the guard band; res's note says how it went, a verified row's error
 * the worst difference over the full scale.
 */
int kl_blur_judge(const struct blur_session *s, struct kl_result *res);

/* ---- one rung (run.c) ----------------------------------------------------- */

/* What rules rung r out here whatever its values (so a skipped row); 0 and why if so. */
int kl_blur_runs_here(const struct kl_blur_rung *r, const struct blur_session *s, char *why,
                      size_t n);
/* Rung r's values v against the device and launch l: KL_ERR_UNSUPPORTED with the reason. */
enum kl_status kl_blur_check_rung(const struct kl_blur_rung *r, const int *v,
                                  const struct blur_session *s, const struct kl_launch *l,
                                  struct kl_err *e);
/* The launch of one pass of rung r at W × H, radius R, into l. */
void kl_blur_shape(const struct kl_blur_rung *r, const int *v, enum kl_pixel pix, int R, int W,
                   int H, struct kl_launch *l);
/* Runs p once on a poisoned output, judges it against the reference, then times p. */
enum kl_status kl_blur_verify_and_time(struct blur_session *s, struct kl_launch_pair *p,
                                       const struct kl_protocol *proto, struct kl_result *res);
/* Rung r with these values: checked, built, run once and judged, then timed, into res. */
enum kl_status kl_blur_run_rung(struct blur_session *s, const struct kl_blur_rung *r,
                                const int *values, const struct kl_protocol *proto,
                                struct kl_result *res);

/* ---- the vendor libraries (peers.c) -------------------------------------- */

/* Library peer's blur of the same picture with the same weights: a row of rep, verified. */
enum kl_status kl_blur_run_peer(struct blur_session *s, const char *peer,
                                const struct kl_protocol *proto, struct kl_report *rep);

#endif /* KL_BLUR_PARTS_H */
