/// What a stage is, known once, when it subscribes: sent once and never changed.
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

    public init(id: NodeID, parent: NodeID? = nil, operatorName: String, publisherType: String,
                subscriber: String, thread: String, createdNanos: Int64) {
        self.id = id
        self.parent = parent == 0 ? nil : parent
        self.operatorName = operatorName
        self.publisherType = publisherType
        self.subscriber = subscriber
        self.thread = thread
        self.createdNanos = createdNanos
    }
}
