/* symcut — shape rules of the prims of decomposed graphs
 * (torch.ops.prims.broadcast_in_dim, iota, device_put, add, mul, sum):
 * torch 2.13's prims meta functions, sizes and strides. */
#include <config.h>

#include <string.h>

#include "graph/shapes.h"

/* guard_or_false / guard_or_true: the answer when the shape environment
 * can give one (statically, or a guard on backed symbols), else dflt. */
static sc_status guard_or(struct sc__shape_call *c, sc_expr *cond, bool dflt,
                          bool *out)
{
    sc_tri t;
    *out = dflt;
    if (!cond)
        return sc__shape_expr_error(c);
    SC_TRY(sc__shape_decide(c, cond, &t));
    *out = t == SC_TRI_UNKNOWN ? dflt : t == SC_TRI_TRUE;
    return SC_OK;
}

static sc_expr *one(struct sc__shape_call *c)
{
    return sc_expr_int_si(c->ctx, 1);
}

/* ---- broadcast_in_dim ---------------------------------------------------- */

/* broadcast_in_dim(Tensor(a) a, SymInt[] shape, int[] broadcast_dimensions):
 * a view of a at shape.  a's dim i becomes dim broadcast_dimensions[i]
 * (strictly ascending, each below len(shape)), of size 1 or shape's; its
 * stride is kept unless it is broadcast (1 -> n: stride 0).  A new dim
 * has stride 0 unless its size is 1: then the stride a would have next
 * (stride * size of a's next dim, or 1 after a's last). */
sc_status sc__shape_prims_broadcast_in_dim(struct sc__shape_call *c)
{
    sc_tensor_meta a;
    sc_expr **shape, **bd, **d, **s, *zero = sc_expr_int_si(c->ctx, 0);
    size_t n, nb, i, orig = 0;
    bool present;
    int64_t prev = -1, *dims;

    SC_TRY(sc__shape_get_tensor(c, "a", &a));
    SC_TRY(sc__shape_outputs(c, 1));
    if (!a.has_strides) {
        sc_expr **ds = sc__shape_dims(c, a.ndim);
        if (!ds)
            return SC_ERR_NOMEM;
        SC_TRY(sc__shape_contiguous(c, a.ndim, a.sizes, ds));
        a.strides = ds;
    }
    SC_TRY(sc__shape_get_symint_list(c, "shape", &shape, &n, &present));
    SC_TRY(sc__shape_get_symint_list(c, "broadcast_dimensions", &bd, &nb,
                                     &present));
    if (a.ndim != nb)
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "a.ndim (%zu) != len(broadcast_dimensions) "
                              "(%zu)", a.ndim, nb);
    if (n < a.ndim)
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "len(shape) (%zu) must be >= a.ndim (%zu)", n,
                              a.ndim);
    dims = sc__arena_alloc(&c->g->arena, (nb ? nb : 1) * sizeof *dims);
    if (!dims)
        return sc__error_nomem(c->err);
    for (i = 0; i < nb; i++) {
        if (!sc_expr_value_si(bd[i], &dims[i]))
            return sc__shape_fail(c, SC_ERR_UNSUPPORTED,
                                  "symbolic broadcast dimension");
        if (dims[i] <= prev)
            return sc__shape_fail(c, SC_ERR_SHAPE,
                                  "broadcast_dimensions must be strictly "
                                  "ascending: %lld <= %lld",
                                  (long long)dims[i], (long long)prev);
        if (dims[i] >= (int64_t)n)
            return sc__shape_fail(c, SC_ERR_SHAPE,
                                  "broadcast_dimension %lld out of bounds "
                                  "for shape of length %zu",
                                  (long long)dims[i], n);
        prev = dims[i];
    }
    for (i = 0; i < nb; i++) {
        bool is1;
        SC_TRY(guard_or(c, sc_expr_eq(c->ctx, a.sizes[i], one(c)), false,
                        &is1));
        if (!is1)
            SC_TRY(sc__shape_check_eq(c, shape[dims[i]], a.sizes[i],
                                      "must be broadcastable to"));
    }
    d = sc__shape_dims(c, n);
    s = sc__shape_dims(c, n);
    if (!d || !s)
        return SC_ERR_NOMEM;
    for (i = 0; i < n; i++) {
        d[i] = shape[i];
        if (orig < nb && dims[orig] == (int64_t)i) {
            bool is1 = false, same = false;
            SC_TRY(guard_or(c, sc_expr_eq(c->ctx, a.sizes[orig], one(c)),
                            false, &is1));
            if (is1)
                SC_TRY(guard_or(c, sc_expr_eq(c->ctx, a.sizes[orig],
                                              shape[i]), false, &same));
            s[i] = is1 && !same ? zero : a.strides[orig];
            orig++;
        } else {
            bool not1;
            SC_TRY(guard_or(c, sc_expr_ne(c->ctx, shape[i], one(c)), true,
                            &not1));
            if (not1)
                s[i] = zero;
            else if (orig == a.ndim)
                s[i] = one(c);
            else
                s[i] = sc_expr_mul(c->ctx, a.strides[orig], a.sizes[orig]);
            if (!s[i])
                return sc__shape_expr_error(c);
        }
    }
    return sc__shape_set_tensor(c, 0, a.dtype, n, d, s, &a);
}

