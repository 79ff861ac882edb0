/* symcut — kernels: comparisons, selection and masking (eq, ne, lt, le,
 * gt, ge, where, masked_fill, nonzero). */
#include "kernels/pointwise.h"

SC__PW_CMP_KERNEL(eq, EQ, B_EQ)
SC__PW_CMP_KERNEL(ne, NE, B_NE)
SC__PW_CMP_KERNEL(lt, LT, B_LT)
SC__PW_CMP_KERNEL(le, LE, B_LE)
SC__PW_CMP_KERNEL(gt, GT, B_GT)
SC__PW_CMP_KERNEL(ge, GE, B_GE)

/* where(Tensor condition, Tensor|Scalar self, Tensor|Scalar other) */
sc_status sc__kernel_where(sc__kernel_call *call)
{
    int64_t sizes[SC_TENSOR_MAX_DIMS];
    sc__pw_operand o[3];
    size_t ndim, n, k, es;
    sc_dtype rd;
    sc__ctype ct;
    void *bc = NULL, *ba = NULL, *bb = NULL;
    sc_tensor *r = NULL;
    sc_status status;

    SC_CHECK(sc__pw_get_operand(call, SC_KARG_WHERE_CONDITION, &o[0]));
    SC_CHECK(sc__pw_get_operand(call, SC_KARG_WHERE_SELF, &o[1]));
    SC_CHECK(sc__pw_get_operand(call, SC_KARG_WHERE_OTHER, &o[2]));
    if (!o[0].t)
        return sc__error_set(call->err, SC_ERR_TYPE,
                             "where: the condition must be a tensor");
    SC_CHECK(sc__pw_result_dtype(2, &o[1], &rd, call->err));
    ct = sc__ctype_of(rd);
    es = sc__ctype_size(ct);
    SC_CHECK(sc__pw_operands_shape(3, o, &ndim, sizes, call->err));
    SC_CHECK(sc__pw_operand_gather(&o[0], ndim, sizes, SC__CT_I64, &bc,
                                   call->err));
    SC_CHECK(sc__pw_operand_gather(&o[1], ndim, sizes, ct, &ba, call->err));
    SC_CHECK(sc__pw_operand_gather(&o[2], ndim, sizes, ct, &bb, call->err));
    SC_CHECK(sc__numel_checked(ndim, sizes, &n, call->err));
    for (k = 0; k < n; k++)
        if (!((int64_t *)bc)[k])
            memcpy((char *)ba + k * es, (char *)bb + k * es, es);
    SC_CHECK(sc__new(rd, ndim, sizes, &r, call->err));
    sc__scatter(r, ct, ba);
    sc__free(bc);
    sc__free(ba);
    sc__free(bb);
    return sc__out(call, r);
fail:
    sc__free(bc);
    sc__free(ba);
    sc__free(bb);
    sc_tensor_free(r);
    return status;
}

/* masked_fill(Tensor self, Tensor mask, Scalar|Tensor value): self's
 * dtype and shape (the mask broadcasts to self). */
sc_status sc__kernel_masked_fill(sc__kernel_call *call)
{
    const sc_tensor *self, *mask;
    sc__pw_operand v;
    sc__ctype ct;
    void *bs = NULL, *bm = NULL;
    sc_tensor *r = NULL;
    size_t n, k;
    sc_status status;

    SC_CHECK(sc__arg_tensor(call, SC_KARG_MASKED_FILL_SELF, &self));
    SC_CHECK(sc__arg_tensor(call, SC_KARG_MASKED_FILL_MASK, &mask));
    SC_CHECK(sc__pw_get_operand(call, SC_KARG_MASKED_FILL_VALUE, &v));
    if (mask->dtype != SC_DTYPE_B8)
        return sc__error_set(call->err, SC_ERR_TYPE,
                             "masked_fill: the mask must be bool");
    if (v.t) {
        if (v.t->ndim != 0)
            return sc__error_set(call->err, SC_ERR_SHAPE,
                                 "masked_fill: the value tensor must be 0-d");
        v.f = sc_tensor_item_double(v.t, 0);
        v.i = sc_tensor_item_int64(v.t, 0);
    }
    ct = sc__ctype_of(self->dtype);
    SC_CHECK(sc__gather(self, self->ndim, self->sizes, ct, &bs, call->err));
    SC_CHECK(sc__gather(mask, self->ndim, self->sizes, SC__CT_I64, &bm,
                        call->err));
    n = sc_tensor_numel(self);
    for (k = 0; k < n; k++) {
        if (!((int64_t *)bm)[k])
            continue;
        if (ct == SC__CT_F32)
            ((float *)bs)[k] = (float)v.f;
        else if (ct == SC__CT_F64)
            ((double *)bs)[k] = v.f;
        else
            ((int64_t *)bs)[k] = v.i;
    }
    SC_CHECK(sc__new(self->dtype, self->ndim, self->sizes, &r, call->err));
    sc__scatter(r, ct, bs);
    sc__free(bs);
    sc__free(bm);
    return sc__out(call, r);
fail:
    sc__free(bs);
    sc__free(bm);
    sc_tensor_free(r);
    return status;
}

/* nonzero(Tensor self) -> int64 [n, ndim]: the indices of the non-zero
 * elements (NaN counts as non-zero) in row-major order. */
sc_status sc__kernel_nonzero(sc__kernel_call *call)
{
    const sc_tensor *x;
    int64_t sizes[2], idx[SC_TENSOR_MAX_DIMS] = {0};
    size_t n, k, count = 0, d;
    int64_t *buf = NULL;
    sc_tensor *r = NULL;

    SC_TRY(sc__arg_tensor(call, SC_KARG_NONZERO_SELF, &x));
    if (!sc_tensor_dtype_supported(x->dtype))
        return sc__error_set(call->err, SC_ERR_UNSUPPORTED,
                             "nonzero: unsupported dtype");
    n = sc_tensor_numel(x);
    for (k = 0; k < n; k++)
        if (sc__dtype_is_float(x->dtype) ? sc_tensor_item_double(x, k) != 0
                                   : sc_tensor_item_int64(x, k) != 0)
            count++;
    sizes[0] = (int64_t)count;
    sizes[1] = (int64_t)x->ndim;
    SC_TRY(sc__new(SC_DTYPE_I64, 2, sizes, &r, call->err));
    buf = sc_tensor_data(r);
    for (k = 0; k < n; k++) {
        double v = sc__dtype_is_float(x->dtype) ? sc_tensor_item_double(x, k)
                                          : (double)(sc_tensor_item_int64(
                                                x, k) != 0);
        if (v != 0) {
            for (d = 0; d < x->ndim; d++)
                *buf++ = idx[d];
        }
        for (d = x->ndim; d-- > 0;) {
            if (++idx[d] < x->sizes[d])
                break;
            idx[d] = 0;
        }
    }
    return sc__out(call, r);
}
