/// An owner of subscriptions (a CancellableBag), as the inspector knows it: the graph
/// keeps one for each (``Graph/owners``), and a root stage it holds names it by ``id``
/// (``NodeSummary/ownerID``; ``Graph/owner(of:)`` looks it up).
public struct Owner: Hashable, Sendable, Identifiable {
    public var id: UInt64
    public var name: String
    /// When it was released; nil while alive.
    public var releasedNanos: Int64?

    public init(id: UInt64, name: String, releasedNanos: Int64? = nil) {
        self.id = id
        self.name = name
        self.releasedNanos = releasedNanos
    }
}
