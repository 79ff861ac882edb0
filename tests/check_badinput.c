/* symcut tests — bad input: a table of malformed inputs for every reader
 * (the expression parser, the `symcut env` script, the graph reader, the
 * .npy reader, the CLI's NAME=VALUE binding parser), each with the status,
 * a substring of the message and the location the reader must report; and
 * the crashing inputs the fuzzers found (tests/data/regress/<reader>/),
 * each of which must fail cleanly or read.
 *
 * Every row also runs under the sanitizers of the test build: a reader
 * that overflows its stack on deep nesting, reads out of bounds or leaks
 * fails here, not only in the fuzzer. */
#include <check.h>
#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <symcut.h>

#include "cli/cli.h"
#include "cli/envscript.h"

Suite *badinput_suite(void);

/* ---- Generated inputs ---------------------------------------------------- */

/* An input is a literal (text, len: 0 means strlen) or, when gen is set,
 * generated: prefix, then `open` n times, then middle, then `close` n
 * times, then suffix. */
typedef struct gen_spec {
    const char *prefix, *open, *middle, *close, *suffix;
    size_t n;
    size_t prefix_len; /* 0: strlen(prefix) */
} gen_spec;

static char *generate(const gen_spec *g, size_t *len)
{
    size_t lp = g->prefix_len ? g->prefix_len : strlen(g->prefix);
    size_t lo = strlen(g->open);
    size_t lm = strlen(g->middle), lc = strlen(g->close);
    size_t ls = strlen(g->suffix), i;
    size_t n = lp + g->n * (lo + lc) + lm + ls;
    char *s = malloc(n + 1), *p;

    ck_assert_ptr_nonnull(s);
    p = s;
    memcpy(p, g->prefix, lp);
    p += lp;
    for (i = 0; i < g->n; i++, p += lo)
        memcpy(p, g->open, lo);
    memcpy(p, g->middle, lm);
    p += lm;
    for (i = 0; i < g->n; i++, p += lc)
        memcpy(p, g->close, lc);
    memcpy(p, g->suffix, ls);
    p += ls;
    *p = '\0';
    *len = n;
    return s;
}

typedef struct bad_case {
    const char *what;    /* a short description, for failure messages */
    const char *text;    /* the input (NULL: generated) */
    size_t len;          /* 0: strlen(text) */
    gen_spec gen;
    sc_status status;    /* expected */
    const char *message; /* expected substring of the message */
    int line, column;    /* expected location (npy: column = byte offset) */
} bad_case;

static char *case_input(const bad_case *c, size_t *len)
{
    char *s;
    if (!c->text)
        return generate(&c->gen, len);
    *len = c->len ? c->len : strlen(c->text);
    s = malloc(*len + 1);
    ck_assert_ptr_nonnull(s);
    memcpy(s, c->text, *len);
    s[*len] = '\0';
    return s;
}

static void check_result(const char *reader, const bad_case *c,
                         sc_status st, const sc_error *err)
{
    ck_assert_msg(st == c->status,
                  "%s, %s: status %s, expected %s (message: %s)", reader,
                  c->what, sc_status_name(st), sc_status_name(c->status),
                  err->message);
    if (st == SC_OK)
        return;
    ck_assert_msg(err->code == st, "%s, %s: err->code %s but returned %s",
                  reader, c->what, sc_status_name(err->code),
                  sc_status_name(st));
    ck_assert_msg(strstr(err->message, c->message) != NULL,
                  "%s, %s: message '%s' lacks '%s'", reader, c->what,
                  err->message, c->message);
    ck_assert_msg(err->line == c->line && err->column == c->column,
                  "%s, %s: at %d:%d, expected %d:%d (%s)", reader, c->what,
                  err->line, err->column, c->line, c->column, err->message);
}

#define LIT(w, t, st, msg, l, c) {w, t, 0, {0}, st, msg, l, c}
/* A literal with NUL bytes: its length is the literal's. */
#define BIN(w, t, st, msg, l, c) {w, t, sizeof(t) - 1, {0}, st, msg, l, c}
#define GEN(w, p, o, m, cl, s, n, st, msg, l, c) \
    {w, NULL, 0, {p, o, m, cl, s, n, 0}, st, msg, l, c}
#define GENB(w, p, plen, o, m, cl, s, n, st, msg, l, c) \
    {w, NULL, 0, {p, o, m, cl, s, n, plen}, st, msg, l, c}

/* ---- The expression parser ------------------------------------------------- */

