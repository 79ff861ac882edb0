/* symcut tests — gradcheck (kernels/gradcheck.c) and, through it, the
 * derivative formulas of graph/ops.yaml.
 *
 * - PyTorch's joint graphs of the examples pass; joint graphs with a wrong
 *   gradient (a flipped sign, a missing transpose, a 1% error) fail, and
 *   the worst element is the one reported.
 * - Every op of the table with derivative formulas passes gradcheck on its
 *   own, on several shapes, with broadcasting and non-contiguous inputs:
 *   one small forward graph per case (op_cases below), its joint graph
 *   built by sc_graph_new_joint, checked on every element.  Which ops have
 *   formulas is read from graph/ops.yaml (the `derivatives:` field), not
 *   from the code under test; ops without formulas are reported by the
 *   coverage test, and a case of such an op passes when sc_graph_new_joint
 *   rejects it as unsupported.
 *
 * Data come from $top_srcdir/examples and $top_srcdir/graph/ops.yaml (make
 * check sets top_srcdir). */
#include <config.h>

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <symcut.h>
#include <symcut/graph.h>
#include <symcut/interp.h>

#include "tests/testutil.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

Suite *gradcheck_suite(void);

/* ---- Helpers --------------------------------------------------------------- */

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

static char *read_text_file(const char *rel)
{
    char *path = srcpath(rel), *buf;
    FILE *f = fopen(path, "rb");
    long n;
    ck_assert_msg(f != NULL, "cannot open %s", path);
    ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
    n = ftell(f);
    ck_assert_int_ge(n, 0);
    rewind(f);
    buf = malloc((size_t)n + 1);
    ck_assert_ptr_nonnull(buf);
    ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    free(path);
    return buf;
}

static sc_graph *read_example(sc_ctx *ctx, const char *rel)
{
    char *p = srcpath(rel);
    sc_graph *g = NULL;
    sc_error err;
    sc_status st = sc_graph_read_file(ctx, p, NULL, &g, &err);
    ck_assert_msg(st == SC_OK, "reading %s: %s", p, err.message);
    free(p);
    return g;
}

static sc_graph *read_string(sc_ctx *ctx, const char *text)
{
    sc_graph *g = NULL;
    sc_error err;
    sc_status st = sc_graph_read_text(ctx, text, strlen(text), "<test>",
                                      NULL, &g, &err);
    ck_assert_msg(st == SC_OK, "reading a test graph: %s (line %d col %d)\n%s",
                  err.message, err.line, err.column, text);
    return g;
}

/* ---- The examples' joint graphs (PyTorch's) ---------------------------- */

static const struct {
    const char *file;
    size_t max_per_input;
    const char *sizes; /* "s0=5,s1=16,s2=24" or NULL */
} examples[] = {
    {"examples/fn_mm_gelu_sum.joint.txt", 16, NULL},
    {"examples/fn_mm_gelu_sum_dyn.joint.txt", 16, "s0=5,s1=6,s2=7"},
    {"examples/mlp_gelu.joint.txt", 8, NULL},
    {"examples/mlp_gelu_dyn.joint.txt", 8, "s0=3"},
    {"examples/two_output_mlp.joint.txt", 8, NULL},
    {"examples/lstm_module.joint.txt", 4, NULL},
    {"examples/attention_single_head.joint.txt", 4, NULL},
    {"examples/lm_head_ce.joint.txt", 2, NULL},
    /* batch norm mutates its running statistics (primals): every run
     * must start from fresh copies */
    {"examples/small_cnn.joint.txt", 1, NULL},
};

static void parse_sizes(sc_ctx *ctx, const char *text, sc_symmap *map)
{
    char buf[128], *save = NULL, *tok;
    snprintf(buf, sizeof buf, "%s", text);
    for (tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        sc_expr *sym;
        ck_assert_ptr_nonnull(eq);
        *eq = '\0';
        sym = sc_expr_symbol(ctx, tok);
        ck_assert_ptr_nonnull(sym);
        ck_assert_int_eq(sc_symmap_set_si(map, sym, atoll(eq + 1), NULL),
                         SC_OK);
    }
}

START_TEST(test_examples_pass)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = read_example(ctx, examples[_i].file);
    sc_symmap *sizes = sc_symmap_new(ctx);
    size_t np = sc_graph_primal_count(g), i, nchecked = 0, nnone = 0;
    sc_gradcheck_input *recs = calloc(np + 1, sizeof *recs);
    sc_gradcheck_options o;
    sc_gradcheck_report r;
    sc_error err;
    sc_status st;

    ck_assert_ptr_nonnull(recs);
    if (examples[_i].sizes)
        parse_sizes(ctx, examples[_i].sizes, sizes);
    sc_gradcheck_options_init(&o);
    o.max_per_input = examples[_i].max_per_input;
    o.seed = 3;
    o.sizes = sizes;
    o.per_input = recs;
    st = sc_gradcheck_run(g, &o, &r, &err);
    ck_assert_msg(st == SC_OK, "%s: %s", examples[_i].file, err.message);
    ck_assert_msg(r.passed, "%s: %s", examples[_i].file, r.message);
    ck_assert_str_eq(r.message, "");
    ck_assert_uint_gt(r.checked, 0);
    ck_assert_uint_eq(r.failures, 0);
    ck_assert(r.worst_ratio <= 1);
    ck_assert_uint_lt(r.worst_input, np);
    /* The records agree with the joint graph's outputs: a primal is
     * skipped exactly when its gradient is None (or it is not floating),
     * and at most max_per_input elements of each are checked. */
    for (i = 0; i < np; i++) {
        sc_node_id grad =
            sc_graph_output(g, sc_graph_fwd_output_count(g) + i);
        ck_assert_int_eq(recs[i].node, (sc_node_id)i);
        if (grad == SC_NODE_NONE) {
            ck_assert_ptr_nonnull(recs[i].skipped);
            ck_assert_uint_eq(recs[i].checked, 0);
            nnone++;
        } else if (!recs[i].skipped) {
            ck_assert_uint_eq(recs[i].checked,
                              recs[i].numel < o.max_per_input
                                  ? recs[i].numel
                                  : o.max_per_input);
            nchecked += recs[i].checked;
        }
    }
    ck_assert_uint_eq(nchecked, r.checked);
    ck_assert_uint_eq(r.runs, 2 + 2 * r.checked);
    (void)nnone;
    free(recs);
    sc_symmap_free(sizes);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

/* lm_head_ce has integer primals (token ids, targets): skipped as not
 * floating, while its float primals are checked. */
START_TEST(test_integer_primals_skipped)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = read_example(ctx, "examples/lm_head_ce.joint.txt");
    size_t np = sc_graph_primal_count(g), i, nint = 0, nfloat = 0;
    sc_gradcheck_input *recs = calloc(np + 1, sizeof *recs);
    sc_gradcheck_options o;
    sc_gradcheck_report r;
    sc_error err;

    sc_gradcheck_options_init(&o);
    o.max_per_input = 1;
    o.per_input = recs;
    ck_assert_int_eq(sc_gradcheck_run(g, &o, &r, &err), SC_OK);
    ck_assert_msg(r.passed, "%s", r.message);
    for (i = 0; i < np; i++) {
        sc_result res;
        sc_graph_node_result(g, (sc_node_id)i, &res);
        ck_assert_int_eq(res.kind, SC_RESULT_TENSOR);
        if (sc_dtype_kind(res.tensor.dtype) != 'f') {
            ck_assert_ptr_nonnull(recs[i].skipped);
            nint++;
        } else if (sc_graph_output(g, sc_graph_fwd_output_count(g) + i) !=
                   SC_NODE_NONE) {
            ck_assert_ptr_null(recs[i].skipped);
            ck_assert_uint_eq(recs[i].checked, 1);
            nfloat++;
        }
    }
    ck_assert_uint_gt(nint, 0);
    ck_assert_uint_gt(nfloat, 0);
    free(recs);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

/* ---- Wrong joint graphs fail ------------------------------------------- */

/* y = x @ w for square x, w: the gradients are tangents @ w^T and x^T @
 * tangents.  GRAD_X and GRAD_W are spliced in. */
#define SQUARE_JOINT(GRAD_W)                                                 \
    "class joint_fn(torch.nn.Module):\n"                                     \
    "    def forward(self, primals, tangents):\n"                            \
    "        primals_1: \"f32[4, 4][4, 1]cpu\"; primals_2: \"f32[4, 4][4, "  \
    "1]cpu\"; tangents_1: \"f32[4, 4][4, 1]cpu\"; \n"                        \
    "        primals_1, primals_2, tangents_1, = "                           \
    "fx_pytree.tree_flatten_spec([primals, tangents], self._in_spec)\n"      \
    "        mm: \"f32[4, 4][4, 1]cpu\" = "                                  \
    "torch.ops.aten.mm.default(primals_1, primals_2)\n"                      \
    "        t: \"f32[4, 4][1, 4]cpu\" = "                                   \
    "torch.ops.aten.t.default(primals_2)\n"                                  \
    "        mm_1: \"f32[4, 4][4, 1]cpu\" = "                                \
    "torch.ops.aten.mm.default(tangents_1, t)\n"                             \
    "        t_1: \"f32[4, 4][1, 4]cpu\" = "                                 \
    "torch.ops.aten.t.default(primals_1)\n"                                  \
    "        mm_2: \"f32[4, 4][4, 1]cpu\" = "                                \
    "torch.ops.aten.mm.default(" GRAD_W ", tangents_1)\n"                     \
    "        return pytree.tree_unflatten([mm, mm_1, mm_2], "                \
    "self._out_spec)\n"

static void run_check(const char *text, size_t max_per_input,
                      sc_gradcheck_report *r, sc_gradcheck_input *recs)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = read_string(ctx, text);
    sc_gradcheck_options o;
    sc_error err;
    sc_status st;
    sc_gradcheck_options_init(&o);
    o.max_per_input = max_per_input;
    o.per_input = recs;
    st = sc_gradcheck_run(g, &o, r, &err);
    ck_assert_msg(st == SC_OK, "%s", err.message);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}

