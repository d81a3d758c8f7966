#!/usr/bin/env python3
"""Mutation testing: does the suite catch realistic one-line bugs?

Each entry of MUTANTS below plants one bug a person could write (a bound off by one, a
condition turned round, a `first` that should be `last`) in a copy of the tree. The copy
is built and the unit tests the entry names are run against it: a test that fails (or a
run that hangs past the timeout) kills the mutant; a mutant that every test survives is a
gap in the suite. Each survivor must get a test that kills it, or be marked `equivalent`
with the reason (a change no test can see because behaviour does not change).

    scripts/mutation-test.sh            # every mutant (about an hour on 2 shared cores)
    scripts/mutation-test.sh --list     # the list, checked against the tree (no build)
    scripts/mutation-test.sh --only 7   # one mutant (numbers as --list prints them)

The tree is copied once (as rsync would) to $MUTATION_DIR (default /tmp/pipescope-mutation), whose
own .build is kept from run to run, so each mutant rebuilds incrementally. The script
exits 0 when every entry applied, compiled, and at least 90% of the mutants that are not
marked equivalent were killed with no unexplained survivor.

Growing the list: a new rule or a new core function gets a mutant here, with the tests
that must catch it (XCTest `--filter` patterns: `Target.Class` or `Target.Class/test`).
"""

import argparse
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@dataclass
class Mutant:
    area: str
    file: str
    original: str
    replacement: str
    tests: list
    why: str
    # Set when no test can tell the mutant from the original: the reason.
    equivalent: str = ""


