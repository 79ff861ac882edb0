/* symcut tests — the partition reports with their context: the JSON
 * schema (parsed with jansson), the stable codes, the memory budget's
 * outcome and the reasons under a budget, the DOT picture's legend,
 * clusters, far edges and neighbourhood view. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <jansson.h>

#include <symcut.h>

Suite *report_suite(void);

static char *example(const char *name)
{
    const char *top = getenv("top_srcdir");
    size_t n = (top ? strlen(top) : 1) + strlen(name) + 16;
    char *p = malloc(n);
    ck_assert_ptr_nonnull(p);
    snprintf(p, n, "%s/examples/%s", top ? top : ".", name);
    return p;
}

typedef struct run {
    sc_ctx *ctx;
    sc_graph *g;
    sc_partition *p;
    sc_partition_options opts;
    sc_partition_budget_outcome budget;
    sc_partition_report_info info;
    char *path;
} run;

/* Partition an example (policy, budget as given) and explain its budget. */
static void run_open(run *r, const char *name, sc_partition_policy policy,
                     int kind, uint64_t bytes, double ratio)
{
    sc_error err;
    memset(r, 0, sizeof *r);
    r->ctx = sc_ctx_new();
    r->path = example(name);
    ck_assert_int_eq(sc_graph_read_file(r->ctx, r->path, NULL, &r->g, &err),
                     SC_OK);
    sc_partition_options_init(&r->opts);
    r->opts.policy = policy;
    r->opts.flags |= SC_PARTITION_NO_GRAPHS;
    r->opts.memory_budget_kind = kind;
    r->opts.memory_budget_bytes = bytes;
    r->opts.memory_budget_ratio = ratio;
    ck_assert_msg(sc_partition_run(r->g, &r->opts, &r->p, &err) == SC_OK,
                  "%s: %s", name, err.message);
    ck_assert_msg(sc_partition_budget_explain(r->g, &r->opts, r->p,
                                              &r->budget, &err) == SC_OK,
                  "%s: %s", name, err.message);
    sc_partition_report_info_init(&r->info);
    r->info.input = r->path;
    r->info.budget = kind != SC_PARTITION_BUDGET_NONE ? &r->budget : NULL;
}

static void run_close(run *r)
{
    sc_partition_free(r->p);
    sc_graph_free(r->g);
    sc_ctx_free(r->ctx);
    free(r->path);
}

static json_t *report_json(const run *r)
{
    char *text = NULL;
    size_t len;
    json_error_t jerr;
    json_t *root;
    sc_error err;
    ck_assert_int_eq(sc_partition_write_report(r->p, &r->info,
                                               SC_PARTITION_REPORT_JSON,
                                               SC_PARTITION_REPORT_NO_TIMINGS,
                                               &text, &len, &err),
                     SC_OK);
    root = json_loadb(text, len, 0, &jerr);
    ck_assert_msg(root != NULL, "JSON does not parse: %s (line %d)",
                  jerr.text, jerr.line);
    free(text);
    return root;
}

static const char *str_field(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    ck_assert_msg(json_is_string(v), "field %s is not a string", k);
    return json_string_value(v);
}

/* The place a reason code speaks of: its prefix up to '_' ("saved_..."). */
static bool code_matches_place(const char *code, const char *place)
{
    size_t n = strlen(place);
    if (strcmp(code, "dead") == 0 || strcmp(code, "folded") == 0 ||
        strcmp(code, "unused") == 0)
        return strcmp(code, place) == 0;
    return strncmp(code, place, n) == 0 && code[n] == '_';
}

/* Every node of the JSON: name, op, type, place, a reason code that
 * matches the place and the prose; a ban as the code with the prose
 * beside it. */
