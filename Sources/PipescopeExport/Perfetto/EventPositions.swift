import PipescopeGraph

/// Recorded event ids to positions, for the events of one batch: an open-addressing
/// table of plain numbers (no per-entry allocation, no SipHash), emptied in place for
/// the next batch. ``CauseFlows`` keeps two, this batch's and the last one's, to find
/// the cause of each value.
///
/// ```swift
/// var positions = EventPositions()
/// positions[41] = 7
/// positions[41]        // 7
/// positions.removeAll()
/// positions[41]        // nil
/// ```
struct EventPositions {
    /// Ids (0: an empty slot; event id 0 means "none" and is never stored) and positions.
    private var keys: [EventID] = Array(repeating: 0, count: 1024)
    private var values: [Int] = Array(repeating: 0, count: 1024)
    private(set) var count = 0

    private var mask: Int { keys.count - 1 }

    @inline(__always)
    private func slot(of id: EventID) -> Int {
        Int(truncatingIfNeeded: (id &* 0x9E37_79B9_7F4A_7C15) >> 20) & mask
    }

    subscript(id: EventID) -> Int? {
        get {
            guard id != 0 else { return nil }
            var i = slot(of: id)
            while true {
                let key = keys[i]
                if key == id { return values[i] }
                if key == 0 { return nil }
                i = (i + 1) & mask
            }
        }
        set {
            guard id != 0, let newValue else { return }
            if (count + 1) * 2 > keys.count { grow() }
            var i = slot(of: id)
            while keys[i] != 0, keys[i] != id { i = (i + 1) & mask }
            if keys[i] == 0 { count += 1 }
            keys[i] = id
            values[i] = newValue
        }
    }

    /// Empties the table, keeping its room (shrinking it when the last batch was far smaller).
    mutating func removeAll() {
        guard count > 0 else { return }
        if keys.count > 1024, count * 8 < keys.count {
            keys = Array(repeating: 0, count: keys.count / 2)
            values = Array(repeating: 0, count: keys.count)
        } else {
            keys.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
        }
        count = 0
    }

    private mutating func grow() {
        let oldKeys = keys, oldValues = values
        keys = Array(repeating: 0, count: oldKeys.count * 2)
        values = Array(repeating: 0, count: oldKeys.count * 2)
        count = 0
        for (key, value) in zip(oldKeys, oldValues) where key != 0 { self[key] = value }
    }
}