/* ---- iota ------------------------------------------------------------------ */

/* iota(SymInt length, *, SymInt start, SymInt step, ScalarType dtype,
 * Device device, bool requires_grad): [length], contiguous, dtype an
 * integer type, step nonzero, length >= 0 (torch.empty's check). */
sc_status sc__shape_prims_iota(struct sc__shape_call *c)
{
    sc_expr *len, *step, **d;
    sc_dtype dtype;
    const sc_value *dev = sc__shape_arg(c, "device", NULL);
    bool zero;

    SC_TRY(sc__shape_outputs(c, 1));
    SC_TRY(sc__shape_get_symint(c, "length", &len));
    SC_TRY(sc__shape_get_symint(c, "step", &step));
    if (!len || !step)
        return sc__shape_fail(c, SC_ERR_SHAPE, "length and step must be "
                                               "integers");
    if (!sc__shape_get_dtype(c, "dtype", &dtype))
        return sc__shape_fail(c, SC_ERR_SHAPE, "no dtype");
    if (!sc__dtype_is_integral(dtype, false))
        return sc__shape_fail(c, SC_ERR_SHAPE,
                              "prims.iota only supports integer dtypes");
    SC_TRY(guard_or(c, sc_expr_eq(c->ctx, step, sc_expr_int_si(c->ctx, 0)),
                    false, &zero));
    if (zero)
        return sc__shape_fail(c, SC_ERR_SHAPE, "step must be nonzero");
    SC_TRY(sc__shape_check(c, sc_expr_ge(c->ctx, len,
                                         sc_expr_int_si(c->ctx, 0)),
                           "negative dimensions are not allowed"));
    d = sc__shape_dims(c, 1);
    if (!d)
        return SC_ERR_NOMEM;
    d[0] = len;
    SC_TRY(sc__shape_set_tensor(c, 0, dtype, 1, d, NULL, NULL));
    if (dev && dev->kind == SC_VALUE_DEVICE) {
        c->out[0].tensor.has_device = true;
        c->out[0].tensor.device = dev->u.device;
    }
    return SC_OK;
}

/* ---- device_put ------------------------------------------------------------ */

/* device_put(Tensor a, Device device, bool non_blocking=False): a's sizes,
 * strides and dtype (TensorMeta of a) on device. */
sc_status sc__shape_prims_device_put(struct sc__shape_call *c)
{
    sc_tensor_meta a;
    sc_expr **d, **s;
    const sc_value *dev = sc__shape_arg(c, "device", NULL);

    SC_TRY(sc__shape_get_tensor(c, "a", &a));
    SC_TRY(sc__shape_outputs(c, 1));
    if (!dev || dev->kind != SC_VALUE_DEVICE)
        return sc__shape_fail(c, SC_ERR_UNSUPPORTED, "device must be a "
                                                     "torch.device");
    SC_TRY(sc__shape_copy_meta(c, &a, &d, &s));
    if (!a.has_strides)
        SC_TRY(sc__shape_contiguous(c, a.ndim, a.sizes, s));
    SC_TRY(sc__shape_set_tensor(c, 0, a.dtype, a.ndim, d, s, &a));
    c->out[0].tensor.has_device = true;
    c->out[0].tensor.device = dev->u.device;
    return SC_OK;
}

