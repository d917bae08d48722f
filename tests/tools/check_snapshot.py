#!/usr/bin/env python3
"""Run `mrctx snapshot` on snapshot files, good and bad, and check what it
prints and how it exits.

usage: check_snapshot.py MRCTX SNAPSHOT_JSON

SNAPSHOT_JSON is an out-of-memory dump in the canonical form (what
`mrctx snapshot --json` writes back): two libraries on device 0 of a fake
driver, solver's results tag tracked, codec's frames tag cached, taken on
host gpu07 with 24 MiB of device 0 free, after a process-wide reclaim that
took 6 MiB back from codec's cache.
"""
import json
import os
import subprocess
import sys
import tempfile

failures = []
passed = 0


def run(mrctx, *args, stdin=None):
    p = subprocess.run([mrctx, "snapshot", *args], capture_output=True, text=True, input=stdin,
                       timeout=60)
    return p.returncode, p.stdout, p.stderr


def expect(condition, what, output=""):
    global passed
    if condition:
        passed += 1
    else:
        failures.append(what + ("\n--- output ---\n" + output if output else ""))


def check_shown(mrctx, path, text):
    rc, out, err = run(mrctx, path)
    expect(rc == 0 and err == "", "a good file: exit 0, nothing on stderr", out + err)
    lines = out.splitlines()
    expect(lines[0] == "mrctx snapshot of pid 4242 at 2026-01-01T00:00:00.123Z (mrctx 0.2.0)",
           "the first line says whose snapshot and when", out)
    expect(lines[1] == "host gpu07", "the host it was taken on", out)
    expect(lines[2].startswith("out of memory: solver:results on device 0 asked for 40.0 MiB "
                               "(41943040 bytes)"), "the failed allocation is named", out)
    expect("device memory (every process's use counts)\n"
           "device 0: 24.0 MiB free of 16.0 GiB (100% in use)\n"
           "device 1: 16.0 GiB free of 16.0 GiB (0% in use)\n" in out,
           "each device's free memory", out)
    rows = [l.split()[0] for l in lines if l.startswith(("solver:", "codec:"))]
    expect(rows[:4] == ["solver:results", "solver:temp", "codec:frames", "codec:staging"],
           "rows by current bytes, largest first", out)
    expect(any(l.split()[:2] == ["total", "56.0"] for l in lines), "the total of live bytes", out)
    expect("largest live blocks of solver:results on device 0 (3 live, 23.0 MiB)" in out,
           "the tracked tag's blocks", out)
    expect(any(l.split()[:3] == ["20.0", "MiB", "9.8"] for l in lines),
           "the largest block, with its age", out)
    expect("codec:frames on device 0: 1 hits, 2 misses" in out, "the cache's counters", out)
    expect("  the process-wide reclaim before it took back 6.0 MiB from 1 resource "
           "in 0.412 ms; 0 B stayed idle" in lines[:6], "what the reclaim before it did", out)
    expect("\nidle memory, most first (" in out, "the idle memory table", out)
    expect(any(l.split() == ["codec:frames", "0", "0", "B", "1", "6.0", "MiB", "0.201",
                             "cache(device)"] for l in lines),
           "the cache's idle bytes and what the reclaim took back, by library:tag", out)
    expect(any(l.split()[:2] == ["-", "0"] and l.endswith("the default device pool")
               for l in lines), "the driver's default pool, whose no tag is", out)
    expect(any(l.split() == ["total", "0", "B"] for l in lines), "the total idle", out)
    expect("driver pools" in out and any(l.startswith("device 0 ") and "65.0 MiB" in l
                                         for l in lines), "the device pool's use", out)

    rc, out, err = run(mrctx, path, "--json")
    expect(rc == 0 and out == text, "--json writes the canonical file back unchanged", err)
    rc, out_stdin, err = run(mrctx, "-", stdin=text)
    rc_file, out_file, _ = run(mrctx, path)
    expect(rc == 0 and out_stdin == out_file, "- reads standard input", err)
    rc, out, err = run(mrctx, "--help")
    expect(rc == 0 and out.startswith("usage: mrctx snapshot FILE"), "--help", out + err)


