/* symcut — gradcheck: a joint graph's gradients against central finite
 * differences of its forward outputs, in float64 (doc/kernels.md,
 * "Gradcheck").
 *
 * The joint graph is rebuilt twice through the public builder, with every
 * floating dtype turned into f64: the whole joint graph (one run gives the
 * analytic gradients) and its forward part (primals -> forward outputs;
 * two runs per checked element).  Node names are kept, so random ops draw
 * the same numbers in every run. */
#include <config.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/interp.h"

void sc_gradcheck_options_init(sc_gradcheck_options *opts)
{
    memset(opts, 0, sizeof *opts);
    opts->eps = 1e-6;
    opts->atol = 1e-5;
    opts->rtol = 1e-3;
    opts->int_high = 2;
    opts->max_per_input = SC_GRADCHECK_MAX_PER_INPUT;
}

/* Prepend a formatted prefix to err's message when status is an error;
 * returns status, so a call can be wrapped in SC_CHECK / SC_TRY. */
static sc_status prefix_error(sc_error *err, sc_status status,
                              const char *fmt, ...) SC__PRINTF(3, 4);

static sc_status prefix_error(sc_error *err, sc_status status,
                              const char *fmt, ...)
{
    char prefix[SC_ERROR_MESSAGE_MAX];
    size_t lp, lo, size;
    va_list ap;
    if (status == SC_OK || !err)
        return status;
    size = sizeof err->message;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    lp = strlen(prefix);
    err->message[size - 1] = '\0';
    lo = strlen(err->message);
    if (lp > size - 1)
        lp = size - 1;
    if (lp + lo > size - 1)
        lo = size - 1 - lp;
    memmove(err->message + lp, err->message, lo);
    memcpy(err->message, prefix, lp);
    err->message[lp + lo] = '\0';
    return status;
}

/* ---- The f64 rebuild -------------------------------------------------------- */

static sc_dtype to_f64(sc_dtype d)
{
    return sc_dtype_kind(d) == 'f' ? SC_DTYPE_F64 : d;
}

/* A copy of v with node references remapped and dtypes turned into f64;
 * list items are allocated in the arena. */
static sc_status copy_value(const sc_value *v, const sc_node_id *remap,
                            sc__arena *arena, sc_value *out, sc_error *err)
{
    *out = *v;
    switch (v->kind) {
    case SC_VALUE_NODE:
        out->u.node = remap[v->u.node];
        if (out->u.node == SC_NODE_NONE)
            return sc__error_set(err, SC_ERR_INVALID,
                                 "the forward outputs depend on a tangent");
        return SC_OK;
    case SC_VALUE_DTYPE:
        out->u.dtype = to_f64(v->u.dtype);
        return SC_OK;
    case SC_VALUE_LIST:
    case SC_VALUE_TUPLE: {
        sc_value *items;
        size_t i;
        if (v->u.list.n == 0)
            return SC_OK;
        items = sc__arena_alloc(arena, v->u.list.n * sizeof *items);
        if (!items)
            return sc__error_nomem(err);
        for (i = 0; i < v->u.list.n; i++)
            SC_TRY(copy_value(&v->u.list.items[i], remap, arena, &items[i],
                              err));
        out->u.list.items = items;
        return SC_OK;
    }
    default:
        return SC_OK;
    }
}

/* The node's result with a floating tensor dtype turned into f64. */
static void result_f64(const sc_graph *g, sc_node_id id, sc_result *out)
{
    sc_graph_node_result(g, id, out);
    if (out->kind == SC_RESULT_TENSOR)
        out->tensor.dtype = to_f64(out->tensor.dtype);
}

/* `_softmax(x, dim, half_to_float=True)` computes an f16 input in f32; in
 * f64 the flag must be off (PyTorch rejects it for other dtypes). */
static bool is_half_to_float_op(const char *target)
{
    return strcmp(target, "torch.ops.aten._softmax.default") == 0 ||
           strcmp(target, "torch.ops.aten._log_softmax.default") == 0;
}

