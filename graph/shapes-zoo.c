/* symcut — shape rules of ops PyTorch 2.x graphs add: results that are
 * nothing (_assert_scalar), a data-dependent scalar (_local_scalar_dense),
 * arange, the functional copy and the functional batch norm. */
#include <config.h>

#include <string.h>

#include <symcut/guards.h>

#include "graph/shapes.h"

sc_status sc__shape_no_result(struct sc__shape_call *c)
{
    SC_TRY(sc__shape_outputs(c, 1));
    c->out[0].kind = SC_RESULT_NONE;
    return SC_OK;
}

/* The value of a 0-d integer (or bool) tensor: the unbacked symbol the
 * annotation names when it is fresh, else a new u<k>. */
sc_status sc__shape_local_scalar(struct sc__shape_call *c)
{
    sc_tensor_meta self;
    sc_result decl;
    const char *name = NULL;
    sc_expr *u = NULL;

    SC_TRY(sc__shape_get_tensor(c, "self", &self));
    if (!sc__dtype_is_integral(self.dtype, true))
        return sc__shape_fail(c, SC_ERR_UNSUPPORTED,
                              "the value of a %s tensor (a SymFloat)",
                              sc_dtype_torch_name(self.dtype));
    sc_graph_node_result(c->g, c->id, &decl);
    if (decl.kind == SC_RESULT_SYMINT && decl.expr &&
        sc_expr_is_symbol(decl.expr)) {
        u = decl.expr;
        if (!(c->env && sc_env_has_symbol(c->env, u)))
            name = sc_expr_symbol_name(u);
        else
            goto done;
    }
    if (!c->env) {
        SC_TRY(sc_env_new(c->ctx, NULL, &c->g->env, c->err));
        c->g->owns_env = true;
        c->env = c->g->env;
    }
    SC_TRY(sc_env_create_unbacked(c->env, name, NULL, 0, &u, c->err));
done:
    SC_TRY(sc__shape_outputs(c, 1));
    c->out[0].kind = SC_RESULT_SYMINT;
    c->out[0].expr = u;
    return SC_OK;
}

/* An arange bound: an integer expression (is_int), or a float (its value
 * in *f). */
static sc_status arange_bound(struct sc__shape_call *c, const char *name,
                              int64_t dflt, sc_expr **e, double *f,
                              bool *is_int)
{
    const sc_value *v = sc__shape_arg(c, name, NULL);

    *e = NULL;
    *is_int = true;
    if (!v) {
        *e = sc_expr_int_si(c->ctx, dflt);
        *f = (double)dflt;
        return SC_OK;
    }
    if (v->kind == SC_VALUE_FLOAT) {
        *is_int = false;
        *f = v->u.f.value;
        return SC_OK;
    }
    SC_TRY(sc__shape_value_symint(c, v, e));
    if (!*e)
        return sc__shape_fail(c, SC_ERR_SHAPE, "%s must not be None", name);
    return SC_OK;
}

