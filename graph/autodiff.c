/* symcut — joint graphs from forward graphs (AOTAutograd's conventions).
 *
 * sc_graph_new_joint copies the forward graph (placeholders renamed primals_1,
 * ..., one tangents_k per differentiable forward output), then walks the
 * forward nodes backwards, accumulating one gradient per value, and lets
 * the generated code of graph/ops-autodiff-gen.c (the `derivatives:`
 * formulas of graph/ops.yaml) emit each op's backward nodes through the
 * graph builder.  The runtime those functions read the forward node and
 * build nodes through (graph/autodiff.h) is here; the formula helpers they
 * call by name are in graph/autodiff-helpers.c.  doc/autodiff.md describes
 * the conventions.
 */
#include <config.h>

#include <gmp.h>
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <symcut/graph.h>

#include "graph/autodiff.h"
#include "graph/autodiff-internal.h"
#include "graph/graph-internal.h"
#include "graph/graph-view.h"
#include "graph/ops.h"
#include "util/internal.h"

/* ---- Small helpers ------------------------------------------------------- */

void *sc__ad_alloc(sc__ad *ad, size_t size)
{
    void *p = sc__arena_alloc(&ad->arena, size ? size : 1);
    if (p)
        memset(p, 0, size ? size : 1);
    return p;
}

sc_value sc__ad_expr_value(sc_expr *e)
{
    int64_t v;
    sc_value out;
    if (sc_expr_value_si(e, &v))
        return sc_value_int(v);
    out.kind = SC_VALUE_SYMINT;
    out.u.expr = e;
    return out;
}

/* The integer (or symbolic) expression of a value; NULL if not one. */
sc_expr *sc__ad_value_expr(sc__ad *ad, const sc_value *v)
{
    if (v->kind == SC_VALUE_INT)
        return sc_expr_int_si(ad->ctx, v->u.i);
    if (v->kind == SC_VALUE_SYMINT)
        return v->u.expr;
    if (v->kind == SC_VALUE_BOOL)
        return sc_expr_int_si(ad->ctx, v->u.b ? 1 : 0);
    if (v->kind == SC_VALUE_NODE) {
        /* a SymInt node (sym_size, ...) of the joint graph */
        sc_result r;
        sc_graph_node_result(ad->g, v->u.node, &r);
        if (r.kind == SC_RESULT_SYMINT)
            return r.expr;
    }
    return NULL;
}

static bool is_float_dtype(sc_dtype d)
{
    return sc_dtype_kind(d) == 'f' || sc_dtype_kind(d) == 'c';
}

static bool result_is_float_tensor(const sc_graph *g, sc_node_id id)
{
    sc_result r;
    sc_graph_node_result(g, id, &r);
    return r.kind == SC_RESULT_TENSOR && is_float_dtype(r.tensor.dtype);
}

sc_status sc__ad_node_tensor(sc__ad *ad, const sc_value *v, sc_result *r,
                             const char *what)
{
    if (v->kind != SC_VALUE_NODE)
        return sc__error_set(ad->err, SC_ERR_UNSUPPORTED,
                             "node '%s': %s: expected a tensor, got a value "
                             "of kind %d",
                             sc_graph_node_name(ad->fwd, ad->node), what,
                             (int)v->kind);
    sc_graph_node_result(ad->g, v->u.node, r);
    if (r->kind != SC_RESULT_TENSOR)
        return sc__error_set(ad->err, SC_ERR_UNSUPPORTED,
                             "node '%s': %s: '%s' has no tensor metadata",
                             sc_graph_node_name(ad->fwd, ad->node), what,
                             sc_graph_node_name(ad->g, v->u.node));
    return SC_OK;
}

/* ---- Symbolic integers as SymInt nodes ----------------------------------
 * A symbolic integer an emitted op takes (a size list element, an int or
 * Scalar argument) becomes a node, as in PyTorch's joint graphs: a symbol
 * is `sym_size.int(t, d)` of the first tensor dim whose size is exactly
 * that symbol (primals first, then the joint graph's nodes in order), a
 * composite expression python sym ops (operator.add, mul, ...) over those.
 * One node per expression (cached); appended where first needed. */

static sc_status sym_materialize(sc__ad *ad, sc_expr *e, sc_value *out);

/* Append a SymInt node.  Its metadata is the expression it stands for
 * (e; NULL: computed from a python op's operands) as written, not as the
 * shape environment simplifies it (`Sym(s1)`, not `Sym(4)` once s1 is
 * guarded to 4): the backward graph of a partition binds s1 from it, and
 * the text reads back without the guards. */
static sc_status sym_call(sc__ad *ad, const char *target, size_t n,
                          const sc_value *a, sc_expr *e, sc_value *out)
{
    sc_node_id id;
    sc_result m;
    if (!e) {
        sc_expr *x = sc__ad_value_expr(ad, &a[0]);
        sc_expr *y = n > 1 ? sc__ad_value_expr(ad, &a[1]) : x;
        if (x && y) {
            if (strcmp(target, "operator.add") == 0)
                e = sc_expr_add(ad->ctx, x, y);
            else if (strcmp(target, "operator.sub") == 0)
                e = sc_expr_sub(ad->ctx, x, y);
            else if (strcmp(target, "operator.mul") == 0)
                e = sc_expr_mul(ad->ctx, x, y);
            else if (strcmp(target, "operator.floordiv") == 0)
                e = sc_expr_floordiv(ad->ctx, x, y);
            else if (strcmp(target, "operator.mod") == 0)
                e = sc_expr_mod(ad->ctx, x, y);
            else
                e = sc_expr_neg(ad->ctx, x);
        }
        if (!e)
            return sc__error_nomem(ad->err);
    }
    sc_result_init(&m);
    m.kind = SC_RESULT_SYMINT;
    m.expr = e;
    SC_TRY(sc_graph_add_call(ad->g, NULL, target, n, a, 0, NULL, NULL,
                             &m, &id, ad->err));
    *out = sc_value_node(id);
    return SC_OK;
}

/* a OP b on materialized values (ints or SymInt nodes). */
static sc_status sym_binop(sc__ad *ad, const char *target, sc_value a,
                           sc_value b, sc_value *out)
{
    sc_value args[2];
    args[0] = a;
    args[1] = b;
    return sym_call(ad, target, 2, args, NULL, out);
}

/* sym_size of the first tensor dim whose size is exactly e (primals
 * first); *found false when there is none. */
static sc_status sym_source(sc__ad *ad, sc_expr *e, bool *found,
                            sc_value *out)
{
    size_t n = sc_graph_node_count(ad->g), pass, id, d;
    *found = false;
    for (pass = 0; pass < 2; pass++)
        for (id = 0; id < n; id++) {
            sc_node_id nid = (sc_node_id)id;
            bool primal =
                sc_graph_node_kind(ad->g, nid) == SC_NODE_PLACEHOLDER &&
                sc_graph_node_role(ad->g, nid) == SC_ROLE_PRIMAL;
            sc_result r;
            if (primal != (pass == 0))
                continue;
            sc_graph_node_result(ad->g, nid, &r);
            if (r.kind != SC_RESULT_TENSOR)
                continue;
            for (d = 0; d < r.tensor.ndim; d++)
                if (r.tensor.sizes[d] == e) {
                    sc_value a[2];
                    a[0] = sc_value_node(nid);
                    a[1] = sc_value_int((int64_t)d);
                    *found = true;
                    return sym_call(ad, "torch.ops.aten.sym_size.int", 2, a,
                                    e, out);
                }
        }
    return SC_OK;
}

/* e as the product of all dims of a tensor (a numel, as PyTorch's
 * sym_numel multiplies the sizes): the first tensor (primals first) with
 * more than one dim whose sizes multiply to exactly e; *found false when
 * there is none. */
