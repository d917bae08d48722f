#!/usr/bin/env python3
"""Run `mrctx replay` and `mrctx plot` and check what they do.

usage: check_replay.py MODE MRCTX DATA_DIR [REPLAY_WORKLOAD [SANITIZER]]
  unit  no driver: usage errors, every kind of bad log line (each named with
        its file, line and problem; or skipped and counted with --skip-bad),
        the hand-written rmm-format log (DATA_DIR/rmm-format.csv) replayed
        against host specs, the three-thread log DATA_DIR/threads.csv
        replayed on a thread per recorded thread (and on one), gzip-compressed
        logs, and plot's SVG from hand-written logs
  fake  over the fake driver: the logs REPLAY_WORKLOAD records with the log
        adaptor, replayed against device specs side by side and drawn; the
        rmm-format log on streams of its own; threads.csv over device specs;
        the GPT training trace beside the source tree
        (../shared/data/gpt-training-trace.csv.gz; skipped where absent,
        and where SANITIZER, meson's b_sanitize, is not "none") with its
        threads
  gpu   the same on a real GPU (exit 77, skipped, where there is none); the
        driver may round what its pools count up, so used bytes are checked
        to be at least what was asked for
"""
import gzip
import json
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
import zlib

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
            (["replay", log, "--spec", "host", "--threads", "two"],
             "mrctx replay: --threads wants 'recorded' or 'one', not 'two'\n"),
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
    # -o and --output, as export takes them, are --svg.
    for option in ("-o", "--output"):
        svg = os.path.join(folder, "o%s.svg" % option.strip("-"))
        rc, out, err = run(mrctx, "plot", option, svg, log)
        expect(rc == 0 and err == "" and os.path.isfile(svg),
               "plot %s FILE writes the SVG" % option, out + err)
        with open(svg, "rb") as f:
            expect(f.read(5) == b"<?xml", "plot %s FILE: an SVG" % option)


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


def long_line_error(verb, line, path):
    return ("mrctx %s: line %d of %s is longer than 1 MiB, which no log line is (the log "
            "adaptor's and rmm's are under 200 bytes): not an rmm-format allocation log, or a "
            "damaged one\n" % (verb, line, path))


def check_out_of_memory(mrctx, folder):
    """A 1 GiB line is refused after its first MiB, whatever memory is
    left (it used to be read whole, and where memory ran out the log ended
    there, silently, as if the file ended). The address space is limited
    with RLIMIT_AS, which sanitizer builds cannot run under: there the
    check is skipped."""
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
        expect_equal((rc, out, err.decode()), (1, b"", long_line_error(verb, 3, path)),
                     "%s: a line that memory cannot hold is refused" % verb)


