/* symcut — peak memory of a forward-then-backward step: measured by the
 * interpreter (sc_peak_measure) and predicted from the sizes alone
 * (sc_peak_predict), with the same liveness (doc/interp.md, "Peak
 * memory"). */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <symcut/interp.h>

#include "graph/ops.h"
#include "kernels/interp.h"
#include "kernels/peak.h"
#include "util/internal.h"

void sc_peak_options_init(sc_peak_options *opts)
{
    memset(opts, 0, sizeof *opts);
}

/* ---- How the two graphs fit together ------------------------------------ */

typedef struct pairing {
    size_t nfw_out;   /* outputs of fw */
    size_t nfwd;      /* fw's user outputs: the first nfwd */
    size_t nsaved;    /* saved values: fw outputs nfwd .. nfw_out */
    size_t nbw_ph;    /* bw's placeholders: nsaved saved values, tangents */
    /* bw placeholder k < nsaved takes fw output saved_of[k] (PyTorch's
     * order: the saved SymInts first, then the saved tensors) */
    size_t *saved_of;
} pairing;

static bool is_symint_node(const sc_graph *g, sc_node_id id)
{
    sc_result r;
    if (id == SC_NODE_NONE)
        return false;
    sc_graph_node_result(g, id, &r);
    return r.kind == SC_RESULT_SYMINT || r.kind == SC_RESULT_SYMBOOL;
}

static sc_status pair_graphs(const sc_graph *fw, const sc_graph *bw,
                             pairing *p, sc_error *err)
{
    size_t ntan = 0, k, j = 0;
    memset(p, 0, sizeof *p);
    if (!fw || !bw)
        return sc__error_set(err, SC_ERR_INVALID, "a graph is missing");
    if (sc_graph_ctx(fw) != sc_graph_ctx(bw))
        return sc__error_set(err, SC_ERR_INVALID,
                             "the forward and backward graphs must share one "
                             "context");
    p->nfw_out = sc_graph_output_count(fw);
    p->nbw_ph = sc_graph_placeholder_count(bw);
    for (k = 0; k < p->nbw_ph; k++) {
        bool tan = sc_graph_node_role(bw, (sc_node_id)k) == SC_ROLE_TANGENT;
        if (tan)
            ntan++;
        else if (ntan > 0)
            return sc__error_set(err, SC_ERR_INVALID,
                                 "backward placeholder %s comes after a "
                                 "tangent: the saved values come first",
                                 sc_graph_node_name(bw, (sc_node_id)k));
    }
    p->nsaved = p->nbw_ph - ntan;
    if (p->nsaved > p->nfw_out)
        return sc__error_set(err, SC_ERR_INVALID,
                             "the backward graph takes %zu saved values, the "
                             "forward graph returns only %zu values",
                             p->nsaved, p->nfw_out);
    p->nfwd = p->nfw_out - p->nsaved;
    p->saved_of = sc__malloc((p->nsaved + 1) * sizeof *p->saved_of);
    if (!p->saved_of)
        return sc__error_nomem(err);
    for (int pass = 0; pass < 2; pass++)
        for (k = p->nfwd; k < p->nfw_out; k++) {
            bool symint = is_symint_node(fw, sc_graph_output(fw, k));
            if (symint == (pass == 0))
                p->saved_of[j++] = k;
        }
    for (k = 0; k < p->nsaved; k++) {
        sc_node_id o = sc_graph_output(fw, p->saved_of[k]);
        if (is_symint_node(fw, o) !=
            is_symint_node(bw, (sc_node_id)k)) {
            sc_status s = sc__error_set(
                err, SC_ERR_INVALID,
                "backward placeholder %s takes forward output %s: one is a "
                "SymInt, the other is not",
                sc_graph_node_name(bw, (sc_node_id)k),
                o == SC_NODE_NONE ? "None" : sc_graph_node_name(fw, o));
            sc__free(p->saved_of);
            p->saved_of = NULL;
            return s;
        }
    }
    return SC_OK;
}

/* ---- Distinct storages of a set of tensors ------------------------------ */

static int ptr_cmp(const void *a, const void *b)
{
    const void *x = *(const void *const *)a, *y = *(const void *const *)b;
    return x < y ? -1 : x > y ? 1 : 0;
}

/* The bytes of the distinct storages of ts[0..n) (NULL entries skipped). */
static sc_status distinct_bytes(sc_tensor *const *ts, size_t n,
                                uint64_t *out, sc_error *err)
{
    const sc_storage **s = sc__malloc((n + 1) * sizeof *s);
    size_t m = 0, k;
    *out = 0;
    if (!s)
        return sc__error_nomem(err);
    for (k = 0; k < n; k++)
        if (ts[k] && ts[k]->storage)
            s[m++] = ts[k]->storage;
    qsort(s, m, sizeof *s, ptr_cmp);
    for (k = 0; k < m; k++)
        if (k == 0 || s[k] != s[k - 1])
            *out += s[k]->size;
    sc__free(s);
    return SC_OK;
}

/* Prepend "the forward graph: " (or backward) to err's message. */
static void prefix_error(sc_error *err, const char *which)
{
    char msg[SC_ERROR_MESSAGE_MAX];
    memcpy(msg, err->message, sizeof msg);
    msg[sizeof msg - 1] = '\0';
    sc__error_set(err, err->code, "the %s graph: %.480s", which, msg);
}

