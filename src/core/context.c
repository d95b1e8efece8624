#define _POSIX_C_SOURCE 200809L
#include "core/context.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/machine.h"
#include "core/stop.h"
#include "core/util.h"

struct kl_cached_kernel {
    char *key; /* file \n entry \n options */
    struct kl_kernel *kernel;
    double build_s;
    struct kl_cached_kernel *next;
};

enum kl_status kl_backend_find(const char *name, const struct kl_backend_ops **ops,
                               struct kl_err *e)
{
    for (int i = 0; kl_backends[i]; i++)
        if (strcmp(name, kl_backends[i]->name) == 0) {
            *ops = kl_backends[i];
            return KL_OK;
        }
    if (strcmp(name, "cuda") == 0)
        return kl_fail(e, KL_ERR_UNSUPPORTED,
                       "CUDA support was not built into this kladder (no CUDA toolkit was found "
                       "when it was configured; install one and rebuild, or use --backend "
                       "opencl)");
    return kl_fail(e, KL_ERR_ARG, "unknown backend \"%s\" (opencl or cuda)", name);
}

const char *kl_backend_widest(void)
{
    for (int i = 0; kl_backends[i]; i++)
        if (kl_backends[i]->cuda_cpp && kl_backends[i]->platform_count() > 0)
            return kl_backends[i]->name;
    return NULL;
}

/*
 * Splits "cuda:0" or "opencl:gpu" into its backend and the rest; a spec
 * without a backend prefix is OpenCL's. "cuda" alone is CUDA's default.
 */
static enum kl_status split_spec(const char **spec, const struct kl_backend_ops **ops,
                                 struct kl_err *e)
{
    static const char *const names[] = {"opencl", "cuda"};
    *ops = kl_backends[0];
    if (!*spec)
        return KL_OK;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        size_t n = strlen(names[i]);
        if (strncmp(*spec, names[i], n) == 0 && ((*spec)[n] == '\0' || (*spec)[n] == ':')) {
            enum kl_status st = kl_backend_find(names[i], ops, e);
            if (st != KL_OK)
                return st;
            *spec += (*spec)[n] == ':' ? n + 1 : n;
            return KL_OK;
        }
    }
    return KL_OK;
}

static int parse_index(const char *s, int *d)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end != '\0' || v < 0 || v > 1000)
        return 0;
    *d = (int)v;
    return 1;
}

static int parse_index_pair(const char *s, int *p, int *d)
{
    char *end;
    long a = strtol(s, &end, 10);
    if (end == s || *end != ':')
        return 0;
    const char *rest = end + 1;
    long b = strtol(rest, &end, 10);
    if (end == rest || *end != '\0' || a < 0 || b < 0 || a > 1000 || b > 1000)
        return 0;
    *p = (int)a;
    *d = (int)b;
    return 1;
}

static enum kl_status no_match(const struct kl_backend_ops *ops, const char *spec, struct kl_err *e)
{
    int np = ops->platform_count();
    kl_fail(e, KL_ERR_NO_DEVICE, "no device matches \"%s\"; devices are:", spec);
    for (int p = 0; p < np; p++)
        for (int d = 0; d < ops->device_count(p); d++) {
            struct kl_device_info info;
            if (ops->device_info(p, d, &info, NULL) == KL_OK)
                kl_err_append(e, "\n  %d:%d  %s (%s, %s)", p, d, info.name, info.type,
                              info.platform);
        }
    kl_err_append(e,
                  ops->one_platform
                      ? "\nUse --device %s:N (a device index) or part of a device name."
                      : "\nUse --device P:D, gpu, cpu or part of a device name.",
                  ops->name);
    return KL_ERR_NO_DEVICE;
}

/* Why ops has no device at all: it has no platform. */
static enum kl_status no_platform(const struct kl_backend_ops *ops, struct kl_err *e)
{
    char hint[512];
    if (ops->unavailable) {
        ops->unavailable(hint, sizeof hint);
        return kl_fail(e, KL_ERR_NO_DEVICE, "no %s device: %s", ops->name, hint);
    }
    kl_fail(e, KL_ERR_NO_DEVICE,
            "no OpenCL platform found (the ICD loader lists none). On Debian/Ubuntu, "
            "`apt-get install pocl-opencl-icd` gives one on the CPU.");
    if (ops->device_hint && ops->device_hint(hint, sizeof hint))
        kl_err_append(e, "\n%s", hint);
    return KL_ERR_NO_DEVICE;
}

