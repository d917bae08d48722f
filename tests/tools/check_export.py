#!/usr/bin/env python3
"""Run `mrctx export --format perfetto` on logs and snapshots and check what
it writes is Chrome trace-event JSON that Perfetto and chrome://tracing can
open: a JSON object with traceEvents, every event of a known phase with its
fields, times that never go back on a track, every async slice begun once
and ended once, and counters that match the bytes the log had live.

usage: check_export.py unit MRCTX SOURCE_DIR
       check_export.py many MRCTX SOURCE_DIR
       check_export.py fake MRCTX SOURCE_DIR REPLAY_WORKLOAD

unit: the hand-written log rmm-format.csv, two named logs, the snapshot
snapshot-oom.json and a later copy of it with a call site, bad usage, and
times at the ends of their range (UndefinedBehaviorSanitizer's test).
many: two snapshots of 128k blocks each.
fake: the replay example of docs/observability.md, the logs replay_workload
records over host memory, exported whole and checked the same way.
"""
import csv
import json
import os
import subprocess
import sys
import tempfile

failures = []
passed = 0


def expect(condition, what, output=""):
    global passed
    if condition:
        passed += 1
    else:
        failures.append(what + ("\n--- output ---\n" + output if output else ""))


def run(mrctx, *args):
    p = subprocess.run([mrctx, "export", *args], capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


PHASES = {"M", "C", "b", "e", "i"}


def check_trace(path, what):
    """The structure every trace must have. Returns the events."""
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)  # the parser: a file it refuses fails here
    expect(isinstance(doc, dict) and isinstance(doc.get("traceEvents"), list),
           what + ": a JSON object with a traceEvents list")
    events = doc["traceEvents"]
    expect(all(e.get("ph") in PHASES for e in events), what + ": every phase is one of M C b e i",
           str([e.get("ph") for e in events if e.get("ph") not in PHASES][:5]))
    timed = [e for e in events if e["ph"] != "M"]
    expect(all(isinstance(e.get("ts"), (int, float)) and isinstance(e.get("pid"), int)
               and isinstance(e.get("tid"), int) and isinstance(e.get("name"), str)
               for e in timed), what + ": every event has a name, ts, pid and tid")
    # Counters: per track (pid, name), times never go back.
    last = {}
    back = []
    for e in events:
        if e["ph"] != "C":
            continue
        key = (e["pid"], e["name"])
        if key in last and e["ts"] < last[key]:
            back.append(key)
        last[key] = e["ts"]
        expect(isinstance(e["args"].get("bytes"), int), what + ": a counter's bytes are a whole number")
    expect(not back, what + ": counter times never go back", str(back[:3]))
    # Async slices: each id begun once, ended once, not before it began.
    begun, ended = {}, {}
    for e in events:
        if e["ph"] == "b":
            expect(e["id"] not in begun, what + ": slice %s begun once" % e["id"])
            begun[e["id"]] = e
        elif e["ph"] == "e":
            expect(e["id"] in begun and e["id"] not in ended,
                   what + ": slice %s ended once, after its begin" % e["id"])
            ended[e["id"]] = e
    expect(set(begun) == set(ended), what + ": every slice ends",
           str(sorted(set(begun) ^ set(ended))[:5]))
    expect(all(ended[i]["ts"] >= begun[i]["ts"] and ended[i]["name"] == begun[i]["name"]
               and begun[i].get("cat") == "allocation" for i in ended if i in begun),
           what + ": a slice ends no earlier than it begins, under its name")
    return events


def log_live_bytes(path):
    """The bytes live after each line of an rmm-format log, read here
    independently of mrctx; and the failures."""
    live, blocks, series, failures_seen = 0, {}, [], 0
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            size = int(row["Size"])
            pointer = row["Pointer"]
            if row["Action"] == "allocate":
                if pointer in ("(nil)", "0", "0x0"):
                    continue
                blocks[pointer] = size
                live += size
            elif row["Action"] in ("free", "deallocate"):
                if pointer in ("(nil)", "0", "0x0"):
                    continue
                live -= blocks.pop(pointer)
            else:
                failures_seen += 1
                continue
            series.append(live)
    return series, failures_seen


