/*
 * kladder CUDA prelude: OpenCL C kernels compiled as CUDA C++ by NVRTC.
 *
 * The CUDA source of a kernel is this file, kernels/opencl/prelude.cl, a
 * "#line 1" and the kernel file, compiled with -std=c++17 for one real
 * architecture (src/backend/nvrtc.c). So the OpenCL kernels run unchanged;
 * this file maps what they use:
 *
 *   OpenCL C                          CUDA C++
 *   __kernel                          extern "C" __global__ (unmangled entry names)
 *   __global, __private               nothing (generic pointers)
 *   __local (kernel-scope arrays)     __shared__
 *   __constant (pointer parameters)   const: global memory read through the
 *                                     read-only cache; CUDA's constant bank
 *                                     holds module variables, not parameters
 *   restrict                          __restrict__
 *   reqd_work_group_size(X, Y, Z)     launch_bounds(X * Y * Z)
 *   get_global_id, get_local_id ...   blockIdx, threadIdx, blockDim, gridDim
 *   barrier(flags)                    __syncthreads()
 *   mem_fence(flags)                  __threadfence() (global), __threadfence_block()
 *   uchar, ushort, uint, ulong        unsigned char ... unsigned long long (64-bit)
 *   float4, int8, uint16 ...          kl_vec<S, N>, our own vector type (below)
 *   (float4)(a, b, c, d)              not C++: kernels write VEC4(float4, a, b, c, d)
 *   vloadN, vstoreN                   a vector access where the address allows one
 *   sub-groups                        warps of 32 lanes
 *   atomic_add (32-bit int, uint)     atomicAdd, on global or local memory
 *   atomic_xchg, atomic_or (uint)     atomicExch, atomicOr
 *   atom_add, atom_xchg (64-bit ulong) atomicAdd, atomicExch (cl_khr_int64_base_atomics)
 *   half (storage only, no fp16)      kl_half, 16 bits that only vload_half reads
 *   vload_half, vload_halfN           PTX cvt.f32.f16 of each 16-bit element
 *   vloada_half4, vstorea_half4_rte   one 8-byte access, no alignment test
 *   as_float(uint)                    __uint_as_float (as_<type> in general: memcpy)
 *
 * Vector types. CUDA's own float4 & co. lack operators, .lo/.hi and .s0-.sf,
 * and stop at four components, so every OpenCL vector name is a macro for a
 * kl_vec<S, N> (N = 2, 4, 8, 16): a union of the element array e[N] with the
 * OpenCL component names, aligned to its size as in OpenCL (float2 8 bytes,
 * float4 16, float8 32 ...), so that loads through a vector pointer stay single
 * vector instructions. Operators work element-wise between vectors and between
 * a vector and a scalar of its element type, as in OpenCL. A scalar converts
 * to a vector by broadcast: T4 acc = 0; (uint2)(0).
 *
 * Differences from OpenCL C that a kernel can meet:
 *  - A vector literal (float4)(a, b, c, d) is, in C++, a cast of the comma
 *    expression (a, b, c, d), that is a broadcast of d. Kernels spell literals
 *    VEC2/VEC4/VEC8/VEC16(type, ...), which both preludes define; NVRTC is
 *    run with --diag-error=174 so that the comma form fails to compile
 *    ("expression has no effect") rather than computing the wrong value.
 *  - vloadN/vstoreN accept any element-aligned address, as in OpenCL. CUDA
 *    faults on a misaligned vector access, so a whole-vector access is made
 *    only when the address is aligned to the vector's size (or, for vectors
 *    over 16 bytes, 16-byte pieces when it is 16-byte aligned), and only in
 *    global or shared memory; otherwise the elements are accessed one by one.
 *    Pointer casts such as (float4 *)p need an aligned p, as in OpenCL.
 *  - The vector type names are macros, so a name pasted together from float4
 *    is pasted from its expansion: paste convert_ to the scalar name, then the
 *    width (KL_CAT(KL_CAT(convert_, float), 4)), not convert_ to float4.
 *  - A sub-group is a warp: get_max_sub_group_size() is 32; the last warp of a
 *    work-group whose size is not a multiple of 32 is a smaller sub-group.
 *    Sub-group functions must be reached by the whole sub-group (OpenCL's rule
 *    as well).
 *  - Functions without __device__ (an OpenCL kernel's helpers) are device
 *    functions: NVRTC runs with -default-device.
 *  - Not mapped: images and samplers (the device reports no image support, so
 *    image rungs are skipped), 3-component vectors, swizzles other than .x .y
 *    .z .w, .s0-.sf (lower case), .lo and .hi, vector comparisons and
 *    relational functions, half arithmetic (half is storage read through
 *    vload_half(a) and written through vstore(a)_half_rte(4), as in OpenCL
 *    without cl_khr_fp16),
 *    get_work_dim, and __local pointer parameters (a helper function spells
 *    one KL_LOCAL_ARG, prelude.cl). Scalar shifts keep C++
 *    semantics (a count at or above the width is undefined; vector shifts
 *    mask the count as OpenCL does).
 */
#ifndef KLADDER_CUDA_PRELUDE
#define KLADDER_CUDA_PRELUDE

/* ---- Qualifiers and attributes ------------------------------------------ */

