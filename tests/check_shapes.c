/* symcut tests — shape rules: per-op rules with symbolic sizes and the
 * guards each records, dtype promotion, and every example read with its
 * annotations checked against the rules.
 *
 * The examples are read from $SYMCUT_EXAMPLES_DIR, else
 * $top_srcdir/examples (the test environment sets top_srcdir), else
 * ./examples. */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <symcut/graph.h>
#include <symcut/guards.h>

#include "tests/testutil.h"
#include "util/internal.h"
#include "graph/graph-internal.h"
#include "graph/shapes.h"


Suite *shapes_suite(void);

/* ---- Fixture: a graph over an environment with backed symbols ------------ */

typedef struct fx {
    sc_ctx *ctx;
    sc_env *env;
    sc_graph *g;
    sc_error err;
} fx;

/* syms: "s0=8 s1=16 ..." backed symbols (no duck sizing; range
 * [2, +inf)), sources x.s0, ... */
static void fx_init(fx *f, const char *syms)
{
    char name[32], src[48];
    long long hint;
    int used;

    f->ctx = sc_ctx_new();
    ck_assert_ptr_nonnull(f->ctx);
    sc_error_init(&f->err);
    ck_assert_int_eq(sc_env_new(f->ctx, NULL, &f->env, &f->err), SC_OK);
    while (syms && sscanf(syms, " %31[a-z0-9]=%lld%n", name, &hint, &used) == 2) {
        sc_expr *out;
        snprintf(src, sizeof src, "x.%s", name);
        ck_assert_int_eq(sc_env_create_backed_si(f->env, hint, src, name, NULL,
                                                 SC_ENV_NO_DUCK,
                                                 &out, &f->err),
                         SC_OK);
        syms += used;
    }
    f->g = sc_graph_new(f->ctx);
    ck_assert_ptr_nonnull(f->g);
    sc_graph_set_env(f->g, f->env);
}

static void fx_free(fx *f)
{
    sc_graph_free(f->g);
    sc_env_free(f->env);
    sc_ctx_free(f->ctx);
}

static sc_expr *ex(fx *f, const char *text)
{
    sc_expr *e = NULL;
    ck_assert_int_eq(sc_expr_parse(f->ctx, text, NULL, 1, &e, &f->err), SC_OK);
    return e;
}

/* Parse "a; b; c" into exprs (';' separates, so Max(a, b) may appear). */
static size_t exprs(fx *f, const char *list, sc_expr **out, size_t cap)
{
    char buf[256], *p, *q;
    size_t n = 0;
    snprintf(buf, sizeof buf, "%s", list);
    for (p = buf; *p && n < cap; p = q) {
        q = strchr(p, ';');
        if (q)
            *q++ = '\0';
        else
            q = p + strlen(p);
        out[n++] = ex(f, p);
    }
    return n;
}

/* A placeholder tensor: sizes and strides as "s0; 64" and "64; 1"
 * ("" for 0-d). */
static sc_node_id ph(fx *f, const char *name, sc_dtype dt, const char *sizes,
                     const char *strides)
{
    sc_expr *sz[16], *st[16];
    sc_result r;
    sc_node_id id;

    sc_result_init(&r);
    r.kind = SC_RESULT_TENSOR;
    r.tensor.dtype = dt;
    r.tensor.ndim = exprs(f, sizes, sz, 16);
    ck_assert_int_eq(exprs(f, strides, st, 16), r.tensor.ndim);
    r.tensor.sizes = sz;
    r.tensor.strides = st;
    r.tensor.has_strides = true;
    r.tensor.has_device = true;
    r.tensor.device.type = SC_DEVICE_CPU;
    r.tensor.device.index = -1;
    ck_assert_msg(sc_graph_add_placeholder(f->g, name, SC_ROLE_PRIMAL, &r,
                                           &id, &f->err) == SC_OK,
                  "%s: %s", name, f->err.message);
    return id;
}

static sc_node_id call_kw(fx *f, const char *op, size_t npos,
                          const sc_value *args, size_t nkw,
                          const char *const *kw, const sc_value *kwv)
{
    char target[128];
    sc_node_id id;
    snprintf(target, sizeof target, "%s%s",
             strncmp(op, "operator.", 9) == 0 ? "" : "torch.ops.aten.", op);
    ck_assert_msg(sc_graph_add_call(f->g, NULL, target, npos, args, nkw, kw,
                                    kwv, NULL, &id, &f->err) == SC_OK,
                  "%s: %s", op, f->err.message);
    return id;
}

static sc_node_id call(fx *f, const char *op, size_t npos,
                       const sc_value *args)
{
    return call_kw(f, op, npos, args, 0, NULL, NULL);
}

/* The builder runs the rule: a call whose inputs cannot be valid for the
 * op is refused with SC_ERR_SHAPE (message in f->err). */
static void call_fails(fx *f, const char *op, size_t npos,
                       const sc_value *args)
{
    char target[128];
    sc_node_id id;
    size_t before = sc_graph_node_count(f->g);
    snprintf(target, sizeof target, "%s%s",
             strncmp(op, "operator.", 9) == 0 ? "" : "torch.ops.aten.", op);
    sc_error_init(&f->err);
    ck_assert_int_eq(sc_graph_add_call(f->g, NULL, target, npos, args, 0,
                                       NULL, NULL, NULL, &id, &f->err),
                     SC_ERR_SHAPE);
    ck_assert_uint_eq(sc_graph_node_count(f->g), before);
}

static sc_value sym(sc_expr *e)
{
    sc_value v;
    v.kind = SC_VALUE_SYMINT;
    v.u.expr = e;
    return v;
}

static sc_value ints(size_t n, const sc_value *items)
{
    return sc_value_list(n, items);
}

/* The inferred result as text: "f32[s0, 64][64, 1]", "Sym(s0)", or
 * "tuple(3)"; "error <STATUS>" when the rule fails. */
static void result_text(fx *f, const sc_result *r, char *buf, size_t size)
{
    size_t i, k;
    int n = 0;

    switch (r->kind) {
    case SC_RESULT_TENSOR:
        n = snprintf(buf, size, "%s[", sc_dtype_code(r->tensor.dtype));
        for (k = 0; k < 2; k++) {
            for (i = 0; i < r->tensor.ndim; i++) {
                char *s = sc_expr_to_str(
                    f->ctx, k ? r->tensor.strides[i] : r->tensor.sizes[i]);
                n += snprintf(buf + n, size - (size_t)n, "%s%s", i ? ", " : "",
                              s);
                free(s);
            }
            n += snprintf(buf + n, size - (size_t)n, k ? "]" : "][");
        }
        break;
    case SC_RESULT_SYMINT:
    case SC_RESULT_SYMBOOL: {
        char *s = sc_expr_to_str(f->ctx, r->expr);
        snprintf(buf, size, "Sym(%s)", s);
        free(s);
        break;
    }
    case SC_RESULT_TUPLE:
        snprintf(buf, size, "tuple(%zu)", r->count);
        break;
    case SC_RESULT_NONE:
        snprintf(buf, size, "None");
        break;
    default:
        snprintf(buf, size, "unknown");
    }
}

static const char *infer(fx *f, sc_node_id id)
{
    static char buf[512];
    sc_result r;
    sc_status st;
    sc_error_init(&f->err);
    st = sc__shape_infer(f->g, id, &r, &f->err);
    if (st != SC_OK)
        snprintf(buf, sizeof buf, "error %s", sc_status_name(st));
    else
        result_text(f, &r, buf, sizeof buf);
    return buf;
}

/* The guards recorded so far, "; "-separated ("" for none). */
static const char *guards(fx *f)
{
    static char buf[512];
    size_t i, n = 0;
    buf[0] = '\0';
    for (i = 0; i < sc_env_guard_count(f->env); i++) {
        char *s = sc_expr_to_str(f->ctx, sc_env_guard_at(f->env, i));
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", i ? "; " : "",
                              s);
        free(s);
    }
    return buf;
}

#define CHECK_INFER(f, id, want) ck_assert_str_eq(infer(f, id), want)
#define CHECK_GUARDS(f, want) ck_assert_str_eq(guards(f), want)

/* ---- Matrix products ------------------------------------------------------- */

