/// Where in the program's code something happened: a file and line when the binary has
/// debug information, else the function and the binary it is in, else an address.
///
/// The probe records one for every pipeline (the line that called `sink`, `assign` or
/// `subscribe`) and for every inner publisher subscribed while a value was delivered
/// (`flatMap`, `catch`: the line that sent that value), with a few callers above it.
///
/// ```swift
/// let here = SourceLocation(file: "/src/App/Feed.swift", line: 88, function: "Feed.start()")
/// here.short          // "Feed.swift:88"
/// here.fileName       // "Feed.swift"
/// ```
public struct SourceLocation: Hashable, Sendable {
    /// The source file's path as the compiler saw it; nil without debug information.
    public var file: String?
    /// The line in ``file``; nil without debug information.
    public var line: Int?
    /// The function, demangled without its module: "Feed.start()",
    /// "closure #1 in Feed.start()"; nil when the binary has no symbols for it.
    public var function: String?
    /// The binary the code is in (its file name): "MyApp", "libFeed.so".
    public var image: String?
    /// The code's offset in ``image``, for when nothing else is known (a stripped binary).
    public var offset: UInt64?

    public init(file: String? = nil, line: Int? = nil, function: String? = nil, image: String? = nil,
                offset: UInt64? = nil) {
        self.file = file.flatMap { $0.isEmpty ? nil : $0 }
        self.line = line.flatMap { $0 > 0 ? $0 : nil }
        self.function = function.flatMap { $0.isEmpty ? nil : $0 }
        self.image = image.flatMap { $0.isEmpty ? nil : $0 }
        self.offset = offset
    }

    /// The file's last path component: "Feed.swift".
    public var fileName: String? {
        file.map { path in path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? path }
    }

    /// What a column shows: "Feed.swift:88"; without debug information the function,
    /// "Feed.start()"; without symbols the binary and offset, "MyApp+0x1f2c".
    public var short: String {
        if let fileName { return line.map { "\(fileName):\($0)" } ?? fileName }
        if let function { return function }
        return "\(image ?? "?")+0x\(String(offset ?? 0, radix: 16))"
    }

    /// Whether there is a file and line (the binary had debug information).
    public var hasLine: Bool { file != nil && line != nil }

    /// Why there is no line, in words, when there is none.
    public var missingLineReason: String? {
        if hasLine { return nil }
        let binary = image ?? "the binary"
        if function == nil { return "no symbols: \(binary) is stripped, only the address is known" }
        return "no line: \(binary) was built without debug information"
    }
}
