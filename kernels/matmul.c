/* symcut — kernels: matrix products (mm, bmm, addmm).
 *
 * float32 and float64 operands are read in place through their strides by
 * the packed kernels of kernels/gemm.c, and the product is written straight
 * into the result tensor: every output element is the chain of fused
 * multiply-adds a[i][0]*b[0][j], a[i][1]*b[1][j], ... in increasing k (the
 * contract of kernels/gemm.h: the same bits whatever the blocking, the
 * machine and the call site).  float16 and bfloat16 are gathered into
 * float buffers and take the same kernel; integers are gathered into int64
 * and multiplied by a cache-blocked loop nest, wrapping. */
#include "kernels/kernels-internal.h"
#include "kernels/gemm.h"

#define BLOCK_I 64
#define BLOCK_K 128
#define BLOCK_J 256

#define DEFINE_GEMM(name, T)                                                 \
    static void name(size_t n, size_t kk, size_t m, const T *a, const T *b,  \
                     T *c)                                                   \
    {                                                                        \
        size_t i0, k0, j0, i, k, j;                                          \
        for (i0 = 0; i0 < n; i0 += BLOCK_I) {                                \
            size_t i1 = i0 + BLOCK_I < n ? i0 + BLOCK_I : n;                 \
            for (k0 = 0; k0 < kk; k0 += BLOCK_K) {                           \
                size_t k1 = k0 + BLOCK_K < kk ? k0 + BLOCK_K : kk;           \
                for (j0 = 0; j0 < m; j0 += BLOCK_J) {                        \
                    size_t j1 = j0 + BLOCK_J < m ? j0 + BLOCK_J : m;         \
                    for (i = i0; i < i1; i++) {                              \
                        T *ci = c + i * m;                                   \
                        for (k = k0; k < k1; k++) {                          \
                            T aik = a[i * kk + k];                           \
                            const T *bk = b + k * m;                         \
                            for (j = j0; j < j1; j++)                        \
                                ci[j] += aik * bk[j];                        \
                        }                                                    \
                    }                                                        \
                }                                                            \
            }                                                                \
        }                                                                    \
    }

DEFINE_GEMM(gemm_u64, uint64_t)

void sc__matmul(sc__ctype ct, size_t n, size_t k, size_t m, const void *a,
                const void *b, void *c)
{
    if (ct == SC__CT_F32)
        sc__gemm_f32(n, k, m, a, b, c);
    else if (ct == SC__CT_F64)
        sc__gemm_f64(n, k, m, a, b, c);
    else
        gemm_u64(n, k, m, a, b, c);
}

/* Check a (…, n, k) and b (…, k, m) of `nd` dims and the same dtype. */
static sc_status check_mats(sc__kernel_call *c, const char *op,
                            const sc_tensor *a, const sc_tensor *b,
                            size_t nd)
{
    if (a->ndim != nd || b->ndim != nd)
        return sc__error_set(c->err, SC_ERR_SHAPE,
                             "%s: expected %zu-d tensors, got %zu-d and %zu-d",
                             op, nd, a->ndim, b->ndim);
    if (a->dtype != b->dtype)
        return sc__error_set(c->err, SC_ERR_TYPE,
                             "%s: both operands must have the same dtype",
                             op);
    if (!sc_tensor_dtype_supported(a->dtype))
        return sc__error_set(c->err, SC_ERR_UNSUPPORTED,
                             "%s: unsupported dtype", op);
    if (a->sizes[nd - 1] != b->sizes[nd - 2] ||
        (nd == 3 && a->sizes[0] != b->sizes[0]))
        return sc__error_set(c->err, SC_ERR_SHAPE,
                             "%s: shapes [%s%lld, %lld] and [%s%lld, %lld] "
                             "cannot be multiplied",
                             op, nd == 3 ? "B, " : "",
                             (long long)a->sizes[nd - 2],
                             (long long)a->sizes[nd - 1],
                             nd == 3 ? "B, " : "",
                             (long long)b->sizes[nd - 2],
                             (long long)b->sizes[nd - 1]);
    return SC_OK;
}

/* Can t be read in place as ct (its dtype is ct's own)? */
static bool in_place(const sc_tensor *t, sc__ctype ct)
{
    return (ct == SC__CT_F32 && t->dtype == SC_DTYPE_F32) ||
           (ct == SC__CT_F64 && t->dtype == SC_DTYPE_F64);
}

/* c (batch x n x m, contiguous, compute type, zero-filled) = a b for a
 * and b 2-d or 3-d.  float32 and float64 operands are read in place through their
 * strides (the packing of kernels/gemm.c reads any strides, so a
 * transposed or permuted view costs no copy); other dtypes are gathered
 * into compute-type buffers first. */