static void check_nodes(const run *r, json_t *root)
{
    json_t *nodes = json_object_get(root, "nodes");
    size_t i;
    ck_assert(json_is_array(nodes));
    ck_assert_uint_eq(json_array_size(nodes), sc_graph_node_count(r->g));
    for (i = 0; i < json_array_size(nodes); i++) {
        json_t *o = json_array_get(nodes, i);
        const char *name = str_field(o, "name"), *place = str_field(o, "place");
        const char *code = str_field(o, "reason_code"),
                   *reason = str_field(o, "reason"), *op = str_field(o, "op");
        const char *target = sc_graph_node_target(r->g, (sc_node_id)i);
        json_t *ban = json_object_get(o, "ban");
        ck_assert_str_eq(name, sc_graph_node_name(r->g, (sc_node_id)i));
        ck_assert_str_eq(op, target ? target : "placeholder");
        ck_assert(strlen(str_field(o, "type")) > 0);
        ck_assert_msg(code_matches_place(code, place), "%s: code %s, place %s",
                      name, code, place);
        /* the prose starts with the place ("saved: ...") */
        ck_assert_msg(strncmp(reason, place, strlen(place)) == 0 ||
                          strcmp(code, "dead") == 0 ||
                          strcmp(code, "folded") == 0,
                      "%s: reason '%s', place %s", name, reason, place);
        if (ban) {
            sc_partition_ban b = sc_partition_node_ban(r->p, (sc_node_id)i);
            ck_assert_str_eq(json_string_value(ban), sc_partition_ban_code(b));
            ck_assert_str_eq(str_field(o, "ban_text"),
                             sc_partition_ban_name(b));
        }
    }
}

START_TEST(test_codes)
{
    size_t i, j;
    for (i = 0; i < SC_PARTITION_BAN_COUNT_; i++) {
        const char *c = sc_partition_ban_code((sc_partition_ban)i);
        ck_assert_ptr_nonnull(c);
        ck_assert(strspn(c, "abcdefghijklmnopqrstuvwxyz_") == strlen(c));
        for (j = 0; j < i; j++)
            ck_assert_str_ne(c, sc_partition_ban_code((sc_partition_ban)j));
    }
    ck_assert_ptr_null(sc_partition_ban_code(SC_PARTITION_BAN_COUNT_));
    ck_assert_str_eq(sc_partition_ban_code(SC_PARTITION_BAN_COMPUTE_INTENSIVE),
                     "compute_intensive");
    for (i = 0; i < SC_PARTITION_SOLVER_COUNT_; i++) {
        ck_assert_ptr_nonnull(sc_partition_solver_code((sc_partition_solver)i));
        ck_assert_ptr_nonnull(sc_partition_solver_text((sc_partition_solver)i));
        for (j = 0; j < i; j++)
            ck_assert_str_ne(sc_partition_solver_code((sc_partition_solver)i),
                             sc_partition_solver_code((sc_partition_solver)j));
    }
    ck_assert_ptr_null(sc_partition_solver_code(SC_PARTITION_SOLVER_COUNT_));
}
END_TEST

/* No budget: the JSON's head fields, the nodes, and the old writer gives
 * the same as the new one without context (but input null). */
START_TEST(test_json_schema)
{
    static const char *const names[] = {"mlp_gelu_dyn.joint.txt",
                                        "small_cnn.joint.txt",
                                        "attention_single_head.joint.txt"};
    size_t k;
    for (k = 0; k < sizeof names / sizeof names[0]; k++) {
        run r;
        json_t *root, *input, *hints;
        char *old = NULL;
        sc_error err;
        size_t i;
        run_open(&r, names[k], SC_PARTITION_PYTORCH, SC_PARTITION_BUDGET_NONE,
                 0, 0);
        root = report_json(&r);
        ck_assert_int_eq(
            json_integer_value(json_object_get(root, "format_version")),
            SC_PARTITION_REPORT_FORMAT_VERSION);
        input = json_object_get(root, "input");
        ck_assert_str_eq(str_field(input, "file"), r.path);
        ck_assert(json_is_false(json_object_get(input, "forward")));
        ck_assert(json_is_null(json_object_get(root, "memory_budget")));
        hints = json_object_get(root, "hints");
        ck_assert(json_is_array(hints));
        for (i = 0; i < json_array_size(hints); i++) {
            json_t *h = json_array_get(hints, i);
            const char *src = str_field(h, "source");
            ck_assert(strcmp(src, "hint") == 0 ||
                      strcmp(src, "fallback") == 0);
            ck_assert(json_is_integer(json_object_get(h, "value")));
        }
        if (k == 0) { /* mlp_gelu_dyn: s0, no hint in its text */
            ck_assert_uint_eq(json_array_size(hints), 1);
            ck_assert_str_eq(str_field(json_array_get(hints, 0), "symbol"),
                             "s0");
            ck_assert_str_eq(str_field(json_array_get(hints, 0), "source"),
                             "fallback");
        }
        check_nodes(&r, root);
        json_decref(root);
        ck_assert_int_eq(sc_partition_write_json(r.p,
                                                 SC_PARTITION_REPORT_NO_TIMINGS,
                                                 &old, NULL, &err),
                         SC_OK);
        ck_assert_ptr_nonnull(strstr(old, "\"file\": null"));
        free(old);
        run_close(&r);
    }
}
END_TEST

