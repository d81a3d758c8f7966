/// Who built an inner publisher, and how sure that is.
public struct StageBuilder: Hashable, Sendable {
    public var location: SourceLocation
    /// True when the function that built it is not known and ``location`` is the
    /// transform that returned it (the `flatMap`'s closure): a `Future` keeps no closure
    /// whose name would say which function made it.
    public var isTransform: Bool

    public init(location: SourceLocation, isTransform: Bool) {
        self.location = location
        self.isTransform = isTransform
    }
}

extension Graph {
    /// The function that built inner publisher `id` (subscribed while a `flatMap`,
    /// `catch` or `switchToLatest` ran): the probe's ``NodeSummary/builtBy`` when the
    /// publisher's own code names it; else the code of the operator it was subscribed
    /// under (the `flatMap`'s transform that returned it), marked as such. Nil for a stage
    /// that is not an inner publisher's, and when neither is known.
    ///
    /// ```swift
    /// graph.builtBy(of: futureStage)?.location.short   // "Search.swift:40", the flatMap's closure
    /// graph.builtBy(of: futureStage)?.isTransform      // true: Future keeps no closure
    /// ```
    public func builtBy(of id: NodeID) -> StageBuilder? {
        guard let node = nodes[id] else { return nil }
        if let builtBy = node.builtBy { return StageBuilder(location: builtBy, isTransform: false) }
        // An inner publisher records where it was subscribed itself; the stages made in
        // its downstream's subscribe do not (they are where their pipeline is).
        guard node.location != nil, let parent = node.parent, let code = nodes[parent]?.code else { return nil }
        return StageBuilder(location: code, isTransform: true)
    }

    /// The line to change about stage `id`: when its own code is the cause (a slow stage,
    /// a source that never sends), its ``NodeSummary/code``, else the function that built
    /// it (``builtBy(of:)``); otherwise, and when those are unknown, where it was
    /// subscribed (``location(of:)``).
    ///
    /// ```swift
    /// graph.lineToChange(slowMap, ownCode: true)?.short      // "Feed.swift:91", its closure
    /// graph.lineToChange(sinkStage, ownCode: false)?.short   // "Feed.swift:88", the sink call
    /// ```
    public func lineToChange(_ id: NodeID, ownCode: Bool) -> SourceLocation? {
        if ownCode {
            if let code = nodes[id]?.code { return code }
            if let built = builtBy(of: id) { return built.location }
        }
        return location(of: id)?.location
    }
}
