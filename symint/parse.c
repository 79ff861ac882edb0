/* symcut — the expression parser: Python syntax, as PyTorch prints it.
 *
 * A hand-written recursive-descent parser with Python's precedence, from
 * loosest to tightest:
 *     or  <  and  <  not  <  comparisons (chained)  <  |  <  &  <  + -
 *         <  * // %  <  unary - + ~  <  **  (right-associative)
 * where `&`, `|` and `~` are sympy's And, Or and Not (as sympy prints
 * them), on booleans only: so `Eq(a, 4) & ~Ne(a, b)` is a conjunction,
 * while in `a == 4 & b` the `&` binds first, as in Python, and is an
 * error, and so is `~a < 3` (the `~` takes `a` alone).
 * Primaries are decimal integers of any size, identifiers (symbols, True,
 * False), parenthesized expressions and calls of the known functions.
 * Nodes are built with the public constructors as soon as an operator is
 * complete, so the result is canonical.  Tokens are scanned on demand and
 * nothing is allocated on the common path (names and short literals are
 * copied into a buffer inside the parser, call arguments go to a small
 * stack inside the parser that spills to the heap only for very wide
 * calls).  The recursion keeps its frames small: 1000 levels of nesting
 * take a few hundred kilobytes of stack.
 */
#include <stdlib.h>
#include <string.h>

#include "symint/expr.h"

/* Parentheses, calls, unary operators, `not` and exponents nest at most
 * this deep; beyond it is SC_ERR_LIMIT (the parser recurses). */
#define PARSE_DEPTH_MAX 1000

typedef enum tok_kind {
    T_END,
    T_ERROR, /* a lexical error, already recorded */
    T_INT,
    T_NAME,
    T_TRUE,
    T_FALSE,
    T_AND,
    T_OR,
    T_NOT,
    T_AMP,
    T_PIPE,
    T_TILDE,
    T_LPAREN,
    T_RPAREN,
    T_COMMA,
    T_PLUS,
    T_MINUS,
    T_STAR,
    T_POW,
    T_FLOORDIV,
    T_SLASH,
    T_PERCENT,
    T_LT,
    T_LE,
    T_GT,
    T_GE,
    T_EQ,
    T_NE
} tok_kind;

/* A token; its line and column are computed from `start` only when an
 * error is reported (locate). */
typedef struct token {
    tok_kind kind;
    const char *start;
    size_t len;
} token;

#define INLINE_ARGS 32

typedef struct parser {
    sc_ctx *ctx;
    const char *p;          /* next character to scan */
    const char *source;     /* the whole text */
    int first_line;         /* line of text[0] */
    token tok;              /* the current token */
    const char *file;
    sc_error *err;
    sc_status status;       /* the first error (SC_OK while none) */
    int depth;
    sc_expr **args;         /* pending call arguments */
    size_t nargs, args_cap;
    sc_expr *inline_args[INLINE_ARGS];
    char text[128]; /* a name or literal, NUL-terminated (kept off the
                       recursion's stack frames) */
} parser;

/* Binary operator precedences (0: not a binary operator). */
enum {
    PREC_OR = 1,
    PREC_AND,
    PREC_NOT,
    PREC_CMP,
    PREC_BOR,
    PREC_BAND,
    PREC_ADD,
    PREC_MUL
};

/* ---- Errors ------------------------------------------------------------- */

/* The line and column (from 1) of the character at `at`: lines end at
 * '\n' (a backslash-newline joins lines but still starts a new one). */
static void locate(const parser *P, const char *at, int *line, int *col)
{
    const char *q, *line_start = P->source;
    int n = P->first_line;

    for (q = P->source; q < at; q++) {
        if (*q == '\n') {
            n++;
            line_start = q + 1;
        }
    }
    *line = n;
    *col = (int)(at - line_start) + 1;
}

/* Record the first error of the parse at the character `at`; returns
 * NULL. */
static sc_expr *fail_at(parser *P, sc_status code, const char *at,
                        const char *fmt, ...) SC__PRINTF(4, 5);

static sc_expr *fail_at(parser *P, sc_status code, const char *at,
                        const char *fmt, ...)
{
    char msg[SC_ERROR_MESSAGE_MAX];
    va_list ap;
    int line, col;

    if (P->status != SC_OK)
        return NULL;
    locate(P, at, &line, &col);
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    P->status = code;
    sc__error_set_at(P->err, code, P->file, line, col, "%s", msg);
    return NULL;
}

/* A constructor returned NULL: move the error recorded in the context to
 * the caller's error, located at the operator t. */
