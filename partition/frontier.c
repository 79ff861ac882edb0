/* symcut — the memory/recompute frontier under a policy's validity rules
 * (doc/partition.md, "Memory budget" and "Frontier").
 *
 * The validity-only network.  The partitioner's classification (prepare,
 * classify) under the policy is reused; of its bans only the ones that
 * are about validity stay infinite (primals, ops that write an argument,
 * values without tensor metadata, ops the op table does not know,
 * must_save tags, and random ops, unless asked to replay them under the
 * exact policy); PyTorch's heuristic bans (not in the allowlist, compute-intensive,
 * the reduction rule, materialized in the backward, used far apart, long
 * fusible chains, far from the backward) become a price: every other node
 * the forward computes gets an arc source -> X_in of capacity
 * lambda * cost (its recompute cost, sc_node_cost_eval at the hints),
 * paid when the backward recomputes it.  X_in -> X_out carries the
 * tensor's bytes (parameters included: the saved bytes are the
 * partition's), a SymInt 0 (it is not tensor memory).
 *
 * The hull.  A cut's bytes m and cost c; minimizing w1 * m + w2 * c for
 * integer weights (lambda = w2 / w1) gives the lower convex hull's
 * vertices.  The ends are lexicographic (w1 = total cost + 1, w2 = 1: the
 * least bytes, then the least cost; and the reverse); a segment (a, b)
 * probes w1 = c_a - c_b, w2 = m_b - m_a: a cut below the segment is a new
 * vertex (Eisner and Severance), none confirms the edge.  The source arcs
 * grow with lambda, so minimum cuts are nested (Gallo, Grigoriadis,
 * Tarjan): the probe of (a, b) contracts a's source side into the source
 * and everything outside b's into the sink, and solves only the vertices
 * in between (a "bucket").  Capacities are 128-bit integers and the
 * max-flow (Dinic's) is this file's own: the weights are products of
 * bytes and cost differences, far beyond the 2^53 that igraph's double
 * capacities keep exact.  Every cut is the least source side (the
 * vertices the source reaches in the residual graph), so the cuts of
 * probes at increasing lambda are nested as the search needs.
 *
 * A vertex's label is the hull vertex whose probe first put it on the
 * source side (-1: never); the source side of vertex x is every vertex
 * whose label is x or left of x.  Searching segments depth first, left
 * first, the points left of the segment being probed are exactly the ones
 * already final. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "graph/ops.h"
#include "partition/frontier.h"
#include "partition/partition-internal.h"

typedef __int128 cap_t;
#define CAP_INF (((cap_t)1) << 120)

/* ---- The network ---------------------------------------------------------- */

static void fnet_free(sc__fnet *n)
{
    sc__free(n->ids);
    sc__free(n->kof);
    sc__free(n->vin);
    sc__free(n->vout);
    sc__free(n->bytes);
    sc__free(n->cost);
    sc__free(n->flops);
    sc__free(n->src);
    sc__free(n->sink);
    sc__free(n->symint);
    sc__free(n->random);
    sc__free(n->ef);
    sc__free(n->et);
    sc__free(n->ek);
    sc__free(n->ekind);
    sc__free(n->ooff);
    sc__free(n->ioff);
    sc__free(n->oe);
    sc__free(n->ie);
    sc__free(n->poff);
    sc__free(n->pk);
    memset(n, 0, sizeof *n);
}

/* Is ban a heuristic of PyTorch's (a price in the frontier) rather than
 * a matter of validity? */
static bool heuristic_ban(int ban)
{
    switch (ban) {
    case SC_PARTITION_BAN_NOT_RECOMPUTABLE:
    case SC_PARTITION_BAN_COMPUTE_INTENSIVE:
    case SC_PARTITION_BAN_REDUCTION:
    case SC_PARTITION_BAN_MATERIALIZED_BACKWARD:
    case SC_PARTITION_BAN_USED_FAR_APART:
    case SC_PARTITION_BAN_LONG_FUSIBLE_CHAIN:
    case SC_PARTITION_BAN_FAR_FROM_BACKWARD:
        return true;
    default:
        return false;
    }
}

/* Does the node run a random op (of the op table's random class or 1.13's
 * random_ops list)? */
static bool random_op(const sc_partition *p, sc_node_id id)
{
    int op = sc__graph_node_op(p->g, id);
    const sc__op_info *info;
    if (op < 0)
        return false;
    info = sc__op_get((sc__op)op);
    return info->cls == SC_CLASS_RANDOM || info->functorch_random;
}

/* Does the node run an op that writes an argument? */
static bool writes_op(const sc_partition *p, sc_node_id id)
{
    int op = sc__graph_node_op(p->g, id);
    const sc__op_info *info;
    if (op < 0)
        return false;
    info = sc__op_get((sc__op)op);
    return info->nmutates > 0 || info->is_inplace;
}

/* The validity rules, whatever the policy's bans say: never recompute a
 * primal, a value without tensor metadata, an op the table does not know,
 * an op that writes an argument (pytorch-2.13 bans writes only through
 * its allowlist, a heuristic here), a must_save node, or a random op
 * unless its replay is exact: with replay (asked for, exact policy only),
 * for decisions symcut's counter-based kernels run (doc/partition.md,
 * "Frontier"). */
static uint8_t source_kind(const sc_partition *p, sc_node_id id,
                           bool keep_bans, bool replay)
{
    const sc__pnode *pn = &p->nodes[id];
    bool rnd;
    if (pn->flags & SC__PN_IN_SINK)
        return SC__FSRC_NONE;
    if (sc_graph_node_kind(p->g, id) != SC_NODE_CALL ||
        pn->vkind == SC__PV_OTHER || sc__graph_node_op(p->g, id) < 0 ||
        writes_op(p, id))
        return SC__FSRC_HARD;
    rnd = random_op(p, id) || pn->ban == SC_PARTITION_BAN_RANDOM;
    if (rnd && !(replay && p->policy == SC_PARTITION_EXACT))
        return SC__FSRC_HARD;
    if (pn->ban == SC_PARTITION_BAN_NONE)
        return SC__FSRC_COST;
    if (keep_bans)
        return SC__FSRC_HARD;
    return pn->ban == SC_PARTITION_BAN_RANDOM || heuristic_ban(pn->ban)
               ? SC__FSRC_COST
               : SC__FSRC_HARD;
}

static bool fnet_alloc(sc__fnet *n, size_t nnodes, size_t nk, size_t ne)
{
    size_t k1 = nk ? nk : 1, e1 = ne ? ne : 1;
    n->ids = sc__malloc(k1 * sizeof *n->ids);
    n->kof = sc__malloc((nnodes ? nnodes : 1) * sizeof *n->kof);
    n->vin = sc__malloc(k1 * sizeof *n->vin);
    n->vout = sc__malloc(k1 * sizeof *n->vout);
    n->bytes = sc__malloc(k1 * sizeof *n->bytes);
    n->cost = sc__calloc(k1, sizeof *n->cost);
    n->flops = sc__calloc(k1, sizeof *n->flops);
    n->src = sc__calloc(k1, 1);
    n->sink = sc__calloc(k1, 1);
    n->symint = sc__calloc(k1, 1);
    n->random = sc__calloc(k1, 1);
    n->ef = sc__malloc(e1 * sizeof *n->ef);
    n->et = sc__malloc(e1 * sizeof *n->et);
    n->ek = sc__malloc(e1 * sizeof *n->ek);
    n->ekind = sc__malloc(e1);
    n->poff = sc__calloc(k1 + 1, sizeof *n->poff);
    return n->ids && n->kof && n->vin && n->vout && n->bytes && n->cost &&
           n->flops && n->src && n->sink && n->symint && n->random &&
           n->ef && n->et &&
           n->ek && n->ekind && n->poff;
}

static void push(sc__fnet *n, int32_t a, int32_t b, uint8_t kind, int32_t k)
{
    n->ef[n->ne] = a;
    n->et[n->ne] = b;
    n->ekind[n->ne] = kind;
    n->ek[n->ne] = k;
    n->ne++;
}

static bool fnet_csr(sc__fnet *n)
{
    size_t e, v;
    size_t *oc, *ic;
    n->ooff = sc__calloc(n->nv + 1, sizeof *n->ooff);
    n->ioff = sc__calloc(n->nv + 1, sizeof *n->ioff);
    n->oe = sc__malloc((n->ne ? n->ne : 1) * sizeof *n->oe);
    n->ie = sc__malloc((n->ne ? n->ne : 1) * sizeof *n->ie);
    if (!n->ooff || !n->ioff || !n->oe || !n->ie)
        return false;
    for (e = 0; e < n->ne; e++) {
        n->ooff[n->ef[e] + 1]++;
        n->ioff[n->et[e] + 1]++;
    }
    for (v = 0; v < n->nv; v++) {
        n->ooff[v + 1] += n->ooff[v];
        n->ioff[v + 1] += n->ioff[v];
    }
    oc = sc__malloc((n->nv + 1) * sizeof *oc);
    ic = sc__malloc((n->nv + 1) * sizeof *ic);
    if (!oc || !ic) {
        sc__free(oc);
        sc__free(ic);
        return false;
    }
    memcpy(oc, n->ooff, (n->nv + 1) * sizeof *oc);
    memcpy(ic, n->ioff, (n->nv + 1) * sizeof *ic);
    for (e = 0; e < n->ne; e++) {
        n->oe[oc[n->ef[e]]++] = (int32_t)e;
        n->ie[ic[n->et[e]]++] = (int32_t)e;
    }
    sc__free(oc);
    sc__free(ic);
    return true;
}

