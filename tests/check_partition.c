/* symcut tests — the min-cut partitioner.
 *
 * The examples and PyTorch's recorded decisions are read from
 * $top_srcdir/examples (make check sets top_srcdir), else ./examples.
 * The random tests take SYMCUT_SEED and SYMCUT_CASES (tests/testutil.h). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <symcut/graph.h>
#include <symcut/partition.h>

#include "tests/testutil.h"

Suite *partition_suite(void);

/* ---- Helpers -------------------------------------------------------------- */

static const char *const examples[] = {
    "mlp_gelu",          "mlp_gelu_dyn",
    "fn_mm_gelu_sum",    "fn_mm_gelu_sum_dyn",
    "attention_single_head", "transformer_encoder_layer",
    "small_cnn",         "lm_head_ce",
    "residual_mlp_16",   "two_output_mlp",
    "lstm_module"};
#define NEXAMPLES (sizeof examples / sizeof examples[0])

static char *example_path(const char *name, const char *suffix)
{
    const char *top = getenv("top_srcdir");
    size_t n = (top ? strlen(top) : 1) + strlen(name) + strlen(suffix) + 16;
    char *p = malloc(n);
    ck_assert_ptr_nonnull(p);
    snprintf(p, n, "%s/examples/%s%s", top ? top : ".", name, suffix);
    return p;
}

typedef struct example {
    sc_ctx *ctx;
    sc_graph *g;
    json_t *js;
    json_t *min_cut; /* the decision to compare with */
} example;

static void example_load(example *ex, const char *name)
{
    char *jpath = example_path(name, ".pytorch.json");
    char *gpath = example_path(name, ".joint.txt");
    json_error_t jerr;
    sc_graph_read_options ro;
    sc_expr *syms[8];
    int64_t vals[8];
    size_t nh = 0, i;
    json_t *symbols;
    sc_error err;

    ex->js = json_load_file(jpath, 0, &jerr);
    ck_assert_msg(ex->js != NULL, "%s: %s", jpath, jerr.text);
    ex->min_cut = json_object_get(ex->js, "min_cut_size_hint_patch");
    if (!ex->min_cut)
        ex->min_cut = json_object_get(ex->js, "min_cut");
    ex->ctx = sc_ctx_new();
    ck_assert_ptr_nonnull(ex->ctx);
    symbols = json_object_get(json_object_get(ex->js, "joint"), "symbols");
    for (i = 0; symbols && i < json_array_size(symbols) && nh < 8; i++) {
        json_t *s = json_array_get(symbols, i);
        const char *modern =
            json_string_value(json_object_get(s, "modern_name"));
        const char *printed =
            json_string_value(json_object_get(s, "printed_as"));
        if (!modern || !printed || strcmp(modern, printed) != 0)
            continue;
        syms[nh] = sc_expr_symbol(ex->ctx, modern);
        vals[nh] = json_integer_value(json_object_get(s, "hint"));
        nh++;
    }
    sc_graph_read_options_init(&ro);
    ro.nhints = nh;
    ro.hint_symbols = syms;
    ro.hint_values = vals;
    sc_error_init(&err);
    ck_assert_msg(sc_graph_read_file(ex->ctx, gpath, &ro, &ex->g, &err) ==
                      SC_OK,
                  "%s: %s", gpath, err.message);
    free(jpath);
    free(gpath);
}

static void example_free(example *ex)
{
    sc_graph_free(ex->g);
    sc_ctx_free(ex->ctx);
    json_decref(ex->js);
}

static sc_partition *run(const sc_graph *g, sc_partition_policy policy,
                         unsigned flags)
{
    sc_partition_options o;
    sc_partition *p = NULL;
    sc_error err;
    sc_partition_options_init(&o);
    o.policy = policy;
    o.flags = flags;
    sc_error_init(&err);
    ck_assert_msg(sc_partition_run(g, &o, &p, &err) == SC_OK, "%s",
                  err.message);
    ck_assert_ptr_nonnull(p);
    return p;
}

static bool name_in(const sc_graph *g, const char *name, size_t n,
                    const sc_node_id *ids)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (ids[i] != SC_NODE_NONE &&
            strcmp(sc_graph_node_name(g, ids[i]), name) == 0)
            return true;
    return false;
}

/* The partition is valid: the forward reads only primals, the backward
 * only saved values and tangents, each saved value is a forward output. */
static void check_valid(const sc_partition *p)
{
    const sc_graph *j = sc_partition_joint(p);
    const sc_graph *fw = sc_partition_forward(p);
    const sc_graph *bw = sc_partition_backward(p);
    size_t i, nfo, nst = sc_partition_num_saved_tensors(p);
    size_t nss = sc_partition_num_saved_symints(p);
    size_t nfwd = sc_graph_num_fwd_outputs(j);
    sc_node_id *fouts;

    ck_assert_ptr_nonnull(fw);
    ck_assert_ptr_nonnull(bw);
    ck_assert_uint_eq(sc_graph_num_tangents(fw), 0);
    ck_assert_uint_eq(sc_graph_num_placeholders(fw), sc_graph_num_primals(j));
    for (i = 0; i < sc_graph_num_placeholders(fw); i++)
        ck_assert_int_eq(sc_graph_node_role(fw, (sc_node_id)i),
                         SC_ROLE_PRIMAL);
    nfo = sc_graph_num_outputs(fw);
    ck_assert_uint_eq(nfo, nfwd + nst + nss);
    fouts = malloc((nfo + 1) * sizeof *fouts);
    ck_assert_ptr_nonnull(fouts);
    for (i = 0; i < nfo; i++)
        fouts[i] = sc_graph_output(fw, i);
    ck_assert_uint_eq(sc_graph_num_placeholders(bw),
                      nst + nss + sc_graph_num_tangents(j));
    for (i = 0; i < sc_graph_num_placeholders(bw); i++) {
        const char *name = sc_graph_node_name(bw, (sc_node_id)i);
        if (sc_graph_node_role(bw, (sc_node_id)i) == SC_ROLE_TANGENT)
            continue;
        ck_assert_msg(name_in(fw, name, nfo - nfwd, fouts + nfwd),
                      "backward input %s is not a saved forward output",
                      name);
    }
    ck_assert_uint_eq(sc_graph_num_outputs(bw),
                      sc_graph_num_outputs(j) - nfwd);
    free(fouts);
}

static void check_names(const sc_partition *p, json_t *want,
                        size_t (*count)(const sc_partition *),
                        sc_node_id (*at)(const sc_partition *, size_t),
                        const char *what, const char *ex)
{
    const sc_graph *g = sc_partition_joint(p);
    size_t i, n = count(p);
    ck_assert_msg(want != NULL, "%s: no %s in the JSON", ex, what);
    ck_assert_msg(n == json_array_size(want), "%s: %zu %s, PyTorch %zu", ex,
                  n, what, json_array_size(want));
    for (i = 0; i < n; i++)
        ck_assert_msg(strcmp(sc_graph_node_name(g, at(p, i)),
                             json_string_value(json_array_get(want, i))) ==
                          0,
                      "%s: %s[%zu] is %s, PyTorch %s", ex, what, i,
                      sc_graph_node_name(g, at(p, i)),
                      json_string_value(json_array_get(want, i)));
}

