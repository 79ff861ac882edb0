/* symcut tests — kernels: tensors, views, conversions, type promotion,
 * .npy reading and writing, and the CPU kernels (called directly through
 * their uniform sc__kernel_call interface), including a numeric check of
 * fn_mm_gelu_sum against PyTorch's outputs. */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include <symcut/kernels.h>

#include "kernels/kernels-internal.h"
#include "tests/testutil.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define PI 3.14159265358979323846
#define EULER_E 2.71828182845904523536

Suite *kernels_suite(void);

/* ---- Helpers --------------------------------------------------------------- */

static sc__karg KT(const sc_tensor *t)
{
    sc__karg a;
    a.kind = SC__KARG_TENSOR;
    a.u.t = t;
    return a;
}

static sc__karg KI(int64_t i)
{
    sc__karg a;
    a.kind = SC__KARG_INT;
    a.u.i = i;
    return a;
}

static sc__karg KF(double f)
{
    sc__karg a;
    a.kind = SC__KARG_FLOAT;
    a.u.f = f;
    return a;
}

static sc__karg KB(bool b)
{
    sc__karg a;
    a.kind = SC__KARG_BOOL;
    a.u.b = b;
    return a;
}

static sc__karg KN(void)
{
    sc__karg a;
    a.kind = SC__KARG_NONE;
    return a;
}

static sc__karg KS(const char *s)
{
    sc__karg a;
    a.kind = SC__KARG_STR;
    a.u.s = s;
    return a;
}

static sc__karg KD(sc_dtype d)
{
    sc__karg a;
    a.kind = SC__KARG_DTYPE;
    a.u.dtype = d;
    return a;
}

static sc__karg KL(size_t n, const int64_t *v)
{
    sc__karg a;
    a.kind = SC__KARG_INTS;
    a.u.ints.n = n;
    a.u.ints.v = v;
    return a;
}

typedef sc_status (*kfn)(sc__kernel_call *);

/* Run a kernel; outs has room for 4. */
static sc_status run(kfn fn, size_t nargs, const sc__karg *args,
                     sc_tensor **outs, size_t *nouts, sc_error *err)
{
    sc__kernel_call c;
    sc_status st;
    memset(&c, 0, sizeof c);
    c.args = args;
    c.nargs = nargs;
    c.outs = outs;
    c.max_outs = 4;
    c.seed = 1234;
    c.node_key = 42;
    c.err = err;
    sc_error_init(err);
    st = fn(&c);
    *nouts = c.nouts;
    return st;
}

static sc_tensor *run1(kfn fn, size_t nargs, const sc__karg *args)
{
    sc_tensor *outs[4] = {NULL};
    size_t n;
    sc_error err;
    sc_status st = run(fn, nargs, args, outs, &n, &err);
    ck_assert_msg(st == SC_OK, "kernel failed: %s", err.message);
    ck_assert_uint_ge(n, 1);
    while (n > 1)
        sc_tensor_free(outs[--n]);
    return outs[0];
}

static sc_status run_fail(kfn fn, size_t nargs, const sc__karg *args)
{
    sc_tensor *outs[4] = {NULL};
    size_t n;
    sc_error err;
    sc_status st = run(fn, nargs, args, outs, &n, &err);
    ck_assert_msg(st != SC_OK, "kernel should have failed");
    ck_assert_uint_eq(n, 0);
    ck_assert_msg(err.message[0] != '\0', "no error message");
    return st;
}

static sc_tensor *mk(sc_dtype d, size_t ndim, const int64_t *sizes,
                     const double *vals)
{
    sc_tensor *t;
    sc_error err;
    size_t i, n;
    ck_assert(sc_tensor_new(d, ndim, sizes, &t, &err) == SC_OK);
    n = sc_tensor_numel(t);
    for (i = 0; vals && i < n; i++)
        sc__store_f64((char *)sc_tensor_data(t) + i * sc_tensor_itemsize(d),
                      d, vals[i]);
    return t;
}

static sc_tensor *mk1(sc_dtype d, int64_t n, const double *vals)
{
    return mk(d, 1, &n, vals);
}

static sc_tensor *mk2(sc_dtype d, int64_t r, int64_t c, const double *vals)
{
    int64_t s[2];
    s[0] = r;
    s[1] = c;
    return mk(d, 2, s, vals);
}

/* A tensor of pseudo-random values in [-2, 2) (a fixed LCG). */
static sc_tensor *mkrand(sc_dtype d, size_t ndim, const int64_t *sizes,
                         uint64_t seed)
{
    sc_tensor *t = mk(d, ndim, sizes, NULL);
    size_t i, n = sc_tensor_numel(t);
    for (i = 0; i < n; i++) {
        double v;
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        v = (double)(seed >> 40) / (double)(1ull << 24) * 4.0 - 2.0;
        sc__store_f64((char *)sc_tensor_data(t) + i * sc_tensor_itemsize(d),
                      d, v);
    }
    return t;
}

static void expect_vals(const sc_tensor *t, size_t n, const double *want,
                        double tol)
{
    size_t i;
    ck_assert_uint_eq(sc_tensor_numel(t), n);
    for (i = 0; i < n; i++) {
        double got = sc_tensor_item_double(t, i);
        if (isnan(want[i])) {
            ck_assert_msg(isnan(got), "element %zu: want nan, got %.9g", i,
                          got);
            continue;
        }
        ck_assert_msg(fabs(got - want[i]) <= tol * (1 + fabs(want[i])),
                      "element %zu: got %.9g, want %.9g", i, got, want[i]);
    }
}

static void expect_shape(const sc_tensor *t, size_t ndim, ...)
{
    va_list ap;
    size_t i;
    ck_assert_uint_eq(t->ndim, ndim);
    va_start(ap, ndim);
    for (i = 0; i < ndim; i++) {
        int64_t s = va_arg(ap, int64_t);
        ck_assert_int_eq(t->sizes[i], s);
    }
    va_end(ap);
}

/* Max relative difference of two tensors of the same shape. */
static double max_rel_diff(const sc_tensor *a, const sc_tensor *b,
                           double atol)
{
    size_t i, n = sc_tensor_numel(a);
    double m = 0;
    ck_assert(sc_tensor_same_shape(a, b));
    for (i = 0; i < n; i++) {
        double x = sc_tensor_item_double(a, i), y = sc_tensor_item_double(b, i);
        double d = fabs(x - y);
        if (d <= atol)
            continue;
        d /= fabs(y) > 0 ? fabs(y) : 1;
        if (d > m)
            m = d;
    }
    return m;
}

static bool bits_equal(const sc_tensor *a, const sc_tensor *b)
{
    return a->dtype == b->dtype && sc_tensor_same_shape(a, b) &&
           sc_tensor_is_contiguous(a) && sc_tensor_is_contiguous(b) &&
           memcmp(sc_tensor_data(a), sc_tensor_data(b),
                  sc_tensor_nbytes(a)) == 0;
}

static const char *data_dir(void)
{
    static char buf[1024];
    const char *top = getenv("top_srcdir");
    snprintf(buf, sizeof buf, "%s/tests/data/kernels", top ? top : ".");
    return buf;
}

static sc_tensor *load(const char *rel)
{
    char path[1200];
    sc_tensor *t;
    sc_error err;
    snprintf(path, sizeof path, "%s/%s", data_dir(), rel);
    ck_assert_msg(sc_npy_read(path, &t, &err) == SC_OK, "%s: %s", path,
                  err.message);
    return t;
}

/* ---- dtypes and conversions -------------------------------------------- */

START_TEST(test_f16_rounding)
{
    static const struct {
        float f;
        uint16_t h;
    } cases[] = {
        {0.0f, 0x0000}, {-0.0f, 0x8000}, {1.0f, 0x3c00}, {-2.0f, 0xc000},
        {65504.0f, 0x7bff}, {65519.0f, 0x7bff}, {65520.0f, 0x7c00},
        {1e10f, 0x7c00}, {INFINITY, 0x7c00}, {-INFINITY, 0xfc00},
        {0x1p-14f, 0x0400}, {0x1p-24f, 0x0001}, {0x1p-25f, 0x0000},
        {0x1.8p-25f, 0x0001}, {0x1.8p-24f, 0x0002}, /* tie to even: 2 */
        {0x1.4p-24f, 0x0001}, {0x1p-26f, 0x0000},
        {1.0f + 0x1p-11f, 0x3c00},                   /* tie -> even */
        {1.0f + 0x1.8p-10f, 0x3c02},                 /* tie -> even up */
        {1.0f + 0x1.2p-11f, 0x3c01},
        {0.1f, 0x2e66}, {3.14159265f, 0x4248},
        {0x1.ffcp-15f, 0x0400},                      /* rounds up to normal */
    };
    size_t i;
    for (i = 0; i < ARRAY_SIZE(cases); i++)
        ck_assert_msg(sc_f32_to_f16(cases[i].f) == cases[i].h,
                      "case %zu: %a -> 0x%04x, want 0x%04x", i,
                      (double)cases[i].f, sc_f32_to_f16(cases[i].f),
                      cases[i].h);
    ck_assert_uint_eq(sc_f32_to_f16(NAN) & 0x7fff, 0x7e00);
    /* f16 -> f32 -> f16 is the identity on every non-NaN pattern */
    for (i = 0; i < 65536; i++) {
        uint16_t h = (uint16_t)i;
        float f = sc_f16_to_f32(h);
        if (isnan(f)) {
            ck_assert((h & 0x7c00) == 0x7c00 && (h & 0x3ff));
            continue;
        }
        if (sc_f32_to_f16(f) != h)
            ck_abort_msg("f16 0x%04x does not round-trip", (unsigned)h);
    }
    ck_assert(sc_f16_to_f32(0x0001) == 0x1p-24f);
    ck_assert(sc_f16_to_f32(0x7bff) == 65504.0f);
}
END_TEST

