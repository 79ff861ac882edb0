/* symcut tests — the memory/recompute frontier (partition/frontier.c,
 * partition/milp.c): the hull and every budget against brute force over
 * every saved set of small random joint graphs, scored here by walking
 * the graph (independently of the frontier's network); the hull's
 * breakpoints against a sweep of lambda; monotony in the budget; every
 * frontier point of the examples validated bit for bit; bad budgets.
 * Property tests print their seed and take SYMCUT_SEED / SYMCUT_CASES. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include <symcut.h>

#include "tests/testutil.h"

/* ---- An independent scorer ------------------------------------------------ */

typedef struct walk {
    const sc_graph *g;
    const sc_partition *p; /* exact policy, no CSE: classification, bans */
    const bool *saved;
    bool *need;
    bool valid;
    uint64_t bytes, cost;
    const uint64_t *ncost;
    bool replay;
} walk;

static bool tangent_side(const sc_partition *p, sc_node_id id)
{
    return (sc_partition_node_class(p, id) & SC_PARTITION_TANGENT_CLOSURE) ||
           sc_graph_node_role(sc_partition_joint(p), id) == SC_ROLE_TANGENT;
}

/* The validity rules, from the public classification: never a primal,
 * an op that writes an argument, a must_save node; a random op only with
 * replay under the exact policy (its replay is exact in symcut's
 * kernels). */
static bool never_recomputed(const sc_partition *p, sc_node_id id,
                             bool replay)
{
    const sc_graph *g = sc_partition_joint(p);
    sc_partition_ban b = sc_partition_node_ban(p, id);
    if (sc_graph_node_kind(g, id) != SC_NODE_CALL)
        return true;
    if (b == SC_PARTITION_BAN_RANDOM)
        return !replay ||
               sc_partition_policy_in_force(p) != SC_PARTITION_EXACT;
    return b == SC_PARTITION_BAN_PRIMAL || b == SC_PARTITION_BAN_MUTATES ||
           b == SC_PARTITION_BAN_MUST_SAVE;
}

static void need_value(walk *w, const sc_value *v);

/* The backward needs node id's value. */
static void need_node(walk *w, sc_node_id id)
{
    size_t i;
    int64_t b;
    if (w->need[id])
        return;
    w->need[id] = true;
    if (tangent_side(w->p, id)) {
        for (i = 0; i < sc_graph_node_arg_count(w->g, id); i++)
            need_value(w, sc_graph_node_arg(w->g, id, i));
        return;
    }
    b = sc_partition_node_bytes(w->p, id);
    if (w->saved[id]) {
        if (b > 0)
            w->bytes += (uint64_t)b;
        return;
    }
    if (never_recomputed(w->p, id, w->replay)) {
        w->valid = false;
        return;
    }
    w->cost += w->ncost[id];
    for (i = 0; i < sc_graph_node_arg_count(w->g, id); i++)
        need_value(w, sc_graph_node_arg(w->g, id, i));
}

static void need_value(walk *w, const sc_value *v)
{
    size_t i;
    if (v->kind == SC_VALUE_NODE)
        need_node(w, v->u.node);
    else if (v->kind == SC_VALUE_LIST || v->kind == SC_VALUE_TUPLE)
        for (i = 0; i < v->u.list.n; i++)
            need_value(w, &v->u.list.items[i]);
}

/* Score saved (by node id) by walking back from the gradients. */
static bool score_walk(const sc_partition *p, const uint64_t *ncost,
                       bool replay, const bool *saved, uint64_t *bytes,
                       uint64_t *cost)
{
    const sc_graph *g = sc_partition_joint(p);
    size_t n = sc_graph_node_count(g), i;
    walk w = {g, p, saved, calloc(n ? n : 1, 1), true, 0, 0, ncost, replay};
    ck_assert_ptr_nonnull(w.need);
    for (i = sc_graph_fwd_output_count(g); i < sc_graph_output_count(g); i++)
        if (sc_graph_output(g, i) != SC_NODE_NONE)
            need_node(&w, sc_graph_output(g, i));
    free(w.need);
    *bytes = w.bytes;
    *cost = w.cost;
    return w.valid;
}

/* ---- Random joint graphs --------------------------------------------------- */

typedef struct rcase {
    sc_ctx *ctx;
    sc_graph *fwd, *joint;
    sc_partition *p;
    uint64_t *ncost;
    sc_node_id cand[20];
    size_t ncand;
    sc_partition_policy policy; /* exact, or pytorch-1.13 */
    bool replay;                /* random ops replayed (exact) */
} rcase;