/* Build the validity-only network of p (classified, exact policy). */
static sc_status fnet_build(sc_partition *p, bool keep_bans, bool replay,
                            sc__fnet *n,
                            sc_error *err)
{
    size_t i, k, nk = 0, ne = 0, nu, j, np = 0;
    sc_status status = SC_OK;
    int32_t nv = 2;

    memset(n, 0, sizeof *n);
    for (i = 0; i < p->n; i++) {
        const sc__pnode *pn = &p->nodes[i];
        if (!(pn->flags & SC__PN_CANON))
            continue;
        nk++;
        nu = p->uoff[i + 1] - p->uoff[i];
        ne += (pn->flags & SC__PN_IN_SINK) ? 1 : 3 + nu;
    }
    if (nk > (size_t)(INT32_MAX / 2 - 4) || ne > (size_t)INT32_MAX)
        return sc__error_set(err, SC_ERR_LIMIT,
                             "%zu nodes: too many for the frontier", nk);
    if (!fnet_alloc(n, p->n, nk, ne))
        SC_CHECK(sc__error_nomem(err));
    for (i = 0; i < p->n; i++)
        n->kof[i] = -1;
    for (i = 0, k = 0; i < p->n; i++) {
        const sc__pnode *pn = &p->nodes[i];
        if (!(pn->flags & SC__PN_CANON))
            continue;
        n->ids[k] = (sc_node_id)i;
        n->kof[i] = (int32_t)k;
        n->vin[k] = nv++;
        n->vout[k] = (pn->flags & SC__PN_IN_SINK) ? -1 : nv++;
        n->symint[k] = pn->vkind == SC__PV_SYMINT;
        n->bytes[k] = pn->vkind == SC__PV_TENSOR   ? (pn->bytes > 0 ? pn->bytes : 0)
                      : pn->vkind == SC__PV_SYMINT ? 0
                                                   : -1;
        n->src[k] = source_kind(p, (sc_node_id)i, keep_bans, replay);
        n->sink[k] = (pn->flags & SC__PN_IN_SINK)    ? 1
                     : (pn->flags & SC__PN_OUT_SINK) ? 2
                                                     : 0;
        /* a recompute cost only for a node of the forward (required by
         * its outputs): it runs there in every decision, so the backward
         * computing it is a second run; a node only the backward needs
         * runs once wherever it runs */
        if (sc_graph_node_kind(p->g, (sc_node_id)i) == SC_NODE_CALL &&
            (pn->cls & SC_PARTITION_REQUIRED_FW) &&
            !(pn->cls & SC_PARTITION_TANGENT_CLOSURE)) {
            sc_node_cost c;
            SC_CHECK(sc_node_cost_eval(p->g, (sc_node_id)i, p->binding, &c,
                                       err));
            n->cost[k] = c.cost;
            n->flops[k] = c.flops;
            n->random[k] = random_op(p, (sc_node_id)i);
            if (n->sink[k] == 1) {
                n->cconst += c.cost;
                n->fconst += c.flops;
            }
        }
        if (n->bytes[k] > 0) {
            if (n->mtot > UINT64_MAX / 4 - (uint64_t)n->bytes[k])
                SC_CHECK(sc__error_set(err, SC_ERR_UNSUPPORTED,
                                       "the saved bytes sum beyond 2^62"));
            n->mtot += (uint64_t)n->bytes[k];
        }
        if (n->src[k] == SC__FSRC_COST) {
            if (n->ctot > UINT64_MAX / 4 - n->cost[k])
                SC_CHECK(sc__error_set(err, SC_ERR_UNSUPPORTED,
                                       "the recompute costs sum beyond "
                                       "2^62"));
            n->ctot += n->cost[k];
            n->ftot += n->flops[k];
        }
        k++;
    }
    if ((unsigned __int128)(n->mtot + 1) * (n->ctot + 1) >=
        ((unsigned __int128)1) << 118)
        SC_CHECK(sc__error_set(err, SC_ERR_UNSUPPORTED,
                               "bytes (%llu) times recompute cost (%llu) "
                               "beyond 2^118: the parametric cut would not "
                               "be exact",
                               (unsigned long long)n->mtot,
                               (unsigned long long)n->ctot));
    n->nk = nk;
    n->nv = (size_t)nv;
    for (k = 0; k < nk; k++) {
        sc_node_id id = n->ids[k];
        const sc_node_id *us = p->users + p->uoff[id];
        nu = p->uoff[id + 1] - p->uoff[id];
        if (n->sink[k] == 1) {
            push(n, n->vin[k], 1, 0, -1);
            continue;
        }
        if (n->src[k] == SC__FSRC_HARD)
            push(n, 0, n->vin[k], 0, -1);
        else if (n->src[k] == SC__FSRC_COST && n->cost[k] > 0)
            push(n, 0, n->vin[k], 2, (int32_t)k);
        if (n->bytes[k] < 0)
            push(n, n->vin[k], n->vout[k], 0, -1);
        else if (n->bytes[k] > 0)
            push(n, n->vin[k], n->vout[k], 1, (int32_t)k);
        for (j = 0; j < nu; j++) {
            int32_t u = n->kof[us[j]];
            if (u >= 0) {
                push(n, n->vout[k], n->vin[u], 0, -1);
                n->poff[u + 1]++;
                np++;
            }
        }
        if (n->sink[k] == 2)
            push(n, n->vout[k], 1, 0, -1);
    }
    for (k = 0; k < nk; k++)
        n->poff[k + 1] += n->poff[k];
    n->pk = sc__malloc((np ? np : 1) * sizeof *n->pk);
    if (!n->pk || !fnet_csr(n))
        SC_CHECK(sc__error_nomem(err));
    {
        size_t *fill = sc__malloc((nk + 1) * sizeof *fill);
        if (!fill)
            SC_CHECK(sc__error_nomem(err));
        memcpy(fill, n->poff, (nk + 1) * sizeof *fill);
        for (k = 0; k < nk; k++) {
            sc_node_id id = n->ids[k];
            const sc_node_id *us = p->users + p->uoff[id];
            if (n->sink[k] == 1)
                continue;
            nu = p->uoff[id + 1] - p->uoff[id];
            for (j = 0; j < nu; j++) {
                int32_t u = n->kof[us[j]];
                if (u >= 0)
                    n->pk[fill[u]++] = (int32_t)k;
            }
        }
        sc__free(fill);
    }
    return SC_OK;
fail:
    fnet_free(n);
    return status;
}

/* ---- Scoring a saved set -------------------------------------------------- */

sc_status sc__fnet_sides(const sc__fnet *n, const uint8_t *saved,
                         uint8_t *st, sc_error *err)
{
    int32_t *queue = sc__malloc((n->nk ? n->nk : 1) * sizeof *queue);
    size_t qh = 0, qt = 0, k, j;

    if (!queue)
        return sc__error_nomem(err);
    memset(st, 0, n->nk ? n->nk : 1);
    /* X_in of a node in the queue is on the sink side */
    for (k = 0; k < n->nk; k++) {
        if (n->sink[k] == 1) {
            st[k] = 3;
            queue[qt++] = (int32_t)k;
        } else if (n->sink[k] == 2) {
            st[k] = 1;
            if (n->bytes[k] < 0 || !saved[k]) {
                st[k] = 3;
                queue[qt++] = (int32_t)k;
            }
        }
    }
    while (qh < qt) {
        int32_t u = queue[qh++];
        for (j = n->poff[u]; j < n->poff[u + 1]; j++) {
            int32_t w = n->pk[j];
            if (st[w] & 1)
                continue;
            st[w] |= 1;
            if (n->bytes[w] < 0 || !saved[w]) {
                st[w] |= 2;
                queue[qt++] = w;
            }
        }
    }
    sc__free(queue);
    return SC_OK;
}

sc_status sc__fnet_score(const sc__fnet *n, const uint8_t *saved,
                         sc__fscore *out, uint8_t *saved_out, sc_error *err)
{
    uint8_t *st = sc__malloc(n->nk ? n->nk : 1);
    size_t k;
    sc_status status;

    memset(out, 0, sizeof *out);
    out->valid = true;
    out->bad_k = -1;
    if (!st)
        return sc__error_nomem(err);
    if ((status = sc__fnet_sides(n, saved, st, err)) != SC_OK) {
        sc__free(st);
        return status;
    }
    if (saved_out)
        memset(saved_out, 0, n->nk ? n->nk : 1);
    for (k = 0; k < n->nk; k++) {
        if (!st[k])
            continue;
        if (st[k] & 2) {
            if (n->src[k] == SC__FSRC_HARD && out->valid) {
                out->valid = false;
                out->bad_k = (int32_t)k;
            }
            out->cost += n->cost[k];
            out->flops += n->flops[k];
            out->nrandom += n->random[k];
            continue;
        }
        /* X_out needed, X_in not: saved */
        if (saved_out)
            saved_out[k] = 1;
        if (n->symint[k])
            out->nsymints++;
        else {
            out->ntensors++;
            out->bytes += (uint64_t)n->bytes[k];
        }
    }
    sc__free(st);
    return SC_OK;
}

/* ---- Max-flow: Dinic's, 128-bit capacities --------------------------------- */

/* The network of one probe: edges collected (mflow_edge), then laid out
 * as compressed rows (mflow_finish): the arcs leaving a vertex are
 * contiguous, each with its reverse arc's index, so the searches walk
 * memory in order. */
typedef struct mflow {
    int32_t nv;
    size_t ne, cap_e;
    int32_t *ea, *eb;  /* the edges as added */
    cap_t *ec;
    size_t *off;       /* arcs of v: off[v] .. off[v + 1] */
    int32_t *to, *rev, *level, *queue, *pe;
    size_t *it;
    cap_t *cap;
} mflow;

