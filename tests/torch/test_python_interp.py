"""The symcut package without torch, second part: tensors (NumPy, lists,
.npy), the interpreter (Graph.run against the outputs PyTorch recorded in
examples/*.data), validation with given inputs, graph listings, memory
budgets, and ownership under thousands of repetitions (RSS, tracemalloc,
the C heap's in-use bytes, live handles).  Imported from the source tree
with the build's library."""
import ctypes
import ctypes.util
import gc
import json
import os
import pathlib
import sys
import tracemalloc

import numpy as np
import pytest

SRC = pathlib.Path(os.environ.get("SYMCUT_SRCDIR",
                                  pathlib.Path(__file__).resolve().parents[2]))
BUILD = pathlib.Path(os.environ.get("SYMCUT_BUILDDIR", SRC / "build"))
os.environ.setdefault("SYMCUT_LIB", str(BUILD / ".libs" / "libsymcut.so"))
sys.path.insert(0, str(SRC / "python"))
import symcut  # noqa: E402

EX = SRC / "examples"
ZOO = EX / "zoo"
TRACE = SRC / "tests" / "data" / "read" / "train.trace.log"
DATA = sorted(p.parent for p in EX.glob("*.data/manifest.json"))


# ---- tensors ----------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64",
                                   "int32", "int16", "int8", "uint8", "bool"])
def test_tensor_numpy_round_trip(dtype, tmp_path):
    rng = np.random.default_rng(7)
    a = (rng.standard_normal((3, 4, 5)) * 50).astype(dtype)
    t = symcut.Tensor.from_numpy(a)
    assert t.shape == (3, 4, 5) and t.strides == (20, 5, 1)
    assert t.dtype == dtype and t.numel == 60
    assert t.nbytes == a.nbytes
    assert np.array_equal(t.numpy(), a) and t.numpy().dtype == a.dtype
    # a non-contiguous array is copied in its logical order
    tt = symcut.Tensor.from_numpy(a.transpose(2, 0, 1)[:, ::2])
    assert np.array_equal(tt.numpy(), a.transpose(2, 0, 1)[:, ::2])
    # .npy through the library's writer and reader, file and bytes
    t.save(tmp_path / "a.npy")
    assert np.array_equal(np.load(tmp_path / "a.npy"), a)
    assert np.array_equal(symcut.read_npy(tmp_path / "a.npy").numpy(), a)
    np.save(tmp_path / "b.npy", a)
    back = symcut.Tensor.from_npy_bytes((tmp_path / "b.npy").read_bytes())
    assert np.array_equal(back.numpy(), a)
    assert symcut.Tensor.from_npy_bytes(t.to_npy_bytes()).tolist() == \
        a.tolist()


def test_tensor_lists_scalars_conversions():
    t = symcut.Tensor.from_list([[1, 2, 3], [4, 5, 6]], "int64")
    assert t.tolist() == [[1, 2, 3], [4, 5, 6]] and t.shape == (2, 3)
    assert symcut.Tensor.scalar(2 ** 62 + 1).item() == 2 ** 62 + 1
    assert symcut.Tensor.scalar(True).dtype == "bool"
    assert symcut.Tensor.scalar(0.5).tolist() == 0.5
    assert symcut.Tensor.zeros((2, 0)).numpy().shape == (2, 0)
    # the library's conversions: round to nearest even in bf16, truncation
    # toward zero to integers
    bf = symcut.Tensor.from_list([1.0, 1.00390625, 3.5], "bfloat16")
    assert bf.dtype == "bfloat16" and bf.tolist() == [1.0, 1.0, 3.5]
    assert bf.numpy().dtype == np.float32
    assert symcut.Tensor.from_list([-1.7, 2.9]).to("int32").tolist() == \
        [-1, 2]
    assert symcut.Tensor.from_list([0.0, 2.0]).to("bool").tolist() == \
        [False, True]
    assert np.array_equal(np.asarray(t), t.numpy())
    with pytest.raises(ValueError, match="ragged"):
        symcut.Tensor.from_list([[1, 2], [3]])
    with pytest.raises(ValueError, match="complex64"):
        symcut.Tensor.zeros((2,), "complex64")
    with pytest.raises(ValueError, match="unknown dtype"):
        symcut.Tensor.zeros((2,), "float12")
    with pytest.raises(symcut.InvalidError):
        symcut.Tensor.zeros((-1,))
    with pytest.raises(TypeError):
        symcut.Tensor.of(object())
    t.close()
    with pytest.raises(symcut.ClosedError):
        t.shape


