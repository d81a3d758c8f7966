import Foundation
@preconcurrency import OpenCombine
@testable import PipescopeProbe
import PipescopeClient
import PipescopeModel
import XCTest

/// The client attaches again by itself: a program that went away and came back at the
/// same socket is found within seconds, and the inspector is told it was a reconnection.
final class LiveLinkTests: ServedProbeTestCase {
    override class var directoryPrefix: String { "pipescope-live-link-test" }

    /// Polls `link` until a message satisfies `wanted` or 20 s pass; every message seen.
    private func poll(_ link: LiveLink, until wanted: (Message) -> Bool) -> [Message] {
        var seen: [Message] = []
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            let messages = link.poll()
            seen += messages
            if messages.contains(where: wanted) { break }
            if messages.isEmpty { usleep(20_000) }
        }
        return seen
    }

    func testALinkAttachesAgainToAProgramRestartedAtTheSameSocket() throws {
        let path = directory + "/probe.sock"
        let link = LiveLink(session: try ProbeSession.attach(path: path), reconnects: true)
        defer { link.close() }

        server.close()
        let gone = poll(link) { if case .disconnected = $0 { return true } else { return false } }
        XCTAssertTrue(gone.contains { if case .disconnected = $0 { return true } else { return false } },
                      "the program's end reaches the inspector: \(gone)")

        server = try ProbeServer(probe: probe, path: path)
        let back = poll(link) { if case .acknowledged(_, true, _) = $0 { return true } else { return false } }
        let said = back.compactMap { message -> String? in
            if case .acknowledged(_, true, let text) = message { return text } else { return nil }
        }
        XCTAssertEqual(said, ["reconnected to \(ProcessInfo.processInfo.processName) (pid \(getpid()))"])
        XCTAssertTrue(back.contains { if case .attached = $0 { return true } else { return false } },
                      "the new connection opens as any attach does: \(back)")
    }

    func testALinkThatDoesNotReconnectStaysDisconnected() throws {
        let path = directory + "/probe.sock"
        let link = LiveLink(session: try ProbeSession.attach(path: path), reconnects: false)
        defer { link.close() }
        server.close()
        let gone = poll(link) { if case .disconnected = $0 { return true } else { return false } }
        XCTAssertTrue(gone.contains { if case .disconnected = $0 { return true } else { return false } })
        server = try ProbeServer(probe: probe, path: path)
        // Past the one-second wait between attempts: an attempt would have been made.
        let deadline = Date().addingTimeInterval(1.5)
        var after: [Message] = []
        while Date() < deadline { after += link.poll(); usleep(50_000) }
        XCTAssertTrue(after.isEmpty, "no attempt to attach again: \(after)")
    }
}