static void rcase_free(rcase *r)
{
    sc_partition_free(r->p);
    sc_graph_free(r->joint);
    sc_graph_free(r->fwd);
    sc_ctx_free(r->ctx);
    free(r->ncost);
    memset(r, 0, sizeof *r);
}

static void options(sc_partition_options *o, sc_partition_policy policy)
{
    sc_partition_options_init(o);
    o->policy = policy;
    o->flags = SC_PARTITION_NO_CSE | SC_PARTITION_NO_GRAPHS;
}

/* A random joint graph with at most 14 candidates to save; false when
 * the draw has none (or too many, or no joint). */
static bool rcase_draw(rcase *r, uint64_t seed, sc_partition_policy policy)
{
    sc_graph_random_options ro;
    sc_partition_options o;
    sc_error err;
    sc_symmap *hints;
    size_t n, i;
    static const char *const exclude[] = {"bernoulli.p", "dropout.default",
                                          "rand_like.default"};

    memset(r, 0, sizeof *r);
    r->policy = policy;
    r->ctx = sc_ctx_new();
    ck_assert_ptr_nonnull(r->ctx);
    sc_graph_random_options_init(&ro);
    ro.seed = seed;
    ro.nodes = 4 + seed % 6;
    ro.nexclude = 0;
    (void)exclude;
    if (sc_graph_new_random(r->ctx, &ro, &r->fwd, &err) != SC_OK ||
        sc_graph_new_joint(r->fwd, NULL, &r->joint, &err) != SC_OK)
        return false;
    options(&o, policy);
    if (sc_partition_run(r->joint, &o, &r->p, &err) != SC_OK)
        return false;
    n = sc_graph_node_count(r->joint);
    r->ncost = calloc(n ? n : 1, sizeof *r->ncost);
    ck_assert_ptr_nonnull(r->ncost);
    hints = sc_symmap_new(r->ctx);
    ck_assert_ptr_nonnull(hints);
    for (i = 0; i < n; i++) {
        sc_node_id id = (sc_node_id)i;
        sc_node_cost c;
        sc_result res;
        if (sc_partition_node_place(r->p, id) == SC_PARTITION_PLACE_DEAD)
            continue;
        /* a cost only where the forward computes the node in every
         * decision (it is required by the forward's outputs) */
        if (sc_graph_node_kind(r->joint, id) == SC_NODE_CALL &&
            !tangent_side(r->p, id) &&
            (sc_partition_node_class(r->p, id) & SC_PARTITION_REQUIRED_FW)) {
            /* draws with unbacked sizes (nonzero) have no cost here */
            if (sc_node_cost_eval(r->joint, id, hints, &c, &err) != SC_OK) {
                sc_symmap_free(hints);
                return false;
            }
            r->ncost[i] = c.cost;
        }
        sc_graph_node_result(r->joint, id, &res);
        if (!tangent_side(r->p, id) &&
            (sc_partition_node_bytes(r->p, id) >= 0 ||
             res.kind == SC_RESULT_SYMINT)) {
            if (r->ncand == 14) {
                sc_symmap_free(hints);
                return false;
            }
            r->cand[r->ncand++] = id;
        }
    }
    sc_symmap_free(hints);
    return r->ncand > 0;
}

typedef struct bpoint {
    uint64_t m, c;
} bpoint;

/* Every valid saved set's (bytes, cost). */
static size_t brute(const rcase *r, bpoint *out)
{
    size_t n = sc_graph_node_count(r->joint), mask, i, np = 0;
    bool *saved = calloc(n ? n : 1, 1);
    ck_assert_ptr_nonnull(saved);
    for (mask = 0; mask < ((size_t)1 << r->ncand); mask++) {
        uint64_t m, c;
        for (i = 0; i < r->ncand; i++)
            saved[r->cand[i]] = (mask >> i) & 1;
        if (score_walk(r->p, r->ncost, r->replay, saved, &m, &c)) {
            out[np].m = m;
            out[np].c = c;
            np++;
        }
    }
    free(saved);
    return np;
}

static uint64_t brute_best(const bpoint *b, size_t nb, uint64_t budget,
                           bool *any)
{
    uint64_t best = UINT64_MAX;
    size_t i;
    *any = false;
    for (i = 0; i < nb; i++)
        if (b[i].m <= budget && b[i].c < best) {
            best = b[i].c;
            *any = true;
        }
    return best;
}

