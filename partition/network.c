/* symcut — partitioner phases 2 and 3: the flow network, igraph's
 * max-flow, and the saved set read off the residual graph. */
#include <config.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <igraph.h>

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
    if (pn->tag == SC_PARTITION_TAG_PREFER_RECOMPUTE)
        return "tagged prefer_recompute";
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

/* The full network, as PyTorch builds it (vertex numbering V_IN/V_OUT). */
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

static bool net_init(net *n, size_t ne)
{
    if (igraph_vector_int_init(&n->edges, 0) != IGRAPH_SUCCESS)
        return false;
    if (igraph_vector_init(&n->cap, 0) != IGRAPH_SUCCESS) {
        igraph_vector_int_destroy(&n->edges);
        return false;
    }
    if (igraph_vector_int_reserve(&n->edges, 2 * (igraph_integer_t)ne) ||
        igraph_vector_reserve(&n->cap, (igraph_integer_t)ne)) {
        igraph_vector_int_destroy(&n->edges);
        igraph_vector_destroy(&n->cap);
        return false;
    }
    return true;
}

/* Count the full network as networkx would (p->net_vertices, net_edges),
 * check that the capacities stay exact and compute infinity. */
static sc_status count_network(sc_partition *p, size_t *nedges, double *inf,
                               sc_error *err)
{
    size_t i, ne = 0, nvx = 2, extra = 0;
    double sum = 0;
    bool output_vertex = false;

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
            extra++;
        }
    }
    if (sum + 1 >= EXACT_LIMIT)
        return sc__error_set(err, SC_ERR_UNSUPPORTED,
                             "the capacities sum to %.17g, beyond 2^53: "
                             "the max-flow would not be exact",
                             sum);
    *inf = sum + 1;
    *nedges = ne;
    p->net_vertices = nvx + output_vertex;
    p->net_edges = ne + extra;
    return SC_OK;
}

static sc_status build_network(sc_partition *p, net *n, sc_error *err)
{
    size_t i, j, nu, ne;
    const sc_node_id *us;
    igraph_error_t rc = IGRAPH_SUCCESS;
    SC_TRY(count_network(p, &ne, &n->inf, err));
    n->nv = V_OUT(p->n) + 1;
    if (!net_init(n, ne))
        return sc__error_nomem(err);
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
    if (rc != IGRAPH_SUCCESS) {
        igraph_vector_int_destroy(&n->edges);
        igraph_vector_destroy(&n->cap);
        return sc__error_nomem(err);
    }
    return SC_OK;
}

/* ---- The reduced network --------------------------------------------------
 *
 * The same minimum cuts on far fewer vertices.  Marks of the full
 * network's vertices (one byte for X_in, one for X_out; edges of capacity
 * 0 count as absent):
 *   S0  reached from the source by infinite edges: on the source side of
 *       every finite cut, contracted into the source;
 *   T0  reaches the sink by infinite edges: on the sink side of every
 *       finite cut, contracted into the sink;
 *   R   reached from the source, C reaches the sink (positive edges).
 * The reduced network keeps the vertices in R and C but in neither S0
 * nor T0 (set K), the edges among K, source and sink (edges into S0 or
 * out of T0 dropped, parallel infinite edges merged, finite source ->
 * sink edges summed into a constant).
 *
 * Why the saved set is unchanged.  Every finite cut has S0 on the source
 * side and T0 on the sink side, and positive edges leave R only into R
 * and leave R \ C only into R \ C.  So a cut of the full network costs at
 * least the constant plus the cost of its restriction to K in the reduced
 * network, and every reduced cut, extended by S0 and R \ C on the source
 * side and T0 and V \ R on the sink side, costs exactly that: the minimum
 * cuts of the full network are the extensions of the reduced ones plus
 * free choices outside K.  PyTorch reads the smallest sink side T* of all
 * minimum cuts (the vertices that reach the sink in a residual graph);
 * its restriction to K is therefore the reduced network's T*, and outside
 * K it is the smallest closure: S0 and R \ C out, T0 in, and a vertex
 * outside R in exactly when a positive edge leads from it into T*
 * (computed in reverse topological order).  tests/check_partition.c
 * compares both networks' saved sets on random graphs. */