/*
 * The first device spec asks for by its facts: a GPU (no spec, or "gpu"), a
 * CPU ("cpu"), or one whose name holds spec. 1 when one does.
 */
static int find_device(const struct kl_backend_ops *ops, int np, const char *spec, int *platform,
                       int *device)
{
    int want_gpu = !spec || !*spec || strcmp(spec, "gpu") == 0;
    int want_cpu = spec && strcmp(spec, "cpu") == 0;
    for (int p = 0; p < np; p++)
        for (int d = 0; d < ops->device_count(p); d++) {
            struct kl_device_info info;
            if (ops->device_info(p, d, &info, NULL) != KL_OK)
                continue;
            int hit = want_gpu   ? info.is_gpu
                      : want_cpu ? strcmp(info.type, "CPU") == 0
                                 : kl_contains_nocase(info.name, spec);
            if (hit) {
                *platform = p;
                *device = d;
                return 1;
            }
        }
    return 0;
}

/* The first device there is, where none is a GPU. */
static enum kl_status first_device(const struct kl_backend_ops *ops, int np, int *platform,
                                   int *device, struct kl_err *e)
{
    for (int p = 0; p < np; p++)
        if (ops->device_count(p) > 0) {
            *platform = p;
            *device = 0;
            return KL_OK;
        }
    return kl_fail(e, KL_ERR_NO_DEVICE, "%s platforms exist but have no devices", ops->name);
}

/*
 * A spec of numbers: "N" on a backend of one platform (its devices are named
 * by index alone), "P:D" on any. 1 when spec is one; *st then says whether
 * that device exists.
 */
static int by_index(const struct kl_backend_ops *ops, int np, const char *spec, int *platform,
                    int *device, enum kl_status *st, struct kl_err *e)
{
    if (ops->one_platform && parse_index(spec, device)) {
        *platform = 0;
        *st = *device < ops->device_count(0) ? KL_OK : no_match(ops, spec, e);
        return 1;
    }
    if (parse_index_pair(spec, platform, device)) {
        *st = *platform < np && *device < ops->device_count(*platform) ? KL_OK
                                                                       : no_match(ops, spec, e);
        return 1;
    }
    return 0;
}

enum kl_status kl_device_select(const char *spec, const struct kl_backend_ops **backend,
                                int *platform, int *device, struct kl_err *e)
{
    const struct kl_backend_ops *ops;
    if (!spec || !*spec)
        spec = getenv("KLADDER_DEVICE");
    enum kl_status st = split_spec(&spec, &ops, e);
    if (st != KL_OK)
        return st;
    *backend = ops;
    int np = ops->platform_count();
    if (np == 0)
        return no_platform(ops, e);
    int named = spec && *spec;
    if (named && by_index(ops, np, spec, platform, device, &st, e))
        return st;
    if (find_device(ops, np, spec, platform, device))
        return KL_OK;
    return named ? no_match(ops, spec, e) : first_device(ops, np, platform, device, e);
}

static void cache_flush(struct kl_context *kl)
{
    while (kl->cache) {
        struct kl_cached_kernel *c = kl->cache;
        kl->cache = c->next;
        kl->ops->kernel_free(c->kernel);
        free(c->key);
        free(c);
    }
}

enum kl_status kl_open(const char *spec, struct kl_context **out, char *err, size_t errlen)
{
    struct kl_err e = {{0}};
    const struct kl_backend_ops *ops;
    int platform, device;
    enum kl_status st = kl_device_select(spec, &ops, &platform, &device, &e);
    if (st != KL_OK) {
        *out = NULL;
        if (err && errlen)
            snprintf(err, errlen, "%s", e.msg);
        return st;
    }
    return kl_open_on(ops, platform, device, out, err, errlen);
}

enum kl_status kl_open_on(const struct kl_backend_ops *ops, int platform, int device,
                          struct kl_context **out, char *err, size_t errlen)
{
    struct kl_err e = {{0}};
    enum kl_status st;
    struct kl_context *kl = calloc(1, sizeof *kl);
    *out = NULL;
    if (!kl) {
        st = kl_fail(&e, KL_ERR_NO_MEMORY, "out of host memory");
        goto fail;
    }
    kl->ops = ops;
    kl->platform = platform;
    kl->device = device;
    st = kl->ops->device_info(kl->platform, kl->device, &kl->info, &e);
    if (st != KL_OK)
        goto fail;
    if (!kl->info.profiling) {
        st = kl_fail(&e, KL_ERR_UNSUPPORTED, "device %s cannot time kernels with profiling events",
                     kl->info.name);
        goto fail;
    }
    st = kl->ops->open(kl->platform, kl->device, &kl->dev, &e);
    if (st != KL_OK)
        goto fail;
    *out = kl;
    return KL_OK;
fail:
    if (err && errlen)
        snprintf(err, errlen, "%s", e.msg);
    kl_close(kl);
    return st;
}

