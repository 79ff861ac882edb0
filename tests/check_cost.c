/* symcut tests — the recompute cost of nodes (graph/cost.c): each formula
 * class against FLOPs and bytes computed by hand, symbolic sizes bound at
 * the hints, overflow, and a walk of the whole op table that fails when an
 * op has no cost formula. */
#include <glob.h>
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

/* ---- Helpers ------------------------------------------------------------ */

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

/* The graph's hints as a binding; a symbol without a hint gets dflt
 * (none when dflt < 0). */
static sc_symmap *hints_or(sc_ctx *ctx, const sc_graph *g, int64_t dflt)
{
    sc_expr *syms[16];
    size_t n = sc_graph_symbols(g, syms, ARRAY_SIZE(syms));
    sc_symmap *m = sc_symmap_new(ctx);
    sc_error err;
    ck_assert_ptr_nonnull(m);
    ck_assert(n <= ARRAY_SIZE(syms));
    for (size_t i = 0; i < n; i++) {
        int64_t v;
        if (sc_graph_get_hint(g, syms[i], &v) || (v = dflt) >= 0)
            ck_assert(sc_symmap_set_si(m, syms[i], v, &err) == SC_OK);
    }
    return m;
}

static sc_symmap *hints_of(sc_ctx *ctx, const sc_graph *g)
{
    return hints_or(ctx, g, -1);
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

/* ---- Matrix products ---------------------------------------------------- */

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

/* ---- Pointwise, reductions, views, copies ------------------------------- */

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
    /* var_mean: 4 per input element (mean's add; centre, square, add);
     * read 512, write the variance and the mean, 16 * 4 each */
    {"var_mean.correction",
     "def forward(self, a: \"f32[8, 16][16, 1]cpu\"):\n"
     "    r = torch.ops.aten.var_mean.correction(a, [0], correction=1)\n"
     "    v: \"f32[16][1]cpu\" = r[0]\n"
     "    m: \"f32[16][1]cpu\" = r[1]\n"
     "    return [v, m]\n",
     "r", 512, 512 + 128},
    /* adaptive average pool 8x8 -> 2x2 over 3 channels: a mean of each
     * 4x4 window, 192 adds + 12 divisions; read 768, write 48 */
    {"_adaptive_avg_pool2d",
     "def forward(self, a: \"f32[1, 3, 8, 8][192, 64, 8, 1]cpu\"):\n"
     "    r: \"f32[1, 3, 2, 2][12, 4, 2, 1]cpu\" = "
     "torch.ops.aten._adaptive_avg_pool2d.default(a, [2, 2])\n"
     "    return [r]\n",
     "r", 204, 768 + 48},
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

/* ---- Convolutions, norms, attention, pooling, losses, random ------------ */

static const cost_case heavy_cases[] = {
    /* out [2, 4, 8, 8] = 512 elements, each a dot product over
     * 3 * 3 * 3 weights: 2 * 512 * 27 = 27648, + 512 for the bias;
     * read (384 + 108 + 4) * 4, write 512 * 4 */
    {"convolution",
     "def forward(self, x: \"f32[2, 3, 8, 8][192, 64, 8, 1]cpu\", "
     "w: \"f32[4, 3, 3, 3][27, 9, 3, 1]cpu\", b: \"f32[4][1]cpu\"):\n"
     "    r: \"f32[2, 4, 8, 8][256, 64, 8, 1]cpu\" = "
     "torch.ops.aten.convolution.default(x, w, b, [1, 1], [1, 1], [1, 1], "
     "False, [0, 0], 1)\n"
     "    return [r]\n",
     "r", 28160, 1984 + 2048},
    /* groups 2: out [1, 6, 3, 3] = 54, each over 2 * 3 * 3 = 18 weights:
     * 2 * 54 * 18; read (100 + 108) * 4, write 54 * 4 */
    {"convolution groups",
     "def forward(self, x: \"f32[1, 4, 5, 5][100, 25, 5, 1]cpu\", "
     "w: \"f32[6, 2, 3, 3][18, 9, 3, 1]cpu\"):\n"
     "    r: \"f32[1, 6, 3, 3][54, 9, 3, 1]cpu\" = "
     "torch.ops.aten.convolution.default(x, w, None, [1, 1], [0, 0], "
     "[1, 1], False, [0, 0], 2)\n"
     "    return [r]\n",
     "r", 1944, 832 + 216},
    /* transposed: each of the 18 input elements scatters into
     * C_out * 2 * 2 = 20 outputs: 2 * 18 * 20; out [1, 5, 6, 6];
     * read (18 + 40) * 4, write 180 * 4 */
    {"convolution transposed",
     "def forward(self, x: \"f32[1, 2, 3, 3][18, 9, 3, 1]cpu\", "
     "w: \"f32[2, 5, 2, 2][20, 4, 2, 1]cpu\"):\n"
     "    r: \"f32[1, 5, 6, 6][180, 36, 6, 1]cpu\" = "
     "torch.ops.aten.convolution.default(x, w, None, [2, 2], [0, 0], "
     "[1, 1], True, [0, 0], 1)\n"
     "    return [r]\n",
     "r", 720, 232 + 720},
    /* grad_input and grad_weight each cost the forward's 27648, grad_bias
     * 512; read (512 + 384 + 108) * 4, write (384 + 108 + 4) * 4 */
    {"convolution_backward",
     "def forward(self, g: \"f32[2, 4, 8, 8][256, 64, 8, 1]cpu\", "
     "x: \"f32[2, 3, 8, 8][192, 64, 8, 1]cpu\", "
     "w: \"f32[4, 3, 3, 3][27, 9, 3, 1]cpu\"):\n"
     "    r = torch.ops.aten.convolution_backward.default(g, x, w, [4], "
     "[1, 1], [1, 1], [1, 1], False, [0, 0], 1, [True, True, True])\n"
     "    r0: \"f32[2, 3, 8, 8][192, 64, 8, 1]cpu\" = r[0]\n"
     "    r1: \"f32[4, 3, 3, 3][27, 9, 3, 1]cpu\" = r[1]\n"
     "    r2: \"f32[4][1]cpu\" = r[2]\n"
     "    return [r0, r1, r2]\n",
     "r", 55808, 4016 + 1984},
    /* output_mask [True, False, True]: 27648 + 512; write 1536 + 16 */
    {"convolution_backward mask",
     "def forward(self, g: \"f32[2, 4, 8, 8][256, 64, 8, 1]cpu\", "
     "x: \"f32[2, 3, 8, 8][192, 64, 8, 1]cpu\", "
     "w: \"f32[4, 3, 3, 3][27, 9, 3, 1]cpu\"):\n"
     "    r = torch.ops.aten.convolution_backward.default(g, x, w, [4], "
     "[1, 1], [1, 1], [1, 1], False, [0, 0], 1, [True, False, True])\n"
     "    r0: \"f32[2, 3, 8, 8][192, 64, 8, 1]cpu\" = r[0]\n"
     "    r2: \"f32[4][1]cpu\" = r[2]\n"
     "    return [r0, r2]\n",
     "r", 28160, 4016 + 1552},
    /* layer norm of [4, 8]: (5 + weight + bias) * 32; read (32 + 8 + 8)
     * * 4, write 128 + 16 + 16 */
    {"native_layer_norm",
     "def forward(self, x: \"f32[4, 8][8, 1]cpu\", w: \"f32[8][1]cpu\", "
     "b: \"f32[8][1]cpu\"):\n"
     "    r = torch.ops.aten.native_layer_norm.default(x, [8], w, b, 1e-05)\n"
     "    r0: \"f32[4, 8][8, 1]cpu\" = r[0]\n"
     "    r1: \"f32[4, 1][1, 1]cpu\" = r[1]\n"
     "    r2: \"f32[4, 1][1, 1]cpu\" = r[2]\n"
     "    return [r0, r1, r2]\n",
     "r", 224, 192 + 160},
    /* backward: (7 + 2 + 1) * 32; read (32 + 32 + 4 + 4 + 8 + 8) * 4,
     * write 128 + 32 + 32 */
    {"native_layer_norm_backward",
     "def forward(self, g: \"f32[4, 8][8, 1]cpu\", x: \"f32[4, 8][8, 1]cpu\", "
     "m: \"f32[4, 1][1, 1]cpu\", s: \"f32[4, 1][1, 1]cpu\", "
     "w: \"f32[8][1]cpu\", b: \"f32[8][1]cpu\"):\n"
     "    r = torch.ops.aten.native_layer_norm_backward.default(g, x, [8], m, "
     "s, w, b, [True, True, True])\n"
     "    r0: \"f32[4, 8][8, 1]cpu\" = r[0]\n"
     "    r1: \"f32[8][1]cpu\" = r[1]\n"
     "    r2: \"f32[8][1]cpu\" = r[2]\n"
     "    return [r0, r1, r2]\n",
     "r", 320, 352 + 192},
    /* batch norm, training: 7 * 96; read (96 + 4 * 3) * 4, write
     * 384 + 12 + 12 */
    {"native_batch_norm",
     "def forward(self, x: \"f32[2, 3, 4, 4][48, 16, 4, 1]cpu\", "
     "w: \"f32[3][1]cpu\", b: \"f32[3][1]cpu\", rm: \"f32[3][1]cpu\", "
     "rv: \"f32[3][1]cpu\"):\n"
     "    r = torch.ops.aten.native_batch_norm.default(x, w, b, rm, rv, True, "
     "0.1, 1e-05)\n"
     "    r0: \"f32[2, 3, 4, 4][48, 16, 4, 1]cpu\" = r[0]\n"
     "    r1: \"f32[3][1]cpu\" = r[1]\n"
     "    r2: \"f32[3][1]cpu\" = r[2]\n"
     "    return [r0, r1, r2]\n",
     "r", 672, 432 + 408},
    /* eval mode: (2 + 2) * 96; the saved statistics are empty */
    {"native_batch_norm eval",
     "def forward(self, x: \"f32[2, 3, 4, 4][48, 16, 4, 1]cpu\", "
     "w: \"f32[3][1]cpu\", b: \"f32[3][1]cpu\", rm: \"f32[3][1]cpu\", "
     "rv: \"f32[3][1]cpu\"):\n"
     "    r = torch.ops.aten.native_batch_norm.default(x, w, b, rm, rv, "
     "False, 0.1, 1e-05)\n"
     "    r0: \"f32[2, 3, 4, 4][48, 16, 4, 1]cpu\" = r[0]\n"
     "    r1: \"f32[0][1]cpu\" = r[1]\n"
     "    r2: \"f32[0][1]cpu\" = r[2]\n"
     "    return [r0, r1, r2]\n",
     "r", 384, 432 + 384},
    /* group norm of [2, 4, 3]: 7 * 24; read (24 + 4 + 4) * 4, write
     * 96 + 16 + 16 */
    {"native_group_norm",
     "def forward(self, x: \"f32[2, 4, 3][12, 3, 1]cpu\", "
     "w: \"f32[4][1]cpu\", b: \"f32[4][1]cpu\"):\n"
     "    r = torch.ops.aten.native_group_norm.default(x, w, b, 2, 4, 3, 2, "
     "1e-05)\n"
     "    r0: \"f32[2, 4, 3][12, 3, 1]cpu\" = r[0]\n"
     "    r1: \"f32[2, 2][2, 1]cpu\" = r[1]\n"
     "    r2: \"f32[2, 2][2, 1]cpu\" = r[2]\n"
     "    return [r0, r1, r2]\n",
     "r", 168, 128 + 128},
    /* attention, batch 1 * 2 heads, L 4, S 6, E = Ev = 8: per (l, s) pair
     * 2 E (Q K^T) + 5 (softmax) + 2 Ev (P V) = 37, * 48 pairs; read
     * (64 + 96 + 96) * 4, write 64 * 4 + 8 * 4 */
    {"sdpa",
     "def forward(self, q: \"f32[1, 2, 4, 8][64, 32, 8, 1]cpu\", "
     "k: \"f32[1, 2, 6, 8][96, 48, 8, 1]cpu\", "
     "v: \"f32[1, 2, 6, 8][96, 48, 8, 1]cpu\"):\n"
     "    r = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu"
     ".default(q, k, v, 0.0, False)\n"
     "    r0: \"f32[1, 2, 4, 8][64, 32, 8, 1]cpu\" = r[0]\n"
     "    r1: \"f32[1, 2, 4][8, 1, 2]cpu\" = r[1]\n"
     "    return [r0, r1]\n",
     "r", 1776, 1024 + 288},
    /* backward: per pair 6 E + 4 Ev + 9 = 89, * 48; read (64 + 64 + 96 +
     * 96 + 64 + 8) * 4, write (64 + 96 + 96) * 4 */
    {"sdpa backward",
     "def forward(self, g: \"f32[1, 2, 4, 8][64, 32, 8, 1]cpu\", "
     "q: \"f32[1, 2, 4, 8][64, 32, 8, 1]cpu\", "
     "k: \"f32[1, 2, 6, 8][96, 48, 8, 1]cpu\", "
     "v: \"f32[1, 2, 6, 8][96, 48, 8, 1]cpu\", "
     "o: \"f32[1, 2, 4, 8][64, 32, 8, 1]cpu\", "
     "l: \"f32[1, 2, 4][8, 1, 2]cpu\"):\n"
     "    r = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu"
     "_backward.default(g, q, k, v, o, l, 0.0, False)\n"
     "    r0: \"f32[1, 2, 4, 8][64, 8, 16, 1]cpu\" = r[0]\n"
     "    r1: \"f32[1, 2, 6, 8][96, 8, 16, 1]cpu\" = r[1]\n"
     "    r2: \"f32[1, 2, 6, 8][96, 8, 16, 1]cpu\" = r[2]\n"
     "    return [r0, r1, r2]\n",
     "r", 4272, 1568 + 1024},
    /* 2x2 pooling of [1, 2, 4, 4]: 8 results * 4 comparisons; read 128,
     * write 8 * 4 + 8 * 8 (int64 indices) */
    {"max_pool2d_with_indices",
     "def forward(self, x: \"f32[1, 2, 4, 4][32, 16, 4, 1]cpu\"):\n"
     "    r = torch.ops.aten.max_pool2d_with_indices.default(x, [2, 2], "
     "[2, 2])\n"
     "    r0: \"f32[1, 2, 2, 2][8, 4, 2, 1]cpu\" = r[0]\n"
     "    r1: \"i64[1, 2, 2, 2][8, 4, 2, 1]cpu\" = r[1]\n"
     "    return [r0, r1]\n",
     "r", 32, 128 + 96},
    /* one add per gradient element: 8; read 32 + 128 + 64, write 128 */
    {"max_pool2d_with_indices_backward",
     "def forward(self, g: \"f32[1, 2, 2, 2][8, 4, 2, 1]cpu\", "
     "x: \"f32[1, 2, 4, 4][32, 16, 4, 1]cpu\", "
     "i: \"i64[1, 2, 2, 2][8, 4, 2, 1]cpu\"):\n"
     "    r: \"f32[1, 2, 4, 4][32, 16, 4, 1]cpu\" = "
     "torch.ops.aten.max_pool2d_with_indices_backward.default(g, x, [2, 2], "
     "[2, 2], [0, 0], [1, 1], False, i)\n"
     "    return [r]\n",
     "r", 8, 224 + 128},
    /* a gather of 3 rows of 4: the indices (24), the rows read (48), the
     * result (48) */
    {"embedding",
     "def forward(self, w: \"f32[10, 4][4, 1]cpu\", i: \"i64[3][1]cpu\"):\n"
     "    r: \"f32[3, 4][4, 1]cpu\" = torch.ops.aten.embedding.default(w, i)\n"
     "    return [r]\n",
     "r", 0, 24 + 96},
    /* one add per gradient element: 12; read 48 + 24, write 160 */
    {"embedding_dense_backward",
     "def forward(self, g: \"f32[3, 4][4, 1]cpu\", i: \"i64[3][1]cpu\"):\n"
     "    r: \"f32[10, 4][4, 1]cpu\" = "
     "torch.ops.aten.embedding_dense_backward.default(g, i, 10, -1, False)\n"
     "    return [r]\n",
     "r", 12, 72 + 160},
    /* one term per target: 5; the target (40), one logit each (20), the
     * two 0-d results (8) */
    {"nll_loss_forward",
     "def forward(self, x: \"f32[5, 7][7, 1]cpu\", t: \"i64[5][1]cpu\"):\n"
     "    r = torch.ops.aten.nll_loss_forward.default(x, t, None, 1, -100)\n"
     "    r0: \"f32[][]cpu\" = r[0]\n"
     "    r1: \"f32[][]cpu\" = r[1]\n"
     "    return [r0, r1]\n",
     "r", 5, 68},
    /* 5; the result written in full (140), the target (40), the gradient
     * and total weight (4 + 4) */
    {"nll_loss_backward",
     "def forward(self, g: \"f32[][]cpu\", x: \"f32[5, 7][7, 1]cpu\", "
     "t: \"i64[5][1]cpu\", tw: \"f32[][]cpu\"):\n"
     "    r: \"f32[5, 7][7, 1]cpu\" = "
     "torch.ops.aten.nll_loss_backward.default(g, x, t, None, 1, -100, "
     "tw)\n"
     "    return [r]\n",
     "r", 5, 188},
    /* dropout draws, compares and scales: 3 * 32; read 128, write 128 + 32
     * (the bool mask) */
    {"native_dropout",
     "def forward(self, x: \"f32[4, 8][8, 1]cpu\"):\n"
     "    r = torch.ops.aten.native_dropout.default(x, 0.1, True)\n"
     "    r0: \"f32[4, 8][8, 1]cpu\" = r[0]\n"
     "    r1: \"b8[4, 8][8, 1]cpu\" = r[1]\n"
     "    return [r0, r1]\n",
     "r", 96, 128 + 160},
    /* softmax backward: 4 per element; read 96 + 96, write 96 */
    {"_softmax_backward_data",
     "def forward(self, g: \"f32[4, 6][6, 1]cpu\", "
     "y: \"f32[4, 6][6, 1]cpu\"):\n"
     "    r: \"f32[4, 6][6, 1]cpu\" = "
     "torch.ops.aten._softmax_backward_data.default(g, y, -1, "
     "torch.float32)\n"
     "    return [r]\n",
     "r", 96, 288},
    /* batch norm backward: (7 + 2 + 1) * 96; read (96 + 96 + 5 * 3) * 4,
     * write 384 + 12 + 12 */
    {"native_batch_norm_backward",
     "def forward(self, g: \"f32[2, 3, 4, 4][48, 16, 4, 1]cpu\", "
     "x: \"f32[2, 3, 4, 4][48, 16, 4, 1]cpu\", w: \"f32[3][1]cpu\", "
     "rm: \"f32[3][1]cpu\", rv: \"f32[3][1]cpu\", sm: \"f32[3][1]cpu\", "
     "si: \"f32[3][1]cpu\"):\n"
     "    r = torch.ops.aten.native_batch_norm_backward.default(g, x, w, rm, "
     "rv, sm, si, True, 1e-05, [True, True, True])\n"
     "    r0: \"f32[2, 3, 4, 4][48, 16, 4, 1]cpu\" = r[0]\n"
     "    r1: \"f32[3][1]cpu\" = r[1]\n"
     "    r2: \"f32[3][1]cpu\" = r[2]\n"
     "    return [r0, r1, r2]\n",
     "r", 960, 828 + 408},
    /* gather of [4, 2] from [4, 5]: the index (64), the values read (32),
     * the result (32) */
    {"gather",
     "def forward(self, x: \"f32[4, 5][5, 1]cpu\", "
     "i: \"i64[4, 2][2, 1]cpu\"):\n"
     "    r: \"f32[4, 2][2, 1]cpu\" = torch.ops.aten.gather.default(x, 1, i)\n"
     "    return [r]\n",
     "r", 0, 128},
    /* bernoulli draws and compares: 2 * 32; read 128, write 128 */
    {"bernoulli.p",
     "def forward(self, x: \"f32[4, 8][8, 1]cpu\"):\n"
     "    r: \"f32[4, 8][8, 1]cpu\" = torch.ops.aten.bernoulli.p(x, 0.5)\n"
     "    return [r]\n",
     "r", 64, 256},
    /* max over dim 1 of [4, 6]: 24 comparisons; read 96, write 4 * 4 +
     * 4 * 8 (int64 indices) */
    {"max.dim",
     "def forward(self, x: \"f32[4, 6][6, 1]cpu\"):\n"
     "    r = torch.ops.aten.max.dim(x, 1)\n"
     "    r0: \"f32[4][1]cpu\" = r[0]\n"
     "    r1: \"i64[4][1]cpu\" = r[1]\n"
     "    return [r0, r1]\n",
     "r", 24, 96 + 48},
    /* where with a broadcast operand: 24 results; read 24 (bool) + 96 +
     * 24, write 96 */
    {"where.self",
     "def forward(self, c: \"b8[4, 6][6, 1]cpu\", a: \"f32[4, 6][6, 1]cpu\", "
     "b: \"f32[6][1]cpu\"):\n"
     "    r: \"f32[4, 6][6, 1]cpu\" = torch.ops.aten.where.self(c, a, b)\n"
     "    return [r]\n",
     "r", 24, 144 + 96},
    /* mean over dim 1: 24 adds + 4 divisions; read 96, write 16 */
    {"mean.dim",
     "def forward(self, x: \"f32[4, 6][6, 1]cpu\"):\n"
     "    r: \"f32[4][1]cpu\" = torch.ops.aten.mean.dim(x, [1])\n"
     "    return [r]\n",
     "r", 28, 112},
    /* index_select of 3 rows of 4: the index (24), the rows read (48), the
     * result (48) */
    {"index_select",
     "def forward(self, x: \"f32[5, 4][4, 1]cpu\", i: \"i64[3][1]cpu\"):\n"
     "    r: \"f32[3, 4][4, 1]cpu\" = "
     "torch.ops.aten.index_select.default(x, 0, i)\n"
     "    return [r]\n",
     "r", 0, 120},
    /* index_add of a [3, 4] source: 12 adds; read 80 + 24 + 48, write 80 */
    {"index_add",
     "def forward(self, x: \"f32[5, 4][4, 1]cpu\", i: \"i64[3][1]cpu\", "
     "y: \"f32[3, 4][4, 1]cpu\"):\n"
     "    r: \"f32[5, 4][4, 1]cpu\" = "
     "torch.ops.aten.index_add.default(x, 0, i, y)\n"
     "    return [r]\n",
     "r", 12, 232},
    /* masked_scatter copies: read 24 + 6 (bool) + 24, write 24 */
    {"masked_scatter",
     "def forward(self, x: \"f32[2, 3][3, 1]cpu\", m: \"b8[2, 3][3, 1]cpu\", "
     "y: \"f32[6][1]cpu\"):\n"
     "    r: \"f32[2, 3][3, 1]cpu\" = "
     "torch.ops.aten.masked_scatter.default(x, m, y)\n"
     "    return [r]\n",
     "r", 0, 78},
    /* a dtype conversion is a copy: read 24, write 12 (f16) */
    {"prims.convert_element_type",
     "def forward(self, x: \"f32[2, 3][3, 1]cpu\"):\n"
     "    r: \"f16[2, 3][3, 1]cpu\" = "
     "torch.ops.prims.convert_element_type.default(x, torch.float16)\n"
     "    return [r]\n",
     "r", 0, 36},
    /* one draw per element; self only gives the sizes: write 128 */
    {"rand_like",
     "def forward(self, x: \"f32[4, 8][8, 1]cpu\"):\n"
     "    r: \"f32[4, 8][8, 1]cpu\" = torch.ops.aten.rand_like.default(x, "
     "pin_memory = False)\n"
     "    return [r]\n",
     "r", 32, 128},
    /* an empty allocation writes nothing */
    {"empty_like",
     "def forward(self, x: \"f32[4, 8][8, 1]cpu\"):\n"
     "    r: \"f32[4, 8][8, 1]cpu\" = torch.ops.aten.empty_like.default(x, "
     "pin_memory = False)\n"
     "    return [r]\n",
     "r", 0, 0},
};

START_TEST(test_cost_heavy)
{
    check_cases(heavy_cases, ARRAY_SIZE(heavy_cases));
}
END_TEST

/* ---- Every node of the examples ----------------------------------------- */

/* Every node of every bundled joint graph evaluates at its hints, a node
 * of a computing op counts FLOPs, and the figures add up below 2^63. */
static void check_example_costs(const char *path)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = NULL;
    sc_symmap *m;
    sc_error err;
    uint64_t total = 0, computing = 0;
    ck_assert_msg(sc_graph_read_file(ctx, path, NULL, &g, &err) == SC_OK,
                  "%s: %s", path, err.message);
    m = hints_or(ctx, g, 7); /* mlp_gelu_dyn has no hint */
    for (size_t i = 0; i < sc_graph_node_count(g); i++) {
        sc_node_cost c;
        int op = sc__graph_node_op(g, (sc_node_id)i);
        ck_assert_msg(sc_node_cost_eval(g, (sc_node_id)i, m, &c, &err) ==
                          SC_OK,
                      "%s: %s", path, err.message);
        if (op >= 0 &&
            sc__cost_formula_computes(sc__op_cost_formula((sc__op)op))) {
            /* a computing node counts FLOPs */
            ck_assert_msg(c.flops > 0, "%s: %s counts no FLOPs", path,
                          sc_graph_node_name(g, (sc_node_id)i));
            computing++;
        }
        total += c.cost;
    }
    ck_assert_msg(computing > 0 && total > 0, "%s", path);
    sc_symmap_free(m);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}

