/* symcut — the graph IR and PyTorch's graph text.
 *
 * A graph is a list of nodes in topological order, each identified by a
 * dense id 0, 1, ... (sc_node_id).  A node is either a placeholder (a
 * primal or a tangent input) or a call: a target (an op of the op table,
 * `torch.ops.aten.mm.default`, or another Python callable such as
 * `operator.getitem` or `operator.mul`) applied to arguments (sc_value:
 * earlier nodes, ints, floats, lists, dtypes, ...).  Every node carries a
 * result description (sc_result): a tensor with dtype, symbolic sizes and
 * strides and device, a symbolic integer or boolean, a tuple read by
 * getitem nodes, or nothing known.  For text input it is the node's
 * annotation, kept as its declared metadata.  The output list holds node
 * references or None; for a joint graph its first num_fwd_outputs entries
 * are the forward outputs, the rest the gradients, one per primal.
 *
 * Ownership: a graph is owned by its creator (sc_graph_new / a reader,
 * then sc_graph_free).  It refers to, and does not own, a symint context
 * (sc_ctx) whose expressions its metadata uses; the context must outlive
 * the graph.  Strings and values given to the builder are copied.
 *
 * Memory: nodes live in one array, their names, arguments and metadata in
 * an arena of the graph; a typical node costs about 150-300 bytes.
 *
 * The text format is PyTorch's `print_readable` form (see doc/graph.md):
 *
 *     mm: "f32[s0, 32][32, 1]cpu" = torch.ops.aten.mm.default(a, b)
 */
#ifndef SYMCUT_GRAPH_H
#define SYMCUT_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <symcut/error.h>
#include <symcut/symint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sc_graph sc_graph;
/* The shape environment of guards.h; a graph may point to one. */
typedef struct sc_env sc_env;

/* Dense node ids: 0 .. sc_graph_node_count() - 1, in topological order. */
typedef int32_t sc_node_id;
#define SC_NODE_NONE ((sc_node_id)-1)

/* ---- Progress ---------------------------------------------------------- */

/* A long operation's progress report, called by the library on the
 * caller's thread (the options struct of the operation holds it with its
 * user pointer; NULL: no reports).  phase is a static string naming the
 * work ("building the joint graph"); done of total units are finished
 * (total 0: unknown).  The operation calls it once with done 0 when the
 * phase starts, every so many units (not for each: a call per 4096
 * nodes or per checked element), and once with done == total when the
 * phase ends.  A progress function must not call back into the
 * operation's objects; it returns nothing and cannot stop the work.
 * Used by sc_joint_options, sc_graph_random_options,
 * sc_graph_read_options, sc_partition_options and sc_gradcheck_options. */
typedef void (*sc_progress_fn)(void *user, const char *phase, size_t done,
                               size_t total);

/* ---- dtypes, devices, layouts, memory formats ------------------------- */

/* X(NAME, code PyTorch prints in annotations, torch name, item size in
 * bytes, kind: 'f' floating, 'c' complex, 'i' signed, 'u' unsigned, 'b'
 * bool).  The one list of dtypes. */
#define SC_DTYPE_MAP(X)                                                      \
    X(F32, "f32", "float32", 4, 'f')                                         \
    X(F64, "f64", "float64", 8, 'f')                                         \
    X(F16, "f16", "float16", 2, 'f')                                         \
    X(BF16, "bf16", "bfloat16", 2, 'f')                                      \
    X(C32, "c32", "complex32", 4, 'c')                                       \
    X(C64, "c64", "complex64", 8, 'c')                                       \
    X(C128, "c128", "complex128", 16, 'c')                                   \
    X(I8, "i8", "int8", 1, 'i')                                              \
    X(I16, "i16", "int16", 2, 'i')                                           \
    X(I32, "i32", "int32", 4, 'i')                                           \
    X(I64, "i64", "int64", 8, 'i')                                           \
    X(U8, "u8", "uint8", 1, 'u')                                             \
    X(U16, "u16", "uint16", 2, 'u')                                          \
    X(U32, "u32", "uint32", 4, 'u')                                          \
    X(U64, "u64", "uint64", 8, 'u')                                          \
    X(B8, "b8", "bool", 1, 'b')                                              \
    X(F8E4M3FN, "f8e4m3fn", "float8_e4m3fn", 1, 'f')                         \
    X(F8E5M2, "f8e5m2", "float8_e5m2", 1, 'f')                               \
    X(F8E4M3FNUZ, "f8e4m3fnuz", "float8_e4m3fnuz", 1, 'f')                   \
    X(F8E5M2FNUZ, "f8e5m2fnuz", "float8_e5m2fnuz", 1, 'f')