static sc_expr *fail_ctor_at(parser *P, const char *at)
{
    sc_error e;
    sc_status code;

    sc_error_init(&e);
    code = sc_ctx_take_error(P->ctx, &e);
    if (code == SC_OK)
        return fail_at(P, SC_ERR_INTERNAL, at,
                       "constructor failed without reporting an error");
    return fail_at(P, code, at, "%s",
                   e.message[0] ? e.message : sc_status_str(code));
}

static sc_expr *fail_ctor(parser *P, const token *t)
{
    return fail_ctor_at(P, t->start);
}

static sc_expr *check(parser *P, sc_expr *x, const token *t)
{
    return x ? x : fail_ctor(P, t);
}

/* check for an operator that started at `at`. */
static sc_expr *check_at(parser *P, sc_expr *x, const char *at)
{
    return x ? x : fail_ctor_at(P, at);
}

/* A token for messages: 'text' (shortened) or "end of input". */
static void describe(const token *t, char *buf, size_t size)
{
    if (t->kind == T_END)
        snprintf(buf, size, "end of input");
    else
        snprintf(buf, size, "'%.*s%s'", (int)(t->len > 40 ? 40 : t->len),
                 t->start, t->len > 40 ? "..." : "");
}

/* "expected <what><name>, got <the current token>". */
static sc_expr *fail_unexpected(parser *P, const char *what, const char *name)
{
    char d[64];

    if (P->tok.kind == T_ERROR)
        return NULL;
    describe(&P->tok, d, sizeof d);
    return fail_at(P, SC_ERR_PARSE, P->tok.start,
                   "expected %s%s, got %s", what, name, d);
}

/* ---- Scanner ------------------------------------------------------------ */

/* Character classes of the scanner. */
enum { C_SPACE = 1, C_DIGIT = 2, C_ALPHA = 4, C_IDENT = C_DIGIT | C_ALPHA };

static const unsigned char cclass[256] = {
    [' '] = C_SPACE, ['\t'] = C_SPACE, ['\n'] = C_SPACE, ['\r'] = C_SPACE,
    ['\f'] = C_SPACE, ['\v'] = C_SPACE,
    ['0'] = C_DIGIT, ['1'] = C_DIGIT, ['2'] = C_DIGIT, ['3'] = C_DIGIT,
    ['4'] = C_DIGIT, ['5'] = C_DIGIT, ['6'] = C_DIGIT, ['7'] = C_DIGIT,
    ['8'] = C_DIGIT, ['9'] = C_DIGIT,
    ['_'] = C_ALPHA,
    ['a'] = C_ALPHA, ['b'] = C_ALPHA, ['c'] = C_ALPHA, ['d'] = C_ALPHA,
    ['e'] = C_ALPHA, ['f'] = C_ALPHA, ['g'] = C_ALPHA, ['h'] = C_ALPHA,
    ['i'] = C_ALPHA, ['j'] = C_ALPHA, ['k'] = C_ALPHA, ['l'] = C_ALPHA,
    ['m'] = C_ALPHA, ['n'] = C_ALPHA, ['o'] = C_ALPHA, ['p'] = C_ALPHA,
    ['q'] = C_ALPHA, ['r'] = C_ALPHA, ['s'] = C_ALPHA, ['t'] = C_ALPHA,
    ['u'] = C_ALPHA, ['v'] = C_ALPHA, ['w'] = C_ALPHA, ['x'] = C_ALPHA,
    ['y'] = C_ALPHA, ['z'] = C_ALPHA,
    ['A'] = C_ALPHA, ['B'] = C_ALPHA, ['C'] = C_ALPHA, ['D'] = C_ALPHA,
    ['E'] = C_ALPHA, ['F'] = C_ALPHA, ['G'] = C_ALPHA, ['H'] = C_ALPHA,
    ['I'] = C_ALPHA, ['J'] = C_ALPHA, ['K'] = C_ALPHA, ['L'] = C_ALPHA,
    ['M'] = C_ALPHA, ['N'] = C_ALPHA, ['O'] = C_ALPHA, ['P'] = C_ALPHA,
    ['Q'] = C_ALPHA, ['R'] = C_ALPHA, ['S'] = C_ALPHA, ['T'] = C_ALPHA,
    ['U'] = C_ALPHA, ['V'] = C_ALPHA, ['W'] = C_ALPHA, ['X'] = C_ALPHA,
    ['Y'] = C_ALPHA, ['Z'] = C_ALPHA,
};

static bool has_class(char c, unsigned cls)
{
    return (cclass[(unsigned char)c] & cls) != 0;
}

/* Skip blanks, newlines and Python's explicit line joining (a backslash
 * before a newline). */
static const char *skip_space(const char *p)
{
    for (;;) {
        while (has_class(*p, C_SPACE))
            p++;
        if (*p != '\\' ||
            !(p[1] == '\n' || (p[1] == '\r' && p[2] == '\n')))
            return p;
        p += p[1] == '\n' ? 2 : 3;
    }
}

