/* symcut — autodiff's formula helpers: the functions the generated
 * derivative code (graph/ops-autodiff-gen.c) calls by name to build
 * gradient nodes (sizes, strides, sum_to_size, cat_backward, ...), and the
 * broadcasting reduction the driver (graph/autodiff.c) uses to accumulate.
 * doc/autodiff.md lists them. */
#include <config.h>

#include <math.h>
#include <string.h>

#include <symcut/graph.h>
#include <symcut/guards.h>

#include "graph/autodiff.h"
#include "graph/autodiff-internal.h"
#include "graph/ops.h"
#include "util/internal.h"

/* ---- Helpers ---------------------------------------------------------------------- */

sc_status sc__ad_sizes_list(sc__ad *ad, size_t n, sc_expr *const *e,
                            sc_value *out)
{
    sc_value *items = sc__ad_alloc(ad, n * sizeof *items);
    size_t i;
    if (!items)
        return sc__error_nomem(ad->err);
    for (i = 0; i < n; i++)
        items[i] = sc__ad_expr_value(e[i]);
    *out = sc_value_list(n, items);
    return SC_OK;
}

/* The expressions of an int list value. */
static sc_status list_exprs(sc__ad *ad, const sc_value *v, size_t *n,
                            sc_expr ***out)
{
    size_t i;
    sc_expr **e;
    if (v->kind != SC_VALUE_LIST && v->kind != SC_VALUE_TUPLE)
        return sc__error_set(ad->err, SC_ERR_INVALID,
                             "node '%s': expected a list of sizes",
                             sc_graph_node_name(ad->fwd, ad->node));
    e = sc__ad_alloc(ad, v->u.list.n * sizeof *e);
    if (!e)
        return sc__error_nomem(ad->err);
    for (i = 0; i < v->u.list.n; i++) {
        e[i] = sc__ad_value_expr(ad, &v->u.list.items[i]);
        if (!e[i])
            return sc__error_set(ad->err, SC_ERR_INVALID,
                                 "node '%s': a size that is not an integer",
                                 sc_graph_node_name(ad->fwd, ad->node));
    }
    *n = v->u.list.n;
    *out = e;
    return SC_OK;
}

sc_status sc__ad_h_sym_sizes(sc__ad *ad, const sc_value *a, sc_value *out)
{
    sc_result r;
    SC_TRY(sc__ad_node_tensor(ad, &a[0], &r, "sym_sizes"));
    return sc__ad_sizes_list(ad, r.tensor.ndim, r.tensor.sizes, out);
}

sc_status sc__ad_h_sizes_or_none(sc__ad *ad, const sc_value *a,
                                 sc_value *out)
{
    if (a[0].kind == SC_VALUE_NONE) {
        *out = sc_value_none();
        return SC_OK;
    }
    return sc__ad_h_sym_sizes(ad, a, out);
}

sc_status sc__ad_h_sym_strides(sc__ad *ad, const sc_value *a, sc_value *out)
{
    sc_result r;
    SC_TRY(sc__ad_node_tensor(ad, &a[0], &r, "sym_strides"));
    /* A placeholder annotated without strides is contiguous (the shape
       rules' convention); another node without strides may be a view whose
       strides the graph lost. */
    if (!r.tensor.has_strides &&
        sc_graph_node_kind(ad->g, a[0].u.node) == SC_NODE_PLACEHOLDER)
        return sc__ad_contiguous_strides(ad, r.tensor.ndim, r.tensor.sizes,
                                         out);
    if (!r.tensor.has_strides)
        return sc__error_set(ad->err, SC_ERR_UNSUPPORTED,
                             "node '%s': sym_strides of '%s', which has no "
                             "strides", sc_graph_node_name(ad->fwd, ad->node),
                             sc_graph_node_name(ad->g, a[0].u.node));
    return sc__ad_sizes_list(ad, r.tensor.ndim, r.tensor.strides, out);
}

static sc_status norm_dim(sc__ad *ad, int64_t d, size_t nd, size_t *out)
{
    int64_t n = (int64_t)nd;
    if (d < -(n ? n : 1) || d >= (n ? n : 1))
        return sc__error_set(ad->err, SC_ERR_INVALID,
                             "node '%s': dimension %lld out of range for %zu "
                             "dims", sc_graph_node_name(ad->fwd, ad->node),
                             (long long)d, nd);
    *out = (size_t)(d < 0 ? d + (n ? n : 1) : d);
    return SC_OK;
}

