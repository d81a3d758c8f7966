import PipescopeGraph

/// Recorded event ids to positions, for the events of one batch. A batch's events are
/// numbered in a row (``EventBatch/numbered()``) and come in order, so the table is an
/// array indexed by the id less the batch's first: no hashing, no probing. An id out of
/// that window (earlier than the first, or far beyond it) goes to a small dictionary.
/// ``CauseFlows`` keeps two, this batch's and the last one's, to find the cause of each
/// value, and empties one in place for each new batch.
///
/// ```swift
/// var positions = EventPositions()
/// positions[41] = 7
/// positions[41]        // 7
/// positions.removeAll()
/// positions[41]        // nil
/// ```
struct EventPositions {
    /// The id of `slots[0]`, and each id's position plus one (0: none).
    private var first: EventID = 0
    private var slots: [Int] = []
    private var spill: [EventID: Int] = [:]
    private(set) var count = 0

    /// The widest window the array covers; ids beyond go to the dictionary.
    static let window: UInt64 = 1 << 20

    subscript(id: EventID) -> Int? {
        get {
            guard id != 0 else { return nil }
            if id >= first, id - first < UInt64(slots.count) {
                let slot = slots[Int(id - first)]
                return slot == 0 ? nil : slot - 1
            }
            return spill.isEmpty ? nil : spill[id]
        }
        set {
            guard id != 0, let newValue else { return }
            if slots.isEmpty, spill.isEmpty { first = id }
            guard id >= first, id - first < Self.window else {
                if spill.updateValue(newValue, forKey: id) == nil { count += 1 }
                return
            }
            let offset = Int(id - first)
            if offset >= slots.count { slots.append(contentsOf: repeatElement(0, count: offset + 1 - slots.count)) }
            if slots[offset] == 0 { count += 1 }
            slots[offset] = newValue + 1
        }
    }

    /// Empties the table, keeping its room.
    mutating func removeAll() {
        slots.removeAll(keepingCapacity: true)
        if !spill.isEmpty { spill.removeAll() }
        count = 0
    }
}
