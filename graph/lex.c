/* symcut — the lexer of PyTorch's graph text: Python tokens without
 * indentation (the reader does not need it), implicit line joining inside
 * brackets, comments, and the prefixes that TORCH_LOGS puts before every
 * line of a log.  Which lines hold the graph is graph/frame.c's
 * business. */
#include <config.h>

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "graph/lex.h"

void sc__lex_init(sc__lexer *lx, const char *text, size_t len,
                  const char *file, sc_error *err)
{
    memset(lx, 0, sizeof *lx);
    lx->text = text;
    lx->end = text + len;
    lx->file = file;
    lx->line = 1;
    lx->line_start = text;
    lx->last_newline = true;
    lx->err = err;
    sc__buf_init(&lx->str);
    lx->p = sc__lex_skip_log_prefix(text, lx->end);
}

void sc__lex_destroy(sc__lexer *lx)
{
    sc__buf_free(&lx->str);
}

int sc__lex_col(const sc__lexer *lx, const char *q)
{
    size_t d = (size_t)(q - lx->line_start);
    return d >= (size_t)INT32_MAX - 1 ? INT32_MAX - 1 : (int)d + 1;
}

sc_status sc__lex_error(const sc__lexer *lx, int line, int col,
                        const char *fmt, ...)
{
    va_list ap;
    sc_error *err = lx->err;

    va_start(ap, fmt);
    sc__error_vset(err, SC_ERR_PARSE, fmt, ap);
    va_end(ap);
    if (err) {
        snprintf(err->file, sizeof err->file, "%s",
                 lx->file ? lx->file : "");
        err->line = line;
        err->column = col;
    }
    return SC_ERR_PARSE;
}

void sc__lex_save(const sc__lexer *lx, sc__lex_mark *m)
{
    m->p = lx->p;
    m->line_start = lx->line_start;
    m->line = lx->line;
    m->depth = lx->depth;
    m->last_newline = lx->last_newline;
}

void sc__lex_restore(sc__lexer *lx, const sc__lex_mark *m)
{
    lx->p = m->p;
    lx->line_start = m->line_start;
    lx->line = m->line;
    lx->depth = m->depth;
    lx->last_newline = m->last_newline;
}

/* ---- Log prefixes ------------------------------------------------------- */

static const char *skip_spaces(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    return p;
}

/* A bracket group without spaces, `[0/0]` or `[__aot_joint_graph]`, and
 * one space after it; p itself if there is none. */
static const char *skip_tag(const char *p, const char *end)
{
    const char *q = p;
    if (q >= end || *q != '[')
        return p;
    for (q++; q < end && q - p < 80; q++) {
        if (*q == ']')
            break;
        if (*q == ' ' || *q == '\n' || *q == '[')
            return p;
    }
    if (q >= end || *q != ']' || q == p + 1)
        return p;
    q++;
    if (q < end && *q == ' ')
        q++;
    return q;
}

/* `logger.name: [LEVEL] ` */
static const char *skip_logger(const char *p, const char *end)
{
    const char *q = p;
    while (q < end && (isalnum((unsigned char)*q) || *q == '_' || *q == '.'))
        q++;
    if (q == p || q + 2 >= end || q[0] != ':' || q[1] != ' ' || q[2] != '[')
        return p;
    q += 3;
    while (q < end && *q >= 'A' && *q <= 'Z')
        q++;
    if (q >= end || *q != ']')
        return p;
    q++;
    if (q < end && *q == ' ')
        q++;
    return q;
}

const char *sc__lex_skip_log_prefix(const char *p, const char *end)
{
    const char *q = p, *r;
    int i;

    /* the common case: an indented line, or an empty one */
    if (p >= end || *p == ' ' || *p == '\n')
        return p;
    /* Python logging, optionally after a rank tag:
     * `[rank0]:[2026-11-29 12:00:00,000] [0/0] logger: [INFO] ` */
    if (end - q > 6 && memcmp(q, "[rank", 5) == 0) {
        r = skip_tag(q, end);
        if (r != q && r < end && *r == ':')
            q = r + 1;
    }
    if (q < end && *q == '[' && q + 1 < end && isdigit((unsigned char)q[1])) {
        r = q + 1;
        while (r < end && r - q < 64 && *r != ']' && *r != '\n')
            r++;
        if (r >= end || *r != ']')
            return p;
        q = skip_spaces(r + 1, end);
        while ((r = skip_tag(q, end)) != q)
            q = r;
        return skip_logger(q, end);
    }
    /* glog style: `V1129 12:00:00.000000 1234 path/file.py:123] [0/0] ` */
    if (q < end && strchr("IWEVD", *q) && *q && end - q > 6) {
        for (i = 1; i <= 4; i++)
            if (!isdigit((unsigned char)q[i]))
                return p;
        if (q[5] != ' ')
            return p;
        for (r = q + 6; r < end && *r != '\n' && r - q < 200; r++)
            if (r[0] == ']' && r + 1 < end && r[1] == ' ' && r > q + 6 &&
                isdigit((unsigned char)r[-1]))
                break;
        if (r >= end || *r != ']')
            return p;
        q = r + 2;
        while ((r = skip_tag(q, end)) != q)
            q = r;
        return q;
    }
    return p;
}