void kl_close(struct kl_context *kl)
{
    if (!kl)
        return;
    if (kl->cold.buf)
        kl->ops->release(kl->cold.buf);
    cache_flush(kl);
    kl_machine_free(kl);
    if (kl->dev)
        kl->ops->close(kl->dev);
    free(kl->kernel_dir);
    free(kl->beside);
    free(kl);
}

const char *kl_last_error(const struct kl_context *kl)
{
    return kl ? kl->err.msg : "";
}

const char *kl_device_name(const struct kl_context *kl)
{
    return kl->info.name;
}

static enum kl_status load_one(struct kl_context *kl, const char *file, char **out);

enum kl_status kl_set_kernel_dir(struct kl_context *kl, const char *dir)
{
    char *prelude = NULL;
    if (!kl)
        return KL_ERR_ARG;
    /* Kernels built from the old sources must not answer for the new ones. */
    cache_flush(kl);
    free(kl->kernel_dir);
    kl->kernel_dir = NULL;
    if (!dir)
        return KL_OK;
    if (!(kl->kernel_dir = kl_strdup(dir)))
        return kl_fail(&kl->err, KL_ERR_NO_MEMORY, "out of host memory");
    /* Fail now, not after minutes of other rungs, if the folder is not a kernel tree. */
    enum kl_status st = load_one(kl, "opencl/prelude.cl", &prelude);
    free(prelude);
    if (st != KL_OK)
        kl_err_append(&kl->err, " (--kernel-dir must name a copy of the source tree's kernels/)");
    return st;
}

/* One file's text, from --kernel-dir if set, else from the binary. */
static enum kl_status load_one(struct kl_context *kl, const char *file, char **out)
{
    if (kl->kernel_dir) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", kl->kernel_dir, file);
        return kl_read_file(path, out, NULL, &kl->err);
    }
    for (const struct kl_embedded_file *f = kl_embedded_kernels; f->path; f++)
        if (strcmp(f->path, file) == 0) {
            *out = kl_strdup(f->text);
            return *out ? KL_OK : kl_fail(&kl->err, KL_ERR_NO_MEMORY, "out of host memory");
        }
    return kl_fail(&kl->err, KL_ERR_IO, "kernel file %s is not built into kladder", file);
}

enum kl_status kl_kernel_file_text(struct kl_context *kl, const char *file, char **out)
{
    return load_one(kl, file, out);
}

int kl_tensor_cores(const struct kl_device_info *d, const char *precision, char *why, size_t n)
{
    const char *sp = precision[0] ? " " : "";
    if (kl_contains_nocase(d->vendor, "nvidia") && d->cc_major >= 8)
        return 1;
    if (!kl_contains_nocase(d->vendor, "nvidia"))
        snprintf(why, n,
                 "no %s%stensor cores: kladder reaches them through PTX on NVIDIA GPUs only "
                 "(this device is %s's)",
                 precision, sp, d->vendor);
    else if (d->cc_major == 0)
        snprintf(why, n,
                 "no %s%stensor cores known: the driver does not say the compute "
                 "capability (cl_nv_device_attribute_query)",
                 precision, sp);
    else
        snprintf(why, n,
                 "no %s%stensor cores: compute capability %d.%d; kladder's mma.sync needs 8.0 "
                 "or more",
                 precision, sp, d->cc_major, d->cc_minor);
    return 0;
}

int kl_tensor_tf32(const struct kl_device_info *d, char *why, size_t n)
{
    return kl_tensor_cores(d, "TF32", why, n);
}

int kl_packed_half(const struct kl_device_info *d, char *why, size_t n)
{
    if (kl_contains_nocase(d->vendor, "nvidia") && d->cc_major >= 8)
        return 1;
    if (!kl_contains_nocase(d->vendor, "nvidia"))
        snprintf(why, n,
                 "no packed-half arithmetic here: kladder issues it as PTX on NVIDIA GPUs only "
                 "(this device is %s's)",
                 d->vendor);
    else
        snprintf(why, n,
                 "no packed-half arithmetic known: compute capability %d.%d (%s), PTX "
                 "cvt.rn.f16x2.f32 needs 8.0 or more",
                 d->cc_major, d->cc_minor,
                 d->cc_major ? "reported by the driver" : "not reported by the driver");
    return 0;
}

