/* symcut — a libFuzzer target for the .npy reader (sc_npy_read_buffer):
 * every input either reads, and then writes and reads back to an equal
 * tensor, or fails with a message.
 * Built by `make fuzz`, run by tests/fuzz/run-fuzz.sh (doc/testing.md). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <symcut/tensor.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sc_tensor *t = NULL, *t2 = NULL;
    sc_error err;
    void *buf = NULL;
    size_t len = 0, d;

    if (sc_npy_read_buffer(data, size, "fuzz", &t, &err) != SC_OK) {
        if (t || !err.message[0])
            abort(); /* a failure leaves no tensor and says why */
        return 0;
    }
    if (sc_npy_write_buffer(t, &buf, &len, &err) == SC_OK) {
        if (sc_npy_read_buffer(buf, len, "written", &t2, &err) != SC_OK)
            abort(); /* the writer must produce what the reader reads */
        if (t2->dtype != t->dtype || t2->ndim != t->ndim)
            abort();
        for (d = 0; d < t->ndim; d++)
            if (t2->sizes[d] != t->sizes[d])
                abort();
        if (sc_tensor_nbytes(t) != sc_tensor_nbytes(t2) ||
            (sc_tensor_nbytes(t) &&
             memcmp(sc_tensor_data(t), sc_tensor_data(t2),
                    sc_tensor_nbytes(t)) != 0))
            abort(); /* both are contiguous: the same bytes */
    }
    free(buf);
    sc_tensor_free(t2);
    sc_tensor_free(t);
    return 0;
}
