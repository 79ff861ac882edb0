/* symcut — automatic node names (the per-base counters kept beside the
 * name table).  Included by graph/ir.c and graph/builder.c only.  Not
 * installed. */
#ifndef SYMCUT_GRAPH_NAMES_H
#define SYMCUT_GRAPH_NAMES_H

#include "graph/graph-internal.h"

/* The first of base, base_1, base_2, ... that no node of g is named (base
 * an identifier of at most 63 characters that is not a reserved word), in
 * g's arena; NULL on exhaustion.  Amortized constant time: g remembers,
 * per base, how many of these names are known to be taken, the returned
 * one counted among them, so the caller adds the node of that name next
 * (or takes it back with sc__graph_name_table_remove, which lowers the
 * count). */
char *sc__graph_auto_name(sc_graph *g, const char *base);

#endif
