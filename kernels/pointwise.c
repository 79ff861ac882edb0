/* symcut — kernels: pointwise arithmetic (add, sub, mul, div, pow, neg,
 * exp, ..., sgn, clamp, native_dropout_backward) and the elementwise machinery
 * (kernels/pointwise.h) the activation and selection kernels share:
 * elementwise ops with broadcasting and type promotion.
 *
 * Every operand (a tensor or a Python scalar) is gathered, broadcast and
 * converted, into a contiguous buffer of the compute type (float for f32,
 * f16 and bf16; double for f64; int64 for integers and bool), the op runs
 * over the buffers, and the result is stored into a new contiguous tensor
 * of the result dtype.  Where no conversion is needed (contiguous float32
 * operands of the result's shape, scalars, a contiguous operand of the
 * trailing sizes; contiguous float32 / float64 unary operands) the
 * operands are read in place and the result written straight into the new
 * tensor: the same formulas on the same values, so the same bits.  The
 * formulas are the ones PyTorch's CPU kernels use, in f32 with the f32
 * libm functions. */
#include <math.h>

#include "kernels/kernels-internal.h"
#include "kernels/pointwise.h"

#ifndef M_SQRT1_2
#define M_SQRT1_2 0.70710678118654752440
#endif
#ifndef M_SQRT2
#define M_SQRT2 1.41421356237309504880
#endif
#ifndef M_2_SQRTPI
#define M_2_SQRTPI 1.12837916709551257390
#endif

/* ---- Operands ------------------------------------------------------------- */

sc_status sc__pw_get_operand(sc__kernel_call *c, size_t i,
                             sc__pw_operand *o)
{
    const sc__karg *a = i < c->nargs ? &c->args[i] : NULL;
    o->t = NULL;
    o->f = 0;
    o->i = 0;
    if (a && a->kind == SC__KARG_TENSOR && a->u.t) {
        o->t = a->u.t;
        o->kind = o->t->ndim ? SC_OPERAND_TENSOR : SC_OPERAND_ZERO_DIM;
        return SC_OK;
    }
    if (a && a->kind == SC__KARG_INT) {
        o->kind = SC_OPERAND_INT;
        o->i = a->u.i;
        o->f = (double)a->u.i;
        return SC_OK;
    }
    if (a && a->kind == SC__KARG_FLOAT) {
        o->kind = SC_OPERAND_FLOAT;
        o->f = a->u.f;
        o->i = sc__sat_i64(a->u.f);
        return SC_OK;
    }
    if (a && a->kind == SC__KARG_BOOL) {
        o->kind = SC_OPERAND_BOOL;
        o->i = a->u.b;
        o->f = a->u.b;
        return SC_OK;
    }
    return sc__arg_tensor(c, i, &o->t); /* the error message */
}

sc_status sc__pw_result_dtype(size_t n, const sc__pw_operand *o,
                              sc_dtype *out, sc_error *err)
{
    sc_operand ops[4];
    size_t i;
    for (i = 0; i < n; i++) {
        ops[i].kind = o[i].kind;
        ops[i].dtype = o[i].t ? o[i].t->dtype : SC_DTYPE_F32;
    }
    return sc_dtype_result_type(n, ops, out, err);
}

/* The broadcast shape of the tensor operands. */
sc_status sc__pw_operands_shape(size_t n, const sc__pw_operand *o,
                                size_t *ndim, int64_t *sizes, sc_error *err)
{
    size_t i;
    *ndim = 0;
    for (i = 0; i < n; i++) {
        int64_t tmp[SC_TENSOR_MAX_DIMS];
        if (!o[i].t)
            continue;
        memcpy(tmp, sizes, sizeof tmp);
        if (o[i].t->ndim > SC_TENSOR_MAX_DIMS)
            return sc__error_set(err, SC_ERR_INVALID, "too many dims");
        SC_TRY(sc__broadcast_shape(*ndim, tmp, o[i].t->ndim,
                                   o[i].t->sizes, ndim, sizes, err));
    }
    return SC_OK;
}

sc_status sc__pw_operand_gather(const sc__pw_operand *o, size_t ndim,
                                const int64_t *sizes, sc__ctype ct,
                                void **out, sc_error *err)
{
    size_t n, k;
    if (o->t)
        return sc__gather(o->t, ndim, sizes, ct, out, err);
    SC_TRY(sc__numel_checked(ndim, sizes, &n, err));
    *out = sc__malloc(n ? n * sc__ctype_size(ct) : 1);
    if (!*out)
        return sc__error_nomem(err);
    for (k = 0; k < n; k++) {
        if (ct == SC__CT_F32)
            ((float *)*out)[k] = (float)o->f;
        else if (ct == SC__CT_F64)
            ((double *)*out)[k] = o->f;
        else
            ((int64_t *)*out)[k] = o->i;
    }
    return SC_OK;
}

