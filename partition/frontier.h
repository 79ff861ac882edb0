/* symcut — the memory/recompute frontier's private interface: the
 * budgeted cut of the exact policy (frontier.c) and the MILP of a budget
 * between two hull vertices (milp.c).
 * Included by partition/run.c, partition/frontier.c, partition/milp.c and
 * tests/check_frontier.c only.  Not installed. */
#ifndef SYMCUT_PARTITION_FRONTIER_H
#define SYMCUT_PARTITION_FRONTIER_H

#include <stdbool.h>
#include <stdint.h>

#include <symcut/error.h>
#include <symcut/partition.h>

/* Phase 2-3 of sc_partition_run under a memory budget (opts->memory_budget_
 * kind is not SC_PARTITION_BUDGET_NONE) for every policy but pytorch-2.13:
 * pytorch-1.13 is SC_ERR_INVALID; exact saves the valid set of least
 * recompute cost within the budget (doc/partition.md, "Memory budget"),
 * filling the saved lists as sc__partition_cut does. */
sc_status sc__frontier_budget_cut(sc_partition *p, sc_error *err);

#endif /* SYMCUT_PARTITION_FRONTIER_H */
