/* symcut — shape rules of indexing ops: index_select, index_add,
 * masked_scatter, masked_scatter_backward (and the rules of the ops that read or write a tensor
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

/* masked_scatter_backward(grad_output, mask, sizes): sizes, contiguous,
 * grad_output's dtype (torch's meta: grad_output.new_empty(sizes)); mask
 * bool and broadcastable with grad_output, as masked_select needs.  That
 * the true elements fit in sizes is known only when it runs. */
sc_status sc__shape_masked_scatter_backward(struct sc__shape_call *c)
{
    sc_tensor_meta go, mask;
    sc_expr **sizes, **bc;
    size_t n, nb;
    bool present;

    SC_TRY(sc__shape_get_tensor(c, "grad_output", &go));
    SC_TRY(sc__shape_get_tensor(c, "mask", &mask));
    SC_TRY(sc__shape_get_symint_list(c, "sizes", &sizes, &n, &present));
    if (mask.dtype != SC_DTYPE_B8)
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "masked_select: expected BoolTensor for mask");
    SC_TRY(sc__shape_broadcast(c, go.ndim, go.sizes, mask.ndim, mask.sizes,
                               &nb, &bc));
    SC_TRY(sc__shape_outputs(c, 1));
    return sc__shape_set_tensor(c, 0, go.dtype, n, sizes, NULL, &go);
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

/* ---- Advanced indexing: index.Tensor, index_put ------------------------- */

#define ADV_MAX_DIMS 64 /* the most dims an indexed tensor may have */

/* The layout of self[indices] as PyTorch's meta function computes it:
 * the broadcast shape of the index tensors replaces the indexed dims, in
 * place when they are adjacent, else in front (NumPy's rule). */
typedef struct adv_index {
    size_t nd;                    /* self's rank */
    size_t order[ADV_MAX_DIMS]; /* self's dims in result order */
    size_t nbefore, nrepl, nafter;
    size_t ndim;                  /* result rank */
    sc_expr **sizes;              /* result sizes */
    sc_expr **restrided;          /* self's strides, 0 on replaced dims */
} adv_index;

static sc_status adv_index_layout(struct sc__shape_call *c,
                                  const sc_tensor_meta *self, adv_index *a)
{
    const sc_value *v = sc__shape_arg(c, "indices", NULL);
    bool indexed[ADV_MAX_DIMS] = {false};
    sc_expr **bc = NULL;
    size_t nb = 0, k, q, n, first = SIZE_MAX, last = 0, nidx = 0;
    bool adjacent = true;

    if (!v || (v->kind != SC_VALUE_LIST && v->kind != SC_VALUE_TUPLE))
        return sc__shape_fail(c, SC_ERR_UNSUPPORTED, "no index list");
    n = v->u.list.n;
    if (n == 0)
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "at least one index must be provided");
    if (self->ndim > ADV_MAX_DIMS)
        return sc__shape_fail(c, SC_ERR_UNSUPPORTED, "%zu dims", self->ndim);
    if (n > self->ndim)
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "too many indices for tensor of dimension %zu "
                              "(got %zu)", self->ndim, n);
    for (k = 0; k < n; k++) {
        sc_tensor_meta ix;
        const sc_value *e = &v->u.list.items[k];
        if (e->kind == SC_VALUE_NONE)
            continue;
        SC_TRY(sc__shape_value_tensor(c, e, &ix));
        if (ix.dtype == SC_DTYPE_B8 || ix.dtype == SC_DTYPE_U8 ||
            ix.dtype == SC_DTYPE_I8)
            return sc__shape_fail(c, SC_ERR_UNSUPPORTED,
                                  "a boolean or byte mask index (its size "
                                  "is data-dependent: index with "
                                  "nonzero's result)");
        if (ix.dtype != SC_DTYPE_I64 && ix.dtype != SC_DTYPE_I32)
            return sc__shape_fail(c, SC_ERR_SHAPE,
                                  "tensors used as indices must be long, "
                                  "int, byte or bool tensors");
        if (nidx++ == 0) {
            bc = (sc_expr **)ix.sizes;
            nb = ix.ndim;
        } else {
            SC_TRY(sc__shape_broadcast(c, nb, bc, ix.ndim, ix.sizes, &nb,
                                       &bc));
        }
        indexed[k] = true;
        if (first == SIZE_MAX)
            first = k;
        else if (last + 1 != k)
            adjacent = false;
        last = k;
    }
    if (nidx == 0)
        return sc__shape_fail(c, SC_ERR_UNSUPPORTED,
                              "every index is None");
    a->nd = self->ndim;
    q = 0;
    if (adjacent) {
        for (k = 0; k < self->ndim; k++)
            a->order[q++] = k;
    } else {
        for (k = 0; k < self->ndim; k++)
            if (indexed[k])
                a->order[q++] = k;
        for (k = 0; k < self->ndim; k++)
            if (!indexed[k])
                a->order[q++] = k;
    }
    a->nbefore = 0;
    while (!indexed[a->order[a->nbefore]])
        a->nbefore++;
    a->nrepl = nb;
    a->nafter = self->ndim - a->nbefore - nidx;
    a->ndim = a->nbefore + nb + a->nafter;
    if (a->ndim > ADV_MAX_DIMS)
        return sc__shape_fail(c, SC_ERR_SHAPE, "the result has %zu dims",
                              a->ndim);
    a->sizes = sc__shape_dims(c, a->ndim);
    a->restrided = sc__shape_dims(c, a->ndim);
    if (!a->sizes || !a->restrided)
        return SC_ERR_NOMEM;
    for (q = 0; q < a->nbefore; q++) {
        a->sizes[q] = self->sizes[a->order[q]];
        a->restrided[q] = self->has_strides ? self->strides[a->order[q]]
                                            : NULL;
    }
    for (k = 0; k < nb; k++) {
        a->sizes[a->nbefore + k] = bc[k];
        a->restrided[a->nbefore + k] = sc_expr_int_si(c->ctx, 0);
    }
    for (q = 0; q < a->nafter; q++) {
        size_t d = a->order[a->nbefore + nidx + q];
        a->sizes[a->nbefore + nb + q] = self->sizes[d];
        a->restrided[a->nbefore + nb + q] =
            self->has_strides ? self->strides[d] : NULL;
    }
    return SC_OK;
}

