/* symcut — the min-cut partitioner: split a joint forward/backward graph
 * into a forward graph and a backward graph, choosing which values the
 * forward saves and which the backward recomputes.
 *
 * The algorithm is PyTorch's min_cut_rematerialization_partition,
 * reimplemented (doc/partition.md):
 *
 *   0. dead code elimination and common-subexpression elimination (never
 *      of random or mutating ops);
 *   1. classification: required by the forward outputs, the tangent
 *      closure (everything that depends on a tangent), unclaimed;
 *      distance of each forward node to the backward; bans;
 *   2. a flow network: each node X becomes X_in -> X_out with its weight,
 *      uses become infinite edges, primals and banned nodes hang from the
 *      source, nodes the backward needs reach the sink.  Capacities are
 *      integers below 2^53 (exact in igraph's doubles), infinity is the sum
 *      of the finite capacities plus one;
 *   3. igraph's max-flow; the saved set is read off the cut the way
 *      PyTorch reads it (the sink side is the set of vertices that can
 *      still reach the sink in the residual graph, the smallest sink side
 *      of all minimum cuts), in joint order;
 *   4. extraction of the forward graph (primals -> forward outputs, saved
 *      tensors, saved symbolic integers) and of the backward graph (saved
 *      symbolic integers, saved tensors, tangents -> gradients), both dead
 *      code eliminated, built through the graph builder.
 *
 * Ownership: a result (sc_partition) is owned by the caller of
 * sc_partition_run and freed with sc_partition_free.  It refers to, and
 * does not own, the joint graph (and through it the symint context and the
 * shape environment): they must outlive the result.  The forward and
 * backward graphs belong to the result unless taken.
 */
#ifndef SYMCUT_PARTITION_H
#define SYMCUT_PARTITION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <symcut/error.h>
#include <symcut/graph.h>
#include <symcut/symint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Policies ---------------------------------------------------------- */

/* X(NAME, spelling on the command line and in reports).  The PyTorch
 * releases reproduced decision for decision:
 *   PYTORCH_2_13  torch 2.13.0's min_cut_rematerialization_partition with
 *                 the defaults it ships (its op lists by overload packet,
 *                 every ban rule, weights, SymInt bindings and order);
 *   PYTORCH_1_13  functorch 1.13.1's;
 *   EXACT         the same rules as PYTORCH_2_13 on the op table's classes,
 *                 with weights in plain bytes. */
#define SC_PARTITION_POLICY_MAP(X)                                           \
    X(PYTORCH_2_13, "pytorch-2.13")                                          \
    X(PYTORCH_1_13, "pytorch-1.13")                                          \
    X(EXACT, "exact")

typedef enum sc_partition_policy {
#define SC__POLICY_ENUM(name, str) SC_PARTITION_##name,
    SC_PARTITION_POLICY_MAP(SC__POLICY_ENUM)
#undef SC__POLICY_ENUM
    SC_PARTITION_POLICY_COUNT_,
    /* "pytorch": the newest release reproduced */
    SC_PARTITION_PYTORCH = SC_PARTITION_PYTORCH_2_13
} sc_partition_policy;

/* "pytorch-2.13", "pytorch-1.13", "exact"; NULL when out of range. */
const char *sc_partition_policy_name(sc_partition_policy policy);
/* The policy spelled name (also "pytorch", the newest release;
 * "pytorch_2_13", "2.13", "pytorch_1_13", "1.13"); false if none. */
bool sc_partition_policy_from_name(const char *name,
                                   sc_partition_policy *out);

/* Per-node tags, as PyTorch's activation-checkpointing policies:
 *   MUST_SAVE        never recomputed (tied to the source); under the
 *                    pytorch and exact policies ignored on views, as
 *                    PyTorch ignores it;
 *   MUST_RECOMPUTE   always recomputed in the backward when it needs it
 *                    (X_in tied to the sink: it cannot be saved), random
 *                    ops included (their kernels are counter-based);
 *   PREFER_RECOMPUTE the same as MUST_RECOMPUTE under the pytorch and
 *                    exact policies (PyTorch's min-cut partitioner treats
 *                    both alike); ignored by pytorch-1.13;
 *   PREFER_SAVE      read and reported, and ignored by every policy, as
 *                    torch 2.13's min-cut partitioner ignores it.
 * Ops that write an argument stay banned whatever the tag, except under
 * pytorch-2.13, which honours the tag as torch 2.13 does.
 * Tags are read from `# symcut: must_save a, b` (and must_recompute,
 * prefer_recompute) directives and from the options; the options win. */
#define SC_PARTITION_TAG_MAP(X)                                              \
    X(NONE, "none")                                                          \
    X(MUST_SAVE, "must_save")                                                \
    X(MUST_RECOMPUTE, "must_recompute")                                      \
    X(PREFER_RECOMPUTE, "prefer_recompute")                                  \
    X(PREFER_SAVE, "prefer_save")