static sc_status sym_numel_source(sc__ad *ad, sc_expr *e, bool *found,
                                  sc_value *out)
{
    size_t n = sc_graph_node_count(ad->g), pass, id, d;
    *found = false;
    for (pass = 0; pass < 2; pass++)
        for (id = 0; id < n; id++) {
            sc_node_id nid = (sc_node_id)id;
            bool primal =
                sc_graph_node_kind(ad->g, nid) == SC_NODE_PLACEHOLDER &&
                sc_graph_node_role(ad->g, nid) == SC_ROLE_PRIMAL;
            sc_result r;
            sc_expr *prod;
            if (primal != (pass == 0))
                continue;
            sc_graph_node_result(ad->g, nid, &r);
            if (r.kind != SC_RESULT_TENSOR || r.tensor.ndim < 2)
                continue;
            prod = sc_expr_mul_n(ad->ctx, r.tensor.ndim, r.tensor.sizes);
            if (!prod)
                return sc__error_nomem(ad->err);
            if (prod != e)
                continue;
            *found = true;
            for (d = 0; d < r.tensor.ndim; d++) {
                sc_value x;
                int64_t p;
                SC_TRY(sym_materialize(ad, r.tensor.sizes[d], &x));
                if (d == 0)
                    *out = x;
                else if (out->kind == SC_VALUE_INT &&
                         x.kind == SC_VALUE_INT &&
                         !__builtin_mul_overflow(out->u.i, x.u.i, &p))
                    *out = sc_value_int(p); /* ints multiply in Python:
                                               no SymInt node 1 * 4 */
                else
                    SC_TRY(sym_binop(ad, "operator.mul", *out, x, out));
            }
            return SC_OK;
        }
    return SC_OK;
}

/* A symbol: sym_size of its source dim. */
static sc_status sym_symbol(sc__ad *ad, sc_expr *e, sc_value *out)
{
    bool found;
    SC_TRY(sym_source(ad, e, &found, out));
    if (found)
        return SC_OK;
    return sc__error_set(ad->err, SC_ERR_UNSUPPORTED,
                         "node '%s': the backward needs the symbolic size "
                         "'%s', which no tensor of the graph has as a "
                         "dimension", sc_graph_node_name(ad->fwd, ad->node),
                         sc_expr_symbol_name(e));
}

/* An mpz coefficient as int64; false when it does not fit (or no memory). */
static bool add_coef(const sc_expr *e, long i, int64_t *out)
{
    sc__gmp_guard guard;
    mpz_t z;
    bool ok;
    mpz_init(z);
    sc__gmp_push(&guard);
    if (setjmp(guard.env)) {
        sc__gmp_pop(&guard);
        return false;
    }
    if (i < 0)
        sc_expr_add_constant(e, z);
    else
        sc_expr_add_coef(e, (size_t)i, z);
    ok = mpz_fits_slong_p(z);
    if (ok)
        *out = mpz_get_si(z);
    sc__gmp_pop(&guard);
    mpz_clear(z);
    return ok;
}

static sc_status sym_unsupported(sc__ad *ad, const char *what)
{
    return sc__error_set(ad->err, SC_ERR_UNSUPPORTED,
                         "node '%s': the backward needs a symbolic integer "
                         "(%s) that cannot be written with sym_size and "
                         "python sym ops",
                         sc_graph_node_name(ad->fwd, ad->node), what);
}

static sc_status sym_composite(sc__ad *ad, sc_expr *e, sc_value *out)
{
    size_t i, n = sc_expr_arg_count(e);
    sc_value acc, x, y;
    int64_t c;
    bool found;
    /* a dim whose size is exactly e (a flattened s0*s1) */
    SC_TRY(sym_source(ad, e, &found, out));
    if (!found && sc_expr_node_kind(e) != SC_EXPR_SYMBOL)
        SC_TRY(sym_numel_source(ad, e, &found, out));
    if (found)
        return SC_OK;
    switch (sc_expr_node_kind(e)) {
    case SC_EXPR_SYMBOL:
        return sym_symbol(ad, e, out);
    case SC_EXPR_ADD:
        acc = sc_value_none();
        for (i = 0; i < n; i++) {
            bool neg;
            if (!add_coef(e, (long)i, &c))
                return sym_unsupported(ad, "a large coefficient");
            SC_TRY(sym_materialize(ad, sc_expr_arg(e, i), &x));
            neg = c < 0 && acc.kind != SC_VALUE_NONE;
            if (neg)
                c = -c;
            if (c != 1)
                SC_TRY(sym_binop(ad, "operator.mul", x, sc_value_int(c),
                                 &x));
            if (acc.kind == SC_VALUE_NONE)
                acc = x;
            else
                SC_TRY(sym_binop(ad, neg ? "operator.sub" : "operator.add",
                                 acc, x, &acc));
        }
        if (!add_coef(e, -1, &c))
            return sym_unsupported(ad, "a large constant");
        if (c > 0)
            SC_TRY(sym_binop(ad, "operator.add", acc, sc_value_int(c),
                             &acc));
        else if (c < 0)
            SC_TRY(sym_binop(ad, "operator.sub", acc, sc_value_int(-c),
                             &acc));
        *out = acc;
        return SC_OK;
    case SC_EXPR_MUL:
        acc = sc_value_none();
        for (i = 0; i < n; i++) {
            uint64_t k, p = sc_expr_mul_exponent(e, i);
            SC_TRY(sym_materialize(ad, sc_expr_arg(e, i), &x));
            for (k = 0; k < p; k++) {
                if (acc.kind == SC_VALUE_NONE)
                    acc = x;
                else
                    SC_TRY(sym_binop(ad, "operator.mul", acc, x, &acc));
            }
        }
        if (acc.kind == SC_VALUE_NONE)
            return sym_unsupported(ad, "an empty product");
        *out = acc;
        return SC_OK;
    case SC_EXPR_FLOORDIV:
    case SC_EXPR_MOD:
        SC_TRY(sym_materialize(ad, sc_expr_arg(e, 0), &x));
        SC_TRY(sym_materialize(ad, sc_expr_arg(e, 1), &y));
        return sym_binop(ad,
                         sc_expr_node_kind(e) == SC_EXPR_MOD ? "operator.mod"
                                                            : "operator.floordiv",
                         x, y, out);
    case SC_EXPR_CEILDIV:
        /* -((-a) // b) */
        SC_TRY(sym_materialize(ad, sc_expr_arg(e, 0), &x));
        SC_TRY(sym_materialize(ad, sc_expr_arg(e, 1), &y));
        SC_TRY(sym_call(ad, "operator.neg", 1, &x, NULL, &x));
        SC_TRY(sym_binop(ad, "operator.floordiv", x, y, &x));
        return sym_call(ad, "operator.neg", 1, &x, NULL, out);
    default:
        return sym_unsupported(ad, "min, max or a relation");
    }
}

/* The value of integer expression e as an op argument: an int, or a
 * SymInt node. */
static sc_status sym_materialize(sc__ad *ad, sc_expr *e, sc_value *out)
{
    int64_t v;
    size_t i;
    if (sc_expr_value_si(e, &v)) {
        *out = sc_value_int(v);
        return SC_OK;
    }
    for (i = 0; i < ad->nsym; i++)
        if (ad->sym_keys[i] == e) {
            *out = ad->sym_vals[i];
            return SC_OK;
        }
    SC_TRY(sym_composite(ad, e, out));
    if (ad->nsym == ad->capsym) {
        size_t cap = ad->capsym ? 2 * ad->capsym : 8;
        sc_expr **k = sc__ad_alloc(ad, cap * sizeof *k);
        sc_value *vals = sc__ad_alloc(ad, cap * sizeof *vals);
        if (!k || !vals)
            return sc__error_nomem(ad->err);
        if (ad->nsym) {
            memcpy(k, ad->sym_keys, ad->nsym * sizeof *k);
            memcpy(vals, ad->sym_vals, ad->nsym * sizeof *vals);
        }
        ad->sym_keys = k;
        ad->sym_vals = vals;
        ad->capsym = cap;
    }
    ad->sym_keys[ad->nsym] = e;
    ad->sym_vals[ad->nsym++] = *out;
    return SC_OK;
}

/* v with every non-constant symbolic integer (also inside lists) replaced
 * by its SymInt node. */
static sc_status sym_value(sc__ad *ad, const sc_value *v, sc_value *out)
{
    size_t i;
    *out = *v;
    if (v->kind == SC_VALUE_SYMINT)
        return sym_materialize(ad, v->u.expr, out);
    if (v->kind == SC_VALUE_LIST || v->kind == SC_VALUE_TUPLE) {
        sc_value *items = sc__ad_alloc(ad, v->u.list.n * sizeof *items);
        if (!items)
            return sc__error_nomem(ad->err);
        for (i = 0; i < v->u.list.n; i++)
            SC_TRY(sym_value(ad, &v->u.list.items[i], &items[i]));
        out->u.list.items = items;
    }
    return SC_OK;
}

