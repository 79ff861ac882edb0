/* symcut — listing the graphs of a text (sc_graph_list_text): the
 * public face of graph/frame.c. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "graph/frame.h"

struct sc_graph_listing {
    sc__frame_list frames;
};

sc_status sc_graph_list_text(const char *text, size_t len, const char *file,
                             sc_graph_listing **out, sc_error *err)
{
    sc_graph_listing *l;
    const char *nul;
    sc_status st;

    *out = NULL;
    sc_error_init(err);
    if (!text && len)
        return sc__error_set(err, SC_ERR_INVALID, "no text");
    nul = len ? memchr(text, '\0', len) : NULL;
    if (nul)
        return sc__error_set(err, SC_ERR_PARSE, "%s: NUL byte in the text",
                             file ? file : "<text>");
    l = sc__calloc(1, sizeof *l);
    if (!l)
        return sc__error_nomem(err);
    st = sc__frame_scan(text, len, file ? file : "<text>", &l->frames, err);
    if (st != SC_OK) {
        sc__free(l);
        return st;
    }
    *out = l;
    return SC_OK;
}

size_t sc_graph_listing_count(const sc_graph_listing *l)
{
    return l ? l->frames.n : 0;
}

void sc_graph_listing_entry_get(const sc_graph_listing *l, size_t i,
                                sc_graph_listing_entry *out)
{
    const sc__frame *f;
    memset(out, 0, sizeof *out);
    if (!l || i >= l->frames.n)
        return;
    f = &l->frames.items[i];
    out->name = f->name;
    out->kind = f->kind;
    out->compile_id = f->compile_id;
    out->title = f->title;
    out->class_name = f->class_name;
    out->line = f->line;
    out->static_inputs = f->static_inputs;
}

bool sc_graph_listing_is_trace(const sc_graph_listing *l)
{
    return l && l->frames.trace;
}

void sc_graph_listing_free(sc_graph_listing *l)
{
    if (!l)
        return;
    sc__frame_list_free(&l->frames);
    sc__free(l);
}
