/// How far the Stage pane is scrolled, and how many lines its text has.
///
/// The pane shows the selected stage in full: on a short screen (80x24 gives it six rows)
/// its timing, values and requests are below the fold. Tab moves the focus to it, and
/// there ↑ ↓ PgUp PgDn Home End scroll it. The offset belongs to the stage it was
/// scrolled on: selecting another starts at its top. How long the text is depends on
/// the layout's width, which only the views know: the app measures it after each key
/// (``Message/detailLines(_:)``) so scrolling stops at the last line.
///
/// ```swift
/// _ = reduce(&state, .detailLines(14))
/// _ = reduce(&state, .action(.focusNext))     // the Stage pane
/// _ = reduce(&state, .action(.moveDown))
/// state.detail.offset(for: state.tree.current) // 1
/// ```
public struct DetailScroll: Equatable, Sendable {
    /// The stage or group the offset was scrolled on.
    public internal(set) var selection: TreeSelection?
    var offset = 0
    /// Lines of the pane's text at its width, as last measured; nil before the first.
    public internal(set) var lines: Int?

    public init() {}

    /// The first line shown for `current`: 0 for a stage other than the one scrolled.
    public func offset(for current: TreeSelection?) -> Int { current == selection ? offset : 0 }

    /// Scrolls `current`'s text by `delta` lines in a pane of `page` rows, no further than
    /// its last page (when the length is known). Reaching the last page keeps to the end
    /// (the offset is `.max`, which the view clamps): a live stage's text grows as values
    /// come, and End, or scrolling down to the end, stays there.
    mutating func scroll(by delta: Int, page: Int, current: TreeSelection?) {
        let last = lines.map { max(0, $0 - max(1, page)) } ?? Int.max
        let start = min(offset(for: current), last)
        selection = current
        let (moved, overflow) = start.addingReportingOverflow(delta)
        let target = min(max(0, overflow ? (delta > 0 ? Int.max : 0) : moved), last)
        offset = target >= last && target > 0 ? .max : target
    }
}
