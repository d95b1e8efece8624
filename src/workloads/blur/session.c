/*
 * The blur's problem: the picture as the kernels take it, the weights, the
 * buffers on the host and the device (the destination poisoned before each
 * verified run, a guard band after it), the separable reference in double,
 * and the verdict on an output.
 */
#include "workloads/blur/parts.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"

/* The weights of a Gaussian of σ over 2R+1 taps, in float as the kernels take them, and
 * their 2-D products. */
static void weights(double sigma, int R, float *w, float *w2)
{
    double sum = 0, *d = malloc((2 * (size_t)R + 1) * sizeof *d);
    for (int i = -R; i <= R; i++)
        sum += d[i + R] = exp(-(double)i * i / (2 * sigma * sigma));
    for (int i = 0; i <= 2 * R; i++)
        w[i] = (float)(d[i] / sum);
    for (int j = 0; j <= 2 * R; j++)
        for (int i = 0; i <= 2 * R; i++)
            w2[j * (2 * R + 1) + i] = w[j] * w[i];
    free(d);
}

static int clampi(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* The value of channel c of pixel i as the kernels see it (PIX_IN). */
static double pixel_in(const struct blur_session *s, const void *px, size_t i, int c)
{
    return s->pix == KL_PIX_FLOAT ? ((const float *)px)[i] : ((const uint8_t *)px)[4 * i + c];
}

/* Separable reference in double with clamp-to-edge, from the same float weights. */
enum kl_status kl_blur_reference(struct blur_session *s, struct kl_err *e)
{
    int W = s->W, H = s->H, R = s->R;
    double *tmp = s->n <= KL_IMAGE_MAX_PIXELS ? malloc(s->n * sizeof *tmp) : NULL;
    if (!tmp)
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory for the reference");
    for (int c = 0; c < s->ch; c++) {
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                double sum = 0;
                for (int i = -R; i <= R; i++)
                    sum += s->w[i + R] *
                           pixel_in(s, s->src, (size_t)y * W + clampi(x + i, 0, W - 1), c);
                tmp[(size_t)y * W + x] = sum;
            }
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                double sum = 0;
                for (int j = -R; j <= R; j++)
                    sum += s->w[j + R] * tmp[(size_t)clampi(y + j, 0, H - 1) * W + x];
                s->ref[((size_t)y * W + x) * s->ch + c] = sum;
            }
    }
    free(tmp);
    return KL_OK;
}

/*
 * Checks s->out against the reference; a note says how it went, and a verified row's
 * error is the worst difference over the full scale (1 for float, 255 levels for uchar4).
 */
int kl_blur_judge(const struct blur_session *s, struct kl_result *res)
{
    char *note = res->note;
    size_t n = sizeof res->note;
    double tol = s->pix == KL_PIX_FLOAT ? KL_BLUR_FLOAT_TOLERANCE : 1.0, worst = 0;
    size_t bad = 0, at = 0;
    int atc = 0;
    if (memcmp((char *)s->out + s->n * 4, (char *)s->fill + s->n * 4, KL_BLUR_GUARD * 4) != 0) {
        snprintf(note, n, "the kernel wrote past the end of the image (into the guard band)");
        return 0;
    }
    for (size_t i = 0; i < s->n; i++)
        for (int c = 0; c < s->ch; c++) {
            double err = fabs(pixel_in(s, s->out, i, c) - s->ref[i * s->ch + c]);
            if (!(err <= tol)) {
                if (!bad++ || !(err <= worst))
                    at = i, atc = c;
                worst = isnan(err) || !(err <= worst) ? err : worst;
            } else if (err > worst && !bad) {
                worst = err;
            }
        }
    if (bad) {
        snprintf(note, n,
                 "%zu of %zu values differ from the reference by more than %g; worst %.6g at "
                 "pixel (%zu, %zu) channel %d: got %.9g, want %.9g",
                 bad, s->n * (size_t)s->ch, tol, worst, at % (size_t)s->W, at / (size_t)s->W, atc,
                 pixel_in(s, s->out, at, atc), s->ref[at * s->ch + atc]);
        return 0;
    }
    snprintf(note, n, "%zu pixels match the reference (worst error %.2g, tolerance %g)", s->n,
             worst, tol);
    res->error = worst / (s->pix == KL_PIX_FLOAT ? 1.0 : 255.0);
    return 1;
}

/*
 * The picture as the kernels take it, into s->src: channel c as float in [0,1], or RGBA8;
 * for float, s->peak, the largest value.
 */
void kl_blur_to_pixels(struct blur_session *s, const struct kl_image *im, int c)
{
    void *dst = s->src;
    s->peak = 0;
    for (size_t i = 0; i < s->n; i++) {
        const unsigned char *p = im->px + i * (size_t)im->channels;
        if (s->pix == KL_PIX_FLOAT) {
            float v = ((float *)dst)[i] = p[c] / 255.0f;
            s->peak = v > s->peak ? v : s->peak;
        } else {
            uint8_t *q = (uint8_t *)dst + 4 * i;
            q[0] = p[0];
            q[1] = im->channels >= 3 ? p[1] : p[0];
            q[2] = im->channels >= 3 ? p[2] : p[0];
            q[3] = im->channels == 4 ? p[3] : 255;
        }
    }
}

