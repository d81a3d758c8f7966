import NIOConcurrencyHelpers
import PipescopeGraph

/// Turns a stage's captured return addresses into its ``SourceLocation`` and callers,
/// at the flush, on Pipescope's own thread.
///
/// Each address is symbolized once (``Symbolizer``) and its frames' origins decided once
/// (``FrameOrigin``); both are cached, up to ``cacheLimit`` addresses (then the cache
/// starts over). A program builds its pipelines from a few hundred call sites, so after
/// the first flushes a stage costs a few dictionary lookups.
///
/// The location is the first frame that is the program's; ``NodeInfo/frames`` are the
/// program's next ``callerLimit`` frames. A frame without symbols counts as the
/// program's only once a frame of Pipescope's own was recognised before it (the
/// binary that holds Pipescope has symbols, so an anonymous frame further out is
/// someone else's); in a stripped binary no frame can be told apart, and the stage
/// gets no location.
///
/// Its lock is its own: the tap's registry is never locked while it works, so the
/// program's threads never wait for a symbol lookup.
final class Locator: @unchecked Sendable {
    static let callerLimit = 4
    static let cacheLimit = 16_384

    private struct Resolved {
        var frames: [(frame: SymbolFrame, origin: FrameOrigin)]
    }

    private let lock = NIOLock()
    private let symbolizer = Symbolizer.shared
    private var cache: [UInt: Resolved] = [:]
    /// Tests: called while a stack is being resolved (to check the tap is not held up).
    var whileResolving: (@Sendable () -> Void)?

    /// The location and callers the addresses (nearest first) point at; nil and none
    /// when no frame is the program's.
    func locate(_ addresses: ArraySlice<UInt>) -> (location: SourceLocation?, frames: [SourceLocation]) {
        guard !addresses.isEmpty else { return (nil, []) }
        return lock.withLock {
            whileResolving?()
            var found: [SourceLocation] = []
            var sawPipescope = false
            // Symbolize in chunks: most stacks leave Pipescope and OpenCombine within the
            // first dozen frames, and the rest need not be looked at.
            var start = addresses.startIndex
            while start < addresses.endIndex, found.count <= Self.callerLimit {
                let chunk = addresses[start..<min(start + 12, addresses.endIndex)]
                resolve(Array(chunk))
                for address in chunk {
                    for (frame, origin) in cache[address]?.frames ?? [] {
                        switch origin {
                        case .pipescope: sawPipescope = true
                        case .program: found.append(Self.location(frame))
                        case .unknown where sawPipescope: found.append(Self.location(frame))
                        default: break
                        }
                    }
                    if found.count > Self.callerLimit { break }
                }
                start = chunk.endIndex
            }
            return (found.first, Array(found.dropFirst().prefix(Self.callerLimit)))
        }
    }

    /// Loads the program's symbols on this thread now (the Runtime module caches them
    /// per thread), so the first real flush does not pay for it.
    func warmUp() {
        symbolizer.warmUp(UInt(bitPattern: unsafeBitCast(Self.anchor, to: Int.self)))
    }

    /// A function of Pipescope's, whose address lies in the binary that holds it.
    private static let anchor: @convention(c) () -> Void = {}

    private func resolve(_ addresses: [UInt]) {
        let missing = addresses.filter { cache[$0] == nil }
        guard !missing.isEmpty else { return }
        if cache.count + missing.count > Self.cacheLimit { cache.removeAll(keepingCapacity: true) }
        let symbols = symbolizer.symbolize(missing)
        for address in missing {
            let frames = symbols[address] ?? []
            cache[address] = Resolved(frames: frames.map { ($0, FrameOrigin($0)) })
        }
    }

    private static func location(_ frame: SymbolFrame) -> SourceLocation {
        SourceLocation(file: frame.file, line: frame.line, function: frame.name, image: frame.image,
                       offset: frame.offset)
    }
}
