/* symcut — kernels: scaled dot-product attention as PyTorch runs it on
 * the CPU (_scaled_dot_product_flash_attention_for_cpu and its backward)
 * and, with the same math, the memory-efficient attention
 * (_scaled_dot_product_efficient_attention and its backward, CUDA-only in
 * torch; an attn_bias added to the scores, its gradient dS).  Float64
 * inputs (and the memory-efficient attention) are computed in float64
 * per (batch, head); the flash attention on float32, bfloat16 and float16
 * inputs takes the float32 path below, torch's blocked computation:
 *   S = Q K^T * scale (+ attn_mask; causal: key j > query i masked),
 *   lse = log(sum_j exp(S)), P = exp(S - lse), O = P V;
 *   dV = P^T dO, dP = dO V^T, dS = P * (dP - rowsum(dO * O)),
 *   dQ = dS K * scale, dK = dS^T Q * scale.
 * scale defaults to 1/sqrt(E).  A masked row (every key masked) gives 0
 * and lse -inf, as PyTorch's.  Dropout must be 0. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#define ATTN_AVX2 1
#include <immintrin.h>
#endif
/* The row loops full of fmaf: compiled also for x86-64-v3 (AVX2 + FMA),
 * picked at load time, where fmaf is one instruction rather than a call
 * (the same bits). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && \
    defined(__has_attribute)
#if __has_attribute(target_clones)
#define ATTN_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#endif
#endif
#ifndef ATTN_CLONES
#define ATTN_CLONES
#endif
/* The exponentials, inlined into those clones. */
#if defined(__GNUC__)
#define ATTN_INLINE __attribute__((always_inline)) inline
#else
#define ATTN_INLINE
#endif

#include "kernels/kernels-internal.h"

typedef struct attn {
    int64_t B, H, L, S, E, Ev;
    double scale;
    bool causal;
    double *q, *k, *v, *mask; /* row-major; mask [L, S] per (b, h) or NULL */
    float *qf, *kf, *vf, *maskf; /* the same in float32 (the blocked path) */
    sc_dtype dt;              /* query's dtype */
    int64_t mask_bh[2];       /* the mask's batch and head sizes (1: shared) */
} attn;

static sc_status gather4(sc__kernel_call *c, size_t i, const char *what,
                         const sc_tensor **t, sc__ctype ct, void **buf)
{
    SC_TRY(sc__arg_tensor(c, i, t));
    if ((*t)->ndim != 4)
        return sc__error_set(c->err, SC_ERR_SHAPE,
                             "attention: %s must have 4 dims (batch, heads, "
                             "sequence, features), not %zu", what,
                             (*t)->ndim);
    if (!sc__dtype_is_float((*t)->dtype))
        return sc__error_set(c->err, SC_ERR_TYPE,
                             "attention: %s must be floating", what);
    return sc__gather(*t, 4, (*t)->sizes, ct, buf, c->err);
}

/* Whether attention on query qt runs the float32 blocked path: float32,
 * bfloat16 and float16 inputs (PyTorch's accumulation type for them). */
static bool attn_is_f32(const sc_tensor *qt)
{
    return qt->dtype == SC_DTYPE_F32 || qt->dtype == SC_DTYPE_BF16 ||
           qt->dtype == SC_DTYPE_F16;
}

/* The shared arguments (query, key, value, dropout_p, is_causal,
 * attn_mask, scale) at the given indices; f32: into the float32 buffers
 * (qf, kf, vf, maskf) rather than the float64 ones. */
static sc_status attn_setup(sc__kernel_call *c, const size_t *idx, attn *a,
                            const sc_tensor **qt, bool f32)
{
    const sc_tensor *k, *v, *m;
    sc__ctype ct = f32 ? SC__CT_F32 : SC__CT_F64;
    double p;

    memset(a, 0, sizeof *a);
    SC_TRY(gather4(c, idx[0], "query", qt, ct,
                   f32 ? (void **)&a->qf : (void **)&a->q));
    SC_TRY(gather4(c, idx[1], "key", &k, ct,
                   f32 ? (void **)&a->kf : (void **)&a->k));
    SC_TRY(gather4(c, idx[2], "value", &v, ct,
                   f32 ? (void **)&a->vf : (void **)&a->v));
    a->dt = (*qt)->dtype;
    a->B = (*qt)->sizes[0];
    a->H = (*qt)->sizes[1];
    a->L = (*qt)->sizes[2];
    a->E = (*qt)->sizes[3];
    a->S = k->sizes[2];
    a->Ev = v->sizes[3];
    if (k->sizes[0] != a->B || v->sizes[0] != a->B || k->sizes[1] != a->H ||
        v->sizes[1] != a->H || k->sizes[3] != a->E || v->sizes[2] != a->S)
        return sc__error_set(c->err, SC_ERR_SHAPE,
                             "attention: query, key and value sizes do not "
                             "fit");
    SC_TRY(sc__arg_double(c, idx[3], &p));
    if (p != 0)
        return sc__error_set(c->err, SC_ERR_UNSUPPORTED,
                             "attention: dropout_p %g (random attention) is "
                             "not supported", p);
    SC_TRY(sc__arg_bool(c, idx[4], &a->causal));
    SC_TRY(sc__arg_opt_tensor(c, idx[5], &m));
    if (m) {
        int64_t sz[4];
        size_t d;
        for (d = 0; d < 4; d++)
            sz[d] = d + m->ndim >= 4 ? m->sizes[d + m->ndim - 4] : 1;
        if (m->ndim > 4 || sz[2] != a->L || sz[3] != a->S)
            return sc__error_set(c->err, SC_ERR_SHAPE,
                                 "attention: attn_mask must broadcast to "
                                 "[%lld, %lld]", (long long)a->L,
                                 (long long)a->S);
        a->mask_bh[0] = sz[0];
        a->mask_bh[1] = sz[1];
        if (f32) {
            SC_TRY(sc__gather(m, m->ndim, m->sizes, SC__CT_F32,
                              (void **)&a->maskf, c->err));
            if (m->dtype == SC_DTYPE_B8) {
                size_t n = sc_tensor_numel(m), i;
                for (i = 0; i < n; i++)
                    a->maskf[i] = a->maskf[i] != 0 ? 0.0f : -INFINITY;
            }
        } else {
            SC_TRY(sc__gather(m, m->ndim, m->sizes, SC__CT_F64,
                              (void **)&a->mask, c->err));
            if (m->dtype == SC_DTYPE_B8) {
                size_t n = sc_tensor_numel(m), i;
                for (i = 0; i < n; i++)
                    a->mask[i] = a->mask[i] != 0 ? 0.0 : -INFINITY;
            }
        }
    }
    if (sc__arg_is_none(c, idx[6]))
        a->scale = 1.0 / sqrt((double)a->E);
    else
        SC_TRY(sc__arg_double(c, idx[6], &a->scale));
    return SC_OK;
}

static void attn_free(attn *a)
{
    sc__free(a->q);
    sc__free(a->k);
    sc__free(a->v);
    sc__free(a->mask);
    sc__free(a->qf);
    sc__free(a->kf);
    sc__free(a->vf);
    sc__free(a->maskf);
}

/* Row i of the scores of (b, h) into s[0..S); the row's log-sum-exp. */
static double scores(const attn *a, int64_t b, int64_t h, int64_t i,
                     double *s)
{
    const double *q = a->q + ((b * a->H + h) * a->L + i) * a->E;
    const double *k = a->k + (b * a->H + h) * a->S * a->E;
    double mx = -INFINITY, sum = 0;
    int64_t j, e;
    for (j = 0; j < a->S; j++) {
        double acc = 0;
        for (e = 0; e < a->E; e++)
            acc += q[e] * k[j * a->E + e];
        acc *= a->scale;
        if (a->mask) {
            int64_t mb = a->mask_bh[0] == 1 ? 0 : b;
            int64_t mh = a->mask_bh[1] == 1 ? 0 : h;
            acc += a->mask[((mb * a->mask_bh[1] + mh) * a->L + i) * a->S + j];
        }
        if (a->causal && j > i)
            acc = -INFINITY;
        s[j] = acc;
        if (acc > mx)
            mx = acc;
    }
    if (mx == -INFINITY)
        return -INFINITY;
    for (j = 0; j < a->S; j++)
        sum += exp(s[j] - mx);
    return mx + log(sum);
}

/* A new tensor of sizes holding buf (row-major), laid out densely in the
 * physical order perm (outermost first), as PyTorch allocates these
 * results. */