void kl_blur_session_free(struct blur_session *s)
{
    if (s->kl) {
        const struct kl_backend_ops *o = s->kl->ops;
        o->release(s->dsrc);
        o->release(s->ddst);
        o->release(s->dtmp);
        o->release(s->dw);
        o->release(s->dw2);
        o->release(s->dimg);
    }
    free(s->w);
    free(s->w2);
    free(s->src);
    free(s->fill);
    free(s->out);
    free(s->best);
    free(s->ref);
}

/* Whether the picture's buffers (fbytes each for the intermediate) fit the device. */
static enum kl_status session_fits(const struct blur_session *s, size_t fbytes, struct kl_err *e)
{
    struct kl_context *kl = s->kl;
    if (fbytes > kl->info.max_alloc || (s->n + KL_BLUR_GUARD) * 4 > kl->info.max_alloc)
        return kl_fail(e, KL_ERR_NO_MEMORY,
                       "a %d×%d image needs %.1f MiB buffers, more than the device's largest "
                       "allocation (%.1f MiB)",
                       s->W, s->H, fbytes / 1048576.0, kl->info.max_alloc / 1048576.0);
    /* Source, destination, the intermediate pass; the weights are small. */
    return kl_device_fits(kl, (double)s->n * 8 + (double)fbytes + KL_BLUR_GUARD * 4.0,
                          "the picture's buffers", e);
}

/*
 * The host's side: the weights, the source pixels, the poison the
 * destination is filled with before each verified run, the buffers read
 * back, and the reference.
 */
static enum kl_status session_host(struct blur_session *s, const struct kl_blur_request *req,
                                   const struct kl_image *im, struct kl_err *e)
{
    size_t taps = 2 * (size_t)s->R + 1;
    /* the source, poison, read-back and kept output in 4 bytes a pixel, the reference in double */
    double need = (double)s->n * (4 * (req->output ? 4 : 3) + 8.0 * s->ch);
    enum kl_status st = kl_host_fits(need, "the picture's source, read-back and reference", e);
    if (st != KL_OK)
        return st;
    s->w = malloc(taps * sizeof *s->w);
    s->w2 = malloc(taps * taps * sizeof *s->w2);
    s->src = malloc(s->n * 4);
    s->fill = malloc((s->n + KL_BLUR_GUARD) * 4);
    s->out = malloc((s->n + KL_BLUR_GUARD) * 4);
    s->best = req->output ? malloc(s->n * 4) : NULL;
    s->ref = malloc(s->n * (size_t)s->ch * sizeof *s->ref);
    if (!s->w || !s->w2 || !s->src || !s->fill || !s->out || !s->ref || (req->output && !s->best))
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory for a %d×%d image", s->W, s->H);
    weights(req->sigma, s->R, s->w, s->w2);
    kl_blur_to_pixels(s, im, 0);
    /* a fixed pattern for uchar4; float pixels then NaN */
    memset(s->fill, 0xAB, (s->n + KL_BLUR_GUARD) * 4);
    if (s->pix == KL_PIX_FLOAT)
        for (size_t i = 0; i < s->n + KL_BLUR_GUARD; i++)
            ((float *)s->fill)[i] = NAN;
    return kl_blur_reference(s, e);
}

/* The device's side: source, destination (with its guard), intermediate and weights. */
static enum kl_status session_device(struct blur_session *s, size_t fbytes, struct kl_err *e)
{
    struct kl_context *kl = s->kl;
    size_t taps = 2 * (size_t)s->R + 1;
    enum kl_status st;
    if ((st = kl->ops->alloc(kl->dev, s->n * 4, &s->dsrc, e)) != KL_OK ||
        (st = kl->ops->alloc(kl->dev, (s->n + KL_BLUR_GUARD) * 4, &s->ddst, e)) != KL_OK ||
        (st = kl->ops->alloc(kl->dev, fbytes, &s->dtmp, e)) != KL_OK ||
        (st = kl->ops->alloc(kl->dev, taps * 4, &s->dw, e)) != KL_OK ||
        (st = kl->ops->alloc(kl->dev, taps * taps * 4, &s->dw2, e)) != KL_OK ||
        (st = kl->ops->write(kl->dev, s->dsrc, s->src, s->n * 4, e)) != KL_OK ||
        (st = kl->ops->write(kl->dev, s->dw, s->w, taps * 4, e)) != KL_OK)
        return st;
    return kl->ops->write(kl->dev, s->dw2, s->w2, taps * taps * 4, e);
}

/* The picture's buffers, weights and reference on the host and the device. */
enum kl_status kl_blur_session_make(struct blur_session *s, const struct kl_blur_request *req,
                                    const struct kl_image *im, int R, struct kl_err *e)
{
    enum kl_status st;
    s->pix = req->pixel;
    s->W = im->width, s->H = im->height, s->R = R;
    s->ch = req->pixel == KL_PIX_FLOAT ? 1 : 4;
    s->n = (size_t)s->W * (size_t)s->H;
    size_t fbytes = s->n * kl_blur_f_size(s);
    if ((st = session_fits(s, fbytes, e)) != KL_OK || (st = session_host(s, req, im, e)) != KL_OK)
        return st;
    return session_device(s, fbytes, e);
}
