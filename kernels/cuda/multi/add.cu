/*
 * Multi-GPU GEMM (multi/summa.c): C += T, the accumulation of SUMMA's panel
 * products. The GEMM rungs compute C = A*B without accumulating, so every
 * panel after the first is multiplied into a scratch block T and added here.
 *
 * Computes   c[x] += t[x] for 0 <= x < n (floats), both buffers 16-byte
 *            aligned (each is a device allocation of its own).
 * Geometry:  1-D, any block size; a grid-stride loop over float4 pieces,
 *            then the n % 4 last elements one by one.
 * Traffic:   12 bytes per element (read c and t, write c), the price of
 *            accumulating outside the rung's kernel.
 */
extern "C" __global__ void add(float *__restrict__ c, const float *__restrict__ t, const int n)
{
    const int stride = gridDim.x * blockDim.x, first = blockIdx.x * blockDim.x + threadIdx.x;
    const int n4 = n / 4;
    float4 *c4 = reinterpret_cast<float4 *>(c);
    const float4 *t4 = reinterpret_cast<const float4 *>(t);
    for (int x = first; x < n4; x += stride) {
        float4 a = c4[x];
        const float4 b = t4[x];
        a.x += b.x, a.y += b.y, a.z += b.z, a.w += b.w;
        c4[x] = a;
    }
    for (int x = 4 * n4 + first; x < n; x += stride)
        c[x] += t[x];
}
