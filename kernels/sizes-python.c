/* symcut — kernels: the symbolic-integer ops (sym_size, sym_numel,
 * sym_stride, the Python integer operators, torch.sym_max/sym_min,
 * torch.sym_float/sym_int/sym_ite/sym_sqrt/sym_sum) and getitem,
 * evaluated on concrete values.
 *
 * A kernel returns tensors only, so a SymInt result is a 0-d int64 tensor
 * (read it back with sc_tensor_item_int64), a SymBool a 0-d bool tensor,
 * a SymFloat a 0-d float64 tensor;
 * SymInt arguments arrive as INT.
 * getitem takes the tuple or list as a TENSORS argument and returns an
 * alias of one element (NULL for a None element). */
#include "kernels/kernels-internal.h"
#include "symint/pydiv.h"

static sc_status out_int(sc__kernel_call *c, int64_t v)
{
    sc_tensor *t = NULL;
    SC_TRY(sc_tensor_new(SC_DTYPE_I64, 0, NULL, &t, c->err));
    *(int64_t *)sc_tensor_data(t) = v;
    return sc__out(c, t);
}

/* An int argument that may also come as a 0-d integer tensor (the result
 * of another symbolic kernel). */
static sc_status sym_arg(sc__kernel_call *c, size_t i, int64_t *v)
{
    if (i < c->nargs && c->args[i].kind == SC__KARG_TENSOR && c->args[i].u.t &&
        c->args[i].u.t->ndim == 0 &&
        !sc__dtype_is_float(c->args[i].u.t->dtype)) {
        *v = sc_tensor_item_int64(c->args[i].u.t, 0);
        return SC_OK;
    }
    return sc__arg_int(c, i, v);
}

/* sym_size.int(Tensor self, int dim) */
sc_status sc__kernel_sym_size(sc__kernel_call *call)
{
    const sc_tensor *x;
    int64_t dim;
    size_t d;
    SC_TRY(sc__arg_tensor(call, SC_KARG_SYM_SIZE_SELF, &x));
    SC_TRY(sc__arg_int(call, SC_KARG_SYM_SIZE_DIM, &dim));
    if (x->ndim == 0)
        return sc__error_set(call->err, SC_ERR_INVALID,
                             "sym_size: a 0-d tensor has no dimensions");
    SC_TRY(sc__wrap_dim(dim, x->ndim, &d, call->err));
    return out_int(call, x->sizes[d]);
}

/* sym_numel(Tensor self) */
sc_status sc__kernel_sym_numel(sc__kernel_call *call)
{
    const sc_tensor *x;
    SC_TRY(sc__arg_tensor(call, SC_KARG_SYM_NUMEL_SELF, &x));
    return out_int(call, (int64_t)sc_tensor_numel(x));
}

/* sym_stride.int(Tensor self, int dim) */
sc_status sc__kernel_sym_stride(sc__kernel_call *call)
{
    const sc_tensor *x;
    int64_t dim;
    size_t d;
    SC_TRY(sc__arg_tensor(call, SC_KARG_SYM_STRIDE_SELF, &x));
    SC_TRY(sc__arg_int(call, SC_KARG_SYM_STRIDE_DIM, &dim));
    if (x->ndim == 0)
        return sc__error_set(call->err, SC_ERR_INVALID,
                             "sym_stride: a 0-d tensor has no dimensions");
    SC_TRY(sc__wrap_dim(dim, x->ndim, &d, call->err));
    return out_int(call, x->strides[d]);
}

typedef enum symop { S_ADD, S_SUB, S_MUL, S_FLOORDIV, S_MOD, S_MAX, S_MIN } symop;

/* Python integer arithmetic; SC_ERR_OVERFLOW beyond int64, SC_ERR_DIV_ZERO
 * for // and % by zero. */
