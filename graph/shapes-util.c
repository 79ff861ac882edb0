/* symcut — helpers shared by the shape rules: arguments, questions to the
 * shape environment, broadcasting, dense strides, result_type operands. */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/shapes.h"

/* ---- Allocation and results ------------------------------------------------ */

sc_expr **sc__shape_dims(struct sc__shape_call *c, size_t n)
{
    sc_expr **d = sc__arena_alloc(&c->g->arena, (n ? n : 1) * sizeof *d);
    if (!d)
        sc__error_nomem(c->err);
    return d;
}

sc_status sc__shape_outputs(struct sc__shape_call *c, size_t n)
{
    size_t i;
    c->out = sc__arena_alloc(&c->g->arena, (n ? n : 1) * sizeof *c->out);
    if (!c->out)
        return sc__error_nomem(c->err);
    for (i = 0; i < n; i++)
        sc_result_init(&c->out[i]);
    c->nout = n;
    return SC_OK;
}

sc_status sc__shape_expr_error(struct sc__shape_call *c)
{
    /* The context's pending error (an interning failure) if there is one. */
    SC_TRY(sc_ctx_take_error(c->ctx, c->err));
    return sc__error_set(c->err, SC_ERR_INTERNAL,
                         "expression constructor failed");
}

sc_status sc__shape_fail(struct sc__shape_call *c, sc_status code,
                         const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return sc__error_set(c->err, code, "%s: %s", c->info->dotted, msg);
}

sc_status sc__shape_set_tensor(struct sc__shape_call *c, size_t k,
                               sc_dtype dtype, size_t ndim, sc_expr **sizes,
                               sc_expr **strides, const sc_tensor_meta *like)
{
    sc_result *r = &c->out[k];
    size_t i;

    for (i = 0; i < ndim; i++)
        if (!sizes[i] || (strides && !strides[i]))
            return sc__shape_expr_error(c);
    if (!strides) {
        strides = sc__shape_dims(c, ndim);
        if (!strides)
            return SC_ERR_NOMEM;
        SC_TRY(sc__shape_contiguous(c, ndim, sizes, strides));
    }
    if (c->env)
        for (i = 0; i < ndim; i++) {
            /* an integer constant is its own simplest form */
            if (!sc_expr_is_int(sizes[i]))
                SC_TRY(sc_env_simplify(c->env, sizes[i], &sizes[i], c->err));
            if (!sc_expr_is_int(strides[i]))
                SC_TRY(sc_env_simplify(c->env, strides[i], &strides[i],
                                       c->err));
        }
    sc_result_init(r);
    r->kind = SC_RESULT_TENSOR;
    r->tensor.dtype = dtype;
    r->tensor.ndim = ndim;
    r->tensor.sizes = sizes;
    r->tensor.strides = strides;
    r->tensor.has_strides = true;
    if (like && like->has_device) {
        r->tensor.has_device = true;
        r->tensor.device = like->device;
    } else {
        r->tensor.has_device = true;
        r->tensor.device.type = SC_DEVICE_CPU;
        r->tensor.device.index = -1;
    }
    return SC_OK;
}

/* ---- Arguments --------------------------------------------------------------- */

const sc_value *sc__shape_arg(struct sc__shape_call *c, const char *name,
                              const sc__default **def)
{
    int i = sc__op_arg_index(c->op, name);
    if (def)
        *def = NULL;
    if (i < 0)
        return NULL;
    if (def)
        *def = c->args[i].def;
    return c->args[i].value;
}

sc_status sc__shape_value_tensor(struct sc__shape_call *c, const sc_value *v,
                                 sc_tensor_meta *out)
{
    sc_result r;
    if (!v || v->kind != SC_VALUE_NODE)
        return sc__shape_fail(c, SC_ERR_UNSUPPORTED, "expected a tensor");
    sc_graph_node_result(c->g, v->u.node, &r);
    if (r.kind != SC_RESULT_TENSOR)
        return sc__shape_fail(c, SC_ERR_UNSUPPORTED,
                              "'%s' has no tensor metadata",
                              sc_graph_node_name(c->g, v->u.node));
    *out = r.tensor;
    if (!r.tensor.has_strides) {
        sc_expr **s = sc__shape_dims(c, r.tensor.ndim);
        if (!s)
            return SC_ERR_NOMEM;
        SC_TRY(sc__shape_contiguous(c, r.tensor.ndim, r.tensor.sizes, s));
        out->strides = s;
        out->has_strides = true;
        c->no_strides = true;
    }
    return SC_OK;
}

sc_status sc__shape_get_tensor(struct sc__shape_call *c, const char *name,
                               sc_tensor_meta *out)
{
    const sc_value *v = sc__shape_arg(c, name, NULL);
    if (!v || v->kind == SC_VALUE_NONE)
        return sc__shape_fail(c, SC_ERR_UNSUPPORTED, "no tensor '%s'", name);
    return sc__shape_value_tensor(c, v, out);
}

sc_status sc__shape_get_tensor_opt(struct sc__shape_call *c, const char *name,
                                   sc_tensor_meta *out, bool *present)
{
    const sc_value *v = sc__shape_arg(c, name, NULL);
    *present = v && v->kind != SC_VALUE_NONE;
    if (!*present)
        return SC_OK;
    return sc__shape_value_tensor(c, v, out);
}

