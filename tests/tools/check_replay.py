#!/usr/bin/env python3
"""Run `mrctx replay` and `mrctx plot` and check what they do.

usage: check_replay.py MODE MRCTX DATA_DIR [REPLAY_WORKLOAD]
  unit  no driver: usage errors, every kind of bad log line (each named with
        its file, line and problem; or skipped and counted with --skip-bad),
        the hand-written rmm-format log (DATA_DIR/rmm-format.csv) replayed
        against host specs, and plot's SVG from hand-written logs
  fake  over the fake driver: the logs REPLAY_WORKLOAD records with the log
        adaptor, replayed against device specs side by side and drawn; the
        rmm-format log on streams of its own
  gpu   the same on a real GPU (exit 77, skipped, where there is none); the
        driver may round what its pools count up, so used bytes are checked
        to be at least what was asked for
"""
import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

failures = []
passed = 0

HEADER = "Thread,Time,Action,Pointer,Size,Stream\n"
SVG = "{http://www.w3.org/2000/svg}"


def run(*args, env=None):
    merged = dict(os.environ)
    merged.update(env or {})
    # meson sets MALLOC_PERTURB_: glibc would fill every block the fake
    # driver hands out, megabytes each.
    merged["MALLOC_PERTURB_"] = "0"
    p = subprocess.run(list(args), capture_output=True, text=True, env=merged, timeout=120)
    return p.returncode, p.stdout, p.stderr


def expect(condition, what, output=""):
    global passed
    if condition:
        passed += 1
    else:
        failures.append(what + ("\n--- output ---\n" + output if output else ""))


def expect_equal(got, wanted, what):
    expect(got == wanted, what, "wanted:\n%r\ngot:\n%r" % (wanted, got))


def write(folder, name, text, mode="w"):
    path = os.path.join(folder, name)
    with open(path, mode) as f:
        f.write(text)
    return path


def replay_json(mrctx, folder, *args, env=None):
    """Run replay with --json; (rc, stdout, stderr, the JSON or None)."""
    path = os.path.join(folder, "replay.json")
    if os.path.exists(path):
        os.remove(path)
    rc, out, err = run(mrctx, "replay", *args, "--json", path, env=env)
    try:
        with open(path) as f:
            return rc, out, err, json.load(f)
    except (OSError, ValueError) as e:
        expect(False, "replay %s: --json: %r" % (" ".join(args), e), out + err)
        return rc, out, err, None


# ---- usage ------------------------------------------------------------------------

def check_usage(mrctx, folder):
    rc, out, err = run(mrctx, "--help")
    expect(rc == 0 and "\n  replay " in out and "\n  plot " in out, "--help lists replay and plot",
           out)
    for verb, first in (("replay", "usage: mrctx replay LOG --spec SPEC"),
                        ("plot", "usage: mrctx plot --svg FILE")):
        for args in ([verb, "--help"], ["help", verb], [verb, "x.csv", "-h"]):
            rc, out, err = run(mrctx, *args)
            expect(rc == 0 and out.startswith(first) and err == "",
                   " ".join(args) + " prints the help", out + err)
    log = write(folder, "one.csv", HEADER + "1,10:00:00.000000,allocate,0x1000,64,0x0\n")
    for args, message in (
            (["replay"], "mrctx replay: give the log to replay (see --help)\n"),
            (["replay", log], "mrctx replay: give at least one --spec SPEC to replay against "
                              "(see --help)\n"),
            (["replay", log, log, "--spec", "host"],
             "mrctx replay: one log at a time, not also '%s'\n" % log),
            (["replay", log, "--spec", "host", "--device", "x"],
             "mrctx replay: --device wants a device number, not 'x'\n"),
            (["replay", log, "--spec", "host", "--device", "-1"],
             "mrctx replay: --device wants a device number, not '-1'\n"),
            (["plot", log], "mrctx plot: give the SVG file to write with --svg FILE "
                            "(see --help)\n"),
            (["plot", "--svg", os.path.join(folder, "x.svg")],
             "mrctx plot: give at least one log to draw (see --help)\n")):
        rc, out, err = run(mrctx, *args)
        expect_equal((rc, out, err), (2, "", message), " ".join(args))
    for verb in ("replay", "plot"):
        rc, out, err = run(mrctx, verb, log, "--bogus")
        expect(rc == 2 and out == "" and "unrecognized option '--bogus'" in err and
               ("usage: mrctx " + verb) in err, verb + " --bogus: exit 2 with the usage",
               out + err)
    # A spec that does not parse: exit 2 before anything is replayed.
    rc, out, err = run(mrctx, "replay", log, "--spec", "host", "--spec", "cahce(host)")
    expect(rc == 2 and out == "" and
           err.startswith("mrctx replay: --spec 'cahce(host)': ") and
           "unknown resource 'cahce'" in err and err.endswith("  cahce(host)\n  ^\n"),
           "a bad spec: exit 2, the message and a caret", out + err)
    # A device spec with no driver: the reason, exit 1.
    rc, out, err = run(mrctx, "replay", log, "--spec", "host", "--spec", "device")
    expect(rc == 1 and out == "" and err.startswith("mrctx replay: --spec 'device': ") and
           err.count("\n") == 1, "a device spec without a driver: exit 1 saying why", out + err)
    rc, out, err = run(mrctx, "replay", log, "--spec", "host", "--json",
                       os.path.join(folder, "no", "such", "dir.json"))
    expect(rc == 1 and "mrctx replay: cannot write '" in err and
           "No such file or directory" in err, "--json into a missing folder: exit 1", out + err)
    rc, out, err = run(mrctx, "plot", "--svg", os.path.join(folder, "no", "x.svg"), log)
    expect(rc == 1 and "mrctx plot: cannot write '" in err,
           "--svg into a missing folder: exit 1", out + err)


