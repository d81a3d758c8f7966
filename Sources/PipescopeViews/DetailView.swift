import PipescopeGraph
import PipescopeModel
import TerminalKit

/// The selected stage in full: types, thread, times, where it waits (``Waits``), demand,
/// values, and how it ended.
///
/// The text can be longer than the pane (80x24 gives it six rows). Unfocused, the pane
/// shows what matters most: the callers of the stage's place and its recent values are
/// the first to go, and the title counts the lines not shown. With the focus (Tab), it
/// scrolls through every line (``DetailScroll``) and the title says where it is.
public enum DetailView {
    /// What a line is, for fitting the text to a short pane.
    enum Kind { case main, caller, recent }
    typealias Line = (text: String, style: Style, kind: Kind)

    public static func render(_ state: AppState, theme: Theme, area: Rect, into buffer: inout ScreenBuffer) {
        guard !area.isEmpty else { return }
        let shown = visibleLines(state, theme: theme, area: area)
        for (i, line) in shown.enumerated() {
            buffer.putTruncated(line.text, x: area.x, y: area.y + i, maxWidth: area.width, style: line.style,
                                glyphs: theme.glyphs)
        }
    }

    /// The pane's title for an `area` inside its box: "Stage" when the text fits, "Stage:
    /// 6 of 14 lines (Tab)" when some are not shown, "Stage: lines 3-8 of 14 ↑↓" while
    /// it has the focus.
    public static func title(_ state: AppState, theme: Theme, area: Rect) -> String {
        let total = lineCount(state, theme: theme, width: area.width)
        guard total > area.height, area.height > 0 else { return "Stage" }
        if state.focus == .detail {
            let first = min(state.detail.offset(for: state.tree.current), total - area.height)
            return "Stage: lines \(first + 1)-\(first + area.height) of \(total) " + theme.text("↑↓")
        }
        return "Stage: \(area.height) of \(total) lines, Tab scrolls"
    }

    /// How many lines the selected stage's text has at `width`: every caller and five
    /// recent values included (what the focused pane scrolls through).
    public static func lineCount(_ state: AppState, theme: Theme, width: Int) -> Int {
        lines(state, theme: theme, width: width).count
    }

    /// The lines on screen: a window at the scroll offset while focused, else the text
    /// fitted to the pane.
    static func visibleLines(_ state: AppState, theme: Theme, area: Rect) -> [Line] {
        let all = lines(state, theme: theme, width: area.width)
        if state.focus == .detail {
            let first = max(0, min(state.detail.offset(for: state.tree.current), all.count - area.height))
            return Array(all.dropFirst(first).prefix(area.height))
        }
        return fitted(all, height: area.height)
    }

    /// The text for a pane `height` rows high: the main lines, then as many callers as fit
    /// in their place, then the newest recent values (with their heading) if at least one
    /// fits.
    static func fitted(_ all: [Line], height: Int) -> [Line] {
        guard all.count > height else { return all }
        let main = all.filter { $0.kind == .main }
        let recentRows = all.filter { $0.kind == .recent }
        let callerRoom = max(0, height - main.count)
        var callers = 0
        var kept: [Line] = []
        for line in all where line.kind != .recent {
            if line.kind == .caller {
                guard callers < callerRoom else { continue }
                callers += 1
            }
            kept.append(line)
        }
        // The heading is a main line of kind .recent's first: values are the rest.
        let room = height - kept.count - 1
        if room > 0, recentRows.count > 1 {
            kept.append(recentRows[0])
            kept += recentRows.dropFirst().suffix(room)
        }
        return Array(kept.prefix(height))
    }

