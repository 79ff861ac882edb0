/* symcut tests — autodiff: sc_graph_new_joint and the generated derivative
 * formulas (graph/autodiff.c, graph/ops-autodiff-gen.c; doc/autodiff.md).
 *
 * Structure: names, output order, None gradients, accumulation,
 * broadcasting reductions, symbolic sizes.  Cross-check: for every example
 * with a forward graph and a .data folder, the joint graph symcut builds
 * computes PyTorch's gradients (the .data reference outputs) on the
 * reference inputs, within 1e-4 relative in f32.
 */
#include <config.h>

#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <symcut.h>

#include "util/internal.h"

Suite *autodiff_suite(void);

/* ---- Helpers ----------------------------------------------------------------- */

static char *srcpath(const char *rel)
{
    const char *top = getenv("top_srcdir");
    size_t n;
    char *p;
    if (!top)
        top = ".";
    n = strlen(top) + strlen(rel) + 2;
    p = malloc(n);
    ck_assert_ptr_nonnull(p);
    snprintf(p, n, "%s/%s", top, rel);
    return p;
}

static sc_graph *text_graph(sc_ctx *ctx, const char *text)
{
    sc_graph *g = NULL;
    sc_error err;
    sc_status st = sc_graph_read_text(ctx, text, strlen(text), "t.py", NULL,
                                      &g, &err);
    ck_assert_msg(st == SC_OK, "reading the test graph: %s", err.message);
    return g;
}

static sc_graph *file_graph(sc_ctx *ctx, const char *rel)
{
    char *p = srcpath(rel);
    sc_graph *g = NULL;
    sc_error err;
    sc_status st = sc_graph_read_file(ctx, p, NULL, &g, &err);
    ck_assert_msg(st == SC_OK, "reading %s: %s", p, err.message);
    free(p);
    return g;
}

static sc_graph *joint(const sc_graph *fwd, const bool *rg, size_t n)
{
    sc_joint_options o;
    sc_graph *j = NULL;
    sc_error err;
    sc_status st;
    sc_joint_options_init(&o);
    o.requires_grad = rg;
    o.nrequires_grad = n;
    st = sc_graph_new_joint(fwd, rg ? &o : NULL, &j, &err);
    ck_assert_msg(st == SC_OK, "sc_graph_new_joint: %s: %s", sc_status_name(st),
                  err.message);
    ck_assert_ptr_nonnull(j);
    return j;
}

/* The op of node id without namespace: "mm.default", "getitem". */
static const char *op_of(const sc_graph *g, sc_node_id id)
{
    const char *t = sc_graph_node_target(g, id);
    if (!t)
        return "placeholder";
    if (strncmp(t, "torch.ops.aten.", 15) == 0)
        return t + 15;
    if (strncmp(t, "operator.", 9) == 0)
        return t + 9;
    return t;
}

static sc_node_id node_arg(const sc_graph *g, sc_node_id id, size_t i)
{
    const sc_value *v = sc_graph_node_arg(g, id, i);
    ck_assert_ptr_nonnull(v);
    ck_assert_int_eq(v->kind, SC_VALUE_NODE);
    return v->u.node;
}

static size_t count_op(const sc_graph *g, const char *op)
{
    size_t n = 0, i;
    for (i = 0; i < sc_graph_node_count(g); i++)
        if (strcmp(op_of(g, (sc_node_id)i), op) == 0)
            n++;
    return n;
}

static sc_tensor *filled(size_t ndim, const int64_t *sizes, double base)
{
    sc_tensor *t = NULL;
    sc_error err;
    size_t i, n;
    ck_assert(sc_tensor_new(SC_DTYPE_F32, ndim, sizes, &t, &err) == SC_OK);
    n = sc_tensor_numel(t);
    for (i = 0; i < n; i++)
        ((float *)sc_tensor_data(t))[i] =
            (float)(base + 0.25 * (double)((i * 7) % 11) - 1.0);
    return t;
}

/* ---- Structure ------------------------------------------------------------------ */

/* fn_mm_gelu_sum with primals_1 not requiring grad: exactly PyTorch's joint
 * graph (same nodes, names, arguments, metadata and outputs). */
START_TEST(test_mm_gelu_matches_pytorch)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *f = file_graph(ctx, "examples/fn_mm_gelu_sum.forward.txt");
    sc_graph *ref = file_graph(ctx, "examples/fn_mm_gelu_sum.joint.txt");
    bool rg[3] = {false, true, true};
    sc_graph *j = joint(f, rg, 3);
    char why[256] = "";
    ck_assert_msg(sc_graph_equal(j, ref, SC_GRAPH_EQUAL_LENIENT_META, why,
                                 sizeof why),
                  "differs from PyTorch's joint graph: %s", why);
    sc_graph_free(j);
    sc_graph_free(ref);
    sc_graph_free(f);
    sc_ctx_free(ctx);
}
END_TEST

/* Default options: every floating primal requires grad; output order is
 * forward outputs, then one gradient per primal; the text round-trips. */
START_TEST(test_default_mask_and_roundtrip)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *f = file_graph(ctx, "examples/fn_mm_gelu_sum.forward.txt");
    sc_graph *j = joint(f, NULL, 0), *back = NULL;
    sc_error err;
    char *text = NULL, why[256] = "";
    size_t i;
    ck_assert_int_eq(sc_graph_primal_count(j), 3);
    ck_assert_int_eq(sc_graph_tangent_count(j), 1);
    ck_assert_str_eq(sc_graph_node_name(j, 0), "primals_1");
    ck_assert_str_eq(sc_graph_node_name(j, 3), "tangents_1");
    ck_assert_int_eq(sc_graph_node_role(j, 3), SC_ROLE_TANGENT);
    ck_assert_int_eq(sc_graph_output_count(j), 4);
    ck_assert_int_eq(sc_graph_fwd_output_count(j), 1);
    ck_assert_str_eq(sc_graph_node_name(j, sc_graph_output(j, 0)), "sum_1");
    for (i = 1; i < 4; i++) {
        sc_node_id o = sc_graph_output(j, i);
        sc_result r, p;
        ck_assert_int_ne(o, SC_NODE_NONE);
        sc_graph_node_result(j, o, &r);
        sc_graph_node_result(j, (sc_node_id)(i - 1), &p);
        ck_assert_int_eq(r.tensor.ndim, p.tensor.ndim);
        ck_assert_ptr_eq(r.tensor.sizes[0], p.tensor.sizes[0]);
        ck_assert_ptr_eq(r.tensor.sizes[1], p.tensor.sizes[1]);
    }
    /* primals_1's gradient: mm(gelu_backward, t(primals_2)) */
    ck_assert_str_eq(op_of(j, sc_graph_output(j, 1)), "mm.default");
    ck_assert_int_eq(count_op(j, "gelu_backward.default"), 1);
    ck_assert_int_eq(sc_graph_write_text(j, NULL, &text, NULL, &err), SC_OK);
    ck_assert_int_eq(sc_graph_read_text(ctx, text, strlen(text), "j.py", NULL,
                                        &back, &err),
                     SC_OK);
    ck_assert_msg(sc_graph_equal(j, back, 0, why, sizeof why), "%s", why);
    ck_assert_str_eq(sc_graph_class_name(j), "joint_fn");
    free(text);
    sc_graph_free(back);
    sc_graph_free(j);
    sc_graph_free(f);
    sc_ctx_free(ctx);
}
END_TEST

/* mlp_gelu: the bias gradients of addmm are sum.dim_IntList([0], True) +
 * view, the data input gets None, tangents are contiguous. */
START_TEST(test_mlp_bias_and_none)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *f = file_graph(ctx, "examples/mlp_gelu.forward.txt");
    bool rg[5] = {true, true, true, true, false};
    sc_graph *j = joint(f, rg, 5);
    sc_node_id b1 = sc_graph_output(j, 2), b2 = sc_graph_output(j, 4), s;
    const sc_value *dims, *keep;
    ck_assert_int_eq(sc_graph_output_count(j), 6);
    ck_assert_int_eq(sc_graph_output(j, 5), SC_NODE_NONE);
    ck_assert_str_eq(op_of(j, b1), "view.default");
    ck_assert_str_eq(op_of(j, b2), "view.default");
    s = node_arg(j, b2, 0);
    ck_assert_str_eq(op_of(j, s), "sum.dim_IntList");
    ck_assert_str_eq(sc_graph_node_name(j, node_arg(j, s, 0)), "tangents_1");
    dims = sc_graph_node_arg(j, s, 1);
    keep = sc_graph_node_arg(j, s, 2);
    ck_assert_int_eq(dims->kind, SC_VALUE_LIST);
    ck_assert_int_eq(dims->u.list.n, 1);
    ck_assert_int_eq(dims->u.list.items[0].u.i, 0);
    ck_assert(keep->kind == SC_VALUE_BOOL && keep->u.b);
    ck_assert_int_eq(count_op(j, "gelu_backward.default"), 1);
    sc_graph_free(j);
    sc_graph_free(f);
    sc_ctx_free(ctx);
}
END_TEST

static const char two_users[] =
    "def forward(self, primals_1: \"f32[4, 3][3, 1]cpu\", "
    "primals_2: \"f32[3][1]cpu\", primals_3: \"f32[4, 1][1, 1]cpu\"):\n"
    "    mul: \"f32[4, 3][3, 1]cpu\" = torch.ops.aten.mul.Tensor(primals_1, "
    "primals_1)\n"
    "    add: \"f32[4, 3][3, 1]cpu\" = torch.ops.aten.add.Tensor(mul, "
    "primals_2)\n"
    "    add_1: \"f32[4, 3][3, 1]cpu\" = torch.ops.aten.add.Tensor(add, "
    "primals_3)\n"
    "    return [add_1]\n";

/* A value with two uses gets the sum of both gradients (add.Tensor);
 * broadcast inputs get their gradient reduced: [3] from [4, 3] by sum over
 * dim 0 (keepdim) and a view, [4, 1] by a sum over dim 1 only.  Run: the
 * gradients equal 2 * x * t, the column sums and the row sums of t. */
START_TEST(test_accumulate_and_broadcast)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *f = text_graph(ctx, two_users);
    sc_graph *j = joint(f, NULL, 0);
    sc_node_id g1 = sc_graph_output(j, 1), g2 = sc_graph_output(j, 2),
               g3 = sc_graph_output(j, 3);
    int64_t s43[2] = {4, 3}, s3[1] = {3}, s41[2] = {4, 1};
    sc_tensor *in[4], *out[4];
    sc_error err;
    size_t r, c;
    ck_assert_str_eq(op_of(j, g1), "add.Tensor");
    ck_assert_str_eq(op_of(j, node_arg(j, g1, 0)), "mul.Tensor");
    ck_assert_str_eq(op_of(j, node_arg(j, g1, 1)), "mul.Tensor");
    ck_assert_str_eq(op_of(j, g2), "view.default");
    ck_assert_str_eq(op_of(j, node_arg(j, g2, 0)), "sum.dim_IntList");
    ck_assert_str_eq(op_of(j, g3), "sum.dim_IntList");
    ck_assert_int_eq(sc_graph_node_arg(j, g3, 1)->u.list.items[0].u.i, 1);

    in[0] = filled(2, s43, 0.5);
    in[1] = filled(1, s3, 0.1);
    in[2] = filled(2, s41, 0.2);
    in[3] = filled(2, s43, 0.3);
    ck_assert_msg(sc_interp_run(j, in, NULL, out, NULL, &err) == SC_OK, "%s",
                  err.message);
    for (r = 0; r < 4; r++) {
        double rowsum = 0;
        for (c = 0; c < 3; c++) {
            size_t k = r * 3 + c;
            double x = sc_tensor_item_double(in[0], k);
            double t = sc_tensor_item_double(in[3], k);
            ck_assert_double_eq_tol(sc_tensor_item_double(out[1], k),
                                    2 * x * t, 1e-5);
            rowsum += t;
        }
        ck_assert_double_eq_tol(sc_tensor_item_double(out[3], r), rowsum,
                                1e-5);
    }
    for (c = 0; c < 3; c++) {
        double colsum = 0;
        for (r = 0; r < 4; r++)
            colsum += sc_tensor_item_double(in[3], r * 3 + c);
        ck_assert_double_eq_tol(sc_tensor_item_double(out[2], c), colsum,
                                1e-5);
    }
    for (r = 0; r < 4; r++) {
        sc_tensor_free(in[r]);
        sc_tensor_free(out[r]);
    }
    sc_graph_free(j);
    sc_graph_free(f);
    sc_ctx_free(ctx);
}
END_TEST

static const char symbolic[] =
    "# symcut: hint s0=5\n"
    "def forward(self, primals_1: \"f32[s0, 3][3, 1]cpu\", "
    "primals_2: \"f32[3][1]cpu\", primals_3: \"f32[3, 2][2, 1]cpu\"):\n"
    "    add: \"f32[s0, 3][3, 1]cpu\" = torch.ops.aten.add.Tensor(primals_1, "
    "primals_2)\n"
    "    relu: \"f32[s0, 3][3, 1]cpu\" = torch.ops.aten.relu.default(add)\n"
    "    mm: \"f32[s0, 2][2, 1]cpu\" = torch.ops.aten.mm.default(relu, "
    "primals_3)\n"
    "    return [mm]\n";

/* Symbolic sizes flow through: the tangent is f32[s0, 2], the reduction
 * of the broadcast bias sums dim 0 of an [s0, 3] gradient, and the graph
 * runs at s0 = 5 giving the hand-computed gradient of primals_2. */
START_TEST(test_symbolic_sizes)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *f = text_graph(ctx, symbolic);
    sc_graph *j = joint(f, NULL, 0);
    sc_expr *s0 = sc_expr_symbol(ctx, "s0");
    sc_node_id t = sc_graph_find(j, "tangents_1"), g2 = sc_graph_output(j, 2);
    sc_result r;
    int64_t s53[2] = {5, 3}, s3[1] = {3}, s32[2] = {3, 2}, s52[2] = {5, 2};
    sc_tensor *in[4], *out[4];
    sc_error err;
    size_t i, c;
    ck_assert_int_ne(t, SC_NODE_NONE);
    sc_graph_node_result(j, t, &r);
    ck_assert_ptr_eq(r.tensor.sizes[0], s0);
    ck_assert_str_eq(op_of(j, g2), "view.default");
    sc_graph_node_result(j, node_arg(j, g2, 0), &r);
    ck_assert_int_eq(r.tensor.ndim, 2);
    ck_assert_ptr_eq(r.tensor.sizes[1], sc_expr_int_si(ctx, 3));
    ck_assert_int_eq(count_op(j, "threshold_backward.default"), 1);

    in[0] = filled(2, s53, 0.0);
    in[1] = filled(1, s3, 0.3);
    in[2] = filled(2, s32, 0.7);
    in[3] = filled(2, s52, 0.4);
    ck_assert_msg(sc_interp_run(j, in, NULL, out, NULL, &err) == SC_OK, "%s",
                  err.message);
    /* d primals_2[c] = sum_i [x_ic + b_c > 0] * sum_k t_ik w_ck */
    for (c = 0; c < 3; c++) {
        double want = 0;
        for (i = 0; i < 5; i++) {
            double x = sc_tensor_item_double(in[0], i * 3 + c) +
                       sc_tensor_item_double(in[1], c);
            double gy = sc_tensor_item_double(in[3], i * 2) *
                            sc_tensor_item_double(in[2], c * 2) +
                        sc_tensor_item_double(in[3], i * 2 + 1) *
                            sc_tensor_item_double(in[2], c * 2 + 1);
            if (x > 0)
                want += gy;
        }
        ck_assert_double_eq_tol(sc_tensor_item_double(out[2], c), want, 1e-5);
    }
    for (i = 0; i < 4; i++) {
        sc_tensor_free(in[i]);
        sc_tensor_free(out[i]);
    }
    sc_graph_free(j);
    sc_graph_free(f);
    sc_ctx_free(ctx);
}
END_TEST

