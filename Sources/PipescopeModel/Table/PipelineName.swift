import Foundation
import PipescopeGraph

/// What the pipelines table calls a pipeline: the name the program gave one of its
/// stages with `.pipescopeName("…")`, or else the function of the program that built it
/// (where its root was subscribed, when the tap recorded it) and its chain of operators
/// in code order, source first, ending with the subscriber.
///
/// ```
/// FeedModel.init → PassthroughSubject → Sink   parts: ["FeedModel.init", "PassthroughSubject", "Sink"]
/// PassthroughSubject → Map → Filter → Sink     no location: the chain alone
/// profile avatar                               a named stage (`named` is true)
/// ```
/// The function comes first so that pipelines from one place read, and sort, together
/// (most chains start with the same subject and end with `Sink`), and a narrow table keeps
/// it: `Basket.open(item:) → … → Sink`.
/// The chain follows each stage's first upstream (a `zip`'s or `flatMap`'s others are
/// side branches). The tree shows a named stage's name where its operator would be, so
/// the same name is found here: a stage whose name is not its publisher type's short name.
public struct PipelineName: Hashable, Sendable {
    /// The chain's names, source first; one part when ``named``.
    public let parts: [String]
    /// The program named a stage of this pipeline.
    public let named: Bool
    /// The whole name: the parts joined with ` → ` (joined once).
    public let text: String
    /// What sorting by PIPELINE compares: the source, then the subscriber, then the
    /// whole chain. A narrow table shows a long chain as its source and its subscriber
    /// with `…` between (`Just → … → Sink`), so rows sorted this way read in order on
    /// screen whatever the middle hides.
    public let sortKey: String

    /// The first part is the function that built the pipeline (not an operator).
    public let built: Bool

    public init(parts: [String], named: Bool, built: Bool = false) {
        self.parts = parts
        self.named = named
        self.built = built && !named && !parts.isEmpty
        text = parts.joined(separator: " → ")
        // NUL sorts before any character a name has: "Just" before "JustX".
        sortKey = [parts.first ?? "", parts.last ?? "", text].joined(separator: "\u{0}")
    }

    /// The first part: the function that built the pipeline, or else the chain's first
    /// operator (the name itself when ``named``).
    public var source: String { parts.first ?? "" }
    /// The subscriber at the end of the chain (the name itself when ``named``).
    public var sink: String { parts.last ?? "" }

    /// The name of the pipeline whose root is `root`.
    public init(root: NodeID, in graph: Graph) {
        var chain: [NodeSummary] = []
        var current = graph[root]
        while let node = current, chain.count <= graph.nodes.count {
            chain.append(node)
            current = node.children.first.flatMap { graph[$0] }
        }
        if let label = chain.first(where: Self.isNamed) {
            self.init(parts: [label.operatorName], named: true)
            return
        }
        var parts = chain.reversed().map(\.operatorName)
        if let subscriber = graph[root]?.subscriber, !subscriber.isEmpty { parts.append(Self.shortType(subscriber)) }
        let builder = graph[root]?.location.flatMap(Self.builder)
        if let builder { parts.insert(builder, at: 0) }
        self.init(parts: parts, named: false, built: builder != nil)
    }

    /// The function of the program that made a pipeline at `location`, as a name says it:
    /// "closure #1 in FeedModel.init()" → "FeedModel.init", "Basket.open(item:)" as it is.
    /// Nil without a function, or when the code is OpenCombine's or Pipescope's (a
    /// location falls back to no such frame, but a recording may say otherwise).
    static func builder(_ location: SourceLocation) -> String? {
        guard var function = location.function, !function.isEmpty else { return nil }
        if let file = location.file, libraryMarkers.contains(where: { file.contains($0) }) { return nil }
        // The function a closure is in is the code to read.
        while function.hasPrefix("closure #") || function.hasPrefix("implicit closure #"),
              let range = function.range(of: " in ") {
            function = String(function[range.upperBound...])
        }
        for prefix in ["static ", "@objc "] where function.hasPrefix(prefix) { function.removeFirst(prefix.count) }
        // A private function's mangled discriminator says nothing to a person.
        if function.contains(" in _") {
            function = function.replacingOccurrences(of: #"\(([^()\s]+) in _[0-9A-F]+\)"#, with: "$1",
                                                     options: .regularExpression)
        }
        if function.hasSuffix("()") { function.removeLast(2) }
        return function.isEmpty ? nil : function
    }

    /// Source paths of the libraries whose functions are no pipeline's builder.
    static let libraryMarkers = ["/Sources/OpenCombine", "/Sources/Pipescope/", "/Sources/PipescopeTap/",
                                 "/Sources/PipescopeProbe/", "/Sources/PipescopeLocations/"]

    /// Whether the program named this stage: its operator name is not the short name of
    /// the publisher type it records (`pipescopeName` keeps the wrapped publisher's type).
    static func isNamed(_ node: NodeSummary) -> Bool {
        !node.publisherType.isEmpty && node.operatorName != shortType(node.publisherType)
    }

    /// "Map<Autoconnect<TimerPublisher>, Int>" → "Map"; "Published<String>.Publisher" →
    /// "Published.Publisher"; "Timer.OCombine.TimerPublisher" → "TimerPublisher" (as the
    /// tap shortens types).
    static func shortType(_ described: String) -> String {
        var depth = 0
        var plain = ""
        for ch in described {
            if ch == "<" { depth += 1 } else if ch == ">" { depth -= 1 } else if depth == 0 { plain.append(ch) }
        }
        let parts = plain.split(separator: ".").filter { $0 != "OCombine" }
        guard let last = parts.last else { return described }
        if ["Publisher", "Subscriber", "Inner"].contains(last), parts.count >= 2 {
            return "\(parts[parts.count - 2]).\(last)"
        }
        return String(last)
    }
}