START_TEST(test_bf16_rounding)
{
    ck_assert_uint_eq(sc_f32_to_bf16(1.0f), 0x3f80);
    ck_assert_uint_eq(sc_f32_to_bf16(1.0f + 0x1p-8f), 0x3f80);  /* tie even */
    ck_assert_uint_eq(sc_f32_to_bf16(1.0f + 0x1.8p-7f), 0x3f82); /* tie up */
    ck_assert_uint_eq(sc_f32_to_bf16(1.0f + 0x1.2p-8f), 0x3f81);
    ck_assert_uint_eq(sc_f32_to_bf16(-INFINITY), 0xff80);
    ck_assert_uint_eq(sc_f32_to_bf16(NAN), 0x7fc0);
    ck_assert_uint_eq(sc_f32_to_bf16(3.4028235e38f), 0x7f80); /* overflow */
    ck_assert_uint_eq(sc_f32_to_bf16(0x1p-133f), 0x0001);     /* subnormal */
    ck_assert(sc_bf16_to_f32(0x3f80) == 1.0f);
    ck_assert(sc_bf16_to_f32(0xc040) == -3.0f);
}
END_TEST

START_TEST(test_conversions)
{
    int64_t n = 8;
    static const double v[] = {2.9, -2.9, 300.0, -129.0, 0.0, NAN, 1e30,
                               -0.5};
    sc_tensor *t = mk1(SC_DTYPE_F64, n, v), *r;
    sc_error err;

    ck_assert(sc_tensor_to_dtype(t, SC_DTYPE_I64, &r, &err) == SC_OK);
    {
        static const double w[] = {2, -2, 300, -129, 0, 0,
                                   9223372036854775807.0, 0};
        expect_vals(r, 8, w, 0);
        ck_assert_int_eq(sc_tensor_item_int64(r, 6), INT64_MAX);
    }
    sc_tensor_free(r);
    ck_assert(sc_tensor_to_dtype(t, SC_DTYPE_U8, &r, &err) == SC_OK);
    {
        static const double w[] = {2, 254, 44, 127, 0, 0, 255, 0};
        expect_vals(r, 8, w, 0);
    }
    sc_tensor_free(r);
    ck_assert(sc_tensor_to_dtype(t, SC_DTYPE_I8, &r, &err) == SC_OK);
    {
        static const double w[] = {2, -2, 44, 127, 0, 0, -1, 0};
        expect_vals(r, 8, w, 0);
    }
    sc_tensor_free(r);
    ck_assert(sc_tensor_to_dtype(t, SC_DTYPE_B8, &r, &err) == SC_OK);
    {
        static const double w[] = {1, 1, 1, 1, 0, 1, 1, 1};
        expect_vals(r, 8, w, 0);
    }
    sc_tensor_free(r);
    ck_assert(sc_tensor_to_dtype(t, SC_DTYPE_F16, &r, &err) == SC_OK);
    ck_assert(sc_tensor_item_double(r, 2) == 300.0);
    ck_assert(isinf(sc_tensor_item_double(r, 6)));
    sc_tensor_free(r);
    sc_tensor_free(t);
    /* unsupported dtypes are rejected */
    ck_assert(sc_tensor_new(SC_DTYPE_C64, 1, &n, &t, &err) ==
              SC_ERR_UNSUPPORTED);
    ck_assert_ptr_null(t);
}
END_TEST

START_TEST(test_promotion_table)
{
    static const struct {
        sc_dtype a, b, r;
    } cases[] = {
        {SC_DTYPE_B8, SC_DTYPE_B8, SC_DTYPE_B8},
        {SC_DTYPE_B8, SC_DTYPE_U8, SC_DTYPE_U8},
        {SC_DTYPE_U8, SC_DTYPE_I8, SC_DTYPE_I16},
        {SC_DTYPE_U8, SC_DTYPE_I32, SC_DTYPE_I32},
        {SC_DTYPE_I8, SC_DTYPE_I64, SC_DTYPE_I64},
        {SC_DTYPE_I32, SC_DTYPE_F16, SC_DTYPE_F16},
        {SC_DTYPE_F16, SC_DTYPE_BF16, SC_DTYPE_F32},
        {SC_DTYPE_BF16, SC_DTYPE_F32, SC_DTYPE_F32},
        {SC_DTYPE_F32, SC_DTYPE_F64, SC_DTYPE_F64},
        {SC_DTYPE_I64, SC_DTYPE_F32, SC_DTYPE_F32},
        {SC_DTYPE_B8, SC_DTYPE_BF16, SC_DTYPE_BF16},
    };
    size_t i;
    for (i = 0; i < ARRAY_SIZE(cases); i++) {
        sc_dtype r1, r2;
        ck_assert(sc_dtype_promote(cases[i].a, cases[i].b, &r1));
        ck_assert(sc_dtype_promote(cases[i].b, cases[i].a, &r2));
        ck_assert_msg(r1 == cases[i].r && r2 == cases[i].r, "case %zu", i);
    }
}
END_TEST

START_TEST(test_result_type)
{
    static const struct {
        sc_operand a, b;
        sc_dtype r;
    } cases[] = {
        /* dimensioned int tensor + Python float -> default float */
        {{SC_OPERAND_TENSOR, SC_DTYPE_I64}, {SC_OPERAND_FLOAT, 0},
         SC_DTYPE_F32},
        /* f16 tensor + Python float stays f16 */
        {{SC_OPERAND_TENSOR, SC_DTYPE_F16}, {SC_OPERAND_FLOAT, 0},
         SC_DTYPE_F16},
        /* i32 tensor + Python int stays i32 */
        {{SC_OPERAND_TENSOR, SC_DTYPE_I32}, {SC_OPERAND_INT, 0},
         SC_DTYPE_I32},
        /* u8 tensor + 0-d i64 tensor stays u8 (same category) */
        {{SC_OPERAND_TENSOR, SC_DTYPE_U8}, {SC_OPERAND_ZERO_DIM, SC_DTYPE_I64},
         SC_DTYPE_U8},
        /* i32 tensor + 0-d f64 tensor -> f64 (higher category) */
        {{SC_OPERAND_TENSOR, SC_DTYPE_I32}, {SC_OPERAND_ZERO_DIM, SC_DTYPE_F64},
         SC_DTYPE_F64},
        /* f32 tensor + 0-d f64 -> f32 */
        {{SC_OPERAND_TENSOR, SC_DTYPE_F32}, {SC_OPERAND_ZERO_DIM, SC_DTYPE_F64},
         SC_DTYPE_F32},
        /* bool tensor + Python int -> i64 */
        {{SC_OPERAND_TENSOR, SC_DTYPE_B8}, {SC_OPERAND_INT, 0}, SC_DTYPE_I64},
        /* bool tensor + Python bool -> bool */
        {{SC_OPERAND_TENSOR, SC_DTYPE_B8}, {SC_OPERAND_BOOL, 0}, SC_DTYPE_B8},
        /* two 0-d tensors promote normally */
        {{SC_OPERAND_ZERO_DIM, SC_DTYPE_I32},
         {SC_OPERAND_ZERO_DIM, SC_DTYPE_F64}, SC_DTYPE_F64},
        /* 0-d i64 + Python float -> f32 */
        {{SC_OPERAND_ZERO_DIM, SC_DTYPE_I64}, {SC_OPERAND_FLOAT, 0},
         SC_DTYPE_F32},
        /* f32 tensor + i64 tensor -> f32 */
        {{SC_OPERAND_TENSOR, SC_DTYPE_I64}, {SC_OPERAND_TENSOR, SC_DTYPE_F32},
         SC_DTYPE_F32},
    };
    size_t i;
    for (i = 0; i < ARRAY_SIZE(cases); i++) {
        sc_operand ops[2];
        sc_dtype r;
        sc_error err;
        ops[0] = cases[i].a;
        ops[1] = cases[i].b;
        ck_assert(sc_result_type(2, ops, &r, &err) == SC_OK);
        ck_assert_msg(r == cases[i].r, "case %zu: got %d want %d", i, (int)r,
                      (int)cases[i].r);
    }
}
END_TEST

/* ---- Tensors and views ------------------------------------------------------ */

