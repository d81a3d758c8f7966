/// A grid of cells that views draw into; a backend then draws it on the terminal.
///
/// Writing outside the buffer is silently clipped, so views can draw without
/// bounds checks. A two-column character is stored as its cell followed by a
/// ``Cell/continuation`` cell; overwriting either half blanks the other.
///
/// ```swift
/// var buffer = ScreenBuffer(width: 20, height: 2)
/// buffer.put("hello", x: 1, y: 0, style: Style(bold: true))
/// buffer.lines()  // [" hello", ""]
/// ```
public struct ScreenBuffer: Equatable, Sendable {
    public let width: Int
    public let height: Int
    /// Row-major: the cell at (x, y) is `cells[y * width + x]`.
    private(set) var cells: [Cell]

    /// Creates a buffer of blank cells. Negative sizes are treated as zero.
    public init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        self.cells = Array(repeating: .blank, count: self.width * self.height)
    }

    /// The whole buffer as a rectangle.
    public var bounds: Rect { Rect(x: 0, y: 0, width: width, height: height) }

    /// The cell at column `x`, line `y`. Reading outside gives ``Cell/blank``;
    /// writing outside does nothing.
    public subscript(x: Int, y: Int) -> Cell {
        get { contains(x, y) ? cells[y * width + x] : .blank }
        set { setCell(newValue, x: x, y: y) }
    }

    func contains(_ x: Int, _ y: Int) -> Bool {
        x >= 0 && y >= 0 && x < width && y < height
    }

    // MARK: - Writing cells

    /// Sets one cell and blanks the other half of any wide character it breaks.
    private mutating func setCell(_ cell: Cell, x: Int, y: Int) {
        guard contains(x, y) else { return }
        let i = y * width + x
        let old = cells[i]
        // Cheapest test first: a wide character is followed by its continuation.
        if x + 1 < width, cells[i + 1].isContinuation,
           !old.isContinuation, old.character.terminalWidth == 2 {
            cells[i + 1] = Cell(" ", style: cells[i + 1].style)
        }
        if old.isContinuation, !cell.isContinuation, x > 0,
           !cells[i - 1].isContinuation, cells[i - 1].character.terminalWidth == 2 {
            cells[i - 1] = Cell(" ", style: cells[i - 1].style)
        }
        cells[i] = cell
    }

    /// Writes `text` starting at (`x`, `y`), clipped to `maxWidth` columns (default: to
    /// the buffer's edge) and to the buffer. Returns the number of columns written.
    ///
    /// Control characters and newlines are shown as `"?"`, a tab as a space. Wide
    /// characters take two columns; one that does not fit entirely is not written.
    /// Combining marks attach to the character before them.
    ///
    /// ```swift
    /// buffer.put("Filter", x: 2, y: 1, maxWidth: 4)  // writes "Filt", returns 4
    /// ```
    @discardableResult
    public mutating func put(
        _ text: String, x: Int, y: Int, style: Style = .plain, maxWidth: Int? = nil
    ) -> Int {
        guard y >= 0, y < height else { return 0 }
        let limit = min(width, maxWidth.map { x + max(0, $0) } ?? width)
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            // Printable ASCII, most of a screen: a byte is a character and a column.
            var column = x
            for byte in text.utf8 {
                if column >= limit { break }
                if column >= 0 { setCell(Cell(Character(Unicode.Scalar(byte)), style: style), x: column, y: y) }
                column += 1
            }
            return max(0, column - max(x, 0))
        }
        var column = x
        var previous: Int?  // column of the last cell written by this call
        for raw in text {
            let width = raw.terminalWidth
            if width == 0 {
                if let p = previous { attach(raw, toCellAt: p, y: y) }
                continue
            }
            if column + width > limit { break }
            let character = raw.sanitizedForTerminal
            if column >= 0 {
                setCell(Cell(character, style: style), x: column, y: y)
                if width == 2 { setCell(Cell(Cell.continuationCharacter, style: style), x: column + 1, y: y) }
                previous = column
            } else if column + width > 0 {
                // A wide character cut by the left edge: show its visible half as blank.
                setCell(Cell(" ", style: style), x: 0, y: y)
            }
            column += width
        }
        return max(0, column - max(x, 0))
    }

    /// Adds a combining mark to the character already in a cell, if they form one grapheme.
    private mutating func attach(_ mark: Character, toCellAt x: Int, y: Int) {
        let i = y * width + x
        let combined = String(cells[i].character) + String(mark)
        if combined.count == 1 { cells[i].character = Character(combined) }
    }

    /// Like ``put(_:x:y:style:maxWidth:)``, but text wider than `maxWidth` is cut and
    /// ends with the glyph set's ellipsis. Returns the number of columns written.
    ///
    /// ```swift
    /// buffer.putTruncated("PassthroughSubject", x: 0, y: 0, maxWidth: 8, glyphs: .unicode)
    /// // "Passthr…"
    /// ```
    @discardableResult
    public mutating func putTruncated(
        _ text: String, x: Int, y: Int, maxWidth: Int, style: Style = .plain, glyphs: Glyphs
    ) -> Int {
        guard maxWidth > 0 else { return 0 }
        if text.terminalWidth <= maxWidth {
            return put(text, x: x, y: y, style: style, maxWidth: maxWidth)
        }
        let ellipsisWidth = glyphs.ellipsis.terminalWidth
        let written = put(text, x: x, y: y, style: style, maxWidth: max(0, maxWidth - ellipsisWidth))
        return written + put(glyphs.ellipsis, x: x + written, y: y, style: style, maxWidth: maxWidth - written)
    }

    // MARK: - Areas

    /// Sets every cell of `rect` (clipped to the buffer) to `cell`.
    public mutating func fill(_ rect: Rect, with cell: Cell) {
        let area = rect.intersection(bounds)
        for y in area.y..<area.maxY {
            for x in area.x..<area.maxX { setCell(cell, x: x, y: y) }
        }
    }

    /// Changes the style of every cell in `rect` (clipped to the buffer), keeping the text.
    ///
    /// ```swift
    /// buffer.setStyle(area.row(selected)) { $0.reverse = true }
    /// ```
    public mutating func setStyle(_ rect: Rect, _ transform: (inout Style) -> Void) {
        let area = rect.intersection(bounds)
        for y in area.y..<area.maxY {
            for x in area.x..<area.maxX { transform(&cells[y * width + x].style) }
        }
    }

    // MARK: - Reading back

    /// True when the cell at (x, y) is the right half of the wide character before it.
    func isAttachedContinuation(x: Int, y: Int) -> Bool {
        guard contains(x, y), x > 0, cells[y * width + x].isContinuation else { return false }
        let head = cells[y * width + x - 1]
        return !head.isContinuation && head.character.terminalWidth == 2
    }

    /// The text of each line, styles dropped and trailing spaces trimmed.
    ///
    /// Wide characters appear once; use this in tests and text captures.
    public func lines() -> [String] {
        (0..<height).map { y in
            var line = ""
            for x in 0..<width {
                let cell = cells[y * width + x]
                if cell.isContinuation {
                    if !isAttachedContinuation(x: x, y: y) { line.append(" ") }
                } else {
                    line.append(cell.character)
                }
            }
            while line.last == " " { line.removeLast() }
            return line
        }
    }
}