/* ---- The examples: PyTorch 1.13's decisions exactly ------------------------ */

START_TEST(test_example_1_13)
{
    example ex;
    sc_partition *p;
    const sc_graph *fw, *bw;
    json_t *mc, *v, *bwp;
    size_t i, nfc = 0, nbc = 0;
    const char *name = examples[_i];

    example_load(&ex, name);
    p = run(ex.g, SC_PARTITION_PYTORCH_1_13, 0);
    mc = ex.min_cut;
    check_names(p, json_object_get(mc, "saved_tensors"),
                sc_partition_num_saved_tensors, sc_partition_saved_tensor,
                "saved_tensors", name);
    check_names(p, json_object_get(mc, "saved_symints"),
                sc_partition_num_saved_symints, sc_partition_saved_symint,
                "saved_symints", name);
    check_names(p, json_object_get(mc, "recomputed_in_bw"),
                sc_partition_num_recomputed, sc_partition_recomputed,
                "recomputed", name);
    ck_assert_int_eq(sc_partition_saved_bytes(p),
                     json_integer_value(
                         json_object_get(mc, "saved_tensor_bytes")));
    v = json_object_get(mc, "flow_cut_value");
    if (v) {
        ck_assert_int_eq(sc_partition_cut_value(p), json_integer_value(v));
        ck_assert_uint_eq(sc_partition_network_vertices(p),
                          json_integer_value(
                              json_object_get(mc, "flow_graph_nodes")));
    }
    ck_assert_int_eq(
        sc_partition_trivial_bytes(p),
        json_integer_value(json_object_get(
            json_object_get(ex.js, "default_partition"),
            "saved_tensor_bytes")));
    ck_assert_uint_eq(sc_partition_num_folded(p),
                      json_object_size(json_object_get(
                          json_object_get(ex.js, "joint"), "cse_duplicates")));
    check_valid(p);
    fw = sc_partition_forward(p);
    bw = sc_partition_backward(p);
    for (i = 0; i < sc_graph_num_nodes(fw); i++)
        nfc += sc_graph_node_kind(fw, (sc_node_id)i) == SC_NODE_CALL;
    for (i = 0; i < sc_graph_num_nodes(bw); i++)
        nbc += sc_graph_node_kind(bw, (sc_node_id)i) == SC_NODE_CALL;
    ck_assert_int_eq((json_int_t)nfc,
                     json_integer_value(
                         json_object_get(mc, "fw_call_function_nodes")));
    ck_assert_int_eq((json_int_t)nbc,
                     json_integer_value(
                         json_object_get(mc, "bw_call_function_nodes")));
    bwp = json_object_get(mc, "bw_placeholders");
    ck_assert_uint_eq(sc_graph_num_placeholders(bw), json_array_size(bwp));
    for (i = 0; i < json_array_size(bwp); i++)
        ck_assert_str_eq(sc_graph_node_name(bw, (sc_node_id)i),
                         json_string_value(json_array_get(bwp, i)));
    sc_partition_free(p);
    example_free(&ex);
}
END_TEST

/* The other policies: valid, deterministic, and exact never saves more
 * bytes than pytorch (same recompute rules, bytes minimized). */
START_TEST(test_example_policies)
{
    example ex;
    sc_partition *a, *b, *e;
    char *ja, *jb;
    sc_error err;

    example_load(&ex, examples[_i]);
    a = run(ex.g, SC_PARTITION_PYTORCH, 0);
    b = run(ex.g, SC_PARTITION_PYTORCH, 0);
    e = run(ex.g, SC_PARTITION_EXACT, 0);
    check_valid(a);
    check_valid(e);
    ck_assert_int_le(sc_partition_saved_bytes(e), sc_partition_saved_bytes(a));
    ck_assert_int_le(sc_partition_saved_bytes(e),
                     sc_partition_trivial_bytes(e));
    sc_error_init(&err);
    ck_assert_int_eq(sc_partition_write_json(a, SC_PARTITION_REPORT_NO_TIMINGS,
                                             &ja, NULL, &err),
                     SC_OK);
    ck_assert_int_eq(sc_partition_write_json(b, SC_PARTITION_REPORT_NO_TIMINGS,
                                             &jb, NULL, &err),
                     SC_OK);
    ck_assert_str_eq(ja, jb);
    free(ja);
    free(jb);
    sc_partition_free(a);
    sc_partition_free(b);
    sc_partition_free(e);
    example_free(&ex);
}
END_TEST

/* The graphs written by the partitioner read back equal. */
START_TEST(test_example_roundtrip)
{
    example ex;
    sc_partition *p;
    const sc_graph *gs[2];
    size_t k;

    example_load(&ex, examples[_i]);
    p = run(ex.g, SC_PARTITION_PYTORCH_1_13, 0);
    gs[0] = sc_partition_forward(p);
    gs[1] = sc_partition_backward(p);
    for (k = 0; k < 2; k++) {
        char *text, why[256];
        size_t len;
        sc_graph *back = NULL;
        sc_graph_read_options ro;
        sc_error err;
        sc_error_init(&err);
        ck_assert_int_eq(sc_graph_write_text(gs[k], NULL, &text, &len, &err),
                         SC_OK);
        sc_graph_read_options_init(&ro);
        ro.num_fwd_outputs = (long)sc_graph_num_fwd_outputs(gs[k]);
        ck_assert_msg(sc_graph_read_text(ex.ctx, text, len, "partitioned",
                                         &ro, &back, &err) == SC_OK,
                      "%s: %s", examples[_i], err.message);
        ck_assert_msg(sc_graph_equal(gs[k], back, 0, why, sizeof why), "%s",
                      why);
        sc_graph_free(back);
        free(text);
    }
    sc_partition_free(p);
    example_free(&ex);
}
END_TEST

/* ---- Hand-built graphs --------------------------------------------------- */

typedef struct tb {
    sc_ctx *ctx;
    sc_graph *g;
    sc_error err;
} tb;

static void tb_init(tb *t)
{
    t->ctx = sc_ctx_new();
    ck_assert_ptr_nonnull(t->ctx);
    t->g = sc_graph_new(t->ctx);
    ck_assert_ptr_nonnull(t->g);
    sc_error_init(&t->err);
}

static void tb_free(tb *t)
{
    sc_graph_free(t->g);
    sc_ctx_free(t->ctx);
}

static void tensor_meta(tb *t, sc_result *r, sc_expr **dims, size_t ndim,
                        const int64_t *sizes)
{
    size_t i;
    sc_result_init(r);
    r->kind = SC_RESULT_TENSOR;
    r->tensor.dtype = SC_DTYPE_F32;
    r->tensor.ndim = ndim;
    for (i = 0; i < ndim; i++) {
        dims[i] = sc_expr_int_si(t->ctx, sizes[i]);
        ck_assert_ptr_nonnull(dims[i]);
    }
    r->tensor.sizes = dims;
}