# ---- bad logs ----------------------------------------------------------------------

LINE1 = "7,10:00:00.000000,allocate,0x1000,1024,0x0\n"

# (name, file contents, the problem mrctx names, the line it names or None)
BAD_LOGS = [
    ("empty", "", "an empty file, not an rmm-format allocation log (no header)", None),
    ("no header", "hello,world\n" + LINE1,
     "not an rmm-format allocation log: the first line is 'hello,world', not the header "
     "'Thread,Time,Action,Pointer,Size,Stream'", 1),
    ("json", '{"events": []}\n',
     "not an rmm-format allocation log: the first line is '{\"events\": []}', not the header "
     "'Thread,Time,Action,Pointer,Size,Stream'", 1),
    ("binary", "\x7fELF\x02\x01\x01\x00\x00\x00\n",
     "not an rmm-format allocation log: the first line is '?ELF???', not the header "
     "'Thread,Time,Action,Pointer,Size,Stream'", 1),
    ("cut line", HEADER + LINE1 + "7,10:00:00.000001,allocate,0x2000\n",
     "4 fields, wanted 6 (Thread,Time,Action,Pointer,Size,Stream)", 3),
    ("truncated", HEADER + LINE1 + "7,10:00:00.000001,free,0x1000,10",
     "the file ends inside this line (a truncated log?)", 3),
    ("nul", HEADER + LINE1 + "7,10:00:00.0\x00,free,0x1000,1024,0x0\n",
     "not a log line: it holds a NUL byte", 3),
    ("action", HEADER + LINE1 + "7,10:00:00.000001,realloc,0x1000,1024,0x0\n",
     "unknown action 'realloc' (known: allocate, allocate failure, free)", 3),
    ("thread", HEADER + "t7,10:00:00.000000,allocate,0x1000,1024,0x0\n",
     "Thread 't7' is not a decimal thread id", 2),
    ("time", HEADER + "7,25:00:00.000000,allocate,0x1000,1024,0x0\n",
     "Time '25:00:00.000000' is not HH:MM:SS.ffffff or seconds", 2),
    ("pointer", HEADER + "7,10:00:00.000000,allocate,0xZZ,1024,0x0\n",
     "Pointer '0xZZ' is not a hexadecimal address", 2),
    ("size", HEADER + "7,10:00:00.000000,allocate,0x1000,12x,0x0\n",
     "Size '12x' is not a decimal number of bytes", 2),
    ("huge size", HEADER + "7,10:00:00.000000,allocate,0x1000,18446744073709551616,0x0\n",
     "Size '18446744073709551616' is not a decimal number of bytes", 2),
    ("stream", HEADER + "7,10:00:00.000000,allocate,0x1000,1024,-1\n",
     "Stream '-1' is not a hexadecimal stream handle", 2),
    ("free unknown", HEADER + LINE1 + "7,10:00:00.000001,free,0x2000,1024,0x0\n",
     "free of 0x2000, which is not allocated", 3),
    ("double free", HEADER + LINE1 + "7,10:00:00.000001,free,0x1000,1024,0x0\n"
     "7,10:00:00.000002,free,0x1000,1024,0x0\n",
     "free of 0x1000, which is not allocated", 4),
    ("free size", HEADER + LINE1 + "7,10:00:00.000001,free,0x1000,512,0x0\n",
     "free of 0x1000 with 512 bytes, allocated with 1024 bytes (line 2)", 3),
    ("twice", HEADER + LINE1 + "8,10:00:00.000001,allocate,0x1000,64,0x0\n",
     "allocate of 0x1000, which is still allocated (by line 2)", 3),
    ("null", HEADER + "7,10:00:00.000000,allocate,(nil),1024,0x0\n",
     "allocate of 1024 bytes returned a null pointer", 2),
    # Byte totals never wrap: 2^63 + 2^63 bytes live is no process's log.
    ("bytes overflow", HEADER + "7,10:00:00.000000,allocate,0x1000,9223372036854775808,0x0\n"
     "7,10:00:00.000001,allocate,0x2000,9223372036854775808,0x0\n",
     "allocate of 9223372036854775808 bytes while 9223372036854775808 are live: more than "
     "2^64 - 1 bytes live at once, which no process can hold", 3),
]