/* "torch.ops.<ns>.<dotted>" of op into buf (size bytes), without printf:
 * every node the backward adds is named this way. */
static sc_status op_target(sc__ad *ad, sc__op op, char *buf, size_t size)
{
    const char *ns = sc__op_get(op)->ns, *dotted = sc__op_get(op)->dotted;
    size_t nn = strlen(ns), nd = strlen(dotted);
    if (10 + nn + 1 + nd + 1 > size)
        return sc__error_set(ad->err, SC_ERR_INTERNAL,
                             "op name '%s.%s' too long", ns, dotted);
    memcpy(buf, "torch.ops.", 10);
    memcpy(buf + 10, ns, nn);
    buf[10 + nn] = '.';
    memcpy(buf + 11 + nn, dotted, nd + 1);
    return SC_OK;
}

/* Append a call of op to positional and keyword values. */
sc_status sc__ad_add_op(sc__ad *ad, sc__op op, size_t npos,
                        const sc_value *pos, size_t nkw,
                        const char *const *kwn, const sc_value *kw,
                        sc_value *out)
{
    char target[160];
    sc_node_id id;
    sc_value p2[SC_OP_MAX_ARGS_], k2[SC_OP_MAX_ARGS_];
    size_t i;
    if (npos > SC_OP_MAX_ARGS_ || nkw > SC_OP_MAX_ARGS_)
        return sc__error_set(ad->err, SC_ERR_INTERNAL, "too many arguments");
    for (i = 0; i < npos; i++)
        SC_TRY(sym_value(ad, &pos[i], &p2[i]));
    for (i = 0; i < nkw; i++)
        SC_TRY(sym_value(ad, &kw[i], &k2[i]));
    SC_TRY(op_target(ad, op, target, sizeof target));
    SC_TRY(sc_graph_add_call(ad->g, NULL, target, npos, p2, nkw, kwn, k2,
                             NULL, &id, ad->err));
    *out = sc_value_node(id);
    return SC_OK;
}

static sc_status add_getitem(sc__ad *ad, sc_node_id tuple, int64_t i,
                             sc_node_id *out)
{
    sc_value a[2];
    a[0] = sc_value_node(tuple);
    a[1] = sc_value_int(i);
    return sc_graph_add_call(ad->g, NULL, "operator.getitem", 2, a, 0, NULL,
                             NULL, NULL, out, ad->err);
}

/* A schema default as a value. */
static sc_status default_value(sc__ad *ad, const sc__default *d,
                               sc_value *out)
{
    size_t i;
    sc_value *items;
    switch (d->kind) {
    case SC_DEF_ABSENT:
    case SC_DEF_NONE:
        *out = sc_value_none();
        return SC_OK;
    case SC_DEF_BOOL:
        *out = sc_value_bool(d->i != 0);
        return SC_OK;
    case SC_DEF_INT:
        *out = sc_value_int(d->i);
        return SC_OK;
    case SC_DEF_FLOAT:
        *out = sc_value_float(d->f, d->text);
        return SC_OK;
    case SC_DEF_STR:
        *out = sc__ad_string(d->s);
        return SC_OK;
    case SC_DEF_INT_LIST:
    case SC_DEF_FLOAT_LIST:
    case SC_DEF_BOOL_LIST:
        items = sc__ad_alloc(ad, d->n * sizeof *items);
        if (!items)
            return sc__error_nomem(ad->err);
        for (i = 0; i < d->n; i++)
            items[i] = d->kind == SC_DEF_INT_LIST ? sc_value_int(d->ints[i])
                       : d->kind == SC_DEF_BOOL_LIST
                           ? sc_value_bool(d->ints[i] != 0)
                           : sc_value_float(d->floats[i], NULL);
        *out = sc_value_list(d->n, items);
        return SC_OK;
    case SC_DEF_SCALAR_TYPE:
        out->kind = SC_VALUE_DTYPE;
        if (!sc_dtype_from_torch_name(d->s, strlen(d->s), &out->u.dtype))
            return sc__error_set(ad->err, SC_ERR_INTERNAL,
                                 "unknown dtype default '%s'", d->s);
        return SC_OK;
    case SC_DEF_LAYOUT:
        out->kind = SC_VALUE_LAYOUT;
        out->u.layout = SC_LAYOUT_STRIDED;
        return SC_OK;
    case SC_DEF_MEMORY_FORMAT:
        out->kind = SC_VALUE_MEMORY_FORMAT;
        out->u.memory_format =
            strcmp(d->s, "preserve_format") == 0 ? SC_MEMORY_FORMAT_PRESERVE
            : strcmp(d->s, "channels_last") == 0
                ? SC_MEMORY_FORMAT_CHANNELS_LAST
                : SC_MEMORY_FORMAT_CONTIGUOUS;
        return SC_OK;
    }
    return sc__error_set(ad->err, SC_ERR_INTERNAL, "bad default kind");
}

/* Is v the schema default d (for dropping keyword arguments)? */
static bool equals_default(const sc_value *v, const sc__default *d)
{
    switch (d->kind) {
    case SC_DEF_NONE: return v->kind == SC_VALUE_NONE;
    case SC_DEF_BOOL: return v->kind == SC_VALUE_BOOL && v->u.b == (d->i != 0);
    case SC_DEF_INT: return v->kind == SC_VALUE_INT && v->u.i == d->i;
    case SC_DEF_STR:
        return v->kind == SC_VALUE_STRING && strcmp(v->u.str, d->s) == 0;
    default: return false;
    }
}

/* ---- Reading the forward node ----------------------------------------------- */

static sc_value map_value(sc__ad *ad, const sc_value *v, sc_status *st);

static sc_status map_into(sc__ad *ad, const sc_value *v, sc_value *out)
{
    sc_status st = SC_OK;
    *out = map_value(ad, v, &st);
    return st;
}

static sc_value map_value(sc__ad *ad, const sc_value *v, sc_status *st)
{
    sc_value out = *v;
    size_t i;
    if (v->kind == SC_VALUE_NODE)
        out.u.node = ad->map[v->u.node];
    else if (v->kind == SC_VALUE_LIST || v->kind == SC_VALUE_TUPLE) {
        sc_value *items = sc__ad_alloc(ad, v->u.list.n * sizeof *items);
        if (!items) {
            *st = sc__error_nomem(ad->err);
            return out;
        }
        for (i = 0; i < v->u.list.n; i++)
            items[i] = map_value(ad, &v->u.list.items[i], st);
        out.u.list.items = items;
    }
    return out;
}

sc_status sc__ad_arg(sc__ad *ad, int i, sc_value *out)
{
    *out = ad->args[i];
    return SC_OK;
}

/* The joint node of return i of the current node (i >= 0: a getitem). */
static sc_status result_node(sc__ad *ad, sc_node_id fnode, int i,
                             sc_node_id *out)
{
    sc__ad_tuple *t = ad->tuples[fnode];
    if (i < 0 || !t) {
        *out = ad->map[fnode];
        return SC_OK;
    }
    if ((size_t)i >= t->count)
        return sc__error_set(ad->err, SC_ERR_INVALID,
                             "node '%s': return %d of %zu",
                             sc_graph_node_name(ad->fwd, fnode), i, t->count);
    if (t->fwd_getitem[i] != SC_NODE_NONE) {
        *out = ad->map[t->fwd_getitem[i]];
        return SC_OK;
    }
    if (t->new_getitem[i] == SC_NODE_NONE)
        SC_TRY(add_getitem(ad, ad->map[fnode], i, &t->new_getitem[i]));
    *out = t->new_getitem[i];
    return SC_OK;
}

sc_status sc__ad_result(sc__ad *ad, int i, sc_value *out)
{
    sc_node_id id;
    SC_TRY(result_node(ad, ad->node, i, &id));
    *out = sc_value_node(id);
    return SC_OK;
}

static sc_status zeros_like(sc__ad *ad, sc_node_id like, sc_value *out)
{
    sc_value a = sc_value_node(like);
    return sc__ad_add_op(ad, SC_OP_ZEROS_LIKE, 1, &a, 0, NULL, NULL, out);
}

