/* symcut tests — symint: symbolic integers.
 *
 * Black-box tests of the public API in <symcut/symint.h>:
 *  - tables (input, expected) for the parser, the printer and every
 *    canonicalization and simplification rule of the header and doc/symint.md;
 *  - value ranges, simplification under ranges, evaluation, compiled
 *    programs, substitution, inspection;
 *  - the C printer, compiled with the system compiler and run;
 *  - property tests on random expression trees built here and evaluated by
 *    a reference evaluator written directly on GMP (Python semantics).
 * One white-box part: symint/pydiv.h (Python's //, % and CeilDiv on
 * int64_t), checked on a table of corners and against GMP's mpz_fdiv_q,
 * mpz_fdiv_r and mpz_cdiv_q on seeded random pairs.
 *
 * Notes printed as "symint NOTE: ..." are spellings or canonical forms
 * where the library made a different but sound choice than the one this
 * file prefers; they do not fail the suite.
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gmp.h>
#include <check.h>

#include <symcut/symint.h>

#include "symint/pydiv.h"
#include "tests/testutil.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Check's ck_assert records a checkpoint (a write) even when it passes;
 * hot loops use these, which only act on failure. */
#define REQUIRE(cond)                                                        \
    do {                                                                     \
        if (!(cond))                                                         \
            ck_abort_msg("%s:%d: requirement failed: %s", __FILE__,         \
                         __LINE__, #cond);                                   \
    } while (0)
#define REQUIRE_MSG(cond, ...)                                               \
    do {                                                                     \
        if (!(cond))                                                         \
            ck_abort_msg(__VA_ARGS__);                                       \
    } while (0)

/* ======================================================================
 * Helpers
 * ====================================================================== */

/* Symbols created, in this order, in every table test's context, so that
 * orderings by creation index and by name agree. */
static const char *const table_symbols[] = {
    "s0", "s1", "s2", "s3", "s4", "s5", "a", "b", "c", "d", "x", "y", "z",
};

static sc_ctx *ctx_with_symbols(void)
{
    sc_ctx *ctx = sc_ctx_new();
    size_t i;

    REQUIRE_MSG(ctx != NULL, "sc_ctx_new failed");
    for (i = 0; i < ARRAY_SIZE(table_symbols); i++)
        REQUIRE_MSG(sc_expr_symbol(ctx, table_symbols[i]) != NULL,
                      "sc_expr_symbol(%s) failed", table_symbols[i]);
    return ctx;
}

static sc_expr *sym(sc_ctx *ctx, const char *name)
{
    sc_expr *e = sc_expr_symbol(ctx, name);
    REQUIRE_MSG(e != NULL, "sc_expr_symbol(%s) failed", name);
    return e;
}

/* Parse text; the test fails with the error if parsing fails. */
static sc_expr *parse_ok(sc_ctx *ctx, const char *text)
{
    sc_error err;
    sc_expr *e = NULL;
    sc_status st;

    sc_error_init(&err);
    st = sc_expr_parse(ctx, text, NULL, 1, &e, &err);
    REQUIRE_MSG(st == SC_OK && e != NULL,
                  "parse of \"%s\" failed: %s at %d:%d: %s", text,
                  sc_status_name(st), err.line, err.column, err.message);
    return e;
}

/* Print e (malloc'ed); the test fails if printing fails. */
static char *print_ok(sc_ctx *ctx, const sc_expr *e)
{
    char *s = sc_expr_to_str(ctx, e);
    REQUIRE_MSG(s != NULL, "sc_expr_to_str failed");
    return s;
}

/* Check that print(e) parses back to e (pointer equality). */
static void assert_roundtrip(sc_ctx *ctx, sc_expr *e, const char *origin)
{
    char *s = print_ok(ctx, e);
    sc_expr *back = parse_ok(ctx, s);
    ck_assert_msg(back == e,
                  "parse(print(e)) != e for input \"%s\": printed \"%s\"",
                  origin, s);
    free(s);
}

/* A binding from text "s0=5,s1=-7,s2=2**70" (values parsed as
 * expressions, so big numbers are easy to write). */
static sc_symmap *binding_from_text(sc_ctx *ctx, const char *text)
{
    sc_symmap *map = sc_symmap_new(ctx);
    char buf[512], *tok, *save = NULL;
    sc_error err;

    ck_assert_msg(map != NULL, "sc_symmap_new failed");
    ck_assert(strlen(text) < sizeof buf);
    strcpy(buf, text);
    for (tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        sc_expr *v;
        ck_assert_msg(eq != NULL, "bad binding text %s", text);
        *eq = '\0';
        v = parse_ok(ctx, eq + 1);
        ck_assert_msg(sc_expr_is_int(v), "binding value %s not constant",
                      eq + 1);
        sc_error_init(&err);
        ck_assert_msg(sc_symmap_set(map, sym(ctx, tok), v, &err) == SC_OK,
                      "sc_symmap_set(%s) failed: %s", tok, err.message);
    }
    return map;
}

/* Bounds from text "x=0..7,y=..-1,z=2.." (empty side: infinity). */
static sc_bounds *bounds_from_text(sc_ctx *ctx, const char *text)
{
    sc_bounds *b = sc_bounds_new(ctx);
    char buf[512], *tok, *save = NULL;
    sc_error err;

    ck_assert_msg(b != NULL, "sc_bounds_new failed");
    ck_assert(strlen(text) < sizeof buf);
    strcpy(buf, text);
    for (tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '='), *dots;
        sc_range r;
        ck_assert_msg(eq != NULL, "bad bounds text %s", text);
        *eq = '\0';
        dots = strstr(eq + 1, "..");
        ck_assert_msg(dots != NULL, "bad bounds text %s", text);
        *dots = '\0';
        sc_range_init(&r);
        r.lo_inf = eq[1] == '\0';
        r.hi_inf = dots[2] == '\0';
        if (!r.lo_inf)
            ck_assert(mpz_set_str(r.lo, eq + 1, 10) == 0);
        if (!r.hi_inf)
            ck_assert(mpz_set_str(r.hi, dots + 2, 10) == 0);
        sc_error_init(&err);
        ck_assert_msg(sc_bounds_set(b, sym(ctx, tok), &r, &err) == SC_OK,
                      "sc_bounds_set(%s) failed: %s", tok, err.message);
        sc_range_clear(&r);
    }
    return b;
}

/* Evaluate e under binding to a decimal string (malloc'ed), or NULL and
 * *status set on error. */
static char *eval_to_str(sc_ctx *ctx, sc_expr *e, const sc_symmap *binding,
                         sc_status *status, sc_error *err)
{
    mpz_t v;
    char *s = NULL;

    mpz_init(v);
    sc_error_init(err);
    *status = sc_expr_eval(ctx, e, binding, v, err);
    if (*status == SC_OK)
        s = mpz_get_str(NULL, 10, v);
    mpz_clear(v);
    return s;
}

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("symint NOTE: ", stdout);
    vprintf(fmt, ap);
    fputc('\n', stdout);
    fflush(stdout);
    va_end(ap);
}

/* Are a and b equal on a grid of random bindings of the table symbols?
 * Bindings where either evaluation fails are skipped (but both failing
 * differently from the other on a binding is reported through *why). */
static bool agree_on_samples(sc_ctx *ctx, sc_expr *a, sc_expr *b,
                             char *why, size_t whysz)
{
    sc_test_rng rng;
    sc_symmap *map = sc_symmap_new(ctx);
    mpz_t va, vb;
    sc_error err;
    int round;
    size_t i;
    bool ok = true;

    REQUIRE(map != NULL);
    mpz_init(va);
    mpz_init(vb);
    sc_test_rng_init(&rng, 12345);
    for (round = 0; round < 200 && ok; round++) {
        sc_status sa, sb;
        for (i = 0; i < ARRAY_SIZE(table_symbols); i++) {
            int64_t v = round < 100 ? sc_test_rng_range(&rng, -9, 9)
                                    : sc_test_rng_range(&rng, -1000, 1000);
            REQUIRE(sc_symmap_set_si(map, sym(ctx, table_symbols[i]), v,
                                       &err) == SC_OK);
        }
        sc_error_init(&err);
        sa = sc_expr_eval(ctx, a, map, va, &err);
        sc_error_init(&err);
        sb = sc_expr_eval(ctx, b, map, vb, &err);
        if (sa == SC_OK && sb == SC_OK && mpz_cmp(va, vb) != 0) {
            char *sva = mpz_get_str(NULL, 10, va);
            char *svb = mpz_get_str(NULL, 10, vb);
            snprintf(why, whysz, "values differ at sample %d: %s vs %s",
                     round, sva, svb);
            free(sva);
            free(svb);
            ok = false;
        }
    }
    mpz_clear(va);
    mpz_clear(vb);
    sc_symmap_free(map);
    return ok;
}

/* ======================================================================
 * Tables: printing (exact spelling required)
 * ====================================================================== */

typedef struct text_row {
    const char *input;
    const char *expected;
} text_row;

/* ---- Row checks ----------------------------------------------------------
 * Each table is one test: every row is checked (in a fresh context) and
 * all failing rows are reported together, so one failure does not hide
 * the next, without forking a process per row. */

#define ROW_REQUIRE(cond, ...)                                               \
    do {                                                                     \
        if (!(cond)) {                                                       \
            snprintf(msg, size, __VA_ARGS__);                                \
            goto fail;                                                       \
        }                                                                    \
    } while (0)

/* cond failed and already wrote msg */
#define ROW_CHECK(cond)                                                      \
    do {                                                                     \
        if (!(cond))                                                         \
            goto fail;                                                       \
    } while (0)

typedef bool (*row_check)(sc_ctx *ctx, size_t i, char *msg, size_t size);

static void run_rows(const char *table, row_check check, size_t n)
{
    static char report[7000];
    char msg[1024];
    size_t i, failed = 0, len = 0;

    report[0] = '\0';
    for (i = 0; i < n; i++) {
        sc_ctx *ctx = ctx_with_symbols();
        msg[0] = '\0';
        if (!check(ctx, i, msg, sizeof msg)) {
            failed++;
            printf("symint FAIL: %s row %zu: %s\n", table, i, msg);
            if (len < sizeof report - 1)
                len += (size_t)snprintf(report + len, sizeof report - len,
                                        "\n  row %zu: %s", i, msg);
        }
        sc_ctx_free(ctx);
    }
    fflush(stdout);
    ck_assert_msg(failed == 0, "%s: %zu of %zu rows fail:%s", table, failed,
                  n, report);
}

/* Parse text; NULL and a message on failure. */
static sc_expr *try_parse(sc_ctx *ctx, const char *text, char *msg,
                          size_t size)
{
    sc_error err;
    sc_expr *e = NULL;
    sc_status st;

    sc_error_init(&err);
    st = sc_expr_parse(ctx, text, NULL, 1, &e, &err);
    if (st != SC_OK || e == NULL) {
        snprintf(msg, size, "parse of \"%s\" failed: %s at %d:%d: %s", text,
                 sc_status_name(st), err.line, err.column, err.message);
        return NULL;
    }
    return e;
}

/* Does print(e) parse back to e?  A message if not. */
static bool try_roundtrip(sc_ctx *ctx, sc_expr *e, const char *origin,
                          char *msg, size_t size)
{
    char *s = sc_expr_to_str(ctx, e);
    sc_expr *back;
    bool ok;

    if (!s) {
        snprintf(msg, size, "printing \"%s\" failed", origin);
        return false;
    }
    back = try_parse(ctx, s, msg, size);
    ok = back == e;
    if (back && !ok)
        snprintf(msg, size, "parse(print(e)) != e for input \"%s\": printed "
                 "\"%s\"", origin, s);
    free(s);
    return ok;
}

/* The spellings named in the header and doc/symint.md: print(parse(input)) must
 * be exactly `expected`. */
static const text_row print_required_rows[] = {
    {"s0*s1 + 2", "s0*s1 + 2"},
    {"2 + s1*s0", "s0*s1 + 2"},
    {"s1*s0 + 1 + 1", "s0*s1 + 2"},
    {"4*s0*s1 + 512*s0", "4*s0*s1 + 512*s0"},
    {"512*s0 + 4*s0*s1", "4*s0*s1 + 512*s0"},
    {"4*s0*(s1 + 128)", "4*s0*s1 + 512*s0"},
    {"s0//8", "s0//8"},
    {"s0 // 8", "s0//8"},
    {"FloorDiv(s0, 8)", "s0//8"},
    {"2*(s0//8)", "2*(s0//8)"},
    {"(s0//8) + FloorDiv(s0, 8)", "2*(s0//8)"},
    {"Mod(s0, 8)", "Mod(s0, 8)"},
    {"s0 % 8", "Mod(s0, 8)"},
    {"PythonMod(s0, 8)", "Mod(s0, 8)"},
    {"Mod(s0*s1, 8)", "Mod(s0*s1, 8)"},
    {"CeilDiv(s0, 8)", "CeilDiv(s0, 8)"},
    {"Max(1, s1)", "Max(1, s1)"},
    {"Max(s1, 1)", "Max(1, s1)"},
    {"Max(1, Max(s1, 3))", "Max(3, s1)"},
    {"Max(s1, 2, 3, 1)", "Max(3, s1)"},
    {"Min(s1, s0)", "Min(s0, s1)"},
    {"Eq(s0, s1)", "Eq(s0, s1)"},
    {"s0 == s1", "Eq(s0, s1)"},
    {"Eq(s1, s0)", "Eq(s0, s1)"},
    {"Eq(2*s0, 4)", "Eq(s0, 2)"},
    {"s0 >= 2", "s0 >= 2"},
    {"s0 > 1", "s0 >= 2"},
    {"2*s0 >= 4", "s0 >= 2"},
    {"1 < s0", "s0 >= 2"},
    {"Ge(s0, 2)", "s0 >= 2"},
    {"Gt(s0, 1)", "s0 >= 2"},
    {"not s0 < 2", "s0 >= 2"},
    {"s0 <= 1024", "s0 <= 1024"},
    {"s0 < 1025", "s0 <= 1024"},
    {"1024 >= s0", "s0 <= 1024"},
    {"Le(s0, 1024)", "s0 <= 1024"},
    {"Lt(s0, 1025)", "s0 <= 1024"},
    {"s0**2", "s0**2"},
    {"s0*s0", "s0**2"},
    {"Pow(s0, 2)", "s0**2"},
    {"2*s0 - s0", "s0"},
    {"(a + b) + c", "a + b + c"},
    {"c + (b + a)", "a + b + c"},
    {"FloorDiv(FloorDiv(a, 2), 3)", "a//6"},
    {"a // 2 // 3", "a//6"},
    {"FloorDiv(8*x + 16, 8)", "x + 2"},
    {"Mod(6*x + 5, 3)", "2"},
    {"Mod(Mod(x, 4), 4)", "Mod(x, 4)"},
    {"True", "True"},
    {"False", "False"},
    {"2 < 3", "True"},
    {"Eq(s0, s0)", "True"},
    {"s0 < s0", "False"},
    {"s0 + 1 <= s0", "False"},
};

/* Python integer semantics on constants, and Python's precedence. */
static const text_row python_constant_rows[] = {
    {"-7 // 2", "-4"},
    {"-7 % 2", "1"},
    {"7 % -2", "-1"},
    {"7 // -2", "-4"},
    {"-7 // -2", "3"},
    {"-7 % -2", "-1"},
    {"7 // 2", "3"},
    {"7 % 2", "1"},
    {"FloorDiv(-7, 2)", "-4"},
    {"Mod(-7, 2)", "1"},
    {"Mod(7, -2)", "-1"},
    {"PythonMod(-7, 2)", "1"},
    {"CeilDiv(7, 2)", "4"},
    {"CeilDiv(-7, 2)", "-3"},
    {"CeilDiv(7, -2)", "-3"},
    {"CeilDiv(-7, -2)", "4"},
    {"CeilDiv(6, 2)", "3"},
    {"-(7 // 2)", "-3"},
    {"0 // 5", "0"},
    {"0 % -5", "0"},
    {"-6 % 3", "0"},
    {"-6 // 3", "-2"},
    {"2**10", "1024"},
    {"0**0", "1"},
    {"(-2)**3", "-8"},
    {"-2**2", "-4"},
    {"2**3**2", "512"},
    {"Pow(-3, 2)", "9"},
    {"10 - 2 - 3", "5"},
    {"100 // 10 // 3", "3"},
    {"2 * 3 % 4", "2"},
    {"7 % 4 * 3", "9"},
    {"-3 % 5", "2"},
    {"- -3", "3"},
    {"2 - -3", "5"},
    {"Max(3, 7, -1)", "7"},
    {"Min(3, 7, -1)", "-1"},
    {"1 < 2 < 3", "True"},
    {"1 < 3 < 2", "False"},
    {"3 == 3", "True"},
    {"3 != 3", "False"},
    {"True and False", "False"},
    {"True or False", "True"},
    {"not True", "False"},
    {"not (1 < 2)", "False"},
};

/* Numbers far beyond 64 bits, negative big divisors, int64 corners. */
static const text_row big_number_rows[] = {
    {"2**200",
     "1606938044258990275541962092341162602522202993782792835301376"},
    {"10**40 // 3", "3333333333333333333333333333333333333333"},
    {"10**40 // -3", "-3333333333333333333333333333333333333334"},
    {"-(10**40) % 7", "3"},
    {"10**40 % -7", "-3"},
    {"CeilDiv(10**40, 3)", "3333333333333333333333333333333333333334"},
    {"-(10**40) // -(10**20)", "100000000000000000000"},
    {"18446744073709551616 - 1", "18446744073709551615"},
    {"9223372036854775807 + 1", "9223372036854775808"},
    {"-9223372036854775808 // -1", "9223372036854775808"},
    {"-9223372036854775808 % -1", "0"},
    {"(-9223372036854775807 - 1) * -1", "9223372036854775808"},
    {"-(-9223372036854775807 - 1)", "9223372036854775808"},
    {"3037000500*3037000500", "9223372037000250000"},
    {"3*2**64 // -(2**64 + 1)", "-3"},
    {"3*2**64 % -(2**64 + 1)", "-3"},
    {"-(2**70) % (-(2**65) - 1)", "-36893488147419103201"},
    {"2**64*s0 - 2**64*s0", "0"},
    {"2**100*s0 + 2**100*s1",
     "1267650600228229401496703205376*s0 + "
     "1267650600228229401496703205376*s1"},
    {"FloorDiv(2**70*x, 2**68)", "4*x"},
    {"Mod(2**70*x + 5, 2**68)", "5"},
    {"Eq(2**70*x, 2**71)", "Eq(x, 2)"},
    {"18446744073709551616*x >= 36893488147419103232", "x >= 2"},
    {"Max(2**70, 2**71, x)", "Max(2361183241434822606848, x)"},
};

static bool check_text_row(sc_ctx *ctx, const text_row *row, char *msg,
                           size_t size)
{
    sc_expr *e, *again;
    char *s = NULL;

    e = try_parse(ctx, row->input, msg, size);
    ROW_CHECK(e != NULL);
    s = sc_expr_to_str(ctx, e);
    ROW_REQUIRE(s != NULL, "printing failed");
    ROW_REQUIRE(strcmp(s, row->expected) == 0,
                "input \"%s\": expected \"%s\", got \"%s\"", row->input,
                row->expected, s);
    again = try_parse(ctx, row->expected, msg, size);
    ROW_CHECK(again != NULL);
    ROW_REQUIRE(again == e, "\"%s\" and \"%s\" are not one pointer",
                row->input, row->expected);
    ROW_CHECK(try_roundtrip(ctx, e, row->input, msg, size));
    free(s);
    return true;
fail:
    free(s);
    return false;
}

static bool row_print_required(sc_ctx *ctx, size_t i, char *msg, size_t size)
{
    return check_text_row(ctx, &print_required_rows[i], msg, size);
}

static bool row_python_constant(sc_ctx *ctx, size_t i, char *msg,
                                size_t size)
{
    return check_text_row(ctx, &python_constant_rows[i], msg, size);
}

static bool row_big_number(sc_ctx *ctx, size_t i, char *msg, size_t size)
{
    return check_text_row(ctx, &big_number_rows[i], msg, size);
}

START_TEST(test_print_required_spelling)
{
    run_rows("print_required", row_print_required,
             ARRAY_SIZE(print_required_rows));
}
END_TEST

START_TEST(test_python_semantics_on_constants)
{
    run_rows("python_constants", row_python_constant,
             ARRAY_SIZE(python_constant_rows));
}
END_TEST

START_TEST(test_big_numbers)
{
    run_rows("big_numbers", row_big_number, ARRAY_SIZE(big_number_rows));
}
END_TEST

/* ======================================================================
 * Tables: canonical forms (one pointer)
 * ====================================================================== */

/* parse(input) == parse(expected): equivalent spellings intern to one
 * node.  Each row is a rule of the header or of doc/symint.md. */
static const text_row same_pointer_rows[] = {
    /* sums and products */
    {"(a + b) + c", "a + b + c"},
    {"c + (b + a)", "a + b + c"},
    {"b + c + a", "(a + b) + c"},
    {"a*(b*c)", "c*b*a"},
    {"a*b + b*a", "2*a*b"},
    {"a - a", "0"},
    {"a + 0", "a"},
    {"1*a", "a"},
    {"a*0", "0"},
    {"a**0", "1"},
    {"a**1", "a"},
    {"(a*b)**2", "a**2*b**2"},
    {"a**2*a**3", "a**5"},
    {"(a**2)**3", "a**6"},
    {"(a + b)*(a - b)", "a**2 - b**2"},
    {"(a + 1)**2", "a**2 + 2*a + 1"},
    {"-(a - b)", "b - a"},
    {"2*(a + b)", "2*a + 2*b"},
    {"a*(b + c) - a*b", "a*c"},
    {"2*s0 - s0", "s0"},
    {"s0 - -s1", "s0 + s1"},
    {"s0*-1", "-s0"},
    {"-(-(s0))", "s0"},
    {"((((s0))))", "s0"},
    {"  s0\t+\n1 ", "s0 + 1"},
    {"s0 ** 3", "s0*s0*s0"},
    {"Pow(s0, 3)", "s0**3"},
    /* relations */
    {"2*s0 >= 4", "s0 > 1"},
    {"s0 >= 2", "s0 > 1"},
    {"Ge(s0, 2)", "Gt(s0, 1)"},
    {"2*s0 > 3", "s0 >= 2"},
    {"2*s0 <= 5", "s0 <= 2"},
    {"2*s0 < 5", "s0 <= 2"},
    {"-2*s0 <= -3", "s0 >= 2"},
    {"s0 <= s1", "s1 >= s0"},
    {"s0 < s1 + 1", "s0 <= s1"},
    {"Le(s0, s1)", "0 <= s1 - s0"},
    {"Lt(a, b)", "a < b"},
    {"Gt(a, b)", "b < a"},
    {"Ge(a, b)", "b <= a"},
    {"Ne(a, b)", "a != b"},
    {"Eq(a, b)", "a == b"},
    {"Eq(s0, s1)", "Eq(s1, s0)"},
    {"Eq(2*s0, 4)", "Eq(s0, 2)"},
    {"Eq(-s0, -2)", "Eq(s0, 2)"},
    {"Eq(2 - s0, 0)", "s0 == 2"},
    {"Eq(6*a + 4*b, 2)", "Eq(3*a + 2*b, 1)"},
    {"Ne(2*s0, 4)", "s0 != 2"},
    {"Ne(s1, s0)", "Ne(s0, s1)"},
    {"Eq(s0*s1, s1*s0)", "True"},
    {"s0 + s1 < s1 + s0", "False"},
    /* floor division, modulo, ceiling division */
    {"FloorDiv(FloorDiv(a, 2), 3)", "a//6"},
    {"FloorDiv(8*x + 16, 8)", "x + 2"},
    {"(8*x + 16)//8", "x + 2"},
    {"FloorDiv(8*x + 17, 8)", "x + 2"},
    {"FloorDiv(8*x + 23, 8)", "x + 2"},
    /* a chain of + and - is summed in one step, except around Mod terms
     * (the FloorDiv/Mod recombination sees them as folded left) */
    {"Mod(x, 2) + 2*(x//2) + 2*(x//2)", "x + 2*(x//2)"},
    {"2*(x//2) + y + Mod(x, 2)", "x + y"},
    {"s0 + 2 - 1*(7 - 1) - 1", "s0 - 5"},
    {"s0 + 1 + Mod(s0, 2) + 2*(s0//2) - 3", "2*s0 - 2"},
    {"FloorDiv(-8*x - 16, 8)", "-x - 2"},
    {"FloorDiv(8*x, -8)", "-x"},
    {"FloorDiv(6*x, 3)", "2*x"},
    {"FloorDiv(4*x, 6)", "FloorDiv(2*x, 3)"},
    {"FloorDiv(6*x + 4, 4)", "FloorDiv(3*x + 2, 2)"},
    {"FloorDiv(x, 1)", "x"},
    {"FloorDiv(x, -1)", "-x"},
    {"CeilDiv(x, 1)", "x"},
    {"CeilDiv(x, -1)", "-x"},
    {"CeilDiv(8*x + 16, 8)", "x + 2"},
    {"CeilDiv(8*x + 17, 8)", "x + 3"},
    {"Mod(6*x + 5, 3)", "2"},
    {"Mod(6*x + 3*y + 5, 3)", "2"},
    {"Mod(6*x + 5, -3)", "-1"},
    {"Mod(Mod(x, 4), 4)", "Mod(x, 4)"},
    {"Mod(x + 4, 4)", "Mod(x, 4)"},
    {"Mod(x - 8, 4)", "Mod(x, 4)"},
    {"Mod(x, 1)", "0"},
    {"Mod(x, -1)", "0"},
    {"Mod(2*x, 2)", "0"},
    {"x % 8", "PythonMod(x, 8)"},
    /* Min / Max */
    {"Max(1, Max(s1, 3))", "Max(3, s1)"},
    {"Max(s1, s1)", "s1"},
    {"Min(s0, s0, s0)", "s0"},
    {"Max(Max(a, b), c)", "Max(a, Max(b, c))"},
    {"Max(c, b, a)", "Max(a, b, c)"},
    {"Min(Min(a, 2), Min(b, 5))", "Min(2, a, b)"},
    {"Min(3, 7)", "3"},
    {"Max(a, 2, 5)", "Max(5, a)"},
    {"Max(a, b, a, b)", "Max(b, a)"},
    /* booleans */
    {"not not (s0 >= 2)", "s0 >= 2"},
    {"Not(Not(s0 >= 2))", "s0 >= 2"},
    {"not (a < b)", "a >= b"},
    {"Not(a < b)", "not a < b"},
    {"not (a <= b)", "a > b"},
    {"not Eq(a, b)", "Ne(a, b)"},
    {"not (a != b)", "Eq(a, b)"},
    {"Not(And(a < b, c < d))", "Or(a >= b, c >= d)"},
    {"not (a < b or c < d)", "a >= b and c >= d"},
    {"And(True, s0 >= 2)", "s0 >= 2"},
    {"And(False, s0 >= 2)", "False"},
    {"Or(True, s0 >= 2)", "True"},
    {"Or(False, s0 >= 2)", "s0 >= 2"},
    {"And(s0 >= 2, s0 >= 2)", "s0 >= 2"},
    {"And(s0 > 1, 2*s0 >= 4)", "s0 >= 2"},
    {"And(a < b, And(b < c, c < d))", "And(And(a < b, b < c), c < d)"},
    {"And(c < d, a < b)", "And(a < b, c < d)"},
    {"Or(a < b, Or(c < d, a < b))", "Or(a < b, c < d)"},
    {"a < b and c < d", "And(a < b, c < d)"},
    {"a < b or c < d and a < d", "Or(a < b, And(c < d, a < d))"},
    {"Or(a < b, c < d)", "a < b or c < d"},
    /* & and | as sympy prints And and Or: booleans only, with Python's
     * precedence (| < & < + -, both tighter than comparisons) */
    {"Eq(s0, 4) & Ne(s0, s1)", "And(Eq(s0, 4), Ne(s0, s1))"},
    {"Eq(a, 1) | Eq(b, 2)", "Or(Eq(a, 1), Eq(b, 2))"},
    {"Eq(a, 1) | Eq(b, 2) & Eq(c, 3)", "Eq(a, 1) or (Eq(b, 2) and Eq(c, 3))"},
    {"Eq(a, 1) & Eq(b, 2) | Eq(c, 3)", "(Eq(a, 1) and Eq(b, 2)) or Eq(c, 3)"},
    {"(Eq(a, 1) | Eq(b, 2)) & Eq(c, 3)", "And(Or(Eq(a, 1), Eq(b, 2)), Eq(c, 3))"},
    {"(a < b) & (c < d) & (a < d)", "And(a < b, c < d, a < d)"},
    {"not Eq(a, 1) & Eq(b, 2)", "Not(And(Eq(a, 1), Eq(b, 2)))"},
    {"Eq(a, 1) & Eq(b, 2) or Eq(c, 3)", "Or(And(Eq(a, 1), Eq(b, 2)), Eq(c, 3))"},
    {"Eq(a, 1) and Eq(b, 2) | Eq(c, 3)", "And(Eq(a, 1), Or(Eq(b, 2), Eq(c, 3)))"},
    /* ~ as sympy prints Not: unary, at the level of unary minus */
    {"~Eq(s0, 4)", "Ne(s0, 4)"},
    {"~(Eq(s0, 4))", "Ne(s0, 4)"},
    {"~(s0 < 3)", "s0 >= 3"},
    {"~~(s0 < 3)", "s0 < 3"},
    {"~(~(Eq(a, 4) & Eq(b, 2)))", "And(Eq(a, 4), Eq(b, 2))"},
    {"~(Eq(a, 4) & Ne(b, 2))", "Or(Ne(a, 4), Eq(b, 2))"},
    {"~(Eq(a, 4) | Eq(b, 2))", "And(Ne(a, 4), Ne(b, 2))"},
    {"Eq(c, 1) & ~(Eq(a, 4) | Eq(b, 2))",
     "And(Eq(c, 1), Ne(a, 4), Ne(b, 2))"},
    {"Eq(c, 1) | ~(Eq(a, 4) & Eq(b, 2))",
     "Or(Eq(c, 1), Ne(a, 4), Ne(b, 2))"},
    {"~Eq(a, 1) & Eq(b, 2)", "And(Ne(a, 1), Eq(b, 2))"},
    {"~Eq(a, 1) | Eq(b, 2) & Eq(c, 3)",
     "Or(Ne(a, 1), And(Eq(b, 2), Eq(c, 3)))"},
    {"not ~Eq(a, 1)", "Eq(a, 1)"},
    {"~Eq(a, 1) and ~Eq(b, 2)", "And(Ne(a, 1), Ne(b, 2))"},
    {"Not(~Eq(a, 1))", "Eq(a, 1)"},
    {"~True", "False"},
    {"~ False", "True"},
    {"True & (s0 >= 2)", "s0 >= 2"},
    {"(s0 >= 2) | True", "True"},
    {"0 <= s0 < 8", "And(s0 >= 0, s0 <= 7)"},
    {"s0 < s1 < s2", "And(s0 < s1, s1 < s2)"},
    {"not True", "False"},
    {"And(True, True)", "True"},
    {"Or(False, False)", "False"},
};

static bool row_same_pointer(sc_ctx *ctx, size_t i, char *msg, size_t size)
{
    const text_row *row = &same_pointer_rows[i];
    sc_expr *a = try_parse(ctx, row->input, msg, size), *b;

    ROW_CHECK(a != NULL);
    b = try_parse(ctx, row->expected, msg, size);
    ROW_CHECK(b != NULL);
    if (a != b) {
        char *sa = sc_expr_to_str(ctx, a), *sb = sc_expr_to_str(ctx, b);
        char why[256] = "";
        bool agree = agree_on_samples(ctx, a, b, why, sizeof why);
        snprintf(msg, size,
                 "\"%s\" and \"%s\" are not one pointer: they print \"%s\" "
                 "and \"%s\"%s%s",
                 row->input, row->expected, sa ? sa : "?", sb ? sb : "?",
                 agree ? "" : "; and they DIFFER in value: ", why);
        free(sa);
        free(sb);
        return false;
    }
    ROW_CHECK(try_roundtrip(ctx, a, row->input, msg, size));
    return true;
fail:
    return false;
}

START_TEST(test_canonical_same_pointer)
{
    run_rows("canonical_same_pointer", row_same_pointer,
             ARRAY_SIZE(same_pointer_rows));
}
END_TEST

/* Canonical forms that are reasonable but not required by the contract:
 * a difference is printed as a NOTE (after checking that both sides agree
 * in value, which is required). */
