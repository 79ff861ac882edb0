/* symcut — kernels: views and reshapes (t, transpose, permute, view,
 * reshape, expand, select, slice, unsqueeze, squeeze, as_strided, alias,
 * split, split_with_sizes, unbind) and the backward ops of select, slice
 * and as_strided (select_backward, slice_backward, as_strided_backward;
 * doc/autodiff.md). */
#include "kernels/kernels-internal.h"

/* Store *t as the result when status is SC_OK (t is read after the call
 * that produced it has run). */
static sc_status out_or(sc__kernel_call *c, sc_status status, sc_tensor **t)
{
    SC_TRY(status);
    return sc__out(c, *t);
}

/* t(Tensor self): transpose of a 2-d tensor; 0-d and 1-d unchanged. */
sc_status sc__kernel_t(sc__kernel_call *call)
{
    const sc_tensor *x;
    sc_tensor *r = NULL;
    SC_TRY(sc__arg_tensor(call, SC_KARG_T_SELF, &x));
    if (x->ndim > 2)
        return sc__error_set(call->err, SC_ERR_SHAPE,
                             "t() expects a tensor with <= 2 dimensions");
    if (x->ndim < 2)
        return out_or(call, sc_tensor_alias(x, &r, call->err), &r);
    return out_or(call, sc_tensor_transpose(x, 0, 1, &r, call->err), &r);
}

/* transpose.int(Tensor self, int dim0, int dim1) */
sc_status sc__kernel_transpose(sc__kernel_call *call)
{
    const sc_tensor *x;
    int64_t a, b;
    sc_tensor *r = NULL;
    SC_TRY(sc__arg_tensor(call, SC_KARG_TRANSPOSE_SELF, &x));
    SC_TRY(sc__arg_int(call, SC_KARG_TRANSPOSE_DIM0, &a));
    SC_TRY(sc__arg_int(call, SC_KARG_TRANSPOSE_DIM1, &b));
    return out_or(call, sc_tensor_transpose(x, a, b, &r, call->err), &r);
}

/* permute(Tensor self, int[] dims) */
sc_status sc__kernel_permute(sc__kernel_call *call)
{
    const sc_tensor *x;
    const int64_t *dims;
    size_t n;
    sc_tensor *r = NULL;
    SC_TRY(sc__arg_tensor(call, SC_KARG_PERMUTE_SELF, &x));
    SC_TRY(sc__arg_ints(call, SC_KARG_PERMUTE_DIMS, &n, &dims));
    if (n != x->ndim)
        return sc__error_set(call->err, SC_ERR_SHAPE,
                             "permute: %zu dims for a %zu-d tensor", n,
                             x->ndim);
    return out_or(call, sc_tensor_permute(x, dims, &r, call->err), &r);
}

/* prims.transpose(Tensor(a) a, int[] permutation): permute. */
sc_status sc__kernel_prims_transpose(sc__kernel_call *call)
{
    const sc_tensor *x;
    const int64_t *dims;
    size_t n;
    sc_tensor *r = NULL;
    SC_TRY(sc__arg_tensor(call, SC_KARG_PRIMS_TRANSPOSE_A, &x));
    SC_TRY(sc__arg_ints(call, SC_KARG_PRIMS_TRANSPOSE_PERMUTATION, &n, &dims));
    if (n != x->ndim)
        return sc__error_set(call->err, SC_ERR_SHAPE,
                             "transpose: %zu dims for a %zu-d tensor", n,
                             x->ndim);
    return out_or(call, sc_tensor_permute(x, dims, &r, call->err), &r);
}

/* view(Tensor self, SymInt[] size); also _unsafe_view. */
sc_status sc__kernel_view(sc__kernel_call *call)
{
    const sc_tensor *x;
    const int64_t *sizes;
    size_t n;
    sc_tensor *r = NULL;
    SC_TRY(sc__arg_tensor(call, SC_KARG_VIEW_SELF, &x));
    SC_TRY(sc__arg_ints(call, SC_KARG_VIEW_SIZE, &n, &sizes));
    return out_or(call, sc_tensor_view(x, n, sizes, &r, call->err), &r);
}

