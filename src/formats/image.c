#define _POSIX_C_SOURCE 200809L
#include "formats/image.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifdef KLADDER_HAVE_PNG
#include <png.h>
#endif

#include "core/util.h"

#define NO_PNG "kladder was built without libpng (install libpng-dev and rebuild)"
#define LIMITS "1 to 65536 pixels on a side and at most 2^30 pixels"

static const unsigned char png_signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

int kl_image_have_png(void)
{
#ifdef KLADDER_HAVE_PNG
    return 1;
#else
    return 0;
#endif
}

static int dims_ok(long long w, long long h)
{
    return w >= 1 && h >= 1 && w <= KL_IMAGE_MAX_SIDE && h <= KL_IMAGE_MAX_SIDE &&
           w * h <= KL_IMAGE_MAX_PIXELS;
}

static int channels_ok(int c)
{
    return c == 1 || c == 3 || c == 4;
}

/* w*h*c in bytes, 0 if it does not fit in size_t (dims_ok must hold). */
static size_t byte_count(long long w, long long h, int c)
{
    unsigned long long n = (unsigned long long)w * (unsigned long long)h * (unsigned)c;
    return n > SIZE_MAX ? 0 : (size_t)n;
}

size_t kl_image_pixels(const struct kl_image *im)
{
    return (size_t)im->width * (size_t)im->height;
}

size_t kl_image_bytes(const struct kl_image *im)
{
    return kl_image_pixels(im) * (size_t)im->channels;
}

static enum kl_status alloc_px(struct kl_image *out, long long w, long long h, int c, int zero,
                               struct kl_err *e)
{
    size_t n = byte_count(w, h, c);
    if (n == 0)
        return kl_fail(e, KL_ERR_NO_MEMORY,
                       "an image of %lldx%lld pixels with %d channels does "
                       "not fit in the address space",
                       w, h, c);
    out->px = zero ? calloc(n, 1) : malloc(n);
    if (!out->px)
        return kl_fail(e, KL_ERR_NO_MEMORY,
                       "out of host memory for an image of %lldx%lld pixels "
                       "with %d channels (%zu bytes)",
                       w, h, c, n);
    out->width = (int)w;
    out->height = (int)h;
    out->channels = c;
    return KL_OK;
}

enum kl_status kl_image_alloc(int width, int height, int channels, struct kl_image *out,
                              struct kl_err *e)
{
    memset(out, 0, sizeof *out);
    if (!channels_ok(channels))
        return kl_fail(e, KL_ERR_ARG, "an image has 1, 3 or 4 channels, not %d", channels);
    if (!dims_ok(width, height))
        return kl_fail(e, KL_ERR_ARG, "image size %dx%d is out of range (" LIMITS ")", width,
                       height);
    return alloc_px(out, width, height, channels, 1, e);
}

void kl_image_free(struct kl_image *im)
{
    if (!im)
        return;
    free(im->px);
    memset(im, 0, sizeof *im);
}

/* An image given to a save function must be complete and within limits. */
static enum kl_status check_image(const char *path, const struct kl_image *im, struct kl_err *e)
{
    if (!path)
        return kl_fail(e, KL_ERR_ARG, "no file name given to save the image to");
    if (!im || !im->px)
        return kl_fail(e, KL_ERR_ARG, "cannot write %s: the image has no pixels", path);
    if (!channels_ok(im->channels))
        return kl_fail(e, KL_ERR_ARG, "cannot write %s: an image has 1, 3 or 4 channels, not %d",
                       path, im->channels);
    if (!dims_ok(im->width, im->height))
        return kl_fail(e, KL_ERR_ARG,
                       "cannot write %s: image size %dx%d is out of range (" LIMITS ")", path,
                       im->width, im->height);
    return KL_OK;
}

/* ------------------------------------------------------------------------ */
/* PGM / PPM                                                                 */

/* Skips whitespace and comments; returns how many characters it skipped. */
static long pnm_skip(FILE *f)
{
    long n = 0;
    int c;
    while ((c = getc(f)) != EOF) {
        if (c == '#') {
            while ((c = getc(f)) != EOF && c != '\n' && c != '\r')
                n++;
            n++;
            if (c == EOF)
                break;
        } else if (isspace(c)) {
            n++;
        } else {
            ungetc(c, f);
            break;
        }
    }
    return n;
}

