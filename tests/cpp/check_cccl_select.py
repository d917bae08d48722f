#!/usr/bin/env python3
"""check_cccl_select.py: when mrctx.hpp defines its CCCL adaptor, and what
it says when it refuses.

Compiles small translation units with the C++ compiler given after `--` and
checks, for each case, that the adaptor is absent, present in the expected
spelling (MRCTX_CCCL_SPELLING 300 or 301), or refused with an #error whose
text is given. The cases that need the CUDA toolkit's headers (--toolkit)
or a CCCL 3.1+ include directory (--cccl31; CCCL 3.4.2's, which
tests/cpp/meson.build unpacks from tests/vendor/cccl) are left out without
them. CCCL versions this header does not know (2.x, 4.x) are a
<cuda/version> written here. Usage:

    check_cccl_select.py --include DIR... [--toolkit DIR] [--cccl31 DIR] -- CXX ARGS...
"""
import argparse
import concurrent.futures
import os
import subprocess
import sys
import tempfile

NONE = "none"

PROBE_ABSENT = """
#ifdef MRCTX_HAS_CCCL_RESOURCE
#error "the CCCL adaptor was defined"
#endif
"""

PROBE_SPELLING = """
#if !defined(MRCTX_HAS_CCCL_RESOURCE)
#error "no CCCL adaptor was defined"
#elif MRCTX_CCCL_SPELLING != {0}
#error "the CCCL adaptor has another spelling than {0}"
#endif
static_assert(sizeof(mrctx::device_accessible_resource) > 0, "");
"""

FAKE_VERSION = """#pragma once
#define CCCL_VERSION {0}
#define CCCL_MAJOR_VERSION (CCCL_VERSION / 1000000)
#define CCCL_MINOR_VERSION (((CCCL_VERSION / 1000) % 1000))
#define CCCL_PATCH_VERSION (CCCL_VERSION % 1000)
"""


def compile_unit(cxx, includes, source, tmp):
    fd, path = tempfile.mkstemp(suffix=".cpp", dir=tmp)
    os.close(fd)
    with open(path, "w", encoding="utf-8") as f:
        f.write(source)
    args = cxx + ["-fsyntax-only"] + ["-I" + d for d in includes] + [path]
    result = subprocess.run(args, capture_output=True, text=True, check=False)
    return result.returncode, result.stdout + result.stderr