static const bad_case expr_cases[] = {
    LIT("empty", "", SC_ERR_PARSE, "empty expression", 1, 1),
    LIT("blank", "  \t ", SC_ERR_PARSE, "empty expression", 1, 5),
    LIT("truncated sum", "s0 +", SC_ERR_PARSE,
        "expected an expression, got end of input", 1, 5),
    LIT("truncated call", "Max(s0, ", SC_ERR_PARSE,
        "expected an expression, got end of input", 1, 9),
    LIT("unclosed paren", "(s0 + 1", SC_ERR_PARSE, "expected ')'", 1, 8),
    LIT("extra paren", "s0 + 1)", SC_ERR_PARSE, "trailing input ')'", 1, 7),
    LIT("two operands", "s0 s1", SC_ERR_PARSE, "trailing input 's1'", 1, 4),
    LIT("leading comma", ",s0", SC_ERR_PARSE, "got ','", 1, 1),
    LIT("control byte", "s0 + \x01", SC_ERR_PARSE,
        "unexpected character '\\x01'", 1, 6),
    LIT("binary garbage", "\xff\xfe\x93NUMPY", SC_ERR_PARSE,
        "unexpected character '\\xff'", 1, 1),
    LIT("dollar", "s0 $ 2", SC_ERR_PARSE, "unexpected character '$'", 1, 4),
    /* The parser reads a C string: a NUL byte ends the text. */
    BIN("NUL byte", "s0 +\0 1", SC_ERR_PARSE,
        "expected an expression, got end of input", 1, 5),
    LIT("float", "1.5", SC_ERR_PARSE, "only integers", 1, 2),
    LIT("letters in a number", "12abc", SC_ERR_PARSE, "in a number", 1, 3),
    LIT("single =", "s0 = 2", SC_ERR_PARSE, "use '==' to compare", 1, 4),
    LIT("single !", "!s0", SC_ERR_PARSE, "unexpected character '!'", 1, 1),
    LIT("true division", "s0 / 2", SC_ERR_PARSE, "true division", 1, 4),
    LIT("negative exponent", "2 ** -1", SC_ERR_PARSE,
        "nonnegative integer constant", 1, 6),
    LIT("symbolic exponent", "s0 ** s1", SC_ERR_PARSE,
        "nonnegative integer constant", 1, 7),
    LIT("exponent beyond int64", "s0 ** 100000000000000000000", SC_ERR_LIMIT,
        "exponent too large", 1, 7),
    LIT("exponent 10^100", "s0 ** (10**100)", SC_ERR_LIMIT,
        "exponent too large", 1, 7),
    LIT("huge power", "2 ** 10000000000", SC_ERR_LIMIT, "power too large", 1,
        3),
    LIT("division by zero", "s0 // 0", SC_ERR_DIV_ZERO, "division by zero", 1,
        4),
    LIT("modulo by zero", "Mod(s0, 0)", SC_ERR_DIV_ZERO, "division by zero",
        1, 1),
    LIT("arity: Mod", "Mod(s0)", SC_ERR_PARSE,
        "Mod takes 2 arguments (1 given)", 1, 1),
    LIT("arity: FloorDiv", "FloorDiv(1, 2, 3)", SC_ERR_PARSE,
        "FloorDiv takes 2 arguments (3 given)", 1, 1),
    LIT("arity: Min", "Min()", SC_ERR_PARSE,
        "Min takes at least 1 argument (0 given)", 1, 1),
    LIT("arity: Not", "\n  Not(True, False)", SC_ERR_PARSE,
        "Not takes 1 argument (2 given)", 2, 3),
    LIT("unknown function", "Foo(1)", SC_ERR_PARSE, "unknown function 'Foo'",
        1, 1),
    LIT("function without call", "Mod + 1", SC_ERR_PARSE,
        "expected '(' after the function name Mod", 1, 5),
    LIT("reserved word as a name", "s0 + and", SC_ERR_PARSE,
        "expected an expression, got 'and'", 1, 6),
    LIT("bool in arithmetic", "True + 1", SC_ERR_TYPE,
        "a boolean where an integer is expected", 1, 6),
    LIT("int in logic", "s0 and 1", SC_ERR_TYPE,
        "an integer where a boolean is expected", 1, 4),
    LIT("bool compared", "Eq(s0, True)", SC_ERR_TYPE, "a boolean", 1, 1),
    LIT("unary + on bool", "+True", SC_ERR_TYPE, "needs an integer operand",
        1, 1),
    LIT("located on line 3", "s0 +\n\n   )", SC_ERR_PARSE, "got ')'", 3, 4),
    GEN("100000 nested parentheses", "", "(", "s0", ")", "", 100000,
        SC_ERR_LIMIT, "nested deeper than 1000", 1, 1001),
    GEN("100000 unclosed parentheses", "", "(", "", "", "", 100000,
        SC_ERR_LIMIT, "nested deeper than 1000", 1, 1001),
    GEN("100000 nested calls", "", "Max(", "1", ")", "", 100000,
        SC_ERR_LIMIT, "nested deeper than 1000", 1, 4001),
    GEN("100000 unary minus", "", "-", "s0", "", "", 100000, SC_ERR_LIMIT,
        "nested deeper than 1000", 1, 1001),
    GEN("100000 nots", "", "not ", "True", "", "", 100000, SC_ERR_LIMIT,
        "nested deeper than 1000", 1, 4001),
    GEN("100000 exponents", "", "2**", "1", "", "", 100000, SC_ERR_LIMIT,
        "nested deeper than 1000", 1, 3002),
    /* Deep but allowed: 900 levels read, as do long flat expressions. */
    GEN("900 nested parentheses", "", "(", "s0", ")", "", 900, SC_OK, "", 0,
        0),
    GEN("100000 terms", "s0", " + s1", "", "", "", 100000, SC_OK, "", 0, 0),
    LIT("a 100-digit integer", "1000000000000000000000000000000000000000000"
        "0000000000000000000000000000000000000000000000000000000000 * s0",
        SC_OK, "", 0, 0),
};

