/*
 * The error bounds of rung 11_half2's packed-half arithmetic and of rungs
 * 13_mma's and 14_mma_split's tensor-core products, as their kernel comments
 * argue them: every rounding bounded at the largest value it can see.
 */
#include "workloads/blur/bound.h"

#include <math.h>

/* x >= 0 rounded to the nearest half (binary16), ties to even, as cvt.rn.f16 rounds. */
static double to_half(double x)
{
    int e;
    if (x == 0)
        return 0;
    frexp(x, &e); /* x in [2^(e-1), 2^e) */
    double unit = ldexp(1.0, (e - 1 < -14 ? -14 : e - 1) - 10);
    return nearbyint(x / unit) * unit;
}

/* The most one rounding to half moves a value of magnitude up to x: half its spacing. */
static double half_rounding(double x)
{
    int e;
    if (x < ldexp(1.0, -14))
        return ldexp(1.0, -25);
    frexp(x, &e);
    return ldexp(1.0, e - 1 - 11);
}

/*
 * How far 11_half2's tails-inwards sum (a = fma(w'[k], t(-k) + t(k), a) for k = R..1,
 * then a = fma(w'[0], t(0), a)) can be from the exact sum with the same half weights wh,
 * for inputs of magnitude up to m, each err_in off; pair sums exact where exact_pairs
 * (integers), else rounded. Each rounding is bounded at the largest value it can see.
 */
static double sum_bound(const double *wh, int R, double m, double err_in, int exact_pairs)
{
    double err = 0, mag = 0;
    for (int k = R; k >= 0; k--) {
        int taps = k ? 2 : 1;
        double pair = exact_pairs || !k ? 0 : half_rounding(2 * m + 2 * err_in);
        err += wh[k] * (taps * err_in + pair);
        mag += wh[k] * taps * m;
        err += half_rounding(mag + err);
    }
    return err;
}

/*
 * What rounding the weights w (2R+1) to wh moves a two-pass blur of pixels centred on 128, in
 * levels: 128 * sum_ij |wh_i wh_j - w_i w_j| + 128 |1 - (sum w)^2|.
 */
static double half_weights_moved(const float *w, const double *wh, int R)
{
    double sum = 0, moved = 0;
    for (int i = 0; i <= 2 * R; i++) {
        sum += w[i];
        for (int j = 0; j <= 2 * R; j++)
            moved += fabs(wh[i] * wh[j] - (double)w[i] * w[j]);
    }
    return 128 * moved + 128 * fabs(1 - sum * sum);
}

double kl_blur_half2_bound(const float *w, int R)
{
    double wh[2 * 512 + 1], sum_h = 0;
    if (R < 0 || R > 512) /* the blur's radii (blur_radius) */
        return INFINITY;
    for (int i = 0; i <= 2 * R; i++)
        sum_h += wh[i] = to_half(w[i]);
    /* sum_bound reads the symmetric weights from the centre out: wh + R. */
    double cols = sum_bound(wh + R, R, 128, 0, 1);
    double rows = sum_bound(wh + R, R, 128 * sum_h + cols, cols, 0);
    return rows + half_weights_moved(w, wh, R);
}

/*
 * What one pass of tensor-core instructions can add, for inputs of magnitude up to m, an
 * accumulator starting at c0: nk instructions, each within 18 units of 2^-23 of the largest
 * magnitude it holds (at most |c0| + sum_h * m, plus 1 for the errors themselves).
 */
static double mma_sums(int nk, double c0, double sum_h, double m)
{
    return nk * 18 * ldexp(1.0, -23) * (fabs(c0) + sum_h * m + 1);
}

double kl_blur_mma_bound(const float *w, int R)
{
    double wh[2 * KL_BLUR_MMA_MAX_RADIUS + 1], sum_h = 0;
    int nk = (16 + (R + 7) / 8 * 8 + R + 15) / 16; /* the kernel's NK */
    if (R < 0 || R > KL_BLUR_MMA_MAX_RADIUS)
        return INFINITY;
    for (int i = 0; i <= 2 * R; i++)
        sum_h += wh[i] = to_half(w[i]);
    /* Inputs 1024 + b, exact, onto -1152 sum w' rounded once to float. */
    double rows = mma_sums(nk, 1152 * sum_h, sum_h, 1279) + 1152 * sum_h * ldexp(1.0, -24);
    double h = 128 * sum_h + rows;                    /* the largest row result */
    double to16 = half_rounding(h);                   /* its rounding to half */
    double cols = mma_sums(nk, 128, sum_h, h + to16); /* the accumulator starts at 128 */
    return sum_h * (rows + to16) + cols + half_weights_moved(w, wh, R);
}

/* The band's scale in 14_mma_split.cu (SCALE): 2^10. */
#define SPLIT_SCALE 1024.0

/* What a pass of 14_mma_split needs of the band: sums over its 2R+1 taps. */
struct split_band {
    double w;  /* sum |w| */
    double hi; /* sum |wh|, wh the high halves of 2^10 w */
    double lo; /* sum |wl|, the low halves */
    double ew; /* sum |2^10 w - wh - wl|: what the two halves miss */
    int nk;    /* the kernel's NK */
};

/*
 * One pass of 14_mma_split over inputs of magnitude up to m, each up to ein off the exact
 * ones: how far its results can be from sum w v over the exact inputs.
 */
static double split_pass(const struct split_band *b, double m, double ein)
{
    double lo = half_rounding(m);    /* |v - vh|, so |vl|, at most */
    double miss = half_rounding(lo); /* |v - vh - vl| at most */
    /* The weight's halves against 2^10 w; the value's halves; wl vl left out. */
    double split = b->ew * m + (b->hi + b->lo) * miss + b->lo * lo;
    /*
     * The magnitudes each instruction holds (1 + 2^-10 for the errors themselves): the wh vh
     * instructions start at 0, so theirs add up to at most sum |wh| |vh| over a pass; the
     * 2 NK small ones go to two accumulators, each at most sum (|wl| |vh| + |wh| |vl|).
     */
    double big = b->hi * (m + lo) * (1 + 0x1p-10),
           small = (b->lo * (m + lo) + b->hi * lo) * (1 + 0x1p-10);
    double sums = 18 * 0x1p-23 * (big + 2 * b->nk * small);
    double adds = (b->nk + 1) * 0x1p-24 * (big + small); /* NK + 1 FP32 adds, 2^-24 each */
    /* Scaled back by 2^-10: exact, or within 2^-149 where it falls among subnormals. */
    return b->w * ein + (split + sums + adds) / SPLIT_SCALE + 0x1p-149;
}

double kl_blur_split_bound(const float *w, int R, double m)
{
    struct split_band b = {.nk = (16 + (R + 7) / 8 * 8 + R + 15) / 16}; /* the kernel's NK */
    if (R < 0 || R > KL_BLUR_MMA_MAX_RADIUS || !(m >= 0 && m <= 65504))
        return INFINITY; /* values past the largest half do not split */
    for (int j = 0; j <= 2 * R; j++) {
        double ws = SPLIT_SCALE * w[j]; /* exact */
        double wh = ws < 0 ? -to_half(-ws) : to_half(ws);
        double wl = ws - wh < 0 ? -to_half(wh - ws) : to_half(ws - wh);
        b.w += fabs(w[j]);
        b.hi += fabs(wh);
        b.lo += fabs(wl);
        b.ew += fabs(ws - wh - wl);
    }
    double rows = split_pass(&b, m, 0), h = b.w * m + rows;
    if (!(h <= 65504)) /* a row result past the largest half would not split */
        return INFINITY;
    return split_pass(&b, h, rows);
}
