/* symcut — the shape-rule hook the reader and the builder call for every
 * call node: bind the node's arguments to its op's schema, make sure the
 * shape environment knows the symbols of its inputs, and run the op's rule
 * (graph/ops.yaml's `shape:` field; the rules live in graph/shapes-*.c).
 * Dispatch goes through the generated table sc__shape_rule_fns[]
 * (graph/ops-shapes-gen.c).  Also the check of an inferred result against
 * a node's annotation: an annotation equal to the result only at the hints
 * is accepted under the guard that makes it so (doc/shapes.md). */
#include <config.h>

#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include "graph/shapes.h"

/* ---- The shape environment ------------------------------------------------ */

static sc_status add_symbols_of(sc_graph *g, sc_expr *e, sc_error *err)
{
    sc_expr *syms[16], **all = syms;
    size_t n, i;
    sc_status status = SC_OK;

    if (!e || sc_expr_is_int(e))
        return SC_OK;
    n = sc_expr_free_symbols(e, syms, 16);
    if (n == 0)
        return SC_OK;
    if (n > 16) {
        all = sc__malloc(n * sizeof *all);
        if (!all)
            return sc__error_nomem(err);
        n = sc_expr_free_symbols(e, all, n);
    }
    if (!g->env) {
        sc_env *env;
        SC_CHECK(sc_env_new(g->ctx, NULL, &env, err));
        g->env = env;
        g->owns_env = true;
    }
    for (i = 0; i < n; i++) {
        sc_expr *out;
        int64_t hint;
        if (sc_env_has_symbol(g->env, all[i]))
            continue;
        if (sc_graph_get_hint(g, all[i], &hint)) {
            unsigned flags = SC_ENV_NO_DUCK;
            if (hint < 2)
                flags |= SC_ENV_NO_SPECIALIZE_01;
            SC_CHECK(sc_env_create_backed_si(g->env, hint, NULL,
                                             sc_expr_symbol_name(all[i]),
                                             NULL, flags, &out, err));
        } else {
            SC_CHECK(sc_env_create_unbacked(g->env,
                                            sc_expr_symbol_name(all[i]),
                                            NULL, SC_ENV_SIZE_LIKE, &out,
                                            err));
        }
    }
fail:
    if (all != syms)
        sc__free(all);
    return status;
}

static sc_status add_symbols_of_value(sc_graph *g, const sc_value *v,
                                      int depth, sc_error *err)
{
    size_t i;

    if (depth > SC__GRAPH_MAX_DEPTH)
        return SC_OK;
    switch (v->kind) {
    case SC_VALUE_SYMINT:
        return add_symbols_of(g, v->u.expr, err);
    case SC_VALUE_LIST:
    case SC_VALUE_TUPLE:
        for (i = 0; i < v->u.list.n; i++)
            SC_TRY(add_symbols_of_value(g, &v->u.list.items[i], depth + 1,
                                        err));
        return SC_OK;
    case SC_VALUE_NODE: {
        sc_result r;
        sc_graph_node_result(g, v->u.node, &r);
        if (r.kind == SC_RESULT_SYMINT || r.kind == SC_RESULT_SYMBOOL)
            return add_symbols_of(g, r.expr, err);
        if (r.kind != SC_RESULT_TENSOR)
            return SC_OK;
        for (i = 0; i < r.tensor.ndim; i++) {
            SC_TRY(add_symbols_of(g, r.tensor.sizes[i], err));
            if (r.tensor.has_strides)
                SC_TRY(add_symbols_of(g, r.tensor.strides[i], err));
        }
        return SC_OK;
    }
    default:
        return SC_OK;
    }
}

/* ---- Running a rule ------------------------------------------------------------ */

static sc_status run_rule(sc_graph *g, sc_node_id id,
                          struct sc__shape_call *c, sc_error *err,
                          int depth);

sc_status sc__shape_getitem(struct sc__shape_call *c)
{
    const sc_value *self = sc__shape_arg(c, "self", NULL);
    int64_t index;
    struct sc__shape_call inner;

    if (!self || self->kind != SC_VALUE_NODE)
        return sc__shape_fail(c, SC_ERR_UNSUPPORTED, "not a node's element");
    SC_TRY(sc__shape_get_int(c, "index", 0, &index));
    SC_TRY(run_rule(c->g, self->u.node, &inner, c->err, 1));
    if (!inner.is_tuple)
        return sc__shape_fail(c, SC_ERR_UNSUPPORTED,
                              "'%s' is not a tuple",
                              sc_graph_node_name(c->g, self->u.node));
    if (index < 0)
        index += (int64_t)inner.nout;
    if (index < 0 || (uint64_t)index >= inner.nout)
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "index %lld out of range for '%s' of %zu "
                              "elements",
                              (long long)index,
                              sc_graph_node_name(c->g, self->u.node),
                              inner.nout);
    SC_TRY(sc__shape_outputs(c, 1));
    c->out[0] = inner.out[index];
    c->no_strides = inner.no_strides;
    return SC_OK;
}

