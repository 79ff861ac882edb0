/* symcut — kernels: reading and writing through an index tensor
 * (index_select, index_add, masked_scatter).
 *
 * Values move in the compute type of their dtype (kernels-internal.h), so
 * copies are exact; index_add accumulates in the index's order in that
 * type as PyTorch's CPU kernel does: self + alpha * source with one
 * rounding (a fused multiply-add) in f32 and f64; in f16 and bf16 alpha,
 * each product and each sum rounded to the type. */
#include <math.h>
#include <string.h>

#include "kernels/kernels-internal.h"

/* The sizes of t around dim d: outer (before), len (at d), inner (after);
 * a 0-d tensor is one element at a dim of length 1. */
static void split_at(const sc_tensor *t, size_t d, int64_t *outer,
                     int64_t *len, int64_t *inner)
{
    size_t k;
    *outer = *inner = 1;
    *len = t->ndim ? t->sizes[d] : 1;
    for (k = 0; k < t->ndim; k++) {
        if (k < d)
            *outer *= t->sizes[k];
        else if (k > d)
            *inner *= t->sizes[k];
    }
}

/* The index vector (0-d or 1-d, int64 or int32) as int64, each checked
 * against [-size, size) and wrapped. */
static sc_status index_values(sc__kernel_call *c, const char *op,
                              const sc_tensor *ix, int64_t size,
                              int64_t **out, size_t *n)
{
    int64_t *v = NULL;
    size_t i;
    sc_status status;

    if (ix->dtype != SC_DTYPE_I64 && ix->dtype != SC_DTYPE_I32)
        return sc__error_set(c->err, SC_ERR_TYPE,
                             "%s(): Expected dtype int32/int64 for index", op);
    if (ix->ndim > 1)
        return sc__error_set(c->err, SC_ERR_SHAPE,
                             "%s(): Index is supposed to be a vector", op);
    *n = sc_tensor_numel(ix);
    SC_TRY(sc__gather(ix, ix->ndim, ix->sizes, SC__CT_I64, (void **)&v,
                      c->err));
    for (i = 0; i < *n; i++) {
        if (v[i] < -size || v[i] >= size) {
            status = sc__error_set(c->err, SC_ERR_INVALID,
                                   "%s(): index %lld is out of bounds for "
                                   "dimension with size %lld", op,
                                   (long long)v[i], (long long)size);
            sc__free(v);
            return status;
        }
        if (v[i] < 0)
            v[i] += size;
    }
    *out = v;
    return SC_OK;
}

/* The result of a kernel of this file: buffer b (compute type ct) as a
 * new contiguous tensor of dtype d and sizes, handed to the call. */
static sc_status result_of(sc__kernel_call *c, sc_dtype d, size_t ndim,
                           const int64_t *sizes, sc__ctype ct, const void *b)
{
    sc_tensor *r = NULL;
    SC_TRY(sc__new(d, ndim, sizes, &r, c->err));
    sc__scatter(r, ct, b);
    return sc__out(c, r);
}

/* The (self, dim, index) of index_select and index_add at those argument
 * indices: self, dim wrapped (*d), self's sizes split there, and the
 * index's values (*iv, n of them, each in [0, len); the caller frees). */
static sc_status index_dim_args(sc__kernel_call *c, const char *op,
                                size_t self, size_t dim, size_t index,
                                const sc_tensor **x, size_t *d,
                                int64_t *outer, int64_t *len, int64_t *inner,
                                int64_t **iv, size_t *n)
{
    const sc_tensor *ix;
    int64_t dm;
    SC_TRY(sc__arg_tensor(c, self, x));
    SC_TRY(sc__arg_int(c, dim, &dm));
    SC_TRY(sc__arg_tensor(c, index, &ix));
    SC_TRY(sc__wrap_dim(dm, (*x)->ndim, d, c->err));
    split_at(*x, *d, outer, len, inner);
    return index_values(c, op, ix, *len, iv, n);
}