enum {
    M_R = 1u << 0,
    M_C = 1u << 1,
    M_S0 = 1u << 2,
    M_T0 = 1u << 3,
    M_T = 1u << 4,   /* on the sink side T* */
    M_HS = 1u << 5,  /* reduced: an infinite edge from the source */
    M_HT = 1u << 6   /* reduced: an infinite edge to the sink */
};

typedef struct rnet {
    net n;
    uint8_t *min, *mout;   /* marks of X_in, X_out */
    int32_t *vin, *vout;   /* reduced vertex: 0 source, 1 sink, >= 2 K,
                              -1 dropped */
    double constant;       /* finite source -> sink capacities */
} rnet;

static void rnet_free(rnet *r)
{
    sc__free(r->min);
    sc__free(r->mout);
    sc__free(r->vin);
    sc__free(r->vout);
    r->min = r->mout = NULL;
    r->vin = r->vout = NULL;
}

static int32_t rvertex(uint8_t m, int32_t *next)
{
    if (m & M_S0)
        return V_SOURCE;
    if (m & M_T0)
        return V_SINK;
    if ((m & (M_R | M_C)) == (M_R | M_C))
        return (*next)++;
    return -1;
}

static void mark_network(sc_partition *p, uint8_t *min, uint8_t *mout)
{
    size_t i, k, nu;
    const sc_node_id *us;

    for (i = 0; i < p->n; i++) {
        const sc__pnode *pn = &p->nodes[i];
        uint8_t o = 0;
        if (!(pn->flags & SC__PN_CANON))
            continue;
        if (pn->flags & SC__PN_SRC)
            min[i] |= M_R | M_S0;
        if (pn->flags & SC__PN_IN_SINK)
            continue;
        if (pn->weight != 0)
            o |= min[i] & M_R;
        if (pn->weight < 0)
            o |= min[i] & M_S0;
        mout[i] = o;
        if (!o)
            continue;
        us = users_of(p, (sc_node_id)i, &nu);
        for (k = 0; k < nu; k++)
            min[us[k]] |= o;
    }
    for (i = p->n; i-- > 0;) {
        const sc__pnode *pn = &p->nodes[i];
        uint8_t o = 0;
        if (!(pn->flags & SC__PN_CANON))
            continue;
        if (pn->flags & SC__PN_IN_SINK) {
            min[i] |= M_C | M_T0;
            continue;
        }
        if (pn->flags & SC__PN_OUT_SINK)
            o = M_C | M_T0;
        us = users_of(p, (sc_node_id)i, &nu);
        for (k = 0; k < nu && o != (M_C | M_T0); k++)
            o |= min[us[k]] & (M_C | M_T0);
        mout[i] |= o;
        if (pn->weight != 0)
            min[i] |= o & M_C;
        if (pn->weight < 0)
            min[i] |= o & M_T0;
    }
}