sc_status sc__shape_value_symint(struct sc__shape_call *c, const sc_value *v,
                                 sc_expr **out)
{
    sc_result r;
    *out = NULL;
    if (!v || v->kind == SC_VALUE_NONE)
        return SC_OK;
    switch (v->kind) {
    case SC_VALUE_INT:
        *out = sc_expr_int_si(c->ctx, v->u.i);
        break;
    case SC_VALUE_BOOL:
        *out = sc_expr_int_si(c->ctx, v->u.b);
        break;
    case SC_VALUE_SYMINT:
        if (sc_expr_is_bool(v->u.expr))
            return sc__shape_fail(c, SC_ERR_UNSUPPORTED,
                                  "expected an integer");
        *out = v->u.expr;
        return SC_OK;
    case SC_VALUE_NODE:
        sc_graph_node_result(c->g, v->u.node, &r);
        if (r.kind != SC_RESULT_SYMINT || !r.expr)
            return sc__shape_fail(c, SC_ERR_UNSUPPORTED,
                                  "'%s' is not a known SymInt",
                                  sc_graph_node_name(c->g, v->u.node));
        *out = r.expr;
        return SC_OK;
    default:
        return sc__shape_fail(c, SC_ERR_UNSUPPORTED, "expected an integer");
    }
    return *out ? SC_OK : sc__shape_expr_error(c);
}

sc_status sc__shape_get_symint(struct sc__shape_call *c, const char *name,
                               sc_expr **out)
{
    const sc__default *def;
    const sc_value *v = sc__shape_arg(c, name, &def);
    *out = NULL;
    if (v)
        return sc__shape_value_symint(c, v, out);
    if (def && (def->kind == SC_DEF_INT || def->kind == SC_DEF_BOOL)) {
        *out = sc_expr_int_si(c->ctx, def->i);
        return *out ? SC_OK : sc__shape_expr_error(c);
    }
    return SC_OK;
}

sc_status sc__shape_get_int(struct sc__shape_call *c, const char *name,
                            int64_t dflt, int64_t *out)
{
    sc_expr *e;
    SC_TRY(sc__shape_get_symint(c, name, &e));
    if (!e) {
        *out = dflt;
        return SC_OK;
    }
    if (sc_expr_value_si(e, out))
        return SC_OK;
    if (!c->env)
        return sc__shape_fail(c, SC_ERR_DATA_DEPENDENT,
                              "argument '%s' must be concrete", name);
    return sc_env_guard_int_si(c->env, e, out, c->err);
}

sc_status sc__shape_get_symint_list(struct sc__shape_call *c,
                                    const char *name, sc_expr ***out,
                                    size_t *n, bool *present)
{
    const sc__default *def;
    const sc_value *v = sc__shape_arg(c, name, &def);
    int ai = sc__op_arg_index(c->op, name);
    size_t fixed = ai >= 0 ? c->info->args[ai].type.list_size : 0;
    size_t i, cnt;
    sc_expr **d;

    *out = NULL;
    *n = 0;
    *present = false;
    if (!v) {
        if (!def || def->kind == SC_DEF_NONE || def->kind == SC_DEF_ABSENT)
            return SC_OK;
        if (def->kind == SC_DEF_INT_LIST || def->kind == SC_DEF_BOOL_LIST) {
            cnt = def->n;
            if (cnt == 1 && fixed > 1)
                cnt = fixed;
            d = sc__shape_dims(c, cnt);
            if (!d)
                return SC_ERR_NOMEM;
            for (i = 0; i < cnt; i++)
                d[i] = sc_expr_int_si(c->ctx,
                                      def->ints[def->n == 1 ? 0 : i]);
        } else if (def->kind == SC_DEF_INT) {
            cnt = fixed ? fixed : 1;
            d = sc__shape_dims(c, cnt);
            if (!d)
                return SC_ERR_NOMEM;
            for (i = 0; i < cnt; i++)
                d[i] = sc_expr_int_si(c->ctx, def->i);
        } else {
            return sc__shape_fail(c, SC_ERR_UNSUPPORTED,
                                  "default of '%s'", name);
        }
        for (i = 0; i < cnt; i++)
            if (!d[i])
                return sc__shape_expr_error(c);
        *out = d;
        *n = cnt;
        *present = true;
        return SC_OK;
    }
    if (v->kind == SC_VALUE_NONE)
        return SC_OK;
    if (v->kind != SC_VALUE_LIST && v->kind != SC_VALUE_TUPLE) {
        sc_expr *e;
        SC_TRY(sc__shape_value_symint(c, v, &e));
        cnt = fixed ? fixed : 1;
        d = sc__shape_dims(c, cnt);
        if (!d)
            return SC_ERR_NOMEM;
        for (i = 0; i < cnt; i++)
            d[i] = e;
        *out = d;
        *n = cnt;
        *present = true;
        return SC_OK;
    }
    cnt = v->u.list.n;
    if (cnt == 1 && fixed > 1)
        cnt = fixed;
    d = sc__shape_dims(c, cnt);
    if (!d)
        return SC_ERR_NOMEM;
    for (i = 0; i < cnt; i++) {
        SC_TRY(sc__shape_value_symint(
            c, &v->u.list.items[v->u.list.n == 1 ? 0 : i], &d[i]));
        if (!d[i])
            return sc__shape_fail(c, SC_ERR_UNSUPPORTED,
                                  "None in the list '%s'", name);
    }
    *out = d;
    *n = cnt;
    *present = true;
    return SC_OK;
}