/* index_select(Tensor self, int dim, Tensor index) */
sc_status sc__kernel_index_select(sc__kernel_call *call)
{
    const sc_tensor *x;
    int64_t outer, len, inner, sizes[SC_TENSOR_MAX_DIMS], *iv = NULL, o;
    size_t d, n, i, es;
    sc__ctype ct;
    char *bx = NULL, *bo = NULL;
    sc_status status;

    SC_TRY(index_dim_args(call, "index_select", SC_KARG_INDEX_SELECT_SELF,
                          SC_KARG_INDEX_SELECT_DIM, SC_KARG_INDEX_SELECT_INDEX,
                          &x, &d, &outer, &len, &inner, &iv, &n));
    if (x->ndim == 0 && n != 1) {
        sc__free(iv);
        return sc__error_set(call->err, SC_ERR_SHAPE,
                             "index_select(): Index to scalar can have only "
                             "1 value, got %zu value(s)", n);
    }
    memcpy(sizes, x->sizes, x->ndim * sizeof *sizes);
    if (x->ndim)
        sizes[d] = (int64_t)n;
    ct = sc__ctype_of(x->dtype);
    es = sc__ctype_size(ct);
    SC_CHECK(sc__gather(x, x->ndim, x->sizes, ct, (void **)&bx, call->err));
    bo = sc__calloc((size_t)(outer * inner) * n + 1, es);
    if (!bo) {
        status = sc__error_nomem(call->err);
        goto fail;
    }
    for (o = 0; o < outer; o++)
        for (i = 0; i < n; i++)
            memcpy(bo + ((size_t)o * n + i) * (size_t)inner * es,
                   bx + ((size_t)(o * len + iv[i]) * (size_t)inner) * es,
                   (size_t)inner * es);
    status = result_of(call, x->dtype, x->ndim, sizes, ct, bo);
fail:
    sc__free(iv);
    sc__free(bx);
    sc__free(bo);
    return status;
}

/* f rounded to the 16-bit float type d. */
static float round_to(sc_dtype d, float f)
{
    return d == SC_DTYPE_BF16 ? sc_bf16_to_f32(sc_f32_to_bf16(f))
                              : sc_f16_to_f32(sc_f32_to_f16(f));
}

/* acc[at] += alpha * v in compute type ct: for f32 and f64 fused (one
 * rounding); for f16 and bf16 in the type itself, as PyTorch computes
 * them: alpha, the product and the sum each rounded to d. */
static void add_into(char *acc, size_t at, const char *src, size_t from,
                     sc__ctype ct, sc_dtype d, double alpha)
{
    if (ct == SC__CT_F32 && (d == SC_DTYPE_BF16 || d == SC_DTYPE_F16)) {
        float *a = (float *)acc + at;
        float v = ((const float *)src)[from];
        float k = round_to(d, (float)alpha);
        *a = round_to(d, *a + (alpha == 1 ? v : round_to(d, k * v)));
    } else if (ct == SC__CT_F32) {
        float *a = (float *)acc + at;
        float v = ((const float *)src)[from];
        *a = alpha == 1 ? *a + v : fmaf((float)alpha, v, *a);
    } else if (ct == SC__CT_F64) {
        double *a = (double *)acc + at;
        *a = fma(alpha, ((const double *)src)[from], *a);
    } else {
        int64_t *a = (int64_t *)acc + at;
        int64_t v = ((const int64_t *)src)[from];
        *a = (int64_t)((uint64_t)*a + (uint64_t)(v * (int64_t)alpha));
    }
}

/* index_add(Tensor self, int dim, Tensor index, Tensor source, *,
 * Scalar alpha=1): self with alpha * source's slices added at the
 * indexed positions of dim, in index order. */