typedef enum sc_dtype {
#define SC__DTYPE_ENUM(name, code, torch, size, kind) SC_DTYPE_##name,
    SC_DTYPE_MAP(SC__DTYPE_ENUM)
#undef SC__DTYPE_ENUM
    SC_DTYPE_COUNT_
} sc_dtype;

/* "f32"; NULL for a value that is not a dtype. */
const char *sc_dtype_code(sc_dtype dtype);
/* "float32" (print as torch.float32); NULL for a value not a dtype. */
const char *sc_dtype_torch_name(sc_dtype dtype);
/* Item size in bytes; 0 for a value that is not a dtype. */
size_t sc_dtype_itemsize(sc_dtype dtype);
/* 'f', 'c', 'i', 'u' or 'b'; 0 for a value that is not a dtype. */
char sc_dtype_kind(sc_dtype dtype);
/* The dtype of an annotation code ("f32", n bytes); false if unknown. */
bool sc_dtype_from_code(const char *code, size_t n, sc_dtype *out);
/* The dtype of a torch name without "torch." ("float32", also the
 * aliases float, double, half, cfloat, cdouble, chalf, long, int, short);
 * false if unknown. */
bool sc_dtype_from_torch_name(const char *name, size_t n, sc_dtype *out);

#define SC_DEVICE_TYPE_MAP(X)                                                \
    X(CPU, "cpu") X(CUDA, "cuda") X(META, "meta") X(MPS, "mps")              \
    X(XPU, "xpu") X(HPU, "hpu") X(XLA, "xla") X(PRIVATEUSE1, "privateuseone")

typedef enum sc_device_type {
#define SC__DEVICE_ENUM(name, str) SC_DEVICE_##name,
    SC_DEVICE_TYPE_MAP(SC__DEVICE_ENUM)
#undef SC__DEVICE_ENUM
    SC_DEVICE_TYPE_COUNT_
} sc_device_type;

/* A device: a type and an index (-1: none, as in `cpu`; `cuda:0` has 0). */
typedef struct sc_device {
    sc_device_type type;
    int index;
} sc_device;

/* "cpu"; NULL for a value that is not a device type. */
const char *sc_device_type_name(sc_device_type type);
bool sc_device_type_from_name(const char *name, size_t n, sc_device_type *out);

#define SC_LAYOUT_MAP(X)                                                     \
    X(STRIDED, "strided") X(SPARSE_COO, "sparse_coo")                        \
    X(SPARSE_CSR, "sparse_csr") X(SPARSE_CSC, "sparse_csc")                  \
    X(SPARSE_BSR, "sparse_bsr") X(SPARSE_BSC, "sparse_bsc")                  \
    X(MKLDNN, "_mkldnn") X(JAGGED, "jagged")

typedef enum sc_layout {
#define SC__LAYOUT_ENUM(name, str) SC_LAYOUT_##name,
    SC_LAYOUT_MAP(SC__LAYOUT_ENUM)
#undef SC__LAYOUT_ENUM
    SC_LAYOUT_COUNT_
} sc_layout;

#define SC_MEMORY_FORMAT_MAP(X)                                              \
    X(CONTIGUOUS, "contiguous_format") X(CHANNELS_LAST, "channels_last")     \
    X(CHANNELS_LAST_3D, "channels_last_3d") X(PRESERVE, "preserve_format")

typedef enum sc_memory_format {
#define SC__MEMFMT_ENUM(name, str) SC_MEMORY_FORMAT_##name,
    SC_MEMORY_FORMAT_MAP(SC__MEMFMT_ENUM)
#undef SC__MEMFMT_ENUM
    SC_MEMORY_FORMAT_COUNT_
} sc_memory_format;

/* "strided" / "contiguous_format" (printed as torch.<name>); NULL when out
 * of range. */
const char *sc_layout_name(sc_layout layout);
const char *sc_memory_format_name(sc_memory_format format);

/* ---- Argument values --------------------------------------------------- */

typedef enum sc_value_kind {
    SC_VALUE_NONE,          /* None */
    SC_VALUE_NODE,          /* a reference to an earlier node */
    SC_VALUE_INT,           /* a Python int that fits in int64_t */
    SC_VALUE_SYMINT,        /* a symint expression (integer or boolean);
                               also an integer literal beyond int64_t */
    SC_VALUE_FLOAT,         /* a float, with its exact text */
    SC_VALUE_BOOL,
    SC_VALUE_STRING,        /* also a Python callable passed as an
                               argument (`torch.ops.mylib.foo.default` to
                               auto_functionalized): its dotted name after
                               the byte SC_VALUE_CALLABLE_MARK */
    SC_VALUE_DTYPE,         /* torch.float32 */
    SC_VALUE_DEVICE,        /* device(type='cpu') */
    SC_VALUE_LAYOUT,        /* torch.strided */
    SC_VALUE_MEMORY_FORMAT, /* torch.contiguous_format */
    SC_VALUE_LIST,          /* [a, 1, ...] */
    SC_VALUE_TUPLE          /* (a, 1, ...), same representation as a list */
} sc_value_kind;