START_TEST(test_expr_table)
{
    const bad_case *c = &expr_cases[_i];
    sc_ctx *ctx = sc_ctx_new();
    sc_expr *e = NULL;
    sc_error err;
    size_t len;
    char *text = case_input(c, &len);
    sc_status st;

    ck_assert_ptr_nonnull(ctx);
    sc_error_init(&err);
    st = sc_expr_parse(ctx, text, "t", 1, &e, &err);
    check_result("expr", c, st, &err);
    ck_assert(st == SC_OK ? e != NULL : e == NULL);
    free(text);
    sc_ctx_free(ctx);
}
END_TEST

/* ---- The env script --------------------------------------------------------- */

static const bad_case env_cases[] = {
    LIT("unknown command", "frobnicate s0", SC_ERR_PARSE,
        "unknown command 'frobnicate'", 1, 1),
    LIT("sym without hint", "sym", SC_ERR_PARSE, "usage: sym", 1, 1),
    LIT("truncated sym", "sym s0 =", SC_ERR_PARSE,
        "expected an integer hint, got ''", 1, 9),
    LIT("float hint", "sym s0 = 1e5", SC_ERR_PARSE,
        "expected an integer hint, got '1e5'", 1, 10),
    LIT("negative hint", "sym s0 = -2", SC_ERR_INVALID, "must be >= 0", 1, 5),
    LIT("hint beyond int64", "sym s0 = 99999999999999999999999", SC_ERR_OVERFLOW,
        "does not fit in int64_t", 1, 10),
    LIT("hint 10^100",
        "sym s0 = 1000000000000000000000000000000000000000000000000000000"
        "0000000000000000000000000000000000000000000000",
        SC_ERR_OVERFLOW, "does not fit in int64_t", 1, 10),
    LIT("range without dots", "sym s0 = 8 range 5", SC_ERR_PARSE,
        "expected a range LO..HI, got '5'", 1, 18),
    LIT("empty range", "sym s0 = 8 range 9..2", SC_ERR_INVALID,
        "empty range '9..2'", 1, 18),
    LIT("range with letters", "unbacked u0 range a..b", SC_ERR_PARSE,
        "bad lower bound 'a'", 1, 19),
    LIT("range missing", "unbacked u0 range", SC_ERR_PARSE,
        "'range' needs LO..HI", 1, 13),
    LIT("unknown option", "sym s0 = 8 bogus", SC_ERR_PARSE,
        "unknown option 'bogus' of sym", 1, 12),
    LIT("wrong arity: unbacked", "unbacked u0 u1", SC_ERR_PARSE,
        "unknown option 'u1' of unbacked", 1, 13),
    LIT("source without text", "sym s0 = 8 source", SC_ERR_PARSE,
        "'source' needs a text", 1, 12),
    LIT("duplicate symbol", "sym s0 = 8\nsym s0 = 4", SC_ERR_INVALID,
        "symbol 's0' already exists", 2, 5),
    LIT("duplicate source", "sym 8 source x.size(0)\nsym 9 source x.size(0)",
        SC_ERR_INVALID, "already has a size", 2, 5),
    LIT("reserved name", "sym True = 4", SC_ERR_INVALID, "reserved word", 1,
        5),
    LIT("missing expression", "guard   ", SC_ERR_PARSE, "missing expression",
        1, 9),
    LIT("truncated expression", "sym s0 = 8\nguard s0 >= (2", SC_ERR_PARSE,
        "expected ')', got end of input", 2, 15),
    LIT("undefined symbol", "guard q > 2", SC_ERR_UNBOUND,
        "unknown symbol 'q'", 1, 7),
    LIT("use before definition", "guard s0 > 2\nsym s0 = 8", SC_ERR_UNBOUND,
        "unknown symbol 's0'", 1, 7),
    LIT("wrong type: guard", "sym s0 = 8\nguard s0 + 1", SC_ERR_TYPE,
        "expected a boolean expression", 2, 7),
    LIT("wrong type: int", "sym s0 = 8\nint s0 > 2", SC_ERR_TYPE,
        "expected an integer expression", 2, 5),
    LIT("wrong arity in an expression", "sym s0 = 8\nint Mod(s0)",
        SC_ERR_PARSE, "Mod takes 2 arguments", 2, 5),
    LIT("test without =", "sym s0 = 8\ntest s0", SC_ERR_PARSE,
        "expected NAME=VALUE, got 's0'", 2, 6),
    LIT("test value beyond int64",
        "sym s0 = 8\ntest s0=99999999999999999999999", SC_ERR_OVERFLOW,
        "bad value '99999999999999999999999' for s0", 2, 9),
    LIT("test of an undefined name", "sym s0 = 8\ntest zz=4", SC_ERR_INVALID,
        "'zz' is neither a source nor the symbol of one", 2, 6),
    LIT("binary garbage", "\x7f" "ELF\x02\x01\x01\xff\xfe", SC_ERR_PARSE,
        "unknown command", 1, 1),
    BIN("NUL byte", "sym s0 = 8\nguard s0\0 > 2", SC_ERR_PARSE,
        "NUL byte", 2, 9),
    GEN("100000 nested parentheses", "sym s0 = 8\nguard ", "(", "s0 > 2",
        ")", "", 100000, SC_ERR_LIMIT, "nested deeper than 1000", 2, 1007),
    GEN("100000 nested Max", "sym s0 = 8\nint ", "Max(", "s0", ")", "",
        100000, SC_ERR_LIMIT, "nested deeper than 1000", 2, 4005),
    /* The first failure is reported; later lines still run. */
    LIT("first of two errors", "sym s0 = 8\nnope\nguard (", SC_ERR_PARSE,
        "unknown command 'nope'", 2, 1),
    LIT("comments and blanks", "# c\n\n  sym s0 = 8 # hint\nguard s0 > 2\n",
        SC_OK, "", 0, 0),
};