sc_status sc__shape_arange(struct sc__shape_call *c)
{
    sc_expr *s, *e, *st, *len, **d;
    double fs, fe, fst;
    bool is, ie, ist, all_int;
    sc_dtype dtype;

    SC_TRY(arange_bound(c, "start", 0, &s, &fs, &is));
    SC_TRY(arange_bound(c, "end", 0, &e, &fe, &ie));
    SC_TRY(arange_bound(c, "step", 1, &st, &fst, &ist));
    all_int = is && ie && ist;
    if (!sc__shape_get_dtype(c, "dtype", &dtype))
        dtype = all_int ? SC_DTYPE_I64 : SC_DTYPE_F32;
    if (all_int) {
        int64_t stepv;
        if (!sc_expr_value_si(st, &stepv))
            return sc__shape_fail(c, SC_ERR_UNSUPPORTED, "symbolic step");
        if (stepv == 0)
            return sc__shape_fail(c, SC_ERR_SHAPE, "step must be nonzero");
        /* ceil((end - start) / step), at least 0 */
        len = sc_expr_sub(c->ctx, e, s);
        if (len && stepv != 1)
            len = stepv > 0 ? sc_expr_ceildiv(c->ctx, len, st)
                            : sc_expr_ceildiv(c->ctx, sc_expr_neg(c->ctx, len),
                                              sc_expr_neg(c->ctx, st));
        if (!len)
            return sc__shape_expr_error(c);
        /* PyTorch checks the length, it does not clamp it */
        SC_TRY(sc__shape_check(c, sc_expr_ge(c->ctx, len,
                                             sc_expr_int_si(c->ctx, 0)),
                               "upper bound and larger bound inconsistent "
                               "with step sign"));
    } else {
        double n;
        if (!is || !ie || !ist) {
            int64_t v;
            if (is && !sc_expr_value_si(s, &v))
                return sc__shape_fail(c, SC_ERR_UNSUPPORTED, "symbolic start");
            if (is)
                fs = (double)v;
            if (ie && !sc_expr_value_si(e, &v))
                return sc__shape_fail(c, SC_ERR_UNSUPPORTED, "symbolic end");
            if (ie)
                fe = (double)v;
            if (ist && !sc_expr_value_si(st, &v))
                return sc__shape_fail(c, SC_ERR_UNSUPPORTED, "symbolic step");
            if (ist)
                fst = (double)v;
        }
        if (fst == 0)
            return sc__shape_fail(c, SC_ERR_SHAPE, "step must be nonzero");
        n = (fe - fs) / fst;
        n = n > 0 ? n : 0;
        if (n > 9.0e15)
            return sc__shape_fail(c, SC_ERR_LIMIT, "too many elements");
        {
            int64_t k = (int64_t)n;
            if ((double)k < n)
                k++;
            len = sc_expr_int_si(c->ctx, k);
        }
    }
    d = sc__shape_dims(c, 1);
    if (!d)
        return SC_ERR_NOMEM;
    d[0] = len;
    SC_TRY(sc__shape_outputs(c, 1));
    return sc__shape_set_tensor(c, 0, dtype, 1, d, NULL, NULL);
}

/* copy / copy_: self's metadata; src must broadcast to self's sizes. */
sc_status sc__shape_copy(struct sc__shape_call *c)
{
    sc_tensor_meta self, src;
    sc_expr **bc, **d, **st;
    size_t n;

    SC_TRY(sc__shape_get_tensor(c, "self", &self));
    SC_TRY(sc__shape_get_tensor(c, "src", &src));
    SC_TRY(sc__shape_broadcast(c, self.ndim, self.sizes, src.ndim, src.sizes,
                               &n, &bc));
    if (n != self.ndim)
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "src has more dims than self");
    SC_TRY(sc__shape_outputs(c, 1));
    if (!self.has_strides)
        return sc__shape_like_contiguous(c, 0, &self, self.dtype);
    SC_TRY(sc__shape_copy_meta(c, &self, &d, &st));
    return sc__shape_set_tensor(c, 0, self.dtype, self.ndim, d, st, &self);
}

/* _native_batch_norm_legit_functional: batch_norm's (output, save_mean,
 * save_invstd), then running_mean_out and running_var_out like the
 * running statistics.  The saved statistics are in the input's dtype, as
 * the graphs PyTorch 2.13 traces say (its meta function, run on the meta
 * device, says float32 for a bfloat16 input). */
sc_status sc__shape_batch_norm_functional(struct sc__shape_call *c)
{
    sc_tensor_meta rm, rv;
    sc_result three[3];

    SC_TRY(sc__shape_get_tensor(c, "running_mean", &rm));
    SC_TRY(sc__shape_get_tensor(c, "running_var", &rv));
    SC_TRY(sc__shape_batch_norm(c));
    memcpy(three, c->out, sizeof three);
    SC_TRY(sc__shape_outputs(c, 5));
    memcpy(c->out, three, sizeof three);
    SC_TRY(sc__shape_like_contiguous(c, 3, &rm, rm.dtype));
    return sc__shape_like_contiguous(c, 4, &rv, rv.dtype);
}