def test_npy_errors_name_file_and_offset(tmp_path):
    good = symcut.Tensor.from_list([1.0, 2.0]).to_npy_bytes()
    with pytest.raises(symcut.ParseError) as ei:
        symcut.Tensor.from_npy_bytes(good[:20], "cut.npy")
    assert ei.value.file == "cut.npy" and "byte" in ei.value.message
    assert str(ei.value).startswith("cut.npy")
    bad = tmp_path / "bad.npy"
    bad.write_bytes(good.replace(b"<f4", b"<c8"))
    with pytest.raises(symcut.SymcutError) as ei:
        symcut.read_npy(bad)
    assert str(bad) in str(ei.value)
    with pytest.raises(symcut.IoError):
        symcut.read_npy(tmp_path / "missing.npy")
    # an atomic write: a failed save leaves nothing behind
    with pytest.raises(symcut.SymcutError):
        symcut.Tensor.from_list([1.0]).save(tmp_path / "no" / "x.npy")
    assert not (tmp_path / "no").exists()


# ---- the interpreter ----------------------------------------------------------

def _load_case(d):
    m = json.loads((d / "manifest.json").read_text())
    return m, [np.load(d / i["file"]) for i in m["inputs"]]


@pytest.mark.parametrize("data", DATA, ids=lambda p: p.name)
def test_run_matches_pytorch_outputs(data):
    """Graph.run of a joint graph on the inputs PyTorch drew equals the
    outputs PyTorch computed (the recorded .npy files)."""
    m, inputs = _load_case(data)
    g = symcut.Graph.read_file(data / m["joint_text"])
    assert g.placeholders == [i["placeholder"] for i in m["inputs"]]
    keep = [a.copy() for a in inputs]
    res = g.run(inputs)
    assert len(res) == m["num_outputs"]
    for out, want in zip(res, m["outputs"]):
        if want.get("file") is None:
            assert out is None or want.get("value") is not None
            continue
        ref = np.load(data / want["file"])
        got = out.numpy()
        assert got.shape == ref.shape, want
        np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-5,
                                   err_msg=str(want))
    # arrays are copied: an op mutating its input (batch norm's running
    # statistics) writes into the copy, never into the caller's array
    for a, b in zip(inputs, keep):
        assert np.array_equal(a, b)
    assert res.stats["peak_bytes"] > 0 and res.stats["kernel_calls"] > 0
    res.close()


def test_run_inputs_sizes_and_errors():
    g = symcut.Graph.read_file(ZOO / "mlp_gelu_dyn.joint.txt",
                               hints={"s77": 4})
    names = g.placeholders
    ins = g.random_inputs(seed=3, sizes={"s77": 6})
    assert ins[names.index("primals_4")].shape[0] == 6
    assert ins[names.index("primals_3")].item() == 6      # the SymInt
    # the same run from Tensors, from arrays with an int for the SymInt,
    # and from a dict by name
    a = g.run(ins, sizes={"s77": 6}).numpy()
    arrs = [t.numpy() if t.ndim else t.item() for t in ins]
    b = g.run(arrs).numpy()
    c = g.run(dict(zip(names, arrs))).numpy()
    for x, y, z in zip(a, b, c):
        assert (x is None and y is None and z is None) or \
            (np.array_equal(x, y) and np.array_equal(x, z))
    # random inputs by default, deterministic in the seed
    r1, r2 = g.run(seed=5).numpy(), g.run(seed=5).numpy()
    assert all(x is None or np.array_equal(x, y) for x, y in zip(r1, r2))
    st = g.run(seed=5, boundary="forward").stats
    assert st["boundary_node"] is not None and st["boundary_bytes"] > 0
    with pytest.raises(ValueError, match="placeholders"):
        g.run(arrs[:-1])
    with pytest.raises(ValueError, match="missing: tangents_1"):
        g.run({k: v for k, v in zip(names, arrs) if k != "tangents_1"})
    wrong = list(arrs)
    wrong[names.index("primals_4")] = np.zeros((5, 3, 7), np.float32)
    with pytest.raises(symcut.SymcutError) as ei:
        g.run(wrong)
    assert "primals_4" in str(ei.value)
    wrong[names.index("primals_4")] = arrs[names.index("primals_4")].astype(
        np.float64)
    with pytest.raises(symcut.SymcutError) as ei:
        g.run(wrong)
    assert "primals_4" in str(ei.value)
    nohint = "".join(
        l for l in (ZOO / "mlp_gelu_dyn.joint.txt").read_text().splitlines(
            keepends=True) if "symcut: hint" not in l)
    g2 = symcut.Graph.read_text(nohint, "nohint.txt")
    if not g2.hints:
        with pytest.raises(symcut.UnboundError) as ei:
            g2.random_inputs()
        assert "s77" in str(ei.value)
    assert g2.random_inputs(sizes={"s77": 2})[names.index("primals_4")] \
        .shape[0] == 2


