#!/usr/bin/env python3
"""Run the built mrctx command and check what it prints.

usage: check_mrctx.py MODE MRCTX [VERSION | SANITIZER]
  cli        help, version and usage errors (no driver needed)
  no-driver  `mrctx info` where the driver cannot be loaded: one line, exit 3
  fake-info  `mrctx info` over the fake driver (MRCTX_CUDA_DRIVER set)
  resolve    `mrctx resolve` where the driver cannot be loaded: the table,
             sources, ignored and unavailable entries, exit statuses, carets
  fake-resolve  `mrctx resolve` over the fake driver's four devices
  bench      `mrctx bench`'s help and usage errors, and where the driver
             cannot be loaded (builds with the toolkit's headers)
  fake-bench `mrctx bench` over the fake driver: the workloads --only picks,
             in order, each compared with its baseline row; progress, JSON;
             several runs, with each row's spread and reserved/requested;
             the trace workload on a log of the tests' and on the GPT
             training trace beside the source tree, where it is
             (SANITIZER: meson's b_sanitize, which picks the workloads)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

failures = []
passed = 0


# A command's time limit: sanitizers (argv[3], meson's b_sanitize) make the
# bench's workloads several times slower.
TIMEOUT = 60 if len(sys.argv) < 4 or sys.argv[3] == "none" else 240


def run(mrctx, *args, env=None):
    merged = dict(os.environ)
    merged.update(env or {})
    p = subprocess.run([mrctx, *args], capture_output=True, text=True, env=merged,
                       timeout=TIMEOUT)
    return p.returncode, p.stdout, p.stderr


def expect(condition, what, output=""):
    global passed
    if condition:
        passed += 1
    else:
        failures.append(what + ("\n--- output ---\n" + output if output else ""))


def check_cli(mrctx, version):
    rc, out, err = run(mrctx, "--help")
    expect(rc == 0 and "usage: mrctx VERB" in out and "info" in out, "--help lists the verbs", out + err)
    rc, out, err = run(mrctx, "help")
    expect(rc == 0 and "usage: mrctx VERB" in out, "help alone prints the usage", out + err)
    for args in (["help", "info"], ["info", "--help"], ["info", "-h"]):
        rc, out, err = run(mrctx, *args)
        expect(rc == 0 and out.startswith("usage: mrctx info"), " ".join(args) + " prints info's help", out + err)
    rc, out, err = run(mrctx, "--version")
    expect(rc == 0 and out == "mrctx %s\n" % version, "--version prints the version", out + err)
    rc, out, err = run(mrctx)
    expect(rc == 2 and "usage: mrctx VERB" in err, "no verb: usage on stderr, exit 2", out + err)
    for args, message in ((["frobnicate"], "unknown verb 'frobnicate'"),
                          (["help", "frobnicate"], "unknown verb 'frobnicate'"),
                          (["--bogus"], "unknown option '--bogus'"),
                          (["info", "--bogus"], "unknown argument '--bogus'"),
                          (["info", "--json", "extra"], "unknown argument 'extra'"),
                          (["info", "--json=yes"], "unknown argument '--json=yes'"),
                          (["info", "-j"], "unknown argument '-j'")):
        rc, out, err = run(mrctx, *args)
        expect(rc == 2 and message in err and out == "", " ".join(args) + ": exit 2 saying " + message, out + err)


def check_no_driver(mrctx, library):
    for args in (["info"], ["info", "--json"]):
        rc, out, err = run(mrctx, *args)
        expect(rc == 3, " ".join(args) + " without a driver exits 3", out + err)
        expect(out.count("\n") == 1 and err == "", " ".join(args) + " without a driver prints one line", out + err)
        expect(library in out, " ".join(args) + " names why: " + library, out + err)
    rc, out, err = run(mrctx, "info", "--json")
    try:
        expect("error" in json.loads(out), "--json without a driver has an error field", out)
    except ValueError as e:
        expect(False, "--json without a driver is JSON: %s" % e, out)


def check_fake_info(mrctx):
    rc, out, err = run(mrctx, "info")
    expect(rc == 0 and err == "", "info over the fake driver exits 0 quietly", out + err)
    lines = out.splitlines()
    expect("CUDA driver: 13.0" in lines, "the driver version", out)
    expect("devices: 4" in lines, "four devices", out)
    for d in range(4):
        expect("device %d: Fake CUDA Device %d" % (d, d) in lines, "device %d's name" % d, out)
    def field(name, value):
        return "  %-27s %s" % (name + ":", value)
    # Free memory beside the total (the fake devices' 16 GiB are all free).
    for name, value in (("total memory", "16 GiB"), ("free memory", "16 GiB"),
                        ("compute capability", "9.0"),
                        ("memory pools", "yes"), ("host memory pools", "yes"),
                        ("managed memory", "yes"), ("concurrent managed access", "yes"),
                        ("current pool", "the default pool")):
        expect(lines.count(field(name, value)) == 4, "every device shows " + name + " " + value, out)
    # Nothing was allocated, and reading did not raise any threshold.
    untouched = "release threshold 0 B, reserved 0 B (peak 0 B), used 0 B (peak 0 B)"
    expect(lines.count(field("default pool", untouched)) == 4, "every default pool untouched", out)
    expect(field("pinned default pool", untouched) in lines, "the pinned default pool", out)
    expect(field("managed default pool", untouched) in lines, "the managed default pool", out)

    rc, out, err = run(mrctx, "info", "--json")
    try:
        info = json.loads(out)
        expect(rc == 0 and info["driver_version"] == 13000 and
               [d["device"] for d in info["devices"]] == [0, 1, 2, 3],
               "--json: version and every device, in order", out)
        for d in info["devices"]:
            expect(d["available"] and d["current_pool"]["is_default"] and
                   d["default_pool"]["release_threshold"] == 0 and d["total_memory"] == 16 << 30
                   and d["free_memory"] == 16 << 30,
                   "--json: device %d" % d["device"], out)
        expect(info["pinned_default_pool"]["kind"] == "pinned", "--json: pinned pool", out)
        expect(info["managed_default_pool"]["kind"] == "managed", "--json: managed pool", out)
    except (ValueError, KeyError, TypeError) as e:
        expect(False, "--json over the fake driver: %r" % e, out)

    rc, out, err = run(mrctx, "info", env={"FAKECUDA_DEVICES": "2"})
    expect(rc == 0 and "devices: 2" in out.splitlines() and "device 2:" not in out,
           "two fake devices", out + err)
    rc, out, err = run(mrctx, "info", env={"FAKECUDA_DEVICES": "0"})
    expect(rc == 3 and out == "mrctx info: the CUDA driver found no device "
           "(cuInit: CUDA_ERROR_NO_DEVICE)\n", "no device: one line, exit 3", out + err)


# ---- mrctx resolve -------------------------------------------------------------

def resolve(mrctx, *args, env=None):
    return run(mrctx, "resolve", *args, env=env)


def expect_equal(got, wanted, what):
    expect(got == wanted, what, "wanted:\n%s\ngot:\n%s" % (wanted, got))


def check_resolve_usage(mrctx):
    for args in (["--help"], ["-h"], ["--tag", "a=host", "--help"]):
        rc, out, err = resolve(mrctx, *args)
        expect(rc == 0 and out.startswith("usage: mrctx resolve --tag NAME=SPEC") and err == "",
               " ".join(args) + " prints the help", out + err)
    rc, out, err = resolve(mrctx)
    expect_equal((rc, out, err),
                 (2, "", "mrctx resolve: give at least one --tag NAME=SPEC (see --help)\n"),
                 "no tags: exit 2")
    rc, out, err = resolve(mrctx, "--tag", "temp")
    expect_equal((rc, err), (2, "mrctx resolve: --tag wants NAME=SPEC, got 'temp'\n"),
                 "--tag without '='")
    rc, out, err = resolve(mrctx, "--tag", "temp=host", "--bogus")
    expect(rc == 2 and "mrctx resolve: unknown argument '--bogus'" in err and
           "usage: mrctx resolve" in err and out == "", "an unknown argument: exit 2", out + err)
    rc, out, err = resolve(mrctx, "--tag", "temp=host", "--env")
    expect_equal((rc, err), (2, "mrctx resolve: --env needs a value\n"), "--env without a value")
    # Read by getopt_long as the other verbs are; the same words for mistakes.
    for args in (["-x"], ["-xy"], ["extra"], ["--tagx", "a=host"], ["--library=x", "extra"]):
        rc, out, err = resolve(mrctx, "--tag", "temp=host", *args)
        bad = args[-1] if args[-1] == "extra" else args[0]
        expect(rc == 2 and err.startswith("mrctx resolve: unknown argument '%s'\n\nusage: " % bad)
               and out == "", "resolve " + " ".join(args) + ": exit 2, the usage", out + err)
    for option in ("--tag", "--config", "--set", "--library"):
        rc, out, err = resolve(mrctx, "--tag", "temp=host", option)
        expect_equal((rc, out, err), (2, "", "mrctx resolve: %s needs a value\n" % option),
                     option + " without a value")
    rc, out, err = resolve(mrctx, "--tag=temp=host", "--library=mine")
    expect(rc == 0 and "temp" in out, "--tag=NAME=SPEC and --library=NAME", out + err)
    rc, out, err = resolve(mrctx, "--tag", "temp=host", "--tag", "temp=host")
    expect_equal((rc, out, err),
                 (2, "", "mrctx resolve: resolve: tags 0 and 1 are both named 'temp'\n"),
                 "a duplicate tag")


def check_resolve_table(mrctx):
    rc, out, err = resolve(mrctx, "--tag", "temp=stats(host)", "--tag=result=host", "--set",
                       "temp=host", "--library", "mylib")
    expect_equal((rc, err), (0, ""), "a host-only table resolves quietly")
    expect_equal(out,
                 "mylib: 2 tags, 1 device\n"
                 "\n"
                 "tag     device  resource  source\n"
                 "temp    0       host      override text, line 1\n"
                 "result  0       host      default\n",
                 "the table")
    # The library's printer (mr_context_print_resolved) escapes the caller's
    # names, as every table of the library does.
    rc, out, err = resolve(mrctx, "--tag", "temp=host", "--library", "my\x1b[2Jlib")
    expect_equal((rc, out.split("\n")[0], err), (0, "my\\x1b[2Jlib: 1 tag, 1 device", ""),
                 "a library name with a control character, escaped")


def check_resolve_sources(mrctx):
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "mylib.conf")
        with open(path, "w") as f:
            f.write("# staging buffers\nstaging = stats(host)\nresult@2 = host\n")
        rc, out, err = resolve(mrctx, "--tag", "temp=host", "--tag", "staging=pinned", "--tag",
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


def check_resolve_bad_specs(mrctx):
    rc, out, err = resolve(mrctx, "--tag", "temp=host", "--env", "RESOLVE_TEST_MEMORY",
                       env={"RESOLVE_TEST_MEMORY": "temp=arina(device)"})
    expect(rc == 2 and out == "" and
           err.startswith("mrctx resolve: RESOLVE_TEST_MEMORY, column 6: unknown resource "
                          "'arina' (known: align, arena, bin, cache, ") and
           err.endswith(")\n  temp=arina(device)\n       ^\n"),
           "an unknown name: exit 2, caret under the column", out + err)
    rc, out, err = resolve(mrctx, "--tag", "temp=arena(host, chnk=1)")
    expect_equal((rc, out, err),
                 (2, "", "mrctx resolve: default spec of resolve tag 'temp', column 13: arena: "
                         "unknown parameter 'chnk' (known: chunk, keep, idle)\n"
                         "  arena(host, chnk=1)\n"
                         "              ^\n"),
                 "an unknown parameter in a default spec")
    rc, out, err = resolve(mrctx, "--tag", "temp=host", "--set", "temp=host; tmp=host")
    expect(rc == 2 and "override text, column 12: resolve has no tag 'tmp' (tags: temp)" in err,
           "an unknown tag", out + err)
    rc, out, err = resolve(mrctx, "--tag", "temp=host", "--config", "/nonexistent/mylib.conf")
    expect_equal((rc, err),
                 (2, "mrctx resolve: config file '/nonexistent/mylib.conf' cannot be opened: No "
                     "such file or directory\n"),
                 "a missing config file")
    rc, out, err = resolve(mrctx, "--tag", "a=@b", "--tag", "b=stats(@a)")
    expect(rc == 2 and "tags refer to each other in a cycle: a -> b -> a" in err,
           "a cycle", out + err)


def check_fake_resolve(mrctx):
    env = {"FAKE_MEMORY": "temp=arena(device, chunk=64MiB); result@1=managed; "
                          "big=limit(device, bytes=50%); result@7=host"}
    rc, out, err = resolve(mrctx, "--library", "mylib", "--tag", "temp=device", "--tag",
                       "result=device", "--tag", "big=device", "--env", "FAKE_MEMORY", env=env)
    expect_equal((rc, err), (0, ""), "over the fake driver: exit 0")
    expect_equal(out,
                 "mylib: 3 tags, 4 devices\n"
                 "\n"
                 "tag     device  resource                           source\n"
                 "temp    0       retry(arena(device, chunk=64MiB))  env FAKE_MEMORY, line 1\n"
                 "temp    1       retry(arena(device, chunk=64MiB))  env FAKE_MEMORY, line 1\n"
                 "temp    2       retry(arena(device, chunk=64MiB))  env FAKE_MEMORY, line 1\n"
                 "temp    3       retry(arena(device, chunk=64MiB))  env FAKE_MEMORY, line 1\n"
                 "result  0       retry(device)                      default\n"
                 "result  1       retry(managed)                     env FAKE_MEMORY, line 1\n"
                 "result  2       retry(device)                      default\n"
                 "result  3       retry(device)                      default\n"
                 "big     0       retry(limit(device, bytes=8GiB))   env FAKE_MEMORY, line 1\n"
                 "big     1       retry(limit(device, bytes=8GiB))   env FAKE_MEMORY, line 1\n"
                 "big     2       retry(limit(device, bytes=8GiB))   env FAKE_MEMORY, line 1\n"
                 "big     3       retry(limit(device, bytes=8GiB))   env FAKE_MEMORY, line 1\n"
                 "\n"
                 "ignored (no such device):\n"
                 "  result@7=host  (env FAKE_MEMORY, line 1)\n",
                 "four devices, per-device overrides, % of each device's 16 GiB")


def check_resolve_touches_nothing(mrctx, fake):
    """`mrctx resolve` describes and takes nothing: a log's file -- maybe the
    log of the running job whose variable is being checked -- is left byte
    for byte, nothing is created beside it, and (over the fake driver's
    16 GiB devices) specs whose building would take more memory than there
    is (fixed and bin take theirs at creation, pool reserves initial=)
    resolve all the same, described as they would be built."""
    devices = 4 if fake else 1
    with tempfile.TemporaryDirectory() as folder:
        log = os.path.join(folder, "job.csv")
        content = "Thread,Time,Action,Pointer,Size,Stream\n" + "".join(
            "4242,12:00:00.%06d,allocate,0x%x,256,0x0\n" % (i, 0x7f0000000000 + 256 * i)
            for i in range(624))
        with open(log, "w") as f:
            f.write(content)
        stamp = os.stat(log).st_mtime_ns
        retry = "retry(%s)" if fake else "%s"
        cases = [("log(device, file=%s)" % log, retry % ("log(device, file=%s)" % log)),
                 ("log(host, file=%s)" % log, "log(host, file=%s)" % log),
                 ("stats(log(pinned, file=%s))" % log,
                  retry % ("stats(log(pinned, file=%s))" % log)),
                 ("fixed(host, block=64MiB, count=4)", "fixed(host, block=64MiB, count=4)")]
        if fake:
            cases += [("fixed(device, block=1GiB, count=32)",
                       "retry(fixed(device, block=1GiB, count=32))"),
                      ("bin(device, min=1GiB, max=4GiB, count=8)",
                       "retry(bin(device, min=1GiB, max=4GiB, count=8))"),
                      ("pool(kind=device, initial=32GiB)",
                       "retry(pool(kind=device, initial=32GiB))"),
                      ("arena(pool(kind=pinned, release=0B, access=none), chunk=1GiB)",
                       "retry(arena(pool(kind=pinned, release=0B, access=none), chunk=1GiB))")]
        for spec, described in cases:
            rc, out, err = resolve(mrctx, "--library", "job", "--tag", "temp=host", "--env",
                                   "JOB_MEMORY", env={"JOB_MEMORY": "temp=" + spec})
            expect_equal((rc, err), (0, ""), "resolve %s: exit 0, quietly" % spec)
            rows = [line for line in out.splitlines() if line.startswith("temp ")]
            expect(len(rows) == devices and
                   all(row.split(None, 2)[2].startswith(described + "  env JOB_MEMORY")
                       for row in rows),
                   "resolve %s: every device shows %s" % (spec, described), out)
            with open(log) as f:
                now = f.read()
            expect(now == content, "resolve %s leaves the log's file as it was" % spec,
                   "%d lines of %d left:\n%s" % (now.count("\n"), content.count("\n"), now[:200]))
            expect(os.stat(log).st_mtime_ns == stamp and os.listdir(folder) == ["job.csv"],
                   "resolve %s writes nothing near the log" % spec, str(os.listdir(folder)))


def check_resolve_log_paths(mrctx):
    """What resolve can check without touching anything: a log's file whose
    directory does not exist, is not a directory, or that names a directory
    is refused as creation would refuse it (exit 2, the spec's place), and
    nothing is created. (As root, an unwritable directory cannot be shown.)"""
    with tempfile.TemporaryDirectory() as folder:
        plain = os.path.join(folder, "plain")
        with open(plain, "w") as f:
            f.write("x")
        cases = [(os.path.join(folder, "missing", "x.csv"),
                  "directory '%s': No such file or directory" % os.path.join(folder, "missing")),
                 (os.path.join(plain, "x.csv"), "'%s' is not a directory" % plain),
                 (folder, "it is a directory")]
        for path, why in cases:
            spec = "log(host, file=%s)" % path
            rc, out, err = resolve(mrctx, "--tag", "temp=" + spec)
            first = err.split("\n", 1)[0]
            expect_equal((rc, out, first),
                         (2, "", "mrctx resolve: default spec of resolve tag 'temp', column 1: "
                                 "log(host, file=%s): cannot open '%s' for writing: %s"
                                 % (path, path, why)),
                         "resolve %s is refused" % spec)
        expect_equal(sorted(os.listdir(folder)), ["plain"], "resolve created nothing")
        rc, out, err = resolve(mrctx, "--tag", "temp=log(host, file=%s)"
                               % os.path.join(folder, "new.csv"))
        expect_equal((rc, err), (0, ""), "a log in a writable directory resolves")
        expect_equal(sorted(os.listdir(folder)), ["plain"], "resolve created no log")
        if os.geteuid() != 0:
            os.chmod(folder, 0o500)
            try:
                rc, out, err = resolve(mrctx, "--tag", "temp=log(host, file=%s)"
                                       % os.path.join(folder, "new.csv"))
            finally:
                os.chmod(folder, 0o700)
            expect(rc == 2 and ("directory '%s' is not writable" % folder) in err,
                   "an unwritable directory is refused", out + err)


# ---- mrctx bench ---------------------------------------------------------------

BENCH_ONLY_HELP = ("  --only LIST   workloads to run, comma-separated: lookup, pairs, threads,\n"
                   "                random, handoff, large, pinned, arena, churn, track, trace,\n"
                   "                devices (default: all)\n")
BENCH_WORKLOADS = ("lookup", "pairs", "threads", "random", "handoff", "large", "pinned", "arena",
                   "churn", "track", "trace", "devices")


def check_bench(mrctx):
    for args in (["--help"], ["-h"], ["--only", "pairs", "--help"]):
        rc, out, err = run(mrctx, "bench", *args)
        expect(rc == 0 and out.startswith("usage: mrctx bench [--seconds S]") and err == "",
               "bench " + " ".join(args) + " prints the help", out + err)
        expect(BENCH_ONLY_HELP in out and out.endswith("like any library's variable.\n"),
               "bench --help lists every workload for --only", out)
    for args, message in ((["--seconds", "0"], "--seconds wants a number in (0, 60], not '0'"),
                          (["--seconds", "61"], "--seconds wants a number in (0, 60], not '61'"),
                          (["--threads", "0"], "--threads wants 1..256, not '0'"),
                          (["--threads", "257"], "--threads wants 1..256, not '257'"),
                          (["--runs", "0"], "--runs wants 1..100, not '0'"),
                          (["--runs", "101"], "--runs wants 1..100, not '101'"),
                          (["--runs", "2x"], "--runs wants 1..100, not '2x'"),
                          (["--runs", ""], "--runs wants 1..100, not ''"),
                          # A typo or a part of a name must not run nothing, or the
                          # wrong workloads.
                          (["--only", "nothing-by-this-name"],
                           "--only: no workload 'nothing-by-this-name' (see --help for the list)"),
                          (["--only", "pairs,thread"],
                           "--only: no workload 'thread' (see --help for the list)"),
                          (["--only", ""],
                           "--only wants a comma-separated list of workloads"),
                          (["--trace", ""], "--trace wants the allocation log to replay")):
        rc, out, err = run(mrctx, "bench", *args)
        expect_equal((rc, out, err), (2, "", "mrctx bench: %s\n" % message),
                     "bench " + " ".join(args))
    for args, message in ((["extra"], "mrctx bench: unexpected argument 'extra'\n"),
                          (["--bogus"], "unrecognized option '--bogus'\n"),
                          (["--only"], "option '--only' requires an argument\n")):
        rc, out, err = run(mrctx, "bench", *args)
        expect(rc == 2 and out == "" and message in err and "usage: mrctx bench" in err,
               "bench " + " ".join(args) + ": exit 2, the usage on stderr", out + err)
    # Options are checked before the driver; workloads are chosen after it.
    for args in ([], ["--only", "pairs"]):
        rc, out, err = run(mrctx, "bench", *args)
        expect(rc == 1 and err == "" and out.startswith("mrctx bench: no GPU to measure: ") and
               out.count("\n") == 1,
               "bench " + " ".join(args) + " without a driver: one line, exit 1", out + err)


def is_peer(allocator):
    """A peer's row that only a build with the peer has (cub, where the
    toolkit's CCCL is found, as on the GPU machine: -Dbench_cub=auto; rmm,
    with -Drmm)."""
    return allocator.startswith(("cub ", "rmm "))


def bench_rows(out):
    """(workload, sizes, allocator, threads, vs raw, spread, res/req, books) of each
    row of the table, read from its fixed-width columns, but the optional
    peers' rows (is_peer)."""
    rows = []
    for line in out.splitlines():
        if (len(line) > 73 and line[:8].strip() in BENCH_WORKLOADS and line[8] == " " and
                line[70:73].strip().isdigit() and not is_peer(line[27:69].strip())):
            rows.append((line[:8].strip(), line[9:26].strip(), line[27:69].strip(),
                         int(line[70:73]), line[105:113].strip(), line[85:94].strip(),
                         line[123:130].strip(), line[131:138].strip()))
    return rows


