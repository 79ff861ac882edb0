/* symcut — kernels: reductions (sum, mean, amax, amin, sum_to_size),
 * softmax and log-softmax with their backward.
 *
 * Determinism: every reduction visits the reduced elements of one output
 * element in row-major order of the input, accumulating sequentially (in
 * double for floating types, in wrapping int64 for integers), whatever
 * the strides of the input. */
#include <math.h>

#include "kernels/kernels-internal.h"

/* ---- Reduction layout ----------------------------------------------------- */

typedef enum redop { R_SUM, R_MEAN, R_AMAX, R_AMIN } redop;

typedef struct rlayout {
    size_t outer;        /* number of output elements */
    size_t inner;        /* number of reduced elements per output */
    size_t out_ndim;
    int64_t out_sizes[SC_TENSOR_MAX_DIMS];
    size_t kept;         /* the number of kept dims (first in perm) */
    sc_tensor *perm;     /* x permuted: kept dims first, reduced last */
} rlayout;

/* Reduce x over dims (n of them; n == 0 or dims NULL: all dims). */
static sc_status rlayout_init(rlayout *L, const sc_tensor *x, size_t n,
                              const int64_t *dims, bool keepdim,
                              sc_error *err)
{
    bool red[SC_TENSOR_MAX_DIMS] = {false};
    int64_t perm[SC_TENSOR_MAX_DIMS];
    size_t i, d, k = 0;

    L->perm = NULL;
    if (n == 0 || !dims) {
        for (i = 0; i < x->ndim; i++)
            red[i] = true;
    } else {
        for (i = 0; i < n; i++) {
            SC_TRY(sc__wrap_dim(dims[i], x->ndim, &d, err));
            if (x->ndim && red[d])
                return sc__error_set(err, SC_ERR_INVALID,
                                     "dimension %zu appears twice in the "
                                     "reduction list", d);
            if (x->ndim)
                red[d] = true;
        }
    }
    L->outer = L->inner = 1;
    L->out_ndim = 0;
    for (i = 0; i < x->ndim; i++)
        if (!red[i]) {
            perm[k++] = (int64_t)i;
            L->outer *= (size_t)x->sizes[i];
            L->out_sizes[L->out_ndim++] = x->sizes[i];
        } else if (keepdim) {
            L->out_sizes[L->out_ndim++] = 1;
        }
    L->kept = k;
    for (i = 0; i < x->ndim; i++)
        if (red[i]) {
            perm[k++] = (int64_t)i;
            L->inner *= (size_t)x->sizes[i];
        }
    return sc_tensor_permute(x, perm, &L->perm, err);
}

/* Are dims [d0, d1) of t dense with step `unit` (in elements): the
 * row-major index over them times unit is the offset? */
static bool dense_run(const sc_tensor *t, size_t d0, size_t d1, int64_t unit)
{
    int64_t expected = unit;
    size_t d;
    for (d = d1; d-- > d0;) {
        if (t->sizes[d] == 1)
            continue;
        if (t->strides[d] != expected)
            return false;
        expected *= t->sizes[d];
    }
    return true;
}

/* One step of a floating reduction (NaN propagates through amax/amin). */
static inline double red_step(redop op, double acc, double e)
{
    if (op == R_SUM || op == R_MEAN)
        return acc + e;
    if (e != e || acc != acc)
        return acc != acc ? acc : e;
    return (op == R_AMAX ? e > acc : e < acc) ? e : acc;
}

/* The floating reduction of L.perm (float32 or float64) read in place
 * when its layout allows: reduced elements adjacent (each output's run
 * read in order) or kept elements adjacent (the input read row after row,
 * one accumulator per output: each accumulator still takes its elements
 * in row-major order, so the sums are the same).  res holds L.outer
 * accumulators; false when the layout is neither (the caller gathers). */