typedef struct sc_value {
    sc_value_kind kind;
    union {
        sc_node_id node;
        int64_t i;
        sc_expr *expr;
        struct {
            double value;
            /* Python's repr as read (`1e-05`, `-inf`), written back as is;
             * NULL: written with %.17g. */
            const char *repr;
        } f;
        bool b;
        const char *str;    /* NUL-terminated, decoded */
        sc_dtype dtype;
        sc_device device;
        sc_layout layout;
        sc_memory_format memory_format;
        struct {
            size_t n;
            const struct sc_value *items;
        } list;
    } u;
} sc_value;

/* The first byte of a STRING value that names a Python callable. */
#define SC_VALUE_CALLABLE_MARK '\x01'

/* Convenience constructors (no allocation: a list refers to the caller's
 * items, and a float's repr, a string, to the caller's text; the graph
 * builder copies them). */
sc_value sc_value_none(void);
sc_value sc_value_node(sc_node_id id);
sc_value sc_value_int(int64_t i);
sc_value sc_value_float(double value, const char *repr);
sc_value sc_value_bool(bool b);
sc_value sc_value_list(size_t n, const sc_value *items);

/* ---- Node results (metadata) ------------------------------------------- */

typedef enum sc_result_kind {
    SC_RESULT_UNKNOWN, /* nothing known (no annotation) */
    SC_RESULT_NONE,    /* the op returns nothing */
    SC_RESULT_TENSOR,
    SC_RESULT_SYMINT,  /* "Sym(s0)" */
    SC_RESULT_SYMBOOL, /* "Sym(Eq(s0, 8))" */
    SC_RESULT_TUPLE    /* elements read by getitem nodes */
} sc_result_kind;

typedef struct sc_tensor_meta {
    sc_dtype dtype;
    bool has_strides; /* false: the annotation gave none (older style) */
    bool has_device;  /* false: the annotation gave none */
    sc_device device;
    size_t ndim;
    sc_expr *const *sizes;   /* ndim entries */
    sc_expr *const *strides; /* ndim entries; NULL when !has_strides */
} sc_tensor_meta;

typedef struct sc_result {
    sc_result_kind kind;
    sc_tensor_meta tensor; /* TENSOR */
    sc_expr *expr;         /* SYMINT, SYMBOOL */
    size_t count;          /* TUPLE: number of elements (0 if unknown) */
} sc_result;

/* A result of kind UNKNOWN. */
void sc_result_init(sc_result *r);

/* ---- Graphs ------------------------------------------------------------ */

typedef enum sc_node_kind {
    SC_NODE_PLACEHOLDER,
    SC_NODE_CALL
} sc_node_kind;

typedef enum sc_role {
    SC_ROLE_NONE,    /* call nodes */
    SC_ROLE_PRIMAL,  /* a forward input: parameter, buffer or data */
    SC_ROLE_TANGENT  /* an incoming gradient */
} sc_role;

/* A new empty graph whose expressions live in ctx (not owned; it must
 * outlive the graph).  NULL on exhaustion. */
sc_graph *sc_graph_new(sc_ctx *ctx);
/* Free a graph and everything it owns.  NULL is a no-op. */
void sc_graph_free(sc_graph *g);

sc_ctx *sc_graph_ctx(const sc_graph *g);

/* The shape environment (guards.h) the graph's symbols live in, if any.
 * Not owned; it must outlive the graph or be unset first. */
void sc_graph_set_env(sc_graph *g, sc_env *env);
sc_env *sc_graph_env(const sc_graph *g);

/* The Python class name the graph was read with or will be written with
 * (NULL: `joint_fn` for a graph with tangents, else `forward_fn`). */
const char *sc_graph_class_name(const sc_graph *g);
sc_status sc_graph_set_class_name(sc_graph *g, const char *name,
                                  sc_error *err);

/* What a graph is, as PyTorch's AOTAutograd makes them: a joint graph
 * (primals and tangents -> forward outputs and one gradient per primal),
 * the forward and backward graphs a partition makes of it (forward:
 * primals -> outputs and saved values; backward: saved values and
 * tangents -> gradients), or an inference graph (no gradients).  The
 * reader detects it from the framing (banners, trace records), the
 * signature and the names; SC_GRAPH_KIND_UNKNOWN for a graph built
 * through the API that nobody said. */
typedef enum sc_graph_kind {
    SC_GRAPH_KIND_UNKNOWN,
    SC_GRAPH_KIND_JOINT,
    SC_GRAPH_KIND_FORWARD,
    SC_GRAPH_KIND_BACKWARD,
    SC_GRAPH_KIND_INFERENCE
} sc_graph_kind;