def run_measured(*args):
    """Run; (rc, stdout, stderr, the most memory the child had resident, in
    bytes), as wait4 reports for that child alone."""
    env = dict(os.environ)
    env["MALLOC_PERTURB_"] = "0"
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        p = subprocess.Popen(list(args), stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return p.returncode, out.read().decode(), err.read().decode(), usage.ru_maxrss * 1024


def check_long_lines(mrctx, folder):
    """A log line has a length limit, 1 MiB, checked as it is read: a gzip
    file of a few hundred KiB whose second event line is 256 MiB long (it
    used to be read whole into memory; a 13 MB file took 2.9 GB) is refused
    by every verb that reads logs, with the memory each used measured, not
    limited; a plain file likewise. A line of exactly 1 MiB is read (and
    with --skip-bad skipped as the bad line it is)."""
    path = os.path.join(folder, "one-long-line.csv.gz")
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)  # 31: the gzip format
    with open(path, "wb") as f:
        f.write(packer.compress((HEADER + "1,0.1,allocate,0x1000,1024,0x0\n").encode()))
        chunk = b"1" * (1 << 20)
        for _ in range(256):
            f.write(packer.compress(chunk))
        f.write(packer.compress(b"\n") + packer.flush())
    rc, out, err = run(mrctx, "replay", path, "--spec", "host")
    if rc == 1 and "built without zlib" in err:
        print("long-line gzip checks skipped: mrctx was built without zlib")
    else:
        for verb, args in (("replay", ["--spec", "host"]),
                           ("plot", ["--svg", os.path.join(folder, "long.svg")]),
                           ("export", ["--format", "perfetto", "-o",
                                       os.path.join(folder, "long.json")])):
            rc, out, err, rss = run_measured(mrctx, verb, *args, path)
            expect_equal((rc, out, err), (1, "", long_line_error(verb, 3, path)),
                         "%s: a 256 MiB line of a gzip log is refused" % verb)
            expect(rss < (100 << 20), "%s: refused in less than 100 MiB of memory, not 256: %d MiB"
                   % (verb, rss >> 20))
    plain = os.path.join(folder, "long-line.csv")
    with open(plain, "w") as f:
        f.write(HEADER + "1,0.1,allocate,0x1000,1024,0x0\n" + "x" * ((1 << 20) + 1) + "\n")
    rc, out, err = run(mrctx, "replay", "--skip-bad", plain, "--spec", "host")
    expect_equal((rc, out, err), (1, "", long_line_error("replay", 3, plain)),
                 "a line of 1 MiB + 1 byte is refused, even with --skip-bad")
    with open(plain, "w") as f:
        f.write("x" * (2 << 20) + "\n")
    rc, out, err = run(mrctx, "replay", plain, "--spec", "host")
    expect(rc == 1 and out == "" and
           err.startswith("mrctx replay: %s:1: not an rmm-format allocation log: the first line "
                          "is 'xxxx" % plain), "a first line of 2 MiB is no header", err)
    with open(plain, "w") as f:
        f.write(HEADER + "1,0.1,allocate,0x1000,1024,0x0\n" + "x" * (1 << 20) + "\n")
    rc, out, err, j = replay_json(mrctx, folder, plain, "--skip-bad", "--spec", "host")
    expect(rc == 0 and j is not None and j["events"] == 1 and
           "skipped 1 bad line (1 not six fields)" in err,
           "a line of exactly 1 MiB is read, and skipped as bad", out + err)


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
    check_long_lines(mrctx, folder)
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
    expect_equal(lines[:4],
                 ["mrctx replay: %s: 10 events (5 allocations, 1 failed, 4 frees)" % log,
                  "  2 threads, 3 streams, 0.000850 s recorded, peak 11 MiB requested at "
                  "0.000700 s, 1 block (1 MiB) live at the end",
                  "  0 of 4 frees (0.0%) on another thread than their allocation",
                  "  replayed on 2 threads, one per recorded thread, taking turns in the log's "
                  "order"],
                 "the log's summary")
    expect(len(lines) == 13 and lines[4] == "" and lines[5].split() ==
           ["spec", "wall", "ns/event", "peak", "requested", "peak", "reserved", "peak", "used",
            "failures", "cache", "hits"] and lines[9] == "", "the table's header", out)
    rows = {line[:len(max(specs, key=len))].strip(): line for line in lines[6:9]}
    expect_equal(sorted(rows), sorted(specs), "a row per spec")
    # 4 hand-offs: the log's events go 856 856 856 999 856 999 999 856 856 856.
    expect(len(lines) == 13 and
           lines[10] == "limit(host, bytes=64MiB): on 2 threads, 0 frees on another thread, "
                        "4 hand-offs" and
           re.fullmatch(r"cache\(limit\(host, bytes=64MiB\)\): on 2 threads, 0 frees on another "
                        r"thread, 4 hand-offs; cache: (\d) hits \(\d+\.\d%\), (\d) misses, 0 "
                        r"cross-stream, 0 bypassed, \d trims", lines[11]) and
           lines[12] == "limit(host, bytes=10MiB): on 2 threads, 0 frees on another thread, "
                        "4 hand-offs",
           "a line per spec: its threads, hand-offs and the cache's counters", out)
    if j is None:
        return
    expect_equal({k: j.get(k) for k in ("events", "allocations", "failed_allocations", "frees",
                                        "threads", "streams", "peak_requested",
                                    "live_blocks_at_end", "live_bytes_at_end",
                                    "skipped_lines", "device", "cross_thread_frees",
                                    "replay_threads")},
                 {"events": 10, "allocations": 5, "failed_allocations": 1, "frees": 4,
                  "threads": 2, "streams": 3, "peak_requested": 11 << 20,
                  "live_blocks_at_end": 1, "live_bytes_at_end": 1 << 20, "skipped_lines": {},
                  "device": 0, "cross_thread_frees": 0, "replay_threads": "recorded"},
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
    expect_equal([(r.get("threads"), r.get("cross_thread_frees"), r.get("handoffs"))
                  for r in results],
                 [(2, 0, 4)] * 3, "--json: threads, frees on another thread, hand-offs")
    cache = results[1].get("cache") or {}
    expect(results[0].get("cache", 0) is None and results[2].get("cache", 0) is None and
           sorted(cache) == ["bypassed", "cross_stream", "hits", "misses", "trims"] and
           cache["hits"] + cache["misses"] == 5 and
           abs(cache["hits"] / 5 - results[1]["cache_hit_rate"]) < 1e-6,
           "--json: the cache's counters where a cache is", str(results))


def check_threads(mrctx, folder, data):
    """threads.csv: thread 11 allocates four blocks, thread 22 frees three
    of them and allocates two, thread 11 frees one of those, thread 33
    frees the last of 11's: 5 of its 7 frees on another thread than their
    allocation, 5 hand-offs. Replayed with its threads, each event runs on
    a thread of its own recorded thread, which the replay proves by
    counting, as they run, the OS threads and the frees made on another OS
    thread than the allocation; on one thread, none."""
    log = os.path.join(data, "threads.csv")
    summary = ["mrctx replay: %s: 14 events (7 allocations, 0 failed, 7 frees)" % log,
               "  3 threads, 1 stream, 0.000013 s recorded, peak 15 KiB requested at 0.000003 s, "
               "0 blocks (0 B) live at the end",
               "  5 of 7 frees (71.4%) on another thread than their allocation"]
    specs = ["host", "cache(host)", "limit(host, bytes=3KiB)"]
    args = [a for spec in specs for a in ("--spec", spec)]
    for threads in (None, "recorded", "one"):
        extra = ["--threads", threads] if threads else []
        rc, out, err, j = replay_json(mrctx, folder, log, *args, *extra)
        what = "threads.csv, --threads %s: " % (threads or "left out")
        one = threads == "one"
        expect_equal((rc, err, out.splitlines()[:4]),
                     (0, "", summary + [
                         "  replayed on one thread, in the log's order (--threads one)" if one
                         else "  replayed on 3 threads, one per recorded thread, taking turns "
                              "in the log's order"]), what + "the summary")
        if j is None:
            continue
        expect_equal((j["threads"], j["frees"], j.get("cross_thread_frees"),
                      j.get("replay_threads")),
                     (3, 7, 5, threads or "recorded"), what + "the log's threads in the JSON")
        # Under a 3 KiB limit the 4 and 8 KiB blocks fail; of the frees left,
        # 4 are on another thread (0x3000's, by thread 22, is skipped).
        wanted = ([(0, 1, 0, 0), (0, 1, 0, 0), (2, 1, 0, 0)] if one else
                  [(0, 3, 5, 5), (0, 3, 5, 5), (2, 3, 4, 5)])
        got = [(r["failures"], r.get("threads"), r.get("cross_thread_frees"), r.get("handoffs"))
               for r in j["results"]]
        expect_equal(got, wanted, what + "failures, OS threads, frees on another thread and "
                                         "hand-offs, as the replay ran")
        for spec, (_, threads, cross, handoffs) in zip(specs, wanted):
            expect("%s: on %d thread%s, %d frees on another thread, %d hand-off" %
                   (spec, threads, "" if threads == 1 else "s", cross, handoffs) in out,
                   what + "the line of " + spec, out)
        cache = j["results"][1].get("cache")
        expect(cache is not None and cache["hits"] + cache["misses"] == 7,
               what + "the cache's counters", str(j["results"]))


def check_thread_limit(mrctx, folder):
    """More recorded threads than are replayed on threads of their own: the
    reason, and --threads one replays it."""
    lines = ["%d,10:00:00.000000,allocate,0x%x,64,0x0\n" % (t, 0x1000 * (t + 1))
             for t in range(1025)]
    path = write(folder, "many.csv", HEADER + "".join(lines))
    rc, out, err = run(mrctx, "replay", path, "--spec", "host")
    expect(rc == 1 and err == "mrctx replay: --spec 'host': %s has 1025 threads, and at most "
           "1024 are replayed on threads of their own: replay it on one thread instead\n" % path,
           "1025 recorded threads: refused, saying why", out + err)
    rc, out, err = run(mrctx, "replay", path, "--spec", "host", "--threads", "one")
    expect(rc == 0 and "host: on 1 thread, 0 frees on another thread, 0 hand-offs" in out,
           "1025 recorded threads on one thread", out + err)


def check_gzip(mrctx, folder, data):
    """A gzip-compressed log reads as the log itself (where mrctx has zlib;
    elsewhere it says to decompress it); a cut one is an error."""
    with open(os.path.join(data, "threads.csv"), "rb") as f:
        text = f.read()
    packed = gzip.compress(text)
    path = write(folder, "threads.csv.gz", packed, "wb")
    rc, out, err, j = replay_json(mrctx, folder, path, "--spec", "host")
    if rc == 1 and "built without zlib" in err:
        expect_equal(err, "mrctx replay: %s: a gzip-compressed log, and this mrctx was built "
                          "without zlib: decompress it first (gzip -dk)\n" % path,
                     "gzip without zlib: what to do")
        print("gzip checks skipped: mrctx was built without zlib")
        return
    expect(rc == 0 and j is not None and j["events"] == 14 and j.get("cross_thread_frees") == 5,
           "a gzip-compressed log replays", out + err)
    rc, out, err = run(mrctx, "plot", "--svg", os.path.join(folder, "gz.svg"), path)
    expect(rc == 0 and "1 layer, 14 events" in out, "plot of a gzip-compressed log", out + err)
    cut = write(folder, "cut.csv.gz", packed[:len(packed) - 12], "wb")
    rc, out, err = run(mrctx, "replay", cut, "--spec", "host")
    expect(rc == 1 and out == "" and
           err.startswith("mrctx replay: %s: the gzip data is broken (" % cut) and
           err.endswith("): a truncated or damaged file?\n"), "a cut gzip file", out + err)


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
    # The most seconds a Time holds, 2^64 - 1: replayed, and drawn with the
    # seconds as its start (no date has them; the plot once took them as a
    # time_t, which they overflow).
    path = write(folder, "far.csv", HEADER +
                 "1,18446744073709551615.500000,allocate,0x1000,1024,0x0\n"
                 "1,18446744073709551615.999999,free,0x1000,1024,0x0\n")
    rc, out, err, j = replay_json(mrctx, folder, path, "--spec", "host")
    expect(rc == 0 and err == "" and j and j["frees"] == 1, "a Time of 2^64 - 1 s replays",
           out + err)
    svg = os.path.join(folder, "far.svg")
    rc, out, err = run(mrctx, "plot", "--svg", svg, path)
    expect(rc == 0 and err == "", "a Time of 2^64 - 1 s is drawn", out + err)
    if rc == 0:
        with open(svg) as f:
            expect("18446744073709551616 s since 1970" in f.read(),
                   "the plot starts at 2^64 s since 1970")


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
        check_threads(mrctx, folder, data)
        check_thread_limit(mrctx, folder)
        check_gzip(mrctx, folder, data)
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


def check_device_threads(mrctx, data):
    """threads.csv over device memory: each replay thread has the device's
    context, and the threads are honoured there too."""
    with tempfile.TemporaryDirectory() as folder:
        rc, out, err, j = replay_json(mrctx, folder, os.path.join(data, "threads.csv"),
                                      "--spec", "cache(device)", "--spec", "pinned")
        expect(rc == 0 and j is not None and
               [(r.get("threads"), r.get("cross_thread_frees"), r.get("handoffs"), r["failures"])
                for r in j["results"]] == [(3, 5, 5, 0)] * 2,
               "threads.csv over device and pinned memory: 3 threads, 5 frees on another",
               out + err)


# The trace of a GPT model's training that PyTorch's allocator served
# (../shared/data/README.md beside it): two threads, one stream.
GPT_TRACE = os.path.join("..", "shared", "data", "gpt-training-trace.csv.gz")


def check_gpt_trace(mrctx, data, sanitized):
    """The GPT training trace, where it is beside the source tree, replayed
    with its threads against cache(device) and a capped one: a summary with
    its frees on another thread (34%), and per spec the frees on another
    thread as they ran and the cache's hit rate."""
    path = os.path.normpath(os.path.join(data, "..", "..", GPT_TRACE))
    if not os.path.exists(path):
        print("GPT trace checks skipped: no %s (it is kept outside the source tree, in "
              "../shared/data)" % path)
        return
    if sanitized:
        # The capped cache's misses hand out hundreds of GiB over the trace,
        # and a sanitizer pays for every block in proportion to its size.
        print("GPT trace checks skipped under a sanitizer")
        return
    specs = ["cache(device)", "cache(device, max=256MiB)"]
    with tempfile.TemporaryDirectory() as folder:
        rc, out, err, j = replay_json(mrctx, folder, path, "--spec", specs[0], "--spec", specs[1])
        if rc == 1 and "built without zlib" in err:
            print("GPT trace checks skipped: mrctx was built without zlib")
            return
        expect_equal((rc, err), (0, ""), "the GPT trace replays with its threads")
        lines = out.splitlines()
        expect(lines[2:4] == ["  23,640 of 69,445 frees (34.0%) on another thread than their "
                              "allocation",
                              "  replayed on 2 threads, one per recorded thread, taking turns "
                              "in the log's order"],
               "the GPT trace: its frees on another thread, replayed on its 2 threads", out)
        for spec in specs:
            line = [x for x in lines if x.startswith(spec + ": ")]
            expect(len(line) == 1 and
                   re.fullmatch(re.escape(spec) + r": on 2 threads, 23,640 frees on another "
                                r"thread, [\d,]+ hand-offs; cache: [\d,]+ hits \(\d+\.\d%\), "
                                r"[\d,]+ misses, [\d,]+ cross-stream, [\d,]+ bypassed, [\d,]+ "
                                r"trims", line[0]) is not None,
                   "the GPT trace, %s: frees on another thread and the hit rate" % spec, out)
        if j is None:
            return
        expect_equal((j["events"], j["allocations"], j["frees"], j["threads"], j["streams"],
                      j.get("cross_thread_frees")), (138893, 69448, 69445, 2, 1, 23640),
                     "the GPT trace's summary in the JSON")
        for r in j["results"]:
            c = r.get("cache") or {}
            expect(r.get("threads") == 2 and r.get("cross_thread_frees") == 23640 and
                   r["failures"] == 0 and r["free_errors"] == 0 and r.get("handoffs", 0) >= 100 and
                   c.get("hits", 0) + c.get("misses", 0) == 69448 and
                   0 < r["cache_hit_rate"] <= 1 and r["peak_requested"] == j["peak_requested"],
                   "the GPT trace, %s: its threads honoured, every allocation a hit or a miss"
                   % r["spec"], str(r))
            print("GPT trace, %s: %.1f%% hits, %s frees on another thread, %.0f ns/event "
                  "(fake driver)" % (r["spec"], 100 * (r["cache_hit_rate"] or 0),
                                     r.get("cross_thread_frees"), r["ns_per_event"]))
        # On one thread, the same events: no free on another thread.
        rc, out, err, j = replay_json(mrctx, folder, path, "--spec", specs[0], "--threads", "one")
        expect(rc == 0 and j is not None and j["results"][0].get("threads") == 1 and
               j["results"][0].get("cross_thread_frees") == 0 and
               "%s: on 1 thread, 0 frees on another thread, 0 hand-offs; cache: " % specs[0] in out,
               "the GPT trace on one thread", out + err)


def main():
    mode, mrctx, data = sys.argv[1], sys.argv[2], sys.argv[3]
    if mode == "unit":
        check_unit(mrctx, data)
    elif mode == "fake":
        check_device(mrctx, data, sys.argv[4], exact=True)
        check_device_threads(mrctx, data)
        check_gpt_trace(mrctx, data, len(sys.argv) > 5 and sys.argv[5] != "none")
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
        check_device_threads(mrctx, data)
        check_gpt_trace(mrctx, data, False)
    else:
        sys.exit("unknown mode " + mode)
    for f in failures:
        print("FAILED: " + f, file=sys.stderr)
    print("%d passed, %d failed" % (passed, len(failures)))
    sys.exit(1 if failures else 0)


main()
