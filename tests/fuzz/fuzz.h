/*
 * What the fuzz targets share: a private directory under $TMPDIR (or /tmp) for the
 * parsers that read files, removed with the file written there at exit, and the
 * checksum line the per-device caches end in (core/ceilings.h). Include after the
 * feature macro: these use mkdtemp (POSIX 2008).
 */
#ifndef KL_FUZZ_H
#define KL_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/ceilings.h"

static char fuzz_dir_path[4096], fuzz_file_path[4096];

static inline void fuzz_cleanup(void)
{
    if (fuzz_file_path[0])
        remove(fuzz_file_path);
    if (fuzz_dir_path[0])
        rmdir(fuzz_dir_path);
}

/* The directory, made on the first call; exits when it cannot be. */
static inline const char *fuzz_dir(void)
{
    if (!fuzz_dir_path[0]) {
        const char *tmp = getenv("TMPDIR");
        snprintf(fuzz_dir_path, sizeof fuzz_dir_path, "%s/kladder-fuzz-XXXXXX",
                 tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(fuzz_dir_path)) {
            perror("fuzz: mkdtemp");
            exit(1);
        }
        atexit(fuzz_cleanup);
    }
    return fuzz_dir_path;
}

/*
 * Writes a then b (either may be empty) to path, which must lie in the directory
 * (the same path on every call: it is the one removed at exit); exits on failure,
 * which is the harness's, not the parser's.
 */
static inline void fuzz_write(const char *path, const void *a, size_t na, const void *b, size_t nb)
{
    FILE *f;
    /* A new file each time: ext4 flushes a file truncated and rewritten when it is closed. */
    remove(path);
    f = fopen(path, "wb");
    snprintf(fuzz_file_path, sizeof fuzz_file_path, "%s", path);
    if (!f || fwrite(a, 1, na, f) != na || fwrite(b, 1, nb, f) != nb || fclose(f) != 0) {
        perror(path);
        exit(1);
    }
}

/*
 * A cache file at path: the body as given, or, with checksum set, the body (ended
 * by a newline) and then the "checksum <hex>" line the readers check, so that the
 * fuzzer gets past the checksum into the parser behind it.
 */
static inline void fuzz_write_cache(const char *path, const uint8_t *body, size_t n, int checksum)
{
    char *text, tail[40];
    size_t len = n;
    if (!checksum) {
        fuzz_write(path, body, n, "", 0);
        return;
    }
    if (!(text = malloc(n + 1)))
        exit(1);
    memcpy(text, body, n);
    if (!n || text[n - 1] != '\n')
        text[len++] = '\n';
    int k = snprintf(tail, sizeof tail, "checksum %016llx\n",
                     (unsigned long long)kl_cache_hash(text, len));
    fuzz_write(path, text, len, tail, (size_t)k);
    free(text);
}

#endif /* KL_FUZZ_H */
