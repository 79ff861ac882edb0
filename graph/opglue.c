/* symcut — where the graph IR meets the op table (graph/ops.h): op lookup
 * from a node's target, schema checks of a call's arguments, and the
 * recompute class; and where it meets the shape environment: the graph's
 * symbols registered as backed or unbacked symbols. */
#include <config.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "graph/graph-internal.h"
#include "graph/ops.h"

/* ---- Op lookup ---------------------------------------------------------- */

/* A node stores its op id in 16 bits (graph-internal.h). */
_Static_assert(SC_OP_COUNT_ <= INT16_MAX && SC_OP_UNKNOWN >= INT16_MIN,
               "op ids must fit sc__node.op");

int sc__graph_lookup_op(const char *target)
{
    sc__op op = SC_OP_INVALID_;
    char buf[256];

    if (!target)
        return SC_OP_UNKNOWN;
    if (strncmp(target, "torch.ops.aten.", 15) == 0) {
        const char *dotted = target + 15;
        op = sc__op_find(dotted);
        if (op == SC_OP_INVALID_ && !strchr(dotted, '.') &&
            strlen(dotted) + 9 < sizeof buf) {
            /* `torch.ops.aten.sym_size(x, 0)`: the default overload */
            snprintf(buf, sizeof buf, "%s.default", dotted);
            op = sc__op_find(buf);
        }
    } else if (strncmp(target, "torch.ops.prims.", 16) == 0 &&
               strlen(target) - 10 < sizeof buf) {
        /* prims ops are in the table as prims.NAME.OVERLOAD */
        snprintf(buf, sizeof buf, "%s", target + 10);
        op = sc__op_find(buf);
    } else if (strncmp(target, "operator.", 9) == 0 ||
               strncmp(target, "torch.sym_", 10) == 0 ||
               strncmp(target, "torch._sym_", 11) == 0) {
        /* Python operators and torch's SymInt/SymBool/SymFloat functions
         * (torch.sym_not, torch.sym_max, ...; FX prints some by their
         * private names, torch._sym_sqrt) */
        op = sc__op_find_python_target(target);
    }
    return op == SC_OP_INVALID_ ? SC_OP_UNKNOWN : (int)op;
}

const char *sc_graph_node_class(const sc_graph *g, sc_node_id id)
{
    int op = sc__graph_node_op(g, id);
    if (op == SC_OP_UNKNOWN || op < 0 || op >= (int)SC_OP_COUNT_)
        return NULL;
    return sc__op_class_name(sc__op_get((sc__op)op)->cls);
}

/* ---- Schema checks ------------------------------------------------------ */

static const char *value_kind_name(const sc_graph *g, const sc_value *v)
{
    switch (v->kind) {
    case SC_VALUE_NONE: return "None";
    case SC_VALUE_NODE:
        switch ((sc_result_kind)g->nodes[v->u.node].rkind) {
        case SC_RESULT_TENSOR: return "a Tensor";
        case SC_RESULT_SYMINT: return "a SymInt";
        case SC_RESULT_SYMBOOL: return "a SymBool";
        case SC_RESULT_TUPLE: return "a tuple";
        case SC_RESULT_NONE: return "a None-valued node";
        default: return "a node";
        }
    case SC_VALUE_INT: return "an int";
    case SC_VALUE_SYMINT: return "a SymInt";
    case SC_VALUE_FLOAT: return "a float";
    case SC_VALUE_BOOL: return "a bool";
    case SC_VALUE_STRING: return "a string";
    case SC_VALUE_DTYPE: return "a dtype";
    case SC_VALUE_DEVICE: return "a device";
    case SC_VALUE_LAYOUT: return "a layout";
    case SC_VALUE_MEMORY_FORMAT: return "a memory format";
    case SC_VALUE_LIST: return "a list";
    case SC_VALUE_TUPLE: return "a tuple";
    }
    return "a value";
}