    /// Every line of the selected stage's (or group's) text at `width`.
    static func lines(_ state: AppState, theme: Theme, width: Int) -> [Line] {
        if let group = state.tree.selectedGroup {
            return groupLines(group, state: state, theme: theme, width: width).map { ($0.0, $0.1, .main) }
        }
        guard let node = state.selectedNode else {
            return [("Select a stage to see it here.", theme.dim, .main)]
        }
        var lines: [Line] = [
            (node.publisherType, theme.title, .main),
            (theme.text("#\(node.id) → \(node.subscriber)  thread \(node.thread)"), .plain, .main),
        ]
        func add(_ text: String, _ style: Style) { lines.append((text, style, .main)) }
        let placed = state.cursor.graph.location(of: node.id)
        if let placed {
            add(locationLine(placed), .plain)
            if let reason = placed.location.missingLineReason { add(reason, theme.dim) }
            lines += placed.frames.map { ("  called from " + describe($0), theme.dim, .caller) }
        }
        for line in codeLines(node, in: state.cursor.graph) { add(line, .plain) }
        add("status \(theme.glyph(of: node)) \(statusText(node))", theme.style(node.status))
        if let wait = state.warnings.waits[node.id] {
            let style = Style(foreground: theme.colors ? .yellow : nil, bold: true)
            let text = theme.text("‖ ") + wait.sentence(of: node.id, in: state.cursor.graph, now: state.timelineEnd)
            // Whole: the pane scrolls (Tab), and a wait or a warning cut mid-sentence loses
            // what to do, which is said last.
            for line in wrap(text, width: width, maxLines: .max) { add(line, style) }
        }
        for lint in state.warnings.lints where lint.node == node.id {
            let style = Style(foreground: theme.colors ? .yellow : nil, bold: true)
            for line in wrap(theme.text("⚠ \(lint.kind.rawValue): ") + lint.message, width: width, maxLines: .max) {
                add(line, style)
            }
        }
        if let error = node.error {
            let style = Style(foreground: theme.colors ? .red : nil, bold: true)
            for line in wrap("error: " + error, width: width, maxLines: 3) { add(line, style) }
        }
        add("demand requested \(Format.demand(node.requested, theme: theme))"
                + (node.status.isTerminal ? "" : "  outstanding \(Format.demand(node.outstanding, theme: theme))"), .plain)
        add(valuesLine(node, theme: theme), .plain)
        if let capture = captureLine(node, state: state, theme: theme) { add(capture, theme.dim) }
        for line in timeLines(node, width: width) { add(line, .plain) }
        if !node.recentRequests.isEmpty { add(requestsLine(node, theme: theme), theme.dim) }
        add("created \(Format.time(node.createdNanos))" + (node.endedNanos.map { "  ended \(Format.time($0))" } ?? ""), theme.dim)
        if node.orphaned {
            add("orphaned: an upstream stage was cancelled, nothing more will arrive", theme.style(.cancelled))
        }
        // Sharing with itself is no sharing: say nothing then.
        let sharers = node.sharers.filter { $0 != node.id }
        if let owner = node.subscriptionOwner, owner != node.id, let o = state.cursor.graph[owner] {
            add("shares the subscription of #\(owner) \(o.operatorName)", theme.dim)
        } else if !sharers.isEmpty {
            add("its subscription passes through #" + sharers.map(String.init).joined(separator: ", #"), theme.dim)
        }
        if !node.feeds.isEmpty {
            add("also feeds #" + node.feeds.map(String.init).joined(separator: ", #") + " through a subject", theme.dim)
        }
        if let same = samePublisherLine(node, in: state.cursor.graph) { add(same, theme.dim) }
        // Recent values last: they are the first to go when the pane is short.
        if node.values > 0 {
            lines.append(("recent values", theme.dim, .recent))
            lines += recentValues(node, state: state, count: 5).map { ($0, .plain, .recent) }
        }
        return lines
    }

