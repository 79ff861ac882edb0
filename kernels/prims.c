/* symcut — kernels of the prims of decomposed graphs: broadcast_in_dim
 * (a view), iota, device_put, add, mul and sum, as torch 2.13's prims
 * compute them on the CPU (their aten implementations).  prims.sum
 * follows the summation order of torch's CPU sum kernel (see sum_order
 * below and doc/ops.md), so that float results are torch's bit for bit. */
#include "kernels/kernels-internal.h"

/* ---- broadcast_in_dim ------------------------------------------------------ */

/* broadcast_in_dim(Tensor(a) a, SymInt[] shape, int[] broadcast_dimensions):
 * a view of a (the strides of graph/shapes-prims.c's rule). */
sc_status sc__kernel_prims_broadcast_in_dim(sc__kernel_call *call)
{
    const sc_tensor *x;
    const int64_t *shape, *bd;
    int64_t strides[SC_TENSOR_MAX_DIMS], prev = -1;
    size_t n, nb, i, orig = 0;
    sc_tensor *r = NULL;

    SC_TRY(sc__arg_tensor(call, SC_KARG_PRIMS_BROADCAST_IN_DIM_A, &x));
    SC_TRY(sc__arg_ints(call, SC_KARG_PRIMS_BROADCAST_IN_DIM_SHAPE, &n,
                        &shape));
    SC_TRY(sc__arg_ints(call,
                        SC_KARG_PRIMS_BROADCAST_IN_DIM_BROADCAST_DIMENSIONS,
                        &nb, &bd));
    if (nb != x->ndim || n < x->ndim || n > SC_TENSOR_MAX_DIMS)
        return sc__error_set(call->err, SC_ERR_SHAPE,
                             "broadcast_in_dim: %zu broadcast dimensions and "
                             "a shape of %zu for a %zu-d tensor", nb, n,
                             x->ndim);
    for (i = 0; i < nb; i++) {
        if (bd[i] <= prev || bd[i] >= (int64_t)n)
            return sc__error_set(call->err, SC_ERR_SHAPE,
                                 "broadcast_in_dim: broadcast dimension "
                                 "%lld out of order or out of bounds",
                                 (long long)bd[i]);
        if (x->sizes[i] != 1 && x->sizes[i] != shape[bd[i]])
            return sc__error_set(call->err, SC_ERR_SHAPE,
                                 "broadcast_in_dim: %lld must be "
                                 "broadcastable to %lld",
                                 (long long)x->sizes[i],
                                 (long long)shape[bd[i]]);
        prev = bd[i];
    }
    for (i = 0; i < n; i++) {
        if (shape[i] < 0)
            return sc__error_set(call->err, SC_ERR_SHAPE,
                                 "broadcast_in_dim: negative size %lld",
                                 (long long)shape[i]);
        if (orig < nb && bd[orig] == (int64_t)i) {
            strides[i] = x->sizes[orig] == 1 && shape[i] != 1
                             ? 0 : x->strides[orig];
            orig++;
        } else if (shape[i] != 1)
            strides[i] = 0;
        else if (orig == x->ndim)
            strides[i] = 1;
        else
            strides[i] = x->strides[orig] * x->sizes[orig];
    }
    SC_TRY(sc_tensor_view_as_strided(x, n, shape, strides, x->offset, &r,
                                     call->err));
    return sc__out(call, r);
}

/* ---- iota ------------------------------------------------------------------ */

/* iota(SymInt length, *, SymInt start, SymInt step, ScalarType dtype,
 * Device device, bool requires_grad): start + i * step for i < length,
 * computed in int64 (wrapping) and stored in dtype (wrapping), as
 * torch.arange(start, start + length * step, step, dtype=dtype). */
