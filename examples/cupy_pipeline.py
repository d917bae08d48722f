#!/usr/bin/env python3
"""A CuPy pipeline with many temporaries on 2^24 elements: sorts, FFTs,
reductions, scans and elementwise chains. Times each step and reports peak
device memory as one JSON line.

    python3 examples/cupy_pipeline.py --allocator {cupy,mrctx-cache,mrctx-device} --steps 50 --warmup 10

mrctx.cupy's route is MRCTX_CUPY_ROUTE's (auto, c or python; auto when
unset), so the C route and the Python one it replaced can be timed against
each other; the JSON line says which ran (cupy_route, and why for python).
"""

from __future__ import annotations

import os

import cupy

import workload_common as common

N = 1 << 24


def main() -> None:
    args = common.parse(__doc__.splitlines()[0], ["cupy", "mrctx-cache", "mrctx-device"])
    cupy.cuda.Device(args.device).use()
    ctx = common.mrctx_context(args.allocator, "cupy_pipeline")
    if ctx is not None:
        import mrctx.cupy
        mrctx.cupy.use(ctx, common.TAG, route=os.environ.get("MRCTX_CUPY_ROUTE", "auto"))
    pool = cupy.get_default_memory_pool()
    peak_pool = [0]
    random = cupy.random.default_rng(0)

    def step(_: int) -> None:
        x = random.standard_normal(N, dtype=cupy.float32)
        y = cupy.sort(x)
        order = cupy.argsort(x[: N // 4])
        spectrum = cupy.fft.rfft(x)
        back = cupy.fft.irfft(spectrum * cupy.conj(spectrum), n=N)
        z = cupy.cumsum(cupy.abs(y - back) * 0.5 + x * x)
        stats = cupy.stack([x.sum(), x.max(), y.mean(), back.std(), z[-1], order[:16].sum()])
        keep = x[x > 1.0]
        total = float(stats.sum() + keep.size)
        if total != total:  # NaN: the data went wrong
            raise RuntimeError("the pipeline produced NaN")
        peak_pool[0] = max(peak_pool[0], pool.total_bytes())

    counters = common.StepCounters(args.allocator, ctx, args.device)
    times = common.time_steps(step, cupy.cuda.get_current_stream().synchronize, args.warmup,
                              args.steps, counters)
    extra = {"cupy_version": cupy.__version__}
    if ctx is not None:
        import mrctx.cupy
        extra.update(cupy_route=mrctx.cupy.route()[0], cupy_route_why=mrctx.cupy.route()[1])
    if ctx is None:
        # CuPy's pool has no high-water mark: its size sampled after each step.
        extra.update(peak_reserved_bytes=peak_pool[0], peak_used_bytes=None)
    else:
        extra.update(common.mrctx_peaks(ctx, args.device))
    extra.update(counters.result(args.steps))
    common.report("cupy_pipeline", args, times, **extra)


if __name__ == "__main__":
    main()
