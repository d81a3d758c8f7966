import Foundation
@testable import Pipescope
@testable import PipescopeLocations
@testable import PipescopeProbe
@testable import PipescopeTap
import PipescopeClient
import PipescopeModel
import PipescopeTestSupport
import PipescopeWire
import XCTest

/// Connections cannot exhaust the host: however many peers connect and say nothing, the
/// probe holds a bounded number of descriptors, closes the silent ones, and a real
/// inspector can still attach. Driven by raw sockets against a real server.
///
/// The probe runs in this test process, so the process's descriptor count mixes the
/// probe's with the test's own client sockets. The probe's side is counted two ways:
/// - exactly: the descriptors of sockets whose address is the probe's. An accepted
///   socket carries its listener's address in /proc/net/unix (or its local port in
///   /proc/net/tcp); a client's socket has none (or an ephemeral port).
/// - as a cross-check: every descriptor opened since the flood began, minus the client
///   sockets this test opened itself.
final class ConnectionLimitTests: XCTestCase {
    private var directory: String!
    private var path: String!
    private var probe: Probe!
    private var server: ProbeServer!
    private var limits: ServerLimits { server.limits }
    private var clients: [Int32] = []
    private var savedLimit: rlimit?

    override func setUpWithError() throws {
        directory = "/tmp/pipescope-limits-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        path = directory + "/probe.sock"
        probe = Probe()
    }

    private func startServer(environment: [String: String] = [:]) throws {
        server = try ProbeServer(probe: probe, path: path, environment: environment)
        probe.enable()
    }

