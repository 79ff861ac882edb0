/* symcut — the graph IR's core: dtypes and friends, values, the graph
 * object and its storage (name table, target set), validation and the
 * users index, queries, symbols and hints, comparison.  Nodes are added by
 * the builder (graph/builder.c). */
#include <config.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph-internal.h"
#include "graph/graph-names.h"
#include "graph/ops.h"

/* ---- dtypes, devices, layouts, memory formats ------------------------- */

static const struct {
    const char *code, *torch;
    size_t size;
    char kind;
} dtype_info[] = {
#define SC__DTYPE_INFO(name, code, torch, size, kind) {code, torch, size, kind},
    SC_DTYPE_MAP(SC__DTYPE_INFO)
#undef SC__DTYPE_INFO
};

const char *sc_dtype_code(sc_dtype d)
{
    return (unsigned)d < SC_DTYPE_COUNT_ ? dtype_info[d].code : NULL;
}

const char *sc_dtype_torch_name(sc_dtype d)
{
    return (unsigned)d < SC_DTYPE_COUNT_ ? dtype_info[d].torch : NULL;
}

size_t sc_dtype_itemsize(sc_dtype d)
{
    return (unsigned)d < SC_DTYPE_COUNT_ ? dtype_info[d].size : 0;
}

char sc_dtype_kind(sc_dtype d)
{
    return (unsigned)d < SC_DTYPE_COUNT_ ? dtype_info[d].kind : 0;
}

static bool span_is(const char *s, size_t n, const char *word)
{
    return strlen(word) == n && memcmp(s, word, n) == 0;
}

bool sc_dtype_from_code(const char *code, size_t n, sc_dtype *out)
{
    int i;
    for (i = 0; i < SC_DTYPE_COUNT_; i++)
        if (span_is(code, n, dtype_info[i].code)) {
            *out = (sc_dtype)i;
            return true;
        }
    return false;
}

bool sc_dtype_from_torch_name(const char *name, size_t n, sc_dtype *out)
{
    static const struct {
        const char *alias;
        sc_dtype dtype;
    } aliases[] = {
        {"float", SC_DTYPE_F32},   {"double", SC_DTYPE_F64},
        {"half", SC_DTYPE_F16},    {"cfloat", SC_DTYPE_C64},
        {"cdouble", SC_DTYPE_C128}, {"chalf", SC_DTYPE_C32},
        {"long", SC_DTYPE_I64},    {"int", SC_DTYPE_I32},
        {"short", SC_DTYPE_I16},
    };
    size_t i;
    for (i = 0; i < SC_DTYPE_COUNT_; i++)
        if (span_is(name, n, dtype_info[i].torch)) {
            *out = (sc_dtype)i;
            return true;
        }
    for (i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (span_is(name, n, aliases[i].alias)) {
            *out = aliases[i].dtype;
            return true;
        }
    return false;
}

static const char *const device_names[] = {
#define SC__DEVICE_NAME(name, str) str,
    SC_DEVICE_TYPE_MAP(SC__DEVICE_NAME)
#undef SC__DEVICE_NAME
};

const char *sc_device_type_name(sc_device_type t)
{
    return (unsigned)t < SC_DEVICE_TYPE_COUNT_ ? device_names[t] : NULL;
}

bool sc_device_type_from_name(const char *name, size_t n, sc_device_type *out)
{
    int i;
    for (i = 0; i < SC_DEVICE_TYPE_COUNT_; i++)
        if (span_is(name, n, device_names[i])) {
            *out = (sc_device_type)i;
            return true;
        }
    return false;
}

static const char *const layout_names[] = {
#define SC__LAYOUT_NAME(name, str) str,
    SC_LAYOUT_MAP(SC__LAYOUT_NAME)
#undef SC__LAYOUT_NAME
};

static const char *const memfmt_names[] = {
#define SC__MEMFMT_NAME(name, str) str,
    SC_MEMORY_FORMAT_MAP(SC__MEMFMT_NAME)
#undef SC__MEMFMT_NAME
};

const char *sc_layout_name(sc_layout l)
{
    return (unsigned)l < SC_LAYOUT_COUNT_ ? layout_names[l] : NULL;
}

const char *sc_memory_format_name(sc_memory_format f)
{
    return (unsigned)f < SC_MEMORY_FORMAT_COUNT_ ? memfmt_names[f] : NULL;
}

/* ---- Values ------------------------------------------------------------ */

sc_value sc_value_none(void)
{
    sc_value v;
    memset(&v, 0, sizeof v);
    v.kind = SC_VALUE_NONE;
    return v;
}

sc_value sc_value_node(sc_node_id id)
{
    sc_value v = sc_value_none();
    v.kind = SC_VALUE_NODE;
    v.u.node = id;
    return v;
}

sc_value sc_value_int(int64_t i)
{
    sc_value v = sc_value_none();
    v.kind = SC_VALUE_INT;
    v.u.i = i;
    return v;
}

sc_value sc_value_float(double value, const char *repr)
{
    sc_value v = sc_value_none();
    v.kind = SC_VALUE_FLOAT;
    v.u.f.value = value;
    v.u.f.repr = repr;
    return v;
}

sc_value sc_value_bool(bool b)
{
    sc_value v = sc_value_none();
    v.kind = SC_VALUE_BOOL;
    v.u.b = b;
    return v;
}

sc_value sc_value_list(size_t n, const sc_value *items)
{
    sc_value v = sc_value_none();
    v.kind = SC_VALUE_LIST;
    v.u.list.n = n;
    v.u.list.items = items;
    return v;
}

void sc_result_init(sc_result *r)
{
    memset(r, 0, sizeof *r);
    r->kind = SC_RESULT_UNKNOWN;
}

/* ---- The graph object -------------------------------------------------- */

sc_graph *sc_graph_new(sc_ctx *ctx)
{
    sc_graph *g;
    if (!ctx)
        return NULL;
    g = sc__calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->ctx = ctx;
    sc__arena_init(&g->arena);
    return g;
}

void sc__graph_invalidate_users(sc_graph *g)
{
    if (!g->user_off && !g->users && !g->output_uses) {
        g->users_valid = false;
        return;
    }
    sc__free(g->user_off);
    sc__free(g->users);
    sc__free(g->output_uses);
    g->user_off = NULL;
    g->users = NULL;
    g->output_uses = NULL;
    g->users_valid = false;
}

void sc_graph_free(sc_graph *g)
{
    size_t i;
    if (!g)
        return;
    sc__graph_invalidate_users(g);
    sc__shape_memo_free(g->shape_memo);
    sc__free(g->nodes);
    sc__free(g->name_slots);
    sc__free(g->targets);
    sc__free(g->target_ops);
    sc__free(g->target_slots);
    sc__free(g->outputs);
    sc__free(g->hints);
    sc__free(g->directives);
    for (i = 0; i < g->nwarnings; i++)
        sc__free(g->warnings[i]);
    sc__free(g->warnings);
    if (g->owns_env)
        sc_env_free(g->env);
    sc__arena_destroy(&g->arena);
    sc__free(g);
}

sc_ctx *sc_graph_ctx(const sc_graph *g) { return g->ctx; }

void sc_graph_set_env(sc_graph *g, sc_env *env)
{
    if (g->owns_env && g->env != env)
        sc_env_free(g->env);
    g->owns_env = false;
    g->env = env;
}

sc_env *sc_graph_env(const sc_graph *g) { return g->env; }

const char *sc_graph_class_name(const sc_graph *g)
{
    if (g->class_name)
        return g->class_name;
    if (sc_graph_get_kind(g) == SC_GRAPH_KIND_BACKWARD)
        return "backward_fn";
    return g->ntangents ? "joint_fn" : "forward_fn";
}

bool sc__graph_is_identifier(const char *s)
{
    const char *p = s;
    if (!s || !((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                *p == '_'))
        return false;
    for (p++; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
              (*p >= '0' && *p <= '9') || *p == '_'))
            return false;
    return true;
}

/* `<lambda>`: the class name PyTorch prints for a lambda's graph. */
static bool is_bracketed_identifier(const char *s)
{
    size_t n = strlen(s);
    char buf[72];
    if (n < 3 || n > 66 || s[0] != '<' || s[n - 1] != '>')
        return false;
    memcpy(buf, s + 1, n - 2);
    buf[n - 2] = '\0';
    return sc__graph_is_identifier(buf);
}

sc_status sc_graph_set_class_name(sc_graph *g, const char *name,
                                  sc_error *err)
{
    char *copy;
    if (!name) {
        g->class_name = NULL;
        return SC_OK;
    }
    if (!sc__graph_is_identifier(name) && !is_bracketed_identifier(name))
        return sc__error_set(err, SC_ERR_INVALID,
                             "class name '%s' is not an identifier", name);
    copy = sc__arena_strdup(&g->arena, name, strlen(name));
    if (!copy)
        return sc__error_nomem(err);
    g->class_name = copy;
    return SC_OK;
}

bool sc__graph_warn(sc_graph *g, const char *fmt, ...)
{
    sc__buf b;
    va_list ap;
    char *s;
    void *items = g->warnings;
    int n;

    if (!sc__grow(&items, &g->warnings_cap, g->nwarnings + 1,
                  sizeof(char *)))
        return false;
    g->warnings = items;
    sc__buf_init(&b);
    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return false;
    s = sc__malloc((size_t)n + 1);
    if (!s)
        return false;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    g->warnings[g->nwarnings++] = s;
    return true;
}

size_t sc_graph_warning_count(const sc_graph *g) { return g->nwarnings; }

const char *sc_graph_warning(const sc_graph *g, size_t i)
{
    return i < g->nwarnings ? g->warnings[i] : NULL;
}

/* ---- Names ------------------------------------------------------------- */

/* FNV-1a's low bits depend only on the low bits of the bytes: names
 * that differ in one digit (mm_12, mm_13) share long probe runs without
 * a final mix. */
static inline uint64_t hash_mix(uint64_t h)
{
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ull;
    return h ^ (h >> 29);
}

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return hash_mix(h);
}

