#!/usr/bin/env python3
"""Run `mrctx export --format memory_viz` on snapshots and logs and check
that what it writes is a snapshot PyTorch's memory_viz opens (the checks of
tests/python/memory_viz_check.py: the fields torch.cuda._memory_viz and
the page read, the pickle opcodes the page's unpickler knows) and that it
shows what the inputs hold.

usage: check_memory_viz.py pickle PROGRAM
       check_memory_viz.py unit MRCTX SOURCE_DIR

pickle: memory_viz_pickle (the pickle writer on edge values) read back
with Python's pickle.
unit: snapshot-oom.json, a copy with call sites, a damaged one, the logs
rmm-format.csv and threads.csv, and bad usage.
"""
import json
import os
import pickle
import pty
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import memory_viz_check  # noqa: E402

failures = []
passed = 0


def expect(condition, what, output=""):
    global passed
    if condition:
        passed += 1
    else:
        failures.append(what + ("\n--- output ---\n" + str(output) if output else ""))


def run(mrctx, *args, **kwargs):
    p = subprocess.run([mrctx, "export", *args], capture_output=True, text=True, timeout=120,
                       **kwargs)
    return p.returncode, p.stdout, p.stderr


def load(path, what):
    with open(path, "rb") as f:
        data = f.read()
    found = memory_viz_check.problems(data)
    expect(not found, what + ": memory_viz opens it", "\n".join(found))
    return pickle.loads(data)


def check_pickle(program):
    p = subprocess.run([program], capture_output=True, timeout=60)
    expect(p.returncode == 0, "memory_viz_pickle: every misuse refused", p.stderr.decode())
    # Integers of 2**63 and more are written (Python reads them; the page
    # would take them as BigInt): mrctx writes none in memory_viz's files.
    found = memory_viz_check.opcode_problems(p.stdout, numbers=False)
    expect(not found, "the pickle keeps to the page's opcodes and batches", "\n".join(found))
    expect(len(memory_viz_check.opcode_problems(p.stdout)) == 2,
           "the checker sees the two integers past 2**63 - 1")
    got = pickle.loads(p.stdout)
    want = {
        "ints": [0, 1, 255, 256, 65535, 65536, 2**31 - 1, -1, -255, -2**31, -2**31 - 1,
                 2**63 - 1, -2**63],
        "uints": [2**31, 2**32 - 1, 2**32, 2**55 + 3, 2**63, 2**64 - 1],
        "strings": ["", "", "solver:results", "caf\u00e9", "bad\ufffdbyte", "cut\ufffd\ufffd",
                    "surrogate\ufffd\ufffd\ufffd", "abc"],
        "list": list(range(2500)),
        "dict": {f"k{i}": i for i in range(2100)},
        "exactly_1000": [None] * 1000,
        "tuple": (0, 7),
        "empty": [],
        "empty_dict": {},
        "true": True,
        "false": False,
        "none": None,
    }
    for key, value in want.items():
        expect(got.get(key) == value and type(got.get(key)) is type(value),
               f"pickle: {key} reads back as written", repr(got.get(key))[:300])
    expect(set(got) == set(want), "pickle: nothing else", sorted(got))


def oom_snapshot(source):
    with open(os.path.join(source, "snapshot-oom.json")) as f:
        return json.load(f)


def tracked(doc):
    """(library:tag, device, block) of every listed block."""
    for ctx in doc["contexts"]:
        for tag in ctx["tags"]:
            for dev in tag["devices"]:
                for block in dev.get("track", {}).get("largest", []):
                    yield f"{ctx['library']}:{tag['tag']}", dev["device"], block


