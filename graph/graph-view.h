/* symcut — the graph's node view and bulk copy: the node array and the
 * representation of a graph, and the functions that append trusted copies
 * of nodes, for the partitioner.
 * Included by graph/ and partition/ only (and white-box tests).  Not
 * installed.
 *
 * partition/ reads a graph's node array (nodes), its outputs
 * (outputs, noutputs), nplaceholders and its users index (users_valid,
 * user_off, users), and builds its forward and backward graphs with
 * sc__graph_reserve, sc__graph_append_copy(_mapped) and
 * sc__graph_index_names; it writes no field directly.  The rest of the
 * graph's private interface is graph/graph-internal.h (graph/ only). */
#ifndef SYMCUT_GRAPH_VIEW_H
#define SYMCUT_GRAPH_VIEW_H

#include <symcut/graph.h>
#include <symcut/guards.h>

#include "util/internal.h"

/* Entries of each cache of sc__graph_append_copy (a power of two). */
#define SC__GRAPH_COPY_CACHE 32

/* Node flags. */
enum {
    SC__NODE_HAS_STRIDES = 1u << 0,
    SC__NODE_HAS_DEVICE = 1u << 1,
    SC__NODE_TUPLE_FIXED = 1u << 2 /* TUPLE count from the op's schema */
};

/* One node: 64 bytes on LP64 (every phase of the partitioner scans the
 * node array of graphs of up to millions of nodes), plus its arena data
 * (name, arguments, dimensions). */
typedef struct sc__node {
    const char *name;     /* arena */
    const char *target;   /* interned in the graph; NULL for placeholders */
    sc_value *args;       /* arena: nargs values, positional first */
    const char **kwnames; /* arena: nargs - npos names, or NULL */
    union {
        sc_expr **dims;   /* TENSOR: sizes[ndim], then strides[ndim] */
        sc_expr *expr;    /* SYMINT, SYMBOOL */
    } meta;
    uint32_t nargs;
    uint32_t line;
    uint32_t ndim;        /* TENSOR: rank; TUPLE: element count */
    int16_t op;           /* op id or SC_OP_UNKNOWN */
    uint16_t npos;        /* at most SC__GRAPH_MAX_POSITIONAL */
    uint8_t kind;         /* sc_node_kind */
    uint8_t role;         /* sc_role */
    uint8_t rkind;        /* sc_result_kind */
    uint8_t dtype;        /* sc_dtype */
    uint8_t flags;        /* SC__NODE_* */
    uint8_t dev_type;     /* sc_device_type */
    int16_t dev_index;
} sc__node;

/* A symbol's hint. */
typedef struct sc__hint {
    sc_expr *sym;
    int64_t value;
} sc__hint;

typedef struct sc__directive {
    const char *key, *value; /* arena */
} sc__directive;

struct sc_graph {
    sc_ctx *ctx;
    sc_env *env;
    bool owns_env;
    sc__arena arena;

    sc__node *nodes;
    size_t nnodes, cap;
    size_t nplaceholders, nprimals, ntangents;

    /* name -> id: open addressing, ids + 1 (0 = empty slot).  Holds the
     * nodes [0, nnamed); the nodes after them come from
     * sc__graph_append_copy, which defers their entries (sc_graph_find
     * scans them; the next checked addition indexes them). */
    uint32_t *name_slots;
    size_t name_cap, nnamed;

    /* interned target strings, with their op ids; target_slots: a hash
     * set of indexes + 1 into targets (0 = empty), target_cap slots */
    const char **targets;
    int32_t *target_ops;
    size_t ntargets, targets_cap;
    uint32_t *target_slots;
    size_t target_cap;
    size_t last_target; /* index of the target interned last (a repeated
                           call with its interned string skips the hash) */

    sc_node_id *outputs;
    size_t noutputs, num_fwd_outputs;