/* Automatic names (sc__graph_auto_name): the name table's block holds,
 * after its name_cap slots, a hash set of counters, base -> next: base,
 * base_1, ..., base_{next-1} are all taken (base in the arena; next = 0
 * says nothing).  Names only disappear through
 * sc__graph_name_table_remove, which lowers the counter they belong to,
 * so a counter never claims a free name (but for the name
 * sc__graph_auto_name just returned, which its caller adds at once). */
typedef struct name_counter {
    const char *base;
    size_t next;
} name_counter;

typedef struct name_counters {
    size_t count, cap; /* cap: a power of two; at most half full */
    name_counter items[];
} name_counters;

/* The name table's slots are pairs of uint32_t: the node id + 1 (0 = an
 * empty slot) and the low half of the name's hash (its tag), so that a
 * probe reads a node's name only when the tags agree, and a resize finds
 * the new homes without reading names (a table has at most 2^32 slots:
 * ids are below INT32_MAX and it is at most half full). */
static size_t counters_offset(size_t ncap)
{
    return (ncap * 2 * sizeof(uint32_t) + 15) & ~(size_t)15;
}

static name_counters *counters_of(const sc_graph *g)
{
    if (!g->name_cap)
        return NULL;
    return (name_counters *)(void *)((char *)g->name_slots +
                                     counters_offset(g->name_cap));
}

/* The counter of base (n bytes), or the empty item where it goes. */
static name_counter *counter_slot(name_counters *c, const char *base,
                                  size_t n, uint64_t h)
{
    size_t j = h & (c->cap - 1);
    while (c->items[j].base && (strncmp(c->items[j].base, base, n) != 0 ||
                                c->items[j].base[n] != '\0'))
        j = (j + 1) & (c->cap - 1);
    return &c->items[j];
}

static uint64_t hash_span(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a, as hash_str */
    for (; n > 0; s++, n--) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return hash_mix(h);
}

/* The hash of a node name (the name table's; n bytes at s).  The names
 * PyTorch and the builders make are base_N, made in order of N, and most
 * lookups ask for a recent one: base_N hashes as (base, N / 8) with N % 8
 * in the low bits, so eight consecutive names of a base share one cache
 * line of slots (eight of eight bytes), and the lookup of a recent name,
 * the check that a new one is free and its insertion find that line in
 * the cache instead of a random one.  Other names hash as base_0. */
static uint64_t name_hash(const char *s, size_t n)
{
    size_t i = n, k, t, base = n;
    uint64_t num = 0, h, w;

    while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')
        i--;
    if (i < n && i >= 2 && s[i - 1] == '_' && n - i <= 9 &&
        (s[i] != '0' || n - i == 1)) {
        for (k = i; k < n; k++)
            num = num * 10 + (uint64_t)(s[k] - '0');
        base = i - 1;
    }
    /* the base eight bytes at a time (one multiply a word, not one a
     * byte: the hash is in every lookup and insertion), the last word
     * zero-padded, the length mixed in first */
    h = 1469598103934665603ull ^ (uint64_t)base;
    for (k = 0; k + 8 <= base; k += 8) {
        memcpy(&w, s + k, 8);
        h = (h ^ w) * 0x9e3779b97f4a7c15ull;
        h ^= h >> 32;
    }
    if (k < base) {
        for (w = 0, t = base; t > k; t--)
            w = w << 8 | (unsigned char)s[t - 1];
        h = (h ^ w) * 0x9e3779b97f4a7c15ull;
        h ^= h >> 32;
    }
    h = hash_mix(h + (num >> 3) * 0x9e3779b97f4a7c15ull);
    return (h & ~(uint64_t)7) | (num & 7);
}

/* Rehash the name table into ncap slots (a power of two holding every
 * entry), with the counters. */