#define __kernel extern "C" __global__
#define __global
#define __private
#define __local __shared__
#define KL_LOCAL_ARG /* a __local pointer parameter (prelude.cl): a generic pointer here */
/* A 64-bit word another block publishes (prelude.cl's scans): one volatile load, which NVIDIA
   GPUs make single-copy atomic, rather than a read-modify-write that every block polling the
   same word would queue behind. */
#define KL_WORD_LOAD(p) (*(volatile ulong *)(p))
#define __constant const
#define restrict __restrict__
#define reqd_work_group_size(x, y, z) launch_bounds((x) * (y) * (z))

/* The OpenCL C 3.0 feature macro: sub-groups are warps (see below). */
#define __opencl_c_subgroups 1

/* ---- Scalar types --------------------------------------------------------- */

typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long long ulong;
static_assert(sizeof(long) == 8 && sizeof(ulong) == 8, "OpenCL's long and ulong are 64-bit");
static_assert((char)-1 < 0, "OpenCL's char is signed (int8 inputs are read through it)");

/* ---- Work-item functions -------------------------------------------------- */

__device__ __forceinline__ size_t get_local_id(uint d)
{
    return d == 0 ? threadIdx.x : d == 1 ? threadIdx.y : d == 2 ? threadIdx.z : 0;
}
__device__ __forceinline__ size_t get_local_size(uint d)
{
    return d == 0 ? blockDim.x : d == 1 ? blockDim.y : d == 2 ? blockDim.z : 1;
}
__device__ __forceinline__ size_t get_group_id(uint d)
{
    return d == 0 ? blockIdx.x : d == 1 ? blockIdx.y : d == 2 ? blockIdx.z : 0;
}
__device__ __forceinline__ size_t get_num_groups(uint d)
{
    return d == 0 ? gridDim.x : d == 1 ? gridDim.y : d == 2 ? gridDim.z : 1;
}
__device__ __forceinline__ size_t get_global_id(uint d)
{
    return get_group_id(d) * get_local_size(d) + get_local_id(d);
}
__device__ __forceinline__ size_t get_global_size(uint d)
{
    return get_num_groups(d) * get_local_size(d);
}
__device__ __forceinline__ size_t get_global_offset(uint) { return 0; }
__device__ __forceinline__ size_t get_local_linear_id()
{
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
__device__ __forceinline__ size_t get_enqueued_local_size(uint d) { return get_local_size(d); }

/* ---- Synchronisation ------------------------------------------------------ */

#define CLK_LOCAL_MEM_FENCE 1
#define CLK_GLOBAL_MEM_FENCE 2

/* __syncthreads() orders global and shared memory within the block. */
__device__ __forceinline__ void barrier(int) { __syncthreads(); }
__device__ __forceinline__ void work_group_barrier(int) { __syncthreads(); }
/* A fence over global memory orders it as every block sees it (a one-pass reduction's last
   block reads what the others wrote before their atomic); over local memory, for the block. */
__device__ __forceinline__ void mem_fence(int flags)
{
    if (flags & CLK_GLOBAL_MEM_FENCE)
        __threadfence();
    else
        __threadfence_block();
}
__device__ __forceinline__ void read_mem_fence(int flags) { mem_fence(flags); }
__device__ __forceinline__ void write_mem_fence(int flags) { mem_fence(flags); }

/* ---- Atomics ------------------------------------------------------------- */

/* OpenCL 1.1's atomic_add on a 32-bit integer in global or local memory: the old value. */
__device__ __forceinline__ uint atomic_add(volatile uint *p, uint v)
{
    return atomicAdd((uint *)p, v);
}
__device__ __forceinline__ int atomic_add(volatile int *p, int v)
{
    return atomicAdd((int *)p, v);
}
/* atomic_xchg and atomic_or on a 32-bit uint (a reduction's partial results). */
__device__ __forceinline__ uint atomic_xchg(volatile uint *p, uint v)
{
    return atomicExch((uint *)p, v);
}
__device__ __forceinline__ uint atomic_or(volatile uint *p, uint v)
{
    return atomicOr((uint *)p, v);
}
/* cl_khr_int64_base_atomics' atom_add and atom_xchg on a 64-bit ulong (a scan's tile words). */
__device__ __forceinline__ ulong atom_add(volatile ulong *p, ulong v)
{
    return atomicAdd((ulong *)p, v);
}
__device__ __forceinline__ ulong atom_xchg(volatile ulong *p, ulong v)
{
    return atomicExch((ulong *)p, v);
}

/* ---- Vector types --------------------------------------------------------- */

template <class kl_S> struct kl_id { typedef kl_S type; }; /* keeps kl_S from being deduced */
template <bool kl_C, class kl_X = int> struct kl_enable_if {};
template <class kl_X> struct kl_enable_if<true, kl_X> { typedef kl_X type; };

template <class kl_S, int kl_N> struct kl_vec;

/* What every width has: uninitialised by default (like an OpenCL variable),
   a broadcast from a scalar, and one value per element. */
#define KL_VEC_CONSTRUCTORS(N)                                                                     \
    typedef kl_S scalar_type;                                                                      \
    kl_vec() = default;                                                                            \
    __device__ __forceinline__ kl_vec(kl_S v)                                                      \
    {                                                                                              \
        _Pragma("unroll") for (int i = 0; i < N; i++) e[i] = v;                                    \
    }                                                                                              \
    template <class... kl_A, typename kl_enable_if<sizeof...(kl_A) == N>::type = 0>                \
    __device__ __forceinline__ kl_vec(kl_A... a) : e{static_cast<kl_S>(a)...}                      \
    {                                                                                              \
    }

template <class kl_S> struct alignas(2 * sizeof(kl_S)) kl_vec<kl_S, 2> {
    union {
        kl_S e[2];
        struct { kl_S x, y; };
        struct { kl_S s0, s1; };
        struct { kl_S lo, hi; };
    };
    KL_VEC_CONSTRUCTORS(2)
};

template <class kl_S> struct alignas(4 * sizeof(kl_S)) kl_vec<kl_S, 4> {
    union {
        kl_S e[4];
        struct { kl_S x, y, z, w; };
        struct { kl_S s0, s1, s2, s3; };
        struct { kl_vec<kl_S, 2> lo, hi; };
    };
    KL_VEC_CONSTRUCTORS(4)
};

template <class kl_S> struct alignas(8 * sizeof(kl_S)) kl_vec<kl_S, 8> {
    union {
        kl_S e[8];
        struct { kl_S s0, s1, s2, s3, s4, s5, s6, s7; };
        struct { kl_vec<kl_S, 4> lo, hi; };
    };
    KL_VEC_CONSTRUCTORS(8)
};

template <class kl_S> struct alignas(16 * sizeof(kl_S)) kl_vec<kl_S, 16> {
    union {
        kl_S e[16];
        struct { kl_S s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, sa, sb, sc, sd, se, sf; };
        struct { kl_vec<kl_S, 8> lo, hi; };
    };
    KL_VEC_CONSTRUCTORS(16)
};

#undef KL_VEC_CONSTRUCTORS

/* OpenCL's names. Macros, because CUDA already declares float4 and the like. */
#define KL_VEC_NAMES(S)                                                                            \
    typedef kl_vec<S, 2> kl_##S##2;                                                                \
    typedef kl_vec<S, 4> kl_##S##4;                                                                \
    typedef kl_vec<S, 8> kl_##S##8;                                                                \
    typedef kl_vec<S, 16> kl_##S##16;
KL_VEC_NAMES(char)
KL_VEC_NAMES(uchar)
KL_VEC_NAMES(short)
KL_VEC_NAMES(ushort)
KL_VEC_NAMES(int)
KL_VEC_NAMES(uint)
KL_VEC_NAMES(long)
KL_VEC_NAMES(ulong)
KL_VEC_NAMES(float)
KL_VEC_NAMES(double)
#undef KL_VEC_NAMES

/* clang-format off */
#define char2 kl_char2
#define char4 kl_char4
#define char8 kl_char8
#define char16 kl_char16
#define uchar2 kl_uchar2
#define uchar4 kl_uchar4
#define uchar8 kl_uchar8
#define uchar16 kl_uchar16
#define short2 kl_short2
#define short4 kl_short4
#define short8 kl_short8
#define short16 kl_short16
#define ushort2 kl_ushort2
#define ushort4 kl_ushort4
#define ushort8 kl_ushort8
#define ushort16 kl_ushort16
#define int2 kl_int2
#define int4 kl_int4
#define int8 kl_int8
#define int16 kl_int16
#define uint2 kl_uint2
#define uint4 kl_uint4
#define uint8 kl_uint8
#define uint16 kl_uint16
#define long2 kl_long2
#define long4 kl_long4
#define long8 kl_long8
#define long16 kl_long16
#define ulong2 kl_ulong2
#define ulong4 kl_ulong4
#define ulong8 kl_ulong8
#define ulong16 kl_ulong16
#define float2 kl_float2
#define float4 kl_float4
#define float8 kl_float8
#define float16 kl_float16
#define double2 kl_double2
#define double4 kl_double4
#define double8 kl_double8
#define double16 kl_double16
/* clang-format on */

/* Vector literals: VEC4(float4, a, b, c, d) is (float4)(a, b, c, d) in OpenCL C. */
#define VEC2(type, a, b) (type((a), (b)))
#define VEC4(type, a, b, c, d) (type((a), (b), (c), (d)))
#define VEC8(type, a, b, c, d, e, f, g, h) (type((a), (b), (c), (d), (e), (f), (g), (h)))
#define VEC16(type, a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p)                                \
    (type((a), (b), (c), (d), (e), (f), (g), (h), (i), (j), (k), (l), (m), (n), (o), (p)))

/* ---- Vector operators ----------------------------------------------------- */

/* vector op vector, vector op scalar, scalar op vector, and op= of both. */
#define KL_VEC_BINARY(op, expr)                                                                    \
    template <class kl_S, int kl_N>                                                                \
    __device__ __forceinline__ kl_vec<kl_S, kl_N> operator op(const kl_vec<kl_S, kl_N> &a,         \
                                                        const kl_vec<kl_S, kl_N> &b)               \
    {                                                                                              \
        kl_vec<kl_S, kl_N> r;                                                                      \
        _Pragma("unroll") for (int i = 0; i < kl_N; i++)                                           \
        {                                                                                          \
            const kl_S x = a.e[i], y = b.e[i];                                                     \
            r.e[i] = (kl_S)(expr);                                                                 \
        }                                                                                          \
        return r;                                                                                  \
    }                                                                                              \
    template <class kl_S, int kl_N>                                                                \
    __device__ __forceinline__ kl_vec<kl_S, kl_N> operator op(const kl_vec<kl_S, kl_N> &a,         \
                                                        typename kl_id<kl_S>::type b)              \
    {                                                                                              \
        return a op kl_vec<kl_S, kl_N>(b);                                                         \
    }                                                                                              \
    template <class kl_S, int kl_N>                                                                \
    __device__ __forceinline__ kl_vec<kl_S, kl_N> operator op(typename kl_id<kl_S>::type a,        \
                                                        const kl_vec<kl_S, kl_N> &b)               \
    {                                                                                              \
        return kl_vec<kl_S, kl_N>(a) op b;                                                         \
    }                                                                                              \
    template <class kl_S, int kl_N>                                                                \
    __device__ __forceinline__ kl_vec<kl_S, kl_N> &operator op##=(kl_vec<kl_S, kl_N> &a,           \
                                                            const kl_vec<kl_S, kl_N> &b)           \
    {                                                                                              \
        return a = a op b;                                                                         \
    }                                                                                              \
    template <class kl_S, int kl_N>                                                                \
    __device__ __forceinline__ kl_vec<kl_S, kl_N> &operator op##=(kl_vec<kl_S, kl_N> &a,           \
                                                            typename kl_id<kl_S>::type b)          \
    {                                                                                              \
        return a = a op kl_vec<kl_S, kl_N>(b);                                                     \
    }