def check_log_counters(events, pid, log_path, what):
    series, failed = log_live_bytes(log_path)
    counted = [e["args"]["bytes"] for e in events if e["ph"] == "C" and e["pid"] == pid]
    # The first counter is the 0 before the first event.
    expect(counted[:1] == [0] and counted[1:] == series,
           what + ": the counter is the log's live bytes after every event",
           "counter %s\nlog     %s" % (counted[:12], series[:12]))
    instants = [e for e in events if e["ph"] == "i" and e["pid"] == pid]
    expect(len(instants) == failed, what + ": an instant per failed allocation")
    slices = [e for e in events if e["ph"] == "b" and e["pid"] == pid]
    expect(all(isinstance(e["args"]["size"], int) and e["args"]["stream"].startswith("0x")
               for e in slices), what + ": slices carry their size and stream")


def check_unit(mrctx, source):
    rmm = os.path.join(source, "rmm-format.csv")
    threads = os.path.join(source, "threads.csv")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "rmm.json")
        rc, so, se = run(mrctx, "--format", "perfetto", "-o", out, rmm)
        expect(rc == 0 and se == "" and so.startswith("mrctx export: wrote " + out),
               "a log exports: exit 0", so + se)
        events = check_trace(out, "rmm-format.csv")
        names = [e for e in events if e["ph"] == "M"]
        expect([e["args"]["name"] for e in names] == ["rmm-format"],
               "the log's process is named by its file")
        check_log_counters(events, 1, rmm, "rmm-format.csv")
        live_at_end = [e for e in events if e["ph"] == "e" and e["args"].get("live_at_end")]
        expect(len(live_at_end) == 1, "the block still live at the end is closed and marked")

        # Two named logs: a process each, lined up on one clock.
        rc, so, se = run(mrctx, "--format", "perfetto", "a:temp=" + rmm, "b:result=" + threads)
        expect(rc == 0, "two logs export to stdout", se)
        path = os.path.join(tmp, "two.json")
        with open(path, "w") as f:
            f.write(so)
        events = check_trace(path, "two logs")
        expect(sorted(e["args"]["name"] for e in events if e["ph"] == "M") == ["a:temp", "b:result"],
               "each log is a process named NAME")
        check_log_counters(events, 1, rmm, "a:temp")
        check_log_counters(events, 2, threads, "b:result")

        # Snapshots: the dump, and a later one whose block has a call site.
        snap = os.path.join(source, "snapshot-oom.json")
        with open(snap) as f:
            doc = json.load(f)
        doc["trigger"] = "request"
        del doc["out_of_memory"]
        doc["time_unix_ns"] += 2000000000
        for ctx in doc["contexts"]:
            for tag in ctx["tags"]:
                for dev in tag["devices"]:
                    for block in dev.get("track", {}).get("largest", []):
                        block["age_ns"] += 2000000000
                        block["frames"] = ["solver_factor+0x5c (/usr/lib/libsolver.so)",
                                           "main+0x9e (/usr/bin/app)"]
        later = os.path.join(tmp, "later.json")
        with open(later, "w") as f:
            json.dump(doc, f)
        out = os.path.join(tmp, "snaps.json")
        rc, so, se = run(mrctx, "--format", "perfetto", "-o", out, later, snap)
        expect(rc == 0, "snapshots export", so + se)
        events = check_trace(out, "snapshots")
        counters = {}
        for e in events:
            if e["ph"] == "C":
                counters.setdefault(e["name"], []).append(e["args"]["bytes"])
        expect(counters.get("solver:results device 0") == [24117504, 24117504],
               "a counter per library:tag and device, a value per snapshot", str(counters))
        oom = [e for e in events if e["ph"] == "i"]
        expect(len(oom) == 1 and oom[0]["name"].startswith("out of memory: solver:results"),
               "the dump's failed allocation is an instant", str(oom))
        slices = [e for e in events if e["ph"] == "b"]
        expect(len(slices) == 3, "a slice per block, one however many snapshots list it",
               str(slices))
        big = [e for e in slices if e["args"]["size"] == 20971520]
        expect(len(big) == 1 and big[0]["args"]["call_site"].startswith("solver_factor+0x5c")
               and big[0]["name"] == "20 MiB at solver_factor"
               and big[0]["args"]["owner"] == "solver:results" and big[0]["args"]["ptr"] == "0x7f4c3a000000",
               "a block's slice has its size, owner, address and call site", str(big))
        ends = {e["id"]: e["ts"] for e in events if e["ph"] == "e"}
        expect(ends[big[0]["id"]] - big[0]["ts"] > 9.8e6,
               "the slice runs from its allocation (the age before the first snapshot) to the last")

        # Usage and bad input.
        for args, code, message in (
                ([rmm], 2, "give the format with --format perfetto"),
                (["--format", "pprof", rmm], 2, "unknown format 'pprof' (known: perfetto, memory_viz)"),
                (["--format", "perfetto"], 2, "give at least one log or snapshot file"),
                (["--format", "perfetto", rmm, snap], 2, "give logs or snapshots, not both"),
                (["--format", "perfetto", os.path.join(tmp, "none.csv")], 1, "none.csv"),
                (["--format", "perfetto", "-o", "/nonexistent/dir/t.json", rmm], 1,
                 "cannot write '/nonexistent/dir/t.json'")):
            rc, so, se = run(mrctx, *args)
            expect(rc == code and message in se, "export %s: exit %d saying %s" % (args, code, message),
                   so + se)
        bad = os.path.join(tmp, "bad.csv")
        with open(bad, "w") as f:
            f.write("Thread,Time,Action,Pointer,Size,Stream\n1,0.1,realloc,0x10,4,0\n")
        out = os.path.join(tmp, "bad.json")
        rc, so, se = run(mrctx, "--format", "perfetto", "-o", out, bad)
        expect(rc == 1 and "bad.csv:2: unknown action 'realloc'" in se and not os.path.exists(out),
               "a bad log: exit 1 naming the line, no file left", so + se)
        rc, so, se = run(mrctx, "--help")
        expect(rc == 0 and so.startswith("usage: mrctx export"), "--help")