/* "joint", "forward", "backward", "inference", "unknown". */
const char *sc_graph_kind_name(sc_graph_kind kind);
/* The kind named name (n bytes; also PyTorch's trace record names
 * "aot_joint_graph", ...); false if none. */
bool sc_graph_kind_from_name(const char *name, size_t n, sc_graph_kind *out);
/* The graph's kind (see above).  The writer prints a forward, backward or
 * inference graph with PyTorch's flat typed parameters unless it was read
 * in the pytree form. */
sc_graph_kind sc_graph_get_kind(const sc_graph *g);
sc_status sc_graph_set_kind(sc_graph *g, sc_graph_kind kind, sc_error *err);

/* ---- Building (front ends) ---------------------------------------------
 * Nodes are appended in topological order: every node an argument refers
 * to must already exist (SSA), placeholders come before calls, names are
 * unique identifiers.  A failing call leaves the graph as it was. */

/* Append a placeholder.  meta may be NULL (unknown).  The node's id is
 * stored in *out (if non-NULL). */
sc_status sc_graph_add_placeholder(sc_graph *g, const char *name,
                                   sc_role role, const sc_result *meta,
                                   sc_node_id *out, sc_error *err);

/* Append a call of target (`torch.ops.aten.mm.default`,
 * `operator.getitem`, `operator.mul`, or any dotted Python callable) to
 * npos positional arguments args[0..npos) and nkw keyword arguments
 * kwnames[i] = kwargs[i].  name NULL: a fresh name derived from the
 * target, as PyTorch derives them (`mm`, `mm_1`, ...).  meta may be NULL.
 * The op id is looked up in the op table from the target; when the table
 * knows the op, the arguments are checked against its schema
 * (SC_ERR_TYPE) and its shape rule runs: metadata that contradicts it is
 * SC_ERR_SHAPE, NULL metadata takes the inferred result. */
sc_status sc_graph_add_call(sc_graph *g, const char *name,
                            const char *target, size_t npos,
                            const sc_value *args, size_t nkw,
                            const char *const *kwnames,
                            const sc_value *kwargs, const sc_result *meta,
                            sc_node_id *out, sc_error *err);

/* Set the outputs: n node ids (SC_NODE_NONE for None).  num_fwd_outputs
 * <= n.  Replaces earlier outputs. */
sc_status sc_graph_set_outputs(sc_graph *g, size_t n, const sc_node_id *ids,
                               size_t num_fwd_outputs, sc_error *err);

/* Validate the whole graph (SSA order, unique names, argument kinds,
 * getitem indices, outputs) and build the users index.  Must be called
 * after the last change and before the users queries; the reader calls
 * it.  Time: linear in the size of the graph. */
sc_status sc_graph_finish(sc_graph *g, sc_error *err);

/* ---- Queries ----------------------------------------------------------- */

size_t sc_graph_node_count(const sc_graph *g);
size_t sc_graph_primal_count(const sc_graph *g);
size_t sc_graph_tangent_count(const sc_graph *g);
/* Placeholders are nodes 0 .. num_placeholders - 1, in the text's order
 * (PyTorch's: primals, then tangents); sc_graph_node_role tells which. */
size_t sc_graph_placeholder_count(const sc_graph *g);

/* The node named name, or SC_NODE_NONE.  Time: O(1) expected. */
sc_node_id sc_graph_find(const sc_graph *g, const char *name);

/* For 0 <= id < num_nodes (anything else: a defensive default). */
sc_node_kind sc_graph_node_kind(const sc_graph *g, sc_node_id id);
sc_role sc_graph_node_role(const sc_graph *g, sc_node_id id);
const char *sc_graph_node_name(const sc_graph *g, sc_node_id id);
/* The target as written in Python ("torch.ops.aten.mm.default",
 * "operator.getitem"); NULL for placeholders. */
const char *sc_graph_node_target(const sc_graph *g, sc_node_id id);
/* The op's recompute class from the op table ("pointwise", "view",
 * "reduction", "compute_intensive", "random", "creation", "symbolic",
 * "other"), or NULL for placeholders and ops the table does not know. */
const char *sc_graph_node_class(const sc_graph *g, sc_node_id id);
/* Arguments: positional ones first, then keyword ones. */
size_t sc_graph_node_arg_count(const sc_graph *g, sc_node_id id);
size_t sc_graph_node_positional_count(const sc_graph *g, sc_node_id id);
const sc_value *sc_graph_node_arg(const sc_graph *g, sc_node_id id,
                                  size_t i);