/* ---- add, mul ----------------------------------------------------------------- */

static bool is_cpu_scalar(const sc_tensor_meta *t)
{
    return t->ndim == 0 &&
           (!t->has_device || t->device.type == SC_DEVICE_CPU);
}

/* is_contiguous_for_memory_format_or_false: contiguous (numel < 2, or
 * nested strides skipping size-1 dims) or, for 4 dims, channels-last. */
static sc_status layout_is(struct sc__shape_call *c, const sc_tensor_meta *t,
                           bool channels_last, bool *out)
{
    static const size_t cl[4] = {1, 3, 2, 0};
    sc_expr *expected = one(c);
    bool small;
    size_t k;

    *out = false;
    if (!t->has_strides)
        return SC_OK;
    if (channels_last && t->ndim != 4)
        return SC_OK;
    if (!channels_last) {
        SC_TRY(guard_or(c, sc_expr_lt(c->ctx,
                                      sc__shape_numel(c->ctx, t->ndim,
                                                      t->sizes),
                                      sc_expr_int_si(c->ctx, 2)),
                        false, &small));
        if (small) {
            *out = true;
            return SC_OK;
        }
    }
    for (k = 0; k < t->ndim; k++) {
        size_t i = channels_last ? cl[k] : t->ndim - 1 - k;
        bool is1, ne;
        SC_TRY(guard_or(c, sc_expr_eq(c->ctx, t->sizes[i], one(c)), false,
                        &is1));
        if (is1)
            continue;
        SC_TRY(guard_or(c, sc_expr_ne(c->ctx, t->strides[i], expected), true,
                        &ne));
        if (ne)
            return SC_OK;
        expected = sc_expr_mul(c->ctx, expected, t->sizes[i]);
        if (!expected)
            return sc__shape_expr_error(c);
    }
    *out = true;
    return SC_OK;
}

/* prims' elementwise binary ops: add(Tensor self, Tensor other), mul.
 * Every tensor operand has one dtype; those that are not 0-d CPU tensors
 * have one shape (a Python number may stand for either operand).  The
 * result is empty_permuted(shape, perm) with perm from
 * compute_elementwise_output_logical_to_physical_perm: identity when every
 * operand is contiguous and not all channels-last, channels-last when
 * all are channels-last and not all contiguous, else the stride sort. */