/* Dense strides of sizes[4] laid out in the physical order [0, 2, 1, 3]
 * (batch, sequence, heads, features): PyTorch's CPU attention layouts. */
static sc_status blhe_strides(struct sc__shape_call *c, size_t n,
                              sc_expr *const *sizes, sc_expr ***out)
{
    static const size_t perm4[4] = {0, 2, 1, 3}, perm3[3] = {0, 2, 1};
    *out = sc__shape_dims(c, n);
    if (!*out)
        return SC_ERR_NOMEM;
    return sc__shape_dense_in_order(c, n, sizes, n == 4 ? perm4 : perm3,
                                    *out);
}

sc_status sc__shape_sdpa_flash_cpu(struct sc__shape_call *c)
{
    sc_tensor_meta q, k, v;
    sc_expr **d, **st;
    sc_dtype ld;

    SC_TRY(sc__shape_get_tensor(c, "query", &q));
    SC_TRY(sc__shape_get_tensor(c, "key", &k));
    SC_TRY(sc__shape_get_tensor(c, "value", &v));
    SC_TRY(sc__shape_need_dims(c, "query", &q, 4, 4));
    SC_TRY(sc__shape_need_dims(c, "key", &k, 4, 4));
    SC_TRY(sc__shape_need_dims(c, "value", &v, 4, 4));
    SC_TRY(sc__shape_check_eq(c, q.sizes[3], k.sizes[3],
                              "query and key differ in their last size"));
    SC_TRY(sc__shape_check_eq(c, k.sizes[2], v.sizes[2],
                              "key and value differ in their sequence size"));
    SC_TRY(sc__shape_outputs(c, 2));
    /* the output is allocated like query (empty_like) */
    if (q.has_strides) {
        SC_TRY(sc__shape_preserve_strides(c, &q, &st));
    } else {
        st = NULL;
    }
    d = sc__shape_copy_sizes(c, &q);
    if (!d)
        return SC_ERR_NOMEM;
    SC_TRY(sc__shape_set_tensor(c, 0, q.dtype, 4, d, st, &q));
    d = sc__shape_dims(c, 3);
    if (!d)
        return SC_ERR_NOMEM;
    memcpy(d, q.sizes, 3 * sizeof *d);
    SC_TRY(blhe_strides(c, 3, d, &st));
    ld = q.dtype == SC_DTYPE_F16 || q.dtype == SC_DTYPE_BF16 ? SC_DTYPE_F32
                                                             : q.dtype;
    return sc__shape_set_tensor(c, 1, ld, 3, d, st, &q);
}

sc_status sc__shape_sdpa_flash_cpu_backward(struct sc__shape_call *c)
{
    static const char *const names[3] = {"query", "key", "value"};
    sc_tensor_meta t;
    sc_expr **d, **st;
    size_t i;

    SC_TRY(sc__shape_outputs(c, 3));
    for (i = 0; i < 3; i++) {
        SC_TRY(sc__shape_get_tensor(c, names[i], &t));
        SC_TRY(sc__shape_need_dims(c, names[i], &t, 4, 4));
        d = sc__shape_copy_sizes(c, &t);
        if (!d)
            return SC_ERR_NOMEM;
        SC_TRY(blhe_strides(c, 4, d, &st));
        SC_TRY(sc__shape_set_tensor(c, i, t.dtype, 4, d, st, &t));
    }
    return SC_OK;
}

sc_status sc__shape_movedim(struct sc__shape_call *c)
{
    sc_tensor_meta self;
    int64_t src, dst;
    size_t s, t, i, k;
    sc_expr **d, **st;

    SC_TRY(sc__shape_get_tensor(c, "self", &self));
    SC_TRY(sc__shape_get_int(c, "source", 0, &src));
    SC_TRY(sc__shape_get_int(c, "destination", 0, &dst));
    SC_TRY(sc__shape_wrap_dim(c, src, self.ndim, &s));
    SC_TRY(sc__shape_wrap_dim(c, dst, self.ndim, &t));
    d = sc__shape_dims(c, self.ndim);
    st = sc__shape_dims(c, self.ndim);
    if (!d || !st)
        return SC_ERR_NOMEM;
    for (i = 0, k = 0; i < self.ndim; i++) {
        size_t from;
        if (i == t) {
            from = s;
        } else {
            if (k == s)
                k++;
            from = k++;
        }
        d[i] = self.sizes[from];
        st[i] = self.has_strides ? self.strides[from] : NULL;
    }
    SC_TRY(sc__shape_outputs(c, 1));
    return sc__shape_set_tensor(c, 0, self.dtype, self.ndim, d,
                                self.has_strides ? st : NULL, &self);
}

