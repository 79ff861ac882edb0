/* symcut — kernels: reading and writing NumPy .npy files (format 1.0, 2.0
 * and 3.0).  The header is a Python dict literal, parsed here by a small
 * recursive-descent reader that accepts exactly the subset NumPy writes
 * (and a little more whitespace and quoting freedom); every error names
 * the byte offset at which it was found. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernels/kernels-internal.h"

static const unsigned char npy_magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

static bool host_little_endian(void)
{
    const uint16_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 1;
}

typedef struct npy_parser {
    const unsigned char *buf; /* the whole file */
    size_t pos, end;          /* header bytes [pos, end) */
    const char *name;
    sc_error *err;
} npy_parser;

static sc_status npy_error(const char *name, sc_error *err, sc_status code,
                           size_t offset, const char *fmt, ...)
    SC__PRINTF(5, 6);

static sc_status npy_error(const char *name, sc_error *err, sc_status code,
                           size_t offset, const char *fmt, ...)
{
    char msg[SC_ERROR_MESSAGE_MAX - 40];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    sc__error_set(err, code, "npy: at byte %zu: %s", offset, msg);
    if (err && name)
        snprintf(err->file, sizeof err->file, "%s", name);
    return code;
}

#define PERR(p, ...) npy_error((p)->name, (p)->err, SC_ERR_PARSE, (p)->pos, \
                               __VA_ARGS__)

static void skip_ws(npy_parser *p)
{
    while (p->pos < p->end &&
           (p->buf[p->pos] == ' ' || p->buf[p->pos] == '\t' ||
            p->buf[p->pos] == '\n' || p->buf[p->pos] == '\r'))
        p->pos++;
}

static bool peek(npy_parser *p, char c)
{
    skip_ws(p);
    return p->pos < p->end && p->buf[p->pos] == (unsigned char)c;
}

static sc_status expect(npy_parser *p, char c)
{
    if (!peek(p, c)) {
        if (p->pos >= p->end)
            return PERR(p, "header ends where '%c' was expected", c);
        return PERR(p, "expected '%c'", c);
    }
    p->pos++;
    return SC_OK;
}

/* A quoted string without escapes, into out (NUL-terminated). */
static sc_status parse_string(npy_parser *p, char *out, size_t cap)
{
    unsigned char q;
    size_t n = 0;
    skip_ws(p);
    if (p->pos >= p->end)
        return PERR(p, "header ends where a string was expected");
    q = p->buf[p->pos];
    if (q != '\'' && q != '"')
        return PERR(p, "expected a quoted string");
    p->pos++;
    while (p->pos < p->end && p->buf[p->pos] != q) {
        if (p->buf[p->pos] == '\\' || p->buf[p->pos] < 0x20)
            return PERR(p, "unsupported character in a string");
        if (n + 1 >= cap)
            return PERR(p, "string too long");
        out[n++] = (char)p->buf[p->pos++];
    }
    if (p->pos >= p->end)
        return PERR(p, "unterminated string");
    p->pos++;
    out[n] = '\0';
    return SC_OK;
}

static bool match_word(npy_parser *p, const char *w)
{
    size_t n = strlen(w);
    skip_ws(p);
    if (p->end - p->pos < n || memcmp(p->buf + p->pos, w, n) != 0)
        return false;
    if (p->pos + n < p->end) {
        unsigned char c = p->buf[p->pos + n];
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
            (c >= '0' && c <= '9') || c == '_')
            return false;
    }
    p->pos += n;
    return true;
}

static sc_status parse_bool(npy_parser *p, bool *out)
{
    if (match_word(p, "True"))
        *out = true;
    else if (match_word(p, "False"))
        *out = false;
    else
        return PERR(p, "expected True or False");
    return SC_OK;
}

