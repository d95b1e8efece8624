/*
 * Gaussian blur (seed 001): a ladder from a naive 2-D convolution to a fused
 * single pass, on a real picture or a generated 16-Mpixel test image, with
 * clamp-to-edge borders, for float (one channel) and uchar4 (RGBA8) pixels.
 */
#ifndef KL_BLUR_H
#define KL_BLUR_H

#include "core/context.h"
#include "core/params.h"
#include "core/report.h"
#include "core/user_rung.h"

enum kl_blur_kind {
    KL_BLUR_2D,        /* entry blur2d: (2R+1)² taps, 2-D weights */
    KL_BLUR_SEPARABLE, /* entries blur_h then blur_v through a float buffer */
    KL_BLUR_FUSED,     /* entry blur_fused: both passes in one kernel */
    KL_BLUR_IMAGE      /* blur_h reads an image object, then blur_v */
};

/* What a rung keeps in local memory (its size: local_bytes in blur/run.c). */
enum kl_blur_local {
    KL_BLUR_LOCAL_NONE,      /* nothing */
    KL_BLUR_LOCAL_TILE,      /* a 2-D tile and its halo */
    KL_BLUR_LOCAL_ROWCOL,    /* row tiles, then column tiles, in one buffer */
    KL_BLUR_LOCAL_ROWS2,     /* two staged rows of BX·PX columns and their halo */
    KL_BLUR_LOCAL_STAGED,    /* ST such rows of 4-byte pixels (dynamic shared memory, CUDA) */
    KL_BLUR_LOCAL_TILE_ROWS, /* a tile of WY·RY + 2R such rows, and for uchar4 its row results */
    KL_BLUR_LOCAL_TILE_COLS, /* such a tile and its WY·RY column-pass rows of 8-byte results */
    KL_BLUR_LOCAL_STRIPS     /* rung 12's strip buffers: two chunks of CH staged rows, a ring of
                                row results, for uchar4 one channel of a chunk as floats */
};

/* Values measured best for a rung on one kind of device up to a radius (cc 0 ends a list). */
struct kl_blur_preset {
    int cc;             /* compute capability × 10 (90: Hopper) */
    int max_radius;     /* radii up to this; a rung's first preset that covers one wins */
    const char *params; /* "NAME=VALUE,NAME=VALUE"; "": the defaults measured best there */
};
#define KL_BLUR_MAX_PRESETS 4

struct kl_blur_rung {
    const char *name;
    const char *summary;
    const char *file;
    enum kl_blur_kind kind;
    int weights_constant;        /* 2-D weights in __constant memory (size-limited) */
    enum kl_blur_local local;    /* what it keeps in local memory */
    int px;                      /* 1: PX pixels per work-item along x (the PX parameter); 2: PX
                                    floats, so PX/4 (at least 1) pixels of uchar4 */
    int sy;                      /* each work-item computes SY rows (the SY parameter) */
    enum kl_precision precision; /* its arithmetic: fp32 unless it says (fp16: packed half2) */
    int tensor;                  /* its products run on the tensor cores (mma.sync): warps over
                                    strips of 16 columns, WX side by side, CW channels each (all
                                    of a pixel's where it has no CW) */
    int rgba8_only;              /* computes 8-bit pixels only (--pixel uchar4) */
    int float_only;              /* computes float pixels only (--pixel float) */
    struct kl_param_def params[KL_MAX_PARAMS];
    struct kl_param_multiple multiples[KL_MAX_MULTIPLES]; /* e.g. TW a multiple of RX */
    struct kl_blur_preset presets[KL_BLUR_MAX_PRESETS];   /* where --param sets none of its own */
};

int kl_blur_rung_count(void);
const struct kl_blur_rung *kl_blur_rung_at(int i);
const struct kl_rung_table *kl_blur_rungs(void); /* the registry's view */

enum kl_pixel { KL_PIX_FLOAT, KL_PIX_UCHAR4 };

struct kl_ladder_tuner;

struct kl_blur_request {
    const char *input; /* PNG, PGM or PPM; NULL: a generated test image */
    int width, height; /* of the generated image */
    double sigma;      /* > 0 */
    int radius;        /* -1: ceil(3σ) */
    enum kl_pixel pixel;
    const char *output;      /* PNG of the result, or NULL */
    const char *output_rung; /* rung whose result is written; NULL: the fastest verified */
    unsigned long long seed;
    struct kl_protocol protocol;
    const char *const *params;
    int nparams;
    const char *const *rungs;
    int nrungs;
    const struct kl_user_rung *users; /* the user's kernels (--kernel), after the table's */
    int nusers;
    const struct kl_ladder_tuner
        *tuner;               /* NULL; else the chosen rung is tuned (tune/ladder.c) */
    const char *const *peers; /* "npp": a row each after the rungs */
    int npeers;
};

enum kl_status kl_blur_ladder(struct kl_context *kl, const struct kl_blur_request *req,
                              struct kl_report *report);

#endif /* KL_BLUR_H */
