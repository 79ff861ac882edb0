"""Tensors of libsymcut (tensor.h): CPU strided tensors, converted from and
to NumPy arrays, Python lists and .npy files.  NumPy is optional: without
it, tensors are made from nested lists and read back with tolist()."""
import ctypes

from . import _lib
from ._lib import lib, P
from ._core import _Handle, _check, _enc, live_objects  # noqa: F401

PT = P(_lib.Tensor)


def _dtype_names():
    out = []
    for i in range(64):
        c = lib.sc_dtype_code(i)
        if c is None:
            break
        out.append((c.decode(), lib.sc_dtype_torch_name(i).decode()))
    return out


DTYPES = _dtype_names()                     # [(code, torch name)] by id
_BY_NAME = {}
for _i, (_c, _t) in enumerate(DTYPES):
    _BY_NAME[_c] = _BY_NAME[_t] = _i
_BY_NAME.update({"float": _BY_NAME["float32"], "double": _BY_NAME["float64"],
                 "half": _BY_NAME["float16"], "long": _BY_NAME["int64"],
                 "int": _BY_NAME["int32"], "bool_": _BY_NAME["bool"]})
# NumPy's names where they differ from torch's (bfloat16: none)
_NUMPY = {"bool": "bool"}


def dtype_id(dtype):
    """The library's dtype of a name ("f32", "float32", torch.float32,
    numpy.float32 or its dtype)."""
    name = getattr(dtype, "name", None) or str(dtype)
    name = name.replace("torch.", "")
    if name not in _BY_NAME:
        raise ValueError("unknown dtype %r" % (dtype,))
    i = _BY_NAME[name]
    if not lib.sc_tensor_dtype_supported(i):
        raise ValueError("dtype %s has no tensors in libsymcut" % name)
    return i


def _np():
    try:
        import numpy
    except ImportError as e:  # pragma: no cover - numpy is optional
        raise ImportError("symcut: this needs NumPy") from e
    return numpy


