/* symcut tests — the pytorch-2.13 memory budget (partition/budget-2.13.c)
 * against torch 2.13's own decisions.
 *
 * tests/data/budget-2.13/NAME.json (tools/oracle/budget.py) records, for
 * the zoo joint examples/zoo/NAME.joint.txt, what torch 2.13's
 * min_cut_rematerialization_partition saved under
 * activation_memory_budget 0, 0.05, ..., 1 (saved tensors and
 * SymInts in the order the forward returns them) and the knapsack it
 * solved (candidates, their estimated runtimes).  The same budgets as
 * SC_PARTITION_BUDGET_RATIO must save the same values in the same order,
 * and torch's runtime estimate of each knapsack candidate must be
 * symcut's.  Budgets where torch's partitioner failed are counted and
 * listed; the known differences are listed in
 * tests/data/budget-2.13/differences (one that matches fails too).
 * Data are read from $top_srcdir (make check sets it), else ".". */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dirent.h>
#include <jansson.h>

#include <symcut/graph.h>
#include <symcut/partition.h>

#include "partition/budget-2.13.h"
#include "tests/testutil.h"

Suite *budget_suite(void);

typedef struct model {
    sc_ctx *ctx;
    sc_graph *g;
    sc_expr *syms[16];
    int64_t vals[16];
    size_t nh;
    size_t pidx[512], np;
    long nfwd;
} model;

static bool model_load(model *m, const char *top, const char *name,
                       const json_t *js, char *why, size_t wlen)
{
    char path[2048];
    const char *k;
    json_t *v, *st = json_object_get(js, "static_inputs");
    sc_graph_read_options ro;
    sc_error err;
    size_t i;

    memset(m, 0, sizeof *m);
    m->ctx = sc_ctx_new();
    ck_assert_ptr_nonnull(m->ctx);
    json_object_foreach(json_object_get(js, "hints"), k, v)
    {
        ck_assert(m->nh < 16);
        m->syms[m->nh] = sc_expr_symbol(m->ctx, k);
        m->vals[m->nh++] = (int64_t)json_integer_value(v);
    }
    for (i = 0; i < json_array_size(st) && m->np < 512; i++)
        m->pidx[m->np++] = (size_t)json_integer_value(json_array_get(st, i));
    m->nfwd = (long)json_integer_value(json_object_get(js, "num_fwd_outputs"));
    sc_graph_read_options_init(&ro);
    ro.nhints = m->nh;
    ro.hint_symbols = m->syms;
    ro.hint_values = m->vals;
    snprintf(path, sizeof path, "%s/examples/zoo/%s.joint.txt", top, name);
    sc_error_init(&err);
    if (sc_graph_read_file(m->ctx, path, &ro, &m->g, &err) != SC_OK) {
        snprintf(why, wlen, "cannot read %.700s: %.700s", path, err.message);
        return false;
    }
    return true;
}

static void model_free(model *m)
{
    sc_graph_free(m->g);
    sc_ctx_free(m->ctx);
}

static sc_status model_run(model *m, int kind, double ratio,
                           sc_partition **p, sc_error *err)
{
    sc_partition_options po;
    sc_partition_options_init(&po);
    po.policy = SC_PARTITION_PYTORCH_2_13;
    po.num_fwd_outputs = m->nfwd;
    po.nparam_indices = m->np;
    po.param_indices = m->pidx;
    po.memory_budget_kind = kind;
    po.memory_budget_ratio = ratio;
    return sc_partition_run(m->g, &po, p, err);
}

/* The forward graph's saved values (its outputs after the forward
 * outputs) of one kind, in order, equal the names of want. */
static bool saved_equal(const sc_partition *p, long nfwd, bool symints,
                        const json_t *want)
{
    const sc_graph *fw = sc_partition_forward(p);
    size_t i, k = 0, n = sc_graph_output_count(fw);
    for (i = (size_t)nfwd; i < n; i++) {
        sc_node_id o = sc_graph_output(fw, i);
        sc_result r;
        if (o == SC_NODE_NONE)
            continue;
        sc_graph_node_result(fw, o, &r);
        if ((r.kind == SC_RESULT_TENSOR) == symints)
            continue;
        if (k >= json_array_size(want) ||
            strcmp(sc_graph_node_name(fw, o),
                   json_string_value(json_array_get(want, k))) != 0)
            return false;
        k++;
    }
    return k == json_array_size(want);
}

