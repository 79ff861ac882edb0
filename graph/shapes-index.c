/* symcut — shape rules of indexing ops: index_select, index_add,
 * masked_scatter (and the rules of the ops that read or write a tensor
 * through an index tensor).  Results are contiguous, as PyTorch's meta
 * functions allocate them. */
#include <config.h>

#include <string.h>

#include "graph/shapes.h"

/* An index tensor of at most one dim, int64 or int32 (what index_select
 * and index_add take); its number of elements in *numel. */
static sc_status index_vector(struct sc__shape_call *c, const char *op,
                              const sc_tensor_meta *index, sc_expr **numel)
{
    if (index->dtype != SC_DTYPE_I64 && index->dtype != SC_DTYPE_I32)
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "%s(): Expected dtype int32/int64 for index",
                              op);
    if (index->ndim > 1)
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "Index is supposed to be a vector");
    *numel = index->ndim ? index->sizes[0] : sc_expr_int_si(c->ctx, 1);
    return SC_OK;
}

/* index_select(self, dim, index): self's sizes with dim's size replaced
 * by index.numel(). */
sc_status sc__shape_index_select(struct sc__shape_call *c)
{
    sc_tensor_meta self, index;
    int64_t dim;
    size_t w;
    sc_expr **d, *n;

    SC_TRY(sc__shape_get_tensor(c, "self", &self));
    SC_TRY(sc__shape_get_tensor(c, "index", &index));
    SC_TRY(sc__shape_get_int(c, "dim", 0, &dim));
    SC_TRY(sc__shape_wrap_dim(c, dim, self.ndim, &w));
    SC_TRY(index_vector(c, "index_select", &index, &n));
    d = sc__shape_copy_sizes(c, &self);
    if (!d)
        return SC_ERR_NOMEM;
    if (self.ndim)
        d[w] = n;
    else
        SC_TRY(sc__shape_check_eq(c, n, sc_expr_int_si(c->ctx, 1),
                                  "index_select(): Index to scalar can "
                                  "have only 1 value"));
    SC_TRY(sc__shape_outputs(c, 1));
    return sc__shape_set_tensor(c, 0, self.dtype, self.ndim, d, NULL, &self);
}

/* index_add(self, dim, index, source, alpha): self's sizes; source has
 * self's rank (or is 0-d with self) and index.numel() at dim. */
sc_status sc__shape_index_add(struct sc__shape_call *c)
{
    sc_tensor_meta self, index, source;
    int64_t dim;
    size_t w, i;
    sc_expr **d, *n;

    SC_TRY(sc__shape_get_tensor(c, "self", &self));
    SC_TRY(sc__shape_get_tensor(c, "index", &index));
    SC_TRY(sc__shape_get_tensor(c, "source", &source));
    SC_TRY(sc__shape_get_int(c, "dim", 0, &dim));
    SC_TRY(sc__shape_wrap_dim(c, dim, self.ndim, &w));
    SC_TRY(index_vector(c, "index_add", &index, &n));
    if (source.dtype != self.dtype)
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "index_add(): self (%s) and source (%s) must "
                              "have the same scalar type",
                              sc_dtype_torch_name(self.dtype),
                              sc_dtype_torch_name(source.dtype));
    if (source.ndim != self.ndim && !(source.ndim <= 1 && self.ndim <= 1))
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "index_add(): Source and destination tensors "
                              "must have the same number of dimensions");
    if (source.ndim == self.ndim) {
        for (i = 0; i < self.ndim; i++)
            SC_TRY(sc__shape_check_eq(c, source.sizes[i],
                                      i == w ? n : self.sizes[i],
                                      i == w ? "index_add(): Number of "
                                               "indices should be equal to "
                                               "source.size(dim)"
                                             : "index_add(): source and self "
                                               "differ in a dim other than "
                                               "dim"));
    }
    d = sc__shape_copy_sizes(c, &self);
    if (!d)
        return SC_ERR_NOMEM;
    SC_TRY(sc__shape_outputs(c, 1));
    return sc__shape_set_tensor(c, 0, self.dtype, self.ndim, d, NULL, &self);
}

