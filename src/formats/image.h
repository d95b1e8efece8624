/*
 * Images for the image workloads: loading PNG (through libpng, optional at
 * build time: KLADDER_HAVE_PNG) and binary PGM/PPM, saving PNG and PGM/PPM,
 * a seeded synthetic test picture, and conversions between 8-bit pixels,
 * float planes and RGBA8. Nothing here prints.
 */
#ifndef KL_IMAGE_H
#define KL_IMAGE_H

#include <stddef.h>

#include "core/error.h"

/* Limits on what is loaded or allocated: at most this many pixels on a
 * side and in all. */
#define KL_IMAGE_MAX_SIDE 65536
#define KL_IMAGE_MAX_PIXELS (1LL << 30)

struct kl_image {
    int width, height;
    int channels;      /* 1 grey, 3 RGB, 4 RGBA */
    unsigned char *px; /* width*height*channels bytes, row-major, 8 bits per channel */
};

/* 1 if the library was built with libpng, else 0. */
int kl_image_have_png(void);

/*
 * Allocates a zeroed width×height image of channels 1, 3 or 4. Dimensions
 * outside the limits above or another channel count: KL_ERR_ARG; *out is
 * zeroed on failure.
 */
enum kl_status kl_image_alloc(int width, int height, int channels, struct kl_image *out,
                              struct kl_err *e);

/* Frees the pixels and zeroes *im; NULL and zeroed images are fine. */
void kl_image_free(struct kl_image *im);

/* width*height and width*height*channels (the image must be valid). */
size_t kl_image_pixels(const struct kl_image *im);
size_t kl_image_bytes(const struct kl_image *im);

/*
 * Reads an image, choosing the format by the file's first bytes, not its
 * name:
 *   PNG  every colour type and bit depth libpng reads, converted to 8 bits:
 *        grey stays grey (1), grey+alpha and any alpha/tRNS become RGBA (4),
 *        RGB and palette become RGB (3). 16-bit samples v become about
 *        v/257 (16-bit files without gamma information are taken as sRGB;
 *        files that say they are linear are encoded to sRGB by libpng).
 *   P5/P6 binary PGM/PPM with maxval <= 255; maxval < 255 is scaled to
 *        0..255. 16-bit PNM (maxval > 255) and ASCII PNM are refused.
 * A missing or unreadable file, a directory, an unknown format, truncated or
 * corrupt data, zero or absurd dimensions: KL_ERR_IO with a message naming
 * the file. A PNG when built without libpng: KL_ERR_UNSUPPORTED. Out of
 * memory: KL_ERR_NO_MEMORY. *out is zeroed on failure.
 */
enum kl_status kl_image_load(const char *path, struct kl_image *out, struct kl_err *e);

/*
 * Writes an 8-bit PNG: grey, RGB or RGBA by im->channels, with libpng's fast
 * setting (PNG_IMAGE_FLAG_FAST: about twice as quick, files a little larger;
 * 16 Mpixel RGBA takes about 2 s). An invalid image: KL_ERR_ARG; a file that
 * cannot be written: KL_ERR_IO with the reason (a partial regular file is
 * removed); built without libpng: KL_ERR_UNSUPPORTED.
 */
enum kl_status kl_image_save_png(const char *path, const struct kl_image *im, struct kl_err *e);

/*
 * Writes a binary PGM (1 channel) or PPM (3 channels), which works without
 * libpng. 4 channels: KL_ERR_ARG (PNM has no alpha). Write errors: KL_ERR_IO.
 */
enum kl_status kl_image_save_pnm(const char *path, const struct kl_image *im, struct kl_err *e);

/*
 * A test picture with structure for filters: a background gradient, a
 * checkerboard of 2-pixel cells, 1-pixel lines, a dark and a bright
 * rectangle, a disc, and noise of about ±6 levels from a splitmix64 stream
 * seeded with seed, so the same arguments always give the same bytes.
 * Every channel has dark (< 32) and bright (> 223) pixels once the image is
 * a few dozen pixels on a side. channels 1, 3 or 4 (alpha varies too).
 * Invalid arguments: KL_ERR_ARG.
 */
enum kl_status kl_image_synthetic(int width, int height, int channels, unsigned long long seed,
                                  struct kl_image *out, struct kl_err *e);

/*
 * Float planes, values in [0, 1] (byte v is v/255): plane c of a w×h image
 * is at out + c*w*h. The *_set_* direction rounds v*255 to the nearest
 * integer once (halves up) and saturates to 0..255; NaN becomes 0. 8-bit
 * data round-trips exactly. c must be in [0, channels).
 */
void kl_image_plane_float(const struct kl_image *im, int c, float *out);
void kl_image_set_plane_float(struct kl_image *im, int c, const float *in);
/* All channels: out/in hold channels planes of w*h floats. */
void kl_image_to_float(const struct kl_image *im, float *out);
void kl_image_from_float(struct kl_image *im, const float *in);

/*
 * RGBA8, 4 bytes per pixel: grey is copied into R, G and B; alpha is 255
 * where the image has none. kl_image_from_rgba8 writes back into im keeping
 * its channel count: RGB drops alpha, grey takes the rounded mean of R, G
 * and B (so an expanded grey image comes back exactly).
 */
void kl_image_to_rgba8(const struct kl_image *im, unsigned char *out);
void kl_image_from_rgba8(struct kl_image *im, const unsigned char *in);

#endif /* KL_IMAGE_H */
