/*
 * A Gaussian blur's time against its radius, across saved runs: for each run
 * (one σ), the time per picture of kladder's fastest verified rung, of NPP's
 * row where the run has one, and of the memory floor (the picture read and
 * written once, run->bytes, at the copy bandwidth the run recorded in its
 * ceiling_values). Runs share a curve only where they blurred pictures of the
 * same pixel type and size on the same device: the runs are grouped by
 * (pixel, width×height, device), a chart for each group of two radii or more,
 * rather than refused, so one report can hold a float and a uchar4 sweep.
 * NPP's row where it failed verification is no result: its time (from the
 * row's note, where it says one) is drawn hollow and counted in no ratio.
 * Nothing here reads files.
 */
#ifndef KL_REPORT_RADII_H
#define KL_REPORT_RADII_H

#include <stdio.h>

#include "report/run.h"

/* Runs past these are left out of the charts. */
#define KL_RADII_MAX 64   /* blur runs in one group */
#define KL_RADII_GROUPS 8 /* (pixel, size, device) groups */

/* One run: its radius and the three times per picture, in µs (NaN where none). */
struct kl_radius_point {
    int run; /* index into the runs given */
    double sigma;
    int radius;
    const struct kl_run_row *best; /* kladder's fastest verified rung; NULL: none verified */
    const struct kl_run_row *peer; /* NPP's row; NULL: the run has none */
    int peer_failed; /* 1: NPP ran and failed verification (peer_us, from its note, is no
                        result); 2: its call failed (no time); 0: verified, skipped or none */
    double best_us, peer_us, floor_us;
    double copy_gbps; /* the run's recorded copy bandwidth; NaN where it has none */
};

struct kl_radii_group {
    const char *pixel, *device;
    int width, height;
    int n;                                   /* runs */
    struct kl_radius_point pt[KL_RADII_MAX]; /* by radius, then as given */
    int radii;                               /* distinct radii: a chart takes two */
    int nfloor, npeer, npeer_failed;         /* points with a floor, a verified NPP, a failed one */
    double floor_lo, floor_hi;               /* kladder's best over the floor */
    double peer_lo, peer_hi;                 /* NPP's verified time over kladder's best */
    double y_lo, y_hi;                       /* every time drawn */
};

struct kl_radii {
    int nblur;   /* blur runs among those given */
    int charts;  /* groups of two radii or more */
    int ngroups; /* groups, in the order of their first run */
    struct kl_radii_group g[KL_RADII_GROUPS];
};

/*
 * The blur runs among runs[0..n-1], grouped. 0 when some group has two
 * radii or more (a chart); else -1 and why (for one sentence after "no
 * radius chart: "). Groups of one radius are kept, with no chart.
 */
int kl_radii_collect(const struct kl_run *runs, int n, struct kl_radii *rd, char *why, size_t nwhy);

/* "uchar4 4096×4096 on DEVICE" of a group. */
void kl_radii_group_name(const struct kl_radii_group *g, char *out, size_t n);

/*
 * A group's sentence: its radii, kladder's best against the floor and NPP's
 * time against kladder's best, and the radii where NPP fails verification.
 */
void kl_radii_summary(const struct kl_radii_group *g, char *out, size_t n);

/*
 * The chart of group k (time per picture against the radius, both log
 * axes); k < 0: every group with a chart, one above the other, in one SVG.
 */
void kl_svg_radii(FILE *out, const struct kl_run *runs, const struct kl_radii *rd, int k, int id,
                  int standalone);

/*
 * The page's "Blur radii" section, where two or more of runs[0..n-1] are blur
 * runs: a chart per group of two radii or more (numbered from *chart_id on)
 * and a sentence per group; where no group has a chart, why not.
 */
void kl_radii_section(FILE *out, const struct kl_run *runs, int n, int *chart_id);

#endif /* KL_REPORT_RADII_H */
