/* symcut tests — shared helpers: the seeded generator and the environment
 * knobs of the property tests. */
#ifndef SYMCUT_TESTS_TESTUTIL_H
#define SYMCUT_TESTS_TESTUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <symcut.h>

/* The seed of this run: SYMCUT_SEED from the environment, else one drawn
 * from the clock.  Printed once ("symcut tests: SYMCUT_SEED=...") so that
 * a failure can be replayed. */
uint64_t sc_test_seed(void);

/* The number of cases a property test runs: SYMCUT_CASES from the
 * environment, else `dflt`. */
long sc_test_cases(long dflt);

/* A small, fast, seeded generator (xoshiro256**). */
typedef struct sc_test_rng {
    uint64_t s[4];
} sc_test_rng;

void sc_test_rng_init(sc_test_rng *r, uint64_t seed);
uint64_t sc_test_rng_next(sc_test_rng *r);
/* Uniform in [0, n); n > 0. */
uint64_t sc_test_rng_below(sc_test_rng *r, uint64_t n);
/* Uniform in [lo, hi]. */
int64_t sc_test_rng_range(sc_test_rng *r, int64_t lo, int64_t hi);

/* Forward outputs of fw from index `first` on that are not nodes of the
 * joint j: the `sym_size.int` bindings the partitioner's extraction adds
 * for symbols the backward cannot bind otherwise (partition/extract.c).
 * They are among the saved SymInts, after the binding placeholders and
 * before the other saved SymInts (PyTorch's order), so `first` is the
 * index of the first saved SymInt: forward outputs + saved tensors. */
size_t sc_test_num_bindings(const sc_graph *j, const sc_graph *fw,
                            size_t first);

/* $top_srcdir/tests/data/DIR/NAME SUFFIX (top_srcdir from the
 * environment, else "."), malloc'd; aborts when out of memory. */
char *sc_test_data_path(const char *dir, const char *name,
                        const char *suffix);

/* The tensor of tests/data/DIR/NAME.data/FILE.npy; aborts (a failed test)
 * with the file and the reader's message when it does not read. */
sc_tensor *sc_test_load_npy(const char *dir, const char *name,
                            const char *file);

/* A case torch wrote to tests/data/DIR (NAME.txt, NAME.data/ with its
 * inputs by placeholder name and its outputs out_K.npy): read it (every
 * call must be in the op table), run it on torch's inputs and compare each
 * output with torch's: bit for bit when rtol is 0 (and the same dtype;
 * int64 compared as integers, the rest as float64, which holds every f32,
 * i32 and bool exactly), else |symcut - torch| <= rtol * |torch|.  Fails
 * the running Check test on any difference; returns the graph (the
 * caller frees it) for further checks. */
sc_graph *sc_test_torch_case(sc_ctx *ctx, const char *dir, const char *name,
                             double rtol);

/* Has g a call of target (its printed target, torch.ops.aten.NAME.OVL)? */
bool sc_test_graph_has_target(const sc_graph *g, const char *target);

#endif