/* A header number after at least one separator: 1 read, 0 not a number, -1 too many digits. */
static int pnm_number(FILE *f, long long *v)
{
    int c, digits = 0;
    long long x = 0;
    if (pnm_skip(f) == 0)
        return 0;
    while ((c = getc(f)) != EOF && isdigit(c)) {
        if (++digits > 9)
            return -1;
        x = x * 10 + (c - '0');
    }
    if (c != EOF)
        ungetc(c, f);
    if (digits == 0)
        return 0;
    *v = x;
    return 1;
}

/*
 * The header after the magic: width, height and maxval into v, then the one
 * whitespace character before the samples; checked against the limits and
 * 8-bit samples (kind: "PGM" or "PPM", for messages).
 */
static enum kl_status pnm_header(FILE *f, const char *path, const char *kind, long long v[3],
                                 struct kl_err *e)
{
    const char *what[3] = {"width", "height", "maxval"};
    if (fseek(f, 2, SEEK_SET) != 0)
        return kl_fail(e, KL_ERR_IO, "cannot read image %s: %s", path, strerror(errno));
    for (int i = 0; i < 3; i++) {
        int r = pnm_number(f, &v[i]);
        if (r == 0)
            return kl_fail(e, KL_ERR_IO, "cannot read image %s: bad %s header (expected the %s)",
                           path, kind, what[i]);
        if (r < 0)
            return kl_fail(e, KL_ERR_IO,
                           "cannot read image %s: bad %s header (the %s has more than 9 digits)",
                           path, kind, what[i]);
    }
    /* Exactly one whitespace character separates the header from the samples. */
    int c = getc(f);
    if (!isspace(c))
        return kl_fail(e, KL_ERR_IO,
                       "cannot read image %s: bad %s header (expected whitespace after the maxval)",
                       path, kind);
    if (!dims_ok(v[0], v[1]))
        return kl_fail(e, KL_ERR_IO,
                       "cannot read image %s: its size %lldx%lld is out of range "
                       "(" LIMITS ")",
                       path, v[0], v[1]);
    if (v[2] == 0 || v[2] > 65535)
        return kl_fail(e, KL_ERR_IO,
                       "cannot read image %s: bad %s header (maxval %lld is not in "
                       "1..65535)",
                       path, kind, v[2]);
    if (v[2] > 255)
        return kl_fail(e, KL_ERR_IO,
                       "cannot read image %s: it is a 16-bit %s (maxval %lld); only "
                       "8-bit PGM/PPM (maxval up to 255) is supported",
                       path, kind, v[2]);
    return KL_OK;
}

/* Samples of 0..maxval (below 255) stretched to 0..255; a sample past maxval is corrupt. */
static enum kl_status pnm_stretch(struct kl_image *out, size_t need, unsigned maxval,
                                  const char *path, const char *kind, struct kl_err *e)
{
    unsigned char lut[256];
    for (unsigned s = 0; s <= maxval; s++)
        lut[s] = (unsigned char)((s * 255 + maxval / 2) / maxval);
    for (size_t i = 0; i < need; i++) {
        if (out->px[i] > maxval) {
            size_t p = i / (size_t)out->channels;
            unsigned bad = out->px[i];
            int w = out->width;
            kl_image_free(out);
            return kl_fail(e, KL_ERR_IO,
                           "cannot read image %s: corrupt %s (sample %u at "
                           "pixel (%zu, %zu) exceeds maxval %u)",
                           path, kind, bad, p % (size_t)w, p / (size_t)w, maxval);
        }
        out->px[i] = lut[out->px[i]];
    }
    return KL_OK;
}