START_TEST(test_mm)
{
    fx f;
    sc_value a[3];
    sc_node_id x, w, w2, v, id;

    sc_node_id u, b, m1, m2;

    fx_init(&f, "s0=8 s1=16 s2=32 s3=16");
    sc_node_id P_x = ph(&f, "x", SC_DTYPE_F32, "s0; s1", "s1; 1");
    sc_node_id P_w = ph(&f, "w", SC_DTYPE_F32, "s1; s2", "s2; 1");
    sc_node_id P_w2 = ph(&f, "w2", SC_DTYPE_F32, "s3; 4", "4; 1");
    sc_node_id P_v = ph(&f, "v", SC_DTYPE_F32, "s0; s1; s2", "s1*s2; s2; 1");
    sc_node_id P_u = ph(&f, "u", SC_DTYPE_F32, "s0; s2; 5", "5*s2; 5; 1");
    sc_node_id P_b = ph(&f, "b", SC_DTYPE_F32, "s2", "1");
    sc_node_id P_m1 = ph(&f, "m1", SC_DTYPE_F32, "s0; s1", "s1; 1");
    sc_node_id P_m2 = ph(&f, "m2", SC_DTYPE_F32, "s1; s2", "1; s1");
    x = P_x;
    w = P_w;
    w2 = P_w2;
    v = P_v;
    u = P_u;
    b = P_b;
    m1 = P_m1;
    m2 = P_m2;
    a[0] = sc_value_node(x);
    a[1] = sc_value_node(w);
    id = call(&f, "mm.default", 2, a);
    CHECK_INFER(&f, id, "f32[s0, s2][s2, 1]");
    CHECK_GUARDS(&f, ""); /* the inner sizes are the same symbol */

    /* s3 has the same hint as s1: the check records Eq(s1, s3) */
    a[1] = sc_value_node(w2);
    id = call(&f, "mm.default", 2, a);
    CHECK_INFER(&f, id, "f32[s0, 4][4, 1]");
    CHECK_GUARDS(&f, "Eq(s1, s3)");

    /* bmm: batch and inner sizes */
    a[0] = sc_value_node(v);
    a[1] = sc_value_node(u);
    id = call(&f, "bmm.default", 2, a);
    CHECK_INFER(&f, id, "f32[s0, s1, 5][5*s1, 5, 1]");

    /* addmm: the bias broadcasts to [n, p] */
    a[0] = sc_value_node(b);
    a[1] = sc_value_node(m1);
    a[2] = sc_value_node(m2);
    id = call(&f, "addmm.default", 3, a);
    CHECK_INFER(&f, id, "f32[s0, s2][s2, 1]");
    CHECK_GUARDS(&f, "Eq(s1, s3)");
    fx_free(&f);
}
END_TEST

START_TEST(test_mm_mismatch)
{
    fx f;
    sc_value a[2];

    sc_node_id x, w, y, v;

    fx_init(&f, "s0=8 s1=3");
    sc_node_id P_x = ph(&f, "x", SC_DTYPE_F32, "4; 5", "5; 1");
    sc_node_id P_w = ph(&f, "w", SC_DTYPE_F32, "6; 7", "7; 1");
    sc_node_id P_y = ph(&f, "y", SC_DTYPE_F32, "4; s0", "s0; 1");
    sc_node_id P_v = ph(&f, "v", SC_DTYPE_F32, "s1; 7", "7; 1");
    x = P_x;
    w = P_w;
    y = P_y;
    v = P_v;
    a[0] = sc_value_node(x);
    a[1] = sc_value_node(w);
    call_fails(&f, "mm.default", 2, a);
    ck_assert_ptr_nonnull(strstr(f.err.message, "cannot be multiplied"));
    ck_assert_ptr_nonnull(strstr(f.err.message, "5 vs 6"));
    /* symbolic: false at the hints */
    a[0] = sc_value_node(y);
    a[1] = sc_value_node(v);
    call_fails(&f, "mm.default", 2, a);
    fx_free(&f);
}
END_TEST

/* ---- Pointwise: broadcasting, strides, dtypes --------------------------------- */

START_TEST(test_broadcast)
{
    fx f;
    sc_value a[2];
    sc_node_id id;

    fx_init(&f, "s0=8 s1=16 s2=8");
    sc_node_id P_x = ph(&f, "x", SC_DTYPE_F32, "s0; 1", "1; 1");
    sc_node_id P_y = ph(&f, "y", SC_DTYPE_F32, "1; s1", "s1; 1");
    sc_node_id P_z = ph(&f, "z", SC_DTYPE_F32, "s0; s1", "s1; 1");
    sc_node_id P_b = ph(&f, "b", SC_DTYPE_F32, "s1", "1");
    sc_node_id P_p = ph(&f, "p", SC_DTYPE_F32, "s0", "1");
    sc_node_id P_q = ph(&f, "q", SC_DTYPE_F32, "s2", "1");
    sc_node_id P_r = ph(&f, "r", SC_DTYPE_F32, "3", "1");
    sc_node_id P_s = ph(&f, "s", SC_DTYPE_F32, "4", "1");
    /* size-1 dims broadcast without a guard */
    a[0] = sc_value_node(P_x);
    a[1] = sc_value_node(P_y);
    id = call(&f, "add.Tensor", 2, a);
    CHECK_INFER(&f, id, "f32[s0, s1][s1, 1]");
    /* fewer dims: aligned on the right */
    a[0] = sc_value_node(P_z);
    a[1] = sc_value_node(P_b);
    id = call(&f, "mul.Tensor", 2, a);
    CHECK_INFER(&f, id, "f32[s0, s1][s1, 1]");
    CHECK_GUARDS(&f, "");
    /* two different symbols: neither is 1 (size-obliviously), so they must
     * be equal: Eq(s0, s2) */
    a[0] = sc_value_node(P_p);
    a[1] = sc_value_node(P_q);
    id = call(&f, "sub.Tensor", 2, a);
    CHECK_INFER(&f, id, "f32[s0][1]");
    CHECK_GUARDS(&f, "Eq(s0, s2)");
    /* incompatible constants */
    a[0] = sc_value_node(P_r);
    a[1] = sc_value_node(P_s);
    call_fails(&f, "add.Tensor", 2, a);
    fx_free(&f);
}
END_TEST

START_TEST(test_pointwise_strides)
{
    fx f;
    sc_value a[2];
    sc_node_id t, id;

    fx_init(&f, "s0=8 s1=16");
    sc_node_id P_t = ph(&f, "t", SC_DTYPE_F32, "s1; s0", "1; s1");
    sc_node_id P_c = ph(&f, "c", SC_DTYPE_F32, "s1; s0", "s0; 1");
    sc_node_id P_row = ph(&f, "row", SC_DTYPE_F32, "s0", "1");
    sc_node_id P_h = ph(&f, "h", SC_DTYPE_F32, "16; 16; 16", "16; 256; 1");
    /* a transposed input keeps its layout */
    t = P_t;
    a[0] = sc_value_node(t);
    id = call(&f, "tanh.default", 1, a);
    CHECK_INFER(&f, id, "f32[s1, s0][1, s1]");
    a[1] = sc_value_node(P_c);
    id = call(&f, "add.Tensor", 2, a);
    CHECK_INFER(&f, id, "f32[s1, s0][1, s1]"); /* the first operand decides */
    /* a broadcast operand does not decide */
    a[0] = sc_value_node(P_row);
    a[1] = sc_value_node(t);
    id = call(&f, "mul.Tensor", 2, a);
    CHECK_INFER(&f, id, "f32[s1, s0][1, s1]");
    /* 3-d permuted, as the transformer's div */
    a[0] = sc_value_node(P_h);
    a[1] = sc_value_float(4.0, "4.0");
    id = call(&f, "div.Tensor", 2, a);
    CHECK_INFER(&f, id, "f32[16, 16, 16][16, 256, 1]");
    CHECK_GUARDS(&f, "");
    fx_free(&f);
}
END_TEST

/* The elementwise order compares strides as PyTorch's guard_size_oblivious
 * does: by a guard at the hints when the environment cannot tell, so the
 * result does not depend on the guards recorded before (K5 of doc/random.md:
 * a rule run again after later guards gave other strides). */
