/*
 * NVRTC loaded with dlopen (see nvrtc.h). Only the types come from the
 * toolkit's <nvrtc.h>; the library itself is found at run time, so kladder
 * builds and runs where it is missing.
 */
#include "backend/nvrtc.h"

#include <dlfcn.h>
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

/* The NVRTC entry points used, with their C types. */
typedef nvrtcResult (*create_fn)(nvrtcProgram *, const char *, const char *, int,
                                 const char *const *, const char *const *);
typedef nvrtcResult (*compile_fn)(nvrtcProgram, int, const char *const *);
typedef nvrtcResult (*size_fn)(nvrtcProgram, size_t *);
typedef nvrtcResult (*get_fn)(nvrtcProgram, char *);
typedef nvrtcResult (*destroy_fn)(nvrtcProgram *);
typedef const char *(*error_string_fn)(nvrtcResult);
typedef nvrtcResult (*version_fn)(int *, int *);
typedef nvrtcResult (*num_archs_fn)(int *);
typedef nvrtcResult (*archs_fn)(int *);

static struct {
    int loaded; /* 0 not tried, 1 loaded, -1 failed (why says so) */
    char why[512];
    int major, minor;
    create_fn create;
    compile_fn compile;
    size_fn log_size, cubin_size;
    get_fn log, cubin;
    destroy_fn destroy;
    error_string_fn error_string;
    num_archs_fn num_archs; /* optional, like archs */
    archs_fn archs;
} nv;

/* POSIX allows converting dlsym's object pointer to a function pointer. */
#define LOAD(lib, field, name)                                                                     \
    do {                                                                                           \
        void *f_ = dlsym(lib, name);                                                               \
        if (!f_) {                                                                                 \
            snprintf(nv.why, sizeof nv.why, "%s is missing from NVRTC (%s)", name, path);          \
            return 0;                                                                              \
        }                                                                                          \
        *(void **)&nv.field = f_;                                                                  \
    } while (0)

static int load(void)
{
    static const char *const names[] = {
        "libnvrtc.so.13",
        "libnvrtc.so.12",
        "libnvrtc.so",
#ifdef KLADDER_CUDA_LIBDIR
        KLADDER_CUDA_LIBDIR "/libnvrtc.so",
#endif
    };
    const int count = (int)(sizeof names / sizeof *names);
    const char *path = NULL;
    void *lib = kl_dlopen_first(names, (size_t)count, 0, &path);
    if (!lib) {
        /* The last error, unless it only says that the file does not exist. */
        const char *err = dlerror();
        int useful = err && !strstr(err, "No such file");
        snprintf(
            nv.why, sizeof nv.why,
            "NVRTC, CUDA's run-time compiler, could not be loaded (tried libnvrtc.so.13, .so.12, "
            ".so%s%s)%s%s; install it or add its directory to LD_LIBRARY_PATH",
            count > 3 ? " and " : "", count > 3 ? names[count - 1] : "", useful ? ": " : "",
            useful ? err : "");
        return 0;
    }
    LOAD(lib, create, "nvrtcCreateProgram");
    LOAD(lib, compile, "nvrtcCompileProgram");
    LOAD(lib, log_size, "nvrtcGetProgramLogSize");
    LOAD(lib, log, "nvrtcGetProgramLog");
    LOAD(lib, cubin_size, "nvrtcGetCUBINSize");
    LOAD(lib, cubin, "nvrtcGetCUBIN");
    LOAD(lib, destroy, "nvrtcDestroyProgram");
    LOAD(lib, error_string, "nvrtcGetErrorString");
    /* Optional: the version, for messages, and the list of architectures. */
    version_fn version;
    *(void **)&version = dlsym(lib, "nvrtcVersion");
    if (!version || version(&nv.major, &nv.minor) != NVRTC_SUCCESS)
        nv.major = nv.minor = 0;
    *(void **)&nv.num_archs = dlsym(lib, "nvrtcGetNumSupportedArchs");
    *(void **)&nv.archs = dlsym(lib, "nvrtcGetSupportedArchs");
    return 1;
}

/* Loads NVRTC once; 1 if it is usable. */
static int ensure_loaded(void)
{
    if (!nv.loaded)
        nv.loaded = load() ? 1 : -1;
    return nv.loaded > 0;
}

int kl_nvrtc_available(char *why, size_t n)
{
    int ok = ensure_loaded();
    if (why && n)
        snprintf(why, n, "%s", ok ? "" : nv.why);
    return ok;
}