sc_status sc__ad_h_sym_size(sc__ad *ad, const sc_value *a, sc_value *out)
{
    sc_result r;
    size_t d;
    SC_TRY(sc__ad_node_tensor(ad, &a[0], &r, "sym_size"));
    if (a[1].kind != SC_VALUE_INT)
        return sc__error_set(ad->err, SC_ERR_INVALID, "sym_size: bad dim");
    SC_TRY(norm_dim(ad, a[1].u.i, r.tensor.ndim, &d));
    *out = sc__ad_expr_value(r.tensor.sizes[d]);
    return SC_OK;
}

sc_status sc__ad_h_dim(sc__ad *ad, const sc_value *a, sc_value *out)
{
    sc_result r;
    SC_TRY(sc__ad_node_tensor(ad, &a[0], &r, "dim"));
    *out = sc_value_int((int64_t)r.tensor.ndim);
    return SC_OK;
}

sc_status sc__ad_h_sym_numel(sc__ad *ad, const sc_value *a, sc_value *out)
{
    sc_result r;
    sc_expr *e;
    SC_TRY(sc__ad_node_tensor(ad, &a[0], &r, "sym_numel"));
    e = sc_expr_mul_n(ad->ctx, r.tensor.ndim, r.tensor.sizes);
    if (!e)
        return sc__error_nomem(ad->err);
    *out = sc__ad_expr_value(e);
    return SC_OK;
}

sc_status sc__ad_h_scalar_type(sc__ad *ad, const sc_value *a, sc_value *out)
{
    sc_result r;
    SC_TRY(sc__ad_node_tensor(ad, &a[0], &r, "scalar_type"));
    out->kind = SC_VALUE_DTYPE;
    out->u.dtype = r.tensor.dtype;
    return SC_OK;
}

/* Is e 1: a constant, or an expression the shape environment knows is 1
 * (`s0 - 2` once a broadcast guarded s0 == 3)? */
static sc_status known_one(sc__ad *ad, sc_expr *e, bool *out)
{
    int64_t v;
    sc_env *env = sc_graph_env(ad->g);
    sc_expr *eq;
    sc_error e2;
    sc_tri t;
    sc_status st;
    *out = false;
    if (sc_expr_value_si(e, &v)) {
        *out = v == 1;
        return SC_OK;
    }
    if (!env)
        return SC_OK;
    eq = sc_expr_eq(ad->ctx, e, sc_expr_int_si(ad->ctx, 1));
    if (!eq)
        return sc__error_nomem(ad->err);
    st = sc_env_statically_known(env, eq, 0, &t, &e2);
    if (st == SC_ERR_NOMEM)
        return sc__error_nomem(ad->err);
    *out = st == SC_OK && t == SC_TRI_TRUE;
    return SC_OK;
}

/* at::sum_to: sum the leading dims and the dims where `to` is 1 and x is
 * not (keepdim), then view to `to` when leading dims were summed. */
sc_status sc__ad_sum_to(sc__ad *ad, sc_value x, size_t nd, sc_expr *const *to,
                        sc_value *out)
{
    sc_result r;
    sc_value dims, a[3], *items;
    size_t n, lead, i, k = 0;
    SC_TRY(sc__ad_node_tensor(ad, &x, &r, "sum_to_size"));
    n = r.tensor.ndim;
    if (nd > n)
        return sc__error_set(ad->err, SC_ERR_SHAPE,
                             "node '%s': cannot sum a %zu-dim gradient to "
                             "%zu dims", sc_graph_node_name(ad->fwd, ad->node),
                             n, nd);
    lead = n - nd;
    items = sc__ad_alloc(ad, n * sizeof *items);
    if (!items)
        return sc__error_nomem(ad->err);
    for (i = 0; i < n; i++) {
        bool reduce = i < lead, one = false;
        if (!reduce)
            SC_TRY(known_one(ad, to[i - lead], &one));
        if (one) {
            int64_t gs;
            reduce = !(sc_expr_value_si(r.tensor.sizes[i], &gs) && gs == 1);
        }
        if (reduce)
            items[k++] = sc_value_int((int64_t)i);
    }
    if (k == 0) {
        *out = x;
        return SC_OK;
    }
    dims = sc_value_list(k, items);
    a[0] = x;
    a[1] = dims;
    a[2] = sc_value_bool(true);
    SC_TRY(sc__ad_add_op(ad, SC_OP_SUM_DIM_INTLIST, 3, a, 0, NULL, NULL,
                         out));
    if (lead > 0) {
        a[0] = *out;
        SC_TRY(sc__ad_sizes_list(ad, nd, to, &a[1]));
        SC_TRY(sc__ad_add_op(ad, SC_OP_VIEW, 2, a, 0, NULL, NULL, out));
    }
    return SC_OK;
}

