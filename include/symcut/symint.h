/* symcut — exact symbolic integers.
 *
 * Expressions are immutable nodes interned in a context (hash-consing): two
 * structurally equal expressions are the same pointer, so equality is `==`.
 * They live as long as their context; there is no per-expression free.
 *
 * Integers are exact (GMP).  Operators follow Python's integer semantics:
 * FloorDiv rounds toward -infinity, Mod takes the sign of the divisor
 * (-7 // 2 == -4, -7 % 2 == 1, 7 % -2 == -1), CeilDiv(a, b) == -((-a) // b).
 *
 * Conventions of this header:
 *  - Constructors (sc_expr_add, sc_expr_floordiv, ...) return the interned
 *    node, or NULL on failure with the reason recorded in the context
 *    (sc_ctx_error).  They accept NULL arguments and then return NULL without
 *    touching the recorded error, so that nested calls need one check at the
 *    end (the style of ISL).
 *  - Every other fallible function returns an sc_status and fills the
 *    caller's sc_error.
 *  - Expressions are either integer-valued or boolean-valued; mixing them is
 *    SC_ERR_TYPE.
 *
 * Canonical forms (so that equivalent spellings intern to one node):
 *  - Add is a constant plus a sum of (integer coefficient * term); terms are
 *    products, atoms or non-polynomial nodes, sorted (total degree
 *    descending, then structurally), like terms combined.  `2*s0` is an Add
 *    with constant 0 and one term.
 *  - Mul is a product of bases with natural exponents, coefficient 1; Pow is
 *    a Mul with one base (`s0**2`).  No base is a sum: every product of
 *    sums is expanded (the expanded polynomial is the one form that does not
 *    depend on how the factors were grouped), and a product whose
 *    expansion would exceed the limit (sc_ctx_expand_limit) fails with
 *    SC_ERR_LIMIT instead.
 *  - A node stands for a tree whose printed form repeats shared subtrees:
 *    a node whose printed form would pass 2**20 characters of symbol names
 *    and digits is refused by every constructor with SC_ERR_LIMIT
 *    ("expression too large").
 *  - Relations are `e == 0`, `e != 0` or `e <= 0` with e having coprime
 *    coefficients (divided by their gcd, rounding the constant the sound way)
 *    and, for Eq/Ne, a positive leading coefficient.  Lt/Gt/Ge are rewritten
 *    into Le (integers: a < b is a - b + 1 <= 0).
 *  - Not is pushed into relations and through And/Or (De Morgan), so no Not
 *    node exists.  And/Or are flattened, deduplicated, sorted, with the
 *    constants absorbed.
 *  - Min/Max are flattened, deduplicated and sorted, constants folded into one.
 */
#ifndef SYMCUT_SYMINT_H
#define SYMCUT_SYMINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <gmp.h>

#include <symcut/error.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sc_ctx sc_ctx;
typedef struct sc_expr sc_expr;

typedef enum sc_expr_kind {
    SC_EXPR_INT,      /* an exact integer */
    SC_EXPR_SYMBOL,   /* a named symbol */
    SC_EXPR_ADD,      /* constant + sum of coefficient * term */
    SC_EXPR_MUL,      /* product of base ** exponent (Pow: one base) */
    SC_EXPR_FLOORDIV, /* args[0] // args[1] */
    SC_EXPR_CEILDIV,  /* -((-args[0]) // args[1]) */
    SC_EXPR_MOD,      /* args[0] % args[1], Python sign rule */
    SC_EXPR_MIN,
    SC_EXPR_MAX,
    SC_EXPR_TRUE,
    SC_EXPR_FALSE,
    SC_EXPR_EQ,       /* args[0] == 0 */
    SC_EXPR_NE,       /* args[0] != 0 */
    SC_EXPR_LE,       /* args[0] <= 0 */
    SC_EXPR_AND,
    SC_EXPR_OR
} sc_expr_kind;

/* ---- Context ---------------------------------------------------------- */

/* A new context, or NULL when memory is exhausted.  Installs, once per
 * process, GMP allocation functions that report exhaustion to symcut
 * instead of aborting (they chain to the functions installed before). */
sc_ctx *sc_ctx_new(void);

/* Free a context and every expression interned in it.  NULL is a no-op. */
void sc_ctx_free(sc_ctx *ctx);

/* The error recorded by the last failing constructor (code SC_OK if none). */
const sc_error *sc_ctx_error(const sc_ctx *ctx);

