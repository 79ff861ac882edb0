/* symcut — kernels: indexing and selection of PyTorch 2.x graphs (gather,
 * masked_select, max.dim) and linear, computed through float64 (int64
 * values beyond 2^53 lose precision, as in max_pool2d). */
#include <math.h>
#include <string.h>

#include "kernels/kernels-internal.h"

/* A row-major float64 copy of t. */
static sc_status f64_of(sc__kernel_call *c, const sc_tensor *t, double **out)
{
    return sc__gather(t, t->ndim, t->sizes, SC__CT_F64, (void **)out, c->err);
}

static sc_status out_f64(sc__kernel_call *c, sc_dtype d, size_t ndim,
                         const int64_t *sizes, const double *buf)
{
    sc_tensor *r = NULL;
    SC_TRY(sc__new(d, ndim, sizes, &r, c->err));
    sc__scatter(r, SC__CT_F64, buf);
    return sc__out(c, r);
}

/* linear(Tensor input, Tensor weight, Tensor? bias=None): input @ weight^T
 * + bias over the last dim. */
sc_status sc__kernel_linear(sc__kernel_call *call)
{
    const sc_tensor *x, *w, *b;
    double *bx = NULL, *bw = NULL, *bb = NULL, *o = NULL, *wt = NULL;
    int64_t sizes[SC_TENSOR_MAX_DIMS], in, out, rows, r, j, k;
    sc_status status;

    SC_TRY(sc__arg_tensor(call, SC_KARG_LINEAR_INPUT, &x));
    SC_TRY(sc__arg_tensor(call, SC_KARG_LINEAR_WEIGHT, &w));
    SC_TRY(sc__arg_opt_tensor(call, SC_KARG_LINEAR_BIAS, &b));
    if (x->ndim < 1 || w->ndim != 2 || x->sizes[x->ndim - 1] != w->sizes[1])
        return sc__error_set(call->err, SC_ERR_SHAPE,
                             "linear: input [..., in] and weight [out, in] "
                             "do not fit");
    in = w->sizes[1];
    out = w->sizes[0];
    if (b && (b->ndim > 1 || (b->ndim == 1 && b->sizes[0] != out &&
                              b->sizes[0] != 1)))
        return sc__error_set(call->err, SC_ERR_SHAPE,
                             "linear: bias must have out_features elements");
    rows = in ? (int64_t)(sc_tensor_numel(x) / (size_t)in) : 0;
    SC_CHECK(f64_of(call, x, &bx));
    SC_CHECK(f64_of(call, w, &bw));
    if (b)
        SC_CHECK(f64_of(call, b, &bb));
    o = sc__calloc((size_t)(rows * out) + 1, sizeof *o);
    wt = sc__calloc((size_t)(in * out) + 1, sizeof *wt);
    if (!o || !wt) {
        status = sc__error_nomem(call->err);
        goto fail;
    }
    /* each element: the bias, then the products added in increasing k
       (sc__matmul's order), through the packed gemm on weight^T */
    for (k = 0; k < in; k++)
        for (j = 0; j < out; j++)
            wt[k * out + j] = bw[j * in + k];
    if (bb)
        for (r = 0; r < rows; r++)
            for (j = 0; j < out; j++)
                o[r * out + j] =
                    bb[b->ndim == 1 && b->sizes[0] == out ? j : 0];
    sc__matmul(SC__CT_F64, (size_t)rows, (size_t)in, (size_t)out, bx, wt,
               o);
    memcpy(sizes, x->sizes, x->ndim * sizeof *sizes);
    sizes[x->ndim - 1] = out;
    status = out_f64(call, x->dtype, x->ndim, sizes, o);
fail:
    sc__free(bx);
    sc__free(bw);
    sc__free(bb);
    sc__free(o);
    sc__free(wt);
    return status;
}

/* gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False):
 * out[i][j][k] = self[i][index[i][j][k]][k] (dim 1), index's sizes. */
