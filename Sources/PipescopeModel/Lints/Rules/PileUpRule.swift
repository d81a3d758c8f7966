import PipescopeGraph

extension LintKind {
    public static let pileUp = LintKind("pile-up")
}

/// Live pipelines made at one place that keep growing in number: a screen that stores
/// each new subscription in a collection nobody empties, or an owner whose subscriptions
/// are never cancelled when it goes. Each pipeline on its own looks fine (it flows, or
/// waits for input that goes to another), so the mistake is only seen across them, and
/// it is one mistake: one lint per place (``PlaceTally``), on the oldest live pipeline
/// made there, naming the place, the count and how much it grew within
/// ``Linter/pileUpAfter``.
///
/// ```
/// 215 live pipelines made at Feed.swift:42 in FeedScreen.open(), up 61 in the last
/// minute and none of them ended: their AnyCancellables are likely kept …
/// ```
///
/// When each is an `assign(to:on:)` on an object of the type whose code made it (a
/// screen assigning to itself), the advice names the cause instead: `assign(to:on:)`
/// holds its object strongly, so an object that keeps that subscription keeps itself
/// alive, and neither it nor the subscription ever goes (``assignCycle(_:made:)``).
enum PileUpRule: LintRule {
    static let kind = LintKind.pileUp
    static var summary: String {
        "\(Linter().pileUpCount) or more live pipelines made at one place, growing in number, none ended "
            + "for \(plain(Linter().pileUpAfter)) s"
    }
    static let advice = "their AnyCancellables are likely kept in a collection that is never emptied, or never cancelled "
        + "when the screen or owner goes. Cancel the old one before storing a new one (or keep them by key, so the new one "
        + "replaces the old), and cancel them when the owner goes."
    static let readsPlaces = true

    static func check(_ n: NodeSummary, in context: LintContext) -> [String] {
        guard n.parent == nil, let place = n.location, context.places.holder(at: place) == n.id,
              let pile = context.places.pileUp(at: place, now: context.now, linter: context.linter) else { return [] }
        let function = place.function.map { " in \($0)" } ?? ""
        return ["\(pile.live) live pipelines made at \(place.short)\(function), up \(pile.grown) in the last "
                + window(context.linter.pileUpAfter) + " and none of them ended: "
                + (assignCycle(n, made: place).map(cycleAdvice) ?? advice)]
    }

    /// The type an `assign(to:on:)` root assigns to, when the code that made it is that
    /// type's own (`ProductScreen.init(bus:)` making `assign(to: \.title, on: self)`):
    /// the object keeps the subscription that keeps the object. OpenCombine describes
    /// the subscriber as `Assign ProductScreen.`.
    static func assignCycle(_ root: NodeSummary, made place: SourceLocation) -> String? {
        guard root.subscriber.hasPrefix("Assign "), let function = place.function else { return nil }
        var type = root.subscriber.dropFirst("Assign ".count)
        if type.hasSuffix(".") { type = type.dropLast() }
        guard !type.isEmpty, function.hasPrefix(type + ".") || function.contains(" in \(type).") else { return nil }
        return String(type)
    }

    /// The advice for a pile of `assign(to:on:)` subscriptions kept by the object they
    /// assign to.
    static func cycleAdvice(_ type: String) -> String {
        "each is an assign(to:on:) on a \(type), made by \(type)'s own code: assign(to:on:) holds its object "
            + "strongly, so a \(type) that keeps this subscription keeps itself alive (a retain cycle), and neither "
            + "is ever released. Assign through a sink that holds it weakly: sink { [weak self] in self?.property = $0 }."
    }

    /// The holder's verdict changes with time when a pipeline made or ended there leaves
    /// the window (each message says how much the count grew within it).
    static func due(_ n: NodeSummary, in context: LintContext) -> Int64 {
        guard n.parent == nil, let place = n.location, context.places.holder(at: place) == n.id else { return .max }
        return context.places.due(at: place, now: context.now, linter: context.linter)
    }

    /// "minute", "2 minutes", "30 s": the window as the message says it.
    static func window(_ seconds: Double) -> String {
        if seconds == 60 { return "minute" }
        if seconds >= 60, seconds.truncatingRemainder(dividingBy: 60) == 0 { return "\(Int(seconds / 60)) minutes" }
        return plain(seconds) + " s"
    }

    private static func plain(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}