/* min over the points of den * m + num * c */
static unsigned __int128 brute_min(const bpoint *b, size_t nb, uint64_t num,
                                   uint64_t den)
{
    unsigned __int128 best = ~(unsigned __int128)0, v;
    size_t i;
    for (i = 0; i < nb; i++) {
        v = (unsigned __int128)den * b[i].m + (unsigned __int128)num * b[i].c;
        if (v < best)
            best = v;
    }
    return best;
}

START_TEST(test_random_bruteforce)
{
    long cases = sc_test_cases(120), c, done = 0;
    uint64_t seed = sc_test_seed();
    bpoint *bp = malloc(((size_t)1 << 14) * sizeof *bp);
    ck_assert_ptr_nonnull(bp);
    for (c = 0; c < cases; c++) {
        rcase r;
        sc_frontier *f = NULL;
        sc_frontier_options fo;
        sc_partition_options o;
        sc_error err;
        size_t nb, i, j, nh = 0;
        bpoint hull[64];
        uint64_t prev = UINT64_MAX;
        /* a third of the cases under exact's rules, a third under them
         * with random ops replayed, a third under pytorch-1.13's */
        if (!rcase_draw(&r, seed + (uint64_t)c,
                        c % 3 == 2 ? SC_PARTITION_PYTORCH_1_13
                                   : SC_PARTITION_EXACT)) {
            rcase_free(&r);
            continue;
        }
        done++;
        r.replay = c % 3 == 1;
        nb = brute(&r, bp);
        ck_assert_msg(nb > 0, "seed %llu case %ld: no valid set",
                      (unsigned long long)seed, c);
        options(&o, r.policy);
        sc_frontier_options_init(&fo);
        fo.replay_random = r.replay;
        ck_assert_msg(sc_frontier_compute(r.joint, &o, &fo, &f, &err) == SC_OK,
                      "seed %llu case %ld: %s", (unsigned long long)seed, c,
                      err.message);
        /* hull vertices: valid decisions; consecutive ones are both optimal
         * at their breakpoint, and at lambda -> 0 and infinity */
        for (i = 0; i < sc_frontier_point_count(f); i++) {
            sc_frontier_point pt;
            ck_assert(sc_frontier_point_get(f, i, &pt));
            if (!pt.hull_vertex)
                continue;
            ck_assert_uint_lt(nh, 64);
            hull[nh].m = pt.saved_bytes;
            hull[nh].c = pt.recompute_cost;
            nh++;
        }
        ck_assert_uint_eq(sc_frontier_breakpoint_count(f), nh - 1);
        for (i = 0; i < nh; i++) {
            bool found = false;
            for (j = 0; j < nb && !found; j++)
                found = bp[j].m == hull[i].m && bp[j].c == hull[i].c;
            ck_assert_msg(found,
                          "seed %llu case %ld: hull vertex (%llu, %llu) is "
                          "no valid decision",
                          (unsigned long long)seed, c,
                          (unsigned long long)hull[i].m,
                          (unsigned long long)hull[i].c);
        }
        for (i = 0; i + 1 < nh; i++) {
            uint64_t num, den;
            unsigned __int128 best;
            ck_assert(sc_frontier_breakpoint(f, i, &num, &den));
            best = brute_min(bp, nb, num, den);
            ck_assert_msg(best == (unsigned __int128)den * hull[i].m +
                                      (unsigned __int128)num * hull[i].c &&
                              best == (unsigned __int128)den * hull[i + 1].m +
                                          (unsigned __int128)num *
                                              hull[i + 1].c,
                          "seed %llu case %ld: breakpoint %zu (%llu/%llu) "
                          "is not where vertices %zu and %zu are optimal",
                          (unsigned long long)seed, c, i,
                          (unsigned long long)num, (unsigned long long)den, i,
                          i + 1);
        }
        /* a dense sweep of lambda = q/64, q = 0..4096: the hull's minimum
         * is brute force's (so no breakpoint is missed, no point lies
         * below the hull) */
        for (j = 0; j <= 4096; j++) {
            unsigned __int128 hb = ~(unsigned __int128)0, v;
            uint64_t num = j * j, den = 64;
            for (i = 0; i < nh; i++) {
                v = (unsigned __int128)den * hull[i].m +
                    (unsigned __int128)num * hull[i].c;
                if (v < hb)
                    hb = v;
            }
            if (num == 0)
                continue; /* lambda 0: the bytes alone, ties in cost */
            ck_assert_msg(hb == brute_min(bp, nb, num, den),
                          "seed %llu case %ld: lambda %llu/64: the hull "
                          "misses a vertex",
                          (unsigned long long)seed, c,
                          (unsigned long long)num);
        }
        /* every budget from below the least to beyond the most: the MILP
         * (or hull) optimum equals brute force, monotone */
        for (j = 0; j <= 40; j++) {
            uint64_t lo = hull[0].m, hi = hull[nh - 1].m;
            uint64_t b = lo + (hi - lo) * j / 32; /* past hi at the end */
            sc_frontier_point pt;
            bool any;
            uint64_t want = brute_best(bp, nb, b, &any);
            ck_assert(any);
            ck_assert_msg(sc_frontier_solve(f, b, 0, &pt, NULL, NULL, &err) ==
                              SC_OK,
                          "%s", err.message);
            ck_assert_msg(pt.optimal && pt.recompute_cost == want &&
                              pt.saved_bytes <= b && pt.lower_bound <= want,
                          "seed %llu case %ld budget %llu: cost %llu "
                          "(optimal %d, bound %llu), brute force %llu",
                          (unsigned long long)seed, c, (unsigned long long)b,
                          (unsigned long long)pt.recompute_cost, pt.optimal,
                          (unsigned long long)pt.lower_bound,
                          (unsigned long long)want);
            ck_assert_uint_le(pt.recompute_cost, prev);
            prev = pt.recompute_cost;
            /* no saved value is superfluous: without any one of them the
             * set is invalid, costs more, or saves no fewer bytes */
            {
                sc_node_id *ids = NULL;
                size_t ns = 0, q;
                bool *sv = calloc(sc_graph_node_count(r.joint), 1);
                ck_assert_ptr_nonnull(sv);
                ck_assert_int_eq(sc_frontier_solve(f, b, 0, &pt, &ids, &ns,
                                                   &err),
                                 SC_OK);
                for (q = 0; q < ns; q++)
                    sv[ids[q]] = true;
                for (q = 0; q < ns; q++) {
                    uint64_t m2, c2;
                    bool ok2;
                    sv[ids[q]] = false;
                    ok2 = score_walk(r.p, r.ncost, r.replay, sv, &m2, &c2);
                    ck_assert_msg(!ok2 || c2 != pt.recompute_cost ||
                                      m2 >= pt.saved_bytes,
                                  "seed %llu case %ld budget %llu: saved "
                                  "%s is superfluous (%llu bytes, cost "
                                  "%llu without it; %llu bytes with it, "
                                  "hull vertex %d)",
                                  (unsigned long long)seed, c,
                                  (unsigned long long)b,
                                  sc_graph_node_name(r.joint, ids[q]),
                                  (unsigned long long)m2,
                                  (unsigned long long)c2,
                                  (unsigned long long)pt.saved_bytes,
                                  (int)pt.hull_vertex);
                    sv[ids[q]] = true;
                }
                free(sv);
                free(ids);
            }
        }
        /* the whole frontier: at the bytes of every decision no other beats
         * on both, the optimum is that decision's cost */
        for (i = 0; i < nb; i++) {
            sc_frontier_point pt;
            bool dominated = false, any;
            for (j = 0; j < nb && !dominated; j++)
                dominated = (bp[j].m <= bp[i].m && bp[j].c < bp[i].c) ||
                            (bp[j].m < bp[i].m && bp[j].c <= bp[i].c);
            if (dominated)
                continue;
            ck_assert_int_eq(sc_frontier_solve(f, bp[i].m, 0, &pt, NULL, NULL,
                                               &err),
                             SC_OK);
            ck_assert_msg(pt.optimal && pt.recompute_cost == bp[i].c &&
                              pt.recompute_cost ==
                                  brute_best(bp, nb, bp[i].m, &any),
                          "seed %llu case %ld: Pareto point (%llu, %llu), "
                          "frontier cost %llu",
                          (unsigned long long)seed, c,
                          (unsigned long long)bp[i].m,
                          (unsigned long long)bp[i].c,
                          (unsigned long long)pt.recompute_cost);
        }
        if (hull[0].m > 0) {
            sc_frontier_point pt;
            ck_assert_int_eq(sc_frontier_solve(f, hull[0].m - 1, 0, &pt, NULL,
                                               NULL, &err),
                             SC_ERR_INVALID);
        }
        /* the least-memory end is at or below the default cut */
        {
            sc_frontier_point d;
            sc_frontier_default_cut(f, &d);
            ck_assert(d.valid);
            ck_assert_uint_le(hull[0].m, d.saved_bytes);
        }
        /* scoring agrees with the walk on random sets */
        for (j = 0; j < 8; j++) {
            sc_node_id ids[20];
            size_t n = 0, k;
            bool *saved = calloc(sc_graph_node_count(r.joint), 1);
            uint64_t m, cst;
            bool ok;
            sc_frontier_point pt;
            ck_assert_ptr_nonnull(saved);
            for (k = 0; k < r.ncand; k++)
                if ((seed + c * 31 + j * 7 + k * 13) % 3 != 0) {
                    ids[n++] = r.cand[k];
                    saved[r.cand[k]] = true;
                }
            ok = score_walk(r.p, r.ncost, r.replay, saved, &m, &cst);
            ck_assert_int_eq(sc_frontier_score(f, ids, n, &pt, &err), SC_OK);
            ck_assert_int_eq(pt.valid, ok);
            if (ok) {
                ck_assert_uint_eq(pt.saved_bytes, m);
                ck_assert_uint_eq(pt.recompute_cost, cst);
            }
            free(saved);
        }
        sc_frontier_free(f);
        rcase_free(&r);
    }
    printf("check_frontier: %ld random graphs checked by brute force\n",
           done);
    ck_assert_int_gt(done, cases / 4);
    free(bp);
}
END_TEST