/* reshape(Tensor self, SymInt[] shape) */
sc_status sc__kernel_reshape(sc__kernel_call *call)
{
    const sc_tensor *x;
    const int64_t *sizes;
    size_t n;
    sc_tensor *r = NULL;
    SC_TRY(sc__arg_tensor(call, SC_KARG_RESHAPE_SELF, &x));
    SC_TRY(sc__arg_ints(call, SC_KARG_RESHAPE_SHAPE, &n, &sizes));
    return out_or(call, sc_tensor_reshape(x, n, sizes, &r, call->err), &r);
}

/* as_strided(Tensor self, SymInt[] size, SymInt[] stride, SymInt?
 * storage_offset=None) */
sc_status sc__kernel_as_strided(sc__kernel_call *call)
{
    const sc_tensor *x;
    const int64_t *sizes, *strides;
    size_t n, m;
    int64_t off;
    sc_tensor *r = NULL;
    SC_TRY(sc__arg_tensor(call, SC_KARG_AS_STRIDED_SELF, &x));
    SC_TRY(sc__arg_ints(call, SC_KARG_AS_STRIDED_SIZE, &n, &sizes));
    SC_TRY(sc__arg_ints(call, SC_KARG_AS_STRIDED_STRIDE, &m, &strides));
    off = x->offset;
    if (!sc__arg_is_none(call, SC_KARG_AS_STRIDED_STORAGE_OFFSET))
        SC_TRY(sc__arg_int(call, SC_KARG_AS_STRIDED_STORAGE_OFFSET, &off));
    if (n != m)
        return sc__error_set(call->err, SC_ERR_SHAPE,
                             "as_strided: %zu sizes but %zu strides", n, m);
    return out_or(call,
                  sc_tensor_view_as_strided(x, n, sizes, strides, off, &r,
                                            call->err),
                  &r);
}

/* _reshape_alias(Tensor self, SymInt[] size, SymInt[] stride): as_strided
 * at self's offset. */
sc_status sc__kernel_reshape_alias(sc__kernel_call *call)
{
    return sc__kernel_as_strided(call);
}

/* expand(Tensor self, SymInt[] size, *, bool implicit=False) */
sc_status sc__kernel_expand(sc__kernel_call *call)
{
    const sc_tensor *x;
    const int64_t *sizes;
    size_t n;
    sc_tensor *r = NULL;
    SC_TRY(sc__arg_tensor(call, SC_KARG_EXPAND_SELF, &x));
    SC_TRY(sc__arg_ints(call, SC_KARG_EXPAND_SIZE, &n, &sizes));
    return out_or(call, sc_tensor_expand(x, n, sizes, &r, call->err), &r);
}

/* select.int(Tensor self, int dim, SymInt index) */
sc_status sc__kernel_select(sc__kernel_call *call)
{
    const sc_tensor *x;
    int64_t d, i;
    sc_tensor *r = NULL;
    SC_TRY(sc__arg_tensor(call, SC_KARG_SELECT_SELF, &x));
    SC_TRY(sc__arg_int(call, SC_KARG_SELECT_DIM, &d));
    SC_TRY(sc__arg_int(call, SC_KARG_SELECT_INDEX, &i));
    return out_or(call, sc_tensor_select(x, d, i, &r, call->err), &r);
}

/* slice.Tensor(Tensor self, int dim=0, SymInt? start=None, SymInt?
 * end=None, SymInt step=1) */
sc_status sc__kernel_slice(sc__kernel_call *call)
{
    const sc_tensor *x;
    int64_t d = 0, start = 0, end = INT64_MAX, step = 1;
    sc_tensor *r = NULL;
    SC_TRY(sc__arg_tensor(call, SC_KARG_SLICE_SELF, &x));
    if (!sc__arg_is_none(call, SC_KARG_SLICE_DIM))
        SC_TRY(sc__arg_int(call, SC_KARG_SLICE_DIM, &d));
    if (!sc__arg_is_none(call, SC_KARG_SLICE_START))
        SC_TRY(sc__arg_int(call, SC_KARG_SLICE_START, &start));
    if (!sc__arg_is_none(call, SC_KARG_SLICE_END))
        SC_TRY(sc__arg_int(call, SC_KARG_SLICE_END, &end));
    if (!sc__arg_is_none(call, SC_KARG_SLICE_STEP))
        SC_TRY(sc__arg_int(call, SC_KARG_SLICE_STEP, &step));
    return out_or(call,
                  sc_tensor_slice(x, d, start, end, step, &r, call->err), &r);
}

