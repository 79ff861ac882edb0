/* symcut — status codes and the caller-owned error object.
 *
 * Every fallible function of the library returns an sc_status and, when it
 * fails, fills an sc_error that the caller owns.  The list of statuses is
 * declared once, below, and expanded into the enum, sc_status_name() and
 * sc_status_str().
 */
#ifndef SYMCUT_ERROR_H
#define SYMCUT_ERROR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* X(NAME, message): the one list of statuses. */
#define SC_STATUS_MAP(X)                                                     \
    X(OK, "success")                                                         \
    X(ERR_NOMEM, "out of memory")                                            \
    X(ERR_INVALID, "invalid argument")                                       \
    X(ERR_PARSE, "syntax error")                                             \
    X(ERR_TYPE, "type error")                                                \
    X(ERR_DIV_ZERO, "division by zero")                                      \
    X(ERR_UNBOUND, "unbound symbol")                                         \
    X(ERR_OVERFLOW, "value does not fit")                                    \
    X(ERR_LIMIT, "limit exceeded")                                           \
    X(ERR_DATA_DEPENDENT, "data-dependent expression")                       \
    X(ERR_CONTRADICTION, "contradiction")                                    \
    X(ERR_GUARD, "guard failed")                                             \
    X(ERR_SHAPE, "shape mismatch")                                           \
    X(ERR_UNSUPPORTED, "unsupported operation")                              \
    X(ERR_IO, "input/output error")                                          \
    X(ERR_INTERNAL, "internal error")

typedef enum sc_status {
#define SC__STATUS_ENUM(name, msg) SC_##name,
    SC_STATUS_MAP(SC__STATUS_ENUM)
#undef SC__STATUS_ENUM
    SC_STATUS_COUNT_
} sc_status;

/* The symbolic name of a status ("ERR_PARSE"); "UNKNOWN" for a value that
 * is not a status. */
const char *sc_status_name(sc_status status);

/* A one-line description of a status ("syntax error"). */
const char *sc_status_str(sc_status status);

#define SC_ERROR_MESSAGE_MAX 512
#define SC_ERROR_FILE_MAX 256

/* A caller-owned error.  It needs no cleanup: it holds no pointers.
 * line and column are 1-based; 0 means "no location" (the error is not
 * about text input). */
typedef struct sc_error {
    sc_status code;
    char message[SC_ERROR_MESSAGE_MAX];
    char file[SC_ERROR_FILE_MAX];
    int line;
    int column;
} sc_error;

/* Reset an error to SC_OK, no message, no location. */
void sc_error_init(sc_error *err);

/* Write "file:line:column: message" (the parts that are set) into buf,
 * NUL-terminated and truncated to size.  Returns the length the full text
 * would have, like snprintf. */
size_t sc_error_format(const sc_error *err, char *buf, size_t size);

/* The two ways to propagate a failing status; every function uses one of
 * them.
 *
 * SC_CHECK(expr): when there is something to clean up.  `status` must be a
 * local sc_status and the function must have a `fail:` label that cleans
 * up and returns it.
 *
 * SC_TRY(expr): when there is nothing to clean up: return the failing
 * status at once. */
#define SC_CHECK(expr)                                                       \
    do {                                                                     \
        sc_status sc__check_status = (expr);                                 \
        if (sc__check_status != SC_OK) {                                     \
            status = sc__check_status;                                       \
            goto fail;                                                       \
        }                                                                    \
    } while (0)

#define SC_TRY(expr)                                                         \
    do {                                                                     \
        sc_status sc__try_status = (expr);                                   \
        if (sc__try_status != SC_OK)                                         \
            return sc__try_status;                                           \
    } while (0)

#ifdef __cplusplus
}
#endif

#endif /* SYMCUT_ERROR_H */
