/* symcut — shape rules of sizes as symbolic integers (sym_size,
 * sym_stride, sym_numel) and of the Python pseudo-ops on them. */
#include <config.h>

#include <string.h>

#include "graph/shapes.h"

/* ---- Sizes as symbolic integers ----------------------------------------- */

static sc_status symint_result(struct sc__shape_call *c, sc_expr *e)
{
    if (!e)
        return sc__shape_expr_error(c);
    if (c->env) {
        SC_TRY(sc_env_simplify(c->env, e, &e, c->err));
    }
    SC_TRY(sc__shape_outputs(c, 1));
    c->out[0].kind = sc_expr_is_bool(e) ? SC_RESULT_SYMBOOL : SC_RESULT_SYMINT;
    c->out[0].expr = e;
    return SC_OK;
}

static sc_status sym_dim(struct sc__shape_call *c, bool stride)
{
    sc_tensor_meta self;
    int64_t dim;
    size_t w;

    SC_TRY(sc__shape_get_tensor(c, "self", &self));
    SC_TRY(sc__shape_get_int(c, "dim", 0, &dim));
    if (self.ndim == 0)
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "dimension specified as %lld but tensor has "
                              "no dimensions", (long long)dim);
    SC_TRY(sc__shape_wrap_dim(c, dim, self.ndim, &w));
    if (stride && c->no_strides)
        return sc__shape_fail(c, SC_ERR_UNSUPPORTED, "no strides known");
    return symint_result(c, stride ? self.strides[w] : self.sizes[w]);
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

    SC_TRY(sc__shape_get_tensor(c, "self", &self));
    return symint_result(c, sc__shape_numel(c->ctx, self.ndim, self.sizes));
}

/* ---- Python pseudo-ops -------------------------------------------------- */

sc_status sc__shape_sym_arith(struct sc__shape_call *c)
{
    sc_expr *a, *b = NULL, *r;
    const char *name = c->info->name;

    SC_TRY(sc__shape_get_symint(c, "self", &a));
    if (sc__op_arg_index(c->op, "other") >= 0)
        SC_TRY(sc__shape_get_symint(c, "other", &b));
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
    else if (strcmp(name, "torch_sym_max") == 0)
        r = sc_expr_max(c->ctx, a, b);
    else if (strcmp(name, "torch_sym_min") == 0)
        r = sc_expr_min(c->ctx, a, b);
    else if (strcmp(name, "sym_floordiv") == 0 ||
             strcmp(name, "sym_mod") == 0) {
        SC_TRY(sc__shape_check(c, sc_expr_ne(c->ctx, b,
                                             sc_expr_int_si(c->ctx, 0)),
                               "integer division or modulo by zero"));
        r = name[4] == 'f' ? sc_expr_floordiv(c->ctx, a, b)
                           : sc_expr_mod(c->ctx, a, b);
    } else {
        return sc__shape_fail(c, SC_ERR_UNSUPPORTED, "unknown operator");
    }
    return symint_result(c, r);
}

/* sym_eq .. sym_ge: a comparison of two SymInts. */
sc_status sc__shape_sym_compare(struct sc__shape_call *c)
{
    static const struct {
        const char *name;
        sc_expr *(*fn)(sc_ctx *, sc_expr *, sc_expr *);
    } ops[] = {
        {"sym_eq", sc_expr_eq}, {"sym_ne", sc_expr_ne},
        {"sym_lt", sc_expr_lt}, {"sym_le", sc_expr_le},
        {"sym_gt", sc_expr_gt}, {"sym_ge", sc_expr_ge},
    };
    const char *name = c->info->name;
    sc_expr *a, *b;
    size_t i;

    for (i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        if (strcmp(name, ops[i].name) != 0)
            continue;
        SC_TRY(sc__shape_get_symint(c, "self", &a));
        SC_TRY(sc__shape_get_symint(c, "other", &b));
        if (!a || !b)
            return sc__shape_fail(c, SC_ERR_UNSUPPORTED, "missing operand");
        return symint_result(c, ops[i].fn(c->ctx, a, b));
    }
    return sc__shape_fail(c, SC_ERR_UNSUPPORTED, "unknown operator");
}

