import PipescopeGraph

/// What was counted for stages the symbol thread has not placed yet, held by stage until
/// their place arrives: a value a new place's first pipeline received a flush before its
/// location came is counted at that place, not at `unknown` (which, read on a dashboard,
/// would be the user's own place under another name).
///
/// A stage leaves it at the first flush that finds it placed (``PipelineMetrics`` counts
/// what it held at its place then), or as `unknown` when it never will be: the symbol
/// thread has nothing left to do (``Probe/locationsPending`` false after a flush: every
/// stage flushed so far has its place or has none, as with locations off or a stripped
/// binary), the stage left the graph, or it was held ``maxAge`` nanoseconds. At most
/// ``limit`` stages are held, and ``samplesPerStage`` times each; beyond, at `unknown`
/// at once, so the memory is bounded whatever the program does.
///
/// ```swift
/// var unplaced = Unplaced()
/// unplaced.holdValue(root: 4, now: t)
/// unplaced.settle(in: graph, pending: false, now: t)   // [(location: "Feed.swift:12", …)]
/// ```
struct Unplaced {
    static let limit = 16_384
    static let samplesPerStage = 256
    static let maxAge: Int64 = 10_000_000_000

    /// Values received by a root's sink, and when it was first held.
    private var values: [NodeID: (count: Int64, since: Int64)] = [:]
    /// Own times of a stage (by operator), and when it was first held.
    private var times: [NodeID: (operatorName: String, nanos: [Int64], since: Int64)] = [:]

    var isEmpty: Bool { values.isEmpty && times.isEmpty }

    /// Holds `count` values the sink of `root` received; false when full (count them at
    /// `unknown`).
    mutating func holdValue(root: NodeID, count: Int64 = 1, now: Int64) -> Bool {
        if values[root] != nil {
            values[root]!.count += count
            return true
        }
        guard values.count + times.count < Self.limit else { return false }
        values[root] = (count, now)
        return true
    }

    /// Holds a value's own time at `stage`; false when full (record it at `unknown`).
    mutating func holdTime(stage: NodeID, operatorName: String, nanos: Int64, now: Int64) -> Bool {
        if let held = times[stage] {
            guard held.nanos.count < Self.samplesPerStage else { return false }
            times[stage]!.nanos.append(nanos)
            return true
        }
        guard values.count + times.count < Self.limit else { return false }
        times[stage] = (operatorName, [nanos], now)
        return true
    }

    /// What was held for the stages now placed, or never to be placed (at `unknown`),
    /// taken out: values by root location, times by (operator, location).
    mutating func settle(in graph: Graph, pending: Bool, now: Int64)
        -> (values: [(location: String, count: Int64)], times: [(pair: PipelineMetrics.StagePair, nanos: [Int64])]) {
        var settledValues: [(location: String, count: Int64)] = []
        var settledTimes: [(pair: PipelineMetrics.StagePair, nanos: [Int64])] = []
        // Sorted, so places reach the label caps in the order their stages were made.
        for root in values.keys.sorted() {
            guard let held = values[root] else { continue }
            if let location = graph[root]?.location?.short {
                settledValues.append((location, held.count))
            } else if !pending || graph[root] == nil || now - held.since >= Self.maxAge {
                settledValues.append((PipelineHealth.unknown, held.count))
            } else {
                continue
            }
            values[root] = nil
        }
        for stage in times.keys.sorted() {
            guard let held = times[stage] else { continue }
            let location: String
            if let placed = graph.location(of: stage)?.location.short {
                location = placed
            } else if !pending || graph[stage] == nil || now - held.since >= Self.maxAge {
                location = PipelineHealth.unknown
            } else {
                continue
            }
            settledTimes.append((PipelineMetrics.StagePair(operatorName: held.operatorName, location: location), held.nanos))
            times[stage] = nil
        }
        return (settledValues, settledTimes)
    }
}