/* A lexical error at the character at. */
static void lex_error(parser *P, const char *at, const char *fmt,
                      unsigned char c)
{
    char shown[8];

    if (c >= 0x20 && c < 0x7f)
        snprintf(shown, sizeof shown, "%c", c);
    else
        snprintf(shown, sizeof shown, "\\x%02x", c);
    P->tok.kind = T_ERROR;
    fail_at(P, SC_ERR_PARSE, at, fmt, shown);
}

/* The keyword kind of an identifier, or T_NAME. */
static tok_kind keyword(const char *s, size_t n)
{
    switch (n) {
    case 2:
        return s[0] == 'o' && s[1] == 'r' ? T_OR : T_NAME;
    case 3:
        if (s[0] == 'a' && s[1] == 'n' && s[2] == 'd')
            return T_AND;
        return s[0] == 'n' && s[1] == 'o' && s[2] == 't' ? T_NOT : T_NAME;
    case 4:
        return s[0] == 'T' && memcmp(s, "True", 4) == 0 ? T_TRUE : T_NAME;
    case 5:
        return s[0] == 'F' && memcmp(s, "False", 5) == 0 ? T_FALSE : T_NAME;
    default:
        return T_NAME;
    }
}

/* The lexical error at p, inside the token that starts at P->tok.start
 * (then p follows the digits of a number) or at its start (kept out of
 * advance, which stays small). */
#if defined(__GNUC__)
__attribute__((noinline, cold))
#endif
static void lex_fail(parser *P, const char *p)
{
    if (p == P->tok.start && *p == '=')
        lex_error(P, p, "unexpected character '%s' (use '==' to compare)",
                  '=');
    else if (p > P->tok.start)
        lex_error(P, p, *p == '.'
                             ? "unexpected character '%s': only integers "
                               "are supported"
                             : "unexpected character '%s' in a number",
                  (unsigned char)*p);
    else
        lex_error(P, p, "unexpected character '%s'", (unsigned char)*p);
}

/* Scan the next token into P->tok. */
static void advance(parser *P)
{
    const char *p;
    token *t = &P->tok;

    p = skip_space(P->p);
    t->start = p;
    switch (*p) {
    case '\0':
        t->kind = T_END;
        t->len = 0;
        return;
    case '(': t->kind = T_LPAREN; p++; break;
    case ')': t->kind = T_RPAREN; p++; break;
    case ',': t->kind = T_COMMA; p++; break;
    case '+': t->kind = T_PLUS; p++; break;
    case '-': t->kind = T_MINUS; p++; break;
    case '%': t->kind = T_PERCENT; p++; break;
    case '&': t->kind = T_AMP; p++; break;
    case '|': t->kind = T_PIPE; p++; break;
    case '~': t->kind = T_TILDE; p++; break;
    case '*':
        if (p[1] == '*') { t->kind = T_POW; p += 2; }
        else { t->kind = T_STAR; p++; }
        break;
    case '/':
        if (p[1] == '/') { t->kind = T_FLOORDIV; p += 2; }
        else { t->kind = T_SLASH; p++; }
        break;
    case '<':
        if (p[1] == '=') { t->kind = T_LE; p += 2; }
        else { t->kind = T_LT; p++; }
        break;
    case '>':
        if (p[1] == '=') { t->kind = T_GE; p += 2; }
        else { t->kind = T_GT; p++; }
        break;
    case '=':
        if (p[1] != '=')
            goto bad;
        t->kind = T_EQ;
        p += 2;
        break;
    case '!':
        if (p[1] != '=')
            goto bad;
        t->kind = T_NE;
        p += 2;
        break;
    default:
        if (has_class(*p, C_DIGIT)) {
            while (has_class(*p, C_DIGIT))
                p++;
            if (has_class(*p, C_IDENT) || *p == '.')
                goto bad;
            t->kind = T_INT;
        } else if (has_class(*p, C_ALPHA)) {
            while (has_class(*p, C_IDENT))
                p++;
            t->kind = keyword(t->start, (size_t)(p - t->start));
        } else {
            goto bad;
        }
        break;
    }
    t->len = (size_t)(p - t->start);
    P->p = p;
    return;
bad:
    lex_fail(P, p);
}

/* ---- Nesting and the argument stack ------------------------------------- */

static bool enter_at(parser *P, const char *at)
{
    if (++P->depth > PARSE_DEPTH_MAX) {
        fail_at(P, SC_ERR_LIMIT, at,
                "expression nested deeper than %d levels", PARSE_DEPTH_MAX);
        return false;
    }
    return true;
}

