/* gen-ops — a parser and printer for PyTorch's function-schema language:
 *
 *   schema   ::= name ['.' overload] '(' [param {',' param}] ')' '->' returns
 *   param    ::= '*' | type NAME ['=' default]
 *   type     ::= BASE [alias] ['?'] ['[' [N] ']' ['?']]
 *   alias    ::= '(' SET ['!'] ['->' '*'] ')'
 *   returns  ::= ret | '(' [ret {',' ret}] ')'
 *   ret      ::= type [NAME]
 *   default  ::= None | True | False | number | 'string' | "string"
 *              | '[' [scalar {',' scalar}] ']' | ENUM_NAME
 *
 * `T?[]` is a list of optional elements, `T[]?` an optional list.  Errors
 * report the column in the schema text.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph/gen/gen.h"

#define TYPE_NAME(NAME, spelling) spelling,
#define TYPE_ENUM(NAME, spelling) "SC_TYPE_" #NAME,
const char *const gen_type_names[T_COUNT] = {SC__OP_TYPE_BASES(TYPE_NAME)};
const char *const gen_type_enums[T_COUNT] = {SC__OP_TYPE_BASES(TYPE_ENUM)};
#undef TYPE_NAME
#undef TYPE_ENUM

#define DEFAULT_ENUM(NAME) "SC_DEF_" #NAME,
const char *const gen_default_enums[D_COUNT] = {
    SC__OP_DEFAULT_KINDS(DEFAULT_ENUM)};
#undef DEFAULT_ENUM

/* Spellings a schema may use for a ScalarType default, and the torch dtype
 * each one names. */
static const struct {
    const char *spelling, *dtype;
} dtype_names[] = {
    {"Byte", "uint8"},       {"uint8", "uint8"},
    {"Char", "int8"},        {"int8", "int8"},
    {"Short", "int16"},      {"short", "int16"},     {"int16", "int16"},
    {"Int", "int32"},        {"int", "int32"},       {"int32", "int32"},
    {"Long", "int64"},       {"long", "int64"},      {"int64", "int64"},
    {"Half", "float16"},     {"half", "float16"},    {"float16", "float16"},
    {"Float", "float32"},    {"float", "float32"},   {"float32", "float32"},
    {"Double", "float64"},   {"double", "float64"},  {"float64", "float64"},
    {"Bool", "bool"},        {"bool", "bool"},
    {"BFloat16", "bfloat16"}, {"bfloat16", "bfloat16"},
    {"ComplexFloat", "complex64"}, {"cfloat", "complex64"},
    {"complex64", "complex64"},
    {"ComplexDouble", "complex128"}, {"cdouble", "complex128"},
    {"complex128", "complex128"},
};

static const char *const layout_names[] = {
    "strided", "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr",
    "sparse_bsc", "_mkldnn", "jagged",
};

static const char *const memory_format_names[] = {
    "contiguous_format", "preserve_format", "channels_last",
    "channels_last_3d",
};

/* ---- The parser state ------------------------------------------------------ */

typedef struct parser {
    const char *s;
    size_t p;
    int err_col;                /* 0: no error yet */
    char *err_msg;
} parser;

static bool fail_at(parser *ps, size_t pos, const char *fmt, ...)
    GEN_PRINTF(3, 4);

static bool fail_at(parser *ps, size_t pos, const char *fmt, ...)
{
    if (ps->err_col == 0) {
        va_list ap;
        va_start(ap, fmt);
        char buf[512];
        vsnprintf(buf, sizeof buf, fmt, ap);
        va_end(ap);
        ps->err_col = (int)pos + 1;
        ps->err_msg = gen_strdup(buf);
    }
    return false;
}

static char peek(const parser *ps) { return ps->s[ps->p]; }

static void skip_ws(parser *ps)
{
    while (ps->s[ps->p] == ' ' || ps->s[ps->p] == '\t')
        ps->p++;
}