static bool reduce_in_place(const rlayout *L, redop op, double init,
                            double *res)
{
    const sc_tensor *p = L->perm;
    bool f32 = p->dtype == SC_DTYPE_F32;
    const float *bf = sc_tensor_data(p);
    const double *bd = sc_tensor_data(p);
    size_t o, k;

    if (p->dtype != SC_DTYPE_F32 && p->dtype != SC_DTYPE_F64)
        return false;
    if (dense_run(p, 0, L->kept, (int64_t)L->inner) &&
        dense_run(p, L->kept, p->ndim, 1)) {
        for (o = 0; o < L->outer; o++) {
            double acc = init;
            if (f32)
                for (k = 0; k < L->inner; k++)
                    acc = red_step(op, acc, bf[o * L->inner + k]);
            else
                for (k = 0; k < L->inner; k++)
                    acc = red_step(op, acc, bd[o * L->inner + k]);
            res[o] = acc;
        }
        return true;
    }
    if (dense_run(p, 0, L->kept, 1) &&
        dense_run(p, L->kept, p->ndim, (int64_t)L->outer)) {
        for (o = 0; o < L->outer; o++)
            res[o] = init;
        for (k = 0; k < L->inner; k++) {
            if (f32 && (op == R_SUM || op == R_MEAN))
                for (o = 0; o < L->outer; o++)
                    res[o] += bf[k * L->outer + o];
            else if (f32)
                for (o = 0; o < L->outer; o++)
                    res[o] = red_step(op, res[o], bf[k * L->outer + o]);
            else
                for (o = 0; o < L->outer; o++)
                    res[o] = red_step(op, res[o], bd[k * L->outer + o]);
        }
        return true;
    }
    return false;
}

/* The optional dtype argument at position i (NONE: keep `dflt`). */
static sc_status opt_dtype(sc__kernel_call *c, size_t i, sc_dtype dflt,
                           sc_dtype *out)
{
    *out = dflt;
    if (sc__arg_is_none(c, i))
        return SC_OK;
    if (c->args[i].kind != SC__KARG_DTYPE)
        return sc__error_set(c->err, SC_ERR_TYPE,
                             "kernel argument %zu: expected a dtype", i);
    if (!sc_tensor_dtype_supported(c->args[i].u.dtype))
        return sc__error_set(c->err, SC_ERR_UNSUPPORTED,
                             "unsupported dtype");
    *out = c->args[i].u.dtype;
    return SC_OK;
}

/* An argument a reduction's op does not have. */
#define NO_ARG SIZE_MAX

/* The argument indices of a reduction: (self, dtype) for the `.default`
 * forms of sum and mean, (self, dim, keepdim, dtype) for their `.dim`
 * forms, (self, dim, keepdim) for amax. */
typedef struct reduce_args {
    size_t self, dim, keepdim, dtype;
} reduce_args;

