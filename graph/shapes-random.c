/* symcut — shape rules of random ops (native_dropout). */
#include <config.h>

#include "graph/shapes.h"

sc_status sc__shape_native_dropout(struct sc__shape_call *c)
{
    sc_tensor_meta in;
    sc_expr **st, **d;

    SC_TRY(sc__shape_get_tensor(c, "input", &in));
    SC_TRY(sc__shape_outputs(c, 2));
    SC_TRY(sc__shape_preserve_strides(c, &in, &st));
    d = sc__shape_copy_sizes(c, &in);
    if (!d)
        return SC_ERR_NOMEM;
    SC_TRY(sc__shape_set_tensor(c, 0, in.dtype, in.ndim, d, st, &in));
    d = sc__shape_copy_sizes(c, &in);
    if (!d)
        return SC_ERR_NOMEM;
    return sc__shape_set_tensor(c, 1, SC_DTYPE_B8, in.ndim, d, st, &in);
}
