/* symcut — shape rules of views and reshapes (transposes, view, reshape,
 * expand, squeeze, slices, selects, splits) and of their backward ops. */
#include <config.h>

#include "graph/shapes.h"

static sc_expr *one(struct sc__shape_call *c)
{
    return sc_expr_int_si(c->ctx, 1);
}

/* ---- Transposes ------------------------------------------------------------------ */

static sc_status transposed(struct sc__shape_call *c,
                            const sc_tensor_meta *self, size_t a, size_t b)
{
    sc_expr **d, **s, *t;
    SC_TRY(sc__shape_copy_meta(c, self, &d, &s));
    t = d[a], d[a] = d[b], d[b] = t;
    t = s[a], s[a] = s[b], s[b] = t;
    return sc__shape_set_tensor(c, 0, self->dtype, self->ndim, d, s, self);
}

sc_status sc__shape_t(struct sc__shape_call *c)
{
    sc_tensor_meta self;

    SC_TRY(sc__shape_get_self(c, &self));
    if (self.ndim > 2)
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "t() expects a tensor with <= 2 dimensions, "
                              "but self is %zuD", self.ndim);
    return transposed(c, &self, 0, self.ndim == 2 ? 1 : 0);
}

sc_status sc__shape_transpose(struct sc__shape_call *c)
{
    sc_tensor_meta self;
    int64_t d0, d1;
    size_t a, b;

    SC_TRY(sc__shape_get_self(c, &self));
    SC_TRY(sc__shape_get_int(c, "dim0", 0, &d0));
    SC_TRY(sc__shape_get_int(c, "dim1", 0, &d1));
    SC_TRY(sc__shape_wrap_dim(c, d0, self.ndim, &a));
    SC_TRY(sc__shape_wrap_dim(c, d1, self.ndim, &b));
    if (self.ndim == 0)
        a = b = 0;
    return transposed(c, &self, a, b);
}

sc_status sc__shape_permute(struct sc__shape_call *c)
{
    sc_tensor_meta self;
    sc_expr **dims, **d, **s;
    size_t n, i;
    bool present, seen[64] = {false};
    /* prims.transpose(a, permutation) is permute(self, dims) */
    bool prims = sc__op_arg_index(c->op, "permutation") >= 0;

    SC_TRY(sc__shape_get_tensor(c, prims ? "a" : "self", &self));
    SC_TRY(sc__shape_outputs(c, 1));
    SC_TRY(sc__shape_get_symint_list(c, prims ? "permutation" : "dims", &dims,
                                     &n, &present));
    if (n != self.ndim || n > 64)
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "number of dims don't match in permute");
    d = sc__shape_dims(c, n);
    s = sc__shape_dims(c, n);
    if (!d || !s)
        return SC_ERR_NOMEM;
    for (i = 0; i < n; i++) {
        int64_t v;
        size_t w;
        if (!sc_expr_value_si(dims[i], &v))
            return sc__shape_fail(c, SC_ERR_UNSUPPORTED, "symbolic dim");
        SC_TRY(sc__shape_wrap_dim(c, v, n, &w));
        if (seen[w])
            return sc__shape_fail(c, SC_ERR_SHAPE, "repeated dim in permute");
        seen[w] = true;
        d[i] = self.sizes[w];
        s[i] = self.strides[w];
    }
    return sc__shape_set_tensor(c, 0, self.dtype, n, d, s, &self);
}

/* ---- Views and reshapes ---------------------------------------------------------------- */

