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
        XCTAssertEqual(ProtocolVersion.current, 4, "version 4: scalar values travel as numbers, in typed columns")
        XCTAssertEqual(ProtocolVersion.readable, 1...4, "recordings of versions 1, 2 and 3 still replay")
    }
}