/* unsqueeze(Tensor self, int dim) */
sc_status sc__kernel_unsqueeze(sc__kernel_call *call)
{
    const sc_tensor *x;
    int64_t d;
    sc_tensor *r = NULL;
    SC_TRY(sc__arg_tensor(call, SC_KARG_UNSQUEEZE_SELF, &x));
    SC_TRY(sc__arg_int(call, SC_KARG_UNSQUEEZE_DIM, &d));
    return out_or(call, sc_tensor_unsqueeze(x, d, &r, call->err), &r);
}

/* squeeze(Tensor self) / squeeze.dim(Tensor self, int dim) /
 * squeeze.dims(Tensor self, int[] dim) */
sc_status sc__kernel_squeeze(sc__kernel_call *call)
{
    const sc_tensor *x;
    const int64_t *dims;
    bool drop[SC_TENSOR_MAX_DIMS] = {false};
    int64_t sizes[SC_TENSOR_MAX_DIMS], strides[SC_TENSOR_MAX_DIMS];
    size_t n, i, d, k = 0;
    sc_tensor *r = NULL;

    SC_TRY(sc__arg_tensor(call, SC_KARG_SQUEEZE_SELF, &x));
    if (sc__arg_is_none(call, SC_KARG_SQUEEZE_DIM))
        return out_or(call, sc_tensor_squeeze(x, &r, call->err), &r);
    SC_TRY(sc__arg_ints(call, SC_KARG_SQUEEZE_DIM, &n, &dims));
    for (i = 0; i < n; i++) {
        SC_TRY(sc__wrap_dim(dims[i], x->ndim, &d, call->err));
        if (x->ndim && x->sizes[d] == 1)
            drop[d] = true;
    }
    for (i = 0; i < x->ndim; i++)
        if (!drop[i]) {
            sizes[k] = x->sizes[i];
            strides[k++] = x->strides[i];
        }
    return out_or(call,
                  sc_tensor_view_as_strided(x, k, sizes, strides, x->offset,
                                            &r, call->err),
                  &r);
}

/* alias(Tensor self) / detach(Tensor self): the same view. */
sc_status sc__kernel_alias(sc__kernel_call *call)
{
    const sc_tensor *x;
    sc_tensor *r = NULL;
    SC_TRY(sc__arg_tensor(call, SC_KARG_ALIAS_SELF, &x));
    return out_or(call, sc_tensor_alias(x, &r, call->err), &r);
}

/* ---- split and unbind: lists of views --------------------------------------- */

/* Store n views of x along d, of the given lengths (which sum to the size
 * of d), as outputs. */
static sc_status split_views(sc__kernel_call *c, const sc_tensor *x,
                             size_t d, size_t n, const int64_t *lens)
{
    sc_tensor *part = NULL;
    int64_t pos = 0;
    size_t i;
    sc_status status;
    if (n > c->max_outs)
        return sc__error_set(c->err, SC_ERR_INVALID,
                             "split into %zu pieces, more than the %zu "
                             "outputs the caller provides", n, c->max_outs);
    for (i = 0; i < n; i++) {
        SC_CHECK(sc_tensor_slice(x, (int64_t)d, pos, pos + lens[i], 1, &part,
                                 c->err));
        pos += lens[i];
        SC_CHECK(sc__out(c, part));
        part = NULL;
    }
    return SC_OK;
fail:
    sc__out_reset(c);
    return status;
}

/* split.Tensor / unsafe_split.Tensor(Tensor self, SymInt split_size, int
 * dim=0): ceil(size / split_size) views (at least one), the last one
 * possibly shorter. */
