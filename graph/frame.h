/* symcut — finding the graphs of a text: TORCH_LOGS framing (banners,
 * log prefixes, file paths before the class line, unrelated log lines)
 * and TORCH_TRACE structured logs (JSON records with tab-indented
 * payloads).  Private to graph/ (the reader and its tests). */
#ifndef SYMCUT_GRAPH_FRAME_H
#define SYMCUT_GRAPH_FRAME_H

#include "graph/graph-internal.h"

/* One graph found in a text. */
typedef struct sc__frame {
    const char *start;      /* the `class` or `def` keyword */
    const char *line_start; /* the physical line holding start */
    int line;               /* its 1-based number */
    const char *end;        /* the end of the graph's lines (exclusive) */
    int end_line;           /* the number of the line at end */
    sc_graph_kind kind;     /* from the banner or the trace record */
    char compile_id[64];    /* "0/0", "1/0_1", or "" */
    char name[136];         /* "0/0:joint", "joint", "#2", ... */
    char title[64];         /* the banner's or record's own words */
    char class_name[64];    /* "" for a bare def */
    char *static_inputs;    /* "0,1,3,4" (malloc'ed), or NULL */
} sc__frame;

typedef struct sc__frame_list {
    sc__frame *items;
    size_t n, cap;
    bool trace; /* the text is a TORCH_TRACE log */
} sc__frame_list;

/* Find the graphs of text[0..len).  Errors (SC_ERR_PARSE, located): a
 * banner not followed by a graph, a trace record that is not valid JSON
 * or whose payload is missing, no graph at all. */
sc_status sc__frame_scan(const char *text, size_t len, const char *file,
                         sc__frame_list *out, sc_error *err);
void sc__frame_list_free(sc__frame_list *l);

/* Choose a graph by a selector (NULL: the only one): its index, or an
 * error (SC_ERR_INVALID) naming the choices when none or several match. */
sc_status sc__frame_select(const sc__frame_list *l, const char *selector,
                           const char *file, size_t *index, sc_error *err);

#endif /* SYMCUT_GRAPH_FRAME_H */