/* ---- Unary ops -------------------------------------------------------------- */

static float gelu_f(float x)
{
    return x * 0.5f * (1.0f + erff(x * (float)M_SQRT1_2));
}

static float gelu_tanh_f(float x)
{
    const float beta = (float)(M_SQRT2 * M_2_SQRTPI * 0.5);
    const float kappa = 0.044715f;
    float inner = beta * (x + kappa * x * x * x);
    return 0.5f * x * (1.0f + tanhf(inner));
}

static double gelu_d(double x)
{
    return x * 0.5 * (1.0 + erf(x * M_SQRT1_2));
}

static double gelu_tanh_d(double x)
{
    const double beta = M_SQRT2 * M_2_SQRTPI * 0.5, kappa = 0.044715;
    double inner = beta * (x + kappa * x * x * x);
    return 0.5 * x * (1.0 + tanh(inner));
}

static float unary_f32(sc__pw_unop op, float x)
{
    switch (op) {
    case U_NEG: return -x;
    case U_EXP: return expf(x);
    case U_LOG: return logf(x);
    case U_SQRT: return sqrtf(x);
    case U_RSQRT: return 1.0f / sqrtf(x);
    case U_TANH: return tanhf(x);
    case U_SIGMOID: return 1.0f / (1.0f + expf(-x));
    case U_RELU: return x > 0 ? x : (x != x ? x : 0.0f);
    case U_GELU: return gelu_f(x);
    case U_GELU_TANH: return gelu_tanh_f(x);
    case U_SILU: return x / (1.0f + expf(-x));
    case U_ABS: return fabsf(x);
    case U_RECIPROCAL: return 1.0f / x;
    case U_ERF: return erff(x);
    }
    return 0;
}

static double unary_f64(sc__pw_unop op, double x)
{
    switch (op) {
    case U_NEG: return -x;
    case U_EXP: return exp(x);
    case U_LOG: return log(x);
    case U_SQRT: return sqrt(x);
    case U_RSQRT: return 1.0 / sqrt(x);
    case U_TANH: return tanh(x);
    case U_SIGMOID: return 1.0 / (1.0 + exp(-x));
    case U_RELU: return x > 0 ? x : (x != x ? x : 0.0);
    case U_GELU: return gelu_d(x);
    case U_GELU_TANH: return gelu_tanh_d(x);
    case U_SILU: return x / (1.0 + exp(-x));
    case U_ABS: return fabs(x);
    case U_RECIPROCAL: return 1.0 / x;
    case U_ERF: return erf(x);
    }
    return 0;
}

static int64_t unary_i64(sc__pw_unop op, int64_t x)
{
    switch (op) {
    case U_NEG: return (int64_t)(0 - (uint64_t)x);
    case U_RELU: return x > 0 ? x : 0;
    case U_ABS: return x < 0 ? (int64_t)(0 - (uint64_t)x) : x;
    default: return 0;
    }
}

/* Ops that keep integer dtypes (the others promote integers to f32). */
static bool unop_keeps_int(sc__pw_unop op)
{
    return op == U_NEG || op == U_RELU || op == U_ABS;
}

/* The unary op on the tensor argument `self`. */
sc_status sc__pw_run_unary(sc__kernel_call *c, size_t self,
                           sc__pw_unop op)
{
    const sc_tensor *x;
    sc_tensor *r = NULL;
    sc_dtype rd, cd;
    sc__ctype ct;
    void *buf = NULL;
    size_t n, k;
    sc_status status;

    SC_TRY(sc__arg_tensor(c, self, &x));
    if (!sc_tensor_dtype_supported(x->dtype))
        return sc__error_set(c->err, SC_ERR_UNSUPPORTED, "unsupported dtype");
    if (sc__dtype_is_float(x->dtype)) {
        rd = cd = x->dtype;
    } else if (unop_keeps_int(op)) {
        if (x->dtype == SC_DTYPE_B8 && op == U_NEG)
            return sc__error_set(c->err, SC_ERR_TYPE,
                                 "neg is not supported on bool tensors");
        rd = cd = x->dtype;
    } else if (op == U_GELU || op == U_GELU_TANH || op == U_SILU) {
        return sc__error_set(c->err, SC_ERR_TYPE,
                             "this activation needs a floating tensor");
    } else {
        rd = cd = SC_DTYPE_F32;
    }
    ct = sc__ctype_of(cd);
    n = sc_tensor_numel(x);
    if (ct != SC__CT_I64 && x->dtype == rd &&
        (rd == SC_DTYPE_F32 || rd == SC_DTYPE_F64) &&
        sc_tensor_is_contiguous(x)) {
        /* read in place, written straight into the result */
        SC_TRY(sc__new(rd, x->ndim, x->sizes, &r, c->err));
        if (ct == SC__CT_F32) {
            const float *in = sc_tensor_data(x);
            float *out = sc_tensor_data(r);
            for (k = 0; k < n; k++)
                out[k] = unary_f32(op, in[k]);
        } else {
            const double *in = sc_tensor_data(x);
            double *out = sc_tensor_data(r);
            for (k = 0; k < n; k++)
                out[k] = unary_f64(op, in[k]);
        }
        return sc__out(c, r);
    }
    SC_CHECK(sc__gather(x, x->ndim, x->sizes, ct, &buf, c->err));
    if (ct == SC__CT_F32) {
        float *v = buf;
        for (k = 0; k < n; k++)
            v[k] = unary_f32(op, v[k]);
    } else if (ct == SC__CT_F64) {
        double *v = buf;
        for (k = 0; k < n; k++)
            v[k] = unary_f64(op, v[k]);
    } else {
        int64_t *v = buf;
        for (k = 0; k < n; k++)
            v[k] = unary_i64(op, v[k]);
    }
    SC_CHECK(sc__new(rd, x->ndim, x->sizes, &r, c->err));
    sc__scatter(r, ct, buf);
    sc__free(buf);
    return sc__out(c, r);
fail:
    sc__free(buf);
    sc_tensor_free(r);
    return status;
}