START_TEST(test_cost_examples)
{
    static const char *const names[] = {
        "examples/mlp_gelu.joint.txt",
        "examples/mlp_gelu_dyn.joint.txt",
        "examples/small_cnn.joint.txt",
        "examples/transformer_encoder_layer.joint.txt",
        "examples/lm_head_ce.joint.txt",
        "examples/attention_single_head.joint.txt",
        "examples/lstm_module.joint.txt",
        "examples/residual_mlp_16.joint.txt",
    };
    const char *top = getenv("top_srcdir");
    char path[1024];
    glob_t gl;
    for (size_t k = 0; k < ARRAY_SIZE(names); k++) {
        snprintf(path, sizeof path, "%s/%s", top ? top : ".", names[k]);
        check_example_costs(path);
    }
    /* the zoo's joint graphs */
    snprintf(path, sizeof path, "%s/examples/zoo/*.joint.txt",
             top ? top : ".");
    ck_assert(glob(path, 0, NULL, &gl) == 0);
    ck_assert_uint_gt(gl.gl_pathc, 10);
    for (size_t k = 0; k < gl.gl_pathc; k++)
        check_example_costs(gl.gl_pathv[k]);
    globfree(&gl);
}
END_TEST

/* ---- Symbolic sizes ----------------------------------------------------- */

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

/* ---- Overflow ----------------------------------------------------------- */

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

/* ---- The whole op table ------------------------------------------------- */

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
    "prims.convert_element_type.default",
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
    tcase_add_test(tc, test_cost_heavy);
    tcase_add_test(tc, test_cost_symbolic);
    tcase_add_test(tc, test_cost_overflow);
    tcase_add_test(tc, test_cost_every_op);
    tcase_add_test(tc, test_cost_examples);
    suite_add_tcase(s, tc);
    return s;
}
