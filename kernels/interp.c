/* symcut — the interpreter: run a graph node by node through the op
 * table's kernels, binding symbols from the input sizes and from
 * data-dependent results, checking the shape environment, and accounting
 * for the bytes held (doc/interp.md). */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <symcut/guards.h>

#include "graph/ops.h"
#include "kernels/interp.h"
#include "kernels/peak.h"

/* ---- Runtime values ------------------------------------------------------ */

typedef enum ival_kind {
    IV_EMPTY,   /* not computed yet, or released */
    IV_NONE,
    IV_TENSOR,
    IV_INT,     /* a SymInt */
    IV_FLOAT,   /* a SymFloat (the value of a floating 0-d tensor) */
    IV_TUPLE    /* tensors (entries may be NULL) */
} ival_kind;

typedef struct ival {
    ival_kind kind;
    int64_t i;
    double f;   /* IV_FLOAT */
    sc_tensor *t;
    sc_tensor **ts;
    size_t n;
} ival;

/* ---- Byte accounting: distinct storages held by live values -------------- */

typedef struct acct_slot {
    const sc_storage *s;
    size_t refs;
    size_t size;
    bool input;
} acct_slot;

typedef struct acct {
    acct_slot *slots;
    size_t cap, used;
    size_t bytes, input_bytes;
} acct;

static size_t ptr_hash(const void *p)
{
    uint64_t x = (uint64_t)(uintptr_t)p;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return (size_t)x;
}

static acct_slot *acct_find(acct *a, const sc_storage *s)
{
    size_t i = ptr_hash(s) & (a->cap - 1);
    while (a->slots[i].s && a->slots[i].s != s)
        i = (i + 1) & (a->cap - 1);
    return &a->slots[i];
}

static bool acct_grow(acct *a)
{
    size_t ncap = a->cap ? a->cap * 2 : 64, i;
    acct_slot *old = a->slots, *ns = sc__calloc(ncap, sizeof *ns);
    size_t ocap = a->cap;
    if (!ns)
        return false;
    a->slots = ns;
    a->cap = ncap;
    for (i = 0; i < ocap; i++)
        if (old[i].s)
            *acct_find(a, old[i].s) = old[i];
    sc__free(old);
    return true;
}

static sc_status acct_add(acct *a, const sc_tensor *t, bool input,
                          sc_error *err)
{
    acct_slot *slot;
    if (!t || !t->storage)
        return SC_OK;
    if ((a->used + 1) * 2 > a->cap && !acct_grow(a))
        return sc__error_nomem(err);
    slot = acct_find(a, t->storage);
    if (!slot->s) {
        slot->s = t->storage;
        a->used++;
    }
    if (slot->refs++ == 0) {
        slot->size = t->storage->size;
        slot->input = input;
        a->bytes += slot->size;
        if (input)
            a->input_bytes += slot->size;
    }
    return SC_OK;
}

static void acct_remove(acct *a, const sc_tensor *t)
{
    acct_slot *slot;
    if (!t || !t->storage || !a->cap)
        return;
    slot = acct_find(a, t->storage);
    if (slot->s != t->storage || slot->refs == 0)
        return;
    if (--slot->refs == 0) {
        a->bytes -= slot->size;
        if (slot->input)
            a->input_bytes -= slot->size;
    }
}

static void acct_destroy(acct *a)
{
    sc__free(a->slots);
    memset(a, 0, sizeof *a);
}

/* ---- The interpreter state ------------------------------------------------ */

typedef struct interp {
    const sc_graph *g;
    sc_ctx *ctx;
    sc_env *env;
    const sc_interp_options *opts;
    sc_error *err;
    size_t nnodes;
    ival *vals;
    /* Nodes whose value dies after node u: die_list[die_off[u] ..
     * die_off[u+1]). */
    size_t *die_off;
    sc_node_id *die_list;
    sc_symmap *binding;
    /* Where each symbol (by context index) was bound, for messages. */
    size_t nsyms;
    sc_node_id *bound_node;
    int32_t *bound_dim;       /* -1: by the caller's sizes; -2: a replacement */
    bool *sym_checked;
    bool *guard_checked;
    bool *assert_checked;
    /* GMP scratch, allocated once (GMP's out-of-memory jumps must not
     * leak temporaries). */
    bool gmp_ready;
    sc_range range;
    mpz_t tmp, tmp2;
    acct acct;
    sc_interp_stats stats;
} interp;

/* -3 in bound_dim: a SymInt value (placeholder or node). */
#define BOUND_SIZES (-1)
#define BOUND_REPLACEMENT (-2)
#define BOUND_SYMINT (-3)

uint64_t sc_interp_node_key(const char *name)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (const unsigned char *p = (const unsigned char *)name; p && *p; p++) {
        h ^= *p;
        h *= 0x100000001b3ULL;
    }
    return h;
}

void sc_interp_options_init(sc_interp_options *opts)
{
    memset(opts, 0, sizeof *opts);
    opts->boundary = SC_NODE_NONE;
}

void sc__interp_free_tensors(sc_tensor **ts, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        sc_tensor_free(ts[i]);
        ts[i] = NULL;
    }
}

sc_status sc__interp_clone_tensors(sc_tensor *const *src, size_t n,
                                   sc_tensor **dst, sc_error *err)
{
    size_t i;
    sc_status status;
    for (i = 0; i < n; i++)
        dst[i] = NULL;
    for (i = 0; i < n; i++) {
        if (!src[i])
            continue;
        SC_CHECK(sc_tensor_clone(src[i], &dst[i], err));
    }
    return SC_OK;
fail:
    sc__interp_free_tensors(dst, i);
    return status;
}

static const char *node_name(const interp *in, sc_node_id id)
{
    return sc_graph_node_name(in->g, id);
}

/* Release a value: drop its storages from the accounting, free it. */
static void ival_release(interp *in, ival *v)
{
    size_t k;
    switch (v->kind) {
    case IV_TENSOR:
        acct_remove(&in->acct, v->t);
        sc_tensor_free(v->t);
        break;
    case IV_TUPLE:
        for (k = 0; k < v->n; k++) {
            acct_remove(&in->acct, v->ts[k]);
            sc_tensor_free(v->ts[k]);
        }
        sc__free(v->ts);
        break;
    default:
        break;
    }
    memset(v, 0, sizeof *v);
}

/* Account for a new value. */
static sc_status ival_hold(interp *in, const ival *v, bool input)
{
    size_t k;
    if (v->kind == IV_TENSOR)
        return acct_add(&in->acct, v->t, input, in->err);
    if (v->kind == IV_TUPLE)
        for (k = 0; k < v->n; k++)
            SC_TRY(acct_add(&in->acct, v->ts[k], input, in->err));
    return SC_OK;
}

/* ---- Symbols ---------------------------------------------------------------- */

static bool sym_index_ok(const interp *in, const sc_expr *sym)
{
    return sc_expr_symbol_index(sym) < in->nsyms;
}

static bool is_bound(const interp *in, const sc_expr *sym)
{
    return sc_symmap_get(in->binding, sym) != NULL;
}

static int64_t bound_value(const interp *in, const sc_expr *sym)
{
    int64_t v = 0;
    sc_expr *e = sc_symmap_get(in->binding, sym);
    if (e)
        sc_expr_value_si(e, &v);
    return v;
}

/* Are all free symbols of e bound? */
static bool all_bound(const interp *in, const sc_expr *e)
{
    sc_expr *stack[16], **syms = stack;
    size_t n = sc_expr_free_symbols(e, stack, 16), i;
    bool ok = true;
    if (n > 16) {
        syms = sc__malloc(n * sizeof *syms);
        if (!syms)
            return false;
        n = sc_expr_free_symbols(e, syms, n);
    }
    for (i = 0; i < n && ok; i++)
        ok = is_bound(in, syms[i]);
    if (syms != stack)
        sc__free(syms);
    return ok;
}

/* "s0 = 7, s1 = 16": the values of e's symbols. */
static void describe_symbols(const interp *in, const sc_expr *e, char *buf,
                             size_t size)
{
    sc_expr *syms[8];
    size_t n = sc_expr_free_symbols(e, syms, 8), i, len = 0;
    buf[0] = '\0';
    if (n > 8)
        n = 8;
    for (i = 0; i < n && len < size; i++) {
        int w;
        if (is_bound(in, syms[i]))
            w = snprintf(buf + len, size - len, "%s%s = %lld", i ? ", " : "",
                         sc_expr_symbol_name(syms[i]),
                         (long long)bound_value(in, syms[i]));
        else
            w = snprintf(buf + len, size - len, "%s%s unbound", i ? ", " : "",
                         sc_expr_symbol_name(syms[i]));
        if (w < 0)
            break;
        len += (size_t)w;
    }
}

/* Where sym was bound, in words. */
static void describe_binding(const interp *in, const sc_expr *sym, char *buf,
                             size_t size)
{
    size_t k = sc_expr_symbol_index(sym);
    if (!sym_index_ok(in, sym) || in->bound_node[k] == SC_NODE_NONE) {
        if (k < in->nsyms && in->bound_dim[k] == BOUND_SIZES)
            snprintf(buf, size, "given by the caller");
        else if (k < in->nsyms && in->bound_dim[k] == BOUND_REPLACEMENT)
            snprintf(buf, size, "from its replacement");
        else
            snprintf(buf, size, "bound earlier");
        return;
    }
    if (in->bound_dim[k] == BOUND_SYMINT)
        snprintf(buf, size, "bound by %s", node_name(in, in->bound_node[k]));
    else
        snprintf(buf, size, "bound by %s dim %d",
                 node_name(in, in->bound_node[k]), (int)in->bound_dim[k]);
}

static sc_status bind(interp *in, sc_expr *sym, int64_t value,
                      sc_node_id node, int32_t dim)
{
    SC_TRY(sc_symmap_set_si(in->binding, sym, value, in->err));
    if (sym_index_ok(in, sym)) {
        in->bound_node[sc_expr_symbol_index(sym)] = node;
        in->bound_dim[sc_expr_symbol_index(sym)] = dim;
    }
    return SC_OK;
}

static char *expr_text(interp *in, const sc_expr *e)
{
    char *s = sc_expr_to_str(in->ctx, e);
    if (!s)
        sc_ctx_take_error(in->ctx, NULL);
    return s;
}

/* Try to bind the one unbound symbol of e from e == actual: e after
 * substituting the bound symbols must be `x` or `c + k*x`.  *bound_one
 * tells whether it did; a non-integral solution leaves it false. */
