/// A publisher or subscriber type of the program's own (`struct Ticker: Publisher`,
/// `final class Collector: Subscriber`), named by its nominal type descriptor: the code
/// such a stage runs is that type's method (`receive(subscriber:)`, `receive(_:)`), and
/// the `CodeLocator` finds the method from the descriptor, later and off the program's
/// threads (a descriptor's symbol, `$s3App6TickerVMn`, is the prefix of its methods').
///
/// Worked out once per type (in ``TypeNames/subscribe(_:_:)``), from type metadata only:
/// its qualified name, already made for the stage's names, and one load from its metadata.
/// Nothing is called on a value, and no value is made.
enum ProgramType {
    /// The descriptor of `type` when it is the program's struct, enum or class; 0 for
    /// OpenCombine's, Pipescope's and the system's types, and for anything that is not a
    /// nominal type (a function, a tuple).
    ///
    /// ```swift
    /// ProgramType.descriptor(of: Ticker.self, qualifiedName: "App.Ticker")   // Ticker's `…Mn`
    /// ProgramType.descriptor(of: Just<Int>.self, qualifiedName: "OpenCombine.Just<Swift.Int>")   // 0
    /// ```
    static func descriptor(of type: Any.Type, qualifiedName: String) -> UInt {
        guard isProgramModule(qualifiedName) else { return 0 }
        let metadata = unsafeBitCast(type, to: UnsafeRawPointer.self)
        let kind = metadata.load(as: UInt.self)
        let offset: Int
        switch kind {
        case structKind, enumKind:
            offset = MemoryLayout<UInt>.size
        case _ where type is AnyClass && (kind == 0 || kind > 0x7FF):
            offset = classDescriptorOffset
        default:
            return 0
        }
        return metadata.load(fromByteOffset: offset, as: UInt.self)
    }

    /// Whether the module a qualified type name starts with is the program's: not
    /// OpenCombine's, Pipescope's (the library a program links; not the demo or the
    /// tests), nor the standard library's or Foundation's.
    static func isProgramModule(_ qualifiedName: String) -> Bool {
        guard let dot = qualifiedName.firstIndex(of: "."), dot != qualifiedName.startIndex else { return false }
        let module = qualifiedName[..<dot]
        if module.hasPrefix("OpenCombine") || module == "COpenCombineHelpers" { return false }
        return !libraryModules.contains(String(module))
    }

    private static let libraryModules: Set<String> = [
        "Pipescope", "PipescopeProbe", "PipescopeTap", "PipescopeLocations", "PipescopeGraph",
        "Swift", "_Concurrency", "_StringProcessing", "Synchronization", "Foundation", "FoundationEssentials",
        "FoundationInternationalization", "Dispatch", "Glibc", "Musl", "__C",
    ]

    /// `MetadataKind::Struct` and `::Enum` (the Swift ABI's MetadataValues.h): the
    /// descriptor is the word after the kind.
    private static let structKind: UInt = 0x200
    private static let enumKind: UInt = 0x201

    /// Where a Swift class's metadata keeps its descriptor (the ABI's `ClassMetadata`):
    /// after its kind, superclass, flags, instance and class sizes; with Objective-C
    /// interop three more words (cache, vtable, data) come first.
    #if canImport(ObjectiveC)
    private static let classDescriptorOffset = 8 * MemoryLayout<UInt>.size
    #else
    private static let classDescriptorOffset = 5 * MemoryLayout<UInt>.size
    #endif
}
