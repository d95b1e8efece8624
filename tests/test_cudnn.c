/*
 * kladder's cuDNN peer against the library itself, no GPU needed:
 * - where cuDNN's headers were found at build time (KL_CUDNN_HEADERS), every
 *   value kladder passes (peers/cudnn_values.h) checked by the compiler;
 * - where libcudnn loads, the layer and RMS norms' tensors and operation as
 *   the peer builds them, finalized by cuDNN at the softmax ladder's test
 *   shapes and types, and a problem cuDNN must refuse refused.
 * Exit 77 (skipped) where libcudnn is not installed.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "peers/cudnn_values.h"
#include "peers/peers_impl.h"

#ifdef KL_CUDNN_HEADERS
#include <cudnn_graph.h>
#include <cudnn_ops.h>
#define SAME(name, value) _Static_assert(CUDNN_##name == (value), "CUDNN_" #name " is not " #value);
KL_CUDNN_VALUES(SAME)
#endif

int main(void)
{
    static const enum kl_type types[] = {KL_FLOAT, KL_HALF, KL_BF16};
    static const int shapes[][2] = {{1, 1}, {33, 31}, {1000, 1031}, {1, 100003}, {64, 262144}};
    struct kl_softmax_problem p = {.gamma = 1.5f, .beta = -0.25f, .eps = 1e-5f};
    struct kl_err e;
    p.op = 1, p.type = KL_FLOAT, p.rows = p.cols = 4;
    enum kl_status st = kl_cudnn_norm_operation(&p, &e);
    if (st == KL_ERR_UNSUPPORTED) {
        printf("skipped: %s\n", e.msg);
        return 77;
    }
    for (int op = 1; op <= 2; op++)
        for (size_t t = 0; t < sizeof types / sizeof *types; t++)
            for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
                p.op = op, p.type = types[t], p.rows = shapes[s][0], p.cols = shapes[s][1];
                st = kl_cudnn_norm_operation(&p, &e);
                CHECK(st == KL_OK, "cuDNN builds op %d of %s, %d x %d: %s", op,
                      kl_type_name(p.type), p.rows, p.cols, st == KL_OK ? "" : e.msg);
            }
    p.op = 2, p.type = KL_HALF, p.rows = -1, p.cols = 8;
    st = kl_cudnn_norm_operation(&p, &e);
    CHECK(st == KL_ERR_BACKEND && strstr(e.msg, "cudnnBackend"), "cuDNN refuses -1 rows: %s",
          st == KL_OK ? "(accepted)" : e.msg);
    return check_summary();
}
