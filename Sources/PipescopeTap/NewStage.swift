import PipescopeGraph

/// A new stage as the subscribing thread leaves it in the buffer: what its ``NodeInfo``
/// is made of, not the node info itself. The flush makes that
/// (``nodeInfo(id:createdNanos:threads:)``), on Pipescope's thread.
///
/// Why: a node info is about 180 bytes of strings and optionals, and building, moving and
/// destroying one for every stage, with a retain of each of its strings, would be the largest
/// piece of a subscribe that was ours alone. This is a few words: the type facts by
/// reference (one retain), the subscriber's own description when it has one, and the
/// thread's number.
///
/// Rules: it holds only our own objects and `String`s (never the subscriber or the
/// publisher), like everything in ``EventRing``.
struct NewStage {
    /// A name given by hand: a labelled stage's (``PipescopeLabelled``), or a synthetic
    /// stage's (a task). Rare, so boxed, keeping the common record small.
    final class Named: Sendable {
        let operatorName: String
        let publisherType: String
        init(operatorName: String, publisherType: String) {
            self.operatorName = operatorName
            self.publisherType = publisherType
        }
    }

    var parent: NodeID?
    /// The publisher's names and how its subscriber is described; nil for a synthetic
    /// stage.
    var facts: TypeNames.Subscribe?
    /// Overrides the facts' names when set.
    var named: Named?
    /// The subscriber's own description; nil when it is named by its type (the facts').
    var subscriber: String?
    /// ``ThreadDirectory``'s number of the thread that subscribed.
    var thread: UInt32
    /// The delivery in progress when it subscribed (``NodeInfo/madeFor``); 0 for none.
    var madeFor: EventID = 0
    /// The publisher's identity (``PublisherIdentity``); 0 for none.
    var publisher: UInt64 = 0
    /// Its publisher is a subject, or an `AnyPublisher` erasing one (``NodeInfo/subjectSource``).
    var subjectSource = false
    /// Subscribed while a value or completion was delivered (a `flatMap`'s, a `catch`'s
    /// inner publisher): its code's place also says who built it.
    var inner = false
    /// The test block that made it, for a root (``FindingScope/current``); 0 for none.
    var scope: UInt64 = 0

    /// Its node info, the thread's name read from `threads` (``ThreadDirectory/names``).
    func nodeInfo(id: NodeID, createdNanos: Int64, threads: [String]) -> NodeInfo {
        var info = NodeInfo(id: id, parent: parent,
                            operatorName: named?.operatorName ?? facts?.publisher.short ?? "",
                            publisherType: named?.publisherType ?? facts?.publisher.full ?? "",
                            subscriber: subscriber ?? facts?.typeName ?? "",
                            thread: Int(thread) < threads.count ? threads[Int(thread)] : "",
                            createdNanos: createdNanos, madeFor: madeFor, publisher: publisher, subjectSource: subjectSource)
        info.scope = scope
        return info
    }
}