static bool enter(parser *P, const token *t)
{
    return enter_at(P, t->start);
}

static bool push_arg_slow(parser *P, sc_expr *x)
{
    sc_expr **n;
    size_t cap;

    if (P->nargs == P->args_cap) {
        cap = P->args_cap * 2;
        if (P->args == P->inline_args) {
            n = sc__malloc(cap * sizeof *n);
            if (n)
                memcpy(n, P->args, P->nargs * sizeof *n);
        } else {
            n = sc__realloc(P->args, cap * sizeof *n);
        }
        if (!n) {
            fail_at(P, SC_ERR_NOMEM, P->tok.start,
                    "out of memory");
            return false;
        }
        P->args = n;
        P->args_cap = cap;
    }
    P->args[P->nargs++] = x;
    return true;
}

static inline bool push_arg(parser *P, sc_expr *x)
{
    if (SC__LIKELY(P->nargs < P->args_cap)) {
        P->args[P->nargs++] = x;
        return true;
    }
    return push_arg_slow(P, x);
}

/* ---- Primaries ---------------------------------------------------------- */

static sc_expr *parse_expr(parser *P, int minprec);
static sc_expr *parse_climb(parser *P, sc_expr *x, int minprec);
static sc_expr *parse_unary(parser *P);

/* A decimal literal: int64 fast path, GMP beyond 18 digits. */
static sc_expr *make_int(parser *P, const token *t)
{
    char *s;
    sc_expr *x;
    int64_t v = 0;
    size_t i;

    if (t->len <= 18) {
        for (i = 0; i < t->len; i++)
            v = v * 10 + (t->start[i] - '0');
        return check(P, sc_expr_int_si(P->ctx, v), t);
    }
    s = t->len < sizeof P->text ? P->text : sc__malloc(t->len + 1);
    if (!s)
        return fail_at(P, SC_ERR_NOMEM, t->start, "out of memory");
    memcpy(s, t->start, t->len);
    s[t->len] = '\0';
    x = sc_expr_int_str(P->ctx, s);
    if (s != P->text)
        sc__free(s);
    return check(P, x, t);
}

typedef enum func {
    F_NONE,
    F_FLOORDIV,
    F_CEILDIV,
    F_MOD,
    F_PYTHONMOD,
    F_MIN,
    F_MAX,
    F_POW,
    F_EQ,
    F_NE,
    F_LT,
    F_LE,
    F_GT,
    F_GE,
    F_AND,
    F_OR,
    F_NOT
} func;

/* Name and arity (min, max; max 0: unbounded) of each function. */
static const struct {
    const char *name;
    unsigned min, max;
} funcs[] = {
    [F_NONE] = {"", 0, 0},
    [F_FLOORDIV] = {"FloorDiv", 2, 2},
    [F_CEILDIV] = {"CeilDiv", 2, 2},
    [F_MOD] = {"Mod", 2, 2},
    [F_PYTHONMOD] = {"PythonMod", 2, 2},
    [F_MIN] = {"Min", 1, 0},
    [F_MAX] = {"Max", 1, 0},
    [F_POW] = {"Pow", 2, 2},
    [F_EQ] = {"Eq", 2, 2},
    [F_NE] = {"Ne", 2, 2},
    [F_LT] = {"Lt", 2, 2},
    [F_LE] = {"Le", 2, 2},
    [F_GT] = {"Gt", 2, 2},
    [F_GE] = {"Ge", 2, 2},
    [F_AND] = {"And", 1, 0},
    [F_OR] = {"Or", 1, 0},
    [F_NOT] = {"Not", 1, 1},
};

static func lookup_func(const char *s, size_t n)
{
#define IS(lit) (memcmp(s, lit, n) == 0)
    if (s[0] < 'A' || s[0] > 'Z')
        return F_NONE;
    switch (n) {
    case 2:
        return IS("Eq") ? F_EQ : IS("Ne") ? F_NE : IS("Lt") ? F_LT
             : IS("Le") ? F_LE : IS("Gt") ? F_GT : IS("Ge") ? F_GE
             : IS("Or") ? F_OR : F_NONE;
    case 3:
        return IS("Mod") ? F_MOD : IS("Min") ? F_MIN : IS("Max") ? F_MAX
             : IS("Pow") ? F_POW : IS("And") ? F_AND : IS("Not") ? F_NOT
             : F_NONE;
    case 7:
        return IS("CeilDiv") ? F_CEILDIV : F_NONE;
    case 8:
        return IS("FloorDiv") ? F_FLOORDIV : F_NONE;
    case 9:
        return IS("PythonMod") ? F_PYTHONMOD : F_NONE;
    default:
        return F_NONE;
    }
#undef IS
}

