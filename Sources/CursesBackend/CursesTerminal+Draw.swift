import CNcurses
import Glibc
import TerminalKit

// MARK: - Drawing frames

/// A colour pair is allocated lazily for each (foreground, background) combination used.
struct ColorPairKey: Hashable {
    var foreground: Color?
    var background: Color?
}

extension CursesTerminal {
    /// Draws `buffer`, sending only the cells that changed since the previous frame.
    ///
    /// A change of screen or buffer size, or a call to ``invalidate()``, draws every cell.
    /// Cells beyond the screen are clipped. Colours are used only when ``hasColors``;
    /// bold, dim, reverse and underline always apply. When the locale is not UTF-8
    /// (``isUnicode`` is false), combining marks are dropped and each column of any
    /// other non-ASCII character shows `"?"`.
    ///
    /// ```swift
    /// terminal.draw(frame)   // first frame: everything
    /// terminal.draw(frame)   // same frame again: nothing is sent
    /// ```
    public func draw(_ buffer: ScreenBuffer) {
        guard cursesActive.load(ordering: .relaxed) else { return }
        let window = pipescope_stdscr()
        let screen = size
        let full = needsFullRedraw || previous == nil
            || screen.width != previousSize.width || screen.height != previousSize.height
        if full {
            werase(window)
            if needsFullRedraw { clearok(window, true) }
        }
        for run in buffer.diff(from: full ? nil : previous) where run.y < screen.height {
            let attributes = self.attributes(for: run.style)
            let pair = colorPair(for: run.style)
            var column = run.x
            for character in run.text {
                guard column < screen.width else { break }
                let width = max(1, character.terminalWidth)
                if isUnicode || character.isASCII {
                    var wide = Self.wideCharacters(character)
                    _ = pipescope_put_cell(window, Int32(run.y), Int32(column), &wide, attributes, pair)
                } else if let base = character.unicodeScalars.first, base.isASCII {
                    // An ASCII letter with combining marks: keep the letter.
                    var wide = Self.wideCharacters(Character(base))
                    _ = pipescope_put_cell(window, Int32(run.y), Int32(column), &wide, attributes, pair)
                } else {
                    // Without UTF-8, ncurses draws nothing for non-ASCII: show "?" per column.
                    var placeholder: [wchar_t] = [wchar_t(UInt8(ascii: "?")), 0]
                    for offset in 0..<min(width, screen.width - column) {
                        _ = pipescope_put_cell(window, Int32(run.y), Int32(column + offset),
                                               &placeholder, attributes, pair)
                    }
                }
                column += width
            }
        }
        wrefresh(window)
        previous = buffer
        previousSize = screen
        needsFullRedraw = false
    }

    /// The NUL-terminated `wchar_t` string for one grapheme, as `setcchar` wants it:
    /// at most one spacing character and four combining characters. Control characters
    /// (which `ScreenBuffer.put` never stores, but a subscript write could) become "?".
    static func wideCharacters(_ character: Character) -> [wchar_t] {
        var result: [wchar_t] = []
        for scalar in character.unicodeScalars.prefix(5) {
            if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                return [wchar_t(UInt8(ascii: "?")), 0]
            }
            result.append(wchar_t(bitPattern: scalar.value))
        }
        result.append(0)
        return result
    }

    /// The ncurses attributes for a style, without colour.
    func attributes(for style: Style) -> attr_t {
        var attributes = pipescope_a_normal()
        if style.bold { attributes |= pipescope_a_bold() }
        if style.dim { attributes |= pipescope_a_dim() }
        if style.reverse { attributes |= pipescope_a_reverse() }
        if style.underline { attributes |= pipescope_a_underline() }
        return attributes
    }

    /// The colour pair for a style's colours, allocating it on first use. Pair 0 (the
    /// terminal default) is used when colours are off or the terminal's pairs run out.
    func colorPair(for style: Style) -> Int16 {
        guard hasColors, style.foreground != nil || style.background != nil else { return 0 }
        let key = ColorPairKey(foreground: style.foreground, background: style.background)
        if let pair = colorPairs[key] { return pair }
        let next = colorPairs.count + 1
        guard next < min(Int(pipescope_color_pairs()), Int(Int16.max)) else { return 0 }
        let defaults = defaultColor
        let foreground = style.foreground.map { Int16($0.rawValue) } ?? defaults.foreground
        let background = style.background.map { Int16($0.rawValue) } ?? defaults.background
        guard init_pair(Int16(next), foreground, background) == pipescope_ok() else { return 0 }
        colorPairs[key] = Int16(next)
        return Int16(next)
    }
}
