/*
 * The softmax ladder's arithmetic, shared by its rungs: what one element
 * adds to a row's statistics, how two partial statistics merge, and what
 * an element becomes once the row's are known. The rungs differ in who
 * reads which elements and how the partials meet; the arithmetic is here.
 *
 * One operation per build (kladder sets one):
 *   -DOP_SOFTMAX    y = exp(x - max) / sum of exp(x - max)
 *   -DOP_LAYERNORM  y = (x - mean) / sqrt(variance + eps) * gamma + beta
 *   -DOP_RMSNORM    y = x / sqrt(mean of x^2 + eps) * gamma
 * Elements are read as float (LD, LD4: prelude.cl), computed in float and
 * stored in the element's type, rounded to nearest even (ST, ST4: prelude.cl).
 *
 * A row's statistics over the n elements seen so far (kl_row):
 *   softmax     c = the largest x,  s = sum of exp(x - c)   (c as its key: kl_center_key)
 *   layer norm  c = the mean,       s = sum of (x - c)^2
 *   RMS norm    c = 0,              s = sum of x^2
 * Two partials merge exactly as one pass over both would have counted
 * (softmax: the smaller max's sum rescaled; layer norm: Chan's update), so
 * a row may be split among work-items, sub-groups and work-groups in any
 * way without a second pass over memory for its max or its mean.
 */
#if !defined(OP_SOFTMAX) && !defined(OP_LAYERNORM) && !defined(OP_RMSNORM)
#define OP_SOFTMAX
#endif

typedef struct {
    float c, s, n;
} kl_row;

/* a / b wherever the statistics divide (b > 0 and finite). A rung may give its own, cheaper
   division before it includes this file (rung 05: a reciprocal and one correction). */
#ifndef KL_ROW_DIV
#define KL_ROW_DIV(a, b) ((a) / (b))
#endif

/* ---- the three passes: a center, the spread about it, the output ------------------ */

/*
 * Softmax's terms e^(x - c), for the row's center c (a max), as powers of 2. Under CUDA a
 * term is one FFMA and one exp2: 2^(x log2e - c'), where c' is c log2e rounded to float (the
 * center in exp2's units). c' misses c log2e by up to half an ulp, but by the same amount in
 * every term about c and in their sum, so the output (their ratio) does not see it: what is
 * left is the FFMA's one rounding, u |x - c| log2e of the exponent, which the bound allows
 * (src/workloads/softmax/ladder.c). For that, softmax's statistics carry the center as its
 * key c' from the moment it is known (kl_center_end, kl_row_add), and every term and every
 * move of a sum from one center to another (kl_exp_move: 2^(a' - b')) is taken from keys;
 * the key is monotonic, so the largest key is the largest x's. Carrying c' alone, not c
 * beside it, keeps one register free where a thread holds its vectors (rung 05: ptxas
 * spilled in the loop over them otherwise). The exp2 is the hardware's (ex2.approx.ftz: the
 * unit and error of exp2f, without the three instructions exp2f adds for results below
 * 2^-126, which are 0 here): every output such a term reaches is below 2^-126 too (the
 * check's floor), or the term is one of a sum of at least 1. The key overflows past
 * |c| = FLT_MAX / log2e (2.4e38, which bf16 can hold); kladder's rows lie within 1.1e4.
 * Elsewhere the key is c itself and a term 2^((x - c) log2e): an unfused multiply-add would
 * round x log2e alone, too coarsely where x is large, and a fused one may be slow (a CPU
 * without FMA).
 */
#define KL_LOG2E 1.44269504f

/* 2^t. */
inline float kl_exp2(float t)
{
#if defined(__CUDACC__)
    float r;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(t));
    return r;
#else
    return exp2(t);
#endif
}

/* The key of the center c, as softmax's terms take it. */
inline float kl_center_key(float c)
{
#if defined(__CUDACC__)
    return __fmul_rn(c, KL_LOG2E);
#else
    return c;
#endif
}

/* e^(x - c): the term of x about the center of key k. */
inline float kl_exp_at(float x, float k)
{
#if defined(__CUDACC__)
    return kl_exp2(fmaf(x, KL_LOG2E, -k));
#else
    return kl_exp2((x - k) * KL_LOG2E);
#endif
}

/* e^(a - b) for centers of keys a and b: what turns terms about a into terms about b. */
inline float kl_exp_move(float a, float b)
{
#if defined(__CUDACC__)
    return kl_exp2(a - b);
#else
    return kl_exp2((a - b) * KL_LOG2E);
#endif
}

#if defined(OP_SOFTMAX)
#define KL_CENTER0 (-as_float(0x7f800000u)) /* -infinity */
#else
#define KL_CENTER0 0.0f
#endif

/* The center's running value after x: the max, the sum (a mean once divided), or nothing. */
inline float kl_center_add(float c, float x)
{
#if defined(OP_SOFTMAX)
    return fmax(c, x);
#elif defined(OP_LAYERNORM)
    return c + x;
#else
    return c + 0.0f * x;
#endif
}

