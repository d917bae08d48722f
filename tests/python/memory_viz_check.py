"""What PyTorch's memory_viz reads of a snapshot pickle, checked without
PyTorch: the fields torch/cuda/_memory_viz.py's functions (segments,
memory, segsum, trace, trace_plot, segment_plot) and the page's
MemoryViz.js read, of the types they use them as, and the pickle opcodes
the page's own unpickler knows.

    problems(data: bytes) -> list of str   (empty: memory_viz opens it)

Mirrored from PyTorch's reader (torch 2.x):

- the pickle: the page's unpickler (MemoryViz.js, unpickle) knows PROTO 2
  to 4 and a fixed set of opcodes, and spreads an APPENDS or SETITEMS
  batch into one call's arguments (so a batch is at most 1000 entries, as
  Python's pickler writes them);
- "segments": each has device, address, total_size, allocated_size (trace),
  stream, blocks; a block's address is the segment's plus the sizes before
  it (the page computes it so), so the blocks tile the segment (segsum
  asserts their sizes add up to total_size); each block has size, state,
  and, as _block_extra reads a block with "frames", requested_size;
  frames are dicts of filename (str), line (int), name (str);
- "device_traces": a list per device of entries with action, addr, size,
  stream, frames ("oom": device_free, and no addr in PyTorch's own); the page pairs alloc with
  free_completed by address, and its segment view walks the trace back
  from the segments' state, so every live block lies in a live segment at
  every step; where any entry has a "category", one must be "unknown"
  (the page's annotate_snapshot misspells its list's name otherwise);
- numbers the page takes as JavaScript numbers: integers below 2**63
  (LONG1 of at most 8 bytes), and exact below 2**53.
"""

import pickle
import pickletools

ACTIONS = {"alloc", "free_requested", "free_completed", "segment_alloc", "segment_free",
           "segment_map", "segment_unmap", "snapshot", "oom"}
STATES = {"active_allocated", "active_pending_free", "inactive"}
# The opcodes MemoryViz.js's unpickler handles.
JS_OPCODES = {"PROTO", "APPEND", "APPENDS", "LIST", "TUPLE", "NEWFALSE", "NEWTRUE", "NONE",
              "BINGET", "BININT", "BININT1", "BININT2", "EMPTY_DICT", "EMPTY_LIST", "FRAME",
              "LONG1", "LONG_BINGET", "MARK", "MEMOIZE", "BINPUT", "LONG_BINPUT", "SETITEMS",
              "SETITEM", "DICT", "SHORT_BINUNICODE", "BINUNICODE", "STOP", "EMPTY_TUPLE",
              "TUPLE1", "TUPLE2", "TUPLE3", "BINFLOAT"}
PUSHES = {"BININT", "BININT1", "BININT2", "LONG1", "NEWTRUE", "NEWFALSE", "NONE", "BINUNICODE",
          "SHORT_BINUNICODE", "EMPTY_DICT", "EMPTY_LIST", "EMPTY_TUPLE", "BINFLOAT", "BINGET",
          "LONG_BINGET"}


def opcode_problems(data, numbers=True):
    """Opcodes the page does not know, and batches larger than it can
    spread into one call; with ``numbers``, integers it cannot read as
    numbers."""
    found = []
    depth, marks = 0, []
    for op, arg, _pos in pickletools.genops(data):
        name = op.name
        if name not in JS_OPCODES:
            found.append(f"opcode {name} is not one MemoryViz.js reads")
            continue
        if name == "PROTO" and not 2 <= arg <= 4:
            found.append(f"protocol {arg}: MemoryViz.js reads 2 to 4")
        if numbers and name == "LONG1" and not -2**63 <= arg < 2**63:
            found.append(f"integer {arg}: past what the page reads as a number")
        if name in PUSHES:
            depth += 1
        elif name == "MARK":
            marks.append(depth)
        elif name in ("APPENDS", "SETITEMS"):
            mark = marks.pop()
            batch = depth - mark
            limit = 1000 if name == "APPENDS" else 2000
            if batch > limit:
                found.append(f"{name} of {batch} values: the page spreads a batch into one call")
            depth = mark
        elif name in ("TUPLE", "LIST", "DICT"):
            depth = marks.pop() + 1
        elif name in ("TUPLE2", "TUPLE3"):
            depth -= int(name[-1]) - 1
        elif name in ("APPEND",):
            depth -= 1
        elif name == "SETITEM":
            depth -= 2
    return found


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool) and -2**63 <= v < 2**63


def frame_problems(frames, where):
    if not isinstance(frames, list):
        return [f"{where}: frames is not a list"]
    found = []
    for f in frames:
        if not (isinstance(f, dict) and isinstance(f.get("filename"), str)
                and _is_int(f.get("line")) and isinstance(f.get("name"), str)):
            found.append(f"{where}: frame {f!r} lacks filename (str), line (int), name (str)")
    return found


