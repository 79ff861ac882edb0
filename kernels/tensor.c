/* symcut — kernels: tensors, storages, views, copies, element access, and
 * the broadcasting gather/scatter used by the kernels. */
#include <stdlib.h>
#include <string.h>

#include "kernels/kernels-internal.h"

/* ---- Storage ------------------------------------------------------------- */

static sc_storage *storage_new(size_t size, sc_error *err)
{
    sc_storage *s = sc__malloc(sizeof *s);
    if (!s) {
        sc__error_nomem(err);
        return NULL;
    }
    s->size = size;
    s->refcount = 1;
    s->bytes = NULL;
    if (size > 0) {
        s->bytes = sc__calloc(1, size);
        if (!s->bytes) {
            sc__free(s);
            sc__error_nomem(err);
            return NULL;
        }
    }
    return s;
}

static void storage_unref(sc_storage *s)
{
    if (!s || --s->refcount > 0)
        return;
    sc__free(s->bytes);
    sc__free(s);
}

/* ---- Shapes ----------------------------------------------------------------- */

sc_status sc__wrap_dim(int64_t dim, size_t ndim, size_t *out, sc_error *err)
{
    int64_t n = ndim == 0 ? 1 : (int64_t)ndim;
    if (dim < -n || dim >= n)
        return sc__error_set(err, SC_ERR_INVALID,
                             "dimension %lld out of range for a %zu-d tensor",
                             (long long)dim, ndim);
    *out = (size_t)(dim < 0 ? dim + n : dim);
    return SC_OK;
}

sc_status sc__numel_checked(size_t ndim, const int64_t *sizes, size_t *out,
                            sc_error *err)
{
    size_t n = 1, i;
    bool overflow = false;
    for (i = 0; i < ndim; i++) {
        if (sizes[i] < 0)
            return sc__error_set(err, SC_ERR_INVALID,
                                 "negative size %lld in dimension %zu",
                                 (long long)sizes[i], i);
        if (sizes[i] == 0) {
            *out = 0;
            return SC_OK;
        }
        if ((uint64_t)sizes[i] > SIZE_MAX / n)
            overflow = true;
        else
            n *= (size_t)sizes[i];
    }
    if (overflow)
        return sc__error_set(err, SC_ERR_OVERFLOW,
                             "tensor element count exceeds size_t");
    *out = n;
    return SC_OK;
}

sc_status sc__broadcast_shape(size_t na, const int64_t *a, size_t nb,
                              const int64_t *b, size_t *nout, int64_t *out,
                              sc_error *err)
{
    size_t n = na > nb ? na : nb, i;
    for (i = 0; i < n; i++) {
        int64_t x = i < na ? a[na - 1 - i] : 1;
        int64_t y = i < nb ? b[nb - 1 - i] : 1;
        if (x != y && x != 1 && y != 1)
            return sc__error_set(err, SC_ERR_SHAPE,
                                 "shapes do not broadcast: size %lld vs %lld "
                                 "at dimension %lld from the end",
                                 (long long)x, (long long)y,
                                 (long long)i + 1);
        out[n - 1 - i] = x == 1 ? y : x;
    }
    *nout = n;
    return SC_OK;
}

sc_status sc__broadcast_strides(const sc_tensor *t, size_t ndim,
                                const int64_t *sizes, int64_t *strides,
                                sc_error *err)
{
    size_t i, lead;
    if (t->ndim > ndim)
        return sc__error_set(err, SC_ERR_SHAPE,
                             "cannot broadcast a %zu-d tensor to %zu dims",
                             t->ndim, ndim);
    lead = ndim - t->ndim;
    for (i = 0; i < ndim; i++) {
        if (i < lead) {
            strides[i] = 0;
            continue;
        }
        if (t->sizes[i - lead] == sizes[i])
            strides[i] = sizes[i] == 1 ? 0 : t->strides[i - lead];
        else if (t->sizes[i - lead] == 1)
            strides[i] = 0;
        else
            return sc__error_set(err, SC_ERR_SHAPE,
                                 "cannot broadcast size %lld to %lld in "
                                 "dimension %zu",
                                 (long long)t->sizes[i - lead],
                                 (long long)sizes[i], i);
    }
    return SC_OK;
}

void sc__iter_init(sc__iter *it, size_t ndim, const int64_t *sizes,
                   const int64_t *elem_strides, size_t itemsize)
{
    size_t i;
    it->ndim = ndim;
    it->pos = 0;
    for (i = 0; i < ndim; i++) {
        it->sizes[i] = sizes[i];
        it->strides[i] = elem_strides[i] * (int64_t)itemsize;
        it->idx[i] = 0;
    }
}

