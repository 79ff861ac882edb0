/* symcut tests — where a symbol's hint lives: the shape environment
 * (sc_env_set_hint, sc_env_symbol_hint) and the graph's getter and setter
 * that delegate to it.
 *
 * The example is read from $top_srcdir/examples (the test environment sets
 * top_srcdir), else ./examples. */
#include <check.h>
#include <gmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <symcut/graph.h>
#include <symcut/guards.h>

#include "tests/testutil.h"

Suite *hints_suite(void);

static char *example_path(const char *name)
{
    const char *top = getenv("top_srcdir");
    size_t n = (top ? strlen(top) : 1) + strlen(name) + 12;
    char *p = malloc(n);
    ck_assert_ptr_nonnull(p);
    snprintf(p, n, "%s/examples/%s", top ? top : ".", name);
    return p;
}

/* The hint of e at the environment's hints, as an int64. */
static long env_hint_of(sc_env *env, sc_expr *e)
{
    mpz_t v;
    sc_error err;
    long out;
    mpz_init(v);
    ck_assert_int_eq(sc_env_hint(env, e, v, &err), SC_OK);
    out = mpz_get_si(v);
    mpz_clear(v);
    return out;
}

START_TEST(test_env_set_hint_backed)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_env *env = NULL;
    sc_expr *s, *twice;
    sc_error err;
    int64_t h = 0;

    ck_assert_int_eq(sc_env_new(ctx, NULL, &env, &err), SC_OK);
    ck_assert_int_eq(sc_env_create_backed_si(env, 8, "x.size(0)", NULL, NULL,
                                             SC_ENV_NO_DUCK, &s, &err),
                     SC_OK);
    ck_assert(sc_env_symbol_hint(env, s, &h));
    ck_assert_int_eq(h, 8);
    twice = sc_expr_mul(ctx, s, sc_expr_int_si(ctx, 2));
    ck_assert_int_eq(env_hint_of(env, twice), 16);

    ck_assert_uint_eq(sc_env_hint_change_count(env), 0);
    ck_assert_int_eq(sc_env_set_hint(env, s, 12, &err), SC_OK);
    ck_assert_uint_eq(sc_env_hint_change_count(env), 1);
    ck_assert(sc_env_symbol_hint(env, s, &h));
    ck_assert_int_eq(h, 12);
    ck_assert_int_eq(env_hint_of(env, twice), 24);
    ck_assert(sc_expr_value_si(sc_env_source_hint(env, 0), &h));
    ck_assert_int_eq(h, 12);
    ck_assert(sc_env_is_backed(env, s));

    /* outside the range [2, +inf): refused, the hint unchanged */
    ck_assert_int_eq(sc_env_set_hint(env, s, 1, &err), SC_ERR_INVALID);
    ck_assert_ptr_nonnull(strstr(err.message, "outside its range"));
    ck_assert_uint_eq(sc_env_hint_change_count(env), 1);
    ck_assert(sc_env_symbol_hint(env, s, &h));
    ck_assert_int_eq(h, 12);

    /* not a symbol of the environment */
    ck_assert_int_eq(sc_env_set_hint(env, sc_expr_symbol(ctx, "q9"), 3,
                                     &err),
                     SC_ERR_UNBOUND);
    ck_assert(!sc_env_symbol_hint(env, sc_expr_symbol(ctx, "q9"), NULL));
    sc_env_free(env);
    sc_ctx_free(ctx);
}
END_TEST