sc_status sc__kernel_split(sc__kernel_call *call)
{
    const sc_tensor *x;
    int64_t split = 0, dim = 0, size, *lens = NULL;
    size_t d, n, i;
    sc_status status;

    SC_TRY(sc__arg_tensor(call, SC_KARG_SPLIT_SELF, &x));
    SC_TRY(sc__arg_int(call, SC_KARG_SPLIT_SPLIT_SIZE, &split));
    if (!sc__arg_is_none(call, SC_KARG_SPLIT_DIM))
        SC_TRY(sc__arg_int(call, SC_KARG_SPLIT_DIM, &dim));
    if (x->ndim == 0)
        return sc__error_set(call->err, SC_ERR_SHAPE,
                             "split: a 0-d tensor cannot be split");
    SC_TRY(sc__wrap_dim(dim, x->ndim, &d, call->err));
    size = x->sizes[d];
    if (split < 0 || (split == 0 && size != 0))
        return sc__error_set(call->err, SC_ERR_INVALID,
                             "split: split_size %lld cannot split a "
                             "dimension of size %lld",
                             (long long)split, (long long)size);
    n = split == 0 ? 1 : (size_t)((size + split - 1) / split);
    if (n == 0)
        n = 1;
    lens = sc__malloc(n * sizeof *lens);
    if (!lens)
        return sc__error_nomem(call->err);
    for (i = 0; i < n; i++) {
        int64_t start = (int64_t)i * split;
        lens[i] = size - start < split ? size - start : split;
    }
    status = split_views(call, x, d, n, lens);
    sc__free(lens);
    return status;
}

/* split_with_sizes(Tensor self, SymInt[] split_sizes, int dim=0) */
sc_status sc__kernel_split_with_sizes(sc__kernel_call *call)
{
    const sc_tensor *x;
    const int64_t *lens;
    int64_t dim = 0, total = 0;
    size_t d, n, i;

    SC_TRY(sc__arg_tensor(call, SC_KARG_SPLIT_WITH_SIZES_SELF, &x));
    SC_TRY(sc__arg_ints(call, SC_KARG_SPLIT_WITH_SIZES_SPLIT_SIZES, &n,
                        &lens));
    if (!sc__arg_is_none(call, SC_KARG_SPLIT_WITH_SIZES_DIM))
        SC_TRY(sc__arg_int(call, SC_KARG_SPLIT_WITH_SIZES_DIM, &dim));
    if (x->ndim == 0)
        return sc__error_set(call->err, SC_ERR_SHAPE,
                             "split_with_sizes: a 0-d tensor cannot be split");
    SC_TRY(sc__wrap_dim(dim, x->ndim, &d, call->err));
    for (i = 0; i < n; i++) {
        if (lens[i] < 0)
            return sc__error_set(call->err, SC_ERR_INVALID,
                                 "split_with_sizes: negative size %lld",
                                 (long long)lens[i]);
        total += lens[i];
    }
    if (total != x->sizes[d])
        return sc__error_set(call->err, SC_ERR_SHAPE,
                             "split_with_sizes: sizes sum to %lld, but "
                             "dimension %zu has size %lld",
                             (long long)total, d, (long long)x->sizes[d]);
    return split_views(call, x, d, n, lens);
}

/* unbind.int(Tensor self, int dim=0): one select per index. */
sc_status sc__kernel_unbind(sc__kernel_call *call)
{
    const sc_tensor *x;
    int64_t dim = 0, i;
    size_t d;
    sc_tensor *part = NULL;
    sc_status status;

    SC_TRY(sc__arg_tensor(call, SC_KARG_UNBIND_SELF, &x));
    if (!sc__arg_is_none(call, SC_KARG_UNBIND_DIM))
        SC_TRY(sc__arg_int(call, SC_KARG_UNBIND_DIM, &dim));
    if (x->ndim == 0)
        return sc__error_set(call->err, SC_ERR_SHAPE,
                             "unbind: a 0-d tensor cannot be unbound");
    SC_TRY(sc__wrap_dim(dim, x->ndim, &d, call->err));
    if ((uint64_t)x->sizes[d] > call->max_outs)
        return sc__error_set(call->err, SC_ERR_INVALID,
                             "unbind into %lld tensors, more than the %zu "
                             "outputs the caller provides",
                             (long long)x->sizes[d], call->max_outs);
    for (i = 0; i < x->sizes[d]; i++) {
        SC_CHECK(sc_tensor_select(x, (int64_t)d, i, &part, call->err));
        SC_CHECK(sc__out(call, part));
        part = NULL;
    }
    return SC_OK;
fail:
    sc__out_reset(call);
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
    SC_CHECK(sc_tensor_fill(*out, 0.0, call->err));
    return SC_OK;
fail:
    sc_tensor_free(*out);
    *out = NULL;
    return status;
}

