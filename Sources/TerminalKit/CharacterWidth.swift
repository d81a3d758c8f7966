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
    public var terminalWidth: Int {
        if asciiValue != nil { return 1 }
        let scalars = unicodeScalars
        guard let first = scalars.first else { return 0 }
        if first.properties.generalCategory == .control { return 1 }
        if scalars.allSatisfy({ $0.isZeroWidth }) { return 0 }
        if scalars.contains(where: { $0.properties.isEmojiPresentation }) { return 2 }
        if first.properties.isEmoji, scalars.contains("\u{FE0F}") { return 2 }
        return first.isEastAsianWide ? 2 : 1
    }

    /// The character as `ScreenBuffer.put` stores it: a tab becomes a space, and
    /// other control characters (including newlines) become `"?"`.
    var sanitizedForTerminal: Character {
        guard let first = unicodeScalars.first,
              first.properties.generalCategory == .control else { return self }
        return self == "\t" ? " " : "?"
    }
}

extension StringProtocol {
    /// Columns this text takes on a terminal: the sum of its characters' widths.
    public var terminalWidth: Int {
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
