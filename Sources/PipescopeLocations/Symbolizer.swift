import Foundation
import PipescopeGraph
#if canImport(Runtime)
// `Backtrace(architecture:frames:images:)` (a backtrace from addresses captured
// elsewhere) is SPI; the rest is the Runtime module's public API. This file is the
// only place that touches either.
@_spi(Internal) import Runtime
#endif

/// One function's worth of code at an address, as the program's binary describes it.
/// An address inside inlined code gives several, innermost first.
struct SymbolFrame: Hashable, Sendable {
    /// The mangled name (`$s4Feed5startyyF`); nil without symbols.
    var rawName: String?
    /// Demangled without its module: "Feed.start()".
    var name: String?
    var file: String?
    var line: Int?
    /// The binary's path and file name.
    var imagePath: String?
    var image: String?
    /// The address's offset in its binary.
    var offset: UInt64
    /// Code the compiler made (reabstraction and witness thunks, partial-apply
    /// forwarders): never the program's own line.
    var isThunk: Bool
}

extension SourceLocation {
    /// Where `frame` is, as the graph keeps it: what the call stacks' locations and the
    /// stages' code places are made of.
    init(_ frame: SymbolFrame) {
        self.init(file: frame.file, line: frame.line, function: frame.name, image: frame.image, offset: frame.offset)
    }
}

/// Turns return addresses into ``SymbolFrame``s: function names from the binary's symbol
/// table (the Swift runtime's symbolicator, which also demangles), and file and line from
/// its DWARF line tables (``DwarfLineTable``, built once per binary).
///
/// Where a program's function has library code inlined at the address (a release build
/// inlining OpenCombine's `sink` into it), the line table names the library's line; then,
/// for that address only, the runtime's own symbolication with inline frames is asked
/// (slower: it reads every line table) to find the program's line.
///
/// One per process (``shared``), behind its own lock: the tables it builds are the
/// binary's, whichever probe asks. Called on the ``SymbolThread`` only: it is slow the
/// first time (the line index) and never belongs on the flush or the program's threads.
final class Symbolizer: @unchecked Sendable {
    static package let shared = Symbolizer()

    /// A pthread mutex (NSLock): ThreadSanitizer sees it, where Swift's `Mutex` takes a futex in
    /// code it does not instrument and every access from two threads looked like a race.
    private let lock = NSLock()
    #if canImport(Runtime)
    private var images: ImageMap?
    #endif
    /// Line tables by binary path; nil for a binary without any.
    private var tables: [String: DwarfLineTable?] = [:]

    /// Symbol frames for each address (each a return address: the call before it is
    /// what is described). An address no binary holds gets an empty list.
    func symbolize(_ addresses: [UInt]) -> [UInt: [SymbolFrame]] {
        #if canImport(Runtime)
        guard !addresses.isEmpty else { return [:] }
        return lock.withLock {
            let map = imageMap(covering: addresses)
            var out: [UInt: [SymbolFrame]] = [:]
            for address in addresses { out[address] = [] }
            for frame in symbolicated(addresses, map: map, options: []) {
                guard case .returnAddress(let a) = frame.captured, let address = UInt(a),
                      let imageIndex = map.indexOfImage(at: frame.captured.adjustedProgramCounter) else { continue }
                let image = map[imageIndex]
                let offset = (UInt64(frame.captured.adjustedProgramCounter) ?? 0) &- (UInt64(image.baseAddress) ?? 0)
                var symbol = SymbolFrame(rawName: frame.symbol?.rawName, name: frame.symbol?.name, file: nil, line: nil,
                                         imagePath: image.path, image: image.name, offset: offset,
                                         isThunk: frame.isSwiftThunk)
                if symbol.rawName == "<unknown>" { symbol.rawName = nil; symbol.name = nil }
                if let path = image.path, let found = lineTable(path)?.location(at: offset) {
                    symbol.file = found.file
                    symbol.line = found.line > 0 ? found.line : nil
                }
                out[address] = isInlinedLibraryCode(symbol) ? inlineFrames(address, map: map, base: symbol) : [symbol]
            }
            return out
        }
        #else
        return [:]
        #endif
    }

    /// Reads the symbols and line tables of the binary holding `address` now, so the
    /// first real lookup does not pay for it.
    package func warmUp(_ address: UInt) {
        _ = symbolize([address])
    }

    private func lineTable(_ path: String) -> DwarfLineTable? {
        if let known = tables[path] { return known }
        let table = DwarfLineTable(path: path)
        tables[path] = table
        return table
    }

    /// A program's function whose line, at this address, is in OpenCombine's or
    /// Pipescope's sources: their code was inlined into it.
    private func isInlinedLibraryCode(_ frame: SymbolFrame) -> Bool {
        guard let raw = frame.rawName, let file = frame.file, let module = FrameOrigin.module(ofMangled: raw),
              FrameOrigin.origin(ofModule: module) == .program else { return false }
        return FrameOrigin.origin(ofFile: file) != nil
    }

    #if canImport(Runtime)
    private func imageMap(covering addresses: [UInt]) -> ImageMap {
        var map = images ?? ImageMap.capture()
        // A library loaded since the map was made: map again.
        if addresses.contains(where: { map.indexOfImage(at: Backtrace.Address(UInt64($0))) == nil }) {
            map = ImageMap.capture()
        }
        images = map
        return map
    }

    private func symbolicated(_ addresses: [UInt], map: ImageMap,
                              options: Backtrace.SymbolicationOptions) -> [SymbolicatedBacktrace.Frame] {
        let frames = addresses.map { RichFrame<UInt64>.returnAddress(UInt64($0)) }
        let backtrace = Backtrace(architecture: Self.architecture, frames: frames, images: map)
        return backtrace.symbolicated(with: map, options: options)?.frames ?? []
    }

    /// The inline chain at one address, innermost first, from the runtime's own reader.
    private func inlineFrames(_ address: UInt, map: ImageMap, base: SymbolFrame) -> [SymbolFrame] {
        let frames = symbolicated([address], map: map, options: [.showInlineFrames, .showSourceLocations])
        guard !frames.isEmpty else { return [base] }
        return frames.map { frame in
            var f = base
            f.rawName = frame.symbol?.rawName
            f.name = frame.symbol?.name
            f.file = frame.symbol?.sourceLocation?.path
            f.line = frame.symbol?.sourceLocation.map(\.line).flatMap { $0 > 0 ? $0 : nil }
            f.isThunk = frame.isSwiftThunk
            return f
        }
    }
    #endif

    #if arch(x86_64)
    private static let architecture = "x86_64"
    #elseif arch(arm64)
    private static let architecture = "arm64"
    #else
    private static let architecture = "unknown"
    #endif
}