START_TEST(test_env_set_hint_duck_and_unbacked)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_env *env = NULL;
    sc_expr *s, *u;
    sc_error err;
    mpz_t v;
    int64_t h = 0;

    ck_assert_int_eq(sc_env_new(ctx, NULL, &env, &err), SC_OK);
    /* duck sizing shares s between sizes of hint 4: its hint stays */
    ck_assert_int_eq(sc_env_create_backed_si(env, 4, "x.size(0)", NULL, NULL,
                                             0, &s, &err),
                     SC_OK);
    ck_assert_int_eq(sc_env_set_hint(env, s, 6, &err), SC_ERR_INVALID);
    ck_assert_ptr_nonnull(strstr(err.message, "duck sizing"));
    ck_assert_int_eq(sc_env_set_hint(env, s, 4, &err), SC_OK);

    /* an unbacked symbol keeps its value as an example, stays unbacked */
    ck_assert_int_eq(sc_env_create_unbacked(env, NULL, NULL,
                                            SC_ENV_SIZE_LIKE, &u, &err),
                     SC_OK);
    ck_assert(!sc_env_symbol_hint(env, u, &h));
    ck_assert_int_eq(sc_env_set_hint(env, u, 5, &err), SC_OK);
    ck_assert(sc_env_symbol_hint(env, u, &h));
    ck_assert_int_eq(h, 5);
    ck_assert(!sc_env_is_backed(env, u));
    mpz_init(v);
    ck_assert_int_ne(sc_env_hint(env, u, v, &err), SC_OK);
    mpz_clear(v);
    sc_env_free(env);
    sc_ctx_free(ctx);
}
END_TEST

/* A graph's hints: seeded at read time, then changed through the graph,
 * seen by the environment and written back. */
START_TEST(test_graph_hints_delegate)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = NULL;
    sc_graph_read_options ro;
    sc_expr *s0 = sc_expr_symbol(ctx, "s0"), *s1 = sc_expr_symbol(ctx, "s1");
    sc_expr *syms[1] = {s0};
    int64_t vals[1] = {8}, h = 0;
    char *path = example_path("fn_mm_gelu_sum_dyn.joint.txt"), *text = NULL;
    sc_env *env;
    sc_error err;

    sc_graph_read_options_init(&ro);
    ro.nhints = 1;
    ro.hint_symbols = syms;
    ro.hint_values = vals;
    ck_assert_int_eq(sc_graph_read_file(ctx, path, &ro, &g, &err), SC_OK);
    env = sc_graph_env(g);
    ck_assert_ptr_nonnull(env);
    ck_assert(sc_env_is_backed(env, s0));
    ck_assert(sc_graph_get_hint(g, s0, &h));
    ck_assert_int_eq(h, 8);

    /* a later set changes the environment's hint */
    ck_assert_int_eq(sc_graph_set_hint(g, s0, 12, &err), SC_OK);
    ck_assert(sc_env_symbol_hint(env, s0, &h));
    ck_assert_int_eq(h, 12);
    ck_assert_int_eq(env_hint_of(env, s0), 12);
    ck_assert(sc_graph_get_hint(g, s0, &h));
    ck_assert_int_eq(h, 12);
    ck_assert_str_eq(sc_env_symbol_source(env, s0), "primals_1.size(0)");

    /* s1 has no hint: unbacked in the environment, then given a value */
    ck_assert(!sc_env_is_backed(env, s1));
    ck_assert(!sc_graph_get_hint(g, s1, NULL));
    ck_assert_int_eq(sc_graph_set_hint(g, s1, 5, &err), SC_OK);
    ck_assert(sc_graph_get_hint(g, s1, &h));
    ck_assert_int_eq(h, 5);
    ck_assert(!sc_env_is_backed(env, s1));

    /* a value the environment refuses leaves the graph's hint as it was */
    ck_assert_int_ne(sc_graph_set_hint(g, s0, 1, &err), SC_OK);
    ck_assert(sc_graph_get_hint(g, s0, &h));
    ck_assert_int_eq(h, 12);

    ck_assert_int_eq(sc_graph_write_text(g, NULL, &text, NULL, &err), SC_OK);
    ck_assert_ptr_nonnull(strstr(text, "# symcut: hint s0=12 s1=5\n"));
    free(text);
    free(path);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

Suite *hints_suite(void)
{
    Suite *s = suite_create("hints");
    TCase *tc = tcase_create("hints");
    tcase_add_test(tc, test_env_set_hint_backed);
    tcase_add_test(tc, test_env_set_hint_duck_and_unbacked);
    tcase_add_test(tc, test_graph_hints_delegate);
    suite_add_tcase(s, tc);
    return s;
}
