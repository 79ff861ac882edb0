/* symcut tests — the prims of decomposed graphs: prims.broadcast_in_dim,
 * iota, device_put, add, mul, sum (with convert_element_type and
 * transpose in the same graphs).
 *
 * The torch cases are graphs torch 2.13 traced on fake CPU tensors
 * (torch's decompositions into prims under TorchRefsMode, and direct prims
 * calls; one traced with symbolic sizes) with their inputs and outputs,
 * tests/data/ops-prims/, made by
 * tools/meta/gen_prims_data.py: each reads (reading checks every node's
 * annotation against its shape rule, sizes and strides), every call is in
 * the op table, and it runs to torch's outputs bit for bit.  The bad
 * inputs are graph texts each rule or kernel must refuse, with the error
 * on the node's line. */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include <symcut/graph.h>
#include <symcut/interp.h>
#include <symcut/tensor.h>

#include "tests/testutil.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

Suite *prims_suite(void);

/* ---- torch's graphs and data ----------------------------------------------- */

static const struct {
    const char *name;
    const char *ops[4]; /* ops the graph must contain */
} torch_cases[] = {
    {"broadcast_add", {"torch.ops.prims.broadcast_in_dim.default",
                       "torch.ops.prims.add.default",
                       "torch.ops.prims.mul.default",
                       "torch.ops.prims.transpose.default"}},
    {"broadcast_in_dim", {"torch.ops.prims.broadcast_in_dim.default"}},
    {"elementwise", {"torch.ops.prims.add.default",
                     "torch.ops.prims.mul.default",
                     "torch.ops.prims.convert_element_type.default"}},
    {"sum", {"torch.ops.prims.sum.default"}},
    {"sum_refs", {"torch.ops.prims.sum.default",
                  "torch.ops.prims.convert_element_type.default"}},
    {"iota_refs", {"torch.ops.prims.iota.default"}},
    {"iota", {"torch.ops.prims.iota.default"}},
    {"device_put", {"torch.ops.prims.device_put.default"}},
    /* symbolic sizes: broadcast_in_dim to SymInts, iota of a SymInt */
    {"dynamic", {"torch.ops.prims.broadcast_in_dim.default",
                 "torch.ops.prims.sum.default",
                 "torch.ops.prims.iota.default"}},
};

