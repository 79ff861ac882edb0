/* symcut — shape rules of matrix products (mm, bmm, addmm). */
#include <config.h>

#include "graph/shapes.h"

sc_status sc__shape_mm(struct sc__shape_call *c)
{
    sc_tensor_meta a, b;
    sc_expr **d;

    SC_TRY(sc__shape_get_tensor(c, "self", &a));
    SC_TRY(sc__shape_get_tensor(c, "mat2", &b));
    SC_TRY(sc__shape_need_dims(c, "self", &a, 2, 2));
    SC_TRY(sc__shape_need_dims(c, "mat2", &b, 2, 2));
    SC_TRY(sc__shape_check_eq(c, a.sizes[1], b.sizes[0],
                              "self and mat2 shapes cannot be multiplied"));
    SC_TRY(sc__shape_outputs(c, 1));
    d = sc__shape_dims(c, 2);
    if (!d)
        return SC_ERR_NOMEM;
    d[0] = a.sizes[0];
    d[1] = b.sizes[1];
    return sc__shape_set_tensor(c, 0, a.dtype, 2, d, NULL, &a);
}

sc_status sc__shape_bmm(struct sc__shape_call *c)
{
    sc_tensor_meta a, b;
    sc_expr **d;

    SC_TRY(sc__shape_get_tensor(c, "self", &a));
    SC_TRY(sc__shape_get_tensor(c, "mat2", &b));
    SC_TRY(sc__shape_need_dims(c, "batch1", &a, 3, 3));
    SC_TRY(sc__shape_need_dims(c, "batch2", &b, 3, 3));
    SC_TRY(sc__shape_check_eq(c, a.sizes[0], b.sizes[0],
                              "batch1 and batch2 must have the same "
                              "batch size"));
    SC_TRY(sc__shape_check_eq(c, a.sizes[2], b.sizes[1],
                              "batch1 and batch2 shapes cannot be "
                              "multiplied"));
    SC_TRY(sc__shape_outputs(c, 1));
    d = sc__shape_dims(c, 3);
    if (!d)
        return SC_ERR_NOMEM;
    d[0] = a.sizes[0];
    d[1] = a.sizes[1];
    d[2] = b.sizes[2];
    return sc__shape_set_tensor(c, 0, a.dtype, 3, d, NULL, &a);
}

sc_status sc__shape_addmm(struct sc__shape_call *c)
{
    sc_tensor_meta self, a, b;
    sc_expr **d, **bc;
    size_t n;

    SC_TRY(sc__shape_get_tensor(c, "self", &self));
    SC_TRY(sc__shape_get_tensor(c, "mat1", &a));
    SC_TRY(sc__shape_get_tensor(c, "mat2", &b));
    SC_TRY(sc__shape_need_dims(c, "mat1", &a, 2, 2));
    SC_TRY(sc__shape_need_dims(c, "mat2", &b, 2, 2));
    SC_TRY(sc__shape_check_eq(c, a.sizes[1], b.sizes[0],
                              "mat1 and mat2 shapes cannot be multiplied"));
    d = sc__shape_dims(c, 2);
    if (!d)
        return SC_ERR_NOMEM;
    d[0] = a.sizes[0];
    d[1] = b.sizes[1];
    if (self.ndim > 2)
        return sc__shape_fail(c, SC_ERR_SHAPE, "self must be at most 2-D");
    /* self must expand to [n, p] */
    SC_TRY(sc__shape_broadcast(c, 2, d, self.ndim, self.sizes, &n, &bc));
    SC_TRY(sc__shape_outputs(c, 1));
    return sc__shape_set_tensor(c, 0, a.dtype, 2, d, NULL, &a);
}
