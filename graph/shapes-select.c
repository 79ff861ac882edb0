/* symcut — shape rules of comparisons, selection and masking. */
#include <config.h>

#include <string.h>

#include "graph/shapes.h"

sc_status sc__shape_compare(struct sc__shape_call *c)
{
    sc_tensor_meta ts[2];
    size_t n;

    SC_TRY(sc__shape_tensor_args(c, ts, 2, &n, NULL, NULL));
    if (n == 0)
        return sc__shape_fail(c, SC_ERR_UNSUPPORTED, "no tensor operand");
    SC_TRY(sc__shape_outputs(c, 1));
    return sc__shape_elementwise(c, 0, SC_DTYPE_B8, n, ts);
}

sc_status sc__shape_compare_scalar(struct sc__shape_call *c)
{
    sc_tensor_meta self;

    SC_TRY(sc__shape_get_tensor(c, "self", &self));
    SC_TRY(sc__shape_outputs(c, 1));
    return sc__shape_elementwise(c, 0, SC_DTYPE_B8, 1, &self);
}

sc_status sc__shape_where(struct sc__shape_call *c)
{
    sc_tensor_meta ts[3];
    size_t n;
    sc__result_type rt;

    sc__result_type_init(&rt);
    SC_TRY(sc__shape_tensor_args(c, ts, 3, &n, &rt, "condition"));
    if (n != 3)
        return sc__shape_fail(c, SC_ERR_UNSUPPORTED, "three tensors");
    if (ts[0].dtype != SC_DTYPE_B8 && ts[0].dtype != SC_DTYPE_U8)
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "where expected condition to be a boolean "
                              "tensor");
    SC_TRY(sc__shape_outputs(c, 1));
    return sc__shape_elementwise(c, 0, sc__result_type_get(&rt), 3, ts);
}

sc_status sc__shape_masked_fill(struct sc__shape_call *c)
{
    sc_tensor_meta self, mask;
    sc_expr **bc;
    size_t n;
    bool contig;

    SC_TRY(sc__shape_get_tensor(c, "self", &self));
    SC_TRY(sc__shape_get_tensor(c, "mask", &mask));
    if (mask.dtype != SC_DTYPE_B8)
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "expected mask to be a boolean tensor");
    SC_TRY(sc__shape_broadcast(c, self.ndim, self.sizes, mask.ndim,
                               mask.sizes, &n, &bc));
    if (n != self.ndim)
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "mask has more dims than self");
    /* PyTorch's masked_fill writes into self.contiguous(): self's layout
       when self is contiguous (size-1 dims keep their strides), else
       dense row-major */
    SC_TRY(sc__shape_outputs(c, 1));
    SC_TRY(sc__shape_is_contiguous(c, &self, &contig));
    if (contig) {
        sc_expr **d, **st;
        SC_TRY(sc__shape_copy_meta(c, &self, &d, &st));
        return sc__shape_set_tensor(c, 0, self.dtype, self.ndim, d, st,
                                    &self);
    }
    return sc__shape_like_contiguous(c, 0, &self, self.dtype);
}

/* A new size-like unbacked symbol of the environment, named name (a fresh
 * u<k> when NULL), in [0, max] when bounded. */
static sc_status new_unbacked_count(struct sc__shape_call *c,
                                    const char *name, bool bounded,
                                    int64_t max, sc_expr **out)
{
    sc_range r;
    sc_status st;

    sc_range_init(&r);
    if (bounded)
        sc_range_set_si(&r, 0, max);
    st = sc_env_create_unbacked(c->env, name, bounded ? &r : NULL,
                                SC_ENV_SIZE_LIKE, out, c->err);
    sc_range_clear(&r);
    return st;
}

/* The unbacked symbol for nonzero's count: the one the node's annotation
 * names when it is a fresh symbol, else a new u<k>. */
static sc_status nonzero_symbol(struct sc__shape_call *c, sc_expr *numel,
                                sc_expr **out)
{
    sc_result decl;
    int64_t max;
    bool bounded = sc_expr_value_si(numel, &max);
    const char *name = NULL;

    sc_graph_node_result(c->g, c->id, &decl);
    if (decl.kind == SC_RESULT_TENSOR && decl.tensor.ndim == 2 &&
        sc_expr_is_symbol(decl.tensor.sizes[0])) {
        *out = decl.tensor.sizes[0];
        if (c->env && sc_env_has_symbol(c->env, *out))
            goto facts;
        name = sc_expr_symbol_name(*out);
    }
    if (!c->env) {
        SC_TRY(sc_env_new(c->ctx, NULL, &c->g->env, c->err));
        c->g->owns_env = true;
        c->env = c->g->env;
    }
    SC_TRY(new_unbacked_count(c, name, bounded, max, out));
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

    SC_TRY(sc__shape_get_tensor(c, "self", &self));
    SC_TRY(nonzero_symbol(c, sc__shape_numel(c->ctx, self.ndim, self.sizes),
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
    SC_TRY(sc__shape_outputs(c, 1));
    return sc__shape_set_tensor(c, 0, SC_DTYPE_I64, 2, d, s, &self);
}
