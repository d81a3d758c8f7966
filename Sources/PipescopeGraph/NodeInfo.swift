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

    /// Inlinable: the tap makes one for every new stage, on the program's thread, and an
    /// opaque call across modules would copy each field (and the optional location) through
    /// outlined value witnesses.
    @inlinable
    public init(id: NodeID, parent: NodeID? = nil, operatorName: String, publisherType: String,
                subscriber: String, thread: String, createdNanos: Int64, location: SourceLocation? = nil,
                frames: [SourceLocation] = [], code: SourceLocation? = nil, builtBy: SourceLocation? = nil) {
        self.id = id
        self.parent = parent == 0 ? nil : parent
        self.operatorName = operatorName
        self.publisherType = publisherType
        self.subscriber = subscriber
        self.thread = thread
        self.createdNanos = createdNanos
        self.location = location
        self.frames = frames
        self.code = code
        self.builtBy = builtBy
    }
}
