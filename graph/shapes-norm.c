/* symcut — shape rules of normalizations (layer, group and batch norm)
 * and their backward ops. */
#include <config.h>

#include "graph/shapes.h"

sc_status sc__shape_layer_norm(struct sc__shape_call *c)
{
    sc_tensor_meta in;
    sc_expr **norm, **stat;
    size_t nn, i, axis;
    bool present;

    SC_TRY(sc__shape_get_tensor(c, "input", &in));
    SC_TRY(sc__shape_get_symint_list(c, "normalized_shape", &norm, &nn,
                                     &present));
    if (nn > in.ndim)
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "normalized_shape has more dims than input");
    axis = in.ndim - nn;
    for (i = 0; i < nn; i++)
        SC_TRY(sc__shape_check_eq(c, in.sizes[axis + i], norm[i],
                                  "input does not end in "
                                  "normalized_shape"));
    SC_TRY(sc__shape_outputs(c, 3));
    SC_TRY(sc__shape_like_contiguous(c, 0, &in, in.dtype));
    stat = sc__shape_dims(c, in.ndim);
    if (!stat)
        return SC_ERR_NOMEM;
    for (i = 0; i < in.ndim; i++)
        stat[i] = i < axis ? in.sizes[i] : sc_expr_int_si(c->ctx, 1);
    SC_TRY(sc__shape_set_tensor(c, 1, in.dtype, in.ndim, stat, NULL, &in));
    stat = sc__shape_copy_sizes(c, &c->out[1].tensor);
    if (!stat)
        return SC_ERR_NOMEM;
    return sc__shape_set_tensor(c, 2, in.dtype, in.ndim, stat, NULL, &in);
}

sc_status sc__shape_layer_norm_backward(struct sc__shape_call *c)
{
    sc_tensor_meta in, go, w, b;
    bool hw, hb;

    SC_TRY(sc__shape_get_tensor(c, "input", &in));
    SC_TRY(sc__shape_get_tensor(c, "grad_out", &go));
    SC_TRY(sc__shape_get_tensor_opt(c, "weight", &w, &hw));
    SC_TRY(sc__shape_get_tensor_opt(c, "bias", &b, &hb));
    SC_TRY(sc__shape_outputs(c, 3));
    if (sc__shape_get_bool_at(c, "output_mask", 0, true) && go.has_strides) {
        /* grad_input is allocated like grad_out (preserve format) */
        sc_expr **d, **st;
        SC_TRY(sc__shape_preserve_strides(c, &go, &st));
        d = sc__shape_copy_sizes(c, &in);
        if (!d)
            return SC_ERR_NOMEM;
        SC_TRY(sc__shape_set_tensor(c, 0, in.dtype, in.ndim, d, st, &in));
    } else {
        SC_TRY(sc__shape_masked_like(c, 0, &in, true));
    }
    SC_TRY(sc__shape_masked_like(c, 1, &w, hw));
    SC_TRY(sc__shape_masked_like(c, 2, &b, hb));
    return SC_OK;
}

sc_status sc__shape_group_norm(struct sc__shape_call *c)
{
    sc_tensor_meta in;
    sc_expr *n, **d;
    int64_t group;
    size_t k;

    SC_TRY(sc__shape_get_tensor(c, "input", &in));
    SC_TRY(sc__shape_get_symint(c, "N", &n));
    SC_TRY(sc__shape_get_int(c, "group", 1, &group));
    if (!n)
        return sc__shape_fail(c, SC_ERR_UNSUPPORTED, "no N");
    SC_TRY(sc__shape_outputs(c, 3));
    SC_TRY(sc__shape_like_contiguous(c, 0, &in, in.dtype));
    for (k = 1; k < 3; k++) {
        d = sc__shape_dims(c, 2);
        if (!d)
            return SC_ERR_NOMEM;
        d[0] = n;
        d[1] = sc_expr_int_si(c->ctx, group);
        SC_TRY(sc__shape_set_tensor(c, k, in.dtype, 2, d, NULL, &in));
    }
    return SC_OK;
}

sc_status sc__shape_group_norm_backward(struct sc__shape_call *c)
{
    sc_tensor_meta in, w;
    bool hw;
    sc_expr **d;
    sc_expr *ch;

    SC_TRY(sc__shape_get_tensor(c, "input", &in));
    SC_TRY(sc__shape_get_tensor_opt(c, "weight", &w, &hw));
    SC_TRY(sc__shape_get_symint(c, "C", &ch));
    SC_TRY(sc__shape_outputs(c, 3));
    SC_TRY(sc__shape_masked_like(c, 0, &in, true));
    if (hw) {
        SC_TRY(sc__shape_masked_like(c, 1, &w, true));
        SC_TRY(sc__shape_masked_like(c, 2, &w, true));
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
        SC_TRY(sc__shape_set_tensor(c, k, in.dtype, 1, d, NULL, &in));
    }
    return SC_OK;
}

sc_status sc__shape_batch_norm(struct sc__shape_call *c)
{
    sc_tensor_meta in;
    sc_expr **d, **out_strides;
    bool training = sc__shape_get_bool(c, "training", false);
    size_t k;

    SC_TRY(sc__shape_get_tensor(c, "input", &in));
    SC_TRY(sc__shape_need_dims(c, "input", &in, 2, 64));
    SC_TRY(sc__shape_outputs(c, 3));
    SC_TRY(sc__shape_preserve_strides(c, &in, &out_strides));
    d = sc__shape_copy_sizes(c, &in);
    if (!d)
        return SC_ERR_NOMEM;
    SC_TRY(sc__shape_set_tensor(c, 0, in.dtype, in.ndim, d, out_strides,
                                &in));
    for (k = 1; k < 3; k++) {
        d = sc__shape_dims(c, 1);
        if (!d)
            return SC_ERR_NOMEM;
        d[0] = training ? in.sizes[1] : sc_expr_int_si(c->ctx, 0);
        SC_TRY(sc__shape_set_tensor(c, k, in.dtype, 1, d, NULL, &in));
    }
    return SC_OK;
}

sc_status sc__shape_batch_norm_backward(struct sc__shape_call *c)
{
    sc_tensor_meta in, w;
    bool hw;
    sc_expr **d, **st;
    size_t k;

    SC_TRY(sc__shape_get_tensor(c, "input", &in));
    SC_TRY(sc__shape_get_tensor_opt(c, "weight", &w, &hw));
    SC_TRY(sc__shape_need_dims(c, "input", &in, 2, 64));
    SC_TRY(sc__shape_outputs(c, 3));
    if (sc__shape_get_bool_at(c, "output_mask", 0, true)) {
        SC_TRY(sc__shape_preserve_strides(c, &in, &st));
        d = sc__shape_copy_sizes(c, &in);
        if (!d)
            return SC_ERR_NOMEM;
        SC_TRY(sc__shape_set_tensor(c, 0, in.dtype, in.ndim, d, st, &in));
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
        SC_TRY(sc__shape_set_tensor(c, k, hw ? w.dtype : in.dtype, 1, d,
                                    NULL, &in));
    }
    return SC_OK;
}
