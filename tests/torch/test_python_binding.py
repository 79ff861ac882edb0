"""The symcut Python package without torch: every wrapped part, errors with
their messages and locations, ownership (handles freed, no RSS growth).
Imported from the source tree with the build's library."""
import gc
import os
import pathlib
import sys

import pytest

SRC = pathlib.Path(os.environ.get("SYMCUT_SRCDIR",
                                  pathlib.Path(__file__).resolve().parents[2]))
BUILD = pathlib.Path(os.environ.get("SYMCUT_BUILDDIR", SRC / "build"))
os.environ.setdefault("SYMCUT_LIB", str(BUILD / ".libs" / "libsymcut.so"))
sys.path.insert(0, str(SRC / "python"))
import symcut  # noqa: E402

ZOO = SRC / "examples" / "zoo"


def test_library_is_the_build():
    assert pathlib.Path(symcut.library_path).resolve() == \
        (BUILD / ".libs" / "libsymcut.so").resolve()


def test_expressions():
    ctx = symcut.Context()
    s0, s1 = ctx.symbols("s0 s1")
    e = s0 * s1 + 2
    assert str(e) == "s0*s1 + 2"
    assert ctx.parse("2 + s1*s0") == e          # interned: same node
    assert hash(ctx.parse("s0*s1+2")) == hash(e)
    assert e.kind == "Add" and [str(x) for x in e.free_symbols] == ["s0", "s1"]
    assert e.eval(s0=3, s1=4) == 14
    assert (ctx.int(-7) // 2).eval() == -4 and (ctx.int(-7) % 2).eval() == 1
    assert symcut.CeilDiv(s0, 8).eval(s0=9) == 2
    assert symcut.Max(1, s1).eval(s1=0) == 1
    assert int(ctx.parse("2**100")) == 2 ** 100
    assert (s0 >= 2).is_bool and (s0 >= 2).eval(s0=2) is True
    assert str(symcut.Eq(symcut.Mod(s0, 8), 0)) == "Eq(Mod(s0, 8), 0)"
    assert (s0 // 8).simplify({"s0": (0, 7)}) == ctx.int(0)
    assert e.range({"s0": (1, 3), "s1": (2, None)}) == symcut.Range(4, None)
    assert e.subs(s0=s1) == s1 ** 2 + 2
    assert "x" not in str(e) and "s0" in e.to_c()
    assert "static inline" in symcut.c_prelude()
    assert ctx.parse("s0 < 3 and s1 > 1").kind == "And"
    with pytest.raises(TypeError):
        bool(s0 > 1)


def test_expression_errors():
    ctx = symcut.Context()
    with pytest.raises(symcut.ParseError) as ei:
        ctx.parse("s0 +* 2", file="shapes.txt", line=7)
    err = ei.value
    assert (err.file, err.line, err.column) == ("shapes.txt", 7, 5)
    assert err.status == "ERR_PARSE" and isinstance(err, ValueError)
    assert str(err).startswith("shapes.txt:7:5: ")
    with pytest.raises(symcut.DivZeroError):
        ctx.parse("s0 // 0")
    with pytest.raises(symcut.UnboundError) as ei:
        ctx.parse("s0 + s1").eval(s0=1)
    assert "s1" in str(ei.value)
    with pytest.raises(symcut.TypeError_ if hasattr(symcut, "TypeError_")
                       else symcut.SymcutError):
        ctx.parse("(s0 > 1) + 1")
    with pytest.raises(symcut.InvalidError):
        ctx.symbol("Mod")
    with pytest.raises(ValueError):
        ctx.symbol("s0") + symcut.Context().symbol("s0")


def test_shape_env_and_guards():
    env = symcut.ShapeEnv()
    s0 = env.create_symbol(8, "x.size(0)")
    s1 = env.create_symbol(16, "y.size(0)")
    assert env.create_symbol(8, "z.size(0)") == s0      # duck sizing
    assert int(env.create_symbol(1, "w.size(0)")) == 1   # 0/1 specialized
    u0 = env.create_unbacked(size_like=True)
    assert env.is_backed(s0) and not env.is_backed(u0)
    assert env.is_size_like(u0) and env.source_of(s0) == "x.size(0)"
    assert env.statically_known(s0 >= 2) is True
    assert env.statically_known(s0 >= 9) is None
    assert env.guard(s0 * 2 <= s1) is True
    assert env.guard(symcut.Eq(s0 % 4, 0)) is True
    assert env.guard_or(u0 > 5, False) is False
    assert env.size_oblivious(u0.ne(1)) is True
    with pytest.raises(symcut.DataDependentError) as ei:
        env.guard(u0 > 5)
    assert "u0" in str(ei.value)
    env.check(u0 <= 100)
    assert len(env.runtime_asserts) == 1
    assert env.hint(s0 + 1) == 9 and env.hint(s1 - s0) == 8
    assert env.range(u0) == symcut.Range(0, 100)
    assert len(env.guards) >= 2
    gs = env.produce_guards()
    assert "Eq(Mod(x.size(0), 4), 0)" in gs.texts
    assert gs.sources[:2] == ["x.size(0)", "y.size(0)"]
    sizes = {"x.size(0)": 8, "y.size(0)": 16, "z.size(0)": 8, "w.size(0)": 1}
    assert gs.check(sizes) is None
    bad = dict(sizes, **{"x.size(0)": 6, "z.size(0)": 6})
    i = gs.check(bad)
    assert i is not None and "x.size(0)" in gs.texts[i]
    assert gs.check(dict(sizes, **{"z.size(0)": 9})) is not None
    assert "x_size_0" in gs.to_c()
    with pytest.raises(symcut.GuardError):
        env.check(s0 > 100)
    with pytest.raises(ValueError):
        gs.check([1])
    env2 = symcut.ShapeEnv()
    t0 = env2.create_symbol(5, "a.size(0)")
    assert env2.guard_int(t0 + 1) == 6
    assert env2.produce_guards().texts == ["a.size(0) == 5"]


def test_graph_read_partition_validate():
    g = symcut.Graph.read_file(ZOO / "mlp_gelu_dyn.joint.txt",
                               hints={"s77": 4})
    assert g.primal_count == 6 and g.tangent_count == 1
    assert g.hints == {"s77": 4}
    assert g.node("addmm").target == "torch.ops.aten.addmm.default"
    assert g.node("addmm").op_class is not None
    meta = g.node("primals_4").meta
    assert meta["dtype"] == "float32" and str(meta["sizes"][0]) == "s77"
    assert g.node("primals_3").meta["kind"] == "symint"
    assert "primals_1" in g and "nope" not in g
    again = symcut.Graph.read_text(g.to_text(), "again.txt")
    assert g.equal(again)[0]
    assert "digraph" in g.to_dot()
    for policy in symcut.policies():
        p = g.partition(policy)
        assert p.policy == policy or policy == "pytorch"
        rep = p.validate()
        assert rep.passed, rep.message
        j = p.to_json()
        assert j["saved_tensors"] == p.saved_tensors
        assert j["saved_symints"] == p.saved_symints
        assert j["saved_bytes"] == p.saved_bytes
        assert p.saved_bytes == p.saved_bytes_formula.eval(s77=4)
        assert len(p.forward) == j["forward_nodes"]
        assert len(p.backward) == j["backward_nodes"]
        for name in p.saved_tensors:
            assert p.node(name)["place"] == "saved"
        assert set(p.timings) == set(symcut.PHASES)
        assert "saved" in p.to_text()
    p = g.partition("pytorch", graphs=False, cse=False,
                    rules_off=["reductions"], max_dist_from_bw=5,
                    long_chain_limit=3, unbacked_fallback=100,
                    tags={"gelu": "must_recompute"})
    assert p.forward is None and "gelu" not in p.saved_tensors
    assert p.node("gelu")["tag"] == "must_recompute"
    assert p.rules["reductions"] is False and p.rules["long_chain_limit"] == 3
    p4 = g.partition("pytorch")
    p8 = g.partition("pytorch", hints={"s77": 64})
    assert p8.saved_bytes > p4.saved_bytes
    # the hint went on the graph (its one home): it stays
    assert g.hints == {"s77": 64}
    assert g.partition("pytorch").saved_bytes == p8.saved_bytes
    assert g.partition("pytorch", aggressive_recomputation=True).rules[
        "used_far_apart"] is False
    with pytest.raises(ValueError):
        g.partition("nonsense")
    with pytest.raises(symcut.InvalidError):
        g.partition("pytorch", tags={"nonexistent": "must_save"})
    with pytest.raises(ValueError):
        g.partition("pytorch", rules_off=["nonsense"])


def test_graph_joint_random_gradcheck():
    fwd = symcut.Graph.random(seed=3, nodes=10)
    joint = fwd.joint()
    assert joint.tangent_count >= 1
    rep = joint.gradcheck(seed=1)
    assert rep["checked"] > 0
    p = joint.partition("pytorch")
    assert p.validate(seed=2).passed


def test_graph_errors_have_locations():
    text = (ZOO / "mlp_gelu.joint.txt").read_text().splitlines()
    bad = [l.replace("torch.ops.aten.gelu.default(addmm)",
                     "torch.ops.aten.gelu.default(addmm, @)") for l in text]
    line = next(i for i, l in enumerate(bad) if "(addmm, @)" in l) + 1
    with pytest.raises(symcut.SymcutError) as ei:
        symcut.Graph.read_text("\n".join(bad) + "\n", "broken.txt")
    assert ei.value.file == "broken.txt" and ei.value.line == line
    assert ei.value.column > 0 and str(ei.value).startswith(
        "broken.txt:%d:" % line)
    with pytest.raises(symcut.SymcutError) as ei:
        symcut.Graph.read_file("/nonexistent/graph.txt")
    assert "nonexistent" in str(ei.value)
    fwd = symcut.Graph.read_file(ZOO / "mlp_gelu.forward.txt")
    with pytest.raises(symcut.InvalidError) as ei:
        fwd.partition("pytorch")
    assert "tangent" in str(ei.value)


def test_ownership_close_and_children():
    gc.collect()        # what earlier tests left to the finalizers goes now
    base = symcut.live_objects()
    ctx = symcut.Context()
    g = symcut.Graph.read_file(ZOO / "mlp_gelu.joint.txt", ctx)
    p = g.partition("pytorch")
    fw = p.forward
    env = symcut.ShapeEnv(ctx)
    assert symcut.live_objects() == base + 5
    ctx.close()                      # closes everything that depends on it
    assert p.closed and g.closed and fw.closed and env.closed
    assert symcut.live_objects() == base
    with pytest.raises(symcut.ClosedError):
        p.saved_tensors
    with pytest.raises(symcut.ClosedError):
        str(ctx.symbol("s0"))
    ctx.close()                      # twice: nothing
    with symcut.Context() as c2:
        c2.parse("s0")
    assert c2.closed


def _rss_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


@pytest.mark.skipif(not os.path.exists("/proc/self/status"),
                    reason="needs /proc")
def test_no_leak_under_repeated_use():
    text = (ZOO / "mlp_gelu.joint.txt").read_text()
    n = int(os.environ.get("SYMCUT_CASES", 150))
    print("iterations:", n)

    def once():
        g = symcut.Graph.read_text(text, "mlp_gelu.joint.txt")
        p = g.partition("pytorch")
        assert p.validate().passed if once.first else True
        once.first = False
        p.to_json()
        env = symcut.ShapeEnv(g.ctx)
        s = env.create_symbol(8, "x.size(0)")
        env.guard(s > 4)
        env.produce_guards().check([8])
        try:
            g.ctx.parse("s0 +")
        except symcut.ParseError:
            pass
        if once.explicit:
            g.ctx.close()
        # else: everything is dropped and left to the finalizers
    once.first = True
    gc.collect()  # what earlier tests left to the finalizers is not ours
    base = symcut.live_objects()
    for explicit in (True, False):
        once.explicit = explicit
        for _ in range(10):
            once()
        gc.collect()
        before = _rss_kib()
        for _ in range(n):
            once()
        gc.collect()
        grown = _rss_kib() - before
        assert symcut.live_objects() == base
        print("explicit close" if explicit else "finalizers",
              "RSS growth over %d iterations: %d KiB" % (n, grown))
        assert grown < 4096
