/*
 * The public ladder API as another program would use it, through kladder.h
 * only: ladders of every workload with the user's kernels on them, results
 * read as rows, a wrong kernel a failed row, and bad requests refused.
 * usage: test_api_ladder SOURCE_DIR (for kernels/templates and tests/user_kernels)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "kladder.h"
#include "ladder_rows.h"

static char paths[4][4096];

int main(int argc, char **argv)
{
    struct kl_context *kl;
    struct kl_ladder *l;
    struct kl_protocol quick = {.warmup = 0, .min_repeats = 1, .min_time = 0.0, .max_repeats = 1};
    char err[4096];
    if (argc != 2) {
        fprintf(stderr, "usage: test_api_ladder SOURCE_DIR\n");
        return 2;
    }
    snprintf(paths[0], sizeof paths[0], "%s/kernels/templates/rowdot.cl", argv[1]);
    snprintf(paths[1], sizeof paths[1], "%s/tests/user_kernels/wrong_result.cl", argv[1]);
    snprintf(paths[2], sizeof paths[2], "%s/kernels/templates/blur.cl", argv[1]);
    snprintf(paths[3], sizeof paths[3], "%s/tests/user_kernels/no_such_file.cl", argv[1]);
    if (kl_open(NULL, &kl, err, sizeof err) != KL_OK) {
        fprintf(stderr, "cannot open a device: %s\n", err);
        return 1;
    }

    /* The whole ladder and two kernels of the user's: one right, one wrong. */
    const char *rungs[] = {"01", "02"}, *mine[] = {paths[0], paths[1]};
    struct kl_ladder_request req = {.workload = "rowdot",
                                    .size = {37, 101},
                                    .kernels = mine,
                                    .nkernels = 2,
                                    .protocol = &quick};
    CHECK(kl_ladder_run(kl, &req, &l) == KL_OK, "rowdot ladder: %s", kl_last_error(kl));
    const struct kl_row *r = row_named(l, "rowdot"), *w = row_named(l, "wrong_result");
    CHECK(strcmp(kl_ladder_sizes(l), "Y=37 D=101") == 0, "sizes \"%s\"", kl_ladder_sizes(l));
    CHECK(kl_ladder_count(l) >= 3 && r && w, "every rung, then the two kernels (%d rows)",
          kl_ladder_count(l));
    CHECK(r && r->status == KL_ROW_VERIFIED && r->median_s > 0 && r->gbps > 0 && r->repeats == 1,
          "the template: verified, timed, its rate derived");
    CHECK(w && w->status == KL_ROW_FAILED && strstr(w->note, "differ from the reference") &&
              w->gbps == 0,
          "the wrong kernel: failed, with where, and no speed (%s)", w ? w->note : "no row");
    CHECK(kl_ladder_row(l, -1) == NULL && kl_ladder_row(l, kl_ladder_count(l)) == NULL,
          "rows out of range are NULL");
    char json[64];
    snprintf(json, sizeof json, "test_api_ladder_%d.json", (int)getpid());
    CHECK(kl_ladder_write_json(l, json) == KL_OK, "JSON written");
    FILE *f = fopen(json, "r");
    char text[1 << 16] = "";
    if (f) {
        text[fread(text, 1, sizeof text - 1, f)] = '\0';
        fclose(f);
    }
    remove(json);
    CHECK(strstr(text, "\"rung\": \"wrong_result\"") && strstr(text, "\"status\": \"failed\""),
          "the JSON holds the rows");
    kl_ladder_free(l);

    /* Only the named rungs; gemm in double; blur of 8-bit pixels with a kernel of the user's. */
    req = (struct kl_ladder_request){.workload = "gemm",
                                     .type = KL_DOUBLE,
                                     .size = {33, 17, 9},
                                     .rungs = rungs,
                                     .nrungs = 2,
                                     .protocol = &quick};
    int fp64 = kl_ladder_run(kl, &req, &l) == KL_OK;
    CHECK(fp64 ? kl_ladder_count(l) == 2 && kl_ladder_row(l, 0)->status == KL_ROW_VERIFIED &&
                     kl_ladder_row(l, 0)->precision &&
                     strcmp(kl_ladder_row(l, 0)->precision, "fp64") == 0
               : strstr(kl_last_error(kl), "double") != NULL,
          "gemm double, rungs 01 and 02: %s", fp64 ? "ran" : kl_last_error(kl));
    kl_ladder_free(l);
    const char *one[] = {"01"}, *blur[] = {paths[2]};
    req = (struct kl_ladder_request){.workload = "blur",
                                     .size = {37, 11},
                                     .sigma = 1.5,
                                     .uchar4 = 1,
                                     .rungs = one,
                                     .nrungs = 1,
                                     .kernels = blur,
                                     .nkernels = 1,
                                     .protocol = &quick};
    CHECK(kl_ladder_run(kl, &req, &l) == KL_OK && kl_ladder_count(l) == 1 &&
              kl_ladder_row(l, 0)->status == KL_ROW_VERIFIED,
          "blur uchar4: the named rung, verified: %s", kl_last_error(kl));
    kl_ladder_free(l);
    const char *both[] = {"01", "blur"};
    req.rungs = both, req.nrungs = 2;
    CHECK(kl_ladder_run(kl, &req, &l) == KL_OK && kl_ladder_count(l) == 2 &&
              kl_ladder_row(l, 1)->status == KL_ROW_VERIFIED &&
              strcmp(kl_ladder_row(l, 1)->rung, "blur") == 0,
          "blur: the user's kernel named by --rung: %s", kl_last_error(kl));
    kl_ladder_free(l);

    /* reduce through the API: its own options as NAME=VALUE items, ints whose maximum is exact,
     * the one-pass rungs named; a value it does not take refused. */
    const char *max_skewed[] = {"op=max", "data=skewed"}, *one_pass[] = {"09", "10"};
    req = (struct kl_ladder_request){.workload = "reduce",
                                     .type = KL_INT,
                                     .size = {100003},
                                     .options = max_skewed,
                                     .noptions = 2,
                                     .rungs = one_pass,
                                     .nrungs = 2,
                                     .protocol = &quick};
    CHECK(kl_ladder_run(kl, &req, &l) == KL_OK && kl_ladder_count(l) == 2 &&
              kl_ladder_row(l, 0)->status == KL_ROW_VERIFIED &&
              kl_ladder_row(l, 1)->status == KL_ROW_VERIFIED &&
              strcmp(kl_ladder_sizes(l), "N=100003 op=max data=skewed") == 0,
          "reduce max of skewed ints, rungs 09 and 10: %s (%s)", kl_last_error(kl),
          l ? kl_ladder_sizes(l) : "no ladder");
    kl_ladder_free(l);
    const char *avg[] = {"op=avg"};
    req.options = avg, req.noptions = 1;
    CHECK(kl_ladder_run(kl, &req, &l) == KL_ERR_ARG && !l &&
              strstr(kl_last_error(kl), "\"avg\" is not one of sum min max"),
          "reduce op=avg: %s", kl_last_error(kl));

    /* scan and histogram through the API: their options as NAME=VALUE items, the one-pass
     * look-back and the run-counting rung; a bin count out of range refused. */
    const char *exclusive_skewed[] = {"mode=exclusive", "data=skewed", "checks=2"};
    const char *scan_rungs[] = {"03", "05"};
    req = (struct kl_ladder_request){.workload = "scan",
                                     .type = KL_INT,
                                     .size = {100003},
                                     .options = exclusive_skewed,
                                     .noptions = 3,
                                     .rungs = scan_rungs,
                                     .nrungs = 2,
                                     .protocol = &quick};
    CHECK(kl_ladder_run(kl, &req, &l) == KL_OK && kl_ladder_count(l) == 2 &&
              kl_ladder_row(l, 0)->status == KL_ROW_VERIFIED &&
              kl_ladder_row(l, 1)->status == KL_ROW_VERIFIED &&
              strcmp(kl_ladder_sizes(l), "N=100003 mode=exclusive data=skewed") == 0,
          "scan exclusive of skewed ints, rungs 03 and 05: %s (%s)", kl_last_error(kl),
          l ? kl_ladder_sizes(l) : "no ladder");
    kl_ladder_free(l);
    const char *seven_constant[] = {"bins=7", "data=constant"}, *runs[] = {"04"};
    req = (struct kl_ladder_request){.workload = "histogram",
                                     .type = KL_UCHAR,
                                     .size = {100003},
                                     .options = seven_constant,
                                     .noptions = 2,
                                     .rungs = runs,
                                     .nrungs = 1,
                                     .protocol = &quick};
    CHECK(kl_ladder_run(kl, &req, &l) == KL_OK && kl_ladder_count(l) == 1 &&
              kl_ladder_row(l, 0)->status == KL_ROW_VERIFIED &&
              strcmp(kl_ladder_sizes(l), "N=100003 bins=7 data=constant") == 0,
          "histogram of constant bytes in 7 bins, rung 04: %s (%s)", kl_last_error(kl),
          l ? kl_ladder_sizes(l) : "no ladder");
    kl_ladder_free(l);
    const char *one_bin[] = {"bins=1"};
    req.options = one_bin, req.noptions = 1;
    CHECK(kl_ladder_run(kl, &req, &l) == KL_ERR_ARG && !l &&
              strstr(kl_last_error(kl), "\"1\" is not an integer from 2 to 256"),
          "histogram bins=1: %s", kl_last_error(kl));

    /* transpose through the API: two sizes, in place as an option item, 2-byte elements; a
     * matrix that is not square refused in place. */
    const char *in_place[] = {"place=in"}, *vector[] = {"05"};
    req = (struct kl_ladder_request){.workload = "transpose",
                                     .type = KL_HALF,
                                     .size = {65, 65},
                                     .options = in_place,
                                     .noptions = 1,
                                     .rungs = vector,
                                     .nrungs = 1,
                                     .protocol = &quick};
    CHECK(kl_ladder_run(kl, &req, &l) == KL_OK && kl_ladder_count(l) == 1 &&
              kl_ladder_row(l, 0)->status == KL_ROW_VERIFIED &&
              strcmp(kl_ladder_sizes(l), "M=65 N=65 place=in") == 0,
          "transpose of 65x65 halves in place, rung 05: %s (%s)", kl_last_error(kl),
          l ? kl_ladder_sizes(l) : "no ladder");
    kl_ladder_free(l);
    req.size[1] = 64;
    CHECK(kl_ladder_run(kl, &req, &l) == KL_ERR_ARG && !l &&
              strstr(kl_last_error(kl), "a 65x64 matrix is not square"),
          "transpose 65x64 in place: %s", kl_last_error(kl));

    /* softmax through the API: layer norm with gamma, beta and eps as option items (real
     * numbers), bf16 rows; eps 0 refused. */
    const char *norm[] = {"op=layernorm", "gamma=2.5", "beta=-0.5", "eps=1e-3"},
               *registers[] = {"04"};
    req = (struct kl_ladder_request){.workload = "softmax",
                                     .type = KL_BF16,
                                     .size = {33, 1031},
                                     .options = norm,
                                     .noptions = 4,
                                     .rungs = registers,
                                     .nrungs = 1,
                                     .protocol = &quick};
    CHECK(kl_ladder_run(kl, &req, &l) == KL_OK && kl_ladder_count(l) == 1 &&
              kl_ladder_row(l, 0)->status == KL_ROW_VERIFIED &&
              strcmp(kl_ladder_sizes(l), "rows=33 cols=1031 op=layernorm") == 0,
          "layer norm of 33 x 1031 bf16s, rung 04: %s (%s)", kl_last_error(kl),
          l ? kl_ladder_sizes(l) : "no ladder");
    kl_ladder_free(l);
    norm[3] = "eps=0";
    CHECK(kl_ladder_run(kl, &req, &l) == KL_ERR_ARG && !l &&
              strstr(kl_last_error(kl), "eps above 0"),
          "layer norm with eps 0: %s", kl_last_error(kl));

    /* Bad requests: refused with the reason, *out NULL. */
    const char *nosuch[] = {"99_nosuch"}, *missing[] = {paths[3]};
    req = (struct kl_ladder_request){.workload = "fft"};
    CHECK(kl_ladder_run(kl, &req, &l) == KL_ERR_ARG && !l &&
              strstr(kl_last_error(kl), "unknown workload \"fft\""),
          "unknown workload: %s", kl_last_error(kl));
    req = (struct kl_ladder_request){
        .workload = "copy", .size = {1001}, .rungs = nosuch, .nrungs = 1};
    CHECK(kl_ladder_run(kl, &req, &l) == KL_ERR_ARG && !l && strstr(kl_last_error(kl), "99_nosuch"),
          "unknown rung: %s", kl_last_error(kl));
    req = (struct kl_ladder_request){
        .workload = "copy", .size = {1001}, .kernels = missing, .nkernels = 1};
    CHECK(kl_ladder_run(kl, &req, &l) != KL_OK && !l && strstr(kl_last_error(kl), "cannot open"),
          "missing kernel file: %s", kl_last_error(kl));
    req = (struct kl_ladder_request){.workload = "gemv", .size = {-4, 3}};
    CHECK(kl_ladder_run(kl, &req, &l) == KL_ERR_ARG && !l && strstr(kl_last_error(kl), "-4"),
          "negative size: %s", kl_last_error(kl));
    req = (struct kl_ladder_request){.workload = "copy", .size = {1001}, .peers = one, .npeers = 1};
    CHECK(kl_ladder_run(kl, &req, &l) == KL_ERR_ARG && !l, "copy has no peers");
    kl_close(kl);
    return check_summary();
}
