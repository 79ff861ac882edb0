/* symcut tests — the matrix products of kernels/gemm.c against the
 * summation contract of kernels/gemm.h (a chain of fmaf / fma in
 * increasing k for every element, the same bits through every entry
 * point, layout and size), and the strided gathers and scatters of
 * kernels/tensor.c that feed the other kernels.  Random cases: seeded by
 * SYMCUT_SEED, SYMCUT_CASES of them. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/gemm.h"
#include "kernels/kernels-internal.h"
#include "tests/testutil.h"

Suite *gemm_suite(void);

/* A value in [-1, 1) with 24 random bits (exact in float). */
static double draw(sc_test_rng *r)
{
    return (double)(sc_test_rng_next(r) >> 40) / (double)(1u << 23) - 1.0;
}

/* One layout of an r x c matrix in a buffer: rows rs apart and columns cs
 * apart (row-major with padding, or transposed). */
typedef struct layout {
    ptrdiff_t rs, cs;
    size_t len;
} layout;

static layout pick_layout(sc_test_rng *g, size_t r, size_t c)
{
    layout l;
    size_t pad = (size_t)sc_test_rng_below(g, 3);
    if (sc_test_rng_below(g, 2)) { /* row-major, rows padded */
        l.rs = (ptrdiff_t)(c + pad);
        l.cs = 1;
        l.len = r * (c + pad) + 1;
    } else { /* column-major: a transposed view */
        l.rs = 1;
        l.cs = (ptrdiff_t)(r + pad);
        l.len = c * (r + pad) + 1;
    }
    return l;
}

/* The sizes of one case: mostly small (the scalar path and the edge
 * tiles), sometimes past the packing threshold and in several passes over
 * k (of at most 768). */
static void pick_sizes(sc_test_rng *g, size_t *n, size_t *k, size_t *m)
{
    if (sc_test_rng_below(g, 4) == 0) { /* one or more passes over k */
        *n = (size_t)sc_test_rng_range(g, 12, 40);
        *k = (size_t)sc_test_rng_range(g, 200, 1700);
        *m = (size_t)sc_test_rng_range(g, 30, 70);
    } else {
        *n = (size_t)sc_test_rng_range(g, 1, 40);
        *k = (size_t)sc_test_rng_range(g, 0, 60);
        *m = (size_t)sc_test_rng_range(g, 1, 70);
    }
}

#define DEFINE_CASE(SUF, T, FMA)                                              \
    /* One random product through sc__gemm_##SUF##_strided and through      \
     * each kernel level of this machine against the scalar loop of fused   \
     * steps; 1 when the bits agree everywhere. */                          \
    static int case_##SUF(sc_test_rng *g, size_t *bad_n, size_t *bad_k,      \
                          size_t *bad_m, int *bad_level)                     \
    {                                                                        \
        size_t n, k, m, i, j, p, ldc;                                        \
        layout la, lb;                                                       \
        T *a, *b, *c, *c0, *want;                                            \
        int same, lv;                                                        \
        pick_sizes(g, &n, &k, &m);                                           \
        la = pick_layout(g, n, k);                                           \
        lb = pick_layout(g, k, m);                                           \
        ldc = m + (size_t)sc_test_rng_below(g, 3);                           \
        a = malloc(la.len * sizeof *a);                                      \
        b = malloc(lb.len * sizeof *b);                                      \
        c = malloc(n * ldc * sizeof *c);                                     \
        want = malloc(n * ldc * sizeof *want);                               \
        c0 = malloc(n * ldc * sizeof *c0);                                   \
        ck_assert(a && b && c && c0 && want);                                \
        for (i = 0; i < la.len; i++)                                         \
            a[i] = (T)draw(g);                                               \
        for (i = 0; i < lb.len; i++)                                         \
            b[i] = (T)draw(g);                                               \
        for (i = 0; i < n * ldc; i++)                                        \
            c[i] = want[i] = (T)draw(g);                                     \
        for (i = 0; i < n; i++)                                              \
            for (j = 0; j < m; j++)                                          \
                for (p = 0; p < k; p++)                                      \
                    want[i * ldc + j] =                                      \
                        FMA(a[(ptrdiff_t)i * la.rs + (ptrdiff_t)p * la.cs],  \
                            b[(ptrdiff_t)p * lb.rs + (ptrdiff_t)j * lb.cs],  \
                            want[i * ldc + j]);                              \
        /* the machine's kernel, then each lower one on a fresh copy */      \
        memcpy(c0, c, n * ldc * sizeof *c);                                  \
        sc__gemm_##SUF##_strided(n, k, m, a, la.rs, la.cs, b, lb.rs, lb.cs,  \
                                 c, ldc);                                    \
        same = memcmp(c, want, n * ldc * sizeof *c) == 0;                    \
        for (lv = sc__gemm_level() - 1; same && lv >= 0; lv--) {             \
            memcpy(c, c0, n * ldc * sizeof *c);                              \
            sc__gemm_##SUF##_at(lv, n, k, m, a, la.rs, la.cs, b, lb.rs,      \
                                lb.cs, c, ldc);                              \
            same = memcmp(c, want, n * ldc * sizeof *c) == 0;                \
            *bad_level = lv;                                                 \
        }                                                                    \
        *bad_n = n, *bad_k = k, *bad_m = m;                                  \
        free(a);                                                             \
        free(b);                                                             \
        free(c);                                                             \
        free(want);                                                          \
        free(c0);                                                            \
        return same;                                                         \
    }

