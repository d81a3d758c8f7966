/// The string values a sequence has seen lately, to intern those that repeat: a table of
/// ``slots`` texts, each in the slot its hash picks, holding the text's iid once it came
/// twice. A text that lands on another's slot takes it, so the table never grows and a
/// lookup is one short hash (FNV-1a over the UTF-8, not SipHash) and one comparison.
///
/// What it forgets costs only size: a value that repeats after its slot was taken is
/// written inline again, or interned again under a new iid (a sequence may define the
/// same text under several iids).
///
/// ```swift
/// var recent = RecentValues()
/// recent.visit("()")            // .first: write it inline
/// if case .second(let slot) = recent.visit("()") { recent.intern(slot, 12) }
/// recent.visit("()")            // .known(12)
/// ```
struct RecentValues {
    enum Visit {
        /// Not remembered: now it is.
        case first
        /// Remembered once: intern it (``intern(_:_:)``) in this slot.
        case second(slot: Int)
        case known(UInt64)
        /// Longer than ``PerfettoInterner/longestInterned``: never interned.
        case tooLong
    }

    static let slots = 1024
    private var texts: [String?] = Array(repeating: nil, count: RecentValues.slots)
    /// 0 while a text was seen once.
    private var iids: [UInt64] = Array(repeating: 0, count: RecentValues.slots)

    mutating func visit(_ text: String) -> Visit {
        guard let hash = Self.hash(text) else { return .tooLong }
        let slot = Int(truncatingIfNeeded: hash) & (Self.slots - 1)
        if let known = texts[slot], known == text {
            let iid = iids[slot]
            return iid == 0 ? .second(slot: slot) : .known(iid)
        }
        texts[slot] = text
        iids[slot] = 0
        return .first
    }

    mutating func intern(_ slot: Int, _ iid: UInt64) {
        iids[slot] = iid
    }

    mutating func removeAll() {
        for i in texts.indices where texts[i] != nil {
            texts[i] = nil
            iids[i] = 0
        }
    }

    /// FNV-1a of the text's UTF-8, mixed; nil when it is too long to intern.
    private static func hash(_ text: String) -> UInt64? {
        var text = text
        return text.withUTF8 { utf8 -> UInt64? in
            guard utf8.count <= PerfettoInterner.longestInterned else { return nil }
            var h: UInt64 = 0xCBF2_9CE4_8422_2325
            for byte in utf8 { h = (h ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
            return h ^ (h >> 29)
        }
    }
}
