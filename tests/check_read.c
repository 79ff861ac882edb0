/* symcut tests — reading what PyTorch 2.x prints: TORCH_LOGS framing,
 * TORCH_TRACE logs, choosing a graph, graph kinds, the constructs of
 * newer graphs, strictness and input types.  Table-driven; every reader
 * path has bad-input rows with their located messages. */
#include <config.h>

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <symcut.h>

#include "tests/testutil.h"
#include "util/internal.h"

Suite *read_suite(void);

static char *format_error(const sc_error *err)
{
    static char buf[1024];
    sc_error_format(err, buf, sizeof buf);
    return buf;
}

/* tests/data/read/NAME under $top_srcdir (the test environment sets
 * it), else under the current directory. */
static char *slurp(const char *name, size_t *len)
{
    char path[1024];
    const char *top = getenv("top_srcdir");
    FILE *f;
    if (top && *top)
        snprintf(path, sizeof path, "%s/tests/data/read/%s", top, name);
    else
        snprintf(path, sizeof path, "tests/data/read/%s", name);
    f = fopen(path, "rb");
    long n;
    char *buf;
    ck_assert_msg(f != NULL, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc((size_t)n + 1);
    ck_assert_ptr_nonnull(buf);
    ck_assert_int_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return buf;
}

/* ---- Framing: TORCH_LOGS prefixes, banners, several graphs ------------- */

#define GLOG "V1201 23:56:36.906000 3391 torch/_functorch/x.py:1780] "
#define JPFX GLOG "[0/0] [__aot_joint_graph] "
#define GPFX GLOG "[0/0] [__aot_graphs] "

/* A joint graph, its forward and backward as TORCH_LOGS prints them. */
static const char three_graphs[] =
    "I1201 23:56:30.000000 3391 torch/_dynamo/x.py:10] [0/0] step 1\n"
    JPFX "TRACED GRAPH\n"
    JPFX " ===== Joint graph 0 =====\n"
    JPFX " /venv/torch/fx/_lazy_graph_module.py class inner_f(torch.nn."
    "Module):\n"
    JPFX "    def forward(self, primals, tangents):\n"
    JPFX "        primals_1: \"f32[4][1]cpu\"; tangents_1: \"f32[4][1]cpu\"; \n"
    JPFX "\n"
    JPFX "        primals_1, tangents_1, = fx_pytree.tree_flatten_spec("
    "[primals, tangents], self._in_spec)\n"
    JPFX "        # File: /tmp/m.py:6 in forward, code: return x.relu()\n"
    JPFX "        relu: \"f32[4][1]cpu\" = torch.ops.aten.relu.default("
    "primals_1);  primals_1 = None\n"
    JPFX "        threshold_backward: \"f32[4][1]cpu\" = torch.ops.aten."
    "threshold_backward.default(tangents_1, relu, 0);  tangents_1 = None\n"
    JPFX "        return pytree.tree_unflatten([relu, threshold_backward], "
    "self._out_spec)\n"
    JPFX "\n"
    GPFX "aot_config id: 0, fw_metadata=ViewAndMutationMeta(input_info=[], "
    "static_input_indices=[0])\n"
    GPFX "TRACED GRAPH\n"
    GPFX " ===== Forward graph 0 =====\n"
    GPFX " /venv/torch/fx/_lazy_graph_module.py class GraphModule(torch.nn."
    "Module):\n"
    GPFX "    def forward(self, primals_1: \"f32[4][1]cpu\"):\n"
    GPFX "        # File: /tmp/m.py:6 in forward, code: return x.relu()\n"
    GPFX "        relu: \"f32[4][1]cpu\" = torch.ops.aten.relu.default("
    "primals_1);  primals_1 = None\n"
    GPFX "        return (relu, relu)\n"
    GPFX "\n"
    GPFX "TRACED GRAPH\n"
    GPFX " ===== Backward graph 0 =====\n"
    GPFX " <eval_with_key>.2 class GraphModule(torch.nn.Module):\n"
    GPFX "    def forward(self, relu: \"f32[4][1]cpu\", tangents_1: "
    "\"f32[4][1]cpu\"):\n"
    GPFX "        threshold_backward: \"f32[4][1]cpu\" = torch.ops.aten."
    "threshold_backward.default(tangents_1, relu, 0);  tangents_1 = relu = "
    "None\n"
    GPFX "        return (threshold_backward,)\n"
    GPFX "\n"
    "I1201 23:56:40.000000 3391 torch/_dynamo/x.py:10] [0/0] done\n";

/* A glog-style flat graph whose banner names it backward although its
 * saved values are all named primals_N. */
static const char primals_backward[] =
    GPFX "TRACED GRAPH\n"
    GPFX " ===== Backward graph 1 =====\n"
    GPFX " <eval_with_key>.8 from /tmp/m.py:3 in wrapped class GraphModule("
    "torch.nn.Module):\n"
    GPFX "    def forward(self, primals_1: \"f32[4][1]cpu\", tangents_1: "
    "\"f32[4][1]cpu\"):\n"
    GPFX "        mul: \"f32[4][1]cpu\" = torch.ops.aten.mul.Tensor("
    "tangents_1, primals_1);  tangents_1 = primals_1 = None\n"
    GPFX "        return (mul,)\n";

/* Python logging prefixes (with a rank tag on one line). */
static const char pylog[] =
    "[2026-11-29 12:00:00,000] [0/0] torch._functorch: [INFO] TRACED GRAPH\n"
    "[2026-11-29 12:00:00,000] [0/0] torch._functorch: [INFO]  ===== "
    "Forward graph 3 =====\n"
    "[rank0]:[2026-11-29 12:00:00,000] [0/0] torch._functorch: [INFO]  "
    "class GraphModule(torch.nn.Module):\n"
    "[2026-11-29 12:00:00,000] [0/0] torch._functorch: [INFO]     def "
    "forward(self, primals_1: \"f32[2][1]cpu\"):\n"
    "[2026-11-29 12:00:00,000] [0/0] torch._functorch: [INFO]         neg: "
    "\"f32[2][1]cpu\" = torch.ops.aten.neg.default(primals_1)\n"
    "[2026-11-29 12:00:00,000] [0/0] torch._functorch: [INFO]         return "
    "(neg, primals_1)\n"
    "[2026-11-29 12:00:01,000] [0/0] torch._dynamo: [INFO] unrelated\n";

typedef struct frame_case {
    const char *name;
    const char *text;
    const char *graph;  /* the selector, or NULL */
    sc_graph_kind kind; /* the caller's kind, or UNKNOWN */
    /* expected on success */
    sc_graph_kind read_kind;
    size_t nodes, nfwd;
    const char *static_inputs; /* the directive, or NULL for none */
    /* or the error (file:line:col: message, or the message alone) */
    const char *error;
} frame_case;

static const frame_case frames[] = {
    {"joint by compile id and kind", three_graphs, "0/0:joint", 0,
     SC_GRAPH_KIND_JOINT, 4, 1, "0", NULL},
    {"joint by trace record name", three_graphs, "0/0:aot_joint_graph", 0,
     SC_GRAPH_KIND_JOINT, 4, 1, "0", NULL},
    {"forward by index", three_graphs, "1", 0, SC_GRAPH_KIND_FORWARD, 2, 2,
     "0", NULL},
    {"backward by kind alone", three_graphs, "backward", 0,
     SC_GRAPH_KIND_BACKWARD, 3, 0, NULL, NULL},
    {"the banner makes a primals-only graph backward", primals_backward,
     NULL, 0, SC_GRAPH_KIND_BACKWARD, 3, 0, NULL, NULL},
    {"--role overrides the banner", primals_backward, NULL,
     SC_GRAPH_KIND_JOINT, SC_GRAPH_KIND_JOINT, 3, 0, NULL, NULL},
    {"python logging prefixes and unrelated lines", pylog, NULL, 0,
     SC_GRAPH_KIND_FORWARD, 2, 2, NULL, NULL},
    {"prose that mentions a class is not a graph",
     GLOG "[0/0] see class Foo(torch.nn.Module):\n"
     GLOG "[0/0] /x/y.py class GraphModule(torch.nn.Module):\n"
     GLOG "[0/0]     def forward(self, x: \"f32[2][1]cpu\"):\n"
     GLOG "[0/0]         return (x,)\n", NULL, 0, SC_GRAPH_KIND_FORWARD, 1,
     1, NULL, NULL},
    {"several graphs, no choice", three_graphs, NULL, 0, 0, 0, 0, NULL,
     "t.py:17:1: this text holds 3 graphs; choose one with --graph: 0 (0/0:joint, line 4), "
     "1 (0/0:forward, line 17), 2 (0/0:backward, line 25)"},
    {"an ambiguous choice", three_graphs, "0/0", 0, 0, 0, 0, NULL,
     "--graph '0/0' is ambiguous in t.py: 0 (0/0:joint, line 4), 1 "
     "(0/0:forward, line 17), 2 (0/0:backward, line 25)"},
    {"an unknown choice", three_graphs, "1/0:joint", 0, 0, 0, 0, NULL,
     "--graph '1/0:joint': no such graph in t.py, which holds 0 "
     "(0/0:joint, line 4), 1 (0/0:forward, line 17), 2 (0/0:backward, "
     "line 25)"},
    {"an index out of range", three_graphs, "3", 0, 0, 0, 0, NULL,
     "--graph '3': no such graph in t.py, which holds 0 (0/0:joint, line "
     "4), 1 (0/0:forward, line 17), 2 (0/0:backward, line 25)"},
    {"a banner and the end of the text", JPFX "TRACED GRAPH\n" JPFX
     " ===== Joint graph 0 =====\n", NULL, 0, 0, 0, 0, NULL,
     "t.py:2:83: the banner is not followed by a graph (the text ends)"},
    {"a banner followed by other text", JPFX " ===== Joint graph 0 =====\n"
     JPFX " something else\n", NULL, 0, 0, 0, 0, NULL,
     "t.py:1:83: the banner is not followed by a graph (line 2 is not "
     "'class NAME(...):' or 'def forward(...):')"},
    {"a class line and the end of the text", JPFX " class inner_f(torch.nn."
     "Module):\n", NULL, 0, 0, 0, 0, NULL,
     "t.py:2:1: expected 'def', found the end of the file"},
    {"a truncated graph", GPFX "class GraphModule(torch.nn.Module):\n" GPFX
     "    def forward(self, x: \"f32[2][1]cpu\"):\n" GPFX "        y: "
     "\"f32[2][1]cpu\" = torch.ops.aten.neg.default(x)\n", NULL, 0, 0, 0, 0,
     NULL,
     "t.py:4:1: unexpected end of file (expected a 'return' statement)"},
    {"an error keeps its column on the physical line", GPFX "class "
     "GraphModule(torch.nn.Module):\n" GPFX "    def forward(self, x: "
     "\"f32[2][1]cpu\"):\n" GPFX "        y: \"x32[2][1]cpu\" = torch.ops."
     "aten.neg.default(x)\n", NULL, 0, 0, 0, 0, NULL,
     "t.py:3:89: unknown dtype code 'x32'"},
    {"only unrelated text", "hello\nworld\n", NULL, 0, 0, 0, 0, NULL,
     "t.py:1:1: expected 'class NAME(torch.nn.Module):' or "
     "'def forward(...):' to start the graph"},
    {"an empty text", "\n\n", NULL, 0, 0, 0, 0, NULL,
     "t.py:1:1: no graph found (expected 'class NAME(torch.nn.Module):' or "
     "'def forward(...):')"},
};
#define NFRAMES (sizeof frames / sizeof frames[0])

/* Read c->text with c's choice; check the result or the error. */
static void check_frame_case(const frame_case *c)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = NULL, *g2 = NULL;
    sc_graph_read_options ro;
    sc_error err;
    sc_status st;
    char *text = NULL, *text2 = NULL;
    const char *d;

    sc_graph_read_options_init(&ro);
    ro.graph = c->graph;
    ro.kind = c->kind;
    st = sc_graph_read_text(ctx, c->text, strlen(c->text), "t.py", &ro, &g,
                            &err);
    if (c->error) {
        ck_assert_msg(st != SC_OK, "%s: read", c->name);
        ck_assert_ptr_null(g);
        ck_assert_str_eq(format_error(&err), c->error);
        sc_ctx_free(ctx);
        return;
    }
    ck_assert_msg(st == SC_OK, "%s: %s", c->name, format_error(&err));
    ck_assert_int_eq(sc_graph_get_kind(g), c->read_kind);
    ck_assert_uint_eq(sc_graph_node_count(g), c->nodes);
    ck_assert_uint_eq(sc_graph_fwd_output_count(g), c->nfwd);
    d = sc_graph_directive(g, "static_inputs");
    if (c->static_inputs)
        ck_assert_msg(d && strcmp(d, c->static_inputs) == 0, "%s: %s",
                      c->name, d ? d : "(none)");
    else
        ck_assert_ptr_null(d);
    /* re-printed, it reads to an equal graph and prints the same */
    ck_assert_int_eq(sc_graph_write_text(g, NULL, &text, NULL, &err), SC_OK);
    ro.graph = NULL;
    ck_assert_msg(sc_graph_read_text(ctx, text, strlen(text), "w.py", &ro,
                                     &g2, &err) == SC_OK,
                  "%s: %s\n%s", c->name, format_error(&err), text);
    ck_assert(sc_graph_equal(g, g2, 0, NULL, 0));
    ck_assert_int_eq(sc_graph_write_text(g2, NULL, &text2, NULL, &err),
                     SC_OK);
    ck_assert_str_eq(text, text2);
    free(text);
    free(text2);
    sc_graph_free(g);
    sc_graph_free(g2);
    sc_ctx_free(ctx);
}

