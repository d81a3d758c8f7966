@preconcurrency import OpenCombine

/// Readable names for publisher types, computed once per type.
///
/// `String(describing:)` of a generic type costs microseconds; a program has few
/// distinct publisher types, so the names are cached by type identity.
final class TypeNames: @unchecked Sendable {
    struct Names: Sendable {
        let short: String
        let full: String
        /// How its outputs follow from its inputs, by its short name.
        let causes: CausePolicy
        /// The type's descriptor when it is the program's own (``ProgramType``), else 0.
        var programType: UInt = 0
    }

    /// What a subscribe's publisher and subscriber types say, whatever the instances.
    /// A class: a subscribe retains it once rather than each of its strings.
    final class Subscribe: Sendable {
        /// The publisher type's names (for a labelled stage, its wrapper's; the tap asks
        /// for the wrapped type's names itself).
        let publisher: Names
        /// The publisher conforms to ``PipescopeLabelled``: its label and upstream type
        /// are read from the instance.
        let isLabelled: Bool
        /// The publisher is a subject (a class): its identity links branches.
        let publishesSubject: Bool
        /// The subscriber is OpenCombine's `SubjectSubscriber`: it feeds a subject.
        let feedsSubject: Bool
        /// How an instance's identity is read (``PublisherIdentity``).
        let identity: PublisherIdentity
        /// How a subscriber of this type is described: by its `description` (read
        /// through the conformance found once, not a cast per subscribe), or, when it has
        /// none, by its type's name.
        let describe: Describe
        /// Where the publisher type keeps the closures its stage runs (``CodeFields``).
        let publisherCode: CodeFields
        /// Where the subscriber type keeps its closures: read for a root (a sink's).
        let subscriberCode: CodeFields
        /// The publisher type's descriptor when it is the program's (``ProgramType``): its
        /// `receive(subscriber:)` is the stage's code. 0 otherwise.
        let publisherType: UInt
        /// The same of the subscriber type: for a root, its `receive(_:)`.
        let subscriberType: UInt

        enum Describe: Sendable {
            /// Calls `description` on the subscriber the pointer points to.
            case description(@Sendable (UnsafeRawPointer) -> String)
            case typeName(String)
        }

        init(publisher: Names, isLabelled: Bool, publishesSubject: Bool, feedsSubject: Bool,
             identity: PublisherIdentity = .none, describe: Describe,
             publisherCode: CodeFields = .none, subscriberCode: CodeFields = .none,
             publisherType: UInt = 0, subscriberType: UInt = 0) {
            self.publisherCode = publisherCode
            self.subscriberCode = subscriberCode
            self.publisherType = publisherType
            self.subscriberType = subscriberType
            self.publisher = publisher
            self.isLabelled = isLabelled
            self.publishesSubject = publishesSubject
            self.feedsSubject = feedsSubject
            self.identity = identity
            self.describe = describe
        }

        /// The description `subscriber` (a value of the subscriber type these facts are
        /// for) gives of itself, cut to 120 characters; nil when it has none and is
        /// named by its type (``typeName``).
        @inline(__always)
        func ownDescription<S: Subscriber>(of subscriber: S) -> String? {
            guard case .description(let read) = describe else { return nil }
            let text = withUnsafePointer(to: subscriber) { read(UnsafeRawPointer($0)) }
            // At most 120 bytes has at most 120 characters: no copy needed.
            return text.utf8.count <= 120 ? text : String(text.prefix(120))
        }

        /// The name a subscriber with no description of its own goes by.
        var typeName: String? {
            if case .typeName(let name) = describe { return name }
            return nil
        }
    }

    /// Reads `description` of a `T` through a raw pointer to one, on the thread that
    /// delivers the value (the tap never describes on a thread of its own).
    private static func describer<T: CustomStringConvertible>(_: T.Type) -> @Sendable (UnsafeRawPointer) -> String {
        // Through a protocol whose metatypes are Sendable: a closure that named `T` itself
        // would capture `T.Type`, which Swift 6 cannot prove Sendable.
        let reader: any DescriptionReader.Type = Described<T>.self
        return { reader.description(at: $0) }
    }

    private struct Pair: TableKey {
        let publisher: ObjectIdentifier
        let subscriber: ObjectIdentifier
        var tableWord: UInt64 {
            UInt64(UInt(bitPattern: publisher)) ^ UInt64(UInt(bitPattern: subscriber)) &* 0xFF51_AFD7_ED55_8CCD
        }
    }

    private let cache = LockedBox<[ObjectIdentifier: Names]>([:])
    private let pairs = LockedBox(IdentityTable<Pair, Subscribe>())

