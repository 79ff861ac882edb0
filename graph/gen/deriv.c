/* gen-ops — derivative formulas: parse, type-check and compile to C.
 *
 * Each `derivatives:` formula of graph/ops.yaml (doc/autodiff.md) is parsed
 * into an expression tree, its names and calls are resolved against the op's
 * schema, the helper functions and the whole op table (overloads chosen by
 * the static types of the arguments), and graph/ops-autodiff-gen.c gets one
 * C function per differentiable op that evaluates the formulas through the
 * runtime of graph/autodiff.h: every call of a table op becomes a call of
 * sc__ad_call, which appends a node through the graph builder.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "graph/gen/gen.h"

/* ---- Static types ---------------------------------------------------------- */

enum {
    Y_TENSOR, Y_TLIST, Y_TUPLE, Y_INT, Y_ILIST, Y_FLOAT, Y_FLIST, Y_SCALAR,
    Y_BOOL, Y_BLIST, Y_STR, Y_DTYPE, Y_NONE, Y_ANY, Y_EMPTY, Y_COUNT
};

static const char *const y_names[Y_COUNT] = {
    "Tensor", "Tensor[]", "tuple", "int", "int[]", "float", "float[]",
    "Scalar", "bool", "bool[]", "str", "ScalarType", "None", "any", "[]",
};

static bool y_numeric(int y)
{
    return y == Y_INT || y == Y_FLOAT || y == Y_SCALAR;
}

/* The static type of a value of schema type t. */
static int y_of_type(const gen_type *t)
{
    if (t->is_list) {
        switch (t->base) {
        case T_TENSOR: return Y_TLIST;
        case T_INT: case T_SYMINT: return Y_ILIST;
        case T_FLOAT: case T_SYMFLOAT: return Y_FLIST;
        case T_BOOL: return Y_BLIST;
        default: return Y_ANY;
        }
    }
    switch (t->base) {
    case T_TENSOR: return Y_TENSOR;
    case T_INT: case T_SYMINT: return Y_INT;
    case T_FLOAT: case T_SYMFLOAT: return Y_FLOAT;
    case T_SCALAR: return Y_SCALAR;
    case T_BOOL: case T_SYMBOOL: return Y_BOOL;
    case T_STR: return Y_STR;
    case T_SCALAR_TYPE: return Y_DTYPE;
    default: return Y_ANY;
    }
}

/* Does a parameter of schema type t accept a value of static type y? */
static bool accepts(const gen_type *t, int y)
{
    if (y == Y_ANY || t->base == T_ANY)
        return true;
    if (y == Y_NONE)
        return t->optional;
    if (t->is_list) {
        if (y == Y_EMPTY)
            return t->base != T_TENSOR;
        switch (t->base) {
        case T_TENSOR: return y == Y_TLIST;
        case T_INT: case T_SYMINT:
            return y == Y_ILIST || (t->list_size > 0 && y == Y_INT);
        case T_FLOAT: case T_SYMFLOAT:
            return y == Y_FLIST || y == Y_ILIST;
        case T_BOOL: return y == Y_BLIST;
        default: return false;
        }
    }
    switch (t->base) {
    case T_TENSOR: return y == Y_TENSOR;
    case T_INT: case T_SYMINT: return y == Y_INT;
    case T_FLOAT: case T_SYMFLOAT: return y == Y_FLOAT || y == Y_INT ||
                                          y == Y_SCALAR;
    case T_SCALAR: return y_numeric(y) || y == Y_BOOL;
    case T_BOOL: case T_SYMBOOL: return y == Y_BOOL;
    case T_STR: return y == Y_STR;
    case T_SCALAR_TYPE: return y == Y_DTYPE;
    default: return false;
    }
}

/* ---- Helper functions (graph/autodiff-helpers.c: sc__ad_h_<name>) ------------ */

typedef struct helper {
    const char *name;
    size_t nparams;
    int params[5];
    int ret;
} helper;

static const helper helpers[] = {
    {"sym_sizes", 1, {Y_TENSOR}, Y_ILIST},
    {"sizes_or_none", 1, {Y_TENSOR}, Y_ILIST},
    {"sym_size", 2, {Y_TENSOR, Y_INT}, Y_INT},
    {"sym_strides", 1, {Y_TENSOR}, Y_ILIST},
    {"dim", 1, {Y_TENSOR}, Y_INT},
    {"sym_numel", 1, {Y_TENSOR}, Y_INT},
    {"scalar_type", 1, {Y_TENSOR}, Y_DTYPE},
    {"sum_to_size", 2, {Y_TENSOR, Y_ILIST}, Y_TENSOR},
    {"maybe_multiply", 2, {Y_TENSOR, Y_SCALAR}, Y_TENSOR},
    {"reshape_as_sizes", 2, {Y_TENSOR, Y_ILIST}, Y_TENSOR},
    {"cat_backward", 3, {Y_TENSOR, Y_TLIST, Y_INT}, Y_TLIST},
    {"permute_backwards", 2, {Y_TENSOR, Y_ILIST}, Y_TENSOR},
    {"dropout_scale", 2, {Y_FLOAT, Y_ANY}, Y_FLOAT},
    {"or_else", 2, {Y_ANY, Y_INT}, Y_INT},
    {"as_strided_offset", 2, {Y_TENSOR, Y_ANY}, Y_INT},
    {"div_mode_grad", 2, {Y_TENSOR, Y_ANY}, Y_TENSOR},
    {"log_scalar", 1, {Y_SCALAR}, Y_FLOAT},
    {"sum_backward", 4, {Y_TENSOR, Y_ILIST, Y_ANY, Y_BOOL}, Y_TENSOR},
    {"amax_backward", 5, {Y_TENSOR, Y_TENSOR, Y_TENSOR, Y_ILIST, Y_BOOL},
     Y_TENSOR},
    {"clamp_backward", 4, {Y_TENSOR, Y_TENSOR, Y_ANY, Y_ANY}, Y_TENSOR},
    {"value_selecting_reduction_backward", 5,
     {Y_TENSOR, Y_INT, Y_TENSOR, Y_ILIST, Y_BOOL}, Y_TENSOR},
    {"constant_pad_nd_backward", 2, {Y_TENSOR, Y_ILIST}, Y_TENSOR},
};
#define NHELPERS (sizeof helpers / sizeof helpers[0])