START_TEST(test_pointwise_order_guarded)
{
    fx f;
    sc_value a[1];
    sc_node_id id;

    /* s0 < s0**2 is known from the ranges (s0 = 2 + t: s0**2 - s0 =
     * t**2 + 3*t + 2 > 0): no guard, and the order is the one at the hints
     * (not the insertion sort's accident) */
    fx_init(&f, "s0=7");
    a[0] = sc_value_node(ph(&f, "p", SC_DTYPE_F32, "s0; s0; s0",
                            "1; s0; s0**2"));
    id = call(&f, "gelu.default", 1, a);
    CHECK_INFER(&f, id, "f32[s0, s0, s0][1, s0, s0**2]");
    ck_assert_uint_eq(sc_env_guard_count(f.env), 0);
    fx_free(&f);

    /* the same rule once the environment knows s0 == 7 gives the same
     * layout */
    fx_init(&f, "s0=7");
    {
        bool b;
        ck_assert_int_eq(sc_env_guard(f.env, ex(&f, "Eq(s0, 7)"), &b, &f.err),
                         SC_OK);
        ck_assert(b);
    }
    a[0] = sc_value_node(ph(&f, "p", SC_DTYPE_F32, "s0; s0; s0",
                            "1; s0; s0**2"));
    id = call(&f, "gelu.default", 1, a);
    CHECK_INFER(&f, id, "f32[7, 7, 7][1, 7, 49]");
    fx_free(&f);

    /* strides that only the hints order: s0 < s1 here... */
    fx_init(&f, "s0=3 s1=5");
    a[0] = sc_value_node(ph(&f, "q", SC_DTYPE_F32, "2; 2", "s0; s1"));
    id = call(&f, "neg.default", 1, a);
    CHECK_INFER(&f, id, "f32[2, 2][1, 2]");
    /* should_swap asks s1 < s0 (no), then s1 > s0 (yes) */
    CHECK_GUARDS(&f, "s0 <= s1; s0 <= s1 - 1");
    fx_free(&f);
    /* ... and s0 > s1 there */
    fx_init(&f, "s0=5 s1=3");
    a[0] = sc_value_node(ph(&f, "q", SC_DTYPE_F32, "2; 2", "s0; s1"));
    id = call(&f, "neg.default", 1, a);
    CHECK_INFER(&f, id, "f32[2, 2][2, 1]");
    fx_free(&f);
}
END_TEST

START_TEST(test_dtypes)
{
    fx f;
    sc_value a[2];
    sc_node_id i64, f32, b8, zero, id;

    fx_init(&f, "s0=8");
    sc_node_id P_i = ph(&f, "i", SC_DTYPE_I64, "s0", "1");
    sc_node_id P_x = ph(&f, "x", SC_DTYPE_F32, "s0", "1");
    sc_node_id P_m = ph(&f, "m", SC_DTYPE_B8, "s0", "1");
    sc_node_id P_z = ph(&f, "z", SC_DTYPE_F64, "", "");
    i64 = P_i;
    f32 = P_x;
    b8 = P_m;
    zero = P_z;
    /* int tensor and float scalar: the default float dtype */
    a[0] = sc_value_node(i64);
    a[1] = sc_value_float(0.5, "0.5");
    id = call(&f, "mul.Scalar", 2, a);
    CHECK_INFER(&f, id, "f32[s0][1]");
    a[1] = sc_value_int(2);
    id = call(&f, "add.Scalar", 2, a);
    CHECK_INFER(&f, id, "i64[s0][1]");
    /* true division of ints is float */
    id = call(&f, "div.Scalar", 2, a);
    CHECK_INFER(&f, id, "f32[s0][1]");
    /* a 0-d f64 tensor does not promote a dimensioned f32 tensor... */
    a[0] = sc_value_node(f32);
    a[1] = sc_value_node(zero);
    id = call(&f, "add.Tensor", 2, a);
    CHECK_INFER(&f, id, "f32[s0][1]");
    /* ...but does promote an int tensor (a higher category) */
    a[0] = sc_value_node(i64);
    id = call(&f, "add.Tensor", 2, a);
    CHECK_INFER(&f, id, "f64[s0][1]");
    /* bool with int64 */
    a[0] = sc_value_node(b8);
    a[1] = sc_value_node(i64);
    id = call(&f, "mul.Tensor", 2, a);
    CHECK_INFER(&f, id, "i64[s0][1]");
    /* comparisons are bool; unary float ops turn ints into float */
    id = call(&f, "lt.Tensor", 2, a);
    CHECK_INFER(&f, id, "b8[s0][1]");
    a[0] = sc_value_node(i64);
    id = call(&f, "exp.default", 1, a);
    CHECK_INFER(&f, id, "f32[s0][1]");
    id = call(&f, "neg.default", 1, a);
    CHECK_INFER(&f, id, "i64[s0][1]");
    /* where: promoted over self and other, not the condition */
    {
        sc_value w[3] = {sc_value_node(b8), sc_value_node(i64),
                         sc_value_node(f32)};
        id = call(&f, "where.self", 3, w);
        CHECK_INFER(&f, id, "f32[s0][1]");
    }
    fx_free(&f);

    ck_assert_int_eq(sc__dtype_promote(SC_DTYPE_U8, SC_DTYPE_I8),
                     SC_DTYPE_I16);
    ck_assert_int_eq(sc__dtype_promote(SC_DTYPE_F16, SC_DTYPE_BF16),
                     SC_DTYPE_F32);
    ck_assert_int_eq(sc__dtype_promote(SC_DTYPE_I64, SC_DTYPE_F16),
                     SC_DTYPE_F16);
    ck_assert_int_eq(sc__dtype_promote(SC_DTYPE_F64, SC_DTYPE_C64),
                     SC_DTYPE_C128);
    ck_assert_int_eq(sc__dtype_promote(SC_DTYPE_B8, SC_DTYPE_U8),
                     SC_DTYPE_U8);
}
END_TEST

/* ---- Views ------------------------------------------------------------------- */

START_TEST(test_views)
{
    fx f;
    sc_value a[3], l[3];
    sc_node_id x, id;

    fx_init(&f, "s0=8 s1=16 s2=128");
    sc_node_id P_x = ph(&f, "x", SC_DTYPE_F32, "s0; s1", "s1; 1");
    sc_node_id P_y = ph(&f, "y", SC_DTYPE_F32, "1; s0; 1", "s0; 1; 1");
    x = P_x;
    a[0] = sc_value_node(x);
    id = call(&f, "t.default", 1, a);
    CHECK_INFER(&f, id, "f32[s1, s0][1, s1]");
    a[1] = sc_value_int(-1);
    a[2] = sc_value_int(0);
    id = call(&f, "transpose.int", 3, a);
    CHECK_INFER(&f, id, "f32[s1, s0][1, s1]");
    l[0] = sc_value_int(1);
    l[1] = sc_value_int(0);
    a[1] = ints(2, l);
    id = call(&f, "permute.default", 2, a);
    CHECK_INFER(&f, id, "f32[s1, s0][1, s1]");
    /* view with an inferred dim: exact FloorDiv, here simplified */
    l[0] = sc_value_int(-1);
    a[1] = ints(1, l);
    id = call(&f, "view.default", 2, a);
    CHECK_INFER(&f, id, "f32[s0*s1][1]");
    l[0] = sc_value_int(-1);
    l[1] = sym(ex(&f, "s1"));
    a[1] = ints(2, l);
    id = call(&f, "view.default", 2, a);
    CHECK_INFER(&f, id, "f32[s0, s1][s1, 1]");
    CHECK_GUARDS(&f, "");
    /* a view to an unrelated symbol guards numel equality: s0*s1 == s2
     * holds at the hints (8 * 16 == 128) */
    l[0] = sym(ex(&f, "s2"));
    a[1] = ints(1, l);
    id = call(&f, "view.default", 2, a);
    /* the guard taught the environment s2 == s0*s1 */
    CHECK_INFER(&f, id, "f32[s0*s1][1]");
    CHECK_GUARDS(&f, "Eq(s0*s1, s2)");
    /* unsqueeze / squeeze */
    a[1] = sc_value_int(1);
    id = call(&f, "unsqueeze.default", 2, a);
    CHECK_INFER(&f, id, "f32[s0, 1, s1][s1, s1, 1]");
    a[0] = sc_value_node(id);
    id = call(&f, "squeeze.dim", 2, a);
    CHECK_INFER(&f, id, "f32[s0, s1][s1, 1]");
    a[0] = sc_value_node(P_y);
    id = call(&f, "squeeze.default", 1, a);
    CHECK_INFER(&f, id, "f32[s0][1]");
    fx_free(&f);
}
END_TEST