sc_status sc__kernel_gather(sc__kernel_call *call)
{
    const sc_tensor *x, *ix;
    int64_t dim, pos[SC_TENSOR_MAX_DIMS];
    size_t d, n, i, k;
    sc_tensor *r = NULL;
    sc_status status;

    SC_TRY(sc__arg_tensor(call, SC_KARG_GATHER_SELF, &x));
    SC_TRY(sc__arg_int(call, SC_KARG_GATHER_DIM, &dim));
    SC_TRY(sc__arg_tensor(call, SC_KARG_GATHER_INDEX, &ix));
    if (ix->dtype != SC_DTYPE_I64)
        return sc__error_set(call->err, SC_ERR_TYPE,
                             "gather(): Expected dtype int64 for index");
    if (ix->ndim != x->ndim)
        return sc__error_set(call->err, SC_ERR_SHAPE,
                             "gather: index has %zu dims, self %zu",
                             ix->ndim, x->ndim);
    SC_TRY(sc__wrap_dim(dim, x->ndim ? x->ndim : 1, &d, call->err));
    for (k = 0; k < ix->ndim; k++)
        if (k != d && ix->sizes[k] > x->sizes[k])
            return sc__error_set(call->err, SC_ERR_SHAPE,
                                 "gather: index size %lld exceeds self's %lld "
                                 "at dim %zu", (long long)ix->sizes[k],
                                 (long long)x->sizes[k], k);
    SC_CHECK(sc_tensor_new(x->dtype, ix->ndim, ix->sizes, &r, call->err));
    n = sc_tensor_numel(ix);
    for (i = 0; i < n; i++) {
        size_t rem = i;
        int64_t at, src[SC_TENSOR_MAX_DIMS];
        double v;
        for (k = ix->ndim; k-- > 0;) {
            pos[k] = (int64_t)(rem % (size_t)ix->sizes[k]);
            rem /= (size_t)ix->sizes[k];
        }
        SC_CHECK(sc_tensor_get_int64(ix, pos, &at, call->err));
        if (x->ndim && (at < -x->sizes[d] || at >= x->sizes[d])) {
            status = sc__error_set(call->err, SC_ERR_INVALID,
                                   "gather: index %lld is out of bounds for "
                                   "size %lld", (long long)at,
                                   (long long)x->sizes[d]);
            goto fail;
        }
        memcpy(src, pos, ix->ndim * sizeof *src);
        if (x->ndim)
            src[d] = at < 0 ? at + x->sizes[d] : at;
        SC_CHECK(sc_tensor_get_double(x, src, &v, call->err));
        SC_CHECK(sc_tensor_set_double(r, pos, v, call->err));
    }
    return sc__out(call, r);
fail:
    sc_tensor_free(r);
    return status;
}

/* max.dim(Tensor self, int dim, bool keepdim=False) -> (values, indices):
 * the largest value along dim and its first index (NaN wins, as in
 * PyTorch). */
sc_status sc__kernel_max_dim(sc__kernel_call *call)
{
    const sc_tensor *x;
    int64_t dim, sizes[SC_TENSOR_MAX_DIMS], outer = 1, inner = 1, len, o, i, j;
    bool keepdim;
    size_t d, k, n = 0;
    double *bx = NULL, *val = NULL, *idx = NULL;
    sc_tensor *outs[2] = {NULL, NULL};
    sc_status status;

    SC_TRY(sc__arg_tensor(call, SC_KARG_MAX_DIM_SELF, &x));
    SC_TRY(sc__arg_int(call, SC_KARG_MAX_DIM_DIM, &dim));
    SC_TRY(sc__arg_bool(call, SC_KARG_MAX_DIM_KEEPDIM, &keepdim));
    SC_TRY(sc__wrap_dim(dim, x->ndim ? x->ndim : 1, &d, call->err));
    len = x->ndim ? x->sizes[d] : 1;
    if (len == 0)
        return sc__error_set(call->err, SC_ERR_INVALID,
                             "max(): Expected reduction dim %zu to have "
                             "non-zero size", d);
    for (k = 0; k < x->ndim; k++) {
        if (k < d)
            outer *= x->sizes[k];
        else if (k > d)
            inner *= x->sizes[k];
        if (k != d)
            sizes[n++] = x->sizes[k];
        else if (keepdim)
            sizes[n++] = 1;
    }
    SC_CHECK(f64_of(call, x, &bx));
    val = sc__calloc((size_t)(outer * inner) + 1, sizeof *val);
    idx = sc__calloc((size_t)(outer * inner) + 1, sizeof *idx);
    if (!val || !idx) {
        status = sc__error_nomem(call->err);
        goto fail;
    }
    for (o = 0; o < outer; o++)
        for (j = 0; j < inner; j++) {
            double best = bx[o * len * inner + j];
            int64_t at = 0;
            for (i = 1; i < len && best == best; i++) {
                double v = bx[(o * len + i) * inner + j];
                if (v > best || v != v) {
                    best = v;
                    at = i;
                }
            }
            val[o * inner + j] = best;
            idx[o * inner + j] = (double)at;
        }
    SC_CHECK(sc__new(x->dtype, n, sizes, &outs[0], call->err));
    SC_CHECK(sc__new(SC_DTYPE_I64, n, sizes, &outs[1], call->err));
    sc__scatter(outs[0], SC__CT_F64, val);
    sc__scatter(outs[1], SC__CT_F64, idx);
    status = sc__out_n(call, 2, outs);
fail:
    sc_tensor_free(outs[0]);
    sc_tensor_free(outs[1]);
    sc__free(bx);
    sc__free(val);
    sc__free(idx);
    return status;
}

