/*
 * A blur rung's kernel beside copies of the same bytes, in one process on one
 * GPU (not a test). Float pixels, rung 10_tile (default), 09_async, 12_regblock or
 * 14_mma_split:
 *
 *   nvcc -arch=sm_90 -O3 -std=c++17 -DRAD=6 [-DRUNG=9|12|14] [-DPX=..] \
 *       [-DWY=.. -DRY=.. | -DBX=.. -DSY=.. -DST=.. | -DTW=.. -DRX=.. -DCH=.. -DCY=.. -DSH=.. \
 *        -DNT=.. | -DWX=.. -DSH=.. -DMB=.. -DSA=..] \
 *       -o /tmp/blur_vs_copy bench/blur_vs_copy.cu && /tmp/blur_vs_copy [W H]
 *
 * A W × H picture (default 4096 × 4096); each kernel timed by CUDA events,
 * the median of 60 launches, the better of two rounds. The copies: a
 * grid-stride float4 loop and one-shot copies of 1, 2 and 4 float4 per
 * thread. The blur is checked at 20000 random pixels and along all four edges
 * against a separable sum in double (σ = RAD/3, clamped edges). It answers
 * what share of a copy's speed the blur reaches at the size the ladder uses,
 * where copies themselves stay below the ceiling `kladder peak` measures on
 * larger buffers.
 */
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#if defined(RUNG) && RUNG == 9
#include "../kernels/cuda/blur/09_async.cu"
#elif defined(RUNG) && RUNG == 12
#include "../kernels/cuda/blur/12_regblock.cu"
#elif defined(RUNG) && RUNG == 14
#include "../kernels/cuda/blur/14_mma_split.cu"
typedef float P;
#else
#include "../kernels/cuda/blur/10_tile.cu"
#endif

__global__ void copy_gs(const float4 *a, float4 *b, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        b[i] = a[i];
}

