/* symcut — shape rules of matrix products, normalizations, convolutions,
 * pooling, embeddings, losses and dropout (PyTorch's meta functions). */
#include <config.h>

#include <string.h>

#include "graph/shapes.h"

/* SC_ERR_SHAPE unless t has lo .. hi dims (`what` names it). */
sc_status sc__shape_need_dims(struct sc__shape_call *c, const char *what,
                              const sc_tensor_meta *t, size_t lo, size_t hi)
{
    if (t->ndim < lo || t->ndim > hi) {
        if (lo == hi)
            return sc__shape_fail(c, SC_ERR_SHAPE,
                                  "%s must be a %zu-D tensor (got %zu-D)",
                                  what, lo, t->ndim);
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "%s must have %zu to %zu dims (got %zu)", what,
                              lo, hi, t->ndim);
    }
    return SC_OK;
}

/* A copy of t's sizes. */
sc_expr **sc__shape_copy_sizes(struct sc__shape_call *c,
                               const sc_tensor_meta *t)
{
    sc_expr **d = sc__shape_dims(c, t->ndim);
    if (d && t->ndim)
        memcpy(d, t->sizes, t->ndim * sizeof *d);
    return d;
}

/* Result k: a contiguous tensor with t's sizes. */
sc_status sc__shape_like_contiguous(struct sc__shape_call *c, size_t k,
                                    const sc_tensor_meta *t, sc_dtype dtype)
{
    sc_expr **d = sc__shape_copy_sizes(c, t);
    if (!d)
        return SC_ERR_NOMEM;
    return sc__shape_set_tensor(c, k, dtype, t->ndim, d, NULL, t);
}

/* ---- Matrix products -------------------------------------------------------- */

sc_status sc__shape_mm(struct sc__shape_call *c)
{
    sc_tensor_meta a, b;
    sc_expr **d;
    sc_status status;

    SC_CHECK(sc__shape_get_tensor(c, "self", &a));
    SC_CHECK(sc__shape_get_tensor(c, "mat2", &b));
    SC_CHECK(sc__shape_need_dims(c, "self", &a, 2, 2));
    SC_CHECK(sc__shape_need_dims(c, "mat2", &b, 2, 2));
    SC_CHECK(sc__shape_check_eq(c, a.sizes[1], b.sizes[0],
                                "self and mat2 shapes cannot be multiplied"));
    SC_CHECK(sc__shape_outputs(c, 1));
    d = sc__shape_dims(c, 2);
    if (!d)
        return SC_ERR_NOMEM;
    d[0] = a.sizes[0];
    d[1] = b.sizes[1];
    return sc__shape_set_tensor(c, 0, a.dtype, 2, d, NULL, &a);
fail:
    return status;
}

sc_status sc__shape_bmm(struct sc__shape_call *c)
{
    sc_tensor_meta a, b;
    sc_expr **d;
    sc_status status;

    SC_CHECK(sc__shape_get_tensor(c, "self", &a));
    SC_CHECK(sc__shape_get_tensor(c, "mat2", &b));
    SC_CHECK(sc__shape_need_dims(c, "batch1", &a, 3, 3));
    SC_CHECK(sc__shape_need_dims(c, "batch2", &b, 3, 3));
    SC_CHECK(sc__shape_check_eq(c, a.sizes[0], b.sizes[0],
                                "batch1 and batch2 must have the same "
                                "batch size"));
    SC_CHECK(sc__shape_check_eq(c, a.sizes[2], b.sizes[1],
                                "batch1 and batch2 shapes cannot be "
                                "multiplied"));
    SC_CHECK(sc__shape_outputs(c, 1));
    d = sc__shape_dims(c, 3);
    if (!d)
        return SC_ERR_NOMEM;
    d[0] = a.sizes[0];
    d[1] = a.sizes[1];
    d[2] = b.sizes[2];
    return sc__shape_set_tensor(c, 0, a.dtype, 3, d, NULL, &a);
fail:
    return status;
}