/* ---- Lines -------------------------------------------------------------- */

/* Consume the newline at lx->p and enter the next physical line. */
static void next_line(sc__lexer *lx)
{
    lx->p++;
    lx->line++;
    lx->line_start = lx->p;
    lx->p = sc__lex_skip_log_prefix(lx->p, lx->end);
}

/* Skip a comment starting at lx->p ('#') up to the end of the line.
 * (`# symcut:` directives are read by the reader's own pass over the
 * lines, before parsing.) */
static sc_status skip_comment(sc__lexer *lx)
{
    const char *eol = memchr(lx->p, '\n', (size_t)(lx->end - lx->p));
    lx->p = eol ? eol : lx->end;
    lx->ncomments++;
    return SC_OK;
}

/* ---- Tokens ------------------------------------------------------------- */

/* Character classes: 1 starts a name, 2 continues one (ASCII letters,
 * '_', digits). */
static const unsigned char name_class[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0,
    0, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 0, 0, 0, 0, 3,
    0, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

static bool is_name_start(char c)
{
    return (name_class[(unsigned char)c] & 1) != 0;
}

static bool is_name_char(char c)
{
    return (name_class[(unsigned char)c] & 2) != 0;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static sc_status lex_string(sc__lexer *lx, sc__token *tok)
{
    char quote = *lx->p;
    const char *q = lx->p + 1;

    sc__buf_reset(&lx->str);
    lx->str_raw = NULL;
    /* most strings (annotations) have no escape: no copy until asked */
    while (q < lx->end && *q != quote && *q != '\\' && *q != '\n')
        q++;
    if (q < lx->end && *q == quote) {
        lx->str_raw = lx->p + 1;
        lx->str_raw_len = (size_t)(q - lx->p - 1);
        tok->kind = SC__TOK_STRING;
        tok->len = (size_t)(q + 1 - lx->p);
        lx->p = q + 1;
        return SC_OK;
    }
    q = lx->p + 1;
    sc__buf_putn(&lx->str, "", 0);
    while (q < lx->end && *q != quote) {
        char c = *q;
        if (c == '\n')
            break;
        if (c == '\\') {
            if (q + 1 >= lx->end || q[1] == '\n')
                break;
            q++;
            switch (*q) {
            case 'n': c = '\n'; break;
            case 't': c = '\t'; break;
            case 'r': c = '\r'; break;
            case '0': c = '\0'; break;
            case '\\': case '\'': case '"': c = *q; break;
            case 'x':
                if (q + 2 < lx->end && hexval(q[1]) >= 0 && hexval(q[2]) >= 0) {
                    c = (char)(hexval(q[1]) * 16 + hexval(q[2]));
                    q += 2;
                    break;
                }
                return sc__lex_error(lx, lx->line, sc__lex_col(lx, q - 1),
                                     "invalid \\x escape in a string");
            default:
                return sc__lex_error(lx, lx->line, sc__lex_col(lx, q - 1),
                                     "unsupported escape '\\%c' in a string",
                                     isprint((unsigned char)*q) ? *q : '?');
            }
            if (c == '\0')
                return sc__lex_error(lx, lx->line, sc__lex_col(lx, q - 1),
                                     "NUL character in a string");
        }
        sc__buf_putc(&lx->str, c);
        q++;
    }
    if (q >= lx->end || *q != quote)
        return sc__lex_error(lx, tok->line, tok->col,
                             "unterminated string (expected %c before the "
                             "end of the line)",
                             quote);
    if (lx->str.failed)
        return sc__error_nomem(lx->err);
    tok->kind = SC__TOK_STRING;
    tok->len = (size_t)(q + 1 - lx->p);
    lx->p = q + 1;
    return SC_OK;
}

const char *sc__lex_string(sc__lexer *lx, size_t *len)
{
    if (lx->str_raw) {
        sc__buf_reset(&lx->str);
        sc__buf_putn(&lx->str, lx->str_raw, lx->str_raw_len);
        if (lx->str.failed) {
            sc__error_nomem(lx->err);
            return NULL;
        }
        lx->str_raw = NULL;
    }
    *len = lx->str.len;
    return lx->str.data;
}

static sc_status lex_number(sc__lexer *lx, sc__token *tok)
{
    const char *q = lx->p;
    bool is_float = false;

    while (q < lx->end && isdigit((unsigned char)*q))
        q++;
    if (q < lx->end && *q == '.') {
        is_float = true;
        q++;
        while (q < lx->end && isdigit((unsigned char)*q))
            q++;
    }
    if (q < lx->end && (*q == 'e' || *q == 'E')) {
        const char *r = q + 1;
        if (r < lx->end && (*r == '+' || *r == '-'))
            r++;
        if (r < lx->end && isdigit((unsigned char)*r)) {
            is_float = true;
            q = r;
            while (q < lx->end && isdigit((unsigned char)*q))
                q++;
        }
    }
    if (q < lx->end && is_name_char(*q))
        return sc__lex_error(lx, tok->line, tok->col,
                             "malformed number '%.*s'",
                             (int)(q - lx->p + 1 > 40 ? 40 : q - lx->p + 1),
                             lx->p);
    tok->kind = is_float ? SC__TOK_FLOAT : SC__TOK_INT;
    tok->len = (size_t)(q - lx->p);
    lx->p = q;
    return SC_OK;
}

static const char *const ops2[] = {"**", "//", "<=", ">=", "==", "!=", "->"};

sc_status sc__lex_next(sc__lexer *lx, sc__token *tok)
{
    char c;
    size_t i;

    for (;;) {
        while (lx->p < lx->end &&
               (*lx->p == ' ' || *lx->p == '\t' || *lx->p == '\r' ||
                *lx->p == '\f'))
            lx->p++;
        if (lx->p >= lx->end) {
            tok->start = lx->p;
            tok->len = 0;
            tok->line = lx->line;
            tok->col = sc__lex_col(lx, lx->p);
            if (!lx->last_newline && lx->depth == 0) {
                lx->last_newline = true;
                tok->kind = SC__TOK_NEWLINE;
                return SC_OK;
            }
            tok->kind = SC__TOK_EOF;
            return SC_OK;
        }
        c = *lx->p;
        if (c == '#') {
            SC_TRY(skip_comment(lx));
            continue;
        }
        if (c == '\\' && lx->p + 1 < lx->end && lx->p[1] == '\n') {
            lx->p++;
            next_line(lx);
            continue;
        }
        if (c == '\n') {
            if (lx->depth > 0 || lx->last_newline) {
                next_line(lx);
                continue;
            }
            tok->kind = SC__TOK_NEWLINE;
            tok->start = lx->p;
            tok->len = 1;
            tok->line = lx->line;
            tok->col = sc__lex_col(lx, lx->p);
            lx->last_newline = true;
            next_line(lx);
            return SC_OK;
        }
        break;
    }
    tok->start = lx->p;
    tok->line = lx->line;
    tok->col = sc__lex_col(lx, lx->p);
    lx->last_newline = false;
    if (is_name_start(c)) {
        const char *q = lx->p;
        while (q < lx->end && is_name_char(*q))
            q++;
        tok->kind = SC__TOK_NAME;
        tok->len = (size_t)(q - lx->p);
        lx->p = q;
        return SC_OK;
    }
    if (isdigit((unsigned char)c))
        return lex_number(lx, tok);
    if (c == '"' || c == '\'')
        return lex_string(lx, tok);
    tok->kind = SC__TOK_OP;
    switch (c) {
    case '(': case '[': case '{':
        tok->len = 1;
        lx->p++;
        lx->depth++;
        return SC_OK;
    case ')': case ']': case '}':
        tok->len = 1;
        lx->p++;
        if (lx->depth > 0)
            lx->depth--;
        return SC_OK;
    case ',': case ':': case ';': case '.':
        tok->len = 1;
        lx->p++;
        return SC_OK;
    default:
        break;
    }
    if (lx->p + 1 < lx->end && strchr("*/<>=!-", c) && c)
        for (i = 0; i < sizeof ops2 / sizeof ops2[0]; i++)
            if (lx->p[0] == ops2[i][0] && lx->p[1] == ops2[i][1]) {
                tok->len = 2;
                lx->p += 2;
                return SC_OK;
            }
    if (strchr("=+-*/%<>&|~@", c) && c) {
        tok->len = 1;
        lx->p++;
        return SC_OK;
    }
    if (isprint((unsigned char)c))
        return sc__lex_error(lx, tok->line, tok->col,
                             "unexpected character '%c'", c);
    return sc__lex_error(lx, tok->line, tok->col,
                         "unexpected byte 0x%02x", (unsigned char)c);
}

int sc__lex_find_definition(const sc__lexer *lx, const char *name, size_t len)
{
    const char *p = lx->p, *eol, *q;
    int line = lx->line;

    while (p < lx->end) {
        eol = memchr(p, '\n', (size_t)(lx->end - p));
        if (!eol)
            eol = lx->end;
        q = skip_spaces(sc__lex_skip_log_prefix(p, eol), eol);
        if ((size_t)(eol - q) > len && memcmp(q, name, len) == 0) {
            const char *r = skip_spaces(q + len, eol);
            if (r < eol && (*r == ':' || (*r == '=' && (r + 1 >= eol ||
                                                        r[1] != '='))))
                if (!is_name_char(q[len]))
                    return line;
        }
        if (eol >= lx->end)
            break;
        p = eol + 1;
        line++;
    }
    return 0;
}