static sc_status run_reduce(sc__kernel_call *c, redop op, reduce_args a)
{
    const sc_tensor *x;
    const int64_t *dims = NULL;
    size_t ndims = 0, o, k;
    bool keepdim = false, dim_form = a.dim != NO_ARG;
    sc_dtype rd;
    sc__ctype ct;
    rlayout L = {0};
    void *buf = NULL;
    void *res = NULL;
    sc_tensor *r = NULL;
    sc_status status;

    SC_CHECK(sc__arg_tensor(c, a.self, &x));
    if (dim_form) {
        if (!sc__arg_is_none(c, a.dim))
            SC_CHECK(sc__arg_ints(c, a.dim, &ndims, &dims));
        if (!sc__arg_is_none(c, a.keepdim))
            SC_CHECK(sc__arg_bool(c, a.keepdim, &keepdim));
    }
    if (op == R_SUM)
        SC_CHECK(opt_dtype(c, a.dtype,
                           sc__dtype_is_float(x->dtype) ? x->dtype
                                                        : SC_DTYPE_I64,
                           &rd));
    else if (op == R_MEAN)
        SC_CHECK(opt_dtype(c, a.dtype, x->dtype, &rd));
    else
        rd = x->dtype;
    if (op == R_MEAN && !sc__dtype_is_float(rd))
        return sc__error_set(c->err, SC_ERR_TYPE,
                             "mean needs a floating dtype");
    SC_CHECK(rlayout_init(&L, x, ndims, dims, keepdim, c->err));
    if ((op == R_AMAX || op == R_AMIN) && L.inner == 0 && L.outer > 0) {
        status = sc__error_set(c->err, SC_ERR_SHAPE,
                               "amax/amin of an empty reduction");
        goto fail;
    }
    ct = sc__dtype_is_float(rd) || sc__dtype_is_float(x->dtype) ? SC__CT_F64
                                                     : SC__CT_I64;
    res = sc__malloc(L.outer ? L.outer * 8 : 1);
    if (!res) {
        status = sc__error_nomem(c->err);
        goto fail;
    }
    if (ct == SC__CT_F64 &&
        reduce_in_place(&L, op,
                        op == R_AMAX ? -INFINITY
                        : op == R_AMIN ? INFINITY : 0.0,
                        res)) {
        for (o = 0; o < L.outer; o++) {
            double acc = ((double *)res)[o];
            if (op == R_MEAN)
                acc /= (double)L.inner;
            if (rd == SC_DTYPE_F32 || rd == SC_DTYPE_F16 ||
                rd == SC_DTYPE_BF16)
                acc = (double)(float)acc;
            ((double *)res)[o] = acc;
        }
        goto done;
    }
    SC_CHECK(sc__gather(L.perm, L.perm->ndim, L.perm->sizes, ct, &buf,
                        c->err));
    for (o = 0; o < L.outer; o++) {
        if (ct == SC__CT_F64) {
            const double *v = (const double *)buf + o * L.inner;
            double acc = op == R_AMAX ? -INFINITY
                         : op == R_AMIN ? INFINITY : 0.0;
            for (k = 0; k < L.inner; k++)
                acc = red_step(op, acc, v[k]);
            if (op == R_MEAN)
                acc /= (double)L.inner;
            if (rd == SC_DTYPE_F32 || rd == SC_DTYPE_F16 ||
                rd == SC_DTYPE_BF16)
                acc = (double)(float)acc;
            ((double *)res)[o] = acc;
        } else {
            const int64_t *v = (const int64_t *)buf + o * L.inner;
            uint64_t acc = 0;
            int64_t m = op == R_AMAX ? INT64_MIN : INT64_MAX;
            for (k = 0; k < L.inner; k++) {
                acc += (uint64_t)v[k];
                if (op == R_AMAX ? v[k] > m : v[k] < m)
                    m = v[k];
            }
            ((int64_t *)res)[o] = op == R_SUM ? (int64_t)acc : m;
        }
    }
done:
    SC_CHECK(sc__new(rd, L.out_ndim, L.out_sizes, &r, c->err));
    sc__scatter(r, ct, res);
    sc__free(res);
    sc__free(buf);
    sc_tensor_free(L.perm);
    return sc__out(c, r);
fail:
    sc__free(res);
    sc__free(buf);
    sc_tensor_free(L.perm);
    sc_tensor_free(r);
    return status;
}

/* The arguments of the `.default` form (K: SUM, MEAN) and of the `.dim`
 * form (K: SUM_DIM, MEAN_DIM) of a reduction. */