static sc_status sym_binary(sc__kernel_call *c, symop op, size_t self,
                            size_t other)
{
    int64_t a, b, r = 0;
    bool ovf = false;
    SC_TRY(sym_arg(c, self, &a));
    SC_TRY(sym_arg(c, other, &b));
    switch (op) {
    case S_ADD: ovf = __builtin_add_overflow(a, b, &r); break;
    case S_SUB: ovf = __builtin_sub_overflow(a, b, &r); break;
    case S_MUL: ovf = __builtin_mul_overflow(a, b, &r); break;
    case S_MAX: r = a > b ? a : b; break;
    case S_MIN: r = a < b ? a : b; break;
    case S_FLOORDIV:
    case S_MOD:
        if (b == 0)
            return sc__error_set(c->err, SC_ERR_DIV_ZERO,
                                 "integer division or modulo by zero");
        if (op == S_FLOORDIV)
            ovf = !sc__i64_floordiv(a, b, &r);
        else
            r = sc__i64_mod(a, b);
        break;
    }
    if (ovf)
        return sc__error_set(c->err, SC_ERR_OVERFLOW,
                             "symbolic integer arithmetic overflows int64");
    return out_int(c, r);
}

sc_status sc__kernel_sym_add(sc__kernel_call *call)
{
    return sym_binary(call, S_ADD, SC_KARG_SYM_ADD_SELF,
                      SC_KARG_SYM_ADD_OTHER);
}

sc_status sc__kernel_sym_sub(sc__kernel_call *call)
{
    return sym_binary(call, S_SUB, SC_KARG_SYM_SUB_SELF,
                      SC_KARG_SYM_SUB_OTHER);
}

sc_status sc__kernel_sym_mul(sc__kernel_call *call)
{
    return sym_binary(call, S_MUL, SC_KARG_SYM_MUL_SELF,
                      SC_KARG_SYM_MUL_OTHER);
}

sc_status sc__kernel_sym_floordiv(sc__kernel_call *call)
{
    return sym_binary(call, S_FLOORDIV, SC_KARG_SYM_FLOORDIV_SELF,
                      SC_KARG_SYM_FLOORDIV_OTHER);
}

sc_status sc__kernel_sym_mod(sc__kernel_call *call)
{
    return sym_binary(call, S_MOD, SC_KARG_SYM_MOD_SELF,
                      SC_KARG_SYM_MOD_OTHER);
}

/* torch.sym_max / torch.sym_min, which FX prints as calls */
sc_status sc__kernel_torch_sym_max(sc__kernel_call *call)
{
    return sym_binary(call, S_MAX, SC_KARG_TORCH_SYM_MAX_SELF,
                      SC_KARG_TORCH_SYM_MAX_OTHER);
}

sc_status sc__kernel_torch_sym_min(sc__kernel_call *call)
{
    return sym_binary(call, S_MIN, SC_KARG_TORCH_SYM_MIN_SELF,
                      SC_KARG_TORCH_SYM_MIN_OTHER);
}

sc_status sc__kernel_sym_neg(sc__kernel_call *call)
{
    int64_t a;
    SC_TRY(sym_arg(call, SC_KARG_SYM_NEG_SELF, &a));
    if (a == INT64_MIN)
        return sc__error_set(call->err, SC_ERR_OVERFLOW,
                             "symbolic integer arithmetic overflows int64");
    return out_int(call, -a);
}

/* ---- torch.sym_float, sym_int, sym_ite, sym_sqrt, sym_sum ---------------- */

static sc_status symbool_arg(sc__kernel_call *c, size_t i, bool *v);

/* A SymFloat result: a 0-d float64 tensor (a Python float). */
static sc_status out_float(sc__kernel_call *c, double v)
{
    sc_tensor *t = NULL;
    SC_TRY(sc_tensor_new(SC_DTYPE_F64, 0, NULL, &t, c->err));
    *(double *)sc_tensor_data(t) = v;
    return sc__out(c, t);
}

/* A number argument: an int, a float, or a 0-d tensor (another symbolic
 * kernel's result); *is_float says which kind of Python number it is, and
 * an integer's exact value is in *i. */