sc_status sc__kernel_index_add(sc__kernel_call *call)
{
    const sc_tensor *x, *src;
    int64_t outer, len, inner, *iv = NULL, o, j;
    double alpha = 1;
    size_t d, n, i;
    sc__ctype ct;
    char *bs = NULL, *bo = NULL;
    sc_status status;

    SC_TRY(sc__arg_tensor(call, SC_KARG_INDEX_ADD_SOURCE, &src));
    SC_TRY(sc__arg_double(call, SC_KARG_INDEX_ADD_ALPHA, &alpha));
    SC_TRY(index_dim_args(call, "index_add", SC_KARG_INDEX_ADD_SELF,
                          SC_KARG_INDEX_ADD_DIM, SC_KARG_INDEX_ADD_INDEX, &x,
                          &d, &outer, &len, &inner, &iv, &n));
    if (src->dtype != x->dtype) {
        sc__free(iv);
        return sc__error_set(call->err, SC_ERR_TYPE,
                             "index_add(): self (%s) and source (%s) must "
                             "have the same scalar type",
                             sc_dtype_code(x->dtype), sc_dtype_code(src->dtype));
    }
    if (sc_tensor_numel(src) != (size_t)(outer * inner) * n ||
        (src->ndim == x->ndim && x->ndim && src->sizes[d] != (int64_t)n)) {
        sc__free(iv);
        return sc__error_set(call->err, SC_ERR_SHAPE,
                             "index_add(): Number of indices (%zu) should be "
                             "equal to source.size(dim)", n);
    }
    ct = sc__ctype_of(x->dtype);
    SC_CHECK(sc__gather(x, x->ndim, x->sizes, ct, (void **)&bo, call->err));
    SC_CHECK(sc__gather(src, src->ndim, src->sizes, ct, (void **)&bs,
                        call->err));
    for (o = 0; o < outer; o++)
        for (i = 0; i < n; i++)
            for (j = 0; j < inner; j++)
                add_into(bo, (size_t)((o * len + iv[i]) * inner + j), bs,
                         ((size_t)o * n + i) * (size_t)inner + (size_t)j, ct,
                         x->dtype, alpha);
    status = result_of(call, x->dtype, x->ndim, x->sizes, ct, bo);
fail:
    sc__free(iv);
    sc__free(bs);
    sc__free(bo);
    return status;
}

/* masked_scatter(Tensor self, Tensor mask, Tensor source): self and mask
 * broadcast; where mask is true, the next element of source (row-major);
 * source must have at least as many elements as mask has true ones. */
sc_status sc__kernel_masked_scatter(sc__kernel_call *call)
{
    const sc_tensor *x, *m, *src;
    int64_t sizes[SC_TENSOR_MAX_DIMS];
    size_t ndim, n, i, next = 0, es, ns;
    sc__ctype ct;
    char *bx = NULL, *bsrc = NULL;
    int64_t *bm = NULL;
    sc_status status;

    SC_TRY(sc__arg_tensor(call, SC_KARG_MASKED_SCATTER_SELF, &x));
    SC_TRY(sc__arg_tensor(call, SC_KARG_MASKED_SCATTER_MASK, &m));
    SC_TRY(sc__arg_tensor(call, SC_KARG_MASKED_SCATTER_SOURCE, &src));
    if (m->dtype != SC_DTYPE_B8 && m->dtype != SC_DTYPE_U8)
        return sc__error_set(call->err, SC_ERR_TYPE,
                             "masked_scatter: Mask must be bool or uint8");
    if (src->dtype != x->dtype)
        return sc__error_set(call->err, SC_ERR_TYPE,
                             "masked_scatter: expected self and source to "
                             "have same dtypes but got %s and %s",
                             sc_dtype_code(x->dtype), sc_dtype_code(src->dtype));
    SC_TRY(sc__broadcast_shape(x->ndim, x->sizes, m->ndim, m->sizes, &ndim,
                               sizes, call->err));
    SC_TRY(sc__numel_checked(ndim, sizes, &n, call->err));
    ct = sc__ctype_of(x->dtype);
    es = sc__ctype_size(ct);
    ns = sc_tensor_numel(src);
    SC_CHECK(sc__gather(x, ndim, sizes, ct, (void **)&bx, call->err));
    SC_CHECK(sc__gather(m, ndim, sizes, SC__CT_I64, (void **)&bm, call->err));
    SC_CHECK(sc__gather(src, src->ndim, src->sizes, ct, (void **)&bsrc,
                        call->err));
    for (i = 0; i < n; i++) {
        if (!bm[i])
            continue;
        if (next >= ns) {
            status = sc__error_set(call->err, SC_ERR_SHAPE,
                                   "masked_scatter: Number of elements of "
                                   "source < number of ones in mask");
            goto fail;
        }
        memcpy(bx + i * es, bsrc + next * es, es);
        next++;
    }
    status = result_of(call, x->dtype, ndim, sizes, ct, bx);
fail:
    sc__free(bx);
    sc__free(bm);
    sc__free(bsrc);
    return status;
}

