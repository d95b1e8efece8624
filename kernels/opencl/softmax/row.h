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
 *   softmax     c = the largest x,  s = sum of exp(x - c)
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

/* e^d as 2^(d log2 e): one hardware exp2 on GPUs; the product's rounding moves the result by
   u |d| of itself, which the bound allows (src/workloads/softmax/ladder.c). */
inline float kl_exp(float d)
{
    return exp2(d * 1.44269504f);
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

/* The center of n elements from its running value. */
inline float kl_center_end(float c, float n)
{
#if defined(OP_LAYERNORM)
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
    return kl_exp(x - c);
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
    if (x > r.c) {
        r.s = r.s * kl_exp(r.c - x) + 1.0f;
        r.c = x;
    } else {
        r.s += kl_exp(x - r.c);
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

/* r with a vector's four elements added, in order. */
inline kl_row kl_row_add4(kl_row r, float4 x)
{
    return kl_row_add(kl_row_add(kl_row_add(kl_row_add(r, x.x), x.y), x.z), x.w);
}

/* The statistics of a's elements and b's together. */
inline kl_row kl_row_merge(kl_row a, kl_row b)
{
    kl_row r;
    r.n = a.n + b.n;
#if defined(OP_SOFTMAX)
    r.c = fmax(a.c, b.c);
    r.s = (a.n > 0.0f ? a.s * kl_exp(a.c - r.c) : 0.0f) +
          (b.n > 0.0f ? b.s * kl_exp(b.c - r.c) : 0.0f);
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
    return kl_exp(x - c) * f.x;
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
    return VEC4(float4, kl_exp(x.x - c), kl_exp(x.y - c), kl_exp(x.z - c), kl_exp(x.w - c));
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
    return h * (kl_exp(c - r.c) * f.x);
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
    t.s = sub_group_reduce_add(r.n > 0.0f ? r.s * kl_exp(r.c - t.c) : 0.0f);
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