START_TEST(test_frames)
{
    check_frame_case(&frames[_i]);
}
END_TEST

/* The `# File:` comments survive re-printing, in the flat style. */
START_TEST(test_frame_comments)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = NULL;
    sc_graph_read_options ro;
    sc_error err;
    char *text = NULL;

    sc_graph_read_options_init(&ro);
    ro.graph = "0/0:forward";
    ck_assert_int_eq(sc_graph_read_text(ctx, three_graphs,
                                        strlen(three_graphs), "t.py", &ro,
                                        &g, &err),
                     SC_OK);
    ck_assert_int_eq(sc_graph_write_text(g, NULL, &text, NULL, &err), SC_OK);
    ck_assert_str_eq(text,
                     "# symcut: static_inputs 0\n"
                     "class GraphModule(torch.nn.Module):\n"
                     "    def forward(self, primals_1: \"f32[4][1]cpu\"):\n"
                     "        # File: /tmp/m.py:6 in forward, code: return "
                     "x.relu()\n"
                     "        relu: \"f32[4][1]cpu\" = torch.ops.aten.relu."
                     "default(primals_1);  primals_1 = None\n"
                     "        return (relu, relu)\n"
                     "        \n");
    free(text);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

/* sc_graph_list_text: names, kinds, lines, static inputs. */
START_TEST(test_listing)
{
    sc_graph_listing *l = NULL;
    sc_graph_listing_entry e;
    sc_error err;

    ck_assert_int_eq(sc_graph_list_text(three_graphs, strlen(three_graphs),
                                        "t.py", &l, &err),
                     SC_OK);
    ck_assert_uint_eq(sc_graph_listing_count(l), 3);
    ck_assert(!sc_graph_listing_is_trace(l));
    sc_graph_listing_entry_get(l, 0, &e);
    ck_assert_str_eq(e.name, "0/0:joint");
    ck_assert_str_eq(e.class_name, "inner_f");
    ck_assert_str_eq(e.title, "Joint graph 0");
    ck_assert_int_eq(e.line, 4);
    ck_assert_str_eq(e.static_inputs, "0");
    sc_graph_listing_entry_get(l, 2, &e);
    ck_assert_str_eq(e.name, "0/0:backward");
    ck_assert_int_eq(e.kind, SC_GRAPH_KIND_BACKWARD);
    ck_assert_ptr_null(e.static_inputs);
    sc_graph_listing_free(l);
}
END_TEST