START_TEST(test_view_strided)
{
    fx f;
    sc_value a[2], l[2];
    sc_node_id t, id;

    fx_init(&f, "s0=8 s1=16");
    sc_node_id P_t = ph(&f, "t", SC_DTYPE_F32, "s1; s0; 4", "4; 4*s1; 1");
    sc_node_id P_u = ph(&f, "u", SC_DTYPE_F32, "s1; s0; 4", "4*s0; 4; 1");
    /* a transposed tensor can be viewed only where dims stay separate */
    t = P_t;
    a[0] = sc_value_node(t);
    l[0] = sym(ex(&f, "s1"));
    l[1] = sym(ex(&f, "4*s0"));
    a[1] = ints(2, l);
    call_fails(&f, "view.default", 2, a);
    id = call(&f, "reshape.default", 2, a);
    CHECK_INFER(&f, id, "f32[s1, 4*s0][4*s0, 1]"); /* a copy */
    l[0] = sym(ex(&f, "s1*s0"));
    l[1] = sc_value_int(4);
    a[0] = sc_value_node(P_u);
    a[1] = ints(2, l);
    id = call(&f, "view.default", 2, a);
    CHECK_INFER(&f, id, "f32[s0*s1, 4][4, 1]");
    fx_free(&f);
}
END_TEST

START_TEST(test_expand)
{
    fx f;
    sc_value a[2], l[2];
    sc_node_id id;

    fx_init(&f, "s0=8 s1=16 s2=16");
    sc_node_id P_z = ph(&f, "z", SC_DTYPE_F32, "", "");
    sc_node_id P_r = ph(&f, "r", SC_DTYPE_F32, "1; s1", "s1; 1");
    /* a 0-d tensor expanded: stride 0 everywhere */
    a[0] = sc_value_node(P_z);
    l[0] = sym(ex(&f, "s0"));
    l[1] = sym(ex(&f, "s0"));
    a[1] = ints(2, l);
    id = call(&f, "expand.default", 2, a);
    CHECK_INFER(&f, id, "f32[s0, s0][0, 0]");
    /* a size-1 dim; -1 keeps a size */
    a[0] = sc_value_node(P_r);
    l[0] = sym(ex(&f, "s0"));
    l[1] = sc_value_int(-1);
    id = call(&f, "expand.default", 2, a);
    CHECK_INFER(&f, id, "f32[s0, s1][0, 1]");
    CHECK_GUARDS(&f, "");
    /* the same size under another symbol: guarded equal */
    l[1] = sym(ex(&f, "s2"));
    id = call(&f, "expand.default", 2, a);
    CHECK_INFER(&f, id, "f32[s0, s1][0, 1]");
    CHECK_GUARDS(&f, "Eq(s1, s2)");
    fx_free(&f);
}
END_TEST

START_TEST(test_slice_select)
{
    fx f;
    sc_value a[5];
    sc_node_id x, id;

    fx_init(&f, "s0=8 s1=16");
    sc_node_id P_x = ph(&f, "x", SC_DTYPE_F32, "s0; s1", "s1; 1");
    x = P_x;
    a[0] = sc_value_node(x);
    a[1] = sc_value_int(0);
    a[2] = sc_value_int(2);
    a[3] = sc_value_int(INT64_MAX);
    id = call(&f, "slice.Tensor", 4, a);
    CHECK_INFER(&f, id, "f32[s0 - 2, s1][s1, 1]");
    CHECK_GUARDS(&f, ""); /* 2 <= s0 is known from the range */
    /* an end that may exceed the size: guarded, as PyTorch's slice */
    a[2] = sc_value_int(0);
    a[3] = sc_value_int(5);
    id = call(&f, "slice.Tensor", 4, a);
    CHECK_INFER(&f, id, "f32[5, s1][s1, 1]");
    CHECK_GUARDS(&f, "s0 >= 5");
    /* negative start counts from the end; step divides */
    a[1] = sc_value_int(1);
    a[2] = sc_value_int(-4);
    a[3] = sc_value_none();
    a[4] = sc_value_int(2);
    id = call(&f, "slice.Tensor", 5, a);
    CHECK_INFER(&f, id, "f32[s0, 2][s1, 2]");
    CHECK_GUARDS(&f, "s0 >= 5; s1 >= 4");
    /* select drops the dim; the index is checked against the size */
    a[1] = sc_value_int(1);
    a[2] = sc_value_int(3);
    id = call(&f, "select.int", 3, a);
    CHECK_INFER(&f, id, "f32[s0][s1]");
    a[2] = sc_value_int(40);
    call_fails(&f, "select.int", 3, a); /* 40 >= s1 at the hints */
    fx_free(&f);

    /* unbacked sizes cannot be guarded: Min/Max */
    fx_init(&f, NULL);
    {
        sc_expr *u;
        ck_assert_int_eq(sc_env_create_unbacked(f.env, "u0", NULL,
                                                SC_ENV_SIZE_LIKE, &u, &f.err),
                         SC_OK);
        a[0] = sc_value_node(ph(&f, "y", SC_DTYPE_F32, "u0", "1"));
        a[1] = sc_value_int(0);
        a[2] = sc_value_int(1);
        a[3] = sc_value_int(5);
        id = call(&f, "slice.Tensor", 4, a);
        CHECK_INFER(&f, id, "f32[-Min(1, u0) + Max(Min(1, u0), Min(5, u0))][1]");
        CHECK_GUARDS(&f, "");
    }
    fx_free(&f);
}
END_TEST

START_TEST(test_split_cat_stack)
{
    fx f;
    sc_value a[3], l[3];
    sc_node_id x, s, id;

    fx_init(&f, "s0=10 s1=4 s2=6");
    sc_node_id P_x = ph(&f, "x", SC_DTYPE_F32, "s0; 3", "3; 1");
    sc_node_id P_y = ph(&f, "y", SC_DTYPE_F32, "s1; 3", "3; 1");
    sc_node_id P_u = ph(&f, "u", SC_DTYPE_F32, "s1; s2", "s2; 1");
    x = P_x;
    a[0] = sc_value_node(x);
    a[1] = sc_value_int(4);
    s = call(&f, "split.Tensor", 2, a);
    CHECK_INFER(&f, s, "tuple(3)");
    /* the number of chunks is guarded; the last one is smaller */
    CHECK_GUARDS(&f, "Eq(CeilDiv(s0, 4), 3)");
    a[0] = sc_value_node(s);
    a[1] = sc_value_int(2);
    id = call(&f, "operator.getitem", 2, a);
    CHECK_INFER(&f, id, "f32[s0 - 8, 3][3, 1]");
    a[1] = sc_value_int(0);
    id = call(&f, "operator.getitem", 2, a);
    CHECK_INFER(&f, id, "f32[4, 3][3, 1]");
    a[1] = sc_value_int(3);
    call_fails(&f, "operator.getitem", 2, a);

    /* cat: sizes add along dim, other dims checked */
    l[0] = sc_value_node(x);
    l[1] = sc_value_node(P_y);
    a[0] = ints(2, l);
    id = call(&f, "cat.default", 1, a);
    CHECK_INFER(&f, id, "f32[s0 + s1, 3][3, 1]");
    a[1] = sc_value_int(1);
    call_fails(&f, "cat.default", 2, a);
    /* stack: a new dim */
    l[1] = sc_value_node(x);
    a[0] = ints(2, l);
    a[1] = sc_value_int(1);
    id = call(&f, "stack.default", 2, a);
    CHECK_INFER(&f, id, "f32[s0, 2, 3][6, 3, 1]");
    /* unbind: one select per element */
    a[0] = sc_value_node(P_u);
    a[1] = sc_value_int(0);
    id = call(&f, "unbind.int", 2, a);
    CHECK_INFER(&f, id, "tuple(4)");
    ck_assert_ptr_nonnull(strstr(guards(&f), "Eq(s1, 4)"));
    fx_free(&f);
}
END_TEST

/* ---- Reductions, softmax --------------------------------------------------------- */

START_TEST(test_reductions)
{
    fx f;
    sc_value a[3], l[1];
    sc_node_id xi, xf, t, id;

    fx_init(&f, "s0=8 s1=16");
    sc_node_id P_xi = ph(&f, "xi", SC_DTYPE_I64, "s0; s1", "s1; 1");
    sc_node_id P_xf = ph(&f, "xf", SC_DTYPE_F32, "s0; s1", "s1; 1");
    sc_node_id P_t = ph(&f, "t", SC_DTYPE_F32, "s1; s0; 3", "1; 3*s1; s1");
    xi = P_xi;
    xf = P_xf;
    a[0] = sc_value_node(xi);
    id = call(&f, "sum.default", 1, a);
    CHECK_INFER(&f, id, "i64[][]");
    call_fails(&f, "mean.default", 1, a); /* mean needs a float */
    a[0] = sc_value_node(xf);
    l[0] = sc_value_int(0);
    a[1] = ints(1, l);
    a[2] = sc_value_bool(true);
    id = call(&f, "sum.dim_IntList", 3, a);
    CHECK_INFER(&f, id, "f32[1, s1][s1, 1]");
    a[2] = sc_value_bool(false);
    id = call(&f, "mean.dim", 3, a);
    CHECK_INFER(&f, id, "f32[s1][1]");
    /* contiguous whatever the input's memory order (PyTorch's reductions) */
    t = P_t;
    a[0] = sc_value_node(t);
    l[0] = sc_value_int(1);
    id = call(&f, "amax.default", 2, a);
    CHECK_INFER(&f, id, "f32[s1, 3][3, 1]");
    /* softmax: contiguous, same sizes */
    a[1] = sc_value_int(-1);
    a[2] = sc_value_bool(false);
    id = call(&f, "_softmax.default", 3, a);
    CHECK_INFER(&f, id, "f32[s1, s0, 3][3*s0, 3, 1]");
    CHECK_GUARDS(&f, "");
    fx_free(&f);
}
END_TEST