/* The sizes a view asks for, with one -1 inferred from numel. */
static sc_status infer_size(struct sc__shape_call *c, sc_expr *numel,
                            sc_expr **shape, size_t n)
{
    sc_expr *newsize = one(c);
    size_t i, infer = (size_t)-1;
    int64_t v;

    for (i = 0; i < n; i++) {
        if (sc_expr_value_si(shape[i], &v) && v < 0) {
            if (v != -1)
                return sc__shape_fail(c, SC_ERR_SHAPE, "invalid shape "
                                      "dimension %lld", (long long)v);
            if (infer != (size_t)-1)
                return sc__shape_fail(c, SC_ERR_SHAPE,
                                      "only one dimension can be inferred");
            infer = i;
            continue;
        }
        newsize = sc_expr_mul(c->ctx, newsize, shape[i]);
    }
    if (infer == (size_t)-1)
        return sc__shape_check_eq(c, numel, newsize,
                                  "shape is invalid for the input's size");
    SC_TRY(sc__shape_check(c, sc_expr_ne(c->ctx, newsize,
                                         sc_expr_int_si(c->ctx, 0)),
                           "cannot infer a dim of a shape with 0 elements"));
    shape[infer] = sc__shape_exact_div(c->ctx, numel, newsize);
    if (!shape[infer])
        return sc__shape_expr_error(c);
    if (sc_expr_mul(c->ctx, shape[infer], newsize) == numel)
        return SC_OK; /* divisible term by term */
    return sc__shape_check(
        c,
        sc_expr_eq(c->ctx, sc_expr_mod(c->ctx, numel, newsize),
                   sc_expr_int_si(c->ctx, 0)),
        "shape is invalid for the input's size");
}

/* a != b, decided size-obliviously (guarding when needed). */
static sc_status differ(struct sc__shape_call *c, sc_expr *a, sc_expr *b,
                        bool *out)
{
    bool eq;
    if (a == b) {
        *out = false;
        return SC_OK;
    }
    SC_TRY(sc__shape_oblivious(c, sc_expr_eq(c->ctx, a, b), &eq));
    *out = !eq;
    return SC_OK;
}

/* PyTorch's computeStride: the strides of a view of (old sizes, old
 * strides) with new sizes, or *ok false when no view exists. */
static sc_status compute_stride(struct sc__shape_call *c,
                                const sc_tensor_meta *t, sc_expr **shape,
                                size_t n, sc_expr **out, bool *ok)
{
    sc_expr *chunk_base, *tensor_numel, *view_numel;
    size_t td;
    long vd = (long)n - 1;
    bool b;

    *ok = false;
    if (t->ndim == 0) {
        for (td = 0; td < n; td++)
            out[td] = one(c);
        *ok = true;
        return SC_OK;
    }
    chunk_base = t->strides[t->ndim - 1];
    tensor_numel = one(c);
    view_numel = one(c);
    for (td = t->ndim; td-- > 0;) {
        bool boundary = td == 0;
        tensor_numel = sc_expr_mul(c->ctx, tensor_numel, t->sizes[td]);
        if (!tensor_numel)
            return sc__shape_expr_error(c);
        if (!boundary) {
            SC_TRY(differ(c, t->sizes[td - 1], one(c), &b));
            if (b) {
                SC_TRY(differ(c, t->strides[td - 1],
                              sc_expr_mul(c->ctx, tensor_numel, chunk_base),
                              &boundary));
            }
        }
        if (!boundary)
            continue;
        while (vd >= 0) {
            bool less, is1 = false;
            SC_TRY(sc__shape_oblivious(
                  c, sc_expr_lt(c->ctx, view_numel, tensor_numel), &less));
            if (!less) {
                SC_TRY(sc__shape_is_one(c, shape[vd], &is1));
            }
            if (!less && !is1)
                break;
            out[vd] = sc_expr_mul(c->ctx, view_numel, chunk_base);
            view_numel = sc_expr_mul(c->ctx, view_numel, shape[vd]);
            if (!view_numel || !out[vd])
                return sc__shape_expr_error(c);
            vd--;
        }
        SC_TRY(differ(c, view_numel, tensor_numel, &b));
        if (b)
            return SC_OK;
        if (td > 0) {
            chunk_base = t->strides[td - 1];
            tensor_numel = one(c);
            view_numel = one(c);
        }
    }
    *ok = vd == -1;
    return SC_OK;
}

/* view / _unsafe_view / reshape: mode 0 view (error without a view),
 * 1 contiguous when no view exists. */