/* ---- TORCH_TRACE ----------------------------------------------------- */

#define TR "V1201 23:56:36.944000 3391 torch/_functorch/x.py:1797] "
#define TRACE_GRAPH(kind, frame)                                             \
    TR "{\"" kind "\": {}, \"frame_id\": " frame ", \"frame_compile_id\": "  \
       "0, \"attempt\": 0, \"has_payload\": \"abbe\"}\n"                     \
       "\tclass GraphModule(torch.nn.Module):\n"                             \
       "\t    def forward(self, primals_1: \"f32[4][1]cpu\"):\n"             \
       "\t        neg: \"f32[4][1]cpu\" = torch.ops.aten.neg.default("       \
       "primals_1)\n"                                                        \
       "\t        return (neg, primals_1)\n"                                 \
       "\t        \n"

static const char trace_ok[] =
    TR "{\"artifact\": {\"name\": \"torch_version\", \"encoding\": "
    "\"json\"}, \"has_payload\": \"98\"}\n"
    "\t{\n\t  \"version\": \"2.13.0\"\n\t}\n"
    TR "{\"str\": [\"/tmp/m.py\", 1]}\n"
    TRACE_GRAPH("aot_forward_graph", "0")
    TR "{\"artifact\": {\"name\": \"aot_forward_graph_fw_metadata\", "
    "\"encoding\": \"string\"}, \"frame_id\": 0, \"frame_compile_id\": 0, "
    "\"attempt\": 0, \"has_payload\": \"a3\"}\n"
    "\tViewAndMutationMeta(input_info=[], static_input_indices=[0,\n"
    "\t                                                         2])\n"
    TRACE_GRAPH("aot_inference_graph", "1")
    TR "{\"compilation_metrics\": {\"x\": [1.5, -2, true, null, \"a\\\"b\"]}"
    "}\n";

typedef struct trace_case {
    const char *name;
    const char *text;
    const char *graph;
    sc_graph_kind read_kind;
    const char *static_inputs;
    const char *error;
} trace_case;

