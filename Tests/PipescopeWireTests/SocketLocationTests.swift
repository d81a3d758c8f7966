import Foundation
import PipescopeWire
import XCTest

final class SocketLocationTests: XCTestCase {
    func testXDGRuntimeDirIsHonoured() {
        let env = ["XDG_RUNTIME_DIR": "/run/user/1000"]
        XCTAssertEqual(SocketLocation.directory(environment: env), "/run/user/1000/pipescope")
        XCTAssertEqual(SocketLocation.path(pid: 4242, environment: env), "/run/user/1000/pipescope/4242.sock")
    }

    func testFallsBackToTmpPerUser() {
        let expected = "/tmp/pipescope-\(getuid())"
        XCTAssertEqual(SocketLocation.directory(environment: [:]), expected)
        XCTAssertEqual(SocketLocation.directory(environment: ["XDG_RUNTIME_DIR": ""]), expected,
                       "an empty XDG_RUNTIME_DIR counts as unset")
        XCTAssertEqual(SocketLocation.path(pid: 7, environment: [:]), expected + "/7.sock")
    }

    func testResolvePidGivesThePidPath() {
        XCTAssertEqual(SocketLocation.resolve(target: "1234"), SocketLocation.path(pid: 1234))
        XCTAssertTrue(SocketLocation.resolve(target: "1234").hasSuffix("/1234.sock"))
    }

    func testResolvePathIsIdentity() {
        for path in ["/tmp/x.sock", "relative.sock", "./1234", "1234.sock", "/run/user/0/pipescope/9.sock"] {
            XCTAssertEqual(SocketLocation.resolve(target: path), path)
        }
    }

    func testResolveNonPositiveNumbersAreNotPids() {
        XCTAssertEqual(SocketLocation.resolve(target: "0"), "0")
        XCTAssertEqual(SocketLocation.resolve(target: "-5"), "-5")
    }

    func testOwnPathOverride() {
        let env = ["PIPESCOPE_SOCKET": "/tmp/custom.sock", "XDG_RUNTIME_DIR": "/run/user/1000"]
        XCTAssertEqual(SocketLocation.ownPath(environment: env), "/tmp/custom.sock")
    }

    func testOwnPathWithoutOverrideUsesOwnPid() {
        let env = ["PIPESCOPE_SOCKET": "", "XDG_RUNTIME_DIR": "/run/user/1000"]
        XCTAssertEqual(SocketLocation.ownPath(environment: env), "/run/user/1000/pipescope/\(getpid()).sock")
    }

    func testDefaultPathFitsASocketAddress() {
        let path = SocketLocation.path(pid: Int32.max, environment: ["XDG_RUNTIME_DIR": "/run/user/4294967294"])
        XCTAssertLessThanOrEqual(path.utf8.count, SocketLocation.maxPathLength)
    }
}
