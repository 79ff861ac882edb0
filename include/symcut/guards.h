/* symcut — the shape environment: symbols with hints, guards, runtime
 * assertions, and the guard set that decides when a compiled artifact may
 * be reused.
 *
 * The model is PyTorch's ShapeEnv (torch/fx/experimental/symbolic_shapes.py).
 *
 *  - A *backed* symbol (s0, s1, ...) stands for an input size: it has a
 *    hint (the value seen while tracing, an exact non-negative integer) and
 *    a source (free text naming where the size comes from, `x.size(0)`).
 *    Its range is [2, +inf) by default: a size whose hint is 0 or 1 is
 *    specialized to that constant (no symbol is created) unless 0/1
 *    specialization is off, and then the range is [0, +inf).  With duck
 *    sizing (on by default) two sizes with equal hints share one symbol.
 *  - An *unbacked* symbol (u0, u1, ...) stands for a value known only at
 *    run time (the number of nonzero elements).  It has no hint, only a
 *    range (unbounded by default); a size-like one has the range [0, +inf)
 *    and size-oblivious questions treat it as >= 2.
 *
 * Questions on boolean expressions, in increasing order of commitment:
 * sc_env_statically_known (never records), sc_env_guard_or (records only
 * for backed expressions), sc_env_size_oblivious, sc_env_guard (records a
 * guard or fails with SC_ERR_DATA_DEPENDENT), sc_env_assert (torch._check:
 * a guard, or a deferred runtime assertion).  Every recorded guard and
 * assertion teaches the environment: an equation solvable for one symbol
 * becomes a replacement, a bound on one symbol narrows its range,
 * Eq(Mod(x, k), 0) a divisibility fact, anything else is remembered as a
 * fact indexed by the symbols it mentions.
 *
 * At the end, sc_env_produce_guards writes the minimal guard set over the
 * sources (printed in PyTorch's spelling and as C) and compiles it into a
 * checker that decides, for concrete input sizes, whether every guard
 * holds.
 *
 * An environment refers to expressions of one context; it must not outlive
 * it.  Expressions passed in must belong to that context.  Every fallible
 * function returns an sc_status and fills the caller's sc_error (which may
 * be NULL).  Nothing here prints, exits or keeps global state; one
 * environment must not be used by two threads at once.
 *
 * Costs: n is the size of the expression asked about.  A question costs
 * O(n) operations on interned expressions plus, for a relation, a lookup of
 * the facts about its symbols: it does not grow with the number of facts
 * recorded about other symbols.
 */
#ifndef SYMCUT_GUARDS_H
#define SYMCUT_GUARDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <gmp.h>

#include <symcut/error.h>
#include <symcut/symint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sc_env sc_env;

/* ---- Options ------------------------------------------------------------ */

typedef struct sc_env_options {
    /* A backed size whose hint is 0 or 1 becomes that constant.  When
     * false, such sizes get a symbol of range [0, +inf). */
    bool specialize_zero_one;
    /* Sizes with equal hints share one symbol (PyTorch's duck shaping). */
    bool duck_shape;
} sc_env_options;

/* The defaults: specialize_zero_one and duck_shape both true. */
void sc_env_options_init(sc_env_options *opts);

/* ---- Lifetime ------------------------------------------------------------ */

/* A new, empty environment over ctx (kept, not owned).  opts NULL means the
 * defaults; the options are copied.  Errors: SC_ERR_NOMEM. */
sc_status sc_env_new(sc_ctx *ctx, const sc_env_options *opts, sc_env **out,
                     sc_error *err);

/* Free an environment (not its context).  NULL is a no-op. */
void sc_env_free(sc_env *env);

sc_ctx *sc_env_ctx(const sc_env *env);

/* ---- Symbols ------------------------------------------------------------- */

/* Flags of sc_env_create_backed / sc_env_create_unbacked. */
enum {
    SC_ENV_NO_SPECIALIZE_01 = 1u << 0, /* backed: no 0/1 specialization */
    SC_ENV_NO_DUCK = 1u << 1,          /* backed: never share a symbol */
    SC_ENV_SIZE_LIKE = 1u << 2,        /* unbacked: a size ([0, +inf)) */
    SC_ENV_INTEGER = 1u << 3           /* backed: an integer input, not a
                                          size (any hint, unbounded) */
};