sc_status sc__shape_diagonal(struct sc__shape_call *c)
{
    sc_tensor_meta self;
    int64_t off, a1, a2;
    size_t d1, d2, i, n = 0;
    sc_expr **d, **st, *len, *zero = sc_expr_int_si(c->ctx, 0);

    SC_TRY(sc__shape_get_tensor(c, "self", &self));
    SC_TRY(sc__shape_get_int(c, "offset", 0, &off));
    SC_TRY(sc__shape_get_int(c, "dim1", 0, &a1));
    SC_TRY(sc__shape_get_int(c, "dim2", 1, &a2));
    SC_TRY(sc__shape_need_dims(c, "self", &self, 2, 64));
    SC_TRY(sc__shape_wrap_dim(c, a1, self.ndim, &d1));
    SC_TRY(sc__shape_wrap_dim(c, a2, self.ndim, &d2));
    if (d1 == d2)
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "diagonal dimensions cannot be identical %lld, "
                              "%lld", (long long)a1, (long long)a2);
    if (!self.has_strides)
        return sc__shape_fail(c, SC_ERR_UNSUPPORTED, "no strides");
    {
        sc_expr *o = sc_expr_int_si(c->ctx, off < 0 ? -off : off);
        len = off >= 0 ? sc_expr_min(c->ctx, self.sizes[d1],
                                     sc_expr_sub(c->ctx, self.sizes[d2], o))
                       : sc_expr_min(c->ctx,
                                     sc_expr_sub(c->ctx, self.sizes[d1], o),
                                     self.sizes[d2]);
        if (len)
            len = sc_expr_max(c->ctx, len, zero);
        if (!len)
            return sc__shape_expr_error(c);
    }
    d = sc__shape_dims(c, self.ndim - 1);
    st = sc__shape_dims(c, self.ndim - 1);
    if (!d || !st)
        return SC_ERR_NOMEM;
    for (i = 0; i < self.ndim; i++)
        if (i != d1 && i != d2) {
            d[n] = self.sizes[i];
            st[n++] = self.strides[i];
        }
    d[n] = len;
    st[n] = sc_expr_add(c->ctx, self.strides[d1], self.strides[d2]);
    if (!st[n])
        return sc__shape_expr_error(c);
    SC_TRY(sc__shape_outputs(c, 1));
    return sc__shape_set_tensor(c, 0, self.dtype, self.ndim - 1, d, st,
                                &self);
}

sc_status sc__shape_new_factory_strided(struct sc__shape_call *c)
{
    sc_tensor_meta self;
    sc_expr **size, **stride;
    size_t n, m;
    bool present;
    sc_dtype dtype;

    SC_TRY(sc__shape_get_tensor(c, "self", &self));
    SC_TRY(sc__shape_get_symint_list(c, "size", &size, &n, &present));
    SC_TRY(sc__shape_get_symint_list(c, "stride", &stride, &m, &present));
    if (n != m)
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "mismatch in length of strides and shape");
    if (!sc__shape_get_dtype(c, "dtype", &dtype))
        dtype = self.dtype;
    SC_TRY(sc__shape_outputs(c, 1));
    return sc__shape_set_tensor(c, 0, dtype, n, size, stride, &self);
}