/* 1 if this NVRTC lists sm_<arch> (or cannot say); else the list in buf. */
static int arch_supported(int arch, char *buf, size_t n)
{
    int count = 0;
    buf[0] = '\0';
    if (!nv.num_archs || !nv.archs || nv.num_archs(&count) != NVRTC_SUCCESS || count <= 0 ||
        count > 256)
        return 1;
    int archs[256];
    if (nv.archs(archs) != NVRTC_SUCCESS)
        return 1;
    size_t used = 0;
    for (int i = 0; i < count; i++) {
        if (archs[i] == arch)
            return 1;
        if (used < n)
            used += (size_t)snprintf(buf + used, n - used, "%ssm_%d", i ? " " : "", archs[i]);
    }
    return 0;
}

/* Splits options on blanks into a malloc'd copy (*copy) and argv (*argv, room for extra). */
static int split_options(const char *options, int extra, char **copy, const char ***argv)
{
    size_t len = strlen(options ? options : "");
    int max = (int)(len / 2) + 1 + extra;
    int argc = 0;
    *copy = malloc(len + 1);
    *argv = malloc((size_t)max * sizeof **argv);
    if (!*copy || !*argv)
        return -1;
    memcpy(*copy, options ? options : "", len + 1);
    for (char *p = *copy; *p;) {
        while (*p == ' ' || *p == '\t' || *p == '\n')
            *p++ = '\0';
        if (!*p)
            break;
        (*argv)[argc++] = p;
        while (*p && *p != ' ' && *p != '\t' && *p != '\n')
            p++;
    }
    return argc;
}

/*
 * NVRTC's options: fixed ones first, then arch_opt, then kladder's -D options
 * split on spaces (into *copy). The count, or -1 without memory.
 */
static int compile_argv(const char *options, const char *arch_opt, char **copy, const char ***argv)
{
    static const char *const fixed[] = {
        "-std=c++17",
        /* OpenCL helper functions carry no __device__: make that the default. */
        "-default-device",
        /* "Expression has no effect": an OpenCL vector literal (float4)(a, b, c, d)
           is a comma expression in C++ (see kernels/cuda/prelude.cuh). */
        "--diag-error=174",
    };
    const int nfixed = (int)(sizeof fixed / sizeof *fixed);
    int argc = split_options(options, nfixed + 1, copy, argv);
    if (argc < 0)
        return -1;
    memmove(*argv + nfixed + 1, *argv, (size_t)argc * sizeof **argv);
    for (int i = 0; i < nfixed; i++)
        (*argv)[i] = fixed[i];
    (*argv)[nfixed] = arch_opt;
    return argc + nfixed + 1;
}

/* The program's log, malloc'd and terminated; NULL where there is none or no memory. */
static char *program_log(nvrtcProgram prog)
{
    size_t n = 0;
    char *log = NULL;
    if (nv.log_size(prog, &n) == NVRTC_SUCCESS && n > 0 && (log = malloc(n + 1))) {
        if (nv.log(prog, log) == NVRTC_SUCCESS) {
            log[n] = '\0';
            return log;
        }
        free(log);
    }
    return NULL;
}

/* The compiled program's CUBIN into *image (malloc'd) and *size. */
static enum kl_status program_cubin(nvrtcProgram prog, const char *name, char **image, size_t *size,
                                    struct kl_err *e)
{
    size_t n = 0;
    nvrtcResult rc;
    if ((rc = nv.cubin_size(prog, &n)) != NVRTC_SUCCESS || n == 0)
        return kl_fail(e, KL_ERR_BACKEND, "nvrtcGetCUBINSize failed for %s: %s", name,
                       rc != NVRTC_SUCCESS ? nv.error_string(rc) : "no CUBIN was produced");
    if (!(*image = malloc(n)))
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory");
    if ((rc = nv.cubin(prog, *image)) != NVRTC_SUCCESS) {
        free(*image);
        *image = NULL;
        return kl_fail(e, KL_ERR_BACKEND, "nvrtcGetCUBIN failed for %s: %s", name,
                       nv.error_string(rc));
    }
    *size = n;
    return KL_OK;
}

