/* symcut — symbolic shapes and min-cut partitioning for ML compiler front
 * ends.  The umbrella header: includes every public part. */
#ifndef SYMCUT_H
#define SYMCUT_H

#include <symcut/error.h>
#include <symcut/symint.h>
#include <symcut/guards.h>
#include <symcut/graph.h>
#include <symcut/partition.h>
#include <symcut/tensor.h>
#include <symcut/interp.h>

/* The library's version, "MAJOR.MINOR.PATCH". */
const char *sc_version(void);

#endif /* SYMCUT_H */
