import Foundation

/// The one thread that symbolizes: it runs the jobs ``Locator``s give it, in order.
///
/// Symbolizing is slow the first time (the program's line tables are indexed, about
/// 100 ms in a debug build and seconds under ThreadSanitizer) and not free after (a
/// symbol lookup and a demangle per new address). On the flush thread it would hold up
/// the batch that carries the gate, so a paused program would look running; on the
/// program's threads it would slow the program. Here it delays only the locations,
/// which follow their stages in a later batch.
///
/// One per process, started at the first job: the Runtime module caches what it reads
/// per thread, and the binary's tables are the same whichever probe asks. Idle, it
/// waits on a condition and costs nothing.
package final class SymbolThread: @unchecked Sendable {
    static package let shared = SymbolThread()

    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private var running = false
    private var started = false

    /// Runs `job` on the symbol thread, after the jobs before it. Never waits for it.
    func run(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(job)
        if !started {
            started = true
            let thread = Thread { [self] in loop() }
            thread.name = "Pipescope symbols"
            thread.qualityOfService = .utility
            thread.start()
        }
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until every job given so far has run, or `timeout` seconds pass; whether
    /// they all ran. (Tests, and nothing on the program's or the flush's path.)
    @discardableResult
    package func waitUntilIdle(timeout: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while !jobs.isEmpty || running {
            if !condition.wait(until: deadline) { return jobs.isEmpty && !running }
        }
        return true
    }

    private func loop() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let batch = jobs
            jobs.removeAll()
            running = true
            condition.unlock()
            for job in batch { job() }
            condition.lock()
            running = false
            condition.broadcast()
            condition.unlock()
        }
    }
}
