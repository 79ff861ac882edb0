/* symcut — the one way into igraph: a section serialized by a
 * process-wide lock, with igraph's error, warning and fatal-error
 * handlers set for its duration (partition/igraph-section.c).
 * Included by partition/network.c and tests/check_threads.c only.  Not
 * installed. */
#ifndef SYMCUT_IGRAPH_SECTION_H
#define SYMCUT_IGRAPH_SECTION_H

#include <igraph.h>

#include <symcut/error.h>

/* The igraph work of a section: igraph calls on objects reachable from
 * arg, and nothing that can block or take the section again. */
typedef igraph_error_t sc__igraph_body(void *arg);

/* Run body(arg) as symcut's igraph section: under the process-wide lock,
 * with igraph's error handler igraph_error_handler_ignore (an error
 * frees igraph's temporaries and comes back as a status), warnings
 * ignored, and a fatal-error handler that long-jumps back here; the
 * handlers the calling thread had are restored before the lock is
 * released.  Returns SC_OK when body returned IGRAPH_SUCCESS;
 * SC_ERR_NOMEM for IGRAPH_ENOMEM; SC_ERR_INTERNAL naming `what` and
 * igraph's message for any other error and for a fatal error (whose
 * temporaries igraph may have left half-built are dropped from igraph's
 * FINALLY stack unfreed: a bounded leak, never a double free).  Every
 * igraph call of the library goes through here, vector operations
 * included: igraph built with IGRAPH_THREAD_SAFE 0 keeps its FINALLY
 * stack and its handlers in process globals.  Not reentrant: body must
 * not call sc__igraph_section. */
sc_status sc__igraph_section(sc__igraph_body *body, void *arg,
                             const char *what, sc_error *err);

#endif /* SYMCUT_IGRAPH_SECTION_H */