START_TEST(test_views)
{
    static const double v[] = {0, 1, 2, 3, 4, 5};
    sc_tensor *t = mk2(SC_DTYPE_F32, 2, 3, v), *tt, *s, *e, *u, *q, *r, *c;
    sc_error err;
    int64_t idx[2] = {1, 0}, sz[3] = {4, 2, 3}, bad[2] = {4, 3};
    double x;

    ck_assert(sc_tensor_is_contiguous(t));
    ck_assert(sc_tensor_transpose(t, 0, -1, &tt, &err) == SC_OK);
    expect_shape(tt, 2, (int64_t)3, (int64_t)2);
    ck_assert(!sc_tensor_is_contiguous(tt));
    ck_assert(tt->storage == t->storage && t->storage->refcount == 2);
    {
        static const double w[] = {0, 3, 1, 4, 2, 5};
        expect_vals(tt, 6, w, 0);
    }
    ck_assert(sc_tensor_get_double(tt, idx, &x, &err) == SC_OK);
    ck_assert(x == 1);
    /* writes through a view are visible in the base */
    ck_assert(sc_tensor_set_double(tt, idx, 42, &err) == SC_OK);
    ck_assert(sc_tensor_item_double(t, 1) == 42);
    idx[0] = 3;
    ck_assert(sc_tensor_get_double(tt, idx, &x, &err) == SC_ERR_INVALID);
    ck_assert(sc_tensor_select(t, 1, -1, &s, &err) == SC_OK);
    {
        static const double w[] = {2, 5};
        expect_vals(s, 2, w, 0);
    }
    ck_assert(sc_tensor_slice(t, 1, 1, INT64_MAX, 2, &q, &err) == SC_OK);
    {
        static const double w[] = {42, 4};
        expect_vals(q, 2, w, 0);
        expect_shape(q, 2, (int64_t)2, (int64_t)1);
    }
    ck_assert(sc_tensor_expand(t, 3, sz, &e, &err) == SC_OK);
    ck_assert_int_eq(e->strides[0], 0);
    ck_assert(sc_tensor_expand(t, 2, bad, &u, &err) == SC_ERR_SHAPE);
    ck_assert(sc_tensor_unsqueeze(t, -1, &u, &err) == SC_OK);
    expect_shape(u, 3, (int64_t)2, (int64_t)3, (int64_t)1);
    /* a view of a transposed tensor is impossible; reshape copies */
    {
        int64_t flat = -1;
        ck_assert(sc_tensor_view(tt, 1, &flat, &r, &err) == SC_ERR_SHAPE);
        ck_assert(sc_tensor_reshape(tt, 1, &flat, &r, &err) == SC_OK);
        ck_assert(r->storage != t->storage);
        {
            static const double w[] = {0, 3, 42, 4, 2, 5};
            expect_vals(r, 6, w, 0);
        }
        sc_tensor_free(r);
        ck_assert(sc_tensor_view(t, 1, &flat, &r, &err) == SC_OK);
        ck_assert(r->storage == t->storage);
        sc_tensor_free(r);
    }
    ck_assert(sc_tensor_clone(tt, &c, &err) == SC_OK);
    ck_assert(sc_tensor_is_contiguous(c));
    ck_assert(c->storage->refcount == 1);
    sc_tensor_free(t); /* the views keep the storage alive */
    ck_assert(sc_tensor_item_double(tt, 2) == 42);
    sc_tensor_free(tt);
    sc_tensor_free(s);
    sc_tensor_free(q);
    sc_tensor_free(e);
    sc_tensor_free(u);
    sc_tensor_free(c);
}
END_TEST

START_TEST(test_view_kernels)
{
    static const double v[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
    int64_t sz[3] = {2, 3, 2}, perm[3] = {2, 0, 1}, vs[2] = {-1, 4};
    sc_tensor *t = mk(SC_DTYPE_I64, 3, sz, v), *r;
    sc__karg a[3];

    a[0] = KT(t);
    a[1] = KL(3, perm);
    r = run1(sc__kernel_permute, 2, a);
    expect_shape(r, 3, (int64_t)2, (int64_t)2, (int64_t)3);
    ck_assert_int_eq(sc_tensor_item_int64(r, 1), 2);
    sc_tensor_free(r);
    a[1] = KL(2, vs);
    r = run1(sc__kernel_view, 2, a);
    expect_shape(r, 2, (int64_t)3, (int64_t)4);
    sc_tensor_free(r);
    a[1] = KI(1);
    a[2] = KI(-1);
    r = run1(sc__kernel_transpose, 3, a);
    expect_shape(r, 3, (int64_t)2, (int64_t)2, (int64_t)3);
    sc_tensor_free(r);
    r = run1(sc__kernel_clone, 1, a);
    ck_assert(sc_tensor_is_contiguous(r));
    sc_tensor_free(r);
    run_fail(sc__kernel_t, 1, a); /* 3-d */
    sc_tensor_free(t);
}
END_TEST

START_TEST(test_cat_stack)
{
    static const double a1[] = {1, 2, 3, 4}, b1[] = {5, 6};
    sc_tensor *a = mk2(SC_DTYPE_F32, 2, 2, a1), *b = mk2(SC_DTYPE_I64, 1, 2, b1),
              *r;
    const sc_tensor *list[2];
    sc__karg args[2];
    list[0] = a;
    list[1] = b;
    args[0].kind = SC__KARG_TENSORS;
    args[0].u.tensors.n = 2;
    args[0].u.tensors.v = list;
    args[1] = KI(0);
    r = run1(sc__kernel_cat, 2, args);
    expect_shape(r, 2, (int64_t)3, (int64_t)2);
    ck_assert(r->dtype == SC_DTYPE_F32);
    {
        static const double w[] = {1, 2, 3, 4, 5, 6};
        expect_vals(r, 6, w, 0);
    }
    sc_tensor_free(r);
    args[1] = KI(1);
    run_fail(sc__kernel_cat, 2, args); /* sizes differ in dim 0 */
    list[1] = a;
    args[1] = KI(-1);
    r = run1(sc__kernel_stack, 2, args);
    expect_shape(r, 3, (int64_t)2, (int64_t)2, (int64_t)2);
    {
        static const double w[] = {1, 1, 2, 2, 3, 3, 4, 4};
        expect_vals(r, 8, w, 0);
    }
    sc_tensor_free(r);
    sc_tensor_free(a);
    sc_tensor_free(b);
}
END_TEST

/* ---- .npy --------------------------------------------------------------- */

/* A .npy buffer with the given header text (version 1.0) and data. */
static size_t make_npy(unsigned char *out, const char *header,
                       const void *data, size_t dlen)
{
    size_t h = strlen(header);
    memcpy(out, "\x93NUMPY\x01\x00", 8);
    out[8] = (unsigned char)(h & 0xff);
    out[9] = (unsigned char)(h >> 8);
    memcpy(out + 10, header, h);
    if (dlen)
        memcpy(out + 10 + h, data, dlen);
    return 10 + h + dlen;
}

START_TEST(test_npy_real_files)
{
    sc_tensor *x = load("fn_mm_gelu_sum/primals_1.npy");
    sc_tensor *s = load("fn_mm_gelu_sum/out_0.npy");
    ck_assert(x->dtype == SC_DTYPE_F32);
    expect_shape(x, 2, (int64_t)8, (int64_t)16);
    ck_assert(s->ndim == 0 && sc_tensor_numel(s) == 1);
    sc_tensor_free(x);
    sc_tensor_free(s);
}
END_TEST

START_TEST(test_npy_roundtrip)
{
    static const sc_dtype dts[] = {SC_DTYPE_F32, SC_DTYPE_F64, SC_DTYPE_F16,
                                   SC_DTYPE_I64, SC_DTYPE_I32, SC_DTYPE_I16,
                                   SC_DTYPE_I8,  SC_DTYPE_U8,  SC_DTYPE_B8};
    int64_t sz[3] = {2, 3, 4};
    size_t i, nd;
    char path[] = "/tmp/symcut-npy-XXXXXX";
    char file[64];
    int fd = mkstemp(path);
    ck_assert(fd >= 0);
    close(fd);
    unlink(path);
    snprintf(file, sizeof file, "%s.npy", path);
    for (i = 0; i < ARRAY_SIZE(dts); i++)
        for (nd = 0; nd <= 3; nd++) {
            sc_tensor *t = mkrand(dts[i], nd, sz + 3 - nd, i * 7 + nd), *tt,
                      *back, *view;
            void *buf;
            size_t len;
            sc_error err;
            /* write a transposed view: the file must hold C order */
            if (nd >= 2)
                ck_assert(sc_tensor_transpose(t, 0, 1, &view, &err) == SC_OK);
            else
                ck_assert(sc_tensor_alias(t, &view, &err) == SC_OK);
            ck_assert(sc_npy_write_buffer(view, &buf, &len, &err) == SC_OK);
            ck_assert_uint_eq(len % 64, (sc_tensor_nbytes(t)) % 64);
            ck_assert(sc_npy_read_buffer(buf, len, "mem", &back, &err) ==
                      SC_OK);
            ck_assert(sc_tensor_clone(view, &tt, &err) == SC_OK);
            ck_assert_msg(bits_equal(tt, back), "dtype %d ndim %zu",
                          (int)dts[i], nd);
            free(buf);
            sc_tensor_free(back);
            ck_assert(sc_npy_write(view, file, &err) == SC_OK);
            ck_assert(sc_npy_read(file, &back, &err) == SC_OK);
            ck_assert(bits_equal(tt, back));
            sc_tensor_free(back);
            sc_tensor_free(tt);
            sc_tensor_free(view);
            sc_tensor_free(t);
        }
    unlink(file);
    /* a failing write leaves nothing behind */
    {
        sc_tensor *t = mk1(SC_DTYPE_F32, 2, NULL);
        sc_error err;
        ck_assert(sc_npy_write(t, "/nonexistent-dir/x.npy", &err) ==
                  SC_ERR_IO);
        sc_tensor_free(t);
        t = mk1(SC_DTYPE_BF16, 2, NULL);
        ck_assert(sc_npy_write(t, file, &err) == SC_ERR_UNSUPPORTED);
        ck_assert(access(file, F_OK) != 0);
        sc_tensor_free(t);
    }
}
END_TEST

START_TEST(test_npy_variants)
{
    unsigned char buf[512];
    sc_tensor *t;
    sc_error err;
    size_t len;
    /* big-endian int32 */
    static const unsigned char be[] = {0, 0, 1, 2, 0xff, 0xff, 0xff, 0xfe};
    /* fortran order 2x3: column-major 0..5 */
    static const double fo[] = {0, 1, 2, 3, 4, 5};
    len = make_npy(buf, "{'descr': '>i4', 'fortran_order': False, "
                        "'shape': (2,), }\n",
                   be, sizeof be);
    ck_assert(sc_npy_read_buffer(buf, len, NULL, &t, &err) == SC_OK);
    ck_assert(t->dtype == SC_DTYPE_I32);
    ck_assert_int_eq(sc_tensor_item_int64(t, 0), 258);
    ck_assert_int_eq(sc_tensor_item_int64(t, 1), -2);
    sc_tensor_free(t);
    len = make_npy(buf, "{\"descr\":\"<f8\",\"fortran_order\":True,"
                        "\"shape\":(2,3)}",
                   fo, sizeof fo);
    ck_assert(sc_npy_read_buffer(buf, len, NULL, &t, &err) == SC_OK);
    {
        static const double w[] = {0, 2, 4, 1, 3, 5};
        expect_vals(t, 6, w, 0);
        ck_assert(sc_tensor_is_contiguous(t));
    }
    sc_tensor_free(t);
    len = make_npy(buf, "{'descr': '|b1', 'fortran_order': False, "
                        "'shape': (0, 5), }\n", NULL, 0);
    ck_assert(sc_npy_read_buffer(buf, len, NULL, &t, &err) == SC_OK);
    ck_assert_uint_eq(sc_tensor_numel(t), 0);
    sc_tensor_free(t);
}
END_TEST

START_TEST(test_npy_malformed)
{
    static const struct {
        const char *header;
        size_t data;
        sc_status code;
    } cases[] = {
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", 7,
         SC_ERR_PARSE},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", 9,
         SC_ERR_PARSE},
        {"{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", 16,
         SC_ERR_UNSUPPORTED},
        {"{'descr': 'f4', 'fortran_order': False, 'shape': (2,), }", 8,
         SC_ERR_UNSUPPORTED},
        {"{'descr': '|f4', 'fortran_order': False, 'shape': (2,), }", 8,
         SC_ERR_PARSE},
        {"{'descr': '<f4', 'fortran_order': False}", 8, SC_ERR_PARSE},
        {"{'descr': '<f4', 'fortran_order': Maybe, 'shape': (2,), }", 8,
         SC_ERR_PARSE},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,,), }", 8,
         SC_ERR_PARSE},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }", 8,
         SC_ERR_PARSE},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999"
         "999999,), }", 8, SC_ERR_OVERFLOW},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, "
         "4294967296, 4294967296), }", 8, SC_ERR_OVERFLOW},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}",
         8, SC_ERR_PARSE},
        {"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, "
         "'shape': (2,)}", 8, SC_ERR_PARSE},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} junk", 8,
         SC_ERR_PARSE},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,)", 8,
         SC_ERR_PARSE},
        {"{'descr': '<f4", 8, SC_ERR_PARSE},
        {"", 0, SC_ERR_PARSE},
        {"[1, 2]", 0, SC_ERR_PARSE},
        {"{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': ()}", 4,
         SC_ERR_UNSUPPORTED},
    };
    unsigned char buf[512], zeros[64] = {0};
    size_t i, len;
    sc_tensor *t;
    sc_error err;

    for (i = 0; i < ARRAY_SIZE(cases); i++) {
        sc_status st;
        len = make_npy(buf, cases[i].header, zeros, cases[i].data);
        st = sc_npy_read_buffer(buf, len, "case.npy", &t, &err);
        ck_assert_msg(st == cases[i].code, "case %zu: got %s (%s)", i,
                      sc_status_name(st), err.message);
        ck_assert_ptr_null(t);
        ck_assert_msg(strstr(err.message, "at byte ") != NULL,
                      "case %zu: no offset in '%s'", i, err.message);
        ck_assert_str_eq(err.file, "case.npy");
    }
    /* bad magic, bad version, truncated prefix, header length too big */
    len = make_npy(buf, "{'descr': '<f4', 'fortran_order': False, "
                        "'shape': (), }", zeros, 4);
    buf[1] = 'X';
    ck_assert(sc_npy_read_buffer(buf, len, NULL, &t, &err) == SC_ERR_PARSE);
    ck_assert(strstr(err.message, "at byte 1") != NULL);
    buf[1] = 'N';
    buf[6] = 9;
    ck_assert(sc_npy_read_buffer(buf, len, NULL, &t, &err) ==
              SC_ERR_UNSUPPORTED);
    buf[6] = 1;
    for (i = 0; i < 10; i++)
        ck_assert(sc_npy_read_buffer(buf, i, NULL, &t, &err) != SC_OK);
    buf[9] = 0x7f;
    ck_assert(sc_npy_read_buffer(buf, len, NULL, &t, &err) == SC_ERR_PARSE);
    ck_assert(strstr(err.message, "beyond the end") != NULL);
    /* every truncation of a valid file fails cleanly */
    buf[9] = 0;
    {
        size_t full = len;
        ck_assert(sc_npy_read_buffer(buf, full, NULL, &t, &err) == SC_OK);
        sc_tensor_free(t);
        for (i = 0; i < full; i++)
            ck_assert(sc_npy_read_buffer(buf, i, NULL, &t, &err) != SC_OK);
    }
    ck_assert(sc_npy_read("/nonexistent/x.npy", &t, &err) == SC_ERR_IO);
}
END_TEST