static const trace_case traces[] = {
    {"forward by compile id", trace_ok, "0/0", SC_GRAPH_KIND_FORWARD, "0,2",
     NULL},
    {"inference by record name", trace_ok, "aot_inference_graph",
     SC_GRAPH_KIND_INFERENCE, NULL, NULL},
    {"by index", trace_ok, "1", SC_GRAPH_KIND_INFERENCE, NULL, NULL},
    {"no choice", trace_ok, NULL, 0, NULL,
     "t.py:16:1: this text holds 2 graphs; choose one with --graph: 0 (0/0:forward, line "
     "7), 1 (1/0:inference, line 16)"},
    {"a key without its closing quote",
     TR "{\"aot_joint_graph: {}}\n", NULL, 0, NULL,
     "t.py:1:78: bad JSON in a trace record: expected '\"', found the end "
     "of the line"},
    {"a truncated record", TR "{\"aot_joint_graph\": {}, \"frame_id\": \n",
     NULL, 0, NULL,
     "t.py:1:92: bad JSON in a trace record: expected a value, found the "
     "end of the line"},
    {"text after the record", TR "{\"str\": 1} x\n", NULL, 0, NULL,
     "t.py:1:67: bad JSON in a trace record: expected the end of the "
     "record, found 'x'"},
    {"a record that is not an object",
     TR "{\"str\": 1}\n" TR "[1, 2]\n", NULL, 0, NULL,
     "t.py:2:56: bad JSON in a trace record: expected '{' (a trace "
     "record), found '['"},
    {"a payload announced, none given",
     TR "{\"aot_joint_graph\": {}, \"has_payload\": \"ab\"}\n", NULL, 0,
     NULL,
     "t.py:1:56: the trace record 'aot_joint_graph' announces a payload but "
     "no payload line follows"},
    {"a payload line without a record", TR "{\"str\": 1}\n\n\tclass X:\n",
     NULL, 0, NULL, "t.py:3:1: a payload line without a record before it"},
    {"a graph payload that is not a graph",
     TR "{\"aot_joint_graph\": {}, \"has_payload\": \"ab\"}\n\tnot a "
     "graph\n", NULL, 0, NULL,
     "t.py:2:2: the payload of 'aot_joint_graph' does not start with 'class "
     "NAME(...):' or 'def'"},
    {"no graph record", TR "{\"str\": 1}\n", NULL, 0, NULL,
     "t.py:1:1: no graph found in the trace (no aot_joint_graph, "
     "aot_forward_graph, aot_backward_graph or aot_inference_graph "
     "record)"},
    {"a graph error inside a payload keeps its line and column",
     TR "{\"aot_forward_graph\": {}, \"has_payload\": \"ab\"}\n"
     "\tclass GraphModule(torch.nn.Module):\n"
     "\t    def forward(self, x: \"f32[4][1]cpu\"):\n"
     "\t        y = torch.ops.aten.neg.default(z)\n", NULL, 0, NULL,
     "t.py:4:41: undefined name 'z'"},
};
#define NTRACES (sizeof traces / sizeof traces[0])

