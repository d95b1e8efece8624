/*
 * The image module: PNG round trips, PNG flavours written here with libpng
 * (16-bit, palette, grey+alpha, 1-bit, interlaced), PGM/PPM, every kind of
 * bad file (each must fail with a message naming the file, never crash),
 * the synthetic picture and the pixel conversions. All files are made in a
 * fresh temporary directory, removed at the end. Built without libpng
 * (no KLADDER_HAVE_PNG), every PNG must give KL_ERR_UNSUPPORTED instead.
 * Pass -v to print every error message.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef KLADDER_HAVE_PNG
#include <png.h>
#endif

#include "check.h"
#include "formats/image.h"
#include "core/util.h"

#define NO_PNG "kladder was built without libpng (install libpng-dev and rebuild)"

static int verbose, have_png;
static char tmpdir[256];
static char made[80][512];
static int nmade;
static struct kl_err err;

/* A path in the temporary directory, removed at the end. */
static const char *tmp_path(const char *name)
{
    if (nmade == (int)(sizeof made / sizeof *made)) {
        fprintf(stderr, "too many temporary files\n");
        exit(1);
    }
    snprintf(made[nmade], sizeof made[nmade], "%s/%s", tmpdir, name);
    return made[nmade++];
}

static void write_bytes(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite(data, 1, n, f) == n && fclose(f) == 0, "cannot write %s", path);
}

static unsigned char *read_bytes(const char *path, size_t *n)
{
    char *buf = NULL;
    CHECK(kl_read_file(path, &buf, n, &err) == KL_OK, "%s", err.msg);
    return (unsigned char *)buf;
}

static int same_image(const struct kl_image *a, const struct kl_image *b)
{
    return a->width == b->width && a->height == b->height && a->channels == b->channels && a->px &&
           b->px && memcmp(a->px, b->px, kl_image_bytes(a)) == 0;
}

static void fill_random(struct kl_image *im, uint64_t seed)
{
    struct kl_rng r;
    kl_rng_seed(&r, seed);
    for (size_t i = 0; i < kl_image_bytes(im); i++)
        im->px[i] = (unsigned char)(kl_rng_next(&r) >> 56);
}

/* Loading path must fail with status want and a message naming the file. */
static void expect_fail(const char *path, enum kl_status want, const char *needle, const char *what)
{
    struct kl_image im;
    enum kl_status st;
    memset(&im, 0x55, sizeof im); /* garbage: load must zero it */
    strcpy(err.msg, "(no message)");
    st = kl_image_load(path, &im, &err);
    if (verbose)
        printf("  %-22s -> %s\n", what, err.msg);
    CHECK(st == want, "%s: status \"%s\", want \"%s\": %s", what, kl_status_str(st),
          kl_status_str(want), err.msg);
    CHECK(strstr(err.msg, path) != NULL, "%s: the message does not name %s: %s", what, path,
          err.msg);
    if (needle)
        CHECK(kl_contains_nocase(err.msg, needle), "%s: the message lacks \"%s\": %s", what, needle,
              err.msg);
    CHECK(!im.px && !im.width && !im.height && !im.channels, "%s: *out not zeroed", what);
}

/* A real 3×2 8-bit RGB PNG made outside kladder (Python zlib), for the
 * no-libpng build and as an independent reference. */
static const unsigned char tiny_png[] = {
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48,
    0x44, 0x52, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x02, 0x08, 0x02, 0x00, 0x00,
    0x00, 0x12, 0x16, 0xf1, 0x4d, 0x00, 0x00, 0x00, 0x18, 0x49, 0x44, 0x41, 0x54, 0x78,
    0xda, 0x63, 0xf8, 0xcf, 0xc0, 0xc0, 0x00, 0xc1, 0x5c, 0x22, 0x72, 0x0d, 0x0d, 0x0d,
    0xbf, 0x4e, 0x4c, 0x03, 0x00, 0x3b, 0x47, 0x07, 0x12, 0x2a, 0x86, 0xac, 0x6d, 0x00,
    0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82};
static const unsigned char tiny_rgb[] = {255, 0,  0,  0,   255, 0,   0,   0,   255,
                                         10,  20, 30, 128, 128, 128, 250, 200, 150};

static uint32_t crc32_of(const unsigned char *p, size_t n)
{
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
    }
    return c ^ 0xffffffffu;
}

static void put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

/* The signature, an IHDR of w×h 8-bit RGB, an empty IDAT and IEND, all with
 * correct CRCs: libpng accepts the header, the size must be refused. */