    override func tearDown() {
        for fd in clients { close(fd) }
        clients = []
        probe.disable()
        server?.close()
        if var saved = savedLimit { setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &saved) }
        try? FileManager.default.removeItem(atPath: directory)
    }

    // MARK: - A thousand silent connections

    func testAThousandSilentConnectionsHoldABoundedNumberOfDescriptors() throws {
        try startServer()
        try raiseDescriptorLimit(toAtLeast: 1_000 + 256)
        let baseline = Set(openDescriptors().keys)
        var mostHeld = 0, mostOthers = 0
        for i in 0..<1_000 {
            clients.append(try connectUnix(path))
            if i % 10 == 9 {
                mostHeld = max(mostHeld, probeConnectionDescriptors())
                mostOthers = max(mostOthers, descriptorsOpenedByOthers(since: baseline))
            }
        }
        let whileOpen = openDescriptors().count
        mostHeld = max(mostHeld, probeConnectionDescriptors())
        mostOthers = max(mostOthers, descriptorsOpenedByOthers(since: baseline))
        print("connection limits: 1,000 silent connections open; the process holds \(whileOpen) descriptors "
              + "(\(baseline.count) before); the probe held at most \(mostHeld) connection descriptors "
              + "(cross-check: at most \(mostOthers) descriptors not the test's own)")
        // The ones waiting for their Hello, and one being accepted while another makes room.
        XCTAssertLessThanOrEqual(mostHeld, limits.handshakes + 1, "the probe's connections stay within its limit")
        XCTAssertLessThanOrEqual(mostOthers, limits.connections, "nothing else grew either")

        // While all thousand are still open on the test's side, a real inspector attaches.
        let inspector = try ProbeConnection.connect(path: path)
        defer { inspector.close() }
        XCTAssertNoThrow(try inspector.handshake(timeout: 30), "an inspector attaches during the flood")
        XCTAssertLessThanOrEqual(probeConnectionDescriptors(), limits.handshakes + 1)

        // Every silent connection is told why and closed: the oldest to make room, the
        // last ones when their Hello does not come.
        var reasons: [String: Int] = [:]
        for fd in clients {
            let text = errorThenEndOfFile(fd, within: 30) ?? "(no Error, or not closed)"
            let reason = ["closed to make room", "no Hello within 2 s"].first { text.hasPrefix($0) } ?? text
            reasons[reason, default: 0] += 1
        }
        print("connection limits: the silent connections were told \(reasons)")
        XCTAssertTrue(Set(reasons.keys).isSubset(of: ["closed to make room", "no Hello within 2 s"]), "\(reasons)")
        // The inspector made room too, so one fewer may have waited for the timeout.
        XCTAssertGreaterThanOrEqual(reasons["no Hello within 2 s"] ?? 0, limits.handshakes - 1,
                                    "the last ones waited for their Hello")
        XCTAssertTrue(eventually { self.probeConnectionDescriptors() == 1 },
                      "only the inspector's connection is left, not \(probeConnectionDescriptors()); \(server.connectionCounts())")
        XCTAssertEqual(server.connectionCounts().greeted, 1)
    }

    func testSilentTCPConnectionsNeedNoTokenAndAreBoundedToo() throws {
        let port = freeTCPPort()
        try startServer(environment: ["PIPESCOPE_LISTEN": "127.0.0.1:\(port)"])
        try raiseDescriptorLimit(toAtLeast: 200 + 256)
        let baseline = Set(openDescriptors().keys)
        var mostHeld = 0
        for i in 0..<200 {
            clients.append(try connectTCP(port: port))
            if i % 10 == 9 { mostHeld = max(mostHeld, probeTCPConnectionDescriptors(port: port)) }
        }
        mostHeld = max(mostHeld, probeTCPConnectionDescriptors(port: port))
        let others = descriptorsOpenedByOthers(since: baseline)
        print("connection limits: 200 silent TCP connections; the probe held at most \(mostHeld) (cross-check \(others))")
        XCTAssertLessThanOrEqual(mostHeld, limits.handshakes + 1)
        XCTAssertLessThanOrEqual(others, limits.connections)

        let inspector = try ProbeConnection.connect(to: .tcp(host: "127.0.0.1", port: port))
        defer { inspector.close() }
        XCTAssertNoThrow(try inspector.handshake(timeout: 30), "an inspector attaches over TCP during the flood")
        for fd in clients { XCTAssertNotNil(errorThenEndOfFile(fd, within: 30), "every silent connection is told why") }
        XCTAssertTrue(eventually { self.probeTCPConnectionDescriptors(port: port) == 1 }, "only the inspector is left")
    }

    // MARK: - Inspectors and the handshake

    func testTheInspectorAfterTheLimitIsToldWhyAndTheNextOneAfterADetachGetsIn() throws {
        try startServer()
        var attached: [ProbeConnection] = []
        defer { attached.forEach { $0.close() } }
        for _ in 0..<limits.inspectors {
            let connection = try ProbeConnection.connect(path: path)
            attached.append(connection)
            _ = try connection.handshake(timeout: 30)
        }
        let extra = try ProbeConnection.connect(path: path)
        defer { extra.close() }
        XCTAssertThrowsError(try extra.handshake(timeout: 30)) { error in
            XCTAssertEqual("\(error)", "the probe at \(path!) refused the connection: 8 inspectors are already attached "
                + "to this program, the most it serves at once; close one of them (q in its window), then attach again")
        }
        XCTAssertEqual(server.connectionCounts().greeted, limits.inspectors)

        attached.removeFirst().close()
        XCTAssertTrue(eventually { self.server.connectionCounts().greeted == self.limits.inspectors - 1 })
        let next = try ProbeConnection.connect(path: path)
        attached.append(next)
        XCTAssertNoThrow(try next.handshake(timeout: 30), "once one detaches, the next inspector gets in")
    }

    func testASilentConnectionIsClosedAfterTheHelloTimeout() throws {
        try startServer()
        let start = ProcessInfo.processInfo.systemUptime
        let silent = try ProbeConnection.connectWithoutHello(path: path)
        defer { silent.close() }
        var error: String?
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, error == nil {
            if case .disconnected(let text)? = silent.next(timeout: 1) { error = text }
        }
        XCTAssertEqual(error, "no Hello within 2 s, so the program closed the connection; "
            + "attach with `pipescope attach`, which says Hello at once",
                       "the probe's own words are the reason the connection ended")
        XCTAssertNil(silent.next(timeout: 0.5), "nothing after the end")
        XCTAssertGreaterThanOrEqual(ProcessInfo.processInfo.systemUptime - start, 2, "not before the timeout")
        XCTAssertTrue(eventually { self.probeConnectionDescriptors() == 0 })
    }

    // MARK: - Sockets

    private func connectUnix(_ path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        limitBlocking(fd)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in path.utf8.prefix(raw.count - 1).enumerated() { raw[i] = byte }
        }
        let ok = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard ok == 0 else {
            let code = errno
            close(fd)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
        return fd
    }

    private func connectTCP(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        limitBlocking(fd)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let ok = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard ok == 0 else {
            let code = errno
            close(fd)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
        return fd
    }

    /// A blocking connect or read gives up after 30 s instead of hanging the suite.
    private func limitBlocking(_ fd: Int32) {
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// The Error text the probe sent on `fd`, if it then closed the connection.
    private func errorThenEndOfFile(_ fd: Int32, within seconds: Double) -> String? {
        var decoder = FrameDecoder()
        var text: String?
        var chunk = [UInt8](repeating: 0, count: 4096)
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) > 0 else { continue }
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { return text }  // end of file (or reset, after the frame)
            decoder.append(chunk[0..<n])
            while let payload = try? decoder.next() {
                if case .error(let e)? = (try? ServerMessage.decode(payload: payload))?.body { text = e.message }
            }
        }
        return nil
    }


    // MARK: - Counting descriptors

    /// Raises this process's soft RLIMIT_NOFILE (often 1,024) for the flood; tearDown
    /// restores it.
    private func raiseDescriptorLimit(toAtLeast needed: Int) throws {
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        savedLimit = limit
        guard limit.rlim_cur < rlim_t(needed) else { return }
        guard limit.rlim_max >= rlim_t(needed) else {
            throw XCTSkip("this test needs \(needed) descriptors; the hard limit is \(limit.rlim_max)")
        }
        limit.rlim_cur = rlim_t(needed)
        XCTAssertEqual(setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit), 0)
    }

    /// This process's descriptors: number → what it refers to ("socket:[4242]", a path…).
    private func openDescriptors() -> [Int32: String] {
        var out: [Int32: String] = [:]
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for name in names {
            guard let fd = Int32(name) else { continue }
            if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + name) {
                out[fd] = target
            }
        }
        return out
    }

    /// Descriptors opened since `baseline` that are not this test's client sockets.
    private func descriptorsOpenedByOthers(since baseline: Set<Int32>) -> Int {
        let mine = Set(clients)
        return openDescriptors().keys.filter { !baseline.contains($0) && !mine.contains($0) }.count
    }

    /// Descriptors of the probe's accepted Unix connections: sockets whose address is in
    /// the probe's directory (where it was bound), not listening.
    private func probeConnectionDescriptors() -> Int {
        let table = readWhole("/proc/net/unix")
        var inodes = Set<String>()
        for line in table.split(separator: "\n").dropFirst() {
            // Num RefCount Protocol Flags Type St Inode Path
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 8, fields[7].hasPrefix(directory + "/"), fields[3] != "00010000" else { continue }
            inodes.insert("socket:[\(fields[6])]")
        }
        return openDescriptors().values.filter { inodes.contains($0) }.count
    }

    /// Descriptors of the probe's accepted TCP connections: local port `port`, not listening.
    private func probeTCPConnectionDescriptors(port: Int) -> Int {
        let table = readWhole("/proc/net/tcp")
        let local = String(format: ":%04X", port)
        var inodes = Set<String>()
        for line in table.split(separator: "\n").dropFirst() {
            // sl local_address rem_address st tx_queue:rx_queue tr:when retrnsmt uid timeout inode
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 10, fields[1].hasSuffix(local), fields[3] != "0A" else { continue }
            inodes.insert("socket:[\(fields[9])]")
        }
        return openDescriptors().values.filter { inodes.contains($0) }.count
    }

    /// A /proc file read to its end (`String(contentsOfFile:)` stops after its first 4 KiB).
    private func readWhole(_ path: String) -> String {
        guard let file = FileHandle(forReadingAtPath: path) else { return "" }
        defer { try? file.close() }
        return String(decoding: file.readDataToEndOfFile(), as: UTF8.self)
    }

    private func eventually(timeout: Double = 30, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            if Date() > deadline { return false }
            usleep(20_000)
        }
        return true
    }
}