def check_bad_logs(mrctx, folder):
    for name, text, problem, line in BAD_LOGS:
        path = write(folder, "bad.csv", text.encode("latin-1"), "wb")
        where = path + (":%d" % line if line else "")
        for verb, args in (("replay", ["--spec", "host"]),
                           ("plot", ["--svg", os.path.join(folder, "bad.svg")])):
            rc, out, err = run(mrctx, verb, path, *args)
            expect_equal((rc, out, err), (1, "", "mrctx %s: %s: %s\n" % (verb, where, problem)),
                         "%s of a bad log (%s)" % (verb, name))
    missing = os.path.join(folder, "missing.csv")
    rc, out, err = run(mrctx, "replay", missing, "--spec", "host")
    expect_equal((rc, out, err),
                 (1, "", "mrctx replay: %s: cannot open: No such file or directory\n" % missing),
                 "a missing log")
    # --skip-bad does not make a file without the header a log.
    path = write(folder, "bad.csv", '{"events": []}\n')
    rc, out, err = run(mrctx, "replay", path, "--spec", "host", "--skip-bad")
    expect(rc == 1 and "not an rmm-format allocation log" in err, "--skip-bad needs a header",
           out + err)


def check_skip_bad(mrctx, folder):
    text = (HEADER + LINE1 +
            "7,10:00:00.000001,realloc,0x1000,1024,0x0\n"      # 3: unknown action
            "7,10:00:00.000002,allocate,0x2000,1x,0x0\n"        # 4: bad number
            "7,10:00:00.000003,free,0x2000,1,0x0\n"             # 5: so 0x2000 is not allocated
            "7,10:00:00.000004,allocate,0x3000,2048,0x10\n"
            "7,10:00:00.000005,free,0x1000,1024,0x0\n"
            "7,10:00:00.000006,free,0x1000,1024,0x0\n"          # 8: freed twice
            "7,10:00:00.000007\n"                               # 9: cut
            "7,10:00:00.000008,free,0x3000,2048,0x10")          # 10: truncated
    path = write(folder, "skip.csv", text)
    rc, out, err = run(mrctx, "replay", path, "--spec", "host")
    expect_equal((rc, err), (1, "mrctx replay: %s:3: unknown action 'realloc' (known: allocate, "
                                "allocate failure, free)\n" % path),
                 "without --skip-bad the first bad line stops the replay")
    rc, out, err, j = replay_json(mrctx, folder, path, "--spec", "host", "--skip-bad")
    expect_equal((rc, err),
                 (0, "mrctx replay: %s: skipped 6 bad lines (1 not six fields, 1 truncated, "
                     "1 unknown action, 1 bad number, 2 free of a pointer not allocated); the "
                     "first: line 3: unknown action 'realloc' (known: allocate, allocate "
                     "failure, free)\n" % path),
                 "--skip-bad: the lines skipped, by kind, and the first")
    if j:
        expect_equal(j["skipped_lines"], {"fields": 1, "truncated": 1, "unknown_action": 1,
                                          "bad_number": 1, "free_not_allocated": 2},
                     "--skip-bad: the JSON's skipped_lines")
        expect_equal((j["events"], j["allocations"], j["frees"], j["live_blocks_at_end"],
                      j["live_bytes_at_end"], j["peak_requested"]),
                     (3, 2, 1, 1, 2048, 3072), "--skip-bad: what is left of the log")
    rc, out, err = run(mrctx, "plot", "--svg", os.path.join(folder, "skip.svg"), "--skip-bad",
                       path)
    expect(rc == 0 and err == "mrctx plot: %s: skipped 6 bad lines; the first: line 3: unknown "
           "action 'realloc' (known: allocate, allocate failure, free)\n" % path,
           "plot --skip-bad: says what it skipped", out + err)