M = Mutant
MUTANTS = [
    # MARK: tap (what runs on the program's threads)
    M("tap", "Sources/PipescopeTap/CauseLinks.swift",
      "case .inOrder: cause = inputs.popFirst()", "case .inOrder: cause = inputs.popLast()",
      ["PipescopeTapTests.CauseTests"],
      "receive(on:) links each output to the newest input instead of the one it delivers"),
    M("tap", "Sources/PipescopeTap/CauseLinks.swift",
      "            cause = inputs.last\n", "            cause = inputs.first\n",
      ["PipescopeTapTests.CauseTests"],
      "debounce's output blamed on the oldest input it swallowed, not the one it sent",
      equivalent="received(_:by:policy:) keeps only the newest input of a .latest stage "
      "(pending[node] = [event]), so first and last are the same element"),
    M("tap", "Sources/PipescopeTap/EventRing.swift",
      "if buffers.events.count >= limit {", "if buffers.events.count > limit {",
      ["PipescopeTapTests.DropTests", "PipescopeTapTests.MemoryTests"],
      "the ring takes one event past its bound before it grows or drops"),
    M("tap", "Sources/PipescopeTap/DroppedEvents.swift",
      "byNode[byNode.count < Self.stageLimit ? node : 0, default: 0] &+= 1",
      "byNode[byNode.count <= Self.stageLimit ? node : 0, default: 0] &+= 1",
      ["PipescopeTapTests.DropTests"],
      "drops counted per stage for one stage more than the table's limit"),
    M("tap", "Sources/PipescopeTap/Gate.swift",
      "if credits > 0, waiting.first?.ticket == pending.ticket {",
      "if credits >= 0, waiting.first?.ticket == pending.ticket {",
      ["PipescopeTapTests.GateTests"],
      "a paused program's oldest waiting event goes on without a step"),
    M("tap", "Sources/PipescopeTap/ValueCapture.swift",
      'if line.count > maxLength { line = String(line.prefix(maxLength - 1)) + "…" }',
      'if line.count > maxLength { line = String(line.prefix(maxLength)) + "…" }',
      ["PipescopeTapTests.ValueCaptureTests"],
      "a long value's text cut one character too late, one over the limit with its ellipsis"),

    # MARK: fold (Graph.apply, shared by the probe and the inspector)
    M("fold", "Sources/PipescopeGraph/Graph.swift",
      "node.requested = node.requested + request.demand", "node.requested = request.demand",
      ["PipescopeGraphTests", "PipescopeModelTests.WaitTests"],
      "demand replaced instead of added: a second request(_:) forgets the first"),
    M("fold", "Sources/PipescopeGraph/Graph.swift",
      "if !returned { for id in sharers(of: event.node) { update(id, change) } }",
      "if returned { for id in sharers(of: event.node) { update(id, change) } }",
      ["PipescopeGraphTests", "PipescopeModelTests.WaitTests"],
      "a request on a shared subscription no longer reaches the stages sharing it"),
    M("fold", "Sources/PipescopeGraph/Graph.swift",
      "if cause != .downstream { markOrphans(below: shareGroup(of: event.node)) }",
      "if cause == .downstream { markOrphans(below: shareGroup(of: event.node)) }",
      ["PipescopeGraphTests", "PipescopeProbeTests.CommandTests"],
      "orphans marked under an ordinary downstream cancel instead of an inspector's or owner's"),

    # MARK: waits
    M("waits", "Sources/PipescopeModel/Waits/Waits.swift",
      "return n.recentRequests.first { $0.time > last }?.time",
      "return n.recentRequests.last { $0.time > last }?.time",
      ["PipescopeModelTests.WaitTests"],
      "the newest request after the last value taken as progress: a stuck upstream whose "
      "subscriber keeps requesting reads as flowing"),
    M("waits", "Sources/PipescopeModel/Waits/Waits.swift",
      "guard now - onset.sinceNanos - held > limit else {",
      "guard now - onset.sinceNanos - held >= limit else {",
      ["PipescopeModelTests.WaitTests", "PipescopeModelTests.WaitsModelTests"],
      "the threshold itself counts as a wait"),
    M("waits", "Sources/PipescopeModel/Waits/Waits.swift",
      "let since = max(n.lastValueNanos ?? n.createdNanos, opened(n) ?? n.createdNanos, upstreamActivity)",
      "let since = max(n.lastValueNanos ?? n.createdNanos, opened(n) ?? n.createdNanos)",
      ["PipescopeModelTests.WaitTests", "PipescopeModelTests.WaitsModelTests"],
      "a flatMap whose inner Future was made a moment ago reads as stuck"),
    M("waits", "Sources/PipescopeModel/Waits/Waits.swift",
      "let fewest = values.min() ?? 0", "let fewest = values.max() ?? 0",
      ["PipescopeModelTests.ZipWaitTests"],
      "a zip blames the input that sent the most, not the one it waits for"),
    M("waits", "Sources/PipescopeModel/Waits/Waits.swift",
      "|| node.children.contains { graph[$0].map { dropping.contains($0.subscriber) } ?? false }", "",
      ["PipescopeModelTests.ErasedFilterWaitTests"],
      "a filter hidden in an AnyPublisher is not seen: the AnyPublisher holds a wait its subject does not"),

    # MARK: causes
    M("causes", "Sources/PipescopeModel/Causes/CauseChain.swift",
      "hops[hops.count - 1].madeFor = made", "hops[0].madeFor = made",
      ["PipescopeModelTests.CauseChainTests", "PipescopeModelTests.MadeForChainTests"],
      "'made for' put on the chain's first hop instead of the one whose stage was made"),

    # MARK: lints
    M("lints", "Sources/PipescopeModel/Lints/Rules/ZipUnpairedRule.swift",
      "guard held >= unmatched, let last", "guard held > unmatched, let last",
      ["PipescopeModelTests.ZipUnpairedLintTests"],
      "zip-unpaired waits for one value more than it says: three unpaired values go unnamed"),
    M("lints", "Sources/PipescopeModel/Lints/Findings/FindingCollector.swift",
      "            raised[i].withdrawn = true\n", "            raised[i].withdrawn = false\n",
      ["PipescopeModelTests.FindingCollectorTests"],
      "a finding judged before its stage's location came is kept though, located, the lint no longer holds"),
    M("lints", "Sources/PipescopeModel/Lints/Rules/PileUpRule.swift",
      "guard !type.isEmpty, function.hasPrefix(type + \".\")", "guard !type.isEmpty, function.hasPrefix(type)",
      ["PipescopeModelTests.AssignCycleLintTests"],
      "the assign cycle named for any function whose name starts like the type (Coordinator for Coord)"),
    M("lints", "Sources/PipescopeModel/Lints/Rules/DemandViolationRule.swift",
      "return n.values > requested", "return n.values >= requested",
      ["PipescopeModelTests.LintTests"],
      "the demand-violation lint fires at exactly the requested count"),
    M("lints", "Sources/PipescopeModel/Lints/Rules/AfterTerminalRule.swift",
      "guard n.afterEnd > 0,", "guard n.afterEnd > 1,",
      ["PipescopeModelTests.LintTests"],
      "one event after a stage ended is not reported, only two"),
    M("lints", "Sources/PipescopeModel/Lints/Rules/OwnerLeakRule.swift",
      "owner.releasedNanos != nil else { return [] }", "owner.releasedNanos == nil else { return [] }",
      ["PipescopeModelTests.LintTests", "PipescopeTests.LifecycleTests"],
      "an owner leak reported while its owner is alive, and not once it is released"),
    M("lints", "Sources/PipescopeModel/Lints/Rules/UnretainedCancellableRule.swift",
      "n.values <= n.afterEnd,", "n.values < n.afterEnd,",
      ["PipescopeModelTests.UnretainedCancellableTests", "PipescopeModelTests.LintTests"],
      "a subscription cancelled at once by its dropped AnyCancellable is not reported"),
    M("lints", "Sources/PipescopeModel/Lints/Rules/StalledRule.swift",
      "context.pipelinesWaiting(on: stage.id).filter { !waitsForItsInput($0.wait, in: context.graph) }",
      "context.pipelinesWaiting(on: stage.id).filter { waitsForItsInput($0.wait, in: context.graph) }",
      ["PipescopeModelTests.LintTests", "PipescopeModelTests.LintRulesTests"],
      "stalled warns about idle subjects and not about the Future that never answers"),

    # MARK: history
    M("history", "Sources/PipescopeModel/History/History+Eviction.swift",
      "while let oldest = texts.first, oldest.index < memoryStart { texts.removeFirst() }",
      "while let oldest = texts.first, oldest.index <= memoryStart { texts.removeFirst() }",
      ["PipescopeModelTests.HistoryTextTests", "PipescopeModelTests.HistoryTests"],
      "eviction off by one: the oldest kept event loses its out-of-line text"),
    M("history", "Sources/PipescopeModel/History/History+Eviction.swift",
      "let newStart = end - limit\n", "let newStart = end - limit + 1\n",
      ["PipescopeModelTests.HistoryTests"],
      "eviction keeps one event fewer than the limit"),
    M("history", "Sources/PipescopeModel/History/HistoryEntry.swift",
      "if text.utf8.count <= 8, !text.utf8.contains(0) {",
      "if text.utf8.count < 8, !text.utf8.contains(0) {",
      ["PipescopeModelTests.HistoryTextTests", "PipescopeModelTests.HistoryTests"],
      "an 8-byte text stored beside the entry instead of inside it (24 bytes more each)"),

    # MARK: wire
    M("wire", "Sources/PipescopeWire/ZigzagColumn.swift",
      "while rest >= 0x80 {", "while rest > 0x80 {",
      ["PipescopeWireTests.ZigzagColumnTests", "PipescopeWireTests.BatchPackingTests"],
      "the varint encoder's loop bound off by one: 128 is written as one byte"),
    M("wire", "Sources/PipescopeWire/ZigzagColumn.swift",
      "return Int64(bitPattern: number >> 1) ^ -Int64(bitPattern: number & 1)",
      "return Int64(bitPattern: number >> 1) ^ Int64(bitPattern: number & 1)",
      ["PipescopeWireTests.ZigzagColumnTests"],
      "zigzag decoding without the sign: negative deltas come back wrong"),
    M("wire", "Sources/PipescopeWire/Framing.swift",
      "guard length <= Framing.maxFrameSize else { throw FrameError.oversized(length) }",
      "guard length < Framing.maxFrameSize else { throw FrameError.oversized(length) }",
      ["PipescopeWireTests.FrameDecoderTests"],
      "a frame of exactly the limit is refused though the writer may send it"),
    M("wire", "Sources/PipescopeWire/Framing.swift",
      "out.append(UInt8(truncatingIfNeeded: n >> 16))", "out.append(UInt8(truncatingIfNeeded: n >> 8))",
      ["PipescopeWireTests.FrameDecoderTests", "PipescopeWireTests.MessageCodecTests"],
      "the frame header's length bytes shifted wrong: frames over 64 KiB misread"),

    # MARK: recordings
    M("recordings", "Sources/PipescopeRecording/RecordingReader.swift",
      "bytesRead += heldBytes + Framing.headerSize + payload.count",
      "bytesRead += Framing.headerSize + payload.count",
      ["PipescopeRecordingTests", "PipescopeExportTests.TruncatedRecordingTests"],
      "a snapshot sent in parts counts only its last part's bytes as read"),
    M("recordings", "Sources/PipescopeRecording/FlightRecorder.swift",
      "while total + bytes > options.budget, !closed.isEmpty {",
      "while total > options.budget, !closed.isEmpty {",
      ["PipescopeRecordingTests.FlightRecorderTests"],
      "the flight recorder makes room without counting the write it makes room for"),

    # MARK: exporters
    M("exporters", "Sources/PipescopeExport/Perfetto/CauseFlows.swift",
      "guard let p = current[causedBy] ?? previous[causedBy], p >= written else {",
      "guard let p = current[causedBy], p >= written else {",
      ["PipescopeExportTests.CrossBatchCauseTests", "PipescopeExportTests.PerfettoTraceTests"],
      "Perfetto's arrows no longer look into the previous batch"),
    M("exporters", "Sources/PipescopeExport/Walk/TraceWalk.swift",
      "waves.forget(before: lastTime - 1_000_000_000)", "waves.forget(before: lastTime + 1)",
      ["PipescopeExportTests.CrossBatchCauseTests", "PipescopeExportTests.ExportFormatTests"],
      "every cancel wave forgotten at the end of its batch: a cancel continued in the next is lost"),
    M("exporters", "Sources/PipescopeExport/ChromeJSON/ChromeJSONWriter.swift",
      "Double(max(0, nanos - (origin ?? nanos))) / 1000", "Double(max(0, nanos - (origin ?? nanos))) / 1_000_000",
      ["PipescopeExportTests.ExportFormatTests"],
      "trace times in milliseconds where Chrome's format wants microseconds"),
    M("exporters", "Sources/PipescopeExport/Walk/LaneBook.swift",
      "let index = pipeline.lanes.firstIndex { $0.isEmpty } ?? pipeline.lanes.count",
      "let index = pipeline.lanes.count",
      ["PipescopeExportTests.ExporterBehaviourTests"],
      "a branch track is never reused once free: one more track per flatMap inner"),

    # MARK: table
    M("table", "Sources/PipescopeModel/Table/TableColumns.swift",
      "$0.dropOrder != nil && $0 != sorted", "$0.dropOrder != nil",
      ["PipescopeViewsTests.TableColumnListTests", "PipescopeModelTests.PipelineTableTests"],
      "the column sorted by is dropped at 80 columns, so sorting by TIME shows no TIME"),
    M("table", "Sources/PipescopeModel/Table/TableColumn.swift",
      "sort: .number { $0.wait.map { -$0.sinceNanos } ?? TableColumn.noValue }",
      "sort: .number { $0.wait.map { $0.sinceNanos } ?? TableColumn.noValue }",
      ["PipescopeModelTests.PipelineTableTests", "PipescopeViewsTests.TableGoldenTests"],
      "the WAIT column's sort key's sign flipped: the newest wait first"),
    M("table", "Sources/PipescopeModel/Table/CellText.swift",
      'case ..<3600: return "\\(s / 60)m"', 'case ..<3600: return "\\(s / 60 + 1)m"',
      ["PipescopeModelTests.DurationTextTests", "PipescopeModelTests.WaitTests"],
      "ages in minutes rounded up: 60 s reads 2m"),

    # MARK: reducer
    M("reducer", "Sources/PipescopeModel/Reducer/Reducer+Keys.swift",
      "let rows = overlay.rowsShown > 0 ? overlay.rowsShown : max(1, page / 5)", "let rows = max(1, page / 5)",
      ["PipescopeViewsTests.WarningsScrollTests"],
      "the warnings list pages by a fixed number of rows: a tall row cut at the bottom is skipped"),
    M("reducer", "Sources/PipescopeModel/Reducer/Reducer+Browsing.swift",
      "state.session.countPrefix = min(state.session.countPrefix * 10 + d, 9_999)",
      "state.session.countPrefix = min(state.session.countPrefix + d, 9_999)",
      ["PipescopeModelTests.ReducerNavigationTests", "PipescopeModelTests.KeysSayWhatTheyDidTests",
       "PipescopeModelTests.TimelineCursorTests", "PipescopeModelTests.CauseChainTests"],
      "a count typed as 12 steps 3 (digits added, not appended)"),
    M("reducer", "Sources/PipescopeModel/Reducer/Reducer+Browsing.swift",
      ": max(log.position(atOrAfter: target), here + 1)", ": max(log.position(atOrAfter: target), here)",
      ["PipescopeModelTests.TimelineCursorTests"],
      "→ in the timeline can stay on the event it is on",
      equivalent="the cursor's moment is its own event's time (HistoryCursor.end(now:)) and times are "
      "kept in order, so the first event at or after a column later is always past it: "
      "here + 1 never wins"),
    M("reducer", "Sources/PipescopeModel/Reducer/Reducer+Browsing.swift",
      "state.tree.selected = rows[min(max(i, 0), rows.count - 1)].selection",
      "state.tree.selected = rows[min(max(i, 0), rows.count)].selection",
      ["PipescopeModelTests.ReducerNavigationTests"],
      "the tree's selection clamped one row past the last: page down at the bottom traps"),
    M("reducer", "Sources/PipescopeModel/Reducer/SelectionKeeper.swift",
      "if let pick = same.min(by: { abs($0 - old) < abs($1 - old) }) {",
      "if let pick = same.max(by: { abs($0 - old) < abs($1 - old) }) {",
      ["PipescopeModelTests.SelectionKeeperTests"],
      "when the selected stage goes, the selection jumps to the farthest row of its pipeline",
      equivalent="no row can be picked there: this step runs when neither the stage nor any stage "
      "downstream of it has a row or a group, but a pipeline's root keeps its row while any of its "
      "stages has one (x hides a stage only once it and all upstream ended; a folded stage keeps its "
      "row; a pipeline's own view shows its root), so `same` is empty. Instrumented, the Model and "
      "Views suites reach this step only with `same` empty: dead code more likely than a gap"),
]


