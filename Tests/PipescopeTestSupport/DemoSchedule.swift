import PipescopeGraph

/// The demo program's first seconds (Sources/PipescopeDemo), replayed as the events its
/// probe would send, on the demo's own schedule: a step every 300 ms; a request into the
/// FlatMap every 7 steps, answered 1.5 s later; a forgotten request every 15; the upload,
/// search and parser pipelines ending and being rebuilt; the lifecycle stories' screens
/// opening and closing every 40. Deterministic, so a test can look at "the demo after
/// two minutes" in a second instead of running it for two.
///
/// It follows the demo's shapes, not its threads: no pipeline is claimed by an owner it
/// was not stored in.
///
/// ```swift
/// for (batch, end) in DemoSchedule.batches(seconds: 120) {
///     _ = reduce(&state, .batch(batch))
///     _ = reduce(&state, .tick(nanos: end))       // prunes like the inspector does
/// }
/// ```
public struct DemoSchedule {
    private var b: BatchBuilder
    private var next: NodeID = 1
    private var nextOwner: UInt64 = 1
    private var answers: [(time: Int64, future: NodeID, request: Int)] = []
    private var upload: [NodeID] = []
    private var search: [NodeID] = []
    private var parser: [NodeID] = []
    private var profile: (owner: UInt64, stages: [NodeID])?
    private var feeds: [(owner: UInt64, name: String, task: NodeID, tied: Bool)] = []
    private var leakedTask: NodeID?

    static let stepNanos: Int64 = 300_000_000
    static let flatMap: NodeID = 5

    /// One batch per second of the demo's first `seconds`, each with the time it ends.
    public static func batches(seconds: Int, start: Int64 = BatchBuilder.baseNanos) -> [(EventBatch, Int64)] {
        var schedule = DemoSchedule(start: start)
        schedule.begin()
        var out: [(EventBatch, Int64)] = []
        var second: Int64 = 1
        var sequence: UInt64 = 0
        for step in 1...Int(Int64(seconds) * 1_000_000_000 / stepNanos) {
            let time = start + Int64(step) * stepNanos
            while time >= start + second * 1_000_000_000 {
                out.append(schedule.flush(end: start + second * 1_000_000_000, sequence: &sequence))
                second += 1
            }
            schedule.tick(step, at: time)
        }
        out.append(schedule.flush(end: start + Int64(seconds) * 1_000_000_000, sequence: &sequence))
        return out
    }

    private init(start: Int64) {
        b = BatchBuilder(start: start, step: 1_000)
    }

    private mutating func flush(end: Int64, sequence: inout UInt64) -> (EventBatch, Int64) {
        sequence += UInt64(b.batch.events.count)
        let batch = b.build(sequence: sequence)
        b.batch = EventBatch()
        return (batch, end)
    }

    private mutating func ids(_ count: Int) -> [NodeID] {
        defer { next += NodeID(count) }
        return (0..<count).map { next + NodeID($0) }
    }

    /// A chain root first: `ops[i]` is (operator, type); every stage asks for everything.
    private mutating func chain(_ ops: [(String, String)], subscriber: String) -> [NodeID] {
        let stages = ids(ops.count)
        for (i, (op, type)) in ops.enumerated() {
            b.subscribe(stages[i], parent: i == 0 ? 0 : stages[i - 1], op: op, type: type,
                        subscriber: i == 0 ? subscriber : ops[i - 1].0)
        }
        for stage in stages.reversed() { b.subscription(stage) }
        for stage in stages { b.request(stage, .unlimited) }
        return stages
    }

    // MARK: - The demo's start

    private mutating func begin() {
        // ticker: Timer.publish.autoconnect.map.filter.sink (ids 1…4, one subscription)
        let ticker = ids(4)
        b.subscribe(ticker[0], op: "Filter", type: "Filter<Map<Autoconnect<TimerPublisher>, Int>>", subscriber: "Sink")
        b.subscribe(ticker[1], parent: ticker[0], op: "Map", type: "Map<Autoconnect<TimerPublisher>, Int>",
                    subscriber: "Filter")
        b.subscribe(ticker[2], parent: ticker[1], op: "Autoconnect", type: "Autoconnect<TimerPublisher>", subscriber: "Map")
        b.subscribe(ticker[3], parent: ticker[2], op: "TimerPublisher", type: "TimerPublisher", subscriber: "Autoconnect")
        b.subscription(ticker[3])
        for stage in ticker.dropLast() { b.subscription(stage, owner: ticker[3]) }
        b.request(ticker[3], .unlimited)
        // requests: subject.flatMap { fetch($0) }.sink (5, 6)
        b.flatMapRoot(ids(2)[0])
        startUpload()
        startSearch()
        startParser()
        // The stories that stay: a broken promise and a publisher ignoring demand.
        let cache = chain([("story: cache lookup promised immediate", "PipescopeExpect<PassthroughSubject<String, Never>>"),
                           ("PassthroughSubject", "PassthroughSubject<String, Never>")], subscriber: "Sink")
        b.add(.contractBroken, cache[0]) {
            $0.text = "expected immediate: subscribed with demand, but nothing arrived during subscribe"
        }
        let rude = ids(2)
        b.subscribe(rude[0], op: "story: publisher ignoring demand", type: "PipescopeName<IgnoresDemand>",
                    subscriber: "DemandCounter")
        b.subscribe(rude[1], parent: rude[0], op: "IgnoresDemand", type: "IgnoresDemand",
                    subscriber: "story: publisher ignoring demand")
        b.subscription(rude[1])
        b.subscription(rude[0], owner: rude[1])
        b.request(rude[1], .count(1))
        for i in 0..<5 {
            b.value(rude[1], String(i))
            b.value(rude[0], String(i))
        }
    }

