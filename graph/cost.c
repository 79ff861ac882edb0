/* symcut — what computing a node costs: FLOPs from per-class formulas of
 * the op table's ops, bytes moved, and the weighted recompute cost
 * (doc/graph.md, "Cost").  Exact integer arithmetic: every figure is
 * checked against 2^63. */
#include <stdlib.h>
#include <string.h>

#include <symcut/graph.h>

#include "graph/cost.h"
#include "graph/ops.h"
#include "util/internal.h"

/* ---- The classification of the op table --------------------------------- */

sc__cost_formula sc__op_cost_formula(sc__op op)
{
    switch (op) {
    /* matrix products */
    case SC_OP_MM: return SC__COST_MM;
    case SC_OP_ADDMM: return SC__COST_ADDMM;
    case SC_OP_BMM: return SC__COST_BMM;
    case SC_OP_BADDBMM: return SC__COST_BADDBMM;
    case SC_OP_LINEAR: return SC__COST_LINEAR;
    /* views: metadata only */
    case SC_OP_T:
    case SC_OP_TRANSPOSE_INT:
    case SC_OP_PERMUTE:
    case SC_OP_VIEW:
    case SC_OP__UNSAFE_VIEW:
    case SC_OP__RESHAPE_ALIAS:
    case SC_OP_RESHAPE:
    case SC_OP_AS_STRIDED:
    case SC_OP_EXPAND:
    case SC_OP_DETACH:
    case SC_OP_ALIAS:
    case SC_OP_SQUEEZE:
    case SC_OP_SQUEEZE_DIM:
    case SC_OP_SQUEEZE_DIMS:
    case SC_OP_UNSQUEEZE:
    case SC_OP_SLICE_TENSOR:
    case SC_OP_SELECT_INT:
    case SC_OP_SPLIT_TENSOR:
    case SC_OP_UNSAFE_SPLIT_TENSOR:
    case SC_OP_SPLIT_WITH_SIZES:
    case SC_OP_UNBIND_INT:
    case SC_OP_MOVEDIM_INT:
    case SC_OP_DIAGONAL:
    case SC_OP_PRIMS_TRANSPOSE:
    case SC_OP_PRIMS_BROADCAST_IN_DIM:
        return SC__COST_VIEW;
    /* copies: read the tensors, write the result */
    case SC_OP_SELECT_BACKWARD:
    case SC_OP_SLICE_BACKWARD:
    case SC_OP_AS_STRIDED_BACKWARD:
    case SC_OP_DIAGONAL_BACKWARD:
    case SC_OP_CAT:
    case SC_OP_STACK:
    case SC_OP_CLONE:
    case SC_OP__TO_COPY:
    case SC_OP_LIFT_FRESH_COPY:
    case SC_OP_COPY:
    case SC_OP_COPY_:
    case SC_OP_NONZERO:
    case SC_OP_MASKED_SELECT:
    case SC_OP_SLICE_SCATTER:
    case SC_OP_SELECT_SCATTER:
    case SC_OP_CONSTANT_PAD_ND:
    case SC_OP__LOCAL_SCALAR_DENSE:
        return SC__COST_COPY;
    case SC_OP_MASKED_SCATTER:
    case SC_OP_MASKED_SCATTER_BACKWARD:
    case SC_OP_PRIMS_CONVERT_ELEMENT_TYPE:
    case SC_OP_PRIMS_DEVICE_PUT:
    case SC_OP_SCATTER_VALUE:
    case SC_OP_SCATTER_SRC:
    case SC_OP_INDEX_TENSOR:
    case SC_OP_INDEX_PUT:
        return SC__COST_COPY;
    case SC_OP_EMBEDDING:
    case SC_OP_GATHER:
    case SC_OP_INDEX_SELECT:
        return SC__COST_GATHER;
    case SC_OP_INDEX_ADD:
    case SC_OP_SCATTER_ADD:
        return SC__COST_SCATTER_ADD;
    /* pointwise: 1 FLOP per result element */
    case SC_OP_ADD_TENSOR:
    case SC_OP_PRIMS_ADD:
    case SC_OP_PRIMS_MUL:
    case SC_OP_ADD_SCALAR:
    case SC_OP_SUB_TENSOR:
    case SC_OP_SUB_SCALAR:
    case SC_OP_RSUB_SCALAR:
    case SC_OP_MUL_TENSOR:
    case SC_OP_MUL_SCALAR:
    case SC_OP_DIV_TENSOR:
    case SC_OP_DIV_SCALAR:
    case SC_OP_DIV_TENSOR_MODE:
    case SC_OP_NEG:
    case SC_OP_POW_TENSOR_SCALAR:
    case SC_OP_POW_TENSOR_TENSOR:
    case SC_OP_POW_SCALAR:
    case SC_OP_ABS:
    case SC_OP_SGN:
    case SC_OP_RECIPROCAL:
    case SC_OP_RSQRT:
    case SC_OP_SQRT:
    case SC_OP_EXP:
    case SC_OP_LOG:
    case SC_OP_ERF:
    case SC_OP_CLAMP:
    case SC_OP_TANH:
    case SC_OP_TANH_BACKWARD:
    case SC_OP_SIGMOID:
    case SC_OP_SIGMOID_BACKWARD:
    case SC_OP_RELU:
    case SC_OP_THRESHOLD_BACKWARD:
    case SC_OP_GELU:
    case SC_OP_GELU_BACKWARD:
    case SC_OP_SILU:
    case SC_OP_SILU_BACKWARD:
    case SC_OP_EQ_TENSOR:
    case SC_OP_EQ_SCALAR:
    case SC_OP_NE_TENSOR:
    case SC_OP_NE_SCALAR:
    case SC_OP_LT_TENSOR:
    case SC_OP_LT_SCALAR:
    case SC_OP_LE_TENSOR:
    case SC_OP_LE_SCALAR:
    case SC_OP_GT_TENSOR:
    case SC_OP_GT_SCALAR:
    case SC_OP_GE_TENSOR:
    case SC_OP_GE_SCALAR:
    case SC_OP_WHERE_SELF:
    case SC_OP_MASKED_FILL_SCALAR:
    case SC_OP_NATIVE_DROPOUT_BACKWARD:
    case SC_OP_SIN:
    case SC_OP_COS:
    case SC_OP_HARDTANH:
    case SC_OP_HARDTANH_BACKWARD:
    case SC_OP_LOGICAL_NOT:
    case SC_OP_LOGICAL_AND:
    case SC_OP_BITWISE_OR_TENSOR:
    /* one FLOP per grad_input element (its share of each window) */
    case SC_OP__ADAPTIVE_AVG_POOL2D_BACKWARD:
        return SC__COST_POINTWISE;
    /* reductions */
    case SC_OP_SUM:
    case SC_OP_SUM_DIM_INTLIST:
    case SC_OP_PRIMS_SUM:
    case SC_OP_SUM_TO_SIZE:
    case SC_OP_AMAX:
    case SC_OP_MAX_DIM:
    case SC_OP_VAR_MEAN_CORRECTION:
        return SC__COST_REDUCE;
    case SC_OP_MEAN:
    case SC_OP_MEAN_DIM:
    case SC_OP__ADAPTIVE_AVG_POOL2D:
        return SC__COST_MEAN;
    case SC_OP__SOFTMAX:
    case SC_OP__LOG_SOFTMAX:
    case SC_OP__SAFE_SOFTMAX:
        return SC__COST_SOFTMAX;
    case SC_OP__SOFTMAX_BACKWARD_DATA:
    case SC_OP__LOG_SOFTMAX_BACKWARD_DATA:
        return SC__COST_SOFTMAX_BACKWARD;
    /* normalizations */
    case SC_OP_NATIVE_LAYER_NORM:
    case SC_OP_NATIVE_GROUP_NORM:
    case SC_OP_NATIVE_BATCH_NORM:
    case SC_OP__NATIVE_BATCH_NORM_LEGIT_FUNCTIONAL:
    case SC_OP__NATIVE_BATCH_NORM_LEGIT:
    case SC_OP__NATIVE_BATCH_NORM_LEGIT_NO_STATS:
    case SC_OP__NATIVE_BATCH_NORM_LEGIT_NO_TRAINING:
        return SC__COST_NORM;
    case SC_OP_NATIVE_LAYER_NORM_BACKWARD:
    case SC_OP_NATIVE_GROUP_NORM_BACKWARD:
    case SC_OP_NATIVE_BATCH_NORM_BACKWARD:
        return SC__COST_NORM_BACKWARD;
    /* convolutions, pooling, attention */
    case SC_OP_CONVOLUTION: return SC__COST_CONVOLUTION;
    case SC_OP_CONVOLUTION_BACKWARD: return SC__COST_CONVOLUTION_BACKWARD;
    case SC_OP_MAX_POOL2D_WITH_INDICES: return SC__COST_MAX_POOL;
    case SC_OP_MAX_POOL2D_WITH_INDICES_BACKWARD:
    case SC_OP_EMBEDDING_DENSE_BACKWARD:
        return SC__COST_SCATTER_ADD;
    case SC_OP__SCALED_DOT_PRODUCT_FLASH_ATTENTION_FOR_CPU:
    case SC_OP__SCALED_DOT_PRODUCT_EFFICIENT_ATTENTION:
        return SC__COST_SDPA;
    case SC_OP__SCALED_DOT_PRODUCT_FLASH_ATTENTION_FOR_CPU_BACKWARD:
    case SC_OP__SCALED_DOT_PRODUCT_EFFICIENT_ATTENTION_BACKWARD:
        return SC__COST_SDPA_BACKWARD;
    /* losses */
    case SC_OP_NLL_LOSS_FORWARD: return SC__COST_NLL_LOSS;
    case SC_OP_NLL_LOSS_BACKWARD: return SC__COST_NLL_LOSS_BACKWARD;
    /* random */
    case SC_OP_NATIVE_DROPOUT:
    case SC_OP_BERNOULLI__FLOAT:
    case SC_OP_BERNOULLI_P:
    case SC_OP_RAND_LIKE:
    case SC_OP_RANDN_LIKE:
        return SC__COST_RANDOM;
    /* creation */
    case SC_OP_EMPTY_LIKE:
    case SC_OP_NEW_EMPTY:
    case SC_OP_EMPTY_MEMORY_FORMAT:
    case SC_OP_EMPTY_STRIDED:
    case SC_OP_NEW_EMPTY_STRIDED:
        return SC__COST_ALLOC;
    case SC_OP_ZEROS_LIKE:
    case SC_OP_ONES_LIKE:
    case SC_OP_FULL_LIKE:
    case SC_OP_NEW_ZEROS:
    case SC_OP_NEW_ONES:
    case SC_OP_NEW_FULL:
    case SC_OP_ZEROS:
    case SC_OP_ONES:
    case SC_OP_FULL:
    case SC_OP_SCALAR_TENSOR:
    case SC_OP_FILL_SCALAR:
    case SC_OP_ARANGE:
    case SC_OP_ARANGE_START:
    case SC_OP_ARANGE_START_STEP:
    case SC_OP_PRIMS_IOTA:
        return SC__COST_FILL;
    /* nothing runs */
    case SC_OP__ASSERT_SCALAR:
    case SC_OP_SYM_CONSTRAIN_RANGE_FOR_SIZE:
    case SC_OP_SYM_SIZE_INT:
    case SC_OP_SYM_NUMEL:
    case SC_OP_SYM_STRIDE_INT:
    case SC_OP_SYM_ADD:
    case SC_OP_SYM_SUB:
    case SC_OP_SYM_MUL:
    case SC_OP_SYM_FLOORDIV:
    case SC_OP_SYM_MOD:
    case SC_OP_SYM_NEG:
    case SC_OP_SYM_EQ:
    case SC_OP_SYM_NE:
    case SC_OP_SYM_LT:
    case SC_OP_SYM_LE:
    case SC_OP_SYM_GT:
    case SC_OP_SYM_GE:
    case SC_OP_SYM_AND:
    case SC_OP_SYM_OR:
    case SC_OP_SYM_NOT:
    case SC_OP_TORCH_SYM_NOT:
    case SC_OP_TORCH_SYM_MAX:
    case SC_OP_TORCH_SYM_MIN:
    case SC_OP_TORCH_SYM_FLOAT:
    case SC_OP_TORCH_SYM_INT:
    case SC_OP_TORCH_SYM_ITE:
    case SC_OP_TORCH_SYM_SQRT:
    case SC_OP_TORCH_SYM_SQRT_PUBLIC:
    case SC_OP_TORCH_SYM_SUM:
    case SC_OP_GETITEM:
        return SC__COST_NOTHING;
    default:
        return SC__COST_UNCLASSIFIED;
    }
}

