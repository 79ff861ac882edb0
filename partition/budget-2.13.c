/* symcut — torch 2.13's memory budget (activation_memory_budget) under
 * the pytorch-2.13 policy: the relaxed ban sets, torch's FLOP-count
 * runtime estimate, the quantized 0-1 knapsack with its float32 table,
 * and the last min cut with the knapsack's choice (doc/partition.md,
 * "Memory budget under pytorch-2.13").
 *
 * Every min cut is the partitioner's own (classify.c, network.c) run
 * with other ban-rule settings; between two, the per-node state the
 * classification writes is cleared here. */
#include <config.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph/ops.h"
#include "partition/budget-2.13.h"
#include "partition/partition-internal.h"

#define DIST_INF 1000000000
/* torch's dp knapsack scales the normalized memories by this */
#define QUANT 10000

/* ---- State between min cuts ------------------------------------------- */

/* Forget a cut's saved set (the lists network.c fills). */
static void forget_cut(sc_partition *p)
{
    size_t i;
    p->saved_tensors.n = 0;
    p->saved_symints.n = 0;
    p->cut_value = 0;
    for (i = 0; i < p->n; i++)
        p->nodes[i].flags &= (uint16_t)~SC__PN_SAVED;
}

/* Classify again with the ban rules rules_off (prepare.c's per-node state
 * kept: the output classes, the flags it sets). */
static sc_status reclassify(sc_partition *p, unsigned rules_off,
                            sc_error *err)
{
    size_t i;
    const unsigned keep_cls = SC_PARTITION_FW_OUTPUT | SC_PARTITION_BW_OUTPUT;
    const uint16_t clear = SC__PN_SRC | SC__PN_IN_SINK | SC__PN_OUT_SINK |
                           SC__PN_SAVED | SC__PN_IN_FW;
    double t = sc__partition_now();
    forget_cut(p);
    p->rules_off = rules_off;
    for (i = 0; i < p->n; i++) {
        sc__pnode *pn = &p->nodes[i];
        pn->cls &= (uint8_t)keep_cls;
        pn->flags &= (uint16_t)~clear;
        pn->ban = SC_PARTITION_BAN_NONE;
        pn->dist = 0;
        pn->weight = 0;
    }
    SC_TRY(sc__partition_classify(p, err));
    p->seconds[SC_PARTITION_PHASE_CLASSIFY] += sc__partition_now() - t;
    return SC_OK;
}

/* ---- Sizes as torch's _size_of ----------------------------------------- */

/* A tensor's bytes, 1 for a SymInt, the elements' bytes for a tuple (read
 * from its getitem users: the joint keeps one per element it uses). */
static int64_t size_of(const sc_partition *p, sc_node_id id)
{
    const sc__pnode *pn = &p->nodes[id];
    size_t k;
    int64_t s = 0;
    switch (pn->vkind) {
    case SC__PV_TENSOR:
        return pn->bytes > 0 ? pn->bytes : 0;
    case SC__PV_SYMINT:
        return 1;
    case SC__PV_TUPLE:
        if (!p->uoff)
            return 0;
        for (k = p->uoff[id]; k < p->uoff[id + 1]; k++) {
            sc_node_id u = p->users[k];
            if (sc__graph_node_op(p->g, u) == SC_OP_GETITEM &&
                p->nodes[u].bytes > 0)
                s += p->nodes[u].bytes;
        }
        return s;
    default:
        return 0;
    }
}

/* The saved values of the last cut, in bytes (torch sums the saved list
 * its solve_min_cut returns: tensors and SymInts). */
static int64_t cut_bytes(const sc_partition *p)
{
    size_t i;
    int64_t s = 0;
    for (i = 0; i < p->saved_tensors.n; i++)
        s += size_of(p, p->saved_tensors.ids[i]);
    for (i = 0; i < p->saved_symints.n; i++)
        s += size_of(p, p->saved_symints.ids[i]);
    return s;
}

static bool is_primal(const sc_partition *p, sc_node_id id)
{
    return sc_graph_node_kind(p->g, id) == SC_NODE_PLACEHOLDER &&
           sc_graph_node_role(p->g, id) == SC_ROLE_PRIMAL;
}

/* ---- torch's runtime estimate: the FlopCounterMode registry ------------- */