def test_preflight_names_ops_without_kernel():
    text = (ZOO / "mlp_gelu.forward.txt").read_text().replace(
        "torch.ops.aten.gelu.default", "torch.ops.mylib.frob.default")
    g = symcut.Graph.read_text(text, "frob.txt")
    assert any("frob" in w for w in g.warnings)
    with pytest.raises(symcut.UnsupportedError) as ei:
        g.preflight()
    assert "mylib.frob" in str(ei.value)
    with pytest.raises(symcut.UnsupportedError):
        g.run(seed=1)
    with pytest.raises(symcut.UnsupportedError) as ei:
        symcut.Graph.read_text(text, "frob.txt", strict=True)
    assert ei.value.file == "frob.txt" and ei.value.line > 0
    assert symcut.Graph.read_file(ZOO / "mlp_gelu.forward.txt").preflight() \
        is None


def test_validate_with_given_inputs():
    m, inputs = _load_case(EX / "mlp_gelu.data")
    g = symcut.Graph.read_file(EX / "mlp_gelu.data" / m["joint_text"])
    p = g.partition("pytorch-2.13")
    rep = g.validate(p.forward, p.backward, inputs=inputs,
                     predicted_saved_bytes=p.saved_bytes)
    assert rep.passed, rep.message
    assert rep.saved_bytes == p.saved_bytes == rep.predicted_saved_bytes
    assert rep.stats["forward"]["peak_bytes"] == rep.peak_bytes["forward"]
    # a wrong prediction is caught, as is a partition of another graph
    bad = g.validate(p.forward, p.backward, inputs=inputs,
                     predicted_saved_bytes=p.saved_bytes + 4)
    assert not bad.passed and bad.kind == "saved_bytes"
    other = symcut.Graph.read_file(ZOO / "cnn.joint.txt", g.ctx).partition(
        "pytorch-2.13")
    rep = g.validate(other.forward, other.backward)
    assert not rep.passed and rep.kind in ("structure", "run_error")
    with pytest.raises(symcut.InvalidError, match="context"):
        g.validate(*[symcut.Graph.read_file(
            EX / "mlp_gelu.data" / m["joint_text"]).partition(
                "pytorch-2.13").forward] * 2)
    with pytest.raises(ValueError):
        g.validate(p.forward, p.backward, inputs=inputs[:2])


# ---- listings ------------------------------------------------------------------

