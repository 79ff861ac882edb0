/* symcut — GMP allocation functions that report exhaustion.
 *
 * GMP requires its allocation functions never to return NULL.  The ones
 * installed here call the functions that were installed before them (by
 * default GMP's own malloc wrappers, which abort on failure; we call plain
 * malloc/realloc instead so that a failure comes back to us) and, when
 * memory is exhausted, long-jump to the innermost sc__gmp_guard armed by
 * the calling thread.  The hook is installed once per process and never
 * changes afterwards: it is not mutable state shared between contexts. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <gmp.h>

#include "util/internal.h"

static _Thread_local sc__gmp_guard *guard_top;
static pthread_once_t install_once = PTHREAD_ONCE_INIT;
static void *(*prev_alloc)(size_t);
static void *(*prev_realloc)(void *, size_t, size_t);
static void (*prev_free)(void *, size_t);
static bool prev_is_default;

static _Noreturn void exhausted(void)
{
    if (guard_top)
        longjmp(guard_top->env, 1);
    abort(); /* what GMP itself does; only reached with no guard armed */
}

static void *gmp_alloc(size_t n)
{
    void *p = prev_is_default ? sc__malloc(n) : prev_alloc(n);
    if (!p)
        exhausted();
    return p;
}

static void *gmp_realloc(void *old, size_t oldn, size_t n)
{
    void *p = prev_is_default ? sc__realloc(old, n)
                              : prev_realloc(old, oldn, n);
    if (!p)
        exhausted();
    return p;
}

static void gmp_free(void *p, size_t n)
{
    if (prev_is_default)
        sc__free(p);
    else
        prev_free(p, n);
}

static void install(void)
{
    void *(*a)(size_t);
    void *(*r)(void *, size_t, size_t);
    void (*f)(void *, size_t);

    mp_get_memory_functions(&prev_alloc, &prev_realloc, &prev_free);
    /* GMP's defaults are recognised by resetting and comparing. */
    mp_set_memory_functions(NULL, NULL, NULL);
    mp_get_memory_functions(&a, &r, &f);
    prev_is_default = (a == prev_alloc && r == prev_realloc && f == prev_free);
    mp_set_memory_functions(gmp_alloc, gmp_realloc, gmp_free);
}

void sc__gmp_install(void) { pthread_once(&install_once, install); }

void sc__gmp_push(sc__gmp_guard *g)
{
    g->prev = guard_top;
    guard_top = g;
}

void sc__gmp_pop(sc__gmp_guard *g) { guard_top = g->prev; }