SC__PW_UNARY_KERNEL(neg, NEG, U_NEG)
SC__PW_UNARY_KERNEL(exp, EXP, U_EXP)
SC__PW_UNARY_KERNEL(log, LOG, U_LOG)
SC__PW_UNARY_KERNEL(sqrt, SQRT, U_SQRT)
SC__PW_UNARY_KERNEL(rsqrt, RSQRT, U_RSQRT)
SC__PW_UNARY_KERNEL(abs, ABS, U_ABS)
SC__PW_UNARY_KERNEL(reciprocal, RECIPROCAL, U_RECIPROCAL)
SC__PW_UNARY_KERNEL(erf, ERF, U_ERF)

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
    SC_CHECK(sc_tensor_to_dtype(tmp, x->dtype, &r, call->err));
    sc_tensor_free(tmp);
    return sc__out(call, r);
fail:
    sc_tensor_free(tmp);
    return status;
}

/* `approximate` (argument i): "none" (default) or "tanh". */
sc_status sc__pw_gelu_mode(sc__kernel_call *c, size_t i, bool *tanh_mode)
{
    *tanh_mode = false;
    if (sc__arg_is_none(c, i))
        return SC_OK;
    if (c->args[i].kind != SC__KARG_STR)
        return sc__error_set(c->err, SC_ERR_TYPE,
                             "gelu: approximate must be a string");
    if (strcmp(c->args[i].u.s, "tanh") == 0)
        *tanh_mode = true;
    else if (strcmp(c->args[i].u.s, "none") != 0)
        return sc__error_set(c->err, SC_ERR_INVALID,
                             "gelu: approximate must be 'none' or 'tanh', "
                             "not '%s'",
                             c->args[i].u.s);
    return SC_OK;
}

/* ---- Binary and ternary ops ------------------------------------------------ */

static bool binop_is_comparison(sc__pw_binop op)
{
    return op >= B_EQ && op <= B_GE;
}

static float gelu_bwd_f(float dy, float x)
{
    const float alpha = (float)M_SQRT1_2;
    const float beta = (float)(M_2_SQRTPI * M_SQRT1_2 * 0.5);
    float cdf = 0.5f * (1.0f + erff(x * alpha));
    float pdf = beta * expf(x * x * -0.5f);
    return dy * (cdf + x * pdf);
}

static float gelu_tanh_bwd_f(float dy, float x)
{
    const float beta = (float)(M_SQRT2 * M_2_SQRTPI * 0.5);
    const float kappa = 0.044715f;
    float x_sq = x * x, x_cube = x_sq * x;
    float inner = beta * (x + kappa * x_cube);
    float th = tanhf(inner);
    float left = 0.5f * x, right = 1.0f + th;
    float left_d = 0.5f * right;
    float right_d = 1.0f - th * th;
    float inner_d = beta * (1.0f + 3.0f * kappa * x_sq);
    return dy * (left_d + left * right_d * inner_d);
}

static double gelu_bwd_d(double dy, double x)
{
    const double alpha = M_SQRT1_2, beta = M_2_SQRTPI * M_SQRT1_2 * 0.5;
    double cdf = 0.5 * (1.0 + erf(x * alpha));
    double pdf = beta * exp(x * x * -0.5);
    return dy * (cdf + x * pdf);
}

