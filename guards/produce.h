/* symcut — the private layout of a guard set and of its producer.
 *
 * Included by guards/guardset.c (the guard-set object and its checker),
 * guards/producer.c (sc_env_produce_guards) and guards/minimal.c (the
 * minimality pass) only. */
#ifndef SYMCUT_GUARDS_PRODUCE_H
#define SYMCUT_GUARDS_PRODUCE_H

#include "guards/env.h"
#include "guards/omega.h"

/* ---- The guard set and its checker (guards/guardset.c) ----------------- */

typedef struct gs_item {
    char *text;
    sc_expr *expr;   /* over the source variables */
} gs_item;

struct sc_guard_set {
    sc_ctx *ctx;
    gs_item *items;
    size_t nitems, items_cap;
    size_t nsources;
    char **sources;
    char **vars;
    sc_expr **var_exprs;
};

struct sc_guard_checker {
    sc_prog *prog;
    size_t count;          /* guards */
    size_t nsources;
    size_t ninputs;
    size_t *input_source;  /* program input i is values[input_source[i]] */
};

/* ---- The minimality pass's state (guards/minimal.c) -------------------
 * The lines it may drop, in structured form; the pass is described in
 * guards/minimal.c. */

typedef struct fm_row {
    size_t off, n;            /* terms fv/fc[off..+n), sorted by symbol */
    int64_t b;                /* sum c * x <= b */
    int owner;                /* MZ_DECL (never dropped), MZ_SYM_*, MZ_FORM_* */
    size_t idx;               /* the symbol or form it belongs to */
    bool alive;
    bool slack_ok;            /* slack = b - sum c*hint fits and is >= 0 */
    int64_t slack;
} fm_row;

enum { MZ_DECL, MZ_SYM_LO, MZ_SYM_HI, MZ_FORM_LO, MZ_FORM_HI };

typedef struct mz_sym {
    size_t id;                /* env symbol id */
    int64_t hint;
    bool hint_ok;             /* the hint fits int64_t */
    bool drop_lo, drop_hi;    /* narrowed side implied: the declared one */
    bool tight;               /* the box is narrower than the range */
    bool lo_inf, hi_inf;      /* the box */
    int64_t lo, hi;
    size_t ne_off, ne_n;      /* excluded values: nes[ne_off..+ne_n) */
    sc_expr *div;             /* a constant it is divisible by, or NULL */
} mz_sym;

typedef struct mz_form {
    size_t id;                /* env form id */
    bool has_lo, has_hi;      /* sides written (the ranges do not imply) */
    bool drop_lo, drop_hi;
    bool lo_ok, hi_ok;        /* the side fits int64_t */
    int64_t lo, hi;
    size_t toff, nt;          /* linear: terms tv/tc[toff..+nt); else nt 0 */
    bool diff;                /* L = x_a - x_b */
    size_t ne_off, ne_n;
} mz_form;

typedef struct mz_ne {
    sc_expr *v;
    bool drop;
} mz_ne;

typedef struct mz_div {
    sc_expr *x, *k;
    bool drop;
} mz_div;

typedef struct mz_or {
    sc_expr *e;
    bool drop;
} mz_or;

typedef struct mz_edge {
    size_t u, v;              /* x_v - x_u <= w; node 0 is the constant 0 */
    int64_t rw;               /* w + hint(u) - hint(v), >= 0 */
    int owner;
    size_t idx;               /* the symbol or form it belongs to */
    bool alive;
} mz_edge;

typedef struct mz_state {
    mz_sym *syms;
    size_t nsyms;
    size_t *local;            /* env symbol id -> index in syms / SIZE_MAX */
    mz_form *forms;
    size_t nforms;
    size_t *tv;               /* terms: symbol index and coefficient */
    int64_t *tc;
    size_t nterms, tv_cap, tc_cap;
    mz_ne *nes;
    size_t nnes, nes_cap;
    mz_div *divs;
    size_t ndivs;
    mz_or *ors;
    size_t nors;
    mz_edge *edges;
    size_t nedges, edges_cap;
    size_t *out_off, *out_e, *in_off, *in_e;   /* adjacency, CSR */
    int64_t *dist;
    size_t *dstamp, *done, stamp;
    int64_t *hd;              /* the heap: distances and nodes */
    size_t *hn, hsize;
    size_t *row_off, *rows;   /* linear bounds of each symbol */
    size_t *rstamp, rcur;
    size_t *mv;               /* a combination's terms */
    int64_t *mc;
    size_t mv_cap, mc_cap;
    sc_bounds *box;           /* the box as bounds, when a symbol is tight */
    sc__gmap group;           /* divisibility: expression -> its line */
    bool *ordered;            /* symbols with a bound on a difference */
    /* D: the linear lines as rows sum c*x <= b (see mz_linear_closure) */
    struct fm_row *frows;
    size_t nfrows, frows_cap;
    size_t *fv;               /* row terms: symbol index, coefficient */
    int64_t *fc;
    size_t nft, fv_cap, fc_cap;
    size_t *fsym_off, *fsym_rows;   /* rows of each symbol, CSR */
    size_t *fvar, *fvstamp, *frstamp, fcur;   /* the subsystem */
    size_t *fsub, nfsub;      /* its rows */
    size_t *fsv, nfsv;        /* its symbols, in order */
    int64_t *frelax;          /* fm_witness: how much a symbol may move */
    sc__omega om;             /* the integer decision (guards/omega.c) */
} mz_state;

/* ---- The producer (guards/producer.c) ---------------------------------- */

typedef struct producer {
    sc_env *env;
    sc_guard_set *gs;
    sc_symmap *to_vars;   /* free backed symbol -> its source variable */
    sc__gmap name_of;     /* hash of a symbol name -> env symbol id */
    mz_state mz;          /* the minimality pass */
    sc_error *err;
} producer;

/* ---- Shared by the producer and the minimality pass -------------------- */

/* Decide which lines the guard set leaves out (steps A to D of
 * guards/minimal.c), into p->mz; the producer writes the others.
 * Errors: SC_ERR_NOMEM and the context's errors. */
sc_status sc__minimal_decide(producer *p);
/* Free the minimality pass's state (p->mz); it is zeroed. */
void sc__minimal_free(mz_state *mz);

#endif /* SYMCUT_GUARDS_PRODUCE_H */
