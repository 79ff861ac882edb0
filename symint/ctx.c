/* symcut — the context: error recording, scratch memory, the intern table
 * (hash-consing), symbols, and the inspection functions, including the
 * canonical total order sc_expr_cmp. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symint/expr.h"

/* A fresh context of a typical workload (a few hundred expressions) holds
 * about a thousand nodes: starting at 2048 buckets spares it a rehash. */
#define TABLE_INITIAL 2048
/* The operation cache's sizes and inline paths are in expr.h. */
#define SCRATCH_BLOCK 16384


/* ---- Errors -------------------------------------------------------------- */

sc_expr *sc__ctx_fail(sc_ctx *ctx, sc_status code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sc__error_vset(&ctx->error, code, fmt, ap);
    va_end(ap);
    return NULL;
}

sc_expr *sc__ctx_nomem(sc_ctx *ctx)
{
    sc__error_nomem(&ctx->error);
    return NULL;
}

const sc_error *sc_ctx_error(const sc_ctx *ctx) { return &ctx->error; }

sc_status sc_ctx_take_error(sc_ctx *ctx, sc_error *err)
{
    sc_status code = ctx->error.code;
    if (err)
        *err = ctx->error;
    sc_error_init(&ctx->error);
    return code;
}

/* ---- Scratch memory ------------------------------------------------------ */

static struct sc__scratch_block *scratch_block_new(size_t size)
{
    struct sc__scratch_block *b;
    if (size > SIZE_MAX - sizeof *b)
        return NULL;
    b = sc__malloc(sizeof *b + size);
    if (!b)
        return NULL;
    b->next = NULL;
    b->size = size;
    b->used = 0;
    return b;
}

/* sc__ctx_mark and sc__ctx_release are inline (expr.h). */

void *sc__ctx_scratch_slow(sc_ctx *ctx, size_t size)
{
    struct sc__scratch_block *b = ctx->scratch_cur, *nb;
    void *p;
    size_t want;

    size = (size + 15) & ~(size_t)15;
    if (size == 0)
        size = 16;
    if (b->size - b->used < size) {
        /* The blocks after the current one are free: reuse or replace. */
        nb = b->next;
        if (nb && nb->size >= size) {
            nb->used = 0;
        } else {
            want = b->size * 2 > size ? b->size * 2 : size;
            nb = scratch_block_new(want);
            if (!nb) {
                sc__ctx_nomem(ctx);
                return NULL;
            }
            if (b->next) {
                struct sc__scratch_block *q = b->next, *qn;
                while (q) {
                    qn = q->next;
                    sc__free(q);
                    q = qn;
                }
            }
            b->next = nb;
        }
        ctx->scratch_cur = b = nb;
    }
    p = b->data + b->used;
    b->used += size;
    return p;
}

mpz_ptr sc__ctx_tmp(sc_ctx *ctx)
{
    mpz_ptr t;
    void *items;

    if (ctx->ntmps_used < ctx->ntmps)
        return ctx->tmps[ctx->ntmps_used++];
    items = ctx->tmps;
    if (!sc__grow(&items, &ctx->tmps_cap, ctx->ntmps + 1, sizeof(mpz_ptr))) {
        sc__ctx_nomem(ctx);
        return NULL;
    }
    ctx->tmps = items;
    t = sc__malloc(sizeof *t);
    if (!t) {
        sc__ctx_nomem(ctx);
        return NULL;
    }
    mpz_init(t); /* allocates nothing with GMP >= 6.2 */
    ctx->tmps[ctx->ntmps++] = t;
    ctx->ntmps_used++;
    return t;
}

/* ---- Hashing ------------------------------------------------------------- */

static uint64_t hmix(uint64_t h, uint64_t v)
{
    h ^= v + UINT64_C(0x9e3779b97f4a7c15) + (h << 6) + (h >> 2);
    h ^= h >> 31;
    h *= UINT64_C(0xbf58476d1ce4e5b9);
    h ^= h >> 29;
    return h;
}

static uint64_t name_hash(const char *s)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= UINT64_C(0x100000001b3);
    }
    return h;
}

/* name_hash of the n bytes at s (none of them NUL). */
static uint64_t name_hash_n(const char *s, size_t n)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    size_t i;
    for (i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= UINT64_C(0x100000001b3);
    }
    return h;
}

static uint64_t content_hash(const sc_expr *p)
{
    uint64_t h = hmix(UINT64_C(0x243f6a8885a308d3) + p->kind, p->nargs);
    uint32_t i;

    switch (p->kind) {
    case SC_EXPR_INT:
        return hmix(h, sc__int_hash(&p->u.value));
    case SC_EXPR_SYMBOL:
        return hmix(h, name_hash(p->u.sym.name));
    case SC_EXPR_ADD:
        h = hmix(h, sc__int_hash(&p->u.value));
        for (i = 0; i < p->nargs; i++)
            h = hmix(hmix(h, p->args[i]->hash), sc__int_hash(&p->coefs[i]));
        return h;
    case SC_EXPR_MUL:
        for (i = 0; i < p->nargs; i++)
            h = hmix(hmix(h, p->args[i]->hash), p->exps[i]);
        return h;
    default:
        for (i = 0; i < p->nargs; i++)
            h = hmix(h, p->args[i]->hash);
        return h;
    }
}

