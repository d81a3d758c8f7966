import PipescopeGraph

/// One stage of the document's `nodes`: what it is, its state and counts, and what the
/// inspector knows of it (where it was made, its wait, its time per value).
extension SnapshotJSON {
    struct Node: Encodable {
        var id: NodeID
        var parent: NodeID?
        var `operator`: String
        var publisherType: String
        var subscriber: String
        var status: String
        var demand: DemandJSON
        var values: Int
        var lastValue: String?
        /// Values newer than ``lastValue`` that were not described (sampled); omitted at 0.
        var undescribedSince: Int
        var cause: String?
        var error: String?
        var sharedWith: [NodeID]
        var orphaned: Bool
        var feeds: [NodeID]
        /// The CancellableBag holding this root, by name.
        var owner: String?
        var location: LocationJSON?
        var frames: [LocationJSON]
        var locationFrom: NodeID?
        /// Where its own code is, and (an inner publisher) what built it.
        var code: LocationJSON?
        var builtBy: BuiltByJSON?
        /// Which publisher it was subscribed to (nil: its type gives none), and the other
        /// stages subscribed to that one publisher (the repeated-work lint's evidence).
        var publisher: UInt64?
        var samePublisher: [NodeID]
        var subjectSource: Bool
        /// The event an inner publisher was made for, with its words when known.
        var madeFor: MadeForJSON?
        var wait: WaitJSON?
        /// Its operator's own time per value received; a root's sink's time.
        var time: TimeJSON?
        var sinkTime: TimeJSON?

        init(_ n: NodeSummary, in graph: Graph, wait: WaitJSON? = nil) {
            self.wait = wait
            id = n.id
            parent = n.parent
            `operator` = n.operatorName
            publisherType = n.publisherType
            subscriber = n.subscriber
            status = n.status.rawValue
            demand = DemandJSON(requested: n.requested, outstanding: n.outstanding)
            values = n.values
            lastValue = n.lastValue
            undescribedSince = n.undescribedSince
            cause = n.cause?.rawValue
            error = n.error
            orphaned = n.orphaned
            feeds = n.feeds
            owner = graph.owner(of: n.id)?.name
            let placed = graph.location(of: n.id)
            location = placed.map { LocationJSON($0.location) }
            frames = placed?.frames.map(LocationJSON.init) ?? []
            locationFrom = placed?.from
            code = n.code.map(LocationJSON.init)
            builtBy = graph.builtBy(of: n.id).map(BuiltByJSON.init)
            publisher = n.publisher == 0 ? nil : n.publisher
            // The first few: a subject that a pile-up subscribed 10,000 times would
            // otherwise list 10,000 ids in each of 10,000 stages.
            samePublisher = Array(graph.samePublisher(as: n.id).prefix(SnapshotJSON.samePublisherLimit))
            subjectSource = n.subjectSource
            madeFor = n.madeFor == 0 ? nil : MadeForJSON(event: n.madeFor, words: graph.madeForWords(of: n.id))
            // The whole group that passes one subscription object, without this stage.
            let owner = n.subscriptionOwner ?? n.id
            sharedWith = ([owner] + (graph[owner]?.sharers ?? [])).filter { $0 != n.id }.sorted()
            time = n.times.flatMap { TimeJSON($0.own) }
            sinkTime = n.times.flatMap { TimeJSON($0.sink) }
        }

        enum CodingKeys: String, CodingKey {
            case id, parent, `operator`, publisherType, subscriber, status, demand, values, lastValue, undescribedSince
            case cause, error, sharedWith, orphaned, feeds, owner, location, frames, locationFrom, wait
            case time, sinkTime, code, publisher, samePublisher, subjectSource, madeFor
            case builtBy = "built_by"
        }

        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(id, forKey: .id)
            try c.encode(parent, forKey: .parent)  // null for roots, not omitted
            try c.encode(`operator`, forKey: .operator)
            try c.encode(publisherType, forKey: .publisherType)
            try c.encode(subscriber, forKey: .subscriber)
            try c.encode(status, forKey: .status)
            try c.encode(demand, forKey: .demand)
            try c.encode(values, forKey: .values)
            try c.encode(lastValue, forKey: .lastValue)
            if undescribedSince > 0 { try c.encode(undescribedSince, forKey: .undescribedSince) }
            try c.encode(cause, forKey: .cause)
            try c.encode(error, forKey: .error)
            try c.encode(sharedWith, forKey: .sharedWith)
            try c.encode(orphaned, forKey: .orphaned)
            try c.encode(feeds, forKey: .feeds)
            try c.encode(owner, forKey: .owner)
            try c.encode(location, forKey: .location)
            try c.encode(frames, forKey: .frames)
            try c.encode(locationFrom, forKey: .locationFrom)
            try c.encode(code, forKey: .code)
            try c.encode(builtBy, forKey: .builtBy)
            try c.encode(publisher, forKey: .publisher)  // null when unknown, not omitted
            try c.encode(samePublisher, forKey: .samePublisher)
            try c.encode(subjectSource, forKey: .subjectSource)
            try c.encode(madeFor, forKey: .madeFor)
            try c.encode(wait, forKey: .wait)  // null while flowing or ended, not omitted
            try c.encode(time, forKey: .time)
            if parent == nil { try c.encode(sinkTime, forKey: .sinkTime) }
        }
    }
}