int kl_kernel_is_cuda(const char *file)
{
    size_t len = file ? strlen(file) : 0;
    return len > 3 && strcmp(file + len - 3, ".cu") == 0;
}

int kl_kernel_elsewhere(const struct kl_context *kl, const char *file)
{
    return kl_kernel_is_cuda(file) && !kl->ops->cuda_cpp;
}

uint64_t kl_kernel_local_mem(const struct kl_context *kl, const char *file)
{
    const struct kl_device_info *d = &kl->info;
    return kl_kernel_is_cuda(file) && d->local_mem_optin > d->local_mem ? d->local_mem_optin
                                                                        : d->local_mem;
}

/* NAME of a line `#include "NAME"` (blanks around the '#' allowed): 1, else 0. */
/* p past the blanks (spaces, tabs) before end. */
static const char *skip_blanks(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    return p;
}

static int include_name(const char *s, size_t len, const char **name, size_t *nlen)
{
    const char *end = s + len, *p = skip_blanks(s, end), *q;
    if (p == end || *p++ != '#')
        return 0;
    p = skip_blanks(p, end);
    if (end - p < 8 || strncmp(p, "include", 7) != 0)
        return 0;
    p = skip_blanks(p + 7, end);
    if (p == end || *p++ != '"' || !(q = memchr(p, '"', (size_t)(end - p))) || q == p)
        return 0;
    *name = p;
    *nlen = (size_t)(q - p);
    return 1;
}

#define MAX_INCLUDE_DEPTH 4

/* Removes each "DIR/../" from path in place, so a header may name a neighbouring folder's. */
static void collapse_dots(char *path)
{
    char *up;
    while ((up = strstr(path, "/../")) != NULL && up > path) {
        char *start = up;
        while (start > path && start[-1] != '/')
            start--;
        if (strncmp(start, "../", 3) == 0)
            break; /* nothing left to go up from */
        memmove(start, up + 4, strlen(up + 4) + 1);
    }
}

/* The #include lines of one file: each header's path and text (its own includes inlined). */
enum { MAX_INCLUDES = 8 };
struct includes {
    char *hdr[MAX_INCLUDES];
    char path[MAX_INCLUDES][256];
    int n;
    size_t total; /* the inlined file's size, bound from above */
};

static enum kl_status inline_at(const char *file, const char *text, kl_kernel_loader load,
                                void *ctx, char **out, struct kl_err *e, int depth);

/*
 * The header that `#include "name"` (nlen bytes) of file names, beside file,
 * as inc's next: its path and its text with its own includes inlined.
 */
static enum kl_status read_header(struct includes *inc, const char *file, const char *name,
                                  size_t nlen, kl_kernel_loader load, void *ctx, int depth,
                                  struct kl_err *e)
{
    const char *slash = strrchr(file, '/');
    int dir = slash ? (int)(slash - file + 1) : 0, n = inc->n;
    enum kl_status st;
    char *raw = NULL;
    if (n == MAX_INCLUDES || dir + nlen >= sizeof inc->path[n])
        return kl_fail(e, KL_ERR_BUILD, "%s: more than %d #include lines, or a name too long", file,
                       MAX_INCLUDES);
    snprintf(inc->path[n], sizeof inc->path[n], "%.*s%.*s", dir, file, (int)nlen, name);
    collapse_dots(inc->path[n]);
    if (depth == MAX_INCLUDE_DEPTH)
        return kl_fail(e, KL_ERR_BUILD, "%s: #include nested more than %d deep", file,
                       MAX_INCLUDE_DEPTH);
    if ((st = load(ctx, inc->path[n], &raw, e)) == KL_OK && /* the header's own includes too */
        (st = inline_at(inc->path[n], raw, load, ctx, &inc->hdr[n], e, depth + 1)) == KL_OK) {
        size_t hl = strlen(inc->hdr[n]);
        if (hl && inc->hdr[n][hl - 1] == '\n')
            inc->hdr[n][hl - 1] = '\0'; /* the line after it ends the header's last line */
    }
    free(raw);
    if (st != KL_OK) {
        kl_err_append(e, " (#include in %s)", file);
        return st;
    }
    inc->total += strlen(inc->hdr[n]) + strlen(inc->path[n]) + strlen(file) + 64;
    inc->n++;
    return KL_OK;
}

