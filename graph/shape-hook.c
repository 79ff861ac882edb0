/* symcut — the shape-rule hook the reader and the builder call for every
 * call node.  The per-op shape rules (graph/ops.yaml's `shape:` field,
 * dispatched through the generated table) replace this file; until then
 * no op has a rule and every annotation is taken as declared. */
#include <config.h>

#include "graph/graph-internal.h"

sc_status sc__shape_infer(sc_graph *g, sc_node_id id, sc_result *out,
                          sc_error *err)
{
    (void)g;
    (void)id;
    sc_result_init(out);
    return sc__error_set(err, SC_ERR_UNSUPPORTED, "no shape rule");
}