/* ---- Creation ----------------------------------------------------------- */

static sc_status check_dtype(sc_dtype d, sc_error *err)
{
    if (!sc_tensor_dtype_supported(d))
        return sc__error_set(err, SC_ERR_UNSUPPORTED,
                             "dtype %d is not supported by the kernels",
                             (int)d);
    return SC_OK;
}

static sc_tensor *tensor_shell(sc_dtype d, size_t ndim, sc_error *err)
{
    sc_tensor *t = sc__calloc(1, sizeof *t);
    if (!t) {
        sc__error_nomem(err);
        return NULL;
    }
    t->dtype = d;
    t->ndim = ndim;
    return t;
}

/* Bytes needed for a view: (1 + sum (size-1)*stride) * itemsize, or 0. */
static sc_status extent_bytes(sc_dtype d, size_t ndim, const int64_t *sizes,
                              const int64_t *strides, int64_t offset,
                              size_t *out, sc_error *err)
{
    uint64_t last = (uint64_t)offset, item = sc_dtype_itemsize(d);
    size_t i;
    for (i = 0; i < ndim; i++) {
        if (sizes[i] < 0 || strides[i] < 0)
            return sc__error_set(err, SC_ERR_INVALID,
                                 "negative size or stride in dimension %zu",
                                 i);
        if (sizes[i] == 0) {
            *out = 0;
            return SC_OK;
        }
    }
    if (offset < 0)
        return sc__error_set(err, SC_ERR_INVALID, "negative storage offset");
    for (i = 0; i < ndim; i++) {
        uint64_t span = (uint64_t)(sizes[i] - 1);
        if (strides[i] != 0 && span > (UINT64_MAX / 2 - last) /
                                           (uint64_t)strides[i])
            return sc__error_set(err, SC_ERR_OVERFLOW,
                                 "tensor extent overflows");
        last += span * (uint64_t)strides[i];
    }
    if (last + 1 > SIZE_MAX / item)
        return sc__error_set(err, SC_ERR_OVERFLOW, "tensor byte size "
                                                   "exceeds size_t");
    *out = (size_t)((last + 1) * item);
    return SC_OK;
}

sc_status sc_tensor_new_strided(sc_dtype dtype, size_t ndim,
                                const int64_t *sizes, const int64_t *strides,
                                sc_tensor **out, sc_error *err)
{
    size_t bytes, i;
    sc_tensor *t;

    *out = NULL;
    SC_TRY(check_dtype(dtype, err));
    if (ndim > SC_TENSOR_MAX_DIMS)
        return sc__error_set(err, SC_ERR_INVALID,
                             "%zu dimensions (at most %d)", ndim,
                             SC_TENSOR_MAX_DIMS);
    SC_TRY(extent_bytes(dtype, ndim, sizes, strides, 0, &bytes, err));
    t = tensor_shell(dtype, ndim, err);
    if (!t)
        return SC_ERR_NOMEM;
    t->storage = storage_new(bytes, err);
    if (!t->storage) {
        sc__free(t);
        return SC_ERR_NOMEM;
    }
    for (i = 0; i < ndim; i++) {
        t->sizes[i] = sizes[i];
        t->strides[i] = strides[i];
    }
    *out = t;
    return SC_OK;
}

sc_status sc_tensor_new(sc_dtype dtype, size_t ndim, const int64_t *sizes,
                        sc_tensor **out, sc_error *err)
{
    int64_t strides[SC_TENSOR_MAX_DIMS] = {0};
    int64_t acc = 1;
    size_t i, n;

    *out = NULL;
    if (ndim > SC_TENSOR_MAX_DIMS)
        return sc__error_set(err, SC_ERR_INVALID,
                             "%zu dimensions (at most %d)", ndim,
                             SC_TENSOR_MAX_DIMS);
    SC_TRY(sc__numel_checked(ndim, sizes, &n, err));
    for (i = ndim; i-- > 0;) {
        strides[i] = acc;
        /* only an empty tensor gets here with sizes whose product is
         * beyond int64 ([0, 2**62, 2**62]) */
        if (sizes[i] > 1 && __builtin_mul_overflow(acc, sizes[i], &acc))
            return sc__error_set(err, SC_ERR_OVERFLOW,
                                 "the contiguous strides of an empty "
                                 "tensor exceed int64_t");
    }
    return sc_tensor_new_strided(dtype, ndim, sizes, strides, out, err);
}

sc_status sc_tensor_new_scalar(sc_dtype dtype, double value, sc_tensor **out,
                               sc_error *err)
{
    SC_TRY(sc_tensor_new(dtype, 0, NULL, out, err));
    sc__store_f64(sc_tensor_data(*out), dtype, value);
    return SC_OK;
}

