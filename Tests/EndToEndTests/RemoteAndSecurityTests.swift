import Foundation
import PipescopeTestSupport
import XCTest

/// TCP attach with and without a token, and keeping other users out.
final class RemoteAndSecurityTests: XCTestCase {
    private var directory: String!

    override func setUp() { directory = makeTemporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }


    func testLoopbackTCPNeedsNoToken() throws {
        let port = freeTCPPort()
        let program = try ExampleProgram(socketPath: directory + "/t.sock", environment: ["PIPESCOPE_LISTEN": "127.0.0.1:\(port)"])
        defer { program.stop() }
        let out = try Programs.run(Programs.pipescope, ["snapshot", "tcp://127.0.0.1:\(port)", "--json"])
        XCTAssertEqual(out.status, 0, out.stderr)
        XCTAssertTrue(out.stdout.contains("\"operator\" : \"Filter\""), out.stdout)
    }

    func testANonLoopbackListenerRefusesToStartWithoutAToken() throws {
        let out = try Programs.run(Programs.example, [], environment: [
            "PIPESCOPE_SOCKET": directory + "/open.sock", "PIPESCOPE_LISTEN": "0.0.0.0:\(freeTCPPort())",
        ], timeout: 20)
        XCTAssertEqual(out.status, 1)
        XCTAssertTrue(out.stderr.contains("needs PIPESCOPE_TOKEN"), out.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory + "/open.sock"), "nothing is served")
    }

    func testATokenIsRequiredAndChecked() throws {
        let port = freeTCPPort()
        let program = try ExampleProgram(socketPath: directory + "/tok.sock", environment: [
            "PIPESCOPE_LISTEN": "0.0.0.0:\(port)", "PIPESCOPE_TOKEN": "s3cret",
        ])
        defer { program.stop() }
        let target = "tcp://127.0.0.1:\(port)"
        let none = try Programs.run(Programs.pipescope, ["snapshot", target], environment: ["PIPESCOPE_TOKEN": ""])
        XCTAssertEqual(none.status, 1)
        XCTAssertTrue(none.stderr.contains("requires a token"), none.stderr)
        let wrong = try Programs.run(Programs.pipescope, ["snapshot", target, "--token", "guess"])
        XCTAssertEqual(wrong.status, 1)
        XCTAssertTrue(wrong.stderr.contains("wrong token"), wrong.stderr)
        let right = try Programs.run(Programs.pipescope, ["snapshot", target, "--json"], environment: ["PIPESCOPE_TOKEN": "s3cret"])
        XCTAssertEqual(right.status, 0, right.stderr)
        XCTAssertTrue(program.process.isRunning, "refused inspectors did not harm the program")
        // The Unix socket needs no token: its permissions already keep others out.
        let local = try Programs.run(Programs.pipescope, ["snapshot", program.socketPath])
        XCTAssertEqual(local.status, 0, local.stderr)
    }

    /// The directory and socket modes are always checked; acting as another user needs
    /// root and runuser, which CI has (it runs as root).
    func testAnotherUserCannotConnect() throws {
        // A world-readable parent, so only Pipescope's own directory (0700) keeps them out.
        let open = "/tmp/pipescope-open-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        mkdir(open, 0o755)
        chmod(open, 0o755)
        defer { try? FileManager.default.removeItem(atPath: open) }
        let socket = open + "/private/app.sock"
        let program = try ExampleProgram(socketPath: socket)
        defer { program.stop() }
        var info = stat()
        XCTAssertEqual(stat(open + "/private", &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o700)
        XCTAssertEqual(stat(socket, &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o600)
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/sbin/runuser") else {
            print("RemoteAndSecurityTests: not root, so the connect as user nobody was not tried")
            return
        }
        let out = try Programs.run("/usr/sbin/runuser", ["-u", "nobody", "--", Programs.pipescope, "snapshot", socket])
        XCTAssertEqual(out.status, 1, out.stdout)
        XCTAssertTrue(out.stderr.contains("permission denied"), out.stderr)
        XCTAssertTrue(program.process.isRunning)
    }
}