def check_fake_bench(mrctx):
    # meson sets MALLOC_PERTURB_, and glibc then fills every block the fake
    # driver hands out: megabytes a pair, which would stretch the timed loops
    # to minutes.
    quick = {"MALLOC_PERTURB_": "0"}
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "bench.json")
        # The workloads run in the table's order, whatever the order in --only.
        # (Not random: its fixed 180,000 operations take a minute under
        # AddressSanitizer.)
        rc, out, err = run(mrctx, "bench", "--only", "churn,pinned,arena,pairs",
                           "--seconds", "0.005", "--json", path, env=quick)
        first = out.split("\n", 1)[0]
        expect(rc == 0 and first.startswith("mrctx bench: Fake CUDA Device 0, driver 13.0, ") and
               first.endswith(", 0.01 s per measurement"),
               "bench over the fake driver: exit 0, the device", out + err)
        rows = bench_rows(out)
        big, small, temps = "256B-1MiB", "8B-4KiB", "8 x 256B-1MiB"
        raw = "cuMemAllocFromPoolAsync (raw pool)"
        pairs = [raw, "mrctx ctx_get_mr -> device", "mrctx ctx_get_mr -> device_default",
                 "mrctx cache(device), per-tag stats", "mrctx ctx_get_mr -> cache(device)",
                 "mrctx cache(device), no stats", "mrctx cache(bin(device, ...)), slabs"]
        # Timed for reference: a cached pair's driver calls alone, and the
        # cache over host memory (no driver calls): never compared.
        reference = ["driver calls of a cached pair (no memory)",
                     "mrctx cache(host), no driver calls"]
        pairs += reference
        wanted = ([("pairs", big, a) for a in pairs] + [("pairs", small, a) for a in pairs] +
                  [("pairs", big + " legacy", a) for a in pairs] +
                  [("pairs", small + " legacy", a) for a in pairs] +
                  [("pinned", "4KiB-4MiB", a) for a in (
                      "cuMemHostAlloc + cuMemFreeHost", "cuMemAllocFromPoolAsync (pinned pool)",
                      "mrctx fixed(pinned, block=4MiB, count=32)", "mrctx cache(pinned)")] +
                  [("arena", temps, a) for a in (raw, "mrctx arena(device, chunk=64MiB)",
                                                 "mrctx cache(device), per-tag stats")] +
                  [("churn", temps, a) for a in (raw, "mrctx cache(device), per-tag stats",
                                                 "mrctx arena(device, chunk=64MiB)")])
        expect_equal([r[:3] for r in rows], wanted, "the rows --only picks, in the table's order")
        # Each row but a workload's baseline is compared with the baseline.
        baselines = {raw, "cuMemHostAlloc + cuMemFreeHost"}
        expect(all((r[4] == "") == (r[2] in baselines or r[2] in reference) and r[3] == 1
                   for r in rows),
               "vs raw: every row but the baseline's and the reference rows", out)
        expect(all(r[6] == "" for r in rows if r[2] in reference),
               "the reference rows: res/req left blank", out)
        expect("arena(device) vs raw pool" in out and
               "%-52s %12s %19s %12s  not measured" % ("mr_context_get_mr_on", "-", "", "-") in out,
               "targets: measured where their rows ran", out)
        # One run: no spread; reserved/requested where the pool is known.
        expect(all(r[5] == "" for r in rows), "one run: the spread column is empty", out)
        expect(all(r[6] == "1.00x" for r in rows if r[2] == raw),
               "the raw pool holds what was asked of it (the fake reserves exact sizes)", out)
        expect(all(r[6] == "" for r in rows if r[2] == "cuMemHostAlloc + cuMemFreeHost"),
               "cuMemHostAlloc has no pool: res/req left blank", out)
        # Progress: a carriage return (read here as a new line) and "\033[K",
        # then the workload, its case where it has several, and the round.
        for line in ("\033[Klookup", "\033[Kthreads", "\033[Krandom"):
            expect(line not in err, "no progress for workloads not picked: " + line[3:], err)
        for line in ("\033[Kpairs 8B-4KiB, round 3: mrctx cache(device), no stats",
                     "\033[Kpinned, round 2: mrctx cache(pinned)",
                     "\033[Kchurn, round 1: " + raw):
            expect(line in err, "progress: " + line[3:], err)
        try:
            with open(path) as f:
                results = json.load(f)["results"]
            expect_equal([(x["workload"], x["sizes"], x["allocator"]) for x in results
                          if not is_peer(x["allocator"])], wanted, "--json: the same rows")
        except (OSError, ValueError, KeyError, TypeError) as e:
            expect(False, "--json: %r" % e)

    rc, out, err = run(mrctx, "bench", "--only", "threads", "--threads", "3", "--seconds", "0.005",
                       "--quiet", env=quick)
    rows = bench_rows(out)
    expect(rc == 0 and err == "", "bench --quiet: nothing on stderr", out + err)
    expect_equal([(r[2], r[3]) for r in rows],
                 [(a, t) for t in (1, 2, 3) for a in ("cuMemAllocFromPoolAsync (raw pool)",
                                                      "mrctx cache(device), per-tag stats",
                                                      "mrctx cache(device), no stats",
                                                      "mrctx cache(device), exact peaks",
                                                      "driver calls of a cached pair (no memory)",
                                                      "mrctx cache(host), no driver calls")],
                 "--threads 3: 1, 2 and 3 threads")