/* torch's estimate of each knapsack candidate is symcut's. */
static bool runtimes_equal(sc_partition *p, const json_t *ks, char *why,
                           size_t wlen)
{
    const json_t *names = json_object_get(ks, "candidates"),
                 *rts = json_object_get(ks, "runtime");
    size_t i;
    for (i = 0; i < json_array_size(names); i++) {
        const char *nm = json_string_value(json_array_get(names, i));
        sc_node_id id = sc_graph_find(sc_partition_joint(p), nm);
        double want = json_number_value(json_array_get(rts, i)), got = -1;
        sc_error err;
        if (id == SC_NODE_NONE ||
            sc__budget_2_13_runtime(p, id, &got, &err) != SC_OK ||
            (float)got != (float)want) {
            snprintf(why, wlen, "runtime of %s: torch %.17g, symcut %.17g",
                     nm, want, got);
            return false;
        }
    }
    return true;
}

/* Whether tests/data/budget-2.13/differences lists NAME at budget. */
static bool known_difference(const char *dir, const char *name, double budget)
{
    char path[1200], line[1024], nm[256];
    double b;
    bool found = false;
    FILE *f;
    snprintf(path, sizeof path, "%s/differences", dir);
    f = fopen(path, "r");
    ck_assert_msg(f != NULL, "no %s", path);
    while (!found && fgets(line, sizeof line, f))
        if (line[0] != '#' && sscanf(line, "%255s %lf", nm, &b) == 2 &&
            strcmp(nm, name) == 0 && fabs(b - budget) < 1e-9)
            found = true;
    fclose(f);
    return found;
}

START_TEST(test_zoo_budgets)
{
    const char *top = getenv("top_srcdir");
    char dir[1100], path[1400], why[1600];
    DIR *d;
    struct dirent *e;
    size_t n = 0, same = 0, failed = 0, models = 0, rt_checked = 0,
           known = 0, stale = 0;
    if (!top)
        top = ".";
    snprintf(dir, sizeof dir, "%s/tests/data/budget-2.13", top);
    d = opendir(dir);
    ck_assert_msg(d != NULL, "no %s", dir);
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name), i;
        char name[256];
        json_error_t jerr;
        json_t *js, *bs;
        model m;
        if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0 ||
            len - 5 >= sizeof name)
            continue;
        memcpy(name, e->d_name, len - 5);
        name[len - 5] = '\0';
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        js = json_load_file(path, 0, &jerr);
        ck_assert_msg(js != NULL, "%s: %s", path, jerr.text);
        if (!json_object_get(js, "budgets")) { /* flops.json */
            json_decref(js);
            continue;
        }
        models++;
        ck_assert_msg(model_load(&m, top, name, js, why, sizeof why), "%s",
                      why);
        bs = json_object_get(js, "budgets");
        for (i = 0; i < json_array_size(bs); i++) {
            const json_t *b = json_array_get(bs, i);
            double ratio = json_number_value(json_object_get(b, "budget"));
            sc_partition *p = NULL;
            sc_error err;
            sc_status st;
            n++;
            st = model_run(&m, SC_PARTITION_BUDGET_RATIO, ratio, &p, &err);
            if (json_object_get(b, "error")) {
                /* torch failed: symcut decides, or says why not */
                failed++;
                printf("test_zoo_budgets: %s at %.2f: torch failed (%s); "
                       "symcut: %s\n",
                       name, ratio,
                       json_string_value(json_object_get(b, "error")),
                       st == SC_OK ? "decides" : err.message);
                sc_partition_free(p);
                continue;
            }
            ck_assert_msg(st == SC_OK, "%s at %.2f: %s", name, ratio,
                          err.message);
            why[0] = '\0';
            if (!saved_equal(p, m.nfwd, false,
                             json_object_get(b, "saved_tensors")))
                snprintf(why, sizeof why, "saved tensors differ");
            else if (!saved_equal(p, m.nfwd, true,
                                  json_object_get(b, "saved_symints")))
                snprintf(why, sizeof why, "saved SymInts differ");
            else if (json_object_get(b, "knapsack") &&
                     !runtimes_equal(p, json_object_get(b, "knapsack"), why,
                                     sizeof why))
                ;
            else {
                same++;
                rt_checked += json_object_get(b, "knapsack") != NULL;
            }
            if (why[0] && known_difference(dir, name, ratio)) {
                known++;
                printf("test_zoo_budgets: %s at %.2f: %s (a known "
                       "difference)\n",
                       name, ratio, why);
            } else if (why[0]) {
                printf("test_zoo_budgets: %s at %.2f: %s\n", name, ratio, why);
            } else if (known_difference(dir, name, ratio)) {
                stale++;
                printf("test_zoo_budgets: %s at %.2f: listed in differences "
                       "but now equal\n",
                       name, ratio);
            }
            sc_partition_free(p);
        }
        model_free(&m);
        json_decref(js);
    }
    closedir(d);
    printf("test_zoo_budgets: %zu zoo joints, %zu budgets: %zu saved sets "
           "equal torch 2.13's (%zu through its knapsack), %zu known "
           "differences, %zu where torch fails\n",
           models, n, same, rt_checked, known, failed);
    fflush(stdout);
    ck_assert_msg(models > 0, "no expectations in %s", dir);
    ck_assert_msg(same + known + failed == n,
                  "%zu of %zu budgets differ from torch 2.13 (listed above)",
                  n - same - known - failed, n);
    ck_assert_msg(stale == 0, "%zu known differences now equal: remove them "
                  "from %s/differences", stale, dir);
}
END_TEST

