"""symcut inside torch.compile: a drop-in partition_fn for AOTAutograd and
a ready backend.

    import torch, symcut.torch
    model = torch.compile(model, backend=symcut.torch.backend())

partition_fn takes the signature of torch 2.13's
min_cut_rematerialization_partition.  It prepares the joint module the way
PyTorch's partitioner does (dead code, CSE, recompute tags, forced saves,
classification), hands the joint graph to libsymcut through the text
PyTorch prints (print_readable with strides and devices, and the symbols'
hints) with the node meta the partitioner reads as `# symcut:` lines
(recompute tags, partitioner tags), takes symcut's decision (saved tensors and SymInts, by name), and
builds the forward and backward modules with PyTorch's own extraction
(_extract_fwd_bwd_modules and the passes after it), so that the modules are
exactly those PyTorch builds for that decision.  A graph symcut cannot
take falls back to PyTorch's partitioner with one warning (strict=True
raises instead).
"""
import warnings

import torch
import torch.fx as fx

from torch._inductor.custom_graph_pass import \
    CustomPartitionerFn as _CustomPartitionerFn

from . import _graph, _lib
from ._core import SymcutError
from ._graph import Graph

# symcut option -> torch._functorch.config name, for the ban rules
_RULE_CONFIG = {
    "used_far_apart": "ban_recompute_used_far_apart",
    "long_fusible_chains": "ban_recompute_long_fusible_chains",
    "materialized_backward": "ban_recompute_materialized_backward",
    "not_in_allowlist": "ban_recompute_not_in_allowlist",
    "reductions": "ban_recompute_reductions",
}
_KNOBS = ("aggressive_recomputation", "max_dist_from_bw", "long_chain_limit",
          "unbacked_fallback", "tags", "cse")


class SymcutFallback(RuntimeError):
    """symcut could not take the graph (strict=True raises this)."""


def _rules(kw):
    """symcut partition options from rule settings: either PyTorch's config
    names (ban_recompute_reductions=False, aggressive_recomputation=True,
    max_dist_from_bw=...) or symcut's (rules_off=[...], long_chain_limit,
    unbacked_fallback, tags={name: tag}); unset ones follow
    torch._functorch.config."""
    from torch._functorch import config
    kw = dict(kw)
    opts = {}
    off = set(kw.pop("rules_off", ()))
    for rule, name in _RULE_CONFIG.items():
        on = kw.pop(name, kw.pop(rule, getattr(config, name, True)))
        if not on:
            off.add(rule)
    opts["rules_off"] = sorted(off)
    opts["aggressive_recomputation"] = bool(kw.pop(
        "aggressive_recomputation", getattr(config, "aggressive_recomputation",
                                            False)))
    dist = kw.pop("max_dist_from_bw", getattr(config, "max_dist_from_bw",
                                              1000))
    if dist != 1000:
        opts["max_dist_from_bw"] = dist
    for k in ("long_chain_limit", "unbacked_fallback", "tags"):
        if k in kw:
            opts[k] = kw.pop(k)
    if kw:
        raise TypeError("unknown symcut option(s): %s" % ", ".join(sorted(kw)))
    return opts


def _hints(gm):
    """{symbol name: hint} for every backed symbol in the joint's meta."""
    hints = {}

    def visit(v):
        if isinstance(v, (torch.SymInt, torch.SymBool, torch.SymFloat)):
            node = v.node
            env = node.shape_env
            vals = getattr(env, "backed_var_to_val", None)
            if vals is None:
                vals = env.var_to_val
            for s in getattr(node.expr, "free_symbols", ()):
                if s in vals:
                    hints[str(s)] = int(vals[s])
        elif isinstance(v, torch.Tensor):
            for x in (*v.shape, *v.stride()):
                visit(x)
        elif isinstance(v, (list, tuple)):
            for x in v:
                visit(x)

    for n in gm.graph.nodes:
        visit(n.meta.get("val"))
    return hints


