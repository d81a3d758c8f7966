@_spi(Reflection) import Swift
@preconcurrency import OpenCombine

/// How the tap tells which publisher a stage was subscribed to: stages subscribed to one
/// publisher (one `Future`, one `AnyPublisher` value and its copies, one `Deferred` and
/// its copies) get the same identity, stages subscribed to separately made publishers
/// different ones. The `repeated-work` lint and the detail pane read it.
///
/// What an identity is, by the publisher's type (worked out once per type, from its
/// layout, with no value made: ``of(_:)``):
/// - a class (`Future`, the subjects, `Share`, a program's own class): the object's
///   address;
/// - a struct whose one stored field is a class reference (`AnyPublisher`'s box,
///   `Published.Publisher`'s subject): that reference's address. Copies of the struct
///   share it; a struct made again makes a new one;
/// - a struct whose one stored field is a closure (`Deferred`'s `createPublisher`): the
///   closure's context, which copies share and every closure expression run makes anew.
///   A closure that captures nothing has no context, and so no identity: two `Deferred`
///   made by one line could not be told apart from copies of one;
/// - anything else (most operators' structs: an upstream and a closure, or plain values):
///   none (0).
///
/// Reading it copies one word out of the publisher's memory, in place: nothing is
/// retained or released, no user code runs (no `Mirror`, which copies every field). The
/// object the address belongs to is held by its unowned count while the stage lives
/// (``SubscriptionHold``): its deinit runs as it would, but its memory, and so its
/// address, is not given to a publisher made later while the stage can be compared with
/// that publisher's.
enum PublisherIdentity: Sendable, Equatable {
    case none
    /// The word at `offset` is a reference (a class publisher: its own word, offset 0).
    case reference(offset: Int)
    /// The two words at `offset` are a closure; its context (the second) is the identity.
    case closure(offset: Int)
    /// `AnyPublisher`: its box (offset 0), whose class also says whether it erases a
    /// subject (``TypeNames/erasesSubject(boxClass:)``).
    case erased

    /// The identity rule for publishers of type `type`.
    static func of(_ type: Any.Type) -> PublisherIdentity {
        if type is AnyClass { return .reference(offset: 0) }
        if isAnyPublisher(String(reflecting: type)) { return .erased }
        var fields: [(offset: Int, kind: _MetadataKind)] = []
        let complete = _forEachField(of: type, options: ignoreUnknown) { _, offset, _, kind in
            fields.append((offset, kind))
            return fields.count <= 1
        }
        guard complete, fields.count == 1, let field = fields.first else { return .none }
        switch field.kind {
        case .class: return .reference(offset: field.offset)
        case .function: return .closure(offset: field.offset)
        default: return .none
        }
    }

    // The standard library declares its options as `static var`s, which Swift 6 will not
    // read from a nonisolated context; these are their values.
    private static let classType = _EachFieldOptions(rawValue: 1 << 0)
    private static let ignoreUnknown = _EachFieldOptions(rawValue: 1 << 1)

    /// Whether a type's qualified name is OpenCombine's (or Combine's) `AnyPublisher`.
    static func isAnyPublisher(_ qualified: String) -> Bool {
        qualified.hasPrefix("OpenCombine.AnyPublisher<") || qualified.hasPrefix("Combine.AnyPublisher<")
    }

    /// The identity of `publisher` (0: none); `object`, the address of the heap object it
    /// comes from (the tap holds its memory, not it, while the stage lives, so that no
    /// publisher made later takes the address: ``SubscriptionHold``); and, for an
    /// `AnyPublisher`, the address of its box's class (its type metadata), for the caller
    /// to ask whether it erases a subject.
    @inline(__always)
    func read<P>(_ publisher: P) -> (id: UInt64, object: UInt, boxClass: UInt) {
        switch self {
        case .none:
            return (0, 0, 0)
        case .reference(let offset):
            let word = withUnsafePointer(to: publisher) { UnsafeRawPointer($0).load(fromByteOffset: offset, as: UInt.self) }
            return (UInt64(word), word, 0)
        case .closure(let offset):
            let (function, context) = withUnsafePointer(to: publisher) {
                let raw = UnsafeRawPointer($0)
                return (raw.load(fromByteOffset: offset, as: UInt.self),
                        raw.load(fromByteOffset: offset + MemoryLayout<UInt>.size, as: UInt.self))
            }
            guard context != 0 else { return (0, 0, 0) }
            // A closure that captures one object alone may have that object as its context
            // (`self`): two different closures capturing the same `self` share it, so the
            // closure's code is part of its identity.
            return (UInt64(context) ^ (UInt64(function) &* 0x9E37_79B9_7F4A_7C15) | 1, context, 0)
        case .erased:
            let box = withUnsafePointer(to: publisher) { UnsafeRawPointer($0).load(as: UInt.self) }
            // A Swift object's first word is its class's metadata.
            guard let object = UnsafeRawPointer(bitPattern: box) else { return (0, 0, 0) }
            return (UInt64(box), box, object.load(as: UInt.self))
        }
    }

    /// Whether the `AnyPublisher` box class at `metadata` (``read(_:)``'s `boxClass`)
    /// wraps a subject: its one field, `base`, is of a class type that is a `Subject`.
    /// The box calls the subject's `receive(subscriber:)` itself, not `subscribe`, so the
    /// hook never sees the subject as a stage of its own; this says it is there.
    static func erasesSubject(boxClass metadata: UInt) -> Bool {
        guard let pointer = UnsafeRawPointer(bitPattern: metadata) else { return false }
        let boxType = unsafeBitCast(pointer, to: Any.Type.self)
        var subject = false
        _forEachField(of: boxType, options: [classType, ignoreUnknown]) { name, _, type, _ in
            if String(cString: name) == "base" { subject = type is AnyClass && type is any Subject.Type }
            return true
        }
        return subject
    }
}
