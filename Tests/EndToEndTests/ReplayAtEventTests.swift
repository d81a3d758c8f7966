import Foundation
import PipescopeTestSupport
import XCTest

/// `pipescope replay FILE --print|--json --at K` from the command line: the state right
/// after event K, titled with K and its time; a K the recording does not hold, or `--at`
/// without an output to print, is refused with what to do.
final class ReplayAtEventTests: XCTestCase {
    private static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/demo-v3.pipescope").path

    func testTheLastEventIsTheEndAndAnEarlierOneIsTitledWithItsNumberAndTime() throws {
        let end = try Programs.run(Programs.pipescope, ["replay", Self.fixture, "--print"])
        let last = try Programs.run(Programs.pipescope, ["replay", Self.fixture, "--print", "--at", "499"])
        XCTAssertEqual([end.status, last.status], [0, 0], last.stderr)
        let endLines = end.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        let lastLines = last.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertEqual(lastLines.dropFirst(), endLines.dropFirst(), "after its last event, a recording is as it ends")
        // The time is the event's, on this machine's clock (its time zone).
        XCTAssertNotNil(String(lastLines.first ?? "").wholeMatch(
            of: #/pipescope-demo \(pid 1192, recorded\) at event 499, [0-9]{2}:[0-9]{2}:55\.840: 38 stages, 0 events dropped/#),
            String(lastLines.first ?? ""))

        let early = try Programs.run(Programs.pipescope, ["replay", Self.fixture, "--print", "--at", "384"])
        XCTAssertEqual(early.status, 0, early.stderr)
        XCTAssertNotNil(early.stdout.prefixMatch(
            of: #/pipescope-demo \(pid 1192, recorded\) at event 384, [0-9]{2}:[0-9]{2}:53\.090: 34 stages/#), early.stdout)
        XCTAssertNotEqual(early.stdout.split(separator: "\n").dropFirst(), endLines.dropFirst())
    }

    func testAnEventTheRecordingDoesNotHoldIsRefused() throws {
        let before = try Programs.run(Programs.pipescope, ["replay", Self.fixture, "--json", "--at", "12"])
        XCTAssertEqual(before.status, 1)
        XCTAssertEqual(before.stdout, "")
        XCTAssertEqual(before.stderr, "pipescope: \(Self.fixture) has no event 12: its events are numbered 384 to 499.\n")
        let tui = try Programs.run(Programs.pipescope, ["replay", Self.fixture, "--at", "400"])
        XCTAssertEqual(tui.status, 64)
        XCTAssertTrue(tui.stderr.hasPrefix("pipescope: --at is for --print and --json; in the inspector, g and [ ] move "
                                           + "through the history."), tui.stderr)
    }
}