static bool helper_accepts(int param, int y)
{
    if (param == Y_ANY || y == Y_ANY)
        return true;
    if (param == y)
        return true;
    if (param == Y_SCALAR)
        return y_numeric(y) || y == Y_BOOL;
    if (param == Y_FLOAT)
        return y == Y_INT || y == Y_SCALAR;
    if (param == Y_ILIST)
        return y == Y_EMPTY;
    return false;
}

/* ---- Expressions --------------------------------------------------------------- */

enum {
    E_VAR, E_INT, E_FLOAT, E_STR, E_BOOL, E_NONE, E_LIST, E_CALL, E_INDEX,
    E_BIN, E_NEG
};

enum { V_ARG, V_GRAD, V_GRADS, V_RESULT, V_MASK };

typedef struct gen_expr {
    int kind;
    int col;                    /* 1-based, in the formula */
    char *name;                 /* variable or function */
    char *overload;             /* f.OVERLOAD(...); NULL */
    bool method;                /* x.f(...): args[0] is x */
    struct gen_expr **args;
    char **kw;                  /* per argument; NULL: positional */
    size_t nargs;
    int64_t i;
    double f;
    char *text;                 /* literal text (floats, strings) */
    bool b;
    char op;                    /* E_BIN: + - * / */
    /* resolution */
    int type, ntuple;
    int var, index;             /* E_VAR */
    const gen_op *callee;       /* E_CALL of a table op */
    int *slot;                  /* callee argument of each formula argument */
    int helper;                 /* E_CALL of a helper; -1 */
    bool arith;                 /* E_BIN / E_NEG on numbers */
} gen_expr;

typedef struct parser {
    const char *s, *p;
    const gen_op *op;
    const gen_deriv *d;
    bool failed;
} parser;

static void perr(parser *ps, int col, const char *fmt, ...) GEN_PRINTF(3, 4);

static void perr(parser *ps, int col, const char *fmt, ...)
{
    if (ps->failed)
        return;
    ps->failed = true;
    va_list ap;
    va_start(ap, fmt);
    char buf[512];
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    gen_error(ps->d->line, ps->d->col ? ps->d->col + col - 1 : 0,
              "%s: derivative for '%s', column %d: %s\n    %s\n    %*s^",
              ps->op->label, ps->d->key, col, buf, ps->s, col - 1, "");
}

static int pcol(const parser *ps) { return (int)(ps->p - ps->s) + 1; }

static void skip_ws(parser *ps)
{
    while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n')
        ps->p++;
}

static bool accept(parser *ps, char c)
{
    skip_ws(ps);
    if (*ps->p == c) {
        ps->p++;
        return true;
    }
    return false;
}

static bool expect(parser *ps, char c)
{
    if (accept(ps, c))
        return true;
    skip_ws(ps);
    if (*ps->p)
        perr(ps, pcol(ps), "expected '%c', found '%c'", c, *ps->p);
    else
        perr(ps, pcol(ps), "expected '%c' at the end of the formula", c);
    return false;
}

static bool is_id0(char c)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_id(char c) { return is_id0(c) || (c >= '0' && c <= '9'); }

static char *ident(parser *ps)
{
    skip_ws(ps);
    const char *b = ps->p;
    if (!is_id0(*b))
        return NULL;
    while (is_id(*ps->p))
        ps->p++;
    return gen_strndup(b, (size_t)(ps->p - b));
}

static gen_expr *new_expr(int kind, int col)
{
    gen_expr *e = gen_alloc(sizeof *e);
    e->kind = kind;
    e->col = col;
    e->helper = -1;
    return e;
}

static gen_expr *parse_expr(parser *ps);

static bool is_variable(const parser *ps, const char *name)
{
    static const char *const special[] = {
        "grad", "grads", "result", "grad_input_mask", "result0", "result1",
        "result2", "result3", "result4", "result5", "result6", "result7",
        "result8", "result9",
    };
    const gen_schema *s = &ps->op->schema;
    for (size_t a = 0; a < s->nargs; a++)
        if (strcmp(s->args[a].name, name) == 0)
            return true;
    for (size_t i = 0; i < sizeof special / sizeof special[0]; i++)
        if (strcmp(special[i], name) == 0)
            return true;
    return false;
}