static bool same_content(const sc_expr *e, const sc_expr *p)
{
    uint32_t i;

    if (e->kind != p->kind || e->nargs != p->nargs)
        return false;
    switch (p->kind) {
    case SC_EXPR_INT:
        return sc__int_eq(&e->u.value, &p->u.value);
    case SC_EXPR_SYMBOL:
        return strcmp(e->u.sym.name, p->u.sym.name) == 0;
    case SC_EXPR_ADD:
        if (!sc__int_eq(&e->u.value, &p->u.value))
            return false;
        for (i = 0; i < p->nargs; i++)
            if (e->args[i] != p->args[i] ||
                !sc__int_eq(&e->coefs[i], &p->coefs[i]))
                return false;
        return true;
    case SC_EXPR_MUL:
        for (i = 0; i < p->nargs; i++)
            if (e->args[i] != p->args[i] || e->exps[i] != p->exps[i])
                return false;
        return true;
    default:
        for (i = 0; i < p->nargs; i++)
            if (e->args[i] != p->args[i])
                return false;
        return true;
    }
}

/* ---- Interning ----------------------------------------------------------- */

static void table_grow(sc_ctx *ctx)
{
    size_t nsize = ctx->table_size * 2, i, j;
    sc_expr **nt, *e, *next;

    if (nsize > SIZE_MAX / sizeof *nt)
        return;
    nt = sc__calloc(nsize, sizeof *nt);
    if (!nt)
        return; /* keep the old table: longer chains, still correct */
    for (i = 0; i < ctx->table_size; i++) {
        for (e = ctx->table[i]; e; e = next) {
            next = e->chain;
            j = e->hash & (nsize - 1);
            e->chain = nt[j];
            nt[j] = e;
        }
    }
    sc__free(ctx->table);
    ctx->table = nt;
    ctx->table_size = nsize;
}

static void node_metrics(sc_expr *e)
{
    uint32_t i, d = 0, depth = 1, n = e->nargs, c;
    sc_expr *const *args = e->args;
    uint64_t s;

    for (i = 0; i < n; i++) {
        c = args[i]->depth + 1;
        if (c > depth)
            depth = c;
    }
    e->depth = depth;
    switch (e->kind) {
    case SC_EXPR_INT:
        e->degree = 0;
        break;
    case SC_EXPR_ADD:
        for (i = 0; i < n; i++)
            if (args[i]->degree > d)
                d = args[i]->degree;
        e->degree = d;
        break;
    case SC_EXPR_MUL:
        s = 0;
        for (i = 0; i < e->nargs; i++) {
            s += e->exps[i];
            if (s > UINT32_MAX)
                s = UINT32_MAX;
        }
        e->degree = (uint32_t)s;
        break;
    default:
        e->degree = e->is_bool ? 0 : 1;
        break;
    }
}

typedef sc__sym_key sym_key;

static void sym_key_init(sym_key *k, const char *name, size_t len)
{
    size_t p = len, i;

    k->len = len;

    while (p > 0 && name[p - 1] >= '0' && name[p - 1] <= '9')
        p--;
    k->plen = p > UINT32_MAX ? UINT32_MAX : (uint32_t)p;
    k->has_digits = p < len;
    k->num = 0;
    i = p;
    while (i + 1 < len && name[i] == '0')
        i++;
    k->num_ok = k->has_digits && len - i <= 19 && p <= UINT32_MAX;
    if (k->num_ok)
        for (; i < len; i++)
            k->num = k->num * 10 + (uint64_t)(name[i] - '0');
}

static const sym_key *sym_key_of(const sc_expr *e)
{
    return sc__sym_key_of(e);
}

/* Copy the big value *v into a context-owned mpz at m and point v at it. */
static bool own_big(sc_ctx *ctx, sc__int *v, mpz_ptr m)
{
    bool ok = sc__mpz_init_set(ctx, m, v->big);
    ctx->bigs[ctx->nbigs++] = m; /* initialised either way: cleared at free */
    v->big = m;
    return ok;
}

static size_t align16(size_t n) { return (n + 15) & ~(size_t)15; }

/* The interned node with content p and hash h, or NULL. */
static sc_expr *intern_find(const sc_ctx *ctx, const sc_expr *p, uint64_t h)
{
    sc_expr *e;
    for (e = ctx->table[h & (ctx->table_size - 1)]; e; e = e->chain)
        if (e->hash == h && same_content(e, p))
            return e;
    return NULL;
}

/* Decimal digits of v, less one for a big value (mpz_sizeinbase may
 * count one too many): a lower bound of its printed digits. */
