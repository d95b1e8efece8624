/*
 * Rung 09_async (kernels/cuda/blur/09_async.cu, float pixels) against a plain
 * float4 copy of the same bytes, in one process on one GPU (not a test):
 *
 *   nvcc -arch=sm_90 -O3 -std=c++17 -DRAD=6 [-DBX=.. -DPX=.. -DSY=.. -DST=..] \
 *       -o /tmp/blur_vs_copy bench/blur_vs_copy.cu && /tmp/blur_vs_copy
 *
 * A 4096 × 4096 picture; both kernels timed by CUDA events, the median of
 * 30 launches; the blur checked at 20000 random pixels against a separable
 * sum in double (σ = 2, clamped edges). It answers what share of a copy's
 * speed the blur reaches at the size the ladder uses, where a copy itself
 * stays below the ceiling `kladder peak` measures on larger buffers.
 */
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#include "../kernels/cuda/blur/09_async.cu"

__global__ void copy_kernel(const float4 *a, float4 *b, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        b[i] = a[i];
}

#define CHECK(x)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s: %s (line %d)\n", #x, cudaGetErrorString(e_), __LINE__);           \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

template <typename Launch> static float median_ms(Launch launch)
{
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    std::vector<float> t;
    for (int r = 0; r < 30; r++) {
        cudaEventRecord(a);
        launch();
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        float ms = 0;
        cudaEventElapsedTime(&ms, a, b);
        t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

int main()
{
    const int W = 4096, H = 4096, R = RAD;
    const double sigma = 2.0;
    const size_t n = (size_t)W * H;
    std::vector<float> in(n), out(n), w(2 * R + 1);
    for (size_t i = 0; i < n; i++)
        in[i] = (float)((i * 2654435761u) % 1000) / 1000.0f;
    double sum = 0;
    for (int i = -R; i <= R; i++)
        sum += w[i + R] = (float)exp(-(double)i * i / (2 * sigma * sigma));
    for (float &x : w)
        x = (float)(x / sum);

    float *src, *dst, *dw;
    CHECK(cudaMalloc(&src, n * 4));
    CHECK(cudaMalloc(&dst, n * 4));
    CHECK(cudaMalloc(&dw, w.size() * 4));
    CHECK(cudaMemcpy(src, in.data(), n * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dw, w.data(), w.size() * 4, cudaMemcpyHostToDevice));
    const dim3 block(BX), grid(((W + NPX - 1) / NPX + BX - 1) / BX, (H + SY - 1) / SY);
    const size_t shared = (size_t)ST * ROW * 4;
    CHECK(cudaFuncSetAttribute(blur_fused, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               (int)shared));
    auto blur = [&] { blur_fused<<<grid, block, shared>>>((const P *)src, (P *)dst, W, H, dw); };
    auto copy = [&] { copy_kernel<<<132 * 16, 256>>>((const float4 *)src, (float4 *)dst, n / 4); };

    CHECK(cudaMemset(dst, 0xff, n * 4));
    blur();
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out.data(), dst, n * 4, cudaMemcpyDeviceToHost));
    double maxerr = 0;
    srand(7);
    for (int k = 0; k < 20000; k++) {
        const int x = rand() % W, y = rand() % H;
        double acc = 0;
        for (int j = -R; j <= R; j++) {
            const int yy = std::min(std::max(y + j, 0), H - 1);
            double h = 0;
            for (int i = -R; i <= R; i++)
                h += w[i + R] * (double)in[(size_t)yy * W + std::min(std::max(x + i, 0), W - 1)];
            acc += w[j + R] * h;
        }
        maxerr = std::max(maxerr, fabs(acc - out[(size_t)y * W + x]));
    }
    const float tb = median_ms(blur), tc = median_ms(copy);
    const double gb = 2.0 * n * 4 / 1e9;
    printf("BX=%d PX=%d (NPX=%d) SY=%d ST=%d R=%d: blur %.4f ms %.0f GB/s | copy %.4f ms %.0f GB/s "
           "| blur/copy %.3f | max error %.2e%s\n",
           BX, PX, NPX, SY, ST, R, tb, gb / tb * 1e3, tc, gb / tc * 1e3, tc / tb, maxerr,
           maxerr < 1e-5 ? "" : "  WRONG");
    return maxerr < 1e-5 ? 0 : 1;
}
