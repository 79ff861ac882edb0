/* symcut — kernels: creation ops (zeros, ones, full, empty, empty_strided,
 * the *_like and new_* forms, scalar_tensor, fill.Scalar).
 *
 * Every new tensor is filled, `empty` ones with zeros, so that a graph's
 * outputs never depend on uninitialised memory.  dtype None means float32
 * (PyTorch's default dtype) for the factories, the input's dtype for the
 * *_like and new_* forms; `full` without a dtype infers it from the fill
 * value (bool, int64 or float32), as PyTorch does.  layout, device and
 * pin_memory must describe a strided CPU tensor.  memory_format (a STR):
 * "contiguous_format", "preserve_format" (the default of *_like: keep the
 * input's strides when they are a permutation of a dense layout, else
 * contiguous), "channels_last" (4-d) or "channels_last_3d" (5-d). */
#include <math.h>

#include "kernels/kernels-internal.h"

/* A fill value: an INT, FLOAT or BOOL scalar (or a 0-d tensor). */
typedef struct fill_value {
    sc__karg_kind kind; /* INT, FLOAT or BOOL */
    int64_t i;
    double f;
} fill_value;

static sc_status get_fill(sc__kernel_call *c, size_t i, fill_value *v)
{
    const sc__karg *a = i < c->nargs ? &c->args[i] : NULL;
    if (a && a->kind == SC__KARG_INT) {
        v->kind = SC__KARG_INT;
        v->i = a->u.i;
        v->f = (double)a->u.i;
        return SC_OK;
    }
    if (a && (a->kind == SC__KARG_FLOAT || a->kind == SC__KARG_BOOL)) {
        v->kind = a->kind;
        v->f = a->kind == SC__KARG_FLOAT ? a->u.f : a->u.b;
        v->i = sc__sat_i64(v->f);
        return SC_OK;
    }
    if (a && a->kind == SC__KARG_TENSOR && a->u.t && a->u.t->ndim == 0) {
        const sc_tensor *t = a->u.t;
        v->kind = sc__dtype_is_float(t->dtype) ? SC__KARG_FLOAT
                  : t->dtype == SC_DTYPE_B8 ? SC__KARG_BOOL : SC__KARG_INT;
        v->f = sc_tensor_item_double(t, 0);
        v->i = sc_tensor_item_int64(t, 0);
        return SC_OK;
    }
    return sc__error_set(c->err, SC_ERR_TYPE,
                         "kernel argument %zu: expected a Scalar", i);
}

/* Store v into every element of t's storage (t is freshly made, so its
 * storage holds exactly its elements). */
static void fill_storage(sc_tensor *t, const fill_value *v)
{
    size_t isz = sc_dtype_itemsize(t->dtype), n, k;
    unsigned char *p = t->storage->bytes;
    n = isz ? t->storage->size / isz : 0;
    if (v->kind == SC__KARG_INT && !sc__dtype_is_float(t->dtype))
        for (k = 0; k < n; k++)
            sc__store_i64(p + k * isz, t->dtype, v->i);
    else
        for (k = 0; k < n; k++)
            sc__store_f64(p + k * isz, t->dtype, v->f);
}

/* Dense strides for sizes in the order `order` (order[ndim-1] varies
 * fastest). */
static void dense_strides(size_t ndim, const int64_t *sizes,
                          const size_t *order, int64_t *strides)
{
    int64_t s = 1;
    size_t k;
    for (k = ndim; k-- > 0;) {
        strides[order[k]] = s;
        s *= sizes[order[k]] > 1 ? sizes[order[k]] : 1;
    }
}

/* The strides of a dense tensor whose layout is a permutation of a
 * contiguous one, or false. */
