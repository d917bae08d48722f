#!/usr/bin/env python3
"""Draw a trace that `mrctx export --format perfetto` wrote as an SVG
timeline, laid out as Perfetto's UI lays the same file out: per process,
its counter track (the bytes live, a step chart), then its allocation
slices packed into lanes, each slice a bar from allocation to free with its
name; failed allocations as red ticks. For the documentation's picture
(docs/images/perfetto-example.svg), where no browser can load the UI.

usage: trace_picture.py TRACE.json OUT.svg [TITLE]
"""
import html
import json
import sys

WIDTH, LEFT, RIGHT = 1200, 170, 20
COUNTER_H, LANE_H, GAP = 70, 14, 18
COLOURS = ["#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2", "#edc948"]


def human(n):
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return ("%d %s" % (n, unit)) if unit == "B" or n == int(n) else "%.1f %s" % (n, unit)
        n /= 1024.0


def main():
    trace, out = sys.argv[1], sys.argv[2]
    title = sys.argv[3] if len(sys.argv) > 3 else "mrctx export --format perfetto"
    events = json.load(open(trace))["traceEvents"]
    names = {e["pid"]: e["args"]["name"] for e in events if e["ph"] == "M"}
    timed = [e for e in events if e["ph"] != "M"]
    t0 = min(e["ts"] for e in timed)
    t1 = max(e["ts"] for e in timed)
    span = (t1 - t0) or 1.0
    x = lambda ts: LEFT + (ts - t0) / span * (WIDTH - LEFT - RIGHT)
    parts, y = [], 60
    for n, pid in enumerate(sorted(names)):
        colour = COLOURS[n % len(COLOURS)]
        mine = [e for e in timed if e["pid"] == pid]
        counter = [e for e in mine if e["ph"] == "C"]
        peak = max((e["args"]["bytes"] for e in counter), default=0) or 1
        parts.append('<text x="10" y="%d" class="proc">%s</text>' % (y + 14, html.escape(names[pid])))
        y += 22
        # The counter track: a step chart of the bytes live.
        parts.append('<text x="10" y="%d" class="label">bytes live</text>' % (y + 14))
        parts.append('<text x="10" y="%d" class="small">peak %s</text>' % (y + 30, human(peak)))
        points, level = ["%.1f,%.1f" % (x(t0), y + COUNTER_H)], y + COUNTER_H
        for e in counter:
            nxt = y + COUNTER_H - e["args"]["bytes"] / peak * (COUNTER_H - 6)
            points.append("%.1f,%.1f" % (x(e["ts"]), level))
            points.append("%.1f,%.1f" % (x(e["ts"]), nxt))
            level = nxt
        points.append("%.1f,%.1f" % (x(t1), level))
        points.append("%.1f,%.1f" % (x(t1), y + COUNTER_H))
        parts.append('<polygon points="%s" fill="%s" fill-opacity="0.35" stroke="%s"/>'
                     % (" ".join(points), colour, colour))
        y += COUNTER_H + 6
        # The slices, packed into lanes as a viewer packs async slices.
        ends = {e["id"]: e["ts"] for e in mine if e["ph"] == "e"}
        lanes = []
        for e in (e for e in mine if e["ph"] == "b"):
            end = ends.get(e["id"], t1)
            lane = next((i for i, free_at in enumerate(lanes) if free_at <= e["ts"]), len(lanes))
            if lane == len(lanes):
                lanes.append(0)
            lanes[lane] = end
            ly = y + lane * LANE_H
            w = max(x(end) - x(e["ts"]), 1.0)
            tip = "%s: %s" % (e["name"], json.dumps(e.get("args", {})))
            parts.append('<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s" stroke="white" '
                         'stroke-width="0.5"><title>%s</title></rect>'
                         % (x(e["ts"]), ly, w, LANE_H - 2, colour, html.escape(tip)))
            if w > 46:
                parts.append('<text x="%.1f" y="%d" class="slice">%s</text>'
                             % (x(e["ts"]) + 3, ly + LANE_H - 4, html.escape(e["name"])))
        parts.append('<text x="10" y="%d" class="label">allocations</text>' % (y + 11))
        y += max(len(lanes), 1) * LANE_H
        for e in (e for e in mine if e["ph"] == "i"):
            parts.append('<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="#d62728" stroke-width="2">'
                         '<title>%s</title></line>' % (x(e["ts"]), x(e["ts"]), y + 2, y + 12,
                                                       html.escape(e["name"])))
        y += GAP + 12
    # The time axis.
    unit, scale = ("ms", 1e3) if span < 5e6 else ("s", 1e6)
    for i in range(11):
        ts = t0 + span * i / 10
        parts.append('<line x1="%.1f" x2="%.1f" y1="50" y2="%d" stroke="#ddd"/>' % (x(ts), x(ts), y))
        parts.append('<text x="%.1f" y="%d" class="small" text-anchor="middle">%.0f %s</text>'
                     % (x(ts), y + 14, (ts - t0) / scale, unit))
    height = y + 30
    svg = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d">'
           % (WIDTH, height, WIDTH, height),
           '<style>text{font-family:sans-serif;fill:#222}.proc{font-size:14px;font-weight:bold}'
           '.label{font-size:12px}.small{font-size:10px;fill:#555}.slice{font-size:9px;fill:white}'
           '.title{font-size:16px;font-weight:bold}</style>',
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="10" y="28" class="title">%s</text>' % html.escape(title)]
    # Grid first, so the tracks draw over it.
    grid = [p for p in parts if p.startswith("<line") and 'stroke="#ddd"' in p]
    rest = [p for p in parts if p not in grid]
    open(out, "w").write("\n".join(svg + grid + rest + ["</svg>"]) + "\n")


if __name__ == "__main__":
    main()
