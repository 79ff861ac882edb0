/* symcut — the private layout of the shape environment.  Included by
 * guards/ only (and by white-box tests). */
#ifndef SYMCUT_GUARDS_ENV_H
#define SYMCUT_GUARDS_ENV_H

#include <symcut/guards.h>

#include <setjmp.h>

#include "symint/interval.h"
#include "util/internal.h"

/* ---- A hash map from 64-bit keys to 64-bit values (guards/map.c) ------- */
typedef struct sc__gmap {
    uint64_t *keys;
    uint64_t *vals;
    uint8_t *used;
    size_t cap;   /* power of two, or 0 */
    size_t count;
} sc__gmap;

void sc__gmap_init(sc__gmap *m);
void sc__gmap_destroy(sc__gmap *m);
/* Empty the map (frees its storage when it has grown large). */
void sc__gmap_clear(sc__gmap *m);
bool sc__gmap_get(const sc__gmap *m, uint64_t key, uint64_t *val);
/* Insert or overwrite; false on exhaustion (the map is unchanged). */
bool sc__gmap_put(sc__gmap *m, uint64_t key, uint64_t val);
static inline uint64_t sc__gmap_ptr(const void *p) { return (uint64_t)(uintptr_t)p; }
uint64_t sc__str_hash(const char *s);

/* ---- A growable array of expressions ------------------------------------ */
typedef struct sc__exprvec {
    sc_expr **items;
    size_t n, cap;
} sc__exprvec;

bool sc__exprvec_push(sc__exprvec *v, sc_expr *e);
void sc__exprvec_free(sc__exprvec *v);

/* ---- The environment ----------------------------------------------------- */

/* What an entry of a symbol's fact index refers to. */
enum { SC__FACT_FORM = 0, SC__FACT_DIV = 1, SC__FACT_OR = 2 };
#define SC__FACT_ENTRY(kind, id) (((uint64_t)(kind) << 32) | (uint64_t)(id))
#define SC__FACT_KIND(entry) ((unsigned)((entry) >> 32))
#define SC__FACT_ID(entry) ((size_t)((entry) & 0xffffffffu))

typedef struct sc__env_sym {
    sc_expr *sym;
    bool backed, size_like, replaced;
    sc_expr *hint;         /* INT; backed only */
    sc_expr *value;        /* INT; unbacked only: the value given by
                            * sc_env_set_hint, or NULL */
    sc_expr *repl;         /* replacement, in free symbols; NULL if free */
    sc_expr *decl_lo, *decl_hi;  /* backed: the range given at creation
                                  * (INT; NULL: that side is infinite) */
    size_t first_source;   /* SIZE_MAX if none */
    sc__exprvec excluded;  /* INT values the symbol never takes */
    uint64_t *facts;       /* SC__FACT_ENTRY of facts mentioning it */
    size_t nfacts, facts_cap;
} sc__env_sym;

/* A fact about an expression L that is not a single symbol: L lies in r
 * and is none of excluded.  L has no constant term and a positive leading
 * coefficient, and the gcd of its coefficients is 1. */
typedef struct sc__env_form {
    sc_expr *L;
    sc_range r;
    sc__exprvec excluded;
    bool dead;
} sc__env_form;

/* x is divisible by k: Mod(x, k) == 0. */
typedef struct sc__env_div {
    sc_expr *x, *k;
    size_t next;   /* next fact with the same x, or SIZE_MAX */
    bool dead;
} sc__env_div;

/* Any other fact (a disjunction), kept as an expression. */
typedef struct sc__env_or {
    sc_expr *e;
    bool dead;
} sc__env_or;

typedef struct sc__env_source {
    char *text;
    sc_expr *expr;    /* the symbol given, or the specialized constant */
    sc_expr *hint;    /* INT */
    size_t next_same_hash;
} sc__env_source;

struct sc_env {
    sc_ctx *ctx;
    sc_env_options opts;
    int factor_depth;       /* nesting of know.c's factored_range */

    sc__env_sym *syms;
    size_t nsyms, syms_cap;
    sc__gmap sym_of;        /* ctx symbol index -> env symbol id */
    sc__gmap duck;          /* hint (interned INT) -> env symbol id */
    size_t next_s, next_u;

    sc__env_source *sources;
    size_t nsources, sources_cap;
    sc__gmap source_of;     /* string hash -> source id */