static enum kl_status load_pnm(FILE *f, const char *path, int channels, long long file_size,
                               struct kl_image *out, struct kl_err *e)
{
    const char *kind = channels == 1 ? "PGM" : "PPM";
    long long v[3];
    size_t need, got;
    long pos;
    enum kl_status st = pnm_header(f, path, kind, v, e);
    if (st != KL_OK)
        return st;
    /* Compare with the file's size before allocating, so a corrupt header
     * cannot ask for gigabytes. */
    need = byte_count(v[0], v[1], channels);
    if ((pos = ftell(f)) < 0)
        return kl_fail(e, KL_ERR_IO, "cannot read image %s: %s", path, strerror(errno));
    if (need == 0 || file_size - pos < 0 || (unsigned long long)(file_size - pos) < need)
        return kl_fail(e, KL_ERR_IO,
                       "cannot read image %s: truncated %s (%lldx%lld needs %zu "
                       "bytes of samples, the file has %lld)",
                       path, kind, v[0], v[1], need, file_size - pos);
    if ((st = alloc_px(out, v[0], v[1], channels, 0, e)) != KL_OK)
        return st;
    got = fread(out->px, 1, need, f);
    if (got != need) {
        kl_image_free(out);
        return kl_fail(e, KL_ERR_IO,
                       "cannot read image %s: truncated %s (%zu of %zu bytes of "
                       "samples)",
                       path, kind, got, need);
    }
    return v[2] < 255 ? pnm_stretch(out, need, (unsigned)v[2], path, kind, e) : KL_OK;
}

/* ------------------------------------------------------------------------ */
/* PNG                                                                       */

#ifdef KLADDER_HAVE_PNG
/* libpng's message, and whether the file simply ended early. */
static enum kl_status png_read_failed(FILE *f, const char *path, const png_image *img,
                                      struct kl_err *e)
{
    return kl_fail(e, KL_ERR_IO, "cannot read PNG %s: %s%s", path,
                   img->message[0] ? img->message : "libpng failed",
                   feof(f) ? " (the file is truncated)" : "");
}
#endif

static enum kl_status load_png(FILE *f, const char *path, long long file_size, struct kl_image *out,
                               struct kl_err *e)
{
#ifdef KLADDER_HAVE_PNG
    png_image img;
    int channels;
    enum kl_status st;

    if (fseek(f, 0, SEEK_SET) != 0)
        return kl_fail(e, KL_ERR_IO, "cannot read PNG %s: %s", path, strerror(errno));
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_stdio(&img, f)) {
        png_image_free(&img);
        return png_read_failed(f, path, &img, e);
    }
    if (!dims_ok(img.width, img.height)) {
        png_image_free(&img);
        return kl_fail(e, KL_ERR_IO,
                       "cannot read PNG %s: its size %lux%lu is out of range "
                       "(" LIMITS ")",
                       path, (unsigned long)img.width, (unsigned long)img.height);
    }
    /* A row takes at least a filter byte and a bit per pixel, and deflate packs at most
     * 1032 bytes into one: a file too small for that is corrupt, and must not have us
     * allocate gigabytes for it (as PGM/PPM are checked against the file's size). */
    if ((unsigned long long)file_size * 1032 <
        (unsigned long long)img.height * (1 + (img.width + 7) / 8)) {
        png_image_free(&img);
        return kl_fail(e, KL_ERR_IO,
                       "cannot read PNG %s: truncated or corrupt (%lux%lu pixels do not fit in "
                       "%lld bytes)",
                       path, (unsigned long)img.width, (unsigned long)img.height, file_size);
    }
    /* Any alpha (grey+alpha, tRNS, RGBA palette) gives RGBA; colour or a
     * palette gives RGB; grey stays grey. Always 8 bits, not colour-mapped. */
    if (img.format & PNG_FORMAT_FLAG_ALPHA)
        channels = 4;
    else if (img.format & PNG_FORMAT_FLAG_COLOR)
        channels = 3;
    else
        channels = 1;
    img.format = channels == 4 ? PNG_FORMAT_RGBA : channels == 3 ? PNG_FORMAT_RGB : PNG_FORMAT_GRAY;
    /* 16-bit samples without gamma information scale to 8 bits (v/257)
     * instead of being taken as linear light. */
    img.flags |= PNG_IMAGE_FLAG_16BIT_sRGB;
    st = alloc_px(out, img.width, img.height, channels, 0, e);
    if (st != KL_OK) {
        png_image_free(&img);
        return st;
    }
    if (!png_image_finish_read(&img, NULL, out->px, 0, NULL)) {
        png_image_free(&img);
        kl_image_free(out);
        return png_read_failed(f, path, &img, e);
    }
    png_image_free(&img);
    return KL_OK;
#else
    (void)f;
    (void)file_size;
    (void)out;
    return kl_fail(e, KL_ERR_UNSUPPORTED, "cannot read PNG %s: " NO_PNG, path);
#endif
}