/* scatter.value / scatter.src: a copy of self where, for every position p
 * of index, the element at p with dim replaced by index[p] takes value
 * (or src[p]); positions in row-major order (a later write wins).  With
 * add (scatter_add), src[p] is added there instead, in the same order
 * (add_into's rounding). */
static sc_status scatter_run(sc__kernel_call *c, const sc_tensor *x,
                             int64_t dim, const sc_tensor *ix,
                             const sc_tensor *src, double value, bool add)
{
    int64_t pos[SC_TENSOR_MAX_DIMS], *iv = NULL;
    size_t d, n, i, k, es;
    sc__ctype ct = sc__ctype_of(x->dtype);
    char *bo = NULL, *bs = NULL, vbuf[8];
    sc_status status;

    if (ix->dtype != SC_DTYPE_I64)
        return sc__error_set(c->err, SC_ERR_TYPE,
                             "scatter(): Expected dtype int64 for index");
    if (ix->ndim != x->ndim && !(ix->ndim <= 1 && x->ndim <= 1))
        return sc__error_set(c->err, SC_ERR_SHAPE,
                             "scatter(): Index tensor must have the same "
                             "number of dimensions as self tensor");
    if (src && src->dtype != x->dtype)
        return sc__error_set(c->err, SC_ERR_TYPE,
                             "scatter(): Expected self.dtype to be equal to "
                             "src.dtype");
    SC_TRY(sc__wrap_dim(dim, x->ndim, &d, c->err));
    for (k = 0; k < ix->ndim && ix->ndim == x->ndim; k++)
        if ((k != d && ix->sizes[k] > x->sizes[k]) ||
            (src && src->ndim == ix->ndim && ix->sizes[k] > src->sizes[k]))
            return sc__error_set(c->err, SC_ERR_SHAPE,
                                 "scatter(): index size %lld at dim %zu is "
                                 "larger than self's or src's",
                                 (long long)ix->sizes[k], k);
    es = sc__ctype_size(ct);
    n = sc_tensor_numel(ix);
    if (ct == SC__CT_F32)
        *(float *)vbuf = (float)value;
    else if (ct == SC__CT_F64)
        *(double *)vbuf = value;
    else
        *(int64_t *)vbuf = (int64_t)value;
    SC_CHECK(sc__gather(x, x->ndim, x->sizes, ct, (void **)&bo, c->err));
    SC_CHECK(sc__gather(ix, ix->ndim, ix->sizes, SC__CT_I64, (void **)&iv,
                        c->err));
    if (src)
        SC_CHECK(sc__gather(src, src->ndim, src->sizes, ct, (void **)&bs,
                            c->err));
    for (i = 0; i < n; i++) {
        size_t rem = i, at = 0, from = 0, stride = 1, sstride = 1;
        int64_t len = x->ndim ? x->sizes[d] : 1;
        for (k = ix->ndim; k-- > 0;) {
            pos[k] = (int64_t)(rem % (size_t)ix->sizes[k]);
            rem /= (size_t)ix->sizes[k];
        }
        if (iv[i] < -len || iv[i] >= len) {
            status = sc__error_set(c->err, SC_ERR_INVALID,
                                   "scatter(): index %lld is out of bounds "
                                   "for dimension %zu with size %lld",
                                   (long long)iv[i], d, (long long)len);
            goto fail;
        }
        for (k = x->ndim; k-- > 0;) {
            int64_t p = k == d ? (iv[i] < 0 ? iv[i] + len : iv[i]) : pos[k];
            at += (size_t)p * stride;
            stride *= (size_t)x->sizes[k];
        }
        if (src) {
            for (k = src->ndim; k-- > 0;) {
                from += (size_t)pos[k] * sstride;
                sstride *= (size_t)src->sizes[k];
            }
            if (add)
                add_into(bo, at, bs, from, ct, x->dtype, 1);
            else
                memcpy(bo + at * es, bs + from * es, es);
        } else {
            memcpy(bo + at * es, vbuf, es);
        }
    }
    status = result_of(c, x->dtype, x->ndim, x->sizes, ct, bo);
fail:
    sc__free(bo);
    sc__free(bs);
    sc__free(iv);
    return status;
}