def check_fake_bench_devices(mrctx):
    """--only devices: the raw pool and cache(device) on 1, 2, ... every
    device at once, a group of 4 threads per device; one device: one count."""
    quick = {"MALLOC_PERTURB_": "0"}
    raw, cache = "cuMemAllocFromPoolAsync (raw pool)", "mrctx cache(device), per-tag stats"
    for devices in (4, 1):
        env = dict(quick, FAKECUDA_DEVICES=str(devices))
        rc, out, err = run(mrctx, "bench", "--only", "devices", "--seconds", "0.005", env=env)
        rows = bench_rows(out)
        counts = ["%d device%s" % (n, "" if n == 1 else "s") for n in range(1, devices + 1)]
        expect(rc == 0, "bench --only devices on %d devices: exit 0" % devices, out + err)
        expect_equal([r[:4] for r in rows],
                     [("devices", c, a, 4 * n) for n, c in enumerate(counts, 1)
                      for a in (raw, cache)],
                     "bench --only devices on %d devices: a row per device count" % devices)
        expect(all((r[4] == "") == (r[2] == raw) for r in rows),
               "bench --only devices: cache(device) compared with the raw pools", out)
        for n in range(1, devices + 1):
            expect("\033[Kdevices %d: %s" % (n, cache) in err,
                   "progress: devices %d: %s" % (n, cache), err)