/* masked_select(Tensor self, Tensor mask): the elements of self (broadcast
 * with mask) where mask is true, in row-major order, 1-d. */
sc_status sc__kernel_masked_select(sc__kernel_call *call)
{
    const sc_tensor *x, *m;
    int64_t sizes[SC_TENSOR_MAX_DIMS], cnt = 0;
    size_t ndim, n, i;
    double *bx = NULL, *bm = NULL, *o = NULL;
    sc_status status;

    SC_TRY(sc__arg_tensor(call, SC_KARG_MASKED_SELECT_SELF, &x));
    SC_TRY(sc__arg_tensor(call, SC_KARG_MASKED_SELECT_MASK, &m));
    if (m->dtype != SC_DTYPE_B8)
        return sc__error_set(call->err, SC_ERR_TYPE,
                             "masked_select: expected BoolTensor for mask");
    SC_TRY(sc__broadcast_shape(x->ndim, x->sizes, m->ndim, m->sizes, &ndim,
                               sizes, call->err));
    SC_TRY(sc__numel_checked(ndim, sizes, &n, call->err));
    SC_CHECK(sc__gather(x, ndim, sizes, SC__CT_F64, (void **)&bx, call->err));
    SC_CHECK(sc__gather(m, ndim, sizes, SC__CT_F64, (void **)&bm, call->err));
    o = sc__calloc(n + 1, sizeof *o);
    if (!o) {
        status = sc__error_nomem(call->err);
        goto fail;
    }
    for (i = 0; i < n; i++)
        if (bm[i] != 0)
            o[cnt++] = bx[i];
    status = out_f64(call, x->dtype, 1, &cnt, o);
fail:
    sc__free(bx);
    sc__free(bm);
    sc__free(o);
    return status;
}

/* baddbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1,
 * Scalar alpha=1): beta * self + alpha * batch1 @ batch2 (self broadcast;
 * beta 0 ignores self, NaN included, as PyTorch). */
sc_status sc__kernel_baddbmm(sc__kernel_call *call)
{
    const sc_tensor *s, *x, *y;
    double beta = 1, alpha = 1, *bs = NULL, *bx = NULL, *by = NULL,
           *o = NULL;
    int64_t sizes[3], B, N, M, P, b, i;
    size_t nd;
    sc_status status;

    SC_TRY(sc__arg_tensor(call, SC_KARG_BADDBMM_SELF, &s));
    SC_TRY(sc__arg_tensor(call, SC_KARG_BADDBMM_BATCH1, &x));
    SC_TRY(sc__arg_tensor(call, SC_KARG_BADDBMM_BATCH2, &y));
    SC_TRY(sc__arg_double(call, SC_KARG_BADDBMM_BETA, &beta));
    SC_TRY(sc__arg_double(call, SC_KARG_BADDBMM_ALPHA, &alpha));
    if (x->ndim != 3 || y->ndim != 3 || x->sizes[0] != y->sizes[0] ||
        x->sizes[2] != y->sizes[1])
        return sc__error_set(call->err, SC_ERR_SHAPE,
                             "baddbmm: batch1 [b, n, m] and batch2 [b, m, p] "
                             "do not fit");
    B = x->sizes[0];
    N = x->sizes[1];
    M = x->sizes[2];
    P = y->sizes[2];
    sizes[0] = B;
    sizes[1] = N;
    sizes[2] = P;
    {
        int64_t bsz[SC_TENSOR_MAX_DIMS];
        SC_TRY(sc__broadcast_shape(s->ndim, s->sizes, 3, sizes, &nd, bsz,
                                   call->err));
        if (nd != 3 || bsz[0] != B || bsz[1] != N || bsz[2] != P)
            return sc__error_set(call->err, SC_ERR_SHAPE,
                                 "baddbmm: self does not broadcast to the "
                                 "product");
    }
    SC_CHECK(sc__gather(s, 3, sizes, SC__CT_F64, (void **)&bs, call->err));
    SC_CHECK(f64_of(call, x, &bx));
    SC_CHECK(f64_of(call, y, &by));
    o = sc__calloc((size_t)(B * N * P) + 1, sizeof *o);
    if (!o) {
        status = sc__error_nomem(call->err);
        goto fail;
    }
    /* the products through sc__matmul (from 0, in increasing k), then
       alpha and beta */
    for (b = 0; b < B; b++)
        sc__matmul(SC__CT_F64, (size_t)N, (size_t)M, (size_t)P,
                   bx + b * N * M, by + b * M * P, o + b * N * P);
    for (i = 0; i < B * N * P; i++)
        o[i] = alpha * o[i] + (beta == 0 ? 0 : beta * bs[i]);
    status = out_f64(call, x->dtype, 3, sizes, o);
fail:
    sc__free(bs);
    sc__free(bx);
    sc__free(by);
    sc__free(o);
    return status;
}

