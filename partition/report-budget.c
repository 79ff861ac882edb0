/* symcut — how a memory budget was met, for the reports: the exact
 * frontier's score, bound and proof of a budgeted partition
 * (sc_partition_budget_explain). */
#include <config.h>

#include <string.h>

#include "partition/partition-internal.h"

/* pytorch-2.13's path through torch's memory-budget algorithm, as
 * partition/budget-2.13.c's note says it (its warning "memory budget R
 * (pytorch-2.13): ..."); the default cut when there is none (ratio 1). */
static sc_partition_solver torch_solver(const sc_partition *p)
{
    static const struct {
        const char *text;
        sc_partition_solver solver;
    } notes[] = {
        {"dp knapsack", SC_PARTITION_SOLVER_TORCH_KNAPSACK},
        {"saves the inputs", SC_PARTITION_SOLVER_TORCH_INPUTS_ONLY},
        {"the more aggressive cut",
         SC_PARTITION_SOLVER_TORCH_MORE_AGGRESSIVE_CUT},
        {"the aggressive cut", SC_PARTITION_SOLVER_TORCH_AGGRESSIVE_CUT},
        {"the default cut", SC_PARTITION_SOLVER_TORCH_DEFAULT_CUT}};
    size_t i, k;
    for (i = 0; i < p->nwarnings; i++) {
        const char *w = p->warnings[i];
        if (strncmp(w, "memory budget ", 14) != 0 ||
            !strstr(w, "(pytorch-2.13): "))
            continue;
        for (k = 0; k < sizeof notes / sizeof notes[0]; k++)
            if (strstr(w, notes[k].text))
                return notes[k].solver;
    }
    return SC_PARTITION_SOLVER_TORCH_DEFAULT_CUT;
}

sc_status sc_partition_budget_explain(const sc_graph *joint,
                                      const sc_partition_options *opts,
                                      const sc_partition *p,
                                      sc_partition_budget_outcome *out,
                                      sc_error *err)
{
    sc_partition_options po;
    sc_frontier_options fo;
    sc_frontier *f = NULL;
    sc_frontier_point least, dflt, mine, best;
    sc_node_id *ids = NULL;
    size_t n = 0, i;
    sc_status status = SC_OK;

    memset(out, 0, sizeof *out);
    out->solver = SC_PARTITION_SOLVER_NONE;
    if (!opts || opts->memory_budget_kind == SC_PARTITION_BUDGET_NONE)
        return SC_OK;
    out->kind = opts->memory_budget_kind;
    out->asked_bytes = opts->memory_budget_bytes;
    out->asked_ratio = opts->memory_budget_ratio;

    po = *opts;
    po.memory_budget_kind = SC_PARTITION_BUDGET_NONE;
    po.flags |= SC_PARTITION_NO_GRAPHS;
    sc_frontier_options_init(&fo);
    SC_CHECK(sc_frontier_compute(joint, &po, &fo, &f, err));
    sc_frontier_point_get(f, 0, &least);
    sc_frontier_default_cut(f, &dflt);
    out->least_bytes = least.saved_bytes;
    out->default_bytes = dflt.saved_bytes;

    n = p->saved_tensors.n + p->saved_symints.n;
    ids = sc__malloc((n ? n : 1) * sizeof *ids);
    if (!ids)
        SC_CHECK(sc__error_nomem(err));
    for (i = 0; i < p->saved_tensors.n; i++)
        ids[i] = p->saved_tensors.ids[i];
    for (i = 0; i < p->saved_symints.n; i++)
        ids[p->saved_tensors.n + i] = p->saved_symints.ids[i];
    SC_CHECK(sc_frontier_score(f, ids, n, &mine, err));
    out->valid = mine.valid;
    out->saved_bytes = mine.saved_bytes;
    out->recompute_cost = mine.recompute_cost;
    out->recompute_flops = mine.recompute_flops;

    if (p->policy != SC_PARTITION_EXACT) {
        /* torch's ratio is its own normalization: the bound is the
         * frontier's at the decision's bytes, and nothing is proven */
        out->solver = torch_solver(p);
        out->hull_bound = mine.valid ? mine.lower_bound : 0;
        out->optimal = false;
    } else {
        uint64_t b = opts->memory_budget_bytes;
        if (opts->memory_budget_kind == SC_PARTITION_BUDGET_RATIO) {
            /* partition/frontier.c's resolution of the ratio */
            uint64_t lo = least.saved_bytes,
                     hi = dflt.saved_bytes > lo ? dflt.saved_bytes : lo;
            b = lo + (uint64_t)((long double)opts->memory_budget_ratio *
                                (long double)(hi - lo));
            if (b > hi)
                b = hi;
        }
        out->has_budget_bytes = true;
        out->budget_bytes = b;
        SC_CHECK(sc_frontier_solve(f, b, 0, &best, NULL, NULL, err));
        out->solver = best.hull_vertex ? SC_PARTITION_SOLVER_EXACT_HULL
                                       : SC_PARTITION_SOLVER_EXACT_MILP;
        out->hull_bound = best.lower_bound;
        out->optimal = best.optimal && mine.valid &&
                       mine.recompute_cost <= best.recompute_cost;
    }
    out->lower_bound = out->optimal ? out->recompute_cost : out->hull_bound;
    out->gap = out->valid && out->recompute_cost > out->lower_bound
                   ? out->recompute_cost - out->lower_bound
                   : 0;
fail:
    sc__free(ids);
    sc_frontier_free(f);
    return status;
}