static void mflow_free(mflow *m)
{
    sc__free(m->ea);
    sc__free(m->eb);
    sc__free(m->ec);
    sc__free(m->off);
    sc__free(m->to);
    sc__free(m->rev);
    sc__free(m->level);
    sc__free(m->it);
    sc__free(m->queue);
    sc__free(m->pe);
    sc__free(m->cap);
    memset(m, 0, sizeof *m);
}

static bool mflow_init(mflow *m, int32_t nv, size_t ne)
{
    size_t v1 = (size_t)nv;
    memset(m, 0, sizeof *m);
    m->nv = nv;
    m->cap_e = ne ? ne : 1;
    m->ea = sc__malloc(m->cap_e * sizeof *m->ea);
    m->eb = sc__malloc(m->cap_e * sizeof *m->eb);
    m->ec = sc__malloc(m->cap_e * sizeof *m->ec);
    m->off = sc__calloc(v1 + 1, sizeof *m->off);
    m->level = sc__malloc(v1 * sizeof *m->level);
    m->it = sc__malloc(v1 * sizeof *m->it);
    m->queue = sc__malloc(v1 * sizeof *m->queue);
    m->pe = sc__malloc(v1 * sizeof *m->pe);
    if (!m->ea || !m->eb || !m->ec || !m->off || !m->level || !m->it ||
        !m->queue || !m->pe) {
        mflow_free(m);
        return false;
    }
    return true;
}

static void mflow_edge(mflow *m, int32_t a, int32_t b, cap_t c)
{
    size_t e = m->ne++;
    m->ea[e] = a;
    m->eb[e] = b;
    m->ec[e] = c;
    m->off[a + 1]++;
    m->off[b + 1]++;
}

/* Lay the edges out by vertex (each edge an arc and its reverse, of
 * capacity 0). */
static bool mflow_finish(mflow *m)
{
    size_t na = 2 * (m->ne ? m->ne : 1), e;
    int32_t v;
    size_t *fill;
    m->to = sc__malloc(na * sizeof *m->to);
    m->rev = sc__malloc(na * sizeof *m->rev);
    m->cap = sc__malloc(na * sizeof *m->cap);
    fill = sc__malloc((size_t)m->nv * sizeof *fill);
    if (!m->to || !m->rev || !m->cap || !fill) {
        sc__free(fill);
        return false;
    }
    for (v = 0; v < m->nv; v++)
        m->off[v + 1] += m->off[v];
    memcpy(fill, m->off, (size_t)m->nv * sizeof *fill);
    for (e = 0; e < m->ne; e++) {
        size_t pa = fill[m->ea[e]]++, pb = fill[m->eb[e]]++;
        m->to[pa] = m->eb[e];
        m->cap[pa] = m->ec[e];
        m->rev[pa] = (int32_t)pb;
        m->to[pb] = m->ea[e];
        m->cap[pb] = 0;
        m->rev[pb] = (int32_t)pa;
    }
    sc__free(fill);
    sc__free(m->ea);
    sc__free(m->eb);
    sc__free(m->ec);
    m->ea = m->eb = NULL;
    m->ec = NULL;
    return true;
}

/* Levels from s in the residual graph; true when t is reached.  The
 * search stops at t's level (no shortest augmenting path goes further):
 * when t is not reached the levels mark exactly what s reaches. */
static bool mflow_bfs(mflow *m, int32_t s, int32_t t)
{
    int32_t qh = 0, qt = 0, v;
    size_t e;
    memset(m->level, 0xff, (size_t)m->nv * sizeof *m->level);
    m->level[s] = 0;
    m->queue[qt++] = s;
    while (qh < qt) {
        size_t e1;
        int32_t lv;
        v = m->queue[qh++];
        if (m->level[t] >= 0 && m->level[v] >= m->level[t])
            break;
        lv = m->level[v] + 1;
        for (e = m->off[v], e1 = m->off[v + 1]; e < e1; e++) {
            int32_t w = m->to[e];
            if (m->level[w] < 0 && m->cap[e] > 0) {
                m->level[w] = lv;
                m->queue[qt++] = w;
            }
        }
    }
    return m->level[t] >= 0;
}

/* The maximum flow from s to t; afterwards level[v] >= 0 exactly for the
 * vertices s reaches in the residual graph. */
static cap_t mflow_run(mflow *m, int32_t s, int32_t t)
{
    cap_t total = 0;
    while (mflow_bfs(m, s, t)) {
        int32_t v = s, sp = 0, i;
        memcpy(m->it, m->off, (size_t)m->nv * sizeof *m->it);
        for (;;) {
            if (v == t) {
                cap_t f = m->cap[m->pe[0]];
                for (i = 1; i < sp; i++)
                    if (m->cap[m->pe[i]] < f)
                        f = m->cap[m->pe[i]];
                for (i = 0; i < sp; i++) {
                    m->cap[m->pe[i]] -= f;
                    m->cap[m->rev[m->pe[i]]] += f;
                }
                total += f;
                if (total >= CAP_INF)
                    return total;
                for (i = 0; i < sp; i++)
                    if (m->cap[m->pe[i]] == 0)
                        break;
                sp = i;
                v = sp == 0 ? s : m->to[m->pe[sp - 1]];
                continue;
            }
            while (m->it[v] < m->off[v + 1]) {
                size_t e = m->it[v];
                if (m->level[m->to[e]] == m->level[v] + 1 && m->cap[e] > 0)
                    break;
                m->it[v]++;
            }
            if (m->it[v] >= m->off[v + 1]) {
                if (v == s)
                    break;
                m->level[v] = -1;
                sp--;
                v = sp == 0 ? s : m->to[m->pe[sp - 1]];
                m->it[v]++;
                continue;
            }
            m->pe[sp++] = (int32_t)m->it[v];
            v = m->to[m->it[v]];
        }
    }
    return total;
}

/* ---- The hull ------------------------------------------------------------ */

typedef struct hpoint {
    uint64_t m, c, f;  /* the cut's bytes, cost and FLOPs (without the
                          nodes tied to the sink) */
    int32_t next;      /* the next point right, -1 */
    bool final;
    int32_t *bucket;   /* vertices labelled with this point */
    size_t nb;
} hpoint;

typedef struct hull {
    const sc__fnet *n;
    int32_t *label;    /* by vertex; -1 never on the source side */
    int32_t *loc;      /* scratch: vertex -> probe vertex, -1 */
    int32_t *stamp;    /* scratch: node -> probe number */
    hpoint *pt;
    size_t npt, cap;
    size_t probes;
} hull;

static void hull_free(hull *h)
{
    size_t i;
    for (i = 0; i < h->npt; i++)
        sc__free(h->pt[i].bucket);
    sc__free(h->pt);
    sc__free(h->label);
    sc__free(h->loc);
    sc__free(h->stamp);
    memset(h, 0, sizeof *h);
}

static int32_t hull_add(hull *h)
{
    if (h->npt == h->cap) {
        size_t nc = h->cap ? 2 * h->cap : 16;
        hpoint *np = sc__realloc(h->pt, nc * sizeof *np);
        if (!np)
            return -1;
        h->pt = np;
        h->cap = nc;
    }
    memset(&h->pt[h->npt], 0, sizeof h->pt[h->npt]);
    h->pt[h->npt].next = -1;
    return (int32_t)h->npt++;
}

/* On the source side of the segment being probed (vertex outside the
 * bucket)?  The source, or a vertex labelled by a final point. */
static bool left_side(const hull *h, int32_t v)
{
    if (v == 0)
        return true;
    if (v == 1 || h->label[v] < 0)
        return false;
    return h->pt[h->label[v]].final;
}

static cap_t edge_cap(const sc__fnet *n, size_t e, uint64_t w1, uint64_t w2)
{
    switch (n->ekind[e]) {
    case 1:
        return (cap_t)n->bytes[n->ek[e]] * w1;
    case 2:
        return (cap_t)n->cost[n->ek[e]] * w2;
    default:
        return CAP_INF;
    }
}

/* Probe bucket b: the least source side of the minimum cut of w1 * bytes
 * + w2 * cost with the final points' vertices on the source side and the
 * others outside the bucket on the sink side.  reached[i] for bucket
 * vertex i. */
static sc_status probe(hull *h, int32_t b, uint64_t w1, uint64_t w2,
                       uint8_t *reached, sc_error *err)
{
    const sc__fnet *n = h->n;
    hpoint *pb = &h->pt[b];
    size_t i, ne = 0, j;
    mflow m;
    cap_t f;
    int32_t S, T;

    h->probes++;
    for (i = 0; i < pb->nb; i++) {
        int32_t v = pb->bucket[i];
        h->loc[v] = (int32_t)i;
        ne += (n->ooff[v + 1] - n->ooff[v]) + (n->ioff[v + 1] - n->ioff[v]);
    }
    S = (int32_t)pb->nb;
    T = S + 1;
    if (!mflow_init(&m, T + 1, ne)) {
        for (i = 0; i < pb->nb; i++)
            h->loc[pb->bucket[i]] = -1;
        return sc__error_nomem(err);
    }
    for (i = 0; i < pb->nb; i++) {
        int32_t v = pb->bucket[i];
        for (j = n->ooff[v]; j < n->ooff[v + 1]; j++) {
            size_t e = (size_t)n->oe[j];
            int32_t w = n->et[e];
            cap_t c = edge_cap(n, e, w1, w2);
            if (c == 0)
                continue;
            if (w >= 2 && h->loc[w] >= 0)
                mflow_edge(&m, (int32_t)i, h->loc[w], c);
            else if (!left_side(h, w))
                mflow_edge(&m, (int32_t)i, T, c);
        }
        for (j = n->ioff[v]; j < n->ioff[v + 1]; j++) {
            size_t e = (size_t)n->ie[j];
            int32_t u = n->ef[e];
            cap_t c = edge_cap(n, e, w1, w2);
            if (c == 0 || (u >= 2 && h->loc[u] >= 0))
                continue;
            if (left_side(h, u))
                mflow_edge(&m, S, (int32_t)i, c);
        }
    }
    if (!mflow_finish(&m)) {
        mflow_free(&m);
        for (i = 0; i < pb->nb; i++)
            h->loc[pb->bucket[i]] = -1;
        return sc__error_nomem(err);
    }
    f = mflow_run(&m, S, T);
    if (f >= CAP_INF) {
        mflow_free(&m);
        for (i = 0; i < pb->nb; i++)
            h->loc[pb->bucket[i]] = -1;
        return sc__error_set(err, SC_ERR_UNSUPPORTED,
                             "no finite cut: a value the backward needs "
                             "can be neither saved nor recomputed");
    }
    if (!mflow_bfs(&m, S, T)) {
        /* level[] now marks what S reaches */
    }
    for (i = 0; i < pb->nb; i++) {
        reached[i] = m.level[i] >= 0;
        h->loc[pb->bucket[i]] = -1;
    }
    mflow_free(&m);
    return SC_OK;
}

