/* symcut tests — the memo of shape results with symbolic sizes
 * (graph/shape-hook.c): a repeated call on the same symbolic inputs gets
 * the rule's result, and a result made before the environment learned a
 * fact is not reused after it. */
#include <config.h>

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <symcut/graph.h>
#include <symcut/guards.h>

Suite *shape_memo_suite(void);

/* A placeholder x of sizes [s, 16] (contiguous, float32, cpu). */
static sc_node_id add_x(sc_ctx *ctx, sc_graph *g, sc_expr *s)
{
    sc_result r;
    sc_expr *sizes[2], *strides[2];
    sc_node_id id;
    sc_error err;

    sizes[0] = s;
    sizes[1] = sc_expr_int_si(ctx, 16);
    strides[0] = sizes[1];
    strides[1] = sc_expr_int_si(ctx, 1);
    sc_result_init(&r);
    r.kind = SC_RESULT_TENSOR;
    r.tensor.dtype = SC_DTYPE_F32;
    r.tensor.ndim = 2;
    r.tensor.sizes = sizes;
    r.tensor.has_strides = true;
    r.tensor.strides = strides;
    r.tensor.has_device = true;
    r.tensor.device.type = SC_DEVICE_CPU;
    r.tensor.device.index = -1;
    ck_assert_int_eq(sc_graph_add_placeholder(g, "x", SC_ROLE_PRIMAL, &r, &id,
                                              &err),
                     SC_OK);
    return id;
}

static sc_node_id relu(sc_graph *g, sc_node_id x)
{
    sc_value a = sc_value_node(x);
    sc_node_id id;
    sc_error err;
    ck_assert_int_eq(sc_graph_add_call(g, NULL, "torch.ops.aten.relu.default",
                                       1, &a, 0, NULL, NULL, NULL, &id, &err),
                     SC_OK);
    return id;
}

static sc_expr *size0(const sc_graph *g, sc_node_id id)
{
    sc_result r;
    sc_graph_node_result(g, id, &r);
    ck_assert_int_eq(r.kind, SC_RESULT_TENSOR);
    ck_assert_uint_eq(r.tensor.ndim, 2);
    return r.tensor.sizes[0];
}

/* relu(x) twice on x: [s0, 16] gives [s0, 16] both times; once the
 * environment has guarded s0 == 4 (s0 is then replaced by 4), relu(x)
 * gives [4, 16]: the result kept from before the guard must not be
 * reused. */
START_TEST(test_symbolic_memo_follows_env)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = sc_graph_new(ctx);
    sc_expr *s0 = sc_expr_symbol(ctx, "s0"), *four = sc_expr_int_si(ctx, 4);
    sc_node_id x, a, b, c;
    sc_env *env;
    sc_error err;
    bool holds = false;

    ck_assert_int_eq(sc_graph_set_hint(g, s0, 4, &err), SC_OK);
    x = add_x(ctx, g, s0);
    a = relu(g, x);
    b = relu(g, x);
    env = sc_graph_env(g);
    ck_assert_ptr_nonnull(env);
    ck_assert_ptr_eq(size0(g, a), s0);
    ck_assert_ptr_eq(size0(g, b), s0);
    ck_assert_int_eq(sc_env_guard(env, sc_expr_eq(ctx, s0, four), &holds,
                                  &err),
                     SC_OK);
    ck_assert(holds);
    c = relu(g, x);
    ck_assert_ptr_eq(size0(g, c), four);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

Suite *shape_memo_suite(void)
{
    Suite *s = suite_create("shape_memo");
    TCase *tc = tcase_create("symbolic");
    tcase_add_test(tc, test_symbolic_memo_follows_env);
    suite_add_tcase(s, tc);
    return s;
}
