/*
 * Writes what an OpenCL implementation makes of one kernel file: the
 * program binary of the first GPU (on NVIDIA, PTX) to stdout and the build
 * log to stderr. For reading NVIDIA's OpenCL code generation with ptxas and
 * cuobjdump, which Nsight Compute cannot profile.
 *
 *   cc -O2 -o clptx bench/clptx.c -lOpenCL
 *   ./clptx kernels/opencl/gemm/13_double_buffer.cl "-DBM=128 ..." > k.ptx
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s FILE.cl OPTIONS\n", argv[0]);
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    static char src[1 << 20];
    size_t len = fread(src, 1, sizeof src - 1, f);
    fclose(f);
    src[len] = '\0';
    cl_platform_id plats[8];
    cl_uint np = 0;
    cl_device_id dev = NULL;
    clGetPlatformIDs(8, plats, &np);
    for (cl_uint i = 0; i < np && !dev; i++)
        if (clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_GPU, 1, &dev, NULL) != CL_SUCCESS)
            dev = NULL;
    if (!dev) {
        fprintf(stderr, "no OpenCL GPU\n");
        return 1;
    }
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    const char *s = src;
    cl_program p = clCreateProgramWithSource(ctx, 1, &s, &len, &err);
    err = clBuildProgram(p, 1, &dev, argv[2], NULL, NULL);
    size_t n = 0;
    clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &n);
    char *log = malloc(n + 1);
    clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, n, log, NULL);
    log[n] = '\0';
    fprintf(stderr, "%s\n", log);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "build failed: %d\n", err);
        return 1;
    }
    size_t size = 0;
    clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL);
    unsigned char *bin = malloc(size);
    clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL);
    fwrite(bin, 1, size, stdout);
    return 0;
}