typedef enum sc_partition_tag {
#define SC__TAG_ENUM(name, str) SC_PARTITION_TAG_##name,
    SC_PARTITION_TAG_MAP(SC__TAG_ENUM)
#undef SC__TAG_ENUM
    SC_PARTITION_TAG_COUNT_
} sc_partition_tag;

const char *sc_partition_tag_name(sc_partition_tag tag);

enum {
    /* Skip common-subexpression elimination. */
    SC_PARTITION_NO_CSE = 1u << 0,
    /* Do not build the forward and backward graphs (decisions only). */
    SC_PARTITION_NO_GRAPHS = 1u << 1
};

typedef struct sc_partition_options {
    sc_partition_policy policy; /* default SC_PARTITION_PYTORCH */
    /* The first num_params primals are parameters (free to save under the
     * pytorch and exact policies).  Negative: the graph's `# symcut:
     * params N` directive, else 0. */
    long num_params;
    /* Parameters by index among the primals (PyTorch's
     * static_lifetime_input_indices); when nparam_indices > 0 they win
     * over num_params.  Else, with num_params negative, the graph's `#
     * symcut: static_inputs 0,1,...` directive is read first. */
    size_t nparam_indices;
    const size_t *param_indices;
    /* Number of forward outputs; negative: the graph's. */
    long num_fwd_outputs;
    /* The value an unbacked symbol with an infinite upper bound takes
     * when weighing (0: 8192, PyTorch's unbacked_symint_fallback). */
    int64_t unbacked_fallback;
    /* Tags: tag_nodes[i] (node names) gets tags[i]. */
    size_t ntags;
    const char *const *tag_nodes;
    const sc_partition_tag *tags;
    unsigned flags;
    /* ---- ban rules: PyTorch's torch._functorch.config knobs for the
     * pytorch and exact policies (pytorch-1.13 has none of them).  Zero
     * is PyTorch's default for every field. */
    /* SC_PARTITION_RULE_* bits of the rules turned off (0: all on). */
    unsigned rules_off;
    /* config.max_dist_from_bw: ban a node whose distance to the backward d
     * has max_dist_from_bw < d < 1000.  0: 1000 (never bans, PyTorch's
     * default); negative: the value 0 (every forward node less than 1000
     * steps from the backward is banned). */
    int32_t max_dist_from_bw;
    /* The long-fusible-chain rule cuts a chain running more than this many
     * forward nodes (0: 100, PyTorch's constant; negative: the value 0). */
    int32_t long_chain_limit;
    /* ---- end ban rules ---- */
    /* ---- memory budget ---- */
    /* SC_PARTITION_BUDGET_NONE (0, the default): the policy's default cut.
     * SC_PARTITION_BUDGET_BYTES: save at most memory_budget_bytes bytes
     * (at the hints).  SC_PARTITION_BUDGET_RATIO: PyTorch's
     * activation_memory_budget, memory_budget_ratio in [0, 1] (0: the least
     * memory the policy allows, 1: its default cut).  doc/partition.md,
     * "Memory budget". */
    int memory_budget_kind;
    uint64_t memory_budget_bytes;
    double memory_budget_ratio;
    /* SC_PARTITION_BUDGET_SAVED: save exactly these joint nodes (a
     * decision, e.g. sc_frontier_point_saved's; CSE duplicates count as
     * their representative), which must be valid under the policy's
     * validity rules (doc/partition.md, "Frontier"). */
    size_t memory_budget_nsaved;
    const sc_node_id *memory_budget_saved;
    /* Under exact with a budget: random ops may be recomputed, replayed
     * exactly by symcut's counter-based kernels (the frontier's
     * replay_random).  Off by default: torch re-draws a recomputed random
     * op that is not tagged must_recompute. */
    bool memory_budget_replay_random;
    /* Progress of the run (NULL: none): phase "partitioning the joint
     * graph", units its phases done of 4 (preparing, classifying, the
     * cut, extracting the forward and backward graphs): one call as it
     * starts and one as each phase ends. */
    sc_progress_fn progress;
    void *progress_user;
} sc_partition_options;

/* Values of sc_partition_options.memory_budget_kind.  Under pytorch-2.13
 * only RATIO (torch's own algorithm); BYTES and SAVED under exact and
 * (SAVED only) pytorch-1.13. */
enum {
    SC_PARTITION_BUDGET_NONE = 0,
    SC_PARTITION_BUDGET_BYTES = 1,
    SC_PARTITION_BUDGET_RATIO = 2,
    SC_PARTITION_BUDGET_SAVED = 3
};

/* Bits of sc_partition_options.rules_off, one per PyTorch config flag
 * ban_recompute_<name> (all True by default there). */