# MARK: - Running

def log(*parts):
    print(*parts, flush=True)


def check(mutant, tree):
    """None when the entry applies to `tree` exactly once; else why it is stale."""
    path = os.path.join(tree, mutant.file)
    if not os.path.exists(path):
        return f"{mutant.file} does not exist"
    count = open(path, encoding="utf-8").read().count(mutant.original)
    if count != 1:
        return f"its text occurs {count} times in {mutant.file} (must be once)"
    return None


def run(cmd, cwd, logpath, timeout=None):
    """Runs `cmd` in its own process group; returns its exit status, or None after `timeout`."""
    with open(logpath, "w") as out:
        p = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            return p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            return None
        except BaseException:
            # Stopped (SIGTERM, ^C): stop the build or tests too; the caller restores the file.
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            raise


def test_command(filters):
    cmd = ["swift", "test", "--skip-build"]
    for f in filters:
        cmd += ["--filter", f]
    return cmd


def tail(path, n=15):
    try:
        lines = open(path, errors="replace").read().splitlines()
    except OSError:
        return ""
    failures = [l for l in lines if ": error: " in l]
    return "\n".join((failures or lines)[-n:])


# Top-level paths the copy neither takes nor deletes: builds (the copy keeps its own),
# git, CI logs, this script's logs.
SKIP = {".build", ".git", ".mutation-logs", ".swiftpm"}