/* scatter.value(Tensor self, int dim, Tensor index, Scalar value) */
sc_status sc__kernel_scatter_value(sc__kernel_call *call)
{
    const sc_tensor *x, *ix;
    int64_t dim;
    double v;
    SC_TRY(sc__arg_tensor(call, SC_KARG_SCATTER_VALUE_SELF, &x));
    SC_TRY(sc__arg_int(call, SC_KARG_SCATTER_VALUE_DIM, &dim));
    SC_TRY(sc__arg_tensor(call, SC_KARG_SCATTER_VALUE_INDEX, &ix));
    SC_TRY(sc__arg_double(call, SC_KARG_SCATTER_VALUE_VALUE, &v));
    return scatter_run(call, x, dim, ix, NULL, v, false);
}

/* The (Tensor self, int dim, Tensor index, Tensor src) kernels at those
 * argument indices: src's elements written (add false) or added. */
static sc_status scatter_tensor(sc__kernel_call *c, size_t self, size_t dim,
                                size_t index, size_t src, bool add)
{
    const sc_tensor *x, *ix, *s;
    int64_t d;
    SC_TRY(sc__arg_tensor(c, self, &x));
    SC_TRY(sc__arg_int(c, dim, &d));
    SC_TRY(sc__arg_tensor(c, index, &ix));
    SC_TRY(sc__arg_tensor(c, src, &s));
    return scatter_run(c, x, d, ix, s, 0, add);
}

/* scatter.src(Tensor self, int dim, Tensor index, Tensor src) */
sc_status sc__kernel_scatter_src(sc__kernel_call *call)
{
    return scatter_tensor(call, SC_KARG_SCATTER_SRC_SELF,
                          SC_KARG_SCATTER_SRC_DIM, SC_KARG_SCATTER_SRC_INDEX,
                          SC_KARG_SCATTER_SRC_SRC, false);
}

/* scatter_add(Tensor self, int dim, Tensor index, Tensor src) */
sc_status sc__kernel_scatter_add(sc__kernel_call *call)
{
    return scatter_tensor(call, SC_KARG_SCATTER_ADD_SELF,
                          SC_KARG_SCATTER_ADD_DIM, SC_KARG_SCATTER_ADD_INDEX,
                          SC_KARG_SCATTER_ADD_SRC, true);
}

/* ---- Advanced indexing: index.Tensor, index_put ------------------------- */

/* self[indices] as a map from the positions of the result (row-major over
 * its sizes) to self's elements (row-major offsets): the index tensors
 * broadcast to one shape replace the indexed dims, in place when those
 * are adjacent, else in front. */
typedef struct adv_map {
    size_t ndim;
    int64_t sizes[SC_TENSOR_MAX_DIMS];
    size_t n;          /* result elements */
    size_t *offset;    /* n offsets into self (row-major) */
} adv_map;

