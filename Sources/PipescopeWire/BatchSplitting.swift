import PipescopeGraph

extension EventBatch {
    /// About how many bytes a part may hold: half a frame, so a part always fits in one
    /// (Framing.maxFrameSize) with room for the columns' own bytes.
    public static let partBudget = Framing.maxFrameSize / 2

    /// This batch cut into consecutive parts that each fit in one frame.
    ///
    /// One flush can hold tens of thousands of events, each value described in up to a
    /// few hundred bytes when every value is captured: more than a frame may carry.
    /// Each part carries the NodeInfo of the stages subscribing in it and a trailer with
    /// its own sequence; the last carries the batch's whole trailer and the locations it
    /// and code places found for earlier stages, so folding the parts in order equals folding the whole
    /// batch.
    /// About what an event costs in a part: its words' bytes, or a scalar's 8.
    private static func size(of event: StageEvent) -> Int {
        switch event.value {
        case .text(let text): return 16 + text.utf8.count
        case .none: return 16
        case .int, .uint, .double, .float, .bool, .void: return 24
        }
    }

    public func parts(budget: Int = EventBatch.partBudget) -> [EventBatch] {
        // A scalar value counts as its 8 bytes: its words are never made to be weighed.
        let estimate = events.reduce(0) { $0 + Self.size(of: $1) }
            + nodes.reduce(0) { $0 + Self.size(of: $1) }
            + trailer.lastValues.values.reduce(0) { $0 + 16 + $1.utf8.count }
            + locations.reduce(0) { $0 + Self.size(of: $1) }
            + codes.reduce(0) { $0 + 8 + Self.size(of: $1.code, []) + Self.size(of: $1.builtBy, []) }
        guard estimate > budget else { return [self] }

        var parts: [EventBatch] = []
        var part = EventBatch()
        var size = 0
        var position = trailer.sequence &- UInt64(events.count)
        var nextInfo = 0
        for event in events {
            var cost = Self.size(of: event)
            // Infos are in the order of their subscribe events.
            let info = event.kind == .subscribe && nextInfo < nodes.count && nodes[nextInfo].id == event.node
                ? nodes[nextInfo] : nil
            if let info { cost += Self.size(of: info) }
            if size + cost > budget, !part.events.isEmpty {
                part.trailer = trailer.leading(at: position)
                parts.append(part)
                part = EventBatch()
                size = 0
            }
            if let info {
                part.nodes.append(info)
                nextInfo += 1
            }
            part.events.append(event)
            size += cost
            position &+= 1
        }
        part.trailer = trailer
        part.locations = locations
        part.codes = codes
        parts.append(part)
        return parts
    }

    private static func size(of info: NodeInfo) -> Int {
        48 + info.operatorName.utf8.count + info.publisherType.utf8.count + info.subscriber.utf8.count
            + info.thread.utf8.count + size(of: info.location, info.frames) + (info.madeFor != 0 ? 10 : 0)
    }

    private static func size(of located: LocatedStage) -> Int {
        8 + size(of: located.location, located.frames)
    }

    private static func size(of location: SourceLocation?, _ frames: [SourceLocation]) -> Int {
        guard let location else { return 0 }
        return ([location] + frames).reduce(0) { sum, l in
            sum + 24 + (l.file?.utf8.count ?? 0) + (l.function?.utf8.count ?? 0) + (l.image?.utf8.count ?? 0)
        }
    }
}
