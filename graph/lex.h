/* symcut — the lexer of PyTorch's graph text (a small subset of Python's
 * tokens), private to the reader. */
#ifndef SYMCUT_GRAPH_LEX_H
#define SYMCUT_GRAPH_LEX_H

#include <string.h>

#include "graph/graph-internal.h"

typedef enum sc__tok_kind {
    SC__TOK_EOF,
    SC__TOK_NEWLINE, /* end of a logical line (outside brackets) */
    SC__TOK_NAME,
    SC__TOK_INT,
    SC__TOK_FLOAT,
    SC__TOK_STRING,  /* decoded text in the lexer's string buffer */
    SC__TOK_OP       /* punctuation and operators */
} sc__tok_kind;

typedef struct sc__token {
    sc__tok_kind kind;
    const char *start; /* raw text */
    size_t len;
    int line, col;     /* 1-based, of the first character */
} sc__token;

/* A `# symcut: ...` comment line. */
typedef struct sc__lex_directive {
    const char *text; /* after "symcut:", up to the end of the line */
    size_t len;
    int line, col;    /* of the text */
} sc__lex_directive;

typedef struct sc__lexer {
    const char *text, *end, *p;
    const char *file;
    int line;
    const char *line_start; /* of the current physical line */
    int depth;              /* bracket nesting */
    bool last_newline;      /* the previous token was NEWLINE (or none) */
    sc__buf str;            /* decoded string of the last STRING token
                               (read it with sc__lex_string) */
    const char *str_raw;    /* that string when it has no escape: its
                               span in the text, copied into str only
                               when asked for */
    size_t str_raw_len;
    sc_error *err;
    size_t ncomments;       /* comments skipped so far (the reader asks
                               whether any came between two points) */
} sc__lexer;

void sc__lex_init(sc__lexer *lx, const char *text, size_t len,
                  const char *file, sc_error *err);
void sc__lex_destroy(sc__lexer *lx);

/* A saved lexer position, to look ahead and come back (the string
 * buffer is not restored: a restored STRING token must be re-read from
 * its raw text). */
typedef struct sc__lex_mark {
    const char *p, *line_start;
    int line, depth;
    bool last_newline;
} sc__lex_mark;

void sc__lex_save(const sc__lexer *lx, sc__lex_mark *m);
void sc__lex_restore(sc__lexer *lx, const sc__lex_mark *m);

/* The next token, or an error (SC_ERR_PARSE with a location). */
sc_status sc__lex_next(sc__lexer *lx, sc__token *tok);

/* The decoded text of the last STRING token, NUL-terminated, its length
 * in *len; NULL when memory runs out (lx->err set). */
const char *sc__lex_string(sc__lexer *lx, size_t *len);

/* The start of the content of the physical line at p (after a log
 * prefix), p itself if there is none. */
const char *sc__lex_skip_log_prefix(const char *p, const char *end);

/* Scan from the current position for a later statement defining name;
 * its line, or 0. */
int sc__lex_find_definition(const sc__lexer *lx, const char *name,
                            size_t len);

/* Fill err with a parse error at line/col of the lexer's file. */
sc_status sc__lex_error(const sc__lexer *lx, int line, int col,
                        const char *fmt, ...) SC__PRINTF(4, 5);

/* Current column of pointer q on the current physical line. */
int sc__lex_col(const sc__lexer *lx, const char *q);

/* Does token t spell word?  Inline: with a literal word the compiler
 * knows its length, and the reader asks this several times a token. */
static inline bool sc__tok_is(const sc__token *t, const char *word)
{
    size_t n = strlen(word);
    return t->len == n && memcmp(t->start, word, n) == 0 &&
           (t->kind == SC__TOK_NAME || t->kind == SC__TOK_OP);
}

#endif /* SYMCUT_GRAPH_LEX_H */