static void free_tensors(sc_tensor **ts, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        sc_tensor_free(ts[k]);
        ts[k] = NULL;
    }
}

/* ---- Measure ------------------------------------------------------------ */

/* A zero-filled contiguous tensor for each tangent of bw (values do not
 * change the bytes), sizes evaluated under binding. */
static sc_status make_tangent(const sc_graph *bw, sc_node_id id,
                              const sc_symmap *binding, sc_tensor **out,
                              sc_error *err)
{
    sc_result r;
    int64_t sizes[SC_TENSOR_MAX_DIMS];
    sc_graph_node_result(bw, id, &r);
    if (r.kind != SC_RESULT_TENSOR)
        return sc__error_set(err, SC_ERR_INVALID,
                             "tangent %s is not an annotated tensor",
                             sc_graph_node_name(bw, id));
    if (r.tensor.ndim > SC_TENSOR_MAX_DIMS)
        return sc__error_set(err, SC_ERR_LIMIT, "tangent %s has %zu dims",
                             sc_graph_node_name(bw, id), r.tensor.ndim);
    for (size_t d = 0; d < r.tensor.ndim; d++)
        if (!sc_expr_value_si(r.tensor.sizes[d], &sizes[d]))
            SC_TRY(sc_expr_eval_si(sc_graph_ctx(bw), r.tensor.sizes[d],
                                   binding, &sizes[d], err));
    return sc_tensor_new(r.tensor.dtype, r.tensor.ndim, sizes, out, err);
}

sc_status sc_peak_measure(const sc_graph *fw, const sc_graph *bw,
                          const sc_peak_options *opts,
                          sc_peak_report *report, sc_error *err)
{
    sc_peak_options defaults;
    sc_interp_options io;
    sc_interp_stats fst, bst;
    pairing p;
    sc_symmap *binding = NULL;
    size_t npri, nheld = 0, k;
    sc_tensor **fin = NULL, **fout = NULL, **bin = NULL, **bout = NULL;
    sc_tensor **held = NULL, **saved = NULL;
    size_t nprim_held = 0, ns = 0;
    bool hold_primals;
    sc_status status = SC_OK;

    sc_error_init(err);
    memset(report, 0, sizeof *report);
    report->peak_node = SC_NODE_NONE;
    if (!opts) {
        sc_peak_options_init(&defaults);
        opts = &defaults;
    }
    hold_primals = !(opts->flags & SC_PEAK_FREE_PRIMALS);
    SC_TRY(pair_graphs(fw, bw, &p, err));
    npri = sc_graph_placeholder_count(fw);
    fin = sc__calloc(npri + 1, sizeof *fin);
    fout = sc__calloc(p.nfw_out + 1, sizeof *fout);
    bin = sc__calloc(p.nbw_ph + 1, sizeof *bin);
    bout = sc__calloc(sc_graph_output_count(bw) + 1, sizeof *bout);
    held = sc__calloc(npri + p.nfw_out + 1, sizeof *held);
    saved = sc__calloc(p.nfw_out + 1, sizeof *saved);
    binding = sc_symmap_new(sc_graph_ctx(fw));
    if (!fin || !fout || !bin || !bout || !held || !saved || !binding) {
        status = sc__error_nomem(err);
        goto fail;
    }
    SC_CHECK(sc_interp_bind_sizes(fw, opts->sizes, binding, err));
    SC_CHECK(sc_interp_random_inputs(fw, binding, opts->seed, opts->int_high,
                                     fin, err));
    if (hold_primals)
        for (k = 0; k < npri; k++)
            if (!is_symint_node(fw, (sc_node_id)k))
                held[nheld++] = fin[k];
    nprim_held = nheld;

    /* The forward. */
    sc_interp_options_init(&io);
    io.seed = opts->seed;
    io.sizes = opts->sizes;
    status = sc__interp_run_held(fw, fin, &io, held, nheld, fout, &fst, err);
    if (status != SC_OK) {
        prefix_error(err, "forward");
        goto fail;
    }
    /* Held across the boundary: every output tensor, the held primals. */
    for (k = 0; k < p.nfw_out; k++)
        if (!is_symint_node(fw, sc_graph_output(fw, k)))
            held[nheld++] = fout[k];
    SC_CHECK(distinct_bytes(held, nheld, &report->boundary_bytes, err));
    for (k = p.nfwd; k < p.nfw_out; k++)
        if (!is_symint_node(fw, sc_graph_output(fw, k)))
            saved[ns++] = fout[k];
    SC_CHECK(distinct_bytes(saved, ns, &report->saved_bytes, err));

    /* The backward: the saved values, then zero tangents; the user outputs
     * and the held primals stay held. */
    for (k = 0; k < p.nsaved; k++)
        bin[k] = fout[p.saved_of[k]];
    for (k = p.nsaved; k < p.nbw_ph; k++)
        SC_CHECK(make_tangent(bw, (sc_node_id)k, binding, &bin[k], err));
    nheld = nprim_held;
    for (k = 0; k < p.nfwd; k++)
        if (!is_symint_node(fw, sc_graph_output(fw, k)))
            held[nheld++] = fout[k];
    status = sc__interp_run_held(bw, bin, &io, held, nheld, bout, &bst, err);
    if (status != SC_OK) {
        prefix_error(err, "backward");
        goto fail;
    }
    report->forward_peak_bytes = fst.peak_bytes;
    report->backward_peak_bytes = bst.peak_bytes;
    report->peak_in_backward = bst.peak_bytes > fst.peak_bytes;
    report->peak_bytes = report->peak_in_backward ? bst.peak_bytes
                                                  : fst.peak_bytes;
    report->peak_node =
        report->peak_in_backward ? bst.peak_node : fst.peak_node;

fail:
    if (fin)
        free_tensors(fin, npri);
    if (fout)
        free_tensors(fout, p.nfw_out);
    if (bin) /* the saved ones are fout's */
        for (k = p.nsaved; k < p.nbw_ph; k++)
            sc_tensor_free(bin[k]);
    if (bout)
        free_tensors(bout, sc_graph_output_count(bw));
    sc__free(fin);
    sc__free(fout);
    sc__free(bin);
    sc__free(bout);
    sc__free(held);
    sc__free(saved);
    sc__free(p.saved_of);
    sc_symmap_free(binding);
    if (status != SC_OK) {
        memset(report, 0, sizeof *report);
        report->peak_node = SC_NODE_NONE;
    }
    return status;
}

