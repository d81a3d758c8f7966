import Foundation
import Glibc

/// A stand-in for Prometheus' HTTP API on a loopback port: answers each `GET` with what
/// `answer` returns for its decoded query (`/api/v1/query?query=PROMQL`), on a thread of
/// its own, one connection at a time, `Connection: close`. Plain sockets, so a test target
/// needs no NIO to use it (the end-to-end tests, which run `pipescope top` against it).
///
/// ```swift
/// let server = try FakePrometheus { query in (200, FakePrometheus.vector([(["instance": "a:1"], "3")])) }
/// defer { server.stop() }
/// // http://127.0.0.1:\(server.port)
/// ```
public final class FakePrometheus: @unchecked Sendable {
    public let port: Int
    private let fd: Int32
    private let answer: @Sendable (_ query: String) -> (status: Int, body: String)
    private let lock = NSLock()
    private var queries: [String] = []
    private var stopped = false

    public init(answer: @escaping @Sendable (_ query: String) -> (status: Int, body: String)) throws {
        self.answer = answer
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else { throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.fd = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    /// The queries asked so far, decoded, in order.
    public var asked: [String] {
        lock.lock()
        defer { lock.unlock() }
        return queries
    }

    /// Closes the port; the serving thread ends at its next accept.
    public func stop() {
        lock.lock()
        stopped = true
        lock.unlock()
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
    }

    /// Prometheus' success answer for an instant vector of `samples` (labels, value text).
    public static func vector(_ samples: [([String: String], String)]) -> String {
        let items = samples.map { labels, value in
            let metric = labels.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\"\($0.value)\"" }.joined(separator: ",")
            return "{\"metric\":{\(metric)},\"value\":[1764400000.123,\"\(value)\"]}"
        }
        return "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[\(items.joined(separator: ","))]}}"
    }

    private func serve() {
        while true {
            let client = accept(fd, nil, nil)
            if client < 0 {
                lock.lock()
                let done = stopped
                lock.unlock()
                if done { return }
                continue
            }
            handle(client)
            close(client)
        }
    }

    private func handle(_ client: Int32) {
        var request = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 4096)
        while !request.containsHeaderEnd {
            let n = read(client, &chunk, chunk.count)
            if n <= 0 { return }
            request += chunk[0..<n]
        }
        let line = String(decoding: request.prefix { $0 != 13 }, as: UTF8.self)  // GET /path HTTP/1.1
        let target = line.split(separator: " ").dropFirst().first.map(String.init) ?? ""
        let query = URLComponents(string: target)?.queryItems?.first { $0.name == "query" }?.value ?? ""
        lock.lock()
        queries.append(query)
        lock.unlock()
        let (status, body) = answer(query)
        let bytes = Array(body.utf8)
        let head = "HTTP/1.1 \(status) \(status == 200 ? "OK" : "Error")\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(bytes.count)\r\nConnection: close\r\n\r\n"
        let all = Array(head.utf8) + bytes
        var sent = 0
        while sent < all.count {
            let n = all[sent...].withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
            if n <= 0 { return }
            sent += n
        }
    }
}

private extension [UInt8] {
    var containsHeaderEnd: Bool {
        count >= 4 && indices.dropLast(3).contains { self[$0] == 13 && self[$0 + 1] == 10 && self[$0 + 2] == 13 && self[$0 + 3] == 10 }
    }
}