/* Do joint tensors a and b have the same dtype, device and sizes? */
static bool same_zeros_meta(const sc_graph *g, sc_node_id a, sc_node_id b)
{
    sc_result ra, rb;
    size_t d;
    sc_graph_node_result(g, a, &ra);
    sc_graph_node_result(g, b, &rb);
    if (ra.kind != SC_RESULT_TENSOR || rb.kind != SC_RESULT_TENSOR ||
        ra.tensor.dtype != rb.tensor.dtype ||
        ra.tensor.ndim != rb.tensor.ndim ||
        ra.tensor.has_device != rb.tensor.has_device ||
        (ra.tensor.has_device &&
         (ra.tensor.device.type != rb.tensor.device.type ||
          ra.tensor.device.index != rb.tensor.device.index)))
        return false;
    for (d = 0; d < ra.tensor.ndim; d++)
        if (ra.tensor.sizes[d] != rb.tensor.sizes[d])
            return false;
    return true;
}

/* `zeros(sizes, dtype=, device=, pin_memory=False)` shaped like the joint
 * tensor like, as PyTorch's split_with_sizes_backward and
 * unbind_backward fill undefined gradients: the sizes are explicit, so
 * the node depends on no forward tensor (only on SymInt nodes).  Without
 * tensor metadata, or with a size no SymInt node can express,
 * zeros_like(like). */
static sc_status explicit_zeros(sc__ad *ad, sc_node_id like, sc_value *out)
{
    static const char *const kwn[3] = {"dtype", "device", "pin_memory"};
    sc_result r;
    sc_value sizes, kw[3], a = sc_value_node(like);
    sc_status st;
    sc_graph_node_result(ad->g, like, &r);
    if (r.kind != SC_RESULT_TENSOR)
        return zeros_like(ad, like, out);
    SC_TRY(sc__ad_sizes_list(ad, r.tensor.ndim, r.tensor.sizes, &sizes));
    kw[0].kind = SC_VALUE_DTYPE;
    kw[0].u.dtype = r.tensor.dtype;
    kw[1].kind = SC_VALUE_DEVICE;
    if (r.tensor.has_device) {
        kw[1].u.device = r.tensor.device;
    } else {
        kw[1].u.device.type = SC_DEVICE_CPU;
        kw[1].u.device.index = -1;
    }
    kw[2] = sc_value_bool(false);
    st = sc__ad_add_op(ad, SC_OP_ZEROS, 1, &sizes, 3, kwn, kw, out);
    if (st == SC_ERR_UNSUPPORTED)
        return sc__ad_add_op(ad, SC_OP_ZEROS_LIKE, 1, &a, 0, NULL, NULL, out);
    return st;
}

/* The gradient of an undefined piece like of a list-returning op (split,
 * unbind, ...): zeros with explicit sizes, one node for all pieces of
 * equal dtype, device and sizes (CSE would merge them; an unbind of
 * hundreds of unused pieces then adds one node, not hundreds of equal
 * weight that make the saved set depend on the node order). */
static sc_status piece_zeros(sc__ad *ad, sc_node_id like, sc_value *out)
{
    size_t k;
    for (k = 0; k < ad->nzeros; k++)
        if (same_zeros_meta(ad->g, ad->zeros_like_of[k], like)) {
            *out = sc_value_node(ad->zeros_node[k]);
            return SC_OK;
        }
    SC_TRY(explicit_zeros(ad, like, out));
    if (ad->nzeros == ad->capzeros) {
        size_t cap = ad->capzeros ? 2 * ad->capzeros : 8;
        sc_node_id *a = sc__ad_alloc(ad, cap * sizeof *a);
        sc_node_id *b = sc__ad_alloc(ad, cap * sizeof *b);
        if (!a || !b)
            return sc__error_nomem(ad->err);
        if (ad->nzeros) {
            memcpy(a, ad->zeros_like_of, ad->nzeros * sizeof *a);
            memcpy(b, ad->zeros_node, ad->nzeros * sizeof *b);
        }
        ad->zeros_like_of = a;
        ad->zeros_node = b;
        ad->capzeros = cap;
    }
    ad->zeros_like_of[ad->nzeros] = like;
    ad->zeros_node[ad->nzeros++] = out->u.node;
    return SC_OK;
}

/* An existing joint getitem of the current tuple node whose metadata
 * equals piece i's: every piece of an unbind, every piece but the last of
 * a split (the shape rules guarantee it).  Reading the metadata there
 * spares a getitem nobody uses.  SC_NODE_NONE when there is none. */
static sc_node_id equal_piece(const sc__ad *ad, const sc__ad_tuple *t,
                              size_t i)
{
    size_t j, n = t->count;
    bool split = ad->op == SC_OP_SPLIT_TENSOR ||
                 ad->op == SC_OP_UNSAFE_SPLIT_TENSOR;
    if (ad->op != SC_OP_UNBIND_INT && !(split && i + 1 < n))
        return SC_NODE_NONE;
    for (j = 0; j < (split ? n - 1 : n); j++) {
        if (t->fwd_getitem[j] != SC_NODE_NONE)
            return ad->map[t->fwd_getitem[j]];
        if (t->new_getitem[j] != SC_NODE_NONE)
            return t->new_getitem[j];
    }
    return SC_NODE_NONE;
}

sc_status sc__ad_grad(sc__ad *ad, int i, sc_value *out)
{
    sc__ad_tuple *t = ad->tuples[ad->node];
    sc_node_id like;
    sc_status st;
    if (!t) {
        *out = ad->grad[ad->node];
        if (out->kind != SC_VALUE_NONE)
            return SC_OK;
        return zeros_like(ad, ad->map[ad->node], out);
    }
    if ((size_t)i >= t->count)
        return sc__error_set(ad->err, SC_ERR_INVALID,
                             "node '%s': grads[%d] of %zu returns",
                             sc_graph_node_name(ad->fwd, ad->node), i,
                             t->count);
    *out = t->grads[i];
    if (out->kind != SC_VALUE_NONE)
        return SC_OK;
    like = equal_piece(ad, t, (size_t)i);
    if (like == SC_NODE_NONE)
        SC_TRY(result_node(ad, ad->node, i, &like));
    st = piece_zeros(ad, like, &t->grads[i]);
    *out = t->grads[i];
    return st;
}

sc_status sc__ad_grads(sc__ad *ad, sc_value *out)
{
    sc__ad_tuple *t = ad->tuples[ad->node];
    sc_value *items;
    size_t i;
    if (!t)
        return sc__error_set(ad->err, SC_ERR_INVALID,
                             "node '%s': grads of a single-result op",
                             sc_graph_node_name(ad->fwd, ad->node));
    items = sc__ad_alloc(ad, t->count * sizeof *items);
    if (!items)
        return sc__error_nomem(ad->err);
    for (i = 0; i < t->count; i++)
        SC_TRY(sc__ad_grad(ad, (int)i, &items[i]));
    *out = sc_value_list(t->count, items);
    return SC_OK;
}

/* Does the forward value v (a node or a list of nodes) require grad? */
static bool value_requires_grad(const sc__ad *ad, const sc_value *v)
{
    size_t i;
    if (v->kind == SC_VALUE_NODE)
        return ad->rg[v->u.node];
    if (v->kind == SC_VALUE_LIST || v->kind == SC_VALUE_TUPLE)
        for (i = 0; i < v->u.list.n; i++)
            if (value_requires_grad(ad, &v->u.list.items[i]))
                return true;
    return false;
}

bool sc__ad_needs(const sc__ad *ad, int i)
{
    return value_requires_grad(ad, &ad->fargs[i]);
}

sc_status sc__ad_mask(sc__ad *ad, size_t n, const int *args, sc_value *out)
{
    sc_value *items = sc__ad_alloc(ad, n * sizeof *items);
    size_t i;
    if (!items)
        return sc__error_nomem(ad->err);
    for (i = 0; i < n; i++)
        items[i] = sc_value_bool(sc__ad_needs(ad, args[i]));
    *out = sc_value_list(n, items);
    return SC_OK;
}