/* base ** exponent: the exponent must be a natural constant. */
static sc_expr *make_pow(parser *P, sc_expr *base, sc_expr *exp,
                         const token *op, const token *at)
{
    bool negative;

    if (exp->kind != SC_EXPR_INT)
        return fail_at(P, SC_ERR_PARSE, at->start,
                       "the exponent must be a nonnegative integer "
                       "constant");
    negative = exp->u.value.big ? mpz_sgn(exp->u.value.big) < 0
                                : exp->u.value.small < 0;
    if (negative)
        return fail_at(P, SC_ERR_PARSE, at->start,
                       "the exponent must be a nonnegative integer "
                       "constant");
    if (exp->u.value.big)
        return fail_at(P, SC_ERR_LIMIT, at->start,
                       "exponent too large");
    return check(P, sc_expr_pow(P->ctx, base, (uint64_t)exp->u.value.small),
                 op);
}

static sc_expr *relation(sc_ctx *ctx, tok_kind k, sc_expr *a, sc_expr *b)
{
    switch (k) {
    case T_LT: return sc_expr_lt(ctx, a, b);
    case T_LE: return sc_expr_le(ctx, a, b);
    case T_GT: return sc_expr_gt(ctx, a, b);
    case T_GE: return sc_expr_ge(ctx, a, b);
    case T_EQ: return sc_expr_eq(ctx, a, b);
    default: return sc_expr_ne(ctx, a, b);
    }
}

static sc_expr *apply_func(parser *P, func f, const token *name,
                           sc_expr **a, size_t n)
{
    sc_ctx *ctx = P->ctx;
    sc_expr *x = NULL;

    if (n < funcs[f].min || (funcs[f].max && n > funcs[f].max)) {
        if (funcs[f].min == funcs[f].max)
            return fail_at(P, SC_ERR_PARSE, name->start,
                           "%s takes %u argument%s (%zu given)",
                           funcs[f].name, funcs[f].min,
                           funcs[f].min == 1 ? "" : "s", n);
        return fail_at(P, SC_ERR_PARSE, name->start,
                       "%s takes at least %u argument%s (%zu given)",
                       funcs[f].name, funcs[f].min,
                       funcs[f].min == 1 ? "" : "s", n);
    }
    switch (f) {
    case F_FLOORDIV: x = sc_expr_floordiv(ctx, a[0], a[1]); break;
    case F_CEILDIV: x = sc_expr_ceildiv(ctx, a[0], a[1]); break;
    case F_MOD:
    case F_PYTHONMOD: x = sc_expr_mod(ctx, a[0], a[1]); break;
    /* One argument: Min(x) is x, with the constructor's type check. */
    case F_MIN:
        x = n == 1 ? sc_expr_min(ctx, a[0], a[0]) : sc_expr_min_n(ctx, n, a);
        break;
    case F_MAX:
        x = n == 1 ? sc_expr_max(ctx, a[0], a[0]) : sc_expr_max_n(ctx, n, a);
        break;
    case F_AND:
        x = n == 1 ? sc_expr_and(ctx, a[0], a[0]) : sc_expr_and_n(ctx, n, a);
        break;
    case F_OR:
        x = n == 1 ? sc_expr_or(ctx, a[0], a[0]) : sc_expr_or_n(ctx, n, a);
        break;
    case F_POW: return make_pow(P, a[0], a[1], name, name);
    case F_EQ: x = sc_expr_eq(ctx, a[0], a[1]); break;
    case F_NE: x = sc_expr_ne(ctx, a[0], a[1]); break;
    case F_LT: x = sc_expr_lt(ctx, a[0], a[1]); break;
    case F_LE: x = sc_expr_le(ctx, a[0], a[1]); break;
    case F_GT: x = sc_expr_gt(ctx, a[0], a[1]); break;
    case F_GE: x = sc_expr_ge(ctx, a[0], a[1]); break;
    case F_NOT: x = sc_expr_not(ctx, a[0]); break;
    case F_NONE: break;
    }
    return check(P, x, name);
}

/* name '(' args ')' with the current token the '('. */
static sc_expr *parse_call(parser *P, func f, const token *name)
{
    size_t base = P->nargs;
    sc_expr *x;

    if (!enter(P, name))
        return NULL;
    advance(P);
    while (P->tok.kind != T_RPAREN) {
        x = parse_expr(P, 0);
        if (!x || !push_arg(P, x))
            return NULL;
        if (P->tok.kind == T_COMMA) {
            advance(P);
            continue;
        }
        if (P->tok.kind != T_RPAREN)
            return fail_unexpected(P, "')' after arguments of ",
                                   funcs[f].name);
    }
    advance(P);
    P->depth--;
    x = apply_func(P, f, name, P->args + base, P->nargs - base);
    P->nargs = base;
    return x;
}

