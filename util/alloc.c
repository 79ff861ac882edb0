/* symcut — allocation wrappers (with per-thread failure injection for
 * tests), the string buffer and the arena. */
#include <config.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

#include "util/internal.h"

/* Failure injection is per thread, so tests in one thread never disturb
 * another; it is test machinery, not library state. */
static _Thread_local long fail_countdown = -1;
static _Thread_local unsigned long alloc_count;

void sc__alloc_fail_after(long n) { fail_countdown = n; }
unsigned long sc__alloc_count(void) { return alloc_count; }

static bool should_fail(void)
{
    alloc_count++;
    if (SC__LIKELY(fail_countdown < 0))
        return false;
    if (fail_countdown == 0)
        return true; /* stays at 0: every later allocation fails too */
    fail_countdown--;
    return false;
}

void *sc__malloc(size_t size)
{
    if (should_fail())
        return NULL;
    return malloc(size ? size : 1);
}

void *sc__calloc(size_t n, size_t size)
{
    if (should_fail())
        return NULL;
    return calloc(n ? n : 1, size ? size : 1);
}

void *sc__realloc(void *p, size_t size)
{
    if (should_fail())
        return NULL;
    return realloc(p, size ? size : 1);
}

void sc__free(void *p) { free(p); }

char *sc__strndup(const char *s, size_t n)
{
    char *d = sc__malloc(n + 1);
    if (!d)
        return NULL;
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

char *sc__strdup(const char *s) { return sc__strndup(s, strlen(s)); }

bool sc__grow(void **items, size_t *cap, size_t need, size_t elem_size)
{
    size_t ncap;
    void *p;

    if (need <= *cap)
        return true;
    ncap = *cap ? *cap : 8;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2)
            return false;
        ncap *= 2;
    }
    if (ncap > SIZE_MAX / elem_size)
        return false;
    p = sc__realloc(*items, ncap * elem_size);
    if (!p)
        return false;
    *items = p;
    *cap = ncap;
    return true;
}

/* ---- Prefaulting -------------------------------------------------------- */

void sc__prefault(void *p, size_t size)
{
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
    uintptr_t page, a, e;
    long ps;
    if (!p || size < SC__PREFAULT_MIN)
        return;
    ps = sysconf(_SC_PAGESIZE);
    if (ps <= 0)
        return;
    page = (uintptr_t)ps;
    a = ((uintptr_t)p + page - 1) & ~(page - 1);
    e = ((uintptr_t)p + size) & ~(page - 1);
    /* advice only: an older kernel says EINVAL, and the pages then come
     * one fault at a time as before */
    if (e > a)
        (void)madvise((void *)a, (size_t)(e - a), MADV_POPULATE_WRITE);
#else
    (void)p;
    (void)size;
#endif
}

/* ---- String buffer ---------------------------------------------------- */

void sc__buf_init(sc__buf *b)
{
    b->data = NULL;
    b->len = b->cap = 0;
    b->failed = false;
}

void sc__buf_free(sc__buf *b)
{
    sc__free(b->data);
    sc__buf_init(b);
}

void sc__buf_reset(sc__buf *b)
{
    b->len = 0;
    if (b->data)
        b->data[0] = '\0';
    b->failed = false;
}

static bool buf_reserve(sc__buf *b, size_t extra)
{
    void *p = b->data;
    if (b->failed)
        return false;
    if (b->len + extra + 1 < b->len ||
        !sc__grow(&p, &b->cap, b->len + extra + 1, 1)) {
        b->failed = true;
        return false;
    }
    b->data = p;
    return true;
}

void sc__buf_putn(sc__buf *b, const char *s, size_t n)
{
    if (!buf_reserve(b, n))
        return;
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void sc__buf_putc(sc__buf *b, char c) { sc__buf_putn(b, &c, 1); }
void sc__buf_puts(sc__buf *b, const char *s) { sc__buf_putn(b, s, strlen(s)); }

void sc__buf_printf(sc__buf *b, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (b->failed)
        return;
    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !buf_reserve(b, (size_t)n)) {
        b->failed = true;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

char *sc__buf_take(sc__buf *b)
{
    char *s;
    if (b->failed) {
        sc__buf_free(b);
        return NULL;
    }
    if (!b->data && !buf_reserve(b, 0)) {
        sc__buf_free(b);
        return NULL;
    }
    s = b->data;
    sc__buf_init(b);
    return s;
}

/* ---- Arena ------------------------------------------------------------ */


/* Blocks grow geometrically: the first 64 KB, then each about as large
 * as all the blocks before it, up to 1 MB (a graph of a million nodes
 * takes about a hundred of them, not a thousand).  The blocks of 256 KB
 * and more are prefaulted: they are filled, but the last one.  An object
 * larger than a quarter of the next block gets a block of its own. */
#define ARENA_BLOCK_MIN ((size_t)64 << 10)
#define ARENA_BLOCK_MAX ((size_t)1 << 20)

void sc__arena_init(sc__arena *a)
{
    a->head = NULL;
    a->used = a->size = 0;
    a->total = 0;
}

void sc__arena_destroy(sc__arena *a)
{
    sc__arena_block *b = a->head, *next;
    while (b) {
        next = b->next;
        sc__free(b);
        b = next;
    }
    sc__arena_init(a);
}

static size_t arena_next_block(const sc__arena *a)
{
    size_t next = ARENA_BLOCK_MIN;
    while (next < ARENA_BLOCK_MAX && next * 2 <= a->total)
        next *= 2;
    return next;
}

void *sc__arena_alloc(sc__arena *a, size_t size)
{
    sc__arena_block *b;
    size_t bsize, next;
    void *p;

    size = (size + 15) & ~(size_t)15;
    if (size == 0)
        size = 16;
    if (!a->head || a->size - a->used < size) {
        next = arena_next_block(a);
        bsize = size > next / 4 ? size : next;
        if (bsize > SIZE_MAX - sizeof *b)
            return NULL;
        b = sc__malloc(sizeof *b + bsize);
        if (!b)
            return NULL;
        b->size = bsize;
        a->total += sizeof *b + bsize;
        if (a->head && bsize != next) {
            /* A large object: keep the current block open for small ones. */
            b->next = a->head->next;
            a->head->next = b;
            return b->data;
        }
        if (bsize == next)
            sc__prefault(b->data, bsize);
        b->next = a->head;
        a->head = b;
        a->used = 0;
        a->size = bsize;
    }
    p = a->head->data + a->used;
    a->used += size;
    return p;
}

char *sc__arena_strdup(sc__arena *a, const char *s, size_t n)
{
    char *d = sc__arena_alloc(a, n + 1);
    if (!d)
        return NULL;
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}