static sc_status num_arg(sc__kernel_call *c, size_t i, double *v,
                         int64_t *iv, bool *is_float)
{
    if (i < c->nargs && c->args[i].kind == SC__KARG_TENSOR) {
        const sc_tensor *t = c->args[i].u.t;
        if (!t || t->ndim != 0 || t->dtype == SC_DTYPE_B8)
            return sc__error_set(c->err, SC_ERR_TYPE,
                                 "argument %zu must be a number, not a "
                                 "tensor", i);
        *is_float = sc__dtype_is_float(t->dtype);
        *v = sc_tensor_item_double(t, 0);
        *iv = *is_float ? 0 : sc_tensor_item_int64(t, 0);
        return SC_OK;
    }
    *is_float = i < c->nargs && c->args[i].kind == SC__KARG_FLOAT;
    if (*is_float)
        return sc__arg_double(c, i, v);
    SC_TRY(sym_arg(c, i, iv));
    *v = (double)*iv;
    return SC_OK;
}

/* torch.sym_float(a): a as a Python float. */
sc_status sc__kernel_torch_sym_float(sc__kernel_call *call)
{
    double v;
    int64_t i;
    bool f;
    SC_TRY(num_arg(call, SC_KARG_TORCH_SYM_FLOAT_SELF, &v, &i, &f));
    return out_float(call, v);
}

/* torch.sym_int(a): an int stays itself, a float is truncated toward
 * zero (math.trunc); NaN, inf and floats beyond int64 are errors. */
sc_status sc__kernel_torch_sym_int(sc__kernel_call *call)
{
    double v;
    int64_t i;
    bool f;
    SC_TRY(num_arg(call, SC_KARG_TORCH_SYM_INT_SELF, &v, &i, &f));
    if (!f)
        return out_int(call, i);
    if (!(v > -0x1p63 && v < 0x1p63))
        return sc__error_set(call->err, SC_ERR_OVERFLOW,
                             "sym_int: %g has no int64 value", v);
    return out_int(call, (int64_t)v);
}

/* torch.sym_ite(b, t, f): t if b else f. */
sc_status sc__kernel_torch_sym_ite(sc__kernel_call *call)
{
    bool b;
    int64_t t, f;
    SC_TRY(symbool_arg(call, SC_KARG_TORCH_SYM_ITE_B, &b));
    SC_TRY(sym_arg(call, SC_KARG_TORCH_SYM_ITE_T, &t));
    SC_TRY(sym_arg(call, SC_KARG_TORCH_SYM_ITE_F, &f));
    return out_int(call, b ? t : f);
}

/* torch._sym_sqrt(a) (torch.sym_sqrt): math.sqrt, a float; a negative
 * operand is an error, as Python's math domain error. */
sc_status sc__kernel_torch_sym_sqrt(sc__kernel_call *call)
{
    double v;
    int64_t i;
    bool f;
    SC_TRY(num_arg(call, SC_KARG_TORCH_SYM_SQRT_SELF, &v, &i, &f));
    if (v < 0)
        return sc__error_set(call->err, SC_ERR_INVALID,
                             "sym_sqrt: math domain error (%g)", v);
    return out_float(call, sqrt(v));
}

/* torch.sym_sum(args): the sum of a list of SymInts; SC_ERR_OVERFLOW
 * beyond int64. */
sc_status sc__kernel_torch_sym_sum(sc__kernel_call *call)
{
    const int64_t *v;
    size_t n, k;
    int64_t r = 0;
    SC_TRY(sc__arg_ints(call, SC_KARG_TORCH_SYM_SUM_ARGS, &n, &v));
    for (k = 0; k < n; k++)
        if (__builtin_add_overflow(r, v[k], &r))
            return sc__error_set(call->err, SC_ERR_OVERFLOW,
                                 "symbolic integer arithmetic overflows "
                                 "int64");
    return out_int(call, r);
}

/* A SymBool result: a 0-d bool tensor. */
static sc_status out_bool(sc__kernel_call *c, bool v)
{
    sc_tensor *t = NULL;
    SC_TRY(sc_tensor_new(SC_DTYPE_B8, 0, NULL, &t, c->err));
    *(uint8_t *)sc_tensor_data(t) = v;
    return sc__out(c, t);
}