def test_list_graphs_of_a_trace():
    entries = symcut.list_graphs_file(TRACE)
    assert [e["name"] for e in entries] == [
        "0/0:joint", "0/0:forward", "0/0:backward", "1/0:joint",
        "1/0:forward", "1/0:backward"]
    assert [e["kind"] for e in entries[:3]] == ["joint", "forward",
                                                 "backward"]
    assert entries[0]["static_inputs"] == [0, 1, 3, 4]
    assert entries[2]["static_inputs"] is None
    assert all(e["trace"] for e in entries) and entries[0]["line"] == 206
    bw = symcut.Graph.read_file(TRACE, graph="0/0:backward")
    assert bw.kind == "backward"
    assert len(symcut.Graph.read_file(TRACE, graph="3")) == \
        len(symcut.Graph.read_file(TRACE, graph="1/0:joint"))
    with pytest.raises(symcut.InvalidError) as ei:
        symcut.Graph.read_file(TRACE, graph="7/0:joint")
    assert "0/0:joint" in str(ei.value)       # lists the choices
    with pytest.raises(symcut.InvalidError):
        symcut.Graph.read_file(TRACE)         # several graphs, none chosen
    logs = symcut.list_graphs_file(EX / "mlp_gelu.joint.torch_logs.txt")
    assert len(logs) == 1 and logs[0]["compile_id"] == "0/0" and \
        not logs[0]["trace"]
    with pytest.raises(symcut.SymcutError) as ei:
        symcut.list_graphs("nothing here\n", "empty.txt")
    assert ei.value.file == "empty.txt" and ei.value.line == 1


def test_read_kind_and_input_types():
    text = (ZOO / "mlp_gelu.forward.txt").read_text()
    g = symcut.Graph.read_text(text, kind="inference")
    assert g.kind == "inference"
    with pytest.raises(ValueError, match="unknown graph kind"):
        symcut.Graph.read_text(text, kind="sideways")
    with pytest.raises(symcut.InvalidError):
        symcut.Graph.read_text(text, input_types={"nope": "f32[2]"})


# ---- memory budget ------------------------------------------------------------

def test_parse_memory_budget():
    B, R = 1, 2
    cases = {"1234567": (B, 1234567), "40MB": (B, 40 * 10 ** 6),
             "1.5GiB": (B, 3 * 2 ** 29), "0.5": (R, 0.5), "1": (R, 1.0),
             "0": (R, 0.0), "2": (B, 2), " 64 KiB ": (B, 65536),
             0.25: (R, 0.25), 1: (R, 1.0), 4096: (B, 4096)}
    for text, want in cases.items():
        assert symcut.parse_memory_budget(text) == want, text
    for bad in ("1.5", "-3", "40XB", "", "MB", 1.5, -0.1, float("nan"),
                True, 2 ** 64, "0.5B"):
        with pytest.raises(ValueError) as ei:
            symcut.parse_memory_budget(bad)
        assert "memory_budget" in str(ei.value)


def test_memory_budget_partition():
    g = symcut.Graph.read_file(ZOO / "gpt2_block.joint.txt")
    if not symcut.has_memory_budget():
        with pytest.raises(symcut.UnsupportedError, match="memory budget"):
            g.partition("exact", memory_budget=0.5)
        pytest.skip("libsymcut has no memory budget (%s)"
                    % symcut.library_path)
    with pytest.raises(symcut.InvalidError, match="memory budget"):
        g.partition("pytorch-1.13", memory_budget=0.5)
    for policy in ("exact", "pytorch-2.13"):
        full = g.partition(policy)
        lo = g.partition(policy, memory_budget=0.0)
        assert g.partition(policy, memory_budget=1.0).saved_bytes == \
            full.saved_bytes
        half = g.partition(policy, memory_budget=0.5)
        assert lo.saved_bytes <= half.saved_bytes <= full.saved_bytes
        for p in (lo, half):
            rep = p.validate()
            assert rep.passed, (policy, rep.message)
        budget = (lo.saved_bytes + full.saved_bytes) // 2
        if policy == "exact" and budget > 1:
            p = g.partition(policy, memory_budget=budget)
            assert p.saved_bytes <= budget and p.validate().passed
            assert g.partition(policy, memory_budget="%dB" % budget) \
                .saved_bytes == p.saved_bytes