def check_fake_bench_runs(mrctx, sanitized):
    """--runs 2 on the workloads with real clients' patterns: every run's
    values in the JSON, medians and spreads in the table, reserved/requested.
    Under a sanitizer every block the fake driver hands out costs time in
    proportion to its size, and handoff and large move GiBs a step: there
    the runs are checked on arena, whose blocks are small."""
    quick = {"MALLOC_PERTURB_": "0"}
    raw = "cuMemAllocFromPoolAsync (raw pool)"
    cache = "mrctx cache(device), per-tag stats"
    if sanitized:
        only = "arena"
        wanted = [("arena", "8 x 256B-1MiB", a, 1)
                  for a in (raw, "mrctx arena(device, chunk=64MiB)", cache)]
        progress = ("\033[Krun 1/2: arena, round 1: " + raw,
                    "\033[Krun 2/2: arena, round 3: " + cache)
    else:
        only = "large,handoff"
        peers = [raw, "mrctx ctx_get_mr -> device", cache]
        wanted = ([("handoff", "256B-64MiB", a, 2) for a in peers] +
                  [("handoff", "256B-64MiB legacy", a, 2) for a in peers] +
                  [("large", "1MiB-256MiB", a, 1) for a in peers])
        progress = ("\033[Krun 1/2: handoff 256B-64MiB: " + raw, "\033[Krun 2/2: large: " + cache)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "bench.json")
        rc, out, err = run(mrctx, "bench", "--runs", "2", "--only", only,
                           "--seconds", "0.005", "--json", path, env=quick)
        first = out.split("\n", 1)[0]
        expect(rc == 0 and first.endswith(", 0.01 s per measurement, 2 runs"),
               "bench --runs 2: exit 0, the runs on the first line", out + err)
        rows = bench_rows(out)
        expect_equal([r[:4] for r in rows], wanted,
                     "--runs 2: one row per allocator, not per run (handoff: 2 threads)")
        expect(all(r[5].endswith("%") and "/" in r[5] for r in rows),
               "two runs: each row has its spread", out)
        expect(all(r[6] == "1.00x" for r in rows if r[2] in (raw, "mrctx ctx_get_mr -> device"))
               and all(r[6].endswith("x") and float(r[6][:-1]) >= 1 for r in rows),
               "res/req: 1.00x through the pool, at least that through the mrctx adaptors", out)
        # The cache's own books (issue 36): over the fake pool, which
        # reserves exactly what is asked, they are the whole of res/req.
        expect(all(r[7] == r[6] for r in rows if r[2].startswith("mrctx cache(device)")) and
               all(r[7] == "" for r in rows if r[2] in (raw, "mrctx ctx_get_mr -> device")) and
               any(r[7] for r in rows),
               "books: the cache's own held/requested beside res/req, blank without a cache",
               out)
        for line in progress:
            expect(line in err, "progress names the run: " + line[3:], err)
        expect("measured: the median of the runs' values" in out and
               "%-52s %12s %19s %12s  not measured" % ("cache(device) scaling 1 -> 16 threads",
                                                        "-", "", "-") in out,
               "targets: the median and the runs' range; unmeasured ones say so", out)
        try:
            with open(path) as f:
                report = json.load(f)
            expect_equal(report["runs"], 2, "--json: the number of runs")
            results = [x for x in report["results"] if not is_peer(x["allocator"])]
            expect_equal([(x["workload"], x["sizes"], x["allocator"], x["threads"])
                          for x in results], wanted, "--json: one entry per row")
            for x in results:
                what = "%s %s: " % (x["workload"], x["label"])
                for key in ("ns_per_op", "mops", "peak_requested_bytes", "peak_reserved_bytes",
                            "reserved_per_requested"):
                    v = x[key]
                    expect(len(v["runs"]) == 2 and all(r is not None and r > 0 for r in v["runs"])
                           and v["min"] == min(v["runs"]) and v["max"] == max(v["runs"]) and
                           abs(v["median"] - sum(v["runs"]) / 2) <= 1e-5 * v["median"],
                           what + key + ": both runs, with their min, median and max", str(v))
                expect(len(x["ops"]) == 2 and x["failures"] == [0, 0],
                       what + "ops and failures per run", str(x))
                ratio = x["reserved_per_requested"]["runs"]
                reserved = x["peak_reserved_bytes"]["runs"]
                requested = x["peak_requested_bytes"]["runs"]
                expect(all(abs(ratio[i] - reserved[i] / requested[i]) <= 1e-4 * ratio[i]
                           for i in range(2)), what + "reserved/requested is the peaks' ratio",
                       str(x))
                if x["label"] in ("raw", "device"):
                    expect(all(abs(r - 1) < 1e-6 for r in ratio),
                           what + "the pool reserves exactly what was live at most", str(x))
                if not sanitized:
                    expect((x["cache_hit_rate"]["median"] is not None) == (x["label"] == "cache"),
                           what + "a hit rate for the cache only", str(x))
            targets = {t["target"]: t for t in report["targets"]}
            scaling = targets["cache(device) scaling 1 -> 16 threads"]
            expect(scaling["every_run"] and scaling["met"] is None and
                   scaling["measured"]["runs"] == [None, None],
                   "a target whose rows did not run: not measured, in every run", str(scaling))
            if sanitized:
                return
            # The handoff's sizes are drawn once, from a fixed seed, and its
            # threads take turns: every allocator and run has the same peak.
            peaks = {r for x in results if x["workload"] == "handoff"
                     for r in x["peak_requested_bytes"]["runs"]}
            expect(len(peaks) == 1 and (1 << 30) < peaks.pop() < (8 << 30),
                   "handoff: the same peak of a few GiB requested in every row and run", str(peaks))
            handoff = targets["cache(device) reserved/requested, handoff"]
            row = [x for x in results if x["workload"] == "handoff" and x["label"] == "cache"][0]
            expect(handoff["measured"]["runs"] == row["reserved_per_requested"]["runs"] and
                   handoff["bound"] == "at_most" and handoff["wanted"] == 1.10 and
                   handoff["met"] == (handoff["measured"]["median"] <= 1.10) and
                   not handoff["every_run"],
                   "the handoff target: the cache row's ratio per run, judged on the median",
                   str(handoff))
        except (OSError, ValueError, KeyError, TypeError, IndexError) as e:
            expect(False, "--runs 2 --json: %r" % e)


