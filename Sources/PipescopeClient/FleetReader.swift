import Foundation
import PipescopeModel

/// Reads the fleet from Prometheus on a thread of its own, every ``interval`` (or at
/// once when asked), so the screen never waits for the network: the UI takes the newest
/// read with ``take()`` each turn.
///
/// Each read runs ``FleetQueries``' queries and decides each row's way in: the target's
/// `pipescope_probe` label when it has one; else, for a loopback instance, the program on
/// this machine listening on its port, if it serves a Pipescope socket; else why not.
///
/// ```swift
/// let reader = FleetReader(client: client)
/// reader.start()
/// if let read = reader.take() { state.apply(read, now: clock()) }
/// reader.stop()
/// ```
public final class FleetReader: @unchecked Sendable {
    public let client: PrometheusClient
    public let interval: TimeInterval
    private let condition = NSCondition()
    // Under `condition`:
    private var latest: FleetState.Read?
    private var wanted = false
    private var stopped = false
    private var thread: Thread?

    public init(client: PrometheusClient, interval: TimeInterval = 2) {
        self.client = client
        self.interval = interval
    }

    /// Starts reading, the first read at once.
    public func start() {
        let thread = Thread { [self] in loop() }
        thread.name = "pipescope-fleet"
        condition.lock()
        self.thread = thread
        condition.unlock()
        thread.start()
    }

    /// Asks for a read now rather than at the next interval.
    public func refresh() {
        condition.lock()
        wanted = true
        condition.signal()
        condition.unlock()
    }

    /// Ends the thread after its read in progress (which ends within the client's timeout).
    public func stop() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
    }

    /// The newest read since the last take, if one came.
    public func take() -> FleetState.Read? {
        condition.lock()
        defer { condition.unlock() }
        let read = latest
        latest = nil
        return read
    }

    private func loop() {
        while true {
            let read = Self.read(client)
            condition.lock()
            latest = read
            let until = Date(timeIntervalSinceNow: interval)
            while !stopped, !wanted, condition.wait(until: until) {}
            wanted = false
            let done = stopped
            condition.unlock()
            if done { return }
        }
    }

    /// One read of every query, as rows or the first failure.
    public static func read(_ client: PrometheusClient) -> FleetState.Read {
        var answers: [FleetQueries.Query: PrometheusVector] = [:]
        do {
            for query in FleetQueries.Query.allCases { answers[query] = try client.query(query.promQL) }
        } catch {
            return .failed(error.description)
        }
        return .rows(FleetQueries.rows(answers, reach: reach))
    }

    /// How Enter reaches the program scraped at `instance`.
    public static func reach(instance: String, probeLabel: String?) -> FleetRow.Reach {
        if let probeLabel { return .probe(probeLabel) }
        let row = FleetRow(instance: instance)
        let advice = "add the scrape target label \(FleetQueries.probeLabel)=\"tcp://HOST:PORT\" (see Fleet in the docs)"
        guard row.isLoopback, let port = row.port else {
            return .unreachable("its probe's address is unknown (\(instance) is its metrics port); \(advice)")
        }
        guard let pid = LocalListener.pid(listeningOn: port) else {
            return .unreachable("no process of yours here listens on port \(port) now (ended? another user's?); \(advice)")
        }
        guard ProbeDirectory.answers(ProbeDirectory.socketPath(pid: pid)) else {
            return .unreachable("pid \(pid) listens on port \(port) but serves no Pipescope socket at its default path; "
                + advice)
        }
        return .localPid(pid)
    }
}
