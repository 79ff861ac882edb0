/* symcut tests — peak memory of forward-then-backward (kernels/peak.c):
 * a pair worked out by hand, node by node, in both primal modes, the
 * interpreter's measurement equal to the static prediction on every
 * bundled forward/backward pair, and bad pairs. */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include <symcut/graph.h>
#include <symcut/interp.h>
#include <symcut/partition.h>
#include <symcut/symint.h>

#include "tests/testutil.h"

Suite *peak_suite(void);

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static sc_graph *read_path(sc_ctx *ctx, const char *path)
{
    sc_graph *g = NULL;
    sc_error err;
    ck_assert_msg(sc_graph_read_file(ctx, path, NULL, &g, &err) == SC_OK,
                  "%s: %s", path, err.message);
    return g;
}

static sc_graph *read_rel(sc_ctx *ctx, const char *rel)
{
    const char *top = getenv("top_srcdir");
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", top ? top : ".", rel);
    return read_path(ctx, path);
}

/* The hints of both graphs (a symbol without one: dflt) as a binding. */
static sc_symmap *hints2(sc_ctx *ctx, const sc_graph *a, const sc_graph *b,
                         int64_t dflt)
{
    sc_symmap *m = sc_symmap_new(ctx);
    const sc_graph *gs[2] = {a, b};
    sc_error err;
    ck_assert_ptr_nonnull(m);
    for (int k = 0; k < 2; k++) {
        sc_expr *syms[64];
        size_t n = sc_graph_symbols(gs[k], syms, ARRAY_SIZE(syms));
        ck_assert(n <= ARRAY_SIZE(syms));
        for (size_t i = 0; i < n; i++) {
            int64_t v;
            if (sc_symmap_get(m, syms[i]))
                continue;
            if (sc_graph_get_hint(gs[k], syms[i], &v) || (v = dflt) >= 0)
                ck_assert(sc_symmap_set_si(m, syms[i], v, &err) == SC_OK);
        }
    }
    return m;
}

/* ---- A pair by hand ----------------------------------------------------- */

/* examples/zoo/mlp_gelu: primals p1 [64, 32] 8192 B, p2 [64] 256, p3
 * [8, 32] 1024, p4 [32, 64] 8192, p5 [32] 128 (17792 in all); the forward
 * makes addmm [8, 64] 2048, gelu 2048, addmm_1 [8, 32] 1024 (t, t_1 are
 * views) and saves p3, p4, addmm, gelu.
 *
 * Primals held: forward 17792 + 2048 + 2048 + 1024 = 22912 at addmm_1,
 * which is also the boundary.  Backward: held 17792 + addmm_1 1024, the
 * saved addmm and gelu 4096, tangents_1 1024: 23936; mm +2048 = 25984;
 * mm_1 +8192 = 34176, gelu freed: 32128; sum_1 +128, tangents_1 freed:
 * 31232; gelu_backward +2048 = 33280, mm and addmm freed: 29184; mm_2
 * +8192 = 37376; sum_2 +256 = 37632 (the peak), gelu_backward freed.
 *
 * Primals freed: forward 17792 at the inputs, addmm +2048 = 19840 (the
 * forward's peak), then p2 and p1 (t's base) freed: 11392; gelu 13440;
 * addmm_1 14464, p5 freed: 14336 = the boundary (addmm_1, p3, p4, addmm,
 * gelu).  Backward: addmm_1 held, p3 p4 addmm gelu tangents_1: 15360; mm
 * 17408, p4 freed (t_2, its last view, dies): 9216; mm_1 17408, gelu
 * freed: 15360; sum_1 15488, tangents_1 freed: 14464; gelu_backward
 * 16512, mm and addmm freed: 12416; mm_2 +8192 = 20608 (the peak), p3
 * freed: 19584; sum_2 19840, gelu_backward freed: 17792. */
typedef struct hand {
    unsigned flags;
    uint64_t peak, fw_peak, bw_peak, boundary, saved;
    bool in_bw;
    const char *node;
} hand;

static const hand mlp_gelu_hand[] = {
    {0, 37632, 22912, 37632, 22912, 13312, true, "sum_2"},
    {SC_PEAK_FREE_PRIMALS, 20608, 19840, 20608, 14336, 13312, true, "mm_2"},
};

