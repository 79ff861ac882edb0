/* symcut — the op table: the types of the tables that graph/gen/gen-ops
 * generates from graph/ops.yaml, and the functions that read them.
 *
 * Included by graph/, kernels/ and partition/ only (and, outside the
 * library, by the generator's tests/gen/test-ops.c); the public headers
 * never include it.
 *
 * This header is written by hand; the generated graph/ops-gen.h (included
 * below) supplies the enums that depend on the table (sc__op, SC_OP_MM, ...;
 * sc__shape_rule; sc__kernel_id; sc__flops_formula) and the generated
 * graph/ops-gen.c defines the tables declared here; graph/ops-vocab.h
 * holds the lists its type, default and class enums are expanded from
 * (the generator expands the same lists).  Include this header,
 * never ops-gen.h directly.  Not installed; nothing here is public API.
 *
 * The table is read-only data: no global mutable state, safe from any
 * thread.  doc/ops.md describes ops.yaml and what each field means.
 */
#ifndef SYMCUT_GRAPH_OPS_H
#define SYMCUT_GRAPH_OPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <symcut/error.h>

#include "graph/ops-vocab.h"

/* The op id of a node: an sc__op of the table, or SC_OP_UNKNOWN for a
 * target the table does not know (an opaque node) and for placeholders.
 * Defined with the graph IR (graph/ir.c); op ids are internal, the public
 * API names ops by their targets. */
#define SC_OP_UNKNOWN (-1)
struct sc_graph;
int sc__graph_node_op(const struct sc_graph *g, int32_t id);

/* ---- Dispatch signatures ------------------------------------------------
 * A shape rule `sc__shape_<rule>` and a kernel `sc__kernel_<name>` each take
 * one call context.  The graph part defines struct sc__shape_call (node,
 * inputs, shape environment, error) and the kernels part struct
 * sc__kernel_call; the table only needs the pointer types. */
struct sc__shape_call;
struct sc__kernel_call;
typedef sc_status (*sc__shape_fn)(struct sc__shape_call *call);
typedef sc_status (*sc__kernel_fn)(struct sc__kernel_call *call);

#include "graph/ops-gen.h"

/* ---- Recompute classes (graph/ops-vocab.h) ------------------------------ */
#define SC__OP_CLASS_ENUM(NAME, spelling) SC_CLASS_##NAME,
typedef enum sc__op_class {
    SC__OP_CLASSES(SC__OP_CLASS_ENUM)
    SC_CLASS_COUNT_
} sc__op_class;
#undef SC__OP_CLASS_ENUM

/* ---- Schema types ---------------------------------------------------------
 * A type of PyTorch's schema language: a base type, optionally a list
 * (`int[]`, fixed size `int[2]`), whose elements may be optional
 * (`Tensor?[]`), and the whole optional (`Tensor?`, `int[1]?`). */
#define SC__OP_TYPE_ENUM(NAME, spelling) SC_TYPE_##NAME,
typedef enum sc__type_base {
    SC__OP_TYPE_BASES(SC__OP_TYPE_ENUM)
    SC_TYPE_BASE_COUNT_
} sc__type_base;
#undef SC__OP_TYPE_ENUM

typedef struct sc__type {
    sc__type_base base;
    bool is_list;               /* T[] or T[N] */
    bool elem_optional;         /* T?[]: elements may be None */
    bool optional;              /* T? or T[]?: the value may be None */
    uint8_t list_size;          /* N of T[N]; 0 for T[] and non-lists */
} sc__type;

/* An alias annotation: `Tensor(a)` (set "a"), `Tensor(a!)` (written),
 * `Tensor(a -> *)` (after the call the value's alias set is the wildcard:
 * the elements of a returned list alias it). */
typedef struct sc__alias {
    const char *set;            /* NULL: not annotated */
    bool is_write;
    bool to_wildcard;
} sc__alias;

/* ---- Default values (graph/ops-vocab.h) --------------------------------- */
#define SC__OP_DEFAULT_ENUM(NAME) SC_DEF_##NAME,
typedef enum sc__default_kind {
    SC__OP_DEFAULT_KINDS(SC__OP_DEFAULT_ENUM)
} sc__default_kind;
#undef SC__OP_DEFAULT_ENUM

typedef struct sc__default {
    sc__default_kind kind;
    bool expanded;              /* a fixed-size list written as one value:
                                   `int[2] padding=0` is the list [0, 0] */
    int64_t i;
    double f;
    const char *s;
    size_t n;
    const int64_t *ints;
    const double *floats;
    const char *text;           /* as written in the schema; NULL if ABSENT */
} sc__default;

/* ---- Arguments, returns, ops --------------------------------------------- */
typedef struct sc__op_arg {
    const char *name;
    sc__type type;
    sc__alias alias;
    bool kwarg_only;            /* after `*` in the schema */
    bool mutated;               /* in the entry's `mutates:` list */
    sc__default def;
} sc__op_arg;

typedef struct sc__op_ret {
    const char *name;           /* NULL when unnamed */
    sc__type type;
    sc__alias alias;
} sc__op_ret;

