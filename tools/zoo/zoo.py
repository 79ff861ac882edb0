"""Trace the model zoo with torch 2.13 and write examples/zoo/.

    /work/venv/bin/python tools/zoo/zoo.py [--out examples/zoo] [--list] [NAME...]

Each model is traced in a child process of its own (so that TORCH_LOGS,
TORCH_TRACE and torch's counters start fresh) by torch.compile with a
backend built from aot_autograd whose partition_fn wraps
min_cut_rematerialization_partition and records its decision.  See
tools/zoo/README and doc/zoo.md for what is written.
"""
import argparse
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
SEED = 1234


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*", help="models (default: all)")
    ap.add_argument("--out", default=str(HERE.parents[1] / "examples" / "zoo"))
    ap.add_argument("--list", action="store_true", help="list the models")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--tmp", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.one:
        # The models are compiled under a relative file name, so that the
        # "# File:" comments of the graphs name tools/zoo/models.py wherever
        # the clone is (the child runs in the top source folder).
        import types
        mod = types.ModuleType("models")
        mod.__file__ = "tools/zoo/models.py"
        sys.modules["models"] = mod
        exec(compile((HERE / "models.py").read_text(), "tools/zoo/models.py", "exec"),
             mod.__dict__)
        sys.path.insert(0, str(HERE))
        import trace_one
        return trace_one.run(a.one, pathlib.Path(a.out), pathlib.Path(a.tmp), SEED)
    sys.path.insert(0, str(HERE))
    from models import ZOO, BY_NAME
    if a.list:
        for c in ZOO:
            print("%-32s %s" % (c.name, c.notes))
        return 0
    names = a.names or [c.name for c in ZOO]
    bad = [n for n in names if n not in BY_NAME]
    if bad:
        print("zoo: unknown model(s): %s (see --list)" % ", ".join(bad), file=sys.stderr)
        return 1
    out = pathlib.Path(a.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    failed = []
    for n in names:
        if not trace_model(n, out):
            failed.append(n)
    if failed:
        print("zoo: FAILED: %s" % ", ".join(failed), file=sys.stderr)
        return 2
    return 0


def trace_model(name, out):
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="zoo-%s-" % name))
    try:
        env = dict(os.environ)
        env["TORCH_TRACE"] = str(tmp / "trace")
        env["TORCH_LOGS"] = "aot_joint_graph,aot_graphs"
        env["PYTHONHASHSEED"] = "0"
        env["OMP_NUM_THREADS"] = "1"
        env.pop("TORCH_COMPILE_DEBUG", None)
        log = tmp / "stderr.txt"
        with open(log, "w") as f:
            r = subprocess.run([sys.executable, __file__, "--one", name,
                                "--out", str(out), "--tmp", str(tmp)],
                               env=env, cwd=str(HERE.parents[1]), stderr=f, stdout=subprocess.PIPE, text=True)
        sys.stdout.write(r.stdout)
        if r.returncode != 0:
            sys.stderr.write(log.read_text()[-4000:])
            return False
        write_logs(name, out, tmp, log)
        return True
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# The TORCH_LOGS artifacts the framed log keeps (the graphs; aot_graphs
# also prints its fw_metadata, kept too: it is part of what users see).
def write_logs(name, out, tmp, log):
    text = log.read_text()
    (out / ("%s.torch_logs.txt" % name)).write_text(text)
    traces = sorted((tmp / "trace").glob("*.log"))
    if not traces:
        raise SystemExit("zoo: %s: TORCH_TRACE wrote no log" % name)
    big = max(traces, key=lambda p: p.stat().st_size)
    (out / ("%s.trace.log" % name)).write_text(trim_trace(big.read_text()))


# A trace log larger than the limit is trimmed: the Python stacks that
# guard, symbol and specialization entries carry ("stack", "user_stack",
# "framework_stack") are dropped from their metadata, then whole entries
# that say nothing about the graphs (C++ guards, bytecode, inductor).
STACK_KEYS = ("stack", "user_stack", "framework_stack")
DROP = ("dynamo_cpp_guards_str", "bytecode", "dump_file", "inductor_")


def trim_trace(text, limit=300_000):
    if len(text) <= limit:
        return text
    out, keep = [], True
    for line in text.splitlines(keepends=True):
        if line.startswith("\t"):
            if keep:
                out.append(line)
            continue
        brace = line.find("{")
        head = line[:brace] if brace >= 0 else line
        try:
            meta = json.loads(line[brace:]) if brace >= 0 else None
        except ValueError:
            meta = None
        if not isinstance(meta, dict):
            keep = True
            out.append(line)
            continue
        kind = next(iter(meta), "")
        name = meta.get("artifact", {}).get("name", "") if isinstance(meta.get("artifact"), dict) else ""
        keep = not any(kind.startswith(d) or name.startswith(d) for d in DROP)
        if not keep:
            continue
        for v in meta.values():
            if isinstance(v, dict):
                for k in STACK_KEYS:
                    v.pop(k, None)
        for k in STACK_KEYS:
            meta.pop(k, None)
        out.append(head + json.dumps(meta) + "\n")
    return "".join(out)


if __name__ == "__main__":
    sys.exit(main())
