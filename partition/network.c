/* symcut — partitioner phases 2 and 3: the flow network, igraph's
 * max-flow, and the saved set read off the residual graph.
 *
 * Threads.  Partitions in different threads, each with its own context
 * and graphs, run concurrently; one context (or a graph, a result) must
 * not be used by two threads at once (doc/reliability.md, "Threads").
 * igraph is the exception to "no shared state": a build with
 * IGRAPH_THREAD_SAFE 0, as Debian's, keeps its FINALLY stack and its
 * error handlers in process globals.  So this file builds its networks in
 * plain arrays and calls igraph only inside sc__igraph_section
 * (partition/igraph-section.c): one process-wide lock around the igraph
 * calls (igraph_create, igraph_maxflow, vector set-up and teardown),
 * igraph's handlers set for the section, and a fatal-error handler that
 * returns to the section as SC_ERR_INTERNAL instead of aborting.  The
 * rest of the partition (classification, network building, the sink
 * side, extraction) runs outside the lock, in parallel. */
#include <config.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <igraph.h>

#include "partition/igraph-section.h"
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

/* The full network, as PyTorch builds it (vertex numbering V_IN/V_OUT).
 * Plain arrays, not igraph vectors: only sc__igraph_section calls igraph
 * (see the top of this file), and building a network does not need it. */
typedef struct net {
    igraph_integer_t *edges; /* 2 * ne vertex ids */
    double *cap;             /* ne capacities */
    igraph_integer_t ne, room;
    igraph_integer_t nv;
    double inf;
} net;

static void net_free(net *n)
{
    sc__free(n->edges);
    sc__free(n->cap);
    n->edges = NULL;
    n->cap = NULL;
    n->ne = n->room = 0;
}

static bool net_reserve(net *n, igraph_integer_t room)
{
    igraph_integer_t *e;
    double *c;
    if (room <= n->room)
        return true;
    e = sc__realloc(n->edges, 2 * (size_t)room * sizeof *e);
    if (!e)
        return false;
    n->edges = e;
    c = sc__realloc(n->cap, (size_t)room * sizeof *c);
    if (!c)
        return false;
    n->cap = c;
    n->room = room;
    return true;
}

/* IGRAPH_SUCCESS, or IGRAPH_ENOMEM (the network unchanged). */
static igraph_error_t push_edge(net *n, igraph_integer_t a,
                                igraph_integer_t b, double c)
{
    if (n->ne == n->room && !net_reserve(n, 2 * n->room + 16))
        return IGRAPH_ENOMEM;
    n->edges[2 * n->ne] = a;
    n->edges[2 * n->ne + 1] = b;
    n->cap[n->ne++] = c;
    return IGRAPH_SUCCESS;
}