START_TEST(test_env_table)
{
    const bad_case *c = &env_cases[_i];
    FILE *out = fopen("/dev/null", "w");
    sc_error err;
    size_t len;
    char *text = case_input(c, &len);
    sc_status st;

    ck_assert_ptr_nonnull(out);
    st = cli_envscript_run(text, len, out, &err);
    check_result("env", c, st, &err);
    fclose(out);
    free(text);
}
END_TEST

/* ---- The graph reader --------------------------------------------------------- */

#define HDR "def forward(self, x: \"f32[4, 4][4, 1]cpu\"):\n"
#define RELU(y, a) \
    "    " y ": \"f32[4, 4][4, 1]cpu\" = torch.ops.aten.relu.default(" a ")\n"

static const bad_case graph_cases[] = {
    LIT("empty", "", SC_ERR_PARSE, "no graph found", 1, 1),
    LIT("truncated header", "def forw", SC_ERR_PARSE, "expected 'forward'", 1,
        5),
    LIT("truncated call", HDR "    y: \"f32[4, 4][4, 1]cpu\" = torch.ops.aten"
        ".relu.def", SC_ERR_PARSE, "expected a call after the dotted name", 2,
        31),
    LIT("truncated annotation", "def forward(self, x: \"f32[4, 4", SC_ERR_PARSE,
        "unterminated string", 1, 22),
    LIT("no return", HDR RELU("y", "x"), SC_ERR_PARSE, "return", 3, 1),
    LIT("binary garbage", "\x7f" "ELF\x02\x01\x01\xff\xfe\n", SC_ERR_PARSE,
        "to start the graph", 1, 1),
    BIN("NUL byte", HDR "    y = torch.ops.aten.re\0lu.default(x)\n",
        SC_ERR_PARSE, "NUL byte", 2, 26),
    LIT("unknown dtype", "def forward(self, x: \"q32[4][1]cpu\"):\n    return [x]\n",
        SC_ERR_PARSE, "unknown dtype code 'q32'", 1, 23),
    LIT("size beyond int64",
        "def forward(self, x: \"f32[100000000000000000000][1]cpu\"):\n"
        "    return [x]\n",
        SC_ERR_OVERFLOW, "size 100000000000000000000 does not fit", 1, 27),
    LIT("size 10^100",
        "def forward(self, x: \"f32[4, 1000000000000000000000000000000000000"
        "000000000000000000000000000000000000000000000000000000000000000][1, 1]"
        "cpu\"):\n    return [x]\n",
        SC_ERR_OVERFLOW, "does not fit in int64_t", 1, 30),
    LIT("stride beyond int64",
        "def forward(self, x: \"f32[4][99999999999999999999]cpu\"):\n"
        "    return [x]\n",
        SC_ERR_OVERFLOW, "stride 99999999999999999999 does not fit", 1, 30),
    LIT("negative size",
        "def forward(self, x: \"f32[3, -3][3, 1]cpu\"):\n    return [x]\n",
        SC_ERR_PARSE, "a size must be >= 0 (got -3)", 1, 30),
    /* Found by fuzz_graph_read: a first annotation of a 0-d tensor with
     * strides did pointer arithmetic on a NULL buffer (UBSan). */
    LIT("0-d tensor with strides first",
        "def forward(self, x: \"f32[][]cpu\"):\n    return [x]\n", SC_OK, "", 0,
        0),
    LIT("sizes and strides differ",
        "def forward(self, x: \"f32[4, 4][1]cpu\"):\n    return [x]\n",
        SC_ERR_PARSE, "2 sizes but 1 strides", 1, 23),
    LIT("undefined name", HDR RELU("y", "x") "    return [w]\n", SC_ERR_PARSE,
        "undefined name 'w'", 3, 13),
    LIT("use before definition", HDR RELU("y", "z") RELU("z", "x")
        "    return [y]\n", SC_ERR_PARSE,
        "'z' is used before its definition at line 3", 2, 59),
    LIT("cycle: self-reference", HDR RELU("y", "y") "    return [y]\n",
        SC_ERR_PARSE, "undefined name 'y'", 2, 59),
    LIT("cycle: two nodes", HDR RELU("y", "z") RELU("z", "y")
        "    return [z]\n", SC_ERR_PARSE, "'z' is used before its definition",
        2, 59),
    LIT("duplicate node", HDR RELU("y", "x") RELU("y", "x") "    return [y]\n",
        SC_ERR_PARSE, "duplicate definition of 'y' (first defined at line 2)",
        3, 5),
    LIT("duplicate placeholder",
        "def forward(self, x: \"f32[4][1]cpu\", x: \"f32[4][1]cpu\"):\n"
        "    return [x]\n",
        SC_ERR_PARSE, "duplicate definition of 'x'", 1, 38),
    LIT("too many arguments", HDR RELU("y", "x, x") "    return [y]\n",
        SC_ERR_TYPE, "takes 1 positional argument but 2 were given", 2, 5),
    LIT("missing argument", HDR RELU("y", "") "    return [y]\n", SC_ERR_TYPE,
        "missing required argument 'self'", 2, 5),
    LIT("mm of one argument",
        HDR "    y: \"f32[4, 4][4, 1]cpu\" = torch.ops.aten.mm.default(x)\n"
        "    return [y]\n",
        SC_ERR_TYPE, "missing required argument 'mat2'", 2, 5),
    GEN("100000 nested lists", HDR "    y: \"f32[16][1]cpu\" = "
        "torch.ops.aten.view.default(x, ", "[", "16", "]", ")\n    return [y]\n",
        100000, SC_ERR_PARSE, "nested deeper than 64", 2, 121),
    GEN("100000 nested parentheses in a size",
        "def forward(self, x: \"f32[", "(", "4", ")", "][1]cpu\"):\n"
        "    return [x]\n", 100000, SC_ERR_LIMIT, "nested deeper than 1000", 1,
        1027),
    GEN("100000 unclosed brackets", HDR "    y = torch.ops.aten.view.default(x, ",
        "[", "", "", "", 100000, SC_ERR_PARSE, "nested deeper than 64", 2, 104),
};