static sc_status solve_for(interp *in, sc_expr *e, int64_t actual,
                           sc_node_id node, int32_t dim, bool *bound_one)
{
    sc_expr *r = sc_expr_subst(in->ctx, e, in->binding);
    *bound_one = false;
    if (!r)
        return sc_ctx_take_error(in->ctx, in->err);
    if (sc_expr_is_symbol(r)) {
        *bound_one = true;
        return bind(in, r, actual, node, dim);
    }
    if (sc_expr_node_kind(r) == SC_EXPR_ADD && sc_expr_arg_count(r) == 1 &&
        sc_expr_is_symbol(sc_expr_arg(r, 0))) {
        int64_t cv = 0, kv = 0;
        bool fits;
        sc__gmp_guard gg;
        sc__gmp_push(&gg);
        if (setjmp(gg.env)) {
            sc__gmp_pop(&gg);
            return sc__error_nomem(in->err);
        }
        sc_expr_add_constant(r, in->tmp);
        sc_expr_add_coef(r, 0, in->tmp2);
        sc__gmp_pop(&gg);
        fits = mpz_fits_slong_p(in->tmp) && mpz_fits_slong_p(in->tmp2);
        if (fits) {
            cv = mpz_get_si(in->tmp);
            kv = mpz_get_si(in->tmp2);
        }
        if (fits && kv != 0 && (actual - cv) % kv == 0) {
            *bound_one = true;
            return bind(in, sc_expr_arg(r, 0), (actual - cv) / kv, node, dim);
        }
    }
    return SC_OK;
}

/* Is v inside sym's range in the environment?  The range is left in
 * in->range. */
static sc_status in_range(interp *in, sc_expr *sym, int64_t v, bool *inside)
{
    sc__gmp_guard gg;
    sc_status status;
    sc__gmp_push(&gg);
    if (setjmp(gg.env)) {
        sc__gmp_pop(&gg);
        return sc__error_nomem(in->err);
    }
    SC_CHECK(sc_env_range(in->env, sym, &in->range, in->err));
    mpz_set_si(in->tmp, v);
    *inside = sc_range_contains_mpz(&in->range, in->tmp);
    status = SC_OK;
fail:
    sc__gmp_pop(&gg);
    return status;
}

/* Check every part of the environment whose symbols are now bound:
 * replacements (which may bind more symbols), ranges, guards, deferred
 * runtime assertions. */
static sc_status check_env(interp *in)
{
    sc_env *env = in->env;
    size_t i, n;
    bool changed = true;
    sc_status status = SC_OK;
    char vals[256];

    if (!env)
        return SC_OK;
    n = sc_env_symbol_count(env);
    while (changed) {
        changed = false;
        for (i = 0; i < n; i++) {
            sc_expr *sym = sc_env_symbol(env, i);
            sc_expr *rep = sc_env_replacement(env, sym);
            int64_t v;
            if (!rep || rep == sym || !all_bound(in, rep))
                continue;
            SC_TRY(sc_expr_eval_si(in->ctx, rep, in->binding, &v, in->err));
            if (!is_bound(in, sym)) {
                SC_TRY(bind(in, sym, v, SC_NODE_NONE, BOUND_REPLACEMENT));
                changed = true;
            } else if (bound_value(in, sym) != v) {
                char *t = expr_text(in, rep), where[160];
                describe_binding(in, sym, where, sizeof where);
                describe_symbols(in, rep, vals, sizeof vals);
                status = sc__error_set(
                    in->err, SC_ERR_GUARD,
                    "symbol %s = %lld (%s) violates its replacement %s = "
                    "%lld (%s)",
                    sc_expr_symbol_name(sym), (long long)bound_value(in, sym),
                    where, t ? t : "?", (long long)v, vals);
                free(t);
                return status;
            }
        }
    }
    for (i = 0; i < n; i++) {
        sc_expr *sym = sc_env_symbol(env, i);
        bool inside;
        if (!sym_index_ok(in, sym) ||
            in->sym_checked[sc_expr_symbol_index(sym)] || !is_bound(in, sym))
            continue;
        in->sym_checked[sc_expr_symbol_index(sym)] = true;
        SC_TRY(in_range(in, sym, bound_value(in, sym), &inside));
        if (!inside) {
            char *rt = sc_range_to_str(&in->range), where[160];
            describe_binding(in, sym, where, sizeof where);
            status = sc__error_set(
                in->err, SC_ERR_GUARD,
                "symbol %s = %lld (%s) is outside its range %s",
                sc_expr_symbol_name(sym), (long long)bound_value(in, sym),
                where, rt ? rt : "?");
            free(rt);
            return status;
        }
    }
    for (int pass = 0; pass < 2; pass++) {
        size_t count = pass == 0 ? sc_env_guard_count(env)
                                 : sc_env_runtime_assert_count(env);
        bool *checked = pass == 0 ? in->guard_checked : in->assert_checked;
        for (i = 0; i < count; i++) {
            sc_expr *e = pass == 0 ? sc_env_guard_at(env, i)
                                   : sc_env_runtime_assert(env, i);
            int64_t v;
            if (checked[i] || !all_bound(in, e))
                continue;
            checked[i] = true;
            SC_TRY(sc_expr_eval_si(in->ctx, e, in->binding, &v, in->err));
            if (!v) {
                char *t = expr_text(in, e);
                describe_symbols(in, e, vals, sizeof vals);
                status = sc__error_set(in->err, SC_ERR_GUARD,
                                       "%s %zu failed: %s (%s)",
                                       pass == 0 ? "guard"
                                                 : "runtime assertion",
                                       i, t ? t : "?", vals);
                free(t);
                return status;
            }
        }
    }
    return SC_OK;
}

/* Compare (or bind from) one size: e is the annotation, actual the value.
 * what/id/dim name it in messages.  check: compare when e is evaluable. */
static sc_status match_size(interp *in, sc_expr *e, int64_t actual,
                            const char *what, sc_node_id id, int32_t dim,
                            bool check, bool *progress)
{
    int64_t v;
    sc_status status;
    if (!all_bound(in, e)) {
        bool one;
        SC_TRY(solve_for(in, e, actual, id, dim, &one));
        if (one && progress)
            *progress = true;
        return SC_OK;
    }
    if (!check)
        return SC_OK;
    SC_TRY(sc_expr_eval_si(in->ctx, e, in->binding, &v, in->err));
    if (v != actual) {
        char *t = expr_text(in, e), vals[256], where[160] = "";
        describe_symbols(in, e, vals, sizeof vals);
        if (sc_expr_is_symbol(e))
            describe_binding(in, e, where, sizeof where);
        if (dim >= 0)
            status = sc__error_set(
                in->err, SC_ERR_SHAPE,
                "%s %s dim %d: size %lld does not match %s = %lld (%s%s%s)",
                what, node_name(in, id), (int)dim, (long long)actual,
                t ? t : "?", (long long)v, vals, where[0] ? ", " : "", where);
        else
            status = sc__error_set(
                in->err, SC_ERR_SHAPE,
                "%s %s: value %lld does not match %s = %lld (%s%s%s)", what,
                node_name(in, id), (long long)actual, t ? t : "?",
                (long long)v, vals, where[0] ? ", " : "", where);
        free(t);
        return status;
    }
    return SC_OK;
}

/* ---- Inputs --------------------------------------------------------------------- */

/* Bind the sizes the caller gave (in->opts->sizes) for the graph's
 * symbols. */
static sc_status bind_given_sizes(interp *in)
{
    const sc_graph *g = in->g;
    size_t ns = sc_graph_symbols(g, NULL, 0), k;
    sc_expr **syms = sc__calloc(ns ? ns : 1, sizeof *syms);
    sc_status status;
    if (!syms)
        return sc__error_nomem(in->err);
    ns = sc_graph_symbols(g, syms, ns);
    for (k = 0; k < ns; k++) {
        sc_expr *v = sc_symmap_get(in->opts->sizes, syms[k]);
        int64_t x;
        if (!v)
            continue;
        if (!sc_expr_value_si(v, &x))
            SC_CHECK(sc__error_set(in->err, SC_ERR_INVALID,
                                   "the size given for %s is not an "
                                   "integer",
                                   sc_expr_symbol_name(syms[k])));
        SC_CHECK(bind(in, syms[k], x, SC_NODE_NONE, BOUND_SIZES));
    }
    status = SC_OK;
fail:
    sc__free(syms);
    return status;
}

/* ---- The batch-norm statistics exception ------------------------------------ */

/* PyTorch's CPU batch norm keeps float32 save_mean and save_invstd for a
 * bf16/f16 input with float32 parameters (the kernels do too:
 * kernels/norm.c), while its meta function -- so the graphs' annotations
 * -- says the input's dtype.  The interpreter accepts a float32 tensor
 * where the annotation says bf16 or f16 in exactly two places: results 1
 * and 2 of a batch-norm op (getitem of the tuple), and a placeholder whose
 * every user is native_batch_norm_backward reading it as save_mean or
 * save_invstd (a backward graph receiving the forward's saved
 * statistics).  Everything else must match its annotation. */
static bool reduced_as_f32(sc_dtype annotated, sc_dtype got)
{
    return got == SC_DTYPE_F32 &&
           (annotated == SC_DTYPE_BF16 || annotated == SC_DTYPE_F16);
}

static bool is_batch_norm_op(int op)
{
    return op == SC_OP_NATIVE_BATCH_NORM ||
           op == SC_OP__NATIVE_BATCH_NORM_LEGIT_FUNCTIONAL ||
           op == SC_OP__NATIVE_BATCH_NORM_LEGIT ||
           op == SC_OP__NATIVE_BATCH_NORM_LEGIT_NO_STATS ||
           op == SC_OP__NATIVE_BATCH_NORM_LEGIT_NO_TRAINING;
}

bool sc__interp_bn_stat_f32(const sc_graph *g, sc_node_id id)
{
    const sc_value *c, *ix, *a;
    sc_result r;
    size_t k;
    bool any = false;
    if (sc__graph_node_op(g, id) != SC_OP_GETITEM)
        return false;
    c = sc_graph_node_arg(g, id, 0);
    ix = sc_graph_node_arg(g, id, 1);
    if (!c || !ix || c->kind != SC_VALUE_NODE || ix->kind != SC_VALUE_INT ||
        (ix->u.i != 1 && ix->u.i != 2) ||
        !is_batch_norm_op(sc__graph_node_op(g, c->u.node)))
        return false;
    /* the input bf16/f16, every tensor among weight, bias and the running
     * statistics (arguments 1 .. 4; no_stats has a bool at 3) float32 */
    a = sc_graph_node_arg(g, c->u.node, 0);
    if (!a || a->kind != SC_VALUE_NODE)
        return false;
    sc_graph_node_result(g, a->u.node, &r);
    if (r.kind != SC_RESULT_TENSOR ||
        (r.tensor.dtype != SC_DTYPE_BF16 && r.tensor.dtype != SC_DTYPE_F16))
        return false;
    for (k = 1; k <= 4; k++) {
        a = sc_graph_node_arg(g, c->u.node, k);
        if (!a || a->kind != SC_VALUE_NODE)
            continue;
        sc_graph_node_result(g, a->u.node, &r);
        if (r.kind != SC_RESULT_TENSOR)
            continue;
        if (r.tensor.dtype != SC_DTYPE_F32)
            return false;
        any = true;
    }
    return any;
}

