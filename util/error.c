/* symcut — status names and messages, and filling sc_error. */
#include <stdio.h>
#include <string.h>

#include "util/internal.h"

static const char *const status_names[] = {
#define SC__STATUS_NAME(name, msg) #name,
    SC_STATUS_MAP(SC__STATUS_NAME)
#undef SC__STATUS_NAME
};

static const char *const status_messages[] = {
#define SC__STATUS_MSG(name, msg) msg,
    SC_STATUS_MAP(SC__STATUS_MSG)
#undef SC__STATUS_MSG
};

const char *sc_status_name(sc_status status)
{
    if ((unsigned)status >= (unsigned)SC_STATUS_COUNT_)
        return "UNKNOWN";
    return status_names[status];
}

const char *sc_status_str(sc_status status)
{
    if ((unsigned)status >= (unsigned)SC_STATUS_COUNT_)
        return "unknown status";
    return status_messages[status];
}

void sc_error_init(sc_error *err)
{
    if (!err)
        return;
    err->code = SC_OK;
    err->message[0] = '\0';
    err->file[0] = '\0';
    err->line = 0;
    err->column = 0;
}

size_t sc_error_format(const sc_error *err, char *buf, size_t size)
{
    char loc[SC_ERROR_FILE_MAX + 48];
    int n = 0;
    const char *msg;

    loc[0] = '\0';
    if (err->file[0] && err->line > 0 && err->column > 0)
        snprintf(loc, sizeof loc, "%s:%d:%d: ", err->file, err->line,
                 err->column);
    else if (err->file[0] && err->line > 0)
        snprintf(loc, sizeof loc, "%s:%d: ", err->file, err->line);
    else if (err->line > 0 && err->column > 0)
        snprintf(loc, sizeof loc, "line %d, column %d: ", err->line,
                 err->column);
    else if (err->line > 0)
        snprintf(loc, sizeof loc, "line %d: ", err->line);
    else if (err->file[0])
        snprintf(loc, sizeof loc, "%s: ", err->file);
    msg = err->message[0] ? err->message : sc_status_str(err->code);
    n = snprintf(buf, size, "%s%s", loc, msg);
    return n < 0 ? 0 : (size_t)n;
}

sc_status sc__error_vset(sc_error *err, sc_status code, const char *fmt,
                         va_list ap)
{
    if (!err)
        return code;
    err->code = code;
    err->file[0] = '\0';
    err->line = 0;
    err->column = 0;
    if (fmt)
        vsnprintf(err->message, sizeof err->message, fmt, ap);
    else
        snprintf(err->message, sizeof err->message, "%s",
                 sc_status_str(code));
    return code;
}

sc_status sc__error_set(sc_error *err, sc_status code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sc__error_vset(err, code, fmt, ap);
    va_end(ap);
    return code;
}

sc_status sc__error_set_at(sc_error *err, sc_status code, const char *file,
                           int line, int column, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sc__error_vset(err, code, fmt, ap);
    va_end(ap);
    if (err) {
        snprintf(err->file, sizeof err->file, "%s", file ? file : "");
        err->line = line;
        err->column = column;
    }
    return code;
}

sc_status sc__error_nomem(sc_error *err)
{
    return sc__error_set(err, SC_ERR_NOMEM, "out of memory");
}