/* '(' already consumed: arguments up to ')'. */
static void parse_args(parser *ps, gen_expr *call)
{
    gen_vec args = {0}, kws = {0};
    if (call->method) {
        gen_vec_push(&args, call->args[0]);
        gen_vec_push(&kws, NULL);
    }
    if (!accept(ps, ')')) {
        do {
            skip_ws(ps);
            const char *save = ps->p;
            char *kw = ident(ps);
            if (kw && accept(ps, '=') && *ps->p != '=') {
                /* keyword argument */
            } else {
                ps->p = save;
                kw = NULL;
            }
            gen_expr *a = parse_expr(ps);
            if (!a)
                return;
            gen_vec_push(&args, a);
            gen_vec_push(&kws, kw);
        } while (accept(ps, ','));
        if (!expect(ps, ')'))
            return;
    }
    call->args = (gen_expr **)args.items;
    call->kw = (char **)kws.items;
    call->nargs = args.n;
}

static gen_expr *parse_primary(parser *ps)
{
    skip_ws(ps);
    int col = pcol(ps);
    char c = *ps->p;
    if (c == '(') {
        ps->p++;
        gen_expr *e = parse_expr(ps);
        if (!e || !expect(ps, ')'))
            return NULL;
        return e;
    }
    if (c == '[') {
        ps->p++;
        gen_expr *e = new_expr(E_LIST, col);
        gen_vec items = {0};
        if (!accept(ps, ']')) {
            do {
                gen_expr *it = parse_expr(ps);
                if (!it)
                    return NULL;
                gen_vec_push(&items, it);
            } while (accept(ps, ','));
            if (!expect(ps, ']'))
                return NULL;
        }
        e->args = (gen_expr **)items.items;
        e->nargs = items.n;
        return e;
    }
    if (c == '\'' || c == '"') {
        const char *b = ++ps->p;
        while (*ps->p && *ps->p != c)
            ps->p++;
        if (!*ps->p) {
            perr(ps, col, "unterminated string");
            return NULL;
        }
        gen_expr *e = new_expr(E_STR, col);
        e->text = gen_strndup(b, (size_t)(ps->p - b));
        ps->p++;
        return e;
    }
    if ((c >= '0' && c <= '9') || (c == '.' && ps->p[1] >= '0' &&
                                   ps->p[1] <= '9')) {
        const char *b = ps->p;
        bool isf = false;
        while ((*ps->p >= '0' && *ps->p <= '9') || *ps->p == '.' ||
               *ps->p == 'e' || *ps->p == 'E' ||
               ((*ps->p == '-' || *ps->p == '+') &&
                (ps->p[-1] == 'e' || ps->p[-1] == 'E'))) {
            if (*ps->p == '.' || *ps->p == 'e' || *ps->p == 'E')
                isf = true;
            ps->p++;
        }
        char *text = gen_strndup(b, (size_t)(ps->p - b));
        char *end;
        errno = 0;
        gen_expr *e = new_expr(isf ? E_FLOAT : E_INT, col);
        e->text = text;
        if (isf)
            e->f = strtod(text, &end);
        else
            e->i = strtoll(text, &end, 10);
        if (*end || errno) {
            perr(ps, col, "bad number '%s'", text);
            return NULL;
        }
        return e;
    }
    char *name = ident(ps);
    if (!name) {
        if (*ps->p)
            perr(ps, col, "expected an expression, found '%c'", *ps->p);
        else
            perr(ps, col, "expected an expression at the end of the "
                 "formula");
        return NULL;
    }
    if (strcmp(name, "True") == 0 || strcmp(name, "False") == 0) {
        gen_expr *e = new_expr(E_BOOL, col);
        e->b = name[0] == 'T';
        return e;
    }
    if (strcmp(name, "None") == 0)
        return new_expr(E_NONE, col);
    skip_ws(ps);
    /* f.OVERLOAD( -- unless f is a variable (then a method call) */
    if (ps->p[0] == '.' && is_id0(ps->p[1]) && !is_variable(ps, name)) {
        const char *save = ps->p;
        ps->p++;
        char *ov = ident(ps);
        if (accept(ps, '(')) {
            gen_expr *e = new_expr(E_CALL, col);
            e->name = name;
            e->overload = ov;
            parse_args(ps, e);
            return ps->failed ? NULL : e;
        }
        ps->p = save;
    }
    if (accept(ps, '(')) {
        gen_expr *e = new_expr(E_CALL, col);
        e->name = name;
        parse_args(ps, e);
        return ps->failed ? NULL : e;
    }
    gen_expr *e = new_expr(E_VAR, col);
    e->name = name;
    return e;
}

static gen_expr *parse_postfix(parser *ps)
{
    gen_expr *e = parse_primary(ps);
    while (e) {
        skip_ws(ps);
        int col = pcol(ps);
        if (accept(ps, '[')) {
            skip_ws(ps);
            int icol = pcol(ps);
            gen_expr *ix = parse_primary(ps);
            if (!ix)
                return NULL;
            if (ix->kind != E_INT) {
                perr(ps, icol, "an index must be an integer literal");
                return NULL;
            }
            if (!expect(ps, ']'))
                return NULL;
            gen_expr *x = new_expr(E_INDEX, col);
            x->args = gen_alloc(sizeof *x->args);
            x->args[0] = e;
            x->nargs = 1;
            x->i = ix->i;
            e = x;
        } else if (ps->p[0] == '.' && is_id0(ps->p[1])) {
            ps->p++;
            int ncol = pcol(ps);
            char *name = ident(ps);
            if (!expect(ps, '('))
                return NULL;
            gen_expr *call = new_expr(E_CALL, ncol);
            call->name = name;
            call->method = true;
            call->args = gen_alloc(sizeof *call->args);
            call->args[0] = e;
            call->nargs = 1;
            parse_args(ps, call);
            if (ps->failed)
                return NULL;
            e = call;
        } else
            break;
    }
    return e;
}