/* A placeholder f32[n] (or [a, b] when b > 0). */
static sc_node_id tb_ph(tb *t, const char *name, sc_role role, int64_t a,
                        int64_t b)
{
    sc_result r;
    sc_expr *dims[2];
    int64_t s[2] = {a, b};
    sc_node_id id;
    tensor_meta(t, &r, dims, b > 0 ? 2 : 1, s);
    ck_assert_msg(sc_graph_add_placeholder(t->g, name, role, &r, &id,
                                           &t->err) == SC_OK,
                  "%s", t->err.message);
    return id;
}

/* A call of `aten.<op>` on nodes x (and y), result f32[a] / f32[a, b]. */
static sc_node_id tb_call(tb *t, const char *name, const char *target,
                          size_t nargs, const sc_node_id *args, int64_t a,
                          int64_t b)
{
    sc_result r;
    sc_expr *dims[2];
    int64_t s[2] = {a, b};
    sc_value v[4];
    sc_node_id id;
    size_t i;
    char full[128];
    snprintf(full, sizeof full, "torch.ops.aten.%s", target);
    for (i = 0; i < nargs; i++)
        v[i] = sc_value_node(args[i]);
    if (a > 0)
        tensor_meta(t, &r, dims, b > 0 ? 2 : 1, s);
    ck_assert_msg(sc_graph_add_call(t->g, name, full, nargs, v, 0, NULL, NULL,
                                    a > 0 ? &r : NULL, &id, &t->err) == SC_OK,
                  "%s: %s", name, t->err.message);
    return id;
}

/* The same, the result inferred by the op's shape rule; SC_NODE_NONE when
 * the rule rejects the arguments (the graph is unchanged). */
static sc_node_id try_call(tb *t, const char *name, const char *target,
                           size_t nargs, const sc_node_id *args)
{
    sc_value v[4];
    sc_node_id id;
    size_t i;
    char full[128];
    snprintf(full, sizeof full, "torch.ops.aten.%s", target);
    for (i = 0; i < nargs; i++)
        v[i] = sc_value_node(args[i]);
    if (sc_graph_add_call(t->g, name, full, nargs, v, 0, NULL, NULL, NULL,
                          &id, &t->err) != SC_OK)
        return SC_NODE_NONE;
    return id;
}

static sc_node_id call1(tb *t, const char *name, const char *op,
                        sc_node_id x, int64_t a)
{
    return tb_call(t, name, op, 1, &x, a, 0);
}

static sc_node_id call2(tb *t, const char *name, const char *op,
                        sc_node_id x, sc_node_id y, int64_t a)
{
    sc_node_id args[2] = {x, y};
    return tb_call(t, name, op, 2, args, a, 0);
}

static void tb_finish(tb *t, size_t n, const sc_node_id *outs, size_t nfwd)
{
    ck_assert_int_eq(sc_graph_set_outputs(t->g, n, outs, nfwd, &t->err),
                     SC_OK);
    ck_assert_msg(sc_graph_finish(t->g, &t->err) == SC_OK, "%s",
                  t->err.message);
}

static sc_node_id node(const tb *t, const char *name)
{
    sc_node_id id = sc_graph_find(t->g, name);
    ck_assert_msg(id != SC_NODE_NONE, "no node %s", name);
    return id;
}

static bool saved(const sc_partition *p, sc_node_id id)
{
    size_t i;
    for (i = 0; i < sc_partition_num_saved_tensors(p); i++)
        if (sc_partition_saved_tensor(p, i) == id)
            return true;
    return false;
}

/* x -> a = relu(x) -> b = relu(a) -> out = sum(b); the backward reads b:
 * grad = mul(tangent, b). */
static void chain_graph(tb *t)
{
    sc_node_id x, a, b, o, tg, gr, outs[2];
    tb_init(t);
    x = tb_ph(t, "primals_1", SC_ROLE_PRIMAL, 64, 0);
    tg = tb_ph(t, "tangents_1", SC_ROLE_TANGENT, 64, 0);
    a = call1(t, "a", "relu.default", x, 64);
    b = call1(t, "b", "relu.default", a, 64);
    o = call1(t, "o", "neg.default", b, 64);
    gr = call2(t, "gr", "mul.Tensor", tg, b, 64);
    outs[0] = o;
    outs[1] = gr;
    tb_finish(t, 2, outs, 1);
}

/* Tie-break: x, a and b all cost 256 bytes under exact; PyTorch's reading
 * of the cut (the smallest sink side) saves the one nearest the backward:
 * b. */
START_TEST(test_tie_break)
{
    tb t;
    sc_partition *p;
    chain_graph(&t);
    p = run(t.g, SC_PARTITION_EXACT, 0);
    ck_assert_uint_eq(sc_partition_num_saved_tensors(p), 1);
    ck_assert_str_eq(sc_graph_node_name(t.g, sc_partition_saved_tensor(p, 0)),
                     "b");
    ck_assert_int_eq(sc_partition_cut_value(p), 256);
    check_valid(p);
    sc_partition_free(p);
    tb_free(&t);
}
END_TEST

/* Tags: must_recompute b forces the cut further up; must_save a with
 * b must_recompute saves a; prefer_recompute lifts a ban. */
START_TEST(test_tags)
{
    tb t;
    sc_partition *p;
    sc_partition_options o;
    const char *names[2] = {"b", "a"};
    sc_partition_tag tags[2] = {SC_PARTITION_TAG_MUST_RECOMPUTE,
                                SC_PARTITION_TAG_MUST_SAVE};
    sc_error err;

    chain_graph(&t);
    sc_partition_options_init(&o);
    o.policy = SC_PARTITION_EXACT;
    o.ntags = 1;
    o.tag_nodes = names;
    o.tags = tags;
    sc_error_init(&err);
    ck_assert_int_eq(sc_partition_run(t.g, &o, &p, &err), SC_OK);
    ck_assert(!saved(p, node(&t, "b")));
    ck_assert(saved(p, node(&t, "a")));
    ck_assert_int_eq(sc_partition_node_place(p, node(&t, "b")),
                     SC_PARTITION_PLACE_RECOMPUTED);
    ck_assert_int_eq(sc_partition_node_tag(p, node(&t, "b")),
                     SC_PARTITION_TAG_MUST_RECOMPUTE);
    check_valid(p);
    sc_partition_free(p);

    /* Both must_recompute: a and b recomputed, x saved. */
    tags[1] = SC_PARTITION_TAG_MUST_RECOMPUTE;
    o.ntags = 2;
    ck_assert_int_eq(sc_partition_run(t.g, &o, &p, &err), SC_OK);
    ck_assert(saved(p, node(&t, "primals_1")));
    ck_assert_uint_eq(sc_partition_num_recomputed(p), 2);
    sc_partition_free(p);

    /* Tagged from a graph directive. */
    ck_assert_int_eq(sc_graph_set_directive(t.g, "must_save", "a", &err),
                     SC_OK);
    o.ntags = 0;
    o.policy = SC_PARTITION_PYTORCH;
    ck_assert_int_eq(sc_partition_run(t.g, &o, &p, &err), SC_OK);
    ck_assert_int_eq(sc_partition_node_ban(p, node(&t, "a")),
                     SC_PARTITION_BAN_MUST_SAVE);
    sc_partition_free(p);

    /* An unknown node name is an error. */
    names[0] = "nope";
    o.ntags = 1;
    ck_assert_int_eq(sc_partition_run(t.g, &o, &p, &err), SC_ERR_INVALID);
    ck_assert_ptr_null(p);
    ck_assert_ptr_nonnull(strstr(err.message, "nope"));
    tb_free(&t);
}
END_TEST