static void write_png_header(const char *path, uint32_t w, uint32_t h)
{
    unsigned char b[8 + 25 + 12 + 12];
    memcpy(b, tiny_png, 8);
    put32(b + 8, 13);
    memcpy(b + 12, "IHDR", 4);
    put32(b + 16, w);
    put32(b + 20, h);
    memcpy(b + 24, "\x08\x02\x00\x00\x00", 5);
    put32(b + 29, crc32_of(b + 12, 17));
    put32(b + 33, 0);
    memcpy(b + 37, "IDAT", 4);
    put32(b + 41, crc32_of(b + 37, 4));
    put32(b + 45, 0);
    memcpy(b + 49, "IEND", 4);
    put32(b + 53, crc32_of(b + 49, 4));
    write_bytes(path, b, sizeof b);
}

static void test_png_round_trip(void)
{
    static const int chans[] = {1, 3, 4};
    for (int i = 0; i < 3; i++) {
        struct kl_image a, b;
        char name[64];
        const char *path;
        enum kl_status st;
        snprintf(name, sizeof name, "round_%d.png", chans[i]);
        path = tmp_path(name);
        CHECK(kl_image_alloc(7, 5, chans[i], &a, &err) == KL_OK, "%s", err.msg);
        fill_random(&a, 100 + (uint64_t)i); /* alpha 0 pixels included: kept as they are */
        st = kl_image_save_png(path, &a, &err);
        if (!have_png) {
            CHECK(st == KL_ERR_UNSUPPORTED && strstr(err.msg, NO_PNG) && strstr(err.msg, path),
                  "save without libpng: %s", err.msg);
            CHECK(access(path, F_OK) != 0, "no file may be left without libpng");
            kl_image_free(&a);
            continue;
        }
        CHECK(st == KL_OK, "save %d channels: %s", chans[i], err.msg);
        CHECK(kl_image_load(path, &b, &err) == KL_OK, "load %d channels: %s", chans[i], err.msg);
        CHECK(same_image(&a, &b), "PNG round trip of %d channels: %dx%dx%d back", chans[i], b.width,
              b.height, b.channels);
        kl_image_free(&a);
        kl_image_free(&b);
    }
    if (have_png) {
        /* A bigger, structured one too. */
        struct kl_image a, b;
        const char *path = tmp_path("synthetic.png");
        CHECK(kl_image_synthetic(300, 200, 4, 7, &a, &err) == KL_OK, "%s", err.msg);
        CHECK(kl_image_save_png(path, &a, &err) == KL_OK, "%s", err.msg);
        CHECK(kl_image_load(path, &b, &err) == KL_OK && same_image(&a, &b), "synthetic: %s",
              err.msg);
        kl_image_free(&a);
        kl_image_free(&b);
    }
}

static void test_tiny_png(void)
{
    const char *path = tmp_path("tiny.png");
    struct kl_image im;
    enum kl_status st;
    write_bytes(path, tiny_png, sizeof tiny_png);
    st = kl_image_load(path, &im, &err);
    if (!have_png) {
        CHECK(st == KL_ERR_UNSUPPORTED && strstr(err.msg, NO_PNG) && strstr(err.msg, path),
              "load without libpng: %s", err.msg);
        CHECK(!im.px, "no pixels without libpng");
        return;
    }
    CHECK(st == KL_OK && im.width == 3 && im.height == 2 && im.channels == 3 &&
              memcmp(im.px, tiny_rgb, sizeof tiny_rgb) == 0,
          "external PNG: %s", err.msg);
    kl_image_free(&im);
}

#ifdef KLADDER_HAVE_PNG
/* Writes rows (row-major, PNG sample layout: 16-bit big-endian, sub-byte
 * packed) with libpng's classic API. */