static uint64_t int_digits(const sc__int *v)
{
    uint64_t n = 1, m;
    if (v->big)
        return (uint64_t)mpz_sizeinbase(v->big, 10) - 1;
    m = v->small < 0 ? (uint64_t)0 - (uint64_t)v->small : (uint64_t)v->small;
    while (m >= 10) {
        m /= 10;
        n++;
    }
    return n;
}

/* The text bound (sc_expr.text) of a node of content p. */
static uint64_t text_bound(const sc_expr *p)
{
    uint64_t t = 0;
    uint32_t i;
    switch (p->kind) {
    case SC_EXPR_INT:
        return int_digits(&p->u.value);
    case SC_EXPR_SYMBOL:
        return strlen(p->u.sym.name);
    case SC_EXPR_ADD:
        if (sc__int_sgn(&p->u.value))
            t += int_digits(&p->u.value);
        for (i = 0; i < p->nargs; i++)
            if (p->coefs[i].big)
                t += int_digits(&p->coefs[i]);
        break;
    default:
        break;
    }
    for (i = 0; i < p->nargs; i++)
        t += p->args[i]->text; /* each at most the limit: no overflow */
    return t;
}

/* Insert a copy of p (not present, hash h). */
static sc_expr *intern_insert(sc_ctx *ctx, const sc_expr *p, uint64_t h)
{
    size_t b, nbig = 0, need, name_len = 0;
    size_t off_args, off_coefs, off_exps, off_bigs, off_name;
    sc_expr *e;
    unsigned char *mem;
    uint32_t i;
    void *items;
    uint64_t text = text_bound(p);

    if (text > SC__TEXT_LIMIT)
        return sc__ctx_fail(ctx, SC_ERR_LIMIT,
                            "expression too large (it would print to more "
                            "than %llu characters)",
                            (unsigned long long)SC__TEXT_LIMIT);
    if (p->kind == SC_EXPR_INT && p->u.value.big)
        nbig = 1;
    if (p->kind == SC_EXPR_ADD) {
        nbig += p->u.value.big != NULL;
        for (i = 0; i < p->nargs; i++)
            nbig += p->coefs[i].big != NULL;
    }
    if (nbig) {
        items = ctx->bigs;
        if (!sc__grow(&items, &ctx->bigs_cap, ctx->nbigs + nbig,
                      sizeof(mpz_ptr)))
            return sc__ctx_nomem(ctx);
        ctx->bigs = items;
    }
    if (p->kind == SC_EXPR_SYMBOL) {
        items = ctx->symbols;
        if (!sc__grow(&items, &ctx->symbols_cap, ctx->nsymbols + 1,
                      sizeof(sc_expr *)))
            return sc__ctx_nomem(ctx);
        ctx->symbols = items;
        name_len = strlen(p->u.sym.name);
    }

    off_args = align16(sizeof *e);
    off_coefs = off_args + align16((size_t)p->nargs * sizeof(sc_expr *));
    off_exps = off_coefs;
    if (p->kind == SC_EXPR_ADD)
        off_exps += align16((size_t)p->nargs * sizeof(sc__int));
    off_bigs = off_exps;
    if (p->kind == SC_EXPR_MUL)
        off_bigs += align16((size_t)p->nargs * sizeof(uint64_t));
    off_name = off_bigs + align16(nbig * sizeof(__mpz_struct));
    need = off_name + name_len + 1;
    if (p->kind == SC_EXPR_SYMBOL)
        need += sizeof(sym_key); /* the key precedes the name */
    mem = sc__arena_alloc_fast(&ctx->arena, need);
    if (!mem)
        return sc__ctx_nomem(ctx);

    e = (sc_expr *)mem;
    *e = *p;
    e->hash = h;
    e->text = text;
    e->chain = NULL;
    e->args = p->nargs ? (sc_expr **)(mem + off_args) : NULL;
    e->coefs = NULL;
    e->exps = NULL;
    /* Loops rather than memcpy: the arrays are short. */
    for (i = 0; i < p->nargs; i++)
        e->args[i] = p->args[i];
    if (p->kind == SC_EXPR_ADD) {
        e->coefs = (sc__int *)(mem + off_coefs);
        for (i = 0; i < p->nargs; i++)
            e->coefs[i] = p->coefs[i];
    } else if (p->kind == SC_EXPR_MUL) {
        e->exps = (uint64_t *)(mem + off_exps);
        for (i = 0; i < p->nargs; i++)
            e->exps[i] = p->exps[i];
    }
    if (nbig) {
        __mpz_struct *m = (__mpz_struct *)(mem + off_bigs);
        if (e->u.value.big && !own_big(ctx, &e->u.value, m++))
            return sc__ctx_nomem(ctx);
        if (p->kind == SC_EXPR_ADD)
            for (i = 0; i < p->nargs; i++)
                if (e->coefs[i].big && !own_big(ctx, &e->coefs[i], m++))
                    return sc__ctx_nomem(ctx);
    }
    if (p->kind == SC_EXPR_SYMBOL) {
        char *name = (char *)(mem + off_name + sizeof(sym_key));
        sym_key_init((sym_key *)(mem + off_name), p->u.sym.name, name_len);
        memcpy(name, p->u.sym.name, name_len + 1);
        e->u.sym.name = name;
        e->u.sym.index = ctx->nsymbols;
        ctx->symbols[ctx->nsymbols++] = e;
    }
    node_metrics(e);

    if (ctx->count >= ctx->table_size)
        table_grow(ctx);
    b = h & (ctx->table_size - 1);
    e->chain = ctx->table[b];
    ctx->table[b] = e;
    ctx->count++;
    return e;
}

