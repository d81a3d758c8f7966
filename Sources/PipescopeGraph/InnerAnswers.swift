/// What a `flatMap`'s inner publishers answered, in the order of the upstream values they
/// were made for: the fold's record, which the `out-of-order` lint reads.
///
/// A `flatMap` subscribes an inner publisher for each value its upstream delivers
/// (``NodeInfo/madeFor`` names that value) and passes on whatever any of them sends, as
/// it comes. When the inner made for an older value sends after the one made for a newer
/// value has sent, the older answer lands last: a search showing the results for "s"
/// while the query reads "shoe".
///
/// The words, exactly:
/// - an **input** is a value the flatMap's upstream delivered to it: its number, its
///   words and its cause. The newest ``inputLimit`` are kept, for the words of the values
///   inner publishers were made for (an older one is named by its number).
/// - an **answer** is a value an inner publisher sends to the flatMap, unless that inner
///   is a stream it joined rather than work it started: one whose source is a subject
///   (``Graph/isJoinedStream(_:in:)``). Those values flow whatever the input was.
/// - an answer is **late** when it answers an input older than one already answered.
///   Event numbers grow in the order the probe records events, so "older" is "smaller".
///   Two inputs sent inside one delivery (one upstream event fanned out: a sink's closure
///   sending several, one value expanded) are siblings, neither newer, so their answers
///   are never late to each other.
/// - only an answer counts, not a start: an inner made for a newer input that has
///   started but not yet answered makes nothing late. Overlapping work is what `flatMap`
///   is for; only an older answer landing after a newer one is visible downstream.
///
/// ```swift
/// // queries.flatMap { search($0) }: "s" (#12) then "shoe" (#20) sent, shoe answers first
/// graph[flatMap]?.innerAnswers?.newest?.value       // .text("shoe")
/// graph[flatMap]?.innerAnswers?.lastLate?.stale.value  // .text("s"), when "s" answers
/// ```
public struct InnerAnswers: Hashable, Sendable {
    /// A value the flatMap's upstream delivered to it.
    public struct Input: Hashable, Sendable {
        /// Its event number (``StageEvent/id``).
        public var event: EventID
        /// Its words; ``EventValue/none`` when it was not described, or is no longer kept.
        public var value: EventValue
        /// What it was delivered inside of (``StageEvent/causedBy``); 0 for none or unknown.
        public var causedBy: EventID

        public init(event: EventID, value: EventValue = .none, causedBy: EventID = 0) {
            self.event = event
            self.value = value
            self.causedBy = causedBy
        }
    }

    /// An answer that came after an answer to a newer input.
    public struct Late: Hashable, Sendable {
        /// The input it answered.
        public var stale: Input
        /// The newest input answered before it.
        public var fresh: Input
        /// The inner publisher that answered late (the stage made for `stale`).
        public var stage: NodeID
        /// When it answered.
        public var time: Int64

        public init(stale: Input, fresh: Input, stage: NodeID, time: Int64) {
            self.stale = stale
            self.fresh = fresh
            self.stage = stage
            self.time = time
        }
    }

    /// The newest inputs, oldest first: at most ``inputLimit``.
    public internal(set) var inputs: [Input] = []
    /// The newest input an inner publisher has answered so far.
    public internal(set) var newest: Input?
    /// How many answers came late (``Late``).
    public internal(set) var lateCount = 0
    /// The last of them.
    public internal(set) var lastLate: Late?
    /// Whether the inputs are a collection's elements: the upstream's source is a
    /// `Sequence` or `Record` publisher (learnt at the first input). Elements are not
    /// newer versions of each other.
    public internal(set) var fromCollection = false

    /// How many inputs are kept for their words.
    public static let inputLimit = 64

    public init() {}

    /// A record as a snapshot carries it (``Graph/snapshot()`` keeps only the inputs a
    /// live inner publisher was made for); `inputs` past ``inputLimit`` keep the newest.
    public init(inputs: [Input], newest: Input?, lateCount: Int, lastLate: Late?, fromCollection: Bool) {
        self.inputs = Array(inputs.suffix(Self.inputLimit))
        self.newest = newest
        self.lateCount = lateCount
        self.lastLate = lastLate
        self.fromCollection = fromCollection
    }

    /// Input number `event`, as kept; its number alone when it is no longer kept.
    public func input(_ event: EventID) -> Input {
        inputs.last { $0.event == event } ?? Input(event: event)
    }

    /// The words of input `event` wherever this record still has them: the inputs kept,
    /// the newest answered, the last late answer's two; ``EventValue/none`` otherwise.
    public func words(of event: EventID) -> EventValue {
        let known = inputs.reversed() + [newest, lastLate?.stale, lastLate?.fresh].compactMap { $0 }
        return known.first { $0.event == event && !$0.value.isEmpty }?.value ?? .none
    }

    mutating func received(_ input: Input) {
        if inputs.count == Self.inputLimit { inputs.removeFirst() }
        inputs.append(input)
    }

    /// An inner publisher made for input `event` sent a value at `time`.
    mutating func answered(_ event: EventID, by stage: NodeID, at time: Int64) {
        let input = input(event)
        guard let newest, newest.event > event else {
            if newest.map({ event > $0.event }) ?? true { self.newest = input }
            return
        }
        if newest.causedBy != 0, newest.causedBy == input.causedBy { return }
        lateCount += 1
        lastLate = Late(stale: input, fresh: newest, stage: stage, time: time)
    }
}

/// A stage's part in a merge (a `flatMap`): set when it is inserted under one.
enum MergeRole: UInt8, Hashable, Sendable {
    case none
    /// The flatMap's upstream: its values are the flatMap's inputs.
    case input
    /// An inner publisher (made for an input): its values are answers.
    case inner
    /// An inner publisher that is a stream the flatMap joined: its values are no answers.
    case stream
}

