/* symcut — kernels of the ops that exist for autodiff: sgn (abs's
 * derivative), select_backward, slice_backward, as_strided_backward
 * (doc/autodiff.md). */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "graph/ops.h"
#include "kernels/kernels-internal.h"

/* sgn(Tensor self): -1, 0 or 1 per element (NaN stays NaN). */
sc_status sc__kernel_sgn(sc__kernel_call *call)
{
    const sc_tensor *x;
    sc_tensor *tmp = NULL, *r = NULL;
    sc_status status;
    size_t i, n;
    double *d;
    SC_CHECK(sc__arg_tensor(call, SC_KARG_SGN_SELF, &x));
    if (sc_dtype_kind(x->dtype) == 'c' || sc_dtype_kind(x->dtype) == 'b')
        return sc__error_set(call->err, SC_ERR_UNSUPPORTED,
                             "sgn of a %s tensor", sc_dtype_code(x->dtype));
    SC_CHECK(sc_tensor_new(SC_DTYPE_F64, x->ndim, x->sizes, &tmp, call->err));
    n = sc_tensor_numel(x);
    d = sc_tensor_data(tmp);
    for (i = 0; i < n; i++) {
        double v = sc_tensor_item_double(x, i);
        d[i] = v > 0 ? 1.0 : v < 0 ? -1.0 : v; /* 0, -0 and NaN as is */
    }
    status = sc_tensor_to_dtype(tmp, x->dtype, &r, call->err);
    sc_tensor_free(tmp);
    if (status != SC_OK)
        return status;
    return sc__out(call, r);
fail:
    sc_tensor_free(tmp);
    return status;
}

/* A zero tensor of the int-list argument input_sizes in grad's dtype. */
static sc_status zeros_of(sc__kernel_call *call, size_t input_sizes,
                          const sc_tensor *grad, sc_tensor **out)
{
    size_t n;
    const int64_t *sizes;
    sc_status status;
    SC_TRY(sc__arg_ints(call, input_sizes, &n, &sizes));
    if (n > SC_TENSOR_MAX_DIMS)
        return sc__error_set(call->err, SC_ERR_LIMIT, "%zu dims", n);
    SC_TRY(sc_tensor_new(grad->dtype, n, sizes, out, call->err));
    status = sc_tensor_fill(*out, 0.0, call->err);
    if (status != SC_OK) {
        sc_tensor_free(*out);
        *out = NULL;
    }
    return status;
}

/* Copy grad into the view of r and store r as the result. */
static sc_status fill_view(sc__kernel_call *call, sc_tensor *r,
                           sc_tensor *view, const sc_tensor *grad)
{
    sc_status status = sc_tensor_copy(view, grad, call->err);
    sc_tensor_free(view);
    if (status != SC_OK) {
        sc_tensor_free(r);
        return status;
    }
    return sc__out(call, r);
}

/* select_backward(Tensor grad_output, SymInt[] input_sizes, int dim,
 * SymInt index): zeros with grad_output at index along dim. */
sc_status sc__kernel_select_backward(sc__kernel_call *call)
{
    const sc_tensor *g;
    sc_tensor *r = NULL, *view = NULL;
    int64_t dim, index;
    sc_status status;
    SC_TRY(sc__arg_tensor(call, SC_KARG_SELECT_BACKWARD_GRAD_OUTPUT, &g));
    SC_TRY(sc__arg_int(call, SC_KARG_SELECT_BACKWARD_DIM, &dim));
    SC_TRY(sc__arg_int(call, SC_KARG_SELECT_BACKWARD_INDEX, &index));
    SC_TRY(zeros_of(call, SC_KARG_SELECT_BACKWARD_INPUT_SIZES, g, &r));
    status = sc_tensor_select(r, dim, index, &view, call->err);
    if (status != SC_OK) {
        sc_tensor_free(r);
        return status;
    }
    return fill_view(call, r, view, g);
}

/* slice_backward(Tensor grad_output, SymInt[] input_sizes, int dim,
 * SymInt start, SymInt end, SymInt step): zeros with grad_output in the
 * slice. */
