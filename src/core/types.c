/*
 * Element types: names, sizes, what a narrow type's sums are kept in, and
 * the narrow floating formats' bits to and from values.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kladder.h"

static const struct {
    const char *name;
    size_t size;
} types[KL_TYPE_COUNT] = {
    [KL_FLOAT] = {"float", 4},     [KL_DOUBLE] = {"double", 8}, [KL_INT] = {"int", 4},
    [KL_HALF] = {"half", 2},       [KL_BF16] = {"bf16", 2},     [KL_FP8] = {"fp8", 1},
    [KL_FP8E5M2] = {"fp8e5m2", 1}, [KL_INT8] = {"int8", 1},     [KL_UCHAR] = {"uchar", 1},
};

const char *kl_type_name(enum kl_type t)
{
    return (unsigned)t < KL_TYPE_COUNT ? types[t].name : "?";
}

size_t kl_type_size(enum kl_type t)
{
    return (unsigned)t < KL_TYPE_COUNT ? types[t].size : 0;
}

enum kl_status kl_type_parse(const char *name, enum kl_type *out)
{
    for (int i = 0; name && i < KL_TYPE_COUNT; i++)
        if (strcmp(name, types[i].name) == 0) {
            *out = (enum kl_type)i;
            return KL_OK;
        }
    return KL_ERR_ARG;
}

int kl_type_narrow(enum kl_type t)
{
    return t >= KL_HALF && t <= KL_INT8; /* GEMM's narrow inputs: not uchar */
}

int kl_type_fp8(enum kl_type t)
{
    return t == KL_FP8 || t == KL_FP8E5M2;
}

enum kl_type kl_type_output(enum kl_type t)
{
    return t == KL_INT8 ? KL_INT : kl_type_narrow(t) ? KL_FLOAT : t;
}

/* ---- the narrow floating formats ----------------------------------------- */

/*
 * A binary floating format of 1 + ebits + mbits bits with exponent bias
 * 2^(ebits-1) - 1. IEEE-like ones (half, bf16, e5m2) keep their top exponent
 * for infinities and NaNs; e4m3 (OCP's "FN") has no infinity and only
 * S.1111.111 as NaN, so its largest finite value is 448.
 */
struct minifloat {
    int ebits, mbits, ieee;
};

static struct minifloat format_of(enum kl_type t)
{
    switch (t) {
    case KL_HALF: return (struct minifloat){5, 10, 1};
    case KL_BF16: return (struct minifloat){8, 7, 1};
    case KL_FP8: return (struct minifloat){4, 3, 0};
    case KL_FP8E5M2: return (struct minifloat){5, 2, 1};
    default: return (struct minifloat){0, 0, 0};
    }
}

static double largest(struct minifloat f)
{
    int bias = (1 << (f.ebits - 1)) - 1, emax = (1 << f.ebits) - 2 - bias;
    /* e4m3 also uses the top exponent, all but its last mantissa code */
    if (!f.ieee)
        return ldexp(2.0 - ldexp(2.0, -f.mbits), emax + 1);
    return ldexp(2.0 - ldexp(1.0, -f.mbits), emax);
}

/* A half's value from its bits where finite, by bit moves (what kl_narrow_value computes). */
static double half_value(unsigned bits)
{
    unsigned e = (bits >> 10) & 31, m = bits & 1023;
    double sign = bits & 0x8000 ? -1.0 : 1.0;
    if (e == 0)
        return sign * (double)m * (1.0 / 16777216.0); /* 2^-24 */
    uint32_t f = (e + 112) << 23 | m << 13;           /* the float of the same value */
    float v;
    memcpy(&v, &f, sizeof v);
    return sign * v;
}

double kl_narrow_value(enum kl_type t, unsigned bits)
{
    if (t == KL_INT8)
        return (double)(int8_t)(uint8_t)bits;
    if (t == KL_BF16 && (bits & 0x7f80) != 0x7f80) { /* a float's top half: the fast way */
        uint32_t f = (uint32_t)bits << 16;
        float v;
        memcpy(&v, &f, sizeof v);
        return v;
    }
    if (t == KL_HALF && (bits & 0x7c00) != 0x7c00)
        return half_value(bits);
    struct minifloat f = format_of(t);
    if (!f.ebits)
        return NAN;
    int bias = (1 << (f.ebits - 1)) - 1, top = (1 << f.ebits) - 1;
    unsigned m = bits & ((1u << f.mbits) - 1), e = (bits >> f.mbits) & (unsigned)top;
    double sign = (bits >> (f.ebits + f.mbits)) & 1 ? -1.0 : 1.0;
    if ((f.ieee && e == (unsigned)top) ||
        (!f.ieee && e == (unsigned)top && m == (1u << f.mbits) - 1))
        return NAN;
    if (e == 0)
        return sign * ldexp((double)m, 1 - bias - f.mbits);
    return sign * ldexp(1.0 + ldexp((double)m, -f.mbits), (int)e - bias);
}

unsigned kl_narrow_round(enum kl_type t, double x)
{
    if (t == KL_INT8) {
        double r = nearbyint(x);
        return (uint8_t)(int8_t)(r > 127 ? 127 : r < -128 ? -128 : r);
    }
    struct minifloat f = format_of(t);
    if (!f.ebits)
        return 0;
    int bias = (1 << (f.ebits - 1)) - 1, width = f.ebits + f.mbits;
    unsigned sign = signbit(x) ? 1u << width : 0;
    double a = fabs(x), max = largest(f);
    if (isnan(x))
        return sign | ((1u << width) - 1); /* all exponent and mantissa bits */
    /* The spacing of the format at a: 2^(e - mbits) for a in [2^e, 2^(e+1)), subnormal below. */
    int e = a > 0 ? ilogb(a) : 1 - bias;
    if (e < 1 - bias)
        e = 1 - bias;
    double q = nearbyint(ldexp(a, f.mbits - e)); /* ties to even in the default rounding mode */
    double r = ldexp(q, e - f.mbits);
    if (r > max)
        r = max;
    if (r == 0)
        return sign;
    int re = ilogb(r);
    if (re < 1 - bias) /* subnormal: exponent field 0 */
        return sign | (unsigned)ldexp(r, bias - 1 + f.mbits);
    unsigned m = (unsigned)(ldexp(r, f.mbits - re) - ldexp(1.0, f.mbits));
    return sign | (unsigned)(re + bias) << f.mbits | m;
}