static sc_status run_rule(sc_graph *g, sc_node_id id,
                          struct sc__shape_call *c, sc_error *err, int depth)
{
    const sc__node *n;
    const void *pos[SC_OP_MAX_ARGS_ + 1], *kwv[SC_OP_MAX_ARGS_ + 1];
    const sc__op_info *info;
    size_t i, nkw;
    sc__shape_fn fn;

    memset(c, 0, sizeof *c);
    c->g = g;
    c->ctx = g->ctx;
    c->id = id;
    c->err = err;
    if (id < 0 || (size_t)id >= g->nnodes)
        return sc__error_set(err, SC_ERR_INVALID, "no node %d", (int)id);
    n = &g->nodes[id];
    if (n->kind != SC_NODE_CALL || n->op == SC_OP_UNKNOWN || n->op < 0 ||
        n->op >= (int)SC_OP_COUNT_ || depth > 8)
        return sc__error_set(err, SC_ERR_UNSUPPORTED, "no shape rule");
    c->op = (sc__op)n->op;
    info = c->info = sc__op_get(c->op);
    fn = (unsigned)info->shape < SC_SHAPE_RULE_COUNT_
             ? sc__shape_rule_fns[info->shape]
             : NULL;
    if (!fn)
        return sc__error_set(err, SC_ERR_UNSUPPORTED, "no shape rule");
    nkw = n->nargs - n->npos;
    if (n->npos > SC_OP_MAX_ARGS_ || nkw > SC_OP_MAX_ARGS_)
        return sc__error_set(err, SC_ERR_TYPE, "%s: too many arguments",
                             info->dotted);
    for (i = 0; i < n->npos; i++)
        pos[i] = &n->args[i];
    for (i = 0; i < nkw; i++)
        kwv[i] = &n->args[n->npos + i];
    SC_TRY(sc__op_bind(c->op, n->npos, pos, nkw,
                       (const char *const *)n->kwnames, kwv, c->args, err));
    for (i = 0; i < n->nargs; i++) {
        SC_TRY(add_symbols_of_value(g, &n->args[i], 0, err));
    }
    c->env = g->env;
    c->is_tuple =
        info->returns_tuple || (info->nrets == 1 && info->rets[0].type.is_list);
    SC_TRY(fn(c));
    if (c->nout == 0 && !c->is_tuple)
        return sc__error_set(err, SC_ERR_INTERNAL, "%s: no result",
                             info->dotted);
    if (c->no_strides)
        for (i = 0; i < c->nout; i++)
            if (c->out[i].kind == SC_RESULT_TENSOR) {
                c->out[i].tensor.has_strides = false;
                c->out[i].tensor.strides = NULL;
            }
    return SC_OK;
}

sc_status sc__shape_infer(sc_graph *g, sc_node_id id, sc_result *out,
                          sc_error *err)
{
    struct sc__shape_call c;

    sc_result_init(out);
    SC_TRY(run_rule(g, id, &c, err, 0));
    if (c.is_tuple) {
        out->kind = SC_RESULT_TUPLE;
        out->count = c.nout;
    } else {
        *out = c.out[0];
    }
    return SC_OK;
}

/* ---- The memo of constant results ---------------------------------------------- */

/* Most nodes of a graph repeat one of a few calls: the same op on inputs
 * of the same shapes.  A rule's result is kept, keyed by everything the
 * rule can read: the op, the arguments (node arguments by their
 * metadata), the keyword names, and the node's own annotation (rules of
 * data-dependent ops read it).  Expressions are interned: keys hold their
 * addresses.  A result is kept only when the rule left the shape
 * environment as it was (no symbol, guard or runtime assertion added).
 * When every input size, stride and SymInt is an integer constant, and
 * the result too, the result cannot depend on the environment: it is
 * used whenever the key matches.  Otherwise (symbolic sizes, in a graph
 * with an environment) the rule's result depends on what the environment
 * knows, so the entry also holds the environment's state when it was
 * made (its symbol, guard and runtime-assertion counts, which only grow,
 * and the graph's hint epoch, which sc_graph_set_hint advances) and is
 * used only while that state is unchanged.  A node whose argument is a
 * tuple or has no metadata is not kept (getitem's rule reads the tuple's
 * own inputs), nor a SymBool result. */