/* prefer_recompute exempts a node from the ban rules. */
START_TEST(test_prefer_recompute)
{
    tb t;
    sc_node_id x, tg, s, o, gr, outs[2];
    sc_partition *p;
    sc_partition_options opts;
    const char *names[1] = {"s"};
    sc_partition_tag tags[1] = {SC_PARTITION_TAG_PREFER_RECOMPUTE};
    sc_error err;

    tb_init(&t);
    x = tb_ph(&t, "primals_1", SC_ROLE_PRIMAL, 64, 0);
    tg = tb_ph(&t, "tangents_1", SC_ROLE_TANGENT, 64, 0);
    s = call1(&t, "s", "sum.default", x, 0); /* 4x smaller: banned */
    o = call1(&t, "o", "neg.default", s, 0);
    gr = call2(&t, "gr", "mul.Tensor", tg, s, 0);
    outs[0] = o;
    outs[1] = gr;
    tb_finish(&t, 2, outs, 1);
    p = run(t.g, SC_PARTITION_PYTORCH, 0);
    ck_assert_int_eq(sc_partition_node_ban(p, s), SC_PARTITION_BAN_REDUCTION);
    sc_partition_free(p);
    sc_partition_options_init(&opts);
    opts.ntags = 1;
    opts.tag_nodes = names;
    opts.tags = tags;
    sc_error_init(&err);
    ck_assert_int_eq(sc_partition_run(t.g, &opts, &p, &err), SC_OK);
    ck_assert_int_eq(sc_partition_node_ban(p, s), SC_PARTITION_BAN_NONE);
    sc_partition_free(p);
    tb_free(&t);
}
END_TEST

/* One graph exercising each ban rule of the pytorch policy. */
START_TEST(test_ban_rules)
{
    tb t;
    sc_node_id x, w, tg, m, c, r, s, e, f, g2, o, g, outs[3];
    sc_node_id args2[2];
    sc_partition *p;

    tb_init(&t);
    x = tb_ph(&t, "primals_1", SC_ROLE_PRIMAL, 8, 8);
    w = tb_ph(&t, "primals_2", SC_ROLE_PRIMAL, 8, 8);
    tg = tb_ph(&t, "tangents_1", SC_ROLE_TANGENT, 8, 8);
    args2[0] = x;
    args2[1] = w;
    m = tb_call(&t, "mm", "mm.default", 2, args2, 0, 0);    /* compute */
    r = call1(&t, "relu", "relu.default", m, 0);           /* fine */
    s = call1(&t, "sum_1", "sum.default", r, 0);           /* reduction */
    e = call1(&t, "exp", "exp.default", r, 0);             /* materialized */
    f = call1(&t, "neg", "neg.default", e, 0);
    {
        sc_value lv[2], a[1];
        lv[0] = sc_value_node(r);
        lv[1] = sc_value_node(f);
        a[0] = sc_value_list(2, lv);
        ck_assert_msg(sc_graph_add_call(t.g, "cat",
                                        "torch.ops.aten.cat.default", 1, a, 0,
                                        NULL, NULL, NULL, &c, &t.err) == SC_OK,
                      "%s", t.err.message);               /* other */
    }
    o = call2(&t, "o", "add.Tensor", c, s, 0);
    args2[0] = tg;
    args2[1] = e;
    g = tb_call(&t, "g", "mm.default", 2, args2, 0, 0);   /* bw mm of exp */
    args2[0] = c;
    args2[1] = g;
    g2 = tb_call(&t, "g2", "mm.default", 2, args2, 0, 0);
    outs[0] = o;
    outs[1] = g2;
    outs[2] = SC_NODE_NONE;
    tb_finish(&t, 3, outs, 1);

    p = run(t.g, SC_PARTITION_PYTORCH, 0);
    ck_assert_int_eq(sc_partition_node_ban(p, x), SC_PARTITION_BAN_PRIMAL);
    ck_assert_int_eq(sc_partition_node_ban(p, m),
                     SC_PARTITION_BAN_COMPUTE_INTENSIVE);
    ck_assert_int_eq(sc_partition_node_ban(p, r), SC_PARTITION_BAN_NONE);
    ck_assert_int_eq(sc_partition_node_ban(p, s),
                     SC_PARTITION_BAN_REDUCTION);
    ck_assert_int_eq(sc_partition_node_ban(p, e),
                     SC_PARTITION_BAN_MATERIALIZED_BACKWARD);
    ck_assert_int_eq(sc_partition_node_ban(p, c),
                     SC_PARTITION_BAN_NOT_RECOMPUTABLE);
    ck_assert(sc_partition_node_class(p, g) & SC_PARTITION_TANGENT_CLOSURE);
    ck_assert(sc_partition_node_class(p, m) & SC_PARTITION_REQUIRED_FW);
    ck_assert(saved(p, e));
    ck_assert(saved(p, c));
    ck_assert_ptr_nonnull(strstr(sc_partition_node_reason(p, c), "banned"));
    check_valid(p);
    sc_partition_free(p);

    /* 1.13 has no materialized-backward rule, and exp is recomputable. */
    p = run(t.g, SC_PARTITION_PYTORCH_1_13, 0);
    ck_assert_int_eq(sc_partition_node_ban(p, e), SC_PARTITION_BAN_NONE);
    ck_assert_int_eq(sc_partition_node_ban(p, c),
                     SC_PARTITION_BAN_NOT_RECOMPUTABLE);
    check_valid(p);
    sc_partition_free(p);
    tb_free(&t);
}
END_TEST

