/* symcut — the HTML page of `symcut partition --format html` (cli/html.c).
 * Included by cli/cmd_partition.c and cli/html.c only. */
#ifndef SYMCUT_CLI_HTML_H
#define SYMCUT_CLI_HTML_H

#include <stddef.h>

#include <symcut.h>

typedef struct cli_html_page {
    const sc_graph *joint;              /* the partitioned joint graph */
    const sc_partition_options *opts;   /* the options it ran with */
    const sc_partition *part;
    const sc_partition_report_info *info;
    unsigned report_flags;              /* SC_PARTITION_REPORT_* */
    /* The Graphviz program ("dot" on the PATH when NULL; the environment
     * variable SYMCUT_DOT overrides it in the command). */
    const char *dot;
} cli_html_page;

/* One self-contained HTML page (no external resources): the summary, the
 * memory budget, the decision table (saved tensors, saved symints,
 * recomputed nodes with op, type, bytes and reason), the reasons by code,
 * the warnings, the graph as inline SVG (Graphviz run on the partition's
 * DOT; the page says so when Graphviz is missing or fails, or the graph is
 * too large to draw) and the frontier plot.  *out malloc'ed.  Errors:
 * out of memory, the DOT writer's. */
sc_status cli_partition_html(const cli_html_page *page, char **out,
                             size_t *len, sc_error *err);

#endif /* SYMCUT_CLI_HTML_H */