def snapshot_doc(source, time_ns, blocks):
    """The snapshot snapshot-oom.json as asked for at time_ns, its only
    listed blocks solver:results's on device 0: (ptr, age_ns) pairs."""
    with open(os.path.join(source, "snapshot-oom.json")) as f:
        doc = json.load(f)
    doc["trigger"] = "request"
    del doc["out_of_memory"]
    doc["time_unix_ns"] = time_ns
    for ctx in doc["contexts"]:
        for tag in ctx["tags"]:
            for dev in tag["devices"]:
                if "track" in dev:
                    dev["track"]["largest"] = []
    listed = doc["contexts"][0]["tags"][1]["devices"][0]["track"]
    listed["largest"] = [{"ptr": "0x%x" % ptr, "bytes": 4096, "alignment": 256, "stream": "0x0",
                          "age_ns": age} for ptr, age in blocks]
    listed["live_count"] = len(blocks)
    listed["live_bytes"] = 4096 * len(blocks)
    return doc


def write_json(folder, name, doc):
    path = os.path.join(folder, name)
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def check_many_blocks(mrctx, source):
    """Two snapshots of 128k blocks each, the same blocks (a second older
    in the second, half of them measured 0.6 ms off): a slice per block
    from its allocation to the second snapshot. Matching the listings took
    25 s when each was compared with every block seen; unit.tools.
    export_blocks counts what it costs now. The trace is checked line by
    line (an event a line), every slice's times."""
    n = 1 << 17
    first = 1767225600 * 10**9
    later = first + 10**9
    base = 0x7f0000000000
    with tempfile.TemporaryDirectory() as tmp:
        a = write_json(tmp, "a.json", snapshot_doc(source, first,
                                                   [(base + 512 * i, 1000 * i) for i in range(n)]))
        b = write_json(tmp, "b.json", snapshot_doc(source, later, [
            (base + 512 * i, 1000 * i + 10**9 + (600000 if i % 2 else 0)) for i in range(n)]))
        out = os.path.join(tmp, "many.json")
        rc, so, se = run(mrctx, "--format", "perfetto", "-o", out, b, a)
        expect(rc == 0 and se == "", "128k blocks in two snapshots export", so + se)
        if rc != 0:
            return
        begins, ends = {}, {}
        with open(out, encoding="utf-8") as f:
            for line in f:
                line = line.rstrip().rstrip(",")
                if not line.startswith('{"name"'):
                    continue
                e = json.loads(line)
                if e["ph"] == "b":
                    begins[e["id"]] = e
                elif e["ph"] == "e":
                    ends[e["id"]] = e
        expect(len(begins) == n and set(begins) == set(ends),
               "a slice per block, begun and ended once: %d and %d of %d" % (len(begins), len(ends), n))
        origin = first - 1000 * (n - 1)
        wrong = []
        for i, e in begins.items():
            ptr = int(e["args"]["ptr"], 16)
            k = (ptr - base) // 512
            born_us = (first - 1000 * k - origin) / 1e3
            if abs(e["ts"] - born_us) > 0.002 or abs(ends[i]["ts"] - (later - origin) / 1e3) > 0.002:
                wrong.append((e, ends[i]))
        expect(not wrong, "each slice from its allocation to the later snapshot", str(wrong[:2]))


