#!/usr/bin/env python3
"""Run `mrctx resolve` (the built executable) and check what it prints.

usage: check_resolve.py MODE MRCTX
  no-driver  the table, sources, ignored and unavailable entries, exit
             statuses and carets, where the driver cannot be loaded
  fake       the same over the fake driver's four devices
"""
import os
import subprocess
import sys
import tempfile

failures = []
passed = 0


def run(mrctx, *args, env=None):
    merged = dict(os.environ)
    merged.update(env or {})
    p = subprocess.run([mrctx, "resolve", *args], capture_output=True, text=True, env=merged,
                       timeout=60)
    return p.returncode, p.stdout, p.stderr


def expect(condition, what, output=""):
    global passed
    if condition:
        passed += 1
    else:
        failures.append(what + ("\n--- output ---\n" + output if output else ""))


def expect_equal(got, wanted, what):
    expect(got == wanted, what, "wanted:\n%s\ngot:\n%s" % (wanted, got))


def check_usage(mrctx):
    for args in (["--help"], ["-h"], ["--tag", "a=host", "--help"]):
        rc, out, err = run(mrctx, *args)
        expect(rc == 0 and out.startswith("usage: mrctx resolve --tag NAME=SPEC") and err == "",
               " ".join(args) + " prints the help", out + err)
    rc, out, err = run(mrctx)
    expect_equal((rc, out, err),
                 (2, "", "mrctx resolve: give at least one --tag NAME=SPEC (see --help)\n"),
                 "no tags: exit 2")
    rc, out, err = run(mrctx, "--tag", "temp")
    expect_equal((rc, err), (2, "mrctx resolve: --tag wants NAME=SPEC, got 'temp'\n"),
                 "--tag without '='")
    rc, out, err = run(mrctx, "--tag", "temp=host", "--bogus")
    expect(rc == 2 and "mrctx resolve: unknown argument '--bogus'" in err and
           "usage: mrctx resolve" in err and out == "", "an unknown argument: exit 2", out + err)
    rc, out, err = run(mrctx, "--tag", "temp=host", "--env")
    expect_equal((rc, err), (2, "mrctx resolve: --env needs a value\n"), "--env without a value")
    rc, out, err = run(mrctx, "--tag", "temp=host", "--tag", "temp=host")
    expect_equal((rc, out, err),
                 (2, "", "mrctx resolve: resolve: tags 0 and 1 are both named 'temp'\n"),
                 "a duplicate tag")


def check_table(mrctx):
    rc, out, err = run(mrctx, "--tag", "temp=stats(host)", "--tag=result=host", "--set",
                       "temp=host", "--library", "mylib")
    expect_equal((rc, err), (0, ""), "a host-only table resolves quietly")
    expect_equal(out,
                 "mylib: 2 tags, 1 device\n"
                 "\n"
                 "tag     device  resource  source\n"
                 "temp    0       host      override text, line 1\n"
                 "result  0       host      default\n",
                 "the table")


def check_sources_no_driver(mrctx):
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "mylib.conf")
        with open(path, "w") as f:
            f.write("# staging buffers\nstaging = stats(host)\nresult@2 = host\n")
        rc, out, err = run(mrctx, "--tag", "temp=host", "--tag", "staging=pinned", "--tag",
                           "result=device", "--env", "RESOLVE_TEST_MEMORY", "--config", path,
                           "--library", "mylib",
                           env={"RESOLVE_TEST_MEMORY": "temp=cache(host, max=64MiB)"})
        expect_equal((rc, err), (0, ""), "sources: exit 0")
        head = ("mylib: 3 tags, 1 device\n"
                "\n"
                "tag      device  resource                source\n"
                "temp     0       cache(host, max=64MiB)  env RESOLVE_TEST_MEMORY, line 1\n"
                "staging  0       stats(host)             file %s, line 2\n"
                "result   0       device                  default  (unavailable)\n"
                "\n"
                "ignored (no such device):\n"
                "  result@2=host  (file %s, line 3)\n"
                "\n"
                "unavailable (allocations fail):\n"
                "  MR_ERR_NO_DRIVER: mylib:result on device 0: device: ") % (path, path)
        expect(out.startswith(head), "sources, ignored and unavailable entries",
               "wanted to begin:\n%s\ngot:\n%s" % (head, out))