/* text with each #include line replaced by its header between #line directives, into o. */
static void write_inlined(const char *file, const char *text, const struct includes *inc, char *o)
{
    int k = 0, lineno = 1;
    size_t len;
    for (const char *line = text; *line; line += len + (line[len] == '\n'), lineno++) {
        const char *name;
        size_t nlen;
        len = strcspn(line, "\n");
        if (include_name(line, len, &name, &nlen)) {
            o += sprintf(o, "#line 1 \"%s\"\n%s\n#line %d \"%s\"\n", inc->path[k], inc->hdr[k],
                         lineno + 1, file);
            k++;
        } else {
            o += sprintf(o, "%.*s\n", (int)len, line);
        }
    }
}

static enum kl_status inline_at(const char *file, const char *text, kl_kernel_loader load,
                                void *ctx, char **out, struct kl_err *e, int depth)
{
    struct includes inc = {.total = strlen(text) + 2};
    size_t len;
    enum kl_status st = KL_OK;
    *out = NULL;
    /* First the headers, so the text's size is known. */
    for (const char *line = text; *line && st == KL_OK; line += len + (line[len] == '\n')) {
        const char *name;
        size_t nlen;
        len = strcspn(line, "\n");
        if (include_name(line, len, &name, &nlen))
            st = read_header(&inc, file, name, nlen, load, ctx, depth, e);
    }
    if (st == KL_OK && !(*out = malloc(inc.total)))
        st = kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory");
    if (st == KL_OK)
        write_inlined(file, text, &inc, *out);
    for (int i = 0; i < inc.n; i++)
        free(inc.hdr[i]);
    return st;
}

enum kl_status kl_kernel_inline(const char *file, const char *text, kl_kernel_loader load,
                                void *ctx, char **out, struct kl_err *e)
{
    return inline_at(file, text, load, ctx, out, e, 0);
}

/* load_one as a kl_kernel_loader (its errors go to the context's, which is e). */
static enum kl_status load_kernel_file(void *kl, const char *path, char **out, struct kl_err *e)
{
    (void)e;
    return load_one(kl, path, out);
}

/* A user's header beside their kernel file, read from disk (a kl_kernel_loader). */
static enum kl_status load_disk_file(void *kl, const char *path, char **out, struct kl_err *e)
{
    (void)kl;
    return kl_read_file(path, out, NULL, e);
}

/*
 * A .cu file is CUDA C++ as written: no prelude, its headers inlined, and
 * only for a backend that builds CUDA C++. text: the file's, or NULL to load
 * it (freed here).
 */
static enum kl_status cuda_source(struct kl_context *kl, const char *file, char *text,
                                  kl_kernel_loader load, char **out)
{
    enum kl_status st;
    if (!kl->ops->cuda_cpp)
        st = kl_fail(&kl->err, KL_ERR_UNSUPPORTED, "%s is a CUDA kernel (--backend cuda)", file);
    else if (text || (st = load_one(kl, file, &text)) == KL_OK)
        st = kl_kernel_inline(file, text, load, kl, out, &kl->err);
    free(text);
    return st;
}

/*
 * kl_kernel_source of file, whose text is given (a user's file) or NULL (one
 * of kladder's). OpenCL: the OpenCL prelude, then the kernel. CUDA: the same,
 * behind kernels/cuda/prelude.cuh, which maps OpenCL C's built-ins to CUDA
 * C++; or a .cu file alone, for what only CUDA can do.
 */
static enum kl_status source_of(struct kl_context *kl, const char *file, const char *given,
                                char **out)
{
    char *first = NULL, *prelude = NULL, *text = NULL, *body = NULL;
    const char *before = kl->ops->opencl_prelude; /* OpenCL C's translation, if any */
    kl_kernel_loader load = given ? load_disk_file : load_kernel_file;
    enum kl_status st;
    *out = NULL;
    if (given && !(text = kl_strdup(given)))
        return kl_fail(&kl->err, KL_ERR_NO_MEMORY, "out of host memory");
    if (kl_kernel_is_cuda(file))
        return cuda_source(kl, file, text, load, out);
    if ((before && (st = load_one(kl, before, &first)) != KL_OK) ||
        (st = load_one(kl, "opencl/prelude.cl", &prelude)) != KL_OK ||
        (!text && (st = load_one(kl, file, &text)) != KL_OK) ||
        (st = kl_kernel_inline(file, text, load, kl, &body, &kl->err)) != KL_OK)
        goto done;
    size_t n = (first ? strlen(first) : 0) + strlen(prelude) + strlen(body) + strlen(file) + 32;
    *out = malloc(n);
    if (!*out)
        st = kl_fail(&kl->err, KL_ERR_NO_MEMORY, "out of host memory");
    else /* the compiler's log then names the kernel file and its own line */
        snprintf(*out, n, "%s\n%s\n#line 1 \"%s\"\n%s", first ? first : "", prelude,
                 strpbrk(file, "\"\\\n") ? "kernel" : file, body);
done:
    free(first);
    free(text);
    free(body);
    free(prelude);
    return st;
}

