/* symcut — kernels: private machinery shared by the kernel files: element
 * loads and stores, compute types, broadcasting gathers, the kernel call
 * context and the list of kernels.
 *
 * Included by kernels/ only (and by tests/check_kernels.c, which calls
 * kernels directly, and by tests/check_gemm.c and bench/bench_kernels.c,
 * which call the gathers and the products).  Not installed. */
#ifndef SYMCUT_KERNELS_INTERNAL_H
#define SYMCUT_KERNELS_INTERNAL_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <symcut/tensor.h>

#include "graph/dtype.h"
#include "util/internal.h"

/* ---- Element loads and stores ------------------------------------------ */

static inline int64_t sc__sat_i64(double v)
{
    if (v != v)
        return 0;
    if (v >= 9223372036854775808.0)
        return INT64_MAX;
    if (v < -9223372036854775808.0)
        return INT64_MIN;
    return (int64_t)v;
}

static inline double sc__load_f64(const void *p, sc_dtype d)
{
    switch (d) {
    case SC_DTYPE_F32: return *(const float *)p;
    case SC_DTYPE_F64: return *(const double *)p;
    case SC_DTYPE_F16: return sc_f16_to_f32(*(const uint16_t *)p);
    case SC_DTYPE_BF16: return sc_bf16_to_f32(*(const uint16_t *)p);
    case SC_DTYPE_I64: return (double)*(const int64_t *)p;
    case SC_DTYPE_I32: return *(const int32_t *)p;
    case SC_DTYPE_I16: return *(const int16_t *)p;
    case SC_DTYPE_I8: return *(const int8_t *)p;
    case SC_DTYPE_U8: return *(const uint8_t *)p;
    case SC_DTYPE_B8: return *(const uint8_t *)p != 0;
    default: return 0;
    }
}

static inline float sc__load_f32(const void *p, sc_dtype d)
{
    switch (d) {
    case SC_DTYPE_F32: return *(const float *)p;
    case SC_DTYPE_F16: return sc_f16_to_f32(*(const uint16_t *)p);
    case SC_DTYPE_BF16: return sc_bf16_to_f32(*(const uint16_t *)p);
    case SC_DTYPE_I64: return (float)*(const int64_t *)p;
    default: return (float)sc__load_f64(p, d);
    }
}

static inline int64_t sc__load_i64(const void *p, sc_dtype d)
{
    switch (d) {
    case SC_DTYPE_I64: return *(const int64_t *)p;
    case SC_DTYPE_I32: return *(const int32_t *)p;
    case SC_DTYPE_I16: return *(const int16_t *)p;
    case SC_DTYPE_I8: return *(const int8_t *)p;
    case SC_DTYPE_U8: return *(const uint8_t *)p;
    case SC_DTYPE_B8: return *(const uint8_t *)p != 0;
    default: return sc__sat_i64(sc__load_f64(p, d));
    }
}

static inline void sc__store_i64(void *p, sc_dtype d, int64_t v)
{
    switch (d) {
    case SC_DTYPE_F32: *(float *)p = (float)v; break;
    case SC_DTYPE_F64: *(double *)p = (double)v; break;
    case SC_DTYPE_F16: *(uint16_t *)p = sc_f32_to_f16((float)v); break;
    case SC_DTYPE_BF16: *(uint16_t *)p = sc_f32_to_bf16((float)v); break;
    case SC_DTYPE_I64: *(int64_t *)p = v; break;
    case SC_DTYPE_I32: *(int32_t *)p = (int32_t)(uint32_t)(uint64_t)v; break;
    case SC_DTYPE_I16: *(int16_t *)p = (int16_t)(uint16_t)(uint64_t)v; break;
    case SC_DTYPE_I8: *(int8_t *)p = (int8_t)(uint8_t)(uint64_t)v; break;
    case SC_DTYPE_U8: *(uint8_t *)p = (uint8_t)(uint64_t)v; break;
    case SC_DTYPE_B8: *(uint8_t *)p = v != 0; break;
    default: break;
    }
}