/* ---- Predict ------------------------------------------------------------ */

#define PEAK_LIMIT ((uint64_t)INT64_MAX)

typedef struct sim {
    sc_ctx *ctx;
    const sc_symmap *binding;
    sc_error *err;
    /* storages: bytes and live references */
    uint64_t *bytes;
    size_t *refs;
    size_t nst, cap;
    uint64_t live;
    size_t unknown;
} sim;

/* The storages of one graph's values: node i holds ids[off[i] ..
 * off[i] + cnt[i]); `uniform`: every element of the tuple is ids[off[i]]
 * (a view tuple, split's). */
typedef struct gvals {
    size_t *off, *cnt;
    bool *uniform;
    size_t *ids;
    size_t nids, cap;
} gvals;

static sc_status sim_limit(sim *s)
{
    return sc__error_set(s->err, SC_ERR_LIMIT,
                         "a byte figure exceeds 2^63");
}

static sc_status st_new(sim *s, uint64_t bytes, size_t *id)
{
    if (s->nst == s->cap) {
        size_t ncap = s->cap ? 2 * s->cap : 64;
        uint64_t *nb = sc__realloc(s->bytes, ncap * sizeof *nb);
        size_t *nr;
        if (!nb)
            return sc__error_nomem(s->err);
        s->bytes = nb;
        nr = sc__realloc(s->refs, ncap * sizeof *nr);
        if (!nr)
            return sc__error_nomem(s->err);
        s->refs = nr;
        s->cap = ncap;
    }
    s->bytes[s->nst] = bytes;
    s->refs[s->nst] = 0;
    *id = s->nst++;
    return SC_OK;
}

static sc_status st_ref(sim *s, size_t id)
{
    if (s->refs[id]++ == 0) {
        if (s->live > PEAK_LIMIT - s->bytes[id])
            return sim_limit(s);
        s->live += s->bytes[id];
    }
    return SC_OK;
}

static void st_unref(sim *s, size_t id)
{
    if (s->refs[id] > 0 && --s->refs[id] == 0)
        s->live -= s->bytes[id];
}

static sc_status gv_push(sim *s, gvals *v, size_t id)
{
    if (v->nids == v->cap) {
        size_t ncap = v->cap ? 2 * v->cap : 64;
        size_t *n = sc__realloc(v->ids, ncap * sizeof *n);
        if (!n)
            return sc__error_nomem(s->err);
        v->ids = n;
        v->cap = ncap;
    }
    v->ids[v->nids++] = id;
    return SC_OK;
}

static void gv_free(gvals *v)
{
    sc__free(v->off);
    sc__free(v->cnt);
    sc__free(v->uniform);
    sc__free(v->ids);
    memset(v, 0, sizeof *v);
}

static sc_status eval(sim *s, sc_expr *e, uint64_t *out)
{
    int64_t v;
    if (!sc_expr_value_si(e, &v)) {
        if (!s->binding)
            return sc__error_set(s->err, SC_ERR_UNBOUND,
                                 "a size has no value (no binding)");
        SC_TRY(sc_expr_eval_si(s->ctx, e, s->binding, &v, s->err));
    }
    if (v < 0)
        return sc__error_set(s->err, SC_ERR_INVALID,
                             "a size or stride evaluates to %lld",
                             (long long)v);
    *out = (uint64_t)v;
    return SC_OK;
}

/* The bytes of a fresh storage for meta: just large enough for its sizes
 * and strides (contiguous when it states none, or when contiguous). */