sc_status sc__shape_linear(struct sc__shape_call *c)
{
    sc_tensor_meta in, w;
    sc_expr **d;

    SC_TRY(sc__shape_get_tensor(c, "input", &in));
    SC_TRY(sc__shape_get_tensor(c, "weight", &w));
    SC_TRY(sc__shape_need_dims(c, "input", &in, 1, 64));
    SC_TRY(sc__shape_need_dims(c, "weight", &w, 2, 2));
    SC_TRY(sc__shape_check_eq(c, in.sizes[in.ndim - 1], w.sizes[1],
                              "input and weight differ in in_features"));
    d = sc__shape_dims(c, in.ndim);
    if (!d)
        return SC_ERR_NOMEM;
    memcpy(d, in.sizes, in.ndim * sizeof *d);
    d[in.ndim - 1] = w.sizes[0];
    SC_TRY(sc__shape_outputs(c, 1));
    return sc__shape_set_tensor(c, 0, in.dtype, in.ndim, d, NULL, &in);
}

sc_status sc__shape_gather(struct sc__shape_call *c)
{
    sc_tensor_meta self, index;
    int64_t dim;
    size_t w;
    sc_expr **d;

    SC_TRY(sc__shape_get_tensor(c, "self", &self));
    SC_TRY(sc__shape_get_tensor(c, "index", &index));
    SC_TRY(sc__shape_get_int(c, "dim", 0, &dim));
    SC_TRY(sc__shape_wrap_dim(c, dim, self.ndim, &w));
    if (index.dtype != SC_DTYPE_I64)
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "gather(): Expected dtype int64 for index");
    if (index.ndim != self.ndim && !(index.ndim <= 1 && self.ndim <= 1))
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "Index tensor must have the same number of "
                              "dimensions as input tensor");
    d = sc__shape_copy_sizes(c, &index);
    if (!d)
        return SC_ERR_NOMEM;
    SC_TRY(sc__shape_outputs(c, 1));
    return sc__shape_set_tensor(c, 0, self.dtype, index.ndim, d, NULL,
                                &self);
}

sc_status sc__shape_max_dim(struct sc__shape_call *c)
{
    sc_tensor_meta self;
    int64_t dim;
    size_t w, i, n = 0;
    bool keepdim = sc__shape_get_bool(c, "keepdim", false);
    sc_expr **d, **d2;

    SC_TRY(sc__shape_get_tensor(c, "self", &self));
    SC_TRY(sc__shape_get_int(c, "dim", 0, &dim));
    SC_TRY(sc__shape_wrap_dim(c, dim, self.ndim, &w));
    d = sc__shape_dims(c, self.ndim);
    if (!d)
        return SC_ERR_NOMEM;
    for (i = 0; i < self.ndim; i++) {
        if (i != w)
            d[n++] = self.sizes[i];
        else if (keepdim)
            d[n++] = sc_expr_int_si(c->ctx, 1);
    }
    d2 = sc__shape_dims(c, n);
    if (!d2)
        return SC_ERR_NOMEM;
    if (n)
        memcpy(d2, d, n * sizeof *d);
    SC_TRY(sc__shape_outputs(c, 2));
    SC_TRY(sc__shape_set_tensor(c, 0, self.dtype, n, d, NULL, &self));
    return sc__shape_set_tensor(c, 1, SC_DTYPE_I64, n, d2, NULL, &self);
}

sc_status sc__shape_masked_select(struct sc__shape_call *c)
{
    sc_tensor_meta self, mask;
    sc_expr **bc, **d, *u = NULL, *numel;
    sc_result decl;
    const char *name = NULL;
    size_t n;

    SC_TRY(sc__shape_get_tensor(c, "self", &self));
    SC_TRY(sc__shape_get_tensor(c, "mask", &mask));
    if (mask.dtype != SC_DTYPE_B8)
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "masked_select: expected BoolTensor for mask");
    SC_TRY(sc__shape_broadcast(c, self.ndim, self.sizes, mask.ndim,
                               mask.sizes, &n, &bc));
    numel = sc__shape_numel(c->ctx, n, bc);
    sc_graph_node_result(c->g, c->id, &decl);
    if (decl.kind == SC_RESULT_TENSOR && decl.tensor.ndim == 1 &&
        sc_expr_is_symbol(decl.tensor.sizes[0])) {
        u = decl.tensor.sizes[0];
        if (!(c->env && sc_env_has_symbol(c->env, u)))
            name = sc_expr_symbol_name(u);
        else
            goto have;
    }
    if (!c->env) {
        SC_TRY(sc_env_new(c->ctx, NULL, &c->g->env, c->err));
        c->g->owns_env = true;
        c->env = c->g->env;
    }
    SC_TRY(sc_env_create_unbacked(c->env, name, NULL, SC_ENV_SIZE_LIKE, &u,
                                  c->err));