static bool is_ident_start(char c)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_ident_char(char c)
{
    return is_ident_start(c) || (c >= '0' && c <= '9');
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* What the parser found, for messages: "'x'" or "end of schema". */
static const char *found(const parser *ps)
{
    char c = peek(ps);
    if (c == '\0')
        return "end of schema";
    return gen_printf("'%c'", c);
}

static bool expect(parser *ps, char c)
{
    skip_ws(ps);
    if (peek(ps) != c)
        return fail_at(ps, ps->p, "expected '%c', found %s", c, found(ps));
    ps->p++;
    return true;
}

static bool parse_ident(parser *ps, char **out, const char *what)
{
    size_t start = ps->p;
    if (!is_ident_start(peek(ps)))
        return fail_at(ps, ps->p, "expected %s, found %s", what, found(ps));
    while (is_ident_char(peek(ps)))
        ps->p++;
    *out = gen_strndup(ps->s + start, ps->p - start);
    return true;
}

/* ---- Types ----------------------------------------------------------------- */

static bool parse_alias(parser *ps, gen_alias *a)
{
    size_t open = ps->p;
    ps->p++; /* '(' */
    skip_ws(ps);
    if (peek(ps) == '*')
        return fail_at(ps, ps->p, "wildcard alias sets ('(*)') are not "
                                  "supported; name a set such as '(a)'");
    if (!(peek(ps) >= 'a' && peek(ps) <= 'z'))
        return fail_at(ps, ps->p,
                       "expected an alias set (a lower-case letter), found %s",
                       found(ps));
    size_t start = ps->p;
    while (is_ident_char(peek(ps)))
        ps->p++;
    a->set = gen_strndup(ps->s + start, ps->p - start);
    if (peek(ps) == '!') {
        a->is_write = true;
        ps->p++;
    }
    skip_ws(ps);
    if (peek(ps) == '|')
        return fail_at(ps, ps->p, "alias annotations with several sets "
                                  "('a|b') are not supported");
    if (peek(ps) == '-' && ps->s[ps->p + 1] == '>') {
        ps->p += 2;
        skip_ws(ps);
        if (peek(ps) != '*')
            return fail_at(ps, ps->p, "expected '*' after '->' in an alias "
                                      "annotation, found %s", found(ps));
        ps->p++;
        a->to_wildcard = true;
        skip_ws(ps);
    }
    if (peek(ps) != ')')
        return fail_at(ps, ps->p, "expected ')' to close the alias "
                                  "annotation opened at column %zu, found %s",
                       open + 1, found(ps));
    ps->p++;
    return true;
}

static bool parse_type(parser *ps, gen_type *t, gen_alias *a)
{
    size_t start = ps->p;
    char *name;
    if (!parse_ident(ps, &name, "a type"))
        return false;
    t->base = -1;
    for (int i = 0; i < T_COUNT; i++)
        if (strcmp(name, gen_type_names[i]) == 0)
            t->base = i;
    if (t->base < 0)
        return fail_at(ps, start, "unknown type '%s'", name);
    memset(a, 0, sizeof *a);
    if (peek(ps) == '(') {
        if (t->base != T_TENSOR && t->base != T_ANY)
            return fail_at(ps, ps->p, "alias annotation on type '%s' (only "
                                      "Tensor values alias)", name);
        if (!parse_alias(ps, a))
            return false;
    }
    bool question = false;
    if (peek(ps) == '?') {
        question = true;
        ps->p++;
    }
    if (peek(ps) == '[') {
        size_t open = ps->p;
        ps->p++;
        t->is_list = true;
        t->elem_optional = question;
        if (is_digit(peek(ps))) {
            long n = 0;
            while (is_digit(peek(ps))) {
                n = n * 10 + (peek(ps) - '0');
                if (n > 255)
                    return fail_at(ps, open + 1, "list size too large");
                ps->p++;
            }
            if (n == 0)
                return fail_at(ps, open + 1, "a fixed list size must be "
                                             "positive");
            t->list_size = (int)n;
        }
        if (peek(ps) != ']')
            return fail_at(ps, ps->p, "expected ']' in list type, found %s",
                           found(ps));
        ps->p++;
        if (peek(ps) == '?') {
            t->optional = true;
            ps->p++;
        }
    } else {
        t->optional = question;
    }
    return true;
}

static void format_alias(gen_str *b, const gen_alias *a)
{
    if (!a->set)
        return;
    gen_str_printf(b, "(%s%s%s)", a->set, a->is_write ? "!" : "",
                   a->to_wildcard ? " -> *" : "");
}

static void format_type(gen_str *b, const gen_type *t, const gen_alias *a)
{
    gen_str_puts(b, gen_type_names[t->base]);
    format_alias(b, a);
    if (t->is_list) {
        if (t->elem_optional)
            gen_str_putc(b, '?');
        if (t->list_size)
            gen_str_printf(b, "[%d]", t->list_size);
        else
            gen_str_puts(b, "[]");
    }
    if (t->optional)
        gen_str_putc(b, '?');
}

/* ---- Default values -------------------------------------------------------- */

enum { RAW_NONE, RAW_BOOL, RAW_INT, RAW_FLOAT, RAW_STR, RAW_IDENT, RAW_LIST };

typedef struct raw_value {
    int kind;
    size_t pos;                 /* start, for messages */
    int64_t i;
    double f;
    char *s;
    struct raw_value *elems;
    size_t n;
} raw_value;

static bool parse_number(parser *ps, raw_value *v)
{
    size_t start = ps->p;
    bool is_float = false;
    if (peek(ps) == '-' || peek(ps) == '+')
        ps->p++;
    while (is_digit(peek(ps)))
        ps->p++;
    if (peek(ps) == '.') {
        is_float = true;
        ps->p++;
        while (is_digit(peek(ps)))
            ps->p++;
    }
    if (peek(ps) == 'e' || peek(ps) == 'E') {
        is_float = true;
        ps->p++;
        if (peek(ps) == '-' || peek(ps) == '+')
            ps->p++;
        if (!is_digit(peek(ps)))
            return fail_at(ps, ps->p, "expected exponent digits, found %s",
                           found(ps));
        while (is_digit(peek(ps)))
            ps->p++;
    }
    char *text = gen_strndup(ps->s + start, ps->p - start);
    char *end;
    errno = 0;
    if (is_float) {
        v->kind = RAW_FLOAT;
        v->f = strtod(text, &end);
    } else {
        v->kind = RAW_INT;
        v->i = strtoll(text, &end, 10);
    }
    if (*end != '\0' || end == text)
        return fail_at(ps, start, "malformed number '%s'", text);
    if (errno == ERANGE)
        return fail_at(ps, start, "number '%s' out of range", text);
    return true;
}

static bool parse_scalar_value(parser *ps, raw_value *v)
{
    v->pos = ps->p;
    char c = peek(ps);
    if (c == '\'' || c == '"') {
        size_t start = ++ps->p;
        while (peek(ps) != c) {
            if (peek(ps) == '\0')
                return fail_at(ps, v->pos, "unterminated string");
            if (peek(ps) == '\\')
                return fail_at(ps, ps->p, "escapes in strings are not "
                                          "supported");
            ps->p++;
        }
        v->kind = RAW_STR;
        v->s = gen_strndup(ps->s + start, ps->p - start);
        ps->p++;
        return true;
    }
    bool negative = false;
    if ((c == '-' || c == '+') && is_ident_start(ps->s[ps->p + 1])) {
        negative = c == '-';
        ps->p++;
        c = peek(ps);
    } else if (is_digit(c) || c == '-' || c == '+' || c == '.')
        return parse_number(ps, v);
    if (is_ident_start(c)) {
        char *id;
        parse_ident(ps, &id, "a value");
        if (strcmp(id, "inf") == 0 || strcmp(id, "nan") == 0) {
            v->kind = RAW_FLOAT;
            v->f = id[0] == 'i' ? HUGE_VAL : NAN;
            if (negative)
                v->f = -v->f;
        } else if (negative)
            return fail_at(ps, v->pos, "a sign before '%s'", id);
        else if (strcmp(id, "None") == 0)
            v->kind = RAW_NONE;
        else if (strcmp(id, "True") == 0 || strcmp(id, "False") == 0) {
            v->kind = RAW_BOOL;
            v->i = id[0] == 'T';
        } else {
            v->kind = RAW_IDENT;
            v->s = id;
        }
        return true;
    }
    return fail_at(ps, ps->p, "expected a default value, found %s",
                   found(ps));
}

static bool parse_value(parser *ps, raw_value *v)
{
    if (peek(ps) != '[')
        return parse_scalar_value(ps, v);
    gen_vec elems = {0};
    v->pos = ps->p;
    v->kind = RAW_LIST;
    ps->p++;
    skip_ws(ps);
    if (peek(ps) != ']') {
        for (;;) {
            raw_value *e = gen_alloc(sizeof *e);
            skip_ws(ps);
            if (peek(ps) == '[')
                return fail_at(ps, ps->p, "nested lists are not supported "
                                          "as defaults");
            if (!parse_scalar_value(ps, e))
                return false;
            gen_vec_push(&elems, e);
            skip_ws(ps);
            if (peek(ps) == ']')
                break;
            if (peek(ps) != ',')
                return fail_at(ps, ps->p, "expected ',' or ']' in a list "
                                          "default, found %s", found(ps));
            ps->p++;
        }
    }
    ps->p++; /* ']' */
    v->n = elems.n;
    v->elems = gen_alloc((elems.n ? elems.n : 1) * sizeof *v->elems);
    for (size_t i = 0; i < elems.n; i++)
        v->elems[i] = *(raw_value *)elems.items[i];
    return true;
}

static bool is_intlike(int base) { return base == T_INT || base == T_SYMINT; }
static bool is_floatlike(int base)
{
    return base == T_FLOAT || base == T_SYMFLOAT;
}
static bool is_boollike(int base) { return base == T_BOOL || base == T_SYMBOOL; }

static const char *raw_kind_name(int kind)
{
    switch (kind) {
    case RAW_NONE: return "None";
    case RAW_BOOL: return "a bool";
    case RAW_INT: return "an int";
    case RAW_FLOAT: return "a float";
    case RAW_STR: return "a string";
    case RAW_IDENT: return "a name";
    default: return "a list";
    }
}

static const char *type_text(const gen_type *t)
{
    gen_str b = {0};
    gen_alias none = {0};
    format_type(&b, t, &none);
    return b.data;
}

static bool lookup_name(const char *const *names, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(names[i], s) == 0)
            return true;
    return false;
}

