#!/usr/bin/env python3
"""Run one directory of the Python tests with pytest, as a Meson test.

    run_pytest.py TESTS_DIR [pytest arguments...]

Exit status: pytest's, except 77 (Meson's "skipped") when pytest is not
installed, when nothing was collected, or when every test was skipped (the
gpu suite without a GPU or without the framework). MRCTX_TEST_PYTHON names
another interpreter to run the tests with (the one that has torch, cupy,
numba-cuda and cuda-core, e.g. /opt/torch/.venv/bin/python); this script
re-runs itself under it.
"""

import os
import sys

SKIP = 77


def main() -> int:
    wanted = os.environ.get("MRCTX_TEST_PYTHON")
    if wanted and os.path.realpath(wanted) != os.path.realpath(sys.executable) \
            and not os.environ.get("MRCTX_TEST_PYTHON_SWITCHED"):
        os.environ["MRCTX_TEST_PYTHON_SWITCHED"] = "1"
        os.execv(wanted, [wanted, os.path.abspath(__file__)] + sys.argv[1:])
    try:
        import pytest
    except ImportError:
        print(f"pytest is not installed for {sys.executable}: skipped "
              "(Debian: python3-pytest; or set MRCTX_TEST_PYTHON)")
        return SKIP

    class Outcomes:
        def __init__(self) -> None:
            self.ran = 0
            self.skipped = 0

        def pytest_runtest_logreport(self, report) -> None:
            if report.when == "call" and not report.skipped:
                self.ran += 1
            elif report.skipped:
                self.skipped += 1

    outcomes = Outcomes()
    args = sys.argv[1:] + ["-p", "no:cacheprovider", "-rsfE", "-v"]
    status = pytest.main(args, plugins=[outcomes])
    print(f"run_pytest: {outcomes.ran} ran, {outcomes.skipped} skipped, exit {int(status)} "
          f"({sys.executable})")
    if status == pytest.ExitCode.NO_TESTS_COLLECTED or (status == 0 and outcomes.ran == 0):
        return SKIP
    return int(status)


if __name__ == "__main__":
    sys.exit(main())
