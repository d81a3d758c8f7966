@preconcurrency import OpenCombine

/// Finds the subjects a stage publishes from or delivers into, so that one upstream
/// feeding a subject can be linked to every branch subscribed to that subject
/// (`share()`, `multicast`, `subscribe(subject)`).
///
/// Runs at subscribe time only, never per value; whether a type is a subject or feeds
/// one is decided once per type (``TypeNames/subscribe(_:_:)``).
enum SubjectIdentity {
    /// The identity of `publisher`, a subject whose type is a class (``TypeNames``
    /// found so, once for its type): its one word is the reference.
    @inline(__always)
    static func subject<P: Publisher>(_ publisher: P) -> ObjectIdentifier {
        ObjectIdentifier(unsafeBitCast(publisher, to: AnyObject.self))
    }

    /// Whether a subscriber of this type (as `String(describing:)` names it) is
    /// OpenCombine's `SubjectSubscriber`, which feeds a subject.
    static func feedsSubject(typeName: String) -> Bool {
        typeName.hasPrefix("SubjectSubscriber<")
    }

    /// The subject an OpenCombine `SubjectSubscriber` (``feedsSubject(typeName:)``)
    /// delivers into. That type is internal; its mirror names the subject
    /// `downstreamSubject`.
    static func subject<S: Subscriber>(fedBy subscriber: S) -> ObjectIdentifier? {
        guard let child = Mirror(reflecting: subscriber).children.first(where: { $0.label == "downstreamSubject" })
        else { return nil }
        // The child is an Optional<Subject>; unwrap it through its own mirror.
        let optional = Mirror(reflecting: child.value)
        guard optional.displayStyle == .optional, let wrapped = optional.children.first?.value else { return nil }
        guard type(of: wrapped) is AnyClass else { return nil }
        return ObjectIdentifier(wrapped as AnyObject)
    }
}