static const text_row same_pointer_preferred_rows[] = {
    {"Eq(2*s0, 5)", "False"},
    {"Ne(2*s0, 5)", "True"},
    {"FloorDiv(8*x + y, 8)", "x + y//8"},
    {"Mod(8*x + y, 8)", "Mod(y, 8)"},
    {"CeilDiv(CeilDiv(a, 2), 3)", "CeilDiv(a, 6)"},
    {"FloorDiv(a, 2)*2 + Mod(a, 2)", "a"},
    {"Max(a, a + 1)", "a + 1"},
    {"Min(a, a - 3)", "a - 3"},
    {"And(a < b, a >= b)", "False"},
    {"Or(a < b, a >= b)", "True"},
    {"And(a < b, Or(a < b, c < d))", "a < b"},
    {"Mod(4*x, 6)", "2*Mod(2*x, 3)"},
    {"Max(-a, -b)", "-Min(a, b)"},
    {"FloorDiv(-a, 2)", "-CeilDiv(a, 2)"},
};

static bool row_same_pointer_preferred(sc_ctx *ctx, size_t i, char *msg,
                                       size_t size)
{
    const text_row *row = &same_pointer_preferred_rows[i];
    sc_expr *a = try_parse(ctx, row->input, msg, size), *b;
    char why[256] = "";

    ROW_CHECK(a != NULL);
    b = try_parse(ctx, row->expected, msg, size);
    ROW_CHECK(b != NULL);
    ROW_REQUIRE(agree_on_samples(ctx, a, b, why, sizeof why),
                "\"%s\" and \"%s\" must be equal: %s", row->input,
                row->expected, why);
    if (a != b) {
        char *sa = sc_expr_to_str(ctx, a), *sb = sc_expr_to_str(ctx, b);
        note("canonical form: \"%s\" prints \"%s\", not the same node as "
             "\"%s\" (\"%s\")",
             row->input, sa ? sa : "?", row->expected, sb ? sb : "?");
        free(sa);
        free(sb);
    }
    ROW_CHECK(try_roundtrip(ctx, a, row->input, msg, size));
    return true;
fail:
    return false;
}

START_TEST(test_canonical_same_pointer_preferred)
{
    run_rows("canonical_preferred", row_same_pointer_preferred,
             ARRAY_SIZE(same_pointer_preferred_rows));
}
END_TEST

/* Spellings that the contract does not fix: a different spelling is a
 * NOTE; the round trip is required. */
static const text_row print_preferred_rows[] = {
    {"s0 - s1", "s0 - s1"},
    {"2 - s0", "2 - s0"},
    {"-s0", "-s0"},
    {"2*s0 - 3", "2*s0 - 3"},
    {"(s0 + 1)**2", "s0**2 + 2*s0 + 1"},
    {"(a + b)*(a - b)", "a**2 - b**2"},
    {"2*s0**2", "2*s0**2"},
    {"s1*s0**2", "s0**2*s1"},
    {"(s0 + 1)//8", "(s0 + 1)//8"},
    {"(s0*s1)//8", "(s0*s1)//8"},
    {"(s0 - 1)//2 + 1", "(s0 - 1)//2 + 1"},
    {"-(s0//8)", "-(s0//8)"},
    {"(s0//8)**2", "(s0//8)**2"},
    {"s1*Mod(s0, 8)", "s1*Mod(s0, 8)"},
    {"Ne(s0, 2)", "Ne(s0, 2)"},
    {"Eq(Mod(s1, 8), 0)", "Eq(Mod(s1, 8), 0)"},
    {"s0 <= s1", "s0 <= s1"},
    {"s0 < s1", "s0 < s1"},
    {"s0 + s1 >= 8", "s0 + s1 >= 8"},
    {"And(s0 >= 2, s1 >= 2)", "And(s0 >= 2, s1 >= 2)"},
    {"Or(s0 >= 2, s1 <= 7)", "Or(s0 >= 2, s1 <= 7)"},
    {"Min(s0, s1)", "Min(s0, s1)"},
    {"Max(1, s0 - 1)", "Max(1, s0 - 1)"},
    {"CeilDiv(s0, 8)*8", "8*CeilDiv(s0, 8)"},
    {"s0*s1*64", "64*s0*s1"},
    {"-s0 - 1", "-s0 - 1"},
};

static bool row_print_preferred(sc_ctx *ctx, size_t i, char *msg,
                                size_t size)
{
    const text_row *row = &print_preferred_rows[i];
    sc_expr *e = try_parse(ctx, row->input, msg, size);
    char *s = NULL;

    ROW_CHECK(e != NULL);
    s = sc_expr_to_str(ctx, e);
    ROW_REQUIRE(s != NULL, "printing failed");
    if (strcmp(s, row->expected) != 0)
        note("spelling: \"%s\" prints \"%s\" (preferred \"%s\")", row->input,
             s, row->expected);
    ROW_CHECK(try_roundtrip(ctx, e, row->input, msg, size));
    free(s);
    return true;
fail:
    free(s);
    return false;
}

START_TEST(test_print_preferred_spelling)
{
    run_rows("print_preferred", row_print_preferred,
             ARRAY_SIZE(print_preferred_rows));
}
END_TEST

/* ======================================================================
 * Parse errors: codes and locations
 * ====================================================================== */

#define ANY_COLUMN (-1) /* the column must be set (>= 1), any value */
#define ANY_FAILURE SC_STATUS_COUNT_ /* any status but SC_OK */

typedef struct parse_error_row {
    const char *input;
    sc_status code;
    int line;
    int column;
} parse_error_row;

static const parse_error_row parse_error_rows[] = {
    /* end of input: the column just past the text */
    {"s0 + ", SC_ERR_PARSE, 1, 6},
    {"Max(s0,", SC_ERR_PARSE, 1, 8},
    {"(s0 + 1", SC_ERR_PARSE, 1, 8},
    {"2 ** ", SC_ERR_PARSE, 1, 6},
    {"", SC_ERR_PARSE, 1, 1},
    {"   ", SC_ERR_PARSE, 1, 4},
    {"not", SC_ERR_PARSE, 1, 4},
    /* an unexpected character or token: its column */
    {"s0 $ 1", SC_ERR_PARSE, 1, 4},
    /* a boolean in a sum: the column of the operator that adds it */
    {"1 + 2 + True", ANY_FAILURE, 1, 7},
    {"s0 / 2", SC_ERR_PARSE, 1, 4},
    {"s0 @ 2", SC_ERR_PARSE, 1, 4},
    {"()", SC_ERR_PARSE, 1, 2},
    {"s0 + 1)", SC_ERR_PARSE, 1, 7},
    {"s0 s1", SC_ERR_PARSE, 1, 4},
    {"Max(s0,, s1)", SC_ERR_PARSE, 1, 8},
    {"s0 + * s1", SC_ERR_PARSE, 1, 6},
    {"Mod(s0 8)", SC_ERR_PARSE, 1, 8},
    /* malformed calls and literals: a located syntax error */
    {"Mod(s0)", SC_ERR_PARSE, 1, ANY_COLUMN},
    {"FloorDiv(s0, 2, 3)", SC_ERR_PARSE, 1, ANY_COLUMN},
    {"Eq(s0)", SC_ERR_PARSE, 1, ANY_COLUMN},
    {"Foo(s0)", SC_ERR_PARSE, 1, ANY_COLUMN},
    {"1.5", SC_ERR_PARSE, 1, ANY_COLUMN},
    {"s0 ** -1", ANY_FAILURE, 1, ANY_COLUMN},
    {"s0 ** s1", ANY_FAILURE, 1, ANY_COLUMN},
    /* division by a constant zero: an error at construction */
    {"s0 // 0", SC_ERR_DIV_ZERO, 1, ANY_COLUMN},
    {"Mod(s0, 0)", SC_ERR_DIV_ZERO, 1, ANY_COLUMN},
    {"s0 % 0", SC_ERR_DIV_ZERO, 1, ANY_COLUMN},
    {"CeilDiv(s0, 2 - 2)", SC_ERR_DIV_ZERO, 1, ANY_COLUMN},
    {"s0 % (s1 - s1)", SC_ERR_DIV_ZERO, 1, ANY_COLUMN},
    {"7 // 0", SC_ERR_DIV_ZERO, 1, ANY_COLUMN},
    /* mixing integers and booleans */
    {"s0 + (s1 < 2)", SC_ERR_TYPE, 1, ANY_COLUMN},
    {"And(s0, s1 < 2)", SC_ERR_TYPE, 1, ANY_COLUMN},
    {"not s0", SC_ERR_TYPE, 1, ANY_COLUMN},
    {"True + 1", SC_ERR_TYPE, 1, ANY_COLUMN},
    {"Max(s0, True)", SC_ERR_TYPE, 1, ANY_COLUMN},
    {"s0 < (s1 < 2)", SC_ERR_TYPE, 1, ANY_COLUMN},
    /* & and | join booleans; they bind tighter than comparisons */
    {"a & b", SC_ERR_PARSE, 1, 3},
    {"Eq(a, 1) & 3", SC_ERR_PARSE, 1, 10},
    {"3 | Eq(a, 1)", SC_ERR_PARSE, 1, 3},
    {"a == 4 & Eq(b, 1)", SC_ERR_PARSE, 1, 8},
    {"a < 3 & b < 2", SC_ERR_PARSE, 1, 7},
    {"Eq(a, 1) &", SC_ERR_PARSE, 1, 11},
    {"Eq(a, 1) && Eq(b, 1)", SC_ERR_PARSE, 1, 11},
    {"Eq(a, 1) & not Eq(b, 1)", SC_ERR_PARSE, 1, 12},
    {"s0 + (Eq(a, 1) & Eq(b, 1))", SC_ERR_TYPE, 1, ANY_COLUMN},
    {"Eq(a, 1) ^ Eq(b, 1)", SC_ERR_PARSE, 1, 10},
    /* ~ negates a boolean; it binds tighter than comparisons */
    {"~s0", SC_ERR_PARSE, 1, 1},
    {"~s0 < 3", SC_ERR_PARSE, 1, 1},
    {"Eq(a, 1) & ~s0 < 3", SC_ERR_PARSE, 1, 12},
    {"~-s0", SC_ERR_PARSE, 1, 1},
    {"s0 + ~Eq(a, 1)", SC_ERR_TYPE, 1, 4},
    {"-~Eq(a, 1)", SC_ERR_TYPE, 1, 1},
    {"~x**2", SC_ERR_PARSE, 1, 1},
    {"2 ** ~Eq(a, 1)", ANY_FAILURE, 1, ANY_COLUMN},
    {"~", SC_ERR_PARSE, 1, 2},
    {"~not Eq(a, 1)", SC_ERR_PARSE, 1, 2},
    {"Eq(a, 1) ~ Eq(b, 1)", SC_ERR_PARSE, 1, 10},
    {"~(s0 + 1)", SC_ERR_PARSE, 1, 1},
    {"s1 >= 2 & ~Eq(a, 1)", SC_ERR_PARSE, 1, 9},
    {"Max(~Eq(a, 1), 2)", SC_ERR_TYPE, 1, ANY_COLUMN},
};

static bool row_parse_error(sc_ctx *ctx, size_t i, char *msg, size_t size)
{
    const parse_error_row *row = &parse_error_rows[i];
    sc_expr *e = (sc_expr *)&e; /* must be left alone or set to NULL */
    sc_error err;
    sc_status st;

    sc_error_init(&err);
    st = sc_expr_parse(ctx, row->input, NULL, 1, &e, &err);
    if (row->code == ANY_FAILURE)
        ROW_REQUIRE(st != SC_OK, "\"%s\": expected an error, got SC_OK",
                    row->input);
    else
        ROW_REQUIRE(st == row->code, "\"%s\": expected %s, got %s (%s)",
                    row->input, sc_status_name(row->code),
                    sc_status_name(st), err.message);
    ROW_REQUIRE(err.code == st, "\"%s\": err.code %s != returned %s",
                row->input, sc_status_name(err.code), sc_status_name(st));
    ROW_REQUIRE(err.message[0] != '\0', "\"%s\": empty error message",
                row->input);
    ROW_REQUIRE(err.line == row->line, "\"%s\": expected line %d, got %d",
                row->input, row->line, err.line);
    if (row->column == ANY_COLUMN)
        ROW_REQUIRE(err.column >= 1 &&
                        err.column <= (int)strlen(row->input) + 1,
                    "\"%s\": column %d outside the text", row->input,
                    err.column);
    else
        ROW_REQUIRE(err.column == row->column,
                    "\"%s\": expected column %d, got %d (%s)", row->input,
                    row->column, err.column, err.message);
    ROW_REQUIRE(e == (sc_expr *)&e || e == NULL,
                "\"%s\": *out set to a node on failure", row->input);
    return true;
fail:
    return false;
}

START_TEST(test_parse_error_code_and_location)
{
    run_rows("parse_errors", row_parse_error, ARRAY_SIZE(parse_error_rows));
}
END_TEST

START_TEST(test_parse_error_location_in_file)
{
    sc_ctx *ctx = ctx_with_symbols();
    sc_expr *e = NULL;
    sc_error err;
    char buf[1024];
    size_t n;

    sc_error_init(&err);
    ck_assert_int_eq(sc_expr_parse(ctx, "s0 +\n  s1 $ 2", "guards.txt", 10,
                                   &e, &err),
                     SC_ERR_PARSE);
    ck_assert_str_eq(err.file, "guards.txt");
    ck_assert_int_eq(err.line, 11);
    ck_assert_int_eq(err.column, 6);
    n = sc_error_format(&err, buf, sizeof buf);
    ck_assert_uint_eq(n, strlen(buf));
    ck_assert_msg(strncmp(buf, "guards.txt:11:6: ", 17) == 0,
                  "sc_error_format gave \"%s\"", buf);

    sc_error_init(&err);
    ck_assert_int_eq(sc_expr_parse(ctx, "Max(s0,\n\n   $)", NULL, 1, &e, &err),
                     SC_ERR_PARSE);
    ck_assert_int_eq(err.line, 3);
    ck_assert_int_eq(err.column, 4);

    /* an error on the first line honours first_line */
    sc_error_init(&err);
    ck_assert_int_eq(sc_expr_parse(ctx, "s0 $", "f", 7, &e, &err),
                     SC_ERR_PARSE);
    ck_assert_int_eq(err.line, 7);
    ck_assert_int_eq(err.column, 4);

    /* a good parse after errors still works, and sets *out */
    sc_error_init(&err);
    ck_assert_int_eq(sc_expr_parse(ctx, "s0\n+\n1", "f", 3, &e, &err), SC_OK);
    ck_assert_ptr_eq(e, parse_ok(ctx, "s0 + 1"));
    sc_ctx_free(ctx);
}
END_TEST

static char *repeat_text(const char *prefix, long n, const char *middle,
                         const char *suffix)
{
    size_t lp = strlen(prefix), lm = strlen(middle), ls = strlen(suffix);
    char *s = malloc(lp * n + lm + ls * n + 1), *p = s;
    long i;

    ck_assert(s != NULL);
    for (i = 0; i < n; i++, p += lp)
        memcpy(p, prefix, lp);
    memcpy(p, middle, lm);
    p += lm;
    for (i = 0; i < n; i++, p += ls)
        memcpy(p, suffix, ls);
    *p = '\0';
    return s;
}

/* Deep nesting is SC_ERR_LIMIT, never a stack overflow. */
START_TEST(test_parse_deep_nesting_is_limit_error)
{
    sc_ctx *ctx = ctx_with_symbols();
    sc_expr *e = NULL;
    sc_error err;
    sc_status st;
    char *text;

    text = repeat_text("(", 5000, "s0", ")");
    sc_error_init(&err);
    st = sc_expr_parse(ctx, text, NULL, 1, &e, &err);
    ck_assert_msg(st == SC_ERR_LIMIT, "5000 parentheses: expected "
                  "ERR_LIMIT, got %s", sc_status_name(st));
    ck_assert_int_eq(err.line, 1);
    ck_assert_msg(err.column >= 1, "no column on the limit error");
    free(text);

    text = repeat_text("(", 100000, "s0", ")");
    sc_error_init(&err);
    st = sc_expr_parse(ctx, text, NULL, 1, &e, &err);
    ck_assert_msg(st == SC_ERR_LIMIT, "100000 parentheses: got %s",
                  sc_status_name(st));
    free(text);

    text = repeat_text("Max(s1, ", 5000, "s0", ")");
    sc_error_init(&err);
    st = sc_expr_parse(ctx, text, NULL, 1, &e, &err);
    ck_assert_msg(st == SC_ERR_LIMIT, "5000 nested Max: got %s",
                  sc_status_name(st));
    free(text);

    /* 900 levels are within the limit of 1000 */
    text = repeat_text("(", 900, "s0", ")");
    sc_error_init(&err);
    st = sc_expr_parse(ctx, text, NULL, 1, &e, &err);
    ck_assert_msg(st == SC_OK, "900 parentheses: got %s (%s)",
                  sc_status_name(st), err.message);
    ck_assert_ptr_eq(e, sym(ctx, "s0"));
    free(text);

    /* unary operators and right-associative ** may recurse: either the
     * limit error or the right value, never a crash */
    text = repeat_text("-", 5000, "s0", "");
    sc_error_init(&err);
    st = sc_expr_parse(ctx, text, NULL, 1, &e, &err);
    ck_assert_msg(st == SC_ERR_LIMIT || (st == SC_OK && e == sym(ctx, "s0")),
                  "5000 unary minus: got %s", sc_status_name(st));
    free(text);

    text = repeat_text("not ", 5000, "s0 >= 2", "");
    sc_error_init(&err);
    st = sc_expr_parse(ctx, text, NULL, 1, &e, &err);
    ck_assert_msg(st == SC_ERR_LIMIT ||
                      (st == SC_OK && e == parse_ok(ctx, "s0 >= 2")),
                  "5000 not: got %s", sc_status_name(st));
    free(text);

    text = repeat_text("1**", 5000, "1", "");
    sc_error_init(&err);
    st = sc_expr_parse(ctx, text, NULL, 1, &e, &err);
    ck_assert_msg(st == SC_ERR_LIMIT ||
                      (st == SC_OK && e == parse_ok(ctx, "1")),
                  "5000 chained **: got %s", sc_status_name(st));
    free(text);

    /* long flat expressions are not deep */
    text = repeat_text("s0 + ", 20000, "s0", "");
    sc_error_init(&err);
    st = sc_expr_parse(ctx, text, NULL, 1, &e, &err);
    ck_assert_msg(st == SC_OK, "20001 terms: got %s (%s)", sc_status_name(st),
                  err.message);
    ck_assert_ptr_eq(e, parse_ok(ctx, "20001*s0"));
    free(text);

    text = repeat_text("s0 < ", 3000, "s0", "");
    sc_error_init(&err);
    st = sc_expr_parse(ctx, text, NULL, 1, &e, &err);
    ck_assert_msg(st == SC_OK || st == SC_ERR_LIMIT,
                  "3000 chained comparisons: got %s", sc_status_name(st));
    if (st == SC_OK)
        ck_assert_ptr_eq(e, parse_ok(ctx, "False"));
    free(text);
    sc_ctx_free(ctx);
}
END_TEST

/* ======================================================================
 * Value ranges
 * ====================================================================== */

typedef struct range_row {
    const char *bounds; /* "x=0..7" etc., "" for none */
    const char *input;
    const char *expected; /* sc_range_to_str */
} range_row;

static const range_row range_rows[] = {
    {"", "Mod(x, 4)", "[0, 3]"},
    {"", "Mod(x, -4)", "[-3, 0]"},
    {"", "x % 4 + 1", "[1, 4]"},
    {"", "x", "[-inf, inf]"},
    {"", "x**2", "[0, inf]"},
    {"", "-x**2", "[-inf, 0]"},
    {"", "x**2 + 1", "[1, inf]"},
    {"", "Mod(x, 1)", "[0, 0]"},
    {"", "Eq(x, y)", "[0, 1]"},
    {"", "True", "[1, 1]"},
    {"", "False", "[0, 0]"},
    {"", "2**100", "[1267650600228229401496703205376, "
                   "1267650600228229401496703205376]"},
    {"x=-2..3", "x**2", "[0, 9]"},
    {"x=-2..3", "x*x", "[0, 9]"},
    {"x=-2..3", "x**3", "[-8, 27]"},
    {"x=-2..3", "x + 1", "[-1, 4]"},
    {"x=-2..3", "-x", "[-3, 2]"},
    {"x=-2..3", "2*x - 1", "[-5, 5]"},
    {"x=-2..3", "x//2", "[-1, 1]"},
    {"x=-2..3", "x//-2", "[-2, 1]"},
    {"x=-2..3", "CeilDiv(x, 2)", "[-1, 2]"},
    {"x=-2..3", "Mod(x, 8)", "[0, 7]"},
    {"x=-2..3", "Mod(x, -4)", "[-3, 0]"},
    {"x=2..5", "Mod(x, 8)", "[2, 5]"},
    {"x=-2..3", "Max(x, 0)", "[0, 3]"},
    {"x=-2..3", "Min(x, 0)", "[-2, 0]"},
    {"x=-2..3", "x <= 3", "[1, 1]"},
    {"x=-2..3", "x <= 0", "[0, 1]"},
    {"x=-2..3", "Eq(x, 5)", "[0, 0]"},
    {"x=-2..3", "Ne(x, 5)", "[1, 1]"},
    {"x=-2..3", "And(x >= -2, x <= 3)", "[1, 1]"},
    {"x=-2..3", "Or(x > 3, x < -2)", "[0, 0]"},
    {"x=-2..3,y=1..4", "x*y", "[-8, 12]"},
    {"x=-2..3,y=1..4", "x + y", "[-1, 7]"},
    {"x=-2..3,y=1..4", "x - y", "[-6, 2]"},
    {"x=-2..3,y=1..4", "x//y", "[-2, 3]"},
    {"x=-2..3,y=1..4", "Mod(x, y)", "[0, 3]"},
    {"x=-2..3,y=1..4", "Max(x, y)", "[1, 4]"},
    {"x=-2..3,y=1..4", "Min(x, y)", "[-2, 3]"},
    {"x=2..", "x - 1", "[1, inf]"},
    {"x=2..", "-x", "[-inf, -2]"},
    {"x=2..", "x//2", "[1, inf]"},
    {"x=2..", "CeilDiv(x, 2)", "[1, inf]"},
    {"x=2..", "Mod(x, 8)", "[0, 7]"},
    {"x=2..", "x**2", "[4, inf]"},
    {"x=2..", "x >= 1", "[1, 1]"},
    {"x=..-1", "x**3", "[-inf, -1]"},
    {"x=..-1", "x**2", "[1, inf]"},
    {"x=0..", "x + 2**100", "[1267650600228229401496703205376, inf]"},
    {"x=-36893488147419103232..36893488147419103232", "x//2",
     "[-18446744073709551616, 18446744073709551616]"},
    /* zero times infinity, negative divisor intervals, odd powers */
    {"x=0..,y=0..0", "x*y", "[0, 0]"},
    {"x=..,y=0..0", "x*y", "[0, 0]"},
    {"x=0..,y=-1..1", "x*y", "[-inf, inf]"},
    {"x=0..,y=..0", "x - y", "[0, inf]"},
    {"x=1..,y=1..", "x//y", "[0, inf]"},
    {"x=2..5,y=-3..-2", "x//y", "[-3, -1]"},
    {"x=2..5,y=-3..-2", "CeilDiv(x, y)", "[-2, 0]"},
    {"x=2..5,y=-3..-2", "Mod(x, y)", "[-2, 0]"},
    {"x=-3..-1", "x**2", "[1, 9]"},
    {"x=-3..2", "x**3", "[-27, 8]"},
    {"x=-3..2", "x**4", "[0, 81]"},
    {"x=..", "Max(x, 3)", "[3, inf]"},
    {"x=-5..5", "Mod(x, 3)", "[0, 2]"},
};

static bool row_range(sc_ctx *ctx, size_t i, char *msg, size_t size)
{
    const range_row *row = &range_rows[i];
    sc_bounds *b = bounds_from_text(ctx, row->bounds);
    sc_expr *e = try_parse(ctx, row->input, msg, size);
    sc_range r;
    sc_error err;
    sc_status st;
    char *s = NULL;
    bool ok = false;

    sc_range_init(&r);
    ROW_CHECK(e != NULL);
    sc_error_init(&err);
    st = sc_expr_range(ctx, e, b, &r, &err);
    ROW_REQUIRE(st == SC_OK, "range of \"%s\" with {%s}: %s (%s)", row->input,
                row->bounds, sc_status_name(st), err.message);
    s = sc_range_to_str(&r);
    ROW_REQUIRE(s != NULL, "sc_range_to_str failed");
    ROW_REQUIRE(strcmp(s, row->expected) == 0,
                "range of \"%s\" with {%s}: expected %s, got %s", row->input,
                row->bounds, row->expected, s);
    ok = true;
fail:
    free(s);
    sc_range_clear(&r);
    sc_bounds_free(b);
    return ok;
}

START_TEST(test_range_of_expression)
{
    run_rows("ranges", row_range, ARRAY_SIZE(range_rows));
}
END_TEST

START_TEST(test_range_api)
{
    sc_ctx *ctx = ctx_with_symbols();
    sc_range r, q;
    mpz_t v;
    char *s;
    sc_bounds *b, *c;
    sc_error err;
    const sc_range *got;

    mpz_init(v);
    sc_range_init(&r);
    sc_range_init(&q);
    ck_assert(r.lo_inf && r.hi_inf);
    s = sc_range_to_str(&r);
    ck_assert_str_eq(s, "[-inf, inf]");
    free(s);
    sc_range_set_si(&r, -3, 5);
    ck_assert(!r.lo_inf && !r.hi_inf);
    s = sc_range_to_str(&r);
    ck_assert_str_eq(s, "[-3, 5]");
    free(s);
    mpz_set_si(v, 5);
    ck_assert(sc_range_contains_mpz(&r, v));
    mpz_set_si(v, 6);
    ck_assert(!sc_range_contains_mpz(&r, v));
    mpz_set_si(v, -4);
    ck_assert(!sc_range_contains_mpz(&r, v));
    ck_assert(!sc_range_is_empty(&r));
    sc_range_set_si(&q, 4, 3);
    ck_assert(sc_range_is_empty(&q));
    sc_range_set(&q, &r);
    s = sc_range_to_str(&q);
    ck_assert_str_eq(s, "[-3, 5]");
    free(s);
    sc_range_set_unbounded(&q);
    ck_assert(q.lo_inf && q.hi_inf);
    mpz_ui_pow_ui(v, 10, 30);
    ck_assert(sc_range_contains_mpz(&q, v));
    q.lo_inf = false;
    mpz_set_si(q.lo, 0);
    s = sc_range_to_str(&q);
    ck_assert_str_eq(s, "[0, inf]");
    free(s);

    b = sc_bounds_new(ctx);
    ck_assert_ptr_nonnull(b);
    ck_assert_ptr_null(sc_bounds_get(b, sym(ctx, "x")));
    sc_error_init(&err);
    ck_assert_int_eq(sc_bounds_set_si(b, sym(ctx, "x"), false, 2, true, 0,
                                      &err),
                     SC_OK);
    got = sc_bounds_get(b, sym(ctx, "x"));
    ck_assert_ptr_nonnull(got);
    s = sc_range_to_str(got);
    ck_assert_str_eq(s, "[2, inf]");
    free(s);
    ck_assert_int_eq(sc_bounds_set(b, sym(ctx, "y"), &r, &err), SC_OK);
    c = sc_bounds_new(ctx);
    ck_assert_int_eq(sc_bounds_copy(c, b, &err), SC_OK);
    got = sc_bounds_get(c, sym(ctx, "y"));
    ck_assert_ptr_nonnull(got);
    s = sc_range_to_str(got);
    ck_assert_str_eq(s, "[-3, 5]");
    free(s);
    /* replacing an entry */
    ck_assert_int_eq(sc_bounds_set_si(c, sym(ctx, "y"), true, 0, false, 9,
                                      &err),
                     SC_OK);
    s = sc_range_to_str(sc_bounds_get(c, sym(ctx, "y")));
    ck_assert_str_eq(s, "[-inf, 9]");
    free(s);
    /* the copy is independent */
    s = sc_range_to_str(sc_bounds_get(b, sym(ctx, "y")));
    ck_assert_str_eq(s, "[-3, 5]");
    free(s);
    /* a bound on something that is not a symbol is rejected */
    ck_assert_int_ne(sc_bounds_set(b, parse_ok(ctx, "x + 1"), &r, &err),
                     SC_OK);

    sc_bounds_free(b);
    sc_bounds_free(c);
    sc_range_clear(&r);
    sc_range_clear(&q);
    mpz_clear(v);
    sc_ctx_free(ctx);
}
END_TEST

/* ======================================================================
 * Simplification under ranges
 * ====================================================================== */

typedef struct simplify_row {
    const char *bounds;
    const char *input;
    const char *expected; /* parsed and compared by pointer */
} simplify_row;

static const simplify_row simplify_rows[] = {
    {"x=0..7", "FloorDiv(x, 8)", "0"},
    {"x=0..7", "Mod(x, 8)", "x"},
    {"x=0..7", "x // 16", "0"},
    {"x=0..7", "Mod(x, 16)", "x"},
    {"x=0..7", "CeilDiv(x + 1, 8)", "1"},
    {"x=0..7", "(x + 8)//8", "1"},
    {"x=0..7", "Mod(x + 8, 8)", "x"},
    {"x=0..7", "FloorDiv(x, 8) + Mod(x, 8)", "x"},
    {"x=0..7", "Max(x, 8)", "8"},
    {"x=0..7", "Max(x, -1)", "x"},
    {"x=0..7", "Min(x, 7)", "x"},
    {"x=0..7", "Min(x, 0)", "0"},
    {"x=0..7", "x < 8", "True"},
    {"x=0..7", "x >= 8", "False"},
    {"x=0..7", "Eq(x, 9)", "False"},
    {"x=0..7", "Ne(x, -1)", "True"},
    {"x=0..7", "And(x >= 0, x <= 7)", "True"},
    {"x=0..7", "Or(x < 0, x >= 8)", "False"},
    {"x=0..7", "And(x >= 0, y >= 0)", "y >= 0"},
    {"x=0..7,y=1..3", "Max(x, y + 10)", "y + 10"},
    {"x=0..7,y=1..3", "Min(x - 8, y)", "x - 8"},
    {"x=0..7,y=1..3", "x*y <= 21", "True"},
    {"x=0..7,y=1..3", "Max(1, x, y)", "Max(x, y)"},
    {"x=-7..-1", "x // 8", "-1"},
    {"x=-7..-1", "Mod(x, 8)", "x + 8"},
    {"x=-7..-1", "Mod(x, -8)", "x"},
    {"x=-7..-1", "x // -8", "0"},
    {"x=2..", "Max(1, x)", "x"},
    {"x=2..", "Max(1, x - 1)", "x - 1"},
    {"x=2..", "Min(1, x - 1)", "1"},
    {"x=2..", "Eq(x, 0)", "False"},
    {"x=2..", "x >= 1", "True"},
    {"x=2..", "x**2 >= 4", "True"},
    {"x=..-1", "Max(x, 0)", "0"},
    {"", "Max(x**2, -1)", "x**2"},
    {"", "Mod(x, 4) < 4", "True"},
    {"", "Mod(x, 4) >= 0", "True"},
    {"", "Mod(x, -4) <= 0", "True"},
    {"", "Max(Mod(x, 4), 3)", "3"},
    {"x=0..1000", "x + 1 >= 1", "True"},
    {"x=0..18446744073709551615", "x // 18446744073709551616", "0"},
    {"x=1..7", "x // -8", "-1"},
    {"x=1..7", "Mod(x, -8)", "x - 8"},
    {"x=-7..-1", "CeilDiv(x, 8)", "0"},
    {"x=-8..-1", "CeilDiv(x, -8)", "1"},
};

static bool row_simplify(sc_ctx *ctx, size_t i, char *msg, size_t size)
{
    const simplify_row *row = &simplify_rows[i];
    sc_bounds *b = row->bounds[0] ? bounds_from_text(ctx, row->bounds) : NULL;
    sc_expr *e, *want, *got;
    bool ok = false;

    e = try_parse(ctx, row->input, msg, size);
    ROW_CHECK(e != NULL);
    want = try_parse(ctx, row->expected, msg, size);
    ROW_CHECK(want != NULL);
    got = sc_expr_simplify(ctx, e, b);
    ROW_REQUIRE(got != NULL, "simplify \"%s\" failed: %s", row->input,
                sc_ctx_error(ctx)->message);
    if (got != want) {
        char *s = sc_expr_to_str(ctx, got);
        snprintf(msg, size, "simplify \"%s\" with {%s}: expected %s, got %s",
                 row->input, row->bounds, row->expected, s ? s : "?");
        free(s);
        goto fail;
    }
    ok = true;
fail:
    sc_bounds_free(b);
    return ok;
}

START_TEST(test_simplify_with_ranges)
{
    run_rows("simplify_with_ranges", row_simplify, ARRAY_SIZE(simplify_rows));
}
END_TEST