/* masked_scatter(self, mask, source): the broadcast of self and mask, in
 * self's dtype; mask bool (or uint8), source self's dtype. */
sc_status sc__shape_masked_scatter(struct sc__shape_call *c)
{
    sc_tensor_meta self, mask, source;
    sc_expr **bc;
    size_t n;

    SC_TRY(sc__shape_get_tensor(c, "self", &self));
    SC_TRY(sc__shape_get_tensor(c, "mask", &mask));
    SC_TRY(sc__shape_get_tensor(c, "source", &source));
    if (mask.dtype != SC_DTYPE_B8 && mask.dtype != SC_DTYPE_U8)
        return sc__shape_fail(c, SC_ERR_SHAPE, "Mask must be bool or uint8");
    if (source.dtype != self.dtype)
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "masked_scatter: expected self and source to "
                              "have same dtypes but got %s and %s",
                              sc_dtype_torch_name(self.dtype),
                              sc_dtype_torch_name(source.dtype));
    SC_TRY(sc__shape_broadcast(c, self.ndim, self.sizes, mask.ndim,
                               mask.sizes, &n, &bc));
    SC_TRY(sc__shape_outputs(c, 1));
    return sc__shape_set_tensor(c, 0, self.dtype, n, bc, NULL, &self);
}

/* scatter.value(self, dim, index, value) and scatter.src(self, dim, index,
 * src): self's sizes and dtype, contiguous; index int64 of self's rank (or
 * 0-d with a 0-d self), no larger than self outside dim (and than src
 * everywhere). */
sc_status sc__shape_scatter(struct sc__shape_call *c)
{
    sc_tensor_meta self, index, src;
    bool has_src = sc__op_arg_index(c->op, "src") >= 0;
    int64_t dim;
    size_t w, i;
    sc_expr **d;

    SC_TRY(sc__shape_get_tensor(c, "self", &self));
    SC_TRY(sc__shape_get_tensor(c, "index", &index));
    SC_TRY(sc__shape_get_int(c, "dim", 0, &dim));
    SC_TRY(sc__shape_wrap_dim(c, dim, self.ndim, &w));
    if (index.dtype != SC_DTYPE_I64)
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "scatter(): Expected dtype int64 for index");
    if (has_src) {
        SC_TRY(sc__shape_get_tensor(c, "src", &src));
        if (src.dtype != self.dtype)
            return sc__shape_fail(c, SC_ERR_SHAPE,
                                  "scatter(): Expected self.dtype to be equal "
                                  "to src.dtype");
    }
    if (index.ndim != self.ndim && !(index.ndim <= 1 && self.ndim <= 1))
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "Index tensor must have the same number of "
                              "dimensions as self tensor");
    if (has_src && index.ndim != src.ndim && !(index.ndim <= 1 && src.ndim <= 1))
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "Index tensor must have the same number of "
                              "dimensions as src tensor");
    for (i = 0; i < index.ndim && index.ndim == self.ndim; i++) {
        if (i != w)
            SC_TRY(sc__shape_check(c, sc_expr_le(c->ctx, index.sizes[i],
                                                 self.sizes[i]),
                                   "Size does not match at a dimension "
                                   "other than dim: index is larger than "
                                   "self"));
        if (has_src && index.ndim == src.ndim)
            SC_TRY(sc__shape_check(c, sc_expr_le(c->ctx, index.sizes[i],
                                                 src.sizes[i]),
                                   "index is larger than src"));
    }
    d = sc__shape_copy_sizes(c, &self);
    if (!d)
        return SC_ERR_NOMEM;
    SC_TRY(sc__shape_outputs(c, 1));
    return sc__shape_set_tensor(c, 0, self.dtype, self.ndim, d, NULL, &self);
}