static sc_status storage_bytes(sim *s, const sc_tensor_meta *m,
                               bool contiguous, uint64_t *out)
{
    uint64_t numel = 1, extent = 1, item = sc_dtype_itemsize(m->dtype);
    for (size_t d = 0; d < m->ndim; d++) {
        uint64_t n;
        SC_TRY(eval(s, m->sizes[d], &n));
        if (n != 0 && numel > PEAK_LIMIT / n)
            return sim_limit(s);
        numel *= n;
    }
    if (numel == 0) {
        *out = 0;
        return SC_OK;
    }
    if (contiguous || !m->has_strides) {
        extent = numel;
    } else {
        for (size_t d = 0; d < m->ndim; d++) {
            uint64_t n, st;
            SC_TRY(eval(s, m->sizes[d], &n));
            SC_TRY(eval(s, m->strides[d], &st));
            if (st != 0 && (n - 1) > (PEAK_LIMIT - extent) / st)
                return sim_limit(s);
            extent += (n - 1) * st;
        }
    }
    if (extent > PEAK_LIMIT / (item ? item : 1))
        return sim_limit(s);
    *out = extent * item;
    return SC_OK;
}

static sc_status fresh_for(sim *s, gvals *v, const sc_result *r,
                           bool contiguous)
{
    uint64_t b = 0;
    size_t id;
    if (r->kind != SC_RESULT_TENSOR) {
        s->unknown++;
    } else {
        SC_TRY(storage_bytes(s, &r->tensor, contiguous, &b));
    }
    SC_TRY(st_new(s, b, &id));
    return gv_push(s, v, id);
}

/* Whether m's strides are the contiguous ones of its sizes (dims of size
 * 1 aside; any layout when it has no elements), at the binding. */
static sc_status is_contiguous(sim *s, const sc_tensor_meta *m, bool *out)
{
    uint64_t expect = 1;
    *out = true;
    if (!m->has_strides)
        return SC_OK;
    for (size_t d = 0; d < m->ndim; d++) {
        uint64_t n;
        SC_TRY(eval(s, m->sizes[d], &n));
        if (n == 0)
            return SC_OK;
    }
    for (size_t d = m->ndim; d-- > 0;) {
        uint64_t n, st;
        SC_TRY(eval(s, m->sizes[d], &n));
        if (n > 1) {
            SC_TRY(eval(s, m->strides[d], &st));
            if (st != expect)
                *out = false;
        }
        expect *= n;
    }
    return SC_OK;
}

/* Whether reshape of a tensor `from` to the sizes of `to` is a view: the
 * memory layout allows one (PyTorch's computeStride, as the kernel
 * decides it), at the binding. */
static sc_status reshape_is_view(sim *s, const sc_tensor_meta *from,
                                 const sc_tensor_meta *to, bool *out)
{
    int64_t os[SC_TENSOR_MAX_DIMS], ost[SC_TENSOR_MAX_DIMS];
    int64_t ns[SC_TENSOR_MAX_DIMS];
    int64_t chunk, tnumel = 1, vnumel = 1, numel = 1;
    long vd = (long)to->ndim - 1, td;
    uint64_t u;
    *out = false;
    if (from->ndim > SC_TENSOR_MAX_DIMS || to->ndim > SC_TENSOR_MAX_DIMS)
        return SC_OK;
    for (size_t d = 0; d < from->ndim; d++) {
        SC_TRY(eval(s, from->sizes[d], &u));
        os[d] = (int64_t)u;
        numel *= os[d];
    }
    for (size_t d = from->ndim; d-- > 0;) {
        if (from->has_strides) {
            SC_TRY(eval(s, from->strides[d], &u));
            ost[d] = (int64_t)u;
        } else {
            ost[d] = d + 1 < from->ndim ? ost[d + 1] * os[d + 1] : 1;
        }
    }
    for (size_t d = 0; d < to->ndim; d++) {
        SC_TRY(eval(s, to->sizes[d], &u));
        ns[d] = (int64_t)u;
    }
    if (numel == 0 || from->ndim == 0) {
        *out = true;
        return SC_OK;
    }
    chunk = ost[from->ndim - 1];
    for (td = (long)from->ndim - 1; td >= 0; td--) {
        tnumel *= os[td];
        if (td == 0 ||
            (os[td - 1] != 1 && ost[td - 1] != tnumel * chunk)) {
            while (vd >= 0 && (vnumel < tnumel || ns[vd] == 1)) {
                vnumel *= ns[vd];
                vd--;
            }
            if (vnumel != tnumel)
                return SC_OK;
            if (td > 0) {
                chunk = ost[td - 1];
                tnumel = 1;
                vnumel = 1;
            }
        }
    }
    *out = vd == -1;
    return SC_OK;
}

/* Which argument (its node) a call's result aliases, or SC_NODE_NONE: a
 * view (the op table's alias annotation, or its class view: the kernel of
 * _unsafe_view makes a view), an in-place result, reshape where a view is
 * possible, sum_to_size to its own sizes. */