START_TEST(test_square_right_passes)
{
    sc_gradcheck_report r;
    sc_gradcheck_input recs[2];
    run_check(SQUARE_JOINT("t_1"), 0, &r, recs);
    ck_assert_msg(r.passed, "%s", r.message);
    ck_assert_uint_eq(r.checked, 32);
    ck_assert_uint_eq(recs[0].checked, 16);
    ck_assert_uint_eq(recs[1].checked, 16);
}
END_TEST

/* The gradient of w without its transpose: x @ g instead of x^T @ g. */
START_TEST(test_missing_transpose_fails)
{
    sc_gradcheck_report r;
    sc_gradcheck_input recs[2];
    run_check(SQUARE_JOINT("primals_1"), 0, &r, recs);
    ck_assert(!r.passed);
    ck_assert_uint_gt(r.failures, 0);
    ck_assert_uint_eq(recs[0].failures, 0); /* x's gradient is right */
    ck_assert_uint_gt(recs[1].failures, 0);
    ck_assert_uint_eq(r.worst_input, 1);
    ck_assert(r.worst_ratio > 1);
    ck_assert(fabs(r.worst_analytic - r.worst_numeric) ==
              r.worst_abs_error);
    ck_assert_msg(strstr(r.message, "primals_2[") != NULL, "%s", r.message);
}
END_TEST

/* fn_mm_gelu_sum with the gradient of primals_3 negated, or scaled by
 * 1.01 (fails: 1% > rtol) or by 1.00001 (passes: within the tolerance). */
static char *mm_gelu_with(const char *grad_expr)
{
    char *text = read_text_file("examples/fn_mm_gelu_sum.joint.txt");
    const char *ret = strstr(text, "        return ");
    char *out;
    size_t n;
    ck_assert_ptr_nonnull(ret);
    n = strlen(text) + strlen(grad_expr) + 256;
    out = malloc(n);
    ck_assert_ptr_nonnull(out);
    snprintf(out, n,
             "%.*s        wrong: \"f32[32, 8][8, 1]cpu\" = %s\n"
             "        return pytree.tree_unflatten([sum_1, None, mm_4, "
             "wrong], self._out_spec)\n",
             (int)(ret - text), text, grad_expr);
    free(text);
    return out;
}

START_TEST(test_flipped_sign_fails)
{
    char *text = mm_gelu_with("torch.ops.aten.neg.default(mm_2)");
    sc_gradcheck_report r;
    sc_gradcheck_input recs[3];
    run_check(text, 16, &r, recs);
    ck_assert(!r.passed);
    ck_assert_uint_eq(r.worst_input, 2);
    ck_assert_uint_eq(recs[1].failures, 0);
    ck_assert_uint_eq(recs[2].failures, recs[2].checked);
    /* analytic = -numeric */
    ck_assert(fabs(r.worst_analytic + r.worst_numeric) <
              1e-6 * fabs(r.worst_numeric) + 1e-9);
    ck_assert_msg(strstr(r.message, "primals_3[") != NULL, "%s", r.message);
    free(text);
}
END_TEST

START_TEST(test_one_percent_fails)
{
    char *text = mm_gelu_with("torch.ops.aten.mul.Tensor(mm_2, 1.01)");
    sc_gradcheck_report r;
    sc_gradcheck_input recs[3];
    run_check(text, 64, &r, recs);
    ck_assert(!r.passed);
    ck_assert_uint_eq(r.worst_input, 2);
    ck_assert_uint_gt(recs[2].failures, 0);
    ck_assert(fabs(r.worst_analytic - 1.01 * r.worst_numeric) <
              1e-4 * fabs(r.worst_numeric) + 1e-8);
    free(text);
}
END_TEST

START_TEST(test_within_tolerance_passes)
{
    char *text = mm_gelu_with("torch.ops.aten.mul.Tensor(mm_2, 1.00001)");
    sc_gradcheck_report r;
    sc_gradcheck_input recs[3];
    run_check(text, 64, &r, recs);
    ck_assert_msg(r.passed, "%s", r.message);
    ck_assert_uint_eq(r.checked, 128);
    free(text);
}
END_TEST

/* Tolerances are honoured: the exact joint graph fails with atol = rtol =
 * 0 (finite differences are not exact), passes with the defaults. */
START_TEST(test_zero_tolerance_fails)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = read_example(ctx, "examples/fn_mm_gelu_sum.joint.txt");
    sc_gradcheck_options o;
    sc_gradcheck_report r;
    sc_error err;
    sc_gradcheck_options_init(&o);
    o.max_per_input = 8;
    o.atol = 0;
    o.rtol = 0;
    ck_assert_int_eq(sc_gradcheck_run(g, &o, &r, &err), SC_OK);
    ck_assert(!r.passed);
    ck_assert(r.worst_abs_error > 0 && r.worst_abs_error < 1e-6);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

/* The same seed gives the same report; another seed other elements. */
START_TEST(test_deterministic)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = read_example(ctx, "examples/mlp_gelu.joint.txt");
    sc_gradcheck_options o;
    sc_gradcheck_report a, b, c;
    sc_error err;
    sc_gradcheck_options_init(&o);
    o.max_per_input = 4;
    o.seed = 11;
    ck_assert_int_eq(sc_gradcheck_run(g, &o, &a, &err), SC_OK);
    ck_assert_int_eq(sc_gradcheck_run(g, &o, &b, &err), SC_OK);
    o.seed = 12;
    ck_assert_int_eq(sc_gradcheck_run(g, &o, &c, &err), SC_OK);
    ck_assert(a.passed && b.passed && c.passed);
    ck_assert_uint_eq(a.worst_input, b.worst_input);
    ck_assert_uint_eq(a.worst_index, b.worst_index);
    ck_assert(a.worst_analytic == b.worst_analytic);
    ck_assert(a.worst_numeric == b.worst_numeric);
    ck_assert(a.worst_analytic != c.worst_analytic ||
              a.worst_index != c.worst_index);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

/* A forward graph is not a joint graph; bad options are rejected. */
START_TEST(test_errors)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = read_example(ctx, "examples/fn_mm_gelu_sum.forward.txt");
    sc_graph *dyn = read_example(ctx, "examples/fn_mm_gelu_sum_dyn.joint.txt");
    sc_gradcheck_options o;
    sc_gradcheck_report r;
    sc_error err;
    ck_assert_int_eq(sc_gradcheck_run(g, NULL, &r, &err), SC_ERR_INVALID);
    ck_assert_msg(strstr(err.message, "not a joint graph") != NULL, "%s",
                  err.message);
    ck_assert(!r.passed);
    sc_gradcheck_options_init(&o);
    o.eps = 0;
    ck_assert_int_eq(sc_gradcheck_run(g, &o, &r, &err), SC_ERR_INVALID);
    /* No hints and no sizes. */
    ck_assert_int_eq(sc_gradcheck_run(dyn, NULL, &r, &err), SC_ERR_UNBOUND);
    sc_graph_free(g);
    sc_graph_free(dyn);
    sc_ctx_free(ctx);
}
END_TEST

/* Symbolic sizes: a joint graph built by sc_graph_new_joint from a forward
 * graph with a symbol (broadcasting reduced with symbolic sizes) passes at
 * its hint and at other sizes. */
START_TEST(test_symbolic_joint)
{
    static const char text[] =
        "# symcut: hint s0=4\n"
        "def forward(self, primals_1: \"f32[s0, 3][3, 1]cpu\", "
        "primals_2: \"f32[3][1]cpu\", primals_3: \"f32[s0, 1][1, 1]cpu\"):\n"
        "    add = torch.ops.aten.add.Tensor(primals_1, primals_2)\n"
        "    mul = torch.ops.aten.mul.Tensor(add, primals_3)\n"
        "    tanh = torch.ops.aten.tanh.default(mul)\n"
        "    sum_1 = torch.ops.aten.sum.dim_IntList(tanh, [0])\n"
        "    return [sum_1]\n";
    static const int64_t sizes[] = {0 /* the hint */, 2, 7};
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *fwd = read_string(ctx, text), *joint = NULL;
    sc_expr *s0 = sc_expr_symbol(ctx, "s0");
    sc_error err;
    size_t k;
    ck_assert_msg(sc_graph_new_joint(fwd, NULL, &joint, &err) == SC_OK, "%s",
                  err.message);
    for (k = 0; k < ARRAY_SIZE(sizes); k++) {
        sc_symmap *m = sc_symmap_new(ctx);
        sc_gradcheck_options o;
        sc_gradcheck_report r;
        sc_gradcheck_input recs[3];
        if (sizes[k])
            ck_assert_int_eq(sc_symmap_set_si(m, s0, sizes[k], NULL), SC_OK);
        sc_gradcheck_options_init(&o);
        o.sizes = m;
        o.max_per_input = 0;
        o.per_input = recs;
        ck_assert_msg(sc_gradcheck_run(joint, &o, &r, &err) == SC_OK, "%s",
                      err.message);
        ck_assert_msg(r.passed, "s0=%lld: %s", (long long)sizes[k],
                      r.message);
        ck_assert_uint_eq(recs[0].checked,
                          3 * (size_t)(sizes[k] ? sizes[k] : 4));
        ck_assert_uint_eq(recs[1].checked, 3);
        ck_assert_uint_eq(recs[2].checked, (size_t)(sizes[k] ? sizes[k] : 4));
        sc_symmap_free(m);
    }
    sc_graph_free(joint);
    sc_graph_free(fwd);
    sc_ctx_free(ctx);
}
END_TEST

/* ---- One test per differentiable op ------------------------------------- */

/* A small forward graph: its inputs ("x: f32[3, 4], w: f32[4]"; the
 * annotations are PyTorch's), its statements separated by ';' (a target
 * without "operator." is under torch.ops.aten), and its outputs (NULL: the
 * last statement's node).  Non-contiguous inputs come from a view (t,
 * transpose, permute, expand, a strided slice) before the op. */
typedef struct op_case {
    const char *op;     /* the ops.yaml entry: "add.Tensor", "mm" */
    const char *what;
    const char *inputs;
    const char *body;
    const char *outputs;
} op_case;

