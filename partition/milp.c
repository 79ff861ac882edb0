/* symcut — the least recompute cost within a memory budget, exactly: a
 * mixed-integer program on the validity-only network, solved by GLPK's
 * branch and cut (doc/partition.md, "Memory budget").
 *
 * Variables: t_v in {0, 1} for every vertex the infinite edges leave free
 * (1: the sink side, the backward's); the vertices the source reaches by
 * infinite edges are fixed at 0, those that reach the sink by infinite
 * edges at 1, and are not columns (the reduced network).  s_k in [0, 1]
 * for a node with bytes: saved when X_in is on the source side and X_out
 * on the sink side, s_k >= t_out - t_in.  Rows: t_u >= t_v for an
 * infinite edge u -> v, the saved rows, and sum bytes_k s_k <= budget.
 * Objective: the sum of cost_k t_in(k).  GLPK works in doubles: the saved
 * set it returns is scored again in integers by the caller, and its
 * "optimal" is GLPK's proof at a relative gap of 0.  The search starts
 * from the caller's valid set (a heuristic solution given at the first
 * GLP_IHEUR call) and stops at the time limit. */
#include <config.h>

#include <glpk.h>
#include <stdlib.h>
#include <string.h>

#include "partition/frontier.h"
#include "partition/partition-internal.h"

enum { FREE = -1 };

typedef struct milp {
    const sc__fnet *n;
    int8_t *fix;    /* by vertex: 0, 1, FREE */
    int *col;       /* by vertex: column of t_v, 0 none */
    int *scol;      /* by node: column of s_k, 0 none */
    int ncols;
    double *start;  /* 1-based column values of the warm start */
    bool given;
} milp;

/* Fix what the infinite edges force. */
static sc_status force(milp *m, sc_error *err)
{
    const sc__fnet *n = m->n;
    int32_t *queue = sc__malloc(n->nv * sizeof *queue);
    size_t qh = 0, qt = 0, j;
    if (!queue)
        return sc__error_nomem(err);
    memset(m->fix, FREE, n->nv);
    m->fix[0] = 0;
    queue[qt++] = 0;
    while (qh < qt) {
        int32_t u = queue[qh++];
        for (j = n->ooff[u]; j < n->ooff[u + 1]; j++) {
            size_t e = (size_t)n->oe[j];
            int32_t w = n->et[e];
            if (n->ekind[e] != 0 || m->fix[w] == 0)
                continue;
            if (w == 1) {
                sc__free(queue);
                return sc__error_set(err, SC_ERR_UNSUPPORTED,
                                     "no finite cut");
            }
            m->fix[w] = 0;
            queue[qt++] = w;
        }
    }
    qh = qt = 0;
    m->fix[1] = 1;
    queue[qt++] = 1;
    while (qh < qt) {
        int32_t u = queue[qh++];
        for (j = n->ioff[u]; j < n->ioff[u + 1]; j++) {
            size_t e = (size_t)n->ie[j];
            int32_t w = n->ef[e];
            if (n->ekind[e] != 0 || m->fix[w] == 1)
                continue;
            if (m->fix[w] == 0) {
                sc__free(queue);
                return sc__error_set(err, SC_ERR_UNSUPPORTED,
                                     "no finite cut");
            }
            m->fix[w] = 1;
            queue[qt++] = w;
        }
    }
    sc__free(queue);
    return SC_OK;
}

static void callback(glp_tree *tree, void *info)
{
    milp *m = info;
    if (glp_ios_reason(tree) == GLP_IHEUR && !m->given) {
        m->given = true;
        glp_ios_heur_sol(tree, m->start);
    }
}

/* The value of vertex v in a column vector x (1-based). */
static int tval(const milp *m, const double *x, int32_t v)
{
    if (v < 0)
        return 1;
    if (m->fix[v] != FREE)
        return m->fix[v];
    return x[m->col[v]] > 0.5;
}