/* ---- Neural-network ops ---------------------------------------------------------- */

START_TEST(test_convolution_pool)
{
    fx f;
    sc_value a[9], l1[2], l0[2], lp[2];
    sc_node_id x, id;

    fx_init(&f, "s0=8 s1=32");
    sc_node_id P_x = ph(&f, "x", SC_DTYPE_F32, "s0; 3; s1; s1", "3*s1**2; s1**2; s1; 1");
    sc_node_id P_w = ph(&f, "w", SC_DTYPE_F32, "16; 3; 3; 3", "27; 9; 3; 1");
    sc_node_id P_p = ph(&f, "p", SC_DTYPE_F32, "1; 1; 5; 5", "25; 25; 5; 1");
    x = P_x;
    a[0] = sc_value_node(x);
    a[1] = sc_value_node(P_w);
    a[2] = sc_value_none();
    l1[0] = l1[1] = sc_value_int(2);
    lp[0] = lp[1] = sc_value_int(1);
    l0[0] = l0[1] = sc_value_int(0);
    a[3] = ints(2, l1);                 /* stride */
    a[4] = ints(2, lp);                 /* padding */
    a[5] = ints(2, lp);                 /* dilation */
    a[6] = sc_value_bool(false);
    a[7] = ints(2, l0);
    a[8] = sc_value_int(1);
    id = call(&f, "convolution.default", 9, a);
    /* (s1 + 2*1 - 1*(3-1) - 1)//2 + 1 */
    CHECK_INFER(&f, id,
                "f32[s0, 16, (s1 + 1)//2, (s1 + 1)//2]"
                "[16*((s1 + 1)//2)**2, ((s1 + 1)//2)**2, (s1 + 1)//2, 1]");
    /* max_pool2d with ceil_mode on a 5x5 input: 3x3, indices int64 */
    a[0] = sc_value_node(P_p);
    a[1] = ints(2, l1);
    a[2] = ints(2, l1);
    a[3] = ints(2, l0);
    a[4] = ints(2, lp);
    a[5] = sc_value_bool(true);
    id = call(&f, "max_pool2d_with_indices.default", 6, a);
    CHECK_INFER(&f, id, "tuple(2)");
    {
        sc_value g[2] = {sc_value_node(id), sc_value_int(1)};
        sc_node_id gi = call(&f, "operator.getitem", 2, g);
        CHECK_INFER(&f, gi, "i64[1, 1, 3, 3][9, 9, 3, 1]");
    }
    a[5] = sc_value_bool(false);
    id = call(&f, "max_pool2d_with_indices.default", 6, a);
    {
        sc_value g[2] = {sc_value_node(id), sc_value_int(0)};
        sc_node_id gi = call(&f, "operator.getitem", 2, g);
        CHECK_INFER(&f, gi, "f32[1, 1, 2, 2][4, 4, 2, 1]");
    }
    CHECK_GUARDS(&f, "");
    fx_free(&f);
}
END_TEST

START_TEST(test_norms_losses)
{
    fx f;
    sc_value a[5], l[1], g[2];
    sc_node_id x, ln, id;

    fx_init(&f, "s0=8 s1=1000");
    sc_node_id P_x = ph(&f, "x", SC_DTYPE_F32, "s0; 16; 64", "1024; 64; 1");
    sc_node_id P_emb = ph(&f, "emb", SC_DTYPE_F32, "s1; 64", "64; 1");
    sc_node_id P_tok = ph(&f, "tok", SC_DTYPE_I64, "s0; 16", "16; 1");
    sc_node_id P_logits = ph(&f, "logits", SC_DTYPE_F32, "s0; s1", "s1; 1");
    sc_node_id P_target = ph(&f, "target", SC_DTYPE_I64, "s0", "1");
    x = P_x;
    a[0] = sc_value_node(x);
    l[0] = sc_value_int(64);
    a[1] = ints(1, l);
    a[2] = sc_value_none();
    a[3] = sc_value_none();
    a[4] = sc_value_float(1e-5, "1e-05");
    ln = call(&f, "native_layer_norm.default", 5, a);
    CHECK_INFER(&f, ln, "tuple(3)");
    g[0] = sc_value_node(ln);
    g[1] = sc_value_int(1);
    id = call(&f, "operator.getitem", 2, g);
    CHECK_INFER(&f, id, "f32[s0, 16, 1][16, 1, 1]");

    /* embedding and cross entropy */
    a[0] = sc_value_node(P_emb);
    a[1] = sc_value_node(P_tok);
    id = call(&f, "embedding.default", 2, a);
    CHECK_INFER(&f, id, "f32[s0, 16, 64][1024, 64, 1]");
    a[0] = sc_value_node(P_logits);
    a[1] = sc_value_node(P_target);
    a[2] = sc_value_none();
    a[3] = sc_value_int(1);
    a[4] = sc_value_int(-100);
    id = call(&f, "nll_loss_forward.default", 5, a);
    g[0] = sc_value_node(id);
    g[1] = sc_value_int(0);
    CHECK_INFER(&f, call(&f, "operator.getitem", 2, g), "f32[][]");
    a[3] = sc_value_int(0);
    id = call(&f, "nll_loss_forward.default", 5, a);
    g[0] = sc_value_node(id);
    CHECK_INFER(&f, call(&f, "operator.getitem", 2, g), "f32[s0][1]");
    CHECK_GUARDS(&f, "");
    fx_free(&f);
}
END_TEST

START_TEST(test_factories)
{
    fx f;
    sc_value a[2], l[2], kv[1];
    const char *kw[1] = {"dtype"};
    sc_node_id id;

    fx_init(&f, "s0=8");
    sc_node_id P_t = ph(&f, "t", SC_DTYPE_F32, "4; s0", "1; 4");
    l[0] = sym(ex(&f, "s0"));
    l[1] = sc_value_int(4);
    a[0] = ints(2, l);
    id = call(&f, "zeros.default", 1, a);
    CHECK_INFER(&f, id, "f32[s0, 4][4, 1]");
    kv[0].kind = SC_VALUE_DTYPE;
    kv[0].u.dtype = SC_DTYPE_I64;
    id = call_kw(&f, "ones.default", 1, a, 1, kw, kv);
    CHECK_INFER(&f, id, "i64[s0, 4][4, 1]");
    /* empty_like keeps a dense layout */
    a[0] = sc_value_node(P_t);
    id = call(&f, "empty_like.default", 1, a);
    CHECK_INFER(&f, id, "f32[4, s0][1, 4]");
    a[1] = ints(2, l);
    id = call(&f, "new_zeros.default", 2, a);
    CHECK_INFER(&f, id, "f32[s0, 4][4, 1]");
    a[0] = sc_value_float(1.5, "1.5");
    id = call(&f, "scalar_tensor.default", 1, a);
    CHECK_INFER(&f, id, "f32[][]");
    fx_free(&f);
}
END_TEST

/* ---- nonzero and symbolic integers ------------------------------------------------ */