static sc_status build_reduced(sc_partition *p, rnet *r, sc_error *err)
{
    size_t i, k, nu, ne;
    int32_t next = 2;
    const sc_node_id *us;
    igraph_error_t rc = IGRAPH_SUCCESS;
    net *n = &r->n;
    SC_TRY(count_network(p, &ne, &n->inf, err));
    if (p->n > (size_t)(INT32_MAX - 4) / 2)
        return sc__error_set(err, SC_ERR_LIMIT,
                             "%zu nodes: too many for the flow network",
                             p->n);
    r->constant = 0;
    r->min = sc__calloc(p->n ? p->n : 1, 1);
    r->mout = sc__calloc(p->n ? p->n : 1, 1);
    r->vin = sc__malloc((p->n ? p->n : 1) * sizeof *r->vin);
    r->vout = sc__malloc((p->n ? p->n : 1) * sizeof *r->vout);
    if (!r->min || !r->mout || !r->vin || !r->vout) {
        rnet_free(r);
        return sc__error_nomem(err);
    }
    mark_network(p, r->min, r->mout);
    ne = 0;
    for (i = 0; i < p->n; i++) {
        const sc__pnode *pn = &p->nodes[i];
        if ((r->min[i] & (M_S0 | M_T0)) == (M_S0 | M_T0) ||
            (r->mout[i] & (M_S0 | M_T0)) == (M_S0 | M_T0)) {
            rnet_free(r);
            return sc__error_set(err, SC_ERR_INTERNAL,
                                 "an infinite path through %s was not "
                                 "diagnosed",
                                 sc_graph_node_name(p->g, (sc_node_id)i));
        }
        r->vin[i] = r->vout[i] = -1;
        if (!(pn->flags & SC__PN_CANON))
            continue;
        r->vin[i] = rvertex(r->min[i], &next);
        if (!(pn->flags & SC__PN_IN_SINK)) {
            r->vout[i] = rvertex(r->mout[i], &next);
            if (r->vout[i] >= 2)
                ne += 1 + p->uoff[i + 1] - p->uoff[i];
        }
    }
    n->nv = next;
    if (!net_init(n, ne + 1)) {
        rnet_free(r);
        return sc__error_nomem(err);
    }
    for (i = 0; i < p->n && rc == IGRAPH_SUCCESS; i++) {
        const sc__pnode *pn = &p->nodes[i];
        int32_t a = r->vin[i], b = r->vout[i];
        if (!(pn->flags & SC__PN_CANON) || (pn->flags & SC__PN_IN_SINK))
            continue;
        if (a >= 2 && (pn->flags & SC__PN_SRC))
            r->min[i] |= M_HS;
        /* X_in -> X_out */
        if (pn->weight != 0 && a >= 0 && b >= 0 && a != V_SINK &&
            b != V_SOURCE && a != b) {
            double c = pn->weight < 0 ? n->inf : (double)pn->weight;
            if (a == V_SOURCE && b == V_SINK)
                r->constant += c;
            else
                rc = push_edge(n, a, b, c);
        }
        if (b < 0 || b == V_SINK)
            continue;
        if (b >= 2 && (pn->flags & SC__PN_OUT_SINK))
            r->mout[i] |= M_HT;
        us = users_of(p, (sc_node_id)i, &nu);
        for (k = 0; k < nu && rc == IGRAPH_SUCCESS; k++) {
            int32_t c = r->vin[us[k]];
            if (c < 0 || c == V_SOURCE)
                continue;
            if (b == V_SOURCE) {
                if (c >= 2)
                    r->min[us[k]] |= M_HS;
            } else if (c == V_SINK) {
                r->mout[i] |= M_HT;
            } else {
                rc = push_edge(n, b, c, n->inf);
            }
        }
    }
    for (i = 0; i < p->n && rc == IGRAPH_SUCCESS; i++) {
        if (r->min[i] & M_HS)
            rc = push_edge(n, V_SOURCE, r->vin[i], n->inf);
        if (rc == IGRAPH_SUCCESS && (r->mout[i] & M_HT))
            rc = push_edge(n, r->vout[i], V_SINK, n->inf);
    }
    if (rc != IGRAPH_SUCCESS) {
        igraph_vector_int_destroy(&n->edges);
        igraph_vector_destroy(&n->cap);
        rnet_free(r);
        return sc__error_nomem(err);
    }
    return SC_OK;
}

/* Extend the reduced network's sink side (in_t, by reduced vertex) to
 * every vertex of the full network: M_T in r->min / r->mout. */
static void extend_sink_side(sc_partition *p, rnet *r, const uint8_t *in_t)
{
    size_t i, k, nu;
    const sc_node_id *us;
    for (i = p->n; i-- > 0;) {
        const sc__pnode *pn = &p->nodes[i];
        uint8_t m;
        bool t;
        if (!(pn->flags & SC__PN_CANON))
            continue;
        if (!(pn->flags & SC__PN_IN_SINK)) {
            m = r->mout[i];
            if (m & M_S0)
                t = false;
            else if (m & M_T0)
                t = true;
            else if (r->vout[i] >= 2)
                t = in_t[r->vout[i]] != 0;
            else if (!(m & M_C))
                t = false;
            else {
                /* outside R: in T* when a positive edge leads into T* */
                t = (pn->flags & SC__PN_OUT_SINK) != 0;
                us = users_of(p, (sc_node_id)i, &nu);
                for (k = 0; k < nu && !t; k++)
                    t = (r->min[us[k]] & M_T) != 0;
            }
            if (t)
                r->mout[i] |= M_T;
        }
        m = r->min[i];
        if (m & M_S0)
            t = false;
        else if (m & M_T0)
            t = true;
        else if (r->vin[i] >= 2)
            t = in_t[r->vin[i]] != 0;
        else if (!(m & M_C))
            t = false;
        else
            t = pn->weight != 0 && (r->mout[i] & M_T);
        if (t)
            r->min[i] |= M_T;
    }
}

