/* symcut — symbol maps (substitutions and bindings), and the small
 * internal helpers that range.c, simplify.c, eval.c and prog.c share: a
 * pointer-keyed memo table for one traversal, and int64 <-> mpz. */
#include <limits.h>
#include <string.h>

#include "symint/expr.h"


/* ---- Memo table --------------------------------------------------------
 * Open addressing with linear probing, at most half full.  Keys are never
 * removed (forgetting stores SC__MEMO_NONE), so probing needs no
 * tombstones. */

typedef struct memo_slot {
    const sc_expr *key;
    size_t value;
} memo_slot;

struct sc__memo {
    memo_slot *slots;
    size_t mask; /* capacity - 1, capacity a power of two */
    size_t count;
};

static size_t memo_hash(const sc_expr *e, size_t mask)
{
    uint64_t h = (uint64_t)(uintptr_t)e * UINT64_C(0x9E3779B97F4A7C15);
    return (size_t)(h >> 29) & mask;
}

sc__memo *sc__memo_new(void)
{
    sc__memo *m = sc__malloc(sizeof *m);
    if (!m)
        return NULL;
    m->mask = 15;
    m->count = 0;
    m->slots = sc__calloc(m->mask + 1, sizeof *m->slots);
    if (!m->slots) {
        sc__free(m);
        return NULL;
    }
    return m;
}

void sc__memo_free(sc__memo *m)
{
    if (!m)
        return;
    sc__free(m->slots);
    sc__free(m);
}

void sc__memo_clear(sc__memo *m)
{
    /* A table grown large by one big traversal goes back to a small one,
     * so that clearing stays cheap for the small traversals that follow. */
    if (m->mask > 1023) {
        memo_slot *ns = sc__calloc(16, sizeof *ns);
        if (ns) {
            sc__free(m->slots);
            m->slots = ns;
            m->mask = 15;
            m->count = 0;
            return;
        }
    }
    memset(m->slots, 0, (m->mask + 1) * sizeof *m->slots);
    m->count = 0;
}

size_t sc__memo_get(const sc__memo *m, const sc_expr *e)
{
    size_t i = memo_hash(e, m->mask);
    for (;;) {
        const memo_slot *s = &m->slots[i];
        if (s->key == e)
            return s->value;
        if (!s->key)
            return SC__MEMO_NONE;
        i = (i + 1) & m->mask;
    }
}

static bool memo_grow(sc__memo *m)
{
    size_t ncap = (m->mask + 1) * 2, i;
    memo_slot *ns;

    if (ncap > SIZE_MAX / sizeof *ns)
        return false;
    ns = sc__calloc(ncap, sizeof *ns);
    if (!ns)
        return false;
    for (i = 0; i <= m->mask; i++) {
        const memo_slot *s = &m->slots[i];
        size_t j;
        if (!s->key)
            continue;
        j = memo_hash(s->key, ncap - 1);
        while (ns[j].key)
            j = (j + 1) & (ncap - 1);
        ns[j] = *s;
    }
    sc__free(m->slots);
    m->slots = ns;
    m->mask = ncap - 1;
    return true;
}

bool sc__memo_put(sc__memo *m, const sc_expr *e, size_t value)
{
    size_t i;

    if ((m->count + 1) * 2 > m->mask + 1 && !memo_grow(m))
        return false;
    i = memo_hash(e, m->mask);
    while (m->slots[i].key && m->slots[i].key != e)
        i = (i + 1) & m->mask;
    if (!m->slots[i].key) {
        m->slots[i].key = e;
        m->count++;
    }
    m->slots[i].value = value;
    return true;
}

/* ---- Small helpers ---------------------------------------------------- */

bool sc__ctx_has_symbol(const sc_ctx *ctx, const sc_expr *e)
{
    return ctx && e && e->kind == SC_EXPR_SYMBOL &&
           e->u.sym.index < ctx->nsymbols &&
           ctx->symbols[e->u.sym.index] == e;
}

void sc__mpz_set_i64(mpz_ptr z, int64_t v)
{
#if LONG_MAX >= INT64_MAX
    mpz_set_si(z, (long)v);
#else
    uint64_t m = v < 0 ? -(uint64_t)v : (uint64_t)v;
    mpz_import(z, 1, 1, sizeof m, 0, 0, &m);
    if (v < 0)
        mpz_neg(z, z);
#endif
}