/* Copy grad into the view of r and store r as the result. */
static sc_status fill_view(sc__kernel_call *call, sc_tensor *r,
                           sc_tensor *view, const sc_tensor *grad)
{
    sc_status status;
    SC_CHECK(sc_tensor_copy(view, grad, call->err));
    sc_tensor_free(view);
    return sc__out(call, r);
fail:
    sc_tensor_free(view);
    sc_tensor_free(r);
    return status;
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
    SC_CHECK(sc_tensor_select(r, dim, index, &view, call->err));
    return fill_view(call, r, view, g);
fail:
    sc_tensor_free(r);
    return status;
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
    SC_CHECK(sc_tensor_slice(r, dim, start, end, step, &view, call->err));
    return fill_view(call, r, view, g);
fail:
    sc_tensor_free(r);
    return status;
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
    SC_CHECK(sc_tensor_to_dtype(tmp, g->dtype, &r, call->err));
    sc_tensor_free(tmp);
    return sc__out(call, r);
fail:
    sc__free(acc);
    sc__free(cnt);
    sc_tensor_free(tmp);
    return status;
}

/* movedim.int(Tensor(a) self, int source, int destination): a permuted
 * view. */
sc_status sc__kernel_movedim(sc__kernel_call *call)
{
    const sc_tensor *x;
    int64_t src, dst, dims[SC_TENSOR_MAX_DIMS];
    size_t s, t, i, k;
    sc_tensor *r = NULL;

    SC_TRY(sc__arg_tensor(call, SC_KARG_MOVEDIM_SELF, &x));
    SC_TRY(sc__arg_int(call, SC_KARG_MOVEDIM_SOURCE, &src));
    SC_TRY(sc__arg_int(call, SC_KARG_MOVEDIM_DESTINATION, &dst));
    if (x->ndim == 0)
        return out_or(call, sc_tensor_alias(x, &r, call->err), &r);
    SC_TRY(sc__wrap_dim(src, x->ndim, &s, call->err));
    SC_TRY(sc__wrap_dim(dst, x->ndim, &t, call->err));
    for (i = 0, k = 0; i < x->ndim; i++) {
        if (i == t) {
            dims[i] = (int64_t)s;
        } else {
            if (k == s)
                k++;
            dims[i] = (int64_t)k++;
        }
    }
    return out_or(call, sc_tensor_permute(x, dims, &r, call->err), &r);
}

/* diagonal(Tensor(a) self, int offset=0, int dim1=0, int dim2=1): a view
 * of the other dims and the diagonal (stride stride1 + stride2). */