#define MEMO_SLOTS 1024   /* direct-mapped */
#define MEMO_KEY_MAX 128  /* words */

typedef struct env_mark {
    const sc_env *env;
    size_t symbols, guards, asserts, hints, hint_epoch;
} env_mark;

typedef struct memo_entry {
    uint64_t *block; /* sc__malloc: the key's words, then the result's dims */
    size_t nkey;
    sc_result res;   /* its dims in block */
    /* NULL, or (a symbolic result) the state of the environment it holds
     * in, in block */
    const struct env_mark *made;
} memo_entry;

struct sc__shape_memo {
    memo_entry e[MEMO_SLOTS];
};

void sc__shape_memo_free(struct sc__shape_memo *m)
{
    size_t i;
    if (!m)
        return;
    for (i = 0; i < MEMO_SLOTS; i++)
        sc__free(m->e[i].block);
    sc__free(m);
}

typedef struct {
    uint64_t w[MEMO_KEY_MAX];
    size_t n;
    bool ok;
    bool allow_symbolic; /* the graph has an environment */
    bool symbolic;       /* an expression of the key is not a constant */
} memo_key;

static void kput(memo_key *k, uint64_t v)
{
    if (k->n < MEMO_KEY_MAX)
        k->w[k->n++] = v;
    else
        k->ok = false;
}

static void key_expr(memo_key *k, const sc_expr *e)
{
    if (!e) {
        k->ok = false;
        return;
    }
    if (!sc_expr_is_int(e)) {
        if (!k->allow_symbolic) {
            k->ok = false;
            return;
        }
        k->symbolic = true;
    }
    kput(k, (uint64_t)(uintptr_t)e);
}

/* Node id's metadata; own: the node checked (no metadata, or a tuple,
 * is then part of the key, not a refusal). */
static void key_node(memo_key *k, const sc_graph *g, sc_node_id id, bool own)
{
    const sc__node *n;
    size_t i, nd;

    if (id < 0 || (size_t)id >= g->nnodes) {
        k->ok = false;
        return;
    }
    n = &g->nodes[id];
    kput(k, (uint64_t)n->rkind | (uint64_t)n->dtype << 8 |
                (uint64_t)n->flags << 16 | (uint64_t)n->dev_type << 24 |
                (uint64_t)(uint16_t)n->dev_index << 32);
    kput(k, n->ndim);
    switch ((sc_result_kind)n->rkind) {
    case SC_RESULT_TENSOR:
        nd = (size_t)n->ndim * (n->flags & SC__NODE_HAS_STRIDES ? 2 : 1);
        if (nd && !n->meta.dims) {
            k->ok = false;
            return;
        }
        for (i = 0; i < nd && k->ok; i++)
            key_expr(k, n->meta.dims[i]);
        return;
    case SC_RESULT_SYMINT:
    case SC_RESULT_SYMBOOL:
        key_expr(k, n->meta.expr);
        return;
    case SC_RESULT_NONE:
        return;
    default:
        if (!own)
            k->ok = false;
        return;
    }
}

static void key_value(memo_key *k, const sc_graph *g, const sc_value *v,
                      int depth)
{
    uint64_t bits;
    size_t i;

    kput(k, (uint64_t)v->kind);
    switch (v->kind) {
    case SC_VALUE_NONE:
        return;
    case SC_VALUE_NODE:
        key_node(k, g, v->u.node, false);
        return;
    case SC_VALUE_INT:
        kput(k, (uint64_t)v->u.i);
        return;
    case SC_VALUE_SYMINT:
        key_expr(k, v->u.expr);
        return;
    case SC_VALUE_FLOAT:
        memcpy(&bits, &v->u.f.value, sizeof bits);
        kput(k, bits);
        return;
    case SC_VALUE_BOOL:
        kput(k, v->u.b ? 1 : 0);
        return;
    case SC_VALUE_DTYPE:
        kput(k, (uint64_t)v->u.dtype);
        return;
    case SC_VALUE_DEVICE:
        kput(k, (uint64_t)v->u.device.type);
        kput(k, (uint64_t)(int64_t)v->u.device.index);
        return;
    case SC_VALUE_LAYOUT:
        kput(k, (uint64_t)v->u.layout);
        return;
    case SC_VALUE_MEMORY_FORMAT:
        kput(k, (uint64_t)v->u.memory_format);
        return;
    case SC_VALUE_LIST:
    case SC_VALUE_TUPLE:
        if (depth >= 2 || v->u.list.n > MEMO_KEY_MAX) {
            k->ok = false;
            return;
        }
        kput(k, v->u.list.n);
        for (i = 0; i < v->u.list.n && k->ok; i++)
            key_value(k, g, &v->u.list.items[i], depth + 1);
        return;
    default: /* strings */
        k->ok = false;
        return;
    }
}