enum {
    SC_PARTITION_RULE_USED_FAR_APART = 1u << 0,
    SC_PARTITION_RULE_LONG_FUSIBLE_CHAINS = 1u << 1,
    SC_PARTITION_RULE_MATERIALIZED_BACKWARD = 1u << 2,
    /* off: a denylist (random and compute-intensive ops) instead of the
     * recomputable allowlist */
    SC_PARTITION_RULE_NOT_IN_ALLOWLIST = 1u << 3,
    SC_PARTITION_RULE_REDUCTIONS = 1u << 4,
    /* config.aggressive_recomputation: every rule off but the reductions */
    SC_PARTITION_RULES_AGGRESSIVE = 0xfu
};

void sc_partition_options_init(sc_partition_options *opts);

/* ---- Running ------------------------------------------------------------ */

typedef struct sc_partition sc_partition;

/* Partition the joint graph (it must have passed sc_graph_finish, as every
 * graph from a reader has).  opts may be NULL (defaults).  On success *out
 * is a new result; on failure *out is NULL and err says why:
 *   SC_ERR_INVALID     a bad option (unknown tag node, num_fwd_outputs too
 *                      large) or a graph that is not a joint graph;
 *   SC_ERR_UNSUPPORTED no finite cut: an infinite path from the source to
 *                      the sink (the message names it, with the reason of
 *                      every edge), or weights beyond 2^53;
 *   SC_ERR_UNBOUND     a size that cannot be evaluated;
 *   SC_ERR_LIMIT       more than about 2^30 nodes;
 *   SC_ERR_NOMEM.
 * Sizes are weighed at the joint graph's hints (sc_graph_get_hint): set
 * other hints on the graph (sc_graph_set_hint) before the call.
 * Time: linear in the graph plus the max-flow (push-relabel) of the
 * reduced network, solved in pieces (doc/partition.md). */
sc_status sc_partition_run(const sc_graph *joint,
                           const sc_partition_options *opts,
                           sc_partition **out, sc_error *err);

/* Free a result (and the graphs it still owns).  NULL is a no-op. */
void sc_partition_free(sc_partition *p);

/* ---- Decisions ---------------------------------------------------------- */

const sc_graph *sc_partition_joint(const sc_partition *p);
sc_partition_policy sc_partition_policy_in_force(const sc_partition *p);

/* The saved tensors and saved symbolic integers: joint node ids (after
 * CSE: representatives), in joint order. */
size_t sc_partition_saved_tensor_count(const sc_partition *p);
sc_node_id sc_partition_saved_tensor(const sc_partition *p, size_t i);
size_t sc_partition_saved_symint_count(const sc_partition *p);
sc_node_id sc_partition_saved_symint(const sc_partition *p, size_t i);
/* The SymInts the extraction added so that the backward can bind a symbol
 * that no saved value carries (PyTorch's _extract_fwd_bwd_modules does the
 * same): `sym_size.int(src, dim)` in the forward graph, saved, and a
 * backward placeholder of the same name.  The joint has no such node, so
 * they are not among the saved symints above; in the order they are saved
 * (doc/partition.md, Symbols the backward binds). */
typedef struct sc_partition_synth {
    const char *name; /* in both graphs: sym_size, sym_size_1, ... (owned
                         by the result) */
    sc_node_id src;   /* the joint node whose size it reads */
    size_t dim;       /* the dimension of src */
    sc_expr *sym;     /* the symbol it binds */
} sc_partition_synth;
size_t sc_partition_synth_symint_count(const sc_partition *p);
/* The i-th; false (and *out untouched) when i is out of range. */
bool sc_partition_synth_symint(const sc_partition *p, size_t i,
                               sc_partition_synth *out);
/* Call nodes that run in both graphs (recomputed by the backward), in
 * joint order. */
size_t sc_partition_recomputed_count(const sc_partition *p);
sc_node_id sc_partition_recomputed(const sc_partition *p, size_t i);

/* X(NAME, spelling): where a joint node ended up. */
#define SC_PARTITION_PLACE_MAP(X)                                            \
    X(DEAD, "dead")             /* removed by dead-code elimination */       \
    X(FOLDED, "folded")         /* a duplicate merged by CSE */              \
    X(FORWARD, "forward")       /* forward graph only */                     \
    X(SAVED, "saved")           /* computed by the forward, saved */         \
    X(RECOMPUTED, "recomputed") /* in both graphs */                         \
    X(BACKWARD, "backward")     /* backward graph only */                    \
    X(UNUSED, "unused")         /* alive in the joint but in neither graph */

typedef enum sc_partition_place {
#define SC__PLACE_ENUM(name, str) SC_PARTITION_PLACE_##name,
    SC_PARTITION_PLACE_MAP(SC__PLACE_ENUM)
#undef SC__PLACE_ENUM
    SC_PARTITION_PLACE_COUNT_
} sc_partition_place;

