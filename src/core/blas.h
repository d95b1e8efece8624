/*
 * OpenBLAS (or any CBLAS) loaded at run time with dlopen, so kladder builds
 * and runs without it; with it, references for large problems are fast.
 */
#ifndef KL_BLAS_H
#define KL_BLAS_H

/* 1 when a CBLAS library with cblas_dgemm was found; its file name in *name. */
int kl_blas_available(const char **name);

/* Row-major C = A·B in double (M×K times K×N); 0 when no BLAS is loaded. */
int kl_blas_dgemm(int M, int N, int K, const double *A, const double *B, double *C);

/* The same in float (cblas_sgemm); 0 when the library has none. */
int kl_blas_sgemm(int M, int N, int K, const float *A, const float *B, float *C);

#endif /* KL_BLAS_H */