def structure_problems(snap):
    found = []
    if not isinstance(snap, dict):
        return ["not a dict"]
    segments, traces = snap.get("segments"), snap.get("device_traces")
    if not isinstance(segments, list):
        return ["no segments list"]
    if not (isinstance(traces, list) and all(isinstance(t, list) for t in traces)):
        return ["no device_traces list of lists"]
    for i, seg in enumerate(segments):
        where = f"segments[{i}]"
        for key in ("device", "address", "total_size", "allocated_size", "active_size",
                    "requested_size", "stream"):
            if not _is_int(seg.get(key)):
                found.append(f"{where}: {key} is not an int")
        if not isinstance(seg.get("blocks"), list) or not seg["blocks"]:
            found.append(f"{where}: no blocks")
            continue
        if seg.get("segment_type") not in ("small", "large"):
            found.append(f"{where}: segment_type {seg.get('segment_type')!r}")
        pool = seg.get("segment_pool_id")
        if not (isinstance(pool, tuple) and len(pool) == 2 and all(map(_is_int, pool))):
            found.append(f"{where}: segment_pool_id {pool!r} is not a pair of ints")
        found += frame_problems(seg.get("frames", []), where)
        if not _is_int(seg.get("device")) or not 0 <= seg["device"] < len(traces):
            found.append(f"{where}: device {seg.get('device')} has no trace")
        address = seg.get("address", 0)
        total = 0
        for j, b in enumerate(seg["blocks"]):
            bw = f"{where}.blocks[{j}]"
            if not _is_int(b.get("size")) or b.get("state") not in STATES:
                found.append(f"{bw}: size or state missing")
                continue
            if "address" in b and b["address"] != address + total:
                found.append(f"{bw}: address {b['address']:#x} is not where the blocks before "
                             f"it end ({address + total:#x})")
            if "frames" in b:
                if not _is_int(b.get("requested_size")) or b["requested_size"] > b["size"]:
                    found.append(f"{bw}: requested_size missing or more than size")
                found += frame_problems(b["frames"], bw)
            total += b["size"]
        if total != seg.get("total_size"):
            found.append(f"{where}: blocks add up to {total}, not total_size "
                         f"{seg.get('total_size')} (segsum asserts it)")
    categories = set()
    for d, trace in enumerate(traces):
        for k, e in enumerate(trace):
            where = f"device_traces[{d}][{k}]"
            if e.get("action") not in ACTIONS:
                found.append(f"{where}: action {e.get('action')!r}")
                continue
            # PyTorch writes no addr for an oom (its _snapshot's TraceEntry:
            # "addr: int  # not present for OOM"), device_free instead.
            for key in ("size", "stream") if e["action"] == "oom" else ("addr", "size", "stream"):
                if not _is_int(e.get(key)):
                    found.append(f"{where}: {key} is not an int")
            if "time_us" in e and not _is_int(e["time_us"]):
                found.append(f"{where}: time_us is not an int")
            if e["action"] == "oom" and not _is_int(e.get("device_free")):
                found.append(f"{where}: an oom without device_free")
            found += frame_problems(e.get("frames", []), where)
            if "category" in e:
                categories.add(e["category"])
    if categories and "unknown" not in categories:
        found.append("categories without 'unknown': MemoryViz.js's annotate_snapshot fails")
    return found


def timeline_problems(snap):
    """Each device's trace played forward from the segments that have no
    segment_alloc in it: every alloc inside a live segment and not live
    already, every free of a live block, and at the end the state the
    segments show (the page's segment view walks back from it)."""
    found = []
    for d, trace in enumerate(snap["device_traces"]):
        final = [s for s in snap["segments"] if s["device"] == d]
        made = {e["addr"] for e in trace if e["action"] == "segment_alloc"}
        segs = {s["address"]: s["total_size"] for s in final if s["address"] not in made}
        blocks = {}
        for s in final:
            if s["address"] in made:
                continue
            address = s["address"]
            for b in s["blocks"]:
                if b["state"] != "inactive":
                    blocks[address] = b["size"]
                address += b["size"]
        for k, e in enumerate(trace):
            if e["action"] == "oom":
                continue
            where = f"device_traces[{d}][{k}] {e['action']} {e['addr']:#x}"
            a, n = e["addr"], e["size"]
            if e["action"] == "segment_alloc":
                if a in segs:
                    found.append(f"{where}: the segment is live already")
                segs[a] = n
            elif e["action"] == "segment_free":
                if segs.pop(a, None) != n:
                    found.append(f"{where}: no live segment of {n} bytes there")
                if any(a <= b < a + n for b in blocks):
                    found.append(f"{where}: a block in it is still live")
            elif e["action"] == "alloc":
                if a in blocks:
                    found.append(f"{where}: the block is live already")
                if not any(s <= a and a + n <= s + size for s, size in segs.items()):
                    found.append(f"{where}: in no live segment (the page's segment view fails)")
                blocks[a] = n
            elif e["action"] == "free_completed":
                if blocks.pop(a, None) != n:
                    found.append(f"{where}: no live block of {n} bytes there")
        want_segs = {s["address"]: s["total_size"] for s in final}
        if segs != want_segs:
            found.append(f"device {d}: the trace ends with segments {sorted(segs)}, "
                         f"the snapshot shows {sorted(want_segs)}")
    return found


def problems(data):
    """Everything above, for the pickle's bytes."""
    found = opcode_problems(data)
    snap = pickle.loads(data)
    found += structure_problems(snap)
    if not found:
        found += timeline_problems(snap)
    return found


def owners(snap):
    """{pool id: "library:tag"} from allocator_settings["pools"], and each
    segment's owner as its last frame names it."""
    pools = {p["segment_pool_id"]: p["name"] for p in snap["allocator_settings"]["pools"]}
    return pools, [s["frames"][-1]["name"] for s in snap["segments"]]