/* ---- The simplifier's classes (rules learnt from the simplifier tests of
 * TVM, Halide and PyTorch) ----------------------------------------------
 * Each row: a class, the bounds, the input and the expected node (by
 * pointer).  A row whose expected text is the input is a negative row:
 * where the ranges do not allow a rewrite, none happens.  Every row is
 * also checked for soundness: the input and the result agree on every
 * binding of a grid of x, y, z inside the bounds (the ends of each range
 * and -9..9), where the input has a value. */
typedef struct class_row {
    const char *cls;
    const char *bounds;
    const char *input;
    const char *expected;
} class_row;

static const class_row class_rows[] = {
    /* FloorDiv/Mod of a sum whose coefficients share a factor with the
     * divisor, with a constant rest (constructors: for every value) */
    {"common factor", "", "(8*x + 7)//16", "x//2"},
    {"common factor", "", "Mod(8*x + 7, 16)", "8*Mod(x, 2) + 7"},
    {"common factor", "", "(8*x + 17)//16", "x//2 + 1"},
    {"common factor", "", "(-8*x + 7)//16", "(-x)//2"},
    {"common factor", "", "(8*x + 7)//12", "(2*x + 1)//3"},
    {"common factor", "", "(6*x + 4*y + 3)//12", "(3*x + 2*y + 1)//6"},
    {"common factor", "", "Mod(6*x + 4*y + 3, 12)",
     "2*Mod(3*x + 2*y + 1, 6) + 1"},
    {"common factor", "", "(8*x + 7)//(-16)", "(8*x + 7)//(-16)"},
    {"common factor", "", "CeilDiv(8*x + 7, 16)", "CeilDiv(8*x + 7, 16)"},
    {"common factor", "", "(8*x + y)//16", "(8*x + y)//16"},
    /* ... with a rest bounded by the ranges (the simplifier) */
    {"bounded rest", "x=0..,y=0..7", "(8*x + y)//16", "x//2"},
    {"bounded rest", "y=0..7", "(8*x + y)//16", "x//2"},
    {"bounded rest", "y=0..7", "Mod(8*x + y, 16)", "8*Mod(x, 2) + y"},
    {"bounded rest", "y=-3..4", "(8*x + y + 3)//16", "x//2"},
    {"bounded rest", "y=16..23", "(8*x + y)//16", "x//2 + 1"},
    {"bounded rest", "y=16..23", "Mod(8*x + y, 16)", "8*Mod(x, 2) + y - 16"},
    {"bounded rest", "y=0..7,z=0..15", "(16*x + 8*z + y)//32",
     "(2*x + z)//4"},
    {"bounded rest", "y=0..8", "(8*x + y)//16", "(8*x + y)//16"},
    {"bounded rest", "y=-1..6", "(8*x + y)//16", "(8*x + y)//16"},
    {"bounded rest", "y=-1..6", "Mod(8*x + y, 16)", "Mod(8*x + y, 16)"},
    {"bounded rest", "y=0..", "(8*x + y)//16", "(8*x + y)//16"},
    {"bounded rest", "y=0..7", "(8*x + y)//(-16)", "(8*x + y)//(-16)"},
    /* a floor division by a large constant that depends on one term */
    {"one term", "y=0..1023", "(1024*x + y)//1024", "x"},
    {"one term", "y=0..1023", "Mod(1024*x + y, 1024)", "y"},
    {"one term", "y=0..255", "(1024*x + 4*y + 3)//1024", "x"},
    {"one term", "y=0..3,z=0..3", "Mod(1024*x + 4*y + z, 1024)", "4*y + z"},
    {"one term", "y=0..255,z=0..2", "(4096*x + 16*y + z)//4096", "x"},
    {"one term", "y=0..256", "(1024*x + 4*y + 3)//1024",
     "(1024*x + 4*y + 3)//1024"},
    {"one term", "y=-1..1022", "(1024*x + y)//1024", "(1024*x + y)//1024"},
    /* nested floor divisions (constructors) */
    {"nested", "", "(x//4 + 5)//2", "(x + 4)//8 + 2"},
    {"nested", "", "(x//4 + y)//2", "(x + 4*y)//8"},
    {"nested", "", "(x//4 - 1)//3", "(x - 4)//12"},
    {"nested", "", "(x//(-4) + 1)//3", "(x - 4)//(-12)"},
    {"nested", "", "((x + y)//3 + z)//5", "(x + y + 3*z)//15"},
    {"nested", "", "(x//4 + 1)//(-3)", "(x//4 + 1)//(-3)"},
    {"nested", "", "(2*(x//4) + 1)//3", "(2*(x//4) + 1)//3"},
    {"nested", "", "(x//y + 1)//2", "(x//y + 1)//2"},
    /* modulo (and floor division) of a multiple by a multiple */
    {"multiple", "", "Mod(6*x, 4*x)", "2*x"},
    {"multiple", "", "Mod(x*y, x)", "0"},
    {"multiple", "", "Mod(x**2*y, x)", "0"},
    {"multiple", "", "Mod(6*x*y, 4*x)", "2*x*Mod(3*y, 2)"},
    {"multiple", "", "(x*y)//(x*z)", "y//z"},
    {"multiple", "", "Mod(x*y + x, x*z)", "x*Mod(y + 1, z)"},
    {"multiple", "y=0..5", "Mod(x*y, 8*x)", "x*y"},
    {"multiple", "y=0..8", "Mod(x*y, 8*x)", "x*Mod(y, 8)"},
    {"multiple", "", "Mod(x*y + 1, x)", "Mod(x*y + 1, x)"},
    {"multiple", "", "Mod(x*y, x + y)", "Mod(x*y, x + y)"},
    /* Max/Min of x and a rounded multiple of x (the simplifier) */
    {"rounded multiple", "", "Max(x, 8*(x//8))", "x"},
    {"rounded multiple", "", "Min(x, 8*(x//8))", "8*(x//8)"},
    {"rounded multiple", "", "Min(x, 8*((x + 7)//8))", "x"},
    {"rounded multiple", "", "Max(x, 8*((x + 7)//8))", "8*((x + 7)//8)"},
    {"rounded multiple", "", "Max(x, -8*(x//(-8)))", "-8*(x//(-8))"},
    {"rounded multiple", "", "Max(x + y, 4*((x + y)//4) + 3)",
     "4*((x + y)//4) + 3"},
    {"rounded multiple", "", "Max(x + y, 4*((x + y)//4) + 2)",
     "Max(x + y, 4*((x + y)//4) + 2)"},
    {"rounded multiple", "", "Min(x + y, 4*((x + y)//4) + 3)", "x + y"},
    {"rounded multiple", "", "Max(x, 16*(x//8))", "Max(x, 16*(x//8))"},
    {"rounded multiple", "", "Max(x, 8*(x//8) + 1)", "Max(x, 8*(x//8) + 1)"},
    {"rounded multiple", "x=0..", "Min(x, 2*x)", "x"},
    {"rounded multiple", "x=..0", "Min(x, 2*x)", "2*x"},
    {"rounded multiple", "x=-1..1", "Min(x, 2*x)", "Min(x, 2*x)"},
    /* Mod(x - Mod(x, y), y) (constructors) */
    {"mod of rest", "", "Mod(x - Mod(x, y), y)", "0"},
    {"mod of rest", "", "(x - Mod(x, y))//y", "x//y"},
    {"mod of rest", "", "CeilDiv(x - Mod(x, y), y)", "x//y"},
    {"mod of rest", "", "Mod(x + 3 - Mod(x + 3, y), y)", "0"},
    {"mod of rest", "", "Mod(2*x - 2*Mod(x, y) + z, y)", "Mod(z, y)"},
    {"mod of rest", "", "(2*x - 2*Mod(x, y) + z)//y", "2*(x//y) + z//y"},
    {"mod of rest", "", "Mod(x - Mod(x, 8), 8)", "0"},
    {"mod of rest", "", "(x - Mod(x, 8))//8", "x//8"},
    {"mod of rest", "", "Mod(x - Mod(x, y), z)", "Mod(x - Mod(x, y), z)"},
    {"mod of rest", "", "Mod(x + Mod(x, y), y)", "Mod(x + Mod(x, y), y)"},
};

/* The grid values of a symbol under b: -9..9 and 10 values at each finite
 * end, inside the range. */
static size_t grid_values(sc_bounds *b, sc_expr *s, int64_t *v)
{
    const sc_range *r = b ? sc_bounds_get(b, s) : NULL;
    int64_t lo = INT64_MIN, hi = INT64_MAX, x;
    size_t n = 0, i;

    if (r && !r->lo_inf)
        lo = mpz_get_si(r->lo);
    if (r && !r->hi_inf)
        hi = mpz_get_si(r->hi);
    for (x = -9; x <= 9; x++)
        if (x >= lo && x <= hi)
            v[n++] = x;
    for (i = 0; i < 10; i++) {
        if (lo != INT64_MIN && lo + (int64_t)i <= hi &&
            (lo + (int64_t)i < -9 || lo + (int64_t)i > 9))
            v[n++] = lo + (int64_t)i;
        if (hi != INT64_MAX && hi - (int64_t)i >= lo &&
            (hi - (int64_t)i < -9 || hi - (int64_t)i > 9) &&
            (lo == INT64_MIN || hi - (int64_t)i >= lo + 10))
            v[n++] = hi - (int64_t)i;
    }
    return n;
}

static bool row_class(sc_ctx *ctx, size_t i, char *msg, size_t size)
{
    const class_row *row = &class_rows[i];
    sc_bounds *b = row->bounds[0] ? bounds_from_text(ctx, row->bounds) : NULL;
    sc_symmap *map = sc_symmap_new(ctx);
    sc_expr *e, *want, *got, *xs[3];
    int64_t vals[3][40];
    size_t nv[3], a, c, d, k;
    sc_error err;
    mpz_t v1, v2;
    bool ok = false;

    mpz_inits(v1, v2, NULL);
    e = try_parse(ctx, row->input, msg, size);
    ROW_CHECK(e != NULL);
    want = try_parse(ctx, row->expected, msg, size);
    ROW_CHECK(want != NULL);
    got = sc_expr_simplify(ctx, e, b);
    ROW_REQUIRE(got != NULL, "%s: simplify \"%s\" failed: %s", row->cls,
                row->input, sc_ctx_error(ctx)->message);
    if (got != want) {
        char *s = sc_expr_to_str(ctx, got);
        snprintf(msg, size, "%s: simplify \"%s\" with {%s}: expected %s, got "
                 "%s", row->cls, row->input, row->bounds, row->expected,
                 s ? s : "?");
        free(s);
        goto fail;
    }
    xs[0] = sym(ctx, "x");
    xs[1] = sym(ctx, "y");
    xs[2] = sym(ctx, "z");
    for (k = 0; k < 3; k++)
        nv[k] = grid_values(b, xs[k], vals[k]);
    for (a = 0; a < nv[0]; a++)
        for (c = 0; c < nv[1]; c++)
            for (d = 0; d < nv[2]; d++) {
                ROW_CHECK(sc_symmap_set_si(map, xs[0], vals[0][a], &err) ==
                              SC_OK &&
                          sc_symmap_set_si(map, xs[1], vals[1][c], &err) ==
                              SC_OK &&
                          sc_symmap_set_si(map, xs[2], vals[2][d], &err) ==
                              SC_OK);
                if (sc_expr_eval(ctx, e, map, v1, &err) != SC_OK)
                    continue; /* no value (a zero divisor) */
                ROW_REQUIRE(sc_expr_eval(ctx, got, map, v2, &err) == SC_OK &&
                                mpz_cmp(v1, v2) == 0,
                            "%s: \"%s\" -> \"%s\" differs at x=%" PRId64
                            ", y=%" PRId64 ", z=%" PRId64, row->cls,
                            row->input, row->expected, vals[0][a],
                            vals[1][c], vals[2][d]);
            }
    ok = true;
fail:
    mpz_clears(v1, v2, NULL);
    sc_symmap_free(map);
    sc_bounds_free(b);
    return ok;
}

START_TEST(test_simplifier_classes)
{
    run_rows("simplifier_classes", row_class, ARRAY_SIZE(class_rows));
}
END_TEST

/* Undecidable under the ranges: simplification must leave the value
 * alone (checked on every binding inside the ranges). */
START_TEST(test_simplify_keeps_undecided)
{
    sc_ctx *ctx = ctx_with_symbols();
    sc_bounds *b = bounds_from_text(ctx, "x=-3..9,y=1..4");
    static const char *const inputs[] = {
        "x // 8", "Mod(x, 8)", "CeilDiv(x, 8)", "Max(x, 2)", "Min(x, y)",
        "x < 4", "Eq(x, y)", "x*y <= 20", "Mod(x, y)", "x // y",
        "And(x >= 0, x <= y)", "Max(x - y, 0)",
    };
    size_t i;
    sc_symmap *map = sc_symmap_new(ctx);
    sc_error err;

    for (i = 0; i < ARRAY_SIZE(inputs); i++) {
        sc_expr *e = parse_ok(ctx, inputs[i]);
        sc_expr *s = sc_expr_simplify(ctx, e, b);
        int64_t xv, yv;
        REQUIRE_MSG(s != NULL, "simplify %s failed", inputs[i]);
        for (xv = -3; xv <= 9; xv++)
            for (yv = 1; yv <= 4; yv++) {
                int64_t v1, v2;
                REQUIRE((sc_symmap_set_si(map, sym(ctx, "x"), xv,
                                                  &err)) == SC_OK);
                REQUIRE((sc_symmap_set_si(map, sym(ctx, "y"), yv,
                                                  &err)) == SC_OK);
                REQUIRE((sc_expr_eval_si(ctx, e, map, &v1, &err)) == SC_OK);
                REQUIRE((sc_expr_eval_si(ctx, s, map, &v2, &err)) == SC_OK);
                REQUIRE_MSG(v1 == v2, "simplify(%s) differs at x=%" PRId64
                              " y=%" PRId64 ": %" PRId64 " vs %" PRId64,
                              inputs[i], xv, yv, v1, v2);
            }
    }
    sc_symmap_free(map);
    sc_bounds_free(b);
    sc_ctx_free(ctx);
}
END_TEST

/* ======================================================================
 * Evaluation
 * ====================================================================== */

typedef struct eval_row {
    const char *binding;
    const char *input;
    const char *expected; /* decimal, or NULL for an error */
    sc_status code;       /* SC_OK or the expected error */
} eval_row;

#define EVAL_BIND "s0=5,s1=7,s2=-3,s3=2**70"

static const eval_row eval_rows[] = {
    {EVAL_BIND, "s0*s1 + 2", "37", SC_OK},
    {EVAL_BIND, "s0 - s1", "-2", SC_OK},
    {EVAL_BIND, "s0//s1", "0", SC_OK},
    {EVAL_BIND, "-s0//s1", "-1", SC_OK},
    {EVAL_BIND, "s2 // 2", "-2", SC_OK},
    {EVAL_BIND, "Mod(s2, 2)", "1", SC_OK},
    {EVAL_BIND, "Mod(s0, s2)", "-1", SC_OK},
    {EVAL_BIND, "s0 // s2", "-2", SC_OK},
    {EVAL_BIND, "CeilDiv(s0, s2)", "-1", SC_OK},
    {EVAL_BIND, "CeilDiv(s1, 2)", "4", SC_OK},
    {EVAL_BIND, "CeilDiv(s2, 2)", "-1", SC_OK},
    {EVAL_BIND, "s3 + 1", "1180591620717411303425", SC_OK},
    {EVAL_BIND, "s3 // s1", "168655945816773043346", SC_OK},
    {EVAL_BIND, "Mod(s3, 1000)", "424", SC_OK},
    {EVAL_BIND, "Mod(-s3, s1)", "5", SC_OK},
    {EVAL_BIND, "s3*s3", "1393796574908163946345982392040522594123776",
     SC_OK},
    {EVAL_BIND, "Max(s0, s1, s2)", "7", SC_OK},
    {EVAL_BIND, "Min(s0, s1, s2)", "-3", SC_OK},
    {EVAL_BIND, "Max(s0, s3)", "1180591620717411303424", SC_OK},
    {EVAL_BIND, "s0**3", "125", SC_OK},
    {EVAL_BIND, "s2**3", "-27", SC_OK},
    {EVAL_BIND, "s2**0", "1", SC_OK},
    {EVAL_BIND, "s0 >= 2", "1", SC_OK},
    {EVAL_BIND, "s0 >= 6", "0", SC_OK},
    {EVAL_BIND, "Eq(s0, s1)", "0", SC_OK},
    {EVAL_BIND, "Ne(s0, s1)", "1", SC_OK},
    {EVAL_BIND, "Eq(Mod(s3, 8), 0)", "1", SC_OK},
    {EVAL_BIND, "And(s0 > 1, s1 > 1)", "1", SC_OK},
    {EVAL_BIND, "Or(s0 < 0, s2 > 0)", "0", SC_OK},
    {EVAL_BIND, "True", "1", SC_OK},
    {EVAL_BIND, "False", "0", SC_OK},
    {EVAL_BIND, "42", "42", SC_OK},
    {EVAL_BIND, "s0 + s4", NULL, SC_ERR_UNBOUND},
    {EVAL_BIND, "Max(s5, 1)", NULL, SC_ERR_UNBOUND},
    {EVAL_BIND, "s0 // (s1 - 7)", NULL, SC_ERR_DIV_ZERO},
    {EVAL_BIND, "Mod(s0, s1 - 7)", NULL, SC_ERR_DIV_ZERO},
    {EVAL_BIND, "CeilDiv(s0, s1 - 7)", NULL, SC_ERR_DIV_ZERO},
    {EVAL_BIND, "Mod(s0, s1 - 7) >= 1", NULL, SC_ERR_DIV_ZERO},
    {EVAL_BIND, "s0 + s1 // (s2 + 3)", NULL, SC_ERR_DIV_ZERO},
    {"s0=-9223372036854775808", "s0 // -1", "9223372036854775808", SC_OK},
    {"s0=-9223372036854775808", "Mod(s0, -1)", "0", SC_OK},
    {"s0=-9223372036854775808", "-s0", "9223372036854775808", SC_OK},
    {"s0=9223372036854775807", "s0 + 1", "9223372036854775808", SC_OK},
    {"s0=4294967296", "s0*s0", "18446744073709551616", SC_OK},
    {"s0=-2097152", "s0**3", "-9223372036854775808", SC_OK},
};

static bool row_eval(sc_ctx *ctx, size_t i, char *msg, size_t size)
{
    const eval_row *row = &eval_rows[i];
    sc_symmap *map = binding_from_text(ctx, row->binding);
    sc_expr *e = try_parse(ctx, row->input, msg, size);
    sc_error err;
    sc_status st;
    char *got = NULL;
    bool ok = false;

    ROW_CHECK(e != NULL);
    got = eval_to_str(ctx, e, map, &st, &err);
    if (row->code == SC_OK) {
        ROW_REQUIRE(st == SC_OK, "eval \"%s\" {%s}: %s (%s)", row->input,
                    row->binding, sc_status_name(st), err.message);
        ROW_REQUIRE(strcmp(got, row->expected) == 0,
                    "eval \"%s\" {%s}: expected %s, got %s", row->input,
                    row->binding, row->expected, got);
    } else {
        ROW_REQUIRE(st == row->code, "eval \"%s\" {%s}: expected %s, got %s",
                    row->input, row->binding, sc_status_name(row->code),
                    sc_status_name(st));
        ROW_REQUIRE(err.code == st, "eval \"%s\": err.code not set",
                    row->input);
        ROW_REQUIRE(err.message[0] != '\0', "eval \"%s\": no message",
                    row->input);
    }
    ok = true;
fail:
    free(got);
    sc_symmap_free(map);
    return ok;
}

START_TEST(test_eval_table)
{
    run_rows("eval", row_eval, ARRAY_SIZE(eval_rows));
}
END_TEST

START_TEST(test_eval_unbound_names_symbol_and_eval_si)
{
    sc_ctx *ctx = ctx_with_symbols();
    sc_symmap *map = binding_from_text(ctx, "s0=5,s3=2**70");
    sc_error err;
    int64_t v = 77;
    mpz_t z;

    mpz_init(z);
    sc_error_init(&err);
    ck_assert_int_eq(sc_expr_eval(ctx, parse_ok(ctx, "s0 + s4*2"), map, z,
                                  &err),
                     SC_ERR_UNBOUND);
    ck_assert_msg(strstr(err.message, "s4") != NULL,
                  "unbound error does not name s4: \"%s\"", err.message);

    sc_error_init(&err);
    ck_assert_int_eq(sc_expr_eval_si(ctx, parse_ok(ctx, "s0*2"), map, &v,
                                     &err),
                     SC_OK);
    ck_assert_int_eq(v, 10);
    sc_error_init(&err);
    ck_assert_int_eq(sc_expr_eval_si(ctx, parse_ok(ctx, "s3"), map, &v, &err),
                     SC_ERR_OVERFLOW);
    sc_error_init(&err);
    ck_assert_int_eq(sc_expr_eval_si(ctx, parse_ok(ctx, "s3 // 2**10"), map,
                                     &v, &err),
                     SC_OK);
    ck_assert_int_eq(v, INT64_C(1152921504606846976));
    sc_error_init(&err);
    ck_assert_int_eq(sc_expr_eval_si(ctx, parse_ok(ctx, "s0 < 9"), map, &v,
                                     &err),
                     SC_OK);
    ck_assert_int_eq(v, 1);
    /* NULL binding: constants evaluate, symbols are unbound */
    sc_error_init(&err);
    ck_assert_int_eq(sc_expr_eval_si(ctx, parse_ok(ctx, "7 // 2"), NULL, &v,
                                     &err),
                     SC_OK);
    ck_assert_int_eq(v, 3);
    sc_error_init(&err);
    ck_assert_int_eq(sc_expr_eval(ctx, parse_ok(ctx, "s0"), NULL, z, &err),
                     SC_ERR_UNBOUND);
    mpz_clear(z);
    sc_symmap_free(map);
    sc_ctx_free(ctx);
}
END_TEST

START_TEST(test_symmap_api)
{
    sc_ctx *ctx = ctx_with_symbols();
    sc_symmap *map = sc_symmap_new(ctx);
    sc_expr *s0 = sym(ctx, "s0"), *s1 = sym(ctx, "s1");
    sc_expr *five = sc_expr_int_si(ctx, 5);
    sc_error err;

    ck_assert_ptr_nonnull(map);
    ck_assert_ptr_null(sc_symmap_get(map, s0));
    sc_error_init(&err);
    ck_assert_int_eq(sc_symmap_set(map, s0, five, &err), SC_OK);
    ck_assert_ptr_eq(sc_symmap_get(map, s0), five);
    ck_assert_int_eq(sc_symmap_set_si(map, s0, 6, &err), SC_OK);
    ck_assert_ptr_eq(sc_symmap_get(map, s0), sc_expr_int_si(ctx, 6));
    ck_assert_int_eq(sc_symmap_set(map, s1, parse_ok(ctx, "s0 + 1"), &err),
                     SC_OK);
    ck_assert_ptr_eq(sc_symmap_get(map, s1), parse_ok(ctx, "s0 + 1"));
    ck_assert_int_eq(sc_symmap_set(map, s0, NULL, &err), SC_OK);
    ck_assert_ptr_null(sc_symmap_get(map, s0));
    ck_assert_ptr_nonnull(sc_symmap_get(map, s1));
    sc_symmap_clear(map);
    ck_assert_ptr_null(sc_symmap_get(map, s1));
    /* keys must be symbols */
    ck_assert_int_ne(sc_symmap_set(map, parse_ok(ctx, "s0 + 1"), five, &err),
                     SC_OK);
    sc_symmap_free(map);
    sc_symmap_free(NULL);
    sc_ctx_free(ctx);
}
END_TEST

typedef struct subst_row {
    const char *input;
    const char *map; /* "s0=expr;s1=expr" */
    const char *expected;
} subst_row;

static const subst_row subst_rows[] = {
    {"s0*s1", "s0=s1 + 1", "s1**2 + s1"},
    {"s0 + s1", "s0=s1;s1=s0", "s0 + s1"}, /* simultaneous */
    {"Mod(s0, 8)", "s0=8*s1 + 3", "3"},
    {"s0 // 2", "s0=2*s1", "s1"},
    {"s0 >= 2", "s0=5", "True"},
    {"Eq(s0, s1)", "s0=s1", "True"},
    {"Max(s0, s1)", "s0=3;s1=4", "4"},
    {"s0**2 - s1", "s0=2**40;s1=2**80", "0"},
    {"And(s0 >= 2, s1 >= 2)", "s0=2", "s1 >= 2"},
    {"s2 + 1", "s0=1", "s2 + 1"},
};

static bool row_subst(sc_ctx *ctx, size_t i, char *msg, size_t size)
{
    const subst_row *row = &subst_rows[i];
    sc_symmap *map = sc_symmap_new(ctx);
    char buf[256], *tok, *save = NULL;
    sc_expr *e, *got, *want;
    sc_error err;
    bool ok = false;

    ck_assert(map != NULL && strlen(row->map) < sizeof buf);
    strcpy(buf, row->map);
    for (tok = strtok_r(buf, ";", &save); tok;
         tok = strtok_r(NULL, ";", &save)) {
        char *eq = strchr(tok, '=');
        sc_expr *v;
        *eq = '\0';
        v = try_parse(ctx, eq + 1, msg, size);
        ROW_CHECK(v != NULL);
        ROW_REQUIRE(sc_symmap_set(map, sym(ctx, tok), v, &err) == SC_OK,
                    "sc_symmap_set: %s", err.message);
    }
    e = try_parse(ctx, row->input, msg, size);
    ROW_CHECK(e != NULL);
    want = try_parse(ctx, row->expected, msg, size);
    ROW_CHECK(want != NULL);
    got = sc_expr_subst(ctx, e, map);
    ROW_REQUIRE(got != NULL, "subst {%s} into \"%s\" failed: %s", row->map,
                row->input, sc_ctx_error(ctx)->message);
    if (got != want) {
        char *s = sc_expr_to_str(ctx, got);
        snprintf(msg, size, "subst {%s} into \"%s\": expected %s, got %s",
                 row->map, row->input, row->expected, s ? s : "?");
        free(s);
        goto fail;
    }
    ok = true;
fail:
    sc_symmap_free(map);
    return ok;
}

START_TEST(test_subst_table)
{
    run_rows("subst", row_subst, ARRAY_SIZE(subst_rows));
}
END_TEST

START_TEST(test_subst_division_by_zero)
{
    sc_ctx *ctx = ctx_with_symbols();
    sc_symmap *map = sc_symmap_new(ctx);
    sc_error err;
    sc_expr *e = parse_ok(ctx, "s1 // s0 + 1");

    ck_assert_int_eq(sc_symmap_set_si(map, sym(ctx, "s0"), 0, &err), SC_OK);
    ck_assert_int_eq(sc_ctx_take_error(ctx, NULL), SC_OK);
    ck_assert_ptr_null(sc_expr_subst(ctx, e, map));
    ck_assert_int_eq(sc_ctx_error(ctx)->code, SC_ERR_DIV_ZERO);
    sc_error_init(&err);
    ck_assert_int_eq(sc_ctx_take_error(ctx, &err), SC_ERR_DIV_ZERO);
    ck_assert_int_eq(err.code, SC_ERR_DIV_ZERO);
    ck_assert_int_eq(sc_ctx_error(ctx)->code, SC_OK);
    /* the divisor can also vanish symbolically */
    sc_symmap_clear(map);
    ck_assert_int_eq(sc_symmap_set(map, sym(ctx, "s0"), parse_ok(ctx, "-s3"),
                                   &err),
                     SC_OK);
    ck_assert_ptr_null(
        sc_expr_subst(ctx, parse_ok(ctx, "Mod(s1, s0 + s3)"), map));
    ck_assert_int_eq(sc_ctx_take_error(ctx, NULL), SC_ERR_DIV_ZERO);
    ck_assert_int_eq(sc_ctx_error(ctx)->code, SC_OK);
    sc_symmap_free(map);
    sc_ctx_free(ctx);
}
END_TEST

START_TEST(test_free_symbols)
{
    sc_ctx *ctx = ctx_with_symbols();
    sc_expr *e = parse_ok(ctx, "s2 + s0*s1 // s5 >= Max(s1, 3)");
    sc_expr *out[8];
    size_t n;

    n = sc_expr_free_symbols(e, out, 8);
    ck_assert_uint_eq(n, 4);
    ck_assert_ptr_eq(out[0], sym(ctx, "s0"));
    ck_assert_ptr_eq(out[1], sym(ctx, "s1"));
    ck_assert_ptr_eq(out[2], sym(ctx, "s2"));
    ck_assert_ptr_eq(out[3], sym(ctx, "s5"));
    n = sc_expr_free_symbols(e, out, 2);
    ck_assert_uint_eq(n, 4);
    ck_assert_ptr_eq(out[0], sym(ctx, "s0"));
    ck_assert_ptr_eq(out[1], sym(ctx, "s1"));
    ck_assert_uint_eq(sc_expr_free_symbols(parse_ok(ctx, "s0 - s0 + 3"), out,
                                           8),
                      0);
    ck_assert(sc_expr_has_symbol(e, sym(ctx, "s5")));
    ck_assert(!sc_expr_has_symbol(e, sym(ctx, "s3")));
    ck_assert(!sc_expr_has_symbol(parse_ok(ctx, "2*s0 - s0 - s0"),
                                  sym(ctx, "s0")));
    sc_ctx_free(ctx);
}
END_TEST

/* ======================================================================
 * Inspection, constructors, interning
 * ====================================================================== */

typedef struct kind_row {
    const char *input;
    sc_expr_kind kind;
} kind_row;

static const kind_row kind_rows[] = {
    {"5", SC_EXPR_INT},
    {"-2**100", SC_EXPR_INT},
    {"s0", SC_EXPR_SYMBOL},
    {"2*s0", SC_EXPR_ADD},
    {"s0 + 1", SC_EXPR_ADD},
    {"-s0", SC_EXPR_ADD},
    {"s0*s1", SC_EXPR_MUL},
    {"s0**2", SC_EXPR_MUL},
    {"s0//8", SC_EXPR_FLOORDIV},
    {"CeilDiv(s0, 8)", SC_EXPR_CEILDIV},
    {"Mod(s0, 8)", SC_EXPR_MOD},
    {"Min(s0, s1)", SC_EXPR_MIN},
    {"Max(s0, 1)", SC_EXPR_MAX},
    {"True", SC_EXPR_TRUE},
    {"False", SC_EXPR_FALSE},
    {"Eq(s0, 2)", SC_EXPR_EQ},
    {"Ne(s0, 2)", SC_EXPR_NE},
    {"s0 < 2", SC_EXPR_LE},
    {"s0 <= 2", SC_EXPR_LE},
    {"s0 > 2", SC_EXPR_LE},
    {"s0 >= 2", SC_EXPR_LE},
    {"not Eq(s0, 2)", SC_EXPR_NE},
    {"And(s0 < 2, s1 < 2)", SC_EXPR_AND},
    {"Or(s0 < 2, s1 < 2)", SC_EXPR_OR},
    {"not (s0 < 2 and s1 < 2)", SC_EXPR_OR},
};

static bool row_kind(sc_ctx *ctx, size_t i, char *msg, size_t size)
{
    const kind_row *row = &kind_rows[i];
    sc_expr *e = try_parse(ctx, row->input, msg, size);
    sc_expr_kind k;
    bool is_bool;

    ROW_CHECK(e != NULL);
    k = sc_expr_node_kind(e);
    is_bool = k >= SC_EXPR_TRUE;
    ROW_REQUIRE(k == row->kind, "\"%s\": expected kind %d, got %d",
                row->input, (int)row->kind, (int)k);
    ROW_REQUIRE(sc_expr_is_bool(e) == is_bool, "\"%s\": is_bool wrong",
                row->input);
    ROW_REQUIRE(sc_expr_is_int(e) == (k == SC_EXPR_INT),
                "\"%s\": is_int wrong", row->input);
    ROW_REQUIRE(sc_expr_is_symbol(e) == (k == SC_EXPR_SYMBOL),
                "\"%s\": is_symbol wrong", row->input);
    return true;
fail:
    return false;
}

START_TEST(test_kind_of_parsed_expression)
{
    run_rows("kinds", row_kind, ARRAY_SIZE(kind_rows));
}
END_TEST