static double gelu_tanh_bwd_d(double dy, double x)
{
    const double beta = M_SQRT2 * M_2_SQRTPI * 0.5, kappa = 0.044715;
    double x_sq = x * x, inner = beta * (x + kappa * x_sq * x);
    double th = tanh(inner), left = 0.5 * x, right = 1.0 + th;
    double inner_d = beta * (1.0 + 3.0 * kappa * x_sq);
    return dy * (0.5 * right + left * (1.0 - th * th) * inner_d);
}

static float pow_f(float a, float b)
{
    if (b == 2.0f)
        return a * a;
    if (b == 0.5f)
        return sqrtf(a);
    if (b == 1.0f)
        return a;
    return powf(a, b);
}

static float binary_f32(sc__pw_binop op, float a, float b, float alpha,
                        float th)
{
    switch (op) {
    case B_ADD: return a + alpha * b;
    case B_SUB: return a - alpha * b;
    case B_RSUB: return b - alpha * a;
    case B_MUL: return a * b;
    case B_DIV: return a / b;
    case B_DIV_TRUNC: return truncf(a / b);
    case B_DIV_FLOOR: {
        float q;
        if (b == 0)
            return a / b;
        q = floorf(a / b);
        return q;
    }
    case B_POW: return pow_f(a, b);
    case B_EQ: return a == b;
    case B_NE: return a != b;
    case B_LT: return a < b;
    case B_LE: return a <= b;
    case B_GT: return a > b;
    case B_GE: return a >= b;
    case B_TANH_BWD: return a * (1.0f - b * b);
    case B_SIGMOID_BWD: return a * (1.0f - b) * b;
    case B_GELU_BWD: return gelu_bwd_f(a, b);
    case B_GELU_TANH_BWD: return gelu_tanh_bwd_f(a, b);
    case B_SILU_BWD: {
        float s = 1.0f / (1.0f + expf(-b));
        return a * s * (1.0f + b * (1.0f - s));
    }
    case B_THRESHOLD_BWD: return b <= th ? 0.0f : a;
    }
    return 0;
}

static double binary_f64(sc__pw_binop op, double a, double b, double alpha,
                         double th)
{
    switch (op) {
    case B_ADD: return a + alpha * b;
    case B_SUB: return a - alpha * b;
    case B_RSUB: return b - alpha * a;
    case B_MUL: return a * b;
    case B_DIV: return a / b;
    case B_DIV_TRUNC: return trunc(a / b);
    case B_DIV_FLOOR: return b == 0 ? a / b : floor(a / b);
    case B_POW: return b == 2.0 ? a * a : pow(a, b);
    case B_EQ: return a == b;
    case B_NE: return a != b;
    case B_LT: return a < b;
    case B_LE: return a <= b;
    case B_GT: return a > b;
    case B_GE: return a >= b;
    case B_TANH_BWD: return a * (1.0 - b * b);
    case B_SIGMOID_BWD: return a * (1.0 - b) * b;
    case B_GELU_BWD: return gelu_bwd_d(a, b);
    case B_GELU_TANH_BWD: return gelu_tanh_bwd_d(a, b);
    case B_SILU_BWD: {
        double s = 1.0 / (1.0 + exp(-b));
        return a * s * (1.0 + b * (1.0 - s));
    }
    case B_THRESHOLD_BWD: return b <= th ? 0.0 : a;
    }
    return 0;
}

static int64_t ipow(int64_t a, int64_t b)
{
    uint64_t r = 1, base = (uint64_t)a;
    if (b < 0)
        return a == 1 ? 1 : a == -1 ? ((b & 1) ? -1 : 1) : 0;
    while (b) {
        if (b & 1)
            r *= base;
        base *= base;
        b >>= 1;
    }
    return (int64_t)r;
}

/* Integer ops wrap (computed in uint64); division by zero is reported by
 * the caller before the loop. */
static int64_t binary_i64(sc__pw_binop op, int64_t a, int64_t b, int64_t alpha,
                          int64_t th)
{
    uint64_t ua = (uint64_t)a, ub = (uint64_t)b, ual = (uint64_t)alpha;
    switch (op) {
    case B_ADD: return (int64_t)(ua + ual * ub);
    case B_SUB: return (int64_t)(ua - ual * ub);
    case B_RSUB: return (int64_t)(ub - ual * ua);
    case B_MUL: return (int64_t)(ua * ub);
    case B_DIV_TRUNC:
        if (a == INT64_MIN && b == -1)
            return INT64_MIN;
        return a / b;
    case B_DIV_FLOOR: {
        int64_t q, r;
        if (a == INT64_MIN && b == -1)
            return INT64_MIN;
        q = a / b;
        r = a % b;
        return (r != 0 && ((r < 0) != (b < 0))) ? q - 1 : q;
    }
    case B_POW: return ipow(a, b);
    case B_EQ: return a == b;
    case B_NE: return a != b;
    case B_LT: return a < b;
    case B_LE: return a <= b;
    case B_GT: return a > b;
    case B_GE: return a >= b;
    case B_THRESHOLD_BWD: return b <= th ? 0 : a;
    default: return 0;
    }
}