enum kl_status kl_kernel_source(struct kl_context *kl, const char *file, char **out)
{
    return source_of(kl, file, NULL, out);
}

/*
 * The file and line that physical line n of src stands for, by the #line
 * directives in src (the prelude's lines: the file "kernel"). fn gets the
 * name (up to fn_len - 1 bytes); returns the line, 0 when n is out of range.
 */
static int logical_line(const char *src, int n, char *fn, size_t fn_len)
{
    int line = 1, phys = 1;
    snprintf(fn, fn_len, "kernel");
    for (const char *p = src; *p && phys < n; phys++) {
        const char *end = strchr(p, '\n');
        int l;
        char name[256];
        if (sscanf(p, "#line %d \"%255[^\"]\"", &l, name) == 2) {
            line = l;
            snprintf(fn, fn_len, "%s", name);
        } else {
            line++;
        }
        if (!end)
            return 0;
        p = end + 1;
    }
    return phys == n ? line : 0;
}

void kl_build_log_remap(const char *src, char *msg, size_t size)
{
    static const char tag[] = "<kernel>:";
    char *at, fn[256], buf[320];
    while ((at = strstr(msg, tag)) != NULL) {
        char *num = at + strlen(tag), *end;
        long n = strtol(num, &end, 10);
        int line = n > 0 && n < 1000000 ? logical_line(src, (int)n, fn, sizeof fn) : 0;
        if (end == num || line == 0)
            return;
        int len = snprintf(buf, sizeof buf, "%s:%d", fn, line);
        size_t tail = strlen(end) + 1, head = (size_t)(at - msg);
        if (len < 0 || head + (size_t)len + tail > size)
            return;
        memmove(at + len, end, tail);
        memcpy(at, buf, (size_t)len);
    }
}

enum kl_status kl_kernel_get_text(struct kl_context *kl, const char *file, const char *text,
                                  const char *entry, const char *options, struct kl_kernel **out,
                                  double *build_s)
{
    size_t n = strlen(file) + strlen(entry) + strlen(options) + 8;
    char *key = malloc(n), *src = NULL;
    struct kl_cached_kernel *c;
    enum kl_status st;
    if (!key)
        return kl_fail(&kl->err, KL_ERR_NO_MEMORY, "out of host memory");
    /* A user's file is never one of kladder's, whatever its path. */
    snprintf(key, n, "%s%s\n%s\n%s", text ? "user:" : "", file, entry, options);
    for (c = kl->cache; c; c = c->next)
        if (strcmp(c->key, key) == 0) {
            free(key);
            *out = c->kernel;
            *build_s = c->build_s;
            return KL_OK;
        }
    if ((st = source_of(kl, file, text, &src)) != KL_OK)
        goto free_key;
    c = calloc(1, sizeof *c);
    if (!c) {
        st = kl_fail(&kl->err, KL_ERR_NO_MEMORY, "out of host memory");
        goto free_src;
    }
    double t0 = kl_now();
    st = kl->ops->build(kl->dev, src, options, entry, &c->kernel, &kl->err);
    if (st != KL_OK && kl_stop_requested()) {
        /* A stop that came during the build: the compiler's own handler of the signal may have
           removed its temporary files (LLVM does) and failed the build; the run was stopped. */
        free(c);
        st = kl_stop_fail(&kl->err);
        goto free_src;
    }
    if (st != KL_OK) {
        char where[256];
        kl_build_log_remap(src, kl->err.msg, sizeof kl->err.msg);
        snprintf(where, sizeof where, "%s: ", file);
        memmove(kl->err.msg + strlen(where), kl->err.msg, sizeof kl->err.msg - strlen(where) - 1);
        memcpy(kl->err.msg, where, strlen(where));
        kl->err.msg[sizeof kl->err.msg - 1] = '\0';
        free(c);
        goto free_src;
    }
    c->build_s = kl_now() - t0;
    c->key = key;
    key = NULL;
    c->next = kl->cache;
    kl->cache = c;
    *out = c->kernel;
    *build_s = c->build_s;
free_src:
    free(src);
free_key:
    free(key);
    return st;
}