sc_status sc__ad_h_sum_to_size(sc__ad *ad, const sc_value *a, sc_value *out)
{
    size_t n;
    sc_expr **e;
    SC_TRY(list_exprs(ad, &a[1], &n, &e));
    return sc__ad_sum_to(ad, a[0], n, e, out);
}

sc_status sc__ad_h_maybe_multiply(sc__ad *ad, const sc_value *a,
                                  sc_value *out)
{
    double s;
    if (sc__ad_number(&a[1], &s) && s == 1.0) {
        *out = a[0];
        return SC_OK;
    }
    return sc__ad_add_op(ad, SC_OP_MUL_SCALAR, 2, a, 0, NULL, NULL, out);
}

/* Contiguous strides of n sizes, as values. */
sc_status sc__ad_contiguous_strides(sc__ad *ad, size_t n, sc_expr *const *s,
                                    sc_value *out)
{
    sc_expr **st = sc__ad_alloc(ad, n * sizeof *st), *acc;
    size_t i;
    if (!st)
        return sc__error_nomem(ad->err);
    acc = sc_expr_int_si(ad->ctx, 1);
    for (i = n; i-- > 0;) {
        int64_t v;
        if (!acc)
            return sc__error_nomem(ad->err);
        st[i] = acc;
        /* PyTorch's contiguous strides use max(size, 1) */
        if (sc_expr_value_si(s[i], &v) && v == 0)
            continue;
        acc = sc_expr_mul(ad->ctx, acc, s[i]);
    }
    return sc__ad_sizes_list(ad, n, st, out);
}

/* Is x laid out contiguously (sizes 1 ignored)? */
static bool contiguous_node(sc__ad *ad, const sc_result *r)
{
    sc_expr *acc;
    size_t i;
    if (!r->tensor.has_strides)
        return true;
    acc = sc_expr_int_si(ad->ctx, 1);
    for (i = r->tensor.ndim; i-- > 0;) {
        int64_t v;
        if (!acc)
            return false;
        if (sc_expr_value_si(r->tensor.sizes[i], &v) && v == 1)
            continue;
        if (r->tensor.strides[i] != acc)
            return false;
        acc = sc_expr_mul(ad->ctx, acc, r->tensor.sizes[i]);
    }
    return true;
}

sc_status sc__ad_h_reshape_as_sizes(sc__ad *ad, const sc_value *a,
                                    sc_value *out)
{
    sc_result r;
    size_t n;
    sc_expr **e;
    sc_value args[3], kwv;
    const char *kwn = "memory_format";
    SC_TRY(sc__ad_node_tensor(ad, &a[0], &r, "reshape"));
    SC_TRY(list_exprs(ad, &a[1], &n, &e));
    if (contiguous_node(ad, &r)) {
        args[0] = a[0];
        args[1] = a[1];
        SC_TRY(sc__ad_contiguous_strides(ad, n, e, &args[2]));
        return sc__ad_add_op(ad, SC_OP__RESHAPE_ALIAS, 3, args, 0, NULL, NULL,
                             out);
    }
    kwv.kind = SC_VALUE_MEMORY_FORMAT;
    kwv.u.memory_format = SC_MEMORY_FORMAT_CONTIGUOUS;
    SC_TRY(sc__ad_add_op(ad, SC_OP_CLONE, 1, a, 1, &kwn, &kwv, &args[0]));
    args[1] = a[1];
    return sc__ad_add_op(ad, SC_OP__UNSAFE_VIEW, 2, args, 0, NULL, NULL, out);
}