/* Is vertex v on the source side of point x (labels ranked by rank)? */
static bool in_side(const hull *h, const int32_t *rank, int32_t v, int32_t x)
{
    if (v == 0)
        return true;
    if (v == 1 || v < 0 || h->label[v] < 0)
        return false;
    return rank[h->label[v]] <= rank[x];
}

/* m and c of node k's contribution given whether X_in, X_out are on the
 * source side. */
static void contrib(const sc__fnet *n, size_t k, bool ain, bool aout,
                    uint64_t *m, uint64_t *c, uint64_t *f)
{
    *m = *c = *f = 0;
    if (n->vout[k] >= 0 && n->bytes[k] > 0 && ain && !aout)
        *m = (uint64_t)n->bytes[k];
    if (n->src[k] == SC__FSRC_COST && !ain) {
        *c = n->cost[k];
        *f = n->flops[k];
    }
}

/* The m and c of the cut that puts bucket b's reached vertices on the
 * source side, from the cut (base_m, base_c) that has the whole bucket on
 * the sink side: only the nodes that touch the bucket change. */
static void eval_split(hull *h, int32_t b, const hpoint *base,
                       const uint8_t *reached, hpoint *out)
{
    const sc__fnet *n = h->n;
    const hpoint *pb = &h->pt[b];
    size_t i, j, e;
    int64_t dm = 0, dc = 0, df = 0;

    for (i = 0; i < pb->nb; i++)
        h->loc[pb->bucket[i]] = (int32_t)i;
    for (i = 0; i < pb->nb; i++) {
        int32_t v = pb->bucket[i];
        for (j = 0; j < 2; j++) {
            size_t e0 = j == 0 ? n->ooff[v] : n->ioff[v];
            size_t e1 = j == 0 ? n->ooff[v + 1] : n->ioff[v + 1];
            for (e = e0; e < e1; e++) {
                size_t ed = (size_t)(j == 0 ? n->oe[e] : n->ie[e]);
                int32_t k = n->ek[ed], vi, vo;
                uint64_t m0, c0, m1, c1, f0, f1;
                bool ain0, aout0, ain1, aout1;
                if (k < 0 || h->stamp[k] == (int32_t)h->probes)
                    continue;
                h->stamp[k] = (int32_t)h->probes;
                vi = n->vin[k];
                vo = n->vout[k];
                ain0 = left_side(h, vi);
                aout0 = vo >= 0 && left_side(h, vo);
                ain1 = ain0 || (h->label[vi] == b && reached[h->loc[vi]]);
                aout1 = aout0 ||
                        (vo >= 0 && h->label[vo] == b && reached[h->loc[vo]]);
                contrib(n, (size_t)k, ain0, aout0, &m0, &c0, &f0);
                contrib(n, (size_t)k, ain1, aout1, &m1, &c1, &f1);
                dm += (int64_t)m1 - (int64_t)m0;
                dc += (int64_t)c1 - (int64_t)c0;
                df += (int64_t)f1 - (int64_t)f0;
            }
        }
    }
    for (i = 0; i < pb->nb; i++)
        h->loc[pb->bucket[i]] = -1;
    out->m = (uint64_t)((int64_t)base->m + dm);
    out->c = (uint64_t)((int64_t)base->c + dc);
    out->f = (uint64_t)((int64_t)base->f + df);
}

/* Move bucket b's reached vertices to point c's bucket (label c); the
 * others stay b's, or with never set lose their label. */
static sc_status split(hull *h, int32_t b, int32_t c, const uint8_t *reached,
                       bool never, sc_error *err)
{
    hpoint *pb = &h->pt[b], *pc = &h->pt[c];
    size_t i, nr = 0, kb = 0, kc = 0;
    int32_t *bb, *cb;

    for (i = 0; i < pb->nb; i++)
        nr += reached[i] != 0;
    bb = sc__malloc((pb->nb - nr ? pb->nb - nr : 1) * sizeof *bb);
    cb = sc__malloc((nr ? nr : 1) * sizeof *cb);
    if (!bb || !cb) {
        sc__free(bb);
        sc__free(cb);
        return sc__error_nomem(err);
    }
    for (i = 0; i < pb->nb; i++) {
        int32_t v = pb->bucket[i];
        if (reached[i]) {
            cb[kc++] = v;
            h->label[v] = c;
        } else {
            bb[kb++] = v;
            if (never)
                h->label[v] = -1;
        }
    }
    sc__free(pb->bucket);
    pb->bucket = bb;
    pb->nb = never ? 0 : kb;
    pc->bucket = cb;
    pc->nb = kc;
    return SC_OK;
}

typedef struct seg {
    int32_t a, b;
} seg;

static cap_t objective(uint64_t w1, uint64_t w2, uint64_t m, uint64_t c)
{
    return (cap_t)w1 * m + (cap_t)w2 * c;
}

/* The whole lower convex hull of net: h->pt linked from point 0 (the
 * least bytes) by next. */
static sc_status hull_compute(const sc__fnet *n, hull *h, sc_error *err)
{
    sc_status status = SC_OK;
    uint8_t *reached = NULL;
    seg *stack = NULL;
    size_t sp = 0, scap = 0, v;
    int32_t L, R, R0;
    hpoint q, base;

    memset(h, 0, sizeof *h);
    h->n = n;
    h->label = sc__malloc(n->nv * sizeof *h->label);
    h->loc = sc__malloc(n->nv * sizeof *h->loc);
    h->stamp = sc__calloc(n->nk ? n->nk : 1, sizeof *h->stamp);
    reached = sc__malloc(n->nv);
    if (!h->label || !h->loc || !h->stamp || !reached)
        SC_CHECK(sc__error_nomem(err));
    memset(h->loc, 0xff, n->nv * sizeof *h->loc);
    L = hull_add(h);
    R0 = hull_add(h);
    if (L < 0 || R0 < 0)
        SC_CHECK(sc__error_nomem(err));
    h->pt[R0].bucket = sc__malloc((n->nv ? n->nv : 1) * sizeof(int32_t));
    if (!h->pt[R0].bucket)
        SC_CHECK(sc__error_nomem(err));
    h->label[0] = h->label[1] = -1;
    for (v = 2; v < n->nv; v++) {
        h->label[v] = R0;
        h->pt[R0].bucket[h->pt[R0].nb++] = (int32_t)v;
    }
    /* the least bytes, then the least cost */
    SC_CHECK(probe(h, R0, n->ctot + 1, 1, reached, err));
    memset(&base, 0, sizeof base);
    base.c = n->ctot;
    base.f = n->ftot;
    eval_split(h, R0, &base, reached, &q);
    SC_CHECK(split(h, R0, L, reached, false, err));
    h->pt[L].m = q.m;
    h->pt[L].c = q.c;
    h->pt[L].f = q.f;
    h->pt[L].final = true;
    /* the least cost, then the least bytes */
    SC_CHECK(probe(h, R0, 1, n->mtot + 1, reached, err));
    R = hull_add(h);
    if (R < 0)
        SC_CHECK(sc__error_nomem(err));
    base = h->pt[L];
    eval_split(h, R0, &base, reached, &q);
    SC_CHECK(split(h, R0, R, reached, true, err));
    h->pt[R].m = q.m;
    h->pt[R].c = q.c;
    h->pt[R].f = q.f;
    if (h->pt[R].c >= h->pt[L].c) {
        /* one point: R's vertices join L's sink side */
        for (v = 0; v < h->pt[R].nb; v++)
            h->label[h->pt[R].bucket[v]] = -1;
        h->pt[R].nb = 0;
        h->pt[L].next = -1;
        goto done;
    }
    h->pt[L].next = R;
    stack = sc__malloc(16 * sizeof *stack);
    if (!stack)
        SC_CHECK(sc__error_nomem(err));
    scap = 16;
    stack[sp++] = (seg){L, R};
    while (sp > 0) {
        seg s = stack[--sp];
        uint64_t w1 = h->pt[s.a].c - h->pt[s.b].c;
        uint64_t w2 = h->pt[s.b].m - h->pt[s.a].m;
        int32_t cpt;
        SC_CHECK(probe(h, s.b, w1, w2, reached, err));
        base = h->pt[s.a];
        eval_split(h, s.b, &base, reached, &q);
        if (objective(w1, w2, q.m, q.c) >=
            objective(w1, w2, h->pt[s.a].m, h->pt[s.a].c)) {
            h->pt[s.b].final = true; /* (a, b) is an edge of the hull */
            continue;
        }
        cpt = hull_add(h);
        if (cpt < 0)
            SC_CHECK(sc__error_nomem(err));
        SC_CHECK(split(h, s.b, cpt, reached, false, err));
        h->pt[cpt].m = q.m;
        h->pt[cpt].c = q.c;
        h->pt[cpt].f = q.f;
        h->pt[s.a].next = cpt;
        h->pt[cpt].next = s.b;
        if (sp + 2 > scap) {
            seg *ns = sc__realloc(stack, 2 * scap * sizeof *ns);
            if (!ns)
                SC_CHECK(sc__error_nomem(err));
            stack = ns;
            scap *= 2;
        }
        stack[sp++] = (seg){cpt, s.b};
        stack[sp++] = (seg){s.a, cpt};
    }
done:
fail:
    sc__free(reached);
    sc__free(stack);
    if (status != SC_OK)
        hull_free(h);
    return status;
}