KL_VEC_BINARY(+, x + y)
KL_VEC_BINARY(-, x - y)
KL_VEC_BINARY(*, x * y)
KL_VEC_BINARY(/, x / y)
KL_VEC_BINARY(%, x % y)
KL_VEC_BINARY(&, x & y)
KL_VEC_BINARY(|, x | y)
KL_VEC_BINARY(^, x ^ y)
/* OpenCL takes a vector shift count modulo the element width. */
KL_VEC_BINARY(<<, x << (y & (8 * sizeof(kl_S) - 1)))
KL_VEC_BINARY(>>, x >> (y & (8 * sizeof(kl_S) - 1)))
#undef KL_VEC_BINARY

#define KL_VEC_UNARY(op)                                                                           \
    template <class kl_S, int kl_N>                                                                \
    __device__ __forceinline__ kl_vec<kl_S, kl_N> operator op(const kl_vec<kl_S, kl_N> &a)         \
    {                                                                                              \
        kl_vec<kl_S, kl_N> r;                                                                      \
        _Pragma("unroll") for (int i = 0; i < kl_N; i++) r.e[i] = (kl_S)(op a.e[i]);               \
        return r;                                                                                  \
    }
KL_VEC_UNARY(+)
KL_VEC_UNARY(-)
KL_VEC_UNARY(~)
#undef KL_VEC_UNARY

