"""The ctypes structures of the symcut package mirror C structs by layout
(python/symcut/_lib.py, C_TYPES): a C probe compiled against the
project's headers prints sizeof and offsetof of every mirrored struct and
field, and each must equal ctypes' sizeof and field offsets.  A field
added, removed, reordered or resized on either side fails here, naming
the struct and the field.  Needs a C compiler (cc; $CC)."""
import ctypes
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

SRC = pathlib.Path(os.environ.get("SYMCUT_SRCDIR",
                                  pathlib.Path(__file__).resolve().parents[2]))
BUILD = pathlib.Path(os.environ.get("SYMCUT_BUILDDIR", SRC / "build"))
os.environ.setdefault("SYMCUT_LIB", str(BUILD / ".libs" / "libsymcut.so"))
sys.path.insert(0, str(SRC / "python"))
from symcut import _lib  # noqa: E402

CC = os.environ.get("CC", "cc").split()


def _mirrors():
    """(python class, C type, [(python field, C member)]) of every
    mirrored struct."""
    out = []
    for cls, (ctype, renames) in _lib.C_TYPES.items():
        fields = [(f[0], renames.get(f[0], f[0])) for f in cls._fields_]
        out.append((cls, ctype, fields))
    return out


def test_every_structure_is_mapped():
    """Every ctypes.Structure of _lib names its C type (a new mirror
    cannot escape the check)."""
    structs = {v for v in vars(_lib).values()
               if isinstance(v, type) and issubclass(v, ctypes.Structure)}
    assert structs == set(_lib.C_TYPES), \
        sorted(c.__name__ for c in structs ^ set(_lib.C_TYPES))


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    if shutil.which(CC[0]) is None:
        pytest.skip("no C compiler (%s)" % CC[0])
    d = tmp_path_factory.mktemp("layout")
    lines = ["#include <stddef.h>", "#include <stdio.h>",
             "#include <gmp.h>", "#include <symcut.h>", "int main(void) {"]
    for cls, ctype, fields in _mirrors():
        lines.append('printf("%s %%zu\\n", sizeof(%s));'
                     % (cls.__name__, ctype))
        for py, c in fields:
            lines.append('printf("%s.%s %%zu %%zu\\n", offsetof(%s, %s), '
                         'sizeof(((%s *)0)->%s));'
                         % (cls.__name__, py, ctype, c, ctype, c))
    lines += ["return 0;", "}"]
    (d / "probe.c").write_text("\n".join(lines) + "\n")
    exe = d / "probe"
    r = subprocess.run(CC + ["-I", str(SRC / "include"), "-I", str(BUILD),
                             "-o", str(exe), str(d / "probe.c")],
                       capture_output=True, text=True)
    assert r.returncode == 0, "the probe does not compile (a mirrored " \
        "field is gone or renamed?):\n" + r.stderr[-4000:]
    got = {}
    for line in subprocess.run([str(exe)], capture_output=True, text=True,
                               check=True).stdout.splitlines():
        key, *vals = line.split()
        got[key] = tuple(int(v) for v in vals)
    return got


@pytest.mark.parametrize("cls", sorted(_lib.C_TYPES, key=lambda c: c.__name__),
                         ids=lambda c: c.__name__)
def test_layout_matches_c(probe, cls):
    ctype = _lib.C_TYPES[cls][0]
    bad = []
    for f in cls._fields_:
        off, size = probe["%s.%s" % (cls.__name__, f[0])]
        desc = getattr(cls, f[0])
        if (desc.offset, desc.size) != (off, size):
            bad.append("%s: ctypes offset %d size %d, C offset %d size %d"
                       % (f[0], desc.offset, desc.size, off, size))
    assert not bad, "%s (%s) drifted: %s" % (cls.__name__, ctype,
                                            "; ".join(bad))
    assert ctypes.sizeof(cls) == probe[cls.__name__][0], \
        "%s (%s): ctypes sizeof %d, C sizeof %d (a field added or removed " \
        "in C?)" % (cls.__name__, ctype, ctypes.sizeof(cls),
                    probe[cls.__name__][0])


def _header_members():
    """{C type: [member names]} of the typedef'd structs of the public
    headers (comments stripped; a function pointer's name is the one in
    its (*name))."""
    text = "".join(p.read_text() for p in
                   sorted((SRC / "include" / "symcut").glob("*.h")))
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    out = {}
    for m in re.finditer(r"typedef struct (\w+) \{(.*?)\} (\w+);", text,
                         re.S):
        members = []
        for decl in m.group(2).split(";"):
            decl = decl.strip()
            if not decl:
                continue
            fp = re.search(r"\(\s*\*\s*(\w+)\s*\)", decl)
            if fp:
                members.append(fp.group(1))
                continue
            decl = re.sub(r"\[[^]]*\]", "", decl)
            for part in decl.split(","):
                members.append(re.findall(r"\w+", part)[-1])
        out[m.group(3)] = members
    return out


@pytest.mark.parametrize("cls", sorted(_lib.C_TYPES, key=lambda c: c.__name__),
                         ids=lambda c: c.__name__)
def test_fields_are_the_headers_members(cls):
    ctype, renames = _lib.C_TYPES[cls]
    if not ctype.startswith("sc_"):
        pytest.skip("%s is not symcut's" % ctype)
    members = _header_members()
    assert ctype in members, "no typedef struct %s in include/symcut" % ctype
    mine = [renames.get(f[0], f[0]) for f in cls._fields_]
    assert mine == members[ctype], \
        "%s mirrors %s with fields %s; the header declares %s" % (
            cls.__name__, ctype, mine, members[ctype])
