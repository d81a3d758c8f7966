#!/usr/bin/env python3
"""Checks a Perfetto trace written by `pipescope export` against what the recording holds.

    python3 scripts/check-perfetto-trace.py TRACE.perfetto-trace FACTS.json

The trace is decoded with Perfetto's own schema: `perfetto_trace_pb2` from the `perfetto`
package on PyPI (`python3 -m pip install perfetto protobuf`), never with our encoder's idea
of it. FACTS.json says what the recording holds (the Swift tests write it from the
recording's events):

    {"process": {"pid": 4242, "name": "app"},
     "stages": [{"id": 3, "operator": "Map", "downstream": 2, "start": ns, "end": ns,
                 "status": "finished", "values": 5, "demand": [[ns, outstanding], ...]}],
     "value_arrows": [[cause_stage, value_stage], ...],      # optional: exact multiset
     "cancel_arrows": [[from_stage, to_stage], ...],         # optional: exact set
     "dropped": 5,                                           # optional: last dropped count
     "value_texts": {"1": ["text", ...]},                    # optional: exact, in order
     "error_texts": {"1": "text"},                           # optional: a failure's text
     "ending": "why the recording stops"}                    # optional: the last instant

It checks, and prints every failure (exit 1) or a one-line summary (exit 0):
- compression: the file's packets are Perfetto's compressed packets (`compressed_packets`,
  a zlib stream of more packets, as trace_processor inflates them), each under 512 KB; a
  packet outside one only when it is too big for one; the checks below are on the packets
  inside, in order;
- timestamps: on the sequence's incremental clock (64, declared by a ClockSnapshot on the
  sequence's clear, equal to the trace clock there, and made the default by
  trace_packet_defaults) they are deltas from the last; otherwise absolute; a sequence's
  clock snapshots never go back (Perfetto rejects one that does);
- sequence flags: each sequence starts with SEQ_INCREMENTAL_STATE_CLEARED; every packet
  using interned data says SEQ_NEEDS_INCREMENTAL_STATE and comes after a clear; every iid
  (event names, debug annotation names and string values, source locations) resolves to an
  entry of the sequence's tables since its last clear, and no iid is defined twice
  differently;
- tracks: one process track (pid and name); the descriptors of a uuid agree (one parent, at
  most one name), and a track's name comes before its first event; every stage has exactly
  one track (the track of its life slice), whose parent is its downstream stage's track, or
  for a root a pipeline track; tracks order children explicitly, stages have sibling ranks,
  no two siblings share a rank, and no ranked track is a child of the process's own track (trace_processor ignores ranks
  there: the pipelines are ranked under a plain track of the process);
- one life slice per stage: begin at its subscribe (no earlier than the recording's first event, where FACTS
  starts a stage live before it), end at its end (or the recording's),
  named by its status, with a source location when the slice has a `location`;
- as many "value" instants on each stage's track as it received values;
- arrows: every flow id has exactly one start and one end, the end no earlier; the arrows
  ending on values join the stages FACTS says, as do those ending on cancels;
- counters: each stage's demand counter (under its track) has exactly FACTS's samples (none
  after the stage ended, and 0 when it ends);
  the dropped-events counter ends at FACTS's count;
- texts, when FACTS gives them: the value annotations of a stage in order, its failure's
  error, and the "recording ends" instant's reason, exactly.
"""
import collections
import json
import sys
import zlib

try:
    from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb
except ImportError as error:  # pragma: no cover
    print(f"check-perfetto-trace: cannot import Perfetto's schema ({error}). "
          "Install it: python3 -m pip install perfetto protobuf", file=sys.stderr)
    sys.exit(2)

CLEARED = pb.TracePacket.SEQ_INCREMENTAL_STATE_CLEARED
NEEDS = pb.TracePacket.SEQ_NEEDS_INCREMENTAL_STATE
TE = pb.TrackEvent