def joint_text(gm):
    """The joint module as PyTorch prints it (print_readable with strides
    and devices), the text symcut reads."""
    return gm.print_readable(print_output=False, include_stride=True,
                             include_device=True)


def _prepare(joint_module, num_fwd_outputs, static_lifetime_input_indices):
    """What PyTorch's min-cut partitioner does before choosing (its own
    functions, in its order)."""
    from torch._functorch import partitioners as P, config
    from torch._functorch.compile_utils import fx_graph_cse
    joint_module.graph.eliminate_dead_code()
    joint_module.recompile()
    if config.cse:
        joint_module.graph = fx_graph_cse(joint_module.graph)
    flags = (P.has_recomputable_ops(joint_module),
             P.has_recomputable_rng_ops(joint_module))
    if flags[0]:
        joint_module = P.cleanup_recompute_tags(joint_module,
                                                is_default_partition=False)
    if not config.unsafe_allow_optimization_of_collectives:
        P.force_save_collectives(joint_module)
    P.force_save_effectful_ops(joint_module)
    P.force_save_bw_mutation_src(joint_module)
    info = P.classify_nodes(joint_module, static_lifetime_input_indices or [],
                            num_fwd_outputs)
    return joint_module, info, flags


_TAG_NAMES = {"MUST_SAVE": "must_save", "PREFER_SAVE": "prefer_save",
              "MUST_RECOMPUTE": "must_recompute",
              "PREFER_RECOMPUTE": "prefer_recompute"}


def meta_directives(joint_module):
    """`# symcut:` lines for the node meta PyTorch's partitioner reads and
    the printed text does not carry: the recompute tags
    (meta["recompute"], a CheckpointPolicy: selective activation
    checkpointing, and what the partitioner's own passes set) and the
    partitioner tags must_be_in_forward / must_be_in_backward
    (meta["partitioner_tag"]).  The module is prepared (_prepare): its
    tags are already those torch's cleanup_recompute_tags left, so the
    checkpoint regions and backward hooks, which only that pass reads,
    are not passed (symcut would run it a second time)."""
    tags, placement = {}, {}
    for n in joint_module.graph.nodes:
        if n.op == "output":
            continue
        rc = n.meta.get("recompute")
        name = getattr(rc, "name", None)
        if name in _TAG_NAMES:
            tags.setdefault(_TAG_NAMES[name], []).append(n.name)
        pt = n.meta.get("partitioner_tag")
        if pt in ("must_be_in_forward", "must_be_in_backward"):
            placement.setdefault(pt, []).append(n.name)
    lines = ["# symcut: %s %s" % (k, ", ".join(v))
             for k, v in list(tags.items()) + list(placement.items())]
    return "".join(line + "\n" for line in lines)


def decide(joint_module, *, num_fwd_outputs, static_lifetime_input_indices=None,
           policy="pytorch-2.13", **rules):
    """symcut's Partition (graphs=False) of a prepared joint module, with
    the node meta PyTorch's partitioner reads (meta_directives)."""
    text = meta_directives(joint_module) + joint_text(joint_module)
    g = Graph.read_text(text, "<joint graph>",
                        num_fwd_outputs=num_fwd_outputs,
                        hints=_hints(joint_module), liveness_check=False)
    try:
        return g, g.partition(policy, num_fwd_outputs=num_fwd_outputs,
                              param_indices=static_lifetime_input_indices or
                              None, graphs=False, **rules)
    except BaseException:
        g.close()
        raise


