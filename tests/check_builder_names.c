/* symcut tests — the graph builder's name checks: call targets (dotted
 * names), automatic names around failing calls and taken names. */
#include <config.h>

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <symcut/graph.h>

Suite *builder_names_suite(void);

/* A float32 contiguous tensor result of sizes [a, b]. */
static void matrix_meta(sc_ctx *ctx, sc_result *r, sc_expr **dims, int64_t a,
                        int64_t b)
{
    sc_result_init(r);
    r->kind = SC_RESULT_TENSOR;
    r->tensor.dtype = SC_DTYPE_F32;
    r->tensor.ndim = 2;
    dims[0] = sc_expr_int_si(ctx, a);
    dims[1] = sc_expr_int_si(ctx, b);
    dims[2] = sc_expr_int_si(ctx, b);
    dims[3] = sc_expr_int_si(ctx, 1);
    r->tensor.sizes = dims;
    r->tensor.has_strides = true;
    r->tensor.strides = dims + 2;
    r->tensor.has_device = true;
    r->tensor.device.type = SC_DEVICE_CPU;
    r->tensor.device.index = -1;
}

/* Targets are identifiers joined by single dots; anything else is refused
 * with the target in the message, and the graph stays as it was. */
START_TEST(test_dotted_targets)
{
    static const char *const good[] = {
        "torch.ops.aten.relu.default", "custom.getitem", "a", "Z",
        "_x._y", "A_1.b2.C3", "my.op9.default", "z_.Q",
    };
    static const char *const bad[] = {
        "",     ".a",    "a.",   "a..b", "1a",   "a.1b", "a-b", "a b",
        "a@b",  "a[b",   "a`b",  "a{b",  "a\\b", "a^b",  "a~b", "\xc3\xa9",
        "a.\xff", "a/b", "a:b",  ".",    "_.",   "a.b.",
    };
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = sc_graph_new(ctx);
    sc_error err;
    sc_result r;
    sc_expr *dims[4];
    sc_value arg;
    sc_node_id x;
    size_t i, n;

    matrix_meta(ctx, &r, dims, 2, 3);
    ck_assert_int_eq(sc_graph_add_placeholder(g, "x", SC_ROLE_PRIMAL, &r, &x,
                                              &err),
                     SC_OK);
    arg = sc_value_node(x);
    for (i = 0; i < sizeof good / sizeof good[0]; i++)
        ck_assert_msg(sc_graph_add_call(g, NULL, good[i], 1, &arg, 0, NULL,
                                        NULL, NULL, NULL, &err) == SC_OK,
                      "target '%s' refused: %s", good[i], err.message);
    n = sc_graph_node_count(g);
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char want[64];
        ck_assert_msg(sc_graph_add_call(g, NULL, bad[i], 1, &arg, 0, NULL,
                                        NULL, NULL, NULL, &err) ==
                          SC_ERR_INVALID,
                      "target '%s' accepted", bad[i]);
        snprintf(want, sizeof want, "call target '%s' is not a dotted name",
                 bad[i]);
        ck_assert_str_eq(err.message, want);
    }
    ck_assert_uint_eq(sc_graph_node_count(g), n);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

/* Automatic names: base, base_1, ... in order; a call that fails after
 * its name was made (its shape rule refuses it) gives the name back; a
 * name taken by hand is skipped; other bases count apart. */
START_TEST(test_auto_names_after_failures)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = sc_graph_new(ctx);
    sc_error err;
    sc_result r;
    sc_expr *dims[4];
    sc_value args[2];
    sc_node_id x, id;
    int k;

    matrix_meta(ctx, &r, dims, 3, 3);
    ck_assert_int_eq(sc_graph_add_placeholder(g, "x", SC_ROLE_PRIMAL, &r, &x,
                                              &err),
                     SC_OK);
    matrix_meta(ctx, &r, dims, 3, 5);
    ck_assert_int_eq(sc_graph_add_placeholder(g, "y", SC_ROLE_PRIMAL, &r,
                                              NULL, &err),
                     SC_OK);
    args[0] = sc_value_node(x);
    args[1] = sc_value_node(x);
    ck_assert_int_eq(sc_graph_add_call(g, NULL, "torch.ops.aten.mm.default",
                                       2, args, 0, NULL, NULL, NULL, &id,
                                       &err),
                     SC_OK);
    ck_assert_str_eq(sc_graph_node_name(g, id), "mm");
    for (k = 0; k < 3; k++) {
        char want[16];
        size_t n = sc_graph_node_count(g);
        /* [3, 5] @ [3, 3]: refused by the shape rule */
        args[0] = sc_value_node(sc_graph_find(g, "y"));
        ck_assert_int_ne(sc_graph_add_call(g, NULL,
                                           "torch.ops.aten.mm.default", 2,
                                           args, 0, NULL, NULL, NULL, NULL,
                                           &err),
                         SC_OK);
        ck_assert_uint_eq(sc_graph_node_count(g), n);
        args[0] = sc_value_node(x);
        ck_assert_int_eq(sc_graph_add_call(g, NULL,
                                           "torch.ops.aten.mm.default", 2,
                                           args, 0, NULL, NULL, NULL, &id,
                                           &err),
                         SC_OK);
        snprintf(want, sizeof want, "mm_%d", k + 1);
        ck_assert_str_eq(sc_graph_node_name(g, id), want);
    }
    /* mm_4 and mm_5 taken by hand: the next automatic one is mm_6 */
    ck_assert_int_eq(sc_graph_add_call(g, "mm_5", "torch.ops.aten.mm.default",
                                       2, args, 0, NULL, NULL, NULL, NULL,
                                       &err),
                     SC_OK);
    ck_assert_int_eq(sc_graph_add_call(g, "mm_4", "torch.ops.aten.mm.default",
                                       2, args, 0, NULL, NULL, NULL, NULL,
                                       &err),
                     SC_OK);
    ck_assert_int_eq(sc_graph_add_call(g, NULL, "torch.ops.aten.mm.default",
                                       2, args, 0, NULL, NULL, NULL, &id,
                                       &err),
                     SC_OK);
    ck_assert_str_eq(sc_graph_node_name(g, id), "mm_6");
    ck_assert_int_eq(sc_graph_add_call(g, NULL, "torch.ops.aten.t.default",
                                       1, args, 0, NULL, NULL, NULL, &id,
                                       &err),
                     SC_OK);
    ck_assert_str_eq(sc_graph_node_name(g, id), "t");
    /* a reserved base ("and" from operator.and_) becomes "node" */
    ck_assert_int_eq(sc_graph_add_call(g, NULL, "operator.and_", 2, args, 0,
                                       NULL, NULL, NULL, &id, &err),
                     SC_OK);
    ck_assert_str_eq(sc_graph_node_name(g, id), "node");
    ck_assert_int_eq(sc_graph_finish(g, &err), SC_OK);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

Suite *builder_names_suite(void)
{
    Suite *s = suite_create("builder_names");
    TCase *tc = tcase_create("names");
    tcase_add_test(tc, test_dotted_targets);
    tcase_add_test(tc, test_auto_names_after_failures);
    suite_add_tcase(s, tc);
    return s;
}