bool sc__shape_get_bool(struct sc__shape_call *c, const char *name, bool dflt)
{
    const sc__default *def;
    const sc_value *v = sc__shape_arg(c, name, &def);
    if (v) {
        if (v->kind == SC_VALUE_BOOL)
            return v->u.b;
        if (v->kind == SC_VALUE_INT)
            return v->u.i != 0;
        return dflt;
    }
    if (def && def->kind == SC_DEF_BOOL)
        return def->i != 0;
    return dflt;
}

bool sc__shape_get_bool_at(struct sc__shape_call *c, const char *name,
                           size_t i, bool dflt)
{
    const sc__default *def;
    const sc_value *v = sc__shape_arg(c, name, &def);
    if (v) {
        if ((v->kind == SC_VALUE_LIST || v->kind == SC_VALUE_TUPLE) &&
            i < v->u.list.n) {
            const sc_value *e = &v->u.list.items[i];
            if (e->kind == SC_VALUE_BOOL)
                return e->u.b;
            if (e->kind == SC_VALUE_INT)
                return e->u.i != 0;
        }
        return dflt;
    }
    if (def && def->kind == SC_DEF_BOOL_LIST && i < def->n)
        return def->ints[i] != 0;
    return dflt;
}

bool sc__shape_get_dtype(struct sc__shape_call *c, const char *name,
                         sc_dtype *out)
{
    const sc__default *def;
    const sc_value *v = sc__shape_arg(c, name, &def);
    if (v)
        return v->kind == SC_VALUE_DTYPE ? (*out = v->u.dtype, true) : false;
    if (def && def->kind == SC_DEF_SCALAR_TYPE && def->s)
        return sc_dtype_from_torch_name(def->s, strlen(def->s), out);
    return false;
}

bool sc__shape_get_memory_format(struct sc__shape_call *c, const char *name,
                                 sc_memory_format *out)
{
    const sc_value *v = sc__shape_arg(c, name, NULL);
    if (v && v->kind == SC_VALUE_MEMORY_FORMAT) {
        *out = v->u.memory_format;
        return true;
    }
    return false;
}

/* ---- Questions ----------------------------------------------------------------- */

static bool const_truth(const sc_expr *e, bool *out)
{
    if (!e)
        return false;
    if (sc_expr_node_kind(e) == SC_EXPR_TRUE)
        return (*out = true);
    if (sc_expr_node_kind(e) == SC_EXPR_FALSE)
        return !(*out = false);
    return false;
}

sc_status sc__shape_known(struct sc__shape_call *c, sc_expr *cond,
                          bool oblivious, sc_tri *out)
{
    bool b;
    if (!cond)
        return sc__shape_expr_error(c);
    if (const_truth(cond, &b)) {
        *out = b ? SC_TRI_TRUE : SC_TRI_FALSE;
        return SC_OK;
    }
    if (!c->env) {
        *out = SC_TRI_UNKNOWN;
        return SC_OK;
    }
    return sc_env_statically_known(c->env, cond,
                                   oblivious ? SC_ENV_OBLIVIOUS : 0, out,
                                   c->err);
}

sc_status sc__shape_guard(struct sc__shape_call *c, sc_expr *cond, bool *out)
{
    if (!cond)
        return sc__shape_expr_error(c);
    if (const_truth(cond, out))
        return SC_OK;
    if (!c->env)
        return sc__shape_fail(c, SC_ERR_DATA_DEPENDENT,
                              "a guard without a shape environment");
    return sc_env_guard(c->env, cond, out, c->err);
}

sc_status sc__shape_oblivious(struct sc__shape_call *c, sc_expr *cond,
                              bool *out)
{
    if (!cond)
        return sc__shape_expr_error(c);
    if (const_truth(cond, out))
        return SC_OK;
    if (!c->env)
        return sc__shape_fail(c, SC_ERR_DATA_DEPENDENT,
                              "a guard without a shape environment");
    return sc_env_size_oblivious(c->env, cond, out, c->err);
}

/* st, after copying the error an environment call recorded in tmp into the
 * call's error when st is a failure (the caller examined st first and
 * handled the failures it rewrites). */
static sc_status keep_env_error(struct sc__shape_call *c, sc_status st,
                                const sc_error *tmp)
{
    if (st != SC_OK && c->err)
        *c->err = *tmp;
    return st;
}

sc_status sc__shape_decide(struct sc__shape_call *c, sc_expr *cond,
                           sc_tri *out)
{
    sc_status st;
    sc_error tmp;
    bool b;

    SC_TRY(sc__shape_known(c, cond, true, out));
    if (*out != SC_TRI_UNKNOWN || !c->env)
        return SC_OK;
    sc_error_init(&tmp);
    st = sc_env_size_oblivious(c->env, cond, &b, &tmp);
    if (st == SC_ERR_DATA_DEPENDENT)
        return SC_OK; /* an unbacked symbol decides: unknown */
    SC_TRY(keep_env_error(c, st, &tmp));
    *out = b ? SC_TRI_TRUE : SC_TRI_FALSE;
    return SC_OK;
}

