"""symcut: symbolic shapes and the min-cut partitioner of joint graphs,
a thin binding (ctypes) over libsymcut.

    import symcut
    g = symcut.Graph.read_file("examples/zoo/mlp_gelu.joint.txt")
    p = g.partition("pytorch")
    print(p.saved_tensors, p.saved_bytes)

symcut.torch (imported on its own) is a drop-in partition_fn and a
torch.compile backend.  doc/python.md describes everything.
"""
from ._lib import path as library_path
from ._core import (SymcutError, ClosedError, Context, Expr, Range, parse,
                    c_prelude, live_objects, Min, Max, Mod, FloorDiv,
                    CeilDiv, Eq, Ne, And, Or, Not, STATUS_NAMES,
                    _ERROR_CLASSES)
from ._env import ShapeEnv, GuardSet, GuardChecker
from ._tensor import Tensor, read_npy, DTYPES
from ._graph import (Graph, Node, Partition, ValidateReport, RunResult,
                     policies, RULES, list_graphs, list_graphs_file,
                     parse_memory_budget, has_memory_budget, KINDS,
                     pareto, Frontier,
                     PLACES, BANS, TAGS, PHASES)

globals().update({c.__name__: c for c in _ERROR_CLASSES.values()})
__all__ = ["SymcutError", "ClosedError", "Context", "Expr", "Range", "parse",
           "c_prelude", "live_objects", "Min", "Max", "Mod", "FloorDiv",
           "CeilDiv", "Eq", "Ne", "And", "Or", "Not", "ShapeEnv", "GuardSet",
           "GuardChecker", "Graph", "Node", "Partition", "ValidateReport",
           "policies", "RULES", "library_path", "Tensor", "read_npy",
           "RunResult", "list_graphs", "list_graphs_file",
           "parse_memory_budget", "has_memory_budget", "pareto",
           "Frontier"] + \
    [c.__name__ for c in _ERROR_CLASSES.values()]
__version__ = "0.1.0"