/* Placeholder id is used (at least once) and only as save_mean or
 * save_invstd of native_batch_norm_backward, and is no graph output. */
static bool is_batch_norm_stat_input(const sc_graph *g, sc_node_id id)
{
    size_t nu = 0, u, k, na;
    const sc_node_id *users = sc_graph_node_users(g, id, &nu);
    if (!users || nu == 0 || sc_graph_node_output_use_count(g, id) != 0)
        return false;
    for (u = 0; u < nu; u++) {
        bool used = false;
        if (sc__graph_node_op(g, users[u]) != SC_OP_NATIVE_BATCH_NORM_BACKWARD)
            return false;
        na = sc_graph_node_arg_count(g, users[u]);
        for (k = 0; k < na; k++) {
            const sc_value *a = sc_graph_node_arg(g, users[u], k);
            if (!a || a->kind != SC_VALUE_NODE || a->u.node != id)
                continue;
            if (k != SC_KARG_NATIVE_BATCH_NORM_BACKWARD_SAVE_MEAN &&
                k != SC_KARG_NATIVE_BATCH_NORM_BACKWARD_SAVE_INVSTD)
                return false;
            used = true;
        }
        if (!used)
            return false; /* a use nested in a list, or a keyword */
    }
    return true;
}

/* Is e one of PyTorch's float symbols (`zf0`, `zuf0`: the value of a
 * SymFloat placeholder, a saved `.item()` of a float tensor)? */
static bool is_float_symbol(const sc_expr *e)
{
    const char *name = e && sc_expr_is_symbol(e) ? sc_expr_symbol_name(e)
                                                 : NULL;
    return name && (strncmp(name, "zf", 2) == 0 ||
                    strncmp(name, "zuf", 3) == 0);
}

static sc_status bind_inputs(interp *in, sc_tensor *const inputs[])
{
    const sc_graph *g = in->g;
    size_t np = sc_graph_placeholder_count(g), i, d;
    sc_status status = SC_OK;
    bool progress = true;
    int round;

    /* The caller's sizes first. */
    if (in->opts->sizes)
        SC_TRY(bind_given_sizes(in));

    for (i = 0; i < np; i++) {
        sc_result r;
        const sc_tensor *t = inputs[i];
        sc_node_id id = (sc_node_id)i;
        sc_graph_node_result(g, id, &r);
        if (!t)
            return sc__error_set(in->err, SC_ERR_INVALID,
                                 "input %s (placeholder %zu) is missing",
                                 node_name(in, id), i);
        if (r.kind == SC_RESULT_SYMINT) {
            if (t->ndim == 0 && sc__dtype_is_float(t->dtype) &&
                is_float_symbol(r.expr))
                continue; /* a SymFloat: its value, no size to bind */
            if (t->ndim != 0 || sc__dtype_is_float(t->dtype))
                return sc__error_set(in->err, SC_ERR_TYPE,
                                     "input %s is a SymInt: give a 0-d "
                                     "integer tensor",
                                     node_name(in, id));
        } else if (r.kind == SC_RESULT_TENSOR) {
            if (t->dtype != r.tensor.dtype &&
                !(reduced_as_f32(r.tensor.dtype, t->dtype) &&
                  is_batch_norm_stat_input(g, id)))
                return sc__error_set(
                    in->err, SC_ERR_TYPE,
                    "input %s (placeholder %zu): dtype %s, the graph "
                    "expects %s",
                    node_name(in, id), i, sc_dtype_code(t->dtype),
                    sc_dtype_code(r.tensor.dtype));
            if (t->ndim != r.tensor.ndim)
                return sc__error_set(
                    in->err, SC_ERR_SHAPE,
                    "input %s (placeholder %zu): %zu dimensions, the graph "
                    "expects %zu",
                    node_name(in, id), i, t->ndim, r.tensor.ndim);
        }
    }
    /* Bind bare symbols, then solve composite sizes until nothing moves,
     * then check everything. */
    for (round = 0; round < 2; round++) {
        progress = true;
        while (progress) {
            progress = false;
            for (i = 0; i < np; i++) {
                sc_result r;
                const sc_tensor *t = inputs[i];
                sc_node_id id = (sc_node_id)i;
                sc_graph_node_result(g, id, &r);
                if (r.kind == SC_RESULT_SYMINT && is_float_symbol(r.expr))
                    continue;
                if (r.kind == SC_RESULT_SYMINT && r.expr) {
                    int64_t v = sc_tensor_item_int64(t, 0);
                    if (round == 0 && !sc_expr_is_symbol(r.expr))
                        continue;
                    SC_TRY(match_size(in, r.expr, v, "input", id,
                                      BOUND_SYMINT, false, &progress));
                    continue;
                }
                if (r.kind != SC_RESULT_TENSOR)
                    continue;
                for (d = 0; d < r.tensor.ndim; d++) {
                    sc_expr *e = r.tensor.sizes[d];
                    if (round == 0 && !sc_expr_is_symbol(e))
                        continue;
                    SC_TRY(match_size(in, e, t->sizes[d], "input", id,
                                      (int32_t)d, false, &progress));
                }
            }
            if (round == 0)
                break;
        }
    }
    for (i = 0; i < np; i++) {
        sc_result r;
        const sc_tensor *t = inputs[i];
        sc_node_id id = (sc_node_id)i;
        sc_graph_node_result(g, id, &r);
        if (r.kind == SC_RESULT_SYMINT && is_float_symbol(r.expr))
            continue;
        if (r.kind == SC_RESULT_SYMINT && r.expr) {
            if (!all_bound(in, r.expr))
                goto unbound;
            SC_TRY(match_size(in, r.expr, sc_tensor_item_int64(t, 0),
                              "input", id, BOUND_SYMINT, true, NULL));
        } else if (r.kind == SC_RESULT_TENSOR) {
            for (d = 0; d < r.tensor.ndim; d++) {
                if (!all_bound(in, r.tensor.sizes[d])) {
                    char *tx = expr_text(in, r.tensor.sizes[d]);
                    status = sc__error_set(
                        in->err, SC_ERR_SHAPE,
                        "input %s dim %zu: cannot bind the symbols of its "
                        "size %s from the inputs",
                        node_name(in, id), d, tx ? tx : "?");
                    free(tx);
                    return status;
                }
                SC_TRY(match_size(in, r.tensor.sizes[d], t->sizes[d],
                                  "input", id, (int32_t)d, true, NULL));
            }
        }
        continue;
    unbound:
        return sc__error_set(in->err, SC_ERR_SHAPE,
                             "input %s: cannot bind the symbols of its value",
                             node_name(in, id));
    }
    return check_env(in);
}

/* ---- Argument conversion ---------------------------------------------------- */

typedef struct call_scratch {
    sc__arena arena;
    sc_tensor **temps; /* 0-d tensors made for numbers given as Tensors */
    size_t ntemps, temps_cap;
} call_scratch;

static sc_status scratch_temp(interp *in, call_scratch *cs, sc_dtype dt,
                              double v, const sc_tensor **out)
{
    sc_tensor *t = NULL;
    if (!sc__grow((void **)&cs->temps, &cs->temps_cap, cs->ntemps + 1,
                  sizeof *cs->temps))
        return sc__error_nomem(in->err);
    SC_TRY(sc_tensor_new_scalar(dt, v, &t, in->err));
    cs->temps[cs->ntemps++] = t;
    *out = t;
    return SC_OK;
}

static void scratch_destroy(call_scratch *cs)
{
    sc__interp_free_tensors(cs->temps, cs->ntemps);
    sc__free(cs->temps);
    sc__arena_destroy(&cs->arena);
}

static sc_status value_not_ready(interp *in, sc_node_id user, sc_node_id id)
{
    return sc__error_set(in->err, SC_ERR_INTERNAL,
                         "node %s: the value of %s is not available",
                         node_name(in, user), node_name(in, id));
}

/* SC_OK when status is SC_OK, else status with "node <user>: " put before
 * the message; for SC_TRY. */
static sc_status for_user(interp *in, sc_node_id user, sc_status status)
{
    char msg[SC_ERROR_MESSAGE_MAX];
    if (status == SC_OK)
        return SC_OK;
    snprintf(msg, sizeof msg, "%s", in->err ? in->err->message : "");
    return sc__error_set(in->err, status, "node %s: %s", node_name(in, user),
                         msg);
}

/* An integer from a scalar value (INT, SYMINT, BOOL, or a SymInt node). */
static sc_status value_int(interp *in, sc_node_id user, const sc_value *v,
                           int64_t *out, bool *ok)
{
    *ok = true;
    switch (v->kind) {
    case SC_VALUE_INT: *out = v->u.i; return SC_OK;
    case SC_VALUE_BOOL: *out = v->u.b; return SC_OK;
    case SC_VALUE_SYMINT:
        SC_TRY(for_user(in, user, sc_expr_eval_si(in->ctx, v->u.expr,
                                                  in->binding, out,
                                                  in->err)));
        return SC_OK;
    case SC_VALUE_NODE: {
        const ival *x = &in->vals[v->u.node];
        if (x->kind == IV_INT) {
            *out = x->i;
            return SC_OK;
        }
        if (x->kind == IV_EMPTY)
            return value_not_ready(in, user, v->u.node);
        *ok = false;
        return SC_OK;
    }
    default:
        *ok = false;
        return SC_OK;
    }
}

/* Does node id's kernel read a Python number at a Tensor argument
 * itself?  The pointwise ops do (sc__pw_get_operand). */
static bool takes_numbers(const interp *in, sc_node_id id)
{
    int op = sc__graph_node_op(in->g, id);
    return op >= 0 && op < (int)SC_OP_COUNT_ &&
           sc__op_get((sc__op)op)->cls == SC_CLASS_POINTWISE;
}

static sc_status to_karg(interp *in, sc_node_id user, call_scratch *cs,
                         const sc__type *ty, const sc_value *v, sc__karg *out);