def check_extreme_times(mrctx, source):
    """Times at the ends of what a snapshot holds (unsigned nanoseconds:
    2^63 and 2^64 - 1, a block allocated at 0) export, without a
    sanitizer's word (the times were once differences of int64_t, which
    overflowed); a block older than 1970 and negative times are refused,
    naming the file."""
    top, half = 2**64 - 1, 2**63
    with tempfile.TemporaryDirectory() as tmp:
        snaps = [write_json(tmp, "s1.json", snapshot_doc(source, 1, [])),
                 write_json(tmp, "s2.json", snapshot_doc(source, half, [(0x1000, 1), (0x2000, half)])),
                 write_json(tmp, "s3.json", snapshot_doc(source, top, [(0x1000, half), (0x3000, 0)]))]
        out = os.path.join(tmp, "extreme.json")
        rc, so, se = run(mrctx, "--format", "perfetto", "-o", out, *snaps)
        expect(rc == 0 and se == "", "snapshots at 2^63 and 2^64 - 1 ns export", so + se)
        if rc == 0:
            events = check_trace(out, "extreme snapshot times")
            begins = {e["args"]["ptr"]: e for e in events if e["ph"] == "b"}
            ends = {e["id"]: e["ts"] for e in events if e["ph"] == "e"}
            got = {p: (e["ts"], ends[e["id"]]) for p, e in begins.items()}
            wanted = {"0x1000": ((half - 1) / 1e3, top / 1e3), "0x2000": (0.0, half / 1e3),
                      "0x3000": (top / 1e3, top / 1e3)}
            expect(got.keys() == wanted.keys() and
                   all(abs(got[p][k] - wanted[p][k]) <= 1e-12 * top for p in got for k in (0, 1)),
                   "slices at the ends of time: time 0 is the block allocated at 0",
                   "%s\n%s" % (got, wanted))
            counters = sorted({e["ts"] for e in events if e["ph"] == "C"})
            expect(len(counters) == 3 and counters[0] == 0.001 and counters[2] == top / 1e3,
                   "counters at 1 ns, 2^63 ns and 2^64 - 1 ns", str(counters))
        old = write_json(tmp, "old.json", snapshot_doc(source, half - 1, [(0x1000, half)]))
        out = os.path.join(tmp, "old-out.json")
        rc, so, se = run(mrctx, "--format", "perfetto", "-o", out, snaps[0], old)
        expect(rc == 1 and se == "mrctx export: %s: the block at 0x1000 of solver:results on device 0 "
               "is 9223372036854775808 ns old, more than the snapshot's time_unix_ns "
               "9223372036854775807 (allocated before 1970): a damaged snapshot?\n" % old
               and not os.path.exists(out), "a block allocated before 1970 is refused", so + se)
        for name, time_ns, age in (("negative-time", -1, 0), ("int64-min-time", -2**63, 0),
                                   ("negative-age", half, -2**63)):
            bad = write_json(tmp, name + ".json", snapshot_doc(source, time_ns, [(0x1000, age)]))
            rc, so, se = run(mrctx, "--format", "perfetto", "-o", out, bad)
            expect(rc == 1 and se.startswith("mrctx export: %s: not a snapshot: " % bad)
                   and "runtime error" not in se, "%s: refused as no snapshot" % name, so + se)
        # Logs: times in seconds up to 2^64 - 1, and a log that starts at 0.
        late = os.path.join(tmp, "late.csv")
        with open(late, "w") as f:
            f.write("Thread,Time,Action,Pointer,Size,Stream\n"
                    "1,18446744073709551615.999999,allocate,0x10,18446744073709551615,0\n"
                    "1,18446744073709551615.999999,free,0x10,18446744073709551615,0\n")
        early = os.path.join(tmp, "early.csv")
        with open(early, "w") as f:
            f.write("Thread,Time,Action,Pointer,Size,Stream\n1,0.0,allocate,0x10,1,0\n")
        out = os.path.join(tmp, "logs.json")
        rc, so, se = run(mrctx, "--format", "perfetto", "-o", out, late, early)
        expect(rc == 0 and se == "", "logs at 0 s and 2^64 - 1 s export", so + se)
        if rc == 0:
            events = check_trace(out, "extreme log times")
            expect(max(e["ts"] for e in events if e["ph"] != "M") > 1.8e25,
                   "the late log's events at 2^64 s")