sc_status sc__shape_check(struct sc__shape_call *c, sc_expr *cond,
                          const char *what)
{
    bool b;
    sc_status st;
    sc_error tmp;

    if (!cond)
        return sc__shape_expr_error(c);
    if (const_truth(cond, &b)) {
        if (b)
            return SC_OK;
        return sc__shape_fail(c, SC_ERR_SHAPE, "%s", what);
    }
    if (!c->env)
        return sc__shape_fail(c, SC_ERR_DATA_DEPENDENT,
                              "cannot check %s without a shape environment",
                              what);
    sc_error_init(&tmp);
    st = sc_env_assert(c->env, cond, &tmp);
    if (st == SC_ERR_GUARD || st == SC_ERR_CONTRADICTION)
        return sc__shape_fail(c, SC_ERR_SHAPE, "%s", what);
    return keep_env_error(c, st, &tmp);
}

sc_status sc__shape_check_eq(struct sc__shape_call *c, sc_expr *a,
                             sc_expr *b, const char *what)
{
    char *sa, *sb, msg[300];
    sc_expr *cond;

    if (!a || !b)
        return sc__shape_expr_error(c);
    if (a == b)
        return SC_OK;
    cond = sc_expr_eq(c->ctx, a, b);
    sa = sc_expr_to_str(c->ctx, a);
    sb = sc_expr_to_str(c->ctx, b);
    snprintf(msg, sizeof msg, "%s (%s vs %s)", what, sa ? sa : "?",
             sb ? sb : "?");
    free(sa);
    free(sb);
    return sc__shape_check(c, cond, msg);
}

sc_status sc__shape_is_one(struct sc__shape_call *c, sc_expr *a, bool *out)
{
    return sc__shape_oblivious(c, sc_expr_eq(c->ctx, a,
                                             sc_expr_int_si(c->ctx, 1)),
                               out);
}

/* ---- Layout -------------------------------------------------------------------------- */

sc_status sc__shape_wrap_dim(struct sc__shape_call *c, int64_t dim,
                             size_t ndim, size_t *out)
{
    int64_t n = ndim ? (int64_t)ndim : 1;
    if (dim < -n || dim >= n)
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "dimension out of range (expected to be in "
                              "range of [%lld, %lld], but got %lld)",
                              (long long)-n, (long long)(n - 1),
                              (long long)dim);
    *out = (size_t)(dim < 0 ? dim + n : dim);
    return SC_OK;
}

/* max(size, 1) as PyTorch's dense strides use it: size itself when it is
 * known (size-obliviously) to be at least 1. */
static sc_status at_least_one(struct sc__shape_call *c, sc_expr *size,
                              sc_expr **out)
{
    sc_tri t;
    sc_expr *one = sc_expr_int_si(c->ctx, 1);
    SC_TRY(sc__shape_known(c, sc_expr_ge(c->ctx, size, one), true, &t));
    *out = t == SC_TRI_TRUE ? size : sc_expr_max(c->ctx, size, one);
    return *out ? SC_OK : sc__shape_expr_error(c);
}

sc_status sc__shape_dense_in_order(struct sc__shape_call *c, size_t n,
                                   sc_expr *const *sizes, const size_t *perm,
                                   sc_expr **strides)
{
    sc_expr *m = sc_expr_int_si(c->ctx, 1), *f;
    size_t i;
    for (i = n; i-- > 0;) {
        size_t d = perm ? perm[i] : i;
        strides[d] = m;
        SC_TRY(at_least_one(c, sizes[d], &f));
        m = sc_expr_mul(c->ctx, m, f);
        if (!m)
            return sc__shape_expr_error(c);
    }
    return SC_OK;
}

sc_status sc__shape_contiguous(struct sc__shape_call *c, size_t n,
                               sc_expr *const *sizes, sc_expr **strides)
{
    return sc__shape_dense_in_order(c, n, sizes, NULL, strides);
}

/* should_swap of PyTorch's elementwise permutation: dims a and b in the
 * physical order innermost first. */
static sc_status should_swap(struct sc__shape_call *c, sc_expr *const *sizes,
                             size_t nops, sc_expr *const *const *strides,
                             size_t a, size_t b, int *out)
{
    size_t k;
    sc_tri t;
    sc_expr *zero = sc_expr_int_si(c->ctx, 0);

    *out = 0;
    for (k = 0; k < nops; k++) {
        sc_expr *sa, *sb;
        if (!strides[k])
            continue;
        sa = strides[k][a];
        sb = strides[k][b];
        if (sa == zero || sb == zero)
            continue;
        SC_TRY(sc__shape_decide(c, sc_expr_eq(c->ctx, sa, zero), &t));
        if (t == SC_TRI_TRUE)
            continue;
        SC_TRY(sc__shape_decide(c, sc_expr_eq(c->ctx, sb, zero), &t));
        if (t == SC_TRI_TRUE)
            continue;
        if (sa != sb) {
            SC_TRY(sc__shape_decide(c, sc_expr_lt(c->ctx, sa, sb), &t));
            if (t == SC_TRI_TRUE) {
                *out = -1;
                return SC_OK;
            }
            SC_TRY(sc__shape_decide(c, sc_expr_gt(c->ctx, sa, sb), &t));
            if (t == SC_TRI_TRUE) {
                *out = 1;
                return SC_OK;
            }
            if (t == SC_TRI_UNKNOWN)
                continue;
        }
        if (sizes[a] != sizes[b]) {
            SC_TRY(sc__shape_decide(c, sc_expr_gt(c->ctx, sizes[a], sizes[b]),
                                    &t));
            if (t == SC_TRI_TRUE) {
                *out = 1;
                return SC_OK;
            }
        }
    }
    return SC_OK;
}