/* index.Tensor(self, indices): self[indices] with integer index tensors;
 * strides as PyTorch's TensorIterator orders self's restrided layout. */
sc_status sc__shape_index_tensor(struct sc__shape_call *c)
{
    sc_tensor_meta self;
    adv_index a;
    size_t perm[ADV_MAX_DIMS];
    sc_expr **st = NULL;
    sc_expr *const *ops[1];

    SC_TRY(sc__shape_get_tensor(c, "self", &self));
    SC_TRY(adv_index_layout(c, &self, &a));
    if (self.has_strides) {
        ops[0] = a.restrided;
        SC_TRY(sc__shape_elementwise_perm(c, a.ndim, a.sizes, 1, ops, perm));
        st = sc__shape_dims(c, a.ndim);
        if (!st)
            return SC_ERR_NOMEM;
        SC_TRY(sc__shape_dense_in_order(c, a.ndim, a.sizes, perm, st));
    }
    SC_TRY(sc__shape_outputs(c, 1));
    return sc__shape_set_tensor(c, 0, self.dtype, a.ndim, a.sizes, st, &self);
}

/* index_put(self, indices, values, accumulate): a copy of self (preserve
 * format); values of self's dtype, broadcastable to self[indices]. */
sc_status sc__shape_index_put(struct sc__shape_call *c)
{
    sc_tensor_meta self, values;
    adv_index a;
    sc_expr **bc, **d, **st = NULL;
    size_t n;

    SC_TRY(sc__shape_get_tensor(c, "self", &self));
    SC_TRY(sc__shape_get_tensor(c, "values", &values));
    SC_TRY(adv_index_layout(c, &self, &a));
    if (values.dtype != self.dtype)
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "Index put requires the source and destination "
                              "dtypes match, got %s for the destination and "
                              "%s for the source.",
                              sc_dtype_torch_name(self.dtype),
                              sc_dtype_torch_name(values.dtype));
    SC_TRY(sc__shape_broadcast(c, values.ndim, values.sizes, a.ndim, a.sizes,
                               &n, &bc));
    if (n != a.ndim)
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "shape mismatch: value tensor cannot be "
                              "broadcast to indexing result");
    if (self.has_strides)
        SC_TRY(sc__shape_preserve_strides(c, &self, &st));
    d = sc__shape_copy_sizes(c, &self);
    if (!d)
        return SC_ERR_NOMEM;
    SC_TRY(sc__shape_outputs(c, 1));
    return sc__shape_set_tensor(c, 0, self.dtype, self.ndim, d, st, &self);
}
