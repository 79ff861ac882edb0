/* symcut tests — the interpreter and validation: symbol binding and its
 * errors, guards, runtime assertions, unbacked symbols, memory accounting,
 * random-op keys, bit-exact repeatability, every example with reference
 * data against PyTorch's outputs, and sc_validate_run on hand-partitioned
 * graphs.  Data come from $top_srcdir/examples and
 * $top_srcdir/tests/data/interp (make check sets top_srcdir). */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include <symcut/graph.h>
#include <symcut/guards.h>
#include <symcut/interp.h>
#include <symcut/partition.h>

#include "tests/testutil.h"
#include "util/internal.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

Suite *interp_suite(void);

/* ---- Helpers --------------------------------------------------------------- */

static char *srcpath(const char *rel)
{
    const char *top = getenv("top_srcdir");
    size_t n;
    char *p;
    if (!top)
        top = ".";
    n = strlen(top) + strlen(rel) + 2;
    p = malloc(n);
    ck_assert_ptr_nonnull(p);
    snprintf(p, n, "%s/%s", top, rel);
    return p;
}

static bool file_exists(const char *path)
{
    return access(path, R_OK) == 0;
}

static sc_graph *read_graph_opts(sc_ctx *ctx, const char *rel,
                                 const sc_graph_read_options *opts)
{
    char *p = srcpath(rel);
    sc_graph *g = NULL;
    sc_error err;
    sc_status st = sc_graph_read_file(ctx, p, opts, &g, &err);
    ck_assert_msg(st == SC_OK, "reading %s: %s", p, err.message);
    free(p);
    return g;
}

static sc_graph *read_graph(sc_ctx *ctx, const char *rel)
{
    return read_graph_opts(ctx, rel, NULL);
}

static sc_graph *text_graph_env(sc_ctx *ctx, const char *text, sc_env *env)
{
    sc_graph *g = NULL;
    sc_error err;
    sc_graph_read_options opts;
    sc_status st;
    sc_graph_read_options_init(&opts);
    opts.env = env;
    st = sc_graph_read_text(ctx, text, strlen(text), "t.py", &opts, &g, &err);
    ck_assert_msg(st == SC_OK, "reading the test graph: %s", err.message);
    return g;
}

static sc_graph *text_graph(sc_ctx *ctx, const char *text)
{
    return text_graph_env(ctx, text, NULL);
}

static sc_tensor *npy(const char *path)
{
    sc_tensor *t = NULL;
    sc_error err;
    ck_assert_msg(sc_npy_read(path, &t, &err) == SC_OK, "%s: %s", path,
                  err.message);
    return t;
}

/* The inputs of g from dir/<placeholder>.npy. */
static sc_tensor **load_inputs(const sc_graph *g, const char *dir)
{
    size_t np = sc_graph_placeholder_count(g), i;
    sc_tensor **in = calloc(np + 1, sizeof *in);
    ck_assert_ptr_nonnull(in);
    for (i = 0; i < np; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s.npy", dir,
                 sc_graph_node_name(g, (sc_node_id)i));
        in[i] = npy(path);
    }
    return in;
}

static void free_tensors(sc_tensor **ts, size_t n)
{
    size_t i;
    if (!ts)
        return;
    for (i = 0; i < n; i++)
        sc_tensor_free(ts[i]);
    free(ts);
}

/* A 1-d or 2-d f32 tensor filled with 0.25 * (i + 1). */
static sc_tensor *ramp(size_t ndim, int64_t a, int64_t b)
{
    int64_t sizes[2] = {a, b};
    sc_tensor *t = NULL;
    sc_error err;
    size_t i, n;
    ck_assert(sc_tensor_new(SC_DTYPE_F32, ndim, sizes, &t, &err) == SC_OK);
    n = sc_tensor_numel(t);
    for (i = 0; i < n; i++)
        ((float *)sc_tensor_data(t))[i] = 0.25f * (float)(i + 1);
    return t;
}

/* allclose(a, b, rtol, atol) with NumPy's rule; *ratio is the largest
 * |a - b| / (atol + rtol * |b|) (at most 1 when it passes), *max_abs the
 * largest |a - b|. */
static bool allclose(const sc_tensor *a, const sc_tensor *b, double rtol,
                     double atol, double *ratio, double *max_abs, char *why,
                     size_t whysize)
{
    size_t n, i;
    *ratio = 0;
    if (a->dtype != b->dtype || !sc_tensor_same_shape(a, b)) {
        snprintf(why, whysize, "dtype or shape differs (%s vs %s, %zu vs %zu "
                               "dims)",
                 sc_dtype_code(a->dtype), sc_dtype_code(b->dtype), a->ndim,
                 b->ndim);
        return false;
    }
    n = sc_tensor_numel(a);
    for (i = 0; i < n; i++) {
        double x = sc_tensor_item_double(a, i), y = sc_tensor_item_double(b, i);
        double d = fabs(x - y);
        if (d / (atol + rtol * fabs(y)) > *ratio)
            *ratio = d / (atol + rtol * fabs(y));
        if (d > *max_abs)
            *max_abs = d;
        if (!(d <= atol + rtol * fabs(y))) {
            snprintf(why, whysize, "element %zu: %.9g vs %.9g", i, x, y);
            return false;
        }
    }
    return true;
}

static bool bit_equal(const sc_tensor *a, const sc_tensor *b)
{
    size_t n, i, isz;
    if (!a || !b)
        return a == b;
    if (a->dtype != b->dtype || !sc_tensor_same_shape(a, b))
        return false;
    n = sc_tensor_numel(a);
    isz = sc_dtype_itemsize(a->dtype);
    for (i = 0; i < n; i++) {
        double x = sc_tensor_item_double(a, i), y = sc_tensor_item_double(b, i);
        if (isz && memcmp(&x, &y, sizeof x) != 0)
            return false;
    }
    return true;
}

/* Run g on inputs; returns the status, outputs in *outs (calloc'ed). */
static sc_status run(const sc_graph *g, sc_tensor **inputs,
                     const sc_interp_options *opts, sc_tensor ***outs,
                     sc_interp_stats *st, sc_error *err)
{
    size_t no = sc_graph_output_count(g);
    *outs = calloc(no + 1, sizeof **outs);
    ck_assert_ptr_nonnull(*outs);
    return sc_interp_run(g, inputs, opts, *outs, st, err);
}

/* ---- The examples against PyTorch --------------------------------------------- */

typedef struct example {
    const char *graph; /* examples/<graph>.joint.txt */
    const char *data;  /* the .npy folder under examples/ */
} example;

static const example examples[] = {
    {"mlp_gelu", "mlp_gelu.data"},
    {"mlp_gelu_dyn", "mlp_gelu_dyn.data"},
    {"mlp_gelu_dyn", "mlp_gelu_dyn.data/other_sizes"},
    {"fn_mm_gelu_sum", "fn_mm_gelu_sum.data"},
    {"fn_mm_gelu_sum_dyn", "fn_mm_gelu_sum_dyn.data"},
    {"fn_mm_gelu_sum_dyn", "fn_mm_gelu_sum_dyn.data/other_sizes"},
    {"attention_single_head", "attention_single_head.data"},
    {"small_cnn", "small_cnn.data"},
    {"lm_head_ce", "lm_head_ce.data"},
    {"residual_mlp_16", "residual_mlp_16.data"},
    {"two_output_mlp", "two_output_mlp.data"},
    {"lstm_module", "lstm_module.data"},
};

