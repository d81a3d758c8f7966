#!/usr/bin/env python3
"""Checks a trace written by `pipescope export` the way Perfetto would read it.

    scripts/check-trace.py app.json

Parses the file with Python's strict JSON parser (NaN and Infinity refused), then lays
out every thread track as Perfetto's trace processor does: events sorted by timestamp
(file order among equals), one stack of open slices per track; a complete slice that
starts inside another and ends after it would be dropped
(`slice_drop_overlapping_complete_event`); flow events bind to the slice on top of the
stack. Prints a summary and every problem; exits 1 if there is one.

Perfetto's own trace_processor is not used: it is a prebuilt binary that its Python
package downloads when first run, which this project's machines cannot do.
"""
import collections
import json
import sys


def refuse(constant):
    raise ValueError(f"{constant} is not JSON")


def nanos(value):
    return round(float(value) * 1000)


def check(path):
    with open(path, "rb") as f:
        document = json.loads(f.read().decode("utf-8"), parse_constant=refuse)
    events = document["traceEvents"]
    problems = []
    timed = [i for i, e in enumerate(events)
             if "tid" in e and (e["ph"] in ("X", "s", "f") or (e["ph"] == "i" and e.get("s") == "t"))]
    timed.sort(key=lambda i: nanos(events[i]["ts"]))  # stable: file order among equals
    stacks = collections.defaultdict(list)
    flows = {}
    for i in timed:
        e = events[i]
        track = (e["pid"], e["tid"])
        ts = nanos(e["ts"])
        stack = stacks[track]
        if e["ph"] == "s":
            if e["id"] in flows:
                problems.append(f"flow {e['id']} starts twice")
            flows[e["id"]] = [stack[-1][0] if stack else None, None]
            if not stack:
                problems.append(f"flow start {i} has no slice to bind to")
        elif e["ph"] == "f":
            if e["id"] not in flows:
                problems.append(f"flow {e['id']} ends before it starts")
                continue
            flows[e["id"]][1] = stack[-1][0] if stack else None
        else:
            dur = nanos(e["dur"]) if e["ph"] == "X" else 0
            while stack and (stack[-1][2] < ts or (stack[-1][2] == ts and not (stack[-1][3] == 0 and dur == 0))):
                stack.pop()
            if any(end < ts for _, _, end, _ in stack):
                problems.append(f"event {i} finds an ended slice under an open one on track {track}")
            overlapped = [s for s in stack if ts < s[2] < ts + dur]
            if overlapped:
                problems.append(f"slice {i} ({e['name']}) would be dropped: it overlaps slice {overlapped[0][0]} "
                                f"({events[overlapped[0][0]]['name']}) on track {track}")
                continue
            stack.append((i, ts, ts + dur, dur))
    unbound = [f for f, (a, b) in flows.items() if a is None or b is None]
    if unbound:
        problems.append(f"{len(unbound)} flows are not bound at both ends")
    phases = collections.Counter(e["ph"] for e in events)
    tracks = {(e["pid"], e["tid"]) for e in events if e["ph"] == "X"}
    print(f"{path}: {len(events)} events ({', '.join(f'{n} {p}' for p, n in sorted(phases.items()))}), "
          f"{len(tracks)} tracks, {len(flows)} arrows")
    for problem in problems[:50]:
        print("  problem:", problem)
    return not problems


if __name__ == "__main__":
    ok = all([check(path) for path in sys.argv[1:]])
    sys.exit(0 if ok else 1)
