/* symcut CLI — writing a graph's text to a file without holding all of
 * it in memory.  Included by cli/util.c and the commands that write a
 * graph.  Not installed. */
#ifndef SYMCUT_CLI_WRITE_GRAPH_H
#define SYMCUT_CLI_WRITE_GRAPH_H

#include <symcut/graph.h>

/* Write g's text (sc_graph_write_stream, opts as there) to path as
 * cli_write_file would write it: a regular file (or a path where nothing
 * exists) is replaced atomically, the text streamed into a new file
 * beside it in chunks of about a megabyte and renamed into place at the
 * end (nothing is left at path on failure); standard output (path NULL
 * or "-"), devices, FIFOs and /proc links get the whole text through
 * cli_write_file.  The -v lines are cli_write_file's. */
sc_status cli_write_graph(const char *path, const sc_graph *g,
                          const sc_graph_write_options *opts, sc_error *err);

#endif
