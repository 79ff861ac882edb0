"""Trace one zoo model (run by zoo.py in a child process whose environment
sets TORCH_TRACE and TORCH_LOGS).

The backend is aot_autograd with:
  * partition_fn: records the joint module it is given (the graph the
    joint-graph log printed), calls torch 2.13's
    min_cut_rematerialization_partition with the same arguments, and
    records its decision (saved tensors and SymInts in order, node counts,
    num_fwd_outputs, static_lifetime_input_indices);
  * fw/bw compilers that run the graphs as they are (no inductor).
After the compiled call, the joint module is executed with torch on the
real inputs (primals) and seeded tangents: those are the reference data.
The compiled forward/backward are also run and compared with it.
"""
import hashlib
import json
import pathlib
import sys

import numpy as np
import torch
import torch._dynamo
import torch._functorch.config as fconfig
from torch._dynamo.backends.common import aot_autograd
from torch._functorch.aot_autograd import make_boxed_func
from torch._functorch.partitioners import min_cut_rematerialization_partition
from torch.fx.experimental.symbolic_shapes import optimization_hint

from models import BY_NAME

NP_DTYPE = {
    torch.float32: "float32", torch.float64: "float64", torch.float16: "float16",
    torch.int64: "int64", torch.int32: "int32", torch.int16: "int16",
    torch.int8: "int8", torch.uint8: "uint8", torch.bool: "bool",
}


def hint(v):
    if isinstance(v, torch.SymInt):
        return optimization_hint(v, fallback=4096)
    return int(v)


def is_sym(n):
    return isinstance(n.meta.get("val"), (torch.SymInt, torch.SymFloat, torch.SymBool))


def tensor_bytes(n):
    v = n.meta.get("val")
    if not isinstance(v, torch.Tensor):
        return 0
    numel = 1
    for s in v.shape:
        numel *= hint(s)
    return numel * v.element_size()


def fx_type(v):
    """How print_readable annotates a value (for the JSON, not the texts)."""
    if isinstance(v, torch.Tensor):
        return "%s%s" % (str(v.dtype).replace("torch.", ""), list(v.shape))
    if isinstance(v, (torch.SymInt, torch.SymFloat, torch.SymBool)):
        return "Sym(%s)" % v
    return type(v).__name__