    /// What a subscribe of a `P` by an `S` needs of their types, worked out once per pair:
    /// no lock when `cache` (the subscribing thread's) has them, one lock and one lookup
    /// after that.
    @inline(__always)
    func subscribe<P: Publisher, S: Subscriber>(_ publisher: P.Type, _ subscriber: S.Type,
                                                cache: TypeFactsCache) -> Subscribe {
        let pair = TypeFactsCache.Pair(publisher: ObjectIdentifier(P.self), subscriber: ObjectIdentifier(S.self))
        if let hit = cache.facts(of: pair) { return hit }
        let found = subscribe(P.self, S.self)
        cache.keep(found, for: pair)
        return found
    }

    /// What a subscribe of a `P` by an `S` needs of their types, worked out once per pair:
    /// one lock and one lookup after that.
    func subscribe<P: Publisher, S: Subscriber>(_ publisher: P.Type, _ subscriber: S.Type) -> Subscribe {
        let key = Pair(publisher: ObjectIdentifier(P.self), subscriber: ObjectIdentifier(S.self))
        if let hit = pairs.withLockedValue({ $0[key] }) { return hit }
        let subscriberNames = names(of: S.self)
        let publisherNames = names(of: P.self)
        let facts = Subscribe(
            publisher: publisherNames,
            isLabelled: P.self is any PipescopeLabelled.Type,
            publishesSubject: P.self is AnyClass && P.self is any Subject.Type,
            feedsSubject: SubjectIdentity.feedsSubject(typeName: subscriberNames.full),
            identity: PublisherIdentity.of(P.self),
            describe: (S.self as? any CustomStringConvertible.Type).map { .description(Self.describer($0)) }
                ?? .typeName(Self.shortName(String(describing: S.self))),
            publisherCode: CodeFields(of: P.self), subscriberCode: CodeFields(of: S.self),
            publisherType: publisherNames.programType, subscriberType: subscriberNames.programType)
        pairs.withLockedValue { $0[key] = facts }
        return facts
    }

    private let boxes = LockedBox<[UInt: Bool]>([:])

    /// Whether the `AnyPublisher` box class at `metadata` erases a subject
    /// (``PublisherIdentity/erasesSubject(boxClass:)``), worked out once per box class: no
    /// lock when `cache` (the subscribing thread's) has it, one lock after that.
    @inline(__always)
    func erasesSubject(boxClass metadata: UInt, cache: TypeFactsCache) -> Bool {
        if let hit = cache.erasesSubject(boxClass: metadata) { return hit }
        let found = erasesSubject(boxClass: metadata)
        cache.keep(erasesSubject: found, boxClass: metadata)
        return found
    }

    private func erasesSubject(boxClass metadata: UInt) -> Bool {
        if let hit = boxes.withLockedValue({ $0[metadata] }) { return hit }
        let found = PublisherIdentity.erasesSubject(boxClass: metadata)
        boxes.withLockedValue { $0[metadata] = found }
        return found
    }

    func names(of type: Any.Type) -> Names {
        let key = ObjectIdentifier(type)
        if let hit = cache.withLockedValue({ $0[key] }) { return hit }
        let qualified = String(reflecting: type)
        let short = Self.shortName(qualified: qualified)
        let names = Names(short: short, full: String(describing: type), causes: CausePolicy(operatorName: short),
                          programType: ProgramType.descriptor(of: type, qualifiedName: qualified))
        cache.withLockedValue { $0[key] = names }
        return names
    }

    /// The operator's name from a type's qualified name: the last component, or the
    /// last two when the last is a generic word like `Publisher`.
    /// "OpenCombine.Publishers.Map<…>" → "Map";
    /// "OpenCombine.Published<Swift.String>.Publisher" → "Published.Publisher";
    /// "Foundation.NotificationCenter.OCombine.Publisher" → "NotificationCenter.Publisher".
    static func shortName(qualified: String) -> String {
        var depth = 0
        var plain = ""
        for ch in qualified {
            if ch == "<" { depth += 1 } else if ch == ">" { depth -= 1 } else if depth == 0 { plain.append(ch) }
        }
        let parts = plain.split(separator: ".").filter { $0 != "OCombine" }
        guard let last = parts.last else { return qualified }
        if ["Publisher", "Subscriber", "Inner"].contains(last), parts.count >= 2 {
            return "\(parts[parts.count - 2]).\(last)"
        }
        return String(last)
    }

    /// The short name of a type written as `String(describing:)` prints it.
    static func shortName(_ described: String) -> String {
        shortName(qualified: described)
    }
}

/// Reads the `description` of a value of a type known only here, at a raw pointer.
private protocol DescriptionReader: SendableMetatype {
    static func description(at pointer: UnsafeRawPointer) -> String
}

private enum Described<T: CustomStringConvertible>: DescriptionReader {
    static func description(at pointer: UnsafeRawPointer) -> String {
        pointer.assumingMemoryBound(to: T.self).pointee.description
    }
}