/* ---- vloadN / vstoreN ----------------------------------------------------- */

/* Whole-vector accesses are for global and shared memory; a private array is
   registers, where element copies cost nothing (and taking its address as a
   number would move it to local memory). */
__device__ __forceinline__ bool kl_vector_space(const void *p)
{
    return __isGlobal(p) || __isShared(p);
}

/* p + N * off, element-aligned, any address: see the header comment. */
template <int kl_N, class kl_S>
__device__ __forceinline__ kl_vec<kl_S, kl_N> kl_vload(size_t off, const kl_S *p)
{
    typedef kl_vec<kl_S, kl_N> kl_V;
    const kl_S *q = p + off * kl_N;
    const size_t a = (size_t)q;
    const bool vector = kl_vector_space(q);
    kl_V r;
    if (vector && a % sizeof(kl_V) == 0)
        return *(const kl_V *)q;
    if constexpr (sizeof(kl_V) > 16) { /* 16-byte pieces: 4 floats, 2 doubles ... */
        typedef kl_vec<kl_S, 16 / sizeof(kl_S)> kl_C;
        constexpr int kl_K = 16 / sizeof(kl_S);
        if (vector && a % 16 == 0) {
            _Pragma("unroll") for (int c = 0; c < kl_N / kl_K; c++)
            {
                const kl_C piece = ((const kl_C *)q)[c];
                _Pragma("unroll") for (int i = 0; i < kl_K; i++) r.e[c * kl_K + i] = piece.e[i];
            }
            return r;
        }
    }
    _Pragma("unroll") for (int i = 0; i < kl_N; i++) r.e[i] = q[i];
    return r;
}