sc_status sc__ad_h_cat_backward(sc__ad *ad, const sc_value *a, sc_value *out)
{
    sc_result rg, r;
    sc_value *items;
    size_t n, k, d;
    sc_expr *start;
    if (a[1].kind != SC_VALUE_LIST && a[1].kind != SC_VALUE_TUPLE)
        return sc__error_set(ad->err, SC_ERR_INVALID, "cat_backward: tensors");
    SC_TRY(sc__ad_node_tensor(ad, &a[0], &rg, "cat_backward"));
    if (a[2].kind != SC_VALUE_INT)
        return sc__error_set(ad->err, SC_ERR_INVALID, "cat_backward: dim");
    SC_TRY(norm_dim(ad, a[2].u.i, rg.tensor.ndim, &d));
    n = a[1].u.list.n;
    items = sc__ad_alloc(ad, n * sizeof *items);
    if (!items)
        return sc__error_nomem(ad->err);
    start = sc_expr_int_si(ad->ctx, 0);
    for (k = 0; k < n; k++) {
        sc_value s[4];
        sc_expr *end;
        SC_TRY(sc__ad_node_tensor(ad, &a[1].u.list.items[k], &r,
                                  "cat_backward"));
        if (!start)
            return sc__error_nomem(ad->err);
        if (r.tensor.ndim != rg.tensor.ndim) {
            /* legacy empty inputs of cat: no gradient */
            items[k] = sc_value_none();
            continue;
        }
        end = sc_expr_add(ad->ctx, start, r.tensor.sizes[d]);
        if (!end)
            return sc__error_nomem(ad->err);
        s[0] = a[0];
        s[1] = sc_value_int((int64_t)d);
        s[2] = sc__ad_expr_value(start);
        s[3] = sc__ad_expr_value(end);
        SC_TRY(sc__ad_add_op(ad, SC_OP_SLICE_TENSOR, 4, s, 0, NULL, NULL,
                             &items[k]));
        start = end;
    }
    *out = sc_value_list(n, items);
    return SC_OK;
}

sc_status sc__ad_h_permute_backwards(sc__ad *ad, const sc_value *a,
                                     sc_value *out)
{
    sc_value args[2], *inv;
    size_t n, i;
    if (a[1].kind != SC_VALUE_LIST && a[1].kind != SC_VALUE_TUPLE)
        return sc__error_set(ad->err, SC_ERR_INVALID, "permute: dims");
    n = a[1].u.list.n;
    inv = sc__ad_alloc(ad, n * sizeof *inv);
    if (!inv)
        return sc__error_nomem(ad->err);
    for (i = 0; i < n; i++) {
        size_t d;
        const sc_value *v = &a[1].u.list.items[i];
        if (v->kind != SC_VALUE_INT)
            return sc__error_set(ad->err, SC_ERR_INVALID, "permute: dims");
        SC_TRY(norm_dim(ad, v->u.i, n, &d));
        inv[d] = sc_value_int((int64_t)i);
    }
    args[0] = a[0];
    args[1] = sc_value_list(n, inv);
    return sc__ad_add_op(ad, SC_OP_PERMUTE, 2, args, 0, NULL, NULL, out);
}

sc_status sc__ad_h_dropout_scale(sc__ad *ad, const sc_value *a,
                                 sc_value *out)
{
    double p;
    if (!sc__ad_number(&a[0], &p))
        return sc__error_set(ad->err, SC_ERR_INVALID, "dropout: p");
    if (a[1].kind == SC_VALUE_BOOL && !a[1].u.b)
        *out = sc_value_float(1.0, "1.0");
    else if (p == 1.0)
        *out = sc_value_float(0.0, "0.0");
    else
        *out = sc_value_float(1.0 / (1.0 - p), NULL);
    return SC_OK;
}

/* The storage offset of joint-graph node id, as far as the graph shows it:
 * placeholders (primals: fresh tensors) and results of ops that are not
 * views start their storage (0); offset-preserving views (t, transpose,
 * permute, view, expand, alias, squeeze, ...) keep their input's;
 * as_strided with an explicit offset has that one.  Anything else (slice,
 * select, split's pieces, reshape of a view at a nonzero offset) is
 * SC_ERR_UNSUPPORTED. */