static inline void sc__store_f64(void *p, sc_dtype d, double v)
{
    switch (d) {
    case SC_DTYPE_F32: *(float *)p = (float)v; break;
    case SC_DTYPE_F64: *(double *)p = v; break;
    case SC_DTYPE_F16: *(uint16_t *)p = sc_f32_to_f16((float)v); break;
    case SC_DTYPE_BF16: *(uint16_t *)p = sc_f32_to_bf16((float)v); break;
    case SC_DTYPE_B8: *(uint8_t *)p = v != 0; break;
    default: sc__store_i64(p, d, sc__sat_i64(v)); break;
    }
}

static inline void sc__store_f32(void *p, sc_dtype d, float v)
{
    switch (d) {
    case SC_DTYPE_F32: *(float *)p = v; break;
    case SC_DTYPE_F16: *(uint16_t *)p = sc_f32_to_f16(v); break;
    case SC_DTYPE_BF16: *(uint16_t *)p = sc_f32_to_bf16(v); break;
    default: sc__store_f64(p, d, v); break;
    }
}

/* ---- Compute types ------------------------------------------------------
 * Kernels compute f32, f16 and bf16 in float, f64 in double, integers and
 * bool in int64 (stored back with wrapping). */
typedef enum sc__ctype {
    SC__CT_F32,
    SC__CT_F64,
    SC__CT_I64
} sc__ctype;

static inline sc__ctype sc__ctype_of(sc_dtype d)
{
    if (d == SC_DTYPE_F64)
        return SC__CT_F64;
    if (sc__dtype_is_float(d))
        return SC__CT_F32;
    return SC__CT_I64;
}

static inline size_t sc__ctype_size(sc__ctype ct)
{
    return ct == SC__CT_F32 ? 4 : 8;
}

/* ---- Shapes and iteration ------------------------------------------------ */

/* Normalize a possibly negative dim against ndim (a 0-d tensor accepts -1
 * and 0, as PyTorch).  SC_ERR_INVALID when out of range. */
sc_status sc__wrap_dim(int64_t dim, size_t ndim, size_t *out, sc_error *err);

/* The broadcast shape of a (na dims) and b (nb dims) into out (*nout
 * dims).  SC_ERR_SHAPE when incompatible. */
sc_status sc__broadcast_shape(size_t na, const int64_t *a, size_t nb,
                              const int64_t *b, size_t *nout, int64_t *out,
                              sc_error *err);

/* Product of sizes; SC_ERR_OVERFLOW if beyond size_t. */
sc_status sc__numel_checked(size_t ndim, const int64_t *sizes, size_t *out,
                            sc_error *err);

/* The strides (in elements) of t broadcast to sizes (ndim >= t->ndim; each
 * of t's sizes 1 or equal).  SC_ERR_SHAPE otherwise. */
sc_status sc__broadcast_strides(const sc_tensor *t, size_t ndim,
                                const int64_t *sizes, int64_t *strides,
                                sc_error *err);

/* Row-major iteration over sizes, advancing a byte offset by strides. */
typedef struct sc__iter {
    size_t ndim;
    int64_t sizes[SC_TENSOR_MAX_DIMS];
    int64_t strides[SC_TENSOR_MAX_DIMS]; /* in bytes */
    int64_t idx[SC_TENSOR_MAX_DIMS];
    int64_t pos;                        /* current byte offset */
} sc__iter;

void sc__iter_init(sc__iter *it, size_t ndim, const int64_t *sizes,
                   const int64_t *elem_strides, size_t itemsize);
static inline void sc__iter_next(sc__iter *it)
{
    size_t d = it->ndim;
    while (d > 0) {
        d--;
        it->pos += it->strides[d];
        if (++it->idx[d] < it->sizes[d])
            return;
        it->pos -= it->strides[d] * it->sizes[d];
        it->idx[d] = 0;
    }
}

/* A new buffer (sc__malloc; the caller frees) of numel(sizes) values of
 * ct: t broadcast to sizes and converted, row-major.  For an empty shape
 * a 1-byte allocation is returned. */
sc_status sc__gather(const sc_tensor *t, size_t ndim, const int64_t *sizes,
                     sc__ctype ct, void **out, sc_error *err);

/* Write n values of ct from src into t (row-major over t's view,
 * converting); t->numel must be n. */