sc_status sc__shape_elementwise_perm(struct sc__shape_call *c, size_t n,
                                     sc_expr *const *sizes, size_t nops,
                                     sc_expr *const *const *strides,
                                     size_t *perm)
{
    size_t i, tmp[64], *p = tmp;

    if (n > 64)
        return sc__shape_fail(c, SC_ERR_LIMIT, "too many dimensions");
    for (i = 0; i < n; i++)
        p[i] = n - 1 - i; /* innermost first */
    for (i = 1; i < n; i++) {
        size_t d1 = i, d0;
        for (d0 = i; d0-- > 0;) {
            int cmp;
            SC_TRY(should_swap(c, sizes, nops, strides, p[d0], p[d1], &cmp));
            if (cmp > 0) {
                size_t t = p[d0];
                p[d0] = p[d1];
                p[d1] = t;
                d1 = d0;
            } else if (cmp < 0) {
                break;
            }
        }
    }
    for (i = 0; i < n; i++)
        perm[i] = p[n - 1 - i]; /* outermost first */
    return SC_OK;
}

sc_status sc__shape_is_contiguous(struct sc__shape_call *c,
                                  const sc_tensor_meta *t, bool *out)
{
    sc_expr *expected = sc_expr_int_si(c->ctx, 1);
    size_t i;
    *out = false;
    if (!t->has_strides)
        return SC_OK;
    for (i = t->ndim; i-- > 0;) {
        sc_tri one;
        SC_TRY(sc__shape_known(
            c, sc_expr_eq(c->ctx, t->sizes[i], sc_expr_int_si(c->ctx, 1)),
            true, &one));
        if (one == SC_TRI_TRUE)
            continue;
        if (t->strides[i] != expected) {
            sc_tri eq;
            SC_TRY(sc__shape_known(c, sc_expr_eq(c->ctx, t->strides[i],
                                                 expected),
                                   true, &eq));
            if (eq != SC_TRI_TRUE)
                return SC_OK;
        }
        expected = sc_expr_mul(c->ctx, expected, t->sizes[i]);
        if (!expected)
            return sc__shape_expr_error(c);
    }
    *out = true;
    return SC_OK;
}

sc_status sc__shape_is_dense(struct sc__shape_call *c, const sc_tensor_meta *t,
                             bool *out)
{
    size_t perm[64], i;
    sc_expr *const *st1[1];
    sc_expr **dense;

    *out = false;
    if (!t->has_strides || t->ndim > 64)
        return SC_OK;
    st1[0] = t->strides;
    SC_TRY(sc__shape_elementwise_perm(c, t->ndim, t->sizes, 1, st1, perm));
    dense = sc__shape_dims(c, t->ndim);
    if (!dense)
        return SC_ERR_NOMEM;
    SC_TRY(sc__shape_dense_in_order(c, t->ndim, t->sizes, perm, dense));
    for (i = 0; i < t->ndim; i++) {
        sc_tri one, eq;
        if (dense[i] == t->strides[i])
            continue;
        SC_TRY(sc__shape_known(
              c, sc_expr_eq(c->ctx, t->sizes[i], sc_expr_int_si(c->ctx, 1)),
              true, &one));
        if (one == SC_TRI_TRUE)
            continue;
        SC_TRY(sc__shape_known(c, sc_expr_eq(c->ctx, dense[i], t->strides[i]),
                               true, &eq));
        if (eq != SC_TRI_TRUE)
            return SC_OK;
    }
    *out = true;
    return SC_OK;
}

sc_status sc__shape_preserve_strides(struct sc__shape_call *c,
                                     const sc_tensor_meta *t,
                                     sc_expr ***strides)
{
    bool dense;
    size_t perm[64], i;
    sc_expr *const *st1[1];
    sc_expr **s;

    s = sc__shape_dims(c, t->ndim);
    if (!s)
        return SC_ERR_NOMEM;
    *strides = s;
    if (!t->has_strides)
        return sc__shape_contiguous(c, t->ndim, t->sizes, s);
    SC_TRY(sc__shape_is_dense(c, t, &dense));
    if (dense) {
        for (i = 0; i < t->ndim; i++)
            s[i] = t->strides[i];
        return SC_OK;
    }
    if (t->ndim > 64)
        return sc__shape_fail(c, SC_ERR_LIMIT, "too many dimensions");
    st1[0] = t->strides;
    SC_TRY(sc__shape_elementwise_perm(c, t->ndim, t->sizes, 1, st1, perm));
    return sc__shape_dense_in_order(c, t->ndim, t->sizes, perm, s);
}

sc_status sc__shape_broadcast(struct sc__shape_call *c, size_t na,
                              sc_expr *const *a, size_t nb,
                              sc_expr *const *b, size_t *n, sc_expr ***out)
{
    size_t nd = na > nb ? na : nb, i;
    sc_expr **d = sc__shape_dims(c, nd);
    sc_expr *one = sc_expr_int_si(c->ctx, 1);

    if (!d)
        return SC_ERR_NOMEM;
    for (i = 0; i < nd; i++) {
        sc_expr *sa = i < na ? a[na - 1 - i] : one;
        sc_expr *sb = i < nb ? b[nb - 1 - i] : one;
        sc_expr *r;
        bool is1;

        if (sa == sb || sb == one) {
            r = sa;
        } else if (sa == one) {
            r = sb;
        } else {
            SC_TRY(sc__shape_is_one(c, sa, &is1));
            if (is1) {
                r = sb;
            } else {
                SC_TRY(sc__shape_is_one(c, sb, &is1));
                if (is1) {
                    r = sa;
                } else {
                    char what[160];
                    snprintf(what, sizeof what,
                             "the sizes must match at non-singleton "
                             "dimension %zu", nd - 1 - i);
                    SC_TRY(sc__shape_check_eq(c, sa, sb, what));
                    r = sa;
                }
            }
        }
        d[nd - 1 - i] = r;
    }
    *n = nd;
    *out = d;
    return SC_OK;
}

