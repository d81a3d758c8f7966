/// A horizontal run of changed cells sharing one style: the unit a backend draws.
///
/// `text` holds the run's characters in order; a wide character covers two
/// columns, so the run spans `text.terminalWidth` columns starting at `x`.
public struct CellRun: Equatable, Sendable {
    public var x: Int
    public var y: Int
    public var style: Style
    public var text: String

    public init(x: Int, y: Int, style: Style, text: String) {
        self.x = x
        self.y = y
        self.style = style
        self.text = text
    }
}

extension ScreenBuffer {
    /// The cells that differ from `previous` (all cells when there is no previous frame
    /// or its size differs), grouped into runs of adjacent changed cells of one style.
    ///
    /// Both halves of a changed wide character are included, so a backend can draw
    /// each run at its `x` without looking at its neighbours.
    ///
    /// ```swift
    /// for run in frame.diff(from: lastFrame) { draw(run) }
    /// ```
    public func diff(from previous: ScreenBuffer?) -> [CellRun] {
        let everything = previous.map { $0.width != width || $0.height != height } ?? true
        var runs: [CellRun] = []
        var changed = [Bool](repeating: false, count: width)
        for y in 0..<height {
            let base = y * width
            for x in 0..<width {
                changed[x] = everything || cells[base + x] != previous!.cells[base + x]
            }
            // Keep both halves of a wide character together.
            for x in 0..<width where changed[x] {
                if isAttachedContinuation(x: x, y: y) { changed[x - 1] = true }
                if isAttachedContinuation(x: x + 1, y: y) { changed[x + 1] = true }
            }
            var current: CellRun?
            for x in 0..<width {
                guard changed[x] else {
                    if let run = current { runs.append(run); current = nil }
                    continue
                }
                let cell = cells[base + x]
                if isAttachedContinuation(x: x, y: y), current != nil { continue }
                let character: Character = cell.isContinuation ? " " : cell.character
                if var run = current, run.style == cell.style {
                    run.text.append(character)
                    current = run
                } else {
                    if let run = current { runs.append(run) }
                    current = CellRun(x: x, y: y, style: cell.style, text: String(character))
                }
            }
            if let run = current { runs.append(run) }
        }
        return runs
    }
}