class Recorder:
    def __init__(self):
        self.joint = None
        self.joint_inputs = None
        self.decision = None
        self.example_inputs = None
        self.dynamo_placeholders = None
        self.calls = 0

    # ---- the backend ----
    def backend(self):
        def partition_fn(joint_module, joint_inputs, *, num_fwd_outputs,
                         static_lifetime_input_indices=None, **kw):
            self.calls += 1
            self.joint = joint_module
            # Inputs whose new value is a forward output (the mutations the
            # graph does not keep as copy_), first among the outputs, as the
            # output descriptors of the joint say.
            out_node = next(n for n in joint_module.graph.nodes if n.op == "output")
            descs = out_node.meta.get("desc") or []
            self.mutated_outputs = [d.mutated_input.idx for d in descs
                                    if type(d).__name__ == "InputMutationAOTOutput"]
            self.mutated_in_graph = [
                n.args[0].name for n in joint_module.graph.nodes
                if n.op == "call_function" and n.target is torch.ops.aten.copy_.default
                and n.args[0].op == "placeholder"]
            # Counts before partitioning: the partitioner edits its copy only.
            jn = list(joint_module.graph.nodes)
            fw, bw = min_cut_rematerialization_partition(
                joint_module, joint_inputs, num_fwd_outputs=num_fwd_outputs,
                static_lifetime_input_indices=static_lifetime_input_indices, **kw)
            self.decision = self.describe(jn, fw, bw, num_fwd_outputs,
                                          static_lifetime_input_indices, kw)
            return fw, bw

        def fw_compiler(gm, example_inputs):
            return make_boxed_func(gm.forward)

        inner = aot_autograd(fw_compiler=fw_compiler, bw_compiler=fw_compiler,
                             partition_fn=partition_fn)

        def backend(gm, example_inputs):
            # SymInt inputs of a dynamic graph arrive as SymInts: their hints
            # are the values this call runs with.
            self.example_inputs = [x.detach().clone() if isinstance(x, torch.Tensor) else
                                   hint(x) if isinstance(x, torch.SymInt) else x
                                   for x in example_inputs]
            self.param_flags = [isinstance(x, torch.nn.Parameter) for x in example_inputs]
            self.input_ids = [id(x) for x in example_inputs]
            self.dynamo_placeholders = [n.name for n in gm.graph.nodes if n.op == "placeholder"]
            return inner(gm, example_inputs)
        return backend

    def describe(self, jn, fw, bw, num_fwd_outputs, static_idx, kw):
        joint_names = {n.name for n in jn}
        fw_out = next(n for n in fw.graph.nodes if n.op == "output").args[0]
        saved = [a for a in fw_out[num_fwd_outputs:] if a is not None]
        saved_t = [a.name for a in saved if not is_sym(a)]
        saved_s = [a.name for a in saved if is_sym(a)]
        by_name = {n.name: n for n in jn}
        fw_calls = [n for n in fw.graph.nodes if n.op == "call_function"]
        bw_calls = [n for n in bw.graph.nodes if n.op == "call_function"]
        fw_names = {n.name for n in fw_calls}
        recomputed = [n.name for n in bw_calls if n.name in fw_names]
        primals = [n for n in jn if n.op == "placeholder" and n.name.startswith("primals")]
        saved_bytes = sum(tensor_bytes(by_name[s]) for s in saved_t if s in by_name)
        primal_names = {p.name for p in primals}
        return {
            "saved_tensors": saved_t,
            "saved_symints": saved_s,
            "num_saved_tensors": len(saved_t),
            "num_saved_symints": len(saved_s),
            "saved_not_in_joint": [s for s in saved_t + saved_s if s not in joint_names],
            "saved_tensor_bytes": saved_bytes,
            "saved_tensor_bytes_excluding_primals": sum(
                tensor_bytes(by_name[s]) for s in saved_t
                if s in by_name and s not in primal_names),
            "num_fwd_outputs": num_fwd_outputs,
            "static_lifetime_input_indices": list(static_idx or []),
            "fw_call_function_nodes": len(fw_calls),
            "bw_call_function_nodes": len(bw_calls),
            "fw_nodes_total": len(fw.graph.nodes),
            "bw_nodes_total": len(bw.graph.nodes),
            "forward_nodes": sum(1 for n in fw.graph.nodes if n.op in ("placeholder", "call_function", "get_attr")),
            "forward_calls": len(fw_calls),
            "backward_nodes": sum(1 for n in bw.graph.nodes if n.op in ("placeholder", "call_function", "get_attr")),
            "backward_calls": len(bw_calls),
            "recomputed_in_bw": recomputed,
            "bw_placeholders": [n.name for n in bw.graph.nodes if n.op == "placeholder"],
            "partition_fn": "torch._functorch.partitioners.min_cut_rematerialization_partition"
                            "(compiler='inductor', the 2.13 default)%s" % (
                                " extra %s" % sorted(kw) if kw else ""),
        }


def to_numpy(t):
    """A NumPy copy of t, or None for bfloat16 (NumPy has no such type:
    the manifest names no file; np.save of None would write an object
    array that no reader of .npy files takes)."""
    t = t.detach().contiguous()
    if t.dtype == torch.bfloat16:
        return None
    arr = t.numpy()
    assert arr.dtype != object, t.dtype
    return arr


def run(name, out, tmp, seed):
    case = BY_NAME[name]
    if case.no_mkldnn:
        # nn.LSTM on CPU otherwise becomes mkldnn_rnn_layer, whose joint
        # torch itself cannot run without inductor (an undefined workspace).
        with torch.backends.mkldnn.flags(enabled=False):
            return run_case(case, name, out, tmp, seed)
    return run_case(case, name, out, tmp, seed)