sc_expr *sc__intern(sc_ctx *ctx, const sc_expr *p)
{
    uint64_t h = content_hash(p);
    sc_expr *e = intern_find(ctx, p, h);
    return e ? e : intern_insert(ctx, p, h);
}

/* ---- The context --------------------------------------------------------- */

static sc_expr *intern_leaf(sc_ctx *ctx, sc_expr_kind kind, int64_t v)
{
    sc_expr p;
    memset(&p, 0, sizeof p);
    p.kind = (uint8_t)kind;
    p.is_bool = kind == SC_EXPR_TRUE || kind == SC_EXPR_FALSE;
    sc__int_set_si(&p.u.value, v);
    return sc__intern(ctx, &p);
}

sc_ctx *sc_ctx_new(void)
{
    sc_ctx *ctx;

    sc__gmp_install();
    ctx = sc__calloc(1, sizeof *ctx);
    if (!ctx)
        return NULL;
    sc__arena_init(&ctx->arena);
    sc_error_init(&ctx->error);
    ctx->expand_limit = 1024;
    ctx->table_size = TABLE_INITIAL;
    ctx->table = sc__calloc(ctx->table_size, sizeof *ctx->table);
    ctx->scratch_first = scratch_block_new(SCRATCH_BLOCK);
    ctx->scratch_cur = ctx->scratch_first;
    if (!ctx->table || !ctx->scratch_first)
        goto fail;
    ctx->zero = intern_leaf(ctx, SC_EXPR_INT, 0);
    ctx->one = intern_leaf(ctx, SC_EXPR_INT, 1);
    ctx->minus_one = intern_leaf(ctx, SC_EXPR_INT, -1);
    ctx->true_ = intern_leaf(ctx, SC_EXPR_TRUE, 0);
    ctx->false_ = intern_leaf(ctx, SC_EXPR_FALSE, 0);
    if (!ctx->zero || !ctx->one || !ctx->minus_one || !ctx->true_ ||
        !ctx->false_)
        goto fail;
    return ctx;
fail:
    sc_ctx_free(ctx);
    return NULL;
}

void sc_ctx_free(sc_ctx *ctx)
{
    struct sc__scratch_block *b, *next;
    size_t i;

    if (!ctx)
        return;
    sc__ranger_free(ctx->rcache);
    sc__free(ctx->opc);
    for (i = 0; i < ctx->nbigs; i++)
        mpz_clear(ctx->bigs[i]);
    for (i = 0; i < ctx->ntmps; i++) {
        mpz_clear(ctx->tmps[i]);
        sc__free(ctx->tmps[i]);
    }
    for (b = ctx->scratch_first; b; b = next) {
        next = b->next;
        sc__free(b);
    }
    sc__free(ctx->tmps);
    sc__free(ctx->bigs);
    sc__free(ctx->symbols);
    sc__free(ctx->table);
    sc__arena_destroy(&ctx->arena);
    sc__free(ctx);
}

size_t sc_ctx_node_count(const sc_ctx *ctx) { return ctx->count; }
size_t sc_ctx_expand_limit(const sc_ctx *ctx) { return ctx->expand_limit; }

void sc_ctx_set_expand_limit(sc_ctx *ctx, size_t limit)
{
    if (limit != ctx->expand_limit && ctx->opc)
        memset(ctx->opc, 0, ((size_t)1 << ctx->opc_bits) * sizeof *ctx->opc);
    ctx->expand_limit = limit;
}

/* ---- The operation cache ------------------------------------------------- */

/* Called by sc__opc_put3 when the cache is missing or must grow (its
 * store counter already counts this store). */
void sc__opc_put_slow(sc_ctx *ctx, unsigned op, const sc_expr *a,
                      const sc_expr *b, const sc_expr *c, sc_expr *r)
{
    struct sc__opc_entry *x;
    unsigned bits = ctx->opc ? ctx->opc_bits + 1 : SC__OPC_MIN_BITS;
    struct sc__opc_entry *n = sc__calloc((size_t)1 << bits, sizeof *n);

    if (!n) {
        if (!ctx->opc)
            return; /* no cache: every call builds */
    } else {
        sc__free(ctx->opc);
        ctx->opc = n;
        ctx->opc_bits = bits;
    }
    ctx->opc_puts = 0;
    x = &ctx->opc[sc__opc_slot(ctx->opc_bits, op, a, b, c)];
    x->op = op;
    x->a = a;
    x->b = b;
    x->c = c;
    x->r = r;
}

size_t sc_ctx_symbol_count(const sc_ctx *ctx) { return ctx->nsymbols; }

