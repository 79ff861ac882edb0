/* symcut — the interpreter and validation: private declarations shared by
 * kernels/interp.c, kernels/validate.c and kernels/gradcheck.c.
 *
 * Included by those three files only.  Not installed. */
#ifndef SYMCUT_KERNELS_INTERP_H
#define SYMCUT_KERNELS_INTERP_H

#include <symcut/interp.h>

#include "kernels/kernels-internal.h"

/* Free n tensors of ts (NULL entries allowed) and set them to NULL. */
void sc__interp_free_tensors(sc_tensor **ts, size_t n);

/* Contiguous copies of src[0..n) into dst[0..n) (NULL stays NULL).  On
 * failure nothing is left in dst. */
sc_status sc__interp_clone_tensors(sc_tensor *const *src, size_t n,
                                   sc_tensor **dst, sc_error *err);

#endif /* SYMCUT_KERNELS_INTERP_H */