    private mutating func startUpload() {
        upload = chain([("Map", "Map<Scan<PassthroughSubject<Int, Never>, Int>, String>"),
                        ("Scan", "Scan<PassthroughSubject<Int, Never>, Int>"),
                        ("PassthroughSubject", "PassthroughSubject<Int, Never>")], subscriber: "Sink")
    }

    private mutating func startSearch() {
        search = chain([("RemoveDuplicates", "RemoveDuplicates<Debounce<PassthroughSubject<String, Never>>>"),
                        ("Debounce", "Debounce<PassthroughSubject<String, Never>>"),
                        ("PassthroughSubject", "PassthroughSubject<String, Never>")], subscriber: "Sink")
    }

    private mutating func startParser() {
        parser = chain([("TryMap", "TryMap<PassthroughSubject<String, Never>, Int>"),
                        ("PassthroughSubject", "PassthroughSubject<String, Never>")], subscriber: "Sink")
    }

    // MARK: - Every 300 ms

    private mutating func tick(_ step: Int, at time: Int64) {
        b.now = time
        for stage: NodeID in [4, 3, 2] { b.value(stage, "tick") }
        if step % 2 == 0 { b.value(1, String(step)) }
        while let first = answers.first, first.time <= time {
            answers.removeFirst()
            b.value(first.future, "response \(first.request)")
            b.value(Self.flatMap, "response \(first.request)")
            b.finish(first.future)
        }
        stories(step)
        if step % 7 == 0 {
            b.value(Self.flatMap + 1, String(step / 7))
            let future = ids(1)[0]
            b.innerFuture(future, under: Self.flatMap)
            answers.append((time + 1_500_000_000, future, step / 7))
        }
        if step % 15 == 0 { b.forgottenRequest(ids(3)[0]) }
        switch step % 20 {
        case ..<10: for stage in upload.reversed() { b.value(stage, "10") }
        case 10: for stage in upload.reversed() { b.finish(stage) }
        case 19: startUpload()
        default: break
        }
        switch step % 40 {
        case ..<25 where step % 3 == 0: for stage in search.reversed() { b.value(stage, "combine") }
        case 25: for stage in search { b.cancel(stage) }
        case 39: startSearch()
        default: break
        }
        switch step % 30 {
        case ..<12: for stage in parser.reversed() { b.value(stage, String(step)) }
        case 12:
            b.value(parser[1], "12a")
            b.fail(parser[0], "not a number: \"12a\"")
            b.cancel(parser[1])
        case 29: startParser()
        default: break
        }
    }

    /// The lifecycle stories: a ProfileScreen whose two pipelines end with it, and two
    /// FeedScreens whose tasks are tied to them or only watched.
    private mutating func stories(_ step: Int) {
        switch step % 40 {
        case 2:
            let owner = nextOwner
            nextOwner += 1
            let name = "story: ProfileScreen (closes after 4 s)"
            var stages: [NodeID] = []
            for (label, op) in [("profile avatar", "Map"), ("profile status", "Filter")] {
                let pipeline = chain([(label, "PipescopeName<\(op)<PassthroughSubject<Int, Never>>>"),
                                      (op, "\(op)<PassthroughSubject<Int, Never>>"),
                                      ("PassthroughSubject", "PassthroughSubject<Int, Never>")], subscriber: "Sink")
                b.add(.owned, pipeline[0]) { $0.other = owner; $0.text = name }
                stages += pipeline
            }
            profile = (owner, stages)
        case 14:
            guard let (owner, stages) = profile else { break }
            for (i, stage) in stages.enumerated() { b.cancel(stage, cause: i % 3 == 0 ? .owner : .downstream) }
            b.add(.ownerReleased, 0) { $0.other = owner; $0.text = "story: ProfileScreen (closes after 4 s)" }
            profile = nil
        case 5:
            feeds = []
            for (tied, name) in [(false, "story: FeedScreen, task only watched"), (true, "story: FeedScreen, task tied")] {
                let owner = nextOwner
                nextOwner += 1
                let task = ids(1)[0]
                b.subscribe(task, op: tied ? "feed refresh (tied)" : "feed refresh (not tied)", type: "Task<(), Never>",
                            subscriber: "Task")
                b.subscription(task)
                b.add(.owned, task) { $0.other = owner; $0.text = name }
                feeds.append((owner, name, task, tied))
            }
        case 18:
            for feed in feeds {
                if feed.tied { b.cancel(feed.task, cause: .owner) } else { leakedTask = feed.task }
                b.add(.ownerReleased, 0) { $0.other = feed.owner; $0.text = feed.name }
            }
            feeds = []
        case 36:
            if let task = leakedTask { b.cancel(task) }
            leakedTask = nil
        default:
            break
        }
    }
}