static void check_hand(const sc_graph *fw, const sc_graph *bw,
                       const sc_peak_report *r, const hand *h,
                       const char *how)
{
    ck_assert_msg(r->peak_bytes == h->peak, "%s: peak %llu, expected %llu",
                  how, (unsigned long long)r->peak_bytes,
                  (unsigned long long)h->peak);
    ck_assert_msg(r->forward_peak_bytes == h->fw_peak, "%s: forward %llu",
                  how, (unsigned long long)r->forward_peak_bytes);
    ck_assert_msg(r->backward_peak_bytes == h->bw_peak, "%s: backward %llu",
                  how, (unsigned long long)r->backward_peak_bytes);
    ck_assert_msg(r->boundary_bytes == h->boundary, "%s: boundary %llu", how,
                  (unsigned long long)r->boundary_bytes);
    ck_assert_msg(r->saved_bytes == h->saved, "%s: saved %llu", how,
                  (unsigned long long)r->saved_bytes);
    ck_assert_msg(r->peak_in_backward == h->in_bw, "%s: phase", how);
    ck_assert_msg(r->peak_node != SC_NODE_NONE, "%s: no peak node", how);
    ck_assert_str_eq(sc_graph_node_name(h->in_bw ? bw : fw, r->peak_node),
                     h->node);
    ck_assert_uint_eq(r->unknown_elements, 0);
}

START_TEST(test_peak_by_hand)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *fw = read_rel(ctx, "examples/zoo/mlp_gelu.forward.txt");
    sc_graph *bw = read_rel(ctx, "examples/zoo/mlp_gelu.backward.txt");
    sc_symmap *m = hints2(ctx, fw, bw, -1);
    for (size_t i = 0; i < ARRAY_SIZE(mlp_gelu_hand); i++) {
        const hand *h = &mlp_gelu_hand[i];
        sc_peak_report r;
        sc_peak_options po;
        sc_error err;
        ck_assert_msg(sc_peak_predict(fw, bw, m, h->flags, &r, &err) ==
                          SC_OK,
                      "%s", err.message);
        check_hand(fw, bw, &r, h, "predicted");
        /* no binding: the graphs' hints (constant sizes here) */
        ck_assert(sc_peak_predict(fw, bw, NULL, h->flags, &r, &err) ==
                  SC_OK);
        check_hand(fw, bw, &r, h, "predicted at the hints");
        sc_peak_options_init(&po);
        po.flags = h->flags;
        ck_assert_msg(sc_peak_measure(fw, bw, &po, &r, &err) == SC_OK, "%s",
                      err.message);
        check_hand(fw, bw, &r, h, "measured");
    }
    sc_symmap_free(m);
    sc_graph_free(bw);
    sc_graph_free(fw);
    sc_ctx_free(ctx);
}
END_TEST

/* ---- Measured = predicted on every bundled pair ------------------------- */

/* The part of m that binds the symbols of fw's placeholders into a new
 * map; *data_dependent: some symbol of m without a hint is not among them
 * (an unbacked size a data-dependent op makes, which a run binds from the
 * data). */
static sc_symmap *inputs_part(const sc_graph *fw, const sc_graph *bw,
                              const sc_symmap *m, bool *data_dependent)
{
    sc_ctx *ctx = sc_graph_ctx(fw);
    sc_symmap *in = sc_symmap_new(ctx);
    const sc_graph *gs[2] = {fw, bw};
    sc_error err;
    ck_assert_ptr_nonnull(in);
    for (size_t k = 0; k < sc_graph_placeholder_count(fw); k++) {
        sc_result r;
        sc_graph_node_result(fw, (sc_node_id)k, &r);
        for (size_t d = 0; r.kind == SC_RESULT_TENSOR && d < r.tensor.ndim;
             d++) {
            sc_expr *syms[16];
            size_t n = sc_expr_free_symbols(r.tensor.sizes[d], syms, 16);
            ck_assert(n <= 16);
            for (size_t i = 0; i < n; i++)
                if (sc_symmap_get(m, syms[i]))
                    ck_assert(sc_symmap_set(in, syms[i],
                                            sc_symmap_get(m, syms[i]),
                                            &err) == SC_OK);
        }
        if (r.kind == SC_RESULT_SYMINT && sc_expr_is_symbol(r.expr) &&
            sc_symmap_get(m, r.expr))
            ck_assert(sc_symmap_set(in, r.expr, sc_symmap_get(m, r.expr),
                                    &err) == SC_OK);
    }
    *data_dependent = false;
    for (int k = 0; k < 2; k++) {
        sc_expr *syms[64];
        size_t n = sc_graph_symbols(gs[k], syms, 64);
        ck_assert(n <= 64);
        for (size_t i = 0; i < n; i++) {
            int64_t h;
            if (sc_symmap_get(m, syms[i]) && !sc_symmap_get(in, syms[i]) &&
                !sc_graph_get_hint(gs[k], syms[i], &h))
                *data_dependent = true;
        }
    }
    return in;
}