START_TEST(test_traces)
{
    const trace_case *c = &traces[_i];
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = NULL;
    sc_graph_read_options ro;
    sc_error err;
    sc_status st;
    const char *d;

    sc_graph_read_options_init(&ro);
    ro.graph = c->graph;
    st = sc_graph_read_text(ctx, c->text, strlen(c->text), "t.py", &ro, &g,
                            &err);
    if (c->error) {
        ck_assert_msg(st != SC_OK, "%s: read", c->name);
        ck_assert_str_eq(format_error(&err), c->error);
        sc_ctx_free(ctx);
        return;
    }
    ck_assert_msg(st == SC_OK, "%s: %s", c->name, format_error(&err));
    ck_assert_int_eq(sc_graph_get_kind(g), c->read_kind);
    ck_assert_uint_eq(sc_graph_node_count(g), 2);
    ck_assert_int_eq(sc_graph_node_line(g, 1), c->read_kind ==
                                                       SC_GRAPH_KIND_FORWARD
                                                   ? 9
                                                   : 18);
    d = sc_graph_directive(g, "static_inputs");
    if (c->static_inputs)
        ck_assert_msg(d && strcmp(d, c->static_inputs) == 0, "%s: %s",
                      c->name, d ? d : "(none)");
    else
        ck_assert_ptr_null(d);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

/* ---- Constructs of newer graphs --------------------------------------- */

typedef struct construct_case {
    const char *name;
    const char *text;
    const char *expect; /* a substring of the re-printed text */
} construct_case;

static const construct_case constructs[] = {
    {"class <lambda>",
     "class <lambda>(torch.nn.Module):\n"
     "    def forward(self, a_1: \"f32[4, 3]\"):\n"
     "        relu: \"f32[4, 3]\" = torch.ops.aten.relu.default(a_1)\n"
     "        return relu\n",
     "class <lambda>(torch.nn.Module):\n"},
    {"get_attr, annotated and not",
     "class const(torch.nn.Module):\n"
     "    def forward(self, a_1: \"f32[4, 3]\"):\n"
     "        _tensor_constant0: \"f32[3]\" = self._tensor_constant0\n"
     "        _tensor_constant1 = self._tensor_constant1\n"
     "        lift_fresh_copy: \"f32[3]\" = torch.ops.aten.lift_fresh_copy."
     "default(_tensor_constant0)\n"
     "        add: \"f32[4, 3]\" = torch.ops.aten.add.Tensor(a_1, "
     "lift_fresh_copy)\n"
     "        return (add, _tensor_constant1)\n",
     "        _tensor_constant1 = self._tensor_constant1\n"},
    {"nested submodules kept as text",
     "class branch(torch.nn.Module):\n"
     "    def forward(self, a_1: \"f32[4, 3]\"):\n"
     "        sum_1: \"f32[]\" = torch.ops.aten.sum.default(a_1)\n"
     "        gt: \"b8[]\" = torch.ops.aten.gt.Scalar(sum_1, 0)\n"
     "        true_graph_0 = self.true_graph_0\n"
     "        false_graph_0 = self.false_graph_0\n"
     "        cond = torch.ops.higher_order.cond(gt, true_graph_0, "
     "false_graph_0, (a_1,))\n"
     "        getitem: \"f32[4, 3]\" = cond[0]\n"
     "        return (getitem,)\n"
     "        \n"
     "    class true_graph_0(torch.nn.Module):\n"
     "        def forward(self, arg0_1: \"f32[4, 3]\"):\n"
     "            sin: \"f32[4, 3]\" = torch.ops.aten.sin.default(arg0_1)\n"
     "            return (sin,)\n"
     "            \n"
     "    class false_graph_0(torch.nn.Module):\n"
     "        def forward(self, arg0_1: \"f32[4, 3]\"):\n"
     "            cos: \"f32[4, 3]\" = torch.ops.aten.cos.default(arg0_1)\n"
     "            return (cos,)\n",
     "        return (getitem,)\n\n"
     "    class true_graph_0(torch.nn.Module):\n"
     "        def forward(self, arg0_1: \"f32[4, 3]\"):\n"
     "            sin: \"f32[4, 3]\" = torch.ops.aten.sin.default(arg0_1)\n"
     "            return (sin,)\n\n"
     "    class false_graph_0(torch.nn.Module):\n"},
    {"an op overload as an argument",
     "class GraphModule(torch.nn.Module):\n"
     "    def forward(self, arg0_1: \"f32[3][1]cpu\"):\n"
     "        auto_functionalized_v2 = torch.ops.higher_order."
     "auto_functionalized_v2(torch.ops.mylib.foo.default, x = arg0_1, "
     "_x_base_index = 0, _all_bases = [arg0_1])\n"
     "        getitem_1: \"f32[3][1]cpu\" = auto_functionalized_v2[1]\n"
     "        return (getitem_1,)\n",
     "torch.ops.higher_order.auto_functionalized_v2(torch.ops.mylib.foo."
     "default, x = arg0_1,"},
    {"Python operators on SymInts",
     "def forward(self, n: \"Sym(s0)\", m: \"Sym(s1)\", x: \"f32[s0][1]cpu\"):\n"
     "    eq: \"Sym(Eq(s0, 4))\" = n == 4\n"
     "    ne: \"Sym(Ne(s0, s1))\" = n != m\n"
     "    lt: \"Sym(s0 < s1)\" = n < m\n"
     "    le: \"Sym(s0 <= 4)\" = n <= 4\n"
     "    gt: \"Sym(s0 > 2)\" = n > 2\n"
     "    ge: \"Sym(s0 >= s1)\" = n >= m\n"
     "    both = eq and ne\n"
     "    either = lt or gt\n"
     "    neither = not le\n"
     "    big: \"Sym(Max(2, s0))\" = torch.sym_max(n, 2)\n"
     "    return (both, either, neither, ge, big)\n",
     "        both: \"Sym(And(Eq(s0, 4), Ne(s0, s1)))\" = eq & ne;  eq = ne = "
     "None\n"
     "        either: \"Sym(Or(s0 >= 3, s0 <= s1 - 1))\" = lt | gt;  lt = gt = "
     "None\n"
     "        neither: \"Sym(s0 >= 5)\" = not le;  le = None\n"},
    {"data-dependent ops on the same input, not memoized together",
     "def forward(self, x: \"f32[4]\"):\n"
     "    a: \"i64[3, 1]\" = torch.ops.aten.nonzero.default(x)\n"
     "    b: \"i64[2, 1]\" = torch.ops.aten.nonzero.default(x)\n"
     "    c: \"Sym(3)\" = torch.ops.aten._local_scalar_dense.default(x)\n"
     "    d: \"Sym(2)\" = torch.ops.aten._local_scalar_dense.default(x)\n"
     "    return (a, b, c, d)\n",
     "        a: \"i64[3, 1]\" = torch.ops.aten.nonzero.default(x)\n"
     "        b: \"i64[2, 1]\" = torch.ops.aten.nonzero.default(x)\n"
     "        c: \"Sym(3)\" = torch.ops.aten._local_scalar_dense.default(x)\n"
     "        d: \"Sym(2)\" = torch.ops.aten._local_scalar_dense.default(x)"},
    {"unannotated calls take the rule's result, memoized or not",
     "def forward(self, x: \"f32[2, 3][3, 1]cpu\"):\n"
     "    a = torch.ops.aten.relu.default(x)\n"
     "    b = torch.ops.aten.relu.default(x)\n"
     "    c: \"f32[3, 2][1, 3]cpu\" = torch.ops.aten.t.default(b)\n"
     "    d = torch.ops.aten.t.default(a)\n"
     "    return (c, d)\n",
     "        b: \"f32[2, 3][3, 1]cpu\" = torch.ops.aten.relu.default(x);  "
     "x = None\n"
     "        c: \"f32[3, 2][1, 3]cpu\" = torch.ops.aten.t.default(b);  "
     "b = None\n"
     "        d: \"f32[3, 2][1, 3]cpu\" = torch.ops.aten.t.default(a)"},
};
#define NCONSTRUCTS (sizeof constructs / sizeof constructs[0])

START_TEST(test_constructs)
{
    const construct_case *c = &constructs[_i];
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = NULL, *g2 = NULL;
    sc_error err;
    char *text = NULL, *text2 = NULL, why[256];

    ck_assert_msg(sc_graph_read_text(ctx, c->text, strlen(c->text), "t.py",
                                     NULL, &g, &err) == SC_OK,
                  "%s: %s", c->name, format_error(&err));
    ck_assert_int_eq(sc_graph_write_text(g, NULL, &text, NULL, &err), SC_OK);
    ck_assert_msg(strstr(text, c->expect) != NULL, "%s: expected\n%s\nin\n%s",
                  c->name, c->expect, text);
    ck_assert_msg(sc_graph_read_text(ctx, text, strlen(text), "w.py", NULL,
                                     &g2, &err) == SC_OK,
                  "%s: %s\n%s", c->name, format_error(&err), text);
    ck_assert_msg(sc_graph_equal(g, g2, 0, why, sizeof why), "%s: %s",
                  c->name, why);
    ck_assert_int_eq(sc_graph_write_text(g2, NULL, &text2, NULL, &err),
                     SC_OK);
    ck_assert_str_eq(text, text2);
    free(text);
    free(text2);
    sc_graph_free(g);
    sc_graph_free(g2);
    sc_ctx_free(ctx);
}
END_TEST

/* Constructs gone wrong. */
static const struct {
    const char *text, *error;
} construct_errors[] = {
    {"class <lambda(torch.nn.Module):\n    def forward(self):\n"
     "        return ()\n",
     "t.py:1:14: expected '>', found '('"},
    {"def forward(self, x: \"f32[2]\"):\n    y = self._c0\n    return (x,)\n"
     "    junk\n",
     "t.py:4:5: unexpected text after the return statement"},
    {"def forward(self, x: \"f32[2]\"):\n"
     "    y = torch.ops.higher_order.auto_functionalized(torch.ops)\n"
     "    return (x,)\n",
     "t.py:2:58: expected an op after 'torch.ops.' (torch.ops.NAMESPACE."
     "OP[.OVERLOAD])"},
    {"def forward(self, x: \"Sym(s0)\"):\n    y = not\n    return (y,)\n",
     "t.py:2:12: expected a name or a number, found the end of the line"},
    /* the shape rules' memo: the second of two identical calls is still
     * checked against its own annotation */
    {"def forward(self, x: \"f32[2, 3]\"):\n"
     "    a: \"f32[2, 3]\" = torch.ops.aten.relu.default(x)\n"
     "    b: \"f32[3, 2]\" = torch.ops.aten.relu.default(x)\n"
     "    return (a, b)\n",
     "t.py:3:5: node 'b' (torch.ops.aten.relu.default): the shape rule gives "
     "the size of dim 0 = 2, the annotation says 3"},
};
#define NCONSTRUCT_ERRORS (sizeof construct_errors / sizeof construct_errors[0])

START_TEST(test_construct_errors)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = NULL;
    sc_error err;
    const char *t = construct_errors[_i].text;

    ck_assert_int_ne(sc_graph_read_text(ctx, t, strlen(t), "t.py", NULL, &g,
                                        &err),
                     SC_OK);
    ck_assert_ptr_null(g);
    ck_assert_str_eq(format_error(&err), construct_errors[_i].error);
    sc_ctx_free(ctx);
}
END_TEST