def sync(source, dest):
    """Makes `dest` a copy of `source` (as `rsync -a --delete` would, with no rsync needed):
    files copied with their times (so what did not change is not rebuilt), files gone from
    `source` deleted; SKIP and `.build-*` left alone at the top."""
    def skipped(rel):
        top = rel.split(os.sep, 1)[0]
        return top in SKIP or top.startswith(".build-") or rel == os.path.join(".ci", "logs")
    for root, dirs, files in os.walk(source):
        rel = os.path.relpath(root, source)
        rel = "" if rel == "." else rel
        dirs[:] = [d for d in dirs if not skipped(os.path.join(rel, d))]
        os.makedirs(os.path.join(dest, rel), exist_ok=True)
        for name in files:
            src, dst = os.path.join(root, name), os.path.join(dest, rel, name)
            if os.path.islink(src):
                if os.path.lexists(dst):
                    os.remove(dst)
                os.symlink(os.readlink(src), dst)
                continue
            a = os.stat(src)
            try:
                b = os.stat(dst)
                if b.st_size == a.st_size and int(b.st_mtime) == int(a.st_mtime):
                    continue
            except FileNotFoundError:
                pass
            shutil.copy2(src, dst)
    for root, dirs, files in os.walk(dest, topdown=True):
        rel = os.path.relpath(root, dest)
        rel = "" if rel == "." else rel
        dirs[:] = [d for d in dirs if not skipped(os.path.join(rel, d))]
        for d in list(dirs):
            if not os.path.lexists(os.path.join(source, rel, d)):
                shutil.rmtree(os.path.join(root, d))
                dirs.remove(d)
        for name in files:
            if not os.path.lexists(os.path.join(source, rel, name)):
                os.remove(os.path.join(root, name))


