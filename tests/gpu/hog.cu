// Holds all but KEEP MiB of the GPU's free memory until killed, so that a
// kladder run beside it meets a device with little memory free:
//   hog KEEP_MIB    prints "held N MiB, FREE MiB free" once it holds them.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    size_t keep = (argc > 1 ? strtoull(argv[1], nullptr, 10) : 4096) << 20, free_b, total;
    void *p;
    if (cudaMemGetInfo(&free_b, &total) != cudaSuccess || free_b <= keep ||
        cudaMalloc(&p, free_b - keep) != cudaSuccess) {
        fprintf(stderr, "hog: cannot hold the memory\n");
        return 1;
    }
    cudaMemGetInfo(&free_b, &total);
    printf("held, %zu MiB free\n", free_b >> 20);
    fflush(stdout);
    pause();
    return 0;
}