static bool dense_permuted_strides(const sc_tensor *t, int64_t *strides)
{
    size_t order[SC_TENSOR_MAX_DIMS], i, j;
    int64_t expected = 1;
    for (i = 0; i < t->ndim; i++)
        order[i] = i;
    for (i = 1; i < t->ndim; i++) /* stable insertion sort, stride down */
        for (j = i; j > 0 && t->strides[order[j]] > t->strides[order[j - 1]];
             j--) {
            size_t x = order[j];
            order[j] = order[j - 1];
            order[j - 1] = x;
        }
    for (i = t->ndim; i-- > 0;) {
        int64_t s = t->sizes[order[i]];
        if (s == 1)
            continue;
        if (t->strides[order[i]] != expected)
            return false;
        expected *= s;
    }
    dense_strides(t->ndim, t->sizes, order, strides);
    return true;
}

typedef enum memfmt { MF_CONTIGUOUS, MF_PRESERVE, MF_CL, MF_CL3D } memfmt;

static sc_status get_memfmt(sc__kernel_call *c, size_t i, memfmt dflt,
                            memfmt *out)
{
    static const struct {
        const char *name;
        memfmt f;
    } names[] = {{"contiguous_format", MF_CONTIGUOUS},
                 {"preserve_format", MF_PRESERVE},
                 {"channels_last", MF_CL},
                 {"channels_last_3d", MF_CL3D}};
    size_t k;
    *out = dflt;
    if (sc__arg_is_none(c, i))
        return SC_OK;
    if (c->args[i].kind == SC__KARG_STR)
        for (k = 0; k < sizeof names / sizeof names[0]; k++)
            if (strcmp(c->args[i].u.s, names[k].name) == 0) {
                *out = names[k].f;
                return SC_OK;
            }
    return sc__error_set(c->err, SC_ERR_TYPE,
                         "kernel argument %zu: expected a memory format", i);
}

/* A new zero-filled tensor of sizes in memory format f (`like` gives the
 * strides for MF_PRESERVE; NULL: contiguous). */
static sc_status new_in_format(sc__kernel_call *c, sc_dtype d, size_t ndim,
                               const int64_t *sizes, memfmt f,
                               const sc_tensor *like, sc_tensor **out)
{
    int64_t strides[SC_TENSOR_MAX_DIMS];
    size_t order[SC_TENSOR_MAX_DIMS], k;
    if (ndim > SC_TENSOR_MAX_DIMS)
        return sc__error_set(c->err, SC_ERR_INVALID, "too many dims");
    if (f == MF_CL || f == MF_CL3D) {
        size_t want = f == MF_CL ? 4 : 5;
        if (ndim != want)
            return sc__error_set(c->err, SC_ERR_SHAPE,
                                 "%s needs a %zu-d tensor, not %zu-d",
                                 f == MF_CL ? "channels_last"
                                            : "channels_last_3d",
                                 want, ndim);
        order[0] = 0;
        for (k = 2; k < ndim; k++)
            order[k - 1] = k;
        order[ndim - 1] = 1;
        dense_strides(ndim, sizes, order, strides);
        return sc_tensor_new_strided(d, ndim, sizes, strides, out, c->err);
    }
    if (f == MF_PRESERVE && like && !sc_tensor_is_contiguous(like) &&
        dense_permuted_strides(like, strides))
        return sc_tensor_new_strided(d, ndim, sizes, strides, out, c->err);
    return sc_tensor_new(d, ndim, sizes, out, c->err);
}

static sc_status finish(sc__kernel_call *c, sc_tensor *t,
                        const fill_value *v)
{
    if (v)
        fill_storage(t, v);
    return sc__out(c, t);
}

/* size, [fill,] dtype, layout, device, pin_memory[, memory_format] */
/* Where the arguments of a creation op are (self, fill and memory_format
 * only when the op has them); FACTORY_ARGS(K) for kernel K. */
typedef struct factory_args {
    size_t self, size, fill, dtype, layout, device, pin_memory, memory_format;
} factory_args;
#define FACTORY_ARGS(K)                                                      \
    .dtype = SC_KARG_##K##_DTYPE, .layout = SC_KARG_##K##_LAYOUT,            \
    .device = SC_KARG_##K##_DEVICE, .pin_memory = SC_KARG_##K##_PIN_MEMORY

