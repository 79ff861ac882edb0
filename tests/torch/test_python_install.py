"""`pip install ./python` into fresh virtual environments, then the
installed package (not the source tree's) imports and partitions, finding
libsymcut through $SYMCUT_LIB, $SYMCUT_BUILDDIR or pkg-config.

Two environments: one without torch or NumPy (the binding alone: read,
partition, validate, tensors from lists, a run), and one that sees the
torch of the Python running the tests (symcut.torch's partition_fn on a
traced joint module).  pip runs offline (--no-index, --no-build-isolation:
setuptools comes from the environment, or from the Python running the
tests when the environment's cannot build a wheel; when neither can,
pip's isolated build from its configured index, else a skip).  Skipped, with the reason, when a
virtual environment cannot be made or has no pip and setuptools."""
import os
import pathlib
import shutil
import subprocess
import sys
import sysconfig
import textwrap

import pytest

SRC = pathlib.Path(os.environ.get("SYMCUT_SRCDIR",
                                  pathlib.Path(__file__).resolve().parents[2]))
BUILD = pathlib.Path(os.environ.get("SYMCUT_BUILDDIR", SRC / "build"))
LIBDIR = BUILD / ".libs"
ZOO = SRC / "examples" / "zoo"


def _run(cmd, **kw):
    return subprocess.run([str(c) for c in cmd], capture_output=True,
                          text=True, timeout=600, **kw)


def _builds_wheels(python):
    """Whether python's setuptools builds wheels (70.1 and later, or the
    `wheel` package beside it)."""
    r = _run([python, "-c", "import importlib.util as u, setuptools; "
              "v = tuple(int(x) for x in setuptools.__version__.split('.')[:2]);"
              " print(int(v >= (70, 1) or u.find_spec('wheel') is not None))"])
    return r.returncode == 0 and r.stdout.strip() == "1"


def _venv(where, see_torch):
    """A new virtual environment with the package installed: its python.
    see_torch: the environment also sees this Python's site-packages (a
    .pth file: `--system-site-packages` from a virtual environment gives
    the base interpreter's packages, not the environment's)."""
    r = _run([sys.executable, "-m", "venv", where])
    if r.returncode != 0:
        pytest.skip("cannot create a virtual environment: %s"
                    % (r.stderr.strip().splitlines() or ["?"])[-1])
    py = where / "bin" / "python"
    if see_torch:
        site = _run([py, "-c", "import sysconfig; "
                     "print(sysconfig.get_paths()['purelib'])"]).stdout.strip()
        mine = sysconfig.get_paths()["purelib"]
        pathlib.Path(site, "outer-site.pth").write_text(mine + "\n")
    r2 = _run([py, "-m", "pip", "--version"])
    if r2.returncode != 0:
        pytest.skip("the virtual environment has no pip")
    own_setuptools = _builds_wheels(py)
    # pip builds in a copy of python/: build products stay out of the tree
    pkg = where.parent / "python-src"
    shutil.copytree(SRC / "python", pkg,
                    ignore=shutil.ignore_patterns("build", "*.egg-info",
                                                  "__pycache__"))
    cmd = [py, "-m", "pip", "install", "--no-index", "--no-build-isolation",
           "--no-deps", "-q", pkg]
    env = dict(os.environ)
    if own_setuptools:
        r = _run(cmd, env=env)
    elif _builds_wheels(sys.executable):
        # the environment's setuptools (Python 3.11 bundles 65) builds
        # wheels only with the `wheel` package: build with this Python's
        # setuptools instead (on the path during the install only)
        print("building with %s's setuptools" % sys.executable)
        env["PYTHONPATH"] = sysconfig.get_paths()["purelib"]
        r = _run(cmd, env=env)
    else:
        # no setuptools at hand builds a wheel: pip's own build
        # environment, from its configured index
        print("building in pip's isolated build environment")
        try:
            r = _run([py, "-m", "pip", "install", "--no-deps", "-q",
                      "--timeout", "30", "--retries", "1", pkg])
        except subprocess.TimeoutExpired:
            pytest.skip("cannot build the package: no setuptools that "
                        "builds wheels here, and pip's build environment "
                        "timed out")
        if r.returncode != 0:
            pytest.skip("cannot build the package: no setuptools that "
                        "builds wheels here, and pip's build environment "
                        "failed (%s)" % (r.stderr.strip().splitlines()
                                         or ["?"])[-1])
    assert r.returncode == 0, r.stdout + r.stderr
    return py