/* The sizes of a tensor argument at the hints; false if it is not one. */
static sc_status arg_shape(sc_partition *p, sc_node_id id, size_t i,
                           int64_t *dims, size_t maxd, size_t *nd, bool *ok,
                           sc_error *err)
{
    const sc_value *v;
    sc_result r;
    size_t d;
    *ok = false;
    if (i >= sc_graph_node_arg_count(p->g, id))
        return SC_OK;
    v = sc_graph_node_arg(p->g, id, i);
    if (v->kind != SC_VALUE_NODE)
        return SC_OK;
    sc_graph_node_result(p->g, v->u.node, &r);
    if (r.kind != SC_RESULT_TENSOR || r.tensor.ndim > maxd)
        return SC_OK;
    for (d = 0; d < r.tensor.ndim; d++)
        SC_TRY(sc__partition_eval(p, r.tensor.sizes[d], &dims[d], err));
    *nd = r.tensor.ndim;
    *ok = true;
    return SC_OK;
}

static bool arg_bool(const sc_partition *p, sc_node_id id, size_t i,
                     bool dflt)
{
    const sc_value *v;
    if (i >= sc_graph_node_arg_count(p->g, id))
        return dflt;
    v = sc_graph_node_arg(p->g, id, i);
    if (v->kind == SC_VALUE_BOOL)
        return v->u.b;
    if (v->kind == SC_VALUE_INT)
        return v->u.i != 0;
    return dflt;
}

/* Products in long double: torch's Python ints are exact; below 2^64 a
 * long double holds them exactly (64-bit mantissa) where the platform has
 * one, and the result becomes a float32 anyway. */
typedef long double flopnum;

static flopnum bmm_count(flopnum b, flopnum m, flopnum k, flopnum n)
{
    return b * m * n * 2 * k;
}

/* conv_flop_count: spatial points of the output (of the input when
 * transposed) x filter points x batch x c_out x c_in x 2. */
static flopnum conv_count(const int64_t *x, size_t nx, const int64_t *w,
                          size_t nw, const int64_t *out, size_t nout,
                          bool transposed)
{
    const int64_t *cs = transposed ? x : out;
    size_t ncs = transposed ? nx : nout, d;
    flopnum f = 2;
    if (nx < 1 || nw < 2)
        return 0;
    for (d = 2; d < ncs; d++)
        f *= (flopnum)cs[d];
    for (d = 2; d < nw; d++)
        f *= (flopnum)w[d];
    return f * (flopnum)x[0] * (flopnum)w[0] * (flopnum)w[1];
}

static void transpose01(const int64_t *s, size_t n, int64_t *t)
{
    size_t d;
    for (d = 0; d < n; d++)
        t[d] = s[d];
    if (n >= 2) {
        t[0] = s[1];
        t[1] = s[0];
    }
}

/* The overload packet of a target: "torch.ops.aten.mm.default" ->
 * "torch.ops.aten.mm" (len). */
static bool packet_is(const char *target, const char *packet)
{
    size_t n = strlen(packet);
    return strncmp(target, packet, n) == 0 && target[n] == '.' &&
           !strchr(target + n + 1, '.');
}

/* 1: one of the scaled-dot-product attention forwards torch's registry
 * counts (not the CPU one, _scaled_dot_product_flash_attention_for_cpu);
 * 2: their backwards; 0: neither. */
static int sdpa_kind(const char *target)
{
    static const char *const kernels[] = {"efficient", "flash", "cudnn"};
    static const char prefix[] = "torch.ops.aten._scaled_dot_product_";
    char packet[96];
    size_t i;
    if (strncmp(target, prefix, sizeof prefix - 1) != 0)
        return 0;
    for (i = 0; i < sizeof kernels / sizeof kernels[0]; i++) {
        snprintf(packet, sizeof packet, "%s%s_attention", prefix, kernels[i]);
        if (packet_is(target, packet))
            return 1;
        snprintf(packet, sizeof packet, "%s%s_attention_backward", prefix,
                 kernels[i]);
        if (packet_is(target, packet))
            return 2;
    }
    return 0;
}

