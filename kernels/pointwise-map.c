/* symcut — kernels: elementwise ops computed element by element in float64
 * (or int64 for the bitwise ones) and rounded to the result dtype: sin,
 * cos, hardtanh and its backward, logical_not, logical_and, bitwise_or. */
#include <math.h>
#include <string.h>

#include "kernels/pointwise.h"

typedef enum map_op {
    M_SIN, M_COS, M_HARDTANH, M_LOGICAL_NOT,
    M_HARDTANH_BWD, M_LOGICAL_AND, M_BITWISE_OR
} map_op;

static double map1(map_op op, double x, double lo, double hi)
{
    switch (op) {
    case M_SIN: return sin(x);
    case M_COS: return cos(x);
    case M_HARDTANH: return x != x ? x : x < lo ? lo : x > hi ? hi : x;
    case M_LOGICAL_NOT: return x == 0;
    default: return 0;
    }
}

static double map2(map_op op, double a, double b, double lo, double hi)
{
    switch (op) {
    case M_HARDTANH_BWD: return (b <= lo || b >= hi) ? 0.0 : a;
    case M_LOGICAL_AND: return (a != 0) && (b != 0);
    default: return 0;
    }
}

/* The n operands at argument indices idx[], broadcast, through op; the
 * result in dtype rd. */
static sc_status run_map(sc__kernel_call *c, map_op op, size_t n,
                         const size_t *idx, sc_dtype rd, double lo, double hi)
{
    sc__pw_operand o[2];
    int64_t sizes[SC_TENSOR_MAX_DIMS];
    size_t ndim, k, cnt;
    void *buf[2] = {NULL, NULL};
    sc_tensor *tmp = NULL, *r = NULL;
    bool ints = op == M_BITWISE_OR;
    sc_status status;

    for (k = 0; k < n; k++)
        SC_TRY(sc__pw_get_operand(c, idx[k], &o[k]));
    SC_TRY(sc__pw_operands_shape(n, o, &ndim, sizes, c->err));
    SC_CHECK(sc__numel_checked(ndim, sizes, &cnt, c->err));
    for (k = 0; k < n; k++)
        SC_CHECK(sc__pw_operand_gather(&o[k], ndim, sizes,
                                       ints ? SC__CT_I64 : SC__CT_F64,
                                       &buf[k], c->err));
    SC_CHECK(sc_tensor_new(ints ? SC_DTYPE_I64 : SC_DTYPE_F64, ndim, sizes,
                           &tmp, c->err));
    if (ints) {
        int64_t *d = sc_tensor_data(tmp), *a = buf[0], *b = buf[1];
        for (k = 0; k < cnt; k++)
            d[k] = a[k] | b[k];
    } else {
        double *d = sc_tensor_data(tmp), *a = buf[0], *b = buf[1];
        for (k = 0; k < cnt; k++)
            d[k] = n == 1 ? map1(op, a[k], lo, hi)
                          : map2(op, a[k], b[k], lo, hi);
    }
    SC_CHECK(sc_tensor_to_dtype(tmp, rd, &r, c->err));
    status = sc__out(c, r);
    r = NULL;
fail:
    sc__free(buf[0]);
    sc__free(buf[1]);
    sc_tensor_free(tmp);
    sc_tensor_free(r);
    return status;
}

static sc_status float_unary(sc__kernel_call *c, size_t self, map_op op,
                             double lo, double hi)
{
    const sc_tensor *x;
    sc_dtype rd;
    SC_TRY(sc__arg_tensor(c, self, &x));
    if (!sc_tensor_dtype_supported(x->dtype))
        return sc__error_set(c->err, SC_ERR_UNSUPPORTED, "unsupported dtype");
    rd = sc__dtype_is_float(x->dtype) ? x->dtype : SC_DTYPE_F32;
    if (op == M_HARDTANH)
        rd = x->dtype;
    if (op == M_HARDTANH && x->dtype == SC_DTYPE_B8)
        return sc__error_set(c->err, SC_ERR_TYPE,
                             "hardtanh is not supported on bool tensors");
    return run_map(c, op, 1, &self, rd, lo, hi);
}