/* Copy the recorded error into err (if non-NULL), clear it, and return its
 * code. */
sc_status sc_ctx_take_error(sc_ctx *ctx, sc_error *err);

/* Number of interned nodes (for statistics and tests). */
size_t sc_ctx_node_count(const sc_ctx *ctx);

/* Limit L on the number of terms an expanded product may have (default
 * 1024; a product never fails for having as many terms as its largest
 * sum factor).  A product of sums beyond it fails with SC_ERR_LIMIT: with
 * T = max(L, terms of the largest sum), after each step of the expansion
 * (a sum's power made by repeated squaring, then the sums multiplied in,
 * fewest terms first) at most T terms, at most max(16*L, L*L/4, 2*T + 2)
 * products formed in one step and 4 times that in all (a product with a
 * big coefficient counting one more per 64-bit word), their monomials at
 * most twice as many bases as that (in one step and in all), in one step
 * at most as many 64-bit words of big coefficients as products allowed
 * (estimated from each side's largest coefficient), at most T sums; the
 * counts of products, bases and words are checked before a step. */
size_t sc_ctx_expand_limit(const sc_ctx *ctx);
void sc_ctx_set_expand_limit(sc_ctx *ctx, size_t limit);

/* Symbols get dense indices 0, 1, ... in creation order. */
size_t sc_ctx_symbol_count(const sc_ctx *ctx);
sc_expr *sc_ctx_symbol(const sc_ctx *ctx, size_t index);

/* ---- Constructors ----------------------------------------------------- */

sc_expr *sc_expr_int_si(sc_ctx *ctx, int64_t value);
sc_expr *sc_expr_int_mpz(sc_ctx *ctx, mpz_srcptr value);
/* A decimal integer with an optional sign; SC_ERR_PARSE otherwise. */
sc_expr *sc_expr_int_str(sc_ctx *ctx, const char *decimal);
sc_expr *sc_expr_true(sc_ctx *ctx);
sc_expr *sc_expr_false(sc_ctx *ctx);
sc_expr *sc_expr_bool(sc_ctx *ctx, bool value);

/* The symbol of that name, created on first use.  The name must be an
 * identifier ([A-Za-z_][A-Za-z0-9_]*) that is not a reserved word of the
 * syntax (True, False, and, or, not, or an operator name such as Mod);
 * SC_ERR_INVALID otherwise. */
sc_expr *sc_expr_symbol(sc_ctx *ctx, const char *name);

sc_expr *sc_expr_add(sc_ctx *ctx, sc_expr *a, sc_expr *b);
sc_expr *sc_expr_sub(sc_ctx *ctx, sc_expr *a, sc_expr *b);
sc_expr *sc_expr_mul(sc_ctx *ctx, sc_expr *a, sc_expr *b);
sc_expr *sc_expr_neg(sc_ctx *ctx, sc_expr *a);
sc_expr *sc_expr_add_si(sc_ctx *ctx, sc_expr *a, int64_t b);
sc_expr *sc_expr_mul_si(sc_ctx *ctx, sc_expr *a, int64_t b);
sc_expr *sc_expr_add_n(sc_ctx *ctx, size_t n, sc_expr *const *args);
sc_expr *sc_expr_mul_n(sc_ctx *ctx, size_t n, sc_expr *const *args);
/* Natural exponent: a ** 0 == 1 (also for a == 0). */
sc_expr *sc_expr_pow(sc_ctx *ctx, sc_expr *base, uint64_t exponent);
/* A constant zero divisor is SC_ERR_DIV_ZERO here; a divisor that is zero
 * only for some values of its symbols is an error at evaluation. */
sc_expr *sc_expr_floordiv(sc_ctx *ctx, sc_expr *a, sc_expr *b);
sc_expr *sc_expr_ceildiv(sc_ctx *ctx, sc_expr *a, sc_expr *b);
sc_expr *sc_expr_mod(sc_ctx *ctx, sc_expr *a, sc_expr *b);
sc_expr *sc_expr_min(sc_ctx *ctx, sc_expr *a, sc_expr *b);
sc_expr *sc_expr_max(sc_ctx *ctx, sc_expr *a, sc_expr *b);
sc_expr *sc_expr_min_n(sc_ctx *ctx, size_t n, sc_expr *const *args);
sc_expr *sc_expr_max_n(sc_ctx *ctx, size_t n, sc_expr *const *args);
/* The Add e without its constant term, every coefficient divided by d:
 * for e = c + sum k_i*t_i, sum (k_i/d)*t_i, its terms in e's order (one
 * step, no re-canonicalization of the terms).  Errors (NULL, recorded in
 * the context): SC_ERR_INVALID when e is not an Add or d does not divide
 * every k_i, SC_ERR_DIV_ZERO when d is 0, SC_ERR_NOMEM.  O(terms). */