static gen_expr *parse_unary(parser *ps)
{
    skip_ws(ps);
    int col = pcol(ps);
    if (accept(ps, '-')) {
        gen_expr *a = parse_unary(ps);
        if (!a)
            return NULL;
        if (a->kind == E_INT) {
            a->i = -a->i;
            a->text = gen_printf("-%s", a->text);
            return a;
        }
        if (a->kind == E_FLOAT) {
            a->f = -a->f;
            a->text = gen_printf("-%s", a->text);
            return a;
        }
        gen_expr *e = new_expr(E_NEG, col);
        e->args = gen_alloc(sizeof *e->args);
        e->args[0] = a;
        e->nargs = 1;
        return e;
    }
    return parse_postfix(ps);
}

static gen_expr *bin(char op, int col, gen_expr *a, gen_expr *b)
{
    gen_expr *e = new_expr(E_BIN, col);
    e->op = op;
    e->args = gen_alloc(2 * sizeof *e->args);
    e->args[0] = a;
    e->args[1] = b;
    e->nargs = 2;
    return e;
}

static gen_expr *parse_mul(parser *ps)
{
    gen_expr *e = parse_unary(ps);
    while (e) {
        skip_ws(ps);
        int col = pcol(ps);
        char c = *ps->p;
        if (c != '*' && c != '/')
            break;
        ps->p++;
        gen_expr *r = parse_unary(ps);
        if (!r)
            return NULL;
        e = bin(c, col, e, r);
    }
    return e;
}

static gen_expr *parse_expr(parser *ps)
{
    gen_expr *e = parse_mul(ps);
    while (e) {
        skip_ws(ps);
        int col = pcol(ps);
        char c = *ps->p;
        if (c != '+' && c != '-')
            break;
        ps->p++;
        gen_expr *r = parse_mul(ps);
        if (!r)
            return NULL;
        e = bin(c, col, e, r);
    }
    return e;
}

/* ---- Resolution ---------------------------------------------------------------- */

typedef struct resolver {
    parser *ps;
    const gen_table *t;
    unsigned grads_read;        /* bit i: grads[i] read */
    bool grads_list;            /* `grads` read */
} resolver;

static bool resolve(resolver *r, gen_expr *e);

static bool out_differentiable(const gen_op *op, size_t i)
{
    return !op->out_diff || op->out_diff[i];
}

static bool resolve_var(resolver *r, gen_expr *e)
{
    const gen_op *op = r->ps->op;
    const gen_schema *s = &op->schema;
    const char *n = e->name;
    for (size_t a = 0; a < s->nargs; a++)
        if (strcmp(s->args[a].name, n) == 0) {
            e->var = V_ARG;
            e->index = (int)a;
            e->type = y_of_type(&s->args[a].type);
            return true;
        }
    if (strcmp(n, "grad") == 0) {
        e->var = V_GRAD;
        e->index = 0;
        e->type = Y_TENSOR;
        if (s->nrets == 0 || !out_differentiable(op, 0)) {
            perr(r->ps, e->col, "'grad' is the gradient of return 0, "
                 "which is not differentiable");
            return false;
        }
        if (s->nrets == 1 && s->rets[0].type.is_list) {
            perr(r->ps, e->col, "the op returns a list: use 'grads'");
            return false;
        }
        r->grads_read |= 1u;
        return true;
    }
    if (strcmp(n, "grads") == 0) {
        e->var = V_GRADS;
        e->type = Y_TLIST;
        r->grads_list = true;
        return true;
    }
    if (strcmp(n, "result") == 0) {
        e->var = V_RESULT;
        e->index = -1;
        if (s->returns_tuple) {
            e->type = Y_TUPLE;
            e->ntuple = (int)s->nrets;
        } else if (s->nrets == 1)
            e->type = y_of_type(&s->rets[0].type);
        else
            e->type = Y_NONE;
        return true;
    }
    if (strncmp(n, "result", 6) == 0 && n[6] >= '0' && n[6] <= '9' &&
        !n[7]) {
        e->var = V_RESULT;
        e->index = n[6] - '0';
        if (!s->returns_tuple || (size_t)e->index >= s->nrets) {
            perr(r->ps, e->col, "'%s': the op has no return %d", n,
                 e->index);
            return false;
        }
        e->type = y_of_type(&s->rets[e->index].type);
        return true;
    }
    if (strcmp(n, "grad_input_mask") == 0) {
        e->var = V_MASK;
        e->type = Y_BLIST;
        return true;
    }
    perr(r->ps, e->col, "unknown name '%s' (not an argument of the op, "
         "nor grad, grads, result, grad_input_mask)", n);
    return false;
}

/* Bind the call's arguments to op's schema; true when every argument fits.
 * On failure *why says why (for the error message). */
