/* symcut — shape rules: the call context every sc__shape_<rule> receives
 * and the helpers the rules share (argument access, questions to the shape
 * environment, broadcasting, dense strides, result_type operands).
 * Included by graph/ only (and by white-box tests).
 *
 * A rule reads its node's bound arguments and the results (metadata) of
 * the nodes they refer to, and fills call->out[0 .. call->nout): one
 * result for an op returning one value, one per element for an op
 * returning a tuple or a list.  Output arrays live in the graph's arena.
 * Guards are recorded through the graph's environment exactly where
 * PyTorch's meta functions ask a question about a symbolic size.
 *
 * Status conventions of a rule: SC_ERR_SHAPE (and SC_ERR_GUARD) when the
 * inputs cannot be valid for the op (a size mismatch); SC_ERR_UNSUPPORTED
 * when the rule cannot say (an input without metadata, an argument form it
 * does not handle); SC_ERR_DATA_DEPENDENT when it would have to guard on
 * an unbacked symbol.  Not installed. */
#ifndef SYMCUT_GRAPH_SHAPES_H
#define SYMCUT_GRAPH_SHAPES_H

#include "graph/dtype.h"
#include "graph/graph-internal.h"
#include "graph/ops.h"

struct sc__shape_call {
    sc_graph *g;
    sc_ctx *ctx;
    sc_env *env;                /* NULL: only constant questions decide */
    sc_node_id id;              /* the node whose result is inferred */
    sc__op op;
    const sc__op_info *info;
    sc__bound_arg args[SC_OP_MAX_ARGS_];
    sc_error *err;
    size_t nout;                /* results filled by the rule */
    sc_result *out;             /* arena of g */
    bool is_tuple;              /* the op returns a tuple or a list */
    bool no_strides;            /* an input had no strides: the rule ran
                                   on dense ones, results carry none */
};

/* ---- Allocation and results ---------------------------------------------- */

/* n expression slots in the graph's arena (never NULL for n == 0 on
 * success); NULL on exhaustion (err set). */
sc_expr **sc__shape_dims(struct sc__shape_call *c, size_t n);

/* Make room for n results (all UNKNOWN) in c->out. */
sc_status sc__shape_outputs(struct sc__shape_call *c, size_t n);

/* Result k as a tensor of dtype/ndim with the given sizes and strides
 * (arrays kept, not copied: allocate them with sc__shape_dims); strides
 * NULL: dense row-major.  The device is the one of `like` (NULL: cpu). */
sc_status sc__shape_set_tensor(struct sc__shape_call *c, size_t k,
                               sc_dtype dtype, size_t ndim, sc_expr **sizes,
                               sc_expr **strides, const sc_tensor_meta *like);

/* A failed expression constructor: the context's error into c->err. */
sc_status sc__shape_expr_error(struct sc__shape_call *c);

/* SC_ERR_SHAPE with a message prefixed by the op's name. */
sc_status sc__shape_fail(struct sc__shape_call *c, sc_status code,
                         const char *fmt, ...) SC__PRINTF(3, 4);

/* ---- Arguments (by schema name) ----------------------------------------- */

/* The bound value of argument `name` (NULL when it took its default). */
const sc_value *sc__shape_arg(struct sc__shape_call *c, const char *name,
                              const sc__default **def);

/* A tensor argument; SC_ERR_UNSUPPORTED when the node has no tensor
 * metadata.  _opt: *present false for None. */
sc_status sc__shape_get_tensor(struct sc__shape_call *c, const char *name,
                               sc_tensor_meta *out);
sc_status sc__shape_get_tensor_opt(struct sc__shape_call *c, const char *name,
                                   sc_tensor_meta *out, bool *present);
/* The tensor metadata of a value (a node reference). */
sc_status sc__shape_value_tensor(struct sc__shape_call *c, const sc_value *v,
                                 sc_tensor_meta *out);

/* An integer expression (int, SymInt literal or SymInt node); NULL with
 * SC_OK for None. */
sc_status sc__shape_value_symint(struct sc__shape_call *c, const sc_value *v,
                                 sc_expr **out);
sc_status sc__shape_get_symint(struct sc__shape_call *c, const char *name,
                               sc_expr **out);