def main():
    parser = argparse.ArgumentParser(usage=__doc__)
    parser.add_argument("--include", action="append", default=[])
    parser.add_argument("--toolkit")
    parser.add_argument("--cccl31")
    parser.add_argument("cxx", nargs=argparse.REMAINDER)
    opts = parser.parse_args()
    cxx = opts.cxx[1:] if opts.cxx[:1] == ["--"] else opts.cxx
    if not cxx or not opts.include:
        print(__doc__.strip(), file=sys.stderr)
        return 2

    failures = 0
    checked = 0
    with tempfile.TemporaryDirectory() as tmp:
        fakes = {}
        for name, version in (("cccl-2.8", 2008000), ("cccl-4.0", 4000000)):
            d = os.path.join(tmp, name)
            os.makedirs(os.path.join(d, "cuda"))
            with open(os.path.join(d, "cuda", "version"), "w", encoding="utf-8") as f:
                f.write(FAKE_VERSION.format(version))
            fakes[name] = d

        # The compiler's own paths may already reach the toolkit.
        status, _ = compile_unit(cxx, [], "#include <cuda_runtime_api.h>\n", tmp)
        toolkit_by_default = status == 0

        # The toolkit's runtime header must be usable by this compiler for
        # the cases that include it: say so, with the compiler's words,
        # and leave them out where it is not (a toolkit without its
        # runtime headers, an unreadable file).
        toolkit = opts.toolkit
        if toolkit:
            status, out = compile_unit(
                cxx, [toolkit],
                "#if !__has_include(<cuda_runtime_api.h>)\n"
                "#error \"__has_include does not find cuda_runtime_api.h\"\n"
                "#endif\n"
                "#include <cuda_runtime_api.h>\n"
                "cudaStream_t probe_stream = nullptr;\n", tmp)
            if status != 0:
                print(f"note: {os.path.join(toolkit, 'cuda_runtime_api.h')} does not compile with "
                      f"{' '.join(cxx)}, so the cases that need the toolkit are left out; "
                      f"the compiler said (status {status}):\n{out.strip()}\n")
                toolkit = None

        toolkit_cccl = None
        if toolkit:
            tk = [os.path.join(toolkit, "cccl"), toolkit]
            status, out = compile_unit(
                cxx, tk,
                "#include <cuda/version>\n"
                "static_assert(CCCL_MAJOR_VERSION == 3 && CCCL_MINOR_VERSION == 0, \"\");\n", tmp)
            toolkit_cccl = "3.0" if status == 0 else "other"

        # (name, defines, include dirs, text before mrctx.hpp, expected)
        # expected: NONE, a spelling (300, 301), or the text of an #error.
        cases = [
            ("nothing asked, no CCCL", [], [], "", NONE),
            ("MRCTX_NO_CCCL wins over MRCTX_WITH_CCCL", ["MRCTX_NO_CCCL", "MRCTX_WITH_CCCL"], [], "", NONE),
        ]
        if not toolkit_by_default:
            cases += [
                ("MRCTX_WITH_CCCL without the toolkit's headers", ["MRCTX_WITH_CCCL"], [], "",
                 "CCCL's cuda::mr needs the CUDA toolkit's headers (cuda_runtime_api.h)"),
                ("the experimental macro without the toolkit's headers",
                 ["LIBCUDACXX_ENABLE_EXPERIMENTAL_MEMORY_RESOURCE"], [], "",
                 "CCCL's cuda::mr needs the CUDA toolkit's headers (cuda_runtime_api.h)"),
            ]
        if toolkit:
            tk = [os.path.join(toolkit, "cccl"), toolkit]
            for fake, version in (("cccl-2.8", "2.8"), ("cccl-4.0", "4.0")):
                inc = [fakes[fake], toolkit]
                cases += [
                    (f"CCCL {version} asked for by MRCTX_WITH_CCCL", ["MRCTX_WITH_CCCL"], inc, "",
                     "this CCCL is neither; define MRCTX_NO_CCCL to do without it"),
                    (f"CCCL {version} asked for by the experimental macro",
                     ["LIBCUDACXX_ENABLE_EXPERIMENTAL_MEMORY_RESOURCE"], inc, "",
                     "this CCCL is neither; define MRCTX_NO_CCCL to do without it"),
                    (f"CCCL {version} included first, nothing asked", [], inc,
                     "#include <cuda/version>\n", NONE),
                ]
            if toolkit_cccl == "3.0":
                cases += [
                    ("the toolkit's CCCL 3.0 with the experimental macro",
                     ["LIBCUDACXX_ENABLE_EXPERIMENTAL_MEMORY_RESOURCE"], tk, "", 300),
                    ("the toolkit's CCCL 3.0 with both macros",
                     ["LIBCUDACXX_ENABLE_EXPERIMENTAL_MEMORY_RESOURCE", "MRCTX_WITH_CCCL"], tk, "", 300),
                    ("the toolkit's CCCL 3.0 included first, nothing asked", [], tk,
                     "#include <cuda/version>\n#include <cuda/stream_ref>\n", NONE),
                    ("the toolkit's CCCL 3.0 asked for without the experimental macro",
                     ["MRCTX_WITH_CCCL"], tk, "",
                     "CCCL 3.0 (CUDA 13.0) defines cuda::mr only with "
                     "LIBCUDACXX_ENABLE_EXPERIMENTAL_MEMORY_RESOURCE defined"),
                ]
        if opts.cccl31 and toolkit:
            inc = [opts.cccl31, toolkit]
            cases += [
                ("CCCL 3.1+ included first, nothing asked", [], inc,
                 "#include <cuda/memory_resource>\n", 301),
                ("CCCL 3.1+ asked for by MRCTX_WITH_CCCL", ["MRCTX_WITH_CCCL"], inc, "", 301),
                ("CCCL 3.1+ with the experimental macro",
                 ["LIBCUDACXX_ENABLE_EXPERIMENTAL_MEMORY_RESOURCE"], inc, "", 301),
                ("CCCL 3.1+ included first, MRCTX_NO_CCCL", ["MRCTX_NO_CCCL"], inc,
                 "#include <cuda/memory_resource>\n", NONE),
                ("CCCL 3.1+ included after mrctx.hpp only", [], inc,
                 "", NONE),
            ]

        def run(case):
            name, defines, inc, before, expected = case
            source = "".join(f"#define {d}\n" for d in defines) + before + "#include <mrctx/mrctx.hpp>\n"
            if expected == NONE:
                source += PROBE_ABSENT
            elif isinstance(expected, int):
                source += PROBE_SPELLING.format(expected)
            if name.endswith("after mrctx.hpp only"):
                source += "#include <cuda/memory_resource>\n" + PROBE_ABSENT
            return compile_unit(cxx, opts.include + inc, source, tmp)

        # Two compilers at a time: each unit parses CCCL's headers.
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            results = list(pool.map(run, cases))
        for (name, _, _, _, expected), (status, out) in zip(cases, results):
            if isinstance(expected, str) and expected != NONE:
                ok = status != 0 and expected in out
                want = f"an #error saying: {expected}"
            else:
                ok = status == 0
                want = "no adaptor" if expected == NONE else f"the adaptor in spelling {expected}"
            checked += 1
            if ok:
                print(f"ok: {name}: {want}")
            else:
                failures += 1
                print(f"FAIL: {name}: expected {want}; the compiler said (status {status}):\n{out.strip()}\n")
    print(f"{checked - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
