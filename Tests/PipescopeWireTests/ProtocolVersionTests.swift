import PipescopeWire
import XCTest

final class ProtocolVersionTests: XCTestCase {
    func testMismatchMessageNamesBothVersions() {
        let text = ProtocolVersion.mismatchMessage(local: 1, remote: 7)
        XCTAssertTrue(text.contains("version 1"), text)
        XCTAssertTrue(text.contains("7"), text)
        XCTAssertTrue(text.contains("mismatch"), text)
    }

    func testMismatchMessageDistinguishesTheSides() {
        let a = ProtocolVersion.mismatchMessage(local: 2, remote: 3)
        let b = ProtocolVersion.mismatchMessage(local: 3, remote: 2)
        XCTAssertNotEqual(a, b, "which side speaks which version must be clear")
        XCTAssertTrue(a.contains("this side speaks version 2"), a)
    }

    func testHelloCarriesTheCurrentVersion() {
        XCTAssertEqual(ClientMessage.hello(client: "x").hello.protocolVersion, ProtocolVersion.current)
        XCTAssertEqual(ProtocolVersion.current, 5, "version 5: a snapshot past the frame limit travels in parts")
        XCTAssertEqual(ProtocolVersion.readable, 1...5, "recordings of versions 1 to 4 still replay")
    }
}
