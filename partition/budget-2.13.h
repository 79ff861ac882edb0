/* symcut — torch 2.13's memory-budget algorithm for the pytorch-2.13
 * policy (partition/budget-2.13.c).
 * Included by partition/run.c, partition/budget-2.13.c and
 * tests/check_budget.c only (public types only: no internal state). */
#ifndef SYMCUT_PARTITION_BUDGET_2_13_H
#define SYMCUT_PARTITION_BUDGET_2_13_H

#include <stdbool.h>
#include <stddef.h>

#include <symcut/error.h>
#include <symcut/partition.h>

/* Called after sc__partition_classify and before sc__partition_cut.  Under
 * pytorch-2.13 with a memory budget (opts->memory_budget_kind not NONE)
 * it runs torch 2.13's choose_saved_values_set: the default, the more
 * aggressive and the aggressive min cuts, the dp knapsack over the nodes
 * the aggressive cut bans, and leaves the classification in the state of
 * torch's last min cut, so that the sc__partition_cut that follows
 * computes torch's saved set.  Otherwise (another policy, no budget) it
 * does nothing.  SC_ERR_INVALID for a ratio outside [0, 1] or a budget in
 * bytes (torch's budget is a ratio). */
sc_status sc__budget_2_13(sc_partition *p, const sc_partition_options *opts,
                          sc_error *err);

/* torch 2.13's "flops" runtime estimate of a joint call node (its
 * FlopCounterMode registry at the hints, at least 1), as a double
 * (tests). */
sc_status sc__budget_2_13_runtime(sc_partition *p, sc_node_id id,
                                  double *out, sc_error *err);

/* torch's dp_knapsack: memories and the capacity quantized as
 * round(x * 10000) (Python's round: ties to even), the table in float32
 * with torch's maximum and float32 additions, read back from the capacity
 * down, an item saved where its row differs from the one above.
 * recompute[i] is set for the items not saved (torch's
 * recomputable_node_idxs).  SC_ERR_LIMIT when the table's bits would
 * pass 2^34 bytes. */
sc_status sc__budget_2_13_knapsack(const double *mem, const double *runtime,
                                   size_t n, double capacity, bool *recompute,
                                   sc_error *err);

#endif /* SYMCUT_PARTITION_BUDGET_2_13_H */
