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

#include <symcut/graph.h>
#include <symcut/interp.h>
#include <symcut/tensor.h>

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

static sc__karg KBL(size_t n, const bool *v)
{
    sc__karg a;
    a.kind = SC__KARG_BOOLS;
    a.u.bools.n = n;
    a.u.bools.v = v;
    return a;
}

static sc__karg KTS(size_t n, const sc_tensor *const *v)
{
    sc__karg a;
    a.kind = SC__KARG_TENSORS;
    a.u.tensors.n = n;
    a.u.tensors.v = v;
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
        sc__store_f64((char *)sc_tensor_data(t) + i * sc_dtype_itemsize(d),
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
        sc__store_f64((char *)sc_tensor_data(t) + i * sc_dtype_itemsize(d),
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

START_TEST(test_empty_tensor_huge_sizes)
{
    /* numel 0, but the contiguous strides of [0, 2**62, 2**62] do not fit
     * in int64_t: an overflow error, not undefined behaviour */
    int64_t sizes[3] = {0, INT64_C(1) << 62, INT64_C(1) << 62};
    int64_t ok_sizes[3] = {0, INT64_C(1) << 31, INT64_C(1) << 31};
    sc_tensor *t = NULL;
    sc_error err;

    sc_error_init(&err);
    ck_assert_int_eq(sc_tensor_new(SC_DTYPE_F32, 3, sizes, &t, &err),
                     SC_ERR_OVERFLOW);
    ck_assert_ptr_null(t);
    ck_assert_ptr_nonnull(strstr(err.message, "strides"));
    ck_assert_int_eq(sc_tensor_new(SC_DTYPE_F32, 3, ok_sizes, &t, &err),
                     SC_OK);
    ck_assert_uint_eq(sc_tensor_numel(t), 0);
    sc_tensor_free(t);
}
END_TEST

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
        ck_assert(sc_dtype_result_type(2, ops, &r, &err) == SC_OK);
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

/* ---- Creation ops, splits, small ops ------------------------------------------- */

/* Run a kernel that must succeed; returns the number of outputs. */
static size_t runN(kfn fn, size_t nargs, const sc__karg *args,
                   sc_tensor **outs)
{
    size_t n;
    sc_error err;
    sc_status st = run(fn, nargs, args, outs, &n, &err);
    ck_assert_msg(st == SC_OK, "kernel failed: %s", err.message);
    return n;
}

static void free_outs(sc_tensor **outs, size_t n)
{
    while (n)
        sc_tensor_free(outs[--n]);
}

START_TEST(test_creation)
{
    int64_t sz[2] = {2, 3}, sz4[4] = {2, 3, 4, 5}, st[2] = {1, 4};
    sc__karg k[8];
    sc_tensor *r, *x, *xt;
    size_t i;

    k[0] = KL(2, sz);
    k[1] = KN();
    k[2] = KN();
    k[3] = KS("cpu");
    k[4] = KB(false);
    r = run1(sc__kernel_zeros, 5, k);
    ck_assert_int_eq(r->dtype, SC_DTYPE_F32);
    expect_shape(r, 2, (int64_t)2, (int64_t)3);
    for (i = 0; i < 6; i++)
        ck_assert(sc_tensor_item_double(r, i) == 0);
    sc_tensor_free(r);
    k[1] = KD(SC_DTYPE_I64);
    r = run1(sc__kernel_ones, 5, k);
    ck_assert_int_eq(r->dtype, SC_DTYPE_I64);
    ck_assert_int_eq(sc_tensor_item_int64(r, 5), 1);
    sc_tensor_free(r);
    /* full infers its dtype from the fill value */
    k[1] = KI(7);
    k[2] = KN();
    k[3] = KN();
    r = run1(sc__kernel_full, 3, k);
    ck_assert_int_eq(r->dtype, SC_DTYPE_I64);
    ck_assert_int_eq(sc_tensor_item_int64(r, 4), 7);
    sc_tensor_free(r);
    k[1] = KF(-0.5);
    r = run1(sc__kernel_full, 3, k);
    ck_assert_int_eq(r->dtype, SC_DTYPE_F32);
    ck_assert(sc_tensor_item_double(r, 0) == -0.5);
    sc_tensor_free(r);
    k[1] = KB(true);
    r = run1(sc__kernel_full, 3, k);
    ck_assert_int_eq(r->dtype, SC_DTYPE_B8);
    ck_assert_int_eq(sc_tensor_item_int64(r, 2), 1);
    sc_tensor_free(r);
    k[2] = KD(SC_DTYPE_F16);
    k[1] = KI(3);
    r = run1(sc__kernel_full, 3, k);
    ck_assert_int_eq(r->dtype, SC_DTYPE_F16);
    ck_assert(sc_tensor_item_double(r, 5) == 3.0);
    sc_tensor_free(r);
    /* empty: zero-filled; channels_last strides */
    k[0] = KL(4, sz4);
    k[1] = KN();
    k[2] = KN();
    k[3] = KN();
    k[4] = KN();
    k[5] = KS("channels_last");
    r = run1(sc__kernel_empty, 6, k);
    ck_assert_int_eq(r->strides[0], 60);
    ck_assert_int_eq(r->strides[1], 1);
    ck_assert_int_eq(r->strides[2], 15);
    ck_assert_int_eq(r->strides[3], 3);
    for (i = 0; i < 120; i++)
        ck_assert(sc_tensor_item_double(r, i) == 0);
    sc_tensor_free(r);
    k[0] = KL(2, sz);
    k[1] = KL(2, st);
    k[2] = KD(SC_DTYPE_F64);
    r = run1(sc__kernel_empty_strided, 3, k);
    ck_assert_int_eq(r->strides[0], 1);
    ck_assert_int_eq(r->strides[1], 4);
    ck_assert_int_eq(r->dtype, SC_DTYPE_F64);
    sc_tensor_free(r);
    /* *_like keep a permuted dense layout (preserve_format) */
    x = mkrand(SC_DTYPE_I64, 2, sz, 3);
    ck_assert(sc_tensor_transpose(x, 0, 1, &xt, &(sc_error){0}) == SC_OK);
    k[0] = KT(xt);
    k[1] = KN();
    r = run1(sc__kernel_zeros_like, 2, k);
    expect_shape(r, 2, (int64_t)3, (int64_t)2);
    ck_assert_int_eq(r->strides[0], 1);
    ck_assert_int_eq(r->strides[1], 3);
    ck_assert_int_eq(r->dtype, SC_DTYPE_I64);
    sc_tensor_free(r);
    k[1] = KD(SC_DTYPE_F32);
    k[2] = KN();
    k[3] = KN();
    k[4] = KN();
    k[5] = KS("contiguous_format");
    r = run1(sc__kernel_ones_like, 6, k);
    ck_assert(sc_tensor_is_contiguous(r));
    ck_assert_int_eq(r->dtype, SC_DTYPE_F32);
    ck_assert(sc_tensor_item_double(r, 3) == 1.0);
    sc_tensor_free(r);
    /* full_like keeps self's dtype: 2.7 into int64 truncates */
    k[1] = KF(2.7);
    k[2] = KN();
    r = run1(sc__kernel_full_like, 3, k);
    ck_assert_int_eq(r->dtype, SC_DTYPE_I64);
    ck_assert_int_eq(sc_tensor_item_int64(r, 0), 2);
    sc_tensor_free(r);
    k[1] = KN();
    r = run1(sc__kernel_empty_like, 2, k);
    ck_assert_int_eq(sc_tensor_item_int64(r, 5), 0);
    sc_tensor_free(r);
    k[1] = KL(2, sz);
    k[2] = KN();
    r = run1(sc__kernel_new_zeros, 3, k);
    ck_assert_int_eq(r->dtype, SC_DTYPE_I64);
    ck_assert(sc_tensor_is_contiguous(r));
    expect_shape(r, 2, (int64_t)2, (int64_t)3);
    sc_tensor_free(r);
    k[2] = KD(SC_DTYPE_BF16);
    r = run1(sc__kernel_new_empty, 3, k);
    ck_assert_int_eq(r->dtype, SC_DTYPE_BF16);
    sc_tensor_free(r);
    k[1] = KI(-9);
    r = run1(sc__kernel_fill_scalar, 2, k);
    ck_assert_int_eq(r->dtype, SC_DTYPE_I64);
    ck_assert_int_eq(r->strides[0], 1);
    for (i = 0; i < 6; i++)
        ck_assert_int_eq(sc_tensor_item_int64(r, i), -9);
    sc_tensor_free(r);
    /* scalar_tensor: float32 whatever the scalar */
    k[0] = KI(3);
    k[1] = KN();
    r = run1(sc__kernel_scalar_tensor, 2, k);
    ck_assert_uint_eq(r->ndim, 0);
    ck_assert_int_eq(r->dtype, SC_DTYPE_F32);
    ck_assert(sc_tensor_item_double(r, 0) == 3.0);
    sc_tensor_free(r);
    /* a layout other than strided is refused; any device runs on the CPU */
    k[0] = KL(2, sz);
    k[1] = KN();
    k[2] = KS("sparse_coo");
    ck_assert_int_eq(run_fail(sc__kernel_zeros, 3, k), SC_ERR_UNSUPPORTED);
    k[2] = KN();
    k[3] = KS("cuda");
    r = run1(sc__kernel_zeros, 4, k);
    ck_assert_uint_eq(r->ndim, 2);
    ck_assert(sc_tensor_item_double(r, 0) == 0.0);
    sc_tensor_free(r);
    k[3] = KN();
    k[1] = KD(SC_DTYPE_C64);
    ck_assert_int_eq(run_fail(sc__kernel_zeros, 2, k), SC_ERR_UNSUPPORTED);
    sc_tensor_free(xt);
    sc_tensor_free(x);
}
END_TEST

/* The elementwise and scalar ops of PyTorch 2.x graphs, against values
 * worked out by hand (PyTorch's results for these inputs). */
START_TEST(test_graph2_ops)
{
    const double xv[6] = {-2, -0.5, 0, 0.5, 3, 7};
    const double bv[6] = {1, 0, 1, 1, 0, 0}, cv[3] = {1, 1, 0};
    const double iv[3] = {1, 2, 4}, jv[3] = {4, 2, 8};
    sc_tensor *x = mk2(SC_DTYPE_F32, 2, 3, xv);
    sc_tensor *b = mk2(SC_DTYPE_B8, 2, 3, bv), *c = mk1(SC_DTYPE_B8, 3, cv);
    sc_tensor *i = mk1(SC_DTYPE_I64, 3, iv), *j = mk1(SC_DTYPE_I64, 3, jv);
    sc_tensor *g = mk2(SC_DTYPE_F32, 2, 3, NULL), *r, *one;
    sc__karg k[8];
    const double one_v[1] = {5};

    sc_tensor_fill(g, 2.0, NULL);
    /* hardtanh(x, 0, 6) = ReLU6 */
    k[0] = KT(x);
    k[1] = KF(0);
    k[2] = KF(6);
    r = run1(sc__kernel_hardtanh, 3, k);
    expect_vals(r, 6, (const double[]){0, 0, 0, 0.5, 3, 6}, 1e-6);
    ck_assert_int_eq(r->dtype, SC_DTYPE_F32);
    sc_tensor_free(r);
    /* hardtanh_backward: grad where 0 < x < 6 (the bounds excluded) */
    k[0] = KT(g);
    k[1] = KT(x);
    k[2] = KF(0);
    k[3] = KF(6);
    r = run1(sc__kernel_hardtanh_backward, 4, k);
    expect_vals(r, 6, (const double[]){0, 0, 0, 2, 2, 0}, 1e-6);
    sc_tensor_free(r);
    /* sin, cos */
    k[0] = KT(x);
    r = run1(sc__kernel_sin, 1, k);
    expect_vals(r, 6, (const double[]){sin(-2.0), sin(-0.5), 0, sin(0.5),
                                       sin(3.0), sin(7.0)}, 1e-6);
    sc_tensor_free(r);
    k[0] = KT(i);
    r = run1(sc__kernel_cos, 1, k); /* integers give float32 */
    ck_assert_int_eq(r->dtype, SC_DTYPE_F32);
    expect_vals(r, 3, (const double[]){cos(1.0), cos(2.0), cos(4.0)}, 1e-6);
    sc_tensor_free(r);
    /* logical_not of floats; logical_and broadcast [2, 3] & [3] */
    k[0] = KT(x);
    r = run1(sc__kernel_logical_not, 1, k);
    ck_assert_int_eq(r->dtype, SC_DTYPE_B8);
    expect_vals(r, 6, (const double[]){0, 0, 1, 0, 0, 0}, 1e-6);
    sc_tensor_free(r);
    k[0] = KT(b);
    k[1] = KT(c);
    r = run1(sc__kernel_logical_and, 2, k);
    expect_shape(r, 2, 2, 3);
    expect_vals(r, 6, (const double[]){1, 0, 0, 1, 0, 0}, 1e-6);
    sc_tensor_free(r);
    /* bitwise_or of int64; of floats refused */
    k[0] = KT(i);
    k[1] = KT(j);
    r = run1(sc__kernel_bitwise_or, 2, k);
    ck_assert_int_eq(r->dtype, SC_DTYPE_I64);
    expect_vals(r, 3, (const double[]){5, 2, 12}, 1e-6);
    sc_tensor_free(r);
    k[0] = KT(x);
    k[1] = KT(x);
    ck_assert_int_eq(run_fail(sc__kernel_bitwise_or, 2, k), SC_ERR_TYPE);
    /* arange(5) is int64; arange(1, 2, 0.25) float32; a zero step fails */
    k[0] = KI(5);
    k[1] = KN();
    k[2] = KN();
    k[3] = KN();
    k[4] = KN();
    r = run1(sc__kernel_arange, 5, k);
    ck_assert_int_eq(r->dtype, SC_DTYPE_I64);
    expect_vals(r, 5, (const double[]){0, 1, 2, 3, 4}, 1e-6);
    sc_tensor_free(r);
    k[0] = KI(1);
    k[1] = KI(2);
    k[2] = KF(0.25);
    k[3] = KN();
    k[4] = KN();
    k[5] = KN();
    k[6] = KN();
    r = run1(sc__kernel_arange_start_step, 7, k);
    ck_assert_int_eq(r->dtype, SC_DTYPE_F32);
    expect_vals(r, 4, (const double[]){1, 1.25, 1.5, 1.75}, 1e-6);
    sc_tensor_free(r);
    k[2] = KI(0);
    ck_assert_int_eq(run_fail(sc__kernel_arange_start_step, 7, k),
                     SC_ERR_INVALID);
    /* _local_scalar_dense of a one-element int64 tensor; of [3] fails */
    one = mk1(SC_DTYPE_I64, 1, one_v);
    k[0] = KT(one);
    r = run1(sc__kernel_local_scalar_dense, 1, k);
    ck_assert_int_eq(sc_tensor_item_int64(r, 0), 5);
    sc_tensor_free(r);
    k[0] = KT(i);
    ck_assert_int_eq(run_fail(sc__kernel_local_scalar_dense, 1, k),
                     SC_ERR_INVALID);
    /* _assert_scalar and sym_constrain_range_for_size */
    k[0] = KB(true);
    k[1] = KS("u0 >= 0");
    {
        sc_tensor *outs[1];
        size_t n = 0;
        sc_error err;
        ck_assert_int_eq(run(sc__kernel_assert_scalar, 2, k, outs, &n, &err),
                         SC_OK);
        ck_assert_uint_eq(n, 0);
        k[0] = KB(false);
        ck_assert_int_eq(run(sc__kernel_assert_scalar, 2, k, outs, &n, &err),
                         SC_ERR_GUARD);
        ck_assert_str_eq(err.message, "u0 >= 0");
        k[0] = KI(3);
        k[1] = KN();
        k[2] = KI(2);
        ck_assert_int_eq(run(sc__kernel_sym_constrain_range_for_size, 3, k,
                             outs, &n, &err), SC_ERR_GUARD);
        k[2] = KI(3);
        ck_assert_int_eq(run(sc__kernel_sym_constrain_range_for_size, 3, k,
                             outs, &n, &err), SC_OK);
    }
    sc_tensor_free(one);
    sc_tensor_free(x);
    sc_tensor_free(b);
    sc_tensor_free(c);
    sc_tensor_free(i);
    sc_tensor_free(j);
    sc_tensor_free(g);
}
END_TEST

START_TEST(test_split_unbind)
{
    static const double v[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13,
                               14};
    int64_t lens[2] = {1, 4}, bad[2] = {1, 3};
    sc_tensor *x = mk2(SC_DTYPE_F32, 5, 3, v), *xt, *outs[4];
    sc__karg k[3];
    size_t n;
    sc_error err;

    k[0] = KT(x);
    k[1] = KI(2);
    k[2] = KI(0);
    n = runN(sc__kernel_split, 3, k, outs);
    ck_assert_uint_eq(n, 3);
    expect_shape(outs[0], 2, (int64_t)2, (int64_t)3);
    expect_shape(outs[2], 2, (int64_t)1, (int64_t)3);
    ck_assert_ptr_eq(outs[1]->storage, x->storage);
    {
        static const double w[] = {6, 7, 8, 9, 10, 11};
        expect_vals(outs[1], 6, w, 0);
    }
    ck_assert(sc_tensor_item_double(outs[2], 2) == 14);
    free_outs(outs, n);
    /* split of a transposed view, along its last dim */
    ck_assert(sc_tensor_transpose(x, 0, 1, &xt, &err) == SC_OK);
    k[0] = KT(xt);
    k[1] = KI(3);
    k[2] = KI(-1);
    n = runN(sc__kernel_split, 3, k, outs);
    ck_assert_uint_eq(n, 2);
    expect_shape(outs[1], 2, (int64_t)3, (int64_t)2);
    {
        static const double w[] = {9, 12, 10, 13, 11, 14};
        expect_vals(outs[1], 6, w, 0);
    }
    free_outs(outs, n);
    k[0] = KT(x);
    k[1] = KL(2, lens);
    k[2] = KI(0);
    n = runN(sc__kernel_split_with_sizes, 3, k, outs);
    ck_assert_uint_eq(n, 2);
    expect_shape(outs[1], 2, (int64_t)4, (int64_t)3);
    ck_assert(sc_tensor_item_double(outs[1], 0) == 3);
    free_outs(outs, n);
    k[1] = KL(2, bad);
    ck_assert_int_eq(run_fail(sc__kernel_split_with_sizes, 3, k),
                     SC_ERR_SHAPE);
    k[1] = KI(0);
    ck_assert_int_eq(run_fail(sc__kernel_split, 3, k), SC_ERR_INVALID);
    /* unbind along dim 1: three [5] views */
    k[1] = KI(1);
    n = runN(sc__kernel_unbind, 2, k, outs);
    ck_assert_uint_eq(n, 3);
    expect_shape(outs[2], 1, (int64_t)5);
    {
        static const double w[] = {2, 5, 8, 11, 14};
        expect_vals(outs[2], 5, w, 0);
    }
    ck_assert_ptr_eq(outs[0]->storage, x->storage);
    free_outs(outs, n);
    /* more pieces than outputs: a clean error */
    k[1] = KI(0);
    ck_assert_int_eq(run_fail(sc__kernel_unbind, 2, k), SC_ERR_INVALID);
    sc_tensor_free(xt);
    sc_tensor_free(x);
}
END_TEST

START_TEST(test_sum_to_size_clamp_nonzero)
{
    int64_t sz[3] = {2, 3, 4}, to[2] = {3, 1}, bad[2] = {2, 4}, same[3] = {
        2, 3, 4};
    sc_tensor *x = mkrand(SC_DTYPE_F32, 3, sz, 11), *r;
    sc__karg k[3];
    size_t i, j, l;

    k[0] = KT(x);
    k[1] = KL(2, to);
    r = run1(sc__kernel_sum_to_size, 2, k);
    expect_shape(r, 2, (int64_t)3, (int64_t)1);
    for (j = 0; j < 3; j++) {
        double s = 0;
        for (i = 0; i < 2; i++)
            for (l = 0; l < 4; l++)
                s += sc_tensor_item_double(x, (i * 3 + j) * 4 + l);
        ck_assert_msg(fabs(sc_tensor_item_double(r, j) - s) < 1e-5,
                      "row %zu", j);
    }
    sc_tensor_free(r);
    k[1] = KL(3, same);
    r = run1(sc__kernel_sum_to_size, 2, k);
    ck_assert_ptr_eq(r->storage, x->storage);
    sc_tensor_free(r);
    k[1] = KL(2, bad);
    ck_assert_int_eq(run_fail(sc__kernel_sum_to_size, 2, k), SC_ERR_SHAPE);
    sc_tensor_free(x);

    {
        static const double v[] = {-3, -0.5, 0.25, 2, NAN, 7};
        static const double w1[] = {-1, -0.5, 0.25, 1, NAN, 1};
        static const double w2[] = {-3, -0.5, 0, 0, NAN, 0};
        static const double w3[] = {1, 1, 1, 1, NAN, 1}; /* min > max */
        x = mk1(SC_DTYPE_F32, 6, v);
        k[0] = KT(x);
        k[1] = KI(-1);
        k[2] = KF(1.0);
        r = run1(sc__kernel_clamp, 3, k);
        expect_vals(r, 6, w1, 0);
        sc_tensor_free(r);
        k[1] = KN();
        k[2] = KI(0);
        r = run1(sc__kernel_clamp, 3, k);
        expect_vals(r, 6, w2, 0);
        sc_tensor_free(r);
        k[1] = KI(3);
        k[2] = KI(1);
        r = run1(sc__kernel_clamp, 3, k);
        expect_vals(r, 6, w3, 0);
        sc_tensor_free(r);
        k[1] = KN();
        k[2] = KN();
        ck_assert_int_eq(run_fail(sc__kernel_clamp, 3, k), SC_ERR_INVALID);
        sc_tensor_free(x);
    }
    {
        /* an integer tensor with a float bound promotes to float32 */
        static const double v[] = {-5, 0, 5};
        static const double w[] = {-1.5, 0, 5};
        x = mk1(SC_DTYPE_I64, 3, v);
        k[0] = KT(x);
        k[1] = KF(-1.5);
        k[2] = KN();
        r = run1(sc__kernel_clamp, 3, k);
        ck_assert_int_eq(r->dtype, SC_DTYPE_F32);
        expect_vals(r, 3, w, 0);
        sc_tensor_free(r);
        k[1] = KI(-1);
        r = run1(sc__kernel_clamp, 3, k);
        ck_assert_int_eq(r->dtype, SC_DTYPE_I64);
        ck_assert_int_eq(sc_tensor_item_int64(r, 0), -1);
        sc_tensor_free(r);
        sc_tensor_free(x);
    }
    {
        static const double v[] = {0, 1, 2, 0, NAN, 0};
        static const int64_t w[] = {0, 1, 0, 2, 1, 1};
        sc_tensor *xt;
        sc_error err;
        x = mk2(SC_DTYPE_F32, 2, 3, v);
        k[0] = KT(x);
        r = run1(sc__kernel_nonzero, 1, k);
        expect_shape(r, 2, (int64_t)3, (int64_t)2);
        ck_assert_int_eq(r->dtype, SC_DTYPE_I64);
        for (i = 0; i < 6; i++)
            ck_assert_int_eq(sc_tensor_item_int64(r, i), w[i]);
        sc_tensor_free(r);
        /* non-contiguous: the transposed view's own row-major order */
        ck_assert(sc_tensor_transpose(x, 0, 1, &xt, &err) == SC_OK);
        k[0] = KT(xt);
        r = run1(sc__kernel_nonzero, 1, k);
        {
            static const int64_t wt[] = {1, 0, 1, 1, 2, 0};
            for (i = 0; i < 6; i++)
                ck_assert_int_eq(sc_tensor_item_int64(r, i), wt[i]);
        }
        sc_tensor_free(r);
        sc_tensor_free(xt);
        sc_tensor_free(x);
    }
}
END_TEST

START_TEST(test_dropout_backward_randn)
{
    static const double g[] = {1, 2, 3, 4}, m[] = {1, 0, 1, 1};
    static const double want[] = {1.25, 0, 3.75, 5};
    int64_t big = 20000;
    sc_tensor *tg = mk1(SC_DTYPE_F32, 4, g), *tm = mk1(SC_DTYPE_B8, 4, m), *r,
              *r2, *x;
    sc__karg k[3];
    double s = 0, q = 0, v;
    size_t i;

    k[0] = KT(tg);
    k[1] = KT(tm);
    k[2] = KF(1.25);
    r = run1(sc__kernel_native_dropout_backward, 3, k);
    expect_vals(r, 4, want, 0);
    sc_tensor_free(r);
    x = mk1(SC_DTYPE_F32, big, NULL);
    k[0] = KT(x);
    k[1] = KN();
    r = run1(sc__kernel_randn_like, 2, k);
    for (i = 0; i < (size_t)big; i++) {
        v = sc_tensor_item_double(r, i);
        s += v;
        q += v * v;
    }
    s /= (double)big;
    q = q / (double)big - s * s;
    ck_assert_msg(fabs(s) < 0.03 && fabs(q - 1) < 0.05,
                  "randn_like: mean %g var %g", s, q);
    r2 = run1(sc__kernel_randn_like, 2, k);
    ck_assert(bits_equal(r, r2)); /* recomputation gives the same bits */
    sc_tensor_free(r2);
    k[1] = KD(SC_DTYPE_I64);
    ck_assert_int_eq(run_fail(sc__kernel_randn_like, 2, k), SC_ERR_TYPE);
    sc_tensor_free(r);
    sc_tensor_free(x);
    sc_tensor_free(tg);
    sc_tensor_free(tm);
}
END_TEST

START_TEST(test_symbolic_getitem)
{
    int64_t sz[3] = {2, 3, 4};
    sc_tensor *x = mk(SC_DTYPE_F32, 3, sz, NULL), *r;
    const sc_tensor *tup[3];
    sc__karg k[2];
    static const struct {
        kfn fn;
        int64_t a, b, want;
    } cases[] = {
        {sc__kernel_sym_add, 5, -7, -2},
        {sc__kernel_sym_sub, 5, -7, 12},
        {sc__kernel_sym_mul, -3, 7, -21},
        {sc__kernel_sym_floordiv, -7, 2, -4},
        {sc__kernel_sym_floordiv, 7, -2, -4},
        {sc__kernel_sym_floordiv, 7, 2, 3},
        {sc__kernel_sym_mod, -7, 2, 1},
        {sc__kernel_sym_mod, 7, -2, -1},
        {sc__kernel_sym_mod, 6, 3, 0},
    };
    size_t i, n;
    sc_tensor *outs[4];

    k[0] = KT(x);
    k[1] = KI(-1);
    r = run1(sc__kernel_sym_size, 2, k);
    ck_assert_int_eq(sc_tensor_item_int64(r, 0), 4);
    sc_tensor_free(r);
    k[1] = KI(0);
    r = run1(sc__kernel_sym_stride, 2, k);
    ck_assert_int_eq(sc_tensor_item_int64(r, 0), 12);
    sc_tensor_free(r);
    r = run1(sc__kernel_sym_numel, 1, k);
    ck_assert_int_eq(sc_tensor_item_int64(r, 0), 24);
    ck_assert_int_eq(r->dtype, SC_DTYPE_I64);
    ck_assert_uint_eq(r->ndim, 0);
    sc_tensor_free(r);
    k[1] = KI(3);
    ck_assert_int_eq(run_fail(sc__kernel_sym_size, 2, k), SC_ERR_INVALID);
    for (i = 0; i < ARRAY_SIZE(cases); i++) {
        k[0] = KI(cases[i].a);
        k[1] = KI(cases[i].b);
        r = run1(cases[i].fn, 2, k);
        ck_assert_msg(sc_tensor_item_int64(r, 0) == cases[i].want,
                      "case %zu: %lld", i,
                      (long long)sc_tensor_item_int64(r, 0));
        sc_tensor_free(r);
    }
    k[0] = KI(1);
    k[1] = KI(0);
    ck_assert_int_eq(run_fail(sc__kernel_sym_mod, 2, k), SC_ERR_DIV_ZERO);
    k[0] = KI(INT64_MAX);
    k[1] = KI(1);
    ck_assert_int_eq(run_fail(sc__kernel_sym_add, 2, k), SC_ERR_OVERFLOW);
    k[0] = KI(-4);
    r = run1(sc__kernel_sym_neg, 1, k);
    ck_assert_int_eq(sc_tensor_item_int64(r, 0), 4);
    sc_tensor_free(r);
    /* getitem: an alias of the element; None stays None */
    tup[0] = NULL;
    tup[1] = x;
    tup[2] = NULL;
    k[0] = KTS(3, tup);
    k[1] = KI(-2);
    n = runN(sc__kernel_getitem, 2, k, outs);
    ck_assert_uint_eq(n, 1);
    ck_assert_ptr_eq(outs[0]->storage, x->storage);
    ck_assert_ptr_ne(outs[0], x);
    sc_tensor_free(outs[0]);
    k[1] = KI(0);
    n = runN(sc__kernel_getitem, 2, k, outs);
    ck_assert_uint_eq(n, 1);
    ck_assert_ptr_null(outs[0]);
    k[1] = KI(3);
    ck_assert_int_eq(run_fail(sc__kernel_getitem, 2, k), SC_ERR_INVALID);
    sc_tensor_free(x);
}
END_TEST

/* ---- embedding and nll_loss ------------------------------------------------------ */

START_TEST(test_embedding)
{
    static const double wv[] = {0, 1, 2, 10, 11, 12, 20, 21, 22, 30, 31, 32,
                                40, 41, 42};
    static const double iv[] = {0, 4, 2, 2};
    int64_t isz[2] = {2, 2};
    sc_tensor *w = mk2(SC_DTYPE_F32, 5, 3, wv), *ix = mk(SC_DTYPE_I64, 2, isz,
                                                          iv);
    sc_tensor *r, *wt, *g, *w16;
    sc__karg k[5];
    sc_error err;
    size_t i, j, d;

    k[0] = KT(w);
    k[1] = KT(ix);
    k[2] = KI(-1);
    k[3] = KB(false);
    k[4] = KB(false);
    r = run1(sc__kernel_embedding, 5, k);
    expect_shape(r, 3, (int64_t)2, (int64_t)2, (int64_t)3);
    {
        static const double want[] = {0,  1,  2,  40, 41, 42,
                                      20, 21, 22, 20, 21, 22};
        expect_vals(r, 12, want, 0);
    }
    sc_tensor_free(r);
    /* a non-contiguous weight: the rows of w^T^T through a transpose */
    {
        sc_tensor *wc;
        ck_assert(sc_tensor_transpose(w, 0, 1, &wt, &err) == SC_OK);
        ck_assert(sc_tensor_clone(wt, &wc, &err) == SC_OK);
        sc_tensor_free(wt);
        ck_assert(sc_tensor_transpose(wc, 0, 1, &wt, &err) == SC_OK);
        sc_tensor_free(wc);
        ck_assert(!sc_tensor_is_contiguous(wt));
        k[0] = KT(wt);
        r = run1(sc__kernel_embedding, 5, k);
        ck_assert(sc_tensor_item_double(r, 4) == 41);
        sc_tensor_free(r);
        sc_tensor_free(wt);
    }
    ck_assert(sc_tensor_to_dtype(w, SC_DTYPE_F16, &w16, &err) == SC_OK);
    k[0] = KT(w16);
    r = run1(sc__kernel_embedding, 5, k);
    ck_assert_int_eq(r->dtype, SC_DTYPE_F16);
    ck_assert(sc_tensor_item_double(r, 11) == 22);
    sc_tensor_free(r);
    sc_tensor_free(w16);
    k[0] = KT(w);
    ck_assert(sc_tensor_set_int64(ix, (int64_t[]){1, 0}, 5, &err) == SC_OK);
    ck_assert_int_eq(run_fail(sc__kernel_embedding, 5, k), SC_ERR_INVALID);
    ck_assert(sc_tensor_set_int64(ix, (int64_t[]){1, 0}, -1, &err) == SC_OK);
    ck_assert_int_eq(run_fail(sc__kernel_embedding, 5, k), SC_ERR_INVALID);
    ck_assert(sc_tensor_set_int64(ix, (int64_t[]){1, 0}, 2, &err) == SC_OK);

    /* backward: rows accumulate; padding_idx skipped; freq scaling */
    {
        int64_t gs[3] = {2, 2, 3};
        int freq;
        g = mkrand(SC_DTYPE_F32, 3, gs, 5);
        for (freq = 0; freq < 2; freq++) {
            int64_t pad = freq ? 4 : -1;
            double want[15] = {0};
            int64_t cnt[5] = {0};
            for (i = 0; i < 4; i++)
                cnt[(int64_t)iv[i]]++;
            for (i = 0; i < 4; i++) {
                int64_t row = (int64_t)iv[i];
                if (row == pad)
                    continue;
                for (d = 0; d < 3; d++)
                    want[row * 3 + (int64_t)d] +=
                        sc_tensor_item_double(g, i * 3 + d) /
                        (freq ? (double)cnt[row] : 1.0);
            }
            k[0] = KT(g);
            k[1] = KT(ix);
            k[2] = KI(5);
            k[3] = KI(pad);
            k[4] = KB(freq != 0);
            r = run1(sc__kernel_embedding_dense_backward, 5, k);
            expect_shape(r, 2, (int64_t)5, (int64_t)3);
            expect_vals(r, 15, want, 1e-6);
            sc_tensor_free(r);
        }
        /* an index beyond num_weights */
        k[2] = KI(3);
        k[3] = KI(-1);
        ck_assert_int_eq(run_fail(sc__kernel_embedding_dense_backward, 5, k),
                         SC_ERR_INVALID);
        sc_tensor_free(g);
    }
    (void)j;
    sc_tensor_free(w);
    sc_tensor_free(ix);
}
END_TEST

START_TEST(test_nll_loss)
{
    static const double xv[] = {-1.0, -2.0, -0.5, -3.0, -0.1, -0.2, -0.3,
                                -0.4, -5.0, -6.0, -7.0, -8.0};
    static const double tv[] = {1, -100, 3};
    static const double wv[] = {0.5, 2.0, 1.0, 4.0};
    sc_tensor *x = mk2(SC_DTYPE_F32, 3, 4, xv), *t = mk1(SC_DTYPE_I64, 3, tv),
              *w = mk1(SC_DTYPE_F32, 4, wv), *outs[4], *go, *gi;
    sc__karg k[7];
    size_t n;
    int weighted, red;

    for (weighted = 0; weighted < 2; weighted++)
        for (red = 0; red < 3; red++) {
            double l0 = 2.0 * (weighted ? 2.0 : 1.0);
            double l2 = 8.0 * (weighted ? 4.0 : 1.0);
            double tw = weighted ? 6.0 : 2.0, gval = 0.5;
            k[0] = KT(x);
            k[1] = KT(t);
            k[2] = weighted ? KT(w) : KN();
            k[3] = KI(red);
            k[4] = KI(-100);
            n = runN(sc__kernel_nll_loss_forward, 5, k, outs);
            ck_assert_uint_eq(n, 2);
            if (red == 0) {
                double want[3] = {l0, 0, l2};
                expect_shape(outs[0], 1, (int64_t)3);
                expect_vals(outs[0], 3, want, 1e-7);
            } else {
                double want = red == 1 ? (l0 + l2) / tw : l0 + l2;
                ck_assert_uint_eq(outs[0]->ndim, 0);
                expect_vals(outs[0], 1, &want, 1e-7);
                expect_vals(outs[1], 1, &tw, 0);
            }
            /* backward: -w[t] * g (/ total_weight for mean) at the target */
            if (red == 0) {
                double gv[3] = {0.5, 0.5, 0.5};
                go = mk1(SC_DTYPE_F32, 3, gv);
            } else {
                go = mk(SC_DTYPE_F32, 0, NULL, &gval);
            }
            k[0] = KT(go);
            k[1] = KT(x);
            k[2] = KT(t);
            k[3] = weighted ? KT(w) : KN();
            k[4] = KI(red);
            k[5] = KI(-100);
            k[6] = KT(outs[1]);
            gi = run1(sc__kernel_nll_loss_backward, 7, k);
            {
                double want[12] = {0}, s = red == 1 ? gval / tw : gval;
                want[1] = -s * (weighted ? 2.0 : 1.0);
                want[11] = -s * (weighted ? 4.0 : 1.0);
                expect_vals(gi, 12, want, 1e-7);
            }
            sc_tensor_free(gi);
            sc_tensor_free(go);
            free_outs(outs, n);
        }
    /* 1-d input with a 0-d target; all ignored gives NaN for mean */
    {
        sc_tensor *x1, *t0;
        double tgt = 2, want = 0.5 / 1.0, nanv = NAN;
        x1 = mk1(SC_DTYPE_F64, 4, xv);
        t0 = mk(SC_DTYPE_I64, 0, NULL, &tgt);
        k[0] = KT(x1);
        k[1] = KT(t0);
        k[2] = KN();
        k[3] = KI(1);
        k[4] = KI(-100);
        n = runN(sc__kernel_nll_loss_forward, 5, k, outs);
        ck_assert_uint_eq(outs[0]->ndim, 0);
        expect_vals(outs[0], 1, &want, 0);
        free_outs(outs, n);
        k[4] = KI(2);
        n = runN(sc__kernel_nll_loss_forward, 5, k, outs);
        expect_vals(outs[0], 1, &nanv, 0);
        free_outs(outs, n);
        sc_tensor_free(x1);
        sc_tensor_free(t0);
    }
    /* errors: target out of range, bad reduction, float target */
    k[0] = KT(x);
    k[1] = KT(t);
    k[2] = KN();
    k[3] = KI(1);
    k[4] = KI(1);
    ck_assert_int_eq(run_fail(sc__kernel_nll_loss_forward, 5, k),
                     SC_ERR_INVALID);
    k[4] = KI(-100);
    k[3] = KI(3);
    ck_assert_int_eq(run_fail(sc__kernel_nll_loss_forward, 5, k),
                     SC_ERR_INVALID);
    k[3] = KI(1);
    k[1] = KT(x);
    ck_assert_int_eq(run_fail(sc__kernel_nll_loss_forward, 5, k),
                     SC_ERR_TYPE);
    sc_tensor_free(x);
    sc_tensor_free(t);
    sc_tensor_free(w);
}
END_TEST

/* ---- convolution, pooling, normalisation ----------------------------------------- */

/* sum(go * outs[which]) of a kernel run, in double. */
static double fd_loss(kfn fn, size_t nargs, const sc__karg *k, size_t which,
                      const sc_tensor *go)
{
    sc_tensor *outs[4] = {NULL};
    size_t n = runN(fn, nargs, k, outs), i, m;
    double s = 0;
    ck_assert_uint_gt(n, which);
    m = sc_tensor_numel(outs[which]);
    ck_assert_uint_eq(m, sc_tensor_numel(go));
    for (i = 0; i < m; i++)
        s += sc_tensor_item_double(go, i) *
             sc_tensor_item_double(outs[which], i);
    free_outs(outs, n);
    return s;
}

/* Central differences of fd_loss with respect to each element of param
 * (a contiguous f64 tensor the arguments refer to) against `analytic`. */
static void fd_check(kfn fn, size_t nargs, const sc__karg *k, size_t which,
                     const sc_tensor *go, sc_tensor *param,
                     const sc_tensor *analytic, double h, double tol,
                     const char *what)
{
    double *p = sc_tensor_data(param);
    size_t i, n = sc_tensor_numel(param);
    ck_assert(param->dtype == SC_DTYPE_F64 && sc_tensor_is_contiguous(param));
    ck_assert_msg(analytic != NULL, "%s: no analytic gradient", what);
    ck_assert_uint_eq(sc_tensor_numel(analytic), n);
    for (i = 0; i < n; i++) {
        double v = p[i], lp, lm, num, a;
        p[i] = v + h;
        lp = fd_loss(fn, nargs, k, which, go);
        p[i] = v - h;
        lm = fd_loss(fn, nargs, k, which, go);
        p[i] = v;
        num = (lp - lm) / (2 * h);
        a = sc_tensor_item_double(analytic, i);
        ck_assert_msg(fabs(num - a) <= tol * (1 + fabs(a)),
                      "%s[%zu]: analytic %.10g, numeric %.10g", what, i, a,
                      num);
    }
}

/* The direct definition of a 2-d convolution, in double. */
static void naive_conv2d(const sc_tensor *x, const sc_tensor *w,
                         const sc_tensor *b, const int64_t *st,
                         const int64_t *pd, const int64_t *dl, int64_t groups,
                         const sc_tensor *y)
{
    int64_t N = x->sizes[0], C = x->sizes[1], H = x->sizes[2],
            W = x->sizes[3];
    int64_t O = w->sizes[0], Cg = w->sizes[1], KH = w->sizes[2],
            KW = w->sizes[3];
    int64_t OH = y->sizes[2], OW = y->sizes[3], n, o, oh, ow, c, kh, kw;
    sc_error err;
    ck_assert_int_eq(C, Cg * groups);
    for (n = 0; n < N; n++)
        for (o = 0; o < O; o++)
            for (oh = 0; oh < OH; oh++)
                for (ow = 0; ow < OW; ow++) {
                    int64_t g = o / (O / groups), idx[4];
                    double s = 0, got;
                    if (b) {
                        idx[0] = o;
                        ck_assert(sc_tensor_get_double(b, idx, &s, &err) ==
                                  SC_OK);
                    }
                    for (c = 0; c < Cg; c++)
                        for (kh = 0; kh < KH; kh++)
                            for (kw = 0; kw < KW; kw++) {
                                int64_t ih = oh * st[0] - pd[0] + kh * dl[0];
                                int64_t iw = ow * st[1] - pd[1] + kw * dl[1];
                                double xv, wv;
                                if (ih < 0 || ih >= H || iw < 0 || iw >= W)
                                    continue;
                                idx[0] = n;
                                idx[1] = g * Cg + c;
                                idx[2] = ih;
                                idx[3] = iw;
                                sc_tensor_get_double(x, idx, &xv, &err);
                                idx[0] = o;
                                idx[1] = c;
                                idx[2] = kh;
                                idx[3] = kw;
                                sc_tensor_get_double(w, idx, &wv, &err);
                                s += xv * wv;
                            }
                    idx[0] = n;
                    idx[1] = o;
                    idx[2] = oh;
                    idx[3] = ow;
                    sc_tensor_get_double(y, idx, &got, &err);
                    ck_assert_msg(fabs(got - s) <= 1e-5 * (1 + fabs(s)),
                                  "conv[%lld,%lld,%lld,%lld]: %.9g, want "
                                  "%.9g",
                                  (long long)n, (long long)o, (long long)oh,
                                  (long long)ow, got, s);
                }
}

static sc_tensor *channels_last_copy(const sc_tensor *x)
{
    int64_t st[4];
    sc_tensor *r;
    sc_error err;
    st[1] = 1;
    st[3] = x->sizes[1];
    st[2] = st[3] * x->sizes[3];
    st[0] = st[2] * x->sizes[2];
    ck_assert(sc_tensor_new_strided(x->dtype, 4, x->sizes, st, &r, &err) ==
              SC_OK);
    ck_assert(sc_tensor_copy(r, x, &err) == SC_OK);
    return r;
}

static double tdot(const sc_tensor *a, const sc_tensor *b)
{
    size_t i, n = sc_tensor_numel(a);
    double s = 0;
    ck_assert_uint_eq(n, sc_tensor_numel(b));
    for (i = 0; i < n; i++)
        s += sc_tensor_item_double(a, i) * sc_tensor_item_double(b, i);
    return s;
}

START_TEST(test_convolution)
{
    int64_t xs[4] = {2, 4, 5, 6}, ws[4] = {6, 2, 3, 2}, bsz = 6;
    int64_t st[2] = {2, 1}, pd[2] = {1, 0}, dl[2] = {1, 2}, zero[2] = {0, 0};
    int64_t one[1] = {1}, zero1[1] = {0}, two1[1] = {2};
    bool mask_all[3] = {true, true, true}, mask_ib[3] = {true, false, true};
    sc_tensor *x = mkrand(SC_DTYPE_F64, 4, xs, 21);
    sc_tensor *w = mkrand(SC_DTYPE_F64, 4, ws, 22);
    sc_tensor *b = mkrand(SC_DTYPE_F64, 1, &bsz, 23);
    sc_tensor *y, *y32, *x32, *w32, *b32, *xcl, *go, *outs[4];
    sc__karg k[11];
    sc_error err;
    size_t n;

    k[0] = KT(x);
    k[1] = KT(w);
    k[2] = KT(b);
    k[3] = KL(2, st);
    k[4] = KL(2, pd);
    k[5] = KL(2, dl);
    k[6] = KB(false);
    k[7] = KL(2, zero);
    k[8] = KI(2);
    y = run1(sc__kernel_convolution, 9, k);
    expect_shape(y, 4, (int64_t)2, (int64_t)6, (int64_t)3, (int64_t)4);
    naive_conv2d(x, w, b, st, pd, dl, 2, y);
    /* f32, and a channels_last (non-contiguous) f32 input */
    ck_assert(sc_tensor_to_dtype(x, SC_DTYPE_F32, &x32, &err) == SC_OK);
    ck_assert(sc_tensor_to_dtype(w, SC_DTYPE_F32, &w32, &err) == SC_OK);
    ck_assert(sc_tensor_to_dtype(b, SC_DTYPE_F32, &b32, &err) == SC_OK);
    xcl = channels_last_copy(x32);
    ck_assert(!sc_tensor_is_contiguous(xcl));
    k[0] = KT(xcl);
    k[1] = KT(w32);
    k[2] = KT(b32);
    y32 = run1(sc__kernel_convolution, 9, k);
    ck_assert_int_eq(y32->dtype, SC_DTYPE_F32);
    naive_conv2d(x, w, b, st, pd, dl, 2, y32);
    sc_tensor_free(y32);
    /* mismatched dtypes and channel counts are errors */
    k[0] = KT(x);
    ck_assert_int_eq(run_fail(sc__kernel_convolution, 9, k), SC_ERR_TYPE);
    k[1] = KT(w);
    k[2] = KT(b);
    k[8] = KI(1);
    ck_assert_int_eq(run_fail(sc__kernel_convolution, 9, k), SC_ERR_SHAPE);
    k[8] = KI(2);

    /* backward against finite differences of sum(go * conv) */
    go = mkrand(SC_DTYPE_F64, 4, y->sizes, 24);
    {
        sc__karg kb[11];
        kb[0] = KT(go);
        kb[1] = KT(x);
        kb[2] = KT(w);
        kb[3] = KL(1, &bsz);
        kb[4] = KL(2, st);
        kb[5] = KL(2, pd);
        kb[6] = KL(2, dl);
        kb[7] = KB(false);
        kb[8] = KL(2, zero);
        kb[9] = KI(2);
        kb[10] = KBL(3, mask_all);
        n = runN(sc__kernel_convolution_backward, 11, kb, outs);
        ck_assert_uint_eq(n, 3);
        expect_shape(outs[2], 1, (int64_t)6);
        fd_check(sc__kernel_convolution, 9, k, 0, go, x, outs[0], 1e-3, 1e-7,
                 "conv grad_input");
        fd_check(sc__kernel_convolution, 9, k, 0, go, w, outs[1], 1e-3, 1e-7,
                 "conv grad_weight");
        fd_check(sc__kernel_convolution, 9, k, 0, go, b, outs[2], 1e-3, 1e-7,
                 "conv grad_bias");
        free_outs(outs, n);
        kb[10] = KBL(3, mask_ib);
        n = runN(sc__kernel_convolution_backward, 11, kb, outs);
        ck_assert_uint_eq(n, 3);
        ck_assert_ptr_nonnull(outs[0]);
        ck_assert_ptr_null(outs[1]);
        ck_assert_ptr_nonnull(outs[2]);
        free_outs(outs, n);
    }

    /* transposed: the adjoint of the plain convolution (no bias) */
    {
        sc_tensor *yb, *xt;
        double lhs, rhs;
        k[0] = KT(x);
        k[1] = KT(w);
        k[2] = KN();
        yb = run1(sc__kernel_convolution, 9, k);
        k[0] = KT(go);
        k[6] = KB(true);
        xt = run1(sc__kernel_convolution, 9, k);
        expect_shape(xt, 4, (int64_t)2, (int64_t)4, (int64_t)5, (int64_t)6);
        lhs = tdot(xt, x);
        rhs = tdot(go, yb);
        ck_assert_msg(fabs(lhs - rhs) <= 1e-9 * (1 + fabs(rhs)),
                      "<convT(g), x> = %.12g, <g, conv(x)> = %.12g", lhs, rhs);
        /* its backward, by finite differences */
        {
            sc_tensor *gt = mkrand(SC_DTYPE_F64, 4, xt->sizes, 25);
            sc__karg kb[11];
            kb[0] = KT(gt);
            kb[1] = KT(go);
            kb[2] = KT(w);
            kb[3] = KN();
            kb[4] = KL(2, st);
            kb[5] = KL(2, pd);
            kb[6] = KL(2, dl);
            kb[7] = KB(true);
            kb[8] = KL(2, zero);
            kb[9] = KI(2);
            kb[10] = KBL(3, mask_all);
            n = runN(sc__kernel_convolution_backward, 11, kb, outs);
            expect_shape(outs[2], 1, (int64_t)4);
            fd_check(sc__kernel_convolution, 9, k, 0, gt, go, outs[0], 1e-3,
                     1e-7, "convT grad_input");
            fd_check(sc__kernel_convolution, 9, k, 0, gt, w, outs[1], 1e-3,
                     1e-7, "convT grad_weight");
            free_outs(outs, n);
            sc_tensor_free(gt);
        }
        sc_tensor_free(yb);
        sc_tensor_free(xt);
        k[6] = KB(false);
    }

    /* 1-d equals 2-d with a height of 1; 3-d with depth 1 equals 2-d */
    {
        int64_t x1s[3] = {2, 4, 6}, w1s[3] = {6, 2, 2};
        int64_t x2s[4] = {2, 4, 1, 6}, w2s[4] = {6, 2, 1, 2};
        int64_t x3s[5] = {2, 4, 1, 1, 6}, w3s[5] = {6, 2, 1, 1, 2};
        int64_t st2[2] = {1, 1}, dl2[2] = {1, 2}, st3[3] = {1, 1, 1},
                pd3[3] = {0, 0, 0}, dl3[3] = {1, 1, 2};
        sc_tensor *a1 = mkrand(SC_DTYPE_F32, 3, x1s, 31);
        sc_tensor *v1 = mkrand(SC_DTYPE_F32, 3, w1s, 32);
        sc_tensor *a2, *v2, *a3, *v3, *r1, *r2, *r3;
        ck_assert(sc_tensor_view(a1, 4, x2s, &a2, &err) == SC_OK);
        ck_assert(sc_tensor_view(v1, 4, w2s, &v2, &err) == SC_OK);
        ck_assert(sc_tensor_view(a1, 5, x3s, &a3, &err) == SC_OK);
        ck_assert(sc_tensor_view(v1, 5, w3s, &v3, &err) == SC_OK);
        k[0] = KT(a1);
        k[1] = KT(v1);
        k[2] = KN();
        k[3] = KL(1, one);
        k[4] = KL(1, zero1);
        k[5] = KL(1, two1);
        k[7] = KL(1, zero1);
        r1 = run1(sc__kernel_convolution, 9, k);
        k[0] = KT(a2);
        k[1] = KT(v2);
        k[3] = KL(2, st2);
        k[4] = KL(2, zero);
        k[5] = KL(2, dl2);
        k[7] = KL(2, zero);
        r2 = run1(sc__kernel_convolution, 9, k);
        k[0] = KT(a3);
        k[1] = KT(v3);
        k[3] = KL(3, st3);
        k[4] = KL(3, pd3);
        k[5] = KL(3, dl3);
        k[7] = KL(3, pd3);
        r3 = run1(sc__kernel_convolution, 9, k);
        expect_shape(r1, 3, (int64_t)2, (int64_t)6, (int64_t)4);
        ck_assert_uint_eq(sc_tensor_numel(r2), sc_tensor_numel(r1));
        ck_assert_uint_eq(r3->ndim, 5);
        ck_assert(memcmp(sc_tensor_data(r1), sc_tensor_data(r2),
                         sc_tensor_nbytes(r1)) == 0);
        ck_assert(memcmp(sc_tensor_data(r1), sc_tensor_data(r3),
                         sc_tensor_nbytes(r1)) == 0);
        sc_tensor_free(r1);
        sc_tensor_free(r2);
        sc_tensor_free(r3);
        sc_tensor_free(a1);
        sc_tensor_free(a2);
        sc_tensor_free(a3);
        sc_tensor_free(v1);
        sc_tensor_free(v2);
        sc_tensor_free(v3);
    }
    /* a real 3-d convolution: backward by finite differences */
    {
        int64_t x3s[5] = {1, 2, 3, 4, 3}, w3s[5] = {2, 2, 2, 3, 2};
        int64_t s3[3] = {1, 2, 1}, p3[3] = {1, 1, 0}, d3[3] = {1, 1, 2},
                z3[3] = {0, 0, 0};
        sc_tensor *a = mkrand(SC_DTYPE_F64, 5, x3s, 41);
        sc_tensor *v = mkrand(SC_DTYPE_F64, 5, w3s, 42), *r, *g3;
        sc__karg kb[11];
        k[0] = KT(a);
        k[1] = KT(v);
        k[2] = KN();
        k[3] = KL(3, s3);
        k[4] = KL(3, p3);
        k[5] = KL(3, d3);
        k[7] = KL(3, z3);
        k[8] = KI(1);
        r = run1(sc__kernel_convolution, 9, k);
        expect_shape(r, 5, (int64_t)1, (int64_t)2, (int64_t)4, (int64_t)2,
                     (int64_t)1);
        g3 = mkrand(SC_DTYPE_F64, 5, r->sizes, 43);
        kb[0] = KT(g3);
        kb[1] = KT(a);
        kb[2] = KT(v);
        kb[3] = KN();
        kb[4] = KL(3, s3);
        kb[5] = KL(3, p3);
        kb[6] = KL(3, d3);
        kb[7] = KB(false);
        kb[8] = KL(3, z3);
        kb[9] = KI(1);
        kb[10] = KBL(3, mask_all);
        n = runN(sc__kernel_convolution_backward, 11, kb, outs);
        fd_check(sc__kernel_convolution, 9, k, 0, g3, a, outs[0], 1e-3, 1e-7,
                 "conv3d grad_input");
        fd_check(sc__kernel_convolution, 9, k, 0, g3, v, outs[1], 1e-3, 1e-7,
                 "conv3d grad_weight");
        free_outs(outs, n);
        sc_tensor_free(r);
        sc_tensor_free(g3);
        sc_tensor_free(a);
        sc_tensor_free(v);
    }
    sc_tensor_free(go);
    sc_tensor_free(y);
    sc_tensor_free(x);
    sc_tensor_free(w);
    sc_tensor_free(b);
    sc_tensor_free(x32);
    sc_tensor_free(w32);
    sc_tensor_free(b32);
    sc_tensor_free(xcl);
}
END_TEST

START_TEST(test_max_pool2d)
{
    static const double v[] = {0,  1,  2,  3,  4,  5,  6,  7,
                               8,  9,  10, 11, 12, 13, 14, 15};
    int64_t xs[4] = {1, 1, 4, 4}, two[2] = {2, 2}, none[1] = {0};
    int64_t zero[2] = {0, 0}, one[2] = {1, 1};
    sc_tensor *x = mk(SC_DTYPE_F32, 4, xs, v), *outs[4];
    sc__karg k[8];
    size_t n, i;

    k[0] = KT(x);
    k[1] = KL(2, two);
    k[2] = KL(0, none);
    k[3] = KL(2, zero);
    k[4] = KL(2, one);
    k[5] = KB(false);
    n = runN(sc__kernel_max_pool2d_with_indices, 6, k, outs);
    ck_assert_uint_eq(n, 2);
    expect_shape(outs[0], 4, (int64_t)1, (int64_t)1, (int64_t)2, (int64_t)2);
    {
        static const double want[] = {5, 7, 13, 15};
        expect_vals(outs[0], 4, want, 0);
        ck_assert_int_eq(outs[1]->dtype, SC_DTYPE_I64);
        expect_vals(outs[1], 4, want, 0);
    }
    free_outs(outs, n);

    /* against the direct definition: padding, dilation, ceil_mode, a 3-d
     * non-contiguous input, a NaN */
    {
        int64_t rs[3] = {2, 7, 10}, ks[2] = {3, 2}, ss[2] = {2, 3},
                ps[2] = {1, 0}, ds[2] = {2, 1};
        sc_tensor *r = mkrand(SC_DTYPE_F64, 3, rs, 51), *rt, *rc;
        sc_error err;
        int ceil;
        ck_assert(sc_tensor_set_double(r, (int64_t[]){1, 3, 3}, NAN, &err) ==
                  SC_OK);
        /* the same values through a transposed copy */
        ck_assert(sc_tensor_transpose(r, 1, 2, &rt, &err) == SC_OK);
        ck_assert(sc_tensor_clone(rt, &rc, &err) == SC_OK);
        sc_tensor_free(rt);
        ck_assert(sc_tensor_transpose(rc, 1, 2, &rt, &err) == SC_OK);
        for (ceil = 0; ceil < 2; ceil++) {
            int64_t OH, OW, c, oh, ow;
            k[0] = KT(rt);
            k[1] = KL(2, ks);
            k[2] = KL(2, ss);
            k[3] = KL(2, ps);
            k[4] = KL(2, ds);
            k[5] = KB(ceil != 0);
            n = runN(sc__kernel_max_pool2d_with_indices, 6, k, outs);
            OH = outs[0]->sizes[1];
            OW = outs[0]->sizes[2];
            ck_assert_int_eq(OH, 3);
            ck_assert_int_eq(OW, ceil ? 4 : 3); /* ceil: a window at 9 */
            for (c = 0; c < 2; c++)
                for (oh = 0; oh < OH; oh++)
                    for (ow = 0; ow < OW; ow++) {
                        double m = -INFINITY, got;
                        int64_t best = -1, kh, kw, gi;
                        for (kh = 0; kh < 3; kh++)
                            for (kw = 0; kw < 2; kw++) {
                                int64_t h = oh * 2 - 1 + kh * 2,
                                        w = ow * 3 + kw;
                                double e;
                                if (h < 0 || h >= 7 || w < 0 || w >= 10)
                                    continue;
                                sc_tensor_get_double(
                                    r, (int64_t[]){c, h, w}, &e, &err);
                                if (best < 0 || e > m || isnan(e)) {
                                    m = e;
                                    best = h * 10 + w;
                                }
                            }
                        sc_tensor_get_double(outs[0],
                                             (int64_t[]){c, oh, ow}, &got,
                                             &err);
                        sc_tensor_get_int64(outs[1],
                                            (int64_t[]){c, oh, ow}, &gi,
                                            &err);
                        ck_assert_msg(gi == best,
                                      "pool index (%lld,%lld,%lld): %lld, "
                                      "want %lld",
                                      (long long)c, (long long)oh,
                                      (long long)ow, (long long)gi,
                                      (long long)best);
                        ck_assert(isnan(m) ? isnan(got) : got == m);
                    }
            free_outs(outs, n);
        }
        sc_tensor_free(rt);
        sc_tensor_free(rc);
        sc_tensor_free(r);
    }
    /* padding beyond half the kernel is refused */
    k[0] = KT(x);
    k[1] = KL(2, two);
    k[2] = KL(0, none);
    k[3] = KL(2, two);
    k[4] = KL(2, one);
    k[5] = KB(false);
    ck_assert_int_eq(run_fail(sc__kernel_max_pool2d_with_indices, 6, k),
                     SC_ERR_INVALID);

    /* backward: overlapping windows accumulate */
    {
        int64_t s1[2] = {1, 1};
        sc_tensor *g, *gi;
        double want[16] = {0};
        k[0] = KT(x);
        k[1] = KL(2, two);
        k[2] = KL(2, s1);
        k[3] = KL(2, zero);
        n = runN(sc__kernel_max_pool2d_with_indices, 6, k, outs);
        g = mkrand(SC_DTYPE_F32, 4, outs[0]->sizes, 52);
        for (i = 0; i < 9; i++)
            want[sc_tensor_item_int64(outs[1], i)] +=
                sc_tensor_item_double(g, i);
        k[0] = KT(g);
        k[1] = KT(x);
        k[2] = KL(2, two);
        k[3] = KL(2, s1);
        k[4] = KL(2, zero);
        k[5] = KL(2, one);
        k[6] = KB(false);
        k[7] = KT(outs[1]);
        gi = run1(sc__kernel_max_pool2d_with_indices_backward, 8, k);
        expect_shape(gi, 4, (int64_t)1, (int64_t)1, (int64_t)4, (int64_t)4);
        expect_vals(gi, 16, want, 1e-6);
        ck_assert(sc_tensor_item_double(gi, 0) == 0);
        sc_tensor_free(gi);
        sc_tensor_free(g);
        free_outs(outs, n);
    }
    sc_tensor_free(x);
}
END_TEST

/* Graphs of tests/data/kernels/<case>/ (tools/zoo/kernels_data.py, torch
 * 2.13): run on their inputs, every output equal to torch's bit for bit. */
static const char *const torch_bit_cases[] = {"batch_norm_f32"};

START_TEST(test_torch_bits)
{
    const char *name = torch_bit_cases[_i];
    char path[1200];
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = NULL;
    sc_tensor **in, **out;
    sc_error err;
    size_t np, no, k;

    snprintf(path, sizeof path, "%s/%s/graph.txt", data_dir(), name);
    ck_assert_msg(sc_graph_read_file(ctx, path, NULL, &g, &err) == SC_OK,
                  "%s: %s", path, err.message);
    np = sc_graph_placeholder_count(g);
    no = sc_graph_output_count(g);
    in = calloc(np + 1, sizeof *in);
    out = calloc(no + 1, sizeof *out);
    ck_assert(in && out);
    for (k = 0; k < np; k++) {
        snprintf(path, sizeof path, "%s/%s.npy", name,
                 sc_graph_node_name(g, (sc_node_id)k));
        in[k] = load(path);
    }
    ck_assert_msg(sc_interp_run(g, in, NULL, out, NULL, &err) == SC_OK,
                  "%s: %s", name, err.message);
    for (k = 0; k < no; k++) {
        sc_tensor *want;
        snprintf(path, sizeof path, "%s/out_%zu.npy", name, k);
        want = load(path);
        ck_assert_msg(bits_equal(out[k], want),
                      "%s: output %zu differs from torch's", name, k);
        sc_tensor_free(want);
        sc_tensor_free(out[k]);
    }
    for (k = 0; k < np; k++)
        sc_tensor_free(in[k]);
    free(in);
    free(out);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

START_TEST(test_batch_norm)
{
    int64_t xs[4] = {3, 2, 2, 2}, cs = 2;
    static const double rm0[] = {0.5, -1.0}, rv0[] = {2.0, 0.5};
    bool mask_all[3] = {true, true, true};
    sc_tensor *x = mkrand(SC_DTYPE_F64, 4, xs, 61);
    sc_tensor *w = mkrand(SC_DTYPE_F64, 1, &cs, 62);
    sc_tensor *b = mkrand(SC_DTYPE_F64, 1, &cs, 63);
    sc_tensor *rm = mk1(SC_DTYPE_F64, 2, rm0), *rv = mk1(SC_DTYPE_F64, 2, rv0);
    sc_tensor *outs[4], *bouts[4], *go;
    sc__karg k[10];
    size_t n, nb, c, i;
    const double eps = 1e-5, mom = 0.1;

    k[0] = KT(x);
    k[1] = KT(w);
    k[2] = KT(b);
    k[3] = KT(rm);
    k[4] = KT(rv);
    k[5] = KB(true);
    k[6] = KF(mom);
    k[7] = KF(eps);
    n = runN(sc__kernel_native_batch_norm, 8, k, outs);
    ck_assert_uint_eq(n, 3);
    expect_shape(outs[1], 1, (int64_t)2);
    for (c = 0; c < 2; c++) {
        double s = 0, q = 0, mu, var, is, wc, bc;
        for (i = 0; i < 12; i++)
            s += sc_tensor_item_double(x, (i / 4 * 2 + c) * 4 + i % 4);
        mu = s / 12;
        for (i = 0; i < 12; i++) {
            double d =
                sc_tensor_item_double(x, (i / 4 * 2 + c) * 4 + i % 4) - mu;
            q += d * d;
        }
        var = q / 12;
        is = 1 / sqrt(var + eps);
        wc = sc_tensor_item_double(w, c);
        bc = sc_tensor_item_double(b, c);
        ck_assert(fabs(sc_tensor_item_double(outs[1], c) - mu) < 1e-12);
        ck_assert(fabs(sc_tensor_item_double(outs[2], c) - is) < 1e-9);
        for (i = 0; i < 12; i++) {
            size_t e = (i / 4 * 2 + c) * 4 + i % 4;
            double want = (sc_tensor_item_double(x, e) - mu) * is * wc + bc;
            ck_assert(fabs(sc_tensor_item_double(outs[0], e) - want) < 1e-9);
        }
        /* the running statistics were updated in place */
        ck_assert(fabs(sc_tensor_item_double(rm, c) -
                       ((1 - mom) * rm0[c] + mom * mu)) < 1e-12);
        ck_assert(fabs(sc_tensor_item_double(rv, c) -
                       ((1 - mom) * rv0[c] + mom * q / 11)) < 1e-12);
    }
    free_outs(outs, n);

    /* f32 channels_last input gives the same values to float precision */
    {
        sc_tensor *x32, *xcl, *ref[4], *rm2, *rv2;
        sc_error err;
        size_t m;
        ck_assert(sc_tensor_to_dtype(x, SC_DTYPE_F32, &x32, &err) == SC_OK);
        xcl = channels_last_copy(x32);
        rm2 = mk1(SC_DTYPE_F32, 2, rm0);
        rv2 = mk1(SC_DTYPE_F32, 2, rv0);
        k[3] = KT(rm2);
        k[4] = KT(rv2);
        k[1] = KN();
        k[2] = KN();
        m = runN(sc__kernel_native_batch_norm, 8, k, ref);
        k[0] = KT(xcl);
        ck_assert(sc_tensor_copy(rm2, rm, &err) == SC_OK); /* unused */
        n = runN(sc__kernel_native_batch_norm, 8, k, outs);
        ck_assert_int_eq(outs[0]->dtype, SC_DTYPE_F32);
        ck_assert(max_rel_diff(outs[0], ref[0], 1e-5) < 1e-5);
        ck_assert(max_rel_diff(outs[2], ref[2], 1e-5) < 1e-5);
        free_outs(outs, n);
        free_outs(ref, m);
        sc_tensor_free(rm2);
        sc_tensor_free(rv2);
        sc_tensor_free(xcl);
        sc_tensor_free(x32);
        k[0] = KT(x);
        k[1] = KT(w);
        k[2] = KT(b);
    }

    /* eval mode: the running statistics normalise; empty saved stats */
    k[3] = KT(rm);
    k[4] = KT(rv);
    k[5] = KB(false);
    n = runN(sc__kernel_native_batch_norm, 8, k, outs);
    expect_shape(outs[1], 1, (int64_t)0);
    expect_shape(outs[2], 1, (int64_t)0);
    for (i = 0; i < 24; i++) {
        size_t ch = i / 4 % 2;
        double want = (sc_tensor_item_double(x, i) -
                       sc_tensor_item_double(rm, ch)) /
                          sqrt(sc_tensor_item_double(rv, ch) + eps) *
                          sc_tensor_item_double(w, ch) +
                      sc_tensor_item_double(b, ch);
        ck_assert(fabs(sc_tensor_item_double(outs[0], i) - want) < 1e-9);
    }
    free_outs(outs, n);
    k[3] = KN();
    ck_assert_int_eq(run_fail(sc__kernel_native_batch_norm, 8, k),
                     SC_ERR_INVALID);

    /* backward, train and eval, by finite differences (no running stats in
     * the train runs, so that they stay put) */
    go = mkrand(SC_DTYPE_F64, 4, xs, 64);
    {
        int train;
        for (train = 0; train < 2; train++) {
            k[3] = train ? KN() : KT(rm);
            k[4] = train ? KN() : KT(rv);
            k[5] = KB(train != 0);
            n = runN(sc__kernel_native_batch_norm, 8, k, outs);
            {
                sc__karg kb[10];
                kb[0] = KT(go);
                kb[1] = KT(x);
                kb[2] = KT(w);
                kb[3] = KT(rm);
                kb[4] = KT(rv);
                kb[5] = train ? KT(outs[1]) : KN();
                kb[6] = train ? KT(outs[2]) : KN();
                kb[7] = KB(train != 0);
                kb[8] = KF(eps);
                kb[9] = KBL(3, mask_all);
                nb = runN(sc__kernel_native_batch_norm_backward, 10, kb,
                          bouts);
            }
            ck_assert_uint_eq(nb, 3);
            fd_check(sc__kernel_native_batch_norm, 8, k, 0, go, x, bouts[0],
                     1e-5, 1e-6, "bn grad_input");
            fd_check(sc__kernel_native_batch_norm, 8, k, 0, go, w, bouts[1],
                     1e-5, 1e-6, "bn grad_weight");
            fd_check(sc__kernel_native_batch_norm, 8, k, 0, go, b, bouts[2],
                     1e-5, 1e-6, "bn grad_bias");
            free_outs(bouts, nb);
            free_outs(outs, n);
        }
    }
    sc_tensor_free(go);
    sc_tensor_free(x);
    sc_tensor_free(w);
    sc_tensor_free(b);
    sc_tensor_free(rm);
    sc_tensor_free(rv);
}
END_TEST

/* The saved statistics' dtype: float32 for a bf16/f16 input whose
 * defined parameters are float32 (PyTorch's mixed-type CPU batch norm),
 * else the input's; the values are the float statistics, not rounded to
 * the input's dtype. */
START_TEST(test_batch_norm_mixed_stats)
{
    static const struct {
        sc_dtype x, p; /* input; parameters (SC_DTYPE_B8: none) */
        bool running, train;
        sc_dtype want;
    } rows[] = {
        {SC_DTYPE_BF16, SC_DTYPE_F32, true, true, SC_DTYPE_F32},
        {SC_DTYPE_BF16, SC_DTYPE_F32, false, true, SC_DTYPE_F32},
        {SC_DTYPE_F16, SC_DTYPE_F32, true, true, SC_DTYPE_F32},
        {SC_DTYPE_BF16, SC_DTYPE_F32, true, false, SC_DTYPE_F32},
        {SC_DTYPE_BF16, SC_DTYPE_BF16, true, true, SC_DTYPE_BF16},
        {SC_DTYPE_BF16, SC_DTYPE_B8, false, true, SC_DTYPE_BF16},
        {SC_DTYPE_F32, SC_DTYPE_F32, true, true, SC_DTYPE_F32},
    };
    int64_t xs[3] = {4, 2, 3}, cs = 2;
    static const double rm0[] = {0.25, -0.5}, rv0[] = {1.5, 0.75};
    size_t r;

    for (r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        bool params = rows[r].p != SC_DTYPE_B8;
        sc_dtype pd = params ? rows[r].p : SC_DTYPE_F32;
        sc_tensor *x = mkrand(rows[r].x, 3, xs, 71);
        sc_tensor *w = mkrand(pd, 1, &cs, 72), *b = mkrand(pd, 1, &cs, 73);
        sc_tensor *rm = mk1(pd, 2, rm0), *rv = mk1(pd, 2, rv0);
        sc_tensor *outs[4];
        sc__karg k[8];
        size_t n, c, unrounded = 0;

        k[0] = KT(x);
        k[1] = params ? KT(w) : KN();
        k[2] = params ? KT(b) : KN();
        k[3] = rows[r].running ? KT(rm) : KN();
        k[4] = rows[r].running ? KT(rv) : KN();
        k[5] = KB(rows[r].train);
        k[6] = KF(0.1);
        k[7] = KF(1e-5);
        n = runN(sc__kernel_native_batch_norm, 8, k, outs);
        ck_assert_uint_eq(n, 3);
        ck_assert_msg(outs[0]->dtype == rows[r].x, "row %zu", r);
        ck_assert_msg(outs[1]->dtype == rows[r].want &&
                          outs[2]->dtype == rows[r].want,
                      "row %zu: statistics %s, want %s", r,
                      sc_dtype_code(outs[1]->dtype),
                      sc_dtype_code(rows[r].want));
        expect_shape(outs[1], 1, (int64_t)(rows[r].train ? 2 : 0));
        if (rows[r].train && rows[r].want == SC_DTYPE_F32) {
            /* each statistic against the float formula in double, and at
             * least one of them is not a bf16 value */
            for (c = 0; c < 2; c++) {
                double s = 0, q = 0, mu, is;
                size_t i;
                for (i = 0; i < 12; i++)
                    s += sc_tensor_item_double(x, (i / 3 * 2 + c) * 3 + i % 3);
                mu = s / 12;
                for (i = 0; i < 12; i++) {
                    double d = sc_tensor_item_double(
                                   x, (i / 3 * 2 + c) * 3 + i % 3) -
                               mu;
                    q += d * d;
                }
                is = 1 / sqrt(q / 12 + 1e-5);
                ck_assert(fabs(sc_tensor_item_double(outs[1], c) - mu) <
                          1e-6 * (1 + fabs(mu)));
                ck_assert(fabs(sc_tensor_item_double(outs[2], c) - is) <
                          1e-6 * is);
                if (rows[r].x == SC_DTYPE_BF16) {
                    float m = (float)sc_tensor_item_double(outs[1], c);
                    float v = (float)sc_tensor_item_double(outs[2], c);
                    unrounded += sc_bf16_to_f32(sc_f32_to_bf16(m)) != m;
                    unrounded += sc_bf16_to_f32(sc_f32_to_bf16(v)) != v;
                }
            }
            if (rows[r].x == SC_DTYPE_BF16)
                ck_assert_msg(unrounded > 0, "row %zu: rounded to bf16", r);
        }
        if (rows[r].train) {
            /* the backward reads the float32 statistics */
            bool mask[3] = {true, true, true};
            sc_tensor *go = mkrand(rows[r].x, 3, xs, 74), *bo[3];
            sc__karg kb[10];
            size_t nb;
            kb[0] = KT(go);
            kb[1] = KT(x);
            kb[2] = params ? KT(w) : KN();
            kb[3] = KN();
            kb[4] = KN();
            kb[5] = KT(outs[1]);
            kb[6] = KT(outs[2]);
            kb[7] = KB(true);
            kb[8] = KF(1e-5);
            kb[9] = KBL(3, mask);
            nb = runN(sc__kernel_native_batch_norm_backward, 10, kb, bo);
            ck_assert_uint_eq(nb, 3);
            ck_assert_int_eq(bo[0]->dtype, rows[r].x);
            free_outs(bo, nb);
            sc_tensor_free(go);
        }
        free_outs(outs, n);
        sc_tensor_free(x);
        sc_tensor_free(w);
        sc_tensor_free(b);
        sc_tensor_free(rm);
        sc_tensor_free(rv);
    }
}
END_TEST

START_TEST(test_group_norm)
{
    int64_t xs[3] = {2, 4, 3}, cs = 4;
    bool mask_all[3] = {true, true, true};
    sc_tensor *x = mkrand(SC_DTYPE_F64, 3, xs, 71);
    sc_tensor *w = mkrand(SC_DTYPE_F64, 1, &cs, 72);
    sc_tensor *b = mkrand(SC_DTYPE_F64, 1, &cs, 73);
    sc_tensor *outs[4], *bouts[4], *go;
    sc__karg k[10];
    size_t n, nb, i, j;
    const double eps = 1e-5;

    k[0] = KT(x);
    k[1] = KT(w);
    k[2] = KT(b);
    k[3] = KI(2);
    k[4] = KI(4);
    k[5] = KI(3);
    k[6] = KI(2);
    k[7] = KF(eps);
    n = runN(sc__kernel_native_group_norm, 8, k, outs);
    expect_shape(outs[1], 2, (int64_t)2, (int64_t)2);
    for (i = 0; i < 4; i++) { /* (n, group): 6 consecutive elements */
        double s = 0, q = 0, mu, rs;
        for (j = 0; j < 6; j++)
            s += sc_tensor_item_double(x, i * 6 + j);
        mu = s / 6;
        for (j = 0; j < 6; j++)
            q += pow(sc_tensor_item_double(x, i * 6 + j) - mu, 2);
        rs = 1 / sqrt(q / 6 + eps);
        ck_assert(fabs(sc_tensor_item_double(outs[1], i) - mu) < 1e-12);
        ck_assert(fabs(sc_tensor_item_double(outs[2], i) - rs) < 1e-9);
        for (j = 0; j < 6; j++) {
            size_t ch = (i % 2) * 2 + j / 3;
            double want = (sc_tensor_item_double(x, i * 6 + j) - mu) * rs *
                              sc_tensor_item_double(w, ch) +
                          sc_tensor_item_double(b, ch);
            ck_assert(fabs(sc_tensor_item_double(outs[0], i * 6 + j) - want) <
                      1e-9);
        }
    }
    go = mkrand(SC_DTYPE_F64, 3, xs, 74);
    {
        sc__karg kb[10];
        kb[0] = KT(go);
        kb[1] = KT(x);
        kb[2] = KT(outs[1]);
        kb[3] = KT(outs[2]);
        kb[4] = KT(w);
        kb[5] = KI(2);
        kb[6] = KI(4);
        kb[7] = KI(3);
        kb[8] = KI(2);
        kb[9] = KBL(3, mask_all);
        nb = runN(sc__kernel_native_group_norm_backward, 10, kb, bouts);
    }
    fd_check(sc__kernel_native_group_norm, 8, k, 0, go, x, bouts[0], 1e-5,
             1e-6, "gn grad_input");
    fd_check(sc__kernel_native_group_norm, 8, k, 0, go, w, bouts[1], 1e-5,
             1e-6, "gn grad_weight");
    fd_check(sc__kernel_native_group_norm, 8, k, 0, go, b, bouts[2], 1e-5,
             1e-6, "gn grad_bias");
    free_outs(bouts, nb);
    free_outs(outs, n);
    k[6] = KI(3);
    ck_assert_int_eq(run_fail(sc__kernel_native_group_norm, 8, k),
                     SC_ERR_INVALID);
    sc_tensor_free(go);
    sc_tensor_free(x);
    sc_tensor_free(w);
    sc_tensor_free(b);
}
END_TEST

/* Out-of-memory at every allocation of the new multi-output kernels. */
static void oom_loop(kfn fn, size_t nargs, const sc__karg *k,
                     const char *what)
{
    long i;
    for (i = 0; i < 40; i++) {
        sc_tensor *outs[4];
        size_t n;
        sc_error err;
        sc_status st;
        sc__alloc_fail_after(i);
        st = run(fn, nargs, k, outs, &n, &err);
        sc__alloc_fail_after(-1);
        if (st == SC_OK) {
            free_outs(outs, n);
            return;
        }
        ck_assert_msg(st == SC_ERR_NOMEM, "%s step %ld: %s", what, i,
                      err.message);
        ck_assert_uint_eq(n, 0);
    }
    ck_abort_msg("%s: still failing after 40 allocations", what);
}

START_TEST(test_new_kernels_oom)
{
    int64_t xs[4] = {2, 2, 4, 4}, ws[4] = {2, 2, 3, 3}, one[2] = {1, 1},
            zero[2] = {0, 0}, two[2] = {2, 2}, cs = 2;
    bool mask_all[3] = {true, true, true};
    sc_tensor *x = mkrand(SC_DTYPE_F32, 4, xs, 81);
    sc_tensor *w = mkrand(SC_DTYPE_F32, 4, ws, 82);
    sc_tensor *go = mkrand(SC_DTYPE_F32, 4, xs, 83);
    sc_tensor *rm = mk1(SC_DTYPE_F32, 2, NULL);
    sc_tensor *rv = mkrand(SC_DTYPE_F32, 1, &cs, 84);
    sc__karg k[11];

    k[0] = KT(go);
    k[1] = KT(x);
    k[2] = KT(w);
    k[3] = KN();
    k[4] = KL(2, one);
    k[5] = KL(2, one);
    k[6] = KL(2, one);
    k[7] = KB(false);
    k[8] = KL(2, zero);
    k[9] = KI(1);
    k[10] = KBL(3, mask_all);
    oom_loop(sc__kernel_convolution_backward, 11, k, "convolution_backward");
    k[0] = KT(x);
    k[1] = KN();
    k[2] = KN();
    k[3] = KT(rm);
    k[4] = KT(rv);
    k[5] = KB(true);
    k[6] = KF(0.1);
    k[7] = KF(1e-5);
    oom_loop(sc__kernel_native_batch_norm, 8, k, "native_batch_norm");
    k[1] = KL(2, two);
    k[2] = KL(0, zero);
    k[3] = KL(2, zero);
    k[4] = KL(2, one);
    k[5] = KB(false);
    oom_loop(sc__kernel_max_pool2d_with_indices, 6, k, "max_pool2d");
    k[1] = KI(1);
    k[2] = KI(2);
    oom_loop(sc__kernel_split, 3, k, "split");
    sc_tensor_free(x);
    sc_tensor_free(w);
    sc_tensor_free(go);
    sc_tensor_free(rm);
    sc_tensor_free(rv);
}
END_TEST

/* lm_head_ce: the loss (embedding, addmm, gelu, log_softmax,
 * nll_loss_forward) and the embedding gradient (nll_loss_backward back to
 * embedding_dense_backward) as the joint graph computes them, against
 * PyTorch's outputs. */
START_TEST(test_lm_head_ce)
{
    sc_tensor *p1 = load("lm_head_ce/primals_1.npy");
    sc_tensor *p2 = load("lm_head_ce/primals_2.npy");
    sc_tensor *p3 = load("lm_head_ce/primals_3.npy");
    sc_tensor *p4 = load("lm_head_ce/primals_4.npy");
    sc_tensor *p5 = load("lm_head_ce/primals_5.npy");
    sc_tensor *p6 = load("lm_head_ce/primals_6.npy");
    sc_tensor *p7 = load("lm_head_ce/primals_7.npy");
    sc_tensor *tg = load("lm_head_ce/tangents_1.npy");
    sc_tensor *o0 = load("lm_head_ce/out_0.npy");
    sc_tensor *o1 = load("lm_head_ce/out_1.npy");
    sc_tensor *emb, *view, *t, *addmm, *gelu, *t1, *addmm1, *tgt, *lsm,
        *nll[4], *nllb, *lsmb, *mm, *gb, *mm2, *g3, *edb;
    int64_t s64[2] = {64, 64}, s3[3] = {4, 16, 64}, m1 = -1;
    sc__karg k[7];
    sc_error err;
    size_t n;

    k[0] = KT(p1);
    k[1] = KT(p6);
    emb = run1(sc__kernel_embedding, 2, k);
    ck_assert(sc_tensor_view(emb, 2, s64, &view, &err) == SC_OK);
    k[0] = KT(p2);
    t = run1(sc__kernel_t, 1, k);
    k[0] = KT(p3);
    k[1] = KT(view);
    k[2] = KT(t);
    addmm = run1(sc__kernel_addmm, 3, k);
    k[0] = KT(addmm);
    gelu = run1(sc__kernel_gelu, 1, k);
    k[0] = KT(p4);
    t1 = run1(sc__kernel_t, 1, k);
    k[0] = KT(p5);
    k[1] = KT(gelu);
    k[2] = KT(t1);
    addmm1 = run1(sc__kernel_addmm, 3, k);
    ck_assert(sc_tensor_view(p7, 1, &m1, &tgt, &err) == SC_OK);
    k[0] = KT(addmm1);
    k[1] = KI(1);
    k[2] = KB(false);
    lsm = run1(sc__kernel_log_softmax, 3, k);
    k[0] = KT(lsm);
    k[1] = KT(tgt);
    k[2] = KN();
    k[3] = KI(1);
    k[4] = KI(-100);
    n = runN(sc__kernel_nll_loss_forward, 5, k, nll);
    ck_assert_uint_eq(n, 2);
    ck_assert_msg(max_rel_diff(nll[0], o0, 1e-5) <= 1e-4, "loss %.9g vs %.9g",
                  sc_tensor_item_double(nll[0], 0),
                  sc_tensor_item_double(o0, 0));
    ck_assert(sc_tensor_item_double(nll[1], 0) == 64);

    k[0] = KT(tg);
    k[1] = KT(lsm);
    k[2] = KT(tgt);
    k[3] = KN();
    k[4] = KI(1);
    k[5] = KI(-100);
    k[6] = KT(nll[1]);
    nllb = run1(sc__kernel_nll_loss_backward, 7, k);
    k[0] = KT(nllb);
    k[1] = KT(lsm);
    k[2] = KI(1);
    k[3] = KD(SC_DTYPE_F32);
    lsmb = run1(sc__kernel_log_softmax_backward_data, 4, k);
    k[0] = KT(lsmb);
    k[1] = KT(p4);
    mm = run1(sc__kernel_mm, 2, k);
    k[0] = KT(mm);
    k[1] = KT(addmm);
    gb = run1(sc__kernel_gelu_backward, 2, k);
    k[0] = KT(gb);
    k[1] = KT(p2);
    mm2 = run1(sc__kernel_mm, 2, k);
    ck_assert(sc_tensor_view(mm2, 3, s3, &g3, &err) == SC_OK);
    k[0] = KT(g3);
    k[1] = KT(p6);
    k[2] = KI(1000);
    k[3] = KI(-1);
    k[4] = KB(false);
    edb = run1(sc__kernel_embedding_dense_backward, 5, k);
    ck_assert_msg(max_rel_diff(edb, o1, 1e-5) <= 1e-4,
                  "embedding gradient: max rel diff %g",
                  max_rel_diff(edb, o1, 1e-5));

    free_outs(nll, n);
    sc_tensor_free(emb);
    sc_tensor_free(view);
    sc_tensor_free(t);
    sc_tensor_free(addmm);
    sc_tensor_free(gelu);
    sc_tensor_free(t1);
    sc_tensor_free(addmm1);
    sc_tensor_free(tgt);
    sc_tensor_free(lsm);
    sc_tensor_free(nllb);
    sc_tensor_free(lsmb);
    sc_tensor_free(mm);
    sc_tensor_free(gb);
    sc_tensor_free(mm2);
    sc_tensor_free(g3);
    sc_tensor_free(edb);
    sc_tensor_free(p1);
    sc_tensor_free(p2);
    sc_tensor_free(p3);
    sc_tensor_free(p4);
    sc_tensor_free(p5);
    sc_tensor_free(p6);
    sc_tensor_free(p7);
    sc_tensor_free(tg);
    sc_tensor_free(o0);
    sc_tensor_free(o1);
}
END_TEST

/* Attention on float32 (and bfloat16) inputs, the blocked float32 path,
 * against the float64 path on the same values: several query blocks (200
 * rows: 64-row blocks and an edge), two key blocks (600 keys: 512 and 88),
 * causal and not, with a float mask whose first query row is fully
 * masked; forward (out, lse) and backward (dq, dk, dv). */
static void sdpa_f32_case(sc_dtype d, bool causal, double tol)
{
    int64_t qs[4] = {1, 2, 200, 8}, ks[4] = {1, 2, 600, 8},
            vs[4] = {1, 2, 600, 5}, gs[4] = {1, 2, 200, 5}, ms[2] = {200, 600};
    sc_tensor *q[2], *k[2], *v[2], *g[2], *m[2], *fo[2][2], *bo[2][3];
    size_t x, i, n;
    for (x = 0; x < 2; x++) {
        sc_dtype t = x == 0 ? d : SC_DTYPE_F64;
        double *mv = calloc(200 * 600, sizeof *mv);
        ck_assert_ptr_nonnull(mv);
        for (i = 0; i < 200 * 600; i++)
            mv[i] = i < 600 ? -INFINITY : (double)(i % 7) * 0.25 - 0.5;
        q[x] = mkrand(t, 4, qs, 11);
        k[x] = mkrand(t, 4, ks, 12);
        v[x] = mkrand(t, 4, vs, 13);
        g[x] = mkrand(t, 4, gs, 14);
        m[x] = mk(t, 2, ms, mv);
        free(mv);
        {
            sc__karg fa[7] = {KT(q[x]), KT(k[x]), KT(v[x]), KF(0),
                              KB(causal), KT(m[x]), KN()};
            n = runN(sc__kernel_sdpa_flash_cpu, 7, fa, fo[x]);
            ck_assert_uint_eq(n, 2);
        }
        {
            sc__karg ba[10] = {KT(g[x]), KT(q[x]), KT(k[x]), KT(v[x]),
                               KT(fo[x][0]), KT(fo[x][1]), KF(0),
                               KB(causal), KT(m[x]), KN()};
            n = runN(sc__kernel_sdpa_flash_cpu_backward, 10, ba, bo[x]);
            ck_assert_uint_eq(n, 3);
        }
    }
    ck_assert_int_eq(fo[0][0]->dtype, d);
    ck_assert_int_eq(fo[0][1]->dtype, SC_DTYPE_F32);
    /* the fully masked first row of each head: out 0, lse -inf */
    for (i = 0; i < 5; i++)
        ck_assert(sc_tensor_item_double(fo[0][0], i) == 0);
    ck_assert(isinf(sc_tensor_item_double(fo[0][1], 0)));
    ck_assert(isinf(sc_tensor_item_double(fo[0][1], 200)));
    for (i = 0; i < 2; i++)
        ck_assert_msg(max_rel_diff(fo[0][i], fo[1][i], tol) <= tol,
                      "forward result %zu: %g", i,
                      max_rel_diff(fo[0][i], fo[1][i], tol));
    for (i = 0; i < 3; i++)
        ck_assert_msg(max_rel_diff(bo[0][i], bo[1][i], tol) <= tol,
                      "gradient %zu: %g", i,
                      max_rel_diff(bo[0][i], bo[1][i], tol));
    for (x = 0; x < 2; x++) {
        sc_tensor_free(q[x]);
        sc_tensor_free(k[x]);
        sc_tensor_free(v[x]);
        sc_tensor_free(g[x]);
        sc_tensor_free(m[x]);
        free_outs(fo[x], 2);
        free_outs(bo[x], 3);
    }
}

START_TEST(test_sdpa_f32_blocked)
{
    sdpa_f32_case(SC_DTYPE_F32, false, 1e-4);
    sdpa_f32_case(SC_DTYPE_F32, true, 1e-4);
    /* bfloat16 inputs and results: within bfloat16's rounding */
    sdpa_f32_case(SC_DTYPE_BF16, true, 3e-2);
}
END_TEST

Suite *kernels_suite(void)
{
    Suite *s = suite_create("kernels");
    TCase *tc = tcase_create("tensors");
    tcase_add_test(tc, test_empty_tensor_huge_sizes);
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
    tcase_add_test(tc, test_sdpa_f32_blocked);
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
    tc = tcase_create("nn");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_creation);
    tcase_add_test(tc, test_graph2_ops);
    tcase_add_test(tc, test_split_unbind);
    tcase_add_test(tc, test_sum_to_size_clamp_nonzero);
    tcase_add_test(tc, test_dropout_backward_randn);
    tcase_add_test(tc, test_symbolic_getitem);
    tcase_add_test(tc, test_embedding);
    tcase_add_test(tc, test_nll_loss);
    tcase_add_test(tc, test_convolution);
    tcase_add_test(tc, test_max_pool2d);
    tcase_add_test(tc, test_batch_norm);
    tcase_add_test(tc, test_batch_norm_mixed_stats);
    tcase_add_loop_test(tc, test_torch_bits, 0,
                        (int)(sizeof torch_bit_cases / sizeof torch_bit_cases[0]));
    tcase_add_test(tc, test_group_norm);
    tcase_add_test(tc, test_new_kernels_oom);
    tcase_add_test(tc, test_lm_head_ce);
    suite_add_tcase(s, tc);
    return s;
}