/* A symbol, or a call when a '(' follows the name. */
static sc_expr *parse_name(parser *P)
{
    token name = P->tok;
    char *s;
    sc_expr *x;
    func f;

    advance(P);
    f = lookup_func(name.start, name.len);
    if (P->tok.kind == T_LPAREN) {
        if (f == F_NONE)
            return fail_at(P, SC_ERR_PARSE, name.start,
                           "unknown function '%.*s'", (int)name.len,
                           name.start);
        return parse_call(P, f, &name);
    }
    if (f != F_NONE)
        return fail_at(P, SC_ERR_PARSE, P->tok.start,
                       "expected '(' after the function name %s",
                       funcs[f].name);
    /* Known symbols are found without copying the name (the context
     * caches them by name); new ones are made and checked. */
    x = sc__symbol_find(P->ctx, name.start, name.len);
    if (x)
        return x;
    s = name.len < sizeof P->text ? P->text : sc__malloc(name.len + 1);
    if (!s)
        return fail_at(P, SC_ERR_NOMEM, name.start,
                       "out of memory");
    memcpy(s, name.start, name.len);
    s[name.len] = '\0';
    x = sc_expr_symbol(P->ctx, s);
    if (s != P->text)
        sc__free(s);
    if (!x)
        return fail_ctor(P, &name);
    return x;
}

static sc_expr *parse_primary(parser *P)
{
    token t = P->tok;
    sc_expr *x;

    switch (t.kind) {
    case T_INT:
        advance(P);
        return make_int(P, &t);
    case T_NAME:
        return parse_name(P);
    case T_TRUE:
        advance(P);
        return check(P, sc_expr_true(P->ctx), &t);
    case T_FALSE:
        advance(P);
        return check(P, sc_expr_false(P->ctx), &t);
    case T_LPAREN:
        if (!enter(P, &t))
            return NULL;
        advance(P);
        x = parse_expr(P, 0);
        if (!x)
            return NULL;
        if (P->tok.kind != T_RPAREN)
            return fail_unexpected(P, "')'", "");
        advance(P);
        P->depth--;
        return x;
    default:
        return fail_unexpected(P, "an expression", "");
    }
}

/* ---- Operators ---------------------------------------------------------- */

/* primary ['**' unary]: the exponent binds tighter than a unary minus on
 * its left (-x**2 is -(x**2)) and is right-associative. */
static sc_expr *parse_power(parser *P)
{
    sc_expr *x, *y;
    token op, at;

    x = parse_primary(P);
    if (!x || P->tok.kind != T_POW)
        return x;
    op = P->tok;
    if (!enter(P, &op))
        return NULL;
    advance(P);
    at = P->tok;
    y = parse_unary(P);
    if (!y)
        return NULL;
    P->depth--;
    return make_pow(P, x, y, &op, &at);
}

/* The error of `~` (at at) with an integer operand. */
#if defined(__GNUC__)
__attribute__((noinline, cold))
#endif
static sc_expr *tilde_fail(parser *P, const char *at)
{
    return fail_at(P, SC_ERR_PARSE, at,
                   "'~' negates a boolean (sympy's Not): its operand is an "
                   "integer (integer bitwise not is not supported; '~' binds "
                   "tighter than every binary operator but '**', so write "
                   "~(a < b))");
}

/* ('-' | '+' | '~') unary, or a power.  `~` is sympy's Not, at the level
 * of unary minus as in Python (`~Eq(a, 1) & b` is `(~Eq(a, 1)) & b`,
 * `~x**2` negates `x**2`); its operand must be a boolean. */
static sc_expr *parse_unary(parser *P)
{
    tok_kind kind = P->tok.kind;
    const char *at;
    sc_expr *x;

    if (kind != T_MINUS && kind != T_PLUS && kind != T_TILDE)
        return parse_power(P);
    at = P->tok.start;
    if (!enter_at(P, at))
        return NULL;
    advance(P);
    x = parse_unary(P);
    if (!x)
        return NULL;
    P->depth--;
    if (kind == T_MINUS)
        return check_at(P, sc_expr_neg(P->ctx, x), at);
    if (kind == T_TILDE) {
        if (!x->is_bool)
            return tilde_fail(P, at);
        return check_at(P, sc_expr_not(P->ctx, x), at);
    }
    if (x->is_bool)
        return fail_at(P, SC_ERR_TYPE, at,
                       "unary '+' needs an integer operand");
    return x;
}

