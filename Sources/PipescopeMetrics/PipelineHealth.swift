import PipescopeGraph
import PipescopeModel

/// The gauges' numbers at one moment, read from a graph: live pipelines by the place they
/// were made and their status, and waiting pipelines by what they wait for. A pure
/// function of the graph, so the metrics say what the inspector's table and WAIT column
/// say about the same graph.
///
/// ```swift
/// let health = PipelineHealth(graph, now: now, waitAfter: 2)
/// health.pipelines[PipelineHealth.Place(location: "Feed.swift:12", status: .active)]   // 3
/// health.waiting[.demand]                                                               // 1
/// ```
public struct PipelineHealth: Sendable, Equatable {
    /// One `pipescope_pipelines` series: where (``SourceLocation/short``, or ``unknown``
    /// before the symbol thread placed it, or with locations off) and in which state.
    public struct Place: Hashable, Sendable {
        public var location: String
        public var status: NodeStatus

        public init(location: String, status: NodeStatus) {
            self.location = location
            self.status = status
        }
    }

    /// The location of a pipeline not (yet) placed.
    public static let unknown = "unknown"

    /// Live pipelines (subscribing or active roots) by place; ended ones the graph still
    /// keeps for the inspector are not counted, so the number does not depend on retention.
    public var pipelines: [Place: Int] = [:]
    /// The places of ``pipelines``, each once, in the order their first live pipeline was
    /// made: the order the label caps see them in, so that which places keep their own
    /// series is the same on every run.
    public var places: [String] = []
    /// Waiting pipelines by reason, every reason present (0 when none waits for it).
    public var waiting: [WaitReason: Int]

    /// `placesPending`: the symbol thread still works on places (``Probe``'s
    /// `locationsPending`); a pipeline not placed yet is then left out of ``pipelines``
    /// until its place comes (a flush or two later; 10 s at most), rather than
    /// shown at `unknown` for that second: a series `unknown` is then only ever pipelines
    /// that have no place (locations off, a stripped binary). It still counts in ``waiting``.
    public init(_ graph: Graph, now: Int64, waitAfter: Double, placesPending: Bool = false) {
        waiting = Dictionary(uniqueKeysWithValues: WaitReason.allCases.map { ($0, 0) })
        // A set beside the list: at 10,000 places a list's `contains` made this quadratic.
        var seen: Set<String> = []
        for root in graph.roots {
            guard let node = graph[root], !node.status.isTerminal else { continue }
            if placesPending, node.location == nil, now - node.createdNanos < Unplaced.maxAge { continue }
            let place = Place(location: Self.location(of: node), status: node.status)
            if seen.insert(place.location).inserted { places.append(place.location) }
            pipelines[place, default: 0] += 1
        }
        for wait in Waits(graph, now: now, after: waitAfter).pipelines.values {
            waiting[wait.reason, default: 0] += 1
        }
    }

    /// A root's place as a label: `File.swift:LINE`.
    static func location(of node: NodeSummary) -> String {
        node.location?.short ?? unknown
    }
}
