/* symcut tests — the indexing ops (index_select, index_add,
 * masked_scatter, scatter, index.Tensor, index_put), _adaptive_avg_pool2d
 * and its backward, the batch norms of inference and of modules without
 * statistics, var_mean, prims.convert_element_type and prims.transpose,
 * and the Python comparisons of SymInts.
 *
 * The torch cases are graphs torch 2.13 traced and printed with their
 * inputs and outputs (tests/data/ops2/, made by tools/zoo/ops2_data.py):
 * each reads (symcut's shape rules give torch's sizes and strides on every
 * node, and every op is in the table), runs on torch's inputs and gives
 * torch's outputs bit for bit (batch norm: within 1e-5 relative).  The
 * other cases are graph texts with behaviour to check: comparisons and
 * the assertions on them, bad inputs (errors naming the problem, at read
 * time or at run time). */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include <symcut/graph.h>
#include <symcut/interp.h>
#include <symcut/partition.h>
#include <symcut/tensor.h>

#include "tests/testutil.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

Suite *ops2_suite(void);

/* ---- torch's graphs and data ----------------------------------------------- */

static const struct {
    const char *name;
    const char *op; /* an op the graph must contain */
    double rtol;    /* 0: bit for bit */
} torch_cases[] = {
    {"index_select", "torch.ops.aten.index_select.default", 0},
    {"index_add", "torch.ops.aten.index_add.default", 0},
    {"index_add_bf16", "torch.ops.aten.index_add.default", 0},
    {"masked_scatter", "torch.ops.aten.masked_scatter.default", 0},
    {"convert_element_type", "torch.ops.prims.convert_element_type.default",
     0},
    {"scatter", "torch.ops.aten.scatter.src", 0},
    {"index", "torch.ops.aten.index.Tensor", 0},
    {"index_put", "torch.ops.aten.index_put.default", 0},
    {"var_mean", "torch.ops.aten.var_mean.correction", 0},
    {"adaptive_avg_pool2d", "torch.ops.aten._adaptive_avg_pool2d_backward."
                            "default", 0},
    /* native_batch_norm's kernel computes through float64: f32 results
     * within a few ulps of PyTorch's, not bit for bit */
    {"batch_norm", "torch.ops.aten._native_batch_norm_legit.no_stats", 1e-5},
    /* torch has no CPU kernel for the memory-efficient attention: the
     * reference is torch's math attention in float64 rounded to float32;
     * symcut's backward reads the float32 `out` (a few ulps of cancellation
     * in dS = P * (dP - rowsum(dO * O))) */
    {"sdpa_efficient", "torch.ops.aten._scaled_dot_product_efficient_"
                       "attention_backward.default", 1e-5},
};

