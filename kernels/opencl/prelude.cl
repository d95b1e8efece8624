/*
 * kladder OpenCL prelude, prepended to every kernel source.
 *
 * The element type comes from one build option, -DKL_T_FLOAT (default),
 * -DKL_T_DOUBLE or -DKL_T_INT, so one kernel file serves every type:
 *   T, T2, T4, T8      scalar and vector element types
 *   DOT4(a, b)         dot product of two T4 (dot() for floating types,
 *                      spelled out for int, which has no dot())
 *   DOT8(a, b)         dot product of two T8 (OpenCL's dot() stops at 4)
 */
#ifndef KLADDER_PRELUDE
#define KLADDER_PRELUDE

#if defined(KL_T_DOUBLE)
#ifndef __CUDACC__ /* OpenCL pragmas mean nothing to CUDA */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
typedef double T;
typedef double2 T2;
typedef double4 T4;
typedef double8 T8;
#define DOT4(a, b) dot((a), (b))
#elif defined(KL_T_INT)
typedef int T;
typedef int2 T2;
typedef int4 T4;
typedef int8 T8;
#define DOT4(a, b) ((a).x * (b).x + (a).y * (b).y + (a).z * (b).z + (a).w * (b).w)
#else
typedef float T;
typedef float2 T2;
typedef float4 T4;
typedef float8 T8;
#define DOT4(a, b) dot((a), (b))
#endif

#define DOT8(a, b) (DOT4((a).lo, (b).lo) + DOT4((a).hi, (b).hi))

/*
 * Pixels, for image workloads: -DKL_PIX_FLOAT (one float channel, default)
 * or -DKL_PIX_UCHAR4 (four 8-bit channels). Arithmetic is always in float:
 *   P          a pixel as stored;  F  a pixel in float (float or float4)
 *   PIX_IN(p)  P -> F;  PIX_OUT(f)  F -> P (uchar4: rounded once, saturated)
 */
#if defined(KL_PIX_UCHAR4)
typedef uchar4 P;
typedef float4 F;
#define PIX_IN(p) convert_float4(p)
#define PIX_OUT(f) convert_uchar4_sat_rte(f)
#else
typedef float P;
typedef float F;
#define PIX_IN(p) (p)
#define PIX_OUT(f) (f)
#endif

/*
 * Vector literals, spelled through a macro so that the CUDA prelude can map
 * them (CUDA C++ has no (float4)(a, b, c, d) syntax; there it is a cast of
 * a comma expression). kernels/cuda/prelude.cuh defines its own.
 *   VEC2(type, a, b)   VEC4(type, a, b, c, d)   VEC8(type, a ... h)
 *   VEC16(type, a ... p)
 */
#ifndef __CUDACC__
#define VEC2(type, a, b) ((type)((a), (b)))
#define VEC4(type, a, b, c, d) ((type)((a), (b), (c), (d)))
#define VEC8(type, a, b, c, d, e, f, g, h) ((type)((a), (b), (c), (d), (e), (f), (g), (h)))
#define VEC16(type, a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p)                              \
    ((type)((a), (b), (c), (d), (e), (f), (g), (h), (i), (j), (k), (l), (m), (n), (o), (p)))
#endif

#endif /* KLADDER_PRELUDE */