sc_status sc__frontier_milp(const sc__fnet *n, uint64_t budget,
                            const uint8_t *start, double seconds,
                            uint8_t *best, bool *proven, sc_error *err)
{
    sc_status status = SC_OK;
    milp m;
    glp_prob *lp = NULL;
    glp_smcp sp;
    glp_iocp ip;
    int *ia = NULL, *ja = NULL, row, nz = 0, rc;
    double *ar = NULL, *x = NULL, cbytes = 0;
    uint8_t *st = NULL;
    size_t v, k, e, cap;

    memset(&m, 0, sizeof m);
    *proven = false;
    memcpy(best, start, n->nk ? n->nk : 1);
    m.n = n;
    m.fix = sc__malloc(n->nv);
    m.col = sc__calloc(n->nv, sizeof *m.col);
    m.scol = sc__calloc(n->nk ? n->nk : 1, sizeof *m.scol);
    st = sc__malloc(n->nk ? n->nk : 1);
    if (!m.fix || !m.col || !m.scol || !st)
        SC_CHECK(sc__error_nomem(err));
    SC_CHECK(force(&m, err));
    lp = glp_create_prob();
    glp_set_obj_dir(lp, GLP_MIN);
    for (v = 2; v < n->nv; v++)
        if (m.fix[v] == FREE) {
            m.col[v] = ++m.ncols;
        }
    for (k = 0; k < n->nk; k++) {
        int a, b;
        if (n->vout[k] < 0 || n->bytes[k] <= 0)
            continue;
        a = m.fix[n->vin[k]];
        b = m.fix[n->vout[k]];
        if (a == 1 || b == 0)
            continue;
        if (a == 0 && b == 1) {
            cbytes += (double)n->bytes[k];
            continue;
        }
        m.scol[k] = ++m.ncols;
    }
    if (m.ncols == 0) {
        /* nothing free: the start is the only decision */
        *proven = cbytes <= (double)budget;
        goto fail;
    }
    glp_add_cols(lp, m.ncols);
    for (v = 2; v < n->nv; v++)
        if (m.col[v])
            glp_set_col_kind(lp, m.col[v], GLP_BV);
    for (k = 0; k < n->nk; k++) {
        if (m.scol[k])
            glp_set_col_bnds(lp, m.scol[k], GLP_DB, 0.0, 1.0);
        if (n->src[k] == SC__FSRC_COST && n->cost[k] > 0 && m.col[n->vin[k]])
            glp_set_obj_coef(lp, m.col[n->vin[k]], (double)n->cost[k]);
    }
    /* rows: each infinite edge between free vertices (2 entries), each
     * saved variable (up to 3), the budget */
    cap = 1;
    for (e = 0; e < n->ne; e++)
        if (n->ekind[e] == 0 && m.col[n->ef[e]] && m.col[n->et[e]])
            cap += 2;
    for (k = 0; k < n->nk; k++)
        if (m.scol[k])
            cap += 4;
    ia = sc__malloc((cap + 1) * sizeof *ia);
    ja = sc__malloc((cap + 1) * sizeof *ja);
    ar = sc__malloc((cap + 1) * sizeof *ar);
    if (!ia || !ja || !ar)
        SC_CHECK(sc__error_nomem(err));
    row = 0;
    for (e = 0; e < n->ne; e++) {
        int cu, cv;
        if (n->ekind[e] != 0)
            continue;
        cu = m.col[n->ef[e]];
        cv = m.col[n->et[e]];
        if (!cu || !cv)
            continue;
        row = glp_add_rows(lp, 1);
        glp_set_row_bnds(lp, row, GLP_LO, 0.0, 0.0); /* t_u - t_v >= 0 */
        ia[++nz] = row, ja[nz] = cu, ar[nz] = 1.0;
        ia[++nz] = row, ja[nz] = cv, ar[nz] = -1.0;
    }
    for (k = 0; k < n->nk; k++) {
        double lo = 0;
        int ci, co;
        if (!m.scol[k])
            continue;
        ci = m.col[n->vin[k]];
        co = m.col[n->vout[k]];
        /* s - t_out + t_in >= 0, fixed terms moved to the bound */
        row = glp_add_rows(lp, 1);
        ia[++nz] = row, ja[nz] = m.scol[k], ar[nz] = 1.0;
        if (co)
            ia[++nz] = row, ja[nz] = co, ar[nz] = -1.0;
        else
            lo += 1.0; /* t_out fixed at 1 */
        if (ci)
            ia[++nz] = row, ja[nz] = ci, ar[nz] = 1.0;
        glp_set_row_bnds(lp, row, GLP_LO, lo, 0.0);
    }
    row = glp_add_rows(lp, 1);
    glp_set_row_bnds(lp, row, GLP_UP, 0.0, (double)budget - cbytes);
    for (k = 0; k < n->nk; k++)
        if (m.scol[k])
            ia[++nz] = row, ja[nz] = m.scol[k], ar[nz] = (double)n->bytes[k];
    glp_load_matrix(lp, nz, ia, ja, ar);

    /* the warm start: the start set's least sink side */
    m.start = sc__calloc((size_t)m.ncols + 1, sizeof *m.start);
    x = sc__calloc((size_t)m.ncols + 1, sizeof *x);
    if (!m.start || !x)
        SC_CHECK(sc__error_nomem(err));
    SC_CHECK(sc__fnet_sides(n, start, st, err));
    for (k = 0; k < n->nk; k++) {
        int tin = (st[k] & 2) != 0, tout = (st[k] & 1) != 0;
        if (m.col[n->vin[k]])
            m.start[m.col[n->vin[k]]] = tin;
        if (n->vout[k] >= 0 && m.col[n->vout[k]])
            m.start[m.col[n->vout[k]]] = tout;
        if (m.scol[k])
            m.start[m.scol[k]] = tout && !tin;
    }

    glp_init_smcp(&sp);
    sp.msg_lev = GLP_MSG_OFF;
    sp.presolve = GLP_ON;
    sp.tm_lim = (int)(seconds * 1000 > 1 ? seconds * 1000 : 1);
    rc = glp_simplex(lp, &sp);
    if (rc != 0 || glp_get_status(lp) != GLP_OPT)
        goto fail; /* keep the start */
    glp_init_iocp(&ip);
    ip.msg_lev = GLP_MSG_OFF;
    ip.presolve = GLP_OFF;
    ip.mip_gap = 0.0;
    ip.tm_lim = sp.tm_lim;
    ip.cb_func = callback;
    ip.cb_info = &m;
    rc = glp_intopt(lp, &ip);
    if ((rc != 0 && rc != GLP_ETMLIM) ||
        (glp_mip_status(lp) != GLP_OPT && glp_mip_status(lp) != GLP_FEAS))
        goto fail;
    for (k = 1; k <= (size_t)m.ncols; k++)
        x[k] = glp_mip_col_val(lp, (int)k);
    for (k = 0; k < n->nk; k++)
        best[k] = n->vout[k] >= 0 && n->bytes[k] >= 0 &&
                  !tval(&m, x, n->vin[k]) && tval(&m, x, n->vout[k]);
    *proven = rc == 0 && glp_mip_status(lp) == GLP_OPT;
fail:
    if (lp)
        glp_delete_prob(lp);
    sc__free(ia);
    sc__free(ja);
    sc__free(ar);
    sc__free(x);
    sc__free(st);
    sc__free(m.start);
    sc__free(m.fix);
    sc__free(m.col);
    sc__free(m.scol);
    return status;
}