def run_case(case, name, out, tmp, seed):
    torch.manual_seed(seed)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    fconfig.enable_autograd_cache = False
    torch._dynamo.config.capture_scalar_outputs = True
    torch._dynamo.config.capture_dynamic_output_shape_ops = True
    torch._dynamo.config.allow_rnn = True
    gen = torch.Generator().manual_seed(seed)
    model, inputs = case.build(gen)
    model.train()
    rec = Recorder()
    fn = model
    if case.autocast_bf16:
        def fn(*a):
            with torch.autocast("cpu", dtype=torch.bfloat16):
                return model(*a)
    compiled = torch.compile(fn, backend=rec.backend(), fullgraph=True,
                             dynamic=case.dynamic)
    run_inputs = [x.clone() for x in inputs]
    if case.random:
        torch.manual_seed(seed)
    try:
        result = compiled(*run_inputs)
        rec.run_error = None
    except Exception as e:  # torch failed after tracing: keep what it printed
        if rec.joint is None:
            raise
        result = None
        rec.run_error = "%s: %s" % (type(e).__name__, str(e).splitlines()[0][:300])
    if rec.calls != 1:
        raise SystemExit("zoo: %s: %d partition calls (expected 1)" % (name, rec.calls))
    write_case(case, model, rec, result, out, seed, run_inputs)
    print("zoo: %s: joint %d nodes, saved %d tensors + %d symints" % (
        name, len(rec.joint.graph.nodes), rec.decision["num_saved_tensors"],
        rec.decision["num_saved_symints"]))
    return 0


def write_case(case, model, rec, result, out, seed, user_inputs):
    name = case.name
    joint = rec.joint
    ph = [n for n in joint.graph.nodes if n.op == "placeholder"]
    primals = [n for n in ph if n.name.startswith("primals")]
    tangents = [n for n in ph if n.name.startswith("tangents")]
    num_fwd = rec.decision["num_fwd_outputs"]
    joint_out = next(n for n in joint.graph.nodes if n.op == "output").args[0]
    params = dict((id(p), k) for k, p in model.named_parameters())
    buffers = dict((id(b), k) for k, b in model.named_buffers())

    # Primals are the dynamo graph's inputs, in order (parameters and
    # buffers are graph inputs since inline_inbuilt_nn_modules).
    ex = rec.example_inputs
    if len(ex) != len(primals):
        raise SystemExit("zoo: %s: %d example inputs for %d primals" % (name, len(ex), len(primals)))
    static_idx = set(rec.decision["static_lifetime_input_indices"])
    roles = {}
    param_names = []
    user = {id(x): k for k, x in enumerate(user_inputs)}
    for i, (p, src) in enumerate(zip(primals, rec.dynamo_placeholders)):
        xid = rec.input_ids[i]
        if xid in params:
            roles[p.name] = "param:" + params[xid]
            param_names.append(p.name)
        elif xid in buffers:
            roles[p.name] = "buffer:" + buffers[xid]
        elif xid in user:
            roles[p.name] = "input:%d" % user[xid]
        elif not isinstance(ex[i], torch.Tensor):
            roles[p.name] = "symint:%s" % p.meta.get("val")
        else:
            roles[p.name] = "other:" + src

    # Tangents: seeded, at the hints of the joint's placeholder sizes.
    g = torch.Generator().manual_seed(seed + 1)
    tan = []
    for t in tangents:
        v = t.meta["val"]
        shape = [hint(s) for s in v.shape]
        tan.append(torch.randn(shape, generator=g, dtype=torch.float32).to(v.dtype))
    prim = [x.clone() if isinstance(x, torch.Tensor) else x for x in ex]
    if case.random:
        torch.manual_seed(seed)
    with torch.no_grad():
        outs = torch.fx.Interpreter(joint).run(*prim, *tan)

    # Compare with what the compiled forward/backward computed.
    check = compare_compiled(case, rec, result, outs, num_fwd, tan)

    symbols, unbacked = symbol_hints(primals, tangents)
    jinfo = {
        "nodes_total": len(joint.graph.nodes),
        "placeholders": len(ph),
        "call_function": sum(1 for n in joint.graph.nodes if n.op == "call_function"),
        "get_attr": sum(1 for n in joint.graph.nodes if n.op == "get_attr"),
        "num_primals": len(primals),
        "num_tangents": len(tangents),
        "num_fwd_outputs": num_fwd,
        "num_bwd_outputs": len(joint_out) - num_fwd,
        "primals": roles,
        "params": param_names,
        "dynamo_placeholders": dict(zip([p.name for p in primals], rec.dynamo_placeholders)),
        "primal_types": {p.name: fx_type(p.meta.get("val")) for p in primals},
        "mutated_inputs": [primals[i].name for i in rec.mutated_outputs],
        "mutated_in_graph": rec.mutated_in_graph,
        "symbols": symbols,
        "unbacked_symbols": unbacked,
        "sym_nodes": [n.name for n in joint.graph.nodes if n.op == "call_function" and is_sym(n)],
    }
    doc = {
        "name": name,
        "notes": case.notes,
        "torch_version": torch.__version__,
        "api": "torch.compile(backend=aot_autograd(partition_fn=...), fullgraph=True, dynamic=%s)"
               % case.dynamic,
        "dtype": "bfloat16 autocast" if case.autocast_bf16 else "float32",
        "device": "cpu",
        "dynamic": case.dynamic,
        "has_random_ops": case.random,
        "joint": jinfo,
        "min_cut": rec.decision,
        "numerics_check": check,
        "files": {k: "%s.%s" % (name, k) for k in
                  ("joint.txt", "forward.txt", "backward.txt", "torch_logs.txt", "trace.log")},
    }
    out.mkdir(parents=True, exist_ok=True)
    write_texts(name, out)
    hints = out / ("%s.hints" % name)
    if symbols:
        hints.write_text(",".join("%s=%d" % kv for kv in symbols.items()) + "\n")
    elif hints.exists():
        hints.unlink()
    (out / ("%s.pytorch.json" % name)).write_text(json.dumps(doc, indent=1) + "\n")
    write_data(case, out, primals, tangents, prim_orig=ex, tan=tan, outs=outs,
               joint_out=joint_out, num_fwd=num_fwd, roles=roles, seed=seed, check=check,
               mutated=rec.mutated_outputs)