def partition_fn(joint_module, _joint_inputs, compiler="inductor", *,
                 num_fwd_outputs, static_lifetime_input_indices=None,
                 policy="pytorch-2.13", memory_budget=None, strict=False,
                 **rules):
    """A drop-in for torch._functorch.partitioners.
    min_cut_rematerialization_partition with symcut's decision.

    policy: a symcut policy (symcut.policies()); memory_budget: PyTorch's
    activation_memory_budget ratio (a float in [0, 1]; None: the config's)
    or symcut's bytes (an int > 1, "40MB"; see symcut.parse_memory_budget),
    handed to libsymcut (policy exact: the exact optimum, pytorch-2.13:
    PyTorch's own algorithm); rules: ban-rule settings (PyTorch's config
    names or symcut's, see _rules).  Returns (fw_module, bw_module);
    fw_module.meta["symcut"] says what decided."""
    from torch._functorch import partitioners as P, config
    _graph.policy_id(policy)
    opts = _rules(rules)
    budget = config.activation_memory_budget if memory_budget is None \
        else memory_budget
    kind, value = _graph.parse_memory_budget(budget)
    if kind == _lib.BUDGET_RATIO and value == 1.0:
        kind = None                       # the policy's default cut
    joint_module, info, (recomp, recomp_rng) = _prepare(
        joint_module, num_fwd_outputs, static_lifetime_input_indices)

    def fallback(why):
        if strict:
            raise SymcutFallback(why)
        ratio = value if kind == _lib.BUDGET_RATIO else 1.0
        if kind == _lib.BUDGET_BYTES:
            why += " (PyTorch's partitioner has no budget in bytes: none)"
        warnings.warn("symcut: %s; using PyTorch's partitioner" % why,
                      stacklevel=3)
        with config.patch(activation_memory_budget=ratio):
            fw, bw = P.min_cut_rematerialization_partition(
                joint_module, _joint_inputs, compiler,
                num_fwd_outputs=num_fwd_outputs,
                static_lifetime_input_indices=static_lifetime_input_indices)
        fw.meta["symcut"] = {"fallback": why}
        return fw, bw

    if len(info.required_bw_nodes) == 0:
        return P.default_partition(
            joint_module, _joint_inputs, num_fwd_outputs=num_fwd_outputs,
            static_lifetime_input_indices=static_lifetime_input_indices,
            static_lifetime_input_nodes=info.static_lifetime_input_nodes)
    if kind is not None:
        if not _graph.has_memory_budget():
            return fallback("memory_budget %r: this libsymcut has no memory "
                            "budget" % (budget,))
        opts["memory_budget"] = budget
    try:
        g, p = decide(joint_module, num_fwd_outputs=num_fwd_outputs,
                      static_lifetime_input_indices=
                      static_lifetime_input_indices, policy=policy, **opts)
    except (SymcutError, ValueError) as e:
        return fallback("cannot partition the joint graph: %s" % e)
    with g, p:
        names = p.saved_tensors + p.saved_symints
        record = {"policy": p.policy, "saved_tensors": p.saved_tensors,
                  "saved_symints": p.saved_symints,
                  "saved_bytes": p.saved_bytes, "fallback": None,
                  "memory_budget": None if kind is None else budget}
    by_name = {n.name: n for n in joint_module.graph.nodes}
    missing = [n for n in names if n not in by_name]
    if missing:
        return fallback("saved value %s is not a node of the joint module"
                        % missing[0])
    # in symcut's order (its saved SymInts as torch 2.13's extraction
    # orders them: bindings first), which _extract_fwd_bwd_modules keeps:
    # it adds no binding that symcut's list already has
    saved = [by_name[n] for n in names]
    saved_sym = [n for n in saved if P.is_sym_node(n)
                 and not P._is_assert_only_symbool(n)]
    saved_opaque = [n for n in saved if P.is_opaque_node(n)]
    saved_values = [n for n in saved if not P.is_sym_node(n)
                    and not P.is_opaque_node(n)]
    fw, bw = P._extract_fwd_bwd_modules(
        joint_module, saved_values, saved_sym_nodes=saved_sym,
        saved_opaque_nodes=saved_opaque, num_fwd_outputs=num_fwd_outputs,
        static_lifetime_input_nodes=info.static_lifetime_input_nodes)
    if recomp and recomp_rng:
        fw, bw = P.functionalize_rng_ops(joint_module, fw, bw, len(saved_sym))
    bw = P.reordering_to_mimic_autograd_engine(bw)
    fw = P.raise_getitems(fw)
    bw = P.raise_getitems(bw)
    fw = P.thread_graphsafe_rng_from_hops(fw, is_backward=False)
    bw = P.thread_graphsafe_rng_from_hops(bw, is_backward=True)
    fw.meta["symcut"] = record
    return fw, bw


