/// What happened to a stage. The raw values are the wire protocol's `EventKind` numbers,
/// so converting is a copy of one byte.
public enum EventKind: UInt8, Hashable, Sendable, CaseIterable {
    /// A kind this build does not know (a newer probe): ignored by the fold.
    case unknown = 0
    /// A new stage; its ``NodeInfo`` travels with the batch.
    case subscribe = 1
    /// The stage received its subscription; `other` is the stage owning that object.
    case subscription = 2
    /// `demand` requested through `request(_:)`.
    case request = 3
    /// A value delivered to the stage's subscriber; `text` is its description when captured.
    case value = 4
    /// `demand` returned by the subscriber's `receive(_:)`.
    case demand = 5
    case finished = 6
    /// `text` is the error.
    case failed = 7
    /// `cause` says by whom.
    case cancelled = 8
    /// The stage forwards its subscriber unchanged to `other` (type erasure): `other`'s
    /// events are mirrored onto it.
    case forward = 9
    /// A root subscribed with nothing on the thread's stack turned out to be upstream of
    /// `other` (subscribe(on:)): it moves under `other`.
    case adopt = 10
    /// The stage delivers into a subject that stage `other` publishes: it feeds `other` too.
    case feeds = 11
    /// The root now belongs to owner `other`, named `text` (a CancellableBag).
    case owned = 12
    /// Owner `other` was released; `node` is 0.
    case ownerReleased = 13
    /// The stage broke the promise it was declared with; `text` says how.
    case contractBroken = 14

    /// Request and demand events carry a demand; the others may name another stage.
    public var carriesDemand: Bool { self == .request || self == .demand }
}
