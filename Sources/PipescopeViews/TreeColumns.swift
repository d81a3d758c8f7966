import PipescopeGraph
import TerminalKit

/// The tree's columns for one pane width: which fit, and how wide each is.
///
/// STAGE takes what the others leave. The LOCATION column (`Feed.swift:88`) appears only
/// when a visible stage has a location, and gives way first:
/// 1. everything, with the status as glyph and word (`✓ finished`), when STAGE keeps at
///    least ``fullLabel`` columns and LOCATION at least ``minimumLocation`` (a location
///    wider than its column loses the start of its file name, never its line);
/// 2. else the status as its glyph alone (`✓`), when STAGE keeps ``compactLabel``: a
///    120-column terminal's tree pane is this (the detail pane spells the status out);
/// 3. else no location, and the status in full again.
///
/// TIME (the stage's operator's own time per value, p50) appears only when a visible
/// stage has been timed, and when it fits without changing any of that: it gives way
/// before the location does.
///
/// ```swift
/// let c = TreeColumns(width: 64, locationWidth: 21)   // the tree pane of a 120x40 screen
/// (c.label, c.status, c.location)                     // (20, 2, 21)
/// TreeColumns(width: 64, locationWidth: 25).location  // 21: "…leStories.swift:40"
/// ```
struct TreeColumns: Equatable {
    static let statusWord = 14
    static let statusGlyph = 2
    static let demand = 6
    static let outstanding = 5
    static let values = 7
    /// TIME's width when shown: `12.5 ms` and a space.
    static let time = 9
    /// The widest location shown.
    static let locationLimit = 28
    /// The narrowest location column: `…e.swift:120` still says which line.
    static let minimumLocation = 14
    static let fullLabel = 22
    static let compactLabel = 20

    var label: Int
    var status: Int
    /// 0: no location column.
    var location: Int
    /// 0: no TIME column.
    var time = 0

    /// `locationWidth`: the widest location among the rows on screen (0: none has one).
    /// `timed`: whether a stage on screen has a TIME to show.
    init(width: Int, locationWidth: Int, timed: Bool = false) {
        let without = TreeColumns(fitting: width, locationWidth: locationWidth)
        guard timed else {
            self = without
            return
        }
        var with = TreeColumns(fitting: width - Self.time, locationWidth: locationWidth)
        with.time = Self.time
        // TIME gives way before LOCATION narrows or the status loses its word.
        let same = with.status == without.status && with.location == without.location
        self = same && with.label >= Self.compactLabel ? with : without
    }

    private init(fitting width: Int, locationWidth: Int) {
        let wanted = min(locationWidth, Self.locationLimit)
        func fit(status: Int, minimumLabel: Int) -> TreeColumns? {
            // What STAGE and LOCATION share, less the space between them.
            let room = width - (status + Self.demand + Self.outstanding + Self.values + 2) - 1
            let location = min(wanted, room - minimumLabel)
            guard location >= min(wanted, Self.minimumLocation) else { return nil }
            return TreeColumns(label: room - location, status: status, location: location)
        }
        if wanted > 0, let full = fit(status: Self.statusWord, minimumLabel: Self.fullLabel) {
            self = full
        } else if wanted > 0, let compact = fit(status: Self.statusGlyph, minimumLabel: Self.compactLabel) {
            self = compact
        } else {
            let label = width - (Self.statusWord + Self.demand + Self.outstanding + Self.values + 2)
            self.init(label: max(8, label), status: Self.statusWord, location: 0)
        }
    }

    init(label: Int, status: Int, location: Int, time: Int = 0) {
        self.label = label
        self.status = status
        self.location = location
        self.time = time
    }

    /// Where LOCATION starts, from the row's left edge.
    var locationOffset: Int { label + status + Self.demand + Self.outstanding + Self.values + 2 + time }

    /// Whether the status shows its word, not only its glyph.
    var spellsStatus: Bool { status >= Self.statusWord }

    /// The header line.
    var header: String {
        var text = Format.pad("STAGE", label) + Format.pad(spellsStatus ? "STATUS" : "", status)
            + Format.pad("REQ", Self.demand, right: true) + Format.pad("OUT", Self.outstanding, right: true)
            + Format.pad("VALUES", Self.values + 1, right: true)
        if time > 0 { text += Format.pad("TIME", time, right: true) }
        if location > 0 { text += " " + "LOCATION" }
        return text
    }

    /// A location cut to the column. A file and line loses the start of its file name
    /// (the end is what tells places apart, and the line must stay); a function (no debug
    /// information) loses its end, as names do elsewhere.
    func fit(_ location: SourceLocation, ellipsis: String) -> String {
        let text = location.short
        guard text.terminalWidth > self.location, self.location > 1 else { return text }
        let keep = self.location - ellipsis.terminalWidth
        return location.hasLine ? ellipsis + String(text.suffix(keep)) : String(text.prefix(keep)) + ellipsis
    }
}