/* Budget 1 is the default cut; bytes and out-of-range ratios are errors
 * under pytorch-2.13; budget 0 saves inputs only. */
START_TEST(test_budget_edges)
{
    const char *top = getenv("top_srcdir");
    char why[1600];
    char path[1400];
    json_error_t jerr;
    json_t *js;
    model m;
    sc_partition *p0 = NULL, *p1 = NULL, *p = NULL;
    sc_partition_options po;
    sc_error err;
    size_t i;
    static const double bad[] = {-0.5, 1.5, NAN};

    if (!top)
        top = ".";
    snprintf(path, sizeof path, "%s/tests/data/budget-2.13/resnet.json", top);
    js = json_load_file(path, 0, &jerr);
    ck_assert_msg(js != NULL, "%s: %s", path, jerr.text);
    ck_assert_msg(model_load(&m, top, "resnet", js, why,
                             sizeof why),
                  "%s", why);
    ck_assert(model_run(&m, SC_PARTITION_BUDGET_NONE, 0, &p0, &err) == SC_OK);
    ck_assert(model_run(&m, SC_PARTITION_BUDGET_RATIO, 1.0, &p1, &err) ==
              SC_OK);
    ck_assert_uint_eq(sc_partition_saved_tensor_count(p0),
                      sc_partition_saved_tensor_count(p1));
    for (i = 0; i < sc_partition_saved_tensor_count(p0); i++)
        ck_assert_int_eq(sc_partition_saved_tensor(p0, i),
                         sc_partition_saved_tensor(p1, i));
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert(model_run(&m, SC_PARTITION_BUDGET_RATIO, bad[i], &p, &err) ==
                  SC_ERR_INVALID);
        ck_assert_ptr_null(p);
        ck_assert_ptr_nonnull(strstr(err.message, "from 0 to 1"));
    }
    sc_partition_options_init(&po);
    po.policy = SC_PARTITION_PYTORCH_2_13;
    po.memory_budget_kind = SC_PARTITION_BUDGET_BYTES;
    po.memory_budget_bytes = 1000;
    ck_assert(sc_partition_run(m.g, &po, &p, &err) == SC_ERR_INVALID);
    ck_assert_ptr_nonnull(strstr(err.message, "ratio"));
    /* budget 0: the inputs only, nothing computed is saved */
    ck_assert(model_run(&m, SC_PARTITION_BUDGET_RATIO, 0.0, &p, &err) ==
              SC_OK);
    for (i = 0; i < sc_partition_saved_tensor_count(p); i++)
        ck_assert_int_eq(
            sc_graph_node_kind(m.g, sc_partition_saved_tensor(p, i)),
            SC_NODE_PLACEHOLDER);
    sc_partition_free(p);
    sc_partition_free(p0);
    sc_partition_free(p1);
    model_free(&m);
    json_decref(js);
}
END_TEST

/* torch's runtime estimate of each call of flops.joint.txt (an op of
 * every FLOP formula, at a symbolic size), recorded by tools/oracle/
 * budget.py --runtimes in flops.json, is symcut's. */