def test_pareto_frontier():
    from symcut import _lib
    g = symcut.Graph.read_file(ZOO / "gpt2_block.joint.txt")
    if not _lib.HAS_FRONTIER:
        with pytest.raises(symcut.UnsupportedError, match="frontier"):
            symcut.pareto(g)
        pytest.skip("libsymcut has no frontier (%s)" % symcut.library_path)
    f = symcut.pareto(g, points=3)
    pts = f.points
    assert len(pts) == len(f) >= 2
    assert len(f.breakpoints) == sum(p["hull_vertex"] for p in pts) - 1
    for a, b in zip(pts, pts[1:]):
        assert a["saved_bytes"] < b["saved_bytes"]
        assert a["recompute_cost"] >= b["recompute_cost"]
    for i, p in enumerate(pts):
        assert p["valid"] and p["lower_bound"] <= p["recompute_cost"]
        assert len(p["saved"]) == p["saved_tensors"] + p["saved_symints"]
        sc = f.score(p["saved"])      # the library rescoring its own set
        assert (sc["saved_bytes"], sc["recompute_cost"]) == \
            (p["saved_bytes"], p["recompute_cost"])
        part = f.partition(i)
        assert part.saved_bytes == p["saved_bytes"]
        assert part.validate().passed
    least, most = pts[0]["saved_bytes"], pts[-1]["saved_bytes"]
    budget = (least + most) // 2
    s = f.solve(budget)
    assert s["saved_bytes"] <= budget and s["valid"]
    assert s["lower_bound"] <= s["recompute_cost"]
    ex = g.partition("exact", memory_budget=budget)
    assert ex.saved_bytes <= budget
    if s["optimal"]:
        assert f.score(ex.saved_tensors + ex.saved_symints)[
            "recompute_cost"] >= s["recompute_cost"]
    with pytest.raises(symcut.InvalidError, match=str(least)):
        f.solve(least - 1)
    with pytest.raises(ValueError):
        f.solve(0.5)
    bad = f.score(["primals_1", "tangents_1"])
    assert not bad["valid"] or bad["saved_bytes"] >= 0
    assert f.default_cut["valid"]
    with pytest.raises(TypeError):
        symcut.pareto(g, nonsense=1)
    g.close()
    assert f.closed


# ---- ownership -------------------------------------------------------------------

