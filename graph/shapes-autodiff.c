/* symcut — shape rules of the ops that exist for autodiff (the backward of
 * select, slice and as_strided; doc/autodiff.md). */
#include <config.h>

#include "graph/shapes.h"

/* select_backward / slice_backward / as_strided_backward: a contiguous
 * tensor of input_sizes in grad_output's dtype (and device).  For select
 * and slice input_sizes has grad_output's rank (select: one more). */
sc_status sc__shape_input_sizes(struct sc__shape_call *c)
{
    sc_tensor_meta grad;
    sc_expr **sizes, **strides;
    size_t n;
    bool present;
    sc_status status;

    SC_CHECK(sc__shape_get_tensor(c, "grad_output", &grad));
    SC_CHECK(sc__shape_get_symint_list(c, "input_sizes", &sizes, &n,
                                       &present));
    if (!present || (c->op != SC_OP_AS_STRIDED_BACKWARD &&
                     n != grad.ndim + (c->op == SC_OP_SELECT_BACKWARD)))
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "input_sizes has %zu sizes for a %zu-dim "
                              "gradient", n, grad.ndim);
    if (c->op == SC_OP_AS_STRIDED_BACKWARD) {
        sc_expr **in_strides, **size, **stride;
        size_t ns, m, ms;
        SC_CHECK(sc__shape_get_symint_list(c, "input_strides", &in_strides,
                                           &ns, &present));
        SC_CHECK(sc__shape_get_symint_list(c, "size", &size, &m, &present));
        SC_CHECK(sc__shape_get_symint_list(c, "stride", &stride, &ms,
                                           &present));
        if (ns != n || m != ms || m != grad.ndim)
            return sc__shape_fail(c, SC_ERR_SHAPE,
                                  "as_strided_backward: %zu input sizes, %zu "
                                  "input strides, %zu sizes, %zu strides for "
                                  "a %zu-dim gradient", n, ns, m, ms,
                                  grad.ndim);
    }
    strides = sc__shape_dims(c, n);
    if (!strides)
        return SC_ERR_NOMEM;
    SC_CHECK(sc__shape_contiguous(c, n, sizes, strides));
    SC_CHECK(sc__shape_outputs(c, 1));
    return sc__shape_set_tensor(c, 0, grad.dtype, n, sizes, strides, &grad);
fail:
    return status;
}
