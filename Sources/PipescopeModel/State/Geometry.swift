/// The sizes the screen's layout gives its parts, worked out by the views' one layout
/// function (`ScreenView.geometry(width:height:)`) and carried by the resize message,
/// so the reducer pages and scrolls by what is on screen without repeating the layout.
///
/// ```swift
/// _ = reduce(&state, .resize(ScreenView.geometry(width: 120, height: 40)))
/// state.geometry.treePage   // tree rows on screen
/// ```
public struct Geometry: Equatable, Sendable {
    public var width: Int
    public var height: Int
    /// Tree rows on screen, so paging moves a screenful.
    public var treePage: Int
    /// Table rows on screen.
    public var tablePage: Int
    /// The table's width inside its box, so `<` `>` sort by the columns shown.
    public var tableWidth: Int
    /// Lines of the help on screen at once, when it scrolls.
    public var helpPage: Int
    /// Lines the help scrolls through; 0 when it fits without scrolling.
    public var helpLines: Int
    /// The timeline's lanes' width on the tree screen (0: the layout shows no timeline).
    public var timelineWidth: Int
    /// The timeline's lanes' width on the timeline screen.
    public var timelineScreenWidth: Int
    /// Rows of the Stage pane on the tree screen while it has the focus (it grows then on
    /// a narrow screen), so PgUp PgDn scroll it by a pageful.
    public var detailPage: Int

    public init(width: Int = 80, height: Int = 24, treePage: Int = 10, tablePage: Int = 10, tableWidth: Int = 78,
                helpPage: Int = 19, helpLines: Int = 0, timelineWidth: Int = 0, timelineScreenWidth: Int = 0,
                detailPage: Int = 6) {
        self.width = width
        self.height = height
        self.treePage = treePage
        self.tablePage = tablePage
        self.tableWidth = tableWidth
        self.helpPage = helpPage
        self.helpLines = helpLines
        self.timelineWidth = timelineWidth
        self.timelineScreenWidth = timelineScreenWidth
        self.detailPage = detailPage
    }
}