START_TEST(test_inspect_canonical_structure)
{
    sc_ctx *ctx = ctx_with_symbols();
    sc_expr *s0 = sym(ctx, "s0"), *s1 = sym(ctx, "s1");
    sc_expr *e;
    mpz_t z;
    int64_t v;

    mpz_init(z);
    /* 2*s0: an Add with constant 0 and one term */
    e = parse_ok(ctx, "2*s0");
    ck_assert_uint_eq(sc_expr_arg_count(e), 1);
    ck_assert_ptr_eq(sc_expr_arg(e, 0), s0);
    sc_expr_add_coef(e, 0, z);
    ck_assert_int_eq(mpz_get_si(z), 2);
    sc_expr_add_constant(e, z);
    ck_assert_int_eq(mpz_sgn(z), 0);

    /* 4*s0*s1 + 512*s0 + 3: degree 2 first */
    e = parse_ok(ctx, "512*s0 + 3 + 4*s1*s0");
    ck_assert_int_eq(sc_expr_node_kind(e), SC_EXPR_ADD);
    ck_assert_uint_eq(sc_expr_arg_count(e), 2);
    ck_assert_ptr_eq(sc_expr_arg(e, 0), parse_ok(ctx, "s0*s1"));
    ck_assert_ptr_eq(sc_expr_arg(e, 1), s0);
    sc_expr_add_coef(e, 0, z);
    ck_assert_int_eq(mpz_get_si(z), 4);
    sc_expr_add_coef(e, 1, z);
    ck_assert_int_eq(mpz_get_si(z), 512);
    sc_expr_add_constant(e, z);
    ck_assert_int_eq(mpz_get_si(z), 3);

    /* big coefficient */
    e = parse_ok(ctx, "2**70*s1 - 1");
    sc_expr_add_coef(e, 0, z);
    ck_assert_msg(mpz_sizeinbase(z, 2) == 71 && mpz_scan1(z, 0) == 70,
                  "coefficient is not 2**70");

    /* s0**3*s1: exponents */
    e = parse_ok(ctx, "s1*s0*s0*s0");
    ck_assert_int_eq(sc_expr_node_kind(e), SC_EXPR_MUL);
    ck_assert_uint_eq(sc_expr_arg_count(e), 2);
    {
        size_t i0 = sc_expr_arg(e, 0) == s0 ? 0 : 1;
        ck_assert_ptr_eq(sc_expr_arg(e, i0), s0);
        ck_assert_ptr_eq(sc_expr_arg(e, 1 - i0), s1);
        ck_assert_uint_eq(sc_expr_mul_exponent(e, i0), 3);
        ck_assert_uint_eq(sc_expr_mul_exponent(e, 1 - i0), 1);
    }

    /* relations: one side, gcd divided, Gt/Ge into Le */
    e = parse_ok(ctx, "s0 > 1");
    ck_assert_int_eq(sc_expr_node_kind(e), SC_EXPR_LE);
    ck_assert_ptr_eq(sc_expr_arg(e, 0), parse_ok(ctx, "2 - s0"));
    e = parse_ok(ctx, "s0 < s1");
    ck_assert_ptr_eq(sc_expr_arg(e, 0), parse_ok(ctx, "s0 - s1 + 1"));
    e = parse_ok(ctx, "6*s0 <= 4*s1 + 3");
    ck_assert_ptr_eq(sc_expr_arg(e, 0), parse_ok(ctx, "3*s0 - 2*s1 - 1"));
    e = parse_ok(ctx, "Eq(4, 2*s0)");
    ck_assert_int_eq(sc_expr_node_kind(e), SC_EXPR_EQ);
    ck_assert_ptr_eq(sc_expr_arg(e, 0), parse_ok(ctx, "s0 - 2"));
    e = parse_ok(ctx, "Ne(s1, s0)");
    ck_assert_ptr_eq(sc_expr_arg(e, 0), parse_ok(ctx, "s0 - s1"));

    /* FloorDiv operands */
    e = parse_ok(ctx, "(s0 + 1)//8");
    ck_assert_uint_eq(sc_expr_arg_count(e), 2);
    ck_assert_ptr_eq(sc_expr_arg(e, 0), parse_ok(ctx, "s0 + 1"));
    ck_assert_ptr_eq(sc_expr_arg(e, 1), sc_expr_int_si(ctx, 8));

    /* integers */
    e = parse_ok(ctx, "-9223372036854775808");
    ck_assert(sc_expr_value_si(e, &v));
    ck_assert(v == INT64_MIN);
    e = parse_ok(ctx, "9223372036854775808");
    ck_assert(!sc_expr_value_si(e, &v));
    sc_expr_value_mpz(e, z);
    {
        char *t = mpz_get_str(NULL, 10, z);
        ck_assert_str_eq(t, "9223372036854775808");
        free(t);
    }

    /* symbols */
    ck_assert_str_eq(sc_expr_symbol_name(s1), "s1");
    ck_assert_uint_eq(sc_expr_symbol_index(s0), 0);
    ck_assert_uint_eq(sc_expr_symbol_index(s1), 1);
    ck_assert_uint_eq(sc_ctx_symbol_count(ctx), ARRAY_SIZE(table_symbols));
    ck_assert_ptr_eq(sc_ctx_symbol(ctx, 6), sym(ctx, "a"));
    ck_assert_uint_eq(sc_ctx_symbol_count(ctx), ARRAY_SIZE(table_symbols));
    sym(ctx, "new_symbol");
    ck_assert_uint_eq(sc_ctx_symbol_count(ctx),
                      ARRAY_SIZE(table_symbols) + 1);

    /* sizes grow with the tree */
    ck_assert_uint_eq(sc_expr_size(s0), 1);
    ck_assert_uint_lt(sc_expr_size(parse_ok(ctx, "s0 + s1")),
                      sc_expr_size(parse_ok(ctx, "s0 + s1*s2")));
    ck_assert_uint_lt(sc_expr_size(parse_ok(ctx, "s0//8")),
                      sc_expr_size(parse_ok(ctx, "Max(1, s0//8)")));
    mpz_clear(z);
    sc_ctx_free(ctx);
}
END_TEST

START_TEST(test_constructors_match_parser)
{
    sc_ctx *ctx = ctx_with_symbols();
    sc_expr *s0 = sym(ctx, "s0"), *s1 = sym(ctx, "s1"), *s2 = sym(ctx, "s2");
    sc_expr *two = sc_expr_int_si(ctx, 2), *eight = sc_expr_int_si(ctx, 8);
    sc_expr *args[3];
    mpz_t z;

    mpz_init(z);
    ck_assert_ptr_eq(sc_expr_add(ctx, s0, s1), parse_ok(ctx, "s0 + s1"));
    ck_assert_ptr_eq(sc_expr_sub(ctx, s0, s1), parse_ok(ctx, "s0 - s1"));
    ck_assert_ptr_eq(sc_expr_mul(ctx, s0, s1), parse_ok(ctx, "s0*s1"));
    ck_assert_ptr_eq(sc_expr_neg(ctx, s0), parse_ok(ctx, "-s0"));
    ck_assert_ptr_eq(sc_expr_add_si(ctx, s0, -3), parse_ok(ctx, "s0 - 3"));
    ck_assert_ptr_eq(sc_expr_mul_si(ctx, s0, 4), parse_ok(ctx, "4*s0"));
    ck_assert_ptr_eq(sc_expr_mul_si(ctx, s0, 0), sc_expr_int_si(ctx, 0));
    args[0] = s2; args[1] = s1; args[2] = s0;
    ck_assert_ptr_eq(sc_expr_add_n(ctx, 3, args), parse_ok(ctx, "s0+s1+s2"));
    ck_assert_ptr_eq(sc_expr_mul_n(ctx, 3, args), parse_ok(ctx, "s0*s1*s2"));
    ck_assert_ptr_eq(sc_expr_min_n(ctx, 3, args),
                     parse_ok(ctx, "Min(s0, s1, s2)"));
    ck_assert_ptr_eq(sc_expr_max_n(ctx, 3, args),
                     parse_ok(ctx, "Max(s0, s1, s2)"));
    ck_assert_ptr_eq(sc_expr_add_n(ctx, 0, args), sc_expr_int_si(ctx, 0));
    ck_assert_ptr_eq(sc_expr_mul_n(ctx, 0, args), sc_expr_int_si(ctx, 1));
    ck_assert_ptr_eq(sc_expr_pow(ctx, s0, 3), parse_ok(ctx, "s0**3"));
    ck_assert_ptr_eq(sc_expr_pow(ctx, sc_expr_int_si(ctx, 0), 0),
                     sc_expr_int_si(ctx, 1));
    ck_assert_ptr_eq(sc_expr_floordiv(ctx, s0, eight),
                     parse_ok(ctx, "s0//8"));
    ck_assert_ptr_eq(sc_expr_ceildiv(ctx, s0, eight),
                     parse_ok(ctx, "CeilDiv(s0, 8)"));
    ck_assert_ptr_eq(sc_expr_mod(ctx, s0, eight), parse_ok(ctx, "s0 % 8"));
    ck_assert_ptr_eq(sc_expr_min(ctx, s0, two), parse_ok(ctx, "Min(2, s0)"));
    ck_assert_ptr_eq(sc_expr_max(ctx, s0, two), parse_ok(ctx, "Max(2, s0)"));
    ck_assert_ptr_eq(sc_expr_eq(ctx, s0, s1), parse_ok(ctx, "Eq(s0, s1)"));
    ck_assert_ptr_eq(sc_expr_ne(ctx, s0, s1), parse_ok(ctx, "Ne(s0, s1)"));
    ck_assert_ptr_eq(sc_expr_lt(ctx, s0, s1), parse_ok(ctx, "s0 < s1"));
    ck_assert_ptr_eq(sc_expr_le(ctx, s0, s1), parse_ok(ctx, "s0 <= s1"));
    ck_assert_ptr_eq(sc_expr_gt(ctx, s0, s1), parse_ok(ctx, "s0 > s1"));
    ck_assert_ptr_eq(sc_expr_ge(ctx, s0, s1), parse_ok(ctx, "s0 >= s1"));
    ck_assert_ptr_eq(sc_expr_gt(ctx, s0, s1), sc_expr_lt(ctx, s1, s0));
    args[0] = parse_ok(ctx, "s0 < 1");
    args[1] = parse_ok(ctx, "s1 < 1");
    args[2] = parse_ok(ctx, "s2 < 1");
    ck_assert_ptr_eq(sc_expr_and(ctx, args[0], args[1]),
                     parse_ok(ctx, "s0 < 1 and s1 < 1"));
    ck_assert_ptr_eq(sc_expr_or(ctx, args[0], args[1]),
                     parse_ok(ctx, "s0 < 1 or s1 < 1"));
    ck_assert_ptr_eq(sc_expr_not(ctx, args[0]), parse_ok(ctx, "s0 >= 1"));
    ck_assert_ptr_eq(sc_expr_and_n(ctx, 3, args),
                     parse_ok(ctx, "And(s0 < 1, s1 < 1, s2 < 1)"));
    ck_assert_ptr_eq(sc_expr_or_n(ctx, 3, args),
                     parse_ok(ctx, "Or(s0 < 1, s1 < 1, s2 < 1)"));
    ck_assert_ptr_eq(sc_expr_and_n(ctx, 0, args), sc_expr_true(ctx));
    ck_assert_ptr_eq(sc_expr_or_n(ctx, 0, args), sc_expr_false(ctx));
    ck_assert_ptr_eq(sc_expr_bool(ctx, true), parse_ok(ctx, "True"));
    ck_assert_ptr_eq(sc_expr_bool(ctx, false), sc_expr_false(ctx));
    ck_assert_ptr_ne(sc_expr_true(ctx), sc_expr_false(ctx));

    /* integers: every spelling of one value is one node */
    mpz_set_si(z, 1024);
    ck_assert_ptr_eq(sc_expr_int_mpz(ctx, z), sc_expr_int_si(ctx, 1024));
    ck_assert_ptr_eq(sc_expr_int_str(ctx, "1024"), sc_expr_int_si(ctx, 1024));
    ck_assert_ptr_eq(sc_expr_int_str(ctx, "+7"), sc_expr_int_si(ctx, 7));
    ck_assert_ptr_eq(sc_expr_int_str(ctx, "-9223372036854775808"),
                     sc_expr_int_si(ctx, INT64_MIN));
    mpz_ui_pow_ui(z, 2, 64);
    ck_assert_ptr_eq(sc_expr_int_mpz(ctx, z),
                     sc_expr_int_str(ctx, "18446744073709551616"));
    ck_assert_ptr_eq(sc_expr_int_mpz(ctx, z),
                     parse_ok(ctx, "18446744073709551616"));
    mpz_neg(z, z);
    ck_assert_ptr_eq(sc_expr_int_mpz(ctx, z),
                     sc_expr_int_str(ctx, "-18446744073709551616"));
    mpz_clear(z);
    sc_ctx_free(ctx);
}
END_TEST

START_TEST(test_constructor_errors)
{
    sc_ctx *ctx = ctx_with_symbols();
    sc_expr *s0 = sym(ctx, "s0"), *t = sc_expr_true(ctx);
    sc_expr *zero = sc_expr_int_si(ctx, 0);
    sc_error err;
    static const char *const bad_names[] = {
        "", "1abc", "a-b", "a b", "Mod", "Max", "FloorDiv", "True", "False",
        "and", "or", "not", "Eq", "Pow", "s0.5",
    };
    static const char *const bad_ints[] = {"", "-", "12a", "1.0", "0x10",
                                           " 1", "1e3", "--1"};
    size_t i;

    /* NULL arguments: NULL, and the recorded error is left alone */
    ck_assert_int_eq(sc_ctx_take_error(ctx, NULL), SC_OK);
    ck_assert_ptr_null(sc_expr_add(ctx, NULL, s0));
    ck_assert_ptr_null(sc_expr_floordiv(ctx, s0, NULL));
    ck_assert_ptr_null(sc_expr_not(ctx, NULL));
    ck_assert_int_eq(sc_ctx_error(ctx)->code, SC_OK);

    /* a constant zero divisor */
    ck_assert_ptr_null(sc_expr_floordiv(ctx, s0, zero));
    ck_assert_int_eq(sc_ctx_take_error(ctx, &err), SC_ERR_DIV_ZERO);
    ck_assert_ptr_null(sc_expr_mod(ctx, s0, parse_ok(ctx, "s1 - s1")));
    ck_assert_int_eq(sc_ctx_take_error(ctx, &err), SC_ERR_DIV_ZERO);
    ck_assert_ptr_null(sc_expr_ceildiv(ctx, sc_expr_int_si(ctx, 5), zero));
    ck_assert_int_eq(sc_ctx_take_error(ctx, &err), SC_ERR_DIV_ZERO);
    /* the error stays recorded through later NULL propagation */
    ck_assert_ptr_null(
        sc_expr_add(ctx, sc_expr_mod(ctx, s0, zero), s0));
    ck_assert_int_eq(sc_ctx_error(ctx)->code, SC_ERR_DIV_ZERO);
    ck_assert_int_eq(sc_ctx_take_error(ctx, NULL), SC_ERR_DIV_ZERO);

    /* type errors */
    ck_assert_ptr_null(sc_expr_add(ctx, t, s0));
    ck_assert_int_eq(sc_ctx_take_error(ctx, NULL), SC_ERR_TYPE);
    ck_assert_ptr_null(sc_expr_mul_si(ctx, t, 2));
    ck_assert_int_eq(sc_ctx_take_error(ctx, NULL), SC_ERR_TYPE);
    ck_assert_ptr_null(sc_expr_and(ctx, s0, t));
    ck_assert_int_eq(sc_ctx_take_error(ctx, NULL), SC_ERR_TYPE);
    ck_assert_ptr_null(sc_expr_not(ctx, s0));
    ck_assert_int_eq(sc_ctx_take_error(ctx, NULL), SC_ERR_TYPE);
    ck_assert_ptr_null(sc_expr_lt(ctx, t, s0));
    ck_assert_int_eq(sc_ctx_take_error(ctx, NULL), SC_ERR_TYPE);
    ck_assert_ptr_null(sc_expr_max(ctx, t, s0));
    ck_assert_int_eq(sc_ctx_take_error(ctx, NULL), SC_ERR_TYPE);
    ck_assert_ptr_null(sc_expr_floordiv(ctx, s0, t));
    ck_assert_int_eq(sc_ctx_take_error(ctx, NULL), SC_ERR_TYPE);
    ck_assert_ptr_null(sc_expr_pow(ctx, t, 2));
    ck_assert_int_eq(sc_ctx_take_error(ctx, NULL), SC_ERR_TYPE);

    /* symbol names */
    for (i = 0; i < ARRAY_SIZE(bad_names); i++) {
        ck_assert_msg(sc_expr_symbol(ctx, bad_names[i]) == NULL,
                      "symbol name \"%s\" accepted", bad_names[i]);
        ck_assert_msg(sc_ctx_take_error(ctx, NULL) == SC_ERR_INVALID,
                      "symbol name \"%s\": not ERR_INVALID", bad_names[i]);
    }
    ck_assert_ptr_nonnull(sc_expr_symbol(ctx, "_x1"));
    ck_assert_ptr_nonnull(sc_expr_symbol(ctx, "Max_"));
    ck_assert_ptr_eq(sc_expr_symbol(ctx, "_x1"), parse_ok(ctx, "_x1"));

    /* decimal integers */
    for (i = 0; i < ARRAY_SIZE(bad_ints); i++) {
        ck_assert_msg(sc_expr_int_str(ctx, bad_ints[i]) == NULL,
                      "integer \"%s\" accepted", bad_ints[i]);
        ck_assert_msg(sc_ctx_take_error(ctx, NULL) == SC_ERR_PARSE,
                      "integer \"%s\": not ERR_PARSE", bad_ints[i]);
    }
    sc_ctx_free(ctx);
}
END_TEST

START_TEST(test_interning_and_contexts)
{
    sc_ctx *ctx = ctx_with_symbols(), *ctx2 = ctx_with_symbols();
    static const char *const texts[] = {
        "s0*s1 + 2", "Max(1, s1)", "Mod(s0*s1, 8)", "s0 >= 2",
        "Eq(Mod(s1, 8), 0)", "(s0 + 2*s1 - 3)//2 + 1", "2**100*s2 - 7",
        "And(s0 >= 2, s1 <= 1024)",
    };
    size_t i, count;
    sc_expr *e[ARRAY_SIZE(texts)];

    for (i = 0; i < ARRAY_SIZE(texts); i++)
        e[i] = parse_ok(ctx, texts[i]);
    count = sc_ctx_node_count(ctx);
    ck_assert_uint_gt(count, ARRAY_SIZE(table_symbols));
    for (i = 0; i < ARRAY_SIZE(texts); i++)
        ck_assert_ptr_eq(parse_ok(ctx, texts[i]), e[i]);
    ck_assert_uint_eq(sc_ctx_node_count(ctx), count);

    for (i = 0; i < ARRAY_SIZE(texts); i++) {
        sc_expr *f = parse_ok(ctx2, texts[i]);
        char *a = print_ok(ctx, e[i]), *b = print_ok(ctx2, f);
        size_t j;
        ck_assert_str_eq(a, b);
        ck_assert_msg(sc_expr_hash(e[i]) == sc_expr_hash(f),
                      "hash of \"%s\" differs across contexts", texts[i]);
        ck_assert_int_eq(sc_expr_cmp(e[i], e[i]), 0);
        for (j = 0; j < ARRAY_SIZE(texts); j++) {
            int c1 = sc_expr_cmp(e[i], e[j]);
            int c2 = sc_expr_cmp(f, parse_ok(ctx2, texts[j]));
            ck_assert_msg((c1 > 0) - (c1 < 0) == (c2 > 0) - (c2 < 0),
                          "order of \"%s\" vs \"%s\" differs across contexts",
                          texts[i], texts[j]);
            ck_assert_msg((c1 > 0) - (c1 < 0) ==
                              -((sc_expr_cmp(e[j], e[i]) > 0) -
                                (sc_expr_cmp(e[j], e[i]) < 0)),
                          "order not antisymmetric");
            ck_assert_msg((c1 == 0) == (i == j), "distinct nodes compare 0");
        }
        free(a);
        free(b);
    }
    sc_ctx_free(ctx);
    sc_ctx_free(ctx2);
    sc_ctx_free(NULL);
}
END_TEST

/* A node stands for a tree; its printed form repeats every shared
 * subtree, so a node whose text would pass SC__TEXT_LIMIT (2**20
 * characters of names and digits) is refused with a located error, and
 * one just under it is kept and round-trips. */
START_TEST(test_text_limit)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_expr *e, *f = NULL, *s, *t;
    sc_error err;
    char *text;
    int k;

    ck_assert_ptr_nonnull(ctx);
    s = sym(ctx, "s");
    t = sym(ctx, "t");
    e = sym(ctx, "x0"); /* 2 characters */
    /* e_{k+1} = e_k//s + e_k//t: each level doubles the text (plus 2) */
    for (k = 0; k < 18; k++) {
        e = sc_expr_add(ctx, sc_expr_floordiv(ctx, e, s),
                        sc_expr_floordiv(ctx, e, t));
        ck_assert_ptr_nonnull(e);
    }
    /* 2**19 + 2**19 - 2 = 2**20 - 2 characters: within the limit */
    text = sc_expr_to_str(ctx, e);
    ck_assert_ptr_nonnull(text);
    ck_assert_uint_gt(strlen(text), (size_t)1 << 20);
    ck_assert_int_eq(sc_expr_parse(ctx, text, "t", 1, &f, &err), SC_OK);
    ck_assert_ptr_eq(f, e);
    free(text);
    /* one level more would be 2**21 - 2 */
    ck_assert_ptr_null(sc_expr_add(ctx, sc_expr_floordiv(ctx, e, s),
                                   sc_expr_floordiv(ctx, e, t)));
    ck_assert_int_eq(sc_ctx_take_error(ctx, &err), SC_ERR_LIMIT);
    ck_assert_msg(strstr(err.message, "expression too large"), "%s",
                  err.message);
    /* the same from the parser, located at the operator that makes it */
    ck_assert_int_eq(sc_expr_parse(ctx, "(w - 29999999999)**99", "t", 1, &f,
                                   &err),
                     SC_OK);
    ck_assert_int_eq(
        sc_expr_parse(ctx,
                      "((w - 29999999999)**99//v - 29999999999)**99", "t",
                      1, &f, &err),
        SC_ERR_LIMIT);
    ck_assert_int_eq(err.line, 1);
    ck_assert_int_eq(err.column, 41);
    ck_assert_msg(strstr(err.message, "expression too large"), "%s",
                  err.message);
    sc_ctx_free(ctx);
}
END_TEST

START_TEST(test_expand_limit)
{
    sc_ctx *ctx = ctx_with_symbols();
    sc_expr *e, *f, *ab, *cd, *amb, *big;
    sc_error err;
    char why[256] = "";

    ck_assert_uint_eq(sc_ctx_expand_limit(ctx), 1024);
    e = parse_ok(ctx, "(a + b)*(c + d)");
    ck_assert_int_eq(sc_expr_node_kind(e), SC_EXPR_ADD);
    ck_assert_uint_eq(sc_expr_arg_count(e), 4);
    /* Every product of sums is expanded, so the grouping of the factors
     * never matters. */
    ab = parse_ok(ctx, "a + b");
    cd = parse_ok(ctx, "c + d");
    amb = parse_ok(ctx, "a - b");
    ck_assert_ptr_eq(sc_expr_mul(ctx, sc_expr_mul(ctx, ab, cd), amb),
                     sc_expr_mul(ctx, ab, sc_expr_mul(ctx, cd, amb)));
    ck_assert_ptr_eq(sc_expr_mul(ctx, ab, amb), parse_ok(ctx, "a**2 - b**2"));
    ck_assert_ptr_eq(parse_ok(ctx, "(a + b)**2*(c + d)"),
                     sc_expr_mul(ctx, sc_expr_pow(ctx, ab, 2), cd));
    /* Over the limit: an error, never a factored form. */
    sc_ctx_set_expand_limit(ctx, 3);
    ck_assert_uint_eq(sc_ctx_expand_limit(ctx), 3);
    ck_assert_int_eq(sc_expr_parse(ctx, "(a + b)*(c + d)", "t", 1, &f, &err),
                     SC_ERR_LIMIT);
    ck_assert_int_eq(err.line, 1);
    ck_assert_int_eq(err.column, 8);
    ck_assert_msg(strstr(err.message, "too large to expand"), "%s",
                  err.message);
    ck_assert_ptr_null(sc_expr_mul(ctx, ab, cd));
    ck_assert_int_eq(sc_ctx_take_error(ctx, &err), SC_ERR_LIMIT);
    /* A product that does not grow past its largest sum is within it. */
    big = parse_ok(ctx, "a + b + c + d + 1");
    f = sc_expr_mul(ctx, sym(ctx, "a"), big);
    ck_assert_ptr_eq(f, parse_ok(ctx, "a**2 + a*b + a*c + a*d + a"));
    ck_assert_ptr_eq(sc_expr_mul(ctx, big, sc_expr_int_si(ctx, 2)),
                     parse_ok(ctx, "2*a + 2*b + 2*c + 2*d + 2"));
    assert_roundtrip(ctx, f, "a*(a + b + c + d + 1) with limit 3");
    /* (a + b + c + d)**4 has 35 terms */
    sc_ctx_set_expand_limit(ctx, 34);
    ck_assert_int_eq(sc_expr_parse(ctx, "(a + b + c + d)**4", "t", 1, &f,
                                   &err),
                     SC_ERR_LIMIT);
    sc_ctx_set_expand_limit(ctx, 35);
    e = parse_ok(ctx, "(a + b + c + d)**4");
    ck_assert_int_eq(sc_expr_node_kind(e), SC_EXPR_ADD);
    ck_assert_uint_eq(sc_expr_arg_count(e), 35);
    f = parse_ok(ctx, "(a + b + c + d)**2*(a + b + c + d)**2");
    ck_assert_ptr_eq(e, f);
    ck_assert_msg(agree_on_samples(ctx, e, f, why, sizeof why), "%s", why);
    /* A huge power fails at once (no 2**32 steps). */
    sc_ctx_set_expand_limit(ctx, 1024);
    ck_assert_ptr_null(sc_expr_pow(ctx, ab, (uint64_t)1 << 32));
    ck_assert_int_eq(sc_ctx_take_error(ctx, &err), SC_ERR_LIMIT);
    e = sc_expr_pow(ctx, ab, 300);
    ck_assert_ptr_nonnull(e);
    ck_assert_uint_eq(sc_expr_arg_count(e), 301);
    /* The square of a product of nine sums (512 terms of nine bases,
     * 19683 terms expanded) fails; the bases budget refuses it before its
     * 262144 products are formed (bench/bench_symint.c times it).  The
     * product itself is within the limits.  A power whose last step
     * multiplies hundreds of terms with 250-bit coefficients is refused
     * by its coefficients' words, before the step: (a + 1)**400 expands,
     * (a + 1)**500 (a step of 245 by 257 terms, coefficients of up to
     * 496 bits) does not. */
    f = parse_ok(ctx, "(a + 1)*(b + 1)*(c + 1)*(d + 1)*(e + 1)*(f + 1)*"
                      "(g + 1)*(h + 1)*(i + 1)");
    ck_assert_uint_eq(sc_expr_arg_count(f), 511);
    ck_assert_ptr_null(sc_expr_pow(ctx, f, 2));
    ck_assert_int_eq(sc_ctx_take_error(ctx, &err), SC_ERR_LIMIT);
    e = parse_ok(ctx, "(a + 1)**400");
    ck_assert_uint_eq(sc_expr_arg_count(e), 400);
    ck_assert_int_eq(sc_expr_parse(ctx, "(a + 1)**500", "t", 1, &f, &err),
                     SC_ERR_LIMIT);
    sc_ctx_free(ctx);
}
END_TEST

/* ---- The canonical form of products round-trips ----------------------------
 * Every product of sums is expanded (or fails with SC_ERR_LIMIT), so
 * printing never writes a product of sums and any grouping of the factors
 * gives one node. */

/* Each tests/data/regress/expr/expr-* input (inputs on which the printed
 * form once read back differently) round-trips, at the default expand
 * limit and at small ones (where it may fail, located, instead). */
