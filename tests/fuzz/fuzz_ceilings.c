/*
 * Fuzzes the ceiling cache reader kl_ceilings_load (core/ceilings.c). It finds
 * the file through $KLADDER_CACHE_DIR and the device's identity, so the cache
 * directory is a temporary one and the device a fixed fake one (identity
 * "opencl|Fuzz Platform|Fuzz Device|1.0"); the input after its first byte is
 * written where the reader looks. The file ends in a checksum of the text before
 * it that random bytes never match: when the first byte's low bit is set, the
 * right "checksum <hex>" line is appended, so the fuzzer explores the lines
 * behind the check; clear, the bytes are fed as they are. Seeds:
 * corpus/fuzz_ceilings/, "1" followed by a cache without its checksum line.
 */
#define _POSIX_C_SOURCE 200809L
#include "fuzz.h"

static struct kl_device_info dev;
static char path[4096];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    setenv("KLADDER_CACHE_DIR", fuzz_dir(), 1);
    snprintf(dev.platform, sizeof dev.platform, "Fuzz Platform");
    snprintf(dev.name, sizeof dev.name, "Fuzz Device");
    snprintf(dev.driver_version, sizeof dev.driver_version, "1.0");
    kl_ceilings_path(&dev, "opencl", path, sizeof path);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct kl_ceilings c;
    char warn[1024];
    if (size == 0)
        return 0;
    fuzz_write_cache(path, data + 1, size - 1, data[0] & 1);
    kl_ceilings_load(&dev, "opencl", &c, warn, sizeof warn);
    return 0;
}