/* Does one (non-list) value fit the base type? */
static bool fits_base(const sc_graph *g, sc__type_base base, const sc_value *v)
{
    sc_result_kind rk = SC_RESULT_UNKNOWN;

    if (v->kind == SC_VALUE_NODE)
        rk = (sc_result_kind)g->nodes[v->u.node].rkind;
    switch (base) {
    case SC_TYPE_TENSOR:
        /* A Python number passed for a Tensor is a wrapped scalar
         * (`mul.Tensor(x, 0.125)`), and so is a SymInt or SymBool node
         * (`mul.Tensor(x, primals_3)` with `primals_3: "Sym(s0)"`). */
        return (v->kind == SC_VALUE_NODE &&
                (rk == SC_RESULT_TENSOR || rk == SC_RESULT_UNKNOWN ||
                 rk == SC_RESULT_SYMINT || rk == SC_RESULT_SYMBOOL)) ||
               v->kind == SC_VALUE_INT || v->kind == SC_VALUE_FLOAT ||
               v->kind == SC_VALUE_BOOL;
    case SC_TYPE_INT:
    case SC_TYPE_SYMINT:
        return v->kind == SC_VALUE_INT || v->kind == SC_VALUE_SYMINT ||
               (v->kind == SC_VALUE_NODE &&
                (rk == SC_RESULT_SYMINT || rk == SC_RESULT_UNKNOWN));
    case SC_TYPE_FLOAT:
    case SC_TYPE_SYMFLOAT:
        return v->kind == SC_VALUE_FLOAT || v->kind == SC_VALUE_INT ||
               v->kind == SC_VALUE_SYMINT ||
               (v->kind == SC_VALUE_NODE && rk != SC_RESULT_TENSOR &&
                rk != SC_RESULT_TUPLE);
    case SC_TYPE_BOOL:
    case SC_TYPE_SYMBOOL:
        return v->kind == SC_VALUE_BOOL ||
               (v->kind == SC_VALUE_NODE &&
                (rk == SC_RESULT_SYMBOOL || rk == SC_RESULT_UNKNOWN));
    case SC_TYPE_STR:
    case SC_TYPE_DIMNAME:
        return v->kind == SC_VALUE_STRING;
    case SC_TYPE_SCALAR:
        return v->kind == SC_VALUE_INT || v->kind == SC_VALUE_FLOAT ||
               v->kind == SC_VALUE_BOOL || v->kind == SC_VALUE_SYMINT ||
               (v->kind == SC_VALUE_NODE && rk != SC_RESULT_TUPLE);
    case SC_TYPE_SCALAR_TYPE:
        return v->kind == SC_VALUE_DTYPE;
    case SC_TYPE_LAYOUT:
        return v->kind == SC_VALUE_LAYOUT;
    case SC_TYPE_DEVICE:
        return v->kind == SC_VALUE_DEVICE || v->kind == SC_VALUE_STRING;
    case SC_TYPE_MEMORY_FORMAT:
        return v->kind == SC_VALUE_MEMORY_FORMAT;
    case SC_TYPE_GENERATOR:
        return false; /* only None, handled by optional */
    case SC_TYPE_ANY:
    default:
        return true;
    }
}

static bool fits_type(const sc_graph *g, const sc__type *t, const sc_value *v)
{
    size_t i;

    if (v->kind == SC_VALUE_NONE)
        return t->optional || t->base == SC_TYPE_ANY;
    if (!t->is_list)
        return fits_base(g, t->base, v);
    if (v->kind == SC_VALUE_LIST || v->kind == SC_VALUE_TUPLE) {
        /* The N of T[N] is not enforced: `int[1] dim` takes any length. */
        for (i = 0; i < v->u.list.n; i++) {
            const sc_value *e = &v->u.list.items[i];
            if (e->kind == SC_VALUE_NONE ? !t->elem_optional
                                         : !fits_base(g, t->base, e))
                return false;
        }
        return true;
    }
    /* `int[2] padding=0`: one value for a fixed-size list */
    return t->list_size > 0 && t->base != SC_TYPE_TENSOR &&
           fits_base(g, t->base, v);
}

static void type_text(const sc__type *t, char *buf, size_t size)
{
    snprintf(buf, size, "%s%s%s%s", sc__type_base_name(t->base),
             t->is_list && t->elem_optional ? "?" : "",
             t->is_list ? "[]" : "", t->optional ? "?" : "");
}

sc_status sc__graph_check_call(sc_graph *g, sc__node *n, sc_error *err)
{
    const sc__op_info *info;
    const void *pos[SC_OP_MAX_ARGS_ + 1];
    const void *kwv[SC_OP_MAX_ARGS_ + 1];
    sc__bound_arg bound[SC_OP_MAX_ARGS_ + 1];
    size_t i, nkw;

    if (n->op == SC_OP_UNKNOWN || n->kind != SC_NODE_CALL)
        return SC_OK;
    info = sc__op_get((sc__op)n->op);
    nkw = n->nargs - n->npos;
    if (n->npos > SC_OP_MAX_ARGS_ || nkw > SC_OP_MAX_ARGS_)
        return sc__error_set(err, SC_ERR_TYPE,
                             "%s takes at most %u arguments, %u given",
                             info->dotted, (unsigned)info->nargs,
                             (unsigned)n->nargs);
    for (i = 0; i < n->npos; i++)
        pos[i] = &n->args[i];
    for (i = 0; i < nkw; i++)
        kwv[i] = &n->args[n->npos + i];
    SC_TRY(sc__op_bind((sc__op)n->op, n->npos, pos, nkw,
                       (const char *const *)n->kwnames, kwv, bound, err));
    for (i = 0; i < info->nargs; i++) {
        const sc_value *v = bound[i].value;
        char tbuf[48];
        if (!v)
            continue;
        if (!fits_type(g, &info->args[i].type, v)) {
            type_text(&info->args[i].type, tbuf, sizeof tbuf);
            return sc__error_set(err, SC_ERR_TYPE,
                                 "%s: argument '%s' must be %s, not %s",
                                 info->dotted, info->args[i].name, tbuf,
                                 value_kind_name(g, v));
        }
    }
    if ((info->returns_tuple || (info->nrets == 1 && info->rets[0].type.is_list)) &&
        (n->rkind == SC_RESULT_UNKNOWN || n->rkind == SC_RESULT_TUPLE)) {
        n->rkind = SC_RESULT_TUPLE;
        if (info->returns_tuple) {
            n->ndim = info->nrets;
            n->flags |= SC__NODE_TUPLE_FIXED;
        }
    } else if (info->nrets == 0 && n->rkind == SC_RESULT_UNKNOWN) {
        n->rkind = SC_RESULT_NONE;
    }
    return SC_OK;
}