    sc_bounds *bounds;      /* the ranges of the symbols */
    sc_bounds *obl_bounds;  /* the same, size-like unbacked ones >= 2 */
    sc_bounds *cap_bounds;  /* bounds, every backed size <= INT64_MAX */
    sc_bounds *cap_obl_bounds; /* obl_bounds, the same cap */
    size_t hint_changes;    /* sc_env_set_hint's changes (a cache key) */
    size_t ncapped;         /* backed sizes whose range passes INT64_MAX */
    sc_symmap *repl;        /* replacements */
    size_t nrepl;
    sc_symmap *hints;       /* backed symbol -> hint */
    sc_symmap *scratch;     /* one-entry substitutions */
    sc_symmap *poly_map;    /* sc__env_poly_range: the shifts (lazy) */

    sc__env_form *forms;
    size_t nforms, forms_cap;
    sc__gmap form_of;       /* L -> form id */

    sc__env_div *divs;
    size_t ndivs, divs_cap, ndivs_alive;
    sc__gmap div_of;        /* x -> first div id */

    sc__env_or *ors;
    size_t nors, ors_cap, nors_alive;
    sc__gmap or_of;         /* e -> or id */

    sc__exprvec guards;
    sc__exprvec asserts;
    sc__exprvec pending;    /* facts waiting to be learned */

    /* GMP temporaries: integers and ranges owned by the environment and
     * handed out in stack order, so that a GMP allocation failure (a long
     * jump to the entry point's guard) leaks nothing. */
    mpz_t **tz;             /* blocks of SC__TMP_BLOCK */
    size_t ntz, tz_cap;     /* in use, allocated */
    sc_range **tr;
    size_t ntr, tr_cap;
    sc__exprvec stk;        /* scratch arrays of expressions, stack order */
    sc__gmap memo;          /* scratch map of the divisibility rewriter */
    jmp_buf *jmp;           /* the innermost entry point's guard */
};

/* ---- Entry points and temporaries (guards/env.c) ----------------------
 * Every public function that computes with GMP runs between
 * SC__ENV_ENTER and SC__ENV_LEAVE: a GMP allocation failure then returns
 * SC_ERR_NOMEM from the entry point, with the temporaries released and
 * the pending facts dropped.  SC__ENV_ENTER_CLEANUP(env, err, cleanup) is
 * the same for an entry point that owns something the failure must free:
 * the statement `cleanup` runs on that path, after the environment is
 * restored and before the return (it sees the entry point's locals as
 * they were set before SC__ENV_ENTER_CLEANUP; a local it needs must not
 * change between the two macros).  Both macros declare locals, so they
 * come once per function, after its declarations; every return after
 * them is preceded by SC__ENV_LEAVE.  Internal functions take their GMP
 * temporaries from sc__tz / sc__tr between SC__TMP_SAVE and
 * SC__TMP_RESTORE. */
#define SC__TMP_BLOCK 32

#define SC__ENV_ENTER_CLEANUP(env, err, cleanup)                             \
    sc__gmp_guard gmp_guard__;                                               \
    const size_t tz_mark__ = (env)->ntz, tr_mark__ = (env)->ntr;             \
    const size_t stk_mark__ = (env)->stk.n;                                  \
    const int fd_mark__ = (env)->factor_depth;                               \
    jmp_buf *const jmp_prev__ = (env)->jmp;                                  \
    sc__gmp_push(&gmp_guard__);                                              \
    if (setjmp(gmp_guard__.env)) {                                           \
        sc__gmp_pop(&gmp_guard__);                                           \
        (env)->jmp = jmp_prev__;                                             \
        (env)->ntz = tz_mark__;                                              \
        (env)->ntr = tr_mark__;                                              \
        (env)->stk.n = stk_mark__;                                           \
        (env)->pending.n = 0;                                                \
        (env)->factor_depth = fd_mark__;                                     \
        cleanup;                                                             \
        return sc__error_nomem(err);                                         \
    }                                                                        \
    (env)->jmp = &gmp_guard__.env

#define SC__ENV_ENTER(env, err) SC__ENV_ENTER_CLEANUP(env, err, (void)0)

#define SC__ENV_LEAVE(env)                                                   \
    do {                                                                     \
        sc__gmp_pop(&gmp_guard__);                                           \
        (env)->jmp = jmp_prev__;                                             \
        (env)->ntz = tz_mark__;                                              \
        (env)->ntr = tr_mark__;                                              \
        (env)->stk.n = stk_mark__;                                           \
    } while (0)

#define SC__TMP_SAVE(env)                                                    \
    const size_t tmp_tz__ = (env)->ntz, tmp_tr__ = (env)->ntr
#define SC__TMP_RESTORE(env)                                                 \
    ((env)->ntz = tmp_tz__, (env)->ntr = tmp_tr__)
#define SC__TMP_RETURN(env, type, value)                                     \
    do {                                                                     \
        type tmp_ret__ = (value);                                            \
        SC__TMP_RESTORE(env);                                                \
        return tmp_ret__;                                                    \
    } while (0)

