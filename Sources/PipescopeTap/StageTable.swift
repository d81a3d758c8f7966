/// The map from a subscriber's ``StageKey`` to its live stage: the one lookup every value
/// makes.
///
/// An open-addressing table with linear probing and Fibonacci hashing of the key's two
/// words, instead of `Dictionary`: a lookup is a multiply, a shift and usually one
/// compare, where `Hasher` (SipHash) cost more than the rest of recording a value.
/// Deletion shifts later entries back, so there are no tombstones and lookups stay
/// short however many stages come and go. It grows at 3/4 full and never shrinks below
/// its largest live size. Holds identities and numbers only.
struct StageTable<Value> {
    private struct Slot {
        var key: StageKey
        var value: Value
    }

    private var slots: [Slot?]
    private var mask: Int
    private var shift: UInt64
    private(set) var count = 0

    package init(capacity: Int = 64) {
        var size = 16
        while size < capacity { size <<= 1 }
        slots = Array(repeating: nil, count: size)
        mask = size - 1
        shift = UInt64(64 - size.trailingZeroBitCount)
    }

    @inline(__always)
    private func home(_ key: StageKey) -> Int {
        let id = unsafeBitCast(key.id, to: UInt64.self)
        let mixed = (id ^ UInt64(UInt(bitPattern: key.type)) &* 0xFF51_AFD7_ED55_8CCD) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: mixed >> shift)
    }

    @inline(__always)
    private func index(of key: StageKey) -> Int? {
        var i = home(key)
        while let slot = slots[i] {
            if slot.key == key { return i }
            i = (i + 1) & mask
        }
        return nil
    }

    subscript(key: StageKey) -> Value? {
        @inline(__always) get { index(of: key).flatMap { slots[$0]?.value } }
        set {
            if let newValue { insert(key, newValue) } else { remove(key) }
        }
    }

    private mutating func insert(_ key: StageKey, _ value: Value) {
        if let i = index(of: key) {
            slots[i]?.value = value
            return
        }
        if (count + 1) * 4 > slots.count * 3 { grow() }
        var i = home(key)
        while slots[i] != nil { i = (i + 1) & mask }
        slots[i] = Slot(key: key, value: value)
        count += 1
    }

    private mutating func remove(_ key: StageKey) {
        guard var hole = index(of: key) else { return }
        slots[hole] = nil
        count -= 1
        // Shift back every later entry of the run that the hole would hide from its home.
        var j = hole
        while true {
            j = (j + 1) & mask
            guard let slot = slots[j] else { return }
            let k = home(slot.key)
            let between = hole <= j ? (hole < k && k <= j) : (hole < k || k <= j)
            if !between {
                slots[hole] = slot
                slots[j] = nil
                hole = j
            }
        }
    }

    private mutating func grow() {
        let old = slots
        slots = Array(repeating: nil, count: old.count * 2)
        mask = slots.count - 1
        shift = UInt64(64 - slots.count.trailingZeroBitCount)
        count = 0
        for case let slot? in old { insert(slot.key, slot.value) }
    }
}