static const char no_formula[] =
    "def forward(self, primals_1: \"f32[4][1]cpu\", "
    "primals_2: \"f32[4][1]cpu\"):\n"
    "    tanh_backward: \"f32[4][1]cpu\" = "
    "torch.ops.aten.tanh_backward.default(primals_1, primals_2)\n"
    "    return [tanh_backward]\n";

static const char not_diff[] =
    "def forward(self, primals_1: \"f32[4][1]cpu\"):\n"
    "    zeros_like: \"f32[4][1]cpu\" = "
    "torch.ops.aten.zeros_like.default(primals_1)\n"
    "    add: \"f32[4][1]cpu\" = torch.ops.aten.add.Tensor(zeros_like, "
    "primals_1)\n"
    "    gt: \"b8[4][1]cpu\" = torch.ops.aten.gt.Scalar(add, 0)\n"
    "    return [add, gt]\n";

/* Errors: an op without formulas that a gradient must cross; a joint
 * graph as input; a mask of the wrong length.  Non-differentiable ops and
 * bool outputs: no tangent, the gradient flows only through add. */
START_TEST(test_errors_and_nondiff)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *f = text_graph(ctx, no_formula), *j = NULL;
    sc_joint_options o;
    bool rg[1] = {true};
    sc_error err;
    ck_assert_int_eq(sc_graph_new_joint(f, NULL, &j, &err), SC_ERR_UNSUPPORTED);
    ck_assert_ptr_null(j);
    ck_assert_msg(strstr(err.message, "tanh_backward") &&
                      strstr(err.message, "no derivative formula"),
                  "%s", err.message);
    sc_joint_options_init(&o);
    o.requires_grad = rg;
    o.nrequires_grad = 1;
    ck_assert_int_eq(sc_graph_new_joint(f, &o, &j, &err), SC_ERR_INVALID);
    sc_graph_free(f);

    f = file_graph(ctx, "examples/mlp_gelu.joint.txt");
    ck_assert_int_eq(sc_graph_new_joint(f, NULL, &j, &err), SC_ERR_INVALID);
    ck_assert_ptr_null(j);
    sc_graph_free(f);

    f = text_graph(ctx, not_diff);
    {
        bool flags[4] = {false, true, false, true};
        ck_assert_int_eq(sc_graph_node_count(f), 4);
        ck_assert_int_eq(sc_graph_requires_grad(f, NULL, flags, &err), SC_OK);
        ck_assert(flags[0] && !flags[1] && flags[2] && !flags[3]);
        rg[0] = false;
        ck_assert_int_eq(sc_graph_requires_grad(f, &o, flags, &err), SC_OK);
        ck_assert(!flags[0] && !flags[1] && !flags[2] && !flags[3]);
        rg[0] = true;
    }
    j = joint(f, NULL, 0);
    ck_assert_int_eq(sc_graph_tangent_count(j), 1);
    ck_assert_int_eq(sc_graph_output_count(j), 3);
    ck_assert_str_eq(sc_graph_node_name(j, sc_graph_output(j, 2)),
                     "tangents_1");
    sc_graph_free(j);
    sc_graph_free(f);
    sc_ctx_free(ctx);
}
END_TEST

static const char dropout[] =
    "def forward(self, primals_1: \"f32[6, 5][5, 1]cpu\"):\n"
    "    native_dropout = torch.ops.aten.native_dropout.default(primals_1, "
    "0.25, True)\n"
    "    getitem: \"f32[6, 5][5, 1]cpu\" = native_dropout[0]\n"
    "    getitem_1: \"b8[6, 5][5, 1]cpu\" = native_dropout[1]\n"
    "    return [getitem, getitem_1]\n";

/* A random op: the joint graph draws the mask once (in its forward part)
 * and the backward reuses it (native_dropout_backward of getitem_1), so
 * the gradient is exactly t * mask / 0.75 for the mask the same run drew.
 * The bool mask output gets no tangent. */
START_TEST(test_dropout)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *f = text_graph(ctx, dropout);
    sc_graph *j = joint(f, NULL, 0);
    int64_t s[2] = {6, 5};
    sc_tensor *in[2], *out[3];
    sc_interp_options io;
    sc_error err;
    size_t k, kept = 0;
    ck_assert_int_eq(sc_graph_tangent_count(j), 1);
    ck_assert_str_eq(op_of(j, sc_graph_output(j, 2)),
                     "native_dropout_backward.default");
    in[0] = filled(2, s, 0.5);
    in[1] = filled(2, s, 0.9);
    sc_interp_options_init(&io);
    io.seed = 7;
    ck_assert_msg(sc_interp_run(j, in, &io, out, NULL, &err) == SC_OK, "%s",
                  err.message);
    for (k = 0; k < 30; k++) {
        double m = sc_tensor_item_double(out[1], k);
        double t = sc_tensor_item_double(in[1], k);
        kept += m != 0;
        ck_assert_double_eq_tol(sc_tensor_item_double(out[2], k),
                                t * m / 0.75, 1e-5);
    }
    ck_assert(kept > 0 && kept < 30);
    for (k = 0; k < 2; k++)
        sc_tensor_free(in[k]);
    for (k = 0; k < 3; k++)
        sc_tensor_free(out[k]);
    sc_graph_free(j);
    sc_graph_free(f);
    sc_ctx_free(ctx);
}
END_TEST

/* ---- Every formula against finite differences ------------------------------ */

/* One forward graph per differentiable op, in f64: placeholders (dtype and
 * sizes; contiguous), body lines, outputs.  Inputs are uniform in [-1, 1)
 * (integers in [0, 3)); ops with a restricted domain get a positive input
 * through abs + 0.5. */
typedef struct fd_case {
    const char *name;
    const char *inputs;  /* "f64 3 4; f64 4 5; i64 6" */
    const char *body;    /* lines of `x = torch.ops.aten....` */
    const char *outputs; /* "x, y" */
} fd_case;

#define POS(v) "    ab = torch.ops.aten.abs.default(" v ")\n" \
               "    pos = torch.ops.aten.add.Scalar(ab, 0.5)\n"

static const fd_case fd_cases[] = {
    {"mm", "f64 3 4; f64 4 2", "    r = torch.ops.aten.mm.default(primals_1, primals_2)\n", "r"},
    {"bmm", "f64 2 3 4; f64 2 4 2", "    r = torch.ops.aten.bmm.default(primals_1, primals_2)\n", "r"},
    {"addmm", "f64 2; f64 3 4; f64 4 2", "    r = torch.ops.aten.addmm.default(primals_1, primals_2, primals_3, beta = 0.5, alpha = 2)\n", "r"},
    {"t", "f64 3 4", "    r = torch.ops.aten.t.default(primals_1)\n    s = torch.ops.aten.mul.Tensor(r, r)\n", "s"},
    {"transpose", "f64 2 3 4", "    r = torch.ops.aten.transpose.int(primals_1, 0, 2)\n    c = torch.ops.aten.clone.default(r)\n", "c"},
    {"permute", "f64 2 3 4", "    r = torch.ops.aten.permute.default(primals_1, [2, 0, 1])\n    c = torch.ops.aten.mul.Tensor(r, r)\n", "c"},
    {"view", "f64 3 4", "    r = torch.ops.aten.view.default(primals_1, [2, 6])\n", "r"},
    {"unsafe_view", "f64 3 4", "    r = torch.ops.aten._unsafe_view.default(primals_1, [12])\n", "r"},
    {"reshape_alias", "f64 3 4", "    r = torch.ops.aten._reshape_alias.default(primals_1, [4, 3], [3, 1])\n", "r"},
    {"reshape_noncontig", "f64 3 4", "    t = torch.ops.aten.t.default(primals_1)\n    r = torch.ops.aten.reshape.default(t, [12])\n", "r"},
    {"expand", "f64 3 1", "    r = torch.ops.aten.expand.default(primals_1, [2, 3, 4])\n    m = torch.ops.aten.mul.Tensor(r, r)\n", "m"},
    {"alias_clone", "f64 3", "    a = torch.ops.aten.alias.default(primals_1)\n    c = torch.ops.aten.clone.default(a)\n", "c"},
    {"squeeze_unsqueeze", "f64 3 1 2", "    s = torch.ops.aten.squeeze.dim(primals_1, 1)\n    u = torch.ops.aten.unsqueeze.default(s, 0)\n    m = torch.ops.aten.mul.Tensor(u, u)\n", "m"},
    {"slice", "f64 5 3", "    s = torch.ops.aten.slice.Tensor(primals_1, 0, 1, 4)\n    m = torch.ops.aten.mul.Tensor(s, s)\n", "m"},
    {"select", "f64 4 3", "    s = torch.ops.aten.select.int(primals_1, 0, 2)\n    m = torch.ops.aten.mul.Tensor(s, s)\n", "m"},
    {"split", "f64 5 2", "    sp = torch.ops.aten.split.Tensor(primals_1, 2)\n    a = sp[0]\n    c = sp[2]\n    m = torch.ops.aten.mul.Tensor(c, c)\n", "a, m"},
    {"unsafe_split", "f64 4 2", "    sp = torch.ops.aten.unsafe_split.Tensor(primals_1, 2, 0)\n    a = sp[1]\n", "a"},
    {"unbind", "f64 3 2", "    ub = torch.ops.aten.unbind.int(primals_1, 1)\n    a = ub[1]\n    m = torch.ops.aten.mul.Tensor(a, a)\n", "m"},
    {"cat", "f64 2 3; f64 1 3", "    c = torch.ops.aten.cat.default([primals_1, primals_2, primals_1])\n    m = torch.ops.aten.mul.Tensor(c, c)\n", "m"},
    {"stack", "f64 2 3; f64 2 3", "    c = torch.ops.aten.stack.default([primals_1, primals_2], 1)\n    m = torch.ops.aten.mul.Tensor(c, c)\n", "m"},
    {"add_sub", "f64 3 4; f64 4", "    a = torch.ops.aten.add.Tensor(primals_1, primals_2, alpha = 3)\n    b = torch.ops.aten.sub.Tensor(a, primals_2, alpha = 0.5)\n    c = torch.ops.aten.mul.Tensor(b, a)\n", "c"},
    {"scalar_ops", "f64 3", "    a = torch.ops.aten.add.Scalar(primals_1, 2)\n    b = torch.ops.aten.sub.Scalar(a, 1)\n    c = torch.ops.aten.rsub.Scalar(b, 1, 2)\n    d = torch.ops.aten.mul.Scalar(c, 3)\n    e = torch.ops.aten.div.Scalar(d, 4)\n    f = torch.ops.aten.mul.Tensor(e, primals_1)\n", "f"},
    {"mul_div", "f64 3 1; f64 4", POS("primals_2") "    a = torch.ops.aten.mul.Tensor(primals_1, primals_2)\n    d = torch.ops.aten.div.Tensor(a, pos)\n    e = torch.ops.aten.div.Tensor(primals_1, pos)\n    f = torch.ops.aten.mul.Tensor(d, e)\n", "f"},
    {"div_mode", "f64 4; f64 4", POS("primals_2") "    a = torch.ops.aten.div.Tensor_mode(primals_1, pos, rounding_mode = None)\n    b = torch.ops.aten.div.Tensor_mode(primals_1, pos, rounding_mode = 'floor')\n    c = torch.ops.aten.mul.Tensor(b, primals_1)\n", "a, c"},
    {"neg_abs", "f64 5", "    n = torch.ops.aten.neg.default(primals_1)\n    a = torch.ops.aten.abs.default(n)\n    m = torch.ops.aten.mul.Tensor(a, primals_1)\n", "m"},
    {"pow", "f64 4; f64 4", POS("primals_1") "    p = torch.ops.aten.pow.Tensor_Scalar(pos, 3)\n    q = torch.ops.aten.pow.Tensor_Tensor(pos, primals_2)\n    r = torch.ops.aten.pow.Scalar(2, primals_2)\n    s = torch.ops.aten.mul.Tensor(p, q)\n    t = torch.ops.aten.mul.Tensor(s, r)\n", "t"},
    {"unary_pos", "f64 6", POS("primals_1") "    a = torch.ops.aten.reciprocal.default(pos)\n    b = torch.ops.aten.rsqrt.default(pos)\n    c = torch.ops.aten.sqrt.default(pos)\n    d = torch.ops.aten.log.default(pos)\n", "a, b, c, d"},
    {"unary", "f64 6", "    a = torch.ops.aten.exp.default(primals_1)\n    b = torch.ops.aten.erf.default(primals_1)\n    c = torch.ops.aten.tanh.default(primals_1)\n    d = torch.ops.aten.sigmoid.default(primals_1)\n    e = torch.ops.aten.silu.default(primals_1)\n", "a, b, c, d, e"},
    {"relu_gelu", "f64 8", "    a = torch.ops.aten.relu.default(primals_1)\n    b = torch.ops.aten.gelu.default(primals_1)\n    c = torch.ops.aten.gelu.default(primals_1, approximate = 'tanh')\n", "a, b, c"},
    {"clamp", "f64 8", "    a = torch.ops.aten.clamp.default(primals_1, -0.5, 0.4)\n    b = torch.ops.aten.clamp.default(primals_1, None, 0.1)\n", "a, b"},
    {"where_masked_fill", "f64 6; f64 6", "    g = torch.ops.aten.gt.Scalar(primals_1, 0)\n    w = torch.ops.aten.where.self(g, primals_1, primals_2)\n    m = torch.ops.aten.masked_fill.Scalar(primals_2, g, 2.0)\n", "w, m"},
    {"sums", "f64 3 4", "    a = torch.ops.aten.sum.default(primals_1)\n    b = torch.ops.aten.sum.dim_IntList(primals_1, [1])\n    c = torch.ops.aten.sum.dim_IntList(primals_1, [0], True)\n    d = torch.ops.aten.sum_to_size.default(primals_1, [1, 4])\n", "a, b, c, d"},
    {"means", "f64 3 4", "    a = torch.ops.aten.mean.default(primals_1)\n    b = torch.ops.aten.mean.dim(primals_1, [0])\n    c = torch.ops.aten.mean.dim(primals_1, [-1], True)\n", "a, b, c"},
    {"amax", "f64 3 4", "    a = torch.ops.aten.amax.default(primals_1, [1])\n    b = torch.ops.aten.amax.default(primals_1, [0], True)\n", "a, b"},
    {"softmax", "f64 3 5", "    a = torch.ops.aten._softmax.default(primals_1, 1, False)\n    b = torch.ops.aten._log_softmax.default(primals_1, 0, False)\n", "a, b"},
    {"layer_norm", "f64 3 4; f64 4; f64 4", "    ln = torch.ops.aten.native_layer_norm.default(primals_1, [4], primals_2, primals_3, 1e-05)\n    y = ln[0]\n", "y"},
    {"group_norm", "f64 2 4 3; f64 4; f64 4", "    gn = torch.ops.aten.native_group_norm.default(primals_1, primals_2, primals_3, 2, 4, 3, 2, 1e-05)\n    y = gn[0]\n", "y"},
    {"batch_norm", "f64 4 3 2; f64 3; f64 3", "    bn = torch.ops.aten.native_batch_norm.default(primals_1, primals_2, primals_3, None, None, True, 0.1, 1e-05)\n    y = bn[0]\n", "y"},
    {"convolution", "f64 2 2 5 5; f64 3 2 3 3; f64 3", "    y = torch.ops.aten.convolution.default(primals_1, primals_2, primals_3, [1, 1], [1, 1], [1, 1], False, [0, 0], 1)\n", "y"},
    {"max_pool", "f64 1 2 4 4", "    mp = torch.ops.aten.max_pool2d_with_indices.default(primals_1, [2, 2], [2, 2])\n    y = mp[0]\n", "y"},
    {"embedding", "f64 3 4; i64 5", "    y = torch.ops.aten.embedding.default(primals_1, primals_2)\n", "y"},
    {"nll_loss", "f64 5 3; i64 5", "    ls = torch.ops.aten._log_softmax.default(primals_1, 1, False)\n    nl = torch.ops.aten.nll_loss_forward.default(ls, primals_2, None, 1, -100)\n    y = nl[0]\n", "y"},
    {"as_strided", "f64 2 4", "    a = torch.ops.aten.as_strided.default(primals_1, [3, 3], [1, 1], 2)\n    m = torch.ops.aten.mul.Tensor(a, a)\n", "m"},
    {"as_strided_views", "f64 4 3", "    s = torch.ops.aten.slice.Tensor(primals_1, 0, 1, 4)\n    a = torch.ops.aten.as_strided.default(s, [2, 2], [1, 3])\n    t = torch.ops.aten.t.default(primals_1)\n    b = torch.ops.aten.as_strided.default(t, [3, 2], [2, 1], 5)\n    m = torch.ops.aten.mul.Tensor(a, a)\n", "m, b"},
    {"to_copy", "f64 4", "    a = torch.ops.aten._to_copy.default(primals_1, dtype = torch.float64)\n    m = torch.ops.aten.mul.Tensor(a, a)\n", "m"},
};