/* The keyword of argument i, NULL for a positional one. */
const char *sc_graph_node_kwname(const sc_graph *g, sc_node_id id, size_t i);
/* The node's result description (pointers into the graph). */
void sc_graph_node_result(const sc_graph *g, sc_node_id id, sc_result *out);
/* The 1-based line the node was read from (0: built through the API). */
int sc_graph_node_line(const sc_graph *g, sc_node_id id);

/* Users of a node (each user once, in order), after sc_graph_finish;
 * NULL and *n = 0 before.  Uses by the output list are not users: see
 * sc_graph_node_output_use_count. */
const sc_node_id *sc_graph_node_users(const sc_graph *g, sc_node_id id,
                                      size_t *n);
size_t sc_graph_node_output_use_count(const sc_graph *g, sc_node_id id);

size_t sc_graph_output_count(const sc_graph *g);
size_t sc_graph_fwd_output_count(const sc_graph *g);
/* Output i: a node id or SC_NODE_NONE (None). */
sc_node_id sc_graph_output(const sc_graph *g, size_t i);

/* ---- Symbols and hints ------------------------------------------------- */

/* Every symbol that appears in the graph's metadata and arguments, and
 * every symbol with a hint (sc_graph_set_hint, a reader's hint option),
 * sorted by index, into out[0..cap); returns the count (which may exceed
 * cap).
 * Time: linear in the graph's metadata (each distinct expression once). */
size_t sc_graph_symbols(const sc_graph *g, sc_expr **out, size_t cap);

/* The hint of a symbol (its value seen while tracing).  A symbol without a
 * hint is unbacked.  Hints come from `# symcut: hint s0=8` lines, the read
 * options and the callers (sc_graph_set_hint replaces).  The hint lives in
 * the graph's shape environment (sc_env_symbol_hint, sc_env_set_hint) once
 * the environment knows the symbol, and the graph holds it only until
 * then (the reader and the shape rules register the symbols, a symbol with
 * a hint as backed).  A later sc_graph_set_hint changes the environment's
 * hint: its questions at the hints, and every graph sharing the
 * environment, see the new value; the guards recorded before are not
 * re-checked.  A value outside a backed symbol's range is refused
 * (SC_ERR_INVALID, the hint unchanged); an unbacked symbol stays unbacked
 * and keeps the value as its example value, which sc_graph_get_hint
 * returns. */
sc_status sc_graph_set_hint(sc_graph *g, sc_expr *symbol, int64_t value,
                            sc_error *err);
bool sc_graph_get_hint(const sc_graph *g, const sc_expr *symbol,
                       int64_t *out);

/* `# symcut: KEY VALUE...` lines other than hints, kept for the parts that
 * read them (e.g. `# symcut: params 4`): the text after the key of the
 * last such line, or NULL. */
const char *sc_graph_directive(const sc_graph *g, const char *key);
sc_status sc_graph_set_directive(sc_graph *g, const char *key,
                                 const char *value, sc_error *err);

/* Warnings the reader produced (unknown ops, ...), one line each. */
size_t sc_graph_warning_count(const sc_graph *g);
const char *sc_graph_warning(const sc_graph *g, size_t i);

/* ---- Comparison -------------------------------------------------------- */

enum {
    /* Strides and devices are compared only where both graphs have them
     * (an older-style annotation has neither). */
    SC_GRAPH_EQUAL_LENIENT_META = 1u << 0,
    /* Ignore node names (compare structure only). */
    SC_GRAPH_EQUAL_IGNORE_NAMES = 1u << 1
};

/* Are a and b the same graph: the same nodes in the same order with the
 * same kinds, roles, names, targets, arguments (floats by value and
 * repr), metadata, outputs and num_fwd_outputs?  Hints, directives,
 * warnings and the class name are not compared.  The graphs may use two
 * contexts (expressions then compare by their text).  When they differ and
 * why is non-NULL, a one-line reason is written there. */
bool sc_graph_equal(const sc_graph *a, const sc_graph *b, unsigned flags,
                    char *why, size_t why_size);

/* ---- Reading PyTorch's text ------------------------------------------- */

enum {
    /* Do not check `;  x = None` suffixes (by default a name used after
     * the line that released it is an error). */
    SC_GRAPH_READ_NO_LIVENESS_CHECK = 1u << 0,
    /* An op the op table does not know is an error (SC_ERR_UNSUPPORTED at
     * its line), not a warning. */
    SC_GRAPH_READ_STRICT = 1u << 1
};