/* ---- Pointwise ------------------------------------------------------------ */

START_TEST(test_unary)
{
    static const double x[] = {-2, -0.5, 0, 0.5, 3};
    sc_tensor *t = mk1(SC_DTYPE_F32, 5, x), *r;
    sc__karg a[2];
    double w[5];
    size_t i;

    a[0] = KT(t);
    r = run1(sc__kernel_relu, 1, a);
    {
        static const double e[] = {0, 0, 0, 0.5, 3};
        expect_vals(r, 5, e, 0);
    }
    sc_tensor_free(r);
    r = run1(sc__kernel_gelu, 1, a);
    for (i = 0; i < 5; i++)
        w[i] = x[i] * 0.5 * (1 + erf(x[i] / sqrt(2.0)));
    expect_vals(r, 5, w, 1e-6);
    sc_tensor_free(r);
    a[1] = KS("tanh");
    r = run1(sc__kernel_gelu, 2, a);
    for (i = 0; i < 5; i++)
        w[i] = 0.5 * x[i] *
               (1 + tanh(sqrt(2 / PI) * (x[i] + 0.044715 * pow(x[i], 3))));
    expect_vals(r, 5, w, 1e-6);
    sc_tensor_free(r);
    a[1] = KS("bogus");
    run_fail(sc__kernel_gelu, 2, a);
    r = run1(sc__kernel_sigmoid, 1, a);
    for (i = 0; i < 5; i++)
        w[i] = 1 / (1 + exp(-x[i]));
    expect_vals(r, 5, w, 1e-6);
    sc_tensor_free(r);
    r = run1(sc__kernel_silu, 1, a);
    for (i = 0; i < 5; i++)
        w[i] = x[i] / (1 + exp(-x[i]));
    expect_vals(r, 5, w, 1e-6);
    sc_tensor_free(r);
    r = run1(sc__kernel_tanh, 1, a);
    for (i = 0; i < 5; i++)
        w[i] = tanh(x[i]);
    expect_vals(r, 5, w, 1e-6);
    sc_tensor_free(r);
    r = run1(sc__kernel_rsqrt, 1, a);
    ck_assert(isnan(sc_tensor_item_double(r, 0)));
    ck_assert(isinf(sc_tensor_item_double(r, 2)));
    ck_assert(fabs(sc_tensor_item_double(r, 4) - 1 / sqrt(3.0)) < 1e-6);
    sc_tensor_free(r);
    r = run1(sc__kernel_erf, 1, a);
    for (i = 0; i < 5; i++)
        w[i] = erf(x[i]);
    expect_vals(r, 5, w, 1e-6);
    sc_tensor_free(r);
    r = run1(sc__kernel_neg, 1, a);
    ck_assert(sc_tensor_item_double(r, 4) == -3);
    sc_tensor_free(r);
    sc_tensor_free(t);
    /* integer inputs: exp promotes to f32, neg keeps i64, gelu rejects */
    {
        static const double xi[] = {1, -2};
        t = mk1(SC_DTYPE_I64, 2, xi);
        a[0] = KT(t);
        r = run1(sc__kernel_exp, 1, a);
        ck_assert(r->dtype == SC_DTYPE_F32);
        ck_assert(fabs(sc_tensor_item_double(r, 0) - EULER_E) < 1e-6);
        sc_tensor_free(r);
        r = run1(sc__kernel_neg, 1, a);
        ck_assert(r->dtype == SC_DTYPE_I64);
        ck_assert_int_eq(sc_tensor_item_int64(r, 1), 2);
        sc_tensor_free(r);
        run_fail(sc__kernel_gelu, 1, a);
        sc_tensor_free(t);
    }
}
END_TEST

