/*
 * The error bound of rung 11_half2's packed-half arithmetic, as its kernel
 * comment argues it: every rounding bounded at the largest value it can see.
 */
#include "workloads/blur_bound.h"

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

double kl_blur_half2_bound(const float *w, int R)
{
    double wh[513], sum = 0, sum_h = 0, moved = 0;
    for (int k = 0; k <= R; k++)
        wh[k] = to_half(w[R + k]);
    for (int i = -R; i <= R; i++) {
        sum += w[i + R];
        sum_h += wh[i < 0 ? -i : i];
        for (int j = -R; j <= R; j++)
            moved += fabs(wh[i < 0 ? -i : i] * wh[j < 0 ? -j : j] - (double)w[i + R] * w[j + R]);
    }
    double cols = sum_bound(wh, R, 128, 0, 1);
    double rows = sum_bound(wh, R, 128 * sum_h + cols, cols, 0);
    return rows + 128 * moved + 128 * fabs(1 - sum * sum);
}