sc_status sc__shape_expanded_strides(struct sc__shape_call *c,
                                     const sc_tensor_meta *t, size_t n,
                                     sc_expr *const *sizes, sc_expr ***out)
{
    size_t i;
    sc_expr **s, *zero = sc_expr_int_si(c->ctx, 0);
    *out = NULL;
    if (!t->has_strides)
        return SC_OK;
    s = sc__shape_dims(c, n);
    if (!s)
        return SC_ERR_NOMEM;
    for (i = 0; i < n; i++) {
        size_t k = n - 1 - i;
        if (i >= t->ndim) {
            s[k] = zero;
        } else {
            size_t j = t->ndim - 1 - i;
            s[k] = t->sizes[j] == sizes[k] ? t->strides[j] : zero;
        }
    }
    *out = s;
    return SC_OK;
}

/* Is t dense in the order ord (innermost first), size-1 dims skipped, as
 * PyTorch's is_contiguous(memory_format)?  Unknown answers are false. */
static sc_status dense_in_order_p(struct sc__shape_call *c,
                                  const sc_tensor_meta *t, const size_t *ord,
                                  bool *out)
{
    sc_expr *expected = sc_expr_int_si(c->ctx, 1);
    size_t i;

    *out = false;
    for (i = 0; i < t->ndim; i++) {
        size_t d = ord[i];
        sc_tri one, eq;
        SC_TRY(sc__shape_known(
            c, sc_expr_eq(c->ctx, t->sizes[d], sc_expr_int_si(c->ctx, 1)),
            true, &one));
        if (one == SC_TRI_TRUE)
            continue;
        if (t->strides[d] != expected) {
            SC_TRY(sc__shape_known(
                c, sc_expr_eq(c->ctx, t->strides[d], expected), true, &eq));
            if (eq != SC_TRI_TRUE)
                return SC_OK;
        }
        expected = sc_expr_mul(c->ctx, expected, t->sizes[d]);
        if (!expected)
            return sc__shape_expr_error(c);
    }
    *out = true;
    return SC_OK;
}

/* PyTorch's short cut before the elementwise permutation: operands all
 * contiguous (and not all channels-last) give a contiguous result, all
 * channels-last (and not all contiguous) a channels-last one; size-1 dims
 * do not count.  Only when every operand has the result's sizes, as
 * TensorIterator's fast setup.  *fast false: take the general rule. */
static sc_status elementwise_fast_perm(struct sc__shape_call *c, size_t n,
                                       sc_expr *const *sizes, size_t nt,
                                       const sc_tensor_meta *ts,
                                       size_t *perm, bool *fast)
{
    static const size_t cl_order[4] = {1, 3, 2, 0};
    bool contig = true, cl = n == 4, any = false, p;
    size_t i, d, ord[64];

    *fast = false;
    for (i = 0; i < n; i++)
        ord[i] = n - 1 - i;
    for (i = 0; i < nt; i++) {
        if (!ts[i].has_strides || ts[i].ndim == 0)
            continue;
        if (ts[i].ndim != n)
            return SC_OK;
        for (d = 0; d < n; d++)
            if (ts[i].sizes[d] != sizes[d])
                return SC_OK; /* broadcast: no short cut */
        any = true;
        if (contig) {
            SC_TRY(dense_in_order_p(c, &ts[i], ord, &p));
            contig = p;
        }
        if (cl) {
            SC_TRY(dense_in_order_p(c, &ts[i], cl_order, &p));
            cl = p;
        }
    }
    if (!any || n < 2 || contig == cl)
        return SC_OK;
    for (i = 0; i < n; i++)
        perm[i] = i;
    if (cl) {
        perm[1] = 2;
        perm[2] = 3;
        perm[3] = 1;
    }
    *fast = true;
    return SC_OK;
}

sc_status sc__shape_elementwise(struct sc__shape_call *c, size_t k,
                                sc_dtype dtype, size_t nt,
                                const sc_tensor_meta *ts)
{
    size_t n = 0, i;
    sc_expr **sizes = NULL, **strides, **ops[8];
    size_t perm[64];
    const sc_tensor_meta *like = NULL;
    bool fast;

    if (nt > 8)
        return sc__shape_fail(c, SC_ERR_LIMIT, "too many operands");
    for (i = 0; i < nt; i++) {
        if (!like && ts[i].has_device)
            like = &ts[i];
        if (i == 0) {
            n = ts[0].ndim;
            sizes = sc__shape_dims(c, n);
            if (!sizes)
                return SC_ERR_NOMEM;
            if (n)
                memcpy(sizes, ts[0].sizes, n * sizeof *sizes);
        } else {
            SC_TRY(sc__shape_broadcast(c, n, sizes, ts[i].ndim, ts[i].sizes,
                                       &n, &sizes));
        }
    }
    if (n > 64)
        return sc__shape_fail(c, SC_ERR_LIMIT, "too many dimensions");
    SC_TRY(elementwise_fast_perm(c, n, sizes, nt, ts, perm, &fast));
    for (i = 0; i < nt && !fast; i++) {
        SC_TRY(sc__shape_expanded_strides(c, &ts[i], n, sizes, &ops[i]));
    }
    if (!fast)
        SC_TRY(sc__shape_elementwise_perm(c, n, sizes, nt,
                                          (sc_expr *const *const *)ops, perm));
    strides = sc__shape_dims(c, n);
    if (!strides)
        return SC_ERR_NOMEM;
    SC_TRY(sc__shape_dense_in_order(c, n, sizes, perm, strides));
    return sc__shape_set_tensor(c, k, dtype, n, sizes, strides, like);
}