typedef struct sc_graph_read_options {
    /* Number of forward outputs; negative: inferred (a joint graph: the
     * outputs minus one gradient per primal; a graph without tangents:
     * all outputs). */
    long num_fwd_outputs;
    unsigned flags;
    /* Hints that override the text's `# symcut: hint` lines (the
     * command line's --hint): hint_values[i] for hint_symbols[i].  They
     * seed the environment when the symbols are registered; afterwards
     * hints change through sc_graph_set_hint. */
    size_t nhints;
    sc_expr *const *hint_symbols;
    const int64_t *hint_values;
    /* The shape environment to register the graph's symbols in (kept,
     * not owned; it must use the same context and outlive the graph).
     * NULL: the graph creates and owns one when it has symbols.  A
     * symbol with a hint becomes a backed symbol, one without an unbacked
     * symbol (size-like when it is a size). */
    sc_env *env;
    /* Which graph of a text holding several (a TORCH_LOGS log, a
     * TORCH_TRACE log): its index in sc_graph_list_text's order ("2"), its
     * name ("0/0:joint"), a compile id ("1/0") or a kind ("backward",
     * "aot_backward_graph") when that picks one, or NULL for the only
     * one.  No match or several: SC_ERR_INVALID listing the choices. */
    const char *graph;
    /* The graph's kind; SC_GRAPH_KIND_UNKNOWN: detected (the framing, then
     * the signature and names). */
    sc_graph_kind kind;
    /* Metadata for placeholders that have no annotation (a `.code` graph):
     * input_names[i] gets the annotation input_types[i] ("f32[8, 16]",
     * "Sym(s0)"; see doc/graph.md).  A name that is not a placeholder, or
     * an annotated one, is SC_ERR_INVALID. */
    size_t ninputs;
    const char *const *input_names;
    const char *const *input_types;
    /* Progress of the read (NULL: none): phase "reading the graph", units
     * the bytes of the graph's text parsed (a call about every 64 KiB,
     * total the graph's length in the text; the last call, done == total,
     * after the graph passed sc_graph_finish). */
    sc_progress_fn progress;
    void *progress_user;
} sc_graph_read_options;

void sc_graph_read_options_init(sc_graph_read_options *opts);

/* Read a graph from text[0..len) (NUL bytes are an error).  filename
 * (may be NULL) names the text in errors, which carry line and column.
 * opts may be NULL (defaults).  On success *out is a new graph (the
 * caller frees it) that has passed sc_graph_finish; on failure *out is
 * NULL.  Warnings (unknown ops) are kept in the graph.  Time: linear in
 * the text. */
sc_status sc_graph_read_text(sc_ctx *ctx, const char *text, size_t len,
                             const char *filename,
                             const sc_graph_read_options *opts,
                             sc_graph **out, sc_error *err);
/* Same, reading the file at path. */
sc_status sc_graph_read_file(sc_ctx *ctx, const char *path,
                             const sc_graph_read_options *opts,
                             sc_graph **out, sc_error *err);

/* The graphs a text holds, as the reader finds them (sc_graph_read_text
 * reads one of them). */
typedef struct sc_graph_listing sc_graph_listing;

typedef struct sc_graph_listing_entry {
    const char *name;       /* "0/0:joint", "forward", "GraphModule", ... */
    sc_graph_kind kind;     /* from the framing; UNKNOWN if it says nothing */
    const char *compile_id; /* "0/0", or "" */
    const char *title;      /* the banner's or trace record's words, or "" */
    const char *class_name; /* "" for a bare def */
    int line;               /* of the class or def line */
    const char *static_inputs; /* "0,1,3" from the log, or NULL */
} sc_graph_listing_entry;

/* List the graphs of text[0..len) (file names it in errors): *out is a
 * new listing (sc_graph_listing_free).  Errors, located: framing not
 * followed by a graph, bad JSON in a trace, no graph.  Time: linear. */
sc_status sc_graph_list_text(const char *text, size_t len, const char *file,
                             sc_graph_listing **out, sc_error *err);
size_t sc_graph_listing_count(const sc_graph_listing *l);
/* Entry i < count (pointers valid while the listing lives). */
void sc_graph_listing_entry_get(const sc_graph_listing *l, size_t i,
                                sc_graph_listing_entry *out);
/* Whether the text is a TORCH_TRACE log. */
bool sc_graph_listing_is_trace(const sc_graph_listing *l);
void sc_graph_listing_free(sc_graph_listing *l);

/* ---- Writing ----------------------------------------------------------- */

enum {
    /* No `;  x = None` suffixes. */
    SC_GRAPH_WRITE_NO_LIVENESS = 1u << 0,
    /* No `# symcut:` lines for hints and directives. */
    SC_GRAPH_WRITE_NO_DIRECTIVES = 1u << 1
};

typedef struct sc_graph_write_options {
    unsigned flags;
    const char *class_name; /* NULL: the graph's */
} sc_graph_write_options;

void sc_graph_write_options_init(sc_graph_write_options *opts);

/* Write g in the newer print_readable style into a new malloc'ed,
 * NUL-terminated string *out (length in *len if non-NULL; free with
 * free()).  sc_graph_read_text of the text gives a graph equal to g.
 * opts may be NULL. */