static sc_status product_into(sc__kernel_call *c, const sc_tensor *a,
                              const sc_tensor *b, sc__ctype ct, size_t batch,
                              size_t n, size_t k, size_t m, void *bc)
{
    void *ba = NULL, *bb = NULL;
    size_t es = sc__ctype_size(ct), t, nd = a->ndim;
    sc_status status;

    if (ct != SC__CT_I64 && in_place(a, ct) && in_place(b, ct)) {
        ptrdiff_t rsa = (ptrdiff_t)a->strides[nd - 2],
                  csa = (ptrdiff_t)a->strides[nd - 1],
                  rsb = (ptrdiff_t)b->strides[nd - 2],
                  csb = (ptrdiff_t)b->strides[nd - 1];
        ptrdiff_t bsa = nd == 3 ? (ptrdiff_t)a->strides[0] : 0,
                  bsb = nd == 3 ? (ptrdiff_t)b->strides[0] : 0;
        for (t = 0; t < batch; t++) {
            if (ct == SC__CT_F32)
                sc__gemm_f32_set(
                    n, k, m, (const float *)sc_tensor_data(a) +
                                 (ptrdiff_t)t * bsa, rsa, csa,
                    (const float *)sc_tensor_data(b) + (ptrdiff_t)t * bsb,
                    rsb, csb, (float *)bc + t * n * m, m);
            else
                sc__gemm_f64_set(
                    n, k, m, (const double *)sc_tensor_data(a) +
                                 (ptrdiff_t)t * bsa, rsa, csa,
                    (const double *)sc_tensor_data(b) + (ptrdiff_t)t * bsb,
                    rsb, csb, (double *)bc + t * n * m, m);
        }
        return SC_OK;
    }
    SC_CHECK(sc__gather(a, a->ndim, a->sizes, ct, &ba, c->err));
    SC_CHECK(sc__gather(b, b->ndim, b->sizes, ct, &bb, c->err));
    for (t = 0; t < batch; t++)
        sc__matmul(ct, n, k, m, (char *)ba + t * n * k * es,
                   (char *)bb + t * k * m * es, (char *)bc + t * n * m * es);
    status = SC_OK;
fail:
    sc__free(ba);
    sc__free(bb);
    return status;
}

/* The product of a and b (2-d or 3-d) as a new contiguous tensor r of
 * a's dtype and shape [batch,] n, m; *buf is r's data when r holds the
 * compute type, else a compute-type buffer (the caller frees it and
 * scatters it into r). */
static sc_status product(sc__kernel_call *c, const sc_tensor *a,
                         const sc_tensor *b, sc__ctype ct, size_t batch,
                         size_t n, size_t k, size_t m, sc_tensor **r,
                         void **buf)
{
    int64_t sizes[3];
    size_t nd = a->ndim, t;
    sc_status status;

    *buf = NULL;
    sizes[0] = (int64_t)batch;
    sizes[nd - 2] = (int64_t)n;
    sizes[nd - 1] = (int64_t)m;
    SC_TRY(sc__new(a->dtype, nd, sizes, r, c->err));
    if (in_place(*r, ct)) {
        SC_CHECK(product_into(c, a, b, ct, batch, n, k, m,
                              sc_tensor_data(*r)));
        return SC_OK;
    }
    t = batch * n * m;
    *buf = sc__calloc(t ? t : 1, sc__ctype_size(ct));
    if (!*buf) {
        status = sc__error_nomem(c->err);
        goto fail;
    }
    SC_CHECK(product_into(c, a, b, ct, batch, n, k, m, *buf));
    return SC_OK;
fail:
    sc__free(*buf);
    *buf = NULL;
    sc_tensor_free(*r);
    *r = NULL;
    return status;
}

/* The product of the nd-d tensor arguments at indices self and mat2. */
static sc_status run_mm(sc__kernel_call *c, size_t nd, size_t self,
                        size_t mat2)
{
    const sc_tensor *a, *b;
    sc__ctype ct;
    size_t batch, n, k, m;
    void *buf = NULL;
    sc_tensor *r = NULL;

    SC_TRY(sc__arg_tensor(c, self, &a));
    SC_TRY(sc__arg_tensor(c, mat2, &b));
    SC_TRY(check_mats(c, nd == 2 ? "mm" : "bmm", a, b, nd));
    ct = sc__ctype_of(a->dtype);
    batch = nd == 3 ? (size_t)a->sizes[0] : 1;
    n = (size_t)a->sizes[nd - 2];
    k = (size_t)a->sizes[nd - 1];
    m = (size_t)b->sizes[nd - 1];
    SC_TRY(product(c, a, b, ct, batch, n, k, m, &r, &buf));
    if (buf)
        sc__scatter(r, ct, buf);
    sc__free(buf);
    return sc__out(c, r);
}