static sc_status copy_call(const sc_graph *src, sc_node_id id,
                           const sc_node_id *remap, sc_graph *dst,
                           sc_node_id *out, sc_error *err)
{
    size_t na = sc_graph_node_arg_count(src, id),
           npos = sc_graph_node_positional_count(src, id), i;
    const char *target = sc_graph_node_target(src, id);
    sc_value *args = NULL;
    const char **kwnames = NULL;
    sc__arena arena;
    sc_result meta;
    sc_status status = SC_OK;

    sc__arena_init(&arena);
    if (na) {
        args = sc__arena_alloc(&arena, na * sizeof *args);
        kwnames = sc__arena_alloc(&arena, na * sizeof *kwnames);
        if (!args || !kwnames) {
            status = sc__error_nomem(err);
            goto fail;
        }
    }
    for (i = 0; i < na; i++) {
        SC_CHECK(copy_value(sc_graph_node_arg(src, id, i), remap, &arena,
                            &args[i], err));
        kwnames[i] = sc_graph_node_kwname(src, id, i);
        if (args[i].kind == SC_VALUE_BOOL && args[i].u.b &&
            is_half_to_float_op(target) &&
            ((i == 2 && i < npos) ||
             (kwnames[i] && strcmp(kwnames[i], "half_to_float") == 0)))
            args[i].u.b = false;
    }
    result_f64(src, id, &meta);
    status = sc_graph_add_call(dst, sc_graph_node_name(src, id), target, npos,
                               args, na - npos, kwnames + npos, args + npos,
                               &meta, out, err);
fail:
    sc__arena_destroy(&arena);
    return status;
}

/* Mark the nodes v refers to (lists included). */
static void mark_refs(const sc_value *v, bool *keep)
{
    size_t k;
    if (v->kind == SC_VALUE_NODE)
        keep[v->u.node] = true;
    else if (v->kind == SC_VALUE_LIST || v->kind == SC_VALUE_TUPLE)
        for (k = 0; k < v->u.list.n; k++)
            mark_refs(&v->u.list.items[k], keep);
}

/* Rebuild src in f64.  forward_only: only the primals and the nodes the
 * forward outputs need, with the forward outputs as outputs. */
static sc_status rebuild_f64(const sc_graph *src, bool forward_only,
                             sc_graph **out, sc_error *err)
{
    size_t nn = sc_graph_node_count(src), nout = sc_graph_output_count(src),
           nfwd = sc_graph_fwd_output_count(src), ns, i, j;
    sc_node_id *remap = NULL, *outs = NULL;
    bool *keep = NULL;
    sc_expr **syms = NULL;
    sc_graph *g = NULL;
    sc_status status = SC_OK;

    *out = NULL;
    remap = sc__calloc(nn + 1, sizeof *remap);
    keep = sc__calloc(nn + 1, sizeof *keep);
    outs = sc__calloc(nout + 1, sizeof *outs);
    g = sc_graph_new(sc_graph_ctx(src));
    if (!remap || !keep || !outs || !g) {
        status = sc__error_nomem(err);
        goto fail;
    }
    if (forward_only) {
        for (i = 0; i < nfwd; i++)
            if (sc_graph_output(src, i) != SC_NODE_NONE)
                keep[sc_graph_output(src, i)] = true;
        for (i = nn; i-- > 0;) {
            if (sc_graph_node_kind(src, (sc_node_id)i) ==
                SC_NODE_PLACEHOLDER) {
                keep[i] = sc_graph_node_role(src, (sc_node_id)i) !=
                          SC_ROLE_TANGENT;
                continue;
            }
            if (!keep[i])
                continue;
            for (j = 0; j < sc_graph_node_arg_count(src, (sc_node_id)i); j++)
                mark_refs(sc_graph_node_arg(src, (sc_node_id)i, j), keep);
        }
    } else {
        for (i = 0; i < nn; i++)
            keep[i] = true;
    }
    for (i = 0; i < nn; i++) {
        sc_node_id id = (sc_node_id)i;
        const char *name = sc_graph_node_name(src, id);
        remap[i] = SC_NODE_NONE;
        if (!keep[i])
            continue;
        if (sc_graph_node_kind(src, id) == SC_NODE_PLACEHOLDER) {
            sc_result meta;
            result_f64(src, id, &meta);
            SC_CHECK(prefix_error(
                err,
                sc_graph_add_placeholder(g, name, sc_graph_node_role(src, id),
                                         &meta, &remap[i], err),
                "node %s: ", name));
        } else {
            SC_CHECK(prefix_error(err,
                                  copy_call(src, id, remap, g, &remap[i], err),
                                  "node %s: ", name));
        }
    }
    nout = forward_only ? nfwd : nout;
    for (i = 0; i < nout; i++) {
        sc_node_id o = sc_graph_output(src, i);
        outs[i] = o == SC_NODE_NONE ? SC_NODE_NONE : remap[o];
    }
    SC_CHECK(sc_graph_set_outputs(g, nout, outs, nfwd, err));
    sc_graph_set_env(g, sc_graph_env(src));
    ns = sc_graph_symbols(src, NULL, 0);
    syms = sc__calloc(ns + 1, sizeof *syms);
    if (!syms) {
        status = sc__error_nomem(err);
        goto fail;
    }
    ns = sc_graph_symbols(src, syms, ns);
    for (i = 0; i < ns; i++) {
        int64_t h;
        if (sc_graph_get_hint(src, syms[i], &h))
            SC_CHECK(sc_graph_set_hint(g, syms[i], h, err));
    }
    status = sc_graph_finish(g, err);
fail:
    sc__free(remap);
    sc__free(keep);
    sc__free(outs);
    sc__free(syms);
    if (status != SC_OK)
        sc_graph_free(g);
    else
        *out = g;
    return status;
}