static bool bind_call(const gen_op *op, gen_expr *e, int *slot, char **why)
{
    const gen_schema *s = &op->schema;
    bool *given = gen_alloc((s->nargs + 1) * sizeof *given);
    size_t pos = 0;
    for (size_t k = 0; k < e->nargs; k++) {
        size_t a;
        if (!e->kw[k]) {
            if (pos >= s->npositional) {
                *why = gen_printf("%s takes %zu positional arguments but "
                                  "%zu were given", op->dotted,
                                  s->npositional, pos + 1);
                return false;
            }
            a = pos++;
        } else {
            for (a = 0; a < s->nargs; a++)
                if (strcmp(s->args[a].name, e->kw[k]) == 0)
                    break;
            if (a == s->nargs) {
                *why = gen_printf("%s has no argument '%s'", op->dotted,
                                  e->kw[k]);
                return false;
            }
        }
        if (given[a]) {
            *why = gen_printf("%s: argument '%s' given twice", op->dotted,
                              s->args[a].name);
            return false;
        }
        given[a] = true;
        if (!accepts(&s->args[a].type, e->args[k]->type)) {
            *why = gen_printf("%s: argument '%s' does not accept a value of "
                              "type %s", op->dotted, s->args[a].name,
                              y_names[e->args[k]->type]);
            return false;
        }
        slot[k] = (int)a;
    }
    for (size_t a = 0; a < s->nargs; a++)
        if (!given[a] && s->args[a].def.kind == D_ABSENT) {
            *why = gen_printf("%s: missing argument '%s'", op->dotted,
                              s->args[a].name);
            return false;
        }
    return true;
}

static void set_call_type(gen_expr *e, const gen_op *op)
{
    const gen_schema *s = &op->schema;
    if (s->returns_tuple) {
        e->type = Y_TUPLE;
        e->ntuple = (int)s->nrets;
    } else if (s->nrets == 1)
        e->type = y_of_type(&s->rets[0].type);
    else
        e->type = Y_NONE;
}

/* Resolve a call of `name` (overload or not) on e's (resolved) args. */
static bool resolve_op_call(resolver *r, gen_expr *e)
{
    char *why = NULL;
    int *slot = gen_alloc((e->nargs + 1) * sizeof *slot);
    bool found_name = false;
    for (size_t i = 0; i < r->t->ops.n; i++) {
        const gen_op *op = r->t->ops.items[i];
        if (strcmp(op->schema.name, e->name) != 0 ||
            strcmp(op->ns, "aten") != 0)
            continue;
        if (e->overload) {
            const char *ov = op->schema.overload[0] ? op->schema.overload
                                                    : "default";
            if (strcmp(ov, e->overload) != 0)
                continue;
        }
        found_name = true;
        if (bind_call(op, e, slot, &why)) {
            e->callee = op;
            e->slot = slot;
            set_call_type(e, op);
            return true;
        }
    }
    if (!found_name) {
        if (e->overload)
            perr(r->ps, e->col, "unknown function '%s.%s' (no such op "
                 "overload in the table)", e->name, e->overload);
        else
            perr(r->ps, e->col, "unknown function '%s' (neither a helper "
                 "nor an op of the table)", e->name);
    } else {
        gen_str b = {0};
        for (size_t k = 0; k < e->nargs; k++)
            gen_str_printf(&b, "%s%s", k ? ", " : "",
                           y_names[e->args[k]->type]);
        perr(r->ps, e->col, "no overload of '%s' accepts (%s): %s",
             e->name, b.data ? b.data : "", why);
    }
    return false;
}

static bool resolve_call(resolver *r, gen_expr *e)
{
    for (size_t k = 0; k < e->nargs; k++)
        if (!resolve(r, e->args[k]))
            return false;
    if (!e->overload)
        for (size_t h = 0; h < NHELPERS; h++) {
            if (strcmp(helpers[h].name, e->name) != 0)
                continue;
            if (e->nargs != helpers[h].nparams) {
                perr(r->ps, e->col, "%s takes %zu arguments, not %zu",
                     e->name, helpers[h].nparams, e->nargs);
                return false;
            }
            for (size_t k = 0; k < e->nargs; k++) {
                if (e->kw[k]) {
                    perr(r->ps, e->args[k]->col, "the helper %s takes no "
                         "keyword arguments", e->name);
                    return false;
                }
                if (!helper_accepts(helpers[h].params[k],
                                    e->args[k]->type)) {
                    perr(r->ps, e->args[k]->col, "argument %zu of %s must "
                         "be %s, not %s", k + 1, e->name,
                         y_names[helpers[h].params[k]],
                         y_names[e->args[k]->type]);
                    return false;
                }
            }
            e->helper = (int)h;
            e->type = helpers[h].ret;
            return true;
        }
    return resolve_op_call(r, e);
}

/* Turn a tensor operator into a call of the op of that name. */
static bool resolve_bin(resolver *r, gen_expr *e)
{
    gen_expr *a = e->args[0], *b = e->args[1];
    if (!resolve(r, a) || !resolve(r, b))
        return false;
    if (y_numeric(a->type) && y_numeric(b->type)) {
        e->arith = true;
        e->type = a->type == Y_INT && b->type == Y_INT && e->op != '/'
                      ? Y_INT
                      : Y_FLOAT;
        return true;
    }
    const char *name = e->op == '+' ? "add" : e->op == '-' ? "sub"
                       : e->op == '*' ? "mul" : "div";
    if (y_numeric(a->type) && b->type == Y_TENSOR) {
        if (e->op == '+' || e->op == '*') {
            e->args[0] = b;
            e->args[1] = a;
        } else if (e->op == '-') {
            name = "rsub";
            e->args[0] = b;
            e->args[1] = a;
        } else {
            perr(r->ps, e->col, "number / Tensor is not supported (use "
                 "reciprocal)");
            return false;
        }
    }
    e->kind = E_CALL;
    e->name = gen_strdup(name);
    e->kw = gen_alloc(2 * sizeof *e->kw);
    return resolve_op_call(r, e);
}