#define NAME(NAME, spelling, computes) spelling,
static const char *const formula_names[SC__COST_COUNT_] = {
    SC__COST_FORMULAS(NAME)};
#undef NAME
#define COMPUTES(NAME, spelling, computes) computes,
static const unsigned char formula_computes[SC__COST_COUNT_] = {
    SC__COST_FORMULAS(COMPUTES)};
#undef COMPUTES

const char *sc__cost_formula_name(sc__cost_formula f)
{
    if ((unsigned)f >= (unsigned)SC__COST_COUNT_)
        return "?";
    return formula_names[f];
}

bool sc__cost_formula_computes(sc__cost_formula f)
{
    return (unsigned)f < (unsigned)SC__COST_COUNT_ && formula_computes[f];
}

/* ---- Exact arithmetic below 2^63 ---------------------------------------- */

/* every figure stays below 2^63, so that it also fits an int64_t */
#define COST_LIMIT ((uint64_t)INT64_MAX)

typedef struct cost_eval {
    const sc_graph *g;
    sc_node_id id;
    sc__op op;
    const sc_symmap *binding;
    sc_error *err;
} cost_eval;

static sc_status limit(cost_eval *c)
{
    return sc__error_set(c->err, SC_ERR_LIMIT,
                         "%s: the cost of the node exceeds 2^63",
                         sc_graph_node_name(c->g, c->id));
}