# The tests' three-thread log (check_replay.py describes it), and the GPT
# training trace where the build's default looks for it: beside the source
# tree, in ../shared/data.
HERE = os.path.dirname(os.path.abspath(__file__))
THREADS_LOG = os.path.join(HERE, "threads.csv")
GPT_TRACE = os.path.join(HERE, "..", "..", "..", "shared", "data", "gpt-training-trace.csv.gz")


def check_fake_bench_trace(mrctx, sanitized):
    """--only trace: the log replayed with its threads on the raw pool and
    cache(device), one row each (PyTorch's where built); a missing --trace
    is an error, a missing default a line saying the workload is skipped."""
    quick = {"MALLOC_PERTURB_": "0"}
    raw, cache = "cuMemAllocFromPoolAsync (raw pool)", "mrctx cache(device), per-tag stats"
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "bench.json")
        rc, out, err = run(mrctx, "bench", "--only", "trace", "--trace", THREADS_LOG,
                           "--json", path, env=quick)
        lines = out.splitlines()
        expect(rc == 0 and lines[1] == "mrctx bench: trace: %s, 14 events on 3 threads and 1 "
               "stream" % THREADS_LOG, "bench --trace: the log named, exit 0", out + err)
        rows = bench_rows(out)
        expect_equal([r[:4] for r in rows], [("trace", "14 events", raw, 3),
                                             ("trace", "14 events", cache, 3)],
                     "bench --trace: a row per allocator, on the log's 3 threads")
        expect(all((r[4] == "") == (r[2] == raw) and r[6].endswith("x") and
                   (r[2] != raw or r[6] == "1.00x") for r in rows),
               "bench --trace: compared with the raw pool; reserved/requested", out)
        expect("\033[Ktrace: " + cache in err, "progress: trace: " + cache, err)
        try:
            with open(path) as f:
                report = json.load(f)
            expect_equal(report["trace"], THREADS_LOG, "--json: the trace's log")
            results = [x for x in report["results"] if not is_peer(x["allocator"])]
            expect_equal([(x["label"], x["threads"], x["ops"], x["failures"],
                           x["peak_requested_bytes"]["median"]) for x in results],
                         [("raw", 3, [14], [0], 15360), ("cache", 3, [14], [0], 15360)],
                         "--json: every event replayed, the log's peak requested")
            hits = results[1]["cache_hit_rate"]["median"]
            expect(results[0]["cache_hit_rate"]["median"] is None and 0 < hits < 1,
                   "--json: the cache's hit rate (6 of its 7 allocations can be hits)",
                   str(results))
            # The trace's targets: the cache row's peak reserved over peak
            # live, whatever the log is named; its time against PyTorch's
            # only where a PyTorch row ran.
            targets = {t["target"]: t for t in report["targets"]}
            memory = targets["trace: cache(device) reserved/requested"]
            expect(memory["measured"]["runs"] == results[1]["reserved_per_requested"]["runs"] and
                   memory["wanted"] == 1.10 and memory["bound"] == "at_most" and
                   memory["met"] == (memory["measured"]["median"] <= 1.10),
                   "--json: the trace's memory target is the cache row's ratio", str(memory))
            torch_rows = [x for x in report["results"]
                          if x["workload"] == "trace" and x["label"] == "torch"]
            time = targets["trace: cache(device) time vs PyTorch"]
            expect(time["wanted"] == 0.5 and (torch_rows != [] or time["met"] is None),
                   "--json: the trace's time target, not measured without PyTorch", str(time))
        except (OSError, ValueError, KeyError, TypeError, IndexError) as e:
            expect(False, "bench --trace --json: %r" % e)
        # Strings in --json are escaped as JSON wants, control characters
        # too (the library's one JSON string writer): a log whose name has
        # them still gives a file that parses, with the name as it is.
        odd = os.path.join(folder, "log \x01\x1b\"quoted\"\\.csv")
        shutil.copyfile(THREADS_LOG, odd)
        rc, out, err = run(mrctx, "bench", "--only", "trace", "--trace", odd, "--json", path,
                           "--quiet", env=quick)
        try:
            with open(path) as f:
                expect(rc == 0 and json.load(f)["trace"] == odd,
                       "--json: a log name with control characters, escaped", out + err)
        except (OSError, ValueError, KeyError, TypeError) as e:
            expect(False, "bench --json with control characters in the log's name: %r" % e)
        # --json and --svg are outputs as export's -o is: the trace they
        # read is refused as one (and left as it was), and a link to a file
        # is not written through.
        before = open(odd, "rb").read()
        for option in ("--json", "--svg"):
            rc, out, err = run(mrctx, "bench", "--only", "trace", "--trace", odd, option, odd,
                               "--quiet", env=quick)
            expect(rc != 0 and "it is the input" in err and open(odd, "rb").read() == before,
                   "bench %s TRACE: refused, the trace intact" % option, out + err)
        victim, link = os.path.join(folder, "victim"), os.path.join(folder, "link.json")
        with open(victim, "w") as f:
            f.write("the victim's data\n")
        os.symlink(victim, link)
        rc, out, err = run(mrctx, "bench", "--only", "trace", "--trace", THREADS_LOG, "--json",
                           link, "--quiet", env=quick)
        expect(rc != 0 and "symbolic link" in err and open(victim).read() == "the victim's data\n",
               "bench --json LINK: refused, the link's target untouched", out + err)
    missing = "/nonexistent/trace.csv"
    rc, out, err = run(mrctx, "bench", "--only", "trace", "--trace", missing, env=quick)
    expect(rc == 1 and out.endswith("mrctx bench: --trace: %s: cannot open: No such file or "
                                    "directory\n" % missing) and bench_rows(out) == [],
           "bench --trace of a missing log: exit 1 saying why", out + err)
    rc, out, err = run(mrctx, "bench", "--only", "trace,arena", "--seconds", "0.005",
                       env=dict(quick, MRCTX_BENCH_TRACE=missing))
    expect(rc == 0 and "\nmrctx bench: trace workload skipped: %s: cannot open: No such file or "
           "directory (name a log with --trace FILE or MRCTX_BENCH_TRACE)\n" % missing in out and
           [r[0] for r in bench_rows(out)] == ["arena"] * 3,
           "MRCTX_BENCH_TRACE of a missing log: the workload skipped, saying why", out + err)
    # The default: the GPT training trace beside the source tree.
    if not os.path.exists(GPT_TRACE):
        rc, out, err = run(mrctx, "bench", "--only", "trace", env=quick)
        expect(rc == 0 and "mrctx bench: trace workload skipped: " in out and
               bench_rows(out) == [], "no GPT trace beside the source tree: skipped", out + err)
        print("GPT trace bench skipped: no %s" % GPT_TRACE)
        return
    if sanitized:
        # Its raw-pool row hands out 400 GiB in 69,000 blocks, each of which
        # a sanitizer pays for in proportion to its size.
        print("GPT trace bench skipped under a sanitizer")
        return
    rc, out, err = run(mrctx, "bench", "--only", "trace", "--quiet", env=quick)
    if rc == 0 and "trace workload skipped: " in out and "without zlib" in out:
        print("GPT trace bench skipped: mrctx was built without zlib")
        return
    rows = bench_rows(out)
    expect(rc == 0 and [r[:4] for r in rows] == [("trace", "138,893 events", raw, 2),
                                                 ("trace", "138,893 events", cache, 2)],
           "the GPT trace by default: the raw pool and cache(device) on its 2 threads", out + err)
    for line in out.splitlines():
        if line.startswith("trace "):
            print("GPT trace bench (fake driver): " + line)