template <int kl_N, class kl_S>
__device__ __forceinline__ void kl_vstore(const kl_vec<kl_S, kl_N> &v, size_t off, kl_S *p)
{
    typedef kl_vec<kl_S, kl_N> kl_V;
    kl_S *q = p + off * kl_N;
    const size_t a = (size_t)q;
    const bool vector = kl_vector_space(q);
    if (vector && a % sizeof(kl_V) == 0) {
        *(kl_V *)q = v;
        return;
    }
    if constexpr (sizeof(kl_V) > 16) {
        typedef kl_vec<kl_S, 16 / sizeof(kl_S)> kl_C;
        constexpr int kl_K = 16 / sizeof(kl_S);
        if (vector && a % 16 == 0) {
            _Pragma("unroll") for (int c = 0; c < kl_N / kl_K; c++)
            {
                kl_C piece;
                _Pragma("unroll") for (int i = 0; i < kl_K; i++) piece.e[i] = v.e[c * kl_K + i];
                ((kl_C *)q)[c] = piece;
            }
            return;
        }
    }
    _Pragma("unroll") for (int i = 0; i < kl_N; i++) q[i] = v.e[i];
}

#define KL_VLOAD_VSTORE(N)                                                                         \
    template <class kl_S>                                                                          \
    __device__ __forceinline__ kl_vec<kl_S, N> vload##N(size_t off, const kl_S *p)                 \
    {                                                                                              \
        return kl_vload<N>(off, p);                                                                \
    }                                                                                              \
    template <class kl_S>                                                                          \
    __device__ __forceinline__ void vstore##N(const kl_vec<kl_S, N> &v, size_t off, kl_S *p)      \
    {                                                                                              \
        kl_vstore<N>(v, off, p);                                                                   \
    }
KL_VLOAD_VSTORE(2)
KL_VLOAD_VSTORE(4)
KL_VLOAD_VSTORE(8)
KL_VLOAD_VSTORE(16)
#undef KL_VLOAD_VSTORE

/* ---- Conversions and reinterpretation ------------------------------------- */

/* convert_<type>N: element-wise C conversion (float to integer rounds toward
   zero, as OpenCL's default). */
#define KL_CONVERT(D)                                                                              \
    template <class kl_S> __device__ __forceinline__ D convert_##D(kl_S x) { return (D)x; }       \
    KL_CONVERT_N(D, 2) KL_CONVERT_N(D, 4) KL_CONVERT_N(D, 8) KL_CONVERT_N(D, 16)
#define KL_CONVERT_N(D, N)                                                                         \
    template <class kl_S>                                                                          \
    __device__ __forceinline__ kl_vec<D, N> convert_##D##N(const kl_vec<kl_S, N> &x)               \
    {                                                                                              \
        kl_vec<D, N> r;                                                                            \
        _Pragma("unroll") for (int i = 0; i < N; i++) r.e[i] = (D)x.e[i];                          \
        return r;                                                                                  \
    }
KL_CONVERT(char)
KL_CONVERT(uchar)
KL_CONVERT(short)
KL_CONVERT(ushort)
KL_CONVERT(int)
KL_CONVERT(uint)
KL_CONVERT(long)
KL_CONVERT(ulong)
KL_CONVERT(float)
KL_CONVERT(double)
#undef KL_CONVERT
#undef KL_CONVERT_N

/* float to 8- to 32-bit integers, saturated (NaN -> 0), rounded to nearest
   even (_rte; _sat alone rounds toward zero). */
template <class kl_D> __device__ __forceinline__ float kl_sat_lo();
template <class kl_D> __device__ __forceinline__ float kl_sat_hi();
template <> __device__ __forceinline__ float kl_sat_lo<char>() { return -128.0f; }
template <> __device__ __forceinline__ float kl_sat_hi<char>() { return 127.0f; }
template <> __device__ __forceinline__ float kl_sat_lo<uchar>() { return 0.0f; }
template <> __device__ __forceinline__ float kl_sat_hi<uchar>() { return 255.0f; }
template <> __device__ __forceinline__ float kl_sat_lo<short>() { return -32768.0f; }
template <> __device__ __forceinline__ float kl_sat_hi<short>() { return 32767.0f; }
template <> __device__ __forceinline__ float kl_sat_lo<ushort>() { return 0.0f; }
template <> __device__ __forceinline__ float kl_sat_hi<ushort>() { return 65535.0f; }
template <class kl_D> __device__ __forceinline__ kl_D kl_sat_rte(float x)
{
    return (kl_D)__float2int_rn(fminf(fmaxf(x, kl_sat_lo<kl_D>()), kl_sat_hi<kl_D>()));
}
template <class kl_D> __device__ __forceinline__ kl_D kl_sat_rtz(float x)
{
    return (kl_D)__float2int_rz(fminf(fmaxf(x, kl_sat_lo<kl_D>()), kl_sat_hi<kl_D>()));
}
/* The hardware's float-to-int conversions saturate, and give 0 for NaN. */
template <> __device__ __forceinline__ int kl_sat_rte<int>(float x) { return __float2int_rn(x); }
template <> __device__ __forceinline__ int kl_sat_rtz<int>(float x) { return __float2int_rz(x); }
template <> __device__ __forceinline__ uint kl_sat_rte<uint>(float x) { return __float2uint_rn(x); }
template <> __device__ __forceinline__ uint kl_sat_rtz<uint>(float x) { return __float2uint_rz(x); }

#define KL_CONVERT_SAT(D)                                                                          \
    __device__ __forceinline__ D convert_##D##_sat(float x) { return kl_sat_rtz<D>(x); }          \
    __device__ __forceinline__ D convert_##D##_sat_rte(float x) { return kl_sat_rte<D>(x); }      \
    KL_CONVERT_SAT_N(D, 2) KL_CONVERT_SAT_N(D, 4) KL_CONVERT_SAT_N(D, 8) KL_CONVERT_SAT_N(D, 16)
