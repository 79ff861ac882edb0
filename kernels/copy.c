/* symcut — kernels: copies (clone, _to_copy) and joins (cat, stack). */
#include "kernels/kernels-internal.h"

/* Does t's layout cover exactly numel elements without overlap (some
 * permutation of a contiguous layout)?  Then its strides can be kept. */
static bool dense_permuted(const sc_tensor *t)
{
    size_t order[SC_TENSOR_MAX_DIMS], i, j;
    int64_t expected = 1;
    for (i = 0; i < t->ndim; i++)
        order[i] = i;
    for (i = 1; i < t->ndim; i++)       /* insertion sort, stride ascending */
        for (j = i; j > 0 && t->strides[order[j]] < t->strides[order[j - 1]];
             j--) {
            size_t x = order[j];
            order[j] = order[j - 1];
            order[j - 1] = x;
        }
    for (i = 0; i < t->ndim; i++) {
        int64_t s = t->sizes[order[i]];
        if (s == 1)
            continue;
        if (t->strides[order[i]] != expected)
            return false;
        expected *= s;
    }
    return true;
}

/* A copy of x converted to dtype; `preserve`: keep x's strides when they
 * are a permutation of a dense layout (PyTorch's preserve_format). */
static sc_status copy_to(sc__kernel_call *c, const sc_tensor *x,
                         sc_dtype dtype, bool preserve)
{
    sc_tensor *r = NULL;
    sc_status status;
    if (preserve && !sc_tensor_is_contiguous(x) && dense_permuted(x) &&
        sc_tensor_numel(x) > 0) {
        SC_CHECK(sc_tensor_new_strided(dtype, x->ndim, x->sizes, x->strides,
                                       &r, c->err));
        SC_CHECK(sc_tensor_copy(r, x, c->err));
    } else {
        SC_CHECK(sc_tensor_to_dtype(x, dtype, &r, c->err));
    }
    return sc__out(c, r);
fail:
    sc_tensor_free(r);
    return status;
}

/* clone(Tensor self, *, MemoryFormat? memory_format=None) */
sc_status sc__kernel_clone(sc__kernel_call *call)
{
    const sc_tensor *x;
    bool preserve = true;
    SC_TRY(sc__arg_tensor(call, SC_KARG_CLONE_SELF, &x));
    if (!sc__arg_is_none(call, SC_KARG_CLONE_MEMORY_FORMAT) &&
        call->args[SC_KARG_CLONE_MEMORY_FORMAT].kind == SC__KARG_STR &&
        strcmp(call->args[SC_KARG_CLONE_MEMORY_FORMAT].u.s,
               "contiguous_format") == 0)
        preserve = false;
    return copy_to(call, x, x->dtype, preserve);
}

/* _to_copy(Tensor self, *, ScalarType? dtype=None, ...): only dtype is
 * read; layout, device and the rest are ignored (CPU only). */
sc_status sc__kernel_to_copy(sc__kernel_call *call)
{
    const sc_tensor *x;
    sc_dtype d;
    SC_TRY(sc__arg_tensor(call, SC_KARG_TO_COPY_SELF, &x));
    d = x->dtype;
    if (!sc__arg_is_none(call, SC_KARG_TO_COPY_DTYPE)) {
        if (call->args[SC_KARG_TO_COPY_DTYPE].kind != SC__KARG_DTYPE)
            return sc__error_set(call->err, SC_ERR_TYPE,
                                 "_to_copy: argument 1 must be a dtype");
        d = call->args[SC_KARG_TO_COPY_DTYPE].u.dtype;
    }
    return copy_to(call, x, d, true);
}

/* prims.convert_element_type(Tensor a, ScalarType dtype): a preserve-
 * format copy (round to nearest even into a narrower float type). */
sc_status sc__kernel_convert_element_type(sc__kernel_call *call)
{
    const sc_tensor *x;
    SC_TRY(sc__arg_tensor(call, SC_KARG_CONVERT_ELEMENT_TYPE_A, &x));
    if (call->args[SC_KARG_CONVERT_ELEMENT_TYPE_DTYPE].kind != SC__KARG_DTYPE)
        return sc__error_set(call->err, SC_ERR_TYPE,
                             "convert_element_type: argument 1 must be a "
                             "dtype");
    return copy_to(call, x, call->args[SC_KARG_CONVERT_ELEMENT_TYPE_DTYPE].u.dtype,
                   true);
}

/* ---- cat and stack ---------------------------------------------------------- */

/* cat or stack of the list argument `tensors` along the int argument
 * `dim`. */