START_TEST(test_nonzero)
{
    fx f;
    sc_value a[1];
    sc_node_id id;
    sc_expr *u;
    sc_range r;
    char *txt;

    fx_init(&f, "s0=8");
    sc_node_id P_x = ph(&f, "x", SC_DTYPE_F32, "4; 3", "3; 1");
    sc_node_id P_y = ph(&f, "y", SC_DTYPE_F32, "s0", "1");
    a[0] = sc_value_node(P_x);
    id = call(&f, "nonzero.default", 1, a);
    CHECK_INFER(&f, id, "i64[u0, 2][1, u0]");
    u = sc_expr_symbol(f.ctx, "u0");
    ck_assert(sc_env_has_symbol(f.env, u));
    ck_assert(!sc_env_is_backed(f.env, u));
    ck_assert(sc_env_is_size_like(f.env, u));
    sc_range_init(&r);
    ck_assert_int_eq(sc_env_range(f.env, u, &r, &f.err), SC_OK);
    txt = sc_range_to_str(&r);
    ck_assert_str_eq(txt, "[0, 12]");
    free(txt);
    sc_range_clear(&r);
    /* a second nonzero gets a fresh symbol */
    a[0] = sc_value_node(P_y);
    id = call(&f, "nonzero.default", 1, a);
    CHECK_INFER(&f, id, "i64[u1, 1][1, u1]");
    /* u1 <= s0 cannot be guarded: a runtime assertion */
    ck_assert_uint_eq(sc_env_runtime_assert_count(f.env), 1);
    CHECK_GUARDS(&f, "");
    fx_free(&f);
}
END_TEST

START_TEST(test_symints)
{
    fx f;
    sc_value a[2];
    sc_node_id x, s0, s1, id;

    fx_init(&f, "s0=8 s1=16");
    sc_node_id P_x = ph(&f, "x", SC_DTYPE_F32, "s0; s1", "s1; 1");
    x = P_x;
    a[0] = sc_value_node(x);
    a[1] = sc_value_int(1);
    s1 = call(&f, "sym_size.int", 2, a);
    CHECK_INFER(&f, s1, "Sym(s1)");
    a[1] = sc_value_int(-2);
    s0 = call(&f, "sym_size.int", 2, a);
    CHECK_INFER(&f, s0, "Sym(s0)");
    a[1] = sc_value_int(0);
    id = call(&f, "sym_stride.int", 2, a);
    CHECK_INFER(&f, id, "Sym(s1)");
    id = call(&f, "sym_numel.default", 1, a);
    CHECK_INFER(&f, id, "Sym(s0*s1)");
    /* infix arithmetic on SymInt nodes (results must be stored to be
     * read: infer them, then store) */
    ck_assert_int_eq(sc__shape_check_node(f.g, s0, false, &f.err), SC_OK);
    ck_assert_int_eq(sc__shape_check_node(f.g, s1, false, &f.err), SC_OK);
    a[0] = sc_value_node(s0);
    a[1] = sc_value_node(s1);
    id = call(&f, "operator.mul", 2, a);
    CHECK_INFER(&f, id, "Sym(s0*s1)");
    id = call(&f, "operator.floordiv", 2, a);
    CHECK_INFER(&f, id, "Sym(s0//s1)");
    a[1] = sc_value_int(3);
    id = call(&f, "operator.mod", 2, a);
    CHECK_INFER(&f, id, "Sym(Mod(s0, 3))");
    id = call(&f, "operator.sub", 2, a);
    CHECK_INFER(&f, id, "Sym(s0 - 3)");
    CHECK_GUARDS(&f, "");
    fx_free(&f);
}
END_TEST

/* ---- Reading: the annotations are checked ------------------------------------------ */

static sc_status read_text(sc_ctx *ctx, const char *text, sc_graph **g,
                           sc_error *err)
{
    return sc_graph_read_text(ctx, text, strlen(text), "t.py", NULL, g, err);
}

START_TEST(test_read_mismatch)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = NULL;
    sc_error err;
    char buf[1024];
    sc_result r;
    const char *bad =
        "def forward(self, x: \"f32[4, 8][8, 1]cpu\", "
        "w: \"f32[8, 3][3, 1]cpu\"):\n"
        "    t = torch.ops.aten.t.default(w)\n"
        "    mm: \"f32[4, 8][8, 1]cpu\" = torch.ops.aten.mm.default(x, w)\n"
        "    return [mm]\n";
    const char *stride =
        "def forward(self, x: \"f32[4, 8][8, 1]cpu\"):\n"
        "    t: \"f32[8, 4][4, 1]cpu\" = torch.ops.aten.t.default(x)\n"
        "    return [t]\n";
    const char *dtype =
        "def forward(self, x: \"f32[4][1]cpu\"):\n"
        "    a: \"f32[4][1]cpu\" = torch.ops.aten.relu.default(x)\n"
        "    b: \"i64[4][1]cpu\" = torch.ops.aten.neg.default(a)\n"
        "    return [b]\n";
    const char *fine =
        "def forward(self, x: \"f32[1, 64][64, 1]cpu\"):\n"
        "    s: \"f32[1, 1][0, 0]cpu\" = "
        "torch.ops.aten.sum.dim_IntList(x, [1], True)\n"
        "    r = torch.ops.aten.relu.default(x)\n"
        "    u = torch.ops.my.unknown.default(r)\n"
        "    v: \"f32[3][1]cpu\" = torch.ops.aten.neg.default(u)\n"
        "    return [s, v]\n";

    ck_assert_int_eq(read_text(ctx, bad, &g, &err), SC_ERR_SHAPE);
    ck_assert_ptr_null(g);
    sc_error_format(&err, buf, sizeof buf);
    ck_assert_int_eq(err.line, 3);
    ck_assert_msg(strstr(buf, "t.py:3:") && strstr(buf, "'mm'") &&
                      strstr(buf, "dim 1") && strstr(buf, "= 3") &&
                      strstr(buf, "says 8"),
                  "%s", buf);

    ck_assert_int_eq(read_text(ctx, stride, &g, &err), SC_ERR_SHAPE);
    sc_error_format(&err, buf, sizeof buf);
    ck_assert_msg(strstr(buf, "t.py:2:") && strstr(buf, "stride of dim 0") &&
                      strstr(buf, "= 1") && strstr(buf, "says 4"),
                  "%s", buf);

    ck_assert_int_eq(read_text(ctx, dtype, &g, &err), SC_ERR_SHAPE);
    sc_error_format(&err, buf, sizeof buf);
    ck_assert_msg(strstr(buf, "t.py:3:") && strstr(buf, "dtype f32") &&
                      strstr(buf, "says i64"),
                  "%s", buf);

    /* strides of size-1 dims are not compared (1.13's fake tensors print
     * 0); a node without annotation takes the inferred result; an op
     * without a rule keeps its annotation, and so do its users */
    ck_assert_msg(read_text(ctx, fine, &g, &err) == SC_OK, "%s", err.message);
    sc_graph_node_result(g, sc_graph_find(g, "r"), &r);
    ck_assert_int_eq(r.kind, SC_RESULT_TENSOR);
    ck_assert_uint_eq(r.tensor.ndim, 2);
    sc_graph_node_result(g, sc_graph_find(g, "u"), &r);
    ck_assert_int_eq(r.kind, SC_RESULT_UNKNOWN);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

/* Read with hints: the symbols are backed while the rules run, and the
 * guards they record stay in the graph's environment. */
START_TEST(test_read_guards)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = NULL;
    sc_error err;
    sc_env *env;
    char *txt;
    const char *ok =
        "# symcut: hint s0=8 s1=8 s2=16\n"
        "def forward(self, x: \"f32[s0][1]cpu\", y: \"f32[s1][1]cpu\", "
        "z: \"f32[s0, s2][s2, 1]cpu\"):\n"
        "    a: \"f32[s0][1]cpu\" = torch.ops.aten.add.Tensor(x, y)\n"
        "    v = torch.ops.aten.view.default(z, [-1, 4])\n"
        "    return [a, v]\n";

    ck_assert_msg(sc_graph_read_text(ctx, ok, strlen(ok), "t.py", NULL, &g,
                                     &err) == SC_OK,
                  "%s", err.message);
    env = sc_graph_env(g);
    ck_assert_ptr_nonnull(env);
    /* broadcasting s0 with s1, then the view's divisibility */
    ck_assert_uint_eq(sc_env_guard_count(env), 2);
    txt = sc_expr_to_str(ctx, sc_env_guard_at(env, 0));
    ck_assert_str_eq(txt, "Eq(s0, s1)");
    free(txt);
    txt = sc_expr_to_str(ctx, sc_env_guard_at(env, 1));
    ck_assert_str_eq(txt, "Eq(Mod(s0*s2, 4), 0)");
    free(txt);
    /* v took the inferred result */
    {
        sc_result r;
        sc_graph_node_result(g, sc_graph_find(g, "v"), &r);
        ck_assert_int_eq(r.kind, SC_RESULT_TENSOR);
        ck_assert_uint_eq(r.tensor.ndim, 2);
        txt = sc_expr_to_str(ctx, r.tensor.sizes[0]);
        ck_assert_str_eq(txt, "(s0*s2)//4");
        free(txt);
    }
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