/* How a float32 operand of a binary op is read in place over the
 * broadcast shape (ndim, sizes) of n elements: its value (a scalar), all
 * n elements (contiguous, the full shape) or its `len` elements again and
 * again (contiguous, the trailing sizes of the shape: a bias).  False when
 * it must be gathered. */
typedef struct f32_reader {
    const float *p;
    float v;
    size_t len; /* 0: the scalar v */
} f32_reader;

static bool f32_reader_init(const sc__pw_operand *o, size_t ndim,
                            const int64_t *sizes, size_t n, f32_reader *rd)
{
    size_t lead, d, len = 1, od;
    const sc_tensor *t = o->t;
    rd->p = NULL;
    rd->v = 0;
    rd->len = 0;
    if (!t) {
        rd->v = (float)o->f;
        return true;
    }
    if (t->dtype != SC_DTYPE_F32 || !sc_tensor_is_contiguous(t) ||
        t->ndim > ndim)
        return false;
    /* its sizes, leading 1s dropped, must be the trailing sizes */
    for (od = 0; od < t->ndim && t->sizes[od] == 1; od++)
        ;
    lead = ndim - (t->ndim - od);
    for (d = od; d < t->ndim; d++) {
        if (t->sizes[d] != sizes[lead + d - od])
            return false;
        len *= (size_t)t->sizes[d];
    }
    if (len == 0 || n % len != 0)
        return false;
    rd->p = sc_tensor_data(t);
    rd->len = len;
    return true;
}

/* Run op over operands a and b (with alpha and a threshold scalar).
 * The result dtype is PyTorch's result_type of the operands, f32 for a
 * true division of integers, bool for comparisons; `float_only` ops
 * reject integer operands. */
sc_status sc__pw_run_binary(sc__kernel_call *c, sc__pw_binop op,
                            const sc__pw_operand *o, double alpha, double th,
                            bool float_only)
{
    int64_t sizes[SC_TENSOR_MAX_DIMS];
    size_t ndim, n, k;
    sc_dtype common, rd;
    sc__ctype ct;
    void *ba = NULL, *bb = NULL;
    sc_tensor *r = NULL;
    sc_status status;

    SC_CHECK(sc__pw_result_dtype(2, o, &common, c->err));
    if (op == B_DIV && !sc__dtype_is_float(common))
        common = SC_DTYPE_F32;
    if (float_only && !sc__dtype_is_float(common))
        return sc__error_set(c->err, SC_ERR_TYPE,
                             "this op needs floating operands");
    if (common == SC_DTYPE_B8 &&
        (op == B_SUB || op == B_RSUB || op == B_DIV_TRUNC ||
         op == B_DIV_FLOOR))
        return sc__error_set(c->err, SC_ERR_TYPE,
                             "this op is not supported on bool tensors");
    rd = binop_is_comparison(op) ? SC_DTYPE_B8 : common;
    ct = sc__ctype_of(common);
    if (!sc__dtype_is_float(common) && alpha != floor(alpha))
        return sc__error_set(c->err, SC_ERR_TYPE,
                             "alpha must be an integer for integer tensors");
    SC_CHECK(sc__pw_operands_shape(2, o, &ndim, sizes, c->err));
    SC_CHECK(sc__numel_checked(ndim, sizes, &n, c->err));
    if (ct == SC__CT_F32 && rd == SC_DTYPE_F32 && n > 0) {
        f32_reader ra, rb;
        if (f32_reader_init(&o[0], ndim, sizes, n, &ra) &&
            f32_reader_init(&o[1], ndim, sizes, n, &rb)) {
            /* float32 read in place (contiguous, scalar or a trailing
               broadcast), the result written straight into the tensor */
            float al = (float)alpha, t = (float)th, *out;
            size_t i, j;
            SC_CHECK(sc__new(rd, ndim, sizes, &r, c->err));
            out = sc_tensor_data(r);
            if (ra.len == n && rb.len == n)
                for (k = 0; k < n; k++)
                    out[k] = binary_f32(op, ra.p[k], rb.p[k], al, t);
            else if (ra.len == n && rb.len == 0)
                for (k = 0; k < n; k++)
                    out[k] = binary_f32(op, ra.p[k], rb.v, al, t);
            else if (ra.len == n)
                for (k = 0; k < n; k += rb.len)
                    for (j = 0; j < rb.len; j++)
                        out[k + j] =
                            binary_f32(op, ra.p[k + j], rb.p[j], al, t);
            else
                for (k = 0; k < n; k++) {
                    i = ra.len ? k % ra.len : 0;
                    j = rb.len ? k % rb.len : 0;
                    out[k] = binary_f32(op, ra.len ? ra.p[i] : ra.v,
                                        rb.len ? rb.p[j] : rb.v, al, t);
                }
            return sc__out(c, r);
        }
    }
    SC_CHECK(sc__pw_operand_gather(&o[0], ndim, sizes, ct, &ba, c->err));
    SC_CHECK(sc__pw_operand_gather(&o[1], ndim, sizes, ct, &bb, c->err));
    if (ct == SC__CT_F32) {
        float *x = ba, *y = bb;
        float al = (float)alpha, t = (float)th;
        for (k = 0; k < n; k++)
            x[k] = binary_f32(op, x[k], y[k], al, t);
    } else if (ct == SC__CT_F64) {
        double *x = ba, *y = bb;
        for (k = 0; k < n; k++)
            x[k] = binary_f64(op, x[k], y[k], alpha, th);
    } else {
        int64_t *x = ba, *y = bb;
        int64_t al = sc__sat_i64(alpha), t = sc__sat_i64(th);
        if (op == B_DIV_TRUNC || op == B_DIV_FLOOR)
            for (k = 0; k < n; k++)
                if (y[k] == 0) {
                    status = sc__error_set(c->err, SC_ERR_DIV_ZERO,
                                           "integer division by zero");
                    goto fail;
                }
        for (k = 0; k < n; k++)
            x[k] = binary_i64(op, x[k], y[k], al, t);
    }
    SC_CHECK(sc__new(rd, ndim, sizes, &r, c->err));
    sc__scatter(r, ct, ba);
    sc__free(ba);
    sc__free(bb);
    return sc__out(c, r);
fail:
    sc__free(ba);
    sc__free(bb);
    sc_tensor_free(r);
    return status;
}