/* The same after a vector's four elements, in order. */
inline float kl_center_add4(float c, float4 x)
{
    return kl_center_add(kl_center_add(kl_center_add(kl_center_add(c, x.x), x.y), x.z), x.w);
}

/* The center of n elements from its running value (softmax's as its key). */
inline float kl_center_end(float c, float n)
{
#if defined(OP_SOFTMAX)
    (void)n;
    return kl_center_key(c);
#elif defined(OP_LAYERNORM)
    return n > 0.0f ? KL_ROW_DIV(c, n) : 0.0f;
#else
    (void)n;
    return c;
#endif
}

/* One element's share of the spread about the center c. */
inline float kl_spread(float x, float c)
{
#if defined(OP_SOFTMAX)
    return kl_exp_at(x, c);
#else
    return (x - c) * (x - c);
#endif
}

/* ---- one pass: statistics that take one element at a time, and merge --------------- */

inline kl_row kl_row_empty(void)
{
    kl_row r;
    r.c = KL_CENTER0;
    r.s = 0.0f;
    r.n = 0.0f;
    return r;
}

/* r with x added: softmax rescales the sum when the max moves; layer norm is Welford's update. */
inline kl_row kl_row_add(kl_row r, float x)
{
    r.n += 1.0f;
#if defined(OP_SOFTMAX)
    const float k = kl_center_key(x);
    if (k > r.c) {
        r.s = r.s * kl_exp_move(r.c, k) + kl_exp_at(x, k); /* x's own: 1 up to k's rounding */
        r.c = k;
    } else {
        r.s += kl_exp_at(x, r.c);
    }
#elif defined(OP_LAYERNORM)
    const float d = x - r.c;
    r.c += KL_ROW_DIV(d, r.n);
    r.s += d * (x - r.c);
#else
    r.s += x * x;
#endif
    return r;
}

/* r with a vector's four elements added. Softmax takes the vector's max first, so that the
   sum moves to a new center once a vector (one exp), not once an element, and each element's
   term has no branch around it (rung 05's streamed vectors: 5 exps a vector where if-converted
   branches took 12). A vector that moves no center scales the sum by 2^0, which is 1 exactly
   (PTX's ex2 and OpenCL's exp2 both define it so); a select there in place of the product
   made ptxas spill held vectors in rung 05 (float, 8 + 8). */
inline kl_row kl_row_add4(kl_row r, float4 x)
{
#if defined(OP_SOFTMAX)
    const float k = fmax(r.c, kl_center_key(fmax(fmax(x.x, x.y), fmax(x.z, x.w))));
    r.s = r.s * kl_exp_move(r.c, k) +
          ((kl_exp_at(x.x, k) + kl_exp_at(x.y, k)) + (kl_exp_at(x.z, k) + kl_exp_at(x.w, k)));
    r.c = k;
    r.n += 4.0f;
    return r;
#else
    return kl_row_add(kl_row_add(kl_row_add(kl_row_add(r, x.x), x.y), x.z), x.w);
#endif
}

/* The statistics of a's elements and b's together. */
inline kl_row kl_row_merge(kl_row a, kl_row b)
{
    kl_row r;
    r.n = a.n + b.n;
#if defined(OP_SOFTMAX)
    r.c = fmax(a.c, b.c);
    r.s = (a.n > 0.0f ? a.s * kl_exp_move(a.c, r.c) : 0.0f) +
          (b.n > 0.0f ? b.s * kl_exp_move(b.c, r.c) : 0.0f);
#elif defined(OP_LAYERNORM)
    const float d = b.c - a.c, wb = r.n > 0.0f ? KL_ROW_DIV(b.n, r.n) : 0.0f;
    r.c = a.c + d * wb;
    r.s = a.s + b.s + d * d * a.n * wb;
#else
    r.c = 0.0f;
    r.s = a.s + b.s;
#endif
    return r;
}

/* ---- the output -------------------------------------------------------------------- */

/* What multiplies and what is added to each element's term, from the row's statistics. */
inline float2 kl_row_scale(kl_row r, float gamma, float beta, float eps)
{
#if defined(OP_SOFTMAX)
    (void)gamma, (void)beta, (void)eps;
    return VEC2(float2, KL_ROW_DIV(1.0f, r.s), 0.0f);
#elif defined(OP_LAYERNORM)
    return VEC2(float2, gamma * rsqrt(KL_ROW_DIV(r.s, r.n) + eps), beta);
#else
    (void)beta;
    return VEC2(float2, gamma * rsqrt(KL_ROW_DIV(r.s, r.n) + eps), 0.0f);
#endif
}

/* Element x's output, given the row's center c and scale f. */
inline float kl_row_y(float x, float c, float2 f)
{
#if defined(OP_SOFTMAX)
    return kl_exp_at(x, c) * f.x;
#else
    return (x - c) * f.x + f.y;
#endif
}