/* The forward graph text of a case. */
static char *fd_text(const fd_case *c)
{
    char *buf = malloc(8192), *p;
    const char *in = c->inputs;
    int k = 0;
    ck_assert_ptr_nonnull(buf);
    p = buf + sprintf(buf, "def forward(self");
    while (*in) {
        char dt[8];
        long sz[6];
        int nd = 0, used;
        long stride = 1;
        int i;
        ck_assert(sscanf(in, "%7s%n", dt, &used) == 1);
        in += used;
        while (nd < 6 && sscanf(in, "%ld%n", &sz[nd], &used) == 1) {
            in += used;
            nd++;
        }
        p += sprintf(p, ", primals_%d: \"%s[", ++k, dt);
        for (i = 0; i < nd; i++)
            p += sprintf(p, "%s%ld", i ? ", " : "", sz[i]);
        p += sprintf(p, "][");
        {
            long st[6];
            for (i = nd - 1; i >= 0; i--) {
                st[i] = stride;
                stride *= sz[i];
            }
            for (i = 0; i < nd; i++)
                p += sprintf(p, "%s%ld", i ? ", " : "", st[i]);
        }
        p += sprintf(p, "]cpu\"");
        while (*in == ' ' || *in == ';')
            in++;
    }
    sprintf(p, "):\n%s    return [%s]\n", c->body, c->outputs);
    return buf;
}

static sc_status run_graph(const sc_graph *g, sc_tensor **in, sc_tensor **out,
                           sc_error *err)
{
    return sc_interp_run(g, in, NULL, out, NULL, err);
}

/* <tangents, forward outputs> at the current inputs. */
static double fd_objective(const sc_graph *f, sc_tensor **in,
                           sc_tensor *const *tan, const bool *has_tan)
{
    size_t no = sc_graph_output_count(f), i, e, k = 0;
    sc_tensor *out[16] = {0};
    sc_error err;
    double acc = 0;
    ck_assert(no <= 16);
    ck_assert_msg(run_graph(f, in, out, &err) == SC_OK, "%s", err.message);
    for (i = 0; i < no; i++) {
        if (has_tan[i]) {
            for (e = 0; e < sc_tensor_numel(out[i]); e++)
                acc += sc_tensor_item_double(out[i], e) *
                       sc_tensor_item_double(tan[k], e);
            k++;
        }
        sc_tensor_free(out[i]);
    }
    return acc;
}

/* The joint graph's gradient of every input element against central
 * differences of the forward graph (eps 1e-6; |a - n| <= 1e-5 + 1e-3|n|,
 * PyTorch gradcheck's tolerances). */
START_TEST(test_formula_finite_differences)
{
    const fd_case *c = &fd_cases[_i];
    char *text = fd_text(c);
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *f = text_graph(ctx, text), *j;
    sc_symmap *bind = sc_symmap_new(ctx);
    size_t np = sc_graph_placeholder_count(f), nj, no, nfo, i, e, k;
    sc_tensor *in[24] = {0}, *out[40] = {0}, *tan[16];
    bool has_tan[16] = {false};
    sc_error err;
    j = joint(f, NULL, 0);
    nj = sc_graph_placeholder_count(j);
    no = sc_graph_output_count(j);
    nfo = sc_graph_fwd_output_count(j);
    ck_assert(nj <= 24 && no <= 40);
    ck_assert_int_eq(sc_interp_bind_sizes(j, NULL, bind, &err), SC_OK);
    ck_assert_msg(sc_interp_random_inputs(j, bind, 1000 + (uint64_t)_i, 3,
                                          in, &err) == SC_OK,
                  "%s", err.message);
    ck_assert_msg(run_graph(j, in, out, &err) == SC_OK, "%s: %s", c->name,
                  err.message);
    for (i = 0, k = 0; i < nfo; i++) {
        sc_node_id o = sc_graph_output(j, i);
        /* tangents follow the primals, one per differentiable output */
        sc_result r;
        sc_graph_node_result(j, o, &r);
        has_tan[i] = r.kind == SC_RESULT_TENSOR &&
                     sc_dtype_kind(r.tensor.dtype) == 'f';
        if (has_tan[i]) {
            tan[k] = in[np + k];
            k++;
        }
    }
    ck_assert_int_eq(k, nj - np);
    for (i = 0; i < np; i++) {
        sc_tensor *g = out[nfo + i];
        double *x;
        if (sc_dtype_kind(in[i]->dtype) != 'f') {
            ck_assert_msg(g == NULL, "%s: integer input %zu has a gradient",
                          c->name, i);
            continue;
        }
        ck_assert_msg(g != NULL, "%s: no gradient for input %zu", c->name, i);
        ck_assert(sc_tensor_is_contiguous(in[i]));
        x = sc_tensor_data(in[i]);
        for (e = 0; e < sc_tensor_numel(in[i]); e++) {
            double x0 = x[e], lp, lm, num, ana;
            x[e] = x0 + 1e-6;
            lp = fd_objective(f, in, tan, has_tan);
            x[e] = x0 - 1e-6;
            lm = fd_objective(f, in, tan, has_tan);
            x[e] = x0;
            num = (lp - lm) / 2e-6;
            ana = sc_tensor_item_double(g, e);
            ck_assert_msg(fabs(ana - num) <= 1e-5 + 1e-3 * fabs(num),
                          "%s: input %zu element %zu: analytic %.10g, "
                          "numeric %.10g", c->name, i, e, ana, num);
        }
    }
    for (i = 0; i < nj; i++)
        sc_tensor_free(in[i]);
    for (i = 0; i < no; i++)
        sc_tensor_free(out[i]);
    sc_symmap_free(bind);
    free(text);
    sc_graph_free(j);
    sc_graph_free(f);
    sc_ctx_free(ctx);
}
END_TEST

/* ---- Cross-check against PyTorch --------------------------------------------- */

static char *slurp(const char *path)
{
    FILE *fp = fopen(path, "rb");
    long n;
    char *b;
    if (!fp)
        return NULL;
    fseek(fp, 0, SEEK_END);
    n = ftell(fp);
    rewind(fp);
    b = malloc((size_t)n + 1);
    ck_assert_ptr_nonnull(b);
    ck_assert_int_eq(fread(b, 1, (size_t)n, fp), (size_t)n);
    b[n] = '\0';
    fclose(fp);
    return b;
}

/* The requires_grad flags of the manifest's inputs, in order (the
 * "inputs" array lists the placeholders first). */
static void manifest_mask(const char *dir, bool *rg, size_t np)
{
    char path[1024];
    char *m, *p;
    size_t k = 0;
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    m = slurp(path);
    ck_assert_msg(m != NULL, "cannot read %s", path);
    p = strstr(m, "\"inputs\"");
    ck_assert_ptr_nonnull(p);
    while (k < np && (p = strstr(p, "\"requires_grad\""))) {
        p += strlen("\"requires_grad\"");
        while (*p == ' ' || *p == ':')
            p++;
        rg[k++] = strncmp(p, "true", 4) == 0;
    }
    ck_assert_int_eq(k, np);
    free(m);
}

/* The forward part of a joint graph (the primals and the nodes the
 * forward outputs need, in order, with their names and metadata), built
 * through the public builder: a forward graph for the examples PyTorch
 * gave only as joint graphs (the dynamic-shape ones). */
static sc_value remap(const sc_value *v, const sc_node_id *map,
                      sc_value *pool, size_t *used)
{
    sc_value out = *v;
    size_t i;
    if (v->kind == SC_VALUE_NODE) {
        out.u.node = map[v->u.node];
        ck_assert_int_ne(out.u.node, SC_NODE_NONE);
    } else if (v->kind == SC_VALUE_LIST || v->kind == SC_VALUE_TUPLE) {
        sc_value *items = pool + *used;
        *used += v->u.list.n;
        ck_assert(*used < 4096);
        for (i = 0; i < v->u.list.n; i++)
            items[i] = remap(&v->u.list.items[i], map, pool, used);
        out.u.list.items = items;
    }
    return out;
}

static sc_graph *forward_of_joint(sc_ctx *ctx, const sc_graph *jg)
{
    size_t n = sc_graph_node_count(jg), nfo = sc_graph_fwd_output_count(jg);
    size_t i, k, nsym;
    bool *need = calloc(n + 1, sizeof *need);
    sc_node_id *map = calloc(n + 1, sizeof *map), outs[256];
    sc_value *pool = calloc(4096, sizeof *pool);
    sc_expr *syms[64];
    sc_graph *f = sc_graph_new(ctx);
    sc_error err;
    ck_assert(need && map && pool && f && nfo <= 256);
    for (i = 0; i < nfo; i++)
        if (sc_graph_output(jg, i) != SC_NODE_NONE)
            need[sc_graph_output(jg, i)] = true;
    for (i = n; i-- > 0;) {
        sc_node_id id = (sc_node_id)i;
        if (sc_graph_node_role(jg, id) == SC_ROLE_PRIMAL)
            need[i] = true;
        if (!need[i])
            continue;
        for (k = 0; k < sc_graph_node_arg_count(jg, id); k++) {
            const sc_value *v = sc_graph_node_arg(jg, id, k);
            size_t e;
            if (v->kind == SC_VALUE_NODE)
                need[v->u.node] = true;
            else if (v->kind == SC_VALUE_LIST || v->kind == SC_VALUE_TUPLE)
                for (e = 0; e < v->u.list.n; e++)
                    if (v->u.list.items[e].kind == SC_VALUE_NODE)
                        need[v->u.list.items[e].u.node] = true;
        }
    }
    nsym = sc_graph_symbols(jg, syms, 64);
    ck_assert(nsym <= 64);
    for (i = 0; i < nsym; i++) {
        int64_t h;
        if (sc_graph_get_hint(jg, syms[i], &h))
            ck_assert_int_eq(sc_graph_set_hint(f, syms[i], h, &err), SC_OK);
    }
    sc_graph_set_env(f, sc_graph_env(jg));
    for (i = 0; i < n; i++) {
        sc_node_id id = (sc_node_id)i;
        sc_result r;
        map[i] = SC_NODE_NONE;
        if (!need[i])
            continue;
        sc_graph_node_result(jg, id, &r);
        if (sc_graph_node_kind(jg, id) == SC_NODE_PLACEHOLDER) {
            ck_assert_int_eq(sc_graph_add_placeholder(
                                 f, sc_graph_node_name(jg, id), SC_ROLE_PRIMAL,
                                 &r, &map[i], &err),
                             SC_OK);
        } else {
            size_t na = sc_graph_node_arg_count(jg, id), used = 0;
            size_t npos = sc_graph_node_positional_count(jg, id);
            sc_value args[32];
            const char *kwn[32];
            ck_assert(na <= 32);
            for (k = 0; k < na; k++) {
                args[k] = remap(sc_graph_node_arg(jg, id, k), map, pool,
                                &used);
                if (k >= npos)
                    kwn[k - npos] = sc_graph_node_kwname(jg, id, k);
            }
            ck_assert_msg(sc_graph_add_call(f, sc_graph_node_name(jg, id),
                                            sc_graph_node_target(jg, id),
                                            npos, args, na - npos, kwn,
                                            args + npos,
                                            r.kind == SC_RESULT_UNKNOWN
                                                ? NULL
                                                : &r,
                                            &map[i], &err) == SC_OK,
                          "%s", err.message);
        }
    }
    for (i = 0; i < nfo; i++)
        outs[i] = map[sc_graph_output(jg, i)];
    ck_assert_int_eq(sc_graph_set_outputs(f, nfo, outs, nfo, &err), SC_OK);
    ck_assert_msg(sc_graph_finish(f, &err) == SC_OK, "%s", err.message);
    free(need);
    free(map);
    free(pool);
    return f;
}

static const char *const cross_examples[] = {
    "fn_mm_gelu_sum", "mlp_gelu", "two_output_mlp", "attention_single_head",
    "lm_head_ce", "residual_mlp_16", "small_cnn", "lstm_module",
    /* given only as joint graphs (symbolic s0): the forward part is cut
     * out of PyTorch's joint graph first */
    "fn_mm_gelu_sum_dyn", "mlp_gelu_dyn",
};