static sc_status list_karg(interp *in, sc_node_id user, call_scratch *cs,
                           const sc__type *ty, const sc_value *v,
                           sc__karg *out)
{
    size_t n = v->u.list.n, k;
    const sc_value *items = v->u.list.items;
    sc__type_base base = ty ? ty->base : SC_TYPE_ANY;

    if (base == SC_TYPE_ANY || base == SC_TYPE_SCALAR) {
        /* infer from the first element that is not None */
        base = SC_TYPE_INT;
        for (k = 0; k < n; k++) {
            const sc_value *it = &items[k];
            if (it->kind == SC_VALUE_NONE)
                continue;
            if (it->kind == SC_VALUE_FLOAT)
                base = SC_TYPE_FLOAT;
            else if (it->kind == SC_VALUE_BOOL)
                base = SC_TYPE_BOOL;
            else if (it->kind == SC_VALUE_NODE &&
                     in->vals[it->u.node].kind == IV_FLOAT)
                base = SC_TYPE_FLOAT;
            else if (it->kind == SC_VALUE_NODE &&
                     in->vals[it->u.node].kind != IV_INT)
                base = SC_TYPE_TENSOR;
            break;
        }
    }
    switch (base) {
    case SC_TYPE_TENSOR: {
        const sc_tensor **ts =
            sc__arena_alloc(&cs->arena, (n ? n : 1) * sizeof *ts);
        if (!ts)
            return sc__error_nomem(in->err);
        for (k = 0; k < n; k++) {
            sc__karg a;
            if (items[k].kind == SC_VALUE_NONE) {
                ts[k] = NULL;
                continue;
            }
            SC_TRY(to_karg(in, user, cs, NULL, &items[k], &a));
            if (a.kind == SC__KARG_INT || a.kind == SC__KARG_FLOAT ||
                a.kind == SC__KARG_BOOL) {
                SC_TRY(scratch_temp(
                  in, cs,
                  a.kind == SC__KARG_FLOAT ? SC_DTYPE_F32
                  : a.kind == SC__KARG_BOOL ? SC_DTYPE_B8 : SC_DTYPE_I64,
                  a.kind == SC__KARG_FLOAT ? a.u.f
                  : a.kind == SC__KARG_BOOL ? (double)a.u.b : (double)a.u.i,
                  &ts[k]));
                continue;
            }
            if (a.kind != SC__KARG_TENSOR && a.kind != SC__KARG_NONE)
                return sc__error_set(in->err, SC_ERR_TYPE,
                                     "node %s: a Tensor list holds a "
                                     "non-tensor",
                                     node_name(in, user));
            ts[k] = a.kind == SC__KARG_TENSOR ? a.u.t : NULL;
        }
        out->kind = SC__KARG_TENSORS;
        out->u.tensors.n = n;
        out->u.tensors.v = ts;
        return SC_OK;
    }
    case SC_TYPE_FLOAT:
    case SC_TYPE_SYMFLOAT: {
        double *fs = sc__arena_alloc(&cs->arena, (n ? n : 1) * sizeof *fs);
        if (!fs)
            return sc__error_nomem(in->err);
        for (k = 0; k < n; k++) {
            int64_t iv;
            bool ok;
            if (items[k].kind == SC_VALUE_FLOAT) {
                fs[k] = items[k].u.f.value;
                continue;
            }
            if (items[k].kind == SC_VALUE_NODE &&
                in->vals[items[k].u.node].kind == IV_FLOAT) {
                fs[k] = in->vals[items[k].u.node].f;
                continue;
            }
            SC_TRY(value_int(in, user, &items[k], &iv, &ok));
            if (!ok)
                return sc__error_set(in->err, SC_ERR_TYPE,
                                     "node %s: expected a float list",
                                     node_name(in, user));
            fs[k] = (double)iv;
        }
        out->kind = SC__KARG_FLOATS;
        out->u.floats.n = n;
        out->u.floats.v = fs;
        return SC_OK;
    }
    case SC_TYPE_BOOL:
    case SC_TYPE_SYMBOOL: {
        bool *bs = sc__arena_alloc(&cs->arena, (n ? n : 1) * sizeof *bs);
        if (!bs)
            return sc__error_nomem(in->err);
        for (k = 0; k < n; k++) {
            int64_t iv;
            bool ok;
            SC_TRY(value_int(in, user, &items[k], &iv, &ok));
            if (!ok)
                return sc__error_set(in->err, SC_ERR_TYPE,
                                     "node %s: expected a bool list",
                                     node_name(in, user));
            bs[k] = iv != 0;
        }
        out->kind = SC__KARG_BOOLS;
        out->u.bools.n = n;
        out->u.bools.v = bs;
        return SC_OK;
    }
    default: {
        int64_t *is = sc__arena_alloc(&cs->arena, (n ? n : 1) * sizeof *is);
        if (!is)
            return sc__error_nomem(in->err);
        for (k = 0; k < n; k++) {
            bool ok;
            SC_TRY(value_int(in, user, &items[k], &is[k], &ok));
            if (!ok)
                return sc__error_set(in->err, SC_ERR_TYPE,
                                     "node %s: expected an int list",
                                     node_name(in, user));
        }
        out->kind = SC__KARG_INTS;
        out->u.ints.n = n;
        out->u.ints.v = is;
        return SC_OK;
    }
    }
}

/* A scalar int for a fixed-size list type (`int[2] padding=0`): the list
 * of list_size copies. */
static sc_status expand_int(interp *in, call_scratch *cs, const sc__type *ty,
                            int64_t v, sc__karg *out)
{
    if (ty && ty->is_list && ty->list_size > 0 &&
        (ty->base == SC_TYPE_INT || ty->base == SC_TYPE_SYMINT)) {
        int64_t *is = sc__arena_alloc(&cs->arena, ty->list_size * sizeof *is);
        size_t k;
        if (!is)
            return sc__error_nomem(in->err);
        for (k = 0; k < ty->list_size; k++)
            is[k] = v;
        out->kind = SC__KARG_INTS;
        out->u.ints.n = ty->list_size;
        out->u.ints.v = is;
        return SC_OK;
    }
    if (ty && !ty->is_list &&
        (ty->base == SC_TYPE_FLOAT || ty->base == SC_TYPE_SYMFLOAT)) {
        out->kind = SC__KARG_FLOAT;
        out->u.f = (double)v;
        return SC_OK;
    }
    out->kind = SC__KARG_INT;
    out->u.i = v;
    return SC_OK;
}

static sc_status to_karg(interp *in, sc_node_id user, call_scratch *cs,
                         const sc__type *ty, const sc_value *v, sc__karg *out)
{
    memset(out, 0, sizeof *out);
    switch (v->kind) {
    case SC_VALUE_NONE:
        out->kind = SC__KARG_NONE;
        return SC_OK;
    case SC_VALUE_NODE: {
        const ival *x = &in->vals[v->u.node];
        switch (x->kind) {
        case IV_TENSOR:
            out->kind = SC__KARG_TENSOR;
            out->u.t = x->t;
            return SC_OK;
        case IV_INT:
            return expand_int(in, cs, ty, x->i, out);
        case IV_FLOAT:
            /* A SymFloat is a Python float to the kernel, where the
             * schema says Scalar, float or Tensor (as a SymInt is a
             * Python int: the pointwise kernels give it a Python
             * number's place in type promotion, as PyTorch's scalar
             * wrapping does). */
            if (ty && ty->is_list)
                return sc__error_set(in->err, SC_ERR_TYPE,
                                     "node %s: a SymFloat (%s) where a "
                                     "list is expected",
                                     node_name(in, user),
                                     node_name(in, v->u.node));
            if (ty && (ty->base == SC_TYPE_INT || ty->base == SC_TYPE_SYMINT))
                return sc__error_set(in->err, SC_ERR_TYPE,
                                     "node %s: a SymFloat (%s) where an "
                                     "int is expected",
                                     node_name(in, user),
                                     node_name(in, v->u.node));
            out->kind = SC__KARG_FLOAT;
            out->u.f = x->f;
            return SC_OK;
        case IV_NONE:
            out->kind = SC__KARG_NONE;
            return SC_OK;
        case IV_TUPLE:
            out->kind = SC__KARG_TENSORS;
            out->u.tensors.n = x->n;
            out->u.tensors.v = (const sc_tensor *const *)x->ts;
            return SC_OK;
        default:
            return value_not_ready(in, user, v->u.node);
        }
    }
    case SC_VALUE_INT:
    case SC_VALUE_SYMINT: {
        int64_t iv;
        bool ok;
        SC_TRY(value_int(in, user, v, &iv, &ok));
        if (ty && !ty->is_list && ty->base == SC_TYPE_TENSOR) {
            out->kind = SC__KARG_INT;
            out->u.i = iv;
            goto number_tensor;
        }
        return expand_int(in, cs, ty, iv, out);
    }
    case SC_VALUE_FLOAT:
        out->kind = SC__KARG_FLOAT;
        out->u.f = v->u.f.value;
        /* The pointwise kernels take a Python float where the schema
         * says Tensor, as PyTorch's wrapped numbers: promoted as a number
         * and exact in the computation (an f64 tensor times 0.1 is
         * multiplied by the double 0.1, not by 0.1f). */
        if (ty && !ty->is_list && ty->base == SC_TYPE_TENSOR &&
            !takes_numbers(in, user))
            goto number_tensor;
        return SC_OK;
    case SC_VALUE_BOOL:
        out->kind = SC__KARG_BOOL;
        out->u.b = v->u.b;
        if (ty && !ty->is_list && ty->base == SC_TYPE_TENSOR)
            goto number_tensor;
        return SC_OK;
    case SC_VALUE_STRING:
        out->kind = SC__KARG_STR;
        out->u.s = v->u.str;
        return SC_OK;
    case SC_VALUE_DTYPE:
        out->kind = SC__KARG_DTYPE;
        out->u.dtype = v->u.dtype;
        return SC_OK;
    case SC_VALUE_DEVICE:
        out->kind = SC__KARG_STR;
        out->u.s = sc_device_type_name(v->u.device.type);
        return SC_OK;
    case SC_VALUE_LAYOUT:
        out->kind = SC__KARG_STR;
        out->u.s = sc_layout_name(v->u.layout);
        return SC_OK;
    case SC_VALUE_MEMORY_FORMAT:
        out->kind = SC__KARG_STR;
        out->u.s = sc_memory_format_name(v->u.memory_format);
        return SC_OK;
    case SC_VALUE_LIST:
    case SC_VALUE_TUPLE:
        return list_karg(in, user, cs, ty, v, out);
    }
    return sc__error_set(in->err, SC_ERR_TYPE, "node %s: unknown value kind",
                         node_name(in, user));

number_tensor: {
    /* A Python number where a Tensor is expected: a 0-d tensor of the
     * default dtype of its kind. */
    sc_dtype dt = out->kind == SC__KARG_FLOAT  ? SC_DTYPE_F32
                  : out->kind == SC__KARG_BOOL ? SC_DTYPE_B8
                                               : SC_DTYPE_I64;
    double dv = out->kind == SC__KARG_FLOAT  ? out->u.f
                : out->kind == SC__KARG_BOOL ? (double)out->u.b
                                             : (double)out->u.i;
    const sc_tensor *t;
    SC_TRY(scratch_temp(in, cs, dt, dv, &t));
    out->kind = SC__KARG_TENSOR;
    out->u.t = t;
    return SC_OK;
}
}

