/* symcut — kernels: the names graph/ops.yaml gives to overloads that one
 * kernel serves (add.Tensor and add.Scalar are both sc__kernel_add: the
 * kernel reads a tensor or a scalar from the same argument slot).
 *
 * Each target reads its arguments through the constants of one of its
 * names (sc__kernel_add through SC_KARG_ADD_TENSOR_*); the assertions
 * below fail the build when a schema edit gives another name's argument a
 * different index. */
#include "kernels/kernels-internal.h"

#define SC__KERNEL_ALIAS(name, target)                                       \
    sc_status sc__kernel_##name(sc__kernel_call *call)                       \
    {                                                                        \
        return sc__kernel_##target(call);                                    \
    }

SC__KERNEL_ALIAS_LIST(SC__KERNEL_ALIAS)

/* Kernel name NAME has argument ARG where READ, whose constants the target
 * reads, has it. */
#define SAME_ARG(NAME, READ, ARG)                                            \
    _Static_assert(SC_KARG_##NAME##_##ARG == SC_KARG_##READ##_##ARG,         \
                   #NAME " and " #READ " disagree on " #ARG);
#define SAME_BINARY(NAME, READ)                                              \
    SAME_ARG(NAME, READ, SELF) SAME_ARG(NAME, READ, OTHER)

SAME_BINARY(ADD_SCALAR, ADD_TENSOR)
SAME_ARG(ADD_SCALAR, ADD_TENSOR, ALPHA)
SAME_BINARY(SUB_SCALAR, SUB_TENSOR)
SAME_ARG(SUB_SCALAR, SUB_TENSOR, ALPHA)
SAME_BINARY(MUL_SCALAR, MUL_TENSOR)
SAME_BINARY(DIV_TENSOR, DIV_TENSOR_MODE)
SAME_BINARY(DIV_SCALAR, DIV_TENSOR_MODE)
SAME_ARG(POW_TENSOR_SCALAR, POW_TENSOR_TENSOR, SELF)
SAME_ARG(POW_TENSOR_SCALAR, POW_TENSOR_TENSOR, EXPONENT)
SAME_ARG(POW_SCALAR, POW_TENSOR_TENSOR, SELF)
SAME_ARG(POW_SCALAR, POW_TENSOR_TENSOR, EXPONENT)
SAME_BINARY(EQ_SCALAR, EQ_TENSOR)
SAME_BINARY(NE_SCALAR, NE_TENSOR)
SAME_BINARY(LT_SCALAR, LT_TENSOR)
SAME_BINARY(LE_SCALAR, LE_TENSOR)
SAME_BINARY(GT_SCALAR, GT_TENSOR)
SAME_BINARY(GE_SCALAR, GE_TENSOR)
SAME_ARG(BERNOULLI_FLOAT, BERNOULLI_P, SELF)
SAME_ARG(BERNOULLI_FLOAT, BERNOULLI_P, P)
