/* symcut tests — the recompute cost of nodes (graph/cost.c): each formula
 * class against FLOPs and bytes computed by hand, symbolic sizes bound at
 * the hints, overflow, and a walk of the whole op table that fails when an
 * op has no cost formula. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include <symcut/graph.h>
#include <symcut/symint.h>

#include "graph/cost.h"
#include "graph/ops.h"
#include "tests/testutil.h"

Suite *cost_suite(void);

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- Helpers --------------------------------------------------------------- */

static sc_graph *read_text(sc_ctx *ctx, const char *text)
{
    sc_graph *g = NULL;
    sc_error err;
    sc_status st =
        sc_graph_read_text(ctx, text, strlen(text), "t.py", NULL, &g, &err);
    ck_assert_msg(st == SC_OK, "reading the test graph: %s\n%s", err.message,
                  text);
    return g;
}

/* The graph's hints as a binding. */
static sc_symmap *hints_of(sc_ctx *ctx, const sc_graph *g)
{
    sc_expr *syms[16];
    size_t n = sc_graph_symbols(g, syms, ARRAY_SIZE(syms));
    sc_symmap *m = sc_symmap_new(ctx);
    sc_error err;
    ck_assert_ptr_nonnull(m);
    ck_assert(n <= ARRAY_SIZE(syms));
    for (size_t i = 0; i < n; i++) {
        int64_t v;
        if (sc_graph_get_hint(g, syms[i], &v))
            ck_assert(sc_symmap_set_si(m, syms[i], v, &err) == SC_OK);
    }
    return m;
}

/* The cost of the node named `name` of the graph `text`, at its hints. */
static sc_status cost_of(const char *text, const char *name,
                         sc_node_cost *out, sc_error *err)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g;
    sc_symmap *m;
    sc_node_id id;
    sc_status st;
    ck_assert_ptr_nonnull(ctx);
    g = read_text(ctx, text);
    m = hints_of(ctx, g);
    id = sc_graph_find(g, name);
    ck_assert_msg(id != SC_NODE_NONE, "no node %s", name);
    st = sc_node_cost_eval(g, id, m, out, err);
    sc_symmap_free(m);
    sc_graph_free(g);
    sc_ctx_free(ctx);
    return st;
}

/* One case: a graph, the node, and its FLOPs and bytes worked out by hand
 * (in the comment of each row). */
typedef struct cost_case {
    const char *what;
    const char *text;
    const char *node;
    uint64_t flops, bytes;
} cost_case;

#define W SC_NODE_COST_FLOP_WEIGHT

static void check_cases(const cost_case *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        sc_node_cost c;
        sc_error err;
        sc_status st = cost_of(cases[i].text, cases[i].node, &c, &err);
        ck_assert_msg(st == SC_OK, "%s: %s", cases[i].what, err.message);
        ck_assert_msg(c.flops == cases[i].flops,
                      "%s: flops %llu, expected %llu", cases[i].what,
                      (unsigned long long)c.flops,
                      (unsigned long long)cases[i].flops);
        ck_assert_msg(c.bytes == cases[i].bytes,
                      "%s: bytes %llu, expected %llu", cases[i].what,
                      (unsigned long long)c.bytes,
                      (unsigned long long)cases[i].bytes);
        /* every node that runs costs W per FLOP, 1 per byte, 1 to run */
        ck_assert_msg(c.cost == W * cases[i].flops + cases[i].bytes + 1,
                      "%s: cost %llu", cases[i].what,
                      (unsigned long long)c.cost);
    }
}

/* ---- Matrix products ------------------------------------------------------- */