/* CSE folds equal pure calls, never random ones; DCE drops dead nodes. */
START_TEST(test_cse_dce)
{
    tb t;
    sc_node_id x, tg, a1, a2, d, dead, b, gr, outs[2];
    sc_value v[3];
    sc_result r;
    sc_expr *dims[1];
    int64_t n = 16;
    sc_partition *p;

    tb_init(&t);
    x = tb_ph(&t, "primals_1", SC_ROLE_PRIMAL, 16, 0);
    tg = tb_ph(&t, "tangents_1", SC_ROLE_TANGENT, 16, 0);
    a1 = call1(&t, "a1", "relu.default", x, 0);
    a2 = call1(&t, "a2", "relu.default", x, 0);
    v[0] = sc_value_node(x);
    v[1] = sc_value_float(0.5, "0.5");
    v[2] = sc_value_float(0.5, "0.5");
    (void)r;
    (void)dims;
    (void)n;
    ck_assert_msg(sc_graph_add_call(t.g, "b1", "torch.ops.aten.bernoulli.p",
                                    2, v, 0, NULL, NULL, NULL, &d,
                                    &t.err) == SC_OK,
                  "%s", t.err.message);
    ck_assert_msg(sc_graph_add_call(t.g, "b2", "torch.ops.aten.bernoulli.p",
                                    2, v, 0, NULL, NULL, NULL, &b,
                                    &t.err) == SC_OK,
                  "%s", t.err.message);
    dead = call1(&t, "dead", "exp.default", a2, 0);
    (void)dead;
    b = call2(&t, "s", "add.Tensor", a1, a2, 0);
    b = call2(&t, "s2", "add.Tensor", b, d, 0);
    b = call2(&t, "s3", "add.Tensor", b, node(&t, "b2"), 0);
    gr = call2(&t, "gr", "mul.Tensor", tg, b, 0);
    outs[0] = b;
    outs[1] = gr;
    tb_finish(&t, 2, outs, 1);
    p = run(t.g, SC_PARTITION_PYTORCH_1_13, 0);
    ck_assert_uint_eq(sc_partition_num_folded(p), 1);
    ck_assert_int_eq(sc_partition_node_representative(p, a2), a1);
    ck_assert_int_eq(sc_partition_node_place(p, a2),
                     SC_PARTITION_PLACE_FOLDED);
    ck_assert_int_eq(sc_partition_node_place(p, node(&t, "b2")),
                     SC_PARTITION_PLACE_FORWARD);
    ck_assert_int_eq(sc_partition_node_place(p, node(&t, "dead")),
                     SC_PARTITION_PLACE_DEAD);
    ck_assert_uint_eq(sc_partition_num_dead(p), 1);
    check_valid(p);
    sc_partition_free(p);
    p = run(t.g, SC_PARTITION_PYTORCH_1_13, SC_PARTITION_NO_CSE);
    ck_assert_uint_eq(sc_partition_num_folded(p), 0);
    sc_partition_free(p);
    tb_free(&t);
}
END_TEST

/* No finite cut: a banned tuple (infinite weight) read directly by the
 * backward.  The error names the path and a reason for each step. */
START_TEST(test_infinite_path)
{
    tb t;
    sc_node_id x, tg, tup, g0, o, bad, outs[2];
    sc_value v[2];
    sc_result r;
    sc_expr *dims[1];
    int64_t n = 16;
    sc_partition *p = NULL;
    sc_partition_options opts;
    sc_error err;

    tb_init(&t);
    x = tb_ph(&t, "primals_1", SC_ROLE_PRIMAL, 16, 0);
    tg = tb_ph(&t, "tangents_1", SC_ROLE_TANGENT, 16, 0);
    sc_result_init(&r);
    r.kind = SC_RESULT_TUPLE;
    r.count = 2;
    v[0] = sc_value_node(x);
    ck_assert_int_eq(sc_graph_add_call(t.g, "pair",
                                       "torch.ops.aten.my_pair.default", 1, v,
                                       0, NULL, NULL, &r, &tup, &t.err),
                     SC_OK);
    tensor_meta(&t, &r, dims, 1, &n);
    v[0] = sc_value_node(tup);
    v[1] = sc_value_int(0);
    ck_assert_int_eq(sc_graph_add_call(t.g, "getitem", "operator.getitem", 2,
                                       v, 0, NULL, NULL, &r, &g0, &t.err),
                     SC_OK);
    o = call1(&t, "o", "neg.default", g0, 16);
    v[0] = sc_value_node(tg);
    v[1] = sc_value_node(tup);
    ck_assert_int_eq(sc_graph_add_call(t.g, "use_pair",
                                       "torch.ops.aten.my_use.default", 2, v,
                                       0, NULL, NULL, &r, &bad, &t.err),
                     SC_OK);
    outs[0] = o;
    outs[1] = bad;
    tb_finish(&t, 2, outs, 1);
    sc_partition_options_init(&opts);
    sc_error_init(&err);
    ck_assert_int_eq(sc_partition_run(t.g, &opts, &p, &err),
                     SC_ERR_UNSUPPORTED);
    ck_assert_ptr_null(p);
    ck_assert_ptr_nonnull(strstr(err.message, "source -> pair"));
    ck_assert_ptr_nonnull(strstr(err.message, "tuple"));
    ck_assert_ptr_nonnull(strstr(err.message, "use_pair"));
    ck_assert_ptr_nonnull(strstr(err.message, "depends on a tangent"));
    ck_assert_ptr_nonnull(strstr(err.message, "-> sink"));
    tb_free(&t);
}
END_TEST

/* Bad options and graphs are errors, not crashes. */
START_TEST(test_option_errors)
{
    tb t;
    sc_partition *p = NULL;
    sc_partition_options o;
    sc_error err;
    sc_node_id x, outs[1];

    chain_graph(&t);
    sc_partition_options_init(&o);
    sc_error_init(&err);
    o.num_fwd_outputs = 5;
    ck_assert_int_eq(sc_partition_run(t.g, &o, &p, &err), SC_ERR_INVALID);
    ck_assert_ptr_null(p);
    sc_partition_options_init(&o);
    o.num_params = 3;
    ck_assert_int_eq(sc_partition_run(t.g, &o, &p, &err), SC_ERR_INVALID);
    sc_partition_options_init(&o);
    o.policy = (sc_partition_policy)42;
    ck_assert_int_eq(sc_partition_run(t.g, &o, &p, &err), SC_ERR_INVALID);
    ck_assert_int_eq(sc_graph_set_directive(t.g, "params", "x", &err), SC_OK);
    sc_partition_options_init(&o);
    ck_assert_int_eq(sc_partition_run(t.g, &o, &p, &err), SC_ERR_INVALID);
    ck_assert_int_eq(sc_graph_set_directive(t.g, "params", "1", &err), SC_OK);
    ck_assert_int_eq(sc_partition_run(t.g, &o, &p, &err), SC_OK);
    /* A parameter is free to save: the cut takes it. */
    ck_assert(saved(p, node(&t, "primals_1")));
    ck_assert_int_eq(sc_partition_cut_value(p), 0);
    sc_partition_free(p);
    tb_free(&t);

    /* Not a joint graph: no tangents. */
    tb_init(&t);
    x = tb_ph(&t, "primals_1", SC_ROLE_PRIMAL, 4, 0);
    outs[0] = call1(&t, "r", "relu.default", x, 4);
    tb_finish(&t, 1, outs, 1);
    ck_assert_int_eq(sc_partition_run(t.g, NULL, &p, &err), SC_ERR_INVALID);
    tb_free(&t);

    ck_assert(sc_partition_policy_from_name("pytorch-1.13",
                                            &o.policy));
    ck_assert_int_eq(o.policy, SC_PARTITION_PYTORCH_1_13);
    ck_assert(!sc_partition_policy_from_name("nope", &o.policy));
}
END_TEST

