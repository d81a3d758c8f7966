import Foundation
@testable import PipescopeProbe
import XCTest

/// A probe tapping for the test, served on a Unix socket in a directory of its own
/// (`directory + "/probe.sock"`): for tests that attach a real session to it.
class ServedProbeTestCase: XCTestCase {
    var directory: String!
    var probe: Probe!
    var server: ProbeServer!
    /// Names the directory, so leftovers say which test made them.
    class var directoryPrefix: String { "pipescope-served-probe-test" }

    override func setUpWithError() throws {
        directory = "/tmp/\(Self.directoryPrefix)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        probe = Probe()
        server = try ProbeServer(probe: probe, path: directory + "/probe.sock")
        probe.enable()
    }

    override func tearDown() {
        probe.disable()
        server.close()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
