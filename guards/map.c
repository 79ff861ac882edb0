/* symcut — small containers of the shape environment: a hash map from
 * 64-bit keys to 64-bit values (open addressing, linear probing, no
 * deletion) and a growable array of expressions. */
#include <config.h>

#include <string.h>

#include "guards/env.h"

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

uint64_t sc__str_hash(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 0x100000001b3ULL;
    }
    return h;
}

void sc__gmap_init(sc__gmap *m)
{
    memset(m, 0, sizeof *m);
}

void sc__gmap_destroy(sc__gmap *m)
{
    sc__free(m->keys);
    sc__free(m->vals);
    sc__free(m->used);
    memset(m, 0, sizeof *m);
}

void sc__gmap_clear(sc__gmap *m)
{
    if (m->cap > 4096) {
        sc__gmap_destroy(m);
        return;
    }
    if (m->count > 0)
        memset(m->used, 0, m->cap);
    m->count = 0;
}

bool sc__gmap_get(const sc__gmap *m, uint64_t key, uint64_t *val)
{
    size_t i, mask;
    if (m->cap == 0)
        return false;
    mask = m->cap - 1;
    for (i = mix(key) & mask; m->used[i]; i = (i + 1) & mask)
        if (m->keys[i] == key) {
            if (val)
                *val = m->vals[i];
            return true;
        }
    return false;
}

static void put_nogrow(uint64_t *keys, uint64_t *vals, uint8_t *used,
                       size_t cap, uint64_t key, uint64_t val, bool *added)
{
    size_t mask = cap - 1, i;
    for (i = mix(key) & mask; used[i]; i = (i + 1) & mask)
        if (keys[i] == key) {
            vals[i] = val;
            *added = false;
            return;
        }
    used[i] = 1;
    keys[i] = key;
    vals[i] = val;
    *added = true;
}

bool sc__gmap_put(sc__gmap *m, uint64_t key, uint64_t val)
{
    bool added;
    if ((m->count + 1) * 4 >= m->cap * 3) {
        size_t ncap = m->cap ? m->cap * 2 : 16, i;
        uint64_t *keys = sc__malloc(ncap * sizeof *keys);
        uint64_t *vals = sc__malloc(ncap * sizeof *vals);
        uint8_t *used = sc__calloc(ncap, 1);
        if (!keys || !vals || !used) {
            sc__free(keys);
            sc__free(vals);
            sc__free(used);
            return false;
        }
        for (i = 0; i < m->cap; i++)
            if (m->used[i])
                put_nogrow(keys, vals, used, ncap, m->keys[i], m->vals[i],
                           &added);
        sc__free(m->keys);
        sc__free(m->vals);
        sc__free(m->used);
        m->keys = keys;
        m->vals = vals;
        m->used = used;
        m->cap = ncap;
    }
    put_nogrow(m->keys, m->vals, m->used, m->cap, key, val, &added);
    if (added)
        m->count++;
    return true;
}

bool sc__exprvec_push(sc__exprvec *v, sc_expr *e)
{
    if (v->n == v->cap) {
        void *p = v->items;
        if (!sc__grow(&p, &v->cap, v->n + 1, sizeof *v->items))
            return false;
        v->items = p;
    }
    v->items[v->n++] = e;
    return true;
}

void sc__exprvec_free(sc__exprvec *v)
{
    sc__free(v->items);
    v->items = NULL;
    v->n = v->cap = 0;
}