sc_status sc__shape_addmm(struct sc__shape_call *c)
{
    sc_tensor_meta self, a, b;
    sc_expr **d, **bc;
    size_t n;
    sc_status status;

    SC_CHECK(sc__shape_get_tensor(c, "self", &self));
    SC_CHECK(sc__shape_get_tensor(c, "mat1", &a));
    SC_CHECK(sc__shape_get_tensor(c, "mat2", &b));
    SC_CHECK(sc__shape_need_dims(c, "mat1", &a, 2, 2));
    SC_CHECK(sc__shape_need_dims(c, "mat2", &b, 2, 2));
    SC_CHECK(sc__shape_check_eq(c, a.sizes[1], b.sizes[0],
                                "mat1 and mat2 shapes cannot be multiplied"));
    d = sc__shape_dims(c, 2);
    if (!d)
        return SC_ERR_NOMEM;
    d[0] = a.sizes[0];
    d[1] = b.sizes[1];
    if (self.ndim > 2)
        return sc__shape_fail(c, SC_ERR_SHAPE, "self must be at most 2-D");
    /* self must expand to [n, p] */
    SC_CHECK(sc__shape_broadcast(c, 2, d, self.ndim, self.sizes, &n, &bc));
    SC_CHECK(sc__shape_outputs(c, 1));
    return sc__shape_set_tensor(c, 0, a.dtype, 2, d, NULL, &a);
fail:
    return status;
}

/* ---- Normalizations ------------------------------------------------------------- */

/* Element k of a norm's backward: like t (contiguous) when output_mask[k]
 * asks, else None. */
sc_status sc__shape_masked_like(struct sc__shape_call *c, size_t k,
                                const sc_tensor_meta *t, bool present)
{
    if (!sc__shape_get_bool_at(c, "output_mask", k, true)) {
        c->out[k].kind = SC_RESULT_NONE;
        return SC_OK;
    }
    if (!present)
        return sc__shape_fail(c, SC_ERR_UNSUPPORTED,
                              "gradient %zu of an absent tensor", k);
    return sc__shape_like_contiguous(c, k, t, t->dtype);
}

sc_status sc__shape_layer_norm(struct sc__shape_call *c)
{
    sc_tensor_meta in;
    sc_expr **norm, **stat;
    size_t nn, i, axis;
    bool present;
    sc_status status;

    SC_CHECK(sc__shape_get_tensor(c, "input", &in));
    SC_CHECK(sc__shape_get_symint_list(c, "normalized_shape", &norm, &nn,
                                       &present));
    if (nn > in.ndim)
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "normalized_shape has more dims than input");
    axis = in.ndim - nn;
    for (i = 0; i < nn; i++)
        SC_CHECK(sc__shape_check_eq(c, in.sizes[axis + i], norm[i],
                                    "input does not end in "
                                    "normalized_shape"));
    SC_CHECK(sc__shape_outputs(c, 3));
    SC_CHECK(sc__shape_like_contiguous(c, 0, &in, in.dtype));
    stat = sc__shape_dims(c, in.ndim);
    if (!stat)
        return SC_ERR_NOMEM;
    for (i = 0; i < in.ndim; i++)
        stat[i] = i < axis ? in.sizes[i] : sc_expr_int_si(c->ctx, 1);
    SC_CHECK(sc__shape_set_tensor(c, 1, in.dtype, in.ndim, stat, NULL, &in));
    stat = sc__shape_copy_sizes(c, &c->out[1].tensor);
    if (!stat)
        return SC_ERR_NOMEM;
    return sc__shape_set_tensor(c, 2, in.dtype, in.ndim, stat, NULL, &in);
fail:
    return status;
}

sc_status sc__shape_layer_norm_backward(struct sc__shape_call *c)
{
    sc_tensor_meta in, w, b;
    bool hw, hb;
    sc_status status;

    SC_CHECK(sc__shape_get_tensor(c, "input", &in));
    SC_CHECK(sc__shape_get_tensor_opt(c, "weight", &w, &hw));
    SC_CHECK(sc__shape_get_tensor_opt(c, "bias", &b, &hb));
    SC_CHECK(sc__shape_outputs(c, 3));
    SC_CHECK(sc__shape_masked_like(c, 0, &in, true));
    SC_CHECK(sc__shape_masked_like(c, 1, &w, hw));
    SC_CHECK(sc__shape_masked_like(c, 2, &b, hb));
    return SC_OK;
fail:
    return status;
}

sc_status sc__shape_group_norm(struct sc__shape_call *c)
{
    sc_tensor_meta in;
    sc_expr *n, **d;
    int64_t group;
    size_t k;
    sc_status status;

    SC_CHECK(sc__shape_get_tensor(c, "input", &in));
    SC_CHECK(sc__shape_get_symint(c, "N", &n));
    SC_CHECK(sc__shape_get_int(c, "group", 1, &group));
    if (!n)
        return sc__shape_fail(c, SC_ERR_UNSUPPORTED, "no N");
    SC_CHECK(sc__shape_outputs(c, 3));
    SC_CHECK(sc__shape_like_contiguous(c, 0, &in, in.dtype));
    for (k = 1; k < 3; k++) {
        d = sc__shape_dims(c, 2);
        if (!d)
            return SC_ERR_NOMEM;
        d[0] = n;
        d[1] = sc_expr_int_si(c->ctx, group);
        SC_CHECK(sc__shape_set_tensor(c, k, in.dtype, 2, d, NULL, &in));
    }
    return SC_OK;
fail:
    return status;
}