static int write_classic(const char *path, int w, int h, int depth, int color_type, int interlace,
                         const unsigned char *data, size_t row_bytes, const png_color *pal,
                         int npal)
{
    png_bytep rows[64];
    FILE *f = fopen(path, "wb");
    png_structp p;
    png_infop info;
    if (!f || h > 64)
        return 0;
    p = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    info = p ? png_create_info_struct(p) : NULL;
    if (!info || setjmp(png_jmpbuf(p))) {
        png_destroy_write_struct(&p, &info);
        fclose(f);
        return 0;
    }
    png_init_io(p, f);
    png_set_IHDR(p, info, (png_uint_32)w, (png_uint_32)h, depth, color_type,
                 interlace ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    if (pal)
        png_set_PLTE(p, info, pal, npal);
    png_write_info(p, info);
    for (int y = 0; y < h; y++)
        rows[y] = (png_bytep)(data + (size_t)y * row_bytes);
    png_write_image(p, rows);
    png_write_end(p, NULL);
    png_destroy_write_struct(&p, &info);
    return fclose(f) == 0;
}

static void test_png_flavours(void)
{
    struct kl_image im;
    /* 16-bit RGB without gamma information: v becomes about v/257. */
    {
        static const unsigned v16[] = {0,     257,   1000,  12345, 32768,    40000,
                                       65280, 65535, 514,   30000, 50000,    2570,
                                       60000, 7,     65000, 33000, 257 * 77, 9};
        unsigned char data[3 * 6 * 2];
        const char *path = tmp_path("rgb16.png");
        for (int i = 0; i < 18; i++) {
            data[2 * i] = (unsigned char)(v16[i] >> 8);
            data[2 * i + 1] = (unsigned char)v16[i];
        }
        CHECK(write_classic(path, 3, 2, 16, PNG_COLOR_TYPE_RGB, 0, data, 3 * 6, NULL, 0),
              "write %s", path);
        CHECK(kl_image_load(path, &im, &err) == KL_OK, "16-bit RGB: %s", err.msg);
        CHECK(im.width == 3 && im.height == 2 && im.channels == 3, "16-bit RGB: %dx%dx%d", im.width,
              im.height, im.channels);
        for (int i = 0; im.px && i < 18; i++)
            CHECK(fabs(im.px[i] - v16[i] / 257.0) <= 1.0, "16-bit %u became %u, want ~%.1f", v16[i],
                  im.px[i], v16[i] / 257.0);
        kl_image_free(&im);
    }
    /* 16-bit grey+alpha (opaque) becomes RGBA. */
    {
        static const unsigned g16[] = {0, 65535, 32768, 65535, 65535, 65535, 1285, 65535};
        unsigned char data[4 * 2 * 2];
        const char *path = tmp_path("ga16.png");
        for (int i = 0; i < 8; i++) {
            data[2 * i] = (unsigned char)(g16[i] >> 8);
            data[2 * i + 1] = (unsigned char)g16[i];
        }
        CHECK(write_classic(path, 2, 2, 16, PNG_COLOR_TYPE_GRAY_ALPHA, 0, data, 8, NULL, 0),
              "write %s", path);
        CHECK(kl_image_load(path, &im, &err) == KL_OK && im.channels == 4 && im.width == 2 &&
                  im.height == 2,
              "16-bit grey+alpha: %s (%d channels)", err.msg, im.channels);
        for (int i = 0; im.px && i < 4; i++) {
            double want = g16[2 * i] / 257.0;
            CHECK(fabs(im.px[4 * i] - want) <= 1.0 && im.px[4 * i] == im.px[4 * i + 1] &&
                      im.px[4 * i] == im.px[4 * i + 2] && im.px[4 * i + 3] == 255,
                  "grey16 %u became (%u %u %u %u)", g16[2 * i], im.px[4 * i], im.px[4 * i + 1],
                  im.px[4 * i + 2], im.px[4 * i + 3]);
        }
        kl_image_free(&im);
    }
    /* 16-bit grey written by the simplified API as linear light (it adds
     * gAMA 1.0): libpng encodes it to sRGB, so 0.5 linear is about 188. */
    {
        png_image pi;
        uint16_t lin[4] = {0, 65535, 32768, 13107};
        const char *path = tmp_path("linear16.png");
        memset(&pi, 0, sizeof pi);
        pi.version = PNG_IMAGE_VERSION;
        pi.width = 4;
        pi.height = 1;
        pi.format = PNG_FORMAT_LINEAR_Y;
        CHECK(png_image_write_to_file(&pi, path, 0, lin, 0, NULL), "write %s: %s", path,
              pi.message);
        CHECK(kl_image_load(path, &im, &err) == KL_OK && im.channels == 1 && im.width == 4,
              "linear 16-bit: %s", err.msg);
        if (im.px)
            CHECK(im.px[0] == 0 && im.px[1] == 255 && abs(im.px[2] - 188) <= 2 &&
                      abs(im.px[3] - 124) <= 2,
                  "linear 16-bit became %u %u %u %u, want 0 255 ~188 ~124", im.px[0], im.px[1],
                  im.px[2], im.px[3]);
        kl_image_free(&im);
    }
    /* Palette, RGB entries (simplified API, colour-mapped). */
    {
        png_image pi;
        static const unsigned char cmap[4 * 3] = {0, 0, 0, 255, 0, 0, 12, 200, 99, 255, 255, 255};
        unsigned char idx[5 * 3];
        const char *path = tmp_path("palette.png");
        for (int i = 0; i < 15; i++)
            idx[i] = (unsigned char)((i * 7) % 4);
        memset(&pi, 0, sizeof pi);
        pi.version = PNG_IMAGE_VERSION;
        pi.width = 5;
        pi.height = 3;
        pi.format = PNG_FORMAT_RGB_COLORMAP;
        pi.colormap_entries = 4;
        CHECK(png_image_write_to_file(&pi, path, 0, idx, 0, cmap), "write %s: %s", path,
              pi.message);
        CHECK(kl_image_load(path, &im, &err) == KL_OK && im.channels == 3 && im.width == 5 &&
                  im.height == 3,
              "palette: %s (%d channels)", err.msg, im.channels);
        for (int i = 0; im.px && i < 15; i++)
            CHECK(memcmp(im.px + 3 * i, cmap + 3 * idx[i], 3) == 0,
                  "palette pixel %d is (%u %u %u), want entry %u", i, im.px[3 * i],
                  im.px[3 * i + 1], im.px[3 * i + 2], idx[i]);
        kl_image_free(&im);
    }
    /* Palette with transparency (tRNS) becomes RGBA. */
    {
        png_image pi;
        static const unsigned char cmap[3 * 4] = {0, 0, 0, 255, 255, 0, 0, 128, 0, 0, 255, 0};
        static const unsigned char idx[6] = {0, 1, 2, 2, 1, 0};
        const char *path = tmp_path("palette_alpha.png");
        memset(&pi, 0, sizeof pi);
        pi.version = PNG_IMAGE_VERSION;
        pi.width = 3;
        pi.height = 2;
        pi.format = PNG_FORMAT_RGBA_COLORMAP;
        pi.colormap_entries = 3;
        CHECK(png_image_write_to_file(&pi, path, 0, idx, 0, cmap), "write %s: %s", path,
              pi.message);
        CHECK(kl_image_load(path, &im, &err) == KL_OK && im.channels == 4 && im.width == 3,
              "palette with alpha: %s (%d channels)", err.msg, im.channels);
        for (int i = 0; im.px && i < 6; i++)
            CHECK(
                im.px[4 * i + 3] == cmap[4 * idx[i] + 3] &&
                    (cmap[4 * idx[i] + 3] == 0 || memcmp(im.px + 4 * i, cmap + 4 * idx[i], 3) == 0),
                "palette+alpha pixel %d is (%u %u %u %u)", i, im.px[4 * i], im.px[4 * i + 1],
                im.px[4 * i + 2], im.px[4 * i + 3]);
        kl_image_free(&im);
    }
    /* 8-bit grey+alpha (simplified API) becomes RGBA with R = G = B. */
    {
        png_image pi;
        static const unsigned char ga[8] = {0, 255, 90, 255, 200, 255, 255, 255};
        const char *path = tmp_path("ga8.png");
        memset(&pi, 0, sizeof pi);
        pi.version = PNG_IMAGE_VERSION;
        pi.width = 2;
        pi.height = 2;
        pi.format = PNG_FORMAT_GA;
        CHECK(png_image_write_to_file(&pi, path, 0, ga, 0, NULL), "write %s: %s", path, pi.message);
        CHECK(kl_image_load(path, &im, &err) == KL_OK && im.channels == 4, "grey+alpha: %s",
              err.msg);
        for (int i = 0; im.px && i < 4; i++)
            CHECK(im.px[4 * i] == ga[2 * i] && im.px[4 * i + 1] == ga[2 * i] &&
                      im.px[4 * i + 2] == ga[2 * i] && im.px[4 * i + 3] == ga[2 * i + 1],
                  "grey+alpha pixel %d", i);
        kl_image_free(&im);
    }
    /* 1-bit grey: 0 and 1 become 0 and 255. */
    {
        static const unsigned char bits[2] = {0xa5, 0x3c}; /* 8×2 */
        const char *path = tmp_path("grey1.png");
        CHECK(write_classic(path, 8, 2, 1, PNG_COLOR_TYPE_GRAY, 0, bits, 1, NULL, 0), "write %s",
              path);
        CHECK(kl_image_load(path, &im, &err) == KL_OK && im.channels == 1 && im.width == 8 &&
                  im.height == 2,
              "1-bit grey: %s", err.msg);
        for (int i = 0; im.px && i < 16; i++)
            CHECK(im.px[i] == (((bits[i / 8] >> (7 - i % 8)) & 1) ? 255 : 0), "1-bit pixel %d = %u",
                  i, im.px[i]);
        kl_image_free(&im);
    }
    /* 4-bit palette, interlaced (Adam7). */
    {
        static const png_color pal[3] = {{1, 2, 3}, {40, 50, 60}, {250, 128, 7}};
        unsigned char data[7 * 5]; /* 9 pixels a row: 5 bytes */
        unsigned char want[9 * 7];
        const char *path = tmp_path("pal4_interlaced.png");
        memset(data, 0, sizeof data);
        for (int y = 0; y < 7; y++)
            for (int x = 0; x < 9; x++) {
                int v = (x + 2 * y) % 3;
                want[y * 9 + x] = (unsigned char)v;
                data[y * 5 + x / 2] |= (unsigned char)(v << (x % 2 ? 0 : 4));
            }
        CHECK(write_classic(path, 9, 7, 4, PNG_COLOR_TYPE_PALETTE, 1, data, 5, pal, 3), "write %s",
              path);
        CHECK(kl_image_load(path, &im, &err) == KL_OK && im.channels == 3 && im.width == 9 &&
                  im.height == 7,
              "4-bit interlaced palette: %s", err.msg);
        for (int i = 0; im.px && i < 63; i++)
            CHECK(im.px[3 * i] == pal[want[i]].red && im.px[3 * i + 1] == pal[want[i]].green &&
                      im.px[3 * i + 2] == pal[want[i]].blue,
                  "interlaced pixel %d", i);
        kl_image_free(&im);
    }
}
#endif

static void test_pnm(void)
{
    struct kl_image im, back;
    /* P5 with a comment and odd whitespace. */
    {
        static const unsigned char px[6] = {0, 1, 127, 128, 254, 255};
        const char *path = tmp_path("grey.pgm");
        FILE *f = fopen(path, "wb");
        CHECK(f != NULL, "cannot write %s", path);
        if (f) {
            fprintf(f, "P5\n# made by test_image\n3  2\t\n255\n");
            fwrite(px, 1, sizeof px, f);
            fclose(f);
        }
        CHECK(kl_image_load(path, &im, &err) == KL_OK && im.width == 3 && im.height == 2 &&
                  im.channels == 1 && memcmp(im.px, px, 6) == 0,
              "PGM: %s", err.msg);
        kl_image_free(&im);
    }
    /* P6, named .png: the magic bytes decide. */
    {
        unsigned char px[4 * 3 * 3];
        const char *path = tmp_path("colour_really_ppm.png");
        FILE *f = fopen(path, "wb");
        for (size_t i = 0; i < sizeof px; i++)
            px[i] = (unsigned char)(i * 37 + 5);
        CHECK(f != NULL, "cannot write %s", path);
        if (f) {
            fprintf(f, "P6 4 3 255 ");
            fwrite(px, 1, sizeof px, f);
            fputs("trailing bytes are ignored", f);
            fclose(f);
        }
        CHECK(kl_image_load(path, &im, &err) == KL_OK && im.width == 4 && im.height == 3 &&
                  im.channels == 3 && memcmp(im.px, px, sizeof px) == 0,
              "PPM: %s", err.msg);
        kl_image_free(&im);
    }
    /* maxval 15 scales to 0..255. */
    {
        static const unsigned char px[4] = {0, 1, 8, 15};
        static const unsigned char want[4] = {0, 17, 136, 255};
        const char *path = tmp_path("maxval15.pgm");
        FILE *f = fopen(path, "wb");
        if (f) {
            fprintf(f, "P5 2 2 15\n");
            fwrite(px, 1, 4, f);
            fclose(f);
        }
        CHECK(kl_image_load(path, &im, &err) == KL_OK && memcmp(im.px, want, 4) == 0,
              "maxval 15: %s", err.msg);
        kl_image_free(&im);
    }
    /* kl_image_save_pnm round trips; RGBA is refused. */
    for (int c = 1; c <= 4; c += 2) {
        const char *path = tmp_path(c == 1 ? "save.pgm" : "save.ppm");
        CHECK(kl_image_synthetic(33, 17, c, 3, &im, &err) == KL_OK, "%s", err.msg);
        CHECK(kl_image_save_pnm(path, &im, &err) == KL_OK, "save PNM: %s", err.msg);
        CHECK(kl_image_load(path, &back, &err) == KL_OK && same_image(&im, &back),
              "PNM round trip of %d channels: %s", c, err.msg);
        kl_image_free(&im);
        kl_image_free(&back);
    }
    CHECK(kl_image_synthetic(4, 4, 4, 3, &im, &err) == KL_OK, "%s", err.msg);
    CHECK(kl_image_save_pnm(tmp_path("rgba.ppm"), &im, &err) == KL_ERR_ARG &&
              strstr(err.msg, "alpha"),
          "RGBA as PNM: %s", err.msg);
    kl_image_free(&im);
}

static void test_bad_files(void)
{
    enum kl_status png_st = have_png ? KL_ERR_IO : KL_ERR_UNSUPPORTED;
    const char *path;
    unsigned char *good = NULL;
    size_t good_len = 0;

    if (verbose)
        printf("error messages:\n");
    /* A real PNG cut in half, and one with a corrupted IDAT. */
    if (have_png) {
        struct kl_image im;
        path = tmp_path("whole.png");
        CHECK(kl_image_synthetic(64, 48, 3, 1, &im, &err) == KL_OK, "%s", err.msg);
        CHECK(kl_image_save_png(path, &im, &err) == KL_OK, "%s", err.msg);
        kl_image_free(&im);
        good = read_bytes(path, &good_len);
    } else {
        good_len = sizeof tiny_png;
        good = malloc(good_len);
        if (good)
            memcpy(good, tiny_png, good_len);
    }
    if (good) {
        path = tmp_path("half.png");
        write_bytes(path, good, good_len / 2);
        expect_fail(path, png_st, have_png ? "truncated" : NULL, "truncated PNG");
        good[good_len / 2] ^= 0x5a;
        good[good_len / 2 + 1] ^= 0xa5;
        path = tmp_path("corrupt.png");
        write_bytes(path, good, good_len);
        expect_fail(path, png_st, NULL, "corrupt PNG");
        free(good);
    }
    path = tmp_path("sig_only.png");
    write_bytes(path, tiny_png, 8);
    expect_fail(path, png_st, NULL, "PNG signature only");
    path = tmp_path("five_bytes.png");
    write_bytes(path, tiny_png, 5);
    expect_fail(path, KL_ERR_IO, "truncated", "5 bytes of a PNG");
    path = tmp_path("wide.png");
    write_png_header(path, 70000, 1);
    expect_fail(path, png_st, have_png ? "out of range" : NULL, "PNG 70000 wide");
    path = tmp_path("four_gpixels.png");
    write_png_header(path, 65536, 65536);
    expect_fail(path, png_st, have_png ? "out of range" : NULL, "PNG 65536x65536");
    /* In range, but 3 GB of pixels cannot come from 57 bytes: refused before allocating. */
    path = tmp_path("one_gpixel.png");
    write_png_header(path, 65536, 16384);
    expect_fail(path, png_st, have_png ? "do not fit in 57 bytes" : NULL, "PNG 65536x16384");
    path = tmp_path("zero.png");
    write_png_header(path, 0, 5);
    expect_fail(path, png_st, NULL, "PNG 0 wide");

    {
        unsigned char junk[1000];
        struct kl_rng r;
        kl_rng_seed(&r, 42);
        for (size_t i = 0; i < sizeof junk; i++)
            junk[i] = (unsigned char)(kl_rng_next(&r) >> 56);
        junk[0] = 0x13; /* not a magic byte */
        path = tmp_path("random.png");
        write_bytes(path, junk, sizeof junk);
        expect_fail(path, KL_ERR_IO, "not a PNG", "random bytes");
    }
    path = tmp_path("empty.pgm");
    write_bytes(path, "", 0);
    expect_fail(path, KL_ERR_IO, "empty", "empty file");
    path = tmp_path("missing.png");
    expect_fail(path, KL_ERR_IO, "No such file", "missing file");
    path = tmp_path("a_directory.png");
    CHECK(mkdir(path, 0700) == 0, "mkdir %s", path);
    expect_fail(path, KL_ERR_IO, "directory", "directory");

    static const struct {
        const char *name, *text, *needle, *what;
        size_t extra; /* sample bytes appended */
    } pnm[] = {
        {"maxval65535.pgm", "P5 2 2 65535\n", "16-bit", "PGM maxval 65535", 8},
        {"maxval256.ppm", "P6 1 1 256\n", "16-bit", "PPM maxval 256", 6},
        {"maxval0.pgm", "P5 2 2 0\n", "maxval", "PGM maxval 0", 4},
        {"maxval_huge.pgm", "P5 2 2 70000\n", "maxval", "PGM maxval 70000", 4},
        {"no_width.pgm", "P5\nabc 3\n255\n", "width", "PGM letters", 9},
        {"glued.pgm", "P5 12x 3 255\n", "height", "PGM 12x", 36},
        {"no_space.pgm", "P5 1 1 255", "whitespace", "PGM no separator", 0},
        {"no_sep_magic.pgm", "P51 1 255\n", "width", "PGM P51", 1},
        {"only_magic.ppm", "P6", "width", "PPM magic only", 0},
        {"absurd.pgm", "P5 100000 100000 255\n", "out of range", "PGM 100000²", 16},
        {"too_many.ppm", "P6 65536 32768 255\n", "out of range", "PPM 2^31 pixels", 16},
        {"zero.pgm", "P5 0 5 255\n", "out of range", "PGM width 0", 4},
        {"digits.pgm", "P5 99999999999 1 255\n", "digits", "PGM 11 digits", 4},
        {"short.ppm", "P6 4 4 255\n", "truncated", "PPM short data", 47},
        {"over_maxval.pgm", "P5 2 1 15\n", "exceeds", "PGM sample > maxval", 2},
        {"ascii.pgm", "P2 2 1 255\n1 2\n", "not supported", "ASCII PGM", 0},
        {"pam.pam", "P7\nWIDTH 1\n", "not supported", "PAM", 0},
    };
    for (size_t i = 0; i < sizeof pnm / sizeof *pnm; i++) {
        unsigned char samples[64];
        FILE *f;
        path = tmp_path(pnm[i].name);
        memset(samples, 200, sizeof samples); /* 200 > maxval 15 */
        f = fopen(path, "wb");
        CHECK(f != NULL, "cannot write %s", path);
        if (!f)
            continue;
        fputs(pnm[i].text, f);
        fwrite(samples, 1, pnm[i].extra, f);
        fclose(f);
        expect_fail(path, KL_ERR_IO, pnm[i].needle, pnm[i].what);
    }
}

static void test_save_errors(void)
{
    struct kl_image im, bad;
    const char *path = "/nonexistent-kladder-dir/out.png";
    enum kl_status st;
    CHECK(kl_image_synthetic(16, 16, 3, 1, &im, &err) == KL_OK, "%s", err.msg);
    st = kl_image_save_png(path, &im, &err);
    if (verbose)
        printf("  %-22s -> %s\n", "unwritable PNG", err.msg);
    CHECK(st == (have_png ? KL_ERR_IO : KL_ERR_UNSUPPORTED) && strstr(err.msg, path),
          "unwritable: %s", err.msg);
    if (have_png && access("/dev/full", W_OK) == 0) {
        st = kl_image_save_png("/dev/full", &im, &err);
        if (verbose)
            printf("  %-22s -> %s\n", "PNG to /dev/full", err.msg);
        CHECK(st == KL_ERR_IO && strstr(err.msg, "/dev/full"), "/dev/full: %s", err.msg);
    }
    if (access("/dev/full", W_OK) == 0) {
        st = kl_image_save_pnm("/dev/full", &im, &err);
        if (verbose)
            printf("  %-22s -> %s\n", "PPM to /dev/full", err.msg);
        CHECK(st == KL_ERR_IO && strstr(err.msg, "/dev/full"), "/dev/full PNM: %s", err.msg);
    }
    bad = im;
    bad.channels = 2;
    CHECK(kl_image_save_png(tmp_path("bad.png"), &bad, &err) == KL_ERR_ARG, "2 channels: %s",
          err.msg);
    bad = im;
    bad.px = NULL;
    CHECK(kl_image_save_png(tmp_path("bad.png"), &bad, &err) == KL_ERR_ARG, "no pixels: %s",
          err.msg);
    kl_image_free(&im);
}

static void test_synthetic(void)
{
    static const int chans[] = {1, 3, 4};
    for (int k = 0; k < 3; k++) {
        int nc = chans[k];
        struct kl_image a, b, c;
        CHECK(kl_image_synthetic(64, 48, nc, 1234, &a, &err) == KL_OK, "%s", err.msg);
        CHECK(kl_image_synthetic(64, 48, nc, 1234, &b, &err) == KL_OK, "%s", err.msg);
        CHECK(kl_image_synthetic(64, 48, nc, 1235, &c, &err) == KL_OK, "%s", err.msg);
        CHECK(a.width == 64 && a.height == 48 && a.channels == nc, "synthetic shape");
        CHECK(same_image(&a, &b), "same seed, same picture (%d channels)", nc);
        CHECK(!same_image(&a, &c), "another seed, another picture (%d channels)", nc);
        for (int ch = 0; ch < nc && a.px; ch++) {
            int lo = 255, hi = 0, distinct = 0;
            int seen[256] = {0};
            for (size_t i = 0; i < kl_image_pixels(&a); i++) {
                int v = a.px[i * (size_t)nc + (size_t)ch];
                lo = v < lo ? v : lo;
                hi = v > hi ? v : hi;
                distinct += !seen[v]++;
            }
            CHECK(lo < hi && distinct > 16, "channel %d of %d: %d distinct values in %d..%d", ch,
                  nc, distinct, lo, hi);
            if (ch < 3)
                CHECK(lo < 32 && hi > 223, "channel %d of %d: range %d..%d lacks dark or bright",
                      ch, nc, lo, hi);
        }
        kl_image_free(&a);
        kl_image_free(&b);
        kl_image_free(&c);
    }
    /* Tiny and odd sizes work; bad arguments are refused and leave *out zeroed. */
    {
        struct kl_image im;
        CHECK(kl_image_synthetic(1, 1, 1, 0, &im, &err) == KL_OK && im.px, "1x1: %s", err.msg);
        kl_image_free(&im);
        CHECK(kl_image_synthetic(3, 1000, 4, 0, &im, &err) == KL_OK && im.px, "3x1000: %s",
              err.msg);
        kl_image_free(&im);
        static const int bad[][3] = {{0, 5, 1}, {5, 0, 1},     {-1, 5, 1},    {5, 5, 2},
                                     {5, 5, 0}, {70000, 1, 1}, {1, 65537, 4}, {65536, 65536, 1}};
        for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
            memset(&im, 0x55, sizeof im);
            CHECK(kl_image_synthetic(bad[i][0], bad[i][1], bad[i][2], 0, &im, &err) == KL_ERR_ARG &&
                      !im.px,
                  "synthetic %dx%dx%d: %s", bad[i][0], bad[i][1], bad[i][2], err.msg);
        }
    }
}