have:
    SC_TRY(sc__shape_check(c, sc_expr_le(c->ctx, u, numel),
                           "masked_select count exceeds numel"));
    d = sc__shape_dims(c, 1);
    if (!d)
        return SC_ERR_NOMEM;
    d[0] = u;
    SC_TRY(sc__shape_outputs(c, 1));
    return sc__shape_set_tensor(c, 0, self.dtype, 1, d, NULL, &self);
}

/* slice_scatter / select_scatter: a new tensor like self (preserve). */
sc_status sc__shape_like_self_preserve(struct sc__shape_call *c)
{
    sc_tensor_meta self;
    sc_expr **d, **st = NULL;

    SC_TRY(sc__shape_get_tensor(c, "self", &self));
    if (self.has_strides)
        SC_TRY(sc__shape_preserve_strides(c, &self, &st));
    d = sc__shape_copy_sizes(c, &self);
    if (!d)
        return SC_ERR_NOMEM;
    SC_TRY(sc__shape_outputs(c, 1));
    return sc__shape_set_tensor(c, 0, self.dtype, self.ndim, d, st, &self);
}

sc_status sc__shape_constant_pad_nd(struct sc__shape_call *c)
{
    sc_tensor_meta self;
    sc_expr **pad, **d;
    size_t n, i;
    bool present;

    SC_TRY(sc__shape_get_tensor(c, "self", &self));
    SC_TRY(sc__shape_get_symint_list(c, "pad", &pad, &n, &present));
    if (n % 2 != 0)
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "Length of pad must be even but instead it "
                              "equals %zu", n);
    if (n / 2 > self.ndim)
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "Length of pad should be no more than twice "
                              "the number of dimensions of the input");
    d = sc__shape_copy_sizes(c, &self);
    if (!d)
        return SC_ERR_NOMEM;
    for (i = 0; i < n / 2; i++) {
        size_t k = self.ndim - 1 - i;
        d[k] = sc_expr_add(c->ctx, d[k],
                           sc_expr_add(c->ctx, pad[2 * i], pad[2 * i + 1]));
        if (!d[k])
            return sc__shape_expr_error(c);
        SC_TRY(sc__shape_check(c, sc_expr_ge(c->ctx, d[k],
                                             sc_expr_int_si(c->ctx, 0)),
                               "the padded size would be negative"));
    }
    SC_TRY(sc__shape_outputs(c, 1));
    return sc__shape_set_tensor(c, 0, self.dtype, self.ndim, d, NULL, &self);
}

sc_status sc__shape_baddbmm(struct sc__shape_call *c)
{
    sc_tensor_meta self, b1, b2;
    sc_expr **d, **bc;
    size_t n;

    SC_TRY(sc__shape_get_tensor(c, "self", &self));
    SC_TRY(sc__shape_get_tensor(c, "batch1", &b1));
    SC_TRY(sc__shape_get_tensor(c, "batch2", &b2));
    SC_TRY(sc__shape_need_dims(c, "batch1", &b1, 3, 3));
    SC_TRY(sc__shape_need_dims(c, "batch2", &b2, 3, 3));
    SC_TRY(sc__shape_check_eq(c, b1.sizes[0], b2.sizes[0],
                              "batch1 and batch2 differ in batch size"));
    SC_TRY(sc__shape_check_eq(c, b1.sizes[2], b2.sizes[1],
                              "batch1 and batch2 shapes cannot be "
                              "multiplied"));
    d = sc__shape_dims(c, 3);
    if (!d)
        return SC_ERR_NOMEM;
    d[0] = b1.sizes[0];
    d[1] = b1.sizes[1];
    d[2] = b2.sizes[2];
    SC_TRY(sc__shape_broadcast(c, self.ndim, self.sizes, 3, d, &n, &bc));
    if (n != 3)
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "self does not broadcast to the product");
    SC_TRY(sc__shape_outputs(c, 1));
    return sc__shape_set_tensor(c, 0, b1.dtype, 3, d, NULL, &b1);
}

