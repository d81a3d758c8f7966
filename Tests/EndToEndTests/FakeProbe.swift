import Foundation
import PipescopeWire

/// A program's socket that answers an inspector with the frames a test gives it, then
/// keeps the connection open: for what a real probe never sends (an unreadable frame).
final class FakeProbe: @unchecked Sendable {
    let path: String
    private let listener: Int32
    private let lock = NSLock()
    private var connection: Int32 = -1
    private var thread: Thread?

    /// Listens at `path` and, for the first inspector that connects, writes `frames`.
    init(path: String, frames: [[UInt8]]) throws {
        self.path = path
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        guard listener >= 0 else { throw FakeProbeError("socket: errno \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw FakeProbeError("path too long: \(path)") }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, listen(listener, 1) == 0 else {
            close(listener)
            throw FakeProbeError("bind/listen at \(path): errno \(errno)")
        }
        let thread = Thread { [weak self] in
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else { return }
            self?.keep(fd)
            for frame in frames {
                _ = frame.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            }
        }
        self.thread = thread
        thread.start()
    }

    private func keep(_ fd: Int32) {
        lock.lock(); connection = fd; lock.unlock()
    }

    /// Closes the listener and the connection (which also ends the accepting thread).
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        lock.lock(); if connection >= 0 { close(connection) }; connection = -1; lock.unlock()
        unlink(path)
    }

    /// A Welcome from a program called `name`, as the first frame a probe sends.
    static func welcome(name: String, pid: Int32) -> [UInt8] {
        var message = ServerMessage()
        message.welcome.protocolVersion = ProtocolVersion.current
        message.welcome.processName = name
        message.welcome.pid = pid
        return message.framed()
    }

    /// An empty graph, as the second.
    static var emptySnapshot: [UInt8] {
        var message = ServerMessage()
        message.snapshot = WireSnapshot()
        return message.framed()
    }
}

struct FakeProbeError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