static sc_status aliased_arg(sim *s, const sc_graph *g, sc_node_id id,
                             sc_node_id *out)
{
    int op = sc__graph_node_op(g, id);
    const sc__op_info *info;
    int k = -1;
    const sc_value *a;
    *out = SC_NODE_NONE;
    if (op < 0 || op == SC_OP_GETITEM)
        return SC_OK;
    info = sc__op_get((sc__op)op);
    if (info->nrets > 0 && info->rets[0].alias.set) {
        for (int i = 0; i < info->nargs; i++)
            if (info->args[i].alias.set &&
                strcmp(info->args[i].alias.set, info->rets[0].alias.set) ==
                    0) {
                k = i;
                break;
            }
    }
    if (k < 0 && info->cls == SC_CLASS_VIEW) /* _unsafe_view's kernel */
        k = 0;
    if (k < 0 && op != SC_OP_SUM_TO_SIZE)
        return SC_OK;
    if (k < 0)
        k = 0;
    if ((size_t)k >= sc_graph_node_positional_count(g, id))
        return SC_OK;
    a = sc_graph_node_arg(g, id, (size_t)k);
    if (a->kind != SC_VALUE_NODE)
        return SC_OK;
    if (op == SC_OP_RESHAPE || op == SC_OP_SUM_TO_SIZE) {
        sc_result ra, rr;
        bool yes = false;
        sc_graph_node_result(g, a->u.node, &ra);
        sc_graph_node_result(g, id, &rr);
        if (ra.kind != SC_RESULT_TENSOR || rr.kind != SC_RESULT_TENSOR)
            return SC_OK;
        if (op == SC_OP_RESHAPE) {
            SC_TRY(reshape_is_view(s, &ra.tensor, &rr.tensor, &yes));
        } else if (ra.tensor.ndim == rr.tensor.ndim) {
            yes = true;
            for (size_t d = 0; d < ra.tensor.ndim; d++) {
                uint64_t x, y;
                SC_TRY(eval(s, ra.tensor.sizes[d], &x));
                SC_TRY(eval(s, rr.tensor.sizes[d], &y));
                if (x != y)
                    yes = false;
            }
        }
        if (!yes)
            return SC_OK;
    }
    *out = a->u.node;
    return SC_OK;
}

/* The getitem user of tuple node id reading element k, or SC_NODE_NONE. */
static sc_node_id element_reader(const sc_graph *g, sc_node_id id, int64_t k)
{
    size_t nu = 0;
    const sc_node_id *users = sc_graph_node_users(g, id, &nu);
    for (size_t u = 0; u < nu; u++) {
        const sc_value *ix;
        if (sc__graph_node_op(g, users[u]) != SC_OP_GETITEM ||
            sc_graph_node_arg_count(g, users[u]) < 2)
            continue;
        ix = sc_graph_node_arg(g, users[u], 1);
        if (ix->kind == SC_VALUE_INT && ix->u.i == k)
            return users[u];
    }
    return SC_NODE_NONE;
}

/* Whether a tuple op's element k is made: false where its output_mask
 * argument says so (the kernels return None there). */
static bool element_made(const sc_graph *g, sc_node_id id, int op, size_t k)
{
    int idx = op >= 0 ? sc__op_arg_index((sc__op)op, "output_mask") : -1;
    const sc_value *v = NULL;
    size_t npos = sc_graph_node_positional_count(g, id);
    if (idx < 0)
        return true;
    if ((size_t)idx < npos) {
        v = sc_graph_node_arg(g, id, (size_t)idx);
    } else {
        for (size_t i = npos; i < sc_graph_node_arg_count(g, id); i++) {
            const char *kw = sc_graph_node_kwname(g, id, i);
            if (kw && strcmp(kw, "output_mask") == 0)
                v = sc_graph_node_arg(g, id, i);
        }
    }
    if (!v || (v->kind != SC_VALUE_LIST && v->kind != SC_VALUE_TUPLE) ||
        k >= v->u.list.n)
        return true;
    return !(v->u.list.items[k].kind == SC_VALUE_BOOL &&
             !v->u.list.items[k].u.b);
}

/* The bytes of a tuple element no getitem reads, for the ops whose
 * element sizes follow from the input (the kernels make them
 * contiguous): native_dropout's output and bool mask (like input),
 * native_layer_norm's mean and rstd (input's dtype, one per normalized
 * row).  *known false for others. */
static sc_status element_fallback(sim *s, const sc_graph *g, sc_node_id id,
                                  int op, size_t k, uint64_t *bytes,
                                  bool *known)
{
    const sc_value *a;
    sc_result in;
    uint64_t numel = 1, item;
    *known = false;
    *bytes = 0;
    if ((op != SC_OP_NATIVE_DROPOUT && op != SC_OP_NATIVE_LAYER_NORM) ||
        sc_graph_node_positional_count(g, id) < 2)
        return SC_OK;
    a = sc_graph_node_arg(g, id, 0);
    if (a->kind != SC_VALUE_NODE)
        return SC_OK;
    sc_graph_node_result(g, a->u.node, &in);
    if (in.kind != SC_RESULT_TENSOR)
        return SC_OK;
    for (size_t d = 0; d < in.tensor.ndim; d++) {
        uint64_t n;
        SC_TRY(eval(s, in.tensor.sizes[d], &n));
        if (n != 0 && numel > PEAK_LIMIT / n)
            return sim_limit(s);
        numel *= n;
    }
    item = sc_dtype_itemsize(in.tensor.dtype);
    if (op == SC_OP_NATIVE_DROPOUT) {
        *bytes = numel * (k == 1 ? 1 : item);
        *known = true;
        return SC_OK;
    }
    if (k == 0) {
        *bytes = numel * item;
        *known = true;
        return SC_OK;
    }
    /* numel / prod(normalized_shape) rows */
    a = sc_graph_node_arg(g, id, 1);
    if (a->kind != SC_VALUE_LIST && a->kind != SC_VALUE_TUPLE)
        return SC_OK;
    for (size_t i = 0; i < a->u.list.n; i++) {
        const sc_value *e = &a->u.list.items[i];
        sc_expr *x = NULL;
        uint64_t n;
        sc_result er;
        if (e->kind == SC_VALUE_INT) {
            if (e->u.i <= 0)
                return SC_OK;
            n = (uint64_t)e->u.i;
        } else {
            if (e->kind == SC_VALUE_SYMINT) {
                x = e->u.expr;
            } else if (e->kind == SC_VALUE_NODE) {
                sc_graph_node_result(g, e->u.node, &er);
                if (er.kind == SC_RESULT_SYMINT)
                    x = er.expr;
            }
            if (!x)
                return SC_OK;
            SC_TRY(eval(s, x, &n));
            if (n == 0)
                return SC_OK;
        }
        numel /= n;
    }
    *bytes = numel * item;
    *known = true;
    return SC_OK;
}