/* Create the symbol of a backed size and store it in *out.
 *
 * hint: the traced value, >= 0 (SC_ERR_INVALID otherwise); any integer
 *   with SC_ENV_INTEGER.
 * source: the text naming the size (`x.size(0)`), copied; NULL means the
 *   symbol's name.  Sources must be distinct (SC_ERR_INVALID).
 * name: the symbol's name (an identifier of the expression syntax that no
 *   other symbol of the environment has), or NULL for the next free
 *   `s<k>` in creation order.
 * range: an extra constraint intersected with the default range (the
 *   caller's min/max, as PyTorch's mark_dynamic), or NULL.  The hint must
 *   lie inside (SC_ERR_INVALID).
 * flags: SC_ENV_NO_SPECIALIZE_01, SC_ENV_NO_DUCK, SC_ENV_INTEGER.  An
 *   integer input (PyTorch's create_unspecified_symbol: an int argument
 *   made dynamic) has any hint, of any size, the range (-inf, +inf)
 *   before `range`, no 0/1 specialization and no duck sizing; it is not
 *   size-like.
 *
 * A range of one value (`range 8..8`, PyTorch's static dimension) makes
 * the size that constant, as 0/1 specialization does.
 *
 * *out is the constant 0 or 1 when the size is specialized, an existing
 * symbol when duck sizing shares one (then `name` is ignored), or the new
 * symbol.  Either way the source is recorded and takes part in the guard
 * set (`y.size(0) == x.size(0)`, `z.size(0) == 1`).
 * Time: O(1) expected, plus the source's length. */
sc_status sc_env_create_backed(sc_env *env, mpz_srcptr hint,
                               const char *source, const char *name,
                               const sc_range *range, unsigned flags,
                               sc_expr **out, sc_error *err);
sc_status sc_env_create_backed_si(sc_env *env, int64_t hint,
                                  const char *source, const char *name,
                                  const sc_range *range, unsigned flags,
                                  sc_expr **out, sc_error *err);

/* Create an unbacked symbol (name NULL: the next free `u<k>`).  Its range
 * is `range` (NULL: unbounded), intersected with [0, +inf) when flags has
 * SC_ENV_SIZE_LIKE.  An empty range is SC_ERR_INVALID. */
sc_status sc_env_create_unbacked(sc_env *env, const char *name,
                                 const sc_range *range, unsigned flags,
                                 sc_expr **out, sc_error *err);

/* The symbols of the environment in creation order. */
size_t sc_env_symbol_count(const sc_env *env);
sc_expr *sc_env_symbol(const sc_env *env, size_t i);
/* Is sym a symbol of this environment / backed / size-like? */
bool sc_env_has_symbol(const sc_env *env, const sc_expr *sym);
bool sc_env_is_backed(const sc_env *env, const sc_expr *sym);
bool sc_env_is_size_like(const sc_env *env, const sc_expr *sym);
/* The first source of a backed symbol (NULL for others). */
const char *sc_env_symbol_source(const sc_env *env, const sc_expr *sym);
/* The hint of sym: a backed symbol's hint, or the value an unbacked symbol
 * was given by sc_env_set_hint; false when it has neither, when sym is no
 * symbol of the environment, or when the hint does not fit in int64_t. */
bool sc_env_symbol_hint(const sc_env *env, const sc_expr *sym,
                        int64_t *out);
/* Set the hint of sym, a symbol of the environment (SC_ERR_UNBOUND
 * otherwise).  A backed symbol's hint becomes value: every later question
 * answered at the hints, and the sources of sym, see it; the value must
 * lie in the symbol's current range, and a symbol that duck sizing shares
 * keeps its hint (SC_ERR_INVALID otherwise).  The guards, assertions and
 * facts recorded before stay as they were (they are not re-checked at the
 * new hint).  An unbacked symbol stays unbacked: value is only remembered
 * as its example value (sc_env_symbol_hint returns it; the questions never
 * use it), as PyTorch's ShapeEnv keeps values of unbacked symbols seen at
 * run time.  Time: O(number of sources). */
sc_status sc_env_set_hint(sc_env *env, sc_expr *sym, int64_t value,
                          sc_error *err);
/* What sym has been replaced by (an expression in symbols that are not
 * replaced), or NULL when it is free.  The executor binds a replaced
 * unbacked symbol by evaluating it. */
sc_expr *sc_env_replacement(const sc_env *env, const sc_expr *sym);

/* The sources in creation order: their text and what each was given (a
 * symbol or, when specialized, a constant). */
size_t sc_env_source_count(const sc_env *env);
const char *sc_env_source(const sc_env *env, size_t i);
sc_expr *sc_env_source_expr(const sc_env *env, size_t i);
/* The hint of source i (an integer constant). */
sc_expr *sc_env_source_hint(const sc_env *env, size_t i);

/* ---- Questions ----------------------------------------------------------- */

typedef enum sc_tri {
    SC_TRI_FALSE = 0,
    SC_TRI_TRUE = 1,
    SC_TRI_UNKNOWN = 2
} sc_tri;

/* Flag of sc_env_statically_known: assume size-like unbacked symbols are
 * >= 2 (PyTorch's size-oblivious reasoning). */
enum { SC_ENV_OBLIVIOUS = 1u << 0 };