def main():
    # A stopped run still restores the mutated file (the `finally` below) and stops its
    # build or tests; the next run's copy would put the file right anyway.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    parser = argparse.ArgumentParser(description="Plants each mutant in a copy of the tree and runs its tests.")
    parser.add_argument("--list", action="store_true", help="print the mutants, checked against the tree; build nothing")
    parser.add_argument("--only", type=int, action="append", help="run mutant N (as --list numbers them); repeatable")
    parser.add_argument("--timeout", type=int, default=int(os.environ.get("MUTATION_TIMEOUT", "600")),
                        help="seconds a mutant's tests may take before they count as hung (killed); default 600")
    parser.add_argument("--dir", default=os.environ.get("MUTATION_DIR", "/tmp/pipescope-mutation"),
                        help="the copy of the tree (its .build is kept between runs)")
    args = parser.parse_args()

    stale = [(i, why) for i, m in enumerate(MUTANTS, 1) if (why := check(m, ROOT))]
    if args.list:
        for i, m in enumerate(MUTANTS, 1):
            mark = "  [equivalent]" if m.equivalent else ""
            log(f"{i:3} {m.area:10} {m.file}{mark}\n      - {m.original.strip()}\n      + {m.replacement.strip()}\n"
                f"      tests: {' '.join(m.tests)}\n      why: {m.why}" + (f"\n      equivalent: {m.equivalent}" if m.equivalent else ""))
        for i, why in stale:
            log(f"STALE {i}: {why}")
        return 1 if stale else 0

    chosen = args.only or list(range(1, len(MUTANTS) + 1))
    for i in chosen:
        if not 1 <= i <= len(MUTANTS):
            log(f"no mutant {i}: the list has 1 to {len(MUTANTS)} (see --list)")
            return 2
    stale = [(i, why) for i, why in stale if i in chosen]
    for i, why in stale:
        log(f"STALE {i} ({MUTANTS[i - 1].file}): {why}: fix the entry to match the code")
    if stale:
        return 1

    # One copy of the tree; its own .build survives (rsync --delete leaves excluded paths).
    work = args.dir
    os.makedirs(work, exist_ok=True)
    logs = os.path.join(work, ".mutation-logs")
    os.makedirs(logs, exist_ok=True)
    sync(ROOT, work)
    started = time.time()
    log(f"mutation testing {len(chosen)} mutant(s) in {work} (logs in {logs})")
    status = run(["swift", "build", "--build-tests"], work, os.path.join(logs, "baseline-build.log"))
    if status != 0:
        log("the unmutated tree does not build:\n" + tail(os.path.join(logs, "baseline-build.log")))
        return 1
    # The mapped tests must pass on the unmutated tree, or a failure would be no kill.
    filters = sorted({f for i in chosen for f in MUTANTS[i - 1].tests})
    status = run(test_command(filters), work, os.path.join(logs, "baseline-tests.log"), args.timeout * 2)
    if status != 0:
        log("the mapped tests fail on the unmutated tree (fix them first):\n"
            + tail(os.path.join(logs, "baseline-tests.log")))
        return 1
    log(f"baseline: built, mapped tests pass ({time.time() - started:.0f} s)")

    fates = {}
    for i in chosen:
        m = MUTANTS[i - 1]
        path = os.path.join(work, m.file)
        original = open(path, encoding="utf-8").read()
        t0 = time.time()
        try:
            with open(path, "w", encoding="utf-8") as f:
                f.write(original.replace(m.original, m.replacement, 1))
            build_log = os.path.join(logs, f"{i}-build.log")
            if run(["swift", "build", "--build-tests"], work, build_log) != 0:
                fate = "ERROR (does not compile: fix the entry)"
                detail = tail(build_log, 5)
            else:
                test_log = os.path.join(logs, f"{i}-tests.log")
                status = run(test_command(m.tests), work, test_log, args.timeout)
                if status is None:
                    fate, detail = "killed (timeout)", f"the tests hung past {args.timeout} s"
                elif status != 0:
                    fate, detail = "killed", tail(test_log, 3)
                elif m.equivalent:
                    fate, detail = "survived (equivalent)", m.equivalent
                else:
                    fate, detail = "SURVIVED", m.why
        finally:
            with open(path, "w", encoding="utf-8") as f:
                f.write(original)
        fates[i] = fate
        log(f"#{i:<3} {fate:24} {m.area:10} {m.file}: {m.why} ({time.time() - t0:.0f} s)")
        if detail and fate != "killed":
            log("      " + detail.replace("\n", "\n      "))

    killed = [i for i, f in fates.items() if f.startswith("killed")]
    equivalent = [i for i, f in fates.items() if f == "survived (equivalent)"]
    survived = [i for i, f in fates.items() if f == "SURVIVED"]
    errors = [i for i, f in fates.items() if f.startswith("ERROR")]
    counted = len(fates) - len(equivalent) - len(errors)
    score = 100.0 * len(killed) / counted if counted else 0.0
    minutes = (time.time() - started) / 60
    log(f"\nmutation score: {len(killed)} of {counted} killed ({score:.1f}%), "
        f"{len(equivalent)} equivalent, {len(errors)} errors, in {minutes:.0f} min")
    for i in survived:
        log(f"  survivor #{i}: {MUTANTS[i - 1].file}: {MUTANTS[i - 1].why}")
    for i in errors:
        log(f"  error #{i}: {MUTANTS[i - 1].file} does not compile with the mutation")
    return 0 if not errors and not survived and score >= 90 else 1


if __name__ == "__main__":
    sys.exit(main())