START_TEST(test_roundtrip_regress_inputs)
{
    static const size_t limits[] = {1024, 4, 64, 4096};
    const char *top = getenv("top_srcdir");
    char dir[4096], path[8192];
    DIR *d;
    struct dirent *ent;
    size_t n = 0, li;

    snprintf(dir, sizeof dir, "%s/tests/data/regress/expr", top ? top : ".");
    d = opendir(dir);
    ck_assert_msg(d != NULL, "cannot open %s", dir);
    while ((ent = readdir(d)) != NULL) {
        FILE *f;
        char text[8192];
        size_t len;
        if (strncmp(ent->d_name, "expr-", 5) != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
        f = fopen(path, "rb");
        ck_assert_msg(f != NULL, "cannot open %s", path);
        len = fread(text, 1, sizeof text - 1, f);
        fclose(f);
        text[len] = '\0';
        for (li = 0; li < ARRAY_SIZE(limits); li++) {
            sc_ctx *ctx = sc_ctx_new();
            sc_expr *e = NULL, *e2 = NULL;
            sc_error err;
            char *s;
            sc_ctx_set_expand_limit(ctx, limits[li]);
            if (sc_expr_parse(ctx, text, path, 1, &e, &err) != SC_OK) {
                ck_assert_msg(err.code == SC_ERR_LIMIT, "%s (limit %zu): %s",
                              path, limits[li], err.message);
                ck_assert(err.line >= 1 && err.column >= 1);
                sc_ctx_free(ctx);
                continue;
            }
            s = print_ok(ctx, e);
            ck_assert_int_eq(sc_expr_parse(ctx, s, "printed", 1, &e2, &err),
                             SC_OK);
            ck_assert_msg(e2 == e, "%s (limit %zu): printed \"%s\" reads back "
                          "differently", path, limits[li], s);
            free(s);
            sc_ctx_free(ctx);
        }
        n++;
    }
    closedir(d);
    ck_assert_uint_ge(n, 4);
}
END_TEST

#define PROD_FACTORS 7

/* A random sum of 1..4 terms over the table symbols (some FloorDiv atoms)
 * and a constant, as text. */
static void random_sum_text(sc_test_rng *rng, char *buf, size_t size)
{
    int nt = (int)sc_test_rng_range(rng, 1, 4), i;
    size_t len = 0;

    for (i = 0; i < nt; i++) {
        const char *v = table_symbols[sc_test_rng_below(rng, 6)];
        int64_t k = sc_test_rng_range(rng, -3, 3);
        if (k == 0)
            k = 1;
        if (sc_test_rng_below(rng, 4) == 0)
            len += (size_t)snprintf(buf + len, size - len, "%s%" PRId64
                                    "*((%s - %s)//2)", i ? " + " : "", k, v,
                                    table_symbols[sc_test_rng_below(rng, 6)]);
        else
            len += (size_t)snprintf(buf + len, size - len, "%s%" PRId64 "*%s",
                                    i ? " + " : "", k, v);
    }
    snprintf(buf + len, size - len, " + %" PRId64,
             sc_test_rng_range(rng, -4, 4));
}

/* The product of f[lo..hi) grouped at random (a random binary tree). */
static sc_expr *random_grouping(sc_ctx *ctx, sc_test_rng *rng,
                                sc_expr *const *f, size_t lo, size_t hi)
{
    size_t mid;
    sc_expr *l, *r;

    if (hi - lo == 1)
        return f[lo];
    mid = lo + 1 + (size_t)sc_test_rng_below(rng, hi - lo - 1);
    l = random_grouping(ctx, rng, f, lo, mid);
    r = random_grouping(ctx, rng, f, mid, hi);
    return sc_expr_mul(ctx, l, r);
}

/* Products of random sums, grouped at random, at random expand limits:
 * two groupings that both succeed give the same node, the node
 * round-trips through its text, its value is the product of the factors'
 * values, and a failure is SC_ERR_LIMIT. */
START_TEST(test_property_products_of_sums)
{
    uint64_t seed = sc_test_seed();
    long n = sc_test_cases(2000), i;
    long built = 0, limited = 0, compared = 0;
    sc_test_rng rng;
    mpz_t v, w, x;

    mpz_inits(v, w, x, NULL);
    sc_test_rng_init(&rng, seed ^ 0x50524f44ULL);
    for (i = 0; i < n; i++) {
        sc_ctx *ctx = ctx_with_symbols();
        sc_symmap *map = sc_symmap_new(ctx);
        sc_expr *f[PROD_FACTORS], *perm[PROD_FACTORS], *p1, *p2, *back;
        size_t nf = (size_t)sc_test_rng_range(&rng, 2, PROD_FACTORS), j;
        size_t limit = (size_t)sc_test_rng_range(&rng, 2, 300);
        char text[512];
        char *s;
        sc_error err;
        int k;

        ck_assert_ptr_nonnull(map);
        for (j = 0; j < nf; j++) {
            if (j > 0 && sc_test_rng_below(&rng, 4) == 0) {
                f[j] = f[sc_test_rng_below(&rng, j)]; /* a repeated factor */
            } else {
                random_sum_text(&rng, text, sizeof text);
                f[j] = parse_ok(ctx, text);
                if (sc_test_rng_below(&rng, 5) == 0)
                    f[j] = sc_expr_pow(ctx, f[j], 2);
            }
            ck_assert_ptr_nonnull(f[j]);
            perm[j] = f[j];
        }
        for (j = nf - 1; j > 0; j--) {
            size_t r = (size_t)sc_test_rng_below(&rng, j + 1);
            sc_expr *t = perm[j];
            perm[j] = perm[r];
            perm[r] = t;
        }
        sc_ctx_set_expand_limit(ctx, limit);
        p1 = random_grouping(ctx, &rng, f, 0, nf);
        if (!p1)
            ck_assert_int_eq(sc_ctx_take_error(ctx, &err), SC_ERR_LIMIT);
        p2 = random_grouping(ctx, &rng, perm, 0, nf);
        if (!p2)
            ck_assert_int_eq(sc_ctx_take_error(ctx, &err), SC_ERR_LIMIT);
        if (!p1 || !p2) {
            limited++;
            sc_symmap_free(map);
            sc_ctx_free(ctx);
            continue;
        }
        built++;
        s = print_ok(ctx, p1);
        ck_assert_msg(p1 == p2,
                      "SYMCUT_SEED=%" PRIu64 " case %ld: two groupings of one "
                      "product differ (limit %zu): %s", seed, i, limit, s);
        back = NULL;
        ck_assert_int_eq(sc_expr_parse(ctx, s, "printed", 1, &back, &err),
                         SC_OK);
        ck_assert_msg(back == p1,
                      "SYMCUT_SEED=%" PRIu64 " case %ld: \"%s\" reads back "
                      "differently", seed, i, s);
        for (k = 0; k < 3; k++) {
            for (j = 0; j < ARRAY_SIZE(table_symbols); j++)
                ck_assert_int_eq(sc_symmap_set_si(map,
                                                  sym(ctx, table_symbols[j]),
                                                  sc_test_rng_range(&rng, -50,
                                                                    50),
                                                  &err),
                                 SC_OK);
            mpz_set_ui(w, 1);
            for (j = 0; j < nf; j++) {
                ck_assert_int_eq(sc_expr_eval(ctx, f[j], map, x, &err), SC_OK);
                mpz_mul(w, w, x);
            }
            ck_assert_int_eq(sc_expr_eval(ctx, p1, map, v, &err), SC_OK);
            ck_assert_msg(mpz_cmp(v, w) == 0,
                          "SYMCUT_SEED=%" PRIu64 " case %ld: the value of "
                          "\"%s\" is not the product's", seed, i, s);
            compared++;
        }
        free(s);
        sc_symmap_free(map);
        sc_ctx_free(ctx);
    }
    mpz_clears(v, w, x, NULL);
    ck_assert_msg(built >= n / 4 && limited > 0,
                  "%ld built, %ld over the limit, of %ld", built, limited, n);
    printf("symint property \"products of sums\": SYMCUT_SEED=%" PRIu64
           ", %ld cases, %ld built, %ld over the expand limit, %ld value "
           "comparisons\n", seed, n, built, limited, compared);
    fflush(stdout);
}
END_TEST

/* ---- The rewrite classes on random constants ------------------------------
 * Templates of the constructor rules (common factor, nested floor
 * divisions, multiples, a rest removed) and of the simplifier's (bounded
 * rest, Min/Max by difference), with random constants of both signs:
 * the node the constructors (and sc_expr_simplify, with the template's
 * bounds) build has, at random bindings inside the bounds, the value the
 * template has with Python semantics (computed here with pydiv.h). */

static int64_t rnz(sc_test_rng *rng, int64_t lo, int64_t hi)
{
    int64_t v;
    do
        v = sc_test_rng_range(rng, lo, hi);
    while (v == 0);
    return v;
}

static int64_t fdiv(int64_t a, int64_t b)
{
    int64_t q = 0;
    ck_assert(sc__i64_floordiv(a, b, &q));
    return q;
}

START_TEST(test_property_rewrite_classes)
{
    uint64_t seed = sc_test_seed();
    long n = sc_test_cases(3000), i, compared = 0, changed = 0;
    sc_test_rng rng;

    sc_test_rng_init(&rng, seed ^ 0x434c4153ULL);
    for (i = 0; i < n; i++) {
        sc_ctx *ctx = ctx_with_symbols();
        sc_symmap *map = sc_symmap_new(ctx);
        sc_bounds *b = sc_bounds_new(ctx);
        sc_expr *x = sym(ctx, "x"), *y = sym(ctx, "y"), *z = sym(ctx, "z");
        int t = (int)sc_test_rng_below(&rng, 6), op = (int)sc_test_rng_below(
                                                     &rng, 3), k;
        int64_t g = sc_test_rng_range(&rng, 2, 6);
        int64_t c1 = sc_test_rng_range(&rng, -12, 12);
        int64_t c2 = sc_test_rng_range(&rng, -12, 12);
        int64_t k1 = rnz(&rng, -4, 4), k2 = rnz(&rng, -4, 4);
        int64_t a = rnz(&rng, -6, 6), d = rnz(&rng, -9, 9);
        int64_t ylo = sc_test_rng_range(&rng, -20, 20);
        int64_t yhi = ylo + sc_test_rng_range(&rng, 0, 12);
        char text[256];
        sc_expr *e, *s;
        sc_error err;

        ck_assert_ptr_nonnull(map);
        ck_assert_ptr_nonnull(b);
        if (t == 0 || t == 4)
            d = g * sc_test_rng_range(&rng, 1, 4) *
                (t == 4 || sc_test_rng_below(&rng, 2) ? 1 : -1);
        if (op == 2 && t != 3)
            op = 0; /* CeilDiv only for the rest removed */
        switch (t) {
        case 0: /* common factor, constant rest */
            snprintf(text, sizeof text, "%s(%" PRId64 "*x + %" PRId64
                     "*y + %" PRId64 ", %" PRId64 ")",
                     op ? "Mod" : "FloorDiv", k1 * g, k2 * g, c1, d);
            break;
        case 1: /* nested floor divisions */
            snprintf(text, sizeof text, "%s(FloorDiv(x + %" PRId64 ", %"
                     PRId64 ") + %" PRId64 "*y + %" PRId64 ", %" PRId64 ")",
                     op ? "Mod" : "FloorDiv", c1, a, k1, c2, d);
            break;
        case 2: /* multiples */
            snprintf(text, sizeof text, "%s(%" PRId64 "*x*y + %" PRId64
                     "*x, %" PRId64 "*x*z + %" PRId64 "*x)",
                     op ? "Mod" : "FloorDiv", k1, c1, k2, c2);
            break;
        case 3: /* a rest removed */
            snprintf(text, sizeof text, "%s(%" PRId64 "*(x + %" PRId64
                     ") - %" PRId64 "*Mod(x + %" PRId64 ", y) + z, y)",
                     op == 0 ? "FloorDiv" : op == 1 ? "Mod" : "CeilDiv", k1,
                     c1, k1, c1);
            break;
        case 4: /* bounded rest (y in [ylo, yhi]) */
            snprintf(text, sizeof text, "%s(%" PRId64 "*x + %" PRId64
                     "*z + y + %" PRId64 ", %" PRId64 ")",
                     op ? "Mod" : "FloorDiv", k1 * g, k2 * d, c1, d);
            ck_assert_int_eq(sc_bounds_set_si(b, y, false, ylo, false, yhi,
                                              &err), SC_OK);
            break;
        default: /* Min/Max by difference */
            snprintf(text, sizeof text, "%s(x + %" PRId64 ", %" PRId64
                     "*FloorDiv(x + %" PRId64 ", %" PRId64 ") + %" PRId64 ")",
                     op ? "Min" : "Max", c1, a, c2, a, sc_test_rng_range(
                                                          &rng, -8, 8));
            break;
        }
        e = parse_ok(ctx, text);
        s = sc_expr_simplify(ctx, e, b);
        ck_assert_ptr_nonnull(s);
        if (s != e)
            changed++;
        for (k = 0; k < 8; k++) {
            int64_t xv = sc_test_rng_range(&rng, -40, 40);
            int64_t yv = t == 4 ? sc_test_rng_range(&rng, ylo, yhi)
                                : sc_test_rng_range(&rng, -12, 12);
            int64_t zv = sc_test_rng_range(&rng, -12, 12), want = 0, got1,
                    got2, num, den, u, last = 0;
            bool defined = true;
            switch (t) {
            case 0:
                num = k1 * g * xv + k2 * g * yv + c1;
                want = op ? sc__i64_mod(num, d) : fdiv(num, d);
                break;
            case 1:
                num = fdiv(xv + c1, a) + k1 * yv + c2;
                want = op ? sc__i64_mod(num, d) : fdiv(num, d);
                break;
            case 2:
                num = k1 * xv * yv + c1 * xv;
                den = k2 * xv * zv + c2 * xv;
                defined = den != 0;
                if (defined)
                    want = op ? sc__i64_mod(num, den) : fdiv(num, den);
                break;
            case 3:
                defined = yv != 0;
                if (!defined)
                    break;
                u = xv + c1;
                num = k1 * u - k1 * sc__i64_mod(u, yv) + zv;
                if (op == 0)
                    want = fdiv(num, yv);
                else if (op == 1)
                    want = sc__i64_mod(num, yv);
                else
                    ck_assert(sc__i64_ceildiv(num, yv, &want));
                break;
            case 4:
                num = k1 * g * xv + k2 * d * zv + yv + c1;
                want = op ? sc__i64_mod(num, d) : fdiv(num, d);
                break;
            default:
                sscanf(strrchr(text, '+') + 1, "%" SCNd64, &last);
                num = xv + c1;
                den = a * fdiv(xv + c2, a) + last;
                want = op ? (num < den ? num : den) : (num > den ? num : den);
                break;
            }
            if (!defined)
                continue;
            ck_assert_int_eq(sc_symmap_set_si(map, x, xv, &err), SC_OK);
            ck_assert_int_eq(sc_symmap_set_si(map, y, yv, &err), SC_OK);
            ck_assert_int_eq(sc_symmap_set_si(map, z, zv, &err), SC_OK);
            ck_assert_int_eq(sc_expr_eval_si(ctx, e, map, &got1, &err),
                             SC_OK);
            ck_assert_int_eq(sc_expr_eval_si(ctx, s, map, &got2, &err),
                             SC_OK);
            if (got1 != want || got2 != want) {
                char *p1 = print_ok(ctx, e), *p2 = print_ok(ctx, s);
                ck_abort_msg("SYMCUT_SEED=%" PRIu64 " case %ld: %s (y in "
                             "[%" PRId64 ", %" PRId64 "]) at x=%" PRId64
                             " y=%" PRId64 " z=%" PRId64 ": want %" PRId64
                             "; built \"%s\" gives %" PRId64 ", simplified "
                             "\"%s\" gives %" PRId64, seed, i, text, ylo, yhi,
                             xv, yv, zv, want, p1, got1, p2, got2);
            }
            compared++;
        }
        sc_bounds_free(b);
        sc_symmap_free(map);
        sc_ctx_free(ctx);
    }
    ck_assert_int_ge(compared, n);
    printf("symint property \"rewrite classes\": SYMCUT_SEED=%" PRIu64
           ", %ld cases, %ld changed by simplify, %ld value comparisons\n",
           seed, n, changed, compared);
    fflush(stdout);
}
END_TEST

START_TEST(test_fprint)
{
    sc_ctx *ctx = ctx_with_symbols();
    sc_expr *e = parse_ok(ctx, "Max(1, s1) + 4*s0*s1");
    char *s = print_ok(ctx, e);
    char buf[256] = "";
    FILE *f = tmpfile();
    sc_error err;

    ck_assert_ptr_nonnull(f);
    sc_error_init(&err);
    ck_assert_int_eq(sc_expr_fprint(f, e, &err), SC_OK);
    rewind(f);
    ck_assert_ptr_nonnull(fgets(buf, sizeof buf, f));
    ck_assert_str_eq(buf, s);
    fclose(f);

    /* a stream that cannot be written */
    f = fopen("/dev/null", "r");
    if (f) {
        sc_error_init(&err);
        ck_assert_int_eq(sc_expr_fprint(f, e, &err), SC_ERR_IO);
        ck_assert_int_eq(err.code, SC_ERR_IO);
        fclose(f);
    }
    free(s);
    sc_ctx_free(ctx);
}
END_TEST

START_TEST(test_status_names)
{
    ck_assert_str_eq(sc_status_name(SC_OK), "OK");
    ck_assert_str_eq(sc_status_name(SC_ERR_PARSE), "ERR_PARSE");
    ck_assert_str_eq(sc_status_name(SC_ERR_DIV_ZERO), "ERR_DIV_ZERO");
    ck_assert_str_eq(sc_status_name((sc_status)9999), "UNKNOWN");
    ck_assert_str_eq(sc_status_str(SC_ERR_UNBOUND), "unbound symbol");
}
END_TEST

/* ======================================================================
 * Compiled programs
 * ====================================================================== */

static sc_prog *prog_of(sc_ctx *ctx, size_t n, const char *const *texts)
{
    sc_expr *e[16];
    sc_prog *p = NULL;
    sc_error err;
    size_t i;

    ck_assert(n <= 16);
    for (i = 0; i < n; i++)
        e[i] = parse_ok(ctx, texts[i]);
    sc_error_init(&err);
    ck_assert_msg(sc_prog_new(ctx, n, e, &p, &err) == SC_OK && p != NULL,
                  "sc_prog_new failed: %s", err.message);
    return p;
}

START_TEST(test_prog_agrees_with_eval_on_grid)
{
    static const char *const texts[] = {
        "s0*s1 + 2", "Mod(s0*s1, 8)", "s1 // s0", "Max(1, s1)",
        "s0 >= 2", "CeilDiv(s1, s0)", "Mod(s1, s0)",
        "(s0 + 2*s1 - 3)//2 + 1",
        "Min(s0, s1, 3)", "s0**3 - s1**2", "Eq(Mod(s1, 4), 0)",
        "And(s0 >= 0, s1 < 3)", "Or(s0 >= 2, Ne(s1, 0))", "-s1 // 3",
    };
    sc_ctx *ctx = ctx_with_symbols();
    sc_symmap *map = sc_symmap_new(ctx);
    size_t k;
    sc_error err;

    for (k = 0; k < ARRAY_SIZE(texts); k++) {
        sc_prog *p = prog_of(ctx, 1, &texts[k]);
        sc_expr *e = parse_ok(ctx, texts[k]);
        int64_t s0v, s1v;
        ck_assert_uint_eq(sc_prog_output_count(p), 1);
        for (s0v = -6; s0v <= 6; s0v++)
            for (s1v = -6; s1v <= 6; s1v++) {
                int64_t in[2], out = 12345, want = 0;
                sc_status st1, st2;
                size_t i;
                for (i = 0; i < sc_prog_input_count(p); i++)
                    in[i] = sc_expr_symbol_index(sc_prog_input(p, i)) == 0
                                ? s0v
                                : s1v;
                REQUIRE((sc_symmap_set_si(map, sym(ctx, "s0"), s0v,
                                                  &err)) == SC_OK);
                REQUIRE((sc_symmap_set_si(map, sym(ctx, "s1"), s1v,
                                                  &err)) == SC_OK);
                sc_error_init(&err);
                st1 = sc_expr_eval_si(ctx, e, map, &want, &err);
                sc_error_init(&err);
                st2 = sc_prog_eval(p, in, &out, &err);
                REQUIRE_MSG(st1 == st2,
                              "\"%s\" at s0=%" PRId64 " s1=%" PRId64
                              ": eval %s, prog %s",
                              texts[k], s0v, s1v, sc_status_name(st1),
                              sc_status_name(st2));
                if (st1 == SC_OK)
                    REQUIRE_MSG(out == want,
                                  "\"%s\" at s0=%" PRId64 " s1=%" PRId64
                                  ": eval %" PRId64 ", prog %" PRId64,
                                  texts[k], s0v, s1v, want, out);
            }
        sc_prog_free(p);
    }
    sc_symmap_free(map);
    sc_ctx_free(ctx);
}
END_TEST

START_TEST(test_prog_inputs_outputs_and_overflow)
{
    sc_ctx *ctx = ctx_with_symbols();
    static const char *const texts[] = {"s2 + s0", "s2 * 3", "7"};
    static const char *const big[] = {
        "Mod(s0*s1, 7)", "Max(5, s0*s1) - s0*s1", "s0*s1 // s1 // s0",
        "(s0*s1*s0) // (s0*s0)",
    };
    sc_prog *p = prog_of(ctx, 3, texts);
    int64_t in[4], out[4];
    sc_error err;
    sc_status st;

    ck_assert_uint_eq(sc_prog_input_count(p), 2);
    ck_assert_ptr_eq(sc_prog_input(p, 0), sym(ctx, "s0"));
    ck_assert_ptr_eq(sc_prog_input(p, 1), sym(ctx, "s2"));
    ck_assert_uint_eq(sc_prog_output_count(p), 3);
    in[0] = 10;
    in[1] = -4;
    sc_error_init(&err);
    ck_assert_int_eq(sc_prog_eval(p, in, out, &err), SC_OK);
    ck_assert_int_eq(out[0], 6);
    ck_assert_int_eq(out[1], -12);
    ck_assert_int_eq(out[2], 7);
    sc_prog_free(p);

    /* intermediate overflow: the result is still exact */
    p = prog_of(ctx, 4, big);
    in[0] = INT64_C(1) << 40;
    in[1] = (INT64_C(1) << 40) + 3;
    sc_error_init(&err);
    st = sc_prog_eval(p, in, out, &err);
    ck_assert_msg(st == SC_OK, "intermediate overflow: %s (%s)",
                  sc_status_name(st), err.message);
    {
        mpz_t a;
        mpz_init_set_si(a, in[0]);
        mpz_mul_si(a, a, in[1]);
        ck_assert_int_eq(out[0], (int64_t)mpz_fdiv_ui(a, 7));
        mpz_clear(a);
    }
    ck_assert_int_eq(out[1], 0);
    ck_assert_int_eq(out[2], 1);
    ck_assert_int_eq(out[3], in[1]);
    sc_prog_free(p);

    /* outputs that do not fit, and int64 corners that C traps on */
    {
        static const struct {
            const char *text;
            int64_t s0, s1;
            sc_status code;
            int64_t value;
        } rows[] = {
            {"s0*s1", INT64_C(1) << 40, INT64_C(1) << 40, SC_ERR_OVERFLOW, 0},
            {"s0**3", INT64_C(2097152), 0, SC_ERR_OVERFLOW, 0},
            {"s0**3", -INT64_C(2097152), 0, SC_OK, INT64_MIN},
            {"-s0", INT64_MIN, 0, SC_ERR_OVERFLOW, 0},
            {"s0 // s1", INT64_MIN, -1, SC_ERR_OVERFLOW, 0},
            {"Mod(s0, s1)", INT64_MIN, -1, SC_OK, 0},
            {"CeilDiv(s0, s1)", INT64_MIN, -1, SC_ERR_OVERFLOW, 0},
            {"s0 // s1", INT64_MIN, 1, SC_OK, INT64_MIN},
            {"Mod(s0, s1)", INT64_MIN, INT64_MAX, SC_OK, INT64_MAX - 1},
            {"s0 // s1", INT64_MIN, INT64_MAX, SC_OK, -2},
            {"s0 + s1", INT64_MAX, 1, SC_ERR_OVERFLOW, 0},
            {"s0 - s1", INT64_MIN, 1, SC_ERR_OVERFLOW, 0},
            {"s0 + s1 - 1", INT64_MAX, 1, SC_OK, INT64_MAX},
            {"s0 // s1", 7, 0, SC_ERR_DIV_ZERO, 0},
            {"Mod(s0, s1)", 7, 0, SC_ERR_DIV_ZERO, 0},
            {"Max(s0, s1) - Min(s0, s1)", INT64_MIN, INT64_MAX,
             SC_ERR_OVERFLOW, 0},
            {"Max(s0, s1) + Min(s0, s1)", INT64_MIN, INT64_MAX, SC_OK, -1},
            {"s0 >= s1", INT64_MIN, INT64_MAX, SC_OK, 0},
            {"s0*s1 >= 0", INT64_MAX, INT64_MAX, SC_OK, 1},
        };
        size_t k;
        for (k = 0; k < ARRAY_SIZE(rows); k++) {
            const char *t = rows[k].text;
            sc_symmap *map = sc_symmap_new(ctx);
            int64_t v = 0, inputs[2];
            size_t i;
            sc_status st2;
            p = prog_of(ctx, 1, &t);
            for (i = 0; i < sc_prog_input_count(p); i++)
                inputs[i] = sc_prog_input(p, i) == sym(ctx, "s0")
                                ? rows[k].s0
                                : rows[k].s1;
            sc_error_init(&err);
            st = sc_prog_eval(p, inputs, out, &err);
            ck_assert_msg(st == rows[k].code, "prog \"%s\" (%" PRId64
                          ", %" PRId64 "): expected %s, got %s", t,
                          rows[k].s0, rows[k].s1,
                          sc_status_name(rows[k].code), sc_status_name(st));
            if (st == SC_OK)
                ck_assert_msg(out[0] == rows[k].value,
                              "prog \"%s\": expected %" PRId64
                              ", got %" PRId64,
                              t, rows[k].value, out[0]);
            /* sc_expr_eval_si agrees */
            sc_symmap_set_si(map, sym(ctx, "s0"), rows[k].s0, &err);
            sc_symmap_set_si(map, sym(ctx, "s1"), rows[k].s1, &err);
            sc_error_init(&err);
            st2 = sc_expr_eval_si(ctx, parse_ok(ctx, t), map, &v, &err);
            ck_assert_msg(st2 == rows[k].code, "eval_si \"%s\": expected %s, "
                          "got %s", t, sc_status_name(rows[k].code),
                          sc_status_name(st2));
            if (st2 == SC_OK)
                ck_assert_msg(v == rows[k].value, "eval_si \"%s\": expected %"
                              PRId64 ", got %" PRId64, t, rows[k].value, v);
            sc_symmap_free(map);
            sc_prog_free(p);
        }
    }
    sc_prog_free(NULL);
    sc_ctx_free(ctx);
}
END_TEST

START_TEST(test_prog_first_false)
{
    sc_ctx *ctx = ctx_with_symbols();
    static const char *const guards[] = {"s0 >= 2", "Eq(Mod(s1, 8), 0)",
                                         "s0 <= 1024", "Ne(s0, s1)"};
    static const struct {
        int64_t s0, s1;
        size_t expected;
    } rows[] = {
        {5, 16, 4}, {5, 12, 1}, {1, 16, 0}, {2000, 16, 2}, {16, 16, 3},
        {1, 3, 0},  {2, 0, 4},  {1024, 8, 4}, {1025, 8, 2},
    };
    sc_prog *p = prog_of(ctx, 4, guards);
    size_t k;
    sc_error err;

    ck_assert_uint_eq(sc_prog_input_count(p), 2);
    for (k = 0; k < ARRAY_SIZE(rows); k++) {
        int64_t in[2] = {rows[k].s0, rows[k].s1};
        size_t idx = 999;
        sc_error_init(&err);
        ck_assert_int_eq(sc_prog_first_false(p, in, &idx, &err), SC_OK);
        ck_assert_msg(idx == rows[k].expected,
                      "first_false at s0=%" PRId64 " s1=%" PRId64
                      ": expected %zu, got %zu",
                      rows[k].s0, rows[k].s1, rows[k].expected, idx);
    }
    sc_prog_free(p);
    sc_ctx_free(ctx);
}
END_TEST

/* A condition whose evaluation divides by zero does not hold: it is the
 * first failing one (a guard that raises fails in PyTorch's guard
 * function), on the int64_t path and on the exact one (the constant
 * 2**62 sends the second program's product there). */
START_TEST(test_prog_first_false_div_zero)
{
    sc_ctx *ctx = ctx_with_symbols();
    static const char *const fast[] = {"s0 >= 0", "s1 // s0 >= 2",
                                       "Mod(s1, s0) <= 3", "s1 <= 100"};
    static const char *const slow[] = {"s1 >= 0",
                                       "(4611686018427387904*s1) // s0 >= 0",
                                       "s1 <= 100"};
    static const struct {
        int prog;
        int64_t s0, s1;
        size_t expected;
    } rows[] = {
        {0, 0, 5, 1},  {0, 2, 5, 4},  {0, 4, 5, 1}, {0, 3, 10, 4},
        {0, -1, 5, 0}, {0, 2, 101, 3}, {0, 5, 14, 2},
        {1, 0, 5, 1},  {1, 3, 5, 3},  {1, 3, -5, 0}, {1, 0, 200, 1},
    };
    sc_prog *p[2] = {prog_of(ctx, 4, fast), prog_of(ctx, 3, slow)};
    size_t k;
    sc_error err;

    for (k = 0; k < ARRAY_SIZE(rows); k++) {
        int64_t in[2] = {rows[k].s0, rows[k].s1};
        size_t idx = 999;
        sc_error_init(&err);
        ck_assert_int_eq(sc_prog_first_false(p[rows[k].prog], in, &idx, &err),
                         SC_OK);
        ck_assert_msg(idx == rows[k].expected,
                      "program %d at s0=%" PRId64 " s1=%" PRId64
                      ": expected %zu, got %zu", rows[k].prog,
                      rows[k].s0, rows[k].s1, rows[k].expected, idx);
        ck_assert_int_eq(err.code, SC_OK);
    }
    /* sc_prog_eval still reports the division */
    {
        int64_t in[2] = {0, 5}, out[4];
        sc_error_init(&err);
        ck_assert_int_eq(sc_prog_eval(p[0], in, out, &err), SC_ERR_DIV_ZERO);
    }
    sc_prog_free(p[0]);
    sc_prog_free(p[1]);
    sc_ctx_free(ctx);
}
END_TEST

/* ======================================================================
 * Random expression trees, kept in the test's own structure, with a
 * reference evaluator written directly on GMP (Python semantics).
 * ====================================================================== */

#define NSYM 4
static const char *const prop_names[NSYM] = {"s0", "s1", "s2", "s3"};

enum {
    OP_INT, OP_SYM, OP_TRUE, OP_FALSE,
    OP_ADD, OP_SUB, OP_MUL, OP_NEG, OP_FLOORDIV, OP_CEILDIV, OP_MOD,
    OP_MIN, OP_MAX, OP_POW,
    OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE, OP_AND, OP_OR, OP_NOT,
};

static bool op_is_bool(int op)
{
    return op == OP_TRUE || op == OP_FALSE || op >= OP_EQ;
}

#define TREE_MAX 192
#define TREE_SOFT 110 /* past this many nodes, only leaves are added */

typedef struct tnode {
    int op;
    int nkids;
    int kid[3];
    int sym;
    unsigned exp;
    unsigned variant; /* random bits: which constructor / spelling */
} tnode;

typedef struct ttree {
    tnode n[TREE_MAX];
    mpz_t val[TREE_MAX];
    int count;
    int root;
} ttree;

static void tree_init(ttree *t)
{
    int i;
    for (i = 0; i < TREE_MAX; i++)
        mpz_init(t->val[i]);
    t->count = 0;
    t->root = -1;
}

static void tree_clear(ttree *t)
{
    int i;
    for (i = 0; i < TREE_MAX; i++)
        mpz_clear(t->val[i]);
}

static void tree_copy(ttree *dst, const ttree *src)
{
    int i;
    for (i = 0; i < src->count; i++) {
        dst->n[i] = src->n[i];
        mpz_set(dst->val[i], src->val[i]);
    }
    dst->count = src->count;
    dst->root = src->root;
}

typedef struct gen {
    sc_test_rng *rng;
    ttree *t;
    bool c_safe; /* for the C printer: small constants, nonzero divisors */
} gen;

static uint64_t below(gen *g, uint64_t n)
{
    return sc_test_rng_below(g->rng, n);
}

static int node_new(gen *g, int op)
{
    ttree *t = g->t;
    tnode *n;
    REQUIRE_MSG(t->count < TREE_MAX, "test tree overflow");
    n = &t->n[t->count];
    memset(n, 0, sizeof *n);
    n->op = op;
    n->variant = (unsigned)sc_test_rng_next(g->rng);
    mpz_set_ui(t->val[t->count], 0);
    return t->count++;
}

/* A random integer: mostly small, sometimes near powers of two, beyond
 * 2**64, or a random value of up to 200 bits; either sign. */
static void gen_value(gen *g, mpz_ptr v)
{
    uint64_t r = below(g, 100);
    if (r < 45 || (g->c_safe && r < 75)) {
        mpz_set_si(v, sc_test_rng_range(g->rng, -5, 5));
    } else if (r < 65 || g->c_safe) {
        mpz_set_si(v, sc_test_rng_range(g->rng, -100, 100));
    } else if (r < 75) {
        mpz_set_ui(v, 1);
        mpz_mul_2exp(v, v, 1 + below(g, 62));
        if (below(g, 2))
            mpz_sub_ui(v, v, below(g, 3));
        else
            mpz_add_ui(v, v, below(g, 3));
        if (below(g, 2))
            mpz_neg(v, v);
    } else if (r < 88) {
        mpz_set_ui(v, 1);
        mpz_mul_2exp(v, v, below(g, 2) ? 64 : 63 + below(g, 68));
        mpz_add_ui(v, v, below(g, 4));
        if (below(g, 2))
            mpz_neg(v, v);
    } else {
        int words = 1 + (int)below(g, 4), i;
        mpz_set_ui(v, 0);
        for (i = 0; i < words; i++) {
            mpz_mul_2exp(v, v, 64);
            mpz_add_ui(v, v, (unsigned long)sc_test_rng_next(g->rng));
        }
        mpz_tdiv_r_2exp(v, v, 1 + below(g, 200));
        if (below(g, 2))
            mpz_neg(v, v);
    }
}

static int gen_int(gen *g, int depth);

static int gen_leaf(gen *g)
{
    int i;
    if (below(g, 100) < 50) {
        i = node_new(g, OP_SYM);
        g->t->n[i].sym = (int)below(g, NSYM);
    } else {
        i = node_new(g, OP_INT);
        gen_value(g, g->t->val[i]);
    }
    return i;
}

static int gen_nonzero_const(gen *g)
{
    int i = node_new(g, OP_INT);
    do
        gen_value(g, g->t->val[i]);
    while (mpz_sgn(g->t->val[i]) == 0);
    return i;
}

/* A divisor: a nonzero constant, sometimes zero, sometimes any
 * expression (which may be zero for some bindings).  In C-safe mode the
 * divisor is never zero: Max(1, e) or Min(-1, e). */
static int gen_divisor(gen *g, int depth)
{
    uint64_t r = below(g, 100);
    int i, k;
    if (g->c_safe) {
        if (r < 60 || depth < 1)
            return gen_nonzero_const(g);
        i = node_new(g, r < 80 ? OP_MAX : OP_MIN);
        k = node_new(g, OP_INT);
        mpz_set_si(g->t->val[k], r < 80 ? 1 : -1);
        g->t->n[i].nkids = 2;
        g->t->n[i].kid[0] = k;
        g->t->n[i].kid[1] = gen_int(g, depth);
        return i;
    }
    if (r < 2) {
        i = node_new(g, OP_INT);
        return i; /* constant zero */
    }
    if (r < 55 || depth < 1)
        return gen_nonzero_const(g);
    return gen_int(g, depth);
}

static int node2(gen *g, int op, int a, int b)
{
    int i = node_new(g, op);
    g->t->n[i].nkids = 2;
    g->t->n[i].kid[0] = a;
    g->t->n[i].kid[1] = b;
    return i;
}

static int const_si(gen *g, long v)
{
    int i = node_new(g, OP_INT);
    mpz_set_si(g->t->val[i], v);
    return i;
}

/* A small nonzero divisor of either sign. */
static long small_divisor(gen *g)
{
    long d = (long)sc_test_rng_range(g->rng, 2, 8);
    return below(g, 3) == 0 ? -d : d;
}

static int div_op(gen *g)
{
    static const int ops[] = {OP_FLOORDIV, OP_CEILDIV, OP_MOD};
    return ops[below(g, 3)];
}

/* Shapes that the canonicalizer rewrites: k1*A + k2*B + k3 over a divisor
 * sharing factors with the k's, nested divisions with mixed signs,
 * divisors correlated with the numerator, cancelling sums, nested
 * Min/Max with constants. */
static int gen_pattern(gen *g, int depth)
{
    int sub = depth - 2 < 1 ? 1 : depth - 2;
    int a, b, c, i, op;
    long d, k, m;

    /* one draw from the generator per statement: the order of evaluation
     * of arguments is unspecified in C, and a seed must replay the same
     * tree whatever the compiler */
    switch (below(g, 6)) {
    case 0: /* (k1*A + k2*B + k3) op d */
        d = small_divisor(g);
        k = d * sc_test_rng_range(g->rng, -3, 3);
        if (below(g, 2))
            k += sc_test_rng_range(g->rng, -2, 2);
        c = const_si(g, k);
        a = gen_int(g, sub);
        a = node2(g, OP_MUL, c, a);
        k = d * sc_test_rng_range(g->rng, -3, 3);
        if (below(g, 3) == 0)
            k += sc_test_rng_range(g->rng, -2, 2);
        b = gen_int(g, sub);
        c = const_si(g, k);
        b = node2(g, OP_MUL, b, c);
        a = node2(g, OP_ADD, a, b);
        c = const_si(g, sc_test_rng_range(g->rng, -20, 20));
        a = node2(g, OP_ADD, a, c);
        c = const_si(g, d);
        op = div_op(g);
        return node2(g, op, a, c);
    case 1: /* (A op d1) op d2 */
        a = gen_int(g, sub);
        c = const_si(g, small_divisor(g));
        op = div_op(g);
        a = node2(g, op, a, c);
        c = const_si(g, small_divisor(g));
        op = div_op(g);
        return node2(g, op, a, c);
    case 2: /* (A*B + C) op B, (A + B) op B */
        b = gen_int(g, sub);
        a = gen_int(g, sub);
        if (below(g, 2)) {
            i = node2(g, OP_MUL, a, b);
            c = gen_int(g, sub);
            a = node2(g, OP_ADD, i, c);
        } else {
            a = node2(g, OP_ADD, a, b);
        }
        op = div_op(g);
        return node2(g, op, a, b);
    case 3: /* (A + B) - A, A*B - B*A + C */
        a = gen_int(g, sub);
        b = gen_int(g, sub);
        if (below(g, 2)) {
            i = node2(g, OP_ADD, a, b);
            return node2(g, OP_SUB, i, a);
        }
        i = node2(g, OP_MUL, a, b);
        c = node2(g, OP_MUL, b, a);
        i = node2(g, OP_SUB, i, c);
        c = gen_int(g, sub);
        return node2(g, OP_ADD, i, c);
    case 4: /* Max(c1, Min(A, c2), Max(B, c3)) and mirrors */
        a = gen_int(g, sub);
        c = const_si(g, sc_test_rng_range(g->rng, -10, 10));
        op = below(g, 2) ? OP_MIN : OP_MAX;
        a = node2(g, op, a, c);
        b = gen_int(g, sub);
        c = const_si(g, sc_test_rng_range(g->rng, -10, 10));
        op = below(g, 2) ? OP_MIN : OP_MAX;
        b = node2(g, op, b, c);
        c = const_si(g, sc_test_rng_range(g->rng, -10, 10));
        op = below(g, 2) ? OP_MIN : OP_MAX;
        i = node_new(g, op);
        g->t->n[i].nkids = 3;
        g->t->n[i].kid[0] = c;
        g->t->n[i].kid[1] = a;
        g->t->n[i].kid[2] = b;
        return i;
    default: /* (A op d) * d + A Mod d, and (A + k*d) op d */
        a = gen_int(g, sub);
        d = small_divisor(g);
        if (below(g, 2)) {
            c = const_si(g, d);
            i = node2(g, OP_FLOORDIV, a, c);
            c = const_si(g, d);
            i = node2(g, OP_MUL, i, c);
            c = const_si(g, d);
            b = node2(g, OP_MOD, a, c);
            return node2(g, OP_ADD, i, b);
        }
        m = sc_test_rng_range(g->rng, -4, 4);
        c = const_si(g, d * m);
        i = node2(g, OP_ADD, a, c);
        c = const_si(g, d);
        op = div_op(g);
        return node2(g, op, i, c);
    }
}

static int gen_int(gen *g, int depth)
{
    static const int ops[] = {OP_ADD, OP_SUB, OP_MUL, OP_NEG, OP_FLOORDIV,
                              OP_CEILDIV, OP_MOD, OP_MIN, OP_MAX, OP_POW};
    static const int weights[] = {14, 8, 12, 4, 10, 6, 10, 7, 7, 6};
    uint64_t r, acc = 0;
    int op = OP_ADD, i, k, nk;
    size_t j;

    if (depth <= 1 || g->t->count >= TREE_SOFT || below(g, 100) < 15)
        return gen_leaf(g);
    if (!g->c_safe && depth >= 3 && below(g, 100) < 12)
        return gen_pattern(g, depth);
    r = below(g, 84);
    for (j = 0; j < ARRAY_SIZE(ops); j++) {
        acc += (uint64_t)weights[j];
        if (r < acc) {
            op = ops[j];
            break;
        }
    }
    switch (op) {
    case OP_NEG:
        k = gen_int(g, depth - 1);
        i = node_new(g, op);
        g->t->n[i].nkids = 1;
        g->t->n[i].kid[0] = k;
        return i;
    case OP_POW:
        k = gen_int(g, depth - 1 < 3 ? depth - 1 : 3);
        i = node_new(g, op);
        g->t->n[i].nkids = 1;
        g->t->n[i].kid[0] = k;
        g->t->n[i].exp = below(g, 10) == 0 ? 0 : 1 + (unsigned)below(g, 3);
        return i;
    case OP_FLOORDIV:
    case OP_CEILDIV:
    case OP_MOD: {
        int a = gen_int(g, depth - 1), b = gen_divisor(g, depth - 1);
        i = node_new(g, op);
        g->t->n[i].nkids = 2;
        g->t->n[i].kid[0] = a;
        g->t->n[i].kid[1] = b;
        return i;
    }
    default:
        nk = (op != OP_SUB && below(g, 4) == 0) ? 3 : 2;
        {
            int kids[3];
            for (j = 0; j < (size_t)nk; j++)
                kids[j] = gen_int(g, depth - 1);
            i = node_new(g, op);
            g->t->n[i].nkids = nk;
            for (j = 0; j < (size_t)nk; j++)
                g->t->n[i].kid[j] = kids[j];
        }
        return i;
    }
}

static int gen_bool(gen *g, int depth)
{
    uint64_t r = below(g, 100);
    int i, j, nk, kids[3];

    if (depth <= 1 || (g->t->count >= TREE_SOFT && r < 50))
        return node_new(g, below(g, 2) ? OP_TRUE : OP_FALSE);
    if (r < 60 || depth == 2 || g->t->count >= TREE_SOFT) {
        int a = gen_int(g, depth - 1), b = gen_int(g, depth - 1);
        i = node_new(g, OP_EQ + (int)below(g, 6));
        g->t->n[i].nkids = 2;
        g->t->n[i].kid[0] = a;
        g->t->n[i].kid[1] = b;
        return i;
    }
    if (r < 88) {
        nk = below(g, 4) == 0 ? 3 : 2;
        for (j = 0; j < nk; j++)
            kids[j] = gen_bool(g, depth - 1);
        i = node_new(g, r < 74 ? OP_AND : OP_OR);
        g->t->n[i].nkids = nk;
        for (j = 0; j < nk; j++)
            g->t->n[i].kid[j] = kids[j];
        return i;
    }
    kids[0] = gen_bool(g, depth - 1);
    i = node_new(g, OP_NOT);
    g->t->n[i].nkids = 1;
    g->t->n[i].kid[0] = kids[0];
    return i;
}

/* A random tree of depth at most 6 (1 for a leaf). */
static void gen_tree(gen *g, bool allow_bool)
{
    int depth = below(g, 8) == 0 ? 1 + (int)below(g, 2) : 3 + (int)below(g, 4);
    g->t->count = 0;
    if (allow_bool && below(g, 100) < 35)
        g->t->root = gen_bool(g, depth);
    else
        g->t->root = gen_int(g, depth);
}

/* ---- reference evaluation --------------------------------------------- */

/* Evaluate node i with symbol values bind[]; 0 on success, 1 when a
 * division by zero happens anywhere (every subtree is evaluated). */
static int ref_eval(const ttree *t, int i, mpz_t *bind, mpz_ptr out)
{
    const tnode *n = &t->n[i];
    mpz_t a, b;
    int dz = 0, j;

    switch (n->op) {
    case OP_INT:
        mpz_set(out, t->val[i]);
        return 0;
    case OP_SYM:
        mpz_set(out, bind[n->sym]);
        return 0;
    case OP_TRUE:
        mpz_set_ui(out, 1);
        return 0;
    case OP_FALSE:
        mpz_set_ui(out, 0);
        return 0;
    default:
        break;
    }
    mpz_init(a);
    mpz_init(b);
    dz |= ref_eval(t, n->kid[0], bind, out);
    switch (n->op) {
    case OP_NEG:
        mpz_neg(out, out);
        break;
    case OP_POW:
        mpz_pow_ui(out, out, n->exp);
        break;
    case OP_NOT:
        mpz_set_ui(out, mpz_sgn(out) == 0);
        break;
    case OP_FLOORDIV:
    case OP_CEILDIV:
    case OP_MOD:
        dz |= ref_eval(t, n->kid[1], bind, b);
        if (mpz_sgn(b) == 0)
            dz = 1;
        else if (n->op == OP_FLOORDIV)
            mpz_fdiv_q(out, out, b);
        else if (n->op == OP_CEILDIV)
            mpz_cdiv_q(out, out, b);
        else
            mpz_fdiv_r(out, out, b);
        break;
    case OP_EQ: case OP_NE: case OP_LT: case OP_LE: case OP_GT: case OP_GE: {
        int c;
        dz |= ref_eval(t, n->kid[1], bind, b);
        c = mpz_cmp(out, b);
        c = n->op == OP_EQ ? c == 0 : n->op == OP_NE ? c != 0
            : n->op == OP_LT ? c < 0 : n->op == OP_LE ? c <= 0
            : n->op == OP_GT ? c > 0 : c >= 0;
        mpz_set_ui(out, (unsigned long)c);
        break;
    }
    default: /* n-ary */
        for (j = 1; j < n->nkids; j++) {
            dz |= ref_eval(t, n->kid[j], bind, b);
            switch (n->op) {
            case OP_ADD: mpz_add(out, out, b); break;
            case OP_SUB: mpz_sub(out, out, b); break;
            case OP_MUL: mpz_mul(out, out, b); break;
            case OP_MIN: if (mpz_cmp(b, out) < 0) mpz_set(out, b); break;
            case OP_MAX: if (mpz_cmp(b, out) > 0) mpz_set(out, b); break;
            case OP_AND: mpz_set_ui(out, mpz_sgn(out) && mpz_sgn(b)); break;
            case OP_OR: mpz_set_ui(out, mpz_sgn(out) || mpz_sgn(b)); break;
            default: ck_abort_msg("bad op %d", n->op);
            }
        }
        break;
    }
    mpz_clear(a);
    mpz_clear(b);
    return dz;
}

/* ---- building the interned expression through the constructors -------- */

static sc_expr *build(sc_ctx *ctx, const ttree *t, int i)
{
    const tnode *n = &t->n[i];
    sc_expr *k[3] = {NULL, NULL, NULL};
    int j;
    unsigned v = n->variant;

    for (j = 0; j < n->nkids; j++)
        k[j] = build(ctx, t, n->kid[j]);
    switch (n->op) {
    case OP_INT:
        if (mpz_fits_slong_p(t->val[i]) && (v & 1))
            return sc_expr_int_si(ctx, mpz_get_si(t->val[i]));
        if (v & 2) {
            char *s = mpz_get_str(NULL, 10, t->val[i]);
            sc_expr *e = sc_expr_int_str(ctx, s);
            free(s);
            return e;
        }
        return sc_expr_int_mpz(ctx, t->val[i]);
    case OP_SYM:
        return (v & 1) ? sc_ctx_symbol(ctx, (size_t)n->sym)
                       : sc_expr_symbol(ctx, prop_names[n->sym]);
    case OP_TRUE:
        return (v & 1) ? sc_expr_true(ctx) : sc_expr_bool(ctx, true);
    case OP_FALSE:
        return (v & 1) ? sc_expr_false(ctx) : sc_expr_bool(ctx, false);
    case OP_ADD:
        if (n->nkids == 3)
            return sc_expr_add_n(ctx, 3, k);
        if ((v & 1) && t->n[n->kid[1]].op == OP_INT &&
            mpz_fits_slong_p(t->val[n->kid[1]]))
            return sc_expr_add_si(ctx, k[0], mpz_get_si(t->val[n->kid[1]]));
        return sc_expr_add(ctx, k[0], k[1]);
    case OP_SUB:
        return sc_expr_sub(ctx, k[0], k[1]);
    case OP_MUL:
        if (n->nkids == 3)
            return sc_expr_mul_n(ctx, 3, k);
        if ((v & 1) && t->n[n->kid[1]].op == OP_INT &&
            mpz_fits_slong_p(t->val[n->kid[1]]))
            return sc_expr_mul_si(ctx, k[0], mpz_get_si(t->val[n->kid[1]]));
        return sc_expr_mul(ctx, k[0], k[1]);
    case OP_NEG:
        return sc_expr_neg(ctx, k[0]);
    case OP_POW:
        return sc_expr_pow(ctx, k[0], n->exp);
    case OP_FLOORDIV:
        return sc_expr_floordiv(ctx, k[0], k[1]);
    case OP_CEILDIV:
        return sc_expr_ceildiv(ctx, k[0], k[1]);
    case OP_MOD:
        return sc_expr_mod(ctx, k[0], k[1]);
    case OP_MIN:
        return n->nkids == 3 ? sc_expr_min_n(ctx, 3, k)
                             : sc_expr_min(ctx, k[0], k[1]);
    case OP_MAX:
        return n->nkids == 3 ? sc_expr_max_n(ctx, 3, k)
                             : sc_expr_max(ctx, k[0], k[1]);
    case OP_EQ: return sc_expr_eq(ctx, k[0], k[1]);
    case OP_NE: return sc_expr_ne(ctx, k[0], k[1]);
    case OP_LT: return sc_expr_lt(ctx, k[0], k[1]);
    case OP_LE: return sc_expr_le(ctx, k[0], k[1]);
    case OP_GT: return sc_expr_gt(ctx, k[0], k[1]);
    case OP_GE: return sc_expr_ge(ctx, k[0], k[1]);
    case OP_AND:
        return n->nkids == 3 ? sc_expr_and_n(ctx, 3, k)
                             : sc_expr_and(ctx, k[0], k[1]);
    case OP_OR:
        return n->nkids == 3 ? sc_expr_or_n(ctx, 3, k)
                             : sc_expr_or(ctx, k[0], k[1]);
    case OP_NOT:
        return sc_expr_not(ctx, k[0]);
    }
    ck_abort_msg("bad op %d", n->op);
    return NULL;
}

/* ---- the test's own printer: fully parenthesized, mixed spellings ------ */

typedef struct sbuf {
    char *p;
    size_t len, cap;
} sbuf;

static void sb_put(sbuf *b, const char *s)
{
    size_t n = strlen(s);
    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2;
        b->p = realloc(b->p, b->cap);
        REQUIRE(b->p != NULL);
    }
    memcpy(b->p + b->len, s, n + 1);
    b->len += n;
}