/* A concrete int (a SymInt is guarded to its value); dflt for None. */
sc_status sc__shape_get_int(struct sc__shape_call *c, const char *name,
                            int64_t dflt, int64_t *out);
/* A list of integer expressions (a single int for `int[N]` repeats);
 * *present false (and *n 0) for None. */
sc_status sc__shape_get_symint_list(struct sc__shape_call *c,
                                    const char *name, sc_expr ***out,
                                    size_t *n, bool *present);
bool sc__shape_get_bool(struct sc__shape_call *c, const char *name,
                        bool dflt);
/* Element i of a bool list (output_mask), dflt when absent. */
bool sc__shape_get_bool_at(struct sc__shape_call *c, const char *name,
                           size_t i, bool dflt);
/* An optional dtype; false when None. */
bool sc__shape_get_dtype(struct sc__shape_call *c, const char *name,
                         sc_dtype *out);
/* An optional memory format; false when None. */
bool sc__shape_get_memory_format(struct sc__shape_call *c, const char *name,
                                 sc_memory_format *out);

/* The "self" tensor argument, and room for the op's one result (none for
 * a tuple: the rule sizes it). */
sc_status sc__shape_get_self(struct sc__shape_call *c, sc_tensor_meta *self);
/* SC_ERR_SHAPE unless t has lo .. hi dims (`what` names it). */
sc_status sc__shape_need_dims(struct sc__shape_call *c, const char *what,
                              const sc_tensor_meta *t, size_t lo, size_t hi);
/* The tensor arguments of a pointwise op, in schema order, at most max
 * (Python numbers given for a Tensor count as wrapped scalars in rt; rt
 * may be NULL; the argument named skip_dtype, if any, takes no part in
 * the dtype). */
sc_status sc__shape_tensor_args(struct sc__shape_call *c, sc_tensor_meta *ts,
                                size_t max, size_t *n, sc__result_type *rt,
                                const char *skip_dtype);

/* ---- Questions ------------------------------------------------------------ */

/* Statically known truth of cond (nothing recorded); size-like unbacked
 * symbols are >= 2 when oblivious.  UNKNOWN without an environment unless
 * cond is a constant. */
sc_status sc__shape_known(struct sc__shape_call *c, sc_expr *cond,
                          bool oblivious, sc_tri *out);
/* PyTorch's bool(SymBool): statically known, else a guard (backed). */
sc_status sc__shape_guard(struct sc__shape_call *c, sc_expr *cond, bool *out);
/* guard_size_oblivious. */
sc_status sc__shape_oblivious(struct sc__shape_call *c, sc_expr *cond,
                              bool *out);
/* guard_size_oblivious where it can be answered: statically known
 * (size-like unbacked symbols >= 2), else the answer at the hints recorded
 * as a guard when every symbol is backed; UNKNOWN (nothing recorded) when
 * an unbacked symbol decides.  Rules whose result depends on an order use
 * it, so that the result depends on the hints, not on the guards recorded
 * so far. */
sc_status sc__shape_decide(struct sc__shape_call *c, sc_expr *cond,
                           sc_tri *out);
/* torch._check(cond): fails with SC_ERR_SHAPE (message `what`) when cond
 * is false; records a guard or a runtime assertion otherwise. */
sc_status sc__shape_check(struct sc__shape_call *c, sc_expr *cond,
                          const char *what);
/* torch._check(a == b) with a message naming both sides. */
sc_status sc__shape_check_eq(struct sc__shape_call *c, sc_expr *a,
                             sc_expr *b, const char *what);
/* Is a == 1 / a == b (oblivious, then guarded)? */
sc_status sc__shape_is_one(struct sc__shape_call *c, sc_expr *a, bool *out);

/* ---- Layout helpers --------------------------------------------------------- */

/* Wrap a dim index into [0, ndim) (ndim 0 accepts -1 and 0, as PyTorch's
 * maybe_wrap_dim with wrap_scalar). */
sc_status sc__shape_wrap_dim(struct sc__shape_call *c, int64_t dim,
                             size_t ndim, size_t *out);

/* Dense row-major strides for sizes[0..n) into strides: stride[i] =
 * prod(max(sizes[i+1:], 1)). */