static void test_conversions(void)
{
    struct kl_image im, copy;
    float *planes;
    unsigned char *rgba;

    /* Every byte value: v -> v/255 -> v. */
    CHECK(kl_image_alloc(256, 1, 1, &im, &err) == KL_OK, "%s", err.msg);
    for (int v = 0; v < 256; v++)
        im.px[v] = (unsigned char)v;
    planes = malloc(256 * sizeof *planes);
    kl_image_plane_float(&im, 0, planes);
    for (int v = 0; v < 256; v++)
        CHECK(planes[v] == (float)v / 255.0f && planes[v] >= 0.0f && planes[v] <= 1.0f,
              "byte %d became %g", v, planes[v]);
    memset(im.px, 0, 256);
    kl_image_set_plane_float(&im, 0, planes);
    for (int v = 0; v < 256; v++)
        CHECK(im.px[v] == v, "byte %d came back as %u", v, im.px[v]);
    /* Saturation and rounding. */
    {
        float in[8] = {-1.0f, 2.0f, NAN, 0.5f, 1.0f, 0.998f, -0.0f, INFINITY};
        unsigned char want[8] = {0, 255, 0, 128, 255, 254, 0, 255};
        struct kl_image two;
        CHECK(kl_image_alloc(4, 2, 3, &two, &err) == KL_OK, "%s", err.msg);
        kl_image_set_plane_float(&two, 1, in); /* the middle channel only */
        for (int i = 0; i < 8; i++)
            CHECK(two.px[3 * i + 1] == want[i] && two.px[3 * i] == 0 && two.px[3 * i + 2] == 0,
                  "float %g became %u, want %u", in[i], two.px[3 * i + 1], want[i]);
        kl_image_free(&two);
    }
    free(planes);
    kl_image_free(&im);

    /* Every channel count: planes and RGBA8 round-trip exactly. */
    for (int nc = 1; nc <= 4; nc++) {
        if (nc == 2)
            continue;
        size_t n = 13 * 7;
        CHECK(kl_image_alloc(13, 7, nc, &im, &err) == KL_OK, "%s", err.msg);
        CHECK(kl_image_alloc(13, 7, nc, &copy, &err) == KL_OK, "%s", err.msg);
        fill_random(&im, 9 + (uint64_t)nc);
        planes = malloc(n * (size_t)nc * sizeof *planes);
        rgba = malloc(n * 4);
        if (!planes || !rgba)
            return;
        kl_image_to_float(&im, planes);
        for (size_t i = 0; i < n; i++)
            for (int c = 0; c < nc; c++)
                CHECK(planes[(size_t)c * n + i] == im.px[i * (size_t)nc + (size_t)c] / 255.0f,
                      "plane %d pixel %zu", c, i);
        kl_image_from_float(&copy, planes);
        CHECK(same_image(&im, &copy), "float planes round trip of %d channels", nc);

        memset(copy.px, 0, kl_image_bytes(&copy));
        kl_image_to_rgba8(&im, rgba);
        for (size_t i = 0; i < n; i++) {
            const unsigned char *p = im.px + i * (size_t)nc, *q = rgba + 4 * i;
            int ok = nc == 1   ? q[0] == p[0] && q[1] == p[0] && q[2] == p[0] && q[3] == 255
                     : nc == 3 ? memcmp(q, p, 3) == 0 && q[3] == 255
                               : memcmp(q, p, 4) == 0;
            CHECK(ok, "RGBA8 pixel %zu of %d channels: %u %u %u %u", i, nc, q[0], q[1], q[2], q[3]);
        }
        kl_image_from_rgba8(&copy, rgba);
        CHECK(same_image(&im, &copy), "RGBA8 round trip of %d channels", nc);
        free(planes);
        free(rgba);
        kl_image_free(&im);
        kl_image_free(&copy);
    }
    /* Grey from real colour: the rounded mean. */
    {
        unsigned char px[4] = {10, 20, 31, 77};
        CHECK(kl_image_alloc(1, 1, 1, &im, &err) == KL_OK, "%s", err.msg);
        kl_image_from_rgba8(&im, px);
        CHECK(im.px[0] == 20, "grey of (10, 20, 31) is %u", im.px[0]);
        kl_image_free(&im);
        kl_image_free(&im); /* twice is fine */
        kl_image_free(NULL);
    }
}

static void cleanup(void)
{
    for (int i = nmade - 1; i >= 0; i--) {
        struct stat sb;
        if (lstat(made[i], &sb) != 0)
            continue;
        if (S_ISDIR(sb.st_mode))
            rmdir(made[i]);
        else
            unlink(made[i]);
    }
    CHECK(rmdir(tmpdir) == 0, "temporary directory %s not empty", tmpdir);
}

int main(int argc, char **argv)
{
    const char *base = getenv("TMPDIR");
    verbose = argc > 1 && strcmp(argv[1], "-v") == 0;
    have_png = kl_image_have_png();
    snprintf(tmpdir, sizeof tmpdir, "%s/kl_image_XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    printf("libpng: %s\n", have_png ? "yes" : "no (PNG must be refused)");
#ifdef KLADDER_HAVE_PNG
    CHECK(have_png, "built with KLADDER_HAVE_PNG but the library says no libpng");
#endif
    test_png_round_trip();
    test_tiny_png();
#ifdef KLADDER_HAVE_PNG
    test_png_flavours();
#endif
    test_pnm();
    test_bad_files();
    test_save_errors();
    test_synthetic();
    test_conversions();
    cleanup();
    return check_summary();
}
