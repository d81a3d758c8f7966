import PipescopeGraph
import PipescopeModel

/// What one timeline lane shows in each column: a pure function of a stage's life (from
/// the graph on screen), its ``Lane`` and the window, so a test can check it column by
/// column. ``TimelineView`` turns the marks into glyphs.
///
/// A column covers the times `(end - (width - c) * scale, end - (width - 1 - c) * scale]`:
/// the rightmost column ends at `end` (now, or the cursor's event).
///
/// ```swift
/// let window = LaneDrawing.Window(end: now, scale: 100_000_000, width: 60)
/// LaneDrawing.stage(node, lane: lane, in: window)   // [.none, .subscribe, .bar, .value(3), …]
/// ```
public enum LaneDrawing {
    /// What a column of a lane holds, weightiest first when several fall in one column:
    /// an ending, then values, then the subscribe, then a request, then the bar itself.
    public enum Mark: Hashable, Sendable {
        case none
        /// Alive with demand outstanding (or not known to be without).
        case bar
        /// Alive and waiting with no outstanding demand: held back by its subscriber.
        case held
        case subscribe
        case request
        /// `count` values in the column.
        case value(Int)
        /// How it ended: finished, failed, or cancelled (with by whom).
        case end(NodeStatus, CancelCause?)
        /// A group's lane: `count` (two or more) of its members alive in the column.
        case overlap(Int)
    }

    public struct Window: Hashable, Sendable {
        public var end: Int64
        public var scale: Int64
        public var width: Int

        public init(end: Int64, scale: Int64, width: Int) {
            self.end = end
            self.scale = max(1, scale)
            self.width = width
        }

        /// The first time column `c` covers (inclusive) and the first it does not.
        public func times(of column: Int) -> (from: Int64, to: Int64) {
            let to = end - Int64(width - 1 - column) * scale + 1
            return (to - scale, to)
        }

        /// The column `time` falls in, clamped into `-1 ... width` (left of, or right of,
        /// the window).
        public func column(of time: Int64) -> Int {
            guard time <= end else { return width }
            let age = (end - time) / scale
            return age >= Int64(width) ? -1 : width - 1 - Int(age)
        }
    }

    /// A stage's lane: its life from subscribe to its end (or the right edge while it
    /// lives), held stretches, requests, values by count, and its ending.
    public static func stage(_ node: NodeSummary, lane: Lane?, in window: Window) -> [Mark] {
        var marks = [Mark](repeating: .none, count: window.width)
        let ended = node.status.isTerminal ? node.endedNanos : nil
        let first = window.column(of: node.createdNanos)
        let last = window.column(of: ended ?? window.end)
        guard first < window.width, last >= 0 else { return marks }
        for column in max(0, first)...min(window.width - 1, last) {
            let (from, to) = window.times(of: column)
            if ended != nil, column == last {
                marks[column] = .end(node.status, node.cause)
            } else if let n = lane?.values(from: from, to: to), n > 0 {
                marks[column] = .value(n)
            } else if column == first {
                marks[column] = .subscribe
            } else if let lane, lane.requests(from: from, to: to) > 0 {
                marks[column] = .request
            } else if let lane, lane.isHeld(from: from, to: to) {
                marks[column] = .held
            } else {
                marks[column] = .bar
            }
        }
        return marks
    }

    /// A group's lane (`Future ×9`): each member's life, overlapping lives as a count
    /// per column; where one member lives alone, its own marks.
    public static func group(_ members: [NodeSummary], lanes: [NodeID: Lane], in window: Window) -> [Mark] {
        var alive = [Int](repeating: 0, count: window.width)
        var own = [Mark](repeating: .none, count: window.width)
        for member in members {
            let marks = stage(member, lane: lanes[member.id], in: window)
            for (column, mark) in marks.enumerated() where mark != .none {
                alive[column] += 1
                own[column] = mark
            }
        }
        return (0..<window.width).map { alive[$0] > 1 ? .overlap(alive[$0]) : own[$0] }
    }
}