/* Symbolic sizes: the saved bytes as a formula, evaluated at the hints. */
START_TEST(test_symbolic_formula)
{
    example ex;
    sc_partition *p;
    char *s;
    example_load(&ex, "fn_mm_gelu_sum_dyn");
    p = run(ex.g, SC_PARTITION_PYTORCH_1_13, 0);
    s = sc_expr_to_str(ex.ctx, sc_partition_saved_bytes_expr(p));
    ck_assert_str_eq(s, "4*s0**2 + 4*s0*s1 + 8*s0*s2");
    free(s);
    ck_assert_int_eq(sc_partition_saved_bytes(p), 2816);
    sc_partition_free(p);
    example_free(&ex);
}
END_TEST

/* ---- Random joint graphs against a brute-force minimum -------------------- */

static void random_graph(tb *t, sc_test_rng *rng)
{
    sc_node_id pool[32], bw[16], outs[8], tg;
    size_t np = 1 + sc_test_rng_below(rng, 3), nf, nb, npool = 0, i;
    int64_t R = 1 + (int64_t)sc_test_rng_below(rng, 6);
    int64_t C = 1 + (int64_t)sc_test_rng_below(rng, 6);
    char name[32];
    static const char *const un[] = {"relu.default", "exp.default",
                                     "neg.default", "sum.default"};
    static const char *const bin[] = {"add.Tensor", "mul.Tensor",
                                      "mm.default"};

    tb_init(t);
    for (i = 0; i < np; i++) {
        uint64_t k = sc_test_rng_below(rng, 3);
        snprintf(name, sizeof name, "primals_%zu", i + 1);
        pool[npool++] = tb_ph(t, name, SC_ROLE_PRIMAL, k == 1 ? 1 : R,
                              k == 0 ? 1 : C);
    }
    tg = tb_ph(t, "tangents_1", SC_ROLE_TANGENT, R, C);
    nf = 2 + sc_test_rng_below(rng, 7);
    for (i = 0; i < nf; i++) {
        sc_node_id args[2], id;
        snprintf(name, sizeof name, "f%zu", i);
        args[0] = pool[sc_test_rng_below(rng, npool)];
        args[1] = pool[sc_test_rng_below(rng, npool)];
        if (sc_test_rng_below(rng, 2))
            id = try_call(t, name, un[sc_test_rng_below(rng, 4)], 1, args);
        else
            id = try_call(t, name, bin[sc_test_rng_below(rng, 3)], 2, args);
        if (id == SC_NODE_NONE)
            id = try_call(t, name, "add.Tensor", 2, args);
        ck_assert_msg(id != SC_NODE_NONE, "%s", t->err.message);
        pool[npool++] = id;
    }
    nb = 1 + sc_test_rng_below(rng, 5);
    for (i = 0; i < nb; i++) {
        sc_node_id args[2];
        snprintf(name, sizeof name, "g%zu", i);
        args[0] = i ? bw[sc_test_rng_below(rng, i)] : tg;
        args[1] = pool[sc_test_rng_below(rng, npool)];
        bw[i] = try_call(t, name, bin[sc_test_rng_below(rng, 2)], 2, args);
        ck_assert_msg(bw[i] != SC_NODE_NONE, "%s", t->err.message);
    }
    outs[0] = pool[npool - 1];
    for (i = 0; i < np; i++)
        outs[1 + i] = i == 0 ? bw[nb - 1]
                             : sc_test_rng_below(rng, 2)
                                   ? bw[sc_test_rng_below(rng, nb)]
                                   : SC_NODE_NONE;
    tb_finish(t, 1 + np, outs, 1);
}

/* Does the source reach the sink through the network of p's decisions
 * when the X_in -> X_out edges of the nodes in `cut` are removed? */
static bool reaches_sink(const sc_partition *p, const sc_graph *g,
                         const bool *cut, bool *seen_in, bool *seen_out)
{
    size_t n = sc_graph_num_nodes(g), i, k, nu;
    memset(seen_in, 0, n);
    memset(seen_out, 0, n);
    for (i = 0; i < n; i++) {
        sc_node_id id = (sc_node_id)i;
        unsigned cls = sc_partition_node_class(p, id);
        const sc_node_id *us;
        sc_partition_place pl = sc_partition_node_place(p, id);
        if (pl == SC_PARTITION_PLACE_DEAD)
            continue;
        if (sc_partition_node_ban(p, id) != SC_PARTITION_BAN_NONE)
            seen_in[i] = true;
        if (!seen_in[i])
            continue;
        if (cls & SC_PARTITION_TANGENT_CLOSURE)
            return true;
        if (cut[i])
            continue;
        seen_out[i] = true;
        if ((cls & SC_PARTITION_REQUIRED_BW) &&
            sc_partition_get_policy(p) != SC_PARTITION_PYTORCH_1_13)
            return true;
        us = sc_graph_node_users(g, id, &nu);
        for (k = 0; k < nu; k++)
            seen_in[us[k]] = true;
    }
    return false;
}

START_TEST(test_random_bruteforce)
{
    sc_test_rng rng;
    long cases = sc_test_cases(150), c;
    uint64_t seed = sc_test_seed();
    sc_partition_policy pols[3] = {SC_PARTITION_PYTORCH,
                                   SC_PARTITION_PYTORCH_1_13,
                                   SC_PARTITION_EXACT};
    sc_test_rng_init(&rng, seed ^ 0x9a27);
    for (c = 0; c < cases; c++) {
        tb t;
        size_t k;
        random_graph(&t, &rng);
        for (k = 0; k < 3; k++) {
            sc_partition *p = run(t.g, pols[k], SC_PARTITION_NO_CSE);
            size_t n = sc_graph_num_nodes(t.g), i, ncand = 0, mask;
            sc_node_id cand[32];
            bool cut[64], si[64], so[64];
            int64_t best = -1;
            ck_assert_uint_le(n, 64);
            for (i = 0; i < n; i++) {
                sc_node_id id = (sc_node_id)i;
                if (sc_partition_node_place(p, id) !=
                        SC_PARTITION_PLACE_DEAD &&
                    !(sc_partition_node_class(p, id) &
                      SC_PARTITION_TANGENT_CLOSURE) &&
                    sc_partition_node_weight(p, id) >= 0)
                    cand[ncand++] = id;
            }
            ck_assert_uint_le(ncand, 20);
            for (mask = 0; mask < ((size_t)1 << ncand); mask++) {
                int64_t cost = 0;
                memset(cut, 0, sizeof cut);
                for (i = 0; i < ncand; i++)
                    if (mask & ((size_t)1 << i)) {
                        cut[cand[i]] = true;
                        cost += sc_partition_node_weight(p, cand[i]);
                    }
                if ((best < 0 || cost < best) &&
                    !reaches_sink(p, t.g, cut, si, so))
                    best = cost;
            }
            ck_assert_msg(best == sc_partition_cut_value(p),
                          "seed %llu case %ld policy %s: cut %lld, brute "
                          "force %lld",
                          (unsigned long long)seed, c,
                          sc_partition_policy_name(pols[k]),
                          (long long)sc_partition_cut_value(p),
                          (long long)best);
            /* The saved set itself is a valid cut no dearer than the
             * minimum. */
            memset(cut, 0, sizeof cut);
            {
                int64_t cost = 0;
                for (i = 0; i < sc_partition_num_saved_tensors(p); i++) {
                    sc_node_id s = sc_partition_saved_tensor(p, i);
                    cut[s] = true;
                    cost += sc_partition_node_weight(p, s);
                }
                ck_assert(!reaches_sink(p, t.g, cut, si, so));
                ck_assert_int_le(cost, best);
            }
            check_valid(p);
            sc_partition_free(p);
        }
        tb_free(&t);
    }
}
END_TEST