/* A graph is valid only under the guards its trace recorded, and its
 * annotations reflect them (`f32[4, 1]` for [s0, 1] once Eq(s0, 4) was
 * guarded).  An annotation equal to the rule's result at the hints is
 * accepted and the equation recorded as a guard; one that differs at the
 * hints is still an error. */
static const char guarded_text[] =
    "def forward(self, x: \"f32[s0, 1][1, 1]cpu\", "
    "y: \"f32[s0, s1][s1, 1]cpu\"):\n"
    "    a: \"f32[4, 1][1, 1]cpu\" = torch.ops.aten.relu.default(x)\n"
    "    b: \"f32[s0, s1][3, 1]cpu\" = torch.ops.aten.neg.default(y)\n"
    "    n: \"Sym(4)\" = torch.ops.aten.sym_size.int(y, 0)\n"
    "    return [a, b, n]\n";

static sc_status read_hinted(sc_ctx *ctx, const char *hints, const char *text,
                             sc_graph **g, sc_error *err)
{
    char buf[2048];
    snprintf(buf, sizeof buf, "# symcut: hint %s\n%s", hints, text);
    return read_text(ctx, buf, g, err);
}

START_TEST(test_read_annotation_guarded)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = NULL;
    sc_error err;
    sc_env *env;
    sc_guard_set *gs = NULL;
    char buf[1024], *txt;
    size_t i;
    bool seen_x = false, seen_y = false;

    /* equal at the hints: accepted, one guard per equation, each once */
    ck_assert_msg(read_hinted(ctx, "s0=4 s1=3", guarded_text, &g, &err) ==
                      SC_OK,
                  "%s", err.message);
    env = sc_graph_env(g);
    ck_assert_uint_eq(sc_env_guard_count(env), 2);
    txt = sc_expr_to_str(ctx, sc_env_guard_at(env, 0));
    ck_assert_str_eq(txt, "Eq(s0, 4)");
    free(txt);
    txt = sc_expr_to_str(ctx, sc_env_guard_at(env, 1));
    ck_assert_str_eq(txt, "Eq(s1, 3)");
    free(txt);
    ck_assert_uint_eq(sc_env_runtime_assert_count(env), 0);
    /* they are part of the guard set over the sources */
    ck_assert_int_eq(sc_env_produce_guards(env, &gs, &err), SC_OK);
    for (i = 0; i < sc_guard_set_count(gs); i++) {
        const char *t = sc_guard_set_text(gs, i);
        seen_x |= strcmp(t, "x.size(0) == 4") == 0;
        seen_y |= strcmp(t, "y.size(1) == 3") == 0;
    }
    ck_assert_msg(seen_x && seen_y, "guards: %zu, first %s",
                  sc_guard_set_count(gs),
                  sc_guard_set_count(gs) ? sc_guard_set_text(gs, 0) : "-");
    sc_guard_set_free(gs);
    sc_graph_free(g);
    g = NULL;

    /* different at the hints: the same errors as before */
    ck_assert_int_eq(read_hinted(ctx, "s0=5 s1=3", guarded_text, &g, &err),
                     SC_ERR_SHAPE);
    ck_assert_ptr_null(g);
    sc_error_format(&err, buf, sizeof buf);
    ck_assert_str_eq(buf, "t.py:3:5: node 'a' (torch.ops.aten.relu.default): "
                          "the shape rule gives the size of dim 0 = s0, the "
                          "annotation says 4");
    ck_assert_int_eq(read_hinted(ctx, "s0=4 s1=2", guarded_text, &g, &err),
                     SC_ERR_SHAPE);
    sc_error_format(&err, buf, sizeof buf);
    ck_assert_str_eq(buf, "t.py:4:5: node 'b' (torch.ops.aten.neg.default): "
                          "the shape rule gives the stride of dim 0 = s1, "
                          "the annotation says 3");
    {
        /* a SymInt value */
        static const char sym[] =
            "def forward(self, y: \"f32[s0, s1][s1, 1]cpu\"):\n"
            "    n: \"Sym(4)\" = torch.ops.aten.sym_size.int(y, 0)\n"
            "    return [n]\n";
        ck_assert_int_eq(read_hinted(ctx, "s0=5 s1=3", sym, &g, &err),
                         SC_ERR_SHAPE);
        sc_error_format(&err, buf, sizeof buf);
        ck_assert_str_eq(buf, "t.py:3:5: node 'n' (torch.ops.aten.sym_size."
                              "int): the shape rule gives the value = s0, "
                              "the annotation says 4");
        ck_assert_msg(read_hinted(ctx, "s0=4 s1=3", sym, &g, &err) == SC_OK,
                      "%s", err.message);
        env = sc_graph_env(g);
        ck_assert_uint_eq(sc_env_guard_count(env), 1);
        txt = sc_expr_to_str(ctx, sc_env_guard_at(env, 0));
        ck_assert_str_eq(txt, "Eq(s0, 4)");
        free(txt);
        sc_graph_free(g);
        g = NULL;
    }
    sc_ctx_free(ctx);
}
END_TEST

/* Unbacked symbols have no hints: an annotation that is not statically
 * false is torch._check'ed (a deferred runtime assertion); a statically
 * false one stays an error. */
START_TEST(test_read_annotation_unbacked)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = NULL;
    sc_error err;
    sc_env *env;
    char buf[1024], *txt;
    static const char ok[] =
        "def forward(self, x: \"f32[8][1]cpu\"):\n"
        "    nz: \"i64[u0, 1][1, u0]cpu\" = torch.ops.aten.nonzero.default(x)\n"
        "    a: \"i64[5, 1][1, 5]cpu\" = torch.ops.aten.neg.default(nz)\n"
        "    return [a]\n";
    static const char bad[] =
        "def forward(self, x: \"f32[8][1]cpu\"):\n"
        "    nz: \"i64[u0, 1][1, u0]cpu\" = torch.ops.aten.nonzero.default(x)\n"
        "    a: \"i64[9, 1][1, 9]cpu\" = torch.ops.aten.neg.default(nz)\n"
        "    return [a]\n";

    ck_assert_msg(read_text(ctx, ok, &g, &err) == SC_OK, "%s", err.message);
    env = sc_graph_env(g);
    ck_assert_uint_eq(sc_env_guard_count(env), 0);
    ck_assert_uint_eq(sc_env_runtime_assert_count(env), 1);
    txt = sc_expr_to_str(ctx, sc_env_runtime_assert(env, 0));
    ck_assert_str_eq(txt, "Eq(u0, 5)");
    free(txt);
    sc_graph_free(g);
    g = NULL;

    /* u0 <= 8 (nonzero of 8 elements): 9 is statically false */
    ck_assert_int_eq(read_text(ctx, bad, &g, &err), SC_ERR_SHAPE);
    ck_assert_ptr_null(g);
    sc_error_format(&err, buf, sizeof buf);
    ck_assert_str_eq(buf, "t.py:3:5: node 'a' (torch.ops.aten.neg.default): "
                          "the shape rule gives the size of dim 0 = u0, the "
                          "annotation says 9");
    sc_ctx_free(ctx);
}
END_TEST

/* The builder: metadata accepted at the hints records its guard; a call
 * refused for another difference records nothing. */
START_TEST(test_meta_guarded_builder)
{
    fx f;
    sc_value a[1];
    sc_expr *sz[2], *st[2];
    sc_result r;
    sc_node_id id;
    size_t before;

    fx_init(&f, "s0=4 s1=3");
    a[0] = sc_value_node(ph(&f, "y", SC_DTYPE_F32, "s0; s1", "s1; 1"));
    sc_result_init(&r);
    r.kind = SC_RESULT_TENSOR;
    r.tensor.dtype = SC_DTYPE_F32;
    r.tensor.ndim = 2;
    r.tensor.sizes = sz;
    r.tensor.strides = st;
    r.tensor.has_strides = true;
    /* size 4 (equal at the hints), stride 5 (not): refused, no guard */
    exprs(&f, "4; s1", sz, 2);
    exprs(&f, "5; 1", st, 2);
    before = sc_graph_node_count(f.g);
    ck_assert_int_eq(sc_graph_add_call(f.g, NULL, "torch.ops.aten.neg.default",
                                       1, a, 0, NULL, NULL, &r, &id, &f.err),
                     SC_ERR_SHAPE);
    ck_assert_msg(strstr(f.err.message, "the stride of dim 0 = s1, the "
                                        "annotation says 5") != NULL,
                  "%s", f.err.message);
    ck_assert_uint_eq(sc_graph_node_count(f.g), before);
    CHECK_GUARDS(&f, "");
    /* stride 3: accepted, both guards */
    exprs(&f, "3; 1", st, 2);
    ck_assert_msg(sc_graph_add_call(f.g, NULL, "torch.ops.aten.neg.default",
                                    1, a, 0, NULL, NULL, &r, &id,
                                    &f.err) == SC_OK,
                  "%s", f.err.message);
    CHECK_GUARDS(&f, "Eq(s0, 4); Eq(s1, 3)");
    /* the metadata stays as given */
    sc_graph_node_result(f.g, id, &r);
    result_text(&f, &r, f.err.message, sizeof f.err.message);
    ck_assert_str_eq(f.err.message, "f32[4, s1][3, 1]");
    fx_free(&f);
}
END_TEST