bool sc__graph_name_table_resize(sc_graph *g, size_t ncap)
{
    size_t i, j, off, ccap;
    uint32_t *slots;
    name_counters *c, *old = counters_of(g);

    ccap = ncap / 8 < 16 ? 16 : ncap / 8;
    off = counters_offset(ncap);
    if ((uint64_t)ncap > ((uint64_t)1 << 32) || ncap > SIZE_MAX / 16 ||
        ccap > (SIZE_MAX - off - sizeof *c) /
                                           sizeof c->items[0])
        return false;
    slots = sc__calloc(1, off + sizeof *c + ccap * sizeof c->items[0]);
    if (!slots)
        return false;
    for (i = 0; i < g->name_cap; i++) {
        uint32_t id1 = g->name_slots[2 * i], tag = g->name_slots[2 * i + 1];
        if (!id1)
            continue;
        j = tag & (ncap - 1);
        while (slots[2 * j])
            j = (j + 1) & (ncap - 1);
        slots[2 * j] = id1;
        slots[2 * j + 1] = tag;
    }
    c = (name_counters *)(void *)((char *)slots + off);
    c->cap = ccap;
    for (i = 0; old && i < old->cap; i++) {
        const char *b = old->items[i].base;
        if (b && c->count < ccap / 2) {
            size_t n = strlen(b);
            *counter_slot(c, b, n, hash_span(b, n)) = old->items[i];
            c->count++;
        }
    }
    sc__free(g->name_slots);
    g->name_slots = slots;
    g->name_cap = ncap;
    return true;
}
bool sc__graph_name_table_grow(sc_graph *g)
{
    if (g->name_cap > SIZE_MAX / 4)
        return false;
    return sc__graph_name_table_resize(g, g->name_cap ? g->name_cap * 2 : 64);
}

/* The node named by the n bytes at name (hash h), or SC_NODE_NONE. */
static sc_node_id find_span(const sc_graph *g, const char *name, size_t n,
                            uint64_t h)
{
    size_t j, mask;
    uint32_t tag = (uint32_t)h;
    if (!g->name_cap)
        return SC_NODE_NONE;
    mask = g->name_cap - 1;
    for (j = h & mask; g->name_slots[2 * j]; j = (j + 1) & mask) {
        const char *s;
        if (g->name_slots[2 * j + 1] != tag)
            continue;
        s = g->nodes[g->name_slots[2 * j] - 1].name;
        if (memcmp(s, name, n) == 0 && s[n] == '\0')
            return (sc_node_id)(g->name_slots[2 * j] - 1);
    }
    /* copies not indexed yet (sc__graph_append_copy) */
    for (j = g->nnamed; j < g->nnodes; j++) {
        const char *s = g->nodes[j].name;
        if (strncmp(s, name, n) == 0 && s[n] == '\0')
            return (sc_node_id)j;
    }
    return SC_NODE_NONE;
}

sc_node_id sc_graph_find(const sc_graph *g, const char *name)
{
    size_t n;
    if (!g->name_cap || !name)
        return SC_NODE_NONE;
    n = strlen(name);
    return find_span(g, name, n, name_hash(name, n));
}

sc_node_id sc__graph_find_span(const sc_graph *g, const char *name,
                               size_t n)
{
    if (!g->name_cap)
        return SC_NODE_NONE;
    return find_span(g, name, n, name_hash(name, n));
}

static void name_table_put(sc_graph *g, sc_node_id id)
{
    const char *name = g->nodes[id].name;
    uint64_t h = name_hash(name, strlen(name));
    size_t j = h & (g->name_cap - 1);
    while (g->name_slots[2 * j])
        j = (j + 1) & (g->name_cap - 1);
    g->name_slots[2 * j] = (uint32_t)id + 1;
    g->name_slots[2 * j + 1] = (uint32_t)h;
}

void sc__graph_index_names(sc_graph *g)
{
    for (; g->nnamed < g->nnodes; g->nnamed++)
        name_table_put(g, (sc_node_id)g->nnamed);
}

/* base_k (base alone for k = 0) into cand (room for n + 22 bytes); its
 * length. */
static size_t numbered_name(char *cand, const char *base, size_t n,
                            size_t k)
{
    char digits[24];
    size_t nd = 0;
    memcpy(cand, base, n);
    if (k == 0) {
        cand[n] = '\0';
        return n;
    }
    while (k) {
        digits[nd++] = (char)('0' + k % 10);
        k /= 10;
    }
    cand[n++] = '_';
    while (nd)
        cand[n++] = digits[--nd];
    cand[n] = '\0';
    return n;
}

char *sc__graph_auto_name(sc_graph *g, const char *base)
{
    char cand[96];
    size_t k, len, n = strlen(base);
    name_counters *c = counters_of(g);
    name_counter *slot = NULL;
    uint64_t h;

    if (n > sizeof cand - 24)
        n = sizeof cand - 24; /* bases are shorter (builder.c: 63) */
    h = hash_span(base, n);
    if (c) {
        slot = counter_slot(c, base, n, h);
        if (!slot->base && c->count >= c->cap / 2)
            slot = NULL; /* full: probe from the start */
    }
    k = slot ? slot->next : 0;
    for (;; k++) {
        len = numbered_name(cand, base, n, k);
        if (find_span(g, cand, len, name_hash(cand, len)) == SC_NODE_NONE)
            break;
    }
    if (slot) {
        if (!slot->base) {
            const char *b = sc__arena_strdup(&g->arena, base, n);
            if (!b)
                return NULL;
            slot->base = b;
            c->count++;
        }
        slot->next = k + 1; /* the caller adds the node (see the header) */
    }
    return sc__arena_strdup(&g->arena, cand, len);
}

/* Lower the counter that name (taken until now) belongs to: as base_j of
 * its prefix, or as a base itself (j = 0). */
static void counters_forget(sc_graph *g, const char *name)
{
    name_counters *c = counters_of(g);
    name_counter *slot;
    const char *us;
    size_t n, j = 0;

    if (!c)
        return;
    n = strlen(name);
    slot = counter_slot(c, name, n, hash_span(name, n));
    if (slot->base)
        slot->next = 0;
    us = strrchr(name, '_');
    if (!us || us == name || us[1] < '1' || us[1] > '9')
        return;
    for (n = 1; us[n]; n++) {
        if (us[n] < '0' || us[n] > '9' || j > (SIZE_MAX - 9) / 10)
            return;
        j = j * 10 + (size_t)(us[n] - '0');
    }
    n = (size_t)(us - name);
    slot = counter_slot(c, name, n, hash_span(name, n));
    if (slot->base && slot->next > j)
        slot->next = j;
}

