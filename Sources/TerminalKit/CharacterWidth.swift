// MARK: - Terminal column widths

/// How many terminal columns text takes, decided from Unicode properties rather than
/// the C library's `wcwidth` (which depends on `setlocale` having been called).
///
/// - Control characters count 1: `ScreenBuffer.put` shows them as a placeholder.
/// - Combining marks and format characters (general category Mn, Me, Cf) count 0.
/// - Emoji presentation and East Asian wide or fullwidth characters count 2.
/// - Everything else counts 1.
///
/// ```swift
/// Character("a").terminalWidth   // 1
/// Character("日").terminalWidth  // 2
/// "e\u{301}".terminalWidth       // 1 (one grapheme: e + combining acute)
/// ```
extension Character {
    /// Columns this character takes on a terminal: 0, 1 or 2.
    ///
    /// A screen's characters are mostly ASCII, box drawing and symbols: one scalar below
    /// U+3000, whose widths come from a table built once by the same rules, so drawing
    /// a frame asks Unicode's properties only for the rare others.
    public var terminalWidth: Int {
        if asciiValue != nil { return 1 }
        let scalars = unicodeScalars
        var rest = scalars.makeIterator()
        guard let first = rest.next() else { return 0 }
        if rest.next() == nil, first.value < ScalarWidths.tableEnd { return Int(ScalarWidths.table[Int(first.value)]) }
        return ScalarWidths.width(of: scalars)
    }

    /// The character as `ScreenBuffer.put` stores it: a tab becomes a space, and
    /// other control characters (including newlines) become `"?"`.
    var sanitizedForTerminal: Character {
        if let ascii = asciiValue {
            // Every ASCII control character (and "\r\n", one Character) is one.
            if ascii >= 0x20, ascii != 0x7F { return self }
            return ascii == 0x09 ? " " : "?"
        }
        // The other control characters (general category Cc) are U+0080 to U+009F.
        guard let first = unicodeScalars.first, (0x80...0x9F).contains(first.value) else { return self }
        return "?"
    }
}

/// The width rules, and their table for single scalars below ``tableEnd``.
enum ScalarWidths {
    static let tableEnd: UInt32 = 0x3000

    /// The width of each one-scalar character below ``tableEnd`` (0 for surrogates,
    /// which are not scalars), by ``width(of:)``.
    static let table: [UInt8] = (0..<tableEnd).map { value in
        guard let scalar = Unicode.Scalar(value) else { return 0 }
        return UInt8(width(of: String(Character(scalar)).unicodeScalars))
    }

    /// The columns a grapheme of these scalars takes (see `Character.terminalWidth`).
    static func width(of scalars: String.UnicodeScalarView) -> Int {
        guard let first = scalars.first else { return 0 }
        if first.properties.generalCategory == .control { return 1 }
        if scalars.allSatisfy({ $0.isZeroWidth }) { return 0 }
        if scalars.contains(where: { $0.properties.isEmojiPresentation }) { return 2 }
        if first.properties.isEmoji, scalars.contains("\u{FE0F}") { return 2 }
        return first.isEastAsianWide ? 2 : 1
    }
}

extension StringProtocol {
    /// Columns this text takes on a terminal: the sum of its characters' widths.
    public var terminalWidth: Int {
        // Printable ASCII: a column a byte.
        if utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return utf8.count }
        var total = 0
        for c in self { total += c.terminalWidth }
        return total
    }
}

extension Unicode.Scalar {
    /// Combining marks and invisible format characters.
    fileprivate var isZeroWidth: Bool {
        switch properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return true
        default: return false
        }
    }

    /// East Asian Wide (W) and Fullwidth (F) blocks, as `wcwidth` implementations list them.
    fileprivate var isEastAsianWide: Bool {
        switch value {
        case 0x1100...0x115F,     // Hangul Jamo initial consonants
             0x2E80...0x303E,     // CJK radicals, Kangxi, CJK symbols and punctuation
             0x3041...0x33FF,     // Hiragana, Katakana, Bopomofo, CJK compatibility
             0x3400...0x4DBF,     // CJK extension A
             0x4E00...0x9FFF,     // CJK unified ideographs
             0xA000...0xA4CF,     // Yi
             0xA960...0xA97F,     // Hangul Jamo extended A
             0xAC00...0xD7A3,     // Hangul syllables
             0xF900...0xFAFF,     // CJK compatibility ideographs
             0xFE10...0xFE19,     // vertical forms
             0xFE30...0xFE6F,     // CJK compatibility forms, small forms
             0xFF00...0xFF60,     // fullwidth forms
             0xFFE0...0xFFE6,     // fullwidth signs
             0x1B000...0x1B2FF,   // Kana supplement and extended
             0x1F200...0x1F2FF,   // enclosed ideographic supplement
             0x20000...0x2FFFD,   // CJK extensions B–F
             0x30000...0x3FFFD:   // CJK extension G
            return true
        default:
            return false
        }
    }
}