sc_status sc__shape_group_norm_backward(struct sc__shape_call *c)
{
    sc_tensor_meta in, w;
    bool hw;
    sc_expr **d;
    sc_expr *ch;
    sc_status status;

    SC_CHECK(sc__shape_get_tensor(c, "input", &in));
    SC_CHECK(sc__shape_get_tensor_opt(c, "weight", &w, &hw));
    SC_CHECK(sc__shape_get_symint(c, "C", &ch));
    SC_CHECK(sc__shape_outputs(c, 3));
    SC_CHECK(sc__shape_masked_like(c, 0, &in, true));
    if (hw) {
        SC_CHECK(sc__shape_masked_like(c, 1, &w, true));
        SC_CHECK(sc__shape_masked_like(c, 2, &w, true));
        return SC_OK;
    }
    for (size_t k = 1; k < 3; k++) {
        if (!sc__shape_get_bool_at(c, "output_mask", k, true)) {
            c->out[k].kind = SC_RESULT_NONE;
            continue;
        }
        d = sc__shape_dims(c, 1);
        if (!d || !ch)
            return d ? sc__shape_fail(c, SC_ERR_UNSUPPORTED, "no C")
                     : SC_ERR_NOMEM;
        d[0] = ch;
        SC_CHECK(sc__shape_set_tensor(c, k, in.dtype, 1, d, NULL, &in));
    }
    return SC_OK;
fail:
    return status;
}

sc_status sc__shape_batch_norm(struct sc__shape_call *c)
{
    sc_tensor_meta in;
    sc_expr **d, **out_strides;
    bool training = sc__shape_get_bool(c, "training", false);
    size_t k;
    sc_status status;

    SC_CHECK(sc__shape_get_tensor(c, "input", &in));
    SC_CHECK(sc__shape_need_dims(c, "input", &in, 2, 64));
    SC_CHECK(sc__shape_outputs(c, 3));
    SC_CHECK(sc__shape_preserve_strides(c, &in, &out_strides));
    d = sc__shape_copy_sizes(c, &in);
    if (!d)
        return SC_ERR_NOMEM;
    SC_CHECK(sc__shape_set_tensor(c, 0, in.dtype, in.ndim, d, out_strides,
                                  &in));
    for (k = 1; k < 3; k++) {
        d = sc__shape_dims(c, 1);
        if (!d)
            return SC_ERR_NOMEM;
        d[0] = training ? in.sizes[1] : sc_expr_int_si(c->ctx, 0);
        SC_CHECK(sc__shape_set_tensor(c, k, in.dtype, 1, d, NULL, &in));
    }
    return SC_OK;
fail:
    return status;
}

sc_status sc__shape_batch_norm_backward(struct sc__shape_call *c)
{
    sc_tensor_meta in, w;
    bool hw;
    sc_expr **d, **st;
    size_t k;
    sc_status status;

    SC_CHECK(sc__shape_get_tensor(c, "input", &in));
    SC_CHECK(sc__shape_get_tensor_opt(c, "weight", &w, &hw));
    SC_CHECK(sc__shape_need_dims(c, "input", &in, 2, 64));
    SC_CHECK(sc__shape_outputs(c, 3));
    if (sc__shape_get_bool_at(c, "output_mask", 0, true)) {
        SC_CHECK(sc__shape_preserve_strides(c, &in, &st));
        d = sc__shape_copy_sizes(c, &in);
        if (!d)
            return SC_ERR_NOMEM;
        SC_CHECK(sc__shape_set_tensor(c, 0, in.dtype, in.ndim, d, st, &in));
    } else {
        c->out[0].kind = SC_RESULT_NONE;
    }
    for (k = 1; k < 3; k++) {
        if (!sc__shape_get_bool_at(c, "output_mask", k, true)) {
            c->out[k].kind = SC_RESULT_NONE;
            continue;
        }
        d = sc__shape_dims(c, 1);
        if (!d)
            return SC_ERR_NOMEM;
        d[0] = hw && w.ndim == 1 ? w.sizes[0] : in.sizes[1];
        SC_CHECK(sc__shape_set_tensor(c, k, hw ? w.dtype : in.dtype, 1, d,
                                      NULL, &in));
    }
    return SC_OK;
fail:
    return status;
}

