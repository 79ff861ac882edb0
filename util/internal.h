/* symcut — internal helpers shared by every part of the library (included
 * by every folder of the library and by the tests, never by cli/):
 * allocation (one place to inject failures), error filling, a growable
 * string buffer, an arena, and the GMP out-of-memory guard.
 * Not installed; nothing here is public API. */
#ifndef SYMCUT_UTIL_INTERNAL_H
#define SYMCUT_UTIL_INTERNAL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <symcut/error.h>

#if defined(__GNUC__)
#define SC__PRINTF(f, a) __attribute__((format(printf, f, a)))
#define SC__LIKELY(x) __builtin_expect(!!(x), 1)
#define SC__UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define SC__PRINTF(f, a)
#define SC__LIKELY(x) (x)
#define SC__UNLIKELY(x) (x)
#endif

/* ---- Allocation --------------------------------------------------------
 * Every allocation of the library goes through these, so that a test can
 * make the Nth one fail (sc__alloc_fail_after). */
void *sc__malloc(size_t size);
void *sc__calloc(size_t n, size_t size);
void *sc__realloc(void *p, size_t size);
void sc__free(void *p);
char *sc__strdup(const char *s);
char *sc__strndup(const char *s, size_t n);
/* Grow *items (of *cap elements of elem_size) to hold at least need;
 * returns false on exhaustion (then *items is unchanged). */
bool sc__grow(void **items, size_t *cap, size_t need, size_t elem_size);

/* Testing only: make the allocation that comes after `n` more succeed
 * fail (n < 0: never).  Per thread. */
void sc__alloc_fail_after(long n);
/* Number of allocations made by this thread so far. */
unsigned long sc__alloc_count(void);

/* Map the pages of the block [p, p + size) now, in one system call, where
 * the platform can (Linux 5.14 and later: madvise MADV_POPULATE_WRITE):
 * for a large block the caller is about to fill.  Touching fresh memory
 * one 4 KB page at a time costs a page fault per page, which on some
 * virtual machines costs more (about 10 us) than the writes themselves;
 * populating the pages in one call costs about half as much.  Advice
 * only: the contents are unchanged, and nothing happens where the call is
 * not available or fails.  Blocks under SC__PREFAULT_MIN are left alone. */
#define SC__PREFAULT_MIN ((size_t)256 << 10)
void sc__prefault(void *p, size_t size);

/* ---- Errors ------------------------------------------------------------ */
/* Fill err (if non-NULL) and return code. */
sc_status sc__error_set(sc_error *err, sc_status code, const char *fmt, ...)
    SC__PRINTF(3, 4);
sc_status sc__error_vset(sc_error *err, sc_status code, const char *fmt,
                         va_list ap);
sc_status sc__error_set_at(sc_error *err, sc_status code, const char *file,
                           int line, int column, const char *fmt, ...)
    SC__PRINTF(6, 7);
sc_status sc__error_nomem(sc_error *err);

/* ---- String buffer ----------------------------------------------------- */
/* A growable NUL-terminated string.  After a failed allocation `failed`
 * is set and further appends are ignored. */
typedef struct sc__buf {
    char *data;
    size_t len, cap;
    bool failed;
} sc__buf;

void sc__buf_init(sc__buf *b);
void sc__buf_free(sc__buf *b);
void sc__buf_reset(sc__buf *b);
void sc__buf_putc(sc__buf *b, char c);
void sc__buf_puts(sc__buf *b, const char *s);
void sc__buf_putn(sc__buf *b, const char *s, size_t n);
void sc__buf_printf(sc__buf *b, const char *fmt, ...) SC__PRINTF(2, 3);
/* Take the string (caller frees with free()); NULL if an append failed.
 * The buffer is left empty. */
char *sc__buf_take(sc__buf *b);

/* ---- Arena ------------------------------------------------------------- */
/* Many small objects with the lifetime of their owner. */
typedef struct sc__arena_block sc__arena_block;
typedef struct sc__arena {
    sc__arena_block *head;
    size_t used, size;  /* of the head block */
    size_t total;       /* bytes obtained from malloc */
} sc__arena;

void sc__arena_init(sc__arena *a);
void sc__arena_destroy(sc__arena *a);
/* Aligned to 16 bytes; NULL on exhaustion. */
void *sc__arena_alloc(sc__arena *a, size_t size);
struct sc__arena_block {
    sc__arena_block *next;
    size_t size;
    _Alignas(16) unsigned char data[];
};
/* The same, with the common case (room in the current block) inline, for
 * hot paths; the block's data is 16-aligned and `used` a multiple of 16. */
static inline void *sc__arena_alloc_fast(sc__arena *a, size_t size)
{
    size_t n = (size + 15) & ~(size_t)15;
    if (SC__LIKELY(a->head && n != 0 && n >= size &&
                   a->size - a->used >= n)) {
        void *p = a->head->data + a->used;
        a->used += n;
        return p;
    }
    return sc__arena_alloc(a, size);
}
char *sc__arena_strdup(sc__arena *a, const char *s, size_t n);
/* The same (s has n bytes, then anything), inline for hot paths. */
static inline char *sc__arena_strdup_fast(sc__arena *a, const char *s,
                                          size_t n)
{
    char *d = (char *)sc__arena_alloc_fast(a, n + 1);
    if (SC__LIKELY(d != NULL)) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

/* ---- GMP out-of-memory guard -------------------------------------------
 * GMP cannot return NULL from an allocation.  symcut installs allocation
 * functions (once per process, chained to the ones installed before) that,
 * when memory is exhausted, long-jump to the innermost armed guard of the
 * calling thread.  With no guard armed they abort, as GMP itself would.
 *
 *     sc__gmp_guard g;
 *     sc__gmp_push(&g);
 *     if (setjmp(g.env)) { sc__gmp_pop(&g); return out-of-memory; }
 *     ... GMP calls; no GMP-owned temporaries on the C stack that must be
 *         cleared, or they leak on the jump ...
 *     sc__gmp_pop(&g);
 *
 * After a jump, an mpz that was the destination of the failing call may be
 * inconsistent (GMP can record the new size before it allocates, and may
 * already have freed the old buffer): never mpz_clear it; re-initialise it
 * (mpz_init) and drop its old value instead.
 */
typedef struct sc__gmp_guard {
    jmp_buf env;
    struct sc__gmp_guard *prev;
} sc__gmp_guard;

void sc__gmp_install(void);
void sc__gmp_push(sc__gmp_guard *g);
void sc__gmp_pop(sc__gmp_guard *g);

#endif /* SYMCUT_UTIL_INTERNAL_H */