void sc_tensor_free(sc_tensor *t)
{
    if (!t)
        return;
    storage_unref(t->storage);
    sc__free(t);
}

sc_status sc_tensor_alias(const sc_tensor *t, sc_tensor **out, sc_error *err)
{
    sc_tensor *a = sc__malloc(sizeof *a);
    if (!a) {
        *out = NULL;
        return sc__error_nomem(err);
    }
    *a = *t;
    a->storage->refcount++;
    *out = a;
    return SC_OK;
}

/* ---- Queries -------------------------------------------------------------- */

size_t sc_tensor_numel(const sc_tensor *t)
{
    size_t n = 1, i;
    for (i = 0; i < t->ndim; i++)
        n *= (size_t)t->sizes[i];
    return n;
}

size_t sc_tensor_nbytes(const sc_tensor *t)
{
    return sc_tensor_numel(t) * sc_dtype_itemsize(t->dtype);
}

bool sc_tensor_is_contiguous(const sc_tensor *t)
{
    int64_t expected = 1;
    size_t i;
    for (i = t->ndim; i-- > 0;) {
        if (t->sizes[i] == 0)
            return true;
        if (t->sizes[i] != 1) {
            if (t->strides[i] != expected)
                return false;
            expected *= t->sizes[i];
        }
    }
    return true;
}

void *sc_tensor_data(const sc_tensor *t)
{
    if (!t->storage->bytes)
        return t->storage->bytes;
    return t->storage->bytes +
           (size_t)t->offset * sc_dtype_itemsize(t->dtype);
}

bool sc_tensor_same_shape(const sc_tensor *a, const sc_tensor *b)
{
    return a->ndim == b->ndim &&
           memcmp(a->sizes, b->sizes, a->ndim * sizeof a->sizes[0]) == 0;
}

static sc_status element_ptr(const sc_tensor *t, const int64_t *idx,
                             unsigned char **p, sc_error *err)
{
    int64_t off = 0;
    size_t i;
    for (i = 0; i < t->ndim; i++) {
        if (idx[i] < 0 || idx[i] >= t->sizes[i])
            return sc__error_set(err, SC_ERR_INVALID,
                                 "index %lld out of range for dimension %zu "
                                 "of size %lld",
                                 (long long)idx[i], i,
                                 (long long)t->sizes[i]);
        off += idx[i] * t->strides[i];
    }
    *p = (unsigned char *)sc_tensor_data(t) +
         off * (int64_t)sc_dtype_itemsize(t->dtype);
    return SC_OK;
}

sc_status sc_tensor_get_double(const sc_tensor *t, const int64_t *idx,
                               double *out, sc_error *err)
{
    unsigned char *p;
    SC_TRY(element_ptr(t, idx, &p, err));
    *out = sc__load_f64(p, t->dtype);
    return SC_OK;
}

sc_status sc_tensor_set_double(sc_tensor *t, const int64_t *idx, double v,
                               sc_error *err)
{
    unsigned char *p;
    SC_TRY(element_ptr(t, idx, &p, err));
    sc__store_f64(p, t->dtype, v);
    return SC_OK;
}

sc_status sc_tensor_get_int64(const sc_tensor *t, const int64_t *idx,
                              int64_t *out, sc_error *err)
{
    unsigned char *p;
    SC_TRY(element_ptr(t, idx, &p, err));
    *out = sc__load_i64(p, t->dtype);
    return SC_OK;
}

sc_status sc_tensor_set_int64(sc_tensor *t, const int64_t *idx, int64_t v,
                              sc_error *err)
{
    unsigned char *p;
    SC_TRY(element_ptr(t, idx, &p, err));
    sc__store_i64(p, t->dtype, v);
    return SC_OK;
}

static const unsigned char *linear_ptr(const sc_tensor *t, size_t i)
{
    int64_t off = 0;
    size_t d, isz = sc_dtype_itemsize(t->dtype);
    if (sc_tensor_is_contiguous(t)) /* the row-major index is the offset */
        return (const unsigned char *)sc_tensor_data(t) + i * isz;
    for (d = t->ndim; d-- > 0;) {
        int64_t s = t->sizes[d];
        off += (int64_t)(i % (size_t)s) * t->strides[d];
        i /= (size_t)s;
    }
    return (const unsigned char *)sc_tensor_data(t) + off * (int64_t)isz;
}

double sc_tensor_item_double(const sc_tensor *t, size_t i)
{
    return sc__load_f64(linear_ptr(t, i), t->dtype);
}

