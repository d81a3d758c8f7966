/// The wire's string table: each distinct name (operator, type, thread) travels once and
/// is referred to by id afterwards. Id 0 is the empty string; entry `i` has id `i + 1`.
///
/// Both sides keep the same table: the writer adds strings as batches first use them,
/// and the reader adds them in the same order. The table is bounded on both sides: the
/// writer starts over (``PackedBatch/resetStrings``) when it would pass ``capacity``, and
/// the reader refuses a peer that grows it further.
public struct StringTable: Sendable {
    /// More distinct names than any real program has (type names are per generic
    /// instantiation, threads are few), small enough to bound memory: ~65k strings.
    public static let defaultCapacity = 1 << 16

    public private(set) var strings: [String] = []
    private var ids: [String: UInt32] = [:]
    public let capacity: Int

    public init(capacity: Int = StringTable.defaultCapacity) {
        self.capacity = capacity
    }

    public var count: Int { strings.count }

    // MARK: - Writing

    /// The id of `string`, adding it (and to `added`, the batch's new strings) if new.
    public mutating func id(for string: String, added: inout [String]) -> UInt32 {
        if string.isEmpty { return 0 }
        if let id = ids[string] { return id }
        strings.append(string)
        added.append(string)
        let id = UInt32(strings.count)
        ids[string] = id
        return id
    }

    /// True when `upcoming` more strings might not fit: the writer then resets first.
    public func needsReset(forUpTo upcoming: Int) -> Bool {
        strings.count + upcoming > capacity
    }

    public mutating func removeAll() {
        strings.removeAll()
        ids.removeAll()
    }

    // MARK: - Reading

    /// Adds strings a peer defined, refusing to grow past the bound.
    public mutating func append(contentsOf added: [String], reset: Bool) throws {
        if reset { removeAll() }
        guard strings.count + added.count <= capacity else {
            throw FrameError.malformed(
                "the string table would grow past \(capacity) entries (the peer never resets it)")
        }
        strings.append(contentsOf: added)
    }

    /// Replaces the whole table (a snapshot carries it).
    public mutating func load(_ all: [String]) throws {
        try append(contentsOf: all, reset: true)
        ids = Dictionary(all.enumerated().map { ($0.element, UInt32($0.offset + 1)) },
                         uniquingKeysWith: { first, _ in first })
    }

    /// The string with this id; an id the peer never defined is an error.
    public func string(_ id: UInt32) throws -> String {
        if id == 0 { return "" }
        guard Int(id) <= strings.count else {
            throw FrameError.malformed("string id \(id) was never defined (the table has \(strings.count))")
        }
        return strings[Int(id) - 1]
    }
}