static const op_case op_cases[] = {
    /* matrix products */
    {"mm", "[3, 4] @ [4, 5]", "x: f32[3, 4], w: f32[4, 5]",
     "o = mm.default(x, w)", NULL},
    {"mm", "transposed operands", "x: f32[4, 3], w: f32[5, 4]",
     "xt = t.default(x); wt = t.default(w); o = mm.default(xt, wt)", NULL},
    {"bmm", "[2, 3, 4] @ [2, 4, 5]", "x: f32[2, 3, 4], w: f32[2, 4, 5]",
     "o = bmm.default(x, w)", NULL},
    {"bmm", "transposed operand", "x: f32[2, 4, 3], w: f32[2, 4, 5]",
     "xt = transpose.int(x, 1, 2); o = bmm.default(xt, w)", NULL},
    {"addmm", "bias [5] broadcast", "b: f32[5], x: f32[3, 4], w: f32[4, 5]",
     "o = addmm.default(b, x, w)", NULL},
    {"addmm", "bias [3, 5], beta 0.5, alpha 2",
     "b: f32[3, 5], x: f32[3, 4], w: f32[4, 5]",
     "o = addmm.default(b, x, w, beta = 0.5, alpha = 2)", NULL},
    {"addmm", "bias [1, 5], transposed weight",
     "b: f32[1, 5], x: f32[3, 4], w: f32[5, 4]",
     "wt = t.default(w); o = addmm.default(b, x, wt)", NULL},
    /* views */
    {"t", "[3, 4]", "x: f32[3, 4]", "o = t.default(x)", NULL},
    {"t", "[5] (1-d)", "x: f32[5]", "o = t.default(x)", NULL},
    {"transpose.int", "[2, 3, 4] dims 0, 2", "x: f32[2, 3, 4]",
     "o = transpose.int(x, 0, 2)", NULL},
    {"transpose.int", "negative dims, non-contiguous", "x: f32[2, 3, 4]",
     "p = permute.default(x, [1, 0, 2]); o = transpose.int(p, -1, -3)",
     NULL},
    {"permute", "[2, 3, 4] -> [4, 2, 3]", "x: f32[2, 3, 4]",
     "o = permute.default(x, [2, 0, 1])", NULL},
    {"permute", "non-contiguous", "x: f32[3, 4]",
     "xt = t.default(x); o = permute.default(xt, [1, 0])", NULL},
    {"view", "[3, 4] -> [12]", "x: f32[3, 4]", "o = view.default(x, [12])",
     NULL},
    {"view", "[2, 6] -> [3, -1, 2]", "x: f32[2, 6]",
     "o = view.default(x, [3, -1, 2])", NULL},
    {"_unsafe_view", "[3, 4] -> [2, 6]", "x: f32[3, 4]",
     "o = _unsafe_view.default(x, [2, 6])", NULL},
    {"_unsafe_view", "[2, 3, 2] -> [6, 2]", "x: f32[2, 3, 2]",
     "o = _unsafe_view.default(x, [6, 2])", NULL},
    {"_reshape_alias", "[3, 4] -> [4, 3]", "x: f32[3, 4]",
     "o = _reshape_alias.default(x, [4, 3], [3, 1])", NULL},
    {"_reshape_alias", "[2, 6] -> [12]", "x: f32[2, 6]",
     "o = _reshape_alias.default(x, [12], [1])", NULL},
    {"reshape", "[3, 4] -> [2, 6]", "x: f32[3, 4]",
     "o = reshape.default(x, [2, 6])", NULL},
    {"reshape", "non-contiguous (a copy)", "x: f32[3, 4]",
     "xt = t.default(x); o = reshape.default(xt, [12])", NULL},
    {"as_strided", "[3, 4] -> [2, 2] strides [4, 1] offset 1",
     "x: f32[3, 4]", "o = as_strided.default(x, [2, 2], [4, 1], 1)", NULL},
    {"as_strided", "[6] -> [2, 3] strides [3, 1]", "x: f32[6]",
     "o = as_strided.default(x, [2, 3], [3, 1])", NULL},
    {"as_strided", "plain view [3, 4] -> [4, 3] strides [1, 4]",
     "x: f32[3, 4]", "o = as_strided.default(x, [4, 3], [1, 4])", NULL},
    {"as_strided", "overlapping [3, 3] strides [1, 1] of [5]", "x: f32[5]",
     "o = as_strided.default(x, [3, 3], [1, 1])", NULL},
    {"as_strided", "overlapping, stride 0, offset 2", "x: f32[2, 4]",
     "o = as_strided.default(x, [2, 3, 2], [0, 2, 1], 2)", NULL},
    {"as_strided", "part of the input unused (zero gradient)", "x: f32[10]",
     "o = as_strided.default(x, [2, 2], [3, 1], 4)", NULL},
    {"as_strided", "non-contiguous input (t), view of its storage",
     "x: f32[3, 4][4, 1]",
     "xt = t.default(x); o = as_strided.default(xt, [2, 3], [1, 4], 1)",
     NULL},
    {"as_strided", "non-contiguous input, no offset, overlapping",
     "x: f32[2, 3][3, 1]",
     "xt = t.default(x); o = as_strided.default(xt, [3, 2], [1, 2])", NULL},
    {"as_strided", "self-overlapping input (expand), offset 1",
     "x: f32[1, 4][4, 1]",
     "e = expand.default(x, [3, 4]); "
     "o = as_strided.default(e, [2, 2], [1, 1], 1)",
     NULL},
    {"as_strided", "as_strided of as_strided (offsets add up)",
     "x: f32[12][1]",
     "a = as_strided.default(x, [3, 3], [3, 1], 2); "
     "o = as_strided.default(a, [2, 2], [2, 3], 3)",
     NULL},
    {"expand", "[3, 1] -> [3, 4]", "x: f32[3, 1]",
     "o = expand.default(x, [3, 4])", NULL},
    {"expand", "[4] -> [2, 3, 4]", "x: f32[4]",
     "o = expand.default(x, [2, 3, 4])", NULL},
    {"expand", "[1, 3] -> [2, -1], non-contiguous", "x: f32[3, 1]",
     "xt = t.default(x); o = expand.default(xt, [2, -1])", NULL},
    {"alias", "[3, 4]", "x: f32[3, 4]", "o = alias.default(x)", NULL},
    {"alias", "non-contiguous", "x: f32[3, 4]",
     "xt = t.default(x); o = alias.default(xt)", NULL},
    {"squeeze", "[3, 1, 4]", "x: f32[3, 1, 4]", "o = squeeze.default(x)",
     NULL},
    {"squeeze", "[1, 1]", "x: f32[1, 1]", "o = squeeze.default(x)", NULL},
    {"squeeze.dim", "[3, 1, 4] dim 1", "x: f32[3, 1, 4]",
     "o = squeeze.dim(x, 1)", NULL},
    {"squeeze.dim", "[3, 4] dim 0 (no-op)", "x: f32[3, 4]",
     "o = squeeze.dim(x, 0)", NULL},
    {"squeeze.dims", "[1, 3, 1] dims [0, 2]", "x: f32[1, 3, 1]",
     "o = squeeze.dims(x, [0, 2])", NULL},
    {"squeeze.dims", "[1, 3, 1] dims [-1]", "x: f32[1, 3, 1]",
     "o = squeeze.dims(x, [-1])", NULL},
    {"unsqueeze", "[3, 4] dim 1", "x: f32[3, 4]",
     "o = unsqueeze.default(x, 1)", NULL},
    {"unsqueeze", "dim -1, non-contiguous", "x: f32[3, 4]",
     "xt = t.default(x); o = unsqueeze.default(xt, -1)", NULL},
    {"slice.Tensor", "[6, 4] dim 0, 1:5:2", "x: f32[6, 4]",
     "o = slice.Tensor(x, 0, 1, 5, 2)", NULL},
    {"slice.Tensor", "dim 1, to -1", "x: f32[3, 5]",
     "o = slice.Tensor(x, 1, 0, -1)", NULL},
    {"slice.Tensor", "dim 1, 2:end, non-contiguous", "x: f32[5, 3]",
     "xt = t.default(x); o = slice.Tensor(xt, 1, 2, 9223372036854775807)",
     NULL},
    {"select.int", "[3, 4] dim 1 index 2", "x: f32[3, 4]",
     "o = select.int(x, 1, 2)", NULL},
    {"select.int", "dim 0 index -1", "x: f32[3, 4]",
     "o = select.int(x, 0, -1)", NULL},
    {"select_backward", "[4] into [3, 4] at dim 0 index 1", "g: f32[4]",
     "o = select_backward.default(g, [3, 4], 0, 1)", NULL},
    {"slice_backward", "[2, 4] into [5, 4] at 1:5:2", "g: f32[2, 4]",
     "o = slice_backward.default(g, [5, 4], 0, 1, 5, 2)", NULL},
    {"split.Tensor", "[5, 4] in 2s along 0, every piece", "x: f32[5, 4]",
     "s = split.Tensor(x, 2); a = operator.getitem(s, 0); "
     "b = operator.getitem(s, 1); c = operator.getitem(s, 2)",
     "a, b, c"},
    {"split.Tensor", "along 1, one piece used", "x: f32[3, 5]",
     "s = split.Tensor(x, 3, 1); b = operator.getitem(s, 1)", NULL},
    {"unsafe_split.Tensor", "[5, 4] in 2s", "x: f32[5, 4]",
     "s = unsafe_split.Tensor(x, 2); a = operator.getitem(s, 0); "
     "c = operator.getitem(s, 2)",
     "a, c"},
    {"unsafe_split.Tensor", "along 1, non-contiguous", "x: f32[4, 3]",
     "xt = t.default(x); s = unsafe_split.Tensor(xt, 2, 1); "
     "b = operator.getitem(s, 1)",
     NULL},
    {"split_with_sizes", "[5, 4] into 2 + 3", "x: f32[5, 4]",
     "s = split_with_sizes.default(x, [2, 3]); a = operator.getitem(s, 0); "
     "b = operator.getitem(s, 1)",
     "a, b"},
    {"split_with_sizes", "along 1, last piece only", "x: f32[3, 5]",
     "s = split_with_sizes.default(x, [1, 4], 1); "
     "b = operator.getitem(s, 1)",
     NULL},
    {"unbind.int", "[3, 4] along 1", "x: f32[3, 4]",
     "u = unbind.int(x, 1); a = operator.getitem(u, 0); "
     "d = operator.getitem(u, 3)",
     "a, d"},
    {"unbind.int", "[2, 3] along 0", "x: f32[2, 3]",
     "u = unbind.int(x); a = operator.getitem(u, 0); "
     "b = operator.getitem(u, 1)",
     "a, b"},
    {"cat", "[2, 3] and [4, 3] along 0", "x: f32[2, 3], y: f32[4, 3]",
     "o = cat.default([x, y])", NULL},
    {"cat", "along 1, non-contiguous", "x: f32[2, 3], y: f32[3, 2]",
     "yt = t.default(y); o = cat.default([x, yt, x], 1)", NULL},
    {"stack", "two [3, 4] along 1", "x: f32[3, 4], y: f32[3, 4]",
     "o = stack.default([x, y], 1)", NULL},
    {"stack", "along 0, non-contiguous", "x: f32[4, 3], y: f32[3, 4]",
     "xt = t.default(x); o = stack.default([xt, y])", NULL},
    {"clone", "[3, 4]", "x: f32[3, 4]", "o = clone.default(x)", NULL},
    {"clone", "non-contiguous, contiguous_format", "x: f32[3, 4]",
     "xt = t.default(x); "
     "o = clone.default(xt, memory_format = torch.contiguous_format)",
     NULL},
    {"_to_copy", "[3, 4] to f16", "x: f32[3, 4]",
     "o = _to_copy.default(x, dtype = torch.float16)", NULL},
    {"_to_copy", "non-contiguous, same dtype", "x: f32[3, 4]",
     "xt = t.default(x); o = _to_copy.default(xt)", NULL},
    /* pointwise */
    {"add.Tensor", "[3, 4] + [4]", "x: f32[3, 4], y: f32[4]",
     "o = add.Tensor(x, y)", NULL},
    {"add.Tensor", "[3, 1] + [1, 4], alpha 2", "x: f32[3, 1], y: f32[1, 4]",
     "o = add.Tensor(x, y, alpha = 2)", NULL},
    {"add.Tensor", "non-contiguous + same", "x: f32[4, 3]",
     "xt = t.default(x); o = add.Tensor(xt, xt)", NULL},
    {"add.Scalar", "[3, 4] + 2.5", "x: f32[3, 4]",
     "o = add.Scalar(x, 2.5)", NULL},
    {"add.Scalar", "alpha 3, non-contiguous", "x: f32[4, 3]",
     "xt = t.default(x); o = add.Scalar(xt, 1.5, 3)", NULL},
    {"sub.Tensor", "[3, 4] - [3, 1]", "x: f32[3, 4], y: f32[3, 1]",
     "o = sub.Tensor(x, y)", NULL},
    {"sub.Tensor", "[4] - [2, 4], alpha 0.5", "x: f32[4], y: f32[2, 4]",
     "o = sub.Tensor(x, y, alpha = 0.5)", NULL},
    {"sub.Scalar", "[3, 4] - 2", "x: f32[3, 4]", "o = sub.Scalar(x, 2)",
     NULL},
    {"sub.Scalar", "alpha 2, non-contiguous", "x: f32[4, 3]",
     "xt = t.default(x); o = sub.Scalar(xt, 1.5, 2)", NULL},
    {"rsub.Scalar", "1 - [3, 4]", "x: f32[3, 4]", "o = rsub.Scalar(x, 1)",
     NULL},
    {"rsub.Scalar", "2 - 3 * x, non-contiguous", "x: f32[4, 3]",
     "xt = t.default(x); o = rsub.Scalar(xt, 2, 3)", NULL},
    {"mul.Tensor", "[3, 4] * [4]", "x: f32[3, 4], y: f32[4]",
     "o = mul.Tensor(x, y)", NULL},
    {"mul.Tensor", "[2, 1, 4] * [3, 1], x * x", "x: f32[2, 1, 4], y: f32[3, 1]",
     "m = mul.Tensor(x, y); o = mul.Tensor(m, m)", NULL},
    {"mul.Tensor", "non-contiguous", "x: f32[4, 3], y: f32[3, 4]",
     "xt = t.default(x); o = mul.Tensor(xt, y)", NULL},
    {"mul.Scalar", "[3, 4] * 1.5", "x: f32[3, 4]", "o = mul.Scalar(x, 1.5)",
     NULL},
    {"mul.Scalar", "non-contiguous, integer scalar", "x: f32[4, 3]",
     "xt = t.default(x); o = mul.Scalar(xt, -3)", NULL},
    {"mul.Tensor", "f16 and bf16 inputs (checked in f64)",
     "x: f16[3, 4], y: bf16[4]", "o = mul.Tensor(x, y)", NULL},
    {"div.Tensor", "[3, 4] / ([4] + 3)", "x: f32[3, 4], y: f32[4]",
     "y3 = add.Scalar(y, 3); o = div.Tensor(x, y3)", NULL},
    {"div.Tensor", "[3, 1] / ([1, 4] + 2)", "x: f32[3, 1], y: f32[1, 4]",
     "y2 = add.Scalar(y, 2); o = div.Tensor(x, y2)", NULL},
    {"div.Scalar", "[3, 4] / 4", "x: f32[3, 4]", "o = div.Scalar(x, 4.0)",
     NULL},
    {"div.Scalar", "non-contiguous", "x: f32[4, 3]",
     "xt = t.default(x); o = div.Scalar(xt, -0.25)", NULL},
    {"div.Tensor_mode", "rounding_mode None, broadcast",
     "x: f32[3, 4], y: f32[4]",
     "y3 = add.Scalar(y, 3); "
     "o = div.Tensor_mode(x, y3, rounding_mode = None)",
     NULL},
    {"div.Tensor_mode", "trunc (zero gradient)", "x: f32[3, 4], y: f32[3, 4]",
     "x9 = mul.Scalar(x, 9.3); y3 = add.Scalar(y, 3); "
     "d = div.Tensor_mode(x9, y3, rounding_mode = 'trunc'); "
     "o = add.Tensor(d, x)",
     NULL},
    {"neg", "[3, 4]", "x: f32[3, 4]", "o = neg.default(x)", NULL},
    {"neg", "non-contiguous", "x: f32[4, 3]",
     "xt = t.default(x); o = neg.default(xt)", NULL},
    {"pow.Tensor_Scalar", "x ** 3", "x: f32[3, 4]",
     "o = pow.Tensor_Scalar(x, 3)", NULL},
    {"pow.Tensor_Scalar", "(x + 2) ** 2.5, non-contiguous", "x: f32[4, 3]",
     "xt = t.default(x); x2 = add.Scalar(xt, 2); "
     "o = pow.Tensor_Scalar(x2, 2.5)",
     NULL},
    {"pow.Tensor_Tensor", "(x + 2) ** [4]", "x: f32[3, 4], y: f32[4]",
     "x2 = add.Scalar(x, 2); o = pow.Tensor_Tensor(x2, y)", NULL},
    {"pow.Tensor_Tensor", "[3, 1] ** [1, 4]", "x: f32[3, 1], y: f32[1, 4]",
     "x2 = add.Scalar(x, 2); o = pow.Tensor_Tensor(x2, y)", NULL},
    {"pow.Scalar", "2.5 ** x", "x: f32[3, 4]", "o = pow.Scalar(2.5, x)",
     NULL},
    {"pow.Scalar", "3 ** x, non-contiguous", "x: f32[4, 3]",
     "xt = t.default(x); o = pow.Scalar(3, xt)", NULL},
    {"abs", "[3, 4]", "x: f32[3, 4]", "o = abs.default(x)", NULL},
    {"abs", "non-contiguous", "x: f32[4, 3]",
     "xt = t.default(x); o = abs.default(xt)", NULL},
    {"sgn", "[3, 4] (zero gradient)", "x: f32[3, 4]",
     "s = sgn.default(x); o = mul.Tensor(s, x)", NULL},
    {"sgn", "non-contiguous", "x: f32[4, 3]",
     "xt = t.default(x); s = sgn.default(xt); o = add.Tensor(s, xt)",
     NULL},
    {"reciprocal", "1 / (x + 2)", "x: f32[3, 4]",
     "x2 = add.Scalar(x, 2); o = reciprocal.default(x2)", NULL},
    {"reciprocal", "non-contiguous", "x: f32[4, 3]",
     "xt = t.default(x); x2 = add.Scalar(xt, -2); "
     "o = reciprocal.default(x2)",
     NULL},
    {"rsqrt", "rsqrt(x + 2)", "x: f32[3, 4]",
     "x2 = add.Scalar(x, 2); o = rsqrt.default(x2)", NULL},
    {"rsqrt", "non-contiguous", "x: f32[4, 3]",
     "xt = t.default(x); x2 = add.Scalar(xt, 1.5); o = rsqrt.default(x2)",
     NULL},
    {"sqrt", "sqrt(x + 2)", "x: f32[3, 4]",
     "x2 = add.Scalar(x, 2); o = sqrt.default(x2)", NULL},
    {"sqrt", "sqrt(x + 2), non-contiguous", "x: f32[4, 3]",
     "xt = t.default(x); x2 = add.Scalar(xt, 2); o = sqrt.default(x2)",
     NULL},
    {"exp", "[3, 4]", "x: f32[3, 4]", "o = exp.default(x)", NULL},
    {"exp", "non-contiguous", "x: f32[4, 3]",
     "xt = t.default(x); o = exp.default(xt)", NULL},
    {"log", "log(x + 2)", "x: f32[3, 4]",
     "x2 = add.Scalar(x, 2); o = log.default(x2)", NULL},
    {"log", "non-contiguous", "x: f32[4, 3]",
     "xt = t.default(x); x2 = add.Scalar(xt, 1.5); o = log.default(x2)",
     NULL},
    {"erf", "[3, 4]", "x: f32[3, 4]", "o = erf.default(x)", NULL},
    {"erf", "non-contiguous", "x: f32[2, 3, 2]",
     "p = permute.default(x, [2, 0, 1]); o = erf.default(p)", NULL},
    {"_scaled_dot_product_flash_attention_for_cpu", "causal [1, 2, 3, 4]",
     "q: f32[1, 2, 3, 4], k: f32[1, 2, 3, 4], v: f32[1, 2, 3, 4]",
     "a = _scaled_dot_product_flash_attention_for_cpu.default(q, k, v, 0.0, "
     "True); o = operator.getitem(a, 0)",
     NULL},
    {"_scaled_dot_product_flash_attention_for_cpu",
     "scale 0.3, key length 2, transposed query",
     "q: f32[1, 3, 2, 4], k: f32[1, 2, 2, 4], v: f32[1, 2, 2, 4]",
     "qt = transpose.int(q, 1, 2); "
     "a = _scaled_dot_product_flash_attention_for_cpu.default(qt, k, v, 0.0, "
     "False, scale = 0.3); o = operator.getitem(a, 0)",
     NULL},
    {"_safe_softmax", "[3, 4] dim 1", "x: f32[3, 4]",
     "o = _safe_softmax.default(x, 1)", NULL},
    {"_safe_softmax", "non-contiguous, dim 0", "x: f32[4, 3]",
     "xt = t.default(x); o = _safe_softmax.default(xt, 0)", NULL},
    {"movedim.int", "[2, 3, 4] 0 -> 2", "x: f32[2, 3, 4]",
     "o = movedim.int(x, 0, 2)", NULL},
    {"movedim.int", "negative dims", "x: f32[2, 3, 4]",
     "o = movedim.int(x, -1, 0)", NULL},
    {"slice_scatter", "dim 1, 1:5:2", "x: f32[4, 6], s: f32[4, 2]",
     "o = slice_scatter.default(x, s, 1, 1, 5, 2)", NULL},
    {"select_scatter", "dim 0, index -1", "x: f32[4, 6], r: f32[6]",
     "o = select_scatter.default(x, r, 0, -1)", NULL},
    {"baddbmm", "self [3] broadcast, beta 0.5, alpha 2",
     "b: f32[3], p: f32[2, 3, 5], q: f32[2, 5, 3]",
     "o = baddbmm.default(b, p, q, beta = 0.5, alpha = 2)", NULL},
    {"sin", "[3, 4]", "x: f32[3, 4]", "o = sin.default(x)", NULL},
    {"sin", "non-contiguous", "x: f32[4, 3]",
     "xt = t.default(x); o = sin.default(xt)", NULL},
    {"cos", "[3, 4]", "x: f32[3, 4]", "o = cos.default(x)", NULL},
    {"hardtanh", "ReLU6 [0, 6]", "x: f32[3, 4]",
     "y = mul.Scalar(x, 8); o = hardtanh.default(y, 0.0, 6.0)", NULL},
    {"hardtanh", "defaults [-1, 1]", "x: f32[3, 4]",
     "y = mul.Scalar(x, 2); o = hardtanh.default(y)", NULL},
    {"lift_fresh_copy", "[3, 4]", "x: f32[3, 4]",
     "o = lift_fresh_copy.default(x)", NULL},
    {"copy", "src broadcast [4] into [3, 4]", "x: f32[3, 4], s: f32[4]",
     "o = copy.default(x, s)", NULL},
    {"copy", "same sizes, non-contiguous src", "x: f32[3, 4], s: f32[4, 3]",
     "st = t.default(s); o = copy.default(x, st)", NULL},
    {"clamp", "[-0.5, 0.5]", "x: f32[3, 4]",
     "o = clamp.default(x, -0.5, 0.5)", NULL},
    {"clamp", "min only", "x: f32[3, 4]", "o = clamp.default(x, 0.1)", NULL},
    {"clamp", "max only", "x: f32[3, 4]",
     "o = clamp.default(x, None, -0.2)", NULL},
    {"tanh", "[3, 4]", "x: f32[3, 4]", "o = tanh.default(x)", NULL},
    {"tanh", "non-contiguous", "x: f32[4, 3]",
     "xt = t.default(x); o = tanh.default(xt)", NULL},
    {"tanh_backward", "[3, 4]", "g: f32[3, 4], y: f32[3, 4]",
     "o = tanh_backward.default(g, y)", NULL},
    {"sigmoid", "[3, 4]", "x: f32[3, 4]", "o = sigmoid.default(x)", NULL},
    {"sigmoid", "non-contiguous", "x: f32[4, 3]",
     "xt = t.default(x); o = sigmoid.default(xt)", NULL},
    {"sigmoid_backward", "[3, 4]", "g: f32[3, 4], y: f32[3, 4]",
     "o = sigmoid_backward.default(g, y)", NULL},
    {"relu", "[3, 4]", "x: f32[3, 4]", "o = relu.default(x)", NULL},
    {"relu", "non-contiguous", "x: f32[4, 3]",
     "xt = t.default(x); o = relu.default(xt)", NULL},
    {"threshold_backward", "[3, 4]", "g: f32[3, 4], x: f32[3, 4]",
     "o = threshold_backward.default(g, x, 0)", NULL},
    {"gelu", "[3, 4]", "x: f32[3, 4]", "o = gelu.default(x)", NULL},
    {"gelu", "tanh approximation, non-contiguous", "x: f32[4, 3]",
     "xt = t.default(x); o = gelu.default(xt, approximate = 'tanh')", NULL},
    {"gelu_backward", "[3, 4]", "g: f32[3, 4], x: f32[3, 4]",
     "o = gelu_backward.default(g, x)", NULL},
    {"silu", "[3, 4]", "x: f32[3, 4]", "o = silu.default(x)", NULL},
    {"silu", "non-contiguous", "x: f32[4, 3]",
     "xt = t.default(x); o = silu.default(xt)", NULL},
    {"silu_backward", "[3, 4]", "g: f32[3, 4], x: f32[3, 4]",
     "o = silu_backward.default(g, x)", NULL},
    {"where.self", "[3, 4] condition, [3, 1] and [4]",
     "c: f32[3, 4], x: f32[3, 1], y: f32[4]",
     "m = gt.Scalar(c, 0); o = where.self(m, x, y)", NULL},
    {"where.self", "non-contiguous", "c: f32[3, 4], x: f32[4, 3]",
     "m = gt.Scalar(c, 0); xt = t.default(x); o = where.self(m, xt, c)",
     NULL},
    {"masked_fill.Scalar", "[3, 4] with a [4] mask",
     "x: f32[3, 4], c: f32[4]",
     "m = gt.Scalar(c, 0); o = masked_fill.Scalar(x, m, 1.5)", NULL},
    {"masked_fill.Scalar", "non-contiguous", "x: f32[4, 3], c: f32[3, 4]",
     "m = lt.Scalar(c, 0); xt = t.default(x); "
     "o = masked_fill.Scalar(xt, m, -2.0)",
     NULL},
    /* reductions */
    {"sum", "[3, 4]", "x: f32[3, 4]", "o = sum.default(x)", NULL},
    {"sum", "non-contiguous", "x: f32[2, 3, 4]",
     "p = permute.default(x, [2, 0, 1]); o = sum.default(p)", NULL},
    {"sum.dim_IntList", "dim 1 keepdim", "x: f32[3, 4]",
     "o = sum.dim_IntList(x, [1], True)", NULL},
    {"sum.dim_IntList", "dims [0, -1]", "x: f32[2, 3, 4]",
     "o = sum.dim_IntList(x, [0, -1])", NULL},
    {"sum.dim_IntList", "non-contiguous", "x: f32[4, 3]",
     "xt = t.default(x); o = sum.dim_IntList(xt, [0])", NULL},
    {"sum_to_size", "[3, 4] -> [1, 4]", "x: f32[3, 4]",
     "o = sum_to_size.default(x, [1, 4])", NULL},
    {"sum_to_size", "[2, 3, 4] -> [3, 1]", "x: f32[2, 3, 4]",
     "o = sum_to_size.default(x, [3, 1])", NULL},
    {"sum_to_size", "non-contiguous [4, 3] -> [3]", "x: f32[3, 4]",
     "xt = t.default(x); o = sum_to_size.default(xt, [3])", NULL},
    {"mean", "[3, 4]", "x: f32[3, 4]", "o = mean.default(x)", NULL},
    {"mean", "non-contiguous", "x: f32[4, 3]",
     "xt = t.default(x); o = mean.default(xt)", NULL},
    {"mean.dim", "dim 0", "x: f32[3, 4]", "o = mean.dim(x, [0])", NULL},
    {"mean.dim", "dims [1, 2] keepdim, non-contiguous", "x: f32[2, 3, 4]",
     "p = permute.default(x, [1, 0, 2]); o = mean.dim(p, [1, 2], True)",
     NULL},
    {"amax", "dim 1", "x: f32[3, 4]", "o = amax.default(x, [1])", NULL},
    {"amax", "dims [0, 2] keepdim", "x: f32[2, 3, 4]",
     "o = amax.default(x, [0, 2], True)", NULL},
    {"_softmax", "dim 1", "x: f32[3, 4]",
     "o = _softmax.default(x, 1, False)", NULL},
    {"_softmax", "dim 0, non-contiguous", "x: f32[4, 3]",
     "xt = t.default(x); o = _softmax.default(xt, 0, False)", NULL},
    {"_softmax_backward_data", "[3, 4] dim 1", "g: f32[3, 4], x: f32[3, 4]",
     "y = _softmax.default(x, 1, False); "
     "o = _softmax_backward_data.default(g, y, 1, torch.float32)",
     NULL},
    {"_log_softmax", "dim 1", "x: f32[3, 4]",
     "o = _log_softmax.default(x, 1, False)", NULL},
    {"_log_softmax", "dim -3 of [2, 3, 4]", "x: f32[2, 3, 4]",
     "o = _log_softmax.default(x, -3, False)", NULL},
    {"_log_softmax_backward_data", "[3, 4] dim 1",
     "g: f32[3, 4], x: f32[3, 4]",
     "y = _log_softmax.default(x, 1, False); "
     "o = _log_softmax_backward_data.default(g, y, 1, torch.float32)",
     NULL},
    /* normalisation */
    {"native_layer_norm", "[3, 4] over [4], weight and bias",
     "x: f32[3, 4], w: f32[4], b: f32[4]",
     "ln = native_layer_norm.default(x, [4], w, b, 1e-05); "
     "o = operator.getitem(ln, 0)",
     NULL},
    {"native_layer_norm", "[2, 3, 4] over [3, 4], no weight",
     "x: f32[2, 3, 4]",
     "ln = native_layer_norm.default(x, [3, 4], None, None, 1e-05); "
     "o = operator.getitem(ln, 0)",
     NULL},
    {"native_layer_norm", "non-contiguous, mean and rstd used too",
     "x: f32[4, 3], w: f32[4], b: f32[4]",
     "xt = t.default(x); "
     "ln = native_layer_norm.default(xt, [4], w, b, 1e-05); "
     "o = operator.getitem(ln, 0); m = operator.getitem(ln, 1); "
     "r = operator.getitem(ln, 2)",
     "o, m, r"},
    {"native_layer_norm_backward", "[3, 4]",
     "g: f32[3, 4], x: f32[3, 4], w: f32[4], b: f32[4]",
     "ln = native_layer_norm.default(x, [4], w, b, 1e-05); "
     "m = operator.getitem(ln, 1); r = operator.getitem(ln, 2); "
     "lb = native_layer_norm_backward.default(g, x, [4], m, r, w, b, "
     "[True, True, True]); o = operator.getitem(lb, 0)",
     NULL},
    {"native_group_norm", "[2, 4, 3] in 2 groups",
     "x: f32[2, 4, 3], w: f32[4], b: f32[4]",
     "gn = native_group_norm.default(x, w, b, 2, 4, 3, 2, 1e-05); "
     "o = operator.getitem(gn, 0)",
     NULL},
    {"native_group_norm", "[2, 4, 2, 2] in 4 groups, no weight",
     "x: f32[2, 4, 2, 2]",
     "gn = native_group_norm.default(x, None, None, 2, 4, 4, 4, 1e-05); "
     "o = operator.getitem(gn, 0)",
     NULL},
    {"native_group_norm_backward", "[2, 4, 3]",
     "g: f32[2, 4, 3], x: f32[2, 4, 3], w: f32[4], b: f32[4]",
     "gn = native_group_norm.default(x, w, b, 2, 4, 3, 2, 1e-05); "
     "m = operator.getitem(gn, 1); r = operator.getitem(gn, 2); "
     "gb = native_group_norm_backward.default(g, x, m, r, w, 2, 4, 3, 2, "
     "[True, True, True]); o = operator.getitem(gb, 0)",
     NULL},
    {"_native_batch_norm_legit_functional", "training, [4, 3, 2]",
     "x: f32[4, 3, 2], w: f32[3], b: f32[3], rm: f32[3], r: f32[3]",
     "rv = exp.default(r); "
     "bn = _native_batch_norm_legit_functional.default(x, w, b, rm, rv, "
     "True, 0.1, 1e-05); o = operator.getitem(bn, 0)",
     NULL},
    {"_native_batch_norm_legit_functional", "eval, channels of [2, 3, 2, 2]",
     "x: f32[2, 3, 2, 2], w: f32[3], b: f32[3], rm: f32[3], r: f32[3]",
     "rv = exp.default(r); "
     "bn = _native_batch_norm_legit_functional.default(x, w, b, rm, rv, "
     "False, 0.1, 1e-05); o = operator.getitem(bn, 0)",
     NULL},
    {"_native_batch_norm_legit", "training, [4, 3, 2]",
     "x: f32[4, 3, 2], w: f32[3], b: f32[3], rm: f32[3], rv: f32[3]",
     "bn = _native_batch_norm_legit.default(x, w, b, rm, rv, True, 0.1, "
     "1e-05); o = operator.getitem(bn, 0)",
     NULL},
    {"native_batch_norm", "training, [4, 3, 2]",
     "x: f32[4, 3, 2], w: f32[3], b: f32[3], rm: f32[3], rv: f32[3]",
     "bn = native_batch_norm.default(x, w, b, rm, rv, True, 0.1, 1e-05); "
     "o = operator.getitem(bn, 0)",
     NULL},
    {"native_batch_norm", "training, no running stats, non-contiguous",
     "x: f32[3, 4], w: f32[3], b: f32[3]",
     "xt = t.default(x); "
     "bn = native_batch_norm.default(xt, w, b, None, None, True, 0.1, "
     "1e-05); o = operator.getitem(bn, 0)",
     NULL},
    {"native_batch_norm", "eval, [2, 3, 2, 2]",
     "x: f32[2, 3, 2, 2], w: f32[3], b: f32[3], rm: f32[3], r: f32[3]",
     "rv = exp.default(r); "
     "bn = native_batch_norm.default(x, w, b, rm, rv, False, 0.1, 1e-05); "
     "o = operator.getitem(bn, 0)",
     NULL},
    {"native_batch_norm_backward", "training, [4, 3]",
     "g: f32[4, 3], x: f32[4, 3], w: f32[3]",
     "bn = native_batch_norm.default(x, w, None, None, None, True, 0.1, "
     "1e-05); m = operator.getitem(bn, 1); r = operator.getitem(bn, 2); "
     "bb = native_batch_norm_backward.default(g, x, w, None, None, m, r, "
     "True, 1e-05, [True, True, True]); o = operator.getitem(bb, 0)",
     NULL},
    /* convolution, pooling */
    {"convolution", "2-d, padding 1, bias",
     "x: f32[1, 2, 4, 4], w: f32[3, 2, 3, 3], b: f32[3]",
     "o = convolution.default(x, w, b, [1, 1], [1, 1], [1, 1], False, "
     "[0, 0], 1)",
     NULL},
    {"convolution", "1-d, stride 2, groups 2, no bias",
     "x: f32[2, 4, 7], w: f32[4, 2, 3]",
     "o = convolution.default(x, w, None, [2], [0], [1], False, [0], 2)",
     NULL},
    {"convolution", "2-d transposed, stride 2, non-contiguous input",
     "x: f32[1, 2, 3, 3], w: f32[2, 3, 2, 2], b: f32[3]",
     "xp = permute.default(x, [0, 1, 3, 2]); "
     "o = convolution.default(xp, w, b, [2, 2], [0, 0], [1, 1], True, "
     "[1, 1], 1)",
     NULL},
    {"convolution_backward", "2-d",
     "g: f32[1, 3, 3, 3], x: f32[1, 2, 3, 3], w: f32[3, 2, 1, 1]",
     "cb = convolution_backward.default(g, x, w, [3], [1, 1], [0, 0], "
     "[1, 1], False, [0, 0], 1, [True, True, True]); "
     "o = operator.getitem(cb, 0); p = operator.getitem(cb, 1)",
     "o, p"},
    {"max_pool2d_with_indices", "2x2 windows, stride 2",
     "x: f32[1, 2, 4, 4]",
     "mp = max_pool2d_with_indices.default(x, [2, 2], [2, 2]); "
     "o = operator.getitem(mp, 0)",
     NULL},
    {"max_pool2d_with_indices", "3x3 overlapping, padding 1, 3-d input",
     "x: f32[2, 5, 5]",
     "mp = max_pool2d_with_indices.default(x, [3, 3], [2, 2], [1, 1]); "
     "o = operator.getitem(mp, 0)",
     NULL},
    {"max_pool2d_with_indices_backward", "2x2",
     "g: f32[1, 1, 2, 2], x: f32[1, 1, 4, 4]",
     "mp = max_pool2d_with_indices.default(x, [2, 2], [2, 2]); "
     "i = operator.getitem(mp, 1); "
     "o = max_pool2d_with_indices_backward.default(g, x, [2, 2], [2, 2], "
     "[0, 0], [1, 1], False, i)",
     NULL},
    /* indexing */
    {"index_select", "[4, 3] dim 0, [3] indices", "x: f32[4, 3], i: i64[3]",
     "o = index_select.default(x, 0, i)", NULL},
    {"index_select", "transposed, dim 1", "x: f32[3, 4], i: i64[5]",
     "xt = t.default(x); o = index_select.default(xt, 1, i)", NULL},
    {"index_add", "[4, 3] dim 0, alpha 2", "x: f32[4, 3], i: i64[3], s: f32[3, 3]",
     "o = index_add.default(x, 0, i, s, alpha = 2)", NULL},
    {"index.Tensor", "x[:, i, j]", "x: f32[3, 4, 2], i: i64[2, 1], j: i64[3]",
     "o = index.Tensor(x, [None, i, j])", NULL},
    {"index.Tensor", "x[i] repeated", "x: f32[4, 3], i: i64[5]",
     "o = index.Tensor(x, [i])", NULL},
    {"scatter.value", "dim 1", "x: f32[3, 4], i: i64[2, 3]",
     "o = scatter.value(x, 1, i, 0.5)", NULL},
    {"scatter.src", "dim 0, one row (no repeated target)", "x: f32[3, 4], i: i64[1, 4], s: f32[1, 4]",
     "o = scatter.src(x, 0, i, s)", NULL},
    {"scatter_add", "dim 0, repeated targets", "x: f32[3, 4], i: i64[2, 4], s: f32[2, 4]",
     "o = scatter_add.default(x, 0, i, s)", NULL},
    {"scatter_add", "dim 1, transposed self", "x: f32[4, 3], i: i64[3, 2], s: f32[3, 2]",
     "xt = t.default(x); o = scatter_add.default(xt, 1, i, s)", NULL},
    {"gather", "dim 0, repeated indices", "x: f32[3, 4], i: i64[2, 4]",
     "o = gather.default(x, 0, i)", NULL},
    {"gather", "dim 1, transposed", "x: f32[4, 3], i: i64[3, 2]",
     "xt = t.default(x); o = gather.default(xt, 1, i)", NULL},
    {"max.dim", "[3, 4] dim 1", "x: f32[3, 4]",
     "m = max.dim(x, 1); o = operator.getitem(m, 0)", NULL},
    {"max.dim", "dim -1 keepdim, non-contiguous", "x: f32[4, 3]",
     "xt = t.default(x); m = max.dim(xt, -1, True); "
     "o = operator.getitem(m, 0)",
     NULL},
    {"diagonal", "[3, 4] offset 1", "x: f32[3, 4]",
     "o = diagonal.default(x, 1)", NULL},
    {"diagonal", "[3, 2, 4] offset -1, dims 2 and 0", "x: f32[3, 2, 4]",
     "o = diagonal.default(x, -1, 2, 0)", NULL},
    {"diagonal_backward", "[3] into [3, 4] offset 1", "g: f32[3]",
     "o = diagonal_backward.default(g, [3, 4], 1, 0, 1)", NULL},
    {"constant_pad_nd", "[3, 4] pads 1, 2, -1, 1", "x: f32[3, 4]",
     "o = constant_pad_nd.default(x, [1, 2, -1, 1], 0.5)", NULL},
    {"constant_pad_nd", "last dim only, non-contiguous", "x: f32[2, 4, 3]",
     "xt = transpose.int(x, 1, 2); o = constant_pad_nd.default(xt, [2, 0])",
     NULL},
    /* batch norm without running statistics or without training, adaptive
     * pooling, var_mean, masked and indexed writes (torch 2.x graphs) */
    {"_native_batch_norm_legit_no_training", "[2, 3, 2, 2]",
     "x: f32[2, 3, 2, 2], w: f32[3], b: f32[3], rm: f32[3], r: f32[3]",
     "rv = exp.default(r); "
     "bn = _native_batch_norm_legit_no_training.default(x, w, b, rm, rv, "
     "0.1, 1e-05); o = operator.getitem(bn, 0)",
     NULL},
    {"_native_batch_norm_legit.no_stats", "training, [4, 3, 2]",
     "x: f32[4, 3, 2], w: f32[3], b: f32[3]",
     "bn = _native_batch_norm_legit.no_stats(x, w, b, True, 0.1, 1e-05); "
     "o = operator.getitem(bn, 0)",
     NULL},
    {"_native_batch_norm_legit.no_stats", "training, no weight, non-contiguous",
     "x: f32[2, 4, 3]",
     "xt = transpose.int(x, 1, 2); "
     "bn = _native_batch_norm_legit.no_stats(xt, None, None, True, 0.1, "
     "1e-05); o = operator.getitem(bn, 0)",
     NULL},
    {"_adaptive_avg_pool2d", "[2, 3, 5, 7] to [2, 3] (overlapping windows)",
     "x: f32[2, 3, 5, 7]", "o = _adaptive_avg_pool2d.default(x, [2, 3])",
     NULL},
    {"_adaptive_avg_pool2d", "3-d input to [1, 1]", "x: f32[2, 4, 3]",
     "o = _adaptive_avg_pool2d.default(x, [1, 1])", NULL},
    {"var_mean.correction", "dim 1, both results", "x: f32[3, 4]",
     "vm = var_mean.correction(x, [1], correction = 1); "
     "v = operator.getitem(vm, 0); m = operator.getitem(vm, 1)",
     "v, m"},
    {"var_mean.correction", "every dim, default correction", "x: f32[3, 4]",
     "vm = var_mean.correction(x); "
     "v = operator.getitem(vm, 0); m = operator.getitem(vm, 1)",
     "v, m"},
    {"var_mean.correction", "dims 0 and 2 keepdim, correction 0, var only, non-contiguous",
     "x: f32[3, 4, 2]",
     "xt = transpose.int(x, 0, 2); "
     "vm = var_mean.correction(xt, [0, 2], correction = 0, keepdim = True); "
     "o = operator.getitem(vm, 0)",
     NULL},
    {"masked_scatter", "[3, 4], source [3, 5] (partly used)",
     "x: f32[3, 4], c: f32[3, 4], s: f32[3, 5]",
     "m = gt.Scalar(c, 0); o = masked_scatter.default(x, m, s)", NULL},
    {"masked_scatter", "[4] self and [3, 4] mask broadcast",
     "x: f32[4], c: f32[3, 4], s: f32[12]",
     "m = gt.Scalar(c, 0); o = masked_scatter.default(x, m, s)", NULL},
    {"index_put", "rows 0 and 2 overwritten", "x: f32[4, 3], v: f32[2, 3]",
     "i = arange.start_step(0, 4, 2); o = index_put.default(x, [i], v)",
     NULL},
    {"index_put", "accumulate, repeated indices, broadcast values",
     "x: f32[4, 3], v: f32[3], i: i64[5]",
     "o = index_put.default(x, [i], v, True)", NULL},
    {"index_put", "accumulate, x[:, i], non-contiguous",
     "x: f32[3, 4], v: f32[4, 2], i: i64[2]",
     "xt = t.default(x); o = index_put.default(xt, [None, i], v, True)",
     NULL},
    {"masked_select", "[3, 4] with a fixed [4] mask (9 selected)",
     "x: f32[3, 4]",
     "a = arange.default(4); m = lt.Scalar(a, 3); "
     "o = masked_select.default(x, m)",
     NULL},
    /* memory-efficient attention */
    {"_scaled_dot_product_efficient_attention", "bias, scale 0.3",
     "q: f32[1, 2, 3, 4], k: f32[1, 2, 5, 4], v: f32[1, 2, 5, 3], b: f32[1, 2, 3, 5]",
     "a = _scaled_dot_product_efficient_attention.default(q, k, v, b, True, "
     "scale = 0.3); o = operator.getitem(a, 0)",
     NULL},
    {"_scaled_dot_product_efficient_attention", "causal, no bias, transposed query",
     "q: f32[1, 4, 2, 3], k: f32[1, 2, 4, 3], v: f32[1, 2, 4, 2]",
     "qt = transpose.int(q, 1, 2); "
     "a = _scaled_dot_product_efficient_attention.default(qt, k, v, None, "
     "False, 0.0, True); o = operator.getitem(a, 0)",
     NULL},
    /* linear */
    {"linear", "[2, 3, 4] input with bias", "x: f32[2, 3, 4], w: f32[5, 4], b: f32[5]",
     "o = linear.default(x, w, b)", NULL},
    {"linear", "no bias, transposed weight", "x: f32[3, 4], w: f32[4, 5]",
     "wt = t.default(w); o = linear.default(x, wt)", NULL},
    /* embedding, loss */
    {"embedding", "[5, 3] weight, [4] indices", "w: f32[5, 3], i: i64[4]",
     "o = embedding.default(w, i)", NULL},
    /* (not padding_idx: its row gets no gradient by definition, which
     * finite differences cannot reproduce) */
    {"embedding", "[2, 3] indices, non-contiguous weight",
     "w: f32[2, 4], i: i64[2, 3]",
     "wt = t.default(w); o = embedding.default(wt, i)", NULL},
    {"embedding_dense_backward", "[4, 3]", "g: f32[4, 3], i: i64[4]",
     "o = embedding_dense_backward.default(g, i, 5, -1, False)", NULL},
    {"nll_loss_forward", "mean over [4, 5]", "x: f32[4, 5], y: i64[4]",
     "ls = _log_softmax.default(x, 1, False); "
     "nl = nll_loss_forward.default(ls, y, None, 1, -100); "
     "o = operator.getitem(nl, 0)",
     NULL},
    {"nll_loss_forward", "sum with class weights", 
     "x: f32[4, 3], y: i64[4], w: f32[3]",
     "nl = nll_loss_forward.default(x, y, w, 2, -100); "
     "o = operator.getitem(nl, 0)",
     NULL},
    {"nll_loss_forward", "no reduction, 1-d input",
     "x: f32[3], y: i64[]",
     "nl = nll_loss_forward.default(x, y, None, 0, -100); "
     "o = operator.getitem(nl, 0)",
     NULL},
    {"nll_loss_backward", "mean over [4, 5]",
     "g: f32[], x: f32[4, 5], y: i64[4]",
     "nl = nll_loss_forward.default(x, y, None, 1, -100); "
     "tw = operator.getitem(nl, 1); "
     "o = nll_loss_backward.default(g, x, y, None, 1, -100, tw)",
     NULL},
    /* random */
    {"native_dropout", "p 0.5, training", "x: f32[4, 5]",
     "nd = native_dropout.default(x, 0.5, True); "
     "o = operator.getitem(nd, 0)",
     NULL},
    {"native_dropout", "p 0.2, non-contiguous", "x: f32[5, 4]",
     "xt = t.default(x); nd = native_dropout.default(xt, 0.2, True); "
     "o = operator.getitem(nd, 0)",
     NULL},
    {"native_dropout_backward", "[3, 4]", "g: f32[3, 4], x: f32[3, 4]",
     "nd = native_dropout.default(x, 0.5, True); "
     "m = operator.getitem(nd, 1); "
     "o = native_dropout_backward.default(g, m, 2.0)",
     NULL},
    {"bernoulli.p", "times x", "x: f32[3, 4]",
     "b = bernoulli.p(x, 0.5); o = mul.Tensor(b, x)", NULL},
    {"rand_like", "times x", "x: f32[3, 4]",
     "r = rand_like.default(x); o = mul.Tensor(r, x)", NULL},
    {"randn_like", "times x", "x: f32[3, 4]",
     "r = randn_like.default(x); o = mul.Tensor(r, x)", NULL},
    /* creation */
    {"fill.Scalar", "plus x", "x: f32[3, 4]",
     "f = fill.Scalar(x, 2.0); o = add.Tensor(f, x)", NULL},
    {"zeros_like", "plus x", "x: f32[3, 4]",
     "z = zeros_like.default(x); o = add.Tensor(z, x)", NULL},
    {"ones_like", "times x", "x: f32[3, 4]",
     "z = ones_like.default(x); o = mul.Tensor(z, x)", NULL},
    {"full_like", "times x", "x: f32[3, 4]",
     "z = full_like.default(x, 3.0); o = mul.Tensor(z, x)", NULL},
    {"empty_like", "zeroed, plus x", "x: f32[3, 4]",
     "z = empty_like.default(x); z0 = mul.Scalar(z, 0); "
     "o = add.Tensor(z0, x)",
     NULL},
    {"new_zeros", "plus x", "x: f32[3, 4]",
     "z = new_zeros.default(x, [3, 4]); o = add.Tensor(z, x)", NULL},
};