/* ---- Kinds -------------------------------------------------------------- */

/* The backward graph symcut's partitioner writes (pytree form, saved
 * values named after their nodes): a backward graph with no forward
 * outputs, printed back in the same form. */
static const char partitioned_bw[] =
    "class backward_fn(torch.nn.Module):\n"
    "    def forward(self, primals, tangents):\n"
    "        primals_1: \"f32[3][1]cpu\"; mul: \"f32[3][1]cpu\"; primals_2: "
    "\"f32[3][1]cpu\"; tangents_1: \"f32[3][1]cpu\"; \n"
    "    \n"
    "        primals_1, mul, primals_2, tangents_1, = fx_pytree."
    "tree_flatten_spec([primals, tangents], self._in_spec)\n"
    "        mul_1: \"f32[3][1]cpu\" = torch.ops.aten.mul.Tensor(tangents_1, "
    "mul);  tangents_1 = mul = None\n"
    "        return pytree.tree_unflatten([mul_1, None], self._out_spec)\n";

START_TEST(test_kinds)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = NULL, *g2 = NULL;
    sc_graph_read_options ro;
    sc_error err;
    char *text = NULL;

    ck_assert_int_eq(sc_graph_read_text(ctx, partitioned_bw,
                                        strlen(partitioned_bw), "t.py", NULL,
                                        &g, &err),
                     SC_OK);
    ck_assert_int_eq(sc_graph_get_kind(g), SC_GRAPH_KIND_BACKWARD);
    ck_assert_uint_eq(sc_graph_fwd_output_count(g), 0);
    ck_assert_uint_eq(sc_graph_tangent_count(g), 1);
    ck_assert_int_eq(sc_graph_write_text(g, NULL, &text, NULL, &err), SC_OK);
    ck_assert(strstr(text, "    def forward(self, primals, tangents):\n"));
    ck_assert_int_eq(sc_graph_read_text(ctx, text, strlen(text), "w.py", NULL,
                                        &g2, &err),
                     SC_OK);
    ck_assert(sc_graph_equal(g, g2, 0, NULL, 0));
    free(text);
    sc_graph_free(g);
    sc_graph_free(g2);
    /* as a joint graph it has too few outputs */
    sc_graph_read_options_init(&ro);
    ro.kind = SC_GRAPH_KIND_JOINT;
    ck_assert_int_ne(sc_graph_read_text(ctx, partitioned_bw,
                                        strlen(partitioned_bw), "t.py", &ro,
                                        &g, &err),
                     SC_OK);
    ck_assert_str_eq(format_error(&err),
                     "t.py:7:9: a joint graph returns its forward outputs "
                     "and one gradient per primal, but this one returns 2 "
                     "values for 3 primals (give the number of forward "
                     "outputs)");
    /* a graph built through the API with a kind prints in PyTorch's style
     * for it */
    g = sc_graph_new(ctx);
    {
        sc_result meta;
        sc_expr *four = sc_expr_int_si(ctx, 4);
        sc_expr *one = sc_expr_int_si(ctx, 1);
        sc_node_id x;
        sc_value arg;
        sc_result_init(&meta);
        meta.kind = SC_RESULT_TENSOR;
        meta.tensor.dtype = SC_DTYPE_F32;
        meta.tensor.ndim = 1;
        meta.tensor.sizes = &four;
        meta.tensor.strides = &one;
        meta.tensor.has_strides = true;
        ck_assert_int_eq(sc_graph_add_placeholder(g, "x", SC_ROLE_PRIMAL,
                                                  &meta, &x, &err),
                         SC_OK);
        arg = sc_value_node(x);
        ck_assert_int_eq(sc_graph_add_call(g, NULL, "torch.ops.aten.neg."
                                                    "default",
                                           1, &arg, 0, NULL, NULL, NULL, &x,
                                           &err),
                         SC_OK);
        ck_assert_int_eq(sc_graph_set_outputs(g, 1, &x, 1, &err), SC_OK);
        ck_assert_int_eq(sc_graph_finish(g, &err), SC_OK);
    }
    ck_assert_int_eq(sc_graph_set_kind(g, SC_GRAPH_KIND_FORWARD, &err),
                     SC_OK);
    ck_assert_int_eq(sc_graph_write_text(g, NULL, &text, NULL, &err), SC_OK);
    ck_assert_str_eq(text,
                     "class forward_fn(torch.nn.Module):\n"
                     "    def forward(self, x: \"f32[4][1]\"):\n"
                     "        # No stacktrace found for following nodes\n"
                     "        neg: \"f32[4][1]cpu\" = torch.ops.aten.neg.default("
                     "x);  x = None\n"
                     "        return (neg,)\n"
                     "        \n");
    free(text);
    ck_assert_int_eq(sc_graph_set_kind(g, (sc_graph_kind)9, &err),
                     SC_ERR_INVALID);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

/* ---- Strictness and input types ---------------------------------------- */