DEFINE_CASE(f32, float, fmaf)
DEFINE_CASE(f64, double, fma)

START_TEST(test_gemm_contract_f32)
{
    sc_test_rng g;
    long cases = sc_test_cases(60), t;
    sc_test_rng_init(&g, sc_test_seed() ^ 0x6a09e667u);
    for (t = 0; t < cases; t++) {
        size_t n, k, m;
        int lv = sc__gemm_level();
        int ok = case_f32(&g, &n, &k, &m, &lv);
        ck_assert_msg(ok, "float32 %zu x %zu x %zu on the %s kernel: not "
                      "the fmaf chain", n, k, m, sc__gemm_kernel_name(lv));
    }
}
END_TEST

START_TEST(test_gemm_contract_f64)
{
    sc_test_rng g;
    long cases = sc_test_cases(60), t;
    sc_test_rng_init(&g, sc_test_seed() ^ 0xbb67ae85u);
    for (t = 0; t < cases; t++) {
        size_t n, k, m;
        int lv = sc__gemm_level();
        int ok = case_f64(&g, &n, &k, &m, &lv);
        ck_assert_msg(ok, "float64 %zu x %zu x %zu on the %s kernel: not "
                      "the fma chain", n, k, m, sc__gemm_kernel_name(lv));
    }
}
END_TEST

/* The contiguous entry points, a transposed view and the set form give
 * the bits of the strided one: a product's bits do not depend on how it
 * is called. */
START_TEST(test_gemm_entry_points)
{
    const size_t n = 50, k = 300, m = 70;
    float *a = malloc(n * k * sizeof *a), *at = malloc(n * k * sizeof *at);
    float *b = malloc(k * m * sizeof *b);
    float *c1 = calloc(n * m, sizeof *c1), *c2 = calloc(n * m, sizeof *c2);
    float *c3 = calloc(n * m, sizeof *c3);
    sc_test_rng g;
    size_t i, p;
    ck_assert(a && at && b && c1 && c2 && c3);
    sc_test_rng_init(&g, sc_test_seed() ^ 0x3c6ef372u);
    for (i = 0; i < n * k; i++)
        a[i] = (float)draw(&g);
    for (i = 0; i < k * m; i++)
        b[i] = (float)draw(&g);
    for (i = 0; i < n; i++)
        for (p = 0; p < k; p++)
            at[p * n + i] = a[i * k + p];
    sc__gemm_f32(n, k, m, a, b, c1);
    sc__gemm_f32_ld(n, k, m, a, k, b, m, c2, m);
    sc__gemm_f32_strided(n, k, m, at, 1, (ptrdiff_t)n, b, (ptrdiff_t)m, 1,
                         c3, m);
    ck_assert(memcmp(c1, c2, n * m * sizeof *c1) == 0);
    ck_assert(memcmp(c1, c3, n * m * sizeof *c1) == 0);
    /* set: c's old contents (NaN here) are not read */
    for (i = 0; i < n * m; i++)
        c3[i] = NAN;
    sc__gemm_f32_set(n, k, m, a, (ptrdiff_t)k, 1, b, (ptrdiff_t)m, 1, c3, m);
    ck_assert(memcmp(c1, c3, n * m * sizeof *c1) == 0);
    for (i = 0; i < 7 * 5; i++)
        c3[i] = NAN;
    sc__gemm_f32_set(7, 3, 5, a, (ptrdiff_t)k, 1, b, (ptrdiff_t)m, 1, c3, 5);
    memset(c2, 0, 7 * 5 * sizeof *c2);
    sc__gemm_f32_strided(7, 3, 5, a, (ptrdiff_t)k, 1, b, (ptrdiff_t)m, 1, c2,
                         5);
    ck_assert(memcmp(c2, c3, 7 * 5 * sizeof *c2) == 0);
    free(a);
    free(at);
    free(b);
    free(c1);
    free(c2);
    free(c3);
}
END_TEST