def check_fake_bench_against(mrctx):
    """tools/dev/bench-against: the command against itself, two runs each,
    interleaved: one table row per track row with both medians and
    head/base, the same in --json; a failing command is an error that
    says which."""
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "dev",
                          "bench-against")
    env = dict(os.environ, MALLOC_PERTURB_="0")
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "against.json")
        p = subprocess.run([sys.executable, script, mrctx, mrctx, "--runs", "2", "--only", "track",
                            "--seconds", "0.005", "--json", path],
                           capture_output=True, text=True, env=env, timeout=4 * TIMEOUT)
        lines = [line for line in p.stdout.splitlines() if line.startswith("track ")]
        expect(p.returncode == 0 and len(lines) == 3 and
               all(line.endswith("x") for line in lines) and
               p.stderr.count("bench-against: run ") == 4,
               "bench-against: a row per track allocator, head/base, 4 runs in turn",
               p.stdout + p.stderr)
        try:
            with open(path) as f:
                rows = json.load(f)["rows"]
            expect([r["allocator"] for r in rows] ==
                   ["mrctx cache(host), no driver calls", "mrctx track(cache(host))",
                    "mrctx track(cache(host), stacks=8)"] and
                   all(len(r["base_ns"]) == 2 and len(r["head_ns"]) == 2 and r["ratio"] > 0
                       for r in rows), "bench-against --json: both runs of each side", str(rows))
        except (OSError, ValueError, KeyError, TypeError) as e:
            expect(False, "bench-against --json: %r" % e)
        p = subprocess.run([sys.executable, script, mrctx, os.path.join(folder, "no-such-mrctx"),
                            "--runs", "1"], capture_output=True, text=True, env=env,
                           timeout=4 * TIMEOUT)
        expect(p.returncode != 0 and "cannot run" in p.stderr and "no-such-mrctx" in p.stderr,
               "bench-against: a command that cannot run is named", p.stdout + p.stderr)