/* zeros, ones, full, empty: a new tensor of the argument `size`. */
static sc_status factory(sc__kernel_call *c, factory_args a, bool has_fill,
                         double constant, bool has_memfmt)
{
    const int64_t *sizes;
    size_t n;
    fill_value v;
    sc_dtype d;
    memfmt f = MF_CONTIGUOUS;
    sc_tensor *t = NULL;

    SC_TRY(sc__arg_ints(c, a.size, &n, &sizes));
    if (has_fill) {
        SC_TRY(get_fill(c, a.fill, &v));
    } else {
        v.kind = SC__KARG_FLOAT;
        v.f = constant;
        v.i = (int64_t)constant;
    }
    SC_TRY(sc__arg_dtype(c, a.dtype,
                         !has_fill || v.kind == SC__KARG_FLOAT
                             ? SC_DTYPE_F32
                         : v.kind == SC__KARG_INT ? SC_DTYPE_I64
                                                  : SC_DTYPE_B8,
                         &d));
    SC_TRY(sc__arg_factory_opts(c, a.layout, a.device, a.pin_memory));
    if (has_memfmt) {
        SC_TRY(get_memfmt(c, a.memory_format, MF_CONTIGUOUS, &f));
        if (f == MF_PRESERVE)
            f = MF_CONTIGUOUS;
    }
    SC_TRY(new_in_format(c, d, n, sizes, f, NULL, &t));
    return finish(c, t, has_fill || constant != 0 ? &v : NULL);
}

/* zeros(SymInt[] size, *, dtype, layout, device, pin_memory) */
sc_status sc__kernel_zeros(sc__kernel_call *call)
{
    return factory(call,
                   (factory_args){.size = SC_KARG_ZEROS_SIZE,
                                  FACTORY_ARGS(ZEROS)},
                   false, 0, false);
}

/* ones(SymInt[] size, *, dtype, layout, device, pin_memory) */
sc_status sc__kernel_ones(sc__kernel_call *call)
{
    return factory(call,
                   (factory_args){.size = SC_KARG_ONES_SIZE,
                                  FACTORY_ARGS(ONES)},
                   false, 1, false);
}

/* full(SymInt[] size, Scalar fill_value, *, dtype, ...) */
sc_status sc__kernel_full(sc__kernel_call *call)
{
    return factory(call,
                   (factory_args){.size = SC_KARG_FULL_SIZE,
                                  .fill = SC_KARG_FULL_FILL_VALUE,
                                  FACTORY_ARGS(FULL)},
                   true, 0, false);
}

/* empty.memory_format(SymInt[] size, *, dtype, layout, device,
 * pin_memory, memory_format): zero-filled. */
sc_status sc__kernel_empty(sc__kernel_call *call)
{
    return factory(call,
                   (factory_args){.size = SC_KARG_EMPTY_SIZE,
                                  .memory_format =
                                      SC_KARG_EMPTY_MEMORY_FORMAT,
                                  FACTORY_ARGS(EMPTY)},
                   false, 0, true);
}

/* empty_strided(SymInt[] size, SymInt[] stride, *, dtype, layout, device,
 * pin_memory): zero-filled. */
sc_status sc__kernel_empty_strided(sc__kernel_call *call)
{
    const int64_t *sizes, *strides;
    size_t n, m, k;
    sc_dtype d;
    sc_tensor *t = NULL;

    SC_TRY(sc__arg_ints(call, SC_KARG_EMPTY_STRIDED_SIZE, &n, &sizes));
    SC_TRY(sc__arg_ints(call, SC_KARG_EMPTY_STRIDED_STRIDE, &m, &strides));
    SC_TRY(sc__arg_dtype(call, SC_KARG_EMPTY_STRIDED_DTYPE, SC_DTYPE_F32,
                         &d));
    SC_TRY(sc__arg_factory_opts(call, SC__FACTORY_OPTS(EMPTY_STRIDED)));
    if (n != m)
        return sc__error_set(call->err, SC_ERR_SHAPE,
                             "empty_strided: %zu sizes but %zu strides", n, m);
    for (k = 0; k < m; k++)
        if (strides[k] < 0)
            return sc__error_set(call->err, SC_ERR_INVALID,
                                 "empty_strided: negative stride %lld",
                                 (long long)strides[k]);
    SC_TRY(sc_tensor_new_strided(d, n, sizes, strides, &t, call->err));
    return sc__out(call, t);
}

