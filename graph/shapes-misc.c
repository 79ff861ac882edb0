/* symcut — shape rules of factory ops, nonzero, and symbolic integers. */
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
    sc_status status;

    SC_CHECK(sc__shape_get_tensor(c, "self", &self));
    SC_CHECK(sc__shape_outputs(c, 1));
    if (!sc__shape_get_dtype(c, "dtype", &dtype))
        dtype = self.dtype;
    d = sc__shape_dims(c, self.ndim);
    if (!d)
        return SC_ERR_NOMEM;
    if (self.ndim)
        memcpy(d, self.sizes, self.ndim * sizeof *d);
    if (!sc__shape_get_memory_format(c, "memory_format", &fmt) ||
        fmt == SC_MEMORY_FORMAT_PRESERVE)
        SC_CHECK(sc__shape_preserve_strides(c, &self, &s));
    else
        SC_CHECK(format_strides(c, self.ndim, d, &s));
    SC_CHECK(sc__shape_set_tensor(c, 0, dtype, self.ndim, d, s, &self));
    apply_device(c, 0);
    return SC_OK;
fail:
    return status;
}

sc_status sc__shape_new_factory(struct sc__shape_call *c)
{
    sc_tensor_meta self;
    sc_expr **size;
    size_t n;
    bool present;
    sc_dtype dtype;
    sc_status status;

    SC_CHECK(sc__shape_get_tensor(c, "self", &self));
    SC_CHECK(sc__shape_get_symint_list(c, "size", &size, &n, &present));
    if (!sc__shape_get_dtype(c, "dtype", &dtype))
        dtype = self.dtype;
    SC_CHECK(sc__shape_outputs(c, 1));
    SC_CHECK(sc__shape_set_tensor(c, 0, dtype, n, size, NULL, &self));
    apply_device(c, 0);
    return SC_OK;
fail:
    return status;
}

sc_status sc__shape_factory(struct sc__shape_call *c)
{
    sc_expr **size, **s;
    size_t n;
    bool present;
    sc_dtype dtype;
    sc_status status;

    SC_CHECK(sc__shape_get_symint_list(c, "size", &size, &n, &present));
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
    SC_CHECK(sc__shape_outputs(c, 1));
    SC_CHECK(format_strides(c, n, size, &s));
    SC_CHECK(sc__shape_set_tensor(c, 0, dtype, n, size, s, NULL));
    apply_device(c, 0);
    return SC_OK;
fail:
    return status;
}

sc_status sc__shape_factory_strided(struct sc__shape_call *c)
{
    sc_expr **size, **stride;
    size_t n, ns;
    bool present;
    sc_dtype dtype;
    sc_status status;

    SC_CHECK(sc__shape_get_symint_list(c, "size", &size, &n, &present));
    SC_CHECK(sc__shape_get_symint_list(c, "stride", &stride, &ns, &present));
    if (n != ns)
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "mismatch in length of strides and shape");
    if (!sc__shape_get_dtype(c, "dtype", &dtype))
        dtype = SC_DTYPE_F32;
    SC_CHECK(sc__shape_outputs(c, 1));
    SC_CHECK(sc__shape_set_tensor(c, 0, dtype, n, size, stride, NULL));
    apply_device(c, 0);
    return SC_OK;
fail:
    return status;
}

sc_status sc__shape_scalar_tensor(struct sc__shape_call *c)
{
    sc_dtype dtype;
    sc_expr **d;
    sc_status status;

    if (!sc__shape_get_dtype(c, "dtype", &dtype))
        dtype = SC_DTYPE_F32;
    SC_CHECK(sc__shape_outputs(c, 1));
    d = sc__shape_dims(c, 0);
    if (!d)
        return SC_ERR_NOMEM;
    SC_CHECK(sc__shape_set_tensor(c, 0, dtype, 0, d, d, NULL));
    apply_device(c, 0);
    return SC_OK;
fail:
    return status;
}

/* The unbacked symbol for nonzero's count: the one the node's annotation
 * names when it is a fresh symbol, else a new u<k>. */
static sc_status nonzero_symbol(struct sc__shape_call *c, sc_expr *numel,
                                sc_expr **out)
{
    sc_result decl;
    sc_range r;
    int64_t max;
    bool bounded = sc_expr_get_si(numel, &max);
    const char *name = NULL;
    sc_status st;

    sc_graph_node_result(c->g, c->id, &decl);
    if (decl.kind == SC_RESULT_TENSOR && decl.tensor.ndim == 2 &&
        sc_expr_is_symbol(decl.tensor.sizes[0])) {
        *out = decl.tensor.sizes[0];
        if (c->env && sc_env_has_symbol(c->env, *out))
            goto facts;
        name = sc_expr_symbol_name(*out);
    }
    if (!c->env) {
        st = sc_env_new(c->ctx, NULL, &c->g->env, c->err);
        if (st != SC_OK)
            return st;
        c->g->owns_env = true;
        c->env = c->g->env;
    }
    sc_range_init(&r);
    if (bounded)
        sc_range_set_si(&r, 0, max);
    st = sc_env_create_unbacked(c->env, name, bounded ? &r : NULL,
                                SC_ENV_SIZE_LIKE, out, c->err);
    sc_range_clear(&r);
    if (st != SC_OK)
        return st;
facts:
    if (bounded)
        return SC_OK;
    /* a symbolic numel: u <= numel is a runtime fact */
    return sc__shape_check(c, sc_expr_le(c->ctx, *out, numel),
                           "nonzero count exceeds numel");
}