/* Compiles prog with argv; a failure's message carries NVRTC's build log. */
static enum kl_status program_compile(nvrtcProgram prog, int argc, const char **argv,
                                      const char *name, const char *options, const char *arch_opt,
                                      struct kl_err *e)
{
    nvrtcResult rc = nv.compile(prog, argc, argv);
    if (rc == NVRTC_SUCCESS)
        return KL_OK;
    enum kl_status st = kl_fail(e, rc == NVRTC_ERROR_COMPILATION ? KL_ERR_BUILD : KL_ERR_BACKEND,
                                "nvrtcCompileProgram failed: %s, for %s with options \"%s\" (%s); "
                                "build log:\n",
                                nv.error_string(rc), name, options ? options : "",
                                arch_opt + strlen("--gpu-architecture="));
    char *log = program_log(prog);
    if (log)
        kl_err_append(e, "%s", log);
    free(log);
    return st;
}

/* Checks that NVRTC is loaded and can compile for cc_major.cc_minor. */
static enum kl_status check_arch(const char *name, int cc_major, int cc_minor, struct kl_err *e)
{
    char supported[1024];
    if (!ensure_loaded())
        return kl_fail(e, KL_ERR_BACKEND, "%s", nv.why);
    if (cc_major < 1 || cc_major > 99 || cc_minor < 0 || cc_minor > 9)
        return kl_fail(e, KL_ERR_ARG, "compute capability %d.%d is not valid", cc_major, cc_minor);
    const int arch = cc_major * 10 + cc_minor;
    if (!arch_supported(arch, supported, sizeof supported))
        return kl_fail(e, KL_ERR_BUILD,
                       "NVRTC %d.%d cannot compile %s for sm_%d (compute capability %d.%d); it "
                       "supports %s. Use a CUDA toolkit that supports this GPU",
                       nv.major, nv.minor, name, arch, cc_major, cc_minor, supported);
    return KL_OK;
}

enum kl_status kl_nvrtc_compile(const char *source, const char *name, const char *options,
                                int cc_major, int cc_minor, char **image, size_t *size,
                                char **messages, struct kl_err *e)
{
    char arch_opt[64];
    char *copy = NULL, *log = NULL;
    const char **argv = NULL;
    nvrtcProgram prog = NULL;
    nvrtcResult rc;
    enum kl_status st;

    *image = NULL;
    *size = 0;
    if (messages)
        *messages = NULL;
    if ((st = check_arch(name, cc_major, cc_minor, e)) != KL_OK)
        return st;
    /*
     * Compute capability 9.0 is built for sm_90a: the same GPU, plus the
     * instructions only Hopper has (wgmma, setmaxnreg), which the wgmma
     * rungs need. kladder builds for the device it runs on, so the cubin
     * loses nothing by being tied to that architecture.
     */
    const int arch = cc_major * 10 + cc_minor;
    snprintf(arch_opt, sizeof arch_opt, "--gpu-architecture=sm_%d%s", arch, arch == 90 ? "a" : "");
    int argc = compile_argv(options, arch_opt, &copy, &argv);
    if (argc < 0) {
        st = kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory");
        goto done;
    }
    if ((rc = nv.create(&prog, source, name, 0, NULL, NULL)) != NVRTC_SUCCESS) {
        st = kl_fail(e, rc == NVRTC_ERROR_OUT_OF_MEMORY ? KL_ERR_NO_MEMORY : KL_ERR_BACKEND,
                     "nvrtcCreateProgram failed for %s: %s", name, nv.error_string(rc));
        prog = NULL;
        goto done;
    }
    if ((st = program_compile(prog, argc, argv, name, options, arch_opt, e)) != KL_OK ||
        (st = program_cubin(prog, name, image, size, e)) != KL_OK)
        goto done;
    if (messages) { /* a successful compile's warnings */
        log = program_log(prog);
        *messages = kl_compiler_messages(log, NULL, 0);
    }
done:
    if (prog)
        nv.destroy(&prog);
    free(log);
    free(argv);
    free(copy);
    return st;
}

void kl_nvrtc_save_cubin(const char *entry, const char *options, const char *image, size_t size)
{
    const char *dir = getenv("KLADDER_SAVE_CUBIN");
    unsigned long long h = 1469598103934665603ull;
    char path[4096];
    if (!dir || !dir[0])
        return;
    for (const char *p = options; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
    snprintf(path, sizeof path, "%s/%s-%016llx.cubin", dir, entry, h);
    FILE *f = fopen(path, "wb");
    if (f) {
        fwrite(image, 1, size, f);
        fclose(f);
    }
}