static void tree_text_rec(sbuf *b, const ttree *t, int i)
{
    const tnode *n = &t->n[i];
    unsigned v = n->variant >> 4;
    static const char *const infix_rel[] = {"==", "!=", "<", "<=", ">", ">="};
    static const char *const fn_rel[] = {"Eq", "Ne", "Lt", "Le", "Gt", "Ge"};
    char tmp[32];
    int j;

    switch (n->op) {
    case OP_INT: {
        char *s = mpz_get_str(NULL, 10, t->val[i]);
        if (mpz_sgn(t->val[i]) < 0) {
            sb_put(b, "(");
            sb_put(b, s);
            sb_put(b, ")");
        } else {
            sb_put(b, s);
        }
        free(s);
        return;
    }
    case OP_SYM: sb_put(b, prop_names[n->sym]); return;
    case OP_TRUE: sb_put(b, "True"); return;
    case OP_FALSE: sb_put(b, "False"); return;
    case OP_NEG:
        sb_put(b, "(-");
        tree_text_rec(b, t, n->kid[0]);
        sb_put(b, ")");
        return;
    case OP_NOT:
        sb_put(b, (v & 1) ? "Not(" : "(not ");
        tree_text_rec(b, t, n->kid[0]);
        sb_put(b, ")");
        return;
    case OP_POW:
        snprintf(tmp, sizeof tmp, "%u", n->exp);
        if (v & 1) {
            sb_put(b, "Pow(");
            tree_text_rec(b, t, n->kid[0]);
            sb_put(b, ", ");
            sb_put(b, tmp);
            sb_put(b, ")");
        } else {
            sb_put(b, "((");
            tree_text_rec(b, t, n->kid[0]);
            sb_put(b, ")**");
            sb_put(b, tmp);
            sb_put(b, ")");
        }
        return;
    default:
        break;
    }
    {
        const char *fn = NULL, *infix = NULL;
        switch (n->op) {
        case OP_ADD: infix = " + "; break;
        case OP_SUB: infix = " - "; break;
        case OP_MUL: infix = (v & 1) ? "*" : " * "; break;
        case OP_FLOORDIV:
            if (v & 1)
                infix = " // ";
            else
                fn = "FloorDiv";
            break;
        case OP_CEILDIV: fn = "CeilDiv"; break;
        case OP_MOD:
            if ((v & 3) == 0) infix = " % ";
            else fn = (v & 3) == 1 ? "PythonMod" : "Mod";
            break;
        case OP_MIN: fn = "Min"; break;
        case OP_MAX: fn = "Max"; break;
        case OP_AND: if (v & 1) infix = " and "; else fn = "And"; break;
        case OP_OR: if (v & 1) infix = " or "; else fn = "Or"; break;
        default: /* relations */
            if (v & 1) infix = infix_rel[n->op - OP_EQ];
            else fn = fn_rel[n->op - OP_EQ];
            if (infix) {
                snprintf(tmp, sizeof tmp, " %s ", infix);
                infix = tmp;
            }
            break;
        }
        sb_put(b, fn ? fn : "");
        sb_put(b, "(");
        for (j = 0; j < n->nkids; j++) {
            if (j)
                sb_put(b, fn ? ", " : infix);
            tree_text_rec(b, t, n->kid[j]);
        }
        sb_put(b, ")");
    }
}

/* The tree as text (malloc'ed). */
static char *tree_text(const ttree *t)
{
    sbuf b = {NULL, 0, 0};
    tree_text_rec(&b, t, t->root);
    return b.p;
}

/* ---- cases: tree, symbol bounds, bindings inside the bounds ------------ */

#define NBIND 4

typedef struct pcase {
    ttree tree;
    bool lo_inf[NSYM], hi_inf[NSYM];
    mpz_t lo[NSYM], hi[NSYM];
    mpz_t bind[NBIND][NSYM];
    int ref_dz[NBIND];  /* the reference divides by zero */
    mpz_t ref[NBIND];   /* else its value */
} pcase;

static void pcase_init(pcase *c)
{
    int s, k;
    tree_init(&c->tree);
    for (s = 0; s < NSYM; s++) {
        mpz_init(c->lo[s]);
        mpz_init(c->hi[s]);
        for (k = 0; k < NBIND; k++)
            mpz_init(c->bind[k][s]);
    }
    for (k = 0; k < NBIND; k++)
        mpz_init(c->ref[k]);
}

static void pcase_clear(pcase *c)
{
    int s, k;
    tree_clear(&c->tree);
    for (s = 0; s < NSYM; s++) {
        mpz_clear(c->lo[s]);
        mpz_clear(c->hi[s]);
        for (k = 0; k < NBIND; k++)
            mpz_clear(c->bind[k][s]);
    }
    for (k = 0; k < NBIND; k++)
        mpz_clear(c->ref[k]);
}

/* An offset >= 0: mostly small, sometimes up to 2**40 or 2**70. */
static void gen_offset(gen *g, mpz_ptr v)
{
    uint64_t r = below(g, 100);
    if (r < 70) {
        mpz_set_ui(v, below(g, 21));
    } else if (r < 92) {
        mpz_set_ui(v, sc_test_rng_next(g->rng) >> 24);
    } else {
        mpz_set_ui(v, sc_test_rng_next(g->rng));
        mpz_mul_2exp(v, v, 6);
    }
}

static void gen_bounds_and_bindings(gen *g, pcase *c)
{
    int s, k;
    mpz_t off;

    mpz_init(off);
    for (s = 0; s < NSYM; s++) {
        uint64_t r = below(g, 100);
        c->lo_inf[s] = r < 25 || (r >= 40 && r < 50);
        c->hi_inf[s] = r < 40;
        if (g->c_safe) {
            int64_t lo = sc_test_rng_range(g->rng, -1000, 1000);
            int64_t hi = lo + sc_test_rng_range(g->rng, 0, 300);
            c->lo_inf[s] = c->hi_inf[s] = false;
            mpz_set_si(c->lo[s], lo);
            mpz_set_si(c->hi[s], hi > 1000 ? 1000 : hi);
            continue;
        }
        if (below(g, 10) == 0) {
            mpz_set_ui(c->lo[s], sc_test_rng_next(g->rng));
            mpz_mul_2exp(c->lo[s], c->lo[s], below(g, 20));
            if (below(g, 2))
                mpz_neg(c->lo[s], c->lo[s]);
        } else {
            mpz_set_si(c->lo[s], sc_test_rng_range(g->rng, -20, 20));
        }
        gen_offset(g, off);
        mpz_add(c->hi[s], c->lo[s], off);
        if (c->lo_inf[s] && !c->hi_inf[s])
            mpz_set(c->hi[s], c->lo[s]); /* (-inf, lo]: hi is lo */
    }
    for (k = 0; k < NBIND; k++)
        for (s = 0; s < NSYM; s++) {
            mpz_ptr v = c->bind[k][s];
            gen_offset(g, off);
            if (!c->lo_inf[s] && !c->hi_inf[s]) {
                mpz_t w;
                mpz_init(w);
                mpz_sub(w, c->hi[s], c->lo[s]);
                mpz_add_ui(w, w, 1);
                if (below(g, 3) == 0)
                    mpz_set(v, below(g, 2) ? c->lo[s] : c->hi[s]);
                else {
                    mpz_mod(off, off, w);
                    mpz_add(v, c->lo[s], off);
                }
                mpz_clear(w);
            } else if (!c->lo_inf[s]) {
                mpz_add(v, c->lo[s], off);
            } else if (!c->hi_inf[s]) {
                mpz_sub(v, c->hi[s], off);
            } else {
                mpz_set_si(v, sc_test_rng_range(g->rng, -10, 10));
                if (below(g, 4) == 0) {
                    mpz_set(v, off);
                    if (below(g, 2))
                        mpz_neg(v, v);
                }
            }
        }
    mpz_clear(off);
}

/* Draw case number `index` of a run: deterministic in (seed, index). */
static void gen_case(pcase *c, uint64_t seed, long index, bool c_safe,
                     bool allow_bool)
{
    sc_test_rng rng;
    gen g;
    int k;

    sc_test_rng_init(&rng, seed ^ (UINT64_C(0x9E3779B97F4A7C15) *
                                   (uint64_t)(index + 1)));
    g.rng = &rng;
    g.t = &c->tree;
    g.c_safe = c_safe;
    gen_tree(&g, allow_bool);
    gen_bounds_and_bindings(&g, c);
    for (k = 0; k < NBIND; k++)
        c->ref_dz[k] = ref_eval(&c->tree, c->tree.root, c->bind[k], c->ref[k]);
}

static void recompute_reference(pcase *c)
{
    int k;
    for (k = 0; k < NBIND; k++)
        c->ref_dz[k] = ref_eval(&c->tree, c->tree.root, c->bind[k], c->ref[k]);
}

static sc_bounds *case_bounds(sc_ctx *ctx, const pcase *c)
{
    sc_bounds *b = sc_bounds_new(ctx);
    sc_range r;
    sc_error err;
    int s;

    REQUIRE(b != NULL);
    sc_range_init(&r);
    for (s = 0; s < NSYM; s++) {
        if (c->lo_inf[s] && c->hi_inf[s] && (s & 1))
            continue; /* no entry: unbounded */
        r.lo_inf = c->lo_inf[s];
        r.hi_inf = c->hi_inf[s];
        mpz_set(r.lo, c->lo[s]);
        mpz_set(r.hi, c->hi[s]);
        sc_error_init(&err);
        REQUIRE_MSG(sc_bounds_set(b, sc_ctx_symbol(ctx, (size_t)s), &r,
                                    &err) == SC_OK,
                      "sc_bounds_set: %s", err.message);
    }
    sc_range_clear(&r);
    return b;
}

static void set_binding(sc_ctx *ctx, sc_symmap *map, const pcase *c, int k)
{
    sc_error err;
    int s;
    for (s = 0; s < NSYM; s++) {
        sc_expr *v = sc_expr_int_mpz(ctx, c->bind[k][s]);
        REQUIRE(v != NULL);
        REQUIRE(sc_symmap_set(map, sc_ctx_symbol(ctx, (size_t)s), v,
                                &err) == SC_OK);
    }
}

static void describe_binding(char *buf, size_t size, const pcase *c, int k)
{
    size_t len = 0;
    int s;
    buf[0] = '\0';
    for (s = 0; s < NSYM && len < size; s++) {
        char *v = mpz_get_str(NULL, 10, c->bind[k][s]);
        len += (size_t)snprintf(buf + len, size - len, "%s%s=%s", s ? "," : "",
                                prop_names[s], v);
        free(v);
    }
}

static void describe_bounds(char *buf, size_t size, const pcase *c)
{
    size_t len = 0;
    int s;
    buf[0] = '\0';
    for (s = 0; s < NSYM && len < size; s++) {
        char *lo = mpz_get_str(NULL, 10, c->lo[s]);
        char *hi = mpz_get_str(NULL, 10, c->hi[s]);
        len += (size_t)snprintf(buf + len, size - len, "%s%s=%s..%s",
                                s ? "," : "", prop_names[s],
                                c->lo_inf[s] ? "" : lo,
                                c->hi_inf[s] ? "" : hi);
        free(lo);
        free(hi);
    }
}

/* ---- the properties ---------------------------------------------------- */

enum {
    P_EVAL = 1,      /* sc_expr_eval (and eval_si, subst) == reference */
    P_RANGE = 2,     /* every value lies in sc_expr_range */
    P_ROUNDTRIP = 4, /* parse(print(e)) == e; parse(tree text) == e */
    P_SIMPLIFY = 8,  /* simplify(e, bounds) evaluates like e */
    P_PROG = 16,     /* sc_prog_eval == sc_expr_eval */
};

typedef struct pstats {
    long cases, built, construct_div_zero, compared, skipped_div_zero;
} pstats;

typedef struct penv {
    sc_ctx *ctx;  /* every case of a run is interned here */
    sc_ctx *ctx2; /* a second context, for cross-context checks */
    sc_symmap *map;
} penv;

static sc_ctx *prop_ctx_new(void)
{
    sc_ctx *ctx = sc_ctx_new();
    int s;
    REQUIRE(ctx != NULL);
    for (s = 0; s < NSYM; s++)
        REQUIRE(sc_expr_symbol(ctx, prop_names[s]) != NULL);
    return ctx;
}

static bool value_is_bool_result(const sc_expr *e)
{
    return sc_expr_node_kind(e) == SC_EXPR_TRUE ||
           sc_expr_node_kind(e) == SC_EXPR_FALSE;
}

/* Check properties `props` on case c.  Returns true if they hold; else
 * false with a description in msg. */
