/* symcut tests — allocation-failure injection (doc/reliability.md).
 *
 * For a representative workload cut into parts (expression parsing and
 * printing, reading a graph with symbolic and one with static shapes,
 * shape inference through the graph builder, the shape environment's
 * guards, the partitioner, validation), every part is run once for every
 * N = 0, 1, 2, ... with the (N+1)th allocation failing (symcut's own
 * allocations and GMP's, which go through symcut's hook), until a run
 * makes no more than N allocations.  For each N:
 *
 *   - the part must return SC_ERR_NOMEM (and report it in the sc_error)
 *     when the failure was reached, SC_OK when it was not;
 *   - it must leak nothing: the heap in use (glibc's mallinfo2, or the
 *     sanitizer allocator's count in the sanitizer build) is the same
 *     before the caller's objects are built and after they are freed; the
 *     sanitizer build's leak checker and valgrind check it again;
 *   - the caller's objects must stay usable: the context still builds and
 *     prints expressions, a graph whose sc_graph_add_call failed is as it
 *     was (the remaining calls then build exactly the reference graph), the
 *     shape environment still answers and produces guards that hold at the
 *     hints, the joint graph is unchanged and partitions and validates.
 *
 * The loop is in process (no fork per N).  Knobs: SYMCUT_OOM_STRIDE=k
 * tests every k-th N only (default 1: every N); SYMCUT_OOM_FROM=n starts
 * at N = n (to replay one failure under a debugger); SYMCUT_OOM_VERBOSE=1
 * prints the N range and the time of each part. */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <check.h>

#include <symcut/graph.h>
#include <symcut/guards.h>
#include <symcut/interp.h>
#include <symcut/partition.h>

#include "util/internal.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define OOM_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define OOM_ASAN 1
#endif

#ifdef OOM_ASAN
size_t __sanitizer_get_current_allocated_bytes(void);
#endif

Suite *oom_suite(void);
static char *graph_text(const sc_graph *g);

/* ---- Helpers -------------------------------------------------------------- */