sc_status sc__kernel_prims_iota(sc__kernel_call *call)
{
    int64_t len, start, step, shape[1];
    sc_dtype dtype;
    sc_tensor *r = NULL;
    unsigned char *p;
    size_t item, i;

    SC_TRY(sc__arg_int(call, SC_KARG_PRIMS_IOTA_LENGTH, &len));
    SC_TRY(sc__arg_int(call, SC_KARG_PRIMS_IOTA_START, &start));
    SC_TRY(sc__arg_int(call, SC_KARG_PRIMS_IOTA_STEP, &step));
    SC_TRY(sc__arg_dtype(call, SC_KARG_PRIMS_IOTA_DTYPE, SC_DTYPE_I64,
                         &dtype));
    if (!sc__dtype_is_integral(dtype, false))
        return sc__error_set(call->err, SC_ERR_TYPE,
                             "prims.iota only supports integer dtypes");
    if (step == 0)
        return sc__error_set(call->err, SC_ERR_INVALID,
                             "prims.iota: step must be nonzero");
    if (len < 0)
        return sc__error_set(call->err, SC_ERR_SHAPE,
                             "prims.iota: negative length %lld",
                             (long long)len);
    shape[0] = len;
    SC_TRY(sc__new(dtype, 1, shape, &r, call->err));
    p = sc_tensor_data(r);
    item = sc_dtype_itemsize(dtype);
    for (i = 0; i < (size_t)len; i++)
        sc__store_i64(p + i * item, dtype,
                      (int64_t)((uint64_t)start +
                                (uint64_t)i * (uint64_t)step));
    return sc__out(call, r);
}

/* ---- device_put ------------------------------------------------------------ */

/* device_put(Tensor a, Device device, bool non_blocking=False): every
 * device is the CPU here (sc_interp_foreign_devices); a copy of a. */
sc_status sc__kernel_prims_device_put(sc__kernel_call *call)
{
    const sc_tensor *x;
    sc_tensor *r = NULL;
    SC_TRY(sc__arg_tensor(call, SC_KARG_PRIMS_DEVICE_PUT_A, &x));
    if (call->args[SC_KARG_PRIMS_DEVICE_PUT_DEVICE].kind != SC__KARG_STR)
        return sc__error_set(call->err, SC_ERR_TYPE,
                             "device_put: argument 1 must be a device");
    SC_TRY(sc_tensor_clone(x, &r, call->err));
    return sc__out(call, r);
}

/* ---- add, mul ----------------------------------------------------------------- */

/* One operand: a tensor (0-d ones broadcast) or a Python number. */
typedef struct operand {
    const sc_tensor *t;
    bool is_float;              /* a number: float or int */
    double f;
    int64_t i;
} operand;

static sc_status get_operand(sc__kernel_call *c, size_t k, operand *o)
{
    const sc__karg *a = &c->args[k];
    memset(o, 0, sizeof *o);
    switch (a->kind) {
    case SC__KARG_TENSOR:
        o->t = a->u.t;
        return SC_OK;
    case SC__KARG_INT:
        o->i = a->u.i;
        o->f = (double)a->u.i;
        return SC_OK;
    case SC__KARG_BOOL:
        o->i = a->u.b;
        o->f = a->u.b;
        return SC_OK;
    case SC__KARG_FLOAT:
        o->is_float = true;
        o->f = a->u.f;
        return SC_OK;
    default:
        return sc__error_set(c->err, SC_ERR_TYPE,
                             "kernel argument %zu: expected a tensor or a "
                             "number", k);
    }
}

/* Between two 0-d operands of different dtypes one is a Python number,
 * which the interpreter passes as a 0-d f32, i64 or b8 tensor: the other
 * dtype is the tensor's; f32 before i64 (a float tensor and an int
 * number: an int tensor with a float number is refused anyway). */
static int zero_d_rank(const sc_tensor *t)
{
    switch (t->dtype) {
    case SC_DTYPE_F32: return 2;
    case SC_DTYPE_I64: return 1;
    case SC_DTYPE_B8: return 0;
    default: return 3;
    }
}

