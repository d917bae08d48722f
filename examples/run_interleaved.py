#!/usr/bin/env python3
"""Run a workload script's configurations N times, interleaved, each run in
a fresh process, and report the median, min and max of step time and peak
memory per configuration (one table, then one JSON line).

    python3 examples/run_interleaved.py --runs 5 examples/train_gpt.py \\
        torch mrctx-cache mrctx-device -- --steps 50 --warmup 10

A configuration is an allocator name, optionally followed by environment
settings for its runs, joined with '+':
    'mrctx-cache+MRCTX_WORKLOAD_MEMORY=memory=cache(device, max=16GiB)'
Runs rotate the order of the configurations, so none always runs first.
Step time is each run's median ms/step; peak memory is what the script
reports: torch.cuda.max_memory_reserved for PyTorch's allocator, CuPy's
pool size for CuPy's, the driver pool's reserved high for mrctx (plus the
tag's own peak, peak_used_bytes).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from typing import Any, Optional


def parse_config(text: str) -> tuple[str, dict[str, str]]:
    allocator, *settings = text.split("+")
    env = {}
    for setting in settings:
        name, sep, value = setting.partition("=")
        if not sep or not name:
            raise SystemExit(f"run_interleaved: {setting!r} in {text!r} is not VAR=VALUE")
        env[name] = value
    return allocator, env


def run_once(script: str, config: str, extra: list[str], timeout: int) -> dict[str, Any]:
    allocator, env = parse_config(config)
    command = [sys.executable, script, "--allocator", allocator, *extra]
    done = subprocess.run(command, env=dict(os.environ, **env), capture_output=True, text=True,
                          timeout=timeout)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        sys.stderr.write(f"run_interleaved: {config}: exit {done.returncode}\n"
                         f"{done.stdout[-4000:]}{done.stderr[-4000:]}\n")
        return {"failed": True, "exit": done.returncode}
    return json.loads(lines[-1])


def summary(values: list[Optional[float]]) -> Optional[dict[str, float]]:
    present = [v for v in values if v is not None]
    if not present:
        return None
    return {"median": statistics.median(present), "min": min(present), "max": max(present)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--timeout", type=int, default=1800, help="seconds per run")
    parser.add_argument("script")
    parser.add_argument("configs", nargs="+",
                        help="allocators to compare; after --: arguments for every run")
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    args = parser.parse_args(argv[:cut])
    extra = argv[cut + 1:]

    results: dict[str, list[dict[str, Any]]] = {c: [] for c in args.configs}
    for run in range(args.runs):
        order = args.configs[run % len(args.configs):] + args.configs[:run % len(args.configs)]
        for config in order:
            result = run_once(args.script, config, extra, args.timeout)
            results[config].append(result)
            print(f"run {run + 1}/{args.runs} {config}: "
                  f"{result.get('ms_per_step_median', float('nan')):.2f} ms/step, peak "
                  f"{(result.get('peak_reserved_bytes') or 0) / 2**30:.2f} GiB", file=sys.stderr)

    report = {}
    print(f"{'configuration':<40} {'runs':>4} {'ms/step median':>15} {'min':>8} {'max':>8} "
          f"{'peak GiB median':>16} {'min':>7} {'max':>7} {'tag peak GiB':>13}")
    for config, runs in results.items():
        ok = [r for r in runs if not r.get("failed")]
        step = summary([r["ms_per_step_median"] for r in ok])
        peak = summary([r.get("peak_reserved_bytes") for r in ok])
        used = summary([r.get("peak_used_bytes") for r in ok])
        report[config] = {"runs": len(runs), "failed": len(runs) - len(ok),
                          "ms_per_step": step, "peak_reserved_bytes": peak,
                          "peak_used_bytes": used,
                          "spec": ok[0].get("spec") if ok else None,
                          "each_run": [r.get("ms_per_step_median") for r in runs]}
        gib = 2.0 ** 30
        if step is None:
            print(f"{config:<40} {len(runs):>4}  every run failed")
            continue
        print(f"{config:<40} {len(ok):>4} {step['median']:>15.2f} {step['min']:>8.2f} "
              f"{step['max']:>8.2f} "
              + (f"{peak['median'] / gib:>16.2f} {peak['min'] / gib:>7.2f} {peak['max'] / gib:>7.2f}"
                 if peak else f"{'-':>16} {'-':>7} {'-':>7}")
              + (f" {used['median'] / gib:>13.2f}" if used else f" {'-':>13}"))
    print(json.dumps({"script": os.path.basename(args.script), "runs": args.runs, "extra": extra,
                      "results": report}, sort_keys=True))
    return 0 if all(r["failed"] == 0 for r in report.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