static sc_status adv_map_build(sc__kernel_call *c, const char *op,
                               const sc_tensor *x, size_t nix,
                               const sc_tensor *const *ix, adv_map *m)
{
    int64_t bsz[SC_TENSOR_MAX_DIMS], xst[SC_TENSOR_MAX_DIMS];
    int64_t *buf[SC_TENSOR_MAX_DIMS] = {NULL};
    size_t order[SC_TENSOR_MAX_DIMS], which[SC_TENSOR_MAX_DIMS];
    size_t nb = 0, k, q = 0, nidx = 0, nbefore = 0, nafter, bn, i;
    size_t first = SIZE_MAX, last = 0;
    bool adjacent = true, indexed[SC_TENSOR_MAX_DIMS] = {false};
    sc_status status = SC_OK;

    memset(m, 0, sizeof *m);
    if (nix == 0 || nix > x->ndim)
        return sc__error_set(c->err, SC_ERR_SHAPE,
                             "%s: %zu indices for a tensor of dimension %zu",
                             op, nix, x->ndim);
    for (k = 0; k < nix; k++) {
        if (!ix[k])
            continue;
        if (ix[k]->dtype != SC_DTYPE_I64 && ix[k]->dtype != SC_DTYPE_I32)
            return sc__error_set(c->err, SC_ERR_UNSUPPORTED,
                                 "%s: index %zu is a %s tensor (only long "
                                 "and int index tensors are supported)",
                                 op, k, sc_dtype_code(ix[k]->dtype));
        if (nidx == 0) {
            nb = ix[k]->ndim;
            memcpy(bsz, ix[k]->sizes, nb * sizeof *bsz);
        } else {
            SC_TRY(sc__broadcast_shape(nb, bsz, ix[k]->ndim, ix[k]->sizes,
                                       &nb, bsz, c->err));
        }
        indexed[k] = true;
        which[k] = nidx++;
        if (first == SIZE_MAX)
            first = k;
        else if (last + 1 != k)
            adjacent = false;
        last = k;
    }
    if (nidx == 0)
        return sc__error_set(c->err, SC_ERR_UNSUPPORTED,
                             "%s: every index is None", op);
    for (k = 0; k < x->ndim; k++)
        if (adjacent || indexed[k])
            order[q++] = k;
    if (!adjacent)
        for (k = 0; k < x->ndim; k++)
            if (!indexed[k])
                order[q++] = k;
    while (!indexed[order[nbefore]])
        nbefore++;
    nafter = x->ndim - nbefore - nidx;
    m->ndim = nbefore + nb + nafter;
    if (m->ndim > SC_TENSOR_MAX_DIMS)
        return sc__error_set(c->err, SC_ERR_SHAPE, "%s: %zu result dims", op,
                             m->ndim);
    for (q = 0; q < nbefore; q++)
        m->sizes[q] = x->sizes[order[q]];
    memcpy(m->sizes + nbefore, bsz, nb * sizeof *bsz);
    for (q = 0; q < nafter; q++)
        m->sizes[nbefore + nb + q] = x->sizes[order[nbefore + nidx + q]];
    SC_TRY(sc__numel_checked(m->ndim, m->sizes, &m->n, c->err));
    SC_TRY(sc__numel_checked(nb, bsz, &bn, c->err));
    for (k = x->ndim, i = 1; k-- > 0;) {
        xst[k] = (int64_t)i;
        i *= (size_t)x->sizes[k];
    }
    for (k = 0; k < nix; k++)
        if (ix[k])
            SC_CHECK(sc__gather(ix[k], nb, bsz, SC__CT_I64,
                                (void **)&buf[which[k]], c->err));
    m->offset = sc__calloc(m->n + 1, sizeof *m->offset);
    if (!m->offset) {
        status = sc__error_nomem(c->err);
        goto fail;
    }
    for (i = 0; i < m->n; i++) {
        size_t rem = i, pos[SC_TENSOR_MAX_DIMS], bflat = 0, bmul = 1, off = 0;
        for (k = m->ndim; k-- > 0;) {
            pos[k] = rem % (size_t)m->sizes[k];
            rem /= (size_t)m->sizes[k];
        }
        for (k = nb; k-- > 0;) {
            bflat += pos[nbefore + k] * bmul;
            bmul *= (size_t)bsz[k];
        }
        for (q = 0; q < x->ndim; q++) {
            size_t d = order[q];
            int64_t at;
            if (q < nbefore)
                at = (int64_t)pos[q];
            else if (q < nbefore + nidx) {
                int64_t len = x->sizes[d];
                at = buf[which[d]][bflat];
                if (at < -len || at >= len) {
                    status = sc__error_set(c->err, SC_ERR_INVALID,
                                           "%s: index %lld is out of bounds "
                                           "for dimension %zu with size %lld",
                                           op, (long long)at, d,
                                           (long long)len);
                    goto fail;
                }
                if (at < 0)
                    at += len;
            } else
                at = (int64_t)pos[q - nidx + nb];
            off += (size_t)at * (size_t)xst[d];
        }
        m->offset[i] = off;
    }
fail:
    for (k = 0; k < nidx; k++)
        sc__free(buf[k]);
    if (status != SC_OK) {
        sc__free(m->offset);
        m->offset = NULL;
    }
    return status;
}

