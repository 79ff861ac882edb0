/* symcut — the memory/recompute frontier of the exact policy. */
#include <config.h>

#include "partition/frontier.h"
#include "partition/partition-internal.h"

sc_status sc__frontier_budget_cut(sc_partition *p, sc_error *err)
{
    const sc_partition_options *o = p->opts;
    if (p->policy == SC_PARTITION_PYTORCH_1_13)
        return sc__error_set(err, SC_ERR_INVALID,
                             "pytorch-1.13 has no memory budget");
    if (o->memory_budget_kind != SC_PARTITION_BUDGET_BYTES &&
        o->memory_budget_kind != SC_PARTITION_BUDGET_RATIO)
        return sc__error_set(err, SC_ERR_INVALID,
                             "unknown memory budget kind %d",
                             o->memory_budget_kind);
    return sc__error_set(err, SC_ERR_UNSUPPORTED,
                         "a memory budget under the exact policy is not "
                         "implemented yet");
}