static sc_status storage_offset_of(sc__ad *ad, sc_node_id id, int depth,
                                   sc_value *out)
{
    const char *cls;
    int op;
    size_t i, n;
    if (depth > 10000)
        return sc__error_set(ad->err, SC_ERR_LIMIT,
                             "node '%s': views nested too deeply",
                             sc_graph_node_name(ad->fwd, ad->node));
    if (sc_graph_node_kind(ad->g, id) == SC_NODE_PLACEHOLDER) {
        *out = sc_value_int(0);
        return SC_OK;
    }
    op = sc__graph_node_op(ad->g, id);
    cls = sc_graph_node_class(ad->g, id);
    n = sc_graph_node_arg_count(ad->g, id);
    if (op == SC_OP_AS_STRIDED) {
        for (i = 0; i < n; i++) {
            const char *kw = sc_graph_node_kwname(ad->g, id, i);
            if (kw ? strcmp(kw, "storage_offset") == 0 : i == 3) {
                const sc_value *v = sc_graph_node_arg(ad->g, id, i);
                if (v->kind == SC_VALUE_INT || v->kind == SC_VALUE_SYMINT) {
                    *out = *v;
                    return SC_OK;
                }
            }
        }
    }
    if (sc__ad_is_getitem(ad->g, id) && n > 0 &&
        sc_graph_node_arg(ad->g, id, 0)->kind == SC_VALUE_NODE)
        /* an element of a tuple: fresh unless the tuple is a view op's
           (split, unbind) */
        cls = sc_graph_node_class(ad->g,
                                  sc_graph_node_arg(ad->g, id, 0)->u.node);
    if (cls && strcmp(cls, "view") != 0) {
        *out = sc_value_int(0);
        return SC_OK;
    }
    switch (op) {
    case SC_OP_AS_STRIDED:
    case SC_OP_T:
    case SC_OP_TRANSPOSE_INT:
    case SC_OP_PERMUTE:
    case SC_OP_VIEW:
    case SC_OP__UNSAFE_VIEW:
    case SC_OP__RESHAPE_ALIAS:
    case SC_OP_RESHAPE: /* a view (same offset) or a copy (0): the same
                           answer when the input's offset is 0, checked
                           below */
    case SC_OP_EXPAND:
    case SC_OP_DETACH:
    case SC_OP_ALIAS:
    case SC_OP_SQUEEZE:
    case SC_OP_SQUEEZE_DIM:
    case SC_OP_SQUEEZE_DIMS:
    case SC_OP_UNSQUEEZE:
        if (n > 0 && sc_graph_node_arg(ad->g, id, 0)->kind == SC_VALUE_NODE) {
            SC_TRY(storage_offset_of(
                ad, sc_graph_node_arg(ad->g, id, 0)->u.node, depth + 1, out));
            if (op != SC_OP_RESHAPE ||
                (out->kind == SC_VALUE_INT && out->u.i == 0))
                return SC_OK;
        }
        break;
    default:
        break;
    }
    return sc__error_set(ad->err, SC_ERR_UNSUPPORTED,
                         "node '%s': as_strided with an explicit "
                         "storage_offset over '%s', whose storage offset "
                         "the graph does not determine",
                         sc_graph_node_name(ad->fwd, ad->node),
                         sc_graph_node_name(ad->g, id));
}

/* as_strided_offset(self, storage_offset): the view's storage offset
 * relative to self's first element: 0 when storage_offset is None (the
 * view starts where self does), else storage_offset minus self's storage
 * offset (storage_offset_of). */
sc_status sc__ad_h_as_strided_offset(sc__ad *ad, const sc_value *a,
                                     sc_value *out)
{
    sc_value base;
    if (a[1].kind == SC_VALUE_NONE) {
        *out = sc_value_int(0);
        return SC_OK;
    }
    if (a[0].kind != SC_VALUE_NODE)
        return sc__error_set(ad->err, SC_ERR_INVALID,
                             "as_strided_offset: expected a tensor");
    SC_TRY(storage_offset_of(ad, a[0].u.node, 0, &base));
    return sc__ad_arith(ad, '-', &a[1], &base, out);
}

sc_status sc__ad_h_or_else(sc__ad *ad, const sc_value *a, sc_value *out)
{
    (void)ad;
    *out = a[0].kind == SC_VALUE_NONE ? a[1] : a[0];
    return SC_OK;
}

/* div.Tensor_mode: a rounding division is piecewise constant (zero
 * gradient); without rounding_mode it is the true division. */
sc_status sc__ad_h_div_mode_grad(sc__ad *ad, const sc_value *a,
                                 sc_value *out)
{
    if (a[1].kind == SC_VALUE_NONE) {
        *out = a[0];
        return SC_OK;
    }
    return sc__ad_add_op(ad, SC_OP_ZEROS_LIKE, 1, a, 0, NULL, NULL, out);
}

sc_status sc__ad_h_log_scalar(sc__ad *ad, const sc_value *a, sc_value *out)
{
    double x;
    if (!sc__ad_number(&a[0], &x))
        return sc__error_set(ad->err, SC_ERR_INVALID, "log of a non-number");
    *out = sc_value_float(log(x), NULL);
    return SC_OK;
}