sc_expr *sc_expr_add_terms_divexact(sc_ctx *ctx, sc_expr *e, mpz_srcptr d);

sc_expr *sc_expr_eq(sc_ctx *ctx, sc_expr *a, sc_expr *b);
sc_expr *sc_expr_ne(sc_ctx *ctx, sc_expr *a, sc_expr *b);
sc_expr *sc_expr_lt(sc_ctx *ctx, sc_expr *a, sc_expr *b);
sc_expr *sc_expr_le(sc_ctx *ctx, sc_expr *a, sc_expr *b);
sc_expr *sc_expr_gt(sc_ctx *ctx, sc_expr *a, sc_expr *b);
sc_expr *sc_expr_ge(sc_ctx *ctx, sc_expr *a, sc_expr *b);

sc_expr *sc_expr_and(sc_ctx *ctx, sc_expr *a, sc_expr *b);
sc_expr *sc_expr_or(sc_ctx *ctx, sc_expr *a, sc_expr *b);
sc_expr *sc_expr_not(sc_ctx *ctx, sc_expr *a);
sc_expr *sc_expr_and_n(sc_ctx *ctx, size_t n, sc_expr *const *args);
sc_expr *sc_expr_or_n(sc_ctx *ctx, size_t n, sc_expr *const *args);

/* ---- Inspection ------------------------------------------------------- */

sc_expr_kind sc_expr_node_kind(const sc_expr *e);
/* Is e boolean-valued (True, False, a relation, And, Or)? */
bool sc_expr_is_bool(const sc_expr *e);
bool sc_expr_is_int(const sc_expr *e);       /* an integer constant */
bool sc_expr_is_symbol(const sc_expr *e);
/* Does the integer constant e fit in int64_t?  Then store it in *out. */
bool sc_expr_value_si(const sc_expr *e, int64_t *out);
/* Store the integer constant e in out (initialised by the caller). */
void sc_expr_value_mpz(const sc_expr *e, mpz_ptr out);
/* Symbol name and dense index. */
const char *sc_expr_symbol_name(const sc_expr *e);
size_t sc_expr_symbol_index(const sc_expr *e);
/* Children: Add terms, Mul bases, FloorDiv/CeilDiv/Mod operands, Min/Max
 * and And/Or arguments, the left side of a relation. */
size_t sc_expr_arg_count(const sc_expr *e);
sc_expr *sc_expr_arg(const sc_expr *e, size_t i);
/* Add: the coefficient of term i, and the constant. */
void sc_expr_add_coef(const sc_expr *e, size_t i, mpz_ptr out);
void sc_expr_add_constant(const sc_expr *e, mpz_ptr out);
/* Add: the sign (-1 or 1) of the coefficient of term i; 0 when e is not
 * an Add or i is out of range.  O(1), no allocation. */
int sc_expr_add_coef_sign(const sc_expr *e, size_t i);
/* Mul: the exponent of base i. */
uint64_t sc_expr_mul_exponent(const sc_expr *e, size_t i);
/* The total degree of e as a polynomial in its atoms (a symbol, or an
 * integer node that is not an Add or a Mul, such as FloorDiv, has degree
 * 1): 0 for a constant and for a boolean, the sum of the exponents
 * (saturated at UINT32_MAX) for a Mul, the largest over the terms for an
 * Add.  O(1) (kept in the node). */
unsigned sc_expr_degree(const sc_expr *e);
/* A content hash, stable across runs and contexts. */
uint64_t sc_expr_hash(const sc_expr *e);
/* The canonical total order (stable across runs): <0, 0, >0. */
int sc_expr_cmp(const sc_expr *a, const sc_expr *b);
/* Number of nodes in the expression tree (shared subtrees counted once per
 * occurrence). */
size_t sc_expr_size(const sc_expr *e);

/* ---- Symbol maps: substitutions and bindings --------------------------- */

/* A map from symbols to expressions; a binding maps symbols to integer
 * constants.  Owned by the caller; it refers to expressions of one context. */
typedef struct sc_symmap sc_symmap;

