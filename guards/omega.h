/* symcut — Pugh's Omega test: does a small system of integer linear
 * inequalities have an integer solution?
 *
 * Included by guards/omega.c, guards/produce.h (the minimality pass of
 * guards/minimal.c) and tests/check_guards.c only. */
#ifndef SYMCUT_GUARDS_OMEGA_H
#define SYMCUT_GUARDS_OMEGA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The caps of one system: symbols, and rows. */
#define SC__OMEGA_MAX_VARS 6
#define SC__OMEGA_MAX_ROWS 512

/* The workspace: SC__OMEGA_LEVELS row buffers of SC__OMEGA_MAX_ROWS + 1
 * rows (one per recursion level and two more for the real shadow's
 * elimination), a dedup table, and the question's budget.  A row is nv
 * coefficients c, then b: sum c*x <= b. */
#define SC__OMEGA_LEVELS (SC__OMEGA_MAX_VARS + 3)
#define SC__OMEGA_STRIDE                                                     \
    ((size_t)(SC__OMEGA_MAX_ROWS + 1) * (SC__OMEGA_MAX_VARS + 1))

typedef struct sc__omega {
    size_t nv;                /* symbols; a row is nv coefficients, then b */
    int64_t *buf;             /* SC__OMEGA_LEVELS * SC__OMEGA_STRIDE */
    uint64_t *hash;           /* dedup table: generation << 32 | row + 1 */
    uint64_t gen;
    unsigned long nodes, work;
} sc__omega;

/* The answers of sc__omega_run and sc__int_feasible. */
enum { SC__INT_FEASIBLE, SC__INT_INFEASIBLE, SC__INT_UNKNOWN };

/* Allocate the workspace of a zeroed c; false when out of memory (then
 * sc__omega_destroy still frees what was allocated). */
bool sc__omega_init(sc__omega *c);
/* Free the workspace (a zeroed c is fine); c is zeroed. */
void sc__omega_destroy(sc__omega *c);

/* Start a system of nv (<= SC__OMEGA_MAX_VARS) symbols in the
 * workspace's first buffer, empty; returns that buffer, to fill with
 * sc__omega_add and pass to sc__omega_run. */
int64_t *sc__omega_start(sc__omega *c, size_t nv);
/* Append row (nv + 1 entries, normalized) to the system started last,
 * of *n rows: a row with the same coefficients as one present keeps the
 * smaller b.  false: SC__OMEGA_MAX_ROWS reached. */
bool sc__omega_add(sc__omega *c, size_t *n, const int64_t *row);

/* Divide row r (nv coefficients, then b) by the gcd of its coefficients,
 * rounding b down.  0: a row; 1: 0 <= b with b >= 0 (always true); 2:
 * 0 <= b with b < 0 (no solution); 3: a coefficient is INT64_MIN. */
int sc__omega_normalize(int64_t *r, size_t nv);

/* Has the system rows[0..n) (of nv + 1 entries each) an integer
 * solution?  With a fresh budget; rows may be the buffer that
 * sc__omega_start returned.  SC__INT_FEASIBLE, SC__INT_INFEASIBLE or
 * SC__INT_UNKNOWN (a cap, the budget or an int64 overflow).  Cost:
 * bounded by the caps and the budget (4096 systems, 262144 rows). */
int sc__omega_run(sc__omega *c, size_t nv, const int64_t *rows, size_t n);

/* sc__omega_run with a workspace of its own: SC__INT_FEASIBLE,
 * SC__INT_INFEASIBLE, SC__INT_UNKNOWN, or -1 when out of memory. */
int sc__int_feasible(const int64_t *rows, size_t n, size_t nv);

#endif /* SYMCUT_GUARDS_OMEGA_H */