START_TEST(test_graph_table)
{
    const bad_case *c = &graph_cases[_i];
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = NULL;
    sc_error err;
    size_t len;
    char *text = case_input(c, &len);
    sc_status st;

    ck_assert_ptr_nonnull(ctx);
    st = sc_graph_read_text(ctx, text, len, "t.py", NULL, &g, &err);
    check_result("graph", c, st, &err);
    if (st != SC_OK)
        ck_assert_str_eq(err.file, "t.py");
    ck_assert(st == SC_OK ? g != NULL : g == NULL);
    sc_graph_free(g);
    free(text);
    sc_ctx_free(ctx);
}
END_TEST

/* ---- The .npy reader -------------------------------------------------------------- */

/* A version 1.0 header: magic, version, length (little-endian), dict. */
#define NPY1(len_lo, dict) "\x93NUMPY\x01\x00" len_lo "\x00" dict
/* 'descr': '<f4', 'fortran_order': False, 'shape': (2,), }   (58 bytes
 * with the newline; the header starts at byte 10) */
#define DICT_F4_2 "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n"

static const bad_case npy_cases[] = {
    BIN("empty", "", SC_ERR_PARSE, "file too short", 0, 0),
    LIT("truncated magic", "\x93NUM", SC_ERR_PARSE, "file too short", 0, 4),
    LIT("text file", "hello world", SC_ERR_PARSE, "bad magic", 0, 0),
    BIN("bad magic", "\x93NUMPX\x01\x00", SC_ERR_PARSE, "bad magic", 0, 5),
    BIN("version 9", "\x93NUMPY\x09\x00\x00\x00", SC_ERR_UNSUPPORTED,
        "unsupported format version 9.0", 0, 6),
    BIN("truncated length", "\x93NUMPY\x01\x00\x05", SC_ERR_PARSE,
        "too short for the header length", 0, 8),
    BIN("header beyond the end", NPY1("\xff", "{}"), SC_ERR_PARSE,
        "header length 255 goes beyond the end", 0, 8),
    BIN("NUL in the header", NPY1("\x04", "{\0}\n"), SC_ERR_PARSE,
        "invalid byte 0x00", 0, 11),
    BIN("binary in the header", NPY1("\x04", "{\xff}\n"), SC_ERR_PARSE,
        "invalid byte 0xff", 0, 11),
    BIN("truncated data", NPY1("\x3a", DICT_F4_2) "\0\0\0\0",
        SC_ERR_PARSE, "data is 4 bytes; the shape needs 8", 0, 68),
    BIN("no data", NPY1("\x3a", DICT_F4_2), SC_ERR_PARSE,
        "data is 0 bytes; the shape needs 8", 0, 68),
    BIN("dimension beyond int64",
        NPY1("\x50", "{'descr': '<f4', 'fortran_order': False, "
             "'shape': (99999999999999999999999,), }\n"), SC_ERR_OVERFLOW,
        "dimension does not fit in int64", 0, 61),
    BIN("dimension 10^100",
        NPY1("\x9e", "{'descr': '<f4', 'fortran_order': False, 'shape': ("
             "1000000000000000000000000000000000000000000000000000000000000000"
             "0000000000000000000000000000000000000,), }\n"),
        SC_ERR_OVERFLOW, "dimension does not fit in int64", 0, 61),
    BIN("too many elements",
        NPY1("\x52", "{'descr': '<f8', 'fortran_order': False, "
             "'shape': (4294967296, 4294967296, 16), }\n"),
        SC_ERR_OVERFLOW, "too many elements", 0, 10),
    BIN("17 dimensions",
        NPY1("\x5a", "{'descr': '<f4', 'fortran_order': False, 'shape': "
             "(1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,), }\n"), SC_ERR_PARSE,
        "more than 16 dimensions", 0, 93),
    BIN("negative dimension",
        NPY1("\x3b", "{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }\n"), SC_ERR_PARSE, "expected a non-negative integer dimension", 0, 61),
    BIN("unsupported dtype",
        NPY1("\x39", "{'descr': '<c16', 'fortran_order': False, 'shape': (), }\n"), SC_ERR_UNSUPPORTED, "unsupported descr '<c16'", 0, 20),
    BIN("structured dtype",
        NPY1("\x32", "{'descr': [('a', '<f4')], 'fortran_order': False}\n"), SC_ERR_UNSUPPORTED, "structured dtypes", 0, 20),
    BIN("missing shape",
        NPY1("\x2b", "{'descr': '<f4', 'fortran_order': False, }\n"),
        SC_ERR_PARSE, "header lacks 'shape'", 0, 53),
    BIN("duplicate key",
        NPY1("\x39", "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False}\n"), SC_ERR_PARSE, "unexpected or repeated key 'descr'", 0, 27),
    BIN("unknown key",
        NPY1("\x0d", "{'colour': 1}"), SC_ERR_PARSE,
        "unexpected or repeated key 'colour'", 0, 11),
    GENB("10000 nested parentheses in the shape",
        "\x93NUMPY\x01\x00\x56\x4e{'descr': '<f4', "
        "'fortran_order': False, 'shape': ", 60, "(", "", ")", ", }\n", 10000,
        SC_ERR_PARSE, "expected a non-negative integer dimension", 0, 61),
    BIN("fortran order, no elements, huge sizes",
        NPY1("\x62", "{'descr': '<f4', 'fortran_order': True, 'shape': "
             "(0, 4611686018427387904, 4611686018427387904), }\n"),
        SC_ERR_OVERFLOW, "the strides of the shape do not fit in int64", 0,
        10),
};

