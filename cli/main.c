/* symcut — the command-line tool: dispatch to subcommands. */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/progress.h"

static const struct {
    const char *name;
    cli_command_fn fn;
    const char *summary;
} commands[] = {
    {"expr", cli_cmd_expr, "simplify, evaluate or bound symbolic integer expressions"},
    {"env", cli_cmd_env, "run a shape-environment script (symbols, guards, asserts)"},
    {"graph", cli_cmd_graph, "read a PyTorch graph text: summary, re-print, DOT"},
    {"partition", cli_cmd_partition, "split a joint graph into forward and backward (min cut)"},
    {"joint", cli_cmd_joint, "build the joint forward/backward graph of a forward graph"},
    {"run", cli_cmd_run, "execute a graph with the CPU kernels; output checksums"},
    {"validate", cli_cmd_validate, "check a forward/backward pair against its joint graph"},
    {"gradcheck", cli_cmd_gradcheck, "check a joint graph's gradients with finite differences"},
    {"pareto", cli_cmd_pareto, "the exact memory/recompute frontier of a joint graph"},
    {"random", cli_cmd_random, "print a random joint (or forward) graph drawn from the op table"},
};

#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *out)
{
    size_t i;
    fprintf(out,
            "Usage: symcut COMMAND [ARGS...]\n"
            "       symcut --version | --help\n"
            "\n"
            "Symbolic shapes and min-cut partitioning for ML compiler front ends.\n"
            "\n"
            "Commands:\n");
    for (i = 0; i < NCOMMANDS; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(out,
            "\n"
            "Run 'symcut COMMAND --help' for a command's options.  Every\n"
            "command takes -q (--quiet: only errors on standard error) and\n"
            "-v (--verbose: each phase's time and size, and the total).\n"
            "\n"
            "Exit status: 0 success; 1 bad command line; 2 bad input, or an\n"
            "error reading or writing (standard output included); 3 a check\n"
            "that failed (validate or gradcheck FAIL, an env 'test' that\n"
            "fails).\n");
}

static int dispatch(int argc, char **argv)
{
    size_t i;

    while (argc > 1 && (cli_verbosity_option(argv[1]) ||
                        cli_progress_option(argv[1]))) /* symcut -v CMD */
        argv++, argc--;
    if (argc < 2) {
        usage(stderr);
        return CLI_EXIT_USAGE;
    }
    if (cli_is_help(argv[1])) {
        usage(stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
        printf("symcut %s (library %s)\n", PACKAGE_VERSION, sc_version());
        return CLI_EXIT_OK;
    }
    for (i = 0; i < NCOMMANDS; i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].fn(argc - 1, argv + 1);
    cli_errorf("unknown command '%s'", argv[1]);
    usage(stderr);
    return CLI_EXIT_USAGE;
}

/* Every command, --help and --version included, fails when its standard
 * output could not be written. */
int main(int argc, char **argv)
{
    cli_start_clock();
    cli_progress_start();
    return cli_finish_stdout(dispatch(argc, argv));
}
