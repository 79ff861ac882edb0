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
        "reciprocal", "gelu", "silu", "div", NULL};
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
    if (strcmp(c->info->name, "native_dropout_backward") == 0)
        d = ts[0].dtype;
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