def check_fake(mrctx, source, workload):
    with tempfile.TemporaryDirectory() as tmp:
        p = subprocess.run([workload, "host", tmp], capture_output=True, text=True, timeout=120)
        expect(p.returncode == 0, "replay_workload records its logs", p.stdout + p.stderr)
        temp = os.path.join(tmp, "mylib-temp.csv")
        result = os.path.join(tmp, "mylib-result.csv")
        out = os.path.join(tmp, "example.json")
        rc, so, se = run(mrctx, "--format", "perfetto", "-o", out, "mylib:temp=" + temp,
                         "mylib:result=" + result)
        expect(rc == 0, "the replay example exports", so + se)
        events = check_trace(out, "the replay example")
        check_log_counters(events, 1, temp, "mylib:temp")
        check_log_counters(events, 2, result, "mylib:result")
        done = json.loads(p.stdout)
        for pid, tag in ((1, "temp"), (2, "result")):
            peak = max(e["args"]["bytes"] for e in events if e["ph"] == "C" and e["pid"] == pid)
            expect(peak == done[tag]["peak"], "mylib:%s's counter peaks where the workload did" % tag,
                   "%d vs %s" % (peak, done[tag]))


def main():
    mode, mrctx, source = sys.argv[1], sys.argv[2], sys.argv[3]
    if mode == "unit":
        check_unit(mrctx, source)
        check_extreme_times(mrctx, source)
    elif mode == "many":
        check_many_blocks(mrctx, source)
    else:
        check_fake(mrctx, source, sys.argv[4])
    for f in failures:
        print("FAIL: " + f)
    print("%d passed, %d failed" % (passed, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