/* Remove the last node's name-table entry (backward-shift deletion). */
void sc__graph_name_table_remove(sc_graph *g, sc_node_id id)
{
    size_t mask = g->name_cap - 1, i, j, k;

    counters_forget(g, g->nodes[id].name);
    if ((size_t)id >= g->nnamed)
        return;
    g->nnamed = (size_t)id;
    i = name_hash(g->nodes[id].name, strlen(g->nodes[id].name)) & mask;
    while (g->name_slots[2 * i] != (uint32_t)id + 1) {
        if (!g->name_slots[2 * i])
            return;
        i = (i + 1) & mask;
    }
    g->name_slots[2 * i] = 0;
    for (j = (i + 1) & mask; g->name_slots[2 * j]; j = (j + 1) & mask) {
        k = g->name_slots[2 * j + 1] & mask;
        /* move the entry at j to the hole at i unless its home k lies
         * cyclically in (i, j] */
        if ((j > i && (k <= i || k > j)) || (j < i && (k <= i && k > j))) {
            g->name_slots[2 * i] = g->name_slots[2 * j];
            g->name_slots[2 * i + 1] = g->name_slots[2 * j + 1];
            g->name_slots[2 * j] = 0;
            i = j;
        }
    }
}

/* ---- Targets ----------------------------------------------------------- */

/* Rehash the target set into ncap slots (a power of two). */
static bool target_table_resize(sc_graph *g, size_t ncap)
{
    size_t i, j;
    uint32_t *slots = sc__calloc(ncap, sizeof *slots);
    if (!slots)
        return false;
    for (i = 0; i < g->ntargets; i++) {
        j = hash_str(g->targets[i]) & (ncap - 1);
        while (slots[j])
            j = (j + 1) & (ncap - 1);
        slots[j] = (uint32_t)i + 1;
    }
    sc__free(g->target_slots);
    g->target_slots = slots;
    g->target_cap = ncap;
    return true;
}

/* The index of target in g->targets, interning it (with its op id) when
 * new; SIZE_MAX on exhaustion (the graph unchanged). */
size_t sc__graph_intern_target_index(sc_graph *g, const char *target)
{
    size_t j = 0, cap;
    void *items;
    char *copy;

    /* the reader interns a target, then the builder asks again with the
     * interned string */
    if (g->last_target < g->ntargets && g->targets[g->last_target] == target)
        return g->last_target;
    if (g->target_cap) {
        j = hash_str(target) & (g->target_cap - 1);
        while (g->target_slots[j]) {
            uint32_t i1 = g->target_slots[j];
            if (strcmp(g->targets[i1 - 1], target) == 0)
                return g->last_target = i1 - 1;
            j = (j + 1) & (g->target_cap - 1);
        }
    }
    if (g->ntargets >= UINT32_MAX - 1)
        return SIZE_MAX;
    if ((g->ntargets + 1) * 2 > g->target_cap) {
        if (g->target_cap > SIZE_MAX / 4 ||
            !target_table_resize(g, g->target_cap ? g->target_cap * 2 : 16))
            return SIZE_MAX;
        j = hash_str(target) & (g->target_cap - 1);
        while (g->target_slots[j])
            j = (j + 1) & (g->target_cap - 1);
    }
    /* both arrays share targets_cap: it grows only once both did */
    cap = g->targets_cap;
    items = g->targets;
    if (!sc__grow(&items, &cap, g->ntargets + 1, sizeof(const char *)))
        return SIZE_MAX;
    g->targets = items;
    cap = g->targets_cap;
    items = g->target_ops;
    if (!sc__grow(&items, &cap, g->ntargets + 1, sizeof(int32_t)))
        return SIZE_MAX;
    g->target_ops = items;
    g->targets_cap = cap;
    copy = sc__arena_strdup(&g->arena, target, strlen(target));
    if (!copy)
        return SIZE_MAX;
    g->targets[g->ntargets] = copy;
    g->target_ops[g->ntargets] = (int32_t)sc__graph_lookup_op(copy);
    g->target_slots[j] = (uint32_t)g->ntargets + 1;
    g->last_target = g->ntargets;
    return g->ntargets++;
}

const char *sc__graph_intern_target(sc_graph *g, const char *target)
{
    size_t i = sc__graph_intern_target_index(g, target);
    return i == SIZE_MAX ? NULL : g->targets[i];
}

static const struct {
    const char *sym, *target;
} infix_ops[] = {
    {"+", "operator.add"},       {"-", "operator.sub"},
    {"*", "operator.mul"},       {"//", "operator.floordiv"},
    {"%", "operator.mod"},       {"/", "operator.truediv"},
    {"**", "operator.pow"},      {"<", "operator.lt"},
    {"<=", "operator.le"},       {">", "operator.gt"},
    {">=", "operator.ge"},       {"==", "operator.eq"},
    {"!=", "operator.ne"},       {"&", "operator.and_"},
    {"|", "operator.or_"},
};

const char *sc__graph_infix_symbol(const char *target)
{
    size_t i;
    if (!target)
        return NULL;
    for (i = 0; i < sizeof infix_ops / sizeof infix_ops[0]; i++)
        if (strcmp(target, infix_ops[i].target) == 0)
            return infix_ops[i].sym;
    return NULL;
}

const char *sc__graph_infix_target(const char *sym, size_t n)
{
    size_t i;
    for (i = 0; i < sizeof infix_ops / sizeof infix_ops[0]; i++)
        if (span_is(sym, n, infix_ops[i].sym))
            return infix_ops[i].target;
    return NULL;
}

/* ---- Validation and the users index ------------------------------------ */

static sc_status check_node(const sc_graph *g, sc_node_id id,
                            const char *getitem, sc_error *err);

/* The users index is built in two passes over the arguments, counting
 * and then filling; each (producer, user) pair once: mark[p] holds the
 * stamp of the last user that recorded p (user + 1 when counting, with
 * the top bit when filling, so that no reset comes between). */
typedef struct users_walk {
    sc_graph *g;
    sc_node_id user;
    uint32_t stamp;
    uint32_t *mark;
    bool fill;
} users_walk;

#define USERS_FILL_BIT 0x80000000u

static inline void record_use(users_walk *w, sc_node_id p)
{
    if (w->mark[p] == w->stamp)
        return;
    w->mark[p] = w->stamp;
    if (w->fill)
        w->g->users[w->g->user_off[p]++] = w->user;
    else
        w->g->user_off[p + 1]++;
}

static sc_status walk_value(users_walk *w, const sc_value *v, int depth,
                            sc_error *err)
{
    size_t i;
    sc_node_id p;

    if (v->kind == SC_VALUE_LIST || v->kind == SC_VALUE_TUPLE) {
        if (depth >= SC__GRAPH_MAX_DEPTH)
            return sc__error_set(err, SC_ERR_LIMIT, "lists nested too deep");
        for (i = 0; i < v->u.list.n; i++) {
            SC_TRY(walk_value(w, &v->u.list.items[i], depth + 1, err));
        }
        return SC_OK;
    }
    if (v->kind != SC_VALUE_NODE)
        return SC_OK;
    p = v->u.node;
    if (p < 0 || p >= w->user)
        return sc__error_set(err, SC_ERR_INVALID,
                             "node '%s' uses node %ld, which does not "
                             "precede it",
                             w->g->nodes[w->user].name, (long)p);
    record_use(w, p);
    return SC_OK;
}

