/* symcut — partitioner phases 2 and 3: the flow network, igraph's
 * max-flow, and the saved set read off the residual graph. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include <igraph.h>

#include "graph/ops.h"
#include "partition/partition-internal.h"

#define EXACT_LIMIT 9007199254740992.0 /* 2^53 */

#define V_SOURCE 0
#define V_SINK 1
#define V_IN(k) (2 + 2 * (igraph_integer_t)(k))
#define V_OUT(k) (3 + 2 * (igraph_integer_t)(k))

static const sc_node_id *users_of(const sc_partition *p, sc_node_id id,
                                  size_t *n)
{
    *n = p->uoff[id + 1] - p->uoff[id];
    return p->users + p->uoff[id];
}

/* ---- No finite cut: name the infinite path ------------------------------ */

static const char *why_source(const sc_partition *p, sc_node_id id)
{
    return sc_partition_ban_name((sc_partition_ban)p->nodes[id].ban);
}

static const char *why_infinite(const sc_partition *p, sc_node_id id)
{
    switch (p->nodes[id].vkind) {
    case SC__PV_SYMINT:
        return "a symbolic integer, which this policy cannot save";
    case SC__PV_TUPLE:
        return "a tuple, which cannot be saved (its elements can)";
    default:
        return "no tensor metadata, so it cannot be saved";
    }
}

static const char *why_sink(const sc_partition *p, sc_node_id id)
{
    const sc__pnode *pn = &p->nodes[id];
    if (pn->cls & SC_PARTITION_TANGENT_CLOSURE)
        return "depends on a tangent: computed by the backward";
    if (pn->tag == SC_PARTITION_TAG_MUST_RECOMPUTE)
        return "tagged must_recompute";
    return "a gradient output";
}

/* An infinite path source -> sink, found in topological order; on success
 * *found is the last node of the path and parent[] leads back. */
static sc_status infinite_path(sc_partition *p, sc_error *err)
{
    const sc_graph *g = p->g;
    sc_node_id *parent;   /* in-reachability: who reached X_in */
    uint8_t *rin;
    sc_node_id found = SC_NODE_NONE, k;
    size_t i, nu, j, len = 0;
    const sc_node_id *us;
    sc_node_id *path;
    sc__buf b;
    char *msg;
    sc_status status;

    parent = sc__malloc((p->n ? p->n : 1) * sizeof *parent);
    rin = sc__calloc(p->n ? p->n : 1, 1);
    if (!parent || !rin) {
        sc__free(parent);
        sc__free(rin);
        return sc__error_nomem(err);
    }
    for (i = 0; i < p->n && found == SC_NODE_NONE; i++) {
        sc__pnode *pn = &p->nodes[i];
        if (!(pn->flags & SC__PN_CANON))
            continue;
        if (!rin[i] && (pn->flags & SC__PN_SRC)) {
            rin[i] = 1;
            parent[i] = SC_NODE_NONE;
        }
        if (!rin[i])
            continue;
        if (pn->flags & SC__PN_IN_SINK) {
            found = (sc_node_id)i;
            break;
        }
        if (pn->weight >= 0)
            continue;
        if (pn->flags & SC__PN_OUT_SINK) {
            found = (sc_node_id)i;
            break;
        }
        us = users_of(p, (sc_node_id)i, &nu);
        for (j = 0; j < nu; j++)
            if (!rin[us[j]]) {
                rin[us[j]] = 1;
                parent[us[j]] = (sc_node_id)i;
            }
    }
    sc__free(rin);
    if (found == SC_NODE_NONE) {
        sc__free(parent);
        return SC_OK;
    }
    for (k = found; k != SC_NODE_NONE; k = parent[k])
        len++;
    path = sc__malloc(len * sizeof *path);
    if (!path) {
        sc__free(parent);
        return sc__error_nomem(err);
    }
    j = len;
    for (k = found; k != SC_NODE_NONE; k = parent[k])
        path[--j] = k;
    sc__free(parent);

    sc__buf_init(&b);
    sc__buf_printf(&b, "no finite cut under policy %s: an infinite path "
                       "source -> ",
                   sc_partition_policy_name(p->policy));
    for (j = 0; j < len; j++) {
        sc_node_id id = path[j];
        if (j == 0)
            sc__buf_printf(&b, "%s [tied to the source: %s]",
                           sc_graph_node_name(g, id), why_source(p, id));
        else
            sc__buf_printf(&b, " -> %s [uses %s]", sc_graph_node_name(g, id),
                           sc_graph_node_name(g, path[j - 1]));
        if (j + 1 < len || !(p->nodes[id].flags & SC__PN_IN_SINK))
            sc__buf_printf(&b, " (%s: %s)", sc_graph_node_name(g, id),
                           why_infinite(p, id));
    }
    sc__buf_printf(&b, " -> sink [%s %s]", sc_graph_node_name(g, found),
                   why_sink(p, found));
    sc__free(path);
    msg = sc__buf_take(&b);
    if (!msg)
        return sc__error_nomem(err);
    status = sc__error_set(err, SC_ERR_UNSUPPORTED, "%s", msg);
    free(msg);
    return status;
}