class Tensor(_Handle):
    """A tensor of libsymcut (owns one sc_tensor and a reference to its
    storage).  shape, strides (in elements), dtype (torch's name), numel,
    nbytes; numpy() and tolist() copy the values out."""

    _free = staticmethod(lib.sc_tensor_free)

    def __init__(self, ptr):
        self._own(ctypes.cast(ptr, PT))

    @property
    def _t(self):
        return self._alive().contents

    @staticmethod
    def _make(fn, *args):
        out = PT()
        err = _lib.Error()
        _check(fn(*args, ctypes.byref(out), ctypes.byref(err)), err)
        return Tensor(out)

    # ---- creation
    @classmethod
    def zeros(cls, shape, dtype="float32"):
        shape = [int(s) for s in shape]
        arr = (ctypes.c_int64 * max(len(shape), 1))(*shape)
        return cls._make(lib.sc_tensor_new, dtype_id(dtype), len(shape), arr)

    @classmethod
    def scalar(cls, value, dtype=None):
        """A 0-d tensor (dtype: int64 for an int, bool for a bool, else
        float32)."""
        if dtype is None:
            dtype = "bool" if isinstance(value, bool) else \
                "int64" if isinstance(value, int) else "float32"
        did = dtype_id(dtype)
        if isinstance(value, int) and not isinstance(value, bool) and \
                abs(value) >= 2 ** 53:
            t = cls.zeros((), dtype)
            t._set_flat([value])
            return t
        return cls._make(lib.sc_tensor_new_scalar, did, float(value))

    @classmethod
    def from_list(cls, values, dtype="float32"):
        """A contiguous tensor of nested lists (rectangular)."""
        shape = []
        v = values
        while isinstance(v, (list, tuple)):
            shape.append(len(v))
            v = v[0] if v else None
        flat = []

        def walk(x, d):
            if d == len(shape):
                if isinstance(x, (list, tuple)):
                    raise ValueError("ragged nested list")
                flat.append(x)
                return
            if not isinstance(x, (list, tuple)) or len(x) != shape[d]:
                raise ValueError("ragged nested list")
            for y in x:
                walk(y, d + 1)
        walk(values, 0)
        t = cls.zeros(shape, dtype)
        t._set_flat(flat)
        return t

    def _set_flat(self, flat):
        t = self._t
        isz = lib.sc_dtype_itemsize(t.dtype)
        code = DTYPES[t.dtype][0]
        fmt = {"f32": "f", "f64": "d", "i64": "q", "i32": "i", "i16": "h",
               "i8": "b", "u8": "B", "b8": "?"}.get(code)
        if fmt is None:       # f16, bf16: through float32 and the library
            src = Tensor.from_list(flat, "float32")
            conv = src.to(DTYPES[t.dtype][1])
            ctypes.memmove(lib.sc_tensor_data(self._alive()),
                           lib.sc_tensor_data(conv._alive()), len(flat) * isz)
            src.close()
            conv.close()
            return
        import struct
        data = struct.pack("<%d%s" % (len(flat), fmt), *flat)
        ctypes.memmove(lib.sc_tensor_data(self._alive()), data, len(data))

    @classmethod
    def from_numpy(cls, array):
        """A copy of a NumPy array (any strides; bool, int8-64, uint8,
        float16/32/64)."""
        np = _np()
        a = np.asarray(array)
        if not a.flags.c_contiguous:        # (ascontiguousarray makes a
            a = a.copy(order="C")           # 0-d array 1-d)
        if a.dtype.byteorder == ">":
            a = a.astype(a.dtype.newbyteorder("<"))
        t = cls.zeros(a.shape, a.dtype.name)
        if a.nbytes:
            ctypes.memmove(lib.sc_tensor_data(t._alive()),
                           a.ctypes.data, a.nbytes)
        return t

    @classmethod
    def of(cls, value):
        """value as a Tensor: a Tensor (itself), a NumPy array, a torch
        tensor (through NumPy), an int/float/bool (0-d), or nested
        lists."""
        if isinstance(value, Tensor):
            return value
        if isinstance(value, (bool, int, float)):
            return cls.scalar(value)
        if isinstance(value, (list, tuple)):
            return cls.from_list(value)
        if hasattr(value, "detach") and hasattr(value, "numpy"):
            value = value.detach().cpu().numpy()
        if hasattr(value, "__array_interface__"):
            return cls.from_numpy(value)
        raise TypeError("not a tensor: %r" % (type(value).__name__,))

    @classmethod
    def read_npy(cls, path):
        """A .npy file; errors (ParseError, IOError_) name the file and the
        byte offset."""
        return cls._make(lib.sc_npy_read, _enc(path))

    @classmethod
    def from_npy_bytes(cls, data, name=None):
        data = bytes(data)
        return cls._make(lib.sc_npy_read_buffer, data, len(data), _enc(name))

    # ---- queries
    @property
    def dtype(self):
        return DTYPES[self._t.dtype][1]

    @property
    def shape(self):
        t = self._t
        return tuple(t.sizes[i] for i in range(t.ndim))

    @property
    def strides(self):
        t = self._t
        return tuple(t.strides[i] for i in range(t.ndim))

    @property
    def ndim(self):
        return self._t.ndim

    @property
    def numel(self):
        return lib.sc_tensor_numel(self._alive())

    @property
    def nbytes(self):
        return lib.sc_tensor_nbytes(self._alive())

    @property
    def is_contiguous(self):
        return lib.sc_tensor_is_contiguous(self._alive())

    def __len__(self):
        if not self.ndim:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __repr__(self):
        if self.closed:
            return "<Tensor closed>"
        return "<Tensor %s%s>" % (self.dtype, list(self.shape))

    # ---- conversions
    def contiguous(self):
        """A contiguous copy (own storage)."""
        return self._make(lib.sc_tensor_clone, self._alive())

    def to(self, dtype):
        """A contiguous copy converted to dtype (the library's rules)."""
        return self._make(lib.sc_tensor_to_dtype, self._alive(),
                          dtype_id(dtype))

    def _flat(self):
        p = self._alive()
        code = DTYPES[self._t.dtype][0]
        kind = code[0]
        n = lib.sc_tensor_numel(p)
        if code == "b8":
            return [bool(lib.sc_tensor_item_int64(p, i)) for i in range(n)]
        if kind in "iu":
            return [lib.sc_tensor_item_int64(p, i) for i in range(n)]
        return [lib.sc_tensor_item_double(p, i) for i in range(n)]

    def tolist(self):
        """The values as nested lists (a Python number for a 0-d tensor)."""
        flat = self._flat()
        shape = self.shape
        if not shape:
            return flat[0]

        def nest(off, d):
            if d == len(shape) - 1:
                return flat[off:off + shape[d]]
            step = 1
            for s in shape[d + 1:]:
                step *= s
            return [nest(off + i * step, d + 1) for i in range(shape[d])]
        return nest(0, 0)

    def item(self):
        if self.numel != 1:
            raise ValueError("item() of a tensor with %d elements"
                             % self.numel)
        return self._flat()[0]

    def numpy(self):
        """A NumPy copy (bfloat16 becomes float32)."""
        np = _np()
        src = self
        tmp = None
        if self.dtype == "bfloat16":
            src = tmp = self.to("float32")
        elif not self.is_contiguous:
            src = tmp = self.contiguous()
        try:
            t = src._t
            nbytes = lib.sc_tensor_nbytes(src._alive())
            raw = ctypes.string_at(lib.sc_tensor_data(src._alive()),
                                   nbytes) if nbytes else b""
            dt = np.dtype(_NUMPY.get(src.dtype, src.dtype))
            return np.frombuffer(raw, dtype=dt).reshape(
                [t.sizes[i] for i in range(t.ndim)]).copy()
        finally:
            if tmp is not None:
                tmp.close()

    __array__ = lambda self, dtype=None, copy=None: (  # noqa: E731
        self.numpy() if dtype is None else self.numpy().astype(dtype))

    def to_npy_bytes(self):
        out = ctypes.c_void_p()
        n = ctypes.c_size_t()
        err = _lib.Error()
        _check(lib.sc_npy_write_buffer(self._alive(), ctypes.byref(out),
                                       ctypes.byref(n), ctypes.byref(err)),
               err)
        try:
            return ctypes.string_at(out.value, n.value)
        finally:
            _lib.free(out.value)

    def save(self, path):
        """Write a .npy file atomically (nothing is left on failure)."""
        err = _lib.Error()
        _check(lib.sc_npy_write(self._alive(), _enc(path),
                                ctypes.byref(err)), err)


def read_npy(path):
    return Tensor.read_npy(path)
