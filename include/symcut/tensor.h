/* symcut — strided CPU tensors, dtype conversions and promotion, and the
 * NumPy .npy format.
 *
 * A tensor (sc_tensor) is a view of a reference-counted storage
 * (sc_storage): a dtype, ndim sizes and strides (in elements, non-negative
 * as in PyTorch; 0 for an expanded dimension), and a storage offset (in
 * elements).  Views (transpose, select, slice, expand, ...) are new tensor
 * objects that share the storage of their base, as in PyTorch; writing
 * through one is visible through the others.  A tensor object is owned by
 * whoever created it and freed with sc_tensor_free, which drops one
 * reference to the storage; the storage is freed with its last view.
 * Reference counts are not atomic: tensors sharing a storage must not be
 * created or freed from two threads at once.
 *
 * Supported element types: F32, F64, F16, BF16 (16-bit storage, computed in
 * f32), I64, I32, I16, I8, U8, B8 (bool, one byte 0 or 1).  Other sc_dtype
 * values (complex, float8, wide unsigned) are rejected with
 * SC_ERR_UNSUPPORTED.
 *
 * Conversions between dtypes are exact where the value is representable and
 * otherwise defined as follows (doc/kernels.md):
 *   - float -> f16 / bf16: round to nearest, ties to even, with subnormals,
 *     overflow to infinity, NaN kept NaN (quiet); f64 -> f16/bf16 goes
 *     through f32, as PyTorch does.
 *   - float -> integer: truncation toward zero; NaN gives 0; a value beyond
 *     the int64 range saturates to INT64_MIN / INT64_MAX; the int64 value is
 *     then wrapped (two's complement) to a narrower integer type.
 *   - integer -> narrower integer: wrapped (two's complement), as C casts
 *     on every platform PyTorch supports.
 *   - anything -> bool: value != 0 (NaN is true).  bool -> number: 0 or 1.
 */
#ifndef SYMCUT_TENSOR_H
#define SYMCUT_TENSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <symcut/error.h>
#include <symcut/graph.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The largest number of dimensions of a tensor. */
#define SC_TENSOR_MAX_DIMS 16

/* A reference-counted byte buffer.  bytes is 64-byte aligned (NULL when
 * size is 0). */
typedef struct sc_storage {
    unsigned char *bytes;
    size_t size;     /* in bytes */
    size_t refcount;
} sc_storage;

/* A strided view of a storage.  Read the fields freely; change them only
 * through the functions below. */
typedef struct sc_tensor {
    sc_dtype dtype;
    size_t ndim;
    int64_t sizes[SC_TENSOR_MAX_DIMS];
    int64_t strides[SC_TENSOR_MAX_DIMS]; /* in elements, >= 0 */
    int64_t offset;                      /* in elements */
    sc_storage *storage;                 /* one reference held */
} sc_tensor;

/* ---- dtypes ------------------------------------------------------------ */

/* Can tensors of this dtype be created and computed with? */
bool sc_tensor_dtype_supported(sc_dtype dtype);

/* PyTorch's promote_types for the supported dtypes: bool < integers <
 * floats; f16 with bf16 gives f32; u8 with i8 gives i16.  Returns false (and
 * leaves *out) for an unsupported dtype. */
bool sc_dtype_promote(sc_dtype a, sc_dtype b, sc_dtype *out);

/* One operand of a type-promotion question (PyTorch's result_type). */
typedef enum sc_operand_kind {
    SC_OPERAND_TENSOR,      /* a tensor with ndim >= 1 */
    SC_OPERAND_ZERO_DIM,    /* a 0-d tensor */
    SC_OPERAND_INT,         /* a Python int (Scalar) */
    SC_OPERAND_FLOAT,       /* a Python float (Scalar) */
    SC_OPERAND_BOOL         /* a Python bool (Scalar) */
} sc_operand_kind;

typedef struct sc_operand {
    sc_operand_kind kind;
    sc_dtype dtype; /* TENSOR, ZERO_DIM only */
} sc_operand;

/* PyTorch's result_type over n operands: dimensioned tensors take
 * precedence over 0-d tensors, which take precedence over Python scalars,
 * unless a lower-priority operand is of a higher category (bool < integer <
 * floating); a Python float then gives the default dtype f32 and a Python
 * int gives i64.  SC_ERR_UNSUPPORTED for an unsupported dtype,
 * SC_ERR_INVALID for n == 0. */
