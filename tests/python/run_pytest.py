#!/usr/bin/env python3
"""Run one directory of the Python tests with pytest, as a Meson test.

    run_pytest.py TESTS_DIR [pytest arguments...]

Exit status: pytest's, except 77 (Meson's "skipped") when pytest is not
installed, when nothing was collected, or when every test was skipped (the
gpu suite without a GPU or without the framework). MRCTX_TEST_PYTHON names
another interpreter to run the tests with (the one that has torch, cupy,
numba-cuda and cuda-core, e.g. /opt/torch/.venv/bin/python); this script
re-runs itself under it.

Under CI=true (as .ci/run sets it) a suite that must run -- every one but
the gpu suite's, whose tests meson.build marks MRCTX_TEST_SKIP_OK=1 --
fails instead of skipping, and so does one where a test skipped because a
module could not be imported (pytest.importorskip: numpy, distributed):
CI's machine has what README.md's apt line installs, and a skip there means
the line or CI lost a package. Every skip's reason is printed.
"""

import os
import sys

SKIP = 77


def _must_run() -> bool:
    """CI=true and a suite that must not skip (not the gpu suite)."""
    return os.environ.get("CI", "").lower() == "true" and \
        os.environ.get("MRCTX_TEST_SKIP_OK") != "1"


def _skip(reason: str) -> int:
    """77 (skipped), or 1 where the suite must run."""
    if _must_run():
        print(f"run_pytest: CI=true: this suite must run, not skip: {reason}")
        return 1
    print(f"run_pytest: skipped: {reason}")
    return SKIP


def main() -> int:
    wanted = os.environ.get("MRCTX_TEST_PYTHON")
    if wanted and os.path.realpath(wanted) != os.path.realpath(sys.executable) \
            and not os.environ.get("MRCTX_TEST_PYTHON_SWITCHED"):
        os.environ["MRCTX_TEST_PYTHON_SWITCHED"] = "1"
        os.execv(wanted, [wanted, os.path.abspath(__file__)] + sys.argv[1:])
    try:
        import pytest
    except ImportError:
        return _skip(f"pytest is not installed for {sys.executable} "
                     "(Debian: python3-pytest, as README.md's apt line installs; "
                     "or set MRCTX_TEST_PYTHON)")

    class Outcomes:
        def __init__(self) -> None:
            self.ran = 0
            self.skipped = 0
            self.missing: list[str] = []  # "test: could not import 'numpy': ..."

        def pytest_runtest_logreport(self, report) -> None:
            if report.when == "call" and not report.skipped:
                self.ran += 1
            elif report.skipped:
                self.skipped += 1
                # longrepr of a skip: (file, line, "Skipped: reason").
                reason = str(report.longrepr[-1]) if isinstance(report.longrepr, tuple) else ""
                if "could not import" in reason:
                    self.missing.append(f"{report.nodeid}: {reason}")

        def pytest_collectreport(self, report) -> None:
            # A module-level importorskip skips the whole file at collection.
            if report.skipped and isinstance(report.longrepr, tuple) and \
                    "could not import" in str(report.longrepr[-1]):
                self.skipped += 1
                self.missing.append(f"{report.nodeid}: {report.longrepr[-1]}")

    outcomes = Outcomes()
    args = sys.argv[1:] + ["-p", "no:cacheprovider", "-rsfE", "-v"]
    status = pytest.main(args, plugins=[outcomes])
    print(f"run_pytest: {outcomes.ran} ran, {outcomes.skipped} skipped, exit {int(status)} "
          f"({sys.executable})")
    if outcomes.missing and _must_run() and \
            status in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
        print("run_pytest: CI=true: tests skipped for want of a module:\n  "
              + "\n  ".join(outcomes.missing))
        return 1
    if status == pytest.ExitCode.NO_TESTS_COLLECTED or (status == 0 and outcomes.ran == 0):
        return _skip("no test ran (see the skip reasons above)")
    return int(status)


if __name__ == "__main__":
    sys.exit(main())