def main():
    mode, mrctx = sys.argv[1], sys.argv[2]
    if mode == "cli":
        check_cli(mrctx, sys.argv[3])
    elif mode == "no-driver":
        check_no_driver(mrctx, sys.argv[3])
    elif mode == "fake-info":
        check_fake_info(mrctx)
    elif mode == "resolve":
        check_resolve_usage(mrctx)
        check_resolve_table(mrctx)
        check_resolve_sources(mrctx)
        check_resolve_bad_specs(mrctx)
        check_resolve_touches_nothing(mrctx, False)
        check_resolve_log_paths(mrctx)
    elif mode == "fake-resolve":
        check_fake_resolve(mrctx)
        check_resolve_touches_nothing(mrctx, True)
    elif mode == "bench":
        check_bench(mrctx)
    elif mode == "fake-bench":
        check_fake_bench(mrctx)
        check_fake_bench_devices(mrctx)
        check_fake_bench_runs(mrctx, sys.argv[3] != "none")
        check_fake_bench_trace(mrctx, sys.argv[3] != "none")
        check_fake_bench_against(mrctx)
    else:
        sys.exit("unknown mode " + mode)
    for f in failures:
        print("FAILED: " + f, file=sys.stderr)
    print("%d passed, %d failed" % (passed, len(failures)))
    sys.exit(1 if failures else 0)


main()