/* mm(Tensor self, Tensor mat2) */
sc_status sc__kernel_mm(sc__kernel_call *call)
{
    return run_mm(call, 2, SC_KARG_MM_SELF, SC_KARG_MM_MAT2);
}

/* bmm(Tensor self, Tensor mat2) */
sc_status sc__kernel_bmm(sc__kernel_call *call)
{
    return run_mm(call, 3, SC_KARG_BMM_SELF, SC_KARG_BMM_MAT2);
}

/* addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar
 * alpha=1): beta * self + alpha * (mat1 @ mat2), self broadcast to the
 * product's shape; with beta == 0 self is ignored (NaN included). */
sc_status sc__kernel_addmm(sc__kernel_call *call)
{
    const sc_tensor *s, *a, *b;
    double beta = 1, alpha = 1;
    int64_t sizes[2], st[2];
    sc__ctype ct;
    size_t n, k, m, i, j;
    void *buf = NULL, *bs = NULL, *out;
    const void *self;
    sc_tensor *r = NULL;
    sc_status status;

    SC_CHECK(sc__arg_tensor(call, SC_KARG_ADDMM_SELF, &s));
    SC_CHECK(sc__arg_tensor(call, SC_KARG_ADDMM_MAT1, &a));
    SC_CHECK(sc__arg_tensor(call, SC_KARG_ADDMM_MAT2, &b));
    if (!sc__arg_is_none(call, SC_KARG_ADDMM_BETA))
        SC_CHECK(sc__arg_double(call, SC_KARG_ADDMM_BETA, &beta));
    if (!sc__arg_is_none(call, SC_KARG_ADDMM_ALPHA))
        SC_CHECK(sc__arg_double(call, SC_KARG_ADDMM_ALPHA, &alpha));
    SC_CHECK(check_mats(call, "addmm", a, b, 2));
    if (s->dtype != a->dtype)
        return sc__error_set(call->err, SC_ERR_TYPE,
                             "addmm: self must have the dtype of mat1");
    ct = sc__ctype_of(a->dtype);
    n = (size_t)a->sizes[0];
    k = (size_t)a->sizes[1];
    m = (size_t)b->sizes[1];
    sizes[0] = (int64_t)n;
    sizes[1] = (int64_t)m;
    /* self read in place through its broadcast strides when it holds the
       compute type, else gathered */
    SC_CHECK(sc__broadcast_strides(s, 2, sizes, st, call->err));
    if (in_place(s, ct)) {
        self = sc_tensor_data(s);
    } else {
        SC_CHECK(sc__gather(s, 2, sizes, ct, &bs, call->err));
        self = bs;
        st[0] = (int64_t)m;
        st[1] = 1;
    }
    SC_CHECK(product(call, a, b, ct, 1, n, k, m, &r, &buf));
    out = buf ? buf : sc_tensor_data(r);
    for (i = 0; i < n; i++) {
        ptrdiff_t row = (ptrdiff_t)i * st[0];
        if (ct == SC__CT_F32) {
            float *p = (float *)out + i * m, fa = (float)alpha,
                  fb = (float)beta;
            const float *q = (const float *)self + row;
            if (beta == 0)
                for (j = 0; j < m; j++)
                    p[j] = fa * p[j];
            else
                for (j = 0; j < m; j++)
                    p[j] = fa * p[j] + fb * q[(ptrdiff_t)j * st[1]];
        } else if (ct == SC__CT_F64) {
            double *p = (double *)out + i * m;
            const double *q = (const double *)self + row;
            for (j = 0; j < m; j++) {
                double v = alpha * p[j];
                p[j] = beta == 0 ? v : v + beta * q[(ptrdiff_t)j * st[1]];
            }
        } else {
            uint64_t *p = (uint64_t *)out + i * m;
            const uint64_t *q = (const uint64_t *)self + row;
            for (j = 0; j < m; j++)
                p[j] = (uint64_t)sc__sat_i64(alpha) * p[j] +
                       (uint64_t)sc__sat_i64(beta) *
                           q[(ptrdiff_t)j * st[1]];
        }
    }
    if (buf)
        sc__scatter(r, ct, buf);
    sc__free(buf);
    sc__free(bs);
    return sc__out(call, r);
fail:
    sc__free(buf);
    sc__free(bs);
    sc_tensor_free(r);
    return status;
}
