/* symcut — kernels: the names graph/ops.yaml gives to overloads that one
 * kernel serves (add.Tensor and add.Scalar are both sc__kernel_add: the
 * kernel reads a tensor or a scalar from the same argument slot), plus
 * small ops written in terms of others. */
#include "kernels/kernels-internal.h"

#define SC__KERNEL_ALIAS(name, target)                                       \
    sc_status sc__kernel_##name(sc__kernel_call *call)                       \
    {                                                                        \
        return sc__kernel_##target(call);                                    \
    }

SC__KERNEL_ALIAS_LIST(SC__KERNEL_ALIAS)