/* The saved set of hull point x (rank by point): saved[k]. */
static void hull_saved(const hull *h, const int32_t *rank, int32_t x,
                       uint8_t *saved)
{
    const sc__fnet *n = h->n;
    size_t k;
    for (k = 0; k < n->nk; k++)
        saved[k] = n->vout[k] >= 0 && n->bytes[k] >= 0 &&
                   in_side(h, rank, n->vin[k], x) &&
                   !in_side(h, rank, n->vout[k], x);
}

/* ---- The hull's vertices, scored, and one budget ----------------------- */

typedef struct fvert {
    sc__fscore s;      /* bytes, cost, flops from the cut; the rest once
                          scored */
    bool scored;
    int32_t pt;        /* the hull point */
    sc_node_id *saved; /* the effective saved set, joint order (scored) */
    size_t nsaved;
} fvert;

/* The network, the hull (labels and ranks: every vertex's source side)
 * and its vertices in increasing bytes, each scored on first use. */
typedef struct fcore {
    sc__fnet net;
    hull h;
    int32_t *rank;
    fvert *v;
    size_t nv;
    size_t maxflows;
} fcore;

static void core_free(fcore *c)
{
    size_t i;
    for (i = 0; i < c->nv; i++)
        sc__free(c->v[i].saved);
    sc__free(c->v);
    sc__free(c->rank);
    hull_free(&c->h);
    fnet_free(&c->net);
    memset(c, 0, sizeof *c);
}

/* The saved ids of mask (effective set) into *ids. */
static sc_status mask_ids(const sc__fnet *n, const uint8_t *mask,
                          sc_node_id **ids, size_t *count, sc_error *err)
{
    size_t k, c = 0;
    for (k = 0; k < n->nk; k++)
        c += mask[k] != 0;
    *ids = sc__malloc((c ? c : 1) * sizeof **ids);
    if (!*ids)
        return sc__error_nomem(err);
    for (k = 0, c = 0; k < n->nk; k++)
        if (mask[k])
            (*ids)[c++] = n->ids[k];
    *count = c;
    return SC_OK;
}

/* Score hull vertex i by walking the graph (its saved set, counts); the
 * walk's bytes, cost and FLOPs must be the cut's. */
static sc_status vert_score(fcore *c, size_t i, sc_error *err)
{
    fvert *fv = &c->v[i];
    uint8_t *mask, *eff;
    sc__fscore s;
    sc_status status = SC_OK;

    if (fv->scored)
        return SC_OK;
    mask = sc__malloc(c->net.nk ? c->net.nk : 1);
    eff = sc__malloc(c->net.nk ? c->net.nk : 1);
    if (!mask || !eff)
        SC_CHECK(sc__error_nomem(err));
    hull_saved(&c->h, c->rank, fv->pt, mask);
    SC_CHECK(sc__fnet_score(&c->net, mask, &s, eff, err));
    if (!s.valid || s.bytes != fv->s.bytes || s.cost != fv->s.cost ||
        s.flops != fv->s.flops)
        SC_CHECK(sc__error_set(err, SC_ERR_INTERNAL,
                               "hull vertex %zu: the cut's %llu bytes, cost "
                               "%llu, %llu FLOPs; scored %llu, %llu, %llu",
                               i, (unsigned long long)fv->s.bytes,
                               (unsigned long long)fv->s.cost,
                               (unsigned long long)fv->s.flops,
                               (unsigned long long)s.bytes,
                               (unsigned long long)s.cost,
                               (unsigned long long)s.flops));
    SC_CHECK(mask_ids(&c->net, eff, &fv->saved, &fv->nsaved, err));
    fv->s = s;
    fv->scored = true;
fail:
    sc__free(mask);
    sc__free(eff);
    return status;
}

static sc_status core_build(sc_partition *p, bool keep_bans, bool replay,
                            fcore *c,
                            sc_error *err)
{
    sc_status status = SC_OK;
    int32_t x;
    size_t i;

    memset(c, 0, sizeof *c);
    SC_TRY(fnet_build(p, keep_bans, replay, &c->net, err));
    SC_CHECK(hull_compute(&c->net, &c->h, err));
    c->maxflows = c->h.probes;
    c->rank = sc__malloc((c->h.npt ? c->h.npt : 1) * sizeof *c->rank);
    if (!c->rank)
        SC_CHECK(sc__error_nomem(err));
    for (x = 0, i = 0; x >= 0; x = c->h.pt[x].next)
        c->rank[x] = (int32_t)i++;
    c->v = sc__calloc(i, sizeof *c->v);
    if (!c->v)
        SC_CHECK(sc__error_nomem(err));
    for (x = 0; x >= 0; x = c->h.pt[x].next) {
        fvert *fv = &c->v[c->nv++];
        fv->pt = x;
        fv->s.valid = true;
        fv->s.bad_k = -1;
        fv->s.bytes = c->h.pt[x].m;
        fv->s.cost = c->h.pt[x].c + c->net.cconst;
        fv->s.flops = c->h.pt[x].f + c->net.fconst;
    }
fail:
    if (status != SC_OK)
        core_free(c);
    return status;
}

static void ids_mask(const sc__fnet *n, const sc_node_id *ids, size_t cnt,
                     uint8_t *mask)
{
    size_t i;
    memset(mask, 0, n->nk ? n->nk : 1);
    for (i = 0; i < cnt; i++)
        if (n->kof[ids[i]] >= 0)
            mask[n->kof[ids[i]]] = 1;
}

/* The hull's bound at budget (>= the first vertex's bytes). */
static uint64_t hull_bound(const fcore *c, uint64_t budget)
{
    size_t i = 0;
    const sc__fscore *a, *b;
    unsigned __int128 num, den, q;
    while (i + 1 < c->nv && c->v[i + 1].s.bytes <= budget)
        i++;
    if (i + 1 >= c->nv || c->v[i].s.bytes == budget)
        return c->v[i].s.cost;
    a = &c->v[i].s;
    b = &c->v[i + 1].s;
    num = (unsigned __int128)(budget - a->bytes) * (a->cost - b->cost);
    den = b->bytes - a->bytes;
    q = num / den; /* the bound is a->cost - num/den, rounded up */
    return a->cost - (uint64_t)q;
}

/* Rescoring work (network nodes times saved values) up to which a
 * budget's decision is pruned. */
#define PRUNE_WORK 20000000u

/* Whether dropping saved node k can keep the cost: it has bytes, may be
 * recomputed, and recomputing it costs nothing itself (a value only the
 * backward needs, a view). */
static bool prunable(const sc__fnet *n, size_t k)
{
    return n->bytes[k] > 0 && n->src[k] != SC__FSRC_HARD &&
           !(n->src[k] == SC__FSRC_COST && n->cost[k] > 0);
}

/* Among decisions of one recompute cost, fewer saved bytes: drop, one at
 * a time in node order, every saved value whose removal keeps the set
 * valid and its cost (the backward then computes the value from what
 * stays saved; a value only the backward needs costs nothing there), so
 * that no single saved value of the result is superfluous.  Only values
 * whose own recompute is free can go (any other raises the cost).
 * Skipped when the rescoring would pass PRUNE_WORK. */
static sc_status prune_saved(const sc__fnet *n, sc__fscore *s, uint8_t *mask,
                             sc_error *err)
{
    size_t k, cnt = 0, nk1 = n->nk ? n->nk : 1;
    uint8_t *trial = NULL, *eff = NULL;
    sc_status status = SC_OK;

    for (k = 0; k < n->nk; k++)
        cnt += mask[k] && prunable(n, k);
    if (cnt == 0 || (uint64_t)cnt * n->nk > PRUNE_WORK)
        return SC_OK;
    trial = sc__malloc(nk1);
    eff = sc__malloc(nk1);
    if (!trial || !eff)
        SC_CHECK(sc__error_nomem(err));
    for (k = 0; k < n->nk; k++) {
        sc__fscore t;
        if (!mask[k] || !prunable(n, k))
            continue;
        memcpy(trial, mask, nk1);
        trial[k] = 0;
        SC_CHECK(sc__fnet_score(n, trial, &t, eff, err));
        if (t.valid && t.cost == s->cost && t.bytes < s->bytes) {
            *s = t;
            memcpy(mask, eff, nk1);
        }
    }
fail:
    sc__free(trial);
    sc__free(eff);
    return status;
}

/* The least recompute cost within budget: *out, mask (effective saved
 * set), whether proven, whether a hull vertex, the bound. */
