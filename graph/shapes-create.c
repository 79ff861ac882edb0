/* symcut — shape rules of creation ops (factories, *_like,
 * scalar_tensor). */
#include <config.h>

#include <string.h>

#include "graph/shapes.h"

/* The device argument, if one is given. */
static void apply_device(struct sc__shape_call *c, size_t k)
{
    const sc_value *dev = sc__shape_arg(c, "device", NULL);
    if (dev && dev->kind == SC_VALUE_DEVICE) {
        c->out[k].tensor.has_device = true;
        c->out[k].tensor.device = dev->u.device;
    }
}

/* Strides of a new tensor of `sizes` in the memory_format argument
 * (contiguous when not given). */
static sc_status format_strides(struct sc__shape_call *c, size_t n,
                                sc_expr **sizes, sc_expr ***out)
{
    sc_memory_format fmt = SC_MEMORY_FORMAT_CONTIGUOUS;
    size_t perm4[4] = {0, 2, 3, 1}, perm5[5] = {0, 2, 3, 4, 1};

    *out = sc__shape_dims(c, n);
    if (!*out)
        return SC_ERR_NOMEM;
    sc__shape_get_memory_format(c, "memory_format", &fmt);
    if (fmt == SC_MEMORY_FORMAT_CHANNELS_LAST && n == 4)
        return sc__shape_dense_in_order(c, n, sizes, perm4, *out);
    if (fmt == SC_MEMORY_FORMAT_CHANNELS_LAST_3D && n == 5)
        return sc__shape_dense_in_order(c, n, sizes, perm5, *out);
    return sc__shape_contiguous(c, n, sizes, *out);
}

sc_status sc__shape_like(struct sc__shape_call *c)
{
    sc_tensor_meta self;
    sc_expr **d, **s;
    sc_dtype dtype;
    sc_memory_format fmt;

    SC_TRY(sc__shape_get_tensor(c, "self", &self));
    SC_TRY(sc__shape_outputs(c, 1));
    if (!sc__shape_get_dtype(c, "dtype", &dtype))
        dtype = self.dtype;
    d = sc__shape_dims(c, self.ndim);
    if (!d)
        return SC_ERR_NOMEM;
    if (self.ndim)
        memcpy(d, self.sizes, self.ndim * sizeof *d);
    if (!sc__shape_get_memory_format(c, "memory_format", &fmt) ||
        fmt == SC_MEMORY_FORMAT_PRESERVE)
        SC_TRY(sc__shape_preserve_strides(c, &self, &s));
    else
        SC_TRY(format_strides(c, self.ndim, d, &s));
    SC_TRY(sc__shape_set_tensor(c, 0, dtype, self.ndim, d, s, &self));
    apply_device(c, 0);
    return SC_OK;
}

sc_status sc__shape_new_factory(struct sc__shape_call *c)
{
    sc_tensor_meta self;
    sc_expr **size;
    size_t n;
    bool present;
    sc_dtype dtype;

    SC_TRY(sc__shape_get_tensor(c, "self", &self));
    SC_TRY(sc__shape_get_symint_list(c, "size", &size, &n, &present));
    if (!sc__shape_get_dtype(c, "dtype", &dtype))
        dtype = self.dtype;
    SC_TRY(sc__shape_outputs(c, 1));
    SC_TRY(sc__shape_set_tensor(c, 0, dtype, n, size, NULL, &self));
    apply_device(c, 0);
    return SC_OK;
}

sc_status sc__shape_factory(struct sc__shape_call *c)
{
    sc_expr **size, **s;
    size_t n;
    bool present;
    sc_dtype dtype;

    SC_TRY(sc__shape_get_symint_list(c, "size", &size, &n, &present));
    if (!sc__shape_get_dtype(c, "dtype", &dtype)) {
        const sc_value *fill = sc__shape_arg(c, "fill_value", NULL);
        dtype = SC_DTYPE_F32;
        if (fill) { /* full(): the fill value's category */
            sc__result_type rt;
            sc__result_type_init(&rt);
            sc__result_type_scalar(&rt, fill, c->g);
            dtype = sc__result_type_get(&rt);
        }
    }
    SC_TRY(sc__shape_outputs(c, 1));
    SC_TRY(format_strides(c, n, size, &s));
    SC_TRY(sc__shape_set_tensor(c, 0, dtype, n, size, s, NULL));
    apply_device(c, 0);
    return SC_OK;
}

sc_status sc__shape_factory_strided(struct sc__shape_call *c)
{
    sc_expr **size, **stride;
    size_t n, ns;
    bool present;
    sc_dtype dtype;

    SC_TRY(sc__shape_get_symint_list(c, "size", &size, &n, &present));
    SC_TRY(sc__shape_get_symint_list(c, "stride", &stride, &ns, &present));
    if (n != ns)
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "mismatch in length of strides and shape");
    if (!sc__shape_get_dtype(c, "dtype", &dtype))
        dtype = SC_DTYPE_F32;
    SC_TRY(sc__shape_outputs(c, 1));
    SC_TRY(sc__shape_set_tensor(c, 0, dtype, n, size, stride, NULL));
    apply_device(c, 0);
    return SC_OK;
}

sc_status sc__shape_scalar_tensor(struct sc__shape_call *c)
{
    sc_dtype dtype;
    sc_expr **d;

    if (!sc__shape_get_dtype(c, "dtype", &dtype))
        dtype = SC_DTYPE_F32;
    SC_TRY(sc__shape_outputs(c, 1));
    d = sc__shape_dims(c, 0);
    if (!d)
        return SC_ERR_NOMEM;
    SC_TRY(sc__shape_set_tensor(c, 0, dtype, 0, d, d, NULL));
    apply_device(c, 0);
    return SC_OK;
}