static bool check_case(penv *pe, pcase *c, int props, char *msg, size_t size,
                       pstats *st)
{
    sc_ctx *ctx = pe->ctx;
    sc_expr *e, *f;
    sc_status code;
    sc_error err;
    mpz_t v, w;
    char bind_s[600];
    char *printed = NULL, *tt = NULL, *s2 = NULL;
    sc_bounds *bounds = NULL;
    sc_prog *prog = NULL;
    sc_range r, r0;
    int k;
    bool ok = true;

#define FAIL(...)                                                            \
    do {                                                                     \
        snprintf(msg, size, __VA_ARGS__);                                    \
        ok = false;                                                          \
        goto done;                                                           \
    } while (0)

    mpz_init(v);
    mpz_init(w);
    sc_range_init(&r);
    sc_range_init(&r0);
    st->cases++;
    sc_ctx_take_error(ctx, NULL);
    e = build(ctx, &c->tree, c->tree.root);
    if (e == NULL) {
        code = sc_ctx_take_error(ctx, &err);
        if (code != SC_ERR_DIV_ZERO)
            FAIL("construction failed: %s (%s)", sc_status_name(code),
                 err.message);
        for (k = 0; k < NBIND; k++)
            if (!c->ref_dz[k]) {
                char *rv = mpz_get_str(NULL, 10, c->ref[k]);
                describe_binding(bind_s, sizeof bind_s, c, k);
                snprintf(msg, size, "constructors report a division by zero, "
                         "but the reference evaluates to %s at {%s}", rv,
                         bind_s);
                free(rv);
                ok = false;
                goto done;
            }
        st->construct_div_zero++;
        if (props & P_ROUNDTRIP) {
            tt = tree_text(&c->tree);
            sc_error_init(&err);
            code = sc_expr_parse(ctx, tt, NULL, 1, &f, &err);
            if (code != SC_ERR_DIV_ZERO)
                FAIL("constructors report a division by zero, parsing the "
                     "tree text gives %s (%s)", sc_status_name(code),
                     err.message);
        }
        goto done;
    }
    st->built++;
    if (c->tree.n[c->tree.root].op >= OP_EQ ||
        c->tree.n[c->tree.root].op == OP_TRUE ||
        c->tree.n[c->tree.root].op == OP_FALSE) {
        if (!sc_expr_is_bool(e))
            FAIL("a boolean tree gave a non-boolean expression");
    } else if (sc_expr_is_bool(e)) {
        FAIL("an integer tree gave a boolean expression");
    }

    if (props & P_ROUNDTRIP) {
        printed = sc_expr_to_str(ctx, e);
        if (!printed)
            FAIL("sc_expr_to_str failed");
        sc_error_init(&err);
        code = sc_expr_parse(ctx, printed, NULL, 1, &f, &err);
        if (code != SC_OK)
            FAIL("parsing the printed text \"%s\" fails: %s at %d:%d (%s)",
                 printed, sc_status_name(code), err.line, err.column,
                 err.message);
        if (f != e) {
            s2 = sc_expr_to_str(ctx, f);
            FAIL("parse(print(e)) != e: printed \"%s\", which parses to "
                 "\"%s\"", printed, s2 ? s2 : "?");
        }
        tt = tree_text(&c->tree);
        sc_error_init(&err);
        code = sc_expr_parse(ctx, tt, NULL, 1, &f, &err);
        if (code != SC_OK)
            FAIL("parsing the tree text fails: %s at %d:%d (%s)",
                 sc_status_name(code), err.line, err.column, err.message);
        if (f != e) {
            s2 = sc_expr_to_str(ctx, f);
            FAIL("parsing the tree text gives \"%s\", the constructors "
                 "give \"%s\"", s2 ? s2 : "?", printed);
        }
        sc_error_init(&err);
        code = sc_expr_parse(pe->ctx2, printed, NULL, 1, &f, &err);
        if (code != SC_OK)
            FAIL("parsing \"%s\" in a second context fails: %s", printed,
                 sc_status_name(code));
        s2 = sc_expr_to_str(pe->ctx2, f);
        if (!s2 || strcmp(s2, printed) != 0)
            FAIL("printed \"%s\", but \"%s\" in a second context", printed,
                 s2 ? s2 : "?");
        if (sc_expr_hash(f) != sc_expr_hash(e))
            FAIL("hash of \"%s\" differs across contexts", printed);
    }

    if (props & (P_RANGE | P_SIMPLIFY))
        bounds = case_bounds(ctx, c);

    if (props & P_RANGE) {
        sc_status st1, st0;
        sc_error_init(&err);
        st1 = sc_expr_range(ctx, e, bounds, &r, &err);
        sc_error_init(&err);
        st0 = sc_expr_range(ctx, e, NULL, &r0, &err);
        if (st0 != SC_OK)
            FAIL("sc_expr_range without bounds fails: %s (%s)",
                 sc_status_name(st0), err.message);
        if (sc_expr_is_bool(e)) {
            if (r0.lo_inf || r0.hi_inf || mpz_sgn(r0.lo) < 0 ||
                mpz_cmp_ui(r0.hi, 1) > 0)
                FAIL("range of a boolean is not within [0, 1]");
        }
        for (k = 0; k < NBIND; k++) {
            if (c->ref_dz[k])
                continue;
            describe_binding(bind_s, sizeof bind_s, c, k);
            if (st1 != SC_OK)
                FAIL("sc_expr_range fails: %s, but the value at {%s} exists",
                     sc_status_name(st1), bind_s);
            if (!sc_range_contains_mpz(&r, c->ref[k])) {
                char *rs = sc_range_to_str(&r), *vs = mpz_get_str(NULL, 10,
                                                                  c->ref[k]);
                char bs[600];
                describe_bounds(bs, sizeof bs, c);
                snprintf(msg, size, "value %s at {%s} is outside the range "
                         "%s computed for bounds {%s}", vs, bind_s, rs, bs);
                free(rs);
                free(vs);
                ok = false;
                goto done;
            }
            if (!sc_range_contains_mpz(&r0, c->ref[k])) {
                char *rs = sc_range_to_str(&r0), *vs = mpz_get_str(NULL, 10,
                                                                   c->ref[k]);
                snprintf(msg, size, "value %s at {%s} is outside the range "
                         "%s computed without bounds", vs, bind_s, rs);
                free(rs);
                free(vs);
                ok = false;
                goto done;
            }
            st->compared++;
        }
    }

    if (props & P_EVAL) {
        for (k = 0; k < NBIND; k++) {
            int64_t si = 0;
            if (c->ref_dz[k]) {
                st->skipped_div_zero++;
                continue;
            }
            describe_binding(bind_s, sizeof bind_s, c, k);
            set_binding(ctx, pe->map, c, k);
            sc_error_init(&err);
            code = sc_expr_eval(ctx, e, pe->map, v, &err);
            if (code != SC_OK)
                FAIL("sc_expr_eval at {%s} fails: %s (%s)", bind_s,
                     sc_status_name(code), err.message);
            if (mpz_cmp(v, c->ref[k]) != 0) {
                char *a = mpz_get_str(NULL, 10, v);
                char *b = mpz_get_str(NULL, 10, c->ref[k]);
                snprintf(msg, size, "sc_expr_eval at {%s} gives %s, the "
                         "reference %s", bind_s, a, b);
                free(a);
                free(b);
                ok = false;
                goto done;
            }
            sc_error_init(&err);
            code = sc_expr_eval_si(ctx, e, pe->map, &si, &err);
            if (mpz_fits_slong_p(v)) {
                if (code != SC_OK || si != mpz_get_si(v))
                    FAIL("sc_expr_eval_si at {%s}: %s, %" PRId64, bind_s,
                         sc_status_name(code), si);
            } else if (code != SC_ERR_OVERFLOW) {
                FAIL("sc_expr_eval_si at {%s} of a value beyond int64: %s",
                     bind_s, sc_status_name(code));
            }
            sc_ctx_take_error(ctx, NULL);
            f = sc_expr_subst(ctx, e, pe->map);
            if (!f)
                FAIL("sc_expr_subst of {%s} fails: %s", bind_s,
                     sc_status_name(sc_ctx_take_error(ctx, NULL)));
            if (sc_expr_is_int(f)) {
                sc_expr_value_mpz(f, w);
            } else if (value_is_bool_result(f)) {
                mpz_set_ui(w, sc_expr_node_kind(f) == SC_EXPR_TRUE);
            } else {
                s2 = sc_expr_to_str(ctx, f);
                FAIL("sc_expr_subst of {%s} is not a constant: \"%s\"",
                     bind_s, s2 ? s2 : "?");
            }
            if (mpz_cmp(w, v) != 0)
                FAIL("sc_expr_subst of {%s} differs from the value", bind_s);
            st->compared++;
        }
    }

    if (props & P_SIMPLIFY) {
        sc_expr *g[2];
        int m;
        for (m = 0; m < 2; m++) {
            sc_ctx_take_error(ctx, NULL);
            g[m] = sc_expr_simplify(ctx, e, m ? NULL : bounds);
            if (!g[m]) {
                code = sc_ctx_take_error(ctx, &err);
                for (k = 0; k < NBIND; k++)
                    if (!c->ref_dz[k])
                        FAIL("sc_expr_simplify (%s bounds) fails: %s (%s)",
                             m ? "without" : "with", sc_status_name(code),
                             err.message);
                continue;
            }
            if (sc_expr_is_bool(g[m]) != sc_expr_is_bool(e))
                FAIL("simplification changed the type");
            for (k = 0; k < NBIND; k++) {
                if (c->ref_dz[k])
                    continue;
                describe_binding(bind_s, sizeof bind_s, c, k);
                set_binding(ctx, pe->map, c, k);
                sc_error_init(&err);
                code = sc_expr_eval(ctx, g[m], pe->map, v, &err);
                if (code != SC_OK || mpz_cmp(v, c->ref[k]) != 0) {
                    char *a = code == SC_OK ? mpz_get_str(NULL, 10, v) : NULL;
                    char *b = mpz_get_str(NULL, 10, c->ref[k]);
                    s2 = sc_expr_to_str(ctx, g[m]);
                    snprintf(msg, size, "simplified %s bounds to \"%s\", "
                             "which at {%s} gives %s, the original %s",
                             m ? "without" : "with", s2 ? s2 : "?", bind_s,
                             a ? a : sc_status_name(code), b);
                    free(a);
                    free(b);
                    ok = false;
                    goto done;
                }
                st->compared++;
            }
        }
    }

    if (props & P_PROG) {
        int64_t in[NSYM], out = 0;
        size_t i, nin;
        sc_error_init(&err);
        code = sc_prog_new(ctx, 1, &e, &prog, &err);
        if (code != SC_OK)
            FAIL("sc_prog_new fails: %s (%s)", sc_status_name(code),
                 err.message);
        nin = sc_prog_input_count(prog);
        for (k = 0; k < NBIND; k++) {
            bool fits = true;
            if (c->ref_dz[k])
                continue;
            for (i = 0; i < nin; i++) {
                size_t s = sc_expr_symbol_index(sc_prog_input(prog, i));
                if (s >= NSYM)
                    FAIL("program input %zu is not a symbol of the case", i);
                if (!mpz_fits_slong_p(c->bind[k][s]))
                    fits = false;
                else
                    in[i] = mpz_get_si(c->bind[k][s]);
            }
            if (!fits)
                continue;
            describe_binding(bind_s, sizeof bind_s, c, k);
            sc_error_init(&err);
            code = sc_prog_eval(prog, in, &out, &err);
            if (mpz_fits_slong_p(c->ref[k])) {
                if (code != SC_OK || out != mpz_get_si(c->ref[k])) {
                    char *b = mpz_get_str(NULL, 10, c->ref[k]);
                    snprintf(msg, size, "sc_prog_eval at {%s}: %s, %" PRId64
                             "; sc_expr_eval gives %s", bind_s,
                             sc_status_name(code), out, b);
                    free(b);
                    ok = false;
                    goto done;
                }
            } else if (code != SC_ERR_OVERFLOW) {
                FAIL("sc_prog_eval at {%s} of a value beyond int64: %s",
                     bind_s, sc_status_name(code));
            }
            if (sc_expr_is_bool(e)) {
                size_t idx = 99;
                sc_error_init(&err);
                code = sc_prog_first_false(prog, in, &idx, &err);
                if (code != SC_OK ||
                    idx != (mpz_sgn(c->ref[k]) ? (size_t)1 : (size_t)0))
                    FAIL("sc_prog_first_false at {%s}: %s, %zu", bind_s,
                         sc_status_name(code), idx);
            }
            st->compared++;
        }
    }
#undef FAIL
done:
    if (prog)
        sc_prog_free(prog);
    sc_bounds_free(bounds);
    sc_range_clear(&r);
    sc_range_clear(&r0);
    free(printed);
    free(tt);
    free(s2);
    mpz_clear(v);
    mpz_clear(w);
    return ok;
}

/* ---- shrinking a failing case ------------------------------------------ */

static void mark_reachable(const ttree *t, int i, bool *seen)
{
    int j;
    seen[i] = true;
    for (j = 0; j < t->n[i].nkids; j++)
        mark_reachable(t, t->n[i].kid[j], seen);
}

/* Apply candidate `cand` to node i; false if it does not apply. */
static bool shrink_step(ttree *t, int i, int cand)
{
    tnode *n = &t->n[i];
    bool is_bool = op_is_bool(n->op);

    if (cand < 3) {
        int kid;
        if (cand >= n->nkids)
            return false;
        kid = n->kid[cand];
        if (op_is_bool(t->n[kid].op) != is_bool)
            return false;
        t->n[i] = t->n[kid];
        mpz_set(t->val[i], t->val[kid]);
        return true;
    }
    if (cand == 3 && !is_bool &&
        !(n->op == OP_INT && mpz_cmpabs_ui(t->val[i], 1) <= 0)) {
        n->op = OP_INT;
        n->nkids = 0;
        mpz_set_ui(t->val[i], 1);
        return true;
    }
    if (cand == 4 && !is_bool && n->op != OP_SYM && n->op != OP_INT) {
        n->op = OP_SYM;
        n->nkids = 0;
        n->sym = 0;
        return true;
    }
    if (cand == 5 && is_bool && n->op != OP_TRUE && n->op != OP_FALSE) {
        n->op = OP_TRUE;
        n->nkids = 0;
        return true;
    }
    if (cand == 6 && n->op == OP_INT && mpz_cmpabs_ui(t->val[i], 1) > 0) {
        mpz_tdiv_q_2exp(t->val[i], t->val[i], 1);
        return true;
    }
    if (cand == 7 && n->op == OP_POW && n->exp > 1) {
        n->exp--;
        return true;
    }
    return false;
}

/* Shrink c while it still fails; msg gets the last failure. */
static void shrink_case(penv *pe, pcase *c, int props, char *msg, size_t size)
{
    ttree *save = malloc(sizeof *save);
    bool seen[TREE_MAX];
    bool progress = true;
    int attempts = 0, i, cand;
    pstats st;
    char *m2 = malloc(size);

    REQUIRE(save != NULL && m2 != NULL);
    tree_init(save);
    while (progress && attempts < 600) {
        progress = false;
        memset(seen, 0, sizeof seen);
        mark_reachable(&c->tree, c->tree.root, seen);
        for (i = 0; i < c->tree.count && !progress; i++) {
            if (!seen[i])
                continue;
            for (cand = 0; cand < 8 && !progress; cand++) {
                tree_copy(save, &c->tree);
                if (!shrink_step(&c->tree, i, cand))
                    continue;
                recompute_reference(c);
                attempts++;
                memset(&st, 0, sizeof st);
                if (!check_case(pe, c, props, m2, size, &st)) {
                    progress = true;
                    memcpy(msg, m2, size);
                } else {
                    tree_copy(&c->tree, save);
                    recompute_reference(c);
                }
            }
        }
    }
    tree_clear(save);
    free(save);
    free(m2);
}

static const char *prop_name(int props)
{
    switch (props) {
    case P_EVAL: return "eval == reference";
    case P_RANGE: return "value in range";
    case P_ROUNDTRIP: return "parse(print(e)) == e";
    case P_SIMPLIFY: return "simplify preserves values";
    case P_PROG: return "sc_prog_eval == sc_expr_eval";
    }
    return "?";
}

#define PROP_DEFAULT_CASES 10000L