sc_status sc__budget_2_13_runtime(sc_partition *p, sc_node_id id,
                                  double *out, sc_error *err)
{
    const char *t = sc_graph_node_target(p->g, id);
    int64_t a[8], b[8], c[8], o[8], ta[8], tb[8], tc[8];
    size_t na = 0, nb = 0, nc = 0, no = 0;
    bool oka, okb, okc, oko;
    flopnum f = 0;
    sc_result r;

    *out = 1;
    if (!t || sc_graph_node_kind(p->g, id) != SC_NODE_CALL)
        return SC_OK;
    if (packet_is(t, "torch.ops.aten.mm") ||
        packet_is(t, "torch.ops.aten._scaled_mm")) {
        SC_TRY(arg_shape(p, id, 0, a, 8, &na, &oka, err));
        SC_TRY(arg_shape(p, id, 1, b, 8, &nb, &okb, err));
        if (oka && okb && na == 2 && nb == 2)
            f = bmm_count(1, (flopnum)a[0], (flopnum)a[1], (flopnum)b[1]);
    } else if (packet_is(t, "torch.ops.aten.addmm")) {
        SC_TRY(arg_shape(p, id, 1, a, 8, &na, &oka, err));
        SC_TRY(arg_shape(p, id, 2, b, 8, &nb, &okb, err));
        if (oka && okb && na == 2 && nb == 2)
            f = bmm_count(1, (flopnum)a[0], (flopnum)a[1], (flopnum)b[1]);
    } else if (packet_is(t, "torch.ops.aten.bmm") ||
               packet_is(t, "torch.ops.aten.baddbmm")) {
        size_t k0 = packet_is(t, "torch.ops.aten.bmm") ? 0 : 1;
        SC_TRY(arg_shape(p, id, k0, a, 8, &na, &oka, err));
        SC_TRY(arg_shape(p, id, k0 + 1, b, 8, &nb, &okb, err));
        if (oka && okb && na == 3 && nb == 3)
            f = bmm_count((flopnum)a[0], (flopnum)a[1], (flopnum)a[2],
                          (flopnum)b[2]);
    } else if (packet_is(t, "torch.ops.aten.convolution") ||
               packet_is(t, "torch.ops.aten._convolution") ||
               packet_is(t, "torch.ops.aten.cudnn_convolution") ||
               packet_is(t, "torch.ops.aten._slow_conv2d_forward") ||
               packet_is(t, "torch.ops.aten.convolution_overrideable")) {
        SC_TRY(arg_shape(p, id, 0, a, 8, &na, &oka, err));
        SC_TRY(arg_shape(p, id, 1, b, 8, &nb, &okb, err));
        sc_graph_node_result(p->g, id, &r);
        oko = r.kind == SC_RESULT_TENSOR && r.tensor.ndim <= 8;
        if (oko) {
            size_t d;
            for (d = 0; d < r.tensor.ndim; d++)
                SC_TRY(sc__partition_eval(p, r.tensor.sizes[d], &o[d], err));
            no = r.tensor.ndim;
        }
        if (oka && okb && oko)
            f = conv_count(a, na, b, nb, o, no, arg_bool(p, id, 6, false));
    } else if (packet_is(t, "torch.ops.aten.convolution_backward")) {
        /* grad_out, input, weight, ..., transposed (7), ..., output_mask
         * (10); grad_input has the input's sizes, grad_weight the
         * weight's */
        bool transposed = arg_bool(p, id, 7, false);
        const sc_value *mask = sc_graph_node_arg_count(p->g, id) > 10
                                   ? sc_graph_node_arg(p->g, id, 10)
                                   : NULL;
        bool m0 = true, m1 = true;
        if (mask && (mask->kind == SC_VALUE_LIST ||
                     mask->kind == SC_VALUE_TUPLE) && mask->u.list.n >= 2) {
            m0 = mask->u.list.items[0].kind == SC_VALUE_BOOL &&
                 mask->u.list.items[0].u.b;
            m1 = mask->u.list.items[1].kind == SC_VALUE_BOOL &&
                 mask->u.list.items[1].u.b;
        }
        SC_TRY(arg_shape(p, id, 0, a, 8, &na, &oka, err));
        SC_TRY(arg_shape(p, id, 1, b, 8, &nb, &okb, err));
        SC_TRY(arg_shape(p, id, 2, c, 8, &nc, &okc, err));
        if (oka && okb && okc) {
            if (m0)
                f += conv_count(a, na, c, nc, b, nb, !transposed);
            if (m1) {
                transpose01(a, na, ta);
                transpose01(b, nb, tb);
                transpose01(c, nc, tc);
                f += transposed ? conv_count(ta, na, tb, nb, tc, nc, false)
                                : conv_count(tb, nb, ta, na, tc, nc, false);
            }
        }
    } else if (sdpa_kind(t) == 1) {
        SC_TRY(arg_shape(p, id, 0, a, 8, &na, &oka, err));
        SC_TRY(arg_shape(p, id, 1, b, 8, &nb, &okb, err));
        SC_TRY(arg_shape(p, id, 2, c, 8, &nc, &okc, err));
        if (oka && okb && okc && na == 4 && nb == 4 && nc == 4) {
            flopnum bh = (flopnum)a[0] * (flopnum)a[1];
            f = bmm_count(bh, (flopnum)a[2], (flopnum)a[3], (flopnum)b[2]) +
                bmm_count(bh, (flopnum)a[2], (flopnum)b[2], (flopnum)c[3]);
        }
    } else if (sdpa_kind(t) == 2) {
        /* grad_out, query, key, value */
        SC_TRY(arg_shape(p, id, 1, a, 8, &na, &oka, err));
        SC_TRY(arg_shape(p, id, 2, b, 8, &nb, &okb, err));
        SC_TRY(arg_shape(p, id, 3, c, 8, &nc, &okc, err));
        if (oka && okb && okc && na == 4 && nb == 4 && nc == 4) {
            flopnum bh = (flopnum)a[0] * (flopnum)a[1], sq = (flopnum)a[2],
                    dq = (flopnum)a[3], sk = (flopnum)b[2],
                    dv = (flopnum)c[3];
            f = bmm_count(bh, sq, dq, sk) + bmm_count(bh, sq, dv, sk) +
                bmm_count(bh, sk, sq, dv) + bmm_count(bh, sq, sk, dq) +
                bmm_count(bh, dq, sq, sk);
        }
    }
    /* max(counted_flops, 1) */
    *out = f > 1 ? (double)f : 1;
    return SC_OK;
}