START_TEST(test_strict_and_input_types)
{
    static const char unknown[] =
        "def forward(self, x: \"f32[2][1]cpu\"):\n"
        "    y: \"f32[2][1]cpu\" = torch.ops.aten.frobnicate.default(x)\n"
        "    return (y,)\n";
    static const char code[] = "\n\n\ndef forward(self, a_1, b_1):\n"
                               "    mm = torch.ops.aten.mm.default(a_1, b_1)\n"
                               "    relu = torch.ops.aten.relu.default(mm)\n"
                               "    return relu\n";
    static const char annotated[] = "def forward(self, a_1: \"f32[2]\"):\n"
                                    "    return (a_1,)\n";
    const char *names[] = {"a_1", "b_1"};
    const char *types[] = {"f32[8, 16][16, 1]cpu", "f32[16, 4][4, 1]cpu"};
    const char *bad_types[] = {"f32[8, 16]", "f99[16, 4]"};
    const char *bad_names[] = {"a_1", "zz"};
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = NULL;
    sc_graph_read_options ro;
    sc_result res;
    sc_error err;
    int64_t v;

    ck_assert_int_eq(sc_graph_read_text(ctx, unknown, strlen(unknown), "t.py",
                                        NULL, &g, &err),
                     SC_OK);
    ck_assert_uint_eq(sc_graph_warning_count(g), 1);
    sc_graph_free(g);
    sc_graph_read_options_init(&ro);
    ro.flags = SC_GRAPH_READ_STRICT;
    ck_assert_int_eq(sc_graph_read_text(ctx, unknown, strlen(unknown), "t.py",
                                        &ro, &g, &err),
                     SC_ERR_UNSUPPORTED);
    ck_assert_str_eq(format_error(&err),
                     "t.py:2:5: 'aten.frobnicate.default' is not in the op "
                     "table (an unknown op is an error with --strict)");

    /* a .code graph: shapes from the rules, given the inputs' types */
    sc_graph_read_options_init(&ro);
    ro.ninputs = 2;
    ro.input_names = names;
    ro.input_types = types;
    ck_assert_msg(sc_graph_read_text(ctx, code, strlen(code), "t.py", &ro,
                                     &g, &err) == SC_OK,
                  "%s", format_error(&err));
    sc_graph_node_result(g, sc_graph_find(g, "relu"), &res);
    ck_assert_int_eq(res.kind, SC_RESULT_TENSOR);
    ck_assert_uint_eq(res.tensor.ndim, 2);
    ck_assert(sc_expr_value_si(res.tensor.sizes[0], &v) && v == 8);
    ck_assert(sc_expr_value_si(res.tensor.sizes[1], &v) && v == 4);
    sc_graph_free(g);
    /* without them the result is unknown */
    ck_assert_int_eq(sc_graph_read_text(ctx, code, strlen(code), "t.py",
                                        NULL, &g, &err),
                     SC_OK);
    sc_graph_node_result(g, sc_graph_find(g, "relu"), &res);
    ck_assert_int_eq(res.kind, SC_RESULT_UNKNOWN);
    sc_graph_free(g);
    /* a bad type, an unknown name, an annotated input */
    ro.input_types = bad_types;
    ck_assert_int_ne(sc_graph_read_text(ctx, code, strlen(code), "t.py", &ro,
                                        &g, &err),
                     SC_OK);
    ck_assert_str_eq(format_error(&err), "t.py:4:24: unknown dtype code 'f99'");
    ro.input_types = types;
    ro.input_names = bad_names;
    ck_assert_int_eq(sc_graph_read_text(ctx, code, strlen(code), "t.py", &ro,
                                        &g, &err),
                     SC_ERR_INVALID);
    ck_assert_str_eq(err.message, "input type for 'zz': the graph has no such "
                                  "placeholder");
    ro.ninputs = 1;
    ck_assert_int_eq(sc_graph_read_text(ctx, annotated, strlen(annotated),
                                        "t.py", &ro, &g, &err),
                     SC_ERR_PARSE);
    ck_assert_str_eq(format_error(&err), "t.py:1:19: 'a_1' is annotated in "
                                         "the text: its type cannot be given "
                                         "as an input type");
    sc_ctx_free(ctx);
}
END_TEST

/* ---- Texts torch 2.13 printed (tests/data/read, tools/read) ------------ */

/* Every graph of a real log that symcut's op table can read: it reads,
 * re-prints stably, and the static inputs the log records are kept. */
static void check_real_log(const char *path, const char *const *names,
                           size_t n, bool trace)
{
    size_t len, i;
    char *data = slurp(path, &len);
    sc_graph_listing *l = NULL;
    sc_error err;

    ck_assert_msg(sc_graph_list_text(data, len, path, &l, &err) == SC_OK,
                  "%s", format_error(&err));
    ck_assert(sc_graph_listing_is_trace(l) == trace);
    for (i = 0; i < n; i++) {
        sc_ctx *ctx = sc_ctx_new();
        sc_graph *g = NULL, *g2 = NULL;
        sc_graph_read_options ro;
        char *text = NULL, *text2 = NULL;
        sc_graph_read_options_init(&ro);
        ro.graph = names[i];
        ck_assert_msg(sc_graph_read_text(ctx, data, len, path, &ro, &g,
                                         &err) == SC_OK,
                      "%s %s: %s", path, names[i], format_error(&err));
        if (strstr(names[i], "joint") || strstr(names[i], "forward"))
            ck_assert_str_eq(sc_graph_directive(g, "static_inputs"),
                             "0,1,3,4");
        ck_assert_int_eq(sc_graph_write_text(g, NULL, &text, NULL, &err),
                         SC_OK);
        ck_assert_int_eq(sc_graph_read_text(ctx, text, strlen(text), "w.py",
                                            NULL, &g2, &err),
                         SC_OK);
        ck_assert(sc_graph_equal(g, g2, 0, NULL, 0));
        ck_assert_int_eq(sc_graph_get_kind(g), sc_graph_get_kind(g2));
        ck_assert_int_eq(sc_graph_write_text(g2, NULL, &text2, NULL, &err),
                         SC_OK);
        ck_assert_str_eq(text, text2);
        free(text);
        free(text2);
        sc_graph_free(g);
        sc_graph_free(g2);
        sc_ctx_free(ctx);
    }
    sc_graph_listing_free(l);
    free(data);
}

START_TEST(test_real_logs)
{
    static const char *const logs[] = {"0/0:joint", "0/0:forward",
                                       "0/0:backward"};
    static const char *const trace[] = {"0/0:joint", "0/0:forward",
                                        "0/0:backward"};
    check_real_log("train.torch_logs.txt", logs, 3, false);
    check_real_log("train.trace.log", trace, 3, true);
}
END_TEST