static sc_status view_like(struct sc__shape_call *c, const char *arg,
                           int mode)
{
    sc_tensor_meta self;
    sc_expr **shape, **s;
    size_t n;
    bool present, ok, contig;

    SC_TRY(sc__shape_get_self(c, &self));
    SC_TRY(sc__shape_get_symint_list(c, arg, &shape, &n, &present));
    SC_TRY(infer_size(c, sc__shape_numel(c->ctx, self.ndim, self.sizes),
                      shape, n));
    s = sc__shape_dims(c, n);
    if (!s)
        return SC_ERR_NOMEM;
    SC_TRY(sc__shape_is_contiguous(c, &self, &contig));
    if (contig)
        return sc__shape_set_tensor(c, 0, self.dtype, n, shape, NULL, &self);
    SC_TRY(compute_stride(c, &self, shape, n, s, &ok));
    if (!ok) {
        if (mode == 0)
            return sc__shape_fail(c, SC_ERR_SHAPE,
                                  "view size is not compatible with input "
                                  "tensor's size and stride (at least one "
                                  "dimension spans across two contiguous "
                                  "subspaces). Use .reshape(...) instead.");
        return sc__shape_set_tensor(c, 0, self.dtype, n, shape, NULL, &self);
    }
    return sc__shape_set_tensor(c, 0, self.dtype, n, shape, s, &self);
}

sc_status sc__shape_view(struct sc__shape_call *c)
{
    return view_like(c, "size", c->op == SC_OP__UNSAFE_VIEW ? 1 : 0);
}

sc_status sc__shape_reshape(struct sc__shape_call *c)
{
    return view_like(c, "shape", 1);
}

sc_status sc__shape_reshape_alias(struct sc__shape_call *c)
{
    sc_tensor_meta self;
    sc_expr **size, **stride;
    size_t n, ns;
    bool present;

    SC_TRY(sc__shape_get_self(c, &self));
    SC_TRY(sc__shape_get_symint_list(c, "size", &size, &n, &present));
    SC_TRY(sc__shape_get_symint_list(c, "stride", &stride, &ns, &present));
    if (n != ns)
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "size and stride differ in length");
    SC_TRY(sc__shape_check_eq(c,
                              sc__shape_numel(c->ctx, self.ndim, self.sizes),
                              sc__shape_numel(c->ctx, n, size),
                              "shape is invalid for the input's size"));
    return sc__shape_set_tensor(c, 0, self.dtype, n, size, stride, &self);
}

sc_status sc__shape_as_strided(struct sc__shape_call *c)
{
    sc_tensor_meta self;
    sc_expr **size, **stride;
    size_t n, ns;
    bool present;

    SC_TRY(sc__shape_get_self(c, &self));
    SC_TRY(sc__shape_get_symint_list(c, "size", &size, &n, &present));
    SC_TRY(sc__shape_get_symint_list(c, "stride", &stride, &ns, &present));
    if (n != ns)
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "mismatch in length of strides and shape");
    return sc__shape_set_tensor(c, 0, self.dtype, n, size, stride, &self);
}

sc_status sc__shape_expand(struct sc__shape_call *c)
{
    sc_tensor_meta self;
    sc_expr **size, **d, **s, *zero = sc_expr_int_si(c->ctx, 0);
    size_t n, i;
    bool present;

    SC_TRY(sc__shape_get_self(c, &self));
    SC_TRY(sc__shape_get_symint_list(c, "size", &size, &n, &present));
    if (n < self.ndim)
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "the number of sizes provided (%zu) must be "
                              "greater or equal to the number of dimensions "
                              "in the tensor (%zu)", n, self.ndim);
    d = sc__shape_dims(c, n);
    s = sc__shape_dims(c, n);
    if (!d || !s)
        return SC_ERR_NOMEM;
    for (i = n; i-- > 0;) {
        size_t off = n - 1 - i;
        int64_t v;
        bool neg = sc_expr_value_si(size[i], &v) && v == -1;
        if (off >= self.ndim) {
            if (neg)
                return sc__shape_fail(c, SC_ERR_SHAPE,
                                      "-1 is not allowed in a leading, "
                                      "non-existing dimension");
            d[i] = size[i];
            s[i] = zero;
        } else {
            size_t j = self.ndim - 1 - off;
            bool eq;
            if (neg || size[i] == self.sizes[j]) {
                d[i] = self.sizes[j];
                s[i] = self.strides[j];
                continue;
            }
            SC_TRY(sc__shape_guard(c, sc_expr_eq(c->ctx, self.sizes[j],
                                                 size[i]),
                                   &eq));
            if (eq) {
                d[i] = size[i];
                s[i] = self.strides[j];
                continue;
            }
            SC_TRY(sc__shape_check_eq(c, self.sizes[j], one(c),
                                      "the expanded size must match the "
                                      "existing size at a non-singleton "
                                      "dimension"));
            d[i] = size[i];
            s[i] = zero;
        }
    }
    return sc__shape_set_tensor(c, 0, self.dtype, n, d, s, &self);
}