sc_status sc_dtype_result_type(size_t n, const sc_operand *ops, sc_dtype *out,
                               sc_error *err);

/* IEEE binary16 and bfloat16 conversions (round to nearest even). */
uint16_t sc_f32_to_f16(float f);
float sc_f16_to_f32(uint16_t h);
uint16_t sc_f32_to_bf16(float f);
float sc_bf16_to_f32(uint16_t b);

/* ---- Creation and destruction ------------------------------------------ */

/* A new contiguous, zero-filled tensor of ndim sizes (each >= 0).
 * Errors: SC_ERR_UNSUPPORTED (dtype), SC_ERR_INVALID (ndim, negative size),
 * SC_ERR_OVERFLOW (byte size beyond size_t), SC_ERR_NOMEM. */
sc_status sc_tensor_new(sc_dtype dtype, size_t ndim, const int64_t *sizes,
                        sc_tensor **out, sc_error *err);

/* A new tensor with the given sizes and strides over a fresh zero-filled
 * storage just large enough for them (PyTorch's empty_strided). */
sc_status sc_tensor_new_strided(sc_dtype dtype, size_t ndim,
                                const int64_t *sizes, const int64_t *strides,
                                sc_tensor **out, sc_error *err);

/* A 0-d tensor holding value (converted as above). */
sc_status sc_tensor_new_scalar(sc_dtype dtype, double value, sc_tensor **out,
                               sc_error *err);

/* Free a tensor object and drop its storage reference.  NULL is a no-op. */
void sc_tensor_free(sc_tensor *t);

/* A new tensor object for the same view (one more storage reference). */
sc_status sc_tensor_alias(const sc_tensor *t, sc_tensor **out, sc_error *err);

/* A contiguous copy of t (its own storage).  O(numel). */
sc_status sc_tensor_clone(const sc_tensor *t, sc_tensor **out, sc_error *err);

/* A contiguous copy of t converted to dtype. */
sc_status sc_tensor_to_dtype(const sc_tensor *t, sc_dtype dtype,
                             sc_tensor **out, sc_error *err);

/* Copy src into dst (dst's view; src broadcast to dst's shape and
 * converted to dst's dtype).  If they overlap, src is read fully first. */
sc_status sc_tensor_copy(sc_tensor *dst, const sc_tensor *src, sc_error *err);

/* Fill every element of t with value (converted). */
sc_status sc_tensor_fill(sc_tensor *t, double value, sc_error *err);

/* ---- Queries ------------------------------------------------------------ */

/* Number of elements (product of sizes; 1 for a 0-d tensor). */
size_t sc_tensor_numel(const sc_tensor *t);
/* numel * itemsize. */
size_t sc_tensor_nbytes(const sc_tensor *t);
/* Row-major dense (strides of size-1 dimensions are ignored, as in
 * PyTorch). */
bool sc_tensor_is_contiguous(const sc_tensor *t);
/* Pointer to element (0, ..., 0). */
void *sc_tensor_data(const sc_tensor *t);
/* Are the two tensors' shapes equal? */
bool sc_tensor_same_shape(const sc_tensor *a, const sc_tensor *b);

/* Element access for tests and tools.  idx has ndim entries, each in
 * range (SC_ERR_INVALID otherwise).  Values are converted as above. */
sc_status sc_tensor_get_double(const sc_tensor *t, const int64_t *idx,
                               double *out, sc_error *err);
sc_status sc_tensor_set_double(sc_tensor *t, const int64_t *idx, double v,
                               sc_error *err);
sc_status sc_tensor_get_int64(const sc_tensor *t, const int64_t *idx,
                              int64_t *out, sc_error *err);
sc_status sc_tensor_set_int64(sc_tensor *t, const int64_t *idx, int64_t v,
                              sc_error *err);
/* The element at row-major position i (0 <= i < numel; no check). */
double sc_tensor_item_double(const sc_tensor *t, size_t i);
int64_t sc_tensor_item_int64(const sc_tensor *t, size_t i);

/* ---- Views (share the storage; O(ndim)) ------------------------------------
 * Dimensions may be negative (counted from the end).  Errors:
 * SC_ERR_INVALID for an out-of-range dimension or index, SC_ERR_SHAPE for
 * sizes that do not fit. */