static sc_status binary(sc__kernel_call *c, size_t ia, size_t ib, bool mul)
{
    operand o[2];
    const sc_tensor *ref = NULL;
    int64_t st[2][SC_TENSOR_MAX_DIMS];
    sc__iter it[2];
    sc_tensor *r = NULL;
    sc_dtype dt;
    unsigned char *out;
    size_t numel, item, n, k, d;
    const char *name = mul ? "prims.mul" : "prims.add";

    SC_TRY(get_operand(c, ia, &o[0]));
    SC_TRY(get_operand(c, ib, &o[1]));
    for (k = 0; k < 2; k++) {
        const sc_tensor *t = o[k].t;
        if (!t)
            continue;
        if (!ref || (ref->ndim == 0 &&
                     (t->ndim > 0 || zero_d_rank(t) > zero_d_rank(ref))))
            ref = t;
    }
    if (!ref)
        return sc__error_set(c->err, SC_ERR_TYPE, "%s: no tensor operand",
                             name);
    dt = ref->dtype;
    for (k = 0; k < 2; k++)
        /* a Python number reaches a Tensor argument as a 0-d tensor of
         * its own dtype (the rule refused real tensors of another dtype) */
        if (o[k].t && o[k].t != ref && o[k].t->ndim == 0 &&
            o[k].t->dtype != dt) {
            const sc_tensor *w = o[k].t;
            o[k].t = NULL;
            o[k].is_float = sc__dtype_is_float(w->dtype);
            o[k].f = sc_tensor_item_double(w, 0);
            o[k].i = sc_tensor_item_int64(w, 0);
        }
    for (k = 0; k < 2; k++) {
        if (o[k].t && o[k].t->dtype != dt)
            return sc__error_set(c->err, SC_ERR_TYPE,
                                 "%s: operands of dtypes %s and %s", name,
                                 sc_dtype_code(dt),
                                 sc_dtype_code(o[k].t->dtype));
        if (o[k].t && o[k].t->ndim > 0 &&
            !sc_tensor_same_shape(o[k].t, ref))
            return sc__error_set(c->err, SC_ERR_SHAPE,
                                 "%s: operands of different shapes", name);
        if (!o[k].t && o[k].is_float && !sc__dtype_is_float(dt))
            return sc__error_set(c->err, SC_ERR_UNSUPPORTED,
                                 "%s: a float number with a %s tensor "
                                 "(torch's meta function and its kernel "
                                 "disagree on the dtype)", name,
                                 sc_dtype_code(dt));
    }
    SC_TRY(sc__new(dt, ref->ndim, ref->sizes, &r, c->err));
    SC_TRY(sc__numel_checked(ref->ndim, ref->sizes, &numel, c->err));
    item = sc_dtype_itemsize(dt);
    for (k = 0; k < 2; k++) {
        for (d = 0; d < ref->ndim; d++)
            st[k][d] = o[k].t && o[k].t->ndim > 0 ? o[k].t->strides[d] : 0;
        sc__iter_init(&it[k], ref->ndim, ref->sizes, st[k], item);
    }
    out = sc_tensor_data(r);
    for (n = 0; n < numel; n++) {
        const unsigned char *p[2];
        for (k = 0; k < 2; k++)
            p[k] = o[k].t ? (const unsigned char *)sc_tensor_data(o[k].t) +
                                it[k].pos
                          : NULL;
        if (dt == SC_DTYPE_F64) {
            double a = p[0] ? sc__load_f64(p[0], dt) : o[0].f;
            double b = p[1] ? sc__load_f64(p[1], dt) : o[1].f;
            *(double *)(out + n * item) = mul ? a * b : a + b;
        } else if (sc__dtype_is_float(dt)) {
            /* f32, and f16/bf16 in float (torch's opmath), rounded once */
            float a = p[0] ? sc__load_f32(p[0], dt) : (float)o[0].f;
            float b = p[1] ? sc__load_f32(p[1], dt) : (float)o[1].f;
            sc__store_f32(out + n * item, dt, mul ? a * b : a + b);
        } else if (dt == SC_DTYPE_B8) {
            bool a = p[0] ? sc__load_i64(p[0], dt) != 0 : o[0].i != 0;
            bool b = p[1] ? sc__load_i64(p[1], dt) != 0 : o[1].i != 0;
            *(uint8_t *)(out + n * item) = mul ? a && b : a || b;
        } else {
            uint64_t a = (uint64_t)(p[0] ? sc__load_i64(p[0], dt) : o[0].i);
            uint64_t b = (uint64_t)(p[1] ? sc__load_i64(p[1], dt) : o[1].i);
            sc__store_i64(out + n * item, dt, (int64_t)(mul ? a * b : a + b));
        }
        for (k = 0; k < 2; k++)
            sc__iter_next(&it[k]);
    }
    return sc__out(c, r);
}