const char *sc_partition_place_name(sc_partition_place place);

/* Why a node may not be recomputed (its X_in is tied to the source). */
#define SC_PARTITION_BAN_MAP(X)                                              \
    X(NONE, "not banned")                                                    \
    X(PRIMAL, "a primal input")                                              \
    X(NOT_RECOMPUTABLE, "op not in the recomputable list")                   \
    X(COMPUTE_INTENSIVE, "compute-intensive op")                             \
    X(RANDOM, "random op")                                                   \
    X(MUTATES, "mutates its arguments")                                      \
    X(REDUCTION, "output under a quarter of its inputs' size")               \
    X(MATERIALIZED_BACKWARD, "materialized in the backward anyway")          \
    X(MUST_SAVE, "tagged must_save")                                         \
    /* the ban rules of the pytorch and exact policies */                   \
    X(USED_FAR_APART, "used after a non-fusible use of its input")           \
    X(LONG_FUSIBLE_CHAIN, "ends a long chain of fusible ops")                \
    X(FAR_FROM_BACKWARD, "farther than max_dist_from_bw from the backward")

typedef enum sc_partition_ban {
#define SC__BAN_ENUM(name, str) SC_PARTITION_BAN_##name,
    SC_PARTITION_BAN_MAP(SC__BAN_ENUM)
#undef SC__BAN_ENUM
    SC_PARTITION_BAN_COUNT_
} sc_partition_ban;

const char *sc_partition_ban_name(sc_partition_ban ban);

/* Classification bits of a node (sc_partition_node_class). */
enum {
    SC_PARTITION_REQUIRED_FW = 1u << 0, /* on a primals -> fwd outputs path */
    SC_PARTITION_TANGENT_CLOSURE = 1u << 1, /* depends on a tangent */
    SC_PARTITION_REQUIRED_BW = 1u << 2, /* tied to the sink */
    SC_PARTITION_BW_OUTPUT = 1u << 3,   /* a gradient output */
    SC_PARTITION_FW_OUTPUT = 1u << 4,   /* a forward output */
    SC_PARTITION_MATERIALIZED = 1u << 5 /* some user is not fusible */
};

/* For 0 <= id < number of joint nodes. */
sc_partition_place sc_partition_node_place(const sc_partition *p,
                                           sc_node_id id);
/* The CSE representative (id itself for non-folded nodes). */
sc_node_id sc_partition_node_representative(const sc_partition *p,
                                            sc_node_id id);
unsigned sc_partition_node_class(const sc_partition *p, sc_node_id id);
sc_partition_ban sc_partition_node_ban(const sc_partition *p, sc_node_id id);
sc_partition_tag sc_partition_node_tag(const sc_partition *p, sc_node_id id);
/* Distance to the backward (edges to the nearest user outside the
 * forward half), as the policy computes it; 0 outside the forward half. */
int32_t sc_partition_node_distance(const sc_partition *p, sc_node_id id);
/* Size in bytes at the hints (-1: not a tensor). */
int64_t sc_partition_node_bytes(const sc_partition *p, sc_node_id id);
/* The capacity of X_in -> X_out (-1: infinite; 0 for nodes with no such
 * edge). */
int64_t sc_partition_node_weight(const sc_partition *p, sc_node_id id);
/* A one-line reason for the node's place: "saved: on the minimum cut",
 * "saved: banned (compute-intensive op)", "recomputed: ...".  Valid as
 * long as the result. */
const char *sc_partition_node_reason(const sc_partition *p, sc_node_id id);

/* ---- Totals ------------------------------------------------------------- */

/* Bytes of the saved tensors at the hints (saved primals included). */
int64_t sc_partition_saved_bytes(const sc_partition *p);
/* The same as a formula in the shape symbols (interned in the joint's
 * context), e.g. `4*s0*s1 + 512*s0`. */
sc_expr *sc_partition_saved_bytes_expr(const sc_partition *p);
/* Bytes of the trivial partition (save every forward value the backward
 * uses, recompute nothing), at the hints and as a formula. */
int64_t sc_partition_trivial_bytes(const sc_partition *p);
sc_expr *sc_partition_trivial_bytes_expr(const sc_partition *p);
/* The value of the minimum cut, in the policy's weights. */
int64_t sc_partition_cut_value(const sc_partition *p);
/* The ban-rule settings the result was computed with, defaults resolved
 * (each pointer may be NULL): the SC_PARTITION_RULE_* bits of the rules
 * that were off, max_dist_from_bw (1000 or more: that rule bans nothing;
 * 0 for a negative option) and long_chain_limit.  Under pytorch-1.13,
 * which has only the allowlist and the reduction rule, the other three
 * rules are off and the numbers are the defaults. */
void sc_partition_rules(const sc_partition *p, unsigned *rules_off,
                        int32_t *max_dist_from_bw,
                        int32_t *long_chain_limit);
