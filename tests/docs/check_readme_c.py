#!/usr/bin/env python3
"""check_readme_c.py: README.md's C example builds and runs as shown.

    check_readme_c.py README.md BUILD_DIR
    check_readme_c.py README.md --installed PKGCONFIG_DIR

Takes the first ```c block after "## In a library" and the first ```sh
block after it that runs pkg-config, writes the C where the command line
expects it (the .c file it names), and runs the line with sh in a
temporary directory against BUILD_DIR uninstalled, as README says:
PKG_CONFIG_PATH=BUILD_DIR/meson-uninstalled, LD_LIBRARY_PATH=BUILD_DIR/lib.
With --installed, against an install to a prefix instead, as a user of it
builds: PKG_CONFIG_PATH=PKGCONFIG_DIR (the prefix's LIBDIR/pkgconfig) and
no LD_LIBRARY_PATH, so that the program runs only if the line gave it a
run path to the installed library (tests/consumers/run prefix).
With the driver MRCTX_CUDA_DRIVER names (the fake one) it must exit 0 and
print the tags' statistics; with none it must exit 1 saying why, as README
promises for a machine without a GPU. With MRCTX_STATS_AT_EXIT=stderr
the report at exit lists its context, which it destroyed before
returning, with the 4 MiB peak of its temp tag. With MYLIB_MEMORY=
'result=host' it must exit 1 saying the tag needs device memory (the
example's tag_requires). Then the operator's block: its `mrctx resolve`
line, run with its MYLIB_MEMORY over two fake devices, must print the
table shown in the block after it.
"""
import os
import re
import subprocess
import sys
import tempfile


def blocks(text, start):
    at = text.index(start)
    return [(m.group(1), m.group(2)) for m in
            re.finditer(r"^```(\w+)\n(.*?)^```$", text[at:], re.S | re.M)]


def check_resolve_block(found, tool, env):
    """The operator's block: the `export MYLIB_MEMORY=...` and the
    `build/tools/mrctx resolve` line (continued with backslashes), run with
    `tool` (the build's command, or the installed one) over two fake
    devices; the next block, the table it prints."""
    at = next((i for i, (lang, body) in enumerate(found)
               if lang == "sh" and "mrctx resolve" in body), None)
    if at is None or at + 1 >= len(found) or found[at + 1][0] != "text":
        return ["no ```sh block with an mrctx resolve line, followed by its output (```text)"]
    script = found[at][1].replace("\\\n", " ")
    export = re.search(r"^export (MYLIB_MEMORY)='([^']*)'$", script, re.M)
    line = next((l for l in script.splitlines() if "mrctx resolve" in l), "")
    if export is None or not line.startswith("build/tools/mrctx "):
        return ["the resolve block wants `export MYLIB_MEMORY='...'` and a line "
                "`build/tools/mrctx resolve ...`:\n" + script]
    run = subprocess.run(["sh", "-c", line.replace("build/tools/mrctx", tool, 1)],
                         capture_output=True, text=True, timeout=120,
                         env=dict(env, MYLIB_MEMORY=export.group(2), FAKECUDA_DEVICES="2"))
    if run.returncode != 0 or run.stdout != found[at + 1][1]:
        return ["README's resolve table is not what the line prints over two fake devices:\n"
                f"$ {line}\n{run.stdout}{run.stderr}\nREADME shows:\n{found[at + 1][1]}"]
    return []


def main():
    installed = len(sys.argv) == 4 and sys.argv[2] == "--installed"
    if len(sys.argv) != 3 and not installed:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    readme, build = sys.argv[1], os.path.abspath(sys.argv[-1])
    with open(readme, encoding="utf-8") as f:
        found = blocks(f.read(), "\n## In a library\n")
    c_code = next((body for lang, body in found if lang == "c"), None)
    if c_code is None:
        print("check_readme_c: no ```c block under '## In a library'", file=sys.stderr)
        return 1
    after_c = found[[body for _, body in found].index(c_code) + 1:]
    line = next((body.strip() for lang, body in after_c if lang == "sh" and "pkg-config" in body), None)
    source = re.search(r"(\S+\.c)\b", line or "")
    if line is None or source is None:
        print("check_readme_c: no ```sh block with a pkg-config build line of a .c file "
              "after the C example", file=sys.stderr)
        return 1
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, source.group(1)), "w", encoding="utf-8") as f:
            f.write(c_code)
        if installed:
            env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
            env["PKG_CONFIG_PATH"] = build
        else:
            env = dict(os.environ,
                       PKG_CONFIG_PATH=os.path.join(build, "meson-uninstalled"),
                       LD_LIBRARY_PATH=os.path.join(build, "lib"))
        run = subprocess.run(["sh", "-c", line], cwd=tmp, env=env, capture_output=True,
                             text=True, timeout=120)
        shown = f"$ {line}\n{run.stdout}{run.stderr}"
        if run.returncode != 0 or "mylib" not in run.stdout or "temp" not in run.stdout:
            failures.append("over the driver: wanted exit 0 and the tags' statistics\n" + shown)
        rerun = line.split("&&")[-1].strip()
        none = subprocess.run(["sh", "-c", rerun], cwd=tmp, capture_output=True, text=True,
                              env=dict(env, MRCTX_CUDA_DRIVER="/nonexistent/libcuda.so.1"),
                              timeout=120)
        if none.returncode != 1 or not none.stderr.startswith("mylib: ") \
                or "driver" not in none.stderr:
            failures.append(f"without a driver: wanted exit 1 and 'mylib: ...driver...'\n"
                            f"$ {rerun}\n{none.stdout}{none.stderr}")
        at_exit = subprocess.run(["sh", "-c", rerun], cwd=tmp, capture_output=True, text=True,
                                 env=dict(env, MRCTX_STATS_AT_EXIT="stderr"), timeout=120)
        temp_row = re.compile(r"^temp +all +0 B +4\.0 MiB +4\.0 MiB +0 +1 +0$", re.M)
        if at_exit.returncode != 0 \
                or ": 0 live contexts, 1 destroyed\nmylib memory by tag (destroyed)\n" \
                not in at_exit.stderr or not temp_row.search(at_exit.stderr):
            failures.append("with MRCTX_STATS_AT_EXIT=stderr: wanted its destroyed context "
                            "and the temp tag's 4 MiB peak in the report\n"
                            f"$ MRCTX_STATS_AT_EXIT=stderr {rerun}\n"
                            f"{at_exit.stdout}{at_exit.stderr}")
        refused = subprocess.run(["sh", "-c", rerun], cwd=tmp, capture_output=True, text=True,
                                 env=dict(env, MYLIB_MEMORY="result=host"), timeout=120)
        if refused.returncode != 1 or "'result'" not in refused.stderr \
                or "device" not in refused.stderr:
            failures.append("with MYLIB_MEMORY='result=host': wanted exit 1, refused by "
                            "tag_requires\n"
                            f"$ MYLIB_MEMORY='result=host' {rerun}\n"
                            f"{refused.stdout}{refused.stderr}")
        if installed:
            # The installed command: bin/ of the prefix the .pc file names.
            prefix = subprocess.run(["pkg-config", "--variable=prefix", "mrctx"], env=env,
                                    capture_output=True, text=True, timeout=60).stdout.strip()
            tool = os.path.join(prefix, "bin", "mrctx")
        else:
            tool = os.path.join(build, "tools", "mrctx")
        failures += check_resolve_block(found, tool, env)
    for failure in failures:
        print("check_readme_c: " + failure, file=sys.stderr)
    if failures:
        return 1
    print(f"check_readme_c: built and ran README.md's example: {line}\n{run.stdout}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