#define KL_CONVERT_SAT_N(D, N)                                                                     \
    __device__ __forceinline__ kl_vec<D, N> convert_##D##N##_sat(const kl_vec<float, N> &x)        \
    {                                                                                              \
        kl_vec<D, N> r;                                                                            \
        _Pragma("unroll") for (int i = 0; i < N; i++) r.e[i] = kl_sat_rtz<D>(x.e[i]);              \
        return r;                                                                                  \
    }                                                                                              \
    __device__ __forceinline__ kl_vec<D, N> convert_##D##N##_sat_rte(const kl_vec<float, N> &x)    \
    {                                                                                              \
        kl_vec<D, N> r;                                                                            \
        _Pragma("unroll") for (int i = 0; i < N; i++) r.e[i] = kl_sat_rte<D>(x.e[i]);              \
        return r;                                                                                  \
    }
KL_CONVERT_SAT(char)
KL_CONVERT_SAT(uchar)
KL_CONVERT_SAT(short)
KL_CONVERT_SAT(ushort)
KL_CONVERT_SAT(int)
KL_CONVERT_SAT(uint)
#undef KL_CONVERT_SAT
#undef KL_CONVERT_SAT_N

/* as_<type>N: the same bits as another type of the same size. */
template <class kl_D, class kl_S> __device__ __forceinline__ kl_D kl_as(const kl_S &x)
{
    static_assert(sizeof(kl_D) == sizeof(kl_S), "as_<type>: the sizes differ");
    kl_D r;
    memcpy(&r, &x, sizeof r);
    return r;
}
#define KL_AS(D)                                                                                   \
    template <class kl_S>                                                                          \
    __device__ __forceinline__ D as_##D(const kl_S &x) { return kl_as<D>(x); }                     \
    KL_AS_N(D, 2) KL_AS_N(D, 4) KL_AS_N(D, 8) KL_AS_N(D, 16)
#define KL_AS_N(D, N)                                                                              \
    template <class kl_S> __device__ __forceinline__ kl_vec<D, N> as_##D##N(const kl_S &x)         \
    {                                                                                              \
        return kl_as<kl_vec<D, N>>(x);                                                             \
    }
KL_AS(char)
KL_AS(uchar)
KL_AS(short)
KL_AS(ushort)
KL_AS(int)
KL_AS(uint)
KL_AS(long)
KL_AS(ulong)
KL_AS(float)
KL_AS(double)
#undef KL_AS
#undef KL_AS_N

/* as_float of a uint, the case the narrow types' decoders use (bf16 is a float's top half). */
__device__ __forceinline__ float as_float(uint x)
{
    return __uint_as_float(x);
}

/* ---- half as storage -------------------------------------------------------- */

/* OpenCL C without cl_khr_fp16 can point at halfs and read them as floats with
   vload_half(N); nothing else. kl_half is those 16 bits, with no arithmetic. */
struct alignas(2) kl_half {
    unsigned short bits;
};
typedef kl_half half;

__device__ __forceinline__ float kl_half_value(unsigned short h)
{
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    return f;
}
__device__ __forceinline__ float vload_half(size_t off, const half *p)
{
    return kl_half_value(p[off].bits);
}
/* vload_halfN: one vector access of the bits where aligned (kl_vload), then N conversions. */
#define KL_VLOAD_HALF(N)                                                                           \
    __device__ __forceinline__ kl_vec<float, N> vload_half##N(size_t off, const half *p)           \
    {                                                                                              \
        const kl_vec<ushort, N> h = kl_vload<N>(off, (const ushort *)p);                           \
        kl_vec<float, N> r;                                                                        \
        _Pragma("unroll") for (int i = 0; i < N; i++) r.e[i] = kl_half_value(h.e[i]);              \
        return r;                                                                                  \
    }
KL_VLOAD_HALF(2)
KL_VLOAD_HALF(4)
KL_VLOAD_HALF(8)
KL_VLOAD_HALF(16)
#undef KL_VLOAD_HALF

/* vloada_half4: the aligned form (p + 4 * off on 8 bytes, as OpenCL requires), so one
   access with no test of the address. */
__device__ __forceinline__ kl_vec<float, 4> vloada_half4(size_t off, const half *p)
{
    const kl_vec<ushort, 4> h = ((const kl_vec<ushort, 4> *)p)[off];
    return kl_vec<float, 4>(kl_half_value(h.x), kl_half_value(h.y), kl_half_value(h.z),
                            kl_half_value(h.w));
}

/* vstore_half_rte(N): N floats stored as halfs, rounded to nearest even (cvt.rn); four
   converted two an instruction (cvt.rn.f16x2.f32, compute capability 8.0 on). */
__device__ __forceinline__ unsigned short kl_half_bits(float f)
{
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
}
__device__ __forceinline__ kl_vec<ushort, 4> kl_half4_bits(const kl_vec<float, 4> &v)
{
    kl_vec<ushort, 4> h;
#if __CUDA_ARCH__ >= 800
    unsigned lo, hi; /* the first operand goes to the upper half */
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(lo) : "f"(v.y), "f"(v.x));
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(hi) : "f"(v.w), "f"(v.z));
    h = kl_vec<ushort, 4>(lo & 0xffffu, lo >> 16, hi & 0xffffu, hi >> 16);