/* ---- The shape environment ---------------------------------------------- */

/* The first placeholder dimension whose size or stride is exactly sym:
 * its source text `primals_1.size(0)`, written into buf; false if none. */
static bool symbol_source(const sc_graph *g, const sc_expr *sym, char *buf,
                          size_t size)
{
    size_t i, d;
    for (i = 0; i < g->nplaceholders; i++) {
        const sc__node *n = &g->nodes[i];
        if (n->rkind == SC_RESULT_SYMINT && n->meta.expr == sym) {
            snprintf(buf, size, "%s", n->name);
            return true;
        }
        if (n->rkind != SC_RESULT_TENSOR)
            continue;
        for (d = 0; d < n->ndim; d++)
            if (n->meta.dims[d] == sym) {
                snprintf(buf, size, "%s.size(%zu)", n->name, d);
                return true;
            }
        if (n->flags & SC__NODE_HAS_STRIDES)
            for (d = 0; d < n->ndim; d++)
                if (n->meta.dims[n->ndim + d] == sym) {
                    snprintf(buf, size, "%s.stride(%zu)", n->name, d);
                    return true;
                }
    }
    return false;
}

/* Is sym (alone) a size of some tensor? */
static bool symbol_is_size(const sc_graph *g, const sc_expr *sym)
{
    size_t i, d;
    for (i = 0; i < g->nnodes; i++) {
        const sc__node *n = &g->nodes[i];
        if (n->rkind != SC_RESULT_TENSOR)
            continue;
        for (d = 0; d < n->ndim; d++)
            if (sc_expr_has_symbol(n->meta.dims[d], sym))
                return true;
    }
    return false;
}

sc_status sc__graph_bind_env(sc_graph *g, sc_env *env, sc_error *err)
{
    sc_expr *stack_syms[32], **syms = stack_syms;
    size_t n, i;
    sc_status status = SC_OK;
    char source[300];

    n = sc_graph_symbols(g, stack_syms, 32);
    if (n > 32) {
        syms = sc__malloc(n * sizeof *syms);
        if (!syms)
            return sc__error_nomem(err);
        n = sc_graph_symbols(g, syms, n);
    }
    if (g->env) {
        env = g->env; /* bound before: register what is new */
    } else if (env) {
        sc_graph_set_env(g, env);
    } else {
        if (n == 0)
            goto done;
        SC_CHECK(sc_env_new(g->ctx, NULL, &env, err));
        sc_graph_set_env(g, env);
        g->owns_env = true;
    }
    for (i = 0; i < n; i++) {
        sc_expr *out = NULL;
        int64_t hint;
        const char *name = sc_expr_symbol_name(syms[i]);
        if (sc_env_has_symbol(env, syms[i]))
            continue;
        if (sc_graph_get_hint(g, syms[i], &hint)) {
            unsigned flags = SC_ENV_NO_DUCK;
            if (hint < 2)
                flags |= SC_ENV_NO_SPECIALIZE_01;
            SC_CHECK(sc_env_create_backed_si(
                env, hint,
                symbol_source(g, syms[i], source, sizeof source) ? source
                                                                 : NULL,
                name, NULL, flags, &out, err));
        } else {
            SC_CHECK(sc_env_create_unbacked(
                env, name, NULL,
                symbol_is_size(g, syms[i]) ? SC_ENV_SIZE_LIKE : 0, &out,
                err));
        }
    }
done:
    if (syms != stack_syms)
        sc__free(syms);
    return SC_OK;
fail:
    if (syms != stack_syms)
        sc__free(syms);
    return status;
}