sc_status sc__shape_same_as_self(struct sc__shape_call *c)
{
    sc_tensor_meta self;
    sc_expr **d, **s;

    SC_TRY(sc__shape_get_self(c, &self));
    SC_TRY(sc__shape_copy_meta(c, &self, &d, &s));
    return sc__shape_set_tensor(c, 0, self.dtype, self.ndim, d, s, &self);
}

/* ---- Squeeze, unsqueeze ------------------------------------------------------------------ */

sc_status sc__shape_squeeze(struct sc__shape_call *c)
{
    sc_tensor_meta self;
    sc_expr **dims, **d, **s;
    size_t n, i, k = 0;
    bool present, pick[64];

    SC_TRY(sc__shape_get_self(c, &self));
    if (self.ndim > 64)
        return sc__shape_fail(c, SC_ERR_LIMIT, "too many dimensions");
    SC_TRY(sc__shape_get_symint_list(c, "dim", &dims, &n, &present));
    for (i = 0; i < self.ndim; i++)
        pick[i] = !present;
    for (i = 0; i < n; i++) {
        int64_t v;
        size_t w;
        if (!sc_expr_value_si(dims[i], &v))
            return sc__shape_fail(c, SC_ERR_UNSUPPORTED, "symbolic dim");
        SC_TRY(sc__shape_wrap_dim(c, v, self.ndim, &w));
        if (self.ndim)
            pick[w] = true;
    }
    d = sc__shape_dims(c, self.ndim);
    s = sc__shape_dims(c, self.ndim);
    if (!d || !s)
        return SC_ERR_NOMEM;
    for (i = 0; i < self.ndim; i++) {
        bool is1 = false;
        if (pick[i])
            SC_TRY(sc__shape_is_one(c, self.sizes[i], &is1));
        if (is1)
            continue;
        d[k] = self.sizes[i];
        s[k++] = self.strides[i];
    }
    return sc__shape_set_tensor(c, 0, self.dtype, k, d, s, &self);
}

sc_status sc__shape_unsqueeze(struct sc__shape_call *c)
{
    sc_tensor_meta self;
    sc_expr **d, **s;
    int64_t dim;
    size_t w, i;

    SC_TRY(sc__shape_get_self(c, &self));
    SC_TRY(sc__shape_get_int(c, "dim", 0, &dim));
    SC_TRY(sc__shape_wrap_dim(c, dim, self.ndim + 1, &w));
    d = sc__shape_dims(c, self.ndim + 1);
    s = sc__shape_dims(c, self.ndim + 1);
    if (!d || !s)
        return SC_ERR_NOMEM;
    for (i = 0; i <= self.ndim; i++) {
        if (i < w) {
            d[i] = self.sizes[i];
            s[i] = self.strides[i];
        } else if (i == w) {
            d[i] = one(c);
            s[i] = w >= self.ndim ? one(c)
                                  : sc_expr_mul(c->ctx, self.sizes[w],
                                                self.strides[w]);
        } else {
            d[i] = self.sizes[i - 1];
            s[i] = self.strides[i - 1];
        }
    }
    return sc__shape_set_tensor(c, 0, self.dtype, self.ndim + 1, d, s, &self);
}

/* ---- Slices and selects ------------------------------------------------------------------------ */

/* Are all symbols of e backed (so that a guard can decide)? */
static bool all_backed(struct sc__shape_call *c, sc_expr *e)
{
    sc_expr *syms[16];
    size_t n = sc_expr_free_symbols(e, syms, 16), i;
    if (!c->env || n > 16)
        return false;
    for (i = 0; i < n; i++)
        if (!sc_env_is_backed(c->env, syms[i]))
            return false;
    return true;
}

/* cond decided statically, else guarded when backed; UNKNOWN for
 * unbacked symbols. */
static sc_status decide(struct sc__shape_call *c, sc_expr *cond, sc_tri *t)
{
    bool b;
    SC_TRY(sc__shape_known(c, cond, false, t));
    if (*t != SC_TRI_UNKNOWN || !all_backed(c, cond))
        return SC_OK;
    SC_TRY(sc__shape_guard(c, cond, &b));
    *t = b ? SC_TRI_TRUE : SC_TRI_FALSE;
    return SC_OK;
}