sc_symmap *sc_symmap_new(sc_ctx *ctx);
void sc_symmap_free(sc_symmap *map);
/* Map sym to value (replacing an earlier value); NULL value removes. */
sc_status sc_symmap_set(sc_symmap *map, sc_expr *sym, sc_expr *value,
                        sc_error *err);
sc_status sc_symmap_set_si(sc_symmap *map, sc_expr *sym, int64_t value,
                           sc_error *err);
sc_expr *sc_symmap_get(const sc_symmap *map, const sc_expr *sym);
void sc_symmap_clear(sc_symmap *map);

/* ---- Value ranges ----------------------------------------------------- */

/* An interval of the integers extended with -inf/+inf.  Caller-embedded:
 * sc_range_init / sc_range_clear.  Booleans use [0, 1] (False = 0). */
typedef struct sc_range {
    mpz_t lo, hi;
    bool lo_inf; /* lo is -infinity */
    bool hi_inf; /* hi is +infinity */
} sc_range;

void sc_range_init(sc_range *r);                 /* (-inf, +inf) */
void sc_range_clear(sc_range *r);
void sc_range_set(sc_range *dst, const sc_range *src);
void sc_range_set_si(sc_range *r, int64_t lo, int64_t hi);
void sc_range_set_unbounded(sc_range *r);
bool sc_range_contains_mpz(const sc_range *r, mpz_srcptr v);
bool sc_range_is_empty(const sc_range *r);
/* "[lo, hi]" with "-inf"/"inf"; malloc'ed, NULL on exhaustion. */
char *sc_range_to_str(const sc_range *r);

/* Ranges of symbols, for range computation and simplification.  A symbol
 * with no entry is unbounded. */
typedef struct sc_bounds sc_bounds;

sc_bounds *sc_bounds_new(sc_ctx *ctx);
void sc_bounds_free(sc_bounds *b);
sc_status sc_bounds_set(sc_bounds *b, sc_expr *sym, const sc_range *r,
                        sc_error *err);
/* lo_inf / hi_inf select infinity for that side. */
sc_status sc_bounds_set_si(sc_bounds *b, sc_expr *sym, bool lo_inf,
                           int64_t lo, bool hi_inf, int64_t hi, sc_error *err);
/* The range of sym, or NULL if unbounded. */
const sc_range *sc_bounds_get(const sc_bounds *b, const sc_expr *sym);
sc_status sc_bounds_copy(sc_bounds *dst, const sc_bounds *src, sc_error *err);

/* The range of e given the symbols' bounds (NULL: all unbounded).  Sound:
 * every value e takes for symbol values inside their ranges lies inside,
 * and as tight as interval arithmetic allows.  out is initialised by the
 * caller.  Time: linear in the size of e (with shared subtrees). */
sc_status sc_expr_range(sc_ctx *ctx, sc_expr *e, const sc_bounds *bounds,
                        sc_range *out, sc_error *err);

/* ---- Transformations -------------------------------------------------- */

/* e with every mapped symbol replaced by its value, re-canonicalised.
 * NULL on failure (recorded in ctx), e.g. a divisor that becomes 0. */
sc_expr *sc_expr_subst(sc_ctx *ctx, sc_expr *e, const sc_symmap *map);

/* Simplify e using the symbols' ranges (NULL: no assumptions): decides
 * FloorDiv/Mod/CeilDiv whose numerator range fits one quotient, Min/Max
 * whose arguments' ranges are ordered, relations whose sides' ranges
 * decide them.  The result equals e for every value inside the ranges. */
sc_expr *sc_expr_simplify(sc_ctx *ctx, sc_expr *e, const sc_bounds *bounds);

/* The free symbols of e, sorted by index, written to out[0..cap); returns
 * how many there are (which may exceed cap). */
size_t sc_expr_free_symbols(const sc_expr *e, sc_expr **out, size_t cap);
bool sc_expr_has_symbol(const sc_expr *e, const sc_expr *sym);

/* ---- Evaluation ------------------------------------------------------- */

/* Evaluate e with every free symbol bound to an integer constant in
 * binding.  Booleans give 0 or 1.  Errors: SC_ERR_UNBOUND (the symbol is
 * named), SC_ERR_DIV_ZERO.  out is initialised by the caller.
 * And/Or are decided by any deciding argument: an And with a false
 * argument is false even when another argument fails (divides by zero),
 * and an Or with a true argument is true; only an And/Or that no argument
 * decides reports an argument's error.  The rule does not depend on the
 * order of the arguments (which canonicalisation changes), and it agrees
 * with every short-circuit evaluation that succeeds. */