sc_status sc__shape_nonzero(struct sc__shape_call *c)
{
    sc_tensor_meta self;
    sc_expr **d, **s, *u;
    sc_status status;

    SC_CHECK(sc__shape_get_tensor(c, "self", &self));
    SC_CHECK(nonzero_symbol(c, sc__shape_numel(c->ctx, self.ndim, self.sizes),
                            &u));
    d = sc__shape_dims(c, 2);
    s = sc__shape_dims(c, 2);
    if (!d || !s)
        return SC_ERR_NOMEM;
    d[0] = u;
    d[1] = sc_expr_int_si(c->ctx, (int64_t)self.ndim);
    /* column-major, as PyTorch allocates it */
    s[0] = sc_expr_int_si(c->ctx, 1);
    s[1] = u;
    SC_CHECK(sc__shape_outputs(c, 1));
    return sc__shape_set_tensor(c, 0, SC_DTYPE_I64, 2, d, s, &self);
fail:
    return status;
}

/* ---- Symbolic integers ------------------------------------------------------------- */

static sc_status symint_result(struct sc__shape_call *c, sc_expr *e)
{
    sc_status st;
    if (!e)
        return sc__shape_expr_error(c);
    if (c->env) {
        st = sc_env_simplify(c->env, e, &e, c->err);
        if (st != SC_OK)
            return st;
    }
    st = sc__shape_outputs(c, 1);
    if (st != SC_OK)
        return st;
    c->out[0].kind = sc_expr_is_bool(e) ? SC_RESULT_SYMBOOL : SC_RESULT_SYMINT;
    c->out[0].expr = e;
    return SC_OK;
}

static sc_status sym_dim(struct sc__shape_call *c, bool stride)
{
    sc_tensor_meta self;
    int64_t dim;
    size_t w;
    sc_status status;

    SC_CHECK(sc__shape_get_tensor(c, "self", &self));
    SC_CHECK(sc__shape_get_int(c, "dim", 0, &dim));
    if (self.ndim == 0)
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "dimension specified as %lld but tensor has "
                              "no dimensions", (long long)dim);
    SC_CHECK(sc__shape_wrap_dim(c, dim, self.ndim, &w));
    if (stride && c->no_strides)
        return sc__shape_fail(c, SC_ERR_UNSUPPORTED, "no strides known");
    return symint_result(c, stride ? self.strides[w] : self.sizes[w]);
fail:
    return status;
}

sc_status sc__shape_sym_size(struct sc__shape_call *c)
{
    return sym_dim(c, false);
}

sc_status sc__shape_sym_stride(struct sc__shape_call *c)
{
    return sym_dim(c, true);
}

sc_status sc__shape_sym_numel(struct sc__shape_call *c)
{
    sc_tensor_meta self;
    sc_status status;

    SC_CHECK(sc__shape_get_tensor(c, "self", &self));
    return symint_result(c, sc__shape_numel(c->ctx, self.ndim, self.sizes));
fail:
    return status;
}

sc_status sc__shape_sym_arith(struct sc__shape_call *c)
{
    sc_expr *a, *b = NULL, *r;
    const char *name = c->info->name;
    sc_status status;

    SC_CHECK(sc__shape_get_symint(c, "self", &a));
    if (sc__op_arg_index(c->op, "other") >= 0)
        SC_CHECK(sc__shape_get_symint(c, "other", &b));
    if (!a || (sc__op_arg_index(c->op, "other") >= 0 && !b))
        return sc__shape_fail(c, SC_ERR_UNSUPPORTED, "missing operand");
    if (strcmp(name, "sym_add") == 0)
        r = sc_expr_add(c->ctx, a, b);
    else if (strcmp(name, "sym_sub") == 0)
        r = sc_expr_sub(c->ctx, a, b);
    else if (strcmp(name, "sym_mul") == 0)
        r = sc_expr_mul(c->ctx, a, b);
    else if (strcmp(name, "sym_neg") == 0)
        r = sc_expr_neg(c->ctx, a);
    else if (strcmp(name, "sym_floordiv") == 0 ||
             strcmp(name, "sym_mod") == 0) {
        SC_CHECK(sc__shape_check(c, sc_expr_ne(c->ctx, b,
                                               sc_expr_int_si(c->ctx, 0)),
                                 "integer division or modulo by zero"));
        r = name[4] == 'f' ? sc_expr_floordiv(c->ctx, a, b)
                           : sc_expr_mod(c->ctx, a, b);
    } else {
        return sc__shape_fail(c, SC_ERR_UNSUPPORTED, "unknown operator");
    }
    return symint_result(c, r);
fail:
    return status;
}