START_TEST(test_real_constructs)
{
    static const char *const names[] = {"<lambda>", "const", "branch"};
    size_t len, i;
    char *data = slurp("constructs.txt", &len);
    for (i = 0; i < 3; i++) {
        sc_ctx *ctx = sc_ctx_new();
        sc_graph *g = NULL;
        sc_graph_read_options ro;
        sc_error err;
        sc_graph_read_options_init(&ro);
        ro.graph = names[i];
        ck_assert_msg(sc_graph_read_text(ctx, data, len, "c.txt", &ro, &g,
                                         &err) == SC_OK,
                      "%s: %s", names[i], format_error(&err));
        ck_assert_str_eq(sc_graph_class_name(g), names[i]);
        sc_graph_free(g);
        sc_ctx_free(ctx);
    }
    free(data);
}
END_TEST

/* ---- Mutations and exhaustion -------------------------------------------- */

/* Randomly mutated logs never crash: they read (and then write), or fail
 * with a located error or a choice to make. */
START_TEST(test_mutations)
{
    static const char *const files[] = {"train.torch_logs.txt",
                                        "train.trace.log", "constructs.txt"};
    static const char *const choose[] = {"0/0:joint", "0/0:backward",
                                         "branch"};
    static const char alphabet[] = "()[]{},:;=.-\"'# \n\tx0aN_\\<>/";
    sc_test_rng rng;
    uint64_t seed = sc_test_seed();
    long cases = sc_test_cases(300), k;
    sc_ctx *ctx = sc_ctx_new();
    char *origs[3], *buf;
    size_t lens[3], maxlen = 0, f;

    for (f = 0; f < 3; f++) {
        origs[f] = slurp(files[f], &lens[f]);
        if (lens[f] > maxlen)
            maxlen = lens[f];
    }
    buf = malloc(maxlen + 1);
    ck_assert_ptr_nonnull(buf);
    sc_test_rng_init(&rng, seed ^ 0x72656164ull);
    for (k = 0; k < cases; k++) {
        size_t which = sc_test_rng_below(&rng, 3), n = lens[which], m, i;
        sc_graph *g = NULL;
        sc_graph_read_options ro;
        sc_error err;
        sc_status st;
        memcpy(buf, origs[which], n);
        m = 1 + sc_test_rng_below(&rng, 4);
        for (i = 0; i < m && n > 0; i++) {
            size_t at = sc_test_rng_below(&rng, n);
            switch (sc_test_rng_below(&rng, 3)) {
            case 0:
                buf[at] = alphabet[sc_test_rng_below(&rng, sizeof alphabet - 1)];
                break;
            case 1:
                n = at;
                break;
            default:
                memmove(buf + at, buf + at + 1, n - at - 1);
                n--;
                break;
            }
        }
        sc_graph_read_options_init(&ro);
        ro.graph = sc_test_rng_below(&rng, 4) ? choose[which] : NULL;
        st = sc_graph_read_text(ctx, buf, n, "m.py", &ro, &g, &err);
        if (st == SC_OK) {
            char *text = NULL;
            ck_assert_int_eq(sc_graph_write_text(g, NULL, &text, NULL, &err),
                             SC_OK);
            free(text);
            sc_graph_free(g);
        } else {
            ck_assert_ptr_null(g);
            ck_assert_msg(err.line > 0 || st == SC_ERR_INVALID ||
                              st == SC_ERR_SHAPE || st == SC_ERR_TYPE,
                          "seed %llu case %ld: unlocated %s",
                          (unsigned long long)seed, k, format_error(&err));
        }
        sc_ctx_take_error(ctx, NULL);
    }
    for (f = 0; f < 3; f++)
        free(origs[f]);
    free(buf);
    sc_ctx_free(ctx);
}
END_TEST

/* Every allocation of reading a trace's graph, and of listing a log,
 * failing in turn: SC_ERR_NOMEM, never a crash or a leak. */
START_TEST(test_nomem)
{
    sc_ctx *ctx = sc_ctx_new();
    size_t len;
    char *trace = slurp("train.trace.log", &len);
    long n;
    bool done = false;

    for (n = 0; n < 100000 && !done; n++) {
        sc_graph *g = NULL;
        sc_graph_listing *l = NULL;
        sc_graph_read_options ro;
        sc_error err;
        sc_status st;
        char *text = NULL;
        sc_graph_read_options_init(&ro);
        ro.graph = "0/0:forward";
        sc__alloc_fail_after(n);
        st = sc_graph_list_text(trace, len, "t.log", &l, &err);
        if (st == SC_OK)
            st = sc_graph_read_text(ctx, trace, len, "t.log", &ro, &g, &err);
        if (st == SC_OK)
            st = sc_graph_write_text(g, NULL, &text, NULL, &err);
        if (st == SC_OK)
            done = true;
        sc__alloc_fail_after(-1);
        free(text);
        sc_graph_free(g);
        sc_graph_listing_free(l);
        if (st != SC_OK)
            ck_assert_msg(err.code == SC_ERR_NOMEM || sc_ctx_error(ctx)->code,
                          "after %ld allocations: %s", n, err.message);
        sc_ctx_take_error(ctx, NULL);
    }
    ck_assert(done);
    free(trace);
    sc_ctx_free(ctx);
}
END_TEST

Suite *read_suite(void)
{
    Suite *s = suite_create("read");
    TCase *tc = tcase_create("framing");
    tcase_add_loop_test(tc, test_frames, 0, NFRAMES);
    tcase_add_test(tc, test_frame_comments);
    tcase_add_test(tc, test_listing);
    tcase_add_loop_test(tc, test_traces, 0, NTRACES);
    suite_add_tcase(s, tc);
    tc = tcase_create("constructs");
    tcase_add_loop_test(tc, test_constructs, 0, NCONSTRUCTS);
    tcase_add_loop_test(tc, test_construct_errors, 0, NCONSTRUCT_ERRORS);
    tcase_add_test(tc, test_kinds);
    tcase_add_test(tc, test_strict_and_input_types);
    suite_add_tcase(s, tc);
    tc = tcase_create("real");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_real_logs);
    tcase_add_test(tc, test_real_constructs);
    tcase_add_test(tc, test_mutations);
    tcase_add_test(tc, test_nomem);
    suite_add_tcase(s, tc);
    return s;
}
