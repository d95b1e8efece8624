/*
 * Fuzzes the image readers behind kl_image_load (formats/image.c): PNG through
 * libpng, binary PGM/PPM, and the refusal of everything else. The loader takes a
 * path, so each input is written to a file in a temporary directory first. A PNG
 * guards every chunk with a CRC that almost any mutation breaks, so the CRCs of
 * an input that starts with the PNG signature are recomputed before it is
 * written: the fuzzer then reaches the header checks and the decoding behind
 * them. A loaded image is converted to RGBA8 and back, as the blur workload
 * does. Seeds: corpus/fuzz_image/, small PNG, PGM and PPM files.
 */
#define _POSIX_C_SOURCE 200809L
#include "fuzz.h"

#include "formats/image.h"

#ifdef KLADDER_HAVE_PNG
#include <zlib.h>

static const unsigned char signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Each whole chunk (length, type, data, CRC) after the signature gets its right CRC. */
static void fix_crcs(unsigned char *p, size_t n)
{
    if (n < 8 || memcmp(p, signature, 8) != 0)
        return;
    for (size_t at = 8; n - at >= 12 && be32(p + at) <= n - at - 12;) {
        size_t len = be32(p + at);
        unsigned long crc = crc32(0, p + at + 4, (uInt)(len + 4));
        unsigned char *c = p + at + 8 + len;
        c[0] = (unsigned char)(crc >> 24), c[1] = (unsigned char)(crc >> 16);
        c[2] = (unsigned char)(crc >> 8), c[3] = (unsigned char)crc;
        at += 12 + len;
    }
}
#endif

static char path[4200];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    snprintf(path, sizeof path, "%s/input", fuzz_dir());
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct kl_image im;
    struct kl_err e;
    unsigned char *copy = malloc(size ? size : 1);
    if (!copy)
        return 0;
    memcpy(copy, data, size);
#ifdef KLADDER_HAVE_PNG
    fix_crcs(copy, size);
#endif
    fuzz_write(path, copy, size, "", 0);
    free(copy);
    if (kl_image_load(path, &im, &e) != KL_OK)
        return 0;
    size_t n = kl_image_pixels(&im);
    unsigned char *rgba = n <= (1u << 16) ? malloc(4 * n) : NULL;
    if (rgba) {
        kl_image_to_rgba8(&im, rgba);
        kl_image_from_rgba8(&im, rgba);
        free(rgba);
    }
    kl_image_free(&im);
    return 0;
}
