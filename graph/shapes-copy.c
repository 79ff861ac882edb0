/* symcut — shape rules of copies and joins (clone, _to_copy, cat,
 * stack). */
#include <config.h>

#include <string.h>

#include "graph/shapes.h"

/* ---- Copies ------------------------------------------------------------- */

/* Strides of a copy of self in memory format `fmt` (preserve when not
 * given). */
static sc_status copy_strides(struct sc__shape_call *c,
                              const sc_tensor_meta *self, sc_expr ***out)
{
    sc_memory_format fmt;
    size_t perm4[4] = {0, 2, 3, 1}, perm5[5] = {0, 2, 3, 4, 1};

    if (!sc__shape_get_memory_format(c, "memory_format", &fmt) ||
        fmt == SC_MEMORY_FORMAT_PRESERVE)
        return sc__shape_preserve_strides(c, self, out);
    *out = sc__shape_dims(c, self->ndim);
    if (!*out)
        return SC_ERR_NOMEM;
    if (fmt == SC_MEMORY_FORMAT_CHANNELS_LAST && self->ndim == 4)
        return sc__shape_dense_in_order(c, 4, self->sizes, perm4, *out);
    if (fmt == SC_MEMORY_FORMAT_CHANNELS_LAST_3D && self->ndim == 5)
        return sc__shape_dense_in_order(c, 5, self->sizes, perm5, *out);
    if (fmt != SC_MEMORY_FORMAT_CONTIGUOUS)
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "memory format %s needs a %dD tensor",
                              sc_memory_format_name(fmt),
                              fmt == SC_MEMORY_FORMAT_CHANNELS_LAST ? 4 : 5);
    return sc__shape_contiguous(c, self->ndim, self->sizes, *out);
}

sc_status sc__shape_clone(struct sc__shape_call *c)
{
    sc_tensor_meta self;
    sc_expr **d, **s;

    SC_TRY(sc__shape_get_self(c, &self));
    SC_TRY(sc__shape_copy_meta(c, &self, &d, &s));
    SC_TRY(copy_strides(c, &self, &s));
    return sc__shape_set_tensor(c, 0, self.dtype, self.ndim, d, s, &self);
}

sc_status sc__shape_to_copy(struct sc__shape_call *c)
{
    sc_tensor_meta self;
    sc_expr **d, **s;
    sc_dtype dtype;
    const sc_value *dev = sc__shape_arg(c, "device", NULL);

    SC_TRY(sc__shape_get_self(c, &self));
    if (!sc__shape_get_dtype(c, "dtype", &dtype))
        dtype = self.dtype;
    SC_TRY(sc__shape_copy_meta(c, &self, &d, &s));
    SC_TRY(copy_strides(c, &self, &s));
    SC_TRY(sc__shape_set_tensor(c, 0, dtype, self.ndim, d, s, &self));
    if (dev && dev->kind == SC_VALUE_DEVICE) {
        c->out[0].tensor.has_device = true;
        c->out[0].tensor.device = dev->u.device;
    }
    return SC_OK;
}

/* prims.convert_element_type(a, dtype): a preserve-format copy of a in
 * dtype. */
sc_status sc__shape_convert_element_type(struct sc__shape_call *c)
{
    sc_tensor_meta a;
    sc_expr **d, **s;
    sc_dtype dtype;

    SC_TRY(sc__shape_get_tensor(c, "a", &a));
    SC_TRY(sc__shape_outputs(c, 1));
    if (!sc__shape_get_dtype(c, "dtype", &dtype))
        return sc__shape_fail(c, SC_ERR_UNSUPPORTED, "no dtype");
    SC_TRY(sc__shape_copy_meta(c, &a, &d, &s));
    SC_TRY(sc__shape_preserve_strides(c, &a, &s));
    return sc__shape_set_tensor(c, 0, dtype, a.ndim, d, s, &a);
}

/* ---- Joins -------------------------------------------------------------- */