START_TEST(test_example_matches_pytorch)
{
    const example *ex = &examples[_i];
    sc_ctx *ctx = sc_ctx_new();
    char rel[256], *dir;
    sc_graph *g;
    sc_tensor **inputs, **outs = NULL;
    sc_interp_options io;
    sc_interp_stats st;
    sc_error err;
    size_t np, no, k;
    double worst = 0, worst_abs = 0;
    sc_status status;

    snprintf(rel, sizeof rel, "examples/%s.joint.txt", ex->graph);
    g = read_graph(ctx, rel);
    snprintf(rel, sizeof rel, "examples/%s", ex->data);
    dir = srcpath(rel);
    inputs = load_inputs(g, dir);
    np = sc_graph_placeholder_count(g);
    no = sc_graph_output_count(g);
    sc_interp_options_init(&io);
    io.seed = 1234;
    io.boundary = SC_INTERP_BOUNDARY_FORWARD;
    status = run(g, inputs, &io, &outs, &st, &err);
    ck_assert_msg(status == SC_OK, "%s on %s: %s: %s", ex->graph, ex->data,
                  sc_status_name(status), err.message);
    for (k = 0; k < no; k++) {
        char path[1024], why[256];
        double rel_err;
        snprintf(path, sizeof path, "%s/out_%zu.npy", dir, k);
        if (!file_exists(path)) {
            ck_assert_msg(outs[k] == NULL, "%s: output %zu should be None",
                          ex->graph, k);
            continue;
        }
        {
            sc_tensor *want = npy(path);
            ck_assert_msg(outs[k] != NULL, "%s: output %zu is None",
                          ex->graph, k);
            ck_assert_msg(allclose(outs[k], want, 1e-4, 1e-5, &rel_err,
                                   &worst_abs, why, sizeof why),
                          "%s (%s) output %zu (%s): %s", ex->graph, ex->data,
                          k,
                          sc_graph_node_name(g, sc_graph_output(g, k)), why);
            if (rel_err > worst)
                worst = rel_err;
            sc_tensor_free(want);
        }
    }
    /* Inputs the graph mutates (small_cnn's running statistics). */
    for (k = 0; k < np; k++) {
        char path[1024], why[256];
        double rel_err;
        snprintf(path, sizeof path, "%s/%s.after.npy", dir,
                 sc_graph_node_name(g, (sc_node_id)k));
        if (!file_exists(path))
            continue;
        {
            sc_tensor *want = npy(path);
            ck_assert_msg(allclose(inputs[k], want, 1e-4, 1e-5, &rel_err,
                                   &worst_abs, why, sizeof why),
                          "%s: %s after the run: %s", ex->graph,
                          sc_graph_node_name(g, (sc_node_id)k), why);
            if (rel_err > worst)
                worst = rel_err;
            sc_tensor_free(want);
        }
    }
    ck_assert(st.peak_bytes > 0);
    ck_assert(st.boundary_node != SC_NODE_NONE);
    ck_assert(st.boundary_bytes <= st.peak_bytes);
    if (getenv("SYMCUT_INTERP_VERBOSE"))
        printf("interp: %-22s %-36s max abs err %.3g, allclose ratio "
               "%.3g, peak %zu bytes, after the forward %zu\n",
               ex->graph, ex->data, worst_abs, worst, st.peak_bytes,
               st.boundary_bytes);
    free_tensors(outs, no);
    free_tensors(inputs, np);
    free(dir);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

/* Two runs give the same bits; the run does not touch inputs that the
 * graph does not mutate. */
START_TEST(test_repeatable)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = read_graph(ctx, "examples/attention_single_head.joint.txt");
    char *dir = srcpath("examples/attention_single_head.data");
    sc_tensor **inputs = load_inputs(g, dir), **a = NULL, **b = NULL;
    sc_error err;
    size_t no = sc_graph_output_count(g), k;
    ck_assert_int_eq(run(g, inputs, NULL, &a, NULL, &err), SC_OK);
    ck_assert_int_eq(run(g, inputs, NULL, &b, NULL, &err), SC_OK);
    for (k = 0; k < no; k++)
        ck_assert_msg(bit_equal(a[k], b[k]), "output %zu differs", k);
    free_tensors(a, no);
    free_tensors(b, no);
    free_tensors(inputs, sc_graph_placeholder_count(g));
    free(dir);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

/* Every allocation failing in turn: SC_ERR_NOMEM, no leak, no crash
 * (the sanitizer build checks the leaks). */
START_TEST(test_out_of_memory)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = read_graph(ctx, "examples/fn_mm_gelu_sum_dyn.joint.txt");
    char *dir = srcpath("examples/fn_mm_gelu_sum_dyn.data");
    sc_tensor **inputs = load_inputs(g, dir);
    size_t no = sc_graph_output_count(g);
    long n;
    for (n = 0;; n++) {
        sc_tensor *outs[4];
        sc_error err;
        sc_status st;
        sc__alloc_fail_after(n);
        st = sc_interp_run(g, inputs, NULL, outs, NULL, &err);
        sc__alloc_fail_after(-1);
        if (st == SC_OK) {
            size_t k;
            for (k = 0; k < no; k++)
                sc_tensor_free(outs[k]);
            break;
        }
        ck_assert_msg(st == SC_ERR_NOMEM, "failing allocation %ld: %s: %s",
                      n, sc_status_name(st), err.message);
        ck_assert(outs[0] == NULL && outs[2] == NULL);
    }
    ck_assert(n > 10);
    free_tensors(inputs, sc_graph_placeholder_count(g));
    free(dir);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

/* ---- Symbol binding ----------------------------------------------------------- */

static const char two_inputs[] =
    "def forward(self, primals_1: \"f32[s0, 4][4, 1]cpu\", "
    "primals_2: \"f32[s0][1]cpu\"):\n"
    "    sum_1: \"f32[4][1]cpu\" = torch.ops.aten.sum.dim_IntList(primals_1, "
    "[0])\n"
    "    sum_2: \"f32[][]cpu\" = torch.ops.aten.sum.default(primals_2)\n"
    "    return [sum_1, sum_2]\n";

static sc_status run_two(sc_ctx *ctx, const char *text, int64_t a0,
                         int64_t a1, int64_t b0, sc_error *err)
{
    sc_graph *g = text_graph(ctx, text);
    sc_tensor *in[2];
    sc_tensor **outs = NULL;
    sc_status st;
    in[0] = ramp(2, a0, a1);
    in[1] = ramp(1, b0, 0);
    st = run(g, in, NULL, &outs, NULL, err);
    free_tensors(outs, sc_graph_output_count(g));
    sc_tensor_free(in[0]);
    sc_tensor_free(in[1]);
    sc_graph_free(g);
    return st;
}

START_TEST(test_binding_ok)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_error err;
    ck_assert_msg(run_two(ctx, two_inputs, 3, 4, 3, &err) == SC_OK, "%s",
                  err.message);
    sc_ctx_free(ctx);
}
END_TEST

START_TEST(test_binding_symbol_mismatch)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_error err;
    ck_assert_int_eq(run_two(ctx, two_inputs, 3, 4, 5, &err), SC_ERR_SHAPE);
    /* names the input, the dim, the symbol and both values */
    ck_assert_msg(strstr(err.message, "primals_2") &&
                      strstr(err.message, "dim 0") &&
                      strstr(err.message, "s0") &&
                      strstr(err.message, "size 5") &&
                      strstr(err.message, "= 3") &&
                      strstr(err.message, "primals_1 dim 0"),
                  "%s", err.message);
    sc_ctx_free(ctx);
}
END_TEST

START_TEST(test_binding_constant_mismatch)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_error err;
    ck_assert_int_eq(run_two(ctx, two_inputs, 3, 5, 3, &err), SC_ERR_SHAPE);
    ck_assert_msg(strstr(err.message, "primals_1") &&
                      strstr(err.message, "dim 1") &&
                      strstr(err.message, "size 5"),
                  "%s", err.message);
    sc_ctx_free(ctx);
}
END_TEST

START_TEST(test_binding_rank_and_dtype)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = text_graph(ctx, two_inputs);
    sc_tensor *in[2], **outs = NULL;
    sc_error err;
    in[0] = ramp(1, 12, 0);
    in[1] = ramp(1, 3, 0);
    ck_assert_int_eq(run(g, in, NULL, &outs, NULL, &err), SC_ERR_SHAPE);
    ck_assert_msg(strstr(err.message, "primals_1") &&
                      strstr(err.message, "1 dimensions"),
                  "%s", err.message);
    free(outs);
    sc_tensor_free(in[0]);
    ck_assert_int_eq(sc_tensor_new(SC_DTYPE_I64, 2, (int64_t[]){3, 4}, &in[0],
                                   &err),
                     SC_OK);
    ck_assert_int_eq(run(g, in, NULL, &outs, NULL, &err), SC_ERR_TYPE);
    ck_assert_msg(strstr(err.message, "i64") && strstr(err.message, "f32"),
                  "%s", err.message);
    free(outs);
    sc_tensor_free(in[0]);
    sc_tensor_free(in[1]);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

/* A composite size binds its one unbound symbol, and the result's
 * annotation is checked with it. */
START_TEST(test_binding_composite)
{
    static const char text[] =
        "def forward(self, primals_1: \"f32[2*s0 + 1][1]cpu\"):\n"
        "    view: \"f32[1, 2*s0 + 1][2*s0 + 1, 1]cpu\" = "
        "torch.ops.aten.view.default(primals_1, [1, -1])\n"
        "    return [view]\n";
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = text_graph(ctx, text);
    sc_tensor *in[1], **outs = NULL;
    sc_interp_options io;
    sc_error err;
    in[0] = ramp(1, 7, 0);
    ck_assert_msg(run(g, in, NULL, &outs, NULL, &err) == SC_OK, "%s",
                  err.message);
    ck_assert_int_eq(outs[0]->sizes[1], 7);
    free_tensors(outs, 1);
    sc_interp_options_init(&io);
    io.flags = SC_INTERP_NO_META_CHECK;
    ck_assert_msg(run(g, in, &io, &outs, NULL, &err) == SC_OK, "%s",
                  err.message);
    free_tensors(outs, 1);
    /* even sizes cannot be 2*s0 + 1 */
    sc_tensor_free(in[0]);
    in[0] = ramp(1, 8, 0);
    ck_assert_int_eq(run(g, in, NULL, &outs, NULL, &err), SC_ERR_SHAPE);
    ck_assert_msg(strstr(err.message, "primals_1") &&
                      strstr(err.message, "cannot bind") &&
                      strstr(err.message, "2*s0 + 1"),
                  "%s", err.message);
    free(outs);
    sc_tensor_free(in[0]);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

/* Sizes given by the caller must agree with the inputs. */
START_TEST(test_binding_given_sizes)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = text_graph(ctx, two_inputs);
    sc_symmap *sizes = sc_symmap_new(ctx);
    sc_tensor *in[2], **outs = NULL;
    sc_interp_options io;
    sc_error err;
    in[0] = ramp(2, 3, 4);
    in[1] = ramp(1, 3, 0);
    ck_assert_int_eq(sc_symmap_set_si(sizes, sc_expr_symbol(ctx, "s0"), 6,
                                      &err),
                     SC_OK);
    sc_interp_options_init(&io);
    io.sizes = sizes;
    ck_assert_int_eq(run(g, in, &io, &outs, NULL, &err), SC_ERR_SHAPE);
    ck_assert_msg(strstr(err.message, "given by the caller"), "%s",
                  err.message);
    free(outs);
    free_tensors(NULL, 0);
    sc_tensor_free(in[0]);
    sc_tensor_free(in[1]);
    sc_symmap_free(sizes);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

/* A real example: fn_mm_gelu_sum_dyn shares s0 between x [s0, s1] and w2
 * [s2, s0]; feeding w2 from the other sizes breaks it. */
START_TEST(test_binding_example_mismatch)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = read_graph(ctx, "examples/fn_mm_gelu_sum_dyn.joint.txt");
    char *dir = srcpath("examples/fn_mm_gelu_sum_dyn.data");
    char *other = srcpath("examples/fn_mm_gelu_sum_dyn.data/other_sizes/"
                          "primals_3.npy");
    sc_tensor **in = load_inputs(g, dir), **outs = NULL;
    sc_error err;
    sc_tensor_free(in[2]);
    in[2] = npy(other); /* [24, 5] where the hints give [32, 8] */
    ck_assert_int_eq(run(g, in, NULL, &outs, NULL, &err), SC_ERR_SHAPE);
    ck_assert_msg(strstr(err.message, "primals_3 dim 0") &&
                      strstr(err.message, "size 24") &&
                      strstr(err.message, "s2 = 32") &&
                      strstr(err.message, "primals_2 dim 1"),
                  "%s", err.message);
    free(outs);
    /* [32, 5]: s2 fits, s0 (x's first dim, 8) does not */
    sc_tensor_free(in[2]);
    in[2] = ramp(2, 32, 5);
    ck_assert_int_eq(run(g, in, NULL, &outs, NULL, &err), SC_ERR_SHAPE);
    ck_assert_msg(strstr(err.message, "primals_3 dim 1") &&
                      strstr(err.message, "size 5") &&
                      strstr(err.message, "s0 = 8") &&
                      strstr(err.message, "primals_1 dim 0"),
                  "%s", err.message);
    free(outs);
    free_tensors(in, 4);
    free(dir);
    free(other);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

/* ---- Guards and ranges -------------------------------------------------------- */

static const char one_input[] =
    "def forward(self, primals_1: \"f32[s0][1]cpu\"):\n"
    "    relu: \"f32[s0][1]cpu\" = torch.ops.aten.relu.default(primals_1)\n"
    "    return [relu]\n";

START_TEST(test_guard_failure)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_env *env = NULL;
    sc_expr *s0 = NULL;
    sc_graph *g;
    sc_tensor *in[1], **outs = NULL;
    sc_error err;
    bool holds;
    ck_assert_int_eq(sc_env_new(ctx, NULL, &env, &err), SC_OK);
    ck_assert_int_eq(sc_env_create_backed_si(env, 8, "primals_1.size(0)",
                                             "s0", NULL, SC_ENV_NO_DUCK, &s0,
                                             &err),
                     SC_OK);
    /* a guard that ranges cannot express */
    ck_assert_int_eq(sc_env_guard(env,
                                  sc_expr_ne(ctx, s0, sc_expr_int_si(ctx, 5)),
                                  &holds, &err),
                     SC_OK);
    ck_assert(holds);
    g = text_graph_env(ctx, one_input, env);
    in[0] = ramp(1, 6, 0);
    ck_assert_msg(run(g, in, NULL, &outs, NULL, &err) == SC_OK, "%s",
                  err.message);
    free_tensors(outs, 1);
    sc_tensor_free(in[0]);
    in[0] = ramp(1, 5, 0);
    ck_assert_int_eq(run(g, in, NULL, &outs, NULL, &err), SC_ERR_GUARD);
    ck_assert_msg(strstr(err.message, "guard 0 failed") &&
                      strstr(err.message, "Ne(s0, 5)") &&
                      strstr(err.message, "s0 = 5"),
                  "%s", err.message);
    free(outs);
    sc_tensor_free(in[0]);
    /* the range of a backed symbol: [2, inf) */
    in[0] = ramp(1, 1, 0);
    ck_assert_int_eq(run(g, in, NULL, &outs, NULL, &err), SC_ERR_GUARD);
    ck_assert_msg(strstr(err.message, "s0 = 1") &&
                      strstr(err.message, "outside its range"),
                  "%s", err.message);
    free(outs);
    sc_tensor_free(in[0]);
    sc_graph_free(g);
    sc_env_free(env);
    sc_ctx_free(ctx);
}
END_TEST