/* One pass of the users index over every node's arguments. */
static sc_status walk_users(users_walk *w, bool fill, const char *getitem,
                            sc_error *err)
{
    sc_graph *g = w->g;
    size_t i, j;

    w->fill = fill;
    for (i = 0; i < g->nnodes; i++) {
        const sc__node *nd = &g->nodes[i];
        if (!fill) {
            SC_TRY(check_node(g, (sc_node_id)i, getitem, err));
        }
        w->user = (sc_node_id)i;
        w->stamp = ((uint32_t)i + 1) | (fill ? USERS_FILL_BIT : 0);
        for (j = 0; j < nd->nargs; j++) {
            const sc_value *v = &nd->args[j];
            if (v->kind == SC_VALUE_NODE && v->u.node >= 0 &&
                v->u.node < (sc_node_id)i) {
                record_use(w, v->u.node);
            } else {
                SC_TRY(walk_value(w, v, 0, err));
            }
        }
    }
    return SC_OK;
}

/* The interned copy of target in g, or NULL when no node calls it. */
static const char *find_target(const sc_graph *g, const char *target)
{
    size_t j;
    if (!g->target_cap)
        return NULL;
    j = hash_str(target) & (g->target_cap - 1);
    while (g->target_slots[j]) {
        const char *t = g->targets[g->target_slots[j] - 1];
        if (strcmp(t, target) == 0)
            return t;
        j = (j + 1) & (g->target_cap - 1);
    }
    return NULL;
}

/* getitem: find_target(g, "operator.getitem") (targets are interned: the
 * same string, the same pointer). */
static sc_status check_node(const sc_graph *g, sc_node_id id,
                            const char *getitem, sc_error *err)
{
    const sc__node *n = &g->nodes[id];

    if (n->kind == SC_NODE_PLACEHOLDER)
        return (size_t)id < g->nplaceholders
                   ? SC_OK
                   : sc__error_set(err, SC_ERR_INVALID,
                                   "placeholder '%s' after a call node",
                                   n->name);
    if (getitem && n->target == getitem) {
        const sc_value *a = n->args;
        if (n->npos != 2 || n->nargs != 2 || a[0].kind != SC_VALUE_NODE ||
            a[1].kind != SC_VALUE_INT)
            return sc__error_set(err, SC_ERR_TYPE,
                                 "getitem node '%s' must take a node and an "
                                 "integer index",
                                 n->name);
        if (a[0].u.node >= 0 && a[0].u.node < id) {
            const sc__node *t = &g->nodes[a[0].u.node];
            if (t->rkind == SC_RESULT_TUPLE && t->ndim &&
                (a[1].u.i < 0 || (uint64_t)a[1].u.i >= t->ndim))
                return sc__error_set(err, SC_ERR_TYPE,
                                     "getitem node '%s' reads element %lld "
                                     "of '%s', which has %u",
                                     n->name, (long long)a[1].u.i, t->name,
                                     (unsigned)t->ndim);
        }
    }
    return SC_OK;
}

sc_status sc_graph_finish(sc_graph *g, sc_error *err)
{
    sc_status status = SC_OK;
    users_walk w;
    size_t i, n = g->nnodes, total = 0;
    const char *getitem = find_target(g, "operator.getitem");

    sc__graph_invalidate_users(g);
    memset(&w, 0, sizeof w);
    w.g = g;
    /* user_off[p + 1] counts p's users, then becomes the offsets; the
     * output uses' array serves as the marks meanwhile */
    g->user_off = sc__calloc(n + 1, sizeof *g->user_off);
    g->output_uses = sc__calloc(n + 1, sizeof *g->output_uses);
    if (!g->user_off || !g->output_uses) {
        status = sc__error_nomem(err);
        goto fail;
    }
    sc__prefault(g->user_off, (n + 1) * sizeof *g->user_off);
    sc__prefault(g->output_uses, (n + 1) * sizeof *g->output_uses);
    w.mark = g->output_uses;
    SC_CHECK(walk_users(&w, false, getitem, err));
    for (i = 0; i < n; i++) {
        total += g->user_off[i + 1];
        if (total > UINT32_MAX) {
            status = sc__error_set(err, SC_ERR_LIMIT, "too many uses");
            goto fail;
        }
        g->user_off[i + 1] = (uint32_t)total;
    }
    g->users = sc__malloc((total ? total : 1) * sizeof *g->users);
    if (!g->users) {
        status = sc__error_nomem(err);
        goto fail;
    }
    sc__prefault(g->users, total * sizeof *g->users);
    /* filling advances user_off[p] to the end of p's range: shift back */
    SC_CHECK(walk_users(&w, true, getitem, err));
    for (i = n; i > 0; i--)
        g->user_off[i] = g->user_off[i - 1];
    g->user_off[0] = 0;
    memset(g->output_uses, 0, (n + 1) * sizeof *g->output_uses);
    for (i = 0; i < g->noutputs; i++)
        if (g->outputs[i] != SC_NODE_NONE)
            g->output_uses[g->outputs[i]]++;
    g->users_valid = true;
    return SC_OK;
fail:
    sc__graph_invalidate_users(g);
    return status;
}

/* ---- Queries ----------------------------------------------------------- */

size_t sc_graph_node_count(const sc_graph *g) { return g->nnodes; }
size_t sc_graph_primal_count(const sc_graph *g) { return g->nprimals; }
size_t sc_graph_tangent_count(const sc_graph *g) { return g->ntangents; }
size_t sc_graph_placeholder_count(const sc_graph *g)
{
    return g->nplaceholders;
}

static const sc__node *node_at(const sc_graph *g, sc_node_id id)
{
    if (id < 0 || (size_t)id >= g->nnodes)
        return NULL;
    return &g->nodes[id];
}

sc_node_kind sc_graph_node_kind(const sc_graph *g, sc_node_id id)
{
    const sc__node *n = node_at(g, id);
    return n ? (sc_node_kind)n->kind : SC_NODE_CALL;
}

sc_role sc_graph_node_role(const sc_graph *g, sc_node_id id)
{
    const sc__node *n = node_at(g, id);
    return n ? (sc_role)n->role : SC_ROLE_NONE;
}

const char *sc_graph_node_name(const sc_graph *g, sc_node_id id)
{
    const sc__node *n = node_at(g, id);
    return n ? n->name : NULL;
}

const char *sc_graph_node_target(const sc_graph *g, sc_node_id id)
{
    const sc__node *n = node_at(g, id);
    return n ? n->target : NULL;
}

int sc__graph_node_op(const sc_graph *g, sc_node_id id)
{
    const sc__node *n = node_at(g, id);
    return n ? n->op : SC_OP_UNKNOWN;
}

size_t sc_graph_node_arg_count(const sc_graph *g, sc_node_id id)
{
    const sc__node *n = node_at(g, id);
    return n ? n->nargs : 0;
}

size_t sc_graph_node_positional_count(const sc_graph *g, sc_node_id id)
{
    const sc__node *n = node_at(g, id);
    return n ? n->npos : 0;
}

