/* symcut — shape rules of adaptive average pooling
 * (_adaptive_avg_pool2d and its backward). */
#include <config.h>

#include <string.h>

#include "graph/shapes.h"

/* Is t a 4-d tensor laid out channels-last (dense in N, H, W, C order)
 * and not also contiguous?  Decided structurally (interned expressions):
 * a layout that is channels-last only for some sizes counts as not. */
static bool is_channels_last(struct sc__shape_call *c, const sc_tensor_meta *t)
{
    static const size_t perm[4] = {0, 2, 3, 1};
    sc_expr **cl, **ct;
    size_t k;
    bool same_cl = true, same_ct = true;

    if (t->ndim != 4 || !t->has_strides)
        return false;
    cl = sc__shape_dims(c, 4);
    ct = sc__shape_dims(c, 4);
    if (!cl || !ct || sc__shape_dense_in_order(c, 4, t->sizes, perm, cl) !=
                          SC_OK ||
        sc__shape_contiguous(c, 4, t->sizes, ct) != SC_OK)
        return false;
    for (k = 0; k < 4; k++) {
        same_cl = same_cl && cl[k] == t->strides[k];
        same_ct = same_ct && ct[k] == t->strides[k];
    }
    return same_cl && !same_ct;
}

/* _adaptive_avg_pool2d(self, output_size): [N, C, oh, ow] or [C, oh, ow];
 * channels-last when self is, else contiguous. */
sc_status sc__shape_adaptive_avg_pool2d(struct sc__shape_call *c)
{
    static const size_t perm[4] = {0, 2, 3, 1};
    sc_tensor_meta self;
    sc_expr **os, **d, **st = NULL, *zero = sc_expr_int_si(c->ctx, 0);
    size_t n, k;
    bool present;

    SC_TRY(sc__shape_get_tensor(c, "self", &self));
    SC_TRY(sc__shape_need_dims(c, "self", &self, 3, 4));
    SC_TRY(sc__shape_get_symint_list(c, "output_size", &os, &n, &present));
    if (n != 2)
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "adaptive_avg_pool2d: output_size must be 2");
    for (k = 0; k < 2; k++)
        SC_TRY(sc__shape_check(c, sc_expr_ge(c->ctx, os[k], zero),
                               "adaptive_avg_pool2d: elements of output_size "
                               "must be greater than or equal to 0"));
    for (k = 1; k < self.ndim; k++)
        SC_TRY(sc__shape_check(c, sc_expr_gt(c->ctx, self.sizes[k], zero),
                               "adaptive_avg_pool2d(): Expected input to have "
                               "non-zero size for non-batch dimensions"));
    d = sc__shape_copy_sizes(c, &self);
    if (!d)
        return SC_ERR_NOMEM;
    d[self.ndim - 2] = os[0];
    d[self.ndim - 1] = os[1];
    if (is_channels_last(c, &self)) {
        st = sc__shape_dims(c, 4);
        if (!st)
            return SC_ERR_NOMEM;
        SC_TRY(sc__shape_dense_in_order(c, 4, d, perm, st));
    }
    SC_TRY(sc__shape_outputs(c, 1));
    return sc__shape_set_tensor(c, 0, self.dtype, self.ndim, d, st, &self);
}

/* _adaptive_avg_pool2d_backward(grad_output, self): self's sizes and
 * dtype, contiguous (channels-last when self is); grad_output has self's
 * rank and leading sizes. */
sc_status sc__shape_adaptive_avg_pool2d_backward(struct sc__shape_call *c)
{
    static const size_t perm[4] = {0, 2, 3, 1};
    sc_tensor_meta g, self;
    sc_expr **d, **st = NULL;
    size_t k;

    SC_TRY(sc__shape_get_tensor(c, "grad_output", &g));
    SC_TRY(sc__shape_get_tensor(c, "self", &self));
    SC_TRY(sc__shape_need_dims(c, "self", &self, 3, 4));
    if (g.ndim != self.ndim)
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "adaptive_avg_pool2d_backward: grad_output has "
                              "%zu dims, self %zu", g.ndim, self.ndim);
    for (k = 0; k + 2 < self.ndim; k++)
        SC_TRY(sc__shape_check_eq(c, g.sizes[k], self.sizes[k],
                                  "adaptive_avg_pool2d_backward: grad_output "
                                  "and self differ in a leading size"));
    if (g.dtype != self.dtype)
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "expected dtype %s for `grad_output` but got "
                              "dtype %s", sc_dtype_torch_name(self.dtype),
                              sc_dtype_torch_name(g.dtype));
    d = sc__shape_copy_sizes(c, &self);
    if (!d)
        return SC_ERR_NOMEM;
    if (is_channels_last(c, &self)) {
        st = sc__shape_dims(c, 4);
        if (!st)
            return SC_ERR_NOMEM;
        SC_TRY(sc__shape_dense_in_order(c, 4, d, perm, st));
    }
    SC_TRY(sc__shape_outputs(c, 1));
    return sc__shape_set_tensor(c, 0, self.dtype, self.ndim, d, st, &self);
}