static sc_status core_solve(fcore *c, uint64_t budget, double seconds,
                            sc__fscore *out, uint8_t *mask, bool *optimal,
                            bool *hullv, uint64_t *bound, sc_error *err)
{
    size_t i = 0;
    uint8_t *start = NULL, *best = NULL;
    bool proven = false;
    sc_status status = SC_OK;

    if (c->nv == 0 || budget < c->v[0].s.bytes)
        return sc__error_set(err, SC_ERR_INVALID,
                             "memory budget %llu bytes: below the least "
                             "that any valid decision saves, %llu bytes",
                             (unsigned long long)budget,
                             (unsigned long long)(c->nv ? c->v[0].s.bytes
                                                        : 0));
    while (i + 1 < c->nv && c->v[i + 1].s.bytes <= budget)
        i++;
    *bound = hull_bound(c, budget);
    SC_TRY(vert_score(c, i, err));
    if (i + 1 >= c->nv || c->v[i].s.bytes == budget) {
        *out = c->v[i].s;
        ids_mask(&c->net, c->v[i].saved, c->v[i].nsaved, mask);
        *optimal = true;
        *hullv = true;
        return SC_OK;
    }
    start = sc__malloc(c->net.nk ? c->net.nk : 1);
    best = sc__malloc(c->net.nk ? c->net.nk : 1);
    if (!start || !best)
        SC_CHECK(sc__error_nomem(err));
    ids_mask(&c->net, c->v[i].saved, c->v[i].nsaved, start);
    /* first the problem between the two vertices' nested cuts (small: the
     * bucket of vertex i + 1), for a good start; then the whole network */
    {
        int8_t *fixed = sc__malloc(c->net.nv);
        size_t v;
        bool rproven;
        sc__fscore rs;
        if (!fixed)
            SC_CHECK(sc__error_nomem(err));
        for (v = 2; v < c->net.nv; v++)
            fixed[v] = in_side(&c->h, c->rank, (int32_t)v, c->v[i].pt) ? 0
                       : in_side(&c->h, c->rank, (int32_t)v, c->v[i + 1].pt)
                           ? -1
                           : 1;
        fixed[0] = 0;
        fixed[1] = 1;
        status = sc__frontier_milp(&c->net, budget, start, fixed,
                                   seconds / 4, best, &rproven, err);
        sc__free(fixed);
        SC_CHECK(status);
        SC_CHECK(sc__fnet_score(&c->net, best, &rs, mask, err));
        if (rs.valid && rs.bytes <= budget && rs.cost < c->v[i].s.cost)
            memcpy(start, mask, c->net.nk ? c->net.nk : 1);
    }
    SC_CHECK(sc__frontier_milp(&c->net, budget, start, NULL, seconds * 3 / 4,
                               best, &proven, err));
    SC_CHECK(sc__fnet_score(&c->net, best, out, mask, err));
    if (!out->valid || out->bytes > budget ||
        out->cost > c->v[i].s.cost) {
        /* never worse than the hull vertex within the budget */
        SC_CHECK(sc__fnet_score(&c->net, start, out, mask, err));
        proven = false;
    }
    SC_CHECK(prune_saved(&c->net, out, mask, err));
    *optimal = proven || out->cost == *bound;
    *hullv = false;
fail:
    sc__free(start);
    sc__free(best);
    return status;
}

static void fill_point(const sc_partition *p, const sc__fnet *n,
                       const sc__fscore *s, sc_frontier_point *pt)
{
    (void)p;
    memset(pt, 0, sizeof *pt);
    pt->saved_bytes = s->bytes;
    pt->recompute_cost = s->cost;
    pt->recompute_flops = s->flops;
    pt->saved_tensors = s->ntensors;
    pt->saved_symints = s->nsymints;
    pt->valid = s->valid;
    pt->invalid_node = s->valid ? SC_NODE_NONE : n->ids[s->bad_k];
}

/* ---- The budgeted cut of sc_partition_run -------------------------------- */

#define DEFAULT_MILP_SECONDS 10.0

/* The default cut's mask from p's saved lists. */
static void lists_mask(const sc_partition *p, const sc__fnet *n,
                       uint8_t *mask)
{
    size_t i;
    memset(mask, 0, n->nk ? n->nk : 1);
    for (i = 0; i < p->saved_tensors.n; i++)
        if (n->kof[p->saved_tensors.ids[i]] >= 0)
            mask[n->kof[p->saved_tensors.ids[i]]] = 1;
    for (i = 0; i < p->saved_symints.n; i++)
        if (n->kof[p->saved_symints.ids[i]] >= 0)
            mask[n->kof[p->saved_symints.ids[i]]] = 1;
}

static void clear_lists(sc_partition *p)
{
    size_t i;
    for (i = 0; i < p->saved_tensors.n; i++)
        p->nodes[p->saved_tensors.ids[i]].flags &= (uint16_t)~SC__PN_SAVED;
    for (i = 0; i < p->saved_symints.n; i++)
        p->nodes[p->saved_symints.ids[i]].flags &= (uint16_t)~SC__PN_SAVED;
    p->saved_tensors.n = p->saved_symints.n = 0;
}

/* SC_PARTITION_BUDGET_SAVED: the given set, checked valid on the
 * validity-only network (keep_bans off; random ops recomputable with
 * memory_budget_replay_random under exact), installed as the saved
 * lists.
 * The network is built without its hull: one scoring walk. */
static sc_status saved_cut(sc_partition *p, const sc_partition_options *o,
                           sc_error *err)
{
    sc_status status = SC_OK;
    sc__fnet net;
    uint8_t *mask = NULL, *eff = NULL;
    sc__fscore s;
    size_t i, k;

    if (o->memory_budget_nsaved > 0 && !o->memory_budget_saved)
        return sc__error_set(err, SC_ERR_INVALID,
                             "memory budget: %zu saved nodes and no list",
                             o->memory_budget_nsaved);
    SC_TRY(fnet_build(p, false, o->memory_budget_replay_random, &net, err));
    mask = sc__calloc(net.nk ? net.nk : 1, 1);
    eff = sc__malloc(net.nk ? net.nk : 1);
    if (!mask || !eff)
        SC_CHECK(sc__error_nomem(err));
    for (i = 0; i < o->memory_budget_nsaved; i++) {
        sc_node_id id = o->memory_budget_saved[i];
        if (id < 0 || (size_t)id >= p->n)
            SC_CHECK(sc__error_set(err, SC_ERR_INVALID,
                                   "memory budget: saved node %ld is not a "
                                   "node of the graph",
                                   (long)id));
        id = p->nodes[id].rep;
        if (id != SC_NODE_NONE && net.kof[id] >= 0)
            mask[net.kof[id]] = 1;
    }
    SC_CHECK(sc__fnet_score(&net, mask, &s, eff, err));
    if (!s.valid)
        SC_CHECK(sc__error_set(err, SC_ERR_INVALID,
                               "memory budget: the saved set is not valid "
                               "under policy %s: the backward would "
                               "recompute %s, which may not be recomputed",
                               sc_partition_policy_name(p->policy),
                               sc_graph_node_name(p->g, net.ids[s.bad_k])));
    for (k = 0; k < net.nk; k++) {
        sc_node_id id = net.ids[k];
        if (!eff[k])
            continue;
        p->nodes[id].flags |= SC__PN_SAVED;
        if (!sc__idlist_push(net.symint[k] ? &p->saved_symints
                                           : &p->saved_tensors,
                             id))
            SC_CHECK(sc__error_nomem(err));
    }
    p->cut_value = (int64_t)s.bytes;
    p->net_vertices = p->net_solved_vertices = net.nv;
    p->net_edges = p->net_solved_edges = net.ne;
fail:
    sc__free(mask);
    sc__free(eff);
    fnet_free(&net);
    return status;
}

sc_status sc__frontier_budget_cut(sc_partition *p, sc_error *err)
{
    const sc_partition_options *o = p->opts;
    sc_status status = SC_OK;
    fcore c;
    uint8_t *mask = NULL;
    uint64_t budget = 0, bound;
    sc__fscore s;
    bool optimal, hullv;
    size_t k;
    double t0 = sc__partition_now();

    memset(&c, 0, sizeof c);
    if (o->memory_budget_kind == SC_PARTITION_BUDGET_SAVED)
        return saved_cut(p, o, err);
    if (p->policy == SC_PARTITION_PYTORCH_1_13)
        return sc__error_set(err, SC_ERR_INVALID,
                             "pytorch-1.13 has no memory budget");
    if (p->policy != SC_PARTITION_EXACT)
        return sc__error_set(err, SC_ERR_INVALID,
                             "no memory budget under policy %s",
                             sc_partition_policy_name(p->policy));
    if (o->memory_budget_kind == SC_PARTITION_BUDGET_RATIO) {
        double r = o->memory_budget_ratio;
        if (!(r >= 0 && r <= 1))
            return sc__error_set(err, SC_ERR_INVALID,
                                 "memory budget ratio %g: not in [0, 1]", r);
        /* the default cut: the ratio's 1 */
        SC_TRY(sc__partition_cut(p, err));
    } else if (o->memory_budget_kind == SC_PARTITION_BUDGET_BYTES) {
        budget = o->memory_budget_bytes;
    } else {
        return sc__error_set(err, SC_ERR_INVALID,
                             "unknown memory budget kind %d",
                             o->memory_budget_kind);
    }
    SC_CHECK(core_build(p, false, o->memory_budget_replay_random, &c, err));
    mask = sc__malloc(c.net.nk ? c.net.nk : 1);
    if (!mask)
        SC_CHECK(sc__error_nomem(err));
    if (o->memory_budget_kind == SC_PARTITION_BUDGET_RATIO) {
        uint64_t lo = c.v[0].s.bytes, hi;
        lists_mask(p, &c.net, mask);
        SC_CHECK(sc__fnet_score(&c.net, mask, &s, NULL, err));
        hi = s.bytes > lo ? s.bytes : lo;
        budget = lo + (uint64_t)((long double)o->memory_budget_ratio *
                                 (long double)(hi - lo));
        if (budget > hi)
            budget = hi;
        clear_lists(p);
    }
    p->seconds[SC_PARTITION_PHASE_NETWORK] += sc__partition_now() - t0;
    t0 = sc__partition_now();
    SC_CHECK(core_solve(&c, budget, DEFAULT_MILP_SECONDS, &s, mask, &optimal,
                        &hullv, &bound, err));
    p->seconds[SC_PARTITION_PHASE_MAXFLOW] += sc__partition_now() - t0;
    for (k = 0; k < c.net.nk; k++) {
        sc_node_id id = c.net.ids[k];
        if (!mask[k])
            continue;
        p->nodes[id].flags |= SC__PN_SAVED;
        if (!sc__idlist_push(c.net.symint[k] ? &p->saved_symints
                                             : &p->saved_tensors,
                             id))
            SC_CHECK(sc__error_nomem(err));
    }
    p->cut_value = (int64_t)s.bytes;
    p->net_vertices = p->net_solved_vertices = c.net.nv;
    p->net_edges = p->net_solved_edges = c.net.ne;
    if (!optimal &&
        !sc__partition_warn(p,
                            "memory budget %llu bytes: recompute cost %llu "
                            "not proven optimal (time limit %gs; lower bound "
                            "%llu)",
                            (unsigned long long)budget,
                            (unsigned long long)s.cost, DEFAULT_MILP_SECONDS,
                            (unsigned long long)bound))
        SC_CHECK(sc__error_nomem(err));
fail:
    sc__free(mask);
    core_free(&c);
    return status;
}