/* Predict and measure fw/bw (of ctx) at m in both primal modes. */
static void compare_pair(const char *fw_path, const sc_graph *fw,
                         const sc_graph *bw, const sc_symmap *m,
                         sc_test_rng *rng, size_t *exact, size_t *runs)
{
    bool data_dependent;
    sc_symmap *in = inputs_part(fw, bw, m, &data_dependent);
    for (unsigned flags = 0; flags <= SC_PEAK_FREE_PRIMALS; flags++) {
        sc_peak_report pr, mr;
        sc_peak_options po;
        sc_error err;
        ck_assert_msg(sc_peak_predict(fw, bw, m, flags, &pr, &err) == SC_OK,
                      "%s: %s", fw_path, err.message);
        ck_assert(pr.peak_bytes >= pr.boundary_bytes);
        /* graphs with ops the kernels lack are only predicted */
        if (sc_interp_preflight(fw, &err) != SC_OK ||
            sc_interp_preflight(bw, &err) != SC_OK)
            continue;
        sc_peak_options_init(&po);
        po.flags = flags;
        po.seed = sc_test_rng_next(rng);
        po.sizes = in;
        {
            sc_status st = sc_peak_measure(fw, bw, &po, &mr, &err);
            /* a kernel that cannot run these values (a SymFloat) */
            if (st == SC_ERR_UNSUPPORTED && strstr(err.message, "SymFloat"))
                continue;
            ck_assert_msg(st == SC_OK, "%s: %s", fw_path, err.message);
        }
        ++*runs;
        /* the peak is at least what is held across the boundary, and
         * that at least the saved bytes */
        ck_assert(mr.peak_bytes >= mr.boundary_bytes);
        ck_assert(mr.boundary_bytes >= mr.saved_bytes);
        /* a data-dependent size was predicted at a guess, measured at
         * what the data gave */
        if (data_dependent)
            continue;
        if (pr.unknown_elements > 0) {
            /* elements of unknown size count 0: a lower bound */
            ck_assert(pr.peak_bytes <= mr.peak_bytes);
            continue;
        }
        ++*exact;
        ck_assert_msg(pr.peak_bytes == mr.peak_bytes &&
                          pr.forward_peak_bytes == mr.forward_peak_bytes &&
                          pr.backward_peak_bytes == mr.backward_peak_bytes &&
                          pr.boundary_bytes == mr.boundary_bytes &&
                          pr.saved_bytes == mr.saved_bytes &&
                          pr.peak_in_backward == mr.peak_in_backward &&
                          pr.peak_node == mr.peak_node,
                      "%s (flags %u): predicted peak %llu fw %llu bw %llu "
                      "boundary %llu saved %llu node %d; measured %llu %llu "
                      "%llu %llu %llu node %d",
                      fw_path, flags, (unsigned long long)pr.peak_bytes,
                      (unsigned long long)pr.forward_peak_bytes,
                      (unsigned long long)pr.backward_peak_bytes,
                      (unsigned long long)pr.boundary_bytes,
                      (unsigned long long)pr.saved_bytes, (int)pr.peak_node,
                      (unsigned long long)mr.peak_bytes,
                      (unsigned long long)mr.forward_peak_bytes,
                      (unsigned long long)mr.backward_peak_bytes,
                      (unsigned long long)mr.boundary_bytes,
                      (unsigned long long)mr.saved_bytes, (int)mr.peak_node);
    }
    sc_symmap_free(in);
}

static void check_pair(const char *fw_path, sc_test_rng *rng, size_t *exact,
                       size_t *runs)
{
    char bw_path[1024];
    size_t n = strlen(fw_path) - strlen(".forward.txt");
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *fw, *bw;
    sc_symmap *m;
    snprintf(bw_path, sizeof bw_path, "%.*s.backward.txt", (int)n, fw_path);
    fw = read_path(ctx, fw_path);
    bw = read_path(ctx, bw_path);
    m = hints2(ctx, fw, bw, 8); /* the _dyn graphs have no hints */
    compare_pair(fw_path, fw, bw, m, rng, exact, runs);
    sc_symmap_free(m);
    sc_graph_free(bw);
    sc_graph_free(fw);
    sc_ctx_free(ctx);
}