/* The tensors of the list argument "tensors". */
static sc_status tensor_list(struct sc__shape_call *c, sc_tensor_meta **out,
                             size_t *n)
{
    const sc_value *v = sc__shape_arg(c, "tensors", NULL);
    size_t i;
    if (!v || (v->kind != SC_VALUE_LIST && v->kind != SC_VALUE_TUPLE))
        return sc__shape_fail(c, SC_ERR_UNSUPPORTED, "no tensor list");
    *n = v->u.list.n;
    *out = sc__arena_alloc(&c->g->arena, (*n ? *n : 1) * sizeof **out);
    if (!*out)
        return sc__error_nomem(c->err);
    for (i = 0; i < *n; i++)
        SC_TRY(sc__shape_value_tensor(c, &v->u.list.items[i], &(*out)[i]));
    if (*n == 0)
        return sc__shape_fail(c, SC_ERR_SHAPE, "expected a non-empty list "
                                               "of Tensors");
    return SC_OK;
}

sc_status sc__shape_cat(struct sc__shape_call *c)
{
    sc_tensor_meta *ts, *ref = NULL;
    size_t n, i, j, w;
    int64_t dim;
    sc_expr **d, *total = NULL;
    sc__result_type rt;

    SC_TRY(tensor_list(c, &ts, &n));
    SC_TRY(sc__shape_get_int(c, "dim", 0, &dim));
    sc__result_type_init(&rt);
    for (i = 0; i < n; i++) {
        int64_t v;
        sc__result_type_tensor(&rt, &ts[i]);
        /* legacy: 1-D empty tensors are skipped */
        if (ts[i].ndim == 1 && sc_expr_value_si(ts[i].sizes[0], &v) && v == 0)
            continue;
        if (!ref)
            ref = &ts[i];
    }
    if (!ref)
        ref = &ts[0];
    SC_TRY(sc__shape_wrap_dim(c, dim, ref->ndim, &w));
    if (ref->ndim == 0)
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "zero-dimensional tensor cannot be "
                              "concatenated");
    for (i = 0; i < n; i++) {
        int64_t v;
        if (ts[i].ndim == 1 && sc_expr_value_si(ts[i].sizes[0], &v) &&
            v == 0 && &ts[i] != ref)
            continue;
        if (ts[i].ndim != ref->ndim)
            return sc__shape_fail(c, SC_ERR_SHAPE,
                                  "tensors must have the same number of "
                                  "dimensions: got %zu and %zu",
                                  ref->ndim, ts[i].ndim);
        for (j = 0; j < ref->ndim; j++)
            if (j != w)
                SC_TRY(sc__shape_check_eq(c, ts[i].sizes[j], ref->sizes[j],
                                          "sizes of tensors must match "
                                          "except in the concatenating "
                                          "dimension"));
        total = total ? sc_expr_add(c->ctx, total, ts[i].sizes[w])
                      : ts[i].sizes[w];
    }
    d = sc__shape_dims(c, ref->ndim);
    if (!d)
        return SC_ERR_NOMEM;
    memcpy(d, ref->sizes, ref->ndim * sizeof *d);
    d[w] = total;
    SC_TRY(sc__shape_outputs(c, 1));
    return sc__shape_set_tensor(c, 0, sc__result_type_get(&rt), ref->ndim, d,
                                NULL, ref);
}

sc_status sc__shape_stack(struct sc__shape_call *c)
{
    sc_tensor_meta *ts;
    size_t n, i, j, w;
    int64_t dim;
    sc_expr **d;
    sc__result_type rt;

    SC_TRY(tensor_list(c, &ts, &n));
    SC_TRY(sc__shape_get_int(c, "dim", 0, &dim));
    SC_TRY(sc__shape_wrap_dim(c, dim, ts[0].ndim + 1, &w));
    sc__result_type_init(&rt);
    for (i = 0; i < n; i++) {
        sc__result_type_tensor(&rt, &ts[i]);
        if (ts[i].ndim != ts[0].ndim)
            return sc__shape_fail(c, SC_ERR_SHAPE,
                                  "stack expects each tensor to be equal "
                                  "size");
        for (j = 0; j < ts[0].ndim; j++)
            SC_TRY(sc__shape_check_eq(c, ts[i].sizes[j], ts[0].sizes[j],
                                      "stack expects each tensor to be "
                                      "equal size"));
    }
    d = sc__shape_dims(c, ts[0].ndim + 1);
    if (!d)
        return SC_ERR_NOMEM;
    for (i = 0, j = 0; i <= ts[0].ndim; i++)
        d[i] = i == w ? sc_expr_int_si(c->ctx, (int64_t)n) : ts[0].sizes[j++];
    SC_TRY(sc__shape_outputs(c, 1));
    return sc__shape_set_tensor(c, 0, sc__result_type_get(&rt),
                                ts[0].ndim + 1, d, NULL, &ts[0]);
}