/* Per element: |ours - ref| <= 1e-4 * |ref| + 1e-6 * S, where S is the
 * largest reference value of the example (at least 1): an absolute floor
 * for gradients that are zero up to rounding, such as the bias of a
 * convolution followed by batch norm or of the key projection before a
 * softmax, whose PyTorch values are f32 noise of the order of 1e-6.  And
 * None exactly where PyTorch has None. */
START_TEST(test_cross_check)
{
    const char *name = cross_examples[_i];
    char rel[256], path[1024];
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *f, *j, *pj = NULL;
    char *dir;
    size_t np, nj, no, i;
    bool *rg;
    sc_tensor **in, **out;
    sc_error err;
    double worst = 0, scale = 1;

    snprintf(rel, sizeof rel, "examples/%s.forward.txt", name);
    snprintf(path, sizeof path, "%s/%s", getenv("top_srcdir") ?
             getenv("top_srcdir") : ".", rel);
    if (access(path, R_OK) == 0)
        f = file_graph(ctx, rel);
    else {
        snprintf(rel, sizeof rel, "examples/%s.joint.txt", name);
        pj = file_graph(ctx, rel);
        f = forward_of_joint(ctx, pj);
    }
    snprintf(rel, sizeof rel, "examples/%s.data", name);
    dir = srcpath(rel);
    np = sc_graph_placeholder_count(f);
    rg = calloc(np + 1, sizeof *rg);
    ck_assert_ptr_nonnull(rg);
    manifest_mask(dir, rg, np);
    j = joint(f, rg, np);
    nj = sc_graph_placeholder_count(j);
    no = sc_graph_output_count(j);
    in = calloc(nj + 1, sizeof *in);
    out = calloc(no + 1, sizeof *out);
    ck_assert(in && out);
    for (i = 0; i < nj; i++) {
        snprintf(path, sizeof path, "%s/%s.npy", dir,
                 sc_graph_node_name(j, (sc_node_id)i));
        ck_assert_msg(sc_npy_read(path, &in[i], &err) == SC_OK, "%s: %s",
                      path, err.message);
    }
    ck_assert_msg(sc_interp_run(j, in, NULL, out, NULL, &err) == SC_OK,
                  "%s: running the joint graph: %s", name, err.message);
    /* the largest reference value of the example, for the absolute floor */
    for (i = 0; i < no; i++) {
        sc_tensor *ref = NULL;
        size_t e;
        snprintf(path, sizeof path, "%s/out_%zu.npy", dir, i);
        if (access(path, R_OK) != 0)
            continue;
        ck_assert_int_eq(sc_npy_read(path, &ref, &err), SC_OK);
        for (e = 0; e < sc_tensor_numel(ref); e++)
            if (fabs(sc_tensor_item_double(ref, e)) > scale)
                scale = fabs(sc_tensor_item_double(ref, e));
        sc_tensor_free(ref);
    }
    for (i = 0; i < no; i++) {
        sc_tensor *ref = NULL;
        size_t n, e;
        double maxref = 0, maxerr = 0;
        snprintf(path, sizeof path, "%s/out_%zu.npy", dir, i);
        if (access(path, R_OK) != 0) {
            ck_assert_msg(out[i] == NULL, "%s: output %zu: PyTorch has None",
                          name, i);
            continue;
        }
        ck_assert_msg(out[i] != NULL, "%s: output %zu is None", name, i);
        ck_assert_int_eq(sc_npy_read(path, &ref, &err), SC_OK);
        ck_assert_msg(sc_tensor_same_shape(ref, out[i]),
                      "%s: output %zu: shape differs", name, i);
        n = sc_tensor_numel(ref);
        for (e = 0; e < n; e++)
            if (fabs(sc_tensor_item_double(ref, e)) > maxref)
                maxref = fabs(sc_tensor_item_double(ref, e));
        for (e = 0; e < n; e++) {
            double a = sc_tensor_item_double(out[i], e);
            double b = sc_tensor_item_double(ref, e);
            double tol = 1e-4 * fabs(b) + 1e-6 * scale;
            ck_assert_msg(fabs(a - b) <= tol,
                          "%s: output %zu element %zu: %.9g vs PyTorch %.9g",
                          name, i, e, a, b);
            if (fabs(a - b) > maxerr)
                maxerr = fabs(a - b);
        }
        /* the worst relative error, over outputs that are not zero up
         * to rounding (those are covered by the absolute floor) */
        if (maxref > 1e-3 * scale && maxerr / maxref > worst)
            worst = maxerr / maxref;
        sc_tensor_free(ref);
    }
    if (getenv("SYMCUT_VERBOSE"))
        fprintf(stderr, "autodiff cross-check %s: worst max|err|/max|ref| "
                        "%.3g\n", name, worst);
    for (i = 0; i < nj; i++)
        sc_tensor_free(in[i]);
    for (i = 0; i < no; i++)
        sc_tensor_free(out[i]);
    free(in);
    free(out);
    free(rg);
    free(dir);
    sc_graph_free(j);
    sc_graph_free(f);
    sc_graph_free(pj);
    sc_ctx_free(ctx);
}
END_TEST

/* transformer_encoder_layer has dropout (bernoulli_ on empty_like) and no
 * .data folder: run PyTorch's joint graph and symcut's on the same random
 * inputs with the same seed.  Random ops draw from (seed, node name), and
 * the joint graph keeps the forward nodes' names, so both graphs draw the
 * same dropout masks; every output must agree within 1e-4 relative. */
START_TEST(test_cross_check_dropout_model)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *f = file_graph(ctx, "examples/transformer_encoder_layer.forward.txt");
    sc_graph *ref = file_graph(ctx, "examples/transformer_encoder_layer.joint.txt");
    size_t np = sc_graph_placeholder_count(f), nro = sc_graph_output_count(ref);
    bool *rg = calloc(np + 1, sizeof *rg);
    sc_graph *j;
    sc_symmap *bind = sc_symmap_new(ctx);
    sc_tensor **ia, **ib, **oa, **ob;
    sc_interp_options io;
    sc_error err;
    size_t i, no, nin, e, masks = 0;
    ck_assert(rg && bind);
    /* PyTorch's None gradients tell which primals required grad */
    for (i = 0; i < np; i++)
        rg[i] = sc_graph_output(ref, nro - np + i) != SC_NODE_NONE;
    j = joint(f, rg, np);
    no = sc_graph_output_count(j);
    nin = sc_graph_placeholder_count(j);
    ck_assert_int_eq(no, nro);
    ck_assert_int_eq(nin, sc_graph_placeholder_count(ref));
    ck_assert_int_eq(sc_interp_bind_sizes(ref, NULL, bind, &err), SC_OK);
    ia = calloc(nin + 1, sizeof *ia);
    ib = calloc(nin + 1, sizeof *ib);
    oa = calloc(no + 1, sizeof *oa);
    ob = calloc(no + 1, sizeof *ob);
    ck_assert(ia && ib && oa && ob);
    ck_assert_int_eq(sc_interp_random_inputs(ref, bind, 11, 0, ia, &err), SC_OK);
    ck_assert_int_eq(sc_interp_random_inputs(ref, bind, 11, 0, ib, &err), SC_OK);
    sc_interp_options_init(&io);
    io.seed = 5;
    ck_assert_msg(sc_interp_run(j, ia, &io, oa, NULL, &err) == SC_OK, "%s",
                  err.message);
    ck_assert_msg(sc_interp_run(ref, ib, &io, ob, NULL, &err) == SC_OK, "%s",
                  err.message);
    for (i = 0; i < no; i++) {
        ck_assert_msg((oa[i] == NULL) == (ob[i] == NULL), "output %zu", i);
        if (!oa[i])
            continue;
        ck_assert(sc_tensor_same_shape(oa[i], ob[i]));
        for (e = 0; e < sc_tensor_numel(ob[i]); e++) {
            double a = sc_tensor_item_double(oa[i], e);
            double b = sc_tensor_item_double(ob[i], e);
            ck_assert_msg(fabs(a - b) <= 1e-4 * fabs(b) + 1e-6,
                          "output %zu element %zu: %.9g vs %.9g", i, e, a, b);
        }
    }
    ck_assert_int_eq(count_op(j, "bernoulli_.float"), 4);
    for (i = 0; i < sc_graph_node_count(j); i++)
        masks += strcmp(op_of(j, (sc_node_id)i), "div.Scalar") == 0;
    ck_assert(masks >= 4);
    for (i = 0; i < nin; i++) {
        sc_tensor_free(ia[i]);
        sc_tensor_free(ib[i]);
    }
    for (i = 0; i < no; i++) {
        sc_tensor_free(oa[i]);
        sc_tensor_free(ob[i]);
    }
    free(ia);
    free(ib);
    free(oa);
    free(ob);
    free(rg);
    sc_symmap_free(bind);
    sc_graph_free(j);
    sc_graph_free(ref);
    sc_graph_free(f);
    sc_ctx_free(ctx);
}
END_TEST

/* ---- as_strided's backward ------------------------------------------------ */

static const char asb_kernel[] =
    "def forward(self, primals_1: \"f32[3, 3][3, 1]cpu\", "
    "primals_2: \"f32[2][1]cpu\", primals_3: \"f64[3][1]cpu\"):\n"
    /* [3, 3] strides [1, 1] over a [5]: element p gets the g[i][j] with
       i + j == p */
    "    a = torch.ops.aten.as_strided_backward.default(primals_1, [5], [1], "
    "[3, 3], [1, 1], 0)\n"
    /* a [2, 3] input that is a [3] row expanded (strides [0, 1]); the view
       [2] at storage 1: storage 1 and 2 get g, each shared by two input
       elements */
    "    b = torch.ops.aten.as_strided_backward.default(primals_2, [2, 3], "
    "[0, 1], [2], [1], 1)\n"
    /* input [2] strides [2] (storage 0 and 2), the view [3] from storage
       -1: storage -1, 0, 1 get g; only storage 0 is the input's */
    "    c = torch.ops.aten.as_strided_backward.default(primals_3, [2], [2], "
    "[3], [1], -1)\n"
    "    return [a, b, c]\n";

/* The kernel of as_strided_backward on hand-computed cases: accumulation
 * of an overlapping view, division among the elements of a self-overlapping
 * input, a view reaching outside the input (negative relative offset), the
 * dtype kept; errors for a gradient that does not fit the view. */
START_TEST(test_as_strided_backward_kernel)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = text_graph(ctx, asb_kernel), *bad;
    int64_t s33[2] = {3, 3}, s2[1] = {2}, s3[1] = {3};
    sc_tensor *in[3], *out[3] = {NULL, NULL, NULL}, *bin[1], *bout[1];
    static const double ea[5] = {1, 2 + 4, 3 + 5 + 7, 6 + 8, 9};
    static const double eb[6] = {0, 5, 10, 0, 5, 10};
    sc_error err;
    size_t i;
    ck_assert(sc_tensor_new(SC_DTYPE_F32, 2, s33, &in[0], &err) == SC_OK);
    ck_assert(sc_tensor_new(SC_DTYPE_F32, 1, s2, &in[1], &err) == SC_OK);
    ck_assert(sc_tensor_new(SC_DTYPE_F64, 1, s3, &in[2], &err) == SC_OK);
    for (i = 0; i < 9; i++)
        ((float *)sc_tensor_data(in[0]))[i] = (float)(i + 1);
    ((float *)sc_tensor_data(in[1]))[0] = 10;
    ((float *)sc_tensor_data(in[1]))[1] = 20;
    for (i = 0; i < 3; i++)
        ((double *)sc_tensor_data(in[2]))[i] = (double)(i + 1);
    ck_assert_msg(sc_interp_run(g, in, NULL, out, NULL, &err) == SC_OK, "%s",
                  err.message);
    ck_assert_int_eq(out[0]->dtype, SC_DTYPE_F32);
    ck_assert_uint_eq(sc_tensor_numel(out[0]), 5);
    for (i = 0; i < 5; i++)
        ck_assert_double_eq_tol(sc_tensor_item_double(out[0], i), ea[i],
                                1e-6);
    ck_assert_uint_eq(out[1]->ndim, 2);
    for (i = 0; i < 6; i++)
        ck_assert_double_eq_tol(sc_tensor_item_double(out[1], i), eb[i],
                                1e-6);
    ck_assert_int_eq(out[2]->dtype, SC_DTYPE_F64);
    ck_assert_double_eq(sc_tensor_item_double(out[2], 0), 2.0);
    ck_assert_double_eq(sc_tensor_item_double(out[2], 1), 0.0);
    for (i = 0; i < 3; i++)
        sc_tensor_free(out[i]);
    /* every allocation failing in turn: SC_ERR_NOMEM, no leak */
    {
        long nf;
        for (nf = 0;; nf++) {
            sc_status st;
            sc__alloc_fail_after(nf);
            st = sc_interp_run(g, in, NULL, out, NULL, &err);
            sc__alloc_fail_after(-1);
            if (st == SC_OK)
                break;
            ck_assert_msg(st == SC_ERR_NOMEM, "failing allocation %ld: %s",
                          nf, err.message);
        }
        ck_assert(nf > 3);
        for (i = 0; i < 3; i++)
            sc_tensor_free(out[i]);
    }
    for (i = 0; i < 3; i++)
        sc_tensor_free(in[i]);
    sc_graph_free(g);

    /* a negative stride is rejected when the kernel runs */
    bad = text_graph(ctx,
                     "def forward(self, primals_1: \"f32[2][1]cpu\"):\n"
                     "    a = torch.ops.aten.as_strided_backward.default("
                     "primals_1, [4], [1], [2], [-1], 1)\n"
                     "    return [a]\n");
    ck_assert(sc_tensor_new(SC_DTYPE_F32, 1, s2, &bin[0], &err) == SC_OK);
    ck_assert(sc_tensor_fill(bin[0], 1.0, &err) == SC_OK);
    bout[0] = NULL;
    ck_assert_int_ne(sc_interp_run(bad, bin, NULL, bout, NULL, &err), SC_OK);
    ck_assert_msg(strstr(err.message, "stride") != NULL, "%s", err.message);
    ck_assert_ptr_null(bout[0]);
    sc_graph_free(bad);
    /* a view spanning 2^40 storage elements: a limit, not an allocation */
    bad = text_graph(ctx,
                     "def forward(self, primals_1: \"f32[2][1]cpu\"):\n"
                     "    a = torch.ops.aten.as_strided_backward.default("
                     "primals_1, [4], [1], [2], [1099511627776], 0)\n"
                     "    return [a]\n");
    ck_assert_int_eq(sc_interp_run(bad, bin, NULL, bout, NULL, &err),
                     SC_ERR_LIMIT);
    ck_assert_msg(strstr(err.message, "2^32") != NULL, "%s", err.message);
    sc_tensor_free(bin[0]);
    sc_graph_free(bad);
    /* sizes that do not match the gradient fail the shape rule */
    {
        static const char t[] =
            "def forward(self, primals_1: \"f32[2][1]cpu\"):\n"
            "    a = torch.ops.aten.as_strided_backward.default(primals_1, "
            "[4], [1], [2, 1], [1, 1], 0)\n"
            "    return [a]\n";
        ck_assert_int_eq(sc_graph_read_text(ctx, t, strlen(t), "t.py", NULL,
                                            &bad, &err),
                         SC_ERR_SHAPE);
    }
    sc_ctx_free(ctx);
}
END_TEST