sc_status sc__kernel_slice_backward(sc__kernel_call *call)
{
    const sc_tensor *g;
    sc_tensor *r = NULL, *view = NULL;
    int64_t dim, start, end, step;
    sc_status status;
    SC_TRY(sc__arg_tensor(call, SC_KARG_SLICE_BACKWARD_GRAD_OUTPUT, &g));
    SC_TRY(sc__arg_int(call, SC_KARG_SLICE_BACKWARD_DIM, &dim));
    SC_TRY(sc__arg_int(call, SC_KARG_SLICE_BACKWARD_START, &start));
    SC_TRY(sc__arg_int(call, SC_KARG_SLICE_BACKWARD_END, &end));
    SC_TRY(sc__arg_int(call, SC_KARG_SLICE_BACKWARD_STEP, &step));
    SC_TRY(zeros_of(call, SC_KARG_SLICE_BACKWARD_INPUT_SIZES, g, &r));
    status = sc_tensor_slice(r, dim, start, end, step, &view, call->err);
    if (status != SC_OK) {
        sc_tensor_free(r);
        return status;
    }
    return fill_view(call, r, view, g);
}

/* Walk the multi-index idx over sizes (row-major); false after the last. */
static bool next_index(size_t n, const int64_t *sizes, int64_t *idx)
{
    size_t d;
    for (d = n; d-- > 0;) {
        if (++idx[d] < sizes[d])
            return true;
        idx[d] = 0;
    }
    return false;
}

/* The storage range [lo, hi) that n sizes and strides at offset cover,
 * widened to include it; false for an empty geometry or negative strides.
 * *overflow is set when a bound exceeds int64_t. */
static bool extent(size_t n, const int64_t *sizes, const int64_t *strides,
                   int64_t offset, int64_t *lo, int64_t *hi, bool *overflow)
{
    int64_t last = offset;
    size_t d;
    for (d = 0; d < n; d++)
        if (sizes[d] == 0)
            return false;
    for (d = 0; d < n; d++) {
        int64_t step;
        if (strides[d] < 0 || sizes[d] < 0) {
            *overflow = true;
            return false;
        }
        if (__builtin_mul_overflow(sizes[d] - 1, strides[d], &step) ||
            __builtin_add_overflow(last, step, &last)) {
            *overflow = true;
            return false;
        }
    }
    if (offset < *lo)
        *lo = offset;
    if (last + 1 > *hi)
        *hi = last + 1;
    return true;
}

/* as_strided_backward(Tensor grad_output, SymInt[] input_sizes,
 * SymInt[] input_strides, SymInt[] size, SymInt[] stride,
 * SymInt storage_offset): the gradient of as_strided(self, size, stride,
 * offset) with respect to self, for self of geometry (input_sizes,
 * input_strides) at storage position 0 and the view at storage_offset
 * (relative to self; may be negative).  Like PyTorch's as_strided_backward:
 * grad_output is scatter-added into a zero storage through the view (view
 * elements sharing a storage element accumulate), then read through self's
 * geometry; a storage element that several elements of self share (self
 * overlaps itself, e.g. an expand) has its gradient divided evenly among
 * them, and storage the input does not cover gets dropped.  Accumulated in
 * f64; the result is contiguous, in grad_output's dtype. */