/* A hint given to the graph is the value the report names. */
START_TEST(test_json_hint)
{
    run r;
    sc_expr *s0;
    sc_error err;
    json_t *root, *h;
    run_open(&r, "mlp_gelu_dyn.joint.txt", SC_PARTITION_PYTORCH,
             SC_PARTITION_BUDGET_NONE, 0, 0);
    ck_assert_uint_eq(sc_graph_symbols(r.g, &s0, 1), 1);
    ck_assert_int_eq(sc_graph_set_hint(r.g, s0, 8, &err), SC_OK);
    sc_partition_free(r.p);
    ck_assert_int_eq(sc_partition_run(r.g, &r.opts, &r.p, &err), SC_OK);
    root = report_json(&r);
    h = json_array_get(json_object_get(root, "hints"), 0);
    ck_assert_str_eq(str_field(h, "symbol"), "s0");
    ck_assert_str_eq(str_field(h, "source"), "hint");
    ck_assert_int_eq(json_integer_value(json_object_get(h, "value")), 8);
    json_decref(root);
    run_close(&r);
}
END_TEST

/* Is ban one the exact frontier prices (partition/frontier.c)? */
static bool priced(sc_partition_ban b)
{
    return b == SC_PARTITION_BAN_NOT_RECOMPUTABLE ||
           b == SC_PARTITION_BAN_COMPUTE_INTENSIVE ||
           b == SC_PARTITION_BAN_REDUCTION ||
           b == SC_PARTITION_BAN_MATERIALIZED_BACKWARD ||
           b == SC_PARTITION_BAN_USED_FAR_APART ||
           b == SC_PARTITION_BAN_LONG_FUSIBLE_CHAIN ||
           b == SC_PARTITION_BAN_FAR_FROM_BACKWARD;
}

/* Under an exact budget: the outcome agrees with the frontier, the JSON
 * carries it, and no saved node's reason cites a ban the frontier priced. */