/* Append the key of node id's call (depth 0: the node checked; 1: the
 * tuple a getitem reads, whose rule getitem's runs). */
static void key_call(memo_key *k, const sc_graph *g, sc_node_id id,
                     int depth)
{
    const sc__node *n = &g->nodes[id];
    size_t i, j, len;

    if (n->kind != SC_NODE_CALL || n->op == SC_OP_UNKNOWN) {
        k->ok = false;
        return;
    }
    kput(k, (uint64_t)(uint16_t)n->op | (uint64_t)n->npos << 16 |
                (uint64_t)n->nargs << 32 | (uint64_t)depth << 48);
    for (i = n->npos; i < n->nargs && k->ok; i++) {
        const char *kw = n->kwnames ? n->kwnames[i - n->npos] : NULL;
        uint64_t w = 0;
        if (!kw) {
            k->ok = false;
            return;
        }
        len = strlen(kw);
        kput(k, len);
        for (j = 0; j < len; j++) {
            w = w << 8 | (unsigned char)kw[j];
            if (j % 8 == 7 || j + 1 == len) {
                kput(k, w);
                w = 0;
            }
        }
    }
    for (i = 0; i < n->nargs && k->ok; i++) {
        const sc_value *v = &n->args[i];
        /* getitem(t, i): its result is element i of t's rule, so t's
         * call (its own inputs) stands for t */
        if (depth == 0 && i == 0 && n->op == SC_OP_GETITEM &&
            v->kind == SC_VALUE_NODE && v->u.node >= 0 &&
            (size_t)v->u.node < g->nnodes && v->u.node != id &&
            g->nodes[v->u.node].rkind == SC_RESULT_TUPLE) {
            kput(k, 0x7475706c65ull); /* "tuple": not a value kind */
            key_call(k, g, v->u.node, 1);
            continue;
        }
        key_value(k, g, v, 0);
    }
    if (k->ok)
        key_node(k, g, id, true);
}

/* The key of node id's call; k->ok false when it has none. */
static void memo_key_of(memo_key *k, const sc_graph *g, sc_node_id id)
{
    k->n = 0;
    k->symbolic = false;
    k->allow_symbolic = g->env != NULL;
    k->ok = true;
    key_call(k, g, id, 0);
}

static size_t memo_slot(const memo_key *k)
{
    uint64_t h = 1469598103934665603ull;
    size_t i;
    for (i = 0; i < k->n; i++)
        h = (h ^ k->w[i]) * 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 40) & (MEMO_SLOTS - 1);
}

/* Can the result r be kept: 1 made of integer constants only, 2 with a
 * symbolic expression (kept only when symbolic is allowed), 0 not (a
 * missing expression, a SymBool). */
static int result_kind(const sc_result *r, bool symbolic)
{
    size_t i;
    int kind = 1;
    switch (r->kind) {
    case SC_RESULT_TENSOR:
        if (r->tensor.ndim > 4096 || (r->tensor.ndim && !r->tensor.sizes) ||
            (r->tensor.has_strides && r->tensor.ndim && !r->tensor.strides))
            return 0;
        for (i = 0; i < r->tensor.ndim; i++) {
            if (!r->tensor.sizes[i] ||
                (r->tensor.has_strides && !r->tensor.strides[i]))
                return 0;
            if (!sc_expr_is_int(r->tensor.sizes[i]) ||
                (r->tensor.has_strides &&
                 !sc_expr_is_int(r->tensor.strides[i])))
                kind = 2;
        }
        break;
    case SC_RESULT_SYMINT:
        if (!r->expr)
            return 0;
        if (!sc_expr_is_int(r->expr))
            kind = 2;
        break;
    case SC_RESULT_SYMBOOL:
        return 0;
    default:
        break;
    }
    return kind == 2 && !symbolic ? 0 : kind;
}


static void env_mark_of(const sc_graph *g, env_mark *m)
{
    m->env = g->env;
    m->symbols = g->env ? sc_env_symbol_count(g->env) : 0;
    m->guards = g->env ? sc_env_guard_count(g->env) : 0;
    m->asserts = g->env ? sc_env_runtime_assert_count(g->env) : 0;
    m->hints = g->env ? sc_env_hint_change_count(g->env) : 0;
    m->hint_epoch = g->hint_epoch;
}