/* sym_and, sym_or, sym_not and torch_sym_not: logic on SymBools.  An
 * operand is a SymBool node, a bool, or a concrete int (nonzero is true,
 * as Python's `&` of a bool and an int is not, but torch.sym_not(1) is). */
static sc_status symbool_operand(struct sc__shape_call *c, const char *name,
                                 sc_expr **out)
{
    const sc__default *def;
    const sc_value *v = sc__shape_arg(c, name, &def);
    sc_result r;

    *out = NULL;
    if (!v)
        return sc__shape_fail(c, SC_ERR_UNSUPPORTED, "missing operand");
    switch (v->kind) {
    case SC_VALUE_BOOL:
        *out = sc_expr_bool(c->ctx, v->u.b);
        break;
    case SC_VALUE_INT:
        *out = sc_expr_bool(c->ctx, v->u.i != 0);
        break;
    case SC_VALUE_SYMINT:
        if (!sc_expr_is_bool(v->u.expr))
            return sc__shape_fail(c, SC_ERR_TYPE,
                                  "argument '%s' must be a SymBool", name);
        *out = v->u.expr;
        return SC_OK;
    case SC_VALUE_NODE:
        sc_graph_node_result(c->g, v->u.node, &r);
        if (r.kind == SC_RESULT_TENSOR)
            return sc__shape_fail(c, SC_ERR_UNSUPPORTED,
                                  "'%s' is a Tensor (bitwise logic of "
                                  "tensors has no rule)",
                                  sc_graph_node_name(c->g, v->u.node));
        if (r.kind != SC_RESULT_SYMBOOL || !r.expr)
            return sc__shape_fail(c, SC_ERR_UNSUPPORTED,
                                  "'%s' is not a known SymBool",
                                  sc_graph_node_name(c->g, v->u.node));
        *out = r.expr;
        return SC_OK;
    default:
        return sc__shape_fail(c, SC_ERR_TYPE,
                              "argument '%s' must be a SymBool", name);
    }
    return *out ? SC_OK : sc__shape_expr_error(c);
}

sc_status sc__shape_sym_logic(struct sc__shape_call *c)
{
    const char *name = c->info->name;
    sc_expr *a, *b;

    SC_TRY(symbool_operand(c, "self", &a));
    if (strcmp(name, "sym_and") == 0 || strcmp(name, "sym_or") == 0) {
        SC_TRY(symbool_operand(c, "other", &b));
        return symint_result(c, name[4] == 'a' ? sc_expr_and(c->ctx, a, b)
                                               : sc_expr_or(c->ctx, a, b));
    }
    if (strcmp(name, "sym_not") == 0 || strcmp(name, "torch_sym_not") == 0)
        return symint_result(c, sc_expr_not(c->ctx, a));
    return sc__shape_fail(c, SC_ERR_UNSUPPORTED, "unknown operator");
}

/* ---- torch.sym_float, sym_int, sym_ite, sym_sqrt, sym_sum --------------- */

/* A SymFloat result (torch.sym_float, torch._sym_sqrt): the graph layer
 * has no float expressions, so the result stays unknown (the kernel
 * computes it); the operand must be a number, not a tensor. */