/* One build of kl_kernel_prefetch, done by whichever thread takes it. */
struct prefetch_job {
    const struct kl_kernel_want *want;
    char *key, *src;
    struct kl_kernel *kernel; /* NULL: failed */
    double build_s;
};
struct prefetch {
    struct kl_context *kl;
    struct prefetch_job *jobs;
    int n, next;
    pthread_mutex_t lock;
};

static void *prefetch_worker(void *arg)
{
    struct prefetch *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->lock);
        int i = p->next++;
        pthread_mutex_unlock(&p->lock);
        if (i >= p->n)
            return NULL;
        struct prefetch_job *j = &p->jobs[i];
        struct kl_err e;
        double t0 = kl_now();
        if (p->kl->ops->build(p->kl->dev, j->src, j->want->options, j->want->entry, &j->kernel,
                              &e) != KL_OK)
            j->kernel = NULL;
        j->build_s = kl_now() - t0;
    }
}

static int cached(const struct kl_context *kl, const char *key)
{
    for (const struct kl_cached_kernel *c = kl->cache; c; c = c->next)
        if (strcmp(c->key, key) == 0)
            return 1;
    return 0;
}

/* 1 when key is cached already or queued among p's jobs. */
static int known(const struct kl_context *kl, const struct prefetch *p, const char *key)
{
    int dup = cached(kl, key);
    for (int k = 0; k < p->n && !dup; k++)
        dup = strcmp(p->jobs[k].key, key) == 0;
    return dup;
}

/* The jobs: each new (file, entry, options) with its source, read here (kladder's files and
 * the kernel directory). */
static void prefetch_plan(struct prefetch *p, const struct kl_kernel_want *want, int n)
{
    for (int i = 0; i < n; i++) {
        struct prefetch_job *j = &p->jobs[p->n];
        size_t len = strlen(want[i].file) + strlen(want[i].entry) + strlen(want[i].options) + 8;
        if (!(j->key = malloc(len)))
            break;
        snprintf(j->key, len, "%s\n%s\n%s", want[i].file, want[i].entry, want[i].options);
        if (known(p->kl, p, j->key) || source_of(p->kl, want[i].file, NULL, &j->src) != KL_OK) {
            free(j->key);
            j->key = NULL;
            continue;
        }
        j->want = &want[i];
        p->n++;
    }
}

struct kl_beside {
    void (*fn)(void *arg);
    void *arg;
    int ran;
};

enum kl_status kl_kernel_beside(struct kl_context *kl, void (*fn)(void *arg), void *arg)
{
    if (!kl->beside && !(kl->beside = calloc(1, sizeof *kl->beside)))
        return kl_fail(&kl->err, KL_ERR_NO_MEMORY, "out of host memory");
    *kl->beside = (struct kl_beside){fn, arg, 0};
    return KL_OK;
}

/* The work left beside the builds, run now where there is any. */
static void beside_run(struct kl_context *kl)
{
    struct kl_beside *b = kl->beside;
    if (b && b->fn) {
        void (*fn)(void *) = b->fn;
        b->fn = NULL; /* once, even where fn prefetches kernels itself */
        fn(b->arg);
        b->ran = 1;
    }
}

int kl_kernel_beside_done(struct kl_context *kl)
{
    struct kl_beside *b = kl ? kl->beside : NULL;
    if (!b)
        return 0;
    beside_run(kl);
    int ran = b->ran;
    b->ran = 0;
    return ran;
}

/* Builds every job: on as many threads as kl_parallel_shares gives the jobs where the backend
 * allows (this thread doing the work left beside them meanwhile), else here. */
static void prefetch_build(struct prefetch *p)
{
    struct kl_context *kl = p->kl;
    pthread_t threads[KL_PARALLEL_MAX];
    int nthreads = 0;
    int parallel = kl->ops->parallel_builds && kl->ops->parallel_builds(kl->dev);
    int want_threads = parallel ? (int)kl_parallel_shares((size_t)p->n) : 1;
    pthread_mutex_init(&p->lock, NULL);
    for (; want_threads > 1 && nthreads < want_threads && nthreads < p->n; nthreads++)
        if (pthread_create(&threads[nthreads], NULL, prefetch_worker, p) != 0)
            break;
    if (nthreads == 0)
        prefetch_worker(p); /* one at a time, or no thread could start: build here */
    else
        beside_run(kl);
    for (int i = 0; i < nthreads; i++)
        pthread_join(threads[i], NULL);
    pthread_mutex_destroy(&p->lock);
}

