#!/usr/bin/env python3
"""Record torch 2.13's decision on the joint texts of a directory, for the
C tests: for every DIR/NAME.joint.txt, DIR/NAME.torch.json is decide()'s
JSON (the fields of oracle.py's output), with the hints, static inputs,
num_fwd_outputs and tags the text's `# symcut:` lines give.

    /work/venv/bin/python tools/oracle/record.py tests/data/partition/rules

tests/check_partition.c (test_rules_2_13) compares symcut's pytorch-2.13
partition with these records; tests/torch/test_partition_rules.py checks
live that the records are still torch's decisions.
"""
import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import oracle  # noqa: E402


def record(path):
    dec, _, _ = oracle.decide(path.read_text())
    return json.dumps(dec, indent=1) + "\n"


def main(argv):
    if len(argv) != 2:
        print("usage: record.py DIR", file=sys.stderr)
        return 2
    for p in sorted(pathlib.Path(argv[1]).glob("*.joint.txt")):
        out = p.with_name(p.name[:-len(".joint.txt")] + ".torch.json")
        out.write_text(record(p))
        print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