START_TEST(test_exact_budget)
{
    run r;
    json_t *root, *b;
    char *text = NULL;
    sc_error err;
    size_t i, nheur = 0;

    run_open(&r, "small_cnn.joint.txt", SC_PARTITION_EXACT,
             SC_PARTITION_BUDGET_BYTES, 1200000, 0);
    ck_assert_int_eq(r.budget.kind, SC_PARTITION_BUDGET_BYTES);
    ck_assert(r.budget.has_budget_bytes);
    ck_assert_uint_eq(r.budget.budget_bytes, 1200000);
    ck_assert(r.budget.solver == SC_PARTITION_SOLVER_EXACT_HULL ||
              r.budget.solver == SC_PARTITION_SOLVER_EXACT_MILP);
    ck_assert(r.budget.valid);
    ck_assert_uint_le(r.budget.saved_bytes, 1200000);
    ck_assert_uint_eq(r.budget.saved_bytes,
                      (uint64_t)sc_partition_saved_bytes(r.p));
    ck_assert_uint_le(r.budget.hull_bound, r.budget.recompute_cost);
    ck_assert_uint_le(r.budget.lower_bound, r.budget.recompute_cost);
    ck_assert_uint_eq(r.budget.gap,
                      r.budget.recompute_cost - r.budget.lower_bound);
    if (r.budget.optimal)
        ck_assert_uint_eq(r.budget.gap, 0);
    ck_assert_uint_le(r.budget.least_bytes, r.budget.saved_bytes);
    root = report_json(&r);
    b = json_object_get(root, "memory_budget");
    ck_assert(json_is_object(b));
    ck_assert_str_eq(str_field(b, "kind"), "bytes");
    ck_assert_str_eq(str_field(b, "solver"),
                     sc_partition_solver_code(r.budget.solver));
    ck_assert_int_eq(json_integer_value(json_object_get(b, "lower_bound")),
                     (json_int_t)r.budget.lower_bound);
    ck_assert(json_is_boolean(json_object_get(b, "optimal")));
    check_nodes(&r, root);
    json_decref(root);
    for (i = 0; i < sc_partition_saved_tensor_count(r.p); i++) {
        sc_node_id id = sc_partition_saved_tensor(r.p, i);
        const char *code;
        sc_partition_report_reason(r.p, &r.budget, id, &code);
        if (priced(sc_partition_node_ban(r.p, id))) {
            nheur++;
            ck_assert_str_eq(code, "saved_budget");
        }
        ck_assert_str_ne(code, "saved_min_cut");
    }
    ck_assert_uint_gt(nheur, 0); /* relu, relu_1: materialized in the bw */
    ck_assert_int_eq(sc_partition_write_report(r.p, &r.info,
                                               SC_PARTITION_REPORT_TEXT,
                                               SC_PARTITION_REPORT_NO_TIMINGS,
                                               &text, NULL, &err),
                     SC_OK);
    ck_assert_ptr_null(strstr(text, "materialized in the backward anyway"));
    ck_assert_ptr_nonnull(strstr(text, "\nmemory budget: 1200000 bytes\n"));
    ck_assert_ptr_nonnull(strstr(text, "\nsolver: exact_"));
    free(text);
    /* without the outcome the old reasons stay */
    ck_assert_int_eq(sc_partition_write_text(r.p,
                                             SC_PARTITION_REPORT_NO_TIMINGS,
                                             &text, NULL, &err),
                     SC_OK);
    ck_assert_ptr_nonnull(strstr(text, "materialized in the backward anyway"));
    free(text);
    run_close(&r);

    /* the least bytes: a hull vertex, optimal, no gap */
    run_open(&r, "mlp_gelu.joint.txt", SC_PARTITION_EXACT,
             SC_PARTITION_BUDGET_RATIO, 0, 0.0);
    ck_assert_int_eq(r.budget.solver, SC_PARTITION_SOLVER_EXACT_HULL);
    ck_assert(r.budget.optimal);
    ck_assert_uint_eq(r.budget.gap, 0);
    ck_assert_uint_eq(r.budget.budget_bytes, r.budget.least_bytes);
    run_close(&r);
}
END_TEST

START_TEST(test_torch_budget)
{
    run r;
    json_t *root, *b;
    run_open(&r, "mlp_gelu.joint.txt", SC_PARTITION_PYTORCH_2_13,
             SC_PARTITION_BUDGET_RATIO, 0, 0.3);
    ck_assert(!r.budget.has_budget_bytes);
    ck_assert(!r.budget.optimal);
    ck_assert(r.budget.solver >= SC_PARTITION_SOLVER_TORCH_DEFAULT_CUT);
    root = report_json(&r);
    b = json_object_get(root, "memory_budget");
    ck_assert_str_eq(str_field(b, "kind"), "ratio");
    ck_assert(json_is_null(json_object_get(b, "budget_bytes")));
    ck_assert_str_eq(str_field(b, "solver")  , sc_partition_solver_code(r.budget.solver));
    ck_assert(strncmp(str_field(b, "solver"), "torch_", 6) == 0);
    json_decref(root);
    run_close(&r);
}
END_TEST

static size_t count(const char *s, const char *what)
{
    size_t n = 0;
    for (; (s = strstr(s, what)); s += strlen(what))
        n++;
    return n;
}