/* ---- Unbacked symbols ------------------------------------------------------------ */

static const char nonzero_graph[] =
    "def forward(self, primals_1: \"f32[4][1]cpu\"):\n"
    "    nonzero: \"i64[u0, 1][1, 1]cpu\" = "
    "torch.ops.aten.nonzero.default(primals_1)\n"
    "    sym_size: \"Sym(u0)\" = torch.ops.aten.sym_size.int(nonzero, 0)\n"
    "    mul: \"Sym(2*u0)\" = sym_size * 2\n"
    "    zeros: \"f32[2*u0][1]cpu\" = torch.ops.aten.zeros.default([mul])\n"
    "    return [nonzero, mul, zeros]\n";

static sc_tensor *vec4(float a, float b, float c, float d)
{
    sc_tensor *t = ramp(1, 4, 0);
    float *p = sc_tensor_data(t);
    p[0] = a;
    p[1] = b;
    p[2] = c;
    p[3] = d;
    return t;
}

START_TEST(test_unbacked_binding)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = text_graph(ctx, nonzero_graph);
    sc_tensor *in[1], **outs = NULL;
    sc_error err;
    sc_status st;
    in[0] = vec4(0, 1.5f, 0, -2);
    st = run(g, in, NULL, &outs, NULL, &err);
    ck_assert_msg(st == SC_OK, "%s", err.message);
    ck_assert_int_eq(outs[0]->sizes[0], 2);
    ck_assert_int_eq(sc_tensor_item_int64(outs[0], 0), 1);
    ck_assert_int_eq(sc_tensor_item_int64(outs[0], 1), 3);
    ck_assert_int_eq(outs[1]->ndim, 0);
    ck_assert_int_eq(sc_tensor_item_int64(outs[1], 0), 4);
    ck_assert_int_eq(outs[2]->sizes[0], 4);
    free_tensors(outs, 3);
    sc_tensor_free(in[0]);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

START_TEST(test_runtime_assert)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_env *env = NULL;
    sc_expr *u0 = NULL;
    sc_graph *g;
    sc_tensor *in[1], **outs = NULL;
    sc_error err;
    ck_assert_int_eq(sc_env_new(ctx, NULL, &env, &err), SC_OK);
    ck_assert_int_eq(sc_env_create_unbacked(env, "u0", NULL, SC_ENV_SIZE_LIKE,
                                            &u0, &err),
                     SC_OK);
    /* torch._check(u0 != 3): deferred to run time */
    ck_assert_int_eq(sc_env_assert(env,
                                   sc_expr_ne(ctx, u0, sc_expr_int_si(ctx, 3)),
                                   &err),
                     SC_OK);
    ck_assert_uint_eq(sc_env_runtime_assert_count(env), 1);
    g = text_graph_env(ctx, nonzero_graph, env);
    in[0] = vec4(1, 1, 0, 1);
    ck_assert_int_eq(run(g, in, NULL, &outs, NULL, &err), SC_ERR_GUARD);
    ck_assert_msg(strstr(err.message, "runtime assertion") &&
                      strstr(err.message, "u0 = 3"),
                  "%s", err.message);
    free(outs);
    sc_tensor_free(in[0]);
    in[0] = vec4(1, 1, 1, 1);
    ck_assert_msg(run(g, in, NULL, &outs, NULL, &err) == SC_OK, "%s",
                  err.message);
    free_tensors(outs, 3);
    sc_tensor_free(in[0]);
    sc_graph_free(g);
    sc_env_free(env);
    sc_ctx_free(ctx);
}
END_TEST

/* ---- SymFloats: the value of a floating 0-d tensor ------------------------- */

/* `.item()` of a floating tensor (_local_scalar_dense) is a SymFloat that
 * later ops take as a Python float.  Each row: the scalar tensor's dtype
 * and value, the op using the SymFloat `f` on x = [0.5, -1.25, 3]
 * (f32), and the result computed here in float, as PyTorch computes it
 * (the scalar converted to float, the op in float). */
typedef struct float_item_case {
    const char *dtype; /* of the scalar tensor: f64, f32, bf16 */
    double value;      /* exactly representable in that dtype */
    const char *op;    /* the line computing `r` from x and f */
    int which;         /* 0 x+f, 1 x*f, 2 x/f, 3 x**f (x > 0 here: |x|),
                        * 4 f-x (rsub), 5 x + 2*f (alpha) */
} float_item_case;

static const float_item_case float_item_cases[] = {
    {"f64", 1e-6, "torch.ops.aten.add.Tensor(x, f)", 0},
    {"f64", 0.1, "torch.ops.aten.mul.Tensor(x, f)", 1},
    {"f32", 0.375, "torch.ops.aten.div.Tensor(x, f)", 2},
    {"f64", 2.5, "torch.ops.aten.pow.Tensor_Scalar(a, f)", 3},
    {"bf16", 1.5, "torch.ops.aten.rsub.Scalar(x, f)", 4},
    {"f64", 0.3, "torch.ops.aten.add.Tensor(x, f, alpha = 2)", 5},
    {"f64", -7.25, "torch.ops.aten.mul.Scalar(x, f)", 1},
};