int64_t sc_tensor_item_int64(const sc_tensor *t, size_t i)
{
    return sc__load_i64(linear_ptr(t, i), t->dtype);
}

/* ---- Gather and scatter ----------------------------------------------------- */

/* Merge the dims of (sizes, strides) that one stride walks (a dim of
 * size 1 dropped, d-1 and d merged when strides[d-1] == strides[d] *
 * sizes[d]) into (*nd, osz, ost), at least one dim; the row-major order
 * of the elements is unchanged. */
static void coalesce(size_t ndim, const int64_t *sizes,
                     const int64_t *strides, size_t *nd, int64_t *osz,
                     int64_t *ost)
{
    size_t d, k = 0;
    for (d = 0; d < ndim; d++) {
        if (sizes[d] == 1)
            continue;
        if (k > 0 && ost[k - 1] == strides[d] * sizes[d]) {
            osz[k - 1] *= sizes[d];
            ost[k - 1] = strides[d];
            continue;
        }
        osz[k] = sizes[d];
        ost[k] = strides[d];
        k++;
    }
    if (k == 0) {
        osz[0] = 1;
        ost[0] = 0;
        k = 1;
    }
    *nd = k;
}

/* The rows of a copy: the coalesced shape's last dim is one row of
 * `len` elements `step` apart (in elements), the dims before it are
 * walked by `it` (byte offsets of each row's first element). */
typedef struct rows {
    sc__iter it;
    size_t nrows, len;
    int64_t step;
} rows;

static void rows_init(rows *r, size_t ndim, const int64_t *sizes,
                      const int64_t *strides, size_t isz)
{
    int64_t csz[SC_TENSOR_MAX_DIMS], cst[SC_TENSOR_MAX_DIMS];
    size_t nd, d;
    coalesce(ndim, sizes, strides, &nd, csz, cst);
    r->len = (size_t)csz[nd - 1];
    r->step = cst[nd - 1];
    r->nrows = 1;
    for (d = 0; d + 1 < nd; d++)
        r->nrows *= (size_t)csz[d];
    sc__iter_init(&r->it, nd - 1, csz, cst, isz);
}

sc_status sc__gather(const sc_tensor *t, size_t ndim, const int64_t *sizes,
                     sc__ctype ct, void **out, sc_error *err)
{
    int64_t strides[SC_TENSOR_MAX_DIMS];
    size_t n, k, q, isz = sc_dtype_itemsize(t->dtype);
    const unsigned char *base = sc_tensor_data(t);
    rows r;
    void *buf;

    *out = NULL;
    SC_TRY(sc__broadcast_strides(t, ndim, sizes, strides, err));
    SC_TRY(sc__numel_checked(ndim, sizes, &n, err));
    if (n > SIZE_MAX / 8)
        return sc__error_set(err, SC_ERR_OVERFLOW, "tensor too large");
    buf = sc__malloc(n ? n * sc__ctype_size(ct) : 1);
    if (!buf)
        return sc__error_nomem(err);
    if (n == 0) {
        *out = buf;
        return SC_OK;
    }
    rows_init(&r, ndim, sizes, strides, isz);
    /* one row at a time: rows of the compute type's own dtype read one
       step apart are copied (memcpy when the step is 1), the others
       converted element by element */
#define GATHER_ROW(T, DT, LOAD)                                              \
    do {                                                                     \
        T *o = (T *)buf + k * len;                                           \
        const T *f = (const T *)src;                                         \
        if (t->dtype != (DT))                                                \
            for (q = 0; q < len; q++)                                        \
                o[q] = LOAD(src + (int64_t)q * r.step * (int64_t)isz,        \
                            t->dtype);                                       \
        else if (r.step == 1)                                                \
            memcpy(o, f, len * sizeof *o);                                   \
        else                                                                 \
            for (q = 0; q < len; q++)                                        \
                o[q] = f[(int64_t)q * r.step];                               \
    } while (0)
    for (k = 0; k < r.nrows; k++, sc__iter_next(&r.it)) {
        const unsigned char *src = base + r.it.pos;
        size_t len = r.len;
        switch (ct) {
        case SC__CT_F32:
            GATHER_ROW(float, SC_DTYPE_F32, sc__load_f32);
            break;
        case SC__CT_F64:
            GATHER_ROW(double, SC_DTYPE_F64, sc__load_f64);
            break;
        case SC__CT_I64:
            GATHER_ROW(int64_t, SC_DTYPE_I64, sc__load_i64);
            break;
        }
    }
#undef GATHER_ROW
    *out = buf;
    return SC_OK;
}

