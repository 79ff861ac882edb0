/* symcut — random forward graphs drawn from the op table, for property
 * tests and `symcut random` (doc/random.md).
 *
 * Everything is built through the public builder: placeholders with
 * explicit metadata, calls with NULL metadata (the op's shape rule infers
 * it, names are derived from the target).  A draw the schema or the shape
 * rule rejects leaves the graph unchanged and is redrawn.  The generator is
 * a splitmix64 stream seeded from the options only: the same options give
 * the same graph. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <symcut/graph.h>
#include <symcut/guards.h>

#include "util/internal.h"

/* About 400 bytes a node: 4 GB at the limit. */
#define SC_RANDOM_MAX_NODES 10000000

#define MAXDIM 4
#define MAXSYM 3

typedef struct tval {
    sc_node_id id;
    size_t ndim;
    sc_expr *sizes[MAXDIM];
    bool primal;
    bool used;  /* picked as an operand */
} tval;

/* Pool indexes sharing one key (a shape, or what mm/bmm needs of a second
 * operand), in increasing order. */
typedef struct group {
    uintptr_t key[5];
    size_t *idx;
    size_t n, cap;
} group;

/* key -> group: open addressing over group numbers + 1 (0 = empty), at
 * most half full. */
typedef struct gmap {
    group *groups;
    size_t ngroups, gcap;
    uint32_t *slots;
    size_t scap;
} gmap;

typedef struct gen {
    sc_graph *g;
    sc_ctx *ctx;
    uint64_t state;
    unsigned feat;
    bool symbolic;
    tval *pool;
    size_t npool, cap;
    size_t *unused;      /* Fenwick tree over pool: 1 where !used */
    size_t nunused;
    gmap shapes;         /* pool values by shape (pick_same) */
    gmap mm_rhs;         /* 2-d and 3-d pool values by (ndim, sizes[nd-2],
                          * 3-d: sizes[0]) (draw_matmul) */
    sc_node_id extra[8]; /* non-float results to output (nonzero) */
    size_t nextra;
    sc_node_id last;     /* the last float tensor a call produced */
    sc_expr *palette[8]; /* the sizes placeholders draw from */
    size_t npalette;
    size_t nexclude;
    const char *const *exclude;
    bool poisoned;       /* a rejected draw left facts in the environment */
    sc_error scratch;    /* rejected draws */
    sc_error *err;
} gen;

/* ---- The stream ----------------------------------------------------------- */