static bool env_same(const env_mark *a, const env_mark *b)
{
    return a->env == b->env && a->symbols == b->symbols &&
           a->guards == b->guards && a->asserts == b->asserts &&
           a->hints == b->hints && a->hint_epoch == b->hint_epoch;
}

/* Keep result r (of the call with key k, made in environment state m;
 * symbolic: it depends on that state) in entry e, when memory allows (the
 * memo is only a shortcut). */
static void memo_store(memo_entry *e, const memo_key *k, const sc_result *r,
                       bool symbolic, const env_mark *m)
{
    size_t nd = 0;
    uint64_t *block;
    sc_expr **dims;
    env_mark *made;

    if (r->kind == SC_RESULT_TENSOR)
        nd = r->tensor.ndim * (r->tensor.has_strides ? 2 : 1);
    block = sc__malloc(k->n * sizeof *block + nd * sizeof *dims +
                       (symbolic ? sizeof *made : 0) + 1);
    if (!block)
        return;
    memcpy(block, k->w, k->n * sizeof *block);
    sc__free(e->block);
    e->block = block;
    e->nkey = k->n;
    e->res = *r;
    e->made = NULL;
    if (symbolic) {
        made = (env_mark *)(void *)((char *)block + k->n * sizeof *block +
                                    nd * sizeof *dims);
        *made = *m;
        e->made = made;
    }
    if (r->kind == SC_RESULT_TENSOR) {
        dims = (sc_expr **)(void *)(block + k->n);
        if (r->tensor.ndim)
            memcpy(dims, r->tensor.sizes, r->tensor.ndim * sizeof *dims);
        if (r->tensor.has_strides && r->tensor.ndim)
            memcpy(dims + r->tensor.ndim, r->tensor.strides,
                   r->tensor.ndim * sizeof *dims);
        e->res.tensor.sizes = r->tensor.ndim ? dims : NULL;
        e->res.tensor.strides =
            r->tensor.has_strides && r->tensor.ndim ? dims + r->tensor.ndim
                                                    : NULL;
    }
}

/* sc__shape_infer through the memo. */
static sc_status infer_memo(sc_graph *g, sc_node_id id, sc_result *out,
                            sc_error *err)
{
    memo_key k;
    memo_entry *e = NULL;
    env_mark before, after;
    sc_status st;
    int kind;

    if (id >= 0 && (size_t)id < g->nnodes) {
        memo_key_of(&k, g, id);
        if (k.ok && (g->shape_memo ||
                     (g->shape_memo = sc__calloc(1, sizeof *g->shape_memo)))) {
            e = &g->shape_memo->e[memo_slot(&k)];
            if (e->block && e->nkey == k.n &&
                memcmp(e->block, k.w, k.n * sizeof k.w[0]) == 0) {
                if (!e->made) {
                    *out = e->res;
                    return SC_OK;
                }
                env_mark_of(g, &before);
                if (env_same(e->made, &before)) {
                    *out = e->res;
                    return SC_OK;
                }
            }
        }
    }
    if (e)
        env_mark_of(g, &before);
    st = sc__shape_infer(g, id, out, err);
    if (e && st == SC_OK &&
        (kind = result_kind(out, k.allow_symbolic)) != 0) {
        env_mark_of(g, &after);
        if (env_same(&before, &after))
            memo_store(e, &k, out, k.symbolic || kind == 2, &before);
    }
    return st;
}

/* ---- Checking against the annotation ----------------------------------------------- */

/* a and b simplified by env: SC_OK, or the first failure (the caller tells
 * out-of-memory from "cannot simplify"). */
static sc_status simplify_both(sc_env *env, sc_expr *a, sc_expr *b,
                               sc_expr **sa, sc_expr **sb, sc_error *e)
{
    SC_TRY(sc_env_simplify(env, a, sa, e));
    return sc_env_simplify(env, b, sb, e);
}

/* Is a == b under what the environment knows?  *out is false when that
 * cannot be shown; running out of memory is the only error (it must not
 * pass for a mismatch).  Records nothing. */