/* ---- The knapsack ------------------------------------------------------- */

sc_status sc__budget_2_13_knapsack(const double *mem, const double *runtime,
                                   size_t n, double capacity, bool *recompute,
                                   sc_error *err)
{
    int64_t *q = NULL, cap, j;
    float *prev = NULL, *cur = NULL;
    unsigned char *changed = NULL;
    size_t i, width, rowbytes;
    sc_status status = SC_OK;

    cap = (int64_t)nearbyint(capacity * QUANT);
    if (cap < 0)
        cap = 0;
    width = (size_t)cap + 1;
    rowbytes = (width + 7) / 8;
    if (n > 0 && rowbytes > ((size_t)1 << 34) / n)
        return sc__error_set(err, SC_ERR_LIMIT,
                             "memory budget: a knapsack of %zu items is "
                             "too large",
                             n);
    q = sc__calloc(n ? n : 1, sizeof *q);
    prev = sc__calloc(width, sizeof *prev);
    cur = sc__calloc(width, sizeof *cur);
    changed = sc__calloc(n ? n * rowbytes : 1, 1);
    if (!q || !prev || !cur || !changed)
        SC_CHECK(sc__error_nomem(err));
    for (i = 0; i < n; i++) {
        double m = nearbyint(mem[i] * QUANT);
        q[i] = m > 9e18 ? INT64_MAX / 2 : (int64_t)m;
    }
    for (i = 0; i < n; i++) {
        float r = (float)runtime[i];
        unsigned char *bits = changed + i * rowbytes;
        float *tmp;
        for (j = 0; j < (int64_t)width; j++) {
            float v = prev[j];
            if (q[i] == 0) {
                v = prev[j] + r;
            } else if (j >= q[i]) {
                float w = prev[j - q[i]] + r;
                v = w > v ? w : v;
            }
            cur[j] = v;
            if (v != prev[j])
                bits[j / 8] |= (unsigned char)(1u << (j % 8));
        }
        tmp = prev;
        prev = cur;
        cur = tmp;
    }
    j = cap;
    for (i = n; i-- > 0;) {
        const unsigned char *bits = changed + i * rowbytes;
        if (bits[j / 8] & (1u << (j % 8))) {
            recompute[i] = false;
            j -= q[i];
        } else {
            recompute[i] = true;
        }
    }
fail:
    sc__free(q);
    sc__free(prev);
    sc__free(cur);
    sc__free(changed);
    return status;
}

/* ---- choose_saved_values_set -------------------------------------------- */

typedef struct cand {
    sc_node_id id;
    int64_t bytes;
    size_t order; /* torch's banning order: joint order */
} cand;

static int cmp_cand(const void *x, const void *y)
{
    const cand *a = x, *b = y;
    if (a->bytes != b->bytes)
        return a->bytes > b->bytes ? -1 : 1; /* larger first */
    return a->order < b->order ? -1 : a->order > b->order; /* stable */
}