bool sc__ad_defined(const sc__ad *ad, uint32_t mask)
{
    sc__ad_tuple *t = ad->tuples[ad->node];
    size_t i;
    if (mask == 0)
        return true;
    if (!t)
        return (mask & 1u) && ad->grad[ad->node].kind != SC_VALUE_NONE;
    for (i = 0; i < t->count; i++)
        if ((i >= 32 || (mask >> i) & 1u) &&
            t->grads[i].kind != SC_VALUE_NONE)
            return true;
    return false;
}

/* ---- Building ------------------------------------------------------------------ */

sc_value sc__ad_string(const char *s)
{
    sc_value v;
    v.kind = SC_VALUE_STRING;
    v.u.str = s;
    return v;
}

sc_status sc__ad_call(sc__ad *ad, sc__op op, const sc_value *args,
                      uint32_t given, sc_value *out)
{
    const sc__op_info *info = sc__op_get(op);
    sc_value pos[SC_OP_MAX_ARGS_], kw[SC_OP_MAX_ARGS_];
    const char *kwn[SC_OP_MAX_ARGS_];
    size_t npos = 0, nkw = 0, i, last = 0;
    bool any = false;
    for (i = 0; i < info->npositional; i++)
        if ((given >> i) & 1u) {
            last = i;
            any = true;
        }
    for (i = 0; any && i <= last; i++) {
        if ((given >> i) & 1u)
            pos[npos++] = args[i];
        else
            SC_TRY(default_value(ad, &info->args[i].def, &pos[npos++]));
    }
    for (i = info->npositional; i < info->nargs; i++)
        if (((given >> i) & 1u) &&
            !equals_default(&args[i], &info->args[i].def)) {
            kwn[nkw] = info->args[i].name;
            kw[nkw++] = args[i];
        }
    SC_TRY(sc__ad_add_op(ad, op, npos, pos, nkw, kwn, kw, out));
    if (info->nrets == 1 && info->rets[0].type.is_list) {
        /* a Tensor[] result: its elements, as getitem nodes */
        sc_result r;
        sc_value *items;
        size_t i2;
        sc_graph_node_result(ad->g, out->u.node, &r);
        if (r.kind != SC_RESULT_TUPLE || r.count == 0)
            return sc__error_set(ad->err, SC_ERR_UNSUPPORTED,
                                 "node '%s': %s returned a list of unknown "
                                 "length", sc_graph_node_name(ad->fwd,
                                                              ad->node),
                                 info->dotted);
        items = sc__ad_alloc(ad, r.count * sizeof *items);
        if (!items)
            return sc__error_nomem(ad->err);
        for (i2 = 0; i2 < r.count; i2++) {
            sc_node_id id;
            SC_TRY(add_getitem(ad, out->u.node, (int64_t)i2, &id));
            items[i2] = sc_value_node(id);
        }
        *out = sc_value_list(r.count, items);
    }
    return SC_OK;
}

sc_status sc__ad_index(sc__ad *ad, const sc_value *v, int64_t i,
                       sc_value *out)
{
    sc_node_id id;
    if (v->kind == SC_VALUE_LIST || v->kind == SC_VALUE_TUPLE) {
        if (i < 0 || (size_t)i >= v->u.list.n)
            return sc__error_set(ad->err, SC_ERR_INVALID,
                                 "index %lld of a list of %zu", (long long)i,
                                 v->u.list.n);
        *out = v->u.list.items[i];
        return SC_OK;
    }
    if (v->kind != SC_VALUE_NODE)
        return sc__error_set(ad->err, SC_ERR_INVALID,
                             "indexing a value that is not a tuple");
    SC_TRY(add_getitem(ad, v->u.node, i, &id));
    *out = sc_value_node(id);
    return SC_OK;
}

bool sc__ad_number(const sc_value *v, double *d)
{
    int64_t x;
    switch (v->kind) {
    case SC_VALUE_INT: *d = (double)v->u.i; return true;
    case SC_VALUE_FLOAT: *d = v->u.f.value; return true;
    case SC_VALUE_BOOL: *d = v->u.b ? 1 : 0; return true;
    case SC_VALUE_SYMINT:
        if (sc_expr_value_si(v->u.expr, &x)) {
            *d = (double)x;
            return true;
        }
        return false;
    default: return false;
    }
}

sc_status sc__ad_arith(sc__ad *ad, char op, const sc_value *a,
                       const sc_value *b, sc_value *out)
{
    double x, y, r;
    bool ints = (a->kind == SC_VALUE_INT || a->kind == SC_VALUE_SYMINT) &&
                (b->kind == SC_VALUE_INT || b->kind == SC_VALUE_SYMINT);
    if (ints && (!sc__ad_number(a, &x) || !sc__ad_number(b, &y))) {
        /* symbolic integer arithmetic */
        sc_expr *ea = sc__ad_value_expr(ad, a),
                *eb = sc__ad_value_expr(ad, b), *e;
        if (!ea || !eb)
            return sc__error_nomem(ad->err);
        switch (op) {
        case '+': e = sc_expr_add(ad->ctx, ea, eb); break;
        case '-': e = sc_expr_sub(ad->ctx, ea, eb); break;
        case '*': e = sc_expr_mul(ad->ctx, ea, eb); break;
        case '/': e = sc_expr_floordiv(ad->ctx, ea, eb); break;
        default: e = sc_expr_neg(ad->ctx, ea); break;
        }
        if (!e)
            return sc__error_nomem(ad->err);
        *out = sc__ad_expr_value(e);
        return SC_OK;
    }
    if (!sc__ad_number(a, &x) || !sc__ad_number(b, &y))
        return sc__error_set(ad->err, SC_ERR_UNSUPPORTED,
                             "node '%s': arithmetic on a non-number",
                             sc_graph_node_name(ad->fwd, ad->node));
    switch (op) {
    case '+': r = x + y; break;
    case '-': r = x - y; break;
    case '*': r = x * y; break;
    case '/':
        if (y == 0)
            return sc__error_set(ad->err, SC_ERR_DIV_ZERO,
                                 "node '%s': division by zero in a "
                                 "derivative formula",
                                 sc_graph_node_name(ad->fwd, ad->node));
        r = x / y;
        break;
    default: r = -x; break;
    }
    if (a->kind == SC_VALUE_INT && (op == 'n' || b->kind == SC_VALUE_INT) &&
        op != '/' && fabs(r) < 9e15)
        *out = sc_value_int((int64_t)r);
    else if (ints && op == '/' && r == floor(r) && fabs(r) < 9e15)
        *out = sc_value_int((int64_t)r);
    else
        *out = sc_value_float(r, NULL);
    return SC_OK;
}

sc_status sc__ad_list(sc__ad *ad, size_t n, const sc_value *items,
                      sc_value *out)
{
    sc_value *copy = sc__ad_alloc(ad, n * sizeof *copy);
    if (!copy)
        return sc__error_nomem(ad->err);
    if (n)
        memcpy(copy, items, n * sizeof *copy);
    *out = sc_value_list(n, copy);
    return SC_OK;
}

/* ---- Gradients: broadcasting and accumulation ---------------------------- */

/* Accumulate gradient g (a joint node) into forward node f. */
static sc_status accumulate(sc__ad *ad, sc_node_id f, sc_value g)
{
    sc_result rf, rg;
    sc_value a[2];
    size_t i;
    bool same;
    if (g.kind == SC_VALUE_NONE || !ad->rg[f])
        return SC_OK;
    if (g.kind != SC_VALUE_NODE)
        return sc__error_set(ad->err, SC_ERR_INVALID,
                             "node '%s': a gradient that is not a tensor",
                             sc_graph_node_name(ad->fwd, ad->node));
    sc_graph_node_result(ad->fwd, f, &rf);
    sc_graph_node_result(ad->g, g.u.node, &rg);
    if (rf.kind == SC_RESULT_TENSOR && rg.kind == SC_RESULT_TENSOR) {
        same = rf.tensor.ndim == rg.tensor.ndim;
        for (i = 0; same && i < rf.tensor.ndim; i++)
            same = rf.tensor.sizes[i] == rg.tensor.sizes[i];
        if (!same)
            SC_TRY(sc__ad_sum_to(ad, g, rf.tensor.ndim, rf.tensor.sizes,
                                 &g));
    }
    if (ad->grad[f].kind == SC_VALUE_NONE) {
        ad->grad[f] = g;
        return SC_OK;
    }
    a[0] = ad->grad[f];
    a[1] = g;
    return sc__ad_add_op(ad, SC_OP_ADD_TENSOR, 2, a, 0, NULL, NULL,
                         &ad->grad[f]);
}

