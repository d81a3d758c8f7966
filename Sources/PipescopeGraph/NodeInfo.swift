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

    /// Inlinable: the tap makes one for every new stage, on the program's thread, and an
    /// opaque call across modules would copy each field (and the optional location) through
    /// outlined value witnesses.
    @inlinable
    public init(id: NodeID, parent: NodeID? = nil, operatorName: String, publisherType: String,
                subscriber: String, thread: String, createdNanos: Int64, location: SourceLocation? = nil,
                frames: [SourceLocation] = [], publisher: UInt64 = 0, subjectSource: Bool = false) {
        self.id = id
        self.parent = parent == 0 ? nil : parent
        self.operatorName = operatorName
        self.publisherType = publisherType
        self.subscriber = subscriber
        self.thread = thread
        self.createdNanos = createdNanos
        self.location = location
        self.frames = frames
        self.publisher = publisher
        self.subjectSource = subjectSource
    }
}