/* op on the operands at argument indices a and b, scaled by the Scalar
 * argument `alpha` (SC__PW_NO_ALPHA: none). */
/* The value of v in dtype d (f16 or bf16). */
static double round_to(sc_dtype d, double v)
{
    return d == SC_DTYPE_BF16 ? sc_bf16_to_f32(sc_f32_to_bf16((float)v))
                              : sc_f16_to_f32(sc_f32_to_f16((float)v));
}

/* add, sub and rsub of an f16/bf16 result take their scalar operand (a
 * Python number, or a 0-d tensor of another dtype) and alpha in the
 * result's dtype before computing in float, as PyTorch's CPU kernels do
 * (x_bf16 + 0.7 adds bf16(0.7) = 0.69921875); mul and div keep the
 * scalar in float. */
static sc_status round_add_scalars(sc__kernel_call *c, sc__pw_operand *o,
                                   double *alpha)
{
    sc_dtype rd;
    size_t k;
    SC_TRY(sc__pw_result_dtype(2, o, &rd, c->err));
    if (rd != SC_DTYPE_BF16 && rd != SC_DTYPE_F16)
        return SC_OK;
    for (k = 0; k < 2; k++) {
        if (o[k].t && o[k].t->ndim == 0 && o[k].t->dtype != rd &&
            o[1 - k].t && o[1 - k].t->ndim > 0) {
            o[k].f = sc_tensor_item_double(o[k].t, 0);
            o[k].t = NULL;
            o[k].kind = SC_OPERAND_FLOAT;
        }
        if (!o[k].t && o[k].kind != SC_OPERAND_BOOL) {
            o[k].f = round_to(rd, o[k].f);
            o[k].i = sc__sat_i64(o[k].f);
            o[k].kind = SC_OPERAND_FLOAT;
        }
    }
    *alpha = round_to(rd, *alpha);
    return SC_OK;
}

sc_status sc__pw_binary_kernel(sc__kernel_call *c, sc__pw_binop op,
                               size_t a, size_t b, size_t alpha_arg)
{
    sc__pw_operand o[2];
    double alpha = 1;
    SC_TRY(sc__pw_get_operand(c, a, &o[0]));
    SC_TRY(sc__pw_get_operand(c, b, &o[1]));
    if (alpha_arg != SC__PW_NO_ALPHA && !sc__arg_is_none(c, alpha_arg))
        SC_TRY(sc__arg_double(c, alpha_arg, &alpha));
    if (o[0].t == NULL && o[1].t == NULL)
        return sc__error_set(c->err, SC_ERR_TYPE,
                             "at least one sc__pw_operand must be a tensor");
    if (op == B_ADD || op == B_SUB || op == B_RSUB)
        SC_TRY(round_add_scalars(c, o, &alpha));
    return sc__pw_run_binary(c, op, o, alpha, 0, false);
}