sc_status sc__shape_sym_float(struct sc__shape_call *c)
{
    const sc__default *def;
    const sc_value *v = sc__shape_arg(c, "self", &def);
    sc_result r;

    if (!v)
        return sc__shape_fail(c, SC_ERR_UNSUPPORTED, "missing operand");
    if (v->kind == SC_VALUE_NODE) {
        sc_graph_node_result(c->g, v->u.node, &r);
        if (r.kind == SC_RESULT_TENSOR || r.kind == SC_RESULT_TUPLE ||
            r.kind == SC_RESULT_NONE)
            return sc__shape_fail(c, SC_ERR_TYPE,
                                  "'%s' is not a number",
                                  sc_graph_node_name(c->g, v->u.node));
    } else if (v->kind != SC_VALUE_INT && v->kind != SC_VALUE_FLOAT &&
               v->kind != SC_VALUE_SYMINT && v->kind != SC_VALUE_BOOL) {
        return sc__shape_fail(c, SC_ERR_TYPE,
                              "argument 'self' must be a number");
    }
    if (v->kind == SC_VALUE_SYMINT && sc_expr_is_bool(v->u.expr))
        return sc__shape_fail(c, SC_ERR_TYPE,
                              "argument 'self' must be a number, not a "
                              "SymBool");
    SC_TRY(sc__shape_outputs(c, 1));
    c->out[0].kind = SC_RESULT_UNKNOWN;
    return SC_OK;
}

/* torch.sym_int: a SymInt stays itself, a float constant is truncated
 * toward zero; of a SymFloat node the result is unknown (no float
 * expressions), as sym_float's. */
sc_status sc__shape_sym_int(struct sc__shape_call *c)
{
    const sc__default *def;
    const sc_value *v = sc__shape_arg(c, "self", &def);
    sc_result r;
    sc_expr *e;

    if (!v)
        return sc__shape_fail(c, SC_ERR_UNSUPPORTED, "missing operand");
    if (v->kind == SC_VALUE_FLOAT) {
        double f = v->u.f.value;
        if (!(f > -0x1p63 && f < 0x1p63))
            return sc__shape_fail(c, SC_ERR_OVERFLOW,
                                  "sym_int of %g is not an int64", f);
        return symint_result(c, sc_expr_int_si(c->ctx, (int64_t)f));
    }
    if (v->kind == SC_VALUE_NODE) {
        sc_graph_node_result(c->g, v->u.node, &r);
        if (r.kind == SC_RESULT_UNKNOWN)
            return sc__shape_sym_float(c);
    }
    SC_TRY(sc__shape_get_symint(c, "self", &e));
    if (!e || sc_expr_is_bool(e))
        return sc__shape_fail(c, SC_ERR_TYPE,
                              "argument 'self' must be a number");
    return symint_result(c, e);
}

/* torch.sym_ite(b, t, f): t where b holds, else f.  There is no
 * conditional expression: the result is known when b is decided (a
 * constant once simplified) or when t and f are the same. */
sc_status sc__shape_sym_ite(struct sc__shape_call *c)
{
    sc_expr *b, *t, *f;

    SC_TRY(symbool_operand(c, "b", &b));
    SC_TRY(sc__shape_get_symint(c, "t", &t));
    SC_TRY(sc__shape_get_symint(c, "f", &f));
    if (!t || !f)
        return sc__shape_fail(c, SC_ERR_UNSUPPORTED, "missing operand");
    if (c->env)
        SC_TRY(sc_env_simplify(c->env, b, &b, c->err));
    if (t == f)
        return symint_result(c, t);
    if (b == sc_expr_true(c->ctx))
        return symint_result(c, t);
    if (b == sc_expr_false(c->ctx))
        return symint_result(c, f);
    return sc__shape_fail(c, SC_ERR_UNSUPPORTED,
                          "the condition of sym_ite is not decided (no "
                          "conditional expression)");
}

/* torch.sym_sum(args): the sum of a list or tuple of SymInts. */
sc_status sc__shape_sym_sum(struct sc__shape_call *c)
{
    sc_expr **v;
    size_t n;
    bool present;

    SC_TRY(sc__shape_get_symint_list(c, "args", &v, &n, &present));
    if (!present)
        return sc__shape_fail(c, SC_ERR_UNSUPPORTED, "missing operand");
    return symint_result(c, n ? sc_expr_add_n(c->ctx, n, v)
                              : sc_expr_int_si(c->ctx, 0));
}
