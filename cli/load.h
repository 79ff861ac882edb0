/* symcut — the reading options every command that reads a graph shares
 * (--graph, --role, --strict, --input-type) and the loader that applies
 * them (cli/load.c).  Included by cli/ sources only. */
#ifndef SYMCUT_CLI_LOAD_H
#define SYMCUT_CLI_LOAD_H

#include "cli/cli.h"

/* The values of the reading options: zero-initialise; free with
 * cli_reading_free. */
typedef struct cli_reading {
    const char *graph; /* --graph N|NAME: which graph of the file */
    const char *role;  /* --role joint|forward|backward|inference */
    bool strict;       /* --strict: an unknown op is an error */
    /* --input-type NAME=ANNOTATION (repeatable): metadata for
     * placeholders without annotation */
    char **input_names, **input_types;
    size_t ninputs, inputs_cap;
    /* --num-fwd-outputs N, for the commands whose own options lack it
     * (CLI_READING_NFWD_OPTION) */
    long num_fwd_outputs;
    bool num_fwd_outputs_given;
} cli_reading;

/* A CLI_OPT_CALL parser: NAME=ANNOTATION[;NAME=ANNOTATION...] appended to
 * the cli_reading at o->dest. */
int cli_input_type_option(const cli_syntax *syn, const cli_opt *o,
                          const char *value);

extern const char *const cli_role_choices[];

/* The option-table entries of the reading options, parsing into r (a
 * cli_reading pointer). */
#define CLI_READING_OPTIONS(r)                                               \
    {.name = "--graph", .kind = CLI_OPT_TEXT, .dest = &(r)->graph},          \
    {.name = "--role", .kind = CLI_OPT_CHOICE, .dest = &(r)->role,           \
     .choices = cli_role_choices,                                            \
     .bad = "--role must be joint, forward, backward or inference, "         \
            "not '%s'"},                                                     \
    {.name = "--strict", .kind = CLI_OPT_FLAG, .dest = &(r)->strict},        \
    {.name = "--input-type", .kind = CLI_OPT_CALL, .dest = (r),              \
     .needs_value = "%s needs NAME=ANNOTATION",                              \
     .fn = cli_input_type_option}

/* --num-fwd-outputs N into r, for a command that has no such option of
 * its own (it overrides the cli_load's). */
#define CLI_READING_NFWD_OPTION(r)                                           \
    {.name = "--num-fwd-outputs", .kind = CLI_OPT_COUNT,                     \
     .dest = &(r)->num_fwd_outputs,                                          \
     .bad = "--num-fwd-outputs needs a non-negative integer",                \
     .seen = &(r)->num_fwd_outputs_given}

/* The --help lines of those options. */
void cli_reading_help(FILE *out);

void cli_reading_free(cli_reading *r);

/* cli_load_graph with the reading options r (NULL: none).  A --graph that
 * matches no graph or several, or an --input-type naming no placeholder,
 * is a usage error (CLI_EXIT_USAGE) listing the choices.  The graph's
 * warnings (unknown ops) are printed on stderr, except for the command
 * `graph`, which summarizes them. */
int cli_load_graph_reading(sc_ctx *ctx, const char *file, const cli_load *l,
                           const cli_reading *r, sc_graph **graph,
                           sc_graph **read);

#endif /* SYMCUT_CLI_LOAD_H */
