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

    /// What the demo waits for before attaching: a socket file left by a killed program
    /// (bound, never unlinked, nothing listening) does not answer; a listening one does.
    func testOnlyAListeningSocketAnswers() throws {
        let path = "/tmp/pipescope-answers-\(getpid()).sock"
        unlink(path)
        defer { unlink(path) }
        XCTAssertFalse(SocketLocation.answers(path), "no file")

        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in path.utf8.enumerated() { raw[i] = b }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        XCTAssertEqual(bound, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: path))
        XCTAssertFalse(SocketLocation.answers(path), "the file is there, but nothing listens: a dead program's socket")
        XCTAssertEqual(listen(fd, 4), 0)
        XCTAssertTrue(SocketLocation.answers(path), "listening")
    }
}
