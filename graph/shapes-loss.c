/* symcut — shape rules of embeddings and losses and their backward ops. */
#include <config.h>

#include <string.h>

#include "graph/shapes.h"

sc_status sc__shape_embedding(struct sc__shape_call *c)
{
    sc_tensor_meta w, idx;
    sc_expr **d;

    SC_TRY(sc__shape_get_tensor(c, "weight", &w));
    SC_TRY(sc__shape_get_tensor(c, "indices", &idx));
    SC_TRY(sc__shape_need_dims(c, "weight", &w, 2, 2));
    if (!sc__dtype_is_integral(idx.dtype, false))
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "indices must be an integer tensor");
    d = sc__shape_dims(c, idx.ndim + 1);
    if (!d)
        return SC_ERR_NOMEM;
    if (idx.ndim)
        memcpy(d, idx.sizes, idx.ndim * sizeof *d);
    d[idx.ndim] = w.sizes[1];
    SC_TRY(sc__shape_outputs(c, 1));
    return sc__shape_set_tensor(c, 0, w.dtype, idx.ndim + 1, d, NULL, &w);
}

sc_status sc__shape_embedding_dense_backward(struct sc__shape_call *c)
{
    sc_tensor_meta go;
    sc_expr *nw, **d;

    SC_TRY(sc__shape_get_tensor(c, "grad_output", &go));
    SC_TRY(sc__shape_get_symint(c, "num_weights", &nw));
    if (!nw || go.ndim == 0)
        return sc__shape_fail(c, SC_ERR_UNSUPPORTED, "bad arguments");
    d = sc__shape_dims(c, 2);
    if (!d)
        return SC_ERR_NOMEM;
    d[0] = nw;
    d[1] = go.sizes[go.ndim - 1];
    SC_TRY(sc__shape_outputs(c, 1));
    return sc__shape_set_tensor(c, 0, go.dtype, 2, d, NULL, &go);
}

sc_status sc__shape_nll_loss_forward(struct sc__shape_call *c)
{
    sc_tensor_meta self, target;
    int64_t reduction;
    sc_expr **d;
    size_t nd = 0;

    SC_TRY(sc__shape_get_tensor(c, "self", &self));
    SC_TRY(sc__shape_get_tensor(c, "target", &target));
    SC_TRY(sc__shape_get_int(c, "reduction", 1, &reduction));
    SC_TRY(sc__shape_need_dims(c, "input", &self, 1, 2));
    if (target.ndim > 1)
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "0D or 1D target tensor expected");
    if (self.ndim == 2 && target.ndim == 1)
        SC_TRY(sc__shape_check_eq(c, self.sizes[0], target.sizes[0],
                                  "input and target batch sizes differ"));
    d = sc__shape_dims(c, 1);
    if (!d)
        return SC_ERR_NOMEM;
    if (reduction == 0 && self.ndim == 2) {
        d[0] = self.sizes[0];
        nd = 1;
    }
    SC_TRY(sc__shape_outputs(c, 2));
    SC_TRY(sc__shape_set_tensor(c, 0, self.dtype, nd, d, NULL, &self));
    d = sc__shape_dims(c, 0);
    if (!d)
        return SC_ERR_NOMEM;
    return sc__shape_set_tensor(c, 1, self.dtype, 0, d, NULL, &self);
}

sc_status sc__shape_nll_loss_backward(struct sc__shape_call *c)
{
    sc_tensor_meta self;

    SC_TRY(sc__shape_get_tensor(c, "self", &self));
    SC_TRY(sc__shape_outputs(c, 1));
    return sc__shape_like_contiguous(c, 0, &self, self.dtype);
}
