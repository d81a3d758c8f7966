/// What a stage is, known once, when it subscribes: sent once and never changed, but for
/// its location, which can follow in a later batch (``LocatedStage``).
public struct NodeInfo: Hashable, Sendable {
    /// Pipescope's own sequential id: never reused, unlike CombineIdentifier addresses.
    public var id: NodeID
    /// The downstream stage; nil for a root (its subscriber is a sink, assign, …).
    public var parent: NodeID?
    /// Short operator name: "Map", "PassthroughSubject".
    public var operatorName: String
    /// The publisher's full type.
    public var publisherType: String
    /// The subscriber's description: "Sink", "Filter".
    public var subscriber: String
    /// The thread that subscribed.
    public var thread: String
    /// Wall clock, nanoseconds since 1970.
    public var createdNanos: Int64
    /// Where the program made it, for a root (the `sink`, `assign` or `subscribe` call)
    /// and for an inner publisher subscribed while a value was delivered (the code that
    /// sent it). Nil for the other stages: they are where their pipeline is (see
    /// ``Graph/location(of:)``), and when locations are off or no frame was the program's.
    public var location: SourceLocation?
    /// The program's frames that called ``location``, nearest first (a few at most): which
    /// caller it was when a helper function builds pipelines for several.
    public var frames: [SourceLocation]
    /// The event being delivered when this stage subscribed: the upstream value (or
    /// completion) it was made for. A `flatMap` subscribes the publisher its closure
    /// returns while the value it was given is delivered, `switchToLatest` while its
    /// upstream delivers the publisher, `catch` and `retry` while the failure is; so an
    /// inner publisher's values, which come later and often from another thread, trace
    /// back through it to that value. Set on the stage subscribed inside the delivery
    /// (the inner publisher's downstream end; the stages it subscribes in turn are part
    /// of it). 0 for a stage subscribed otherwise, or when that event was not recorded.
    public var madeFor: EventID
    /// Which publisher it was subscribed to: the same number for stages subscribed to one
    /// publisher (one `Future`, copies of one `AnyPublisher` or `Deferred`), different
    /// numbers for publishers made separately; 0 when its type gives none (most operators).
    /// An address in the program, kept as a number: it is only ever compared, and may be
    /// reused once every stage subscribed to the publisher has ended.
    public var publisher: UInt64
    /// Its publisher is a subject, or an `AnyPublisher` erasing one (whose box subscribes
    /// the subject out of the hook's sight, so the subject is no stage of its own): it
    /// sends only what the program sends it, and a wait on it is the program's input.
    public var subjectSource: Bool
    /// Where the stage's own code is ("code at"): the closure its operator runs (a `map`'s
    /// transform, a `filter`'s predicate, a `flatMap`'s transform, a `Deferred`'s
    /// createPublisher) or, for a root whose operator runs none, its sink's closure. Nil
    /// when it runs none of the program's code, or where that code is cannot be known (a
    /// `Future` keeps no closure; OpenCombine fused two `map`s into a closure of its own).
    /// Found after the stage is sent (``StageCode``).
    public var code: SourceLocation?
    /// For an inner publisher (subscribed while a `flatMap`, `catch` or `switchToLatest`
    /// ran), the function that built it, when its own code names one: the `Deferred`
    /// made in `API.search(_:)` is built by `API.search(_:)`, at the line of its closure
    /// there. (``Graph/builtBy(of:)`` falls back to the transform that returned it.)
    public var builtBy: SourceLocation?
    /// The test block whose task made this pipeline (`Pipescope.findings { }` in
    /// PipescopeTesting), read from a task-local value when a root subscribes; 0 for none,
    /// and for every stage but roots. In-process only: never on the wire, so a recording
    /// or an inspector always sees 0.
    public var scope: UInt64 = 0

    /// Inlinable: the tap makes one for every new stage, on the program's thread, and an
    /// opaque call across modules would copy each field (and the optional location) through
    /// outlined value witnesses.
    @inlinable
    public init(id: NodeID, parent: NodeID? = nil, operatorName: String, publisherType: String,
                subscriber: String, thread: String, createdNanos: Int64, location: SourceLocation? = nil,
                frames: [SourceLocation] = [], madeFor: EventID = 0, publisher: UInt64 = 0,
                subjectSource: Bool = false, code: SourceLocation? = nil, builtBy: SourceLocation? = nil) {
        self.id = id
        self.parent = parent == 0 ? nil : parent
        self.operatorName = operatorName
        self.publisherType = publisherType
        self.subscriber = subscriber
        self.thread = thread
        self.createdNanos = createdNanos
        self.location = location
        self.frames = frames
        self.madeFor = madeFor
        self.publisher = publisher
        self.subjectSource = subjectSource
        self.code = code
        self.builtBy = builtBy
    }
}
