/*
 * kladder OpenCL prelude, prepended to every kernel source.
 *
 * The element type comes from one build option (src/core/params.c), so one
 * kernel file serves every type: -DKL_T_FLOAT (default), -DKL_T_DOUBLE and
 * -DKL_T_INT, whose inputs and sums share one type, and the narrow input
 * types -DKL_T_HALF, -DKL_T_BF16, -DKL_T_FP8 (OCP e4m3), -DKL_T_FP8E5M2 and
 * -DKL_T_INT8, whose products are summed in float (int for int8); and
 * -DKL_T_UCHAR, bytes, counted or summed in uint:
 *   TA                 how A and B are stored: half (read with vload_half,
 *                      core OpenCL without cl_khr_fp16), ushort (bf16's
 *                      bits), uchar (fp8s' bits; uchar's bytes), char
 *                      (int8); T otherwise
 *   T, T2, T4, T8      the sums' (and C's) scalar and vector types: float
 *                      for half, bf16 and the fp8s, int for int8, uint for
 *                      uchar, the element type itself for float, double
 *                      and int
 *   KL_SUM_INT         defined where T is an integer (int, int8, uchar)
 *   LD(p, i)           element i of a TA array (any address space) as a T;
 *                      p[i] where TA is T, so those kernels are unchanged
 *   LD4(o, p), LD8(o, p)  elements 4o..4o+3 (8o..8o+7) of a __global TA
 *                      array as a T4 (T8), as vload4/vload8 (element
 *                      alignment is enough)
 *   LD4A(p)            the 4 elements at p (__global, 4-element aligned) as
 *                      a T4: one vector load, *(const __global T4 *)p where
 *                      TA is T
 *   DOT4(a, b)         dot product of two T4 (dot() for floating types,
 *                      spelled out for int, which has no dot())
 *   DOT8(a, b)         dot product of two T8 (OpenCL's dot() stops at 4)
 * The fp8 and bf16 decoders are exact and handle subnormals; e4m3's
 * S.1111.111 is its NaN (it has no infinity), e5m2's top exponent holds
 * infinities and NaNs, as in src/core/types.c.
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
#elif defined(KL_T_INT) || defined(KL_T_INT8)
#define KL_SUM_INT
typedef int T;
typedef int2 T2;
typedef int4 T4;
typedef int8 T8;
#define DOT4(a, b) ((a).x * (b).x + (a).y * (b).y + (a).z * (b).z + (a).w * (b).w)
#elif defined(KL_T_UCHAR)
#define KL_SUM_INT
typedef uint T;
typedef uint2 T2;
typedef uint4 T4;
typedef uint8 T8;
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

/* ---- the inputs' storage, and their values as T --------------------------- */

#if defined(KL_T_FP8) || defined(KL_T_FP8E5M2)
/* e4m3: bias 7, subnormals m * 2^-9, S.1111.111 NaN, no infinity. */
inline float kl_fp8e4m3(uint x)
{
    const uint e = (x >> 3) & 15u, m = x & 7u;
    float a = e == 0 ? (float)m * 0x1p-9f : as_float(((x & 0x7fu) << 20) + (120u << 23));
    if (e == 15 && m == 7)
        a = as_float(0x7fc00000u);
    return x & 0x80u ? -a : a;
}
/* e5m2: bias 15, subnormals m * 2^-16, exponent 31 infinities (m = 0) and NaNs. */
inline float kl_fp8e5m2(uint x)
{
    const uint e = (x >> 2) & 31u, m = x & 3u;
    float a = e == 0    ? (float)m * 0x1p-16f
              : e == 31 ? as_float(0x7f800000u | (m << 21))
                        : as_float(((x & 0x7fu) << 21) + (112u << 23));
    return x & 0x80u ? -a : a;
}
#endif

#if defined(KL_T_HALF)
typedef half TA;
#define LD(p, i) vload_half((i), (p))
#define LD4(o, p) vload_half4((o), (p))
#define LD8(o, p) vload_half8((o), (p))
#define LD4A(p) vloada_half4(0, (p))
#elif defined(KL_T_BF16)
typedef ushort TA;
/* bf16 bits into floats, the vector passed by value: the CUDA prelude then loads it as one
   access (convert_uint4 of the dereferenced pointer read it an element at a time) */