# ---- input from outside: names of any bytes, huge lines and totals ----------------------

def run_bytes(*args, limit_as=None):
    """Run with bytes arguments; (rc, stdout, stderr) as bytes. limit_as:
    an address-space limit (RLIMIT_AS) for the child, in bytes."""
    env = dict(os.environ)
    env["MALLOC_PERTURB_"] = "0"

    def limit():
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (limit_as, limit_as))

    p = subprocess.run([os.fsencode(a) for a in args], capture_output=True, env=env, timeout=120,
                       preexec_fn=limit if limit_as else None)
    return p.returncode, p.stdout, p.stderr


def check_svg_names(mrctx, folder):
    """Layer names and titles of any bytes give well-formed SVG: bytes that
    are not UTF-8 and characters XML cannot carry are U+FFFD, whitespace is
    kept as it is, and a long name is never cut."""
    log = write(folder, "one.csv", HEADER + "1,10:00:00.000000,allocate,0x1000,1024,0x0\n")
    long_name = "\u00e9" * 150  # 300 bytes: a cut at 255 falls inside a character
    names = [b"bad\xff\xfe", b"ctl\x01\x1b[31m", long_name.encode(), b"tab\tand\nline"]
    svg = os.path.join(folder, "names.svg")
    rc, out, err = run_bytes(mrctx, "plot", "--svg", svg, "--title", b"t\x1b\xc3<",
                             *[n + b"=" + os.fsencode(log) for n in names])
    expect(rc == 0 and err == b"", "plot: names of any bytes draw", (out + err).decode("latin-1"))
    root = parse_svg(svg)
    if root is None:
        return
    layers = [g.get("data-name") for g in root.iter(SVG + "g") if g.get("class") == "layer"]
    expect_equal(layers, ["bad\ufffd\ufffd", "ctl\ufffd\ufffd[31m", long_name, "tab\tand\nline"],
                 "plot: each layer's name in data-name, whole, U+FFFD for what XML cannot carry")
    expect("t\ufffd\ufffd<" in texts(root), "plot: the title escaped", str(texts(root)))
    expect(long_name in texts(root), "plot: a 300-byte name in the legend, whole",
           str(texts(root)))


def check_json_names(mrctx, folder):
    """replay --json is JSON, UTF-8, whatever bytes the log's name holds:
    bytes that are not UTF-8 become U+FFFD (as the library's own JSON
    writer does), control characters \\u escapes."""
    name = b"log-\xff\xc3\x1b.csv"
    path = os.path.join(os.fsencode(folder), name)
    with open(path, "w") as f:
        f.write(HEADER + "1,10:00:00.000000,allocate,0x1000,1024,0x0\n")
    out_json = os.path.join(folder, "names.json")
    rc, out, err = run_bytes(mrctx, "replay", path, "--spec", "host", "--json", out_json)
    expect(rc == 0, "replay of a log whose name is not UTF-8", (out + err).decode("latin-1"))
    try:
        with open(out_json, "rb") as f:
            raw = f.read()
        j = json.loads(raw.decode("utf-8"))  # strict: every byte UTF-8
        expect_equal(j["log"], folder + "/log-\ufffd\ufffd\x1b.csv",
                     "replay --json: the log's name with U+FFFD for bytes that are not UTF-8")
        expect(b"\\u001b" in raw, "replay --json: a control character as \\u001b", repr(raw))
    except (OSError, ValueError) as e:
        expect(False, "replay --json of a log whose name is not UTF-8 is JSON: %r" % e)