/* Opens path, a regular file (directories and FIFOs would open, or block, but are no
 * images), into *f with its facts in *sb. */
static enum kl_status open_regular(const char *path, FILE **f, struct stat *sb, struct kl_err *e)
{
    if (stat(path, sb) != 0)
        return kl_fail(e, KL_ERR_IO, "cannot open image %s: %s", path, strerror(errno));
    if (S_ISDIR(sb->st_mode))
        return kl_fail(e, KL_ERR_IO, "cannot read image %s: it is a directory", path);
    if (!S_ISREG(sb->st_mode))
        return kl_fail(e, KL_ERR_IO, "cannot read image %s: not a regular file", path);
    if (!(*f = fopen(path, "rb")))
        return kl_fail(e, KL_ERR_IO, "cannot open image %s: %s", path, strerror(errno));
    if (fstat(fileno(*f), sb) != 0) {
        fclose(*f);
        return kl_fail(e, KL_ERR_IO, "cannot read image %s: %s", path, strerror(errno));
    }
    return KL_OK;
}

/* The file's format by its first got bytes (magic), read by that format's loader. */
static enum kl_status load_by_magic(FILE *f, const char *path, long long size,
                                    const unsigned char *magic, size_t got, struct kl_image *out,
                                    struct kl_err *e)
{
    const size_t full = sizeof png_signature;
    if (got == full && memcmp(magic, png_signature, full) == 0)
        return load_png(f, path, size, out, e);
    if (got < full && memcmp(magic, png_signature, got) == 0)
        return kl_fail(e, KL_ERR_IO, "cannot read image %s: truncated PNG (%zu bytes)", path, got);
    int pnm = got >= 2 && magic[0] == 'P';
    if (pnm && (magic[1] == '5' || magic[1] == '6'))
        return load_pnm(f, path, magic[1] == '5' ? 1 : 3, size, out, e);
    if (pnm && magic[1] >= '1' && magic[1] <= '7' && (got == 2 || isspace(magic[2])))
        return kl_fail(e, KL_ERR_IO,
                       "cannot read image %s: PNM type P%c (ASCII, bitmap or PAM) is "
                       "not supported; use binary PGM (P5), PPM (P6) or PNG",
                       path, magic[1]);
    return kl_fail(e, KL_ERR_IO, "cannot read image %s: not a PNG, PGM (P5) or PPM (P6) file",
                   path);
}

enum kl_status kl_image_load(const char *path, struct kl_image *out, struct kl_err *e)
{
    unsigned char magic[8];
    struct stat sb;
    enum kl_status st;
    FILE *f = NULL;

    memset(out, 0, sizeof *out);
    if (!path)
        return kl_fail(e, KL_ERR_ARG, "no image file given");
    if ((st = open_regular(path, &f, &sb, e)) != KL_OK)
        return st;
    size_t got = fread(magic, 1, sizeof magic, f);
    if (ferror(f))
        st = kl_fail(e, KL_ERR_IO, "cannot read image %s: %s", path, strerror(errno));
    else if (got == 0)
        st = kl_fail(e, KL_ERR_IO, "cannot read image %s: the file is empty", path);
    else
        st = load_by_magic(f, path, (long long)sb.st_size, magic, got, out, e);
    fclose(f);
    if (st != KL_OK)
        kl_image_free(out);
    return st;
}

/* ------------------------------------------------------------------------ */
/* Saving                                                                    */

/* After a failed write, a partial regular file is removed (never a device). */
/*
 * Pictures are written under a temporary name and renamed into place
 * (kl_out_file): a failed or killed write leaves an older file as it was.
 * Flushes, closes and renames o; on failure removes it and says why.
 */
static enum kl_status finish_write(struct kl_out_file *o, const char *kind, struct kl_err *e)
{
    int err = 0;
    if (fflush(o->f) != 0 || ferror(o->f))
        err = errno ? errno : EIO;
    if (err)
        kl_out_abort(o);
    else if (kl_out_commit(o) != 0)
        err = errno ? errno : EIO;
    if (err)
        return kl_fail(e, KL_ERR_IO, "cannot write %s %s: %s", kind, o->path, strerror(err));
    return KL_OK;
}