/* ---- The examples: every point validates ---------------------------------- */

static const char *const examples[] = {
    "mlp_gelu",        "fn_mm_gelu_sum",  "attention_single_head",
    "lm_head_ce",      "small_cnn",       "two_output_mlp",
    "residual_mlp_16", "lstm_module"};
#define NEXAMPLES (sizeof examples / sizeof examples[0])

START_TEST(test_examples_validate)
{
    const char *top = getenv("top_srcdir");
    char path[1024];
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = NULL;
    sc_frontier *f = NULL;
    sc_frontier_options fo;
    sc_partition_options o;
    sc_error err;
    size_t i;

    ck_assert_ptr_nonnull(ctx);
    snprintf(path, sizeof path, "%s/examples/%s.joint.txt", top ? top : ".",
             examples[_i]);
    ck_assert_msg(sc_graph_read_file(ctx, path, NULL, &g, &err) == SC_OK,
                  "%s", err.message);
    sc_partition_options_init(&o);
    o.policy = SC_PARTITION_EXACT;
    sc_frontier_options_init(&fo);
    fo.points = 4;
    fo.milp_seconds = 5;
    ck_assert_msg(sc_frontier_compute(g, &o, &fo, &f, &err) == SC_OK, "%s: %s",
                  examples[_i], err.message);
    ck_assert_uint_gt(sc_frontier_point_count(f), 0);
    for (i = 0; i < sc_frontier_point_count(f); i++) {
        sc_frontier_point pt, prev;
        sc_partition *part = NULL;
        sc_validate_options vo;
        sc_validate_report rep;
        ck_assert(sc_frontier_point_get(f, i, &pt));
        if (i > 0) {
            ck_assert(sc_frontier_point_get(f, i - 1, &prev));
            ck_assert_uint_lt(prev.saved_bytes, pt.saved_bytes);
            ck_assert_uint_gt(prev.recompute_cost, pt.recompute_cost);
        }
        ck_assert_msg(sc_frontier_point_partition(f, i, 0, &part, &err) ==
                          SC_OK,
                      "%s point %zu: %s", examples[_i], i, err.message);
        /* the partition saves exactly the point's decision */
        ck_assert_msg((uint64_t)sc_partition_saved_bytes(part) ==
                          pt.saved_bytes,
                      "%s point %zu: partition saves %lld bytes, frontier "
                      "%llu",
                      examples[_i], i,
                      (long long)sc_partition_saved_bytes(part),
                      (unsigned long long)pt.saved_bytes);
        sc_validate_options_init(&vo);
        vo.seed = 7 + i;
        vo.predicted_saved_bytes = sc_partition_saved_bytes(part);
        ck_assert_msg(sc_validate_run(g, sc_partition_forward(part),
                                      sc_partition_backward(part), &vo, &rep,
                                      &err) == SC_OK,
                      "%s", err.message);
        ck_assert_msg(rep.passed, "%s point %zu (%llu bytes): %s",
                      examples[_i], i, (unsigned long long)pt.saved_bytes,
                      rep.message);
        sc_partition_free(part);
    }
    sc_frontier_free(f);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

/* ---- Random ops: recomputed under exact, replayed exactly ----------------- */

START_TEST(test_random_replay)
{
    long cases = sc_test_cases(300), c, replayed = 0;
    uint64_t seed = sc_test_seed();
    for (c = 0; c < cases; c++) {
        sc_ctx *ctx = sc_ctx_new();
        sc_graph_random_options ro;
        sc_graph *fwd = NULL, *joint = NULL;
        sc_partition_options o;
        sc_frontier *f = NULL, *f13 = NULL;
        sc_frontier_options fo;
        sc_error err;
        size_t i;
        ck_assert_ptr_nonnull(ctx);
        sc_graph_random_options_init(&ro);
        ro.seed = seed + (uint64_t)c;
        ro.nodes = 4 + ro.seed % 6;
        if (sc_graph_new_random(ctx, &ro, &fwd, &err) != SC_OK ||
            sc_graph_new_joint(fwd, NULL, &joint, &err) != SC_OK) {
            sc_graph_free(fwd);
            sc_ctx_free(ctx);
            continue;
        }
        sc_partition_options_init(&o);
        o.policy = SC_PARTITION_EXACT;
        sc_frontier_options_init(&fo);
        ck_assert_msg(sc_frontier_compute(joint, &o, &fo, &f13, &err) ==
                          SC_OK,
                      "seed %llu: %s", (unsigned long long)ro.seed,
                      err.message);
        /* without replay_random, exact never recomputes a random op */
        for (i = 0; i < sc_frontier_point_count(f13); i++)
            ck_assert_uint_eq(sc_frontier_point_replayed_random(f13, i), 0);
        sc_frontier_free(f13);
        f13 = NULL;
        fo.replay_random = true;
        ck_assert_msg(sc_frontier_compute(joint, &o, &fo, &f, &err) == SC_OK,
                      "seed %llu: %s", (unsigned long long)ro.seed,
                      err.message);
        o.policy = SC_PARTITION_PYTORCH_1_13;
        ck_assert_msg(sc_frontier_compute(joint, &o, &fo, &f13, &err) ==
                          SC_OK,
                      "seed %llu: %s", (unsigned long long)ro.seed,
                      err.message);
        ck_assert_int_eq(sc_frontier_policy(f13), SC_PARTITION_PYTORCH_1_13);
        /* pytorch-1.13 never recomputes a random op, replay or not */
        for (i = 0; i < sc_frontier_point_count(f13); i++) {
            sc_frontier_point pt;
            ck_assert(sc_frontier_point_get(f13, i, &pt));
            ck_assert_uint_eq(sc_frontier_point_replayed_random(f13, i), 0);
        }
        for (i = 0; i < sc_frontier_point_count(f); i++) {
            sc_frontier_point pt;
            sc_partition *part = NULL;
            sc_validate_options vo;
            sc_validate_report rep;
            ck_assert(sc_frontier_point_get(f, i, &pt));
            if (sc_frontier_point_replayed_random(f, i) == 0)
                continue;
            replayed++;
            ck_assert_msg(sc_frontier_point_partition(f, i, 0, &part, &err) ==
                              SC_OK,
                          "seed %llu point %zu: %s",
                          (unsigned long long)ro.seed, i, err.message);
            ck_assert_uint_eq((uint64_t)sc_partition_saved_bytes(part),
                              pt.saved_bytes);
            sc_validate_options_init(&vo);
            vo.seed = 3 + (uint64_t)c;
            ck_assert_msg(sc_validate_run(joint, sc_partition_forward(part),
                                          sc_partition_backward(part), &vo,
                                          &rep, &err) == SC_OK,
                          "seed %llu: %s", (unsigned long long)ro.seed,
                          err.message);
            ck_assert_msg(rep.passed,
                          "seed %llu point %zu replays %zu random ops: %s",
                          (unsigned long long)ro.seed, i,
                          sc_frontier_point_replayed_random(f, i),
                          rep.message);
            sc_partition_free(part);
        }
        sc_frontier_free(f);
        sc_frontier_free(f13);
        sc_graph_free(joint);
        sc_graph_free(fwd);
        sc_ctx_free(ctx);
    }
    printf("check_frontier: %ld frontier points replaying random ops "
           "validated\n",
           replayed);
    if (cases >= 300)
        ck_assert_int_gt(replayed, 0);
}
END_TEST

/* ---- Every policy's frontier; torch 2.13's budgets; given saved sets ------ */

START_TEST(test_policies)
{
    const char *top = getenv("top_srcdir");
    char path[1024];
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = NULL;
    sc_frontier *fe = NULL, *ft = NULL, *fk = NULL;
    sc_frontier_options fo;
    sc_partition_options o;
    sc_frontier_point pt, lo, d, prev;
    sc_partition *part = NULL;
    sc_node_id *ids = NULL, bad[1];
    size_t n, i;
    sc_error err;
    bool nonmono = false;

    ck_assert_ptr_nonnull(ctx);
    memset(&prev, 0, sizeof prev);
    snprintf(path, sizeof path, "%s/examples/attention_single_head.joint.txt",
             top ? top : ".");
    ck_assert_int_eq(sc_graph_read_file(ctx, path, NULL, &g, &err), SC_OK);
    sc_partition_options_init(&o);
    sc_frontier_options_init(&fo);
    o.policy = SC_PARTITION_EXACT;
    ck_assert_int_eq(sc_frontier_compute(g, &o, &fo, &fe, &err), SC_OK);
    o.policy = SC_PARTITION_PYTORCH_2_13;
    ck_assert_int_eq(sc_frontier_compute(g, &o, &fo, &ft, &err), SC_OK);
    ck_assert_int_eq(sc_frontier_policy(ft), SC_PARTITION_PYTORCH_2_13);
    fo.keep_bans = true;
    ck_assert_int_eq(sc_frontier_compute(g, &o, &fo, &fk, &err), SC_OK);
    /* the default cut is torch 2.13's, on or above the frontier, and the
     * least-memory end is at or below it; keeping the bans can only
     * raise the least memory */
    sc_frontier_default_cut(ft, &d);
    ck_assert(sc_frontier_point_get(ft, 0, &lo));
    ck_assert(d.valid);
    ck_assert_uint_le(lo.saved_bytes, d.saved_bytes);
    ck_assert_uint_ge(d.recompute_cost, d.lower_bound);
    ck_assert(sc_frontier_point_get(fk, 0, &pt));
    ck_assert_uint_ge(pt.saved_bytes, lo.saved_bytes);
    /* torch 2.13's decisions: valid here, never below the hull, and the
     * ratio's decision is the one sc_partition_run makes */
    for (i = 1; i <= 19; i++) {
        sc_partition *tp = NULL;
        ck_assert_msg(sc_frontier_torch_budget(ft, i / 20.0, &pt, &ids, &n,
                                               &err) == SC_OK,
                      "%s", err.message);
        ck_assert(pt.valid);
        ck_assert_uint_ge(pt.recompute_cost, pt.lower_bound);
        ck_assert_uint_ge(pt.saved_bytes, lo.saved_bytes);
        o.memory_budget_kind = SC_PARTITION_BUDGET_RATIO;
        o.memory_budget_ratio = i / 20.0;
        o.flags = SC_PARTITION_NO_GRAPHS;
        ck_assert_int_eq(sc_partition_run(g, &o, &tp, &err), SC_OK);
        ck_assert_uint_eq((uint64_t)sc_partition_saved_bytes(tp),
                          pt.saved_bytes);
        ck_assert_uint_eq(sc_partition_saved_tensor_count(tp) +
                              sc_partition_saved_symint_count(tp),
                          n);
        sc_partition_free(tp);
        /* its partition through the frontier saves the same bytes */
        ck_assert_int_eq(sc_frontier_partition_saved(ft, ids, n, 0, &part,
                                                     &err),
                         SC_OK);
        ck_assert_uint_eq((uint64_t)sc_partition_saved_bytes(part),
                          pt.saved_bytes);
        sc_partition_free(part);
        free(ids);
        /* torch's cost is not monotone in the budget on this graph */
        if (i > 1 && pt.recompute_cost > prev.recompute_cost)
            nonmono = true;
        prev = pt;
    }
    ck_assert_msg(nonmono, "attention_single_head: torch 2.13's recompute "
                           "cost was monotone in the budget");
    o.memory_budget_kind = SC_PARTITION_BUDGET_NONE;
    o.flags = 0;
    ck_assert_int_eq(sc_frontier_torch_budget(ft, 1.5, &pt, NULL, NULL, &err),
                     SC_ERR_INVALID);
    /* a given saved set that is not valid: the partition names the node */
    bad[0] = sc_graph_find(g, "tangents_1");
    ck_assert_int_ne(bad[0], SC_NODE_NONE);
    ck_assert_int_eq(sc_frontier_partition_saved(fe, NULL, 0, 0, &part, &err),
                     SC_ERR_INVALID);
    ck_assert_ptr_null(part);
    ck_assert_ptr_nonnull(strstr(err.message, "not valid"));
    bad[0] = (sc_node_id)1000000;
    ck_assert_int_eq(sc_frontier_partition_saved(fe, bad, 1, 0, &part, &err),
                     SC_ERR_INVALID);
    /* pytorch-2.13 takes no given saved set in sc_partition_run */
    o.policy = SC_PARTITION_PYTORCH_2_13;
    o.memory_budget_kind = SC_PARTITION_BUDGET_SAVED;
    ck_assert_int_eq(sc_partition_run(g, &o, &part, &err), SC_ERR_INVALID);
    sc_frontier_free(fe);
    sc_frontier_free(ft);
    sc_frontier_free(fk);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

/* ---- Budgets through sc_partition_run ------------------------------------- */

START_TEST(test_bad_budgets)
{
    const char *top = getenv("top_srcdir");
    char path[1024];
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = NULL;
    sc_partition *p = NULL, *q = NULL;
    sc_partition_options o;
    sc_error err;

    ck_assert_ptr_nonnull(ctx);
    snprintf(path, sizeof path, "%s/examples/mlp_gelu.joint.txt",
             top ? top : ".");
    ck_assert_int_eq(sc_graph_read_file(ctx, path, NULL, &g, &err), SC_OK);
    sc_partition_options_init(&o);
    o.policy = SC_PARTITION_EXACT;
    /* below the least: the message names it */
    o.memory_budget_kind = SC_PARTITION_BUDGET_BYTES;
    o.memory_budget_bytes = 1000;
    ck_assert_int_eq(sc_partition_run(g, &o, &p, &err), SC_ERR_INVALID);
    ck_assert_ptr_null(p);
    ck_assert_ptr_nonnull(strstr(err.message, "106496 bytes"));
    /* huge: the least-recompute end, which recomputes nothing here */
    o.memory_budget_bytes = UINT64_MAX;
    ck_assert_int_eq(sc_partition_run(g, &o, &p, &err), SC_OK);
    ck_assert_uint_eq(sc_partition_recomputed_count(p), 0);
    sc_partition_free(p);
    /* ratio 0 is the least memory, 1 the default cut's bytes */
    o.memory_budget_kind = SC_PARTITION_BUDGET_RATIO;
    o.memory_budget_ratio = 0;
    ck_assert_int_eq(sc_partition_run(g, &o, &p, &err), SC_OK);
    ck_assert_int_eq(sc_partition_saved_bytes(p), 106496);
    o.memory_budget_ratio = 1;
    ck_assert_int_eq(sc_partition_run(g, &o, &q, &err), SC_OK);
    {
        sc_partition_options d;
        sc_partition *dp = NULL;
        sc_partition_options_init(&d);
        d.policy = SC_PARTITION_EXACT;
        ck_assert_int_eq(sc_partition_run(g, &d, &dp, &err), SC_OK);
        ck_assert_int_le(sc_partition_saved_bytes(q),
                         sc_partition_saved_bytes(dp));
        sc_partition_free(dp);
    }
    sc_partition_free(p);
    sc_partition_free(q);
    o.memory_budget_ratio = 1.5;
    ck_assert_int_eq(sc_partition_run(g, &o, &p, &err), SC_ERR_INVALID);
    o.memory_budget_ratio = 0.0 / 0.0;
    ck_assert_int_eq(sc_partition_run(g, &o, &p, &err), SC_ERR_INVALID);
    o.memory_budget_kind = 7;
    ck_assert_int_eq(sc_partition_run(g, &o, &p, &err), SC_ERR_INVALID);
    o.memory_budget_kind = SC_PARTITION_BUDGET_BYTES;
    o.policy = SC_PARTITION_PYTORCH_1_13;
    ck_assert_int_eq(sc_partition_run(g, &o, &p, &err), SC_ERR_INVALID);
    ck_assert_ptr_nonnull(strstr(err.message, "pytorch-1.13"));
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

Suite *frontier_suite(void);

Suite *frontier_suite(void)
{
    Suite *s = suite_create("frontier");
    TCase *tc = tcase_create("frontier");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_random_bruteforce);
    tcase_add_loop_test(tc, test_examples_validate, 0, (int)NEXAMPLES);
    tcase_add_test(tc, test_bad_budgets);
    tcase_add_test(tc, test_random_replay);
    tcase_add_test(tc, test_policies);
    suite_add_tcase(s, tc);
    return s;
}