/* The *_like ops: self, [fill,] dtype, layout, device, pin_memory,
 * memory_format. */
static sc_status like(sc__kernel_call *c, factory_args a, bool has_fill,
                      double constant)
{
    const sc_tensor *x;
    fill_value v;
    sc_dtype d;
    memfmt f;
    sc_tensor *t = NULL;

    SC_TRY(sc__arg_tensor(c, a.self, &x));
    if (has_fill) {
        SC_TRY(get_fill(c, a.fill, &v));
    } else {
        v.kind = SC__KARG_FLOAT;
        v.f = constant;
        v.i = (int64_t)constant;
    }
    SC_TRY(sc__arg_dtype(c, a.dtype, x->dtype, &d));
    SC_TRY(sc__arg_factory_opts(c, a.layout, a.device, a.pin_memory));
    SC_TRY(get_memfmt(c, a.memory_format, MF_PRESERVE, &f));
    SC_TRY(new_in_format(c, d, x->ndim, x->sizes, f, x, &t));
    return finish(c, t, has_fill || constant != 0 ? &v : NULL);
}

/* The arguments of the *_like op of kernel K. */
#define LIKE_ARGS(K)                                                         \
    ((factory_args){.self = SC_KARG_##K##_SELF,                              \
                    .memory_format = SC_KARG_##K##_MEMORY_FORMAT,            \
                    FACTORY_ARGS(K)})

/* zeros_like(Tensor self, *, dtype, layout, device, pin_memory,
 * memory_format) */
sc_status sc__kernel_zeros_like(sc__kernel_call *call)
{
    return like(call, LIKE_ARGS(ZEROS_LIKE), false, 0);
}

sc_status sc__kernel_ones_like(sc__kernel_call *call)
{
    return like(call, LIKE_ARGS(ONES_LIKE), false, 1);
}

/* empty_like: zero-filled. */
sc_status sc__kernel_empty_like(sc__kernel_call *call)
{
    return like(call, LIKE_ARGS(EMPTY_LIKE), false, 0);
}

/* full_like(Tensor self, Scalar fill_value, *, dtype, ...): self's dtype
 * unless dtype is given (the fill value does not change it). */
sc_status sc__kernel_full_like(sc__kernel_call *call)
{
    factory_args a = LIKE_ARGS(FULL_LIKE);
    a.fill = SC_KARG_FULL_LIKE_FILL_VALUE;
    return like(call, a, true, 0);
}

/* new_zeros / new_ones / new_empty / new_full(Tensor self, SymInt[] size,
 * [Scalar fill_value,] *, dtype, layout, device, pin_memory): contiguous,
 * self's dtype by default (new_full's fill value does not change it).
 * `fill` is the fill argument's index, or SIZE_MAX for `constant`. */
static sc_status new_factory(sc__kernel_call *c, factory_args a,
                             double constant)
{
    const sc_tensor *x;
    const int64_t *sizes;
    size_t n;
    fill_value v;
    sc_dtype d;
    sc_tensor *t = NULL;

    SC_TRY(sc__arg_tensor(c, a.self, &x));
    SC_TRY(sc__arg_ints(c, a.size, &n, &sizes));
    if (a.fill != SIZE_MAX) {
        SC_TRY(get_fill(c, a.fill, &v));
    } else {
        v.kind = SC__KARG_FLOAT;
        v.f = constant;
        v.i = (int64_t)constant;
    }
    SC_TRY(sc__arg_dtype(c, a.dtype, x->dtype, &d));
    SC_TRY(sc__arg_factory_opts(c, a.layout, a.device, a.pin_memory));
    SC_TRY(new_in_format(c, d, n, sizes, MF_CONTIGUOUS, NULL, &t));
    return finish(c, t, a.fill == SIZE_MAX && constant == 0 ? NULL : &v);
}