sc_status sc_expr_eval(sc_ctx *ctx, sc_expr *e, const sc_symmap *binding,
                       mpz_ptr out, sc_error *err);
/* Same, for a result that must fit in int64_t (SC_ERR_OVERFLOW if not). */
sc_status sc_expr_eval_si(sc_ctx *ctx, sc_expr *e, const sc_symmap *binding,
                          int64_t *out, sc_error *err);

/* A compiled program: a flat bytecode for a list of expressions, evaluated
 * over int64_t with overflow detected; an expression whose evaluation
 * overflows is re-evaluated exactly with GMP. */
typedef struct sc_prog sc_prog;

sc_status sc_prog_new(sc_ctx *ctx, size_t n, sc_expr *const *exprs,
                      sc_prog **out, sc_error *err);
void sc_prog_free(sc_prog *prog);
/* The program's inputs are its free symbols, sorted by index. */
size_t sc_prog_input_count(const sc_prog *prog);
sc_expr *sc_prog_input(const sc_prog *prog, size_t i);
size_t sc_prog_output_count(const sc_prog *prog);
/* Evaluate every expression; inputs[i] is the value of sc_prog_input(i).
 * An output that does not fit in int64_t is SC_ERR_OVERFLOW. */
sc_status sc_prog_eval(const sc_prog *prog, const int64_t *inputs,
                       int64_t *outputs, sc_error *err);
/* For boolean programs: the index of the first expression that is false
 * or whose evaluation divides by zero (a condition that cannot be
 * evaluated does not hold), or sc_prog_output_count() when all hold.
 * Errors: SC_ERR_LIMIT, SC_ERR_NOMEM (exact fallback only). */
sc_status sc_prog_first_false(const sc_prog *prog, const int64_t *inputs,
                              size_t *index, sc_error *err);

/* ---- Text ------------------------------------------------------------- */

/* Print e in the spelling PyTorch prints: `s0*s1 + 2`, `s0//8`,
 * `Mod(s0, 8)`, `CeilDiv(s0, 8)`, `Max(1, s1)`, `Eq(s0, s1)`, `s0 >= 2`,
 * `And(a, b)`.  sc_expr_parse of the text gives e back.  Returns a
 * malloc'ed string (free with free()), or NULL on exhaustion (recorded in
 * ctx). */
char *sc_expr_to_str(sc_ctx *ctx, const sc_expr *e);
/* Print to a stream; SC_ERR_IO on a write error. */
sc_status sc_expr_fprint(FILE *out, const sc_expr *e, sc_error *err);

/* Print e as a C expression over int64_t variables named like the
 * symbols, using the helpers that sc_expr_c_prelude() defines for
 * floor division, modulo, ceiling division, min and max.  Overflow rule:
 * every intermediate value is an int64_t; the text is correct exactly when
 * every intermediate value fits.  With bounds given, each intermediate
 * range is computed and a possible overflow is SC_ERR_OVERFLOW; with NULL
 * bounds the caller vouches for the rule. */
sc_status sc_expr_to_c(sc_ctx *ctx, sc_expr *e, const sc_bounds *bounds,
                       char **out, sc_error *err);
/* C definitions of the helpers the C printer uses (static inline). */
const char *sc_expr_c_prelude(void);

/* Parse the syntax the printer writes, plus `%`, `//`, `**`, `<`, `<=`,
 * `>`, `>=`, `==`, `!=`, chained comparisons, `and`/`or`/`not`, `&`/`|`
 * between booleans (sympy's And/Or, with Python's precedence: tighter
 * than comparisons, looser than `+`), unary minus, parentheses, and the function spellings FloorDiv, CeilDiv, Mod,
 * PythonMod, Min, Max, Pow, Eq, Ne, Lt, Le, Gt, Ge, And, Or, Not.
 * Unknown identifiers are symbols.  Errors are SC_ERR_PARSE (and those of
 * the constructors) with line and column set in err; `file` (may be
 * NULL) and `first_line` locate the text in its file.  Nesting deeper than
 * 1000 is SC_ERR_LIMIT, not a stack overflow. */
sc_status sc_expr_parse(sc_ctx *ctx, const char *text, const char *file,
                        int first_line, sc_expr **out, sc_error *err);

#ifdef __cplusplus
}
#endif

#endif /* SYMCUT_SYMINT_H */