def check_snapshots(mrctx, source, tmp):
    snap = os.path.join(source, "snapshot-oom.json")
    doc = oom_snapshot(source)
    out = os.path.join(tmp, "oom.pickle")
    rc, so, se = run(mrctx, "--format", "memory_viz", "-o", out, snap)
    expect(rc == 0 and so == f"mrctx export: wrote {out} (memory_viz)\n", "snapshot export",
           so + se)
    viz = load(out, "the out-of-memory dump")
    blocks = list(tracked(doc))
    segs = viz["segments"]
    expect(sorted((s["address"], s["total_size"]) for s in segs)
           == sorted((int(b["ptr"], 16), b["bytes"]) for _, _, b in blocks),
           "a segment per listed block, at its address and of its size", segs)
    expect(all(len(s["blocks"]) == 1 and s["blocks"][0]["state"] == "active_allocated"
               for s in segs), "each segment holds its one block, allocated")
    pools, seg_owners = memory_viz_check.owners(viz)
    expect(pools == {(0, 1): "solver:results"} and set(seg_owners) == {"solver:results"}
           and all(s["segment_pool_id"] == (0, 1) for s in segs),
           "solver:results is pool (0, 1), named in allocator_settings and the frames",
           (pools, seg_owners))
    expect(len(viz["device_traces"]) == 1,
           "a trace per device up to the highest a block or failure names", viz["device_traces"])
    trace = viz["device_traces"][0]
    allocs = [e for e in trace if e["action"] == "alloc"]
    now_us = doc["time_unix_ns"] // 1000
    expect([e["time_us"] for e in allocs]
           == sorted((doc["time_unix_ns"] - b["age_ns"]) // 1000 for _, _, b in blocks)
           and [e["size"] for e in allocs] == [20971520, 3145728, 256],
           "an allocation per block at the snapshot's time less its age, oldest first", allocs)
    expect(all(e["category"] == "solver:results" and e["user_metadata"] == "solver:results"
               for e in allocs), "the owner is each allocation's category")
    ooms = [e for e in trace if e["action"] == "oom"]
    expect(len(ooms) == 1 and ooms[0]["size"] == 41943040 and ooms[0]["device_free"] == 25165824
           and ooms[0]["time_us"] == now_us,
           "the dump's failed allocation is an oom with the device's free memory", ooms)
    expect(trace[-1]["action"] == "snapshot" and trace[-1]["time_us"] == now_us
           and trace[-1]["category"] == "unknown", "the trace ends with the snapshot marker")
    expect(viz["allocator_settings"]["source"] == "mrctx snapshot of pid 4242 (out of memory)",
           "allocator_settings says where it came from", viz["allocator_settings"])

    # Call sites: named frames as PyTorch's, the owner outermost.
    for _, _, block in tracked(doc):
        block["frames"] = ["load (/home/me/a (b):c/train.py:41)",
                           "<module> (train.py:7)",
                           "solver_factor+0x5c (/usr/lib/lib (v2)/libsolver.so)",
                           "libapp.so+0x9e", "main+0x9e (/usr/bin/app)"]
    doc["contexts"][0]["library"] = "sol\u00e9ver"
    sited = os.path.join(tmp, "sited.json")
    with open(sited, "w", encoding="utf-8") as f:
        json.dump(doc, f)
    out = os.path.join(tmp, "sited.pickle")
    rc, so, se = run(mrctx, "--format", "memory_viz", "-o", out, sited)
    expect(rc == 0, "snapshot with call sites", so + se)
    viz = load(out, "call sites")
    # Python lines (a frame source's "function (file:line)") keep their
    # file and line, as PyTorch writes its own.
    want = [{"filename": "/home/me/a (b):c/train.py", "line": 41, "name": "load"},
            {"filename": "train.py", "line": 7, "name": "<module>"},
            {"filename": "/usr/lib/lib (v2)/libsolver.so", "line": 0, "name": "solver_factor+0x5c"},
            {"filename": "libapp.so", "line": 0, "name": "libapp.so+0x9e"},
            {"filename": "/usr/bin/app", "line": 0, "name": "main+0x9e"},
            {"filename": "mrctx", "line": 0, "name": "sol\u00e9ver:results"}]
    expect(all(s["blocks"][0]["frames"] == want for s in viz["segments"]),
           "a block's frames: its call site, innermost first, then its owner",
           viz["segments"][0]["blocks"][0]["frames"])
    expect(all(e["frames"] == want for e in viz["device_traces"][0] if e["action"] == "alloc"),
           "an allocation's frames are its block's")

    # Nothing tracked: a file memory_viz opens, with no segments.
    for ctx in doc["contexts"]:
        for tag in ctx["tags"]:
            for dev in tag["devices"]:
                dev.pop("track", None)
    bare = os.path.join(tmp, "bare.json")
    with open(bare, "w", encoding="utf-8") as f:
        json.dump(doc, f)
    out = os.path.join(tmp, "bare.pickle")
    rc, so, se = run(mrctx, "--format", "memory_viz", "-o", out, bare)
    expect(rc == 0, "a snapshot without track(...)", so + se)
    viz = load(out, "nothing tracked")
    expect(viz["segments"] == [] and viz["allocator_settings"]["pools"] == [],
           "no blocks, no segments, no pools", viz)

    # A block older than its snapshot: refused, no file left.
    doc = oom_snapshot(source)
    _, _, first = next(tracked(doc))
    first["age_ns"] = doc["time_unix_ns"] + 1
    damaged = os.path.join(tmp, "damaged.json")
    with open(damaged, "w") as f:
        json.dump(doc, f)
    out = os.path.join(tmp, "damaged.pickle")
    rc, so, se = run(mrctx, "--format", "memory_viz", "-o", out, damaged)
    expect(rc == 1 and "damaged.json: mr_snapshot_write_memory_viz: the block at 0x7f4c3a000000 "
           "of solver:results on device 0" in se and "allocated before 1970" in se
           and not os.path.exists(out), "a damaged snapshot: exit 1 naming the block", so + se)


def check_logs(mrctx, source, tmp):
    rmm = os.path.join(source, "rmm-format.csv")
    threads = os.path.join(source, "threads.csv")
    out = os.path.join(tmp, "logs.pickle")
    rc, so, se = run(mrctx, "--format", "memory_viz", "-o", out, "a:temp@1=" + rmm,
                     "b:result=" + threads)
    expect(rc == 0, "logs export", so + se)
    viz = load(out, "two logs")
    pools, _ = memory_viz_check.owners(viz)
    expect(pools == {(0, 1): "a:temp", (0, 2): "b:result"}, "each log a pool named NAME", pools)
    t0, t1 = viz["device_traces"]
    expect({e.get("category") for e in t1} == {"a:temp", "unknown", None}
           and {e.get("category") for e in t0} == {"b:result", "unknown"},
           "NAME@1 puts a log on device 1, a NAME without @ on device 0")
    for trace, path, what in ((t1, rmm, "rmm-format.csv"), (t0, threads, "threads.csv")):
        with open(path) as f:
            lines = [line.split(",") for line in f.read().splitlines()[1:]]
        want = [(action, int(ptr, 16) if ptr != "(nil)" else 0, int(size))
                for _, _, action, ptr, size, _ in lines if int(size) > 0]
        got = [(e["action"], e["addr"], e["size"]) for e in trace
               if e["action"] in ("alloc", "free_completed", "oom")]
        got = [("allocate" if a == "alloc" else "free" if a == "free_completed"
                else "allocate failure", addr if a != "oom" else 0, size)
               for a, addr, size in got]
        expect(got == want, what + ": every allocation, free and failure, in order", got)
        times = [e["time_us"] for e in trace]
        expect(times == sorted(times), what + ": times never go back")
    # threads.csv ends with every block freed, rmm-format.csv with the
    # second 1 MiB at 0x7f8a40000000 live.
    expect([(s["device"], s["address"], s["total_size"], s["segment_pool_id"])
            for s in viz["segments"]] == [(1, 0x7f8a40000000, 1 << 20, (0, 1))],
           "the blocks live at the end of the logs are the segments", viz["segments"])
    oom = [e for e in t1 if e["action"] == "oom"]
    expect(len(oom) == 1 and oom[0]["size"] == 4294967296 and oom[0]["device_free"] == 0
           and oom[0]["stream"] == 0x7f8a38001020, "a failed allocation is an oom", oom)

    # A log that ends with blocks live: they are the segments.
    live = os.path.join(tmp, "live.csv")
    with open(live, "w") as f:
        f.write("Thread,Time,Action,Pointer,Size,Stream\n1,1.0,allocate,0x10000,4096,0x5\n"
                "1,1.5,allocate,0x20000,8192,0x5\n1,2.0,free,0x10000,4096,0x5\n")
    out = os.path.join(tmp, "live.pickle")
    rc, so, se = run(mrctx, "--format", "memory_viz", "-o", out, live)
    expect(rc == 0, "a log with a block live at its end", so + se)
    viz = load(out, "a block live at the end")
    expect([(s["address"], s["total_size"], s["stream"], s["frames"][-1]["name"])
            for s in viz["segments"]] == [(0x20000, 8192, 5, "live")],
           "the block live at the end is the segment, owned by the file's name", viz["segments"])
    expect([e["time_us"] for e in viz["device_traces"][0]] == [0, 0, 500000, 500000, 1000000,
                                                                1000000, 1000000, 1000000],
           "times in microseconds from the first event", viz["device_traces"][0])

    bad = os.path.join(tmp, "bad.csv")
    with open(bad, "w") as f:
        f.write("Thread,Time,Action,Pointer,Size,Stream\n1,0.1,realloc,0x10,4,0\n")
    out = os.path.join(tmp, "bad.pickle")
    rc, so, se = run(mrctx, "--format", "memory_viz", "-o", out, bad)
    expect(rc == 1 and "bad.csv:2: unknown action 'realloc'" in se and not os.path.exists(out),
           "a bad log: exit 1 naming the line, no file left", so + se)
    rc, so, se = run(mrctx, "--format", "memory_viz", "--skip-bad", "-o", out, bad, live)
    expect(rc == 0 and "skipped 1 bad lines" in se, "--skip-bad", so + se)


def check_usage(mrctx, source, tmp):
    snap = os.path.join(source, "snapshot-oom.json")
    rmm = os.path.join(source, "rmm-format.csv")
    out = os.path.join(tmp, "usage.pickle")
    for args, code, message in (
            (["--format", "pprof", rmm], 2, "unknown format 'pprof' (known: perfetto, memory_viz)"),
            ([rmm], 2, "give the format with --format perfetto or --format memory_viz"),
            (["--format", "memory_viz", "-o", out, snap, snap], 2,
             "memory_viz shows one allocator state: give one snapshot file"),
            (["--format", "memory_viz", "-o", out, rmm, snap], 2, "give logs or snapshots"),
            (["--format", "memory_viz", "-o", out, os.path.join(tmp, "none.json")], 1,
             "none.json"),
            (["--format", "memory_viz", "-o", "/nonexistent/dir/v.pickle", snap], 1,
             "cannot write '/nonexistent/dir/v.pickle'")):
        rc, so, se = run(mrctx, *args)
        expect(rc == code and message in se, "export %s: exit %d saying %s" % (args, code, message),
               so + se)
    # Standard output: a pipe takes the pickle, a terminal is refused.
    p = subprocess.run([mrctx, "export", "--format", "memory_viz", snap], capture_output=True,
                       timeout=60)
    expect(p.returncode == 0 and not memory_viz_check.problems(p.stdout),
           "memory_viz to a pipe", p.stderr)
    controller, terminal = pty.openpty()
    try:
        p = subprocess.run([mrctx, "export", "--format", "memory_viz", snap], stdout=terminal,
                           stderr=subprocess.PIPE, timeout=60)
    finally:
        os.close(terminal)
        os.close(controller)
    expect(p.returncode == 2 and b"memory_viz is a binary file: give -o FILE" in p.stderr,
           "memory_viz to a terminal is refused", p.stderr)
    rc, so, se = run(mrctx, "--help")
    expect(rc == 0 and "--format memory_viz" in so and "pytorch.org/memory_viz" in so,
           "--help names memory_viz", so)


def main():
    mode = sys.argv[1]
    if mode == "pickle":
        check_pickle(sys.argv[2])
    else:
        mrctx, source = sys.argv[2], sys.argv[3]
        with tempfile.TemporaryDirectory() as tmp:
            check_snapshots(mrctx, source, tmp)
            check_logs(mrctx, source, tmp)
            check_usage(mrctx, source, tmp)
    for f in failures:
        print("FAIL:", f)
    print(f"{passed} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
