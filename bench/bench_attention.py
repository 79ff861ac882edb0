#!/usr/bin/env python3
"""CPU flash attention, forward and backward: symcut against torch eager.

    /work/venv/bin/python bench/bench_attention.py [--symcut build/symcut]
        [--shape 8,12,512,512,64] [--causal 1] [--dtype float32]
        [--repeat 3]

One graph text (tools/attention/compare.py's: the forward, then the
backward on the forward's own out and logsumexp) at the given
batch,heads,L,S,E, random inputs in a temporary folder.  Times, best of
--repeat: torch eager running the same two ops on one thread, and the
whole `symcut run` process (CPU seconds of the finished child: reading
the inputs, the two kernels, writing nothing), then the ratio.  Also
reports whether symcut's five results equal torch's bit for bit.  A
benchmark, never a test: the numbers depend on the machine and its load.
"""
import argparse
import os
import pathlib
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch

TOP = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TOP / "tools" / "attention"))
import compare  # noqa: E402


def child_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--symcut", default=str(TOP / "build" / "symcut"))
    ap.add_argument("--shape", default="8,12,512,512,64")
    ap.add_argument("--causal", type=int, default=1)
    ap.add_argument("--dtype", default="float32")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    torch.set_num_threads(1)
    B, H, L, S, E = map(int, args.shape.split(","))
    shape = (B, H, L, S, E, E)
    dt = getattr(torch, args.dtype)
    causal = bool(args.causal)
    gen = torch.Generator().manual_seed(1)
    inputs = {"q": torch.randn(B, H, L, E, generator=gen),
              "k": torch.randn(B, H, S, E, generator=gen),
              "v": torch.randn(B, H, S, E, generator=gen),
              "go": torch.randn(B, H, L, E, generator=gen)}
    best_t = best_s = None
    for _ in range(args.repeat):
        t0 = time.process_time()
        want = compare.torch_run(inputs, dt, causal, "none", None)
        t = time.process_time() - t0
        best_t = t if best_t is None else min(best_t, t)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "g.txt")
        with open(path, "w") as f:
            f.write(compare.graph_text(shape, dt, causal, "none", None))
        os.mkdir(os.path.join(tmp, "in"))
        for n, x in inputs.items():
            np.save(os.path.join(tmp, "in", n + ".npy"), x.numpy())
        for r in range(args.repeat):
            out = os.path.join(tmp, "out%d" % r)
            c0 = child_cpu()
            subprocess.run([args.symcut, "run", path, "--inputs",
                            os.path.join(tmp, "in"), "--save", out],
                           check=True, capture_output=True)
            s = child_cpu() - c0
            best_s = s if best_s is None else min(best_s, s)
        got = [np.load(os.path.join(tmp, "out0", "out_%d.npy" % i))
               for i in range(5)]
    diffs = [int((g != w).sum()) for g, w in zip(got, want)]
    print("shape B,H,L,S,E %s causal %s %s" % (args.shape, causal,
                                               args.dtype))
    print("torch eager (1 thread) CPU s: %.3f" % best_t)
    print("symcut run CPU s:             %.3f (%.2fx)" % (best_s,
                                                         best_s / best_t))
    print("elements differing from torch: %s" % ", ".join(
        "%s %d" % (n, d) for n, d in zip(compare.NAMES, diffs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