sc_status sc__kernel_as_strided_backward(sc__kernel_call *call)
{
    const sc_tensor *g;
    const int64_t *in_sizes, *in_strides, *sizes, *strides;
    size_t nin, nins, n, ns, k, total;
    int64_t off, lo = 0, hi = 0, span, idx[SC_TENSOR_MAX_DIMS];
    bool overflow = false, have_out;
    double *acc = NULL, *cnt = NULL, *d;
    sc_tensor *tmp = NULL, *r = NULL;
    sc_status status;

    SC_CHECK(sc__arg_tensor(call, SC_KARG_AS_STRIDED_BACKWARD_GRAD_OUTPUT,
                            &g));
    SC_CHECK(sc__arg_ints(call, SC_KARG_AS_STRIDED_BACKWARD_INPUT_SIZES, &nin,
                          &in_sizes));
    SC_CHECK(sc__arg_ints(call, SC_KARG_AS_STRIDED_BACKWARD_INPUT_STRIDES,
                          &nins, &in_strides));
    SC_CHECK(sc__arg_ints(call, SC_KARG_AS_STRIDED_BACKWARD_SIZE, &n, &sizes));
    SC_CHECK(sc__arg_ints(call, SC_KARG_AS_STRIDED_BACKWARD_STRIDE, &ns,
                          &strides));
    SC_CHECK(sc__arg_int(call, SC_KARG_AS_STRIDED_BACKWARD_STORAGE_OFFSET,
                         &off));
    if (nin != nins || n != ns || nin > SC_TENSOR_MAX_DIMS ||
        n > SC_TENSOR_MAX_DIMS)
        return sc__error_set(call->err, SC_ERR_SHAPE,
                             "as_strided_backward: %zu input sizes and %zu "
                             "strides, %zu view sizes and %zu strides",
                             nin, nins, n, ns);
    if (g->ndim != n)
        return sc__error_set(call->err, SC_ERR_SHAPE,
                             "as_strided_backward: a %zu-dim gradient for a "
                             "%zu-dim view", g->ndim, n);
    for (k = 0; k < n; k++)
        if (g->sizes[k] != sizes[k])
            return sc__error_set(call->err, SC_ERR_SHAPE,
                                 "as_strided_backward: gradient size %lld "
                                 "at dim %zu, the view's is %lld",
                                 (long long)g->sizes[k], k,
                                 (long long)sizes[k]);
    for (k = 0; k < nin + n; k++) {
        int64_t st = k < nin ? in_strides[k] : strides[k - nin];
        if (st < 0)
            return sc__error_set(call->err, SC_ERR_INVALID,
                                 "as_strided_backward: negative %s stride "
                                 "%lld", k < nin ? "input" : "view",
                                 (long long)st);
    }
    SC_CHECK(sc_tensor_new(SC_DTYPE_F64, nin, in_sizes, &tmp, call->err));
    d = sc_tensor_data(tmp);
    lo = INT64_MAX;
    hi = INT64_MIN;
    have_out = extent(n, sizes, strides, off, &lo, &hi, &overflow);
    if (!extent(nin, in_sizes, in_strides, 0, &lo, &hi, &overflow)) {
        if (!overflow)
            goto done; /* an empty input: nothing to fill */
    }
    if (overflow || __builtin_sub_overflow(hi, lo, &span) ||
        span > ((int64_t)1 << 32)) {
        status = sc__error_set(call->err, SC_ERR_LIMIT,
                               "as_strided_backward: the view and the input "
                               "span more than 2^32 storage elements");
        goto fail;
    }
    total = (size_t)span;
    acc = sc__calloc(total ? total : 1, sizeof *acc);
    cnt = sc__calloc(total ? total : 1, sizeof *cnt);
    if (!acc || !cnt) {
        status = sc__error_nomem(call->err);
        goto fail;
    }
    /* scatter-add the gradient through the view */
    if (have_out) {
        size_t i = 0;
        memset(idx, 0, sizeof idx);
        do {
            int64_t p = off - lo;
            for (k = 0; k < n; k++)
                p += idx[k] * strides[k];
            acc[p] += sc_tensor_item_double(g, i++);
        } while (next_index(n, sizes, idx));
    }
    /* count the elements of the input per storage element, then read */
    memset(idx, 0, sizeof idx);
    do {
        int64_t p = -lo;
        for (k = 0; k < nin; k++)
            p += idx[k] * in_strides[k];
        cnt[p] += 1;
    } while (next_index(nin, in_sizes, idx));
    memset(idx, 0, sizeof idx);
    k = 0;
    do {
        int64_t p = -lo;
        size_t e;
        for (e = 0; e < nin; e++)
            p += idx[e] * in_strides[e];
        d[k++] = acc[p] / cnt[p];
    } while (next_index(nin, in_sizes, idx));
done:
    sc__free(acc);
    sc__free(cnt);
    acc = cnt = NULL;
    status = sc_tensor_to_dtype(tmp, g->dtype, &r, call->err);
    sc_tensor_free(tmp);
    if (status != SC_OK)
        return status;
    return sc__out(call, r);
fail:
    sc__free(acc);
    sc__free(cnt);
    sc_tensor_free(tmp);
    return status;
}