sc_status sc_graph_write_text(const sc_graph *g,
                              const sc_graph_write_options *opts, char **out,
                              size_t *len, sc_error *err);
/* Same, to a stream (SC_ERR_IO on a write error). */
sc_status sc_graph_write_stream(const sc_graph *g,
                                const sc_graph_write_options *opts,
                                FILE *stream, sc_error *err);

/* A node's fill color for DOT (an X11/SVG color name or "#rrggbb"), or
 * NULL for the default. */
typedef const char *(*sc_graph_color_fn)(const sc_graph *g, sc_node_id id,
                                         void *user);

typedef struct sc_graph_dot_options {
    sc_graph_color_fn color; /* NULL: by role (primals, tangents, calls) */
    void *user;
    const char *title;       /* NULL: the class name */
    /* Draw only the nodes at most around_depth edges (arguments and users
     * both ways) from around; SC_NODE_NONE (the default): every node. */
    sc_node_id around;
    size_t around_depth;     /* default 2 */
} sc_graph_dot_options;

/* Defaults: colors by role, the class name as title, every node. */
void sc_graph_dot_options_init(sc_graph_dot_options *opts);

/* Write g as a Graphviz digraph: one box per node labelled with its name,
 * op and shape, edges producer -> user, an output node and a drawn legend.
 * SC_ERR_INVALID for an around node out of range. */
sc_status sc_graph_write_dot(const sc_graph *g,
                             const sc_graph_dot_options *opts, char **out,
                             size_t *len, sc_error *err);

/* ---- Autodiff: joint graphs from forward graphs ------------------------
 * See doc/autodiff.md: the op table's derivative formulas, compiled to C at
 * build time, emit the backward nodes. */

typedef struct sc_joint_options {
    /* requires_grad of each primal, in placeholder order
     * (nrequires_grad == sc_graph_placeholder_count(fwd)); NULL: every
     * floating-point tensor primal requires grad, others do not (a true
     * flag on a non-floating primal is ignored). */
    size_t nrequires_grad;
    const bool *requires_grad;
    unsigned flags; /* reserved: 0 */
    /* Progress of the build (NULL: none): phase "building the joint
     * graph", units the forward nodes copied and then the forward nodes
     * differentiated (total twice the forward's call nodes). */
    sc_progress_fn progress;
    void *progress_user;
} sc_joint_options;

void sc_joint_options_init(sc_joint_options *opts);

/* Build the joint graph of the forward graph fwd (placeholders = primals,
 * outputs = forward outputs) the way AOTAutograd does: one tangent per
 * differentiable forward output, backward nodes emitted from the op
 * table's derivative formulas, gradients summed where a value has several
 * users, None for primals that need no gradient.  Outputs: the forward
 * outputs, then one gradient per primal.  Placeholders and nodes are
 * named as PyTorch names them (primals_1.., tangents_1.., mm, mm_1, ..).
 * Tangents have the outputs' sizes and contiguous strides; a broadcast
 * input's gradient is reduced with sum.dim_IntList(keepdim) + view, on
 * symbolic sizes.  *out shares fwd's context and shape environment (fwd's
 * environment must outlive it) and has passed sc_graph_finish.  On failure
 * *out is NULL; an op without a derivative formula that a gradient must
 * cross is SC_ERR_UNSUPPORTED naming the node and the op; a graph that
 * already has tangents, or a mask of the wrong length, SC_ERR_INVALID.
 * Time: linear in the size of the joint graph. */
sc_status sc_graph_new_joint(const sc_graph *fwd, const sc_joint_options *opts,
                             sc_graph **out, sc_error *err);

/* The requires_grad flag of every node of the forward graph fwd as
 * sc_graph_new_joint decides it, into out[0 .. sc_graph_node_count(fwd)):
 * primals from opts (NULL: every floating-point tensor primal), then
 * propagated through the ops (an op with derivative formulas requires grad
 * when an input with a formula does; not_differentiable ops and
 * non-floating results never do).  The gradient outputs of the joint graph
 * are None exactly for the primals whose flag is false (or that no
 * gradient reaches).  SC_ERR_INVALID for a bad mask length. */
sc_status sc_graph_requires_grad(const sc_graph *fwd,
                                 const sc_joint_options *opts, bool *out,
                                 sc_error *err);

/* ---- Random graphs -----------------------------------------------------
 * See doc/random.md. */

/* What the generator may draw (sc_graph_random_options.features).  Plain
 * pointwise ops (unary, binary with equal shapes, scalar) are always on. */
