/* symcut tests — the graph IR, the reader and writer of PyTorch's graph
 * text, DOT output.
 *
 * The examples are read from $SYMCUT_EXAMPLES_DIR, else
 * $top_srcdir/examples (the test environment sets top_srcdir), else
 * ./examples. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <symcut/graph.h>
#include <symcut/guards.h>

#include "tests/testutil.h"
#include "util/internal.h"
#include "graph/graph-internal.h"
#include "graph/ops.h"

Suite *graph_suite(void);

/* ---- Helpers -------------------------------------------------------------- */

static char *examples_path(const char *name)
{
    const char *dir = getenv("SYMCUT_EXAMPLES_DIR");
    const char *top = getenv("top_srcdir");
    char *p;
    size_t n;

    if (!dir || !*dir)
        dir = NULL;
    n = (dir ? strlen(dir) : (top ? strlen(top) + 9 : 8)) + strlen(name) + 2;
    p = malloc(n);
    ck_assert_ptr_nonnull(p);
    if (dir)
        snprintf(p, n, "%s/%s", dir, name);
    else if (top)
        snprintf(p, n, "%s/examples/%s", top, name);
    else
        snprintf(p, n, "examples/%s", name);
    return p;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;

    ck_assert_msg(f != NULL, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc((size_t)n + 1);
    ck_assert_ptr_nonnull(buf);
    ck_assert_int_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    if (len)
        *len = (size_t)n;
    return buf;
}

static sc_status read_str(sc_ctx *ctx, const char *text, sc_graph **g,
                          sc_error *err)
{
    return sc_graph_read_text(ctx, text, strlen(text), "t.py", NULL, g, err);
}

static char *format_error(const sc_error *err)
{
    static char buf[1024];
    sc_error_format(err, buf, sizeof buf);
    return buf;
}

/* The integer after `"key": ` inside the "joint" object of a
 * NAME.pytorch.json (the keys used here occur there first). */
static long json_joint_int(const char *json, const char *key)
{
    char pat[64];
    const char *p = strstr(json, "\"joint\"");
    ck_assert_ptr_nonnull(p);
    snprintf(pat, sizeof pat, "\"%s\": ", key);
    p = strstr(p, pat);
    return p ? strtol(p + strlen(pat), NULL, 10) : -1; /* _dyn: fewer keys */
}

static const char *const example_names[] = {
    "mlp_gelu",       "mlp_gelu_dyn",           "fn_mm_gelu_sum",
    "fn_mm_gelu_sum_dyn", "attention_single_head", "transformer_encoder_layer",
    "small_cnn",      "lm_head_ce",             "residual_mlp_16",
    "two_output_mlp", "lstm_module",
};
#define NEXAMPLES (sizeof example_names / sizeof example_names[0])

/* ---- Examples ------------------------------------------------------------- */

/* Read a file, write it, compare the text with the file byte for byte (the
 * examples are in the newer style, so the writer reproduces them), read
 * the text back and compare the graphs. */
static void roundtrip_file(const char *file)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = NULL, *g2 = NULL;
    sc_error err;
    char *path = examples_path(file), *orig, *text = NULL, why[256];
    size_t olen, len;

    orig = slurp(path, &olen);
    ck_assert_msg(sc_graph_read_text(ctx, orig, olen, path, NULL, &g, &err) ==
                      SC_OK,
                  "%s", format_error(&err));
    ck_assert_int_eq(sc_graph_write_text(g, NULL, &text, &len, &err), SC_OK);
    ck_assert_msg(len == olen && memcmp(text, orig, len) == 0,
                  "%s: the written text differs from the file", file);
    ck_assert_int_eq(sc_graph_read_text(ctx, text, len, "written", NULL, &g2,
                                        &err),
                     SC_OK);
    ck_assert_msg(sc_graph_equal(g, g2, 0, why, sizeof why), "%s: %s", file,
                  why);
    free(text);
    free(orig);
    free(path);
    sc_graph_free(g);
    sc_graph_free(g2);
    sc_ctx_free(ctx);
}

START_TEST(test_example_joint_roundtrip)
{
    char file[128];
    snprintf(file, sizeof file, "%s.joint.txt", example_names[_i]);
    roundtrip_file(file);
}
END_TEST

START_TEST(test_example_forward_roundtrip)
{
    char file[128], *path;
    FILE *f;
    snprintf(file, sizeof file, "%s.forward.txt", example_names[_i]);
    path = examples_path(file);
    f = fopen(path, "rb");
    free(path);
    if (!f) /* the _dyn graphs have no forward text */
        return;
    fclose(f);
    roundtrip_file(file);
}
END_TEST

/* The counts PyTorch recorded, the users index and the forward graph as
 * the joint's forward half. */
START_TEST(test_example_counts)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = NULL, *fw = NULL;
    sc_error err;
    char file[128], *path, *json;
    size_t i, edges = 0, nusers, k;
    const sc_node_id *users;
    sc_node_id prev = SC_NODE_NONE;

    snprintf(file, sizeof file, "%s.joint.txt", example_names[_i]);
    path = examples_path(file);
    ck_assert_msg(sc_graph_read_file(ctx, path, NULL, &g, &err) == SC_OK,
                  "%s", format_error(&err));
    free(path);
    snprintf(file, sizeof file, "%s.pytorch.json", example_names[_i]);
    path = examples_path(file);
    json = slurp(path, NULL);
    free(path);
    ck_assert_int_eq(sc_graph_placeholder_count(g),
                     json_joint_int(json, "placeholders"));
    ck_assert_int_eq(sc_graph_node_count(g) - sc_graph_placeholder_count(g),
                     json_joint_int(json, "call_function"));
    ck_assert_int_eq(sc_graph_node_count(g) + 1,
                     json_joint_int(json, "nodes_total"));
    ck_assert_int_eq(sc_graph_fwd_output_count(g),
                     json_joint_int(json, "num_fwd_outputs"));
    if (json_joint_int(json, "num_primals") >= 0) {
        ck_assert_int_eq(sc_graph_primal_count(g),
                         json_joint_int(json, "num_primals"));
        ck_assert_int_eq(sc_graph_tangent_count(g),
                         json_joint_int(json, "num_tangents"));
        ck_assert_int_eq(sc_graph_output_count(g) -
                             sc_graph_fwd_output_count(g),
                         json_joint_int(json, "num_bwd_outputs"));
    }
    /* edges: producer -> consumer pairs, those into the output node too */
    for (i = 0; i < sc_graph_node_count(g); i++) {
        users = sc_graph_node_users(g, (sc_node_id)i, &nusers);
        edges += nusers;
        for (k = 1; k < nusers; k++)
            ck_assert_int_lt(users[k - 1], users[k]);
        for (k = 0; k < nusers; k++)
            ck_assert_int_gt(users[k], (sc_node_id)i);
        if (sc_graph_node_output_use_count(g, (sc_node_id)i))
            edges++;
    }
    ck_assert_int_eq(edges, json_joint_int(json, "edges"));
    free(json);

    /* The forward text: the joint's primals and forward half, same names
     * and ops in the same order. */
    snprintf(file, sizeof file, "%s.forward.txt", example_names[_i]);
    path = examples_path(file);
    if (sc_graph_read_file(ctx, path, NULL, &fw, &err) == SC_OK) {
        ck_assert_int_eq(sc_graph_tangent_count(fw), 0);
        ck_assert_int_eq(sc_graph_primal_count(fw), sc_graph_primal_count(g));
        ck_assert_int_eq(sc_graph_output_count(fw),
                         sc_graph_fwd_output_count(g));
        for (i = 0; i < sc_graph_node_count(fw); i++) {
            const char *name = sc_graph_node_name(fw, (sc_node_id)i);
            sc_node_id j = sc_graph_find(g, name);
            ck_assert_msg(j != SC_NODE_NONE, "%s not in the joint", name);
            ck_assert(j > prev);
            prev = j;
            if (sc_graph_node_kind(fw, (sc_node_id)i) == SC_NODE_CALL)
                ck_assert_str_eq(sc_graph_node_target(fw, (sc_node_id)i),
                                 sc_graph_node_target(g, j));
        }
        for (i = 0; i < sc_graph_output_count(fw); i++)
            ck_assert_str_eq(
                sc_graph_node_name(fw, sc_graph_output(fw, i)),
                sc_graph_node_name(g, sc_graph_output(g, i)));
        sc_graph_free(fw);
    }
    free(path);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

/* The TORCH_LOGS framing of a graph reads to the same graph as its plain
 * twin (annotations without strides and device: compared leniently). */
START_TEST(test_example_torch_logs)
{
    static const char *const twins[] = {"mlp_gelu", "fn_mm_gelu_sum"};
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *a = NULL, *b = NULL;
    sc_error err;
    char file[128], *path, why[256];
    sc_result r;

    snprintf(file, sizeof file, "%s.joint.txt", twins[_i]);
    path = examples_path(file);
    ck_assert_int_eq(sc_graph_read_file(ctx, path, NULL, &a, &err), SC_OK);
    free(path);
    snprintf(file, sizeof file, "%s.joint.torch_logs.txt", twins[_i]);
    path = examples_path(file);
    ck_assert_msg(sc_graph_read_file(ctx, path, NULL, &b, &err) == SC_OK,
                  "%s", format_error(&err));
    free(path);
    ck_assert_msg(sc_graph_equal(a, b, SC_GRAPH_EQUAL_LENIENT_META, why,
                                 sizeof why),
                  "%s", why);
    /* ... and not strictly: the log has no strides */
    ck_assert(!sc_graph_equal(a, b, 0, why, sizeof why));
    ck_assert_str_eq(sc_graph_class_name(b), "joint_helper");
    sc_graph_node_result(b, 0, &r);
    ck_assert_int_eq(r.kind, SC_RESULT_TENSOR);
    ck_assert(!r.tensor.has_strides);
    ck_assert(!r.tensor.has_device);
    sc_graph_free(a);
    sc_graph_free(b);
    sc_ctx_free(ctx);
}
END_TEST

/* Symbolic annotations: expressions, hints and the environment. */
START_TEST(test_example_dyn_symbols)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = NULL;
    sc_error err;
    char *path = examples_path("fn_mm_gelu_sum_dyn.joint.txt");
    sc_expr *syms[8], *s0 = sc_expr_symbol(ctx, "s0");
    sc_expr *hint_syms[1];
    int64_t hint_vals[1] = {8}, h;
    sc_graph_read_options opts;
    sc_node_id id;
    sc_result r;

    hint_syms[0] = s0;
    sc_graph_read_options_init(&opts);
    opts.nhints = 1;
    opts.hint_symbols = hint_syms;
    opts.hint_values = hint_vals;
    ck_assert_int_eq(sc_graph_read_file(ctx, path, &opts, &g, &err), SC_OK);
    ck_assert_int_eq(sc_graph_symbols(g, syms, 8), 3);
    ck_assert_str_eq(sc_expr_symbol_name(syms[0]), "s0");
    ck_assert_str_eq(sc_expr_symbol_name(syms[1]), "s1");
    ck_assert_str_eq(sc_expr_symbol_name(syms[2]), "s2");
    ck_assert(sc_graph_get_hint(g, s0, &h));
    ck_assert_int_eq(h, 8);
    ck_assert(!sc_graph_get_hint(g, syms[1], &h));
    ck_assert_ptr_nonnull(sc_graph_env(g));
    ck_assert(sc_env_is_backed(sc_graph_env(g), s0));
    ck_assert(!sc_env_is_backed(sc_graph_env(g), syms[1]));
    ck_assert_str_eq(sc_env_symbol_source(sc_graph_env(g), s0),
                     "primals_1.size(0)");
    id = sc_graph_find(g, "sym_size");
    ck_assert_int_ne(id, SC_NODE_NONE);
    sc_graph_node_result(g, id, &r);
    ck_assert_int_eq(r.kind, SC_RESULT_SYMINT);
    ck_assert_ptr_eq(r.expr, s0);
    id = sc_graph_find(g, "expand");
    ck_assert_int_eq(sc_graph_node_arg(g, id, 1)->kind, SC_VALUE_LIST);
    ck_assert_int_eq(sc_graph_node_arg(g, id, 1)->u.list.items[0].kind,
                     SC_VALUE_NODE);
    free(path);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