static sc_status default_karg(interp *in, call_scratch *cs,
                              const sc__op_arg *a, sc__karg *out)
{
    const sc__default *d = &a->def;
    size_t k;
    memset(out, 0, sizeof *out);
    switch (d->kind) {
    case SC_DEF_ABSENT:
    case SC_DEF_NONE:
        out->kind = SC__KARG_NONE;
        return SC_OK;
    case SC_DEF_BOOL:
        out->kind = SC__KARG_BOOL;
        out->u.b = d->i != 0;
        return SC_OK;
    case SC_DEF_INT:
        if (a->type.base == SC_TYPE_FLOAT && !a->type.is_list) {
            out->kind = SC__KARG_FLOAT;
            out->u.f = (double)d->i;
            return SC_OK;
        }
        return expand_int(in, cs, &a->type, d->i, out);
    case SC_DEF_FLOAT:
        out->kind = SC__KARG_FLOAT;
        out->u.f = d->f;
        return SC_OK;
    case SC_DEF_STR:
    case SC_DEF_LAYOUT:
    case SC_DEF_MEMORY_FORMAT:
        out->kind = SC__KARG_STR;
        out->u.s = d->s;
        return SC_OK;
    case SC_DEF_SCALAR_TYPE: {
        sc_dtype dt;
        if (!d->s || !sc_dtype_from_torch_name(d->s, strlen(d->s), &dt))
            return sc__error_set(in->err, SC_ERR_UNSUPPORTED,
                                 "unknown default dtype '%s'",
                                 d->s ? d->s : "");
        out->kind = SC__KARG_DTYPE;
        out->u.dtype = dt;
        return SC_OK;
    }
    case SC_DEF_INT_LIST:
        out->kind = SC__KARG_INTS;
        out->u.ints.n = d->n;
        out->u.ints.v = d->ints;
        if (d->n == 1 && a->type.list_size > 1)
            return expand_int(in, cs, &a->type, d->ints[0], out);
        return SC_OK;
    case SC_DEF_FLOAT_LIST:
        out->kind = SC__KARG_FLOATS;
        out->u.floats.n = d->n;
        out->u.floats.v = d->floats;
        return SC_OK;
    case SC_DEF_BOOL_LIST: {
        bool *bs = sc__arena_alloc(&cs->arena, (d->n ? d->n : 1) * sizeof *bs);
        if (!bs)
            return sc__error_nomem(in->err);
        for (k = 0; k < d->n; k++)
            bs[k] = d->ints[k] != 0;
        out->kind = SC__KARG_BOOLS;
        out->u.bools.n = d->n;
        out->u.bools.v = bs;
        return SC_OK;
    }
    }
    out->kind = SC__KARG_NONE;
    return SC_OK;
}

/* ---- Executing one node ------------------------------------------------------- */

/* Prefix the error message with the node's name and op. */
static sc_status node_error(interp *in, sc_node_id id, sc_status status)
{
    char msg[SC_ERROR_MESSAGE_MAX];
    if (!in->err || status == SC_ERR_NOMEM)
        return status;
    snprintf(msg, sizeof msg, "%s", in->err->message);
    return sc__error_set(in->err, status, "node %s (%s): %s",
                         node_name(in, id), sc_graph_node_target(in->g, id),
                         msg[0] ? msg : sc_status_str(status));
}

/* SC_OK when status is SC_OK, else status with node id's context added
 * (node_error); for SC_TRY / SC_CHECK. */
static sc_status at_node(interp *in, sc_node_id id, sc_status status)
{
    return status == SC_OK ? SC_OK : node_error(in, id, status);
}

static sc_status run_getitem(interp *in, sc_node_id id, ival *res)
{
    const sc_value *c = sc_graph_node_arg(in->g, id, 0);
    const sc_value *ix = sc_graph_node_arg(in->g, id, 1);
    const ival *x;
    int64_t i;
    bool ok;

    if (!c || !ix || c->kind != SC_VALUE_NODE)
        return sc__error_set(in->err, SC_ERR_TYPE,
                             "node %s: getitem needs a node and an index",
                             node_name(in, id));
    x = &in->vals[c->u.node];
    SC_TRY(value_int(in, id, ix, &i, &ok));
    if (!ok)
        return sc__error_set(in->err, SC_ERR_TYPE,
                             "node %s: getitem index is not an integer",
                             node_name(in, id));
    if (x->kind == IV_EMPTY)
        return value_not_ready(in, id, c->u.node);
    if (x->kind != IV_TUPLE)
        return sc__error_set(in->err, SC_ERR_UNSUPPORTED,
                             "node %s: getitem of %s, which is not a tuple",
                             node_name(in, id), node_name(in, c->u.node));
    if (i < 0)
        i += (int64_t)x->n;
    if (i < 0 || (uint64_t)i >= x->n)
        return sc__error_set(in->err, SC_ERR_INVALID,
                             "node %s: index out of range for %s (%zu "
                             "elements)",
                             node_name(in, id), node_name(in, c->u.node),
                             x->n);
    if (!x->ts[i]) {
        res->kind = IV_NONE;
        return SC_OK;
    }
    SC_TRY(sc_tensor_alias(x->ts[i], &res->t, in->err));
    res->kind = IV_TENSOR;
    return SC_OK;
}

/* The number of results a list-returning kernel may produce: bounded by
 * the largest size and list length among its arguments. */
static size_t max_results(const sc__karg *args, size_t n, size_t meta_count)
{
    size_t m = SC_OP_MAX_RETS_ + meta_count + 4, k, d;
    for (k = 0; k < n; k++) {
        if (args[k].kind == SC__KARG_TENSOR && args[k].u.t)
            for (d = 0; d < args[k].u.t->ndim; d++)
                if ((size_t)args[k].u.t->sizes[d] + 4 > m)
                    m = (size_t)args[k].u.t->sizes[d] + 4;
        if (args[k].kind == SC__KARG_INTS && args[k].u.ints.n + 4 > m)
            m = args[k].u.ints.n + 4;
    }
    return m;
}

static sc_status run_kernel(interp *in, sc_node_id id, const sc__op_info *info,
                            ival *res)
{
    const sc_graph *g = in->g;
    size_t nargs = sc_graph_node_arg_count(g, id);
    size_t npos = sc_graph_node_positional_count(g, id), k;
    call_scratch cs;
    const void **pos = NULL, **kwv = NULL;
    const char **kwn = NULL;
    sc__bound_arg bound[SC_OP_MAX_ARGS_];
    sc__karg kargs[SC_OP_MAX_ARGS_];
    sc__kernel_call call;
    sc_tensor **outs = NULL;
    size_t max_outs;
    sc_result meta;
    sc_status status;

    memset(&cs, 0, sizeof cs);
    sc__arena_init(&cs.arena);
    memset(&call, 0, sizeof call);
    pos = sc__arena_alloc(&cs.arena, (nargs + 1) * sizeof *pos);
    kwv = sc__arena_alloc(&cs.arena, (nargs + 1) * sizeof *kwv);
    kwn = sc__arena_alloc(&cs.arena, (nargs + 1) * sizeof *kwn);
    if (!pos || !kwv || !kwn) {
        status = sc__error_nomem(in->err);
        goto fail;
    }
    for (k = 0; k < npos; k++)
        pos[k] = sc_graph_node_arg(g, id, k);
    for (k = npos; k < nargs; k++) {
        kwv[k - npos] = sc_graph_node_arg(g, id, k);
        kwn[k - npos] = sc_graph_node_kwname(g, id, k);
    }
    SC_CHECK(at_node(in, id,
                     sc__op_bind((sc__op)sc__graph_node_op(g, id), npos, pos,
                                 nargs - npos, kwn, kwv, bound, in->err)));
    for (k = 0; k < info->nargs; k++) {
        if (bound[k].source == SC_ARG_DEFAULT || !bound[k].value)
            SC_CHECK(at_node(in, id, default_karg(in, &cs, &info->args[k],
                                                  &kargs[k])));
        else
            SC_CHECK(at_node(in, id,
                             to_karg(in, id, &cs, &info->args[k].type,
                                     (const sc_value *)bound[k].value,
                                     &kargs[k])));
    }
    sc_graph_node_result(g, id, &meta);
    max_outs = max_results(kargs, info->nargs,
                           meta.kind == SC_RESULT_TUPLE ? meta.count : 0);
    outs = sc__calloc(max_outs, sizeof *outs);
    if (!outs) {
        status = sc__error_nomem(in->err);
        goto fail;
    }
    call.args = kargs;
    call.nargs = info->nargs;
    call.outs = outs;
    call.max_outs = max_outs;
    call.seed = in->opts->seed;
    call.node_key = sc_interp_node_key(node_name(in, id));
    call.err = in->err;
    status = sc__kernel_fns[info->kernel](&call);
    in->stats.kernel_calls++;
    if (status != SC_OK) {
        sc__out_reset(&call);
        goto fail_node;
    }

    if (info->is_inplace && info->nmutates > 0 &&
        kargs[info->mutates[0]].kind == SC__KARG_TENSOR && call.nouts >= 1 &&
        outs[0]) {
        /* A functional kernel for an in-place op: write the result into
         * the mutated argument, which is also the op's result. */
        sc_tensor *self = (sc_tensor *)kargs[info->mutates[0]].u.t;
        status = sc_tensor_copy(self, outs[0], in->err);
        if (status == SC_OK)
            status = sc_tensor_alias(self, &res->t, in->err);
        sc__interp_free_tensors(outs, call.nouts);
        if (status != SC_OK)
            goto fail_node;
        res->kind = IV_TENSOR;
    } else if (info->returns_tuple ||
               (info->nrets == 1 && info->rets[0].type.is_list)) {
        res->ts = sc__calloc(call.nouts ? call.nouts : 1, sizeof *res->ts);
        if (!res->ts) {
            sc__interp_free_tensors(outs, call.nouts);
            status = sc__error_nomem(in->err);
            goto fail;
        }
        memcpy(res->ts, outs, call.nouts * sizeof *outs);
        res->n = call.nouts;
        res->kind = IV_TUPLE;
    } else if (info->nrets == 0) {
        sc__interp_free_tensors(outs, call.nouts);
        res->kind = IV_NONE;
    } else if (call.nouts < 1 || !outs[0]) {
        sc__interp_free_tensors(outs, call.nouts);
        res->kind = IV_NONE;
    } else if ((info->rets[0].type.base == SC_TYPE_SYMFLOAT ||
                info->rets[0].type.base == SC_TYPE_FLOAT ||
                info->rets[0].type.base == SC_TYPE_SCALAR) &&
               outs[0]->ndim == 0 && sc__dtype_is_float(outs[0]->dtype)) {
        /* a SymFloat (torch.sym_float, `.item()` of a float tensor): the
         * kernel's 0-d float64 tensor, held as a Python float */
        res->f = sc_tensor_item_double(outs[0], 0);
        res->kind = IV_FLOAT;
        sc__interp_free_tensors(outs, call.nouts);
    } else if (info->rets[0].type.base == SC_TYPE_SYMINT ||
               info->rets[0].type.base == SC_TYPE_INT ||
               (info->rets[0].type.base == SC_TYPE_SCALAR &&
                meta.kind == SC_RESULT_SYMINT)) {
        res->i = sc_tensor_item_int64(outs[0], 0);
        res->kind = IV_INT;
        sc__interp_free_tensors(outs, call.nouts);
    } else {
        res->t = outs[0];
        outs[0] = NULL;
        sc__interp_free_tensors(outs, call.nouts);
        res->kind = IV_TENSOR;
    }
    sc__free(outs);
    scratch_destroy(&cs);
    return SC_OK;

fail_node:
    status = node_error(in, id, status);
fail:
    sc__free(outs);
    scratch_destroy(&cs);
    return status;
}

