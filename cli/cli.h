/* symcut — the command-line tool: shared declarations of the subcommands
 * and their helpers (messages and files in util.c, the option tables in
 * options.c, reading a command's graph in load.c).
 *
 * Included by cli/ sources only, and by tests/check_badinput.c (which
 * links cli/util.c). */
#ifndef SYMCUT_CLI_H
#define SYMCUT_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <symcut.h>

/* Exit statuses, documented in the README and in every `--help`. */
enum {
    CLI_EXIT_OK = 0,    /* success */
    CLI_EXIT_USAGE = 1, /* bad command line (an option or its value) */
    CLI_EXIT_INPUT = 2, /* bad input, or an error reading or writing a
                         * file or standard output */
    CLI_EXIT_CHECK = 3  /* the input was good and a check it asked for
                         * failed: validate and gradcheck FAIL, an env
                         * `test` that fails */
};

/* The "Exit status" paragraph of the --help of a command whose checks can
 * fail (with the status 3 line) or not. */
#define CLI_EXIT_HELP                                                        \
    "Exit status: 0 success; 1 bad command line; 2 bad input, or an error\n" \
    "reading or writing (standard output included)"
#define CLI_EXIT_HELP_CHECK CLI_EXIT_HELP "; 3 the check failed"

/* After a command: flush and close standard output.  rc unless that
 * failed: then the error is printed and the status is CLI_EXIT_INPUT (or
 * rc when it already reports a failure). */
int cli_finish_stdout(int rc);

/* A subcommand: argv[0] is the subcommand's name. */
typedef int (*cli_command_fn)(int argc, char **argv);

int cli_cmd_expr(int argc, char **argv);
int cli_cmd_env(int argc, char **argv);
int cli_cmd_graph(int argc, char **argv);
int cli_cmd_partition(int argc, char **argv);
int cli_cmd_run(int argc, char **argv);
int cli_cmd_validate(int argc, char **argv);
int cli_cmd_joint(int argc, char **argv);
int cli_cmd_gradcheck(int argc, char **argv);
int cli_cmd_random(int argc, char **argv);
int cli_cmd_pareto(int argc, char **argv);

/* The joint graph of a forward graph read from file (the step --forward
 * of partition, validate and gradcheck): no_grad (may be NULL) is a
 * comma-separated list of primals that need no gradient.  NULL after
 * reporting the error. */
sc_graph *cli_joint_of_forward(const sc_graph *fwd, const char *file,
                               const char *no_grad);
/* Give err the line of the node of g its message names, in file. */
void cli_locate_error(const sc_graph *g, const char *file, sc_error *err);