/* Memory per node: the arena plus the node array and the name table. */
START_TEST(test_example_memory)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = NULL;
    sc_error err;
    char *path = examples_path("residual_mlp_16.joint.txt");
    double per_node;

    ck_assert_int_eq(sc_graph_read_file(ctx, path, NULL, &g, &err), SC_OK);
    per_node = (double)(g->arena.total + g->cap * sizeof(sc__node) +
                        g->name_cap * sizeof(uint32_t)) /
               (double)g->nnodes;
    ck_assert_msg(per_node < 1024, "%.0f bytes per node", per_node);
    ck_assert_int_le(sizeof(sc__node), 64);
    free(path);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

/* ---- The builder -------------------------------------------------------- */

static void tensor_meta(sc_ctx *ctx, sc_result *r, sc_expr **dims, int n,
                        const int64_t *sizes)
{
    int i;
    sc_result_init(r);
    r->kind = SC_RESULT_TENSOR;
    r->tensor.dtype = SC_DTYPE_F32;
    r->tensor.ndim = (size_t)n;
    for (i = 0; i < n; i++)
        dims[i] = sc_expr_int_si(ctx, sizes[i]);
    /* contiguous strides */
    for (i = n - 1; i >= 0; i--)
        dims[n + i] = i == n - 1 ? sc_expr_int_si(ctx, 1)
                                 : sc_expr_mul(ctx, dims[n + i + 1],
                                               dims[i + 1]);
    r->tensor.sizes = dims;
    r->tensor.has_strides = true;
    r->tensor.strides = dims + n;
    r->tensor.has_device = true;
    r->tensor.device.type = SC_DEVICE_CPU;
    r->tensor.device.index = -1;
}

START_TEST(test_builder)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = sc_graph_new(ctx), *g2 = NULL;
    sc_error err;
    sc_result r, r2;
    sc_expr *dims[8], *dims2[8];
    int64_t sz[2] = {4, 8}, sz2[2] = {4, 4};
    sc_node_id a, b, t, mm, mm2, outs[3];
    sc_value args[3], items[2];
    const char *kw[1] = {"memory_format"};
    sc_value kwv[1];
    const sc_node_id *users;
    size_t n;
    char *text = NULL, why[128];

    tensor_meta(ctx, &r, dims, 2, sz);
    ck_assert_int_eq(sc_graph_add_placeholder(g, "primals_1", SC_ROLE_PRIMAL,
                                              &r, &a, &err),
                     SC_OK);
    ck_assert_int_eq(sc_graph_add_placeholder(g, "tangents_1",
                                              SC_ROLE_TANGENT, &r, &b, &err),
                     SC_OK);
    args[0] = sc_value_node(a);
    ck_assert_int_eq(sc_graph_add_call(g, NULL, "torch.ops.aten.t.default", 1,
                                       args, 0, NULL, NULL, NULL, &t, &err),
                     SC_OK);
    ck_assert_str_eq(sc_graph_node_name(g, t), "t");
    args[0] = sc_value_node(a);
    args[1] = sc_value_node(t);
    ck_assert_int_eq(sc_graph_add_call(g, NULL, "torch.ops.aten.mm.default",
                                       2, args, 0, NULL, NULL, NULL, &mm,
                                       &err),
                     SC_OK);
    ck_assert_int_eq(sc_graph_add_call(g, NULL, "torch.ops.aten.mm.default",
                                       2, args, 0, NULL, NULL, NULL, &mm2,
                                       &err),
                     SC_OK);
    ck_assert_str_eq(sc_graph_node_name(g, mm), "mm");
    ck_assert_str_eq(sc_graph_node_name(g, mm2), "mm_1");
    ck_assert_int_ne(sc__graph_node_op(g, mm), SC_OP_UNKNOWN);
    ck_assert_str_eq(sc_graph_node_class(g, mm), "compute_intensive");
    /* keyword arguments, a list, a float with its repr */
    args[0] = sc_value_node(mm);
    kwv[0] = sc_value_none();
    kwv[0].kind = SC_VALUE_MEMORY_FORMAT;
    kwv[0].u.memory_format = SC_MEMORY_FORMAT_CONTIGUOUS;
    ck_assert_int_eq(sc_graph_add_call(g, "c", "torch.ops.aten.clone.default",
                                       1, args, 1, kw, kwv, NULL, NULL, &err),
                     SC_OK);
    items[0] = sc_value_node(mm2);
    items[1] = sc_value_int(3);
    args[0] = sc_value_list(2, items);
    args[1] = sc_value_float(1e-5, "1e-05");
    ck_assert_int_eq(sc_graph_add_call(g, "opaque", "torch.ops.my.op.default",
                                       2, args, 0, NULL, NULL, NULL, NULL,
                                       &err),
                     SC_OK);
    ck_assert_int_eq(sc__graph_node_op(g, sc_graph_find(g, "opaque")),
                     SC_OP_UNKNOWN);
    ck_assert_ptr_null(sc_graph_node_class(g, sc_graph_find(g, "opaque")));

    /* errors leave the graph as it was */
    n = sc_graph_node_count(g);
    ck_assert_int_eq(sc_graph_add_call(g, "mm", "torch.ops.aten.t.default", 1,
                                       args, 0, NULL, NULL, NULL, NULL, &err),
                     SC_ERR_INVALID);
    ck_assert_str_eq(err.message, "duplicate node name 'mm'");
    args[0] = sc_value_node(99);
    ck_assert_int_eq(sc_graph_add_call(g, "x", "torch.ops.aten.t.default", 1,
                                       args, 0, NULL, NULL, NULL, NULL, &err),
                     SC_ERR_INVALID);
    ck_assert_int_eq(sc_graph_add_placeholder(g, "late", SC_ROLE_PRIMAL, NULL,
                                              NULL, &err),
                     SC_ERR_INVALID);
    ck_assert_int_eq(sc_graph_add_call(g, "1x", "torch.ops.aten.t.default",
                                       0, NULL, 0, NULL, NULL, NULL, NULL,
                                       &err),
                     SC_ERR_INVALID);
    ck_assert_int_eq(sc_graph_add_call(g, "y", "torch..bad", 0, NULL, 0, NULL,
                                       NULL, NULL, NULL, &err),
                     SC_ERR_INVALID);
    ck_assert_int_eq(sc_graph_add_call(g, "None", "torch.ops.aten.t.default",
                                       0, NULL, 0, NULL, NULL, NULL, NULL,
                                       &err),
                     SC_ERR_INVALID);
    args[0] = sc_value_node(a);
    ck_assert_int_eq(sc_graph_add_call(g, "bad_arity",
                                       "torch.ops.aten.mm.default", 1, args,
                                       0, NULL, NULL, NULL, NULL, &err),
                     SC_ERR_TYPE); /* the op table's schema */
    ck_assert_msg(strstr(err.message, "mm") != NULL, "%s", err.message);
    args[1] = sc_value_float(2.5, NULL);
    ck_assert_int_eq(sc_graph_add_call(g, "bad_type",
                                       "torch.ops.aten.view.default", 2, args,
                                       0, NULL, NULL, NULL, NULL, &err),
                     SC_ERR_TYPE);
    ck_assert_str_eq(err.message, "view.default: argument 'size' must be "
                                  "SymInt[], not a float");
    ck_assert_int_eq(sc_graph_node_count(g), n);

    outs[0] = mm;
    outs[1] = SC_NODE_NONE;
    outs[2] = t;
    ck_assert_int_eq(sc_graph_set_outputs(g, 3, outs, 4, &err),
                     SC_ERR_INVALID);
    ck_assert_int_eq(sc_graph_set_outputs(g, 3, outs, 1, &err), SC_OK);
    ck_assert_int_eq(sc_graph_finish(g, &err), SC_OK);
    sc_graph_free(g);

    /* again, valid */
    g = sc_graph_new(ctx);
    ck_assert_int_eq(sc_graph_add_placeholder(g, "primals_1", SC_ROLE_PRIMAL,
                                              &r, &a, &err),
                     SC_OK);
    args[0] = sc_value_node(a);
    ck_assert_int_eq(sc_graph_add_call(g, NULL, "torch.ops.aten.t.default", 1,
                                       args, 0, NULL, NULL, NULL, &t, &err),
                     SC_OK);
    args[1] = sc_value_node(t);
    /* metadata that contradicts the op's shape rule is refused */
    n = sc_graph_node_count(g);
    ck_assert_int_eq(sc_graph_add_call(g, NULL, "torch.ops.aten.mm.default",
                                       2, args, 0, NULL, NULL, &r, &mm, &err),
                     SC_ERR_SHAPE);
    ck_assert_int_eq(sc_graph_node_count(g), n);
    ck_assert_int_eq(sc_graph_find(g, "mm"), SC_NODE_NONE);
    tensor_meta(ctx, &r2, dims2, 2, sz2);
    ck_assert_int_eq(sc_graph_add_call(g, NULL, "torch.ops.aten.mm.default",
                                       2, args, 0, NULL, NULL, &r2, &mm, &err),
                     SC_OK);
    ck_assert_int_eq(sc_graph_find(g, "mm"), mm);
    ck_assert_ptr_null(sc_graph_node_users(g, a, &n)); /* not finished */
    outs[0] = mm;
    ck_assert_int_eq(sc_graph_set_outputs(g, 1, outs, 1, &err), SC_OK);
    ck_assert_int_eq(sc_graph_finish(g, &err), SC_OK);
    users = sc_graph_node_users(g, a, &n);
    ck_assert_int_eq(n, 2); /* t and mm, each once */
    ck_assert_int_eq(users[0], t);
    ck_assert_int_eq(users[1], mm);
    ck_assert_int_eq(sc_graph_node_output_use_count(g, mm), 1);
    ck_assert_int_eq(sc_graph_write_text(g, NULL, &text, NULL, &err), SC_OK);
    ck_assert_str_eq(text,
                     "class forward_fn(torch.nn.Module):\n"
                     "    def forward(self, primals):\n"
                     "        primals_1: \"f32[4, 8][8, 1]cpu\"; \n"
                     "    \n"
                     "        primals_1, = fx_pytree.tree_flatten_spec("
                     "[primals], self._in_spec)\n"
                     "        # No stacktrace found for following nodes\n"
                     "        t: \"f32[8, 4][1, 8]cpu\" = "
                     "torch.ops.aten.t.default(primals_1)\n"
                     "        mm: \"f32[4, 4][4, 1]cpu\" = "
                     "torch.ops.aten.mm.default(primals_1, t);  "
                     "primals_1 = t = None\n"
                     "        return pytree.tree_unflatten([mm], "
                     "self._out_spec)\n"
                     "        \n");
    ck_assert_int_eq(read_str(ctx, text, &g2, &err), SC_OK);
    ck_assert_msg(sc_graph_equal(g, g2, 0, why, sizeof why), "%s", why);
    free(text);
    sc_graph_free(g2);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