/* sc__gather of views (transposed, sliced, expanded, of another dtype)
 * holds each element of the view in row-major order, and sc__scatter into
 * a transposed view writes each element where the view puts it. */
START_TEST(test_gather_scatter_views)
{
    const int64_t sizes[3] = {3, 5, 7};
    sc_tensor *t = NULL, *v = NULL, *w = NULL, *h = NULL;
    sc_error err;
    sc_test_rng g;
    size_t i, n;
    int round;
    sc_test_rng_init(&g, sc_test_seed() ^ 0xa54ff53au);
    ck_assert_int_eq(sc_tensor_new(SC_DTYPE_F32, 3, sizes, &t, &err), SC_OK);
    ck_assert_int_eq(sc_tensor_new(SC_DTYPE_F16, 3, sizes, &h, &err), SC_OK);
    n = sc_tensor_numel(t);
    for (i = 0; i < n; i++) {
        ((float *)sc_tensor_data(t))[i] = (float)draw(&g);
        ((uint16_t *)sc_tensor_data(h))[i] = sc_f32_to_f16((float)draw(&g));
    }
    for (round = 0; round < 8; round++) {
        const sc_tensor *src = round % 2 ? h : t;
        int64_t esz[4] = {2, 3, 5, 7};
        float *f = NULL;
        double *d = NULL;
        size_t nd;
        switch (round / 2) {
        case 0:
            ck_assert_int_eq(sc_tensor_transpose(src, 0, 2, &v, &err), SC_OK);
            break;
        case 1:
            ck_assert_int_eq(sc_tensor_slice(src, 2, 1, 6, 2, &v, &err),
                             SC_OK);
            break;
        case 2: {
            sc_tensor *s = NULL;
            ck_assert_int_eq(sc_tensor_slice(src, 1, 2, 3, 1, &s, &err),
                             SC_OK);
            ck_assert_int_eq(sc_tensor_transpose(s, 1, 2, &v, &err), SC_OK);
            sc_tensor_free(s);
            break;
        }
        default:
            ck_assert_int_eq(sc_tensor_expand(src, 4, esz, &v, &err), SC_OK);
            break;
        }
        nd = v->ndim;
        ck_assert_int_eq(sc__gather(v, nd, v->sizes, SC__CT_F32,
                                    (void **)&f, &err), SC_OK);
        ck_assert_int_eq(sc__gather(v, nd, v->sizes, SC__CT_F64,
                                    (void **)&d, &err), SC_OK);
        for (i = 0; i < sc_tensor_numel(v); i++) {
            double want = sc_tensor_item_double(v, i);
            ck_assert_msg((double)f[i] == want && d[i] == want,
                          "round %d element %zu: %g %g, want %g", round, i,
                          (double)f[i], d[i], want);
        }
        sc__free(f);
        sc__free(d);
        sc_tensor_free(v);
        v = NULL;
    }
    /* scatter row-major values into a transposed view of a new tensor */
    ck_assert_int_eq(sc_tensor_new(SC_DTYPE_F32, 3, sizes, &w, &err), SC_OK);
    ck_assert_int_eq(sc_tensor_transpose(w, 0, 1, &v, &err), SC_OK);
    {
        float *src = malloc(n * sizeof *src);
        ck_assert(src);
        for (i = 0; i < n; i++)
            src[i] = (float)i;
        sc__scatter(v, SC__CT_F32, src);
        for (i = 0; i < n; i++)
            ck_assert(sc_tensor_item_double(v, i) == (double)i);
        free(src);
    }
    sc_tensor_free(v);
    sc_tensor_free(w);
    sc_tensor_free(t);
    sc_tensor_free(h);
}
END_TEST

Suite *gemm_suite(void)
{
    Suite *s = suite_create("gemm");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_gemm_contract_f32);
    tcase_add_test(tc, test_gemm_contract_f64);
    tcase_add_test(tc, test_gemm_entry_points);
    tcase_add_test(tc, test_gather_scatter_views);
    suite_add_tcase(s, tc);
    return s;
}