/* diagonal_backward(Tensor grad_output, SymInt[] input_sizes, int offset,
 * int dim1, int dim2): zeros of input_sizes with grad_output written on
 * the diagonal that diagonal(offset, dim1, dim2) reads (exact). */
sc_status sc__kernel_diagonal_backward(sc__kernel_call *call)
{
    const sc_tensor *go;
    const int64_t *isz;
    size_t n, d1, d2, i, k, numel;
    int64_t off, a1, a2, len, pos[SC_TENSOR_MAX_DIMS],
        src[SC_TENSOR_MAX_DIMS];
    sc_tensor *r = NULL;
    sc_status status;

    SC_TRY(sc__arg_tensor(call, SC_KARG_DIAGONAL_BACKWARD_GRAD_OUTPUT, &go));
    SC_TRY(sc__arg_ints(call, SC_KARG_DIAGONAL_BACKWARD_INPUT_SIZES, &n,
                        &isz));
    SC_TRY(sc__arg_int(call, SC_KARG_DIAGONAL_BACKWARD_OFFSET, &off));
    SC_TRY(sc__arg_int(call, SC_KARG_DIAGONAL_BACKWARD_DIM1, &a1));
    SC_TRY(sc__arg_int(call, SC_KARG_DIAGONAL_BACKWARD_DIM2, &a2));
    if (n < 2 || n > SC_TENSOR_MAX_DIMS)
        return sc__error_set(call->err, SC_ERR_SHAPE,
                             "diagonal_backward: input_sizes has %zu dims", n);
    SC_TRY(sc__wrap_dim(a1, n, &d1, call->err));
    SC_TRY(sc__wrap_dim(a2, n, &d2, call->err));
    if (d1 == d2)
        return sc__error_set(call->err, SC_ERR_SHAPE,
                             "diagonal dimensions cannot be identical");
    for (i = 0; i < n; i++)
        if (isz[i] < 0)
            return sc__error_set(call->err, SC_ERR_SHAPE,
                                 "diagonal_backward: negative size");
    len = off >= 0 ? isz[d2] - off : isz[d1] + off;
    if (len > (off >= 0 ? isz[d1] : isz[d2]))
        len = off >= 0 ? isz[d1] : isz[d2];
    if (len < 0)
        len = 0;
    if (go->ndim != n - 1 || go->sizes[n - 2] != len)
        return sc__error_set(call->err, SC_ERR_SHAPE,
                             "diagonal_backward: grad_output is not the "
                             "diagonal's shape");
    for (i = 0, k = 0; i < n; i++)
        if (i != d1 && i != d2 && go->sizes[k++] != isz[i])
            return sc__error_set(call->err, SC_ERR_SHAPE,
                                 "diagonal_backward: grad_output and "
                                 "input_sizes differ at dim %zu", i);
    SC_TRY(sc_tensor_new(go->dtype, n, isz, &r, call->err));
    numel = sc_tensor_numel(go);
    for (i = 0; i < numel; i++) {
        size_t rem = i, q;
        double v;
        for (q = go->ndim; q-- > 0;) {
            pos[q] = (int64_t)(rem % (size_t)go->sizes[q]);
            rem /= (size_t)go->sizes[q];
        }
        for (q = 0, k = 0; q < n; q++)
            if (q != d1 && q != d2)
                src[q] = pos[k++];
        src[d1] = pos[n - 2] + (off < 0 ? -off : 0);
        src[d2] = pos[n - 2] + (off > 0 ? off : 0);
        SC_CHECK(sc_tensor_get_double(go, pos, &v, call->err));
        SC_CHECK(sc_tensor_set_double(r, src, v, call->err));
    }
    return sc__out(call, r);
fail:
    sc_tensor_free(r);
    return status;
}
