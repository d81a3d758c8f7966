import Foundation
import PipescopeGraph

/// Turns the return addresses new stages captured into their ``SourceLocation`` and
/// callers, without the flush ever waiting for a symbol lookup.
///
/// At each flush, ``locate(_:stack:)`` looks a stage's addresses up in the cache: when
/// all it needs are there (the usual case once a program's call sites have been seen),
/// the stage's NodeInfo leaves with its location. Otherwise the stage waits in
/// ``pending`` and the missing addresses go to the ``SymbolThread``; a later flush finds
/// them cached and sends the location as a ``LocatedStage``. Each address is symbolized
/// once (``Symbolizer``) and its frames' origins decided once (``FrameOrigin``), and
/// cached, up to ``cacheLimit`` addresses (then the cache starts over); and each call
/// site's location and callers are worked out once, from the first stage made there,
/// and kept by its whole stack (``sites``, up to ``siteLimit`` stacks), so a program
/// that makes many pipelines in one place pays one lookup per stage.
///
/// The location is the first frame that is the program's; ``NodeInfo/frames`` are the
/// program's next ``callerLimit`` frames, ending at the first frame of a dependency
/// (``FrameOrigin/dependency``). A frame without symbols counts as the
/// program's only once a frame of Pipescope's own was recognised before it (the
/// binary that holds Pipescope has symbols, so an anonymous frame further out is
/// someone else's); in a stripped binary no frame can be told apart, and the stage
/// gets no location.
///
/// Its lock is its own and is held only for dictionary lookups: the tap's registry is
/// never locked while it works, and the symbol thread takes it only to store results.
package final class Locator: @unchecked Sendable {
    package init() {}

    static let callerLimit = 4
    static let cacheLimit = 16_384
    /// Call sites (whole stacks) whose locations are kept; then that cache starts over.
    static let siteLimit = 4_096
    /// Stages waiting for their addresses at most; a stage beyond it gets no location.
    /// (A program that builds this many pipelines from call sites never seen before,
    /// within one symbol lookup, is starting up; the first stages of each site are
    /// enough to show where its pipelines come from.)
    static let pendingLimit = 16_384
    /// Addresses looked at in one step: most stacks leave Pipescope and OpenCombine
    /// within the first dozen frames, and the rest need not be symbolized.
    static let chunk = 12

    private struct Resolved {
        var frames: [(frame: SymbolFrame, origin: FrameOrigin)]
    }

    private struct Pending {
        var node: NodeID
        var addresses: [UInt]
    }

    private enum Lookup {
        case located(SourceLocation?, [SourceLocation])
        case waiting(for: [UInt])
    }

    /// A pthread mutex (NSLock): ThreadSanitizer sees it, where Swift's `Mutex` takes a futex in
    /// code it does not instrument and every access from two threads looked like a race.
    private let lock = NSLock()
    private let symbolizer = Symbolizer.shared
    private let worker = SymbolThread.shared
    private var cache: [UInt: Resolved] = [:]
    /// What ``lookUp(_:)`` found for a stack, by a hash of its addresses; each entry keeps
    /// its addresses to tell stacks with the same hash apart.
    private var sites: [UInt64: [Site]] = [:]
    private var siteCount = 0

    private struct Site {
        var addresses: [UInt]
        var location: SourceLocation?
        var frames: [SourceLocation]
    }
    /// Addresses given to the symbol thread and not stored yet.
    private var requested: Set<UInt> = []
    private var pending: [Pending] = []
    private var hook: (@Sendable () -> Void)?

    /// Tests: called on the symbol thread before each lookup (to check that neither the
    /// program nor the flush waits for it).
    package var whileResolving: (@Sendable () -> Void)? {
        get { lock.withLock { hook } }
        set { lock.withLock { hook = newValue } }
    }

    /// Whether stages flushed so far still wait for their locations.
    package var hasPending: Bool { lock.withLock { !pending.isEmpty } }

    /// At the flush: gives each of `nodes` whose addresses (`stack(i)`, nearest first)
    /// are known its location and callers, keeps the others pending, and returns the
    /// locations found since the last flush for stages kept pending before.
    package func locate(_ nodes: inout [NodeInfo], stack: (Int) -> ArraySlice<UInt>) -> [LocatedStage] {
        lock.withLock {
            var missing: [UInt] = []
            var found: [LocatedStage] = []
            if !pending.isEmpty {
                var still: [Pending] = []
                for p in pending {
                    switch lookUp(p.addresses[...]) {
                    case .located(let location?, let frames):
                        found.append(LocatedStage(node: p.node, location: location, frames: frames))
                    case .located(nil, _):
                        break
                    case .waiting(let addresses):
                        missing += addresses
                        still.append(p)
                    }
                }
                pending = still
            }
            for i in nodes.indices {
                let addresses = stack(i)
                guard !addresses.isEmpty else { continue }
                let hash = Self.hash(addresses)
                if let site = sites[hash]?.first(where: { $0.addresses.elementsEqual(addresses) }) {
                    nodes[i].location = site.location
                    nodes[i].frames = site.frames
                    continue
                }
                switch lookUp(addresses) {
                case .located(let location, let frames):
                    nodes[i].location = location
                    nodes[i].frames = frames
                    remember(Site(addresses: Array(addresses), location: location, frames: frames), hash: hash)
                case .waiting(let unknown):
                    guard pending.count < Self.pendingLimit else { continue }
                    missing += unknown
                    pending.append(Pending(node: nodes[i].id, addresses: Array(addresses)))
                }
            }
            request(missing)
            return found
        }
    }

    /// FNV-1a over a stack's addresses: a call site's key in ``sites``.
    private static func hash(_ addresses: ArraySlice<UInt>) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for address in addresses { hash = (hash ^ UInt64(address)) &* 0x0000_0100_0000_01B3 }
        return hash
    }

    /// Keeps a located call site. Called under the lock.
    private func remember(_ site: Site, hash: UInt64) {
        if siteCount >= Self.siteLimit {
            sites.removeAll(keepingCapacity: true)
            siteCount = 0
        }
        sites[hash, default: []].append(site)
        siteCount += 1
    }

    /// Has the symbol thread read the program's symbols and line tables now, so the
    /// first pipelines' locations do not wait for it.
    package func warmUp() {
        let symbolizer = symbolizer
        worker.run { symbolizer.warmUp(UInt(bitPattern: unsafeBitCast(Self.anchor, to: Int.self))) }
    }

    /// A function of Pipescope's, whose address lies in the binary that holds it.
    private static let anchor: @convention(c) () -> Void = {}

    /// The location and callers `addresses` point at, from the cache; or the addresses
    /// of the next chunk the cache does not have yet.
    ///
    /// The location is the first of the program's frames (a dependency's first frame
    /// when the program has none); the callers are the program's frames after it, up to
    /// the first frame of a dependency.
    private func lookUp(_ addresses: ArraySlice<UInt>) -> Lookup {
        var found: [SourceLocation] = []
        var firstDependency: SourceLocation?
        var sawPipescope = false
        var start = addresses.startIndex
        scan: while start < addresses.endIndex, found.count <= Self.callerLimit {
            let chunk = addresses[start..<min(start + Self.chunk, addresses.endIndex)]
            let unknown = chunk.filter { cache[$0] == nil }
            guard unknown.isEmpty else { return .waiting(for: unknown) }
            for address in chunk {
                for (frame, origin) in cache[address]?.frames ?? [] {
                    switch origin {
                    case .pipescope: sawPipescope = true
                    case .program: found.append(SourceLocation(frame))
                    case .unknown where sawPipescope: found.append(SourceLocation(frame))
                    case .dependency where found.isEmpty: firstDependency = firstDependency ?? SourceLocation(frame)
                    case .dependency: break scan
                    default: break
                    }
                }
                if found.count > Self.callerLimit { break }
            }
            start = chunk.endIndex
        }
        guard let location = found.first else { return .located(firstDependency, []) }
        return .located(location, Array(found.dropFirst().prefix(Self.callerLimit)))
    }

    /// Gives the symbol thread the addresses not asked for yet. Called under the lock.
    private func request(_ addresses: [UInt]) {
        let new = addresses.filter { requested.insert($0).inserted }
        guard !new.isEmpty else { return }
        let hook = hook, symbolizer = symbolizer
        worker.run { [weak self] in
            hook?()
            let symbols = symbolizer.symbolize(new)
            let resolved = new.map { Resolved(frames: (symbols[$0] ?? []).map { ($0, FrameOrigin($0)) }) }
            self?.store(zip(new, resolved))
        }
    }

    private func store(_ results: Zip2Sequence<[UInt], [Resolved]>) {
        lock.withLock {
            if cache.count + results.underestimatedCount > Self.cacheLimit { cache.removeAll(keepingCapacity: true) }
            for (address, resolved) in results {
                requested.remove(address)
                cache[address] = resolved
            }
        }
    }
}