/* diagonal_backward(grad_output, input_sizes, offset, dim1, dim2): a
 * contiguous tensor of input_sizes in grad_output's dtype; grad_output
 * has the diagonal's rank and its sizes outside the diagonal. */
sc_status sc__shape_diagonal_backward(struct sc__shape_call *c)
{
    sc_tensor_meta go;
    sc_expr **sizes;
    size_t n, d1, d2, i, k = 0;
    int64_t a1, a2, off;
    bool present;

    SC_TRY(sc__shape_get_tensor(c, "grad_output", &go));
    SC_TRY(sc__shape_get_symint_list(c, "input_sizes", &sizes, &n,
                                     &present));
    SC_TRY(sc__shape_get_int(c, "offset", 0, &off));
    SC_TRY(sc__shape_get_int(c, "dim1", 0, &a1));
    SC_TRY(sc__shape_get_int(c, "dim2", 1, &a2));
    if (n < 2)
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "diagonal_backward: input_sizes needs at least "
                              "2 dims, got %zu", n);
    SC_TRY(sc__shape_wrap_dim(c, a1, n, &d1));
    SC_TRY(sc__shape_wrap_dim(c, a2, n, &d2));
    if (d1 == d2)
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "diagonal dimensions cannot be identical %lld, "
                              "%lld", (long long)a1, (long long)a2);
    if (go.ndim != n - 1)
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "diagonal_backward: grad_output has %zu dims, "
                              "the diagonal of input_sizes %zu",
                              go.ndim, n - 1);
    for (i = 0; i < n; i++)
        if (i != d1 && i != d2)
            SC_TRY(sc__shape_check_eq(c, go.sizes[k++], sizes[i],
                                      "diagonal_backward: grad_output and "
                                      "input_sizes differ outside the "
                                      "diagonal"));
    SC_TRY(sc__shape_outputs(c, 1));
    return sc__shape_set_tensor(c, 0, go.dtype, n, sizes, NULL, &go);
}

/* ceil(n / m) * m. */
static sc_expr *round_up(struct sc__shape_call *c, sc_expr *n, int64_t m)
{
    sc_expr *k = sc_expr_int_si(c->ctx, m);
    sc_expr *q = sc_expr_floordiv(c->ctx, sc_expr_add_si(c->ctx, n, m - 1), k);
    return sc_expr_mul(c->ctx, q, k);
}

static sc_status sdpa_qkv(struct sc__shape_call *c, sc_tensor_meta *q,
                          sc_tensor_meta *k, sc_tensor_meta *v)
{
    SC_TRY(sc__shape_get_tensor(c, "query", q));
    SC_TRY(sc__shape_get_tensor(c, "key", k));
    SC_TRY(sc__shape_get_tensor(c, "value", v));
    SC_TRY(sc__shape_need_dims(c, "query", q, 4, 4));
    SC_TRY(sc__shape_need_dims(c, "key", k, 4, 4));
    SC_TRY(sc__shape_need_dims(c, "value", v, 4, 4));
    SC_TRY(sc__shape_check_eq(c, q->sizes[3], k->sizes[3],
                              "query and key differ in their last size"));
    return sc__shape_check_eq(c, k->sizes[2], v->sizes[2],
                              "key and value differ in their sequence size");
}

/* _scaled_dot_product_efficient_attention: the output [B, H, L, Ev] dense
 * in the order [B, L, H, Ev]; float32 (float64 for float64 inputs)
 * log_sumexp [B, H, ceil(L/32)*32] (compute_log_sumexp) or [B, H, 0],
 * contiguous; 0-d int64 philox_seed and philox_offset. */