def check_bad_specs(mrctx):
    rc, out, err = run(mrctx, "--tag", "temp=host", "--env", "RESOLVE_TEST_MEMORY",
                       env={"RESOLVE_TEST_MEMORY": "temp=arina(device)"})
    expect(rc == 2 and out == "" and
           err.startswith("mrctx resolve: RESOLVE_TEST_MEMORY, column 6: unknown resource "
                          "'arina' (known: align, arena, bin, cache, ") and
           err.endswith(")\n  temp=arina(device)\n       ^\n"),
           "an unknown name: exit 2, caret under the column", out + err)
    rc, out, err = run(mrctx, "--tag", "temp=arena(host, chnk=1)")
    expect_equal((rc, out, err),
                 (2, "", "mrctx resolve: default spec of resolve tag 'temp', column 13: arena: "
                         "unknown parameter 'chnk' (known: chunk)\n"
                         "  arena(host, chnk=1)\n"
                         "              ^\n"),
                 "an unknown parameter in a default spec")
    rc, out, err = run(mrctx, "--tag", "temp=host", "--set", "temp=host; tmp=host")
    expect(rc == 2 and "override text, column 12: resolve has no tag 'tmp' (tags: temp)" in err,
           "an unknown tag", out + err)
    rc, out, err = run(mrctx, "--tag", "temp=host", "--config", "/nonexistent/mylib.conf")
    expect_equal((rc, err),
                 (2, "mrctx resolve: config file '/nonexistent/mylib.conf' cannot be opened: No "
                     "such file or directory\n"),
                 "a missing config file")
    rc, out, err = run(mrctx, "--tag", "a=@b", "--tag", "b=stats(@a)")
    expect(rc == 2 and "tags refer to each other in a cycle: a -> b -> a" in err,
           "a cycle", out + err)


def check_fake(mrctx):
    env = {"FAKE_MEMORY": "temp=arena(device, chunk=64MiB); result@1=managed; "
                          "big=limit(device, bytes=50%); result@7=host"}
    rc, out, err = run(mrctx, "--library", "mylib", "--tag", "temp=device", "--tag",
                       "result=device", "--tag", "big=device", "--env", "FAKE_MEMORY", env=env)
    expect_equal((rc, err), (0, ""), "over the fake driver: exit 0")
    expect_equal(out,
                 "mylib: 3 tags, 4 devices\n"
                 "\n"
                 "tag     device  resource                    source\n"
                 "temp    0       arena(device, chunk=64MiB)  env FAKE_MEMORY, line 1\n"
                 "temp    1       arena(device, chunk=64MiB)  env FAKE_MEMORY, line 1\n"
                 "temp    2       arena(device, chunk=64MiB)  env FAKE_MEMORY, line 1\n"
                 "temp    3       arena(device, chunk=64MiB)  env FAKE_MEMORY, line 1\n"
                 "result  0       device                      default\n"
                 "result  1       managed                     env FAKE_MEMORY, line 1\n"
                 "result  2       device                      default\n"
                 "result  3       device                      default\n"
                 "big     0       limit(device, bytes=8GiB)   env FAKE_MEMORY, line 1\n"
                 "big     1       limit(device, bytes=8GiB)   env FAKE_MEMORY, line 1\n"
                 "big     2       limit(device, bytes=8GiB)   env FAKE_MEMORY, line 1\n"
                 "big     3       limit(device, bytes=8GiB)   env FAKE_MEMORY, line 1\n"
                 "\n"
                 "ignored (no such device):\n"
                 "  result@7=host  (env FAKE_MEMORY, line 1)\n",
                 "four devices, per-device overrides, % of each device's 16 GiB")


def main():
    mode, mrctx = sys.argv[1], sys.argv[2]
    if mode == "no-driver":
        check_usage(mrctx)
        check_table(mrctx)
        check_sources_no_driver(mrctx)
        check_bad_specs(mrctx)
    elif mode == "fake":
        check_fake(mrctx)
    else:
        sys.exit("unknown mode " + mode)
    for f in failures:
        print("FAILED: " + f)
    print("%d passed, %d failed" % (passed, len(failures)))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