static const cost_case matmul_cases[] = {
    /* 2*8*16*4 = 1024; read (128 + 64) * 4, write 32 * 4 */
    {"mm",
     "def forward(self, a: \"f32[8, 16][16, 1]cpu\", "
     "b: \"f32[16, 4][4, 1]cpu\"):\n"
     "    r: \"f32[8, 4][4, 1]cpu\" = torch.ops.aten.mm.default(a, b)\n"
     "    return [r]\n",
     "r", 1024, 768 + 128},
    /* 1024 + 8*4 for the add; read (4 + 128 + 64) * 4, write 128 */
    {"addmm",
     "def forward(self, c: \"f32[4][1]cpu\", a: \"f32[8, 16][16, 1]cpu\", "
     "b: \"f32[16, 4][4, 1]cpu\"):\n"
     "    r: \"f32[8, 4][4, 1]cpu\" = torch.ops.aten.addmm.default(c, a, b)\n"
     "    return [r]\n",
     "r", 1056, 784 + 128},
    /* 2*3*5*6*2 = 360; read (90 + 36) * 8 (f64), write 30 * 8 */
    {"bmm f64",
     "def forward(self, a: \"f64[3, 5, 6][30, 6, 1]cpu\", "
     "b: \"f64[3, 6, 2][12, 2, 1]cpu\"):\n"
     "    r: \"f64[3, 5, 2][10, 2, 1]cpu\" = "
     "torch.ops.aten.bmm.default(a, b)\n"
     "    return [r]\n",
     "r", 360, 1008 + 240},
    /* 360 + 30; read (30 + 90 + 36) * 4, write 30 * 4 */
    {"baddbmm",
     "def forward(self, c: \"f32[3, 5, 2][10, 2, 1]cpu\", "
     "a: \"f32[3, 5, 6][30, 6, 1]cpu\", b: \"f32[3, 6, 2][12, 2, 1]cpu\"):\n"
     "    r: \"f32[3, 5, 2][10, 2, 1]cpu\" = "
     "torch.ops.aten.baddbmm.default(c, a, b)\n"
     "    return [r]\n",
     "r", 390, 624 + 120},
    /* input [2, 3, 8] (6 rows), weight [5, 8]: 2*6*8*5 = 480, + 6*5 bias;
     * read (48 + 40 + 5) * 4, write 30 * 4 */
    {"linear",
     "def forward(self, x: \"f32[2, 3, 8][24, 8, 1]cpu\", "
     "w: \"f32[5, 8][8, 1]cpu\", b: \"f32[5][1]cpu\"):\n"
     "    r: \"f32[2, 3, 5][15, 5, 1]cpu\" = "
     "torch.ops.aten.linear.default(x, w, b)\n"
     "    return [r]\n",
     "r", 510, 372 + 120},
    /* no bias: 480; read (48 + 40) * 4, write 120 */
    {"linear without bias",
     "def forward(self, x: \"f32[2, 3, 8][24, 8, 1]cpu\", "
     "w: \"f32[5, 8][8, 1]cpu\"):\n"
     "    r: \"f32[2, 3, 5][15, 5, 1]cpu\" = "
     "torch.ops.aten.linear.default(x, w)\n"
     "    return [r]\n",
     "r", 480, 352 + 120},
};

START_TEST(test_cost_matmul)
{
    check_cases(matmul_cases, ARRAY_SIZE(matmul_cases));
}
END_TEST

/* ---- Pointwise, reductions, views, copies --------------------------------- */

static const cost_case simple_cases[] = {
    /* broadcast add: 128 result elements; read (128 + 16) * 4, write 512 */
    {"add broadcast",
     "def forward(self, a: \"f32[8, 16][16, 1]cpu\", b: \"f32[16][1]cpu\"):\n"
     "    r: \"f32[8, 16][16, 1]cpu\" = torch.ops.aten.add.Tensor(a, b)\n"
     "    return [r]\n",
     "r", 128, 576 + 512},
    /* exp (a transcendental) counts 1 per element like any pointwise op */
    {"exp",
     "def forward(self, a: \"f32[8, 16][16, 1]cpu\"):\n"
     "    r: \"f32[8, 16][16, 1]cpu\" = torch.ops.aten.exp.default(a)\n"
     "    return [r]\n",
     "r", 128, 512 + 512},
    /* compare: bool result, 1 byte per element */
    {"gt.Scalar",
     "def forward(self, a: \"f32[10][1]cpu\"):\n"
     "    r: \"b8[10][1]cpu\" = torch.ops.aten.gt.Scalar(a, 0)\n"
     "    return [r]\n",
     "r", 10, 40 + 10},
    /* sum over dim 0: 128 input elements; read 512, write 16 * 4 */
    {"sum.dim_IntList",
     "def forward(self, a: \"f32[8, 16][16, 1]cpu\"):\n"
     "    r: \"f32[16][1]cpu\" = torch.ops.aten.sum.dim_IntList(a, [0])\n"
     "    return [r]\n",
     "r", 128, 512 + 64},
    /* mean: 128 adds + 1 division; read 512, write 4 */
    {"mean",
     "def forward(self, a: \"f32[8, 16][16, 1]cpu\"):\n"
     "    r: \"f32[][]cpu\" = torch.ops.aten.mean.default(a)\n"
     "    return [r]\n",
     "r", 129, 512 + 4},
    /* softmax: 5 per element */
    {"_softmax",
     "def forward(self, a: \"f32[4, 6][6, 1]cpu\"):\n"
     "    r: \"f32[4, 6][6, 1]cpu\" = "
     "torch.ops.aten._softmax.default(a, -1, False)\n"
     "    return [r]\n",
     "r", 120, 96 + 96},
    /* a view moves nothing */
    {"view",
     "def forward(self, a: \"f32[8, 16][16, 1]cpu\"):\n"
     "    r: \"f32[128][1]cpu\" = torch.ops.aten.view.default(a, [128])\n"
     "    return [r]\n",
     "r", 0, 0},
    {"t",
     "def forward(self, a: \"f32[8, 16][16, 1]cpu\"):\n"
     "    r: \"f32[16, 8][1, 16]cpu\" = torch.ops.aten.t.default(a)\n"
     "    return [r]\n",
     "r", 0, 0},
    /* a copy reads and writes: clone 512 + 512 */
    {"clone",
     "def forward(self, a: \"f32[8, 16][16, 1]cpu\"):\n"
     "    r: \"f32[8, 16][16, 1]cpu\" = torch.ops.aten.clone.default(a)\n"
     "    return [r]\n",
     "r", 0, 1024},
    /* cat reads both lists' tensors: (8 + 24) * 4, writes 32 * 4 */
    {"cat",
     "def forward(self, a: \"f32[2, 4][4, 1]cpu\", "
     "b: \"f32[6, 4][4, 1]cpu\"):\n"
     "    r: \"f32[8, 4][4, 1]cpu\" = torch.ops.aten.cat.default([a, b])\n"
     "    return [r]\n",
     "r", 0, 128 + 128},
    /* a fill writes its result only: zeros_like of [8, 16] f32 */
    {"zeros_like",
     "def forward(self, a: \"f32[8, 16][16, 1]cpu\"):\n"
     "    r: \"f32[8, 16][16, 1]cpu\" = "
     "torch.ops.aten.zeros_like.default(a, pin_memory = False)\n"
     "    return [r]\n",
     "r", 0, 512},
    /* _to_copy to f16: read 512, write 256 */
    {"_to_copy",
     "def forward(self, a: \"f32[8, 16][16, 1]cpu\"):\n"
     "    r: \"f16[8, 16][16, 1]cpu\" = "
     "torch.ops.aten._to_copy.default(a, dtype = torch.float16)\n"
     "    return [r]\n",
     "r", 0, 768},
};