sc_status sc__shape_sdpa_efficient(struct sc__shape_call *c)
{
    sc_tensor_meta q, k, v;
    sc_expr **d, **st;
    size_t i;

    SC_TRY(sdpa_qkv(c, &q, &k, &v));
    SC_TRY(sc__shape_outputs(c, 4));
    d = sc__shape_dims(c, 4);
    if (!d)
        return SC_ERR_NOMEM;
    memcpy(d, q.sizes, 3 * sizeof *d);
    d[3] = v.sizes[3];
    SC_TRY(blhe_strides(c, 4, d, &st));
    SC_TRY(sc__shape_set_tensor(c, 0, q.dtype, 4, d, st, &q));
    d = sc__shape_dims(c, 3);
    if (!d)
        return SC_ERR_NOMEM;
    d[0] = q.sizes[0];
    d[1] = q.sizes[1];
    d[2] = sc__shape_get_bool(c, "compute_log_sumexp", false)
               ? round_up(c, q.sizes[2], 32)
               : sc_expr_int_si(c->ctx, 0);
    if (!d[2])
        return sc__shape_expr_error(c);
    /* float32 as torch's meta function says; float64 for float64 inputs,
     * which torch's kernel refuses (symcut's gradcheck runs in float64) */
    SC_TRY(sc__shape_set_tensor(c, 1,
                                q.dtype == SC_DTYPE_F64 ? SC_DTYPE_F64
                                                        : SC_DTYPE_F32,
                                3, d, NULL, &q));
    for (i = 2; i < 4; i++)
        SC_TRY(sc__shape_set_tensor(c, i, SC_DTYPE_I64, 0, NULL, NULL, &q));
    return SC_OK;
}

/* _scaled_dot_product_efficient_attention_backward: grad_query, grad_key
 * and grad_value like query, key and value, dense in the order
 * [B, L, H, E]; grad_attn_bias (when attn_bias is given and
 * grad_input_mask[3]) of attn_bias's sizes in a buffer whose last dim is
 * rounded up to a multiple of 16, as torch's meta function allocates it. */
sc_status sc__shape_sdpa_efficient_backward(struct sc__shape_call *c)
{
    sc_tensor_meta q, k, v, t, bias;
    const sc_tensor_meta *qkv[3] = {&q, &k, &v};
    sc_expr **d, **st;
    bool has_bias;
    size_t i;

    SC_TRY(sdpa_qkv(c, &q, &k, &v));
    SC_TRY(sc__shape_get_tensor(c, "grad_out_", &t));
    SC_TRY(sc__shape_need_dims(c, "grad_out_", &t, 4, 4));
    SC_TRY(sc__shape_get_tensor_opt(c, "attn_bias", &bias, &has_bias));
    SC_TRY(sc__shape_outputs(c, 4));
    for (i = 0; i < 3; i++) {
        d = sc__shape_copy_sizes(c, qkv[i]);
        if (!d)
            return SC_ERR_NOMEM;
        SC_TRY(blhe_strides(c, 4, d, &st));
        SC_TRY(sc__shape_set_tensor(c, i, qkv[i]->dtype, 4, d, st, qkv[i]));
    }
    if (!has_bias || !sc__shape_get_bool_at(c, "grad_input_mask", 3, true)) {
        c->out[3].kind = SC_RESULT_NONE;
        return SC_OK;
    }
    SC_TRY(sc__shape_need_dims(c, "attn_bias", &bias, 1, 64));
    d = sc__shape_copy_sizes(c, &bias);
    st = sc__shape_dims(c, bias.ndim);
    if (!d || !st)
        return SC_ERR_NOMEM;
    {
        sc_expr **padded = sc__shape_copy_sizes(c, &bias);
        if (!padded)
            return SC_ERR_NOMEM;
        padded[bias.ndim - 1] = round_up(c, bias.sizes[bias.ndim - 1], 16);
        if (!padded[bias.ndim - 1])
            return sc__shape_expr_error(c);
        SC_TRY(sc__shape_contiguous(c, bias.ndim, padded, st));
    }
    return sc__shape_set_tensor(c, 3, bias.dtype, bias.ndim, d, st, &bias);
}