static sc_status same_expr(sc_graph *g, sc_expr *a, sc_expr *b, bool *out,
                           sc_error *err)
{
    sc_expr *sa, *sb, *eq;
    sc_error e;
    sc_status st;
    sc_tri t;

    *out = a == b;
    if (*out)
        return SC_OK;
    if (!a || !b) /* a constructor failed */
        return sc_ctx_take_error(g->ctx, NULL) == SC_ERR_NOMEM
                   ? sc__error_nomem(err)
                   : SC_OK;
    if (!g->env)
        return SC_OK;
    st = simplify_both(g->env, a, b, &sa, &sb, &e);
    if (st == SC_ERR_NOMEM)
        return sc__error_nomem(err);
    if (st == SC_OK && sa == sb) {
        *out = true;
        return SC_OK;
    }
    eq = sc_expr_eq(g->ctx, a, b);
    if (!eq)
        return sc_ctx_take_error(g->ctx, NULL) == SC_ERR_NOMEM
                   ? sc__error_nomem(err)
                   : SC_OK;
    st = sc_env_statically_known(g->env, eq, 0, &t, &e);
    if (st == SC_ERR_NOMEM)
        return sc__error_nomem(err);
    *out = st == SC_OK && t == SC_TRI_TRUE;
    return SC_OK;
}

/* How an inferred expression relates to the declared one. */
typedef enum {
    MATCH_SAME,     /* provably equal: nothing to record */
    MATCH_GUARDED,  /* equal at the hints (or not decidable without the
                       values of unbacked symbols): accepted once the
                       equation is recorded (a guard or a runtime
                       assertion) */
    MATCH_DIFFERENT /* not equal */
} match_kind;

/* Decide how a (inferred) and b (declared) match; records nothing.  A
 * graph is valid only under the guards its trace recorded, and its printed
 * metadata reflect them (`f32[4, 1]` once Eq(s0, 4) was guarded), so an
 * annotation equal to the rule's result at the hints is what PyTorch's
 * tracer would have printed after guarding on that equality. */
static sc_status match_expr(sc_graph *g, sc_expr *a, sc_expr *b,
                            match_kind *out, sc_error *err)
{
    sc_expr *eq;
    sc_error e;
    sc_status st;
    sc_tri t;
    sc__gmp_guard guard;
    mpz_t h;
    bool same;

    *out = MATCH_DIFFERENT;
    SC_TRY(same_expr(g, a, b, &same, err));
    if (same) {
        *out = MATCH_SAME;
        return SC_OK;
    }
    if (!a || !b || !g->env)
        return SC_OK;
    eq = sc_expr_eq(g->ctx, a, b);
    if (!eq)
        return sc_ctx_take_error(g->ctx, NULL) == SC_ERR_NOMEM
                   ? sc__error_nomem(err)
                   : SC_OK;
    st = sc_env_statically_known(g->env, eq, 0, &t, &e);
    if (st == SC_ERR_NOMEM)
        return sc__error_nomem(err);
    if (st != SC_OK || t == SC_TRI_FALSE)
        return SC_OK;
    sc__gmp_push(&guard);
    if (setjmp(guard.env)) {
        sc__gmp_pop(&guard);
        return sc__error_nomem(err);
    }
    mpz_init(h);
    sc__gmp_pop(&guard);
    /* the equation at the hints: 1 or 0 (booleans evaluate to 0/1) */
    st = sc_env_hint(g->env, eq, h, &e);
    if (st == SC_OK)
        *out = mpz_sgn(h) != 0 ? MATCH_GUARDED : MATCH_DIFFERENT;
    else if (st == SC_ERR_DATA_DEPENDENT)
        *out = MATCH_GUARDED; /* unbacked: a runtime assertion */
    mpz_clear(h);
    return st == SC_ERR_NOMEM ? sc__error_nomem(err) : SC_OK;
}

static const char *kind_name(sc_result_kind k)
{
    switch (k) {
    case SC_RESULT_TENSOR:
        return "a tensor";
    case SC_RESULT_SYMINT:
        return "a SymInt";
    case SC_RESULT_SYMBOOL:
        return "a SymBool";
    case SC_RESULT_NONE:
        return "None";
    case SC_RESULT_TUPLE:
        return "a tuple";
    default:
        return "unknown";
    }
}

static sc_status expr_mismatch(sc_graph *g, sc_node_id id, const char *what,
                               size_t dim, sc_expr *inferred,
                               sc_expr *declared, sc_error *err)
{
    char *si = sc_expr_to_str(g->ctx, inferred);
    char *sd = sc_expr_to_str(g->ctx, declared);
    char where[48] = "";
    sc_status st;

    if (dim != (size_t)-1)
        snprintf(where, sizeof where, " of dim %zu", dim);
    st = sc__error_set(err, SC_ERR_SHAPE,
                       "node '%s' (%s): the shape rule gives %s%s = %s, "
                       "the annotation says %s",
                       sc_graph_node_name(g, id),
                       sc_graph_node_target(g, id), what, where,
                       si ? si : "?", sd ? sd : "?");
    free(si);
    free(sd);
    if (!si || !sd)
        sc_ctx_take_error(g->ctx, NULL);
    return st;
}