enum {
    SC_RANDOM_BROADCAST = 1u << 0,      /* binary ops on broadcast shapes */
    SC_RANDOM_VIEWS = 1u << 1,          /* t, transpose, permute, view,
                                           reshape, unsqueeze, squeeze,
                                           slice, select, expand */
    SC_RANDOM_MULTI_OUTPUT = 1u << 2,   /* split, unbind (+ getitem) */
    SC_RANDOM_RANDOM_OPS = 1u << 3,     /* native_dropout, rand_like,
                                           bernoulli */
    SC_RANDOM_DATA_DEPENDENT = 1u << 4, /* nonzero: an unbacked size */
    SC_RANDOM_REDUCTIONS = 1u << 5,     /* sum, mean, amax */
    SC_RANDOM_MATMUL = 1u << 6,         /* mm, bmm, addmm */
    SC_RANDOM_CREATION = 1u << 7,       /* zeros_like, ones_like, full_like */
    SC_RANDOM_SYMINTS = 1u << 8,        /* sym_size nodes as view sizes */
    SC_RANDOM_UNUSED_INPUTS = 1u << 9,  /* primals nothing reads */
    SC_RANDOM_SEVERAL_OUTPUTS = 1u << 10, /* more than one forward output */
    SC_RANDOM_NORMS = 1u << 11,         /* _softmax, _log_softmax,
                                           native_layer_norm (+ getitem) */
    SC_RANDOM_JOIN = 1u << 12,          /* cat, stack, where, masked_fill */
    SC_RANDOM_ALL = (1u << 13) - 1
};

typedef struct sc_graph_random_options {
    uint64_t seed;
    size_t nodes;      /* the number of call nodes to aim for (0: 8) */
    bool symbolic;     /* symbolic sizes (with hints) instead of constants */
    unsigned features; /* SC_RANDOM_* bits; 0: all */
    /* Ops never to draw, by their op-table names ("abs.default",
     * "sum.dim_IntList", "operator.getitem"): e.g. the ops sc_graph_new_joint
     * has no derivative formula for.  Not copied. */
    size_t nexclude;
    const char *const *exclude;
    /* Progress of the draw (NULL: none): phase "drawing the forward
     * graph", units the call nodes drawn of `nodes` (a draw that starts
     * over reports from 0 again). */
    sc_progress_fn progress;
    void *progress_user;
} sc_graph_random_options;

/* seed 0, nodes 8, concrete sizes, all features. */
void sc_graph_random_options_init(sc_graph_random_options *opts);

/* A random forward graph drawn from the op table (deterministic in the
 * options), in ctx: 1-4 f32 primals (named arg0_1, ...; sizes 1..6, or
 * with `symbolic` symbols s0.. with hints 2..8 mixed with small
 * constants, registered in the graph's own shape environment), then about
 * opts->nodes call nodes built through sc_graph_add_call with inferred
 * metadata (a draw the shape rules reject is dropped and redrawn), then the
 * outputs: the last tensor drawn and, with SC_RANDOM_SEVERAL_OUTPUTS,
 * others.  At least one output requires grad (sc_graph_requires_grad,
 * every primal requiring it), so its sc_graph_new_joint has a tangent:
 * when none would, the most recent call value that requires grad (or a
 * unary call on the first primal) becomes the first output.  The graph
 * has passed sc_graph_finish.  *out is NULL on
 * failure (SC_ERR_NOMEM; SC_ERR_INVALID for bad options). */
sc_status sc_graph_new_random(sc_ctx *ctx, const sc_graph_random_options *opts,
                              sc_graph **out, sc_error *err);

/* ---- Cost of computing a node ------------------------------------- */

/* What computing one node once costs, with its sizes evaluated at
 * given symbol values (doc/graph.md, "Cost"). */
typedef struct sc_node_cost {
    uint64_t flops; /* floating-point operations (a multiply-add is 2) */
    uint64_t bytes; /* bytes the node reads and writes */
    uint64_t cost;  /* the recompute cost: flops weighted above bytes */
} sc_node_cost;

/* The cost of node id of g, every symbol of its sizes bound by binding
 * (e.g. the hints).  Nodes that compute nothing (placeholders, outputs,
 * getitem, sym_size) cost 0.  SC_ERR_UNBOUND when a size does not
 * evaluate; SC_ERR_LIMIT when a figure exceeds 2^63. */
sc_status sc_node_cost_eval(const sc_graph *g, sc_node_id id,
                            const sc_symmap *binding,
                            sc_node_cost *out, sc_error *err);

/* The weight of a FLOP in sc_node_cost.cost: cost = W * flops + bytes
 * (+ 1 for every node that runs a kernel), W = SC_NODE_COST_FLOP_WEIGHT. */
#define SC_NODE_COST_FLOP_WEIGHT 8

#ifdef __cplusplus
}
#endif

#endif /* SYMCUT_GRAPH_H */