inline float4 kl_bf16x4(ushort4 v)
{
    return as_float4(convert_uint4(v) << 16);
}
inline float8 kl_bf16x8(ushort8 v)
{
    return as_float8(convert_uint8(v) << 16);
}
#define LD(p, i) as_float((uint)(p)[i] << 16)
#define LD4(o, p) kl_bf16x4(vload4((o), (p)))
#define LD8(o, p) kl_bf16x8(vload8((o), (p)))
#define LD4A(p) kl_bf16x4(*(const __global ushort4 *)(p))
#elif defined(KL_T_FP8) || defined(KL_T_FP8E5M2)
typedef uchar TA;
#if defined(KL_T_FP8)
#define KL_FP8_VALUE kl_fp8e4m3
#else
#define KL_FP8_VALUE kl_fp8e5m2
#endif
inline float4 kl_fp8x4(uchar4 v)
{
    return VEC4(float4, KL_FP8_VALUE(v.x), KL_FP8_VALUE(v.y), KL_FP8_VALUE(v.z), KL_FP8_VALUE(v.w));
}
inline float8 kl_fp8x8(uchar8 v)
{
    float8 r;
    r.lo = kl_fp8x4(v.lo);
    r.hi = kl_fp8x4(v.hi);
    return r;
}
#define LD(p, i) KL_FP8_VALUE((p)[i])
#define LD4(o, p) kl_fp8x4(vload4((o), (p)))
#define LD8(o, p) kl_fp8x8(vload8((o), (p)))
#define LD4A(p) kl_fp8x4(*(const __global uchar4 *)(p))
#elif defined(KL_T_INT8)
typedef char TA;
#define LD(p, i) ((int)(p)[i])
#define LD4(o, p) convert_int4(vload4((o), (p)))
#define LD8(o, p) convert_int8(vload8((o), (p)))
#define LD4A(p) convert_int4(*(const __global char4 *)(p))
#elif defined(KL_T_UCHAR)
typedef uchar TA;
#define LD(p, i) ((uint)(p)[i])
#define LD4(o, p) convert_uint4(vload4((o), (p)))
#define LD8(o, p) convert_uint8(vload8((o), (p)))
#define LD4A(p) convert_uint4(*(const __global uchar4 *)(p))
#else
typedef T TA;
#define LD(p, i) ((p)[i])
#define LD4(o, p) vload4((o), (p))
#define LD8(o, p) vload8((o), (p))
#define LD4A(p) (*(const __global T4 *)(p))
#endif

/*
 * Floats stored as elements (kernels/opencl/softmax), for float, half and
 * bf16: rounded to nearest even where the element is narrower.
 *   ST(v, i, p)     element i of a __global TA array set to the float v
 *   ST4(v, o, p)    elements 4o..4o+3 set to the float4 v (element
 *                   alignment is enough, as vstore4)
 *   ST4A(v, p)      the 4 elements at p (__global, 4-element aligned) set
 *                   to v: one vector store, as LD4A loads
 */