START_TEST(test_unary_dtypes)
{
    /* exp on every float dtype agrees with f64 up to the dtype's rounding */
    static const sc_dtype dts[] = {SC_DTYPE_F32, SC_DTYPE_F64, SC_DTYPE_F16,
                                   SC_DTYPE_BF16};
    static const double tol[] = {1e-6, 1e-14, 1e-3, 8e-3};
    int64_t n = 64;
    size_t i, k;
    for (i = 0; i < ARRAY_SIZE(dts); i++) {
        sc_tensor *t = mkrand(dts[i], 1, &n, 77), *r;
        sc__karg a[1];
        a[0] = KT(t);
        r = run1(sc__kernel_exp, 1, a);
        ck_assert(r->dtype == dts[i]);
        for (k = 0; k < 64; k++) {
            double x = sc_tensor_item_double(t, k);
            double y = sc_tensor_item_double(r, k);
            ck_assert_msg(fabs(y - exp(x)) <= tol[i] * exp(x),
                          "dtype %d: exp(%g) = %g", (int)dts[i], x, y);
        }
        sc_tensor_free(r);
        sc_tensor_free(t);
    }
}
END_TEST

START_TEST(test_backward_pointwise)
{
    static const double g[] = {1, 2, -1, 0.5}, x[] = {-1.5, -0.1, 0.3, 2};
    sc_tensor *tg = mk1(SC_DTYPE_F32, 4, g), *tx = mk1(SC_DTYPE_F32, 4, x), *r;
    sc__karg a[3];
    double w[4], h = 1e-6;
    size_t i;

    a[0] = KT(tg);
    a[1] = KT(tx);
    /* gelu_backward against a central difference of gelu in double */
    r = run1(sc__kernel_gelu_backward, 2, a);
    for (i = 0; i < 4; i++) {
        double xp = x[i] + h, xm = x[i] - h;
        double d = (xp * 0.5 * (1 + erf(xp / sqrt(2.0))) -
                    xm * 0.5 * (1 + erf(xm / sqrt(2.0)))) / (2 * h);
        w[i] = g[i] * d;
    }
    expect_vals(r, 4, w, 1e-5);
    sc_tensor_free(r);
    a[2] = KS("tanh");
    r = run1(sc__kernel_gelu_backward, 3, a);
    for (i = 0; i < 4; i++) {
        double c = sqrt(2 / PI), xp = x[i] + h, xm = x[i] - h;
        double fp = 0.5 * xp * (1 + tanh(c * (xp + 0.044715 * xp * xp * xp)));
        double fm = 0.5 * xm * (1 + tanh(c * (xm + 0.044715 * xm * xm * xm)));
        w[i] = g[i] * (fp - fm) / (2 * h);
    }
    expect_vals(r, 4, w, 1e-5);
    sc_tensor_free(r);
    r = run1(sc__kernel_silu_backward, 2, a);
    for (i = 0; i < 4; i++) {
        double s = 1 / (1 + exp(-x[i]));
        w[i] = g[i] * (s + x[i] * s * (1 - s));
    }
    expect_vals(r, 4, w, 1e-6);
    sc_tensor_free(r);
    /* tanh_backward / sigmoid_backward take the forward output */
    r = run1(sc__kernel_tanh_backward, 2, a);
    for (i = 0; i < 4; i++)
        w[i] = g[i] * (1 - x[i] * x[i]);
    expect_vals(r, 4, w, 1e-6);
    sc_tensor_free(r);
    r = run1(sc__kernel_sigmoid_backward, 2, a);
    for (i = 0; i < 4; i++)
        w[i] = g[i] * (1 - x[i]) * x[i];
    expect_vals(r, 4, w, 1e-6);
    sc_tensor_free(r);
    a[2] = KI(0);
    r = run1(sc__kernel_threshold_backward, 3, a);
    {
        static const double e[] = {0, 0, -1, 0.5};
        expect_vals(r, 4, e, 0);
    }
    sc_tensor_free(r);
    sc_tensor_free(tg);
    sc_tensor_free(tx);
}
END_TEST

START_TEST(test_binary_broadcast)
{
    static const double av[] = {1, 2, 3, 4, 5, 6}, bv[] = {10, 20, 30};
    sc_tensor *a = mk2(SC_DTYPE_F32, 2, 3, av), *b = mk1(SC_DTYPE_F32, 3, bv),
              *c, *r, *at;
    sc__karg k[3];
    sc_error err;

    k[0] = KT(a);
    k[1] = KT(b);
    k[2] = KF(2);
    r = run1(sc__kernel_add, 3, k);
    {
        static const double e[] = {21, 42, 63, 24, 45, 66};
        expect_vals(r, 6, e, 0);
        expect_shape(r, 2, (int64_t)2, (int64_t)3);
    }
    sc_tensor_free(r);
    r = run1(sc__kernel_sub, 2, k);
    {
        static const double e[] = {-9, -18, -27, -6, -15, -24};
        expect_vals(r, 6, e, 0);
    }
    sc_tensor_free(r);
    /* [2,1] * [3] -> [2,3], with a transposed (non-contiguous) operand */
    ck_assert(sc_tensor_transpose(a, 0, 1, &at, &err) == SC_OK);
    {
        int64_t s[2] = {3, 1};
        static const double cv[] = {1, 2, 3};
        c = mk(SC_DTYPE_F32, 2, s, cv);
    }
    k[0] = KT(at);
    k[1] = KT(c);
    r = run1(sc__kernel_mul, 2, k);
    {
        static const double e[] = {1, 4, 4, 10, 9, 18};
        expect_vals(r, 6, e, 0);
    }
    sc_tensor_free(r);
    k[1] = KT(b);
    run_fail(sc__kernel_add, 2, k); /* [3,2] + [3] does not broadcast */
    /* scalar operands and dtype promotion */
    k[0] = KT(a);
    k[1] = KI(2);
    r = run1(sc__kernel_div, 2, k);
    ck_assert(r->dtype == SC_DTYPE_F32);
    ck_assert(sc_tensor_item_double(r, 0) == 0.5);
    sc_tensor_free(r);
    r = run1(sc__kernel_pow, 2, k);
    ck_assert(sc_tensor_item_double(r, 5) == 36);
    sc_tensor_free(r);
    r = run1(sc__kernel_gt, 2, k);
    ck_assert(r->dtype == SC_DTYPE_B8);
    {
        static const double e[] = {0, 0, 1, 1, 1, 1};
        expect_vals(r, 6, e, 0);
    }
    sc_tensor_free(r);
    sc_tensor_free(a);
    sc_tensor_free(b);
    sc_tensor_free(c);
    sc_tensor_free(at);
}
END_TEST

START_TEST(test_binary_int)
{
    static const double av[] = {7, -7, 100, 5}, bv[] = {2, 2, 100, 0};
    sc_tensor *a = mk1(SC_DTYPE_I32, 4, av), *b = mk1(SC_DTYPE_I32, 4, bv),
              *u, *r;
    sc__karg k[3];
    k[0] = KT(a);
    k[1] = KT(b);
    r = run1(sc__kernel_mul, 2, k);
    ck_assert(r->dtype == SC_DTYPE_I32);
    {
        static const double e[] = {14, -14, 10000, 0};
        expect_vals(r, 4, e, 0);
    }
    sc_tensor_free(r);
    r = run1(sc__kernel_div, 2, k); /* true division -> f32 */
    ck_assert(r->dtype == SC_DTYPE_F32);
    ck_assert(sc_tensor_item_double(r, 0) == 3.5);
    ck_assert(isinf(sc_tensor_item_double(r, 3)));
    sc_tensor_free(r);
    k[2] = KS("floor");
    run_fail(sc__kernel_div, 3, k); /* integer division by zero */
    k[0] = KT(a);
    k[1] = KI(2);
    r = run1(sc__kernel_div, 3, k);
    {
        static const double e[] = {3, -4, 50, 2};
        expect_vals(r, 4, e, 0);
    }
    sc_tensor_free(r);
    k[2] = KS("trunc");
    r = run1(sc__kernel_div, 3, k);
    {
        static const double e[] = {3, -3, 50, 2};
        expect_vals(r, 4, e, 0);
    }
    sc_tensor_free(r);
    /* u8 wraps */
    u = mk1(SC_DTYPE_U8, 4, bv);
    k[0] = KT(u);
    k[1] = KI(200);
    r = run1(sc__kernel_add, 2, k);
    ck_assert(r->dtype == SC_DTYPE_U8);
    {
        static const double e[] = {202, 202, 44, 200};
        expect_vals(r, 4, e, 0);
    }
    sc_tensor_free(r);
    /* int tensor + float scalar -> f32 */
    k[1] = KF(0.5);
    r = run1(sc__kernel_add, 2, k);
    ck_assert(r->dtype == SC_DTYPE_F32);
    ck_assert(sc_tensor_item_double(r, 0) == 2.5);
    sc_tensor_free(r);
    sc_tensor_free(u);
    sc_tensor_free(a);
    sc_tensor_free(b);
}
END_TEST