START_TEST(test_cost_simple)
{
    check_cases(simple_cases, ARRAY_SIZE(simple_cases));
}
END_TEST

/* ---- Symbolic sizes ------------------------------------------------------- */

static const char symbolic_mm[] =
    "# symcut: hint s0=8\n"
    "def forward(self, a: \"f32[s0, 16][16, 1]cpu\", "
    "b: \"f32[16, 4][4, 1]cpu\"):\n"
    "    n: \"Sym(s0)\" = torch.ops.aten.sym_size.int(a, 0)\n"
    "    r: \"f32[s0, 4][4, 1]cpu\" = torch.ops.aten.mm.default(a, b)\n"
    "    v: \"f32[4*s0][1]cpu\" = torch.ops.aten.view.default(r, [-1])\n"
    "    return [v]\n";

START_TEST(test_cost_symbolic)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = read_text(ctx, symbolic_mm);
    sc_symmap *m = hints_of(ctx, g);
    sc_node_cost c;
    sc_error err;
    sc_expr *s0 = NULL;
    /* at the hint s0 = 8: 2*8*16*4 */
    ck_assert(sc_node_cost_eval(g, sc_graph_find(g, "r"), m, &c, &err) ==
              SC_OK);
    ck_assert_uint_eq(c.flops, 1024);
    ck_assert_uint_eq(c.bytes, 768 + 128);
    /* at s0 = 100: 2*100*16*4 = 12800; read (1600 + 64) * 4, write 1600 */
    ck_assert(sc_graph_symbols(g, &s0, 1) == 1);
    ck_assert(sc_symmap_set_si(m, s0, 100, &err) == SC_OK);
    ck_assert(sc_node_cost_eval(g, sc_graph_find(g, "r"), m, &c, &err) ==
              SC_OK);
    ck_assert_uint_eq(c.flops, 12800);
    ck_assert_uint_eq(c.bytes, 6656 + 1600);
    ck_assert_uint_eq(c.cost, W * 12800 + 8256 + 1);
    /* sym_size and placeholders compute nothing */
    ck_assert(sc_node_cost_eval(g, sc_graph_find(g, "n"), m, &c, &err) ==
              SC_OK);
    ck_assert_uint_eq(c.cost, 0);
    ck_assert(sc_node_cost_eval(g, sc_graph_find(g, "a"), m, &c, &err) ==
              SC_OK);
    ck_assert_uint_eq(c.cost, 0);
    /* no binding: the symbolic size has no value */
    ck_assert(sc_node_cost_eval(g, sc_graph_find(g, "r"), NULL, &c, &err) ==
              SC_ERR_UNBOUND);
    /* an empty binding names the symbol */
    sc_symmap_clear(m);
    ck_assert(sc_node_cost_eval(g, sc_graph_find(g, "r"), m, &c, &err) ==
              SC_ERR_UNBOUND);
    ck_assert_msg(strstr(err.message, "s0") != NULL, "%s", err.message);
    /* a node that does not exist */
    ck_assert(sc_node_cost_eval(g, 99, m, &c, &err) == SC_ERR_INVALID);
    sc_symmap_free(m);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