enum kl_status kl_image_save_png(const char *path, const struct kl_image *im, struct kl_err *e)
{
    enum kl_status st = check_image(path, im, e);
    if (st != KL_OK)
        return st;
#ifdef KLADDER_HAVE_PNG
    png_image img;
    struct kl_out_file o;
    if (kl_out_open(&o, path) != 0)
        return kl_fail(e, KL_ERR_IO, "cannot write PNG %s: %s", path, strerror(errno));
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    img.width = (png_uint_32)im->width;
    img.height = (png_uint_32)im->height;
    img.flags = PNG_IMAGE_FLAG_FAST;
    img.format = im->channels == 4   ? PNG_FORMAT_RGBA
                 : im->channels == 3 ? PNG_FORMAT_RGB
                                     : PNG_FORMAT_GRAY;
    errno = 0;
    if (!png_image_write_to_stdio(&img, o.f, 0, im->px, 0, NULL)) {
        int err = errno;
        png_image_free(&img);
        kl_out_abort(&o);
        if (err)
            return kl_fail(e, KL_ERR_IO, "cannot write PNG %s: %s (%s)", path,
                           img.message[0] ? img.message : "libpng failed", strerror(err));
        return kl_fail(e, KL_ERR_IO, "cannot write PNG %s: %s", path,
                       img.message[0] ? img.message : "libpng failed");
    }
    png_image_free(&img);
    return finish_write(&o, "PNG", e);
#else
    return kl_fail(e, KL_ERR_UNSUPPORTED, "cannot write PNG %s: " NO_PNG, path);
#endif
}

enum kl_status kl_image_save_pnm(const char *path, const struct kl_image *im, struct kl_err *e)
{
    enum kl_status st = check_image(path, im, e);
    const char *kind;
    size_t n;
    struct kl_out_file o;
    if (st != KL_OK)
        return st;
    if (im->channels == 4)
        return kl_fail(e, KL_ERR_ARG,
                       "cannot write %s: PGM/PPM has no alpha channel; save RGBA "
                       "as PNG",
                       path);
    kind = im->channels == 1 ? "PGM" : "PPM";
    if (kl_out_open(&o, path) != 0)
        return kl_fail(e, KL_ERR_IO, "cannot write %s %s: %s", kind, path, strerror(errno));
    n = kl_image_bytes(im);
    fprintf(o.f, "P%c\n%d %d\n255\n", im->channels == 1 ? '5' : '6', im->width, im->height);
    fwrite(im->px, 1, n, o.f); /* errors are sticky: finish_write sees them */
    return finish_write(&o, kind, e);
}

/* ------------------------------------------------------------------------ */
/* Synthetic picture                                                         */

static int in_box(double u, double v, double u0, double v0, double u1, double v1)
{
    return u >= u0 && u < u1 && v >= v0 && v < v1;
}

/* The noiseless value in [0, 1] of channel c (of nc) at pixel (x, y). */
/* Alpha: opaque at the top left, fading towards the bottom right, with a hard-edged
 * half-transparent band. */
static double synth_alpha(double u, double v)
{
    if (in_box(u, v, 0.0, 0.48, 1.0, 0.52))
        return 0.5;
    return 1.0 - 0.6 * u * v;
}

/* The rectangles' and line fields' value at (x, y) (u, v: its place in 0..1) into *out;
 * 0 where none covers it. */
static int synth_shape(int x, int y, double u, double v, double *out)
{
    if (in_box(u, v, 0.52, 0.06, 0.94, 0.24))
        *out = 0.04; /* dark rectangle */
    else if (in_box(u, v, 0.56, 0.30, 0.78, 0.46))
        *out = 0.96; /* bright rectangle */
    else if (in_box(u, v, 0.06, 0.06, 0.42, 0.42))
        *out = ((x / 2 + y / 2) & 1) ? 0.85 : 0.15; /* checkerboard of 2-pixel cells */
    else if (in_box(u, v, 0.06, 0.55, 0.42, 0.94) && x % 4 == 0)
        *out = 0.9; /* vertical 1-pixel lines */
    else if (in_box(u, v, 0.06, 0.55, 0.42, 0.94) && y % 5 == 0)
        *out = 0.1; /* horizontal 1-pixel lines */
    else
        return 0;
    return 1;
}

/* Gradients, a different direction in each channel. */
static double synth_gradient(double u, double v, int c, int nc)
{
    if (nc == 1)
        return 0.15 + 0.35 * u + 0.35 * v;
    switch (c) {
    case 0: return 0.15 + 0.7 * u;
    case 1: return 0.15 + 0.7 * v;
    default: return 0.85 - 0.35 * u - 0.35 * v;
    }
}