/* "symcut: <message>" on stderr. */
void cli_errorf(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* Verbosity, the same for every command: -q (--quiet) prints only
 * errors (cli_errorf drops messages starting "warning: " or "note: "),
 * -v (--verbose) each phase's time and size as it finishes and the total
 * at the end.  cli_parse_options takes the options anywhere in a
 * command's options (true: arg was one). */
bool cli_verbosity_option(const char *arg);
/* -1 quiet, 0 normal, 1 verbose. */
int cli_verbosity(void);
/* Start the clock of -v (main does, before the command). */
void cli_start_clock(void);
/* With -v: "symcut: <message> (T s)", T the time since the previous
 * phase ended (or the clock started). */
void cli_phasef(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* Unless -q: "symcut: <message>" on stderr (notes). */
void cli_noticef(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* "symcut: file:line:col: message" on stderr. */
void cli_report(const sc_error *err);
/* A usage error: prints the message and "try 'symcut CMD --help'"; returns
 * CLI_EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
bool cli_is_help(const char *arg);

/* SC_ERR_IO with a message saying so when path names a directory (an
 * input must be a file); SC_OK otherwise ("-" and paths that do not exist
 * included: opening them reports those). */
sc_status cli_check_input_file(const char *path, sc_error *err);

/* Read a whole file ("-" is stdin) into a NUL-terminated malloc'ed buffer;
 * NULL with err filled on failure (also for a file containing NUL bytes,
 * and for a directory). */
char *cli_read_file(const char *path, size_t *len, sc_error *err);

/* Read a graph file ("-" is stdin) with the reader options (NULL:
 * defaults); on failure print the located error and return NULL. */
sc_graph *cli_read_graph(sc_ctx *ctx, const char *path,
                         const sc_graph_read_options *opts);

/* Write data to path, or to stdout when path is NULL or "-": see
 * cli_write_files. */
sc_status cli_write_file(const char *path, const char *data, size_t len,
                         sc_error *err);
/* Write n outputs at once (paths[i] NULL or "-": standard output).  A
 * regular file, or a path where nothing exists, is replaced atomically: a
 * symlink is followed to its final target (the link stays a link), the
 * data goes to a new file beside the target (with the mode of the file it
 * replaces, else the mode the umask gives), renamed into place last, when
 * everything else is written.  Anything else (a device, a FIFO, a socket,
 * a link into /proc such as /dev/stdout) is opened and written through,
 * then standard output is written.  A directory is an error.  On failure
 * nothing is left at any regular file's path (short of a rename failing
 * after another succeeded); what was written through stays written. */
sc_status cli_write_files(size_t n, const char *const *paths,
                          const char *const *data, const size_t *lens,
                          sc_error *err);

/* Parse "name=value,name=value" assignments of integers (value may be any
 * size) into the binding, creating the symbols in ctx. */
sc_status cli_parse_bindings(sc_ctx *ctx, const char *text, sc_symmap *map,
                             sc_error *err);

/* The --hint values of a command: syms[i] = values[i], in the form the
 * graph reader's options take them.  Zero-initialise; free with
 * cli_hints_free. */
typedef struct cli_hints {
    sc_expr **syms;
    int64_t *values;
    size_t n, cap;
} cli_hints;

/* Append "s0=8,s1=64" to h (a later value for a symbol replaces the
 * earlier one).  A value is a size PyTorch can have for a symbol: an
 * int64 of at least 2 (PyTorch specializes sizes 0 and 1).  false with a
 * message in msg, naming the item and the rule, on a bad item. */
bool cli_parse_hints(sc_ctx *ctx, const char *text, cli_hints *h, char *msg,
                     size_t msgsize);
void cli_hints_free(cli_hints *h);

/* Check that every NAME of a "NAME=...,NAME=..." option text (--hint,
 * --sizes) is a symbol of g: 0 if so, else print a usage error naming
 * the first unknown one and the graph's symbols, and return the usage
 * exit status. */
int cli_check_symbol_names(const sc_graph *g, const char *cmd,
                           const char *opt, const char *text);
/* The same for the symbols of parsed --hint options; then, at the hints
 * (g's, overridden by h), a tensor whose element or byte count does not
 * fit in int64 whose sizes use a symbol of h is a usage error too. */
int cli_check_hint_names(const sc_graph *g, const char *cmd,
                         const cli_hints *h);
/* Parse "name=LO..HI[,name=LO..HI]" (an empty side is infinity) into
 * bounds. */
sc_status cli_parse_ranges(sc_ctx *ctx, const char *text, sc_bounds *bounds,
                           sc_error *err);

/* ---- Options: every command declares a table of them ------------------ */

/* What an option's value is and where it goes (dest). */
typedef enum cli_opt_kind {
    CLI_OPT_FLAG,   /* no value: *(bool *)dest = true */
    CLI_OPT_BITS,   /* no value: *(unsigned *)dest |= bits */
    CLI_OPT_TEXT,   /* a path or a text kept as given (parsed later):
                     * *(const char **)dest; the last one wins */
    CLI_OPT_LIST,   /* NAME=VALUE,... kept as text (parsed later), the
                     * values of every occurrence joined by commas into
                     * *(cli_list *)dest; an item of a later occurrence
                     * replaces an earlier one of the same NAME */
    CLI_OPT_HINTS,  /* SYMBOL=VALUE,...: appended to *(cli_hints *)dest
                     * (cli_parse_hints; a later value for a symbol
                     * replaces); bad: "OPT: message" */
    CLI_OPT_COUNT,  /* a non-negative decimal: *(long *)dest */
    CLI_OPT_UINT,   /* an unsigned integer in C syntax (0x.. and 0..
                     * too) from min to max: *(uint64_t *)dest */
    CLI_OPT_NUMBER, /* a finite number >= 0 (> 0 when min is 1):
                     * *(double *)dest */
    CLI_OPT_CHOICE, /* one of choices: *(const char **)dest */
    CLI_OPT_CALL,   /* a value that fn parses into dest */
    CLI_OPT_ACTION  /* no value: fn(..., NULL, dest) */
} cli_opt_kind;

struct cli_syntax;

/* The text of a CLI_OPT_LIST option: NULL when not given, else malloc'ed;
 * zero-initialise, free with cli_list_free. */
typedef struct cli_list {
    char *text;
} cli_list;

void cli_list_free(cli_list *l);

/* One option.  A command's options are an array of them; `--name value`
 * and `--name=value` are the same, a short name takes `-o value` only.
 * Every value is checked where it appears, in the order of the command
 * line, so the first bad argument is the one reported. */
typedef struct cli_opt {
    const char *name;       /* "--seed", or NULL */
    const char *short_name; /* "-o", or NULL */
    cli_opt_kind kind;
    void *dest;
    /* The usage error of a bad value: a format that receives the value
     * (it may leave it out).  Not used by CLI_OPT_HINTS, CALL and ACTION,
     * whose parsers print their own. */
    const char *bad;
    /* The usage error of a missing value, receiving the option as typed;
     * NULL: the command's (cli_syntax.needs_value). */
    const char *needs_value;
    uint64_t min, max; /* CLI_OPT_UINT; CLI_OPT_NUMBER: min 1 is > 0 */
    unsigned bits;     /* CLI_OPT_BITS */
    const char *const *choices; /* CLI_OPT_CHOICE: NULL-terminated */
    /* CLI_OPT_CALL, CLI_OPT_ACTION: parse value (NULL for an ACTION) into
     * o->dest; 0 or the exit status after printing the error. */
    int (*fn)(const struct cli_syntax *syn, const struct cli_opt *o,
              const char *value);
    bool *seen; /* may be NULL: set when the option is given */
} cli_opt;

/* A command's command line: its options, its arguments, its messages. */
typedef struct cli_syntax {
    const char *cmd;          /* "partition": for "Try 'symcut CMD --help'" */
    void (*usage)(FILE *out); /* --help, -h */
    const cli_opt *opts;
    size_t nopts;
    sc_ctx *ctx;              /* the context of CLI_OPT_HINTS symbols */
    const char *needs_value;  /* the option as typed; NULL:
                               * "%s needs a value" */
    const char *unknown;      /* the argument; NULL: "unknown option '%s'" */
    int max_args;             /* arguments that are not options */
    const char *too_many;     /* one more than max_args (the argument) */
    bool args_last;           /* an argument must be the last one: else
                               * too_many */
    /* Options come first: the first argument that is not one, or the
     * ones after "--", and all that follow are arguments; "-x" is then an
     * argument too (only "--x" is an unknown option). */
    bool options_first;
} cli_syntax;

/* What is left of the command line once the options are parsed. */
typedef struct cli_args {
    const char *args[2]; /* the first max_args (at most 2) arguments */
    int nargs;
    int rest; /* options_first: argv[rest..] are the arguments */
} cli_args;

/* The number of entries of an option table. */
#define CLI_NOPTS(opts) (sizeof(opts) / sizeof((opts)[0]))

/* cli_parse_options: the command line is parsed, go on. */
#define CLI_PARSED (-1)

/* Parse argv[first..] by syn: CLI_PARSED, or the exit status to return
 * (CLI_EXIT_OK after printing the help, CLI_EXIT_USAGE or CLI_EXIT_INPUT
 * after printing the error). */
int cli_parse_options(const cli_syntax *syn, int argc, char **argv, int first,
                      cli_args *out);

/* A CLI_OPT_CALL parser: a partitioner policy name into
 * *(sc_partition_policy *)o->dest; bad: o->bad. */
int cli_policy_option(const cli_syntax *syn, const cli_opt *o,
                      const char *value);

/* --params: a count N (the first N primals are parameters) or primal
 * indices I,J,... (a list has a comma; "3," is the single index 3). */
typedef struct cli_params {
    long count; /* -1: not given, or a list */
    size_t n;   /* the list's length */
    size_t idx[256];
} cli_params;

/* A CLI_OPT_CALL parser of --params into *(cli_params *)o->dest (whose
 * count the caller sets to -1 first). */
int cli_params_option(const cli_syntax *syn, const cli_opt *o,
                      const char *value);
/* 0, or a usage error of cmd when pa names primals beyond the graph's
 * nprimals. */
int cli_params_check(const char *cmd, const cli_params *pa, size_t nprimals);
/* Set opts' num_params / param_indices from pa (which must outlive
 * opts' use). */
void cli_params_apply(const cli_params *pa, sc_partition_options *opts);

/* The partitioner's ban-rule options, shared by partition and validate:
 * --rule-off NAME[,NAME] (repeatable), --aggressive-recomputation,
 * --max-dist-from-bw N, --long-chain-limit N, --unbacked-fallback N, parsed
 * into opts.  given receives the first rule option seen (not
 * --unbacked-fallback, which applies to every policy), any the first of
 * all five. */
typedef struct cli_rules {
    sc_partition_options *opts;
    const char *given;
    const char *any;
} cli_rules;

int cli_partition_rule_option(const cli_syntax *syn, const cli_opt *o,
                              const char *value);

/* The five table entries of those options, parsing into r (a cli_rules
 * pointer). */
#define CLI_PARTITION_RULE_OPTIONS(r)                                        \
    {.name = "--rule-off", .kind = CLI_OPT_CALL, .dest = (r),                \
     .needs_value = "%s needs a value", .fn = cli_partition_rule_option},    \
    {.name = "--aggressive-recomputation", .kind = CLI_OPT_ACTION,          \
     .dest = (r), .fn = cli_partition_rule_option},                          \
    {.name = "--max-dist-from-bw", .kind = CLI_OPT_CALL, .dest = (r),        \
     .needs_value = "%s needs a value", .fn = cli_partition_rule_option},    \
    {.name = "--long-chain-limit", .kind = CLI_OPT_CALL, .dest = (r),        \
     .needs_value = "%s needs a value", .fn = cli_partition_rule_option},    \
    {.name = "--unbacked-fallback", .kind = CLI_OPT_CALL, .dest = (r),       \
     .needs_value = "%s needs a value", .fn = cli_partition_rule_option}

/* After parsing: a usage error (returned) if a rule option was given with
 * the pytorch-1.13 policy, which has none of those rules; else 0. */
int cli_check_partition_rules(const char *cmd, const cli_rules *r);
/* The --help lines of those options. */
void cli_partition_rules_help(FILE *out);

/* ---- Reading a command's graph ----------------------------------------- */

/* How a command reads its GRAPH: cli_load_init, then set what applies. */
typedef struct cli_load {
    const char *cmd;       /* for the usage errors */
    bool plain_path;       /* read with sc_graph_read_file: "-" is a file
                            * name, not standard input */
    long num_fwd_outputs;  /* the reader's option; -1: its default */
    const cli_hints *hints; /* --hint for the reader, or NULL */
    const char *sizes_text; /* --sizes (NULL: none): its names must be
                             * symbols of the graph */
    const char *hint_text;  /* --hint kept as text (NULL: none): the same */
    bool forward;           /* the file is a forward graph: build its joint
                             * graph (cli_joint_of_forward) */
    const char *no_grad;    /* with forward: primals without a gradient */
} cli_load;

void cli_load_init(cli_load *l, const char *cmd);

/* Read the graph file with l's options, check the symbol names of the
 * options against it and, with l->forward, build its joint graph.  0 with
 * *graph the graph to work on (the joint graph with l->forward) and *read
 * the forward graph read with l->forward (else NULL; both the caller's to
 * free); or the exit status
 * after printing the error (CLI_EXIT_USAGE for an option naming an unknown
 * symbol, else CLI_EXIT_INPUT), with nothing left to free. */
int cli_load_graph(sc_ctx *ctx, const char *file, const cli_load *l,
                   sc_graph **graph, sc_graph **read);

/* Write the frontier f as the SVG plot of 'symcut pareto --format svg'
 * (saved MB against recompute GFLOPs: hull vertices, budgets' points,
 * the default cut, and under pytorch-2.13 torch 2.13's own memory-budget
 * decisions at 0.05, 0.10, ..., 0.95) to out, titled title, for an HTML
 * report to embed.  0, or CLI_EXIT_INPUT after printing the error. */
int cli_pareto_write_svg(FILE *out, const sc_frontier *f, const char *title);

#endif /* SYMCUT_CLI_H */
