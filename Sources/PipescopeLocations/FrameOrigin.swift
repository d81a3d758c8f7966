/// Whose code a symbolized frame is: the program's, or something between it and the tap.
///
/// A pipeline's location is its first frame that is the program's. Everything else is
/// skipped: Pipescope itself, OpenCombine, the Swift runtime and standard library,
/// Foundation and Dispatch, the C library, and code the compiler made (thunks, and code
/// the line table gives line 0). Decided, in order:
/// 1. by the binary: code in a system library directory, or in the toolchain's runtime
///    libraries, is the system's;
/// 2. by the source file, when there is debug information: Pipescope's own sources
///    (found from this file's path: ``pipescopeSources``) and OpenCombine's (`Sources/OpenCombine…`) are
///    theirs, so a program's own `extension Publisher` counts as the program's, and code
///    of OpenCombine inlined or specialized into the program counts as OpenCombine's;
/// 3. by the module in the mangled name (``module(ofMangled:)``), when there is none.
///
/// A source file of another package the program depends on (a SwiftPM or Xcode
/// checkout: ``dependencySourceMarkers``) is a ``dependency``: a location falls back to
/// it only when no frame is the program's, and a stage's callers end where it begins
/// (the frames beyond, swift-argument-parser's `main` and the like, say nothing about
/// the program).
enum FrameOrigin: Equatable {
    case program
    /// Another package's code, compiled into the program (a checkout's sources).
    case dependency
    case pipescope
    case openCombine
    case system
    case thunk
    /// No symbol: someone's code whose owner cannot be told (a stripped binary).
    case unknown

    package init(_ frame: SymbolFrame) {
        if let path = frame.imagePath, Self.isSystemImage(path) {
            self = .system
            return
        }
        guard let raw = frame.rawName else {
            self = .unknown
            return
        }
        // Thunks, and code the compiler made that the line table gives line 0.
        if frame.isThunk || (frame.file != nil && frame.line == nil) {
            self = .thunk
            return
        }
        let module = Self.module(ofMangled: raw)
        // A C function says whose it is by its prefix (`pipescope_`, `opencombine_`).
        if module == nil, case let origin = Self.origin(ofC: raw), origin != .program {
            self = origin
            return
        }
        if let file = frame.file {
            if let library = Self.origin(ofFile: file) {
                self = library
            } else if let module, Self.systemModules.contains(module) {
                self = .system
            } else {
                self = .program
            }
            return
        }
        guard let module else {
            self = Self.origin(ofC: raw)
            return
        }
        self = Self.origin(ofModule: module)
    }

    // MARK: - Rules

    /// The library's own modules: what a program links when it links Pipescope.
    static let pipescopeModules: Set<String> = ["Pipescope", "PipescopeProbe", "PipescopeTap", "PipescopeLocations"]

    /// The library's own source directories, as this build compiled them: each of
    /// ``pipescopeModules`` beside this file's directory.
    static let pipescopeSources: [String] = {
        var sources = #filePath.split(separator: "/", omittingEmptySubsequences: false).dropLast(2)
            .joined(separator: "/")
        sources += "/"
        return pipescopeModules.map { sources + $0 + "/" }
    }()

    static let openCombineSourceMarkers = ["/Sources/OpenCombine", "/Sources/COpenCombineHelpers"]

    /// Where package managers put the sources of a program's dependencies: SwiftPM's
    /// `.build/checkouts/NAME/` and Xcode's `SourcePackages/checkouts/NAME/`.
    static let dependencySourceMarkers = ["/.build/checkouts/", "/SourcePackages/checkouts/"]

    static let systemModules: Set<String> = [
        "Swift", "_Concurrency", "_StringProcessing", "Synchronization", "Foundation", "FoundationEssentials",
        "FoundationInternationalization", "Dispatch", "Glibc", "Musl", "Runtime", "__C",
    ]

    /// Pipescope, OpenCombine or another dependency, when `file` is one of their sources.
    static func origin(ofFile file: String) -> FrameOrigin? {
        if pipescopeSources.contains(where: file.hasPrefix) { return .pipescope }
        if openCombineSourceMarkers.contains(where: file.contains) { return .openCombine }
        if dependencySourceMarkers.contains(where: file.contains) { return .dependency }
        return nil
    }

    static func origin(ofModule module: String) -> FrameOrigin {
        if pipescopeModules.contains(module) { return .pipescope }
        if module.hasPrefix("OpenCombine") || module == "COpenCombineHelpers" { return .openCombine }
        if systemModules.contains(module) { return .system }
        return .program
    }

    /// A C symbol (no Swift mangling): ours, OpenCombine's helpers, the C runtime's, or
    /// the program's.
    static func origin(ofC name: String) -> FrameOrigin {
        if name.hasPrefix("pipescope_") { return .pipescope }
        if name.hasPrefix("opencombine") { return .openCombine }
        if name.hasPrefix("_start") || name.hasPrefix("__libc") || name.hasPrefix("_dl_") { return .system }
        return .program
    }

    private static let systemDirectories = ["/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/", "/usr/libexec/"]
    private static let runtimeLibraries = [
        "libswift", "libFoundation", "lib_Foundation", "libdispatch", "libBlocksRuntime", "libicu", "libc.so",
        "libc-", "ld-linux", "libstdc++", "libgcc_s",
    ]

    /// Whether a binary is a system or toolchain library (never the program's code).
    static func isSystemImage(_ path: String) -> Bool {
        if systemDirectories.contains(where: path.hasPrefix) { return true }
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return runtimeLibraries.contains(where: name.hasPrefix)
    }

    // MARK: - Swift mangled names

    /// The module a Swift symbol belongs to: the first identifier of its mangled name,
    /// or the module of the extension it is in (`$s11OpenCombine9PublisherP5MyAppE…`
    /// is MyApp's). Standard-library shorthands (`$sSa…`, `$ss…`) are "Swift", imported
    /// C declarations (`$sSo…`) "__C". Nil for a name that is not Swift's.
    static func module(ofMangled raw: String) -> String? {
        var s = Substring(raw)
        guard let prefix = ["$s", "_$s", "$S", "_$S", "_T0", "$e"].first(where: { s.hasPrefix($0) }) else { return nil }
        s = s.dropFirst(prefix.count)
        guard let first = s.first else { return nil }
        var module: String
        if first.isNumber {
            guard let (name, rest) = identifier(s) else { return nil }
            module = name
            s = rest
        } else if first == "s" {
            module = "Swift"
            s = s.dropFirst()
        } else if first == "S", let second = s.dropFirst().first {
            module = second == "o" ? "__C" : "Swift"
            s = s.dropFirst(2)
        } else {
            return nil
        }
        // Walk a few nominal contexts (`9PublisherP`, `10PublishersO3MapV`) looking for
        // an extension marker: `<module>E`.
        for _ in 0..<4 {
            if let (name, rest) = identifier(s), rest.first == "E" { return name }
            guard let (_, rest) = identifier(s), let kind = rest.first, "CVOPa".contains(kind) else { break }
            s = rest.dropFirst()
        }
        return module
    }

    /// A length-prefixed identifier at the start of `s` ("11OpenCombine…"), and the rest.
    private static func identifier(_ s: Substring) -> (String, Substring)? {
        let digits = s.prefix(while: \.isNumber)
        guard !digits.isEmpty, digits.first != "0", let length = Int(digits) else { return nil }
        let body = s.dropFirst(digits.count)
        guard body.count >= length else { return nil }
        return (String(body.prefix(length)), body.dropFirst(length))
    }
}