/* x with size-1 dims re-inserted at the reduced dims (the value dims:
 * None or [] for all) so that it has nd dims: PyTorch's unsqueeze in
 * ascending dim order.  x unchanged when it already has nd dims. */
static sc_status restore_dims(sc__ad *ad, sc_value x, size_t nd,
                              const sc_value *dims, sc_value *out)
{
    sc_result r;
    bool *red;
    size_t i;
    SC_TRY(sc__ad_node_tensor(ad, &x, &r, "restore reduced dims"));
    *out = x;
    if (r.tensor.ndim == nd)
        return SC_OK;
    red = sc__ad_alloc(ad, (nd ? nd : 1) * sizeof *red);
    if (!red)
        return sc__error_nomem(ad->err);
    if (dims->kind == SC_VALUE_NONE ||
        ((dims->kind == SC_VALUE_LIST || dims->kind == SC_VALUE_TUPLE) &&
         dims->u.list.n == 0))
        for (i = 0; i < nd; i++)
            red[i] = true;
    else if (dims->kind == SC_VALUE_INT) {
        size_t d;
        SC_TRY(norm_dim(ad, dims->u.i, nd, &d));
        red[d] = true;
    } else if (dims->kind == SC_VALUE_LIST || dims->kind == SC_VALUE_TUPLE) {
        for (i = 0; i < dims->u.list.n; i++) {
            size_t d;
            if (dims->u.list.items[i].kind != SC_VALUE_INT)
                return sc__error_set(ad->err, SC_ERR_INVALID,
                                     "node '%s': a reduced dim that is not "
                                     "an int",
                                     sc_graph_node_name(ad->fwd, ad->node));
            SC_TRY(norm_dim(ad, dims->u.list.items[i].u.i, nd, &d));
            red[d] = true;
        }
    }
    for (i = 0; i < nd; i++)
        if (red[i]) {
            sc_value args[2];
            args[0] = *out;
            args[1] = sc_value_int((int64_t)i);
            SC_TRY(sc__ad_add_op(ad, SC_OP_UNSQUEEZE, 2, args, 0, NULL,
                                 NULL, out));
        }
    SC_TRY(sc__ad_node_tensor(ad, out, &r, "restore reduced dims"));
    if (r.tensor.ndim != nd)
        return sc__error_set(ad->err, SC_ERR_SHAPE,
                             "node '%s': the gradient has %zu dims after "
                             "restoring the reduced ones, not %zu",
                             sc_graph_node_name(ad->fwd, ad->node),
                             r.tensor.ndim, nd);
    return SC_OK;
}

/* sum_backward(grad, sizes, dim, keepdim): grad with the reduced dims
 * restored, expanded to sizes. */
sc_status sc__ad_h_sum_backward(sc__ad *ad, const sc_value *a, sc_value *out)
{
    size_t n;
    sc_expr **e;
    sc_value args[2];
    SC_TRY(list_exprs(ad, &a[1], &n, &e));
    SC_TRY(restore_dims(ad, a[0], n, &a[2], &args[0]));
    args[1] = a[1];
    return sc__ad_add_op(ad, SC_OP_EXPAND, 2, args, 0, NULL, NULL, out);
}

/* amax_backward(grad, self, result, dim, keepdim): the gradient shared
 * evenly among the maxima: (g / count) * mask, mask = (self == result). */