def symbol_hints(primals, tangents):
    """The trace-time values of the symbols of the placeholders' sizes
    (backed symbols: their hints; unbacked ones have none)."""
    symbols, unbacked = {}, []
    for p in list(primals) + list(tangents):
        v = p.meta.get("val")
        vals = list(v.shape) + list(v.stride()) if isinstance(v, torch.Tensor) else [v]
        for s in vals:
            if not isinstance(s, torch.SymInt):
                continue
            for sym in sorted(s.node.expr.free_symbols, key=str):
                name = str(sym)
                if name in symbols or name in unbacked:
                    continue
                val = s.node.shape_env.var_to_val.get(sym)
                if val is None:
                    unbacked.append(name)
                else:
                    symbols[name] = int(val)
    return symbols, unbacked


def compare_compiled(case, rec, result, outs, num_fwd, tan):
    if rec.run_error:
        return "not compared: torch's compiled function failed: " + rec.run_error
    if case.random:
        return "not compared (random ops: torch's RNG stream differs between runs)"
    res = result if isinstance(result, (tuple, list)) else (result,)
    worst = 0.0
    # The user outputs follow the mutated inputs' new values.
    user = outs[len(rec.mutated_outputs):num_fwd]
    if len(user) != len(res):
        return "not compared (%d user outputs, %d joint forward outputs after %d mutations)" % (
            len(res), len(user), len(rec.mutated_outputs))
    for r, o in zip(res, user):
        if isinstance(r, torch.Tensor) and isinstance(o, torch.Tensor):
            worst = max(worst, (r.float() - o.float()).abs().max().item() if r.numel() else 0.0)
    return "forward outputs of the compiled fw graph vs the joint: max abs diff %.2e" % worst


def npy_dtype(t):
    return NP_DTYPE.get(t.dtype, str(t.dtype).replace("torch.", ""))