/* ---- The reduced network reads the same cut -------------------------------- */

/* The partitioner solves a reduced flow network (contracted into the
 * source and the sink, pruned, in pieces); SC__PARTITION_FULL_NETWORK
 * solves the full network as PyTorch builds it.  Both must give the same
 * result: the same saved values in the same order, the same cut value, the
 * same place for every node, or the same error. */
#define SC__PARTITION_FULL_NETWORK_BIT (1u << 15) /* partition-internal.h */
#define SC__PARTITION_SMALL_PIECES_BIT (1u << 14)

static void compare_networks_with(const sc_graph *g,
                                  const sc_partition_options *base,
                                  unsigned reduced_flags, const char *what)
{
    sc_partition_options o = *base;
    sc_partition *a = NULL, *b = NULL;
    sc_error ea, eb;
    sc_status sa, sb;
    size_t i, n = sc_graph_num_nodes(g);

    sc_error_init(&ea);
    sc_error_init(&eb);
    o.flags = (base->flags & ~SC__PARTITION_FULL_NETWORK_BIT) |
              reduced_flags;
    sa = sc_partition_run(g, &o, &a, &ea);
    o.flags = base->flags | SC__PARTITION_FULL_NETWORK_BIT;
    sb = sc_partition_run(g, &o, &b, &eb);
    ck_assert_msg(sa == sb, "%s: status %d (reduced) vs %d (full): %s / %s",
                  what, (int)sa, (int)sb, ea.message, eb.message);
    if (sa != SC_OK) {
        ck_assert_str_eq(ea.message, eb.message);
        return;
    }
    ck_assert_msg(sc_partition_cut_value(a) == sc_partition_cut_value(b),
                  "%s: cut %lld (reduced) vs %lld (full)", what,
                  (long long)sc_partition_cut_value(a),
                  (long long)sc_partition_cut_value(b));
    ck_assert_msg(sc_partition_num_saved_tensors(a) ==
                      sc_partition_num_saved_tensors(b),
                  "%s: %zu saved (reduced) vs %zu (full)", what,
                  sc_partition_num_saved_tensors(a),
                  sc_partition_num_saved_tensors(b));
    for (i = 0; i < sc_partition_num_saved_tensors(a); i++)
        ck_assert_msg(sc_partition_saved_tensor(a, i) ==
                          sc_partition_saved_tensor(b, i),
                      "%s: saved tensor %zu differs", what, i);
    ck_assert_uint_eq(sc_partition_num_saved_symints(a),
                      sc_partition_num_saved_symints(b));
    for (i = 0; i < sc_partition_num_saved_symints(a); i++)
        ck_assert_int_eq(sc_partition_saved_symint(a, i),
                         sc_partition_saved_symint(b, i));
    for (i = 0; i < n; i++)
        ck_assert_msg(sc_partition_node_place(a, (sc_node_id)i) ==
                          sc_partition_node_place(b, (sc_node_id)i),
                      "%s: node %s is %s (reduced) vs %s (full)", what,
                      sc_graph_node_name(g, (sc_node_id)i),
                      sc_partition_place_name(
                          sc_partition_node_place(a, (sc_node_id)i)),
                      sc_partition_place_name(
                          sc_partition_node_place(b, (sc_node_id)i)));
    ck_assert_uint_eq(sc_partition_network_vertices(a),
                      sc_partition_network_vertices(b));
    ck_assert_uint_eq(sc_partition_network_edges(a),
                      sc_partition_network_edges(b));
    sc_partition_free(a);
    sc_partition_free(b);
}

/* Reduced (one piece, and pieces of a few vertices) against full. */
static void compare_networks(const sc_graph *g,
                             const sc_partition_options *base,
                             const char *what)
{
    compare_networks_with(g, base, 0, what);
    compare_networks_with(g, base, SC__PARTITION_SMALL_PIECES_BIT, what);
}

START_TEST(test_reduced_network_examples)
{
    example ex;
    size_t k;
    sc_partition_options o;
    char what[96];
    example_load(&ex, examples[_i]);
    for (k = 0; k < SC_PARTITION_POLICY_COUNT_; k++) {
        sc_partition_options_init(&o);
        o.policy = (sc_partition_policy)k;
        snprintf(what, sizeof what, "%s %s", examples[_i],
                 sc_partition_policy_name(o.policy));
        compare_networks(ex.g, &o, what);
    }
    example_free(&ex);
}
END_TEST

/* A random joint graph with many equal sizes (tied minimum cuts), empty
 * tensors (weight 0), forward values the backward never reads, backward
 * nodes that read forward values, and chains. */