/* The value a symbol with no hint and no finite upper bound weighed as
 * (the option, default 8192). */
int64_t sc_partition_unbacked_fallback(const sc_partition *p);
/* The flow network: vertices and edges (as networkx would count them). */
size_t sc_partition_network_vertex_count(const sc_partition *p);
size_t sc_partition_network_edge_count(const sc_partition *p);
/* Recompute cost: FLOPs at the hints of the recomputed nodes whose op has
 * a formula in the op table; *unknown receives how many have none. */
int64_t sc_partition_recompute_flops(const sc_partition *p, size_t *unknown);
/* Nodes removed by DCE and merged by CSE. */
size_t sc_partition_dead_count(const sc_partition *p);
size_t sc_partition_folded_count(const sc_partition *p);

/* Warnings (an unbacked symbol weighed with a fallback, a backward symbol
 * no input binds, ...), one line each. */
size_t sc_partition_warning_count(const sc_partition *p);
const char *sc_partition_warning(const sc_partition *p, size_t i);

/* ---- Phases and timings ------------------------------------------------- */

#define SC_PARTITION_PHASE_MAP(X)                                            \
    X(PREPARE, "prepare")   /* DCE, CSE, sizes at the hints */              \
    X(CLASSIFY, "classify") /* classification, distances, bans */           \
    X(NETWORK, "network")   /* flow network construction */                 \
    X(MAXFLOW, "maxflow")   /* igraph_maxflow */                            \
    X(CUT, "cut")           /* reading the saved set off the residual */    \
    X(EXTRACT, "extract")   /* forward and backward graphs */

typedef enum sc_partition_phase {
#define SC__PHASE_ENUM(name, str) SC_PARTITION_PHASE_##name,
    SC_PARTITION_PHASE_MAP(SC__PHASE_ENUM)
#undef SC__PHASE_ENUM
    SC_PARTITION_PHASE_COUNT_
} sc_partition_phase;

const char *sc_partition_phase_name(sc_partition_phase phase);
/* Seconds spent in a phase: CPU time of the calling thread (the
 * partitioner runs on one thread; wall-clock time where the system has no
 * thread CPU clock). */
double sc_partition_phase_seconds(const sc_partition *p,
                                  sc_partition_phase phase);

/* ---- Graphs ------------------------------------------------------------- */

/* The forward graph: the primals as placeholders; outputs the forward
 * outputs, then the saved tensors, then the saved symbolic integers (all
 * counted as forward outputs).  NULL with SC_PARTITION_NO_GRAPHS. */
const sc_graph *sc_partition_forward(const sc_partition *p);
/* The backward graph: placeholders the saved symbolic integers, the saved
 * tensors (role primal) and the tangents; outputs the gradients (no
 * forward outputs). */
const sc_graph *sc_partition_backward(const sc_partition *p);
/* Take ownership of a graph (the result keeps NULL). */
sc_graph *sc_partition_take_forward(sc_partition *p);
sc_graph *sc_partition_take_backward(sc_partition *p);

/* ---- Frontier ------------------------------------------------------------
 * The exact memory/recompute trade-off of a joint graph (doc/partition.md,
 * "Frontier").  A decision is a valid saved set: the forward never reads
 * a tangent, the backward computes everything else it needs from the
 * saved values, and it never recomputes a primal, an op that writes an
 * argument, a value without tensor metadata, an op the op table does not
 * know, a node tagged must_save, or a random op unless its replay is
 * exact (with replay_random under the exact policy: the interpreter's
 * random kernels are counter-based, and a recomputed random op replays
 * the forward's draws; otherwise never, as in PyTorch).  The
 * policy's other bans are a price, not a constraint (unless keep_bans).
 * Its memory is the bytes of its saved tensors at the hints
 * (sc_partition_saved_bytes of the partition that saves it); its
 * recompute cost the sum of sc_node_cost_eval (.cost) over the nodes the
 * backward computes that the forward computes too (a node only the
 * backward needs costs nothing).  The lower convex hull
 * is exact (parametric min cut, every breakpoint); a budget between two
 * hull vertices is solved by GLPK's branch and cut, warm-started by the
 * hull vertex within the budget, with the hull's Lagrangian bound.  Under
 * the options' policy (its classification and bans, its default cut); the
 * options' memory budget is ignored.  The frontier refers to the joint
 * graph, which must outlive it. */

typedef struct sc_frontier sc_frontier;

typedef struct sc_frontier_options {
    /* Budgets evenly spaced from the least bytes to the least-recompute
     * end, each solved exactly (0: the hull vertices only). */
    size_t points;
    /* PyTorch's heuristic bans stay constraints (compare like with
     * like). */
    bool keep_bans;
    /* Under the exact policy, random ops may be recomputed: symcut's
     * interpreter replays them exactly (its kernels are counter-based,
     * keyed by the node's name).  Off by default: torch, running the
     * decision, re-draws a recomputed random op (its functionalize_rng_ops
     * replays only ops tagged must_recompute), so such a decision is for
     * symcut's interpreter, not for torch.compile. */
    bool replay_random;
    /* Time limit of the MILP of one budget, in seconds (0: 10). */
    double milp_seconds;
} sc_frontier_options;