static sc_status mul(cost_eval *c, uint64_t a, uint64_t b, uint64_t *out)
{
    uint64_t r;
    if (__builtin_mul_overflow(a, b, &r) || r > COST_LIMIT)
        return limit(c);
    *out = r;
    return SC_OK;
}

static sc_status add(cost_eval *c, uint64_t a, uint64_t b, uint64_t *out)
{
    uint64_t r;
    if (__builtin_add_overflow(a, b, &r) || r > COST_LIMIT)
        return limit(c);
    *out = r;
    return SC_OK;
}

/* *acc += a * b */
static sc_status addmul(cost_eval *c, uint64_t *acc, uint64_t a, uint64_t b)
{
    uint64_t p = 0;
    SC_TRY(mul(c, a, b, &p));
    return add(c, *acc, p, acc);
}

/* ---- Sizes at the binding ----------------------------------------------- */

static sc_status eval_size(cost_eval *c, sc_expr *e, uint64_t *out)
{
    int64_t v;
    if (!sc_expr_value_si(e, &v)) {
        if (!c->binding) {
            char *text = sc_expr_to_str(sc_graph_ctx(c->g), e);
            sc_status s = sc__error_set(
                c->err, SC_ERR_UNBOUND, "%s: the size %s has no value",
                sc_graph_node_name(c->g, c->id), text ? text : "?");
            free(text);
            return s;
        }
        SC_TRY(sc_expr_eval_si(sc_graph_ctx(c->g), e, c->binding, &v,
                               c->err));
    }
    if (v < 0)
        return sc__error_set(c->err, SC_ERR_INVALID,
                             "%s: a size evaluates to %lld",
                             sc_graph_node_name(c->g, c->id), (long long)v);
    *out = (uint64_t)v;
    return SC_OK;
}