START_TEST(test_where_masked_fill)
{
    static const double cv[] = {1, 0, 1}, av[] = {1, 2, 3};
    sc_tensor *c = mk1(SC_DTYPE_B8, 3, cv), *a = mk1(SC_DTYPE_F32, 3, av), *r;
    sc__karg k[3];
    k[0] = KT(c);
    k[1] = KT(a);
    k[2] = KF(-1);
    r = run1(sc__kernel_where, 3, k);
    {
        static const double e[] = {1, -1, 3};
        expect_vals(r, 3, e, 0);
        ck_assert(r->dtype == SC_DTYPE_F32);
    }
    sc_tensor_free(r);
    k[0] = KT(a);
    k[1] = KT(c);
    k[2] = KF(-INFINITY);
    r = run1(sc__kernel_masked_fill, 3, k);
    ck_assert(isinf(sc_tensor_item_double(r, 0)));
    ck_assert(sc_tensor_item_double(r, 1) == 2);
    sc_tensor_free(r);
    k[1] = KT(a); /* not a bool mask */
    run_fail(sc__kernel_masked_fill, 3, k);
    sc_tensor_free(c);
    sc_tensor_free(a);
}
END_TEST

/* ---- Reductions ------------------------------------------------------------ */

START_TEST(test_reductions)
{
    static const double v[] = {1, 2, 3, 4, 5, 6};
    sc_tensor *t = mk2(SC_DTYPE_F32, 2, 3, v), *ti = mk2(SC_DTYPE_I32, 2, 3, v),
              *r;
    int64_t d0 = 0, dm1 = -1, both[2] = {1, 0};
    sc__karg k[4];

    k[0] = KT(t);
    k[1] = KN();
    r = run1(sc__kernel_sum, 2, k); /* sum.default */
    ck_assert(r->ndim == 0 && sc_tensor_item_double(r, 0) == 21);
    sc_tensor_free(r);
    k[1] = KL(1, &d0);
    k[2] = KB(true);
    k[3] = KN();
    r = run1(sc__kernel_sum, 4, k);
    expect_shape(r, 2, (int64_t)1, (int64_t)3);
    {
        static const double e[] = {5, 7, 9};
        expect_vals(r, 3, e, 0);
    }
    sc_tensor_free(r);
    k[1] = KL(1, &dm1);
    k[2] = KB(false);
    r = run1(sc__kernel_mean, 4, k);
    expect_shape(r, 1, (int64_t)2);
    {
        static const double e[] = {2, 5};
        expect_vals(r, 2, e, 0);
    }
    sc_tensor_free(r);
    r = run1(sc__kernel_amax, 3, k);
    {
        static const double e[] = {3, 6};
        expect_vals(r, 2, e, 0);
    }
    sc_tensor_free(r);
    k[1] = KL(2, both);
    r = run1(sc__kernel_amin, 3, k);
    ck_assert(r->ndim == 0 && sc_tensor_item_double(r, 0) == 1);
    sc_tensor_free(r);
    /* sum of ints is int64; mean of ints is an error unless dtype given */
    k[0] = KT(ti);
    k[1] = KL(1, &d0);
    k[3] = KN();
    r = run1(sc__kernel_sum, 4, k);
    ck_assert(r->dtype == SC_DTYPE_I64);
    sc_tensor_free(r);
    run_fail(sc__kernel_mean, 4, k);
    k[3] = KD(SC_DTYPE_F64);
    r = run1(sc__kernel_mean, 4, k);
    ck_assert(r->dtype == SC_DTYPE_F64);
    ck_assert(sc_tensor_item_double(r, 2) == 4.5);
    sc_tensor_free(r);
    /* a repeated dim and an out-of-range dim */
    {
        int64_t rep[2] = {0, -2};
        k[1] = KL(2, rep);
        run_fail(sc__kernel_sum, 4, k);
        rep[0] = 2;
        k[1] = KL(1, rep);
        run_fail(sc__kernel_sum, 4, k);
    }
    sc_tensor_free(t);
    sc_tensor_free(ti);
}
END_TEST

START_TEST(test_reduction_noncontiguous)
{
    int64_t sz[3] = {3, 4, 5}, pd[2] = {1, 0};
    sc_tensor *t = mkrand(SC_DTYPE_F64, 3, sz, 5), *p, *r;
    int64_t perm[3] = {2, 0, 1};
    sc_error err;
    sc__karg k[4];
    size_t j, i0, i2;

    ck_assert(sc_tensor_permute(t, perm, &p, &err) == SC_OK); /* [5,3,4] */
    k[0] = KT(p);
    k[1] = KL(2, pd); /* dims 0 and 2 of t */
    k[2] = KB(false);
    k[3] = KN();
    r = run1(sc__kernel_sum, 4, k);
    expect_shape(r, 1, (int64_t)4);
    for (j = 0; j < 4; j++) {
        double s = 0;
        for (i0 = 0; i0 < 3; i0++)
            for (i2 = 0; i2 < 5; i2++)
                s += sc_tensor_item_double(t, i0 * 20 + j * 5 + i2);
        ck_assert(fabs(sc_tensor_item_double(r, j) - s) < 1e-12);
    }
    sc_tensor_free(r);
    sc_tensor_free(p);
    sc_tensor_free(t);
}
END_TEST

START_TEST(test_softmax)
{
    int64_t sz[3] = {2, 3, 5};
    sc_tensor *t = mkrand(SC_DTYPE_F32, 3, sz, 9), *s, *ls, *g, *r;
    sc__karg k[4];
    size_t i, j, l;

    k[0] = KT(t);
    k[1] = KI(1);
    k[2] = KB(false);
    s = run1(sc__kernel_softmax, 3, k);
    ls = run1(sc__kernel_log_softmax, 3, k);
    for (i = 0; i < 2; i++)
        for (l = 0; l < 5; l++) {
            double sum = 0;
            for (j = 0; j < 3; j++) {
                size_t at = i * 15 + j * 5 + l;
                sum += sc_tensor_item_double(s, at);
                ck_assert(fabs(log(sc_tensor_item_double(s, at)) -
                               sc_tensor_item_double(ls, at)) < 1e-5);
            }
            ck_assert(fabs(sum - 1) < 1e-6);
        }
    /* backward: grad_in = y * (g - sum(g*y)); with g = 1 it is 0 */
    g = mkrand(SC_DTYPE_F32, 3, sz, 10);
    k[0] = KT(g);
    k[1] = KT(s);
    k[2] = KI(1);
    k[3] = KD(SC_DTYPE_F32);
    r = run1(sc__kernel_softmax_backward_data, 4, k);
    for (i = 0; i < 2; i++)
        for (l = 0; l < 5; l++) {
            double dot = 0;
            for (j = 0; j < 3; j++) {
                size_t at = i * 15 + j * 5 + l;
                dot += sc_tensor_item_double(g, at) *
                       sc_tensor_item_double(s, at);
            }
            for (j = 0; j < 3; j++) {
                size_t at = i * 15 + j * 5 + l;
                double want = sc_tensor_item_double(s, at) *
                              (sc_tensor_item_double(g, at) - dot);
                ck_assert(fabs(sc_tensor_item_double(r, at) - want) < 1e-6);
            }
        }
    sc_tensor_free(r);
    k[1] = KT(ls);
    r = run1(sc__kernel_log_softmax_backward_data, 4, k);
    for (i = 0; i < 2; i++)
        for (l = 0; l < 5; l++) {
            double gs = 0;
            for (j = 0; j < 3; j++)
                gs += sc_tensor_item_double(g, i * 15 + j * 5 + l);
            for (j = 0; j < 3; j++) {
                size_t at = i * 15 + j * 5 + l;
                double want = sc_tensor_item_double(g, at) -
                              sc_tensor_item_double(s, at) * gs;
                ck_assert(fabs(sc_tensor_item_double(r, at) - want) < 1e-5);
            }
        }
    sc_tensor_free(r);
    sc_tensor_free(g);
    sc_tensor_free(s);
    sc_tensor_free(ls);
    sc_tensor_free(t);
}
END_TEST