/* What graph/ops.yaml declares for an op. */
enum { DERIV_UNKNOWN_OP, DERIV_NONE, DERIV_NOT_DIFF, DERIV_FORMULAS };

typedef struct op_entry {
    char name[64];
    int deriv;
} op_entry;

/* The entries of graph/ops.yaml ("  - func: NAME(...)") and their
 * `derivatives:` field, read line by line.  Returns the count. */
static size_t read_op_table(op_entry *out, size_t cap)
{
    char *text = read_text_file("graph/ops.yaml"), *line, *save = NULL;
    size_t n = 0;
    bool in_ops = false;
    for (line = strtok_r(text, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        if (strncmp(line, "ops:", 4) == 0) {
            in_ops = true;
        } else if (in_ops && strncmp(line, "  - func: ", 10) == 0) {
            const char *nm = line + 10;
            size_t len = strcspn(nm, "(");
            ck_assert_uint_lt(n, cap);
            ck_assert_uint_lt(len, sizeof out[n].name);
            memcpy(out[n].name, nm, len);
            out[n].name[len] = '\0';
            out[n].deriv = DERIV_NONE;
            n++;
        } else if (in_ops && n > 0 &&
                   strncmp(line, "    derivatives:", 16) == 0) {
            const char *v = line + 16;
            while (*v == ' ')
                v++;
            out[n - 1].deriv = strncmp(v, "not_differentiable", 18) == 0
                                   ? DERIV_NOT_DIFF
                                   : DERIV_FORMULAS;
        }
    }
    free(text);
    return n;
}

static int op_deriv(const char *op)
{
    static op_entry table[512];
    static size_t n = 0;
    size_t i;
    if (n == 0)
        n = read_op_table(table, ARRAY_SIZE(table));
    for (i = 0; i < n; i++)
        if (strcmp(table[i].name, op) == 0)
            return table[i].deriv;
    return DERIV_UNKNOWN_OP;
}

/* The forward graph text of a case. */
static char *case_text(const op_case *c)
{
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap), *body, *tok, *save = NULL, last[64] = "";
    const char *p = c->inputs;
    int depth = 0;

    ck_assert_ptr_nonnull(buf);
#define APPEND(...)                                                          \
    do {                                                                     \
        int w_ = snprintf(buf + len, cap - len, __VA_ARGS__);                \
        ck_assert(w_ >= 0 && (size_t)w_ < cap - len);                        \
        len += (size_t)w_;                                                   \
    } while (0)
    /* "x: f32[3, 4], w: f32[4]" -> x: "f32[3, 4]", w: "f32[4]" */
    APPEND("def forward(self, ");
    while (*p) {
        const char *colon = strchr(p, ':'), *q;
        ck_assert_ptr_nonnull(colon);
        APPEND("%.*s: \"", (int)(colon - p), p);
        q = colon + 2;
        for (p = q; *p && !(depth == 0 && *p == ','); p++)
            depth += *p == '[' ? 1 : *p == ']' ? -1 : 0;
        APPEND("%.*s\"", (int)(p - q), q);
        if (*p) {
            APPEND(", ");
            p += 2;
        }
    }
    APPEND("):\n");
    body = strdup(c->body);
    ck_assert_ptr_nonnull(body);
    for (tok = strtok_r(body, ";", &save); tok;
         tok = strtok_r(NULL, ";", &save)) {
        char *eq;
        while (*tok == ' ')
            tok++;
        eq = strstr(tok, " = ");
        ck_assert_ptr_nonnull(eq);
        snprintf(last, sizeof last, "%.*s", (int)(eq - tok), tok);
        APPEND("    %.*s = %s%s\n", (int)(eq - tok), tok,
               strncmp(eq + 3, "operator.", 9) == 0 ? "" : "torch.ops.aten.",
               eq + 3);
    }
    free(body);
    APPEND("    return [%s]\n", c->outputs ? c->outputs : last);
#undef APPEND
    return buf;
}