static sc_status out_in_order(sc__kernel_call *c, sc_dtype d, size_t ndim,
                              const int64_t *sizes, const size_t *perm,
                              sc__ctype ct, const void *buf, sc_tensor **out)
{
    sc_tensor *tmp = NULL;
    int64_t strides[4], acc = 1;
    size_t i;
    sc_status status;

    *out = NULL;
    for (i = ndim; i-- > 0;) {
        strides[perm[i]] = acc;
        acc *= sizes[perm[i]] > 1 ? sizes[perm[i]] : 1;
    }
    SC_CHECK(sc__new(d, ndim, sizes, &tmp, c->err));
    sc__scatter(tmp, ct, buf);
    SC_CHECK(sc_tensor_new_strided(d, ndim, sizes, strides, out, c->err));
    SC_CHECK(sc_tensor_copy(*out, tmp, c->err));
    sc_tensor_free(tmp);
    return SC_OK;
fail:
    sc_tensor_free(tmp);
    sc_tensor_free(*out);
    *out = NULL;
    return status;
}

/* query's physical order (outermost first): its dims by decreasing
 * stride, ties in logical order (empty_like's preserve format). */
static void order_of(const sc_tensor *t, size_t *perm)
{
    size_t i, j;
    for (i = 0; i < 4; i++)
        perm[i] = i;
    for (i = 1; i < 4; i++)
        for (j = i; j > 0 && t->strides[perm[j]] > t->strides[perm[j - 1]];
             j--) {
            size_t x = perm[j];
            perm[j] = perm[j - 1];
            perm[j - 1] = x;
        }
}

static const size_t blhe[4] = {0, 2, 1, 3};

/* The gradients of attention given grad_out g and out o (row-major
 * [B, H, L, Ev]) added into dq, dk, dv (zeroed, [B, H, ., .]) and, when
 * not NULL, dbias (zeroed, the mask's row-major sizes: the score gradient
 * before scaling, summed over the mask's broadcast batch and head dims);
 * s: room for a row of S scores. */
static void attn_backward(const attn *a, const double *g, const double *o,
                          double *s, double *dq, double *dk, double *dv,
                          double *dbias)
{
    int64_t b, h, i, j, e;
    for (b = 0; b < a->B; b++)
        for (h = 0; h < a->H; h++) {
            size_t bh = (size_t)(b * a->H + h);
            const double *k = a->k + bh * a->S * a->E;
            const double *q = a->q + bh * a->L * a->E;
            const double *v = a->v + bh * a->S * a->Ev;
            int64_t mb = a->mask_bh[0] == 1 ? 0 : b;
            int64_t mh = a->mask_bh[1] == 1 ? 0 : h;
            for (i = 0; i < a->L; i++) {
                /* the log-sum-exp is recomputed rather than read, so that
                   a logsumexp input of lower precision does not matter */
                double l = scores(a, b, h, i, s), rs = 0;
                const double *grow = g + (bh * a->L + i) * a->Ev;
                const double *orow = o + (bh * a->L + i) * a->Ev;
                if (l == -INFINITY)
                    continue;
                for (e = 0; e < a->Ev; e++)
                    rs += grow[e] * orow[e];
                for (j = 0; j < a->S; j++) {
                    double p = exp(s[j] - l), d = 0, ds;
                    for (e = 0; e < a->Ev; e++) {
                        d += grow[e] * v[j * a->Ev + e];
                        dv[(bh * a->S + j) * a->Ev + e] += p * grow[e];
                    }
                    ds = p * (d - rs);
                    if (dbias)
                        dbias[((mb * a->mask_bh[1] + mh) * a->L + i) * a->S +
                              j] += ds;
                    ds *= a->scale;
                    for (e = 0; e < a->E; e++) {
                        dq[(bh * a->L + i) * a->E + e] += ds * k[j * a->E + e];
                        dk[(bh * a->S + j) * a->E + e] += ds * q[i * a->E + e];
                    }
                }
            }
        }
}

/* The float32 path (float32, bfloat16 and float16 inputs) computes what
 * PyTorch's CPU flash attention computes on x86-64 with AVX-512, operation
 * for operation, so that its results are PyTorch's bits:
 *
 * - blocks: queries in blocks of 256 rows (sequences of 768 or more), 64
 *   (192 or more) or 32, keys in blocks of 512;
 * - every block product as its BLAS computes it (blas_f32 below): each
 *   element a chain of fused multiply-adds in increasing k, a k of more
 *   than 384 in two halves whose chains are added, alpha applied to each
 *   chunk's result, which is then added to C (beta 1) or written;
 * - the forward's exponentials: in whole vectors of 16 scores,
 *   exp_u20 (at::vec's degree-5 polynomial after a log(2) range
 *   reduction), their sums in 16 lanes added pairwise at the end
 *   (lane i with lane i+8, i+4, i+2, i+1); the remaining scores with the
 *   C library's expf, added one by one; the running sum updated with a
 *   fused multiply-add;
 * - the backward's exponentials with exp_u10 (Sleef's expf: Cody-Waite
 *   reduction by log(2), degree-6 polynomial), the row sums of
 *   dO * O as at::vec's map-reduce (16 lanes, then pairwise);
 * - for bfloat16 and float16 inputs the probabilities and the score
 *   gradients rounded to that type before they enter a product.
 *
 * Every step is a fixed sequence of float32 roundings, so the results are
 * the same on every machine (the fused multiply-adds run as AVX2 FMA
 * instructions where the CPU has them, else through fmaf). */

static int64_t q_block(int64_t L)
{
    int64_t q = L >= 768 ? 256 : L >= 192 ? 64 : 32;
    return q < L ? q : L;
}

static int64_t kv_block(int64_t S)
{
    return S < 512 ? S : 512;
}

/* x rounded to the input dtype d where d is narrower than float32. */
static float round_to(sc_dtype d, float x)
{
    if (d == SC_DTYPE_BF16)
        return sc_bf16_to_f32(sc_f32_to_bf16(x));
    if (d == SC_DTYPE_F16)
        return sc_f16_to_f32(sc_f32_to_f16(x));
    return x;
}

/* The mask row i of (b, h), or NULL. */
static const float *mask_row_f32(const attn *a, int64_t b, int64_t h,
                                 int64_t i)
{
    int64_t mb, mh;
    if (!a->maskf)
        return NULL;
    mb = a->mask_bh[0] == 1 ? 0 : b;
    mh = a->mask_bh[1] == 1 ? 0 : h;
    return a->maskf + ((mb * a->mask_bh[1] + mh) * a->L + i) * a->S;
}

/* t (c x r, row-major) = the transpose of x (r x c, rows ldx apart). */
static void transpose_f32(size_t r, size_t c, const float *x, size_t ldx,
                          float *t)
{
    size_t i, j;
    for (i = 0; i < r; i++)
        for (j = 0; j < c; j++)
            t[j * r + i] = x[i * ldx + j];
}

/* The fused chains: c (n x m, rows ldc apart) takes, for l = 0 .. k-1 in
 * turn, c[i][j] = fma(A(i, l), b[l][j], c[i][j]), where A(i, l) is
 * a[i * ars + l * acs] and b's rows are ldb apart. */
static void fma_chain_c(size_t n, size_t k, size_t m, const float *a,
                        size_t ars, size_t acs, const float *b, size_t ldb,
                        float *c, size_t ldc)
{
    size_t i, j, l;
    for (i = 0; i < n; i++)
        for (l = 0; l < k; l++) {
            float x = a[i * ars + l * acs];
            const float *brow = b + l * ldb;
            float *crow = c + i * ldc;
            for (j = 0; j < m; j++)
                crow[j] = fmaf(x, brow[j], crow[j]);
        }
}

#ifdef ATTN_AVX2
/* fma_chain_c with AVX2 FMA instructions: 4 rows by 16 columns of c in
 * registers, the same chains (each element's fused multiply-adds in
 * increasing l). */
