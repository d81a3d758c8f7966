@_spi(Reflection) import Swift

/// Where a publisher or subscriber type keeps the closures it runs (`Map.transform`,
/// `Filter.isIncluded`, `Sink.receiveValue`, `Deferred.createPublisher`), found once per
/// type from the runtime's field metadata, so that a subscribe can read each closure's
/// function address with a few loads (``read(_:into:)``) and the ``Locator``-like
/// `CodeLocator` can say, later and off the program's threads, where that code is.
///
/// Rules, because ``read(_:into:)`` runs on the program's threads inside its subscribe:
/// - The offsets come from `_forEachField(of:)`, which reads type metadata only: no value
///   is made, copied or retained (never `Mirror`, which copies the value and retains
///   every field).
/// - Reading copies words: a function's address and, when its context is a closure
///   context (its metadata's kind says so), the first word captured in it. Swift stores a
///   closure passed to a generic operator behind a reabstraction thunk whose context
///   captures the real closure first; that word is the real closure's address. Nothing
///   is called and no reference count changes.
/// - Only the type's own fields: a `Map`'s `upstream` holds the closures of the stages
///   above it, which are theirs.
struct CodeFields: Sendable {
    /// Byte offsets of the function-typed fields (`(A) -> B` or `((A) -> B)?`), in
    /// declaration order.
    let offsets: [Int]
    /// The type is a class: the value is a reference, and the offsets are into the object.
    let isClass: Bool

    static let none = CodeFields(offsets: [], isClass: false)

    /// The pair (0, this) between a publisher's words and a root's sink's: the `CodeLocator`
    /// takes a sink's closure as the stage's code only when the publisher has none.
    static let sinkMarker = UInt.max

    /// The pair (this, descriptor) says the publisher type is the program's
    /// (``ProgramType``): its `receive(subscriber:)` is the stage's code. It comes before
    /// the publisher's closures. The marker is first, where a closure's pair has its
    /// function's address, which is never this; its second word, a captured value, may be.
    static let publisherTypeMarker = UInt.max - 1
    /// The pair (this, descriptor) says a root's subscriber type is the program's: its
    /// `receive(_:)` is the code, when the publisher runs none. It comes before the
    /// subscriber's closures, after ``sinkMarker``.
    static let subscriberTypeMarker = UInt.max - 2

    /// Words per field in ``read(_:into:)``: the function and the captured candidate.
    static let wordsPerField = 2
    /// Fields read at most per type (`handleEvents` has five).
    static let maxFields = 5

    /// The code fields of `type`: its stored properties of function type, optional or
    /// not. Structs and classes (their own fields, not a superclass's); none for
    /// anything else.
    init(of type: Any.Type) {
        let isClass = type is AnyClass
        var offsets: [Int] = []
        // `.classType` (the standard library declares it a `static var`, which Swift 6
        // refuses to read from here): its raw value.
        _ = _forEachField(of: type, options: isClass ? _EachFieldOptions(rawValue: 1 << 0) : []) { _, offset, fieldType, kind in
            if (kind == .function || kind == .optional) && Self.holdsClosure(fieldType) {
                offsets.append(offset)
            }
            return offsets.count < Self.maxFields
        }
        self.offsets = offsets
        self.isClass = isClass
    }

    private init(offsets: [Int], isClass: Bool) {
        self.offsets = offsets
        self.isClass = isClass
    }

    /// Whether a field of type `type` holds a Swift closure: a thick, synchronous Swift
    /// function (two words: the function and its context), or an optional one. Read from
    /// the type's metadata (its kind; a function's flags; an optional's one generic
    /// argument): a C function, a thin function or an async one is not read, since its
    /// words are not a function's address beside its context.
    static func holdsClosure(_ type: Any.Type) -> Bool {
        var metadata = unsafeBitCast(type, to: UnsafeRawPointer.self)
        if metadata.load(as: UInt.self) == optionalKind {
            // An optional's metadata: kind, type descriptor, then its wrapped type.
            metadata = metadata.load(fromByteOffset: 2 * MemoryLayout<UInt>.size, as: UnsafeRawPointer.self)
        }
        guard metadata.load(as: UInt.self) == functionKind else { return false }
        let flags = metadata.load(fromByteOffset: MemoryLayout<UInt>.size, as: UInt.self)
        let convention = (flags >> 16) & 0xFF
        return convention == 0 && flags & (asyncFlag | differentiableFlag) == 0
    }

    /// `MetadataKind::Optional` and `MetadataKind::Function`, and `FunctionTypeFlags`'
    /// async and differentiable bits (the Swift ABI's Metadata.h and MetadataValues.h).
    private static let optionalKind: UInt = 0x202
    private static let functionKind: UInt = 0x302
    private static let asyncFlag: UInt = 0x2000_0000
    private static let differentiableFlag: UInt = 0x0800_0000

    /// Copies the code words of the value at `value` (a pointer to a value of the type
    /// these fields are of) into `out`: for each field, the function's address (0 for a
    /// nil optional) and the first word its closure context captured (0 when its context
    /// is none or not a closure context). Returns the number of words written.
    @inline(__always)
    func read(_ value: UnsafeRawPointer, into out: UnsafeMutablePointer<UInt>) -> Int {
        guard !offsets.isEmpty else { return 0 }
        var base = value
        if isClass {
            guard let object = value.load(as: UnsafeRawPointer?.self) else { return 0 }
            base = object
        }
        var n = 0
        for offset in offsets {
            let function = base.load(fromByteOffset: offset, as: UInt.self)
            let context = base.load(fromByteOffset: offset + MemoryLayout<UInt>.size, as: UnsafeRawPointer?.self)
            out[n] = function
            out[n + 1] = function == 0 ? 0 : Self.firstCapture(of: context)
            n += Self.wordsPerField
        }
        return n
    }

    /// The kind of metadata a closure context has (`MetadataKind::HeapLocalVariable`).
    private static let heapLocalVariable: UInt = 0x400

    /// The first word a closure context captured: its metadata (the object's first
    /// word) is a heap-local-variable metadata, whose next field is the offset of the
    /// first capture. Anything else (a class instance used as the context) gives 0.
    @inline(__always)
    private static func firstCapture(of context: UnsafeRawPointer?) -> UInt {
        guard let context, let metadata = context.load(as: UnsafeRawPointer?.self),
              metadata.load(as: UInt.self) == heapLocalVariable else { return 0 }
        let offset = Int(metadata.load(fromByteOffset: MemoryLayout<UInt>.size, as: UInt32.self))
        guard offset >= 2 * MemoryLayout<UInt>.size, offset < 256 else { return 0 }
        return context.load(fromByteOffset: offset, as: UInt.self)
    }
}
