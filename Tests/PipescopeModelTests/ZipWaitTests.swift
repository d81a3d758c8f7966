import Foundation
@preconcurrency import OpenCombine
import PipescopeGraph
import PipescopeLiveTestSupport
import PipescopeModel
import XCTest

/// A `zip` fed by one side: the wait names the input it waits on and what each side sent,
/// in the wait's sentence, `explain`'s lines and JSON, and the `stalled` lint (`w`).
final class ZipWaitTests: RecordedProbeTestCase {
    private var later: Int64 { aMinuteLater }

    func testAZipFedByOneSideWaitsOnTheOtherWithTheCountsOfEach() throws {
        let subject = PassthroughSubject<Int, Never>()
        let c = subject.zip(Future<String, Never> { _ in }).sink { _ in }
        subject.send(1)
        subject.send(2)
        let zip = try XCTUnwrap(stages("Zip").first)
        let input = try XCTUnwrap(stages("PassthroughSubject").first).id
        let future = try XCTUnwrap(stages("Future").first).id
        let now = later
        let waits = Waits(probe.graph, now: now, after: 2)
        let wait = try XCTUnwrap(waits.pipeline(zip.id))
        XCTAssertEqual(wait.at, future)
        let clause = "#\(zip.id) Zip waits on its 2nd input (#\(future) Future): 2 values from #\(input), 0 from #\(future)"
        XCTAssertEqual(wait.combiner(of: zip.id, in: probe.graph)?.text(in: probe.graph), clause)
        XCTAssertTrue(wait.sentence(of: zip.id, in: probe.graph, now: now).hasSuffix("upstream to send a value; " + clause))

        // explain: the line, and the JSON.
        let report = WaitReport(probe.graph, waits: waits)
        XCTAssertTrue(report.text.hasSuffix(" 1m; " + clause), report.text)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(report.json.utf8)) as? [String: Any])
        let pipeline = try XCTUnwrap((json["pipelines"] as? [[String: Any]])?.first)
        let combiner = try XCTUnwrap((pipeline["wait"] as? [String: Any])?["combiner"] as? [String: Any])
        XCTAssertEqual(combiner["stage"] as? Int, Int(zip.id))
        XCTAssertEqual(combiner["operator"] as? String, "Zip")
        XCTAssertEqual(combiner["waitsOn"] as? [Int], [2])
        XCTAssertEqual((combiner["inputs"] as? [[String: Int]])?.map { $0["values"] }, [2, 0])
        XCTAssertEqual((combiner["inputs"] as? [[String: Int]])?.map { $0["stage"] }, [Int(input), Int(future)])

        // The warning `w` lists.
        let stalled = lints(now: now).filter { $0.kind == .stalled }
        XCTAssertEqual(stalled.map(\.node), [future])
        XCTAssertTrue(stalled.first?.message.contains(clause + ". Make it send") == true, stalled.first?.message ?? "")
        c.cancel()
    }

    func testAZipOfTwoSubjectsWaitsOnTheOneThatSentNothingNotTheFirst() throws {
        let a = PassthroughSubject<Int, Never>(), b = PassthroughSubject<Int, Never>()
        let c = a.zip(b).sink { _ in }
        a.send(1)
        a.send(2)
        let zip = try XCTUnwrap(stages("Zip").first)
        let subjects = stages("PassthroughSubject").map(\.id)
        XCTAssertEqual(zip.children, subjects)
        let now = later
        let wait = try XCTUnwrap(Waits(probe.graph, now: now, after: 2).pipeline(zip.id))
        XCTAssertEqual(wait.at, subjects[1], "the silent side holds the zip, not the side that sent")
        XCTAssertEqual(wait.combiner(of: zip.id, in: probe.graph)?.waitingOn, [1])
        c.cancel()
    }

    func testAZipBehindOnTheProgramsInputIsIdleThoughItsOtherSideWaitsToo() throws {
        let input = PassthroughSubject<Int, Never>()
        let other = [1, 2, 3].publisher.append(Empty(completeImmediately: false))
        let c = input.zip(other).sink { _ in }
        let zip = try XCTUnwrap(stages("Zip").first)
        let subject = try XCTUnwrap(stages("PassthroughSubject").first).id
        let now = later
        let wait = try XCTUnwrap(Waits(probe.graph, now: now, after: 2).pipeline(zip.id))
        XCTAssertEqual(wait.at, subject, "it waits on the side that sent nothing, not on the silent Empty behind 3 values")
        XCTAssertEqual(lints(now: now).filter { $0.kind == .stalled }, [], "the program's own input: idle")
        c.cancel()
    }

    func testAZipThatGotAsManyFromEachSideWaitsOnEvery() throws {
        let a = PassthroughSubject<Int, Never>(), b = PassthroughSubject<Int, Never>()
        let c = a.zip(b).sink { _ in }
        a.send(1)
        b.send(1)
        let zip = try XCTUnwrap(stages("Zip").first)
        let subjects = stages("PassthroughSubject").map(\.id)
        let now = later
        let wait = try XCTUnwrap(Waits(probe.graph, now: now, after: 2).pipeline(zip.id))
        XCTAssertEqual(wait.combiner(of: zip.id, in: probe.graph)?.text(in: probe.graph),
                       "#\(zip.id) Zip waits on every input for its next value: 1 value from #\(subjects[0]), "
                       + "1 from #\(subjects[1])")
        c.cancel()
    }

    func testAZip3NamesItsMiddleInput() throws {
        let a = PassthroughSubject<Int, Never>(), b = PassthroughSubject<Int, Never>(), d = PassthroughSubject<Int, Never>()
        let c = a.zip(b, d).sink { _ in }
        a.send(1)
        d.send(1)
        let zip = try XCTUnwrap(stages("Zip3").first)
        let subjects = stages("PassthroughSubject").map(\.id)
        let wait = try XCTUnwrap(Waits(probe.graph, now: later, after: 2).pipeline(zip.id))
        XCTAssertEqual(wait.at, subjects[1])
        XCTAssertEqual(wait.combiner(of: zip.id, in: probe.graph)?.text(in: probe.graph),
                       "#\(zip.id) Zip3 waits on its 2nd input (#\(subjects[1]) PassthroughSubject): "
                       + "1 value from #\(subjects[0]), 0 from #\(subjects[1]), 1 from #\(subjects[2])")
        c.cancel()
    }

    func testAMapThatIsNoCombinerAddsNothing() throws {
        let c = Future<Int, Never> { _ in }.map { $0 }.sink { _ in }
        let map = try XCTUnwrap(stages("Map").first)
        let wait = try XCTUnwrap(Waits(probe.graph, now: later, after: 2).pipeline(map.id))
        XCTAssertNil(wait.combiner(of: map.id, in: probe.graph))
        XCTAssertFalse(wait.sentence(of: map.id, in: probe.graph, now: later).contains(";"))
        c.cancel()
    }
}