static int binary_prec(tok_kind k)
{
    switch (k) {
    case T_OR: return PREC_OR;
    case T_AND: return PREC_AND;
    case T_LT:
    case T_LE:
    case T_GT:
    case T_GE:
    case T_EQ:
    case T_NE: return PREC_CMP;
    case T_PIPE: return PREC_BOR;
    case T_AMP: return PREC_BAND;
    case T_PLUS:
    case T_MINUS: return PREC_ADD;
    case T_STAR:
    case T_FLOORDIV:
    case T_PERCENT:
    case T_SLASH: return PREC_MUL;
    default: return 0;
    }
}

static sc_expr *binary(sc_ctx *ctx, tok_kind k, sc_expr *a, sc_expr *b)
{
    switch (k) {
    case T_OR:
    case T_PIPE: return sc_expr_or(ctx, a, b);
    case T_AND:
    case T_AMP: return sc_expr_and(ctx, a, b);
    case T_PLUS: return sc_expr_add(ctx, a, b);
    case T_MINUS: return sc_expr_sub(ctx, a, b);
    case T_STAR: return sc_expr_mul(ctx, a, b);
    case T_FLOORDIV: return sc_expr_floordiv(ctx, a, b);
    default: return sc_expr_mod(ctx, a, b);
    }
}

/* a < b <= c ...: And(a < b, b <= c, ...), with x the first operand and
 * the current token the first comparison. */
static sc_expr *parse_chain(parser *P, sc_expr *x)
{
    sc_expr *acc = NULL, *y, *r;
    token op;

    while (binary_prec(P->tok.kind) == PREC_CMP) {
        op = P->tok;
        advance(P);
        y = parse_expr(P, PREC_BOR);
        if (!y)
            return NULL;
        r = check(P, relation(P->ctx, op.kind, x, y), &op);
        if (!r)
            return NULL;
        acc = acc ? check(P, sc_expr_and(P->ctx, acc, r), &op) : r;
        if (!acc)
            return NULL;
        x = y;
    }
    return acc;
}

/* x * y * ...: one n-ary product (the node is the one any grouping
 * gives; one call interns no intermediate products); the current token is
 * the first '*'. */
static sc_expr *parse_product(parser *P, sc_expr *x)
{
    size_t base = P->nargs;
    token op = P->tok;
    sc_expr *y;

    if (!push_arg(P, x))
        return NULL;
    while (P->tok.kind == T_STAR) {
        advance(P);
        y = parse_unary(P); /* parse_expr(P, PREC_MUL + 1) */
        if (!y || !push_arg(P, y))
            return NULL;
    }
    x = P->nargs - base == 2
            ? sc_expr_mul(P->ctx, P->args[base], P->args[base + 1])
            : sc_expr_mul_n(P->ctx, P->nargs - base, P->args + base);
    P->nargs = base;
    return check(P, x, &op);
}

/* x + y - z ...: the terms of a chain of + and - are summed at once
 * (sc__expr_add_signed), without the intermediate sums that folding from
 * the left would intern, while that gives the same node; an operand for
 * which it might not (a boolean, a Mod or a sum with a Mod term) is
 * combined as the fold does, at the same point (so an error is the same,
 * at the same operator).  The current token is the first + or -. */
#define SUM_PENDING 16
static sc_expr *parse_term(parser *P);

/* The sum of parse_sum's n >= 2 pending terms (two: the cached binary
 * constructors). */
static sc_expr *sum_pending(sc_ctx *ctx, sc_expr *const *v, const bool *neg,
                            size_t n)
{
    if (n > 2)
        return sc__expr_add_signed(ctx, n, v, neg);
    if (neg[1])
        return sc_expr_sub(ctx, v[0], v[1]);
    return sc_expr_add(ctx, v[0], v[1]);
}

static sc_expr *parse_sum(parser *P, sc_expr *x)
{
    sc_expr *v[SUM_PENDING], *y, *acc = x;
    bool neg[SUM_PENDING], acc_safe = sc__expr_sum_safe(x);
    size_t n = 1;
    const char *at = P->tok.start;
    tok_kind kind;

    v[0] = x;
    neg[0] = false;
    while (P->tok.kind == T_PLUS || P->tok.kind == T_MINUS) {
        kind = P->tok.kind;
        at = P->tok.start;
        advance(P);
        y = parse_term(P);
        if (!y)
            return NULL;
        if (acc_safe && sc__expr_sum_safe(y) && n < SUM_PENDING) {
            v[n] = y;
            neg[n++] = kind == T_MINUS;
            continue;
        }
        /* Flush the pending terms, then fold y in. */
        if (n > 1) {
            acc = check_at(P, sum_pending(P->ctx, v, neg, n), at);
            if (!acc)
                return NULL;
        }
        acc = check_at(P, binary(P->ctx, kind, acc, y), at);
        if (!acc)
            return NULL;
        acc_safe = sc__expr_sum_safe(acc);
        v[0] = acc;
        n = 1;
    }
    if (n == 1)
        return acc;
    return check_at(P, sum_pending(P->ctx, v, neg, n), at);
}