/* Out of memory anywhere while rules run: a clean SC_ERR_NOMEM (the
 * sanitizer build checks that nothing leaks). */
START_TEST(test_read_nomem)
{
    const char *text =
        "def forward(self, x: \"f32[s0, 64][64, 1]cpu\", "
        "w: \"f32[64, 32][32, 1]cpu\"):\n"
        "    t: \"f32[32, 64][1, 32]cpu\" = torch.ops.aten.t.default(w)\n"
        "    mm = torch.ops.aten.mm.default(x, w)\n"
        "    sp = torch.ops.aten.split.Tensor(mm, 8, 1)\n"
        "    g: \"f32[s0, 8][32, 1]cpu\" = sp[3]\n"
        "    v: \"f32[32*s0][1]cpu\" = torch.ops.aten.view.default(mm, [-1])\n"
        "    s = torch.ops.aten.sum.dim_IntList(v, [0], True)\n"
        "    return [g, s, t]\n";
    long n;
    bool succeeded = false;

    for (n = 0; n < 5000 && !succeeded; n++) {
        sc_ctx *ctx = sc_ctx_new();
        sc_graph *g = NULL;
        sc_error err;
        sc_status st;
        ck_assert_ptr_nonnull(ctx);
        sc__alloc_fail_after(n);
        st = sc_graph_read_text(ctx, text, strlen(text), "t.py", NULL, &g,
                                &err);
        sc__alloc_fail_after(-1);
        ck_assert_msg(st == SC_OK || st == SC_ERR_NOMEM,
                      "allocation %ld: %s %s", n, sc_status_name(st),
                      err.message);
        succeeded = st == SC_OK;
        sc_graph_free(g);
        sc_ctx_free(ctx);
    }
    ck_assert(succeeded);
}
END_TEST

/* ---- Every example: every node's rule runs and agrees with its annotation --- */

static char *examples_dir(void)
{
    const char *dir = getenv("SYMCUT_EXAMPLES_DIR");
    const char *top = getenv("top_srcdir");
    char *p = malloc(4096);
    ck_assert_ptr_nonnull(p);
    if (dir && *dir)
        snprintf(p, 4096, "%s", dir);
    else if (top)
        snprintf(p, 4096, "%s/examples", top);
    else
        snprintf(p, 4096, "examples");
    return p;
}

START_TEST(test_examples)
{
    char *dir = examples_dir();
    DIR *d = opendir(dir);
    struct dirent *e;
    size_t files = 0, checked = 0;

    ck_assert_msg(d != NULL, "cannot open %s", dir);
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name), i, n;
        char path[4400];
        sc_ctx *ctx;
        sc_graph *g;
        sc_error err;

        if (len < 4 || strcmp(e->d_name + len - 4, ".txt") != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        ctx = sc_ctx_new();
        ck_assert_msg(sc_graph_read_file(ctx, path, NULL, &g, &err) == SC_OK,
                      "%s: %s (line %d)", e->d_name, err.message, err.line);
        n = sc_graph_node_count(g);
        for (i = 0; i < n; i++) {
            sc_result r;
            sc_status st;
            if (sc_graph_node_kind(g, (sc_node_id)i) != SC_NODE_CALL ||
                sc__graph_node_op(g, (sc_node_id)i) == SC_OP_UNKNOWN)
                continue;
            /* the rule must decide (not just be skipped) and agree */
            st = sc__shape_infer(g, (sc_node_id)i, &r, &err);
            ck_assert_msg(st == SC_OK, "%s: %s: %s", e->d_name,
                          sc_graph_node_name(g, (sc_node_id)i), err.message);
            st = sc__shape_check_result(g, (sc_node_id)i, &r, &err);
            ck_assert_msg(st == SC_OK, "%s: %s", e->d_name, err.message);
            checked++;
        }
        sc_graph_free(g);
        sc_ctx_free(ctx);
        files++;
    }
    closedir(d);
    free(dir);
    ck_assert_uint_ge(files, 20);
    ck_assert_uint_ge(checked, 1900);
}
END_TEST


/* ---- torch 2.13's meta strides, size-1 dims included --------------------------- */

/* tests/data/kernels/meta_strides.txt (tools/meta/gen_stride_cases.py):
 * every annotation is what torch 2.13's meta tensors give; the rules must
 * give exactly those sizes and strides, also where a dim of size 1 makes
 * the reader's comparison skip the stride. */
START_TEST(test_meta_strides)
{
    const char *top = getenv("top_srcdir");
    char path[4096];
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g;
    sc_error err;
    size_t i, n, checked = 0;

    snprintf(path, sizeof path, "%s/tests/data/kernels/meta_strides.txt",
             top ? top : "..");
    ck_assert_msg(sc_graph_read_file(ctx, path, NULL, &g, &err) == SC_OK,
                  "%s: %s (line %d)", path, err.message, err.line);
    n = sc_graph_node_count(g);
    for (i = 0; i < n; i++) {
        sc_node_id id = (sc_node_id)i;
        sc_result want, got;
        size_t d;
        if (sc_graph_node_kind(g, id) != SC_NODE_CALL)
            continue;
        sc_graph_node_result(g, id, &want);
        if (want.kind != SC_RESULT_TENSOR)
            continue;
        ck_assert_msg(sc__shape_infer(g, id, &got, &err) == SC_OK, "%s: %s",
                      sc_graph_node_name(g, id), err.message);
        ck_assert_int_eq(got.kind, SC_RESULT_TENSOR);
        ck_assert_uint_eq(got.tensor.ndim, want.tensor.ndim);
        ck_assert_msg(got.tensor.strides != NULL, "%s: no strides",
                      sc_graph_node_name(g, id));
        for (d = 0; d < want.tensor.ndim; d++) {
            ck_assert_msg(got.tensor.sizes[d] == want.tensor.sizes[d],
                          "%s: size %zu", sc_graph_node_name(g, id), d);
            ck_assert_msg(got.tensor.strides[d] == want.tensor.strides[d],
                          "%s: the rule gives stride %zu = %s, torch %s",
                          sc_graph_node_name(g, id), d,
                          sc_expr_to_str(ctx, got.tensor.strides[d]),
                          sc_expr_to_str(ctx, want.tensor.strides[d]));
        }
        checked++;
    }
    ck_assert_uint_ge(checked, 23);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

Suite *shapes_suite(void)
{
    Suite *s = suite_create("shapes");
    TCase *tc = tcase_create("rules");
    tcase_add_test(tc, test_mm);
    tcase_add_test(tc, test_mm_mismatch);
    tcase_add_test(tc, test_broadcast);
    tcase_add_test(tc, test_pointwise_strides);
    tcase_add_test(tc, test_pointwise_order_guarded);
    tcase_add_test(tc, test_dtypes);
    tcase_add_test(tc, test_views);
    tcase_add_test(tc, test_view_strided);
    tcase_add_test(tc, test_expand);
    tcase_add_test(tc, test_slice_select);
    tcase_add_test(tc, test_split_cat_stack);
    tcase_add_test(tc, test_reductions);
    tcase_add_test(tc, test_convolution_pool);
    tcase_add_test(tc, test_norms_losses);
    tcase_add_test(tc, test_factories);
    tcase_add_test(tc, test_nonzero);
    tcase_add_test(tc, test_symints);
    suite_add_tcase(s, tc);
    tc = tcase_create("read");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_read_mismatch);
    tcase_add_test(tc, test_read_nomem);
    tcase_add_test(tc, test_read_guards);
    tcase_add_test(tc, test_read_annotation_guarded);
    tcase_add_test(tc, test_read_annotation_unbacked);
    tcase_add_test(tc, test_meta_guarded_builder);
    tcase_add_test(tc, test_examples);
    tcase_add_test(tc, test_meta_strides);
    suite_add_tcase(s, tc);
    return s;
}