/* Node statements of a DOT text ("nK [label=..." and the output's). */
static size_t dot_nodes(const char *dot)
{
    return count(dot, " [label=\"") - count(dot, "-> output [label=\"");
}

START_TEST(test_dot_views)
{
    run r;
    char *dot = NULL;
    sc_error err;
    size_t n;

    run_open(&r, "mlp_gelu.joint.txt", SC_PARTITION_PYTORCH,
             SC_PARTITION_BUDGET_NONE, 0, 0);
    ck_assert_int_eq(sc_partition_write_report(r.p, &r.info,
                                               SC_PARTITION_REPORT_DOT, 0,
                                               &dot, NULL, &err),
                     SC_OK);
    ck_assert_ptr_nonnull(strstr(dot, "\n  legend [shape=plaintext"));
    ck_assert_ptr_nonnull(strstr(dot, ">saved (forward to backward)<"));
    ck_assert_ptr_nonnull(strstr(dot, "subgraph cluster_1 {"));
    ck_assert_ptr_null(strstr(dot, "from far"));
    n = dot_nodes(dot);
    ck_assert_uint_eq(n, sc_graph_node_count(r.g) + 1); /* + output */
    free(dot);
    /* one node and its direct neighbours */
    r.info.around = sc_graph_find(r.g, "addmm");
    ck_assert_int_ge(r.info.around, 0);
    r.info.around_depth = 1;
    ck_assert_int_eq(sc_partition_write_report(r.p, &r.info,
                                               SC_PARTITION_REPORT_DOT, 0,
                                               &dot, NULL, &err),
                     SC_OK);
    {
        size_t nu = 0, na = sc_graph_node_arg_count(r.g, r.info.around),
               kept = dot_nodes(dot) - 1, i;
        const sc_node_id *u = sc_graph_node_users(r.g, r.info.around, &nu);
        char want[64];
        ck_assert_uint_le(kept, 1 + nu + na);
        ck_assert_uint_ge(kept, 1 + nu);
        for (i = 0; i < nu; i++) {
            snprintf(want, sizeof want, "n%ld [label=\"%s\\n", (long)u[i],
                     sc_graph_node_name(r.g, u[i]));
            ck_assert_ptr_nonnull(strstr(dot, want));
        }
        ck_assert_ptr_nonnull(strstr(dot, "edge from addmm"));
    }
    free(dot);
    r.info.around = (sc_node_id)sc_graph_node_count(r.g);
    ck_assert_int_eq(sc_partition_write_report(r.p, &r.info,
                                               SC_PARTITION_REPORT_DOT, 0,
                                               &dot, NULL, &err),
                     SC_ERR_INVALID);
    ck_assert_ptr_null(dot);
    run_close(&r);

    /* 500-odd nodes: no clusters, straight edges, far edges named */
    run_open(&r, "lstm_module.joint.txt", SC_PARTITION_PYTORCH,
             SC_PARTITION_BUDGET_NONE, 0, 0);
    ck_assert_int_eq(sc_partition_write_report(r.p, &r.info,
                                               SC_PARTITION_REPORT_DOT, 0,
                                               &dot, NULL, &err),
                     SC_OK);
    ck_assert_ptr_null(strstr(dot, "subgraph cluster"));
    ck_assert_ptr_nonnull(strstr(dot, "splines=line;"));
    ck_assert_ptr_nonnull(strstr(dot, "from far: "));
    ck_assert_ptr_nonnull(strstr(dot, "\n  legend [shape=plaintext"));
    free(dot);
    run_close(&r);
}
END_TEST

Suite *report_suite(void)
{
    Suite *s = suite_create("report");
    TCase *tc = tcase_create("report");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_codes);
    tcase_add_test(tc, test_json_schema);
    tcase_add_test(tc, test_json_hint);
    tcase_add_test(tc, test_exact_budget);
    tcase_add_test(tc, test_torch_budget);
    tcase_add_test(tc, test_dot_views);
    suite_add_tcase(s, tc);
    return s;
}