/* Make call node id's value: its storages, referenced once. */
static sc_status make_value(sim *s, const sc_graph *g, gvals *v,
                            sc_node_id id)
{
    sc_result r;
    sc_node_id src;
    size_t start = v->nids;
    int op = sc__graph_node_op(g, id);
    v->off[id] = start;
    sc_graph_node_result(g, id, &r);
    if (r.kind == SC_RESULT_SYMINT || r.kind == SC_RESULT_SYMBOOL ||
        r.kind == SC_RESULT_NONE)
        goto done;
    if (op >= 0 && sc__op_get((sc__op)op)->nrets == 0)
        goto done; /* returns () */
    if (sc__graph_node_op(g, id) == SC_OP_GETITEM) {
        const sc_value *t = sc_graph_node_arg(g, id, 0);
        const sc_value *ix = sc_graph_node_arg(g, id, 1);
        if (t->kind == SC_VALUE_NODE && ix->kind == SC_VALUE_INT &&
            ix->u.i >= 0) {
            sc_node_id tn = t->u.node;
            size_t e = v->uniform[tn] ? 0 : (size_t)ix->u.i;
            bool dense = true;
            /* the kernels write a tuple's fresh elements contiguously; the
             * interpreter copies one into the layout its getitem states */
            if (!v->uniform[tn] && r.kind == SC_RESULT_TENSOR)
                SC_TRY(is_contiguous(s, &r.tensor, &dense));
            if (!dense) {
                SC_TRY(fresh_for(s, v, &r, false));
                goto done;
            }
            if (e < v->cnt[tn]) {
                SC_TRY(gv_push(s, v, v->ids[v->off[tn] + e]));
                goto done;
            }
        }
        s->unknown++;
        goto done;
    }
    SC_TRY(aliased_arg(s, g, id, &src));
    if (src != SC_NODE_NONE) {
        if (v->cnt[src] > 0)
            SC_TRY(gv_push(s, v, v->ids[v->off[src]]));
        v->uniform[id] = true;
        goto done;
    }
    if (r.kind == SC_RESULT_TUPLE) {
        /* fresh elements, sized by the getitem nodes that read them */
        size_t n = r.count, nu = 0;
        const sc_node_id *users = sc_graph_node_users(g, id, &nu);
        for (size_t u = 0; u < nu; u++) {
            const sc_value *ix;
            if (sc__graph_node_op(g, users[u]) != SC_OP_GETITEM)
                continue;
            ix = sc_graph_node_arg(g, users[u], 1);
            if (ix->kind == SC_VALUE_INT && ix->u.i >= 0 &&
                (size_t)ix->u.i >= n)
                n = (size_t)ix->u.i + 1;
        }
        for (size_t e = 0; e < n; e++) {
            sc_node_id rd = element_reader(g, id, (int64_t)e);
            sc_result er;
            if (rd == SC_NODE_NONE) {
                size_t sid;
                uint64_t b = 0;
                bool known = false;
                if (element_made(g, id, op, e)) {
                    SC_TRY(element_fallback(s, g, id, op, e, &b, &known));
                    if (!known)
                        s->unknown++;
                }
                SC_TRY(st_new(s, b, &sid));
                SC_TRY(gv_push(s, v, sid));
                continue;
            }
            sc_graph_node_result(g, rd, &er);
            /* a mixed-type batch norm's statistics are float32 whatever
             * their annotation says (doc/interp.md) */
            if (er.kind == SC_RESULT_TENSOR && sc__interp_bn_stat_f32(g, rd))
                er.tensor.dtype = SC_DTYPE_F32;
            SC_TRY(fresh_for(s, v, &er, true));
        }
        goto done;
    }
    SC_TRY(fresh_for(s, v, &r, false));
done:
    v->cnt[id] = v->nids - start;
    for (size_t k = start; k < v->nids; k++)
        SC_TRY(st_ref(s, v->ids[k]));
    return SC_OK;
}

static void drop_value(sim *s, gvals *v, sc_node_id id)
{
    for (size_t k = 0; k < v->cnt[id]; k++)
        st_unref(s, v->ids[v->off[id] + k]);
}

/* After which node each value dies (SC_NODE_NONE: never, an output's),
 * as the interpreter frees values. */
