/* symcut — shape rules of pointwise ops: broadcasting, PyTorch's
 * elementwise output strides and result_type dtype promotion. */
#include <config.h>

#include <string.h>

#include "graph/shapes.h"

/* Ops whose integer inputs give a floating result (INT_TO_FLOAT). */
static bool int_to_float(const sc__op_info *info)
{
    static const char *const names[] = {
        "exp", "log", "sqrt", "rsqrt", "sigmoid", "tanh", "erf",
        "reciprocal", "gelu", "silu", "div", "sin", "cos", NULL};
    size_t i;
    if (strcmp(info->name, "div") == 0)
        return strcmp(info->overload, "Tensor_mode") != 0;
    for (i = 0; names[i]; i++)
        if (strcmp(info->name, names[i]) == 0)
            return true;
    return false;
}

static sc_dtype finish_dtype(const sc__op_info *info, sc_dtype d)
{
    if (strncmp(info->name, "logical_", 8) == 0)
        return SC_DTYPE_B8;
    if (int_to_float(info) && sc__dtype_is_integral(d, true))
        return SC_DTYPE_F32;
    return d;
}

sc_status sc__shape_unary_pointwise(struct sc__shape_call *c)
{
    sc_tensor_meta self;

    SC_TRY(sc__shape_get_tensor(c, "self", &self));
    SC_TRY(sc__shape_outputs(c, 1));
    return sc__shape_elementwise(c, 0, finish_dtype(c->info, self.dtype), 1,
                                 &self);
}

sc_status sc__shape_binary_broadcast(struct sc__shape_call *c)
{
    sc_tensor_meta ts[4];
    size_t n;
    sc__result_type rt;
    sc_dtype d;

    sc__result_type_init(&rt);
    SC_TRY(sc__shape_tensor_args(c, ts, 4, &n, &rt, NULL));
    if (n == 0)
        return sc__shape_fail(c, SC_ERR_UNSUPPORTED, "no tensor operand");
    d = finish_dtype(c->info, sc__result_type_get(&rt));
    if (strcmp(c->info->name, "native_dropout_backward") == 0) {
        /* grad_output's dtype; contiguous whatever the layouts */
        SC_TRY(sc__shape_outputs(c, 1));
        return sc__shape_like_contiguous(c, 0, &ts[0], ts[0].dtype);
    }
    if (strcmp(c->info->name, "threshold_backward") == 0 && n == 2) {
        /* PyTorch's iterator takes self before grad_output: self's layout
           decides the result's strides */
        sc_tensor_meta t = ts[0];
        ts[0] = ts[1];
        ts[1] = t;
    }
    SC_TRY(sc__shape_outputs(c, 1));
    return sc__shape_elementwise(c, 0, d, n, ts);
}

/* Tensor op Scalar: the tensor's sizes; the scalar's category counts as a
 * wrapped number. */
sc_status sc__shape_binary_scalar(struct sc__shape_call *c)
{
    sc_tensor_meta self;
    sc__result_type rt;
    size_t i;

    SC_TRY(sc__shape_get_tensor(c, "self", &self));
    sc__result_type_init(&rt);
    sc__result_type_tensor(&rt, &self);
    for (i = 0; i < c->info->nargs; i++) {
        const sc__op_arg *a = &c->info->args[i];
        if (a->type.base == SC_TYPE_SCALAR && strcmp(a->name, "alpha") != 0 &&
            c->args[i].value)
            sc__result_type_scalar(&rt, c->args[i].value, c->g);
    }
    SC_TRY(sc__shape_outputs(c, 1));
    if (c->op == SC_OP_POW_TENSOR_SCALAR && self.has_strides) {
        const sc_value *e = sc__shape_arg(c, "exponent", NULL);
        if (e && ((e->kind == SC_VALUE_INT && e->u.i == 1) ||
                  (e->kind == SC_VALUE_FLOAT && e->u.f.value == 1.0))) {
            /* PyTorch copies self for an exponent of 1 (clone, preserve
               format) */
            sc_expr **d, **st;
            SC_TRY(sc__shape_preserve_strides(c, &self, &st));
            d = sc__shape_copy_sizes(c, &self);
            if (!d)
                return SC_ERR_NOMEM;
            return sc__shape_set_tensor(
                c, 0, finish_dtype(c->info, sc__result_type_get(&rt)),
                self.ndim, d, st, &self);
        }
    }
    return sc__shape_elementwise(
        c, 0, finish_dtype(c->info, sc__result_type_get(&rt)), 1, &self);
}

/* Scalar op Tensor (pow.Scalar). */
sc_status sc__shape_scalar_binary(struct sc__shape_call *c)
{
    sc_tensor_meta ts[2];
    size_t n;
    sc__result_type rt;
    const sc_value *s = sc__shape_arg(c, "self", NULL);

    sc__result_type_init(&rt);
    SC_TRY(sc__shape_tensor_args(c, ts, 2, &n, &rt, NULL));
    if (n != 1)
        return sc__shape_fail(c, SC_ERR_UNSUPPORTED, "one tensor operand");
    if (s)
        sc__result_type_scalar(&rt, s, c->g);
    SC_TRY(sc__shape_outputs(c, 1));
    return sc__shape_elementwise(
        c, 0, finish_dtype(c->info, sc__result_type_get(&rt)), 1, ts);
}

/* self's sizes and dtype, contiguous whatever self's layout (bernoulli.p,
 * which PyTorch allocates with the legacy contiguous format). */
sc_status sc__shape_contiguous_like(struct sc__shape_call *c)
{
    sc_tensor_meta self;

    SC_TRY(sc__shape_get_tensor(c, "self", &self));
    SC_TRY(sc__shape_outputs(c, 1));
    return sc__shape_like_contiguous(c, 0, &self, self.dtype);
}
