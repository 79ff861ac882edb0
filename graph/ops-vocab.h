/* symcut — the op table's vocabulary, each list declared once as an
 * X-macro: the base types of PyTorch's schema language, the kinds of
 * default values, and the recompute classes.
 *
 * Included by graph/ops.h (the library's enums sc__type_base,
 * sc__default_kind, sc__op_class and their names) and graph/gen/gen.h (the
 * generator's enums and the names it prints into the tables) only, so
 * that the generated tables and the library always agree.  Not installed.
 */
#ifndef SYMCUT_GRAPH_OPS_VOCAB_H
#define SYMCUT_GRAPH_OPS_VOCAB_H

/* X(NAME, spelling): SC_TYPE_<NAME>, spelled `spelling` in a schema. */
#define SC__OP_TYPE_BASES(X)                                                 \
    X(TENSOR, "Tensor")                                                      \
    X(INT, "int")                                                            \
    X(SYMINT, "SymInt")                                                      \
    X(FLOAT, "float")                                                        \
    X(SYMFLOAT, "SymFloat")                                                  \
    X(BOOL, "bool")                                                          \
    X(SYMBOOL, "SymBool")                                                    \
    X(STR, "str")                                                            \
    X(SCALAR, "Scalar")                                                      \
    X(SCALAR_TYPE, "ScalarType")                                             \
    X(LAYOUT, "Layout")                                                      \
    X(DEVICE, "Device")                                                      \
    X(MEMORY_FORMAT, "MemoryFormat")                                         \
    X(GENERATOR, "Generator")                                                \
    X(DIMNAME, "Dimname")                                                    \
    X(ANY, "Any") /* getitem's container and result */

/* X(NAME): SC_DEF_<NAME>, the kind of an argument's default value. */
#define SC__OP_DEFAULT_KINDS(X)                                              \
    X(ABSENT)        /* no default: the argument is required */              \
    X(NONE)          /* None */                                              \
    X(BOOL)          /* i is 0 or 1 */                                       \
    X(INT)           /* i; `int reduction=Mean` is 1 */                      \
    X(FLOAT)         /* f */                                                 \
    X(STR)           /* s, unquoted: `str approximate='none'` */             \
    X(INT_LIST)      /* ints[0..n) */                                        \
    X(FLOAT_LIST)    /* floats[0..n) */                                      \
    X(BOOL_LIST)     /* ints[0..n), each 0 or 1 */                           \
    X(SCALAR_TYPE)   /* s: torch dtype name, "int64" for `long` */           \
    X(LAYOUT)        /* s: "strided" */                                      \
    X(MEMORY_FORMAT) /* s: "contiguous_format" */

/* X(NAME, spelling): SC_CLASS_<NAME>, spelled `spelling` in ops.yaml. */
#define SC__OP_CLASSES(X)                                                    \
    X(POINTWISE, "pointwise")   /* elementwise, fusible: add, gelu, where */ \
    X(VIEW, "view")             /* aliases or reindexes its input: view, t */\
    X(REDUCTION, "reduction")   /* cheap sum-like reductions: sum, amax */   \
    X(COMPUTE_INTENSIVE, "compute_intensive") /* matmuls, convolutions,      \
                                                 norms, softmax */           \
    X(RANDOM, "random")         /* draws random numbers: bernoulli_ */       \
    X(CREATION, "creation")     /* new tensor from sizes only: zeros, full */\
    X(SYMBOLIC, "symbolic")     /* symbolic-integer valued: sym_size */      \
    X(OTHER, "other")           /* everything else: cat, embedding */

#endif /* SYMCUT_GRAPH_OPS_VOCAB_H */
