/* symcut — shape rules of convolution and pooling and their backward
 * ops. */
#include <config.h>

#include "graph/shapes.h"

/* A per-spatial-dim parameter: list[i], or list[0] when it has one. */
static sc_expr *param(sc_expr **list, size_t n, size_t i, sc_expr *dflt)
{
    if (n == 0)
        return dflt;
    return list[n == 1 ? 0 : i];
}

sc_status sc__shape_convolution(struct sc__shape_call *c)
{
    sc_tensor_meta in, w;
    sc_expr **stride, **pad, **dil, **opad, *groups, **d;
    size_t ns, np, nd, no, i, k;
    bool present, transposed = sc__shape_get_bool(c, "transposed", false);
    sc_expr *one, *zero;

    SC_TRY(sc__shape_get_tensor(c, "input", &in));
    SC_TRY(sc__shape_get_tensor(c, "weight", &w));
    SC_TRY(sc__shape_get_symint_list(c, "stride", &stride, &ns, &present));
    SC_TRY(sc__shape_get_symint_list(c, "padding", &pad, &np, &present));
    SC_TRY(sc__shape_get_symint_list(c, "dilation", &dil, &nd, &present));
    SC_TRY(sc__shape_get_symint_list(c, "output_padding", &opad, &no,
                                     &present));
    SC_TRY(sc__shape_get_symint(c, "groups", &groups));
    one = sc_expr_int_si(c->ctx, 1);
    zero = sc_expr_int_si(c->ctx, 0);
    if (!groups)
        groups = one;
    if (in.ndim < 3 || w.ndim != in.ndim)
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "expected input of 3 or more dims and a "
                              "weight of the same rank (got %zu and %zu)",
                              in.ndim, w.ndim);
    k = in.ndim - 2;
    SC_TRY(sc__shape_outputs(c, 1));
    d = sc__shape_dims(c, in.ndim);
    if (!d)
        return SC_ERR_NOMEM;
    d[0] = in.sizes[0];
    if (transposed) {
        d[1] = sc_expr_mul(c->ctx, w.sizes[1], groups);
        SC_TRY(sc__shape_check_eq(c, in.sizes[1], w.sizes[0],
                                  "input channels must match the "
                                  "weight's first dim"));
    } else {
        d[1] = w.sizes[0];
        SC_TRY(sc__shape_check_eq(c, in.sizes[1],
                                  sc_expr_mul(c->ctx, w.sizes[1], groups),
                                  "input channels must equal "
                                  "weight.size(1) * groups"));
    }
    for (i = 0; i < k; i++) {
        sc_expr *s = param(stride, ns, i, one), *p = param(pad, np, i, zero);
        sc_expr *dl = param(dil, nd, i, one), *x = in.sizes[2 + i];
        sc_expr *kk = w.sizes[2 + i];
        /* dilation * (kernel - 1) */
        sc_expr *span = sc_expr_mul(c->ctx, dl, sc_expr_add_si(c->ctx, kk, -1));
        if (transposed) {
            sc_expr *op = param(opad, no, i, zero);
            d[2 + i] = sc_expr_add_n(
                c->ctx, 4,
                (sc_expr *[]){sc_expr_mul(c->ctx,
                                          sc_expr_add_si(c->ctx, x, -1), s),
                              sc_expr_mul_si(c->ctx, p, -2), span,
                              sc_expr_add_si(c->ctx, op, 1)});
        } else {
            sc_expr *num = sc_expr_sub(
                c->ctx,
                sc_expr_add(c->ctx, x, sc_expr_mul_si(c->ctx, p, 2)),
                sc_expr_add_si(c->ctx, span, 1));
            d[2 + i] = sc_expr_add_si(c->ctx, sc_expr_floordiv(c->ctx, num, s),
                                      1);
        }
    }
    return sc__shape_set_tensor(c, 0, in.dtype, in.ndim, d, NULL, &in);
}