static void run_property(int props)
{
    uint64_t seed = sc_test_seed();
    long n = sc_test_cases(PROP_DEFAULT_CASES), i;
    pcase *c = malloc(sizeof *c);
    penv pe;
    pstats st;
    char msg[4096];

    struct timespec t0, t1;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    REQUIRE(c != NULL);
    memset(&st, 0, sizeof st);
    pcase_init(c);
    pe.ctx = prop_ctx_new();
    pe.ctx2 = prop_ctx_new();
    pe.map = sc_symmap_new(pe.ctx);
    REQUIRE(pe.map != NULL);
    for (i = 0; i < n; i++) {
        gen_case(c, seed, i, false, true);
        if (!check_case(&pe, c, props, msg, sizeof msg, &st)) {
            char *orig = tree_text(&c->tree), *shrunk;
            char bs[600], first[4096];
            static char report[16384];
            sc_expr *e;
            char *canon = NULL;

            memcpy(first, msg, sizeof first);
            describe_bounds(bs, sizeof bs, c);
            sc_ctx_take_error(pe.ctx, NULL);
            e = build(pe.ctx, &c->tree, c->tree.root);
            if (e)
                canon = sc_expr_to_str(pe.ctx, e);
            shrink_case(&pe, c, props, msg, sizeof msg);
            shrunk = tree_text(&c->tree);
            snprintf(report, sizeof report,
                     "property \"%s\" failed at case %ld with SYMCUT_SEED=%"
                     PRIu64 "\n  failure: %s\n  tree: %s\n  canonical: %s\n"
                     "  bounds: {%s}\n  shrunk tree: %s\n  shrunk failure: %s",
                     prop_name(props), i, seed, first, orig,
                     canon ? canon : "(construction failed)", bs, shrunk, msg);
            fprintf(stderr, "%s\n", report);
            free(orig);
            free(shrunk);
            free(canon);
            ck_abort_msg("%s", report);
        }
    }
    /* the property was exercised, not skipped */
    REQUIRE_MSG(st.built >= n / 2, "only %ld of %ld cases built", st.built,
                  n);
    if (props != P_ROUNDTRIP)
        REQUIRE_MSG(st.compared >= n, "only %ld comparisons in %ld cases",
                      st.compared, n);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("symint property \"%s\": %ld cases, %ld built, %ld with a "
           "constant zero divisor, %ld value comparisons, %.2f s\n",
           prop_name(props), n, st.built, st.construct_div_zero, st.compared,
           (double)(t1.tv_sec - t0.tv_sec) +
               (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
    fflush(stdout);
    sc_symmap_free(pe.map);
    sc_ctx_free(pe.ctx);
    sc_ctx_free(pe.ctx2);
    pcase_clear(c);
    free(c);
}

START_TEST(test_property_eval_matches_reference) { run_property(P_EVAL); }
END_TEST
START_TEST(test_property_value_in_range) { run_property(P_RANGE); }
END_TEST
START_TEST(test_property_print_parse_roundtrip) { run_property(P_ROUNDTRIP); }
END_TEST
START_TEST(test_property_simplify_preserves_value)
{
    run_property(P_SIMPLIFY);
}
END_TEST
START_TEST(test_property_prog_matches_eval) { run_property(P_PROG); }
END_TEST

/* ======================================================================
 * The C printer: generated code compiled with the system compiler
 * ====================================================================== */

#define C_EXPRS 400

static bool have_c_compiler(void)
{
    return system("cc --version >/dev/null 2>&1") == 0;
}

static void remove_dir(const char *dir)
{
    static const char *const files[] = {"gen.c", "prog", "cc.log"};
    char path[1024];
    size_t i;
    for (i = 0; i < ARRAY_SIZE(files); i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    rmdir(dir);
}

START_TEST(test_c_printer_compiles_and_agrees_with_eval)
{
    uint64_t seed = sc_test_seed();
    sc_ctx *ctx = prop_ctx_new();
    sc_symmap *map = sc_symmap_new(ctx);
    pcase *c = malloc(sizeof *c);
    const char *tmp = getenv("TMPDIR");
    char dir[512], path[1024], cmd[3200], line[256];
    char **texts = calloc(C_EXPRS, sizeof *texts);
    int64_t(*vec)[1 + NSYM] = calloc(C_EXPRS * NBIND, sizeof *vec);
    int64_t *want = calloc(C_EXPRS * NBIND, sizeof *want);
    int *vec_case = calloc(C_EXPRS * NBIND, sizeof *vec_case);
    size_t nvec = 0, nfn = 0, i, rejected = 0;
    long index;
    FILE *f, *p;
    mpz_t v;
    sc_error err;
    const char *prelude = sc_expr_c_prelude();

    REQUIRE(c && texts && vec && want && vec_case && map);
    REQUIRE_MSG(prelude != NULL && prelude[0] != '\0', "empty C prelude");
    if (!have_c_compiler()) {
        printf("symint NOTE: *** no C compiler (cc) found: the C printer "
               "test is SKIPPED ***\n");
        fflush(stdout);
        free(c);
        free(texts);
        free(vec);
        free(want);
        free(vec_case);
        sc_symmap_free(map);
        sc_ctx_free(ctx);
        return;
    }
    mpz_init(v);
    pcase_init(c);
    for (index = 0; nfn < C_EXPRS && index < 20 * C_EXPRS; index++) {
        sc_expr *e;
        sc_bounds *b;
        char *text = NULL;
        int k;
        sc_status st;

        gen_case(c, seed ^ UINT64_C(0xC0DE), index, true, true);
        sc_ctx_take_error(ctx, NULL);
        e = build(ctx, &c->tree, c->tree.root);
        REQUIRE_MSG(e != NULL, "C-safe tree failed to build: %s",
                      sc_ctx_error(ctx)->message);
        b = case_bounds(ctx, c);
        sc_error_init(&err);
        st = sc_expr_to_c(ctx, e, b, &text, &err);
        sc_bounds_free(b);
        if (st == SC_ERR_OVERFLOW) {
            rejected++;
            continue;
        }
        {
            char *pr = sc_expr_to_str(ctx, e);
            REQUIRE_MSG(st == SC_OK && text != NULL,
                          "sc_expr_to_c(\"%s\") fails: %s (%s)", pr,
                          sc_status_name(st), err.message);
            free(pr);
        }
        for (k = 0; k < NBIND; k++) {
            int s;
            set_binding(ctx, map, c, k);
            sc_error_init(&err);
            st = sc_expr_eval(ctx, e, map, v, &err);
            REQUIRE_MSG(st == SC_OK, "eval of a C-safe expression fails: %s",
                          err.message);
            REQUIRE_MSG(!c->ref_dz[k] && mpz_cmp(v, c->ref[k]) == 0,
                          "eval differs from the reference");
            REQUIRE_MSG(mpz_fits_slong_p(v),
                          "sc_expr_to_c accepted \"%s\" under its bounds, but "
                          "a value inside them does not fit int64", text);
            vec[nvec][0] = (int64_t)nfn;
            for (s = 0; s < NSYM; s++)
                vec[nvec][1 + s] = mpz_get_si(c->bind[k][s]);
            want[nvec] = mpz_get_si(v);
            vec_case[nvec] = (int)index;
            nvec++;
        }
        texts[nfn++] = text;
    }
    REQUIRE_MSG(nfn >= C_EXPRS / 2,
                  "sc_expr_to_c accepted only %zu expressions (%zu rejected)",
                  nfn, rejected);

    snprintf(dir, sizeof dir, "%s/symcut-ctest-XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    REQUIRE_MSG(mkdtemp(dir) != NULL, "mkdtemp: %s", strerror(errno));
    snprintf(path, sizeof path, "%s/gen.c", dir);
    f = fopen(path, "w");
    REQUIRE(f != NULL);
    fprintf(f, "#include <stdint.h>\n#include <stdio.h>\n"
               "#include <inttypes.h>\n%s\n", prelude);
    for (i = 0; i < nfn; i++)
        fprintf(f, "static int64_t f%zu(int64_t s0, int64_t s1, int64_t s2, "
                   "int64_t s3)\n{\n    (void)s0; (void)s1; (void)s2; "
                   "(void)s3;\n    return (int64_t)(%s);\n}\n",
                i, texts[i]);
    fprintf(f, "typedef int64_t (*fn_t)(int64_t, int64_t, int64_t, "
               "int64_t);\nstatic const fn_t fns[] = {\n");
    for (i = 0; i < nfn; i++)
        fprintf(f, "    f%zu,\n", i);
    fprintf(f, "};\nstatic const int64_t vec[][5] = {\n");
    for (i = 0; i < nvec; i++)
        fprintf(f, "    {%" PRId64 ", %" PRId64 "LL, %" PRId64 "LL, %" PRId64
                   "LL, %" PRId64 "LL},\n",
                vec[i][0], vec[i][1], vec[i][2], vec[i][3], vec[i][4]);
    fprintf(f, "};\nint main(void)\n{\n    size_t i;\n"
               "    for (i = 0; i < sizeof vec / sizeof vec[0]; i++)\n"
               "        printf(\"%%\" PRId64 \"\\n\", "
               "fns[vec[i][0]](vec[i][1], vec[i][2], vec[i][3], "
               "vec[i][4]));\n    return 0;\n}\n");
    REQUIRE(fclose(f) == 0);

    snprintf(cmd, sizeof cmd, "cc -O0 -o '%s/prog' '%s' >'%s/cc.log' 2>&1",
             dir, path, dir);
    if (system(cmd) != 0) {
        char log[3000] = "";
        size_t n;
        snprintf(path, sizeof path, "%s/cc.log", dir);
        f = fopen(path, "r");
        n = f ? fread(log, 1, sizeof log - 1, f) : 0;
        log[n] = '\0';
        if (f)
            fclose(f);
        remove_dir(dir);
        ck_abort_msg("the generated C does not compile:\n%s", log);
    }
    snprintf(cmd, sizeof cmd, "'%s/prog'", dir);
    p = popen(cmd, "r");
    REQUIRE(p != NULL);
    for (i = 0; i < nvec; i++) {
        int64_t got;
        if (!fgets(line, sizeof line, p))
            break;
        got = strtoll(line, NULL, 10);
        if (got != want[i]) {
            size_t fi = (size_t)vec[i][0];
            pclose(p);
            remove_dir(dir);
            ck_abort_msg("C code \"%s\" at s0=%" PRId64 " s1=%" PRId64
                         " s2=%" PRId64 " s3=%" PRId64 " gives %" PRId64
                         ", sc_expr_eval %" PRId64 " (SYMCUT_SEED=%" PRIu64
                         ", C case %d)",
                         texts[fi], vec[i][1], vec[i][2], vec[i][3],
                         vec[i][4], got, want[i], seed, vec_case[i]);
        }
    }
    REQUIRE_MSG(pclose(p) == 0 && i == nvec,
                  "the generated program failed after %zu of %zu results", i,
                  nvec);
    remove_dir(dir);
    printf("symint C printer: %zu expressions compiled (%zu rejected for "
           "possible overflow), %zu evaluations agree\n",
           nfn, rejected, nvec);
    fflush(stdout);
    for (i = 0; i < nfn; i++)
        free(texts[i]);
    free(texts);
    free(vec);
    free(want);
    free(vec_case);
    pcase_clear(c);
    free(c);
    mpz_clear(v);
    sc_symmap_free(map);
    sc_ctx_free(ctx);
}
END_TEST

START_TEST(test_c_printer_overflow_rule)
{
    sc_ctx *ctx = ctx_with_symbols();
    sc_bounds *b =
        bounds_from_text(ctx, "s0=0..4611686018427387904,s1=0..100");
    char *text = NULL;
    sc_error err;

    sc_error_init(&err);
    ck_assert_int_eq(sc_expr_to_c(ctx, parse_ok(ctx, "s0*s0"), b, &text, &err),
                     SC_ERR_OVERFLOW);
    ck_assert_int_eq(err.code, SC_ERR_OVERFLOW);
    sc_error_init(&err);
    ck_assert_int_eq(sc_expr_to_c(ctx, parse_ok(ctx, "s0 + s0 + s0"), b,
                                  &text, &err),
                     SC_ERR_OVERFLOW);
    sc_error_init(&err);
    ck_assert_int_eq(sc_expr_to_c(ctx, parse_ok(ctx, "s1*s1 + s0//8"), b,
                                  &text, &err),
                     SC_OK);
    ck_assert_ptr_nonnull(text);
    ck_assert_msg(strstr(text, "s0") && strstr(text, "s1"),
                  "C text \"%s\" does not use the symbols", text);
    free(text);
    text = NULL;
    /* a constant beyond int64 cannot be printed as C */
    sc_error_init(&err);
    ck_assert_int_ne(sc_expr_to_c(ctx, parse_ok(ctx, "s1 + 2**70"), NULL,
                                  &text, &err),
                     SC_OK);
    free(text);
    text = NULL;
    /* no bounds: the caller vouches */
    sc_error_init(&err);
    ck_assert_int_eq(sc_expr_to_c(ctx, parse_ok(ctx, "s0*s0"), NULL, &text,
                                  &err),
                     SC_OK);
    free(text);
    sc_bounds_free(b);
    sc_ctx_free(ctx);
}
END_TEST

/* ======================================================================
 * Contexts in threads: no global mutable state
 * ====================================================================== */

#define THREADS 4
#define THREAD_CASES 1500

typedef struct thread_job {
    uint64_t seed;
    uint64_t digest; /* of every printed form and value */
    int failed;
} thread_job;

static uint64_t digest_str(uint64_t h, const char *s)
{
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * UINT64_C(0x100000001b3);
    return h;
}

/* Build, print, parse back and evaluate THREAD_CASES random trees in a
 * context of this thread's own; no Check assertions off the main thread. */
static void *thread_main(void *arg)
{
    thread_job *job = arg;
    sc_ctx *ctx = sc_ctx_new();
    sc_symmap *map;
    pcase *c = malloc(sizeof *c);
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    mpz_t v;
    long i;
    int s;

    if (!ctx || !c) {
        job->failed = 1;
        free(c);
        sc_ctx_free(ctx);
        return NULL;
    }
    for (s = 0; s < NSYM; s++)
        sc_expr_symbol(ctx, prop_names[s]);
    map = sc_symmap_new(ctx);
    mpz_init(v);
    pcase_init(c);
    for (i = 0; i < THREAD_CASES && !job->failed; i++) {
        sc_expr *e, *back = NULL;
        sc_error err;
        char *text, *vs;
        int k;

        gen_case(c, job->seed, i, false, true);
        e = build(ctx, &c->tree, c->tree.root);
        if (!e) {
            sc_ctx_take_error(ctx, NULL);
            h = digest_str(h, "(div zero)");
            continue;
        }
        text = sc_expr_to_str(ctx, e);
        if (!text || sc_expr_parse(ctx, text, NULL, 1, &back, &err) != SC_OK ||
            back != e)
            job->failed = 1;
        h = digest_str(h, text ? text : "");
        free(text);
        for (k = 0; k < NBIND; k++) {
            for (s = 0; s < NSYM; s++)
                sc_symmap_set(map, sc_ctx_symbol(ctx, (size_t)s),
                              sc_expr_int_mpz(ctx, c->bind[k][s]), &err);
            if (sc_expr_eval(ctx, e, map, v, &err) != SC_OK) {
                h = digest_str(h, sc_status_name(err.code));
                continue;
            }
            vs = mpz_get_str(NULL, 10, v);
            h = digest_str(h, vs);
            free(vs);
        }
    }
    job->digest = h;
    pcase_clear(c);
    free(c);
    mpz_clear(v);
    sc_symmap_free(map);
    sc_ctx_free(ctx);
    return NULL;
}

START_TEST(test_contexts_in_threads_do_not_interfere)
{
    uint64_t seed = sc_test_seed();
    thread_job solo, jobs[THREADS];
    pthread_t tid[THREADS];
    int i;

    memset(&solo, 0, sizeof solo);
    solo.seed = seed;
    thread_main(&solo);
    ck_assert_msg(!solo.failed, "the single-threaded run failed");
    for (i = 0; i < THREADS; i++) {
        memset(&jobs[i], 0, sizeof jobs[i]);
        jobs[i].seed = seed;
        ck_assert_int_eq(pthread_create(&tid[i], NULL, thread_main, &jobs[i]),
                         0);
    }
    for (i = 0; i < THREADS; i++)
        ck_assert_int_eq(pthread_join(tid[i], NULL), 0);
    for (i = 0; i < THREADS; i++) {
        ck_assert_msg(!jobs[i].failed, "thread %d failed", i);
        ck_assert_msg(jobs[i].digest == solo.digest,
                      "thread %d printed or evaluated differently from the "
                      "single-threaded run (SYMCUT_SEED=%" PRIu64 ")",
                      i, seed);
    }
}
END_TEST

/* ---- The context's caches (ranges, operations) -------------------------- */

/* The range of e under b is exactly [lo, hi]. */
static void expect_range(sc_ctx *ctx, sc_expr *e, const sc_bounds *b,
                         long lo, long hi, const char *what)
{
    sc_range r;
    sc_error err;
    sc_range_init(&r);
    ck_assert_int_eq(sc_expr_range(ctx, e, b, &r, &err), SC_OK);
    ck_assert_msg(!r.lo_inf && !r.hi_inf && mpz_cmp_si(r.lo, lo) == 0 &&
                      mpz_cmp_si(r.hi, hi) == 0,
                  "%s: range is not [%ld, %ld]", what, lo, hi);
    sc_range_clear(&r);
}

/* sc_expr_range / sc_expr_simplify keep one range workspace between calls:
 * every change of the bounds, another bounds object, a copy, and bounds
 * freed and made anew must all be seen. */
START_TEST(test_range_cache_follows_bounds)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_expr *x = sym(ctx, "x"), *q, *m;
    sc_bounds *b = sc_bounds_new(ctx), *b2, *b3 = sc_bounds_new(ctx);
    sc_range r;
    sc_error err;

    q = parse_ok(ctx, "x // 8");
    m = parse_ok(ctx, "Mod(x, 8)");
    ck_assert_int_eq(sc_bounds_set_si(b, x, false, 0, false, 7, &err), SC_OK);
    expect_range(ctx, q, b, 0, 0, "x in [0, 7]");
    ck_assert_ptr_eq(sc_expr_simplify(ctx, q, b), sc_expr_int_si(ctx, 0));
    ck_assert_ptr_eq(sc_expr_simplify(ctx, m, b), x);
    /* The same bounds object, changed. */
    ck_assert_int_eq(sc_bounds_set_si(b, x, false, 0, false, 15, &err),
                     SC_OK);
    expect_range(ctx, q, b, 0, 1, "x in [0, 15]");
    ck_assert_ptr_eq(sc_expr_simplify(ctx, q, b), q);
    ck_assert_ptr_eq(sc_expr_simplify(ctx, m, b), m);
    /* No bounds, then the bounds again. */
    sc_range_init(&r);
    ck_assert_int_eq(sc_expr_range(ctx, q, NULL, &r, &err), SC_OK);
    ck_assert(r.lo_inf && r.hi_inf);
    sc_range_clear(&r);
    expect_range(ctx, q, b, 0, 1, "x in [0, 15] again");
    /* A copy, then the original changed: the copy keeps its ranges. */
    ck_assert_int_eq(sc_bounds_copy(b3, b, &err), SC_OK);
    ck_assert_int_eq(sc_bounds_set_si(b, x, false, 16, false, 23, &err),
                     SC_OK);
    expect_range(ctx, q, b, 2, 2, "x in [16, 23]");
    expect_range(ctx, q, b3, 0, 1, "the copy");
    ck_assert_int_eq(sc_bounds_set(b, x, NULL, &err), SC_OK);
    sc_range_init(&r);
    ck_assert_int_eq(sc_expr_range(ctx, q, b, &r, &err), SC_OK);
    ck_assert(r.lo_inf && r.hi_inf);
    sc_range_clear(&r);
    /* Bounds freed and made anew (possibly at the same address). */
    sc_bounds_free(b);
    b2 = sc_bounds_new(ctx);
    ck_assert_int_eq(sc_bounds_set_si(b2, x, false, 8, false, 15, &err),
                     SC_OK);
    expect_range(ctx, q, b2, 1, 1, "new bounds");
    ck_assert_ptr_eq(sc_expr_simplify(ctx, q, b2), sc_expr_int_si(ctx, 1));
    sc_bounds_free(b2);
    sc_bounds_free(b3);
    sc_ctx_free(ctx);
}
END_TEST

/* The operation cache returns what the constructor builds: it follows the
 * expand limit, and failures are not remembered. */
START_TEST(test_operation_cache)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_expr *a = sym(ctx, "a"), *b = sym(ctx, "b"), *c = sym(ctx, "c");
    sc_expr *ab = sc_expr_add(ctx, a, b), *ac = sc_expr_add(ctx, a, c);
    sc_expr *e1, *e2, *e3;
    sc_error err;
    int i;

    e1 = sc_expr_mul(ctx, ab, ac);
    ck_assert_int_eq(sc_expr_node_kind(e1), SC_EXPR_ADD); /* expanded */
    ck_assert_ptr_eq(sc_expr_mul(ctx, ab, ac), e1);
    sc_ctx_set_expand_limit(ctx, 1);
    e2 = sc_expr_mul(ctx, ab, ac);
    ck_assert_ptr_null(e2); /* too large to expand: not remembered */
    ck_assert_int_eq(sc_ctx_take_error(ctx, &err), SC_ERR_LIMIT);
    sc_ctx_set_expand_limit(ctx, 1024);
    ck_assert_ptr_eq(sc_expr_mul(ctx, ab, ac), e1);
    /* The same for the n-ary product (2 and 3 factors are cached). */
    {
        sc_expr *f[3] = {ab, ac, a}, *p1, *p2;
        p1 = sc_expr_mul_n(ctx, 3, f);
        ck_assert_int_eq(sc_expr_node_kind(p1), SC_EXPR_ADD);
        ck_assert_ptr_eq(sc_expr_mul_n(ctx, 3, f), p1);
        ck_assert_ptr_eq(sc_expr_mul_n(ctx, 2, f), e1);
        sc_ctx_set_expand_limit(ctx, 1);
        p2 = sc_expr_mul_n(ctx, 3, f);
        ck_assert_ptr_null(p2);
        ck_assert_int_eq(sc_ctx_take_error(ctx, &err), SC_ERR_LIMIT);
        ck_assert_ptr_null(sc_expr_mul_n(ctx, 2, f));
        ck_assert_int_eq(sc_ctx_take_error(ctx, &err), SC_ERR_LIMIT);
        sc_ctx_set_expand_limit(ctx, 1024);
        ck_assert_ptr_eq(sc_expr_mul_n(ctx, 3, f), p1);
        /* Min of 2 and 3 arguments: the binary and n-ary calls agree. */
        ck_assert_ptr_eq(sc_expr_min_n(ctx, 2, f), sc_expr_min(ctx, ab, ac));
        ck_assert_ptr_eq(sc_expr_max_n(ctx, 3, f),
                         sc_expr_max(ctx, sc_expr_max(ctx, ab, ac), a));
    }
    /* Failures: reported every time. */
    for (i = 0; i < 2; i++) {
        ck_assert_ptr_null(sc_expr_floordiv(ctx, a, sc_expr_int_si(ctx, 0)));
        ck_assert_int_eq(sc_ctx_take_error(ctx, &err), SC_ERR_DIV_ZERO);
        ck_assert_ptr_null(sc_expr_add(ctx, a, sc_expr_true(ctx)));
        ck_assert_int_eq(sc_ctx_take_error(ctx, &err), SC_ERR_TYPE);
    }
    /* Many distinct operations (the cache grows and evicts): every
     * result is still the canonical node the parser gives. */
    for (i = 0; i < 40000; i++) {
        char text[96];
        sc_expr *x = sc_expr_mul_si(ctx, a, i);
        e3 = sc_expr_add(ctx, sc_expr_floordiv(ctx, sc_expr_add(ctx, x, b),
                                               sc_expr_int_si(ctx, 4)),
                         c);
        snprintf(text, sizeof text, "(%d*a + b)//4 + c", i);
        ck_assert_ptr_eq(e3, parse_ok(ctx, text));
    }
    sc_ctx_free(ctx);
}
END_TEST

/* sc_expr_to_c with bounds computes the range of every intermediate node;
 * with the context's range workspace that is linear in the nodes (it was
 * quadratic: each node's range recomputed its whole subtree).  A chain of
 * 3,000 nested divisions took seconds before; now milliseconds.  The C
 * text is the same as without bounds. */
START_TEST(test_c_printer_with_bounds_is_linear)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_expr *x = sym(ctx, "x"), *e = x;
    sc_bounds *b = sc_bounds_new(ctx);
    char *with = NULL, *without = NULL;
    struct timespec t0, t1;
    double secs;
    sc_error err;
    int i;

    /* (CeilDiv: nested FloorDivs with offsets merge into one) */
    for (i = 0; i < 3000; i++)
        e = sc_expr_ceildiv(ctx, sc_expr_add_si(ctx, e, 3),
                            sc_expr_int_si(ctx, 2));
    ck_assert_ptr_nonnull(e);
    ck_assert_int_eq(sc_bounds_set_si(b, x, false, 0, false, 1000, &err),
                     SC_OK);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    ck_assert_int_eq(sc_expr_to_c(ctx, e, b, &with, &err), SC_OK);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
    secs = (double)(t1.tv_sec - t0.tv_sec) +
           (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    ck_assert_int_eq(sc_expr_to_c(ctx, e, NULL, &without, &err), SC_OK);
    ck_assert_str_eq(with, without);
    ck_assert_msg(secs < 1.5, "sc_expr_to_c with bounds took %.2f s", secs);
    free(with);
    free(without);
    sc_bounds_free(b);
    sc_ctx_free(ctx);
}
END_TEST

/* Symbols are ordered by name in natural order (sc_expr_cmp compares
 * precomputed keys, falling back to the names on ties): the part before
 * the trailing digits by bytes, a shorter such part first, no digits
 * first, then the digits as a number (beyond 64 bits too), then the whole
 * name by bytes. */
START_TEST(test_symbol_natural_order)
{
    static const char *const sorted[] = {
        "x", "x0", "x00", "x01", "x1", "x9", "x10",
        "x18446744073709551615", "x18446744073709551616",
        "x99999999999999999999", "x100000000000000000000", "xa", "xa2",
        "y", "y_1", "z3",
    };
    enum { N = sizeof sorted / sizeof *sorted };
    sc_ctx *ctx = sc_ctx_new();
    sc_expr *e[N];
    size_t i, j;

    /* Created in reverse, so creation order says nothing. */
    for (i = N; i-- > 0;)
        e[i] = sym(ctx, sorted[i]);
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) {
            int c = sc_expr_cmp(e[i], e[j]);
            ck_assert_msg((i < j && c < 0) || (i == j && c == 0) ||
                              (i > j && c > 0),
                          "cmp(%s, %s) = %d", sorted[i], sorted[j], c);
        }
    sc_ctx_free(ctx);
}
END_TEST

/* ======================================================================
 * Sums for the guards: coefficient signs, degree, exact division
 * ====================================================================== */

/* sc_expr_add_coef_sign: `signs` has one '+' or '-' per term of the Add,
 * in term order; "" for an expression that is not an Add (every index
 * gives 0).  The index one past the last term and SIZE_MAX give 0. */
typedef struct coef_sign_row {
    const char *input;
    const char *signs;
} coef_sign_row;

static const coef_sign_row coef_sign_rows[] = {
    {"2*s0", "+"},
    {"-s0", "-"},
    {"s0 + 7", "+"},
    {"-s0 - 7", "-"},
    {"s0 - s1", "+-"},
    {"-s0 + s1", "-+"},
    {"3*s1 - 2*s0 + s0*s1", "+-+"},
    {"-s0*s1 + 4*s0 - 2*s1 - 1", "-+-"},
    {"-(s0//2) + 1", "-"},
    /* coefficients beyond int64 */
    {"-2**70*s0 + 2**80*s1", "-+"},
    {"9223372036854775807*s0 - 9223372036854775808*s1", "+-"},
    {"-9223372036854775809*s0 + 2**64", "-"},
    {"2**64*s0 - 2**64*s1 + 2**64*s2", "+-+"},
    /* not an Add */
    {"s0", ""},
    {"5", ""},
    {"-5", ""},
    {"0", ""},
    {"-2**100", ""},
    {"s0 - s0", ""},
    {"s0*s1", ""},
    {"s0**2", ""},
    {"Mod(-s0, 3)", ""},
    {"Min(-s0, s1)", ""},
    {"Eq(s0, 1)", ""},
    {"s0 - s1 < 1", ""},
    {"True", ""},
};

static bool row_coef_sign(sc_ctx *ctx, size_t i, char *msg, size_t size)
{
    const coef_sign_row *row = &coef_sign_rows[i];
    sc_expr *e = try_parse(ctx, row->input, msg, size);
    size_t n = strlen(row->signs), k;
    int got;

    ROW_CHECK(e != NULL);
    if (n > 0)
        ROW_REQUIRE(sc_expr_node_kind(e) == SC_EXPR_ADD &&
                        sc_expr_arg_count(e) == n,
                    "\"%s\": expected an Add with %zu terms", row->input, n);
    for (k = 0; k < n; k++) {
        int want = row->signs[k] == '-' ? -1 : 1;
        got = sc_expr_add_coef_sign(e, k);
        ROW_REQUIRE(got == want, "\"%s\": sign of term %zu: expected %d, "
                    "got %d", row->input, k, want, got);
    }
    got = sc_expr_add_coef_sign(e, n);
    ROW_REQUIRE(got == 0, "\"%s\": index %zu (out of range): expected 0, "
                "got %d", row->input, n, got);
    got = sc_expr_add_coef_sign(e, SIZE_MAX);
    ROW_REQUIRE(got == 0, "\"%s\": index SIZE_MAX: expected 0, got %d",
                row->input, got);
    return true;
fail:
    return false;
}

START_TEST(test_add_coef_sign_table)
{
    run_rows("add_coef_sign", row_coef_sign, ARRAY_SIZE(coef_sign_rows));
}
END_TEST

typedef struct degree_row {
    const char *input;
    unsigned degree;
} degree_row;

static const degree_row degree_rows[] = {
    /* constants and booleans: 0 */
    {"5", 0},
    {"0", 0},
    {"-2**100", 0},
    {"s0 - s0 + 4", 0},
    {"s0**0", 0},
    {"True", 0},
    {"False", 0},
    {"Eq(s0**2, 1)", 0},
    {"s0*s1 < s2", 0},
    {"And(s0 < 2, Ne(s1, 0))", 0},
    /* atoms: 1 */
    {"s0", 1},
    {"s0//8", 1},
    {"(s0*s1)//8", 1},
    {"CeilDiv(s0**3, s1)", 1},
    {"Mod(s0**2, 3)", 1},
    {"Min(s0, s1)", 1},
    {"Max(s0**5, 1)", 1},
    /* sums: the largest term */
    {"2*s0", 1},
    {"-s0 + 1", 1},
    {"s0 + s1 + s2", 1},
    {"2**70*s0*s1 - 1", 2},
    {"s0**2 + s1 + 1", 2},
    {"s1 - s0*s1*s2 + s0**2", 3},
    {"(s0 + 1)**2", 2},
    {"(s0//2)*s1 + s2", 2},
    {"(s0//2)**3 - s1**2", 3},
    /* products: the sum of the exponents */
    {"s0*s1", 2},
    {"s0**3*s1", 4},
    {"s0*s1*s2*s3", 4},
    {"s0**2*(s1//4)", 3},
    {"s0**4294967293*s1", 4294967294u},
    {"s0**4294967295", 4294967295u},
    /* saturated at UINT32_MAX */
    {"s0**4294967294*s1", UINT32_MAX},
    {"s0**4294967295*s1", UINT32_MAX},
    {"s0**4294967296", UINT32_MAX},
    {"s0**4294967296*s1**4294967296", UINT32_MAX},
    {"s0**4294967296 + s1", UINT32_MAX},
};

static bool row_degree(sc_ctx *ctx, size_t i, char *msg, size_t size)
{
    const degree_row *row = &degree_rows[i];
    sc_expr *e = try_parse(ctx, row->input, msg, size);
    unsigned got;

    ROW_CHECK(e != NULL);
    got = sc_expr_degree(e);
    ROW_REQUIRE(got == row->degree, "\"%s\": expected degree %u, got %u",
                row->input, row->degree, got);
    return true;
fail:
    return false;
}

START_TEST(test_degree_table)
{
    run_rows("degree", row_degree, ARRAY_SIZE(degree_rows));
}
END_TEST

/* sc_expr_add_terms_divexact(parse(input), divisor): the printed result
 * (which also parses to the same node), or the status of the failure. */
typedef struct divexact_row {
    const char *input;
    const char *divisor; /* decimal */
    const char *expected;
    sc_status status;
} divexact_row;

static const divexact_row divexact_rows[] = {
    {"4*s0 + 6*s1 + 3", "2", "2*s0 + 3*s1", SC_OK},
    {"4*s0 - 6*s1 + 3", "-2", "-2*s0 + 3*s1", SC_OK},
    {"2*s0 + 1", "2", "s0", SC_OK},
    {"2*s0", "2", "s0", SC_OK},
    {"-3*s0 + 7", "3", "-s0", SC_OK},
    {"-3*s0 + 7", "-3", "s0", SC_OK},
    {"s0 + s1 + 5", "1", "s0 + s1", SC_OK},
    {"s0 - s1 - 5", "-1", "-s0 + s1", SC_OK},
    {"6*s0*s1 + 4*s0 - 2*s2 + 9", "2", "3*s0*s1 + 2*s0 - s2", SC_OK},
    {"12*s0**2 - 18*s0", "6", "2*s0**2 - 3*s0", SC_OK},
    {"8*(s0//3) + 4*s1", "4", "s1 + 2*(s0//3)", SC_OK},
    {"10*Max(s0, s1) - 5", "5", "2*Max(s0, s1)", SC_OK},
    /* coefficients and divisors beyond int64 */
    {"2**70*s0 + 2**65*s1 + 5", "36893488147419103232", "32*s0 + s1",
     SC_OK},
    {"2**70*s0 - 2**64*s1", "18446744073709551616", "64*s0 - s1", SC_OK},
    {"2**100*s0 + 1", "-1267650600228229401496703205376", "-s0", SC_OK},
    {"3*2**70*s0 + 3*s1", "3", "1180591620717411303424*s0 + s1", SC_OK},
    {"2**64*s0 + 2**64", "2", "9223372036854775808*s0", SC_OK},
    {"9223372036854775808*s0", "-9223372036854775808", "-s0", SC_OK},
    {"-9223372036854775808*s0", "-9223372036854775808", "s0", SC_OK},
    {"-9223372036854775808*s0 + 1", "-1", "9223372036854775808*s0", SC_OK},
    {"-9223372036854775808*s0 + 1", "1", "-9223372036854775808*s0", SC_OK},
    /* the divisor does not divide every coefficient */
    {"2*s0 + 3*s1", "2", NULL, SC_ERR_INVALID},
    {"3*s0 + 2*s1", "2", NULL, SC_ERR_INVALID},
    {"4*s0 + 6*s1 + 8", "4", NULL, SC_ERR_INVALID},
    {"s0 + 1", "-2", NULL, SC_ERR_INVALID},
    {"6*s0", "36893488147419103232", NULL, SC_ERR_INVALID},
    {"2**65*s0 + 2**64*s1", "36893488147419103232", NULL, SC_ERR_INVALID},
    {"(2**64 + 1)*s0", "18446744073709551616", NULL, SC_ERR_INVALID},
    /* not an Add */
    {"s0", "1", NULL, SC_ERR_INVALID},
    {"5", "1", NULL, SC_ERR_INVALID},
    {"0", "1", NULL, SC_ERR_INVALID},
    {"2**70", "2", NULL, SC_ERR_INVALID},
    {"s0*s1", "1", NULL, SC_ERR_INVALID},
    {"s0**2", "1", NULL, SC_ERR_INVALID},
    {"(2*s0 + 2)//2", "2", NULL, SC_ERR_INVALID},
    {"Max(2*s0, 4)", "2", NULL, SC_ERR_INVALID},
    {"Eq(2*s0, 1)", "1", NULL, SC_ERR_INVALID},
    {"True", "1", NULL, SC_ERR_INVALID},
    /* a zero divisor */
    {"2*s0 + 2", "0", NULL, SC_ERR_DIV_ZERO},
    {"s0 + 1", "0", NULL, SC_ERR_DIV_ZERO},
    {"2**70*s0", "0", NULL, SC_ERR_DIV_ZERO},
};

static bool row_divexact(sc_ctx *ctx, size_t i, char *msg, size_t size)
{
    const divexact_row *row = &divexact_rows[i];
    sc_expr *e = try_parse(ctx, row->input, msg, size), *r, *want;
    char *s = NULL;
    sc_status st;
    mpz_t d;
    bool ok = false;

    mpz_init(d);
    ROW_CHECK(e != NULL);
    ROW_REQUIRE(mpz_set_str(d, row->divisor, 10) == 0,
                "bad divisor \"%s\" in the table", row->divisor);
    r = sc_expr_add_terms_divexact(ctx, e, d);
    st = sc_ctx_take_error(ctx, NULL);
    if (row->status != SC_OK) {
        ROW_REQUIRE(r == NULL && st == row->status,
                    "\"%s\" / %s: expected NULL with %s, got %s with %s",
                    row->input, row->divisor, sc_status_name(row->status),
                    r ? "a node" : "NULL", sc_status_name(st));
        ok = true;
        goto fail;
    }
    ROW_REQUIRE(r != NULL && st == SC_OK,
                "\"%s\" / %s: expected \"%s\", got %s with %s", row->input,
                row->divisor, row->expected, r ? "a node" : "NULL",
                sc_status_name(st));
    s = sc_expr_to_str(ctx, r);
    ROW_REQUIRE(s != NULL, "\"%s\" / %s: printing failed", row->input,
                row->divisor);
    ROW_REQUIRE(strcmp(s, row->expected) == 0,
                "\"%s\" / %s: expected \"%s\", got \"%s\"", row->input,
                row->divisor, row->expected, s);
    want = try_parse(ctx, row->expected, msg, size);
    ROW_CHECK(want != NULL);
    ROW_REQUIRE(want == r, "\"%s\" / %s: the result prints as \"%s\" but "
                "is not the node that text parses to", row->input,
                row->divisor, s);
    ok = true;
fail:
    free(s);
    mpz_clear(d);
    return ok;
}

START_TEST(test_add_terms_divexact_table)
{
    run_rows("add_terms_divexact", row_divexact, ARRAY_SIZE(divexact_rows));
}
END_TEST

/* The constructor conventions: a NULL expression gives NULL and leaves the
 * recorded error alone; a failure records its reason. */
START_TEST(test_add_terms_divexact_errors)
{
    sc_ctx *ctx = ctx_with_symbols();
    sc_expr *s0 = sym(ctx, "s0"), *s1 = sym(ctx, "s1");
    sc_expr *zero = sc_expr_int_si(ctx, 0), *e;
    sc_error err;
    mpz_t d;

    mpz_init_set_si(d, 2);
    ck_assert_int_eq(sc_ctx_take_error(ctx, NULL), SC_OK);
    ck_assert_ptr_null(sc_expr_add_terms_divexact(ctx, NULL, d));
    ck_assert_int_eq(sc_ctx_error(ctx)->code, SC_OK);

    /* an earlier error stays recorded through the NULL */
    ck_assert_ptr_null(sc_expr_add_terms_divexact(
        ctx, sc_expr_floordiv(ctx, s0, zero), d));
    ck_assert_int_eq(sc_ctx_take_error(ctx, NULL), SC_ERR_DIV_ZERO);
    ck_assert_ptr_null(sc_expr_mod(ctx, s1, zero));
    ck_assert_ptr_null(sc_expr_add_terms_divexact(ctx, NULL, d));
    ck_assert_int_eq(sc_ctx_take_error(ctx, NULL), SC_ERR_DIV_ZERO);

    /* the failures record a reason */
    sc_error_init(&err);
    ck_assert_ptr_null(sc_expr_add_terms_divexact(ctx, s0, d));
    ck_assert_int_eq(sc_ctx_take_error(ctx, &err), SC_ERR_INVALID);
    ck_assert_msg(err.message[0] != '\0', "no message for a non-sum");
    e = parse_ok(ctx, "2*s0 + 3*s1");
    ck_assert_ptr_null(sc_expr_add_terms_divexact(ctx, e, d));
    ck_assert_int_eq(sc_ctx_take_error(ctx, &err), SC_ERR_INVALID);
    ck_assert_msg(err.message[0] != '\0', "no message for a coefficient "
                  "the divisor does not divide");
    mpz_set_ui(d, 0);
    ck_assert_ptr_null(sc_expr_add_terms_divexact(ctx, e, d));
    ck_assert_int_eq(sc_ctx_take_error(ctx, &err), SC_ERR_DIV_ZERO);

    /* the result is the interned node of the constructors, and e is
     * left as it was */
    e = parse_ok(ctx, "6*s0 - 9*s1 + 4");
    mpz_set_si(d, -3);
    ck_assert_ptr_eq(sc_expr_add_terms_divexact(ctx, e, d),
                     sc_expr_sub(ctx, sc_expr_int_si(ctx, 0),
                                 sc_expr_sub(ctx, sc_expr_mul_si(ctx, s0, 2),
                                             sc_expr_mul_si(ctx, s1, 3))));
    ck_assert_int_eq(sc_ctx_error(ctx)->code, SC_OK);
    ck_assert_ptr_eq(e, parse_ok(ctx, "6*s0 - 9*s1 + 4"));
    mpz_clear(d);
    sc_ctx_free(ctx);
}
END_TEST

/* ======================================================================
 * symint/pydiv.h (white-box): Python's // and % and CeilDiv on int64_t
 * ====================================================================== */

typedef struct pydiv_row {
    int64_t a, b;
    bool floor_ok; /* false: a // b overflows (q left as it was) */
    int64_t floor_q;
    int64_t mod_r;
    bool ceil_ok;
    int64_t ceil_q;
} pydiv_row;

#define PYDIV_OVF false, 0

static const pydiv_row pydiv_rows[] = {
    {7, 2, true, 3, 1, true, 4},
    {-7, 2, true, -4, 1, true, -3},
    {7, -2, true, -4, -1, true, -3},
    {-7, -2, true, 3, -1, true, 4},
    {6, 3, true, 2, 0, true, 2},
    {-6, 3, true, -2, 0, true, -2},
    {3, 5, true, 0, 3, true, 1},
    {-3, 5, true, -1, 2, true, 0},
    {3, -5, true, -1, -2, true, 0},
    {-3, -5, true, 0, -3, true, 1},
    {0, 5, true, 0, 0, true, 0},
    {0, -5, true, 0, 0, true, 0},
    {1, 1, true, 1, 0, true, 1},
    {-1, 1, true, -1, 0, true, -1},
    {1, -1, true, -1, 0, true, -1},
    {-1, -1, true, 1, 0, true, 1},
    {5, -1, true, -5, 0, true, -5},
    {INT64_MAX, 1, true, INT64_MAX, 0, true, INT64_MAX},
    {INT64_MAX, -1, true, -INT64_MAX, 0, true, -INT64_MAX},
    {INT64_MIN, 1, true, INT64_MIN, 0, true, INT64_MIN},
    {INT64_MIN, -1, PYDIV_OVF, 0, PYDIV_OVF},
    {INT64_MIN + 1, -1, true, INT64_MAX, 0, true, INT64_MAX},
    {INT64_MIN, 2, true, INT64_MIN / 2, 0, true, INT64_MIN / 2},
    {INT64_MIN, -2, true, -(INT64_MIN / 2), 0, true, -(INT64_MIN / 2)},
    {INT64_MAX, 2, true, INT64_MAX / 2, 1, true, INT64_MAX / 2 + 1},
    {INT64_MAX, -2, true, -(INT64_MAX / 2) - 1, -1, true,
     -(INT64_MAX / 2)},
    {INT64_MIN, 3, true, -3074457345618258603, 1, true,
     -3074457345618258602},
    {INT64_MIN, INT64_MAX, true, -2, INT64_MAX - 1, true, -1},
    {INT64_MAX, INT64_MIN, true, -1, -1, true, 0},
    {INT64_MIN, INT64_MIN, true, 1, 0, true, 1},
    {INT64_MAX, INT64_MAX, true, 1, 0, true, 1},
    {-1, INT64_MAX, true, -1, INT64_MAX - 1, true, 0},
    {1, INT64_MAX, true, 0, 1, true, 1},
    {1, INT64_MIN, true, -1, -INT64_MAX, true, 0},
    {-1, INT64_MIN, true, 0, -1, true, 1},
    {INT64_MIN + 1, INT64_MIN, true, 0, INT64_MIN + 1, true, 1},
};

#define PYDIV_UNCHANGED INT64_C(0x5eed5eed5eed)

START_TEST(test_pydiv_table)
{
    size_t i;

    for (i = 0; i < ARRAY_SIZE(pydiv_rows); i++) {
        const pydiv_row *row = &pydiv_rows[i];
        int64_t q = PYDIV_UNCHANGED;
        bool ok;

        ok = sc__i64_floordiv(row->a, row->b, &q);
        ck_assert_msg(ok == row->floor_ok &&
                          q == (ok ? row->floor_q : PYDIV_UNCHANGED),
                      "row %zu: %" PRId64 " // %" PRId64 ": expected %s%"
                      PRId64 ", got %s %" PRId64, i, row->a, row->b,
                      row->floor_ok ? "" : "overflow, q unchanged ",
                      row->floor_ok ? row->floor_q : PYDIV_UNCHANGED,
                      ok ? "ok" : "overflow", q);
        q = PYDIV_UNCHANGED;
        ok = sc__i64_ceildiv(row->a, row->b, &q);
        ck_assert_msg(ok == row->ceil_ok &&
                          q == (ok ? row->ceil_q : PYDIV_UNCHANGED),
                      "row %zu: CeilDiv(%" PRId64 ", %" PRId64 "): expected "
                      "%s%" PRId64 ", got %s %" PRId64, i, row->a, row->b,
                      row->ceil_ok ? "" : "overflow, q unchanged ",
                      row->ceil_ok ? row->ceil_q : PYDIV_UNCHANGED,
                      ok ? "ok" : "overflow", q);
        ck_assert_msg(sc__i64_mod(row->a, row->b) == row->mod_r,
                      "row %zu: %" PRId64 " %% %" PRId64 ": expected %"
                      PRId64 ", got %" PRId64, i, row->a, row->b,
                      row->mod_r, sc__i64_mod(row->a, row->b));
        if (row->b > 0) {
            ck_assert_msg(sc__i64_floordiv_pos(row->a, row->b) ==
                              row->floor_q,
                          "row %zu: floordiv_pos(%" PRId64 ", %" PRId64
                          "): expected %" PRId64 ", got %" PRId64, i,
                          row->a, row->b, row->floor_q,
                          sc__i64_floordiv_pos(row->a, row->b));
            ck_assert_msg(sc__i64_mod_pos(row->a, row->b) == row->mod_r,
                          "row %zu: mod_pos(%" PRId64 ", %" PRId64
                          "): expected %" PRId64 ", got %" PRId64, i,
                          row->a, row->b, row->mod_r,
                          sc__i64_mod_pos(row->a, row->b));
        }
    }
}
END_TEST

/* An int64 operand: full-width, small, near the extremes or near a power
 * of two, so that the sign and overflow corners come up often. */
static int64_t pydiv_operand(sc_test_rng *rng)
{
    uint64_t k = sc_test_rng_below(rng, 4);
    int64_t v;

    switch (sc_test_rng_below(rng, 5)) {
    case 0:
        return (int64_t)sc_test_rng_next(rng);
    case 1:
        return sc_test_rng_range(rng, -20, 20);
    case 2:
        return INT64_MIN + (int64_t)k;
    case 3:
        return INT64_MAX - (int64_t)k;
    default:
        v = (int64_t)(UINT64_C(1) << sc_test_rng_below(rng, 63));
        v += (int64_t)k - 2;
        return sc_test_rng_below(rng, 2) ? -v : v;
    }
}

/* Fits mpz q in int64?  Then store it. */
static bool pydiv_mpz_get(mpz_srcptr q, int64_t *out)
{
    if (!mpz_fits_slong_p(q))
        return false;
    *out = (int64_t)mpz_get_si(q);
    return true;
}

START_TEST(test_pydiv_matches_gmp)
{
    uint64_t seed = sc_test_seed();
    long n = sc_test_cases(4000), i, overflows = 0;
    sc_test_rng rng;
    mpz_t za, zb, zq;

    ck_assert(sizeof(long) == sizeof(int64_t));
    sc_test_rng_init(&rng, seed);
    mpz_inits(za, zb, zq, NULL);
    for (i = 0; i < n; i++) {
        int64_t a = pydiv_operand(&rng), b = pydiv_operand(&rng);
        int64_t want, q;
        bool fits, ok;

        if (b == 0)
            b = sc_test_rng_below(&rng, 2) ? 1 : -1;
        mpz_set_si(za, (long)a);
        mpz_set_si(zb, (long)b);

        mpz_fdiv_q(zq, za, zb);
        fits = pydiv_mpz_get(zq, &want);
        overflows += !fits;
        q = PYDIV_UNCHANGED;
        ok = sc__i64_floordiv(a, b, &q);
        REQUIRE_MSG(ok == fits && q == (fits ? want : PYDIV_UNCHANGED),
                    "SYMCUT_SEED=%" PRIu64 " case %ld: %" PRId64 " // %"
                    PRId64 ": GMP %s, sc__i64_floordiv %s %" PRId64, seed,
                    i, a, b, fits ? "fits" : "overflows",
                    ok ? "ok" : "overflow", q);
        if (b > 0)
            REQUIRE_MSG(sc__i64_floordiv_pos(a, b) == want,
                        "SYMCUT_SEED=%" PRIu64 " case %ld: floordiv_pos(%"
                        PRId64 ", %" PRId64 ") = %" PRId64 ", GMP %" PRId64,
                        seed, i, a, b, sc__i64_floordiv_pos(a, b), want);

        mpz_cdiv_q(zq, za, zb);
        fits = pydiv_mpz_get(zq, &want);
        q = PYDIV_UNCHANGED;
        ok = sc__i64_ceildiv(a, b, &q);
        REQUIRE_MSG(ok == fits && q == (fits ? want : PYDIV_UNCHANGED),
                    "SYMCUT_SEED=%" PRIu64 " case %ld: CeilDiv(%" PRId64
                    ", %" PRId64 "): GMP %s, sc__i64_ceildiv %s %" PRId64,
                    seed, i, a, b, fits ? "fits" : "overflows",
                    ok ? "ok" : "overflow", q);

        mpz_fdiv_r(zq, za, zb);
        REQUIRE(pydiv_mpz_get(zq, &want));
        REQUIRE_MSG(sc__i64_mod(a, b) == want,
                    "SYMCUT_SEED=%" PRIu64 " case %ld: %" PRId64 " %% %"
                    PRId64 " = %" PRId64 ", GMP %" PRId64, seed, i, a, b,
                    sc__i64_mod(a, b), want);
        if (b > 0)
            REQUIRE_MSG(sc__i64_mod_pos(a, b) == want,
                        "SYMCUT_SEED=%" PRIu64 " case %ld: mod_pos(%" PRId64
                        ", %" PRId64 ") = %" PRId64 ", GMP %" PRId64, seed,
                        i, a, b, sc__i64_mod_pos(a, b), want);
    }
    printf("symint pydiv vs GMP: SYMCUT_SEED=%" PRIu64 ", %ld pairs, %ld "
           "overflowing\n", seed, n, overflows);
    fflush(stdout);
    mpz_clears(za, zb, zq, NULL);
}
END_TEST

/* ======================================================================
 * The suite
 * ====================================================================== */

Suite *symint_suite(void);

Suite *symint_suite(void)
{
    Suite *s = suite_create("symint");
    TCase *tc;

    tc = tcase_create("tables_print_and_parse");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_print_required_spelling);
    tcase_add_test(tc, test_print_preferred_spelling);
    tcase_add_test(tc, test_python_semantics_on_constants);
    tcase_add_test(tc, test_big_numbers);
    tcase_add_test(tc, test_parse_error_code_and_location);
    tcase_add_test(tc, test_kind_of_parsed_expression);
    suite_add_tcase(s, tc);

    tc = tcase_create("tables_canonical_forms");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_canonical_same_pointer);
    tcase_add_test(tc, test_canonical_same_pointer_preferred);
    suite_add_tcase(s, tc);

    tc = tcase_create("tables_ranges_simplify_eval");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_range_of_expression);
    tcase_add_test(tc, test_simplify_with_ranges);
    tcase_add_test(tc, test_simplifier_classes);
    tcase_add_test(tc, test_eval_table);
    tcase_add_test(tc, test_subst_table);
    suite_add_tcase(s, tc);

    tc = tcase_create("parser_locations_and_limits");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_parse_error_location_in_file);
    tcase_add_test(tc, test_parse_deep_nesting_is_limit_error);
    suite_add_tcase(s, tc);

    tc = tcase_create("ranges_and_simplify_api");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_range_api);
    tcase_add_test(tc, test_simplify_keeps_undecided);
    suite_add_tcase(s, tc);

    tc = tcase_create("eval_subst_symmap");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_eval_unbound_names_symbol_and_eval_si);
    tcase_add_test(tc, test_symmap_api);
    tcase_add_test(tc, test_subst_division_by_zero);
    tcase_add_test(tc, test_free_symbols);
    suite_add_tcase(s, tc);

    tc = tcase_create("constructors_inspection_interning");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_inspect_canonical_structure);
    tcase_add_test(tc, test_constructors_match_parser);
    tcase_add_test(tc, test_constructor_errors);
    tcase_add_test(tc, test_interning_and_contexts);
    tcase_add_test(tc, test_expand_limit);
    tcase_add_test(tc, test_text_limit);
    tcase_add_test(tc, test_range_cache_follows_bounds);
    tcase_add_test(tc, test_operation_cache);
    tcase_add_test(tc, test_symbol_natural_order);
    tcase_add_test(tc, test_fprint);
    tcase_add_test(tc, test_status_names);
    suite_add_tcase(s, tc);

    tc = tcase_create("sums_for_guards_and_pydiv");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_add_coef_sign_table);
    tcase_add_test(tc, test_degree_table);
    tcase_add_test(tc, test_add_terms_divexact_table);
    tcase_add_test(tc, test_add_terms_divexact_errors);
    tcase_add_test(tc, test_pydiv_table);
    tcase_add_test(tc, test_pydiv_matches_gmp);
    suite_add_tcase(s, tc);

    tc = tcase_create("compiled_programs");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_prog_agrees_with_eval_on_grid);
    tcase_add_test(tc, test_prog_inputs_outputs_and_overflow);
    tcase_add_test(tc, test_prog_first_false);
    tcase_add_test(tc, test_prog_first_false_div_zero);
    suite_add_tcase(s, tc);

    tc = tcase_create("c_printer");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_c_printer_overflow_rule);
    tcase_add_test(tc, test_c_printer_with_bounds_is_linear);
    tcase_add_test(tc, test_c_printer_compiles_and_agrees_with_eval);
    suite_add_tcase(s, tc);

    tc = tcase_create("threads");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_contexts_in_threads_do_not_interfere);
    suite_add_tcase(s, tc);

    tc = tcase_create("property_random_trees");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_property_eval_matches_reference);
    tcase_add_test(tc, test_property_value_in_range);
    tcase_add_test(tc, test_property_print_parse_roundtrip);
    tcase_add_test(tc, test_property_simplify_preserves_value);
    tcase_add_test(tc, test_property_prog_matches_eval);
    tcase_add_test(tc, test_property_products_of_sums);
    tcase_add_test(tc, test_property_rewrite_classes);
    tcase_add_test(tc, test_roundtrip_regress_inputs);
    suite_add_tcase(s, tc);
    return s;
}