/* ---- The public frontier -------------------------------------------------- */

typedef struct fpoint {
    sc_frontier_point pt;
    sc_node_id *saved;
    size_t nsaved;
    int32_t vi;        /* a hull vertex (scored on first use), else -1 */
    bool ready;        /* saved and the counts filled */
    size_t nrandom;    /* random ops recomputed (ready) */
} fpoint;

struct sc_frontier {
    const sc_graph *g;
    sc_partition *p;          /* the default exact cut (NO_GRAPHS) */
    fcore core;
    sc_frontier_options fo;
    /* a deep copy of the partition options */
    sc_partition_options opts;
    size_t *pidx;
    char **tag_nodes;
    sc_partition_tag *tags;
    fpoint *pts;
    size_t npts;
    sc_frontier_point dflt;
};

void sc_frontier_options_init(sc_frontier_options *opts)
{
    memset(opts, 0, sizeof *opts);
}

static sc_status copy_options(sc_frontier *f, const sc_partition_options *o,
                              sc_error *err)
{
    size_t i;
    f->opts = *o;
    f->opts.memory_budget_kind = SC_PARTITION_BUDGET_NONE;
    f->opts.memory_budget_nsaved = 0;
    f->opts.memory_budget_saved = NULL;
    f->opts.memory_budget_replay_random = false;
    f->pidx = sc__calloc(o->nparam_indices + 1, sizeof *f->pidx);
    f->tag_nodes = sc__calloc(o->ntags + 1, sizeof *f->tag_nodes);
    f->tags = sc__calloc(o->ntags + 1, sizeof *f->tags);
    if (!f->pidx || !f->tag_nodes || !f->tags)
        return sc__error_nomem(err);
    for (i = 0; i < o->nparam_indices; i++)
        f->pidx[i] = o->param_indices[i];
    for (i = 0; i < o->ntags; i++) {
        f->tags[i] = o->tags[i];
        if (o->tag_nodes[i] && !(f->tag_nodes[i] = strdup(o->tag_nodes[i])))
            return sc__error_nomem(err);
    }
    f->opts.param_indices = f->pidx;
    f->opts.tag_nodes = (const char *const *)f->tag_nodes;
    f->opts.tags = f->tags;
    return SC_OK;
}

void sc_frontier_free(sc_frontier *f)
{
    size_t i;
    if (!f)
        return;
    for (i = 0; i < f->npts; i++)
        sc__free(f->pts[i].saved);
    sc__free(f->pts);
    core_free(&f->core);
    sc_partition_free(f->p);
    sc__free(f->pidx);
    for (i = 0; f->tag_nodes && i < f->opts.ntags; i++)
        free(f->tag_nodes[i]);
    sc__free(f->tag_nodes);
    sc__free(f->tags);
    sc__free(f);
}

static sc_status add_point(sc_frontier *f, const sc_frontier_point *pt,
                           const sc__fnet *n, const uint8_t *mask,
                           int32_t vi, sc_error *err)
{
    fpoint *np;
    size_t i;
    for (i = 0; i < f->npts; i++)
        if (f->pts[i].pt.saved_bytes == pt->saved_bytes &&
            f->pts[i].pt.recompute_cost == pt->recompute_cost)
            return SC_OK; /* the same decision's figures: once */
    np = sc__realloc(f->pts, (f->npts + 1) * sizeof *np);
    if (!np)
        return sc__error_nomem(err);
    f->pts = np;
    np = &f->pts[f->npts];
    np->pt = *pt;
    np->vi = vi;
    np->saved = NULL;
    np->nsaved = 0;
    np->ready = vi < 0;
    np->nrandom = 0;
    if (vi < 0) {
        sc__fscore sc;
        SC_TRY(sc__fnet_score(n, mask, &sc, NULL, err));
        np->nrandom = sc.nrandom;
        SC_TRY(mask_ids(n, mask, &np->saved, &np->nsaved, err));
    }
    f->npts++;
    return SC_OK;
}

static int cmp_points(const void *a, const void *b)
{
    const fpoint *x = a, *y = b;
    if (x->pt.saved_bytes != y->pt.saved_bytes)
        return x->pt.saved_bytes < y->pt.saved_bytes ? -1 : 1;
    if (x->pt.recompute_cost != y->pt.recompute_cost)
        return x->pt.recompute_cost > y->pt.recompute_cost ? -1 : 1;
    return 0;
}

sc_status sc_frontier_compute(const sc_graph *joint,
                              const sc_partition_options *opts,
                              const sc_frontier_options *fopts,
                              sc_frontier **out, sc_error *err)
{
    sc_partition_options dflt;
    sc_frontier *f;
    sc_status status = SC_OK;
    uint8_t *mask = NULL;
    sc__fscore s;
    size_t i;

    *out = NULL;
    if (!joint)
        return sc__error_set(err, SC_ERR_INVALID, "no graph");
    if (!opts) {
        sc_partition_options_init(&dflt);
        opts = &dflt;
    }
    f = sc__calloc(1, sizeof *f);
    if (!f)
        return sc__error_nomem(err);
    f->g = joint;
    if (fopts)
        f->fo = *fopts;
    if (!(f->fo.milp_seconds > 0))
        f->fo.milp_seconds = DEFAULT_MILP_SECONDS;
    SC_CHECK(copy_options(f, opts, err));
    {
        sc_partition_options o = f->opts;
        o.flags |= SC_PARTITION_NO_GRAPHS;
        SC_CHECK(sc_partition_run(joint, &o, &f->p, err));
    }
    SC_CHECK(core_build(f->p, f->fo.keep_bans, f->fo.replay_random,
                        &f->core, err));
    mask = sc__malloc(f->core.net.nk ? f->core.net.nk : 1);
    if (!mask)
        SC_CHECK(sc__error_nomem(err));
    /* the default cut */
    lists_mask(f->p, &f->core.net, mask);
    SC_CHECK(sc__fnet_score(&f->core.net, mask, &s, NULL, err));
    fill_point(f->p, &f->core.net, &s, &f->dflt);
    f->dflt.budget = s.bytes;
    f->dflt.lower_bound = s.bytes >= f->core.v[0].s.bytes
                              ? hull_bound(&f->core, s.bytes)
                              : 0;
    f->dflt.optimal = s.valid && s.cost == f->dflt.lower_bound;
    for (i = 0; i < f->core.nv; i++)
        if (f->core.v[i].s.bytes == s.bytes && f->core.v[i].s.cost == s.cost)
            f->dflt.hull_vertex = true;
    /* the hull vertices */
    for (i = 0; i < f->core.nv; i++) {
        sc_frontier_point pt;
        const fvert *v = &f->core.v[i];
        fill_point(f->p, &f->core.net, &v->s, &pt);
        pt.hull_vertex = pt.optimal = true;
        pt.lower_bound = v->s.cost;
        pt.budget = v->s.bytes;
        SC_CHECK(add_point(f, &pt, &f->core.net, NULL, (int32_t)i, err));
    }
    /* the budgets, increasing: never more cost than a smaller budget's */
    if (f->fo.points > 0) {
        uint64_t lo = f->core.v[0].s.bytes;
        uint64_t hi = f->core.v[f->core.nv - 1].s.bytes;
        sc_frontier_point prev;
        uint8_t *prev_mask = sc__malloc(f->core.net.nk ? f->core.net.nk : 1);
        if (!prev_mask)
            SC_CHECK(sc__error_nomem(err));
        memset(&prev, 0, sizeof prev);
        for (i = 0; i < f->fo.points; i++) {
            uint64_t b = f->fo.points == 1
                             ? lo
                             : lo + (uint64_t)((unsigned __int128)(hi - lo) *
                                               i / (f->fo.points - 1));
            sc_frontier_point pt;
            bool optimal, hullv;
            uint64_t bound;
            status = core_solve(&f->core, b, f->fo.milp_seconds, &s, mask,
                                &optimal, &hullv, &bound, err);
            if (status != SC_OK) {
                sc__free(prev_mask);
                goto fail;
            }
            fill_point(f->p, &f->core.net, &s, &pt);
            pt.budget = b;
            pt.lower_bound = bound;
            pt.optimal = optimal;
            pt.hull_vertex = hullv;
            if (i > 0 && prev.recompute_cost < pt.recompute_cost) {
                /* monotone by construction: the smaller budget's decision
                 * fits */
                uint64_t bb = b;
                pt = prev;
                pt.budget = bb;
                pt.lower_bound = bound;
                pt.optimal = pt.recompute_cost == bound;
                memcpy(mask, prev_mask, f->core.net.nk);
            }
            prev = pt;
            memcpy(prev_mask, mask, f->core.net.nk ? f->core.net.nk : 1);
            status = add_point(f, &pt, &f->core.net, mask, -1, err);
            if (status != SC_OK) {
                sc__free(prev_mask);
                goto fail;
            }
        }
        sc__free(prev_mask);
    }
    qsort(f->pts, f->npts, sizeof *f->pts, cmp_points);
    sc__free(mask);
    *out = f;
    return SC_OK;
fail:
    sc__free(mask);
    sc_frontier_free(f);
    return status;
}

