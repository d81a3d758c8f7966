/// One program of the fleet, as `pipescope top --prometheus` shows it: one Prometheus
/// `instance` (the address Prometheus scrapes its metrics from) and the sums of its
/// `pipescope_*` series.
///
/// A number is nil when the program exports no such series (`pipescope_lints_total` before
/// its first lint, say); the table shows `-` and sorts it last.
///
/// ```swift
/// let row = FleetRow(instance: "10.0.0.7:9464", pipelines: 12, waiting: 1, lints: 3, dropped: 0,
///                    reach: .probe("tcp://10.0.0.7:9465"))
/// row.reach.target   // "tcp://10.0.0.7:9465"
/// ```
public struct FleetRow: Equatable, Sendable {
    /// How Enter reaches the program's probe from here, or why it cannot.
    public enum Reach: Equatable, Sendable {
        /// The scrape target's `pipescope_probe` label: `tcp://host:port`, a pid or a socket path.
        case probe(String)
        /// A program on this machine listening on the instance's port, with a Pipescope socket.
        case localPid(Int32)
        /// Neither: the words say why and what to do.
        case unreachable(String)

        /// What `pipescope attach` is given; nil when unreachable.
        public var target: String? {
            switch self {
            case .probe(let target): return target
            case .localPid(let pid): return String(pid)
            case .unreachable: return nil
            }
        }
    }

    public var instance: String
    public var job: String
    public var pipelines: Double?
    public var waiting: Double?
    public var lints: Double?
    public var dropped: Double?
    public var reach: Reach

    public init(instance: String, job: String = "", pipelines: Double? = nil, waiting: Double? = nil,
                lints: Double? = nil, dropped: Double? = nil, reach: Reach = .unreachable("")) {
        self.instance = instance
        self.job = job
        self.pipelines = pipelines
        self.waiting = waiting
        self.lints = lints
        self.dropped = dropped
        self.reach = reach
    }

    /// The instance's port, when it ends `:PORT` (`[::1]:9464`, `host:9464`).
    public var port: Int? {
        guard let colon = instance.lastIndex(of: ":") else { return nil }
        return Int(instance[instance.index(after: colon)...])
    }

    /// The instance's host, without its port or an IPv6 address' brackets.
    public var host: String {
        guard let colon = instance.lastIndex(of: ":"), port != nil else { return instance }
        return String(instance[..<colon]).trimmingCharacters(in: ["[", "]"])
    }

    /// Whether the host is this machine's loopback (a program top can find by its port).
    public var isLoopback: Bool {
        ["localhost", "127.0.0.1", "::1", "ip6-localhost"].contains(host) || host.hasPrefix("127.")
    }
}
