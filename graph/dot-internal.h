/* symcut — the DOT writer's extended form: clusters, a node subset and
 * a drawn legend (graph/dot.c).
 * Included by graph/dot.c and partition/report.c only.  Not installed. */
#ifndef SYMCUT_GRAPH_DOT_INTERNAL_H
#define SYMCUT_GRAPH_DOT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <symcut/graph.h>

/* One entry of the legend: a swatch of fill color (NULL: none, the
 * style only) and its meaning. */
typedef struct sc__dot_legend_entry {
    const char *color;
    const char *style; /* DOT node style of the swatch; NULL: filled */
    const char *label;
} sc__dot_legend_entry;

typedef struct sc__dot_ext {
    /* cluster[i] in [0, nclusters) puts node i in that cluster (drawn as
     * a box labelled cluster_labels[k]); -1 or cluster NULL: none. */
    const int8_t *cluster;
    size_t nclusters;
    const char *const *cluster_labels;
    /* keep[i] false leaves node i (and its edges) out; NULL: every node.
     * The output node is drawn when it uses a kept node. */
    const bool *keep;
    /* what the colors mean (nlegend 0: the writer's own, by role) */
    const sc__dot_legend_entry *legend;
    size_t nlegend;
    /* a line under the legend's title (e.g. "312 of 4010 nodes: ...") */
    const char *note;
} sc__dot_ext;

/* sc_graph_write_dot with the extensions (ext NULL: none). */
sc_status sc__graph_write_dot_ext(const sc_graph *g,
                                  const sc_graph_dot_options *opts,
                                  const sc__dot_ext *ext, char **out,
                                  size_t *len, sc_error *err);

/* Mark in keep (g's node count, cleared by the caller) the nodes at most
 * depth edges from id, following arguments and users both ways.  Time:
 * linear in the part reached. */
sc_status sc__graph_dot_neighbourhood(const sc_graph *g, sc_node_id id,
                                      size_t depth, bool *keep,
                                      sc_error *err);

/* The neighbourhood view: *keep (malloc'ed, the caller frees it, also
 * on error) marks the nodes at most depth edges from id; ext->keep and
 * ext->note (written into note) are set to draw them.  SC_ERR_INVALID for
 * an id out of range. */
sc_status sc__graph_dot_around(const sc_graph *g, sc_node_id id,
                               size_t depth, sc__dot_ext *ext, bool **keep,
                               char *note, size_t note_size, sc_error *err);

#endif /* SYMCUT_GRAPH_DOT_INTERNAL_H */