/* ---- Convolution and pooling ---------------------------------------------------------- */

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
    sc_status status;

    SC_CHECK(sc__shape_get_tensor(c, "input", &in));
    SC_CHECK(sc__shape_get_tensor(c, "weight", &w));
    SC_CHECK(sc__shape_get_symint_list(c, "stride", &stride, &ns, &present));
    SC_CHECK(sc__shape_get_symint_list(c, "padding", &pad, &np, &present));
    SC_CHECK(sc__shape_get_symint_list(c, "dilation", &dil, &nd, &present));
    SC_CHECK(sc__shape_get_symint_list(c, "output_padding", &opad, &no,
                                       &present));
    SC_CHECK(sc__shape_get_symint(c, "groups", &groups));
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
    SC_CHECK(sc__shape_outputs(c, 1));
    d = sc__shape_dims(c, in.ndim);
    if (!d)
        return SC_ERR_NOMEM;
    d[0] = in.sizes[0];
    if (transposed) {
        d[1] = sc_expr_mul(c->ctx, w.sizes[1], groups);
        SC_CHECK(sc__shape_check_eq(c, in.sizes[1], w.sizes[0],
                                    "input channels must match the "
                                    "weight's first dim"));
    } else {
        d[1] = w.sizes[0];
        SC_CHECK(sc__shape_check_eq(c, in.sizes[1],
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
fail:
    return status;
}

sc_status sc__shape_convolution_backward(struct sc__shape_call *c)
{
    sc_tensor_meta in, w, go;
    sc_expr **bias;
    size_t nb;
    bool present;
    sc_status status;

    SC_CHECK(sc__shape_get_tensor(c, "grad_output", &go));
    SC_CHECK(sc__shape_get_tensor(c, "input", &in));
    SC_CHECK(sc__shape_get_tensor(c, "weight", &w));
    SC_CHECK(sc__shape_get_symint_list(c, "bias_sizes", &bias, &nb, &present));
    SC_CHECK(sc__shape_outputs(c, 3));
    SC_CHECK(sc__shape_masked_like(c, 0, &in, true));
    SC_CHECK(sc__shape_masked_like(c, 1, &w, true));
    if (sc__shape_get_bool_at(c, "output_mask", 2, true)) {
        sc_expr **d = sc__shape_dims(c, 1);
        if (!d)
            return SC_ERR_NOMEM;
        d[0] = present && nb ? bias[0] : go.sizes[1];
        SC_CHECK(sc__shape_set_tensor(c, 2, go.dtype, 1, d, NULL, &go));
    } else {
        c->out[2].kind = SC_RESULT_NONE;
    }
    return SC_OK;
fail:
    return status;
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
        sc_status st = sc__shape_guard(
            c,
            sc_expr_ge(x, sc_expr_mul(x, sc_expr_add_si(x, o, -1), stride),
                       sc_expr_add(x, in, pad)),
            &shrink);
        if (st != SC_OK)
            return st;
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
    sc_status status;

    SC_CHECK(sc__shape_get_tensor(c, "self", &in));
    SC_CHECK(sc__shape_need_dims(c, "self", &in, 3, 4));
    SC_CHECK(sc__shape_get_symint_list(c, "kernel_size", &ks, &nk, &present));
    SC_CHECK(sc__shape_get_symint_list(c, "stride", &st, &ns, &present));
    SC_CHECK(sc__shape_get_symint_list(c, "padding", &pad, &np, &present));
    SC_CHECK(sc__shape_get_symint_list(c, "dilation", &dil, &nd, &present));
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
        SC_CHECK(pool_size(c, in.sizes[in.ndim - 2 + i], k,
                           param(pad, np, i, zero), param(st, ns, i, k),
                           param(dil, nd, i, one), ceil_mode,
                           &d[in.ndim - 2 + i]));
    }
    SC_CHECK(sc__shape_outputs(c, 2));
    SC_CHECK(sc__shape_set_tensor(c, 0, in.dtype, in.ndim, d, NULL, &in));
    d = sc__shape_copy_sizes(c, &c->out[0].tensor);
    if (!d)
        return SC_ERR_NOMEM;
    return sc__shape_set_tensor(c, 1, SC_DTYPE_I64, in.ndim, d, NULL, &in);
fail:
    return status;
}

sc_status sc__shape_max_pool2d_backward(struct sc__shape_call *c)
{
    sc_tensor_meta self, go;
    sc_status status;

    SC_CHECK(sc__shape_get_tensor(c, "self", &self));
    SC_CHECK(sc__shape_get_tensor(c, "grad_output", &go));
    SC_CHECK(sc__shape_outputs(c, 1));
    return sc__shape_like_contiguous(c, 0, &self, go.dtype);
fail:
    return status;
}

/* ---- Embeddings, losses, dropout ------------------------------------------------------ */

sc_status sc__shape_embedding(struct sc__shape_call *c)
{
    sc_tensor_meta w, idx;
    sc_expr **d;
    sc_status status;

    SC_CHECK(sc__shape_get_tensor(c, "weight", &w));
    SC_CHECK(sc__shape_get_tensor(c, "indices", &idx));
    SC_CHECK(sc__shape_need_dims(c, "weight", &w, 2, 2));
    if (!sc__dtype_is_integral(idx.dtype, false))
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "indices must be an integer tensor");
    d = sc__shape_dims(c, idx.ndim + 1);
    if (!d)
        return SC_ERR_NOMEM;
    if (idx.ndim)
        memcpy(d, idx.sizes, idx.ndim * sizeof *d);
    d[idx.ndim] = w.sizes[1];
    SC_CHECK(sc__shape_outputs(c, 1));
    return sc__shape_set_tensor(c, 0, w.dtype, idx.ndim + 1, d, NULL, &w);
fail:
    return status;
}