/* The built kernels into kl's cache; frees what the jobs held. */
static void prefetch_keep(struct prefetch *p)
{
    struct kl_context *kl = p->kl;
    for (int i = 0; i < p->n; i++) {
        struct prefetch_job *j = &p->jobs[i];
        struct kl_cached_kernel *c = j->kernel ? calloc(1, sizeof *c) : NULL;
        if (c) {
            c->key = j->key, c->kernel = j->kernel, c->build_s = j->build_s;
            c->next = kl->cache;
            kl->cache = c;
            j->key = NULL;
        } else if (j->kernel) {
            kl->ops->kernel_free(j->kernel);
        }
        free(j->key);
        free(j->src);
    }
}

void kl_kernel_prefetch(struct kl_context *kl, const struct kl_kernel_want *want, int n)
{
    struct prefetch p = {.kl = kl, .jobs = calloc((size_t)(n > 0 ? n : 1), sizeof *p.jobs)};
    struct kl_err saved = kl->err;
    if (!p.jobs)
        return;
    prefetch_plan(&p, want, n);
    prefetch_build(&p);
    prefetch_keep(&p);
    free(p.jobs);
    kl->err = saved;
}

void kl_kernel_logs(const struct kl_context *kl,
                    void (*fn)(void *arg, const char *file, const char *entry, const char *options,
                               const char *log),
                    void *arg)
{
    if (!kl->ops->kernel_log)
        return;
    for (const struct kl_cached_kernel *c = kl->cache; c; c = c->next) {
        const char *log = kl->ops->kernel_log(c->kernel);
        char key[4096];
        snprintf(key, sizeof key, "%s", c->key); /* "FILE\nENTRY\nOPTIONS" */
        char *entry = strchr(key, '\n'), *options = entry ? strchr(entry + 1, '\n') : NULL;
        if (!log || !*log || !options)
            continue;
        *entry++ = '\0', *options++ = '\0';
        fn(arg, key, entry, options, log);
    }
}

enum kl_status kl_kernel_get(struct kl_context *kl, const char *file, const char *entry,
                             const char *options, struct kl_kernel **out, double *build_s)
{
    return kl_kernel_get_text(kl, file, NULL, entry, options, out, build_s);
}

enum kl_status kl_device_fits(const struct kl_context *kl, double bytes, const char *what,
                              struct kl_err *e)
{
    const double mib = 1048576.0;
    size_t free_bytes = kl->ops->mem_free ? kl->ops->mem_free(kl->dev) : 0;
    if (free_bytes && bytes > (double)free_bytes)
        return kl_fail(e, KL_ERR_NO_MEMORY,
                       "%s need %.1f MiB of device memory, more than the %.1f MiB free on %s now "
                       "(of %.1f MiB); use smaller sizes",
                       what, bytes / mib, free_bytes / mib, kl->info.name,
                       kl->info.global_mem / mib);
    if (!free_bytes && bytes > (double)kl->info.global_mem)
        return kl_fail(e, KL_ERR_NO_MEMORY,
                       "%s need %.1f MiB of device memory, more than the %.1f MiB of global "
                       "memory of %s; use smaller sizes",
                       what, bytes / mib, kl->info.global_mem / mib, kl->info.name);
    return KL_OK;
}

/* The host memory free for a run in bytes, and what says so (*from); 0 where nothing says. */
static double host_free(const char **from)
{
    const char *env = getenv("KLADDER_HOST_MEMORY");
    unsigned long long kib = 0;
    char line[128];
    *from = "KLADDER_HOST_MEMORY";
    if (env && *env)
        return strtod(env, NULL);
    *from = "nine tenths of MemAvailable";
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1)
            break;
    fclose(f);
    return 0.9 * 1024.0 * (double)kib;
}

enum kl_status kl_host_fits(double bytes, const char *what, struct kl_err *e)
{
    const double mib = 1048576.0;
    const char *from;
    double free_bytes = host_free(&from);
    if (free_bytes > 0 && bytes > free_bytes)
        return kl_fail(e, KL_ERR_NO_MEMORY,
                       "%s need %.1f MiB of host memory, more than the %.1f MiB free to use now "
                       "(%s); use smaller sizes",
                       what, bytes / mib, free_bytes / mib, from);
    return KL_OK;
}