sc_expr *sc_ctx_symbol(const sc_ctx *ctx, size_t index)
{
    return index < ctx->nsymbols ? ctx->symbols[index] : NULL;
}

/* ---- Symbols ------------------------------------------------------------- */

static const char *const reserved_words[] = {
    "True", "False", "and", "or", "not", "None", "inf",
    "FloorDiv", "CeilDiv", "Mod", "PythonMod", "Min", "Max", "Pow",
    "Eq", "Ne", "Lt", "Le", "Gt", "Ge", "And", "Or", "Not",
};

static bool is_ident_start(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

static bool same_name(const sc_expr *e, const char *name, size_t len)
{
    size_t i;
    if (sc__symbol_len(e) != len)
        return false;
    for (i = 0; i < len; i++)
        if (e->u.sym.name[i] != name[i])
            return false;
    return true;
}

sc_expr *sc__symbol_find(sc_ctx *ctx, const char *name, size_t len)
{
    uint64_t h;
    sc_expr *e;
    size_t i, slot;

    if (len == 0)
        return NULL;
    slot = (len * 7 + (unsigned char)name[0] * 3 +
            (unsigned char)name[len - 1]) & (SC__NAME_CACHE - 1);
    e = ctx->name_cache[slot];
    if (e && same_name(e, name, len))
        return e;
    h = hmix(hmix(UINT64_C(0x243f6a8885a308d3) + SC_EXPR_SYMBOL, 0),
             name_hash_n(name, len));

    for (e = ctx->table[h & (ctx->table_size - 1)]; e; e = e->chain) {
        if (e->hash != h || e->kind != SC_EXPR_SYMBOL ||
            sc__symbol_len(e) != len)
            continue;
        for (i = 0; i < len && e->u.sym.name[i] == name[i]; i++)
            ;
        if (i == len) {
            ctx->name_cache[slot] = e;
            return e;
        }
    }
    return NULL;
}

sc_expr *sc_expr_symbol(sc_ctx *ctx, const char *name)
{
    sc_expr p, *e;
    const char *s;
    size_t i;
    uint64_t h;

    if (!name)
        return NULL;
    memset(&p, 0, sizeof p);
    p.kind = SC_EXPR_SYMBOL;
    p.u.sym.name = name;
    h = content_hash(&p);
    e = intern_find(ctx, &p, h);
    if (e)
        return e;
    if (!is_ident_start(name[0]))
        return sc__ctx_fail(ctx, SC_ERR_INVALID,
                            "invalid symbol name '%s'", name);
    for (s = name + 1; *s; s++)
        if (!is_ident_start(*s) && !(*s >= '0' && *s <= '9'))
            return sc__ctx_fail(ctx, SC_ERR_INVALID,
                                "invalid symbol name '%s'", name);
    for (i = 0; i < sizeof reserved_words / sizeof *reserved_words; i++)
        if (strcmp(name, reserved_words[i]) == 0)
            return sc__ctx_fail(ctx, SC_ERR_INVALID,
                                "'%s' is a reserved word, not a symbol name",
                                name);
    return intern_insert(ctx, &p, h);
}

/* ---- Inspection ---------------------------------------------------------- */

sc_expr_kind sc_expr_node_kind(const sc_expr *e) { return e->kind; }
bool sc_expr_is_bool(const sc_expr *e) { return e->is_bool; }
bool sc_expr_is_int(const sc_expr *e) { return e->kind == SC_EXPR_INT; }
bool sc_expr_is_symbol(const sc_expr *e) { return e->kind == SC_EXPR_SYMBOL; }

bool sc_expr_value_si(const sc_expr *e, int64_t *out)
{
    if (e->kind != SC_EXPR_INT || e->u.value.big)
        return false;
    if (out)
        *out = e->u.value.small;
    return true;
}

void sc_expr_value_mpz(const sc_expr *e, mpz_ptr out)
{
    if (e->kind == SC_EXPR_INT)
        sc__int_get_mpz(&e->u.value, out);
    else
        mpz_set_ui(out, 0);
}

const char *sc_expr_symbol_name(const sc_expr *e)
{
    return e->kind == SC_EXPR_SYMBOL ? e->u.sym.name : NULL;
}

size_t sc_expr_symbol_index(const sc_expr *e)
{
    return e->kind == SC_EXPR_SYMBOL ? e->u.sym.index : (size_t)-1;
}

size_t sc_expr_arg_count(const sc_expr *e) { return e->nargs; }

sc_expr *sc_expr_arg(const sc_expr *e, size_t i)
{
    return i < e->nargs ? e->args[i] : NULL;
}

void sc_expr_add_coef(const sc_expr *e, size_t i, mpz_ptr out)
{
    if (e->kind == SC_EXPR_ADD && i < e->nargs)
        sc__int_get_mpz(&e->coefs[i], out);
    else
        mpz_set_ui(out, 0);
}

void sc_expr_add_constant(const sc_expr *e, mpz_ptr out)
{
    if (e->kind == SC_EXPR_ADD || e->kind == SC_EXPR_INT)
        sc__int_get_mpz(&e->u.value, out);
    else
        mpz_set_ui(out, 0);
}

uint64_t sc_expr_mul_exponent(const sc_expr *e, size_t i)
{
    if (e->kind == SC_EXPR_MUL && i < e->nargs)
        return e->exps[i];
    return 0;
}

int sc_expr_add_coef_sign(const sc_expr *e, size_t i)
{
    if (e->kind == SC_EXPR_ADD && i < e->nargs)
        return sc__int_sgn(&e->coefs[i]);
    return 0;
}

unsigned sc_expr_degree(const sc_expr *e) { return e->degree; }

uint64_t sc_expr_hash(const sc_expr *e) { return e->hash; }

/* ---- The canonical order ------------------------------------------------- */

/* Natural order of names: the part before the trailing digits by bytes,
 * then the trailing digits as a number (none sorts first), then the whole
 * name by bytes (so "s01" and "s1" differ). */
static int name_cmp(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), pa = la, pb = lb, da, db;
    const char *na, *nb;
    int c;

    while (pa > 0 && a[pa - 1] >= '0' && a[pa - 1] <= '9')
        pa--;
    while (pb > 0 && b[pb - 1] >= '0' && b[pb - 1] <= '9')
        pb--;
    c = memcmp(a, b, pa < pb ? pa : pb);
    if (c)
        return c < 0 ? -1 : 1;
    if (pa != pb)
        return pa < pb ? -1 : 1;
    if ((pa == la) != (pb == lb))
        return pa == la ? -1 : 1;
    na = a + pa;
    nb = b + pb;
    while (*na == '0' && na[1])
        na++;
    while (*nb == '0' && nb[1])
        nb++;
    da = strlen(na);
    db = strlen(nb);
    if (da != db)
        return da < db ? -1 : 1;
    c = strcmp(na, nb);
    if (c)
        return c < 0 ? -1 : 1;
    c = strcmp(a, b);
    return (c > 0) - (c < 0);
}