/* Check one case: the joint graph must build and pass gradcheck on every
 * element, unless the op has no formula (then sc_graph_new_joint may reject
 * it as unsupported: reported, not failed). */
/* The values of the unbacked symbols of cases whose output size depends
 * on data (gradcheck cannot know them before it runs the graph): the
 * case's op and what, then "SYMBOL=VALUE". */
static const char *const case_sizes[][3] = {
    {"masked_select", "[3, 4] with a fixed [4] mask (9 selected)", "u0=9"},
};

static sc_symmap *case_symmap(sc_ctx *ctx, const op_case *c)
{
    size_t i;
    for (i = 0; i < ARRAY_SIZE(case_sizes); i++) {
        const char *eq = strchr(case_sizes[i][2], '=');
        char sym[32];
        sc_symmap *m;
        if (strcmp(case_sizes[i][0], c->op) != 0 ||
            strcmp(case_sizes[i][1], c->what) != 0)
            continue;
        ck_assert_ptr_nonnull(eq);
        snprintf(sym, sizeof sym, "%.*s", (int)(eq - case_sizes[i][2]),
                 case_sizes[i][2]);
        m = sc_symmap_new(ctx);
        ck_assert_ptr_nonnull(m);
        ck_assert_int_eq(sc_symmap_set_si(m, sc_expr_symbol(ctx, sym),
                                          strtoll(eq + 1, NULL, 10), NULL),
                         SC_OK);
        return m;
    }
    return NULL;
}