void sc__scatter(sc_tensor *t, sc__ctype ct, const void *src);

/* c (n x m) += a (n x k) times b (k x m), row-major contiguous buffers of
 * ct (kernels/matmul.c: f32 and f64 on the packed kernels/gemm.c, int64
 * wrapping): every element is the scalar loop's sum in increasing k, the
 * same bits whatever the blocking.  The product under mm, bmm and addmm,
 * for the other kernels that multiply matrices (linear, baddbmm).
 * For f32 and f64 each step of that sum is one fused multiply-add (the
 * contract of kernels/gemm.h). */
void sc__matmul(sc__ctype ct, size_t n, size_t k, size_t m, const void *a,
                const void *b, void *c);

/* A new contiguous tensor like sizes; shorthand for sc_tensor_new. */
static inline sc_status sc__new(sc_dtype d, size_t ndim, const int64_t *sizes,
                                sc_tensor **out, sc_error *err)
{
    return sc_tensor_new(d, ndim, sizes, out, err);
}

/* ---- The kernel call ----------------------------------------------------- */

typedef enum sc__karg_kind {
    SC__KARG_NONE,    /* None / absent optional */
    SC__KARG_TENSOR,
    SC__KARG_INT,     /* int, SymInt, or an int Scalar */
    SC__KARG_FLOAT,   /* float, or a float Scalar */
    SC__KARG_BOOL,    /* bool, or a bool Scalar */
    SC__KARG_INTS,    /* int[] / SymInt[] */
    SC__KARG_FLOATS,  /* float[] */
    SC__KARG_BOOLS,   /* bool[] */
    SC__KARG_TENSORS, /* Tensor[] / Tensor?[] (elements may be NULL) */
    SC__KARG_STR,
    SC__KARG_DTYPE
} sc__karg_kind;

typedef struct sc__karg {
    sc__karg_kind kind;
    union {
        const sc_tensor *t;
        int64_t i;
        double f;
        bool b;
        struct { size_t n; const int64_t *v; } ints;
        struct { size_t n; const double *v; } floats;
        struct { size_t n; const bool *v; } bools;
        struct { size_t n; const sc_tensor *const *v; } tensors;
        const char *s;
        sc_dtype dtype;
    } u;
} sc__karg;

/* The context of one kernel invocation.  args are in schema order with
 * defaults filled in (the interpreter binds them).  The kernel writes new
 * tensors (each owned by the caller afterwards) to outs[0..nouts) and sets
 * nouts; on failure it leaves nouts 0 and frees whatever it made.
 * Random kernels draw from Philox keyed by (seed, node_key). */
struct sc__kernel_call {
    const sc__karg *args;
    size_t nargs;
    sc_tensor **outs;
    size_t max_outs;
    size_t nouts;
    uint64_t seed;
    uint64_t node_key;
    sc_error *err;
};
typedef struct sc__kernel_call sc__kernel_call;

/* Argument accessors: SC_ERR_TYPE with a message naming the argument
 * position when the kind does not fit. */
sc_status sc__arg_tensor(sc__kernel_call *c, size_t i, const sc_tensor **t);
/* NULL for None. */
sc_status sc__arg_opt_tensor(sc__kernel_call *c, size_t i,
                             const sc_tensor **t);
sc_status sc__arg_int(sc__kernel_call *c, size_t i, int64_t *v);
/* An int, float or bool as double. */
sc_status sc__arg_double(sc__kernel_call *c, size_t i, double *v);
sc_status sc__arg_bool(sc__kernel_call *c, size_t i, bool *v);
/* An int list; a single int is accepted as a list of one. */
sc_status sc__arg_ints(sc__kernel_call *c, size_t i, size_t *n,
                       const int64_t **v);
sc_status sc__arg_tensors(sc__kernel_call *c, size_t i, size_t *n,
                          const sc_tensor *const **v);
/* Is argument i absent or None? */
bool sc__arg_is_none(const sc__kernel_call *c, size_t i);
/* An optional ScalarType: dflt for None, SC_ERR_TYPE for another kind,
 * SC_ERR_UNSUPPORTED for a dtype tensors cannot have. */
