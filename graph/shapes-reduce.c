/* symcut — shape rules of reductions and softmax. */
#include <config.h>

#include <string.h>

#include "graph/shapes.h"

/* The dtype of sum/mean/amax of self with an optional dtype argument. */
static sc_status reduce_dtype(struct sc__shape_call *c,
                              const sc_tensor_meta *self, sc_dtype *out)
{
    sc_dtype d;
    bool given = sc__shape_get_dtype(c, "dtype", &d);
    const char *name = c->info->name;

    if (!given) {
        d = self->dtype;
        if (strcmp(name, "sum") == 0 && sc__dtype_is_integral(d, true))
            d = SC_DTYPE_I64;
    }
    if (strcmp(name, "mean") == 0 && !sc__dtype_is_float(d) &&
        !sc__dtype_is_complex(d))
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "mean(): could not infer output dtype. %s "
                              "dtype must be either a floating point or "
                              "complex dtype. Got: %s",
                              given ? "Optional" : "Input",
                              sc_dtype_torch_name(d));
    *out = d;
    return SC_OK;
}

/* Result 0: self reduced over the dims marked in `reduced`.  The result is
 * contiguous whatever self's layout, as PyTorch's reductions allocate it
 * (resize_reduction gives no strides). */
static sc_status reduce_out(struct sc__shape_call *c,
                            const sc_tensor_meta *self, const bool *reduced,
                            bool keepdim, sc_dtype dtype)
{
    size_t i, n = 0;
    sc_expr **d;

    d = sc__shape_dims(c, self->ndim);
    if (!d)
        return SC_ERR_NOMEM;
    for (i = 0; i < self->ndim; i++) {
        if (!reduced[i])
            d[n++] = self->sizes[i];
        else if (keepdim)
            d[n++] = sc_expr_int_si(c->ctx, 1);
    }
    SC_TRY(sc__shape_outputs(c, 1));
    return sc__shape_set_tensor(c, 0, dtype, n, d, NULL, self);
}

sc_status sc__shape_reduce_dims(struct sc__shape_call *c)
{
    sc_tensor_meta self;
    sc_expr **dims;
    size_t nd, i;
    bool present, reduced[64];
    bool keepdim = sc__shape_get_bool(c, "keepdim", false);
    sc_dtype dtype;

    SC_TRY(sc__shape_get_tensor(c, "self", &self));
    SC_TRY(sc__shape_get_symint_list(c, "dim", &dims, &nd, &present));
    SC_TRY(reduce_dtype(c, &self, &dtype));
    if (self.ndim > 64)
        return sc__shape_fail(c, SC_ERR_LIMIT, "too many dimensions");
    for (i = 0; i < self.ndim; i++)
        reduced[i] = nd == 0;
    for (i = 0; i < nd; i++) {
        int64_t v;
        size_t w;
        if (!sc_expr_value_si(dims[i], &v))
            return sc__shape_fail(c, SC_ERR_UNSUPPORTED, "symbolic dim");
        SC_TRY(sc__shape_wrap_dim(c, v, self.ndim, &w));
        if (self.ndim == 0)
            continue;
        if (reduced[w])
            return sc__shape_fail(c, SC_ERR_SHAPE,
                                  "dim %zu appears multiple times in the "
                                  "list of dims", w);
        reduced[w] = true;
    }
    return reduce_out(c, &self, reduced, keepdim, dtype);
}

sc_status sc__shape_reduce_all(struct sc__shape_call *c)
{
    sc_tensor_meta self;
    sc_dtype dtype;
    sc_expr **d;

    SC_TRY(sc__shape_get_tensor(c, "self", &self));
    SC_TRY(reduce_dtype(c, &self, &dtype));
    SC_TRY(sc__shape_outputs(c, 1));
    d = sc__shape_dims(c, 0);
    if (!d)
        return SC_ERR_NOMEM;
    return sc__shape_set_tensor(c, 0, dtype, 0, d, d, &self);
}

sc_status sc__shape_sum_to_size(struct sc__shape_call *c)
{
    sc_tensor_meta self;
    sc_expr **size, **d;
    size_t n, i, lead;
    bool present, same = true;

    SC_TRY(sc__shape_get_tensor(c, "self", &self));
    SC_TRY(sc__shape_get_symint_list(c, "size", &size, &n, &present));
    if (n > self.ndim)
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "size {%zu dims} is not expandable to self "
                              "{%zu dims}", n, self.ndim);
    lead = self.ndim - n;
    for (i = 0; i < n && same; i++)
        same = size[i] == self.sizes[lead + i];
    SC_TRY(sc__shape_outputs(c, 1));
    if (same && lead == 0) {
        sc_expr **st;
        d = sc__shape_dims(c, n);
        st = sc__shape_dims(c, n);
        if (!d || !st)
            return SC_ERR_NOMEM;
        if (n) {
            memcpy(d, self.sizes, n * sizeof *d);
            memcpy(st, self.strides, n * sizeof *st);
        }
        return sc__shape_set_tensor(c, 0, self.dtype, n, d, st, &self);
    }
    for (i = 0; i < n; i++) {
        bool one;
        if (size[i] == self.sizes[lead + i])
            continue;
        SC_TRY(sc__shape_is_one(c, size[i], &one));
        if (!one)
            SC_TRY(sc__shape_check_eq(c, size[i], self.sizes[lead + i],
                                      "size is not expandable to self"));
    }
    d = sc__shape_dims(c, n);
    if (!d)
        return SC_ERR_NOMEM;
    if (n)
        memcpy(d, size, n * sizeof *d);
    return sc__shape_set_tensor(c, 0, self.dtype, n, d, NULL, &self);
}