START_TEST(test_op_case)
{
    const op_case *c = &op_cases[_i];
    int deriv = op_deriv(c->op);
    char *text = case_text(c);
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *fwd = read_string(ctx, text), *joint = NULL;
    sc_gradcheck_options o;
    sc_gradcheck_report r;
    sc_symmap *sizes;
    sc_error err;
    sc_status st;

    ck_assert_msg(deriv != DERIV_UNKNOWN_OP, "%s is not in graph/ops.yaml",
                  c->op);
    st = sc_graph_new_joint(fwd, NULL, &joint, &err);
    if (st == SC_ERR_UNSUPPORTED && deriv == DERIV_NONE) {
        fprintf(stderr, "gradcheck: %s (%s): no derivative formula: %s\n",
                c->op, c->what, err.message);
        goto done;
    }
    ck_assert_msg(st == SC_OK, "%s (%s): sc_graph_new_joint: %s\n%s", c->op,
                  c->what, err.message, text);
    sc_gradcheck_options_init(&o);
    o.max_per_input = 0; /* every element */
    o.seed = 5 + (uint64_t)_i;
    sizes = case_symmap(ctx, c);
    o.sizes = sizes;
    st = sc_gradcheck_run(joint, &o, &r, &err);
    sc_symmap_free(sizes);
    ck_assert_msg(st == SC_OK, "%s (%s): %s\n%s", c->op, c->what,
                  err.message, text);
    ck_assert_msg(r.passed, "%s (%s): %s\n%s", c->op, c->what, r.message,
                  text);
    if (deriv == DERIV_FORMULAS)
        ck_assert_msg(r.checked > 0, "%s (%s): nothing was checked", c->op,
                      c->what);
done:
    sc_graph_free(joint);
    sc_graph_free(fwd);
    sc_ctx_free(ctx);
    free(text);
}
END_TEST