static bool resolve(resolver *r, gen_expr *e)
{
    switch (e->kind) {
    case E_VAR:
        return resolve_var(r, e);
    case E_INT: e->type = Y_INT; return true;
    case E_FLOAT: e->type = Y_FLOAT; return true;
    case E_STR: e->type = Y_STR; return true;
    case E_BOOL: e->type = Y_BOOL; return true;
    case E_NONE: e->type = Y_NONE; return true;
    case E_LIST: {
        int t = Y_EMPTY;
        for (size_t k = 0; k < e->nargs; k++) {
            if (!resolve(r, e->args[k]))
                return false;
            int y = e->args[k]->type;
            int lt = y == Y_INT ? Y_ILIST : y == Y_BOOL ? Y_BLIST
                     : y == Y_FLOAT ? Y_FLIST : y == Y_TENSOR ? Y_TLIST
                     : -1;
            if (lt < 0 || (t != Y_EMPTY && t != lt)) {
                perr(r->ps, e->args[k]->col, "a list holds ints, floats, "
                     "bools or Tensors of one kind, not %s", y_names[y]);
                return false;
            }
            t = lt;
        }
        e->type = t;
        return true;
    }
    case E_CALL:
        return resolve_call(r, e);
    case E_BIN:
        return resolve_bin(r, e);
    case E_NEG:
        if (!resolve(r, e->args[0]))
            return false;
        if (y_numeric(e->args[0]->type)) {
            e->arith = true;
            e->type = e->args[0]->type;
            return true;
        }
        e->kind = E_CALL;
        e->name = gen_strdup("neg");
        e->kw = gen_alloc(sizeof *e->kw);
        return resolve_op_call(r, e);
    case E_INDEX: {
        gen_expr *base = e->args[0];
        if (base->kind == E_VAR && strcmp(base->name, "grads") == 0) {
            const gen_schema *s = &r->ps->op->schema;
            if (e->i < 0 || (size_t)e->i >= s->nrets || e->i >= 32) {
                perr(r->ps, e->col, "grads[%lld]: the op has %zu returns",
                     (long long)e->i, s->nrets);
                return false;
            }
            if (!out_differentiable(r->ps->op, (size_t)e->i)) {
                perr(r->ps, e->col, "grads[%lld]: return %lld is declared "
                     "not differentiable", (long long)e->i,
                     (long long)e->i);
                return false;
            }
            e->kind = E_VAR;
            e->nargs = 0;
            e->var = V_GRAD;
            e->index = (int)e->i;
            e->type = Y_TENSOR;
            r->grads_read |= 1u << e->index;
            return true;
        }
        if (base->kind == E_VAR && strcmp(base->name, "result") == 0) {
            const gen_schema *s = &r->ps->op->schema;
            if (!s->returns_tuple) {
                perr(r->ps, e->col, "result[%lld]: the op does not return "
                     "a tuple", (long long)e->i);
                return false;
            }
            if (e->i < 0 || (size_t)e->i >= s->nrets) {
                perr(r->ps, e->col, "result[%lld]: the op has %zu returns",
                     (long long)e->i, s->nrets);
                return false;
            }
            e->kind = E_VAR;
            e->nargs = 0;
            e->var = V_RESULT;
            e->index = (int)e->i;
            e->type = y_of_type(&s->rets[e->index].type);
            return true;
        }
        if (!resolve(r, base))
            return false;
        if (base->type == Y_TUPLE || base->type == Y_TLIST) {
            if (base->type == Y_TUPLE &&
                (e->i < 0 || e->i >= base->ntuple)) {
                perr(r->ps, e->col, "index %lld of a tuple of %d",
                     (long long)e->i, base->ntuple);
                return false;
            }
            e->type = Y_TENSOR;
            return true;
        }
        if (base->type == Y_ILIST) {
            e->type = Y_INT;
            return true;
        }
        perr(r->ps, e->col, "cannot index a value of type %s",
             y_names[base->type]);
        return false;
    }
    }
    return false;
}

static int count_temps(const gen_expr *e)
{
    int n = 1;
    for (size_t k = 0; k < e->nargs; k++)
        n += count_temps(e->args[k]);
    return n;
}

void gen_deriv_check(gen_table *t)
{
    for (size_t i = 0; i < t->ops.n; i++) {
        gen_op *op = t->ops.items[i];
        if (op->deriv_kind != GEN_DERIV_FORMULAS)
            continue;
        for (size_t k = 0; k < op->derivs.n; k++) {
            gen_deriv *d = op->derivs.items[k];
            if (d->non_diff)
                continue;
            parser ps = {d->text, d->text, op, d, false};
            gen_expr *e = parse_expr(&ps);
            if (e && !ps.failed) {
                skip_ws(&ps);
                if (*ps.p)
                    perr(&ps, pcol(&ps), "unexpected '%c' after the "
                         "formula", *ps.p);
            }
            if (!e || ps.failed)
                continue;
            resolver r = {&ps, t, 0, false};
            if (!resolve(&r, e))
                continue;
            int want;
            if (d->ninputs > 1) {
                if (e->type != Y_TUPLE || e->ntuple < (int)d->ninputs) {
                    perr(&ps, e->col, "a formula for %zu inputs must "
                         "return a tuple of at least %zu Tensors, not %s",
                         d->ninputs, d->ninputs, y_names[e->type]);
                    continue;
                }
            } else {
                const gen_arg *a = &op->schema.args[d->input_idx[0]];
                want = a->type.is_list ? Y_TLIST : Y_TENSOR;
                if (e->type != want) {
                    perr(&ps, e->col, "the gradient of '%s' must be %s, "
                         "not %s", a->name, y_names[want], y_names[e->type]);
                    continue;
                }
            }
            d->grads_read = r.grads_read;
            d->grads_list = r.grads_list;
            d->expr = e;
            d->ntemps = (unsigned)count_temps(e);
        }
    }
}