sc_status sc__kernel_diagonal(sc__kernel_call *call)
{
    const sc_tensor *x;
    int64_t off, a1, a2, sizes[SC_TENSOR_MAX_DIMS], strides[SC_TENSOR_MAX_DIMS];
    int64_t len, offset;
    size_t d1, d2, i, n = 0;
    sc_tensor *r = NULL;

    SC_TRY(sc__arg_tensor(call, SC_KARG_DIAGONAL_SELF, &x));
    SC_TRY(sc__arg_int(call, SC_KARG_DIAGONAL_OFFSET, &off));
    SC_TRY(sc__arg_int(call, SC_KARG_DIAGONAL_DIM1, &a1));
    SC_TRY(sc__arg_int(call, SC_KARG_DIAGONAL_DIM2, &a2));
    if (x->ndim < 2)
        return sc__error_set(call->err, SC_ERR_SHAPE,
                             "diagonal: needs at least 2 dims");
    SC_TRY(sc__wrap_dim(a1, x->ndim, &d1, call->err));
    SC_TRY(sc__wrap_dim(a2, x->ndim, &d2, call->err));
    if (d1 == d2)
        return sc__error_set(call->err, SC_ERR_SHAPE,
                             "diagonal dimensions cannot be identical");
    if (off >= 0) {
        len = x->sizes[d2] - off < x->sizes[d1] ? x->sizes[d2] - off
                                                : x->sizes[d1];
        offset = off * x->strides[d2];
    } else {
        len = x->sizes[d1] + off < x->sizes[d2] ? x->sizes[d1] + off
                                                : x->sizes[d2];
        offset = -off * x->strides[d1];
    }
    if (len <= 0) {
        len = 0;
        offset = 0;
    }
    for (i = 0; i < x->ndim; i++)
        if (i != d1 && i != d2) {
            sizes[n] = x->sizes[i];
            strides[n++] = x->strides[i];
        }
    sizes[n] = len;
    strides[n++] = x->strides[d1] + x->strides[d2];
    return out_or(call,
                  sc_tensor_view_as_strided(x, n, sizes, strides,
                                            x->offset + offset, &r,
                                            call->err),
                  &r);
}

/* A contiguous copy of self with src written into the view v_of(copy). */
static sc_status scatter_into_copy(sc__kernel_call *c, const sc_tensor *self,
                                   const sc_tensor *src, int kind, int64_t d,
                                   int64_t a, int64_t b, int64_t step)
{
    sc_tensor *r = NULL, *v = NULL;
    sc_status status;
    SC_CHECK(sc_tensor_clone(self, &r, c->err));
    if (kind == 0)
        SC_CHECK(sc_tensor_slice(r, d, a, b, step, &v, c->err));
    else
        SC_CHECK(sc_tensor_select(r, d, a, &v, c->err));
    if (v->ndim != src->ndim ||
        memcmp(v->sizes, src->sizes, v->ndim * sizeof *v->sizes) != 0) {
        status = sc__error_set(c->err, SC_ERR_SHAPE,
                               "%s_scatter: src's shape does not match the "
                               "%s", kind == 0 ? "slice" : "select",
                               kind == 0 ? "slice" : "selection");
        goto fail;
    }
    SC_CHECK(sc_tensor_copy(v, src, c->err));
    sc_tensor_free(v);
    return sc__out(c, r);
fail:
    sc_tensor_free(v);
    sc_tensor_free(r);
    return status;
}

/* slice_scatter(Tensor self, Tensor src, int dim=0, SymInt? start=None,
 * SymInt? end=None, SymInt step=1): self with self[start:end:step] (along
 * dim) replaced by src. */
sc_status sc__kernel_slice_scatter(sc__kernel_call *call)
{
    const sc_tensor *x, *src;
    int64_t d = 0, start = 0, end = INT64_MAX, step = 1;
    SC_TRY(sc__arg_tensor(call, SC_KARG_SLICE_SCATTER_SELF, &x));
    SC_TRY(sc__arg_tensor(call, SC_KARG_SLICE_SCATTER_SRC, &src));
    if (!sc__arg_is_none(call, SC_KARG_SLICE_SCATTER_DIM))
        SC_TRY(sc__arg_int(call, SC_KARG_SLICE_SCATTER_DIM, &d));
    if (!sc__arg_is_none(call, SC_KARG_SLICE_SCATTER_START))
        SC_TRY(sc__arg_int(call, SC_KARG_SLICE_SCATTER_START, &start));
    if (!sc__arg_is_none(call, SC_KARG_SLICE_SCATTER_END))
        SC_TRY(sc__arg_int(call, SC_KARG_SLICE_SCATTER_END, &end));
    if (!sc__arg_is_none(call, SC_KARG_SLICE_SCATTER_STEP))
        SC_TRY(sc__arg_int(call, SC_KARG_SLICE_SCATTER_STEP, &step));
    return scatter_into_copy(call, x, src, 0, d, start, end, step);
}