void sc_frontier_options_init(sc_frontier_options *opts);

/* One decision of the frontier. */
typedef struct sc_frontier_point {
    uint64_t saved_bytes;     /* tensors saved, bytes at the hints */
    uint64_t recompute_cost;  /* sum of the recomputed nodes' cost */
    uint64_t recompute_flops; /* ... and of their FLOPs */
    /* The least recompute cost any valid decision within budget can have
     * (the hull's bound); equal to recompute_cost when optimal. */
    uint64_t lower_bound;
    uint64_t budget;          /* the budget it answers (bytes) */
    size_t saved_tensors, saved_symints;
    bool hull_vertex;         /* a vertex of the lower convex hull */
    bool optimal;             /* proven: no valid decision within budget
                                 recomputes less */
    bool valid;               /* always true, except for a scored set */
    /* sc_frontier_score of an invalid set: a node it would recompute
     * that may not be recomputed (else SC_NODE_NONE) */
    sc_node_id invalid_node;
} sc_frontier_point;

/* Compute the hull, and with fopts->points > 0 that many budgets between
 * its ends.  opts as for sc_partition_run (NULL: defaults, policy
 * pytorch-2.13; its memory budget is ignored).  Errors: those of sc_partition_run; SC_ERR_UNSUPPORTED
 * when the bytes times the costs pass 2^118 (the cut would not be
 * exact). */
sc_status sc_frontier_compute(const sc_graph *joint,
                              const sc_partition_options *opts,
                              const sc_frontier_options *fopts,
                              sc_frontier **out, sc_error *err);
void sc_frontier_free(sc_frontier *f);

/* The points in increasing saved bytes (and decreasing cost): the hull
 * vertices and the budgets' optima, each decision once. */
size_t sc_frontier_point_count(const sc_frontier *f);
/* false (and *out untouched) when i is out of range. */
bool sc_frontier_point_get(const sc_frontier *f, size_t i,
                           sc_frontier_point *out);
/* The saved tensors and symints of point i (joint node ids in joint
 * order, CSE representatives): the count; the first cap ids into ids. */
size_t sc_frontier_point_saved(const sc_frontier *f, size_t i,
                               sc_node_id *ids, size_t cap);
/* The random ops point i's backward recomputes (exact policy only; 0 out
 * of range): each replays the forward's draws, from the run's seed and
 * the node's name (doc/interp.md, "Random ops"); nothing is saved for
 * them. */
size_t sc_frontier_point_replayed_random(const sc_frontier *f, size_t i);
/* The breakpoints of the hull: between vertex i and vertex i+1 (the hull
 * vertices in order), lambda = num / den bytes per unit of cost, exact.
 * sc_frontier_breakpoint_count is the number of hull vertices minus 1. */
size_t sc_frontier_breakpoint_count(const sc_frontier *f);
bool sc_frontier_breakpoint(const sc_frontier *f, size_t i, uint64_t *num,
                            uint64_t *den);
/* The exact policy's default cut (heuristic bans as constraints), scored
 * the same way. */
void sc_frontier_default_cut(const sc_frontier *f, sc_frontier_point *out);
/* Solve one budget: the least recompute cost within budget bytes (at
 * most seconds in the MILP; 0: the options').  SC_ERR_INVALID when the
 * budget is below the least possible bytes (the message names them).
 * *saved (may be NULL) receives the saved node ids (malloc'ed; free()),
 * *nsaved their count. */
sc_status sc_frontier_solve(const sc_frontier *f, uint64_t budget,
                            double seconds, sc_frontier_point *out,
                            sc_node_id **saved, size_t *nsaved,
                            sc_error *err);
/* Score a saved set given from outside (node names or ids of the joint;
 * CSE duplicates count as their representative): validity, bytes, cost
 * and the hull's bound at its bytes.  SC_ERR_INVALID for an id out of
 * range. */
sc_status sc_frontier_score(const sc_frontier *f, const sc_node_id *ids,
                            size_t n, sc_frontier_point *out, sc_error *err);
/* The partition that saves exactly point i's decision (sc_partition_run
 * with the frontier's options and SC_PARTITION_BUDGET_SAVED), its graphs
 * built unless flags has SC_PARTITION_NO_GRAPHS; its saved bytes are the
 * point's.  Under pytorch-2.13, whose sc_partition_run takes no SAVED
 * budget, the partition is run under the exact policy with the same saved
 * set (the same forward and backward computations). */
