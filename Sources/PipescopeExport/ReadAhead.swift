import Foundation
import PipescopeModel

/// A recording read (and decoded) ahead on a thread of its own, a few messages in front
/// of the export that takes them: reading and folding then share the two cores instead
/// of taking turns. ``RecordingExport/run(_:to:source:format:options:)`` reads through it.
///
/// It is itself ``MessageSource``: its counts are those of the messages taken so far,
/// so a damaged or cut recording is reported exactly as by the source. ``stop()`` ends
/// the thread and gives the source back (as its reading left it).
///
/// ```swift
/// let ahead = ReadAhead(try RecordingMessages(path: "app.pipescope"))
/// while let message = try ahead.next() { try exporter.consume(message) }
/// let recording = ahead.stop()
/// ```
final class ReadAhead<Source: MessageSource>: MessageSource, @unchecked Sendable {
    private enum Item {
        case message(Message)
        case end
        case failure(any Error)
    }

    /// How many messages may wait (each a batch of events, or a snapshot).
    static var depth: Int { 8 }

    // Guarded by `condition`: the reader thread appends, the export takes.
    private let condition = NSCondition()
    private var waiting: [(item: Item, read: Int, bytes: Int, truncated: Int, endReason: String?)] = []
    private var head = 0
    private var stopping = false
    private var readerDone = false
    /// Touched by the reader thread alone until `readerDone`.
    private var source: Source

    private(set) var messagesRead = 0
    private(set) var bytesRead = 0
    private(set) var truncatedBytes = 0
    private(set) var endReason: String?
    /// Known when the source was opened, so read before its thread starts.
    let beingWritten: Bool
    private var ended = false

    init(_ source: Source) {
        self.source = source
        beingWritten = source.beingWritten
        let thread = Thread { [self] in read() }
        thread.name = "pipescope.read-ahead"
        thread.start()
    }

    private func read() {
        var finished = false
        while !finished {
            let item: Item
            do {
                if let message = try source.next() { item = .message(message) } else { item = .end }
            } catch {
                item = .failure(error)
            }
            if case .message = item {} else { finished = true }
            condition.lock()
            while waiting.count - head >= Self.depth, !stopping { condition.wait() }
            if stopping {
                finished = true
            } else {
                waiting.append((item, source.messagesRead, source.bytesRead, source.truncatedBytes, source.endReason))
            }
            condition.broadcast()
            condition.unlock()
        }
        condition.lock()
        readerDone = true
        condition.broadcast()
        condition.unlock()
    }

    func next() throws -> Message? {
        guard !ended else { return nil }
        condition.lock()
        while head == waiting.count { condition.wait() }
        let entry = waiting[head]
        waiting[head].item = .end   // the export has it now: the buffer must not keep it alive
        head += 1
        if head > 64, head * 2 > waiting.count {
            waiting.removeFirst(head)
            head = 0
        }
        condition.broadcast()
        condition.unlock()
        messagesRead = entry.read
        bytesRead = entry.bytes
        truncatedBytes = entry.truncated
        endReason = entry.endReason
        switch entry.item {
        case .message(let message):
            return message
        case .end:
            ended = true
            return nil
        case .failure(let error):
            ended = true
            throw error
        }
    }

    /// Ends the reading (at once, if the export stopped early) and gives the source back.
    func stop() -> Source {
        condition.lock()
        stopping = true
        condition.broadcast()
        while !readerDone { condition.wait() }
        condition.unlock()
        return source
    }
}