/* Sizes, strides and offset given explicitly; the view must lie within the
 * storage. */
sc_status sc_tensor_view_as_strided(const sc_tensor *t, size_t ndim,
                                    const int64_t *sizes,
                                    const int64_t *strides, int64_t offset,
                                    sc_tensor **out, sc_error *err);
sc_status sc_tensor_transpose(const sc_tensor *t, int64_t d0, int64_t d1,
                              sc_tensor **out, sc_error *err);
/* dims is a permutation of 0..ndim-1 (negative entries allowed). */
sc_status sc_tensor_permute(const sc_tensor *t, const int64_t *dims,
                            sc_tensor **out, sc_error *err);
/* Removes dimension dim. */
sc_status sc_tensor_select(const sc_tensor *t, int64_t dim, int64_t index,
                           sc_tensor **out, sc_error *err);
/* Python slicing t[start:end:step] along dim (step >= 1; start and end
 * clamped as Python does; INT64_MAX for "to the end"). */
sc_status sc_tensor_slice(const sc_tensor *t, int64_t dim, int64_t start,
                          int64_t end, int64_t step, sc_tensor **out,
                          sc_error *err);
/* Broadcast to sizes (-1 keeps a size; new leading dims allowed). */
sc_status sc_tensor_expand(const sc_tensor *t, size_t ndim,
                           const int64_t *sizes, sc_tensor **out,
                           sc_error *err);
sc_status sc_tensor_unsqueeze(const sc_tensor *t, int64_t dim,
                              sc_tensor **out, sc_error *err);
/* Remove dim if its size is 1 (else an alias). */
sc_status sc_tensor_squeeze_dim(const sc_tensor *t, int64_t dim,
                                sc_tensor **out, sc_error *err);
/* Remove every size-1 dimension. */
sc_status sc_tensor_squeeze(const sc_tensor *t, sc_tensor **out,
                            sc_error *err);
/* A view with new sizes (one may be -1) when the strides allow it, else
 * SC_ERR_SHAPE (PyTorch's view). */
sc_status sc_tensor_view(const sc_tensor *t, size_t ndim, const int64_t *sizes,
                         sc_tensor **out, sc_error *err);
/* A view when possible, else a contiguous copy (PyTorch's reshape). */
sc_status sc_tensor_reshape(const sc_tensor *t, size_t ndim,
                            const int64_t *sizes, sc_tensor **out,
                            sc_error *err);

/* ---- .npy files ----------------------------------------------------------
 * NumPy format versions 1.0, 2.0 and 3.0; descr '<f4' '<f8' '<f2' '<i8'
 * '<i4' '<i2' '|i1' '|u1' '|b1' (and their '>' big-endian forms, swapped on
 * read; '=' and '|' accepted where meaningful); fortran_order False or True
 * (read into a C-order tensor); any shape, including ().  Every malformed
 * input is an SC_ERR_PARSE (or SC_ERR_OVERFLOW, SC_ERR_UNSUPPORTED,
 * SC_ERR_IO) whose message gives the byte offset of the problem; the file
 * name (or `name`) is in err->file. */

/* Read the .npy bytes buf[0..len).  name (may be NULL) names the buffer in
 * errors.  *out is a new contiguous tensor on success, NULL on failure.
 * O(len). */
sc_status sc_npy_read_buffer(const void *buf, size_t len, const char *name,
                             sc_tensor **out, sc_error *err);
/* Read the .npy file at path. */
sc_status sc_npy_read(const char *path, sc_tensor **out, sc_error *err);

/* Serialize t (any strides) as NumPy 1.0 (2.0 if the header needs it),
 * little-endian, C order, into a new malloc'ed buffer (*out, *len; free
 * with free()). */
sc_status sc_npy_write_buffer(const sc_tensor *t, void **out, size_t *len,
                              sc_error *err);
/* Write t to path atomically: a temporary file in the same directory,
 * then rename.  On failure nothing is left behind and an existing file at
 * path is untouched. */
sc_status sc_npy_write(const sc_tensor *t, const char *path, sc_error *err);

#ifdef __cplusplus
}
#endif

#endif /* SYMCUT_TENSOR_H */