const sc_value *sc_graph_node_arg(const sc_graph *g, sc_node_id id, size_t i)
{
    const sc__node *n = node_at(g, id);
    return n && i < n->nargs ? &n->args[i] : NULL;
}

const char *sc_graph_node_kwname(const sc_graph *g, sc_node_id id, size_t i)
{
    const sc__node *n = node_at(g, id);
    if (!n || i < n->npos || i >= n->nargs)
        return NULL;
    return n->kwnames[i - n->npos];
}

void sc_graph_node_result(const sc_graph *g, sc_node_id id, sc_result *out)
{
    const sc__node *n = node_at(g, id);
    sc_result_init(out);
    if (!n)
        return;
    out->kind = (sc_result_kind)n->rkind;
    switch (out->kind) {
    case SC_RESULT_TENSOR:
        out->tensor.dtype = (sc_dtype)n->dtype;
        out->tensor.ndim = n->ndim;
        out->tensor.sizes = n->meta.dims;
        out->tensor.has_strides = (n->flags & SC__NODE_HAS_STRIDES) != 0;
        out->tensor.strides =
            out->tensor.has_strides && n->meta.dims ? n->meta.dims + n->ndim
                                                    : NULL;
        out->tensor.has_device = (n->flags & SC__NODE_HAS_DEVICE) != 0;
        out->tensor.device.type = (sc_device_type)n->dev_type;
        out->tensor.device.index = n->dev_index;
        break;
    case SC_RESULT_SYMINT:
    case SC_RESULT_SYMBOOL:
        out->expr = n->meta.expr;
        break;
    case SC_RESULT_TUPLE:
        out->count = n->ndim;
        break;
    default:
        break;
    }
}

int sc_graph_node_line(const sc_graph *g, sc_node_id id)
{
    const sc__node *n = node_at(g, id);
    return n ? (int)n->line : 0;
}

const sc_node_id *sc_graph_node_users(const sc_graph *g, sc_node_id id,
                                      size_t *n)
{
    if (!g->users_valid || !node_at(g, id)) {
        *n = 0;
        return NULL;
    }
    *n = g->user_off[id + 1] - g->user_off[id];
    return g->users + g->user_off[id];
}

size_t sc_graph_node_output_use_count(const sc_graph *g, sc_node_id id)
{
    if (!g->users_valid || !node_at(g, id))
        return 0;
    return g->output_uses[id];
}

size_t sc_graph_output_count(const sc_graph *g) { return g->noutputs; }
size_t sc_graph_fwd_output_count(const sc_graph *g)
{
    return g->num_fwd_outputs;
}

sc_node_id sc_graph_output(const sc_graph *g, size_t i)
{
    return i < g->noutputs ? g->outputs[i] : SC_NODE_NONE;
}

/* ---- Symbols, hints and directives ------------------------------------- */

/* The symbols are marked in a bitmap on the stack, one window of symbol
 * indices at a time (one pass unless the context has more than
 * SYM_WINDOW symbols), so that sc_graph_symbols never allocates and
 * cannot fail. */
#define SYM_WINDOW 16384

typedef struct sym_set {
    size_t lo, hi; /* the window of symbol indices [lo, hi) */
    unsigned char seen[SYM_WINDOW / 8];
    sc_expr *buf[64];
} sym_set;

static void sym_set_mark(sym_set *s, const sc_expr *sym)
{
    size_t idx = sc_expr_symbol_index(sym), bit;
    if (idx >= s->lo && idx < s->hi) {
        bit = idx - s->lo;
        s->seen[bit / 8] |= (unsigned char)(1u << (bit % 8));
    }
}

static void sym_set_add_expr(sym_set *s, const sc_expr *e)
{
    size_t k, i;
    if (!e)
        return;
    k = sc_expr_free_symbols(e, s->buf, 64);
    if (k <= 64) {
        for (i = 0; i < k; i++)
            sym_set_mark(s, s->buf[i]);
        return;
    }
    /* Rare: more symbols than the buffer holds.  Such an expression is not
     * a symbol: collect its arguments' symbols (the buffer is reused). */
    for (i = 0; i < sc_expr_arg_count(e); i++)
        sym_set_add_expr(s, sc_expr_arg(e, i));
}

static void sym_set_add_value(sym_set *s, const sc_value *v, int depth)
{
    size_t i;
    if (v->kind == SC_VALUE_SYMINT)
        sym_set_add_expr(s, v->u.expr);
    else if ((v->kind == SC_VALUE_LIST || v->kind == SC_VALUE_TUPLE) &&
             depth < SC__GRAPH_MAX_DEPTH)
        for (i = 0; i < v->u.list.n; i++)
            sym_set_add_value(s, &v->u.list.items[i], depth + 1);
}

/* Mark the symbols of g whose index lies in s's window. */
static void sym_set_scan(sym_set *s, const sc_graph *g)
{
    size_t i, j;
    const sc_expr *last = NULL;

    memset(s->seen, 0, sizeof s->seen);
    for (i = 0; i < g->nnodes; i++) {
        const sc__node *n = &g->nodes[i];
        if (n->rkind == SC_RESULT_TENSOR) {
            size_t nd = n->ndim * ((n->flags & SC__NODE_HAS_STRIDES) ? 2 : 1);
            for (j = 0; j < nd; j++)
                if (n->meta.dims[j] != last) { /* runs of one expression */
                    last = n->meta.dims[j];
                    if (!sc_expr_is_int(last))
                        sym_set_add_expr(s, last);
                }
        } else if (n->rkind == SC_RESULT_SYMINT ||
                   n->rkind == SC_RESULT_SYMBOOL) {
            sym_set_add_expr(s, n->meta.expr);
        }
        for (j = 0; j < n->nargs; j++)
            sym_set_add_value(s, &n->args[j], 0);
    }
    for (i = 0; i < g->nhints; i++)
        sym_set_mark(s, g->hints[i].sym);
}

size_t sc_graph_symbols(const sc_graph *g, sc_expr **out, size_t cap)
{
    sym_set s;
    size_t nsym = sc_ctx_symbol_count(g->ctx), i, count = 0;

    for (s.lo = 0; s.lo < nsym; s.lo += SYM_WINDOW) {
        s.hi = nsym - s.lo > SYM_WINDOW ? s.lo + SYM_WINDOW : nsym;
        sym_set_scan(&s, g);
        for (i = s.lo; i < s.hi; i++)
            if (s.seen[(i - s.lo) / 8] & (1u << ((i - s.lo) % 8))) {
                if (count < cap)
                    out[count] = sc_ctx_symbol(g->ctx, i);
                count++;
            }
    }
    return count;
}

/* Where a hint lives: in the graph's environment once the environment
 * knows the symbol (sc_env_set_hint, sc_env_symbol_hint), else in g->hints
 * until the symbol is registered (sc__graph_bind_env, the shape rules),
 * which makes it backed with that hint.  g->hints also lists, in the order
 * they were first set, the symbols given a hint on this graph (the writer's
 * `# symcut: hint` line, sc_graph_symbols); an entry's value is read only
 * while the environment does not know its symbol. */