START_TEST(test_runtimes)
{
    const char *top = getenv("top_srcdir");
    char path[1200];
    json_error_t jerr;
    json_t *js, *rt, *v;
    const char *name;
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = NULL;
    sc_graph_read_options ro;
    sc_partition_options po;
    sc_partition *p = NULL;
    sc_expr *sym;
    int64_t val = 8;
    sc_error err;
    size_t n = 0;

    if (!top)
        top = ".";
    snprintf(path, sizeof path, "%s/tests/data/budget-2.13/flops.json", top);
    js = json_load_file(path, 0, &jerr);
    ck_assert_msg(js != NULL, "%s: %s", path, jerr.text);
    ck_assert_int_eq(json_integer_value(json_object_get(
                         json_object_get(js, "hints"), "s0")),
                     val);
    sym = sc_expr_symbol(ctx, "s0");
    sc_graph_read_options_init(&ro);
    ro.nhints = 1;
    ro.hint_symbols = &sym;
    ro.hint_values = &val;
    snprintf(path, sizeof path, "%s/tests/data/budget-2.13/flops.joint.txt",
             top);
    ck_assert_msg(sc_graph_read_file(ctx, path, &ro, &g, &err) == SC_OK, "%s",
                  err.message);
    sc_partition_options_init(&po);
    ck_assert_msg(sc_partition_run(g, &po, &p, &err) == SC_OK, "%s",
                  err.message);
    rt = json_object_get(js, "runtime");
    json_object_foreach(rt, name, v)
    {
        sc_node_id id = sc_graph_find(g, name);
        double got = -1;
        ck_assert_msg(id != SC_NODE_NONE, "no node %s", name);
        ck_assert(sc__budget_2_13_runtime(p, id, &got, &err) == SC_OK);
        ck_assert_msg(got == json_number_value(v), "%s: torch %.17g, symcut "
                      "%.17g", name, json_number_value(v), got);
        n++;
    }
    ck_assert_uint_ge(n, 11);
    sc_partition_free(p);
    sc_graph_free(g);
    sc_ctx_free(ctx);
    json_decref(js);
}
END_TEST

/* torch's dp_knapsack on crafted items; the saved items are what torch
 * 2.13's own dp_knapsack returns on them (float32 absorption: 2^25 + 1 is
 * 2^25, so the second item adds nothing and is recomputed; ties in the
 * quantization round to even: 0.00005 -> 0, 0.00015 -> 1; equal values:
 * the earliest item is saved). */
START_TEST(test_knapsack)
{
    static const struct {
        size_t n;
        double mem[4], rt[4], cap;
        bool rec[4];
    } cases[] = {
        {2, {0.1, 0.1}, {33554432.0, 1.0}, 0.5, {false, true}},
        {2, {0.1, 0.1}, {3.0, 1.0}, 0.5, {false, false}},
        {3, {0.3, 0.3, 0.3}, {2, 2, 2}, 0.5, {false, true, true}},
        {3, {0.25, 0.25, 0.00005}, {1, 1, 1}, 0.5, {false, false, false}},
        {4, {0.6, 0.2, 0.2, 0.2}, {5, 2, 2, 2}, 0.6,
         {true, false, false, false}},
        {2, {0.00005, 0.00015}, {1, 1}, 0.0001, {false, false}},
        {1, {1.5}, {7}, 0.95, {true}},
        {0, {0}, {0}, 0.5, {false}},
    };
    size_t c, i;
    for (c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        bool rec[4] = {false, false, false, false};
        sc_error err;
        ck_assert(sc__budget_2_13_knapsack(cases[c].mem, cases[c].rt,
                                           cases[c].n, cases[c].cap, rec,
                                           &err) == SC_OK);
        for (i = 0; i < cases[c].n; i++)
            ck_assert_msg(rec[i] == cases[c].rec[i], "case %zu item %zu", c,
                          i);
    }
}
END_TEST

Suite *budget_suite(void)
{
    Suite *s = suite_create("budget");
    TCase *tc = tcase_create("pytorch-2.13");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_zoo_budgets);
    tcase_add_test(tc, test_budget_edges);
    tcase_add_test(tc, test_knapsack);
    tcase_add_test(tc, test_runtimes);
    suite_add_tcase(s, tc);
    return s;
}
