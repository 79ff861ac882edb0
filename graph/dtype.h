/* symcut — dtype semantics shared by the shape rules and the kernels: the
 * kind predicates, PyTorch's promote_types and the category rule of
 * result_type, for every sc_dtype (item sizes and kinds come from
 * SC_DTYPE_MAP in <symcut/graph.h>: sc_dtype_itemsize, sc_dtype_kind).
 * Included by graph/ and kernels/ only.  Not installed. */
#ifndef SYMCUT_GRAPH_DTYPE_H
#define SYMCUT_GRAPH_DTYPE_H

#include <stdbool.h>

#include <symcut/graph.h>

/* Floating point (including the float8 formats). */
static inline bool sc__dtype_is_float(sc_dtype d)
{
    return sc_dtype_kind(d) == 'f';
}

static inline bool sc__dtype_is_complex(sc_dtype d)
{
    return sc_dtype_kind(d) == 'c';
}

/* Signed or unsigned integer; bool too when include_bool. */
static inline bool sc__dtype_is_integral(sc_dtype d, bool include_bool)
{
    char k = sc_dtype_kind(d);
    return k == 'i' || k == 'u' || (include_bool && k == 'b');
}

/* PyTorch's promoteTypes: bool < integers < floats < complex; f16 with
 * bf16 gives f32, u8 with i8 gives i16. */
sc_dtype sc__dtype_promote(sc_dtype a, sc_dtype b);

/* result_type: add operands at their priority level, then read the
 * result.  Dimensioned tensors take precedence over 0-d tensors, which
 * take precedence over wrapped numbers (Python scalars; bool, int64,
 * float32 (the default dtype) or complex128 stand for their categories),
 * unless a lower level is of a higher category. */
typedef enum sc__result_type_level {
    SC__RESULT_TYPE_DIM,        /* a tensor with ndim >= 1 */
    SC__RESULT_TYPE_ZERO_DIM,   /* a 0-d tensor */
    SC__RESULT_TYPE_WRAPPED     /* a Python scalar */
} sc__result_type_level;

typedef struct sc__result_type {
    int dim, zero, wrapped; /* sc_dtype or -1 */
} sc__result_type;

void sc__result_type_init(sc__result_type *rt);
void sc__result_type_add(sc__result_type *rt, sc__result_type_level level,
                         sc_dtype d);
/* The result dtype; f32 (the default dtype) when nothing was added. */
sc_dtype sc__result_type_get(const sc__result_type *rt);

#endif /* SYMCUT_GRAPH_DTYPE_H */
