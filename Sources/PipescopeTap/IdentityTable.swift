import CPipescopeClock
@preconcurrency import OpenCombine

/// A key of an ``IdentityTable``: an identity or a number whose bits, mixed once, spread
/// well under Fibonacci hashing.
protocol TableKey: Equatable {
    /// The key folded into one word; the table multiplies it and keeps the top bits.
    var tableWord: UInt64 { get }
}

extension StageKey: TableKey {
    @inline(__always)
    var tableWord: UInt64 {
        unsafeBitCast(id, to: UInt64.self) ^ UInt64(UInt(bitPattern: type)) &* 0xFF51_AFD7_ED55_8CCD
    }
}

extension CombineIdentifier: TableKey {
    @inline(__always)
    var tableWord: UInt64 { unsafeBitCast(self, to: UInt64.self) }
}

extension ObjectIdentifier: TableKey {
    @inline(__always)
    var tableWord: UInt64 { UInt64(UInt(bitPattern: self)) }
}

extension UInt64: TableKey {
    @inline(__always)
    var tableWord: UInt64 { self }
}

/// The map from a subscriber's ``StageKey`` to its live stage: the one lookup every value
/// makes.
typealias StageTable<Value> = IdentityTable<StageKey, Value>

/// The tap's maps from identities and node numbers (``StageKey``, `CombineIdentifier`,
/// `NodeID`) to what it knows of them: a stage per subscriber on every value, and on
/// every subscribe and cancel the stage's keys, its subscription and its retirement.
///
/// An open-addressing table with linear probing and Fibonacci hashing of the key's
/// word (``TableKey``), instead of `Dictionary`: a lookup is a multiply, a shift and
/// usually one compare, where `Hasher` (SipHash) cost more than the rest of recording a
/// value. Deletion shifts later entries back, so there are no tombstones and lookups stay
/// short however many stages come and go. It grows at 3/4 full and never shrinks below
/// its largest live size. Holds identities and numbers only (and, for subscriptions, a
/// ``SubscriptionHold``).
struct IdentityTable<Key: TableKey, Value> {
    // Keys and values in two arrays: a probe reads keys only (plain words), and no slot
    // type of our own needs generic metadata at run time to be copied.
    private var keys: [Key?]
    private var values: [Value?]
    private var mask: Int
    private var shift: UInt64
    private(set) var count = 0

    package init(capacity: Int = 64) {
        var size = 16
        while size < capacity { size <<= 1 }
        keys = Array(repeating: nil, count: size)
        values = Array(repeating: nil, count: size)
        mask = size - 1
        shift = UInt64(64 - size.trailingZeroBitCount)
    }

    @inline(__always)
    private func home(_ key: Key) -> Int {
        Int(truncatingIfNeeded: (key.tableWord &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    @inline(__always)
    private func index(of key: Key) -> Int? {
        var i = home(key)
        while let k = keys[i] {
            if k == key { return i }
            i = (i + 1) & mask
        }
        return nil
    }

    subscript(key: Key) -> Value? {
        @inline(__always) get { index(of: key).flatMap { values[$0] } }
        set {
            if let newValue { insert(key, newValue) } else { remove(key) }
        }
    }

    @inline(__always)
    func contains(_ key: Key) -> Bool { index(of: key) != nil }

    /// Runs `body` on the value of `key` in place (no copy of it, so an array it holds
    /// stays uniquely referenced); nil when there is none.
    @inline(__always)
    mutating func modify<R>(_ key: Key, _ body: (inout Value) -> R) -> R? {
        guard let i = index(of: key) else { return nil }
        return body(&values[i]!)
    }

    /// Starts loading the slot where `key` is, or would be, into the cache: for a table
    /// larger than the core's caches, one event before that slot is used. Changes nothing.
    @inline(__always)
    func prefetch(_ key: Key) {
        let i = home(key)
        keys.withUnsafeBufferPointer { pipescope_prefetch($0.baseAddress.map { $0 + i }) }
        values.withUnsafeBufferPointer { pipescope_prefetch($0.baseAddress.map { $0 + i }) }
    }

    /// Removes the value of `key` and returns it.
    @discardableResult
    mutating func removeValue(forKey key: Key) -> Value? {
        guard let i = index(of: key) else { return nil }
        let value = values[i].take()
        remove(at: i)
        return value
    }

    /// Empties the table, handing each value to `body` first.
    mutating func removeAll(_ body: (Value) -> Void) {
        for case let value? in values { body(value) }
        self = IdentityTable()
    }

    /// `value` is moved in, not copied (a copy would retain the arrays a value holds).
    private mutating func insert(_ key: Key, _ value: consuming Value) {
        if let i = index(of: key) {
            values[i] = value
            return
        }
        if (count + 1) * 4 > keys.count * 3 { grow() }
        var i = home(key)
        while keys[i] != nil { i = (i + 1) & mask }
        keys[i] = key
        values[i] = value
        count += 1
    }

    private mutating func remove(_ key: Key) {
        guard let i = index(of: key) else { return }
        values[i] = nil
        remove(at: i)
    }

    /// Empties slot `hole` (its value already taken) and shifts back every later entry of
    /// the run that the hole would hide from its home.
    private mutating func remove(at index: Int) {
        var hole = index
        keys[hole] = nil
        count -= 1
        var j = hole
        while true {
            j = (j + 1) & mask
            guard let key = keys[j] else { return }
            let k = home(key)
            let between = hole <= j ? (hole < k && k <= j) : (hole < k || k <= j)
            if !between {
                // Moves: slot `hole` is empty.
                keys.swapAt(hole, j)
                values.swapAt(hole, j)
                hole = j
            }
        }
    }

    private mutating func grow() {
        let oldKeys = keys
        var oldValues = values
        keys = Array(repeating: nil, count: oldKeys.count * 2)
        values = Array(repeating: nil, count: oldKeys.count * 2)
        mask = keys.count - 1
        shift = UInt64(64 - keys.count.trailingZeroBitCount)
        count = 0
        for i in oldKeys.indices {
            if let key = oldKeys[i], let value = oldValues[i].take() { insert(key, value) }
        }
    }
}