sc_status sc__shape_prims_elementwise(struct sc__shape_call *c)
{
    static const char *const names[2] = {"self", "other"};
    sc_tensor_meta ts[2];
    const sc_tensor_meta *ref = NULL, *real[2];
    size_t nt = 0, nreal = 0, i, *perm;
    sc_expr **d, **s, *const *st[2];
    bool contig = true, cl = true;

    SC_TRY(sc__shape_outputs(c, 1));
    for (i = 0; i < 2; i++) {
        const sc_value *v = sc__shape_arg(c, names[i], NULL);
        if (v && v->kind == SC_VALUE_NODE) {
            SC_TRY(sc__shape_value_tensor(c, v, &ts[nt]));
            nt++;
        } else if (!v || (v->kind != SC_VALUE_INT &&
                          v->kind != SC_VALUE_FLOAT &&
                          v->kind != SC_VALUE_BOOL &&
                          v->kind != SC_VALUE_SYMINT))
            return sc__shape_fail(c, SC_ERR_TYPE, "%s must be a Tensor or a "
                                                  "number", names[i]);
    }
    if (nt == 0)
        return sc__shape_fail(c, SC_ERR_UNSUPPORTED,
                              "no tensor operand (a number result)");
    for (i = 0; i < nt; i++) {
        if (ts[i].dtype != ts[0].dtype)
            return sc__shape_fail(c, SC_ERR_SHAPE,
                                  "Tensor with dtype %s is not the expected "
                                  "dtype of %s!", sc_dtype_code(ts[i].dtype),
                                  sc_dtype_code(ts[0].dtype));
        if (is_cpu_scalar(&ts[i]))
            continue;
        if (!ref)
            ref = &ts[i];
        else {
            size_t k;
            bool same = ts[i].ndim == ref->ndim;
            for (k = 0; same && k < ref->ndim; k++) {
                bool eq;
                SC_TRY(guard_or(c, sc_expr_eq(c->ctx, ts[i].sizes[k],
                                              ref->sizes[k]), false, &eq));
                same = eq;
            }
            if (!same)
                return sc__shape_fail(c, SC_ERR_SHAPE,
                                      "operands of different shapes (prims "
                                      "do not broadcast)");
        }
        real[nreal++] = &ts[i];
    }
    if (!ref)
        ref = &ts[0];
    d = sc__shape_copy_sizes(c, ref);
    s = sc__shape_dims(c, ref->ndim);
    perm = sc__arena_alloc(&c->g->arena, (ref->ndim ? ref->ndim : 1) *
                                             sizeof *perm);
    if (!d || !s || !perm)
        return SC_ERR_NOMEM;
    for (i = 0; i < ref->ndim; i++)
        perm[i] = i;
    if (nreal > 0 && ref->ndim > 1) {
        for (i = 0; i < nreal; i++) {
            bool a, b;
            SC_TRY(layout_is(c, real[i], false, &a));
            SC_TRY(layout_is(c, real[i], true, &b));
            contig = contig && a;
            cl = cl && b;
            st[i] = real[i]->has_strides ? real[i]->strides : NULL;
        }
        if (contig && !cl)
            ; /* identity */
        else if (cl && !contig) {
            perm[1] = 2;
            perm[2] = 3;
            perm[3] = 1;
        } else
            SC_TRY(sc__shape_elementwise_perm(c, ref->ndim, ref->sizes, nreal,
                                              st, perm));
    }
    SC_TRY(sc__shape_dense_in_order(c, ref->ndim, d, perm, s));
    return sc__shape_set_tensor(c, 0, ts[0].dtype, ref->ndim, d, s, ref);
}

/* ---- sum --------------------------------------------------------------------- */

/* sum(Tensor inp, int[]? dims, *, ScalarType? output_dtype=None): inp's
 * sizes without dims (each in range, not wrapped; None is an error, as in
 * torch's meta function),
 * contiguous, in output_dtype or inp's dtype. */
sc_status sc__shape_prims_reduction(struct sc__shape_call *c)
{
    sc_tensor_meta inp;
    sc_expr **dims, **d;
    size_t n, i, k = 0;
    bool present, drop[64] = {false};
    sc_dtype dtype;

    SC_TRY(sc__shape_get_tensor(c, "inp", &inp));
    SC_TRY(sc__shape_outputs(c, 1));
    if (inp.ndim > 64)
        return sc__shape_fail(c, SC_ERR_LIMIT, "too many dimensions");
    SC_TRY(sc__shape_get_symint_list(c, "dims", &dims, &n, &present));
    if (!present)
        return sc__shape_fail(c, SC_ERR_SHAPE, "dims must be a list (torch's "
                                               "meta function cannot "
                                               "iterate None)");
    for (i = 0; i < n; i++) {
        int64_t v;
        if (!sc_expr_value_si(dims[i], &v))
            return sc__shape_fail(c, SC_ERR_UNSUPPORTED, "symbolic dim");
        /* validate_idx: 0 <= v < max(ndim, 1) */
        if (v < 0 || v >= (int64_t)(inp.ndim ? inp.ndim : 1))
            return sc__shape_fail(c, SC_ERR_SHAPE,
                                  "dim %lld out of range for a %zu-d tensor",
                                  (long long)v, inp.ndim);
        if ((size_t)v < inp.ndim)
            drop[v] = true;
    }
    if (!sc__shape_get_dtype(c, "output_dtype", &dtype))
        dtype = inp.dtype;
    d = sc__shape_dims(c, inp.ndim);
    if (!d)
        return SC_ERR_NOMEM;
    for (i = 0; i < inp.ndim; i++)
        if (!drop[i])
            d[k++] = inp.sizes[i];
    return sc__shape_set_tensor(c, 0, dtype, k, d, NULL, &inp);
}