static uint64_t next(gen *G)
{
    uint64_t z = (G->state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Uniform in [0, n), n > 0. */
static size_t below(gen *G, size_t n)
{
    return (size_t)(next(G) % (uint64_t)n);
}

static bool chance(gen *G, unsigned num, unsigned den)
{
    return below(G, den) < num;
}

static bool has(const gen *G, unsigned f)
{
    return (G->feat & f) != 0;
}

/* ---- Pool ------------------------------------------------------------------ */

/* ---- Indexes of the pool -------------------------------------------------- */

static uint64_t key_hash(const uintptr_t key[5])
{
    uint64_t h = 0x9e3779b97f4a7c15ULL;
    size_t i;
    for (i = 0; i < 5; i++) {
        h ^= (uint64_t)key[i];
        h *= 0xbf58476d1ce4e5b9ULL;
        h ^= h >> 29;
    }
    return h;
}

/* The group of key, or NULL (none and !create, or out of memory: *nomem). */
static group *gmap_get(gmap *m, const uintptr_t key[5], bool create,
                       bool *nomem)
{
    size_t j, i;
    if (m->scap) {
        j = key_hash(key) & (m->scap - 1);
        for (; m->slots[j]; j = (j + 1) & (m->scap - 1)) {
            group *gr = &m->groups[m->slots[j] - 1];
            if (memcmp(gr->key, key, sizeof gr->key) == 0)
                return gr;
        }
    }
    if (!create)
        return NULL;
    if ((m->ngroups + 1) * 2 > m->scap) {
        size_t nc = m->scap ? 2 * m->scap : 64;
        uint32_t *ns = sc__calloc(nc, sizeof *ns);
        if (!ns)
            goto nomem;
        for (i = 0; i < m->ngroups; i++) {
            j = key_hash(m->groups[i].key) & (nc - 1);
            while (ns[j])
                j = (j + 1) & (nc - 1);
            ns[j] = (uint32_t)i + 1;
        }
        sc__free(m->slots);
        m->slots = ns;
        m->scap = nc;
    }
    if (m->ngroups == m->gcap) {
        void *items = m->groups;
        if (!sc__grow(&items, &m->gcap, m->ngroups + 1, sizeof(group)))
            goto nomem;
        m->groups = items;
    }
    j = key_hash(key) & (m->scap - 1);
    while (m->slots[j])
        j = (j + 1) & (m->scap - 1);
    m->slots[j] = (uint32_t)m->ngroups + 1;
    memset(&m->groups[m->ngroups], 0, sizeof(group));
    memcpy(m->groups[m->ngroups].key, key, sizeof m->groups[0].key);
    return &m->groups[m->ngroups++];
nomem:
    *nomem = true;
    return NULL;
}

static bool gmap_add(gmap *m, const uintptr_t key[5], size_t index)
{
    bool nomem = false;
    group *gr = gmap_get(m, key, true, &nomem);
    void *items;
    if (!gr)
        return false;
    items = gr->idx;
    if (!sc__grow(&items, &gr->cap, gr->n + 1, sizeof(size_t)))
        return false;
    gr->idx = items;
    gr->idx[gr->n++] = index;
    return true;
}

static void gmap_free(gmap *m)
{
    size_t i;
    for (i = 0; i < m->ngroups; i++)
        sc__free(m->groups[i].idx);
    sc__free(m->groups);
    sc__free(m->slots);
}

static void shape_key(const tval *t, uintptr_t key[5])
{
    size_t i;
    memset(key, 0, 5 * sizeof *key);
    key[0] = (uintptr_t)t->ndim;
    for (i = 0; i < t->ndim; i++)
        key[1 + i] = (uintptr_t)t->sizes[i];
}

/* What mm/bmm asks of a second operand for x (want), or what t offers. */
static void mm_key(const tval *t, bool want, uintptr_t key[5])
{
    memset(key, 0, 5 * sizeof *key);
    key[0] = (uintptr_t)t->ndim;
    key[1] = (uintptr_t)t->sizes[t->ndim - (want ? 1 : 2)];
    if (t->ndim == 3)
        key[2] = (uintptr_t)t->sizes[0];
}

/* The Fenwick tree of unused pool values, 1-based: unused[i] sums the
 * flags of (i - lowbit(i), i]. */
static size_t unused_prefix(const gen *G, size_t i)
{
    size_t s = 0;
    for (; i > 0; i &= i - 1)
        s += G->unused[i];
    return s;
}

static void unused_clear(gen *G, size_t index)
{
    size_t i;
    for (i = index + 1; i <= G->npool; i += i & (~i + 1))
        G->unused[i]--;
    G->nunused--;
}

/* The pool index of the k-th unused value (from 0; k < nunused). */
static size_t unused_find(const gen *G, size_t k)
{
    size_t pos = 0, step = 1;
    while (step * 2 <= G->npool)
        step *= 2;
    for (; step; step /= 2)
        if (pos + step <= G->npool && G->unused[pos + step] <= k) {
            pos += step;
            k -= G->unused[pos];
        }
    return pos;
}

/* ---- Pool ------------------------------------------------------------------ */

/* A draw: SC_OK (added), SC_ERR_NOMEM (give up), anything else (rejected,
 * the graph unchanged). */
static sc_status push(gen *G, sc_node_id id, bool primal)
{
    sc_result r;
    tval *t;
    size_t i, n;
    uintptr_t key[5];

    sc_graph_node_result(G->g, id, &r);
    if (r.kind != SC_RESULT_TENSOR || r.tensor.dtype != SC_DTYPE_F32 ||
        r.tensor.ndim > MAXDIM)
        return SC_OK;
    if (G->npool == G->cap) {
        size_t nc = G->cap ? 2 * G->cap : 16;
        tval *np = sc__realloc(G->pool, nc * sizeof *np);
        size_t *nf;
        if (!np)
            return sc__error_nomem(G->err);
        G->pool = np;
        nf = sc__realloc(G->unused, (nc + 1) * sizeof *nf);
        if (!nf)
            return sc__error_nomem(G->err);
        G->unused = nf;
        G->cap = nc;
    }
    t = &G->pool[G->npool];
    t->id = id;
    t->ndim = r.tensor.ndim;
    t->primal = primal;
    t->used = false;
    for (i = 0; i < t->ndim; i++)
        t->sizes[i] = r.tensor.sizes[i];
    shape_key(t, key);
    if (!gmap_add(&G->shapes, key, G->npool))
        return sc__error_nomem(G->err);
    if (t->ndim == 2 || t->ndim == 3) {
        mm_key(t, false, key);
        if (!gmap_add(&G->mm_rhs, key, G->npool))
            return sc__error_nomem(G->err);
    }
    /* the new leaf n = npool + 1 covers (n - lowbit(n), n] */
    n = ++G->npool;
    G->unused[n] = 1 + unused_prefix(G, n - 1) -
                   unused_prefix(G, n - (n & (~n + 1)));
    G->nunused++;
    if (!primal)
        G->last = id;
    return SC_OK;
}

/* A pool value: half of the time one nothing has used yet (so that few
 * values are dead), else a quarter of the time one of the three most
 * recent, else any. */
static const tval *pick(gen *G)
{
    size_t n = G->nunused;
    tval *t;
    if (n && chance(G, 1, 2)) {
        t = &G->pool[unused_find(G, below(G, n))];
    } else if (G->npool > 3 && chance(G, 1, 2)) {
        t = &G->pool[G->npool - 1 - below(G, 3)];
    } else {
        t = &G->pool[below(G, G->npool)];
    }
    if (!t->used)
        unused_clear(G, (size_t)(t - G->pool));
    t->used = true;
    return t;
}

/* A pool value of a's shape (a itself when no other has it). */
static const tval *pick_same(gen *G, const tval *a)
{
    uintptr_t key[5];
    bool nomem = false;
    const group *gr;
    shape_key(a, key);
    gr = gmap_get(&G->shapes, key, false, &nomem);
    if (!gr || !gr->n)
        return a;
    return &G->pool[gr->idx[below(G, gr->n)]];
}

/* ---- Calls ----------------------------------------------------------------- */

/* Whether a symbol of the palette has been replaced by a constant. */
static bool specialized(const gen *G, sc_env *env)
{
    size_t i;
    int64_t v;
    for (i = 0; i < G->npalette; i++) {
        sc_expr *r;
        if (sc_expr_value_si(G->palette[i], &v))
            continue;
        r = sc_env_replacement(env, G->palette[i]);
        if (r && sc_expr_value_si(r, &v))
            return true;
    }
    return false;
}

/* With symbolic sizes, whether x and y broadcast without a guard that
 * fixes a symbol (s0 against 3 holds only as Eq(s0, 3)): aligned sizes
 * are the same expression or one of them is 1. */
static bool broadcasts_freely(const gen *G, const tval *x, const tval *y)
{
    size_t i, n = x->ndim < y->ndim ? x->ndim : y->ndim;
    int64_t v;
    if (!G->symbolic)
        return true;
    for (i = 1; i <= n; i++) {
        sc_expr *a = x->sizes[x->ndim - i], *b = y->sizes[y->ndim - i];
        if (a == b || (sc_expr_value_si(a, &v) && v == 1) ||
            (sc_expr_value_si(b, &v) && v == 1))
            continue;
        return false;
    }
    return true;
}

static sc_status call_kw(gen *G, const char *op, size_t npos,
                        const sc_value *args, size_t nkw,
                        const char *const *kwnames, const sc_value *kwargs,
                        sc_node_id *out)
{
    char target[96];
    sc_status st;
    size_t i;
    for (i = 0; i < G->nexclude; i++)
        if (G->exclude[i] && strcmp(G->exclude[i], op) == 0)
            return SC_ERR_UNSUPPORTED;
    sc_env *env = sc_graph_env(G->g);
    size_t nguards = 0, nasserts = 0, nsyms = 0;
    size_t nop = strlen(op), pre = strncmp(op, "operator.", 9) == 0 ? 0 : 15;
    if (pre + nop >= sizeof target) /* the ops drawn have short names */
        return sc__error_set(G->err, SC_ERR_INTERNAL, "op name '%s' too long",
                             op);
    memcpy(target, "torch.ops.aten.", pre); /* no printf: one per node */
    memcpy(target + pre, op, nop + 1);
    if (env) {
        nguards = sc_env_guard_count(env);
        nasserts = sc_env_runtime_assert_count(env);
        nsyms = sc_env_symbol_count(env);
    }
    sc_error_init(&G->scratch);
    st = sc_graph_add_call(G->g, NULL, target, npos, args, nkw, kwnames,
                           kwargs, NULL, out, &G->scratch);
    if (st == SC_ERR_NOMEM)
        return sc__error_nomem(G->err);
    /* The builder leaves the graph as it was, but what a shape rule
     * learned before it failed stays in the environment: the graph's
     * metadata may then rely on a guard that no node of it records, and
     * its text would not read back to the same graph. */
    env = sc_graph_env(G->g); /* created by the first rule that needs it */
    if (st != SC_OK && env &&
        (sc_env_guard_count(env) != nguards ||
         sc_env_runtime_assert_count(env) != nasserts ||
         sc_env_symbol_count(env) != nsyms))
        G->poisoned = true;
    /* A rule that fixed a symbol to a constant (a guard Eq(s0, 4)) makes
     * the rest of the graph static in s0 where the text still says s0,
     * and its SymInt nodes constants: a graph PyTorch never prints. */
    if (st == SC_OK && G->symbolic && env &&
        sc_env_guard_count(env) != nguards && specialized(G, env))
        G->poisoned = true;
    return st;
}

static sc_status call(gen *G, const char *op, size_t npos,
                      const sc_value *args, sc_node_id *out)
{
    return call_kw(G, op, npos, args, 0, NULL, NULL, out);
}

/* Call, then add a float tensor result to the pool. */
static sc_status call_push(gen *G, const char *op, size_t npos,
                           const sc_value *args)
{
    sc_node_id id;
    SC_TRY(call(G, op, npos, args, &id));
    return push(G, id, false);
}

/* Element k of a tuple node, pushed. */
static sc_status getitem(gen *G, sc_node_id tuple, int64_t k, bool keep)
{
    sc_value a[2];
    sc_node_id id;
    a[0] = sc_value_node(tuple);
    a[1] = sc_value_int(k);
    SC_TRY(call(G, "operator.getitem", 2, a, &id));
    return keep ? push(G, id, false) : SC_OK;
}

/* A size as an argument: a constant, or (with SC_RANDOM_SYMINTS) the
 * node `sym_size.int(t, d)`; -1 when neither applies. */
static sc_status size_arg(gen *G, const tval *t, size_t d, sc_value *out)
{
    int64_t c;
    sc_value a[2];
    sc_node_id id;
    if (sc_expr_value_si(t->sizes[d], &c)) {
        *out = sc_value_int(c);
        return SC_OK;
    }
    if (!has(G, SC_RANDOM_SYMINTS)) {
        *out = sc_value_int(-1);
        return SC_ERR_UNSUPPORTED;
    }
    a[0] = sc_value_node(t->id);
    a[1] = sc_value_int((int64_t)d);
    SC_TRY(call(G, "sym_size.int", 2, a, &id));
    *out = sc_value_node(id);
    return SC_OK;
}

static int64_t some_dim(gen *G, const tval *t)
{
    return t->ndim ? (int64_t)below(G, t->ndim) : 0;
}

/* ---- Draws ------------------------------------------------------------------ */

static sc_status draw_unary(gen *G)
{
    static const char *const ops[] = {
        "relu.default", "tanh.default", "sigmoid.default", "neg.default",
        "gelu.default", "silu.default", "abs.default", "erf.default",
        "exp.default", "clone.default"};
    sc_value a = sc_value_node(pick(G)->id);
    return call_push(G, ops[below(G, sizeof ops / sizeof *ops)], 1, &a);
}

static sc_status draw_binary(gen *G)
{
    static const char *const ops[] = {"add.Tensor", "sub.Tensor",
                                      "mul.Tensor", "mul.Tensor"};
    const tval *x = pick(G);
    const tval *y = has(G, SC_RANDOM_BROADCAST) && chance(G, 1, 2)
                        ? pick(G)
                        : pick_same(G, x);
    sc_value a[2];
    if (!broadcasts_freely(G, x, y))
        return SC_ERR_UNSUPPORTED;
    a[0] = sc_value_node(x->id);
    a[1] = sc_value_node(y->id);
    return call_push(G, ops[below(G, sizeof ops / sizeof *ops)], 2, a);
}

static sc_status draw_scalar(gen *G)
{
    sc_value a[2];
    a[0] = sc_value_node(pick(G)->id);
    switch (below(G, 3)) {
    case 0:
        a[1] = sc_value_float(0.5, "0.5");
        return call_push(G, "mul.Scalar", 2, a);
    case 1:
        a[1] = sc_value_float(1.0, "1.0");
        return call_push(G, "add.Scalar", 2, a);
    default:
        a[1] = sc_value_int(2);
        return call_push(G, "pow.Tensor_Scalar", 2, a);
    }
}

static sc_status draw_view(gen *G)
{
    const tval *x = pick(G);
    sc_value a[3], l[MAXDIM + 1];
    size_t i;
    int64_t d = some_dim(G, x), e;

    a[0] = sc_value_node(x->id);
    switch (below(G, 10)) {
    case 0:
        return call_push(G, "t.default", 1, a);
    case 1:
        a[1] = sc_value_int(d);
        a[2] = sc_value_int(some_dim(G, x));
        return call_push(G, "transpose.int", 3, a);
    case 2: /* a reversal */
        for (i = 0; i < x->ndim; i++)
            l[i] = sc_value_int((int64_t)(x->ndim - 1 - i));
        a[1] = sc_value_list(x->ndim, l);
        return call_push(G, "permute.default", 2, a);
    case 3: /* flatten */
        l[0] = sc_value_int(-1);
        a[1] = sc_value_list(1, l);
        return call_push(G, chance(G, 1, 2) ? "view.default"
                                            : "reshape.default",
                         2, a);
    case 4: /* keep the first dim, merge the rest */
        if (x->ndim < 2)
            return SC_ERR_UNSUPPORTED;
        SC_TRY(size_arg(G, x, 0, &l[0]));
        l[1] = sc_value_int(-1);
        a[1] = sc_value_list(2, l);
        return call_push(G, chance(G, 1, 2) ? "view.default"
                                            : "reshape.default",
                         2, a);
    case 5:
        a[1] = sc_value_int((int64_t)below(G, x->ndim + 1));
        return call_push(G, "unsqueeze.default", 2, a);
    case 6:
        a[1] = sc_value_int(d);
        return call_push(G, "squeeze.dim", 2, a);
    case 7:
        if (!x->ndim)
            return SC_ERR_UNSUPPORTED;
        a[1] = sc_value_int(d);
        {
            sc_value s[3];
            s[0] = a[0];
            s[1] = a[1];
            s[2] = sc_value_int(0);
            l[0] = sc_value_int(1 + (int64_t)below(G, 3)); /* end */
            {
                sc_value args[4] = {s[0], s[1], s[2], l[0]};
                return call_push(G, "slice.Tensor", 4, args);
            }
        }
    case 8:
        if (!x->ndim)
            return SC_ERR_UNSUPPORTED;
        a[1] = sc_value_int(d);
        a[2] = sc_value_int(0);
        return call_push(G, "select.int", 3, a);
    default: /* expand a size-1 dim (or a new leading one) */
        e = 2 + (int64_t)below(G, 3);
        l[0] = sc_value_int(e);
        for (i = 0; i < x->ndim; i++) {
            int64_t c;
            if (sc_expr_value_si(x->sizes[i], &c) && c == 1 &&
                chance(G, 1, 2))
                l[i + 1] = sc_value_int(e);
            else
                l[i + 1] = sc_value_int(-1);
        }
        a[1] = sc_value_list(x->ndim + 1, l);
        return call_push(G, "expand.default", 2, a);
    }
}

static sc_status draw_multi(gen *G)
{
    const tval *x = pick(G);
    sc_value a[3];
    sc_result r;
    sc_node_id id;
    sc_status st;
    size_t i, n;
    int64_t c;

    if (!x->ndim)
        return SC_ERR_UNSUPPORTED;
    a[0] = sc_value_node(x->id);
    /* with symbolic sizes, only along a static dim: the number of
     * pieces of a symbolic one is fixed by a guard */
    if (chance(G, 1, 2)) {
        a[1] = sc_value_int(1 + (int64_t)below(G, 3));
        a[2] = sc_value_int(some_dim(G, x));
        if (G->symbolic && !sc_expr_value_si(x->sizes[a[2].u.i], &c))
            return SC_ERR_UNSUPPORTED;
        SC_TRY(call(G, "split.Tensor", 3, a, &id));
    } else {
        a[1] = sc_value_int(some_dim(G, x));
        if (G->symbolic && !sc_expr_value_si(x->sizes[a[1].u.i], &c))
            return SC_ERR_UNSUPPORTED;
        SC_TRY(call(G, "unbind.int", 2, a, &id));
    }
    sc_graph_node_result(G->g, id, &r);
    n = r.kind == SC_RESULT_TUPLE && r.count ? r.count : 1;
    /* one element, sometimes two */
    for (i = 0; i < (chance(G, 1, 3) ? 2u : 1u); i++)
        if ((st = getitem(G, id, (int64_t)below(G, n), true)) != SC_OK)
            return st == SC_ERR_NOMEM ? st : SC_OK;
    return SC_OK;
}

static sc_status draw_random(gen *G)
{
    const tval *x = pick(G);
    sc_value a[3];
    sc_node_id id;

    a[0] = sc_value_node(x->id);
    switch (below(G, 3)) {
    case 0:
        a[1] = sc_value_float(0.5, "0.5");
        a[2] = sc_value_bool(true);
        SC_TRY(call(G, "native_dropout.default", 3, a, &id));
        return getitem(G, id, 0, true);
    case 1:
        SC_TRY(call(G, "rand_like.default", 1, a, &id));
        break;
    default:
        a[1] = sc_value_float(0.5, "0.5");
        SC_TRY(call(G, "bernoulli.p", 2, a, &id));
        break;
    }
    /* the draw scales x, so that it carries a gradient */
    a[1] = sc_value_node(id);
    return call_push(G, "mul.Tensor", 2, a);
}

static sc_status draw_nonzero(gen *G)
{
    sc_value a = sc_value_node(pick(G)->id);
    sc_node_id id;
    if (G->nextra == sizeof G->extra / sizeof *G->extra)
        return SC_ERR_UNSUPPORTED;
    SC_TRY(call(G, "nonzero.default", 1, &a, &id));
    G->extra[G->nextra++] = id;
    return SC_OK;
}

static sc_status draw_reduction(gen *G)
{
    const tval *x = pick(G);
    sc_value a[3], l;
    a[0] = sc_value_node(x->id);
    l = sc_value_int(some_dim(G, x));
    a[1] = sc_value_list(1, &l);
    a[2] = sc_value_bool(chance(G, 1, 2));
    switch (below(G, 4)) {
    case 0:
        return call_push(G, "sum.default", 1, a);
    case 1:
        return call_push(G, "sum.dim_IntList", 3, a);
    case 2:
        return call_push(G, "mean.dim", 3, a);
    default:
        return call_push(G, "amax.default", 3, a);
    }
}

static sc_status draw_matmul(gen *G)
{
    const tval *x = pick(G), *y = NULL;
    const group *gr;
    sc_value a[3];
    sc_node_id id;
    size_t start;
    uintptr_t key[5];
    bool nomem = false;

    if (x->ndim != 2 && x->ndim != 3)
        return SC_ERR_UNSUPPORTED;
    /* the first fitting value from a random start down, cyclically */
    start = below(G, G->npool);
    mm_key(x, true, key);
    gr = gmap_get(&G->mm_rhs, key, false, &nomem);
    if (gr && gr->n) {
        size_t lo = 0, hi = gr->n; /* the first idx > start */
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (gr->idx[mid] <= start)
                lo = mid + 1;
            else
                hi = mid;
        }
        y = &G->pool[gr->idx[lo ? lo - 1 : gr->n - 1]];
    }
    a[0] = sc_value_node(x->id);
    if (!y || chance(G, 1, 4)) {
        /* x @ x^T */
        if (x->ndim == 2) {
            SC_TRY(call(G, "t.default", 1, a, &id));
        } else {
            a[1] = sc_value_int(1);
            a[2] = sc_value_int(2);
            SC_TRY(call(G, "transpose.int", 3, a, &id));
        }
        a[1] = sc_value_node(id);
    } else {
        a[1] = sc_value_node(y->id);
    }
    return call_push(G, x->ndim == 2 ? "mm.default" : "bmm.default", 2, a);
}

static sc_status draw_creation(gen *G)
{
    sc_value a[2];
    a[0] = sc_value_node(pick(G)->id);
    switch (below(G, 3)) {
    case 0:
        return call_push(G, "zeros_like.default", 1, a);
    case 1:
        return call_push(G, "ones_like.default", 1, a);
    default:
        a[1] = sc_value_float(2.0, "2.0");
        return call_push(G, "full_like.default", 2, a);
    }
}

static sc_status draw_norm(gen *G)
{
    const tval *x = pick(G);
    sc_value a[5], l;
    sc_node_id id;

    if (!x->ndim)
        return SC_ERR_UNSUPPORTED;
    a[0] = sc_value_node(x->id);
    switch (below(G, 3)) {
    case 0:
    case 1:
        a[1] = sc_value_int(some_dim(G, x));
        a[2] = sc_value_bool(false);
        return call_push(G, chance(G, 1, 2) ? "_softmax.default"
                                            : "_log_softmax.default",
                         3, a);
    default:
        SC_TRY(size_arg(G, x, x->ndim - 1, &l));
        a[1] = sc_value_list(1, &l);
        a[2] = sc_value_none();
        a[3] = sc_value_none();
        a[4] = sc_value_float(1e-05, "1e-05");
        SC_TRY(call(G, "native_layer_norm.default", 5, a, &id));
        return getitem(G, id, 0, true);
    }
}

static sc_status draw_join(gen *G)
{
    const tval *x = pick(G), *y = pick_same(G, x);
    sc_value a[3], l[2];
    sc_node_id id;

    l[0] = sc_value_node(x->id);
    l[1] = sc_value_node(y->id);
    switch (below(G, 4)) {
    case 0:
        a[0] = sc_value_list(2, l);
        a[1] = sc_value_int(some_dim(G, x));
        return call_push(G, "cat.default", 2, a);
    case 1:
        a[0] = sc_value_list(2, l);
        a[1] = sc_value_int((int64_t)below(G, x->ndim + 1));
        return call_push(G, "stack.default", 2, a);
    case 2:
        a[0] = l[0];
        a[1] = sc_value_float(0.0, "0.0");
        SC_TRY(call(G, "gt.Scalar", 2, a, &id));
        a[0] = sc_value_node(id);
        a[1] = l[0];
        a[2] = l[1];
        return call_push(G, "where.self", 3, a);
    default:
        a[0] = l[1];
        a[1] = sc_value_float(0.0, "0.0");
        SC_TRY(call(G, "lt.Scalar", 2, a, &id));
        a[0] = l[0];
        a[1] = sc_value_node(id);
        a[2] = sc_value_float(0.0, "0.0");
        return call_push(G, "masked_fill.Scalar", 3, a);
    }
}

typedef struct draw_kind {
    unsigned feature; /* 0: always */
    unsigned weight;
    sc_status (*fn)(gen *G);
} draw_kind;

static const draw_kind kinds[] = {
    {0, 6, draw_unary},
    {0, 6, draw_binary},
    {0, 2, draw_scalar},
    {SC_RANDOM_VIEWS, 5, draw_view},
    {SC_RANDOM_MULTI_OUTPUT, 2, draw_multi},
    {SC_RANDOM_RANDOM_OPS, 1, draw_random},
    {SC_RANDOM_DATA_DEPENDENT, 1, draw_nonzero},
    {SC_RANDOM_REDUCTIONS, 3, draw_reduction},
    {SC_RANDOM_MATMUL, 3, draw_matmul},
    {SC_RANDOM_CREATION, 1, draw_creation},
    {SC_RANDOM_NORMS, 2, draw_norm},
    {SC_RANDOM_JOIN, 2, draw_join},
};
#define NKINDS (sizeof kinds / sizeof kinds[0])

static sc_status draw(gen *G)
{
    unsigned total = 0, k;
    size_t i;
    for (i = 0; i < NKINDS; i++)
        if (!kinds[i].feature || has(G, kinds[i].feature))
            total += kinds[i].weight;
    k = (unsigned)below(G, total);
    for (i = 0; i < NKINDS; i++) {
        if (kinds[i].feature && !has(G, kinds[i].feature))
            continue;
        if (k < kinds[i].weight)
            return kinds[i].fn(G);
        k -= kinds[i].weight;
    }
    return SC_ERR_UNSUPPORTED;
}

/* ---- Placeholders ---------------------------------------------------------- */

static sc_status make_palette(gen *G)
{
    size_t i, nsym;
    char name[8];

    if (G->symbolic) {
        nsym = 1 + below(G, MAXSYM);
        for (i = 0; i < nsym; i++) {
            sc_expr *s;
            snprintf(name, sizeof name, "s%zu", i);
            s = sc_expr_symbol(G->ctx, name);
            if (!s)
                return sc__error_nomem(G->err);
            SC_TRY(sc_graph_set_hint(G->g, s, 2 + (int64_t)below(G, 7),
                                     G->err));
            G->palette[G->npalette++] = s;
            G->palette[G->npalette++] = s; /* symbols twice as likely */
        }
        G->palette[G->npalette++] = sc_expr_int_si(G->ctx, 1);
        G->palette[G->npalette++] = sc_expr_int_si(G->ctx,
                                                   2 + (int64_t)below(G, 4));
    } else {
        G->palette[G->npalette++] = sc_expr_int_si(G->ctx, 1);
        for (i = 0; i < 3; i++)
            G->palette[G->npalette++] =
                sc_expr_int_si(G->ctx, 2 + (int64_t)below(G, 5));
    }
    for (i = 0; i < G->npalette; i++)
        if (!G->palette[i])
            return sc__error_nomem(G->err);
    return SC_OK;
}

static sc_status add_primal(gen *G, size_t index, bool pooled)
{
    sc_result r;
    sc_expr *sizes[MAXDIM], *strides[MAXDIM], *acc;
    size_t nd = 1 + below(G, 3), i;
    char name[32];
    sc_node_id id;

    for (i = 0; i < nd; i++)
        sizes[i] = G->palette[below(G, G->npalette)];
    acc = sc_expr_int_si(G->ctx, 1);
    for (i = nd; i-- > 0;) {
        strides[i] = acc;
        acc = acc ? sc_expr_mul(G->ctx, acc, sizes[i]) : NULL;
    }
    if (!acc)
        return sc__error_nomem(G->err);
    sc_result_init(&r);
    r.kind = SC_RESULT_TENSOR;
    r.tensor.dtype = SC_DTYPE_F32;
    r.tensor.has_strides = true;
    r.tensor.has_device = true;
    r.tensor.device.type = SC_DEVICE_CPU;
    r.tensor.device.index = -1;
    r.tensor.ndim = nd;
    r.tensor.sizes = sizes;
    r.tensor.strides = strides;
    snprintf(name, sizeof name, "arg%zu_1", index);
    SC_TRY(sc_graph_add_placeholder(G->g, name, SC_ROLE_PRIMAL, &r, &id,
                                    G->err));
    return pooled ? push(G, id, true) : SC_OK;
}

/* ---- Outputs ---------------------------------------------------------------- */

/* A unary call on the first primal (always in the pool: primals are
 * pooled first): the output of last resort. */
static sc_status fallback_call(gen *G)
{
    static const char *const fallback[] = {"relu.default", "neg.default",
                                           "tanh.default", "clone.default"};
    sc_value a = sc_value_node(G->pool[0].id);
    sc_status st = SC_ERR_UNSUPPORTED;
    size_t i;
    for (i = 0; st != SC_OK && st != SC_ERR_NOMEM && i < 4; i++)
        st = call_push(G, fallback[i], 1, &a);
    if (st == SC_OK || st == SC_ERR_NOMEM)
        return st;
    return sc__error_set(G->err, st, "random graph: %s", G->scratch.message);
}

/* Make one of outs[0 .. *n) require grad as sc_graph_new_joint decides it
 * (every floating primal requiring grad), so that the joint graph has a
 * tangent: when none does (the last value came from zeros_like,
 * bernoulli, a chain of them), the most recent call value that requires
 * grad becomes the first output, else a unary call on the first primal. */
static sc_status differentiable_output(gen *G, sc_node_id *outs, size_t *n)
{
    size_t nn = sc_graph_node_count(G->g), i;
    sc_node_id pick = SC_NODE_NONE;
    sc_status status = SC_OK;
    bool *rg = sc__malloc((nn ? nn : 1) * sizeof *rg);

    if (!rg)
        return sc__error_nomem(G->err);
    SC_CHECK(sc_graph_requires_grad(G->g, NULL, rg, G->err));
    for (i = 0; i < *n; i++)
        if (outs[i] < nn && rg[outs[i]])
            goto fail; /* status SC_OK: nothing to do */
    for (i = G->npool; i-- > 0 && pick == SC_NODE_NONE;)
        if (!G->pool[i].primal && rg[G->pool[i].id])
            pick = G->pool[i].id;
    if (pick == SC_NODE_NONE) {
        SC_CHECK(fallback_call(G));
        pick = G->last;
    }
    if (*n == 16)
        (*n)--;
    memmove(outs + 1, outs, *n * sizeof *outs);
    outs[0] = pick;
    ++*n;
fail:
    sc__free(rg);
    return status;
}

static sc_status set_outputs(gen *G)
{
    sc_node_id outs[16];
    size_t n = 0, i, k;

    if (G->last == SC_NODE_NONE)
        SC_TRY(fallback_call(G));
    outs[n++] = G->last;
    if (has(G, SC_RANDOM_SEVERAL_OUTPUTS)) {
        size_t more = below(G, 3);
        for (k = 0; k < more; k++) {
            /* an unused value if there is one */
            const tval *t = &G->pool[below(G, G->npool)];
            bool dup;
            for (i = G->npool; i-- > 0;)
                if (!G->pool[i].used && !G->pool[i].primal &&
                    G->pool[i].id != G->last && chance(G, 1, 2)) {
                    t = &G->pool[i];
                    break;
                }
            dup = t->primal;
            for (i = 0; i < n; i++)
                dup = dup || outs[i] == t->id;
            if (!dup)
                outs[n++] = t->id;
        }
    }
    for (i = 0; i < G->nextra && n < 16; i++)
        outs[n++] = G->extra[i];
    SC_TRY(differentiable_output(G, outs, &n));
    SC_TRY(sc_graph_set_outputs(G->g, n, outs, n, G->err));
    return sc_graph_finish(G->g, G->err);
}

/* ---- Entry points ------------------------------------------------------------ */

void sc_graph_random_options_init(sc_graph_random_options *opts)
{
    memset(opts, 0, sizeof *opts);
    opts->nodes = 8;
    opts->features = SC_RANDOM_ALL;
}

/* One graph from the stream of attempt `attempt`; *poisoned as in
 * call_kw. */
static sc_status generate(sc_ctx *ctx, const sc_graph_random_options *opts,
                          unsigned attempt, sc_graph **out, bool *poisoned,
                          sc_error *err)
{
    gen G;
    sc_status status;
    size_t nprim, i, tries, reported = SIZE_MAX;
    size_t want = opts->nodes ? opts->nodes : 8;

    memset(&G, 0, sizeof G);
    G.ctx = ctx;
    G.err = err;
    G.symbolic = opts->symbolic;
    G.feat = opts->features ? opts->features & SC_RANDOM_ALL
                            : SC_RANDOM_ALL;
    G.state = opts->seed ^ 0x5c0de5eedULL ^
              ((uint64_t)attempt * 0xd1b54a32d192ed03ULL);
    G.last = SC_NODE_NONE;
    G.nexclude = opts->exclude ? opts->nexclude : 0;
    G.exclude = opts->exclude;
    G.g = sc_graph_new(ctx);
    if (!G.g)
        return sc__error_nomem(err);
    SC_CHECK(sc_graph_set_class_name(G.g, "forward_fn", err));
    SC_CHECK(make_palette(&G));
    nprim = 1 + below(&G, 3);
    for (i = 0; i < nprim; i++)
        SC_CHECK(add_primal(&G, i, true));
    if (has(&G, SC_RANDOM_UNUSED_INPUTS) && chance(&G, 1, 3))
        SC_CHECK(add_primal(&G, nprim, false));
    tries = 0;
    for (;;) {
        size_t drawn =
            sc_graph_node_count(G.g) - sc_graph_placeholder_count(G.g);
        if (opts->progress && drawn / 4096 != reported / 4096) {
            reported = drawn;
            opts->progress(opts->progress_user, "drawing the forward graph",
                           drawn < want ? drawn : want, want);
        }
        if (drawn >= want || tries++ >= 40 * want)
            break;
        if (draw(&G) == SC_ERR_NOMEM) {
            status = SC_ERR_NOMEM;
            goto fail;
        }
    }
    SC_CHECK(set_outputs(&G));
    if (opts->progress)
        opts->progress(opts->progress_user, "drawing the forward graph", want,
                       want);
    sc__free(G.pool);
    sc__free(G.unused);
    gmap_free(&G.shapes);
    gmap_free(&G.mm_rhs);
    *poisoned = G.poisoned;
    *out = G.g;
    return SC_OK;
fail:
    sc__free(G.pool);
    sc__free(G.unused);
    gmap_free(&G.shapes);
    gmap_free(&G.mm_rhs);
    sc_graph_free(G.g);
    return status;
}

sc_status sc_graph_new_random(sc_ctx *ctx, const sc_graph_random_options *opts,
                              sc_graph **out, sc_error *err)
{
    sc_status st;
    unsigned attempt;
    bool poisoned;

    *out = NULL;
    sc_error_init(err);
    if (!ctx || !opts)
        return sc__error_set(err, SC_ERR_INVALID,
                             "random graph: no context or no options");
    if (opts->nodes > SC_RANDOM_MAX_NODES)
        return sc__error_set(err, SC_ERR_INVALID,
                             "random graph: %zu nodes is too many (at most "
                             "%d)",
                             opts->nodes, SC_RANDOM_MAX_NODES);
    /* A draw whose rejection left facts in the environment spoils the
     * graph (see call_kw): draw again from the next stream, up to 32
     * times (then keep the last). */
    for (attempt = 0;; attempt++) {
        st = generate(ctx, opts, attempt, out, &poisoned, err);
        if (st != SC_OK || !poisoned || attempt == 31)
            return st;
        sc_graph_free(*out);
        *out = NULL;
    }
}
