/* The Omega test's workspace (om_solve): OM_LEVELS row buffers of
 * FM_MAX_ROWS + 1 rows (one per recursion level and two more for the
 * real shadow's elimination), a dedup table, and the question's budget. */
#define OM_LEVELS (FM_MAX_VARS + 3)
#define OM_STRIDE ((size_t)(FM_MAX_ROWS + 1) * (FM_MAX_VARS + 1))
#define OM_NODE_LIMIT 4096     /* systems one question may solve */
#define OM_WORK_LIMIT 262144   /* rows one question may derive or rewrite */

typedef struct om_ctx {
    size_t nv;                /* symbols; a row is nv coefficients, then b */
    int64_t *buf;             /* OM_LEVELS * OM_STRIDE */
    uint64_t *hash;           /* dedup table: generation << 32 | row + 1 */
    uint64_t gen;
    unsigned long nodes, work;
} om_ctx;
