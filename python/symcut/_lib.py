"""Loading libsymcut and declaring the C functions the binding calls.

The library is found, in this order, through $SYMCUT_LIB (the path of the
shared library, or a folder holding it), $SYMCUT_BUILDDIR/.libs, the build
tree next to this package when it is imported from the source tree
(build/.libs/libsymcut.so), pkg-config (`pkg-config --variable=libdir
symcut`), and the system's search path.  Nothing here is compiled: every
prototype is declared with ctypes from include/symcut/*.h.
"""
import ctypes
import ctypes.util
import os
import pathlib
import subprocess

c_int, c_uint, c_long, c_size_t, c_bool, c_char_p, c_void_p, c_double = (
    ctypes.c_int, ctypes.c_uint, ctypes.c_long, ctypes.c_size_t,
    ctypes.c_bool, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_double)
c_int32, c_int64, c_uint64 = ctypes.c_int32, ctypes.c_int64, ctypes.c_uint64
P = ctypes.POINTER

_NAMES = ("libsymcut.so", "libsymcut.so.0", "libsymcut.dylib")


def _candidates():
    env = os.environ.get("SYMCUT_LIB")
    if env:
        p = pathlib.Path(env)
        if p.is_dir():
            yield from (p / n for n in _NAMES)
            yield from (p / ".libs" / n for n in _NAMES)
        else:
            yield p
        return
    bdir = os.environ.get("SYMCUT_BUILDDIR")
    if bdir:
        yield from (pathlib.Path(bdir) / ".libs" / n for n in _NAMES)
    here = pathlib.Path(__file__).resolve().parent
    for top in (here.parent.parent, here.parent):
        yield from (top / "build" / ".libs" / n for n in _NAMES)
    try:
        libdir = subprocess.run(
            ["pkg-config", "--variable=libdir", "symcut"],
            capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        libdir = ""
    if libdir:
        yield from (pathlib.Path(libdir) / n for n in _NAMES)
    found = ctypes.util.find_library("symcut")
    if found:
        yield pathlib.Path(found)


def _load():
    tried = []
    for cand in _candidates():
        tried.append(str(cand))
        if cand.is_absolute() and not cand.exists():
            continue
        try:
            return ctypes.CDLL(str(cand)), str(cand)
        except OSError:
            continue
    raise ImportError(
        "symcut: cannot find libsymcut (tried: %s); set SYMCUT_LIB to the "
        "library's path, or build it (build/.libs/libsymcut.so)"
        % (", ".join(tried) or "nothing"))


lib, path = _load()


def _gmp():
    name = ctypes.util.find_library("gmp") or "libgmp.so.10"
    return ctypes.CDLL(name)


gmp = _gmp()

# ---- structures ---------------------------------------------------------


class Error(ctypes.Structure):
    _fields_ = [("code", c_int), ("message", ctypes.c_char * 512),
                ("file", ctypes.c_char * 256), ("line", c_int),
                ("column", c_int)]


class Mpz(ctypes.Structure):
    _fields_ = [("alloc", c_int), ("size", c_int), ("d", c_void_p)]


class Range(ctypes.Structure):
    _fields_ = [("lo", Mpz), ("hi", Mpz), ("lo_inf", c_bool),
                ("hi_inf", c_bool)]


class EnvOptions(ctypes.Structure):
    _fields_ = [("specialize_zero_one", c_bool), ("duck_shape", c_bool)]


class Device(ctypes.Structure):
    _fields_ = [("type", c_int), ("index", c_int)]


class TensorMeta(ctypes.Structure):
    _fields_ = [("dtype", c_int), ("has_strides", c_bool),
                ("has_device", c_bool), ("device", Device),
                ("ndim", c_size_t), ("sizes", P(c_void_p)),
                ("strides", P(c_void_p))]


class Result(ctypes.Structure):
    _fields_ = [("kind", c_int), ("tensor", TensorMeta), ("expr", c_void_p),
                ("count", c_size_t)]


class ReadOptions(ctypes.Structure):
    """sc_graph_read_options (later fields, where a newer library has
    them, keep sc_graph_read_options_init's defaults: see init_padded)."""
    _fields_ = [("num_fwd_outputs", c_long), ("flags", c_uint),
                ("nhints", c_size_t), ("hint_symbols", P(c_void_p)),
                ("hint_values", P(c_int64)), ("env", c_void_p),
                ("graph", c_char_p), ("kind", c_int), ("ninputs", c_size_t),
                ("input_names", P(c_char_p)), ("input_types", P(c_char_p)),
                ("progress", c_void_p), ("progress_user", c_void_p)]


class WriteOptions(ctypes.Structure):
    _fields_ = [("flags", c_uint), ("class_name", c_char_p)]


class RandomOptions(ctypes.Structure):
    _fields_ = [("seed", c_uint64), ("nodes", c_size_t),
                ("symbolic", c_bool), ("features", c_uint),
                ("nexclude", c_size_t), ("exclude", P(c_char_p)),
                ("progress", c_void_p), ("progress_user", c_void_p)]


class JointOptions(ctypes.Structure):
    _fields_ = [("nrequires_grad", c_size_t),
                ("requires_grad", P(c_bool)), ("flags", c_uint),
                ("progress", c_void_p), ("progress_user", c_void_p)]


_PART_HEAD = [("policy", c_int), ("num_params", c_long)]
_PART_TAIL = [("num_fwd_outputs", c_long),
              ("unbacked_fallback", c_int64), ("ntags", c_size_t),
              ("tag_nodes", P(c_char_p)), ("tags", P(c_int)),
              ("flags", c_uint), ("rules_off", c_uint),
              ("max_dist_from_bw", c_int32), ("long_chain_limit", c_int32)]


class PartitionOptions(ctypes.Structure):
    """sc_partition_options, the memory-budget block included (a library
    without it ignores those fields: see has_memory_budget in _graph)."""
    _fields_ = _PART_HEAD + [("nparam_indices", c_size_t),
                             ("param_indices", P(c_size_t))] + _PART_TAIL + [
        ("memory_budget_kind", c_int), ("memory_budget_bytes", c_uint64),
        ("memory_budget_ratio", c_double),
        ("memory_budget_nsaved", c_size_t),
        ("memory_budget_saved", P(c_int32)),
        ("memory_budget_replay_random", c_bool),
        ("progress", c_void_p), ("progress_user", c_void_p)]


BUDGET_NONE, BUDGET_BYTES, BUDGET_RATIO, BUDGET_SAVED = 0, 1, 2, 3


class Synth(ctypes.Structure):
    _fields_ = [("name", c_char_p), ("src", c_int32), ("dim", c_size_t),
                ("sym", c_void_p)]


class InterpStats(ctypes.Structure):
    _fields_ = [("peak_bytes", c_size_t), ("peak_node", c_int32),
                ("boundary_bytes", c_size_t),
                ("boundary_input_bytes", c_size_t),
                ("boundary_node", c_int32), ("output_bytes", c_size_t),
                ("kernel_calls", c_size_t)]


class Tensor(ctypes.Structure):
    """sc_tensor (tensor.h): read its fields, change them through the
    library."""
    _fields_ = [("dtype", c_int), ("ndim", c_size_t),
                ("sizes", c_int64 * 16), ("strides", c_int64 * 16),
                ("offset", c_int64), ("storage", c_void_p)]


class ValidateOptions(ctypes.Structure):
    _fields_ = [("seed", c_uint64), ("sizes", c_void_p),
                ("inputs", P(P(Tensor))), ("int_high", c_int64),
                ("predicted_saved_bytes", c_int64)]


class ValidateReport(ctypes.Structure):
    _fields_ = [("passed", c_bool), ("kind", c_int),
                ("message", ctypes.c_char * 512), ("compared", c_size_t),
                ("mismatches", c_size_t), ("index", c_size_t),
                ("joint_node", c_char_p), ("part_node", c_char_p),
                ("max_abs_error", c_double), ("max_rel_error", c_double),
                ("saved_count", c_size_t), ("saved_bytes", c_size_t),
                ("predicted_saved_bytes", c_int64),
                ("joint_stats", InterpStats), ("fw_stats", InterpStats),
                ("bw_stats", InterpStats)]


class GradcheckOptions(ctypes.Structure):
    _fields_ = [("eps", c_double), ("atol", c_double), ("rtol", c_double),
                ("seed", c_uint64), ("sizes", c_void_p),
                ("int_high", c_int64), ("max_per_input", c_size_t),
                ("per_input", c_void_p),
                ("progress", c_void_p), ("progress_user", c_void_p),
                ("input_done", c_void_p), ("input_done_user", c_void_p)]


class GradcheckReport(ctypes.Structure):
    _fields_ = [("passed", c_bool), ("message", ctypes.c_char * 512),
                ("checked", c_size_t), ("failures", c_size_t),
                ("inputs_checked", c_size_t), ("runs", c_size_t),
                ("worst_input", c_size_t), ("worst_index", c_size_t),
                ("worst_analytic", c_double), ("worst_numeric", c_double),
                ("worst_abs_error", c_double), ("worst_ratio", c_double)]


class InterpOptions(ctypes.Structure):
    _fields_ = [("seed", c_uint64), ("boundary", c_int32),
                ("sizes", c_void_p), ("flags", c_uint)]


class ListingEntry(ctypes.Structure):
    _fields_ = [("name", c_char_p), ("kind", c_int),
                ("compile_id", c_char_p), ("title", c_char_p),
                ("class_name", c_char_p), ("line", c_int),
                ("static_inputs", c_char_p)]


def init_padded(struct_type, init_fn):
    """A struct_type filled by the library's _init function, in a buffer
    larger than struct_type (fields a newer library appends keep its
    defaults)."""
    buf = ctypes.create_string_buffer(ctypes.sizeof(struct_type) + 512)
    init_fn(buf)
    return struct_type.from_buffer(buf), buf


# ---- prototypes -----------------------------------------------------------

E = P(Error)
V = c_void_p
_PROTOS = {
    # error.h
    "sc_status_name": (c_char_p, [c_int]),
    "sc_status_str": (c_char_p, [c_int]),
    "sc_error_init": (None, [E]),
    "sc_error_format": (c_size_t, [E, ctypes.c_char_p, c_size_t]),
    # symint.h
    "sc_ctx_new": (V, []),
    "sc_ctx_free": (None, [V]),
    "sc_ctx_take_error": (c_int, [V, E]),
    "sc_ctx_node_count": (c_size_t, [V]),
    "sc_ctx_expand_limit": (c_size_t, [V]),
    "sc_ctx_set_expand_limit": (None, [V, c_size_t]),
    "sc_ctx_symbol_count": (c_size_t, [V]),
    "sc_ctx_symbol": (V, [V, c_size_t]),
    "sc_expr_int_str": (V, [V, c_char_p]),
    "sc_expr_bool": (V, [V, c_bool]),
    "sc_expr_symbol": (V, [V, c_char_p]),
    "sc_expr_add": (V, [V, V, V]),
    "sc_expr_sub": (V, [V, V, V]),
    "sc_expr_mul": (V, [V, V, V]),
    "sc_expr_neg": (V, [V, V]),
    "sc_expr_pow": (V, [V, V, c_uint64]),
    "sc_expr_floordiv": (V, [V, V, V]),
    "sc_expr_ceildiv": (V, [V, V, V]),
    "sc_expr_mod": (V, [V, V, V]),
    "sc_expr_min": (V, [V, V, V]),
    "sc_expr_max": (V, [V, V, V]),
    "sc_expr_eq": (V, [V, V, V]),
    "sc_expr_ne": (V, [V, V, V]),
    "sc_expr_lt": (V, [V, V, V]),
    "sc_expr_le": (V, [V, V, V]),
    "sc_expr_gt": (V, [V, V, V]),
    "sc_expr_ge": (V, [V, V, V]),
    "sc_expr_and": (V, [V, V, V]),
    "sc_expr_or": (V, [V, V, V]),
    "sc_expr_not": (V, [V, V]),
    "sc_expr_node_kind": (c_int, [V]),
    "sc_expr_is_bool": (c_bool, [V]),
    "sc_expr_is_int": (c_bool, [V]),
    "sc_expr_is_symbol": (c_bool, [V]),
    "sc_expr_value_mpz": (None, [V, P(Mpz)]),
    "sc_expr_symbol_name": (c_char_p, [V]),
    "sc_expr_symbol_index": (c_size_t, [V]),
    "sc_expr_arg_count": (c_size_t, [V]),
    "sc_expr_arg": (V, [V, c_size_t]),
    "sc_expr_degree": (c_uint, [V]),
    "sc_expr_hash": (c_uint64, [V]),
    "sc_expr_cmp": (c_int, [V, V]),
    "sc_expr_size": (c_size_t, [V]),
    "sc_symmap_new": (V, [V]),
    "sc_symmap_free": (None, [V]),
    "sc_symmap_set": (c_int, [V, V, V, E]),
    "sc_range_init": (None, [P(Range)]),
    "sc_range_clear": (None, [P(Range)]),
    "sc_range_to_str": (V, [P(Range)]),
    "sc_range_is_empty": (c_bool, [P(Range)]),
    "sc_bounds_new": (V, [V]),
    "sc_bounds_free": (None, [V]),
    "sc_bounds_set": (c_int, [V, V, P(Range), E]),
    "sc_expr_range": (c_int, [V, V, V, P(Range), E]),
    "sc_expr_subst": (V, [V, V, V]),
    "sc_expr_simplify": (V, [V, V, V]),
    "sc_expr_free_symbols": (c_size_t, [V, P(V), c_size_t]),
    "sc_expr_has_symbol": (c_bool, [V, V]),
    "sc_expr_eval": (c_int, [V, V, V, P(Mpz), E]),
    "sc_expr_to_str": (V, [V, V]),
    "sc_expr_to_c": (c_int, [V, V, V, P(V), E]),
    "sc_expr_c_prelude": (c_char_p, []),
    "sc_expr_parse": (c_int, [V, c_char_p, c_char_p, c_int, P(V), E]),
    # guards.h
    "sc_env_options_init": (None, [P(EnvOptions)]),
    "sc_env_new": (c_int, [V, P(EnvOptions), P(V), E]),
    "sc_env_free": (None, [V]),
    "sc_env_create_backed": (c_int, [V, P(Mpz), c_char_p, c_char_p,
                                     P(Range), c_uint, P(V), E]),
    "sc_env_create_unbacked": (c_int, [V, c_char_p, P(Range), c_uint,
                                       P(V), E]),
    "sc_env_symbol_count": (c_size_t, [V]),
    "sc_env_symbol": (V, [V, c_size_t]),
    "sc_env_has_symbol": (c_bool, [V, V]),
    "sc_env_is_backed": (c_bool, [V, V]),
    "sc_env_is_size_like": (c_bool, [V, V]),
    "sc_env_symbol_source": (c_char_p, [V, V]),
    "sc_env_replacement": (V, [V, V]),
    "sc_env_source_count": (c_size_t, [V]),
    "sc_env_source": (c_char_p, [V, c_size_t]),
    "sc_env_source_expr": (V, [V, c_size_t]),
    "sc_env_source_hint": (V, [V, c_size_t]),
    "sc_env_statically_known": (c_int, [V, V, c_uint, P(c_int), E]),
    "sc_env_guard": (c_int, [V, V, P(c_bool), E]),
    "sc_env_guard_or": (c_int, [V, V, c_bool, P(c_bool), E]),
    "sc_env_size_oblivious": (c_int, [V, V, P(c_bool), E]),
    "sc_env_assert": (c_int, [V, V, E]),
    "sc_env_guard_int": (c_int, [V, V, P(Mpz), E]),
    "sc_env_simplify": (c_int, [V, V, P(V), E]),
    "sc_env_range": (c_int, [V, V, P(Range), E]),
    "sc_env_hint": (c_int, [V, V, P(Mpz), E]),
    "sc_env_guard_count": (c_size_t, [V]),
    "sc_env_guard_at": (V, [V, c_size_t]),
    "sc_env_runtime_assert_count": (c_size_t, [V]),
    "sc_env_hint_change_count": (c_size_t, [V]),
    "sc_env_runtime_assert": (V, [V, c_size_t]),
    "sc_env_produce_guards": (c_int, [V, P(V), E]),
    "sc_guard_set_free": (None, [V]),
    "sc_guard_set_count": (c_size_t, [V]),
    "sc_guard_set_text": (c_char_p, [V, c_size_t]),
    "sc_guard_set_expr": (V, [V, c_size_t]),
    "sc_guard_set_source_count": (c_size_t, [V]),
    "sc_guard_set_source": (c_char_p, [V, c_size_t]),
    "sc_guard_set_var": (c_char_p, [V, c_size_t]),
    "sc_guard_set_to_c": (c_int, [V, P(V), E]),
    "sc_guard_set_compile": (c_int, [V, P(V), E]),
    "sc_guard_checker_free": (None, [V]),
    "sc_guard_checker_source_count": (c_size_t, [V]),
    "sc_guard_checker_count": (c_size_t, [V]),
    "sc_guard_checker_check": (c_int, [V, P(c_int64), P(c_size_t), E]),
    # graph.h
    "sc_dtype_code": (c_char_p, [c_int]),
    "sc_dtype_torch_name": (c_char_p, [c_int]),
    "sc_device_type_name": (c_char_p, [c_int]),
    "sc_graph_free": (None, [V]),
    "sc_graph_env": (V, [V]),
    "sc_graph_class_name": (c_char_p, [V]),
    "sc_graph_node_count": (c_size_t, [V]),
    "sc_graph_primal_count": (c_size_t, [V]),
    "sc_graph_tangent_count": (c_size_t, [V]),
    "sc_graph_placeholder_count": (c_size_t, [V]),
    "sc_graph_find": (c_int32, [V, c_char_p]),
    "sc_graph_node_kind": (c_int, [V, c_int32]),
    "sc_graph_node_role": (c_int, [V, c_int32]),
    "sc_graph_node_name": (c_char_p, [V, c_int32]),
    "sc_graph_node_target": (c_char_p, [V, c_int32]),
    "sc_graph_node_class": (c_char_p, [V, c_int32]),
    "sc_graph_node_result": (None, [V, c_int32, P(Result)]),
    "sc_graph_node_line": (c_int, [V, c_int32]),
    "sc_graph_node_users": (P(c_int32), [V, c_int32, P(c_size_t)]),
    "sc_graph_output_count": (c_size_t, [V]),
    "sc_graph_fwd_output_count": (c_size_t, [V]),
    "sc_graph_output": (c_int32, [V, c_size_t]),
    "sc_graph_symbols": (c_size_t, [V, P(V), c_size_t]),
    "sc_graph_set_hint": (c_int, [V, V, c_int64, E]),
    "sc_graph_get_hint": (c_bool, [V, V, P(c_int64)]),
    "sc_graph_directive": (c_char_p, [V, c_char_p]),
    "sc_graph_set_directive": (c_int, [V, c_char_p, c_char_p, E]),
    "sc_graph_warning_count": (c_size_t, [V]),
    "sc_graph_warning": (c_char_p, [V, c_size_t]),
    "sc_graph_equal": (c_bool, [V, V, c_uint, ctypes.c_char_p, c_size_t]),
    "sc_graph_read_options_init": (None, [V]),
    "sc_graph_read_text": (c_int, [V, c_char_p, c_size_t, c_char_p, V,
                                   P(V), E]),
    "sc_graph_read_file": (c_int, [V, c_char_p, V, P(V), E]),
    "sc_graph_write_options_init": (None, [P(WriteOptions)]),
    "sc_graph_write_text": (c_int, [V, P(WriteOptions), P(V), P(c_size_t),
                                    E]),
    "sc_graph_write_dot": (c_int, [V, V, P(V), P(c_size_t), E]),
    "sc_joint_options_init": (None, [P(JointOptions)]),
    "sc_graph_new_joint": (c_int, [V, P(JointOptions), P(V), E]),
    "sc_graph_random_options_init": (None, [P(RandomOptions)]),
    "sc_graph_new_random": (c_int, [V, P(RandomOptions), P(V), E]),
    # partition.h
    "sc_partition_policy_name": (c_char_p, [c_int]),
    "sc_partition_policy_from_name": (c_bool, [c_char_p, P(c_int)]),
    "sc_partition_tag_name": (c_char_p, [c_int]),
    "sc_partition_options_init": (None, [V]),
    "sc_partition_run": (c_int, [V, V, P(V), E]),
    "sc_partition_free": (None, [V]),
    "sc_partition_policy_in_force": (c_int, [V]),
    "sc_partition_saved_tensor_count": (c_size_t, [V]),
    "sc_partition_saved_tensor": (c_int32, [V, c_size_t]),
    "sc_partition_saved_symint_count": (c_size_t, [V]),
    "sc_partition_saved_symint": (c_int32, [V, c_size_t]),
    "sc_partition_synth_symint_count": (c_size_t, [V]),
    "sc_partition_synth_symint": (c_bool, [V, c_size_t, P(Synth)]),
    "sc_partition_recomputed_count": (c_size_t, [V]),
    "sc_partition_recomputed": (c_int32, [V, c_size_t]),
    "sc_partition_place_name": (c_char_p, [c_int]),
    "sc_partition_ban_name": (c_char_p, [c_int]),
    "sc_partition_node_place": (c_int, [V, c_int32]),
    "sc_partition_node_representative": (c_int32, [V, c_int32]),
    "sc_partition_node_class": (c_uint, [V, c_int32]),
    "sc_partition_node_ban": (c_int, [V, c_int32]),
    "sc_partition_node_tag": (c_int, [V, c_int32]),
    "sc_partition_node_distance": (c_int32, [V, c_int32]),
    "sc_partition_node_bytes": (c_int64, [V, c_int32]),
    "sc_partition_node_weight": (c_int64, [V, c_int32]),
    "sc_partition_node_reason": (c_char_p, [V, c_int32]),
    "sc_partition_saved_bytes": (c_int64, [V]),
    "sc_partition_saved_bytes_expr": (V, [V]),
    "sc_partition_trivial_bytes": (c_int64, [V]),
    "sc_partition_trivial_bytes_expr": (V, [V]),
    "sc_partition_cut_value": (c_int64, [V]),
    "sc_partition_rules": (None, [V, P(c_uint), P(c_int32), P(c_int32)]),
    "sc_partition_unbacked_fallback": (c_int64, [V]),
    "sc_partition_network_vertex_count": (c_size_t, [V]),
    "sc_partition_network_edge_count": (c_size_t, [V]),
    "sc_partition_recompute_flops": (c_int64, [V, P(c_size_t)]),
    "sc_partition_dead_count": (c_size_t, [V]),
    "sc_partition_folded_count": (c_size_t, [V]),
    "sc_partition_warning_count": (c_size_t, [V]),
    "sc_partition_warning": (c_char_p, [V, c_size_t]),
    "sc_partition_phase_name": (c_char_p, [c_int]),
    "sc_partition_phase_seconds": (c_double, [V, c_int]),
    "sc_partition_take_forward": (V, [V]),
    "sc_partition_take_backward": (V, [V]),
    "sc_partition_write_text": (c_int, [V, c_uint, P(V), P(c_size_t), E]),
    "sc_partition_write_json": (c_int, [V, c_uint, P(V), P(c_size_t), E]),
    "sc_partition_write_dot": (c_int, [V, c_uint, P(V), P(c_size_t), E]),
    # tensor.h
    "sc_tensor_dtype_supported": (c_bool, [c_int]),
    "sc_dtype_itemsize": (c_size_t, [c_int]),
    "sc_dtype_from_code": (c_bool, [c_char_p, c_size_t, P(c_int)]),
    "sc_tensor_new": (c_int, [c_int, c_size_t, P(c_int64), P(P(Tensor)), E]),
    "sc_tensor_new_scalar": (c_int, [c_int, c_double, P(P(Tensor)), E]),
    "sc_tensor_free": (None, [P(Tensor)]),
    "sc_tensor_clone": (c_int, [P(Tensor), P(P(Tensor)), E]),
    "sc_tensor_to_dtype": (c_int, [P(Tensor), c_int, P(P(Tensor)), E]),
    "sc_tensor_numel": (c_size_t, [P(Tensor)]),
    "sc_tensor_nbytes": (c_size_t, [P(Tensor)]),
    "sc_tensor_is_contiguous": (c_bool, [P(Tensor)]),
    "sc_tensor_data": (c_void_p, [P(Tensor)]),
    "sc_tensor_item_double": (c_double, [P(Tensor), c_size_t]),
    "sc_tensor_item_int64": (c_int64, [P(Tensor), c_size_t]),
    "sc_npy_read_buffer": (c_int, [c_char_p, c_size_t, c_char_p,
                                   P(P(Tensor)), E]),
    "sc_npy_read": (c_int, [c_char_p, P(P(Tensor)), E]),
    "sc_npy_write_buffer": (c_int, [P(Tensor), P(c_void_p), P(c_size_t), E]),
    "sc_npy_write": (c_int, [P(Tensor), c_char_p, E]),
    # graph.h, listing
    "sc_graph_kind_name": (c_char_p, [c_int]),
    "sc_graph_kind_from_name": (c_bool, [c_char_p, c_size_t, P(c_int)]),
    "sc_graph_get_kind": (c_int, [V]),
    "sc_graph_list_text": (c_int, [c_char_p, c_size_t, c_char_p, P(V), E]),
    "sc_graph_listing_count": (c_size_t, [V]),
    "sc_graph_listing_entry_get": (None, [V, c_size_t, P(ListingEntry)]),
    "sc_graph_listing_is_trace": (c_bool, [V]),
    "sc_graph_listing_free": (None, [V]),
    # interp.h
    "sc_interp_options_init": (None, [V]),
    "sc_interp_run": (c_int, [V, P(P(Tensor)), V, P(P(Tensor)),
                              P(InterpStats), E]),
    "sc_interp_preflight": (c_int, [V, E]),
    "sc_interp_bind_sizes": (c_int, [V, V, V, E]),
    "sc_interp_random_inputs": (c_int, [V, V, c_uint64, c_int64,
                                        P(P(Tensor)), E]),
    "sc_validate_options_init": (None, [V]),
    "sc_validate_run": (c_int, [V, V, V, V, V, E]),
    "sc_gradcheck_options_init": (None, [V]),
    "sc_gradcheck_run": (c_int, [V, V, V, E]),
}

for _name, (_res, _args) in _PROTOS.items():
    _f = getattr(lib, _name)
    _f.restype = _res
    _f.argtypes = _args


for _name, _res, _args in (
        ("__gmpz_init", None, [P(Mpz)]),
        ("__gmpz_clear", None, [P(Mpz)]),
        ("__gmpz_set_str", c_int, [P(Mpz), c_char_p, c_int]),
        ("__gmpz_get_str", V, [c_char_p, c_int, P(Mpz)])):
    _f = getattr(gmp, _name)
    _f.restype = _res
    _f.argtypes = _args

_libc = ctypes.CDLL(None)
free = _libc.free
free.restype = None
free.argtypes = [c_void_p]


def take_string(ptr):
    """The text of a malloc'ed C string, which is then freed."""
    if not ptr:
        return None
    try:
        return ctypes.string_at(ptr).decode()
    finally:
        free(ptr)


def _check_partition_layout():
    """sc_partition_options_init's defaults (num_params -1, no parameter
    indices, num_fwd_outputs -1, no tags, all rules on, budget kind
    NONE) read
    through PartitionOptions: a library whose struct differs fails at
    import rather than misreading options."""
    buf = ctypes.create_string_buffer(ctypes.sizeof(PartitionOptions) + 512)
    lib.sc_partition_options_init(buf)
    o = PartitionOptions.from_buffer(buf)
    if not (o.num_params == -1 and o.num_fwd_outputs == -1 and
            o.nparam_indices == 0 and not o.param_indices and
            o.ntags == 0 and o.rules_off == 0 and
            o.memory_budget_kind == 0):
        raise ImportError("symcut: libsymcut's sc_partition_options has a "
                          "layout this binding does not know (%s)" % path)


_check_partition_layout()

# ---- the frontier (partition.h), where the library has it -----------------


class FrontierOptions(ctypes.Structure):
    _fields_ = [("points", c_size_t), ("keep_bans", c_bool),
                ("replay_random", c_bool), ("milp_seconds", c_double)]


class FrontierPoint(ctypes.Structure):
    _fields_ = [("saved_bytes", c_uint64), ("recompute_cost", c_uint64),
                ("recompute_flops", c_uint64), ("lower_bound", c_uint64),
                ("budget", c_uint64), ("saved_tensors", c_size_t),
                ("saved_symints", c_size_t), ("hull_vertex", c_bool),
                ("optimal", c_bool), ("valid", c_bool),
                ("invalid_node", c_int32)]


# The C type each structure above mirrors, and the C names of fields named
# otherwise here (tests/torch/test_python_layout.py compiles a probe
# against the headers and compares every size and offset).
C_TYPES = {
    Error: ("sc_error", {}),
    Mpz: ("__mpz_struct", {"alloc": "_mp_alloc", "size": "_mp_size",
                           "d": "_mp_d"}),
    Range: ("sc_range", {}),
    EnvOptions: ("sc_env_options", {}),
    Device: ("sc_device", {}),
    TensorMeta: ("sc_tensor_meta", {}),
    Result: ("sc_result", {}),
    ReadOptions: ("sc_graph_read_options", {}),
    WriteOptions: ("sc_graph_write_options", {}),
    RandomOptions: ("sc_graph_random_options", {}),
    JointOptions: ("sc_joint_options", {}),
    PartitionOptions: ("sc_partition_options", {}),
    Synth: ("sc_partition_synth", {}),
    InterpStats: ("sc_interp_stats", {}),
    Tensor: ("sc_tensor", {}),
    ValidateOptions: ("sc_validate_options", {}),
    ValidateReport: ("sc_validate_report", {}),
    GradcheckOptions: ("sc_gradcheck_options", {}),
    GradcheckReport: ("sc_gradcheck_report", {}),
    InterpOptions: ("sc_interp_options", {}),
    ListingEntry: ("sc_graph_listing_entry", {}),
    FrontierOptions: ("sc_frontier_options", {}),
    FrontierPoint: ("sc_frontier_point", {}),
}

HAS_FRONTIER = hasattr(lib, "sc_frontier_compute")
if HAS_FRONTIER:
    _FP = P(FrontierPoint)
    for _name, (_res, _args) in {
            "sc_frontier_options_init": (None, [V]),
            "sc_frontier_compute": (c_int, [V, V, V, P(V), E]),
            "sc_frontier_free": (None, [V]),
            "sc_frontier_point_count": (c_size_t, [V]),
            "sc_frontier_point_get": (c_bool, [V, c_size_t, _FP]),
            "sc_frontier_point_saved": (c_size_t, [V, c_size_t, P(c_int32),
                                                   c_size_t]),
            "sc_frontier_breakpoint_count": (c_size_t, [V]),
            "sc_frontier_breakpoint": (c_bool, [V, c_size_t, P(c_uint64),
                                                P(c_uint64)]),
            "sc_frontier_default_cut": (None, [V, _FP]),
            "sc_frontier_solve": (c_int, [V, c_uint64, c_double, _FP,
                                          P(P(c_int32)), P(c_size_t), E]),
            "sc_frontier_score": (c_int, [V, P(c_int32), c_size_t, _FP, E]),
            "sc_frontier_point_partition": (c_int, [V, c_size_t, c_uint,
                                                    P(V), E]),
            "sc_frontier_maxflow_count": (c_size_t, [V]),
            "sc_frontier_point_replayed_random": (c_size_t, [V, c_size_t]),
            "sc_frontier_partition_saved": (c_int, [V, P(c_int32), c_size_t,
                                                    c_uint, P(V), E]),
            "sc_frontier_policy": (c_int, [V]),
            "sc_frontier_torch_budget": (c_int, [V, c_double, _FP,
                                                 P(P(c_int32)), P(c_size_t),
                                                 E]),
    }.items():
        _f = getattr(lib, _name)
        _f.restype = _res
        _f.argtypes = _args

mpz_init = getattr(gmp, "__gmpz_init")
mpz_clear = getattr(gmp, "__gmpz_clear")
mpz_set_str = getattr(gmp, "__gmpz_set_str")
mpz_get_str = getattr(gmp, "__gmpz_get_str")