/* sc_graph_equal reports the first difference. */
START_TEST(test_equal)
{
    sc_ctx *ctx = sc_ctx_new(), *ctx2 = sc_ctx_new();
    sc_graph *a = NULL, *b = NULL;
    sc_error err;
    char why[256];
    const char *t1 =
        "def forward(self, x: \"f32[s0, 4][4, 1]cpu\"):\n"
        "    y: \"f32[s0, 4][4, 1]cpu\" = torch.ops.aten.mul.Scalar(x, 0.5)\n"
        "    return (y,)\n";
    const char *t2 =
        "def forward(self, x: \"f32[s0, 4][4, 1]cpu\"):\n"
        "    y: \"f32[s0, 4][4, 1]cpu\" = torch.ops.aten.mul.Scalar(x, 0.50)\n"
        "    return (y,)\n";
    const char *t3 =
        "def forward(self, x: \"f32[s1, 4][4, 1]cpu\"):\n"
        "    y: \"f32[s1, 4][4, 1]cpu\" = torch.ops.aten.mul.Scalar(x, 0.5)\n"
        "    return (y,)\n";
    const char *t4 =
        "def forward(self, z: \"f32[s0, 4][4, 1]cpu\"):\n"
        "    w: \"f32[s0, 4][4, 1]cpu\" = torch.ops.aten.mul.Scalar(z, 0.5)\n"
        "    return (w,)\n";

    ck_assert_int_eq(read_str(ctx, t1, &a, &err), SC_OK);
    ck_assert_int_eq(read_str(ctx2, t1, &b, &err), SC_OK);
    ck_assert(sc_graph_equal(a, b, 0, why, sizeof why)); /* two contexts */
    sc_graph_free(b);
    ck_assert_int_eq(read_str(ctx, t2, &b, &err), SC_OK);
    ck_assert(!sc_graph_equal(a, b, 0, why, sizeof why));
    ck_assert_str_eq(why, "node 'y': argument 1 differs");
    sc_graph_free(b);
    ck_assert_int_eq(read_str(ctx2, t3, &b, &err), SC_OK);
    ck_assert(!sc_graph_equal(a, b, 0, why, sizeof why));
    ck_assert_str_eq(why, "node 'x': size 0 differs");
    sc_graph_free(b);
    ck_assert_int_eq(read_str(ctx, t4, &b, &err), SC_OK);
    ck_assert(!sc_graph_equal(a, b, 0, why, sizeof why));
    ck_assert_str_eq(why, "node 0: names 'x' and 'z'");
    ck_assert(sc_graph_equal(a, b, SC_GRAPH_EQUAL_IGNORE_NAMES, why,
                             sizeof why));
    sc_graph_free(b);
    sc_graph_free(a);
    sc_ctx_free(ctx);
    sc_ctx_free(ctx2);
}
END_TEST

/* ---- Reader: constructs ------------------------------------------------- */

/* Each snippet reads, writes, and reads back to an equal graph; `expect`
 * is the written text's body, checked where given. */
typedef struct construct_case {
    const char *name;
    const char *text;
    const char *expect; /* a substring of the written text, or NULL */
} construct_case;

static const construct_case constructs[] = {
    {"flat signature, quoted annotations",
     "class GraphModule(torch.nn.Module):\n"
     "    def forward(self, primals_1: \"f32[8, 16][16, 1]cpu\", tangents_1: "
     "\"f32[8, 16][16, 1]cpu\"):\n"
     "        mul: \"f32[8, 16][16, 1]cpu\" = torch.ops.aten.mul.Tensor("
     "primals_1, tangents_1)\n"
     "        return [None, mul]\n",
     "        mul: \"f32[8, 16][16, 1]cpu\" = torch.ops.aten.mul.Tensor("
     "primals_1, tangents_1);  primals_1 = tangents_1 = None\n"},
    {"flat signature over several lines, trailing comma",
     "def forward(self,\n"
     "            arg0_1: \"f32[3][1]cpu\",\n"
     "            arg1_1: \"f32[3][1]cpu\",\n"
     "            ):\n"
     "    add = torch.ops.aten.add.Tensor(arg0_1, arg1_1)\n"
     "    return (add,)\n",
     "    def forward(self, arg0_1: \"f32[3][1]cpu\", arg1_1: "
     "\"f32[3][1]cpu\"):\n"},
    {"older unquoted annotations",
     "class joint_helper(torch.nn.Module):\n"
     "    def forward(self, primals, tangents):\n"
     "        primals_1: f32[2, 4]; tangents_1: f32[2, 4]; \n"
     "        primals_1, tangents_1, = fx_pytree.tree_flatten_spec("
     "[primals, tangents], self._in_spec)\n"
     "        relu: f32[2, 4] = torch.ops.aten.relu.default(primals_1)\n"
     "        return [relu, tangents_1]\n",
     "relu: \"f32[2, 4]\" = torch.ops.aten.relu.default(primals_1)"},
    {"no declarations, unknown metadata",
     "class joint_fn(torch.nn.Module):\n"
     "    def forward(self, primals, tangents):\n"
     "        primals_1, tangents_1, = fx_pytree.tree_flatten_spec("
     "[primals, tangents], self._in_spec)\n"
     "        relu = torch.ops.aten.relu.default(primals_1)\n"
     "        return pytree.tree_unflatten([relu, tangents_1], "
     "self._out_spec)\n",
     "        relu = torch.ops.aten.relu.default(primals_1);  primals_1 = None\n"},
    {"every dtype code, devices, 0-d",
     "def forward(self, a: \"f64[2][1]cpu\", b: \"f16[2][1]cuda:0\", "
     "c: \"bf16[2][1]meta\", d: \"i64[2]\", e: \"i32[2]\", f: \"i16[2]\", "
     "g: \"i8[2]\", h: \"u8[2]\", i: \"b8[u0]\", j: \"c64[2]\", "
     "k: \"c128[2]\", l: \"f32[][]cpu\", m: \"u16[2]\", n: \"u32[2]\", "
     "o: \"u64[2]\", p: \"c32[2]\", q: \"f8e4m3fn[2]\", r: \"f8e5m2[2]\"):\n"
     "    return (a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r)\n",
     "b: \"f16[2][1]cuda:0\", c: \"bf16[2][1]meta\", d: \"i64[2]\", "},
    {"symbolic sizes as expressions",
     "def forward(self, x: \"f32[s0, 2*s1 + 1, (s0//8), Max(1, s1)][1, 1, 1, "
     "1]cpu\"):\n"
     "    return [x]\n",
     NULL},
    {"SymInt placeholders and infix arithmetic",
     "def forward(self, primals_1: \"Sym(s0)\", primals_2: "
     "\"f32[s0, s1][s1, 1]cpu\"):\n"
     "    sym_size: \"Sym(s1)\" = torch.ops.aten.sym_size.int(primals_2, 1)\n"
     "    mul: \"Sym(s0*s1)\" = primals_1 * sym_size\n"
     "    floordiv: \"Sym((s0//2))\" = primals_1 // 2\n"
     "    mod: \"Sym(Mod(s0, 2))\" = primals_1 % 2\n"
     "    add: \"Sym(s1 + 1)\" = sym_size + 1\n"
     "    sub: \"Sym(1 - s1)\" = 1 - sym_size\n"
     "    neg: \"Sym(-s1)\" = -sym_size\n"
     "    ge: \"Sym(s0 >= 2)\" = primals_1 >= 2\n"
     "    view: \"f32[s0*s1][1]cpu\" = torch.ops.aten.view.default(primals_2, "
     "[mul])\n"
     "    return [view, floordiv, mod, add, sub, neg, ge]\n",
     "    floordiv: \"Sym(s0//2)\" = primals_1 // 2\n"},
    {"getitem, both spellings, and tuples",
     "def forward(self, x: \"f32[6, 6][6, 1]cpu\"):\n"
     "    split = torch.ops.aten.split.Tensor(x, 2)\n"
     "    getitem: \"f32[2, 6][6, 1]cpu\" = split[0]\n"
     "    getitem_2: \"f32[2, 6][6, 1]cpu\" = operator.getitem(split, 2)\n"
     "    return (getitem, getitem_2)\n",
     "    getitem_2: \"f32[2, 6][6, 1]cpu\" = split[2];  split = None\n"},
    {"floats in Python repr, None, bools, strings",
     "def forward(self, x: \"f32[4][1]cpu\"):\n"
     "    a = torch.ops.aten.clamp.default(x, -inf, inf)\n"
     "    b = torch.ops.aten.add.Scalar(a, 1e-05)\n"
     "    c = torch.ops.aten.mul.Scalar(b, nan)\n"
     "    d = torch.ops.aten.gelu.default(c, approximate = 'tanh')\n"
     "    e = torch.ops.my.op.default(d, \"it's\", 'a\\\\b', -0.5, 1.5e+300, "
     "None, True, False, -7, 123456789012345678901234567890)\n"
     "    return [e]\n",
     "torch.ops.my.op.default(d, \"it's\", 'a\\\\b', -0.5, 1.5e+300, None, "
     "True, False, -7, 123456789012345678901234567890)"},
    {"dtypes, devices, layouts and memory formats as arguments",
     "def forward(self, x: \"f32[4][1]cpu\"):\n"
     "    z = torch.ops.aten.zeros.default([1, 4, 64], dtype = torch.float32, "
     "layout = torch.strided, device = device(type='cpu'), pin_memory = "
     "False)\n"
     "    e = torch.ops.aten.empty_like.default(x, dtype = torch.int64, "
     "device = device(type='cuda', index=1), memory_format = "
     "torch.channels_last)\n"
     "    f = torch.ops.aten.clone.default(x, memory_format = "
     "torch.contiguous_format)\n"
     "    return [z, e, f]\n",
     "device = device(type='cuda', index=1), memory_format = "
     "torch.channels_last)"},
    {"lists mixing names and ints, nested lists, tuples",
     "def forward(self, x: \"f32[s0, 4][4, 1]cpu\"):\n"
     "    sym_size = torch.ops.aten.sym_size.int(x, 0)\n"
     "    v = torch.ops.aten.view.default(x, [sym_size, 2, 2])\n"
     "    w = torch.ops.my.op.default([[1, 2], [v, None]], (x,), (), "
     "(1, 2))\n"
     "    return [w]\n",
     "torch.ops.my.op.default([[1, 2], [v, None]], (x,), (), (1, 2))"},
    {"return a tuple, a bare name, one-element tuple",
     "def forward(self, x: \"f32[4][1]cpu\"):\n"
     "    r = torch.ops.aten.relu.default(x)\n"
     "    return r\n",
     "        return (r,)\n"},
    {"comments, stack traces, blank lines, a trailer",
     "# a comment before the graph\n"
     "\n"
     "class joint_fn(torch.nn.Module):\n"
     "    def forward(self, primals, tangents):\n"
     "        primals_1: \"f32[4][1]cpu\"; tangents_1: \"f32[4][1]cpu\"; \n"
     "    \n"
     "        primals_1, tangents_1, = fx_pytree.tree_flatten_spec([primals, "
     "tangents], self._in_spec)\n"
     "        # File: model.py:12, code: return x.relu()\n"
     "        relu: \"f32[4][1]cpu\" = torch.ops.aten.relu.default(primals_1)"
     "  # trailing comment\n"
     "        \n"
     "        # No stacktrace found for following nodes\n"
     "        threshold_backward: \"f32[4][1]cpu\" = "
     "torch.ops.aten.threshold_backward.default(tangents_1, relu, 0);  "
     "tangents_1 = None\n"
     "        return pytree.tree_unflatten([relu, threshold_backward], "
     "self._out_spec)\n"
     "        \n"
     "# after the graph\n",
     NULL},
    {"TORCH_LOGS prefixes (python logging and glog)",
     "[2026-11-29 12:00:00,000] [0/0] torch._functorch.aot_autograd."
     "__aot_joint_graph: [INFO] TRACED GRAPH\n"
     "[2026-11-29 12:00:00,000] [0/0] torch._functorch.aot_autograd."
     "__aot_joint_graph: [INFO]  ===== Joint graph 0 =====\n"
     "[2026-11-29 12:00:00,000] [0/0] torch._functorch.aot_autograd."
     "__aot_joint_graph: [INFO]  <eval_with_key>.1 class joint_helper("
     "torch.nn.Module):\n"
     "V1129 12:00:00.000000 140 torch/_functorch/_aot_autograd/x.py:123] "
     "[0/0] [__aot_joint_graph]     def forward(self, primals, tangents):\n"
     "[rank0]:[2026-11-29 12:00:00,000] [0/0] a.b: [DEBUG]         "
     "primals_1: \"f32[4]\"; tangents_1: \"f32[4]\"; \n"
     "        primals_1, tangents_1, = fx_pytree.tree_flatten_spec([primals, "
     "tangents], self._in_spec)\n"
     "        relu: \"f32[4]\" = torch.ops.aten.relu.default(primals_1)\n"
     "        return [relu, tangents_1]\n",
     "class joint_helper(torch.nn.Module):\n"},
    {"hints and directives",
     "# symcut: hint s0=8 s1=64\n"
     "# symcut: params 2\n"
     "def forward(self, x: \"f32[s0, s1][s1, 1]cpu\", y: \"f32[u0][1]cpu\"):\n"
     "    # symcut: hint s2=3\n"
     "    return [x, y]\n",
     "# symcut: hint s0=8 s1=64 s2=3\n# symcut: params 2\nclass "},
    {"an unknown op is kept, opaque",
     "def forward(self, x: \"f32[4][1]cpu\"):\n"
     "    w: \"f32[4][1]cpu\" = torch.ops.mylib.fancy.default(x, 3)\n"
     "    v: \"f32[4][1]cpu\" = torch.ops.aten.not_an_op.default(w)\n"
     "    return [v]\n",
     NULL},
    {"forward signature without tangents",
     "class forward_fn(torch.nn.Module):\n"
     "    def forward(self, primals):\n"
     "        primals_1: \"f32[4][1]cpu\"; \n"
     "    \n"
     "        primals_1, = fx_pytree.tree_flatten_spec([primals], "
     "self._in_spec)\n"
     "        relu: \"f32[4][1]cpu\" = torch.ops.aten.relu.default(primals_1)"
     ";  primals_1 = None\n"
     "        return pytree.tree_unflatten([relu], self._out_spec)\n"
     "        \n",
     NULL},
    {"a value never used releases itself",
     "def forward(self, x: \"f32[4][1]cpu\"):\n"
     "    unused = torch.ops.aten.relu.default(x)\n"
     "    r = torch.ops.aten.neg.default(x)\n"
     "    return [r]\n",
     "    unused: \"f32[4][1]cpu\" = torch.ops.aten.relu.default(x);  "
     "unused = None\n"},
};
#define NCONSTRUCTS (sizeof constructs / sizeof constructs[0])