/* ---- The network ---------------------------------------------------------- */

typedef struct net {
    igraph_vector_int_t edges;
    igraph_vector_t cap;
    igraph_integer_t nv;
    double inf;
} net;

static igraph_error_t push_edge(net *n, igraph_integer_t a,
                                igraph_integer_t b, double c)
{
    IGRAPH_CHECK(igraph_vector_int_push_back(&n->edges, a));
    IGRAPH_CHECK(igraph_vector_int_push_back(&n->edges, b));
    return igraph_vector_push_back(&n->cap, c);
}

static sc_status build_network(sc_partition *p, net *n, sc_error *err)
{
    size_t i, j, nu, ne = 0, nvx = 2;
    double sum = 0;
    bool output_vertex = false;
    const sc_node_id *us;
    igraph_error_t rc = IGRAPH_SUCCESS;

    for (i = 0; i < p->n; i++) {
        sc__pnode *pn = &p->nodes[i];
        if (!(pn->flags & SC__PN_CANON))
            continue;
        if (pn->flags & SC__PN_IN_SINK) {
            ne++;
            nvx++;
            continue;
        }
        nvx += 2;
        ne += 1 + ((pn->flags & SC__PN_SRC) != 0) +
              ((pn->flags & SC__PN_OUT_SINK) != 0) +
              (p->uoff[i + 1] - p->uoff[i]);
        if (pn->weight > 0)
            sum += (double)pn->weight;
        if (pn->flags & SC__PN_OUT_USED) {
            output_vertex = true;
            p->net_edges++;
        }
    }
    if (sum + 1 >= EXACT_LIMIT)
        return sc__error_set(err, SC_ERR_UNSUPPORTED,
                             "the capacities sum to %.17g, beyond 2^53: "
                             "the max-flow would not be exact",
                             sum);
    n->inf = sum + 1;
    n->nv = V_OUT(p->n) + 1;
    p->net_vertices = nvx + output_vertex;
    p->net_edges += ne;

    if (igraph_vector_int_init(&n->edges, 0) != IGRAPH_SUCCESS)
        return sc__error_nomem(err);
    if (igraph_vector_init(&n->cap, 0) != IGRAPH_SUCCESS) {
        igraph_vector_int_destroy(&n->edges);
        return sc__error_nomem(err);
    }
    if (igraph_vector_int_reserve(&n->edges, 2 * (igraph_integer_t)ne) ||
        igraph_vector_reserve(&n->cap, (igraph_integer_t)ne))
        goto nomem;
    for (i = 0; i < p->n && rc == IGRAPH_SUCCESS; i++) {
        sc__pnode *pn = &p->nodes[i];
        if (!(pn->flags & SC__PN_CANON))
            continue;
        if (pn->flags & SC__PN_IN_SINK) {
            rc = push_edge(n, V_IN(i), V_SINK, n->inf);
            continue;
        }
        if (pn->flags & SC__PN_SRC)
            rc |= push_edge(n, V_SOURCE, V_IN(i), n->inf);
        rc |= push_edge(n, V_IN(i), V_OUT(i),
                        pn->weight < 0 ? n->inf : (double)pn->weight);
        us = users_of(p, (sc_node_id)i, &nu);
        for (j = 0; j < nu; j++)
            rc |= push_edge(n, V_OUT(i), V_IN(us[j]), n->inf);
        if (pn->flags & SC__PN_OUT_SINK)
            rc |= push_edge(n, V_OUT(i), V_SINK, n->inf);
    }
    if (rc != IGRAPH_SUCCESS)
        goto nomem;
    return SC_OK;
nomem:
    igraph_vector_int_destroy(&n->edges);
    igraph_vector_destroy(&n->cap);
    return sc__error_nomem(err);
}

