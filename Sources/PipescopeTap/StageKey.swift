@preconcurrency import OpenCombine

/// How the tap recognises a stage in OpenCombine's callbacks: the subscriber's
/// identity *and* its type.
///
/// Identity alone is not enough: some operators give an internal subscriber the same
/// `CombineIdentifier` as another (prefix(untilOutputFrom:)'s termination subscriber
/// shares its inner's), and addresses are reused. The type is known statically in every
/// callback, so adding it costs nothing.
package struct StageKey: Hashable {
    let id: CombineIdentifier
    let type: ObjectIdentifier

    package init<S: Subscriber>(_ subscriber: S) {
        id = subscriber.combineIdentifier
        type = ObjectIdentifier(S.self)
    }

    /// A subscription that is also a subscriber (subscribe(on:)'s inner, for one).
    package init(subscription: any Subscription) {
        id = subscription.combineIdentifier
        type = ObjectIdentifier(Swift.type(of: subscription))
    }

    package init(id: CombineIdentifier, type: ObjectIdentifier) {
        self.id = id
        self.type = type
    }

    /// One word into the hasher instead of two: every value looks a stage up by its key.
    /// (`CombineIdentifier` is a single `UInt64`: an address or a counter.)
    package func hash(into hasher: inout Hasher) {
        let raw = unsafeBitCast(id, to: UInt64.self)
        hasher.combine(raw ^ (UInt64(UInt(bitPattern: type)) &* 0x9E37_79B9_7F4A_7C15))
    }
}