#if defined(KL_T_HALF)
#define ST(v, i, p) vstore_half_rte((v), (i), (p))
#define ST4(v, o, p) vstore_half4_rte((v), (o), (p))
#define ST4A(v, p) vstorea_half4_rte((v), 0, (p))
#elif defined(KL_T_BF16)
inline ushort kl_bf16_bits(float f)
{
    const uint u = as_uint(f);
    return (ushort)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
#if !defined(KL_BF16X4_BITS) /* the CUDA prelude has its own: two an instruction */
inline ushort4 kl_bf16x4_bits(float4 v)
{
    return VEC4(ushort4, kl_bf16_bits(v.x), kl_bf16_bits(v.y), kl_bf16_bits(v.z),
                kl_bf16_bits(v.w));
}
#endif
#define ST(v, i, p) ((p)[i] = kl_bf16_bits(v))
#define ST4(v, o, p) vstore4(kl_bf16x4_bits(v), (o), (p))
#define ST4A(v, p) (*(__global ushort4 *)(p) = kl_bf16x4_bits(v))
#else
#define ST(v, i, p) ((p)[i] = (v))
#define ST4(v, o, p) vstore4((v), (o), (p))
#define ST4A(v, p) (*(__global T4 *)(p) = (v))
#endif

/*
 * Elements moved, never computed (kernels/opencl/transpose): an element's
 * bits, whatever its type, so a 2-byte element needs no half arithmetic.
 *   EL              one element: ushort for half and bf16, T otherwise
 *   ELV, ELV_N      16 bytes of elements as one vector, and how many
 *   ELV_LOAD(o, p)  vector o of a __global EL array (element alignment is
 *                   enough, as vloadN)
 *   ELV_STORE(v, o, p)  its store
 */
#if defined(KL_T_DOUBLE)
typedef double EL;
typedef double2 ELV;
#define ELV_N 2
#define ELV_LOAD(o, p) vload2((o), (p))
#define ELV_STORE(v, o, p) vstore2((v), (o), (p))
#elif defined(KL_T_HALF) || defined(KL_T_BF16)
typedef ushort EL;
typedef ushort8 ELV;
#define ELV_N 8
#define ELV_LOAD(o, p) vload8((o), (p))
#define ELV_STORE(v, o, p) vstore8((v), (o), (p))
#else
typedef T EL;
typedef T4 ELV;
#define ELV_N 4
#define ELV_LOAD(o, p) vload4((o), (p))
#define ELV_STORE(v, o, p) vstore4((v), (o), (p))
#endif

/*
 * Reductions (kernels/opencl/reduce), one operation chosen by a build
 * option: -DKL_OP_SUM, -DKL_OP_MIN or -DKL_OP_MAX.
 *   R, R4         the values reduced: T, except that int sums run in uint,
 *                 the same bits, because C promises wrapping modulo 2^32
 *                 to unsigned arithmetic only
 *   OP(a, b)      the operation on two R
 *   IDENTITY      the R that OP leaves unchanged: 0, +inf or -inf (float,
 *                 double), INT_MAX or INT_MIN (int)
 *   SUB_GROUP_OP  the operation over a sub-group (cl_khr_subgroups; warps
 *                 on CUDA), every work-item of it getting the result
 *   kl_part_store(part, i, v), kl_part_load(part, i)
 *                 element i of a global R array through 32-bit atomics (a
 *                 double as its two words): how one work-group hands a value
 *                 to another in OpenCL 1.x, whose plain loads and stores
 *                 are ordered only within a work-group
 */
#if defined(KL_OP_SUM) || defined(KL_OP_MIN) || defined(KL_OP_MAX)
#if defined(KL_T_INT) && defined(KL_OP_SUM)
typedef uint R;
typedef uint4 R4;
#else
typedef T R;
typedef T4 R4;
#endif
#if defined(KL_T_DOUBLE)
#define KL_R_HUGE as_double(0x7ff0000000000000UL)
#define KL_R_LOW (-KL_R_HUGE)
#elif defined(KL_T_INT)
#define KL_R_HUGE 0x7fffffff
#define KL_R_LOW (-0x7fffffff - 1)
#else
#define KL_R_HUGE as_float(0x7f800000u)
#define KL_R_LOW (-KL_R_HUGE)
#endif
#if defined(KL_OP_SUM)
#define OP(a, b) ((a) + (b))
#define IDENTITY ((R)0)
#define SUB_GROUP_OP(x) sub_group_reduce_add(x)
#elif defined(KL_OP_MIN)
#define OP(a, b) ((b) < (a) ? (b) : (a))
#define IDENTITY ((R)KL_R_HUGE)
#define SUB_GROUP_OP(x) sub_group_reduce_min(x)
#else
#define OP(a, b) ((b) > (a) ? (b) : (a))
#define IDENTITY ((R)KL_R_LOW)
#define SUB_GROUP_OP(x) sub_group_reduce_max(x)
#endif
#if defined(KL_T_DOUBLE)
inline void kl_part_store(__global R *part, uint i, R v)
{
    const uint2 w = as_uint2(v);
    atomic_xchg((volatile __global uint *)part + 2 * i, w.x);
    atomic_xchg((volatile __global uint *)part + 2 * i + 1, w.y);
}
inline R kl_part_load(__global R *part, uint i)
{
    const uint lo = atomic_or((volatile __global uint *)part + 2 * i, 0u);
    const uint hi = atomic_or((volatile __global uint *)part + 2 * i + 1, 0u);
    return as_double(VEC2(uint2, lo, hi));
}
#else
#if defined(KL_T_INT) && defined(KL_OP_SUM)
#define KL_AS_R(w) (w)
#elif defined(KL_T_INT)
#define KL_AS_R(w) as_int(w)
#else
#define KL_AS_R(w) as_float(w)
#endif
inline void kl_part_store(__global R *part, uint i, R v)
{
    atomic_xchg((volatile __global uint *)part + i, as_uint(v));
}
inline R kl_part_load(__global R *part, uint i)
{
    return KL_AS_R(atomic_or((volatile __global uint *)part + i, 0u));
}
#endif
#endif

/*
 * Scans (kernels/opencl/scan): the sums run in R (-DKL_OP_SUM above).
 *   KL_SCAN_OUT(before, x)  element x's result from the sum of the elements
 *                           before it: that sum (-DKL_EXCLUSIVE), or that
 *                           sum plus x (inclusive, the default)
 *   KL_LOCAL_ARG            a __local pointer parameter of a helper
 *                           function (CUDA's prelude: a generic pointer)
 *   KL_WORD_LOAD(p)         a 64-bit word another work-group publishes
 */
#ifdef KL_EXCLUSIVE
#define KL_SCAN_OUT(before, x) (before)
#else
#define KL_SCAN_OUT(before, x) ((before) + (x))
#endif
#ifndef KL_LOCAL_ARG
#define KL_LOCAL_ARG __local
#endif
/* KL_WORD_LOAD(p): a __global 64-bit word that another work-group publishes with atom_xchg,
   read whole: atom_add(p, 0) (cl_khr_int64_base_atomics; CUDA's prelude: a volatile load). */
#ifndef KL_WORD_LOAD
#define KL_WORD_LOAD(p) atom_add((volatile __global ulong *)(p), 0UL)
#endif

#endif /* KLADDER_PRELUDE */