sc_status sc__partition_network(sc_partition *p, igraph_t *graph,
                                igraph_vector_t *cap, double *inf,
                                sc_error *err)
{
    net n;
    sc_status status = build_network(p, &n, err);
    igraph_error_handler_t *old;
    igraph_error_t rc;
    if (status != SC_OK)
        return status;
    old = igraph_set_error_handler(igraph_error_handler_ignore);
    rc = igraph_create(graph, &n.edges, n.nv, IGRAPH_DIRECTED);
    igraph_set_error_handler(old);
    igraph_vector_int_destroy(&n.edges);
    if (rc != IGRAPH_SUCCESS) {
        igraph_vector_destroy(&n.cap);
        return sc__error_nomem(err);
    }
    *cap = n.cap;
    if (inf)
        *inf = n.inf;
    return SC_OK;
}

/* ---- The saved set ------------------------------------------------------ */

/* The sink side of the cut PyTorch reads (networkx's minimum_cut): the
 * vertices that can still reach the sink in the residual graph.  It is the
 * same for every maximum flow: the smallest sink side of all minimum
 * cuts. */
static sc_status sink_side(const igraph_t *graph, const igraph_vector_t *cap,
                           const igraph_vector_t *flow, uint8_t *in_t,
                           sc_error *err)
{
    igraph_integer_t nv = igraph_vcount(graph), ne = igraph_ecount(graph);
    igraph_integer_t e, v, head = 0, tail = 0;
    size_t *ooff, *ioff;
    int32_t *oe, *ie;
    igraph_integer_t *queue;

    ooff = sc__calloc((size_t)nv + 1, sizeof *ooff);
    ioff = sc__calloc((size_t)nv + 1, sizeof *ioff);
    oe = sc__malloc(((size_t)ne + 1) * sizeof *oe);
    ie = sc__malloc(((size_t)ne + 1) * sizeof *ie);
    queue = sc__malloc((size_t)nv * sizeof *queue);
    if (!ooff || !ioff || !oe || !ie || !queue) {
        sc__free(ooff);
        sc__free(ioff);
        sc__free(oe);
        sc__free(ie);
        sc__free(queue);
        return sc__error_nomem(err);
    }
    for (e = 0; e < ne; e++) {
        ooff[IGRAPH_FROM(graph, e) + 1]++;
        ioff[IGRAPH_TO(graph, e) + 1]++;
    }
    for (v = 0; v < nv; v++) {
        ooff[v + 1] += ooff[v];
        ioff[v + 1] += ioff[v];
    }
    for (e = 0; e < ne; e++) {
        oe[ooff[IGRAPH_FROM(graph, e)]++] = (int32_t)e;
        ie[ioff[IGRAPH_TO(graph, e)]++] = (int32_t)e;
    }
    for (v = nv; v > 0; v--) {
        ooff[v] = ooff[v - 1];
        ioff[v] = ioff[v - 1];
    }
    ooff[0] = ioff[0] = 0;

    memset(in_t, 0, (size_t)nv);
    in_t[V_SINK] = 1;
    queue[tail++] = V_SINK;
    while (head < tail) {
        size_t k;
        v = queue[head++];
        for (k = ioff[v]; k < ioff[v + 1]; k++) {
            igraph_integer_t u = IGRAPH_FROM(graph, ie[k]);
            if (!in_t[u] && VECTOR(*cap)[ie[k]] - VECTOR(*flow)[ie[k]] > 0) {
                in_t[u] = 1;
                queue[tail++] = u;
            }
        }
        for (k = ooff[v]; k < ooff[v + 1]; k++) {
            igraph_integer_t w = IGRAPH_TO(graph, oe[k]);
            if (!in_t[w] && VECTOR(*flow)[oe[k]] > 0) {
                in_t[w] = 1;
                queue[tail++] = w;
            }
        }
    }
    sc__free(ooff);
    sc__free(ioff);
    sc__free(oe);
    sc__free(ie);
    sc__free(queue);
    return SC_OK;
}