static sc_status parse_shape(npy_parser *p, size_t *ndim, int64_t *sizes)
{
    *ndim = 0;
    SC_TRY(expect(p, '('));
  for (;;) {
      int64_t v = 0;
      size_t start;
      if (peek(p, ')'))
            break;
        if (*ndim == SC_TENSOR_MAX_DIMS)
            return PERR(p, "more than %d dimensions", SC_TENSOR_MAX_DIMS);
        start = p->pos;
        while (p->pos < p->end && p->buf[p->pos] >= '0' &&
               p->buf[p->pos] <= '9') {
            int d = p->buf[p->pos] - '0';
            if (v > (INT64_MAX - d) / 10)
                return npy_error(p->name, p->err, SC_ERR_OVERFLOW, start,
                                 "dimension does not fit in int64");
            v = v * 10 + d;
            p->pos++;
        }
        if (p->pos < p->end && p->buf[p->pos] == 'L')
            p->pos++; /* Python 2 long suffix */
        if (p->pos == start)
            return PERR(p, "expected a non-negative integer dimension");
        sizes[(*ndim)++] = v;
        if (peek(p, ','))
            p->pos++;
        else if (!peek(p, ')'))
            return PERR(p, "expected ',' or ')' in the shape");
    }
    p->pos++;
    return SC_OK;
}

typedef struct npy_header {
    sc_dtype dtype;
    bool swap;
    bool fortran;
    size_t ndim;
    int64_t sizes[SC_TENSOR_MAX_DIMS];
} npy_header;

static sc_status parse_descr(npy_parser *p, size_t at, const char *d,
                             npy_header *h)
{
    static const struct {
        const char *code;
        sc_dtype dtype;
    } codes[] = {
        {"f4", SC_DTYPE_F32}, {"f8", SC_DTYPE_F64}, {"f2", SC_DTYPE_F16},
        {"i8", SC_DTYPE_I64}, {"i4", SC_DTYPE_I32}, {"i2", SC_DTYPE_I16},
        {"i1", SC_DTYPE_I8},  {"u1", SC_DTYPE_U8},  {"b1", SC_DTYPE_B8},
    };
    char order = d[0];
    size_t i;
    bool little = host_little_endian();

    if (order != '<' && order != '>' && order != '|' && order != '=')
        return npy_error(p->name, p->err, SC_ERR_UNSUPPORTED, at,
                         "unsupported descr '%s' (expected a byte order "
                         "character first)",
                         d);
    for (i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        if (strcmp(d + 1, codes[i].code) != 0)
            continue;
        h->dtype = codes[i].dtype;
        if (order == '|' && sc_dtype_itemsize(h->dtype) > 1)
            return npy_error(p->name, p->err, SC_ERR_PARSE, at,
                             "descr '%s': '|' on a multi-byte type", d);
        h->swap = sc_dtype_itemsize(h->dtype) > 1 &&
                  ((order == '<' && !little) || (order == '>' && little));
        return SC_OK;
    }
    return npy_error(p->name, p->err, SC_ERR_UNSUPPORTED, at,
                     "unsupported descr '%s'", d);
}

static sc_status parse_header(npy_parser *p, npy_header *h)
{
    bool have_descr = false, have_fortran = false, have_shape = false;
    char key[32], descr[32];

    SC_TRY(expect(p, '{'));
    for (;;) {
        size_t at;
        if (peek(p, '}'))
            break;
        at = p->pos;
        SC_TRY(parse_string(p, key, sizeof key));
        SC_TRY(expect(p, ':'));
        if (strcmp(key, "descr") == 0 && !have_descr) {
            skip_ws(p);
            at = p->pos;
            if (peek(p, '['))
                return npy_error(p->name, p->err, SC_ERR_UNSUPPORTED, at,
                                 "structured dtypes are not supported");
            SC_TRY(parse_string(p, descr, sizeof descr));
            SC_TRY(parse_descr(p, at, descr, h));
            have_descr = true;
        } else if (strcmp(key, "fortran_order") == 0 && !have_fortran) {
            SC_TRY(parse_bool(p, &h->fortran));
            have_fortran = true;
        } else if (strcmp(key, "shape") == 0 && !have_shape) {
            SC_TRY(parse_shape(p, &h->ndim, h->sizes));
            have_shape = true;
        } else {
            return npy_error(p->name, p->err, SC_ERR_PARSE, at,
                             "unexpected or repeated key '%s'", key);
        }
        if (peek(p, ','))
            p->pos++;
        else if (!peek(p, '}'))
            return PERR(p, "expected ',' or '}' in the header dict");
    }
    p->pos++;
    skip_ws(p);
    if (p->pos != p->end)
        return PERR(p, "unexpected text after the header dict");
    if (!have_descr || !have_fortran || !have_shape)
        return PERR(p, "header lacks '%s'",
                    !have_descr ? "descr"
                                : !have_fortran ? "fortran_order" : "shape");
    return SC_OK;
}

