#!/usr/bin/env python3
"""Two libraries' tracked tags with a few dozen live blocks, written as the
file PyTorch's memory_viz opens (mrctx.export_memory_viz): the file the
pictures in docs/observability.md's memory_viz section were drawn from.

    MRCTX_CUDA_DRIVER=build/tests/fake_driver/libfakecuda.so \\
        PYTHONPATH=python python3 examples/memory_viz_demo.py demo.pickle

Over the fake driver (as above; no GPU needed) or a GPU (leave
MRCTX_CUDA_DRIVER unset). Then drag demo.pickle into
pytorch.org/memory_viz, or read it with torch.cuda._memory_viz.

"solver" keeps model weights (track(device, stacks=8)) and per-step
temporaries (track(cache(device), stacks=8)); "codec" keeps a ring of
frame buffers (track(cache(device), stacks=8)). Each step frees some
temporaries and the oldest frame, so the blocks still live at the end
were allocated at different times: the page's timeline places each block
at the snapshot's time less its age. Every block's call site is the
Python lines that asked, innermost first, then the native frames under
them (track's stacks=8), then the owner, library:tag. Sizes are drawn from a fixed seed, so two runs
draw the same picture.
"""

from __future__ import annotations

import argparse
import os
import random
import sys

# The mrctx package of this checkout, unless one is installed or on PYTHONPATH.
sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

import mrctx  # noqa: E402

MiB = 1 << 20
STACKS = 8


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", help="the memory_viz file (a pickle) to write")
    parser.add_argument("--steps", type=int, default=12)
    parser.add_argument("--device", type=int, default=0)
    args = parser.parse_args()

    rng = random.Random(37)
    with mrctx.Context("solver", {"weights": f"track(device, stacks={STACKS})",
                                  "temp": f"track(cache(device), stacks={STACKS})"}) as solver, \
            mrctx.Context("codec", {"frames": f"track(cache(device), stacks={STACKS})"}) as codec:
        weights = solver.get_resource("weights", args.device)
        temp = solver.get_resource("temp", args.device)
        frames = codec.get_resource("frames", args.device)
        live: list[tuple[mrctx.Resource, int, int]] = []

        def take(resource: mrctx.Resource, nbytes: int) -> tuple[mrctx.Resource, int, int]:
            block = (resource, resource.allocate(nbytes), nbytes)
            live.append(block)
            return block

        def give(block: tuple[mrctx.Resource, int, int]) -> None:
            resource, ptr, nbytes = block
            resource.deallocate(ptr, nbytes)
            live.remove(block)

        for layer in range(6):  # the weights, once, large
            take(weights, (8 + 4 * layer) * MiB)
        ring: list[tuple[mrctx.Resource, int, int]] = []
        for _step in range(args.steps):
            step_temps = [take(temp, rng.choice((64 << 10, 256 << 10, 1 * MiB, 3 * MiB,
                                                 6 * MiB)) + rng.randrange(0, 4096, 256))
                          for _ in range(rng.randint(3, 6))]
            for block in step_temps:  # most temporaries die within the step
                if rng.random() < 0.6:
                    give(block)
            ring.append(take(frames, rng.choice((2, 4, 4, 8)) * MiB))
            if len(ring) > 5:
                give(ring.pop(0))
        mrctx.export_memory_viz(args.output)
        print(f"memory_viz_demo: wrote {args.output}: {len(live)} live blocks of "
              f"solver:weights, solver:temp and codec:frames on device {args.device}")
        for block in list(live):
            give(block)


if __name__ == "__main__":
    main()