sc_status sc__partition_cut(sc_partition *p, sc_error *err)
{
    igraph_t graph;
    igraph_vector_t cap, flow;
    igraph_real_t value = 0;
    igraph_error_handler_t *old;
    igraph_warning_handler_t *oldw;
    igraph_error_t rc;
    uint8_t *in_t = NULL;
    sc_status status;
    double t0 = sc__partition_now(), t1, t2;
    double cut = 0, inf;
    size_t i;

    status = infinite_path(p, err);
    if (status != SC_OK)
        return status;
    status = sc__partition_network(p, &graph, &cap, &inf, err);
    if (status != SC_OK)
        return status;
    t1 = sc__partition_now();
    p->seconds[SC_PARTITION_PHASE_NETWORK] += t1 - t0;

    old = igraph_set_error_handler(igraph_error_handler_ignore);
    oldw = igraph_set_warning_handler(igraph_warning_handler_ignore);
    rc = igraph_vector_init(&flow, 0);
    if (rc == IGRAPH_SUCCESS) {
        rc = igraph_maxflow(&graph, &value, &flow, NULL, NULL, NULL,
                            V_SOURCE, V_SINK, &cap, NULL);
        if (rc != IGRAPH_SUCCESS)
            igraph_vector_destroy(&flow);
    }
    igraph_set_warning_handler(oldw);
    igraph_set_error_handler(old);
    t2 = sc__partition_now();
    p->seconds[SC_PARTITION_PHASE_MAXFLOW] += t2 - t1;
    if (rc != IGRAPH_SUCCESS) {
        igraph_destroy(&graph);
        igraph_vector_destroy(&cap);
        return rc == IGRAPH_ENOMEM
                   ? sc__error_nomem(err)
                   : sc__error_set(err, SC_ERR_INTERNAL,
                                   "igraph_maxflow failed: %s",
                                   igraph_strerror(rc));
    }

    in_t = sc__malloc((size_t)igraph_vcount(&graph));
    if (!in_t) {
        status = sc__error_nomem(err);
        goto done;
    }
    status = sink_side(&graph, &cap, &flow, in_t, err);
    if (status != SC_OK)
        goto done;
    for (i = 0; i < (size_t)igraph_ecount(&graph); i++) {
        igraph_integer_t a = IGRAPH_FROM(&graph, (igraph_integer_t)i);
        igraph_integer_t b = IGRAPH_TO(&graph, (igraph_integer_t)i);
        if (!in_t[a] && in_t[b]) {
            cut += VECTOR(cap)[i];
            if (a < 2 || b != a + 1 || (a & 1)) {
                status = sc__error_set(err, SC_ERR_INTERNAL,
                                       "the minimum cut crosses an "
                                       "infinite edge");
                goto done;
            }
        }
    }
    if (cut != value || value >= inf) {
        status = sc__error_set(err, SC_ERR_INTERNAL,
                               "the cut (%.17g) differs from the flow "
                               "(%.17g)",
                               cut, (double)value);
        goto done;
    }
    p->cut_value = (int64_t)value;
    for (i = 0; i < p->n; i++) {
        sc__pnode *pn = &p->nodes[i];
        if (!(pn->flags & SC__PN_CANON) || (pn->flags & SC__PN_IN_SINK))
            continue;
        if (!in_t[V_IN(i)] && in_t[V_OUT(i)]) {
            pn->flags |= SC__PN_SAVED;
            if (!sc__idlist_push(pn->vkind == SC__PV_SYMINT
                                     ? &p->saved_symints
                                     : &p->saved_tensors,
                                 (sc_node_id)i)) {
                status = sc__error_nomem(err);
                goto done;
            }
        }
    }
done:
    sc__free(in_t);
    igraph_vector_destroy(&flow);
    igraph_vector_destroy(&cap);
    igraph_destroy(&graph);
    p->seconds[SC_PARTITION_PHASE_CUT] += sc__partition_now() - t2;
    return status;
}