static void swap_bytes(unsigned char *b, size_t n, size_t item)
{
    size_t i, j;
    for (i = 0; i < n; i++, b += item)
        for (j = 0; j < item / 2; j++) {
            unsigned char x = b[j];
            b[j] = b[item - 1 - j];
            b[item - 1 - j] = x;
        }
}

sc_status sc_npy_read_buffer(const void *data, size_t len, const char *name,
                             sc_tensor **out, sc_error *err)
{
    const unsigned char *buf = data;
    npy_parser p;
    npy_header h;
    size_t hlen, hstart, numel, item, nbytes, i;
    sc_tensor *t = NULL, *c = NULL;
    sc_status status;

    *out = NULL;
    if (len < 8 || memcmp(buf, npy_magic, len < 6 ? len : 6) != 0) {
        size_t k = 0;
        while (k < len && k < 6 && buf[k] == npy_magic[k])
            k++;
        return npy_error(name, err, SC_ERR_PARSE, k,
                         k < 6 && k < len ? "bad magic (not a .npy file)"
                                          : "file too short for the magic "
                                            "and version");
    }
    if (buf[6] < 1 || buf[6] > 3 || buf[7] != 0)
        return npy_error(name, err, SC_ERR_UNSUPPORTED, 6,
                         "unsupported format version %u.%u", buf[6], buf[7]);
    if (buf[6] == 1) {
        if (len < 10)
            return npy_error(name, err, SC_ERR_PARSE, 8,
                             "file too short for the header length");
        hlen = (size_t)buf[8] | (size_t)buf[9] << 8;
        hstart = 10;
    } else {
        if (len < 12)
            return npy_error(name, err, SC_ERR_PARSE, 8,
                             "file too short for the header length");
        hlen = (size_t)buf[8] | (size_t)buf[9] << 8 |
               (size_t)buf[10] << 16 | (size_t)buf[11] << 24;
        hstart = 12;
    }
    if (hlen > len - hstart)
        return npy_error(name, err, SC_ERR_PARSE, 8,
                         "header length %zu goes beyond the end of the file "
                         "(%zu bytes)",
                         hlen, len);
    for (i = hstart; i < hstart + hlen; i++)
        if (buf[i] == 0 || (buf[6] < 3 && buf[i] >= 0x80))
            return npy_error(name, err, SC_ERR_PARSE, i,
                             "invalid byte 0x%02x in the header", buf[i]);
    p.buf = buf;
    p.pos = hstart;
    p.end = hstart + hlen;
    p.name = name;
    p.err = err;
    memset(&h, 0, sizeof h);
    SC_CHECK(parse_header(&p, &h));

    item = sc_dtype_itemsize(h.dtype);
    if (sc__numel_checked(h.ndim, h.sizes, &numel, NULL) != SC_OK ||
        numel > SIZE_MAX / item)
        return npy_error(name, err, SC_ERR_OVERFLOW, hstart,
                         "shape has too many elements for this machine");
    /* Also with no elements, the contiguous strides (products of the
     * sizes > 1) must fit in int64_t. */
    {
        int64_t prod = 1;
        for (i = 0; i < h.ndim; i++)
            if (h.sizes[i] > 1 &&
                __builtin_mul_overflow(prod, h.sizes[i], &prod))
                return npy_error(name, err, SC_ERR_OVERFLOW, hstart,
                                 "the strides of the shape do not fit in "
                                 "int64");
    }
    nbytes = numel * item;
    if (nbytes != len - (hstart + hlen))
        return npy_error(name, err, SC_ERR_PARSE, hstart + hlen,
                         "data is %zu bytes; the shape needs %zu",
                         len - (hstart + hlen), nbytes);
    /* Fortran order: column-major strides (a product of sizes that stays
     * <= numel, so no overflow; with no elements the order is moot). */
    if (h.fortran && h.ndim > 1 && numel > 0) {
        int64_t strides[SC_TENSOR_MAX_DIMS], acc = 1;
        for (i = 0; i < h.ndim; i++) {
            strides[i] = acc;
            acc *= h.sizes[i] > 1 ? h.sizes[i] : 1;
        }
        SC_CHECK(sc_tensor_new_strided(h.dtype, h.ndim, h.sizes, strides, &t,
                                       err));
    } else {
        SC_CHECK(sc_tensor_new(h.dtype, h.ndim, h.sizes, &t, err));
    }
    if (nbytes) {
        unsigned char *d = sc_tensor_data(t);
        memcpy(d, buf + hstart + hlen, nbytes);
        if (h.swap)
            swap_bytes(d, numel, item);
        if (h.dtype == SC_DTYPE_B8)
            for (i = 0; i < numel; i++)
                d[i] = d[i] != 0;
    }
    if (!sc_tensor_is_contiguous(t)) {
        SC_CHECK(sc_tensor_clone(t, &c, err));
        sc_tensor_free(t);
        t = c;
    }
    *out = t;
    return SC_OK;
fail:
    sc_tensor_free(t);
    if (err && name && !err->file[0])
        snprintf(err->file, sizeof err->file, "%s", name);
    return status;
}