/* Check a result against its annotation, binding unbacked symbols. */
static sc_status check_result(interp *in, sc_node_id id, const ival *v)
{
    sc_result r;
    bool check = !(in->opts->flags & SC_INTERP_NO_META_CHECK);
    bool bound_new = false;
    size_t d;

    sc_graph_node_result(in->g, id, &r);
    if (r.kind == SC_RESULT_TENSOR && v->kind == IV_TENSOR) {
        if (check && r.tensor.dtype != v->t->dtype &&
            !(reduced_as_f32(r.tensor.dtype, v->t->dtype) &&
              sc__interp_bn_stat_f32(in->g, id)))
            return sc__error_set(in->err, SC_ERR_TYPE,
                                 "node %s: the kernel returned %s, the graph "
                                 "says %s",
                                 node_name(in, id), sc_dtype_code(v->t->dtype),
                                 sc_dtype_code(r.tensor.dtype));
        if (r.tensor.ndim != v->t->ndim) {
            if (!check)
                return SC_OK;
            return sc__error_set(in->err, SC_ERR_SHAPE,
                                 "node %s: the kernel returned %zu "
                                 "dimensions, the graph says %zu",
                                 node_name(in, id), v->t->ndim,
                                 r.tensor.ndim);
        }
        for (d = 0; d < r.tensor.ndim; d++) {
            SC_TRY(match_size(in, r.tensor.sizes[d], v->t->sizes[d], "node",
                              id, (int32_t)d, check, &bound_new));
        }
    } else if (r.kind == SC_RESULT_SYMINT && r.expr && v->kind == IV_INT) {
        SC_TRY(match_size(in, r.expr, v->i, "node", id, BOUND_SYMINT, check,
                          &bound_new));
    } else if (check && r.kind == SC_RESULT_TENSOR && v->kind != IV_TENSOR &&
               v->kind != IV_NONE) {
        return sc__error_set(in->err, SC_ERR_TYPE,
                             "node %s: the graph says a tensor, the kernel "
                             "returned something else",
                             node_name(in, id));
    }
    if (bound_new)
        return check_env(in);
    return SC_OK;
}

/* Give a fresh tensor result the layout its metadata states.  Kernels
 * write most results contiguously, while the graph (like PyTorch) keeps,
 * for instance, a permuted input's layout through an elementwise op; a
 * later view is valid only on the stated strides.  Views and in-place
 * results keep their aliasing layout; strides whose symbols are not bound
 * yet, and dims of size <= 1, are not compared. */
static sc_status conform_layout(interp *in, sc_node_id id,
                                const sc__op_info *info, ival *v)
{
    sc_result r;
    int64_t want[SC_TENSOR_MAX_DIMS];
    sc_tensor *t, *nt = NULL;
    bool differ = false;
    size_t d;
    sc_status status;

    if (v->kind != IV_TENSOR || !v->t || info->is_view || info->is_inplace ||
        (in->opts->flags & SC_INTERP_NO_META_CHECK))
        return SC_OK;
    if (sc__graph_node_op(in->g, id) == SC_OP_GETITEM) {
        /* an element of a tuple: conform it unless the tuple's op made
         * views (split, unbind) */
        const sc_value *a = sc_graph_node_arg(in->g, id, 0);
        int op;
        if (!a || a->kind != SC_VALUE_NODE)
            return SC_OK;
        op = sc__graph_node_op(in->g, a->u.node);
        if (op < 0 || op >= (int)SC_OP_COUNT_ || op == SC_OP_GETITEM ||
            sc__op_get((sc__op)op)->is_view)
            return SC_OK;
    }
    t = v->t;
    sc_graph_node_result(in->g, id, &r);
    if (r.kind != SC_RESULT_TENSOR || !r.tensor.strides ||
        r.tensor.ndim != t->ndim || t->ndim > SC_TENSOR_MAX_DIMS)
        return SC_OK;
    for (d = 0; d < t->ndim; d++) {
        if (t->sizes[d] == 0)
            return SC_OK; /* no elements: any layout */
        if (!all_bound(in, r.tensor.strides[d]))
            return SC_OK;
        SC_TRY(at_node(in, id,
                       sc_expr_eval_si(in->ctx, r.tensor.strides[d],
                                       in->binding, &want[d], in->err)));
        if (t->sizes[d] > 1 && want[d] != t->strides[d])
            differ = true;
    }
    if (!differ)
        return SC_OK;
    for (d = 0; d < t->ndim; d++)
        if (t->sizes[d] <= 1)
            want[d] = t->strides[d] >= 0 ? t->strides[d] : 1;
    SC_CHECK(sc_tensor_new_strided(t->dtype, t->ndim, t->sizes, want, &nt,
                                   in->err));
    SC_CHECK(sc_tensor_copy(nt, t, in->err));
    sc_tensor_free(t);
    v->t = nt;
    return SC_OK;
fail:
    sc_tensor_free(nt);
    return node_error(in, id, status);
}

static sc_status run_node(interp *in, sc_node_id id)
{
    int op = sc__graph_node_op(in->g, id);
    const sc__op_info *info;
    ival res;
    sc_status status;

    memset(&res, 0, sizeof res);
    if (op == SC_OP_UNKNOWN || op < 0 || op >= (int)SC_OP_COUNT_)
        return sc__error_set(in->err, SC_ERR_UNSUPPORTED,
                             "node %s: op %s has no kernel: not in the op "
                             "table",
                             node_name(in, id),
                             sc_graph_node_target(in->g, id));
    info = sc__op_get((sc__op)op);
    if (op == SC_OP_GETITEM) {
        status = run_getitem(in, id, &res);
    } else if (info->kernel == SC_KERNEL_NONE_ || info->kernel < 0 ||
               info->kernel >= SC_KERNEL_COUNT_ ||
               !sc__kernel_fns[info->kernel]) {
        return sc__error_set(in->err, SC_ERR_UNSUPPORTED,
                             "node %s: op %s has no kernel: %s",
                             node_name(in, id), info->dotted,
                             info->no_kernel_reason ? info->no_kernel_reason
                                                    : "none in the table");
    } else {
        status = run_kernel(in, id, info, &res);
    }
    SC_TRY(status);
    SC_TRY(conform_layout(in, id, info, &res));
    in->vals[id] = res;
    SC_TRY(ival_hold(in, &in->vals[id], false));
    return check_result(in, id, &in->vals[id]);
}

/* ---- Pre-flight: can every node run? ------------------------------------------ */

/* The dtype a value names that the kernels cannot compute with (a dtype
 * argument, in a list too); false when none. */
static bool value_bad_dtype(const sc_value *v, int depth, sc_dtype *out)
{
    size_t k;
    if (depth > 8)
        return false;
    if (v->kind == SC_VALUE_DTYPE && !sc_tensor_dtype_supported(v->u.dtype)) {
        *out = v->u.dtype;
        return true;
    }
    if (v->kind == SC_VALUE_LIST || v->kind == SC_VALUE_TUPLE)
        for (k = 0; k < v->u.list.n; k++)
            if (value_bad_dtype(&v->u.list.items[k], depth + 1, out))
                return true;
    return false;
}

/* The dtype node id produces or names that no kernel supports. */
static bool node_bad_dtype(const sc_graph *g, sc_node_id id, sc_dtype *out)
{
    sc_result r;
    size_t k, n;

    sc_graph_node_result(g, id, &r);
    if (r.kind == SC_RESULT_TENSOR && !sc_tensor_dtype_supported(r.tensor.dtype)) {
        *out = r.tensor.dtype;
        return true;
    }
    if (sc_graph_node_kind(g, id) != SC_NODE_CALL)
        return false;
    n = sc_graph_node_arg_count(g, id);
    for (k = 0; k < n; k++)
        if (value_bad_dtype(sc_graph_node_arg(g, id, k), 0, out))
            return true;
    return false;
}

/* Why node id cannot run (NULL: it can): its op is not in the table, or
 * the table gives it no kernel. */
static const char *node_no_kernel(const sc_graph *g, sc_node_id id)
{
    int op;
    const sc__op_info *info;

    if (sc_graph_node_kind(g, id) != SC_NODE_CALL)
        return NULL;
    op = sc__graph_node_op(g, id);
    if (op == SC_OP_UNKNOWN || op < 0 || op >= (int)SC_OP_COUNT_)
        return "not in the op table";
    if (op == SC_OP_GETITEM)
        return NULL;
    info = sc__op_get((sc__op)op);
    if (info->kernel == SC_KERNEL_NONE_ || info->kernel < 0 ||
        info->kernel >= SC_KERNEL_COUNT_ || !sc__kernel_fns[info->kernel])
        return info->no_kernel_reason ? info->no_kernel_reason
                                      : "no kernel in the op table";
    return NULL;
}

typedef struct preflight_item {
    const char *what;      /* op target, or dtype name */
    const char *reason;    /* NULL for a dtype */
    const char *first;     /* the first node */
    size_t count;
} preflight_item;

static void preflight_note(preflight_item *items, size_t *n, size_t max,
                           const char *what, const char *reason,
                           const char *node)
{
    size_t k;
    for (k = 0; k < *n; k++)
        if (strcmp(items[k].what, what) == 0) {
            items[k].count++;
            return;
        }
    if (*n < max) {
        items[*n].what = what;
        items[*n].reason = reason;
        items[*n].first = node;
        items[*n].count = 1;
        (*n)++;
    }
}

static void preflight_append(char *buf, size_t cap, size_t *len,
                             const char *fmt, ...) SC__PRINTF(4, 5);
static void preflight_append(char *buf, size_t cap, size_t *len,
                             const char *fmt, ...)
{
    va_list ap;
    int w;
    if (*len >= cap)
        return;
    va_start(ap, fmt);
    w = vsnprintf(buf + *len, cap - *len, fmt, ap);
    va_end(ap);
    if (w > 0)
        *len = *len + (size_t)w < cap ? *len + (size_t)w : cap;
}