/* A tensor's sizes: the node's result when it is a tensor. */
typedef struct tinfo {
    bool ok;          /* a tensor with known metadata */
    size_t ndim;
    uint64_t numel;
    uint64_t itemsize;
    uint64_t bytes;   /* numel * itemsize */
    sc_tensor_meta meta;
} tinfo;

static sc_status tensor_of_meta(cost_eval *c, const sc_result *r, tinfo *t)
{
    memset(t, 0, sizeof *t);
    if (r->kind != SC_RESULT_TENSOR)
        return SC_OK;
    t->ok = true;
    t->meta = r->tensor;
    t->ndim = r->tensor.ndim;
    t->itemsize = sc_dtype_itemsize(r->tensor.dtype);
    t->numel = 1;
    for (size_t d = 0; d < t->ndim; d++) {
        uint64_t s;
        SC_TRY(eval_size(c, r->tensor.sizes[d], &s));
        SC_TRY(mul(c, t->numel, s, &t->numel));
    }
    return mul(c, t->numel, t->itemsize, &t->bytes);
}

static sc_status tensor_of_node(cost_eval *c, sc_node_id n, tinfo *t)
{
    sc_result r;
    sc_graph_node_result(c->g, n, &r);
    return tensor_of_meta(c, &r, t);
}

/* Size d of t (negative d counts from the end); 1 when out of range. */
static sc_status dim_size(cost_eval *c, const tinfo *t, long d, uint64_t *out)
{
    if (d < 0)
        d += (long)t->ndim;
    if (!t->ok || d < 0 || (size_t)d >= t->ndim) {
        *out = 1;
        return SC_OK;
    }
    return eval_size(c, t->meta.sizes[d], out);
}

/* The value of the schema argument `name` of the node: positional or
 * keyword; NULL when not given (the default). */
static const sc_value *arg_named(cost_eval *c, const char *name)
{
    int idx = sc__op_arg_index(c->op, name);
    size_t npos = sc_graph_node_positional_count(c->g, c->id);
    size_t n = sc_graph_node_arg_count(c->g, c->id);
    if (idx >= 0 && (size_t)idx < npos)
        return sc_graph_node_arg(c->g, c->id, (size_t)idx);
    for (size_t i = npos; i < n; i++) {
        const char *kw = sc_graph_node_kwname(c->g, c->id, i);
        if (kw && strcmp(kw, name) == 0)
            return sc_graph_node_arg(c->g, c->id, i);
    }
    return NULL;
}

/* The tensor argument `name` (t->ok false when absent or None). */
static sc_status arg_tensor(cost_eval *c, const char *name, tinfo *t)
{
    const sc_value *v = arg_named(c, name);
    memset(t, 0, sizeof *t);
    if (!v || v->kind != SC_VALUE_NODE)
        return SC_OK;
    return tensor_of_node(c, v->u.node, t);
}

static bool arg_bool(cost_eval *c, const char *name, bool dflt)
{
    const sc_value *v = arg_named(c, name);
    if (v && v->kind == SC_VALUE_BOOL)
        return v->u.b;
    if (v && v->kind == SC_VALUE_INT)
        return v->u.i != 0;
    return dflt;
}

/* Element k of a bool[3] output_mask (true when absent). */
static bool mask_bit(cost_eval *c, size_t k)
{
    const sc_value *v = arg_named(c, "output_mask");
    const sc_value *e;
    if (!v || (v->kind != SC_VALUE_LIST && v->kind != SC_VALUE_TUPLE) ||
        k >= v->u.list.n)
        return true;
    e = &v->u.list.items[k];
    if (e->kind == SC_VALUE_BOOL)
        return e->u.b;
    if (e->kind == SC_VALUE_INT)
        return e->u.i != 0;
    return true;
}

/* The integers of a list argument (SymInts evaluated) into out[0..cap);
 * *n their count; false when the argument is not a list. */