/* name_cmp of two interned symbols, from their keys when they decide. */
static int symbol_cmp(const sc_expr *a, const sc_expr *b)
{
    const sym_key *ka = sym_key_of(a), *kb = sym_key_of(b);
    uint32_t m = ka->plen < kb->plen ? ka->plen : kb->plen, i;
    const unsigned char *na = (const unsigned char *)a->u.sym.name;
    const unsigned char *nb = (const unsigned char *)b->u.sym.name;

    /* memcmp of the prefixes, inline: they are short ("s"). */
    for (i = 0; i < m; i++)
        if (na[i] != nb[i])
            return na[i] < nb[i] ? -1 : 1;
    if (ka->plen != kb->plen)
        return ka->plen < kb->plen ? -1 : 1;
    if (ka->has_digits != kb->has_digits)
        return ka->has_digits ? 1 : -1;
    if (ka->num_ok && kb->num_ok && ka->num != kb->num)
        return ka->num < kb->num ? -1 : 1;
    return name_cmp(a->u.sym.name, b->u.sym.name);
}

int sc_expr_cmp(const sc_expr *a, const sc_expr *b)
{
    uint32_t i, n;
    int c;

    if (a == b)
        return 0;
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    switch (a->kind) {
    case SC_EXPR_INT:
        return sc__int_cmp(&a->u.value, &b->u.value);
    case SC_EXPR_SYMBOL:
        return symbol_cmp(a, b);
    default:
        break;
    }
    n = a->nargs < b->nargs ? a->nargs : b->nargs;
    for (i = 0; i < n; i++) {
        c = sc_expr_cmp(a->args[i], b->args[i]);
        if (c)
            return c;
        if (a->kind == SC_EXPR_ADD) {
            c = sc__int_cmp(&a->coefs[i], &b->coefs[i]);
            if (c)
                return c;
        } else if (a->kind == SC_EXPR_MUL && a->exps[i] != b->exps[i]) {
            /* Higher powers first: s0**2 before s0*s1. */
            return a->exps[i] > b->exps[i] ? -1 : 1;
        }
    }
    if (a->nargs != b->nargs)
        return a->nargs < b->nargs ? -1 : 1;
    if (a->kind == SC_EXPR_ADD)
        return sc__int_cmp(&a->u.value, &b->u.value);
    return 0;
}

/* ---- Traversals ---------------------------------------------------------- */

/* A set of nodes (open addressing) with a value per node, for walks over
 * the DAG that visit each distinct node once. */
typedef struct node_map {
    const sc_expr **keys;
    uint64_t *vals;
    size_t cap, count;
} node_map;

static bool map_init(node_map *m)
{
    m->cap = 64;
    m->count = 0;
    m->keys = sc__calloc(m->cap, sizeof *m->keys);
    m->vals = sc__calloc(m->cap, sizeof *m->vals);
    if (!m->keys || !m->vals) {
        sc__free(m->keys);
        sc__free(m->vals);
        return false;
    }
    return true;
}