/* Budget 0: torch saves its inputs (the primals, and the nodes tagged
 * must_save when it gives up on a knapsack), then drops those its
 * backward does not read (extract.c does the same): every primal is
 * saved (its X_out tied to the sink), nothing else may be saved, nothing
 * else hangs from the source. */
static void save_inputs_only(sc_partition *p, bool keep_must_save)
{
    size_t i;
    forget_cut(p);
    for (i = 0; i < p->n; i++) {
        sc__pnode *pn = &p->nodes[i];
        if (!(pn->flags & SC__PN_CANON))
            continue;
        if (is_primal(p, (sc_node_id)i)) {
            if (pn->weight >= 0 && !(pn->flags & SC__PN_IN_SINK))
                pn->flags |= SC__PN_SRC | SC__PN_OUT_SINK;
            continue;
        }
        if (keep_must_save && pn->tag == SC_PARTITION_TAG_MUST_SAVE &&
            (pn->flags & SC__PN_SRC))
            continue;
        pn->flags &= (uint16_t)~SC__PN_SRC;
        pn->ban = SC_PARTITION_BAN_NONE;
        if (!(pn->flags & SC__PN_IN_SINK))
            pn->weight = -1;
    }
}

/* One min cut with the current classification: its saved bytes. */
static sc_status cut(sc_partition *p, int64_t *bytes, sc_error *err)
{
    forget_cut(p);
    SC_TRY(sc__partition_cut(p, err));
    *bytes = cut_bytes(p);
    return SC_OK;
}