static sc_status arg_ints(cost_eval *c, const char *name, uint64_t *out,
                          size_t cap, size_t *n)
{
    const sc_value *v = arg_named(c, name);
    *n = 0;
    if (!v)
        return SC_OK;
    if (v->kind == SC_VALUE_INT) {
        if (cap > 0 && v->u.i >= 0) {
            out[0] = (uint64_t)v->u.i;
            *n = 1;
        }
        return SC_OK;
    }
    if (v->kind != SC_VALUE_LIST && v->kind != SC_VALUE_TUPLE)
        return SC_OK;
    for (size_t i = 0; i < v->u.list.n && *n < cap; i++) {
        const sc_value *e = &v->u.list.items[i];
        if (e->kind == SC_VALUE_INT && e->u.i >= 0)
            out[(*n)++] = (uint64_t)e->u.i;
        else if (e->kind == SC_VALUE_SYMINT)
            SC_TRY(eval_size(c, e->u.expr, &out[(*n)++]));
        else
            return SC_OK;
    }
    return SC_OK;
}

/* ---- Bytes -------------------------------------------------------------- */

/* Bytes of every tensor the node reads: each tensor argument (also inside
 * lists, as cat's) in full, numel * itemsize. */
static sc_status bytes_read(cost_eval *c, uint64_t *out)
{
    size_t n = sc_graph_node_arg_count(c->g, c->id);
    *out = 0;
    for (size_t i = 0; i < n; i++) {
        const sc_value *v = sc_graph_node_arg(c->g, c->id, i);
        size_t m = 1;
        const sc_value *items = v;
        if (v->kind == SC_VALUE_LIST || v->kind == SC_VALUE_TUPLE) {
            m = v->u.list.n;
            items = v->u.list.items;
        }
        for (size_t j = 0; j < m; j++) {
            tinfo t;
            if (items[j].kind != SC_VALUE_NODE)
                continue;
            SC_TRY(tensor_of_node(c, items[j].u.node, &t));
            SC_TRY(add(c, *out, t.bytes, out));
        }
    }
    return SC_OK;
}

/* Bytes of the node's result: a tensor's, or for a tuple the elements
 * getitem nodes read (each index once; an element nobody reads is not
 * counted). */
static sc_status bytes_written(cost_eval *c, uint64_t *out)
{
    sc_result r;
    tinfo t;
    *out = 0;
    sc_graph_node_result(c->g, c->id, &r);
    if (r.kind == SC_RESULT_TENSOR) {
        SC_TRY(tensor_of_meta(c, &r, &t));
        *out = t.bytes;
        return SC_OK;
    }
    if (r.kind == SC_RESULT_TUPLE) {
        size_t nu = 0;
        const sc_node_id *users = sc_graph_node_users(c->g, c->id, &nu);
        uint64_t seen = 0; /* indices < 64 already counted */
        for (size_t u = 0; u < nu; u++) {
            const sc_value *ix;
            if (sc__graph_node_op(c->g, users[u]) != SC_OP_GETITEM ||
                sc_graph_node_arg_count(c->g, users[u]) < 2)
                continue;
            ix = sc_graph_node_arg(c->g, users[u], 1);
            if (ix->kind != SC_VALUE_INT || ix->u.i < 0)
                continue;
            if (ix->u.i < 64) {
                if (seen & ((uint64_t)1 << ix->u.i))
                    continue;
                seen |= (uint64_t)1 << ix->u.i;
            }
            SC_TRY(tensor_of_node(c, users[u], &t));
            SC_TRY(add(c, *out, t.bytes, out));
        }
    }
    return SC_OK;
}

/* The numel of tuple element k, as a getitem user of the node reads it
 * (0 when none does). */
static sc_status element_numel(cost_eval *c, int64_t k, uint64_t *out)
{
    size_t nu = 0;
    const sc_node_id *users = sc_graph_node_users(c->g, c->id, &nu);
    *out = 0;
    for (size_t u = 0; u < nu; u++) {
        const sc_value *ix;
        tinfo t;
        if (sc__graph_node_op(c->g, users[u]) != SC_OP_GETITEM ||
            sc_graph_node_arg_count(c->g, users[u]) < 2)
            continue;
        ix = sc_graph_node_arg(c->g, users[u], 1);
        if (ix->kind != SC_VALUE_INT || ix->u.i != k)
            continue;
        SC_TRY(tensor_of_node(c, users[u], &t));
        *out = t.numel;
        return SC_OK;
    }
    return SC_OK;
}

/* ---- FLOPs by class ----------------------------------------------------- */

/* 2*n*m*p for self [.., n, m] @ mat2 [.., m, p]; *np gets n*p. */
static sc_status product(cost_eval *c, const tinfo *a, const tinfo *b,
                         uint64_t batch, uint64_t *flops, uint64_t *np)
{
    uint64_t n = 0, m = 0, p = 0;
    SC_TRY(dim_size(c, a, -2, &n));
    SC_TRY(dim_size(c, a, -1, &m));
    SC_TRY(dim_size(c, b, -1, &p));
    SC_TRY(mul(c, batch, n, np));
    SC_TRY(mul(c, *np, p, np));
    SC_TRY(mul(c, *np, m, flops));
    return mul(c, *flops, 2, flops);
}