START_TEST(test_layer_norm)
{
    int64_t sz[3] = {2, 3, 4}, ns[2] = {3, 4};
    sc_tensor *x = mkrand(SC_DTYPE_F32, 3, sz, 3);
    sc_tensor *w = mkrand(SC_DTYPE_F32, 2, ns, 4);
    sc_tensor *b = mkrand(SC_DTYPE_F32, 2, ns, 5);
    sc_tensor *g = mkrand(SC_DTYPE_F32, 3, sz, 6);
    sc_tensor *outs[4] = {NULL}, *bw[4] = {NULL};
    sc__karg k[8];
    sc_error err;
    size_t n, i, j;
    bool mask[3] = {true, true, true};

    k[0] = KT(x);
    k[1] = KL(2, ns);
    k[2] = KT(w);
    k[3] = KT(b);
    k[4] = KF(1e-5);
    ck_assert(run(sc__kernel_native_layer_norm, 5, k, outs, &n, &err) ==
              SC_OK);
    ck_assert_uint_eq(n, 3);
    expect_shape(outs[1], 3, (int64_t)2, (int64_t)1, (int64_t)1);
    for (i = 0; i < 2; i++) {
        double m = 0, v = 0, rs;
        for (j = 0; j < 12; j++)
            m += sc_tensor_item_double(x, i * 12 + j);
        m /= 12;
        for (j = 0; j < 12; j++) {
            double d = sc_tensor_item_double(x, i * 12 + j) - m;
            v += d * d;
        }
        v /= 12;
        rs = 1 / sqrt(v + 1e-5);
        ck_assert(fabs(sc_tensor_item_double(outs[1], i) - m) < 1e-6);
        ck_assert(fabs(sc_tensor_item_double(outs[2], i) - rs) < 1e-5 * rs);
        for (j = 0; j < 12; j++) {
            double y = (sc_tensor_item_double(x, i * 12 + j) - m) * rs *
                           sc_tensor_item_double(w, j) +
                       sc_tensor_item_double(b, j);
            ck_assert(fabs(sc_tensor_item_double(outs[0], i * 12 + j) - y) <
                      1e-5);
        }
    }
    /* backward against finite differences of sum(g * layer_norm(x)) */
    k[0] = KT(g);
    k[1] = KT(x);
    k[2] = KL(2, ns);
    k[3] = KT(outs[1]);
    k[4] = KT(outs[2]);
    k[5] = KT(w);
    k[6] = KT(b);
    k[7].kind = SC__KARG_BOOLS;
    k[7].u.bools.n = 3;
    k[7].u.bools.v = mask;
    ck_assert(run(sc__kernel_native_layer_norm_backward, 8, k, bw, &n,
                  &err) == SC_OK);
    ck_assert_uint_eq(n, 3);
    for (i = 0; i < 24; i += 5) {
        /* d/dx_i of sum_j g_j * y_j, in double, by central differences */
        double h = 1e-4, f[2];
        int sgn;
        for (sgn = 0; sgn < 2; sgn++) {
            double xs[24], m = 0, v = 0, acc = 0;
            size_t row = i / 12, q;
            for (q = 0; q < 24; q++)
                xs[q] = sc_tensor_item_double(x, q);
            xs[i] += sgn ? h : -h;
            for (q = 0; q < 12; q++)
                m += xs[row * 12 + q];
            m /= 12;
            for (q = 0; q < 12; q++)
                v += (xs[row * 12 + q] - m) * (xs[row * 12 + q] - m);
            v /= 12;
            for (q = 0; q < 12; q++)
                acc += sc_tensor_item_double(g, row * 12 + q) *
                       ((xs[row * 12 + q] - m) / sqrt(v + 1e-5) *
                        sc_tensor_item_double(w, q));
            f[sgn] = acc;
        }
        ck_assert_msg(fabs(sc_tensor_item_double(bw[0], i) -
                           (f[1] - f[0]) / (2 * h)) < 2e-3,
                      "dx[%zu] = %g vs %g", i, sc_tensor_item_double(bw[0], i),
                      (f[1] - f[0]) / (2 * h));
    }
    /* grad_bias = sum of g over rows */
    for (j = 0; j < 12; j++)
        ck_assert(fabs(sc_tensor_item_double(bw[2], j) -
                       sc_tensor_item_double(g, j) -
                       sc_tensor_item_double(g, 12 + j)) < 1e-5);
    for (i = 0; i < 3; i++) {
        sc_tensor_free(outs[i]);
        sc_tensor_free(bw[i]);
    }
    sc_tensor_free(x);
    sc_tensor_free(w);
    sc_tensor_free(b);
    sc_tensor_free(g);
}
END_TEST

/* ---- Matrix products ------------------------------------------------------- */

static void naive_mm(const sc_tensor *a, const sc_tensor *b, double *out)
{
    int64_t n = a->sizes[0], k = a->sizes[1], m = b->sizes[1], i, j, l;
    for (i = 0; i < n; i++)
        for (j = 0; j < m; j++) {
            double s = 0;
            for (l = 0; l < k; l++)
                s += sc_tensor_item_double(a, (size_t)(i * k + l)) *
                     sc_tensor_item_double(b, (size_t)(l * m + j));
            out[i * m + j] = s;
        }
}

START_TEST(test_mm)
{
    /* sizes beyond the blocks; b given transposed (non-contiguous) */
    int64_t sa[2] = {70, 150}, sbt[2] = {300, 150};
    sc_tensor *a = mkrand(SC_DTYPE_F32, 2, sa, 1);
    sc_tensor *bt = mkrand(SC_DTYPE_F32, 2, sbt, 2), *b, *r, *r2;
    double *want = malloc(70 * 300 * sizeof *want);
    sc_error err;
    sc__karg k[2];
    size_t i;

    ck_assert(sc_tensor_transpose(bt, 0, 1, &b, &err) == SC_OK);
    k[0] = KT(a);
    k[1] = KT(b);
    r = run1(sc__kernel_mm, 2, k);
    expect_shape(r, 2, (int64_t)70, (int64_t)300);
    naive_mm(a, b, want);
    for (i = 0; i < 70 * 300; i++)
        ck_assert(fabs(sc_tensor_item_double(r, i) - want[i]) <
                  1e-4 * (1 + fabs(want[i])));
    /* bit-exact repeatability */
    r2 = run1(sc__kernel_mm, 2, k);
    ck_assert(bits_equal(r, r2));
    sc_tensor_free(r2);
    k[1] = KT(a);
    run_fail(sc__kernel_mm, 2, k); /* [70,150] @ [70,150] */
    free(want);
    sc_tensor_free(r);
    sc_tensor_free(a);
    sc_tensor_free(b);
    sc_tensor_free(bt);
}
END_TEST

START_TEST(test_mm_int_and_addmm)
{
    static const double av[] = {1, 2, 3, 4}, bv[] = {5, 6, 7, 8},
                        sv[] = {100, 200};
    sc_tensor *a = mk2(SC_DTYPE_I64, 2, 2, av), *b = mk2(SC_DTYPE_I64, 2, 2, bv),
              *fa = mk2(SC_DTYPE_F64, 2, 2, av), *fb = mk2(SC_DTYPE_F64, 2, 2, bv),
              *s = mk1(SC_DTYPE_F64, 2, sv), *r;
    sc__karg k[5];
    k[0] = KT(a);
    k[1] = KT(b);
    r = run1(sc__kernel_mm, 2, k);
    {
        static const double e[] = {19, 22, 43, 50};
        expect_vals(r, 4, e, 0);
        ck_assert(r->dtype == SC_DTYPE_I64);
    }
    sc_tensor_free(r);
    k[1] = KT(fb);
    run_fail(sc__kernel_mm, 2, k); /* dtype mismatch */
    k[0] = KT(s);
    k[1] = KT(fa);
    k[2] = KT(fb);
    k[3] = KF(0.5);
    k[4] = KI(2);
    r = run1(sc__kernel_addmm, 5, k);
    {
        static const double e[] = {88, 144, 136, 200};
        expect_vals(r, 4, e, 0);
    }
    sc_tensor_free(r);
    sc_tensor_free(a);
    sc_tensor_free(b);
    sc_tensor_free(fa);
    sc_tensor_free(fb);
    sc_tensor_free(s);
}
END_TEST

START_TEST(test_bmm)
{
    int64_t sa[3] = {3, 4, 5}, sb[3] = {3, 5, 2};
    sc_tensor *a = mkrand(SC_DTYPE_F64, 3, sa, 11), *b = mkrand(SC_DTYPE_F64, 3, sb, 12),
              *r, *ai, *bi;
    sc__karg k[2];
    sc_error err;
    double want[8];
    int64_t t;
    k[0] = KT(a);
    k[1] = KT(b);
    r = run1(sc__kernel_bmm, 2, k);
    expect_shape(r, 3, (int64_t)3, (int64_t)4, (int64_t)2);
    for (t = 0; t < 3; t++) {
        size_t i;
        ck_assert(sc_tensor_select(a, 0, t, &ai, &err) == SC_OK);
        ck_assert(sc_tensor_select(b, 0, t, &bi, &err) == SC_OK);
        naive_mm(ai, bi, want);
        for (i = 0; i < 8; i++)
            ck_assert(fabs(sc_tensor_item_double(r, (size_t)t * 8 + i) -
                           want[i]) < 1e-12);
        sc_tensor_free(ai);
        sc_tensor_free(bi);
    }
    sc_tensor_free(r);
    sc_tensor_free(a);
    sc_tensor_free(b);
}
END_TEST

/* ---- Random ----------------------------------------------------------------- */

START_TEST(test_philox)
{
    /* the Random123 known-answer vectors for philox4x32-10 */
    uint32_t ctr[4] = {0, 0, 0, 0}, key[2] = {0, 0}, out[4];
    sc__philox4x32(ctr, key, out);
    ck_assert_uint_eq(out[0], 0x6627e8d5u);
    ck_assert_uint_eq(out[1], 0xe169c58du);
    ck_assert_uint_eq(out[2], 0xbc57ac4cu);
    ck_assert_uint_eq(out[3], 0x9b00dbd8u);
    ctr[0] = ctr[1] = ctr[2] = ctr[3] = 0xffffffffu;
    key[0] = key[1] = 0xffffffffu;
    sc__philox4x32(ctr, key, out);
    ck_assert_uint_eq(out[0], 0x408f276du);
    ck_assert_uint_eq(out[1], 0x41c83b0eu);
    ck_assert_uint_eq(out[2], 0xa20bc7c6u);
    ck_assert_uint_eq(out[3], 0x6d5451fdu);
}
END_TEST