sc_status sc_frontier_point_partition(const sc_frontier *f, size_t i,
                                      unsigned flags, sc_partition **out,
                                      sc_error *err);
/* The same for any saved set (ids of the joint, e.g. a compared
 * decision's): SC_ERR_INVALID, naming the node, when the set is not
 * valid. */
sc_status sc_frontier_partition_saved(const sc_frontier *f,
                                      const sc_node_id *ids, size_t n,
                                      unsigned flags, sc_partition **out,
                                      sc_error *err);
/* Max-flows run (one per probe of the hull search and per end). */
size_t sc_frontier_maxflow_count(const sc_frontier *f);
/* The policy the frontier was computed under. */
sc_partition_policy sc_frontier_policy(const sc_frontier *f);
/* torch 2.13's own memory-budget decision at ratio (its
 * activation_memory_budget in [0, 1]: sc_partition_run under pytorch-2.13
 * with SC_PARTITION_BUDGET_RATIO and the frontier's other options),
 * scored against the frontier as sc_frontier_score scores it (*out; its
 * budget is its saved bytes, lower_bound the hull's bound there).
 * *saved (may be NULL) receives the saved node ids (malloc'ed; free()),
 * *nsaved their count (may be NULL).  Errors: sc_partition_run's
 * (SC_ERR_INVALID for a ratio outside [0, 1]). */
sc_status sc_frontier_torch_budget(const sc_frontier *f, double ratio,
                                   sc_frontier_point *out, sc_node_id **saved,
                                   size_t *nsaved, sc_error *err);

/* ---- Reports ------------------------------------------------------------ */

enum {
    /* Leave the timings out (reproducible output). */
    SC_PARTITION_REPORT_NO_TIMINGS = 1u << 0
};

/* A readable report: sizes, saved values with sizes and reasons,
 * recomputed nodes, totals at the hints and as formulas, timings.
 * *out is malloc'ed (free with free()); *len if non-NULL. */
sc_status sc_partition_write_text(const sc_partition *p, unsigned flags,
                                  char **out, size_t *len, sc_error *err);
/* The same as JSON (fields in doc/partition.md). */
sc_status sc_partition_write_json(const sc_partition *p, unsigned flags,
                                  char **out, size_t *len, sc_error *err);
/* The joint graph as Graphviz DOT, nodes colored by place. */
sc_status sc_partition_write_dot(const sc_partition *p, unsigned flags,
                                 char **out, size_t *len, sc_error *err);

/* ---- Reports with their context ------------------------------------------
 * What the writers above cannot know from the result alone: the input
 * file, the memory budget asked for and how it was met, and the view of
 * the DOT picture.  The JSON schema is in doc/partition.md ("JSON
 * report"); SC_PARTITION_REPORT_FORMAT_VERSION is its format_version,
 * raised whenever a field changes meaning or goes. */
#define SC_PARTITION_REPORT_FORMAT_VERSION 1

/* X(NAME, code, prose): how the decision under a memory budget was found.
 * The codes are stable (JSON "solver"). */
#define SC_PARTITION_SOLVER_MAP(X)                                           \
    X(NONE, "none", "no memory budget: the policy's minimum cut")           \
    X(EXACT_HULL, "exact_hull",                                              \
      "a vertex of the exact frontier's lower convex hull (parametric "      \
      "min cut)")                                                            \
    X(EXACT_MILP, "exact_milp",                                              \
      "GLPK's branch and cut between two vertices of the exact hull")        \
    X(TORCH_DEFAULT_CUT, "torch_default_cut",                                \
      "torch 2.13: the default cut fits the budget")                         \
    X(TORCH_MORE_AGGRESSIVE_CUT, "torch_more_aggressive_cut",                \
      "torch 2.13: the cut with used-far-apart, long-fusible-chains and "    \
      "materialized-backward off fits the budget")                           \
    X(TORCH_AGGRESSIVE_CUT, "torch_aggressive_cut",                          \
      "torch 2.13: the aggressive cut (the allowlist off too) fits the "     \
      "budget")                                                              \
    X(TORCH_INPUTS_ONLY, "torch_inputs_only",                                \
      "torch 2.13: saves the inputs (and must_save nodes) only")             \
    X(TORCH_KNAPSACK, "torch_knapsack",                                      \
      "torch 2.13: its dp knapsack over the banned nodes of the "            \
      "aggressive cut")

typedef enum sc_partition_solver {
#define SC__SOLVER_ENUM(name, code, prose) SC_PARTITION_SOLVER_##name,
    SC_PARTITION_SOLVER_MAP(SC__SOLVER_ENUM)
#undef SC__SOLVER_ENUM
    SC_PARTITION_SOLVER_COUNT_
} sc_partition_solver;