def check_out_of_memory(mrctx, folder):
    """A line that cannot be read for lack of memory fails the read (it
    used to end the log there, silently, as if the file ended). The
    address space is limited with RLIMIT_AS, which sanitizer builds cannot
    run under: there the check is skipped."""
    limit = 256 << 20
    rc, _, _ = run_bytes(mrctx, "--help", limit_as=limit)
    if rc != 0:
        print("out-of-memory check skipped: mrctx does not start under RLIMIT_AS "
              "(a sanitizer build)")
        return
    path = os.path.join(folder, "huge-line.csv")
    with open(path, "w") as f:
        f.write(HEADER + "1,10:00:00.000000,allocate,0x1000,1024,0x0\n")
        f.truncate(f.tell() + (1 << 30))  # a 1 GiB line (a hole: no disk used)
    for verb, args in (("replay", ["--spec", "host"]),
                       ("plot", ["--svg", os.path.join(folder, "oom.svg")])):
        rc, out, err = run_bytes(mrctx, verb, path, *args, limit_as=limit)
        expect_equal((rc, out, err.decode()),
                     (1, b"", "mrctx %s: %s: out of host memory reading line 3 (a line that long "
                              "is no log line)\n" % (verb, path)),
                     "%s: a line that memory cannot hold fails the read" % verb)


def check_plot_total(mrctx, folder):
    """Two logs that each hold 2^63 bytes cannot be one process's: plot
    says so rather than draw a total that wrapped to 0."""
    logs = []
    for i in range(2):
        logs.append(write(folder, "half%d.csv" % i, HEADER +
                          "1,10:00:0%d.000000,allocate,0x1000,9223372036854775808,0x0\n" % i))
    rc, out, err = run(mrctx, "plot", "--svg", os.path.join(folder, "total.svg"), *logs)
    expect_equal((rc, out, err),
                 (1, "", "mrctx plot: the logs together hold more than 2^64 - 1 bytes at "
                         "1.000 s: they cannot be one machine's\n"),
                 "plot: a total past 2^64 - 1 bytes is an error")


def check_outside_input(mrctx, folder):
    check_svg_names(mrctx, folder)
    check_json_names(mrctx, folder)
    check_out_of_memory(mrctx, folder)
    check_plot_total(mrctx, folder)


# ---- replay over host memory ---------------------------------------------------------

def check_rmm_format(mrctx, folder, data):
    log = os.path.join(data, "rmm-format.csv")
    specs = ["limit(host, bytes=64MiB)", "cache(limit(host, bytes=64MiB))",
             "limit(host, bytes=10MiB)"]
    args = [log]
    for s in specs:
        args += ["--spec", s]
    rc, out, err, j = replay_json(mrctx, folder, *args)
    expect_equal((rc, err), (0, ""), "the rmm-format log replays over host memory")
    lines = out.splitlines()
    expect_equal(lines[:2],
                 ["mrctx replay: %s: 10 events (5 allocations, 1 failed, 4 frees)" % log,
                  "  2 threads, 3 streams, 0.000850 s recorded, peak 11 MiB requested at "
                  "0.000700 s, 1 block (1 MiB) live at the end"],
                 "the log's summary")
    expect(len(lines) == 7 and lines[2] == "" and lines[3].split() ==
           ["spec", "wall", "ns/event", "peak", "requested", "peak", "reserved", "peak", "used",
            "failures", "cache", "hits"], "the table's header", out)
    rows = {line[:len(max(specs, key=len))].strip(): line for line in lines[4:]}
    expect_equal(sorted(rows), sorted(specs), "a row per spec")
    if j is None:
        return
    expect_equal({k: j[k] for k in ("events", "allocations", "failed_allocations", "frees",
                                    "threads", "streams", "peak_requested",
                                    "live_blocks_at_end", "live_bytes_at_end",
                                    "skipped_lines", "device")},
                 {"events": 10, "allocations": 5, "failed_allocations": 1, "frees": 4,
                  "threads": 2, "streams": 3, "peak_requested": 11 << 20,
                  "live_blocks_at_end": 1, "live_bytes_at_end": 1 << 20, "skipped_lines": {},
                  "device": 0},
                 "--json: the log's summary")
    expect(abs(j["recorded_seconds"] - 0.00085) < 1e-9, "--json: recorded_seconds", str(j))
    results = j["results"]
    expect_equal([(r["spec"], r["resource"]) for r in results],
                 [(s, s) for s in specs], "--json: the specs and what they resolved to")
    # The 4 GiB request fails again; under a 10 MiB limit the 8 MiB one too,
    # and its free is skipped.
    expect_equal([(r["peak_requested"], r["failures"], r["free_errors"], r["peak_reserved"],
                   r["peak_used"]) for r in results],
                 [(11 << 20, 1, 0, None, None), (11 << 20, 1, 0, None, None),
                  (7 << 19, 2, 0, None, None)],
                 "--json: peaks and failures per spec (no driver pool: no reserved, no used)")
    expect(results[0]["cache_hit_rate"] is None and results[2]["cache_hit_rate"] is None and
           isinstance(results[1]["cache_hit_rate"], float) and
           0 < results[1]["cache_hit_rate"] < 1,
           "--json: a hit rate only where a cache is", str(results))
    expect(all(r["wall_seconds"] > 0 and r["ns_per_event"] > 0 for r in results),
           "--json: times", str(results))