/* A scalar (non-list) default for base type `base`. */
static bool convert_scalar(parser *ps, const gen_type *t, const raw_value *v,
                           gen_default *d)
{
    int base = t->base;
    switch (v->kind) {
    case RAW_NONE:
        if (t->optional || base == T_ANY) {
            d->kind = D_NONE;
            return true;
        }
        break;
    case RAW_BOOL:
        if (is_boollike(base) || base == T_SCALAR) {
            d->kind = D_BOOL;
            d->i = v->i;
            return true;
        }
        break;
    case RAW_INT:
        if (is_intlike(base) || base == T_SCALAR) {
            d->kind = D_INT;
            d->i = v->i;
            return true;
        }
        if (is_floatlike(base)) {
            d->kind = D_FLOAT;
            d->f = (double)v->i;
            return true;
        }
        break;
    case RAW_FLOAT:
        if (is_floatlike(base) || base == T_SCALAR) {
            d->kind = D_FLOAT;
            d->f = v->f;
            return true;
        }
        break;
    case RAW_STR:
        if (base == T_STR) {
            d->kind = D_STR;
            d->s = v->s;
            return true;
        }
        break;
    case RAW_IDENT:
        if (base == T_INT && (strcmp(v->s, "Mean") == 0 ||
                              strcmp(v->s, "Sum") == 0)) {
            /* at::Reduction: None = 0, Mean = 1, Sum = 2 */
            d->kind = D_INT;
            d->i = v->s[0] == 'M' ? 1 : 2;
            return true;
        }
        if (base == T_SCALAR_TYPE) {
            for (size_t i = 0; i < sizeof dtype_names / sizeof *dtype_names;
                 i++)
                if (strcmp(dtype_names[i].spelling, v->s) == 0) {
                    d->kind = D_SCALAR_TYPE;
                    d->s = gen_strdup(dtype_names[i].dtype);
                    return true;
                }
            return fail_at(ps, v->pos, "unknown ScalarType '%s'", v->s);
        }
        if (base == T_LAYOUT) {
            if (lookup_name(layout_names,
                            sizeof layout_names / sizeof *layout_names, v->s)) {
                d->kind = D_LAYOUT;
                d->s = v->s;
                return true;
            }
            return fail_at(ps, v->pos, "unknown Layout '%s'", v->s);
        }
        if (base == T_MEMORY_FORMAT) {
            if (lookup_name(memory_format_names,
                            sizeof memory_format_names /
                                sizeof *memory_format_names,
                            v->s)) {
                d->kind = D_MEMORY_FORMAT;
                d->s = v->s;
                return true;
            }
            return fail_at(ps, v->pos, "unknown MemoryFormat '%s'", v->s);
        }
        return fail_at(ps, v->pos, "unknown name '%s' as a default of type "
                                   "'%s'", v->s, type_text(t));
    default:
        break;
    }
    if (v->kind == RAW_NONE)
        return fail_at(ps, v->pos, "default None for type '%s', which is "
                                   "not optional (write '%s?')",
                       type_text(t), type_text(t));
    return fail_at(ps, v->pos, "%s is not a valid default for type '%s'",
                   raw_kind_name(v->kind), type_text(t));
}