sc_status sc__ad_h_amax_backward(sc__ad *ad, const sc_value *a,
                                 sc_value *out)
{
    sc_result rs;
    sc_value g, r, args[3], mask, maskf, cnt, q;
    const char *kwn = "dtype";
    sc_value kwv;
    SC_TRY(sc__ad_node_tensor(ad, &a[1], &rs, "amax"));
    SC_TRY(restore_dims(ad, a[0], rs.tensor.ndim, &a[3], &g));
    SC_TRY(restore_dims(ad, a[2], rs.tensor.ndim, &a[3], &r));
    args[0] = a[1];
    args[1] = r;
    SC_TRY(sc__ad_add_op(ad, SC_OP_EQ_TENSOR, 2, args, 0, NULL, NULL,
                         &mask));
    kwv.kind = SC_VALUE_DTYPE;
    kwv.u.dtype = rs.tensor.dtype;
    SC_TRY(sc__ad_add_op(ad, SC_OP__TO_COPY, 1, &mask, 1, &kwn, &kwv,
                         &maskf));
    args[0] = maskf;
    args[1] = a[3];
    args[2] = sc_value_bool(true);
    if (a[3].kind == SC_VALUE_LIST && a[3].u.list.n == 0) {
        /* amax's dim=[] is every dim */
        sc_value *all = sc__ad_alloc(
            ad, (rs.tensor.ndim ? rs.tensor.ndim : 1) * sizeof *all);
        size_t i;
        if (!all)
            return sc__error_nomem(ad->err);
        for (i = 0; i < rs.tensor.ndim; i++)
            all[i] = sc_value_int((int64_t)i);
        args[1] = sc_value_list(rs.tensor.ndim, all);
    }
    SC_TRY(sc__ad_add_op(ad, SC_OP_SUM_DIM_INTLIST, 3, args, 0, NULL, NULL,
                         &cnt));
    args[0] = g;
    args[1] = cnt;
    SC_TRY(sc__ad_add_op(ad, SC_OP_DIV_TENSOR, 2, args, 0, NULL, NULL,
                         &q));
    args[0] = q;
    args[1] = maskf;
    return sc__ad_add_op(ad, SC_OP_MUL_TENSOR, 2, args, 0, NULL, NULL, out);
}

/* clamp_backward(grad, self, min, max): grad where min <= self <= max,
 * else 0 (a None bound does not clamp). */
sc_status sc__ad_h_clamp_backward(sc__ad *ad, const sc_value *a,
                                  sc_value *out)
{
    int k;
    *out = a[0];
    for (k = 0; k < 2; k++) {
        sc_value args[3], m;
        if (a[2 + k].kind == SC_VALUE_NONE)
            continue;
        args[0] = a[1];
        args[1] = a[2 + k];
        SC_TRY(sc__ad_add_op(ad, k == 0 ? SC_OP_LT_SCALAR
                                    : SC_OP_GT_SCALAR,
                             2, args, 0, NULL, NULL, &m));
        args[0] = *out;
        args[1] = m;
        args[2] = sc_value_int(0);
        SC_TRY(sc__ad_add_op(ad, SC_OP_MASKED_FILL_SCALAR, 3, args, 0,
                             NULL, NULL, out));
    }
    return SC_OK;
}

/* value_selecting_reduction_backward(grad, dim, indices, sizes, keepdim),
 * as PyTorch traces it: without keepdim, grad and indices get dim back
 * (unsqueeze, grad first); then scatter.src(new_zeros(grad, sizes), dim,
 * indices, grad). */
sc_status sc__ad_h_value_selecting_reduction_backward(sc__ad *ad,
                                                      const sc_value *a,
                                                      sc_value *out)
{
    sc_value g = a[0], ix = a[2], args[4], z;
    if (a[4].kind != SC_VALUE_BOOL || !a[4].u.b) {
        args[0] = a[0];
        args[1] = a[1];
        SC_TRY(sc__ad_add_op(ad, SC_OP_UNSQUEEZE, 2, args, 0, NULL, NULL,
                             &g));
        args[0] = a[2];
        SC_TRY(sc__ad_add_op(ad, SC_OP_UNSQUEEZE, 2, args, 0, NULL, NULL,
                             &ix));
    }
    args[0] = g;
    args[1] = a[3];
    SC_TRY(sc__ad_add_op(ad, SC_OP_NEW_ZEROS, 2, args, 0, NULL, NULL, &z));
    args[0] = z;
    args[1] = a[1];
    args[2] = ix;
    args[3] = g;
    return sc__ad_add_op(ad, SC_OP_SCATTER_SRC, 4, args, 0, NULL, NULL, out);
}

sc_status sc__ad_h_constant_pad_nd_backward(sc__ad *ad, const sc_value *a,
                                            sc_value *out)
{
    size_t n, i;
    sc_expr **e;
    sc_value args[2];
    SC_TRY(list_exprs(ad, &a[1], &n, &e));
    for (i = 0; i < n; i++) {
        e[i] = sc_expr_neg(ad->ctx, e[i]);
        if (!e[i])
            return sc__error_nomem(ad->err);
    }
    args[0] = a[0];
    SC_TRY(sc__ad_sizes_list(ad, n, e, &args[1]));
    return sc__ad_add_op(ad, SC_OP_CONSTANT_PAD_ND, 2, args, 0, NULL, NULL,
                         out);
}