START_TEST(test_reader_constructs)
{
    const construct_case *c = &constructs[_i];
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = NULL, *g2 = NULL;
    sc_error err;
    char *text = NULL, why[256];

    ck_assert_msg(read_str(ctx, c->text, &g, &err) == SC_OK, "%s: %s",
                  c->name, format_error(&err));
    ck_assert_int_eq(sc_graph_write_text(g, NULL, &text, NULL, &err), SC_OK);
    if (c->expect)
        ck_assert_msg(strstr(text, c->expect) != NULL,
                      "%s: expected\n%s\nin\n%s", c->name, c->expect, text);
    ck_assert_msg(read_str(ctx, text, &g2, &err) == SC_OK, "%s: %s\n%s",
                  c->name, format_error(&err), text);
    ck_assert_msg(sc_graph_equal(g, g2, 0, why, sizeof why), "%s: %s",
                  c->name, why);
    free(text);
    sc_graph_free(g);
    sc_graph_free(g2);
    sc_ctx_free(ctx);
}
END_TEST

/* Details the round trip alone does not show. */
START_TEST(test_reader_details)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = NULL;
    sc_error err;
    const sc_value *v;
    sc_result r;
    sc_node_id id;
    int64_t h;
    sc_expr *syms[4];

    ck_assert_int_eq(read_str(ctx, constructs[8].text, &g, &err), SC_OK);
    v = sc_graph_node_arg(g, sc_graph_find(g, "a"), 1);
    ck_assert_int_eq(v->kind, SC_VALUE_FLOAT);
    ck_assert(v->u.f.value < 0 && v->u.f.value * 0 != 0); /* -inf */
    ck_assert_str_eq(v->u.f.repr, "-inf");
    v = sc_graph_node_arg(g, sc_graph_find(g, "b"), 1);
    ck_assert(v->u.f.value == 1e-05);
    id = sc_graph_find(g, "d");
    ck_assert_int_eq(sc_graph_node_positional_count(g, id), 1);
    ck_assert_str_eq(sc_graph_node_kwname(g, id, 1), "approximate");
    ck_assert_str_eq(sc_graph_node_arg(g, id, 1)->u.str, "tanh");
    id = sc_graph_find(g, "e");
    ck_assert_str_eq(sc_graph_node_arg(g, id, 1)->u.str, "it's");
    ck_assert_str_eq(sc_graph_node_arg(g, id, 2)->u.str, "a\\b");
    ck_assert_int_eq(sc_graph_node_arg(g, id, 8)->u.i, -7);
    ck_assert_int_eq(sc_graph_node_arg(g, id, 9)->kind, SC_VALUE_SYMINT);
    ck_assert_int_eq(sc_graph_warning_count(g), 1);
    ck_assert_str_eq(sc_graph_warning(g, 0),
                     "1 op not in the op table, kept as opaque nodes: "
                     "my.op.default");
    sc_graph_free(g);

    /* tuples from getitem */
    ck_assert_int_eq(read_str(ctx, constructs[7].text, &g, &err), SC_OK);
    sc_graph_node_result(g, sc_graph_find(g, "split"), &r);
    ck_assert_int_eq(r.kind, SC_RESULT_TUPLE);
    ck_assert_int_eq(r.count, 3);
    ck_assert_str_eq(sc_graph_node_target(g, sc_graph_find(g, "getitem_2")),
                     "operator.getitem");
    sc_graph_free(g);

    /* hints, unbacked symbols, directives */
    ck_assert_int_eq(read_str(ctx, constructs[14].text, &g, &err), SC_OK);
    ck_assert_int_eq(sc_graph_symbols(g, syms, 4), 4);
    ck_assert(sc_graph_get_hint(g, sc_expr_symbol(ctx, "s1"), &h));
    ck_assert_int_eq(h, 64);
    ck_assert(!sc_graph_get_hint(g, sc_expr_symbol(ctx, "u0"), &h));
    ck_assert(sc_env_is_backed(sc_graph_env(g), sc_expr_symbol(ctx, "s0")));
    ck_assert(!sc_env_is_backed(sc_graph_env(g), sc_expr_symbol(ctx, "u0")));
    ck_assert(sc_env_is_size_like(sc_graph_env(g), sc_expr_symbol(ctx, "u0")));
    ck_assert_str_eq(sc_graph_directive(g, "params"), "2");
    ck_assert_ptr_null(sc_graph_directive(g, "other"));
    sc_graph_free(g);

    /* unknown ops: one warning listing each once */
    ck_assert_int_eq(read_str(ctx, constructs[15].text, &g, &err), SC_OK);
    ck_assert_int_eq(sc_graph_warning_count(g), 1);
    ck_assert_str_eq(sc_graph_warning(g, 0),
                     "2 ops not in the op table, kept as opaque nodes: "
                     "mylib.fancy.default, aten.not_an_op.default");
    sc_graph_node_result(g, sc_graph_find(g, "v"), &r);
    ck_assert_int_eq(r.kind, SC_RESULT_TENSOR);
    sc_graph_free(g);

    /* roles and num_fwd_outputs */
    ck_assert_int_eq(read_str(ctx, constructs[0].text, &g, &err), SC_OK);
    ck_assert_int_eq(sc_graph_node_role(g, 0), SC_ROLE_PRIMAL);
    ck_assert_int_eq(sc_graph_node_role(g, 1), SC_ROLE_TANGENT);
    ck_assert_int_eq(sc_graph_fwd_output_count(g), 1);
    ck_assert_int_eq(sc_graph_node_line(g, 2), 3);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

START_TEST(test_reader_options)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = NULL;
    sc_error err;
    sc_graph_read_options opts;
    const char *text =
        "def forward(self, primals_1: \"f32[4][1]cpu\", tangents_1: "
        "\"f32[4][1]cpu\"):\n"
        "    return [primals_1, tangents_1, None]\n";
    const char *live =
        "def forward(self, x: \"f32[4][1]cpu\"):\n"
        "    a = torch.ops.aten.relu.default(x);  x = None\n"
        "    b = torch.ops.aten.relu.default(x)\n"
        "    return [a, b]\n";

    sc_graph_read_options_init(&opts);
    opts.num_fwd_outputs = 3;
    ck_assert_int_eq(sc_graph_read_text(ctx, text, strlen(text), "t.py",
                                        &opts, &g, &err),
                     SC_OK);
    ck_assert_int_eq(sc_graph_fwd_output_count(g), 3);
    sc_graph_free(g);
    opts.num_fwd_outputs = 4;
    ck_assert_int_eq(sc_graph_read_text(ctx, text, strlen(text), "t.py",
                                        &opts, &g, &err),
                     SC_ERR_PARSE);
    ck_assert_ptr_null(g);
    ck_assert_str_eq(format_error(&err),
                     "t.py:2:5: 4 forward outputs requested, but the graph "
                     "returns 3 values");
    opts.num_fwd_outputs = -1;
    ck_assert_int_eq(sc_graph_read_text(ctx, live, strlen(live), "t.py",
                                        &opts, &g, &err),
                     SC_ERR_PARSE);
    opts.flags = SC_GRAPH_READ_NO_LIVENESS_CHECK;
    ck_assert_int_eq(sc_graph_read_text(ctx, live, strlen(live), "t.py",
                                        &opts, &g, &err),
                     SC_OK);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

/* ---- Reader: errors ----------------------------------------------------- */

typedef struct error_case {
    const char *text;
    const char *message; /* sc_error_format's text */
} error_case;

#define HDR "def forward(self, x: \"f32[4][1]cpu\"):\n"