/* add(Tensor self, Tensor other) */
sc_status sc__kernel_prims_add(sc__kernel_call *call)
{
    return binary(call, SC_KARG_PRIMS_ADD_SELF, SC_KARG_PRIMS_ADD_OTHER,
                  false);
}

/* mul(Tensor self, Tensor other) */
sc_status sc__kernel_prims_mul(sc__kernel_call *call)
{
    return binary(call, SC_KARG_PRIMS_MUL_SELF, SC_KARG_PRIMS_MUL_OTHER,
                  true);
}

/* ---- sum ----------------------------------------------------------------------
 * torch's CPU sum (cascade_sum, one thread) over a TensorIterator of the
 * output (stride 0 on the reduced dims) and the input: dims are sorted as
 * TensorIterator sorts them (reduced dims innermost, then by the input's
 * strides), coalesced, and the two innermost form the 2-d loop; outer dims
 * call it again, each call adding into the output.  Inside a call the
 * reduced dim is summed by one of four loops (vectorized inner, vectorized
 * outer, scalar inner, scalar outer) built from two patterns:
 *   cascade(n):  one running sum, folded into up to three higher levels
 *                every 2^p elements (p = max(4, ceil(log2 n) / 4));
 *   row_sum(n):  four interleaved cascades (elements 4i + k), the tail
 *                added to the first, then the four added in order.
 * The vector width is 8 floats (4 doubles), torch's CPU vectors on the
 * machines checked.  Accumulation is in the dtype (float for f16/bf16). */

enum { VEC_BYTES = 32 };

typedef struct sumctx {
    const unsigned char *base;  /* input data */
    sc_dtype dt;
    size_t item;
    bool fl;                    /* round every sum to float */
} sumctx;

static double acc_add(const sumctx *s, double a, double b)
{
    /* a float sum through double: double holds the exact sum of two
     * floats' worth of bits, so rounding it to float is the float sum */
    return s->fl ? (double)(float)(a + b) : a + b;
}

static double ld(const sumctx *s, int64_t off)
{
    return sc__load_f64(s->base + off * (int64_t)s->item, s->dt);
}

/* multi_row_sum of one row: elements at off + i * stride, i < n. */
static double cascade(const sumctx *s, int64_t off, int64_t stride,
                      int64_t n)
{
    double acc[4] = {0, 0, 0, 0};
    int64_t lg = 0, p, step, mask, i = 0, j, l;
    while (((int64_t)1 << lg) < n)
        lg++;
    p = lg / 4 > 4 ? lg / 4 : 4;
    step = (int64_t)1 << p;
    mask = step - 1;
    while (i + step <= n) {
        for (j = 0; j < step; j++, i++)
            acc[0] = acc_add(s, acc[0], ld(s, off + i * stride));
        for (l = 1; l < 4; l++) {
            acc[l] = acc_add(s, acc[l], acc[l - 1]);
            acc[l - 1] = 0;
            if ((i & (mask << (l * p))) != 0)
                break;
        }
    }
    for (; i < n; i++)
        acc[0] = acc_add(s, acc[0], ld(s, off + i * stride));
    for (l = 1; l < 4; l++)
        acc[0] = acc_add(s, acc[0], acc[l]);
    return acc[0];
}

static double row_sum(const sumctx *s, int64_t off, int64_t stride,
                      int64_t n)
{
    int64_t m = n / 4, i, k;
    double p[4];
    for (k = 0; k < 4; k++)
        p[k] = cascade(s, off + k * stride, 4 * stride, m);
    for (i = m * 4; i < n; i++)
        p[0] = acc_add(s, p[0], ld(s, off + i * stride));
    for (k = 1; k < 4; k++)
        p[0] = acc_add(s, p[0], p[k]);
    return p[0];
}

