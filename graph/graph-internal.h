/* symcut — the graph IR's private functions, shared by the graph sources.
 * Included by graph/ only (and by white-box tests); the partitioner reads
 * the node array through graph/graph-view.h.  Not installed. */
#ifndef SYMCUT_GRAPH_INTERNAL_H
#define SYMCUT_GRAPH_INTERNAL_H

#include <symcut/graph.h>
#include <symcut/guards.h>

#include "graph/graph-view.h"
#include "util/internal.h"

/* Append a warning (formatted); false on exhaustion. */
bool sc__graph_warn(sc_graph *g, const char *fmt, ...) SC__PRINTF(2, 3);

/* Copy a value (deeply) into the graph's arena.  depth guards recursion. */
sc_status sc__graph_copy_value(sc_graph *g, const sc_value *src,
                               sc_value *dst, int depth, sc_error *err);

/* Append a call node whose arguments (and keyword names) already live in
 * the graph's arena and refer to existing nodes; the builder's core.  name
 * NULL: an automatic name.  line: the source line (0: none). */
sc_status sc__graph_append_call(sc_graph *g, const char *name,
                                const char *target, size_t npos,
                                size_t nargs, sc_value *args,
                                const char **kwnames, const sc_result *meta,
                                int line, sc_node_id *out, sc_error *err);

/* Intern a target string in the graph. */
const char *sc__graph_intern_target(sc_graph *g, const char *target);

/* Store a result description into node storage (copied into the arena). */
sc_status sc__graph_set_meta(sc_graph *g, sc__node *n, const sc_result *meta,
                             sc_error *err);

/* The op id of a target (SC_OP_UNKNOWN when the op table does not know
 * it). */
int sc__graph_lookup_op(const char *target);

/* Check call node n (not yet in the graph; its arguments refer to nodes
 * of g) against its op's schema (arity, keywords, argument kinds) when the
 * op table knows the op; set a tuple result's element count from the
 * schema.  SC_ERR_TYPE on a mismatch. */
sc_status sc__graph_check_call(sc_graph *g, sc__node *n, sc_error *err);

/* Register the graph's symbols in env (NULL: a new environment the graph
 * owns, made only when the graph has symbols): backed with their hints,
 * the others unbacked. */
sc_status sc__graph_bind_env(sc_graph *g, sc_env *env, sc_error *err);

/* The shape-rule hook (graph/shape-hook.c): compute call node id's result
 * from its arguments' results by its op's shape rule, recording guards in
 * the graph's environment (created on first need; a symbol without a hint
 * is unbacked).  A tuple or list result is TUPLE with its element count.
 * Output arrays live in the graph's arena.  SC_ERR_UNSUPPORTED when the op
 * has no rule or the rule cannot say (an input without metadata);
 * SC_ERR_SHAPE when the inputs cannot be valid for the op. */
sc_status sc__shape_infer(sc_graph *g, sc_node_id id, sc_result *out,
                          sc_error *err);

/* Infer node id's result and check it against its stored (declared)
 * result: SC_ERR_SHAPE naming the node, what differs (dtype, rank, the
 * size or stride of a dim, with both expressions) on a mismatch; strides
 * of dims whose size is 1 are not compared.  declared false (the node had
 * no annotation): the inferred result is stored.  A node whose op has no
 * rule, or whose rule cannot decide, keeps what it has (SC_OK). */
sc_status sc__shape_check_node(sc_graph *g, sc_node_id id, bool declared,
                               sc_error *err);
/* Compare an inferred result with node id's stored result (as above). */
sc_status sc__shape_check_result(sc_graph *g, sc_node_id id,
                                 const sc_result *inferred, sc_error *err);

/* Python spelling of an infix operator target ("operator.mul" -> "*"),
 * or NULL when the target is not one. */
const char *sc__graph_infix_symbol(const char *target);
/* The target of an infix operator spelling ("*" -> "operator.mul"). */
const char *sc__graph_infix_target(const char *sym, size_t n);

/* Maximum number of positional arguments of a call node. */
#define SC__GRAPH_MAX_POSITIONAL 65535

/* Maximum nesting of lists in arguments. */
#define SC__GRAPH_MAX_DEPTH 64

/* The graph object's storage, shared by the IR core (graph/ir.c) and the
 * builder (graph/builder.c). */

/* Drop the users index (sc_graph_finish builds it again). */
void sc__graph_invalidate_users(sc_graph *g);
/* Whether s is a Python identifier (ASCII). */
bool sc__graph_is_identifier(const char *s);
/* Rehash the name table into ncap slots (a power of two holding every
 * entry); false on exhaustion (the table unchanged). */
bool sc__graph_name_table_resize(sc_graph *g, size_t ncap);
/* Double the name table (64 slots when empty); false on exhaustion. */
bool sc__graph_name_table_grow(sc_graph *g);
/* Remove the last node's name-table entry (the node is taken back). */
void sc__graph_name_table_remove(sc_graph *g, sc_node_id id);
/* The index of target in g->targets, interning it (with its op id) when
 * new; SIZE_MAX on exhaustion (the graph unchanged). */
size_t sc__graph_intern_target_index(sc_graph *g, const char *target);

/* Notes: what the reader keeps about a graph beyond the IR, in the
 * directive table under keys starting with '.' (not printed as
 * directives): ".kind" (sc_graph_get_kind), ".pytree" (read in the
 * pytree form), ".comments" (the comment lines before nodes: for each
 * node that has some, by increasing id, "ID\x01LINES\x02" with the lines
 * joined by newlines), ".sub" (the nested submodule classes after the return,
 * dedented, kept as text).  The value is copied; it may hold newlines. */
sc_status sc__graph_set_note(sc_graph *g, const char *key, const char *value,
                             sc_error *err);
/* A note, or NULL. */
const char *sc__graph_note(const sc_graph *g, const char *key);

/* The kind a graph's signature and names suggest, with nout outputs: no
 * tangents, forward; tangents with placeholders all named primals_N /
 * tangents_N, at least one output per primal and a class other than
 * backward_fn, joint; other graphs with tangents, backward. */
sc_graph_kind sc__graph_guess_kind(const sc_graph *g, size_t nout);

#endif /* SYMCUT_GRAPH_INTERNAL_H */