sc_status sc__arg_dtype(sc__kernel_call *c, size_t i, sc_dtype dflt,
                        sc_dtype *out);
/* A bool[n] output mask (all true when None). */
sc_status sc__arg_mask(sc__kernel_call *c, size_t i, size_t n, bool *mask);
/* The optional layout, device and pin_memory arguments of a factory at
 * the given indices (layout and device arrive as STR: "strided", "cpu"):
 * anything but a strided CPU tensor is SC_ERR_UNSUPPORTED.
 * SC__FACTORY_OPTS(K) names the three of kernel K. */
sc_status sc__arg_factory_opts(sc__kernel_call *c, size_t layout,
                               size_t device, size_t pin_memory);
#define SC__FACTORY_OPTS(K)                                                  \
    SC_KARG_##K##_LAYOUT, SC_KARG_##K##_DEVICE, SC_KARG_##K##_PIN_MEMORY
/* SC_ERR_TYPE "<what> needs a floating tensor" unless t is floating. */
sc_status sc__arg_float_check(sc__kernel_call *c, const sc_tensor *t,
                              const char *what);
/* Store a result tensor (taking ownership; freed on error). */
sc_status sc__out(sc__kernel_call *c, sc_tensor *t);
/* Free the outputs made so far (on a failure path). */
void sc__out_reset(sc__kernel_call *c);
/* Store n results (entries may be NULL: a None output), taking ownership
 * of all of them; on failure every one is freed and nouts is 0. */
sc_status sc__out_n(sc__kernel_call *c, size_t n, sc_tensor **ts);

/* ---- Philox 4x32-10 (kernels/random.c) ----------------------------------- */
void sc__philox4x32(const uint32_t ctr[4], const uint32_t key[2],
                    uint32_t out[4]);

/* ---- The kernels -----------------------------------------------------------
 * kernels/kernels-gen.h, generated from graph/ops.yaml, declares
 * sc__kernel_<name> for every kernel an op names, the constants
 * SC_KARG_<KERNEL>_<ARGUMENT> by which each reads its arguments, and the
 * dispatch table sc__kernel_fns[]. */
#include "kernels/kernels-gen.h"

/* X(name, target): the kernel sc__kernel_<name> that graph/ops.yaml names
 * is sc__kernel_<target>, one function serving several overloads that
 * read their arguments alike (kernels/aliases.c). */
#define SC__KERNEL_ALIAS_LIST(X)                                             \
    X(add_tensor, add) X(add_scalar, add) X(sub_tensor, sub)                 \
    X(sub_scalar, sub) X(rsub_scalar, rsub) X(mul_tensor, mul)               \
    X(mul_scalar, mul) X(div_tensor, div) X(div_scalar, div)                 \
    X(div_tensor_mode, div) X(pow_tensor_tensor, pow)                        \
    X(pow_tensor_scalar, pow) X(pow_scalar, pow)                             \
    X(eq_tensor, eq) X(eq_scalar, eq) X(ne_tensor, ne) X(ne_scalar, ne)      \
    X(lt_tensor, lt) X(lt_scalar, lt) X(le_tensor, le) X(le_scalar, le)      \
    X(gt_tensor, gt) X(gt_scalar, gt) X(ge_tensor, ge) X(ge_scalar, ge)      \
    X(sum_dim, sum) X(mean_dim, mean)                                        \
    X(bernoulli_p, bernoulli) X(bernoulli_float, bernoulli)

/* The alias targets: each reads its arguments through the constants of
 * one kernel name aliased to it (sc__kernel_add through
 * SC_KARG_ADD_TENSOR_*); kernels/aliases.c asserts that the other names
 * give those arguments the same indices. */
#define SC__KERNEL_DECL(name, target)                                        \
    sc_status sc__kernel_##target(sc__kernel_call *call);
SC__KERNEL_ALIAS_LIST(SC__KERNEL_DECL)
#undef SC__KERNEL_DECL

/* A kernel no op of graph/ops.yaml names (kernels/reduce.c). */
sc_status sc__kernel_amin(sc__kernel_call *call);

#endif /* SYMCUT_KERNELS_INTERNAL_H */