sc_status sc__shape_softmax(struct sc__shape_call *c)
{
    sc_tensor_meta self;
    int64_t dim;
    size_t w;
    sc_expr **d;
    sc_dtype dtype;

    SC_TRY(sc__shape_get_tensor(c, "self", &self));
    SC_TRY(sc__shape_get_int(c, "dim", 0, &dim));
    SC_TRY(sc__shape_wrap_dim(c, dim, self.ndim, &w));
    dtype = sc__shape_get_bool(c, "half_to_float", false) ? SC_DTYPE_F32
                                                          : self.dtype;
    if (sc__op_arg_index(c->op, "dtype") >= 0)
        (void)sc__shape_get_dtype(c, "dtype", &dtype); /* _safe_softmax */
    d = sc__shape_dims(c, self.ndim);
    if (!d)
        return SC_ERR_NOMEM;
    if (self.ndim)
        memcpy(d, self.sizes, self.ndim * sizeof *d);
    SC_TRY(sc__shape_outputs(c, 1));
    return sc__shape_set_tensor(c, 0, dtype, self.ndim, d, NULL, &self);
}

sc_status sc__shape_softmax_backward(struct sc__shape_call *c)
{
    sc_tensor_meta go, out;
    int64_t dim;
    size_t w, i;
    sc_expr **d;
    sc_dtype dtype;

    SC_TRY(sc__shape_get_tensor(c, "grad_output", &go));
    SC_TRY(sc__shape_get_tensor(c, "output", &out));
    SC_TRY(sc__shape_get_int(c, "dim", 0, &dim));
    SC_TRY(sc__shape_wrap_dim(c, dim, go.ndim, &w));
    if (!sc__shape_get_dtype(c, "input_dtype", &dtype))
        dtype = go.dtype;
    if (go.ndim != out.ndim)
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "grad_output and output differ in rank");
    for (i = 0; i < go.ndim; i++)
        SC_TRY(sc__shape_check_eq(c, go.sizes[i], out.sizes[i],
                                  "grad_output and output differ in "
                                  "size"));
    d = sc__shape_dims(c, go.ndim);
    if (!d)
        return SC_ERR_NOMEM;
    if (go.ndim)
        memcpy(d, go.sizes, go.ndim * sizeof *d);
    SC_TRY(sc__shape_outputs(c, 1));
    if (strcmp(c->info->name, "_log_softmax_backward_data") == 0)
        /* PyTorch's kernel iterates over grad_output: its layout, as a
           unary pointwise op's */
        return sc__shape_elementwise(c, 0, dtype, 1, &go);
    return sc__shape_set_tensor(c, 0, dtype, go.ndim, d, NULL, &go);
}

/* var_mean.correction(self, dim, *, correction, keepdim): (var, mean),
 * both self reduced over dim (every dim when None or empty), contiguous,
 * in self's (floating) dtype. */
sc_status sc__shape_var_mean(struct sc__shape_call *c)
{
    sc_tensor_meta self;
    sc_expr **dims, **d, **d2;
    size_t nd, i, n = 0;
    bool present, reduced[64];
    bool keepdim = sc__shape_get_bool(c, "keepdim", false);

    SC_TRY(sc__shape_get_tensor(c, "self", &self));
    SC_TRY(sc__shape_get_symint_list(c, "dim", &dims, &nd, &present));
    if (!sc__dtype_is_float(self.dtype))
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "std and var only support floating point and "
                              "complex dtypes");
    if (self.ndim > 64)
        return sc__shape_fail(c, SC_ERR_LIMIT, "too many dimensions");
    for (i = 0; i < self.ndim; i++)
        reduced[i] = nd == 0;
    for (i = 0; i < nd; i++) {
        int64_t v;
        size_t w;
        if (!sc_expr_value_si(dims[i], &v))
            return sc__shape_fail(c, SC_ERR_UNSUPPORTED, "symbolic dim");
        SC_TRY(sc__shape_wrap_dim(c, v, self.ndim, &w));
        if (self.ndim == 0)
            continue;
        if (reduced[w])
            return sc__shape_fail(c, SC_ERR_SHAPE,
                                  "dim %zu appears multiple times in the "
                                  "list of dims", w);
        reduced[w] = true;
    }
    d = sc__shape_dims(c, self.ndim);
    if (!d)
        return SC_ERR_NOMEM;
    for (i = 0; i < self.ndim; i++) {
        if (!reduced[i])
            d[n++] = self.sizes[i];
        else if (keepdim)
            d[n++] = sc_expr_int_si(c->ctx, 1);
    }
    d2 = sc__shape_dims(c, n);
    if (!d2)
        return SC_ERR_NOMEM;
    if (n)
        memcpy(d2, d, n * sizeof *d);
    SC_TRY(sc__shape_outputs(c, 2));
    SC_TRY(sc__shape_set_tensor(c, 0, self.dtype, n, d, NULL, &self));
    return sc__shape_set_tensor(c, 1, self.dtype, n, d2, NULL, &self);
}