def write_data(case, out, primals, tangents, prim_orig, tan, outs, joint_out,
               num_fwd, roles, seed, check, mutated):
    d = out / ("%s.data" % case.name)
    if d.exists():
        for f in d.iterdir():
            f.unlink()
    if case.random:
        return  # random ops: symcut's RNG is not torch's, no reference data
    d.mkdir(parents=True, exist_ok=True)
    inputs = []
    for i, (p, x) in enumerate(zip(primals, prim_orig)):
        ent = {"file": "%s.npy" % p.name, "placeholder": p.name, "index": i, "kind": "primal",
               "role": roles[p.name]}
        if isinstance(x, torch.Tensor):
            arr = to_numpy(x)
            ent.update(dtype=npy_dtype(x), shape=list(x.shape), stride=list(x.stride()),
                       requires_grad=bool(p.meta["val"].requires_grad)
                       if isinstance(p.meta.get("val"), torch.Tensor) else False)
        else:
            arr = np.array(int(x), dtype=np.int64)
            ent.update(dtype="int64", shape=[], stride=[], symint=True, value=int(x))
        if arr is None:
            ent["file"] = None
            ent["note"] = "bfloat16: no NumPy type"
        else:
            np.save(d / ent["file"], arr)
        inputs.append(ent)
    for j, (t, x) in enumerate(zip(tangents, tan)):
        ent = {"file": "%s.npy" % t.name, "placeholder": t.name, "index": len(primals) + j,
               "kind": "tangent", "dtype": npy_dtype(x), "shape": list(x.shape),
               "stride": list(x.stride())}
        arr = to_numpy(x)
        if arr is None:
            ent["file"] = None
            ent["note"] = "bfloat16: no NumPy type"
        else:
            np.save(d / ent["file"], arr)
        inputs.append(ent)
    mutated_idx = mutated
    outputs = []
    for k, (node, v) in enumerate(zip(joint_out, outs)):
        ent = {"index": k, "kind": "forward" if k < num_fwd else "gradient"}
        if k < len(mutated_idx):
            ent["kind"] = "mutated_input"
            ent["mutated"] = primals[mutated_idx[k]].name
        if k >= num_fwd and k - num_fwd < len(primals):
            ent["grad_of"] = primals[k - num_fwd].name
        if v is None or not isinstance(node, torch.fx.Node):
            ent.update(file=None, node=None, value=None)
        elif isinstance(v, torch.Tensor):
            arr = to_numpy(v)
            ent.update(file="out_%d.npy" % k if arr is not None else None, node=node.name,
                       dtype=npy_dtype(v), shape=list(v.shape), stride=list(v.stride()))
            if arr is not None:
                np.save(d / ent["file"], arr)
            else:
                ent["note"] = "bfloat16: no NumPy type"
        else:
            ent.update(file="out_%d.npy" % k, node=node.name, dtype="int64", shape=[],
                       symint=True, value=int(v))
            np.save(d / ent["file"], np.array(int(v), dtype=np.int64))
        outputs.append(ent)
    manifest = {
        "graph": case.name,
        "joint_text": "../%s.joint.txt" % case.name,
        "forward_text": "../%s.forward.txt" % case.name,
        "backward_text": "../%s.backward.txt" % case.name,
        "torch_version": torch.__version__,
        "device": "cpu",
        "rng_seed": seed,
        "torch_num_threads": 1,
        "num_primals": len(primals),
        "num_tangents": len(tangents),
        "num_outputs": len(outputs),
        "num_fwd_outputs": num_fwd,
        "inputs": inputs,
        "outputs": outputs,
        "mutated_inputs": [primals[i].name for i in mutated_idx],
        "produced_by": "torch.fx.Interpreter(joint graph module) on these inputs",
        "checks": {"compiled_vs_joint": check},
    }
    (d / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")


def write_texts(name, out):
    """The bare print_readable texts, taken from the TORCH_TRACE payloads
    the child's trace directory holds (exactly as torch printed them)."""
    import os
    trace_dir = pathlib.Path(os.environ["TORCH_TRACE"])
    payloads = read_trace_payloads(trace_dir)
    for kind, suffix in (("aot_joint_graph", "joint.txt"), ("aot_forward_graph", "forward.txt"),
                         ("aot_backward_graph", "backward.txt")):
        # Dynamo may restart its analysis (the trace's "attempt" counts):
        # the last attempt's graph is the one that was partitioned.
        texts = payloads.get(kind, [])
        if not texts:
            raise SystemExit("zoo: %s: no %s payload in the trace" % (name, kind))
        (out / ("%s.%s" % (name, suffix))).write_text(texts[-1])


def read_trace_payloads(trace_dir):
    """{kind: [payload, ...]} of a TORCH_TRACE directory: each entry is a
    glog-prefixed JSON line, its payload the following tab-indented lines."""
    import logging
    for h in logging.getLogger("torch.__trace").handlers:
        h.flush()
    found = {}
    for f in sorted(trace_dir.glob("*.log")):
        lines = f.read_text().splitlines()
        i = 0
        while i < len(lines):
            line = lines[i]
            i += 1
            brace = line.find("{")
            if brace < 0:
                continue
            try:
                meta = json.loads(line[brace:])
            except ValueError:
                continue
            body = []
            while i < len(lines) and lines[i].startswith("\t"):
                body.append(lines[i][1:])
                i += 1
            payload = "\n".join(body)
            want = meta.get("has_payload")
            if want and hashlib.md5(payload.encode()).hexdigest() != want:
                raise SystemExit("zoo: %s:%d: payload does not match its md5" % (f, i))
            for k in meta:
                if k.startswith("aot_") and body:
                    found.setdefault(k, []).append(payload)
    return found