    /// A group row: what it stands for, its totals, and its newest member, whose own
    /// details are one `→` and a move away.
    static func groupLines(_ group: StageGroup, state: AppState, theme: Theme, width: Int) -> [(String, Style)] {
        let graph = state.cursor.graph
        guard let newest = graph[group.newest] else { return [] }
        let plural = group.count == 1 ? "" : "s"
        if group.id.key.isOwner {
            let name = group.owner?.name ?? "?"
            return [
                (theme.text("⌂ ") + name, theme.title),
                ("\(group.count) released owner\(plural) of this name, whose \(group.pipelines) pipelines all ended", .plain),
                ("values \(group.values) in all", .plain),
                ("newest: #\(newest.id) \(newest.operatorName)" + (group.lastEndedNanos.map { ", ended \(Format.time($0))" } ?? ""),
                 theme.dim),
                (theme.text("→ opens the group: each owner and its pipelines"), theme.dim),
            ]
        }
        let status = group.status ?? newest.status
        let under: String
        if let parent = group.id.parent, let p = graph[parent] {
            under = "under #\(parent) \(p.operatorName)"
        } else if let owner = group.id.owner, let o = graph.owners[owner] {
            under = "held by \(o.name)"
        } else {
            under = "pipelines"
        }
        var lines: [(String, Style)] = [
            (newest.publisherType, theme.title),
            (theme.text("\(newest.operatorName) ×\(group.count): \(group.count) ended stage\(plural) alike, \(under)"), .plain),
            ("status \(theme.glyph(status)) \(status.rawValue), all \(group.count)", theme.style(status)),
            ("values \(group.values) in all  demand requested \(Format.demand(group.requested, theme: theme)) in all", .plain),
            ("newest #\(newest.id) \(DetailView.statusText(newest))"
                + (newest.endedNanos.map { " \(Format.time($0))" } ?? "")
                + "  last \(theme.text(newest.lastValue ?? "—"))", .plain),
        ]
        if let error = newest.error {
            for line in wrap("newest's error: " + error, width: width, maxLines: 2) {
                lines.append((line, Style(foreground: theme.colors ? .red : nil, bold: true)))
            }
        }
        let linted = state.warnings.lints.filter { state.tree.groupOf[$0.node] == group.id }
        if let lint = linted.max(by: { $0.node < $1.node }) {
            let style = Style(foreground: theme.colors ? .yellow : nil, bold: true)
            let text = theme.text("⚠ \(lint.kind.rawValue) on \(linted.count) of them (w lists them): ") + lint.message
            for line in wrap(text, width: width, maxLines: .max) { lines.append((line, style)) }
        }
        if let oldest = group.members.first, let first = graph[oldest] {
            lines.append(("oldest #\(oldest), created \(Format.time(first.createdNanos))", theme.dim))
        }
        // At the retention's cap the count is what is kept, not all there were: say so.
        let cap = state.retention.maxEndedInner
        if let parent = group.id.parent, let p = graph[parent],
           p.children.lazy.filter({ graph[$0]?.status.isTerminal == true }).count >= cap {
            let text = "at most \(cap) ended stages are kept under #\(parent); older ones are pruned (PIPESCOPE_RETAIN_INNER)"
            for line in wrap(text, width: width, maxLines: 2) { lines.append((line, theme.dim)) }
        }
        lines.append((theme.text("→ opens the group; c and v act on one stage of it"), theme.dim))
        return lines
    }

    /// `values 120  last ["s shoe", …]`: the last value described, and its time when
    /// newer values were not (``captureLine(_:state:theme:)`` says how many).
    static func valuesLine(_ node: NodeSummary, theme: Theme) -> String {
        var text = "values \(node.values)  last \(theme.text(node.lastValue ?? "—"))"
        if node.lastValue != nil, node.undescribedSince > 0, let time = node.lastDescribedNanos {
            text += " at \(Format.time(time))"
        }
        return text
    }

    /// The other live stages subscribed to the same publisher as `node` (one `Future`,
    /// copies of one `AnyPublisher` or `Deferred`): "same publisher as live #3, #7".
    static func samePublisherLine(_ node: NodeSummary, in graph: Graph) -> String? {
        let live = graph.samePublisher(as: node.id).filter { graph[$0].map { !$0.status.isTerminal } ?? false }
        guard !live.isEmpty else { return nil }
        let shown = live.prefix(4).map { "#\($0)" }.joined(separator: ", ")
        return "same publisher as live " + shown + (live.count > 4 ? " and \(live.count - 4) more" : "")
    }

    /// How many values newer than "last" went undescribed (sampled), or that every value
    /// is being described (watched); nil when there is nothing to say.
    static func captureLine(_ node: NodeSummary, state: AppState, theme: Theme) -> String? {
        if state.session.watched.contains(node.id) { return "watched: every value described (v stops)" }
        let newer = node.undescribedSince
        guard node.values > 0, newer > 0 else { return nil }
        return node.lastValue == nil
            ? "values not described (v describes every value)"
            : "\(Format.count(newer)) newer value\(newer == 1 ? "" : "s") not described: sampled, 1 per \(FlushInterval.text) (v: all)"
    }

    /// How long the stage's operator takes per value it receives ("time own p50 2.1 ms
    /// p99 4.0 ms max 9.1 ms (1,204) · with downstream p50 2.3 ms"), and a root's sink.
    static func timeLines(_ node: NodeSummary, width: Int) -> [String] {
        guard let times = node.times else { return [] }
        func figures(_ h: TimeHistogram) -> String {
            "p50 \(CellText.duration(h.p50)) p99 \(CellText.duration(h.p99)) max \(CellText.duration(h.max)) (\(Format.count(h.count)))"
        }
        var lines: [String] = []
        if times.own.count > 0 {
            lines += wrap("time own \(figures(times.own)) · with downstream p50 \(CellText.duration(times.withDownstream.p50))"
                          + " p99 \(CellText.duration(times.withDownstream.p99))", width: width, maxLines: 2)
        }
        if times.sink.count > 0 {
            lines += wrap("time in its \(node.subscriber) \(figures(times.sink))", width: width, maxLines: 2)
        }
        return lines
    }