/* index.Tensor(Tensor self, Tensor?[] indices) */
sc_status sc__kernel_index_tensor(sc__kernel_call *call)
{
    const sc_tensor *x;
    const sc_tensor *const *ix;
    size_t nix, i, es;
    adv_map m;
    sc__ctype ct;
    char *bx = NULL, *bo = NULL;
    sc_status status;

    SC_TRY(sc__arg_tensor(call, SC_KARG_INDEX_TENSOR_SELF, &x));
    SC_TRY(sc__arg_tensors(call, SC_KARG_INDEX_TENSOR_INDICES, &nix, &ix));
    SC_TRY(adv_map_build(call, "index", x, nix, ix, &m));
    ct = sc__ctype_of(x->dtype);
    es = sc__ctype_size(ct);
    SC_CHECK(sc__gather(x, x->ndim, x->sizes, ct, (void **)&bx, call->err));
    bo = sc__calloc(m.n + 1, es);
    if (!bo) {
        status = sc__error_nomem(call->err);
        goto fail;
    }
    for (i = 0; i < m.n; i++)
        memcpy(bo + i * es, bx + m.offset[i] * es, es);
    status = result_of(call, x->dtype, m.ndim, m.sizes, ct, bo);
fail:
    sc__free(m.offset);
    sc__free(bx);
    sc__free(bo);
    return status;
}

/* index_put(Tensor self, Tensor?[] indices, Tensor values, bool
 * accumulate=False): a copy of self with values (broadcast to
 * self[indices]) written, or added in result order, at the indexed
 * elements. */
sc_status sc__kernel_index_put(sc__kernel_call *call)
{
    const sc_tensor *x, *vals;
    const sc_tensor *const *ix;
    size_t nix, i, es;
    bool acc;
    adv_map m;
    sc__ctype ct;
    char *bo = NULL, *bv = NULL;
    sc_status status;

    SC_TRY(sc__arg_tensor(call, SC_KARG_INDEX_PUT_SELF, &x));
    SC_TRY(sc__arg_tensors(call, SC_KARG_INDEX_PUT_INDICES, &nix, &ix));
    SC_TRY(sc__arg_tensor(call, SC_KARG_INDEX_PUT_VALUES, &vals));
    SC_TRY(sc__arg_bool(call, SC_KARG_INDEX_PUT_ACCUMULATE, &acc));
    if (vals->dtype != x->dtype)
        return sc__error_set(call->err, SC_ERR_TYPE,
                             "index_put: values (%s) and self (%s) differ in "
                             "dtype", sc_dtype_code(vals->dtype),
                             sc_dtype_code(x->dtype));
    SC_TRY(adv_map_build(call, "index_put", x, nix, ix, &m));
    ct = sc__ctype_of(x->dtype);
    es = sc__ctype_size(ct);
    SC_CHECK(sc__gather(x, x->ndim, x->sizes, ct, (void **)&bo, call->err));
    SC_CHECK(sc__gather(vals, m.ndim, m.sizes, ct, (void **)&bv, call->err));
    for (i = 0; i < m.n; i++) {
        if (acc)
            add_into(bo, m.offset[i], bv, i, ct, x->dtype, 1);
        else
            memcpy(bo + m.offset[i] * es, bv + i * es, es);
    }
    status = result_of(call, x->dtype, x->ndim, x->sizes, ct, bo);
fail:
    sc__free(m.offset);
    sc__free(bo);
    sc__free(bv);
    return status;
}