/* add(Tensor self, Tensor|Scalar other, *, Scalar alpha=1) */
sc_status sc__kernel_add(sc__kernel_call *call)
{
    return sc__pw_binary_kernel(call, B_ADD, SC_KARG_ADD_TENSOR_SELF,
                                SC_KARG_ADD_TENSOR_OTHER, SC_KARG_ADD_TENSOR_ALPHA);
}

sc_status sc__kernel_sub(sc__kernel_call *call)
{
    return sc__pw_binary_kernel(call, B_SUB, SC_KARG_SUB_TENSOR_SELF,
                                SC_KARG_SUB_TENSOR_OTHER, SC_KARG_SUB_TENSOR_ALPHA);
}

/* rsub(Tensor self, Tensor|Scalar other, *, Scalar alpha=1):
 * other - alpha * self. */
sc_status sc__kernel_rsub(sc__kernel_call *call)
{
    return sc__pw_binary_kernel(call, B_RSUB, SC_KARG_RSUB_SCALAR_SELF,
                                SC_KARG_RSUB_SCALAR_OTHER, SC_KARG_RSUB_SCALAR_ALPHA);
}

sc_status sc__kernel_mul(sc__kernel_call *call)
{
    return sc__pw_binary_kernel(call, B_MUL, SC_KARG_MUL_TENSOR_SELF,
                                SC_KARG_MUL_TENSOR_OTHER, SC__PW_NO_ALPHA);
}

/* div(Tensor self, Tensor|Scalar other, *, str? rounding_mode=None) */
sc_status sc__kernel_div(sc__kernel_call *call)
{
    sc__pw_binop op = B_DIV;
    if (!sc__arg_is_none(call, SC_KARG_DIV_TENSOR_MODE_ROUNDING_MODE)) {
        const sc__karg *mode =
            &call->args[SC_KARG_DIV_TENSOR_MODE_ROUNDING_MODE];
        const char *m;
        if (mode->kind != SC__KARG_STR)
            return sc__error_set(call->err, SC_ERR_TYPE,
                                 "div: rounding_mode must be a string");
        m = mode->u.s;
        if (strcmp(m, "trunc") == 0)
            op = B_DIV_TRUNC;
        else if (strcmp(m, "floor") == 0)
            op = B_DIV_FLOOR;
        else
            return sc__error_set(call->err, SC_ERR_INVALID,
                                 "div: unknown rounding_mode '%s'", m);
    }
    return sc__pw_binary_kernel(call, op, SC_KARG_DIV_TENSOR_MODE_SELF,
                                SC_KARG_DIV_TENSOR_MODE_OTHER, SC__PW_NO_ALPHA);
}

/* pow(Tensor|Scalar self, Tensor|Scalar exponent) */
sc_status sc__kernel_pow(sc__kernel_call *call)
{
    return sc__pw_binary_kernel(call, B_POW, SC_KARG_POW_TENSOR_TENSOR_SELF,
                                SC_KARG_POW_TENSOR_TENSOR_EXPONENT, SC__PW_NO_ALPHA);
}


/* op on the two tensor arguments at indices a and b. */
sc_status sc__pw_backward_kernel(sc__kernel_call *c, sc__pw_binop op,
                                 size_t a, size_t b)
{
    sc__pw_operand o[2];
    SC_TRY(sc__pw_get_operand(c, a, &o[0]));
    SC_TRY(sc__pw_get_operand(c, b, &o[1]));
    if (!o[0].t || !o[1].t)
        return sc__error_set(c->err, SC_ERR_TYPE,
                             "backward ops take two tensors");
    return sc__pw_run_binary(c, op, o, 1, 0, true);
}

/* clamp(Tensor self, Scalar? min=None, Scalar? max=None): min(max(x, lo),
 * hi) with NaN kept (a NaN x stays NaN; a NaN bound gives NaN); lo > hi
 * gives hi, as PyTorch.  The dtype is result_type(self, min, max); at
 * least one bound is required. */