/* e as coef * product of bases[i] ** exps[i]; false when it is not a
 * monomial (or has too many factors). */
static bool monomial(const sc_expr *e, int64_t *coef, sc_expr **bases,
                     uint64_t *exps, size_t *n)
{
    mpz_t z;
    size_t i;
    bool ok = true;

    *n = 0;
    *coef = 1;
    switch (sc_expr_node_kind(e)) {
    case SC_EXPR_INT:
        return sc_expr_value_si(e, coef);
    case SC_EXPR_SYMBOL:
        bases[0] = (sc_expr *)e;
        exps[0] = 1;
        *n = 1;
        return true;
    case SC_EXPR_MUL:
        if (sc_expr_arg_count(e) > 16)
            return false;
        for (i = 0; i < sc_expr_arg_count(e); i++) {
            bases[i] = sc_expr_arg(e, i);
            exps[i] = sc_expr_mul_exponent(e, i);
        }
        *n = sc_expr_arg_count(e);
        return true;
    case SC_EXPR_ADD: {
        sc__gmp_guard guard;
        if (sc_expr_arg_count(e) != 1)
            return false;
        mpz_init(z);
        sc__gmp_push(&guard);
        if (setjmp(guard.env)) {
            /* out of memory: z may be inconsistent, drop it */
            sc__gmp_pop(&guard);
            return false;
        }
        sc_expr_add_constant(e, z);
        ok = mpz_sgn(z) == 0;
        sc_expr_add_coef(e, 0, z);
        ok = ok && mpz_fits_slong_p(z);
        if (ok)
            *coef = mpz_get_si(z);
        sc__gmp_pop(&guard);
        mpz_clear(z);
        if (!ok)
            return false;
        {
            int64_t inner;
            if (!monomial(sc_expr_arg(e, 0), &inner, bases, exps, n))
                return false;
            *coef *= inner;
        }
        return true;
    }
    default:
        bases[0] = (sc_expr *)e;
        exps[0] = 1;
        *n = 1;
        return true;
    }
}

sc_expr *sc__shape_exact_div(sc_ctx *ctx, sc_expr *a, sc_expr *b)
{
    int64_t ca, cb;
    sc_expr *ba[16], *bb[16], *q;
    uint64_t ea[16], eb[16];
    size_t na, nb, i, j;

    if (!a || !b)
        return NULL;
    if (monomial(a, &ca, ba, ea, &na) && monomial(b, &cb, bb, eb, &nb) &&
        cb != 0 && ca % cb == 0) {
        q = sc_expr_int_si(ctx, ca / cb);
        for (i = 0; i < na && q; i++) {
            uint64_t e = ea[i];
            for (j = 0; j < nb; j++)
                if (bb[j] == ba[i]) {
                    if (eb[j] > e)
                        goto general;
                    e -= eb[j];
                }
            q = sc_expr_mul(ctx, q, sc_expr_pow(ctx, ba[i], e));
        }
        for (j = 0; j < nb; j++) {
            bool found = false;
            for (i = 0; i < na; i++)
                found = found || ba[i] == bb[j];
            if (!found)
                goto general;
        }
        if (q && sc_expr_mul(ctx, q, b) == a)
            return q;
    }
general:
    return sc_expr_floordiv(ctx, a, b);
}

sc_expr *sc__shape_numel(sc_ctx *ctx, size_t n, sc_expr *const *sizes)
{
    sc_expr *p = sc_expr_int_si(ctx, 1);
    size_t i;
    for (i = 0; i < n; i++)
        p = sc_expr_mul(ctx, p, sizes[i]);
    return p;
}

/* ---- Shared by several families' rules ---------------------------------- */

/* SC_ERR_SHAPE unless t has lo .. hi dims (`what` names it). */
sc_status sc__shape_need_dims(struct sc__shape_call *c, const char *what,
                              const sc_tensor_meta *t, size_t lo, size_t hi)
{
    if (t->ndim < lo || t->ndim > hi) {
        if (lo == hi)
            return sc__shape_fail(c, SC_ERR_SHAPE,
                                  "%s must be a %zu-D tensor (got %zu-D)",
                                  what, lo, t->ndim);
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "%s must have %zu to %zu dims (got %zu)", what,
                              lo, hi, t->ndim);
    }
    return SC_OK;
}

/* A copy of t's sizes. */
sc_expr **sc__shape_copy_sizes(struct sc__shape_call *c,
                               const sc_tensor_meta *t)
{
    sc_expr **d = sc__shape_dims(c, t->ndim);
    if (d && t->ndim)
        memcpy(d, t->sizes, t->ndim * sizeof *d);
    return d;
}