/* The arguments of the new_* op of kernel K (no fill argument). */
#define NEW_ARGS(K)                                                          \
    ((factory_args){.self = SC_KARG_##K##_SELF, .size = SC_KARG_##K##_SIZE,  \
                    .fill = SIZE_MAX, FACTORY_ARGS(K)})

sc_status sc__kernel_new_zeros(sc__kernel_call *call)
{
    return new_factory(call, NEW_ARGS(NEW_ZEROS), 0);
}

sc_status sc__kernel_new_ones(sc__kernel_call *call)
{
    return new_factory(call, NEW_ARGS(NEW_ONES), 1);
}

sc_status sc__kernel_new_empty(sc__kernel_call *call)
{
    return new_factory(call, NEW_ARGS(NEW_EMPTY), 0);
}

sc_status sc__kernel_new_full(sc__kernel_call *call)
{
    factory_args a = NEW_ARGS(NEW_FULL);
    a.fill = SC_KARG_NEW_FULL_FILL_VALUE;
    return new_factory(call, a, 0);
}

/* scalar_tensor(Scalar s, *, dtype, layout, device, pin_memory): a 0-d
 * tensor, float32 unless dtype is given (whatever the scalar's type). */
sc_status sc__kernel_scalar_tensor(sc__kernel_call *call)
{
    fill_value v;
    sc_dtype d;
    sc_tensor *t = NULL;

    SC_TRY(get_fill(call, SC_KARG_SCALAR_TENSOR_S, &v));
    SC_TRY(sc__arg_dtype(call, SC_KARG_SCALAR_TENSOR_DTYPE, SC_DTYPE_F32,
                         &d));
    SC_TRY(sc__arg_factory_opts(call, SC__FACTORY_OPTS(SCALAR_TENSOR)));
    SC_TRY(sc_tensor_new(d, 0, NULL, &t, call->err));
    return finish(call, t, &v);
}

/* fill.Scalar(Tensor self, Scalar value): a new tensor like self (its
 * dtype and dense layout) holding value everywhere. */
sc_status sc__kernel_fill_scalar(sc__kernel_call *call)
{
    const sc_tensor *x;
    fill_value v;
    sc_tensor *t = NULL;

    SC_TRY(sc__arg_tensor(call, SC_KARG_FILL_SCALAR_SELF, &x));
    SC_TRY(get_fill(call, SC_KARG_FILL_SCALAR_VALUE, &v));
    SC_TRY(new_in_format(call, x->dtype, x->ndim, x->sizes, MF_PRESERVE, x,
                         &t));
    return finish(call, t, &v);
}

/* arange: start, start + step, ... below end (above it for a negative
 * step); int64 when every bound is an integer, else float32, unless dtype
 * is given.  Bound indices SIZE_MAX: the default (start 0, step 1). */
static sc_status arange_run(sc__kernel_call *c, size_t start, size_t end,
                            size_t step, size_t dtype)
{
    double s = 0, e, st = 1, n;
    bool ints = true;
    int64_t len, k;
    sc_dtype d;
    sc_tensor *t = NULL;
    sc_status status;
    const size_t idx[3] = {start, end, step};
    double *vals[3] = {&s, &e, &st};

    for (k = 0; k < 3; k++) {
        if (idx[k] == SIZE_MAX)
            continue;
        SC_TRY(sc__arg_double(c, idx[k], vals[k]));
        ints = ints && c->args[idx[k]].kind == SC__KARG_INT;
    }
    SC_TRY(sc__arg_dtype(c, dtype, ints ? SC_DTYPE_I64 : SC_DTYPE_F32, &d));
    if (st == 0 || st != st)
        return sc__error_set(c->err, SC_ERR_INVALID,
                             "arange: step must be nonzero");
    n = ceil((e - s) / st);
    if (n != n || n < 0)
        return sc__error_set(c->err, SC_ERR_INVALID,
                             "arange: upper bound and larger bound "
                             "inconsistent with step sign");
    if (n > 4.0e15)
        return sc__error_set(c->err, SC_ERR_LIMIT, "arange: too many "
                             "elements");
    len = (int64_t)n;
    SC_CHECK(sc_tensor_new(d, 1, &len, &t, c->err));
    for (k = 0; k < len; k++)
        SC_CHECK(sc_tensor_set_double(t, &k, s + (double)k * st, c->err));
    return sc__out(c, t);
fail:
    sc_tensor_free(t);
    return status;
}

