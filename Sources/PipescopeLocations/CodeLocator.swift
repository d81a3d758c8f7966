import Foundation
import PipescopeGraph

/// Turns the closure addresses new stages' publishers and sinks hold (the code words the
/// tap read, see `CodeFields` in PipescopeTap) into where that code is: "code at" and,
/// for an inner publisher, "built by" (``StageCode``).
///
/// Shaped like ``Locator``: at each flush, ``place(_:)`` looks the words up in its cache;
/// a stage whose addresses are all known gets its ``StageCode`` in that batch, the others
/// wait in ``pending`` while the ``SymbolThread`` symbolizes their addresses, once per
/// address, and a later flush sends what it found. Its lock is its own and is held only
/// for dictionary lookups.
///
/// How a stage's words become its code's place: they come in pairs, one per closure field
/// (the publisher's first, then a root's subscriber's), of the function's address and
/// the first word its context captured. The first function that is the program's is the
/// stage's code. Swift stores a closure passed to a generic operator behind a
/// reabstraction thunk (its symbol says "thunk"); the real closure is then the word its
/// context captured first, symbolized in a second step, only for a thunk (the captured
/// word of any other closure is data, not code). A function of OpenCombine's (a sink's
/// default completion, the closure `map(…).map(…)` fuses into) is skipped; when nothing
/// is left, the stage's code is unknown and it gets none: never a guess.
///
/// A publisher or a root's subscriber whose type is the program's own is named by a pair
/// of a marker and its type's descriptor, before its closures: its method
/// (``TypeMethods``: `receive(subscriber:)`, `receive(_:)`) is the stage's code, found
/// once per type on the symbol thread. A type whose method is not found (a stripped
/// binary) gives way to its closures, as if it had not been named.
package final class CodeLocator: @unchecked Sendable {
    package init() {}

    static let cacheLimit = 16_384
    static let pendingLimit = 16_384

    /// A pair of words between the publisher's closures and a root's sink's (`CodeFields`).
    package static let sinkMarker = UInt.max
    /// The pair (this, descriptor): the publisher's type is the program's (`CodeFields`).
    /// First, where a closure's pair has its function's address, which is never this.
    package static let publisherTypeMarker = UInt.max - 1
    /// The pair (this, descriptor): a root's subscriber's type is the program's.
    package static let subscriberTypeMarker = UInt.max - 2

    /// A type of the program's, and which of its methods is wanted.
    struct TypeKey: Hashable {
        var descriptor: UInt
        var role: TypeMethods.Role
    }

    /// One new stage's code words, as the flush has them.
    package struct Stage {
        package var node: NodeID
        package var words: ArraySlice<UInt>
        /// Subscribed while a value was delivered (an inner publisher): its code's
        /// enclosing function built it.
        package var inner: Bool

        package init(node: NodeID, words: ArraySlice<UInt>, inner: Bool) {
            self.node = node
            self.words = words
            self.inner = inner
        }
    }

    private struct Pending {
        var node: NodeID
        var words: [UInt]
        var inner: Bool
    }

    private enum Lookup {
        case found(StageCode?)
        case waiting(for: [UInt], types: [TypeKey])
    }

    /// The first symbol frame at a function's entry, and whose code it is.
    struct Resolved {
        var frame: SymbolFrame?
        var origin: FrameOrigin
    }

    private let lock = NSLock()
    private let symbolizer = Symbolizer.shared
    private let worker = SymbolThread.shared
    /// By function address.
    private var cache: [UInt: Resolved] = [:]
    private var requested: Set<UInt> = []
    /// By type: its method's place (no frame when the binary does not name it).
    private var types: [TypeKey: Resolved] = [:]
    private var requestedTypes: Set<TypeKey> = []
    private var pending: [Pending] = []

    /// Whether stages flushed so far still wait for their code's place.
    package var hasPending: Bool { lock.withLock { !pending.isEmpty } }

    /// At the flush: the places of the code of `stages` known now, and of stages kept
    /// pending before whose addresses have been symbolized since. Stages with no code of
    /// the program's get nothing.
    package func place(_ stages: [Stage]) -> [StageCode] {
        lock.withLock {
            var found: [StageCode] = []
            var missing: [UInt] = []
            var missingTypes: [TypeKey] = []
            if !pending.isEmpty {
                var still: [Pending] = []
                for p in pending {
                    switch lookUp(p.words[...], inner: p.inner, node: p.node) {
                    case .found(let code): if let code { found.append(code) }
                    case .waiting(let addresses, let types):
                        missing += addresses
                        missingTypes += types
                        still.append(p)
                    }
                }
                pending = still
            }
            for stage in stages where !stage.words.isEmpty {
                switch lookUp(stage.words, inner: stage.inner, node: stage.node) {
                case .found(let code): if let code { found.append(code) }
                case .waiting(let addresses, let types):
                    guard pending.count < Self.pendingLimit else { continue }
                    missing += addresses
                    missingTypes += types
                    pending.append(Pending(node: stage.node, words: Array(stage.words), inner: stage.inner))
                }
            }
            request(missing, types: missingTypes)
            return found
        }
    }

    /// The stage's code from the cache, or the addresses still to symbolize. Under the lock.
    private func lookUp(_ words: ArraySlice<UInt>, inner: Bool, node: NodeID) -> Lookup {
        var unknown: [UInt] = []
        var unknownTypes: [TypeKey] = []
        var index = words.startIndex
        // The publisher's closures come first: one of them that is not the program's (a
        // closure OpenCombine made, as when it fuses two maps) leaves the stage's code
        // unknown, rather than falling through to its sink's.
        var publisherSide = true
        while index + 1 < words.endIndex {
            let function = words[index], captured = words[index + 1]
            index += 2
            if function == 0, captured == Self.sinkMarker {
                publisherSide = false
                continue
            }
            guard function != 0 else { continue }
            if function == Self.publisherTypeMarker || function == Self.subscriberTypeMarker {
                let key = TypeKey(descriptor: captured, role: function == Self.publisherTypeMarker ? .publisher : .subscriber)
                guard let method = types[key] else {
                    unknownTypes.append(key)
                    continue
                }
                // A type whose method is not known gives way to its closures.
                guard unknown.isEmpty, unknownTypes.isEmpty, method.origin == .program, let frame = method.frame else {
                    continue
                }
                return .found(StageCode(node: node, code: SourceLocation(frame), builtBy: nil))
            }
            guard let resolved = cache[function] else {
                unknown.append(function)
                continue
            }
            // Only the fields before the first unknown one decide: a later field's
            // closure must not win over an earlier one not symbolized yet.
            guard unknown.isEmpty, unknownTypes.isEmpty else { continue }
            var place = resolved
            if resolved.origin == .thunk {
                guard captured != 0 else {
                    if publisherSide { return .found(nil) }
                    continue
                }
                guard let real = cache[captured] else {
                    unknown.append(captured)
                    continue
                }
                place = real
            }
            guard place.origin == .program, let frame = place.frame else {
                if publisherSide { return .found(nil) }
                continue
            }
            let code = SourceLocation(frame)
            return .found(StageCode(node: node, code: code, builtBy: inner ? Self.builder(of: code) : nil))
        }
        return unknown.isEmpty && unknownTypes.isEmpty ? .found(nil) : .waiting(for: unknown, types: unknownTypes)
    }

    /// The function a closure is in, from its name: "closure #1 in API.search(_:)" is in
    /// `API.search(_:)` (at the closure's line: where in it the publisher's code is). Nil
    /// for a function that is not a closure (a method passed by name).
    static func builder(of code: SourceLocation) -> SourceLocation? {
        guard let name = code.function else { return nil }
        for prefix in ["closure #", "implicit closure #"] where name.hasPrefix(prefix) {
            guard let range = name.range(of: " in ") else { return nil }
            var builder = code
            builder.function = String(name[range.upperBound...])
            return builder
        }
        return nil
    }

    /// Gives the symbol thread the addresses and types not asked for yet. Under the lock.
    private func request(_ addresses: [UInt], types wanted: [TypeKey]) {
        let new = addresses.filter { requested.insert($0).inserted }
        let newTypes = wanted.filter { requestedTypes.insert($0).inserted }
        guard !new.isEmpty || !newTypes.isEmpty else { return }
        let symbolizer = symbolizer
        worker.run { [weak self] in
            let resolved = new.map { Self.resolve($0, symbolizer: symbolizer) }
            let methods = newTypes.map { key in
                TypeMethods.shared.method(of: key.descriptor, role: key.role)
                    .map { Self.resolve($0, symbolizer: symbolizer) } ?? Resolved(frame: nil, origin: .unknown)
            }
            self?.store(Array(zip(new, resolved)), types: Array(zip(newTypes, methods)))
        }
    }

    /// The function at `address` (an entry, not a return address: the symbolizer looks
    /// at the byte before the address it is given, so it is given the next one). A
    /// capturing closure is stored as the compiler's "partial apply for closure #1 in
    /// f()" forwarder, which loads the captures and calls the closure: then the closure
    /// itself, found by ``PartialApply`` and checked by its name.
    static func resolve(_ address: UInt, symbolizer: Symbolizer) -> Resolved {
        guard let frame = symbolizer.symbolize([address &+ 1])[address &+ 1]?.first else {
            return Resolved(frame: nil, origin: .unknown)
        }
        let resolved = Resolved(frame: frame, origin: FrameOrigin(frame))
        guard resolved.origin == .thunk, let name = frame.name, let target = PartialApply.calledName(name) else {
            return resolved
        }
        for callee in PartialApply.callees(at: address) {
            guard let found = symbolizer.symbolize([callee &+ 1])[callee &+ 1]?.first, found.name == target else { continue }
            return Resolved(frame: found, origin: FrameOrigin(found))
        }
        return resolved
    }

    private func store(_ results: [(UInt, Resolved)], types found: [(TypeKey, Resolved)]) {
        lock.withLock {
            if cache.count + results.count > Self.cacheLimit { cache.removeAll(keepingCapacity: true) }
            for (address, resolved) in results {
                requested.remove(address)
                cache[address] = resolved
            }
            if types.count + found.count > Self.cacheLimit { types.removeAll(keepingCapacity: true) }
            for (key, resolved) in found {
                requestedTypes.remove(key)
                types[key] = resolved
            }
        }
    }
}