/* An equation the comparison accepted at the hints, recorded once the
 * whole result matched (a mismatch records nothing). */
typedef struct {
    const char *what;
    size_t dim;
    sc_expr *inferred, *declared;
} pending_eq;

typedef struct {
    pending_eq *items;
    size_t n, cap;
} pending_list;

/* Match one expression: SC_OK when accepted (a match at the hints is
 * appended to pl), else the mismatch error. */
static sc_status match_one(sc_graph *g, sc_node_id id, const char *what,
                           size_t dim, sc_expr *inferred, sc_expr *declared,
                           pending_list *pl, sc_error *err)
{
    match_kind m;
    SC_TRY(match_expr(g, inferred, declared, &m, err));
    if (m == MATCH_DIFFERENT)
        return expr_mismatch(g, id, what, dim, inferred, declared, err);
    if (m == MATCH_GUARDED) {
        if (pl->n == pl->cap) {
            size_t cap = pl->cap ? 2 * pl->cap : 8;
            pending_eq *p = sc__realloc(pl->items, cap * sizeof *p);
            if (!p)
                return sc__error_nomem(err);
            pl->items = p;
            pl->cap = cap;
        }
        pl->items[pl->n].what = what;
        pl->items[pl->n].dim = dim;
        pl->items[pl->n].inferred = inferred;
        pl->items[pl->n].declared = declared;
        pl->n++;
    }
    return SC_OK;
}

/* Record the accepted equations: torch._check(inferred == declared), a
 * guard when every symbol is backed, else a deferred runtime assertion.
 * One that the environment refuses (it learned a contradiction from an
 * earlier one) is the mismatch error. */
static sc_status record_pending(sc_graph *g, sc_node_id id,
                                const pending_list *pl, sc_error *err)
{
    size_t i;
    for (i = 0; i < pl->n; i++) {
        const pending_eq *p = &pl->items[i];
        sc_expr *eq = sc_expr_eq(g->ctx, p->inferred, p->declared);
        sc_error e;
        sc_status st;
        if (!eq)
            return sc_ctx_take_error(g->ctx, NULL) == SC_ERR_NOMEM
                       ? sc__error_nomem(err)
                       : expr_mismatch(g, id, p->what, p->dim, p->inferred,
                                       p->declared, err);
        st = sc_env_assert(g->env, eq, &e);
        if (st == SC_ERR_NOMEM)
            return sc__error_nomem(err);
        if (st != SC_OK)
            return expr_mismatch(g, id, p->what, p->dim, p->inferred,
                                 p->declared, err);
    }
    return SC_OK;
}

/* Compare an inferred result with the declared one; pl collects the
 * equations accepted at the hints. */