/* arange(Scalar end, *, dtype, layout, device, pin_memory) */
sc_status sc__kernel_arange(sc__kernel_call *call)
{
    SC_TRY(sc__arg_factory_opts(call, SC__FACTORY_OPTS(ARANGE)));
    return arange_run(call, SIZE_MAX, SC_KARG_ARANGE_END, SIZE_MAX,
                      SC_KARG_ARANGE_DTYPE);
}

/* arange.start(Scalar start, Scalar end, *, dtype, ...) */
sc_status sc__kernel_arange_start(sc__kernel_call *call)
{
    SC_TRY(sc__arg_factory_opts(call, SC__FACTORY_OPTS(ARANGE_START)));
    return arange_run(call, SC_KARG_ARANGE_START_START,
                      SC_KARG_ARANGE_START_END, SIZE_MAX,
                      SC_KARG_ARANGE_START_DTYPE);
}

/* arange.start_step(Scalar start, Scalar end, Scalar step=1, *, ...) */
sc_status sc__kernel_arange_start_step(sc__kernel_call *call)
{
    SC_TRY(sc__arg_factory_opts(call, SC__FACTORY_OPTS(ARANGE_START_STEP)));
    return arange_run(call, SC_KARG_ARANGE_START_STEP_START,
                      SC_KARG_ARANGE_START_STEP_END,
                      SC_KARG_ARANGE_START_STEP_STEP,
                      SC_KARG_ARANGE_START_STEP_DTYPE);
}

/* new_empty_strided(Tensor self, SymInt[] size, SymInt[] stride, *, dtype,
 * layout, device, pin_memory): uninitialised (zeros here), self's dtype by
 * default. */
sc_status sc__kernel_new_empty_strided(sc__kernel_call *call)
{
    const sc_tensor *x;
    const int64_t *sizes, *strides;
    size_t n, m, k;
    sc_dtype d;
    sc_tensor *t = NULL;

    SC_TRY(sc__arg_tensor(call, SC_KARG_NEW_EMPTY_STRIDED_SELF, &x));
    SC_TRY(sc__arg_ints(call, SC_KARG_NEW_EMPTY_STRIDED_SIZE, &n, &sizes));
    SC_TRY(sc__arg_ints(call, SC_KARG_NEW_EMPTY_STRIDED_STRIDE, &m,
                        &strides));
    SC_TRY(sc__arg_dtype(call, SC_KARG_NEW_EMPTY_STRIDED_DTYPE, x->dtype,
                         &d));
    SC_TRY(sc__arg_factory_opts(call, SC__FACTORY_OPTS(NEW_EMPTY_STRIDED)));
    if (n != m)
        return sc__error_set(call->err, SC_ERR_SHAPE,
                             "new_empty_strided: %zu sizes but %zu strides",
                             n, m);
    for (k = 0; k < m; k++)
        if (strides[k] < 0)
            return sc__error_set(call->err, SC_ERR_INVALID,
                                 "new_empty_strided: negative stride %lld",
                                 (long long)strides[k]);
    SC_TRY(sc_tensor_new_strided(d, n, sizes, strides, &t, call->err));
    return sc__out(call, t);
}
