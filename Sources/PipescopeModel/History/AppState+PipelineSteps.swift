import PipescopeGraph

extension AppState {
    /// The stages whose events the event log lists (``eventLog``): the selected stage's
    /// (`f`), or the pipeline's shown alone (Enter on the table, or on a stage); nil when
    /// it lists every event.
    ///
    /// The cursor moves through those events only: `[` `]`, the event log's arrows, the
    /// timeline's `←` `→` and a replay's `n` skip the others, so it never lands on an
    /// event of a pipeline that is not on screen, and the log always shows (highlighted)
    /// the event it is on.
    func scopedStages() -> Set<NodeID>? { eventLog.stages }

    /// The position `delta` of `stages`' events away from `position` (earlier when
    /// negative), or the last of them found that way; nil when there is none.
    func position(from position: Int, by delta: Int, among stages: Set<NodeID>) -> Int? {
        let log = cursor.log
        let step = delta < 0 ? -1 : 1
        var left = abs(delta)
        var at = position
        var found: Int?
        while left > 0 {
            at += step
            guard at > log.start, at <= log.end else { break }
            if let event = log.event(at: at), stages.contains(event.node) {
                found = at
                left -= 1
            }
        }
        return found
    }

    /// Moves the cursor `delta` of the events the log lists (`stages`'); past the newest
    /// it is live again. Says so when no earlier one is kept.
    mutating func moveThroughPipeline(by delta: Int, stages: Set<NodeID>) {
        let at = cursor.position ?? cursor.log.end
        if let to = position(from: at, by: delta, among: stages) {
            cursor.move(to: to)
        } else if delta > 0 {
            cursor.goLive()
        } else {
            switch eventLog {
            case .all: break
            case .pipeline(let root, _):
                let all = timeline.logScope == .pipeline ? "f until the log lists every pipeline's" : "Esc shows every pipeline"
                session.notice = Notice(text: "no earlier event of pipeline #\(root) is kept (\(all))", isError: false)
            case .stage(let id):
                session.notice = Notice(text: "no earlier event of #\(id) is kept (f lists more)", isError: false)
            }
        }
    }
}