extension Graph {
    /// Whether `node` merges inner publishers made for its inputs: a `flatMap`, the one
    /// operator of OpenCombine 0.14 that keeps several inners alive at once (it has no
    /// `merge`; `switchToLatest` cancels the older inner, `concatenate`, `catch` and
    /// `retry` have one at a time).
    public static func mergesInners(_ node: NodeSummary) -> Bool {
        node.operatorName == "FlatMap"
    }

    /// Whether the inner publisher `id` is a stream joined rather than work started for
    /// its input: a subject (or `Published`, a timer, notifications) is in its subtree,
    /// so its values come from elsewhere whatever the input was.
    public static func isJoinedStream(_ id: NodeID, in graph: Graph) -> Bool {
        // Most inners are one stage (a Future, a sequence's publisher): no walk for them.
        guard let node = graph[id] else { return false }
        if node.children.isEmpty { return isStreamSource(node.operatorName) }
        return graph.subtree(id).contains { graph[$0].map { isStreamSource($0.operatorName) } ?? false }
    }

    /// Byte comparisons of the standard library only: Foundation's `contains` (its
    /// `range(of:)`, through NSString) took 16% of the probe's flush under a busy
    /// `flatMap`, which asks this for every inner publisher's first value.
    static func isStreamSource(_ operatorName: String) -> Bool {
        operatorName.hasSuffix("Subject") || operatorName.hasPrefix("Published")
            || contains(operatorName, "Timer") || contains(operatorName, "Notification")
    }

    /// Whether `part`'s UTF-8 bytes occur in `text`'s (read in place: a native string's
    /// bytes are contiguous).
    static func contains(_ text: String, _ part: StaticString) -> Bool {
        let needle = UnsafeBufferPointer(start: part.utf8Start, count: part.utf8CodeUnitCount)
        return text.utf8.withContiguousStorageIfAvailable { occurs(needle, in: $0) }
            ?? Array(text.utf8).withUnsafeBufferPointer { occurs(needle, in: $0) }
    }

    private static func occurs(_ needle: UnsafeBufferPointer<UInt8>, in hay: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = needle.first else { return true }
        guard hay.count >= needle.count else { return false }
        for start in 0...(hay.count - needle.count) where hay[start] == first {
            var i = 1
            while i < needle.count, hay[start + i] == needle[i] { i += 1 }
            if i == needle.count { return true }
        }
        return false
    }

    /// The words of the value inner publisher `id` was made for (``NodeSummary/madeFor``),
    /// when its parent is a `flatMap` that still has them (``InnerAnswers/words(of:)``);
    /// ``EventValue/none`` otherwise, and for a stage made for no value.
    ///
    /// ```swift
    /// // queries.flatMap { search($0) }; queries.send("s")
    /// graph.madeForWords(of: future)   // .text("s")
    /// ```
    public func madeForWords(of id: NodeID) -> EventValue {
        guard let node = nodes[id], node.madeFor != 0, let parent = node.parent,
              let answers = nodes[parent]?.innerAnswers else { return .none }
        return answers.words(of: node.madeFor)
    }

    /// The ``InnerAnswers`` of flatMap `node` as a snapshot carries them: the inputs that
    /// an inner publisher still live was made for, the only ones a later answer can name
    /// (an ended inner sends nothing more). A late answer already seen keeps both inputs'
    /// words in ``InnerAnswers/lastLate``, and the newest answered in
    /// ``InnerAnswers/newest``, so the rest of the 64 inputs' words need not travel.
    func awaitedAnswers(of node: NodeSummary) -> InnerAnswers? {
        guard var answers = node.innerAnswers else { return nil }
        var awaited = Set<EventID>()
        for child in node.children {
            guard let inner = nodes[child], inner.madeFor != 0, !inner.status.isTerminal else { continue }
            awaited.insert(inner.madeFor)
        }
        answers.inputs.removeAll { !awaited.contains($0.event) }
        return answers
    }

    /// Stage `id` and every stage upstream of it.
    func subtree(_ id: NodeID) -> [NodeID] {
        var found: [NodeID] = []
        var stack = [id]
        while let next = stack.popLast(), found.count <= nodes.count {
            found.append(next)
            stack.append(contentsOf: nodes[next]?.children ?? [])
        }
        return found
    }

    /// The role a new stage under `parent` has in a merge.
    func mergeRole(of node: NodeSummary, under parent: NodeSummary) -> MergeRole {
        guard Self.mergesInners(parent) else { return .none }
        return node.madeFor != 0 ? .inner : .input
    }

    /// A value of stage `id`, whose role in its parent's merge is `role`, at event `event`.
    mutating func noteMerge(_ event: StageEvent, stage id: NodeID, role: MergeRole) {
        guard let node = nodes[id], let parent = node.parent, let p = nodes.index(forKey: parent) else { return }
        switch role {
        case .none, .stream:
            return
        case .input:
            let first = nodes.values[p].innerAnswers == nil
            let fromCollection = first && subtree(id).contains { ["Sequence", "Record"].contains(nodes[$0]?.operatorName) }
            nodes.values[p].updateAnswers { answers in
                if fromCollection { answers.fromCollection = true }
                answers.received(InnerAnswers.Input(event: event.id, value: event.value, causedBy: event.causedBy))
            }
        case .inner:
            guard node.madeFor != 0 else { return }
            if node.values <= 1, Self.isJoinedStream(id, in: self) {
                if let i = nodes.index(forKey: id) { nodes.values[i].mergeRole = .stream }
                return
            }
            nodes.values[p].updateAnswers { $0.answered(node.madeFor, by: id, at: event.time) }
        }
        recorder.touch(parent)
    }
}