def _c_heap_in_use():
    """glibc's bytes in use on the C heap (mallinfo2), or None."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c"))
        f = libc.mallinfo2
    except (OSError, AttributeError, TypeError):
        return None

    class MallInfo2(ctypes.Structure):
        _fields_ = [(n, ctypes.c_size_t) for n in (
            "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
            "fsmblks", "uordblks", "fordblks", "keepcost")]
    f.restype = MallInfo2
    m = f()
    return m.uordblks + m.hblkhd


def _rss_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


@pytest.mark.skipif(not os.path.exists("/proc/self/status"),
                    reason="needs /proc")
def test_no_leak_tensors_runs_listings(tmp_path):
    """Thousands of tensors, runs, .npy round trips, listings and failing
    calls: the live handles return to where they were, and neither the C
    heap nor Python's allocations nor the RSS grow."""
    n = int(os.environ.get("SYMCUT_CASES", 3000))
    print("iterations:", n)
    trace_text = TRACE.read_text()
    g = symcut.Graph.read_file(ZOO / "mlp_gelu.joint.txt")
    arrs = [t.numpy() for t in g.random_inputs(seed=1)]
    npy = tmp_path / "x.npy"
    from symcut import _lib
    frontier = _lib.HAS_FRONTIER

    def once(i):
        r = g.run(arrs if i % 2 else None, seed=i)
        if i % 3 == 0:
            r.close()                 # else: left to the finalizers
        t = symcut.Tensor.from_numpy(arrs[0])
        b = t.to_npy_bytes()
        symcut.Tensor.from_npy_bytes(b).numpy()
        if i % 50 == 0:
            t.save(npy)
            symcut.read_npy(npy).close()
        symcut.Tensor.from_list([[1, 2], [3, 4]], "bfloat16").tolist()
        if frontier and i % 20 == 0:
            f = symcut.pareto(g)
            f.points
            if i % 40 == 0:
                f.close()
        if i % 5 == 0:
            symcut.list_graphs(trace_text)
        for bad in (lambda: symcut.Tensor.from_npy_bytes(b[:30]),
                    lambda: g.run(arrs[:2]),
                    lambda: g.run(arrs[:1] + [arrs[0]] * (len(arrs) - 1)),
                    lambda: symcut.list_graphs("x = 1\n")):
            try:
                bad()
            except (symcut.SymcutError, ValueError):
                pass
            else:
                raise AssertionError("expected an error")

    for i in range(50):                # warm up caches and arenas
        once(i)
    gc.collect()
    base = symcut.live_objects()
    # three windows of n/3 iterations: a leak grows in every one; what is
    # allocated once (a cache, an arena, a buffer NumPy keeps) lands in
    # one of them
    tracemalloc.start()
    windows = []
    for w in range(3):
        gc.collect()
        heap0, rss0 = _c_heap_in_use(), _rss_kib()
        snap0 = tracemalloc.take_snapshot()
        for i in range(n // 3):
            once(i)
        gc.collect()
        snap1 = tracemalloc.take_snapshot()
        heap1, rss1 = _c_heap_in_use(), _rss_kib()
        py = sum(s.size_diff for s in snap1.compare_to(snap0, "filename"))
        heap = None if heap0 is None else heap1 - heap0
        windows.append((heap, py, rss1 - rss0))
        print("window %d: live handles %d -> %d; C heap growth %s bytes; "
              "Python growth %d bytes; RSS growth %d KiB" % (
                  w, base, symcut.live_objects(), heap, py, rss1 - rss0))
        for st in snap1.compare_to(snap0, "lineno")[:3]:
            print("  ", st)
    tracemalloc.stop()
    heap = None if windows[0][0] is None else min(w[0] for w in windows)
    py_growth = min(w[1] for w in windows)
    rss = min(w[2] for w in windows)
    assert symcut.live_objects() == base
    if heap is not None:
        assert heap < 64 * 1024
    assert py_growth < 64 * 1024
    assert rss < 2048


def test_pareto_policies_replay_random_and_torch_budget():
    """The frontier's newer half: its policy, replay_random (random ops
    recomputed, their draws replayed: points that save less than without),
    partition_saved of a point's set, and torch 2.13's own decision at a
    ratio scored against the exact frontier (never below its bound)."""
    from symcut import _lib
    if not _lib.HAS_FRONTIER:
        pytest.skip("libsymcut has no frontier (%s)" % symcut.library_path)
    g = symcut.Graph.read_file(ZOO / "transformer_encoder_layer.joint.txt")
    plain = symcut.pareto(g)
    replay = symcut.pareto(g, replay_random=True)
    assert plain.policy == replay.policy == "exact"
    assert all(p["replayed_random"] == 0 for p in plain.points)
    least = replay.points[0]
    assert least["replayed_random"] > 0
    assert least["saved_bytes"] < plain.points[0]["saved_bytes"]
    part = replay.partition_saved(least["saved"])
    assert part.saved_bytes == least["saved_bytes"]
    rep = part.validate()
    assert rep.passed, rep.message
    # a set the frontier may not take: recomputing a random op without
    # replay_random (the plain frontier), named in the error
    with pytest.raises(symcut.InvalidError):
        plain.partition_saved(least["saved"])
    t213 = symcut.pareto(g, policy="pytorch-2.13")
    assert t213.policy == "pytorch-2.13"
    # torch 2.13 at ratio 0 recomputes a dropout (re-drawing it): not a
    # decision of the exact frontier, which names the node; its default
    # cut is one
    lo, hi = plain.torch_budget(0.0), plain.torch_budget(1.0)
    assert not lo["valid"] and "dropout" in lo["invalid_node"]
    assert hi["valid"] and hi["lower_bound"] <= hi["recompute_cost"]
    for t in (lo, hi):
        assert t["saved_bytes"] == t["budget"]
        assert len(t["saved"]) == t["saved_tensors"] + t["saved_symints"]
    assert hi["saved_bytes"] >= plain.points[0]["saved_bytes"]
    assert lo["saved_bytes"] <= hi["saved_bytes"]
    ref = g.partition("pytorch-2.13", memory_budget=0.0)
    assert sorted(lo["saved"]) == sorted(ref.saved_tensors +
                                         ref.saved_symints)
    with pytest.raises(symcut.InvalidError):
        plain.torch_budget(1.5)
    with pytest.raises(TypeError):
        symcut.pareto(g, replay_random=True, nonsense=1)
    g.close()