    /// "requests +1 12:00:01.000 · +1 12:00:01.250 (returned)", newest last.
    static func requestsLine(_ node: NodeSummary, theme: Theme) -> String {
        "requests " + node.recentRequests.map { request in
            "+\(Format.demand(request.demand, theme: theme)) \(Format.time(request.time))"
                + (request.returned ? " (returned)" : "")
        }.joined(separator: theme.text(" · "))
    }

    /// The stage's last values up to the history position shown, with their times and,
    /// where the program described them, their text. Newest last.
    static func recentValues(_ node: NodeSummary, state: AppState, count: Int) -> [String] {
        let position = state.cursor.position ?? state.cursor.log.end
        let found = state.cursor.log.events(endingAt: position, count: count, node: node.id, kinds: [.value])
        if found.isEmpty, let time = node.lastValueNanos {
            return ["  \(Format.time(time))  \(node.lastValue ?? "")"]
        }
        return found.map { "  \(Format.time($0.event.time))  \($0.event.text.isEmpty ? "(not described)" : $0.event.text)" }
    }

    /// "subscribed at Feed.swift:88  in Feed.start()": where the program subscribed the
    /// stage (not its code: ``codeLines(_:in:)``); for a stage that shows its pipeline's,
    /// "pipeline #1 subscribed at …".
    static func locationLine(_ placed: StageLocation) -> String {
        let location = placed.location
        let verb = location.hasLine || location.function == nil ? "at " : "in "
        return (placed.isInherited ? "pipeline #\(placed.from) subscribed " : "subscribed ") + verb + describe(location)
    }

    /// Where the stage's own code is, "code at Feed.swift:91  in closure #2 in
    /// Feed.start()", and for an inner publisher what built it: "built by API.search(_:)
    /// at Search.swift:12", or, when only the transform that returned it is known, "built
    /// by the closure at Feed.swift:40 that returned it". Nothing when neither is known.
    static func codeLines(_ node: NodeSummary, in graph: Graph) -> [String] {
        var lines: [String] = []
        if let code = node.code { lines.append("code at " + describe(code)) }
        if let built = graph.builtBy(of: node.id) {
            let l = built.location
            if built.isTransform {
                lines.append("built by the closure at \(l.short) that returned it"
                             + (l.function.map { "  (\($0))" } ?? ""))
            } else {
                lines.append("built by \(l.function ?? l.short)" + (l.hasLine ? " at \(l.short)" : ""))
            }
        }
        return lines
    }

    /// "Feed.swift:88  in Feed.start()"; without a line "Feed.start() (MyApp)"; without
    /// symbols "MyApp+0x1f2c".
    static func describe(_ location: SourceLocation) -> String {
        if location.hasLine { return location.short + (location.function.map { "  in \($0)" } ?? "") }
        if let function = location.function { return function + (location.image.map { " (\($0))" } ?? "") }
        return location.short
    }

    /// "finished", "cancelled by inspector", "failed" (the error has its own line).
    static func statusText(_ node: NodeSummary) -> String {
        var text = node.status.rawValue
        if let cause = node.cause { text += " by \(cause.rawValue)" }
        return text
    }

    /// Splits `text` into at most `maxLines` lines of at most `width` characters, between
    /// words (a word longer than a line is cut). When the text needs more lines, the last
    /// one holds all the rest: drawn with `putTruncated`, it ends with the theme's
    /// ellipsis, so a cut message says it was cut.
    static func wrap(_ text: String, width: Int, maxLines: Int) -> [String] {
        guard width > 0, maxLines > 0 else { return [] }
        var lines: [String] = []
        var rest = Substring(text)
        while !rest.isEmpty {
            if rest.count <= width || lines.count == maxLines - 1 {
                lines.append(String(rest))
                break
            }
            // The last space that leaves a line of at most `width` (one right after it
            // ends the line too); none, or only leading ones: cut the word.
            let window = rest.prefix(width + 1)
            if let space = window.lastIndex(of: " "), rest[..<space].contains(where: { $0 != " " }) {
                lines.append(String(rest[..<space]))
                rest = rest[space...].drop { $0 == " " }
            } else {
                lines.append(String(rest.prefix(width)))
                rest = rest.dropFirst(width)
            }
        }
        return lines
    }
}