static sc_status flops_matmul(cost_eval *c, sc__cost_formula f,
                              uint64_t *flops)
{
    tinfo a, b, bias;
    uint64_t batch = 1, np = 0;
    switch (f) {
    case SC__COST_MM:
        SC_TRY(arg_tensor(c, "self", &a));
        SC_TRY(arg_tensor(c, "mat2", &b));
        return product(c, &a, &b, 1, flops, &np);
    case SC__COST_ADDMM:
        SC_TRY(arg_tensor(c, "mat1", &a));
        SC_TRY(arg_tensor(c, "mat2", &b));
        SC_TRY(product(c, &a, &b, 1, flops, &np));
        return add(c, *flops, np, flops);
    case SC__COST_BMM:
    case SC__COST_BADDBMM:
        SC_TRY(arg_tensor(c, f == SC__COST_BMM ? "self" : "batch1", &a));
        SC_TRY(arg_tensor(c, f == SC__COST_BMM ? "mat2" : "batch2", &b));
        SC_TRY(dim_size(c, &a, -3, &batch));
        SC_TRY(product(c, &a, &b, batch, flops, &np));
        if (f == SC__COST_BADDBMM)
            SC_TRY(add(c, *flops, np, flops));
        return SC_OK;
    default: { /* LINEAR: input [..., in] @ weight [out, in]^T (+ bias) */
        uint64_t in, out, rows;
        SC_TRY(arg_tensor(c, "input", &a));
        SC_TRY(arg_tensor(c, "weight", &b));
        SC_TRY(arg_tensor(c, "bias", &bias));
        SC_TRY(dim_size(c, &a, -1, &in));
        SC_TRY(dim_size(c, &b, 0, &out));
        rows = in ? a.numel / in : 0;
        SC_TRY(mul(c, rows, out, &np));
        SC_TRY(mul(c, np, in, flops));
        SC_TRY(mul(c, *flops, 2, flops));
        if (bias.ok)
            SC_TRY(add(c, *flops, np, flops));
        return SC_OK;
    }
    }
}

/* One convolution: 2 * numel(x) * numel(weight) / weight.size(0), x the
 * output (the input when transposed): every element of x is a dot
 * product over C_in/groups * prod(kernel) weights. */
static sc_status conv_flops(cost_eval *c, const tinfo *x, const tinfo *w,
                            uint64_t *out)
{
    uint64_t w0, per;
    SC_TRY(dim_size(c, w, 0, &w0));
    per = w0 ? w->numel / w0 : 0;
    SC_TRY(mul(c, x->numel, per, out));
    return mul(c, *out, 2, out);
}

static sc_status flops_conv(cost_eval *c, sc__cost_formula f, uint64_t *flops)
{
    tinfo in, w, bias, res, gout;
    bool transposed = arg_bool(c, "transposed", false);
    uint64_t one;
    SC_TRY(arg_tensor(c, "input", &in));
    SC_TRY(arg_tensor(c, "weight", &w));
    if (f == SC__COST_CONVOLUTION) {
        SC_TRY(arg_tensor(c, "bias", &bias));
        SC_TRY(tensor_of_node(c, c->id, &res));
        SC_TRY(conv_flops(c, transposed ? &in : &res, &w, flops));
        if (bias.ok)
            SC_TRY(add(c, *flops, res.numel, flops));
        return SC_OK;
    }
    SC_TRY(arg_tensor(c, "grad_output", &gout));
    SC_TRY(conv_flops(c, transposed ? &in : &gout, &w, &one));
    *flops = 0;
    if (mask_bit(c, 0))
        SC_TRY(add(c, *flops, one, flops));
    if (mask_bit(c, 1))
        SC_TRY(add(c, *flops, one, flops));
    if (mask_bit(c, 2) && arg_named(c, "bias_sizes") &&
        arg_named(c, "bias_sizes")->kind != SC_VALUE_NONE)
        SC_TRY(add(c, *flops, gout.numel, flops));
    return SC_OK;
}

/* Normalizations.  Forward (training statistics): 5 per element (mean,
 * centre, square, sum, scale by rstd), + 1 per element for each of weight
 * and bias; batch norm in eval mode 2 per element (centre, scale).
 * Backward: 7 per element for grad_input, 2 for grad_weight, 1 for
 * grad_bias, where output_mask asks. */
static sc_status flops_norm(cost_eval *c, sc__cost_formula f, uint64_t *flops)
{
    tinfo in, w, b;
    uint64_t per = 0;
    SC_TRY(arg_tensor(c, "input", &in));
    SC_TRY(arg_tensor(c, "weight", &w));
    if (f == SC__COST_NORM) {
        SC_TRY(arg_tensor(c, "bias", &b));
        per = 5;
        if ((sc__op_arg_index(c->op, "training") >= 0 &&
             !arg_bool(c, "training", true)) ||
            c->op == SC_OP__NATIVE_BATCH_NORM_LEGIT_NO_TRAINING)
            per = 2;
        per += (w.ok ? 1 : 0) + (b.ok ? 1 : 0);
    } else {
        if (mask_bit(c, 0))
            per += 7;
        if (mask_bit(c, 1) && w.ok)
            per += 2;
        if (mask_bit(c, 2) && w.ok)
            per += 1;
    }
    return mul(c, in.numel, per, flops);
}

