/// Where a stage's own code is, found after its ``NodeInfo`` was sent: "code at" and
/// "built by" (see ``NodeInfo/code`` and ``NodeInfo/builtBy``).
///
/// The probe reads the addresses of the closures a stage's publisher holds (a `map`'s
/// transform, a `sink`'s receiveValue) when it subscribes, and symbolizes them on a
/// thread of its own, like call stacks: the places follow their stage in the same or a
/// later batch (``EventBatch/codes``).
///
/// ```swift
/// batch.codes.append(StageCode(node: 7, code: SourceLocation(file: "/src/Feed.swift", line: 91,
///                                                           function: "closure #2 in Feed.start()")))
/// graph.fold(batch)
/// graph[7]?.code?.short   // "Feed.swift:91"
/// ```
public struct StageCode: Hashable, Sendable {
    public var node: NodeID
    /// The stage's own code (``NodeInfo/code``).
    public var code: SourceLocation?
    /// The function that built the stage's publisher, for an inner publisher
    /// (``NodeInfo/builtBy``).
    public var builtBy: SourceLocation?

    public init(node: NodeID, code: SourceLocation?, builtBy: SourceLocation? = nil) {
        self.node = node
        self.code = code
        self.builtBy = builtBy
    }
}
