/* symcut — the peak memory of a saved set's forward-then-backward, shared
 * by `symcut pareto` (every frontier point, --compare decisions) and
 * `symcut partition --saved` (implemented in cli/cmd_pareto.c).
 *
 * Included by cli/cmd_pareto.c and cli/cmd_partition.c only. */
#ifndef SYMCUT_CLI_DECISION_PEAK_H
#define SYMCUT_CLI_DECISION_PEAK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symcut/partition.h"

typedef struct cli_peak {
    bool have;
    bool exact;          /* no tuple element of unknown size */
    uint64_t bytes;      /* predicted (sc_peak_predict) */
    bool have_measured;
    uint64_t measured;   /* measured (sc_peak_measure) */
} cli_peak;

/* The peak of a decision's partition at the hints of g: predicted, and
 * with measure also measured by running forward then backward in the
 * interpreter on generated inputs.  point >= 0: frontier point number
 * point of f, else the saved set ids[0..n) (which must be valid).  0, or
 * an exit code after reporting the error. */
int cli_decision_peak(const sc_frontier *f, const sc_graph *g, long point,
                      const sc_node_id *ids, size_t n, bool measure,
                      cli_peak *out);

#endif