void sc__scatter(sc_tensor *t, sc__ctype ct, const void *src)
{
    size_t n = sc_tensor_numel(t), k, q, isz = sc_dtype_itemsize(t->dtype);
    unsigned char *base = sc_tensor_data(t);
    rows r;

    if (n == 0)
        return;
    rows_init(&r, t->ndim, t->sizes, t->strides, isz);
    for (k = 0; k < r.nrows; k++, sc__iter_next(&r.it)) {
        unsigned char *dst = base + r.it.pos;
        size_t len = r.len;
        int64_t bstep = r.step * (int64_t)isz;
        switch (ct) {
        case SC__CT_F32: {
            const float *s = (const float *)src + k * len;
            if (t->dtype == SC_DTYPE_F32 && r.step == 1)
                memcpy(dst, s, len * sizeof *s);
            else if (t->dtype == SC_DTYPE_F32)
                for (q = 0; q < len; q++)
                    ((float *)dst)[(int64_t)q * r.step] = s[q];
            else
                for (q = 0; q < len; q++)
                    sc__store_f32(dst + (int64_t)q * bstep, t->dtype, s[q]);
            break;
        }
        case SC__CT_F64: {
            const double *s = (const double *)src + k * len;
            if (t->dtype == SC_DTYPE_F64 && r.step == 1)
                memcpy(dst, s, len * sizeof *s);
            else
                for (q = 0; q < len; q++)
                    sc__store_f64(dst + (int64_t)q * bstep, t->dtype, s[q]);
            break;
        }
        case SC__CT_I64: {
            const int64_t *s = (const int64_t *)src + k * len;
            if (t->dtype == SC_DTYPE_I64 && r.step == 1)
                memcpy(dst, s, len * sizeof *s);
            else
                for (q = 0; q < len; q++)
                    sc__store_i64(dst + (int64_t)q * bstep, t->dtype, s[q]);
            break;
        }
        }
    }
}

/* ---- Copies ---------------------------------------------------------------- */

/* The compute type that carries every value of src exactly into dst. */
static sc__ctype copy_ctype(sc_dtype src, sc_dtype dst)
{
    if (!sc__dtype_is_float(src))
        return SC__CT_I64;
    if (src == SC_DTYPE_F64 || dst == SC_DTYPE_F64)
        return SC__CT_F64;
    return SC__CT_F32;
}

sc_status sc_tensor_copy(sc_tensor *dst, const sc_tensor *src, sc_error *err)
{
    sc__ctype ct = copy_ctype(src->dtype, dst->dtype);
    void *buf;
    SC_TRY(sc__gather(src, dst->ndim, dst->sizes, ct, &buf, err));
    sc__scatter(dst, ct, buf);
    sc__free(buf);
    return SC_OK;
}

sc_status sc_tensor_to_dtype(const sc_tensor *t, sc_dtype dtype,
                             sc_tensor **out, sc_error *err)
{
    sc_status status;
    sc_tensor *r = NULL;

    *out = NULL;
    SC_CHECK(sc_tensor_new(dtype, t->ndim, t->sizes, &r, err));
    if (t->dtype == dtype && sc_tensor_is_contiguous(t)) {
        size_t nb = sc_tensor_nbytes(t);
        if (nb)
            memcpy(sc_tensor_data(r), sc_tensor_data(t), nb);
    } else {
        SC_CHECK(sc_tensor_copy(r, t, err));
    }
    *out = r;
    return SC_OK;
fail:
    sc_tensor_free(r);
    return status;
}

sc_status sc_tensor_clone(const sc_tensor *t, sc_tensor **out, sc_error *err)
{
    return sc_tensor_to_dtype(t, t->dtype, out, err);
}

sc_status sc_tensor_fill(sc_tensor *t, double value, sc_error *err)
{
    size_t n = sc_tensor_numel(t), k, isz = sc_dtype_itemsize(t->dtype);
    unsigned char *base = sc_tensor_data(t);
    sc__iter it;
    (void)err;
    sc__iter_init(&it, t->ndim, t->sizes, t->strides, isz);
    for (k = 0; k < n; k++, sc__iter_next(&it))
        sc__store_f64(base + it.pos, t->dtype, value);
    return SC_OK;
}

/* ---- Views ------------------------------------------------------------------ */

static sc_status make_view(const sc_tensor *t, size_t ndim,
                           const int64_t *sizes, const int64_t *strides,
                           int64_t offset, sc_tensor **out, sc_error *err)
{
    sc_tensor *v;
    size_t i;

    *out = NULL;
    if (ndim > SC_TENSOR_MAX_DIMS)
        return sc__error_set(err, SC_ERR_INVALID,
                             "%zu dimensions (at most %d)", ndim,
                             SC_TENSOR_MAX_DIMS);
    SC_TRY(sc_tensor_alias(t, &v, err));
    v->ndim = ndim;
    for (i = 0; i < ndim; i++) {
        v->sizes[i] = sizes[i];
        v->strides[i] = strides[i];
    }
    v->offset = offset;
    *out = v;
    return SC_OK;
}