static const error_case errors[] = {
    {"", "t.py:1:1: no graph found (expected 'class NAME(torch.nn.Module):' "
         "or 'def forward(...):')"},
    {"hello world\n",
     "t.py:1:1: expected 'class NAME(torch.nn.Module):' or 'def "
     "forward(...):' to start the graph"},
    {"class G(torch.nn.Module):\n",
     "t.py:2:1: expected 'def', found the end of the file"},
    {"class G(torch.nn.Module):\n    def forward(self, primals, tangents):\n"
     "        primals_1: \"f32[4][1]cpu\"; \n",
     "t.py:4:1: unexpected end of file (expected a 'return' statement)"},
    {HDR "    y: \"f32[4][1]cpu\" = torch.ops.aten.relu.default(x\n",
     "t.py:3:1: expected ',' or ')', found the end of the file"},
    {HDR "    y: \"x32[4][1]cpu\" = torch.ops.aten.relu.default(x)\n",
     "t.py:2:9: unknown dtype code 'x32'"},
    {HDR "    y: \"f32[4][1]gpu\" = torch.ops.aten.relu.default(x)\n",
     "t.py:2:18: unknown device 'gpu' in annotation"},
    {HDR "    y: \"f32[4, 2][1]cpu\" = torch.ops.aten.relu.default(x)\n",
     "t.py:2:9: 2 sizes but 1 strides"},
    {HDR "    y: \"f32[4 +][1]cpu\" = torch.ops.aten.relu.default(x)\n",
     NULL /* the symint parser's message, located in the annotation */},
    {HDR "    y: \"f32[4,][1]cpu\" = torch.ops.aten.relu.default(x)\n",
     "t.py:2:15: expected a size expression"},
    {HDR "    y: \"f32[4\" = torch.ops.aten.relu.default(x)\n",
     "t.py:2:14: expected ']' to close the list of sizes"},
    {HDR "    y: \"Sym(s0\" = torch.ops.aten.relu.default(x)\n",
     "t.py:2:14: expected ')' to close 'Sym('"},
    {HDR "    y = torch.ops.aten.relu.default(z)\n    return [y]\n",
     "t.py:2:37: undefined name 'z'"},
    {HDR "    y = torch.ops.aten.relu.default(z)\n"
         "    z = torch.ops.aten.relu.default(y)\n    return [y]\n",
     "t.py:2:37: 'z' is used before its definition at line 3"},
    {HDR "    y = torch.ops.aten.relu.default(x)\n"
         "    y = torch.ops.aten.relu.default(x)\n    return [y]\n",
     "t.py:3:5: duplicate definition of 'y' (first defined at line 2)"},
    {"def forward(self, x: \"f32[4]\", x: \"f32[4]\"):\n    return [x]\n",
     "t.py:1:32: duplicate definition of 'x'"},
    {HDR "    y = torch.ops.aten.mm.default(x)\n    return [y]\n",
     NULL /* arity: the op table's binder names the missing argument */},
    {HDR "    y = torch.ops.aten.relu.default(x, bogus = 1)\n    return [y]\n",
     NULL /* an unknown keyword */},
    {HDR "    y = torch.ops.aten.relu.default(x, x)\n    return [y]\n", NULL},
    {HDR "    y = torch.ops.aten.view.default(x, x)\n    return [y]\n",
     "t.py:2:5: view.default: argument 'size' must be SymInt[], not a "
     "Tensor"},
    {HDR "    y = torch.ops.aten.relu.default(x);  x = None\n"
         "    z = torch.ops.aten.relu.default(x)\n    return [y, z]\n",
     "t.py:3:37: 'x' is used after line 2 released it ('x = None')"},
    {HDR "    y = torch.ops.aten.relu.default(x);  q = None\n    return [y]\n",
     "t.py:2:42: undefined name 'q' in a '= None' suffix"},
    {HDR "    y = $\n", "t.py:2:9: unexpected character '$'"},
    {HDR "    y = torch.ops.aten.relu.default('abc)\n",
     "t.py:2:37: unterminated string (expected ' before the end of the "
     "line)"},
    {HDR "    y = torch.ops.aten.relu.default(12ab)\n",
     "t.py:2:37: malformed number '12a'"},
    {HDR "    y = x[\"a\"]\n", "t.py:2:11: expected an integer index, found "
                               "'\"a\"'"},
    {HDR "    y = x\n", "t.py:2:10: expected a call, an index or an operator, "
                        "found the end of the line"},
    {HDR "    y = torch.ops.aten\n",
     "t.py:2:9: expected a call after the dotted name 'torch.ops.aten'"},
    {HDR "    return [x, 3]\n",
     "t.py:2:16: expected a node name or None in the output list, found '3'"},
    {HDR "    return [x]\n    junk here\n",
     "t.py:3:5: unexpected text after the return statement"},
    {HDR "    y = torch.ops.aten.relu.default(x, [[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
         "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"
         "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]])\n",
     "t.py:2:104: lists nested deeper than 64"},
    {HDR "    y = torch.ops.aten.relu.default(x, dtype = torch.float99)\n",
     "t.py:2:54: unknown dtype, layout or memory format 'torch.float99'"},
    {HDR "    y = torch.ops.aten.zeros.default([1], device = device(type="
         "'tpu'))\n",
     "t.py:2:64: unknown device type 'tpu'"},
    {"class joint_fn(torch.nn.Module):\n"
     "    def forward(self, primals, tangents):\n"
     "        primals_1: \"f32[4][1]cpu\"; tangents_1: \"f32[4][1]cpu\"; \n"
     "        tangents_1, primals_1, = fx_pytree.tree_flatten_spec([primals, "
     "tangents], self._in_spec)\n",
     "t.py:4:9: 'tangents_1' is declared at another position on the "
     "declaration line"},
    {"# symcut: hint s0=x\n" HDR "    return [x]\n",
     "t.py:1:19: expected a non-negative integer hint"},
    {"# symcut: hint 8\n" HDR "    return [x]\n",
     "t.py:1:16: expected 'SYMBOL=VALUE' in a hint directive"},
    {HDR "    y = torch.ops.aten.relu.default(x)\n    return [y]\nclass "
         "Other(torch.nn.Module):\n",
     "t.py:4:1: this text holds 2 graphs; choose one with --graph: 0 "
     "(graph, line 1), "
     "1 (Other, line 4)"},
};
#define NERRORS (sizeof errors / sizeof errors[0])

START_TEST(test_reader_errors)
{
    const error_case *c = &errors[_i];
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = (sc_graph *)&g; /* must be reset to NULL */
    sc_error err;
    sc_status st;

    st = read_str(ctx, c->text, &g, &err);
    ck_assert_msg(st != SC_OK, "case %d read", _i);
    ck_assert_ptr_null(g);
    ck_assert_str_eq(err.file, "t.py");
    ck_assert_int_gt(err.line, 0);
    ck_assert_int_gt(err.column, 0);
    if (c->message)
        ck_assert_str_eq(format_error(&err), c->message);
    sc_ctx_free(ctx);
}
END_TEST

/* Errors whose text comes from other parts: located, and the right code. */
START_TEST(test_reader_error_codes)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = NULL;
    sc_error err;

    ck_assert_int_eq(read_str(ctx, errors[8].text, &g, &err), SC_ERR_PARSE);
    ck_assert_int_eq(err.line, 2);
    ck_assert_int_ge(err.column, 14);
    ck_assert_int_eq(read_str(ctx, errors[16].text, &g, &err), SC_ERR_TYPE);
    ck_assert_int_eq(err.line, 2);
    ck_assert_int_eq(err.column, 5);
    ck_assert_msg(strstr(err.message, "mm") != NULL, "%s", err.message);
    ck_assert_int_eq(read_str(ctx, errors[17].text, &g, &err), SC_ERR_TYPE);
    ck_assert_msg(strstr(err.message, "bogus") != NULL, "%s", err.message);
    ck_assert_int_eq(read_str(ctx, errors[18].text, &g, &err), SC_ERR_TYPE);
    ck_assert_int_eq(read_str(ctx,
                              HDR "    y = torch.ops.aten.relu.default(1.5)\n"
                                  "    return [y]\n",
                              &g, &err),
                     SC_OK);
    sc_graph_free(g); /* a float for a Tensor: a wrapped scalar */
    ck_assert_int_eq(sc_graph_read_text(ctx, "def forward(self):\0", 19,
                                        "t.py", NULL, &g, &err),
                     SC_ERR_PARSE);
    ck_assert_str_eq(format_error(&err), "t.py:1:19: NUL byte in the text");
    sc_ctx_free(ctx);
}
END_TEST

/* ---- Robustness --------------------------------------------------------- */

/* Mutated examples never crash the reader: each mutation reads, or fails
 * with a located error. */
START_TEST(test_reader_mutations)
{
    static const char *const files[] = {
        "lm_head_ce.joint.txt", "fn_mm_gelu_sum_dyn.joint.txt",
        "small_cnn.joint.txt", "mlp_gelu.joint.torch_logs.txt"};
    sc_test_rng rng;
    uint64_t seed = sc_test_seed();
    long cases = sc_test_cases(400), k;
    sc_ctx *ctx = sc_ctx_new();
    char *origs[4], *buf;
    size_t lens[4], maxlen = 0, f;
    static const char alphabet[] = "()[],:;=.-+*/\"'# \nx0aN_\\";

    for (f = 0; f < 4; f++) {
        char *path = examples_path(files[f]);
        origs[f] = slurp(path, &lens[f]);
        if (lens[f] > maxlen)
            maxlen = lens[f];
        free(path);
    }
    buf = malloc(maxlen + 1);
    ck_assert_ptr_nonnull(buf);
    sc_test_rng_init(&rng, seed ^ 0x6772617068ull);
    for (k = 0; k < cases; k++) {
        size_t which = sc_test_rng_below(&rng, 4), n = lens[which], m, i;
        sc_graph *g = NULL;
        sc_error err;
        sc_status st;
        memcpy(buf, origs[which], n);
        m = 1 + sc_test_rng_below(&rng, 4);
        for (i = 0; i < m && n > 0; i++) {
            size_t at = sc_test_rng_below(&rng, n);
            switch (sc_test_rng_below(&rng, 3)) {
            case 0: /* replace */
                buf[at] = alphabet[sc_test_rng_below(&rng, sizeof alphabet - 1)];
                break;
            case 1: /* truncate */
                n = at;
                break;
            default: /* delete a byte */
                memmove(buf + at, buf + at + 1, n - at - 1);
                n--;
                break;
            }
        }
        st = sc_graph_read_text(ctx, buf, n, "m.py", NULL, &g, &err);
        if (st == SC_OK) {
            char *text = NULL;
            ck_assert_int_eq(sc_graph_write_text(g, NULL, &text, NULL, &err),
                             SC_OK);
            free(text);
            sc_graph_free(g);
        } else {
            ck_assert_msg(err.line > 0, "seed %llu case %ld (%s): no "
                                        "location: %s",
                          (unsigned long long)seed, k, files[which],
                          err.message);
        }
    }
    free(buf);
    for (f = 0; f < 4; f++)
        free(origs[f]);
    sc_ctx_free(ctx);
}
END_TEST

/* Out of memory at every allocation while reading and writing: an error,
 * never a crash or a leak.  (A graph without symbols: the shape
 * environment does not yet survive GMP exhaustion.) */
START_TEST(test_reader_nomem)
{
    sc_ctx *ctx = sc_ctx_new();
    char *path = examples_path("lm_head_ce.joint.txt"), *orig;
    size_t len;
    long n;
    bool done = false;

    orig = slurp(path, &len);
    for (n = 0; n < 100000 && !done; n++) {
        sc_graph *g = NULL;
        sc_error err;
        sc_status st;
        char *text = NULL;
        sc__alloc_fail_after(n);
        st = sc_graph_read_text(ctx, orig, len, "f.py", NULL, &g, &err);
        if (st == SC_OK) {
            st = sc_graph_write_text(g, NULL, &text, NULL, &err);
            free(text);
            text = NULL;
            if (st == SC_OK)
                st = sc_graph_write_dot(g, NULL, &text, NULL, &err);
            if (st == SC_OK)
                done = true;
            free(text);
            sc_graph_free(g);
        }
        sc__alloc_fail_after(-1);
        if (st != SC_OK)
            ck_assert_msg(err.code == SC_ERR_NOMEM || sc_ctx_error(ctx)->code,
                          "after %ld allocations: %s", n, err.message);
        sc_ctx_take_error(ctx, NULL);
    }
    ck_assert(done);
    free(orig);
    free(path);
    sc_ctx_free(ctx);
}
END_TEST

/* ---- DOT ----------------------------------------------------------------- */

