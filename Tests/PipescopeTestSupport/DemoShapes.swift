import PipescopeGraph

/// The event shapes the demo program makes (Sources/PipescopeDemo), as a probe reports
/// them, for model and view tests that need the demo's tree without running it for
/// minutes: a flatMap's inner Futures, forgotten requests, screens owning pipelines.
///
/// ```swift
/// var b = BatchBuilder()
/// b.flatMapRoot(1)                                     // 1 FlatMap → Sink, 2 PassthroughSubject
/// for id in 3...20 { b.innerFuture(id, under: 1, answer: "response \(id)") }
/// b.innerFuture(21, under: 1)                          // still waiting for its answer
/// ```
extension BatchBuilder {
    public static let futureType = "Future<String, Never>"

    /// `requests.flatMap { fetch($0) }.sink { _ in }`: `id` FlatMap → Sink, `id + 1` its
    /// PassthroughSubject, both asking for everything.
    public mutating func flatMapRoot(_ id: NodeID) {
        subscribe(id, op: "FlatMap", type: "FlatMap<Future<String, Never>, PassthroughSubject<Int, Never>>",
                  subscriber: "Sink")
        subscribe(id + 1, parent: id, op: "PassthroughSubject", type: "PassthroughSubject<Int, Never>",
                  subscriber: "FlatMap")
        subscription(id + 1)
        subscription(id)
        request(id, .unlimited)
        request(id + 1, .unlimited)
    }

    /// One inner `Future` of the FlatMap `parent`. With an `answer` it delivers it and
    /// finishes; without, it is still waiting (active).
    public mutating func innerFuture(_ id: NodeID, under parent: NodeID, answer: String? = nil,
                                     type: String = BatchBuilder.futureType) {
        subscribe(id, parent: parent, op: "Future", type: type, subscriber: "FlatMap")
        subscription(id)
        request(id, .unlimited)
        if let answer {
            value(id, answer)
            finish(id)
        }
    }

    /// `_ = fetch(id).map { … }.pipescopeName("story: forgotten request").sink { _ in }`:
    /// `id` the named stage → Sink, `id + 1` Map, `id + 2` Future; its AnyCancellable is
    /// dropped, so it is cancelled by its owner at once (the unretained-cancellable lint).
    public mutating func forgottenRequest(_ id: NodeID) {
        subscribe(id, op: "story: forgotten request", type: "Map<Future<String, Never>, String>", subscriber: "Sink")
        subscribe(id + 1, parent: id, op: "Map", type: "Map<Future<String, Never>, String>",
                  subscriber: "story: forgotten request")
        subscribe(id + 2, parent: id + 1, op: "Future", type: BatchBuilder.futureType, subscriber: "Map")
        subscription(id + 2)
        subscription(id + 1)
        subscription(id)
        request(id, .unlimited)
        cancel(id, cause: .owner)
        cancel(id + 1)
        cancel(id + 2)
    }

    /// `ticks.map { … }.pipescopeName(name).sink { _ in }` stored in the bag `owner`:
    /// `id` the named stage → Sink, `id + 1` Map, active.
    public mutating func ownedPipeline(_ id: NodeID, owner: UInt64, ownerName: String, name: String) {
        subscribe(id, op: name, type: "Map<PassthroughSubject<Int, Never>, String>", subscriber: "Sink")
        subscribe(id + 1, parent: id, op: "Map", type: "Map<PassthroughSubject<Int, Never>, String>", subscriber: name)
        subscription(id + 1)
        subscription(id)
        request(id, .unlimited)
        request(id + 1, .unlimited)
        add(.owned, id) { $0.other = owner; $0.text = ownerName }
    }

    /// `bag.watch(task, name: name)`: the task as the tap shows it, a root stage `id`
    /// (subscriber "Task", type `Task<(), Never>`) active at once, owned by `owner`.
    public mutating func watchedTask(_ id: NodeID, name: String, owner: UInt64, ownerName: String) {
        subscribe(id, op: name, type: "Task<(), Never>", subscriber: "Task")
        subscription(id, owner: id)
        add(.owned, id) { $0.other = owner; $0.text = ownerName }
    }

    /// The bag `owner` is released: its pipelines `ids` (as made by ``ownedPipeline``) are
    /// cancelled by their owner.
    public mutating func releaseOwner(_ owner: UInt64, name: String, pipelines ids: [NodeID]) {
        for id in ids {
            cancel(id, cause: .owner)
            cancel(id + 1)
        }
        add(.ownerReleased, 0) { $0.other = owner; $0.text = name }
    }
}