__attribute__((target("avx2,fma"))) static void
fma_chain_avx2(size_t n, size_t k, size_t m, const float *a, size_t ars,
               size_t acs, const float *b, size_t ldb, float *c, size_t ldc)
{
    size_t i = 0, j, l, r;
    for (; i + 4 <= n; i += 4) {
        const float *a0 = a + i * ars, *a1 = a0 + ars, *a2 = a1 + ars,
                    *a3 = a2 + ars;
        float *c0 = c + i * ldc, *c1 = c0 + ldc, *c2 = c1 + ldc,
              *c3 = c2 + ldc;
        for (j = 0; j + 16 <= m; j += 16) {
            __m256 x00 = _mm256_loadu_ps(c0 + j), x01 = _mm256_loadu_ps(c0 + j + 8);
            __m256 x10 = _mm256_loadu_ps(c1 + j), x11 = _mm256_loadu_ps(c1 + j + 8);
            __m256 x20 = _mm256_loadu_ps(c2 + j), x21 = _mm256_loadu_ps(c2 + j + 8);
            __m256 x30 = _mm256_loadu_ps(c3 + j), x31 = _mm256_loadu_ps(c3 + j + 8);
            for (l = 0; l < k; l++) {
                __m256 b0 = _mm256_loadu_ps(b + l * ldb + j);
                __m256 b1 = _mm256_loadu_ps(b + l * ldb + j + 8);
                __m256 y = _mm256_broadcast_ss(a0 + l * acs);
                x00 = _mm256_fmadd_ps(y, b0, x00);
                x01 = _mm256_fmadd_ps(y, b1, x01);
                y = _mm256_broadcast_ss(a1 + l * acs);
                x10 = _mm256_fmadd_ps(y, b0, x10);
                x11 = _mm256_fmadd_ps(y, b1, x11);
                y = _mm256_broadcast_ss(a2 + l * acs);
                x20 = _mm256_fmadd_ps(y, b0, x20);
                x21 = _mm256_fmadd_ps(y, b1, x21);
                y = _mm256_broadcast_ss(a3 + l * acs);
                x30 = _mm256_fmadd_ps(y, b0, x30);
                x31 = _mm256_fmadd_ps(y, b1, x31);
            }
            _mm256_storeu_ps(c0 + j, x00);
            _mm256_storeu_ps(c0 + j + 8, x01);
            _mm256_storeu_ps(c1 + j, x10);
            _mm256_storeu_ps(c1 + j + 8, x11);
            _mm256_storeu_ps(c2 + j, x20);
            _mm256_storeu_ps(c2 + j + 8, x21);
            _mm256_storeu_ps(c3 + j, x30);
            _mm256_storeu_ps(c3 + j + 8, x31);
        }
        for (; j + 8 <= m; j += 8) {
            __m256 x0 = _mm256_loadu_ps(c0 + j), x1 = _mm256_loadu_ps(c1 + j);
            __m256 x2 = _mm256_loadu_ps(c2 + j), x3 = _mm256_loadu_ps(c3 + j);
            for (l = 0; l < k; l++) {
                __m256 b0 = _mm256_loadu_ps(b + l * ldb + j);
                x0 = _mm256_fmadd_ps(_mm256_broadcast_ss(a0 + l * acs), b0, x0);
                x1 = _mm256_fmadd_ps(_mm256_broadcast_ss(a1 + l * acs), b0, x1);
                x2 = _mm256_fmadd_ps(_mm256_broadcast_ss(a2 + l * acs), b0, x2);
                x3 = _mm256_fmadd_ps(_mm256_broadcast_ss(a3 + l * acs), b0, x3);
            }
            _mm256_storeu_ps(c0 + j, x0);
            _mm256_storeu_ps(c1 + j, x1);
            _mm256_storeu_ps(c2 + j, x2);
            _mm256_storeu_ps(c3 + j, x3);
        }
        for (; j < m; j++)
            for (r = 0; r < 4; r++) {
                float s = c[(i + r) * ldc + j];
                for (l = 0; l < k; l++)
                    s = fmaf(a[(i + r) * ars + l * acs], b[l * ldb + j], s);
                c[(i + r) * ldc + j] = s;
            }
    }
    for (; i < n; i++) {
        const float *a0 = a + i * ars;
        float *c0 = c + i * ldc;
        for (j = 0; j + 8 <= m; j += 8) {
            __m256 x0 = _mm256_loadu_ps(c0 + j);
            for (l = 0; l < k; l++)
                x0 = _mm256_fmadd_ps(_mm256_broadcast_ss(a0 + l * acs),
                                     _mm256_loadu_ps(b + l * ldb + j), x0);
            _mm256_storeu_ps(c0 + j, x0);
        }
        for (; j < m; j++) {
            float s = c0[j];
            for (l = 0; l < k; l++)
                s = fmaf(a0[l * acs], b[l * ldb + j], s);
            c0[j] = s;
        }
    }
}
#endif

#ifdef ATTN_AVX2
/* fma_chain_c with AVX-512: tiles of 4 rows by 32 columns of c (the same
 * chains); the columns beyond the last whole tile through
 * fma_chain_avx2. */
__attribute__((target("avx512f"))) static void
fma_chain_avx512(size_t n, size_t k, size_t m, const float *a, size_t ars,
                 size_t acs, const float *b, size_t ldb, float *c,
                 size_t ldc)
{
    size_t i = 0, j, l, mw = m / 32 * 32;
    for (; i + 4 <= n; i += 4) {
        const float *a0 = a + i * ars, *a1 = a0 + ars, *a2 = a1 + ars,
                    *a3 = a2 + ars;
        float *c0 = c + i * ldc, *c1 = c0 + ldc, *c2 = c1 + ldc,
              *c3 = c2 + ldc;
        for (j = 0; j < mw; j += 32) {
            __m512 x00 = _mm512_loadu_ps(c0 + j), x01 = _mm512_loadu_ps(c0 + j + 16);
            __m512 x10 = _mm512_loadu_ps(c1 + j), x11 = _mm512_loadu_ps(c1 + j + 16);
            __m512 x20 = _mm512_loadu_ps(c2 + j), x21 = _mm512_loadu_ps(c2 + j + 16);
            __m512 x30 = _mm512_loadu_ps(c3 + j), x31 = _mm512_loadu_ps(c3 + j + 16);
            for (l = 0; l < k; l++) {
                __m512 b0 = _mm512_loadu_ps(b + l * ldb + j);
                __m512 b1 = _mm512_loadu_ps(b + l * ldb + j + 16);
                __m512 y = _mm512_set1_ps(a0[l * acs]);
                x00 = _mm512_fmadd_ps(y, b0, x00);
                x01 = _mm512_fmadd_ps(y, b1, x01);
                y = _mm512_set1_ps(a1[l * acs]);
                x10 = _mm512_fmadd_ps(y, b0, x10);
                x11 = _mm512_fmadd_ps(y, b1, x11);
                y = _mm512_set1_ps(a2[l * acs]);
                x20 = _mm512_fmadd_ps(y, b0, x20);
                x21 = _mm512_fmadd_ps(y, b1, x21);
                y = _mm512_set1_ps(a3[l * acs]);
                x30 = _mm512_fmadd_ps(y, b0, x30);
                x31 = _mm512_fmadd_ps(y, b1, x31);
            }
            _mm512_storeu_ps(c0 + j, x00);
            _mm512_storeu_ps(c0 + j + 16, x01);
            _mm512_storeu_ps(c1 + j, x10);
            _mm512_storeu_ps(c1 + j + 16, x11);
            _mm512_storeu_ps(c2 + j, x20);
            _mm512_storeu_ps(c2 + j + 16, x21);
            _mm512_storeu_ps(c3 + j, x30);
            _mm512_storeu_ps(c3 + j + 16, x31);
        }
    }
    if (mw < m)
        fma_chain_avx2(i, k, m - mw, a, ars, acs, b + mw, ldb, c + mw, ldc);
    if (i < n)
        fma_chain_avx2(n - i, k, m, a + i * ars, ars, acs, b, ldb,
                       c + i * ldc, ldc);
}
#endif

static void fma_chain(size_t n, size_t k, size_t m, const float *a,
                      size_t ars, size_t acs, const float *b, size_t ldb,
                      float *c, size_t ldc)
{
#ifdef ATTN_AVX2
    if (__builtin_cpu_supports("avx512f")) {
        fma_chain_avx512(n, k, m, a, ars, acs, b, ldb, c, ldc);
        return;
    }
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        fma_chain_avx2(n, k, m, a, ars, acs, b, ldb, c, ldc);
        return;
    }
#endif
    fma_chain_c(n, k, m, a, ars, acs, b, ldb, c, ldc);
}