/* ---- Emission ------------------------------------------------------------------- */

static const char *cstring(const char *s)
{
    gen_str b = {0};
    gen_str_putc(&b, '"');
    for (const char *p = s; *p; p++) {
        if (*p == '"' || *p == '\\')
            gen_str_putc(&b, '\\');
        gen_str_putc(&b, *p);
    }
    gen_str_putc(&b, '"');
    return b.data;
}

typedef struct emitter {
    gen_str *b;
    int next;
    const gen_deriv *d;
} emitter;

#define IND "        "

static int emit_expr(emitter *em, const gen_expr *e)
{
    gen_str *b = em->b;
    int *sub = gen_alloc((e->nargs + 1) * sizeof *sub);
    for (size_t k = 0; k < e->nargs; k++)
        sub[k] = emit_expr(em, e->args[k]);
    int v = em->next++;
    switch (e->kind) {
    case E_VAR:
        switch (e->var) {
        case V_ARG:
            gen_str_printf(b, IND "SC_TRY(sc__ad_arg(ad, %d, &v[%d]));\n",
                           e->index, v);
            break;
        case V_GRAD:
            gen_str_printf(b, IND "SC_TRY(sc__ad_grad(ad, %d, &v[%d]));"
                           "\n", e->index, v);
            break;
        case V_GRADS:
            gen_str_printf(b, IND "SC_TRY(sc__ad_grads(ad, &v[%d]));\n",
                           v);
            break;
        case V_RESULT:
            gen_str_printf(b, IND "SC_TRY(sc__ad_result(ad, %d, &v[%d]))"
                           ";\n", e->index, v);
            break;
        case V_MASK: {
            gen_str_printf(b, IND "{\n" IND "    static const int in_[] = {");
            for (size_t k = 0; k < em->d->ninputs; k++)
                gen_str_printf(b, "%s%d", k ? ", " : "", em->d->input_idx[k]);
            gen_str_printf(b, "};\n" IND "    SC_TRY(sc__ad_mask(ad, %zu, "
                           "in_, &v[%d]));\n" IND "}\n", em->d->ninputs, v);
            break;
        }
        }
        break;
    case E_INT:
        gen_str_printf(b, IND "v[%d] = sc_value_int(INT64_C(%lld));\n", v,
                       (long long)e->i);
        break;
    case E_FLOAT:
        gen_str_printf(b, IND "v[%d] = sc_value_float(%s, %s);\n", v,
                       e->text, cstring(e->text));
        break;
    case E_STR:
        gen_str_printf(b, IND "v[%d] = sc__ad_string(%s);\n", v,
                       cstring(e->text));
        break;
    case E_BOOL:
        gen_str_printf(b, IND "v[%d] = sc_value_bool(%s);\n", v,
                       e->b ? "true" : "false");
        break;
    case E_NONE:
        gen_str_printf(b, IND "v[%d] = sc_value_none();\n", v);
        break;
    case E_LIST:
        gen_str_printf(b, IND "{\n" IND "    sc_value it_[%zu];\n",
                       e->nargs ? e->nargs : 1);
        for (size_t k = 0; k < e->nargs; k++)
            gen_str_printf(b, IND "    it_[%zu] = v[%d];\n", k, sub[k]);
        gen_str_printf(b, IND "    SC_TRY(sc__ad_list(ad, %zu, it_, "
                       "&v[%d]));\n" IND "}\n", e->nargs, v);
        break;
    case E_INDEX:
        gen_str_printf(b, IND "SC_TRY(sc__ad_index(ad, &v[%d], "
                       "INT64_C(%lld), &v[%d]));\n", sub[0], (long long)e->i,
                       v);
        break;
    case E_BIN:
        gen_str_printf(b, IND "SC_TRY(sc__ad_arith(ad, '%c', &v[%d], "
                       "&v[%d], &v[%d]));\n", e->op, sub[0], sub[1], v);
        break;
    case E_NEG:
        gen_str_printf(b, IND "SC_TRY(sc__ad_arith(ad, 'n', &v[%d], "
                       "&v[%d], &v[%d]));\n", sub[0], sub[0], v);
        break;
    case E_CALL:
        if (e->helper >= 0) {
            gen_str_printf(b, IND "{\n" IND "    sc_value a_[%zu];\n",
                           e->nargs ? e->nargs : 1);
            for (size_t k = 0; k < e->nargs; k++)
                gen_str_printf(b, IND "    a_[%zu] = v[%d];\n", k, sub[k]);
            gen_str_printf(b, IND "    SC_TRY(sc__ad_h_%s(ad, a_, "
                           "&v[%d]));\n" IND "}\n", helpers[e->helper].name,
                           v);
        } else {
            const gen_op *op = e->callee;
            unsigned long mask = 0;
            gen_str_printf(b, IND "{\n" IND "    sc_value a_[%zu] = {0};\n",
                           op->schema.nargs ? op->schema.nargs : 1);
            for (size_t k = 0; k < e->nargs; k++) {
                gen_str_printf(b, IND "    a_[%d] = v[%d];\n", e->slot[k],
                               sub[k]);
                mask |= 1ul << e->slot[k];
            }
            gen_str_printf(b, IND "    SC_TRY(sc__ad_call(ad, %s, a_, "
                           "0x%lxu, &v[%d]));\n" IND "}\n", op->enum_name,
                           mask, v);
        }
        break;
    }
    return v;
}