sc_status sc_tensor_view_as_strided(const sc_tensor *t, size_t ndim,
                                    const int64_t *sizes,
                                    const int64_t *strides, int64_t offset,
                                    sc_tensor **out, sc_error *err)
{
    size_t bytes;
    *out = NULL;
    if (ndim > SC_TENSOR_MAX_DIMS)
        return sc__error_set(err, SC_ERR_INVALID, "too many dimensions");
    SC_TRY(extent_bytes(t->dtype, ndim, sizes, strides, offset, &bytes,
                        err));
    if (bytes > t->storage->size)
        return sc__error_set(err, SC_ERR_SHAPE,
                             "as_strided view needs %zu bytes; the storage "
                             "has %zu",
                             bytes, t->storage->size);
    return make_view(t, ndim, sizes, strides, offset, out, err);
}

sc_status sc_tensor_transpose(const sc_tensor *t, int64_t d0, int64_t d1,
                              sc_tensor **out, sc_error *err)
{
    int64_t sizes[SC_TENSOR_MAX_DIMS], strides[SC_TENSOR_MAX_DIMS], x;
    size_t a = 0, b = 0;

    *out = NULL;
    SC_TRY(sc__wrap_dim(d0, t->ndim, &a, err));
    SC_TRY(sc__wrap_dim(d1, t->ndim, &b, err));
    memcpy(sizes, t->sizes, sizeof sizes);
    memcpy(strides, t->strides, sizeof strides);
    if (t->ndim > 0) {
        x = sizes[a], sizes[a] = sizes[b], sizes[b] = x;
        x = strides[a], strides[a] = strides[b], strides[b] = x;
    }
    return make_view(t, t->ndim, sizes, strides, t->offset, out, err);
}

sc_status sc_tensor_permute(const sc_tensor *t, const int64_t *dims,
                            sc_tensor **out, sc_error *err)
{
    int64_t sizes[SC_TENSOR_MAX_DIMS], strides[SC_TENSOR_MAX_DIMS];
    bool seen[SC_TENSOR_MAX_DIMS] = {false};
    size_t i, d = 0;

    *out = NULL;
    for (i = 0; i < t->ndim; i++) {
        SC_TRY(sc__wrap_dim(dims[i], t->ndim, &d, err));
        if (seen[d])
            return sc__error_set(err, SC_ERR_INVALID,
                                 "permute: dimension %zu repeated", d);
        seen[d] = true;
        sizes[i] = t->sizes[d];
        strides[i] = t->strides[d];
    }
    return make_view(t, t->ndim, sizes, strides, t->offset, out, err);
}

sc_status sc_tensor_select(const sc_tensor *t, int64_t dim, int64_t index,
                           sc_tensor **out, sc_error *err)
{
    int64_t sizes[SC_TENSOR_MAX_DIMS], strides[SC_TENSOR_MAX_DIMS];
    size_t d = 0, i, j = 0;

    *out = NULL;
    if (t->ndim == 0)
        return sc__error_set(err, SC_ERR_INVALID, "select on a 0-d tensor");
    SC_TRY(sc__wrap_dim(dim, t->ndim, &d, err));
    if (index < -t->sizes[d] || index >= t->sizes[d])
        return sc__error_set(err, SC_ERR_INVALID,
                             "select: index %lld out of range for size %lld",
                             (long long)index, (long long)t->sizes[d]);
    if (index < 0)
        index += t->sizes[d];
    for (i = 0; i < t->ndim; i++) {
        if (i == d)
            continue;
        sizes[j] = t->sizes[i];
        strides[j++] = t->strides[i];
    }
    return make_view(t, t->ndim - 1, sizes, strides,
                     t->offset + index * t->strides[d], out, err);
}