sc_status sc_interp_preflight(const sc_graph *g, sc_error *err)
{
    enum { MAX_ITEMS = 64 };
    preflight_item ops[MAX_ITEMS], dts[MAX_ITEMS];
    size_t nops = 0, ndts = 0, n, k, len = 0, nbad_ops = 0;
    char msg[SC_ERROR_MESSAGE_MAX];
    sc_node_id id;

    sc_error_init(err);
    if (!g)
        return sc__error_set(err, SC_ERR_INVALID, "no graph");
    n = sc_graph_node_count(g);
    for (id = 0; (size_t)id < n; id++) {
        const char *why = node_no_kernel(g, id);
        sc_dtype dt;
        if (why) {
            preflight_note(ops, &nops, MAX_ITEMS, sc_graph_node_target(g, id),
                           why, sc_graph_node_name(g, id));
            nbad_ops++;
        }
        if (node_bad_dtype(g, id, &dt))
            preflight_note(dts, &ndts, MAX_ITEMS, sc_dtype_torch_name(dt),
                           NULL, sc_graph_node_name(g, id));
    }
    if (nops == 0 && ndts == 0)
        return SC_OK;
    msg[0] = '\0';
    if (nops)
        preflight_append(msg, sizeof msg, &len,
                         "%zu node%s cannot run (%zu op%s without a kernel:",
                         nbad_ops, nbad_ops == 1 ? "" : "s", nops,
                         nops == 1 ? "" : "s");
    for (k = 0; k < nops; k++)
        preflight_append(msg, sizeof msg, &len, "%s %s (%s; node %s%s)",
                         k ? "," : "", ops[k].what, ops[k].reason,
                         ops[k].first, ops[k].count > 1 ? " and more" : "");
    if (nops)
        preflight_append(msg, sizeof msg, &len, ")");
    if (ndts)
        preflight_append(msg, sizeof msg, &len,
                         "%sdtype%s the kernels do not support:",
                         nops ? "; " : "", ndts == 1 ? "" : "s");
    for (k = 0; k < ndts; k++)
        preflight_append(msg, sizeof msg, &len, "%s %s (node %s%s)",
                         k ? "," : "", dts[k].what, dts[k].first,
                         dts[k].count > 1 ? " and more" : "");
    preflight_append(msg, sizeof msg, &len, "; nothing was run");
    return sc__error_set(err, SC_ERR_UNSUPPORTED, "%s", msg);
}

static bool value_foreign_device(const sc_value *v, int depth,
                                 sc_device *out)
{
    size_t k;
    if (depth > 8)
        return false;
    if (v->kind == SC_VALUE_DEVICE && v->u.device.type != SC_DEVICE_CPU &&
        v->u.device.type != SC_DEVICE_META) {
        *out = v->u.device;
        return true;
    }
    if (v->kind == SC_VALUE_LIST || v->kind == SC_VALUE_TUPLE)
        for (k = 0; k < v->u.list.n; k++)
            if (value_foreign_device(&v->u.list.items[k], depth + 1, out))
                return true;
    return false;
}

size_t sc_interp_foreign_devices(const sc_graph *g, sc_device *first)
{
    size_t n = g ? sc_graph_node_count(g) : 0, count = 0, k, na;
    sc_node_id id;

    for (id = 0; (size_t)id < n; id++) {
        sc_result r;
        sc_device d;
        bool found = false;
        sc_graph_node_result(g, id, &r);
        if (r.kind == SC_RESULT_TENSOR && r.tensor.has_device &&
            r.tensor.device.type != SC_DEVICE_CPU &&
            r.tensor.device.type != SC_DEVICE_META) {
            d = r.tensor.device;
            found = true;
        }
        na = sc_graph_node_kind(g, id) == SC_NODE_CALL
                 ? sc_graph_node_arg_count(g, id)
                 : 0;
        for (k = 0; k < na && !found; k++)
            found = value_foreign_device(sc_graph_node_arg(g, id, k), 0, &d);
        if (!found)
            continue;
        if (count++ == 0 && first)
            *first = d;
    }
    return count;
}

/* ---- Liveness -------------------------------------------------------------------- */

static void mark_value_nodes(const sc_value *v, bool *mark, int depth)
{
    size_t k;
    if (depth > 64)
        return;
    if (v->kind == SC_VALUE_NODE)
        mark[v->u.node] = true;
    else if (v->kind == SC_VALUE_LIST || v->kind == SC_VALUE_TUPLE)
        for (k = 0; k < v->u.list.n; k++)
            mark_value_nodes(&v->u.list.items[k], mark, depth + 1);
}

/* The last call node on a path from a placeholder to a forward output. */
static sc_node_id forward_boundary(interp *in)
{
    const sc_graph *g = in->g;
    size_t nf = sc_graph_fwd_output_count(g), k, a;
    sc_node_id id, best = SC_NODE_NONE;
    bool *mark = sc__calloc(in->nnodes + 1, sizeof *mark);
    if (!mark)
        return SC_NODE_NONE;
    for (k = 0; k < nf; k++) {
        sc_node_id o = sc_graph_output(g, k);
        if (o != SC_NODE_NONE)
            mark[o] = true;
    }
    for (id = (sc_node_id)in->nnodes - 1; id >= 0; id--) {
        if (!mark[id] || sc_graph_node_kind(g, id) != SC_NODE_CALL)
            continue;
        if (best == SC_NODE_NONE)
            best = id;
        for (a = 0; a < sc_graph_node_arg_count(g, id); a++)
            mark_value_nodes(sc_graph_node_arg(g, id, a), mark, 0);
    }
    sc__free(mark);
    return best;
}

/* die lists: a value dies after its last user, or right away when it has
 * no user; values the outputs use never die. */
static sc_status build_die_lists(interp *in)
{
    const sc_graph *g = in->g;
    size_t n = in->nnodes, np = sc_graph_placeholder_count(g), i;
    sc_node_id *last = sc__malloc((n + 1) * sizeof *last);
    sc_status status = SC_OK;

    in->die_off = sc__calloc(n + 2, sizeof *in->die_off);
    in->die_list = sc__malloc((n + 1) * sizeof *in->die_list);
    if (!last || !in->die_off || !in->die_list) {
        status = sc__error_nomem(in->err);
        goto fail;
    }
    for (i = 0; i < n; i++) {
        size_t nu;
        const sc_node_id *users = sc_graph_node_users(g, (sc_node_id)i, &nu);
        sc_node_id l = (sc_node_id)i, k;
        if (sc_graph_node_output_use_count(g, (sc_node_id)i) > 0) {
            last[i] = SC_NODE_NONE;
            continue;
        }
        for (k = 0; k < (sc_node_id)nu; k++)
            if (users[k] > l)
                l = users[k];
        /* unused placeholders die once all inputs are bound */
        if (l == (sc_node_id)i && i < np && np > 0)
            l = (sc_node_id)(np - 1);
        last[i] = l;
    }
    for (i = 0; i < n; i++)
        if (last[i] != SC_NODE_NONE)
            in->die_off[last[i] + 1]++;
    for (i = 0; i < n; i++)
        in->die_off[i + 1] += in->die_off[i];
    {
        size_t *fill = sc__malloc((n + 1) * sizeof *fill);
        if (!fill) {
            status = sc__error_nomem(in->err);
            goto fail;
        }
        memcpy(fill, in->die_off, (n + 1) * sizeof *fill);
        for (i = 0; i < n; i++)
            if (last[i] != SC_NODE_NONE)
                in->die_list[fill[last[i]]++] = (sc_node_id)i;
        sc__free(fill);
    }
fail:
    sc__free(last);
    return status;
}

static void release_dead(interp *in, sc_node_id u)
{
    size_t k;
    for (k = in->die_off[u]; k < in->die_off[u + 1]; k++)
        ival_release(in, &in->vals[in->die_list[k]]);
}

static void note_peak(interp *in, sc_node_id id)
{
    if (in->acct.bytes > in->stats.peak_bytes ||
        in->stats.peak_node == SC_NODE_NONE) {
        in->stats.peak_bytes = in->acct.bytes;
        in->stats.peak_node = id;
    }
}

/* ---- The run ---------------------------------------------------------------------- */

static sc_status collect_outputs(interp *in, sc_tensor *outputs[])
{
    const sc_graph *g = in->g;
    size_t no = sc_graph_output_count(g), k;
    acct oacct;
    sc_status status = SC_OK;

    memset(&oacct, 0, sizeof oacct);
    for (k = 0; k < no; k++) {
        sc_node_id o = sc_graph_output(g, k);
        const ival *v;
        if (o == SC_NODE_NONE)
            continue;
        v = &in->vals[o];
        switch (v->kind) {
        case IV_TENSOR:
            SC_CHECK(sc_tensor_alias(v->t, &outputs[k], in->err));
            SC_CHECK(acct_add(&oacct, outputs[k], false, in->err));
            break;
        case IV_INT:
            SC_CHECK(sc_tensor_new_scalar(SC_DTYPE_I64, 0, &outputs[k],
                                          in->err));
            *(int64_t *)sc_tensor_data(outputs[k]) = v->i;
            break;
        case IV_FLOAT: /* a SymFloat output: a 0-d f64 tensor */
            SC_CHECK(sc_tensor_new_scalar(SC_DTYPE_F64, 0, &outputs[k],
                                          in->err));
            *(double *)sc_tensor_data(outputs[k]) = v->f;
            break;
        case IV_NONE:
            break;
        default:
            SC_CHECK(sc__error_set(in->err, SC_ERR_UNSUPPORTED,
                                   "output %zu (%s) is not a tensor, a "
                                   "SymInt or a SymFloat",
                                   k, node_name(in, o)));
        }
    }
fail:
    in->stats.output_bytes = oacct.bytes;
    acct_destroy(&oacct);
    if (status != SC_OK)
        sc__interp_free_tensors(outputs, no);
    return status;
}

static sc_status interp_init(interp *in, const sc_graph *g,
                             const sc_interp_options *opts, sc_error *err)
{
    size_t ng, ns;
    memset(in, 0, sizeof *in);
    in->g = g;
    in->ctx = sc_graph_ctx(g);
    in->env = sc_graph_env(g);
    in->opts = opts;
    in->err = err;
    in->nnodes = sc_graph_node_count(g);
    in->stats.peak_node = SC_NODE_NONE;
    in->stats.boundary_node = SC_NODE_NONE;
    ns = sc_ctx_symbol_count(in->ctx);
    in->nsyms = ns;
    ng = in->env ? sc_env_guard_count(in->env) : 0;
    in->vals = sc__calloc(in->nnodes + 1, sizeof *in->vals);
    in->binding = sc_symmap_new(in->ctx);
    in->bound_node = sc__malloc((ns + 1) * sizeof *in->bound_node);
    in->bound_dim = sc__calloc(ns + 1, sizeof *in->bound_dim);
    in->sym_checked = sc__calloc(ns + 1, sizeof *in->sym_checked);
    in->guard_checked = sc__calloc(ng + 1, sizeof *in->guard_checked);
    in->assert_checked = sc__calloc(
        (in->env ? sc_env_runtime_assert_count(in->env) : 0) + 1,
        sizeof *in->assert_checked);
    if (!in->vals || !in->binding || !in->bound_node || !in->bound_dim ||
        !in->sym_checked || !in->guard_checked || !in->assert_checked)
        return sc__error_nomem(err);
    {
        sc__gmp_guard gg;
        sc__gmp_push(&gg);
        if (setjmp(gg.env)) {
            sc__gmp_pop(&gg);
            return sc__error_nomem(err);
        }
        /* none of these allocates in GMP >= 6.2; if one does and fails,
         * the ones made are still valid for interp_destroy */
        sc_range_init(&in->range);
        mpz_init(in->tmp);
        mpz_init(in->tmp2);
        in->gmp_ready = true;
        sc__gmp_pop(&gg);
    }
    for (size_t k = 0; k < ns; k++)
        in->bound_node[k] = SC_NODE_NONE;
    return SC_OK;
}