static sc__hint *hint_entry(const sc_graph *g, const sc_expr *symbol)
{
    size_t i;
    for (i = 0; i < g->nhints; i++)
        if (g->hints[i].sym == symbol)
            return &g->hints[i];
    return NULL;
}

sc_status sc_graph_set_hint(sc_graph *g, sc_expr *symbol, int64_t value,
                            sc_error *err)
{
    void *items = g->hints;
    sc__hint *h;

    if (!symbol || !sc_expr_is_symbol(symbol))
        return sc__error_set(err, SC_ERR_INVALID, "a hint needs a symbol");
    if (value < 0)
        return sc__error_set(err, SC_ERR_INVALID,
                             "the hint of %s must not be negative (%lld)",
                             sc_expr_symbol_name(symbol), (long long)value);
    g->hint_epoch++;
    if (g->env && sc_env_has_symbol(g->env, symbol))
        SC_TRY(sc_env_set_hint(g->env, symbol, value, err));
    h = hint_entry(g, symbol);
    if (!h) {
        if (!sc__grow(&items, &g->hints_cap, g->nhints + 1,
                      sizeof(sc__hint)))
            return sc__error_nomem(err);
        g->hints = items;
        h = &g->hints[g->nhints++];
        h->sym = symbol;
    }
    h->value = value;
    return SC_OK;
}

bool sc_graph_get_hint(const sc_graph *g, const sc_expr *symbol,
                       int64_t *out)
{
    const sc__hint *h;
    if (g->env && sc_env_has_symbol(g->env, symbol))
        return sc_env_symbol_hint(g->env, symbol, out);
    h = hint_entry(g, symbol);
    if (h && out)
        *out = h->value;
    return h != NULL;
}

/* Store key = value in the directive table (replacing an earlier value
 * of key); the checks on key and value are the caller's. */
static sc_status store_directive(sc_graph *g, const char *key,
                                 const char *value, sc_error *err)
{
    size_t i;
    void *items = g->directives;
    const char *v;

    v = sc__arena_strdup(&g->arena, value, strlen(value));
    if (!v)
        return sc__error_nomem(err);
    for (i = 0; i < g->ndirectives; i++)
        if (strcmp(g->directives[i].key, key) == 0) {
            g->directives[i].value = v;
            return SC_OK;
        }
    if (!sc__grow(&items, &g->directives_cap, g->ndirectives + 1,
                  sizeof(sc__directive)))
        return sc__error_nomem(err);
    g->directives = items;
    g->directives[g->ndirectives].key =
        sc__arena_strdup(&g->arena, key, strlen(key));
    if (!g->directives[g->ndirectives].key)
        return sc__error_nomem(err);
    g->directives[g->ndirectives].value = v;
    g->ndirectives++;
    return SC_OK;
}

/* Notes are directives whose key starts with '.' (never an identifier,
 * so sc_graph_set_directive cannot make one); the writer does not print
 * them as directives. */
sc_status sc__graph_set_note(sc_graph *g, const char *key, const char *value,
                             sc_error *err)
{
    return store_directive(g, key, value, err);
}

const char *sc__graph_note(const sc_graph *g, const char *key)
{
    return key[0] == '.' ? sc_graph_directive(g, key) : NULL;
}

static const char *const kind_names[] = {"unknown", "joint", "forward",
                                         "backward", "inference"};
static const char *const kind_records[] = {
    NULL, "aot_joint_graph", "aot_forward_graph", "aot_backward_graph",
    "aot_inference_graph"};

const char *sc_graph_kind_name(sc_graph_kind kind)
{
    return (unsigned)kind < 5 ? kind_names[kind] : "unknown";
}

bool sc_graph_kind_from_name(const char *name, size_t n, sc_graph_kind *out)
{
    int i;
    for (i = 1; i < 5; i++)
        if ((strlen(kind_names[i]) == n &&
             memcmp(kind_names[i], name, n) == 0) ||
            (strlen(kind_records[i]) == n &&
             memcmp(kind_records[i], name, n) == 0)) {
            *out = (sc_graph_kind)i;
            return true;
        }
    return false;
}

sc_graph_kind sc_graph_get_kind(const sc_graph *g)
{
    const char *k = sc__graph_note(g, ".kind");
    sc_graph_kind kind;
    if (k && sc_graph_kind_from_name(k, strlen(k), &kind))
        return kind;
    return SC_GRAPH_KIND_UNKNOWN;
}

sc_status sc_graph_set_kind(sc_graph *g, sc_graph_kind kind, sc_error *err)
{
    if ((unsigned)kind >= 5)
        return sc__error_set(err, SC_ERR_INVALID, "not a graph kind: %d",
                             (int)kind);
    return sc__graph_set_note(g, ".kind", kind_names[kind], err);
}

sc_graph_kind sc__graph_guess_kind(const sc_graph *g, size_t nout)
{
    size_t i;
    bool joint_names = true;

    if (g->ntangents == 0)
        return SC_GRAPH_KIND_FORWARD;
    for (i = 0; i < g->nplaceholders && joint_names; i++)
        if (strncmp(g->nodes[i].name, "primals_", 8) != 0 &&
            strncmp(g->nodes[i].name, "tangents_", 9) != 0)
            joint_names = false;
    /* a partitioned backward graph: saved values (any names) and
     * tangents -> gradients */
    if ((g->class_name && strcmp(g->class_name, "backward_fn") == 0) ||
        !joint_names || nout < g->nprimals)
        return SC_GRAPH_KIND_BACKWARD;
    return SC_GRAPH_KIND_JOINT;
}

const char *sc_graph_directive(const sc_graph *g, const char *key)
{
    size_t i;
    for (i = g->ndirectives; i-- > 0;)
        if (strcmp(g->directives[i].key, key) == 0)
            return g->directives[i].value;
    return NULL;
}

sc_status sc_graph_set_directive(sc_graph *g, const char *key,
                                 const char *value, sc_error *err)
{
    if (!sc__graph_is_identifier(key) || strcmp(key, "hint") == 0)
        return sc__error_set(err, SC_ERR_INVALID,
                             "directive key '%s' is not an identifier other "
                             "than 'hint'",
                             key ? key : "(null)");
    if (!value || strchr(value, '\n'))
        return sc__error_set(err, SC_ERR_INVALID,
                             "a directive value is one line");
    return store_directive(g, key, value, err);
}

/* ---- Comparison -------------------------------------------------------- */

typedef struct cmp_state {
    const sc_graph *a, *b;
    unsigned flags;
    char *why;
    size_t why_size;
} cmp_state;

static bool differ(cmp_state *c, const char *fmt, ...) SC__PRINTF(2, 3);

static bool differ(cmp_state *c, const char *fmt, ...)
{
    va_list ap;
    if (c->why && c->why_size) {
        va_start(ap, fmt);
        vsnprintf(c->why, c->why_size, fmt, ap);
        va_end(ap);
    }
    return false;
}

