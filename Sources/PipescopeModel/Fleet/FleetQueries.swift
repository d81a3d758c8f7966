/// The PromQL `pipescope top --prometheus` asks, and how the answers become rows: one
/// query per column, summed by `instance`, and one that lists the programs with their
/// `job` and `pipescope_probe` labels.
///
/// ```swift
/// let answers = FleetQueries.all.map { try client.query($0.promQL) }   // PrometheusVector each
/// let rows = FleetQueries.rows(answers)                                // one per instance
/// ```
public enum FleetQueries {
    public enum Query: String, CaseIterable, Sendable {
        case programs, pipelines, waiting, lints, dropped

        /// What is sent as `/api/v1/query?query=…`.
        public var promQL: String {
            switch self {
            // Every program with any pipescope series, whichever it has; the probe label
            // is one the scrape config gives its target (Fleet.md).
            case .programs: return #"count by (instance, job, pipescope_probe) ({__name__=~"pipescope_.+"})"#
            case .pipelines: return "sum by (instance) (pipescope_pipelines)"
            case .waiting: return "sum by (instance) (pipescope_pipelines_waiting)"
            case .lints: return "sum by (instance) (pipescope_lints_total)"
            case .dropped: return "sum by (instance) (pipescope_events_dropped_total)"
            }
        }
    }

    /// The label a scrape target carries to say where its program's probe is.
    public static let probeLabel = "pipescope_probe"

    /// One row per instance named in `answers` (keyed by query), its numbers filled from
    /// the per-column answers; `reach` decides each row's way in (a label, a local pid).
    /// An instance scraped by two jobs is one row: the first job's name, by name order.
    public static func rows(_ answers: [Query: PrometheusVector],
                            reach: (_ instance: String, _ probeLabel: String?) -> FleetRow.Reach) -> [FleetRow] {
        var byInstance: [String: FleetRow] = [:]
        var probes: [String: String] = [:]
        for sample in answers[.programs]?.samples ?? [] {
            guard let instance = sample.labels["instance"] else { continue }
            let job = sample.labels["job"] ?? ""
            if let probe = sample.labels[probeLabel], !probe.isEmpty { probes[instance] = probe }
            if let row = byInstance[instance], !row.job.isEmpty, row.job <= job { continue }
            byInstance[instance] = FleetRow(instance: instance, job: job)
        }
        let columns: [(Query, WritableKeyPath<FleetRow, Double?>)] = [
            (.pipelines, \.pipelines), (.waiting, \.waiting), (.lints, \.lints), (.dropped, \.dropped),
        ]
        for (query, path) in columns {
            for sample in answers[query]?.samples ?? [] {
                guard let instance = sample.labels["instance"] else { continue }
                byInstance[instance, default: FleetRow(instance: instance)][keyPath: path] = sample.value
            }
        }
        return byInstance.values.map { row in
            var row = row
            row.reach = reach(row.instance, probes[row.instance])
            return row
        }
    }
}