def check_time_formats(mrctx, folder):
    # Past midnight the clock starts again: the log goes on, one second long.
    path = write(folder, "midnight.csv", HEADER +
                 "1,23:59:59.500000,allocate,0x1000,1024,0x0\n"
                 "1,00:00:00.250000,allocate,0x2000,1024,0x0\n"
                 "1,00:00:00.500000,free,0x1000,1024,0x0\n")
    rc, out, err, j = replay_json(mrctx, folder, path, "--spec", "host")
    expect(rc == 0 and j and abs(j["recorded_seconds"] - 1.0) < 1e-9 and
           "peak 2 KiB requested at 0.750000 s" in out, "a log past midnight", out + err)
    # Seconds since 1970 (rmm's documentation shows them), and "deallocate".
    path = write(folder, "epoch.csv", HEADER +
                 "1,1634567890.123456,allocate,0x7f8a40000000,1024,0x7f8a38001020\n"
                 "1,1634567890.234567,deallocate,0x7f8a40000000,1024,0x7f8a38001020\n")
    rc, out, err, j = replay_json(mrctx, folder, path, "--spec", "host")
    expect(rc == 0 and j and j["frees"] == 1 and abs(j["recorded_seconds"] - 0.111111) < 1e-6,
           "seconds since 1970, and deallocate for free", out + err)
    # A little step back in time (threads read the clock before the log's
    # lock) is held level.
    path = write(folder, "jitter.csv", HEADER +
                 "1,10:00:00.000010,allocate,0x1000,1024,0x0\n"
                 "2,10:00:00.000005,allocate,0x2000,1024,0x0\n")
    rc, out, err, j = replay_json(mrctx, folder, path, "--spec", "host")
    expect(rc == 0 and j and j["recorded_seconds"] == 0 and j["threads"] == 2,
           "time never goes back", out + err)


# ---- plot --------------------------------------------------------------------------------

def parse_svg(path):
    try:
        return ET.parse(path).getroot()
    except (OSError, ET.ParseError) as e:
        expect(False, "%s is well-formed XML: %r" % (path, e))
        return None


def texts(root):
    return ["".join(t.itertext()) for t in root.iter(SVG + "text")]


def check_svg(root, names, peak_text, failure_count, what):
    """The layers (bottom first), the peak's label, the failure ticks."""
    if root is None:
        return
    expect_equal(root.tag, SVG + "svg", what + ": an svg element")
    layers = [g for g in root.iter(SVG + "g") if g.get("class") == "layer"]
    expect_equal([g.get("data-name") for g in layers], names, what + ": a layer per log")
    for g in layers:
        path = g.find(SVG + "path")
        d = path.get("d") if path is not None else ""
        expect(d.startswith("M") and d.endswith("Z") and path.find(SVG + "title") is not None,
               what + ": layer %s is a closed area with a title" % g.get("data-name"))
    peaks = [g for g in root.iter(SVG + "g") if g.get("class") == "peak"]
    expect(len(peaks) == 1 and peaks[0].find(SVG + "circle") is not None and
           ["".join(t.itertext()) for t in peaks[0].iter(SVG + "text")] == [peak_text],
           what + ": the peak marked: " + peak_text, str(texts(root)))
    ticks = [e for e in root.iter(SVG + "line") if e.get("class") == "failure"]
    expect_equal(len(ticks), failure_count, what + ": failure ticks")
    all_text = texts(root)
    for name in names:
        expect(name in all_text, what + ": %s in the legend" % name, str(all_text))


