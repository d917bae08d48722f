#!/usr/bin/env python3
"""Run a workload script's configurations N times, interleaved, each run in
a fresh process, and report the median, min and max of step time and peak
memory per configuration, then the medians of the allocator's counters per
step (two tables, then one JSON line).

    python3 examples/run_interleaved.py --runs 5 examples/train_gpt.py \\
        torch mrctx-cache mrctx-device pluggable-control -- --steps 50 --warmup 10

A configuration is an allocator name, optionally followed by environment
settings for its runs, joined with '+':
    'mrctx-cache+MRCTX_WORKLOAD_MEMORY=memory=cache(device, max=16GiB)'
Runs rotate the order of the configurations, so none always runs first.
Step time is each run's median ms/step; peak memory is what the script
reports: torch.cuda.max_memory_reserved for PyTorch's allocator, CuPy's
pool size for CuPy's, the driver pool's reserved high for mrctx (plus the
tag's own peak, peak_used_bytes). Spread is (max - min) / median of the
runs' step times.

Counters (each run's per-step averages over its timed steps; the table
gives their median over runs): allocations, frees, hits and misses per
step and the hit rate, where the allocator has them (workload_common.py,
StepCounters); with MRCTX_TORCH_TIMING=1 in the environment (or as a
'+' setting of a configuration) the pluggable allocators (mrctx-* under
PyTorch, pluggable-control) add the ms per step spent inside the
allocator's calls, the calls over 10 us per step and the longest call.
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


# The counters of a run's JSON line that the second table shows: (key, heading, scale).
COUNTERS = (
    ("allocs_per_step", "allocs/step", 1.0),
    ("frees_per_step", "frees/step", 1.0),
    ("hits_per_step", "hits/step", 1.0),
    ("misses_per_step", "misses/step", 1.0),
    ("hit_rate", "hit rate", 1.0),
    ("allocator_ms_per_step", "in alloc ms/step", 1.0),
    ("alloc_slow_per_step", "slow allocs/step", 1.0),
    ("free_slow_per_step", "slow frees/step", 1.0),
    ("alloc_max_ns", "max alloc us", 1e-3),
    ("free_max_ns", "max free us", 1e-3),
)


def counter_medians(runs: list[dict[str, Any]]) -> dict[str, Optional[float]]:
    """Each counter's median over the runs that reported it."""
    medians: dict[str, Optional[float]] = {}
    for key, _, _ in COUNTERS:
        present = [r[key] for r in runs if r.get(key) is not None]
        medians[key] = statistics.median(present) if present else None
    return medians


def print_counters(report: dict[str, dict[str, Any]]) -> None:
    widths = [max(len(heading), 9) for _, heading, _ in COUNTERS]
    print()
    print(f"{'configuration':<40} {'from':>7} "
          + " ".join(f"{heading:>{w}}" for (_, heading, _), w in zip(COUNTERS, widths)))
    for config, entry in report.items():
        medians = entry["counters"]
        cells = []
        for (key, _, scale), w in zip(COUNTERS, widths):
            value = medians.get(key)
            if value is None:
                cells.append(f"{'-':>{w}}")
            elif key == "hit_rate":
                cells.append(f"{value * 100:>{w - 1}.1f}%")
            else:
                scaled = value * scale
                cells.append(f"{scaled:>{w}.2f}" if scaled < 1e5 else f"{scaled:>{w}.3g}")
        print(f"{config:<40} {entry.get('counters_from') or '-':>7} " + " ".join(cells))


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
          f"{'spread':>7} {'peak GiB median':>16} {'min':>7} {'max':>7} {'tag peak GiB':>13}")
    for config, runs in results.items():
        ok = [r for r in runs if not r.get("failed")]
        step = summary([r["ms_per_step_median"] for r in ok])
        peak = summary([r.get("peak_reserved_bytes") for r in ok])
        used = summary([r.get("peak_used_bytes") for r in ok])
        report[config] = {"runs": len(runs), "failed": len(runs) - len(ok),
                          "ms_per_step": step, "peak_reserved_bytes": peak,
                          "peak_used_bytes": used,
                          "spec": ok[0].get("spec") if ok else None,
                          "each_run": [r.get("ms_per_step_median") for r in runs],
                          "counters_from": ok[0].get("counters_from") if ok else None,
                          "counters": counter_medians(ok)}
        gib = 2.0 ** 30
        if step is None:
            print(f"{config:<40} {len(runs):>4}  every run failed")
            continue
        spread = (step["max"] - step["min"]) / step["median"] * 100 if step["median"] else 0.0
        report[config]["ms_per_step"]["spread_percent"] = spread
        print(f"{config:<40} {len(ok):>4} {step['median']:>15.2f} {step['min']:>8.2f} "
              f"{step['max']:>8.2f} {spread:>6.1f}% "
              + (f"{peak['median'] / gib:>16.2f} {peak['min'] / gib:>7.2f} {peak['max'] / gib:>7.2f}"
                 if peak else f"{'-':>16} {'-':>7} {'-':>7}")
              + (f" {used['median'] / gib:>13.2f}" if used else f" {'-':>13}"))
    print_counters(report)
    print(json.dumps({"script": os.path.basename(args.script), "runs": args.runs, "extra": extra,
                      "results": report}, sort_keys=True))
    return 0 if all(r["failed"] == 0 for r in report.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