static bool net_init(net *n, size_t ne)
{
    n->edges = NULL;
    n->cap = NULL;
    n->ne = n->room = 0;
    if (!net_reserve(n, (igraph_integer_t)ne + 1)) {
        net_free(n);
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
        net_free(n);
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
        net_free(n);
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

/* The igraph work of sc__partition_network. */
typedef struct export_job {
    const net *n;
    igraph_t *graph;
    igraph_vector_t *cap;
} export_job;

static igraph_error_t export_body(void *arg)
{
    export_job *j = arg;
    igraph_vector_int_t ev = {0};
    igraph_vector_t cv = {0};
    igraph_vector_int_view(&ev, j->n->edges, 2 * j->n->ne);
    igraph_vector_view(&cv, j->n->cap, j->n->ne);
    IGRAPH_CHECK(igraph_vector_init_copy(j->cap, &cv));
    IGRAPH_FINALLY(igraph_vector_destroy, j->cap);
    IGRAPH_CHECK(igraph_create(j->graph, &ev, j->n->nv, IGRAPH_DIRECTED));
    IGRAPH_FINALLY_CLEAN(1);
    return IGRAPH_SUCCESS;
}

sc_status sc__partition_network(sc_partition *p, bool reduced,
                                igraph_t *graph, igraph_vector_t *cap,
                                double *inf, sc_error *err)
{
    rnet r;
    net *n = &r.n;
    export_job job;
    sc_status status;

    memset(&r, 0, sizeof r);
    SC_TRY(reduced ? build_reduced(p, &r, err) : build_network(p, n, err));
    rnet_free(&r);
    job.n = n;
    job.graph = graph;
    job.cap = cap;
    status = sc__igraph_section(export_body, &job, "igraph_create", err);
    if (status == SC_OK && inf)
        *inf = n->inf;
    net_free(n);
    return status;
}

/* ---- The saved set ------------------------------------------------------ */

/* The sink side of the cut PyTorch reads (networkx's minimum_cut): the
 * vertices that can still reach the sink in the residual graph.  It is the
 * same for every maximum flow: the smallest sink side of all minimum
 * cuts. */
static sc_status sink_side(const igraph_integer_t *edges, igraph_integer_t ne,
                           igraph_integer_t nv, const double *cap,
                           const double *flow, uint8_t *in_t, sc_error *err)
{
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
        ooff[edges[2 * e] + 1]++;
        ioff[edges[2 * e + 1] + 1]++;
    }
    for (v = 0; v < nv; v++) {
        ooff[v + 1] += ooff[v];
        ioff[v + 1] += ioff[v];
    }
    for (e = 0; e < ne; e++) {
        oe[ooff[edges[2 * e]]++] = (int32_t)e;
        ie[ioff[edges[2 * e + 1]]++] = (int32_t)e;
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
            igraph_integer_t u = edges[2 * ie[k]];
            if (!in_t[u] && cap[ie[k]] - flow[ie[k]] > 0) {
                in_t[u] = 1;
                queue[tail++] = u;
            }
        }
        for (k = ooff[v]; k < ooff[v + 1]; k++) {
            igraph_integer_t w = edges[2 * oe[k] + 1];
            if (!in_t[w] && flow[oe[k]] > 0) {
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

/* The igraph work of solve: the maximum flow of a network given as
 * arrays, its value and the flow on every edge copied out. */
typedef struct flow_job {
    const igraph_integer_t *edges;
    const double *cap;
    igraph_integer_t ne, nv;
    double *flow; /* ne entries */
    igraph_real_t value;
} flow_job;

static igraph_error_t flow_body(void *arg)
{
    flow_job *j = arg;
    igraph_vector_int_t ev = {0};
    igraph_vector_t cv = {0}, flow;
    igraph_t graph;
    igraph_integer_t e;

    igraph_vector_int_view(&ev, j->edges, 2 * j->ne);
    igraph_vector_view(&cv, j->cap, j->ne);
    IGRAPH_CHECK(igraph_create(&graph, &ev, j->nv, IGRAPH_DIRECTED));
    IGRAPH_FINALLY(igraph_destroy, &graph);
    IGRAPH_CHECK(igraph_vector_init(&flow, 0));
    IGRAPH_FINALLY(igraph_vector_destroy, &flow);
    IGRAPH_CHECK(igraph_maxflow(&graph, &j->value, &flow, NULL, NULL, NULL,
                                V_SOURCE, V_SINK, &cv, NULL));
    for (e = 0; e < j->ne; e++)
        j->flow[e] = VECTOR(flow)[e];
    igraph_vector_destroy(&flow);
    igraph_destroy(&graph);
    IGRAPH_FINALLY_CLEAN(2);
    return IGRAPH_SUCCESS;
}

/* Max-flow of one network (source 0, sink 1, ne edges as vertex pairs,
 * capacities cap) and its sink side: in_t[v] for its nv vertices; adds
 * the flow value to *value.  Times the max-flow and the cut phases. */
static sc_status solve(sc_partition *p, const igraph_integer_t *edges,
                       const double *cap, igraph_integer_t ne,
                       igraph_integer_t nv, double inf, uint8_t *in_t,
                       double *value, sc_error *err)
{
    flow_job job;
    sc_status status = SC_OK;
    double t1 = sc__partition_now(), t2, cut = 0;
    igraph_integer_t e;

    job.edges = edges;
    job.cap = cap;
    job.ne = ne;
    job.nv = nv;
    job.value = 0;
    job.flow = sc__malloc(((size_t)ne + 1) * sizeof *job.flow);
    if (!job.flow)
        return sc__error_nomem(err);
    status = sc__igraph_section(flow_body, &job, "igraph_maxflow", err);
    t2 = sc__partition_now();
    p->seconds[SC_PARTITION_PHASE_MAXFLOW] += t2 - t1;
    if (status != SC_OK) {
        sc__free(job.flow);
        return status;
    }
    SC_CHECK(sink_side(edges, ne, nv, cap, job.flow, in_t, err));
    for (e = 0; e < ne; e++) {
        igraph_integer_t a = edges[2 * e], b = edges[2 * e + 1];
        if (!in_t[a] && in_t[b]) {
            cut += cap[e];
            if (cap[e] >= inf)
                SC_CHECK(sc__error_set(err, SC_ERR_INTERNAL,
                                       "the minimum cut crosses an "
                                       "infinite edge"));
        }
    }
    if (cut != job.value)
        SC_CHECK(sc__error_set(err, SC_ERR_INTERNAL,
                               "the cut (%.17g) differs from the flow "
                               "(%.17g)",
                               cut, (double)job.value));
fail:
    *value += job.value;
    sc__free(job.flow);
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
    igraph_integer_t nv = n->nv, ne = n->ne, e;
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
        int32_t a = (int32_t)n->edges[2 * e];
        int32_t b = (int32_t)n->edges[2 * e + 1];
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
        int32_t a = (int32_t)n->edges[2 * e];
        int32_t b = (int32_t)n->edges[2 * e + 1];
        eoff[piece[a >= 2 ? a : b] + 1]++;
    }
    for (k = 0; k < npieces; k++)
        eoff[k + 1] += eoff[k];
    for (e = 0; e < ne; e++) {
        int32_t a = (int32_t)n->edges[2 * e];
        int32_t b = (int32_t)n->edges[2 * e + 1];
        int32_t q = piece[a >= 2 ? a : b];
        int32_t at = eoff[q] + fill[q]++;
        pe[2 * at] = a >= 2 ? local[a] : a;
        pe[2 * at + 1] = b >= 2 ? local[b] : b;
        pc[at] = n->cap[e];
    }
    lt = sc__malloc((size_t)maxv + 2);
    if (!lt)
        SC_CHECK(sc__error_nomem(err));
    t0 = sc__partition_now();
    solved0 = p->seconds[SC_PARTITION_PHASE_MAXFLOW] +
              p->seconds[SC_PARTITION_PHASE_CUT];
    for (k = 0; k < npieces; k++) {
        int32_t j, nloc = poff[k + 1] - poff[k];
        if (brute[k]) {
            SC_CHECK(brute_cut(pe + 2 * (size_t)eoff[k], pc + eoff[k],
                               eoff[k + 1] - eoff[k], nloc, n->inf, lt,
                               value, err));
        } else {
            SC_CHECK(solve(p, pe + 2 * (size_t)eoff[k], pc + eoff[k],
                           eoff[k + 1] - eoff[k], nloc + 2, n->inf, lt,
                           value, err));
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
    p->net_solved_edges = (size_t)n->ne;
    p->seconds[SC_PARTITION_PHASE_NETWORK] += sc__partition_now() - t0;

    in_t = sc__malloc((size_t)n->nv);
    if (!in_t)
        SC_CHECK(sc__error_nomem(err));
    SC_CHECK(full ? solve(p, n->edges, n->cap, n->ne, n->nv, n->inf, in_t,
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
    net_free(n);
    return status;
}