sc_status sc_npy_read(const char *path, sc_tensor **out, sc_error *err)
{
    FILE *f;
    unsigned char *buf = NULL;
    size_t len = 0, cap = 0;
    sc_status status;

    *out = NULL;
    f = fopen(path, "rb");
    if (!f)
        return sc__error_set_at(err, SC_ERR_IO, path, 0, 0,
                                "cannot open: %s", strerror(errno));
    for (;;) {
        size_t got;
        if (len == cap && !sc__grow((void **)&buf, &cap,
                                    cap ? cap * 2 : 65536, 1)) {
            fclose(f);
            sc__free(buf);
            return sc__error_nomem(err);
        }
        got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        fclose(f);
        sc__free(buf);
        return sc__error_set_at(err, SC_ERR_IO, path, 0, 0, "read error");
    }
    fclose(f);
    status = sc_npy_read_buffer(buf ? buf : (const unsigned char *)"", len,
                                path, out, err);
    sc__free(buf);
    return status;
}

/* ---- Writing -------------------------------------------------------------- */

static const char *descr_of(sc_dtype d)
{
    switch (d) {
    case SC_DTYPE_F32: return "<f4";
    case SC_DTYPE_F64: return "<f8";
    case SC_DTYPE_F16: return "<f2";
    case SC_DTYPE_I64: return "<i8";
    case SC_DTYPE_I32: return "<i4";
    case SC_DTYPE_I16: return "<i2";
    case SC_DTYPE_I8: return "|i1";
    case SC_DTYPE_U8: return "|u1";
    case SC_DTYPE_B8: return "|b1";
    default: return NULL;
    }
}