/* select_scatter(Tensor self, Tensor src, int dim, SymInt index): self
 * with self.select(dim, index) replaced by src. */
sc_status sc__kernel_select_scatter(sc__kernel_call *call)
{
    const sc_tensor *x, *src;
    int64_t d, index;
    SC_TRY(sc__arg_tensor(call, SC_KARG_SELECT_SCATTER_SELF, &x));
    SC_TRY(sc__arg_tensor(call, SC_KARG_SELECT_SCATTER_SRC, &src));
    SC_TRY(sc__arg_int(call, SC_KARG_SELECT_SCATTER_DIM, &d));
    SC_TRY(sc__arg_int(call, SC_KARG_SELECT_SCATTER_INDEX, &index));
    return scatter_into_copy(call, x, src, 1, d, index, 0, 1);
}

/* constant_pad_nd(Tensor self, SymInt[] pad, Scalar value=0): pad pairs
 * (before, after) from the last dim; negative pads cut. */
sc_status sc__kernel_constant_pad_nd(sc__kernel_call *call)
{
    const sc_tensor *x;
    const int64_t *pad;
    size_t n, i;
    double value = 0;
    int64_t sizes[SC_TENSOR_MAX_DIMS];
    sc_tensor *r = NULL, *dst = NULL, *src = NULL, *tmp = NULL;
    sc_status status;

    SC_TRY(sc__arg_tensor(call, SC_KARG_CONSTANT_PAD_ND_SELF, &x));
    SC_TRY(sc__arg_ints(call, SC_KARG_CONSTANT_PAD_ND_PAD, &n, &pad));
    if (!sc__arg_is_none(call, SC_KARG_CONSTANT_PAD_ND_VALUE))
        SC_TRY(sc__arg_double(call, SC_KARG_CONSTANT_PAD_ND_VALUE, &value));
    if (n % 2 || n / 2 > x->ndim)
        return sc__error_set(call->err, SC_ERR_SHAPE,
                             "constant_pad_nd: %zu pads for a %zu-d tensor",
                             n, x->ndim);
    memcpy(sizes, x->sizes, x->ndim * sizeof *sizes);
    for (i = 0; i < n / 2; i++) {
        size_t k = x->ndim - 1 - i;
        sizes[k] += pad[2 * i] + pad[2 * i + 1];
        if (sizes[k] < 0)
            return sc__error_set(call->err, SC_ERR_SHAPE,
                                 "constant_pad_nd: dim %zu would have size "
                                 "%lld", k, (long long)sizes[k]);
    }
    SC_CHECK(sc_tensor_new(x->dtype, x->ndim, sizes, &r, call->err));
    SC_CHECK(sc_tensor_fill(r, value, call->err));
    SC_CHECK(sc_tensor_alias(r, &dst, call->err));
    SC_CHECK(sc_tensor_alias(x, &src, call->err));
    for (i = 0; i < n / 2; i++) {
        int64_t k = (int64_t)(x->ndim - 1 - i), lo = pad[2 * i],
                hi = pad[2 * i + 1];
        /* the part of the output that holds input, and of the input kept */
        SC_CHECK(sc_tensor_slice(dst, k, lo > 0 ? lo : 0,
                                 sizes[k] - (hi > 0 ? hi : 0), 1, &tmp,
                                 call->err));
        sc_tensor_free(dst);
        dst = tmp;
        tmp = NULL;
        SC_CHECK(sc_tensor_slice(src, k, lo < 0 ? -lo : 0,
                                 x->sizes[k] - (hi < 0 ? -hi : 0), 1, &tmp,
                                 call->err));
        sc_tensor_free(src);
        src = tmp;
        tmp = NULL;
    }
    if (sc_tensor_numel(dst) > 0)
        SC_CHECK(sc_tensor_copy(dst, src, call->err));
    sc_tensor_free(dst);
    sc_tensor_free(src);
    return sc__out(call, r);
fail:
    sc_tensor_free(tmp);
    sc_tensor_free(dst);
    sc_tensor_free(src);
    sc_tensor_free(r);
    return status;
}
