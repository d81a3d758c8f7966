@preconcurrency import OpenCombine
import PipescopeGraph
import PipescopeTap

/// A named owner of subscriptions, kept as a property of the object that owns them.
///
/// It cancels everything it holds when it is released, as a `Set<AnyCancellable>`
/// would, and Pipescope shows its subscriptions grouped under its name, each cancelled
/// "by owner" when it goes. Finished subscriptions are pruned as it grows, so a
/// long-lived owner does not keep every subscription it ever made.
///
/// ```swift
/// final class ProfileModel {
///     private let bag = CancellableBag("ProfileModel")
///     func load() {
///         api.profile().sink { self.show($0) }.store(in: bag)
///         bag.collect {
///             clock.sink { self.tick($0) }
///             Task { await self.refresh() }.eraseToAnyCancellable()
///         }
///     }
/// }
/// ```
///
/// Which stages an AnyCancellable stands for is found from the subscriptions made on
/// the same thread since the last store: `store(in:)` claims the pipelines subscribed
/// just before it, and `collect` those subscribed inside it. Pruning needs Pipescope
/// to be running (it knows when a stage ended); without it the bag only stores.
public final class CancellableBag: Cancellable, @unchecked Sendable {
    /// The owner's name, as the inspector shows it (`⌂ ProfileModel`).
    public let name: String
    /// The id the inspector knows this owner by.
    let id: UInt64

    private struct Entry {
        var cancellable: AnyCancellable
        /// The root stages it stands for (empty when unknown: Pipescope not running).
        var nodes: [NodeID]
    }

    private let lock = Lock()
    private var entries: [Entry] = []
    private var pruneAt = CancellableBag.minimumPrune
    static let minimumPrune = 64

    public init(_ name: String) {
        self.name = name
        id = Self.nextID.withLockedValue { id in
            id += 1
            return id
        }
    }

    /// Subscriptions (and tasks) held now, after the last pruning.
    public var count: Int { lock.withLock { entries.count } }

    /// Stores `cancellable`, tied to the pipeline subscribed last on this thread (the
    /// `sink` or task that `store(in: bag)` follows). Earlier pipelines whose
    /// AnyCancellable went elsewhere, or nowhere, stay unclaimed: claiming them too would make
    /// a forgotten sink look owned, and a pipeline kept in a `Set` look like this owner's
    /// leak. Several pipelines at once: ``collect(_:)``.
    public func insert(_ cancellable: AnyCancellable) {
        insert(cancellable, nodes: ThreadFrames.current.takeNewestRoot().map { [$0] } ?? [])
    }

    /// Stores everything the closure builds, tied to the pipelines subscribed inside it.
    public func collect(@CancellableBuilder _ build: () -> [AnyCancellable]) {
        let frames = ThreadFrames.current
        let outside = frames.takeRoots()
        let made = build()
        let inside = frames.takeRoots()
        frames.unclaimedRoots = outside
        guard !made.isEmpty else { return }
        // One entry for the group: pruned once every pipeline made inside has ended.
        insert(AnyCancellable { for cancellable in made { cancellable.cancel() } }, nodes: inside)
    }

    /// Shows `task` under this owner without tying it: it is not cancelled when the
    /// owner goes, and if it is still running then, the inspector flags an owner leak.
    /// Use ``insert(_:)`` with `task.eraseToAnyCancellable()` to tie it instead.
    public func watch<Success, Failure>(_ task: Task<Success, Failure>, name: String = "Task") {
        guard let registry = ActiveTap.registry else { return }
        let node = TaskStage.start(task, name: name, registry: registry)
        registry.record(RawEvent(kind: .owned, node: node, time: eventTicks(), other: id), text: self.name)
    }

    /// Cancels everything held now, as the owner asking (not released).
    public func cancel() {
        let held = lock.withLock { () -> [Entry] in
            defer { entries.removeAll() }
            return entries
        }
        for entry in held { entry.cancellable.cancel() }
    }

    deinit {
        let frames = ThreadFrames.current
        frames.releasingOwner += 1
        for entry in entries { entry.cancellable.cancel() }
        frames.releasingOwner -= 1
        ActiveTap.registry?.record(RawEvent(kind: .ownerReleased, node: 0, time: eventTicks(), other: id),
                                   text: name)
    }

    // MARK: - Internals

    func insert(_ cancellable: AnyCancellable, nodes: [NodeID]) {
        let registry = ActiveTap.registry
        // Every claimed stage, ended or not: one that already finished is shown under its
        // owner too, and makes its entry prunable at once.
        let owned = registry == nil ? [] : nodes
        if let registry {
            let time = eventTicks()
            for node in owned {
                registry.record(RawEvent(kind: .owned, node: node, time: time, other: id), text: name)
            }
        }
        let pruned = lock.withLock { () -> [Entry] in
            entries.append(Entry(cancellable: cancellable, nodes: owned))
            guard entries.count >= pruneAt, let registry else { return [] }
            return prune(registry)
        }
        // Released here, with the lock released: an AnyCancellable's deinit runs its
        // cancel closure, which is the program's code and may store into this bag.
        withExtendedLifetime(pruned) {}
    }

    /// Takes out entries whose stages all ended, for the caller to release after the
    /// lock. Runs when the bag doubles since the last prune, so storing stays amortised
    /// O(1) and the bag stays near its live size. (The registry's lock is taken inside
    /// this bag's; the registry never calls out, so the order cannot invert.)
    private func prune(_ registry: StageRegistry) -> [Entry] {
        let live = Set(registry.live(entries.flatMap(\.nodes)))
        var kept: [Entry] = [], ended: [Entry] = []
        for entry in entries {
            if !entry.nodes.isEmpty, entry.nodes.allSatisfy({ !live.contains($0) }) {
                ended.append(entry)
            } else {
                kept.append(entry)
            }
        }
        entries = kept
        pruneAt = max(Self.minimumPrune, entries.count * 2)
        return ended
    }

    private static let nextID = LockedBox<UInt64>(0)
}

extension AnyCancellable {
    /// Stores this cancellable in `bag`, tied to the pipeline just subscribed.
    public func store(in bag: CancellableBag) {
        bag.insert(self)
    }
}

/// Builds a list of cancellables for ``CancellableBag/collect(_:)``.
@resultBuilder
public enum CancellableBuilder {
    public static func buildExpression(_ cancellable: AnyCancellable) -> [AnyCancellable] { [cancellable] }
    public static func buildBlock(_ parts: [AnyCancellable]...) -> [AnyCancellable] { parts.flatMap { $0 } }
    public static func buildOptional(_ part: [AnyCancellable]?) -> [AnyCancellable] { part ?? [] }
    public static func buildEither(first: [AnyCancellable]) -> [AnyCancellable] { first }
    public static func buildEither(second: [AnyCancellable]) -> [AnyCancellable] { second }
    public static func buildArray(_ parts: [[AnyCancellable]]) -> [AnyCancellable] { parts.flatMap { $0 } }
}
