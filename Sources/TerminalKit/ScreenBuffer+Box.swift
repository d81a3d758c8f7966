extension ScreenBuffer {
    /// Draws a box on the edge of `rect`, with an optional title set into the top edge
    /// as `" Title "` in `titleStyle`. The inside is left untouched; draw into
    /// `rect.inset(by: 1)`. A title too long for the edge is truncated.
    ///
    /// ```swift
    /// buffer.drawBox(area, title: "Pipelines", style: .plain,
    ///                titleStyle: Style(bold: true), glyphs: .unicode)
    /// // ┌ Pipelines ───┐
    /// // │              │
    /// // └──────────────┘
    /// ```
    public mutating func drawBox(
        _ rect: Rect, title: String?, style: Style, titleStyle: Style, glyphs: Glyphs
    ) {
        guard rect.width >= 2, rect.height >= 2 else {
            fill(rect, with: Cell(glyphs.horizontal, style: style))
            return
        }
        let horizontal = Cell(glyphs.horizontal, style: style)
        let vertical = Cell(glyphs.vertical, style: style)
        fill(Rect(x: rect.x + 1, y: rect.y, width: rect.width - 2, height: 1), with: horizontal)
        fill(Rect(x: rect.x + 1, y: rect.maxY - 1, width: rect.width - 2, height: 1), with: horizontal)
        fill(Rect(x: rect.x, y: rect.y + 1, width: 1, height: rect.height - 2), with: vertical)
        fill(Rect(x: rect.maxX - 1, y: rect.y + 1, width: 1, height: rect.height - 2), with: vertical)
        self[rect.x, rect.y] = Cell(glyphs.topLeft, style: style)
        self[rect.maxX - 1, rect.y] = Cell(glyphs.topRight, style: style)
        self[rect.x, rect.maxY - 1] = Cell(glyphs.bottomLeft, style: style)
        self[rect.maxX - 1, rect.maxY - 1] = Cell(glyphs.bottomRight, style: style)

        // " Title " needs the two corners plus at least one letter and its two spaces.
        if let title, !title.isEmpty, rect.width >= 5 {
            putTruncated(" " + title + " ", x: rect.x + 1, y: rect.y,
                         maxWidth: rect.width - 2, style: titleStyle, glyphs: glyphs)
        }
    }
}