static sc_status compare(sc_graph *g, sc_node_id id, const sc_result *inf,
                         const sc_result *dec, pending_list *pl,
                         sc_error *err)
{
    const sc_tensor_meta *a = &inf->tensor, *b = &dec->tensor;
    bool same;
    size_t i;
    sc_expr *one;

    if (inf->kind == SC_RESULT_UNKNOWN || inf->kind == SC_RESULT_TUPLE ||
        dec->kind == SC_RESULT_UNKNOWN)
        return SC_OK;
    if (inf->kind != dec->kind)
        return sc__error_set(err, SC_ERR_SHAPE,
                             "node '%s' (%s): the shape rule gives %s, the "
                             "annotation says %s",
                             sc_graph_node_name(g, id),
                             sc_graph_node_target(g, id),
                             kind_name(inf->kind), kind_name(dec->kind));
    if (inf->kind == SC_RESULT_SYMINT)
        return match_one(g, id, "the value", (size_t)-1, inf->expr,
                         dec->expr, pl, err);
    if (inf->kind == SC_RESULT_SYMBOOL) {
        SC_TRY(same_expr(g, inf->expr, dec->expr, &same, err));
        if (!same)
            return expr_mismatch(g, id, "the value", (size_t)-1, inf->expr,
                                 dec->expr, err);
        return SC_OK;
    }
    if (inf->kind != SC_RESULT_TENSOR)
        return SC_OK;
    if (a->dtype != b->dtype)
        return sc__error_set(err, SC_ERR_SHAPE,
                             "node '%s' (%s): the shape rule gives dtype "
                             "%s, the annotation says %s",
                             sc_graph_node_name(g, id),
                             sc_graph_node_target(g, id),
                             sc_dtype_code(a->dtype), sc_dtype_code(b->dtype));
    if (a->ndim != b->ndim)
        return sc__error_set(err, SC_ERR_SHAPE,
                             "node '%s' (%s): the shape rule gives %zu "
                             "dims, the annotation says %zu",
                             sc_graph_node_name(g, id),
                             sc_graph_node_target(g, id), a->ndim, b->ndim);
    for (i = 0; i < a->ndim; i++)
        SC_TRY(match_one(g, id, "the size", i, a->sizes[i], b->sizes[i], pl,
                         err));
    if (a->has_strides && b->has_strides && a->ndim) {
        one = sc_expr_int_si(g->ctx, 1);
        for (i = 0; i < a->ndim; i++) {
            /* The stride of a dimension of size one does not matter (known
               without a guard: this asks nothing of the trace). */
            if (a->strides[i] == b->strides[i])
                continue; /* the same interned stride: nothing to ask */
            SC_TRY(same_expr(g, b->sizes[i], one, &same, err));
            if (!same)
                SC_TRY(match_one(g, id, "the stride", i, a->strides[i],
                                 b->strides[i], pl, err));
        }
    }
    if (a->has_device && b->has_device &&
        (a->device.type != b->device.type ||
         (a->device.index != b->device.index && a->device.index >= 0 &&
          b->device.index >= 0)))
        return sc__error_set(err, SC_ERR_SHAPE,
                             "node '%s' (%s): the shape rule gives device "
                             "%s, the annotation says %s",
                             sc_graph_node_name(g, id),
                             sc_graph_node_target(g, id),
                             sc_device_type_name(a->device.type),
                             sc_device_type_name(b->device.type));
    return SC_OK;
}

sc_status sc__shape_check_result(sc_graph *g, sc_node_id id,
                            const sc_result *inferred, sc_error *err)
{
    sc_result declared;
    pending_list pl = {NULL, 0, 0};
    sc_status status = SC_OK;

    sc_graph_node_result(g, id, &declared);
    SC_CHECK(compare(g, id, inferred, &declared, &pl, err));
    SC_CHECK(record_pending(g, id, &pl, err));
fail:
    sc__free(pl.items);
    return status;
}

sc_status sc__shape_check_node(sc_graph *g, sc_node_id id, bool declared,
                               sc_error *err)
{
    sc_result inferred;
    sc_error ierr;
    sc_status st;
    /* The rule's results (sc__shape_dims, sc__shape_outputs) go to the
     * graph's arena; checked against an annotation they are dropped:
     * the arena's head block is rewound to where it was (when the rule
     * did not start a new one), which saves about a hundred bytes a
     * node.  Nothing else is allocated in the arena meanwhile. */
    const sc__arena_block *head = g->arena.head;
    size_t used = g->arena.used;

    sc_error_init(&ierr);
    st = infer_memo(g, id, &inferred, &ierr);
    if (st == SC_ERR_SHAPE) {
        if (err)
            *err = ierr;
        return sc__error_set(err, st, "node '%s' (%s): %s",
                             sc_graph_node_name(g, id),
                             sc_graph_node_target(g, id), ierr.message);
    }
    if (st == SC_ERR_NOMEM)
        return sc__error_nomem(err);
    if (st != SC_OK)
        return SC_OK; /* no rule, or it cannot decide: keep the annotation */
    if (!declared) {
        /* no metadata given: take the inferred result, a tuple's kind and
           element count included (unbind, split: their getitems and
           sc_graph_node_result need the count) */
        if (inferred.kind == SC_RESULT_TUPLE) {
            /* the rule's count is exact: fixed, as a schema's is */
            SC_TRY(sc__graph_set_meta(g, &g->nodes[id], &inferred, err));
            g->nodes[id].flags |= SC__NODE_TUPLE_FIXED;
            return SC_OK;
        }
        if (inferred.kind == SC_RESULT_TENSOR ||
            inferred.kind == SC_RESULT_SYMINT ||
            inferred.kind == SC_RESULT_SYMBOOL)
            return sc__graph_set_meta(g, &g->nodes[id], &inferred, err);
        return SC_OK;
    }
    st = sc__shape_check_result(g, id, &inferred, err);
    if (g->arena.head == head && g->arena.used >= used)
        g->arena.used = used;
    return st;
}