#else
    _Pragma("unroll") for (int i = 0; i < 4; i++) h.e[i] = kl_half_bits(v.e[i]);
#endif
    return h;
}
__device__ __forceinline__ void vstore_half_rte(float v, size_t off, half *p)
{
    p[off].bits = kl_half_bits(v);
}
__device__ __forceinline__ void vstore_half4_rte(const kl_vec<float, 4> &v, size_t off, half *p)
{
    kl_vstore<4>(kl_half4_bits(v), off, (ushort *)p);
}
__device__ __forceinline__ void vstorea_half4_rte(const kl_vec<float, 4> &v, size_t off, half *p)
{
    ((kl_vec<ushort, 4> *)p)[off] = kl_half4_bits(v);
}

/* bf16, the top half of a float rounded to nearest even: four two an instruction
   (cvt.rn.bf16x2.f32), for prelude.cl's bf16 stores (KL_BF16X4_BITS). */
#if __CUDA_ARCH__ >= 800
#define KL_BF16X4_BITS
__device__ __forceinline__ kl_vec<ushort, 4> kl_bf16x4_bits(const kl_vec<float, 4> &v)
{
    unsigned lo, hi;
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(lo) : "f"(v.y), "f"(v.x));
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(hi) : "f"(v.w), "f"(v.z));
    return kl_vec<ushort, 4>(lo & 0xffffu, lo >> 16, hi & 0xffffu, hi >> 16);
}
#endif

/* ---- Math ----------------------------------------------------------------- */

/* Scalars: CUDA's min/max/fma overloads for int, float, double ... apply.
   fma and mad stay in the argument's precision (fmaf for float). */
__device__ __forceinline__ float kl_fma(float a, float b, float c) { return fmaf(a, b, c); }
__device__ __forceinline__ double kl_fma(double a, double b, double c) { return ::fma(a, b, c); }
__device__ __forceinline__ float fma(float a, float b, float c) { return fmaf(a, b, c); }
__device__ __forceinline__ float mad(float a, float b, float c) { return fmaf(a, b, c); }
__device__ __forceinline__ double mad(double a, double b, double c) { return ::fma(a, b, c); }

#define KL_CLAMP(S)                                                                                \
    __device__ __forceinline__ S clamp(S x, S lo, S hi) { return min(max(x, lo), hi); }
KL_CLAMP(int)
KL_CLAMP(uint)
KL_CLAMP(long)
KL_CLAMP(ulong)
KL_CLAMP(float)
KL_CLAMP(double)
#undef KL_CLAMP

/* Vectors: element-wise, with a vector or a scalar as the second operand. */
#define KL_VEC_FUNC2(name, expr)                                                                   \
    template <class kl_S, int kl_N>                                                                \
    __device__ __forceinline__ kl_vec<kl_S, kl_N> name(const kl_vec<kl_S, kl_N> &a,                \
                                                  const kl_vec<kl_S, kl_N> &b)                     \
    {                                                                                              \
        kl_vec<kl_S, kl_N> r;                                                                      \
        _Pragma("unroll") for (int i = 0; i < kl_N; i++)                                           \
        {                                                                                          \
            const kl_S x = a.e[i], y = b.e[i];                                                     \
            r.e[i] = (kl_S)(expr);                                                                 \
        }                                                                                          \
        return r;                                                                                  \
    }                                                                                              \
    template <class kl_S, int kl_N>                                                                \
    __device__ __forceinline__ kl_vec<kl_S, kl_N> name(const kl_vec<kl_S, kl_N> &a,                \
                                                  typename kl_id<kl_S>::type b)                    \
    {                                                                                              \
        return name(a, kl_vec<kl_S, kl_N>(b));                                                     \
    }
KL_VEC_FUNC2(min, x < y ? x : y)
KL_VEC_FUNC2(max, x > y ? x : y)
#undef KL_VEC_FUNC2

template <class kl_S, int kl_N>
__device__ __forceinline__ kl_vec<kl_S, kl_N> clamp(const kl_vec<kl_S, kl_N> &x,
                                                    const kl_vec<kl_S, kl_N> &lo,
                                                    const kl_vec<kl_S, kl_N> &hi)
{
    return min(max(x, lo), hi);
}
template <class kl_S, int kl_N>
__device__ __forceinline__ kl_vec<kl_S, kl_N> clamp(const kl_vec<kl_S, kl_N> &x,
                                                    typename kl_id<kl_S>::type lo,
                                                    typename kl_id<kl_S>::type hi)
{
    return min(max(x, lo), hi);
}

template <class kl_S, int kl_N>
__device__ __forceinline__ kl_vec<kl_S, kl_N> fma(const kl_vec<kl_S, kl_N> &a,
                                                  const kl_vec<kl_S, kl_N> &b,
                                                  const kl_vec<kl_S, kl_N> &c)
{
    kl_vec<kl_S, kl_N> r;
    _Pragma("unroll") for (int i = 0; i < kl_N; i++) r.e[i] = kl_fma(a.e[i], b.e[i], c.e[i]);
    return r;
}
template <class kl_S, int kl_N>
__device__ __forceinline__ kl_vec<kl_S, kl_N> mad(const kl_vec<kl_S, kl_N> &a,
                                                  const kl_vec<kl_S, kl_N> &b,
                                                  const kl_vec<kl_S, kl_N> &c)
{
    return fma(a, b, c);
}

