/* symcut — the interpreter's hook for peak-memory measurement.
 *
 * Included by kernels/interp.c (which defines sc__interp_run_held) and
 * kernels/peak.c (which calls it).  Not installed. */
#ifndef SYMCUT_KERNELS_PEAK_H
#define SYMCUT_KERNELS_PEAK_H

#include <symcut/interp.h>

/* sc_interp_run, with the storages of held[0..nheld) (NULL entries
 * allowed) counted as held by the caller for the whole run: in every
 * byte figure of stats from the start, never released, each storage once
 * however many live values share it. */
sc_status sc__interp_run_held(const sc_graph *g, sc_tensor *const inputs[],
                              const sc_interp_options *opts,
                              sc_tensor *const held[], size_t nheld,
                              sc_tensor *outputs[], sc_interp_stats *stats,
                              sc_error *err);

#endif /* SYMCUT_KERNELS_PEAK_H */
