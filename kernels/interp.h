/* symcut — the interpreter and validation: private declarations shared by
 * kernels/interp.c, kernels/validate.c, kernels/gradcheck.c and
 * kernels/peak.c.
 *
 * Included by those four files only (kernels/peak.c for
 * sc__interp_bn_stat_f32).  Not installed. */
#ifndef SYMCUT_KERNELS_INTERP_H
#define SYMCUT_KERNELS_INTERP_H

#include <symcut/interp.h>

#include "kernels/kernels-internal.h"

/* Whether node id of g is result 1 or 2 (save_mean, save_invstd: a
 * getitem) of a batch norm whose input is annotated bf16/f16 and whose
 * tensor parameters (weight, bias, running statistics; at least one) are
 * annotated float32: the kernels make it float32, whatever its own
 * annotation says, as PyTorch's CPU kernel does (doc/interp.md, "The
 * batch-norm statistics exception"). */
bool sc__interp_bn_stat_f32(const sc_graph *g, sc_node_id id);

/* Free n tensors of ts (NULL entries allowed) and set them to NULL. */
void sc__interp_free_tensors(sc_tensor **ts, size_t n);

/* Contiguous copies of src[0..n) into dst[0..n) (NULL stays NULL).  On
 * failure nothing is left in dst. */
sc_status sc__interp_clone_tensors(sc_tensor *const *src, size_t n,
                                   sc_tensor **dst, sc_error *err);

#endif /* SYMCUT_KERNELS_INTERP_H */