/* A temporary integer (0) / range (unbounded).  When the
 * pool cannot grow, long-jumps to the entry point's guard. */
mpz_ptr sc__tz(sc_env *env);
sc_range *sc__tr(sc_env *env);
/* Push onto env->stk (long-jumps on exhaustion, as above). */
void sc__stk_push(sc_env *env, sc_expr *e);
/* Out of memory inside an entry point: long-jump to its guard. */
#if defined(__GNUC__)
__attribute__((noreturn))
#endif
void sc__env_oom(sc_env *env);

/* ---- Internal functions (guards/env.c) ----------------------------------- */

/* The environment symbol of sym, or NULL if sym is not one. */
sc__env_sym *sc__env_sym_of(const sc_env *env, const sc_expr *sym);
/* Take the error recorded in the context (a constructor returned NULL);
 * SC_ERR_INTERNAL when the context recorded none. */
sc_status sc__env_ctx_error(sc_env *env, sc_error *err);
/* SC_OK when e is non-NULL, else sc__env_ctx_error: the status of an
 * expression constructor's result, for SC_CHECK / SC_TRY. */
sc_status sc__env_built(sc_env *env, const sc_expr *e, sc_error *err);
/* The range currently known for a symbol (never NULL: unbounded static). */
const sc_range *sc__env_sym_range(const sc_env *env, const sc__env_sym *s);
/* Set a symbol's range in both bounds objects. */
sc_status sc__env_set_range(sc_env *env, sc__env_sym *s, const sc_range *r,
                            sc_error *err);
/* Append a fact entry to the index of every symbol of e. */
sc_status sc__env_index_fact(sc_env *env, sc_expr *e, uint64_t entry,
                             sc_error *err);

/* ---- Knowledge (guards/know.c) ------------------------------------------- */

/* e through replacements and divisibility facts, simplified over bounds
 * (env->bounds or env->obl_bounds). */
sc_status sc__env_rewrite(sc_env *env, sc_expr *e, const sc_bounds *bounds,
                          sc_expr **out, sc_error *err);
/* Decide a rewritten boolean expression from the facts. */
sc_status sc__env_decide(sc_env *env, sc_expr *s, const sc_bounds *bounds,
                         sc_tri *out, sc_error *err);
/* Rewrite and decide in one step; *simplified (may be NULL) receives the
 * rewritten expression. */
sc_status sc__env_known(sc_env *env, sc_expr *cond, bool oblivious,
                        sc_expr **simplified, sc_tri *out, sc_error *err);
/* Learn that the boolean fact holds (and everything queued meanwhile). */
sc_status sc__env_learn(sc_env *env, sc_expr *fact, sc_error *err);
/* The same, for a fact that sc__env_known has just returned (as its
 * rewritten form) undecided, with nothing changed in env since: the first
 * step does not decide it again. */
sc_status sc__env_learn_undecided(sc_env *env, sc_expr *fact, sc_error *err);
/* Tighten out (intersect) with a range of the polynomial e found by
 * shifting every symbol to the origin of its range in bounds (x = lo + t,
 * or x = hi - t when only hi is finite; 0 <= t <= hi - lo), expanding, and
 * bounding every monomial of the expansion by [0, its maximum]: an
 * expansion whose coefficients are all >= 0 is >= its constant on the
 * whole range.  Sound for every integer value of the symbols inside
 * bounds.  An atom that is not a symbol (s0//3) is bounded by
 * sc__env_expr_range when facts is true (everything known: questions),
 * by bounds alone when false (the guard producer, which must not let a
 * fact imply itself: a form's fact bounds its own atoms).  Does nothing unless e is a polynomial of degree >= 2 in at
 * most 8 symbols, each bounded on at least one side (and the expansion
 * stays within the context's expansion limit).  Errors: SC_ERR_NOMEM. */
sc_status sc__env_poly_range(sc_env *env, sc_expr *e, const sc_bounds *bounds,
                             bool facts, sc_range *out, sc_error *err);
/* The range of an integer expression under everything known. */
sc_status sc__env_expr_range(sc_env *env, sc_expr *e, const sc_bounds *bounds,
                             sc_range *out, sc_error *err);
/* Split X = c + a*L with L constant-free, positive leading coefficient,
 * coprime coefficients.  X constant: *L = NULL, a = 0. */
sc_status sc__env_normalize(sc_env *env, sc_expr *X, mpz_ptr c, mpz_ptr a,
                            sc_expr **L, sc_error *err);

/* Check that every free symbol of e is an environment symbol; count the
 * unbacked ones.  Errors: SC_ERR_UNBOUND. */
sc_status sc__env_check_symbols(sc_env *env, sc_expr *e, size_t *nunbacked,
                                sc_error *err);

#endif /* SYMCUT_GUARDS_ENV_H */