typedef struct sc__op_info {
    const char *name;           /* "split" */
    const char *overload;       /* "Tensor"; "" for the default overload */
    const char *dotted;         /* "split.Tensor", "mm.default": graph text */
    const char *qualified;      /* "aten::split.Tensor", "aten::mm" */
    const char *ns;             /* "aten", or "python" for the pseudo-ops */
    const char *schema;         /* the `func:` text */
    const char *python_op;      /* infix spelling ("*", "//", "-", "[]"); NULL */
    const char *python_target;  /* "operator.mul"; NULL for aten ops */
    const sc__op_arg *args;     /* nargs, in schema order */
    const sc__op_ret *rets;     /* nrets */
    const uint16_t *mutates;    /* nmutates argument indices */
    uint16_t nargs;
    uint16_t npositional;       /* arguments before `*` */
    uint16_t nrets;
    uint16_t nmutates;
    bool returns_tuple;         /* `-> (A, B)` or `-> ()`; false for `-> A` */
    bool is_view;               /* a return aliases an argument, read-only */
    bool is_inplace;            /* the name ends in '_' (bernoulli_) */
    bool functorch_random;      /* in 1.13's random_ops list */
    sc__op_class cls;
    sc__shape_rule shape;
    sc__kernel_id kernel;       /* SC_KERNEL_NONE_: not executable */
    const char *no_kernel_reason; /* why, when kernel is SC_KERNEL_NONE_ */
    sc__flops_formula flops;    /* SC_FLOPS_NONE_: no formula */
    int line;                   /* of the entry in graph/ops.yaml */
} sc__op_info;

/* One row of the name index: sorted by strcmp of `dotted`. */
typedef struct sc__op_name {
    const char *dotted;
    sc__op op;
} sc__op_name;

/* ---- The generated tables (graph/ops-gen.c) ------------------------------ */
extern const sc__op_info sc__op_table[SC_OP_COUNT_];
extern const sc__op_name sc__op_names_sorted[SC_OP_COUNT_];
/* Names indexed by the generated enums, each followed by a NULL. */
extern const char *const sc__shape_rule_names[];
extern const char *const sc__kernel_names[];
extern const char *const sc__flops_formula_names[];

/* The shape-rule dispatch table, indexed by rule (generated into
 * graph/ops-shapes-gen.c).  The kernel dispatch table, indexed by kernel,
 * and the kernels' prototypes are generated into kernels/kernels-gen.h and
 * kernels/kernels-gen.c. */
extern const sc__shape_fn sc__shape_rule_fns[];

/* The entry of an op; op must be a valid sc__op. */
static inline const sc__op_info *sc__op_get(sc__op op)
{
    return &sc__op_table[op];
}

/* ---- Lookups (graph/ops.c) ----------------------------------------------- */

/* The op whose dotted name is `dotted` ("mm.default", "add.Tensor",
 * "sum.dim_IntList"), or SC_OP_INVALID_.  Exact match; the caller strips
 * "torch.ops.aten.".  O(log n). */
sc__op sc__op_find(const char *dotted);

/* The same for the n bytes at s (need not be NUL-terminated). */
sc__op sc__op_findn(const char *s, size_t n);

/* The python pseudo-op spelled `symbol` infix with `arity` operands
 * ("*", 2 -> SC_OP_SYM_MUL; "-", 1 -> SC_OP_SYM_NEG; "[]", 2 ->
 * SC_OP_GETITEM), or SC_OP_INVALID_. */
sc__op sc__op_find_python(const char *symbol, unsigned arity);

/* The python pseudo-op whose target is `target` ("operator.mul",
 * "operator.getitem"), or SC_OP_INVALID_. */
sc__op sc__op_find_python_target(const char *target);

/* The index of the argument called `name` in op's schema, or -1. */
int sc__op_arg_index(sc__op op, const char *name);

/* "pointwise", "view", ...: the spelling used in ops.yaml; "?" if invalid. */
const char *sc__op_class_name(sc__op_class cls);

/* "Tensor", "int", "SymInt", ...: the schema spelling of a base type. */
const char *sc__type_base_name(sc__type_base base);

/* ---- Argument binding ---------------------------------------------------- */

typedef enum sc__arg_source {
    SC_ARG_UNSET = 0,
    SC_ARG_POSITIONAL,          /* positional[index] */
    SC_ARG_KEYWORD,             /* kwvalues[index], named kwnames[index] */
    SC_ARG_DEFAULT              /* not given: the schema default `def` */
} sc__arg_source;

typedef struct sc__bound_arg {
    const void *value;          /* the caller's value; NULL for DEFAULT */
    const sc__default *def;     /* the schema default for DEFAULT, else NULL */
    sc__arg_source source;
    int index;                  /* into positional[] or kwnames[]; -1 */
} sc__bound_arg;

/* Bind a call's arguments to op's schema slots, as Python binds a call to a
 * signature: positional[0..npos) fill the arguments before `*` in order;
 * each keyword names any argument; arguments not given take their default.
 * The values are opaque to the binder and only copied into `bound`.
 *
 * bound must have room for sc__op_get(op)->nargs entries
 * (SC_OP_MAX_ARGS_ always suffices); it is written only on success.
 * Errors (SC_ERR_TYPE, with a Python-like message naming the op): too many
 * positional arguments, an unknown keyword, an argument given twice, a
 * required argument missing.  SC_ERR_INVALID for an invalid op.
 * O(nargs * nkw). */
sc_status sc__op_bind(sc__op op, size_t npos, const void *const positional[],
                      size_t nkw, const char *const kwnames[],
                      const void *const kwvalues[], sc__bound_arg bound[],
                      sc_error *err);

#endif /* SYMCUT_GRAPH_OPS_H */