static const char *color_mm(const sc_graph *g, sc_node_id id, void *user)
{
    const char *t = sc_graph_node_target(g, id);
    (void)user;
    return t && strstr(t, ".mm.") ? "red" : NULL;
}

START_TEST(test_dot)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = NULL;
    sc_error err;
    char *path = examples_path("mlp_gelu.joint.txt"), *dot = NULL;
    sc_graph_dot_options opts;
    size_t len;

    ck_assert_int_eq(sc_graph_read_file(ctx, path, NULL, &g, &err), SC_OK);
    ck_assert_int_eq(sc_graph_write_dot(g, NULL, &dot, &len, &err), SC_OK);
    ck_assert_int_eq(strlen(dot), len);
    ck_assert(strncmp(dot, "digraph \"joint_fn\" {\n", 21) == 0);
    ck_assert_ptr_nonnull(
        strstr(dot, "  n6 [label=\"t\\naten.t.default\\nf32[64, 256]\"];\n"));
    ck_assert_ptr_nonnull(strstr(dot, "  n0 -> n6;\n"));
    ck_assert_ptr_nonnull(
        strstr(dot, "  n10 -> output [label=\"0\", style=bold];\n"));
    ck_assert_ptr_nonnull(strstr(dot, "fillcolor=\"#f8d7da\"")); /* tangent */
    ck_assert(strcmp(dot + len - 2, "}\n") == 0);
    /* a small graph keeps Graphviz's default layout effort */
    ck_assert_ptr_null(strstr(dot, "nslimit"));
    free(dot);
    sc_graph_dot_options_init(&opts);
    opts.color = color_mm;
    opts.title = "my \"graph\"";
    ck_assert_int_eq(sc_graph_write_dot(g, &opts, &dot, NULL, &err), SC_OK);
    ck_assert_ptr_nonnull(strstr(dot, "digraph \"my \\\"graph\\\"\" {"));
    ck_assert_ptr_nonnull(
        strstr(dot, "  n12 [label=\"mm\\naten.mm.default\\nf32[32, 256]\", "
                    "fillcolor=\"red\"];\n"));
    free(dot);
    free(path);
    sc_graph_free(g);
    /* a big one (lstm_module's joint, 500-odd nodes) bounds it */
    path = examples_path("lstm_module.joint.txt");
    ck_assert_int_eq(sc_graph_read_file(ctx, path, NULL, &g, &err), SC_OK);
    ck_assert_uint_gt(sc_graph_node_count(g), 300);
    ck_assert_int_eq(sc_graph_write_dot(g, NULL, &dot, NULL, &err), SC_OK);
    ck_assert_ptr_nonnull(
        strstr(dot, "  nslimit=2;\n  nslimit1=2;\n  mclimit=0.1;\n"));
    free(dot);
    /* the neighbourhood of mm: mm, its two arguments and its one user at
     * depth 1, named in the legend; nothing else drawn */
    sc_graph_dot_options_init(&opts);
    opts.around = sc_graph_find(g, "mm");
    opts.around_depth = 1;
    ck_assert_int_ge(opts.around, 0);
    ck_assert_int_eq(sc_graph_write_dot(g, &opts, &dot, &len, &err), SC_OK);
    ck_assert_ptr_nonnull(strstr(dot, "the 4 of "));
    ck_assert_ptr_nonnull(strstr(dot, " nodes at most 1 edge from mm<"));
    ck_assert_ptr_nonnull(strstr(dot, "\\naten.mm.default\\n"));
    ck_assert_ptr_null(strstr(dot, "aten.tanh"));
    ck_assert_ptr_null(strstr(dot, "nslimit"));
    free(dot);
    opts.around = (sc_node_id)sc_graph_node_count(g);
    ck_assert_int_eq(sc_graph_write_dot(g, &opts, &dot, &len, &err),
                     SC_ERR_INVALID);
    ck_assert_ptr_null(dot);
    ck_assert_ptr_nonnull(strstr(err.message, "around node"));
    free(path);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

/* ---- Types ---------------------------------------------------------------- */

START_TEST(test_types)
{
    sc_dtype d;
    sc_device_type dt;
    int i;

    for (i = 0; i < SC_DTYPE_COUNT_; i++) {
        const char *code = sc_dtype_code((sc_dtype)i);
        const char *name = sc_dtype_torch_name((sc_dtype)i);
        ck_assert(sc_dtype_from_code(code, strlen(code), &d));
        ck_assert_int_eq(d, i);
        ck_assert(sc_dtype_from_torch_name(name, strlen(name), &d));
        ck_assert_int_eq(d, i);
        ck_assert_int_gt(sc_dtype_itemsize((sc_dtype)i), 0);
    }
    ck_assert(sc_dtype_from_torch_name("long", 4, &d));
    ck_assert_int_eq(d, SC_DTYPE_I64);
    ck_assert(sc_dtype_from_torch_name("half", 4, &d));
    ck_assert_int_eq(d, SC_DTYPE_F16);
    ck_assert(!sc_dtype_from_code("f3", 2, &d));
    ck_assert(!sc_dtype_from_code("f32x", 4, &d));
    ck_assert_int_eq(sc_dtype_itemsize(SC_DTYPE_C128), 16);
    ck_assert_int_eq(sc_dtype_kind(SC_DTYPE_B8), 'b');
    ck_assert_ptr_null(sc_dtype_code(SC_DTYPE_COUNT_));
    ck_assert(sc_device_type_from_name("cuda", 4, &dt));
    ck_assert_int_eq(dt, SC_DEVICE_CUDA);
    ck_assert_str_eq(sc_layout_name(SC_LAYOUT_STRIDED), "strided");
    ck_assert_str_eq(sc_memory_format_name(SC_MEMORY_FORMAT_CHANNELS_LAST),
                     "channels_last");
}
END_TEST

/* ---- Bulk building (sc__graph_reserve, interning, trusted copies) ------ */

START_TEST(test_reserve)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = sc_graph_new(ctx);
    sc_error err;
    sc_result r;
    sc_expr *dims[4];
    int64_t sz[2] = {2, 3};
    sc_value arg;
    sc_node_id id, prev;
    const sc__node *nodes;
    size_t cap, name_cap, i;
    char name[32];

    tensor_meta(ctx, &r, dims, 2, sz);
    ck_assert_int_eq(sc__graph_reserve(g, 1000, &err), SC_OK);
    ck_assert_uint_ge(g->cap, 1000);
    ck_assert_uint_ge(g->name_cap, 2000);
    ck_assert_uint_eq(g->name_cap & (g->name_cap - 1), 0);
    ck_assert_uint_eq(sc_graph_node_count(g), 0);
    nodes = g->nodes;
    cap = g->cap;
    name_cap = g->name_cap;
    /* a smaller reservation never shrinks */
    ck_assert_int_eq(sc__graph_reserve(g, 10, &err), SC_OK);
    ck_assert_uint_eq(g->cap, cap);
    ck_assert_uint_eq(g->name_cap, name_cap);
    /* beyond the node limit: an error, nothing changed */
    ck_assert_int_eq(sc__graph_reserve(g, (size_t)INT32_MAX, &err),
                     SC_ERR_LIMIT);
    ck_assert_uint_eq(g->cap, cap);
    ck_assert_ptr_eq(g->nodes, nodes);
    ck_assert_int_eq(sc_graph_add_placeholder(g, "x", SC_ROLE_PRIMAL, &r,
                                              &prev, &err),
                     SC_OK);
    for (i = 1; i < 1000; i++) {
        snprintf(name, sizeof name, "n%zu", i);
        arg = sc_value_node(prev);
        ck_assert_int_eq(sc_graph_add_call(g, name,
                                           "torch.ops.aten.relu.default", 1,
                                           &arg, 0, NULL, NULL, NULL, &id,
                                           &err),
                         SC_OK);
        prev = id;
    }
    /* 1000 nodes appended without reallocating anything */
    ck_assert_ptr_eq(g->nodes, nodes);
    ck_assert_uint_eq(g->cap, cap);
    ck_assert_uint_eq(g->name_cap, name_cap);
    for (i = 1; i < 1000; i++) {
        snprintf(name, sizeof name, "n%zu", i);
        ck_assert_int_eq(sc_graph_find(g, name), (sc_node_id)i);
    }
    ck_assert_int_eq(sc_graph_find(g, "x"), 0);
    ck_assert_int_eq(sc_graph_find(g, "n1000"), SC_NODE_NONE);
    /* growing a used table keeps every name */
    ck_assert_int_eq(sc__graph_reserve(g, 5000, &err), SC_OK);
    ck_assert_uint_ge(g->name_cap, 10000);
    for (i = 1; i < 1000; i++) {
        snprintf(name, sizeof name, "n%zu", i);
        ck_assert_int_eq(sc_graph_find(g, name), (sc_node_id)i);
    }
    /* names are still checked after a reservation */
    arg = sc_value_node(prev);
    ck_assert_int_eq(sc_graph_add_call(g, "n5", "torch.ops.aten.relu.default",
                                       1, &arg, 0, NULL, NULL, NULL, &id,
                                       &err),
                     SC_ERR_INVALID);
    ck_assert_int_eq(sc_graph_add_call(g, "lambda",
                                       "torch.ops.aten.relu.default", 1, &arg,
                                       0, NULL, NULL, NULL, &id, &err),
                     SC_ERR_INVALID);
    ck_assert_uint_eq(sc_graph_node_count(g), 1000);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

/* The name table with names of every shape its hash tells apart (base_N
 * in runs, leading zeros, long numbers, no underscore, underscores only):
 * each found, the absent ones not, a refused node's name freed. */