/* "exact_hull", ...; the prose; NULL when out of range. */
const char *sc_partition_solver_code(sc_partition_solver solver);
const char *sc_partition_solver_text(sc_partition_solver solver);
/* The stable code of a ban ("compute_intensive"; "none"), beside
 * sc_partition_ban_name's prose; NULL when out of range. */
const char *sc_partition_ban_code(sc_partition_ban ban);

/* How a memory budget was met (sc_partition_budget_explain). */
typedef struct sc_partition_budget_outcome {
    int kind;                 /* SC_PARTITION_BUDGET_*, as asked */
    uint64_t asked_bytes;     /* kind BYTES: the budget */
    double asked_ratio;       /* kind RATIO: the ratio */
    /* The budget in bytes the solver worked to (exact policy: the ratio
     * resolved between the least bytes and the default cut's); false
     * under pytorch-2.13, whose ratio is torch's own normalization. */
    bool has_budget_bytes;
    uint64_t budget_bytes;
    sc_partition_solver solver;
    /* Proven: no valid decision within the budget recomputes less
     * (never under pytorch-2.13, whose solver is a heuristic). */
    bool optimal;
    /* The decision scored on the exact frontier (valid false: it
     * recomputes something the frontier may not, and nothing below is
     * known). */
    bool valid;
    uint64_t saved_bytes, recompute_cost, recompute_flops;
    /* hull_bound: the exact hull's Lagrangian bound on the recompute cost
     * of any valid decision within the budget (or, without budget bytes,
     * within the decision's saved bytes).  lower_bound: the best proven
     * bound, recompute_cost when optimal, else hull_bound; gap =
     * recompute_cost - lower_bound. */
    uint64_t hull_bound, lower_bound, gap;
    /* The frontier's ends: the least bytes of any valid decision, and the
     * exact policy's default cut. */
    uint64_t least_bytes, default_bytes;
} sc_partition_budget_outcome;

/* How p, the result of sc_partition_run(joint, opts), met opts' memory
 * budget: with no budget, out->kind is SC_PARTITION_BUDGET_NONE and
 * out->solver SC_PARTITION_SOLVER_NONE.  Otherwise the exact frontier of
 * joint (sc_frontier_compute, hull only) scores p's saved set, and under
 * the exact policy the budget is solved again (sc_frontier_solve: the MILP
 * runs a second time when the budget falls between two hull vertices)
 * for its proof and bound; under pytorch-2.13 the solver is read off p's
 * warnings.  Errors: those of sc_frontier_compute.  Time: the frontier's
 * hull plus one budget solve. */
sc_status sc_partition_budget_explain(const sc_graph *joint,
                                      const sc_partition_options *opts,
                                      const sc_partition *p,
                                      sc_partition_budget_outcome *out,
                                      sc_error *err);

/* The reason of a node's place as the reports give it: a stable code
 * (*code, e.g. "saved_min_cut", "saved_banned", "recomputed_budget";
 * doc/partition.md lists them) and the prose.  The same as
 * sc_partition_node_reason, except that under a memory budget met by the
 * exact frontier (budget non-NULL, solver EXACT_*) a heuristic ban (the
 * frontier's price, not its rule) is not cited as the reason: the
 * decision within the budget is.  Static strings. */
const char *sc_partition_report_reason(const sc_partition *p,
                                       const sc_partition_budget_outcome *b,
                                       sc_node_id id, const char **code);

typedef enum sc_partition_report_format {
    SC_PARTITION_REPORT_TEXT,
    SC_PARTITION_REPORT_JSON,
    SC_PARTITION_REPORT_DOT
} sc_partition_report_format;

typedef struct sc_partition_report_info {
    const char *input;   /* the graph's file ("-": standard input); NULL:
                            not said */
    bool forward;        /* the input was a forward graph, its joint built */
    /* The memory budget's outcome (NULL: no budget). */
    const sc_partition_budget_outcome *budget;
    /* DOT: draw only the nodes at most around_depth edges (either way)
     * from around (SC_NODE_NONE, the default from _init: every node).
     * Every picture is clustered by place (forward, saved, recomputed,
     * backward) and has a drawn legend. */
    sc_node_id around;
    size_t around_depth;
} sc_partition_report_info;

/* Defaults: nothing known, the whole graph (around_depth 2 for when
 * around is set). */
void sc_partition_report_info_init(sc_partition_report_info *info);

/* The report of p in a format, with info (NULL: as the writers above).
 * JSON gains input, hints and budget fields; the text report a "memory
 * budget" line; reasons are sc_partition_report_reason's.
 * SC_ERR_INVALID for an around node out of range.  *out is malloc'ed. */
sc_status sc_partition_write_report(const sc_partition *p,
                                    const sc_partition_report_info *info,
                                    sc_partition_report_format format,
                                    unsigned flags, char **out, size_t *len,
                                    sc_error *err);

#ifdef __cplusplus
}
#endif

#endif /* SYMCUT_PARTITION_H */
