import PipescopeGraph

extension LintKind {
    public static let lateShare = LintKind("late-share")
}

/// A subscriber that came to a `share()` after everything the shared upstream sent, and
/// got only the end: `Just(profile).share()` (or a shared request) read by two views, the
/// second subscribing once the first had its value. `share()` is a multicast through a
/// `PassthroughSubject`: it passes on only what comes after a subscriber arrives, and
/// replays nothing, so the late one sees no value, just `finished`.
///
/// Judged on the share's `Autoconnect` stage (every subscription to one `share()` has one,
/// with the same publisher identity, ``NodeSummary/publisher``, whether the share is
/// subscribed as itself or through an `AnyPublisher`; `multicast(_:).autoconnect()` is
/// the same thing): one that finished with no value and did not connect the upstream
/// itself (its branch ends at the multicast's subject: it joined a multicast already
/// connected), when the latest earlier subscription to that share received values and
/// had finished by the time this one subscribed. So it is quiet for a late subscriber
/// that still waits or got later values (a hot stream sharing as meant), one that came
/// before the end and saw no more values sent (it missed only what came before it, as a
/// hot stream's subscriber does), a failure, and a share whose upstream sent nothing. An
/// identity is an address, free again once every stage of it ended: the latest earlier
/// stage is the one most likely the same share, and a new one made at that address
/// connects its upstream itself.
///
/// ```
/// subscribed to the share() that #1 (subscribed at Profile.swift:12) had already
/// received its 1 value from and finished, and got no value, only the end: …
/// ```
enum LateShareRule: LintRule {
    static let kind = LintKind.lateShare
    static let summary = "subscribed to a share() after its values were sent: got only the end"
    static let advice = "share() replays nothing to a subscriber that comes later. Subscribe every subscriber before "
        + "the upstream sends (`.multicast { PassthroughSubject() }` and `connect()` once all are subscribed), keep "
        + "the value for latecomers (a CurrentValueSubject the upstream feeds), or subscribe the upstream anew "
        + "(drop the share()) if each subscriber should get its own values."

    static func check(_ n: NodeSummary, in context: LintContext) -> [String] {
        guard n.operatorName == "Autoconnect", n.status == .finished, n.values == 0, n.publisher != 0 else { return [] }
        let graph = context.graph
        guard let multicast = n.children.first.flatMap({ graph[$0] }), multicast.operatorName == "Multicast",
              !connectsUpstream(multicast, in: graph) else { return [] }
        // The latest earlier subscription to it (the identity index keeps only stages live
        // together, and the earlier one has ended: so a scan, on this rare stage only).
        var latest: NodeSummary?
        for other in graph.nodes.values where other.publisher == n.publisher && other.id != n.id
            && other.operatorName == "Autoconnect" && other.createdNanos < n.createdNanos {
            if latest.map({ (other.createdNanos, other.id) > ($0.createdNanos, $0.id) }) ?? true { latest = other }
        }
        guard let earlier = latest, earlier.values > 0, earlier.status == .finished,
              let ended = earlier.endedNanos, ended <= n.createdNanos else { return [] }
        let root = graph.pipeline(of: earlier.id) ?? earlier.id
        let site = graph.location(of: root).map { " (subscribed at \($0.location.short))" } ?? ""
        let values = earlier.values == 1 ? "its 1 value" : "its \(earlier.values) values"
        return ["subscribed to the share() that #\(root)\(site) had already received \(values) from and "
                + "finished, and got no value, only the end: " + advice]
    }

    /// Whether the upstream a multicast shares is subscribed under `multicast`'s subject: a
    /// share's first subscription connects it there; a later one's branch ends at the subject.
    static func connectsUpstream(_ multicast: NodeSummary, in graph: Graph) -> Bool {
        multicast.children.contains { graph[$0]?.children.isEmpty == false }
    }
}