static void random_tied_graph(tb *t, sc_test_rng *rng, size_t *nfwd_nodes)
{
    sc_node_id pool[96], bw[32], outs[8], tg;
    size_t np = 1 + sc_test_rng_below(rng, 4), nf, nb, npool = 0, i;
    int64_t R = (int64_t)sc_test_rng_below(rng, 3); /* 0: empty tensors */
    int64_t C = 1 + (int64_t)sc_test_rng_below(rng, 2);
    char name[32];
    static const char *const un[] = {"relu.default", "exp.default",
                                     "neg.default", "sum.default",
                                     "t.default", "sigmoid.default"};
    static const char *const bin[] = {"add.Tensor", "mul.Tensor",
                                      "mm.default", "add.Tensor"};

    tb_init(t);
    for (i = 0; i < np; i++) {
        snprintf(name, sizeof name, "primals_%zu", i + 1);
        pool[npool++] = tb_ph(t, name, SC_ROLE_PRIMAL,
                              sc_test_rng_below(rng, 4) ? R : C, C);
    }
    tg = tb_ph(t, "tangents_1", SC_ROLE_TANGENT, R, C);
    nf = 4 + sc_test_rng_below(rng, 40);
    for (i = 0; i < nf; i++) {
        sc_node_id args[2], id;
        size_t back = npool < 6 ? npool : 6;
        snprintf(name, sizeof name, "f%zu", i);
        /* mostly recent values: chains */
        args[0] = sc_test_rng_below(rng, 3)
                      ? pool[npool - 1 - sc_test_rng_below(rng, back)]
                      : pool[sc_test_rng_below(rng, npool)];
        args[1] = pool[sc_test_rng_below(rng, npool)];
        if (sc_test_rng_below(rng, 2))
            id = try_call(t, name, un[sc_test_rng_below(rng, 6)], 1, args);
        else
            id = try_call(t, name, bin[sc_test_rng_below(rng, 4)], 2, args);
        if (id == SC_NODE_NONE)
            id = try_call(t, name, "relu.default", 1, args);
        ck_assert_msg(id != SC_NODE_NONE, "%s", t->err.message);
        pool[npool++] = id;
    }
    *nfwd_nodes = nf;
    nb = 1 + sc_test_rng_below(rng, 12);
    for (i = 0; i < nb; i++) {
        sc_node_id args[2];
        snprintf(name, sizeof name, "g%zu", i);
        args[0] = i ? bw[sc_test_rng_below(rng, i)] : tg;
        args[1] = pool[sc_test_rng_below(rng, npool)];
        bw[i] = try_call(t, name, bin[sc_test_rng_below(rng, 2)], 2, args);
        if (bw[i] == SC_NODE_NONE)
            bw[i] = try_call(t, name, "relu.default", 1, args);
        ck_assert_msg(bw[i] != SC_NODE_NONE, "%s", t->err.message);
    }
    outs[0] = pool[npool - 1];
    outs[1] = pool[np + sc_test_rng_below(rng, nf)];
    for (i = 0; i < np; i++)
        outs[2 + i] = i == 0 ? bw[nb - 1]
                             : sc_test_rng_below(rng, 2)
                                   ? bw[sc_test_rng_below(rng, nb)]
                                   : SC_NODE_NONE;
    tb_finish(t, 2 + np, outs, 2);
}

START_TEST(test_reduced_network_random)
{
    sc_test_rng rng;
    long cases = sc_test_cases(300), c;
    uint64_t seed = sc_test_seed();
    sc_test_rng_init(&rng, seed ^ 0x7ed5);
    for (c = 0; c < cases; c++) {
        tb t;
        size_t nf, k, i, ntags;
        char names[4][32], what[96];
        const char *tag_nodes[4];
        sc_partition_tag tags[4];
        sc_partition_options o;
        random_tied_graph(&t, &rng, &nf);
        ntags = sc_test_rng_below(&rng, 4);
        for (i = 0; i < ntags; i++) {
            snprintf(names[i], sizeof names[i], "f%zu",
                     (size_t)sc_test_rng_below(&rng, nf));
            tag_nodes[i] = names[i];
            tags[i] = (sc_partition_tag)(1 + sc_test_rng_below(&rng, 3));
        }
        for (k = 0; k < SC_PARTITION_POLICY_COUNT_; k++) {
            sc_partition_options_init(&o);
            o.policy = (sc_partition_policy)k;
            o.num_params = (long)sc_test_rng_below(&rng, 2);
            o.ntags = ntags;
            o.tag_nodes = tag_nodes;
            o.tags = tags;
            o.flags = sc_test_rng_below(&rng, 2) ? SC_PARTITION_NO_CSE : 0;
            snprintf(what, sizeof what, "seed %llu case %ld policy %s",
                     (unsigned long long)seed, c,
                     sc_partition_policy_name(o.policy));
            compare_networks(t.g, &o, what);
        }
        tb_free(&t);
    }
}
END_TEST

/* ---- Reports --------------------------------------------------------------- */

START_TEST(test_reports)
{
    example ex;
    sc_partition *p;
    char *s;
    size_t len;
    sc_error err;
    json_t *j;
    json_error_t jerr;

    example_load(&ex, "mlp_gelu");
    p = run(ex.g, SC_PARTITION_PYTORCH_1_13, 0);
    sc_error_init(&err);
    ck_assert_int_eq(sc_partition_write_text(p, 0, &s, &len, &err), SC_OK);
    ck_assert_uint_eq(strlen(s), len);
    ck_assert_ptr_nonnull(strstr(s, "saved tensors (3)"));
    ck_assert_ptr_nonnull(strstr(s, "timings:"));
    free(s);
    ck_assert_int_eq(sc_partition_write_json(p, 0, &s, &len, &err), SC_OK);
    j = json_loads(s, 0, &jerr);
    ck_assert_ptr_nonnull(j);
    ck_assert_str_eq(json_string_value(json_object_get(j, "policy")),
                     "pytorch-1.13");
    ck_assert_int_eq(json_integer_value(json_object_get(j, "saved_bytes")),
                     106496);
    ck_assert_str_eq(
        json_string_value(json_object_get(j, "saved_bytes_formula")),
        "106496");
    ck_assert_uint_eq(json_array_size(json_object_get(j, "recomputed")), 1);
    ck_assert_ptr_nonnull(json_object_get(j, "timings"));
    ck_assert_ptr_nonnull(json_object_get(j, "forward_nodes"));
    ck_assert_ptr_nonnull(json_object_get(j, "backward_nodes"));
    json_decref(j);
    free(s);
    ck_assert_int_eq(sc_partition_write_dot(p, 0, &s, &len, &err), SC_OK);
    ck_assert(strncmp(s, "digraph", 7) == 0);
    ck_assert_ptr_nonnull(strstr(s, "#ffd92f"));
    ck_assert_ptr_nonnull(strstr(s, "#b2df8a"));
    free(s);
    sc_partition_free(p);
    example_free(&ex);
}
END_TEST

Suite *partition_suite(void)
{
    Suite *s = suite_create("partition");
    TCase *tc = tcase_create("examples");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_example_1_13, 0, (int)NEXAMPLES);
    tcase_add_loop_test(tc, test_example_policies, 0, (int)NEXAMPLES);
    tcase_add_loop_test(tc, test_example_roundtrip, 0, (int)NEXAMPLES);
    tcase_add_test(tc, test_symbolic_formula);
    tcase_add_test(tc, test_reports);
    suite_add_tcase(s, tc);
    tc = tcase_create("rules");
    tcase_add_test(tc, test_tie_break);
    tcase_add_test(tc, test_tags);
    tcase_add_test(tc, test_prefer_recompute);
    tcase_add_test(tc, test_ban_rules);
    tcase_add_test(tc, test_cse_dce);
    tcase_add_test(tc, test_infinite_path);
    tcase_add_test(tc, test_option_errors);
    suite_add_tcase(s, tc);
    tc = tcase_create("random");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_random_bruteforce);
    tcase_add_test(tc, test_reduced_network_random);
    tcase_add_loop_test(tc, test_reduced_network_examples, 0,
                        (int)NEXAMPLES);
    suite_add_tcase(s, tc);
    return s;
}