sc_status sc__shape_embedding_dense_backward(struct sc__shape_call *c)
{
    sc_tensor_meta go;
    sc_expr *nw, **d;
    sc_status status;

    SC_CHECK(sc__shape_get_tensor(c, "grad_output", &go));
    SC_CHECK(sc__shape_get_symint(c, "num_weights", &nw));
    if (!nw || go.ndim == 0)
        return sc__shape_fail(c, SC_ERR_UNSUPPORTED, "bad arguments");
    d = sc__shape_dims(c, 2);
    if (!d)
        return SC_ERR_NOMEM;
    d[0] = nw;
    d[1] = go.sizes[go.ndim - 1];
    SC_CHECK(sc__shape_outputs(c, 1));
    return sc__shape_set_tensor(c, 0, go.dtype, 2, d, NULL, &go);
fail:
    return status;
}

sc_status sc__shape_nll_loss_forward(struct sc__shape_call *c)
{
    sc_tensor_meta self, target;
    int64_t reduction;
    sc_expr **d;
    size_t nd = 0;
    sc_status status;

    SC_CHECK(sc__shape_get_tensor(c, "self", &self));
    SC_CHECK(sc__shape_get_tensor(c, "target", &target));
    SC_CHECK(sc__shape_get_int(c, "reduction", 1, &reduction));
    SC_CHECK(sc__shape_need_dims(c, "input", &self, 1, 2));
    if (target.ndim > 1)
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "0D or 1D target tensor expected");
    if (self.ndim == 2 && target.ndim == 1)
        SC_CHECK(sc__shape_check_eq(c, self.sizes[0], target.sizes[0],
                                    "input and target batch sizes differ"));
    d = sc__shape_dims(c, 1);
    if (!d)
        return SC_ERR_NOMEM;
    if (reduction == 0 && self.ndim == 2) {
        d[0] = self.sizes[0];
        nd = 1;
    }
    SC_CHECK(sc__shape_outputs(c, 2));
    SC_CHECK(sc__shape_set_tensor(c, 0, self.dtype, nd, d, NULL, &self));
    d = sc__shape_dims(c, 0);
    if (!d)
        return SC_ERR_NOMEM;
    return sc__shape_set_tensor(c, 1, self.dtype, 0, d, NULL, &self);
fail:
    return status;
}

sc_status sc__shape_nll_loss_backward(struct sc__shape_call *c)
{
    sc_tensor_meta self;
    sc_status status;

    SC_CHECK(sc__shape_get_tensor(c, "self", &self));
    SC_CHECK(sc__shape_outputs(c, 1));
    return sc__shape_like_contiguous(c, 0, &self, self.dtype);
fail:
    return status;
}

sc_status sc__shape_native_dropout(struct sc__shape_call *c)
{
    sc_tensor_meta in;
    sc_expr **st, **d;
    sc_status status;

    SC_CHECK(sc__shape_get_tensor(c, "input", &in));
    SC_CHECK(sc__shape_outputs(c, 2));
    SC_CHECK(sc__shape_preserve_strides(c, &in, &st));
    d = sc__shape_copy_sizes(c, &in);
    if (!d)
        return SC_ERR_NOMEM;
    SC_CHECK(sc__shape_set_tensor(c, 0, in.dtype, in.ndim, d, st, &in));
    d = sc__shape_copy_sizes(c, &in);
    if (!d)
        return SC_ERR_NOMEM;
    return sc__shape_set_tensor(c, 1, SC_DTYPE_B8, in.ndim, d, st, &in);
fail:
    return status;
}