sc_status sc_npy_write_buffer(const sc_tensor *t, void **out, size_t *len,
                              sc_error *err)
{
    const char *descr = descr_of(t->dtype);
    sc_tensor *c = NULL;
    sc__buf hdr;
    size_t i, pre, total, nbytes, hlen;
    unsigned char *res;
    sc_status status = SC_OK;

    *out = NULL;
    *len = 0;
    if (!descr)
        return sc__error_set(err, SC_ERR_UNSUPPORTED,
                             "npy: dtype %d has no NumPy type",
                             (int)t->dtype);
    sc__buf_init(&hdr);
    sc__buf_printf(&hdr, "{'descr': '%s', 'fortran_order': False, "
                         "'shape': (", descr);
    for (i = 0; i < t->ndim; i++)
        sc__buf_printf(&hdr, "%s%lld", i ? ", " : "", (long long)t->sizes[i]);
    sc__buf_puts(&hdr, t->ndim == 1 ? ",), }" : "), }");
    if (hdr.failed) {
        sc__buf_free(&hdr);
        return sc__error_nomem(err);
    }
    pre = hdr.len + 1 + 10 > 65535 ? 12 : 10;
    hlen = hdr.len + 1;
    hlen += (64 - (pre + hlen) % 64) % 64;
    SC_CHECK(sc_tensor_clone(t, &c, err));
    nbytes = sc_tensor_nbytes(c);
    total = pre + hlen + nbytes;
    res = sc__malloc(total);
    if (!res) {
        status = sc__error_nomem(err);
        goto fail;
    }
    memcpy(res, npy_magic, 6);
    res[6] = pre == 10 ? 1 : 2;
    res[7] = 0;
    res[8] = (unsigned char)(hlen & 0xff);
    res[9] = (unsigned char)(hlen >> 8 & 0xff);
    if (pre == 12) {
        res[10] = (unsigned char)(hlen >> 16 & 0xff);
        res[11] = (unsigned char)(hlen >> 24 & 0xff);
    }
    memcpy(res + pre, hdr.data, hdr.len);
    memset(res + pre + hdr.len, ' ', hlen - hdr.len - 1);
    res[pre + hlen - 1] = '\n';
    if (nbytes) {
        memcpy(res + pre + hlen, sc_tensor_data(c), nbytes);
        if (!host_little_endian())
            swap_bytes(res + pre + hlen, nbytes / sc_dtype_itemsize(c->dtype),
                       sc_dtype_itemsize(c->dtype));
    }
    *out = res;
    *len = total;
fail:
    sc_tensor_free(c);
    sc__buf_free(&hdr);
    return status;
}

sc_status sc_npy_write(const sc_tensor *t, const char *path, sc_error *err)
{
    void *data = NULL;
    size_t len, plen = strlen(path), off = 0;
    char *tmp = NULL;
    int fd = -1;
    sc_status status;

    SC_CHECK(sc_npy_write_buffer(t, &data, &len, err));
    tmp = sc__malloc(plen + 16);
    if (!tmp) {
        status = sc__error_nomem(err);
        goto fail;
    }
    memcpy(tmp, path, plen);
    memcpy(tmp + plen, ".tmp.XXXXXX", 12);
    fd = mkstemp(tmp);
    if (fd < 0) {
        status = sc__error_set_at(err, SC_ERR_IO, path, 0, 0,
                                  "cannot create a temporary file: %s",
                                  strerror(errno));
        sc__free(tmp);
        tmp = NULL;
        goto fail;
    }
    (void)fchmod(fd, 0644);
    while (off < len) {
        ssize_t w = write(fd, (const char *)data + off, len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            status = sc__error_set_at(err, SC_ERR_IO, path, 0, 0,
                                      "write failed: %s", strerror(errno));
            goto fail;
        }
        off += (size_t)w;
    }
    if (close(fd) != 0) {
        fd = -1;
        status = sc__error_set_at(err, SC_ERR_IO, path, 0, 0,
                                  "close failed: %s", strerror(errno));
        goto fail;
    }
    fd = -1;
    if (rename(tmp, path) != 0) {
        status = sc__error_set_at(err, SC_ERR_IO, path, 0, 0,
                                  "rename failed: %s", strerror(errno));
        goto fail;
    }
    sc__free(tmp);
    sc__free(data);
    return SC_OK;
fail:
    if (fd >= 0)
        close(fd);
    if (tmp) {
        unlink(tmp);
        sc__free(tmp);
    }
    sc__free(data);
    return status;
}