static sc_status set_grad_value(sc__ad *ad, const sc_value *fv,
                                const sc_value *g)
{
    size_t i;
    if (g->kind == SC_VALUE_NONE)
        return SC_OK;
    if (fv->kind == SC_VALUE_NODE)
        return accumulate(ad, fv->u.node, *g);
    if (fv->kind == SC_VALUE_LIST || fv->kind == SC_VALUE_TUPLE) {
        if ((g->kind != SC_VALUE_LIST && g->kind != SC_VALUE_TUPLE) ||
            g->u.list.n != fv->u.list.n)
            return sc__error_set(ad->err, SC_ERR_INVALID,
                                 "node '%s': the gradient of a list input "
                                 "must be a list of the same length",
                                 sc_graph_node_name(ad->fwd, ad->node));
        for (i = 0; i < fv->u.list.n; i++)
            SC_TRY(set_grad_value(ad, &fv->u.list.items[i],
                                  &g->u.list.items[i]));
    }
    return SC_OK;
}

sc_status sc__ad_set_grad(sc__ad *ad, int i, const sc_value *g)
{
    return set_grad_value(ad, &ad->fargs[i], g);
}

sc_status sc__ad_set_grads(sc__ad *ad, size_t n, const int *args,
                           const sc_value *t)
{
    size_t k;
    for (k = 0; k < n; k++) {
        sc_value e;
        if (!sc__ad_needs(ad, args[k]))
            continue;
        SC_TRY(sc__ad_index(ad, t, (int64_t)k, &e));
        SC_TRY(sc__ad_set_grad(ad, args[k], &e));
    }
    return SC_OK;
}

/* ---- The transform ------------------------------------------------------------ */

void sc_joint_options_init(sc_joint_options *opts)
{
    memset(opts, 0, sizeof *opts);
}

bool sc__ad_is_getitem(const sc_graph *g, sc_node_id id)
{
    const char *t = sc_graph_node_target(g, id);
    return t && strcmp(t, "operator.getitem") == 0;
}

/* Forward requires-grad propagation. */
static void propagate(sc__ad *ad)
{
    const sc_graph *f = ad->fwd;
    size_t np = sc_graph_placeholder_count(f), id, i;
    for (id = np; id < ad->nfwd; id++) {
        sc_node_id n = (sc_node_id)id;
        int op = sc__graph_node_op(f, n);
        sc_result r;
        bool rg = false;
        sc_graph_node_result(f, n, &r);
        if (sc__ad_is_getitem(f, n)) {
            const sc_value *p = sc_graph_node_arg(f, n, 0);
            const sc_value *ix = sc_graph_node_arg(f, n, 1);
            if (p && ix && p->kind == SC_VALUE_NODE &&
                ix->kind == SC_VALUE_INT && ad->rg[p->u.node]) {
                int pop = sc__graph_node_op(f, p->u.node);
                uint32_t outs = 1u;
                if (pop != SC_OP_UNKNOWN &&
                    sc__ad_table[pop].kind == SC_AD_FORMULAS) {
                    const sc__op_info *pi = sc__op_get((sc__op)pop);
                    outs = sc__ad_table[pop].diff_outputs;
                    rg = pi->returns_tuple
                             ? ix->u.i < 32 && ((outs >> ix->u.i) & 1u)
                             : (outs & 1u);
                } else
                    rg = true;
            }
        } else if (op == SC_OP_UNKNOWN ||
                   sc__ad_table[op].kind == SC_AD_NONE) {
            for (i = 0; i < sc_graph_node_arg_count(f, n) && !rg; i++)
                rg = value_requires_grad(ad, sc_graph_node_arg(f, n, i));
        } else if (sc__ad_table[op].kind == SC_AD_FORMULAS) {
            sc__bound_arg bound[SC_OP_MAX_ARGS_];
            const void *pos[SC_OP_MAX_ARGS_], *kw[SC_OP_MAX_ARGS_];
            const char *kwn[SC_OP_MAX_ARGS_];
            size_t na = sc_graph_node_arg_count(f, n);
            size_t npos = sc_graph_node_positional_count(f, n), nkw = 0;
            for (i = 0; i < na && i < SC_OP_MAX_ARGS_; i++) {
                if (i < npos)
                    pos[i] = sc_graph_node_arg(f, n, i);
                else {
                    kwn[nkw] = sc_graph_node_kwname(f, n, i);
                    kw[nkw++] = sc_graph_node_arg(f, n, i);
                }
            }
            if (sc__op_bind((sc__op)op, npos, pos, nkw, kwn, kw, bound,
                            NULL) == SC_OK)
                for (i = 0; i < sc__op_get((sc__op)op)->nargs && !rg; i++)
                    if (((sc__ad_table[op].diff_inputs >> i) & 1u) &&
                        bound[i].value)
                        rg = value_requires_grad(ad, bound[i].value);
        }
        if (r.kind == SC_RESULT_TENSOR && !is_float_dtype(r.tensor.dtype))
            rg = false;
        if (r.kind != SC_RESULT_TENSOR && r.kind != SC_RESULT_TUPLE &&
            r.kind != SC_RESULT_UNKNOWN)
            rg = false;
        ad->rg[id] = rg;
    }
}

static sc_status setup_tuples(sc__ad *ad)
{
    const sc_graph *f = ad->fwd;
    size_t id, i;
    for (id = 0; id < ad->nfwd; id++) {
        sc_node_id n = (sc_node_id)id;
        sc_result r;
        size_t count;
        const sc_node_id *users;
        size_t nu;
        if (sc_graph_node_kind(f, n) != SC_NODE_CALL ||
            sc__ad_is_getitem(f, n))
            continue;
        sc_graph_node_result(f, n, &r);
        count = r.kind == SC_RESULT_TUPLE ? r.count : 0;
        /* (a tensor, SymInt or None result is no tuple: its shape rule
         * agreed at reading, no need to run it again) */
        if ((r.kind == SC_RESULT_TUPLE || r.kind == SC_RESULT_UNKNOWN) &&
            ad->map[n] != SC_NODE_NONE && sc__graph_node_op(f, n) >= 0 &&
            sc__graph_node_op(f, n) != SC_OP_UNKNOWN) {
            /* the number of returns is the shape rule's (a split's
             * pieces), not the getitems the graph happens to have: a
             * gradient needs zeros for the unused ones.  copy_call built
             * the node without metadata, so its result is the rule's. */
            sc_result ri;
            sc_graph_node_result(ad->g, ad->map[n], &ri);
            if (ri.kind == SC_RESULT_TUPLE) {
                r = ri;
                count = ri.count;
            }
        }
        users = sc_graph_node_users(f, n, &nu);
        for (i = 0; i < nu; i++)
            if (sc__ad_is_getitem(f, users[i])) {
                const sc_value *ix = sc_graph_node_arg(f, users[i], 1);
                if (ix && ix->kind == SC_VALUE_INT && ix->u.i >= 0 &&
                    (size_t)ix->u.i + 1 > count)
                    count = (size_t)ix->u.i + 1;
            }
        if (r.kind != SC_RESULT_TUPLE && count == 0)
            continue;
        sc__ad_tuple *t = sc__ad_alloc(ad, sizeof *t);
        if (!t)
            return sc__error_nomem(ad->err);
        t->count = count;
        t->grads = sc__ad_alloc(ad, (count ? count : 1) * sizeof *t->grads);
        t->fwd_getitem =
            sc__ad_alloc(ad, (count ? count : 1) * sizeof(sc_node_id));
        t->new_getitem =
            sc__ad_alloc(ad, (count ? count : 1) * sizeof(sc_node_id));
        if (!t->grads || !t->fwd_getitem || !t->new_getitem)
            return sc__error_nomem(ad->err);
        for (i = 0; i < count; i++) {
            t->grads[i] = sc_value_none();
            t->fwd_getitem[i] = t->new_getitem[i] = SC_NODE_NONE;
        }
        for (i = 0; i < nu; i++)
            if (sc__ad_is_getitem(f, users[i])) {
                const sc_value *ix = sc_graph_node_arg(f, users[i], 1);
                if (ix && ix->kind == SC_VALUE_INT && ix->u.i >= 0 &&
                    t->fwd_getitem[ix->u.i] == SC_NODE_NONE)
                    t->fwd_getitem[ix->u.i] = users[i];
            }
        ad->tuples[id] = t;
    }
    return SC_OK;
}