/* npy errors locate by byte offset, in the message: "at byte N". */
START_TEST(test_npy_table)
{
    const bad_case *c = &npy_cases[_i];
    sc_tensor *t = NULL;
    sc_error err;
    size_t len;
    char *buf = case_input(c, &len), at[48];
    sc_status st;

    st = sc_npy_read_buffer(buf, len, "t.npy", &t, &err);
    ck_assert_msg(st == c->status, "npy, %s: status %s, expected %s (%s)",
                  c->what, sc_status_name(st), sc_status_name(c->status),
                  st ? err.message : "");
    if (st != SC_OK) {
        ck_assert_ptr_null(t);
        ck_assert_int_eq(err.code, st);
        ck_assert_msg(strstr(err.message, c->message) != NULL,
                      "npy, %s: message '%s' lacks '%s'", c->what,
                      err.message, c->message);
        snprintf(at, sizeof at, "at byte %d:", c->column);
        ck_assert_msg(strstr(err.message, at) != NULL,
                      "npy, %s: message '%s' is not %s", c->what,
                      err.message, at);
        ck_assert_str_eq(err.file, "t.npy");
    }
    sc_tensor_free(t);
    free(buf);
}
END_TEST

/* ---- The CLI's NAME=VALUE bindings (--sizes, --bind) ------------------------------- */

static const bad_case bind_cases[] = {
    LIT("empty value", "s0=", SC_ERR_PARSE,
        "bad binding 's0=': expected a symbol name and an integer", 1, 1),
    LIT("no name", "=5", SC_ERR_PARSE, "expected NAME=VALUE, got '=5'", 1, 1),
    LIT("no =", "s0=2,s1", SC_ERR_PARSE, "expected NAME=VALUE, got 's1'", 1, 6),
    LIT("letters", "s0=abc", SC_ERR_PARSE, "bad binding 's0=abc'", 1, 1),
    LIT("float", "s0=1.5", SC_ERR_PARSE, "bad binding 's0=1.5'", 1, 1),
    LIT("reserved name", "s0=1,True=3", SC_ERR_PARSE, "bad binding 'True=3'", 1,
        6),
    LIT("not an identifier", "s-0=3", SC_ERR_PARSE, "bad binding 's-0=3'", 1,
        1),
    LIT("binary garbage", "\xff\xfe=\x01", SC_ERR_PARSE, "bad binding", 1, 1),
    LIT("duplicate name", "s0=5,s1=2,s0=6", SC_ERR_INVALID,
        "'s0' is bound twice", 1, 11),
    LIT("trailing blank", "s0=5 ", SC_ERR_PARSE, "bad binding 's0=5 '", 1, 1),
    /* Any size: eval takes exact integers (--sizes checks int64 later). */
    LIT("10^100", "s0=1000000000000000000000000000000000000000000000000000000"
        "000000000000000000000000000000000000000000000", SC_OK, "", 0, 0),
    LIT("blanks after commas", "s0=5, s1=6", SC_OK, "", 0, 0),
};