/* ---- Overflow ------------------------------------------------------------- */

START_TEST(test_cost_overflow)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = read_text(ctx, symbolic_mm);
    sc_symmap *m = sc_symmap_new(ctx);
    sc_node_cost c;
    sc_error err;
    sc_expr *s0 = NULL;
    ck_assert(sc_graph_symbols(g, &s0, 1) == 1);
    /* s0 = 2^59: flops 2 * 2^59 * 64 = 2^66 */
    ck_assert(sc_symmap_set_si(m, s0, (int64_t)1 << 59, &err) == SC_OK);
    ck_assert(sc_node_cost_eval(g, sc_graph_find(g, "r"), m, &c, &err) ==
              SC_ERR_LIMIT);
    ck_assert_msg(strstr(err.message, "r: ") != NULL, "%s", err.message);
    /* s0 = 2^52: flops 2^59 fit, but 8 * 2^59 = 2^62 plus the bytes fits;
     * s0 = 2^54: flops 2^61, cost 2^64 does not */
    ck_assert(sc_symmap_set_si(m, s0, (int64_t)1 << 52, &err) == SC_OK);
    ck_assert(sc_node_cost_eval(g, sc_graph_find(g, "r"), m, &c, &err) ==
              SC_OK);
    ck_assert_uint_eq(c.flops, (uint64_t)1 << 59);
    ck_assert(sc_symmap_set_si(m, s0, (int64_t)1 << 54, &err) == SC_OK);
    ck_assert(sc_node_cost_eval(g, sc_graph_find(g, "r"), m, &c, &err) ==
              SC_ERR_LIMIT);
    sc_symmap_free(m);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

/* ---- The whole op table ---------------------------------------------------- */

/* Ops whose table class says they compute but whose cost is bytes moved:
 * copies and data movement.  Every other op of a computing class must
 * count FLOPs. */
static const char *const copies[] = {
    "clone.default", "_to_copy.default", "lift_fresh_copy.default",
    "copy.default", "embedding.default", "gather.default",
    "_local_scalar_dense.default", "copy_.default", "nonzero.default",
    "masked_select.default", "cat.default", "stack.default",
    "slice_scatter.default", "select_scatter.default",
    "constant_pad_nd.default", "select_backward.default",
    "slice_backward.default", "as_strided_backward.default",
};

static bool is_copy(const char *dotted)
{
    for (size_t i = 0; i < ARRAY_SIZE(copies); i++)
        if (strcmp(copies[i], dotted) == 0)
            return true;
    return false;
}

START_TEST(test_cost_every_op)
{
    size_t unclassified = 0, wrong = 0;
    char list[4096] = "";
    for (int op = 0; op < SC_OP_COUNT_; op++) {
        const sc__op_info *info = sc__op_get((sc__op)op);
        sc__cost_formula f = sc__op_cost_formula((sc__op)op);
        bool computing = info->flops != SC_FLOPS_NONE_ ||
                         info->cls == SC_CLASS_POINTWISE ||
                         info->cls == SC_CLASS_REDUCTION ||
                         info->cls == SC_CLASS_COMPUTE_INTENSIVE ||
                         info->cls == SC_CLASS_RANDOM;
        if (f == SC__COST_UNCLASSIFIED) {
            unclassified++;
            if (strlen(list) + strlen(info->dotted) + 3 < sizeof list) {
                strcat(list, " ");
                strcat(list, info->dotted);
            }
            continue;
        }
        if (computing && !is_copy(info->dotted) &&
            !sc__cost_formula_computes(f)) {
            wrong++;
            if (strlen(list) + strlen(info->dotted) + 3 < sizeof list) {
                strcat(list, " !");
                strcat(list, info->dotted);
            }
        }
        /* a view, symbolic op or getitem never counts FLOPs */
        if ((info->cls == SC_CLASS_VIEW || info->cls == SC_CLASS_SYMBOLIC) &&
            sc__cost_formula_computes(f))
            wrong++;
    }
    ck_assert_msg(unclassified == 0 && wrong == 0,
                  "%zu ops without a cost formula in graph/cost.c, %zu "
                  "that compute but count no FLOPs (!):%s",
                  unclassified, wrong, list);
}
END_TEST

Suite *cost_suite(void)
{
    Suite *s = suite_create("cost");
    TCase *tc = tcase_create("cost");
    tcase_add_test(tc, test_cost_matmul);
    tcase_add_test(tc, test_cost_simple);
    tcase_add_test(tc, test_cost_symbolic);
    tcase_add_test(tc, test_cost_overflow);
    tcase_add_test(tc, test_cost_every_op);
    suite_add_tcase(s, tc);
    return s;
}