    /* sc__graph_append_copy's caches (direct-mapped, checked on a hit):
     * a source target string -> index in targets; a run of dimension
     * expressions -> a copy in the arena that nodes share. */
    const char *copy_target_src[SC__GRAPH_COPY_CACHE];
    uint32_t copy_target_index[SC__GRAPH_COPY_CACHE];
    sc_expr **copy_dims[SC__GRAPH_COPY_CACHE];
    uint32_t copy_dims_n[SC__GRAPH_COPY_CACHE];
    /* sc__graph_append_copy_mapped's: by a source string's address (a
     * keyword name, a float's repr, a string argument), the last copy in
     * the arena made through that entry, which nodes share when it is
     * equal (strcmp). */
    const char *copy_str[SC__GRAPH_COPY_CACHE];

    /* users index (CSR), valid when users_valid */
    bool users_valid;
    uint32_t *user_off;  /* nnodes + 1 */
    sc_node_id *users;
    uint32_t *output_uses; /* nnodes */

    sc__hint *hints;
    size_t nhints, hints_cap;
    sc__directive *directives;
    size_t ndirectives, directives_cap;
    char **warnings; /* malloc'ed strings */
    size_t nwarnings, warnings_cap;
    const char *class_name; /* arena, or NULL */
    /* the shape rules' constant results, by their inputs
     * (graph/shape-hook.c); NULL until the first */
    struct sc__shape_memo *shape_memo;
    /* advanced by every sc_graph_set_hint: the memo's symbolic results
     * hold for the hints they were made with */
    size_t hint_epoch;
    /* nodes[0 .. prefaulted) populated (graph/builder.c) */
    size_t prefaulted;
};

/* Free a graph's memo of shape results (NULL: nothing). */
void sc__shape_memo_free(struct sc__shape_memo *m);

/* Make room for nnodes nodes in all (the node array and the name table),
 * so that appending up to that many nodes does not reallocate.  Never
 * shrinks.  On failure (SC_ERR_NOMEM, or SC_ERR_LIMIT beyond the node
 * limit) the graph's contents are unchanged (a capacity may have grown). */
sc_status sc__graph_reserve(sc_graph *g, size_t nnodes, sc_error *err);

/* Append a copy of node id of src (a graph whose nodes were all checked
 * when they were added) to g under the same name and metadata.  role
 * SC_ROLE_NONE: id is a call node, copied with its target, op, arguments
 * args and keyword names kwnames (already in g's arena, referring to
 * nodes of g).  role SC_ROLE_PRIMAL or SC_ROLE_TANGENT: a placeholder of
 * that role (id of any kind; args unused), before any call node of g.
 * The result equals what sc__graph_append_call / sc_graph_add_placeholder
 * would build from src's accessors, but trusted: the name is not
 * validated nor looked up (the caller guarantees it is not in g yet) and
 * the op's schema is not checked again.  The name enters the name table
 * lazily (sc__graph_index_names, or the next checked addition); until
 * then sc_graph_find scans the copied nodes.  Nodes with equal dimension
 * expressions may share one (read-only) dimension array. */
sc_status sc__graph_append_copy(sc_graph *g, const sc_graph *src,
                                sc_node_id id, sc_role role, sc_value *args,
                                const char **kwnames, sc_node_id *out,
                                sc_error *err);
/* The same for call node id of src, with its arguments copied into g's
 * arena from src's, every node argument (in lists too) a renumbered
 * through map: map[a] is the node of g that stands for node a of src, for
 * every node a that id's arguments refer to (the caller sets map[a] for
 * the nodes it folds into another as well).  Keyword names, strings and
 * floats' spellings are shared with the equal ones copied before. */
sc_status sc__graph_append_copy_mapped(sc_graph *g, const sc_graph *src,
                                       sc_node_id id, const sc_node_id *map,
                                       sc_node_id *out, sc_error *err);
/* Enter the names of the nodes sc__graph_append_copy appended into the
 * name table (every node's name is then found in constant time). */
void sc__graph_index_names(sc_graph *g);
/* sc_graph_find of the n bytes at name (no NUL needed): the reader looks
 * up its tokens in place. */
sc_node_id sc__graph_find_span(const sc_graph *g, const char *name,
                               size_t n);

#endif /* SYMCUT_GRAPH_VIEW_H */