static bool expr_same(cmp_state *c, const sc_expr *x, const sc_expr *y)
{
    char *sx, *sy;
    bool same;
    if (c->a->ctx == c->b->ctx || !x || !y)
        return x == y;
    sx = sc_expr_to_str(c->a->ctx, x);
    sy = sc_expr_to_str(c->b->ctx, y);
    same = sx && sy && strcmp(sx, sy) == 0;
    free(sx);
    free(sy);
    return same;
}

static bool value_same(cmp_state *c, const sc_value *x, const sc_value *y,
                       int depth)
{
    size_t i;
    if (x->kind != y->kind)
        return false;
    switch (x->kind) {
    case SC_VALUE_NONE:
        return true;
    case SC_VALUE_NODE:
        return x->u.node == y->u.node;
    case SC_VALUE_INT:
        return x->u.i == y->u.i;
    case SC_VALUE_SYMINT:
        return expr_same(c, x->u.expr, y->u.expr);
    case SC_VALUE_FLOAT:
        if (x->u.f.repr && y->u.f.repr)
            return strcmp(x->u.f.repr, y->u.f.repr) == 0;
        return memcmp(&x->u.f.value, &y->u.f.value, sizeof(double)) == 0 ||
               x->u.f.value == y->u.f.value;
    case SC_VALUE_BOOL:
        return x->u.b == y->u.b;
    case SC_VALUE_STRING:
        return strcmp(x->u.str, y->u.str) == 0;
    case SC_VALUE_DTYPE:
        return x->u.dtype == y->u.dtype;
    case SC_VALUE_DEVICE:
        return x->u.device.type == y->u.device.type &&
               x->u.device.index == y->u.device.index;
    case SC_VALUE_LAYOUT:
        return x->u.layout == y->u.layout;
    case SC_VALUE_MEMORY_FORMAT:
        return x->u.memory_format == y->u.memory_format;
    case SC_VALUE_LIST:
    case SC_VALUE_TUPLE:
        if (x->u.list.n != y->u.list.n || depth >= SC__GRAPH_MAX_DEPTH)
            return false;
        for (i = 0; i < x->u.list.n; i++)
            if (!value_same(c, &x->u.list.items[i], &y->u.list.items[i],
                            depth + 1))
                return false;
        return true;
    }
    return false;
}

static bool meta_same(cmp_state *c, const sc__node *x, const sc__node *y)
{
    size_t i;
    bool lenient = (c->flags & SC_GRAPH_EQUAL_LENIENT_META) != 0;
    bool xs = (x->flags & SC__NODE_HAS_STRIDES) != 0;
    bool ys = (y->flags & SC__NODE_HAS_STRIDES) != 0;
    bool xd = (x->flags & SC__NODE_HAS_DEVICE) != 0;
    bool yd = (y->flags & SC__NODE_HAS_DEVICE) != 0;

    if (x->rkind != y->rkind)
        return differ(c, "node '%s': result kinds differ (%d, %d)", x->name,
                      x->rkind, y->rkind);
    switch (x->rkind) {
    case SC_RESULT_TENSOR:
        if (x->dtype != y->dtype || x->ndim != y->ndim)
            return differ(c, "node '%s': dtype or rank differs", x->name);
        for (i = 0; i < x->ndim; i++)
            if (!expr_same(c, x->meta.dims[i], y->meta.dims[i]))
                return differ(c, "node '%s': size %zu differs", x->name, i);
        if (xs != ys && !lenient)
            return differ(c, "node '%s': strides given on one side only",
                          x->name);
        if (xs && ys)
            for (i = 0; i < x->ndim; i++)
                if (!expr_same(c, x->meta.dims[x->ndim + i],
                               y->meta.dims[y->ndim + i]))
                    return differ(c, "node '%s': stride %zu differs",
                                  x->name, i);
        if (xd != yd && !lenient)
            return differ(c, "node '%s': device given on one side only",
                          x->name);
        if (xd && yd &&
            (x->dev_type != y->dev_type || x->dev_index != y->dev_index))
            return differ(c, "node '%s': devices differ", x->name);
        return true;
    case SC_RESULT_SYMINT:
    case SC_RESULT_SYMBOOL:
        if (!expr_same(c, x->meta.expr, y->meta.expr))
            return differ(c, "node '%s': symbolic values differ", x->name);
        return true;
    case SC_RESULT_TUPLE:
        if (x->ndim != y->ndim)
            return differ(c, "node '%s': tuple sizes differ (%u, %u)",
                          x->name, (unsigned)x->ndim, (unsigned)y->ndim);
        return true;
    default:
        return true;
    }
}

bool sc_graph_equal(const sc_graph *a, const sc_graph *b, unsigned flags,
                    char *why, size_t why_size)
{
    cmp_state c;
    size_t i, j;

    c.a = a;
    c.b = b;
    c.flags = flags;
    c.why = why;
    c.why_size = why_size;
    if (why && why_size)
        why[0] = '\0';
    if (a->nnodes != b->nnodes)
        return differ(&c, "%zu nodes, %zu nodes", a->nnodes, b->nnodes);
    for (i = 0; i < a->nnodes; i++) {
        const sc__node *x = &a->nodes[i], *y = &b->nodes[i];
        if (!(flags & SC_GRAPH_EQUAL_IGNORE_NAMES) &&
            strcmp(x->name, y->name) != 0)
            return differ(&c, "node %zu: names '%s' and '%s'", i, x->name,
                          y->name);
        if (x->kind != y->kind || x->role != y->role)
            return differ(&c, "node '%s': kinds or roles differ", x->name);
        if ((x->target == NULL) != (y->target == NULL) ||
            (x->target && strcmp(x->target, y->target) != 0))
            return differ(&c, "node '%s': targets '%s' and '%s'", x->name,
                          x->target ? x->target : "-",
                          y->target ? y->target : "-");
        if (x->nargs != y->nargs || x->npos != y->npos)
            return differ(&c, "node '%s': argument counts differ", x->name);
        for (j = 0; j < x->nargs; j++) {
            if (j >= x->npos &&
                strcmp(x->kwnames[j - x->npos], y->kwnames[j - y->npos]) != 0)
                return differ(&c, "node '%s': keyword %zu differs", x->name,
                              j - x->npos);
            if (!value_same(&c, &x->args[j], &y->args[j], 0))
                return differ(&c, "node '%s': argument %zu differs", x->name,
                              j);
        }
        if (!meta_same(&c, x, y))
            return false;
    }
    if (a->noutputs != b->noutputs || a->num_fwd_outputs != b->num_fwd_outputs)
        return differ(&c, "outputs: %zu (%zu forward), %zu (%zu forward)",
                      a->noutputs, a->num_fwd_outputs, b->noutputs,
                      b->num_fwd_outputs);
    for (i = 0; i < a->noutputs; i++)
        if (a->outputs[i] != b->outputs[i])
            return differ(&c, "output %zu differs", i);
    return true;
}
