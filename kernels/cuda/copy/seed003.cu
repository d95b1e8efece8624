/*
 * Copy ladder, rungs "seed_ilpK" (CUDA only: the article's own CUDA kernel,
 * compiled by NVRTC as it is written, with no OpenCL prelude).
 *
 * Computes   d_b[e] = d_a[e] for 0 <= e < N (int elements).
 * Geometry:  the article's: blocks of BLOCKSIZE = 512 / ILP threads,
 *            iDivUp(N / ILP, BLOCKSIZE) blocks; thread t of block b copies
 *            tid + j * blockDim.x for j < ILP, tid = t + b * blockDim.x * ILP.
 *            ILP is a kernel argument, as in the article.
 * Sizes:     the article's kernel returns only when tid >= N and then
 *            touches tid + j * blockDim.x unchecked: it reads and writes past
 *            the end unless N is a multiple of BLOCKSIZE * ILP (= 512). The
 *            rung therefore runs only at such N (every N of the article's
 *            sweep) and is skipped otherwise; the ilpK rungs are the fixed
 *            version for any N.
 * Change:    rung ilp1 is this kernel made safe for any N in OpenCL C; here is
 *            the article's own CUDA source, ILP a kernel argument, built by
 *            NVRTC as written, so that the reader sees what the seed itself
 *            measured. Its rungs differ from one another in ILP and the
 *            block size alone.
 * Bandwidth: the article's (2 * 4 * N) bytes per launch, each launch timed
 *            with CUDA events (its TimingGPU did the same).
 */
extern "C" __global__ void ILPKernel(const int *__restrict__ d_a, int *__restrict__ d_b,
                                     const int ILP, const int N)
{
    const int tid = threadIdx.x + blockIdx.x * blockDim.x * ILP;
    if (tid >= N) return;
    for (int j = 0; j < ILP; j++) d_b[tid + j * blockDim.x] = d_a[tid + j * blockDim.x];
}