typedef enum symcmp { C_EQ, C_NE, C_LT, C_LE, C_GT, C_GE } symcmp;

/* A comparison of two SymInts: a SymBool. */
static sc_status sym_compare(sc__kernel_call *c, symcmp op, size_t self,
                             size_t other)
{
    int64_t a, b;
    bool r = false;
    SC_TRY(sym_arg(c, self, &a));
    SC_TRY(sym_arg(c, other, &b));
    switch (op) {
    case C_EQ: r = a == b; break;
    case C_NE: r = a != b; break;
    case C_LT: r = a < b; break;
    case C_LE: r = a <= b; break;
    case C_GT: r = a > b; break;
    case C_GE: r = a >= b; break;
    }
    return out_bool(c, r);
}

#define SYM_COMPARE_KERNEL(lower, upper, OP)                                 \
    sc_status sc__kernel_sym_##lower(sc__kernel_call *call)                  \
    {                                                                        \
        return sym_compare(call, OP, SC_KARG_SYM_##upper##_SELF,             \
                           SC_KARG_SYM_##upper##_OTHER);                     \
    }
SYM_COMPARE_KERNEL(eq, EQ, C_EQ)
SYM_COMPARE_KERNEL(ne, NE, C_NE)
SYM_COMPARE_KERNEL(lt, LT, C_LT)
SYM_COMPARE_KERNEL(le, LE, C_LE)
SYM_COMPARE_KERNEL(gt, GT, C_GT)
SYM_COMPARE_KERNEL(ge, GE, C_GE)
#undef SYM_COMPARE_KERNEL

/* A SymBool argument: a 0-d tensor (another symbolic kernel's result), a
 * bool, or an int (nonzero is true). */
static sc_status symbool_arg(sc__kernel_call *c, size_t i, bool *v)
{
    int64_t n;
    if (i < c->nargs && c->args[i].kind == SC__KARG_BOOL)
        return sc__arg_bool(c, i, v);
    if (i < c->nargs && c->args[i].kind == SC__KARG_TENSOR &&
        c->args[i].u.t &&
        (c->args[i].u.t->ndim != 0 || sc__dtype_is_float(c->args[i].u.t->dtype)))
        return sc__error_set(c->err, SC_ERR_UNSUPPORTED,
                             "&, | and not of tensors (bitwise logic) have "
                             "no kernel: only SymBools");
    SC_TRY(sym_arg(c, i, &n));
    *v = n != 0;
    return SC_OK;
}

sc_status sc__kernel_sym_and(sc__kernel_call *call)
{
    bool a, b;
    SC_TRY(symbool_arg(call, SC_KARG_SYM_AND_SELF, &a));
    SC_TRY(symbool_arg(call, SC_KARG_SYM_AND_OTHER, &b));
    return out_bool(call, a && b);
}

sc_status sc__kernel_sym_or(sc__kernel_call *call)
{
    bool a, b;
    SC_TRY(symbool_arg(call, SC_KARG_SYM_OR_SELF, &a));
    SC_TRY(symbool_arg(call, SC_KARG_SYM_OR_OTHER, &b));
    return out_bool(call, a || b);
}

sc_status sc__kernel_sym_not(sc__kernel_call *call)
{
    bool a;
    SC_TRY(symbool_arg(call, SC_KARG_SYM_NOT_SELF, &a));
    return out_bool(call, !a);
}

/* getitem(Any self, int index): self a TENSORS tuple or list; Python
 * indexing (negative from the end). */
sc_status sc__kernel_getitem(sc__kernel_call *call)
{
    const sc_tensor *const *ts;
    size_t n;
    int64_t i;
    sc_tensor *r = NULL;
    SC_TRY(sc__arg_tensors(call, SC_KARG_GETITEM_SELF, &n, &ts));
    SC_TRY(sc__arg_int(call, SC_KARG_GETITEM_INDEX, &i));
    if (i < 0)
        i += (int64_t)n;
    if (i < 0 || (uint64_t)i >= n)
        return sc__error_set(call->err, SC_ERR_INVALID,
                             "getitem: index out of range for a tuple of %zu",
                             n);
    if (ts[i])
        SC_TRY(sc_tensor_alias(ts[i], &r, call->err));
    return sc__out(call, r);
}

/* _local_scalar_dense(Tensor self) -> Scalar: the value of a one-element
 * tensor (`.item()`): of an integer or bool tensor a SymInt (0-d int64),
 * of a floating one a SymFloat (0-d float64; an f32/f16/bf16 value is
 * exact in double). */
sc_status sc__kernel_local_scalar_dense(sc__kernel_call *call)
{
    const sc_tensor *x;
    SC_TRY(sc__arg_tensor(call, SC_KARG_LOCAL_SCALAR_DENSE_SELF, &x));
    if (sc_tensor_numel(x) != 1)
        return sc__error_set(call->err, SC_ERR_INVALID,
                             "_local_scalar_dense: a tensor with %zu "
                             "elements cannot be converted to a Scalar",
                             sc_tensor_numel(x));
    if (sc__dtype_is_float(x->dtype))
        return out_float(call, sc_tensor_item_double(x, 0));
    if (!sc__dtype_is_integral(x->dtype, true))
        return sc__error_set(call->err, SC_ERR_UNSUPPORTED,
                             "_local_scalar_dense: the value of a %s tensor "
                             "is not supported",
                             sc_dtype_code(x->dtype));
    return out_int(call, sc_tensor_item_int64(x, 0));
}

/* A Scalar argument's truth (a bool, an int, a float, or a 0-d tensor). */
static sc_status truth_arg(sc__kernel_call *c, size_t i, bool *out)
{
    double v;
    if (i < c->nargs && c->args[i].kind == SC__KARG_TENSOR && c->args[i].u.t &&
        sc_tensor_numel(c->args[i].u.t) == 1) {
        *out = sc_tensor_item_double(c->args[i].u.t, 0) != 0;
        return SC_OK;
    }
    SC_TRY(sc__arg_double(c, i, &v));
    *out = v != 0;
    return SC_OK;
}

/* _assert_scalar(Scalar self, str assert_msg) -> (): fails with assert_msg
 * when self is false. */
sc_status sc__kernel_assert_scalar(sc__kernel_call *call)
{
    bool ok;
    const char *msg = "assertion failed";
    SC_TRY(truth_arg(call, SC_KARG_ASSERT_SCALAR_SELF, &ok));
    if (call->args[SC_KARG_ASSERT_SCALAR_ASSERT_MSG].kind == SC__KARG_STR)
        msg = call->args[SC_KARG_ASSERT_SCALAR_ASSERT_MSG].u.s;
    if (!ok)
        return sc__error_set(call->err, SC_ERR_GUARD, "%s", msg);
    return SC_OK;
}

/* sym_constrain_range_for_size(Scalar size, *, int? min=None, int? max=None)
 * -> (): size must be in [max(min, 0), max] (a size). */
sc_status sc__kernel_sym_constrain_range_for_size(sc__kernel_call *call)
{
    int64_t v, lo = 0, hi = INT64_MAX;
    SC_TRY(sym_arg(call, SC_KARG_SYM_CONSTRAIN_RANGE_FOR_SIZE_SIZE, &v));
    if (!sc__arg_is_none(call, SC_KARG_SYM_CONSTRAIN_RANGE_FOR_SIZE_MIN))
        SC_TRY(sc__arg_int(call, SC_KARG_SYM_CONSTRAIN_RANGE_FOR_SIZE_MIN, &lo));
    if (!sc__arg_is_none(call, SC_KARG_SYM_CONSTRAIN_RANGE_FOR_SIZE_MAX))
        SC_TRY(sc__arg_int(call, SC_KARG_SYM_CONSTRAIN_RANGE_FOR_SIZE_MAX, &hi));
    if (lo < 0)
        lo = 0;
    if (v < lo || v > hi)
        return sc__error_set(call->err, SC_ERR_GUARD,
                             "sym_constrain_range_for_size: %lld is not in "
                             "[%lld, %lld]", (long long)v, (long long)lo,
                             (long long)hi);
    return SC_OK;
}