static bool convert_list(parser *ps, const gen_type *t, const raw_value *v,
                         gen_default *d)
{
    int base = t->base;
    int kind = is_intlike(base)     ? D_INT_LIST
               : is_floatlike(base) ? D_FLOAT_LIST
               : is_boollike(base)  ? D_BOOL_LIST
                                    : -1;
    if (v->kind == RAW_NONE) {
        if (t->optional) {
            d->kind = D_NONE;
            return true;
        }
        return fail_at(ps, v->pos, "default None for type '%s', which is "
                                   "not optional (write '%s?')",
                       type_text(t), type_text(t));
    }
    if (kind < 0)
        return fail_at(ps, v->pos, "defaults of list type '%s' are not "
                                   "supported (only int, float and bool "
                                   "lists)", type_text(t));
    size_t n;
    const raw_value *elems;
    raw_value one;
    if (v->kind == RAW_LIST) {
        n = v->n;
        elems = v->elems;
        if (t->list_size && n != 0 && n != (size_t)t->list_size)
            return fail_at(ps, v->pos, "a default of %zu element%s for type "
                                       "'%s'", n, n == 1 ? "" : "s",
                           type_text(t));
    } else {
        if (!t->list_size)
            return fail_at(ps, v->pos, "the default of unsized list type "
                                       "'%s' must be a list", type_text(t));
        one = *v;
        n = (size_t)t->list_size;
        elems = NULL;
        d->expanded = true;
    }
    d->kind = kind;
    d->n = n;
    d->ints = gen_alloc((n ? n : 1) * sizeof *d->ints);
    d->floats = gen_alloc((n ? n : 1) * sizeof *d->floats);
    for (size_t i = 0; i < n; i++) {
        const raw_value *e = elems ? &elems[i] : &one;
        bool ok = (kind == D_INT_LIST && e->kind == RAW_INT) ||
                  (kind == D_FLOAT_LIST &&
                   (e->kind == RAW_INT || e->kind == RAW_FLOAT)) ||
                  (kind == D_BOOL_LIST && e->kind == RAW_BOOL);
        if (!ok)
            return fail_at(ps, e->pos, "%s is not a valid element of type "
                                       "'%s'", raw_kind_name(e->kind),
                           type_text(t));
        if (kind == D_FLOAT_LIST)
            d->floats[i] = e->kind == RAW_INT ? (double)e->i : e->f;
        else
            d->ints[i] = e->i;
    }
    return true;
}