/* Whether the boolean cond is known true or false from ranges,
 * replacements, divisibility facts and the recorded facts; records
 * nothing.  A polynomial is also bounded with every symbol shifted to the
 * origin of its current range (x = lo + t, t >= 0) and expanded, so that
 * s0**2 >= s0 + 1 is known true when s0 >= 2 (sufficient, not complete:
 * an expansion with a negative coefficient stays undecided).  Errors: SC_ERR_TYPE (cond is not boolean), SC_ERR_UNBOUND (a
 * symbol that is not in the environment), those of the constructors. */
sc_status sc_env_statically_known(sc_env *env, sc_expr *cond, unsigned flags,
                                  sc_tri *out, sc_error *err);

/* PyTorch's guard (bool(SymBool)).  Statically known: the answer, nothing
 * recorded (when every symbol is backed and the answer differs from the
 * hints', which only a runtime assertion the hints break can cause:
 * SC_ERR_CONTRADICTION, "... is true at the hints but false given what is
 * known"; also for sc_env_guard_or and sc_env_size_oblivious).  Otherwise, when every symbol is backed: the answer at the
 * hints, recorded as a guard (the condition or its negation) and learned.
 * Otherwise SC_ERR_DATA_DEPENDENT: "Could not guard on data-dependent
 * expression Eq(u0, 0) (unhinted: u0).  (Size-like symbols: none)". */
sc_status sc_env_guard(sc_env *env, sc_expr *cond, bool *out, sc_error *err);

/* guard_or_false (dflt false) / guard_or_true (dflt true): as
 * sc_env_guard, but a question that would be data-dependent answers dflt
 * and records nothing. */
sc_status sc_env_guard_or(sc_env *env, sc_expr *cond, bool dflt, bool *out,
                          sc_error *err);

/* guard_size_oblivious: decided statically with size-like unbacked symbols
 * assumed >= 2 (nothing recorded); when that does not decide, as
 * sc_env_guard. */
sc_status sc_env_size_oblivious(sc_env *env, sc_expr *cond, bool *out,
                                sc_error *err);

/* torch._check(cond).  Statically true: nothing.  Statically false:
 * SC_ERR_CONTRADICTION.  Every symbol backed: true at the hints records a
 * guard, false records the guard Not(cond) (as PyTorch, which decided it
 * at the hints) and is SC_ERR_GUARD.  Otherwise a deferred runtime assertion,
 * kept for the executor (sc_env_runtime_assert) and learned as a fact.
 * Learning can find a contradiction that the static check missed (an
 * empty range after rounding to a divisor...): SC_ERR_CONTRADICTION, and
 * the facts learned up to that point stay. */
sc_status sc_env_assert(sc_env *env, sc_expr *cond, sc_error *err);

/* guard_int: the value of the integer expression e.  A constant after
 * simplification is returned as is; otherwise, when every symbol is
 * backed, the value at the hints, recording the guard Eq(e, value);
 * otherwise SC_ERR_DATA_DEPENDENT.  out is initialised by the caller.
 * The _si variant fails with SC_ERR_OVERFLOW beyond int64_t (before
 * recording anything). */
sc_status sc_env_guard_int(sc_env *env, sc_expr *e, mpz_ptr out,
                           sc_error *err);
sc_status sc_env_guard_int_si(sc_env *env, sc_expr *e, int64_t *out,
                              sc_error *err);

/* e rewritten through the replacements and the divisibility facts and
 * simplified over the current ranges; a boolean e that is statically
 * known becomes True or False.  Records nothing. */
sc_status sc_env_simplify(sc_env *env, sc_expr *e, sc_expr **out,
                          sc_error *err);

/* The range of the integer expression e under everything known (out is
 * initialised by the caller).  Records nothing. */
sc_status sc_env_range(sc_env *env, sc_expr *e, sc_range *out, sc_error *err);

/* The value of e at the hints (out initialised by the caller).
 * SC_ERR_DATA_DEPENDENT when e (after replacements) has unbacked symbols. */
sc_status sc_env_hint(sc_env *env, sc_expr *e, mpz_ptr out, sc_error *err);

/* ---- What was recorded ------------------------------------------------------ */

/* The guards in the order they were recorded, each as simplified when it
 * was recorded (it holds at the hints). */
size_t sc_env_guard_count(const sc_env *env);
sc_expr *sc_env_guard_at(const sc_env *env, size_t i);

/* The deferred runtime assertions in the order they were made (each as
 * simplified when it was made).  The executor checks them once the
 * unbacked symbols are bound. */
size_t sc_env_runtime_assert_count(const sc_env *env);
sc_expr *sc_env_runtime_assert(const sc_env *env, size_t i);

/* How many times sc_env_set_hint has changed a hint or an example value.
 * With the symbol, guard and assertion counts it tells a cache of answers
 * (the graph's shape-rule memo) whether the environment has moved. */