/* Could a forward node's name be one of the joint's placeholders'
 * (primals_K, tangents_K)?  Every other name of the forward graph is new
 * in the joint graph: the forward's names are distinct. */
static bool placeholder_like(const char *name)
{
    return strncmp(name, "primals_", 8) == 0 ||
           strncmp(name, "tangents_", 9) == 0;
}

/* Copy call node n of the forward graph into the joint graph.  A node
 * whose result the forward graph knows (a tensor, SymInt, SymBool or
 * nothing) is a trusted copy: the forward graph checked its name, its
 * arguments against the schema and its shape rule against the result in
 * the environment the joint graph shares, so checking them again would
 * find the same.  A tuple's (or an unknown) result comes from the shape
 * rule again through the checked builder. */
static sc_status copy_call(sc__ad *ad, sc_node_id n)
{
    const sc_graph *f = ad->fwd;
    size_t na = sc_graph_node_arg_count(f, n), npos, i;
    sc_value *args;
    const char **kwn;
    sc_result r;
    sc_status st;
    sc_graph_node_result(f, n, &r);
    if (r.kind != SC_RESULT_UNKNOWN && r.kind != SC_RESULT_TUPLE &&
        sc_graph_env(ad->g) == sc_graph_env(f) &&
        !placeholder_like(sc_graph_node_name(f, n)))
        return sc__graph_append_copy_mapped(ad->g, f, n, ad->map,
                                            &ad->map[n], ad->err);
    args = sc__ad_alloc(ad, na * sizeof *args);
    kwn = sc__ad_alloc(ad, na * sizeof *kwn);
    if (!args || !kwn)
        return sc__error_nomem(ad->err);
    npos = sc_graph_node_positional_count(f, n);
    for (i = 0; i < na; i++) {
        SC_TRY(map_into(ad, sc_graph_node_arg(f, n, i), &args[i]));
        if (i >= npos)
            kwn[i - npos] = sc_graph_node_kwname(f, n, i);
    }
    st = sc_graph_add_call(ad->g, sc_graph_node_name(f, n),
                           sc_graph_node_target(f, n), npos, args, na - npos,
                           kwn, args + npos,
                           /* a tuple's count is the shape rule's (a
                              forward read from text counts the getitems
                              it has) */
                           r.kind == SC_RESULT_UNKNOWN ||
                                   r.kind == SC_RESULT_TUPLE
                               ? NULL
                               : &r,
                           &ad->map[n], ad->err);
    return st;
}

/* Bind the current node's arguments (forward and mapped). */
static sc_status bind_node(sc__ad *ad, sc_node_id n, sc__op op)
{
    const sc_graph *f = ad->fwd;
    const sc__op_info *info = sc__op_get(op);
    sc__bound_arg bound[SC_OP_MAX_ARGS_];
    const void *pos[SC_OP_MAX_ARGS_], *kw[SC_OP_MAX_ARGS_];
    const char *kwn[SC_OP_MAX_ARGS_];
    size_t na = sc_graph_node_arg_count(f, n);
    size_t npos = sc_graph_node_positional_count(f, n), nkw = 0, i;
    if (na > SC_OP_MAX_ARGS_)
        return sc__error_set(ad->err, SC_ERR_TYPE, "node '%s': too many "
                             "arguments", sc_graph_node_name(f, n));
    for (i = 0; i < na; i++) {
        if (i < npos)
            pos[i] = sc_graph_node_arg(f, n, i);
        else {
            kwn[nkw] = sc_graph_node_kwname(f, n, i);
            kw[nkw++] = sc_graph_node_arg(f, n, i);
        }
    }
    SC_TRY(sc__op_bind(op, npos, pos, nkw, kwn, kw, bound, ad->err));
    for (i = 0; i < info->nargs; i++) {
        if (bound[i].value)
            ad->fargs[i] = *(const sc_value *)bound[i].value;
        else
            SC_TRY(default_value(ad, &info->args[i].def, &ad->fargs[i]));
        SC_TRY(map_into(ad, &ad->fargs[i], &ad->args[i]));
    }
    return SC_OK;
}

static bool has_grad(const sc__ad *ad, sc_node_id n)
{
    const sc__ad_tuple *t = ad->tuples[n];
    size_t i;
    if (!t)
        return ad->grad[n].kind != SC_VALUE_NONE;
    for (i = 0; i < t->count; i++)
        if (t->grads[i].kind != SC_VALUE_NONE)
            return true;
    return false;
}

/* The build's progress: done of 2 * (forward call nodes), reported at
 * the start, every 4096 units and at the end. */
static void report(const sc_joint_options *opts, size_t done, size_t total)
{
    if (opts && opts->progress && (done % 4096 == 0 || done == total))
        opts->progress(opts->progress_user, "building the joint graph", done,
                       total);
}

static sc_status backward(sc__ad *ad, const sc_joint_options *opts)
{
    const sc_graph *f = ad->fwd;
    size_t np = sc_graph_placeholder_count(f), id;
    size_t ncalls = ad->nfwd - np;
    for (id = ad->nfwd; id-- > np;) {
        sc_node_id n = (sc_node_id)id;
        int op = sc__graph_node_op(f, n);
        report(opts, 2 * ncalls - 1 - (id - np), 2 * ncalls);
        if (sc__ad_is_getitem(f, n)) {
            const sc_value *p = sc_graph_node_arg(f, n, 0);
            const sc_value *ix = sc_graph_node_arg(f, n, 1);
            sc__ad_tuple *t;
            sc_value a[2];
            if (ad->grad[n].kind == SC_VALUE_NONE)
                continue;
            t = ad->tuples[p->u.node];
            if (!t || ix->kind != SC_VALUE_INT || ix->u.i < 0 ||
                (size_t)ix->u.i >= t->count)
                return sc__error_set(ad->err, SC_ERR_INTERNAL,
                                     "node '%s': bad getitem",
                                     sc_graph_node_name(f, n));
            if (t->grads[ix->u.i].kind == SC_VALUE_NONE)
                t->grads[ix->u.i] = ad->grad[n];
            else {
                a[0] = t->grads[ix->u.i];
                a[1] = ad->grad[n];
                SC_TRY(sc__ad_add_op(ad, SC_OP_ADD_TENSOR, 2, a, 0, NULL,
                                     NULL, &t->grads[ix->u.i]));
            }
            continue;
        }
        if (!ad->rg[n] || !has_grad(ad, n))
            continue;
        if (op == SC_OP_UNKNOWN || sc__ad_table[op].kind != SC_AD_FORMULAS)
            return sc__error_set(ad->err, SC_ERR_UNSUPPORTED,
                                 "node '%s': op %s has no derivative formula "
                                 "(graph/ops.yaml `derivatives`)",
                                 sc_graph_node_name(f, n),
                                 op == SC_OP_UNKNOWN
                                     ? sc_graph_node_target(f, n)
                                     : sc__op_get((sc__op)op)->dotted);
        ad->node = n;
        ad->op = (sc__op)op;
        SC_TRY(bind_node(ad, n, (sc__op)op));
        SC_TRY(sc__ad_table[op].fn(ad));
    }
    return SC_OK;
}

/* Contiguous metadata like r (a tangent's). */
static sc_status tangent_meta(sc__ad *ad, const sc_result *r, sc_result *out,
                              sc_expr ***strides)
{
    size_t i, n = r->tensor.ndim;
    sc_expr **st = sc__ad_alloc(ad, n * sizeof *st), *acc;
    if (!st)
        return sc__error_nomem(ad->err);
    acc = sc_expr_int_si(ad->ctx, 1);
    for (i = n; i-- > 0;) {
        int64_t v;
        if (!acc)
            return sc__error_nomem(ad->err);
        st[i] = acc;
        if (sc_expr_value_si(r->tensor.sizes[i], &v) && v == 0)
            continue;
        acc = sc_expr_mul(ad->ctx, acc, r->tensor.sizes[i]);
    }
    *out = *r;
    out->tensor.has_strides = true;
    out->tensor.strides = st;
    *strides = st;
    return SC_OK;
}