def check_bad_files(mrctx, text, folder):
    def bad(name, content, message):
        path = os.path.join(folder, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(content)
        rc, out, err = run(mrctx, path)
        expect(rc == 1 and out == "" and (path + ": ") in err and message in err,
               "%s: exit 1 saying %r" % (name, message), out + err)

    bad("truncated.json", text[: len(text) // 2], "does not end")
    bad("not-json.json", "Thread,Time,Action,Pointer,Size,Stream\n",
        "line 1, column 1: expected a value")
    bad("list.json", "[1, 2]", "expected an object, found an array")
    bad("other.json", '{"schema": "something-else", "version": 1}',
        "this is not an mrctx snapshot")
    newer = json.loads(text)
    newer["version"] = 2
    bad("newer.json", json.dumps(newer), "version 2 is newer than this mrctx")
    broken = json.loads(text)
    broken["contexts"][1]["tags"][0]["devices"][0]["stats"]["peak_bytes"] = "lots"
    bad("broken.json", json.dumps(broken, indent=1),
        "contexts[1].tags[0].devices[0].stats.peak_bytes: expected a number, found a string")
    missing = json.loads(text)
    del missing["pools"][0]["used_bytes"]
    bad("missing.json", json.dumps(missing), 'pools[0]: the member "used_bytes" is missing')

    rc, out, err = run(mrctx, os.path.join(folder, "absent.json"))
    expect(rc == 1 and "cannot open" in err and "No such file" in err, "a missing file: exit 1",
           out + err)
    rc, out, err = run(mrctx, folder)
    expect(rc == 1 and "cannot read" in err, "a directory: exit 1", out + err)
    for args, message in (([], "which file?"), (["-", "-"], "can be read once only"),
                          (["--bogus"], "unknown option '--bogus'")):
        rc, out, err = run(mrctx, *args)
        expect(rc == 2 and message in err and out == "", "%s: exit 2 saying %r" % (args, message),
               out + err)


def check_merged(mrctx, text, folder):
    """Several processes' snapshots as one view: two ranks of one host and
    a third process on another, as tables and as JSON; a bad file among
    them is named."""
    paths = []
    for i, (host, rank, pid) in enumerate((("gpu07", 1, 4243), ("gpu07", 0, 4242),
                                           ("gpu08", 2, 4242))):
        snap = json.loads(text)
        snap.update(host=host, rank=rank, local_rank=rank % 2, world_size=3, pid=pid)
        snap["devices"] = [{"device": 0, "free_bytes": (10 + i) << 30, "total_bytes": 16 << 30}]
        path = os.path.join(folder, "rank-%d.json" % i)
        with open(path, "w", encoding="utf-8") as f:
            json.dump(snap, f)
        paths.append(path)
    rc, out, err = run(mrctx, *paths)
    expect(rc == 0 and err == "", "several files: exit 0, nothing on stderr", out + err)
    lines = out.splitlines()
    expect(lines[0] == "mrctx: 3 snapshots of 2 hosts", "the merged view's first line", out)
    rows = [l.split()[:5] for l in lines if l.startswith(("gpu07 ", "gpu08 ")) and ":" in l]
    expect([r[:3] for r in rows[::4]] == [["gpu07", "0/3", "4242"], ["gpu07", "1/3", "4243"],
                                          ["gpu08", "2/3", "4242"]],
           "rows by host, then rank; the same pid on two hosts kept apart", out)
    expect(any(l.split()[:4] == ["gpu07", "0", "112.0", "MiB"] and l.endswith(
        "11.0 GiB free of 16.0 GiB (31% in use)") for l in lines),
        "a device's total: both ranks' bytes, the host's latest reading", out)
    expect(any(l.split()[:4] == ["total", "168.0", "MiB", "3"] for l in lines),
           "the overall total", out)

    rc, out, err = run(mrctx, "--json", *paths)
    merged = json.loads(out) if rc == 0 else {}
    expect(merged.get("schema") == "mrctx-snapshot-merged" and merged.get("version") == 1 and
           len(merged.get("processes", [])) == 3 and len(merged.get("rows", [])) == 12 and
           merged.get("total", {}).get("hosts") == 2, "--json: the merged view", out + err)
    rc, out, err = run(mrctx, "--merged", paths[0])
    expect(rc == 0 and out.startswith("mrctx: 1 snapshot of 1 host\n"),
           "--merged: one file as the merged view", out + err)

    bad = os.path.join(folder, "rank-bad.json")
    with open(bad, "w", encoding="utf-8") as f:
        f.write(text[: len(text) // 3])
    rc, out, err = run(mrctx, paths[0], bad, paths[1])
    expect(rc == 1 and out == "" and err.startswith("mrctx snapshot: %s: " % bad),
           "a bad file among several: exit 1 naming it", out + err)


def check_plot(mrctx, text, folder):
    """`mrctx plot` from a series of snapshots: one layer per library:tag,
    the out-of-memory dump marked; logs and snapshots are not mixed."""
    import xml.etree.ElementTree as ElementTree
    base = json.loads(text)
    paths = []
    for i in range(3):  # two requests, then the dump itself
        snap = json.loads(text)
        snap["time_unix_ns"] = base["time_unix_ns"] - (2 - i) * 1000000000
        if i < 2:
            snap["trigger"] = "request"
            snap.pop("out_of_memory", None)
            for c in snap["contexts"]:
                for t in c["tags"]:
                    for d in t["devices"]:
                        d["stats"]["current_bytes"] = d["stats"]["current_bytes"] * (i + 1) // 3
        path = os.path.join(folder, "series-%d.json" % i)
        with open(path, "w", encoding="utf-8") as f:
            json.dump(snap, f)
        paths.append(path)
    svg = os.path.join(folder, "series.svg")
    p = subprocess.run([mrctx, "plot", "--svg", svg, *reversed(paths)], capture_output=True,
                       text=True, timeout=60)
    expect(p.returncode == 0 and "3 snapshots over 2.000 s" in p.stdout,
           "plot from snapshots draws the series", p.stdout + p.stderr)
    if p.returncode == 0:
        root = ElementTree.parse(svg).getroot()
        words = " ".join(t for t in root.itertext())
        for layer in ("solver:results", "solver:temp", "codec:frames", "codec:staging"):
            expect(layer in words, "plot from snapshots has the layer " + layer, words)
        expect("1 failed allocation" in words, "plot from snapshots marks the dump", words)
        expect("3 snapshots" in words, "plot from snapshots says so in its subtitle", words)
    refused = [("temp.csv", "Thread,Time,Action,Pointer,Size,Stream\n1,1.0,allocate,0x10,64,0x0\n",
                "logs or snapshots, not both", "plot refuses logs mixed with snapshots"),
               ("bad.json", '{"schema": "something else"}', "bad.json: not a snapshot",
                "plot names a file that is not a snapshot")]
    for name, content, message, what in refused:
        path = os.path.join(folder, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(content)
        p = subprocess.run([mrctx, "plot", "--svg", svg, paths[0], path], capture_output=True,
                           text=True, timeout=60)
        expect(p.returncode == 1 and message in p.stderr, what, p.stderr)

def check_outside_input(mrctx, text, folder):
    """What a file from elsewhere may hold: names that would drive the
    terminal, long names, impossible totals, no end at all."""
    import xml.etree.ElementTree as ElementTree
    # Names are escaped for the terminal.
    snap = json.loads(text)
    snap["contexts"][0]["library"] = "sol\x1b[31mver\x07"
    snap["out_of_memory"]["message"] = "m\x1b]0;title\x07"
    path = os.path.join(folder, "escapes.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(snap, f)
    rc, out, err = run(mrctx, path)
    expect(rc == 0 and "\x1b" not in out and "\x07" not in out and
           "sol\\x1b[31mver\\x07:results" in out and "m\\x1b]0;title\\x07" in out,
           "names and messages are escaped for the terminal", out + err)

    # Two libraries whose "library:tag" names share their first 511 bytes
    # are two layers each, not one.
    paths = []
    for i, suffix in enumerate(("a", "b")):
        snap = json.loads(text)
        snap["time_unix_ns"] += i * 1000000000
        snap["contexts"][0]["library"] = "x" * 511 + suffix
        snap["out_of_memory"]["library"] = "x" * 511 + suffix
        snap["contexts"][1]["library"] = "x" * 511 + suffix + "2"
        path = os.path.join(folder, "long-%s.json" % suffix)
        with open(path, "w", encoding="utf-8") as f:
            json.dump(snap, f)
        paths.append(path)
    svg = os.path.join(folder, "long.svg")
    p = subprocess.run([mrctx, "plot", "--svg", svg, *paths], capture_output=True, text=True,
                       timeout=60)
    expect(p.returncode == 0, "plot of long library names", p.stdout + p.stderr)
    if p.returncode == 0:
        root = ElementTree.parse(svg).getroot()
        names = sorted(g.get("data-name") for g in root.iter("{http://www.w3.org/2000/svg}g")
                       if g.get("class") == "layer")
        wanted = sorted("x" * 511 + s + ":" + t for s in ("a", "b")
                        for t in ("results", "temp")) + \
            sorted("x" * 511 + s + "2:" + t for s in ("a", "b") for t in ("frames", "staging"))
        expect(names == sorted(wanted), "long names that share 511 bytes stay apart, whole",
               "%d layers: %r" % (len(names), [n[505:] for n in names]))

    # A tag's devices together cannot hold more than 2^64 - 1 bytes.
    snap = json.loads(text)
    for d in snap["contexts"][0]["tags"][0]["devices"]:
        d["stats"]["current_bytes"] = 1 << 63
    path = os.path.join(folder, "overflow.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(snap, f)
    p = subprocess.run([mrctx, "plot", "--svg", svg, path], capture_output=True, text=True,
                       timeout=60)
    expect(p.returncode == 1 and p.stderr == "mrctx plot: %s: solver:temp holds more than "
           "2^64 - 1 bytes on its devices together, which no process can\n" % path,
           "plot: a tag's bytes past 2^64 - 1 are an error", p.stdout + p.stderr)

    # A file without end: refused at 256 MiB, at once, not read until memory runs out.
    # In case the cap is ever lost, the address space is limited (where the
    # build allows it: sanitizer builds do not run under RLIMIT_AS), so the
    # check fails instead of eating the machine.
    import resource

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    probe = subprocess.run([mrctx, "--help"], capture_output=True, preexec_fn=limit)
    p = subprocess.run([mrctx, "snapshot", "/dev/zero"], capture_output=True, text=True,
                       timeout=60, preexec_fn=limit if probe.returncode == 0 else None)
    expect(p.returncode == 1 and p.stdout == "" and
           p.stderr == "mrctx snapshot: cannot read '/dev/zero': larger than 256 MiB, which no "
                       "snapshot is\n", "snapshot /dev/zero: refused at 256 MiB",
           p.stdout + p.stderr)


def main():
    mrctx, path = sys.argv[1], sys.argv[2]
    with open(path, encoding="utf-8") as f:
        text = f.read()
    check_shown(mrctx, path, text)
    with tempfile.TemporaryDirectory() as folder:
        check_bad_files(mrctx, text, folder)
        check_merged(mrctx, text, folder)
        check_plot(mrctx, text, folder)
        check_outside_input(mrctx, text, folder)
    for failure in failures:
        print("FAIL:", failure)
    print("%d passed, %d failed" % (passed, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