START_TEST(test_peak_measured_is_predicted)
{
    const char *top = getenv("top_srcdir");
    char pattern[1024];
    glob_t gl;
    sc_test_rng rng;
    size_t exact = 0, runs = 0;
    sc_test_rng_init(&rng, sc_test_seed());
    snprintf(pattern, sizeof pattern, "%s/examples/zoo/*.forward.txt",
             top ? top : ".");
    ck_assert(glob(pattern, 0, NULL, &gl) == 0);
    ck_assert_uint_gt(gl.gl_pathc, 10);
    for (size_t k = 0; k < gl.gl_pathc; k++)
        check_pair(gl.gl_pathv[k], &rng, &exact, &runs);
    fprintf(stderr, "peak: %zu forward/backward pairs, %zu measured runs, "
                    "%zu equal to the prediction\n",
            gl.gl_pathc, runs, exact);
    /* most pairs run and are exact; the others are checked for bounds */
    ck_assert_uint_gt(exact, gl.gl_pathc);
    globfree(&gl);
}
END_TEST

/* The same on symcut's own partitions of every bundled joint graph. */
START_TEST(test_peak_partitions)
{
    const char *top = getenv("top_srcdir");
    const char *patterns[] = {"examples/*.joint.txt",
                              "examples/zoo/*.joint.txt"};
    sc_test_rng rng;
    size_t exact = 0, runs = 0, graphs = 0;
    sc_test_rng_init(&rng, sc_test_seed() ^ 0x70ea6);
    for (size_t q = 0; q < ARRAY_SIZE(patterns); q++) {
        char pattern[1024];
        glob_t gl;
        snprintf(pattern, sizeof pattern, "%s/%s", top ? top : ".",
                 patterns[q]);
        ck_assert(glob(pattern, 0, NULL, &gl) == 0);
        for (size_t k = 0; k < gl.gl_pathc; k++) {
            sc_ctx *ctx = sc_ctx_new();
            sc_graph *j = read_path(ctx, gl.gl_pathv[k]);
            sc_partition_options po;
            sc_partition *p = NULL;
            sc_error err;
            sc_partition_options_init(&po);
            if (sc_partition_run(j, &po, &p, &err) == SC_OK) {
                const sc_graph *fw = sc_partition_forward(p);
                const sc_graph *bw = sc_partition_backward(p);
                sc_symmap *m = hints2(ctx, j, fw, 8);
                graphs++;
                compare_pair(gl.gl_pathv[k], fw, bw, m, &rng, &exact, &runs);
                sc_symmap_free(m);
            }
            sc_partition_free(p);
            sc_graph_free(j);
            sc_ctx_free(ctx);
        }
        globfree(&gl);
    }
    fprintf(stderr, "peak: %zu partitioned joint graphs, %zu measured runs, "
                    "%zu equal to the prediction\n",
            graphs, runs, exact);
    ck_assert_uint_gt(graphs, 20);
    ck_assert_uint_gt(exact, graphs);
}
END_TEST

/* Every point of the frontier of the bundled examples (exact policy,
 * and pytorch-2.13, whose partitions run under exact with the same saved
 * set): the partition saves the point's bytes, and the measured saved
 * storages and peak (forward then backward in the interpreter at the
 * hints) are the predicted ones when the prediction is exact. */
