/*
 * Fuzzes the tuning cache reader kl_tuned_read (tune/cache.c) and the
 * "NAME=VALUE,..." splitter kl_tuned_items. The input after its first byte is
 * written to a file in a temporary directory and read back. The first byte's
 * low bit appends the right "checksum <hex>" line (random bytes never match the
 * checksum, so without it the fuzzer would not get past that check); its next
 * bit has the reader check the identity line against a fixed fake device's,
 * "opencl|Fuzz Platform|Fuzz Device|1.0", as kl_tuned_load does. Every entry
 * read is looked up again and its parameters split as a rung would split them;
 * the whole body goes through kl_tuned_items too. Seeds: corpus/fuzz_tuned/,
 * "3" followed by a cache without its checksum line.
 */
#define _POSIX_C_SOURCE 200809L
#include "fuzz.h"

#include "core/params.h"
#include "tune/cache.h"

#define IDENTITY "opencl|Fuzz Platform|Fuzz Device|1.0"

static char path[4200];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    snprintf(path, sizeof path, "%s/tuned.txt", fuzz_dir());
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct kl_tuned_file f;
    char warn[1024], buf[256], *text;
    const char *items[KL_MAX_PARAMS];
    if (size == 0)
        return 0;
    fuzz_write_cache(path, data + 1, size - 1, data[0] & 1);
    if (kl_tuned_read(path, data[0] & 2 ? IDENTITY : NULL, &f, warn, sizeof warn) == 1) {
        for (int i = 0; i < f.count; i++) {
            const struct kl_tuned *t = &f.entries[i];
            if (!kl_tuned_find(&f, t->workload, t->rung, t->type, t->size_class))
                abort(); /* every entry read can be found again */
            kl_tuned_items(t->params, buf, sizeof buf, items, KL_MAX_PARAMS);
        }
    }
    kl_tuned_free(&f);
    if ((text = malloc(size))) {
        memcpy(text, data + 1, size - 1);
        text[size - 1] = '\0';
        kl_tuned_items(text, buf, sizeof buf, items, KL_MAX_PARAMS);
        free(text);
    }
    return 0;
}