/* Bytes of heap in use, for a leak check per N (0 where unknown). */
static size_t heap_in_use(void)
{
#if defined(OOM_ASAN)
    return __sanitizer_get_current_allocated_bytes();
#elif defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 33)
    struct mallinfo2 mi = mallinfo2();
    return mi.uordblks + mi.hblkhd;
#else
    return 0;
#endif
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long env_long(const char *name, long dflt)
{
    const char *s = getenv(name);
    char *end;
    long v;
    if (!s || !*s)
        return dflt;
    v = strtol(s, &end, 10);
    return *end == '\0' && v > 0 ? v : dflt;
}

static char *slurp(const char *rel, size_t *len)
{
    const char *top = getenv("top_srcdir");
    char path[4096];
    FILE *f;
    char *buf;
    long n;

    snprintf(path, sizeof path, "%s/%s", top ? top : ".", rel);
    f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    ck_assert(fseek(f, 0, SEEK_END) == 0);
    n = ftell(f);
    ck_assert(n >= 0);
    rewind(f);
    buf = malloc((size_t)n + 1);
    ck_assert_ptr_nonnull(buf);
    ck_assert(fread(buf, 1, (size_t)n, f) == (size_t)n);
    buf[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return buf;
}

/* ---- The driver ------------------------------------------------------------- */

/* One part of the workload.  setup builds the caller's objects without
 * injection; step is the work run with the (N+1)th allocation failing;
 * after checks, without injection, that the caller's objects are usable
 * (n < 0: after the run that succeeded); teardown frees them. */
typedef struct oom_part {
    const char *name;
    void *(*setup)(const void *arg);
    sc_status (*step)(void *state, sc_error *err);
    void (*after)(void *state, sc_status status, long n);
    void (*teardown)(void *state);
    const void *arg;
} oom_part;

/* Can the heap in use be measured exactly?  Not with glibc's per-thread
 * cache (a freed chunk there still counts as in use): make check turns it
 * off (GLIBC_TUNABLES=glibc.malloc.tcache_count=0). */
static bool heap_exact(void)
{
    static int known = -1;
    if (known < 0) {
        size_t h0 = heap_in_use(), h1, h2;
        void *volatile q = malloc(100);
        h1 = heap_in_use();
        free(q);
        h2 = heap_in_use();
        known = h1 > h0 && h2 == h0;
        if (!known)
            fprintf(stderr, "oom: the heap in use cannot be measured here "
                    "(glibc's tcache is on?): leaks are left to the leak "
                    "checkers\n");
    }
    return known;
}

/* A deviation: fail the test, or with SYMCUT_OOM_SURVEY=1 print it and go
 * on (to list every bug of a part in one run). */
static long oom_issues;

static void oom_issue(const char *fmt, ...) SC__PRINTF(1, 2);
static void oom_issue(const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (!env_long("SYMCUT_OOM_SURVEY", 0))
        ck_abort_msg("%s", msg);
    fprintf(stderr, "oom: ISSUE: %s\n", msg);
    oom_issues++;
}

static void oom_loop(const oom_part *p)
{
    long stride = env_long("SYMCUT_OOM_STRIDE", 1), n, failures = 0;
    unsigned long total;
    double t0 = now();
    bool exact = heap_exact();
    void *state;
    sc_error err;
    sc_status st;
    size_t heap0, heap1;

    /* One run without injection: the number of allocations, and every
     * lazy one-time allocation done before the heap is measured. */
    oom_issues = 0;
    state = p->setup(p->arg);
    sc_error_init(&err);
    total = sc__alloc_count();
    st = p->step(state, &err);
    total = sc__alloc_count() - total;
    ck_assert_msg(st == SC_OK, "%s without injection: %s: %s", p->name,
                  sc_status_name(st), err.message);
    p->after(state, st, -1);
    p->teardown(state);

    for (n = env_long("SYMCUT_OOM_FROM", 0);; n += stride) {
        unsigned long made;
        bool last;
        heap0 = heap_in_use();
        state = p->setup(p->arg);
        sc_error_init(&err);
        made = sc__alloc_count();
        sc__alloc_fail_after(n);
        st = p->step(state, &err);
        sc__alloc_fail_after(-1);
        made = sc__alloc_count() - made;
        last = made <= (unsigned long)n; /* the failure was never reached */
        if (last && st != SC_OK)
            oom_issue("%s, no allocation failed (%lu made): %s: %s", p->name,
                      made, sc_status_name(st), err.message);
        if (!last && (st != SC_ERR_NOMEM || err.code != SC_ERR_NOMEM))
            oom_issue("%s, allocation %ld failing: returns %s, error %s (%s)"
                      ", not out of memory", p->name, n, sc_status_name(st),
                      sc_status_name(err.code), err.message);
        p->after(state, st, last ? -1 : n);
        p->teardown(state);
        heap1 = heap_in_use();
        if (exact && heap1 != heap0)
            oom_issue("%s, allocation %ld failing: %lld bytes leaked",
                      p->name, n, (long long)heap1 - (long long)heap0);
        if (last)
            break;
        failures++;
    }
    ck_assert_msg(failures > 0, "%s: no allocation to fail", p->name);
    if (env_long("SYMCUT_OOM_VERBOSE", 0))
        fprintf(stderr,
                "oom: %-20s %6lu allocations, N = 0..%ld step %ld: %ld "
                "injected failures, %.2f s\n",
                p->name, total, n - stride, stride, failures,
                now() - t0);
    ck_assert_msg(oom_issues == 0, "%s: %ld issues", p->name, oom_issues);
}

/* ---- Part: expressions --------------------------------------------------------- */

/* Parsing, printing (Python and C), simplification over ranges, ranges,
 * substitution and evaluation, with big integers for GMP. */
static const char *const expr_texts[] = {
    "s0*s1 + 2",
    "(s0 + 1)**3 - s0**3",
    "Max(1, s1)//8 + Mod(s0, 8)",
    "CeilDiv(s0*s1, 3) - Min(s2, 4)",
    "Eq(Mod(s0*s2, 8), 0) and s1 >= 2",
    "Or(Ne(s0, 5), s1 < 100)",
    "PythonMod(s0 - 7, s1) + FloorDiv(-s2, 3)",
    "not (s0 <= s1 <= s2)",
    /* Beyond int64_t: GMP allocates; not printed as C (SC_ERR_OVERFLOW). */
    "123456789012345678901234567890*s0 + 2**100 - s1**4",
};
#define EXPR_NO_C 8 /* the first index not printed as C */

typedef struct expr_state {
    sc_ctx *ctx;
    char *printed[ARRAY_SIZE(expr_texts)];
} expr_state;

static sc_status expr_work(sc_ctx *ctx, size_t i, char **printed,
                           sc_error *err)
{
    sc_status status = SC_OK;
    sc_bounds *bounds = NULL;
    sc_symmap *bind = NULL;
    sc_expr *e, *s;
    sc_range r;
    mpz_t v;
    char *c = NULL, *rs = NULL;
    static const char *const names[] = {"s0", "s1", "s2"};
    static const int64_t hints[] = {8, 16, 24};
    size_t k;

    *printed = NULL;
    sc_range_init(&r);
    mpz_init(v);
    SC_CHECK(sc_expr_parse(ctx, expr_texts[i], "oom", 1, &e, err));
    *printed = sc_expr_to_str(ctx, e);
    if (!*printed)
        goto ctx_fail;
    bounds = sc_bounds_new(ctx);
    bind = sc_symmap_new(ctx);
    if (!bounds || !bind) {
        status = sc__error_nomem(err);
        goto fail;
    }
    for (k = 0; k < ARRAY_SIZE(names); k++) {
        sc_expr *sym = sc_expr_symbol(ctx, names[k]);
        if (!sym)
            goto ctx_fail;
        SC_CHECK(sc_bounds_set_si(bounds, sym, false, 2, k == 2, 1024, err));
        SC_CHECK(sc_symmap_set_si(bind, sym, hints[k], err));
    }
    s = sc_expr_simplify(ctx, e, bounds);
    if (!s)
        goto ctx_fail;
    SC_CHECK(sc_expr_range(ctx, e, bounds, &r, err));
    rs = sc_range_to_str(&r);
    if (!rs) {
        status = sc__error_nomem(err);
        goto fail;
    }
    if (i < EXPR_NO_C)
        SC_CHECK(sc_expr_to_c(ctx, s, NULL, &c, err));
    if (!sc_expr_subst(ctx, e, bind))
        goto ctx_fail;
    SC_CHECK(sc_expr_eval(ctx, e, bind, v, err));
fail:
    free(c);
    free(rs);
    mpz_clear(v);
    sc_range_clear(&r);
    sc_symmap_free(bind);
    sc_bounds_free(bounds);
    return status;
ctx_fail:
    status = sc_ctx_take_error(ctx, err);
    ck_assert_msg(status != SC_OK, "a constructor failed with no error");
    goto fail;
}

static void *expr_setup(const void *arg)
{
    expr_state *s = calloc(1, sizeof *s);
    (void)arg;
    ck_assert_ptr_nonnull(s);
    s->ctx = sc_ctx_new();
    ck_assert_ptr_nonnull(s->ctx);
    return s;
}

static sc_status expr_step(void *state, sc_error *err)
{
    expr_state *s = state;
    size_t i;
    for (i = 0; i < ARRAY_SIZE(expr_texts); i++) {
        sc_status st = expr_work(s->ctx, i, &s->printed[i], err);
        if (st != SC_OK)
            return st;
    }
    return SC_OK;
}

/* The printed forms of a fresh context, the reference. */
static char *expr_ref[ARRAY_SIZE(expr_texts)];

static void expr_after(void *state, sc_status status, long n)
{
    expr_state *s = state;
    size_t i;
    (void)status;
    /* The context still builds, simplifies and prints expressions. */
    sc_ctx_take_error(s->ctx, NULL);
    for (i = 0; i < ARRAY_SIZE(expr_texts); i++) {
        sc_error err;
        char *p = NULL;
        sc_status st = expr_work(s->ctx, i, &p, &err);
        ck_assert_msg(st == SC_OK, "expr after allocation %ld failed: %s: "
                      "%s", n, expr_texts[i], err.message);
        if (expr_ref[i])
            ck_assert_str_eq(p, expr_ref[i]);
        free(p);
    }
}

static void expr_teardown(void *state)
{
    expr_state *s = state;
    size_t i;
    for (i = 0; i < ARRAY_SIZE(expr_texts); i++)
        free(s->printed[i]);
    sc_ctx_free(s->ctx);
    free(s);
}

START_TEST(test_oom_expr)
{
    static const oom_part part = {"expr", expr_setup, expr_step, expr_after,
                                  expr_teardown, NULL};
    expr_state *s = expr_setup(NULL);
    size_t i;
    ck_assert_int_eq(expr_step(s, NULL), SC_OK);
    for (i = 0; i < ARRAY_SIZE(expr_texts); i++) {
        expr_ref[i] = s->printed[i];
        s->printed[i] = NULL;
    }
    expr_teardown(s);
    oom_loop(&part);
    for (i = 0; i < ARRAY_SIZE(expr_texts); i++) {
        free(expr_ref[i]);
        expr_ref[i] = NULL;
    }
}
END_TEST

/* ---- Part: shape inference through the builder ------------------------------ */

/* Placeholders x [s0, s1], w [s1, s2], b [s2], idx i64[s0] over an
 * environment with backed s0 = 8, s1 = 16, s2 = 32; then calls whose
 * results the shape rules infer (no metadata given): matrix product,
 * pointwise with broadcasting, views with symbolic sizes, reductions,
 * concatenation, softmax, layer norm (a tuple and getitem), embedding, a
 * SymInt, a comparison and where. */
enum { SH_X, SH_W, SH_B, SH_IDX, SH_NPH };
#define SH_NCALLS 22

typedef struct shape_state {
    sc_ctx *ctx;
    sc_env *env;
    sc_graph *g;
    sc_expr *s0, *s2, *s0s2;
    sc_node_id id[SH_NPH + SH_NCALLS];
    size_t done; /* calls made */
} shape_state;

static sc_node_id sh_add_ph(shape_state *s, const char *name, sc_dtype dt,
                            size_t nd, sc_expr *const *sizes,
                            sc_expr *const *strides)
{
    sc_result r;
    sc_node_id id;
    sc_error err;
    sc_result_init(&r);
    r.kind = SC_RESULT_TENSOR;
    r.tensor.dtype = dt;
    r.tensor.ndim = nd;
    r.tensor.sizes = sizes;
    r.tensor.strides = strides;
    r.tensor.has_strides = true;
    r.tensor.has_device = true;
    r.tensor.device.type = SC_DEVICE_CPU;
    r.tensor.device.index = -1;
    ck_assert_msg(sc_graph_add_placeholder(s->g, name, SC_ROLE_PRIMAL, &r,
                                           &id, &err) == SC_OK,
                  "%s: %s", name, err.message);
    return id;
}

static void *shape_setup(const void *arg)
{
    shape_state *s = calloc(1, sizeof *s);
    sc_expr *sym[3], *one;
    sc_error err;
    static const char *const names[] = {"s0", "s1", "s2"};
    static const int64_t hints[] = {8, 16, 32};
    size_t i;
    (void)arg;
    ck_assert_ptr_nonnull(s);
    s->ctx = sc_ctx_new();
    ck_assert_ptr_nonnull(s->ctx);
    ck_assert_int_eq(sc_env_new(s->ctx, NULL, &s->env, &err), SC_OK);
    for (i = 0; i < 3; i++) {
        char src[16];
        snprintf(src, sizeof src, "x.%s", names[i]);
        ck_assert_int_eq(sc_env_create_backed_si(s->env, hints[i], src,
                                                 names[i], NULL,
                                                 SC_ENV_NO_DUCK, &sym[i],
                                                 &err),
                         SC_OK);
    }
    s->g = sc_graph_new(s->ctx);
    ck_assert_ptr_nonnull(s->g);
    sc_graph_set_env(s->g, s->env);
    one = sc_expr_int_si(s->ctx, 1);
    s->s0 = sym[0];
    s->s2 = sym[2];
    s->s0s2 = sc_expr_mul(s->ctx, sym[0], sym[2]);
    ck_assert_ptr_nonnull(s->s0s2);
    {
        sc_expr *xs[2] = {sym[0], sym[1]}, *xt[2] = {sym[1], one};
        sc_expr *ws[2] = {sym[1], sym[2]}, *wt[2] = {sym[2], one};
        sc_expr *bs[1] = {sym[2]}, *bt[1] = {one};
        sc_expr *is[1] = {sym[0]};
        s->id[SH_X] = sh_add_ph(s, "x", SC_DTYPE_F32, 2, xs, xt);
        s->id[SH_W] = sh_add_ph(s, "w", SC_DTYPE_F32, 2, ws, wt);
        s->id[SH_B] = sh_add_ph(s, "b", SC_DTYPE_F32, 1, bs, bt);
        s->id[SH_IDX] = sh_add_ph(s, "idx", SC_DTYPE_I64, 1, is, bt);
    }
    return s;
}

static sc_value sh_expr(sc_expr *e)
{
    sc_value v;
    v.kind = SC_VALUE_SYMINT;
    v.u.expr = e;
    return v;
}

/* Call k (0 <= k < SH_NCALLS); its id goes to id[SH_NPH + k]. */
static sc_status shape_call(shape_state *s, size_t k, sc_error *err)
{
    const sc_node_id *id = s->id;
    const sc_node_id *c = s->id + SH_NPH; /* the calls' results */
    sc_value a[6], l1[2], l2[2];
    const char *kw[1];
    sc_value kwv[1];
    const char *target = NULL;
    size_t n = 0, nkw = 0;

    switch (k) {
    case 0: /* mm(x, w): [s0, s2] */
        target = "mm.default";
        a[n++] = sc_value_node(id[SH_X]);
        a[n++] = sc_value_node(id[SH_W]);
        break;
    case 1:
        target = "gelu.default";
        a[n++] = sc_value_node(c[0]);
        break;
    case 2: /* broadcasting [s0, s2] + [s2] */
        target = "add.Tensor";
        a[n++] = sc_value_node(c[1]);
        a[n++] = sc_value_node(id[SH_B]);
        break;
    case 3:
        target = "t.default";
        a[n++] = sc_value_node(id[SH_W]);
        break;
    case 4: /* view(add, [s0*s2]) */
        target = "view.default";
        a[n++] = sc_value_node(c[2]);
        l1[0] = sh_expr(s->s0s2);
        a[n++] = sc_value_list(1, l1);
        break;
    case 5:
        target = "sum.dim_IntList";
        a[n++] = sc_value_node(c[2]);
        l1[0] = sc_value_int(1);
        a[n++] = sc_value_list(1, l1);
        a[n++] = sc_value_bool(true);
        break;
    case 6: /* expand(b, [s0, s2]) */
        target = "expand.default";
        a[n++] = sc_value_node(id[SH_B]);
        l2[0] = sh_expr(s->s0);
        l2[1] = sh_expr(s->s2);
        a[n++] = sc_value_list(2, l2);
        break;
    case 7: /* cat([add, gelu], 1): [s0, 2*s2] */
        target = "cat.default";
        l2[0] = sc_value_node(c[2]);
        l2[1] = sc_value_node(c[1]);
        a[n++] = sc_value_list(2, l2);
        a[n++] = sc_value_int(1);
        break;
    case 8:
        target = "unsqueeze.default";
        a[n++] = sc_value_node(id[SH_B]);
        a[n++] = sc_value_int(0);
        break;
    case 9:
        target = "permute.default";
        a[n++] = sc_value_node(c[2]);
        l2[0] = sc_value_int(1);
        l2[1] = sc_value_int(0);
        a[n++] = sc_value_list(2, l2);
        break;
    case 10: /* slice(cat, 1, 8, s0*s2): guards on the bounds */
        target = "slice.Tensor";
        a[n++] = sc_value_node(c[7]);
        a[n++] = sc_value_int(1);
        a[n++] = sc_value_int(8);
        a[n++] = sh_expr(s->s0s2);
        break;
    case 11:
        target = "mul.Tensor";
        a[n++] = sc_value_node(c[2]);
        a[n++] = sc_value_float(0.5, "0.5");
        break;
    case 12:
        target = "amax.default";
        a[n++] = sc_value_node(c[2]);
        l1[0] = sc_value_int(0);
        a[n++] = sc_value_list(1, l1);
        break;
    case 13:
        target = "_softmax.default";
        a[n++] = sc_value_node(c[2]);
        a[n++] = sc_value_int(1);
        a[n++] = sc_value_bool(false);
        break;
    case 14: /* a tuple of three tensors */
        target = "native_layer_norm.default";
        a[n++] = sc_value_node(c[2]);
        l1[0] = sh_expr(s->s2);
        a[n++] = sc_value_list(1, l1);
        a[n++] = sc_value_node(id[SH_B]);
        a[n++] = sc_value_node(id[SH_B]);
        a[n++] = sc_value_float(1e-5, "1e-05");
        break;
    case 15:
        target = "operator.getitem";
        a[n++] = sc_value_node(c[14]);
        a[n++] = sc_value_int(0);
        break;
    case 16: /* embedding(w, idx): [s0, s2] */
        target = "embedding.default";
        a[n++] = sc_value_node(id[SH_W]);
        a[n++] = sc_value_node(id[SH_IDX]);
        break;
    case 17:
        target = "sym_size.int";
        a[n++] = sc_value_node(c[7]);
        a[n++] = sc_value_int(1);
        break;
    case 18:
        target = "mean.dim";
        a[n++] = sc_value_node(c[2]);
        l1[0] = sc_value_int(0);
        a[n++] = sc_value_list(1, l1);
        break;
    case 19:
        target = "gt.Scalar";
        a[n++] = sc_value_node(c[2]);
        a[n++] = sc_value_int(0);
        break;
    case 20:
        target = "where.self";
        a[n++] = sc_value_node(c[19]);
        a[n++] = sc_value_node(c[2]);
        a[n++] = sc_value_node(c[16]);
        break;
    case 21: /* a keyword argument */
        target = "gelu.default";
        a[n++] = sc_value_node(c[20]);
        kw[0] = "approximate";
        kwv[0].kind = SC_VALUE_STRING;
        kwv[0].u.str = "tanh";
        nkw = 1;
        break;
    }
    ck_assert_ptr_nonnull(target);
    {
        char full[64];
        if (strncmp(target, "operator.", 9) == 0)
            snprintf(full, sizeof full, "%s", target);
        else
            snprintf(full, sizeof full, "torch.ops.aten.%s", target);
        return sc_graph_add_call(s->g, NULL, full, n, a, nkw, kw, kwv, NULL,
                                 &s->id[SH_NPH + k], err);
    }
}

static sc_status shape_finish(shape_state *s, sc_error *err)
{
    const sc_node_id *c = s->id + SH_NPH;
    sc_node_id outs[8] = {c[4], c[5], c[6], c[9], c[10], c[13], c[17],
                          c[21]};
    sc_status st = sc_graph_set_outputs(s->g, 8, outs, 8, err);
    return st != SC_OK ? st : sc_graph_finish(s->g, err);
}

static sc_status shape_step(void *state, sc_error *err)
{
    shape_state *s = state;
    for (; s->done < SH_NCALLS; s->done++) {
        sc_status st = shape_call(s, s->done, err);
        if (st != SC_OK)
            return st;
    }
    return shape_finish(s, err);
}

static char *shape_ref; /* the graph built without injection */

static void shape_after(void *state, sc_status status, long n)
{
    shape_state *s = state;
    sc_error err;
    char *text;
    (void)status;
    /* A failed call left the graph as it was: the calls not made yet
     * complete it to the reference graph. */
    ck_assert_msg(sc_graph_node_count(s->g) == SH_NPH + s->done,
                  "allocation %ld failing in call %zu: %zu nodes", n,
                  s->done, sc_graph_node_count(s->g));
    for (; s->done < SH_NCALLS; s->done++)
        ck_assert_msg(shape_call(s, s->done, &err) == SC_OK,
                      "call %zu after allocation %ld failed: %s", s->done, n,
                      err.message);
    ck_assert_msg(shape_finish(s, &err) == SC_OK,
                  "finishing after allocation %ld failed: %s", n,
                  err.message);
    text = graph_text(s->g);
    if (shape_ref)
        ck_assert_str_eq(text, shape_ref);
    else
        shape_ref = text, text = NULL;
    free(text);
}

static void shape_teardown(void *state)
{
    shape_state *s = state;
    sc_graph_free(s->g);
    sc_env_free(s->env);
    sc_ctx_free(s->ctx);
    free(s);
}

START_TEST(test_oom_shapes)
{
    static const oom_part part = {"shapes", shape_setup, shape_step,
                                  shape_after, shape_teardown, NULL};
    oom_loop(&part);
    free(shape_ref);
    shape_ref = NULL;
}
END_TEST

/* ---- Part: the shape environment --------------------------------------------- */

typedef struct guard_state {
    sc_ctx *ctx;
    sc_env *env;
    sc_range big; /* [2, 10^30]: GMP allocates to copy it */
} guard_state;

static void *guard_setup(const void *arg)
{
    guard_state *s = calloc(1, sizeof *s);
    sc_error err;
    (void)arg;
    ck_assert_ptr_nonnull(s);
    s->ctx = sc_ctx_new();
    ck_assert_ptr_nonnull(s->ctx);
    ck_assert_int_eq(sc_env_new(s->ctx, NULL, &s->env, &err), SC_OK);
    sc_range_init(&s->big);
    s->big.lo_inf = s->big.hi_inf = false;
    mpz_set_si(s->big.lo, 2);
    ck_assert_int_eq(mpz_set_str(s->big.hi, "1000000000000000000000000000000",
                                 10), 0);
    return s;
}

static sc_expr *guard_expr(sc_ctx *ctx, const char *text, sc_error *err)
{
    sc_expr *e = NULL;
    if (sc_expr_parse(ctx, text, NULL, 1, &e, err) != SC_OK)
        return NULL;
    return e;
}

#define GUARD_EXPR(var, text)                                              \
    do {                                                                   \
        if (!((var) = guard_expr(ctx, (text), err))) {                     \
            status = err->code;                                            \
            goto fail;                                                     \
        }                                                                  \
    } while (0)

/* Backed sizes with duck sizing and 0/1 specialization, an unbacked size,
 * every kind of question, assertions, the guard set, its C text and its
 * checker. */
static sc_status guard_step(void *state, sc_error *err)
{
    guard_state *s = state;
    sc_ctx *ctx = s->ctx;
    sc_env *env = s->env;
    sc_status status = SC_OK;
    sc_guard_set *gs = NULL;
    sc_guard_checker *chk = NULL;
    sc_expr *x0, *x1, *y0, *z0, *e, *simp;
    sc_range r;
    mpz_t v;
    int64_t iv;
    bool b;
    sc_tri tri;
    char *c = NULL;
    size_t first;

    sc_range_init(&r);
    mpz_init(v);
    SC_CHECK(sc_env_create_backed_si(env, 8, "x.size(0)", NULL, NULL, 0, &x0,
                                     err));
    SC_CHECK(sc_env_create_backed_si(env, 48, "x.size(1)", NULL, NULL, 0,
                                     &x1, err));
    SC_CHECK(sc_env_create_backed_si(env, 8, "y.size(0)", NULL, NULL, 0, &y0,
                                     err)); /* duck sized: x0 */
    SC_CHECK(sc_env_create_backed_si(env, 1, "z.size(0)", NULL, NULL, 0, &z0,
                                     err)); /* specialized: 1 */
    GUARD_EXPR(e, "Eq(Mod(s1, 16), 0)");
    SC_CHECK(sc_env_guard(env, e, &b, err));
    GUARD_EXPR(e, "s0*s1 <= 4096");
    SC_CHECK(sc_env_guard(env, e, &b, err));
    GUARD_EXPR(e, "Ne(s0, 5)");
    SC_CHECK(sc_env_guard_or(env, e, false, &b, err));
    GUARD_EXPR(e, "s1 >= 2");
    SC_CHECK(sc_env_statically_known(env, e, 0, &tri, err));
    SC_CHECK(sc_env_size_oblivious(env, e, &b, err));
    GUARD_EXPR(e, "s1//16 + s0");
    SC_CHECK(sc_env_guard_int_si(env, e, &iv, err));
    GUARD_EXPR(e, "Max(s0, 2) + Mod(s1, 16) + 123456789012345678901234567890");
    SC_CHECK(sc_env_simplify(env, e, &simp, err));
    SC_CHECK(sc_env_range(env, e, &r, err));
    SC_CHECK(sc_env_hint(env, e, v, err));
    SC_CHECK(sc_env_assert(env, sc_expr_ge(ctx, x1, sc_expr_mul_si(ctx, y0, 2)),
                           err));
    SC_CHECK(sc_env_produce_guards(env, &gs, err));
    SC_CHECK(sc_guard_set_to_c(gs, &c, err));
    SC_CHECK(sc_guard_set_compile(gs, &chk, err));
    {
        int64_t vals[4] = {8, 48, 8, 1};
        ck_assert_int_eq(sc_guard_checker_source_count(chk), 4);
        SC_CHECK(sc_guard_checker_check(chk, vals, &first, err));
        ck_assert_int_eq(first, sc_guard_checker_count(chk));
    }
    (void)z0;
fail:
    free(c);
    sc_guard_checker_free(chk);
    sc_guard_set_free(gs);
    mpz_clear(v);
    sc_range_clear(&r);
    return status;
}

/* Unbacked symbols and deferred runtime assertions. */
static sc_status unbacked_step(void *state, sc_error *err)
{
    guard_state *s = state;
    sc_ctx *ctx = s->ctx;
    sc_env *env = s->env;
    sc_status status = SC_OK;
    sc_expr *s0, *u0, *u1, *e;
    bool b;

    SC_CHECK(sc_env_create_backed_si(env, 8, "x.size(0)", NULL, NULL, 0, &s0,
                                     err));
    SC_CHECK(sc_env_create_unbacked(env, NULL, NULL, SC_ENV_SIZE_LIKE, &u0,
                                    err));
    SC_CHECK(sc_env_create_unbacked(env, "u1", &s->big, 0, &u1, err));
    GUARD_EXPR(e, "Eq(Mod(u0, 4), 0)");
    SC_CHECK(sc_env_assert(env, e, err));
    GUARD_EXPR(e, "s0 + u0 <= 100");
    SC_CHECK(sc_env_assert(env, e, err));
    GUARD_EXPR(e, "Eq(u0, 0)");
    SC_CHECK(sc_env_guard_or(env, e, false, &b, err));
    SC_CHECK(sc_env_size_oblivious(env, e, &b, err));
    GUARD_EXPR(e, "u1 + u0 > 10**25");
    SC_CHECK(sc_env_guard_or(env, e, false, &b, err));
    (void)u1;
fail:
    return status;
}

static void guard_after(void *state, sc_status status, long n)
{
    guard_state *s = state;
    sc_guard_set *gs = NULL;
    sc_guard_checker *chk = NULL;
    sc_expr *e;
    sc_error err;
    int64_t vals[8];
    size_t i, ns, first;
    (void)status;
    /* The environment still takes symbols, answers, and produces guards
     * that hold at the hints. */
    sc_ctx_take_error(s->ctx, NULL);
    ck_assert_msg(sc_env_create_backed_si(s->env, 7, "after.size(0)", NULL,
                                          NULL, SC_ENV_NO_DUCK, &e, &err) ==
                      SC_OK,
                  "after allocation %ld failed: %s", n, err.message);
    ck_assert_int_eq(sc_env_guard_int_si(s->env, e, &vals[0], &err), SC_OK);
    ck_assert_int_eq(vals[0], 7);
    ck_assert_msg(sc_env_produce_guards(s->env, &gs, &err) == SC_OK,
                  "after allocation %ld failed: %s", n, err.message);
    ck_assert_int_eq(sc_guard_set_compile(gs, &chk, &err), SC_OK);
    ns = sc_env_source_count(s->env);
    ck_assert_uint_le(ns, ARRAY_SIZE(vals));
    ck_assert_uint_eq(sc_guard_checker_source_count(chk), ns);
    for (i = 0; i < ns; i++) {
        sc_expr *h = sc_env_source_hint(s->env, i);
        ck_assert(h && sc_expr_value_si(h, &vals[i]));
    }
    ck_assert_int_eq(sc_guard_checker_check(chk, vals, &first, &err), SC_OK);
    ck_assert_msg(first == sc_guard_checker_count(chk),
                  "after allocation %ld failed: guard %zu fails at the "
                  "hints", n, first);
    sc_guard_checker_free(chk);
    sc_guard_set_free(gs);
}

static void guard_teardown(void *state)
{
    guard_state *s = state;
    sc_range_clear(&s->big);
    sc_env_free(s->env);
    sc_ctx_free(s->ctx);
    free(s);
}

START_TEST(test_oom_guards)
{
    static const oom_part part = {"guards", guard_setup, guard_step,
                                  guard_after, guard_teardown, NULL};
    oom_loop(&part);
}
END_TEST

START_TEST(test_oom_unbacked)
{
    static const oom_part part = {"guards (unbacked)", guard_setup,
                                  unbacked_step, guard_after, guard_teardown,
                                  NULL};
    oom_loop(&part);
}
END_TEST

/* ---- Examples: reading, partition, validation ------------------------------------- */

typedef struct example {
    const char *file;           /* under examples/ */
    const char *hint_names[3];  /* the symbols' hints (the traced sizes) */
    int64_t hint_values[3];
    char *text;
    size_t len;
    char *ref;                  /* the graph written back */
    int64_t saved_bytes;        /* of the reference partition */
} example;

static example ex_dyn = {"examples/fn_mm_gelu_sum_dyn.joint.txt",
                         {"s0", "s1", "s2"}, {8, 16, 32}, NULL, 0, NULL, 0};
static example ex_static = {"examples/mlp_gelu.joint.txt", {NULL}, {0},
                            NULL, 0, NULL, 0};

static sc_status example_read(sc_ctx *ctx, const example *ex, sc_graph **g,
                              sc_error *err)
{
    sc_graph_read_options ro;
    sc_expr *syms[3];
    size_t n = 0;

    *g = NULL;
    while (n < 3 && ex->hint_names[n]) {
        syms[n] = sc_expr_symbol(ctx, ex->hint_names[n]);
        if (!syms[n])
            return sc_ctx_take_error(ctx, err);
        n++;
    }
    sc_graph_read_options_init(&ro);
    ro.nhints = n;
    ro.hint_symbols = syms;
    ro.hint_values = ex->hint_values;
    return sc_graph_read_text(ctx, ex->text, ex->len, ex->file, &ro, g, err);
}

static char *graph_text(const sc_graph *g)
{
    char *text = NULL;
    sc_error err;
    sc_status st = sc_graph_write_text(g, NULL, &text, NULL, &err);
    ck_assert_msg(st == SC_OK, "writing: %s", err.message);
    return text;
}

static void example_load(example *ex)
{
    sc_ctx *ctx;
    sc_graph *g;
    sc_partition *p;
    sc_error err;

    if (ex->text)
        return;
    ex->text = slurp(ex->file, &ex->len);
    ctx = sc_ctx_new();
    ck_assert_ptr_nonnull(ctx);
    ck_assert_msg(example_read(ctx, ex, &g, &err) == SC_OK, "%s: %s",
                  ex->file, err.message);
    ex->ref = graph_text(g);
    ck_assert_msg(sc_partition_run(g, NULL, &p, &err) == SC_OK, "%s: %s",
                  ex->file, err.message);
    ex->saved_bytes = sc_partition_saved_bytes(p);
    sc_partition_free(p);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}

static void example_unload(example *ex)
{
    free(ex->text);
    free(ex->ref);
    ex->text = ex->ref = NULL;
}

/* The caller's objects of the example parts. */
typedef struct ex_state {
    const example *ex;
    sc_ctx *ctx;
    sc_graph *g;          /* the joint graph (read part: the result) */
    sc_partition *p;      /* partition part: the result; validate: input */
    char *report;
} ex_state;

static void ex_teardown(void *state)
{
    ex_state *s = state;
    free(s->report);
    sc_partition_free(s->p);
    sc_graph_free(s->g);
    sc_ctx_free(s->ctx);
    free(s);
}

static ex_state *ex_new(const example *ex)
{
    ex_state *s = calloc(1, sizeof *s);
    ck_assert_ptr_nonnull(s);
    s->ex = ex;
    s->ctx = sc_ctx_new();
    ck_assert_ptr_nonnull(s->ctx);
    return s;
}

/* Reading (with shape inference checking every annotation) and writing. */
static void *read_setup(const void *arg) { return ex_new(arg); }

static sc_status read_step(void *state, sc_error *err)
{
    ex_state *s = state;
    sc_status st = example_read(s->ctx, s->ex, &s->g, err);
    if (st != SC_OK) {
        ck_assert_ptr_null(s->g);
        return st;
    }
    st = sc_graph_write_text(s->g, NULL, &s->report, NULL, err);
    if (st != SC_OK) {
        ck_assert_ptr_null(s->report);
        return st;
    }
    ck_assert_str_eq(s->report, s->ex->ref);
    free(s->report);
    s->report = NULL;
    st = sc_graph_write_dot(s->g, NULL, &s->report, NULL, err);
    if (st != SC_OK)
        ck_assert_ptr_null(s->report);
    return st;
}

static void read_after(void *state, sc_status status, long n)
{
    ex_state *s = state;
    sc_graph *g;
    sc_error err;
    char *text;
    (void)status;
    /* The context still reads the graph, and the same graph. */
    sc_ctx_take_error(s->ctx, NULL);
    ck_assert_msg(example_read(s->ctx, s->ex, &g, &err) == SC_OK,
                  "%s after allocation %ld failed: %s", s->ex->file, n,
                  err.message);
    text = graph_text(g);
    ck_assert_str_eq(text, s->ex->ref);
    free(text);
    sc_graph_free(g);
}

/* Partition: the run and its reports. */
static void *part_setup(const void *arg)
{
    ex_state *s = ex_new(arg);
    sc_error err;
    ck_assert_msg(example_read(s->ctx, s->ex, &s->g, &err) == SC_OK, "%s",
                  err.message);
    return s;
}

static sc_status part_step(void *state, sc_error *err)
{
    ex_state *s = state;
    sc_status st = sc_partition_run(s->g, NULL, &s->p, err);
    char *json = NULL;
    if (st != SC_OK) {
        ck_assert_ptr_null(s->p);
        return st;
    }
    st = sc_partition_write_text(s->p, SC_PARTITION_REPORT_NO_TIMINGS,
                                 &s->report, NULL, err);
    if (st == SC_OK)
        st = sc_partition_write_json(s->p, SC_PARTITION_REPORT_NO_TIMINGS,
                                     &json, NULL, err);
    free(json);
    json = NULL;
    if (st == SC_OK)
        st = sc_partition_write_dot(s->p, 0, &json, NULL, err);
    free(json);
    return st;
}

static void part_after(void *state, sc_status status, long n)
{
    ex_state *s = state;
    sc_partition *p;
    sc_error err;
    char *text;
    (void)status;
    /* The joint graph is unchanged and partitions as before. */
    text = graph_text(s->g);
    ck_assert_str_eq(text, s->ex->ref);
    free(text);
    ck_assert_msg(sc_partition_run(s->g, NULL, &p, &err) == SC_OK,
                  "%s after allocation %ld failed: %s", s->ex->file, n,
                  err.message);
    ck_assert_int_eq(sc_partition_saved_bytes(p), s->ex->saved_bytes);
    sc_partition_free(p);
}

/* Validation of the partition: three interpreter runs and comparisons. */
static void *valid_setup(const void *arg)
{
    ex_state *s = part_setup(arg);
    sc_error err;
    ck_assert_msg(sc_partition_run(s->g, NULL, &s->p, &err) == SC_OK, "%s",
                  err.message);
    return s;
}

static sc_status valid_run(ex_state *s, sc_error *err)
{
    sc_validate_options vo;
    sc_validate_report rep;
    sc_status st;
    sc_validate_options_init(&vo);
    vo.seed = 7;
    vo.predicted_saved_bytes = sc_partition_saved_bytes(s->p);
    st = sc_validate_run(s->g, sc_partition_forward(s->p),
                         sc_partition_backward(s->p), &vo, &rep, err);
    if (st == SC_OK)
        ck_assert_msg(rep.passed, "%s: validation failed: %s", s->ex->file,
                      rep.message);
    return st;
}

static sc_status valid_step(void *state, sc_error *err)
{
    return valid_run(state, err);
}

static void valid_after(void *state, sc_status status, long n)
{
    ex_state *s = state;
    sc_error err;
    char *text;
    (void)status;
    text = graph_text(s->g);
    ck_assert_str_eq(text, s->ex->ref);
    free(text);
    ck_assert_msg(valid_run(s, &err) == SC_OK,
                  "%s after allocation %ld failed: %s", s->ex->file, n,
                  err.message);
}

static void run_example_part(example *ex, const char *name,
                             void *(*setup)(const void *),
                             sc_status (*step)(void *, sc_error *),
                             void (*after)(void *, sc_status, long))
{
    oom_part part;
    example_load(ex);
    part.name = name;
    part.setup = setup;
    part.step = step;
    part.after = after;
    part.teardown = ex_teardown;
    part.arg = ex;
    oom_loop(&part);
    example_unload(ex);
}

START_TEST(test_oom_read_dyn)
{
    run_example_part(&ex_dyn, "read (symbolic)", read_setup, read_step,
                     read_after);
}
END_TEST

START_TEST(test_oom_read_static)
{
    run_example_part(&ex_static, "read (static)", read_setup, read_step,
                     read_after);
}
END_TEST

START_TEST(test_oom_partition_dyn)
{
    run_example_part(&ex_dyn, "partition (symbolic)", part_setup, part_step,
                     part_after);
}
END_TEST

START_TEST(test_oom_partition_static)
{
    run_example_part(&ex_static, "partition (static)", part_setup, part_step,
                     part_after);
}
END_TEST

START_TEST(test_oom_validate_dyn)
{
    run_example_part(&ex_dyn, "validate (symbolic)", valid_setup, valid_step,
                     valid_after);
}
END_TEST

START_TEST(test_oom_validate_static)
{
    run_example_part(&ex_static, "validate (static)", valid_setup, valid_step,
                     valid_after);
}
END_TEST

/* Every other example (static shapes): reading, and partition.  They
 * cover more shape rules (convolution, embedding, losses, attention,
 * layer norm).  lstm_module and residual_mlp_16 repeat what these cover at
 * ten times the cost. */
static const char *const more_examples[] = {
    "attention_single_head", "lm_head_ce", "small_cnn",
    "transformer_encoder_layer", "two_output_mlp",
};

START_TEST(test_oom_more_examples)
{
    size_t i;
    for (i = 0; i < ARRAY_SIZE(more_examples); i++) {
        char file[128], name[128];
        example ex = {NULL, {NULL}, {0}, NULL, 0, NULL, 0};
        snprintf(file, sizeof file, "examples/%s.joint.txt",
                 more_examples[i]);
        ex.file = file;
        snprintf(name, sizeof name, "read %s", more_examples[i]);
        run_example_part(&ex, name, read_setup, read_step, read_after);
        snprintf(name, sizeof name, "partition %s", more_examples[i]);
        run_example_part(&ex, name, part_setup, part_step, part_after);
    }
}
END_TEST

/* ---- Part: random graphs ------------------------------------------------------ */

/* A random forward graph with symbolic sizes (small ones), its joint
 * graph, the partition, and the validation of the partition: many more
 * ops and kernels than the examples, at a small cost per run. */
typedef struct random_state {
    sc_ctx *ctx;
    sc_graph *fwd, *joint;
    sc_partition *p;
} random_state;

static const uint64_t random_seeds[] = {11};
static size_t random_seed_index;

static void *random_setup(const void *arg)
{
    random_state *s = calloc(1, sizeof *s);
    (void)arg;
    ck_assert_ptr_nonnull(s);
    s->ctx = sc_ctx_new();
    ck_assert_ptr_nonnull(s->ctx);
    return s;
}

static sc_status random_step(void *state, sc_error *err)
{
    random_state *s = state;
    sc_graph_random_options ro;
    sc_validate_options vo;
    sc_validate_report rep;
    sc_status st;

    sc_graph_random_options_init(&ro);
    ro.seed = random_seeds[random_seed_index];
    ro.nodes = 10;
    ro.symbolic = true;
    st = sc_graph_new_random(s->ctx, &ro, &s->fwd, err);
    if (st != SC_OK) {
        ck_assert_ptr_null(s->fwd);
        return st;
    }
    st = sc_graph_new_joint(s->fwd, NULL, &s->joint, err);
    if (st != SC_OK) {
        ck_assert_ptr_null(s->joint);
        return st;
    }
    st = sc_partition_run(s->joint, NULL, &s->p, err);
    if (st != SC_OK) {
        ck_assert_ptr_null(s->p);
        return st;
    }
    sc_validate_options_init(&vo);
    vo.seed = 5;
    st = sc_validate_run(s->joint, sc_partition_forward(s->p),
                         sc_partition_backward(s->p), &vo, &rep, err);
    if (st == SC_OK)
        ck_assert_msg(rep.passed, "seed %llu: validation failed: %s",
                      (unsigned long long)ro.seed, rep.message);
    return st;
}

static char *random_ref; /* the joint graph made without injection */

static void random_after(void *state, sc_status status, long n)
{
    random_state *s = state;
    random_state t;
    sc_error err;
    char *text;
    (void)status;
    /* The context still makes the same graphs, which partition and
     * validate. */
    sc_ctx_take_error(s->ctx, NULL);
    memset(&t, 0, sizeof t);
    t.ctx = s->ctx;
    ck_assert_msg(random_step(&t, &err) == SC_OK,
                  "after allocation %ld failed: %s", n, err.message);
    text = graph_text(t.joint);
    if (random_ref)
        ck_assert_str_eq(text, random_ref);
    else
        random_ref = text, text = NULL;
    free(text);
    sc_partition_free(t.p);
    sc_graph_free(t.joint);
    sc_graph_free(t.fwd);
}

static void random_teardown(void *state)
{
    random_state *s = state;
    sc_partition_free(s->p);
    sc_graph_free(s->joint);
    sc_graph_free(s->fwd);
    sc_ctx_free(s->ctx);
    free(s);
}

START_TEST(test_oom_random)
{
    static const oom_part part = {"random graphs", random_setup,
                                  random_step, random_after,
                                  random_teardown, NULL};
    for (random_seed_index = 0;
         random_seed_index < ARRAY_SIZE(random_seeds); random_seed_index++) {
        oom_loop(&part);
        free(random_ref);
        random_ref = NULL;
    }
}
END_TEST

/* One test case per part, so that CK_RUN_CASE can pick one. */
static void add_case(Suite *s, const char *name, const TTest *test)
{
    TCase *tc = tcase_create(name);
    tcase_set_timeout(tc, 900);
    tcase_add_test(tc, test);
    suite_add_tcase(s, tc);
}

Suite *oom_suite(void)
{
    Suite *s = suite_create("oom");
    add_case(s, "expr", test_oom_expr);
    add_case(s, "shapes", test_oom_shapes);
    add_case(s, "guards", test_oom_guards);
    add_case(s, "unbacked", test_oom_unbacked);
    add_case(s, "read_dyn", test_oom_read_dyn);
    add_case(s, "read_static", test_oom_read_static);
    add_case(s, "partition_dyn", test_oom_partition_dyn);
    add_case(s, "partition_static", test_oom_partition_static);
    add_case(s, "validate_dyn", test_oom_validate_dyn);
    add_case(s, "validate_static", test_oom_validate_static);
    add_case(s, "more_examples", test_oom_more_examples);
    add_case(s, "random", test_oom_random);
    return s;
}