/* Attention: query [..., L, E], key [..., S, E], value [..., S, Ev].
 * Forward: Q K^T (2 L S E), softmax (5 L S), P V (2 L S Ev) per batch.
 * Backward: Q K^T again (2 L S E), softmax again (5 L S), dV = P^T dO
 * (2 L S Ev), dP = dO V^T (2 L S Ev), softmax backward (4 L S),
 * dQ = dS K (2 L S E), dK = dS^T Q (2 L S E). */
static sc_status flops_sdpa(cost_eval *c, sc__cost_formula f, uint64_t *flops)
{
    tinfo q, k, v;
    uint64_t L = 0, E = 0, S = 0, Ev = 0, batch, ls = 0, per;
    SC_TRY(arg_tensor(c, "query", &q));
    SC_TRY(arg_tensor(c, "key", &k));
    SC_TRY(arg_tensor(c, "value", &v));
    SC_TRY(dim_size(c, &q, -2, &L));
    SC_TRY(dim_size(c, &q, -1, &E));
    SC_TRY(dim_size(c, &k, -2, &S));
    SC_TRY(dim_size(c, &v, -1, &Ev));
    batch = L && E ? q.numel / L / E : 0;
    SC_TRY(mul(c, batch, L, &ls));
    SC_TRY(mul(c, ls, S, &ls));
    if (f == SC__COST_SDPA) {
        per = 5; /* softmax */
        SC_TRY(addmul(c, &per, 2, E));
        SC_TRY(addmul(c, &per, 2, Ev));
    } else {
        per = 9; /* softmax recomputed and its backward */
        SC_TRY(addmul(c, &per, 6, E));
        SC_TRY(addmul(c, &per, 4, Ev));
    }
    return mul(c, ls, per, flops);
}

/* max_pool2d: one comparison per window element of each result element. */
static sc_status flops_max_pool(cost_eval *c, uint64_t *flops)
{
    uint64_t k[2] = {1, 1}, n = 0;
    size_t nk;
    SC_TRY(arg_ints(c, "kernel_size", k, 2, &nk));
    if (nk == 1)
        k[1] = k[0];
    SC_TRY(element_numel(c, 0, &n));
    if (n == 0)
        SC_TRY(element_numel(c, 1, &n));
    SC_TRY(mul(c, n, k[0], flops));
    return mul(c, *flops, k[1], flops);
}

static sc_status flops_of(cost_eval *c, sc__cost_formula f, uint64_t *flops)
{
    tinfo a, res;
    *flops = 0;
    switch (f) {
    case SC__COST_POINTWISE:
        SC_TRY(tensor_of_node(c, c->id, &res));
        *flops = res.numel;
        return SC_OK;
    case SC__COST_RANDOM: {
        /* a draw per element; bernoulli also compares (2); dropout draws,
         * compares and scales (3) */
        uint64_t per = c->op == SC_OP_NATIVE_DROPOUT         ? 3
                       : c->op == SC_OP_RAND_LIKE ||
                               c->op == SC_OP_RANDN_LIKE     ? 1
                                                             : 2;
        const char *in = c->op == SC_OP_NATIVE_DROPOUT ? "input" : "self";
        SC_TRY(arg_tensor(c, in, &a));
        return mul(c, a.numel, per, flops);
    }
    case SC__COST_REDUCE:
    case SC__COST_MEAN:
        SC_TRY(arg_tensor(c, c->op == SC_OP_PRIMS_SUM ? "inp" : "self", &a));
        *flops = a.numel;
        /* var_mean: the mean's add, then centre, square and add */
        if (c->op == SC_OP_VAR_MEAN_CORRECTION)
            return mul(c, a.numel, 4, flops);
        if (f == SC__COST_MEAN) {
            SC_TRY(tensor_of_node(c, c->id, &res));
            SC_TRY(add(c, *flops, res.numel, flops));
        }
        return SC_OK;
    case SC__COST_SOFTMAX:
        SC_TRY(arg_tensor(c, "self", &a));
        return mul(c, a.numel, 5, flops);
    case SC__COST_SOFTMAX_BACKWARD:
        SC_TRY(arg_tensor(c, "grad_output", &a));
        return mul(c, a.numel, 4, flops);
    case SC__COST_MM:
    case SC__COST_ADDMM:
    case SC__COST_BMM:
    case SC__COST_BADDBMM:
    case SC__COST_LINEAR:
        return flops_matmul(c, f, flops);
    case SC__COST_CONVOLUTION:
    case SC__COST_CONVOLUTION_BACKWARD:
        return flops_conv(c, f, flops);
    case SC__COST_NORM:
    case SC__COST_NORM_BACKWARD:
        return flops_norm(c, f, flops);
    case SC__COST_SDPA:
    case SC__COST_SDPA_BACKWARD:
        return flops_sdpa(c, f, flops);
    case SC__COST_MAX_POOL:
        return flops_max_pool(c, flops);
    case SC__COST_SCATTER_ADD:
        /* one add per element added in: grad_output's, index_add's
         * source, scatter_add's src */
        SC_TRY(arg_tensor(c, c->op == SC_OP_INDEX_ADD     ? "source"
                             : c->op == SC_OP_SCATTER_ADD ? "src"
                                                          : "grad_output",
                          &a));
        *flops = a.numel;
        return SC_OK;
    case SC__COST_NLL_LOSS:
    case SC__COST_NLL_LOSS_BACKWARD: {
        /* one term per target (times its weight when weighted) */
        tinfo w;
        SC_TRY(arg_tensor(c, "target", &a));
        SC_TRY(arg_tensor(c, "weight", &w));
        return mul(c, a.numel, w.ok ? 2 : 1, flops);
    }
    default:
        return SC_OK;
    }
}

