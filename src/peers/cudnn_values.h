/*
 * The values of cuDNN's enums that kladder passes, as cudnn_graph.h and
 * cudnn_ops.h of version 9 give them (the legacy API's unchanged since 7):
 * X(NAME, value) for each CUDNN_NAME. kladder loads cuDNN at run time and
 * builds without its headers (peers/cudnn.c spells these out); where the
 * headers are found at build time, tests/cudnn_values.c has the compiler
 * check every value against them.
 */
#ifndef KL_CUDNN_VALUES_H
#define KL_CUDNN_VALUES_H

#define KL_CUDNN_VALUES(X)                                                                         \
    X(STATUS_NOT_SUPPORTED, 3000)                                                                  \
    X(DATA_FLOAT, 0)                                                                               \
    X(DATA_HALF, 2)                                                                                \
    X(DATA_BFLOAT16, 9)                                                                            \
    X(TENSOR_NCHW, 0)                                                                              \
    X(SOFTMAX_ACCURATE, 1)                                                                         \
    X(SOFTMAX_MODE_CHANNEL, 1)                                                                     \
    X(TYPE_HANDLE, 0)                                                                              \
    X(TYPE_DATA_TYPE, 1)                                                                           \
    X(TYPE_BOOLEAN, 2)                                                                             \
    X(TYPE_INT64, 3)                                                                               \
    X(TYPE_VOID_PTR, 6)                                                                            \
    X(TYPE_HEUR_MODE, 8)                                                                           \
    X(TYPE_BACKEND_DESCRIPTOR, 15)                                                                 \
    X(TYPE_NORM_MODE, 27)                                                                          \
    X(TYPE_NORM_FWD_PHASE, 28)                                                                     \
    X(BACKEND_ENGINECFG_DESCRIPTOR, 3)                                                             \
    X(BACKEND_ENGINEHEUR_DESCRIPTOR, 4)                                                            \
    X(BACKEND_EXECUTION_PLAN_DESCRIPTOR, 5)                                                        \
    X(BACKEND_OPERATIONGRAPH_DESCRIPTOR, 15)                                                       \
    X(BACKEND_VARIANT_PACK_DESCRIPTOR, 16)                                                         \
    X(BACKEND_TENSOR_DESCRIPTOR, 17)                                                               \
    X(BACKEND_OPERATION_NORM_FORWARD_DESCRIPTOR, 29)                                               \
    X(ATTR_ENGINEHEUR_MODE, 200)                                                                   \
    X(ATTR_ENGINEHEUR_OPERATION_GRAPH, 201)                                                        \
    X(ATTR_ENGINEHEUR_RESULTS, 202)                                                                \
    X(ATTR_EXECUTION_PLAN_HANDLE, 400)                                                             \
    X(ATTR_EXECUTION_PLAN_ENGINE_CONFIG, 401)                                                      \
    X(ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, 402)                                                     \
    X(ATTR_OPERATIONGRAPH_HANDLE, 800)                                                             \
    X(ATTR_OPERATIONGRAPH_OPS, 801)                                                                \
    X(ATTR_TENSOR_BYTE_ALIGNMENT, 900)                                                             \
    X(ATTR_TENSOR_DATA_TYPE, 901)                                                                  \
    X(ATTR_TENSOR_DIMENSIONS, 902)                                                                 \
    X(ATTR_TENSOR_STRIDES, 903)                                                                    \
    X(ATTR_TENSOR_UNIQUE_ID, 906)                                                                  \
    X(ATTR_TENSOR_IS_BY_VALUE, 908)                                                                \
    X(ATTR_VARIANT_PACK_UNIQUE_IDS, 1000)                                                          \
    X(ATTR_VARIANT_PACK_DATA_POINTERS, 1001)                                                       \
    X(ATTR_VARIANT_PACK_WORKSPACE, 1003)                                                           \
    X(ATTR_OPERATION_NORM_FWD_MODE, 2000)                                                          \
    X(ATTR_OPERATION_NORM_FWD_PHASE, 2001)                                                         \
    X(ATTR_OPERATION_NORM_FWD_XDESC, 2002)                                                         \
    X(ATTR_OPERATION_NORM_FWD_SCALE_DESC, 2005)                                                    \
    X(ATTR_OPERATION_NORM_FWD_BIAS_DESC, 2006)                                                     \
    X(ATTR_OPERATION_NORM_FWD_EPSILON_DESC, 2007)                                                  \
    X(ATTR_OPERATION_NORM_FWD_YDESC, 2013)                                                         \
    X(LAYER_NORM, 0)                                                                               \
    X(RMS_NORM, 4)                                                                                 \
    X(NORM_FWD_INFERENCE, 0)                                                                       \
    X(HEUR_MODE_FALLBACK, 2)                                                                       \
    X(HEUR_MODE_A, 3)

#endif /* KL_CUDNN_VALUES_H */
