#include "core/blas.h"

#include <dlfcn.h>
#include <stddef.h>

#include "core/util.h"

/* The CBLAS enum values are fixed by the standard interface. */
enum { CBLAS_ROW_MAJOR = 101, CBLAS_NO_TRANS = 111 };
typedef void (*dgemm_fn)(int, int, int, int, int, int, double, const double *, int, const double *,
                         int, double, double *, int);
typedef void (*sgemm_fn)(int, int, int, int, int, int, float, const float *, int, const float *,
                         int, float, float *, int);

static dgemm_fn dgemm;
static sgemm_fn sgemm;
static const char *loaded;
static int tried;

static void load(void)
{
    static const char *const names[] = {"libopenblas.so.0", "libopenblas.so", "libcblas.so.3",
                                        "libblas.so.3"};
    tried = 1;
    /* libblas.so.3 may be the reference BLAS, without the C interface: passed over. */
    void *lib = kl_dlopen_having(names, sizeof names / sizeof *names, 0, "cblas_dgemm", &loaded);
    if (!lib)
        return;
    /* POSIX allows converting dlsym's object pointer to a function pointer. */
    *(void **)&dgemm = dlsym(lib, "cblas_dgemm");
    *(void **)&sgemm = dlsym(lib, "cblas_sgemm");
}

int kl_blas_available(const char **name)
{
    if (!tried)
        load();
    if (name)
        *name = loaded;
    return dgemm != NULL;
}

int kl_blas_dgemm(int M, int N, int K, const double *A, const double *B, double *C)
{
    if (!kl_blas_available(NULL))
        return 0;
    dgemm(CBLAS_ROW_MAJOR, CBLAS_NO_TRANS, CBLAS_NO_TRANS, M, N, K, 1.0, A, K > 0 ? K : 1, B,
          N > 0 ? N : 1, 0.0, C, N > 0 ? N : 1);
    return 1;
}

int kl_blas_sgemm(int M, int N, int K, const float *A, const float *B, float *C)
{
    if (!kl_blas_available(NULL) || !sgemm)
        return 0;
    sgemm(CBLAS_ROW_MAJOR, CBLAS_NO_TRANS, CBLAS_NO_TRANS, M, N, K, 1.0f, A, K > 0 ? K : 1, B,
          N > 0 ? N : 1, 0.0f, C, N > 0 ? N : 1);
    return 1;
}
