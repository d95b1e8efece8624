/*
 * kladder's shim over CUB's DeviceReduce, DeviceScan and DeviceHistogram:
 * the C entry points that src/peers/cub.c loads at run time (CUB is a
 * header library of templates, so a C program reaches it only through code
 * compiled by nvcc). CMake builds it as libkladder_cub.so where the CUDA
 * toolkit is found; it uses the shared CUDA runtime, the one kladder's other
 * CUDA peers load.
 *
 * Every entry point has one shape, (what, type, in, out, n, temp,
 * temp_bytes), and runs on the default stream: temp NULL asks for the
 * scratch's size only. type: 0 float, 1 double, 2 int (sums in unsigned int,
 * wrapping modulo 2^32, the same bits), 3 unsigned char. Each returns a
 * cudaError_t.
 */
#include <cub/device/device_histogram.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>

#include <stdio.h>

#define KLADDER_CUB_API extern "C" __attribute__((visibility("default")))

namespace
{

/* op 0 sum, 1 min, 2 max. */
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

template <class T>
cudaError_t scan(int exclusive, const void *in, void *out, int n, void *temp, size_t *temp_bytes)
{
    const T *x = static_cast<const T *>(in);
    T *y = static_cast<T *>(out);
    return exclusive ? cub::DeviceScan::ExclusiveSum(temp, *temp_bytes, x, y, n)
                     : cub::DeviceScan::InclusiveSum(temp, *temp_bytes, x, y, n);
}

} // namespace

/* The reduction of n elements of in into out[0]: what is the operation. */
KLADDER_CUB_API int kladder_cub_reduce(int op, int type, const void *in, void *out, int n,
                                       void *temp, size_t *temp_bytes)
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

/* The prefix sums of n elements of in into out: what 1 exclusive, 0 inclusive; float or int. */
KLADDER_CUB_API int kladder_cub_scan(int exclusive, int type, const void *in, void *out, int n,
                                     void *temp, size_t *temp_bytes)
{
    switch (type) {
    case 0: return scan<float>(exclusive, in, out, n, temp, temp_bytes);
    case 2: return scan<unsigned>(exclusive, in, out, n, temp, temp_bytes);
    default: return cudaErrorInvalidValue;
    }
}

/* The histogram of n bytes of in into what (2..256) unsigned counts in out: even bins over
   [0, 256), byte v in bin v·what/256. type must be 3. */
KLADDER_CUB_API int kladder_cub_histogram(int bins, int type, const void *in, void *out, int n,
                                          void *temp, size_t *temp_bytes)
{
    if (type != 3 || bins < 1 || bins > 256)
        return cudaErrorInvalidValue;
    return cub::DeviceHistogram::HistogramEven(temp, *temp_bytes,
                                               static_cast<const unsigned char *>(in),
                                               static_cast<unsigned *>(out), bins + 1, 0, 256, n);
}

/* "CUB 3.1.0": the headers it was compiled with. */
KLADDER_CUB_API const char *kladder_cub_version(void)
{
    static char text[32];
    snprintf(text, sizeof text, "CUB %d.%d.%d", CUB_VERSION / 100000, CUB_VERSION / 100 % 1000,
             CUB_VERSION % 100);
    return text;
}