/* ---- Bytes by class ----------------------------------------------------- */

static sc_status bytes_of(cost_eval *c, sc__cost_formula f, uint64_t *bytes)
{
    uint64_t r = 0, w = 0;
    switch (f) {
    case SC__COST_NOTHING:
    case SC__COST_VIEW:
    case SC__COST_ALLOC:
        *bytes = 0;
        return SC_OK;
    case SC__COST_FILL:
        return bytes_written(c, bytes);
    case SC__COST_GATHER: {
        /* the index, and one result's worth of the source */
        tinfo ix;
        SC_TRY(arg_tensor(c, c->op == SC_OP_EMBEDDING ? "indices" : "index",
                          &ix));
        SC_TRY(bytes_written(c, &w));
        SC_TRY(mul(c, w, 2, bytes));
        return add(c, *bytes, ix.bytes, bytes);
    }
    case SC__COST_NLL_LOSS: {
        /* the target, one logit per target, the weights, the results */
        tinfo t, s, wt;
        SC_TRY(arg_tensor(c, "target", &t));
        SC_TRY(arg_tensor(c, "self", &s));
        SC_TRY(arg_tensor(c, "weight", &wt));
        SC_TRY(bytes_written(c, &w));
        SC_TRY(add(c, w, t.bytes, bytes));
        SC_TRY(add(c, *bytes, wt.bytes, bytes));
        return addmul(c, bytes, t.numel, s.itemsize);
    }
    case SC__COST_NLL_LOSS_BACKWARD: {
        /* the target, the gradient's reads, the result written in full */
        tinfo t, g, wt, tw;
        SC_TRY(arg_tensor(c, "target", &t));
        SC_TRY(arg_tensor(c, "grad_output", &g));
        SC_TRY(arg_tensor(c, "weight", &wt));
        SC_TRY(arg_tensor(c, "total_weight", &tw));
        SC_TRY(bytes_written(c, &w));
        SC_TRY(add(c, w, t.bytes, bytes));
        SC_TRY(add(c, *bytes, g.bytes, bytes));
        SC_TRY(add(c, *bytes, wt.bytes, bytes));
        return add(c, *bytes, tw.bytes, bytes);
    }
    case SC__COST_RANDOM:
        if (c->op == SC_OP_RAND_LIKE || c->op == SC_OP_RANDN_LIKE)
            return bytes_written(c, bytes); /* self only gives the sizes */
        break;
    default:
        break;
    }
    SC_TRY(bytes_read(c, &r));
    SC_TRY(bytes_written(c, &w));
    return add(c, r, w, bytes);
}

/* ---- The entry point ---------------------------------------------------- */

sc_status sc_node_cost_eval(const sc_graph *g, sc_node_id id,
                            const sc_symmap *binding, sc_node_cost *out,
                            sc_error *err)
{
    cost_eval c;
    sc__cost_formula f;
    sc_node_cost r = {0, 0, 0};
    int op;

    if (!g || !out || id < 0 || (size_t)id >= sc_graph_node_count(g))
        return sc__error_set(err, SC_ERR_INVALID,
                             "sc_node_cost_eval: no node %ld", (long)id);
    *out = r;
    if (sc_graph_node_kind(g, id) != SC_NODE_CALL)
        return SC_OK;
    op = sc__graph_node_op(g, id);
    c.g = g;
    c.id = id;
    c.op = (sc__op)op;
    c.binding = binding;
    c.err = err;
    /* an op the table does not know: what it reads and writes */
    f = op == SC_OP_UNKNOWN ? SC__COST_COPY : sc__op_cost_formula(c.op);
    if (f == SC__COST_UNCLASSIFIED)
        f = SC__COST_COPY;
    if (f == SC__COST_NOTHING)
        return SC_OK;
    if (op != SC_OP_UNKNOWN)
        SC_TRY(flops_of(&c, f, &r.flops));
    SC_TRY(bytes_of(&c, f, &r.bytes));
    SC_TRY(mul(&c, r.flops, SC_NODE_COST_FLOP_WEIGHT, &r.cost));
    SC_TRY(add(&c, r.cost, r.bytes, &r.cost));
    SC_TRY(add(&c, r.cost, 1, &r.cost));
    *out = r;
    return SC_OK;
}
