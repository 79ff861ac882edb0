/* symcut — dtype semantics (graph/dtype.h): PyTorch's promote_types and
 * the category rule of result_type, for every sc_dtype. */
#include "graph/dtype.h"

static sc_dtype complex_of(sc_dtype f)
{
    switch (f) {
    case SC_DTYPE_F64:
        return SC_DTYPE_C128;
    case SC_DTYPE_F16:
        return SC_DTYPE_C32;
    default:
        return SC_DTYPE_C64;
    }
}

static sc_dtype signed_of_size(size_t size)
{
    return size <= 1 ? SC_DTYPE_I8
           : size == 2 ? SC_DTYPE_I16
           : size == 4 ? SC_DTYPE_I32
                       : SC_DTYPE_I64;
}

sc_dtype sc__dtype_promote(sc_dtype a, sc_dtype b)
{
    char ka = sc_dtype_kind(a), kb = sc_dtype_kind(b);
    size_t sa = sc_dtype_itemsize(a), sb = sc_dtype_itemsize(b);

    if (a == b)
        return a;
    if (ka == 'b')
        return b;
    if (kb == 'b')
        return a;
    if (ka == 'c' || kb == 'c') {
        sc_dtype cx = ka == 'c' ? a : b, other = ka == 'c' ? b : a;
        if (sc_dtype_kind(other) == 'c')
            return sc_dtype_itemsize(a) >= sc_dtype_itemsize(b) ? a : b;
        if (sc_dtype_kind(other) == 'f' &&
            2 * sc_dtype_itemsize(other) > sc_dtype_itemsize(cx))
            return complex_of(other);
        return cx;
    }
    if (ka == 'f' && kb == 'f') {
        if (sa != sb)
            return sa > sb ? a : b;
        if (sa == 2)
            return SC_DTYPE_F32; /* float16 with bfloat16 */
        return SC_DTYPE_F32;     /* two float8 formats */
    }
    if (ka == 'f')
        return a;
    if (kb == 'f')
        return b;
    if (ka == kb)
        return sa >= sb ? a : b;
    /* one signed, one unsigned */
    {
        size_t ss = ka == 'i' ? sa : sb, us = ka == 'u' ? sa : sb;
        return signed_of_size(us >= ss ? 2 * us : ss);
    }
}

void sc__result_type_init(sc__result_type *rt)
{
    rt->dim = rt->zero = rt->wrapped = -1;
}

static int promote_skip_undefined(int a, int b)
{
    if (a < 0)
        return b;
    if (b < 0)
        return a;
    return (int)sc__dtype_promote((sc_dtype)a, (sc_dtype)b);
}

void sc__result_type_add(sc__result_type *rt, sc__result_type_level level,
                         sc_dtype d)
{
    int *slot = level == SC__RESULT_TYPE_DIM        ? &rt->dim
                : level == SC__RESULT_TYPE_ZERO_DIM ? &rt->zero
                                                    : &rt->wrapped;
    *slot = promote_skip_undefined(*slot, (int)d);
}

static int combine_categories(int higher, int lower)
{
    if (higher >= 0 && sc__dtype_is_complex((sc_dtype)higher))
        return higher;
    if (lower >= 0 && sc__dtype_is_complex((sc_dtype)lower)) {
        if (higher >= 0 && sc__dtype_is_float((sc_dtype)higher))
            return (int)complex_of((sc_dtype)higher);
        return lower;
    }
    if (higher >= 0 && sc__dtype_is_float((sc_dtype)higher))
        return higher;
    if (higher == (int)SC_DTYPE_B8 ||
        (lower >= 0 && sc__dtype_is_float((sc_dtype)lower)))
        return promote_skip_undefined(higher, lower);
    if (higher >= 0)
        return higher;
    return lower;
}

sc_dtype sc__result_type_get(const sc__result_type *rt)
{
    int r = combine_categories(rt->dim,
                               combine_categories(rt->zero, rt->wrapped));
    return r < 0 ? SC_DTYPE_F32 : (sc_dtype)r;
}