static const char asj_chain[] =
    "def forward(self, primals_1: \"f32[12][1]cpu\"):\n"
    "    a = torch.ops.aten.as_strided.default(primals_1, [3, 3], [3, 1], 2)\n"
    "    b = torch.ops.aten.as_strided.default(a, [2, 2], [2, 3], 3)\n"
    "    return [b]\n";

static const char asj_slice[] =
    "def forward(self, primals_1: \"f32[6, 2][2, 1]cpu\"):\n"
    "    s = torch.ops.aten.slice.Tensor(primals_1, 0, 1, 5)\n"
    "    b = torch.ops.aten.as_strided.default(s, [2, 2], [2, 1]%s)\n"
    "    return [b]\n";

/* The joint graph of as_strided: as_strided_backward with self's geometry
 * and the view's offset relative to self (explicit offsets of a chain of
 * as_strided subtract); over a slice, an explicit storage_offset cannot be
 * related to the input (SC_ERR_UNSUPPORTED naming the nodes), None can. */
START_TEST(test_as_strided_joint)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *f = text_graph(ctx, asj_chain), *j;
    sc_node_id g1, a2;
    const sc_value *v;
    char text[512];
    sc_error err;
    j = joint(f, NULL, 0);
    ck_assert_int_eq(count_op(j, "as_strided_backward.default"), 2);
    g1 = sc_graph_output(j, 1);
    ck_assert_str_eq(op_of(j, g1), "as_strided_backward.default");
    /* the inner one: offset 2 over a primal (offset 0) */
    v = sc_graph_node_arg(j, g1, 5);
    ck_assert_int_eq(v->kind, SC_VALUE_INT);
    ck_assert_int_eq(v->u.i, 2);
    /* the outer one: offset 3 over a (offset 2): 1 */
    a2 = node_arg(j, g1, 0);
    ck_assert_str_eq(op_of(j, a2), "as_strided_backward.default");
    v = sc_graph_node_arg(j, a2, 5);
    ck_assert_int_eq(v->u.i, 1);
    v = sc_graph_node_arg(j, a2, 2); /* a's strides */
    ck_assert_int_eq(v->u.list.n, 2);
    ck_assert_int_eq(v->u.list.items[0].u.i, 3);
    ck_assert_int_eq(v->u.list.items[1].u.i, 1);
    sc_graph_free(j);
    sc_graph_free(f);

    snprintf(text, sizeof text, asj_slice, ", 1");
    f = text_graph(ctx, text);
    j = NULL;
    ck_assert_int_eq(sc_graph_new_joint(f, NULL, &j, &err), SC_ERR_UNSUPPORTED);
    ck_assert_ptr_null(j);
    ck_assert_msg(strstr(err.message, "storage_offset") &&
                      strstr(err.message, "'s'"),
                  "%s", err.message);
    sc_graph_free(f);
    snprintf(text, sizeof text, asj_slice, "");
    f = text_graph(ctx, text);
    j = joint(f, NULL, 0);
    ck_assert_int_eq(sc_graph_node_arg(j, node_arg(j, sc_graph_output(j, 1),
                                                   0), 5)->u.i,
                     0);
    sc_graph_free(j);
    sc_graph_free(f);
    sc_ctx_free(ctx);
}
END_TEST

/* masked_scatter_backward's kernel: grad_output's elements where the
 * broadcast mask is true, row-major, then zeros, as sizes (the values
 * torch 2.13's aten.masked_scatter_backward gives, exactly); more true
 * elements than sizes hold is an error naming both counts. */
START_TEST(test_masked_scatter_backward_kernel)
{
    static const double expect[8] = {-0.5, 0.5, 1.0, 2.0, 0, 0, 0, 0};
    static const int64_t s23[2] = {2, 3}, s3[1] = {3};
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = text_graph(ctx,
        "def forward(self, g: \"f32[2, 3][3, 1]cpu\", m: \"b8[3][1]cpu\"):\n"
        "    o = torch.ops.aten.masked_scatter_backward.default(g, m, [2, 4])\n"
        "    return [o]\n");
    sc_graph *bad = text_graph(ctx,
        "def forward(self, g: \"f32[2, 3][3, 1]cpu\", m: \"b8[3][1]cpu\"):\n"
        "    o = torch.ops.aten.masked_scatter_backward.default(g, m, [3])\n"
        "    return [o]\n");
    sc_tensor *in[2], *out[1] = {NULL};
    sc_error err;
    size_t i;

    ck_assert(sc_tensor_new(SC_DTYPE_F32, 2, s23, &in[0], &err) == SC_OK);
    ck_assert(sc_tensor_new(SC_DTYPE_B8, 1, s3, &in[1], &err) == SC_OK);
    for (i = 0; i < 6; i++)
        ((float *)sc_tensor_data(in[0]))[i] = (float)(i + 1) * 0.5f - 1.0f;
    ((unsigned char *)sc_tensor_data(in[1]))[0] = 1;
    ((unsigned char *)sc_tensor_data(in[1]))[1] = 0;
    ((unsigned char *)sc_tensor_data(in[1]))[2] = 1;
    ck_assert_msg(sc_interp_run(g, in, NULL, out, NULL, &err) == SC_OK, "%s",
                  err.message);
    ck_assert_int_eq(out[0]->dtype, SC_DTYPE_F32);
    ck_assert_uint_eq(out[0]->ndim, 2);
    ck_assert_int_eq(out[0]->sizes[0], 2);
    ck_assert_int_eq(out[0]->sizes[1], 4);
    for (i = 0; i < 8; i++)
        ck_assert_double_eq(sc_tensor_item_double(out[0], i), expect[i]);
    sc_tensor_free(out[0]);
    out[0] = NULL;
    ck_assert_int_eq(sc_interp_run(bad, in, NULL, out, NULL, &err),
                     SC_ERR_SHAPE);
    ck_assert_msg(strstr(err.message, "selects 4 elements, more than the 3")
                      != NULL, "%s", err.message);
    ck_assert_ptr_null(out[0]);
    sc_tensor_free(in[0]);
    sc_tensor_free(in[1]);
    sc_graph_free(bad);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

/* A list-returning op appended through the builder with no metadata keeps
 * its inferred result: a tuple of as many elements as the rule gives
 * (unbind: the size of dim; split: the number of pieces). */
START_TEST(test_builder_tuple_count)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = sc_graph_new(ctx);
    sc_expr *sizes[2], *strides[2];
    sc_result meta, r;
    sc_value args[3];
    sc_node_id x, u, sp, gi;
    sc_error err;
    ck_assert_ptr_nonnull(g);
    sizes[0] = sc_expr_int_si(ctx, 3);
    sizes[1] = sc_expr_int_si(ctx, 5);
    strides[0] = sc_expr_int_si(ctx, 5);
    strides[1] = sc_expr_int_si(ctx, 1);
    sc_result_init(&meta);
    meta.kind = SC_RESULT_TENSOR;
    meta.tensor.dtype = SC_DTYPE_F32;
    meta.tensor.has_strides = true;
    meta.tensor.ndim = 2;
    meta.tensor.sizes = sizes;
    meta.tensor.strides = strides;
    ck_assert_int_eq(sc_graph_add_placeholder(g, "x", SC_ROLE_PRIMAL, &meta,
                                              &x, &err), SC_OK);
    args[0] = sc_value_node(x);
    args[1] = sc_value_int(1);
    ck_assert_msg(sc_graph_add_call(g, NULL, "torch.ops.aten.unbind.int", 2,
                                    args, 0, NULL, NULL, NULL, &u,
                                    &err) == SC_OK, "%s", err.message);
    sc_graph_node_result(g, u, &r);
    ck_assert_int_eq(r.kind, SC_RESULT_TUPLE);
    ck_assert_uint_eq(r.count, 5);
    args[1] = sc_value_int(2);
    ck_assert_msg(sc_graph_add_call(g, NULL, "torch.ops.aten.split.Tensor", 2,
                                    args, 0, NULL, NULL, NULL, &sp,
                                    &err) == SC_OK, "%s", err.message);
    sc_graph_node_result(g, sp, &r);
    ck_assert_int_eq(r.kind, SC_RESULT_TUPLE);
    ck_assert_uint_eq(r.count, 2); /* rows 0-1 and 2 */
    /* its elements: index 1 is the last one */
    args[0] = sc_value_node(sp);
    args[1] = sc_value_int(1);
    ck_assert_int_eq(sc_graph_add_call(g, NULL, "operator.getitem", 2, args,
                                       0, NULL, NULL, NULL, &gi, &err),
                     SC_OK);
    sc_graph_node_result(g, gi, &r);
    ck_assert_int_eq(r.kind, SC_RESULT_TENSOR);
    {
        int64_t rows = 0;
        ck_assert(sc_expr_value_si(r.tensor.sizes[0], &rows));
        ck_assert_int_eq(rows, 1);
    }
    args[1] = sc_value_int(2);
    ck_assert_int_ne(sc_graph_add_call(g, NULL, "operator.getitem", 2, args,
                                       0, NULL, NULL, NULL, &gi, &err),
                     SC_OK);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

/* sc_graph_new_joint of f with every allocation failing in turn:
 * SC_ERR_NOMEM, *out NULL, no leak. */
static void joint_out_of_memory(const sc_graph *f)
{
    long n;
    for (n = 0;; n++) {
        sc_graph *j = (sc_graph *)1;
        sc_error err;
        sc_status st;
        sc__alloc_fail_after(n);
        st = sc_graph_new_joint(f, NULL, &j, &err);
        sc__alloc_fail_after(-1);
        if (st == SC_OK) {
            sc_graph_free(j);
            break;
        }
        ck_assert_msg(st == SC_ERR_NOMEM, "failing allocation %ld: %s: %s",
                      n, sc_status_name(st), err.message);
        ck_assert_ptr_null(j);
    }
    ck_assert(n > 5);
}

START_TEST(test_out_of_memory)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *f = file_graph(ctx, "examples/mlp_gelu.forward.txt");
    joint_out_of_memory(f);
    sc_graph_free(f);
    /* as_strided's derivative (the relative offsets of a chain) too */
    f = text_graph(ctx, asj_chain);
    joint_out_of_memory(f);
    sc_graph_free(f);
    sc_ctx_free(ctx);
}
END_TEST

/* ---- Symbolic integers as SymInt nodes; unused split/unbind pieces -------
 * (graph/autodiff.c; found by the random-graph properties, K2-K4 of
 * tests/check_props.c.) */

/* Does v (or a list inside it) hold a bare, non-constant symbolic int? */
static bool has_bare_symint(const sc_value *v)
{
    size_t i;
    int64_t c;
    if (v->kind == SC_VALUE_SYMINT)
        return !sc_expr_value_si(v->u.expr, &c);
    if (v->kind == SC_VALUE_LIST || v->kind == SC_VALUE_TUPLE)
        for (i = 0; i < v->u.list.n; i++)
            if (has_bare_symint(&v->u.list.items[i]))
                return true;
    return false;
}

static void assert_no_bare_symints(const sc_graph *g)
{
    size_t id, i;
    for (id = 0; id < sc_graph_node_count(g); id++)
        for (i = 0; i < sc_graph_node_arg_count(g, (sc_node_id)id); i++)
            ck_assert_msg(!has_bare_symint(
                              sc_graph_node_arg(g, (sc_node_id)id, i)),
                          "node '%s', argument %zu: a bare symbolic integer",
                          sc_graph_node_name(g, (sc_node_id)id), i);
}

/* The text of j reads back into an equal graph. */
static void assert_reads_back(sc_ctx *ctx, const sc_graph *j)
{
    char *text = NULL, why[256] = "";
    sc_graph *h = NULL;
    sc_error err;
    ck_assert_msg(sc_graph_write_text(j, NULL, &text, NULL, &err) == SC_OK,
                  "%s", err.message);
    ck_assert_msg(sc_graph_read_text(ctx, text, strlen(text), "joint", NULL,
                                     &h, &err) == SC_OK,
                  "reading the joint graph back: %s\n%s", err.message, text);
    ck_assert_msg(sc_graph_equal(j, h, 0, why, sizeof why), "%s", why);
    sc_graph_free(h);
    free(text);
}

static void assert_gradcheck(const sc_graph *j, const sc_symmap *sizes)
{
    sc_gradcheck_options o;
    sc_gradcheck_report r;
    sc_error err;
    sc_gradcheck_options_init(&o);
    o.sizes = sizes;
    o.seed = 11;
    ck_assert_msg(sc_gradcheck_run(j, &o, &r, &err) == SC_OK, "gradcheck: %s",
                  err.message);
    ck_assert_msg(r.passed, "gradcheck: %s", r.message);
    ck_assert(r.checked > 0);
}

/* Partition j (default policy) and validate the pair at sizes. */
static void assert_partition_validates(const sc_graph *j,
                                       const sc_symmap *sizes)
{
    sc_partition *p = NULL;
    sc_validate_options vo;
    sc_validate_report rep;
    sc_error err;
    ck_assert_msg(sc_partition_run(j, NULL, &p, &err) == SC_OK,
                  "partition: %s", err.message);
    sc_validate_options_init(&vo);
    vo.sizes = sizes;
    vo.seed = 5;
    ck_assert_msg(sc_validate_run(sc_partition_joint(p), sc_partition_forward(p),
                                  sc_partition_backward(p), &vo, &rep,
                                  &err) == SC_OK,
                  "validate: %s", err.message);
    ck_assert_msg(rep.passed, "validate: %s", rep.message);
    sc_partition_free(p);
}

static const char sum_symbolic[] =
    "# symcut: hint s0=3\n"
    "def forward(self, arg0_1: \"f32[s0]\"):\n"
    "    sum_1: \"f32[]\" = torch.ops.aten.sum.default(arg0_1)\n"
    "    return (sum_1,)\n";

/* K3: sum's gradient expand(tangents_1, [s0]) takes s0 as a sym_size node
 * of the primal (PyTorch's spelling), so the text reads back and the
 * backward graph of a partition can bind s0. */
