@preconcurrency import OpenCombine

/// Finds the subjects a stage publishes from or delivers into, so that one upstream
/// feeding a subject can be linked to every branch subscribed to that subject
/// (`share()`, `multicast`, `subscribe(subject)`).
///
/// Runs at subscribe time only, never per value.
enum SubjectIdentity {
    /// The subject behind a publisher, if the publisher is one.
    static func subject<P: Publisher>(publishedBy publisher: P) -> ObjectIdentifier? {
        guard publisher is any Subject, P.self is AnyClass else { return nil }
        return ObjectIdentifier(publisher as AnyObject)
    }

    /// The subject an OpenCombine `SubjectSubscriber` delivers into. That type is
    /// internal; its mirror names the subject `downstreamSubject`.
    static func subject<S: Subscriber>(fedBy subscriber: S, typeName: String) -> ObjectIdentifier? {
        guard typeName.hasPrefix("SubjectSubscriber<") else { return nil }
        guard let child = Mirror(reflecting: subscriber).children.first(where: { $0.label == "downstreamSubject" })
        else { return nil }
        // The child is an Optional<Subject>; unwrap it through its own mirror.
        let optional = Mirror(reflecting: child.value)
        guard optional.displayStyle == .optional, let wrapped = optional.children.first?.value else { return nil }
        guard type(of: wrapped) is AnyClass else { return nil }
        return ObjectIdentifier(wrapped as AnyObject)
    }
}