#define REDUCE_ARGS_DEFAULT(K)                                               \
    ((reduce_args){SC_KARG_##K##_SELF, NO_ARG, NO_ARG, SC_KARG_##K##_DTYPE})
#define REDUCE_ARGS_DIM(K)                                                   \
    ((reduce_args){SC_KARG_##K##_SELF, SC_KARG_##K##_DIM,                    \
                   SC_KARG_##K##_KEEPDIM, SC_KARG_##K##_DTYPE})

/* sum.default(self, *, dtype) and, as sum_dim, sum.dim_IntList. */
sc_status sc__kernel_sum(sc__kernel_call *call)
{
    if (call->nargs >= 3)
        return run_reduce(call, R_SUM, REDUCE_ARGS_DIM(SUM_DIM));
    return run_reduce(call, R_SUM, REDUCE_ARGS_DEFAULT(SUM));
}

/* mean.default(self, *, dtype) and, as mean_dim, mean.dim. */
sc_status sc__kernel_mean(sc__kernel_call *call)
{
    if (call->nargs >= 3)
        return run_reduce(call, R_MEAN, REDUCE_ARGS_DIM(MEAN_DIM));
    return run_reduce(call, R_MEAN, REDUCE_ARGS_DEFAULT(MEAN));
}

sc_status sc__kernel_amax(sc__kernel_call *call)
{
    return run_reduce(call, R_AMAX,
                      (reduce_args){SC_KARG_AMAX_SELF, SC_KARG_AMAX_DIM,
                                    SC_KARG_AMAX_KEEPDIM, NO_ARG});
}

/* amin has no entry in graph/ops.yaml; its schema is amax's (self, dim,
 * keepdim), read through amax's constants. */
sc_status sc__kernel_amin(sc__kernel_call *call)
{
    return run_reduce(call, R_AMIN,
                      (reduce_args){SC_KARG_AMAX_SELF, SC_KARG_AMAX_DIM,
                                    SC_KARG_AMAX_KEEPDIM, NO_ARG});
}

/* ---- Row helpers: a dim moved last ------------------------------------------ */

/* A view of t with dimension d moved to the end. */
static sc_status dim_last(const sc_tensor *t, size_t d, sc_tensor **out,
                          sc_error *err)
{
    int64_t perm[SC_TENSOR_MAX_DIMS];
    size_t i, k = 0;
    for (i = 0; i < t->ndim; i++)
        if (i != d)
            perm[k++] = (int64_t)i;
    if (t->ndim)
        perm[k] = (int64_t)d;
    return sc_tensor_permute(t, perm, out, err);
}

/* Gather t (dim d last) into float or double rows. */
static sc_status gather_rows(const sc_tensor *t, size_t d, sc__ctype ct,
                             void **buf, sc_error *err)
{
    sc_tensor *v = NULL;
    sc_status status;
    SC_TRY(dim_last(t, d, &v, err));
    status = sc__gather(v, v->ndim, v->sizes, ct, buf, err);
    sc_tensor_free(v);
    return status;
}

/* Store rows (dim d last) into r. */
static sc_status scatter_rows(sc_tensor *r, size_t d, sc__ctype ct,
                              const void *buf, sc_error *err)
{
    sc_tensor *v = NULL;
    SC_TRY(dim_last(r, d, &v, err));
    sc__scatter(v, ct, buf);
    sc_tensor_free(v);
    return SC_OK;
}

/* _softmax / _log_softmax(Tensor self, int dim, bool half_to_float), the
 * arguments read as SC_KARG_SOFTMAX_* (sc__kernel_log_softmax asserts
 * that SC_KARG_LOG_SOFTMAX_* are the same). */
static sc_status softmax_rows(sc__kernel_call *c, const sc_tensor *x,
                              int64_t dim, sc_dtype rd, bool log_mode,
                              bool safe);

static sc_status run_softmax(sc__kernel_call *c, bool log_mode)
{
    const sc_tensor *x;
    int64_t dim;
    bool h2f = false;

    SC_TRY(sc__arg_tensor(c, SC_KARG_SOFTMAX_SELF, &x));
    SC_TRY(sc__arg_int(c, SC_KARG_SOFTMAX_DIM, &dim));
    if (!sc__arg_is_none(c, SC_KARG_SOFTMAX_HALF_TO_FLOAT))
        SC_TRY(sc__arg_bool(c, SC_KARG_SOFTMAX_HALF_TO_FLOAT, &h2f));
    return softmax_rows(c, x, dim,
                        h2f && x->dtype == SC_DTYPE_F16 ? SC_DTYPE_F32
                                                        : x->dtype,
                        log_mode, false);
}

/* _safe_softmax(Tensor self, int dim, ScalarType? dtype=None): softmax,
 * with 0 for a row of only -inf (instead of NaN); dtype converts self
 * first. */
sc_status sc__kernel_safe_softmax(sc__kernel_call *call)
{
    const sc_tensor *x;
    int64_t dim;
    sc_dtype rd;

    SC_TRY(sc__arg_tensor(call, SC_KARG_SAFE_SOFTMAX_SELF, &x));
    SC_TRY(sc__arg_int(call, SC_KARG_SAFE_SOFTMAX_DIM, &dim));
    SC_TRY(sc__arg_dtype(call, SC_KARG_SAFE_SOFTMAX_DTYPE, x->dtype, &rd));
    return softmax_rows(call, x, dim, rd, false, true);
}

/* softmax of x along dim, in x's precision, stored as rd. */
static sc_status softmax_rows(sc__kernel_call *c, const sc_tensor *x,
                              int64_t dim, sc_dtype rd, bool log_mode,
                              bool safe)
{
    size_t d, rows, len, i, k;
    sc__ctype ct;
    void *buf = NULL;
    sc_tensor *r = NULL;
    sc_status status;

    SC_CHECK(sc__arg_float_check(c, x, "softmax"));
    SC_CHECK(sc__wrap_dim(dim, x->ndim, &d, c->err));
    ct = sc__ctype_of(x->dtype);
    len = x->ndim ? (size_t)x->sizes[d] : 1;
    rows = len ? sc_tensor_numel(x) / len : 0;
    SC_CHECK(gather_rows(x, d, ct, &buf, c->err));
    for (i = 0; i < rows; i++) {
        if (ct == SC__CT_F32) {
            float *v = (float *)buf + i * len, m = -INFINITY;
            double s = 0;
            for (k = 0; k < len; k++)
                m = v[k] > m || v[k] != v[k] ? v[k] : m;
            if (safe && m == -INFINITY) {
                memset(v, 0, len * sizeof *v);
                continue;
            }
            for (k = 0; k < len; k++)
                s += expf(v[k] - m);
            for (k = 0; k < len; k++)
                v[k] = log_mode ? v[k] - m - logf((float)s)
                                : expf(v[k] - m) / (float)s;
        } else {
            double *v = (double *)buf + i * len, m = -INFINITY, s = 0;
            for (k = 0; k < len; k++)
                m = v[k] > m || v[k] != v[k] ? v[k] : m;
            if (safe && m == -INFINITY) {
                memset(v, 0, len * sizeof *v);
                continue;
            }
            for (k = 0; k < len; k++)
                s += exp(v[k] - m);
            for (k = 0; k < len; k++)
                v[k] = log_mode ? v[k] - m - log(s) : exp(v[k] - m) / s;
        }
    }
    SC_CHECK(sc__new(rd, x->ndim, x->sizes, &r, c->err));
    SC_CHECK(scatter_rows(r, d, ct, buf, c->err));
    sc__free(buf);
    return sc__out(c, r);
fail:
    sc__free(buf);
    sc_tensor_free(r);
    return status;
}

sc_status sc__kernel_softmax(sc__kernel_call *call)
{
    return run_softmax(call, false);
}

sc_status sc__kernel_log_softmax(sc__kernel_call *call)
{
    _Static_assert(SC_KARG_LOG_SOFTMAX_SELF == SC_KARG_SOFTMAX_SELF &&
                       SC_KARG_LOG_SOFTMAX_DIM == SC_KARG_SOFTMAX_DIM &&
                       SC_KARG_LOG_SOFTMAX_HALF_TO_FLOAT ==
                           SC_KARG_SOFTMAX_HALF_TO_FLOAT,
                   "_log_softmax reads its arguments as _softmax");
    return run_softmax(call, true);
}

/* _softmax_backward_data / _log_softmax_backward_data(Tensor grad_output,
 * Tensor output, int dim, ScalarType input_dtype), the arguments read as
 * SC_KARG_SOFTMAX_BACKWARD_DATA_* (the log form asserts its own agree). */
static sc_status run_softmax_bwd(sc__kernel_call *c, bool log_mode)
{
    const sc_tensor *g, *y;
    int64_t dim;
    size_t d, rows, len, i, k;
    sc_dtype rd;
    sc__ctype ct;
    void *bg = NULL, *by = NULL;
    sc_tensor *r = NULL;
    sc_status status;

    SC_CHECK(sc__arg_tensor(c, SC_KARG_SOFTMAX_BACKWARD_DATA_GRAD_OUTPUT, &g));
    SC_CHECK(sc__arg_tensor(c, SC_KARG_SOFTMAX_BACKWARD_DATA_OUTPUT, &y));
    SC_CHECK(sc__arg_int(c, SC_KARG_SOFTMAX_BACKWARD_DATA_DIM, &dim));
    SC_CHECK(opt_dtype(c, SC_KARG_SOFTMAX_BACKWARD_DATA_INPUT_DTYPE, g->dtype,
                       &rd));
    SC_CHECK(sc__arg_float_check(c, g, "softmax backward"));
    if (!sc_tensor_same_shape(g, y))
        return sc__error_set(c->err, SC_ERR_SHAPE,
                             "softmax backward: grad and output shapes "
                             "differ");
    SC_CHECK(sc__wrap_dim(dim, g->ndim, &d, c->err));
    ct = sc__ctype_of(g->dtype) == SC__CT_F64 ? SC__CT_F64 : SC__CT_F32;
    len = g->ndim ? (size_t)g->sizes[d] : 1;
    rows = len ? sc_tensor_numel(g) / len : 0;
    SC_CHECK(gather_rows(g, d, ct, &bg, c->err));
    SC_CHECK(gather_rows(y, d, ct, &by, c->err));
    for (i = 0; i < rows; i++) {
        if (ct == SC__CT_F32) {
            float *gv = (float *)bg + i * len, *yv = (float *)by + i * len;
            double s = 0;
            for (k = 0; k < len; k++)
                s += log_mode ? gv[k] : gv[k] * yv[k];
            for (k = 0; k < len; k++)
                gv[k] = log_mode ? gv[k] - expf(yv[k]) * (float)s
                                 : yv[k] * (gv[k] - (float)s);
        } else {
            double *gv = (double *)bg + i * len, *yv = (double *)by + i * len;
            double s = 0;
            for (k = 0; k < len; k++)
                s += log_mode ? gv[k] : gv[k] * yv[k];
            for (k = 0; k < len; k++)
                gv[k] = log_mode ? gv[k] - exp(yv[k]) * s
                                 : yv[k] * (gv[k] - s);
        }
    }
    SC_CHECK(sc__new(rd, g->ndim, g->sizes, &r, c->err));
    SC_CHECK(scatter_rows(r, d, ct, bg, c->err));
    sc__free(bg);
    sc__free(by);
    return sc__out(c, r);
fail:
    sc__free(bg);
    sc__free(by);
    sc_tensor_free(r);
    return status;
}

sc_status sc__kernel_softmax_backward_data(sc__kernel_call *call)
{
    return run_softmax_bwd(call, false);
}

sc_status sc__kernel_log_softmax_backward_data(sc__kernel_call *call)
{
    _Static_assert(
        SC_KARG_LOG_SOFTMAX_BACKWARD_DATA_GRAD_OUTPUT ==
                SC_KARG_SOFTMAX_BACKWARD_DATA_GRAD_OUTPUT &&
            SC_KARG_LOG_SOFTMAX_BACKWARD_DATA_OUTPUT ==
                SC_KARG_SOFTMAX_BACKWARD_DATA_OUTPUT &&
            SC_KARG_LOG_SOFTMAX_BACKWARD_DATA_DIM ==
                SC_KARG_SOFTMAX_BACKWARD_DATA_DIM &&
            SC_KARG_LOG_SOFTMAX_BACKWARD_DATA_INPUT_DTYPE ==
                SC_KARG_SOFTMAX_BACKWARD_DATA_INPUT_DTYPE,
        "_log_softmax_backward_data reads its arguments as "
        "_softmax_backward_data");
    return run_softmax_bwd(call, true);
}

/* sum_to_size(Tensor self, SymInt[] size): self summed over its leading
 * dims and the dims where size is 1 and self's is not, to `size` (which
 * self must broadcast to); an alias of self when nothing is summed.  The
 * dtype is sum's (integers give int64). */
sc_status sc__kernel_sum_to_size(sc__kernel_call *call)
{
    const sc_tensor *x;
    const int64_t *size;
    int64_t dims[SC_TENSOR_MAX_DIMS];
    size_t n, nd = 0, i, lead;
    sc__karg args[SC_KARG_SUM_DIM_DTYPE + 1];
    sc__kernel_call sub;
    sc_tensor *outs[1] = {NULL}, *r = NULL;
    sc_status status;

    SC_TRY(sc__arg_tensor(call, SC_KARG_SUM_TO_SIZE_SELF, &x));
    SC_TRY(sc__arg_ints(call, SC_KARG_SUM_TO_SIZE_SIZE, &n, &size));
    if (n > x->ndim)
        return sc__error_set(call->err, SC_ERR_SHAPE,
                             "sum_to_size: size has %zu dims, self only %zu",
                             n, x->ndim);
    lead = x->ndim - n;
    for (i = 0; i < x->ndim; i++) {
        if (i < lead) {
            dims[nd++] = (int64_t)i;
        } else if (size[i - lead] != x->sizes[i]) {
            if (size[i - lead] != 1)
                return sc__error_set(call->err, SC_ERR_SHAPE,
                                     "sum_to_size: size %lld in dimension "
                                     "%zu is not expandable to %lld",
                                     (long long)size[i - lead], i - lead,
                                     (long long)x->sizes[i]);
            dims[nd++] = (int64_t)i;
        }
    }
    if (nd == 0) {
        SC_TRY(sc_tensor_alias(x, &r, call->err));
        return sc__out(call, r);
    }
    /* sum.dim_IntList(self, dims, keepdim=True, dtype=None) */
    args[SC_KARG_SUM_DIM_SELF].kind = SC__KARG_TENSOR;
    args[SC_KARG_SUM_DIM_SELF].u.t = x;
    args[SC_KARG_SUM_DIM_DIM].kind = SC__KARG_INTS;
    args[SC_KARG_SUM_DIM_DIM].u.ints.n = nd;
    args[SC_KARG_SUM_DIM_DIM].u.ints.v = dims;
    args[SC_KARG_SUM_DIM_KEEPDIM].kind = SC__KARG_BOOL;
    args[SC_KARG_SUM_DIM_KEEPDIM].u.b = true;
    args[SC_KARG_SUM_DIM_DTYPE].kind = SC__KARG_NONE;
    memset(&sub, 0, sizeof sub);
    sub.args = args;
    sub.nargs = sizeof args / sizeof args[0];
    sub.outs = outs;
    sub.max_outs = 1;
    sub.err = call->err;
    SC_TRY(sc__kernel_sum_dim(&sub));
    SC_CHECK(sc_tensor_view(outs[0], n, size, &r, call->err));
    sc_tensor_free(outs[0]);
    return sc__out(call, r);
fail:
    sc_tensor_free(outs[0]);
    return status;
}

/* var_mean.correction(Tensor self, int[1]? dim=None, *, Scalar?
 * correction=None, bool keepdim=False) -> (var, mean): two passes in
 * float64 (the mean, then the squared deviations), the variance divided
 * by max(N - correction, 0) (correction 1 when None). */
sc_status sc__kernel_var_mean(sc__kernel_call *call)
{
    const sc_tensor *x;
    const int64_t *dims = NULL;
    size_t nd = 0, k, i, n, no = 1, nr = 1, ndo = 0;
    bool keepdim, reduced[SC_TENSOR_MAX_DIMS];
    double correction = 1, *bx = NULL, *mean = NULL, *m2 = NULL;
    int64_t osz[SC_TENSOR_MAX_DIMS], ost[SC_TENSOR_MAX_DIMS];
    sc_tensor *outs[2] = {NULL, NULL};
    sc_status status;

    SC_TRY(sc__arg_tensor(call, SC_KARG_VAR_MEAN_SELF, &x));
    if (!sc__arg_is_none(call, SC_KARG_VAR_MEAN_DIM))
        SC_TRY(sc__arg_ints(call, SC_KARG_VAR_MEAN_DIM, &nd, &dims));
    if (!sc__arg_is_none(call, SC_KARG_VAR_MEAN_CORRECTION))
        SC_TRY(sc__arg_double(call, SC_KARG_VAR_MEAN_CORRECTION, &correction));
    SC_TRY(sc__arg_bool(call, SC_KARG_VAR_MEAN_KEEPDIM, &keepdim));
    SC_TRY(sc__arg_float_check(call, x, "var_mean"));
    for (k = 0; k < x->ndim; k++)
        reduced[k] = nd == 0;
    for (k = 0; k < nd; k++) {
        size_t w;
        SC_TRY(sc__wrap_dim(dims[k], x->ndim, &w, call->err));
        if (x->ndim)
            reduced[w] = true;
    }
    for (k = x->ndim; k-- > 0;) {
        ost[k] = (int64_t)no;
        if (reduced[k])
            nr *= (size_t)x->sizes[k];
        else
            no *= (size_t)x->sizes[k];
    }
    for (k = 0; k < x->ndim; k++) {
        if (!reduced[k])
            osz[ndo++] = x->sizes[k];
        else if (keepdim)
            osz[ndo++] = 1;
    }
    n = sc_tensor_numel(x);
    SC_CHECK(sc__gather(x, x->ndim, x->sizes, SC__CT_F64, (void **)&bx,
                        call->err));
    mean = sc__calloc(no + 1, sizeof *mean);
    m2 = sc__calloc(no + 1, sizeof *m2);
    if (!mean || !m2) {
        status = sc__error_nomem(call->err);
        goto fail;
    }
    for (int pass = 0; pass < 2; pass++)
        for (i = 0; i < n; i++) {
            size_t rem = i, o = 0;
            for (k = x->ndim; k-- > 0;) {
                size_t p = rem % (size_t)x->sizes[k];
                rem /= (size_t)x->sizes[k];
                if (!reduced[k])
                    o += p * (size_t)ost[k];
            }
            if (pass == 0)
                mean[o] += bx[i];
            else {
                double dv = bx[i] - mean[o];
                m2[o] += dv * dv;
            }
            if (pass == 0 && i + 1 == n)
                for (o = 0; o < no; o++)
                    mean[o] /= (double)nr;
        }
    {
        double div = (double)nr - correction;
        for (i = 0; i < no; i++)
            m2[i] = m2[i] / (div > 0 ? div : 0);
    }
    SC_CHECK(sc__new(x->dtype, ndo, osz, &outs[0], call->err));
    SC_CHECK(sc__new(x->dtype, ndo, osz, &outs[1], call->err));
    sc__scatter(outs[0], SC__CT_F64, m2);
    sc__scatter(outs[1], SC__CT_F64, mean);
    status = sc__out_n(call, 2, outs);
    outs[0] = outs[1] = NULL;
fail:
    sc_tensor_free(outs[0]);
    sc_tensor_free(outs[1]);
    sc__free(bx);
    sc__free(mean);
    sc__free(m2);
    return status;
}