START_TEST(test_torch_case)
{
    const char *name = torch_cases[_i].name;
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = sc_test_torch_case(ctx, "ops2", name, torch_cases[_i].rtol);

    ck_assert_msg(sc_test_graph_has_target(g, torch_cases[_i].op),
                  "%s: no %s node", name, torch_cases[_i].op);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

/* ---- Graph texts ----------------------------------------------------------- */

static sc_graph *text_graph(sc_ctx *ctx, const char *text, sc_error *err)
{
    sc_graph *g = NULL;
    if (sc_graph_read_text(ctx, text, strlen(text), "t.py", NULL, &g, err) !=
        SC_OK)
        return NULL;
    return g;
}

static sc_tensor *i64_scalar(int64_t v)
{
    sc_tensor *t = NULL;
    sc_error err;
    ck_assert_int_eq(sc_tensor_new(SC_DTYPE_I64, 0, NULL, &t, &err), SC_OK);
    *(int64_t *)sc_tensor_data(t) = v;
    return t;
}

/* The six comparisons of SymInts, as PyTorch prints them, and an
 * assertion on one: their values at n = 3, m = 5, and the assertion
 * failing at n = 1. */
static const char *compare_text =
    "def forward(self, n: \"Sym(s0)\", m: \"Sym(s1)\"):\n"
    "    eq: \"Sym(Eq(s0, 3))\" = n == 3\n"
    "    ne: \"Sym(Ne(s0, s1))\" = n != m\n"
    "    lt: \"Sym(s0 < s1)\" = n < m\n"
    "    le: \"Sym(s0 <= 2)\" = n <= 2\n"
    "    gt: \"Sym(s0 > s1)\" = n > m\n"
    "    ge: \"Sym(s0 >= 2)\" = n >= 2\n"
    "    _assert_scalar = torch.ops.aten._assert_scalar.default(ge, "
    "\"Runtime assertion failed for expression s0 >= 2\");  "
    "_assert_scalar = None\n"
    "    return (eq, ne, lt, le, gt, ge)\n";

START_TEST(test_sym_compare)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_error err;
    sc_graph *g = text_graph(ctx, compare_text, &err);
    sc_tensor *in[2], *out[6] = {NULL};
    static const bool want[6] = {true, true, true, false, false, true};
    char *text = NULL;
    size_t k;

    ck_assert_msg(g, "%s", err.message);
    for (k = 0; k < sc_graph_node_count(g); k++)
        if (sc_graph_node_kind(g, (sc_node_id)k) == SC_NODE_CALL)
            ck_assert_msg(sc_graph_node_class(g, (sc_node_id)k),
                          "%s is not in the op table",
                          sc_graph_node_target(g, (sc_node_id)k));
    /* The annotations are the rules' (the expression layer's spelling). */
    ck_assert_int_eq(sc_graph_write_text(g, NULL, &text, NULL, &err), SC_OK);
    ck_assert_msg(strstr(text, "lt: \"Sym(s0 <= s1 - 1)\" = n < m") != NULL,
                  "%s", text);
    free(text);
    in[0] = i64_scalar(3);
    in[1] = i64_scalar(5);
    ck_assert_msg(sc_interp_run(g, in, NULL, out, NULL, &err) == SC_OK, "%s",
                  err.message);
    for (k = 0; k < 6; k++) {
        ck_assert_ptr_nonnull(out[k]);
        ck_assert_int_eq(out[k]->dtype, SC_DTYPE_B8);
        ck_assert_msg((sc_tensor_item_int64(out[k], 0) != 0) == want[k],
                      "comparison %zu", k);
        sc_tensor_free(out[k]);
    }
    sc_tensor_free(in[0]);
    in[0] = i64_scalar(1);
    ck_assert_int_eq(sc_interp_run(g, in, NULL, out, NULL, &err),
                     SC_ERR_GUARD);
    ck_assert_msg(strstr(err.message, "expression s0 >= 2") != NULL, "%s",
                  err.message);
    for (k = 0; k < 6; k++)
        ck_assert_ptr_null(out[k]);
    sc_tensor_free(in[0]);
    sc_tensor_free(in[1]);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

/* Logic on SymBools as torch 2.13 prints it (`ge & lt`, `gt | lt`, and
 * operator.not_, which symcut prints `not eq`): the rules' SymBools, their
 * values at n = 3, m = 5 and at n = 12, and an assertion on `&`; `&` of
 * bool tensors (Dynamo's graphs) reads with its annotation and is refused
 * when run. */
static const char *logic_text =
    "def forward(self, n: \"Sym(s0)\", m: \"Sym(s1)\"):\n"
    "    ge: \"Sym(s0 >= 2)\" = n >= 2\n"
    "    lt: \"Sym(s0 < 10)\" = n < 10\n"
    "    and_ = ge & lt\n"
    "    gt: \"Sym(s0 > s1)\" = n > m\n"
    "    or_ = gt | lt\n"
    "    eq: \"Sym(Eq(s0, 3))\" = n == 3\n"
    "    not_1 = operator.not_(eq)\n"
    "    _assert_scalar = torch.ops.aten._assert_scalar.default(and_, "
    "\"Runtime assertion failed for expression (s0 >= 2) & (s0 < 10)\");  "
    "_assert_scalar = None\n"
    "    return (and_, or_, not_1)\n";

static void run_logic(sc_graph *g, int64_t n, int64_t m, sc_status want_st,
                      const bool *want)
{
    sc_tensor *in[2], *out[3] = {NULL};
    sc_error err;
    size_t k;
    in[0] = i64_scalar(n);
    in[1] = i64_scalar(m);
    ck_assert_int_eq(sc_interp_run(g, in, NULL, out, NULL, &err), want_st);
    for (k = 0; k < 3 && want_st == SC_OK; k++) {
        ck_assert_ptr_nonnull(out[k]);
        ck_assert_int_eq(out[k]->dtype, SC_DTYPE_B8);
        ck_assert_msg((sc_tensor_item_int64(out[k], 0) != 0) == want[k],
                      "n=%lld m=%lld: output %zu", (long long)n,
                      (long long)m, k);
        sc_tensor_free(out[k]);
    }
    if (want_st != SC_OK)
        ck_assert_msg(strstr(err.message, "(s0 >= 2) & (s0 < 10)") != NULL,
                      "%s", err.message);
    sc_tensor_free(in[0]);
    sc_tensor_free(in[1]);
}

START_TEST(test_sym_logic)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_error err;
    sc_graph *g = text_graph(ctx, logic_text, &err), *g2;
    static const bool at3[3] = {true, true, false};
    char *text = NULL, *text2 = NULL;
    size_t k;

    ck_assert_msg(g, "%s", err.message);
    for (k = 0; k < sc_graph_node_count(g); k++)
        if (sc_graph_node_kind(g, (sc_node_id)k) == SC_NODE_CALL)
            ck_assert_msg(sc_graph_node_class(g, (sc_node_id)k),
                          "%s is not in the op table",
                          sc_graph_node_target(g, (sc_node_id)k));
    ck_assert_int_eq(sc_graph_write_text(g, NULL, &text, NULL, &err), SC_OK);
    ck_assert_msg(strstr(text, "and_: \"Sym(And(s0 >= 2, s0 <= 9))\" = "
                               "ge & lt") != NULL, "%s", text);
    ck_assert_msg(strstr(text, "or_: \"Sym(Or(s0 >= s1 + 1, s0 <= 9))\" = "
                               "gt | lt") != NULL, "%s", text);
    ck_assert_msg(strstr(text, "not_1: \"Sym(Ne(s0, 3))\" = not eq") != NULL,
                  "%s", text);
    /* the re-printed text reads back to itself */
    g2 = text_graph(ctx, text, &err);
    ck_assert_msg(g2, "%s\n%s", err.message, text);
    ck_assert_int_eq(sc_graph_write_text(g2, NULL, &text2, NULL, &err), SC_OK);
    ck_assert_str_eq(text, text2);
    run_logic(g, 3, 5, SC_OK, at3);
    run_logic(g, 12, 5, SC_ERR_GUARD, NULL);
    run_logic(g, 1, 5, SC_ERR_GUARD, NULL);
    free(text);
    free(text2);
    sc_graph_free(g2);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

/* torch's SymInt functions, as torch 2.13's make_fx printed them
 * (tracing_mode="symbolic"): torch.sym_max, torch.sym_min and
 * torch.sym_not resolve to ops, their annotations are the rules', the
 * text re-prints stably, and a run gives Max/Min/Not at three sizes. */
static const char *torch_sym_text =
    "def forward(self, x_1: \"f32[s75]\"):\n"
    "    sym_size_int: \"Sym(s75)\" = "
    "torch.ops.aten.sym_size.int(x_1, 0)\n"
    "    sym_max: \"Sym(Max(4, s75))\" = torch.sym_max(sym_size_int, 4)\n"
    "    sym_min: \"Sym(Min(3, s75))\" = torch.sym_min(sym_size_int, 3)\n"
    "    eq: \"Sym(Eq(s75, 3))\" = sym_size_int == 3;  sym_size_int = None\n"
    "    sym_not: \"Sym(Ne(s75, 3))\" = torch.sym_not(eq);  eq = None\n"
    "    add: \"Sym(Max(4, s75) + Min(3, s75))\" = sym_max + sym_min;  "
    "sym_max = sym_min = None\n"
    "    new_zeros: \"f32[Max(4, s75) + Min(3, s75)]\" = "
    "torch.ops.aten.new_zeros.default(x_1, [add], pin_memory = False);  "
    "x_1 = add = None\n"
    "    return (new_zeros, sym_not)\n";

START_TEST(test_torch_sym_functions)
{
    static const int64_t sizes[3] = {5, 3, 2}, want_len[3] = {8, 7, 6};
    static const bool want_not[3] = {true, false, true};
    sc_ctx *ctx = sc_ctx_new();
    sc_error err;
    sc_graph *g = text_graph(ctx, torch_sym_text, &err), *g2;
    char *text = NULL, *text2 = NULL;
    size_t k;

    ck_assert_msg(g, "%s", err.message);
    for (k = 0; k < sc_graph_node_count(g); k++)
        if (sc_graph_node_kind(g, (sc_node_id)k) == SC_NODE_CALL)
            ck_assert_msg(sc_graph_node_class(g, (sc_node_id)k),
                          "%s is not in the op table",
                          sc_graph_node_target(g, (sc_node_id)k));
    ck_assert_int_eq(sc_graph_write_text(g, NULL, &text, NULL, &err), SC_OK);
    ck_assert_msg(strstr(text, "torch.sym_max(sym_size_int, 4)") != NULL,
                  "%s", text);
    ck_assert_msg(strstr(text, "torch.sym_min(sym_size_int, 3)") != NULL,
                  "%s", text);
    ck_assert_msg(strstr(text, "torch.sym_not(eq)") != NULL, "%s", text);
    g2 = text_graph(ctx, text, &err);
    ck_assert_msg(g2, "%s\n%s", err.message, text);
    ck_assert_int_eq(sc_graph_write_text(g2, NULL, &text2, NULL, &err), SC_OK);
    ck_assert_str_eq(text, text2);
    for (k = 0; k < 3; k++) {
        sc_tensor *in[1] = {NULL}, *out[2] = {NULL, NULL};
        ck_assert_int_eq(sc_tensor_new(SC_DTYPE_F32, 1, &sizes[k], &in[0],
                                       &err), SC_OK);
        ck_assert_msg(sc_interp_run(g, in, NULL, out, NULL, &err) == SC_OK,
                      "size %lld: %s", (long long)sizes[k], err.message);
        ck_assert_int_eq(out[0]->ndim, 1);
        ck_assert_int_eq(out[0]->sizes[0], want_len[k]);
        ck_assert_int_eq(out[1]->dtype, SC_DTYPE_B8);
        ck_assert_int_eq(sc_tensor_item_int64(out[1], 0) != 0, want_not[k]);
        sc_tensor_free(in[0]);
        sc_tensor_free(out[0]);
        sc_tensor_free(out[1]);
    }
    free(text);
    free(text2);
    sc_graph_free(g2);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

START_TEST(test_tensor_and)
{
    static const char *t =
        "def forward(self, x: \"b8[4]\", y: \"b8[4]\"):\n"
        "    and_: \"b8[4]\" = x & y\n"
        "    return (and_,)\n";
    sc_ctx *ctx = sc_ctx_new();
    sc_error err;
    sc_graph *g = text_graph(ctx, t, &err);
    sc_tensor *in[2], *out[1] = {NULL};
    int64_t four = 4;
    sc_result r;

    ck_assert_msg(g, "%s", err.message);
    sc_graph_node_result(g, 2, &r);
    ck_assert_int_eq(r.kind, SC_RESULT_TENSOR);
    ck_assert_int_eq(sc_tensor_new(SC_DTYPE_B8, 1, &four, &in[0], &err),
                     SC_OK);
    ck_assert_int_eq(sc_tensor_new(SC_DTYPE_B8, 1, &four, &in[1], &err),
                     SC_OK);
    ck_assert_int_eq(sc_interp_run(g, in, NULL, out, NULL, &err),
                     SC_ERR_UNSUPPORTED);
    ck_assert_msg(strstr(err.message, "bitwise") != NULL, "%s", err.message);
    ck_assert_ptr_null(out[0]);
    sc_tensor_free(in[0]);
    sc_tensor_free(in[1]);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

/* Calls the shape rules reject: the message and the line of the node. */
static const struct {
    const char *what, *text, *message;
} bad_reads[] = {
    {"index_select with a 2-d index",
     "def forward(self, x: \"f32[4, 3][3, 1]cpu\", i: \"i64[2, 2][2, 1]cpu\"):\n"
     "    o: \"f32[4, 3][3, 1]cpu\" = torch.ops.aten.index_select.default(x, "
     "0, i)\n"
     "    return (o,)\n",
     "Index is supposed to be a vector"},
    {"index_select with a float index",
     "def forward(self, x: \"f32[4, 3][3, 1]cpu\", i: \"f32[2][1]cpu\"):\n"
     "    o: \"f32[2, 3][3, 1]cpu\" = torch.ops.aten.index_select.default(x, "
     "0, i)\n"
     "    return (o,)\n",
     "Expected dtype int32/int64 for index"},
    {"index_select at a dim out of range",
     "def forward(self, x: \"f32[4, 3][3, 1]cpu\", i: \"i64[2][1]cpu\"):\n"
     "    o: \"f32[2, 3][3, 1]cpu\" = torch.ops.aten.index_select.default(x, "
     "2, i)\n"
     "    return (o,)\n",
     "out of range"},
    {"index_add with a source of another dtype",
     "def forward(self, x: \"f32[4, 3][3, 1]cpu\", i: \"i64[2][1]cpu\", "
     "s: \"f64[2, 3][3, 1]cpu\"):\n"
     "    o: \"f32[4, 3][3, 1]cpu\" = torch.ops.aten.index_add.default(x, 0, "
     "i, s)\n"
     "    return (o,)\n",
     "must have the same scalar type"},
    {"index_add with a source of the wrong size",
     "def forward(self, x: \"f32[4, 3][3, 1]cpu\", i: \"i64[2][1]cpu\", "
     "s: \"f32[3, 3][3, 1]cpu\"):\n"
     "    o: \"f32[4, 3][3, 1]cpu\" = torch.ops.aten.index_add.default(x, 0, "
     "i, s)\n"
     "    return (o,)\n",
     "Number of indices should be equal to source.size(dim)"},
    {"masked_scatter with a float mask",
     "def forward(self, x: \"f32[4][1]cpu\", m: \"f32[4][1]cpu\", "
     "s: \"f32[4][1]cpu\"):\n"
     "    o: \"f32[4][1]cpu\" = torch.ops.aten.masked_scatter.default(x, m, "
     "s)\n"
     "    return (o,)\n",
     "Mask must be bool or uint8"},
    {"masked_scatter with a mask that does not broadcast",
     "def forward(self, x: \"f32[4][1]cpu\", m: \"b8[3][1]cpu\", "
     "s: \"f32[4][1]cpu\"):\n"
     "    o: \"f32[4][1]cpu\" = torch.ops.aten.masked_scatter.default(x, m, "
     "s)\n"
     "    return (o,)\n",
     ""},
    {"an annotation that disagrees with index_select's rule",
     "def forward(self, x: \"f32[4, 3][3, 1]cpu\", i: \"i64[2][1]cpu\"):\n"
     "    o: \"f32[4, 2][2, 1]cpu\" = torch.ops.aten.index_select.default(x, "
     "0, i)\n"
     "    return (o,)\n",
     ""},
    {"index.Tensor with too many indices",
     "def forward(self, x: \"f32[4][1]cpu\", i: \"i64[2][1]cpu\"):\n"
     "    o: \"f32[2][1]cpu\" = torch.ops.aten.index.Tensor(x, [i, i])\n"
     "    return (o,)\n",
     "too many indices"},
    {"index.Tensor with indices that do not broadcast",
     "def forward(self, x: \"f32[4, 3][3, 1]cpu\", i: \"i64[2][1]cpu\", "
     "j: \"i64[3][1]cpu\"):\n"
     "    o: \"f32[2][1]cpu\" = torch.ops.aten.index.Tensor(x, [i, j])\n"
     "    return (o,)\n",
     ""},
    {"index_put with values of another dtype",
     "def forward(self, x: \"f32[4][1]cpu\", i: \"i64[2][1]cpu\", "
     "v: \"f64[2][1]cpu\"):\n"
     "    o: \"f32[4][1]cpu\" = torch.ops.aten.index_put.default(x, [i], v)\n"
     "    return (o,)\n",
     "Index put requires the source and destination dtypes match"},
    {"convert_element_type's strides not preserved",
     "def forward(self, x: \"f32[4, 3][1, 4]cpu\"):\n"
     "    o: \"bf16[4, 3][3, 1]cpu\" = "
     "torch.ops.prims.convert_element_type.default(x, torch.bfloat16)\n"
     "    return (o,)\n",
     ""},
};

START_TEST(test_bad_read)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_error err;
    sc_graph *g = text_graph(ctx, bad_reads[_i].text, &err);

    ck_assert_msg(g == NULL, "%s: read", bad_reads[_i].what);
    ck_assert_msg(err.code != SC_OK && err.code != SC_ERR_NOMEM, "%s: %s",
                  bad_reads[_i].what, sc_status_name(err.code));
    ck_assert_msg(strstr(err.message, bad_reads[_i].message) != NULL,
                  "%s: %s", bad_reads[_i].what, err.message);
    ck_assert_msg(err.line == 2, "%s: line %d (%s)", bad_reads[_i].what,
                  err.line, err.message);
    sc_ctx_free(ctx);
}
END_TEST

/* Index values the kernels refuse at run time (past the end, below the
 * start); the error names the node. */
static const int64_t bad_indices[] = {4, -5, INT64_MIN};

START_TEST(test_bad_run)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_error err;
    sc_graph *g = text_graph(
        ctx,
        "def forward(self, x: \"f32[4][1]cpu\", i: \"i64[1][1]cpu\"):\n"
        "    o: \"f32[1][1]cpu\" = torch.ops.aten.index_select.default(x, 0, "
        "i)\n"
        "    return (o,)\n",
        &err);
    sc_tensor *in[2] = {NULL, NULL}, *out[1] = {NULL};
    int64_t four = 4, one = 1;
    char want[64];

    ck_assert_msg(g, "%s", err.message);
    ck_assert_int_eq(sc_tensor_new(SC_DTYPE_F32, 1, &four, &in[0], &err),
                     SC_OK);
    ck_assert_int_eq(sc_tensor_new(SC_DTYPE_I64, 1, &one, &in[1], &err),
                     SC_OK);
    *(int64_t *)sc_tensor_data(in[1]) = bad_indices[_i];
    ck_assert_int_eq(sc_interp_run(g, in, NULL, out, NULL, &err),
                     SC_ERR_INVALID);
    snprintf(want, sizeof want, "index %lld is out of bounds",
             (long long)bad_indices[_i]);
    ck_assert_msg(strstr(err.message, want) != NULL &&
                      strstr(err.message, "node o ") != NULL,
                  "%s", err.message);
    ck_assert_ptr_null(out[0]);
    sc_tensor_free(in[0]);
    sc_tensor_free(in[1]);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

/* A boolean mask index (data-dependent size): read with the annotation
 * kept (the rule cannot say), refused when run. */
START_TEST(test_index_bool_mask)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_error err;
    sc_graph *g = text_graph(
        ctx,
        "def forward(self, x: \"f32[4, 3][3, 1]cpu\", m: \"b8[4][1]cpu\"):\n"
        "    o: \"f32[2, 3][3, 1]cpu\" = torch.ops.aten.index.Tensor(x, [m])\n"
        "    return (o,)\n",
        &err);
    sc_tensor *in[2] = {NULL, NULL}, *out[1] = {NULL};
    int64_t sz[2] = {4, 3};

    ck_assert_msg(g, "%s", err.message);
    ck_assert_int_eq(sc_tensor_new(SC_DTYPE_F32, 2, sz, &in[0], &err), SC_OK);
    ck_assert_int_eq(sc_tensor_new(SC_DTYPE_B8, 1, sz, &in[1], &err), SC_OK);
    ck_assert_int_eq(sc_interp_run(g, in, NULL, out, NULL, &err),
                     SC_ERR_UNSUPPORTED);
    ck_assert_msg(strstr(err.message, "only long and int index tensors") !=
                      NULL, "%s", err.message);
    ck_assert_ptr_null(out[0]);
    sc_tensor_free(in[0]);
    sc_tensor_free(in[1]);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

START_TEST(test_masked_scatter_short_source)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_error err;
    sc_graph *g = text_graph(
        ctx,
        "def forward(self, x: \"f32[4][1]cpu\", m: \"b8[4][1]cpu\", "
        "s: \"f32[2][1]cpu\"):\n"
        "    o: \"f32[4][1]cpu\" = torch.ops.aten.masked_scatter.default(x, "
        "m, s)\n"
        "    return (o,)\n",
        &err);
    sc_tensor *in[3] = {NULL, NULL, NULL}, *out[1] = {NULL};
    int64_t four = 4, two = 2;
    size_t k;

    ck_assert_msg(g, "%s", err.message);
    ck_assert_int_eq(sc_tensor_new(SC_DTYPE_F32, 1, &four, &in[0], &err),
                     SC_OK);
    ck_assert_int_eq(sc_tensor_new(SC_DTYPE_B8, 1, &four, &in[1], &err),
                     SC_OK);
    ck_assert_int_eq(sc_tensor_new(SC_DTYPE_F32, 1, &two, &in[2], &err),
                     SC_OK);
    for (k = 0; k < 4; k++)
        ((uint8_t *)sc_tensor_data(in[1]))[k] = k != 1;
    ck_assert_int_eq(sc_interp_run(g, in, NULL, out, NULL, &err),
                     SC_ERR_SHAPE);
    ck_assert_msg(strstr(err.message, "Number of elements of source") != NULL,
                  "%s", err.message);
    ck_assert_ptr_null(out[0]);
    for (k = 0; k < 3; k++)
        sc_tensor_free(in[k]);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

/* ---- Joint graphs of the ops with derivative formulas ------------------- */

/* A forward graph of one op; its joint graph (sc_graph_new_joint) must
 * contain the backward nodes torch 2.13's AOTAutograd traced for the same
 * forward (`want`: the calls, as torch printed them; for linear, which
 * torch decomposes before differentiating, the ops of symcut's formula),
 * and partition and validate. */
static const struct {
    const char *what, *text;
    const char *want[3];
} joints[] = {
    {"gather",
     "def forward(self, x: \"f32[3, 4]\", i: \"i64[2, 4]\"):\n"
     "    gather: \"f32[2, 4]\" = torch.ops.aten.gather.default(x, 0, i)\n"
     "    return [gather]\n",
     {"new_zeros: \"f32[3, 4][4, 1]cpu\" = "
      "torch.ops.aten.new_zeros.default(tangents_1, [3, 4])",
      "= torch.ops.aten.scatter_add.default(new_zeros, 0, primals_2, "
      "tangents_1)",
      NULL}},
    {"diagonal",
     "def forward(self, x: \"f32[3, 2, 4]\"):\n"
     "    diagonal: \"f32[2, 3]\" = torch.ops.aten.diagonal.default(x, -1, 2, "
     "0)\n"
     "    mul: \"f32[2, 3]\" = torch.ops.aten.mul.Tensor(diagonal, 2)\n"
     "    return [mul]\n",
     {"= torch.ops.aten.mul.Tensor(tangents_1, 2)",
      "diagonal_backward: \"f32[3, 2, 4][8, 4, 1]cpu\" = "
      "torch.ops.aten.diagonal_backward.default(mul_1, [3, 2, 4], -1, 2, 0)",
      NULL}},
    {"max.dim",
     "def forward(self, x: \"f32[3, 4]\"):\n"
     "    max_1 = torch.ops.aten.max.dim(x, 1)\n"
     "    getitem: \"f32[3]\" = max_1[0]\n"
     "    getitem_1: \"i64[3]\" = max_1[1]\n"
     "    return [getitem]\n",
     {"unsqueeze: \"f32[3, 1][1, 1]cpu\" = "
      "torch.ops.aten.unsqueeze.default(tangents_1, 1)",
      "new_zeros: \"f32[3, 4][4, 1]cpu\" = "
      "torch.ops.aten.new_zeros.default(unsqueeze, [3, 4])",
      "= torch.ops.aten.scatter.src(new_zeros, 1, unsqueeze_1, unsqueeze)"}},
    {"max.dim keepdim",
     "def forward(self, x: \"f32[3, 4]\"):\n"
     "    max_1 = torch.ops.aten.max.dim(x, 1, True)\n"
     "    getitem: \"f32[3, 1]\" = max_1[0]\n"
     "    getitem_1: \"i64[3, 1]\" = max_1[1]\n"
     "    return [getitem]\n",
     {"new_zeros: \"f32[3, 4][4, 1]cpu\" = "
      "torch.ops.aten.new_zeros.default(tangents_1, [3, 4])",
      "= torch.ops.aten.scatter.src(new_zeros, 1, getitem_1, tangents_1)",
      NULL}},
    {"constant_pad_nd",
     "def forward(self, x: \"f32[3, 4]\"):\n"
     "    constant_pad_nd: \"f32[3, 7]\" = "
     "torch.ops.aten.constant_pad_nd.default(x, [1, 2, -1, 1], 0.5)\n"
     "    return [constant_pad_nd]\n",
     {"constant_pad_nd_1: \"f32[3, 4][4, 1]cpu\" = "
      "torch.ops.aten.constant_pad_nd.default(tangents_1, [-1, -2, 1, -1])",
      NULL, NULL}},
    {"linear",
     "def forward(self, x: \"f32[2, 3, 4]\", w: \"f32[5, 4]\", "
     "b: \"f32[5]\"):\n"
     "    linear: \"f32[2, 3, 5]\" = torch.ops.aten.linear.default(x, w, b)\n"
     "    return [linear]\n",
     {"linear_1: \"f32[2, 3, 4]cpu\" = "
      "torch.ops.aten.linear.default(tangents_1, t)",
      "mm: \"f32[5, 4]cpu\" = torch.ops.aten.mm.default(t_1, reshape_1)",
      "= torch.ops.aten.sum.dim_IntList(tangents_1, [0, 1], True)"}},
    {"memory-efficient attention with a bias",
     "def forward(self, q: \"f32[2, 3, 5, 4]\", k: \"f32[2, 3, 7, 4]\", "
     "v: \"f32[2, 3, 7, 6]\", b: \"f32[2, 3, 5, 7]\"):\n"
     "    _scaled_dot_product_efficient_attention = "
     "torch.ops.aten._scaled_dot_product_efficient_attention.default(q, k, "
     "v, b, True, scale = 0.3)\n"
     "    getitem: \"f32[2, 3, 5, 6]\" = "
     "_scaled_dot_product_efficient_attention[0]\n"
     "    return [getitem]\n",
     {"= torch.ops.aten._scaled_dot_product_efficient_attention_backward."
      "default(tangents_1, primals_1, primals_2, primals_3, primals_4, "
      "getitem, getitem_1, getitem_2, getitem_3, 0.0, [True, True, True, "
      "True], False, scale = 0.3)",
      "getitem_7: \"f32[2, 3, 5, 7]cpu\" = "
      "_scaled_dot_product_efficient_attention_backward[3]",
      NULL}},
    {"linear without bias",
     "def forward(self, x: \"f32[3, 4]\", w: \"f32[5, 4]\"):\n"
     "    linear: \"f32[3, 5]\" = torch.ops.aten.linear.default(x, w)\n"
     "    return [linear]\n",
     {"= torch.ops.aten.linear.default(tangents_1, t)",
      "mm: \"f32[5, 4]cpu\" = torch.ops.aten.mm.default(t_1, reshape_1)",
      NULL}},
};

START_TEST(test_joint_validates)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_error err;
    sc_graph *fwd = text_graph(ctx, joints[_i].text, &err), *joint = NULL;
    sc_partition *p = NULL;
    sc_validate_options vo;
    sc_validate_report rep;
    char *text = NULL;
    size_t k;

    ck_assert_msg(fwd, "%s: %s", joints[_i].what, err.message);
    ck_assert_msg(sc_graph_new_joint(fwd, NULL, &joint, &err) == SC_OK,
                  "%s: joint: %s", joints[_i].what, err.message);
    ck_assert_int_eq(sc_graph_write_text(joint, NULL, &text, NULL, &err),
                     SC_OK);
    for (k = 0; k < 3 && joints[_i].want[k]; k++)
        ck_assert_msg(strstr(text, joints[_i].want[k]) != NULL,
                      "%s: no `%s` in\n%s", joints[_i].what,
                      joints[_i].want[k], text);
    ck_assert_msg(sc_partition_run(joint, NULL, &p, &err) == SC_OK,
                  "%s: partition: %s", joints[_i].what, err.message);
    sc_validate_options_init(&vo);
    vo.seed = 3;
    ck_assert_msg(sc_validate_run(sc_partition_joint(p),
                                  sc_partition_forward(p),
                                  sc_partition_backward(p), &vo, &rep,
                                  &err) == SC_OK,
                  "%s: validate: %s", joints[_i].what, err.message);
    ck_assert_msg(rep.passed, "%s: validate: %s", joints[_i].what,
                  rep.message);
    sc_partition_free(p);
    free(text);
    sc_graph_free(joint);
    sc_graph_free(fwd);
    sc_ctx_free(ctx);
}
END_TEST

Suite *ops2_suite(void)
{
    Suite *s = suite_create("ops2");
    TCase *tc = tcase_create("ops2");
    tcase_add_loop_test(tc, test_torch_case, 0, (int)ARRAY_SIZE(torch_cases));
    tcase_add_test(tc, test_sym_compare);
    tcase_add_test(tc, test_sym_logic);
    tcase_add_test(tc, test_tensor_and);
    tcase_add_test(tc, test_torch_sym_functions);
    tcase_add_loop_test(tc, test_bad_read, 0, (int)ARRAY_SIZE(bad_reads));
    tcase_add_loop_test(tc, test_bad_run, 0, (int)ARRAY_SIZE(bad_indices));
    tcase_add_test(tc, test_masked_scatter_short_source);
    tcase_add_test(tc, test_index_bool_mask);
    tcase_add_loop_test(tc, test_joint_validates, 0, (int)ARRAY_SIZE(joints));
    suite_add_tcase(s, tc);
    return s;
}
