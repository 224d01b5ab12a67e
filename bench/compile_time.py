#!/usr/bin/env python3
"""te-compile wall time against depth (issue 16, part 4).

  python3 bench/compile_time.py [--te-compile build/bin/te-compile]
      [--layers 1,2,4,8,24] [--runs 3] [--json out.json]

For each layer count, writes the stack program of bench/programs.py (that
many identical MLP blocks fc1 -> tanh -> fc2, hidden 4096, ffn 16384, 8192
tokens, forward + backward in one entry, Float8CurrentScaling), then runs
`te-compile prog.mlir -o prog.so` `--runs` times, timing the whole process
(wall clock, start to exit), and reports min and median, the number of GPU
kernels in the artifact (`.entry` symbols of its embedded PTX), the GEMMs
of its manifest (`--emit=manifest`, not timed) and the artifact's size.
Runs on the build machine (needs MLIR, no GPU); the machine's load average
is printed with the table, since other work on its cores inflates times.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import programs  # noqa: E402


def count_kernels(path):
    with open(path, "rb") as f:
        data = f.read()
    return data.count(b".visible .entry ") + data.count(b"\n.entry ")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--te-compile", default=os.path.join(HERE, "..", "build", "bin",
                                                             "te-compile"))
    parser.add_argument("--layers", default="1,2,4,8,24")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--tokens", type=int, default=8192)
    parser.add_argument("--hidden", type=int, default=4096)
    parser.add_argument("--ffn", type=int, default=16384)
    parser.add_argument("--json", default=None, help="also write the rows as JSON here")
    args = parser.parse_args()
    layers = [int(v) for v in args.layers.split(",") if v.strip()]
    tool = os.path.abspath(args.te_compile)
    rev = subprocess.run(["git", "-C", HERE, "rev-parse", "--short", "HEAD"],
                         capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", HERE, "status", "--porcelain", "--", "../lib",
                            "../include", "../tools"], capture_output=True,
                           text=True).stdout.strip()
    print(f"te-compile: {tool} (mtime "
          f"{time.strftime('%Y-%m-%d %H:%M', time.gmtime(os.path.getmtime(tool)))} UTC); "
          f"source commit {rev}{' + uncommitted compiler changes' if dirty else ''}")
    print(f"machine: {os.cpu_count()} cores; load average before: "
          f"{' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    print(f"program: N x (fc1 {args.hidden}->{args.ffn}, tanh, fc2 {args.ffn}->{args.hidden}), "
          f"{args.tokens} tokens, forward + backward, one entry, Float8CurrentScaling; "
          f"{args.runs} runs each, whole-process wall time")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        # A private copy of the binary: a rebuild of build/ mid-run must
        # neither break nor change the measurement.
        private = os.path.join(tmp, "te-compile")
        shutil.copy2(tool, private)
        tool = private
        for n in layers:
            src = os.path.join(tmp, f"stack{n}.mlir")
            out = os.path.join(tmp, f"stack{n}.so")
            with open(src, "w") as f:
                f.write(programs.stack_module(n, args.tokens, args.hidden, args.ffn))
            times = []
            for _ in range(args.runs):
                t0 = time.perf_counter()
                proc = subprocess.run([tool, src, "-o", out], capture_output=True, text=True)
                times.append(time.perf_counter() - t0)
                if proc.returncode != 0:
                    print(f"te-compile failed on {n} layers:\n{proc.stderr[-2000:]}")
                    return 1
            manifest = subprocess.run([tool, src, "--emit=manifest", "-o", "-"],
                                      capture_output=True, text=True)
            gemms = None
            try:
                gemms = len(json.loads(manifest.stdout).get("gemms", []))
            except (json.JSONDecodeError, ValueError):
                pass
            rows.append({"layers": n, "min_s": min(times), "median_s": statistics.median(times),
                         "runs_s": times, "kernels": count_kernels(out), "gemms": gemms,
                         "artifact_bytes": os.path.getsize(out)})
            r = rows[-1]
            print(f"  {n} layers: min {r['min_s']:.2f} s, median {r['median_s']:.2f} s, "
                  f"{r['kernels']} kernels, {gemms} GEMMs", flush=True)
    print(f"load average after: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    print()
    print("| layers | te-compile min s | median s | s per layer (median) | GPU kernels "
          "| GEMMs in manifest | artifact KiB |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['layers']} | {r['min_s']:.2f} | {r['median_s']:.2f} | "
              f"{r['median_s'] / r['layers']:.2f} | {r['kernels']} | {r['gemms']} | "
              f"{r['artifact_bytes'] / 1024:.0f} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