bool sc__mpz_get_i64(mpz_srcptr z, int64_t *out)
{
#if LONG_MAX >= INT64_MAX
    if (!mpz_fits_slong_p(z))
        return false;
    *out = (int64_t)mpz_get_si(z);
    return true;
#else
    uint64_t m = 0;
    size_t count = 0;
    if (mpz_sizeinbase(z, 2) > 64)
        return false;
    mpz_export(&m, &count, 1, sizeof m, 0, 0, z);
    if (mpz_sgn(z) >= 0) {
        if (m > (uint64_t)INT64_MAX)
            return false;
        *out = (int64_t)m;
    } else {
        if (m > (uint64_t)INT64_MAX + 1)
            return false;
        *out = m == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)m;
    }
    return true;
#endif
}

/* ---- Symbol maps -------------------------------------------------------
 * A dense array indexed by symbol index: O(1) get and set. */

struct sc_symmap {
    sc_ctx *ctx;
    sc_expr **values; /* NULL: unmapped */
    size_t cap;
};

sc_symmap *sc_symmap_new(sc_ctx *ctx)
{
    sc_symmap *map;

    if (!ctx)
        return NULL;
    map = sc__malloc(sizeof *map);
    if (!map)
        return NULL;
    map->ctx = ctx;
    map->values = NULL;
    map->cap = 0;
    return map;
}

void sc_symmap_free(sc_symmap *map)
{
    if (!map)
        return;
    sc__free(map->values);
    sc__free(map);
}

/* Map sym to value; a NULL value removes the entry.  Errors:
 * SC_ERR_INVALID when sym is not a symbol of the map's context,
 * SC_ERR_TYPE when value is boolean, SC_ERR_NOMEM. */
sc_status sc_symmap_set(sc_symmap *map, sc_expr *sym, sc_expr *value,
                        sc_error *err)
{
    size_t idx, oldcap;
    void *p;

    if (!map)
        return sc__error_set(err, SC_ERR_INVALID, "NULL symbol map");
    if (!sc__ctx_has_symbol(map->ctx, sym))
        return sc__error_set(err, SC_ERR_INVALID,
                             "symbol map key is not a symbol of its context");
    if (value && value->is_bool)
        return sc__error_set(err, SC_ERR_TYPE,
                             "symbol %s mapped to a boolean expression",
                             sym->u.sym.name);
    idx = sym->u.sym.index;
    if (idx >= map->cap) {
        if (!value)
            return SC_OK;
        oldcap = map->cap;
        p = map->values;
        if (!sc__grow(&p, &map->cap, idx + 1, sizeof *map->values))
            return sc__error_nomem(err);
        map->values = p;
        memset(map->values + oldcap, 0,
               (map->cap - oldcap) * sizeof *map->values);
    }
    map->values[idx] = value;
    return SC_OK;
}

sc_status sc_symmap_set_si(sc_symmap *map, sc_expr *sym, int64_t value,
                           sc_error *err)
{
    sc_expr *v;

    if (!map)
        return sc__error_set(err, SC_ERR_INVALID, "NULL symbol map");
    if (!sc__ctx_has_symbol(map->ctx, sym))
        return sc__error_set(err, SC_ERR_INVALID,
                             "symbol map key is not a symbol of its context");
    v = sc_expr_int_si(map->ctx, value);
    if (!v)
        return sc_ctx_take_error(map->ctx, err);
    return sc_symmap_set(map, sym, v, err);
}

/* The value mapped to sym, or NULL (also for a key that is not a symbol of
 * the map's context).  O(1). */
sc_expr *sc_symmap_get(const sc_symmap *map, const sc_expr *sym)
{
    size_t idx;

    if (!map || !sym || sym->kind != SC_EXPR_SYMBOL)
        return NULL;
    idx = sym->u.sym.index;
    if (idx >= map->cap || !map->values[idx])
        return NULL;
    return map->ctx->symbols[idx] == sym ? map->values[idx] : NULL;
}

void sc_symmap_clear(sc_symmap *map)
{
    if (map && map->values)
        memset(map->values, 0, map->cap * sizeof *map->values);
}