static sc_status die_after(const sc_graph *g, sc_node_id *last,
                           sc_error *err)
{
    size_t n = sc_graph_node_count(g), np = sc_graph_placeholder_count(g);
    (void)err;
    for (size_t i = 0; i < n; i++) {
        size_t nu;
        const sc_node_id *users = sc_graph_node_users(g, (sc_node_id)i, &nu);
        sc_node_id l = (sc_node_id)i;
        if (sc_graph_node_output_use_count(g, (sc_node_id)i) > 0) {
            last[i] = SC_NODE_NONE;
            continue;
        }
        for (size_t k = 0; k < nu; k++)
            if (users[k] > l)
                l = users[k];
        if (l == (sc_node_id)i && i < np)
            l = (sc_node_id)(np - 1);
        last[i] = l;
    }
    return SC_OK;
}

typedef struct phase_peak {
    uint64_t peak;
    sc_node_id node;
} phase_peak;

static void note(const sim *s, phase_peak *pk, sc_node_id id)
{
    if (s->live > pk->peak || pk->node == SC_NODE_NONE) {
        pk->peak = s->live;
        pk->node = id;
    }
}

/* Run one graph's liveness: placeholders already made (their values in
 * v), then every call node. */
static sc_status run_graph(sim *s, const sc_graph *g, gvals *v,
                           phase_peak *pk)
{
    size_t n = sc_graph_node_count(g), np = sc_graph_placeholder_count(g);
    sc_node_id *last = sc__malloc((n + 1) * sizeof *last);
    size_t *die_off = NULL, *die = NULL;
    sc_status status = SC_OK;
    size_t i;
    if (!last)
        return sc__error_nomem(s->err);
    SC_CHECK(die_after(g, last, s->err));
    die_off = sc__calloc(n + 2, sizeof *die_off);
    die = sc__malloc((n + 1) * sizeof *die);
    if (!die_off || !die) {
        status = sc__error_nomem(s->err);
        goto fail;
    }
    for (i = 0; i < n; i++)
        if (last[i] != SC_NODE_NONE)
            die_off[last[i] + 1]++;
    for (i = 0; i < n; i++)
        die_off[i + 1] += die_off[i];
    {
        size_t *fill = sc__malloc((n + 1) * sizeof *fill);
        if (!fill) {
            status = sc__error_nomem(s->err);
            goto fail;
        }
        memcpy(fill, die_off, (n + 1) * sizeof *fill);
        for (i = 0; i < n; i++)
            if (last[i] != SC_NODE_NONE)
                die[fill[last[i]]++] = i;
        sc__free(fill);
    }
    if (np > 0) {
        note(s, pk, (sc_node_id)(np - 1));
        for (size_t k = die_off[np - 1]; k < die_off[np]; k++)
            drop_value(s, v, (sc_node_id)die[k]);
    }
    for (i = np; i < n; i++) {
        SC_CHECK(make_value(s, g, v, (sc_node_id)i));
        note(s, pk, (sc_node_id)i);
        for (size_t k = die_off[i]; k < die_off[i + 1]; k++)
            drop_value(s, v, (sc_node_id)die[k]);
    }
fail:
    sc__free(last);
    sc__free(die_off);
    sc__free(die);
    return status;
}

static sc_status gv_init(sim *s, gvals *v, size_t n)
{
    memset(v, 0, sizeof *v);
    v->off = sc__calloc(n + 1, sizeof *v->off);
    v->cnt = sc__calloc(n + 1, sizeof *v->cnt);
    v->uniform = sc__calloc(n + 1, sizeof *v->uniform);
    if (!v->off || !v->cnt || !v->uniform)
        return sc__error_nomem(s->err);
    return SC_OK;
}

/* A placeholder's value: a fresh contiguous storage for a tensor. */
static sc_status fresh_placeholder(sim *s, const sc_graph *g, gvals *v,
                                   sc_node_id id)
{
    sc_result r;
    sc_graph_node_result(g, id, &r);
    v->off[id] = v->nids;
    if (r.kind == SC_RESULT_TENSOR)
        SC_TRY(fresh_for(s, v, &r, true));
    v->cnt[id] = v->nids - v->off[id];
    return SC_OK;
}

static sc_status ref_value(sim *s, const gvals *v, sc_node_id id)
{
    for (size_t k = 0; k < v->cnt[id]; k++)
        SC_TRY(st_ref(s, v->ids[v->off[id] + k]));
    return SC_OK;
}

/* The bytes of the distinct storages of fw outputs [from, to) (tensors). */
static uint64_t outputs_bytes(sim *s, const sc_graph *fw, const gvals *fv,
                              size_t from, size_t to, bool *mark)
{
    uint64_t b = 0;
    for (size_t k = from; k < to; k++) {
        sc_node_id o = sc_graph_output(fw, k);
        if (o == SC_NODE_NONE)
            continue;
        for (size_t j = 0; j < fv->cnt[o]; j++) {
            size_t id = fv->ids[fv->off[o] + j];
            if (!mark[id]) {
                mark[id] = true;
                b += s->bytes[id];
            }
        }
    }
    return b;
}

/* The hints of both graphs' symbols as a new binding (a symbol without
 * one is left out: its sizes then do not evaluate). */