/* The 2-d loop: size0 reduced elements (input stride is0) for each of
 * size1 outputs (input stride is1, output stride os1, in elements); each
 * result is added into out at its position. */
static void sum_loop(const sumctx *s, int64_t in0, double *out, int64_t o0,
                     int64_t is0, int64_t is1, int64_t os1, int64_t size0,
                     int64_t size1)
{
    int64_t V = VEC_BYTES / (int64_t)s->item, j, l, k;
    if (is0 == 1 && size0 >= V) {
        /* vectorized inner: V lanes of row_sum over whole vectors, the
         * tail in order, then the lanes in order */
        int64_t nv = size0 / V;
        for (j = 0; j < size1; j++) {
            int64_t row = in0 + j * is1;
            double fa = 0;
            for (k = nv * V; k < size0; k++)
                fa = acc_add(s, fa, ld(s, row + k));
            for (l = 0; l < V; l++)
                fa = acc_add(s, fa, row_sum(s, row + l, V, nv));
            out[o0 + j * os1] = acc_add(s, out[o0 + j * os1], fa);
        }
        return;
    }
    if (is1 == 1 && size1 >= V) {
        /* vectorized outer: blocks of 4 vectors of columns cascade, then
         * single vectors and single columns row_sum */
        int64_t lim = (size1 / (4 * V)) * 4 * V;
        for (j = 0; j < lim; j++)
            out[o0 + j * os1] = acc_add(s, out[o0 + j * os1],
                                        cascade(s, in0 + j, is0, size0));
        for (; j < size1; j++)
            out[o0 + j * os1] = acc_add(s, out[o0 + j * os1],
                                        row_sum(s, in0 + j, is0, size0));
        return;
    }
    if (is0 < is1) {
        for (j = 0; j < size1; j++)
            out[o0 + j * os1] = acc_add(s, out[o0 + j * os1],
                                        row_sum(s, in0 + j * is1, is0,
                                                size0));
        return;
    }
    /* scalar outer: columns in groups of 4 cascade, the rest row_sum */
    for (j = 0; j < (size1 / 4) * 4; j++)
        out[o0 + j * os1] = acc_add(s, out[o0 + j * os1],
                                    cascade(s, in0 + j * is1, is0, size0));
    for (; j < size1; j++)
        out[o0 + j * os1] = acc_add(s, out[o0 + j * os1],
                                    row_sum(s, in0 + j * is1, is0, size0));
}

/* TensorIterator's should_swap for operands (out, in): reduced dims first,
 * then by the input's strides (a tie: the smaller size first). */
static int it_swap(const int64_t *sizes, const int64_t *os, const int64_t *is,
                   size_t d0, size_t d1)
{
    if ((os[d0] == 0) != (os[d1] == 0))
        return os[d1] == 0 ? 1 : -1;
    if (os[d0] != 0 && os[d1] != 0) {
        if (os[d0] < os[d1])
            return -1;
        if (os[d0] > os[d1])
            return 1;
        if (sizes[d0] > sizes[d1])
            return 1;
    }
    if (is[d0] != 0 && is[d1] != 0) {
        if (is[d0] < is[d1])
            return -1;
        if (is[d0] > is[d1])
            return 1;
        if (sizes[d0] > sizes[d1])
            return 1;
    }
    return 0;
}

/* Sum the floating x over the dims marked in red into the contiguous r
 * of x's dtype (acc: r's numel zeros, the running results). */