sc_status sc_tensor_slice(const sc_tensor *t, int64_t dim, int64_t start,
                          int64_t end, int64_t step, sc_tensor **out,
                          sc_error *err)
{
    int64_t sizes[SC_TENSOR_MAX_DIMS], strides[SC_TENSOR_MAX_DIMS], n;
    size_t d = 0;

    *out = NULL;
    if (t->ndim == 0)
        return sc__error_set(err, SC_ERR_INVALID, "slice on a 0-d tensor");
    if (step < 1)
        return sc__error_set(err, SC_ERR_INVALID,
                             "slice step must be positive");
    SC_TRY(sc__wrap_dim(dim, t->ndim, &d, err));
    n = t->sizes[d];
    if (start < 0)
        start = start + n < 0 ? 0 : start + n;
    if (end < 0)
        end = end + n < 0 ? 0 : end + n;
    if (start > n)
        start = n;
    if (end > n)
        end = n;
    if (end < start)
        end = start;
    memcpy(sizes, t->sizes, sizeof sizes);
    memcpy(strides, t->strides, sizeof strides);
    sizes[d] = (end - start + step - 1) / step;
    strides[d] = t->strides[d] * step;
    return make_view(t, t->ndim, sizes, strides,
                     t->offset + start * t->strides[d], out, err);
}

sc_status sc_tensor_expand(const sc_tensor *t, size_t ndim,
                           const int64_t *sizes, sc_tensor **out,
                           sc_error *err)
{
    int64_t sz[SC_TENSOR_MAX_DIMS], st[SC_TENSOR_MAX_DIMS];
    size_t i, lead;

    *out = NULL;
    if (ndim < t->ndim || ndim > SC_TENSOR_MAX_DIMS)
        return sc__error_set(err, SC_ERR_SHAPE,
                             "expand: %zu sizes for a %zu-d tensor", ndim,
                             t->ndim);
    lead = ndim - t->ndim;
    for (i = 0; i < ndim; i++) {
        if (i < lead) {
            if (sizes[i] < 0)
                return sc__error_set(err, SC_ERR_SHAPE,
                                     "expand: size -1 not allowed in a new "
                                     "leading dimension");
            sz[i] = sizes[i];
            st[i] = 0;
            continue;
        }
        {
            int64_t have = t->sizes[i - lead];
            int64_t want = sizes[i] == -1 ? have : sizes[i];
            if (want == have) {
                sz[i] = have;
                st[i] = t->strides[i - lead];
            } else if (have == 1 && want >= 0) {
                sz[i] = want;
                st[i] = 0;
            } else {
                return sc__error_set(err, SC_ERR_SHAPE,
                                     "expand: size %lld cannot become %lld "
                                     "in dimension %zu",
                                     (long long)have, (long long)want, i);
            }
        }
    }
    return make_view(t, ndim, sz, st, t->offset, out, err);
}

sc_status sc_tensor_unsqueeze(const sc_tensor *t, int64_t dim,
                              sc_tensor **out, sc_error *err)
{
    int64_t sizes[SC_TENSOR_MAX_DIMS], strides[SC_TENSOR_MAX_DIMS];
    size_t d = 0, i, j = 0;

    *out = NULL;
    if (t->ndim + 1 > SC_TENSOR_MAX_DIMS)
        return sc__error_set(err, SC_ERR_INVALID, "too many dimensions");
    SC_TRY(sc__wrap_dim(dim, t->ndim + 1, &d, err));
    for (i = 0; i <= t->ndim; i++) {
        if (i == d) {
            sizes[i] = 1;
            strides[i] = d < t->ndim ? t->sizes[d] * t->strides[d] : 1;
        } else {
            sizes[i] = t->sizes[j];
            strides[i] = t->strides[j++];
        }
    }
    return make_view(t, t->ndim + 1, sizes, strides, t->offset, out, err);
}

sc_status sc_tensor_squeeze_dim(const sc_tensor *t, int64_t dim,
                                sc_tensor **out, sc_error *err)
{
    int64_t sizes[SC_TENSOR_MAX_DIMS], strides[SC_TENSOR_MAX_DIMS];
    size_t d = 0, i, j = 0;

    *out = NULL;
    SC_TRY(sc__wrap_dim(dim, t->ndim, &d, err));
    if (t->ndim == 0 || t->sizes[d] != 1)
        return sc_tensor_alias(t, out, err);
    for (i = 0; i < t->ndim; i++) {
        if (i == d)
            continue;
        sizes[j] = t->sizes[i];
        strides[j++] = t->strides[i];
    }
    return make_view(t, j, sizes, strides, t->offset, out, err);
}

sc_status sc_tensor_squeeze(const sc_tensor *t, sc_tensor **out,
                            sc_error *err)
{
    int64_t sizes[SC_TENSOR_MAX_DIMS], strides[SC_TENSOR_MAX_DIMS];
    size_t i, j = 0;
    for (i = 0; i < t->ndim; i++) {
        if (t->sizes[i] == 1)
            continue;
        sizes[j] = t->sizes[i];
        strides[j++] = t->strides[i];
    }
    return make_view(t, j, sizes, strides, t->offset, out, err);
}