/* ---- The check ---------------------------------------------------------------- */

typedef struct gc_state {
    const sc_gradcheck_options *opts;
    const sc_graph *joint;
    sc_graph *joint64, *fwd64;
    size_t nplace, nprim, ntan, nfwd;
    sc_node_id *prim_ids, *tan_ids; /* placeholders, in order */
    sc_tensor **inputs;             /* one per placeholder of joint64 */
    sc_tensor **prims;              /* nprim: inputs of the primals */
    sc_tensor **run_in;             /* nprim: copies for one run */
    sc_tensor **in;                 /* nprim: the inputs of one run */
    sc_tensor **fouts;              /* nfwd: scratch */
    bool *mutated;                  /* nprim: the forward writes into it */
    long *match;                    /* nfwd: index into tan_ids, or -1 */
    sc_interp_options io;
    size_t runs;
    size_t to_check, checked; /* elements over all primals (progress) */
} gc_state;

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A uniform integer in [0, n) (n > 0). */
static uint64_t rand_below(uint64_t *s, uint64_t n)
{
    uint64_t lim = UINT64_MAX - UINT64_MAX % n, r;
    do
        r = splitmix64(s);
    while (r >= lim);
    return r % n;
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/* m distinct indices of [0, n) (m <= n), sorted: Floyd's sampling, keyed
 * by the seed and the primal's name. */
static void sample_indices(uint64_t seed, const char *name, size_t n,
                           size_t m, size_t *out)
{
    uint64_t s = seed ^ sc_interp_node_key(name);
    size_t j, k = 0;
    for (j = n - m; j < n; j++) {
        size_t t = (size_t)rand_below(&s, (uint64_t)j + 1), q;
        bool seen = false;
        for (q = 0; q < k && !seen; q++)
            seen = out[q] == t;
        out[k++] = seen ? j : t;
    }
    qsort(out, m, sizeof *out, cmp_size);
}

/* Does a tangent's annotation fit a forward output's? */
static bool same_meta(const sc_result *a, const sc_result *b)
{
    size_t d;
    if (a->kind != SC_RESULT_TENSOR || b->kind != SC_RESULT_TENSOR ||
        a->tensor.ndim != b->tensor.ndim)
        return false;
    for (d = 0; d < a->tensor.ndim; d++)
        if (a->tensor.sizes[d] != b->tensor.sizes[d])
            return false;
    return true;
}

static bool is_float_output(const sc_graph *g, sc_node_id o)
{
    sc_result r;
    if (o == SC_NODE_NONE)
        return false;
    sc_graph_node_result(g, o, &r);
    return r.kind == SC_RESULT_TENSOR && sc_dtype_kind(r.tensor.dtype) == 'f';
}

/* Tangent k belongs to the k-th floating forward output of its shape. */
static sc_status match_tangents(gc_state *st, sc_error *err)
{
    const sc_graph *g = st->joint;
    size_t j, k = 0, nfloat = 0;

    for (j = 0; j < st->nfwd; j++) {
        sc_node_id o = sc_graph_output(g, j);
        sc_result ro, rt;
        st->match[j] = -1;
        if (!is_float_output(g, o))
            continue;
        nfloat++;
        if (k >= st->ntan)
            continue;
        sc_graph_node_result(g, o, &ro);
        sc_graph_node_result(g, st->tan_ids[k], &rt);
        if (same_meta(&ro, &rt))
            st->match[j] = (long)k++;
    }
    if (k == st->ntan)
        return SC_OK;
    if (nfloat == st->ntan) { /* shapes written differently: in order */
        for (j = 0, k = 0; j < st->nfwd; j++)
            st->match[j] = is_float_output(g, sc_graph_output(g, j))
                               ? (long)k++
                               : -1;
        return SC_OK;
    }
    return sc__error_set(err, SC_ERR_INVALID,
                         "tangent %s matches no forward output (%zu "
                         "tangents, %zu floating-point forward outputs)",
                         sc_graph_node_name(g, st->tan_ids[k]), st->ntan,
                         nfloat);
}

/* F = sum over matched forward outputs of <tangent, output>, from one run
 * of the forward graph on the current primal values.  Mutated primals are
 * copied for the run; with detect, every primal is, and the copies are
 * compared with the originals afterwards to set st->mutated. */
static sc_status objective(gc_state *st, bool detect, double *F,
                           sc_error *err)
{
    size_t i, j;
    double sum = 0, comp = 0;
    sc_status status = SC_OK;

    for (i = 0; i < st->nprim; i++)
        st->run_in[i] = NULL;
    for (i = 0; i < st->nprim; i++)
        if (detect || st->mutated[i])
            SC_CHECK(sc_tensor_clone(st->prims[i], &st->run_in[i], err));
    for (i = 0; i < st->nprim; i++)
        st->in[i] = st->run_in[i] ? st->run_in[i] : st->prims[i];
    st->runs++; /* counted whether or not the run succeeds */
    SC_CHECK(prefix_error(err,
                          sc_interp_run(st->fwd64, st->in, &st->io, st->fouts,
                                        NULL, err),
                          "forward graph (f64): "));
    for (j = 0; j < st->nfwd; j++) {
        const sc_tensor *o = st->fouts[j], *t;
        size_t n, e;
        if (st->match[j] < 0)
            continue;
        t = st->inputs[st->tan_ids[st->match[j]]];
        if (!o || !sc_tensor_same_shape(o, t))
            SC_CHECK(sc__error_set(err, SC_ERR_SHAPE,
                                   "forward output %zu (%s) does not have "
                                   "the shape of its tangent %s",
                                   j,
                                   sc_graph_node_name(
                                       st->joint,
                                       sc_graph_output(st->joint, j)),
                                   sc_graph_node_name(
                                       st->joint, st->tan_ids[st->match[j]])));
        n = sc_tensor_numel(o);
        for (e = 0; e < n; e++) { /* Kahan summation */
            double y = sc_tensor_item_double(o, e) *
                           sc_tensor_item_double(t, e) -
                       comp;
            double s2 = sum + y;
            comp = (s2 - sum) - y;
            sum = s2;
        }
    }
    *F = sum;
    if (detect)
        for (i = 0; i < st->nprim; i++) {
            const sc_tensor *a = st->prims[i], *b = st->run_in[i];
            st->mutated[i] =
                !sc_tensor_is_contiguous(a) ||
                memcmp(sc_tensor_data(a), sc_tensor_data(b),
                       sc_tensor_nbytes(a)) != 0;
        }
fail:
    sc__interp_free_tensors(st->fouts, st->nfwd);
    sc__interp_free_tensors(st->run_in, st->nprim);
    return status;
}

/* "primals_2[17] (1, 1)": the flat index and its coordinates. */
static void format_element(const sc_graph *g, sc_node_id node,
                           const sc_tensor *t, size_t idx, char *buf,
                           size_t size)
{
    size_t d, rest = idx, used;
    int64_t coord[SC_TENSOR_MAX_DIMS];
    used = (size_t)snprintf(buf, size, "%s[%zu]", sc_graph_node_name(g, node),
                            idx);
    if (t->ndim < 2 || used >= size)
        return;
    for (d = t->ndim; d-- > 0;) {
        int64_t s = t->sizes[d] > 0 ? t->sizes[d] : 1;
        coord[d] = (int64_t)(rest % (size_t)s);
        rest /= (size_t)s;
    }
    for (d = 0; d < t->ndim && used < size; d++)
        used += (size_t)snprintf(buf + used, size - used, "%s%lld",
                                 d ? ", " : " (", (long long)coord[d]);
    if (used < size)
        snprintf(buf + used, size - used, ")");
}

static void fail_once(sc_gradcheck_report *rep, const char *fmt, ...)
    SC__PRINTF(2, 3);

static void fail_once(sc_gradcheck_report *rep, const char *fmt, ...)
{
    va_list ap;
    if (!rep->passed)
        return;
    rep->passed = false;
    va_start(ap, fmt);
    vsnprintf(rep->message, sizeof rep->message, fmt, ap);
    va_end(ap);
}

/* The objective with element e of data set to v (restored afterwards). */
static sc_status objective_at(gc_state *st, double *data, size_t e, double v,
                              double *F, sc_error *err)
{
    double x0 = data[e];
    sc_status status;
    data[e] = v;
    status = objective(st, false, F, err);
    data[e] = x0;
    return status;
}

/* Check the sampled elements of primal p against the gradient grad; the
 * input counts as checked in rep when one of its elements was. */
static sc_status check_primal(gc_state *st, size_t p, const sc_tensor *grad,
                              sc_gradcheck_input *rec,
                              sc_gradcheck_report *rep, sc_error *err)
{
    const sc_gradcheck_options *o = st->opts;
    sc_tensor *x = st->prims[p];
    sc_node_id node = st->prim_ids[p];
    size_t n = sc_tensor_numel(x), m, k, *idx = NULL;
    double *data = sc_tensor_data(x);
    sc_status status = SC_OK;

    if (x->dtype != SC_DTYPE_F64 || !sc_tensor_is_contiguous(x))
        return sc__error_set(err, SC_ERR_INTERNAL,
                             "gradcheck: input %s is not contiguous f64",
                             sc_graph_node_name(st->joint, node));
    m = o->max_per_input && n > o->max_per_input ? o->max_per_input : n;
    idx = sc__malloc((m ? m : 1) * sizeof *idx);
    if (!idx)
        return sc__error_nomem(err);
    if (m == n)
        for (k = 0; k < n; k++)
            idx[k] = k;
    else
        sample_indices(o->seed, sc_graph_node_name(st->joint, node), n, m,
                       idx);
    for (k = 0; k < m; k++) {
        size_t e = idx[k];
        double x0 = data[e], fp, fm, num, ana, diff, tol, ratio;
        SC_CHECK(objective_at(st, data, e, x0 + o->eps, &fp, err));
        SC_CHECK(objective_at(st, data, e, x0 - o->eps, &fm, err));
        num = (fp - fm) / (2 * o->eps);
        ana = sc_tensor_item_double(grad, e);
        diff = fabs(ana - num);
        tol = o->atol + o->rtol * fabs(num);
        if (isnan(diff))
            ratio = HUGE_VAL;
        else if (tol > 0)
            ratio = diff / tol;
        else
            ratio = diff > 0 ? HUGE_VAL : 0;
        rec->checked++;
        rep->checked++;
        st->checked++;
        if (o->progress)
            o->progress(o->progress_user, "checking gradients", st->checked,
                        st->to_check);
        if (!(diff <= tol)) {
            char where[160];
            rec->failures++;
            rep->failures++;
            format_element(st->joint, node, x, e, where, sizeof where);
            fail_once(rep, "%s: analytic %.6g, numeric %.6g (abs error %.3g > "
                           "atol %g + rtol %g * |numeric|)",
                      where, ana, num, diff, o->atol, o->rtol);
        }
        if (rec->checked == 1 || ratio > rec->worst_ratio) {
            rec->worst_index = e;
            rec->worst_analytic = ana;
            rec->worst_numeric = num;
            rec->worst_abs_error = diff;
            rec->worst_ratio = ratio;
        }
        if (rep->worst_input == SIZE_MAX || ratio > rep->worst_ratio) {
            rep->worst_input = p;
            rep->worst_index = e;
            rep->worst_analytic = ana;
            rep->worst_numeric = num;
            rep->worst_abs_error = diff;
            rep->worst_ratio = ratio;
        }
    }
fail:
    if (rec->checked)
        rep->inputs_checked++;
    sc__free(idx);
    return status;
}

/* The analytic gradients: one run of the joint graph on copies (jin) of
 * the inputs, into jout. */
static sc_status analytic_gradients(gc_state *st, sc_tensor **jin,
                                    sc_tensor **jout, sc_error *err)
{
    sc_status status = SC_OK;
    SC_CHECK(sc__interp_clone_tensors(st->inputs, st->nplace, jin, err));
    st->runs++; /* counted whether or not the run succeeds */
    SC_CHECK(prefix_error(err,
                          sc_interp_run(st->joint64, jin, &st->io, jout, NULL,
                                        err),
                          "joint graph (f64): "));
fail:
    sc__interp_free_tensors(jin, st->nplace);
    return status;
}

static bool tensor_shape_is(const sc_tensor *a, const sc_tensor *b)
{
    return a->ndim == b->ndim &&
           memcmp(a->sizes, b->sizes, a->ndim * sizeof a->sizes[0]) == 0;
}

sc_status sc_gradcheck_run(const sc_graph *joint,
                           const sc_gradcheck_options *opts,
                           sc_gradcheck_report *report, sc_error *err)
{
    sc_gradcheck_options defaults;
    gc_state st;
    sc_symmap *binding = NULL;
    sc_tensor **jin = NULL, **jout = NULL;
    sc_gradcheck_input *recs = NULL;
    size_t nout = 0, i;
    double f0;
    sc_status status = SC_OK;

    if (!opts) {
        sc_gradcheck_options_init(&defaults);
        opts = &defaults;
    }
    memset(report, 0, sizeof *report);
    report->passed = true;
    report->worst_input = SIZE_MAX;
    memset(&st, 0, sizeof st);
    st.opts = opts;
    st.joint = joint;
    if (!(opts->eps > 0) || !(opts->atol >= 0) || !(opts->rtol >= 0)) {
        status = sc__error_set(err, SC_ERR_INVALID,
                               "gradcheck: eps must be positive, atol and "
                               "rtol non-negative");
        goto fail;
    }
    st.nplace = sc_graph_placeholder_count(joint);
    st.nprim = sc_graph_primal_count(joint);
    st.ntan = sc_graph_tangent_count(joint);
    st.nfwd = sc_graph_fwd_output_count(joint);
    nout = sc_graph_output_count(joint);
    if (nout != st.nfwd + st.nprim) {
        status = sc__error_set(err, SC_ERR_INVALID,
                               "not a joint graph: %zu outputs, where %zu "
                               "forward outputs and one gradient per primal "
                               "(%zu) make %zu",
                               nout, st.nfwd, st.nprim, st.nfwd + st.nprim);
        goto fail;
    }

    st.prim_ids = sc__calloc(st.nprim + 1, sizeof *st.prim_ids);
    st.tan_ids = sc__calloc(st.ntan + 1, sizeof *st.tan_ids);
    st.prims = sc__calloc(st.nprim + 1, sizeof *st.prims);
    st.run_in = sc__calloc(st.nprim + 1, sizeof *st.run_in);
    st.in = sc__calloc(st.nprim + 1, sizeof *st.in);
    st.fouts = sc__calloc(st.nfwd + 1, sizeof *st.fouts);
    st.mutated = sc__calloc(st.nprim + 1, sizeof *st.mutated);
    st.match = sc__calloc(st.nfwd + 1, sizeof *st.match);
    st.inputs = sc__calloc(st.nplace + 1, sizeof *st.inputs);
    jin = sc__calloc(st.nplace + 1, sizeof *jin);
    jout = sc__calloc(nout + 1, sizeof *jout);
    recs = opts->per_input ? opts->per_input
                           : sc__calloc(st.nprim + 1, sizeof *recs);
    binding = sc_symmap_new(sc_graph_ctx(joint));
    if (!st.prim_ids || !st.tan_ids || !st.prims || !st.run_in || !st.in ||
        !st.fouts || !st.mutated || !st.match || !st.inputs || !jin ||
        !jout || !recs || !binding) {
        status = sc__error_nomem(err);
        goto fail;
    }
    {
        size_t np = 0, nt = 0;
        for (i = 0; i < st.nplace; i++) {
            if (sc_graph_node_role(joint, (sc_node_id)i) == SC_ROLE_TANGENT) {
                if (nt < st.ntan)
                    st.tan_ids[nt++] = (sc_node_id)i;
            } else if (np < st.nprim) {
                st.prim_ids[np++] = (sc_node_id)i;
            }
        }
        if (np != st.nprim || nt != st.ntan) {
            status = sc__error_set(err, SC_ERR_INVALID,
                                   "not a joint graph: placeholders are not "
                                   "primals and tangents");
            goto fail;
        }
    }
    SC_CHECK(prefix_error(err, match_tangents(&st, err),
                          "joint graph in f64: "));
    SC_CHECK(prefix_error(err, rebuild_f64(joint, false, &st.joint64, err),
                          "joint graph in f64: "));
    SC_CHECK(prefix_error(err, rebuild_f64(joint, true, &st.fwd64, err),
                          "forward graph in f64: "));
    SC_CHECK(sc_interp_bind_sizes(joint, opts->sizes, binding, err));
    SC_CHECK(sc_interp_random_inputs(st.joint64, binding, opts->seed,
                                     opts->int_high, st.inputs, err));
    sc_interp_options_init(&st.io);
    st.io.seed = opts->seed;
    st.io.sizes = binding;
    for (i = 0; i < st.nprim; i++)
        st.prims[i] = st.inputs[st.prim_ids[i]];

    if (opts->progress)
        opts->progress(opts->progress_user, "running the joint graph", 0, 0);
    SC_CHECK(analytic_gradients(&st, jin, jout, err));
    /* Which primals the forward writes into (they are copied per run). */
    SC_CHECK(objective(&st, true, &f0, err));

    /* the elements to check, for the progress reports */
    for (i = 0; i < st.nprim; i++) {
        const sc_tensor *g = jout[st.nfwd + i], *x = st.prims[i];
        size_t n = sc_tensor_numel(x);
        if (g && x->dtype == SC_DTYPE_F64 && tensor_shape_is(g, x))
            st.to_check += opts->max_per_input && n > opts->max_per_input
                               ? opts->max_per_input
                               : n;
    }
    if (opts->progress)
        opts->progress(opts->progress_user, "checking gradients", 0,
                       st.to_check);
    for (i = 0; i < st.nprim; i++) {
        sc_gradcheck_input *rec = &recs[i];
        const sc_tensor *g = jout[st.nfwd + i], *x = st.prims[i];
        memset(rec, 0, sizeof *rec);
        rec->node = st.prim_ids[i];
        rec->numel = sc_tensor_numel(x);
        if (!g)
            rec->skipped = "gradient is None";
        else if (x->dtype != SC_DTYPE_F64)
            rec->skipped = "not a floating-point tensor";
        else if (!tensor_shape_is(g, x)) {
            rec->failures = 1;
            fail_once(report, "the gradient of %s (output %zu, %s) has %zu "
                              "dims and %zu elements where the primal has "
                              "%zu dims and %zu elements",
                      sc_graph_node_name(joint, rec->node), st.nfwd + i,
                      sc_graph_node_name(joint,
                                         sc_graph_output(joint, st.nfwd + i)),
                      g->ndim, sc_tensor_numel(g), x->ndim, rec->numel);
            report->failures++;
        } else {
            SC_CHECK(check_primal(&st, i, g, rec, report, err));
        }
        if (opts->input_done)
            opts->input_done(opts->input_done_user, i, rec);
    }
    if (opts->progress && st.checked < st.to_check)
        opts->progress(opts->progress_user, "checking gradients",
                       st.to_check, st.to_check);
fail:
    report->runs = st.runs;
    if (status != SC_OK) {
        report->passed = false;
        snprintf(report->message, sizeof report->message, "%s",
                 err ? err->message : "error");
    }
    if (jout)
        sc__interp_free_tensors(jout, nout);
    if (st.inputs)
        sc__interp_free_tensors(st.inputs, st.nplace);
    sc__free(jin);
    sc__free(jout);
    sc__free(st.inputs);
    sc__free(st.prim_ids);
    sc__free(st.tan_ids);
    sc__free(st.prims);
    sc__free(st.run_in);
    sc__free(st.in);
    sc__free(st.fouts);
    sc__free(st.mutated);
    sc__free(st.match);
    if (recs != opts->per_input)
        sc__free(recs);
    sc_symmap_free(binding);
    sc_graph_free(st.joint64);
    sc_graph_free(st.fwd64);
    return status;
}