/* max(lo, min(x, hi)) as PyTorch's slice clamps: decided statically or by
 * a guard; for unbacked sizes, Min/Max. */
static sc_status clamp(struct sc__shape_call *c, sc_expr *x, sc_expr *lo,
                       sc_expr *hi, sc_expr **out)
{
    sc_tri t;
    SC_TRY(decide(c, sc_expr_le(c->ctx, x, hi), &t));
    if (t == SC_TRI_FALSE)
        x = hi;
    else if (t == SC_TRI_UNKNOWN)
        x = sc_expr_min(c->ctx, x, hi);
    SC_TRY(decide(c, sc_expr_ge(c->ctx, x, lo), &t));
    if (t == SC_TRI_FALSE)
        x = lo;
    else if (t == SC_TRI_UNKNOWN)
        x = sc_expr_max(c->ctx, x, lo);
    *out = x;
    return x ? SC_OK : sc__shape_expr_error(c);
}

/* A start/end index: negative values count from size. */
static sc_status normalize_index(struct sc__shape_call *c, sc_expr *i,
                                 sc_expr *size, sc_expr **out)
{
    sc_tri neg;
    SC_TRY(sc__shape_known(
        c, sc_expr_lt(c->ctx, i, sc_expr_int_si(c->ctx, 0)), false, &neg));
    if (neg == SC_TRI_UNKNOWN) {
        bool b;
        SC_TRY(sc__shape_guard(
              c, sc_expr_lt(c->ctx, i, sc_expr_int_si(c->ctx, 0)), &b));
        neg = b ? SC_TRI_TRUE : SC_TRI_FALSE;
    }
    *out = neg == SC_TRI_TRUE ? sc_expr_add(c->ctx, i, size) : i;
    return *out ? SC_OK : sc__shape_expr_error(c);
}

sc_status sc__shape_slice(struct sc__shape_call *c)
{
    sc_tensor_meta self;
    sc_expr **d, **s, *start, *end, *step, *size, *zero;
    int64_t dim, stepv;
    size_t w;

    SC_TRY(sc__shape_get_self(c, &self));
    SC_TRY(sc__shape_get_int(c, "dim", 0, &dim));
    SC_TRY(sc__shape_wrap_dim(c, dim, self.ndim, &w));
    if (self.ndim == 0)
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "slice() cannot be applied to a 0-dim tensor");
    SC_TRY(sc__shape_get_symint(c, "start", &start));
    SC_TRY(sc__shape_get_symint(c, "end", &end));
    SC_TRY(sc__shape_get_symint(c, "step", &step));
    zero = sc_expr_int_si(c->ctx, 0);
    if (!step)
        step = one(c);
    if (!sc_expr_value_si(step, &stepv))
        stepv = 2;
    SC_TRY(sc__shape_check(c, sc_expr_gt(c->ctx, step, zero),
                           "slice step must be positive"));
    size = self.sizes[w];
    if (!start)
        start = zero;
    if (!end)
        end = size;
    else {
        int64_t v;
        if (sc_expr_value_si(end, &v) && v >= INT64_MAX / 2)
            end = size;
    }
    SC_TRY(normalize_index(c, start, size, &start));
    SC_TRY(normalize_index(c, end, size, &end));
    SC_TRY(clamp(c, start, zero, size, &start));
    SC_TRY(clamp(c, end, start, size, &end));
    SC_TRY(sc__shape_copy_meta(c, &self, &d, &s));
    d[w] = sc_expr_sub(c->ctx, end, start);
    if (stepv != 1)
        d[w] = sc_expr_floordiv(c->ctx,
                                sc_expr_add(c->ctx, d[w],
                                            sc_expr_add_si(c->ctx, step, -1)),
                                step);
    s[w] = sc_expr_mul(c->ctx, s[w], step);
    return sc__shape_set_tensor(c, 0, self.dtype, self.ndim, d, s, &self);
}