/* c (n x m, rows ldc apart) = alpha A b (+ c when beta1), A(i, l) =
 * a[i * ars + l * acs], as the BLAS under PyTorch's attention computes it:
 * k in one chunk up to 384, else two (the first of (k + 1) / 2); each
 * chunk a fresh fused chain (fma_chain), times alpha unless alpha is 1,
 * added to c in chunk order (the first chunk written when not beta1).
 * Only the products of l < keff are formed: the caller knows that A's
 * entries from keff on are zero and b's rows finite, so that leaving them
 * out changes no bit (every chain starts at +0).  tmp: room for n x m
 * floats. */
static void blas_f32(size_t n, size_t k, size_t keff, size_t m,
                     float alpha, const float *a, size_t ars, size_t acs,
                     const float *b, size_t ldb, bool beta1, float *c,
                     size_t ldc, float *tmp)
{
    size_t half = k > 384 ? (k + 1) / 2 : k, lo = 0, len, i, j, run;
    bool add = beta1;
    if (k == 0 && !beta1)
        for (i = 0; i < n; i++)
            memset(c + i * ldc, 0, m * sizeof *c);
    for (; lo < k; lo += len) {
        len = lo == 0 ? half : k - lo;
        run = keff <= lo ? 0 : keff - lo < len ? keff - lo : len;
        if (!add && alpha == 1) {
            for (i = 0; i < n; i++)
                memset(c + i * ldc, 0, m * sizeof *c);
            fma_chain(n, run, m, a + lo * acs, ars, acs, b + lo * ldb, ldb, c,
                      ldc);
        } else {
            memset(tmp, 0, n * m * sizeof *tmp);
            fma_chain(n, run, m, a + lo * acs, ars, acs, b + lo * ldb, ldb,
                      tmp, m);
            for (i = 0; i < n; i++)
                for (j = 0; j < m; j++) {
                    float p = tmp[i * m + j];
                    if (alpha != 1)
                        p = p * alpha;
                    c[i * ldc + j] = add ? c[i * ldc + j] + p : p;
                }
        }
        add = true;
    }
}