static sc_status hints_binding(const sc_graph *fw, const sc_graph *bw,
                               sc_symmap **out, sc_error *err)
{
    const sc_graph *gs[2] = {fw, bw};
    sc_symmap *m = sc_symmap_new(sc_graph_ctx(fw));
    sc_status status = SC_OK;
    *out = NULL;
    if (!m)
        return sc__error_nomem(err);
    for (int k = 0; k < 2; k++) {
        size_t n = sc_graph_symbols(gs[k], NULL, 0);
        sc_expr **syms = sc__malloc((n + 1) * sizeof *syms);
        if (!syms) {
            status = sc__error_nomem(err);
            goto fail;
        }
        n = sc_graph_symbols(gs[k], syms, n);
        for (size_t i = 0; i < n && status == SC_OK; i++) {
            int64_t v;
            if (!sc_symmap_get(m, syms[i]) &&
                sc_graph_get_hint(gs[k], syms[i], &v))
                status = sc_symmap_set_si(m, syms[i], v, err);
        }
        sc__free(syms);
        if (status != SC_OK)
            goto fail;
    }
    *out = m;
    return SC_OK;
fail:
    sc_symmap_free(m);
    return status;
}

sc_status sc_peak_predict(const sc_graph *fw, const sc_graph *bw,
                          const sc_symmap *binding, unsigned flags,
                          sc_peak_report *report, sc_error *err)
{
    sim s;
    gvals fv, bv;
    pairing p;
    phase_peak fpk = {0, SC_NODE_NONE}, bpk = {0, SC_NODE_NONE};
    size_t npri, k;
    bool hold = !(flags & SC_PEAK_FREE_PRIMALS);
    bool *mark = NULL;
    sc_symmap *own = NULL;
    sc_status status = SC_OK;

    sc_error_init(err);
    memset(report, 0, sizeof *report);
    report->peak_node = SC_NODE_NONE;
    memset(&s, 0, sizeof s);
    memset(&fv, 0, sizeof fv);
    memset(&bv, 0, sizeof bv);
    SC_TRY(pair_graphs(fw, bw, &p, err));
    s.ctx = sc_graph_ctx(fw);
    s.err = err;
    if (!binding) {
        SC_CHECK(hints_binding(fw, bw, &own, err));
        binding = own;
    }
    s.binding = binding;
    npri = sc_graph_placeholder_count(fw);

    /* The forward: the primals (held by the caller unless freed), then
     * its nodes. */
    SC_CHECK(gv_init(&s, &fv, sc_graph_node_count(fw)));
    for (k = 0; k < npri; k++) {
        SC_CHECK(fresh_placeholder(&s, fw, &fv, (sc_node_id)k));
        if (hold)
            SC_CHECK(ref_value(&s, &fv, (sc_node_id)k));
        SC_CHECK(ref_value(&s, &fv, (sc_node_id)k));
    }
    SC_CHECK(run_graph(&s, fw, &fv, &fpk));
    report->boundary_bytes = s.live;

    /* Restart the count for the backward: the held values, then its
     * placeholders (the saved values are the forward's storages). */
    for (k = 0; k < s.nst; k++)
        s.refs[k] = 0;
    s.live = 0;
    mark = sc__calloc(s.nst + 1, sizeof *mark);
    if (!mark)
        SC_CHECK(sc__error_nomem(err));
    report->saved_bytes = outputs_bytes(&s, fw, &fv, p.nfwd, p.nfw_out, mark);
    if (hold)
        for (k = 0; k < npri; k++)
            SC_CHECK(ref_value(&s, &fv, (sc_node_id)k));
    for (k = 0; k < p.nfwd; k++) {
        sc_node_id o = sc_graph_output(fw, k);
        if (o != SC_NODE_NONE)
            SC_CHECK(ref_value(&s, &fv, o));
    }
    SC_CHECK(gv_init(&s, &bv, sc_graph_node_count(bw)));
    for (k = 0; k < p.nbw_ph; k++) {
        sc_node_id id = (sc_node_id)k;
        if (k < p.nsaved) {
            sc_node_id o = sc_graph_output(fw, p.saved_of[k]);
            bv.off[id] = bv.nids;
            if (o != SC_NODE_NONE)
                for (size_t j = 0; j < fv.cnt[o]; j++)
                    SC_CHECK(gv_push(&s, &bv, fv.ids[fv.off[o] + j]));
            bv.cnt[id] = bv.nids - bv.off[id];
        } else {
            SC_CHECK(fresh_placeholder(&s, bw, &bv, id));
        }
        SC_CHECK(ref_value(&s, &bv, id));
    }
    SC_CHECK(run_graph(&s, bw, &bv, &bpk));

    report->forward_peak_bytes = fpk.peak;
    report->backward_peak_bytes = bpk.peak;
    report->peak_in_backward = bpk.peak > fpk.peak;
    report->peak_bytes = report->peak_in_backward ? bpk.peak : fpk.peak;
    report->peak_node = report->peak_in_backward ? bpk.node : fpk.node;
    report->unknown_elements = s.unknown;

fail:
    sc__free(mark);
    sc_symmap_free(own);
    gv_free(&fv);
    gv_free(&bv);
    sc__free(s.bytes);
    sc__free(s.refs);
    sc__free(p.saved_of);
    if (status != SC_OK) {
        memset(report, 0, sizeof *report);
        report->peak_node = SC_NODE_NONE;
    }
    return status;
}