static const char *fn_name(const gen_op *op)
{
    return gen_printf("ad_%s", op->enum_name + 6);
}

static void emit_op(gen_str *b, const gen_op *op)
{
    gen_str_printf(b, "/* %s */\nstatic sc_status %s(sc__ad *ad)\n{\n",
                   op->func, fn_name(op));
    for (size_t k = 0; k < op->derivs.n; k++) {
        const gen_deriv *d = op->derivs.items[k];
        if (d->non_diff || !d->expr)
            continue;
        gen_str_printf(b, "    /* %s: ", d->key);
        for (const char *p = d->text; *p; p++) {
            if (p[0] == '*' && p[1] == '/')
                gen_str_puts(b, "* ");
            else
                gen_str_putc(b, *p == '\n' ? ' ' : *p);
        }
        gen_str_puts(b, " */\n    if ((");
        for (size_t i = 0; i < d->ninputs; i++)
            gen_str_printf(b, "%ssc__ad_needs(ad, %d)", i ? " || " : "",
                           d->input_idx[i]);
        gen_str_printf(b, ") && sc__ad_defined(ad, 0x%xu)) {\n",
                       d->grads_list ? 0xffffffffu : d->grads_read);
        gen_str_printf(b, IND "sc_value v[%u];\n", d->ntemps);
        emitter em = {b, 0, d};
        int res = emit_expr(&em, d->expr);
        if (d->ninputs == 1)
            gen_str_printf(b, IND "SC_TRY(sc__ad_set_grad(ad, %d, "
                           "&v[%d]));\n", d->input_idx[0], res);
        else {
            gen_str_printf(b, IND "{\n" IND "    static const int in_[] = {");
            for (size_t i = 0; i < d->ninputs; i++)
                gen_str_printf(b, "%s%d", i ? ", " : "", d->input_idx[i]);
            gen_str_printf(b, "};\n" IND "    SC_TRY(sc__ad_set_grads(ad, "
                           "%zu, in_, &v[%d]));\n" IND "}\n", d->ninputs,
                           res);
        }
        gen_str_puts(b, "    }\n");
    }
    gen_str_puts(b, "    return SC_OK;\n}\n\n");
}

bool gen_emit_autodiff(FILE *f, const gen_table *t)
{
    fprintf(f, "/* graph/ops-autodiff-gen.c — generated from graph/ops.yaml "
               "by graph/gen/gen-ops — do not edit.\n *\n"
               " * The derivative formulas of the op table compiled to C: "
               "one function per\n * differentiable op, emitting its "
               "backward nodes through the runtime of\n * graph/autodiff.h "
               "(doc/autodiff.md), and sc__ad_table[].\n */\n");
    fputs("#include <stdint.h>\n\n#include <symcut/error.h>\n\n"
          "#include \"graph/autodiff.h\"\n"
          "#include \"graph/autodiff-internal.h\"\n\n",
          f);
    fputs("#if defined(__GNUC__)\n#pragma GCC diagnostic ignored "
          "\"-Wunused-parameter\"\n#endif\n\n", f);
    gen_str b = {0};
    gen_str_puts(&b, "");
    for (size_t i = 0; i < t->ops.n; i++) {
        const gen_op *op = t->ops.items[i];
        if (op->deriv_kind == GEN_DERIV_FORMULAS)
            emit_op(&b, op);
    }
    fputs(b.data, f);
    fputs("const sc__ad_info sc__ad_table[SC_OP_COUNT_] = {\n", f);
    for (size_t i = 0; i < t->ops.n; i++) {
        const gen_op *op = t->ops.items[i];
        const char *kind = op->deriv_kind == GEN_DERIV_FORMULAS
                               ? "SC_AD_FORMULAS"
                           : op->deriv_kind == GEN_DERIV_NOT_DIFF
                               ? "SC_AD_NOT_DIFFERENTIABLE"
                               : "SC_AD_NONE";
        unsigned long ins = 0, outs = 0;
        for (size_t k = 0; k < op->derivs.n; k++) {
            const gen_deriv *d = op->derivs.items[k];
            if (!d->non_diff)
                for (size_t j = 0; j < d->ninputs; j++)
                    ins |= 1ul << d->input_idx[j];
        }
        for (size_t r = 0; r < op->schema.nrets && r < 32; r++)
            if (out_differentiable(op, r) &&
                op->schema.rets[r].type.base == T_TENSOR)
                outs |= 1ul << r;
        fprintf(f, "    [%s] = {%s, %s, 0x%lxu, 0x%lxu},\n", op->enum_name,
                kind, op->deriv_kind == GEN_DERIV_FORMULAS ? fn_name(op)
                                                           : "NULL",
                ins, outs);
    }
    fputs("};\n", f);
    return !ferror(f);
}