sc_status sc__shape_contiguous(struct sc__shape_call *c, size_t n,
                               sc_expr *const *sizes, sc_expr **strides);

/* Dense strides in the physical order perm (perm[0] outermost). */
sc_status sc__shape_dense_in_order(struct sc__shape_call *c, size_t n,
                                   sc_expr *const *sizes, const size_t *perm,
                                   sc_expr **strides);

/* PyTorch's elementwise output permutation (outermost dim first) for
 * operands already expanded to the common shape (sizes[n], each operand's
 * strides[n]; NULL strides are skipped). */
sc_status sc__shape_elementwise_perm(struct sc__shape_call *c, size_t n,
                                     sc_expr *const *sizes, size_t nops,
                                     sc_expr *const *const *strides,
                                     size_t *perm);

/* Is t non-overlapping and dense (some permutation of dense strides)?
 * Unknown answers count as false. */
sc_status sc__shape_is_dense(struct sc__shape_call *c, const sc_tensor_meta *t,
                             bool *out);
/* Is t contiguous (size-1 dims skipped)? */
sc_status sc__shape_is_contiguous(struct sc__shape_call *c,
                                  const sc_tensor_meta *t, bool *out);

/* Strides for a new tensor "like" t with memory format preserve: t's
 * strides when non-overlapping and dense, else dense in t's order. */
sc_status sc__shape_preserve_strides(struct sc__shape_call *c,
                                     const sc_tensor_meta *t,
                                     sc_expr ***strides);

/* Fresh copies of t's sizes (NULL on exhaustion), of its sizes and
 * strides. */
sc_expr **sc__shape_copy_sizes(struct sc__shape_call *c,
                               const sc_tensor_meta *t);
sc_status sc__shape_copy_meta(struct sc__shape_call *c,
                              const sc_tensor_meta *t, sc_expr ***sizes,
                              sc_expr ***strides);

/* Result k: a contiguous tensor with t's sizes and dtype. */
sc_status sc__shape_like_contiguous(struct sc__shape_call *c, size_t k,
                                    const sc_tensor_meta *t, sc_dtype dtype);
/* Element k of a backward's tuple: like t (contiguous) when output_mask[k]
 * asks, else None. */
sc_status sc__shape_masked_like(struct sc__shape_call *c, size_t k,
                                const sc_tensor_meta *t, bool present);

/* Broadcast shapes a and b into a new array (PyTorch's infer_size). */
sc_status sc__shape_broadcast(struct sc__shape_call *c, size_t na,
                              sc_expr *const *a, size_t nb,
                              sc_expr *const *b, size_t *n, sc_expr ***out);

/* Strides of t viewed as expanded to sizes[n] (aligned right; new and
 * broadcast dims get stride 0).  NULL when t has no strides. */
sc_status sc__shape_expanded_strides(struct sc__shape_call *c,
                                     const sc_tensor_meta *t, size_t n,
                                     sc_expr *const *sizes, sc_expr ***out);

/* Elementwise output of operands ts[0..nt) (broadcast, strides per
 * PyTorch's elementwise rule) as result k with dtype. */
sc_status sc__shape_elementwise(struct sc__shape_call *c, size_t k,
                                sc_dtype dtype, size_t nt,
                                const sc_tensor_meta *ts);

/* a // b for a known to be a multiple of b: the quotient of monomials
 * when b divides a term by term (s0*s1 // s1 = s0), else FloorDiv. */
sc_expr *sc__shape_exact_div(sc_ctx *ctx, sc_expr *a, sc_expr *b);

/* The product of sizes[0..n) (1 for n == 0). */
sc_expr *sc__shape_numel(sc_ctx *ctx, size_t n, sc_expr *const *sizes);

/* ---- dtypes --------------------------------------------------------------------- */

/* The operands of a result_type (graph/dtype.h): a tensor at its level
 * by ndim; a scalar (a Python number, a SymInt/SymBool, or a tensor node)
 * as a wrapped number of its category. */
void sc__result_type_tensor(sc__result_type *rt, const sc_tensor_meta *t);
void sc__result_type_scalar(sc__result_type *rt, const sc_value *v,
                            const sc_graph *g);

#endif /* SYMCUT_GRAPH_SHAPES_H */