def main(trace_path, facts_path):
    problems = []
    with open(trace_path, "rb") as f:
        trace = pb.Trace()
        trace.ParseFromString(f.read())
    with open(facts_path) as f:
        facts = json.load(f)

    # -- Compression ----------------------------------------------------------------
    packets = []
    compressed = 0
    for index, packet in enumerate(trace.packet):
        if packet.HasField("compressed_packets"):
            compressed += 1
            if packet.ByteSize() >= 512_000:
                problems.append(f"file packet {index}: a compressed packet of {packet.ByteSize()} bytes (at most 512 KB)")
            inner = pb.Trace()
            try:
                inner.ParseFromString(zlib.decompress(packet.compressed_packets))
            except zlib.error as error:
                problems.append(f"file packet {index}: compressed_packets does not inflate ({error})")
                continue
            if any(p.HasField("compressed_packets") for p in inner.packet):
                problems.append(f"file packet {index}: compressed packets inside compressed packets")
            packets.extend(inner.packet)
        else:
            if packet.ByteSize() < 448 * 1024:
                problems.append(f"file packet {index}: a packet outside compressed packets, though it would fit in one")
            packets.append(packet)
    if not compressed:
        problems.append("the file has no compressed packets")

    # -- Sequences and interning ------------------------------------------------------
    tables = {}       # sequence id -> {kind: {iid: value}}, since the last clear
    cleared = set()
    descriptors = collections.defaultdict(list)
    events = []       # (ts, event, resolved name, resolved annotations, location)
    named_at = {}        # track uuid -> index of the first packet naming it
    first_event_at = {}  # track uuid -> index of the first packet with an event on it
    default_clock = {}   # sequence id -> trace_packet_defaults.timestamp_clock_id
    incremental = {}     # sequence id -> {clock id: last absolute time}
    snapshot_time = {}   # sequence id -> the trace clock's time at its latest clock snapshot
    for index, packet in enumerate(packets):
        seq = packet.trusted_packet_sequence_id
        flags = packet.sequence_flags
        if flags & CLEARED:
            tables[seq] = {"name": {}, "ann": {}, "str": {}, "loc": {}}
            cleared.add(seq)
            default_clock[seq] = 0
            incremental[seq] = {}
        if packet.HasField("trace_packet_defaults"):
            if not flags & CLEARED:
                problems.append(f"packet {index}: trace_packet_defaults outside a clear")
            default_clock[seq] = packet.trace_packet_defaults.timestamp_clock_id
        if packet.HasField("clock_snapshot"):
            clocks = {c.clock_id: c for c in packet.clock_snapshot.clocks}
            # trace_processor rejects a snapshot whose trace clock (6) goes back from the
            # last of the same clocks (the sequence's): the incremental clock would keep
            # its old base, and every later delta on it would be shifted.
            if 6 in clocks:
                if clocks[6].timestamp < snapshot_time.get(seq, 0):
                    problems.append(f"packet {index}: a clock snapshot at {clocks[6].timestamp}, before the "
                                    f"sequence's last one ({snapshot_time[seq]}): Perfetto rejects it")
                snapshot_time[seq] = max(snapshot_time.get(seq, 0), clocks[6].timestamp)
            for c in clocks.values():
                if c.is_incremental:
                    if not 64 <= c.clock_id <= 127:
                        problems.append(f"packet {index}: incremental clock {c.clock_id} is not a sequence clock")
                    if 6 not in clocks or clocks[6].timestamp != c.timestamp:
                        problems.append(f"packet {index}: incremental clock {c.clock_id} is not the trace clock (6) there")
                    incremental.setdefault(seq, {})[c.clock_id] = c.timestamp
        time = None
        if packet.HasField("timestamp"):
            clock = packet.timestamp_clock_id if packet.HasField("timestamp_clock_id") else default_clock.get(seq, 0)
            if clock in incremental.get(seq, {}):
                incremental[seq][clock] += packet.timestamp
                time = incremental[seq][clock]
            elif clock in (0, 6):
                time = packet.timestamp
            else:
                problems.append(f"packet {index}: timestamp on clock {clock}, neither the trace clock nor incremental")
        if packet.HasField("interned_data"):
            if seq not in cleared:
                problems.append(f"packet {index}: interned data before the sequence {seq} was cleared")
                tables[seq] = {"name": {}, "ann": {}, "str": {}, "loc": {}}
            interned = packet.interned_data
            t = tables[seq]
            for kind, entries, value in [("name", interned.event_names, lambda e: e.name),
                                         ("ann", interned.debug_annotation_names, lambda e: e.name),
                                         ("str", interned.debug_annotation_string_values, lambda e: e.str.decode("utf-8")),
                                         ("loc", interned.source_locations,
                                          lambda e: (e.file_name, e.function_name, e.line_number))]:
                for entry in entries:
                    if entry.iid == 0:
                        problems.append(f"packet {index}: interned {kind} with iid 0")
                    if entry.iid in t[kind] and t[kind][entry.iid] != value(entry):
                        problems.append(f"packet {index}: {kind} iid {entry.iid} defined twice differently")
                    t[kind][entry.iid] = value(entry)
        if packet.HasField("track_descriptor"):
            descriptors[packet.track_descriptor.uuid].append(packet.track_descriptor)
            if packet.track_descriptor.HasField("name"):
                named_at.setdefault(packet.track_descriptor.uuid, index)
        if packet.HasField("track_event"):
            if not flags & NEEDS:
                problems.append(f"packet {index}: a track event without SEQ_NEEDS_INCREMENTAL_STATE")
            if seq not in cleared:
                problems.append(f"packet {index}: a track event before its sequence's first SEQ_INCREMENTAL_STATE_CLEARED")
                continue
            if not packet.HasField("timestamp"):
                problems.append(f"packet {index}: a track event without a timestamp")
            t = tables[seq]
            e = packet.track_event

            def resolve(kind, iid):
                if iid not in t[kind]:
                    problems.append(f"packet {index}: {kind} iid {iid} does not resolve")
                    return None
                return t[kind][iid]

            name = resolve("name", e.name_iid) if e.HasField("name_iid") else (e.name if e.HasField("name") else None)
            annotations = {}
            for a in e.debug_annotations:
                key = resolve("ann", a.name_iid) if a.HasField("name_iid") else a.name
                which = a.WhichOneof("value")
                if which == "string_value_iid":
                    value = resolve("str", a.string_value_iid)
                elif which is None:
                    value = None
                else:
                    value = getattr(a, which)
                annotations[key] = value
            location = resolve("loc", e.source_location_iid) if e.HasField("source_location_iid") else None
            events.append((time, e, name, annotations, location))
            first_event_at.setdefault(e.track_uuid, index)

    # -- Tracks ------------------------------------------------------------------------
    tracks = {}
    for uuid, ds in descriptors.items():
        parents = {d.parent_uuid for d in ds if d.HasField("parent_uuid")}
        names = {d.name for d in ds if d.HasField("name")}
        if len(parents) > 1:
            problems.append(f"track {uuid}: descriptors disagree on its parent {sorted(parents)}")
        if len(names) > 1:
            problems.append(f"track {uuid}: descriptors disagree on its name {sorted(names)}")
        merged = pb.TrackDescriptor()
        for d in ds:
            merged.MergeFrom(d)
        tracks[uuid] = merged
    for uuid, index in named_at.items():
        if uuid in first_event_at and first_event_at[uuid] < index:
            problems.append(f"track {uuid} ({tracks[uuid].name!r}): named at packet {index}, "
                            f"after its first event (packet {first_event_at[uuid]})")
    processes = [t for t in tracks.values() if t.HasField("process")]
    if len(processes) != 1:
        problems.append(f"{len(processes)} process tracks, expected 1")
    elif "process" in facts:
        p = processes[0].process
        if p.pid != facts["process"]["pid"] or p.process_name != facts["process"]["name"]:
            problems.append(f"process track is pid {p.pid} {p.process_name!r}, expected {facts['process']}")
    process_uuid = processes[0].uuid if processes else None
    # trace_processor keeps the children of an OS-scoped track (a process's or a thread's)
    # in its own order, ignoring their ranks: ranked tracks go under a plain track.
    for uuid, t in tracks.items():
        parent = tracks.get(t.parent_uuid)
        if t.HasField("sibling_order_rank") and parent is not None and (
                parent.HasField("process") or parent.HasField("thread")):
            problems.append(f"track {uuid} ({t.name!r}): ranked under the process track, which ignores ranks")
    ranks = collections.defaultdict(list)
    for uuid, t in tracks.items():
        if t.HasField("sibling_order_rank"):
            ranks[(t.parent_uuid, t.sibling_order_rank)].append(uuid)
    for (parent, rank), uuids in ranks.items():
        if len(uuids) > 1:
            problems.append(f"tracks {sorted(uuids)} share rank {rank} under track {parent}: their order is left to chance")
    pipelines_parent = {u for u, t in tracks.items() if t.parent_uuid == process_uuid and not t.HasField("counter")
                        and t.child_ordering == pb.TrackDescriptor.EXPLICIT and not t.HasField("sibling_order_rank")}
    for e in events:
        if e[1].track_uuid not in tracks:
            problems.append(f"an event on track {e[1].track_uuid}, which no descriptor describes")
            break

    by_track = collections.defaultdict(list)
    for e in events:
        by_track[e[1].track_uuid].append(e)
    stage_track = {}
    for uuid, evs in by_track.items():
        for ts, e, name, ann, loc in evs:
            if e.type == TE.TYPE_SLICE_BEGIN and "stage" in ann:
                if ann["stage"] in stage_track:
                    problems.append(f"stage {ann['stage']}: more than one life slice")
                stage_track[ann["stage"]] = uuid
    if len(set(stage_track.values())) != len(stage_track):
        problems.append("two stages share a track")
    track_stage = {uuid: stage for stage, uuid in stage_track.items()}

    # -- Stages ------------------------------------------------------------------------
    for stage in facts["stages"]:
        sid = stage["id"]
        label = f"stage {sid} ({stage['operator']})"
        uuid = stage_track.get(sid)
        if uuid is None:
            problems.append(f"{label}: no life slice")
            continue
        track = tracks.get(uuid)
        if track is None:
            problems.append(f"{label}: its track {uuid} is not described")
            continue
        named = [u for u, t in tracks.items()
                 if t.name.startswith(f"#{sid} ") and not t.HasField("counter") and t.parent_uuid not in pipelines_parent]
        if named != [uuid]:
            problems.append(f"{label}: tracks named for it {named}, expected exactly its own ({uuid})")
        if stage["operator"] not in track.name:
            problems.append(f"{label}: its track is named {track.name!r}")
        if track.child_ordering != pb.TrackDescriptor.EXPLICIT or not track.HasField("sibling_order_rank"):
            problems.append(f"{label}: its track does not order its children explicitly, or has no rank")
        downstream = stage.get("downstream")
        if downstream is not None:
            if track.parent_uuid != stage_track.get(downstream):
                problems.append(f"{label}: its track's parent is {track.parent_uuid}, not stage {downstream}'s track")
        else:
            pipeline = tracks.get(track.parent_uuid)
            if pipeline is None or pipeline.parent_uuid not in pipelines_parent or track.parent_uuid in track_stage:
                problems.append(f"{label}: a root whose track's parent is not a pipeline track under the pipelines' "
                                f"track (a plain track under the process, ordering its children explicitly)")
            elif not pipeline.name:
                problems.append(f"{label}: its pipeline's track has no name")
        evs = by_track[uuid]
        begins = [e for e in evs if e[1].type == TE.TYPE_SLICE_BEGIN]
        ends = [e for e in evs if e[1].type == TE.TYPE_SLICE_END]
        if len(begins) != 1 or len(ends) != 1:
            problems.append(f"{label}: {len(begins)} slice begins and {len(ends)} ends, expected one each")
        else:
            if begins[0][0] != stage["start"] or ends[0][0] != stage["end"]:
                problems.append(f"{label}: its life slice is {begins[0][0]}…{ends[0][0]}, "
                                f"expected {stage['start']}…{stage['end']}")
            if begins[0][2] != stage["status"]:
                problems.append(f"{label}: its life slice is named {begins[0][2]!r}, expected {stage['status']!r}")
            if "location" in begins[0][3] and begins[0][4] is None:
                problems.append(f"{label}: a location annotation but no source location")
        values = sum(1 for e in evs if e[1].type == TE.TYPE_INSTANT and e[2] == "value")
        if values != stage["values"]:
            problems.append(f"{label}: {values} value instants, expected {stage['values']}")
        counters = [u for u, t in tracks.items() if t.parent_uuid == uuid and t.HasField("counter")]
        samples = sorted([ts, e.counter_value] for u in counters for ts, e, *_ in by_track[u]
                         if e.type == TE.TYPE_COUNTER)
        if len(counters) > 1:
            problems.append(f"{label}: {len(counters)} counter tracks")
        if samples != sorted(stage.get("demand", [])):
            problems.append(f"{label}: demand counter {samples[:8]}…, expected {stage.get('demand', [])[:8]}…")

    # -- Arrows ------------------------------------------------------------------------
    starts, ends = collections.defaultdict(list), collections.defaultdict(list)
    for ts, e, name, ann, loc in events:
        for f in e.flow_ids:
            starts[f].append((ts, e.track_uuid, name))
        for f in e.terminating_flow_ids:
            ends[f].append((ts, e.track_uuid, name))
    for f in set(starts) | set(ends):
        if len(starts[f]) != 1 or len(ends[f]) != 1:
            problems.append(f"flow {f}: {len(starts[f])} starts and {len(ends[f])} ends, expected one each")
        elif ends[f][0][0] < starts[f][0][0]:
            problems.append(f"flow {f} ends before it starts")
    def arrows(kind):
        return sorted([track_stage.get(starts[f][0][1]), track_stage.get(ends[f][0][1])]
                      for f in ends if ends[f][0][2] == kind and len(starts[f]) == 1)
    value_arrows = arrows("value")
    if "value_arrows" in facts and value_arrows != sorted(facts["value_arrows"]):
        problems.append(f"value arrows {value_arrows[:10]}… ({len(value_arrows)}), "
                        f"expected {sorted(facts['value_arrows'])[:10]}… ({len(facts['value_arrows'])})")
    cancel_arrows = arrows("cancelled")
    if "cancel_arrows" in facts and sorted(map(list, {tuple(a) for a in cancel_arrows})) != sorted(facts["cancel_arrows"]):
        problems.append(f"cancel arrows {cancel_arrows}, expected {sorted(facts['cancel_arrows'])}")

    if "dropped" in facts:
        lost = [u for u, t in tracks.items() if t.HasField("counter") and "dropped" in t.name]
        samples = sorted((ts, e.counter_value) for u in lost for ts, e, *_ in by_track[u])
        if not samples or samples[-1][1] != facts["dropped"]:
            problems.append(f"dropped-events counter {samples[-3:]}, expected it to end at {facts['dropped']}")

    for sid, texts in (facts.get("value_texts") or {}).items():
        got = [ann.get("value") for ts, e, name, ann, loc in sorted(by_track.get(stage_track.get(int(sid)), []),
                                                                     key=lambda x: x[0])
               if e.type == TE.TYPE_INSTANT and name == "value"]
        if got != texts:
            diff = next((i for i, (a, b) in enumerate(zip(got, texts)) if a != b), min(len(got), len(texts)))
            problems.append(f"stage {sid}: value texts differ from text {diff} on ({len(got)} got, {len(texts)} sent)")
    for sid, text in (facts.get("error_texts") or {}).items():
        got = [ann.get("error") for ts, e, name, ann, loc in by_track.get(stage_track.get(int(sid)), [])
               if e.type == TE.TYPE_INSTANT and name == "failed"]
        if got != [text]:
            problems.append(f"stage {sid}: failure texts {[g[:20] if g else g for g in got]}, expected one, exactly")
    if facts.get("ending") is not None:
        got = [ann.get("why") for ts, e, name, ann, loc in by_track.get(process_uuid, []) if name == "recording ends"]
        if got != [facts["ending"]]:
            problems.append(f"the recording-ends instant says {got}, expected {facts['ending']!r}")

    if problems:
        for p in problems[:200]:
            print("FAIL", p)
        print(f"check-perfetto-trace: {len(problems)} problems in {trace_path}")
        return 1
    print(f"check-perfetto-trace: OK: {len(packets)} packets in {compressed} compressed, {len(tracks)} tracks, "
          f"{len(facts['stages'])} stages, {len(value_arrows)} value arrows, {len(cancel_arrows)} cancel arrows, "
          f"{len(starts)} flows")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
