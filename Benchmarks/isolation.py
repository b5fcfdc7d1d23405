#!/usr/bin/env python3
"""The cost of isolated decoding (coders in sandboxed worker processes) against in-process decoding.

1. Warm pool, one process (Benchmarks/IsolationBench, the `isolation-bench` executable): per-request medians
   in-process vs isolated for a small SVG icon, a 256 px thumbnail of big files, a PDF page, a 1x1 PNG (the pure
   round trip) and a 48 MB full-size output; then the throughput of a batch of 200 mixed files, in-process vs
   isolated vs auto, as many at once as there are processors.
2. Cold, one CLI run per request (`imagepipe render --isolation in-process|isolated`): what a one-shot command pays
   to start its worker.

Usage: Benchmarks/isolation.py [--runs N] [--cli-runs N]. Needs the release build and plugins.d (`make`)."""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, ".build", "release")
IMAGEPIPE = os.path.join(BUILD, "imagepipe")
BENCH = os.path.join(BUILD, "isolation-bench")
PLUGINS = os.path.join(ROOT, "plugins.d")


def cli_median(command, runs):
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=30, help="runs per case in the warm-pool benchmark")
    parser.add_argument("--cli-runs", type=int, default=15, help="runs per case of the one-shot CLI comparison")
    args = parser.parse_args()
    if not os.path.exists(IMAGEPIPE):
        raise SystemExit("build first: make")
    work = tempfile.mkdtemp(prefix="imagepipe-isolation-bench-")
    try:
        subprocess.check_call([sys.executable, os.path.join(ROOT, "Benchmarks", "make_inputs.py"), work])
        shutil.copy(os.path.join(ROOT, "samples", "icon.svg"), os.path.join(work, "icon.svg"))

        print("== warm pool, in one process ==", flush=True)
        if os.path.exists(BENCH):
            subprocess.check_call([BENCH, PLUGINS, work, IMAGEPIPE, str(args.runs)])
        else:
            print("(skipped: %s is not built; it needs the `isolation-bench` executable target in Package.swift:\n"
                  " .executableTarget(name: \"isolation-bench\", dependencies: [\"PipelineHost\"], path: \"Benchmarks/IsolationBench\"))"
                  % BENCH)

        print("\n== one CLI run per request (the worker starts cold), %d runs, medians ==" % args.cli_runs)
        print("%-36s %12s %12s %10s" % ("case", "in-process", "isolated", "overhead"))
        out = os.path.join(work, "out.png")
        cases = [
            ("SVG icon -> 64 px", os.path.join(work, "icon.svg"), "64x64"),
            ("SVG complex 1200x900 -> 256 px", os.path.join(work, "complex.svg"), "256x256"),
            ("PDF text page -> 256 px", os.path.join(work, "text-page.pdf"), "256x256"),
        ]
        for name, source, size in cases:
            times = [cli_median([IMAGEPIPE, "render", source, "--size", size, "-o", out, "--no-cache", "--isolation", mode],
                                args.cli_runs) for mode in ("in-process", "isolated")]
            print("%-36s %9.1f ms %9.1f ms %7.1f ms" % (name, times[0], times[1], times[1] - times[0]), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