static double synth_value(int x, int y, int w, int h, int c, int nc)
{
    static const double disc_tint[4] = {0.92, 0.55, 0.25, 1.0};
    double u = (x + 0.5) / w, v = (y + 0.5) / h, shape;
    double cx = 0.72 * w, cy = 0.72 * h, r = 0.2 * (w < h ? w : h);
    double dx = x + 0.5 - cx, dy = y + 0.5 - cy;

    if (nc == 4 && c == 3)
        return synth_alpha(u, v);
    if (dx * dx + dy * dy <= r * r)
        return nc == 1 ? 0.75 : disc_tint[c];
    if (synth_shape(x, y, u, v, &shape))
        return shape;
    return synth_gradient(u, v, c, nc);
}

enum kl_status kl_image_synthetic(int width, int height, int channels, unsigned long long seed,
                                  struct kl_image *out, struct kl_err *e)
{
    struct kl_rng rng;
    enum kl_status st = kl_image_alloc(width, height, channels, out, e);
    if (st != KL_OK)
        return st;
    kl_rng_seed(&rng, (uint64_t)seed);
    unsigned char *p = out->px;
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++)
            for (int c = 0; c < channels; c++) {
                double s = synth_value(x, y, width, height, c, channels) * 255.0;
                s += 6.0 * kl_rng_uniform(&rng);
                *p++ = (unsigned char)(s <= 0.0 ? 0 : s >= 255.0 ? 255 : (int)(s + 0.5));
            }
    return KL_OK;
}

/* ------------------------------------------------------------------------ */
/* Conversions                                                               */

/* Rounds f*255 once (halves up) and saturates; NaN gives 0. In double the
 * product and the rounding are exact for every float. */
static unsigned char to_byte(float f)
{
    double v = (double)f * 255.0;
    if (!(v > 0.0))
        return 0;
    if (v >= 255.0)
        return 255;
    return (unsigned char)(v + 0.5);
}

void kl_image_plane_float(const struct kl_image *im, int c, float *out)
{
    size_t n = kl_image_pixels(im), nc = (size_t)im->channels;
    const unsigned char *p = im->px + c;
    for (size_t i = 0; i < n; i++)
        out[i] = (float)p[i * nc] / 255.0f;
}

void kl_image_set_plane_float(struct kl_image *im, int c, const float *in)
{
    size_t n = kl_image_pixels(im), nc = (size_t)im->channels;
    unsigned char *p = im->px + c;
    for (size_t i = 0; i < n; i++)
        p[i * nc] = to_byte(in[i]);
}

void kl_image_to_float(const struct kl_image *im, float *out)
{
    size_t n = kl_image_pixels(im);
    for (int c = 0; c < im->channels; c++)
        kl_image_plane_float(im, c, out + (size_t)c * n);
}

void kl_image_from_float(struct kl_image *im, const float *in)
{
    size_t n = kl_image_pixels(im);
    for (int c = 0; c < im->channels; c++)
        kl_image_set_plane_float(im, c, in + (size_t)c * n);
}

void kl_image_to_rgba8(const struct kl_image *im, unsigned char *out)
{
    size_t n = kl_image_pixels(im);
    const unsigned char *p = im->px;
    for (size_t i = 0; i < n; i++, out += 4) {
        switch (im->channels) {
        case 1:
            out[0] = out[1] = out[2] = p[0];
            out[3] = 255;
            p += 1;
            break;
        case 3:
            memcpy(out, p, 3);
            out[3] = 255;
            p += 3;
            break;
        default:
            memcpy(out, p, 4);
            p += 4;
            break;
        }
    }
}

void kl_image_from_rgba8(struct kl_image *im, const unsigned char *in)
{
    size_t n = kl_image_pixels(im);
    unsigned char *p = im->px;
    for (size_t i = 0; i < n; i++, in += 4) {
        switch (im->channels) {
        case 1: *p++ = (unsigned char)((in[0] + in[1] + in[2] + 1) / 3); break;
        case 3:
            memcpy(p, in, 3);
            p += 3;
            break;
        default:
            memcpy(p, in, 4);
            p += 4;
            break;
        }
    }
}