START_TEST(test_dropout)
{
    int64_t sz[2] = {100, 100};
    sc_tensor *x = mk(SC_DTYPE_F32, 2, sz, NULL), *o1[4] = {NULL},
              *o2[4] = {NULL}, *r;
    sc__karg k[3];
    sc_error err;
    size_t n, i, kept = 0;

    sc_tensor_fill(x, 1.0, &err);
    k[0] = KT(x);
    k[1] = KF(0.25);
    k[2] = KB(true);
    ck_assert(run(sc__kernel_native_dropout, 3, k, o1, &n, &err) == SC_OK);
    ck_assert_uint_eq(n, 2);
    ck_assert(o1[1]->dtype == SC_DTYPE_B8);
    for (i = 0; i < 10000; i++) {
        double v = sc_tensor_item_double(o1[0], i);
        bool m = sc_tensor_item_int64(o1[1], i) != 0;
        kept += m;
        ck_assert(m ? fabs(v - 1 / 0.75) < 1e-6 : v == 0);
    }
    ck_assert_msg(kept > 7200 && kept < 7800, "kept %zu of 10000", kept);
    /* recomputation reproduces the same bits */
    ck_assert(run(sc__kernel_native_dropout, 3, k, o2, &n, &err) == SC_OK);
    ck_assert(bits_equal(o1[0], o2[0]) && bits_equal(o1[1], o2[1]));
    for (i = 0; i < 2; i++) {
        sc_tensor_free(o1[i]);
        sc_tensor_free(o2[i]);
    }
    k[1] = KF(0.5);
    r = run1(sc__kernel_bernoulli, 2, k);
    {
        double s = 0;
        for (i = 0; i < 10000; i++)
            s += sc_tensor_item_double(r, i);
        ck_assert(s > 4700 && s < 5300);
    }
    sc_tensor_free(r);
    r = run1(sc__kernel_rand_like, 1, k);
    for (i = 0; i < 10000; i++) {
        double u = sc_tensor_item_double(r, i);
        ck_assert(u >= 0 && u < 1);
    }
    sc_tensor_free(r);
    sc_tensor_free(x);
}
END_TEST

/* ---- PyTorch reference data ----------------------------------------------- */

/* fn_mm_gelu_sum: the joint graph of sum(gelu(x @ w1) @ w2), run kernel by
 * kernel as the text says, against PyTorch's outputs. */
START_TEST(test_fn_mm_gelu_sum)
{
    sc_tensor *p1 = load("fn_mm_gelu_sum/primals_1.npy");
    sc_tensor *p2 = load("fn_mm_gelu_sum/primals_2.npy");
    sc_tensor *p3 = load("fn_mm_gelu_sum/primals_3.npy");
    sc_tensor *tg = load("fn_mm_gelu_sum/tangents_1.npy");
    sc_tensor *o0 = load("fn_mm_gelu_sum/out_0.npy");
    sc_tensor *o2 = load("fn_mm_gelu_sum/out_2.npy");
    sc_tensor *o3 = load("fn_mm_gelu_sum/out_3.npy");
    sc_tensor *mm, *gelu, *mm1, *sum1, *expand, *t, *mm2, *t1, *mm3, *gb,
        *t2, *mm4, *again;
    int64_t es[2] = {8, 8};
    sc__karg k[3];
    int rep;

    k[0] = KT(p1);
    k[1] = KT(p2);
    mm = run1(sc__kernel_mm, 2, k);
    k[0] = KT(mm);
    gelu = run1(sc__kernel_gelu, 1, k);
    k[0] = KT(gelu);
    k[1] = KT(p3);
    mm1 = run1(sc__kernel_mm, 2, k);
    k[0] = KT(mm1);
    k[1] = KN();
    sum1 = run1(sc__kernel_sum, 2, k);
    k[0] = KT(tg);
    k[1] = KL(2, es);
    expand = run1(sc__kernel_expand, 2, k);
    k[0] = KT(gelu);
    t = run1(sc__kernel_t, 1, k);
    k[0] = KT(t);
    k[1] = KT(expand);
    mm2 = run1(sc__kernel_mm, 2, k);
    k[0] = KT(p3);
    t1 = run1(sc__kernel_t, 1, k);
    k[0] = KT(expand);
    k[1] = KT(t1);
    mm3 = run1(sc__kernel_mm, 2, k);
    k[0] = KT(mm3);
    k[1] = KT(mm);
    gb = run1(sc__kernel_gelu_backward, 2, k);
    k[0] = KT(p1);
    t2 = run1(sc__kernel_t, 1, k);
    k[0] = KT(t2);
    k[1] = KT(gb);
    mm4 = run1(sc__kernel_mm, 2, k);

    ck_assert_msg(max_rel_diff(sum1, o0, 1e-5) <= 1e-4, "out_0: %g vs %g",
                  sc_tensor_item_double(sum1, 0),
                  sc_tensor_item_double(o0, 0));
    ck_assert_msg(max_rel_diff(mm4, o2, 1e-5) <= 1e-4, "out_2 rel %g",
                  max_rel_diff(mm4, o2, 1e-5));
    ck_assert_msg(max_rel_diff(mm2, o3, 1e-5) <= 1e-4, "out_3 rel %g",
                  max_rel_diff(mm2, o3, 1e-5));
    /* bit-exact repeatability of the whole chain's last step */
    for (rep = 0; rep < 2; rep++) {
        k[0] = KT(t2);
        k[1] = KT(gb);
        again = run1(sc__kernel_mm, 2, k);
        ck_assert(bits_equal(again, mm4));
        sc_tensor_free(again);
    }
    sc_tensor_free(mm);
    sc_tensor_free(gelu);
    sc_tensor_free(mm1);
    sc_tensor_free(sum1);
    sc_tensor_free(expand);
    sc_tensor_free(t);
    sc_tensor_free(mm2);
    sc_tensor_free(t1);
    sc_tensor_free(mm3);
    sc_tensor_free(gb);
    sc_tensor_free(t2);
    sc_tensor_free(mm4);
    sc_tensor_free(p1);
    sc_tensor_free(p2);
    sc_tensor_free(p3);
    sc_tensor_free(tg);
    sc_tensor_free(o0);
    sc_tensor_free(o2);
    sc_tensor_free(o3);
}
END_TEST

/* Out-of-memory at every allocation of a kernel: a clean error, no leak. */
START_TEST(test_kernel_oom)
{
    int64_t sz[2] = {4, 5}, dim = 1;
    sc_tensor *a = mkrand(SC_DTYPE_F32, 2, sz, 1), *outs[4];
    sc__karg k[3];
    long i;
    k[0] = KT(a);
    k[1] = KL(1, &dim);
    k[2] = KB(true);
    for (i = 0; i < 12; i++) {
        size_t n;
        sc_error err;
        sc_status st;
        sc__alloc_fail_after(i);
        st = run(sc__kernel_sum, 3, k, outs, &n, &err);
        sc__alloc_fail_after(-1);
        if (st == SC_OK) {
            while (n)
                sc_tensor_free(outs[--n]);
            break;
        }
        ck_assert_msg(st == SC_ERR_NOMEM, "step %ld: %s", i, err.message);
        ck_assert_uint_eq(n, 0);
    }
    ck_assert_int_lt(i, 12);
    sc_tensor_free(a);
}
END_TEST

Suite *kernels_suite(void)
{
    Suite *s = suite_create("kernels");
    TCase *tc = tcase_create("tensors");
    tcase_add_test(tc, test_f16_rounding);
    tcase_add_test(tc, test_bf16_rounding);
    tcase_add_test(tc, test_conversions);
    tcase_add_test(tc, test_promotion_table);
    tcase_add_test(tc, test_result_type);
    tcase_add_test(tc, test_views);
    tcase_add_test(tc, test_view_kernels);
    tcase_add_test(tc, test_cat_stack);
    suite_add_tcase(s, tc);
    tc = tcase_create("npy");
    tcase_add_test(tc, test_npy_real_files);
    tcase_add_test(tc, test_npy_roundtrip);
    tcase_add_test(tc, test_npy_variants);
    tcase_add_test(tc, test_npy_malformed);
    suite_add_tcase(s, tc);
    tc = tcase_create("kernels");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_unary);
    tcase_add_test(tc, test_unary_dtypes);
    tcase_add_test(tc, test_backward_pointwise);
    tcase_add_test(tc, test_binary_broadcast);
    tcase_add_test(tc, test_binary_int);
    tcase_add_test(tc, test_where_masked_fill);
    tcase_add_test(tc, test_reductions);
    tcase_add_test(tc, test_reduction_noncontiguous);
    tcase_add_test(tc, test_softmax);
    tcase_add_test(tc, test_layer_norm);
    tcase_add_test(tc, test_mm);
    tcase_add_test(tc, test_mm_int_and_addmm);
    tcase_add_test(tc, test_bmm);
    tcase_add_test(tc, test_philox);
    tcase_add_test(tc, test_dropout);
    tcase_add_test(tc, test_fn_mm_gelu_sum);
    tcase_add_test(tc, test_kernel_oom);
    suite_add_tcase(s, tc);
    return s;
}