START_TEST(test_symint_sym_size_nodes)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *f = text_graph(ctx, sum_symbolic);
    sc_graph *j = joint(f, NULL, 0);
    sc_symmap *m = sc_symmap_new(ctx);
    sc_node_id g = sc_graph_output(j, 1), ss;
    const sc_value *sizes;
    ck_assert_ptr_nonnull(m);
    assert_no_bare_symints(j);
    ck_assert_int_eq(count_op(j, "sym_size.int"), 1);
    ck_assert_str_eq(op_of(j, g), "expand.default");
    sizes = sc_graph_node_arg(j, g, 1);
    ck_assert_int_eq(sizes->kind, SC_VALUE_LIST);
    ck_assert_int_eq(sizes->u.list.n, 1);
    ck_assert_int_eq(sizes->u.list.items[0].kind, SC_VALUE_NODE);
    ss = sizes->u.list.items[0].u.node;
    ck_assert_str_eq(op_of(j, ss), "sym_size.int");
    ck_assert_int_eq(node_arg(j, ss, 0), sc_graph_find(j, "primals_1"));
    ck_assert_int_eq(sc_graph_node_arg(j, ss, 1)->u.i, 0);
    assert_reads_back(ctx, j);
    assert_gradcheck(j, NULL);
    assert_partition_validates(j, NULL);
    ck_assert_int_eq(sc_symmap_set_si(m, sc_expr_symbol(ctx, "s0"), 7, NULL),
                     SC_OK);
    assert_gradcheck(j, m);
    assert_partition_validates(j, m);
    sc_symmap_free(m);
    sc_graph_free(j);
    sc_graph_free(f);
    sc_ctx_free(ctx);
}
END_TEST

static const char mean_symbolic[] =
    "# symcut: hint s0=3\n"
    "# symcut: hint s1=4\n"
    "def forward(self, arg0_1: \"f32[s0, s1]\", "
    "arg1_1: \"f32[s0 + 1, 2*s1]\", arg2_1: \"f32[s0 + 1, s1 + 1]\"):\n"
    "    mean: \"f32[]\" = torch.ops.aten.mean.default(arg0_1)\n"
    "    mean_1: \"f32[]\" = torch.ops.aten.mean.default(arg1_1)\n"
    "    mean_2: \"f32[]\" = torch.ops.aten.mean.default(arg2_1)\n"
    "    add: \"f32[]\" = torch.ops.aten.add.Tensor(mean, mean_1)\n"
    "    add_1: \"f32[]\" = torch.ops.aten.add.Tensor(add, mean_2)\n"
    "    return (add_1,)\n";

/* K3, composite sizes: mean divides by the numel (s0*s1, 2*s0*s1 + 2*s1,
 * (s0 + 1)*(s1 + 1)), built from sym_size nodes with python sym ops; the
 * joint graph reads back, passes gradcheck and partitions and validates
 * at the hints and at other sizes. */
START_TEST(test_symint_composite)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *f = text_graph(ctx, mean_symbolic);
    sc_graph *j = joint(f, NULL, 0);
    sc_symmap *m = sc_symmap_new(ctx);
    size_t i;
    ck_assert_ptr_nonnull(m);
    assert_no_bare_symints(j);
    ck_assert_int_ge(count_op(j, "mul"), 2);
    for (i = 0; i < sc_graph_node_count(j); i++)
        if (strcmp(op_of(j, (sc_node_id)i), "div.Scalar") == 0)
            ck_assert_int_eq(sc_graph_node_arg(j, (sc_node_id)i, 1)->kind,
                             SC_VALUE_NODE);
    ck_assert_int_eq(count_op(j, "div.Scalar"), 3);
    assert_reads_back(ctx, j);
    assert_gradcheck(j, NULL);
    assert_partition_validates(j, NULL);
    ck_assert_int_eq(sc_symmap_set_si(m, sc_expr_symbol(ctx, "s0"), 6, NULL),
                     SC_OK);
    ck_assert_int_eq(sc_symmap_set_si(m, sc_expr_symbol(ctx, "s1"), 2, NULL),
                     SC_OK);
    assert_gradcheck(j, m);
    assert_partition_validates(j, m);
    sc_symmap_free(m);
    sc_graph_free(j);
    sc_graph_free(f);
    sc_ctx_free(ctx);
}
END_TEST

static const char split_unused[] =
    "def forward(self, arg0_1: \"f32[3]\", arg1_1: \"f32[5]\"):\n"
    "    erf: \"f32[3]\" = torch.ops.aten.erf.default(arg0_1)\n"
    "    split = torch.ops.aten.split.Tensor(erf, 2)\n"
    "    getitem: \"f32[2]\" = split[0]\n"
    "    split_1 = torch.ops.aten.split.Tensor(arg1_1, 2)\n"
    "    getitem_1: \"f32[2]\" = split_1[1]\n"
    "    mul: \"f32[2]\" = torch.ops.aten.mul.Tensor(getitem, getitem_1)\n"
    "    return (mul,)\n";

static const char unbind_unused[] =
    "def forward(self, arg0_1: \"f32[2, 1]\"):\n"
    "    unbind = torch.ops.aten.unbind.int(arg0_1)\n"
    "    getitem: \"f32[1]\" = unbind[0]\n"
    "    return (getitem,)\n";

static void assert_grad_sizes(const sc_graph *j, size_t out, size_t nd,
                              const int64_t *want)
{
    sc_result r;
    size_t d;
    int64_t v;
    ck_assert_int_ne(sc_graph_output(j, out), SC_NODE_NONE);
    sc_graph_node_result(j, sc_graph_output(j, out), &r);
    ck_assert_int_eq(r.kind, SC_RESULT_TENSOR);
    ck_assert_int_eq(r.tensor.ndim, nd);
    for (d = 0; d < nd; d++) {
        ck_assert(sc_expr_value_si(r.tensor.sizes[d], &v));
        ck_assert_int_eq(v, want[d]);
    }
}

/* K2/K4: the gradient of a split/unbind of which only some pieces are used
 * has zeros for the others (PyTorch's split_backward/unbind_backward): as
 * many pieces as the shape rule gives, not as the getitems present. */
START_TEST(test_split_unbind_unused_pieces)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *f = text_graph(ctx, split_unused);
    sc_graph *j = joint(f, NULL, 0);
    int64_t s3[1] = {3}, s5[1] = {5}, s21[2] = {2, 1};
    assert_grad_sizes(j, 1, 1, s3);
    assert_grad_sizes(j, 2, 1, s5);
    /* one zero piece for split (3 = 2 + 1), two for split_1 (5 = 2+2+1):
     * zeros with explicit sizes, one node per size ([1] is shared) */
    ck_assert_int_eq(count_op(j, "zeros.default"), 2);
    ck_assert_int_eq(count_op(j, "zeros_like.default"), 0);
    ck_assert_int_eq(count_op(j, "cat.default"), 2);
    assert_gradcheck(j, NULL);
    sc_graph_free(j);
    sc_graph_free(f);

    f = text_graph(ctx, unbind_unused);
    j = joint(f, NULL, 0);
    assert_grad_sizes(j, 1, 2, s21);
    ck_assert_int_eq(count_op(j, "zeros.default"), 1);
    ck_assert_int_eq(count_op(j, "zeros_like.default"), 0);
    assert_gradcheck(j, NULL);
    sc_graph_free(j);
    sc_graph_free(f);

    /* built by a front end that declares the tuple by the getitems it has
     * (one): the pieces are still the shape rule's two */
    {
        sc_result r, tr;
        sc_expr *sz[1];
        sc_node_id x, sp, gi;
        sc_value a[2];
        sc_error err;
        f = sc_graph_new(ctx);
        ck_assert_ptr_nonnull(f);
        sz[0] = sc_expr_int_si(ctx, 3);
        sc_result_init(&r);
        r.kind = SC_RESULT_TENSOR;
        r.tensor.dtype = SC_DTYPE_F32;
        r.tensor.ndim = 1;
        r.tensor.sizes = sz;
        ck_assert(sc_graph_add_placeholder(f, "arg0_1", SC_ROLE_PRIMAL, &r,
                                           &x, &err) == SC_OK);
        a[0] = sc_value_node(x);
        a[1] = sc_value_int(2);
        sc_result_init(&tr);
        tr.kind = SC_RESULT_TUPLE;
        tr.count = 1;
        ck_assert_msg(sc_graph_add_call(f, NULL, "torch.ops.aten.split.Tensor",
                                        2, a, 0, NULL, NULL, &tr, &sp,
                                        &err) == SC_OK,
                      "%s", err.message);
        a[0] = sc_value_node(sp);
        a[1] = sc_value_int(0);
        ck_assert(sc_graph_add_call(f, NULL, "operator.getitem", 2, a, 0,
                                    NULL, NULL, NULL, &gi, &err) == SC_OK);
        ck_assert(sc_graph_set_outputs(f, 1, &gi, 1, &err) == SC_OK);
        ck_assert(sc_graph_finish(f, &err) == SC_OK);
        j = joint(f, NULL, 0);
        assert_grad_sizes(j, 1, 1, s3);
        assert_gradcheck(j, NULL);
        sc_graph_free(j);
        sc_graph_free(f);
    }
    sc_ctx_free(ctx);
}
END_TEST

/* ---- Partitions of joint graphs: symbols, zeros ------------------------- */

/* Partition j with policy, check that the backward takes one input per
 * saved value and tangent, and validate the pair bit for bit at the hints
 * and, when sym is given, at sym = value. */
static sc_partition *partition_checked(const sc_graph *j,
                                       sc_partition_policy policy,
                                       const char *sym, int64_t value)
{
    sc_partition_options po;
    sc_partition *p = NULL;
    sc_validate_options vo;
    sc_validate_report rep;
    sc_symmap *m = NULL;
    sc_error err;
    const sc_graph *fw, *bw;
    size_t i, nfwd = sc_graph_fwd_output_count(j);

    sc_partition_options_init(&po);
    po.policy = policy;
    ck_assert_msg(sc_partition_run(j, &po, &p, &err) == SC_OK,
                  "partition (%s): %s", sc_partition_policy_name(policy),
                  err.message);
    fw = sc_partition_forward(p);
    bw = sc_partition_backward(p);
    ck_assert_uint_eq(sc_graph_placeholder_count(bw),
                      sc_graph_output_count(fw) - nfwd +
                          sc_graph_tangent_count(j));
    for (i = 0; i < 2; i++) {
        if (i == 1) {
            if (!sym)
                break;
            m = sc_symmap_new(sc_graph_ctx(j));
            ck_assert_ptr_nonnull(m);
            ck_assert(sc_symmap_set_si(m, sc_expr_symbol(sc_graph_ctx(j), sym),
                                       value, NULL) == SC_OK);
        }
        sc_validate_options_init(&vo);
        vo.sizes = m;
        ck_assert_msg(sc_validate_run(j, fw, bw, &vo, &rep, &err) == SC_OK,
                      "validate: %s", err.message);
        ck_assert_msg(rep.passed, "validate (%s, %s): %s",
                      sc_partition_policy_name(policy),
                      i ? "other sizes" : "hints", rep.message);
        if (m)
            sc_symmap_free(m);
        m = NULL;
    }
    return p;
}

/* Backward input i's SymInt value (its expression), or NULL. */
static sc_expr *symint_input(const sc_graph *bw, size_t i)
{
    sc_result r;
    sc_graph_node_result(bw, (sc_node_id)i, &r);
    return r.kind == SC_RESULT_SYMINT ? r.expr : NULL;
}

/* K7: the backward's inputs carry s0 and s1 only inside s0*s1 (a tangent,
 * nothing saved): the forward saves a SymInt for each (sym_size of the
 * primal that has them as dims), in name order, so that the backward binds
 * them and checks s0*s1 against the tangent. */
static const char composite_only[] =
    "# symcut: hint s0=3 s1=5\n"
    "def forward(self, arg0_1: \"f32[s0, s1]\", arg1_1: \"f32[s0*s1]\"):\n"
    "    neg: \"f32[s0*s1]\" = torch.ops.aten.neg.default(arg1_1)\n"
    "    return (neg,)\n";

/* The same with SymInt nodes of s0 and s1 in the forward (a view's
 * sizes): those joint nodes are the ones saved. */
static const char composite_view[] =
    "# symcut: hint s0=3 s1=5\n"
    "def forward(self, arg0_1: \"f32[s0, s1]\", arg1_1: \"f32[s0*s1]\"):\n"
    "    sym_size: \"Sym(s0)\" = torch.ops.aten.sym_size.int(arg0_1, 0)\n"
    "    sym_size_1: \"Sym(s1)\" = torch.ops.aten.sym_size.int(arg0_1, 1)\n"
    "    mul: \"Sym(s0*s1)\" = sym_size * sym_size_1\n"
    "    view: \"f32[s0*s1]\" = torch.ops.aten.view.default(arg0_1, [mul])\n"
    "    add: \"f32[s0*s1]\" = torch.ops.aten.add.Tensor(view, arg1_1)\n"
    "    exp: \"f32[s0*s1]\" = torch.ops.aten.exp.default(add)\n"
    "    return (exp,)\n";

static const sc_partition_policy all_policies[3] = {
    SC_PARTITION_PYTORCH, SC_PARTITION_PYTORCH_1_13, SC_PARTITION_EXACT};

START_TEST(test_partition_binds_composite_symbols)
{
    static const bool rg[2] = {false, true};
    sc_ctx *ctx = sc_ctx_new();
    sc_expr *s0 = sc_expr_symbol(ctx, "s0"), *s1 = sc_expr_symbol(ctx, "s1");
    sc_graph *f = text_graph(ctx, composite_only);
    sc_graph *j = joint(f, NULL, 0);
    size_t k;

    for (k = 0; k < 3; k++) {
        sc_partition *p = partition_checked(j, all_policies[k], "s1", 7);
        const sc_graph *fw = sc_partition_forward(p);
        const sc_graph *bw = sc_partition_backward(p);
        sc_node_id o;
        /* nothing of the joint is saved; two new SymInts are */
        ck_assert_uint_eq(sc_partition_saved_tensor_count(p), 0);
        ck_assert_uint_eq(sc_partition_saved_symint_count(p), 0);
        ck_assert_uint_eq(sc_graph_placeholder_count(bw), 3);
        ck_assert_ptr_eq(symint_input(bw, 0), s0);
        ck_assert_ptr_eq(symint_input(bw, 1), s1);
        ck_assert_int_eq(sc_graph_node_role(bw, 2), SC_ROLE_TANGENT);
        ck_assert_uint_eq(sc_graph_output_count(fw), 3);
        o = sc_graph_output(fw, 1);
        ck_assert_str_eq(sc_graph_node_target(fw, o),
                         "torch.ops.aten.sym_size.int");
        ck_assert_str_eq(sc_graph_node_name(fw, o), sc_graph_node_name(bw, 0));
        ck_assert_int_eq(node_arg(fw, o, 0), 0); /* primals_1 */
        ck_assert_uint_eq(sc_partition_warning_count(p), 2);
        ck_assert_ptr_nonnull(strstr(sc_partition_warning(p, 0), "bind s0"));
        /* the result lists both, as the backward's placeholders order
         * them */
        ck_assert_uint_eq(sc_partition_synth_symint_count(p), 2);
        for (size_t i = 0; i < 2; i++) {
            sc_partition_synth sy;
            ck_assert(sc_partition_synth_symint(p, i, &sy));
            ck_assert_str_eq(sy.name,
                             sc_graph_node_name(bw, (sc_node_id)i));
            ck_assert_int_eq(sy.src, 0); /* primals_1 of the joint */
            ck_assert_uint_eq(sy.dim, i);
            ck_assert_ptr_eq(sy.sym, i ? s1 : s0);
        }
        {
            sc_partition_synth sy = {"untouched", 7, 7, NULL};
            ck_assert(!sc_partition_synth_symint(p, 2, &sy));
            ck_assert_str_eq(sy.name, "untouched");
        }
        sc_partition_free(p);
    }
    sc_graph_free(j);
    sc_graph_free(f);

    /* s0, s1 as SymInt nodes of the joint: saved as such, in name order */
    f = text_graph(ctx, composite_view);
    j = joint(f, rg, 2);
    for (k = 0; k < 3; k++) {
        sc_partition *p = partition_checked(j, all_policies[k], "s0", 4);
        const sc_graph *bw = sc_partition_backward(p);
        ck_assert_uint_eq(sc_partition_saved_symint_count(p), 2);
        ck_assert_str_eq(sc_graph_node_name(j, sc_partition_saved_symint(p, 0)),
                         "sym_size");
        ck_assert_str_eq(sc_graph_node_name(j, sc_partition_saved_symint(p, 1)),
                         "sym_size_1");
        ck_assert_ptr_eq(symint_input(bw, 0), s0);
        ck_assert_ptr_eq(symint_input(bw, 1), s1);
        ck_assert_int_eq(
            sc_partition_node_place(p, sc_partition_saved_symint(p, 0)),
            SC_PARTITION_PLACE_SAVED);
        ck_assert_str_eq(
            sc_partition_node_reason(p, sc_partition_saved_symint(p, 1)),
            "saved: the backward binds a symbol from it");
        /* joint nodes: nothing synthesized */
        ck_assert_uint_eq(sc_partition_synth_symint_count(p), 0);
        sc_partition_free(p);
    }
    sc_graph_free(j);
    sc_graph_free(f);
    sc_ctx_free(ctx);
}
END_TEST