inline float4 kl_row_y4(float4 x, float c, float2 f)
{
    return VEC4(float4, kl_row_y(x.x, c, f), kl_row_y(x.y, c, f), kl_row_y(x.z, c, f),
                kl_row_y(x.w, c, f));
}

/* ---- vectors held in registers -------------------------------------------------------- */

/*
 * A work-item that holds its vectors of a row computes their center c and
 * spread itself, then keeps what the output needs: softmax keeps
 * exp(x - c), so that writing takes a product instead of a second exp
 * (kl_held_y4 rescales by exp(c - the row's max)); the norms keep x.
 */
inline float4 kl_hold4(float4 x, float c)
{
#if defined(OP_SOFTMAX)
    return VEC4(float4, kl_exp_at(x.x, c), kl_exp_at(x.y, c), kl_exp_at(x.z, c),
                kl_exp_at(x.w, c));
#else
    (void)c;
    return x;
#endif
}

/* A held vector's share of the spread about its work-item's center c. */
inline float kl_held_spread4(float4 h, float c)
{
#if defined(OP_SOFTMAX)
    (void)c;
    return h.x + h.y + h.z + h.w;
#else
    return kl_spread(h.x, c) + kl_spread(h.y, c) + kl_spread(h.z, c) + kl_spread(h.w, c);
#endif
}

/* A held vector's output, from its work-item's center c and the row's statistics r, f. */
inline float4 kl_held_y4(float4 h, float c, kl_row r, float2 f)
{
#if defined(OP_SOFTMAX)
    return h * (kl_exp_move(c, r.c) * f.x);
#else
    (void)c;
    return kl_row_y4(h, r.c, f);
#endif
}

/* ---- a row's vectors --------------------------------------------------------------- */

/* Vector k (elements 4k..4k+3) of a row: one aligned access where every row starts on a
   whole vector (cols a multiple of 4), else element-aligned (vload4's rule). */
inline float4 kl_load4(const __global TA *row, int k, int aligned)
{
    return aligned ? LD4A(row + 4 * k) : LD4(k, row);
}

inline void kl_store4(float4 v, __global TA *row, int k, int aligned)
{
    if (aligned)
        ST4A(v, row + 4 * k);
    else
        ST4(v, k, row);
}

/* ---- a work-group's statistics, every work-item's merged --------------------------- */

#if defined(KL_SUBGROUPS)
/* The statistics of a sub-group's elements, from each work-item's: reductions only. */
inline kl_row kl_row_sub_group(kl_row r)
{
    kl_row t;
    t.n = sub_group_reduce_add(r.n);
#if defined(OP_SOFTMAX)
    t.c = sub_group_reduce_max(r.c);
    t.s = sub_group_reduce_add(r.n > 0.0f ? r.s * kl_exp_move(r.c, t.c) : 0.0f);
#elif defined(OP_LAYERNORM)
    t.c = t.n > 0.0f ? KL_ROW_DIV(sub_group_reduce_add(r.c * r.n), t.n) : 0.0f;
    t.s = sub_group_reduce_add(r.s + r.n * (r.c - t.c) * (r.c - t.c));
#else
    t.c = 0.0f;
    t.s = sub_group_reduce_add(r.s);
#endif
    return t;
}
#endif

/*
 * The statistics of the whole work-group's elements, in every work-item,
 * from each one's r; part holds a kl_row per work-item and one more. With sub-groups,
 * each merges its own by reductions and leaves them in part; the first
 * sub-group merges those by reductions again (where they are no more than
 * its work-items: 32 sub-groups of 32 on a GPU), else every work-item
 * merges them in order. Without, a tree in local memory. Reached by the
 * whole work-group.
 */
inline kl_row kl_row_group(kl_row r, KL_LOCAL_ARG kl_row *part)
{
#if defined(KL_SUBGROUPS)
    const uint groups = get_num_sub_groups(), sg = get_sub_group_id();
    r = kl_row_sub_group(r);
    if (get_sub_group_local_id() == 0)
        part[sg] = r;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (groups <= get_max_sub_group_size()) {
        /* Two levels: the partials merged as the work-items' were, one barrier more, in
           place of a merge for every sub-group in every work-item. */
        const uint lane = get_sub_group_local_id();
        if (sg == 0) {
            r = kl_row_sub_group(lane < groups ? part[lane] : kl_row_empty());
            if (lane == 0)
                part[groups] = r;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        return part[groups];
    }
    r = part[0];
    for (uint k = 1; k < groups; k++)
        r = kl_row_merge(r, part[k]);
#else
    const uint lid = get_local_id(0), n = get_local_size(0);
    part[lid] = r;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = 1; s < n; s <<= 1) {
        if (lid % (2 * s) == 0 && lid + s < n)
            part[lid] = kl_row_merge(part[lid], part[lid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    r = part[0];
#endif
    return r;
}