def saved_values(fw_module, num_fwd_outputs):
    """The names of what a forward module saves (its outputs after the
    forward outputs), in order."""
    out = next(n for n in fw_module.graph.nodes if n.op == "output")
    return [getattr(a, "name", None) for a in out.args[0][num_fwd_outputs:]]


class SymcutPartitioner(_CustomPartitionerFn):
    """symcut's partition_fn as Inductor's custom_partitioner_fn: Inductor
    runs its joint-graph passes, then this decides.  uuid: the binding's
    files, the library and the options (Inductor's caches key on it).
    records: fw_module.meta["symcut"] of each partition."""

    def __init__(self, **options):
        self.options = options
        self.records = []

    def __call__(self, gm, joint_inputs, **kw):
        fw, bw = partition_fn(gm, joint_inputs, **kw, **self.options)
        self.records.append(fw.meta.get("symcut"))
        return fw, bw

    def uuid(self):
        import pathlib
        from torch._inductor.custom_graph_pass import get_hash_for_files
        here = pathlib.Path(__file__).resolve().parent
        files = tuple(str(here / n) for n in ("torch.py", "_graph.py",
                                              "_lib.py", "_core.py")) + \
            (_lib.path,)
        return (get_hash_for_files(files).hex(),
                repr(sorted(self.options.items())))


def backend(policy="pytorch-2.13", memory_budget=None, strict=False,
            compiler="eager", inductor=False, fw_compiler=None,
            bw_compiler=None, **rules):
    """A torch.compile backend with symcut's partition_fn.

    compiler="eager" (the default): aot_autograd with boxed no-op
    compilers (or fw_compiler/bw_compiler); compiler="inductor" (also
    inductor=True): Inductor's compile_fx, with symcut's partition_fn as its
    custom_partitioner_fn, so Inductor's decompositions and joint-graph
    passes run before symcut decides, as they do before PyTorch's own
    partitioner.  The backend's .records lists fw_module.meta["symcut"] of
    each partition."""
    _graph.policy_id(policy)
    _rules(rules)
    if memory_budget is not None:
        _graph.parse_memory_budget(memory_budget)
    if inductor:
        compiler = "inductor"
    if compiler not in ("eager", "inductor"):
        raise ValueError("compiler %r: 'eager' or 'inductor'" % (compiler,))
    if compiler == "inductor":
        if fw_compiler is not None or bw_compiler is not None:
            raise ValueError("fw_compiler/bw_compiler are for the eager "
                             "backend (Inductor compiles both graphs)")
        from torch._inductor import config as iconfig
        from torch._inductor.compile_fx import compile_fx
        part = SymcutPartitioner(policy=policy, memory_budget=memory_budget,
                                 strict=strict, **rules)

        def inductor_backend(gm, example_inputs):
            with iconfig.patch(custom_partitioner_fn=part):
                return compile_fx(gm, example_inputs)
        inductor_backend.records = part.records
        return inductor_backend
    from torch._dynamo.backends.common import aot_autograd
    from torch._dynamo.backends.debugging import boxed_nop
    records = []

    def pf(joint, joint_inputs, compiler="inductor", **kw):
        fw, bw = partition_fn(joint, joint_inputs, compiler, policy=policy,
                              memory_budget=memory_budget, strict=strict,
                              **rules, **kw)
        records.append(fw.meta.get("symcut"))
        return fw, bw
    fw_compiler = fw_compiler or boxed_nop
    bw_compiler = bw_compiler or fw_compiler
    be = aot_autograd(fw_compiler=fw_compiler, bw_compiler=bw_compiler,
                      partition_fn=pf, keep_inference_input_mutations=True)
    be.records = records
    return be