static void map_free(node_map *m)
{
    sc__free(m->keys);
    sc__free(m->vals);
}

/* The slot of e (found or empty). */
static size_t map_slot(const node_map *m, const sc_expr *e)
{
    size_t i = (size_t)e->hash & (m->cap - 1);
    while (m->keys[i] && m->keys[i] != e)
        i = (i + 1) & (m->cap - 1);
    return i;
}

static bool map_put(node_map *m, const sc_expr *e, uint64_t v)
{
    size_t i;
    if ((m->count + 1) * 2 > m->cap) {
        node_map n;
        size_t j;
        n.cap = m->cap * 2;
        n.count = m->count;
        n.keys = sc__calloc(n.cap, sizeof *n.keys);
        n.vals = sc__calloc(n.cap, sizeof *n.vals);
        if (!n.keys || !n.vals) {
            sc__free(n.keys);
            sc__free(n.vals);
            return false;
        }
        for (j = 0; j < m->cap; j++) {
            if (m->keys[j]) {
                i = map_slot(&n, m->keys[j]);
                n.keys[i] = m->keys[j];
                n.vals[i] = m->vals[j];
            }
        }
        map_free(m);
        *m = n;
    }
    i = map_slot(m, e);
    if (!m->keys[i])
        m->count++;
    m->keys[i] = e;
    m->vals[i] = v;
    return true;
}

static bool map_get(const node_map *m, const sc_expr *e, uint64_t *v)
{
    size_t i = map_slot(m, e);
    if (!m->keys[i])
        return false;
    *v = m->vals[i];
    return true;
}

/* Calls visit(node, data) once per distinct node of e, children before
 * parents, with an explicit stack (no recursion on deep trees).  For
 * sc_expr_size the map holds each node's tree size.  Returns false on
 * exhaustion, or when visit returns false (early stop). */
typedef bool (*visit_fn)(const sc_expr *e, node_map *map, void *data);

static bool walk(const sc_expr *root, visit_fn visit, void *data, bool *ok)
{
    node_map map;
    const sc_expr **stack = NULL;
    uint32_t *next = NULL;
    size_t sp = 0, cap = 0;
    uint64_t dummy;
    bool result = true;

    *ok = false;
    if (!map_init(&map))
        return false;
    cap = 64;
    stack = sc__malloc(cap * sizeof *stack);
    next = sc__malloc(cap * sizeof *next);
    if (!stack || !next)
        goto out;
    stack[0] = root;
    next[0] = 0;
    sp = 1;
    while (sp) {
        const sc_expr *e = stack[sp - 1];
        if (next[sp - 1] < e->nargs) {
            const sc_expr *c = e->args[next[sp - 1]++];
            if (map_get(&map, c, &dummy))
                continue;
            if (sp == cap) {
                void *ns = sc__realloc(stack, 2 * cap * sizeof *stack);
                void *nn;
                if (!ns)
                    goto out;
                stack = ns;
                nn = sc__realloc(next, 2 * cap * sizeof *next);
                if (!nn)
                    goto out;
                next = nn;
                cap *= 2;
            }
            stack[sp] = c;
            next[sp] = 0;
            sp++;
            continue;
        }
        sp--;
        if (map_get(&map, e, &dummy))
            continue;
        if (!visit(e, &map, data)) {
            result = false;
            break;
        }
        if (!map_get(&map, e, &dummy) && !map_put(&map, e, 0))
            goto out;
    }
    *ok = true;
out:
    sc__free(stack);
    sc__free(next);
    map_free(&map);
    return result;
}

typedef struct sym_collect {
    const sc_expr *target;
    const sc_expr **syms;
    size_t count, cap;
    bool failed;
} sym_collect;

static bool visit_has(const sc_expr *e, node_map *map, void *data)
{
    sym_collect *s = data;
    return e != s->target;
}

static bool has_symbol_rec(const sc_expr *e, const sc_expr *sym)
{
    uint32_t i;
    if (e == sym)
        return true;
    for (i = 0; i < e->nargs; i++)
        if (has_symbol_rec(e->args[i], sym))
            return true;
    return false;
}

/* Small expressions are searched recursively, within a budget of visited
 * nodes (shared subtrees are visited once per occurrence); the result is
 * -1 when the budget runs out. */
#define SMALL_WALK_BUDGET 256
#define SMALL_SYMBOLS_MAX 32

static int has_symbol_small(const sc_expr *e, const sc_expr *sym,
                            int *budget)
{
    uint32_t i;
    int r;
    if (e == sym)
        return 1;
    if (--*budget < 0)
        return -1;
    for (i = 0; i < e->nargs; i++)
        if ((r = has_symbol_small(e->args[i], sym, budget)) != 0)
            return r;
    return 0;
}

bool sc_expr_has_symbol(const sc_expr *e, const sc_expr *sym)
{
    sym_collect s;
    bool ok, found;
    int budget = SMALL_WALK_BUDGET, r;

    if (!e || !sym)
        return false;
    if (e->nargs == 0)
        return e == sym;
    r = has_symbol_small(e, sym, &budget);
    if (r >= 0)
        return r == 1;
    memset(&s, 0, sizeof s);
    s.target = sym;
    found = !walk(e, visit_has, &s, &ok);
    if (!ok)
        return has_symbol_rec(e, sym);
    return found;
}

