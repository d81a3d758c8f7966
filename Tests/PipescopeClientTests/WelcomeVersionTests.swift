import PipescopeClient
import PipescopeModel
import PipescopeWire
import XCTest

/// Which Welcomes the inspector reads: its own version's, and older versions' (a
/// recording keeps the version of the probe that made it); a newer version's becomes a
/// disconnection that names both versions.
final class WelcomeVersionTests: XCTestCase {
    private func message(version: UInt32) throws -> Message {
        var welcome = ServerMessage()
        welcome.welcome.protocolVersion = version
        welcome.welcome.processName = "Feed"
        welcome.welcome.pid = 42
        var reader = WireStreamReader()
        return try Message(welcome, reader: &reader)
    }

    func testTheCurrentAndOlderVersionsAttach() throws {
        for version in [ProtocolVersion.current, 2, 1] {
            guard case .attached(let process, let pid, let readOnly) = try message(version: version) else {
                XCTFail("version \(version) was not read")
                continue
            }
            XCTAssertEqual(process, "Feed")
            XCTAssertEqual(pid, 42)
            XCTAssertFalse(readOnly)
        }
    }

    func testANewerVersionIsRefusedWithBothNumbers() throws {
        let newer = ProtocolVersion.current + 1
        guard case .disconnected(let why) = try message(version: newer) else {
            return XCTFail("a version \(newer) Welcome was read")
        }
        XCTAssertTrue(why.contains("this side speaks version \(ProtocolVersion.current)"), why)
        XCTAssertTrue(why.contains("\(newer)"), why)
    }

    func testVersionZeroIsNotAVersion() throws {
        guard case .disconnected = try message(version: 0) else { return XCTFail("version 0 was read") }
    }
}