/* The requires-grad flags of the primals, then of every node. */
static sc_status requires_grad(sc__ad *ad, const sc_joint_options *opts)
{
    const sc_graph *f = ad->fwd;
    size_t np = sc_graph_placeholder_count(f), i;
    for (i = 0; i < np; i++) {
        if (sc_graph_node_role(f, (sc_node_id)i) == SC_ROLE_TANGENT)
            return sc__error_set(ad->err, SC_ERR_INVALID,
                                 "the graph already has tangents: it is "
                                 "a joint graph, not a forward graph");
        if (opts && opts->requires_grad)
            ad->rg[i] = opts->requires_grad[i];
        else
            ad->rg[i] = true;
        if (!result_is_float_tensor(f, (sc_node_id)i))
            ad->rg[i] = false;
    }
    propagate(ad);
    return SC_OK;
}

static sc_status build(sc__ad *ad, const sc_joint_options *opts)
{
    const sc_graph *f = ad->fwd;
    size_t np = sc_graph_placeholder_count(f), no = sc_graph_output_count(f);
    size_t nfo, i, ntan = 0, nsym;
    sc_node_id *tan, *outs;
    sc_expr **syms;

    SC_TRY(requires_grad(ad, opts));

    /* symbols and hints */
    nsym = sc_graph_symbols(f, NULL, 0);
    syms = sc__ad_alloc(ad, nsym * sizeof *syms);
    if (!syms)
        return sc__error_nomem(ad->err);
    sc_graph_symbols(f, syms, nsym);
    for (i = 0; i < nsym; i++) {
        int64_t h;
        if (sc_graph_get_hint(f, syms[i], &h))
            SC_TRY(sc_graph_set_hint(ad->g, syms[i], h, ad->err));
    }
    if (sc_graph_env(f))
        sc_graph_set_env(ad->g, sc_graph_env(f));

    /* primals */
    for (i = 0; i < np; i++) {
        char name[32];
        sc_result r;
        snprintf(name, sizeof name, "primals_%zu", i + 1);
        sc_graph_node_result(f, (sc_node_id)i, &r);
        SC_TRY(sc_graph_add_placeholder(
            ad->g, name, SC_ROLE_PRIMAL,
            r.kind == SC_RESULT_UNKNOWN ? NULL : &r, &ad->map[i], ad->err));
    }
    /* tangents: one per differentiable forward output */
    tan = sc__ad_alloc(ad, (no ? no : 1) * sizeof *tan);
    if (!tan)
        return sc__error_nomem(ad->err);
    for (i = 0; i < no; i++) {
        sc_node_id o = sc_graph_output(f, i);
        tan[i] = SC_NODE_NONE;
        if (o != SC_NODE_NONE && ad->rg[o] && result_is_float_tensor(f, o)) {
            char name[32];
            sc_result r, t;
            sc_expr **st;
            sc_graph_node_result(f, o, &r);
            SC_TRY(tangent_meta(ad, &r, &t, &st));
            snprintf(name, sizeof name, "tangents_%zu", ++ntan);
            SC_TRY(sc_graph_add_placeholder(ad->g, name, SC_ROLE_TANGENT,
                                            &t, &tan[i], ad->err));
        }
    }
    /* the forward nodes */
    for (i = np; i < ad->nfwd; i++) {
        report(opts, i - np, 2 * (ad->nfwd - np));
        SC_TRY(copy_call(ad, (sc_node_id)i));
    }
    SC_TRY(setup_tuples(ad));
    /* seeds */
    for (i = 0; i < no; i++)
        if (tan[i] != SC_NODE_NONE) {
            ad->node = sc_graph_output(f, i);
            SC_TRY(accumulate(ad, sc_graph_output(f, i),
                              sc_value_node(tan[i])));
        }
    SC_TRY(backward(ad, opts));
    report(opts, 2 * (ad->nfwd - np), 2 * (ad->nfwd - np));
    /* outputs */
    nfo = no;
    outs = sc__ad_alloc(ad, (no + np + 1) * sizeof *outs);
    if (!outs)
        return sc__error_nomem(ad->err);
    for (i = 0; i < no; i++) {
        sc_node_id o = sc_graph_output(f, i);
        outs[i] = o == SC_NODE_NONE ? SC_NODE_NONE : ad->map[o];
    }
    for (i = 0; i < np; i++)
        outs[no + i] = ad->rg[i] && ad->grad[i].kind == SC_VALUE_NODE
                           ? ad->grad[i].u.node
                           : SC_NODE_NONE;
    SC_TRY(sc_graph_set_outputs(ad->g, no + np, outs, nfo, ad->err));
    return sc_graph_finish(ad->g, ad->err);
}

sc_status sc_graph_new_joint(const sc_graph *fwd, const sc_joint_options *opts,
                             sc_graph **out, sc_error *err)
{
    sc__ad ad;
    sc_status status = SC_OK;
    size_t i;
    if (out)
        *out = NULL;
    if (!fwd || !out)
        return sc__error_set(err, SC_ERR_INVALID,
                             "sc_graph_new_joint: NULL graph or output");
    if (opts && opts->requires_grad &&
        opts->nrequires_grad != sc_graph_placeholder_count(fwd))
        return sc__error_set(err, SC_ERR_INVALID,
                             "sc_graph_new_joint: %zu requires_grad flags for "
                             "%zu placeholders", opts->nrequires_grad,
                             sc_graph_placeholder_count(fwd));
    memset(&ad, 0, sizeof ad);
    ad.fwd = fwd;
    ad.err = err;
    ad.ctx = sc_graph_ctx(fwd);
    ad.nfwd = sc_graph_node_count(fwd);
    sc__arena_init(&ad.arena);
    ad.g = sc_graph_new(ad.ctx);
    ad.map = sc__calloc(ad.nfwd + 1, sizeof *ad.map);
    ad.rg = sc__calloc(ad.nfwd + 1, sizeof *ad.rg);
    ad.grad = sc__calloc(ad.nfwd + 1, sizeof *ad.grad);
    ad.tuples = sc__calloc(ad.nfwd + 1, sizeof *ad.tuples);
    if (!ad.g || !ad.map || !ad.rg || !ad.grad || !ad.tuples) {
        status = sc__error_nomem(err);
        goto fail;
    }
    for (i = 0; i < ad.nfwd; i++) {
        ad.map[i] = SC_NODE_NONE;
        ad.grad[i] = sc_value_none();
    }
    /* a joint has about three nodes per forward node: room for them at
     * once instead of copying the node array and rehashing the names as
     * it doubles */
    if (ad.nfwd < ((size_t)INT32_MAX - 64) / 3)
        SC_CHECK(sc__graph_reserve(ad.g, 3 * ad.nfwd + 64, err));
    SC_CHECK(build(&ad, opts));
    SC_CHECK(sc_graph_set_class_name(ad.g, "joint_fn", err));
    *out = ad.g;
    ad.g = NULL;
fail:
    sc__free(ad.map);
    sc__free(ad.rg);
    sc__free(ad.grad);
    sc__free(ad.tuples);
    sc__arena_destroy(&ad.arena);
    sc_graph_free(ad.g);
    return status;
}

sc_status sc_graph_requires_grad(const sc_graph *fwd,
                                 const sc_joint_options *opts, bool *out,
                                 sc_error *err)
{
    sc__ad ad;
    if (!fwd || !out)
        return sc__error_set(err, SC_ERR_INVALID,
                             "sc_graph_requires_grad: NULL argument");
    if (opts && opts->requires_grad &&
        opts->nrequires_grad != sc_graph_placeholder_count(fwd))
        return sc__error_set(err, SC_ERR_INVALID,
                             "sc_graph_requires_grad: %zu requires_grad "
                             "flags for %zu placeholders",
                             opts->nrequires_grad,
                             sc_graph_placeholder_count(fwd));
    memset(&ad, 0, sizeof ad);
    ad.fwd = fwd;
    ad.err = err;
    ad.nfwd = sc_graph_node_count(fwd);
    ad.rg = out;
    memset(out, 0, ad.nfwd * sizeof *out);
    return requires_grad(&ad, opts);
}