static bool visit_sym(const sc_expr *e, node_map *map, void *data)
{
    sym_collect *s = data;
    void *p = s->syms;
    if (e->kind != SC_EXPR_SYMBOL)
        return true;
    if (!sc__grow(&p, &s->cap, s->count + 1, sizeof *s->syms)) {
        s->failed = true;
        return false;
    }
    s->syms = p;
    s->syms[s->count++] = e;
    return true;
}

static int cmp_sym_index(const void *a, const void *b)
{
    size_t x = (*(const sc_expr *const *)a)->u.sym.index;
    size_t y = (*(const sc_expr *const *)b)->u.sym.index;
    return (x > y) - (x < y);
}

/* Fallback when memory is exhausted: recursion, deduplicating into out
 * (symbols beyond cap are counted with possible repetitions). */
static void free_symbols_rec(const sc_expr *e, sc_expr **out, size_t cap,
                             size_t *count)
{
    uint32_t i;
    size_t j, k;
    if (e->kind == SC_EXPR_SYMBOL) {
        for (j = 0; j < *count && j < cap; j++)
            if (out[j] == e)
                return;
        if (*count >= cap) {
            (*count)++;
            return;
        }
        for (j = *count; j > 0 && out[j - 1]->u.sym.index > e->u.sym.index;
             j--)
            ;
        for (k = *count; k > j; k--)
            out[k] = out[k - 1];
        out[j] = (sc_expr *)e;
        (*count)++;
        return;
    }
    for (i = 0; i < e->nargs; i++)
        free_symbols_rec(e->args[i], out, cap, count);
}

/* Collect the distinct symbols of e into v (sorted by index), within the
 * budget; false when the budget or v's capacity runs out. */
static bool free_symbols_small(const sc_expr *e, const sc_expr **v,
                               size_t *n, int *budget)
{
    uint32_t i;
    size_t j, k;

    if (--*budget < 0)
        return false;
    if (e->kind == SC_EXPR_SYMBOL) {
        for (j = *n; j > 0 && v[j - 1]->u.sym.index > e->u.sym.index; j--)
            ;
        if (j > 0 && v[j - 1] == e)
            return true;
        if (*n == SMALL_SYMBOLS_MAX)
            return false;
        for (k = *n; k > j; k--)
            v[k] = v[k - 1];
        v[j] = e;
        (*n)++;
        return true;
    }
    for (i = 0; i < e->nargs; i++)
        if (!free_symbols_small(e->args[i], v, n, budget))
            return false;
    return true;
}

size_t sc_expr_free_symbols(const sc_expr *e, sc_expr **out, size_t cap)
{
    sym_collect s;
    const sc_expr *small[SMALL_SYMBOLS_MAX];
    size_t i, n = 0;
    int budget = SMALL_WALK_BUDGET;
    bool ok;

    if (e && free_symbols_small(e, small, &n, &budget)) {
        for (i = 0; i < n && i < cap; i++)
            out[i] = (sc_expr *)small[i];
        return n;
    }
    n = 0;

    if (!e)
        return 0;
    if (e->kind == SC_EXPR_SYMBOL) {
        if (cap > 0)
            out[0] = (sc_expr *)e;
        return 1;
    }
    if (e->nargs == 0)
        return 0;
    memset(&s, 0, sizeof s);
    walk(e, visit_sym, &s, &ok);
    if (!ok || s.failed) {
        sc__free(s.syms);
        free_symbols_rec(e, out, cap, &n);
        return n;
    }
    qsort(s.syms, s.count, sizeof *s.syms, cmp_sym_index);
    for (i = 0; i < s.count && i < cap; i++)
        out[i] = (sc_expr *)s.syms[i];
    n = s.count;
    sc__free(s.syms);
    return n;
}

static bool visit_size(const sc_expr *e, node_map *map, void *data)
{
    uint64_t s = 1, v = 0;
    uint32_t i;
    for (i = 0; i < e->nargs; i++) {
        map_get(map, e->args[i], &v);
        s = s + v < s ? UINT64_MAX : s + v;
    }
    *(uint64_t *)data = s;
    return map_put(map, e, s);
}

static uint64_t size_rec(const sc_expr *e)
{
    uint64_t s = 1, v;
    uint32_t i;
    for (i = 0; i < e->nargs; i++) {
        v = size_rec(e->args[i]);
        s = s + v < s ? UINT64_MAX : s + v;
    }
    return s;
}

size_t sc_expr_size(const sc_expr *e)
{
    uint64_t s = 1;
    bool ok;
    if (!e)
        return 0;
    if (e->nargs == 0)
        return 1;
    if (!walk(e, visit_size, &s, &ok) || !ok)
        s = size_rec(e);
    return s > SIZE_MAX ? SIZE_MAX : (size_t)s;
}