START_TEST(test_name_shapes)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = sc_graph_new(ctx);
    sc_error err;
    sc_result r, bad;
    sc_expr *dims[4], *bdims[4];
    int64_t sz[2] = {2, 3}, bsz[2] = {3, 2};
    sc_value arg;
    sc_node_id id, prev;
    size_t i, k, n = 0;
    char name[64];
    static const char *const fixed[] = {
        "t", "t_01", "t_0", "t_1234567890", "t_12345678901234567890",
        "n5", "_1", "a__3", "a_", "__", "mm_7", "mm_8", "x_y_9",
    };
    static const char *const absent[] = {
        "t_00", "t_12345678", "n_5", "_2", "a__4", "mm_9", "x_y", "y",
    };

    tensor_meta(ctx, &r, dims, 2, sz);
    tensor_meta(ctx, &bad, bdims, 2, bsz);
    ck_assert_int_eq(sc_graph_add_placeholder(g, "x", SC_ROLE_PRIMAL, &r,
                                              &prev, &err),
                     SC_OK);
    n++;
    for (i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        arg = sc_value_node(prev);
        ck_assert_int_eq(sc_graph_add_call(g, fixed[i],
                                           "torch.ops.aten.relu.default", 1,
                                           &arg, 0, NULL, NULL, NULL, &prev,
                                           &err),
                         SC_OK);
        n++;
    }
    /* runs of base_N of a few bases, interleaved (they share lines of
     * the table), through several resizes */
    for (i = 1; i <= 3000; i++)
        for (k = 0; k < 3; k++) {
            snprintf(name, sizeof name, "%s_%zu",
                     k == 0 ? "relu" : k == 1 ? "threshold_backward" : "t",
                     i);
            arg = sc_value_node(prev);
            ck_assert_int_eq(sc_graph_add_call(g, name,
                                               "torch.ops.aten.relu.default",
                                               1, &arg, 0, NULL, NULL, NULL,
                                               &id, &err),
                             SC_OK);
            ck_assert_int_eq(id, (sc_node_id)n);
            prev = id;
            n++;
        }
    ck_assert_int_eq(sc_graph_find(g, "x"), 0);
    for (i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        ck_assert_int_eq(sc_graph_find(g, fixed[i]), (sc_node_id)(i + 1));
    for (i = 1; i <= 3000; i++)
        for (k = 0; k < 3; k++) {
            snprintf(name, sizeof name, "%s_%zu",
                     k == 0 ? "relu" : k == 1 ? "threshold_backward" : "t",
                     i);
            ck_assert_int_eq(sc_graph_find(g, name),
                             (sc_node_id)(1 + sizeof fixed / sizeof fixed[0] +
                                          3 * (i - 1) + k));
        }
    for (i = 0; i < sizeof absent / sizeof absent[0]; i++)
        ck_assert_int_eq(sc_graph_find(g, absent[i]), SC_NODE_NONE);
    ck_assert_int_eq(sc_graph_find(g, "relu_3001"), SC_NODE_NONE);
    /* a node refused by its shape rule leaves no name behind */
    arg = sc_value_node(prev);
    ck_assert_int_eq(sc_graph_add_call(g, "relu_3001",
                                       "torch.ops.aten.relu.default", 1, &arg,
                                       0, NULL, NULL, &bad, &id, &err),
                     SC_ERR_SHAPE);
    ck_assert_int_eq(sc_graph_find(g, "relu_3001"), SC_NODE_NONE);
    ck_assert_uint_eq(sc_graph_node_count(g), n);
    ck_assert_int_eq(sc_graph_add_call(g, "relu_3001",
                                       "torch.ops.aten.relu.default", 1, &arg,
                                       0, NULL, NULL, &r, &id, &err),
                     SC_OK);
    ck_assert_int_eq(sc_graph_find(g, "relu_3001"), (sc_node_id)n);
    for (i = 1; i <= 3000; i += 97) {
        snprintf(name, sizeof name, "t_%zu", i);
        ck_assert_int_eq(sc_graph_find(g, name),
                         (sc_node_id)(1 + sizeof fixed / sizeof fixed[0] +
                                      3 * (i - 1) + 2));
    }
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

/* Reserved words are refused whatever their first letter; look-alikes are
 * accepted. */
START_TEST(test_reserved_names)
{
    static const char *const bad[] = {
        "None", "True", "False", "and", "or", "not", "if", "else", "elif",
        "for", "while", "in", "is", "lambda", "return", "class", "def",
        "del", "pass", "import", "from", "as", "with", "yield", "global",
        "nonlocal", "assert", "raise", "try", "except", "finally", "break",
        "continue", "async", "await", "inf", "nan", "self", "torch",
        "operator", "device", "pytree", "fx_pytree",
    };
    static const char *const good[] = {
        "x", "a", "N", "None_", "ass", "torch_1", "selfx", "i", "Tru",
        "mm", "device_1", "zeta", "_and",
    };
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = sc_graph_new(ctx);
    sc_error err;
    size_t i;

    for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(sc_graph_add_placeholder(g, bad[i], SC_ROLE_PRIMAL,
                                               NULL, NULL, &err) ==
                          SC_ERR_INVALID,
                      "%s accepted", bad[i]);
    for (i = 0; i < sizeof good / sizeof good[0]; i++)
        ck_assert_msg(sc_graph_add_placeholder(g, good[i], SC_ROLE_PRIMAL,
                                               NULL, NULL, &err) == SC_OK,
                      "%s refused", good[i]);
    ck_assert_uint_eq(sc_graph_node_count(g), sizeof good / sizeof good[0]);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

/* Many distinct targets: each interned once (equal strings, one pointer),
 * with its op id. */
START_TEST(test_many_targets)
{
    enum { NT = 300 };
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = sc_graph_new(ctx), *g2 = NULL;
    sc_error err;
    sc_value arg;
    sc_node_id x, id, ids[2 * NT + 1];
    char target[64], *text = NULL, why[128];
    const char *first[NT];
    size_t i, k;

    ck_assert_int_eq(sc_graph_add_placeholder(g, "x", SC_ROLE_PRIMAL, NULL,
                                              &x, &err),
                     SC_OK);
    arg = sc_value_node(x);
    for (k = 0; k < 2; k++)
        for (i = 0; i < NT; i++) {
            snprintf(target, sizeof target, "mylib.op_%zu", i);
            ck_assert_int_eq(sc_graph_add_call(g, NULL, target, 1, &arg, 0,
                                               NULL, NULL, NULL, &id, &err),
                             SC_OK);
            ids[k * NT + i] = id;
            ck_assert_str_eq(sc_graph_node_target(g, id), target);
            ck_assert_int_eq(sc__graph_node_op(g, id), SC_OP_UNKNOWN);
            if (k == 0)
                first[i] = sc_graph_node_target(g, id);
            else
                ck_assert_ptr_eq(sc_graph_node_target(g, id), first[i]);
            ck_assert_ptr_eq(sc__graph_intern_target(g, target), first[i]);
        }
    ck_assert_uint_eq(g->ntargets, NT);
    /* a known op keeps its id */
    ck_assert_int_eq(sc_graph_add_call(g, NULL, "torch.ops.aten.relu.default",
                                       1, &arg, 0, NULL, NULL, NULL, &id,
                                       &err),
                     SC_OK);
    ck_assert_int_eq(sc__graph_node_op(g, id),
                     sc__graph_lookup_op("torch.ops.aten.relu.default"));
    ck_assert_int_ne(sc__graph_node_op(g, id), SC_OP_UNKNOWN);
    ck_assert_uint_eq(g->ntargets, NT + 1);
    ids[2 * NT] = id;
    /* the text round trip keeps every target */
    ck_assert_int_eq(sc_graph_set_outputs(g, 2 * NT + 1, ids, 2 * NT + 1,
                                          &err),
                     SC_OK);
    ck_assert_int_eq(sc_graph_finish(g, &err), SC_OK);
    ck_assert_int_eq(sc_graph_write_text(g, NULL, &text, NULL, &err), SC_OK);
    ck_assert_int_eq(read_str(ctx, text, &g2, &err), SC_OK);
    ck_assert_msg(sc_graph_equal(g, g2, 0, why, sizeof why), "%s", why);
    ck_assert_uint_eq(g2->ntargets, NT + 1);
    free(text);
    sc_graph_free(g2);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

/* sc__graph_append_copy_mapped (the partitioner's copy: arguments read
 * from the source's internals, node ids renumbered through a map) builds
 * the same graph as the source, on example graphs with keyword arguments,
 * floats, strings, lists and symbolic sizes. */
START_TEST(test_append_copy_mapped)
{
    static const char *const files[] = {"attention_single_head.joint.txt",
                                        "lstm_module.joint.txt",
                                        "mlp_gelu_dyn.joint.txt"};
    size_t f;
    for (f = 0; f < sizeof files / sizeof *files; f++) {
        sc_ctx *ctx = sc_ctx_new();
        sc_graph *g = NULL, *c = sc_graph_new(ctx);
        sc_error err;
        char *path = examples_path(files[f]);
        char *text, why[256];
        size_t len, n, i;
        sc_node_id *map, id;

        text = slurp(path, &len);
        ck_assert_int_eq(sc_graph_read_text(ctx, text, len, path, NULL, &g,
                                            &err),
                         SC_OK);
        n = sc_graph_node_count(g);
        map = malloc(n * sizeof *map);
        ck_assert_ptr_nonnull(map);
        for (i = 0; i < n; i++) {
            sc_node_id s = (sc_node_id)i;
            map[i] = s;
            if (sc_graph_node_kind(g, s) == SC_NODE_PLACEHOLDER)
                ck_assert_int_eq(sc__graph_append_copy(
                                     c, g, s, sc_graph_node_role(g, s), NULL,
                                     NULL, &id, &err),
                                 SC_OK);
            else
                ck_assert_int_eq(
                    sc__graph_append_copy_mapped(c, g, s, map, &id, &err),
                    SC_OK);
            ck_assert_int_eq(id, s);
        }
        ck_assert_int_eq(sc_graph_set_outputs(c, sc_graph_output_count(g),
                                              g->outputs, g->num_fwd_outputs,
                                              &err),
                         SC_OK);
        ck_assert_int_eq(sc_graph_finish(c, &err), SC_OK);
        ck_assert_msg(sc_graph_equal(g, c, 0, why, sizeof why), "%s: %s",
                      files[f], why);
        free(map);
        free(text);
        free(path);
        sc_graph_free(c);
        sc_graph_free(g);
        sc_ctx_free(ctx);
    }
}
END_TEST

/* sc__graph_append_copy builds what the checked builder builds from the
 * source's accessors, for every node of every example joint graph. */
START_TEST(test_append_copy)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = NULL, *c1 = sc_graph_new(ctx), *c2 = sc_graph_new(ctx);
    sc_error err;
    char *path = examples_path("attention_single_head.joint.txt");
    char *text, why[256];
    size_t len, n, i, j, na, npos;
    sc_node_id id1, id2;
    sc_result r1, r2;

    text = slurp(path, &len);
    ck_assert_int_eq(sc_graph_read_text(ctx, text, len, path, NULL, &g, &err),
                     SC_OK);
    n = sc_graph_node_count(g);
    ck_assert_uint_gt(n, 10);
    ck_assert_int_eq(sc__graph_reserve(c2, n, &err), SC_OK);
    for (i = 0; i < n; i++) {
        sc_node_id s = (sc_node_id)i;
        sc_value *v1 = NULL, *v2 = NULL;
        const char **k1 = NULL, **k2 = NULL;
        na = sc_graph_node_arg_count(g, s);
        npos = sc_graph_node_positional_count(g, s);
        sc_graph_node_result(g, s, &r1);
        if (sc_graph_node_kind(g, s) == SC_NODE_PLACEHOLDER) {
            sc_role role = sc_graph_node_role(g, s);
            ck_assert_int_eq(sc_graph_add_placeholder(
                                 c1, sc_graph_node_name(g, s), role, &r1,
                                 &id1, &err),
                             SC_OK);
            ck_assert_int_eq(sc__graph_append_copy(c2, g, s, role, NULL,
                                                   NULL, &id2, &err),
                             SC_OK);
        } else {
            if (na) {
                v1 = sc__arena_alloc(&c1->arena, na * sizeof *v1);
                v2 = sc__arena_alloc(&c2->arena, na * sizeof *v2);
                ck_assert_ptr_nonnull(v1);
                ck_assert_ptr_nonnull(v2);
            }
            if (na > npos) {
                k1 = sc__arena_alloc(&c1->arena, (na - npos) * sizeof *k1);
                k2 = sc__arena_alloc(&c2->arena, (na - npos) * sizeof *k2);
            }
            for (j = 0; j < na; j++) {
                const sc_value *v = sc_graph_node_arg(g, s, j);
                ck_assert_int_eq(sc__graph_copy_value(c1, v, &v1[j], 0, &err),
                                 SC_OK);
                ck_assert_int_eq(sc__graph_copy_value(c2, v, &v2[j], 0, &err),
                                 SC_OK);
                if (j >= npos) {
                    k1[j - npos] = sc_graph_node_kwname(g, s, j);
                    k2[j - npos] = sc_graph_node_kwname(g, s, j);
                }
            }
            ck_assert_int_eq(sc__graph_append_call(
                                 c1, sc_graph_node_name(g, s),
                                 sc_graph_node_target(g, s), npos, na, v1, k1,
                                 &r1, 0, &id1, &err),
                             SC_OK);
            ck_assert_int_eq(sc__graph_append_copy(c2, g, s, SC_ROLE_NONE,
                                                   v2, k2, &id2, &err),
                             SC_OK);
        }
        ck_assert_int_eq(id1, s);
        ck_assert_int_eq(id2, s);
        /* byte-for-byte the same node fields apart from arena pointers */
        ck_assert_int_eq(c1->nodes[i].flags, c2->nodes[i].flags);
        ck_assert_int_eq(c1->nodes[i].op, c2->nodes[i].op);
        ck_assert_int_eq(c1->nodes[i].dev_index, c2->nodes[i].dev_index);
        ck_assert_ptr_ne(c2->nodes[i].name, g->nodes[i].name);
    }
    ck_assert_int_eq(sc_graph_set_outputs(c1, sc_graph_output_count(g),
                                          g->outputs, g->num_fwd_outputs,
                                          &err),
                     SC_OK);
    ck_assert_int_eq(sc_graph_set_outputs(c2, sc_graph_output_count(g),
                                          g->outputs, g->num_fwd_outputs,
                                          &err),
                     SC_OK);
    ck_assert_int_eq(sc_graph_finish(c1, &err), SC_OK);
    ck_assert_int_eq(sc_graph_finish(c2, &err), SC_OK);
    ck_assert_msg(sc_graph_equal(g, c1, 0, why, sizeof why), "%s", why);
    ck_assert_msg(sc_graph_equal(c1, c2, 0, why, sizeof why), "%s", why);
    ck_assert_uint_eq(sc_graph_primal_count(c2), sc_graph_primal_count(g));
    ck_assert_uint_eq(sc_graph_tangent_count(c2), sc_graph_tangent_count(g));
    for (i = 0; i < n; i++)
        ck_assert_int_eq(sc_graph_find(c2, sc_graph_node_name(g,
                                                         (sc_node_id)i)),
                         (sc_node_id)i);

    /* a call node copied as a placeholder keeps its metadata; a placeholder
     * after a call node and a call copied from a placeholder are refused */
    {
        sc_graph *c3 = sc_graph_new(ctx);
        sc_node_id call = SC_NODE_NONE, got;
        for (i = 0; i < n && call == SC_NODE_NONE; i++)
            if (sc_graph_node_kind(g, (sc_node_id)i) == SC_NODE_CALL &&
                g->nodes[i].rkind == SC_RESULT_TENSOR &&
                g->nodes[i].ndim > 0)
                call = (sc_node_id)i;
        ck_assert_int_ne(call, SC_NODE_NONE);
        ck_assert_int_eq(sc__graph_append_copy(c3, g, call, SC_ROLE_PRIMAL,
                                               NULL, NULL, &got, &err),
                         SC_OK);
        ck_assert_int_eq(sc_graph_node_kind(c3, got), SC_NODE_PLACEHOLDER);
        ck_assert_int_eq(sc_graph_node_role(c3, got), SC_ROLE_PRIMAL);
        ck_assert_str_eq(sc_graph_node_name(c3, got),
                         sc_graph_node_name(g, call));
        sc_graph_node_result(g, call, &r1);
        sc_graph_node_result(c3, got, &r2);
        ck_assert_int_eq(r2.kind, SC_RESULT_TENSOR);
        ck_assert_uint_eq(r2.tensor.ndim, r1.tensor.ndim);
        for (j = 0; j < r1.tensor.ndim; j++)
            ck_assert_ptr_eq(r2.tensor.sizes[j], r1.tensor.sizes[j]);
        ck_assert_int_eq(sc__graph_append_copy(c3, g, 0, SC_ROLE_NONE, NULL,
                                               NULL, &got, &err),
                         SC_ERR_INVALID);
        ck_assert_int_eq(sc__graph_append_copy(c3, g, (sc_node_id)n,
                                               SC_ROLE_PRIMAL, NULL, NULL,
                                               &got, &err),
                         SC_ERR_INVALID);
        ck_assert_uint_eq(sc_graph_node_count(c3), 1);
        sc_graph_free(c3);
    }
    free(text);
    free(path);
    sc_graph_free(c1);
    sc_graph_free(c2);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

/* Many declared placeholders: a duplicate is found at its line, and the
 * unpacking order is still checked. */
START_TEST(test_reader_many_placeholders)
{
    enum { NP = 200 };
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = NULL;
    sc_error err;
    sc__buf b;
    size_t i;
    char *msg;

    for (int variant = 0; variant < 3; variant++) {
        sc__buf_init(&b);
        sc__buf_printf(&b, "class joint_fn(torch.nn.Module):\n"
                           "    def forward(self, primals, tangents):\n"
                           "        ");
        for (i = 0; i < NP; i++)
            sc__buf_printf(&b, "p%zu: \"f32[2]\"; ", i);
        if (variant == 1)
            sc__buf_printf(&b, "p%d: \"f32[2]\"; ", NP / 2);
        sc__buf_printf(&b, "\n        ");
        for (i = 0; i < NP; i++)
            sc__buf_printf(&b, "p%zu, ",
                           variant == 2 && i == 5 ? 6 : variant == 2 && i == 6
                                                            ? 5
                                                            : i);
        sc__buf_printf(&b, "= fx_pytree.tree_flatten_spec([primals, "
                           "tangents], self._in_spec)\n"
                           "        return [p0, p1]\n");
        ck_assert(!b.failed);
        g = NULL;
        if (variant == 0) {
            ck_assert_int_eq(read_str(ctx, b.data, &g, &err), SC_OK);
            ck_assert_uint_eq(sc_graph_node_count(g), NP);
            ck_assert_int_eq(sc_graph_find(g, "p150"), 150);
            sc_graph_free(g);
        } else {
            ck_assert_int_ne(read_str(ctx, b.data, &g, &err), SC_OK);
            msg = format_error(&err);
            if (variant == 1)
                ck_assert_msg(strstr(msg, "duplicate definition of 'p100'"),
                              "%s", msg);
            else
                ck_assert_msg(strstr(msg, "'p6' is declared at another "
                                          "position"),
                              "%s", msg);
        }
        sc__buf_free(&b);
    }
    sc_ctx_free(ctx);
}
END_TEST

/* K6 of doc/random.md: metadata inferred in an environment that already
 * knows Eq(s0, 4) print as `f32[4, 1]`; the text carries no guards, so
 * reading it back infers [s0, 1].  The annotation is equal at the hints:
 * accepted, the guard recorded again, and the text reads back to the same
 * graph. */
START_TEST(test_roundtrip_guarded_meta)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_env *env = NULL;
    sc_graph *g = sc_graph_new(ctx), *h = NULL;
    sc_error err;
    sc_expr *s0, *dims[4], *eq;
    sc_result r;
    sc_node_id x, y, outs[1];
    sc_value a[1];
    char *t1 = NULL, *t2 = NULL, why[256], *txt;
    bool b;

    ck_assert_ptr_nonnull(g);
    ck_assert_int_eq(sc_env_new(ctx, NULL, &env, &err), SC_OK);
    ck_assert_int_eq(sc_env_create_backed_si(env, 4, "x.size(0)", "s0", NULL,
                                             SC_ENV_NO_DUCK, &s0, &err),
                     SC_OK);
    eq = sc_expr_eq(ctx, s0, sc_expr_int_si(ctx, 4));
    ck_assert_int_eq(sc_env_guard(env, eq, &b, &err), SC_OK);
    ck_assert(b);
    sc_graph_set_env(g, env);
    ck_assert_int_eq(sc_graph_set_hint(g, s0, 4, &err), SC_OK);
    sc_result_init(&r);
    r.kind = SC_RESULT_TENSOR;
    r.tensor.dtype = SC_DTYPE_F32;
    r.tensor.ndim = 2;
    dims[0] = s0;
    dims[1] = sc_expr_int_si(ctx, 1);
    dims[2] = sc_expr_int_si(ctx, 1);
    dims[3] = sc_expr_int_si(ctx, 1);
    r.tensor.sizes = dims;
    r.tensor.strides = dims + 2;
    r.tensor.has_strides = true;
    ck_assert_int_eq(sc_graph_add_placeholder(g, "x", SC_ROLE_PRIMAL, &r, &x,
                                              &err),
                     SC_OK);
    a[0] = sc_value_node(x);
    ck_assert_msg(sc_graph_add_call(g, "y", "torch.ops.aten.relu.default", 1,
                                    a, 0, NULL, NULL, NULL, &y, &err) == SC_OK,
                  "%s", err.message);
    outs[0] = y;
    ck_assert_int_eq(sc_graph_set_outputs(g, 1, outs, 1, &err), SC_OK);
    ck_assert_int_eq(sc_graph_finish(g, &err), SC_OK);
    ck_assert_int_eq(sc_graph_write_text(g, NULL, &t1, NULL, &err), SC_OK);
    ck_assert_msg(strstr(t1, "y: \"f32[4, 1][1, 1]cpu\"") != NULL, "%s", t1);

    ck_assert_msg(sc_graph_read_text(ctx, t1, strlen(t1), "t.py", NULL, &h,
                                     &err) == SC_OK,
                  "%s:%d: %s", err.file, err.line, err.message);
    ck_assert_msg(sc_graph_equal(g, h, 0, why, sizeof why), "%s", why);
    ck_assert_int_eq(sc_graph_write_text(h, NULL, &t2, NULL, &err), SC_OK);
    ck_assert_str_eq(t1, t2);
    /* the read graph's own environment learned the guard from y */
    ck_assert_ptr_nonnull(sc_graph_env(h));
    ck_assert_ptr_ne(sc_graph_env(h), env);
    ck_assert_uint_eq(sc_env_guard_count(sc_graph_env(h)), 1);
    txt = sc_expr_to_str(ctx, sc_env_guard_at(sc_graph_env(h), 0));
    ck_assert_str_eq(txt, "Eq(s0, 4)");
    free(txt);
    free(t1);
    free(t2);
    sc_graph_free(h);
    sc_graph_free(g);
    sc_env_free(env);
    sc_ctx_free(ctx);
}
END_TEST

Suite *graph_suite(void)
{
    Suite *s = suite_create("graph");
    TCase *tc;

    tc = tcase_create("examples");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_example_joint_roundtrip, 0, NEXAMPLES);
    tcase_add_loop_test(tc, test_example_forward_roundtrip, 0, NEXAMPLES);
    tcase_add_loop_test(tc, test_example_counts, 0, NEXAMPLES);
    tcase_add_loop_test(tc, test_example_torch_logs, 0, 2);
    tcase_add_test(tc, test_example_dyn_symbols);
    tcase_add_test(tc, test_example_memory);
    suite_add_tcase(s, tc);

    tc = tcase_create("ir");
    tcase_add_test(tc, test_types);
    tcase_add_test(tc, test_builder);
    tcase_add_test(tc, test_equal);
    tcase_add_test(tc, test_dot);
    tcase_add_test(tc, test_reserve);
    tcase_add_test(tc, test_name_shapes);
    tcase_add_test(tc, test_reserved_names);
    tcase_add_test(tc, test_many_targets);
    tcase_add_test(tc, test_append_copy);
    tcase_add_test(tc, test_append_copy_mapped);
    suite_add_tcase(s, tc);

    tc = tcase_create("reader");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_reader_constructs, 0, NCONSTRUCTS);
    tcase_add_test(tc, test_reader_details);
    tcase_add_test(tc, test_reader_options);
    tcase_add_loop_test(tc, test_reader_errors, 0, NERRORS);
    tcase_add_test(tc, test_reader_error_codes);
    tcase_add_test(tc, test_reader_mutations);
    tcase_add_test(tc, test_reader_nomem);
    tcase_add_test(tc, test_reader_many_placeholders);
    tcase_add_test(tc, test_roundtrip_guarded_meta);
    suite_add_tcase(s, tc);
    return s;
}