START_TEST(test_peak_frontier_points)
{
    static const char *const names[] = {"mlp_gelu", "attention_single_head",
                                        "lm_head_ce", "small_cnn",
                                        "two_output_mlp", "zoo/cnn"};
    static const sc_partition_policy pols[] = {SC_PARTITION_EXACT,
                                               SC_PARTITION_PYTORCH_2_13};
    const char *top = getenv("top_srcdir");
    size_t points = 0, exact = 0;
    for (size_t q = 0; q < ARRAY_SIZE(names); q++)
        for (size_t r = 0; r < ARRAY_SIZE(pols); r++) {
            char path[1024];
            sc_ctx *ctx = sc_ctx_new();
            sc_graph *j;
            sc_partition_options po;
            sc_frontier_options fo;
            sc_frontier *f = NULL;
            sc_error err;
            snprintf(path, sizeof path, "%s/examples/%s.joint.txt",
                     top ? top : ".", names[q]);
            j = read_path(ctx, path);
            sc_partition_options_init(&po);
            po.policy = pols[r];
            sc_frontier_options_init(&fo);
            ck_assert_msg(sc_frontier_compute(j, &po, &fo, &f, &err) == SC_OK,
                          "%s: %s", names[q], err.message);
            for (size_t i = 0; i < sc_frontier_point_count(f); i++) {
                sc_frontier_point pt;
                sc_partition *p = NULL;
                sc_peak_report meas, pred;
                sc_peak_options o;
                ck_assert(sc_frontier_point_get(f, i, &pt));
                ck_assert_msg(sc_frontier_point_partition(f, i, 0, &p, &err) ==
                                  SC_OK,
                              "%s point %zu: %s", names[q], i, err.message);
                ck_assert_uint_eq((uint64_t)sc_partition_saved_bytes(p),
                                  pt.saved_bytes);
                sc_peak_options_init(&o);
                o.seed = 11 + i;
                ck_assert_msg(sc_peak_measure(sc_partition_forward(p),
                                              sc_partition_backward(p), &o,
                                              &meas, &err) == SC_OK,
                              "%s point %zu: %s", names[q], i, err.message);
                ck_assert_msg(sc_peak_predict(sc_partition_forward(p),
                                              sc_partition_backward(p), NULL,
                                              0, &pred, &err) == SC_OK,
                              "%s point %zu: %s", names[q], i, err.message);
                if (pred.unknown_elements == 0) {
                    /* storages, each once: a saved view and its saved
                     * base count once here, twice in the frontier's
                     * bytes */
                    ck_assert_msg(meas.saved_bytes == pred.saved_bytes,
                                  "%s (%s) point %zu: measured saved %llu, "
                                  "predicted %llu",
                                  names[q], sc_partition_policy_name(pols[r]),
                                  i, (unsigned long long)meas.saved_bytes,
                                  (unsigned long long)pred.saved_bytes);
                    ck_assert_uint_eq(meas.peak_bytes, pred.peak_bytes);
                    exact++;
                } else
                    ck_assert_uint_le(pred.peak_bytes, meas.peak_bytes);
                points++;
                sc_partition_free(p);
            }
            sc_frontier_free(f);
            sc_graph_free(j);
            sc_ctx_free(ctx);
        }
    fprintf(stderr, "peak: %zu frontier points measured, %zu predicted "
                    "exactly\n",
            points, exact);
    ck_assert_uint_gt(exact, points / 2);
}
END_TEST

/* Random forward graphs (sc_graph_new_random, with and without symbolic
 * sizes), their joint graphs and symcut's partitions: the prediction
 * equals the measurement, and every node of the joint graph has a cost.
 * SYMCUT_SEED, SYMCUT_CASES (default 40). */
START_TEST(test_peak_random)
{
    uint64_t seed = sc_test_seed();
    long cases = sc_test_cases(40), k, compared = 0;
    size_t exact = 0, runs = 0;
    sc_test_rng rng;
    sc_test_rng_init(&rng, seed ^ 0x9ea4);
    fprintf(stderr, "peak random: SYMCUT_SEED=%llu SYMCUT_CASES=%ld\n",
            (unsigned long long)seed, cases);
    for (k = 0; k < cases; k++) {
        sc_ctx *ctx = sc_ctx_new();
        sc_graph_random_options ro;
        sc_graph *fwd = NULL, *j = NULL;
        sc_partition_options po;
        sc_partition *p = NULL;
        sc_error err;
        char what[64];
        sc_graph_random_options_init(&ro);
        ro.seed = sc_test_rng_next(&rng);
        ro.nodes = 4 + (size_t)sc_test_rng_below(&rng, 20);
        ro.symbolic = sc_test_rng_below(&rng, 2) == 1;
        /* unbacked sizes have no value to predict at */
        ro.features = SC_RANDOM_ALL & ~SC_RANDOM_DATA_DEPENDENT;
        snprintf(what, sizeof what, "random graph seed %llu nodes %zu%s",
                 (unsigned long long)ro.seed, ro.nodes,
                 ro.symbolic ? " symbolic" : "");
        ck_assert_msg(sc_graph_new_random(ctx, &ro, &fwd, &err) == SC_OK,
                      "%s: %s", what, err.message);
        sc_partition_options_init(&po);
        if (sc_graph_new_joint(fwd, NULL, &j, &err) == SC_OK &&
            sc_partition_run(j, &po, &p, &err) == SC_OK) {
            sc_symmap *m = hints2(ctx, j, sc_partition_forward(p), -1);
            for (size_t i = 0; i < sc_graph_node_count(j); i++) {
                sc_node_cost c;
                ck_assert_msg(sc_node_cost_eval(j, (sc_node_id)i, m, &c,
                                                &err) == SC_OK,
                              "%s: %s", what, err.message);
            }
            compare_pair(what, sc_partition_forward(p),
                         sc_partition_backward(p), m, &rng, &exact, &runs);
            compared++;
            sc_symmap_free(m);
        }
        sc_partition_free(p);
        sc_graph_free(j);
        sc_graph_free(fwd);
        sc_ctx_free(ctx);
    }
    fprintf(stderr, "peak random: %ld graphs compared, %zu measured runs, "
                    "%zu equal to the prediction\n",
            compared, runs, exact);
    ck_assert_msg(compared * 2 >= cases, "only %ld of %ld cases compared",
                  compared, cases);
    /* every op the generator draws is predicted exactly */
    ck_assert_uint_eq(exact, runs);
}
END_TEST