def check_plot(mrctx, folder, data):
    a = write(folder, "a.csv", HEADER +
              "1,10:00:00.000000,allocate,0x1000,1048576,0x0\n"
              "1,10:00:01.000000,allocate,0x2000,2097152,0x0\n"
              "1,10:00:01.500000,allocate failure,0x0,1099511627776,0x0\n"
              "1,10:00:02.000000,free,0x2000,2097152,0x0\n")
    b = write(folder, "b<&>.csv", HEADER +
              "2,10:00:00.500000,allocate,0x9000,3145728,0x0\n"
              "2,10:00:01.250000,free,0x9000,3145728,0x0\n"
              "2,10:00:04.000000,allocate,0xa000,1024,0x0\n")
    svg = os.path.join(folder, "plot.svg")
    rc, out, err = run(mrctx, "plot", "--svg", svg, "mylib:temp=" + a, b)
    expect_equal((rc, out, err),
                 (0, "mrctx plot: wrote %s: 2 layers, 7 events over 4.000 s, peak 6 MiB at "
                     "1.000 s\n" % svg, ""), "plot of two logs")
    root = parse_svg(svg)
    check_svg(root, ["mylib:temp", "b<&>"], "peak 6 MiB at 1.000 s", 1, "plot of two logs")
    if root is not None:
        all_text = texts(root)
        for line in ("peak 3 MiB at 1.000 s", "peak 3 MiB at 0.500 s", "1 failed allocation",
                     "all together: peak 6 MiB", "time since the first event (s)",
                     "bytes in use (MiB)", "Memory in use"):
            expect(line in all_text, "plot: the text " + line, str(all_text))
    # A log with no events is an empty layer; a log that began after
    # midnight comes after one that began before it.
    empty = write(folder, "empty.csv", HEADER)
    late = write(folder, "late.csv", HEADER +
                 "1,00:00:00.500000,allocate,0x1000,1024,0x0\n"
                 "1,00:00:01.000000,free,0x1000,1024,0x0\n")
    early = write(folder, "early.csv", HEADER +
                  "1,23:59:59.000000,allocate,0x1000,2048,0x0\n")
    rc, out, err = run(mrctx, "plot", "--svg", svg, empty, late, early)
    expect_equal((rc, out, err),
                 (0, "mrctx plot: wrote %s: 3 layers, 3 events over 2.000 s, peak 3 KiB at "
                     "1.500 s\n" % svg, ""), "plot across midnight, with an empty layer")
    check_svg(parse_svg(svg), ["empty", "late", "early"], "peak 3 KiB at 1.500 s", 0,
              "plot across midnight")
    rc, out, err = run(mrctx, "replay", empty, "--spec", "host")
    expect(rc == 0 and out.startswith("mrctx replay: %s: 0 events (0 allocations, 0 failed, 0 "
                                      "frees)\n" % empty), "replay of a log with no events",
           out + err)
    rc, out, err = run(mrctx, "plot", "--svg", svg, "--title", "rmm <log>",
                       os.path.join(data, "rmm-format.csv"))
    expect(rc == 0 and "1 layer, 10 events over 0.001 s, peak 11 MiB at 0.001 s" in out,
           "plot of the rmm-format log", out + err)
    root = parse_svg(svg)
    check_svg(root, ["rmm-format"], "peak 11 MiB at 0.001 s", 1, "plot of the rmm-format log")
    if root is not None:
        expect("rmm <log>" in texts(root) and "time since the first event (ms)" in texts(root),
               "--title, and milliseconds for a short log", str(texts(root)))


def check_unit(mrctx, data):
    with tempfile.TemporaryDirectory() as folder:
        check_usage(mrctx, folder)
        check_bad_logs(mrctx, folder)
        check_skip_bad(mrctx, folder)
        check_rmm_format(mrctx, folder, data)
        check_time_formats(mrctx, folder)
        check_plot(mrctx, folder, data)
        check_outside_input(mrctx, folder)


# ---- over the fake driver -----------------------------------------------------------------