/* K8: an unbind of 300 pieces with one used: one zeros node stands for the
 * 299 undefined gradients (PyTorch's unbind_backward fills them with zeros
 * of the defined one's sizes, which CSE merges), so no tie among hundreds
 * of equal-weight nodes decides the saved set, and no policy saves it. */
static const char unbind_many[] =
    "# symcut: hint s0=3\n"
    "def forward(self, arg0_1: \"f32[s0, 300]\"):\n"
    "    sigmoid: \"f32[s0, 300]\" = torch.ops.aten.sigmoid.default(arg0_1)\n"
    "    unbind = torch.ops.aten.unbind.int(sigmoid, 1)\n"
    "    getitem_150: \"f32[s0]\" = unbind[150]\n"
    "    mul: \"f32[s0]\" = torch.ops.aten.mul.Tensor(getitem_150, "
    "getitem_150)\n"
    "    return (mul,)\n";

START_TEST(test_unbind_many_unused_pieces)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *f = text_graph(ctx, unbind_many);
    sc_graph *j = joint(f, NULL, 0);
    sc_node_id st = SC_NODE_NONE, z;
    const sc_value *list;
    size_t i, k;

    ck_assert_int_eq(count_op(j, "zeros.default"), 1);
    ck_assert_int_eq(count_op(j, "zeros_like.default"), 0);
    /* no getitem for the unused pieces: their sizes are the used one's */
    ck_assert_int_eq(count_op(j, "getitem"), 1);
    ck_assert_uint_lt(sc_graph_node_count(j), 20);
    for (i = 0; i < sc_graph_node_count(j); i++)
        if (strcmp(op_of(j, (sc_node_id)i), "stack.default") == 0)
            st = (sc_node_id)i;
    ck_assert_int_ne(st, SC_NODE_NONE);
    list = sc_graph_node_arg(j, st, 0);
    ck_assert_int_eq(list->kind, SC_VALUE_LIST);
    ck_assert_uint_eq(list->u.list.n, 300);
    z = list->u.list.items[0].u.node;
    ck_assert_str_eq(op_of(j, z), "zeros.default");
    for (i = 0; i < 300; i++)
        if (i != 150)
            ck_assert_int_eq(list->u.list.items[i].u.node, z);
    assert_gradcheck(j, NULL);
    for (k = 0; k < 3; k++) {
        sc_partition *p = partition_checked(j, all_policies[k], "s0", 5);
        ck_assert_int_ne(sc_partition_node_place(p, z),
                         SC_PARTITION_PLACE_SAVED);
        for (i = 0; i < sc_partition_saved_tensor_count(p); i++)
            ck_assert_str_ne(op_of(j, sc_partition_saved_tensor(p, i)),
                             "zeros.default");
        sc_partition_free(p);
    }
    sc_graph_free(j);
    sc_graph_free(f);
    sc_ctx_free(ctx);
}
END_TEST

/* Allocation failures in the zeros of unused pieces and in the saved
 * bindings: every failing allocation is SC_ERR_NOMEM with nothing
 * returned (no leak under the sanitizers). */
static const char unbind_few[] =
    "# symcut: hint s0=3\n"
    "def forward(self, arg0_1: \"f32[s0, 6]\"):\n"
    "    unbind = torch.ops.aten.unbind.int(arg0_1, 1)\n"
    "    getitem_2: \"f32[s0]\" = unbind[2]\n"
    "    split = torch.ops.aten.split.Tensor(arg0_1, 4, 1)\n"
    "    getitem_4: \"f32[s0, 2]\" = split[1]\n"
    "    return (getitem_2, getitem_4)\n";

START_TEST(test_bindings_out_of_memory)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *f = text_graph(ctx, unbind_few);
    sc_graph *j;
    long n;
    joint_out_of_memory(f);
    sc_graph_free(f);
    f = text_graph(ctx, composite_only);
    joint_out_of_memory(f);
    j = joint(f, NULL, 0);
    for (n = 0;; n++) {
        sc_partition *p = (sc_partition *)1;
        sc_error err;
        sc_status st;
        sc__alloc_fail_after(n);
        st = sc_partition_run(j, NULL, &p, &err);
        sc__alloc_fail_after(-1);
        if (st == SC_OK) {
            ck_assert_uint_eq(sc_graph_output_count(sc_partition_forward(p)),
                              3);
            sc_partition_free(p);
            break;
        }
        ck_assert_msg(st == SC_ERR_NOMEM, "failing allocation %ld: %s: %s",
                      n, sc_status_name(st), err.message);
        ck_assert_ptr_null(p);
    }
    ck_assert(n > 5);
    sc_graph_free(j);
    sc_graph_free(f);
    sc_ctx_free(ctx);
}
END_TEST

/* ---- Progress reports and trusted copies -------------------------------------- */

/* What a progress function received. */
typedef struct progress_log {
    const char *phase; /* of the first report; the others must agree */
    size_t calls, first, last, total, max;
    bool agree, ordered;
    size_t restarts; /* done went back to 0 (a draw that starts over) */
} progress_log;

/* ---- The formulas of torch 2.x's ops against torch 2.13's joint graphs ----
 *
 * tests/data/autodiff-2.13/<name>.joint.txt are the joint graphs torch
 * 2.13's AOTAutograd builds for one op (tools/autodiff/gen_joints.py); the
 * zoo's data_dependent joint has masked_select's.  The forward part is cut
 * out, symcut builds its joint graph from it, and the backward ops of the
 * two (the call nodes the forward outputs do not need, getitem aside) are
 * compared as multisets: the ops only one of them has must be exactly the
 * differences listed (doc/autodiff.md explains each).  Then the joint
 * reads back, passes gradcheck, and partitions and validates. */
typedef struct torch_joint_case {
    const char *file;
    /* gradcheck too (not where the inputs must be special: a positive
     * running variance, indices without repeats when not accumulating) */
    bool gradcheck;
    const char *sizes;        /* "u0=9" or NULL: values of unbacked symbols */
    const char *symcut_only;  /* sorted, space separated; "" none */
    const char *torch_only;
} torch_joint_case;

static const torch_joint_case torch_joints[] = {
    {"tests/data/autodiff-2.13/bn_no_training.joint.txt", false, NULL, "", ""},
    {"tests/data/autodiff-2.13/bn_no_stats.joint.txt", true, NULL, "", ""},
    {"tests/data/autodiff-2.13/adaptive_avg_pool2d.joint.txt", true, NULL, "", ""},
    /* the variance's gradient is expanded before it is scaled (torch
     * broadcasts the unsqueezed one) */
    {"tests/data/autodiff-2.13/var_mean_dim.joint.txt", true, NULL,
     "div.Scalar expand.default", ""},
    /* and restored one dim at a time: torch expands the 0-d one directly
     * and takes mean.default of every dim where symcut has mean.dim */
    {"tests/data/autodiff-2.13/var_mean_all.joint.txt", true, NULL,
     "div.Scalar expand.default mean.dim unsqueeze.default "
     "unsqueeze.default "
     "unsqueeze.default unsqueeze.default",
     "mean.default"},
    /* the mean's gradient is undefined: symcut reads zeros for it */
    {"tests/data/autodiff-2.13/var_mean_var_only.joint.txt", true, NULL,
     "add.Tensor div.Scalar div.Scalar expand.default expand.default "
     "zeros.default", ""},
    {"tests/data/autodiff-2.13/masked_scatter.joint.txt", true, NULL, "",
     ""},
    {"tests/data/autodiff-2.13/index_put.joint.txt", false, NULL,
     "new_zeros.default", "zeros.default"},
    /* accumulating: torch passes the gradient through, symcut adds zeros */
    {"tests/data/autodiff-2.13/index_put_accumulate.joint.txt", true, NULL,
     "index_put.default new_zeros.default", ""},
    /* masked_select's gradient as torch's (expand, zeros_like,
     * masked_scatter); elsewhere: the view's gradient is reshape_as_sizes
     * (torch 1.13's spelling, which the 1.13 examples' exact comparisons
     * need), index_select's expand reads u0 as sym_size of the nonzero
     * where torch takes sym_numel of the index, and torch transposes
     * addmm's weight gradient twice */
    {"examples/zoo/data_dependent.joint.txt", false, "u0=5,u1=7",
     "_reshape_alias.default sym_size.int",
     "sym_numel.default t.default view.default"},
};

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* need[i]: node i is one of the outputs [from, to) of j, or an input of
 * such a node (transitively). */
static void reach(const sc_graph *j, size_t from, size_t to, bool *need)
{
    size_t i, k;
    for (i = from; i < to; i++)
        if (sc_graph_output(j, i) != SC_NODE_NONE)
            need[sc_graph_output(j, i)] = true;
    for (i = sc_graph_node_count(j); i-- > 0;) {
        if (!need[i])
            continue;
        for (k = 0; k < sc_graph_node_arg_count(j, (sc_node_id)i); k++) {
            const sc_value *v = sc_graph_node_arg(j, (sc_node_id)i, k);
            size_t e;
            if (v->kind == SC_VALUE_NODE)
                need[v->u.node] = true;
            else if (v->kind == SC_VALUE_LIST || v->kind == SC_VALUE_TUPLE)
                for (e = 0; e < v->u.list.n; e++)
                    if (v->u.list.items[e].kind == SC_VALUE_NODE)
                        need[v->u.list.items[e].u.node] = true;
        }
    }
}

/* The sorted targets of j's backward call nodes (those a gradient output
 * needs and no forward output does; getitem aside: torch and symcut
 * name tuples alike); returns their count.  Runtime assertions on
 * SymInts feed no output and are not counted. */
static size_t backward_ops(const sc_graph *j, const char **out, size_t cap)
{
    size_t n = sc_graph_node_count(j), nfo = sc_graph_fwd_output_count(j);
    size_t i, m = 0;
    bool *fwd = calloc(n + 1, sizeof *fwd), *bwd = calloc(n + 1, sizeof *bwd);
    ck_assert(fwd && bwd);
    reach(j, 0, nfo, fwd);
    reach(j, nfo, sc_graph_output_count(j), bwd);
    for (i = 0; i < n; i++) {
        const char *op = op_of(j, (sc_node_id)i);
        if (!bwd[i] || fwd[i] ||
            sc_graph_node_kind(j, (sc_node_id)i) == SC_NODE_PLACEHOLDER ||
            strcmp(op, "getitem") == 0)
            continue;
        ck_assert_uint_lt(m, cap);
        out[m++] = op;
    }
    free(fwd);
    free(bwd);
    qsort(out, m, sizeof *out, cmp_str);
    return m;
}

/* The elements of sorted a that sorted b lacks (as multisets), space
 * separated, into buf. */
static void multiset_minus(const char **a, size_t na, const char **b,
                           size_t nb, char *buf, size_t cap)
{
    size_t i = 0, k = 0;
    buf[0] = '\0';
    while (i < na) {
        int c = k < nb ? strcmp(a[i], b[k]) : -1;
        if (c == 0) {
            i++;
            k++;
        } else if (c < 0) {
            if (buf[0])
                strncat(buf, " ", cap - strlen(buf) - 1);
            strncat(buf, a[i++], cap - strlen(buf) - 1);
        } else {
            k++;
        }
    }
}

static sc_symmap *parse_sizes(sc_ctx *ctx, const char *spec)
{
    sc_symmap *m;
    char buf[128], *tok, *save = NULL;
    if (!spec)
        return NULL;
    m = sc_symmap_new(ctx);
    ck_assert_ptr_nonnull(m);
    snprintf(buf, sizeof buf, "%s", spec);
    for (tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        ck_assert_ptr_nonnull(eq);
        *eq = '\0';
        ck_assert_int_eq(sc_symmap_set_si(m, sc_expr_symbol(ctx, tok),
                                          strtoll(eq + 1, NULL, 10), NULL),
                         SC_OK);
    }
    return m;
}

START_TEST(test_torch213_joints)
{
    const torch_joint_case *c = &torch_joints[_i];
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *tj = file_graph(ctx, c->file), *fwd, *j;
    const char *tops[256], *sops[256];
    size_t nt, ns, np, k;
    bool rg[16];
    char only[1024];
    sc_symmap *sizes;

    fwd = forward_of_joint(ctx, tj);
    /* the primals torch differentiates: those with a gradient output */
    np = sc_graph_primal_count(fwd);
    ck_assert_uint_le(np, 16);
    for (k = 0; k < np; k++)
        rg[k] = sc_graph_output(tj, sc_graph_fwd_output_count(tj) + k) !=
                SC_NODE_NONE;
    j = joint(fwd, rg, np);
    nt = backward_ops(tj, tops, 256);
    ns = backward_ops(j, sops, 256);
    multiset_minus(sops, ns, tops, nt, only, sizeof only);
    ck_assert_msg(strcmp(only, c->symcut_only) == 0,
                  "%s: backward ops only symcut has: '%s' (expected '%s')",
                  c->file, only, c->symcut_only);
    multiset_minus(tops, nt, sops, ns, only, sizeof only);
    ck_assert_msg(strcmp(only, c->torch_only) == 0,
                  "%s: backward ops only torch has: '%s' (expected '%s')",
                  c->file, only, c->torch_only);
    assert_reads_back(ctx, j);
    sizes = parse_sizes(ctx, c->sizes);
    if (c->gradcheck)
        assert_gradcheck(j, sizes);
    assert_partition_validates(j, sizes);
    sc_symmap_free(sizes);
    sc_graph_free(j);
    sc_graph_free(fwd);
    sc_graph_free(tj);
    sc_ctx_free(ctx);
}
END_TEST