/* self without dim w (the select view). */
static sc_status drop_dim(struct sc__shape_call *c, size_t k,
                          const sc_tensor_meta *self, size_t w)
{
    sc_expr **d = sc__shape_dims(c, self->ndim), **s = sc__shape_dims(c, self->ndim);
    size_t i, j = 0;
    if (!d || !s)
        return SC_ERR_NOMEM;
    for (i = 0; i < self->ndim; i++)
        if (i != w) {
            d[j] = self->sizes[i];
            s[j++] = self->strides[i];
        }
    return sc__shape_set_tensor(c, k, self->dtype, j, d, s, self);
}

sc_status sc__shape_select(struct sc__shape_call *c)
{
    sc_tensor_meta self;
    sc_expr *index, *size;
    int64_t dim;
    size_t w;

    SC_TRY(sc__shape_get_self(c, &self));
    SC_TRY(sc__shape_get_int(c, "dim", 0, &dim));
    if (self.ndim == 0)
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "select() cannot be applied to a 0-dim tensor");
    SC_TRY(sc__shape_wrap_dim(c, dim, self.ndim, &w));
    SC_TRY(sc__shape_get_symint(c, "index", &index));
    if (!index)
        return sc__shape_fail(c, SC_ERR_UNSUPPORTED, "no index");
    size = self.sizes[w];
    SC_TRY(sc__shape_check(
      c,
      sc_expr_and(c->ctx, sc_expr_ge(c->ctx, index, sc_expr_neg(c->ctx, size)),
                  sc_expr_lt(c->ctx, index, size)),
      "select(): index out of range"));
    return drop_dim(c, 0, &self, w);
}

/* Chunks of sizes[0..n) along dim w, as views of self. */
static sc_status chunks(struct sc__shape_call *c, const sc_tensor_meta *self,
                        size_t w, size_t n, sc_expr **sizes)
{
    size_t i;
    SC_TRY(sc__shape_outputs(c, n));
    for (i = 0; i < n; i++) {
        sc_expr **d, **s;
        SC_TRY(sc__shape_copy_meta(c, self, &d, &s));
        d[w] = sizes[i];
        SC_TRY(sc__shape_set_tensor(c, i, self->dtype, self->ndim, d, s,
                                    self));
    }
    return SC_OK;
}

sc_status sc__shape_split(struct sc__shape_call *c)
{
    sc_tensor_meta self;
    sc_expr *split, *size, **sizes, *nexpr;
    int64_t dim, n;
    size_t w, i;

    SC_TRY(sc__shape_get_self(c, &self));
    SC_TRY(sc__shape_get_int(c, "dim", 0, &dim));
    if (self.ndim == 0)
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "split expects at least a 1-dimensional "
                              "tensor");
    SC_TRY(sc__shape_wrap_dim(c, dim, self.ndim, &w));
    SC_TRY(sc__shape_get_symint(c, "split_size", &split));
    if (!split)
        return sc__shape_fail(c, SC_ERR_UNSUPPORTED, "no split_size");
    SC_TRY(sc__shape_check(c, sc_expr_ge(c->ctx, split,
                                         sc_expr_int_si(c->ctx, 0)),
                           "split expects split_size be non-negative"));
    size = self.sizes[w];
    if (sc_expr_value_si(split, &n) && n == 0) {
        SC_TRY(sc__shape_check_eq(c, size, sc_expr_int_si(c->ctx, 0),
                                  "split_size can only be 0 if dimension "
                                  "size is 0"));
        return chunks(c, &self, w, 1, &size);
    }
    nexpr = sc_expr_ceildiv(c->ctx, size, split);
    if (!nexpr)
        return sc__shape_expr_error(c);
    if (!sc_expr_value_si(nexpr, &n)) {
        if (!c->env)
            return sc__shape_fail(c, SC_ERR_DATA_DEPENDENT,
                                  "the number of chunks is symbolic");
        SC_TRY(sc_env_guard_int_si(c->env, nexpr, &n, c->err));
    }
    if (n < 1)
        n = 1;
    if (n < 1 || n > 65536)
        return sc__shape_fail(c, SC_ERR_LIMIT, "%lld chunks", (long long)n);
    sizes = sc__shape_dims(c, (size_t)n);
    if (!sizes)
        return SC_ERR_NOMEM;
    for (i = 0; i + 1 < (size_t)n; i++)
        sizes[i] = split;
    sizes[n - 1] = sc_expr_sub(c->ctx, size,
                               sc_expr_mul_si(c->ctx, split, n - 1));
    return chunks(c, &self, w, (size_t)n, sizes);
}