void sc__partition_network_solved(const sc_partition *p, size_t *vertices,
                                  size_t *edges)
{
    if (vertices)
        *vertices = p->net_solved_vertices;
    if (edges)
        *edges = p->net_solved_edges;
}

sc_status sc__partition_network(sc_partition *p, bool reduced,
                                igraph_t *graph, igraph_vector_t *cap,
                                double *inf, sc_error *err)
{
    rnet r;
    net *n = &r.n;
    igraph_error_handler_t *old;
    igraph_error_t rc;

    memset(&r, 0, sizeof r);
    SC_TRY(reduced ? build_reduced(p, &r, err) : build_network(p, n, err));
    rnet_free(&r);
    old = igraph_set_error_handler(igraph_error_handler_ignore);
    rc = igraph_create(graph, &n->edges, n->nv, IGRAPH_DIRECTED);
    igraph_set_error_handler(old);
    igraph_vector_int_destroy(&n->edges);
    if (rc != IGRAPH_SUCCESS) {
        igraph_vector_destroy(&n->cap);
        return sc__error_nomem(err);
    }
    *cap = n->cap;
    if (inf)
        *inf = n->inf;
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

/* Max-flow of one network (source 0, sink 1, capacities cap, edges as
 * vertex pairs) and its sink side: in_t[v] for its nv vertices; adds the
 * flow value to *value.  Times the max-flow and the cut phases. */
static sc_status solve(sc_partition *p, const igraph_vector_int_t *edges,
                       const igraph_vector_t *cap, igraph_integer_t nv,
                       double inf, uint8_t *in_t, double *value,
                       sc_error *err)
{
    igraph_t graph;
    igraph_vector_t flow;
    igraph_real_t v = 0;
    igraph_error_handler_t *old;
    igraph_warning_handler_t *oldw;
    igraph_error_t rc;
    sc_status status = SC_OK;
    double t1 = sc__partition_now(), t2, cut = 0;
    igraph_integer_t e, ne;

    old = igraph_set_error_handler(igraph_error_handler_ignore);
    oldw = igraph_set_warning_handler(igraph_warning_handler_ignore);
    rc = igraph_create(&graph, edges, nv, IGRAPH_DIRECTED);
    if (rc == IGRAPH_SUCCESS) {
        rc = igraph_vector_init(&flow, 0);
        if (rc == IGRAPH_SUCCESS) {
            rc = igraph_maxflow(&graph, &v, &flow, NULL, NULL, NULL,
                                V_SOURCE, V_SINK, cap, NULL);
            if (rc != IGRAPH_SUCCESS)
                igraph_vector_destroy(&flow);
        }
        if (rc != IGRAPH_SUCCESS)
            igraph_destroy(&graph);
    }
    igraph_set_warning_handler(oldw);
    igraph_set_error_handler(old);
    t2 = sc__partition_now();
    p->seconds[SC_PARTITION_PHASE_MAXFLOW] += t2 - t1;
    if (rc != IGRAPH_SUCCESS)
        return rc == IGRAPH_ENOMEM
                   ? sc__error_nomem(err)
                   : sc__error_set(err, SC_ERR_INTERNAL,
                                   "igraph_maxflow failed: %s",
                                   igraph_strerror(rc));
    SC_CHECK(sink_side(&graph, cap, &flow, in_t, err));
    ne = igraph_ecount(&graph);
    for (e = 0; e < ne; e++) {
        igraph_integer_t a = IGRAPH_FROM(&graph, e);
        igraph_integer_t b = IGRAPH_TO(&graph, e);
        if (!in_t[a] && in_t[b]) {
            cut += VECTOR(*cap)[e];
            if (VECTOR(*cap)[e] >= inf)
                SC_CHECK(sc__error_set(err, SC_ERR_INTERNAL,
                                       "the minimum cut crosses an "
                                       "infinite edge"));
        }
    }
    if (cut != v)
        SC_CHECK(sc__error_set(err, SC_ERR_INTERNAL,
                               "the cut (%.17g) differs from the flow "
                               "(%.17g)",
                               cut, (double)v));
fail:
    *value += v;
    igraph_vector_destroy(&flow);
    igraph_destroy(&graph);
    p->seconds[SC_PARTITION_PHASE_CUT] += sc__partition_now() - t2;
    return status;
}

static int32_t uf_find(int32_t *parent, int32_t v)
{
    while (parent[v] != v) {
        parent[v] = parent[parent[v]];
        v = parent[v];
    }
    return v;
}

/* The minimum cut of a component of at most BRUTE_MAX vertices (local
 * numbers 2 .. nloc + 1, with the source 0 and the sink 1; ne edges as
 * vertex pairs, capacities cap, inf and above infinite) by trying every
 * sink side: the smallest sink side of the minimum cuts is the
 * intersection of all of theirs (the minimum cuts' sink sides are closed
 * under intersection), the one igraph's residual graph gives.  The
 * capacities are integers whose finite sum is below 2^53: sums are exact.
 * in_t[v] for the nloc + 2 vertices; adds the cut's value to *value. */
#define BRUTE_MAX 8

static sc_status brute_cut(const igraph_integer_t *edges, const double *cap,
                           int32_t ne, int32_t nloc, double inf,
                           uint8_t *in_t, double *value, sc_error *err)
{
    uint32_t mask, nmask = 1u << nloc, meet = 0;
    double best = -1;
    int32_t e, j;

    for (mask = 0; mask < nmask; mask++) {
        double c = 0;
        for (e = 0; e < ne; e++) {
            igraph_integer_t a = edges[2 * e], b = edges[2 * e + 1];
            uint32_t ta = a == V_SOURCE ? 0
                          : a == V_SINK ? 1
                                        : (mask >> (a - 2)) & 1u;
            uint32_t tb = b == V_SOURCE ? 0
                          : b == V_SINK ? 1
                                        : (mask >> (b - 2)) & 1u;
            if (!ta && tb) {
                if (cap[e] >= inf)
                    break;
                c += cap[e];
            }
        }
        if (e < ne)
            continue; /* an infinite edge crosses this cut */
        if (best < 0 || c < best) {
            best = c;
            meet = mask;
        } else if (c == best) {
            meet &= mask;
        }
    }
    if (best < 0)
        return sc__error_set(err, SC_ERR_INTERNAL,
                             "a piece of the network has no finite cut");
    in_t[V_SOURCE] = 0;
    in_t[V_SINK] = 1;
    for (j = 0; j < nloc; j++)
        in_t[2 + j] = (uint8_t)((meet >> j) & 1u);
    *value += best;
    return SC_OK;
}

/* Solve the reduced network in pieces: its weakly connected components
 * (without source and sink) share nothing but the source and the sink, so
 * the maximum flow is the sum of theirs and the sink side the union of
 * theirs.  A component of at most BRUTE_MAX vertices is cut by brute_cut
 * (a stack of transformer blocks reduces to thousands of components of
 * four vertices); the others are packed into pieces of about PIECE
 * vertices, each one igraph_maxflow call: igraph's push-relabel spends
 * time proportional to the vertex count at every gap, which is quadratic
 * on a network of many small components. */
#define PIECE 4096
#define SMALL_PIECE 4 /* SC__PARTITION_SMALL_PIECES (no brute_cut), for the
                         tests */

static sc_status solve_pieces(sc_partition *p, net *n, uint8_t *in_t,
                              double *value, sc_error *err)
{
    igraph_integer_t nv = n->nv, ne = igraph_vector_size(&n->cap), e;
    int32_t *parent = NULL, *size = NULL, *piece = NULL, *local = NULL;
    int32_t *poff = NULL, *verts = NULL, *eoff = NULL, *fill = NULL;
    igraph_integer_t *pe = NULL;
    double *pc = NULL;
    uint8_t *lt = NULL, *brute = NULL;
    int32_t npieces = 0, cur = 0, curp = -1, v, k, maxv = 0;
    bool small = (p->flags & SC__PARTITION_SMALL_PIECES) != 0;
    int32_t limit = small ? SMALL_PIECE : PIECE;
    double t0, solved0;
    sc_status status = SC_OK;

    in_t[V_SOURCE] = 0;
    in_t[V_SINK] = 1;
    if (nv <= 2)
        return SC_OK;
    parent = sc__malloc((size_t)nv * sizeof *parent);
    size = sc__calloc((size_t)nv, sizeof *size);
    piece = sc__malloc((size_t)nv * sizeof *piece);
    local = sc__malloc((size_t)nv * sizeof *local);
    poff = sc__calloc((size_t)nv + 2, sizeof *poff);
    eoff = sc__calloc((size_t)nv + 2, sizeof *eoff);
    fill = sc__calloc((size_t)nv + 2, sizeof *fill);
    verts = sc__malloc((size_t)nv * sizeof *verts);
    pe = sc__malloc(((size_t)ne * 2 + 2) * sizeof *pe);
    pc = sc__malloc(((size_t)ne + 1) * sizeof *pc);
    brute = sc__malloc((size_t)nv);
    if (!parent || !size || !piece || !local || !poff || !eoff || !fill ||
        !verts || !pe || !pc || !brute)
        SC_CHECK(sc__error_nomem(err));
    for (v = 0; v < nv; v++)
        parent[v] = v;
    for (e = 0; e < ne; e++) {
        int32_t a = (int32_t)VECTOR(n->edges)[2 * e];
        int32_t b = (int32_t)VECTOR(n->edges)[2 * e + 1];
        if (a >= 2 && b >= 2) {
            a = uf_find(parent, a);
            b = uf_find(parent, b);
            if (a != b)
                parent[a < b ? b : a] = a < b ? a : b;
        }
    }
    for (v = 2; v < nv; v++)
        size[uf_find(parent, v)]++;
    /* components in the order of their first vertex: the small ones
     * alone, the others packed */
    for (v = 2; v < nv; v++) {
        int32_t r = uf_find(parent, v);
        if (r == v && !small && size[r] <= BRUTE_MAX) {
            brute[npieces] = 1;
            piece[r] = npieces++;
        } else if (r == v) {
            if (curp < 0 || (cur > 0 && cur + size[r] > limit)) {
                brute[npieces] = 0;
                curp = npieces++;
                cur = 0;
            }
            cur += size[r];
            piece[r] = curp;
        }
        piece[v] = piece[r];
        local[v] = 2 + poff[piece[v] + 1]++;
    }
    for (k = 0; k < npieces; k++) {
        if (poff[k + 1] > maxv)
            maxv = poff[k + 1];
        poff[k + 1] += poff[k];
    }
    for (v = 2; v < nv; v++)
        verts[poff[piece[v]] + local[v] - 2] = v;
    for (e = 0; e < ne; e++) {
        int32_t a = (int32_t)VECTOR(n->edges)[2 * e];
        int32_t b = (int32_t)VECTOR(n->edges)[2 * e + 1];
        eoff[piece[a >= 2 ? a : b] + 1]++;
    }
    for (k = 0; k < npieces; k++)
        eoff[k + 1] += eoff[k];
    for (e = 0; e < ne; e++) {
        int32_t a = (int32_t)VECTOR(n->edges)[2 * e];
        int32_t b = (int32_t)VECTOR(n->edges)[2 * e + 1];
        int32_t q = piece[a >= 2 ? a : b];
        int32_t at = eoff[q] + fill[q]++;
        pe[2 * at] = a >= 2 ? local[a] : a;
        pe[2 * at + 1] = b >= 2 ? local[b] : b;
        pc[at] = VECTOR(n->cap)[e];
    }
    lt = sc__malloc((size_t)maxv + 2);
    if (!lt)
        SC_CHECK(sc__error_nomem(err));
    t0 = sc__partition_now();
    solved0 = p->seconds[SC_PARTITION_PHASE_MAXFLOW] +
              p->seconds[SC_PARTITION_PHASE_CUT];
    for (k = 0; k < npieces; k++) {
        igraph_vector_int_t ev;
        igraph_vector_t cv;
        int32_t j, nloc = poff[k + 1] - poff[k];
        if (brute[k]) {
            SC_CHECK(brute_cut(pe + 2 * (size_t)eoff[k], pc + eoff[k],
                               eoff[k + 1] - eoff[k], nloc, n->inf, lt,
                               value, err));
        } else {
            igraph_vector_int_view(&ev, pe + 2 * (size_t)eoff[k],
                                   2 * (igraph_integer_t)(eoff[k + 1] -
                                                          eoff[k]));
            igraph_vector_view(&cv, pc + eoff[k],
                               (igraph_integer_t)(eoff[k + 1] - eoff[k]));
            SC_CHECK(solve(p, &ev, &cv, nloc + 2, n->inf, lt, value, err));
        }
        for (j = 0; j < nloc; j++)
            in_t[verts[poff[k] + j]] = lt[2 + j];
    }
    /* the brute-force cuts count as max-flow time (solve timed its own);
     * on failure the result is freed unread, so the time is not kept */
    p->seconds[SC_PARTITION_PHASE_MAXFLOW] +=
        sc__partition_now() - t0 -
        (p->seconds[SC_PARTITION_PHASE_MAXFLOW] +
         p->seconds[SC_PARTITION_PHASE_CUT] - solved0);
fail:
    sc__free(parent);
    sc__free(size);
    sc__free(piece);
    sc__free(local);
    sc__free(poff);
    sc__free(eoff);
    sc__free(fill);
    sc__free(verts);
    sc__free(pe);
    sc__free(pc);
    sc__free(lt);
    sc__free(brute);
    return status;
}

sc_status sc__partition_cut(sc_partition *p, sc_error *err)
{
    uint8_t *in_t = NULL;
    sc_status status = SC_OK;
    double t0 = sc__partition_now(), value = 0;
    size_t i;
    bool full = (p->flags & SC__PARTITION_FULL_NETWORK) != 0;
    rnet r;
    net *n = &r.n;

    memset(&r, 0, sizeof r);
    SC_TRY(infinite_path(p, err));
    SC_TRY(full ? build_network(p, n, err) : build_reduced(p, &r, err));
    p->net_solved_vertices = (size_t)n->nv;
    p->net_solved_edges = (size_t)igraph_vector_size(&n->cap);
    p->seconds[SC_PARTITION_PHASE_NETWORK] += sc__partition_now() - t0;

    in_t = sc__malloc((size_t)n->nv);
    if (!in_t)
        SC_CHECK(sc__error_nomem(err));
    SC_CHECK(full ? solve(p, &n->edges, &n->cap, n->nv, n->inf, in_t,
                          &value, err)
                  : solve_pieces(p, n, in_t, &value, err));
    t0 = sc__partition_now();
    if (value + r.constant >= n->inf)
        SC_CHECK(sc__error_set(err, SC_ERR_INTERNAL,
                               "the flow (%.17g) is not finite",
                               value + r.constant));
    p->cut_value = (int64_t)(value + r.constant);
    if (!full)
        extend_sink_side(p, &r, in_t);
    for (i = 0; i < p->n; i++) {
        sc__pnode *pn = &p->nodes[i];
        bool tin, tout;
        if (!(pn->flags & SC__PN_CANON) || (pn->flags & SC__PN_IN_SINK))
            continue;
        if (full) {
            tin = in_t[V_IN(i)] != 0;
            tout = in_t[V_OUT(i)] != 0;
        } else {
            tin = (r.min[i] & M_T) != 0;
            tout = (r.mout[i] & M_T) != 0;
        }
        if (!tin && tout) {
            pn->flags |= SC__PN_SAVED;
            if (!sc__idlist_push(pn->vkind == SC__PV_SYMINT
                                     ? &p->saved_symints
                                     : &p->saved_tensors,
                                 (sc_node_id)i))
                SC_CHECK(sc__error_nomem(err));
        }
    }
    p->seconds[SC_PARTITION_PHASE_CUT] += sc__partition_now() - t0;
fail:
    sc__free(in_t);
    rnet_free(&r);
    igraph_vector_int_destroy(&n->edges);
    igraph_vector_destroy(&n->cap);
    return status;
}