START_TEST(test_bind_table)
{
    const bad_case *c = &bind_cases[_i];
    sc_ctx *ctx = sc_ctx_new();
    sc_symmap *map = sc_symmap_new(ctx);
    sc_error err;
    size_t len;
    char *text = case_input(c, &len);
    sc_status st;

    ck_assert_ptr_nonnull(map);
    sc_error_init(&err);
    st = cli_parse_bindings(ctx, text, map, &err);
    check_result("bindings", c, st, &err);
    free(text);
    sc_symmap_free(map);
    sc_ctx_free(ctx);
}
END_TEST

/* ---- The CLI's --hint values (cli_parse_hints) -------------------------- */

/* A --hint text, whether it parses, the substring the message must have
 * (naming the item and the rule) and, when it parses, s0's value. */
static const struct {
    const char *text;
    bool ok;
    const char *message;
    int64_t s0;
} hint_cases[] = {
    {"s0=8", true, NULL, 8},
    {"s0=2", true, NULL, 2},
    /* int64 sizes: 3e9 is a valid hint (it does not fit in 32 bits) */
    {"s0=3000000000", true, NULL, 3000000000},
    {"s0=9223372036854775807", true, NULL, INT64_MAX},
    {"s0=8,s0=16", true, NULL, 16}, /* a later value replaces */
    {"s0=9223372036854775808", false,
     "s0=9223372036854775808: beyond int64", 0},
    {"s0=99999999999999999999", false, "s0=99999999999999999999: beyond int64",
     0},
    {"s0=0", false, "s0=0: a hint must be at least 2: PyTorch specializes", 0},
    {"s0=1", false, "s0=1: a hint must be at least 2: PyTorch specializes", 0},
    {"s0=1e20", false, "s0=1e20: a hint is a size, a decimal integer from 2",
     0},
    {"s0=-1", false, "s0=-1: a hint is a size", 0},
    {"s0=+8", false, "s0=+8: a hint is a size", 0},
    {"s0= 8", false, "s0= 8: a hint is a size", 0},
    {"s0=", false, "s0=: a hint is a size", 0},
    {"s0=8,s1=x", false, "s1=x: a hint is a size", 0},
    {"s0", false, "'s0': expected SYMBOL=VALUE", 0},
    {"=8", false, "'=8': expected SYMBOL=VALUE", 0},
    {"True=8", false, "True=8: 'True' is not a symbol name", 0},
};

START_TEST(test_hint_table)
{
    sc_ctx *ctx = sc_ctx_new();
    cli_hints h = {0};
    char msg[256] = "";
    bool ok;

    ck_assert_ptr_nonnull(ctx);
    ok = cli_parse_hints(ctx, hint_cases[_i].text, &h, msg, sizeof msg);
    ck_assert_msg(ok == hint_cases[_i].ok, "--hint %s: %s (%s)",
                  hint_cases[_i].text, ok ? "accepted" : "rejected", msg);
    if (ok) {
        ck_assert_uint_ge(h.n, 1);
        ck_assert_str_eq(sc_expr_symbol_name(h.syms[0]), "s0");
        ck_assert_int_eq(h.values[0], hint_cases[_i].s0);
    } else {
        ck_assert_msg(strstr(msg, hint_cases[_i].message) != NULL,
                      "--hint %s: message '%s' lacks '%s'",
                      hint_cases[_i].text, msg, hint_cases[_i].message);
    }
    cli_hints_free(&h);
    sc_ctx_free(ctx);
}
END_TEST

/* A directory given as an input file: an error saying so, for the check
 * and for cli_read_file. */
START_TEST(test_input_directory)
{
    const char *top = getenv("top_srcdir");
    char path[4096];
    sc_error err;
    size_t len;

    snprintf(path, sizeof path, "%s/tests/data", top ? top : ".");
    ck_assert_int_eq(cli_check_input_file(path, &err), SC_ERR_IO);
    ck_assert_msg(strstr(err.message, "it is a directory, not a file"),
                  "message: %s", err.message);
    ck_assert_ptr_null(cli_read_file(path, &len, &err));
    ck_assert_int_eq(err.code, SC_ERR_IO);
    ck_assert_msg(strstr(err.message, "it is a directory, not a file"),
                  "message: %s", err.message);
    ck_assert_int_eq(cli_check_input_file("-", &err), SC_OK);
}
END_TEST

/* ---- Regression inputs of the fuzzers -------------------------------------------- */