sc_status sc__shape_split_with_sizes(struct sc__shape_call *c)
{
    sc_tensor_meta self;
    sc_expr **sizes;
    size_t n, w;
    int64_t dim;
    bool present;

    SC_TRY(sc__shape_get_self(c, &self));
    SC_TRY(sc__shape_get_int(c, "dim", 0, &dim));
    if (self.ndim == 0)
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "split expects at least a 1-dimensional "
                              "tensor");
    SC_TRY(sc__shape_wrap_dim(c, dim, self.ndim, &w));
    SC_TRY(sc__shape_get_symint_list(c, "split_sizes", &sizes, &n,
                                     &present));
    SC_TRY(sc__shape_check_eq(c, sc_expr_add_n(c->ctx, n, sizes),
                              self.sizes[w],
                              "split_with_sizes expects split_sizes to sum "
                              "exactly to the size of the dim"));
    return chunks(c, &self, w, n, sizes);
}

sc_status sc__shape_unbind(struct sc__shape_call *c)
{
    sc_tensor_meta self;
    int64_t dim, n;
    size_t w, i;

    SC_TRY(sc__shape_get_self(c, &self));
    SC_TRY(sc__shape_get_int(c, "dim", 0, &dim));
    if (self.ndim == 0)
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "Dimension specified as 0 but tensor has no "
                              "dimensions");
    SC_TRY(sc__shape_wrap_dim(c, dim, self.ndim, &w));
    if (!sc_expr_value_si(self.sizes[w], &n)) {
        if (!c->env)
            return sc__shape_fail(c, SC_ERR_DATA_DEPENDENT,
                                  "unbind of a symbolic size");
        SC_TRY(sc_env_guard_int_si(c->env, self.sizes[w], &n, c->err));
    }
    if (n < 0 || n > 65536)
        return sc__shape_fail(c, SC_ERR_LIMIT, "%lld elements", (long long)n);
    SC_TRY(sc__shape_outputs(c, (size_t)n));
    for (i = 0; i < (size_t)n; i++)
        SC_TRY(drop_dim(c, i, &self, w));
    return SC_OK;
}

/* ---- Backward ops ------------------------------------------------------- */

/* select_backward / slice_backward / as_strided_backward: a contiguous
 * tensor of input_sizes in grad_output's dtype (and device).  For select
 * and slice input_sizes has grad_output's rank (select: one more). */
sc_status sc__shape_input_sizes(struct sc__shape_call *c)
{
    sc_tensor_meta grad;
    sc_expr **sizes, **strides;
    size_t n;
    bool present;

    SC_TRY(sc__shape_get_tensor(c, "grad_output", &grad));
    SC_TRY(sc__shape_get_symint_list(c, "input_sizes", &sizes, &n,
                                     &present));
    if (!present || (c->op != SC_OP_AS_STRIDED_BACKWARD &&
                     n != grad.ndim + (c->op == SC_OP_SELECT_BACKWARD)))
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "input_sizes has %zu sizes for a %zu-dim "
                              "gradient", n, grad.ndim);
    if (c->op == SC_OP_AS_STRIDED_BACKWARD) {
        sc_expr **in_strides, **size, **stride;
        size_t ns, m, ms;
        SC_TRY(sc__shape_get_symint_list(c, "input_strides", &in_strides,
                                         &ns, &present));
        SC_TRY(sc__shape_get_symint_list(c, "size", &size, &m, &present));
        SC_TRY(sc__shape_get_symint_list(c, "stride", &stride, &ms,
                                         &present));
        if (ns != n || m != ms || m != grad.ndim)
            return sc__shape_fail(c, SC_ERR_SHAPE,
                                  "as_strided_backward: %zu input sizes, %zu "
                                  "input strides, %zu sizes, %zu strides for "
                                  "a %zu-dim gradient", n, ns, m, ms,
                                  grad.ndim);
    }
    strides = sc__shape_dims(c, n);
    if (!strides)
        return SC_ERR_NOMEM;
    SC_TRY(sc__shape_contiguous(c, n, sizes, strides));
    SC_TRY(sc__shape_outputs(c, 1));
    return sc__shape_set_tensor(c, 0, grad.dtype, n, sizes, strides, &grad);
}