/* dot: floating-point vectors of 2 or 4 components, and scalars. */
__device__ __forceinline__ float dot(float a, float b) { return a * b; }
__device__ __forceinline__ double dot(double a, double b) { return a * b; }
template <class kl_S, int kl_N, typename kl_enable_if<(kl_N <= 4)>::type = 0>
__device__ __forceinline__ kl_S dot(const kl_vec<kl_S, kl_N> &a, const kl_vec<kl_S, kl_N> &b)
{
    kl_S s = a.e[0] * b.e[0];
    _Pragma("unroll") for (int i = 1; i < kl_N; i++) s += a.e[i] * b.e[i];
    return s;
}

/* ---- Sub-groups: warps ---------------------------------------------------- */

__device__ __forceinline__ uint get_max_sub_group_size() { return 32; }
__device__ __forceinline__ uint get_num_sub_groups()
{
    return (uint)((blockDim.x * blockDim.y * blockDim.z + 31) / 32);
}
__device__ __forceinline__ uint get_sub_group_id() { return (uint)(get_local_linear_id() / 32); }
__device__ __forceinline__ uint get_sub_group_local_id()
{
    return (uint)(get_local_linear_id() % 32);
}
/* 32, except in a last, partial warp. */
__device__ __forceinline__ uint get_sub_group_size()
{
    const uint left = blockDim.x * blockDim.y * blockDim.z - 32 * get_sub_group_id();
    return left < 32 ? left : 32;
}
__device__ __forceinline__ void sub_group_barrier(int) { __syncwarp(); }

/* Every lane gets op over the lanes of its sub-group. */
template <class kl_X, class Op> __device__ __forceinline__ kl_X kl_sub_group_reduce(kl_X x, Op op)
{
    const uint n = get_sub_group_size();
    if (n == 32) {
        _Pragma("unroll") for (int off = 16; off > 0; off >>= 1)
            x = op(x, __shfl_xor_sync(0xffffffffu, x, off));
        return x;
    }
    /* A partial warp: a tree onto lane 0 over the lanes that exist, then a broadcast. */
    const uint mask = (1u << n) - 1, lane = get_sub_group_local_id();
    _Pragma("unroll") for (uint off = 16; off > 0; off >>= 1)
    {
        const kl_X y = __shfl_down_sync(mask, x, off);
        if (lane + off < n)
            x = op(x, y);
    }
    return __shfl_sync(mask, x, 0);
}
struct kl_op_add {
    template <class kl_X> __device__ __forceinline__ kl_X operator()(kl_X a, kl_X b) const
    {
        return a + b;
    }
};
struct kl_op_min {
    template <class kl_X> __device__ __forceinline__ kl_X operator()(kl_X a, kl_X b) const
    {
        return b < a ? b : a;
    }
};
struct kl_op_max {
    template <class kl_X> __device__ __forceinline__ kl_X operator()(kl_X a, kl_X b) const
    {
        return b > a ? b : a;
    }
};
template <class kl_X> __device__ __forceinline__ kl_X sub_group_reduce_add(kl_X x)
{
    return kl_sub_group_reduce(x, kl_op_add());
}
template <class kl_X> __device__ __forceinline__ kl_X sub_group_reduce_min(kl_X x)
{
    return kl_sub_group_reduce(x, kl_op_min());
}
template <class kl_X> __device__ __forceinline__ kl_X sub_group_reduce_max(kl_X x)
{
    return kl_sub_group_reduce(x, kl_op_max());
}
/* The sums over the lanes up to and including this one (inclusive) or before it (exclusive,
   0 in lane 0): Hillis and Steele's steps over shuffles, partial warps included. */
template <class kl_X> __device__ __forceinline__ kl_X sub_group_scan_inclusive_add(kl_X x)
{
    const uint n = get_sub_group_size(), lane = get_sub_group_local_id();
    const uint mask = n == 32 ? 0xffffffffu : (1u << n) - 1;
    _Pragma("unroll") for (uint off = 1; off < 32; off <<= 1)
    {
        const kl_X y = __shfl_up_sync(mask, x, off);
        if (lane >= off)
            x += y;
    }
    return x;
}
template <class kl_X> __device__ __forceinline__ kl_X sub_group_scan_exclusive_add(kl_X x)
{
    const uint n = get_sub_group_size(), lane = get_sub_group_local_id();
    const kl_X y = __shfl_up_sync(n == 32 ? 0xffffffffu : (1u << n) - 1,
                                  sub_group_scan_inclusive_add(x), 1);
    return lane == 0 ? (kl_X)0 : y;
}
template <class kl_X> __device__ __forceinline__ kl_X sub_group_broadcast(kl_X x, uint lane)
{
    const uint n = get_sub_group_size();
    return __shfl_sync(n == 32 ? 0xffffffffu : (1u << n) - 1, x, (int)lane);
}

#endif /* KLADDER_CUDA_PRELUDE */
