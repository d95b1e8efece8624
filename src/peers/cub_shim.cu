/*
 * kladder's shim over CUB's DeviceReduce: the one C entry point that
 * src/peers/cub.c loads at run time (CUB is a header library of templates,
 * so a C program reaches it only through code compiled by nvcc). CMake
 * builds it as libkladder_cub.so where the CUDA toolkit is found; it uses
 * the shared CUDA runtime, the one kladder's other CUDA peers load.
 */
#include <cub/device/device_reduce.cuh>
#include <cuda_runtime.h>

#include <stdio.h>

namespace
{

/* op 0 sum, 1 min, 2 max; *temp_bytes its scratch (temp NULL: asks for the size only). */
template <class T>
cudaError_t reduce(int op, const void *in, void *out, int n, void *temp, size_t *temp_bytes)
{
    const T *x = static_cast<const T *>(in);
    T *y = static_cast<T *>(out);
    switch (op) {
    case 0: return cub::DeviceReduce::Sum(temp, *temp_bytes, x, y, n);
    case 1: return cub::DeviceReduce::Min(temp, *temp_bytes, x, y, n);
    case 2: return cub::DeviceReduce::Max(temp, *temp_bytes, x, y, n);
    default: return cudaErrorInvalidValue;
    }
}

} // namespace

/*
 * The reduction of n elements of in into out[0] on the default stream: type
 * 0 float, 1 double, 2 int (sums in unsigned int, wrapping modulo 2^32, the
 * same bits). Returns a cudaError_t.
 */
extern "C" __attribute__((visibility("default"))) int kladder_cub_reduce(int op, int type,
                                                                         const void *in, void *out,
                                                                         int n, void *temp,
                                                                         size_t *temp_bytes)
{
    switch (type) {
    case 0: return reduce<float>(op, in, out, n, temp, temp_bytes);
    case 1: return reduce<double>(op, in, out, n, temp, temp_bytes);
    case 2:
        return op == 0 ? reduce<unsigned>(op, in, out, n, temp, temp_bytes)
                       : reduce<int>(op, in, out, n, temp, temp_bytes);
    default: return cudaErrorInvalidValue;
    }
}

/* "CUB 3.1.0": the headers it was compiled with. */
extern "C" __attribute__((visibility("default"))) const char *kladder_cub_version(void)
{
    static char text[32];
    snprintf(text, sizeof text, "CUB %d.%d.%d", CUB_VERSION / 100000, CUB_VERSION / 100 % 1000,
             CUB_VERSION % 100);
    return text;
}