size_t sc_env_hint_change_count(const sc_env *env);

/* ---- The guard set ------------------------------------------------------------ */

/* The minimal guard set of an environment, over its sources.  Caller-owned,
 * independent of the environment afterwards, but it refers to expressions
 * of the context (must not outlive it). */
typedef struct sc_guard_set sc_guard_set;

/* Produce the guard set from what the environment knows about its backed
 * symbols, in this order:
 *  1. one `source == expr` per source that is not the first source of a
 *     free symbol (`y.size(0) == x.size(0)`, `z.size(0) == 1`,
 *     `w.size(0) == 2*x.size(0)`);
 *  2. per free symbol its bounds, merged (`2 <= x.size(0) <= 1024`, or one
 *     side), and the values it must not take (`Ne(x.size(0), 5)`);
 *  3. divisibility facts, one per expression (`Eq(Mod(x.size(0), 8), 0)`);
 *  4. bounds on other expressions (`x.size(0)*y.size(0) <= 4096`), merged
 *     the same way, and their excluded values;
 *  5. the remaining facts (disjunctions).
 * Everything the ranges already imply is left out (polynomial bounds
 * included, shifted to the origin of the ranges), and so is what the
 * other lines imply as far as the minimality pass can tell: orders by
 * shortest paths; other bounds against the resulting box; every linear
 * line (range side, difference, other linear form, equality side)
 * implied over the integers by the other linear lines near it, decided
 * exactly by the Omega test (real shadow, dark shadow, splinters, exact
 * equality elimination) over int64_t.  Not found only past its caps: at
 * most 10 lines of two or more symbols and 6 symbols per question, 512
 * rows per system, 4,096 systems and 262,144 derived rows per question,
 * and an int64_t overflow; any of them keeps the line.
 * A dropped side of a range line goes back to the symbol's declared
 * range, which is always written.  The set accepts exactly the sizes
 * where every recorded guard holds.  doc/guards.md says what "minimal"
 * promises and what it does not find.
 * Facts that mention unbacked symbols are runtime assertions, not guards.
 * Time: about linear in the size of what is known. */
sc_status sc_env_produce_guards(sc_env *env, sc_guard_set **out,
                                sc_error *err);
void sc_guard_set_free(sc_guard_set *gs);

size_t sc_guard_set_count(const sc_guard_set *gs);
/* Guard i in PyTorch's spelling, over the source texts. */
const char *sc_guard_set_text(const sc_guard_set *gs, size_t i);
/* Guard i as a boolean expression over the source variables. */
sc_expr *sc_guard_set_expr(const sc_guard_set *gs, size_t i);

/* The sources, in the environment's creation order, and the C identifier
 * naming each one in sc_guard_set_expr and sc_guard_set_to_c (`x.size(0)`
 * -> `x_size_0`, made unique). */
size_t sc_guard_set_source_count(const sc_guard_set *gs);
const char *sc_guard_set_source(const sc_guard_set *gs, size_t i);
const char *sc_guard_set_var(const sc_guard_set *gs, size_t i);
sc_expr *sc_guard_set_var_expr(const sc_guard_set *gs, size_t i);

/* The conjunction of all guards as one C boolean expression over int64_t
 * variables named by sc_guard_set_var, using the helpers of
 * sc_expr_c_prelude() (malloc'ed, free with free()).  "1" when there is no
 * guard.  The text is exact while every intermediate value fits in
 * int64_t (see sc_expr_to_c). */
sc_status sc_guard_set_to_c(const sc_guard_set *gs, char **out,
                            sc_error *err);

/* A compiled guard set: bytecode over int64_t with overflow detected and
 * an exact fallback (sc_prog).  Caller-owned; must not outlive the
 * context. */
typedef struct sc_guard_checker sc_guard_checker;

sc_status sc_guard_set_compile(const sc_guard_set *gs,
                               sc_guard_checker **out, sc_error *err);
void sc_guard_checker_free(sc_guard_checker *chk);
size_t sc_guard_checker_source_count(const sc_guard_checker *chk);
size_t sc_guard_checker_count(const sc_guard_checker *chk);

/* Check concrete sizes: values[i] is the size at source i.  *first_failing
 * is the index of the first guard that does not hold or whose evaluation
 * divides by zero (it fails, as a guard that raises fails in PyTorch's
 * guard function), or sc_guard_checker_count() when all hold.  Time: linear in the size of the
 * guard set, no allocation for up to 128 sources.  Thread-safe (the
 * checker is not modified). */
sc_status sc_guard_checker_check(const sc_guard_checker *chk,
                                 const int64_t *values,
                                 size_t *first_failing, sc_error *err);

#ifdef __cplusplus
}
#endif

#endif /* SYMCUT_GUARDS_H */