/* sin(Tensor self): integers give float32. */
sc_status sc__kernel_sin(sc__kernel_call *call)
{
    return float_unary(call, SC_KARG_SIN_SELF, M_SIN, 0, 0);
}

/* cos(Tensor self) */
sc_status sc__kernel_cos(sc__kernel_call *call)
{
    return float_unary(call, SC_KARG_COS_SELF, M_COS, 0, 0);
}

/* hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1): self clamped
 * to [min_val, max_val] (NaN stays NaN); self's dtype. */
sc_status sc__kernel_hardtanh(sc__kernel_call *call)
{
    double lo, hi;
    SC_TRY(sc__arg_double(call, SC_KARG_HARDTANH_MIN_VAL, &lo));
    SC_TRY(sc__arg_double(call, SC_KARG_HARDTANH_MAX_VAL, &hi));
    return float_unary(call, SC_KARG_HARDTANH_SELF, M_HARDTANH, lo, hi);
}

/* hardtanh_backward(Tensor grad_output, Tensor self, Scalar min_val,
 * Scalar max_val): grad_output where min_val < self < max_val, else 0. */
sc_status sc__kernel_hardtanh_backward(sc__kernel_call *call)
{
    const size_t idx[2] = {SC_KARG_HARDTANH_BACKWARD_GRAD_OUTPUT,
                           SC_KARG_HARDTANH_BACKWARD_SELF};
    sc__pw_operand o[2];
    double lo, hi;
    sc_dtype rd;
    SC_TRY(sc__arg_double(call, SC_KARG_HARDTANH_BACKWARD_MIN_VAL, &lo));
    SC_TRY(sc__arg_double(call, SC_KARG_HARDTANH_BACKWARD_MAX_VAL, &hi));
    SC_TRY(sc__pw_get_operand(call, idx[0], &o[0]));
    SC_TRY(sc__pw_get_operand(call, idx[1], &o[1]));
    SC_TRY(sc__pw_result_dtype(2, o, &rd, call->err));
    return run_map(call, M_HARDTANH_BWD, 2, idx, rd, lo, hi);
}

/* logical_not(Tensor self) -> bool */
sc_status sc__kernel_logical_not(sc__kernel_call *call)
{
    const size_t idx[1] = {SC_KARG_LOGICAL_NOT_SELF};
    return run_map(call, M_LOGICAL_NOT, 1, idx, SC_DTYPE_B8, 0, 0);
}

/* logical_and(Tensor self, Tensor other) -> bool, broadcast */
sc_status sc__kernel_logical_and(sc__kernel_call *call)
{
    const size_t idx[2] = {SC_KARG_LOGICAL_AND_SELF, SC_KARG_LOGICAL_AND_OTHER};
    return run_map(call, M_LOGICAL_AND, 2, idx, SC_DTYPE_B8, 0, 0);
}

/* bitwise_or.Tensor(Tensor self, Tensor other): integers and bools only,
 * the promoted dtype. */
sc_status sc__kernel_bitwise_or(sc__kernel_call *call)
{
    const size_t idx[2] = {SC_KARG_BITWISE_OR_SELF, SC_KARG_BITWISE_OR_OTHER};
    sc__pw_operand o[2];
    sc_dtype rd;
    SC_TRY(sc__pw_get_operand(call, idx[0], &o[0]));
    SC_TRY(sc__pw_get_operand(call, idx[1], &o[1]));
    SC_TRY(sc__pw_result_dtype(2, o, &rd, call->err));
    if (!sc__dtype_is_integral(rd, true))
        return sc__error_set(call->err, SC_ERR_TYPE,
                             "bitwise_or needs integer or bool operands, not "
                             "%s", sc_dtype_code(rd));
    return run_map(call, M_BITWISE_OR, 2, idx, rd, 0, 0);
}