/* The error of `&` or `|` (at at) with the integer operand e. */
#if defined(__GNUC__)
__attribute__((noinline, cold))
#endif
static sc_expr *bitwise_fail(parser *P, tok_kind kind, bool left,
                             const char *at)
{
    char op = kind == T_AMP ? '&' : '|';
    return fail_at(P, SC_ERR_PARSE, at,
                   "'%c' joins booleans (sympy's %s): its %s operand is an "
                   "integer (integer bitwise operators are not supported; '%c' binds "
                   "tighter than comparisons, so write (a < b) %c (c < d))",
                   op, kind == T_AMP ? "And" : "Or", left ? "left" : "right",
                   op, op);
}

/* Precedence climbing over the binary operators of precedence >= minprec
 * (and `not` when minprec allows it). */
static sc_expr *parse_expr(parser *P, int minprec)
{
    sc_expr *x;
    const char *at;

    if (P->tok.kind == T_NOT && minprec <= PREC_NOT) {
        at = P->tok.start;
        if (!enter_at(P, at))
            return NULL;
        advance(P);
        x = parse_expr(P, PREC_NOT);
        if (!x)
            return NULL;
        P->depth--;
        x = check_at(P, sc_expr_not(P->ctx, x), at);
    } else {
        x = parse_unary(P);
    }
    return parse_climb(P, x, minprec);
}

/* The loop of parse_expr: x (NULL after an error) followed by binary
 * operators of precedence >= minprec. */
static sc_expr *parse_climb(parser *P, sc_expr *x, int minprec)
{
    sc_expr *y;
    tok_kind kind;
    const char *at;
    int prec;

    while (x) {
        kind = P->tok.kind;
        prec = binary_prec(kind);
        if (prec == 0 || prec < minprec)
            break;
        if (prec == PREC_CMP) {
            x = parse_chain(P, x);
            continue;
        }
        at = P->tok.start;
        if (kind == T_SLASH)
            return fail_at(P, SC_ERR_PARSE, at,
                           "true division '/' is not supported; use '//' "
                           "for floor division");
        if (kind == T_STAR) {
            x = parse_product(P, x);
            continue;
        }
        if (kind == T_PLUS || kind == T_MINUS) {
            x = parse_sum(P, x);
            continue;
        }
        advance(P);
        y = prec == PREC_MUL ? parse_unary(P) : parse_expr(P, prec + 1);
        if (!y)
            return NULL;
        if ((kind == T_AMP || kind == T_PIPE) && (!x->is_bool || !y->is_bool))
            return bitwise_fail(P, kind, !x->is_bool, at);
        x = check_at(P, binary(P->ctx, kind, x, y), at);
    }
    return x;
}

/* parse_expr(P, PREC_MUL), without its call when no `*`, `//` or `%`
 * follows the first operand (the common case in sums). */
static sc_expr *parse_term(parser *P)
{
    sc_expr *x = parse_unary(P);
    if (!x || binary_prec(P->tok.kind) != PREC_MUL)
        return x;
    return parse_climb(P, x, PREC_MUL);
}

/* ---- Entry point -------------------------------------------------------- */

sc_status sc_expr_parse(sc_ctx *ctx, const char *text, const char *file,
                        int first_line, sc_expr **out, sc_error *err)
{
    parser P;
    sc_expr *x = NULL;

    if (!ctx || !text || !out)
        return sc__error_set(err, SC_ERR_INVALID,
                             "sc_expr_parse: NULL context, text or output");
    P.ctx = ctx;
    P.p = P.source = text;
    P.first_line = first_line > 0 ? first_line : 1;
    P.file = file;
    P.err = err;
    P.status = SC_OK;
    P.depth = 0;
    P.args = P.inline_args;
    P.nargs = 0;
    P.args_cap = INLINE_ARGS;

    advance(&P);
    if (P.tok.kind == T_END)
        fail_at(&P, SC_ERR_PARSE, P.tok.start, "empty expression");
    else
        x = parse_expr(&P, 0);
    if (x && P.tok.kind != T_END) {
        char d[64];
        describe(&P.tok, d, sizeof d);
        x = fail_at(&P, SC_ERR_PARSE, P.tok.start,
                    "trailing input %s after the expression", d);
    }
    if (P.args != P.inline_args)
        sc__free(P.args);
    if (!x) {
        *out = NULL;
        return P.status != SC_OK ? P.status : SC_ERR_INTERNAL;
    }
    *out = x;
    return SC_OK;
}