size_t sc_frontier_point_count(const sc_frontier *f)
{
    return f ? f->npts : 0;
}

/* Score a hull vertex's point on first use (the frontier is used by one
 * thread at a time, as every object of the library). */
static bool point_ready(const sc_frontier *cf, size_t i)
{
    sc_frontier *f = (sc_frontier *)cf;
    fpoint *fp = &f->pts[i];
    const fvert *v;
    sc_error err;
    if (fp->ready)
        return true;
    if (vert_score(&f->core, (size_t)fp->vi, &err) != SC_OK)
        return false;
    v = &f->core.v[fp->vi];
    fp->saved = sc__malloc((v->nsaved ? v->nsaved : 1) * sizeof *fp->saved);
    if (!fp->saved)
        return false;
    memcpy(fp->saved, v->saved, v->nsaved * sizeof *fp->saved);
    fp->nsaved = v->nsaved;
    fp->pt.saved_tensors = v->s.ntensors;
    fp->pt.saved_symints = v->s.nsymints;
    fp->nrandom = v->s.nrandom;
    fp->ready = true;
    return true;
}

bool sc_frontier_point_get(const sc_frontier *f, size_t i,
                           sc_frontier_point *out)
{
    if (!f || i >= f->npts || !point_ready(f, i))
        return false;
    *out = f->pts[i].pt;
    return true;
}

size_t sc_frontier_point_saved(const sc_frontier *f, size_t i,
                               sc_node_id *ids, size_t cap)
{
    size_t k;
    if (!f || i >= f->npts || !point_ready(f, i))
        return 0;
    for (k = 0; k < cap && k < f->pts[i].nsaved; k++)
        ids[k] = f->pts[i].saved[k];
    return f->pts[i].nsaved;
}

size_t sc_frontier_breakpoint_count(const sc_frontier *f)
{
    return f && f->core.nv > 0 ? f->core.nv - 1 : 0;
}

static uint64_t gcd64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

bool sc_frontier_breakpoint(const sc_frontier *f, size_t i, uint64_t *num,
                            uint64_t *den)
{
    uint64_t dm, dc, g;
    if (!f || i + 1 >= f->core.nv)
        return false;
    dm = f->core.v[i + 1].s.bytes - f->core.v[i].s.bytes;
    dc = f->core.v[i].s.cost - f->core.v[i + 1].s.cost;
    g = gcd64(dm, dc);
    *num = dm / g;
    *den = dc / g;
    return true;
}

void sc_frontier_default_cut(const sc_frontier *f, sc_frontier_point *out)
{
    *out = f->dflt;
}

size_t sc_frontier_maxflow_count(const sc_frontier *f)
{
    return f ? f->core.maxflows : 0;
}

sc_status sc_frontier_solve(const sc_frontier *f, uint64_t budget,
                            double seconds, sc_frontier_point *out,
                            sc_node_id **saved, size_t *nsaved,
                            sc_error *err)
{
    uint8_t *mask;
    sc__fscore s;
    bool optimal, hullv;
    uint64_t bound;
    sc_status status;
    size_t dummy;

    if (saved)
        *saved = NULL;
    if (!nsaved)
        nsaved = &dummy;
    *nsaved = 0;
    mask = sc__malloc(f->core.net.nk ? f->core.net.nk : 1);
    if (!mask)
        return sc__error_nomem(err);
    status = core_solve((fcore *)&f->core, budget,
                        seconds > 0 ? seconds : f->fo.milp_seconds, &s, mask,
                        &optimal, &hullv, &bound, err);
    if (status == SC_OK) {
        fill_point(f->p, &f->core.net, &s, out);
        out->budget = budget;
        out->lower_bound = bound;
        out->optimal = optimal;
        out->hull_vertex = hullv;
        if (saved) {
            sc_node_id *ids;
            status = mask_ids(&f->core.net, mask, &ids, nsaved, err);
            if (status == SC_OK) {
                /* hand over with the system allocator */
                *saved = malloc((*nsaved ? *nsaved : 1) * sizeof **saved);
                if (!*saved)
                    status = sc__error_nomem(err);
                else
                    memcpy(*saved, ids, *nsaved * sizeof **saved);
                sc__free(ids);
            }
        }
    }
    sc__free(mask);
    return status;
}

sc_status sc_frontier_score(const sc_frontier *f, const sc_node_id *ids,
                            size_t n, sc_frontier_point *out, sc_error *err)
{
    const sc__fnet *net = &f->core.net;
    uint8_t *mask = sc__calloc(net->nk ? net->nk : 1, 1);
    sc__fscore s;
    sc_status status;
    size_t i;

    if (!mask)
        return sc__error_nomem(err);
    for (i = 0; i < n; i++) {
        sc_node_id id = ids[i];
        if (id < 0 || (size_t)id >= f->p->n) {
            sc__free(mask);
            return sc__error_set(err, SC_ERR_INVALID,
                                 "saved node %ld: not a node of the graph",
                                 (long)id);
        }
        id = f->p->nodes[id].rep;
        if (id != SC_NODE_NONE && net->kof[id] >= 0)
            mask[net->kof[id]] = 1;
    }
    status = sc__fnet_score(net, mask, &s, NULL, err);
    sc__free(mask);
    SC_TRY(status);
    fill_point(f->p, net, &s, out);
    out->budget = s.bytes;
    out->lower_bound =
        s.bytes >= f->core.v[0].s.bytes ? hull_bound(&f->core, s.bytes) : 0;
    out->optimal = s.valid && s.cost == out->lower_bound;
    return SC_OK;
}

sc_status sc_frontier_point_partition(const sc_frontier *f, size_t i,
                                      unsigned flags, sc_partition **out,
                                      sc_error *err)
{
    *out = NULL;
    if (!f || i >= f->npts)
        return sc__error_set(err, SC_ERR_INVALID, "no frontier point %zu", i);
    if (!point_ready(f, i))
        return sc__error_nomem(err);
    return sc_frontier_partition_saved(f, f->pts[i].saved, f->pts[i].nsaved,
                                       flags, out, err);
}

sc_status sc_frontier_partition_saved(const sc_frontier *f,
                                      const sc_node_id *ids, size_t n,
                                      unsigned flags, sc_partition **out,
                                      sc_error *err)
{
    sc_partition_options o;
    *out = NULL;
    o = f->opts;
    o.flags = (o.flags & ~(unsigned)SC_PARTITION_NO_GRAPHS) |
              (flags & SC_PARTITION_NO_GRAPHS);
    /* sc_partition_run takes a SAVED budget under every policy but
     * pytorch-2.13 (whose budget is torch's algorithm) */
    if (o.policy == SC_PARTITION_PYTORCH_2_13)
        o.policy = SC_PARTITION_EXACT;
    o.memory_budget_kind = SC_PARTITION_BUDGET_SAVED;
    o.memory_budget_nsaved = n;
    o.memory_budget_saved = ids;
    o.memory_budget_replay_random = f->fo.replay_random;
    return sc_partition_run(f->g, &o, out, err);
}

size_t sc_frontier_point_replayed_random(const sc_frontier *f, size_t i)
{
    if (!f || i >= f->npts || !point_ready(f, i))
        return 0;
    return f->pts[i].nrandom;
}

sc_partition_policy sc_frontier_policy(const sc_frontier *f)
{
    return f->opts.policy;
}

sc_status sc_frontier_torch_budget(const sc_frontier *f, double ratio,
                                   sc_frontier_point *out, sc_node_id **saved,
                                   size_t *nsaved, sc_error *err)
{
    sc_partition_options o;
    sc_partition *p = NULL;
    sc_node_id *ids = NULL;
    size_t n = 0, i, nt, ns;
    sc_status status = SC_OK;

    if (saved)
        *saved = NULL;
    if (nsaved)
        *nsaved = 0;
    if (!(ratio >= 0 && ratio <= 1))
        return sc__error_set(err, SC_ERR_INVALID,
                             "memory budget ratio %g: not in [0, 1]", ratio);
    o = f->opts;
    o.policy = SC_PARTITION_PYTORCH_2_13;
    o.flags |= SC_PARTITION_NO_GRAPHS;
    o.memory_budget_kind = SC_PARTITION_BUDGET_RATIO;
    o.memory_budget_ratio = ratio;
    SC_TRY(sc_partition_run(f->g, &o, &p, err));
    nt = sc_partition_saved_tensor_count(p);
    ns = sc_partition_saved_symint_count(p);
    ids = malloc((nt + ns ? nt + ns : 1) * sizeof *ids);
    if (!ids)
        SC_CHECK(sc__error_nomem(err));
    for (i = 0; i < nt; i++)
        ids[n++] = sc_partition_saved_tensor(p, i);
    for (i = 0; i < ns; i++)
        ids[n++] = sc_partition_saved_symint(p, i);
    SC_CHECK(sc_frontier_score(f, ids, n, out, err));
    if (saved) {
        *saved = ids;
        ids = NULL;
    }
    if (nsaved)
        *nsaved = n;
fail:
    free(ids);
    sc_partition_free(p);
    return status;
}