static void sum_order(const sc_tensor *x, const bool *red, sc_tensor *r,
                      double *acc)
{
    size_t nd = x->ndim, perm[SC_TENSOR_MAX_DIMS], i, m;
    int64_t ostr[SC_TENSOR_MAX_DIMS], sz[SC_TENSOR_MAX_DIMS],
        os[SC_TENSOR_MAX_DIMS], is[SC_TENSOR_MAX_DIMS],
        idx[SC_TENSOR_MAX_DIMS];
    int64_t prod = 1;
    sumctx s;
    size_t k;

    s.base = sc_tensor_data(x);
    s.dt = x->dtype;
    s.item = sc_dtype_itemsize(x->dtype);
    s.fl = x->dtype != SC_DTYPE_F64;
    /* output strides of the kept dims (contiguous), 0 on reduced ones */
    for (i = nd; i-- > 0;) {
        ostr[i] = red[i] ? 0 : prod;
        if (!red[i])
            prod *= x->sizes[i];
    }
    /* TensorIterator's dim order, innermost first */
    for (i = 0; i < nd; i++)
        perm[i] = nd - 1 - i;
    for (i = 1; i < nd; i++) {
        size_t d1 = i, d0;
        for (d0 = i; d0-- > 0;) {
            int cmp = it_swap(x->sizes, ostr, x->strides, perm[d0], perm[d1]);
            if (cmp > 0) {
                size_t t = perm[d0];
                perm[d0] = perm[d1];
                perm[d1] = t;
                d1 = d0;
            } else if (cmp < 0)
                break;
        }
    }
    for (i = 0; i < nd; i++) {
        sz[i] = x->sizes[perm[i]];
        os[i] = ostr[perm[i]];
        is[i] = x->strides[perm[i]];
    }
    /* coalesce */
    m = nd ? 1 : 0;
    for (i = 1; i < nd; i++) {
        size_t pd = m - 1;
        bool can = sz[pd] == 1 || sz[i] == 1 ||
                   (sz[pd] * os[pd] == os[i] && sz[pd] * is[pd] == is[i]);
        if (can) {
            if (sz[pd] == 1) {
                os[pd] = os[i];
                is[pd] = is[i];
            }
            sz[pd] *= sz[i];
        } else {
            sz[m] = sz[i];
            os[m] = os[i];
            is[m] = is[i];
            m++;
        }
    }
    if (m == 0) {
        sz[0] = 1;
        os[0] = is[0] = 0;
        m = 1;
    }
    if (m == 1) {
        sz[1] = 1;
        os[1] = is[1] = 0;
        m = 2;
    }
    for (i = 0; i < m; i++)
        idx[i] = 0;
    for (;;) {
        int64_t in0 = 0, o0 = 0, s0 = sz[0], s1 = sz[1];
        int64_t i0 = is[0], i1 = is[1], q0 = os[0], q1 = os[1];
        for (i = 2; i < m; i++) {
            in0 += idx[i] * is[i];
            o0 += idx[i] * os[i];
        }
        if (q0 != 0 && q1 == 0) { /* the reduction first */
            int64_t t;
            t = i0; i0 = i1; i1 = t;
            t = q0; q0 = q1; q1 = t;
            t = s0; s0 = s1; s1 = t;
        }
        if (q0 != 0) {
            /* nothing reduced: a copy */
            int64_t a, b;
            for (b = 0; b < s1; b++)
                for (a = 0; a < s0; a++)
                    acc[o0 + a * q0 + b * q1] = ld(&s, in0 + a * i0 + b * i1);
        } else
            sum_loop(&s, in0, acc, o0, i0, i1, q1, s0, s1);
        for (i = 2; i < m; i++) {
            if (++idx[i] < sz[i])
                break;
            idx[i] = 0;
        }
        if (i == m)
            break;
    }
    {
        unsigned char *p = sc_tensor_data(r);
        size_t n = (size_t)prod, item = sc_dtype_itemsize(r->dtype);
        for (k = 0; k < n; k++)
            sc__store_f64(p + k * item, r->dtype, acc[k]);
    }
}

/* sum(Tensor inp, int[]? dims, *, ScalarType? output_dtype=None):
 * torch.sum(inp, dims) in torch's order (integers: int64, exact, stored
 * wrapping; bool: any).  output_dtype is refused, as torch's own
 * implementation refuses it. */