/* Every op with formulas has a case here; ops without formulas are
 * listed (a report, not a failure). */
START_TEST(test_op_coverage)
{
    static op_entry table[512];
    size_t n = read_op_table(table, ARRAY_SIZE(table)), i, j;
    char missing[2048] = "", none[4096] = "";
    size_t nmissing = 0, nnone = 0, nformulas = 0, nnotdiff = 0;

    for (i = 0; i < n; i++) {
        size_t ncases = 0;
        for (j = 0; j < ARRAY_SIZE(op_cases); j++)
            ncases += strcmp(op_cases[j].op, table[i].name) == 0;
        if (table[i].deriv == DERIV_FORMULAS) {
            nformulas++;
            if (ncases == 0) {
                nmissing++;
                strncat(missing, " ", sizeof missing - strlen(missing) - 1);
                strncat(missing, table[i].name,
                        sizeof missing - strlen(missing) - 1);
            }
        } else if (table[i].deriv == DERIV_NOT_DIFF) {
            nnotdiff++;
        } else {
            nnone++;
            strncat(none, " ", sizeof none - strlen(none) - 1);
            strncat(none, table[i].name, sizeof none - strlen(none) - 1);
        }
    }
    fprintf(stderr,
            "gradcheck coverage: %zu ops, %zu with derivative formulas, %zu "
            "not differentiable, %zu without formulas:%s\n",
            n, nformulas, nnotdiff, nnone, nnone ? none : " none");
    ck_assert_msg(nmissing == 0, "ops with formulas but no gradcheck case:%s",
                  missing);
    /* The table's own names are ops of graph/ops.yaml. */
    for (j = 0; j < ARRAY_SIZE(op_cases); j++)
        ck_assert_msg(op_deriv(op_cases[j].op) != DERIV_UNKNOWN_OP,
                      "case %zu: %s is not in graph/ops.yaml", j,
                      op_cases[j].op);
}
END_TEST

Suite *gradcheck_suite(void)
{
    Suite *s = suite_create("gradcheck");
    TCase *tc;

    tc = tcase_create("examples");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, test_examples_pass, 0, (int)ARRAY_SIZE(examples));
    tcase_add_test(tc, test_integer_primals_skipped);
    suite_add_tcase(s, tc);

    tc = tcase_create("verdicts");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_square_right_passes);
    tcase_add_test(tc, test_missing_transpose_fails);
    tcase_add_test(tc, test_flipped_sign_fails);
    tcase_add_test(tc, test_one_percent_fails);
    tcase_add_test(tc, test_within_tolerance_passes);
    tcase_add_test(tc, test_zero_tolerance_fails);
    tcase_add_test(tc, test_deterministic);
    tcase_add_test(tc, test_errors);
    tcase_add_test(tc, test_symbolic_joint);
    suite_add_tcase(s, tc);

    tc = tcase_create("ops");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_op_case, 0, (int)ARRAY_SIZE(op_cases));
    tcase_add_test(tc, test_op_coverage);
    suite_add_tcase(s, tc);
    return s;
}