/* Result k: a contiguous tensor with t's sizes. */
sc_status sc__shape_like_contiguous(struct sc__shape_call *c, size_t k,
                                    const sc_tensor_meta *t, sc_dtype dtype)
{
    sc_expr **d = sc__shape_copy_sizes(c, t);
    if (!d)
        return SC_ERR_NOMEM;
    return sc__shape_set_tensor(c, k, dtype, t->ndim, d, NULL, t);
}

/* Element k of a backward's tuple: like t (contiguous) when output_mask[k]
 * asks, else None. */
sc_status sc__shape_masked_like(struct sc__shape_call *c, size_t k,
                                const sc_tensor_meta *t, bool present)
{
    if (!sc__shape_get_bool_at(c, "output_mask", k, true)) {
        c->out[k].kind = SC_RESULT_NONE;
        return SC_OK;
    }
    if (!present)
        return sc__shape_fail(c, SC_ERR_UNSUPPORTED,
                              "gradient %zu of an absent tensor", k);
    return sc__shape_like_contiguous(c, k, t, t->dtype);
}

/* Fresh copies of t's sizes and strides. */
sc_status sc__shape_copy_meta(struct sc__shape_call *c,
                              const sc_tensor_meta *t, sc_expr ***sizes,
                              sc_expr ***strides)
{
    *sizes = sc__shape_dims(c, t->ndim);
    *strides = sc__shape_dims(c, t->ndim);
    if (!*sizes || !*strides)
        return SC_ERR_NOMEM;
    if (t->ndim) {
        memcpy(*sizes, t->sizes, t->ndim * sizeof **sizes);
        memcpy(*strides, t->strides, t->ndim * sizeof **strides);
    }
    return SC_OK;
}

/* The "self" tensor argument, and room for the op's one result (none for a
 * tuple: the rule sizes it). */
sc_status sc__shape_get_self(struct sc__shape_call *c, sc_tensor_meta *self)
{
    SC_TRY(sc__shape_get_tensor(c, "self", self));
    return sc__shape_outputs(c, c->is_tuple ? 0 : 1);
}

static bool is_number(struct sc__shape_call *c, const sc_value *v)
{
    sc_result r;
    if (v->kind == SC_VALUE_INT || v->kind == SC_VALUE_FLOAT ||
        v->kind == SC_VALUE_BOOL || v->kind == SC_VALUE_SYMINT)
        return true;
    if (v->kind != SC_VALUE_NODE)
        return false;
    sc_graph_node_result(c->g, v->u.node, &r);
    return r.kind == SC_RESULT_SYMINT || r.kind == SC_RESULT_SYMBOOL;
}

/* The tensor arguments of a pointwise op, in schema order (Python numbers
 * given for a Tensor count as wrapped scalars in rt). */
sc_status sc__shape_tensor_args(struct sc__shape_call *c, sc_tensor_meta *ts,
                                size_t max, size_t *n, sc__result_type *rt,
                                const char *skip_dtype)
{
    size_t i;
    *n = 0;
    for (i = 0; i < c->info->nargs; i++) {
        const sc__op_arg *a = &c->info->args[i];
        const sc_value *v = c->args[i].value;
        if (a->type.base != SC_TYPE_TENSOR || a->type.is_list || !v ||
            v->kind == SC_VALUE_NONE)
            continue;
        if (is_number(c, v)) {
            /* a Python number where a Tensor goes: a wrapped scalar */
            if (rt && (!skip_dtype || strcmp(a->name, skip_dtype) != 0))
                sc__result_type_scalar(rt, v, c->g);
            continue;
        }
        if (*n == max)
            return sc__shape_fail(c, SC_ERR_LIMIT, "too many operands");
        SC_TRY(sc__shape_value_tensor(c, v, &ts[*n]));
        if (rt && (!skip_dtype || strcmp(a->name, skip_dtype) != 0))
            sc__result_type_tensor(rt, &ts[*n]);
        (*n)++;
    }
    return SC_OK;
}

/* ---- dtypes (graph/dtype.h) ---------------------------------------- */

void sc__result_type_tensor(sc__result_type *rt, const sc_tensor_meta *t)
{
    sc__result_type_add(rt,
                        t->ndim > 0 ? SC__RESULT_TYPE_DIM
                                    : SC__RESULT_TYPE_ZERO_DIM,
                        t->dtype);
}

void sc__result_type_scalar(sc__result_type *rt, const sc_value *v,
                            const sc_graph *g)
{
    sc_dtype d = SC_DTYPE_I64;
    if (v->kind == SC_VALUE_FLOAT) {
        d = SC_DTYPE_F32; /* the default dtype */
    } else if (v->kind == SC_VALUE_BOOL) {
        d = SC_DTYPE_B8;
    } else if (v->kind == SC_VALUE_SYMINT && sc_expr_is_bool(v->u.expr)) {
        d = SC_DTYPE_B8;
    } else if (v->kind == SC_VALUE_NODE) {
        sc_result r;
        sc_graph_node_result(g, v->u.node, &r);
        if (r.kind == SC_RESULT_SYMBOOL)
            d = SC_DTYPE_B8;
        else if (r.kind == SC_RESULT_TENSOR) {
            sc__result_type_tensor(rt, &r.tensor);
            return;
        }
    }
    sc__result_type_add(rt, SC__RESULT_TYPE_WRAPPED, d);
}