def _env(**extra):
    env = {k: v for k, v in os.environ.items()
           if k not in ("SYMCUT_LIB", "SYMCUT_BUILDDIR", "PYTHONPATH",
                        "PKG_CONFIG_PATH")}
    env.update(extra)
    return env


PROGRAM = textwrap.dedent("""
    import pathlib, sys
    import symcut
    assert "site-packages" in symcut.__file__, symcut.__file__
    print("library", symcut.library_path)
    g = symcut.Graph.read_file(sys.argv[1])
    p = g.partition("pytorch-2.13")
    assert p.validate().passed
    t = symcut.Tensor.from_list([[1.0, 2.0], [3.0, 4.0]])
    assert t.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    out = g.run(seed=1)
    assert len(out) == len(g.outputs)
    print("saved", p.saved_tensors)
""")


@pytest.fixture(scope="module")
def bare(tmp_path_factory):
    """An environment without torch or NumPy."""
    return _venv(tmp_path_factory.mktemp("bare") / "venv", see_torch=False)


def test_install_without_torch_finds_the_library_three_ways(bare, tmp_path):
    r = _run([bare, "-c", "import numpy"], cwd=tmp_path)
    assert r.returncode != 0, "the bare environment should not see NumPy"
    prog = tmp_path / "prog.py"
    prog.write_text(PROGRAM)
    pc = tmp_path / "pc"
    pc.mkdir()
    (pc / "symcut.pc").write_text(
        "libdir=%s\nName: symcut\nDescription: test\nVersion: 0\n"
        "Libs: -L${libdir} -lsymcut\n" % LIBDIR)
    want = str((LIBDIR / "libsymcut.so").resolve())
    ways = {"SYMCUT_LIB": _env(SYMCUT_LIB=str(LIBDIR / "libsymcut.so")),
            "SYMCUT_LIB folder": _env(SYMCUT_LIB=str(BUILD)),
            "SYMCUT_BUILDDIR": _env(SYMCUT_BUILDDIR=str(BUILD))}
    if shutil.which("pkg-config"):
        ways["pkg-config"] = _env(PKG_CONFIG_PATH=str(pc))
    else:
        print("pkg-config not installed: that way is not tested")
    for way, env in ways.items():
        r = _run([bare, prog, ZOO / "mlp_gelu.joint.txt"], cwd=tmp_path,
                 env=env)
        assert r.returncode == 0, (way, r.stdout, r.stderr)
        lib = r.stdout.split("library ", 1)[1].split()[0]
        assert str(pathlib.Path(lib).resolve()) == want, (way, lib)
        assert "saved [" in r.stdout
        print(way, "->", lib)
    # nothing to find: an ImportError that says what to set
    r = _run([bare, "-c", "import symcut"], cwd=tmp_path,
             env=_env(SYMCUT_LIB=str(tmp_path / "nowhere.so")))
    assert r.returncode != 0 and "SYMCUT_LIB" in r.stderr
    r = _run([bare, "-c", "import symcut.torch"], cwd=tmp_path,
             env=_env(SYMCUT_LIB=want))
    assert r.returncode != 0 and "torch" in r.stderr


TORCH_PROGRAM = textwrap.dedent("""
    import torch, symcut, symcut.torch as st
    assert "site-packages" in st.__file__, st.__file__
    from torch._dynamo.backends.common import aot_autograd
    from torch._dynamo.backends.debugging import boxed_nop
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.GELU(),
                                torch.nn.Linear(16, 4))
    x = torch.randn(4, 8)
    be = st.backend()
    fn = torch.compile(model, backend=be, fullgraph=True)
    loss = fn(x).sum()
    loss.backward()
    torch.testing.assert_close(loss, model(x).sum())
    print("records", be.records)
    assert be.records and be.records[0]["fallback"] is None
""")


def test_install_with_torch_partition_fn(tmp_path):
    pytest.importorskip("torch")
    py = _venv(tmp_path / "venv", see_torch=True)
    prog = tmp_path / "prog.py"
    prog.write_text(TORCH_PROGRAM)
    r = _run([py, prog], cwd=tmp_path,
             env=_env(SYMCUT_LIB=str(LIBDIR / "libsymcut.so")))
    assert r.returncode == 0, r.stdout + r.stderr[-3000:]
    assert "records [{" in r.stdout