static sc_status concat(sc__kernel_call *c, bool stack, size_t tensors,
                        size_t dim_arg)
{
    const sc_tensor *const *ts;
    const sc_tensor *ref = NULL;
    sc_tensor *r = NULL, *part = NULL;
    int64_t sizes[SC_TENSOR_MAX_DIMS], dim = 0, pos = 0;
    size_t n, i, j, d, nd;
    sc_dtype rd = SC_DTYPE_B8;
    sc_status status;

    SC_CHECK(sc__arg_tensors(c, tensors, &n, &ts));
    if (!sc__arg_is_none(c, dim_arg))
        SC_CHECK(sc__arg_int(c, dim_arg, &dim));
    if (n == 0)
        return sc__error_set(c->err, SC_ERR_INVALID,
                             "%s of an empty list", stack ? "stack" : "cat");
    for (i = 0; i < n; i++) {
        if (!ts[i])
            return sc__error_set(c->err, SC_ERR_TYPE,
                                 "%s: element %zu is None",
                                 stack ? "stack" : "cat", i);
        if (!sc_dtype_promote(i ? rd : ts[i]->dtype, ts[i]->dtype, &rd))
            return sc__error_set(c->err, SC_ERR_UNSUPPORTED,
                                 "unsupported dtype");
        /* cat skips legacy empty 1-d tensors */
        if (!ref && (stack || !(ts[i]->ndim == 1 && ts[i]->sizes[0] == 0)))
            ref = ts[i];
    }
    if (!ref)
        ref = ts[0];
    nd = ref->ndim + (stack ? 1 : 0);
    if (nd == 0)
        return sc__error_set(c->err, SC_ERR_SHAPE,
                             "cat: zero-dimensional tensors cannot be "
                             "concatenated");
    SC_CHECK(sc__wrap_dim(dim, nd, &d, c->err));
    for (j = 0, i = 0; i < nd; i++)
        sizes[i] = stack && i == d ? (int64_t)n : ref->sizes[j++];
    if (!stack)
        sizes[d] = 0;
    for (i = 0; i < n; i++) {
        const sc_tensor *t = ts[i];
        if (!stack && t->ndim == 1 && t->sizes[0] == 0 && t != ref)
            continue;
        if (t->ndim != ref->ndim)
            return sc__error_set(c->err, SC_ERR_SHAPE,
                                 "%s: tensor %zu has %zu dims, expected %zu",
                                 stack ? "stack" : "cat", i, t->ndim,
                                 ref->ndim);
        for (j = 0; j < t->ndim; j++)
            if ((stack || j != d) && t->sizes[j] != ref->sizes[j])
                return sc__error_set(c->err, SC_ERR_SHAPE,
                                     "%s: tensor %zu has size %lld in "
                                     "dimension %zu, expected %lld",
                                     stack ? "stack" : "cat", i,
                                     (long long)t->sizes[j], j,
                                     (long long)ref->sizes[j]);
        if (!stack)
            sizes[d] += t->sizes[d];
    }
    SC_CHECK(sc__new(rd, nd, sizes, &r, c->err));
    for (i = 0; i < n; i++) {
        const sc_tensor *t = ts[i];
        if (stack) {
            SC_CHECK(sc_tensor_select(r, (int64_t)d, (int64_t)i, &part,
                                      c->err));
        } else {
            if (t->ndim == 1 && t->sizes[0] == 0 && t != ref)
                continue;
            SC_CHECK(sc_tensor_slice(r, (int64_t)d, pos, pos + t->sizes[d], 1,
                                     &part, c->err));
            pos += t->sizes[d];
        }
        SC_CHECK(sc_tensor_copy(part, t, c->err));
        sc_tensor_free(part);
        part = NULL;
    }
    return sc__out(c, r);
fail:
    sc_tensor_free(part);
    sc_tensor_free(r);
    return status;
}

/* cat(Tensor[] tensors, int dim=0) */
sc_status sc__kernel_cat(sc__kernel_call *call)
{
    return concat(call, false, SC_KARG_CAT_TENSORS, SC_KARG_CAT_DIM);
}

/* stack(Tensor[] tensors, int dim=0) */
sc_status sc__kernel_stack(sc__kernel_call *call)
{
    return concat(call, true, SC_KARG_STACK_TENSORS, SC_KARG_STACK_DIM);
}

/* lift_fresh_copy(Tensor self): a copy of self (preserve format). */
sc_status sc__kernel_lift_fresh_copy(sc__kernel_call *call)
{
    const sc_tensor *x;
    SC_TRY(sc__arg_tensor(call, SC_KARG_LIFT_FRESH_COPY_SELF, &x));
    return copy_to(call, x, x->dtype, true);
}

/* src broadcast to self's sizes, in self's dtype: a new tensor. */
static sc_status copy_src(sc__kernel_call *c, const sc_tensor *self,
                          const sc_tensor *src)
{
    sc_tensor *r = NULL;
    sc_status status;
    SC_CHECK(sc_tensor_new(self->dtype, self->ndim, self->sizes, &r, c->err));
    SC_CHECK(sc_tensor_copy(r, src, c->err));
    return sc__out(c, r);
fail:
    sc_tensor_free(r);
    return status;
}

/* copy(Tensor self, Tensor src, bool non_blocking=False): the values of
 * src (broadcast) in a tensor like self. */
sc_status sc__kernel_copy(sc__kernel_call *call)
{
    const sc_tensor *self, *src;
    SC_TRY(sc__arg_tensor(call, SC_KARG_COPY_SELF, &self));
    SC_TRY(sc__arg_tensor(call, SC_KARG_COPY_SRC, &src));
    return copy_src(call, self, src);
}

/* copy_(Tensor(a!) self, Tensor src, bool non_blocking=False): the
 * functional result; the interpreter writes it into self (mutates). */
sc_status sc__kernel_copy_inplace(sc__kernel_call *call)
{
    const sc_tensor *self, *src;
    SC_TRY(sc__arg_tensor(call, SC_KARG_COPY_INPLACE_SELF, &self));
    SC_TRY(sc__arg_tensor(call, SC_KARG_COPY_INPLACE_SRC, &src));
    return copy_src(call, self, src);
}
