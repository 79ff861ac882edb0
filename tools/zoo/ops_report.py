"""Every aten/prims op of the zoo graphs, with counts, and the ones symcut's
op table lacks.

    python3 tools/zoo/ops_report.py [--zoo examples/zoo] [--symcut build/symcut]
                                    [--table graph/ops.yaml] [--missing-only]

Counts are nodes in the zoo's joint, forward and backward texts (one
column each) and the number of models using the op.  "symcut" says what
symcut makes of the op: `ok` (in the table: a graph using it read without
naming it unknown), `unknown` (symcut graph named it among the ops not in
the op table), or, when no graph using it could be read, `table` / `absent`
from a look-up of the op's schema name in graph/ops.yaml.  Needs no torch
(plain Python 3).
"""
import argparse
import collections
import pathlib
import re
import subprocess
import sys

TOP = pathlib.Path(__file__).resolve().parents[2]
OP = re.compile(r"torch\.ops\.(aten|prims)\.([A-Za-z0-9_]+)\.([A-Za-z0-9_]+)\(")
KINDS = ("joint", "forward", "backward")


def table_ops(path):
    """(namespace, name.overload) of every op graph/ops.yaml defines."""
    ops = set()
    func = None
    for line in path.read_text().splitlines():
        m = re.match(r"\s*- func:\s*([A-Za-z0-9_]+)(\.[A-Za-z0-9_]+)?\(", line)
        if m:
            func = m.group(1) + (m.group(2) or ".default")
            ops.add(("aten", func))
            continue
        m = re.match(r"\s*namespace:\s*(\S+)", line)
        if m and func:
            ops.discard(("aten", func))
            ops.add((m.group(1), func))
    return ops


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--zoo", default=str(TOP / "examples" / "zoo"))
    ap.add_argument("--symcut", default=str(TOP / "build" / "symcut"))
    ap.add_argument("--table", default=str(TOP / "graph" / "ops.yaml"))
    ap.add_argument("--missing-only", action="store_true",
                    help="list only the ops symcut lacks")
    a = ap.parse_args()
    zoo = pathlib.Path(a.zoo)
    counts = collections.defaultdict(lambda: dict.fromkeys(KINDS, 0))
    models = collections.defaultdict(set)
    files_of = collections.defaultdict(set)
    for kind in KINDS:
        for f in sorted(zoo.glob("*.%s.txt" % kind)):
            model = f.name[: -len(".%s.txt" % kind)]
            for m in OP.finditer(f.read_text()):
                op = "%s.%s.%s" % m.groups()
                counts[op][kind] += 1
                models[op].add(model)
                files_of[op].add(f)
    if not counts:
        print("ops_report: no graphs in %s" % zoo, file=sys.stderr)
        return 2

    # What symcut says about each file: unknown ops, or a read failure.
    unknown, readable = set(), set()
    exe = pathlib.Path(a.symcut)
    have_symcut = exe.exists()
    if have_symcut:
        allfiles = set().union(*files_of.values())
        for f in sorted(allfiles):
            r = subprocess.run([str(exe), "graph", str(f)], capture_output=True, text=True)
            if r.returncode != 0:
                continue
            readable.add(f)
            for line in (r.stdout + r.stderr).splitlines():
                if "not in the op table" in line:
                    for op in line.split(":", 2)[-1].split(","):
                        unknown.add(op.strip())
    table = table_ops(pathlib.Path(a.table))

    def status(op):
        if op in unknown:
            return "unknown"
        if files_of[op] & readable:
            return "ok"
        ns, name = op.split(".", 1)
        return "table" if (ns, name) in table else "absent"

    rows = sorted(counts, key=lambda op: (-sum(counts[op].values()), op))
    missing = [op for op in rows if status(op) in ("unknown", "absent")]
    print("# ops of %d graph texts in %s; symcut: %s" % (
        len(set().union(*files_of.values())), zoo,
        exe if have_symcut else "not built (table look-up only)"))
    print("%-58s %6s %6s %6s %6s  %s" % ("op", "joint", "fwd", "bwd", "models", "symcut"))
    for op in (missing if a.missing_only else rows):
        c = counts[op]
        print("%-58s %6d %6d %6d %6d  %s" % (op, c["joint"], c["forward"], c["backward"],
                                            len(models[op]), status(op)))
    print("# %d ops, %d not in symcut's op table:" % (len(rows), len(missing)))
    for op in missing:
        print("#   %s (%s)" % (op, ", ".join(sorted(models[op]))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