/* The new formulas on symbolic sizes: the joint reads back, passes
 * gradcheck, and partitions and validates at the hints and at s0 = 5
 * (s1 = 6).  var_mean over a symbolic dim (and over all of them): its
 * variance scale divides by the SymInt N - correction. */
static const char *const symbolic_formulas[] = {
    "# symcut: hint s0=3 s1=5\n"
    "def forward(self, x: \"f32[s0, 4]\", c: \"f32[s0, 4]\", s: \"f32[s0, s1]\"):\n"
    "    m = torch.ops.aten.gt.Scalar(c, 0)\n"
    "    o = torch.ops.aten.masked_scatter.default(x, m, s)\n"
    "    return o\n",
    "# symcut: hint s0=4\n"
    "def forward(self, x: \"f32[s0, 3]\", v: \"f32[3]\", i: \"i64[5]\"):\n"
    "    o = torch.ops.aten.index_put.default(x, [i], v, True)\n"
    "    return o\n",
    "# symcut: hint s0=2\n"
    "def forward(self, x: \"f32[s0, 3, 5, 7]\"):\n"
    "    o = torch.ops.aten._adaptive_avg_pool2d.default(x, [2, 3])\n"
    "    return o\n",
    "# symcut: hint s0=4\n"
    "def forward(self, x: \"f32[s0, 3, 2]\", w: \"f32[3]\", b: \"f32[3]\"):\n"
    "    bn = torch.ops.aten._native_batch_norm_legit.no_stats(x, w, b, True, 0.1, 1e-05)\n"
    "    o = operator.getitem(bn, 0)\n"
    "    return o\n",
    "# symcut: hint s0=3\n"
    "def forward(self, x: \"f32[3, s0]\"):\n"
    "    vm = torch.ops.aten.var_mean.correction(x, [1], correction = 1)\n"
    "    v = operator.getitem(vm, 0)\n"
    "    m = operator.getitem(vm, 1)\n"
    "    return (v, m)\n",
    "# symcut: hint s0=2 s1=4\n"
    "def forward(self, x: \"f32[s0, 3, s1]\"):\n"
    "    vm = torch.ops.aten.var_mean.correction(x, [0, 2], correction = 0, keepdim = True)\n"
    "    v = operator.getitem(vm, 0)\n"
    "    m = operator.getitem(vm, 1)\n"
    "    return (v, m)\n",
    "# symcut: hint s0=3 s1=2\n"
    "def forward(self, x: \"f32[s0, s1]\"):\n"
    "    vm = torch.ops.aten.var_mean.correction(x)\n"
    "    v = operator.getitem(vm, 0)\n"
    "    m = operator.getitem(vm, 1)\n"
    "    return (v, m)\n",
};

START_TEST(test_symbolic_formulas)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *f = text_graph(ctx, symbolic_formulas[_i]), *j = joint(f, NULL, 0);
    sc_symmap *sizes = parse_sizes(ctx, "s0=5,s1=6");
    assert_no_bare_symints(j);
    assert_reads_back(ctx, j);
    assert_gradcheck(j, NULL);
    assert_gradcheck(j, sizes);
    assert_partition_validates(j, NULL);
    assert_partition_validates(j, sizes);
    sc_symmap_free(sizes);
    sc_graph_free(j);
    sc_graph_free(f);
    sc_ctx_free(ctx);
}
END_TEST

/* Every zoo model's joint graph, rebuilt by symcut from the forward part
 * of torch 2.13's (the primals torch differentiates requiring grad): the
 * transform has a formula for every op on the way, and gives a gradient
 * for exactly the primals torch gives one for. */
static const char *const zoo_joints[] = {
    "cnn", "cnn_bf16", "cnn_dyn", "data_dependent", "embedding_ce",
    "embedding_ce_dyn", "gpt2_block", "gpt2_block_bf16", "gpt2_block_dyn",
    "gru", "input_mutation", "input_mutation_dyn", "llama_block",
    "llama_block_bf16", "llama_block_dyn", "lstm", "lstm_dyn", "mlp_gelu",
    "mlp_gelu_bf16", "mlp_gelu_dyn", "mlp_relu", "mlp_silu", "mlp_silu_dyn",
    "mobilenetv2", "mobilenetv2_dyn", "resnet", "resnet_dyn",
    "transformer_encoder_layer", "transformer_encoder_layer_dyn",
};

START_TEST(test_zoo_joints)
{
    char rel[256];
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *tj, *fwd, *j;
    size_t np, k, tnfo;
    bool rg[256];

    snprintf(rel, sizeof rel, "examples/zoo/%s.joint.txt", zoo_joints[_i]);
    tj = file_graph(ctx, rel);
    fwd = forward_of_joint(ctx, tj);
    np = sc_graph_primal_count(fwd);
    tnfo = sc_graph_fwd_output_count(tj);
    ck_assert_uint_le(np, 256);
    for (k = 0; k < np; k++)
        rg[k] = sc_graph_output(tj, tnfo + k) != SC_NODE_NONE;
    j = joint(fwd, rg, np);
    ck_assert_uint_eq(sc_graph_output_count(j),
                      sc_graph_fwd_output_count(j) + np);
    for (k = 0; k < np; k++)
        ck_assert_msg((sc_graph_output(j, sc_graph_fwd_output_count(j) + k) !=
                       SC_NODE_NONE) == rg[k],
                      "%s: primal %zu: torch %s a gradient, symcut %s", rel,
                      k + 1, rg[k] ? "has" : "has no",
                      rg[k] ? "has none" : "has one");
    sc_graph_free(j);
    sc_graph_free(fwd);
    sc_graph_free(tj);
    sc_ctx_free(ctx);
}
END_TEST
static void log_progress(void *user, const char *phase, size_t done,
                         size_t total)
{
    progress_log *l = user;
    if (l->calls == 0) {
        l->phase = phase;
        l->first = done;
        l->total = total;
        l->agree = l->ordered = true;
    } else {
        if (strcmp(phase, l->phase) != 0 || total != l->total)
            l->agree = false;
        if (done == 0 && l->last != 0)
            l->restarts++;
        else if (done < l->last)
            l->ordered = false;
    }
    if (done > l->max)
        l->max = done;
    l->last = done;
    l->calls++;
}

/* The draw and the joint report from 0 to their totals in order, every
 * 4096 units or so, and the reports change neither graph. */
START_TEST(test_progress_reports)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph_random_options ro;
    sc_joint_options jo;
    sc_graph *f = NULL, *f2 = NULL, *j = NULL, *j2 = NULL;
    progress_log rl = {0}, jl = {0};
    size_t ncalls;
    char why[256] = "";
    sc_error err;

    sc_graph_random_options_init(&ro);
    ro.seed = 5;
    ro.nodes = 20000;
    ck_assert_int_eq(sc_graph_new_random(ctx, &ro, &f2, &err), SC_OK);
    ro.progress = log_progress;
    ro.progress_user = &rl;
    ck_assert_int_eq(sc_graph_new_random(ctx, &ro, &f, &err), SC_OK);
    ck_assert_msg(sc_graph_equal(f, f2, 0, why, sizeof why),
                  "the draw with progress differs: %s", why);
    ck_assert_str_eq(rl.phase, "drawing the forward graph");
    ck_assert(rl.agree && rl.ordered);
    ck_assert_uint_eq(rl.first, 0);
    ck_assert_uint_eq(rl.total, 20000);
    ck_assert_uint_eq(rl.last, 20000);
    ck_assert_uint_ge(rl.calls, 20000 / 4096);
    ck_assert_uint_le(rl.calls, 64 * (rl.restarts + 1));

    ncalls = sc_graph_node_count(f) - sc_graph_placeholder_count(f);
    ck_assert_int_eq(sc_graph_new_joint(f, NULL, &j2, &err), SC_OK);
    sc_joint_options_init(&jo);
    jo.progress = log_progress;
    jo.progress_user = &jl;
    ck_assert_int_eq(sc_graph_new_joint(f, &jo, &j, &err), SC_OK);
    ck_assert_msg(sc_graph_equal(j, j2, 0, why, sizeof why),
                  "the joint with progress differs: %s", why);
    ck_assert_str_eq(jl.phase, "building the joint graph");
    ck_assert(jl.agree && jl.ordered);
    ck_assert_uint_eq(jl.restarts, 0);
    ck_assert_uint_eq(jl.first, 0);
    ck_assert_uint_eq(jl.total, 2 * ncalls);
    ck_assert_uint_eq(jl.last, 2 * ncalls);
    ck_assert_uint_ge(jl.calls, 2 * ncalls / 4096);
    ck_assert_uint_le(jl.calls, 2 * ncalls / 4096 + 4);
    sc_graph_free(j);
    sc_graph_free(j2);
    sc_graph_free(f);
    sc_graph_free(f2);
    sc_ctx_free(ctx);
}
END_TEST

/* A forward call node named like a joint placeholder still clashes: the
 * trusted copy of the forward nodes checks those names. */
START_TEST(test_forward_name_clashes_with_placeholder)
{
    static const char text[] =
        "class f(torch.nn.Module):\n"
        "    def forward(self, arg0_1: \"f32[4][1]cpu\"):\n"
        "        tangents_1: \"f32[4][1]cpu\" = "
        "torch.ops.aten.relu.default(arg0_1)\n"
        "        return (tangents_1,)\n";
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *f = text_graph(ctx, text), *j = NULL;
    sc_error err;
    ck_assert_int_eq(sc_graph_new_joint(f, NULL, &j, &err), SC_ERR_INVALID);
    ck_assert_ptr_null(j);
    ck_assert_msg(strstr(err.message, "duplicate node name 'tangents_1'"),
                  "%s", err.message);
    sc_graph_free(f);
    sc_ctx_free(ctx);
}
END_TEST

/* What sc_gradcheck_options.input_done received. */
typedef struct input_log {
    size_t n, next;
    bool in_order;
    sc_gradcheck_input recs[8];
    const sc_gradcheck_input *per_input;
    bool final; /* each record was final when reported */
} input_log;

static void log_input(void *user, size_t i, const sc_gradcheck_input *rec)
{
    input_log *l = user;
    if (i != l->next)
        l->in_order = false;
    l->next = i + 1;
    if (l->n < 8)
        l->recs[l->n] = *rec;
    if (rec != &l->per_input[i])
        l->final = false;
    l->n++;
}

/* gradcheck streams one record per primal, in order, each already what
 * the final per_input holds; its progress counts the checked elements. */
START_TEST(test_gradcheck_streams_inputs)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *f = file_graph(ctx, "examples/mlp_gelu.forward.txt");
    sc_graph *j = joint(f, NULL, 0);
    size_t np = sc_graph_primal_count(j), i;
    sc_gradcheck_input per[8];
    sc_gradcheck_options go;
    sc_gradcheck_report rep;
    input_log il = {0};
    progress_log pl = {0};
    sc_error err;

    ck_assert_uint_le(np, 8);
    sc_gradcheck_options_init(&go);
    go.max_per_input = 3;
    go.per_input = per;
    go.input_done = log_input;
    go.input_done_user = &il;
    go.progress = log_progress;
    go.progress_user = &pl;
    il.in_order = il.final = true;
    il.per_input = per;
    ck_assert_int_eq(sc_gradcheck_run(j, &go, &rep, &err), SC_OK);
    ck_assert(rep.passed);
    ck_assert_uint_eq(il.n, np);
    ck_assert(il.in_order && il.final);
    for (i = 0; i < np; i++) {
        ck_assert_int_eq(il.recs[i].node, per[i].node);
        ck_assert_uint_eq(il.recs[i].checked, per[i].checked);
        ck_assert_uint_eq(il.recs[i].failures, per[i].failures);
        ck_assert((il.recs[i].skipped == NULL) == (per[i].skipped == NULL));
    }
    /* "running the joint graph" first, then the elements */
    ck_assert_str_eq(pl.phase, "running the joint graph");
    ck_assert_uint_eq(pl.total, 0);
    ck_assert_uint_eq(pl.last, rep.checked);
    ck_assert_uint_eq(pl.max, rep.checked);
    ck_assert_uint_eq(pl.calls, 2 + rep.checked);
    sc_graph_free(j);
    sc_graph_free(f);
    sc_ctx_free(ctx);
}
END_TEST

Suite *autodiff_suite(void)
{
    Suite *s = suite_create("autodiff");
    TCase *tc = tcase_create("structure");
    tcase_add_test(tc, test_mm_gelu_matches_pytorch);
    tcase_add_test(tc, test_default_mask_and_roundtrip);
    tcase_add_test(tc, test_mlp_bias_and_none);
    tcase_add_test(tc, test_accumulate_and_broadcast);
    tcase_add_test(tc, test_symbolic_sizes);
    tcase_add_test(tc, test_errors_and_nondiff);
    tcase_add_test(tc, test_dropout);
    tcase_add_test(tc, test_out_of_memory);
    tcase_add_test(tc, test_as_strided_backward_kernel);
    tcase_add_test(tc, test_as_strided_joint);
    tcase_add_test(tc, test_masked_scatter_backward_kernel);
    tcase_add_test(tc, test_builder_tuple_count);
    tcase_add_test(tc, test_symint_sym_size_nodes);
    tcase_add_test(tc, test_symint_composite);
    tcase_add_test(tc, test_split_unbind_unused_pieces);
    tcase_add_test(tc, test_partition_binds_composite_symbols);
    tcase_add_test(tc, test_unbind_many_unused_pieces);
    tcase_add_test(tc, test_bindings_out_of_memory);
    tcase_add_test(tc, test_progress_reports);
    tcase_add_test(tc, test_forward_name_clashes_with_placeholder);
    tcase_add_test(tc, test_gradcheck_streams_inputs);
    tcase_add_loop_test(tc, test_symbolic_formulas, 0,
                        (int)(sizeof symbolic_formulas /
                              sizeof symbolic_formulas[0]));
    tcase_add_loop_test(tc, test_zoo_joints, 0,
                        (int)(sizeof zoo_joints / sizeof zoo_joints[0]));
    tcase_add_loop_test(tc, test_torch213_joints, 0,
                        (int)(sizeof torch_joints / sizeof torch_joints[0]));
    suite_add_tcase(s, tc);
    tc = tcase_create("formulas");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_formula_finite_differences, 0,
                        (int)(sizeof fd_cases / sizeof fd_cases[0]));
    suite_add_tcase(s, tc);
    tc = tcase_create("cross_check");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_cross_check_dropout_model);
    tcase_add_loop_test(tc, test_cross_check, 0,
                        (int)(sizeof cross_examples /
                              sizeof cross_examples[0]));
    suite_add_tcase(s, tc);
    return s;
}