static char *regress_dir(const char *reader)
{
    const char *top = getenv("top_srcdir");
    size_t n = (top ? strlen(top) : 1) + strlen(reader) + 32;
    char *p = malloc(n);
    ck_assert_ptr_nonnull(p);
    snprintf(p, n, "%s/tests/data/regress/%s", top ? top : ".", reader);
    return p;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0, n = 0, got;

    ck_assert_msg(f != NULL, "cannot open %s", path);
    do {
        if (cap - n < 4096) {
            cap = cap ? 2 * cap : 65536;
            buf = realloc(buf, cap + 1);
            ck_assert_ptr_nonnull(buf);
        }
        got = fread(buf + n, 1, cap - n, f);
        n += got;
    } while (got > 0);
    fclose(f);
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* Run fn on every file of tests/data/regress/<reader>/; returns the count. */
static size_t each_regress_input(const char *reader,
                                 void (*fn)(const char *path, const char *data,
                                            size_t len))
{
    char *dir = regress_dir(reader), path[4096];
    DIR *d = opendir(dir);
    struct dirent *ent;
    size_t count = 0, len;
    char *data;

    ck_assert_msg(d != NULL, "cannot open %s", dir);
    while ((ent = readdir(d)) != NULL) {
        if (ent->d_name[0] == '.' || strcmp(ent->d_name, "README") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
        data = slurp(path, &len);
        fn(path, data, len);
        free(data);
        count++;
    }
    closedir(d);
    free(dir);
    return count;
}

static void regress_expr(const char *path, const char *data, size_t len)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_expr *e = NULL, *e2 = NULL;
    sc_error err;
    char *s;

    (void)len;
    ck_assert_ptr_nonnull(ctx);
    if (sc_expr_parse(ctx, data, path, 1, &e, &err) == SC_OK) {
        s = sc_expr_to_str(ctx, e);
        ck_assert_ptr_nonnull(s);
        ck_assert_int_eq(sc_expr_parse(ctx, s, "printed", 1, &e2, &err), SC_OK);
        ck_assert_msg(e2 == e, "%s: printed '%s' reads back differently", path,
                      s);
        free(s);
    } else {
        ck_assert_msg(err.line >= 1 && err.column >= 1 && err.message[0],
                      "%s: error without a location: %s", path, err.message);
    }
    sc_ctx_free(ctx);
}

static void regress_env(const char *path, const char *data, size_t len)
{
    FILE *out = fopen("/dev/null", "w");
    sc_error err;
    sc_status st;

    ck_assert_ptr_nonnull(out);
    st = cli_envscript_run(data, len, out, &err);
    ck_assert_msg(st == SC_OK || (err.line >= 1 && err.message[0]),
                  "%s: error without a line: %s", path, err.message);
    fclose(out);
}

static void regress_graph(const char *path, const char *data, size_t len)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = NULL, *g2 = NULL;
    sc_error err;
    char *text = NULL, why[256] = "";
    size_t n;

    ck_assert_ptr_nonnull(ctx);
    if (sc_graph_read_text(ctx, data, len, path, NULL, &g, &err) == SC_OK) {
        ck_assert_int_eq(sc_graph_write_text(g, NULL, &text, &n, &err), SC_OK);
        ck_assert_msg(sc_graph_read_text(ctx, text, n, "written", NULL, &g2,
                                         &err) == SC_OK,
                      "%s: the written graph does not read: %s", path,
                      err.message);
        ck_assert_msg(sc_graph_equal(g, g2, 0, why, sizeof why),
                      "%s: round trip differs: %s", path, why);
    } else {
        ck_assert_msg(err.line >= 1 && err.message[0],
                      "%s: error without a location: %s", path, err.message);
    }
    free(text);
    sc_graph_free(g2);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}

static void regress_npy(const char *path, const char *data, size_t len)
{
    sc_tensor *t = NULL;
    sc_error err;

    if (sc_npy_read_buffer(data, len, path, &t, &err) == SC_OK)
        sc_tensor_free(t);
    else
        ck_assert_msg(t == NULL && err.message[0], "%s: bad failure", path);
}

START_TEST(test_regress)
{
    size_t n = each_regress_input("expr", regress_expr);
    n += each_regress_input("envscript", regress_env);
    n += each_regress_input("graph", regress_graph);
    n += each_regress_input("npy", regress_npy);
    ck_assert_uint_gt(n, 0);
}
END_TEST

Suite *badinput_suite(void)
{
    Suite *s = suite_create("badinput");
    TCase *tc = tcase_create("tables");

    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_expr_table, 0,
                        (int)(sizeof expr_cases / sizeof expr_cases[0]));
    tcase_add_loop_test(tc, test_env_table, 0,
                        (int)(sizeof env_cases / sizeof env_cases[0]));
    tcase_add_loop_test(tc, test_graph_table, 0,
                        (int)(sizeof graph_cases / sizeof graph_cases[0]));
    tcase_add_loop_test(tc, test_npy_table, 0,
                        (int)(sizeof npy_cases / sizeof npy_cases[0]));
    tcase_add_loop_test(tc, test_bind_table, 0,
                        (int)(sizeof bind_cases / sizeof bind_cases[0]));
    tcase_add_loop_test(tc, test_hint_table, 0,
                        sizeof hint_cases / sizeof hint_cases[0]);
    tcase_add_test(tc, test_input_directory);
    tcase_add_test(tc, test_regress);
    suite_add_tcase(s, tc);
    return s;
}