START_TEST(test_float_item)
{
    const float_item_case *c = &float_item_cases[_i];
    static const float xs[3] = {0.5f, -1.25f, 3.0f};
    char text[1024];
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g;
    sc_tensor *in[2], **outs = NULL;
    sc_dtype dt;
    sc_error err;
    sc_status st;
    size_t i;
    float f;

    snprintf(text, sizeof text,
             "def forward(self, x: \"f32[3][1]cpu\", s: \"%s[][]cpu\"):\n"
             "    a: \"f32[3][1]cpu\" = torch.ops.aten.abs.default(x)\n"
             "    f: \"Sym(zf0)\" = "
             "torch.ops.aten._local_scalar_dense.default(s)\n"
             "    r: \"f32[3][1]cpu\" = %s\n"
             "    return [r, f]\n",
             c->dtype, c->op);
    g = text_graph(ctx, text);
    ck_assert(sc_dtype_from_code(c->dtype, strlen(c->dtype), &dt));
    in[0] = ramp(1, 3, 0);
    memcpy(sc_tensor_data(in[0]), xs, sizeof xs);
    ck_assert_int_eq(sc_tensor_new_scalar(dt, c->value, &in[1], &err), SC_OK);
    st = run(g, in, NULL, &outs, NULL, &err);
    ck_assert_msg(st == SC_OK, "%s: %s", c->op, err.message);
    /* the SymFloat output: its value in double, as a 0-d f64 tensor */
    ck_assert_int_eq(outs[1]->dtype, SC_DTYPE_F64);
    ck_assert_int_eq(outs[1]->ndim, 0);
    ck_assert(sc_tensor_item_double(outs[1], 0) == c->value);
    ck_assert_int_eq(outs[0]->dtype, SC_DTYPE_F32);
    f = (float)c->value;
    for (i = 0; i < 3; i++) {
        float x = xs[i], want;
        switch (c->which) {
        case 0: want = x + f; break;
        case 1: want = x * f; break;
        case 2: want = x / f; break;
        case 3: want = powf(fabsf(x), f); break;
        case 4: want = f - x; break;
        default: want = x + 2.0f * f; break;
        }
        ck_assert_msg(((float *)sc_tensor_data(outs[0]))[i] == want,
                      "%s, element %zu: %.9g, want %.9g", c->op, i,
                      (double)((float *)sc_tensor_data(outs[0]))[i],
                      (double)want);
    }
    free_tensors(outs, 2);
    sc_tensor_free(in[0]);
    sc_tensor_free(in[1]);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

/* A SymFloat where an int is needed, and .item() of a tensor with more
 * than one element, are clean errors. */
START_TEST(test_float_item_errors)
{
    static const char int_slot[] =
        "def forward(self, x: \"f32[3][1]cpu\", s: \"f64[][]cpu\"):\n"
        "    f: \"Sym(zf0)\" = torch.ops.aten._local_scalar_dense.default(s)\n"
        "    r: \"f32[3][1]cpu\" = torch.ops.aten.squeeze.dim(x, f)\n"
        "    return [r]\n";
    static const char two[] =
        "def forward(self, x: \"f32[3][1]cpu\", s: \"f64[2][1]cpu\"):\n"
        "    f: \"Sym(zf0)\" = torch.ops.aten._local_scalar_dense.default(s)\n"
        "    r: \"f32[3][1]cpu\" = torch.ops.aten.mul.Tensor(x, f)\n"
        "    return [r]\n";
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g;
    sc_tensor *in[2], **outs = NULL;
    sc_error err;
    sc_status st;

    in[0] = ramp(1, 3, 0);
    g = text_graph(ctx, int_slot);
    ck_assert_int_eq(sc_tensor_new_scalar(SC_DTYPE_F64, 0, &in[1], &err),
                     SC_OK);
    st = run(g, in, NULL, &outs, NULL, &err);
    ck_assert_int_eq(st, SC_ERR_TYPE);
    ck_assert_msg(strstr(err.message, "SymFloat") &&
                      strstr(err.message, "int"),
                  "%s", err.message);
    free(outs);
    sc_tensor_free(in[1]);
    sc_graph_free(g);

    g = text_graph(ctx, two);
    ck_assert_int_eq(sc_tensor_new(SC_DTYPE_F64, 1, (int64_t[]){2}, &in[1],
                                   &err),
                     SC_OK);
    st = run(g, in, NULL, &outs, NULL, &err);
    ck_assert_int_ne(st, SC_OK);
    ck_assert_msg(strstr(err.message, "2 elements"), "%s", err.message);
    free(outs);
    sc_tensor_free(in[1]);
    sc_graph_free(g);
    sc_tensor_free(in[0]);
    sc_ctx_free(ctx);
}
END_TEST

/* ---- Ops without kernels, tuples, memory -------------------------------------------- */

START_TEST(test_unknown_op)
{
    static const char text[] =
        "def forward(self, primals_1: \"f32[4][1]cpu\"):\n"
        "    frob: \"f32[4][1]cpu\" = torch.ops.aten.frobnicate.default("
        "primals_1)\n"
        "    return [frob]\n";
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = text_graph(ctx, text);
    sc_tensor *in[1], **outs = NULL;
    sc_error err;
    in[0] = ramp(1, 4, 0);
    ck_assert_int_eq(run(g, in, NULL, &outs, NULL, &err), SC_ERR_UNSUPPORTED);
    ck_assert_msg(strstr(err.message, "frobnicate") &&
                      strstr(err.message, "without a kernel") &&
                      strstr(err.message, "nothing was run"),
                  "%s", err.message);
    free(outs);
    sc_tensor_free(in[0]);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

/* The pre-flight check names every op without a kernel and every
 * unsupported dtype at once, and refuses before any kernel runs. */
static const struct {
    const char *body;           /* the nodes after the placeholder line */
    const char *want[4];        /* substrings of the message; NULL: runs */
} preflight_cases[] = {
    {"    relu = torch.ops.aten.relu.default(x)\n"
     "    return [relu]\n",
     {NULL}},
    {"    ar = torch.ops._c10d_functional.all_reduce.default(x, \"sum\", \"0\")\n"
     "    w = torch.ops._c10d_functional.wait_tensor.default(ar)\n"
     "    return [w]\n",
     {"2 nodes cannot run", "all_reduce.default (not in the op table; node ar)",
      "wait_tensor.default (not in the op table; node w)", NULL}},
    {"    mm = torch.ops.aten.mm.default(x, x)\n"
     "    f = torch.ops.mylib.foo.default(mm)\n"
     "    g = torch.ops.mylib.foo.default(f)\n"
     "    z = torch.ops.aten._to_copy.default(mm, dtype = torch.complex64)\n"
     "    return [g, z]\n",
     {"2 nodes cannot run (1 op without a kernel",
      "mylib.foo.default (not in the op table; node f and more)",
      "dtype the kernels do not support: complex64 (node z)",
      "nothing was run"}},
};

START_TEST(test_preflight)
{
    char text[1024];
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g;
    sc_tensor *in[1], **outs = NULL;
    sc_interp_stats st;
    sc_error err;
    size_t k;

    snprintf(text, sizeof text,
             "def forward(self, x: \"f32[4, 4][4, 1]cpu\"):\n%s",
             preflight_cases[_i].body);
    g = text_graph(ctx, text);
    in[0] = ramp(2, 4, 4);
    memset(&st, 0, sizeof st);
    if (!preflight_cases[_i].want[0]) {
        ck_assert_int_eq(sc_interp_preflight(g, &err), SC_OK);
        ck_assert_int_eq(run(g, in, NULL, &outs, NULL, &err), SC_OK);
    } else {
        ck_assert_int_eq(sc_interp_preflight(g, &err), SC_ERR_UNSUPPORTED);
        for (k = 0; k < 4 && preflight_cases[_i].want[k]; k++)
            ck_assert_msg(strstr(err.message, preflight_cases[_i].want[k]),
                          "'%s' not in: %s", preflight_cases[_i].want[k],
                          err.message);
        /* sc_interp_run refuses the same way, before any kernel ran */
        ck_assert_int_eq(run(g, in, NULL, &outs, &st, &err),
                         SC_ERR_UNSUPPORTED);
        ck_assert_uint_eq(st.kernel_calls, 0);
        ck_assert_ptr_nonnull(strstr(err.message, "nothing was run"));
    }
    if (outs)
        for (k = 0; k < sc_graph_output_count(g); k++)
            sc_tensor_free(outs[k]);
    free(outs);
    sc_tensor_free(in[0]);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

/* Devices other than the CPU are counted (the kernels run them on the
 * CPU). */
START_TEST(test_foreign_devices)
{
    static const char text[] =
        "def forward(self, x: \"f32[4][1]cuda:1\"):\n"
        "    relu = torch.ops.aten.relu.default(x)\n"
        "    z = torch.ops.aten.zeros.default([2], device = device(type='cuda', index=1))\n"
        "    return [relu, z]\n";
    static const char cpu[] =
        "def forward(self, x: \"f32[4][1]cpu\"):\n"
        "    relu = torch.ops.aten.relu.default(x)\n"
        "    return [relu]\n";
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = text_graph(ctx, text), *h = text_graph(ctx, cpu);
    sc_device d = {SC_DEVICE_CPU, -1};
    sc_tensor *in[1], **outs = NULL;
    sc_error err;

    ck_assert_uint_eq(sc_interp_foreign_devices(g, &d), 3);
    ck_assert_int_eq(d.type, SC_DEVICE_CUDA);
    ck_assert_int_eq(d.index, 1);
    ck_assert_uint_eq(sc_interp_foreign_devices(h, NULL), 0);
    in[0] = ramp(1, 4, 0);
    ck_assert_int_eq(run(g, in, NULL, &outs, NULL, &err), SC_OK);
    sc_tensor_free(outs[0]);
    sc_tensor_free(outs[1]);
    free(outs);
    sc_tensor_free(in[0]);
    sc_graph_free(g);
    sc_graph_free(h);
    sc_ctx_free(ctx);
}
END_TEST

/* Peak and boundary bytes of a chain x -> a -> b -> c with 1 KiB values:
 * two values live at a time; after b (the boundary) only b is held. */
START_TEST(test_memory_accounting)
{
    static const char text[] =
        "def forward(self, primals_1: \"f32[256][1]cpu\"):\n"
        "    relu: \"f32[256][1]cpu\" = torch.ops.aten.relu.default(primals_1)\n"
        "    neg: \"f32[256][1]cpu\" = torch.ops.aten.neg.default(relu)\n"
        "    t: \"f32[256][1]cpu\" = torch.ops.aten.t.default(neg)\n"
        "    exp: \"f32[256][1]cpu\" = torch.ops.aten.exp.default(t)\n"
        "    return [exp]\n";
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = text_graph(ctx, text);
    sc_tensor *in[1], **outs = NULL;
    sc_interp_options io;
    sc_interp_stats st;
    sc_error err;
    in[0] = ramp(1, 256, 0);
    sc_interp_options_init(&io);
    io.boundary = sc_graph_find(g, "neg");
    ck_assert_msg(run(g, in, &io, &outs, &st, &err) == SC_OK, "%s",
                  err.message);
    ck_assert_uint_eq(st.peak_bytes, 2048);
    ck_assert_uint_eq(st.boundary_bytes, 1024);
    ck_assert_uint_eq(st.boundary_input_bytes, 0);
    ck_assert_uint_eq(st.output_bytes, 1024);
    ck_assert_uint_eq(st.kernel_calls, 4);
    free_tensors(outs, 1);
    /* the boundary right after the inputs: only the input is held */
    io.boundary = 0;
    ck_assert_int_eq(run(g, in, &io, &outs, &st, &err), SC_OK);
    ck_assert_uint_eq(st.boundary_bytes, 1024);
    ck_assert_uint_eq(st.boundary_input_bytes, 1024);
    free_tensors(outs, 1);
    sc_tensor_free(in[0]);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

/* An elementwise op keeps a permuted input's layout (as in PyTorch), so
 * permuting back gives a contiguous tensor that `view` may flatten; the
 * interpreter must give the kernel's result the layout the metadata
 * states (the kernel writes contiguously). */
START_TEST(test_layout_follows_metadata)
{
    static const char text[] =
        "def forward(self, primals_1: \"f32[2, 3][3, 1]cpu\"):\n"
        "    permute: \"f32[3, 2][1, 3]cpu\" = "
        "torch.ops.aten.permute.default(primals_1, [1, 0])\n"
        "    mul: \"f32[3, 2][1, 3]cpu\" = "
        "torch.ops.aten.mul.Scalar(permute, 2.0)\n"
        "    permute_1: \"f32[2, 3][3, 1]cpu\" = "
        "torch.ops.aten.permute.default(mul, [1, 0])\n"
        "    view: \"f32[6][1]cpu\" = "
        "torch.ops.aten.view.default(permute_1, [-1])\n"
        "    return [view]\n";
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = text_graph(ctx, text);
    sc_tensor *in[1], **outs = NULL;
    sc_interp_options io;
    sc_interp_stats st;
    sc_error err;
    size_t i;
    in[0] = ramp(2, 2, 3);
    sc_interp_options_init(&io);
    ck_assert_msg(run(g, in, &io, &outs, &st, &err) == SC_OK, "%s",
                  err.message);
    ck_assert_uint_eq(outs[0]->ndim, 1);
    ck_assert_int_eq(outs[0]->sizes[0], 6);
    for (i = 0; i < 6; i++) /* the input in row-major order, doubled */
        ck_assert_msg(sc_tensor_item_double(outs[0], i) ==
                          2 * sc_tensor_item_double(in[0], i),
                      "element %zu: %g", i,
                      sc_tensor_item_double(outs[0], i));
    free_tensors(outs, 1);
    sc_tensor_free(in[0]);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

/* ---- Batch-norm statistics of a bf16 input ------------------------------------ */

/* A bf16 input with float32 parameters: PyTorch's CPU kernel keeps
 * float32 save_mean and save_invstd, while the annotations (its meta
 * function) say bf16.  The interpreter accepts the float32 statistics at
 * the getitems of the batch norm and at placeholders that only
 * native_batch_norm_backward reads as saved statistics; nowhere else. */
static const char bn_bf16_joint[] =
    "def forward(self, primals_1: \"bf16[4, 2, 3][6, 3, 1]cpu\", "
    "primals_2: \"f32[2][1]cpu\", primals_3: \"f32[2][1]cpu\", "
    "primals_4: \"f32[2][1]cpu\", primals_5: \"f32[2][1]cpu\", "
    "tangents_1: \"bf16[4, 2, 3][6, 3, 1]cpu\"):\n"
    "    bn = torch.ops.aten._native_batch_norm_legit_functional.default("
    "primals_1, primals_2, primals_3, primals_4, primals_5, True, 0.1, "
    "1e-05)\n"
    "    getitem: \"bf16[4, 2, 3][6, 3, 1]cpu\" = bn[0]\n"
    "    getitem_1: \"bf16[2][1]cpu\" = bn[1]\n"
    "    getitem_2: \"bf16[2][1]cpu\" = bn[2]\n"
    "    getitem_3: \"f32[2][1]cpu\" = bn[3]\n"
    "    getitem_4: \"f32[2][1]cpu\" = bn[4]\n"
    "    bwd = torch.ops.aten.native_batch_norm_backward.default("
    "tangents_1, primals_1, primals_2, getitem_3, getitem_4, getitem_1, "
    "getitem_2, True, 1e-05, [True, True, True])\n"
    "    getitem_5: \"bf16[4, 2, 3][6, 3, 1]cpu\" = bwd[0]\n"
    "    getitem_6: \"f32[2][1]cpu\" = bwd[1]\n"
    "    getitem_7: \"f32[2][1]cpu\" = bwd[2]\n"
    "    return [getitem, getitem_1, getitem_2, getitem_5, getitem_6]\n";

/* The backward alone: getitem_1 and getitem_2 come from the forward; in
 * bn_bf16_misuse an add reads them too, so they must be bf16. */
static const char bn_bf16_backward[] =
    "def forward(self, primals_1: \"bf16[4, 2, 3][6, 3, 1]cpu\", "
    "primals_2: \"f32[2][1]cpu\", getitem_1: \"bf16[2][1]cpu\", "
    "getitem_2: \"bf16[2][1]cpu\", "
    "tangents_1: \"bf16[4, 2, 3][6, 3, 1]cpu\"):\n"
    "    bwd = torch.ops.aten.native_batch_norm_backward.default("
    "tangents_1, primals_1, primals_2, None, None, getitem_1, "
    "getitem_2, True, 1e-05, [True, True, True])\n"
    "    getitem_5: \"bf16[4, 2, 3][6, 3, 1]cpu\" = bwd[0]\n"
    "    getitem_6: \"f32[2][1]cpu\" = bwd[1]\n"
    "    return [getitem_5, getitem_6]\n";

static const char bn_bf16_misuse[] =
    "def forward(self, primals_1: \"bf16[4, 2, 3][6, 3, 1]cpu\", "
    "primals_2: \"f32[2][1]cpu\", getitem_1: \"bf16[2][1]cpu\", "
    "getitem_2: \"bf16[2][1]cpu\", "
    "tangents_1: \"bf16[4, 2, 3][6, 3, 1]cpu\"):\n"
    "    bwd = torch.ops.aten.native_batch_norm_backward.default("
    "tangents_1, primals_1, primals_2, None, None, getitem_1, "
    "getitem_2, True, 1e-05, [True, True, True])\n"
    "    getitem_5: \"bf16[4, 2, 3][6, 3, 1]cpu\" = bwd[0]\n"
    "    add: \"bf16[2][1]cpu\" = torch.ops.aten.add.Tensor(getitem_2, "
    "getitem_1)\n"
    "    return [getitem_5, add]\n";

static sc_tensor *to_dtype(sc_tensor *t, sc_dtype dt)
{
    sc_tensor *o = NULL;
    sc_error err;
    ck_assert_msg(sc_tensor_to_dtype(t, dt, &o, &err) == SC_OK, "%s",
                  err.message);
    sc_tensor_free(t);
    return o;
}

START_TEST(test_batch_norm_bf16_stats)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = text_graph(ctx, bn_bf16_joint);
    sc_tensor *in[6], *bin[5], **outs = NULL, **bouts = NULL;
    sc_error err;
    size_t i, k, unrounded = 0;

    {
        int64_t xs[3] = {4, 2, 3};
        float *a, *t;
        ck_assert(sc_tensor_new(SC_DTYPE_F32, 3, xs, &in[0], &err) == SC_OK);
        ck_assert(sc_tensor_new(SC_DTYPE_F32, 3, xs, &in[5], &err) == SC_OK);
        a = sc_tensor_data(in[0]);
        t = sc_tensor_data(in[5]);
        for (i = 0; i < 24; i++) {
            a[i] = (float)((i * 7) % 11) * 0.375f - 1.0f;
            t[i] = (float)((i * 5) % 7) * 0.25f - 0.5f;
        }
        in[0] = to_dtype(in[0], SC_DTYPE_BF16);
        in[5] = to_dtype(in[5], SC_DTYPE_BF16);
    }
    for (k = 1; k < 5; k++)
        in[k] = ramp(1, 2, 0);
    ck_assert_msg(run(g, in, NULL, &outs, NULL, &err) == SC_OK, "%s",
                  err.message);
    /* the statistics are float32 and not rounded to bf16 */
    for (k = 1; k <= 2; k++) {
        ck_assert_int_eq(outs[k]->dtype, SC_DTYPE_F32);
        for (i = 0; i < 2; i++) {
            float v = ((const float *)sc_tensor_data(outs[k]))[i];
            if (sc_bf16_to_f32(sc_f32_to_bf16(v)) != v)
                unrounded++;
        }
    }
    ck_assert_uint_gt(unrounded, 0);
    ck_assert_int_eq(outs[3]->dtype, SC_DTYPE_BF16);

    /* the backward graph alone takes the forward's float32 statistics */
    sc_graph_free(g);
    g = text_graph(ctx, bn_bf16_backward);
    bin[0] = in[0];
    bin[1] = in[1];
    bin[2] = outs[1];
    bin[3] = outs[2];
    bin[4] = in[5];
    ck_assert_msg(run(g, bin, NULL, &bouts, NULL, &err) == SC_OK, "%s",
                  err.message);
    ck_assert_int_eq(bouts[0]->dtype, SC_DTYPE_BF16);
    ck_assert(bit_equal(bouts[0], outs[3]));
    ck_assert(bit_equal(bouts[1], outs[4]));
    free_tensors(bouts, 2);

    /* ... but not where another op reads them */
    sc_graph_free(g);
    g = text_graph(ctx, bn_bf16_misuse);
    ck_assert_int_eq(run(g, bin, NULL, &bouts, NULL, &err), SC_ERR_TYPE);
    ck_assert_msg(strstr(err.message, "getitem_1") &&
                      strstr(err.message, "bf16"),
                  "%s", err.message);
    free(bouts);

    free_tensors(outs, 5);
    for (k = 0; k < 6; k++)
        sc_tensor_free(in[k]);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

/* A bf16 convolution weight gradient in PyTorch's CPU order: a row of 40
 * output positions is summed in two chunks of 20, each as two float sums
 * (even and odd offsets) added at the chunk's end.  go holds 2^25 at 0,
 * -2^25 at 1 and 1 at position k: the 1 is lost in the first chunk (the
 * even and odd sums hold 2^25 and -2^25 while it is added) and kept in
 * the second; a running sum over the row would keep it for every k >= 2.
 * The expected values are torch 2.13's (convolution_backward of the same
 * bf16 tensors on the CPU). */
static const char conv_bf16_graph[] =
    "def forward(self, x: \"f32[1, 1, 1, 40][40, 40, 40, 1]cpu\", "
    "w: \"f32[1, 1, 1, 3][3, 3, 3, 1]cpu\", "
    "go: \"f32[1, 1, 1, 40][40, 40, 40, 1]cpu\"):\n"
    "    xb: \"bf16[1, 1, 1, 40][40, 40, 40, 1]cpu\" = "
    "torch.ops.aten._to_copy.default(x, dtype = torch.bfloat16)\n"
    "    wb: \"bf16[1, 1, 1, 3][3, 3, 3, 1]cpu\" = "
    "torch.ops.aten._to_copy.default(w, dtype = torch.bfloat16)\n"
    "    gob: \"bf16[1, 1, 1, 40][40, 40, 40, 1]cpu\" = "
    "torch.ops.aten._to_copy.default(go, dtype = torch.bfloat16)\n"
    "    cb = torch.ops.aten.convolution_backward.default(gob, xb, wb, [1], "
    "[1, 1], [0, 1], [1, 1], False, [0, 0], 1, [False, True, True])\n"
    "    gw: \"bf16[1, 1, 1, 3][3, 3, 3, 1]cpu\" = cb[1]\n"
    "    gb: \"bf16[1][1]cpu\" = cb[2]\n"
    "    return (gw, gb)\n";

START_TEST(test_conv_bf16_weight_gradient_order)
{
    static const struct {
        int k;
        float gw[3];
    } cases[] = {
        {2, {-0x1p25f, 0.0f, 0.0f}},  {19, {-0x1p25f, 0.0f, 0.0f}},
        {20, {-0x1p25f, 1.0f, 1.0f}}, {21, {-0x1p25f, 1.0f, 1.0f}},
        {39, {-0x1p25f, 1.0f, 0.0f}},
    };
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = text_graph(ctx, conv_bf16_graph);
    int64_t xs[4] = {1, 1, 1, 40}, ws[4] = {1, 1, 1, 3};
    size_t c, i;

    for (c = 0; c < ARRAY_SIZE(cases); c++) {
        sc_tensor *in[3], **outs = NULL;
        sc_error err;
        float *x, *go;
        ck_assert(sc_tensor_new(SC_DTYPE_F32, 4, xs, &in[0], &err) == SC_OK);
        ck_assert(sc_tensor_new(SC_DTYPE_F32, 4, ws, &in[1], &err) == SC_OK);
        ck_assert(sc_tensor_new(SC_DTYPE_F32, 4, xs, &in[2], &err) == SC_OK);
        x = sc_tensor_data(in[0]);
        go = sc_tensor_data(in[2]);
        for (i = 0; i < 40; i++) {
            x[i] = 1.0f;
            go[i] = 0.0f;
        }
        memset(sc_tensor_data(in[1]), 0, 3 * sizeof(float));
        go[0] = 0x1p25f;
        go[1] = -0x1p25f;
        go[cases[c].k] = 1.0f;
        ck_assert_msg(run(g, in, NULL, &outs, NULL, &err) == SC_OK, "%s",
                      err.message);
        ck_assert_int_eq(outs[0]->dtype, SC_DTYPE_BF16);
        for (i = 0; i < 3; i++) {
            float v = sc_bf16_to_f32(
                ((const uint16_t *)sc_tensor_data(outs[0]))[i]);
            ck_assert_msg(v == cases[c].gw[i],
                          "k %d: grad_weight[%zu] is %g, torch %g",
                          cases[c].k, i, (double)v,
                          (double)cases[c].gw[i]);
        }
        ck_assert(sc_bf16_to_f32(
                      ((const uint16_t *)sc_tensor_data(outs[1]))[0]) ==
                  1.0f);
        free_tensors(outs, 2);
        for (i = 0; i < 3; i++)
            sc_tensor_free(in[i]);
    }
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

/* ---- torch.sym_float, sym_int, sym_ite, sym_sqrt, sym_sum -------------------- */

/* Graphs as torch 2.13's make_fx printed them (tracing_mode="symbolic"),
 * except that a node whose annotation names a SymFloat (`Sym(ToFloat(
 * s75))`, `Sym(OpaqueUnaryFn_sqrt(...))`, `Sym(TruncToInt(...))`) or a
 * Piecewise has it dropped: symcut's expressions have no floats and no
 * conditionals, so such an annotation does not read (its node reads
 * unannotated, as in a `.code` graph).  Each runs at n = x_1.size(0) in
 * {6, 3, 1}: out is x_1 * n (sym_float), x_1 * sqrt(n) (torch.sym_sqrt,
 * the function FX prints as torch._sym_sqrt), a zeros vector of length
 * max(n, 4) (sym_ite of n > 4), n + 4 + 3 (sym_sum of a list), or n
 * again (sym_int of a SymInt); the annotated SymInt results are the
 * rules' (the read checks them) and every text re-prints stably. */
typedef struct sym_fn_case {
    const char *name;
    const char *text;
    int want; /* 0: x * n, 1: x * sqrt(n), 2: length max(n, 4),
                 3: length n + 7, 4: length n */
} sym_fn_case;

static const sym_fn_case sym_fn_cases[] = {
    {"sym_float",
     "def forward(self, x_1: \"f32[s75, s96]\"):\n"
     "    sym_size_int: \"Sym(s75)\" = torch.ops.aten.sym_size.int(x_1, 0)\n"
     "    sym_float = torch.sym_float(sym_size_int);  sym_size_int = None\n"
     "    mul: \"f32[s75, s96]\" = torch.ops.aten.mul.Tensor(x_1, "
     "sym_float);  x_1 = sym_float = None\n"
     "    return mul\n",
     0},
    {"sym_sqrt",
     "def forward(self, x_1: \"f32[s75, s96]\"):\n"
     "    sym_size_int: \"Sym(s75)\" = torch.ops.aten.sym_size.int(x_1, 0)\n"
     "    sym_float = torch.sym_float(sym_size_int);  sym_size_int = None\n"
     "    _sym_sqrt = torch.sym_sqrt(sym_float);  sym_float = None\n"
     "    mul: \"f32[s75, s96]\" = torch.ops.aten.mul.Tensor(x_1, "
     "_sym_sqrt);  x_1 = _sym_sqrt = None\n"
     "    return mul\n",
     1},
    {"sym_ite",
     "def forward(self, x_1: \"f32[s75, s96]\"):\n"
     "    sym_size_int: \"Sym(s75)\" = torch.ops.aten.sym_size.int(x_1, 0)\n"
     "    gt: \"Sym(s75 > 4)\" = sym_size_int > 4\n"
     "    sym_ite = torch.sym_ite(gt, sym_size_int, 4);  gt = "
     "sym_size_int = None\n"
     "    new_zeros = torch.ops.aten.new_zeros.default(x_1, [sym_ite], "
     "pin_memory = False);  x_1 = sym_ite = None\n"
     "    return new_zeros\n",
     2},
    {"sym_sum",
     "def forward(self, x_1: \"f32[s75, s96]\"):\n"
     "    sym_size_int: \"Sym(s75)\" = torch.ops.aten.sym_size.int(x_1, 0)\n"
     "    sym_size_int_1: \"Sym(s96)\" = torch.ops.aten.sym_size.int(x_1, "
     "1)\n"
     "    sym_sum: \"Sym(s75 + s96 + 3)\" = torch.sym_sum((sym_size_int, "
     "sym_size_int_1, 3));  sym_size_int = sym_size_int_1 = None\n"
     "    new_zeros: \"f32[s75 + s96 + 3]\" = "
     "torch.ops.aten.new_zeros.default(x_1, [sym_sum], pin_memory = "
     "False);  x_1 = sym_sum = None\n"
     "    return new_zeros\n",
     3},
    {"sym_int",
     "def forward(self, x_1: \"f32[s75, s96]\"):\n"
     "    sym_size_int: \"Sym(s75)\" = torch.ops.aten.sym_size.int(x_1, 0)\n"
     "    sym_int: \"Sym(s75)\" = torch.sym_int(sym_size_int);  "
     "sym_size_int = None\n"
     "    new_zeros: \"f32[s75]\" = torch.ops.aten.new_zeros.default(x_1, "
     "[sym_int], pin_memory = False);  x_1 = sym_int = None\n"
     "    return new_zeros\n",
     4},
};

START_TEST(test_torch_sym_fn)
{
    static const int64_t ns[3] = {6, 3, 1};
    const sym_fn_case *tc = &sym_fn_cases[_i];
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = text_graph(ctx, tc->text), *g2;
    char *text = NULL, *text2 = NULL;
    sc_error err;
    size_t k, i;

    for (k = 0; k < sc_graph_node_count(g); k++)
        if (sc_graph_node_kind(g, (sc_node_id)k) == SC_NODE_CALL)
            ck_assert_msg(sc_graph_node_class(g, (sc_node_id)k),
                          "%s: %s is not in the op table", tc->name,
                          sc_graph_node_target(g, (sc_node_id)k));
    ck_assert_int_eq(sc_graph_write_text(g, NULL, &text, NULL, &err), SC_OK);
    ck_assert_msg(strstr(text, "torch.sym_") != NULL, "%s", text);
    g2 = text_graph(ctx, text);
    ck_assert_int_eq(sc_graph_write_text(g2, NULL, &text2, NULL, &err),
                     SC_OK);
    ck_assert_str_eq(text, text2);
    for (k = 0; k < 3; k++) {
        int64_t sizes[2] = {ns[k], 4}, len;
        sc_tensor *in[1] = {NULL}, **outs = NULL;
        ck_assert(sc_tensor_new(SC_DTYPE_F32, 2, sizes, &in[0], &err) ==
                  SC_OK);
        for (i = 0; i < (size_t)(ns[k] * 4); i++)
            ((float *)sc_tensor_data(in[0]))[i] = 0.375f * (float)i - 1.25f;
        ck_assert_msg(run(g, in, NULL, &outs, NULL, &err) == SC_OK,
                      "%s, n %lld: %s", tc->name, (long long)ns[k],
                      err.message);
        if (tc->want <= 1) {
            float s = tc->want == 0 ? (float)ns[k]
                                    : (float)sqrt((double)ns[k]);
            ck_assert_int_eq(outs[0]->dtype, SC_DTYPE_F32);
            for (i = 0; i < (size_t)(ns[k] * 4); i++)
                ck_assert(((const float *)sc_tensor_data(outs[0]))[i] ==
                          (0.375f * (float)i - 1.25f) * s);
        } else {
            len = tc->want == 2   ? (ns[k] > 4 ? ns[k] : 4)
                  : tc->want == 3 ? ns[k] + 7
                                  : ns[k];
            ck_assert_int_eq(outs[0]->ndim, 1);
            ck_assert_int_eq(outs[0]->sizes[0], len);
        }
        free_tensors(outs, 1);
        sc_tensor_free(in[0]);
    }
    free(text);
    free(text2);
    sc_graph_free(g2);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

/* The SymFloat kernels' results and their errors, on constants: the 0-d
 * float64 a Python float is, truncation toward zero, math's domain
 * error, and no int64 for a huge float. */
START_TEST(test_torch_sym_fn_values)
{
    static const struct {
        const char *expr; /* the call */
        sc_status st;
        sc_dtype dt;
        double want;
        const char *msg;
    } cases[] = {
        {"torch.sym_float(7)", SC_OK, SC_DTYPE_F64, 7.0, NULL},
        {"torch.sym_sqrt(2)", SC_OK, SC_DTYPE_F64, 1.4142135623730951, NULL},
        {"torch.sym_int(-2.75)", SC_OK, SC_DTYPE_I64, -2.0, NULL},
        {"torch.sym_int(2.75)", SC_OK, SC_DTYPE_I64, 2.0, NULL},
        {"torch.sym_ite(False, 5, 9)", SC_OK, SC_DTYPE_I64, 9.0, NULL},
        {"torch.sym_sum([])", SC_OK, SC_DTYPE_I64, 0.0, NULL},
        {"torch.sym_sqrt(-4)", SC_ERR_INVALID, SC_DTYPE_F64, 0,
         "math domain error"},
        {"torch.sym_sum([9223372036854775807, 1])", SC_ERR_OVERFLOW,
         SC_DTYPE_I64, 0, "overflows"},
    };
    size_t k;

    for (k = 0; k < ARRAY_SIZE(cases); k++) {
        char text[512];
        sc_ctx *ctx = sc_ctx_new();
        sc_graph *g;
        sc_tensor *in[1] = {NULL}, **outs = NULL;
        int64_t two = 2;
        sc_error err;
        sc_status st;
        snprintf(text, sizeof text,
                 "def forward(self, x_1: \"f32[2]\"):\n"
                 "    r = %s\n"
                 "    return (r,)\n",
                 cases[k].expr);
        g = text_graph(ctx, text);
        ck_assert(sc_tensor_new(SC_DTYPE_F32, 1, &two, &in[0], &err) ==
                  SC_OK);
        st = run(g, in, NULL, &outs, NULL, &err);
        ck_assert_msg(st == cases[k].st, "%s: status %d (%s)",
                      cases[k].expr, (int)st, err.message);
        if (st == SC_OK) {
            ck_assert_int_eq(outs[0]->dtype, cases[k].dt);
            ck_assert_int_eq(outs[0]->ndim, 0);
            ck_assert_msg(sc_tensor_item_double(outs[0], 0) == cases[k].want,
                          "%s: %.17g", cases[k].expr,
                          sc_tensor_item_double(outs[0], 0));
        } else {
            ck_assert_msg(strstr(err.message, cases[k].msg) &&
                              strstr(err.message, "node r"),
                          "%s: %s", cases[k].expr, err.message);
        }
        free_tensors(outs, 1);
        sc_tensor_free(in[0]);
        sc_graph_free(g);
        sc_ctx_free(ctx);
    }
}
END_TEST

/* Bad calls are read errors at the call's line and column. */
START_TEST(test_torch_sym_fn_bad_input)
{
    static const struct {
        const char *line;
        const char *msg;
    } cases[] = {
        {"    r = torch.sym_sum([x_1, 1])", "must be SymInt[]"},
        {"    r = torch.sym_ite(x_1, 2, 3)", "must be SymBool"},
        {"    r = torch.sym_ite(True, 2)", "sym_ite"},
        {"    r = torch.sym_float()", "sym_float"},
        {"    r = torch.sym_int(1, 2)", "sym_int"},
    };
    size_t k;

    for (k = 0; k < ARRAY_SIZE(cases); k++) {
        char text[512];
        sc_ctx *ctx = sc_ctx_new();
        sc_graph *g = NULL;
        sc_error err;
        snprintf(text, sizeof text,
                 "def forward(self, x_1: \"f32[2]\"):\n%s\n"
                 "    return (r,)\n",
                 cases[k].line);
        ck_assert_msg(sc_graph_read_text(ctx, text, strlen(text), "t.py",
                                         NULL, &g, &err) != SC_OK,
                      "%s read", cases[k].line);
        ck_assert_ptr_null(g);
        ck_assert_msg(strstr(err.message, cases[k].msg) != NULL, "%s: %s",
                      cases[k].line, err.message);
        ck_assert_msg(err.line == 2 && err.column == 5, "%s: at %d:%d",
                      cases[k].line, (int)err.line, (int)err.column);
        sc_ctx_free(ctx);
    }
}
END_TEST

/* ---- Random ops ----------------------------------------------------------------- */

START_TEST(test_random_keyed_by_name)
{
    static const char a_text[] =
        "def forward(self, primals_1: \"f32[64][1]cpu\"):\n"
        "    rand_like: \"f32[64][1]cpu\" = "
        "torch.ops.aten.rand_like.default(primals_1)\n"
        "    return [rand_like]\n";
    /* the same node name after other nodes: the same numbers */
    static const char b_text[] =
        "def forward(self, primals_1: \"f32[64][1]cpu\"):\n"
        "    relu: \"f32[64][1]cpu\" = torch.ops.aten.relu.default(primals_1)\n"
        "    rand_like: \"f32[64][1]cpu\" = "
        "torch.ops.aten.rand_like.default(relu)\n"
        "    rand_like_1: \"f32[64][1]cpu\" = "
        "torch.ops.aten.rand_like.default(relu)\n"
        "    return [rand_like, rand_like_1]\n";
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *a = text_graph(ctx, a_text), *b = text_graph(ctx, b_text);
    sc_tensor *in[1], **oa = NULL, **ob = NULL, **oc = NULL;
    sc_interp_options io;
    sc_error err;
    in[0] = ramp(1, 64, 0);
    sc_interp_options_init(&io);
    io.seed = 99;
    ck_assert_int_eq(run(a, in, &io, &oa, NULL, &err), SC_OK);
    ck_assert_int_eq(run(b, in, &io, &ob, NULL, &err), SC_OK);
    ck_assert(bit_equal(oa[0], ob[0]));
    ck_assert(!bit_equal(ob[0], ob[1]));
    io.seed = 100;
    ck_assert_int_eq(run(a, in, &io, &oc, NULL, &err), SC_OK);
    ck_assert(!bit_equal(oa[0], oc[0]));
    ck_assert_uint_eq(sc_interp_node_key("rand_like"),
                      sc_interp_node_key("rand_like"));
    ck_assert_uint_ne(sc_interp_node_key("rand_like"),
                      sc_interp_node_key("rand_like_1"));
    free_tensors(oa, 1);
    free_tensors(ob, 2);
    free_tensors(oc, 1);
    sc_tensor_free(in[0]);
    sc_graph_free(a);
    sc_graph_free(b);
    sc_ctx_free(ctx);
}
END_TEST

/* bernoulli_ writes into its argument, which later nodes read. */
START_TEST(test_inplace_bernoulli)
{
    static const char text[] =
        "def forward(self, primals_1: \"f32[128][1]cpu\"):\n"
        "    empty_like: \"f32[128][1]cpu\" = "
        "torch.ops.aten.empty_like.default(primals_1, "
        "memory_format = torch.contiguous_format)\n"
        "    bernoulli_: \"f32[128][1]cpu\" = "
        "torch.ops.aten.bernoulli_.float(empty_like, 0.5)\n"
        "    mul: \"f32[128][1]cpu\" = torch.ops.aten.mul.Tensor(primals_1, "
        "empty_like)\n"
        "    return [mul, bernoulli_]\n";
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = text_graph(ctx, text);
    sc_tensor *in[1], **outs = NULL;
    sc_error err;
    size_t i, ones = 0;
    in[0] = ramp(1, 128, 0);
    ck_assert_msg(run(g, in, NULL, &outs, NULL, &err) == SC_OK, "%s",
                  err.message);
    for (i = 0; i < 128; i++) {
        double m = sc_tensor_item_double(outs[1], i);
        ck_assert(m == 0 || m == 1);
        ones += m == 1;
        ck_assert(sc_tensor_item_double(outs[0], i) ==
                  m * sc_tensor_item_double(in[0], i));
    }
    ck_assert(ones > 20 && ones < 108);
    free_tensors(outs, 2);
    sc_tensor_free(in[0]);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

/* ---- Random inputs -------------------------------------------------------------- */

START_TEST(test_random_inputs)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = read_graph(ctx, "examples/fn_mm_gelu_sum_dyn.joint.txt");
    sc_symmap *sizes = sc_symmap_new(ctx), *binding = sc_symmap_new(ctx);
    sc_tensor *a[4], *b[4];
    sc_error err;
    size_t k;
    /* no hints in the text: sizes are required */
    ck_assert_int_eq(sc_interp_bind_sizes(g, NULL, binding, &err),
                     SC_ERR_UNBOUND);
    ck_assert_msg(strstr(err.message, "s0"), "%s", err.message);
    ck_assert_int_eq(sc_symmap_set_si(sizes, sc_expr_symbol(ctx, "s0"), 5,
                                      &err),
                     SC_OK);
    ck_assert_int_eq(sc_symmap_set_si(sizes, sc_expr_symbol(ctx, "s1"), 16,
                                      &err),
                     SC_OK);
    ck_assert_int_eq(sc_symmap_set_si(sizes, sc_expr_symbol(ctx, "s2"), 24,
                                      &err),
                     SC_OK);
    ck_assert_int_eq(sc_interp_bind_sizes(g, sizes, binding, &err), SC_OK);
    ck_assert_int_eq(sc_interp_random_inputs(g, binding, 7, 0, a, &err),
                     SC_OK);
    ck_assert_int_eq(sc_interp_random_inputs(g, binding, 7, 0, b, &err),
                     SC_OK);
    ck_assert_int_eq(a[0]->sizes[0], 5);
    ck_assert_int_eq(a[0]->sizes[1], 16);
    ck_assert_int_eq(a[2]->sizes[0], 24);
    ck_assert_int_eq(a[2]->sizes[1], 5);
    ck_assert_int_eq(a[3]->ndim, 0);
    for (k = 0; k < 4; k++)
        ck_assert(bit_equal(a[k], b[k]));
    for (k = 0; k < sc_tensor_numel(a[0]); k++) {
        double v = sc_tensor_item_double(a[0], k);
        ck_assert(v >= -1 && v < 1);
    }
    ck_assert(!bit_equal(a[0], a[1]) || a[0]->sizes[0] != a[1]->sizes[0]);
    for (k = 0; k < 4; k++) {
        sc_tensor_free(a[k]);
        sc_tensor_free(b[k]);
    }
    sc_symmap_free(sizes);
    sc_symmap_free(binding);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

/* ---- Validation ------------------------------------------------------------------ */

static sc_validate_report validate_files(const char *joint, const char *fw,
                                         const char *bw, const char *sizes_s0,
                                         int64_t predicted, sc_status *st,
                                         sc_error *err, char *joint_name)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph_read_options ro;
    sc_graph *j = read_graph(ctx, joint), *f = read_graph(ctx, fw), *b;
    sc_symmap *sizes = sc_symmap_new(ctx);
    sc_validate_options vo;
    sc_validate_report rep;
    sc_graph_read_options_init(&ro);
    ro.num_fwd_outputs = 0;
    b = read_graph_opts(ctx, bw, &ro);
    sc_validate_options_init(&vo);
    vo.seed = 3;
    vo.predicted_saved_bytes = predicted;
    if (sizes_s0) {
        int64_t s0, s1, s2;
        ck_assert_int_eq(sscanf(sizes_s0, "%lld,%lld,%lld", (long long *)&s0,
                                (long long *)&s1, (long long *)&s2),
                         3);
        sc_symmap_set_si(sizes, sc_expr_symbol(ctx, "s0"), s0, NULL);
        sc_symmap_set_si(sizes, sc_expr_symbol(ctx, "s1"), s1, NULL);
        sc_symmap_set_si(sizes, sc_expr_symbol(ctx, "s2"), s2, NULL);
        vo.sizes = sizes;
    }
    *st = sc_validate_run(j, f, b, &vo, &rep, err);
    /* the names point into the graphs, which are freed here */
    snprintf(joint_name, 64, "%s", rep.joint_node ? rep.joint_node : "");
    rep.joint_node = rep.part_node = NULL;
    sc_symmap_free(sizes);
    sc_graph_free(j);
    sc_graph_free(f);
    sc_graph_free(b);
    sc_ctx_free(ctx);
    return rep;
}

START_TEST(test_validate_pass)
{
    sc_status st;
    sc_error err;
    char name[64];
    sc_validate_report rep = validate_files(
        "examples/fn_mm_gelu_sum.joint.txt",
        "tests/data/interp/fn_mm_gelu_sum.fw.txt",
        "tests/data/interp/fn_mm_gelu_sum.bw.txt", NULL, 2560, &st, &err, name);
    ck_assert_msg(st == SC_OK, "%s", err.message);
    ck_assert_msg(rep.passed, "%s", rep.message);
    ck_assert_uint_eq(rep.saved_count, 3);
    ck_assert_uint_eq(rep.saved_bytes, 2560); /* PyTorch's min-cut figure */
    ck_assert_uint_eq(rep.compared, 4 + 3);   /* outputs and primals */
    ck_assert_uint_eq(rep.mismatches, 0);
    /* the prediction is checked */
    rep = validate_files("examples/fn_mm_gelu_sum.joint.txt",
                         "tests/data/interp/fn_mm_gelu_sum.fw.txt",
                         "tests/data/interp/fn_mm_gelu_sum.bw.txt", NULL, 2048,
                         &st, &err, name);
    ck_assert_int_eq(st, SC_OK);
    ck_assert(!rep.passed);
    ck_assert_int_eq(rep.kind, SC_VALIDATE_SAVED_BYTES);
    ck_assert_msg(strstr(rep.message, "2560") && strstr(rep.message, "2048"),
                  "%s", rep.message);
}
END_TEST

START_TEST(test_validate_mismatch)
{
    sc_status st;
    sc_error err;
    char name[64];
    sc_validate_report rep = validate_files(
        "examples/fn_mm_gelu_sum.joint.txt",
        "tests/data/interp/fn_mm_gelu_sum.fw.txt",
        "tests/data/interp/fn_mm_gelu_sum.bad-bw.txt", NULL, -1, &st, &err,
        name);
    ck_assert_msg(st == SC_OK, "%s", err.message);
    ck_assert(!rep.passed);
    ck_assert_int_eq(rep.kind, SC_VALIDATE_GRADIENT);
    ck_assert_uint_eq(rep.index, 2);
    ck_assert_str_eq(name, "mm_4");
    ck_assert(rep.max_abs_error > 0);
    ck_assert(rep.max_rel_error > 0);
    ck_assert_msg(strstr(rep.message, "gradient 2") &&
                      strstr(rep.message, "mm_4"),
                  "%s", rep.message);
    /* a forward graph that does not fit the backward graph */
    rep = validate_files("examples/fn_mm_gelu_sum.joint.txt",
                         "tests/data/interp/fn_mm_gelu_sum.fw.txt",
                         "tests/data/interp/fn_mm_gelu_sum_dyn.bw.txt", NULL,
                         -1, &st, &err, name);
    ck_assert_int_eq(st, SC_OK);
    ck_assert(!rep.passed);
    ck_assert_int_eq(rep.kind, SC_VALIDATE_STRUCTURE);
}
END_TEST

/* A partition made at one size runs at others (symbolic fw/bw with
 * sym_size nodes in the backward). */
START_TEST(test_validate_dynamic_sizes)
{
    static const char *const sizes[] = {"8,16,32", "5,16,24", "3,2,7"};
    size_t k;
    for (k = 0; k < ARRAY_SIZE(sizes); k++) {
        sc_status st;
        sc_error err;
        char name[64];
        sc_validate_report rep = validate_files(
            "examples/fn_mm_gelu_sum_dyn.joint.txt",
            "tests/data/interp/fn_mm_gelu_sum_dyn.fw.txt",
            "tests/data/interp/fn_mm_gelu_sum_dyn.bw.txt", sizes[k], -1, &st,
            &err, name);
        ck_assert_msg(st == SC_OK, "%s: %s", sizes[k], err.message);
        ck_assert_msg(rep.passed, "%s: %s", sizes[k], rep.message);
        ck_assert_uint_eq(rep.saved_count, 4);
    }
}
END_TEST

/* End to end: every example joint graph, partitioned by sc_partition_run
 * under each policy, validates bit for bit, with the partition's saved
 * bytes as the prediction.  transformer_encoder_layer included: its
 * dropout (bernoulli_) is keyed by node name. */
static const char *const partition_examples[] = {
    "mlp_gelu", "fn_mm_gelu_sum", "attention_single_head",
    "transformer_encoder_layer", "small_cnn", "lm_head_ce",
    "residual_mlp_16", "two_output_mlp", "lstm_module",
};

START_TEST(test_validate_partitions)
{
    sc_ctx *ctx = sc_ctx_new();
    char rel[256];
    sc_graph *g;
    int pol;
    snprintf(rel, sizeof rel, "examples/%s.joint.txt", partition_examples[_i]);
    g = read_graph(ctx, rel);
    for (pol = 0; pol < (int)SC_PARTITION_POLICY_COUNT_; pol++) {
        sc_partition_options po;
        sc_partition *p = NULL;
        sc_validate_options vo;
        sc_validate_report rep;
        sc_error err;
        sc_status st;
        sc_partition_options_init(&po);
        po.policy = (sc_partition_policy)pol;
        st = sc_partition_run(g, &po, &p, &err);
        ck_assert_msg(st == SC_OK, "%s, %s: %s", partition_examples[_i],
                      sc_partition_policy_name(po.policy), err.message);
        sc_validate_options_init(&vo);
        vo.seed = 11;
        vo.predicted_saved_bytes = sc_partition_saved_bytes(p);
        st = sc_validate_run(g, sc_partition_forward(p), sc_partition_backward(p),
                             &vo, &rep, &err);
        ck_assert_msg(st == SC_OK, "%s: %s", partition_examples[_i],
                      err.message);
        ck_assert_msg(rep.passed, "%s, policy %s: %s", partition_examples[_i],
                      sc_partition_policy_name(po.policy), rep.message);
        ck_assert_uint_eq(rep.mismatches, 0);
        sc_partition_free(p);
    }
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

Suite *interp_suite(void)
{
    Suite *s = suite_create("interp");
    TCase *tc;

    tc = tcase_create("binding");
    tcase_add_test(tc, test_binding_ok);
    tcase_add_test(tc, test_binding_symbol_mismatch);
    tcase_add_test(tc, test_binding_constant_mismatch);
    tcase_add_test(tc, test_binding_rank_and_dtype);
    tcase_add_test(tc, test_binding_composite);
    tcase_add_test(tc, test_binding_given_sizes);
    tcase_add_test(tc, test_binding_example_mismatch);
    suite_add_tcase(s, tc);

    tc = tcase_create("guards");
    tcase_add_test(tc, test_guard_failure);
    tcase_add_test(tc, test_unbacked_binding);
    tcase_add_test(tc, test_runtime_assert);
    tcase_add_loop_test(tc, test_float_item, 0,
                        (int)ARRAY_SIZE(float_item_cases));
    tcase_add_test(tc, test_float_item_errors);
    suite_add_tcase(s, tc);

    tc = tcase_create("execution");
    tcase_add_test(tc, test_unknown_op);
    tcase_add_loop_test(tc, test_preflight, 0,
                        (int)ARRAY_SIZE(preflight_cases));
    tcase_add_test(tc, test_foreign_devices);
    tcase_add_test(tc, test_memory_accounting);
    tcase_add_test(tc, test_random_keyed_by_name);
    tcase_add_test(tc, test_inplace_bernoulli);
    tcase_add_test(tc, test_random_inputs);
    tcase_add_test(tc, test_repeatable);
    tcase_add_test(tc, test_out_of_memory);
    suite_add_tcase(s, tc);

    tc = tcase_create("examples");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_example_matches_pytorch, 0,
                        (int)ARRAY_SIZE(examples));
    suite_add_tcase(s, tc);

    tc = tcase_create("validate");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_layout_follows_metadata);
    tcase_add_test(tc, test_batch_norm_bf16_stats);
    tcase_add_test(tc, test_conv_bf16_weight_gradient_order);
    tcase_add_loop_test(tc, test_torch_sym_fn, 0,
                        (int)ARRAY_SIZE(sym_fn_cases));
    tcase_add_test(tc, test_torch_sym_fn_values);
    tcase_add_test(tc, test_torch_sym_fn_bad_input);
    tcase_add_test(tc, test_validate_pass);
    tcase_add_test(tc, test_validate_mismatch);
    tcase_add_test(tc, test_validate_dynamic_sizes);
    suite_add_tcase(s, tc);

    tc = tcase_create("validate partitions");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_validate_partitions, 0,
                        (int)ARRAY_SIZE(partition_examples));
    suite_add_tcase(s, tc);
    return s;
}