static bool parse_default(parser *ps, const gen_type *t, gen_default *d)
{
    size_t start = ps->p;
    raw_value v;
    memset(&v, 0, sizeof v);
    if (!parse_value(ps, &v))
        return false;
    d->text = gen_strndup(ps->s + start, ps->p - start);
    if (t->is_list)
        return convert_list(ps, t, &v, d);
    return convert_scalar(ps, t, &v, d);
}

/* ---- Schemas --------------------------------------------------------------- */

static bool parse_params(parser *ps, gen_schema *out)
{
    gen_vec args = {0};
    gen_vec positions = {0};
    bool kwarg_only = false, star_pending = false;
    size_t star_pos = 0;

    skip_ws(ps);
    if (peek(ps) == ')') {
        ps->p++;
        goto done;
    }
    for (;;) {
        skip_ws(ps);
        if (peek(ps) == '*') {
            if (kwarg_only)
                return fail_at(ps, ps->p, "a second '*'");
            star_pos = ps->p;
            kwarg_only = star_pending = true;
            ps->p++;
        } else {
            gen_arg *a = gen_alloc(sizeof *a);
            size_t *pos = gen_alloc(sizeof *pos);
            *pos = ps->p;
            if (!parse_type(ps, &a->type, &a->alias))
                return false;
            if (peek(ps) != ' ')
                return fail_at(ps, ps->p, "expected a space and an argument "
                                          "name after the type, found %s",
                               found(ps));
            skip_ws(ps);
            if (!parse_ident(ps, &a->name, "an argument name"))
                return false;
            skip_ws(ps);
            if (peek(ps) == '=') {
                ps->p++;
                skip_ws(ps);
                if (!parse_default(ps, &a->type, &a->def))
                    return false;
            }
            a->kwarg_only = kwarg_only;
            star_pending = false;
            gen_vec_push(&args, a);
            gen_vec_push(&positions, pos);
        }
        skip_ws(ps);
        if (peek(ps) == ')') {
            ps->p++;
            break;
        }
        if (peek(ps) != ',')
            return fail_at(ps, ps->p, "expected ',' or ')' after an "
                                      "argument, found %s", found(ps));
        ps->p++;
    }
    if (star_pending)
        return fail_at(ps, star_pos, "'*' must be followed by keyword-only "
                                     "arguments");
done:
    out->nargs = args.n;
    out->args = gen_alloc((args.n ? args.n : 1) * sizeof *out->args);
    out->npositional = 0;
    bool seen_default = false;
    for (size_t i = 0; i < args.n; i++) {
        gen_arg *a = args.items[i];
        size_t pos = *(size_t *)positions.items[i];
        for (size_t j = 0; j < i; j++)
            if (strcmp(out->args[j].name, a->name) == 0)
                return fail_at(ps, pos, "argument '%s' appears twice",
                               a->name);
        if (!a->kwarg_only) {
            out->npositional++;
            if (a->def.kind != D_ABSENT)
                seen_default = true;
            else if (seen_default)
                return fail_at(ps, pos, "required argument '%s' follows an "
                                        "argument with a default", a->name);
        }
        out->args[i] = *a;
    }
    return true;
}