sc_status sc__shape_convolution_backward(struct sc__shape_call *c)
{
    sc_tensor_meta in, w, go;
    sc_expr **bias;
    size_t nb;
    bool present;

    SC_TRY(sc__shape_get_tensor(c, "grad_output", &go));
    SC_TRY(sc__shape_get_tensor(c, "input", &in));
    SC_TRY(sc__shape_get_tensor(c, "weight", &w));
    SC_TRY(sc__shape_get_symint_list(c, "bias_sizes", &bias, &nb, &present));
    SC_TRY(sc__shape_outputs(c, 3));
    SC_TRY(sc__shape_masked_like(c, 0, &in, true));
    SC_TRY(sc__shape_masked_like(c, 1, &w, true));
    if (sc__shape_get_bool_at(c, "output_mask", 2, true)) {
        sc_expr **d = sc__shape_dims(c, 1);
        if (!d)
            return SC_ERR_NOMEM;
        d[0] = present && nb ? bias[0] : go.sizes[1];
        SC_TRY(sc__shape_set_tensor(c, 2, go.dtype, 1, d, NULL, &go));
    } else {
        c->out[2].kind = SC_RESULT_NONE;
    }
    return SC_OK;
}

/* PyTorch's pooling_output_shape. */
static sc_status pool_size(struct sc__shape_call *c, sc_expr *in, sc_expr *k,
                           sc_expr *pad, sc_expr *stride, sc_expr *dil,
                           bool ceil_mode, sc_expr **out)
{
    sc_ctx *x = c->ctx;
    sc_expr *num = sc_expr_sub(
        x, sc_expr_add(x, in, sc_expr_mul_si(x, pad, 2)),
        sc_expr_add_si(x, sc_expr_mul(x, dil, sc_expr_add_si(x, k, -1)), 1));
    sc_expr *o;
    if (ceil_mode)
        num = sc_expr_add(x, num, sc_expr_add_si(x, stride, -1));
    o = sc_expr_add_si(x, sc_expr_floordiv(x, num, stride), 1);
    if (ceil_mode) {
        /* the last window must start inside the input or left padding */
        bool shrink;
        SC_TRY(sc__shape_guard(
            c,
            sc_expr_ge(x, sc_expr_mul(x, sc_expr_add_si(x, o, -1), stride),
                       sc_expr_add(x, in, pad)),
            &shrink));
        if (shrink)
            o = sc_expr_add_si(x, o, -1);
    }
    *out = o;
    return o ? SC_OK : sc__shape_expr_error(c);
}

sc_status sc__shape_max_pool2d(struct sc__shape_call *c)
{
    sc_tensor_meta in;
    sc_expr **ks, **st, **pad, **dil, **d;
    size_t nk, ns, np, nd, i;
    bool present, ceil_mode = sc__shape_get_bool(c, "ceil_mode", false);
    sc_expr *one, *zero;

    SC_TRY(sc__shape_get_tensor(c, "self", &in));
    SC_TRY(sc__shape_need_dims(c, "self", &in, 3, 4));
    SC_TRY(sc__shape_get_symint_list(c, "kernel_size", &ks, &nk, &present));
    SC_TRY(sc__shape_get_symint_list(c, "stride", &st, &ns, &present));
    SC_TRY(sc__shape_get_symint_list(c, "padding", &pad, &np, &present));
    SC_TRY(sc__shape_get_symint_list(c, "dilation", &dil, &nd, &present));
    if (nk == 0)
        return sc__shape_fail(c, SC_ERR_SHAPE, "no kernel_size");
    one = sc_expr_int_si(c->ctx, 1);
    zero = sc_expr_int_si(c->ctx, 0);
    d = sc__shape_dims(c, in.ndim);
    if (!d)
        return SC_ERR_NOMEM;
    for (i = 0; i < in.ndim - 2; i++)
        d[i] = in.sizes[i];
    for (i = 0; i < 2; i++) {
        sc_expr *k = param(ks, nk, i, one);
        SC_TRY(pool_size(c, in.sizes[in.ndim - 2 + i], k,
                         param(pad, np, i, zero), param(st, ns, i, k),
                         param(dil, nd, i, one), ceil_mode,
                         &d[in.ndim - 2 + i]));
    }
    SC_TRY(sc__shape_outputs(c, 2));
    SC_TRY(sc__shape_set_tensor(c, 0, in.dtype, in.ndim, d, NULL, &in));
    d = sc__shape_copy_sizes(c, &c->out[0].tensor);
    if (!d)
        return SC_ERR_NOMEM;
    return sc__shape_set_tensor(c, 1, SC_DTYPE_I64, in.ndim, d, NULL, &in);
}

sc_status sc__shape_max_pool2d_backward(struct sc__shape_call *c)
{
    sc_tensor_meta self, go;

    SC_TRY(sc__shape_get_tensor(c, "self", &self));
    SC_TRY(sc__shape_get_tensor(c, "grad_output", &go));
    SC_TRY(sc__shape_outputs(c, 1));
    return sc__shape_like_contiguous(c, 0, &self, go.dtype);
}