sc_status sc__kernel_prims_sum(sc__kernel_call *call)
{
    const sc_tensor *x;
    sc_tensor *r = NULL;
    const int64_t *dims = NULL;
    size_t nd = 0, i, numel;
    bool red[SC_TENSOR_MAX_DIMS] = {false};
    int64_t osz[SC_TENSOR_MAX_DIMS];
    size_t k = 0;
    sc_dtype dt;
    double *acc = NULL;
    sc_status status;

    SC_TRY(sc__arg_tensor(call, SC_KARG_PRIMS_SUM_INP, &x));
    if (sc__arg_is_none(call, SC_KARG_PRIMS_SUM_DIMS))
        return sc__error_set(call->err, SC_ERR_SHAPE,
                             "prims.sum: dims must be a list");
    SC_TRY(sc__arg_ints(call, SC_KARG_PRIMS_SUM_DIMS, &nd, &dims));
    if (!sc__arg_is_none(call, SC_KARG_PRIMS_SUM_OUTPUT_DTYPE))
        return sc__error_set(call->err, SC_ERR_UNSUPPORTED,
                             "prims.sum with output_dtype: torch cannot run "
                             "it (its implementation, torch.sum, has no "
                             "output_dtype); convert_element_type first");
    dt = x->dtype;
    for (i = 0; i < nd; i++) {
        if (dims[i] < 0 || dims[i] >= (int64_t)(x->ndim ? x->ndim : 1))
            return sc__error_set(call->err, SC_ERR_SHAPE,
                                 "prims.sum: dim %lld out of range for a "
                                 "%zu-d tensor", (long long)dims[i],
                                 x->ndim);
        if ((size_t)dims[i] < x->ndim)
            red[dims[i]] = true;
    }
    for (i = 0; i < x->ndim; i++)
        if (!red[i])
            osz[k++] = x->sizes[i];
    SC_CHECK(sc__new(dt, k, osz, &r, call->err));
    SC_CHECK(sc__numel_checked(k, osz, &numel, call->err));
    if (!sc__dtype_is_float(dt)) {
        /* integers: exact in int64 (any order), stored wrapping */
        const sc_tensor *src = x;
        uint64_t *ia = sc__malloc((numel ? numel : 1) * sizeof *ia);
        sc__iter it;
        size_t n, tot, item = sc_dtype_itemsize(src->dtype);
        unsigned char *out = sc_tensor_data(r);
        const unsigned char *in = sc_tensor_data(src);
        if (!ia) {
            status = sc__error_nomem(call->err);
            goto fail;
        }
        memset(ia, 0, (numel ? numel : 1) * sizeof *ia);
        SC_CHECK(sc__numel_checked(src->ndim, src->sizes, &tot, call->err));
        sc__iter_init(&it, src->ndim, src->sizes, src->strides, item);
        for (n = 0; n < tot; n++) {
            size_t o = 0, d;
            for (d = 0; d < src->ndim; d++)
                if (!red[d])
                    o = o * (size_t)src->sizes[d] + (size_t)it.idx[d];
            if (dt == SC_DTYPE_B8)
                ia[o] |= sc__load_i64(in + it.pos, src->dtype) != 0;
            else
                ia[o] += (uint64_t)sc__load_i64(in + it.pos, src->dtype);
            sc__iter_next(&it);
        }
        for (n = 0; n < numel; n++)
            sc__store_i64(out + n * sc_dtype_itemsize(dt), dt,
                          (int64_t)ia[n]);
        sc__free(ia);
    } else {
        acc = sc__malloc((numel ? numel : 1) * sizeof *acc);
        if (!acc) {
            status = sc__error_nomem(call->err);
            goto fail;
        }
        for (i = 0; i < numel; i++)
            acc[i] = 0;
        SC_CHECK(sc__numel_checked(x->ndim, x->sizes, &i, call->err));
        if (i > 0)
            sum_order(x, red, r, acc);
        else
            sc_tensor_fill(r, 0, call->err);
        sc__free(acc);
        acc = NULL;
    }
    return sc__out(call, r);
fail:
    sc__free(acc);
    sc_tensor_free(r);
    return status;
}