static bool parse_ret(parser *ps, gen_ret *r)
{
    skip_ws(ps);
    if (!parse_type(ps, &r->type, &r->alias))
        return false;
    size_t save = ps->p;
    skip_ws(ps);
    if (ps->p > save && is_ident_start(peek(ps)))
        return parse_ident(ps, &r->name, "a return name");
    return true;
}

static bool parse_returns(parser *ps, gen_schema *out)
{
    gen_vec rets = {0};
    skip_ws(ps);
    if (peek(ps) == '(') {
        out->returns_tuple = true;
        ps->p++;
        skip_ws(ps);
        if (peek(ps) == ')')
            ps->p++;
        else
            for (;;) {
                gen_ret *r = gen_alloc(sizeof *r);
                if (!parse_ret(ps, r))
                    return false;
                gen_vec_push(&rets, r);
                skip_ws(ps);
                if (peek(ps) == ')') {
                    ps->p++;
                    break;
                }
                if (peek(ps) != ',')
                    return fail_at(ps, ps->p, "expected ',' or ')' in the "
                                              "returns, found %s", found(ps));
                ps->p++;
            }
    } else {
        gen_ret *r = gen_alloc(sizeof *r);
        if (!parse_ret(ps, r))
            return false;
        gen_vec_push(&rets, r);
    }
    out->nrets = rets.n;
    out->rets = gen_alloc((rets.n ? rets.n : 1) * sizeof *out->rets);
    for (size_t i = 0; i < rets.n; i++)
        out->rets[i] = *(gen_ret *)rets.items[i];
    return true;
}