template <int K> __global__ void copy_k(const float4 *__restrict__ a, float4 *__restrict__ b, size_t n)
{
    const size_t base = blockIdx.x * (size_t)blockDim.x * K + threadIdx.x;
    float4 v[K];
#pragma unroll
    for (int k = 0; k < K; k++)
        if (base + k * blockDim.x < n)
            v[k] = a[base + k * blockDim.x];
#pragma unroll
    for (int k = 0; k < K; k++)
        if (base + k * blockDim.x < n)
            b[base + k * blockDim.x] = v[k];
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
    for (int r = 0; r < 60; r++) {
        cudaEventRecord(a);
        launch();
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        float ms = 0;
        cudaEventElapsedTime(&ms, a, b);
        t.push_back(ms);
    }
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

int main(int argc, char **argv)
{
    const int W = argc > 1 ? atoi(argv[1]) : 4096, H = argc > 2 ? atoi(argv[2]) : 4096, R = RAD;
    if (W < 1 || H < 1) {
        fprintf(stderr, "usage: %s [W H], both at least 1\n", argv[0]);
        return 2;
    }
    const double sigma = R > 0 ? R / 3.0 : 1.0;
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
    char cfg[96];
#if defined(RUNG) && RUNG == 9
    const dim3 block(BX), grid(((W + NPX - 1) / NPX + BX - 1) / BX, (H + SY - 1) / SY);
    const size_t shared = (size_t)ST * ROW * 4;
    snprintf(cfg, sizeof cfg, "09_async BX=%d PX=%d (NPX=%d) SY=%d ST=%d", BX, PX, NPX, SY, ST);
#elif defined(RUNG) && RUNG == 12
    const dim3 block(NT), grid((W + TW - 1) / TW, (H + SH - 1) / SH);
    const size_t shared = (size_t)4 * (2 * CH * ROWP + (NR + 2 * RAD) * TWP);
    snprintf(cfg, sizeof cfg, "12_regblock TW=%d RX=%d CH=%d CY=%d SH=%d NT=%d", TW, RX, CH, CY,
             SH, NT);
#elif defined(RUNG) && RUNG == 14
    const dim3 block(32 * WX), grid((W + 16 * WX - 1) / (16 * WX), (H + SH - 1) / SH);
    const size_t shared = 0;
    snprintf(cfg, sizeof cfg, "14_mma_split WX=%d SH=%d MB=%d", WX, SH, MB);
#else
    const dim3 block(32, WY), grid((W + SPAN - 1) / SPAN, (H + TH - 1) / TH);
    const size_t shared = (size_t)NS * ROW * 4;
    snprintf(cfg, sizeof cfg, "10_tile WY=%d RY=%d PX=%d (NPX=%d)", WY, RY, PX, NPX);
#endif
    CHECK(cudaFuncSetAttribute(blur_fused, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               (int)shared));
    auto blur = [&] { blur_fused<<<grid, block, shared>>>((const P *)src, (P *)dst, W, H, dw); };

    CHECK(cudaMemset(dst, 0xff, n * 4));
    blur();
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out.data(), dst, n * 4, cudaMemcpyDeviceToHost));
    auto err = [&](int x, int y) {
        double acc = 0;
        for (int j = -R; j <= R; j++) {
            const int yy = std::min(std::max(y + j, 0), H - 1);
            double h = 0;
            for (int i = -R; i <= R; i++)
                h += w[i + R] * (double)in[(size_t)yy * W + std::min(std::max(x + i, 0), W - 1)];
            acc += w[j + R] * h;
        }
        const double d = fabs(acc - out[(size_t)y * W + x]);
        return d == d ? d : INFINITY;
    };
    double maxerr = 0;
    srand(7);
    for (int k = 0; k < 20000; k++)
        maxerr = std::max(maxerr, err(rand() % W, rand() % H));
    for (int x = 0; x < W; x++)
        maxerr = std::max({maxerr, err(x, 0), err(x, H - 1)});
    for (int y = 0; y < H; y++)
        maxerr = std::max({maxerr, err(0, y), err(W - 1, y)});

    const size_t n4 = n / 4; /* the copies move the whole float4s of the picture */
    const unsigned b1 = (unsigned)((n4 + 255) / 256), b2 = (unsigned)((n4 + 511) / 512),
                   b4 = (unsigned)((n4 + 1023) / 1024);
    const char *names[5] = {"blur", "gs", "k1", "k2", "k4"};
    float t[5] = {1e30f, 1e30f, 1e30f, 1e30f, 1e30f};
    for (int round = 0; round < 2; round++) {
        t[0] = std::min(t[0], median_ms(blur));
        if (n4 == 0)
            continue;
        t[1] = std::min(t[1], median_ms([&] { copy_gs<<<132 * 16, 256>>>((const float4 *)src, (float4 *)dst, n4); }));
        t[2] = std::min(t[2], median_ms([&] { copy_k<1><<<b1, 256>>>((const float4 *)src, (float4 *)dst, n4); }));
        t[3] = std::min(t[3], median_ms([&] { copy_k<2><<<b2, 256>>>((const float4 *)src, (float4 *)dst, n4); }));
        t[4] = std::min(t[4], median_ms([&] { copy_k<4><<<b4, 256>>>((const float4 *)src, (float4 *)dst, n4); }));
    }
    CHECK(cudaGetLastError());
    const double gb = 2.0 * n * 4 / 1e9;
    const float best = *std::min_element(t + 1, t + 5);
    printf("%s R=%d %dx%d:", cfg, R, W, H);
    for (int k = 0; k < 5; k++)
        if (t[k] < 1e30f)
            printf(" %s %.0f GB/s%s", names[k], gb / t[k] * 1e3, k ? "" : " |");
    printf(" | blur/best copy %.3f | max error %.2e%s\n", best < 1e30f ? best / t[0] : 0.0, maxerr,
           maxerr < 1e-5 ? "" : "  WRONG");
    return maxerr < 1e-5 ? 0 : 1;
}
