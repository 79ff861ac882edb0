/* symcut — kernels: dtype sizes, f16/bf16 conversions, type promotion. */
#include <string.h>

#include "kernels/kernels-internal.h"

bool sc_tensor_dtype_supported(sc_dtype d)
{
    switch (d) {
    case SC_DTYPE_F32: case SC_DTYPE_F64: case SC_DTYPE_F16:
    case SC_DTYPE_BF16: case SC_DTYPE_I64: case SC_DTYPE_I32:
    case SC_DTYPE_I16: case SC_DTYPE_I8: case SC_DTYPE_U8: case SC_DTYPE_B8:
        return true;
    default:
        return false;
    }
}

/* ---- 16-bit floats -------------------------------------------------------- */

static uint32_t f32_bits(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    return x;
}

static float bits_f32(uint32_t x)
{
    float f;
    memcpy(&f, &x, sizeof f);
    return f;
}

uint16_t sc_f32_to_f16(float f)
{
    uint32_t x = f32_bits(f);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    uint32_t a = x & 0x7fffffffu;

    if (a > 0x7f800000u)                  /* NaN: PyTorch's canonical NaN */
        return sign | 0x7e00u;
    if (a >= 0x47800000u)                 /* >= 65536, or inf */
        return sign | 0x7c00u;
    if (a < 0x38800000u) {                /* below 2^-14: subnormal or 0 */
        uint32_t e = a >> 23, mant, shift, q, rem, half;
        if (e < 102)                      /* below 2^-25: rounds to 0 */
            return sign;
        mant = (a & 0x7fffffu) | 0x800000u;
        shift = 126 - e;                  /* 14 .. 24 */
        q = mant >> shift;
        rem = mant & ((1u << shift) - 1);
        half = 1u << (shift - 1);
        if (rem > half || (rem == half && (q & 1)))
            q++;
        return (uint16_t)(sign | q);
    } else {
        uint32_t r = a - 0x38000000u;     /* rebias the exponent 127 -> 15 */
        uint32_t h = r >> 13, rem = r & 0x1fffu;
        if (rem > 0x1000u || (rem == 0x1000u && (h & 1)))
            h++;                          /* a carry may give inf: right */
        return (uint16_t)(sign | h);
    }
}

float sc_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;

    if (e == 0x1f)
        return bits_f32(sign | 0x7f800000u | (m << 13));
    if (e == 0) {
        float v = (float)m * 0x1p-24f;
        return sign ? -v : v;
    }
    return bits_f32(sign | ((e + 112) << 23) | (m << 13));
}

uint16_t sc_f32_to_bf16(float f)
{
    uint32_t x = f32_bits(f);
    if (f != f)
        return 0x7fc0u;
    x += 0x7fffu + ((x >> 16) & 1u);
    return (uint16_t)(x >> 16);
}

float sc_bf16_to_f32(uint16_t b)
{
    return bits_f32((uint32_t)b << 16);
}

/* ---- Promotion (graph/dtype.h) ------------------------------------------ */

bool sc_dtype_promote(sc_dtype a, sc_dtype b, sc_dtype *out)
{
    if (!sc_tensor_dtype_supported(a) || !sc_tensor_dtype_supported(b))
        return false;
    *out = sc__dtype_promote(a, b);
    return true;
}

sc_status sc_dtype_result_type(size_t n, const sc_operand *ops, sc_dtype *out,
                               sc_error *err)
{
    sc__result_type rt;
    size_t i;

    if (n == 0)
        return sc__error_set(err, SC_ERR_INVALID,
                             "result_type of no operands");
    sc__result_type_init(&rt);
    for (i = 0; i < n; i++) {
        switch (ops[i].kind) {
        case SC_OPERAND_TENSOR:
        case SC_OPERAND_ZERO_DIM:
            if (!sc_tensor_dtype_supported(ops[i].dtype))
                return sc__error_set(err, SC_ERR_UNSUPPORTED,
                                     "operand %zu: unsupported dtype %d", i,
                                     (int)ops[i].dtype);
            sc__result_type_add(&rt,
                                ops[i].kind == SC_OPERAND_TENSOR
                                    ? SC__RESULT_TYPE_DIM
                                    : SC__RESULT_TYPE_ZERO_DIM,
                                ops[i].dtype);
            break;
        case SC_OPERAND_INT:
            sc__result_type_add(&rt, SC__RESULT_TYPE_WRAPPED, SC_DTYPE_I64);
            break;
        case SC_OPERAND_FLOAT:
            sc__result_type_add(&rt, SC__RESULT_TYPE_WRAPPED, SC_DTYPE_F32);
            break;
        case SC_OPERAND_BOOL:
            sc__result_type_add(&rt, SC__RESULT_TYPE_WRAPPED, SC_DTYPE_B8);
            break;
        default:
            return sc__error_set(err, SC_ERR_INVALID,
                                 "operand %zu: bad kind", i);
        }
    }
    *out = sc__result_type_get(&rt);
    return SC_OK;
}
