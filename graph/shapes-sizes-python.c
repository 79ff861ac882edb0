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