START_TEST(test_torch_case)
{
    const char *name = torch_cases[_i].name;
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = sc_test_torch_case(ctx, "ops-prims", name, 0);
    size_t j;

    for (j = 0; j < ARRAY_SIZE(torch_cases[_i].ops) && torch_cases[_i].ops[j];
         j++)
        ck_assert_msg(sc_test_graph_has_target(g, torch_cases[_i].ops[j]),
                      "%s: no %s node", name, torch_cases[_i].ops[j]);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

/* ---- Bad inputs ------------------------------------------------------------- */

static const struct {
    const char *what;
    const char *text;
    const char *message;
} bad_reads[] = {
    {"broadcast_in_dim: a shape shorter than a's rank",
     "def forward(self, x: \"f32[4, 3][3, 1]cpu\"):\n"
     "    o: \"f32[3][1]cpu\" = torch.ops.prims.broadcast_in_dim.default(x, "
     "[3], [0, 1])\n"
     "    return (o,)\n",
     "len(shape) (1) must be >= a.ndim (2)"},
    {"broadcast_in_dim: broadcast_dimensions of the wrong length",
     "def forward(self, x: \"f32[4, 3][3, 1]cpu\"):\n"
     "    o: \"f32[2, 4, 3][0, 3, 1]cpu\" = "
     "torch.ops.prims.broadcast_in_dim.default(x, [2, 4, 3], [1])\n"
     "    return (o,)\n",
     "a.ndim (2) != len(broadcast_dimensions) (1)"},
    {"broadcast_in_dim: a dim out of range",
     "def forward(self, x: \"f32[3][1]cpu\"):\n"
     "    o: \"f32[4, 3][0, 1]cpu\" = "
     "torch.ops.prims.broadcast_in_dim.default(x, [4, 3], [2])\n"
     "    return (o,)\n",
     "broadcast_dimension 2 out of bounds for shape of length 2"},
    {"broadcast_in_dim: dims not ascending",
     "def forward(self, x: \"f32[4, 3][3, 1]cpu\"):\n"
     "    o: \"f32[3, 4][1, 3]cpu\" = "
     "torch.ops.prims.broadcast_in_dim.default(x, [3, 4], [1, 0])\n"
     "    return (o,)\n",
     "strictly ascending"},
    {"broadcast_in_dim: a size that does not broadcast",
     "def forward(self, x: \"f32[3][1]cpu\"):\n"
     "    o: \"f32[4, 5][0, 1]cpu\" = "
     "torch.ops.prims.broadcast_in_dim.default(x, [4, 5], [1])\n"
     "    return (o,)\n",
     "broadcastable"},
    {"broadcast_in_dim: an annotation with other strides",
     "def forward(self, x: \"f32[3][1]cpu\"):\n"
     "    o: \"f32[4, 3][3, 1]cpu\" = "
     "torch.ops.prims.broadcast_in_dim.default(x, [4, 3], [1])\n"
     "    return (o,)\n",
     ""},
    {"iota: a negative length",
     "def forward(self):\n"
     "    o: \"i64[3][1]cpu\" = torch.ops.prims.iota.default(-3, start = 0, "
     "step = 1, dtype = torch.int64, device = device(type='cpu'), "
     "requires_grad = False)\n"
     "    return (o,)\n",
     "negative dimensions are not allowed"},
    {"iota: a zero step",
     "def forward(self):\n"
     "    o: \"i64[3][1]cpu\" = torch.ops.prims.iota.default(3, start = 0, "
     "step = 0, dtype = torch.int64, device = device(type='cpu'), "
     "requires_grad = False)\n"
     "    return (o,)\n",
     "step must be nonzero"},
    {"iota: a floating dtype",
     "def forward(self):\n"
     "    o: \"f32[3][1]cpu\" = torch.ops.prims.iota.default(3, start = 0, "
     "step = 1, dtype = torch.float32, device = device(type='cpu'), "
     "requires_grad = False)\n"
     "    return (o,)\n",
     "prims.iota only supports integer dtypes"},
    {"add: operands of different shapes",
     "def forward(self, x: \"f32[4, 3][3, 1]cpu\", y: \"f32[3][1]cpu\"):\n"
     "    o: \"f32[4, 3][3, 1]cpu\" = torch.ops.prims.add.default(x, y)\n"
     "    return (o,)\n",
     "prims do not broadcast"},
    {"mul: operands of different dtypes",
     "def forward(self, x: \"f32[3][1]cpu\", y: \"f64[3][1]cpu\"):\n"
     "    o: \"f32[3][1]cpu\" = torch.ops.prims.mul.default(x, y)\n"
     "    return (o,)\n",
     "is not the expected dtype"},
    {"add: strides other than the elementwise order's",
     "def forward(self, x: \"f32[4, 3][1, 4]cpu\"):\n"
     "    o: \"f32[4, 3][3, 1]cpu\" = torch.ops.prims.add.default(x, x)\n"
     "    return (o,)\n",
     ""},
    {"sum: a dim out of range",
     "def forward(self, x: \"f32[4, 3][3, 1]cpu\"):\n"
     "    o: \"f32[4][1]cpu\" = torch.ops.prims.sum.default(x, [2])\n"
     "    return (o,)\n",
     "dim 2 out of range for a 2-d tensor"},
    {"sum: a negative dim (prims do not wrap)",
     "def forward(self, x: \"f32[4, 3][3, 1]cpu\"):\n"
     "    o: \"f32[4][1]cpu\" = torch.ops.prims.sum.default(x, [-1])\n"
     "    return (o,)\n",
     "dim -1 out of range"},
    {"sum: dims None (torch's meta function cannot iterate it)",
     "def forward(self, x: \"f32[4, 3][3, 1]cpu\"):\n"
     "    o: \"f32[][]cpu\" = torch.ops.prims.sum.default(x, None)\n"
     "    return (o,)\n",
     "dims must be a list"},
    {"device_put: keeps a's strides",
     "def forward(self, x: \"f32[4, 3][1, 4]cpu\"):\n"
     "    o: \"f32[4, 3][3, 1]cpu\" = torch.ops.prims.device_put.default(x, "
     "device(type='cpu'))\n"
     "    return (o,)\n",
     ""},
};

static sc_graph *text_graph(sc_ctx *ctx, const char *text, sc_error *err)
{
    sc_graph *g = NULL;
    if (sc_graph_read_text(ctx, text, strlen(text), "t.py", NULL, &g, err) !=
        SC_OK)
        return NULL;
    return g;
}

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

/* prims.sum with output_dtype reads (torch's meta function gives the
 * dtype) and is refused when run: torch cannot run it either (its aten
 * implementation, torch.sum, has no output_dtype). */
START_TEST(test_sum_output_dtype)
{
    static const char *text =
        "def forward(self, x: \"f32[4, 3][3, 1]cpu\"):\n"
        "    o: \"f64[4][1]cpu\" = torch.ops.prims.sum.default(x, [1], "
        "output_dtype = torch.float64)\n"
        "    return (o,)\n";
    sc_ctx *ctx = sc_ctx_new();
    sc_error err;
    sc_graph *g = text_graph(ctx, text, &err);
    sc_tensor *in[1], *out[1] = {NULL};
    int64_t sizes[2] = {4, 3};

    ck_assert_msg(g, "%s", err.message);
    ck_assert_int_eq(sc_tensor_new(SC_DTYPE_F32, 2, sizes, &in[0], &err),
                     SC_OK);
    ck_assert_int_eq(sc_interp_run(g, in, NULL, out, NULL, &err),
                     SC_ERR_UNSUPPORTED);
    ck_assert_msg(strstr(err.message, "output_dtype") != NULL, "%s",
                  err.message);
    ck_assert_ptr_null(out[0]);
    sc_tensor_free(in[0]);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

/* A float number with an integer tensor: torch's meta says int64, its
 * kernel float32; the kernel refuses rather than pick one. */
START_TEST(test_add_float_number_int_tensor)
{
    static const char *text =
        "def forward(self, x: \"i64[3][1]cpu\"):\n"
        "    o: \"i64[3][1]cpu\" = torch.ops.prims.add.default(x, 0.5)\n"
        "    return (o,)\n";
    sc_ctx *ctx = sc_ctx_new();
    sc_error err;
    sc_graph *g = text_graph(ctx, text, &err);
    sc_tensor *in[1], *out[1] = {NULL};
    int64_t sizes[1] = {3};

    ck_assert_msg(g, "%s", err.message);
    ck_assert_int_eq(sc_tensor_new(SC_DTYPE_I64, 1, sizes, &in[0], &err),
                     SC_OK);
    ck_assert_int_eq(sc_interp_run(g, in, NULL, out, NULL, &err),
                     SC_ERR_UNSUPPORTED);
    ck_assert_msg(strstr(err.message, "float number") != NULL, "%s",
                  err.message);
    sc_tensor_free(in[0]);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

Suite *prims_suite(void)
{
    Suite *s = suite_create("prims");
    TCase *tc = tcase_create("prims");
    tcase_add_loop_test(tc, test_torch_case, 0, (int)ARRAY_SIZE(torch_cases));
    tcase_add_loop_test(tc, test_bad_read, 0, (int)ARRAY_SIZE(bad_reads));
    tcase_add_test(tc, test_sum_output_dtype);
    tcase_add_test(tc, test_add_float_number_int_tensor);
    suite_add_tcase(s, tc);
    return s;
}