static void interp_destroy(interp *in)
{
    size_t k;
    if (in->vals)
        for (k = 0; k < in->nnodes; k++)
            ival_release(in, &in->vals[k]);
    sc__free(in->vals);
    sc__free(in->die_off);
    sc__free(in->die_list);
    sc_symmap_free(in->binding);
    sc__free(in->bound_node);
    sc__free(in->bound_dim);
    sc__free(in->sym_checked);
    sc__free(in->guard_checked);
    sc__free(in->assert_checked);
    if (in->gmp_ready) {
        sc_range_clear(&in->range);
        mpz_clear(in->tmp);
        mpz_clear(in->tmp2);
    }
    acct_destroy(&in->acct);
}

sc_status sc_interp_run(const sc_graph *g, sc_tensor *const inputs[],
                        const sc_interp_options *opts, sc_tensor *outputs[],
                        sc_interp_stats *stats, sc_error *err)
{
    return sc__interp_run_held(g, inputs, opts, NULL, 0, outputs, stats, err);
}

sc_status sc__interp_run_held(const sc_graph *g, sc_tensor *const inputs[],
                              const sc_interp_options *opts,
                              sc_tensor *const held[], size_t nheld,
                              sc_tensor *outputs[], sc_interp_stats *stats,
                              sc_error *err)
{
    interp in;
    sc_interp_options defaults;
    size_t np, no, k;
    sc_node_id id, boundary;
    sc_status status;

    sc_error_init(err);
    if (!opts) {
        sc_interp_options_init(&defaults);
        opts = &defaults;
    }
    if (!g)
        return sc__error_set(err, SC_ERR_INVALID, "no graph");
    no = sc_graph_output_count(g);
    for (k = 0; k < no; k++)
        outputs[k] = NULL;
    np = sc_graph_placeholder_count(g);
    if (np > 0 && !inputs)
        return sc__error_set(err, SC_ERR_INVALID, "no inputs");
    SC_TRY(sc_interp_preflight(g, err));
    SC_CHECK(interp_init(&in, g, opts, err));
    SC_CHECK(build_die_lists(&in));
    boundary = opts->boundary;
    if (boundary == SC_INTERP_BOUNDARY_FORWARD)
        boundary = forward_boundary(&in);
    if (boundary != SC_NODE_NONE &&
        (boundary < 0 || (size_t)boundary >= in.nnodes))
        SC_CHECK(sc__error_set(err, SC_ERR_INVALID,
                               "boundary node %d is not in the graph",
                               (int)boundary));
    in.stats.boundary_node = boundary;
    for (k = 0; k < nheld; k++) /* held by the caller for the whole run */
        SC_CHECK(acct_add(&in.acct, held[k], false, err));

    SC_CHECK(bind_inputs(&in, inputs));
    for (k = 0; k < np; k++) {
        sc_result r;
        ival *v = &in.vals[k];
        sc_graph_node_result(g, (sc_node_id)k, &r);
        if (r.kind == SC_RESULT_SYMINT &&
            sc__dtype_is_float(inputs[k]->dtype)) {
            /* a SymFloat input (a saved .item() of a float tensor) */
            v->kind = IV_FLOAT;
            v->f = sc_tensor_item_double(inputs[k], 0);
            continue;
        }
        if (r.kind == SC_RESULT_SYMINT) {
            v->kind = IV_INT;
            v->i = sc_tensor_item_int64(inputs[k], 0);
            continue;
        }
        SC_CHECK(sc_tensor_alias(inputs[k], &v->t, err));
        v->kind = IV_TENSOR;
        SC_CHECK(ival_hold(&in, v, true));
    }
    if (np > 0) {
        note_peak(&in, (sc_node_id)(np - 1));
        release_dead(&in, (sc_node_id)(np - 1));
        if (boundary != SC_NODE_NONE && boundary < (sc_node_id)np) {
            in.stats.boundary_bytes = in.acct.bytes;
            in.stats.boundary_input_bytes = in.acct.input_bytes;
        }
    }
    for (id = (sc_node_id)np; (size_t)id < in.nnodes; id++) {
        SC_CHECK(run_node(&in, id));
        note_peak(&in, id);
        release_dead(&in, id);
        if (id == boundary) {
            in.stats.boundary_bytes = in.acct.bytes;
            in.stats.boundary_input_bytes = in.acct.input_bytes;
        }
    }
    SC_CHECK(collect_outputs(&in, outputs));
    if (stats)
        *stats = in.stats;
    status = SC_OK;
done:
    interp_destroy(&in);
    return status;
fail:
    for (k = 0; k < no; k++) {
        sc_tensor_free(outputs[k]);
        outputs[k] = NULL;
    }
    goto done;
}

/* ---- Sizes and random inputs -------------------------------------------------- */

static sc_status bind_expr_symbols(const sc_graph *g, sc_expr *e,
                                   const sc_symmap *sizes, sc_symmap *binding,
                                   sc_error *err)
{
    sc_expr *syms[32];
    size_t n = sc_expr_free_symbols(e, syms, 32), k;
    if (n > 32)
        return sc__error_set(err, SC_ERR_LIMIT,
                             "a size with more than 32 symbols");
    for (k = 0; k < n; k++) {
        sc_expr *v = sizes ? sc_symmap_get(sizes, syms[k]) : NULL;
        int64_t h;
        if (sc_symmap_get(binding, syms[k]))
            continue;
        if (v)
            SC_TRY(sc_symmap_set(binding, syms[k], v, err));
        else if (sc_graph_get_hint(g, syms[k], &h))
            SC_TRY(sc_symmap_set_si(binding, syms[k], h, err));
        else
            return sc__error_set(err, SC_ERR_UNBOUND,
                                 "symbol %s has no hint and no size was "
                                 "given for it",
                                 sc_expr_symbol_name(syms[k]));
    }
    return SC_OK;
}

sc_status sc_interp_bind_sizes(const sc_graph *g, const sc_symmap *sizes,
                               sc_symmap *binding, sc_error *err)
{
    size_t np = sc_graph_placeholder_count(g), i, d;
    for (i = 0; i < np; i++) {
        sc_result r;
        sc_graph_node_result(g, (sc_node_id)i, &r);
        if (r.kind == SC_RESULT_SYMINT && r.expr) {
            SC_TRY(bind_expr_symbols(g, r.expr, sizes, binding, err));
        } else if (r.kind == SC_RESULT_TENSOR) {
            for (d = 0; d < r.tensor.ndim; d++) {
                SC_TRY(bind_expr_symbols(g, r.tensor.sizes[d], sizes,
                                         binding, err));
            }
        }
    }
    return SC_OK;
}

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static sc_status random_input(const sc_graph *g, sc_node_id id,
                              const sc_symmap *binding, uint64_t seed,
                              int64_t int_high, sc_tensor **out, sc_error *err)
{
    sc_ctx *ctx = sc_graph_ctx(g);
    sc_result r;
    int64_t sizes[SC_TENSOR_MAX_DIMS];
    uint64_t state = seed ^ (sc_interp_node_key(sc_graph_node_name(g, id)) *
                             0x2545F4914F6CDD1DULL);
    size_t d, n, i, isz;
    unsigned char *p;

    *out = NULL;
    sc_graph_node_result(g, id, &r);
    if (r.kind == SC_RESULT_SYMINT && r.expr) {
        int64_t v;
        SC_TRY(sc_expr_eval_si(ctx, r.expr, binding, &v, err));
        SC_TRY(sc_tensor_new_scalar(SC_DTYPE_I64, 0, out, err));
        *(int64_t *)sc_tensor_data(*out) = v;
        return SC_OK;
    }
    if (r.kind != SC_RESULT_TENSOR)
        return sc__error_set(err, SC_ERR_INVALID,
                             "placeholder %s has no tensor annotation",
                             sc_graph_node_name(g, id));
    if (r.tensor.ndim > SC_TENSOR_MAX_DIMS)
        return sc__error_set(err, SC_ERR_UNSUPPORTED,
                             "placeholder %s has too many dimensions",
                             sc_graph_node_name(g, id));
    for (d = 0; d < r.tensor.ndim; d++) {
        SC_TRY(sc_expr_eval_si(ctx, r.tensor.sizes[d], binding, &sizes[d],
                               err));
        if (sizes[d] < 0)
            return sc__error_set(err, SC_ERR_SHAPE,
                                 "placeholder %s dim %zu has size %lld",
                                 sc_graph_node_name(g, id), d,
                                 (long long)sizes[d]);
    }
    SC_TRY(sc_tensor_new(r.tensor.dtype, r.tensor.ndim, sizes, out, err));
    n = sc_tensor_numel(*out);
    isz = sc_dtype_itemsize(r.tensor.dtype);
    p = sc_tensor_data(*out);
    for (i = 0; i < n; i++) {
        uint64_t x = splitmix64(&state);
        if (r.tensor.dtype == SC_DTYPE_B8)
            sc__store_i64(p + i * isz, SC_DTYPE_B8, (int64_t)(x >> 63));
        else if (sc__dtype_is_float(r.tensor.dtype))
            sc__store_f64(p + i * isz, r.tensor.dtype,
                          (double)(x >> 40) * 0x1p-23 - 1.0);
        else
            sc__store_i64(p + i * isz, r.tensor.dtype,
                          (int64_t)(x % (uint64_t)int_high));
    }
    return SC_OK;
}

sc_status sc_interp_random_inputs(const sc_graph *g, const sc_symmap *binding,
                                  uint64_t seed, int64_t int_high,
                                  sc_tensor *inputs[], sc_error *err)
{
    size_t np = sc_graph_placeholder_count(g), i;
    sc_status status;
    if (int_high <= 0)
        int_high = 2;
    for (i = 0; i < np; i++)
        inputs[i] = NULL;
    for (i = 0; i < np; i++)
        SC_CHECK(random_input(g, (sc_node_id)i, binding, seed, int_high,
                              &inputs[i], err));
    return SC_OK;
fail:
    sc__interp_free_tensors(inputs, np);
    return status;
}