/* ---- Bad pairs ---------------------------------------------------------- */

START_TEST(test_peak_bad_pairs)
{
    sc_ctx *ctx = sc_ctx_new(), *other = sc_ctx_new();
    sc_graph *fw = read_rel(ctx, "examples/zoo/mlp_gelu.forward.txt");
    sc_graph *bw = read_rel(ctx, "examples/zoo/mlp_gelu.backward.txt");
    sc_graph *cnn_bw = read_rel(ctx, "examples/zoo/cnn.backward.txt");
    sc_graph *bw2 = read_rel(other, "examples/zoo/mlp_gelu.backward.txt");
    sc_symmap *m = hints2(ctx, fw, bw, -1);
    sc_peak_report r;
    sc_error err;
    /* two contexts */
    ck_assert(sc_peak_predict(fw, bw2, m, 0, &r, &err) == SC_ERR_INVALID);
    ck_assert(sc_peak_measure(fw, bw2, NULL, &r, &err) == SC_ERR_INVALID);
    /* a backward graph of another model: more saved values than outputs,
     * or a size that does not match */
    ck_assert(sc_peak_predict(fw, cnn_bw, m, 0, &r, &err) != SC_OK);
    ck_assert(sc_peak_measure(fw, cnn_bw, NULL, &r, &err) != SC_OK);
    ck_assert_uint_eq(r.peak_bytes, 0);
    /* no binding for a symbolic pair; sizes beyond 2^63 bytes */
    {
        sc_graph *dfw = read_rel(ctx, "examples/zoo/mlp_gelu_dyn.forward.txt");
        sc_graph *dbw =
            read_rel(ctx, "examples/zoo/mlp_gelu_dyn.backward.txt");
        sc_symmap *big = hints2(ctx, dfw, dbw, (int64_t)1 << 60);
        ck_assert(sc_peak_predict(dfw, dbw, NULL, 0, &r, &err) ==
                  SC_ERR_UNBOUND);
        ck_assert_msg(sc_peak_predict(dfw, dbw, big, 0, &r, &err) ==
                          SC_ERR_LIMIT,
                      "%s", err.message);
        ck_assert_uint_eq(r.peak_bytes, 0);
        sc_symmap_free(big);
        sc_graph_free(dbw);
        sc_graph_free(dfw);
    }
    /* missing graphs */
    ck_assert(sc_peak_predict(NULL, bw, m, 0, &r, &err) == SC_ERR_INVALID);
    ck_assert(sc_peak_measure(fw, NULL, NULL, &r, &err) == SC_ERR_INVALID);
    sc_symmap_free(m);
    sc_graph_free(bw2);
    sc_graph_free(cnn_bw);
    sc_graph_free(bw);
    sc_graph_free(fw);
    sc_ctx_free(other);
    sc_ctx_free(ctx);
}
END_TEST

Suite *peak_suite(void)
{
    Suite *s = suite_create("peak");
    TCase *tc = tcase_create("peak");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_peak_by_hand);
    tcase_add_test(tc, test_peak_measured_is_predicted);
    tcase_add_test(tc, test_peak_partitions);
    tcase_add_test(tc, test_peak_frontier_points);
    tcase_add_test(tc, test_peak_random);
    tcase_add_test(tc, test_peak_bad_pairs);
    suite_add_tcase(s, tc);
    return s;
}