/* Resolve one -1 in sizes against numel. */
static sc_status infer_sizes(size_t numel, size_t ndim, const int64_t *in,
                             int64_t *sizes, sc_error *err)
{
    size_t i, known = 1;
    long infer = -1;
    if (ndim > SC_TENSOR_MAX_DIMS)
        return sc__error_set(err, SC_ERR_INVALID, "too many dimensions");
    for (i = 0; i < ndim; i++) {
        sizes[i] = in[i];
        if (in[i] == -1) {
            if (infer >= 0)
                return sc__error_set(err, SC_ERR_SHAPE,
                                     "only one dimension can be inferred");
            infer = (long)i;
        } else if (in[i] < 0) {
            return sc__error_set(err, SC_ERR_SHAPE, "invalid size %lld",
                                 (long long)in[i]);
        } else if (in[i] != 0 && known > SIZE_MAX / (size_t)in[i]) {
            return sc__error_set(err, SC_ERR_OVERFLOW, "shape too large");
        } else {
            known *= (size_t)in[i];
        }
    }
    if (infer >= 0) {
        if (known == 0 || numel % known != 0)
            return sc__error_set(err, SC_ERR_SHAPE,
                                 "shape is invalid for input of size %zu",
                                 numel);
        sizes[infer] = (int64_t)(numel / known);
        known = numel;
    }
    if (known != numel)
        return sc__error_set(err, SC_ERR_SHAPE,
                             "shape is invalid for input of size %zu", numel);
    return SC_OK;
}

/* PyTorch's computeStride: strides for a view of t with new sizes, or
 * false when the memory layout does not allow one. */
static bool view_strides(const sc_tensor *t, size_t ndim,
                         const int64_t *sizes, int64_t *strides)
{
    int64_t chunk_base_stride, tensor_numel = 1, view_numel = 1;
    long view_d = (long)ndim - 1, tensor_d;
    size_t numel = sc_tensor_numel(t), i;

    if (numel == 0) {
        int64_t acc = 1;
        for (i = ndim; i-- > 0;) {
            strides[i] = acc;
            acc *= sizes[i] > 1 ? sizes[i] : 1;
        }
        return true;
    }
    if (t->ndim == 0) {
        for (i = 0; i < ndim; i++)
            strides[i] = 1;
        return true;
    }
    chunk_base_stride = t->strides[t->ndim - 1];
    for (tensor_d = (long)t->ndim - 1; tensor_d >= 0; tensor_d--) {
        tensor_numel *= t->sizes[tensor_d];
        if (tensor_d == 0 ||
            (t->sizes[tensor_d - 1] != 1 &&
             t->strides[tensor_d - 1] != tensor_numel * chunk_base_stride)) {
            while (view_d >= 0 &&
                   (view_numel < tensor_numel || sizes[view_d] == 1)) {
                strides[view_d] = view_numel * chunk_base_stride;
                view_numel *= sizes[view_d];
                view_d--;
            }
            if (view_numel != tensor_numel)
                return false;
            if (tensor_d > 0) {
                chunk_base_stride = t->strides[tensor_d - 1];
                tensor_numel = 1;
                view_numel = 1;
            }
        }
    }
    return view_d == -1;
}

sc_status sc_tensor_view(const sc_tensor *t, size_t ndim, const int64_t *in,
                         sc_tensor **out, sc_error *err)
{
    int64_t sizes[SC_TENSOR_MAX_DIMS], strides[SC_TENSOR_MAX_DIMS];

    *out = NULL;
    SC_TRY(infer_sizes(sc_tensor_numel(t), ndim, in, sizes, err));
    if (!view_strides(t, ndim, sizes, strides))
        return sc__error_set(err, SC_ERR_SHAPE,
                             "view size is not compatible with the input's "
                             "size and stride; use reshape");
    return make_view(t, ndim, sizes, strides, t->offset, out, err);
}

sc_status sc_tensor_reshape(const sc_tensor *t, size_t ndim,
                            const int64_t *in, sc_tensor **out, sc_error *err)
{
    int64_t sizes[SC_TENSOR_MAX_DIMS], strides[SC_TENSOR_MAX_DIMS];
    sc_tensor *c = NULL;
    sc_status status;

    *out = NULL;
    SC_TRY(infer_sizes(sc_tensor_numel(t), ndim, in, sizes, err));
    if (view_strides(t, ndim, sizes, strides))
        return make_view(t, ndim, sizes, strides, t->offset, out, err);
    SC_TRY(sc_tensor_clone(t, &c, err));
    status = sc_tensor_view(c, ndim, sizes, out, err);
    sc_tensor_free(c);
    return status;
}