sc_status sc__budget_2_13(sc_partition *p, const sc_partition_options *opts,
                          sc_error *err)
{
    const unsigned more = SC_PARTITION_RULE_USED_FAR_APART |
                          SC_PARTITION_RULE_LONG_FUSIBLE_CHAINS |
                          SC_PARTITION_RULE_MATERIALIZED_BACKWARD;
    unsigned base = p->rules_off;
    double budget = opts->memory_budget_ratio, min_act, max_act, ratio = 1;
    const char *which = "";
    int64_t inputs = 0, bytes;
    bool sym_input = false;
    cand *cs = NULL;
    double *mem = NULL, *rt = NULL, total_rt = 0, kept_rt = 0;
    bool *recompute = NULL;
    size_t i, nc = 0, nrec = 0;
    sc_status status = SC_OK;

    if (p->policy != SC_PARTITION_PYTORCH_2_13 ||
        opts->memory_budget_kind == SC_PARTITION_BUDGET_NONE)
        return SC_OK;
    if (opts->memory_budget_kind == SC_PARTITION_BUDGET_BYTES)
        return sc__error_set(err, SC_ERR_INVALID,
                             "memory budget %llu bytes: the pytorch-2.13 "
                             "policy takes torch's activation_memory_budget, "
                             "a ratio from 0 to 1 (a budget in bytes needs "
                             "the exact policy)",
                             (unsigned long long)opts->memory_budget_bytes);
    if (opts->memory_budget_kind == SC_PARTITION_BUDGET_SAVED)
        return sc__error_set(err, SC_ERR_INVALID,
                             "memory budget: a given saved set is not a "
                             "pytorch-2.13 budget (partition it under the "
                             "exact policy)");
    if (opts->memory_budget_kind != SC_PARTITION_BUDGET_RATIO)
        return sc__error_set(err, SC_ERR_INVALID,
                             "unknown memory budget kind %d",
                             opts->memory_budget_kind);
    if (!(budget >= 0 && budget <= 1))
        return sc__error_set(err, SC_ERR_INVALID,
                             "memory budget %g: torch's "
                             "activation_memory_budget is from 0 to 1",
                             budget);
    if (budget == 1)
        return SC_OK;
    if (budget == 0) {
        save_inputs_only(p, false);
        return sc__partition_warn(p, "memory budget 0 (pytorch-2.13): torch "
                                     "saves the inputs only")
                   ? SC_OK
                   : sc__error_nomem(err);
    }

    for (i = 0; i < sc_graph_placeholder_count(p->g); i++)
        if (is_primal(p, (sc_node_id)i)) {
            inputs += size_of(p, (sc_node_id)i);
            if (p->nodes[i].vkind != SC__PV_TENSOR)
                sym_input = true;
        }
    /* the default cut (the classification run.c made) */
    SC_CHECK(cut(p, &bytes, err));
    min_act = (double)inputs / 1e9;
    max_act = (double)bytes / 1e9;
    if (max_act <= min_act) {
        forget_cut(p);
        which = "the default cut (it saves no more than the inputs)";
        goto note;
    }
#define MEM_RATIO(b) (((double)(b) / 1e9 - min_act) / (max_act - min_act))
    SC_CHECK(reclassify(p, base | more, err));
    SC_CHECK(cut(p, &bytes, err));
    ratio = MEM_RATIO(bytes);
    if (ratio < budget) {
        forget_cut(p);
        which = "the more aggressive cut (used-far-apart, "
                "long-fusible-chains, materialized-backward off)";
        goto note;
    }
    SC_CHECK(reclassify(p, base | more | SC_PARTITION_RULE_NOT_IN_ALLOWLIST,
                        err));
    SC_CHECK(cut(p, &bytes, err));
    ratio = MEM_RATIO(bytes);
    forget_cut(p);
    which = "the aggressive cut (the allowlist off too)";
    if (ratio < budget)
        goto note;

    /* the banned nodes the backward needs that are not inputs (a node
     * with no tensor storage shares the inputs' "no storage" when an
     * input is a SymInt), tags must_save aside */
    cs = sc__calloc(p->n ? p->n : 1, sizeof *cs);
    if (!cs)
        SC_CHECK(sc__error_nomem(err));
    for (i = 0; i < p->n; i++) {
        const sc__pnode *pn = &p->nodes[i];
        if (!(pn->flags & SC__PN_CANON) || !(pn->flags & SC__PN_SRC) ||
            is_primal(p, (sc_node_id)i) || pn->dist >= DIST_INF ||
            (sym_input && pn->vkind != SC__PV_TENSOR) ||
            pn->tag == SC_PARTITION_TAG_MUST_SAVE)
            continue;
        cs[nc].id = (sc_node_id)i;
        cs[nc].bytes = size_of(p, (sc_node_id)i);
        cs[nc].order = i;
        nc++;
    }
    if (nc == 0) {
        save_inputs_only(p, true);
        SC_CHECK(sc__partition_warn(p, "memory budget %g (pytorch-2.13): "
                                       "no banned node to recompute; torch "
                                       "saves the inputs and the must_save "
                                       "nodes",
                                    budget)
                     ? SC_OK
                     : sc__error_nomem(err));
        goto done;
    }
    qsort(cs, nc, sizeof *cs, cmp_cand);
    mem = sc__calloc(nc, sizeof *mem);
    rt = sc__calloc(nc, sizeof *rt);
    recompute = sc__calloc(nc, sizeof *recompute);
    if (!mem || !rt || !recompute)
        SC_CHECK(sc__error_nomem(err));
    for (i = 0; i < nc; i++) {
        mem[i] = ((double)cs[i].bytes / 1e9) / (max_act - min_act);
        SC_CHECK(sc__budget_2_13_runtime(p, cs[i].id, &rt[i], err));
        total_rt += rt[i];
    }
    SC_CHECK(sc__budget_2_13_knapsack(mem, rt, nc, budget, recompute, err));
    for (i = 0; i < nc; i++) {
        if (recompute[i]) {
            sc__pnode *pn = &p->nodes[cs[i].id];
            pn->flags &= (uint16_t)~SC__PN_SRC;
            pn->ban = SC_PARTITION_BAN_NONE;
            nrec++;
        } else {
            kept_rt += rt[i];
        }
    }
    SC_CHECK(sc__partition_warn(
                 p,
                 "memory budget %g (pytorch-2.13): torch's dp knapsack "
                 "(memory quantized to 1/%d of the default cut's excess) "
                 "over the %zu banned nodes of the aggressive cut: %zu "
                 "recomputed (estimated %.6g of %.6g FLOPs)",
                 budget, QUANT, nc, nrec, total_rt - kept_rt, total_rt)
                 ? SC_OK
                 : sc__error_nomem(err));
    goto done;
note:
    SC_CHECK(sc__partition_warn(p,
                                "memory budget %g (pytorch-2.13): %s, "
                                "at ratio %.6g",
                                budget, which, ratio)
                 ? SC_OK
                 : sc__error_nomem(err));
#undef MEM_RATIO
done:
fail:
    sc__free(cs);
    sc__free(mem);
    sc__free(rt);
    sc__free(recompute);
    return status;
}