/* Every alias set a return names must be an argument's; a written return
 * must come from a written argument. */
static bool check_return_aliases(parser *ps, const gen_schema *s)
{
    for (size_t i = 0; i < s->nrets; i++) {
        const gen_alias *ra = &s->rets[i].alias;
        if (!ra->set)
            continue;
        const gen_arg *from = NULL;
        for (size_t j = 0; j < s->nargs && !from; j++)
            if (s->args[j].alias.set &&
                strcmp(s->args[j].alias.set, ra->set) == 0)
                from = &s->args[j];
        if (!from)
            return fail_at(ps, strlen(ps->s) - 1,
                           "return %zu has alias set '%s', which no argument "
                           "has", i + 1, ra->set);
        if (ra->is_write && !from->alias.is_write)
            return fail_at(ps, strlen(ps->s) - 1,
                           "return %zu is written ('%s!') but argument '%s' "
                           "is not", i + 1, ra->set, from->name);
    }
    return true;
}

bool gen_schema_parse(const char *text, gen_schema *out, int *err_col,
                      char **err_msg)
{
    parser ps = {text, 0, 0, NULL};
    memset(out, 0, sizeof *out);
    bool ok = true;

    skip_ws(&ps);
    ok = parse_ident(&ps, &out->name, "an op name");
    if (ok && peek(&ps) == '.') {
        ps.p++;
        size_t at = ps.p;
        ok = parse_ident(&ps, &out->overload, "an overload name");
        if (ok && strcmp(out->overload, "default") == 0)
            ok = fail_at(&ps, at, "the overload name 'default' is implied: "
                                  "write '%s(...)'", out->name);
    } else if (ok) {
        out->overload = gen_strdup("");
    }
    ok = ok && expect(&ps, '(') && parse_params(&ps, out);
    if (ok) {
        skip_ws(&ps);
        if (!(peek(&ps) == '-' && ps.s[ps.p + 1] == '>'))
            ok = fail_at(&ps, ps.p, "expected '->' after the arguments, "
                                    "found %s", found(&ps));
        else
            ps.p += 2;
    }
    ok = ok && parse_returns(&ps, out);
    if (ok) {
        skip_ws(&ps);
        if (peek(&ps) != '\0')
            ok = fail_at(&ps, ps.p, "unexpected %s after the returns",
                         found(&ps));
    }
    ok = ok && check_return_aliases(&ps, out);
    if (!ok) {
        *err_col = ps.err_col;
        *err_msg = ps.err_msg;
    }
    return ok;
}

char *gen_schema_format(const gen_schema *s)
{
    gen_str b = {0};
    gen_str_puts(&b, s->name);
    if (s->overload[0])
        gen_str_printf(&b, ".%s", s->overload);
    gen_str_putc(&b, '(');
    bool star = false;
    for (size_t i = 0; i < s->nargs; i++) {
        const gen_arg *a = &s->args[i];
        if (i)
            gen_str_puts(&b, ", ");
        if (a->kwarg_only && !star) {
            gen_str_puts(&b, "*, ");
            star = true;
        }
        format_type(&b, &a->type, &a->alias);
        gen_str_printf(&b, " %s", a->name);
        if (a->def.kind != D_ABSENT)
            gen_str_printf(&b, "=%s", a->def.text);
    }
    gen_str_puts(&b, ") -> ");
    if (s->returns_tuple)
        gen_str_putc(&b, '(');
    for (size_t i = 0; i < s->nrets; i++) {
        if (i)
            gen_str_puts(&b, ", ");
        format_type(&b, &s->rets[i].type, &s->rets[i].alias);
        if (s->rets[i].name)
            gen_str_printf(&b, " %s", s->rets[i].name);
    }
    if (s->returns_tuple)
        gen_str_putc(&b, ')');
    return b.data;
}