sc_status sc__kernel_clamp(sc__kernel_call *call)
{
    sc__pw_operand o[3];
    bool has_lo, has_hi;
    size_t n, k, no = 1;
    sc_dtype rd;
    sc__ctype ct;
    void *buf = NULL;
    sc_tensor *r = NULL;
    sc_status status;

    SC_CHECK(sc__pw_get_operand(call, SC_KARG_CLAMP_SELF, &o[0]));
    if (!o[0].t)
        return sc__error_set(call->err, SC_ERR_TYPE,
                             "clamp: self must be a tensor");
    has_lo = !sc__arg_is_none(call, SC_KARG_CLAMP_MIN);
    has_hi = !sc__arg_is_none(call, SC_KARG_CLAMP_MAX);
    if (!has_lo && !has_hi)
        return sc__error_set(call->err, SC_ERR_INVALID,
                             "clamp: at least one of 'min' or 'max' must "
                             "not be None");
    if (has_lo)
        SC_CHECK(sc__pw_get_operand(call, SC_KARG_CLAMP_MIN, &o[no++]));
    if (has_hi)
        SC_CHECK(sc__pw_get_operand(call, SC_KARG_CLAMP_MAX, &o[no++]));
    SC_CHECK(sc__pw_result_dtype(no, o, &rd, call->err));
    if (rd == SC_DTYPE_B8)
        return sc__error_set(call->err, SC_ERR_TYPE,
                             "clamp is not supported on bool tensors");
    ct = sc__ctype_of(rd);
    SC_CHECK(sc__gather(o[0].t, o[0].t->ndim, o[0].t->sizes, ct, &buf,
                        call->err));
    n = sc_tensor_numel(o[0].t);
    {
        const sc__pw_operand *lo = has_lo ? &o[1] : NULL;
        const sc__pw_operand *hi = has_hi ? &o[no - 1] : NULL;
        if (ct == SC__CT_F32) {
            float *v = buf, l = lo ? (float)lo->f : 0, h = hi ? (float)hi->f
                                                              : 0;
            for (k = 0; k < n; k++) {
                float x = v[k];
                if (x != x)
                    continue;
                if (lo)
                    x = l != l ? l : x < l ? l : x;
                if (hi)
                    x = h != h ? h : x > h ? h : x;
                v[k] = x;
            }
        } else if (ct == SC__CT_F64) {
            double *v = buf, l = lo ? lo->f : 0, h = hi ? hi->f : 0;
            for (k = 0; k < n; k++) {
                double x = v[k];
                if (x != x)
                    continue;
                if (lo)
                    x = l != l ? l : x < l ? l : x;
                if (hi)
                    x = h != h ? h : x > h ? h : x;
                v[k] = x;
            }
        } else {
            int64_t *v = buf, l = lo ? lo->i : 0, h = hi ? hi->i : 0;
            for (k = 0; k < n; k++) {
                if (lo && v[k] < l)
                    v[k] = l;
                if (hi && v[k] > h)
                    v[k] = h;
            }
        }
    }
    SC_CHECK(sc__new(rd, o[0].t->ndim, o[0].t->sizes, &r, call->err));
    sc__scatter(r, ct, buf);
    sc__free(buf);
    return sc__out(call, r);
fail:
    sc__free(buf);
    sc_tensor_free(r);
    return status;
}

/* native_dropout_backward(Tensor grad_output, Tensor mask, float scale):
 * grad_output * (mask * scale), the mask converted to grad's dtype first,
 * as PyTorch. */
sc_status sc__kernel_native_dropout_backward(sc__kernel_call *call)
{
    const sc_tensor *g, *m;
    double scale;
    sc__ctype ct;
    void *bg = NULL, *bm = NULL;
    sc_tensor *r = NULL;
    size_t n, k;
    sc_status status;

    SC_CHECK(sc__arg_tensor(call, SC_KARG_NATIVE_DROPOUT_BACKWARD_GRAD_OUTPUT,
                            &g));
    SC_CHECK(sc__arg_tensor(call, SC_KARG_NATIVE_DROPOUT_BACKWARD_MASK, &m));
    SC_CHECK(sc__arg_double(call, SC_KARG_NATIVE_DROPOUT_BACKWARD_SCALE,
                            &scale));
    if (!sc__dtype_is_float(g->dtype))
        return sc__error_set(call->err, SC_ERR_TYPE,
                             "native_dropout_backward needs a floating "
                             "grad_output");
    ct = sc__ctype_of(g->dtype);
    SC_CHECK(sc__gather(g, g->ndim, g->sizes, ct, &bg, call->err));
    SC_CHECK(sc__gather(m, g->ndim, g->sizes, ct, &bm, call->err));
    n = sc_tensor_numel(g);
    if (ct == SC__CT_F32) {
        float *x = bg, *y = bm, s = (float)scale;
        for (k = 0; k < n; k++) {
            float ms = y[k] * s;
            if (g->dtype != SC_DTYPE_F32) /* mask * scale in grad's dtype */
                ms = g->dtype == SC_DTYPE_F16 ? sc_f16_to_f32(sc_f32_to_f16(ms))
                                              : sc_bf16_to_f32(
                                                    sc_f32_to_bf16(ms));
            x[k] = x[k] * ms;
        }
    } else {
        double *x = bg, *y = bm;
        for (k = 0; k < n; k++)
            x[k] = x[k] * (y[k] * scale);
    }
    SC_CHECK(sc__new(g->dtype, g->ndim, g->sizes, &r, call->err));
    sc__scatter(r, ct, bg);
    sc__free(bg);
    sc__free(bm);
    return sc__out(call, r);
fail:
    sc__free(bg);
    sc__free(bm);
    sc_tensor_free(r);
    return status;
}