def check_device(mrctx, data, workload, exact):
    with tempfile.TemporaryDirectory() as folder:
        rc, out, err = run(workload, "device", folder)
        expect_equal((rc, err), (0, ""), "the workload records its logs")
        try:
            did = json.loads(out)
        except ValueError:
            expect(False, "the workload's JSON", out)
            return
        temp = os.path.join(folder, "mylib-temp.csv")
        result = os.path.join(folder, "mylib-result.csv")
        specs = ["device", "cache(device)"]
        rc, out, err, j = replay_json(mrctx, folder, temp, "--spec", specs[0], "--spec",
                                      specs[1])
        expect_equal((rc, err), (0, ""), "the temp log replays over two device specs")
        if j:
            t = did["temp"]
            # The 1 PiB request failed in the recording (each attempt of the
            # context's retry is a line) and fails again in the replay.
            expect(j["allocations"] == t["allocations"] and j["frees"] == t["frees"] and
                   j["failed_allocations"] >= 1 and j["threads"] == 2 and j["streams"] == 3 and
                   j["peak_requested"] == t["peak"] and j["live_blocks_at_end"] == 0,
                   "the log has what the workload did", "%r\n%r" % (did, j))
            rows = j["results"]
            expect_equal([r["spec"] for r in rows], specs, "a result per spec, in order")
            for r in rows:
                expect(r["peak_requested"] == t["peak"] and
                       r["failures"] == j["failed_allocations"] and r["free_errors"] == 0 and
                       r["peak_used"] >= t["peak"] and r["peak_reserved"] >= r["peak_used"],
                       "%s: the peaks from its pool, the failures again" % r["spec"], str(r))
            expect(rows[0]["cache_hit_rate"] is None and rows[1]["cache_hit_rate"] > 0,
                   "the cache's hit rate", str(rows))
        # A cap below the results' peak refuses some of them; the frees of
        # those are skipped. limit(...) caps what is handed out exactly; a
        # pool's max is rounded up by the driver to whole chunks (32 MiB on
        # the H200), so with the real driver it caps nothing this small.
        rc, out, err, j = replay_json(mrctx, folder, result, "--spec",
                                      "limit(device, bytes=8MiB)")
        if j:
            r = j["results"][0]
            expect(rc == 0 and r["failures"] > 0 and r["free_errors"] == 0 and
                   r["peak_requested"] <= 8 << 20,
                   "a capped resource: failures counted, not fatal", out + err)
        svg = os.path.join(folder, "plot.svg")
        rc, out, err = run(mrctx, "plot", "--svg", svg, "mylib:temp=" + temp,
                           "mylib:result=" + result)
        expect(rc == 0 and err == "" and out.startswith("mrctx plot: wrote %s: 2 layers, " % svg),
               "plot of the workload's logs", out + err)
        root = parse_svg(svg)
        if root is not None:
            peak = [t for t in texts(root) if t.startswith("all together: peak ")]
            names = [g.get("data-name") for g in root.iter(SVG + "g") if g.get("class") == "layer"]
            expect(names == ["mylib:temp", "mylib:result"] and len(peak) == 1,
                   "the workload's plot: both layers, the peak", str(texts(root)))
        # rmm's log on streams of the replay's making, over a device pool.
        rc, out, err, j = replay_json(mrctx, folder, os.path.join(data, "rmm-format.csv"),
                                      "--spec", "limit(device, bytes=1GiB)", "--spec",
                                      "limit(pinned, bytes=1GiB)")
        expect(rc == 0 and j and
               [(r["peak_requested"], r["failures"]) for r in j["results"]] ==
               [(11 << 20, 1)] * 2 and
               all(r["peak_used"] == 11 << 20 if exact else r["peak_used"] >= 11 << 20
                   for r in j["results"]),
               "the rmm-format log over the device and pinned pools", out + err)


def main():
    mode, mrctx, data = sys.argv[1], sys.argv[2], sys.argv[3]
    if mode == "unit":
        check_unit(mrctx, data)
    elif mode == "fake":
        check_device(mrctx, data, sys.argv[4], exact=True)
    elif mode == "gpu":
        rc, out, err = run(mrctx, "info", "--json")
        try:
            devices = json.loads(out).get("devices", [])
        except ValueError:
            devices = []
        if not devices:
            print("no GPU: skipped (%s)" % out.strip())
            sys.exit(77)
        check_device(mrctx, data, sys.argv[4], exact=False)
    else:
        sys.exit("unknown mode " + mode)
    for f in failures:
        print("FAILED: " + f, file=sys.stderr)
    print("%d passed, %d failed" % (passed, len(failures)))
    sys.exit(1 if failures else 0)


main()