ATTN_INLINE static float f32_of_bits(uint32_t u)
{
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* at::vec's exp_u20 on one lane: x clamped to [ln FLT_MIN, ln FLT_MAX],
 * n = floor(x log2(e) + 1/2), r = x - n ln 2 (fused), a degree-5
 * polynomial in r (fused Horner steps), times 2^(n-1) (0 below ln
 * FLT_MIN) and 2. */
ATTN_INLINE static float exp_u20(float x)
{
    const float lo = f32_of_bits(0xc2aeac50u), hi = f32_of_bits(0x42b17218u);
    const float log2e = f32_of_bits(0x3fb8aa3bu), ln2 = f32_of_bits(0x3f317218u);
    float s = x < hi ? x : hi, fx, r, y, p;
    int32_t e;
    s = s > lo ? s : lo;
    fx = floorf(fmaf(s, log2e, 0.5f));
    r = fmaf(-fx, ln2, s);
    y = fmaf(r, 0.00828929059f, 0.0418978221f);
    y = fmaf(r, y, 0.166676521f);
    y = fmaf(r, y, 0.499991506f);
    y = fmaf(r, y, 0.999999701f);
    y = fmaf(r, y, 1.0f);
    e = (int32_t)(fx - 1.0f) + 127;
    p = x < lo ? 0.0f : f32_of_bits((uint32_t)e << 23);
    y = y * p;
    return y * 2.0f;
}

/* 2^e for a float exponent e in [-126, 127]. */
ATTN_INLINE static float pow2i(int32_t e)
{
    return f32_of_bits((uint32_t)(e + 127) << 23);
}

/* Sleef's expf (1-ulp): q = rint(x / ln 2), s = x - q ln 2 in two fused
 * steps (ln 2 split in a high and a low part), a degree-6 polynomial
 * 1 + s + s^2 u(s) (fused Horner steps), times 2^q as two powers of
 * two; 0 below -104, infinity above 100. */
ATTN_INLINE static float exp_u10(float x)
{
    float s, u, qf;
    int32_t q;
    if (isnan(x))
        return x;
    if (x < -104.0f)
        return 0.0f;
    if (x > 100.0f)
        return INFINITY;
    qf = rintf(x * 1.442695040888963407359924681001892137426645954f);
    q = (int32_t)qf;
    s = fmaf(qf, -0.693145751953125f, x);
    s = fmaf(qf, -1.428606765330187045e-06f, s);
    u = 0.000198527617612853646278381f;
    u = fmaf(u, s, 0.00139304355252534151077271f);
    u = fmaf(u, s, 0.00833336077630519866943359f);
    u = fmaf(u, s, 0.0416664853692054748535156f);
    u = fmaf(u, s, 0.166666671633720397949219f);
    u = fmaf(u, s, 0.5f);
    u = 1.0f + fmaf(s * s, u, s);
    return u * pow2i(q >> 1) * pow2i(q - (q >> 1));
}

/* v[0] after the pairwise sums of 16 lanes (lane i plus lane i^8, then
 * i^4, i^2, i^1), as at::vec reduces a vector. */
static float lanes16_sum(const float *lanes)
{
    float v[16], w[16];
    int sh, i;
    memcpy(v, lanes, sizeof v);
    for (sh = 8; sh >= 1; sh /= 2) {
        for (i = 0; i < 16; i++)
            w[i] = v[i] + v[i ^ sh];
        memcpy(v, w, sizeof v);
    }
    return v[0];
}

/* row[j] = exp(row[j] - mx) for j < n, as the forward computes them
 * (exp_u20 in whole vectors of 16, expf for the rest); their sum. */
ATTN_CLONES static float exp_sum_row(float *row, size_t n, float mx)
{
    float acc[16] = {0}, s;
    size_t nv = n / 16 * 16, i, v;
    for (i = 0; i < nv; i += 16)
        for (v = 0; v < 16; v++) {
            float e = exp_u20(row[i + v] - mx);
            row[i + v] = e;
            acc[v] = acc[v] + e;
        }
    s = nv > 0 ? lanes16_sum(acc) : 0.0f;
    for (i = nv; i < n; i++) {
        float e = expf(row[i] - mx);
        row[i] = e;
        s = s + e;
    }
    return s;
}

/* row[j] = exp_u10(row[j] - l) for j < nk, 0 from nk to n (and all 0
 * when l is -inf: a fully masked row). */
ATTN_CLONES static void probs_row(float *row, size_t n, size_t nk, float l)
{
    size_t j;
    for (j = 0; j < n; j++)
        row[j] = l == -INFINITY || j >= nk ? 0 : exp_u10(row[j] - l);
}

/* sum_i x[i] y[i] as at::vec's map-reduce: products rounded; fewer than
 * 16 added in order, else in 16 lanes (the remainder into the first
 * lanes) reduced pairwise. */
static float dot_lanes(const float *x, const float *y, size_t n)
{
    float acc[16], s;
    size_t i, d;
    if (n == 0)
        return 0;
    if (n < 16) {
        s = x[0] * y[0];
        for (i = 1; i < n; i++)
            s = s + x[i] * y[i];
        return s;
    }
    for (i = 0; i < 16; i++)
        acc[i] = x[i] * y[i];
    for (d = 16; d + 16 <= n; d += 16)
        for (i = 0; i < 16; i++)
            acc[i] = acc[i] + x[d + i] * y[d + i];
    for (i = 0; d + i < n; i++)
        acc[i] = acc[i] + x[d + i] * y[d + i];
    return lanes16_sum(acc);
}

/* The forward of (b, h) into o (L x Ev) and lse (L); work: kt (E x S),
 * qk (qb x kvb), mx and sum (qb), tmp (blas_f32's). */
static void flash_fwd_f32(const attn *a, int64_t b, int64_t h, float *o,
                          float *lse, float *kt, float *qk, float *mx,
                          float *sum, float *tmp, bool skip)
{
    size_t bh = (size_t)(b * a->H + h);
    const float *q = a->qf + bh * a->L * a->E;
    const float *v = a->vf + bh * a->S * a->Ev;
    int64_t qs = q_block(a->L), ks = kv_block(a->S), m, n, r, j;
    float scale = (float)a->scale;
    transpose_f32((size_t)a->S, (size_t)a->E, a->kf + bh * a->S * a->E,
                  (size_t)a->E, kt);
    for (m = 0; m < a->L; m += qs) {
        int64_t qb = a->L - m < qs ? a->L - m : qs;
        int64_t nkeys = a->causal && m + qb < a->S ? m + qb : a->S;
        float *dst = o + m * a->Ev;
        memset(dst, 0, (size_t)(qb * a->Ev) * sizeof *dst);
        for (r = 0; r < qb; r++)
            mx[r] = -INFINITY, sum[r] = 0;
        for (n = 0; n < nkeys; n += ks) {
            int64_t kb = a->S - n < ks ? a->S - n : ks;
            /* the scores of keys from nk on are all masked: not formed */
            int64_t nk = skip && nkeys - n < kb ? nkeys - n : kb;
            blas_f32((size_t)qb, (size_t)a->E, (size_t)a->E, (size_t)nk, 1,
                     q + m * a->E, (size_t)a->E, 1, kt + n, (size_t)a->S,
                     false, qk, (size_t)kb, tmp);
            for (r = 0; r < qb; r++) {
                float *row = qk + r * kb, bmax = -INFINITY, f;
                const float *mrow = mask_row_f32(a, b, h, m + r);
                if (a->causal && n + kb - 1 > m + r)
                    for (j = m + r + 1 - n < 0 ? 0 : m + r + 1 - n; j < kb;
                         j++)
                        row[j] = -INFINITY;
                for (j = 0; j < kb; j++) {
                    /* with a mask, scale and mask in one fused step */
                    row[j] = mrow ? fmaf(row[j], scale, mrow[n + j])
                                  : row[j] * scale;
                    if (row[j] > bmax)
                        bmax = row[j];
                }
                if (mx[r] > bmax)
                    bmax = mx[r];
                if (bmax == -INFINITY) {
                    memset(row, 0, (size_t)kb * sizeof *row);
                    continue;
                }
                f = exp_sum_row(row, (size_t)kb, bmax);
                if (a->dt != SC_DTYPE_F32)
                    for (j = 0; j < kb; j++)
                        row[j] = round_to(a->dt, row[j]);
                {
                    float e = expf(mx[r] - bmax);
                    sum[r] = fmaf(e, sum[r], f);
                    mx[r] = bmax;
                    if (n > 0)
                        for (j = 0; j < a->Ev; j++)
                            dst[r * a->Ev + j] = dst[r * a->Ev + j] * e;
                }
            }
            blas_f32((size_t)qb, (size_t)kb, (size_t)nk, (size_t)a->Ev, 1, qk,
                     (size_t)kb, 1, v + n * a->Ev, (size_t)a->Ev, n > 0, dst,
                     (size_t)a->Ev, tmp);
        }
        for (r = 0; r < qb; r++) {
            float rec;
            if (sum[r] == 0) {
                memset(dst + r * a->Ev, 0, (size_t)a->Ev * sizeof *dst);
                lse[m + r] = -INFINITY;
                continue;
            }
            rec = 1 / sum[r];
            for (j = 0; j < a->Ev; j++)
                dst[r * a->Ev + j] = dst[r * a->Ev + j] * rec;
            lse[m + r] = mx[r] + logf(sum[r]);
        }
    }
}

/* The backward of (b, h): grad_out g and out o ([L, Ev] of (b, h)), lse
 * (L) added into dq (L x E), dk (S x E), dv (S x Ev), zeroed.  Work: kt
 * (E x S), vt (Ev x S), p, dp, pr (qb x kvb each), dsum (qb), tmp
 * (blas_f32's). */
static void flash_bwd_f32(const attn *a, int64_t b, int64_t h,
                          const float *g, const float *o, const float *lse,
                          float *dq, float *dk, float *dv, float *kt,
                          float *kts, float *vt, float *p, float *dp,
                          float *pr,
                          float *dsum, float *tmp, bool skip)
{
    size_t bh = (size_t)(b * a->H + h);
    const float *q = a->qf + bh * a->L * a->E;
    const float *k = a->kf + bh * a->S * a->E;
    int64_t qs = q_block(a->L), ks = kv_block(a->S), m, n, r, j;
    float scale = (float)a->scale;
    bool reduced = a->dt != SC_DTYPE_F32;
    transpose_f32((size_t)a->S, (size_t)a->E, k, (size_t)a->E, kt);
    for (j = 0; j < a->E * a->S; j++)
        kts[j] = kt[j] * scale;
    transpose_f32((size_t)a->S, (size_t)a->Ev, a->vf + bh * a->S * a->Ev,
                  (size_t)a->Ev, vt);
    for (m = 0; m < a->L; m += qs) {
        int64_t qb = a->L - m < qs ? a->L - m : qs;
        int64_t nkeys = a->causal && m + qb < a->S ? m + qb : a->S;
        for (r = 0; r < qb; r++)
            dsum[r] = dot_lanes(g + (m + r) * a->Ev, o + (m + r) * a->Ev,
                                (size_t)a->Ev);
        for (n = 0; n < nkeys; n += ks) {
            int64_t kb = a->S - n < ks ? a->S - n : ks;
            const float *pv = reduced ? pr : p;
            /* keys from nk on are masked for every row of the block:
               their probabilities are 0, their products not formed */
            int64_t nk = skip && nkeys - n < kb ? nkeys - n : kb;
            /* p = exp(scale q k^T + mask - lse); for key blocks over 32
               the BLAS scales K first, else the products */
            blas_f32((size_t)qb, (size_t)a->E, (size_t)a->E, (size_t)nk,
                     kb > 32 ? 1 : scale, q + m * a->E, (size_t)a->E, 1,
                     (kb > 32 ? kts : kt) + n, (size_t)a->S, false, p,
                     (size_t)kb, tmp);
            for (r = 0; r < qb; r++) {
                float l = lse[m + r], *row = p + r * kb;
                const float *mrow = mask_row_f32(a, b, h, m + r);
                if (mrow)
                    for (j = 0; j < kb; j++)
                        row[j] = row[j] + mrow[n + j];
                if (a->causal && n + kb - 1 > m + r)
                    for (j = m + r + 1 - n < 0 ? 0 : m + r + 1 - n; j < kb;
                         j++)
                        row[j] = -INFINITY;
                probs_row(row, (size_t)kb, (size_t)nk, l);
                if (reduced)
                    for (j = 0; j < kb; j++)
                        pr[r * kb + j] = round_to(a->dt, row[j]);
            }
            /* dv += p^T g */
            blas_f32((size_t)nk, (size_t)qb, (size_t)qb, (size_t)a->Ev, 1, pv,
                     1, (size_t)kb, g + m * a->Ev, (size_t)a->Ev, true,
                     dv + n * a->Ev, (size_t)a->Ev, tmp);
            /* dp = g v^T; ds = p (dp - dsum), rounded to the input type */
            blas_f32((size_t)qb, (size_t)a->Ev, (size_t)a->Ev, (size_t)nk, 1,
                     g + m * a->Ev, (size_t)a->Ev, 1, vt + n, (size_t)a->S,
                     false, dp, (size_t)kb, tmp);
            for (r = 0; r < qb; r++)
                for (j = 0; j < nk; j++) {
                    float d = p[r * kb + j] * (dp[r * kb + j] - dsum[r]);
                    dp[r * kb + j] = round_to(a->dt, d);
                }
            /* dq += scale ds k; dk += scale ds^T q */
            blas_f32((size_t)qb, (size_t)kb, (size_t)nk, (size_t)a->E, scale,
                     dp, (size_t)kb, 1, k + n * a->E, (size_t)a->E, true,
                     dq + m * a->E, (size_t)a->E, tmp);
            blas_f32((size_t)nk, (size_t)qb, (size_t)qb, (size_t)a->E, scale,
                     dp, 1, (size_t)kb, q + m * a->E, (size_t)a->E, true,
                     dk + n * a->E, (size_t)a->E, tmp);
        }
    }
}

/* Whether every x[i], i < n, is finite (then a product with 0 is 0). */
static bool all_finite(const float *x, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return false;
    return true;
}

/* Room for blas_f32's chunk results: the largest of its n x m. */
static size_t tmp_size(const attn *a)
{
    int64_t r = q_block(a->L) > kv_block(a->S) ? q_block(a->L)
                                                : kv_block(a->S);
    int64_t c = kv_block(a->S);
    if (a->E > r)
        r = a->E;
    if (a->E > c)
        c = a->E;
    if (a->Ev > c)
        c = a->Ev;
    return (size_t)(r * c) + 1;
}

/* _scaled_dot_product_flash_attention_for_cpu on the float32 path. */
static sc_status sdpa_flash_f32(sc__kernel_call *call, attn *a,
                                const sc_tensor *qt)
{
    float *o = NULL, *lse = NULL, *kt = NULL, *qk = NULL, *mx = NULL,
          *sum = NULL, *tmp = NULL;
    sc_tensor *outs[2] = {NULL, NULL};
    int64_t b, h, osz[4], lsz[3];
    int64_t qs = q_block(a->L), ks = kv_block(a->S);
    size_t qperm[4];
    bool skip;
    sc_status status;

    o = sc__calloc((size_t)(a->B * a->H * a->L * a->Ev) + 1, sizeof *o);
    lse = sc__calloc((size_t)(a->B * a->H * a->L) + 1, sizeof *lse);
    kt = sc__calloc((size_t)(a->E * a->S) + 1, sizeof *kt);
    qk = sc__calloc((size_t)(qs * ks) + 1, sizeof *qk);
    mx = sc__calloc((size_t)qs + 1, sizeof *mx);
    sum = sc__calloc((size_t)qs + 1, sizeof *sum);
    tmp = sc__calloc(tmp_size(a), sizeof *tmp);
    if (!o || !lse || !kt || !qk || !mx || !sum || !tmp) {
        status = sc__error_nomem(call->err);
        goto fail;
    }
    skip = a->causal && all_finite(a->vf, (size_t)(a->B * a->H * a->S * a->Ev));
    for (b = 0; b < a->B; b++)
        for (h = 0; h < a->H; h++) {
            size_t bh = (size_t)(b * a->H + h);
            flash_fwd_f32(a, b, h, o + bh * a->L * a->Ev, lse + bh * a->L,
                          kt, qk, mx, sum, tmp, skip);
        }
    osz[0] = a->B;
    osz[1] = a->H;
    osz[2] = a->L;
    osz[3] = a->Ev;
    memcpy(lsz, osz, sizeof lsz);
    order_of(qt, qperm);
    SC_CHECK(out_in_order(call, qt->dtype, 4, osz, qperm, SC__CT_F32, o,
                          &outs[0]));
    SC_CHECK(out_in_order(call, SC_DTYPE_F32, 3, lsz, blhe, SC__CT_F32, lse,
                          &outs[1]));
    status = sc__out_n(call, 2, outs);
fail:
    sc_tensor_free(outs[0]);
    sc_tensor_free(outs[1]);
    sc__free(o);
    sc__free(lse);
    sc__free(kt);
    sc__free(qk);
    sc__free(mx);
    sc__free(sum);
    sc__free(tmp);
    return status;
}

/* The backward on the float32 path: grad_out, out and logsumexp read
 * from the call (lse at index li). */
static sc_status sdpa_flash_bwd_f32(sc__kernel_call *call, attn *a,
                                    const sc_tensor *qt, size_t li)
{
    const sc_tensor *gt, *ot, *lt;
    float *g = NULL, *o = NULL, *lse = NULL, *dq = NULL, *dk = NULL,
          *dv = NULL, *kt = NULL, *vt = NULL, *p = NULL, *dp = NULL,
          *t = NULL, *dsum = NULL, *tmp = NULL, *kts = NULL;
    sc_tensor *outs[3] = {NULL, NULL, NULL};
    int64_t b, h, i, sz[4];
    int64_t qs = q_block(a->L), ks = kv_block(a->S);
    size_t n;
    bool skip;
    sc_status status;

    SC_CHECK(gather4(call, SC_KARG_SDPA_FLASH_CPU_BACKWARD_GRAD_OUT,
                     "grad_out", &gt, SC__CT_F32, (void **)&g));
    SC_CHECK(gather4(call, SC_KARG_SDPA_FLASH_CPU_BACKWARD_OUT, "out", &ot,
                     SC__CT_F32, (void **)&o));
    if (gt->sizes[0] != a->B || gt->sizes[1] != a->H ||
        gt->sizes[2] != a->L || gt->sizes[3] != a->Ev ||
        ot->sizes[0] != a->B || ot->sizes[1] != a->H ||
        ot->sizes[2] != a->L || ot->sizes[3] != a->Ev) {
        status = sc__error_set(call->err, SC_ERR_SHAPE,
                               "attention backward: grad_out and out must "
                               "be [B, H, L, Ev]");
        goto fail;
    }
    SC_CHECK(sc__arg_tensor(call, li, &lt));
    if (lt->ndim != 3 || lt->sizes[0] != a->B || lt->sizes[1] != a->H ||
        lt->sizes[2] != a->L || !sc__dtype_is_float(lt->dtype)) {
        status = sc__error_set(call->err, SC_ERR_SHAPE,
                               "attention backward: logsumexp must be "
                               "floating [B, H, L]");
        goto fail;
    }
    SC_CHECK(sc__gather(lt, 3, lt->sizes, SC__CT_F32, (void **)&lse,
                        call->err));
    dq = sc__calloc((size_t)(a->B * a->H * a->L * a->E) + 1, sizeof *dq);
    dk = sc__calloc((size_t)(a->B * a->H * a->S * a->E) + 1, sizeof *dk);
    dv = sc__calloc((size_t)(a->B * a->H * a->S * a->Ev) + 1, sizeof *dv);
    kt = sc__calloc((size_t)(a->E * a->S) + 1, sizeof *kt);
    kts = sc__calloc((size_t)(a->E * a->S) + 1, sizeof *kts);
    vt = sc__calloc((size_t)(a->Ev * a->S) + 1, sizeof *vt);
    p = sc__calloc((size_t)(qs * ks) + 1, sizeof *p);
    dp = sc__calloc((size_t)(qs * ks) + 1, sizeof *dp);
    t = sc__calloc((size_t)(qs * ks) + 1, sizeof *t);
    dsum = sc__calloc((size_t)qs + 1, sizeof *dsum);
    tmp = sc__calloc(tmp_size(a), sizeof *tmp);
    if (!dq || !dk || !dv || !kt || !kts || !vt || !p || !dp || !t ||
        !dsum || !tmp) {
        status = sc__error_nomem(call->err);
        goto fail;
    }
    n = (size_t)(a->B * a->H);
    skip = a->causal && all_finite(a->qf, n * (size_t)(a->L * a->E)) &&
           all_finite(a->kf, n * (size_t)(a->S * a->E)) &&
           all_finite(a->vf, n * (size_t)(a->S * a->Ev)) &&
           all_finite(g, n * (size_t)(a->L * a->Ev));
    for (b = 0; b < a->B; b++)
        for (h = 0; h < a->H; h++) {
            size_t bh = (size_t)(b * a->H + h);
            flash_bwd_f32(a, b, h, g + bh * a->L * a->Ev,
                          o + bh * a->L * a->Ev, lse + bh * a->L,
                          dq + bh * a->L * a->E, dk + bh * a->S * a->E,
                          dv + bh * a->S * a->Ev, kt, kts, vt, p, dp, t,
                          dsum, tmp, skip);
        }
    sz[0] = a->B;
    sz[1] = a->H;
    sz[2] = a->L;
    sz[3] = a->E;
    SC_CHECK(out_in_order(call, qt->dtype, 4, sz, blhe, SC__CT_F32, dq,
                          &outs[0]));
    sz[2] = a->S;
    SC_CHECK(out_in_order(call, qt->dtype, 4, sz, blhe, SC__CT_F32, dk,
                          &outs[1]));
    sz[3] = a->Ev;
    SC_CHECK(out_in_order(call, qt->dtype, 4, sz, blhe, SC__CT_F32, dv,
                          &outs[2]));
    status = sc__out_n(call, 3, outs);
fail:
    for (i = 0; i < 3; i++)
        sc_tensor_free(outs[i]);
    sc__free(g);
    sc__free(o);
    sc__free(lse);
    sc__free(dq);
    sc__free(dk);
    sc__free(dv);
    sc__free(kt);
    sc__free(kts);
    sc__free(vt);
    sc__free(p);
    sc__free(dp);
    sc__free(t);
    sc__free(dsum);
    sc__free(tmp);
    return status;
}

sc_status sc__kernel_sdpa_flash_cpu(sc__kernel_call *call)
{
    const size_t idx[7] = {
        SC_KARG_SDPA_FLASH_CPU_QUERY, SC_KARG_SDPA_FLASH_CPU_KEY,
        SC_KARG_SDPA_FLASH_CPU_VALUE, SC_KARG_SDPA_FLASH_CPU_DROPOUT_P,
        SC_KARG_SDPA_FLASH_CPU_IS_CAUSAL, SC_KARG_SDPA_FLASH_CPU_ATTN_MASK,
        SC_KARG_SDPA_FLASH_CPU_SCALE};
    const sc_tensor *qt;
    attn a;
    double *o = NULL, *lse = NULL, *s = NULL;
    sc_tensor *outs[2] = {NULL, NULL};
    int64_t b, h, i, j, e, osz[4], lsz[3];
    size_t qperm[4];
    sc_status status;
    sc_dtype ld;

    memset(&a, 0, sizeof a);
    SC_CHECK(sc__arg_tensor(call, idx[0], &qt));
    if (attn_is_f32(qt)) {
        SC_CHECK(attn_setup(call, idx, &a, &qt, true));
        status = sdpa_flash_f32(call, &a, qt);
        goto fail;
    }
    SC_CHECK(attn_setup(call, idx, &a, &qt, false));
    o = sc__calloc((size_t)(a.B * a.H * a.L * a.Ev) + 1, sizeof *o);
    lse = sc__calloc((size_t)(a.B * a.H * a.L) + 1, sizeof *lse);
    s = sc__calloc((size_t)a.S + 1, sizeof *s);
    if (!o || !lse || !s) {
        status = sc__error_nomem(call->err);
        goto fail;
    }
    for (b = 0; b < a.B; b++)
        for (h = 0; h < a.H; h++)
            for (i = 0; i < a.L; i++) {
                double l = scores(&a, b, h, i, s);
                double *orow = o + ((b * a.H + h) * a.L + i) * a.Ev;
                const double *v = a.v + (b * a.H + h) * a.S * a.Ev;
                lse[(b * a.H + h) * a.L + i] = l;
                if (l == -INFINITY)
                    continue;
                for (j = 0; j < a.S; j++) {
                    double p = exp(s[j] - l);
                    for (e = 0; e < a.Ev; e++)
                        orow[e] += p * v[j * a.Ev + e];
                }
            }
    osz[0] = a.B;
    osz[1] = a.H;
    osz[2] = a.L;
    osz[3] = a.Ev;
    memcpy(lsz, osz, sizeof lsz);
    ld = qt->dtype == SC_DTYPE_F16 || qt->dtype == SC_DTYPE_BF16
             ? SC_DTYPE_F32
             : qt->dtype;
    order_of(qt, qperm);
    SC_CHECK(out_in_order(call, qt->dtype, 4, osz, qperm, SC__CT_F64, o, &outs[0]));
    SC_CHECK(out_in_order(call, ld, 3, lsz, blhe, SC__CT_F64, lse, &outs[1]));
    status = sc__out_n(call, 2, outs);
fail:
    sc_tensor_free(outs[0]);
    sc_tensor_free(outs[1]);
    sc__free(o);
    sc__free(lse);
    sc__free(s);
    attn_free(&a);
    return status;
}

sc_status sc__kernel_sdpa_flash_cpu_backward(sc__kernel_call *call)
{
    const size_t idx[7] = {
        SC_KARG_SDPA_FLASH_CPU_BACKWARD_QUERY,
        SC_KARG_SDPA_FLASH_CPU_BACKWARD_KEY,
        SC_KARG_SDPA_FLASH_CPU_BACKWARD_VALUE,
        SC_KARG_SDPA_FLASH_CPU_BACKWARD_DROPOUT_P,
        SC_KARG_SDPA_FLASH_CPU_BACKWARD_IS_CAUSAL,
        SC_KARG_SDPA_FLASH_CPU_BACKWARD_ATTN_MASK,
        SC_KARG_SDPA_FLASH_CPU_BACKWARD_SCALE};
    const sc_tensor *qt, *gt, *ot;
    attn a;
    double *g = NULL, *o = NULL, *dq = NULL, *dk = NULL, *dv = NULL,
           *s = NULL, *dp = NULL;
    sc_tensor *outs[3] = {NULL, NULL, NULL};
    int64_t i, sz[4];
    sc_status status;

    memset(&a, 0, sizeof a);
    SC_CHECK(sc__arg_tensor(call, idx[0], &qt));
    if (attn_is_f32(qt)) {
        SC_CHECK(attn_setup(call, idx, &a, &qt, true));
        status = sdpa_flash_bwd_f32(call, &a, qt,
                                    SC_KARG_SDPA_FLASH_CPU_BACKWARD_LOGSUMEXP);
        goto fail;
    }
    SC_CHECK(attn_setup(call, idx, &a, &qt, false));
    SC_CHECK(gather4(call, SC_KARG_SDPA_FLASH_CPU_BACKWARD_GRAD_OUT,
                     "grad_out", &gt, SC__CT_F64,
                     (void **)&g));
    SC_CHECK(gather4(call, SC_KARG_SDPA_FLASH_CPU_BACKWARD_OUT, "out", &ot, SC__CT_F64,
                     (void **)&o));
    if (gt->sizes[2] != a.L || gt->sizes[3] != a.Ev || ot->sizes[2] != a.L ||
        ot->sizes[3] != a.Ev) {
        status = sc__error_set(call->err, SC_ERR_SHAPE,
                               "attention backward: grad_out and out must "
                               "be [B, H, L, Ev]");
        goto fail;
    }
    dq = sc__calloc((size_t)(a.B * a.H * a.L * a.E) + 1, sizeof *dq);
    dk = sc__calloc((size_t)(a.B * a.H * a.S * a.E) + 1, sizeof *dk);
    dv = sc__calloc((size_t)(a.B * a.H * a.S * a.Ev) + 1, sizeof *dv);
    s = sc__calloc((size_t)a.S + 1, sizeof *s);
    dp = sc__calloc((size_t)a.S + 1, sizeof *dp);
    if (!dq || !dk || !dv || !s || !dp) {
        status = sc__error_nomem(call->err);
        goto fail;
    }
    attn_backward(&a, g, o, s, dq, dk, dv, NULL);
    sz[0] = a.B;
    sz[1] = a.H;
    sz[2] = a.L;
    sz[3] = a.E;
    SC_CHECK(out_in_order(call, qt->dtype, 4, sz, blhe, SC__CT_F64, dq, &outs[0]));
    sz[2] = a.S;
    SC_CHECK(out_in_order(call, qt->dtype, 4, sz, blhe, SC__CT_F64, dk, &outs[1]));
    sz[3] = a.Ev;
    SC_CHECK(out_in_order(call, qt->dtype, 4, sz, blhe, SC__CT_F64, dv, &outs[2]));
    status = sc__out_n(call, 3, outs);
fail:
    for (i = 0; i < 3; i++)
        sc_tensor_free(outs[i]);
    sc__free(g);
    sc__free(o);
    sc__free(dq);
    sc__free(dk);
    sc__free(dv);
    sc__free(s);
    sc__free(dp);
    attn_free(&a);
    return status;
}

/* _scaled_dot_product_efficient_attention(query, key, value, attn_bias,
 * compute_log_sumexp, dropout_p, is_causal, *, scale): the attention of
 * the flash kernel with attn_bias added to the scores; the output dense in
 * the order [B, L, H, Ev]; log_sumexp float32 (float64 for float64
 * inputs, as the shape rule says), its rows padded to a
 * multiple of 32 with zeros (torch leaves them uninitialized); philox_seed
 * and philox_offset 0 (no dropout). */
sc_status sc__kernel_sdpa_efficient(sc__kernel_call *call)
{
    const size_t idx[7] = {
        SC_KARG_SDPA_EFFICIENT_QUERY, SC_KARG_SDPA_EFFICIENT_KEY,
        SC_KARG_SDPA_EFFICIENT_VALUE, SC_KARG_SDPA_EFFICIENT_DROPOUT_P,
        SC_KARG_SDPA_EFFICIENT_IS_CAUSAL, SC_KARG_SDPA_EFFICIENT_ATTN_BIAS,
        SC_KARG_SDPA_EFFICIENT_SCALE};
    static const size_t bhl[3] = {0, 1, 2};
    const sc_tensor *qt;
    attn a;
    double *o = NULL, *lse = NULL, *s = NULL;
    sc_tensor *outs[4] = {NULL, NULL, NULL, NULL};
    int64_t b, h, i, j, e, osz[4], lsz[3], P;
    bool want_lse;
    sc_status status;

    memset(&a, 0, sizeof a);
    SC_CHECK(attn_setup(call, idx, &a, &qt, false));
    SC_CHECK(sc__arg_bool(call, SC_KARG_SDPA_EFFICIENT_COMPUTE_LOG_SUMEXP,
                          &want_lse));
    P = want_lse ? (a.L + 31) / 32 * 32 : 0;
    o = sc__calloc((size_t)(a.B * a.H * a.L * a.Ev) + 1, sizeof *o);
    lse = sc__calloc((size_t)(a.B * a.H * P) + 1, sizeof *lse);
    s = sc__calloc((size_t)a.S + 1, sizeof *s);
    if (!o || !lse || !s) {
        status = sc__error_nomem(call->err);
        goto fail;
    }
    for (b = 0; b < a.B; b++)
        for (h = 0; h < a.H; h++)
            for (i = 0; i < a.L; i++) {
                double l = scores(&a, b, h, i, s);
                double *orow = o + ((b * a.H + h) * a.L + i) * a.Ev;
                const double *v = a.v + (b * a.H + h) * a.S * a.Ev;
                if (want_lse)
                    lse[(b * a.H + h) * P + i] = l;
                if (l == -INFINITY)
                    continue;
                for (j = 0; j < a.S; j++) {
                    double p = exp(s[j] - l);
                    for (e = 0; e < a.Ev; e++)
                        orow[e] += p * v[j * a.Ev + e];
                }
            }
    osz[0] = a.B;
    osz[1] = a.H;
    osz[2] = a.L;
    osz[3] = a.Ev;
    lsz[0] = a.B;
    lsz[1] = a.H;
    lsz[2] = P;
    SC_CHECK(out_in_order(call, qt->dtype, 4, osz, blhe, SC__CT_F64, o, &outs[0]));
    SC_CHECK(out_in_order(call,
                          qt->dtype == SC_DTYPE_F64 ? SC_DTYPE_F64
                                                    : SC_DTYPE_F32,
                          3, lsz, bhl, SC__CT_F64, lse, &outs[1]));
    SC_CHECK(sc_tensor_new(SC_DTYPE_I64, 0, NULL, &outs[2], call->err));
    SC_CHECK(sc_tensor_new(SC_DTYPE_I64, 0, NULL, &outs[3], call->err));
    status = sc__out_n(call, 4, outs);
    for (i = 0; i < 4; i++)
        outs[i] = NULL;
fail:
    for (i = 0; i < 4; i++)
        sc_tensor_free(outs[i]);
    sc__free(o);
    sc__free(lse);
    sc__free(s);
    attn_free(&a);
    return status;
}

/* grad_attn_bias: buf (row-major over bias's sizes) in bias's dtype, in a
 * buffer whose last dim is rounded up to a multiple of 16 (torch's
 * layout). */
static sc_status out_bias_grad(sc__kernel_call *c, const sc_tensor *bias,
                               const double *buf, sc_tensor **out)
{
    sc_tensor *tmp = NULL;
    int64_t strides[SC_TENSOR_MAX_DIMS], acc = 1;
    size_t i, nd = bias->ndim;
    sc_status status;

    *out = NULL;
    for (i = nd; i-- > 0;) {
        int64_t sz = bias->sizes[i];
        strides[i] = acc;
        if (i == nd - 1)
            sz = (sz + 15) / 16 * 16;
        acc *= sz > 1 ? sz : 1;
    }
    SC_CHECK(sc__new(bias->dtype, nd, bias->sizes, &tmp, c->err));
    sc__scatter(tmp, SC__CT_F64, buf);
    SC_CHECK(sc_tensor_new_strided(bias->dtype, nd, bias->sizes, strides, out,
                                   c->err));
    SC_CHECK(sc_tensor_copy(*out, tmp, c->err));
    sc_tensor_free(tmp);
    return SC_OK;
fail:
    sc_tensor_free(tmp);
    sc_tensor_free(*out);
    *out = NULL;
    return status;
}

/* _scaled_dot_product_efficient_attention_backward(grad_out_, query, key,
 * value, attn_bias, out, logsumexp, philox_seed, philox_offset, dropout_p,
 * grad_input_mask, is_causal, *, scale): the flash backward's gradients
 * (the log-sum-exp recomputed), dense in the order [B, L, H, E], and the
 * gradient of attn_bias when it is given and grad_input_mask[3] asks. */
sc_status sc__kernel_sdpa_efficient_backward(sc__kernel_call *call)
{
    const size_t idx[7] = {
        SC_KARG_SDPA_EFFICIENT_BACKWARD_QUERY,
        SC_KARG_SDPA_EFFICIENT_BACKWARD_KEY,
        SC_KARG_SDPA_EFFICIENT_BACKWARD_VALUE,
        SC_KARG_SDPA_EFFICIENT_BACKWARD_DROPOUT_P,
        SC_KARG_SDPA_EFFICIENT_BACKWARD_IS_CAUSAL,
        SC_KARG_SDPA_EFFICIENT_BACKWARD_ATTN_BIAS,
        SC_KARG_SDPA_EFFICIENT_BACKWARD_SCALE};
    const sc_tensor *qt, *gt, *ot, *bias;
    attn a;
    double *g = NULL, *o = NULL, *dq = NULL, *dk = NULL, *dv = NULL,
           *db = NULL, *s = NULL;
    sc_tensor *outs[4] = {NULL, NULL, NULL, NULL};
    bool mask[4];
    int64_t i, sz[4];
    sc_status status;

    memset(&a, 0, sizeof a);
    SC_CHECK(attn_setup(call, idx, &a, &qt, false));
    SC_CHECK(sc__arg_opt_tensor(call, SC_KARG_SDPA_EFFICIENT_BACKWARD_ATTN_BIAS,
                                &bias));
    SC_CHECK(sc__arg_mask(call,
                          SC_KARG_SDPA_EFFICIENT_BACKWARD_GRAD_INPUT_MASK, 4,
                          mask));
    SC_CHECK(gather4(call, SC_KARG_SDPA_EFFICIENT_BACKWARD_GRAD_OUT_,
                     "grad_out_", &gt, SC__CT_F64,
                     (void **)&g));
    SC_CHECK(gather4(call, SC_KARG_SDPA_EFFICIENT_BACKWARD_OUT, "out", &ot, SC__CT_F64,
                     (void **)&o));
    if (gt->sizes[0] != a.B || gt->sizes[1] != a.H || gt->sizes[2] != a.L ||
        gt->sizes[3] != a.Ev || ot->sizes[0] != a.B || ot->sizes[1] != a.H ||
        ot->sizes[2] != a.L || ot->sizes[3] != a.Ev) {
        status = sc__error_set(call->err, SC_ERR_SHAPE,
                               "attention backward: grad_out_ and out must "
                               "be [B, H, L, Ev]");
        goto fail;
    }
    if (bias && !sc__dtype_is_float(bias->dtype)) {
        status = sc__error_set(call->err, SC_ERR_TYPE,
                               "attention backward: attn_bias must be "
                               "floating");
        goto fail;
    }
    dq = sc__calloc((size_t)(a.B * a.H * a.L * a.E) + 1, sizeof *dq);
    dk = sc__calloc((size_t)(a.B * a.H * a.S * a.E) + 1, sizeof *dk);
    dv = sc__calloc((size_t)(a.B * a.H * a.S * a.Ev) + 1, sizeof *dv);
    s = sc__calloc((size_t)a.S + 1, sizeof *s);
    if (bias && mask[3])
        db = sc__calloc(sc_tensor_numel(bias) + 1, sizeof *db);
    if (!dq || !dk || !dv || !s || (bias && mask[3] && !db)) {
        status = sc__error_nomem(call->err);
        goto fail;
    }
    attn_backward(&a, g, o, s, dq, dk, dv, db);
    sz[0] = a.B;
    sz[1] = a.H;
    sz[2] = a.L;
    sz[3] = a.E;
    SC_CHECK(out_in_order(call, qt->dtype, 4, sz, blhe, SC__CT_F64, dq, &outs[0]));
    sz[2] = a.S;
    SC_CHECK(out_in_order(call, qt->dtype, 4, sz, blhe, SC__CT_F64, dk, &outs[1]));
    sz[3] = a.Ev;
    SC_CHECK(out_in_order(call, qt->dtype, 4, sz, blhe, SC__CT_F64, dv, &outs[2]));
    if (db)
        SC_CHECK(out_bias_grad(call, bias, db, &outs[3]));
    status = sc__out_n(call, 4, outs);
    for (i = 0; i < 4; i++)
        outs[i] = NULL;
fail:
    for (i = 0; i < 4; i++)
        sc_tensor_free(outs[i]);
    sc__free(g);
    sc__free(o);
    sc__free(dq);
    sc__free(dk);
    sc__free(dv);
    sc__free(db);
    sc__free(s);
    attn_free(&a);
    return status;
}
